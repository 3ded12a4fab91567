"""The guided path and the Quiz in Portuguese (issue 15): every lesson and the exit ticket, a graded check, the Quiz
on the concepts met and on all of them, a right and a wrong answer, a teacher's broken upload and live questions from
a trace, with no English sentence on the page (tests/i18n_check.py) and the Portuguese bank's questions; and the
quiz library's sentences (grading, the loader's refusals, live questions, predictions) in Portuguese."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from i18n_check import english_sentences, unformatted_numbers
from streamlit.testing.v1 import AppTest
from tests.ui.test_learn_page import _give, _wrong  # the same answering helpers as the English page tests
from tests.teach.test_quiz_live import toy_trace

from specviz.core.i18n import localized, using
from specviz.teach.learn import BY_NUMBER, LAST, LESSONS, check_questions, exit_ticket, parse_progress
from specviz.teach.quiz import BANK_DIR, QuizBankError, grade, live_questions, load_bank, parse_bank, score_predictions
from specviz.teach.quiz.run import QuizRun
from specviz.ui.common.escaping import escape_markdown

# Each page's states walked in Portuguese: make test runs them; make check keeps the catalog check and every
# page's first render in Portuguese (tests/core/test_i18n.py, tests/i18n/test_i18n_pages.py).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EN = load_bank([BANK_DIR])
PT = load_bank([BANK_DIR], lang="pt")


@pytest.fixture
def page(monkeypatch):
    """A page of this part opened in Portuguese: page("learn", lesson="3"). The test itself speaks Portuguese too:
    AppTest calls a widget's format_func in the test's thread to find an option's label, which must be the label the
    page drew."""
    monkeypatch.delenv("SPECVIZ_QUIZ_PATHS", raising=False)
    monkeypatch.chdir(ROOT)

    def open_page(name: str, **params: str) -> AppTest:
        at = AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=60)
        at.query_params["lang"] = "pt"
        at.query_params.update(params)
        at.run()
        _portuguese(at)
        return at

    with using("pt"):
        yield open_page


def _portuguese(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert english_sentences(at) == []
    assert unformatted_numbers(at) == []  # numbers drawn with a decimal point


# ---- the guided path ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lesson", [lesson.number for lesson in LESSONS])
def test_every_lesson_speaks_portuguese(page, lesson):
    at = page("learn", lesson=str(lesson))
    assert at.title[0].value == "Trilha guiada"
    assert at.subheader[0].value.startswith(f"Lição {lesson} de {LAST}: ")
    prompts = " ".join(m.value for m in at.markdown)
    assert all(q.prompt in prompts for q in check_questions(PT, BY_NUMBER[lesson]))  # the bank's Portuguese


def test_a_check_graded_right_and_wrong_and_tried_again_in_portuguese(page):
    at = page("learn", lesson="1")
    first, second = check_questions(PT, BY_NUMBER[1])
    # typed as the page writes it in Portuguese: since read 51 "142.857" there reads as 142857, grouped in thousands
    typed = first.answer
    if first.kind == "numeric":
        with using("pt"):
            typed = localized(str(first.answer))
    _give(at, f"learn_q1_{first.id}", first, typed)
    at.button(key=f"learn_q1_{first.id}_check").click().run()
    _portuguese(at)
    assert [s.value for s in at.success] == ["Correto."]
    _give(at, f"learn_q1_{second.id}", second, _wrong(second))
    at.button(key=f"learn_q1_{second.id}_check").click().run()
    _portuguese(at)
    assert at.error[0].value.startswith("Não exatamente.")
    assert at.button(key=f"learn_q1_{second.id}_again").label == "Tentar de novo"
    assert any(c.value.startswith("Tentada: 1 de 2 perguntas certas") for c in at.caption)
    at.button(key="learn_next").click().run()
    _portuguese(at)
    assert at.query_params["lang"] == "pt" and at.query_params["tried"] == "1" and "done" not in at.query_params


def test_the_exit_ticket_in_portuguese_scores_and_points_back(page):
    at = page("learn", lesson="ticket", done=",".join(map(str, range(1, LAST + 1))))
    ticket = exit_ticket(PT)
    assert at.subheader[0].value == "Bilhete de saída"
    assert [q.id for q in ticket] == [q.id for q in exit_ticket(EN)]  # the same questions in either language
    for q in ticket:
        _give(at, f"learn_ticket1_{q.id}", q, _wrong(q) if q.faq == "quality" else q.answer)
    at.form_submit_button[0].click().run()
    _portuguese(at)
    assert at.metric[0].value == "5 / 6" and at.metric[0].label == "Sua pontuação"
    assert at.button(key="learn_revisit_5").label.startswith("Lição 5: Exatidão")


def test_a_bad_link_is_explained_in_portuguese(page):
    at = page("learn", lesson="99")
    assert at.warning[0].value.endswith("então ela começa na lição 1\\.")  # shown escaped


def test_switching_language_keeps_the_answers_of_a_check(page):
    """The same question ids in both banks: a graded check follows the learner into the other language."""
    at = page("learn", lesson="3")
    question = check_questions(PT, BY_NUMBER[3])[0]
    _give(at, f"learn_q3_{question.id}", question, question.answer)
    at.button(key=f"learn_q3_{question.id}_check").click().run()
    at.session_state["specviz_language"] = "en"
    at.run()
    assert not at.exception
    assert at.subheader[0].value.startswith(f"Lesson 3 of {LAST}") and [s.value for s in at.success] == ["Correct."]
    assert at.session_state["learn_checks"][3].questions[0].prompt == EN.by_id()[question.id].prompt


# ---- the Quiz ----------------------------------------------------------------------------------------------------
def _quiz_key(at: AppTest, question) -> str:
    return f"quiz_r{at.session_state['quiz_round']}_{question.id}"


def test_the_quiz_with_nothing_met_then_all_concepts(page):
    at = page("quiz")
    assert at.info[0].value.startswith("Você ainda não viu nenhum conceito")
    at.button(key="quiz_widen").click().run()
    _portuguese(at)
    run = at.session_state["quiz_run"]
    assert run.questions[0].id == "ci-what-is" and run.questions[0].prompt == "O que é decodificação especulativa?"


def test_the_quiz_on_the_concepts_met_answered_right_then_wrong(page):
    at = page("quiz", lesson="3", done="1,2")
    assert "os 3 conceitos que você já viu" in " ".join(c.value for c in at.caption)
    run = at.session_state["quiz_run"]
    first = run.current()
    assert first.prompt == PT.by_id()[first.id].prompt
    _give(at, _quiz_key(at, first), first, first.answer)
    at.button(key=f"{_quiz_key(at, first).rsplit('_', 1)[0]}_check").click().run()
    _portuguese(at)
    assert [s.value for s in at.success] == ["Correto."]
    at.button(key=f"quiz_r{at.session_state['quiz_round']}_next").click().run()
    second = at.session_state["quiz_run"].current()
    _give(at, _quiz_key(at, second), second, _wrong(second))
    at.button(key=f"quiz_r{at.session_state['quiz_round']}_check").click().run()
    _portuguese(at)
    assert at.error[0].value.startswith("Não exatamente.")


def test_the_quiz_as_a_sheet_with_its_results(page):
    at = page("quiz")
    at.radio(key="quiz_scope").set_value("all").run()
    at.multiselect(key="quiz_concepts").set_value(["speedup"]).run()
    at.slider(key="quiz_count").set_value(2)
    at.radio(key="quiz_mode").set_value("As a sheet").run()
    questions = at.session_state["quiz_run"].questions
    _give(at, _quiz_key(at, questions[0]), questions[0], questions[0].answer)
    _give(at, _quiz_key(at, questions[1]), questions[1], _wrong(questions[1]))
    at.form_submit_button[0].click().run()
    _portuguese(at)
    assert at.metric[0].label == "Pontuação" and at.metric[0].value == "1 / 2"
    assert {b.label for b in at.get("download_button")} == {"Baixar resultados (CSV)", "Baixar resultados (JSON)",
                                                           "Baixar um arquivo de quiz de exemplo"}


def test_a_teachers_broken_upload_is_refused_in_portuguese(page):
    at = page("quiz")
    at.radio(key="quiz_scope").set_value("all").run()
    bad = yaml.safe_dump({"questions": [{"id": "t1", "concept": "accept_rule", "type": "single", "prompt": "?",
                                         "choices": ["A", "B"], "answer": "C", "explanation": "porque",
                                         "link": "pages/quiz.py"}]})
    at.file_uploader(key="quiz_upload").set_value(("turma.yaml", bad.encode(), "application/yaml")).run()
    _portuguese(at)
    # the sentence quotes the file's name and values, so it reaches the page markdown-escaped (a name such as
    # "[x](https://…).yaml" would otherwise be a live link): what a reader sees is the plain sentence
    assert [e.value for e in at.error] == [escape_markdown(
        "Arquivo de quiz 'turma.yaml', pergunta 't1': a resposta 'C' não é uma das suas alternativas.")]


def test_live_questions_from_a_trace_in_portuguese(page):
    at = page("quiz")
    at.radio(key="quiz_scope").set_value("all").run()
    at.slider(key="quiz_count").set_value(1).run()
    at.file_uploader(key="quiz_trace").set_value(("trace.json", toy_trace().to_json().encode(),
                                                  "application/json")).run()
    _portuguese(at)
    live = [q for q in at.session_state["quiz_run"].questions if q.source == "live"]
    assert live and all("passo" in q.prompt.lower() for q in live)


# ---- the library's sentences -------------------------------------------------------------------------------------
def test_the_read_32_fixes_speak_portuguese():
    """Read 32: a numeric key names the range the grader takes, in the reader's numbers; the live next-kind prompt
    says how many drafts the verifier tested; the exit ticket's retake says what it asks."""
    from specviz.ui.learn import questions as questions_view

    by_id = PT.by_id()
    with using("pt"):
        best = grade(by_id["ck-best-1"], "3").feedback
        assert best.endswith("A resposta é 9 (qualquer valor de 8 a 10 conta como certo).")
        assert "(qualquer valor de 0,395 a 0,405 conta como certo)" in grade(by_id["ar-prob-1"], "0,9").feedback
        prompts = [next(q for q in live_questions(toy_trace(), i, 0) if q.id.endswith("next-kind")).prompt
                   for i in range(3)]
        retake = questions_view._(questions_view.TEXT["retake_intro"])
    assert "O verificador testou 2 deles, em ordem a partir do primeiro: #1" in prompts[0]
    assert "O verificador os testou em ordem: #1" in prompts[1]
    assert "O verificador testou 1 deles, o primeiro: #1" in prompts[2]
    assert retake.startswith("Seis perguntas, cada uma sobre o mesmo conceito") and "dúvidas mais comuns" not in retake


