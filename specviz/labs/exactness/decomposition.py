"""One step taken apart: where p's mass comes from (accepted drafts, recovered tokens), and p and q rebuilt from
a recorded trace, for the stacked bars.

`decompose_step` splits p = min(p, q) + (1 - alpha) norm(max(0, p - q)) for the exact rule; `recorded_step`
recovers p and q for one drafted position of a `specviz.engine.trace.Trace`, as far as its top-10 lists tell, with
bounds on alpha. p = target, q = draft throughout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import torch

from specviz.core.i18n import _
from specviz.labs.exactness.registry import _pq


class StepDecomposition(NamedTuple):
    """p split by where its mass comes from in one step: accepted drafts and recovered tokens."""

    alpha: float
    accepted: torch.Tensor  # (V,) min(p, q)
    recovered: torch.Tensor  # (V,) (1 - alpha) norm(max(0, p - q)) = max(0, p - q)


def decompose_step(target_probs: torch.Tensor, draft_probs: torch.Tensor) -> StepDecomposition:
    """(alpha, min(p, q), (1 - alpha) norm(max(0, p - q))): the two parts stack up to p exactly.

    >>> import torch
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


# ---- one step of a recorded trace ---------------------------------------------------------------------------------


@dataclass
class RecordedStep:
    """p and q over the tokens a trace recorded for one drafted position (the union of the two top lists and the
    drafted token), plus one "other" bucket (last) for the mass the lists leave out. A token missing from one
    list has an unknown probability there (at most that list's smallest entry, and at most the mass the list
    leaves); `shown_split` leaves it unwritten (NaN) where it is not 0."""

    token_ids: list[int]
    texts: list[str]
    target_probs: torch.Tensor  # (n+1,) float64, last = other
    draft_probs: torch.Tensor  # (n+1,)
    target_known: torch.Tensor  # (n,) bool
    draft_known: torch.Tensor  # (n,) bool
    drafted_token: int
    accept_prob: float
    # the most a token missing from the target's list can have: the list's smallest entry, or less where the list
    # leaves less of p than that (the drafted token, added from the decision, sets neither cap)
    target_cap: float = 1.0
    draft_cap: float = 1.0  # the same for the draft's list

    @property
    def alpha_bounds(self) -> tuple[float, float]:
        """Bounds on the true β = Σ min(p, q) at this position (α = E[β]): below, Σ min over tokens known in
        both lists; above, 1 - TV with TV at least ½ Σ |p - q| over those tokens plus, for a token known on one
        side only, the least its gap can be given the most the other list leaves a missing token (`target_cap`,
        `draft_cap`).

        Exact (both bounds the same) where every token of one distribution is known in the other's list too: its
        list holds all of it (it leaves no mass: a cap of 0) and the other list knows each of its tokens, so min(p, q)
        is 0 everywhere else. A deterministic proposer's q is a point mass on the drafted token, whose p the decision
        records, so β = p(x̂) exactly (Read 48: n-gram lookup at T = 0.7 read "0.973 to 0.977"), and so is a greedy
        step's; but a draft (or target) that top-k or top-p cut to 10 tokens or fewer is listed whole too, and β is
        exact wherever the other list holds each of those tokens (read 48 review: not only a point mass)."""
        p, q = self.target_probs[:-1], self.draft_probs[:-1]
        both = self.target_known & self.draft_known
        lower = float(torch.minimum(p, q)[both].sum())
        if (self.draft_cap == 0 and bool((both | ~self.draft_known).all())) or (
                self.target_cap == 0 and bool((both | ~self.target_known).all())):
            return lower, lower
        p_cap, q_cap = self.target_cap, self.draft_cap
        gaps = torch.where(both, (p - q).abs(), torch.zeros_like(p))
        gaps = gaps + torch.where(self.target_known & ~self.draft_known, (p - q_cap).clamp_min(0), 0.0)
        gaps = gaps + torch.where(self.draft_known & ~self.target_known, (q - p_cap).clamp_min(0), 0.0)
        return lower, max(lower, 1.0 - 0.5 * float(gaps.sum()))

    def shown_split(self) -> tuple[StepDecomposition, torch.Tensor, torch.Tensor]:
        """`decompose_step` of the lists as far as they tell it, for a chart: the decomposition and q with NaN where
        the lists do not give the value, and p whose split is unknown ((n+1,) each). A token missing from a list
        whose cap is above 0 has an unknown probability there, not 0 (read 55: it was drawn and tabled as 0): its q
        is NaN, and its p, known, cannot be split (min(p, q) needs q), so it goes whole to the unknown part; a token
        missing from the target's list has NaN parts and a NaN unknown part. The rest of p ("other") goes whole to
        the unknown part unless β is exact (`alpha_bounds`: every missing token is then known to be 0).

        >>> step = RecordedStep([5, 6], ["a", "b"], torch.tensor([0.5, 0.0, 0.5], dtype=torch.float64),
        ...                     torch.tensor([0.25, 0.25, 0.5], dtype=torch.float64), torch.tensor([True, False]),
        ...                     torch.tensor([False, True]), 5, 1.0, 0.5, 0.25)
        >>> split, q, unknown = step.shown_split()
        >>> split.accepted.tolist(), q.tolist(), unknown.tolist()
        ([nan, nan, nan], [nan, 0.25, 0.5], [0.5, nan, 0.5])
        """
        full = decompose_step(self.target_probs, self.draft_probs)
        accepted, recovered = full.accepted.clone(), full.recovered.clone()
        q, unknown = self.draft_probs.clone(), torch.zeros_like(self.target_probs)
        lower, upper = self.alpha_bounds
        if lower == upper:  # every token a list leaves out has 0 there
            return StepDecomposition(full.alpha, accepted, recovered), q, unknown
        p_missing = torch.cat([~self.target_known & (self.target_cap > 0), torch.tensor([False])])
        q_missing = torch.cat([~self.draft_known & (self.draft_cap > 0), torch.tensor([False])])
        unknown[q_missing] = self.target_probs[q_missing]
        unknown[-1] = accepted[-1] + recovered[-1]
        unknown[p_missing] = math.nan
        split = p_missing | q_missing
        split[-1] = True
        accepted[split] = recovered[split] = math.nan
        q[q_missing] = math.nan
        return StepDecomposition(full.alpha, accepted, recovered), q, unknown


# what a list holding its whole distribution can still seem to leave: float32 probabilities summed (about 1e-7).
# Missing tokens share at most this much, so α's bounds would differ by less than the third decimal shown
ROUNDING_LEFT = 1e-6


def recorded_step(decision) -> RecordedStep:
    """Rebuild p and q, as far as the trace kept them, for one `specviz.engine.trace.Decision`."""
    if not decision.target_top or not decision.draft_top:
        raise ValueError(_("This trace was recorded without top-token lists, so p and q cannot be shown."))
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

    def cap(top) -> float:
        # a missing token has at most the list's smallest entry, and at most the mass the list leaves (read 47: a
        # greedy trace's lists hold its point masses, all of p and q, yet α read "0.000 to 0.500", not 0); a list
        # whose float32 probabilities sum to 1 but for rounding (a draft top-k cut to 3 tokens) leaves none
        left = 1.0 - sum(t.prob for t in top)
        return min(min(t.prob for t in top), left if left > ROUNDING_LEFT else 0.0)

    return RecordedStep(ids, [texts[t] for t in ids], vector(p), vector(q),
                        torch.tensor([t in p for t in ids]), torch.tensor([t in q for t in ids]),
                        decision.token_id, decision.accept_prob, cap(decision.target_top),
                        cap(decision.draft_top))
