"""Draft-length policies: how many tokens to draft in the next step (K), decided step by step.

    trace = speculative_generate(target, proposer, ids, k=4, draft_length=Heuristic(start=4))

The engine asks `next_k()` before each step and reports `observe(drafted, accepted)` after verification; a chain
step's `k` in the trace is what was actually drafted (a tree step's `k` counts only its main line, the drafts its
`decisions` list; `Step.draft_depth` is how deep it drafted). A policy changes only *how many* tokens are drafted,
never how they are verified, so every policy keeps the output exactly the target's in exact arithmetic (identical
under greedy decoding, identically distributed under sampling). A different K changes how many tokens one verify forward
feeds, so in floating point a near-tie of the target's two best logits can still flip a greedy token
(`specviz.engine.numerics`: in bfloat16 it happens, "lossless up to numerics").

  constant    always K (the engine's default, written out)
  heuristic   transformers' "heuristic" schedule: K += 2 after a step whose drafts were all accepted, else K -= 1
              (never below 1: transformers' floor, and this class's k_min)
  threshold   draft up to K, but stop as soon as the draft's top probability falls below a threshold
              (`confident(proposer, threshold)`: the decision needs the draft's distribution, so it is the
              proposer's, in `Proposer.stops_here`); chains only: a tree step drafts its whole tree regardless
  optimal     K = argmax of the expected speedup (1 - α^(K+1)) / ((1 - α)(K c + 1)) for the measured c and an α
              estimated from this generation's own accept/reject record (K = 0: don't speculate, but draft one
              token every `PROBE_EVERY` steps so that a poor early estimate can recover); for a proposer whose one
              pass drafts the whole step (`one_pass`: the Medusa heads, n-gram lookup) the step costs c, not K c
              (`theory.draft_cost`), so the denominator is (1 - α)(c + 1) and the argmax is k_max wherever the
              speedup beats 1, else 0
"""

from __future__ import annotations

import copy
import math
from typing import Protocol, runtime_checkable

from specviz.core.i18n import _, localized, number, with_minus
from specviz.core.text import shortened
from specviz.engine.limits import POLICIES, is_real, is_whole
from specviz.engine.proposers.base import Proposer
from specviz.engine.theory import optimal_k

DEFAULT_THRESHOLD = 0.4  # transformers' default assistant_confidence_threshold
PROBE_EVERY = 8  # the optimal policy's probe: one drafted token every this many steps while its K is 0


@runtime_checkable
class DraftLength(Protocol):
    """What the engine consults: the K of the next step, and what happened in the last one."""

    name: str

    def reset(self) -> None: ...

    def next_k(self) -> int: ...

    def observe(self, drafted: int, accepted: int) -> None: ...


def _shown(value: object, digits: int | None = None) -> str:
    """A refused value for a sentence: a real number as typed (or to `digits` decimals), in the reader's number
    format; a whole number as typed (20, not 20.0; more than 30 digits in words); anything else as its repr."""
    if is_whole(value):
        return with_minus(str(value)) if abs(value) < 10**30 else _("a number of more than 30 digits")
    if not is_real(value):
        return repr(value)
    return with_minus(localized(repr(float(value)))) if digits is None else number(value, digits)


def _check_bounds(k_min: int, k_max: int) -> None:
    if not (is_whole(k_min) and is_whole(k_max) and 0 <= k_min <= k_max <= 16):
        raise ValueError(_("Draft-length bounds need 0 <= K min <= K max <= 16 (got {k_min} and {k_max}).",
                           k_min=_shown(k_min), k_max=_shown(k_max)))


class Constant:
    """Always draft `k` tokens."""

    name = "constant"

    def __init__(self, k: int):
        _check_bounds(k, k)
        self.k = k

    def reset(self) -> None:
        pass

    def next_k(self) -> int:
        return self.k

    def observe(self, drafted: int, accepted: int) -> None:
        pass


