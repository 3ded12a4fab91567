"""Closed forms of speculative decoding: acceptance probability α, tokens per step, speedup, the best K.

The formulas follow Leviathan et al. (2023), section 3, which takes a verify pass to cost one target forward; the
functions that take a verify cost instead extend them. Every function is a pure function of numbers (torch, numpy
and math only) except `simulate_tokens_per_step`, which draws random numbers: from its generator, a seed's, or
torch's global one when given neither. Notation: p = target distribution, q = draft distribution, K = drafted
tokens per step, alpha = the chance one draft is kept, E[beta] where beta = sum_x min(p(x), q(x)) at one position
(not the measured accepted / drafted: see accepted_fraction), c = cost of one draft forward divided by the cost of
one target forward.

Assumptions behind the formulas, stated once:
  * each drafted token is accepted with the same probability alpha, independently of the others (the "i.i.d."
    assumption of the paper; real acceptance varies by position and context);
  * verifying K drafts (one target forward over K+1 positions) costs the same as one ordinary target forward
    (speedup_with_verify_cost and break_even_alpha take a verify cost instead; specviz.labs.roofline derives one from the
    hardware and the batch size);
  * the baseline is target-only autoregressive decoding with the same sampler: speedup = its time / ours.
K = 0 means "do not speculate": one target forward per token, speedup exactly 1 (speedup_with_verify_cost too,
given verify_cost 1, which is what a forward over K + 1 = 1 token costs; it divides by whatever it is given, so
K = 0 with verify_cost 2 returns 0.5).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from specviz.core.i18n import N_, _, given, localized, number, with_minus
from specviz.engine.limits import MAX_SEED, is_integral, is_whole

# ---- validation -------------------------------------------------------------------------------------------------


def _typed(value: float) -> str:
    """A refused value as it came in, every digit kept, with the reader's decimal mark: 1.5, or 1,5 in Portuguese.

    >>> _typed(1.5), _typed(float("nan"))
    ('1.5', 'nan')
    """
    return with_minus(localized(repr(float(value))))


def _boolean(value: Any) -> bool:
    """Whether `value` is a boolean: Python's, NumPy's (`np.True_`, e.g. from `(a > b).all()`) or a bool tensor's.

    >>> _boolean(True), _boolean(np.True_), _boolean(torch.tensor(False)), _boolean(1), _boolean(np.float64(1.0))
    (True, True, True, False, False)
    """
    return isinstance(value, (bool, np.bool_)) or (isinstance(value, torch.Tensor) and value.dtype == torch.bool)


def _real(value: Any) -> float | None:
    """`value` as a float, or None when it is no number: a bool, NumPy's or a tensor's included (True is no
    probability or cost, though Python's float says it is 1.0), a text (even "0.5"), None, or a whole number beyond
    any float (10**400).

    >>> _real(0.5), _real(3), _real(True), _real(np.True_), _real("0.5"), _real(10**400)
    (0.5, 3.0, None, None, None, None)
    """
    if _boolean(value) or isinstance(value, (str, bytes)):
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


def _shown(value: Any) -> str:
    """A refused value for a sentence: `_typed` for a number, its repr otherwise, a huge whole number in words."""
    if is_whole(value) and abs(value) >= 10**30:
        return _("a number of more than 30 digits")
    return _typed(value) if _real(value) is not None else repr(value)


def _check_alpha(alpha: float) -> float:
    number = _real(alpha)
    if number is None or not 0.0 <= number <= 1.0:  # also rejects nan
        raise ValueError(_("The acceptance probability α must be between 0 and 1 (got {alpha}).", alpha=_shown(alpha)))
    return number


def _check_k(k: int, name: str = "K") -> int:
    try:  # a text, a bool, None or a whole number beyond any float (10**400 would overflow the formulas) is refused
        whole = not (_boolean(k) or isinstance(k, str)) and float(k).is_integer()
    except (TypeError, ValueError, OverflowError):
        whole = False
    if not whole:
        raise ValueError(_("{name} must be a whole number of drafted tokens (got {k}).", name=_(name), k=_shown(k)))
    k = int(k)
    if k < 0:
        raise ValueError(_("{name} must be 0 or more drafted tokens per step (got {k}).", name=_(name), k=_shown_k(k)))
    if k > MAX_THEORY_K:  # optimal_k loops over every K and the distribution lists K + 1 values: 10**9 would hang
        raise ValueError(_("{name} must be at most {limit} drafted tokens per step (got {k}).", name=_(name),
                           limit=number(MAX_THEORY_K, 0), k=_shown_k(k)))
    return k


def _shown_k(k: int) -> str:
    """A refused whole K, every digit kept: grouped while `number` writes it whole (below 10**27), then bare, and
    only from 31 digits on in words (10**28 has 29 digits, not "more than 30").

    >>> _shown_k(12_345), _shown_k(10**28), _shown_k(10**30)
    ('12,345', '10000000000000000000000000000', 'a number of more than 30 digits')
    """
    if k < 10**27:
        return number(k, 0)
    return str(k) if k < 10**30 else _("a number of more than 30 digits")


MAX_THEORY_K = 10_000  # far past any draft worth making (the engine's K_RANGE ends at 16, the quiz's "what if" at 1,000)


def _check_c(c: float) -> float:
    number = _real(c)
    if number is None or not (number >= 0.0 and math.isfinite(number)):
        raise ValueError(_("The draft cost c must be a finite number, 0 or more (got {c}).", c=_shown(c)))
    return number


def _check_verify_cost(verify_cost: float) -> float:
    number = _real(verify_cost)
    if number is None or not (number > 0.0 and math.isfinite(number)):
        raise ValueError(_("The verify cost must be a positive, finite number of one-token forwards (got {cost}).",
                           cost=_shown(verify_cost)))
    return number


# Rounding each probability to bfloat16's 8 significant bits moves it by at most 2^-8 of itself, so the sum by at
# most 2^-8 = 0.0039 (a peaked softmax rounded to bfloat16 reads 0.998); 0.005 leaves that room and still refuses
# [0.33, 0.33, 0.33] (0.99). float32 and float16 round far more finely.
PROBS_SUM_TOLERANCE = 5e-3


def _as_probs(x: Any, name: str) -> torch.Tensor:
    """`x` as a float64 tensor (..., V) of distributions: finite, non-negative, each summing to 1 within
    `PROBS_SUM_TOLERANCE`; a ValueError with one sentence otherwise (a list of numbers, a tensor or an array)."""
    try:
        t = torch.as_tensor(x, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError, OverflowError):  # a text, None, a ragged list
        t = None
    if t is None:
        raise ValueError(_("{name} must be a probability vector over the vocabulary (got {value}).", name=name,
                           value=type(x).__name__))
    if t.ndim == 0 or t.shape[-1] == 0:
        raise ValueError(_("{name} must be a probability vector over the vocabulary (got shape {shape}).", name=name,
                           shape=tuple(t.shape)))
    if bool((t < 0).any()) or not bool(torch.isfinite(t).all()):
        raise ValueError(_("{name} must hold finite, non-negative probabilities.", name=name))
    sums = t.sum(-1).flatten()  # one per distribution of a batch
    worst = float(sums[int((sums - 1.0).abs().argmax())])
    if abs(worst - 1.0) > PROBS_SUM_TOLERANCE:
        raise ValueError(_("{name} must sum to 1, within {tolerance} (got a sum of {total}).", name=name,
                           tolerance=number(PROBS_SUM_TOLERANCE, 3), total=number(worst, 4)))
    return t


def _same_shape(p: torch.Tensor, q: torch.Tensor) -> None:
    if p.shape != q.shape:
        raise ValueError(_("target_probs and draft_probs must have the same tensor shape (got {p} and {q}).",
                           p=tuple(p.shape), q=tuple(q.shape)))


# ---- alpha --------------------------------------------------------------------------------------------------------


def acceptance_probability(target_probs: Any, draft_probs: Any) -> float | torch.Tensor:
    """alpha = sum_x min(p(x), q(x)) = 1 - TV(p, q): the chance that one drafted token x ~ q is accepted.

    Inputs are distributions (V,) or batched (..., V) of the same shape, each finite, non-negative and summing to 1
    within `PROBS_SUM_TOLERANCE` (anything else is a ValueError with one sentence); a (V,) pair returns a float,
    a batch returns a tensor (...).

    >>> acceptance_probability([0.5, 0.3, 0.2], [0.2, 0.6, 0.2])
    0.7
    >>> acceptance_probability([1.0, 0.0], [0.0, 1.0])  # disjoint supports: every draft is rejected
    0.0
    """
    p, q = _as_probs(target_probs, "target_probs"), _as_probs(draft_probs, "draft_probs")
    _same_shape(p, q)
    alpha = torch.minimum(p, q).sum(-1).clamp(0.0, 1.0)
    return round(float(alpha), 12) if alpha.ndim == 0 else alpha


def output_distribution(target_probs: Any, draft_probs: Any) -> torch.Tensor:
    """The distribution of the first token one step of the exact rule emits, for x ~ q:

        P(out = x) = min(p(x), q(x))  +  (1 - alpha) * norm(max(0, p - q))(x)
                     accepted drafts     recovered after a rejection

    and since (1 - alpha) * norm(max(0, p - q)) = max(0, p - q), this is p, always. When alpha = 1 (p == q) the
    second term is 0 and the result is min(p, q) = p. p and q are checked as `acceptance_probability` checks them.
    Returns float64 (V,) (or (..., V) for a batch).

    >>> output_distribution([0.5, 0.3, 0.2], [0.2, 0.6, 0.2]).tolist()
    [0.5, 0.3, 0.2]
    """
    p, q = _as_probs(target_probs, "target_probs"), _as_probs(draft_probs, "draft_probs")
    _same_shape(p, q)
    accepted = torch.minimum(p, q)
    alpha = accepted.sum(-1, keepdim=True)
    residual = (p - q).clamp_min(0.0)
    mass = residual.sum(-1, keepdim=True)
    recovered = torch.where(mass > 1e-15, (1.0 - alpha) * residual / mass.clamp_min(1e-300), torch.zeros_like(p))
    return accepted + recovered


# ---- tokens per step and speedup ----------------------------------------------------------------------------------


def expected_tokens_per_step(alpha: float, k: int) -> float:
    """E[tokens emitted per target forward] = 1 + alpha + ... + alpha^K = (1 - alpha^(K+1)) / (1 - alpha).

    Counts the accepted drafts plus the one recovered or bonus token. Limits: alpha -> 1 gives K + 1 (every draft
    accepted, plus the bonus); alpha = 0 or K = 0 gives 1 (plain decoding).

    >>> round(expected_tokens_per_step(0.8, 4), 6)
    3.3616
    >>> expected_tokens_per_step(1.0, 4), expected_tokens_per_step(0.0, 4), expected_tokens_per_step(0.8, 0)
    (5.0, 1.0, 1.0)
    """
    alpha, k = _check_alpha(alpha), _check_k(k)
    if alpha == 1.0:
        return float(k + 1)
    if alpha == 0.0 or k == 0:  # K = 0 emits exactly the target's own token (read 49: the sum below gave 1 + 2e-16)
        return 1.0
    # -expm1((K+1) log alpha) = 1 - alpha^(K+1) without cancellation when alpha is close to 1
    log_alpha = math.log(alpha) if alpha < 0.5 else math.log1p(-(1.0 - alpha))
    return -math.expm1((k + 1) * log_alpha) / (1.0 - alpha)


def accepted_fraction(alpha: float, k: int) -> float:
    """E[accepted] / K = alpha (1 - alpha^K) / ((1 - alpha) K): what "accepted / drafted" measures on average when
    each draft is kept with probability alpha. It is below alpha for K > 1 and 0 < alpha < 1 (equal at 0 and 1),
    because the drafts after a step's first rejection are counted as drafted though never tested. K = 0 drafts
    nothing: nan.

    >>> round(accepted_fraction(0.8, 4), 4), accepted_fraction(0.8, 1), accepted_fraction(1.0, 4)
    (0.5904, 0.8, 1.0)
    """
    alpha, k = _check_alpha(alpha), _check_k(k)
    if k == 0:
        return math.nan
    return (expected_tokens_per_step(alpha, k) - 1.0) / k


def tokens_per_step_distribution(alpha: float, k: int) -> list[float]:
    """P(a step emits j tokens) for j = 1..K+1: alpha^(j-1) (1 - alpha) for j <= K, alpha^K for j = K + 1.

    >>> [round(x, 3) for x in tokens_per_step_distribution(0.5, 2)]
    [0.5, 0.25, 0.25]
    """
    alpha, k = _check_alpha(alpha), _check_k(k)
    return [alpha ** (j - 1) * (1.0 - alpha) for j in range(1, k + 1)] + [alpha**k]


SHORT_DRAFTS = 0.95  # a setting whose steps drafted less than this share of K on average drafted "fewer than K"


def drafts_short(mean_drafted: float | None, k: int) -> bool:
    """Whether a setting's steps drafted fewer than K tokens on average, by enough to matter: the formulas here take
    every step to draft K, so they count drafts never made (read 49: n-gram lookup drafts only what it finds,
    default-cpu-ngram 0.45 a step at K = 1). Below `SHORT_DRAFTS` of K only: a model drafter's steps near the token
    limit draft a few per cent fewer (3.91 of 4), which moves a prediction less than its rounding. The Speedup lab's
    K chart and the Theory explorer's measured points both use it.

    >>> drafts_short(0.45, 1), drafts_short(3.91, 4), drafts_short(None, 4)
    (True, False, False)
    """
    return mean_drafted is not None and mean_drafted < SHORT_DRAFTS * k


def draft_cost(k: int, c: float, one_pass: bool = False) -> float:
    """What drafting one step costs, in one-token target forwards: K c for a drafter that runs once per drafted
    token (the paper's model), or c whatever K for one whose single pass drafts every token (`one_pass`: the Medusa
    heads, whose blocks all read one hidden state before the LM head runs once over all of them, c then timing that
    pass for one head; n-gram lookup, whose one search copies every token, c timing that search). K = 0 drafts
    nothing and costs 0 either way.

    >>> draft_cost(4, 0.05), draft_cost(4, 0.05, one_pass=True), draft_cost(0, 0.05, one_pass=True)
    (0.2, 0.05, 0.0)
    """
    k, c = _check_k(k), _check_c(c)
    return (min(k, 1) if one_pass else k) * c


def expected_speedup(alpha: float, k: int, c: float, one_pass: bool = False) -> float:
    """Walltime speedup over target-only decoding: E[tokens per step] / (K c + 1), Leviathan et al. 2023's
    expected improvement factor in total walltime (their Theorem 3.8, with γ = K).

    One step costs K draft forwards (K c) plus one target forward (1); plain decoding gets 1 token per 1. With
    `one_pass` the drafting costs c whatever K (`draft_cost`): E[tokens per step] / (c + 1).

    >>> round(expected_speedup(0.8, 4, 0.05), 4), round(expected_speedup(0.8, 4, 0.05, one_pass=True), 4)
    (2.8013, 3.2015)
    >>> expected_speedup(0.8, 0, 0.05)  # K = 0: no speculation
    1.0
    """
    return expected_tokens_per_step(alpha, k) / (draft_cost(k, c, one_pass) + 1.0)


def speedup_with_verify_cost(alpha: float, k: int, c: float, verify_cost: float, one_pass: bool = False) -> float:
    """The speedup when one target forward over K + 1 tokens costs `verify_cost` one-token forwards instead of the
    paper's 1: E[tokens per step] / (K c + verify_cost). `verify_cost` (not the speedup) stays near 1 while that
    forward is memory-bound (a GPU at batch 1, a CPU with specviz's packed kernels over a few tokens) and grows once
    it is not (more tokens, a larger batch, or PyTorch's stock CPU kernels, which in the one layer profiled, the LM
    head, spend about half their time or more from 5 rows on copying a matrix, most likely the weight,
    on every call:
    assets/benchmarks/stock-gemm-profile):
    each committed run's `costs.verify` curve (assets/benchmarks/*/results.json) says how fast on its machine.

    >>> speedup_with_verify_cost(0.8, 4, 0.05, 1.0) == expected_speedup(0.8, 4, 0.05)
    True
    >>> round(speedup_with_verify_cost(0.8, 4, 0.05, 2.0), 4)
    1.528
    >>> round(speedup_with_verify_cost(0.8, 4, 0.05, 2.0, one_pass=True), 4)
    1.6398

    With `one_pass` the drafting costs c whatever K (`draft_cost`): E[tokens per step] / (c + verify_cost).
    """
    verify_cost = _check_verify_cost(verify_cost)
    return expected_tokens_per_step(alpha, k) / (draft_cost(k, c, one_pass) + verify_cost)


def optimal_k(alpha: float, c: float, k_max: int = 16, one_pass: bool = False) -> int:
    """The K in 0..k_max with the highest expected speedup; ties (within one part in 10^12) go to the smaller K.

    K = 0 is allowed and means "don't speculate" (speedup 1): it wins whenever drafting cannot pay for itself,
    e.g. alpha = 0, or c >= 1 where each draft costs c (a draft as slow as the target; not with `one_pass`, below,
    whose c buys every draft of a step). With free drafts (c = 0) and alpha > 0 every extra
    draft helps, so the answer is k_max. With `one_pass` the drafting costs c whatever K (`draft_cost`: the Medusa
    heads, n-gram lookup), so with alpha > 0 every extra draft helps too, however little (alpha^K): no K >= 1 ties
    another, and the answer is k_max where its speedup beats 1 (alpha + ... + alpha^k_max > c), else 0.

    >>> optimal_k(0.8, 0.05), optimal_k(0.8, 0.0, k_max=16), optimal_k(0.8, 1.0)
    (8, 16, 0)
    >>> optimal_k(0.37, 0.0002, k_max=16), optimal_k(0.37, 0.0002, k_max=16, one_pass=True)
    (8, 16)
    >>> optimal_k(0.0135, 0.0002, k_max=8, one_pass=True), optimal_k(0.0001, 0.0002, k_max=8, one_pass=True)
    (8, 0)
    """
    alpha, c, k_max = _check_alpha(alpha), _check_c(c), _check_k(k_max, "k_max")
    if c == 0.0:  # speedup = 1 + alpha + ... + alpha^K grows with K, even where float64 stops seeing it
        return k_max if alpha > 0 else 0
    if one_pass:  # E(K) / (c + 1) grows with K wherever alpha > 0, also where alpha^K falls below the tie tolerance
        return k_max if k_max and expected_speedup(alpha, k_max, c, True) > 1.0 + 1e-12 else 0
    best_k, best = 0, 1.0
    for k in range(1, k_max + 1):
        s = expected_speedup(alpha, k, c, one_pass)
        if s > best * (1.0 + 1e-12):
            best_k, best = k, s
    return best_k


def one_more_draft_pays(alpha: float, k: int, c: float) -> bool:
    """Whether drafting K + 1 tokens per step beats drafting K: the marginal test behind the best K.

    One more draft adds alpha^(K+1) expected tokens to a step and c to its cost, so the speedup
    S(K) = E(K) / (K c + 1) rises exactly when the tokens it adds per unit of cost beat the step's current rate:

        S(K + 1) > S(K)  <=>  (E + alpha^(K+1)) (K c + 1) > E (K c + 1 + c)  <=>  alpha^(K+1) > c * S(K).

    Not alpha^(K+1) > c: at alpha = 0.8, c = 0.05 the ninth draft adds 0.8^9 = 0.134 > 0.05 tokens and still loses,
    because the step already earns S(8) = 3.09 tokens per unit of cost, so its price is c * S(8) = 0.155.

    >>> one_more_draft_pays(0.8, 7, 0.05), one_more_draft_pays(0.8, 8, 0.05)
    (True, False)
    """
    alpha, k, c = _check_alpha(alpha), _check_k(k), _check_c(c)
    return alpha ** (k + 1) > c * expected_speedup(alpha, k, c)


def speedup_grid(alphas: Sequence[float] | np.ndarray, ks: Sequence[int] | np.ndarray, c: float) -> np.ndarray:
    """expected_speedup over a grid, shaped (len(ks), len(alphas)): rows are K, columns alpha (heatmap layout).

    >>> speedup_grid([0.0, 1.0], [0, 2], 0.5).tolist()
    [[1.0, 1.0], [0.5, 1.5]]
    """
    return np.array([[expected_speedup(a, k, c) for a in alphas] for k in ks], dtype=float)


def optimal_k_curve(alphas: Sequence[float] | np.ndarray, c: float, k_max: int = 16) -> list[int]:
    """optimal_k for each alpha: the best-K staircase over a range of acceptance probabilities α.

    >>> optimal_k_curve([0.0, 0.5, 0.9], 0.05, 16)
    [0, 3, 13]
    """
    return [optimal_k(a, c, k_max) for a in alphas]


def break_even_alpha(k: int, c: float, verify_cost: float = 1.0, one_pass: bool = False) -> float:
    """The alpha at which speculation with this K and c exactly breaks even (speedup = 1); above it, it pays.

    Solves (1 - alpha^(K+1)) / (1 - alpha) = K c + v, where v (`verify_cost`) is what one target forward over K + 1
    tokens costs in one-token forwards (1 in the paper; more once the target is compute-bound, see
    specviz.labs.roofline); with `one_pass` the drafting costs c, not K c (`draft_cost`), in what follows too. Since
    the left side runs from 1 (alpha = 0) to K + 1 (alpha = 1), there is no solution when
    K c + v > K + 1 (with v = 1: c > 1, or c > K with `one_pass`): the result is nan (speculation never pays).
    K c + v = K + 1 (with v = 1: c = 1, or c = K with `one_pass`) gives 1.0: only alpha = 1 ties, so with v = 1
    speculation never pays at c >= 1 (at c >= K with `one_pass`). K = 0 never speculates, so
    it has no break-even point either: nan. K c + v <= 1 (e.g. c = 0, v = 1) gives 0.0 (any alpha pays, or ties).

    >>> round(break_even_alpha(4, 0.05), 4), round(break_even_alpha(1, 0.5), 4)
    (0.1668, 0.5)
    >>> break_even_alpha(4, 1.5), break_even_alpha(4, 0.0, verify_cost=5.0)
    (nan, 1.0)
    >>> round(break_even_alpha(4, 0.5, one_pass=True), 4), round(break_even_alpha(4, 0.5), 4)
    (0.3362, 0.7413)
    """
    k, c, verify_cost = _check_k(k), _check_c(c), _check_verify_cost(verify_cost)
    target = draft_cost(k, c, one_pass) + verify_cost
    if k == 0 or target > k + 1.0:
        return math.nan
    if target <= 1.0:
        return 0.0
    lo, hi = 0.0, 1.0
    for _step in range(100):  # bisection: tokens per step increases with alpha
        mid = 0.5 * (lo + hi)
        if expected_tokens_per_step(mid, k) < target:
            lo = mid
        else:
            hi = mid
    return hi


def break_even_curve(ks: Sequence[int], c: float) -> list[tuple[float, int]]:
    """(break-even alpha, K) for each K that has one: the line where speculation stops paying, on a (alpha, K) map.
    K = 0 and any K with c > 1 have no break-even point and are left out.

    >>> [(round(a, 4), k) for a, k in break_even_curve([0, 1, 2], 0.5)]
    [(0.5, 1), (0.618, 2)]
    >>> break_even_curve([1, 2], 1.5)
    []
    """
    points = [(break_even_alpha(k, c), int(k)) for k in ks]
    return [(a, k) for a, k in points if math.isfinite(a)]


def alpha_from_tokens_per_step(tokens_per_step: float, k: int) -> float:
    """Invert expected_tokens_per_step: the alpha that would give this mean accepted length (recovered or bonus
    token included).

    A measured mean accepted length is a more robust estimate of alpha than accepted / drafted, which counts the
    drafts after the first rejection as rejected although they were never tested. Clipped to [0, 1].

    >>> round(alpha_from_tokens_per_step(3.3616, 4), 4)
    0.8
    """
    k, number = _check_k(k), _real(tokens_per_step)
    if number is None or not math.isfinite(number):
        raise ValueError(_("The mean accepted length must be a finite number (got {tokens}).",
                           tokens=_shown(tokens_per_step)))
    tokens_per_step = number
    if k == 0 or tokens_per_step <= 1.0:
        return 0.0
    if tokens_per_step >= k + 1:
        return 1.0
    lo, hi = 0.0, 1.0
    for _step in range(100):
        mid = 0.5 * (lo + hi)
        if expected_tokens_per_step(mid, k) < tokens_per_step:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def acceptance_by_position(alpha: float, n: int) -> list[float]:
    """Under the i.i.d. model, the chance that drafts 1..i are all kept, for i = 1..n: alpha^i. Measured acceptance
    by position falls more slowly when acceptances cluster (an n-gram match keeps going or fails at once).

    >>> acceptance_by_position(0.5, 3)
    [0.5, 0.25, 0.125]
    """
    alpha, n = _check_alpha(alpha), _check_k(n, N_("The number of positions"))
    return [alpha**i for i in range(1, n + 1)]


def cost_ratio_from_timings(draft_seconds: float, drafted: int, verify_seconds: float, steps: int) -> float | None:
    """Draft seconds per drafted token over target (verify) seconds per step, from a run's step timings. A step's
    target forward is the verify pass over its drafts and one token more (K + 1 for a chain; a tree's nodes, its
    lookup branch and one more), so where that costs v one-token forwards this is about c / v (c is over a one-token
    forward), and the Theory page names it so, not c (Read 48); it is c where verification is free (v = 1). The
    Theory page passes a tree's drafter passes (one per level), and those of the Medusa heads and n-gram lookup (one
    per step), as `drafted`. None when the run drafted nothing or its verify time is zero (nothing to divide by).

    >>> round(cost_ratio_from_timings(draft_seconds=0.4, drafted=40, verify_seconds=2.0, steps=10), 6)
    0.05
    >>> cost_ratio_from_timings(0.0, 0, 2.0, 10) is None
    True
    """
    if drafted <= 0 or steps <= 0 or not verify_seconds > 0:
        return None
    return (draft_seconds / drafted) / (verify_seconds / steps)


# ---- Monte Carlo --------------------------------------------------------------------------------------------------


def simulate_tokens_per_step(alpha: float, k: int, n: int, generator: torch.Generator | None = None, *,
                             seed: int | None = None) -> torch.Tensor:
    """Simulate the accept chain n times: draft i is accepted with probability alpha until the first rejection;
    each step emits its accepted drafts plus one recovered or bonus token. Returns tokens per step, (n,) int64.
    `seed` seeds a generator of its own when none is given (a page need not build one).

    >>> g = torch.Generator().manual_seed(0)
    >>> t = simulate_tokens_per_step(0.8, 4, 100_000, g)
    >>> abs(t.float().mean().item() - expected_tokens_per_step(0.8, 4)) < 0.02
    True
    """
    alpha, k = _check_alpha(alpha), _check_k(k)
    steps = _real(n)  # a whole float (20000.0) counts, as K's check lets 4.0 through
    if steps is None or not (math.isfinite(steps) and steps.is_integer() and steps >= 1):
        raise ValueError(_("The number of simulated steps must be a positive whole number (got {n}).", n=given(n)))
    if generator is None and seed is not None:
        if not (is_integral(seed) and 0 <= seed <= MAX_SEED):
            raise ValueError(f"The seed must be a whole number from 0 to {MAX_SEED} (got {seed!r}).")
        generator = torch.Generator().manual_seed(int(seed))
    accepted = torch.rand((int(n), k), generator=generator, dtype=torch.float64) < alpha  # (n, K)
    n_accepted = accepted.to(torch.int64).cumprod(dim=1).sum(dim=1)  # leading run of acceptances, (n,)
    return n_accepted + 1


def tokens_per_step_frequencies(tokens_per_step: Sequence[int] | np.ndarray | torch.Tensor, k: int) -> np.ndarray:
    """The share of steps that emitted j tokens, j = 1..K+1, (K+1,): the empirical counterpart of
    tokens_per_step_distribution (e.g. for simulate_tokens_per_step's output). A value above K+1 falls in no bin
    but still counts as a step, so the shares then sum to less than 1.

    >>> tokens_per_step_frequencies([1, 1, 3, 2], 2).tolist()
    [0.5, 0.25, 0.25]
    >>> tokens_per_step_frequencies([1, 5], 2).tolist()  # 5 > K+1: in no bin, still one of the two steps
    [0.5, 0.0, 0.0]
    """
    k = _check_k(k)
    try:  # a count of 1.5 was read as 1, and a nested list was numpy's own error
        given = np.asarray(tokens_per_step.cpu() if isinstance(tokens_per_step, torch.Tensor) else tokens_per_step)
        with np.errstate(invalid="ignore", over="ignore"):  # nan or inf: not whole, refused below
            samples = given.astype(np.int64)
        whole = given.ndim == 1 and given.dtype != bool and bool((samples == given).all())
    except (TypeError, ValueError, OverflowError):
        whole = False
    if not whole or samples.size == 0 or samples.min() < 1:
        raise ValueError(_("Tokens per step must be a non-empty list of counts of 1 or more."))
    return np.bincount(samples - 1, minlength=k + 1)[: k + 1] / samples.size
