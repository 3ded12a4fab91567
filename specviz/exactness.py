"""Is the output really the target's? The exact rule next to rules that break it, and the experiments that tell
them apart.

Every rule here has the signature of `specviz.verifier.verify` (target_probs (K+1, V), draft_probs (K, V),
draft_tokens, *, generator, uniforms) and returns its `VerifyResult`, so the engine can run any of them. The
exact rule *is* `specviz.verifier.verify`; the others are deliberate mistakes (or, for Medusa's typical
acceptance, a deliberate trade of exactness for speed), each with the closed form of what it outputs instead.

The experiments:
  one_step_samples          n single steps with K = 1 on given p, q (fast: the statistical tests, the live page)
  continuation_samples      N short continuations through the real engine, speculative and target-only
  exact_first_token_distribution / exact_two_token_distribution   the ground truth, by enumeration
  chi_square_test, tv_distance, tv_curve                           how far samples are from the truth
  decompose_step            p = min(p, q) + (1 - alpha) norm(max(0, p - q)), for the stacked bars
  restrict_support          p, q cut to the tokens that carry their mass (a 49k vocabulary makes sampling slow)
  recorded_step             p, q as far as a trace's top-10 lists tell, with bounds on alpha
p = target, q = draft throughout, both after temperature / top-k / top-p.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.stats
import torch

from specviz.sampling import SamplingConfig, sample
from specviz.verifier import VerifyResult, accept_probability, residual_distribution, verify

VerifierFn = Callable[..., VerifyResult]

TYPICAL_EPSILON = 0.09  # Medusa's hard threshold epsilon ("posterior_threshold")
TYPICAL_DELTA = 0.3  # Medusa's entropy-scaled threshold delta ("posterior_alpha")
TOP_N_ONLY = 20

# ---- the rules ----------------------------------------------------------------------------------------------------


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

    >>> round(float(entropy(torch.tensor([0.5, 0.5, 0.0]))), 4)
    0.6931
    """
    logs = torch.where(probs > 0, probs.log(), torch.zeros_like(probs))
    return -(probs * logs).sum(-1)


def typical_threshold(target_probs: torch.Tensor, epsilon: float = TYPICAL_EPSILON,
                      delta: float = TYPICAL_DELTA) -> float:
    """Medusa's acceptance threshold for one position: min(epsilon, delta * exp(-H(p))).

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


# ---- closed forms: what each rule emits in one step with K = 1, the draft x ~ q ----------------------------------


def _pq(target_probs: torch.Tensor, draft_probs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    p, q = torch.as_tensor(target_probs).double(), torch.as_tensor(draft_probs).double()
    if p.dim() != 1 or p.shape != q.shape:
        raise ValueError("p and q must be probability vectors (V,) of the same length.")
    return p / p.sum(), q / q.sum()


def _exact_one_step(p, q):
    return p, float(torch.minimum(p, q).sum())


def _accept_all_one_step(p, q):
    return q, 1.0


def _resample_one_step(p, q):
    accepted = torch.minimum(p, q)
    alpha = float(accepted.sum())
    return accepted + (1 - alpha) * p, alpha


def _p_ge_q_one_step(p, q):
    keep = (p >= q).double() * q
    alpha = float(keep.sum())
    return keep + (1 - alpha) * residual_distribution(p, q), alpha


def _top20_one_step(p, q):
    accepted = torch.minimum(p, q) * _top_n_mask(p).double()
    alpha = float(accepted.sum())
    return accepted + (1 - alpha) * residual_distribution(p, q), alpha


def _typical_one_step(p, q):
    keep = (p > typical_threshold(p)).double() * q
    alpha = float(keep.sum())
    greedy = torch.nn.functional.one_hot(p.argmax(), p.shape[0]).double()
    return keep + (1 - alpha) * greedy, alpha


def _exact_match_one_step(p, q):
    return p, float((p * q).sum())


@dataclass(frozen=True)
class Rule:
    """A verification rule and what the app says about it. `one_step(p, q)` is the closed form of the first
    emitted token's distribution for K = 1 with x ~ q, plus the chance that the draft is kept."""

    name: str
    label: str
    function: VerifierFn
    exact: bool
    explanation: str
    one_step: Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, float]]


