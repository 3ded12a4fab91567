"""Teacher-paced classroom under AppTest: the teacher opens a teacher-paced session, searches, pushes, opens round
2 and reveals; a student's screen follows with no feedback until the reveal; the presenter view has the QR code and
the join link; the QR's link fills in the code; the Playground's "Ask the class" shows only for the teacher."""

from __future__ import annotations

import doctest
import hashlib
import json
from types import SimpleNamespace
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from messages import lead
from test_classroom_page import PIN, _as_teacher, _html, _keys, _page, db  # noqa: F401 - db is a fixture

from specviz.core import i18n
from specviz.core.i18n import using
from specviz.teach.classroom_paced import PacedStore, distribution
from specviz.teach.quiz import Question, load_bank
from specviz.teach.quiz.grading import answer_sentence
from specviz.ui.classroom import ask as ask_view
from specviz.ui.classroom import paced_student
from specviz.ui.classroom import paced_teacher
from specviz.ui.classroom import teacher
from specviz.ui.classroom.chart import distribution_figure
from specviz.ui.classroom.paced_teacher import ACTIVE
from specviz.ui.common.escaping import escape_text

ROOT = Path(__file__).resolve().parents[2]
BANK = load_bank()
SINGLE = next(q for q in BANK.questions if q.kind == "single" and q.concept == "residual")


def _wrong(question):
    return next(c for c in question.choices if c != question.answer)


def _chart_labels(at) -> str:
    """The charts' labels and legends, as the browser gets them."""
    return " ".join(json.dumps(json.loads(c.proto.spec), ensure_ascii=False) for c in at.get("plotly_chart"))


def _paced(db, students=("Ana", "Ben", "Cy")):
    store = PacedStore(db)
    session = store.create_paced_session(BANK.questions, "Lecture 4")
    return store, session, [store.join(session.code, name) for name in students]


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_the_teacher_pushes_watches_opens_round_two_and_reveals(db):
    at = _as_teacher(PIN)
    at.radio(key="classroom_pace").set_value(teacher.PACES[1]).run()
    assert "classroom_count" not in {s.key for s in at.slider}  # the whole pool, no count
    at.button(key="classroom_start").click().run()
    code = at.session_state["classroom_session"]
    store = PacedStore(db)
    assert store.is_paced(code) and at.session_state[ACTIVE] == code
    assert any(lead(paced_teacher.TEXT["nothing_yet"]) in i.value for i in at.info)

    at.text_input(key="paced_search").input("residual").run()
    picker = at.selectbox(key="paced_pick")
    found = [q for q in BANK.questions if any(" ".join(q.prompt.split())[:60] in o for o in picker.options)]
    assert SINGLE in found and all("residual" in f"{q.concept} {q.prompt} {q.id}".lower() for q in found)
    at.selectbox(key="paced_pick").set_value(SINGLE.id).run()
    at.button(key="paced_push").click().run()
    assert not at.exception and not at.error
    push = store.current(code)
    assert push.question.id == SINGLE.id and push.round == 1

    ana, ben, _ = (store.join(code, n) for n in ("Ana", "Ben", "Cy"))
    store.answer(ana.token, push.id, 1, SINGLE.answer)
    store.answer(ben.token, push.id, 1, _wrong(SINGLE))
    at.run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Answered"] == "2 of 3" and metrics["Round"] == "1" and ":" in metrics["Time"]
    assert "✓" not in _chart_labels(at)  # the room may see the chart: no right answer marked yet
    who = next(d.value for d in at.dataframe if "name" in d.value.columns)
    assert list(zip(who["name"], who["round 1"], strict=True)) == [("Ana", "✓"), ("Ben", "✓"), ("Cy", "–")]

    at.button(key="paced_round_2").click().run()
    assert store.current(code).round == 2 and {m.label: m.value for m in at.metric}["Answered"] == "0 of 3"
    assert at.text_input(key="paced_search").value == "residual"  # issue 42 item 8: the filter outlives round 2
    assert at.selectbox(key="paced_pick").value == SINGLE.id
    store.answer(ben.token, push.id, 2, SINGLE.answer)
    at.button(key="paced_reveal").click().run()
    assert not at.exception and store.current(code).revealed
    assert answer_sentence(SINGLE) in [s.value for s in at.success] and SINGLE.explanation in [i.value for i in at.info]
    assert "✓" in _chart_labels(at) and "Round 2 (1 answered)" in _chart_labels(at)
    assert {"Download both rounds (CSV)", "Download the session (JSON)"} <= {b.label for b in
                                                                           at.get("download_button")}
    mastery = next(d.value for d in at.dataframe if "concept" in d.value.columns)
    # read 49: each round 1 column says which pushes it covers
    assert list(mastery.columns) == ["concept", "questions", "round 1 right, every push",
                                     "round 1 right, pushes with a round 2", "round 2 right"]
    assert [mastery[c][0] for c in mastery.columns[2:]] == ["1/2 (50%)", "1/2 (50%)", "1/1 (100%)"]
    assert at.button(key="paced_round_2").disabled and at.button(key="paced_reveal").disabled


def test_an_ended_session_with_nothing_pushed_offers_no_picker_and_no_csv(db):
    """An ended session draws no picker and no export: the panel must not say "pick a question above" nor point to a
    CSV above (the fifth read of the classroom's sentences)."""
    at = _as_teacher(PIN)
    at.radio(key="classroom_pace").set_value(teacher.PACES[1]).run()
    at.button(key="classroom_start").click().run()
    code = at.session_state["classroom_session"]
    PacedStore(db).close_session(code)
    at.run()
    infos = " ".join(i.value for i in at.info)
    assert lead(paced_teacher.TEXT["nothing_pushed"]) in infos and lead(paced_teacher.TEXT["nothing_yet"]) not in infos
    assert f"Session {code} ended: students can no longer join or answer." in infos and "CSV" not in infos
    assert "paced_push" not in _keys(at)
    assert not [b for b in at.get("download_button") if "CSV" in b.label or "JSON" in b.label]
    # read 54: the docs said every ended session keeps its CSV export; they now name this case in both languages
    docs = {name: " ".join((ROOT / "docs" / name).read_text(encoding="utf-8").split())
            for name in ("classroom.md", "teaching.md", "teaching.pt-BR.md")}
    assert "a teacher-paced one ended with nothing pushed has no answers" in docs["classroom.md"]
    assert "(a session in which nothing was pushed has no answers, and no exports)" in docs["teaching.md"]
    assert "(uma sessão em que nada foi enviado não tem respostas, nem exportações)" in docs["teaching.pt-BR.md"]


