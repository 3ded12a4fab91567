"""Findings of the 45th read in the Quiz and Classroom pages, Portuguese; each test says what the read found."""

from __future__ import annotations

import re

import pytest

from specviz.core.i18n import using
from specviz.scripts.i18n import read_catalog
from specviz.teach.classroom_paced import distribution
from specviz.teach.quiz import ConceptMastery, Question
from specviz.ui.classroom.chart import distribution_figure
from specviz.ui.common import charts
from specviz.ui.common.quiz.view import mastery_table

QUIZ_CODE = ("specviz/teach/quiz/", "specviz/teach/classroom", "specviz/ui/classroom/", "specviz/ui/common/quiz/")


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_quiz_questions_choice_has_one_portuguese_name():
    """A question's choices were "alternativas" in the quiz (the shuffle help, "Tick every right choice", the grading
    sentences, the chart caption "alunos por alternativa") but "opção/opções" on the same chart's axis beside that
    caption, in the teacher-paced refusals and in the upload help: one thing, two names."""
    said = {}
    for message in read_catalog():
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        if any(path.startswith(QUIZ_CODE) for path, _line in message.locations) and \
                any(re.search(r"\bchoices?\b", i) for i in ids):
            said[ids[0]] = message.string if isinstance(message.string, str) else message.string[0]
    assert len(said) >= 8, said  # the grading sentences, the chart, the refusals, the help texts
    assert not [text for text in said.values() if re.search(r"\bopç(ão|ões)\b", text, re.IGNORECASE)], said
    assert said["choice"] == "alternativa"
    question = Question("x", "residual", "single", "?", "a", "", "pages/quiz.py", ("a", "b"))
    with using("pt"):
        table = charts.figure_table(distribution_figure(distribution(question, ["a", "b", "a"], []), 1, reveal=False))
    assert table.columns[0] == "alternativa"


def test_the_mastery_tables_share_column_says_share_of_right_answers_in_portuguese():
    """"Share right" read "Fração certa" ("the right/exact fraction"), as if the column held a correct fraction; it
    holds the share of right answers, as the chart's axis "% de acertos" says."""
    rows = [ConceptMastery("residual", "A distribuição residual", 1, 2, 3)]
    with using("pt"):
        table = mastery_table(rows)
    assert list(table.columns) == ["Conceito", "Certas / corrigidas", "Fração de acertos"]
    assert table.iloc[0].tolist() == ["A distribuição residual", "1/2", "50%"]