RULES: dict[str, Rule] = {
    rule.name: rule
    for rule in [
        Rule("exact", "Exact rule (Leviathan / Chen)", verify, True,
             "Accept the draft x with probability min(1, p(x)/q(x)); at the first rejection sample from "
             "norm(max(0, p − q)). The accepted part contributes min(p, q) and the recovered part tops it up with "
             "exactly the missing max(0, p − q), so every emitted token is distributed as p.",
             _exact_one_step),
        Rule("accept_all", "Broken: accept every draft", accept_all, False,
             "Keep every drafted token without looking at p. The emitted tokens are then the draft's samples: "
             "the output follows q, and only the bonus token comes from p. Fast (α = 1) and wrong by exactly "
             "TV(p, q).",
             _accept_all_one_step),
        Rule("resample_from_target", "Broken: resample from p on rejection", resample_from_target, False,
             "The accept test is right, but after a rejection it samples from p instead of the residual. Tokens "
             "the draft over-proposes were already partly emitted through acceptance and can come out again, so "
             "they get min(p, q) + (1 − α)·p > p whenever q > p: the output leans towards the draft.",
             _resample_one_step),
        Rule("accept_if_p_ge_q", "Broken: accept iff p(x) ≥ q(x)", accept_if_p_ge_q, False,
             "A deterministic shortcut: keep x when p(x) ≥ q(x), reject otherwise, with no coin flip. Tokens with "
             "p(x) < q(x) are never emitted through acceptance (they should be, with probability p(x)), and the "
             "residual then has to cover all of their q-mass instead of just max(0, q − p): the output is off.",
             _p_ge_q_one_step),
        Rule("target_top20_only", "Broken: reject outside the target's top 20", target_top20_only, False,
             "Reject every draft outside the target's 20 most likely tokens; inside them use the standard test, "
             "and recover from the standard residual. Tokens outside the top 20 then come out only through the "
             "residual, which was sized for the other rejections: they get too little mass and the top tokens too "
             "much. It is exact only when p puts no mass outside its top 20 (e.g. top-k ≤ 20).",
             _top20_one_step),
        Rule("typical_acceptance", "Lossy: Medusa's typical acceptance", typical_acceptance, False,
             "Medusa (Cai et al. 2024) keeps x when p(x) > min(ε, δ·exp(−H(p))) (ε = 0.09, δ = 0.3) and emits "
             "the target's argmax after the accepted run. Plausible tokens are always kept and the rest replaced "
             "by the most likely one: longer accepted runs, but the output is not p. Lossy by design, not a bug.",
             _typical_one_step),
        Rule("exact_match", "Exact: sample from p, keep the draft if it matches", exact_match_rule, True,
             "Sample t from p at each position; keep the draft iff it equals t, otherwise emit t. What transformers "
             "does for prompt lookup, which has no q. Every emitted token is a sample from p, so it is exact, for "
             "any proposer; it just accepts less often: Σ p(x)q(x) instead of Σ min(p, q).",
             _exact_match_one_step),
    ]
}


def get_rule(rule: str | Rule | VerifierFn) -> Rule:
    """A registry entry from its name, the entry itself, or one of the rule functions."""
    if isinstance(rule, Rule):
        return rule
    if isinstance(rule, str):
        if rule not in RULES:
            raise ValueError(f"Unknown rule '{rule}': choose one of {', '.join(RULES)}.")
        return RULES[rule]
    for entry in RULES.values():
        if entry.function is rule:
            return entry
    raise ValueError("This verifier is not one of specviz's registered rules.")


def one_step_distribution(rule: str | Rule | VerifierFn, target_probs: torch.Tensor,
                          draft_probs: torch.Tensor) -> tuple[torch.Tensor, float]:
    """The closed form of the first token one step emits (K = 1, x ~ q) under `rule`, float64 (V,), and the
    rule's acceptance rate (the chance that the draft is kept).

    >>> p, q = torch.tensor([0.5, 0.3, 0.2]), torch.tensor([0.2, 0.6, 0.2])
    >>> dist, alpha = one_step_distribution("resample_from_target", p, q)
    >>> [round(x, 2) for x in dist.tolist()], round(alpha, 2)
    ([0.35, 0.39, 0.26], 0.7)
    """
    return get_rule(rule).one_step(*_pq(target_probs, draft_probs))


