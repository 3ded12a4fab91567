"""The p/q sandbox: a handful of tokens whose p and q a learner writes by hand, one temperature applied to both,
and everything the exact rule does with them in closed form, plus simulated outputs under any registered rule.

What it adds to the lab: no model at all, so the learner sees min(p, q), the residual norm(max(0, p − q)) and
α = Σ min(p, q) = 1 − TV(p, q) move as they drag numbers, and how temperature moves acceptance (a cooler
temperature sharpens both distributions: towards T = 0, α goes to 1 when they share a top token and to 0 when they
do not, but not always steadily: p ∝ 5, 3, 2 and q ∝ 6, 2, 2 share their top token, and α falls from 0.90 at T = 1
to 0.84 at T = 0.5 before it rises to 1, `sandbox_step`'s example. That holds for a single top token each: with
ties at the top the limit lies between (p ∝ 1, 1, 0 and q ∝ 0, 1, 1 go to α = 0.5), and at T = 0 itself each
takes its first top token, as the engine's greedy pick does (there α = 0)).
p = target, q = draft throughout.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from specviz.core.i18n import _, number
from specviz.engine.limits import is_real
from specviz.engine.sampling import logits_to_probs
from specviz.labs.exactness.experiments import one_step_samples
from specviz.labs.exactness.registry import get_rule, one_step_distribution
from specviz.labs.exactness.stats import ChiSquareResult, chi_square_test, tv_distance

MAX_TOKENS = 8  # the sandbox is meant for a handful of tokens
MAX_SAMPLES = 20_000
MAX_TEMPERATURE = 100.0  # hotter than this is the uniform distribution for every purpose


@dataclass(frozen=True)
class SandboxStep:
    """One step of the exact rule on the sandbox's p and q (after temperature), all float64 (V,)."""

    target_probs: torch.Tensor  # p
    draft_probs: torch.Tensor  # q
    overlap: torch.Tensor  # min(p, q): what acceptance emits
    residual: torch.Tensor  # norm(max(0, p − q)); all zeros when p = q (nothing is ever rejected)
    alpha: float  # Σ min(p, q), the chance one draft is kept
    tv: float  # TV(p, q) = 1 − α


@dataclass(frozen=True)
class SandboxSamples:
    """n simulated first tokens (K = 1, x ~ q) under one rule, against p and the rule's own closed form."""

    counts: torch.Tensor  # (V,) int64
    expected: torch.Tensor  # (V,) float64: what the rule emits in closed form
    accepted_fraction: float
    verdict: ChiSquareResult  # counts against p
    kept_chance: float = float("nan")  # the rule's closed-form chance of keeping the draft, which accepted_fraction
    # estimates (α = Σ min(p, q) under the rules that test with min(1, p/q))


def _distribution(weights: Sequence[float] | torch.Tensor, name: str) -> torch.Tensor:
    if not isinstance(weights, torch.Tensor):  # numbers only: not "1", True, None or a list inside the list
        if isinstance(weights, str | bytes) or not isinstance(weights, Sequence) or not all(
                is_real(x) for x in weights):  # NumPy's numbers too
            raise ValueError(_("{name} must give a number for each of 2 to {max_tokens} tokens.", name=name,
                               max_tokens=MAX_TOKENS))
        if len(weights) > MAX_TOKENS:
            raise ValueError(_("{name} must give a number for each of 2 to {max_tokens} tokens.", name=name,
                               max_tokens=MAX_TOKENS))
        # a float64 cannot hold every such int
        if any(isinstance(x, numbers.Integral) and abs(int(x)) > 10**300 for x in weights):
            raise ValueError(_("{name} has a whole number above 10^300: give each weight as a number of at most "
                               "10^300.", name=name))
    w = torch.as_tensor(weights, dtype=torch.float64)
    if w.dim() != 1 or not 2 <= w.shape[0] <= MAX_TOKENS:
        raise ValueError(_("{name} must give a number for each of 2 to {max_tokens} tokens.", name=name,
                           max_tokens=MAX_TOKENS))
    if not torch.isfinite(w).all() or (w < 0).any():
        raise ValueError(_("{name} must be finite numbers of at least 0.", name=name))  # inf is at least 0
    if w.sum() <= 0:
        raise ValueError(_("{name} must give at least one token a weight above 0.", name=name))
    w = w / w.max()  # first to at most 1: two weights of 1e308 would sum to inf
    return w / w.sum()