def test_an_ended_session_names_both_its_downloads(db):
    """Read 55: an ended teacher-paced session said its results stay "here and in the CSV above", but its panel offers
    a JSON download too; it names both (the self-paced dashboard, with its CSV only, keeps its sentence)."""
    store, session, _students = _paced(db)
    store.push(session.code, SINGLE)
    store.close_session(session.code)
    at = _as_teacher(PIN)
    infos = " ".join(i.value for i in at.info)
    assert ("Its results stay here and in the CSV and JSON downloads above: ending the session deletes no answer."
            in infos) and "in the CSV above" not in infos
    assert {b.label for b in at.get("download_button")} >= {"Download both rounds (CSV)", "Download the session (JSON)"}
    with using("pt"):
        said = i18n._("Session {code} ended: students can no longer join or answer. Its results stay here and in the "
                      "CSV and JSON downloads above: ending the session deletes no answer.", code="X")
    assert "continuam aqui e nos arquivos CSV e JSON para baixar acima" in said


def test_a_student_follows_the_pushes_with_no_feedback_until_the_reveal(db):
    store, session, (ana, *_) = _paced(db)
    at = _page({"student": ana.token})
    assert any(lead(paced_student.TEXT["waiting"]) in i.value for i in at.info)
    push = store.push(session.code, SINGLE)
    at.run()  # the fragment's timer does this every 2 s in a browser
    assert any(m.value == SINGLE.prompt for m in at.markdown)
    at.radio(key=f"paced_{push.id}_1").set_value(_wrong(SINGLE))
    at.button(key=f"paced_{push.id}_1_submit").click().run()
    assert not at.error and not at.success  # held: no "Correct" / "Not quite"
    assert any(lead(paced_student.TEXT["held"]) in i.value for i in at.info)
    assert store.my_answers(ana.token, push.id) == {1: (_wrong(SINGLE), False)}

    store.start_round_2(session.code)
    at.run()
    assert any("Round 2: talk it over" in w.value for w in at.warning)
    at.radio(key=f"paced_{push.id}_2").set_value(SINGLE.answer)
    at.button(key=f"paced_{push.id}_2_submit").click().run()
    store.reveal(session.code)
    at.run()
    assert [s.value for s in at.success] == ["Correct."] and SINGLE.explanation in [i.value for i in at.info]
    assert any("round 1:" in c.value and "✗" in c.value and "✓" in c.value for c in at.caption)
    store.close_session(session.code)  # issue 27 item 1: students were not told the session had ended
    at.run()
    assert [s.value for s in at.success][0] == "This session has ended. Thank you for taking part!"
    assert "Correct." in [s.value for s in at.success]  # the last answer stays readable under it


def test_a_graded_answer_from_round_1_says_so_under_round_2(db):
    """Read 50: a student who answered in round 1 only read "Question 1 · round 2" over "Correct." after the reveal,
    with nothing saying that the answer graded was their round 1 answer; now the caption gives it by round."""
    store, session, (ana, *_) = _paced(db)
    push = store.push(session.code, SINGLE)
    store.answer(ana.token, push.id, 1, SINGLE.answer)
    store.start_round_2(session.code)
    store.reveal(session.code)
    at = _page({"student": ana.token})
    assert any(m.value == "**Question 1** · round 2" for m in at.markdown)
    assert [s.value for s in at.success] == ["Correct."]
    assert [c.value for c in at.caption if c.value.startswith("Your answers")] == [
        f"Your answers: round 1: {SINGLE.answer} ✓"]


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_held_answer_that_ends_a_sentence_gets_no_second_full_stop(db, lang):
    assert SINGLE.id == "rs-why" and SINGLE.answer.endswith("p.")  # issue 27 item 11: "…the total is p.."
    store, session, (ana, *_) = _paced(db)
    push = store.push(session.code, SINGLE)
    at = _page({"student": ana.token, "lang": lang})
    with using(lang):
        answer = push.shown().answer  # in the student's language, ending "p." in both
    at.radio(key=f"paced_{push.id}_1").set_value(answer)
    at.button(key=f"paced_{push.id}_1_submit").click().run()
    held = [i.value for i in at.info if "**" in i.value]
    assert len(held) == 1
    shown = held[0].replace("\\", "").replace("**", "")  # as the reader sees it: no escapes, no bold marks
    assert answer + " " in shown and ".." not in shown, shown


def test_a_held_order_is_read_back_with_the_arrows_the_chart_and_the_key_use(db):
    """Read 54: a student's held order read "A | B | C" while the spread chart, the JSON export and the right order
    join the items with " → "; one separator now, on the held answer and on round 2's reminder."""
    ordering = BANK.by_id()["ci-round-order"]
    store, session, (ana, *_) = _paced(db)
    push = store.push(session.code, ordering)
    order = list(reversed(ordering.answer))
    store.answer(ana.token, push.id, 1, order)
    at = _page({"student": ana.token})
    held = [i.value for i in at.info if i.value.startswith("Your answer is in")]
    assert held and " → ".join(order) in held[0].replace("\\", "") and " | " not in held[0], held
    store.start_round_2(session.code)
    at.run()
    said = [c.value for c in at.caption if c.value.startswith("In round 1")]
    assert said and said[0].replace("\\", "").endswith(" → ".join(order)), said