class Support(NamedTuple):
    """p and q restricted to the tokens that carry their mass, renormalised; `token_ids` maps back to the vocabulary."""

    token_ids: torch.Tensor  # (n,) int64, into the full vocabulary
    target_probs: torch.Tensor  # (n,)
    draft_probs: torch.Tensor  # (n,)
    target_coverage: float  # the share of the original p kept
    draft_coverage: float


def restrict_support(target_probs: torch.Tensor, draft_probs: torch.Tensor, max_tokens: int = 4096,
                     mass: float = 1 - 1e-6) -> Support:
    """Keep the most likely tokens under max(p, q) until both p and q have `mass` covered (at most `max_tokens`).

    A 49k-token vocabulary makes every sampling call slow; restricted to the few thousand tokens that matter the
    experiments run 30x faster, on slightly renormalised p and q (the coverages say by how much). A vocabulary of
    at most `max_tokens` is kept whole.

    >>> s = restrict_support(torch.tensor([0.7, 0.2, 0.1, 0.0]), torch.tensor([0.5, 0.4, 0.0, 0.1]), max_tokens=2)
    >>> s.token_ids.tolist(), round(s.target_coverage, 2), round(s.draft_coverage, 2)
    ([0, 1], 0.9, 0.9)
    """
    p, q = torch.as_tensor(target_probs).float(), torch.as_tensor(draft_probs).float()
    if p.shape[-1] <= max_tokens:
        ids = torch.arange(p.shape[-1])
    else:
        order = torch.argsort(torch.maximum(p, q), descending=True)
        cover = torch.minimum(p[order].double().cumsum(0), q[order].double().cumsum(0))
        n = min(max_tokens, int((cover < mass).sum()) + 1)
        ids = order[:n].sort().values
    kept_p, kept_q = p[ids], q[ids]
    cov_p, cov_q = float(kept_p.sum()) / float(p.sum()), float(kept_q.sum()) / float(q.sum())
    if kept_p.sum() <= 0 or kept_q.sum() <= 0:
        raise ValueError("The kept tokens carry no probability under p or q; this should not happen.")
    return Support(ids, kept_p / kept_p.sum(), kept_q / kept_q.sum(), cov_p, cov_q)


# ---- sampling experiments -----------------------------------------------------------------------------------------


@dataclass
class OneStepSamples:
    """n simulated steps: the first emitted token of each (n,), and whether it was the kept draft (n,)."""

    tokens: torch.Tensor  # (n,) int64
    accepted: torch.Tensor  # (n,) bool
    vocab_size: int

    @property
    def n(self) -> int:
        return int(self.tokens.shape[0])

    @property
    def counts(self) -> torch.Tensor:
        """Token counts (V,)."""
        return torch.bincount(self.tokens, minlength=self.vocab_size)

    @property
    def acceptance_rate(self) -> float:
        return float(self.accepted.double().mean()) if self.n else math.nan