class Heuristic:
    """transformers' `num_assistant_tokens_schedule="heuristic"`: +2 after a fully accepted step, -1 otherwise (never
    below 1 there: `max(1, num_assistant_tokens - 1)`), kept within [k_min, k_max]. A step that drafted nothing (an
    n-gram miss) teaches nothing and changes nothing, so k_min is at least 1: at K = 0 the heuristic would never
    draft again (no step would teach it to grow), which is `Constant(0)`, plain decoding, said plainly.

    >>> h = Heuristic(start=4, k_max=8)
    >>> h.observe(4, 4); h.next_k()
    6
    >>> h.observe(6, 2); h.next_k()
    5
    """

    name = "heuristic"

    def __init__(self, start: int = 4, k_min: int = 1, k_max: int = 16, grow: int = 2, shrink: int = 1):
        if is_whole(k_min) and k_min < 1:  # K = 0 drafts nothing, so nothing is observed and K never grows again;
            # before the shared bounds, whose "0 <= K min" would let a K min of -1 be corrected to a refused 0
            raise ValueError(_("The heuristic's K min must be 1 or more: at K = 0 it drafts nothing and so never "
                               "learns to draft again (for plain decoding, use the constant policy with K = 0)."))
        _check_bounds(k_min, k_max)
        if not (is_whole(start) and k_min <= start <= k_max):
            raise ValueError(_("The starting K must lie between {k_min} and {k_max} (got {start}).", k_min=k_min,
                               k_max=k_max, start=_shown(start)))
        if not (is_whole(grow) and is_whole(shrink) and grow >= 0 and shrink >= 0):
            raise ValueError(_("The heuristic's steps must be whole numbers of 0 or more (got grow = {grow}, "
                               "shrink = {shrink}).", grow=_shown(grow), shrink=_shown(shrink)))
        self.start, self.k_min, self.k_max, self.grow, self.shrink = start, k_min, k_max, grow, shrink
        self.k = start

    def reset(self) -> None:
        self.k = self.start

    def next_k(self) -> int:
        return self.k

    def observe(self, drafted: int, accepted: int) -> None:
        if drafted == 0:
            return
        step = self.grow if accepted == drafted else -self.shrink
        self.k = min(self.k_max, max(self.k_min, self.k + step))


class OptimalK:
    """K from the formula: `optimal_k(α̂, c)`, with c measured beforehand and α̂ estimated as the generation goes.

    α̂ is the maximum-likelihood estimate under the formula's own i.i.d. model, smoothed by a prior worth
    `prior_weight` tested drafts: a step that accepted a of its drafts and then rejected one tested a + 1 drafts
    with a successes; a fully accepted step tested a drafts with a successes. When the formula says K = 0 (don't
    speculate), one token is still drafted every `probe_every` steps, so a poor early estimate can recover. With
    `one_pass` (a proposer whose one pass drafts the whole step: `registry.one_pass`, the Medusa heads and n-gram
    lookup) the formula charges c per step, not K·c (`theory.draft_cost`), so it picks k_max wherever α̂ + ... +
    α̂^k_max beats c.

    >>> p = OptimalK(c=0.05, alpha=0.8)
    >>> p.next_k()
    8
    >>> for _ in range(40): p.observe(8, 0)
    >>> p.next_k(), round(p.alpha, 3)
    (0, 0.038)
    >>> OptimalK(c=0.0002, alpha=0.37).next_k(), OptimalK(c=0.0002, alpha=0.37, one_pass=True).next_k()
    (8, 16)
    """

    name = "optimal"

    def __init__(self, c: float, alpha: float = 0.5, k_max: int = 16, prior_weight: float = 2.0,
                 probe_every: int = PROBE_EVERY, one_pass: bool = False):
        _check_bounds(0, k_max)
        if not (is_real(alpha) and is_real(c) and 0.0 <= alpha <= 1.0 and math.isfinite(c) and c >= 0):
            raise ValueError(_("The optimal-K policy needs 0 <= α <= 1 and a draft cost c >= 0 (got α = {alpha}, c = {c}).",
                               alpha=_shown(alpha, 3), c=_shown(c, 3)))
        if not (is_real(prior_weight) and 0 < prior_weight < math.inf and is_whole(probe_every) and probe_every >= 1):
            raise ValueError(_("The optimal-K policy needs a prior weight above 0 and a probe every 1 or more steps "
                               "(got {weight} and {every}).", weight=_shown(prior_weight), every=_shown(probe_every)))
        self.c, self.prior_alpha, self.k_max = c, alpha, k_max
        self.prior_weight, self.probe_every, self.one_pass = prior_weight, probe_every, bool(one_pass)
        self.reset()

    def reset(self) -> None:
        self.successes = self.prior_alpha * self.prior_weight
        self.trials = self.prior_weight
        self.idle_steps = 0

    @property
    def alpha(self) -> float:
        return self.successes / self.trials

    def next_k(self) -> int:
        k = optimal_k(self.alpha, self.c, k_max=self.k_max, one_pass=self.one_pass)
        if k == 0:
            self.idle_steps += 1
            if self.idle_steps % self.probe_every == 0:
                return 1
        return k

    def observe(self, drafted: int, accepted: int) -> None:
        if drafted == 0:
            return
        self.successes += accepted
        self.trials += accepted + (1 if accepted < drafted else 0)


