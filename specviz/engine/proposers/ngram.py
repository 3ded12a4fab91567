"""N-gram prompt lookup (Saxena 2023; transformers' `prompt_lookup_num_tokens`): no draft model at all.

Find the most recent earlier occurrence of the sequence's last n tokens (n from `max_ngram` down to
`min_ngram`) and propose up to K tokens that followed it (fewer where the sequence ends first). It is
deterministic, so q is a point mass on each proposed token and the rule accepts x with probability p(x). It shines
when the output repeats the input (summaries, rewrites, code edits) and proposes nothing when there is no match.
transformers' prompt lookup (the bench's twin of "ngram", run with `max_matching_ngram_size=3`) takes the earliest
match instead, from the left, and knows no chat markers (below), so the two can propose different tokens after the
same text.

A chat prompt ends with the template's "<|im_start|>assistant\n", whose last token also ends every earlier turn's
header, so a plain lookup's first guess is always the next header ("<|im_start|>", "ass", ...), which no answer
contains. `exclude` names such tokens (`make_proposer` passes the chat template's markers but the end of text): a
guess stops before one, and a match whose continuation starts with one is passed over for an earlier match, so the
first step drafts the start of a copied passage instead of nothing (the loop would cut the marker anyway).
"""

from __future__ import annotations

import torch

from specviz.core.text import template_tokens as chat_markers
from specviz.engine.proposers.base import Proposal, Proposer
from specviz.engine.sampling import SamplingConfig


def prompt_lookup(sequence: list[int], k: int, max_ngram: int = 3, min_ngram: int = 1,
                  exclude: frozenset[int] = frozenset(), overlap: bool = False) -> list[int]:
    """The up-to-k tokens that followed the latest earlier match of the sequence's final n-gram, cut before the
    first token in `exclude` (a match that leaves nothing is passed over). With `overlap`, a copy that reaches the
    end of the sequence reads on into what it has copied so far (LZ77's overlapping copy): after a loop of period P,
    it proposes the loop's next k tokens rather than at most P.

    >>> prompt_lookup([5, 6, 7, 8, 9, 5, 6], k=3)
    [7, 8, 9]
    >>> prompt_lookup([1, 2, 3], k=2)
    []
    >>> prompt_lookup([1, 5, 7, 8, 2, 5, 9, 3, 5], k=2), prompt_lookup([1, 5, 7, 8, 2, 5, 9, 3, 5], k=2, exclude={9})
    ([9, 3], [7, 8])
    >>> prompt_lookup([4, 1, 2, 1, 2], k=5), prompt_lookup([4, 1, 2, 1, 2], k=5, overlap=True)
    ([1, 2], [1, 2, 1, 2, 1])
    """
    n_tokens = len(sequence)
    for n in range(min(max_ngram, n_tokens - 1), min_ngram - 1, -1):
        tail = sequence[-n:]
        for start in range(n_tokens - n - 1, -1, -1):  # latest match first, never the tail itself
            if sequence[start:start + n] == tail:
                follow = sequence[start + n:start + n + k]
                if overlap:
                    while len(follow) < k:  # sequence + follow, read on past the end
                        follow.append(follow[start + n + len(follow) - n_tokens])
                follow = follow[:next((i for i, t in enumerate(follow) if t in exclude), len(follow))]
                if follow:
                    return follow
    return []


class NgramProposer(Proposer):
    name = "ngram"

    def __init__(self, max_ngram: int = 3, min_ngram: int = 1, exclude: frozenset[int] = frozenset()):
        if not 1 <= min_ngram <= max_ngram:
            raise ValueError("n-gram sizes need 1 <= min_ngram <= max_ngram.")
        self.max_ngram, self.min_ngram, self.exclude = max_ngram, min_ngram, frozenset(exclude)

    def propose(self, sequence: list[int], k: int, sampling: SamplingConfig,
                generator: torch.Generator) -> Proposal:
        return Proposal(prompt_lookup(sequence, k, self.max_ngram, self.min_ngram, self.exclude), None)


def template_tokens(pair) -> frozenset[int]:
    """The chat template's markers (`specviz.core.text.template_tokens`) but the end of text, which an answer does
    end with: the tokens n-gram lookup passes over (the loop also cuts a deterministic draft before one)."""
    tokenizer = getattr(pair, "tokenizer", None)
    ends = getattr(getattr(getattr(pair, "target", None), "generation_config", None), "eos_token_id", None)
    ends = set(ends if isinstance(ends, (list, tuple)) else [ends]) | {getattr(tokenizer, "eos_token_id", None)}
    return frozenset(chat_markers(tokenizer) - ends)


def from_pair(pair) -> NgramProposer:
    """Prompt lookup that passes over the pair's chat markers (`specviz.engine.proposers.registry`: "ngram")."""
    return NgramProposer(exclude=template_tokens(pair))


def transformers_twin(pair, proposer) -> dict:
    """transformers' prompt lookup decoding (the bench's twin of "ngram")."""
    return {"prompt_lookup": True}
