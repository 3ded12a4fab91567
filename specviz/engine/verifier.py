"""The exact rule of speculative sampling (Leviathan et al. 2023, Chen et al. 2023), as a pure function.

Given the target's distributions p at the K drafted positions plus one more, the draft's distributions q at the
K drafted positions, and the drafted tokens x_1..x_K:

1. for i = 1..K: draw u_i ~ U(0, 1); accept x_i if u_i < min(1, p_i(x_i) / q_i(x_i)); stop at the first rejection;
2. at the first rejection (position j): emit a *recovered* token sampled from norm(max(0, p_j - q_j));
3. if all K were accepted: emit a *bonus* token sampled from p_{K+1}.

The output is then distributed exactly as p. With point-mass distributions (greedy, or a deterministic proposer
whose q is a point mass on its guess) the same rule does the right thing without special cases.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import torch

from specviz.engine.sampling import sample
from specviz.engine.trace import TokenKind


@dataclass
class VerifyResult:
    """What the verifier decided for one step.

    `n_accepted` drafts were kept; `uniforms` holds u_1..u_j for the tested positions (j = n_accepted, plus one if a
    draft was rejected); `next_token` is the recovered or bonus token, sampled from `next_dist` (V,).
    """

    n_accepted: int
    uniforms: list[float]
    accept_probs: list[float]
    next_token: int
    next_kind: TokenKind  # RECOVERED or BONUS (BONUS with no drafts: the step calls that token TARGET)
    next_dist: torch.Tensor


def accept_probability(target_prob: float, draft_prob: float) -> float:
    """min(1, p(x)/q(x)); a token the draft could not have proposed (q = 0) is accepted iff p > 0.

    >>> accept_probability(0.2, 0.5)
    0.4
    >>> accept_probability(0.6, 0.3)
    1.0
    """
    if draft_prob <= 0:
        return 1.0 if target_prob > 0 else 0.0
    return min(1.0, target_prob / draft_prob)


def residual_distribution(target_probs: torch.Tensor, draft_probs: torch.Tensor) -> torch.Tensor:
    """norm(max(0, p - q)) for p, q (V,). If p <= q everywhere (p == q up to rounding), fall back to p.

    >>> residual_distribution(torch.tensor([0.5, 0.3, 0.2]), torch.tensor([0.2, 0.6, 0.2])).tolist()
    [1.0, 0.0, 0.0]
    """
    residual = (target_probs - draft_probs).clamp_min(0)
    total = residual.sum()
    if total <= 1e-12:
        return target_probs / target_probs.sum()
    return residual / total


class Verifier(Protocol):
    """What the engine calls to judge one step: the exact rule below, or one of the Exactness lab's rules."""

    def __call__(self, target_probs: torch.Tensor, draft_probs: torch.Tensor, draft_tokens: list[int], *,
                 generator: torch.Generator | None = None, uniforms: list[float] | None = None) -> VerifyResult: ...


def check_shapes(target_probs: torch.Tensor, draft_probs: torch.Tensor, draft_tokens: Sequence[int]) -> int:
    """K, after checking that there are K+1 target rows and K draft rows for K drafted tokens."""
    k = len(draft_tokens)
    if target_probs.dim() != 2 or target_probs.shape[0] != k + 1 or draft_probs.shape[0] != k:
        raise ValueError(f"A verifier needs K+1 target rows and K draft rows for K={k} drafts.")
    return k


def replayed(uniforms: Sequence[float], i: int) -> float:
    """The i-th given uniform (0-based), or a ValueError with one sentence when the replay gave too few for the
    positions the rule tests (an IndexError before).

    >>> replayed([0.5], 1)
    Traceback (most recent call last):
    ...
    ValueError: The rule tests position 2 but only 1 uniform(s) were given to replay.
    """
    if i >= len(uniforms):
        raise ValueError(f"The rule tests position {i + 1} but only {len(uniforms)} uniform(s) were given to replay.")
    return uniforms[i]


def verify_chain(
    target_probs: torch.Tensor,  # (K+1, V)
    draft_tokens: Sequence[int],  # K ids
    accept: Callable[[int, int], float],  # (position, token) -> the rule's chance of keeping that draft
    recover: Callable[[int], torch.Tensor],  # first rejected position -> distribution (V,) of the recovered token
    bonus: Callable[[int], torch.Tensor] | None = None,  # K -> distribution (V,) of the bonus token; default p_{K+1}
    *,
    generator: torch.Generator | None = None,
    uniforms: Sequence[float] | None = None,
) -> VerifyResult:
    """The loop every verification rule shares: test the drafts left to right, each with its own uniform u
    (kept iff u < the rule's chance of keeping it); stop at the first rejection and emit a recovered token; after K
    acceptances emit a bonus token. A rule is its three parts: `accept`, `recover` and `bonus`.

    Deterministic rules keep a draft with chance 0 or 1; u is still drawn and recorded, so every rule fills
    `uniforms` alike (one per tested position) and replays from given `uniforms`.
    """
    used: list[float] = []
    accept_probs: list[float] = []
    for i, token in enumerate(draft_tokens):
        accept_probs.append(accept(i, token))
        drawn = replayed(uniforms, i) if uniforms is not None else torch.rand((), generator=generator)
        used.append(float(drawn))
        if not used[-1] < accept_probs[-1]:
            dist = recover(i)
            return VerifyResult(i, used, accept_probs, sample(dist, generator), TokenKind.RECOVERED, dist)
    k = len(draft_tokens)
    dist = bonus(k) if bonus is not None else target_probs[k]
    return VerifyResult(k, used, accept_probs, sample(dist, generator), TokenKind.BONUS, dist)


def verify(
    target_probs: torch.Tensor,  # (K+1, V)
    draft_probs: torch.Tensor,  # (K, V)
    draft_tokens: list[int],  # K ids
    *,
    generator: torch.Generator | None = None,
    uniforms: list[float] | None = None,
) -> VerifyResult:
    """The exact rule for one step: accept x_i with min(1, p_i(x_i)/q_i(x_i)), recover from norm(max(0, p - q)),
    bonus from p_{K+1}. Pass `uniforms` (K values) to replay fixed draws; otherwise they come from `generator`, one
    per tested position, followed by the one draw that samples the recovered or bonus token.

    >>> p = torch.tensor([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]]); q = torch.tensor([[0.2, 0.7, 0.1]])
    >>> r = verify(p, q, [1], uniforms=[0.9])  # u = 0.9 >= min(1, 0.3 / 0.7): rejected
    >>> r.n_accepted, r.next_kind.value, r.next_dist.tolist()
    (0, 'recovered', [1.0, 0.0, 0.0])
    """
    check_shapes(target_probs, draft_probs, draft_tokens)
    return verify_chain(
        target_probs, draft_tokens,
        accept=lambda i, x: accept_probability(float(target_probs[i, x]), float(draft_probs[i, x])),
        recover=lambda i: residual_distribution(target_probs[i], draft_probs[i]),
        generator=generator, uniforms=uniforms,
    )