def one_step_samples(
    target_probs: torch.Tensor,  # (V,)
    draft_probs: torch.Tensor,  # (V,)
    rule: str | Rule | VerifierFn,
    n: int,
    generator: torch.Generator | None = None,
    draft_sampler: Callable[[torch.Tensor, torch.Generator | None], int] | None = None,
) -> OneStepSamples:
    """Simulate n steps with K = 1: draft x ~ q, run the rule, record the first emitted token.

    By default the n drafts are drawn from q up front, in one call; pass `draft_sampler(q, generator) -> token`
    to draw them one by one instead, e.g. `lambda q, g: 7` for a deterministic proposer (q should then be the
    point mass on 7). The bonus row is p again: it does not affect the first token.
    """
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"The number of samples must be a positive whole number (got {n}).")
    p, q = (torch.as_tensor(x, dtype=torch.float32) for x in (target_probs, draft_probs))
    if p.dim() != 1 or p.shape != q.shape:
        raise ValueError("p and q must be probability vectors (V,) of the same length.")
    fn = get_rule(rule).function if isinstance(rule, (str, Rule)) else rule
    target_rows, draft_rows = torch.stack([p, p]), q[None]  # (2, V), (1, V)
    drafts = torch.multinomial(q, int(n), replacement=True, generator=generator).tolist() \
        if draft_sampler is None else None
    tokens = torch.empty(int(n), dtype=torch.int64)
    accepted = torch.empty(int(n), dtype=torch.bool)
    for j in range(int(n)):
        x = drafts[j] if drafts is not None else draft_sampler(q, generator)
        result = fn(target_rows, draft_rows, [x], generator=generator)
        accepted[j] = result.n_accepted >= 1
        tokens[j] = x if result.n_accepted >= 1 else result.next_token
    return OneStepSamples(tokens, accepted, p.shape[0])


