"""The Classroom in Portuguese, and a class that mixes languages.

Every state of the page (the teacher's PIN gate locked and unlocked, starting a session of each pace, pushing, round
2, the reveal, the presenter view, the exports; a student's join with bad input, answering, the paced student's
screens) renders with no English sentence under `?lang=pt`; the library's refusals come out in Portuguese; and an
English and a Portuguese student who pick the same choice are counted as one answer, in the teacher-paced
distribution and on the self-paced dashboard.
"""

from __future__ import annotations

import hashlib

import pytest
from streamlit.testing.v1 import AppTest
from tests.ui.test_classroom_page import (PAGE, PIN, _ended_at_a_known_time,  # noqa: F401
                                          _ended_with_an_unreadable_answer, _html, db, far_zone)  # two fixtures

from specviz.core.i18n import using
from specviz.teach.classroom import ClassroomError, ClassroomStore, in_language
from specviz.teach.classroom_paced import PacedStore
from specviz.teach.quiz import answer_text, load_bank
from specviz.ui.classroom.teacher import PACES
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.common.escaping import escape_markdown
from tests.i18n_check import english_sentences, unformatted_numbers

# Each page's states walked in Portuguese: make test runs them; make check keeps the catalog check and every
# page's first render in Portuguese (tests/core/test_i18n.py, tests/i18n/test_i18n_pages.py).
pytestmark = pytest.mark.slow

EN, PT = load_bank(), load_bank(lang="pt")
SINGLE = next(q for q in EN.questions if q.kind == "single" and q.concept == "residual")
SINGLE_PT = PT.by_id()[SINGLE.id]


@pytest.fixture
def speak_pt():
    """The test speaks Portuguese too: AppTest calls a widget's format_func in the test's thread (on every run, for
    every widget), and it must give the page's Portuguese labels."""
    with using("pt"):
        yield


