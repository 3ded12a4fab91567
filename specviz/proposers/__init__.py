"""Who proposes the drafted tokens: a separate draft model, n-gram prompt lookup, a layer-skip self-draft, or an
EAGLE-style feature drafter."""

from __future__ import annotations

from specviz.i18n import _
from specviz.limits import PROPOSERS
from specviz.proposers.base import Proposal, Proposer
from specviz.proposers.draft_model import DraftModelProposer
from specviz.proposers.eagle import EagleDrafter, EagleProposer
from specviz.proposers.layerskip import LayerSkipProposer, default_layers, early_exit_model
from specviz.text import template_tokens as chat_markers
from specviz.proposers.ngram import NgramProposer, prompt_lookup


__all__ = ["PROPOSERS", "Proposal", "Proposer", "DraftModelProposer", "EagleDrafter", "EagleProposer", "LayerSkipProposer", "NgramProposer",
           "default_layers", "early_exit_model", "make_proposer", "prompt_lookup"]


def template_tokens(pair) -> frozenset[int]:
    """The chat template's markers (`specviz.text.template_tokens`) but the end of text, which an answer does
    end with: the tokens n-gram lookup passes over (the loop also cuts a deterministic draft before one)."""
    tokenizer = getattr(pair, "tokenizer", None)
    ends = getattr(getattr(getattr(pair, "target", None), "generation_config", None), "eos_token_id", None)
    ends = set(ends if isinstance(ends, (list, tuple)) else [ends]) | {getattr(tokenizer, "eos_token_id", None)}
    return frozenset(chat_markers(tokenizer) - ends)


def make_proposer(pair, name: str | None = None, *, layers: int | None = None) -> Proposer:
    """The proposer called `name` for a loaded `specviz.models.Pair` (its default when name is None)."""
    name = name or pair.default_proposer
    vocab = pair.target.config.vocab_size
    if name == "draft":
        if pair.draft is None:
            raise ValueError(_("The pair '{pair}' has no separate draft model; use --proposer layerskip or ngram.",
                               pair=pair.name))
        return DraftModelProposer(pair.draft, vocab)
    if name == "eagle":
        if pair.eagle is None:
            raise ValueError(_("The pair '{pair}' has no trained EAGLE drafter; use --proposer layerskip or ngram.",
                               pair=pair.name))
        drafter, draft_vocab = pair.eagle
        return EagleProposer(pair.target, drafter, draft_vocab)
    if name == "ngram":
        return NgramProposer(exclude=template_tokens(pair))
    if name == "layerskip":
        return LayerSkipProposer(pair.target, layers or default_layers(pair.target), vocab)
    raise ValueError(_("Unknown proposer '{name}': choose one of {choices}.", name=name, choices=", ".join(PROPOSERS)))