def target_samples(target_probs: torch.Tensor, n: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """n tokens sampled straight from p (target-only decoding of one token), (n,) int64."""
    return torch.multinomial(torch.as_tensor(target_probs, dtype=torch.float32), int(n), replacement=True,
                             generator=generator)


# ---- distances and tests ------------------------------------------------------------------------------------------


ArrayLike = torch.Tensor | np.ndarray | Sequence[float]


def tv_distance(a: ArrayLike, b: ArrayLike) -> float:
    """Total variation distance ½ Σ |a - b| between two distributions (counts are normalised first).

    >>> tv_distance([0.5, 0.5, 0.0], [0.25, 0.25, 0.5])
    0.5
    >>> tv_distance([30, 10], [0.75, 0.25])
    0.0
    """
    a, b = (torch.as_tensor(x, dtype=torch.float64) for x in (a, b))
    if a.shape != b.shape:
        raise ValueError(f"Both distributions need the same length ({a.shape[-1]} vs {b.shape[-1]}).")
    return round(0.5 * float((a / a.sum() - b / b.sum()).abs().sum()), 12)


def expected_tv_exact(probs: torch.Tensor | Sequence[float], n: int) -> float:
    """About how far n exact samples of `probs` land from it: E[TV] ≈ Σ sqrt(p(1 - p) / (2π n)) (normal
    approximation of each count), the 1/√N reference line."""
    p = torch.as_tensor(probs, dtype=torch.float64)
    p = p / p.sum()
    return float(torch.sqrt(p * (1 - p) / (2 * math.pi * n)).sum())


@dataclass
class TVCurve:
    """TV between the empirical distribution of the first n samples and the truth, for growing n."""

    ns: list[int]
    tv: list[float]
    exact_reference: list[float]  # expected TV of an exact sampler at the same n


def tv_curve(samples: torch.Tensor, probs: torch.Tensor, points: int = 12, n_min: int = 10) -> TVCurve:
    """`samples` are category ids (n,) in 0..len(probs)-1; n is spaced logarithmically from n_min to all of them.
    For an exact sampler the TV shrinks like 1/√N; for a lossy one it levels off at the rule's drift."""
    samples = torch.as_tensor(samples, dtype=torch.int64)
    total = int(samples.shape[0])
    if total < 1:
        raise ValueError("A TV curve needs at least one sample.")
    probs = torch.as_tensor(probs, dtype=torch.float64)
    ns = sorted({int(round(x)) for x in np.geomspace(min(n_min, total), total, points)})
    tv = [tv_distance(torch.bincount(samples[:m], minlength=probs.shape[0]), probs) for m in ns]
    return TVCurve(ns, tv, [expected_tv_exact(probs, m) for m in ns])


@dataclass
class ChiSquareResult:
    """Pearson's goodness-of-fit test of counts against probabilities, after pooling bins with small expectations.

    `impossible` counts samples on tokens with probability 0: a single one refutes the distribution (p-value 0).
    `support` is the number of outcomes with positive probability.
    """

    statistic: float
    dof: int
    p_value: float
    n: int
    bins: int
    impossible: int = 0
    support: int = 0

    @property
    def consistent(self) -> bool:
        """True when the test finds no evidence against the distribution at the 0.001 level."""
        return self.p_value >= 1e-3

    @property
    def verdict(self) -> str:
        """One plain-language sentence."""
        if self.impossible:
            return (f"Not the target distribution: {self.impossible} of {self.n} samples are tokens the target gives "
                    f"probability 0.")
        if self.dof == 0 and self.support <= 1:
            return "Nothing to test: the target puts all its mass on one token, and every sample is that token."
        if self.dof == 0:
            return (f"Too few samples to test: with {self.n} samples every outcome is rare, so they all pool into one "
                    f"group; draw more samples.")
        if self.p_value < 1e-3:
            return (f"Not the target distribution: a gap this large would happen by chance less than once in a "
                    f"thousand runs (p = {self.p_value:.2g}).")
        if self.p_value < 1e-2:
            return (f"Borderline (p = {self.p_value:.2g}): suspicious but not conclusive; draw more samples.")
        return (f"Consistent with the target distribution: the differences are the size chance produces "
                f"(p = {self.p_value:.2g}).")


def chi_square_test(counts: torch.Tensor | Sequence[int], probs: torch.Tensor | Sequence[float],
                    min_expected: float = 5.0) -> ChiSquareResult:
    """Test whether `counts` (V,) could be draws from `probs` (V,).

    Bins whose expected count n p is below `min_expected` are pooled into one bin (the chi-square approximation
    needs it); if that pool is still too small, it absorbs the smallest remaining bins until it is not.

    >>> chi_square_test([52, 48], [0.5, 0.5]).consistent, chi_square_test([90, 10], [0.5, 0.5]).consistent
    (True, False)
    """
    obs = torch.as_tensor(counts, dtype=torch.float64)
    p = torch.as_tensor(probs, dtype=torch.float64)
    if obs.shape != p.shape or obs.dim() != 1:
        raise ValueError("counts and probs must be vectors of the same length.")
    n = int(obs.sum())
    if n < 1:
        raise ValueError("The chi-square test needs at least one sample.")
    p = p / p.sum()
    impossible, support = int(obs[p <= 0].sum()), int((p > 0).sum())
    if impossible:
        return ChiSquareResult(math.inf, max(support - 1, 0), 0.0, n, support, impossible, support)
    expected = (p * n)[p > 0].numpy()
    observed = obs[p > 0].numpy()
    order = np.argsort(expected)
    small = order[expected[order] < min_expected]
    big = order[expected[order] >= min_expected]
    pool_exp, pool_obs = float(expected[small].sum()), float(observed[small].sum())
    big = list(big)
    while len(small) and pool_exp < min_expected and big:
        j = big.pop(0)
        pool_exp += float(expected[j])
        pool_obs += float(observed[j])
    exp_bins = [float(expected[j]) for j in big] + ([pool_exp] if pool_exp > 0 else [])
    obs_bins = [float(observed[j]) for j in big] + ([pool_obs] if pool_exp > 0 else [])
    if len(exp_bins) < 2:
        return ChiSquareResult(0.0, 0, 1.0, n, len(exp_bins), 0, support)
    stat, p_value = scipy.stats.chisquare(obs_bins, exp_bins)
    return ChiSquareResult(float(stat), len(exp_bins) - 1, float(p_value), n, len(exp_bins), 0, support)


# ---- the decomposition --------------------------------------------------------------------------------------------


class StepDecomposition(NamedTuple):
    """p split by where its mass comes from in one step: accepted drafts and recovered tokens."""

    alpha: float
    accepted: torch.Tensor  # (V,) min(p, q)
    recovered: torch.Tensor  # (V,) (1 - alpha) norm(max(0, p - q)) = max(0, p - q)


def decompose_step(target_probs: torch.Tensor, draft_probs: torch.Tensor) -> StepDecomposition:
    """(alpha, min(p, q), (1 - alpha) norm(max(0, p - q))): the two parts stack up to p exactly.

    >>> alpha, accepted, recovered = decompose_step(torch.tensor([0.5, 0.3, 0.2]), torch.tensor([0.2, 0.6, 0.2]))
    >>> round(alpha, 4), [round(x, 4) for x in accepted.tolist()], [round(x, 4) for x in recovered.tolist()]
    (0.7, [0.2, 0.3, 0.2], [0.3, 0.0, 0.0])
    """
    p, q = _pq(target_probs, draft_probs)
    accepted = torch.minimum(p, q)
    alpha = float(accepted.sum())
    residual = (p - q).clamp_min(0)
    mass = float(residual.sum())
    recovered = (1 - alpha) * residual / mass if mass > 1e-12 else torch.zeros_like(p)
    return StepDecomposition(alpha, accepted, recovered)


# ---- ground truth and samples through the real engine -------------------------------------------------------------
# The engine (specviz.decoding, specviz.baseline) pulls in transformers; it is imported where it is used so the
# tensor-level tools above stay light.


def _prompt(input_ids: Sequence[int] | torch.Tensor) -> list[int]:
    ids = input_ids.flatten().tolist() if isinstance(input_ids, torch.Tensor) else [int(i) for i in input_ids]
    if not ids:
        raise ValueError("The prompt is empty: give at least one token.")
    return ids


def _device(model) -> torch.device:
    return next(model.parameters()).device


@torch.inference_mode()
def next_token_distributions(model, sequences: Sequence[Sequence[int]], sampling: SamplingConfig) -> torch.Tensor:
    """The model's next-token distribution after each of several equally long sequences, (n, V) on CPU, after
    the sampling settings. One batched forward, no cache."""
    lengths = {len(s) for s in sequences}
    if len(lengths) != 1:
        raise ValueError("next_token_distributions needs sequences of one length.")
    ids = torch.tensor([list(s) for s in sequences], device=_device(model))
    logits = model(input_ids=ids).logits[:, -1, : model.config.vocab_size]  # (n, V)
    return sampling.probs(logits.float()).cpu()


def exact_first_token_distribution(target, input_ids: Sequence[int] | torch.Tensor,
                                   sampling: SamplingConfig) -> torch.Tensor:
    """p for the first new token after the prompt, (V,): what target-only decoding samples from."""
    return next_token_distributions(target, [_prompt(input_ids)], sampling)[0]


def proposal_distribution(proposer, input_ids: Sequence[int] | torch.Tensor, sampling: SamplingConfig,
                          vocab_size: int) -> torch.Tensor:
    """q for the first drafted token after the prompt, (V,), from any `specviz.proposers.Proposer`; a
    deterministic proposer (no draft_probs) gives the point mass on its guess."""
    ids = _prompt(input_ids)
    proposer.reset()
    proposer.prefill(ids)
    proposal = proposer.propose(ids, 1, sampling, torch.Generator().manual_seed(0))
    proposer.reset()
    if not proposal.tokens:
        raise ValueError(f"The proposer '{proposer.name}' has no guess after this prompt; try another prompt.")
    if proposal.draft_probs is not None:
        return proposal.draft_probs[0].float().cpu()
    return torch.nn.functional.one_hot(torch.tensor(proposal.tokens[0]), vocab_size).float()


@dataclass
class SequenceDistribution:
    """A distribution over short continuations: `support` sequences with `probs` (S+1,), the last entry being
    everything else ("other"). `exhaustive` is True when "other" is empty by construction."""

    support: list[tuple[int, ...]]
    probs: torch.Tensor  # (S+1,) float64
    exhaustive: bool
    note: str

    @property
    def other_index(self) -> int:
        return len(self.support)

    def categorize(self, sequences: Sequence[Sequence[int]]) -> torch.Tensor:
        """Map sampled sequences to category ids (n,), anything outside the support to `other_index`."""
        index = {s: i for i, s in enumerate(self.support)}
        return torch.tensor([index.get(tuple(s), self.other_index) for s in sequences], dtype=torch.int64)


def _sequence_distribution(entries: dict[tuple[int, ...], float], max_support: int, exhaustive: bool,
                           note: str) -> SequenceDistribution:
    ranked = sorted(((s, p) for s, p in entries.items() if p > 0), key=lambda e: -e[1])
    kept = ranked[:max_support]
    probs = torch.tensor([p for _, p in kept] + [0.0], dtype=torch.float64)
    probs[-1] = max(0.0, 1.0 - float(probs[:-1].sum()))
    return SequenceDistribution([s for s, _ in kept], probs, exhaustive and len(kept) == len(ranked), note)


def exact_two_token_distribution(target, input_ids: Sequence[int] | torch.Tensor, sampling: SamplingConfig, *,
                                 eos: set[int] | None = None, tokenizer=None, max_first: int = 64,
                                 coverage: float = 0.9999, max_support: int = 2000) -> SequenceDistribution:
    """P(t1, t2) = p(t1) p(t2 | t1) by enumeration: one batched forward over the most likely first tokens (until
    they cover `coverage` of p, at most `max_first`). A first token in `eos` ends the continuation, so it appears
    as the 1-token sequence (t1,); by default `eos` is what the engine stops at (`specviz.generation.eos_ids`).
    Pairs beyond `max_support`, and first tokens beyond the enumerated ones, go to "other", whose probability is
    still exact (1 minus the rest)."""
    from specviz.generation import eos_ids

    eos = eos_ids(target, tokenizer) if eos is None else set(eos)
    prompt = _prompt(input_ids)
    p1 = exact_first_token_distribution(target, prompt, sampling).double()
    order = torch.argsort(p1, descending=True)
    cum = p1[order].cumsum(0)
    m = min(max_first, int((cum < coverage).sum()) + 1, int((p1 > 0).sum()))
    firsts = [int(t) for t in order[:m]]
    entries: dict[tuple[int, ...], float] = {(t,): float(p1[t]) for t in firsts if t in eos}
    going_on = [t for t in firsts if t not in eos]
    if going_on:
        p2 = next_token_distributions(target, [prompt + [t] for t in going_on], sampling).double()  # (m, V)
        joint = p1[going_on][:, None] * p2
        flat_values, flat_index = torch.topk(joint.flatten(), min(max_support, joint.numel()))
        for value, index in zip(flat_values.tolist(), flat_index.tolist()):
            if value > 0:
                entries[(going_on[index // joint.shape[1]], index % joint.shape[1])] = value
    complete = m == int((p1 > 0).sum())
    note = (f"exact, by enumerating all {m} possible first tokens" if complete else
            f"exact for the {m} most likely first tokens ({float(cum[m - 1]):.2%} of p); the rest is 'other'")
    return _sequence_distribution(entries, max_support, complete, note)


@dataclass
class ContinuationSamples:
    """N continuations from one prompt, by speculative decoding with a rule and by target-only decoding."""

    speculative: list[tuple[int, ...]]
    autoregressive: list[tuple[int, ...]]
    drafted: int
    accepted: int

    @property
    def acceptance_rate(self) -> float:
        """Accepted / drafted over all speculative runs."""
        return self.accepted / self.drafted if self.drafted else math.nan


def continuation_samples(
    target,
    draft,
    input_ids: Sequence[int] | torch.Tensor,
    *,
    n: int,
    length: int = 2,
    rule: str | Rule | VerifierFn = "exact",
    k: int = 4,
    temperature: float = 1.0,
    top_k: int = 0,
    top_p: float = 1.0,
    seed: int = 0,
    tokenizer=None,
    autoregressive: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> ContinuationSamples:
    """Sample n continuations of `length` new tokens with `speculative_generate` (verifier = the rule) and with
    `autoregressive_generate`, run i using seed + i. Continuations may be shorter when EOS comes first.

    The engine never drafts more tokens than it can still emit, so a 1-token continuation never reaches the
    verifier: use length >= 2 to test a rule (the first token then comes from the rule with K = 1).
    """
    from specviz.baseline import autoregressive_generate
    from specviz.decoding import speculative_generate

    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"The number of continuations must be a positive whole number (got {n}).")
    if not 1 <= length <= 3:
        raise ValueError(f"Continuations are 1 to 3 tokens long here (got {length}).")
    fn = get_rule(rule).function if isinstance(rule, (str, Rule)) else rule
    prompt = _prompt(input_ids)
    settings = dict(max_new_tokens=length, temperature=temperature, top_k=top_k, top_p=top_p, tokenizer=tokenizer,
                    record=False)
    spec, plain, drafted, accepted = [], [], 0, 0
    for i in range(int(n)):
        trace = speculative_generate(target, draft, prompt, k=k, seed=seed + i, verifier=fn, **settings)
        spec.append(tuple(trace.output_ids))
        drafted += trace.num_drafted
        accepted += trace.num_accepted
        if autoregressive:
            plain.append(tuple(autoregressive_generate(target, prompt, seed=seed + i, **settings).output_ids))
        if progress is not None:
            progress(i + 1, int(n))
    return ContinuationSamples(spec, plain, drafted, accepted)


# ---- one step of a recorded trace ---------------------------------------------------------------------------------


@dataclass
class RecordedStep:
    """p and q over the tokens a trace recorded for one drafted position (the union of the two top lists and the
    drafted token), plus one "other" bucket (last) for the mass the lists leave out. A token missing from one
    list has an unknown probability there (at most that list's smallest entry); it is shown as 0."""

    token_ids: list[int]
    texts: list[str]
    target_probs: torch.Tensor  # (n+1,) float64, last = other
    draft_probs: torch.Tensor  # (n+1,)
    target_known: torch.Tensor  # (n,) bool
    draft_known: torch.Tensor  # (n,) bool
    drafted_token: int
    accept_prob: float

    @property
    def alpha_bounds(self) -> tuple[float, float]:
        """Bounds on the true alpha = Σ min(p, q): below, Σ min over tokens known in both lists; above,
        1 - TV with TV at least ½ Σ |p - q| over those tokens plus, for a token known on one side only, the
        least its gap can be given the other list's smallest entry."""
        p, q = self.target_probs[:-1], self.draft_probs[:-1]
        both = self.target_known & self.draft_known
        lower = float(torch.minimum(p, q)[both].sum())
        p_cap = float(p[self.target_known].min()) if bool(self.target_known.any()) else 1.0
        q_cap = float(q[self.draft_known].min()) if bool(self.draft_known.any()) else 1.0
        gaps = torch.where(both, (p - q).abs(), torch.zeros_like(p))
        gaps = gaps + torch.where(self.target_known & ~self.draft_known, (p - q_cap).clamp_min(0), 0.0)
        gaps = gaps + torch.where(self.draft_known & ~self.target_known, (q - p_cap).clamp_min(0), 0.0)
        return lower, max(lower, 1.0 - 0.5 * float(gaps.sum()))


def recorded_step(decision) -> RecordedStep:
    """Rebuild p and q, as far as the trace kept them, for one `specviz.trace.Decision`."""
    if not decision.target_top or not decision.draft_top:
        raise ValueError("This trace was recorded without top-token lists, so p and q cannot be shown.")
    texts: dict[int, str] = {}
    p: dict[int, float] = {}
    q: dict[int, float] = {}
    for top, probs in ((decision.target_top, p), (decision.draft_top, q)):
        for t in top:
            probs[t.token_id] = t.prob
            texts[t.token_id] = t.text
    p.setdefault(decision.token_id, decision.target_prob)
    q.setdefault(decision.token_id, decision.draft_prob)
    texts.setdefault(decision.token_id, decision.text)
    ids = sorted(texts, key=lambda t: -(p.get(t, 0.0) + q.get(t, 0.0)))

    def vector(probs: dict[int, float]) -> torch.Tensor:
        known = [probs.get(t, 0.0) for t in ids]
        return torch.tensor(known + [max(0.0, 1.0 - sum(known))], dtype=torch.float64)

    return RecordedStep(ids, [texts[t] for t in ids], vector(p), vector(q),
                        torch.tensor([t in p for t in ids]), torch.tensor([t in q for t in ids]),
                        decision.token_id, decision.accept_prob)
