"""Where two greedy outputs part, and why: "lossless up to numerics".

The exact rule keeps, at temperature 0, exactly the target's argmax, so speculative greedy decoding writes the
target's own greedy text, in exact arithmetic. A verify pass over K + 1 tokens adds its numbers in another order
than a one-token pass, so the target's logits differ in their last bits: in float32 so little that greedy output
matched on every committed held-out prompt (an observation, not a proof), in bfloat16 enough that, where its two best
tokens are closer than that rounding (a near-tie), the argmax can flip, and from that token on the two texts part ways:
every later token is conditioned on a different prefix (and may still coincide).

    split = greedy_split(pair.target, prompt_ids, target_only_ids, speculative_ids)
    split.index, split.gap, split.near_tie        # first differing new token, the target's top-2 logit gap there

`greedy_split` reads the target's top two logits after the common prefix with one full forward (no cache), in the
model's own dtype: a gap under NUMERICS_GAP is a near-tie that rounding can flip; a larger one would be a real
disagreement (a bug), which `specviz.scripts.gpu_check` fails on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

NUMERICS_GAP = 0.5  # logits closer than this (several bfloat16 steps at typical magnitudes) are a near-tie


def first_difference(a: Sequence[int], b: Sequence[int]) -> int | None:
    """The first index where two token lists differ (a length difference counts), None when they are equal.

    >>> first_difference([1, 2, 3], [1, 2, 4]), first_difference([1, 2], [1, 2, 5]), first_difference([7], [7])
    (2, 2, None)
    """
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


@torch.inference_mode()
def top2_logits(model, ids: Sequence[int]) -> tuple[list[int], list[float]]:
    """The model's two most likely next tokens after `ids` and their logits (one full forward, read in float32)."""
    device = next(model.parameters()).device
    logits = model(input_ids=torch.tensor([list(ids)], device=device)).logits[0, -1].float()  # (V,)
    values, tokens = torch.topk(logits, 2)
    return [int(t) for t in tokens], [float(v) for v in values]


@dataclass(frozen=True)
class GreedySplit:
    """The first new token (0-based) where two greedy outputs part, the token each wrote there (None past its end),
    and the target's two best logits after their common prefix: their gap says whether rounding can explain it."""

    index: int
    reference_token: int | None
    other_token: int | None
    top2_tokens: tuple[int, int]
    top2_logits: tuple[float, float]
    dtype: str

    @property
    def gap(self) -> float:
        return self.top2_logits[0] - self.top2_logits[1]

    @property
    def near_tie(self) -> bool:
        return self.gap < NUMERICS_GAP


def greedy_split(target, prompt_ids: Sequence[int], reference: Sequence[int], other: Sequence[int]) -> GreedySplit | None:
    """Where `other` (e.g. speculative) parts from `reference` (e.g. target-only), both greedy continuations of
    `prompt_ids`, and the target's top-2 logits there; None when they are the same text."""
    at = first_difference(reference, other)
    if at is None:
        return None
    tokens, logits = top2_logits(target, [*prompt_ids, *reference[:at]])
    dtype = str(next(target.parameters()).dtype).removeprefix("torch.")
    return GreedySplit(at, reference[at] if at < len(reference) else None, other[at] if at < len(other) else None,
                       (tokens[0], tokens[1]), (logits[0], logits[1]), dtype)