def test_a_live_labels_echo_is_escaped_once(db):
    """Read 32: a live question's labels are markdown already (the token text escaped when the question was made),
    and the student's echo escaped them again, so "#1 '**'" read back as "#1 '\\*\\*'" with the backslashes
    showing. The echo now escapes only what is not the question's own choice text."""
    label = "#1 '\\*\\*'"  # as live.py writes a drafted "**": each star escaped once
    question = Question("live-s1-kept", "first_disagreement", "single", "Which?", label, "Why.", "pages/playground.py",
                        (label, "#2 ' a'"), shuffle=False, source="live")
    store, session, (ana, *_) = _paced(db)
    push = store.push(session.code, question)
    at = _page({"student": ana.token})
    at.radio(key=f"paced_{push.id}_1").set_value(label)
    at.button(key=f"paced_{push.id}_1_submit").click().run()
    held = [i.value for i in at.info if i.value.startswith("Your answer is in")]
    assert held and held[0].startswith(f"Your answer is in: **{label}**"), held
    store.start_round_2(session.code)
    at.run()
    assert [c.value for c in at.caption if c.value.startswith("In round 1")] == [f"In round 1 you answered: {label}"]
    at.radio(key=f"paced_{push.id}_2").set_value("#2 ' a'")
    at.button(key=f"paced_{push.id}_2_submit").click().run()
    store.reveal(session.code)
    at.run()
    both = [c.value for c in at.caption if "round 1:" in c.value]
    assert both and f"round 1: {label} ✓" in both[0] and "round 2: #2 ' a' ✗" in both[0], both
    assert paced_student._echo(question, 0.5) == "0\\.5"  # what is not a choice is still escaped, once


def test_a_students_submit_counts_even_when_the_refresh_stops_the_run_before_the_button(db, monkeypatch):
    """The question area refreshes itself every POLL_SECONDS; on a busy server a refresh can stop the run carrying a
    click before the body reaches the button (the teacher's round buttons lost clicks that way under load). Submit
    acts in its callback, which runs before any body: here the click's run draws no question area at all."""
    store, session, (ana, *_) = _paced(db)
    push = store.push(session.code, SINGLE)
    at = _page({"student": ana.token})
    at.radio(key=f"paced_{push.id}_1").set_value(_wrong(SINGLE))
    with monkeypatch.context() as patched:  # the click's run stopped before the question area drew anything
        patched.setattr(paced_student, "current_question", lambda store, student: None)
        at.button(key=f"paced_{push.id}_1_submit").click().run()
    assert not at.exception
    assert store.my_answers(ana.token, push.id) == {1: (_wrong(SINGLE), False)}
    at.run()  # the next refresh shows it held
    assert any(lead(paced_student.TEXT["held"]) in i.value for i in at.info)


@pytest.mark.parametrize("kind", ["multiple", "ordering", "numeric"])
def test_each_kind_of_answer_is_read_back_by_the_submit_callback(db, kind):
    question = next(q for q in BANK.questions if q.kind == kind)
    store, session, (ana, *_) = _paced(db)
    push = store.push(session.code, question)
    at = _page({"student": ana.token})
    key = f"paced_{push.id}_1"
    shown = question.options(push.id) if kind != "numeric" else None
    if kind == "multiple":
        right = [i for i, c in enumerate(shown) if c in question.answer]
        for i in right:
            at.checkbox(key=f"{key}_{i}").check()
        at.run()
    elif kind == "ordering":
        for item in question.answer:
            at.button(key=f"{key}_item_{shown.index(item)}").click().run()
    else:
        at.text_input(key=key).input(str(question.answer)).run()
    at.button(key=f"{key}_submit").click().run()
    assert not at.exception and not at.warning and not at.error
    assert store.my_answers(ana.token, push.id)[1][1] is True  # stored, and right


def test_the_submit_callbacks_warning_speaks_the_students_language(db):
    store, session, (ana, *_) = _paced(db)
    push = store.push(session.code, SINGLE)
    at = _page({"student": ana.token, "lang": "pt"})
    at.button(key=f"paced_{push.id}_1_submit").click().run()
    with using("pt"):
        blank = i18n._(paced_student.TEXT["blank"])
    assert blank != paced_student.TEXT["blank"] and [w.value for w in at.warning] == [blank]


def test_submitting_nothing_is_one_sentence_and_a_late_round_one_answer_is_not_counted(db):
    store, session, (ana, *_) = _paced(db)
    push = store.push(session.code, SINGLE)
    at = _page({"student": ana.token})
    at.button(key=f"paced_{push.id}_1_submit").click().run()
    assert [w.value for w in at.warning] == ["Give an answer first."]
    at.radio(key=f"paced_{push.id}_1").set_value(SINGLE.answer)
    store.start_round_2(session.code)  # the teacher moved on while the student was choosing
    at.button(key=f"paced_{push.id}_1_submit").click().run()
    assert not at.exception and any("Round 2: talk it over" in w.value for w in at.warning)
    assert store.my_answers(ana.token, push.id) == {}  # the screen shows round 2; round 1 took nothing late


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_round_two_tells_a_student_with_no_round_one_answer_to_answer_not_to_answer_again(db, lang):
    """Read 51: a student who gave no answer in round 1 was told in round 2 to "answer again" and that they "may
    change their mind", with no answer to change; one who answered is still told so, under their round 1 answer."""
    store, session, (ana, ben, *_) = _paced(db)
    push = store.push(session.code, SINGLE)
    store.answer(ben.token, push.id, 1, SINGLE.answer)
    store.start_round_2(session.code)
    said = {}
    for student in (ana, ben):
        at = _page({"student": student.token, "lang": lang})
        said[student.name] = [w.value for w in at.warning]
    if lang == "pt":
        assert said["Ana"] == ["Rodada 2: converse com seu colega ao lado e dê sua resposta. Você não respondeu na "
                               "rodada 1, então esta é sua primeira resposta a esta pergunta."]
        assert said["Ben"] == ["Rodada 2: converse com seu colega ao lado e responda de novo. Você pode mudar de "
                               "ideia."]
    else:
        assert said["Ana"] == ["Round 2: talk it over with your neighbour, then give your answer. You did not answer "
                               "in round 1, so this is your first answer to this question."]
        assert said["Ben"] == ["Round 2: talk it over with your neighbour, then answer again. You may change your "
                               "mind."]


