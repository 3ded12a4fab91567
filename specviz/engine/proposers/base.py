"""What a proposer is: anything that guesses the next K tokens, with the draft distribution q they came from.

A proposer that returns `draft_probs=None` is deterministic: q is a point mass on each proposed token (n-gram
prompt lookup). The engine calls `propose` once per chain step that may draft (not when the step's K is 0 or the
token limit leaves room for the last token only) and then `rollback` with the length of the sequence that survived
verification; a tree step calls `propose_tree` and `keep_tree_path` instead.

A model proposer (`has_draft_probs`) can also stop early: with `stop_below` > 0 it ends a chain proposal at the
first position where the draft's top probability falls below it, and the target decides that token instead. Every
model proposer's `propose` asks `stops_here(logits)` before it samples a position; `propose_tree` does not (a tree step
drafts its whole tree whatever `stop_below` says). `specviz.engine.policies.confident` is the one way to turn it on.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import torch

from specviz.engine.sampling import SamplingConfig
from specviz.engine.tree import DraftTree


@dataclass
class Proposal:
    """K proposed tokens and, for a model proposer, the distributions (K, V) they were sampled from."""

    tokens: list[int]
    draft_probs: torch.Tensor | None


def top_probability(logits: torch.Tensor) -> float:
    """The draft's own confidence: the largest probability of softmax(logits) at temperature 1, with no top-k or
    top-p, so it means the same under greedy decoding, where q itself is a point mass. logits: (V,).

    >>> round(top_probability(torch.tensor([0.0, 0.0, 0.0, 0.0])), 2)
    0.25
    """
    return torch.softmax(logits.float(), dim=-1).max().item()


class Proposer(ABC):
    """The draft side of speculative decoding."""

    name: str = "proposer"
    needs_target_features: bool = False  # True: the engine calls observe_target after every target pass
    feature_layers: tuple[int, ...] = (-1,)  # the target's hidden states it observes, side by side (-1: the last)
    has_draft_probs: bool = False  # True: a model drafts, so its confidence can end a proposal early
    stop_below: float = 0.0  # > 0: end each chain proposal at the first position whose top probability is below it
    can_branch: bool = False  # set for each class: True when it implements `propose_tree` (else trees draft a chain)

    def __init_subclass__(cls, **kwargs) -> None:
        """A class can branch exactly when it implements `propose_tree`: said once, by the method, never as a flag
        that could disagree with it (the registry's `can_branch` is checked against it when a proposer is made)."""
        super().__init_subclass__(**kwargs)
        cls.can_branch = cls.propose_tree is not Proposer.propose_tree

    def stops_here(self, logits: torch.Tensor) -> bool:
        """True when the proposal should end before this position: the draft is less sure than `stop_below`.
        The position is not drafted; shorter proposals keep the rule exact (the verifier takes any number)."""
        return self.stop_below > 0 and top_probability(logits) < self.stop_below

    @abstractmethod
    def propose(self, sequence: list[int], k: int, sampling: SamplingConfig,
                generator: torch.Generator) -> Proposal:
        """Guess up to k tokens that follow `sequence` (prompt + everything emitted so far)."""

    def propose_tree(self, sequence: list[int], *, max_nodes: int, max_depth: int, width: int,
                     sampling: SamplingConfig, generator: torch.Generator, sampled: bool,
                     stop_tokens: frozenset[int] = frozenset()) -> DraftTree:
        """A draft tree below the sequence's last token (`specviz.engine.tree.grow_tree`); only proposers that can branch."""
        raise NotImplementedError(f"The {self.name} proposer drafts chains, not trees.")

    def keep_tree_path(self, valid_length: int, path: list[int]) -> None:
        """After a tree step: keep the sequence's first `valid_length` tokens, which end with the accepted `path`."""
        self.rollback(valid_length)

    def prefill(self, sequence: list[int]) -> None:
        """Optional warm start on the prompt (timed apart from the steps)."""

    def observe_target(self, start: int, features: torch.Tensor) -> None:
        """The target's hidden states `feature_layers` (n, F*H) for the tokens at positions start..start+n-1 that
        are final (the prompt, then each step's last token and accepted drafts). Only feature drafters need them."""

    def rollback(self, valid_length: int) -> None:
        """The first `valid_length` tokens of the sequence are final; forget anything cached beyond them."""

    def reset(self) -> None:
        """Forget all state before a new generation. Build new state objects rather than clearing shared ones in
        place: a shallow copy gets its own state this way (`specviz.engine.policies.confident` relies on it)."""

    def cache_length(self) -> int | None:
        """How many tokens the proposer's KV cache holds (None when it has none)."""
        return None

    def own_settings(self) -> dict[str, int]:
        """The values of its own settings (the registry's `ProposerSetting`s) it drafts with, defaults resolved
        (layer-skip: {"layers": 7}); a trace records them, so a page can run it again as it was."""
        return {}
