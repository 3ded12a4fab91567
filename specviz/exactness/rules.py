"""The verification rules: the exact one next to the rules that break it, all with one signature.

Every rule here has the signature of `specviz.verifier.verify` (target_probs (K+1, V), draft_probs (K, V),
draft_tokens, *, generator, uniforms) and returns its `VerifyResult`, so the engine can run any of them. The
exact rule *is* `specviz.verifier.verify`; the others are deliberate mistakes (or, for Medusa's typical
acceptance, a deliberate trade of exactness for speed). `exact_match_rule` is exact too: what transformers does
for proposers without logits. What each rule emits instead of p, and what the app says about it, is in
`specviz.exactness.registry`. p = target, q = draft throughout, both after temperature / top-k / top-p.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch

from specviz.sampling import sample
from specviz.verifier import VerifyResult, accept_probability, residual_distribution

VerifierFn = Callable[..., VerifyResult]

TYPICAL_EPSILON = 0.09  # Medusa's hard threshold epsilon ("posterior_threshold")
TYPICAL_DELTA = 0.3  # Medusa's entropy-scaled threshold delta ("posterior_alpha")
TOP_N_ONLY = 20


def _check_shapes(target_probs: torch.Tensor, draft_probs: torch.Tensor, draft_tokens: Sequence[int]) -> int:
    k = len(draft_tokens)
    if target_probs.dim() != 2 or target_probs.shape[0] != k + 1 or draft_probs.shape[0] != k:
        raise ValueError(f"A verifier needs K+1 target rows and K draft rows for K={k} drafts.")
    return k


def _draw(i: int, uniforms: Sequence[float] | None, generator: torch.Generator | None) -> float:
    return float(uniforms[i]) if uniforms is not None else float(torch.rand((), generator=generator))


def _chain(
    target_probs: torch.Tensor,  # (K+1, V)
    draft_tokens: Sequence[int],
    generator: torch.Generator | None,
    uniforms: Sequence[float] | None,
    accept: Callable[[int, int], float],  # (position, token) -> acceptance probability
    recover: Callable[[int], torch.Tensor],  # position of the first rejection -> distribution (V,)
    bonus: Callable[[int], torch.Tensor] | None = None,  # K -> distribution (V,); default p_{K+1}
) -> VerifyResult:
    """The loop every rule shares: test drafts left to right with a uniform each (kept iff u < accept
    probability), stop at the first rejection, emit one more token.

    Deterministic rules return acceptance probabilities of 0 or 1, for which u cannot change the outcome; the
    uniform is still drawn and recorded, so every rule fills `VerifyResult.uniforms` the same way (one per tested
    position, as the engine and the trace expect) and replays from `uniforms` like `verify`.
    """
    used: list[float] = []
    accept_probs: list[float] = []
    for i, token in enumerate(draft_tokens):
        accept_probs.append(accept(i, token))
        used.append(_draw(i, uniforms, generator))
        if not used[-1] < accept_probs[-1]:
            dist = recover(i)
            return VerifyResult(i, used, accept_probs, sample(dist, generator), "recovered", dist)
    k = len(draft_tokens)
    dist = bonus(k) if bonus is not None else target_probs[k]
    return VerifyResult(k, used, accept_probs, sample(dist, generator), "bonus", dist)


def accept_all(
    target_probs: torch.Tensor,  # (K+1, V)
    draft_probs: torch.Tensor,  # (K, V)
    draft_tokens: list[int],
    *,
    generator: torch.Generator | None = None,
    uniforms: list[float] | None = None,
) -> VerifyResult:
    """Keep every drafted token, then a bonus token from p. The output follows the draft, not the target."""
    _check_shapes(target_probs, draft_probs, draft_tokens)
    return _chain(target_probs, draft_tokens, generator, uniforms, lambda i, x: 1.0,
                  lambda i: target_probs[i])


def resample_from_target(
    target_probs: torch.Tensor,
    draft_probs: torch.Tensor,
    draft_tokens: list[int],
    *,
    generator: torch.Generator | None = None,
    uniforms: list[float] | None = None,
) -> VerifyResult:
    """The standard accept test, but after a rejection sample from p instead of norm(max(0, p - q))."""
    _check_shapes(target_probs, draft_probs, draft_tokens)
    return _chain(target_probs, draft_tokens, generator, uniforms,
                  lambda i, x: accept_probability(float(target_probs[i, x]), float(draft_probs[i, x])),
                  lambda i: target_probs[i])


def accept_if_p_ge_q(
    target_probs: torch.Tensor,
    draft_probs: torch.Tensor,
    draft_tokens: list[int],
    *,
    generator: torch.Generator | None = None,
    uniforms: list[float] | None = None,
) -> VerifyResult:
    """Accept x iff p(x) >= q(x) (acceptance probability 1 or 0: no coin flip decides); after a rejection sample
    from the residual norm(max(0, p - q)) as usual."""
    _check_shapes(target_probs, draft_probs, draft_tokens)
    return _chain(target_probs, draft_tokens, generator, uniforms,
                  lambda i, x: 1.0 if float(target_probs[i, x]) >= float(draft_probs[i, x]) else 0.0,
                  lambda i: residual_distribution(target_probs[i], draft_probs[i]))


def _top_n_mask(probs: torch.Tensor, n: int = TOP_N_ONLY) -> torch.Tensor:
    """(V,) bool: the n most likely tokens (ties broken by torch.topk), or every token when V <= n."""
    mask = torch.zeros_like(probs, dtype=torch.bool)
    mask[torch.topk(probs, min(n, probs.shape[-1])).indices] = True
    return mask


def target_top20_only(
    target_probs: torch.Tensor,
    draft_probs: torch.Tensor,
    draft_tokens: list[int],
    *,
    generator: torch.Generator | None = None,
    uniforms: list[float] | None = None,
) -> VerifyResult:
    """Reject any draft outside the target's 20 most likely tokens; inside them, the standard test
    min(1, p(x)/q(x)) with the full p; after a rejection, the standard residual norm(max(0, p - q)) with the full p.
    "Top 20" is torch.topk of p (ties broken by its order); with 20 or fewer tokens in the vocabulary it is all of
    them, and the rule is `verify`."""
    _check_shapes(target_probs, draft_probs, draft_tokens)

    def accept(i: int, x: int) -> float:
        if not bool(_top_n_mask(target_probs[i])[x]):
            return 0.0
        return accept_probability(float(target_probs[i, x]), float(draft_probs[i, x]))

    return _chain(target_probs, draft_tokens, generator, uniforms, accept,
                  lambda i: residual_distribution(target_probs[i], draft_probs[i]))


def entropy(probs: torch.Tensor) -> torch.Tensor:
    """Shannon entropy in nats over the last dimension (0 log 0 = 0).

    >>> import torch
    >>> round(float(entropy(torch.tensor([0.5, 0.5, 0.0]))), 4)
    0.6931
    """
    logs = torch.where(probs > 0, probs.log(), torch.zeros_like(probs))
    return -(probs * logs).sum(-1)


def typical_threshold(target_probs: torch.Tensor, epsilon: float = TYPICAL_EPSILON,
                      delta: float = TYPICAL_DELTA) -> float:
    """Medusa's acceptance threshold for one position: min(epsilon, delta * exp(-H(p))).

    >>> import torch
    >>> typical_threshold(torch.tensor([1.0, 0.0]))  # a confident target: the hard threshold epsilon applies
    0.09
    """
    return min(epsilon, delta * math.exp(-float(entropy(target_probs.double()))))


def typical_acceptance(
    target_probs: torch.Tensor,
    draft_probs: torch.Tensor,
    draft_tokens: list[int],
    *,
    generator: torch.Generator | None = None,
    uniforms: list[float] | None = None,
    epsilon: float = TYPICAL_EPSILON,
    delta: float = TYPICAL_DELTA,
    fallback: str = "argmax",
) -> VerifyResult:
    """Medusa's typical acceptance (Cai et al. 2024, section 2.3.1): keep x iff p(x) > min(epsilon, delta exp(-H(p)))
    (H in nats; acceptance probability 1 or 0, no coin flip decides). The token after the accepted run (after a
    rejection, or after all K) is the target's argmax, as in the paper ("we always greedily decode the first
    token") and Medusa's reference code (`generate_candidates` takes the argmax of the base model's logits).
    `fallback="sample"` samples it from p instead. Either way the output is not p: lossy by design, traded for
    longer accepted runs."""
    _check_shapes(target_probs, draft_probs, draft_tokens)
    if fallback not in ("argmax", "sample"):
        raise ValueError(f"fallback must be 'argmax' or 'sample' (got {fallback!r}).")

    def after(i: int) -> torch.Tensor:
        if fallback == "sample":
            return target_probs[i]
        return torch.nn.functional.one_hot(target_probs[i].argmax(), target_probs.shape[-1]).to(target_probs.dtype)

    def accept(i: int, x: int) -> float:
        return 1.0 if float(target_probs[i, x]) > typical_threshold(target_probs[i], epsilon, delta) else 0.0

    return _chain(target_probs, draft_tokens, generator, uniforms, accept, after, bonus=after)


def _inverse_cdf(probs: torch.Tensor, u: float) -> int:
    """The token a uniform u in [0, 1) selects from a distribution (V,): smallest t with cdf(t) > u."""
    cdf = probs.double().cumsum(0)
    t = int(torch.searchsorted(cdf, torch.tensor([u * float(cdf[-1])], dtype=torch.float64), right=True))
    t = min(t, probs.shape[0] - 1)
    while probs[t] <= 0 and t > 0:  # only reachable through float round-off at the top end
        t -= 1
    return t


def exact_match_rule(
    target_probs: torch.Tensor,
    draft_probs: torch.Tensor,
    draft_tokens: list[int],
    *,
    generator: torch.Generator | None = None,
    uniforms: list[float] | None = None,
) -> VerifyResult:
    """What transformers does for proposers without logits (prompt lookup): at each position sample t ~ p (one
    uniform through the inverse CDF); keep the draft iff it equals t, else emit t as the recovered token. After
    K matches, a bonus token from p. `accept_probs` holds p(x), the chance of a match; `next_dist` is the p the
    emitted token was drawn from. Exact, for any q."""
    k = _check_shapes(target_probs, draft_probs, draft_tokens)
    used: list[float] = []
    accept_probs: list[float] = []
    for i, token in enumerate(draft_tokens):
        used.append(_draw(i, uniforms, generator))
        accept_probs.append(float(target_probs[i, token]))
        t = _inverse_cdf(target_probs[i], used[-1])
        if t != token:
            return VerifyResult(i, used, accept_probs, t, "recovered", target_probs[i])
    return VerifyResult(k, used, accept_probs, sample(target_probs[k], generator), "bonus", target_probs[k])