def test_the_qr_link_fills_in_the_code(db):
    _, session, _ = _paced(db, ())
    at = _page({"code": session.code.lower()})
    assert at.text_input(key="classroom_code").value == session.code.lower()
    at.text_input(key="classroom_name").input("Dee")
    at.form_submit_button[0].click().run()
    assert at.query_params["student"] and "code" not in at.query_params


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_presenter_view_shows_the_question_the_count_and_the_join_qr(db):
    store, session, (ana, *_) = _paced(db)
    push = store.push(session.code, SINGLE)
    store.answer(ana.token, push.id, 1, SINGLE.answer)
    at = _as_teacher(PIN)
    at.button(key="classroom_present").click().run()
    shown = _html(at)
    assert '<img src="data:image/png;base64,' in shown and f"/classroom?code={session.code}" in shown
    assert "Question 1 · round 1 · 1 of 3 answered" in shown
    assert any(m.value == SINGLE.prompt for m in at.markdown) and "paced_push" not in _keys(at)
    assert "✓" not in _chart_labels(at)


def test_an_ended_sessions_presenter_view_waits_for_no_question_and_offers_no_join(db):
    """An ended session keeps its presenter view, but nothing will be pushed and nobody can join: it said "The first
    question appears here when it is pushed." under "This session has ended." and showed "Scan to join" with the QR
    code (read 43)."""
    from specviz.ui.classroom import presenter
    store, session, _ = _paced(db)
    store.close_session(session.code)
    at = _as_teacher(PIN)
    at.button(key="classroom_present").click().run()
    shown = _html(at)
    assert presenter.TEXT["ended"] in shown and presenter.TEXT["waiting"] not in shown
    assert presenter.TEXT["join"] not in shown and "<img" not in shown and "/classroom?code=" not in shown


def test_an_unrevealed_questions_timer_stops_when_the_session_ends(db):
    """A question left unrevealed when the session ended took no answers after it, yet its timer kept counting on
    the dashboard and the presenter view (read 43): it stops at the session's end."""
    import sqlite3
    store, session, _ = _paced(db)
    store.push(session.code, SINGLE)
    store.close_session(session.code)
    with sqlite3.connect(db) as conn:  # round 1 ran 1:05, and the session ended an hour ago
        conn.execute("UPDATE sessions SET ended_at = 1000065.0 WHERE code = ?", (session.code,))
        conn.execute("UPDATE pushes SET round_started_at = 1000000.0 WHERE code = ?", (session.code,))
    at = _as_teacher(PIN)
    assert {m.label: m.value for m in at.metric}["Time"] == "1:05"
    at.button(key="classroom_present").click().run()
    assert escape_text("Question 1 · round 1 · 0 of 3 answered · 1:05", whitespace=False) in _html(at)