def tempered(probs: torch.Tensor, temperature: float) -> torch.Tensor:
    """probs (V,) re-sampled at `temperature` as if they were the T = 1 distribution: p^(1/T), normalised; T = 0 is
    greedy (all mass on the most likely token). Tokens with 0 stay at 0.

    >>> [round(x, 3) for x in tempered(torch.tensor([0.5, 0.3, 0.2]), 0.5).tolist()]
    [0.658, 0.237, 0.105]
    """
    if not is_real(temperature) or not 0 <= temperature <= MAX_TEMPERATURE:  # NaN fails the comparison too
        raise ValueError(_("The temperature must be a number from 0 to {most}.", most=number(MAX_TEMPERATURE, 0)))
    logits = torch.log(torch.as_tensor(probs, dtype=torch.float64))  # -inf at a token of probability 0
    if temperature == 0:
        return logits_to_probs(logits.clamp_min(-1e4), 0.0).double()  # the engine's greedy pick, ties and all
    # in float64, from the top token's 0 down: no T > 0 sends every token to -inf (nan), a 0 stays 0 at any T
    return ((logits - logits.max()) / float(temperature)).softmax(-1)


def sandbox_step(target_weights: Sequence[float] | torch.Tensor, draft_weights: Sequence[float] | torch.Tensor,
                 temperature: float = 1.0) -> SandboxStep:
    """p and q from hand-written weights (normalised, then the temperature applied to both), and the exact rule's
    pieces. Any bad input is a ValueError of one sentence.

    >>> step = sandbox_step([5, 3, 2], [2, 6, 2])
    >>> round(step.alpha, 2), round(step.tv, 2), [round(x, 2) for x in step.residual.tolist()]
    (0.7, 0.3, [1.0, 0.0, 0.0])
    >>> [round(sandbox_step([5, 3, 2], [6, 2, 2], t).alpha, 2) for t in (1.0, 0.5, 0.1, 0.0)]
    [0.9, 0.84, 0.99, 1.0]
    """
    p = tempered(_distribution(target_weights, "p"), temperature)
    q = tempered(_distribution(draft_weights, "q"), temperature)
    if p.shape != q.shape:
        raise ValueError(_("p and q must have the same number of tokens."))
    overlap = torch.minimum(p, q)
    alpha = float(overlap.sum())
    mass = (p - q).clamp_min(0)
    residual = mass / mass.sum() if mass.sum() > 1e-12 else torch.zeros_like(p)
    return SandboxStep(p, q, overlap, residual, alpha, tv_distance(p, q))


def _whole(value: object) -> bool:
    """An int, or a float with no fraction (5.0), that is not a bool; never NaN or an infinity (NumPy's included)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, numbers.Integral) or (isinstance(value, numbers.Real) and float(value).is_integer())


def simulate(step: SandboxStep, rule: str, n: int, seed: int = 0) -> SandboxSamples:
    """n one-step runs (K = 1, draft x ~ q) under a registered rule, seeded, with the rule's closed form and a
    chi-square verdict against p.

    >>> s = simulate(sandbox_step([5, 3, 2], [2, 6, 2]), "accept_all", 2000)
    >>> s.accepted_fraction, s.verdict.consistent
    (1.0, False)
    """
    if not _whole(n) or not 1 <= n <= MAX_SAMPLES:  # not NaN, inf, 2.5, True or "5"
        raise ValueError(_("The number of samples must be a whole number from 1 to {max_samples}.",
                           max_samples=number(MAX_SAMPLES, 0)))
    if not _whole(seed) or not 0 <= seed < 2**63:
        raise ValueError(_("The seed must be a whole number from 0 to {most}.", most=number(2**63 - 1, 0)))
    entry = get_rule(rule)
    generator = torch.Generator().manual_seed(int(seed))
    samples = one_step_samples(step.target_probs.float(), step.draft_probs.float(), entry, int(n), generator)
    counts = torch.bincount(samples.tokens, minlength=step.target_probs.shape[0])
    expected, chance = one_step_distribution(entry, step.target_probs, step.draft_probs)
    return SandboxSamples(counts, expected, float(samples.accepted.double().mean()),
                          chi_square_test(counts, step.target_probs), chance)