class Threshold(Constant):
    """The "threshold" policy's K: a constant upper bound; the early stop is the proposer's (`confident`)."""

    name = "threshold"


def confident(proposer: Proposer, threshold: float = DEFAULT_THRESHOLD) -> Proposer:
    """The same proposer, stopping each chain proposal once the draft's top probability falls below `threshold`
    (a tree step drafts its whole tree: `propose_tree` never asks `Proposer.stops_here`).

    The confidence is the draft's own softmax (temperature 1, no top-k / top-p), so it also works under greedy
    decoding, where q itself is a point mass. The low-confidence position is not drafted: its forward is spent,
    the target decides that token instead. Shorter proposals change nothing about exactness: the verifier handles
    any number of drafts, including none. The copy shares the draft's weights but not its cache; `proposer` is left
    as it was. Only model proposers (a draft model, layer-skip, EAGLE, the Medusa heads) have a q to be confident
    in; n-gram lookup has none.
    """
    if not (is_real(threshold) and 0.0 <= threshold <= 1.0):
        raise ValueError(_("The confidence threshold must be between 0 and 1 (got {threshold}).",
                         threshold=_shown(threshold)))
    if not proposer.has_draft_probs:
        raise ValueError(_("The threshold policy needs a draft model's probabilities; '{name}' has none.",
                           name=proposer.name))
    twin = copy.copy(proposer)
    twin.stop_below = threshold
    twin.reset()  # its own cache (reset builds new state, never clears the original's)
    return twin


def make_policy(name: str, k: int, *, k_max: int = 16, c: float | None = None, alpha: float = 0.5,
                one_pass: bool = False) -> DraftLength:
    """The policy called `name`: "constant" and "threshold" fixed to K = `k`, "heuristic" starting at it;
    "optimal" needs the measured draft cost c and ignores `k` (its first K is `optimal_k` of the prior α and c),
    charging c per step for a proposer that drafts a step in one pass (`one_pass`), K·c for any other."""
    if name == "constant":
        return Constant(k)
    if name == "heuristic":
        return Heuristic(start=k, k_max=max(k, k_max))
    if name == "threshold":
        return Threshold(k)
    if name == "optimal":
        if c is None:
            raise ValueError(_("The optimal-K policy needs the measured draft cost c = draft forward / target "
                               "forward."))
        return OptimalK(c, alpha=alpha, k_max=k_max, one_pass=one_pass)
    raise ValueError(_("Unknown draft-length policy '{name}': choose one of {choices}.", name=shortened(str(name)),
                       choices=", ".join(POLICIES)))
