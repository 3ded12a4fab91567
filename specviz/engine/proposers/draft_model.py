"""A separate (smaller) causal LM as the proposer: the classic form of speculative decoding.

The draft runs K cheap autoregressive steps with its own KV cache, sampling each token from q (the draft's
distribution after the same temperature / top-k / top-p as the target). It never feeds its K-th token: that
token's successor is the target's business. After verification the cache is rewound to the accepted prefix,
and the next `propose` feeds whatever it has not seen (the recovered token, or the last draft plus the bonus).
"""

from __future__ import annotations

import torch
from transformers import PreTrainedModel

from specviz.core.i18n import _
from specviz.engine.kvcache import CachedModel
from specviz.engine.proposers.base import Proposal, Proposer
from specviz.engine.sampling import SamplingConfig, sample
from specviz.engine.tree import ROOT, DraftTree, grow_tree


class DraftModelProposer(Proposer):
    """A causal LM drafting with its own KV cache; it honours `stop_below` (see `Proposer.stops_here`)."""

    has_draft_probs = True

    def __init__(self, model: PreTrainedModel, vocab_size: int, name: str = "draft"):
        self.name = name
        self.runner = CachedModel(model, vocab_size=vocab_size)

    def prefill(self, sequence: list[int]) -> None:
        self.runner.prefill(sequence)

    def propose(self, sequence: list[int], k: int, sampling: SamplingConfig,
                generator: torch.Generator) -> Proposal:
        tokens: list[int] = []
        rows: list[torch.Tensor] = []
        for _ in range(k):
            logits = self.runner.feed(sequence, tokens)[-1]  # (V,)
            if self.stops_here(logits):
                break
            probs = sampling.probs(logits).cpu()
            tokens.append(sample(probs, generator))
            rows.append(probs)
        return Proposal(tokens, torch.stack(rows) if rows else None)

    def propose_tree(self, sequence: list[int], *, max_nodes: int, max_depth: int, width: int,
                     sampling: SamplingConfig, generator: torch.Generator, sampled: bool,
                     stop_tokens: frozenset[int] = frozenset()) -> DraftTree:
        def expand(tree: DraftTree, nodes: list[int]) -> torch.Tensor:
            if nodes == [ROOT]:
                return self.runner.feed(sequence)[-1:]  # (1, V): q after the sequence
            return self.runner.feed_nodes(tree, nodes)  # (F, V)

        tree = grow_tree(expand, max_nodes=max_nodes, max_depth=max_depth, width=width, probs=sampling.probs,
                         sampled=sampled, generator=generator, stop_tokens=stop_tokens)
        if tree.candidate_ids:  # a reranked tree: the cache holds every candidate the drafter read
            self.runner.renumber(tree.candidate_ids)
        return tree

    def keep_tree_path(self, valid_length: int, path: list[int]) -> None:
        self.runner.keep_path(path)  # the sequence plus the accepted nodes it had fed, nothing else
        self.rollback(valid_length)

    def rollback(self, valid_length: int) -> None:
        self.runner.rewind(min(valid_length, len(self.runner)))

    def reset(self) -> None:
        self.runner = CachedModel(self.runner.model, vocab_size=self.runner.vocab_size)  # a new cache, never shared

    def cache_length(self) -> int:
        return len(self.runner)


def from_pair(pair) -> DraftModelProposer:
    """The pair's separate draft model as the proposer (`specviz.engine.proposers.registry`: "draft")."""
    if pair.draft is None:
        raise ValueError(_("The pair '{pair}' has no separate draft model; use --proposer layerskip or ngram.",
                           pair=pair.name))
    return DraftModelProposer(pair.draft, pair.target.config.vocab_size)


def transformers_twin(pair, proposer) -> dict:
    """transformers' assisted generation with the same separate draft model (the bench's twin of "draft")."""
    return {"assistant": pair.draft}
