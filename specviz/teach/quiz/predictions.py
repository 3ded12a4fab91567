"""Predict-then-reveal: a learner guesses how many drafts each step accepts before seeing it, and gets a score.

`score_predictions` compares the guesses with a `Trace` step by step (`StepPrediction`) and sums them up
(`PredictionScore`: exact share, mean error, and whether the learner leans optimistic or pessimistic).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from specviz.core.i18n import _, ngettext, number
from specviz.engine.limits import is_whole
from specviz.engine.trace import Trace


@dataclass(frozen=True)
class StepPrediction:
    """A learner's guess of how many drafts step `step` accepts, next to what happened."""

    step: int
    predicted: int
    actual: int
    drafted: int

    @property
    def exact(self) -> bool:
        return self.predicted == self.actual

    @property
    def error(self) -> int:
        """predicted - actual: positive means the guess was too optimistic."""
        return self.predicted - self.actual


@dataclass(frozen=True)
class PredictionScore:
    """All scored predictions, plus the keys that could not be scored (not a step of this trace, or not a whole
    number between 0 and that step's K, or a tree step)."""

    results: tuple[StepPrediction, ...]
    ignored: tuple[int, ...] = ()

    @property
    def n_exact(self) -> int:
        return sum(r.exact for r in self.results)

    @property
    def exact_rate(self) -> float:
        return self.n_exact / len(self.results) if self.results else math.nan

    @property
    def mean_abs_error(self) -> float:
        return sum(abs(r.error) for r in self.results) / len(self.results) if self.results else math.nan

    @property
    def bias(self) -> float:
        """Mean signed error in drafts: > 0 means the learner expects more acceptance than happens."""
        return sum(r.error for r in self.results) / len(self.results) if self.results else math.nan

    def summary(self) -> str:
        """One sentence for the learner."""
        if not self.results:
            return _("No predictions yet.")
        values = {"exact": self.n_exact, "error": number(self.mean_abs_error)}  # English says "1 of 1 predictions"
        if self.bias > 0.25:
            return ngettext("{exact} of {n} predictions exact; off by {error} drafts on average and tend to be "
                            "optimistic.", "{exact} of {n} predictions exact; off by {error} drafts on average and "
                            "tend to be optimistic.", len(self.results), **values)
        if self.bias < -0.25:
            return ngettext("{exact} of {n} predictions exact; off by {error} drafts on average and tend to be "
                            "pessimistic.", "{exact} of {n} predictions exact; off by {error} drafts on average and "
                            "tend to be pessimistic.", len(self.results), **values)
        return ngettext("{exact} of {n} predictions exact; off by {error} drafts on average.",
                        "{exact} of {n} predictions exact; off by {error} drafts on average.", len(self.results),
                        **values)


def score_predictions(predictions: dict[int, int], trace: Trace) -> PredictionScore:
    """Score predict-then-reveal guesses. `predictions` maps a step's position in `trace.steps` to the predicted
    number of accepted drafts (0..K, the bonus/recovered token not counted). Bad entries are ignored, not raised, and
    so is a guess for a tree step, which is never asked (`specviz.ui.common.predict.Predictor.ask`): its `decisions`
    hold only the main line the check walked, not the K drafts of a chain.

    >>> from specviz.engine.trace import Step, Trace
    >>> t = Trace("speculative", {}, [], [], [Step(0, 0, 0, "demo", [], [])])
    >>> score_predictions({0: 0, 7: 1}, t).summary()
    '1 of 1 predictions exact; off by 0.00 drafts on average.'
    """
    results, ignored = [], []
    steps_first = sorted(predictions.items(), key=lambda kv: (0, kv[0]) if is_whole(kv[0]) else (1, 0))
    for key, guess in steps_first:  # by step, then the other keys as given (str() of 10**5000 would raise)
        step = trace.steps[key] if is_whole(key) and 0 <= key < len(trace.steps) else None  # True is no step
        if step is None or step.tree is not None or not is_whole(guess) or not 0 <= guess <= len(step.decisions):
            ignored.append(key)
            continue
        results.append(StepPrediction(key, guess, step.n_accepted, len(step.decisions)))
    return PredictionScore(tuple(results), tuple(ignored))
