"""Turning logits into the distributions the rule compares: temperature, top-k, top-p, and sampling.

Both models go through the same `SamplingConfig.probs`, so p and q are always processed identically before the
verifier sees them. Temperature 0 means greedy: the distribution becomes a point mass on the argmax, and the
speculative rule then accepts a draft exactly when it equals the target's argmax.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from specviz.core.i18n import with_minus
from specviz.engine.limits import is_integral, is_real


@dataclass(frozen=True)
class SamplingConfig:
    """temperature 0 = greedy; top_k 0 = off; top_p 1.0 = off."""

    temperature: float = 0.0
    top_k: int = 0
    top_p: float = 1.0

    def __post_init__(self) -> None:
        if not is_real(self.temperature) or not 0 <= self.temperature < math.inf:
            raise ValueError(f"Temperature must be a finite number, 0 or more "
                             f"(got {with_minus(repr(self.temperature))}).")
        if not is_integral(self.top_k) or self.top_k < 0:
            raise ValueError(f"top-k must be 0 (off) or a positive number of tokens "
                             f"(got {with_minus(repr(self.top_k))}).")
        if not is_real(self.top_p) or not 0 < self.top_p <= 1:
            raise ValueError(f"top-p must be in (0, 1] (got {with_minus(repr(self.top_p))}).")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0

    def probs(self, logits: torch.Tensor) -> torch.Tensor:
        """logits (..., V) -> probabilities (..., V) in float32, after temperature, top-k and top-p."""
        return logits_to_probs(logits, self.temperature, self.top_k, self.top_p)


def first_max_index(x: torch.Tensor, dim: int = -1, keepdim: bool = False) -> torch.Tensor:
    """The index of the first largest entry along `dim`: what `x.argmax(dim)` gives, ties and all, but through
    `x.max(dim)`, which PyTorch's CPU kernels ran faster than `argmax` over a verify pass of logits on the CPU of
    commit 861d640 (a one-off timing on a CPU that commit does not name, in no committed file: docs/benchmarks.md,
    "The greedy pick"). Greedy decoding takes one per token; a tree's verify pass, one per node.

    >>> first_max_index(torch.tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]])).tolist()
    [1, 0]
    """
    return x.max(dim, keepdim=keepdim).indices


def top_tokens(x: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The k largest entries of each row of x (..., V) and their indices (..., k), largest first, equal entries in
    index order: the first is `first_max_index`'s pick, the token a greedy q (`logits_to_probs` at temperature 0) is a
    point mass on. `torch.topk` alone states no order for ties, and on bfloat16 logits it put a tied token before the
    argmax (read 55: a greedy tree's first child "In" had q = 0, the point mass on "The" tried second).

    >>> values, index = top_tokens(torch.tensor([[0.0, 2.0, 5.0, 5.0, 2.0, 2.0]]), 3)
    >>> values.tolist(), index.tolist()
    ([[5.0, 5.0, 2.0]], [[2, 3, 1]])
    """
    top = torch.topk(x, k, dim=-1)
    kth = top.values[..., -1:]
    above, tied = x > kth, x == kth
    room = k - above.sum(-1, keepdim=True)
    chosen = above | (tied & (tied.cumsum(-1) <= room))  # every entry above the k-th, then the first equal ones
    if not bool((chosen.sum(-1) == k).all()):  # nan logits: nothing compares equal; topk's own pick
        return top.values, top.indices
    index = chosen.nonzero()[:, -1].reshape(top.indices.shape)  # in index order within each row
    values = x.gather(-1, index)
    order = torch.sort(values, dim=-1, descending=True, stable=True).indices  # stable: ties stay in index order
    return values.gather(-1, order), index.gather(-1, order)


def point_masses(tokens: list[int], vocab_size: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """q of a deterministic guess at each position (len(tokens), V): a point mass on each token.

    >>> point_masses([2, 0], 3).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    q = torch.zeros(len(tokens), vocab_size, dtype=dtype)
    q[torch.arange(len(tokens)), torch.tensor(tokens, dtype=torch.long)] = 1.0
    return q


TINY_TEMPERATURE = 1e-6  # below it logits_to_probs divides the gap to the top logit (at 1e-6 a logit must pass 3.4e32)


def logits_to_probs(logits: torch.Tensor, temperature: float, top_k: int = 0, top_p: float = 1.0) -> torch.Tensor:
    """Apply the sampling settings to logits (..., V) and return a normalised distribution (..., V).

    >>> logits_to_probs(torch.tensor([1.0, 3.0, 2.0]), temperature=0.0).tolist()
    [0.0, 1.0, 0.0]
    >>> [round(x, 4) for x in logits_to_probs(torch.tensor([0.0, 0.0, -100.0]), 1.0, top_k=2).tolist()]
    [0.5, 0.5, 0.0]
    >>> logits_to_probs(torch.tensor([1.0, 3.0, 2.0]), temperature=1e-300).tolist()  # the T -> 0 limit, not NaN
    [0.0, 1.0, 0.0]
    >>> logits_to_probs(torch.tensor([1.0, 3.0, 3.0]), temperature=1e-300).tolist()  # not nan: T -> 0, ties shared
    [0.0, 0.5, 0.5]
    """
    if temperature == 0:  # a point mass on the argmax (taken before any cast: the same index, without the copy)
        index = first_max_index(logits, keepdim=True)
        return torch.zeros(logits.shape, dtype=torch.float32, device=logits.device).scatter_(-1, index, 1.0)
    logits = logits.float()
    if temperature < TINY_TEMPERATURE:
        # logit / T could overflow (T = 1e-300: inf - inf = nan in the softmax): divide the gap to the top logit
        # instead, so the top tokens get 0 and the rest -inf or a large negative number; decided on the Python side,
        # so no device sync, and every temperature at or above it keeps its float32 bits
        shifted = logits - logits.amax(-1, keepdim=True)
        logits = torch.where(shifted == 0, torch.zeros_like(shifted), shifted / temperature)
    else:
        logits = logits / temperature
    if top_k and top_k < logits.shape[-1]:
        kth = torch.topk(logits, top_k, dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p < 1.0:
        sorted_logits, order = torch.sort(logits, dim=-1, descending=True)
        sorted_probs = sorted_logits.softmax(-1)
        # drop a token when the tokens ranked above it already reach top_p (the top token always stays)
        drop_sorted = (sorted_probs.cumsum(-1) - sorted_probs) >= top_p
        drop = drop_sorted.scatter(-1, order, drop_sorted)
        logits = logits.masked_fill(drop, float("-inf"))
    return logits.softmax(-1)


def sample(probs: torch.Tensor, generator: torch.Generator | None) -> int:
    """Draw one token id from a distribution (V,)."""
    return int(torch.multinomial(probs, 1, generator=generator).item())