def test_the_quiz_library_speaks_portuguese():
    with using("pt"):
        numeric = next(q for q in PT if q.kind == "numeric")
        assert grade(numeric, "palavra").feedback.startswith(
            "Isso não pode ser lido como número; escreva um como 0,25. A resposta é ")
        single = next(q for q in PT if q.kind == "single")
        assert grade(single, single.answer).feedback == "Correto."
        with pytest.raises(QuizBankError, match="não tem perguntas: ele precisa de uma lista 'questions:' com pelo"):
            parse_bank("concepts: {}", "turma.yaml")
        with pytest.raises(QuizBankError, match="perto da linha 2"):
            parse_bank("questions:\n  - &a {id: x}\n", "turma.yaml")
        verdict, ratio, kind, kept = live_questions(toy_trace(), 0, 0)
        assert verdict.choices == ("aceito", "rejeitado") and re.search(r"q = 0,\d", verdict.prompt)
        assert ratio.prompt.startswith("No passo 1, o rascunho propôs")
        assert kind.answer == "recuperado" and kept.explanation.startswith("Os palpites aceitos")
        summary = score_predictions({0: 1}, toy_trace()).summary()
        assert summary == "1 de 1 previsão exata; erro médio de 0,00 no número de palpites aceitos."
        assert parse_progress({"lesson": "onze"})[1].startswith("O link pediu a lição 'onze'")
        assert parse_progress({"lesson": "2", "done": "1,99"})[1] == (
            "A lista de lições concluídas do link cita a lição 99, que não está na trilha (lições 1 a 11), então a "
            "trilha começa na lição 1.")
        with pytest.raises(ValueError, match="Ordem de perguntas desconhecida"):
            QuizRun.start([], 0, order="random")
    assert grade(single, single.answer).feedback == "Correct."  # English again outside the block
