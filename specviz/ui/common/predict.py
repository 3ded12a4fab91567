"""Predict-then-reveal: before a step's verdicts are shown, the learner guesses how many of its drafts the target
will accept; once the step is revealed the guess is compared with what happened, and all guesses are scored.

One `Predictor` per page, named by the page's prefix (the Playground's is "playground"). It keeps the guesses in
`st.session_state[f"{prefix}_predictions"]` = {trace id: {step index: guess}}, so a guess belongs to one trace and
survives reruns; each guess is typed into the number input `f"{prefix}_predict_{trace id}_{step index}"`. A step
index is the step's position in `trace.steps`. A page calls, in order:

    predictor.ask(trace, trace_id, i)     while step i is still hidden (its drafts shown without verdicts)
    predictor.commit(trace_id, i)         in the callback that reveals step i (the typed guess is kept)
    predictor.outcome(trace, trace_id, i) next to the revealed step: "You predicted 2 accepted: it was 3."
    predictor.score(trace, trace_id)      the running score over every kept guess (specviz.teach.quiz)
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from specviz.core.i18n import N_, _, ngettext
from specviz.engine.trace import Trace
from specviz.teach.quiz import score_predictions


def predict_label(drafted: int) -> str:
    """The guess box's label for a step that drafted `drafted` tokens, its noun and verb agreeing with the count (a
    step may draft one token: "how many of the 1 drafted", "dos 1 rascunhados" read wrong)."""
    return ngettext("Predict: {n} token was drafted; how many will the target accept?",
                    "Predict: {n} tokens were drafted; how many will the target accept?", drafted)


@dataclass(frozen=True)
class Predictor:
    """Predict-then-reveal for one page; `prefix` is the page's widget-key prefix, `reveal` the label (an English
    message) of the page's button that reveals a step, which the guess box's placeholder names."""

    prefix: str
    reveal: str = N_("Next step")

    @property
    def state_key(self) -> str:
        return f"{self.prefix}_predictions"

    def widget_key(self, trace_id: str, step_index: int) -> str:
        return f"{self.prefix}_predict_{trace_id}_{step_index}"

    def guesses(self, trace_id: str) -> dict[int, int]:
        """The kept guesses for one trace: step index -> predicted number of accepted drafts."""
        return st.session_state.get(self.state_key, {}).get(trace_id, {})

    def ask(self, trace: Trace, trace_id: str, step_index: int) -> None:
        """The guess box for a step that is not revealed yet (nothing to ask when nothing was drafted, nor for a tree
        step: its `decisions` are only the main line the check walked, not the nodes it drafted, so "how many of these
        n" would count the wrong drafts and give the answer away, as `specviz.teach.quiz.live_questions` says)."""
        step = trace.steps[step_index]
        if step.decisions and step.tree is None:
            st.number_input(predict_label(len(step.decisions)), 0,
                            len(step.decisions), value=None, step=1, key=self.widget_key(trace_id, step_index),
                            placeholder=_("your guess, then {button}", button=_(self.reveal)))

    def commit(self, trace_id: str, step_index: int) -> None:
        """Keep the guess typed for this step, if any. Call it where the step is revealed, before the rerun that
        removes the guess box (Streamlit forgets a widget's value once the widget is gone)."""
        guess = st.session_state.get(self.widget_key(trace_id, step_index))
        if guess is not None:
            st.session_state.setdefault(self.state_key, {}).setdefault(trace_id, {})[step_index] = int(guess)

    def outcome(self, trace: Trace, trace_id: str, step_index: int) -> None:
        """One line under a revealed step: the guess against the number the target accepted (nothing if no guess)."""
        guess, step = self.guesses(trace_id).get(step_index), trace.steps[step_index]
        if guess is not None:
            if guess == step.n_accepted:
                st.markdown(_("You predicted **{guess}** accepted: exactly right.", guess=guess))
            else:
                st.markdown(_("You predicted **{guess}** accepted: it was {actual}.", guess=guess,
                              actual=step.n_accepted))

    def score(self, trace: Trace, trace_id: str) -> None:
        """A caption with the score over all kept guesses for this trace (nothing before the first guess)."""
        guesses = self.guesses(trace_id)
        if guesses:
            st.caption(_("Your predictions: {summary}", summary=score_predictions(dict(guesses), trace).summary()))
