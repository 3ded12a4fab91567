"""What a proposer is: anything that guesses the next K tokens, with the draft distribution q they came from.

A proposer that returns `draft_probs=None` is deterministic: q is a point mass on each proposed token (n-gram
prompt lookup). The engine calls `propose` once per step and then `rollback` with the length of the sequence
that survived verification.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import torch

from specviz.sampling import SamplingConfig


@dataclass
class Proposal:
    """K proposed tokens and, for a model proposer, the distributions (K, V) they were sampled from."""

    tokens: list[int]
    draft_probs: torch.Tensor | None


class Proposer(ABC):
    """The draft side of speculative decoding."""

    name: str = "proposer"
    needs_target_features: bool = False  # True: the engine calls observe_target after every target pass

    @abstractmethod
    def propose(self, sequence: list[int], k: int, sampling: SamplingConfig,
                generator: torch.Generator) -> Proposal:
        """Guess up to k tokens that follow `sequence` (prompt + everything emitted so far)."""

    def prefill(self, sequence: list[int]) -> None:
        """Optional warm start on the prompt (timed apart from the steps)."""

    def observe_target(self, start: int, features: torch.Tensor) -> None:
        """The target's last hidden states (n, H) for the tokens at positions start..start+n-1 that are final
        (the prompt, then each step's last token and accepted drafts). Only feature drafters need them."""

    def rollback(self, valid_length: int) -> None:
        """The first `valid_length` tokens of the sequence are final; forget anything cached beyond them."""

    def reset(self) -> None:
        """Forget all state before a new generation."""

    def cache_length(self) -> int | None:
        """How many tokens the proposer's KV cache holds (None when it has none)."""
        return None