def _pt(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.query_params["lang"] = "pt"
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    _portuguese(at)
    return at


def _portuguese(at: AppTest) -> None:
    assert not at.exception, at.exception
    assert english_sentences(at) == []
    assert unformatted_numbers(at) == []  # numbers drawn with a decimal point


def _teacher_pt() -> AppTest:
    """The teacher's side, unlocked, in Portuguese (widgets with a format_func are set in the page's language)."""
    at = _pt()
    at.radio(key="classroom_role").set_value("the teacher").run()
    _portuguese(at)
    at.text_input(key="classroom_pin").input(PIN)
    at.form_submit_button[0].click().run()
    _portuguese(at)
    return at


def _wrong(question) -> str:
    return next(c for c in question.choices if c != question.answer)


def test_the_teacher_gate_speaks_portuguese_locked_and_with_a_wrong_pin(db, monkeypatch, speak_pt):
    at = _pt()
    at.radio(key="classroom_role").set_value("the teacher").run()
    _portuguese(at)
    at.text_input(key="classroom_pin").input("not-the-pin")
    at.form_submit_button[0].click().run()
    _portuguese(at)
    assert [e.value for e in at.error] == ["Esse PIN não está certo."]
    monkeypatch.delenv("SPECVIZ_TEACHER_PIN")
    at.run()
    _portuguese(at)
    assert "nenhum PIN" in at.warning[0].value


def test_a_self_paced_session_in_portuguese_from_the_start_to_the_presenter_view(db, speak_pt):
    at = _teacher_pt()
    assert at.expander[0].label == "Iniciar uma nova sessão"
    at.slider(key="classroom_count").set_value(3)
    at.button(key="classroom_start").click().run()
    _portuguese(at)
    code = at.session_state["classroom_session"]
    store = ClassroomStore(str(db))
    session = store.session(code)
    ana = store.join(code, "Ana")
    first = store.question_order(session, ana)[0]
    store.record_answer(ana.token, first.id, first.answer)
    at.run()
    _portuguese(at)
    assert {m.label for m in at.metric} == {"Alunos", "Respostas", "Fração de acertos"}
    assert "Baixar todas as respostas (CSV)" in {b.label for b in at.get("download_button")}
    at.button(key="classroom_end").click().run()
    _portuguese(at)
    at.button(key="classroom_end_confirm").click().run()
    _portuguese(at)
    assert any("foi encerrada" in i.value for i in at.info)
    at.button(key="classroom_present").click().run()
    _portuguese(at)
    assert "Esta sessão foi encerrada" in _html(at) + " ".join(m.value for m in at.markdown)


def test_a_teacher_paced_session_in_portuguese_push_round_two_reveal_and_presenter(db, speak_pt):
    at = _teacher_pt()
    at.radio(key="classroom_pace").set_value(PACES[1]).run()
    _portuguese(at)
    at.button(key="classroom_start").click().run()
    _portuguese(at)
    code = at.session_state["classroom_session"]
    assert any("Nada enviado ainda" in i.value for i in at.info)
    at.text_input(key="paced_search").input("residual").run()  # the teacher searches in their language
    _portuguese(at)
    at.selectbox(key="paced_pick").set_value(SINGLE.id).run()
    at.button(key="paced_push").click().run()
    _portuguese(at)
    store = PacedStore(str(db))
    push = store.current(code)
    assert push.question.id == SINGLE.id and any(m.value == SINGLE_PT.prompt for m in at.markdown)
    ana, ben = store.join(code, "Ana"), store.join(code, "Ben")
    store.answer(ana.token, push.id, 1, SINGLE_PT.answer)
    store.answer(ben.token, push.id, 1, _wrong(SINGLE))
    at.run()
    _portuguese(at)
    assert {m.label: m.value for m in at.metric}["Responderam"] == "2 de 2"
    at.button(key="paced_round_2").click().run()
    _portuguese(at)
    store.answer(ben.token, push.id, 2, SINGLE.answer)
    at.button(key="paced_reveal").click().run()
    _portuguese(at)
    assert {"Baixar as duas rodadas (CSV)", "Baixar a sessão (JSON)"} <= {b.label for b in
                                                                       at.get("download_button")}
    at.button(key="classroom_present").click().run()
    _portuguese(at)
    assert "Pergunta 1 · rodada 2 · respostas&#58; 1 de 2" in _html(at)  # not "1 de 2 responderam" (43rd read)
    assert any(m.value == SINGLE_PT.prompt for m in at.markdown)


def test_a_student_joins_and_answers_in_portuguese(db, speak_pt):
    session = ClassroomStore(str(db)).create_session(EN.select(["accept_rule"])[:2], "Turma 3")
    at = _pt()
    at.text_input(key="classroom_code").input("ZZ")
    at.text_input(key="classroom_name").input("Dee")
    at.form_submit_button[0].click().run()
    _portuguese(at)
    assert at.error[0].value.startswith("Um código de entrada tem 6 letras e algarismos")
    at.text_input(key="classroom_code").input(session.code)
    at.text_input(key="classroom_name").input("   ")
    at.form_submit_button[0].click().run()
    _portuguese(at)
    # the join form escapes its refusals (a taken name is quoted in them): the sentence as markdown shows it
    assert [e.value for e in at.error] == [escape_markdown("Por favor, informe um nome de exibição.")]
    at.text_input(key="classroom_name").input("Dee")
    at.form_submit_button[0].click().run()
    _portuguese(at)
    token = at.query_params["student"]
    store = ClassroomStore(str(db))
    first = store.next_question(session, store.student(token))
    shown = in_language(first, "pt")
    assert shown.prompt != first.prompt and any(m.value == shown.prompt for m in at.markdown)
    at.button(key="classroom_submit").click().run()
    _portuguese(at)
    key = f"classroom_{first.id}"
    if first.kind == "numeric":
        at.text_input(key=key).input(str(first.answer).replace(".", ","))
    else:
        at.radio(key=key).set_value(shown.answer)
    at.button(key="classroom_submit").click().run()
    _portuguese(at)
    assert store.answers(token)[first.id][1] is True  # stored right, in the session's (English) words
    if first.kind != "numeric":
        assert store.answers(token)[first.id][0] == first.answer
    at.button(key="classroom_next").click().run()
    _portuguese(at)


def test_a_paced_student_waits_answers_and_sees_the_reveal_in_portuguese(db, speak_pt):
    store = PacedStore(str(db))
    session = store.create_paced_session(EN.questions, "Aula 4")
    dee = store.join(session.code, "Dee")
    at = _pt({"student": dee.token})
    assert any("Esperando a primeira pergunta" in i.value for i in at.info)
    push = store.push(session.code, SINGLE)
    at.run()
    _portuguese(at)
    assert any(m.value == SINGLE_PT.prompt for m in at.markdown)
    at.radio(key=f"paced_{push.id}_1").set_value(_wrong(SINGLE_PT))
    at.button(key=f"paced_{push.id}_1_submit").click().run()
    _portuguese(at)
    assert store.my_answers(dee.token, push.id) == {1: (_wrong(SINGLE), False)}  # the English choice, same place
    held = next(i.value for i in at.info if "Sua resposta foi registrada" in i.value)  # shown back in Portuguese
    assert f"**{answer_text(_wrong(SINGLE_PT))}**" in held  # a choice is the bank's markdown, escaped by no one again
    store.start_round_2(session.code)
    at.run()
    _portuguese(at)
    at.radio(key=f"paced_{push.id}_2").set_value(SINGLE_PT.answer)
    at.button(key=f"paced_{push.id}_2_submit").click().run()
    store.reveal(session.code)
    at.run()
    _portuguese(at)


def test_an_english_and_a_portuguese_student_are_counted_together(db):
    store = PacedStore(str(db))
    paced = store.create_paced_session(EN.questions, "Mixed")
    push = store.push(paced.code, SINGLE)
    en, pt = store.join(paced.code, "Ann"), store.join(paced.code, "Bia")
    store.answer(en.token, push.id, 1, SINGLE.answer)
    store.answer(pt.token, push.id, 1, SINGLE_PT.answer)  # the Portuguese page sends the Portuguese text
    spread = store.distribution(store.current(paced.code))
    right = spread.labels.index(SINGLE.answer)
    assert spread.counts[0][right] == 2 and sum(spread.counts[0]) == 2 and spread.correct[0] == 2
    shown = store.distribution(store.current(paced.code), "pt")  # the same counts under the Portuguese choices
    assert shown.labels[right] == SINGLE_PT.answer and shown.counts == spread.counts

    # Self-paced: one question, two languages, one line on the dashboard.
    selfpaced = store.create_session([SINGLE], "Mixed, self-paced")
    ann, bia = store.join(selfpaced.code, "Ann"), store.join(selfpaced.code, "Bia")
    store.record_answer(ann.token, SINGLE.id, SINGLE.answer)
    store.record_answer(bia.token, SINGLE.id, SINGLE_PT.answer)
    [stat] = store.question_stats(store.session(selfpaced.code))
    assert (stat.question.id, stat.answered, stat.correct) == (SINGLE.id, 2, 2)
    assert {row["answer"] for row in store.export_rows(store.session(selfpaced.code))} == {SINGLE.answer}


def test_a_portuguese_teacher_session_reads_in_english_for_an_english_student(db):
    store = PacedStore(str(db))
    session = store.create_paced_session(PT.questions, "Aula")  # opened by a Portuguese teacher
    push = store.push(session.code, SINGLE_PT)
    ann = store.join(session.code, "Ann")
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.query_params["student"] = ann.token
    at.run()
    assert not at.exception and any(m.value == SINGLE.prompt for m in at.markdown)
    at.radio(key=f"paced_{push.id}_1").set_value(SINGLE.answer)
    at.button(key=f"paced_{push.id}_1_submit").click().run()
    assert store.my_answers(ann.token, push.id) == {1: (SINGLE_PT.answer, True)}


def test_a_live_question_is_pushed_with_its_translation(db):
    from specviz.labs.examples import list_examples, load_example
    from specviz.teach.classroom_paced import ask_the_class
    from specviz.ui.classroom.ask import translations

    trace, _ = load_example(list_examples()[0].name)
    step = next(i for i, s in enumerate(trace.steps) if s.decisions)
    question = ask_the_class(trace, step, seed=step)[0]
    store = PacedStore(str(db))
    session = store.create_paced_session(EN.questions[:1], "Live")
    push = store.push(session.code, question, translations(question, trace, step))
    assert push.shown("pt").prompt.startswith("O passo") and push.shown("en") == question
    bia = store.join(session.code, "Bia")
    store.answer(bia.token, push.id, 1, push.shown("pt").choices[1])
    assert store.my_answers(bia.token, push.id)[1][0] == question.choices[1]


def test_the_library_sentences_come_out_in_portuguese(db):
    store = ClassroomStore(str(db))
    with using("pt"):
        for code, name, start in [("ZZ", "Eve", "Um código de entrada tem 6 letras"),
                                  ("ABCDEF", "Eve", "Não há sessão com o código ABCDEF")]:
            try:
                store.join(code, name)
            except ClassroomError as exc:
                assert str(exc).startswith(start), str(exc)
            else:
                raise AssertionError("joined")
        from specviz.teach.classroom import PinGuard

        guard = PinGuard(clock=lambda: 0.0)
        for _attempt in range(5):
            guard.attempt("c", "wrong-pin", PIN)
        try:
            guard.attempt("c", PIN, PIN)
        except ClassroomError as exc:
            assert str(exc) == "PINs errados demais vindos deste dispositivo; aguarde 30 segundos, por favor."
        else:
            raise AssertionError("not locked")


def test_ask_the_class_speaks_portuguese_for_the_teacher(db, speak_pt):
    from specviz.ui.classroom.paced_teacher import ACTIVE

    store = PacedStore(str(db))
    session = store.create_paced_session(EN.questions, "Aula")
    at = AppTest.from_file(PAGE.replace("classroom.py", "playground.py"), default_timeout=60)
    at.query_params["lang"] = "pt"
    at.session_state[ACTIVE] = session.code
    at.session_state["classroom_teacher"] = hashlib.sha256(PIN.encode()).hexdigest()
    at.run()
    assert not at.exception
    ask = at.button(key="playground_ask")
    assert ask.label.startswith("Perguntar à turma")
    ask.click().run()
    assert not at.exception and any("Enviada para a sessão" in s.value for s in at.success)
    push = store.current(session.code)
    assert push.shown("en").prompt.startswith("Step") and push.shown("pt").prompt.startswith("O passo")


def _fragment_rerun() -> None:
    """A fragment's timed rerun: a fresh script thread (English by default) in a session that chose Portuguese."""
    import streamlit as st

    from specviz.core.i18n import _, set_language
    from specviz.ui.classroom import view
    from specviz.ui.common.frame import LANG_KEY

    st.session_state[LANG_KEY] = "pt"
    set_language("en")
    view.one_sentence(lambda: st.markdown(_("Classroom")))()


def test_a_fragment_rerun_speaks_the_session_language():
    at = AppTest.from_function(_fragment_rerun, default_timeout=30).run()
    assert not at.exception and [m.value for m in at.markdown] == ["Sala de aula"]


def test_the_portuguese_lesson_plan_names_the_same_questions_lessons_and_pages():
    import re
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs"
    english, portuguese = (docs / "teaching.md").read_text(), (docs / "teaching.pt-BR.md").read_text()
    for pattern in (r"`([a-z]{2}-[a-z0-9-]+)`", r"/learn\?lesson=(\w+)", r"\(`/(\w+)`\)"):
        assert set(re.findall(pattern, portuguese)) == set(re.findall(pattern, english)), pattern
    with using("pt"):  # the buttons it names are the page's Portuguese labels
        from specviz.core.i18n import _

        for label in ("Start a new session", "Find a question", "Push to the class", "Reveal the answer",
                      "Start round 2 (after the discussion)", "Download both rounds (CSV)", "Mastery per concept",
                      "Join address shown on the projector"):
            assert _(label) in portuguese or _(label).lower() in portuguese.lower(), _(label)


def test_a_student_submitting_and_a_teacher_pushing_have_different_portuguese_labels():
    """Both read "Enviar" in Portuguese once: on the Classroom page a student's Submit and the teacher's Push (to the
    class, or to a session from the Playground's Ask the class) are different actions and need different words."""
    from specviz.core.i18n import _

    with using("pt"):
        submit = _("Submit")
        pushes = [_("Push to the class"), _("Push to session {code}", code="ABCD")]
    assert submit == "Enviar resposta"
    assert all(submit != push and not push.startswith(submit) for push in pushes), (submit, pushes)


def test_a_paced_students_number_is_read_back_the_portuguese_way(db, speak_pt):
    """Read 32: a paced student's numeric answer came back as Python wrote it ("Sua resposta foi registrada: 2.5",
    then "3.0" for a typed 3), with a decimal point on a Portuguese page; it reads 2,5 now, in round 1's echo, the
    held answer and the answers under the reveal alike."""
    numeric = next(q for q in EN.questions if q.kind == "numeric" and q.id == "sp-speedup-1")
    store = PacedStore(str(db))
    session = store.create_paced_session(EN.questions, "Aula 5")
    dee = store.join(session.code, "Dee")
    push = store.push(session.code, numeric)
    at = _pt({"student": dee.token})
    at.text_input(key=f"paced_{push.id}_1").input("2,5")
    at.button(key=f"paced_{push.id}_1_submit").click().run()
    _portuguese(at)
    held = next(i.value for i in at.info if "Sua resposta foi registrada" in i.value)
    assert "**2,5**" in held and "2.5" not in held, held
    store.start_round_2(session.code)
    at.run()
    assert any("Na rodada 1 você respondeu: 2,5" in c.value for c in at.caption), [c.value for c in at.caption]
    at.text_input(key=f"paced_{push.id}_2").input("3")
    at.button(key=f"paced_{push.id}_2_submit").click().run()
    store.reveal(session.code)
    at.run()
    _portuguese(at)
    answers = next(c.value for c in at.caption if c.value.startswith("Suas respostas"))
    assert "rodada 1: 2,5" in answers and "rodada 2: 3 " in answers and "3.0" not in answers, answers


def test_the_counts_in_the_teachers_labels_agree_in_portuguese_whatever_the_number():
    """43rd read: "Round {n} ({answered} answered)" read "Rodada 1 (1 responderam)" and "Question to push ({n}
    found)" read "Pergunta a enviar (1 encontradas)": a plural verb or adjective after a count of one. The labels
    now put the count after a colon, which agrees with any count."""
    from specviz.core.i18n import _
    from specviz.ui.classroom import chart, paced_teacher

    with using("pt"):
        assert _(chart.TEXT["round_n"], n=1, answered=1) == "Rodada 1 (respostas: 1)"
        assert _(paced_teacher.TEXT["pick"], n=1) == "Pergunta a enviar (encontradas: 1)"


def test_the_projector_and_the_hardest_questions_agree_with_one_answer_in_portuguese():
    """43rd read: the projector's status read "1 de 30 responderam" and the teacher's hardest-questions list "1/3
    erraram" (a plural verb after one); both now put the count after a colon. The how-many explanation read "1 de 3
    foram mantidos" and, at K = 1, "todos os 1 foram mantidos" ("all 1 were kept"): now "o passo manteve 1 de 3"."""
    from specviz.core.i18n import _
    from specviz.teach.classroom_paced.text import TEXT as PACED
    from specviz.ui.classroom.presenter import TEXT as PRESENTER

    with using("pt"):
        status = _(PRESENTER["status"], number=1, round=1, answered=1, students=30, time="0:10")
        assert status == "Pergunta 1 · rodada 1 · respostas: 1 de 30 · 0:10"
        assert _("{missed}/{answered} missed", missed=1, answered=3) == "erraram: 1/3"
        why = [_(PACED[key], verdicts="#1 a: aceito", kept=1, k=1, accepted=1, n=1) for key in PACED
               if key.startswith("how_many_why")]
    assert len(why) == 4 and all("foram mantidos" not in w and "todos os 1" not in w for w in why)
    with using("pt"):  # "só 1 dos 3 palpites aceitos chegaram": a plural verb after one
        cut = _(PACED["how_many_why_cut"], verdicts="#1 a: aceito", kept=1, accepted=3, n=1)
    assert "então recebeu só 1 dos 3 palpites aceitos," in cut and "chegaram" not in cut
    assert sum("o passo manteve 1 de 1" in w.lower() for w in why) == 3
    assert _(PACED["how_many_why_bonus"], verdicts="#1 a: accepted", k=1) == (
        "#1 a: accepted. No draft was rejected, so the step kept 1 of 1, and a bonus token from p came free.")


def test_a_students_progress_and_the_ordering_prompt_agree_with_one_in_portuguese():
    """Read 44: the student's progress bar read "1 de 10 respondidas" and an ordering question's prompt "1 de 3
    posicionados" (a plural participle after a count of one), the pattern the 43rd read fixed on the projector.
    Both now put the count after the word, which agrees with any count."""
    from specviz.core.i18n import _

    with using("pt"):
        assert _("{answered} of {total} answered", answered=1, total=10) == "respondidas: 1 de 10"
        assert _("Place every item first: {placed} of {total} placed.", placed=1, total=3) == (
            "Posicione todos os itens primeiro: posicionados 1 de 3.")


def test_an_ended_session_with_an_unreadable_answer_promises_no_whole_csv_in_portuguese(db, monkeypatch, speak_pt):
    """Read 45: "o CSV acima ainda tem todas as respostas" sat beside "fica fora ... das exportações"."""
    _ended_with_an_unreadable_answer(db)
    at = _teacher_pt()
    shown = " ".join([i.value for i in at.info] + [c.value for c in at.caption])
    assert "1 resposta guardada não pôde ser lida; ela fica fora dos gráficos e das exportações." in shown
    assert "Os resultados continuam aqui e no CSV acima: encerrar a sessão não apaga nenhuma resposta." in shown
    assert "todas as respostas" not in shown


def test_a_damaged_class_database_is_one_portuguese_sentence_with_no_sqlite_text(db, speak_pt):
    """Read 48: the database's catch-all sentence quoted SQLite's own English in the middle of the Portuguese one
    ("não pode ser usado (file is not a database)"); SQLite's words go to the server's log now."""
    db.write_bytes(b"this file is not a class database " * 64)
    at = _pt()
    assert [e.value for e in at.error] == ["O banco de dados da turma não pode ser usado; o log do servidor diz qual é "
                                           "o arquivo e o motivo."]
    assert "database" not in " ".join(e.value for e in at.error) and str(db) not in " ".join(e.value for e in at.error)


def test_the_teachers_times_say_utc_in_portuguese(db, far_zone, speak_pt):
    """Read 48: "encerrada às 22:46" was the server's local clock, with no zone a teacher elsewhere could read."""
    code = _ended_at_a_known_time(db)
    at = _teacher_pt()
    assert any(f"A sessão {code} foi encerrada em 2001-09-09 01:46 UTC:" in i.value for i in at.info)
    shown = at.selectbox(key="classroom_session").format_func(code)
    assert shown == f"{code} · Period 3 · encerrada em 2001-09-09 01:46 UTC"
    students = next(d.value for d in at.dataframe if "nome" in d.value.columns)
    assert list(students["última resposta (UTC)"]) == ["2001-09-09 01:46:40"]
