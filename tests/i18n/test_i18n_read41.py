"""The guided path read as a first-time student, in English and in Portuguese (issue 43, the 41st read).

The read rendered lessons 1 to 11 and the exit ticket in both languages, each "Try it" widget before and after one
interaction and each check after a right and a wrong answer, and found: lesson 4's prediction line (the Playground's
too) agreeing in the plural with any count ("Você previu **1** aceitos: foram 1"); and lesson 5 quoting its
greedy-identity checks on "held-out prompts" from runs of "different draft shapes", two names no lesson had
explained (draft shapes are lesson 9's subject, and no lesson said what held-out means).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from specviz.core.i18n import using
from specviz.teach.learn import LESSONS
from specviz.ui.common import predict


def _trace(accepted: int) -> SimpleNamespace:
    """What `Predictor.outcome` reads of a trace: its one step's count of accepted drafts."""
    return SimpleNamespace(steps=[SimpleNamespace(n_accepted=accepted)])


@pytest.mark.parametrize("guess, actual", [(1, 1), (0, 1), (1, 2), (2, 1), (2, 2)])
def test_the_prediction_line_agrees_with_its_counts_in_portuguese(monkeypatch, guess, actual):
    said: list[str] = []
    monkeypatch.setattr(predict.st, "markdown", said.append)
    monkeypatch.setattr(predict.Predictor, "guesses", lambda self, trace_id: {0: guess})
    with using("pt"):
        predict.Predictor("learn").outcome(_trace(actual), "t", 0)
    (line,) = said
    assert f"**{guess}**" in line and line.endswith(("exatamente certo.", f"aceitou {actual}."))
    assert "1** aceitos" not in line and "foram 1." not in line, line


@pytest.mark.parametrize("lang, held_out, shapes", [
    ("en", "held-out prompts (none of them in the draft's training data)",
     "different draft shapes (how many tokens a step guesses, and how: lesson 9)"),
    ("pt", "prompts reservados (nenhum deles nos dados de treino do rascunho)",
     "formas de rascunho diferentes (quantos tokens um passo adivinha, e como: lição 9)")])
def test_lesson_5_says_what_held_out_prompts_and_draft_shapes_are(lang, held_out, shapes):
    with using(lang):
        texts = {lesson.number: " ".join(lesson.shown_text().split()) for lesson in LESSONS}
    word = held_out.split(" (")[0]
    first = min(n for n, text in texts.items() if word in text)  # where the path first says it
    assert first == 5 and held_out in texts[5] and shapes in texts[5], texts[5][-900:]