def _playground(**state):
    at = AppTest.from_file(str(ROOT / "pages" / "playground.py"), default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


@pytest.mark.slow  # the Playground page under AppTest: about 5 s on 2 cores
def test_ask_the_class_pushes_the_coming_step_for_the_teacher_only(db):
    store, session, _ = _paced(db)
    at = _playground(**{ACTIVE: session.code})  # no PIN in this browser: no button
    assert not at.exception and "playground_ask" not in {b.key for b in at.button}
    at.session_state["classroom_teacher"] = hashlib.sha256(PIN.encode()).hexdigest()  # unlocked on the Classroom page
    at.run()
    ask = at.button(key="playground_ask")
    assert ask.label.startswith("Ask the class: ") and ask.label.endswith(" were drafted; how many will be kept?")
    ask.click().run()
    assert not at.exception and any(lead(ask_view.TEXT["pushed"]) in s.value for s in at.success)
    push = store.current(session.code)
    assert push.question.id.endswith("how-many") and push.question.source == "live"


def test_the_chart_escapes_choices_and_marks_the_right_one_only_after_the_reveal():
    question = Question("x", "residual", "single", "?", "<img src=x onerror=alert(1)>", "", "pages/quiz.py",
                        ("<img src=x onerror=alert(1)>", "**bold**"))
    dist = distribution(question, ["**bold**"], [])
    hidden = json.dumps(distribution_figure(dist, 1, reveal=False).to_plotly_json(), ensure_ascii=False)
    shown = json.dumps(distribution_figure(dist, 1, reveal=True).to_plotly_json(), ensure_ascii=False)
    assert "<img" not in hidden and "&lt;img" in hidden and "✓" not in hidden and "✓ &lt;img" in shown


def test_the_timer_reads_minutes_and_seconds_and_stops_at_the_reveal():
    assert doctest.testmod(paced_teacher).failed == 0
    push = SimpleNamespace(round_started_at=100.0, revealed_at=161.0)
    assert paced_teacher.elapsed(push, now=10_000.0) == "1:01"


def _push_without_the_pin(db_path: str, code: str) -> None:
    """A dashboard whose PIN no longer holds (the fragment reruns without the page's PIN gate) tries to push."""
    from specviz.teach.classroom_paced import PacedStore
    from specviz.teach.quiz import load_bank
    from specviz.ui.classroom import paced_teacher as classroom_paced_teacher
    from specviz.ui.classroom import view as classroom_view

    classroom_paced_teacher._act(PacedStore(db_path).push, code, load_bank().questions[0])


def _round_buttons_without_the_pin(db_path: str, code: str) -> None:
    """The round buttons' callbacks in a session whose PIN no longer holds: refused, the sentence kept for the panel."""
    from specviz.teach.classroom_paced import PacedStore
    from specviz.ui.classroom import paced_teacher as classroom_paced_teacher
    from specviz.ui.classroom import view as classroom_view

    store = PacedStore(db_path)
    for move in (store.start_round_2, store.reveal):
        classroom_paced_teacher._act_on_click(move, code)
        classroom_view.show_kept(classroom_paced_teacher.REFUSED_KEY)


def test_only_the_teacher_can_push_open_round_two_or_reveal(db):
    store, session, _ = _paced(db, ())
    at = AppTest.from_function(_push_without_the_pin, args=(str(db), session.code), default_timeout=30).run()
    refused = "Only the teacher can do that; please unlock the teacher view with the PIN."
    assert [e.value for e in at.error] == [refused]
    assert store.current(session.code) is None
    push = store.push(session.code, SINGLE)
    at = AppTest.from_function(_round_buttons_without_the_pin, args=(str(db), session.code), default_timeout=30).run()
    assert [e.value for e in at.error] == [refused, refused]
    assert store.current(session.code).round == 1 and not store.current(session.code).revealed and push.round == 1
    student = _page()  # the student side of the page has no teacher controls at all
    assert not {"paced_push", "paced_reveal"} & _keys(student)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_refused_round_button_speaks_the_teachers_language(db):
    """Read 47: the round buttons' callback did not speak the session's language first, so a move refused there (the
    answer revealed from another tab, then Start round 2 pressed here) kept its sentence in English on a Portuguese
    dashboard."""
    store, session, _ = _paced(db, ())
    store.push(session.code, SINGLE)
    at = AppTest.from_file(str(ROOT / "pages" / "classroom.py"), default_timeout=30)
    at.query_params.update({"as": "teacher", "session": session.code, "lang": "pt"})
    at.session_state["classroom_teacher"] = hashlib.sha256(PIN.encode()).hexdigest()  # given the PIN
    at.run()
    store.reveal(session.code)  # in another tab
    with using("pt"):  # AppTest calls the role switch's format_func (`_`) in the test's thread
        at.button(key="paced_round_2").click().run()
        said = i18n._("The answer has already been revealed; push the question again for a new vote.")
    assert not at.exception and said.startswith("A resposta") and [e.value for e in at.error] == [said]


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_join_address_that_gives_no_link_is_one_sentence_and_keeps_the_last_good_one(db):
    """The dashboard's join address: 'http://[::1' made urlsplit raise under reach_warning, a traceback on the
    teacher's screen; now it, and an address without http(s) or with a ?query, is refused in one sentence
    (translated: the Portuguese differs and names the same address), and the QR code keeps the last good address."""
    from specviz.ui.classroom import presenter

    at = _as_teacher(PIN)
    at.radio(key="classroom_pace").set_value(teacher.PACES[1]).run()
    at.button(key="classroom_start").click().run()
    good = "http://192.168.1.20:8501"
    at.text_input(key=presenter.INPUT_KEY).input(good).run()
    assert at.session_state[presenter.BASE_KEY] == good and not at.error
    for bad in ("http://[::1", "192.168.1.20:8501", "http://192.168.1.20:8501/?x=1", "http://class room:8501",
                "http://192.168.1.20:0",  # a host with a space, port 0: no link a phone opens either
                "http://192.168.1.20:8501?", "http://192.168.1.20:8501/#"):  # read 31: an empty ? or # was kept,
        # and the QR link became http://…:8501?/classroom?code=…, which opens the app's first page, not the class
        at.text_input(key=presenter.INPUT_KEY).input(bad).run()
        assert not at.exception, bad
        said = [e.value for e in at.error if e.value.startswith("A join address looks like")]
        assert len(said) == 1 and "192\\.168\\.1\\.20" in said[0], (bad, [e.value for e in at.error])
        assert at.session_state[presenter.BASE_KEY] == good
        assert at.text_input(key=presenter.INPUT_KEY).value == good
    with using("pt"):
        pt = i18n._(presenter.TEXT["bad_base"], base=good)
    assert pt.startswith("Um endereço de entrada") and good in pt


def test_the_portuguese_join_box_and_its_address_note_name_the_qr_code_alike():
    """Read 46: the projector's image was "Código QR do link de entrada" while the note under a refused address said
    "o QR code continua com ...": two names for one picture in one panel (docs/teaching.pt-BR.md says "código QR")."""
    from specviz.ui.classroom import presenter

    with using("pt"):
        alt = i18n._(presenter.TEXT["qr_alt"])
        note = i18n._(presenter.TEXT["bad_base"], base="http://192.168.1.20:8501")
    assert alt.startswith("Código QR") and "o código QR continua" in note and "QR code" not in note


def test_the_lecture_plans_say_ask_the_class_needs_the_pin_in_its_own_tab():
    """Read 31: both plans said "Ask the class" appears "only in the browser where you gave the PIN and opened the
    session", beside a third projector tab for the Playground. The PIN and the open session live in the tab's own
    Streamlit session (st.session_state), so a third tab showed no button until it too was unlocked; the plans now
    say each tab asks for the PIN and how to bring the session into the projector's tab."""
    import inspect

    assert "st.session_state.get(ACTIVE)" in inspect.getsource(ask_view.active_session)
    assert 'st.session_state.get("classroom_teacher")' in inspect.getsource(teacher.is_teacher)
    for name, said in (("teaching.md", "Each browser tab is its own session and asks for the PIN once; the \"Ask the "
                                       "class\" button appears on the Playground only in a tab that was given the PIN "
                                       "and has the session open"),
                       ("teaching.pt-BR.md", "Cada aba do navegador é uma sessão própria e pede o PIN uma vez; o botão "
                                             "\"Perguntar à turma\" aparece no Playground só numa aba que recebeu o "
                                             "PIN e tem a sessão aberta")):
        text = " ".join((ROOT / "docs" / name).read_text(encoding="utf-8").split())
        assert said in text and "only in the browser where" not in text, name


def _in_order(node) -> list[str]:
    """The keys of the widgets under `node`, in the order the page draws them."""
    found = [node.key] if getattr(node, "key", None) else []
    for child in getattr(node, "children", {}).values():
        found += _in_order(child)
    return found


@pytest.mark.parametrize("lang, plan", [("en", "teaching.md"), ("pt", "teaching.pt-BR.md")])
def test_the_plans_find_the_join_address_where_a_fresh_session_draws_it(db, lang, plan):
    """Read 40: step 3 of the plans' "Before the class" sent the teacher to the join address "under the chart" right
    after starting the session, when nothing is pushed yet and the dashboard draws no chart. The field sits at the
    foot of the dashboard, above the presenter button; the plans now say so, with both labels in their language."""
    from specviz.ui.classroom import presenter

    at = _page({"lang": lang})
    with using(lang):  # the radios' options are shown through `_`, in the page's language
        at.radio(key="classroom_role").set_value("the teacher").run()
        at.text_input(key="classroom_pin").input(PIN)
        at.form_submit_button[0].click().run()
        at.radio(key="classroom_pace").set_value(teacher.PACES[1]).run()
        at.button(key="classroom_start").click().run()
    assert not at.exception and not at.get("plotly_chart")  # nothing pushed: no chart to be under
    keys = _in_order(at.main)
    assert keys.index(presenter.INPUT_KEY) < keys.index("classroom_present")
    assert keys[-1] in ("classroom_present", "classroom_end")  # the two buttons in the dashboard's last row
    text = " ".join((ROOT / "docs" / plan).read_text(encoding="utf-8").split())
    field, button = at.text_input(key=presenter.INPUT_KEY).label, at.button(key="classroom_present").label
    said = {"en": f"**{field}**, at the foot of the dashboard above **{button}**",
            "pt": f"**{field}**, no fim do painel, acima de **{button}**"}[lang]
    assert said in text and "(under the chart)" not in text and "(abaixo do gráfico)" not in text


def test_the_legend_keys_wear_no_right_answer_outline_and_the_table_reads_only_the_bars():
    """Read 44 (screenshots slice): Plotly draws a bar trace's legend key with its first bar's outline, so when the
    right choice came first both rounds' keys in the revealed chart wore the green "right answer" outline. The keys
    are now traces of their own with no outline and no point; the table under the chart reads only the bars."""
    from specviz.ui.common.charts import figure_table
    from specviz.ui.common.palette import BLUISH_GREEN

    question = Question("x", "residual", "single", "?", "A", "", "pages/quiz.py", ("A", "B"))
    dist = distribution(question, ["A", "A", "B"], ["A", "A", "A"])
    fig = distribution_figure(dist, 2, reveal=True)
    keys = [t for t in fig.data if t.showlegend is not False]
    bars = [t for t in fig.data if t.showlegend is False]
    assert len(keys) == 2 and len(bars) == 2 and [k.name for k in keys] == [b.name for b in bars]
    assert all(k.marker.line.width == 0 and list(k.x) == [None] for k in keys)
    assert all(list(b.marker.line.color)[0] == BLUISH_GREEN for b in bars)  # the right choice, first, is outlined
    # in a browser a first trace of None points made the choices axis numeric (no bar drawn), and each key took a
    # slot of its own in the group: the axis is categorical and a key shares its round's slot
    assert fig.layout.yaxis.type == "category"
    assert [k.offsetgroup for k in keys] == [b.offsetgroup for b in bars] == ["round1", "round2"]
    table = figure_table(fig)
    assert list(table.columns)[1:] == [b.name for b in bars] and table.iloc[:, 1:].values.tolist() == [["2", "3"],
                                                                                                       ["1", "0"]]


def _controls(block) -> list[str]:
    """The keys of the buttons and inputs inside `block`, in page order: where Join can land the keyboard."""
    found = []
    for child in getattr(block, "children", {}).values():
        if type(child).__name__ in ("Button", "TextInput", "Radio", "Checkbox", "Multiselect", "NumberInput"):
            found.append(child.key)
        found += _controls(child)
    return found


def test_joining_before_the_first_push_lands_nowhere_a_second_enter_could_leave(db):
    """Read 48: Join lands the keyboard on the first control in the student's view (accessibility.LANDINGS); before
    the teacher's first push that was "Not you? Leave this session", so a second Enter left at once, and the name
    stayed taken. The way out is below that view now, and it asks first."""
    store, session, _students = _paced(db, students=())
    at = _page({"join": session.code})
    at.text_input(key="classroom_name").input("Dee")
    at.form_submit_button[0].click().run()
    token = at.query_params["student"]
    view_block = next(b for b in at.main.children.values() if getattr(b, "key", None) == "classroom_student")
    assert _controls(view_block) == []  # Join lands on the view itself: its waiting text
    assert any(lead(paced_student.TEXT["waiting"]) in i.value for i in at.info)
    for _press in range(2):  # Enter, and Enter again, on the way out
        at.button(key="classroom_leave").click().run()
        assert not at.exception and at.query_params["student"] == token
    assert any(f"Leave session {session.code}?" in w.value for w in at.warning)
    at.button(key="classroom_leave_cancel").click().run()
    assert at.query_params["student"] == token and "classroom_leave_confirm" not in _keys(at)
    at.button(key="classroom_leave").click().run()
    at.button(key="classroom_leave_confirm").click().run()
    assert not at.exception and "student" not in at.query_params
    assert {t.key for t in at.text_input} >= {"classroom_name"}  # back at the join form


def test_no_sliver_of_a_bar_sits_beside_the_graders_range_and_the_table_lists_the_range():
    """Read 48: an edge of the equal ranges a hair below the grader's range (1.8999 for 2 ± 0.1) drew a bar
    "1.9–1.9" beside "1.9–2.1", holding two wrong answers under a label that read as the right one. That edge is
    dropped; every bar's two ends read apart, the range is a row of the chart's table (marked once revealed), and
    each bar stays thick enough to tap and read on a 390 px phone."""
    from specviz.ui.common.charts import figure_table

    q = Question("d", "speedup", "numeric", "?", 2.0, "", "pages/quiz.py", tolerance=0.1)
    answers = [0.0, 1.0, 1.8999, 1.89995, 2.0, 3.0, 5.0, 7.0, 9.0, 11.3994]
    spread = distribution(q, answers, [])
    ranges = [label.split("–") for label in spread.labels if "–" in label]
    assert ranges and all(len(ends) == 2 and ends[0] != ends[1] for ends in ranges), spread.labels
    assert spread.labels[spread.right.index(True)] == "1.9–2.1"
    assert sum(spread.counts[0]) == len(answers)
    for reveal, row in ((False, "1.9–2.1"), (True, "✓ 1.9–2.1")):
        fig = distribution_figure(spread, 1, reveal)
        table = figure_table(fig)
        assert row in list(table.iloc[:, 0]) and list(table.iloc[:, 1]) == [str(c) for c in spread.counts[0]]
        per_bar = (fig.layout.height - 80) / len(spread.labels) * (1 - fig.layout.bargap)
        assert per_bar >= 24  # px: each bar's thickness, whatever the screen's width


@pytest.mark.parametrize("lang, interval, vague", [("en", "every 2 seconds", "a couple of seconds"),
                                                   ("pt", "a cada 2 segundos", "poucos segundos")])
def test_nothing_pushed_yet_gives_the_phones_poll_not_an_unmeasured_time(db, lang, interval, vague):
    """Read 48: the teacher's "Nothing pushed yet" promised every screen switches "within a couple of seconds" (the
    Portuguese "em poucos segundos"), a time nothing measures (docs/classroom.md; read 46 fixed the same promise in
    the teaching plans). It now says a phone shows a push at its next check, every POLL_SECONDS, later while a live
    model run keeps the server busy."""
    store, session, _ = _paced(db, ())
    at = AppTest.from_file(str(ROOT / "pages" / "classroom.py"), default_timeout=30)
    at.query_params.update({"as": "teacher", "session": session.code, "lang": lang})
    at.session_state["classroom_teacher"] = hashlib.sha256(PIN.encode()).hexdigest()  # given the PIN
    with using(lang):  # AppTest calls the role switch's format_func (`_`) in the test's thread
        at.run()
    said = [i.value for i in at.info if i.value.startswith(("Nothing pushed yet", "Nada enviado ainda"))]
    assert not at.exception and len(said) == 1
    assert interval in said[0] and vague not in said[0] and ("model run" in said[0] or "modelo" in said[0])


@pytest.mark.slow  # 0.7-1 s a language: make test runs it, make check stays under a minute
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_two_orders_that_differ_only_at_the_end_are_two_bars(lang):
    """Read 49: an ordering's bar label was its items joined, cut after four lines, so the right order of
    ci-round-order and the one with its last two items swapped read alike ("… giving p at K+1 positions. → The …"),
    Plotly drew them as one bar (1 and 2 answers on one spot) and the table under the chart kept one row. Long items
    are cut to their first words now, and every order of the question's items is a bar of its own."""
    import itertools

    from specviz.teach.classroom import in_language
    from specviz.ui.common.charts import figure_table

    with using(lang):
        question = in_language(BANK.by_id()["ci-round-order"], lang)
        right = list(question.answer)
        swapped = right[:3] + [right[4], right[3]]
        fig = distribution_figure(distribution(question, [right, swapped, swapped], []), 1, reveal=False)
        (bars,) = [t for t in fig.data if t.showlegend is False]
        assert len(set(bars.y)) == 2 and list(bars.x) == [1, 2]
        assert figure_table(fig).iloc[:, 1].tolist() == ["1", "2"]
        for other in ("kv-order", "ci-round-order"):
            shown = in_language(BANK.by_id()[other], lang)
            orders = [list(p) for p in itertools.permutations(shown.answer)]
            for start in range(0, len(orders), 6):  # six orders a chart, as distribution() keeps
                fig = distribution_figure(distribution(shown, orders[start:start + 6], []), 1, reveal=False)
                labels = next(t for t in fig.data if t.showlegend is False).y
                assert len(set(labels)) == len(labels)


@pytest.mark.slow  # about 1 s a language: make test runs it, make check stays under a minute
@pytest.mark.parametrize("lang, heads", [
    ("en", ("answer (value or range of values)", "order given", "choice")),
    ("pt", ("resposta (valor ou faixa de valores)", "ordem dada", "alternativa"))])
def test_the_chart_says_what_a_bar_is_for_a_number_and_an_order(db, lang, heads):
    """Read 50: a numeric question's bars ("141.357–144.357", "far above: over 1,571") and an ordering's ("a → b →
    c") were headed "choice" on the chart's axis and in the table under it, and both the dashboard's and the
    projector's charts were named "students per choice"; now each kind names its bars, on both screens."""
    numeric = next(q for q in BANK.questions if q.kind == "numeric")
    ordering = next(q for q in BANK.questions if q.kind == "ordering")
    store, session, (ana, ben, _cy) = _paced(db)
    seen = 0
    for question, head in zip((numeric, ordering, SINGLE), heads, strict=True):
        push = store.push(session.code, question)
        right = list(question.answer) if question.kind == "ordering" else question.answer
        wrong = right[::-1] if question.kind == "ordering" else _wrong(question) if question.kind == "single" else (
            question.answer * 3 + 1)
        store.answer(ana.token, push.id, 1, right)
        store.answer(ben.token, push.id, 1, wrong)
        for present in (False, True):
            at = AppTest.from_file(str(ROOT / "pages" / "classroom.py"), default_timeout=30)
            at.query_params.update({"as": "teacher", "session": session.code, "lang": lang})
            at.session_state["classroom_teacher"] = hashlib.sha256(PIN.encode()).hexdigest()  # given the PIN
            at.run()
            if present:
                with using(lang):  # AppTest calls the role switch's format_func (`_`) in the test's thread
                    at.button(key="classroom_present").click().run()
            assert not at.exception
            (chart,) = at.get("plotly_chart")
            assert json.loads(chart.proto.spec)["layout"]["yaxis"]["title"]["text"] == head
            assert [t.value.index.name for t in at.table] == [head]  # "The numbers in this chart"
            named = (f"How the class answered: students per {head}, each round" if lang == "en" else
                     f"Como a turma respondeu: alunos por {head}, em cada rodada")
            assert escape_text(named, whitespace=False) in _html(at), (lang, head, present)
            seen += 1
    assert seen == 6  # three kinds of question, each on the dashboard and the projector


@pytest.mark.parametrize("rounds", [1, 2])
def test_four_long_choices_each_get_room_for_their_four_label_lines(rounds):
    """Read 50: the teacher's chart for "What is speculative decoding?" (four choices, each wrapped to four lines)
    gave each choice 62 px, and Plotly, which centres a label on its slot without keeping labels apart, drew each one
    into the next at 1400 px ("A way to compress a large model" over "at a small cost in quality"). A slot is now at
    least as tall as its label's lines (1.3 font sizes a line, Plotly's) and a gap."""
    question = next(q for q in load_bank().questions if q.prompt == "What is speculative decoding?")
    dist = distribution(question, [question.choices[0]], [question.choices[1]] if rounds == 2 else [])
    fig = distribution_figure(dist, rounds, reveal=True)
    labels = list(fig.data[1].y)
    lines = max(label.count("<br>") + 1 for label in labels)
    assert lines == 4 and len(labels) == 4
    slot = (fig.layout.height - fig.layout.margin.t - fig.layout.margin.b) / len(labels)
    assert slot >= lines * 1.3 * 14 + 16, slot  # 69.5 px before: 4 lines of a 14 px font are 73 px


def test_the_presenter_chart_grows_with_six_four_line_choices():
    """Read 51: the presenter view drew its chart at a fixed 660 px whatever the question, so six choices whose
    labels wrap to four lines, at its 22 px font and two rounds, got (660 − 80) / 6 ≈ 97 px a slot where four lines
    take 4 × 1.3 × 22 ≈ 114 px and a gap: the labels ran into each other. Its height now comes from the bars and
    the labels' lines, 660 px still its least."""
    from specviz.ui.classroom import presenter
    from specviz.ui.classroom.chart import LABEL_GAP, LINE_EM

    long = [f"Choice {i}: " + " ".join(["a draft token kept by the target's verify pass"] * 4) for i in range(6)]
    question = Question("six-long", "first_disagreement", "single", "Which?", long[0], "Why.", "pages/learn.py",
                        tuple(long), shuffle=False)
    dist = distribution(question, [long[0], long[1]], [long[0]])
    fig = distribution_figure(dist, 2, reveal=False, font_size=22, min_height=presenter.CHART_HEIGHT)
    lines = [label.count("<br>") + 1 for label in fig.data[1].y]
    assert lines == [4] * 6
    slot = (fig.layout.height - 80) / 6  # the margins and legend take 80 px
    assert slot >= round(4 * LINE_EM * 22) + LABEL_GAP and fig.layout.height > presenter.CHART_HEIGHT
    short = distribution(question.__class__("two", "first_disagreement", "single", "Which?", "yes", "Why.",
                                            "pages/learn.py", ("yes", "no"), shuffle=False), ["yes"], [])
    assert distribution_figure(short, 1, reveal=False, font_size=22,
                               min_height=presenter.CHART_HEIGHT).layout.height == presenter.CHART_HEIGHT


@pytest.mark.slow  # AppTest runs of a page, over the fast tier's 0.35 s a test
@pytest.mark.parametrize("lang, typed, answer, value", [
    ("en", "1,500", 1500.0, 1500.0), ("pt", "1.500", 1500.0, 1500.0),
    ("en", "1.500", 1500.0, 1.5), ("pt", "1,500", 1500.0, 1.5),  # only the other reading is right: still wrong
    ("en", "1,500", 3.0, 1500.0), ("pt", "1,500", 3.0, 1.5)])  # neither is: the student's language decides
def test_the_submit_callback_reads_a_number_in_the_students_language(db, lang, typed, answer, value):
    """Read 51: an English student's "1,500" (as the app writes 1500 in English) was held as 1.5, a wrong answer."""
    big = Question("big", "speedup", "numeric", "How many tokens?", answer, "Counted.", "pages/quiz.py",
                   tolerance=0.5)
    store, session, (ana, *_) = _paced(db)
    push = store.push(session.code, big)
    with using(lang):
        at = _page({"student": ana.token, "lang": lang})
        at.text_input(key=f"paced_{push.id}_1").input(typed).run()
        at.button(key=f"paced_{push.id}_1_submit").click().run()
    assert not at.exception and not at.error
    assert store.my_answers(ana.token, push.id)[1] == (value, value == answer)


@pytest.mark.parametrize("font_size, rounds", [(14, 1), (14, 2), (22, 2)])
def test_each_choice_is_written_whole_above_its_bars(font_size, rounds):
    """Read 55: on a 390 px phone the choices were tick labels left of the bars, wider than the margin Plotly gives
    them, so they were cut at the left edge ("robability min(p(x), q(x))…", "ecovered token…") and the axis title
    "choice" sat on top of them. Each label is now an annotation above its bars, starting at the plot's left edge:
    no tick labels, and a slot holds the label's lines, its bars and a gap, on the dashboard and the projector."""
    from specviz.ui.classroom.chart import LABEL_GAP, LINE_EM

    question = SINGLE
    dist = distribution(question, [question.answer, _wrong(question)], [question.answer] if rounds == 2 else [])
    fig = distribution_figure(dist, rounds, reveal=True, font_size=font_size)
    bars = next(t for t in fig.data if t.showlegend is False)
    notes = fig.layout.annotations
    assert [a.text for a in notes] == list(bars.y) and any(a.text.startswith("✓ ") for a in notes)
    assert all(a.xref == "paper" and a.x == 0 and a.xanchor == "left" and a.yanchor == "bottom" for a in notes)
    assert fig.layout.yaxis.showticklabels is False  # nothing left of the bars to cut, nothing under the title
    assert fig.layout.yaxis.title.text == "choice"  # still the table's first column
    low, high = fig.layout.yaxis.range  # first choice on top: the range runs down
    slot = (fig.layout.height - fig.layout.margin.t - fig.layout.margin.b) / (low - high)
    thick = slot * (1 - fig.layout.bargap)  # one choice's bars, px
    lines = max(a.text.count("<br>") + 1 for a in notes)
    for index, note in enumerate(notes):  # the label starts at its bars' top edge and fits under the bars above
        assert note.y == pytest.approx(index - thick / 2 / slot)
        room = (note.y - (index - 1 + thick / 2 / slot if index else high)) * slot
        assert room >= lines * LINE_EM * font_size + LABEL_GAP / 2 - 1, (index, room)
