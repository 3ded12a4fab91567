"""The Classroom page under AppTest: the teacher's PIN gate and dashboard, a student's join, answer and resume,
and one sentence (never a traceback) for a locked-out guesser, a join flood and a busy database."""

from __future__ import annotations

import sqlite3
import time
import zlib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz.core import i18n
from specviz.teach.classroom import ClassroomStore, concept_name
import specviz.teach.classroom as classroom
from specviz.teach.quiz import load_bank
from specviz.ui.classroom import teacher
from specviz.ui.classroom import view
from specviz.ui.common.escaping import escape_markdown, escape_text

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "classroom.py")
PIN = "2468-1357-97"


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("SPECVIZ_CLASSROOM_DB", str(tmp_path / "classroom.sqlite"))
    monkeypatch.setenv("SPECVIZ_TEACHER_PIN", PIN)
    teacher.pin_guard.clear()  # the server's counters outlive browser sessions (that is the point): not tests
    view.join_limit.clear()
    return tmp_path / "classroom.sqlite"


def _wrong(question):
    """A wrong answer the store keeps: a number for a numeric question (a word is refused there, read 50)."""
    return question.answer + 10 * question.tolerance + 1 if question.kind == "numeric" else "nope"


def _page(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=30)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception
    return at


def _as_teacher(pin: str) -> AppTest:
    at = _page()
    at.radio(key="classroom_role").set_value("the teacher").run()
    at.text_input(key="classroom_pin").input(pin)
    at.form_submit_button[0].click().run()
    assert not at.exception
    return at


def _html(at) -> str:
    return " ".join(h.proto.body for h in at.get("html"))


def _labels(at) -> set[str]:
    return {b.label for b in at.button}


def _keys(at) -> set[str]:
    """The buttons on the page by key: what a test asks when their wording is not the point."""
    return {b.key for b in at.button}


def test_a_wrong_pin_keeps_the_dashboard_locked(db):
    at = _as_teacher("1357")
    assert [e.value for e in at.error] == ["That PIN is not right."]
    assert "classroom_start" not in _keys(at) and not at.metric
    at.run()  # and it stays locked on the next rerun
    assert "classroom_start" not in _keys(at)
    assert PIN not in str([m.value for m in at.markdown] + [t.value for t in at.text_input])


def test_the_right_pin_opens_the_dashboard_with_live_results(db):
    at = _as_teacher(PIN)
    assert not at.error and "classroom_start" in _keys(at)
    at.slider(key="classroom_count").set_value(4)
    at.button(key="classroom_start").click().run()
    code = at.session_state["classroom_session"]
    assert any(code in m.value for m in at.markdown)
    assert [(m.label, m.value) for m in at.metric] == [("Students", "0"), ("Answers", "0"), ("Share right", "–")]

    store = ClassroomStore(db)
    session = store.session(code)
    hard = session.questions[0]
    for name, right in (("Ana", True), ("Ben", False), ("Cy", False)):
        student = store.join(code, name)
        store.record_answer(student.token, hard.id, hard.answer if right else _wrong(hard))
        easy = next(q for q in session.questions if q.id != hard.id)
        store.record_answer(student.token, easy.id, easy.answer)
    at.run()
    assert [(m.label, m.value) for m in at.metric] == [("Students", "3"), ("Answers", "6"), ("Share right", "67%")]
    questions = at.dataframe[0].value
    assert list(questions["question"][:2]) == [hard.prompt, easy.prompt]  # most missed first, the whole text
    assert list(questions["share missed"]) == ["67%", "0%", "not answered yet", "not answered yet"]
    assert list(questions["concept"]) == [concept_name(q.concept) for q in
                                          (hard, easy, *[q for q in session.questions if q not in (hard, easy)])]
    assert "None" not in questions.to_string()
    shown = _html(at)  # the list the room reads: text, counts written out, concept names; no ids
    assert escape_text(hard.prompt, whitespace=False) in shown and "2/3 missed" in shown and "0/3 missed" in shown
    assert shown.count("not answered yet") == 2 and escape_text(concept_name(hard.concept), whitespace=False) in shown
    assert not any(f">{q.id}<" in shown for q in session.questions)
    students = at.dataframe[1].value
    assert list(students["name"]) == ["Ana", "Ben", "Cy"] and list(students["right"]) == [2, 1, 1]
    assert "Download all answers (CSV)" in {b.label for b in at.get("download_button")}


def test_the_share_of_right_answers_is_not_named_like_the_count_of_them(db):
    """Read 51: the dashboard's metric headed "Right" (pt "Acertos") showed a share, 5 of 8 answers right as "63%",
    while the Students table's column of the same name, "right" (pt "acertos"), counts right answers; the metric is
    now the share's own name, "Share right" (pt "Fração de acertos"), as the Quiz page's mastery table has it."""
    session = _session(db, n=4)
    store = ClassroomStore(db)
    for name, pattern in (("Ben", (1, 0, 1, 1)), ("Cy", (0, 0, 1)), ("Di", (1,))):
        student = store.join(session.code, name)
        for question, right in zip(session.questions, pattern, strict=False):
            store.record_answer(student.token, question.id, question.answer if right else _wrong(question))
    with i18n.using("pt"):
        at = _page({"as": "teacher", "lang": "pt"})
        at.text_input(key="classroom_pin").input(PIN)
        at.form_submit_button[0].click().run()
        assert not at.exception
        assert [(m.label, m.value) for m in at.metric] == [("Alunos", "3"), ("Respostas", "8"),
                                                           ("Fração de acertos", "63%")]  # 5/8 = 62.5%, half up
        assert list(at.dataframe[1].value["acertos"]) == [3, 1, 1]  # the count keeps the name "acertos"


def test_an_ended_session_no_longer_says_a_question_is_not_answered_yet(db):
    """Read 46: once a session ended no answer can come, but its dashboard, its list and the projector still said
    "not answered yet" (pt "ainda sem respostas") of a question nobody answered; an open session still says it."""
    at = _as_teacher(PIN)
    at.slider(key="classroom_count").set_value(2)
    at.button(key="classroom_start").click().run()
    code = at.session_state["classroom_session"]
    assert list(at.dataframe[0].value["share missed"]) == ["not answered yet"] * 2
    ClassroomStore(db).close_session(code)
    at.run()
    assert list(at.dataframe[0].value["share missed"]) == ["not answered"] * 2
    assert "not answered yet" not in _html(at) and _html(at).count(">not answered<") == 2
    assert ">not answered<" in teacher.failure_list_html(ClassroomStore(db).question_stats(
        ClassroomStore(db).session(code)), ended=True)
    with i18n.using("pt"):
        assert teacher.unanswered(True) == "sem respostas" and teacher.unanswered(False) == "ainda sem respostas"


def test_the_docs_send_a_teacher_to_the_upload_box_a_session_reads(db):
    """Read 45: docs/classroom.md told teachers to add their questions with "the Quiz page's upload box", but a
    class session is opened from the Classroom's own form and its own box (key classroom_upload): a file uploaded
    on the Quiz page never reached the session."""
    at = _as_teacher(PIN)
    boxes = {u.proto.label for u in at.get("file_uploader")}
    assert boxes == {"Add your own questions (a YAML quiz file)"}  # in the Start a new session form
    doc = " ".join((ROOT / "docs" / "classroom.md").read_text(encoding="utf-8").split())
    assert "the Quiz page's upload box" not in doc
    assert "the upload box inside the Classroom's **Start a new session**" in doc


def test_the_teacher_releases_a_ghost_name_from_the_dashboard(db):
    """Issue 44 item 4: a student whose join reply was lost sees their name taken; the dashboard offers the names
    with no answers, and releasing one lets the student join again under it."""
    at = _as_teacher(PIN)
    at.button(key="classroom_start").click().run()
    code = at.session_state["classroom_session"]
    store = ClassroomStore(db)
    session = store.session(code)
    store.join(code, "Ghost")
    answered = store.join(code, "Ana")
    store.record_answer(answered.token, session.questions[0].id, session.questions[0].answer)
    at.run()
    assert at.selectbox(key="classroom_release_name").options == ["Ghost"]  # Ana has answered: never offered
    at.button(key="classroom_release").click().run()
    assert [s.value for s in at.success] == ["Ghost can join again."]
    assert store.join(code, "Ghost").name == "Ghost"


def test_a_released_name_is_shown_literally_on_the_teachers_screen(db):
    """Read 31: the release's sentence put the student's own name into st.success unescaped, so a name such as
    "[prize](https://evil.example)" became a link on the teacher's dashboard (the join form already escaped it)."""
    from specviz.ui.common.escaping import escape_markdown

    at = _as_teacher(PIN)
    at.button(key="classroom_start").click().run()
    code = at.session_state["classroom_session"]
    name = "[prize](https://evil.example) **b**"
    ClassroomStore(db).join(code, name)
    at.run()
    at.selectbox(key="classroom_release_name").set_value(name)
    at.button(key="classroom_release").click().run()
    assert [s.value for s in at.success] == [f"{escape_markdown(name)} can join again."]
    assert "](" not in at.success[0].value and "\\[prize\\]" in at.success[0].value


def test_a_release_counts_even_when_the_refresh_stops_the_run_before_the_button(db, monkeypatch):
    """The dashboard refreshes itself every 5 s; on a busy server a refresh can stop the run that carried a click
    before the body reaches the button. The release acts in its callback: here the click's run draws no dashboard."""
    at = _as_teacher(PIN)
    at.button(key="classroom_start").click().run()
    code = at.session_state["classroom_session"]
    store = ClassroomStore(db)
    store.join(code, "Ghost")
    at.run()
    with monkeypatch.context() as patched:
        patched.setattr(teacher, "dashboard", lambda store, session: None)
        at.button(key="classroom_release").click().run()
    assert not at.exception and store.join(code, "Ghost").name == "Ghost"  # released: the name joins again
    at.run()
    assert [s.value for s in at.success] == ["Ghost can join again."]


def test_without_a_pin_the_teacher_view_explains_how_to_set_one(db, monkeypatch):
    monkeypatch.delenv("SPECVIZ_TEACHER_PIN")
    at = _page()
    at.radio(key="classroom_role").set_value("the teacher").run()
    assert "no teacher PIN is set" in at.warning[0].value and "SPECVIZ_TEACHER_PIN" in at.warning[0].value
    assert not at.text_input and "classroom_start" not in _keys(at)


def test_a_short_pin_keeps_the_teacher_view_locked_and_says_why(db, monkeypatch):
    monkeypatch.setenv("SPECVIZ_TEACHER_PIN", "2468")
    at = _page()
    at.radio(key="classroom_role").set_value("the teacher").run()
    assert [w.value for w in at.warning] == ["The teacher PIN is too short: set SPECVIZ_TEACHER_PIN to at least 8 "
                                             "characters (a few words will do), then restart the app."]
    assert not at.text_input and "classroom_start" not in _keys(at)


def test_the_pin_can_come_from_streamlit_secrets(db, monkeypatch):
    monkeypatch.delenv("SPECVIZ_TEACHER_PIN")
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.secrets["SPECVIZ_TEACHER_PIN"] = "9753-8642"
    at.run()
    at.radio(key="classroom_role").set_value("the teacher").run()
    at.text_input(key="classroom_pin").input("9753-8642")
    at.form_submit_button[0].click().run()
    assert "classroom_start" in _keys(at)


def test_repeated_wrong_pins_are_slowed_down(db):
    at = _as_teacher("0000")
    for _ in range(5):
        at.text_input(key="classroom_pin").input("0000")
        at.form_submit_button[0].click().run()
    at.text_input(key="classroom_pin").input(PIN)
    at.form_submit_button[0].click().run()
    assert "Too many wrong PINs" in at.error[0].value and "classroom_start" not in _keys(at)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_reload_does_not_reset_the_wrong_pin_count(db, monkeypatch):
    """Five wrong PINs from one device: that browser waits, and a reload (a new browser session on the same device)
    gets one try and, if it misses, waits too; a reload with the right PIN gets in (issue 28: no one is locked out
    by somebody else's guesses)."""
    monkeypatch.setattr(view, "client_key", lambda: "ip:203.0.113.7")  # AppTest has no address of its own
    tab = {"id": "session:first"}  # nor a browser session of its own: each AppTest below stands for a new one
    monkeypatch.setattr(view, "session_key", lambda: tab["id"])
    at = _as_teacher("0000-0000")
    for _ in range(4):
        at.text_input(key="classroom_pin").input("0000-0000")
        at.form_submit_button[0].click().run()
    assert [e.value for e in at.error] == ["That PIN is not right."]
    at.text_input(key="classroom_pin").input(PIN)
    at.form_submit_button[0].click().run()
    # 43rd read: it said "from this device", but the page's lock here is this browser's own record (a reload,
    # below, is a new browser session and gets a try)
    assert len(at.error) == 1 and at.error[0].value.startswith("Too many wrong PINs from this browser; please wait")
    tab["id"] = "session:reloaded"
    again = _as_teacher("1111-1111")  # a reload that guesses: one try...
    assert [e.value for e in again.error] == ["That PIN is not right."]
    again.text_input(key="classroom_pin").input(PIN)
    again.form_submit_button[0].click().run()  # ...then it waits like the device, right PIN or not
    assert len(again.error) == 1 and again.error[0].value.startswith(  # the device's lock, not the server's: 43rd read
        "Many wrong PINs have been tried from this device; this browser may try again in")
    assert "classroom_start" not in _keys(again)
    tab["id"] = "session:teacher"
    assert "classroom_start" in _keys(_as_teacher(PIN))  # the teacher reloading with the right PIN gets in
    tab["id"] = "session:elsewhere"
    monkeypatch.setattr(view, "client_key", lambda: "ip:198.51.100.9")
    assert "classroom_start" in _keys(_as_teacher(PIN))  # and another device is not locked out either


def _session(db, n=3):
    return ClassroomStore(db).create_session(load_bank().select(["accept_rule"])[:n], "Period 3")


def test_a_student_joins_answers_and_resumes_after_a_refresh(db):
    session = _session(db)
    at = _page({"join": session.code.lower()})
    at.text_input(key="classroom_name").input("Dee")
    at.form_submit_button[0].click().run()
    token = at.query_params["student"]
    assert token and any("you are **Dee**" in m.value for m in at.markdown)
    store = ClassroomStore(db)
    first = store.next_question(session, store.student(token))
    assert any(m.value == first.prompt for m in at.markdown)

    key = f"classroom_{first.id}"
    if first.kind == "numeric":
        at.text_input(key=key).input(str(first.answer))
    else:
        at.radio(key=key).set_value(first.answer)
    at.button(key="classroom_submit").click().run()
    assert [s.value for s in at.success] == ["Correct."] and first.explanation in [i.value for i in at.info]

    # A refresh in a new browser session: only the URL survives.
    again = _page({"student": token})
    assert any("1 of 3 answered" in p.proto.text for p in again.get("progress"))
    second = store.next_question(session, store.student(token))
    assert second.id != first.id and any(m.value == second.prompt for m in again.markdown)
    assert store.answers(token) == {first.id: (first.answer, True)}  # a typed number stored as one (read 49)


def test_a_student_who_follows_a_page_link_is_still_joined_on_coming_back(db):
    """Read 54, in a real browser: the feedback's "See it on the Exactness lab page" (or the sidebar) drops the URL's
    ?student=, and the Classroom page then showed the join form, the student's name taken. The browser session
    remembers whom it joined as; leaving forgets it, and a join link still opens the join form."""
    session = _session(db)
    at = _page({"join": session.code})
    at.text_input(key="classroom_name").input("Dee")
    at.form_submit_button[0].click().run()
    token = at.query_params["student"]
    at.query_params.clear()  # the page link's navigation: the Classroom page again, without its parameters
    at.run()
    assert not at.exception and at.query_params["student"] == token
    assert any("you are **Dee**" in m.value for m in at.markdown)
    assert "classroom_name" not in {t.key for t in at.text_input}

    at.query_params.clear()
    at.query_params["code"] = session.code  # a join link (a QR code) still opens the join form
    at.run()
    assert {t.key for t in at.text_input} >= {"classroom_name"}

    at.query_params.clear()
    at.run()
    at.button(key="classroom_leave").click().run()
    at.button(key="classroom_leave_confirm").click().run()
    at.query_params.clear()
    at.run()  # left: the join form, not the student's view again
    assert not at.exception and "student" not in at.query_params
    assert {t.key for t in at.text_input} >= {"classroom_name"}


@pytest.mark.parametrize(
    ("code", "name", "message"),
    [
        ("ZZ", "Eve", "A join code is 6 letters and digits"),
        ("ABCDEF", "Eve", "There is no session with the code ABCDEF"),
        (None, "Eve\x07", "The display name contains control characters; please use plain text."),
        (None, "   ", "Please enter a display name."),
    ],
)
def test_bad_join_input_gets_one_sentence(db, code, name, message):
    session = _session(db)
    at = _page()
    at.text_input(key="classroom_code").input(code or session.code)
    at.text_input(key="classroom_name").input(name)
    at.form_submit_button[0].click().run()
    assert not at.exception and len(at.error) == 1 and at.error[0].value.startswith(escape_markdown(message))
    assert "student" not in at.query_params


def test_a_taken_name_is_quoted_literally_not_as_markdown(db):
    session = _session(db)
    name = "**Eve** [Log in](https://evil.example/x)"
    ClassroomStore(db).join(session.code, name)
    at = _page({"join": session.code})
    at.text_input(key="classroom_name").input(name)
    at.form_submit_button[0].click().run()
    said = f"Someone in this session is already called {name!r}; please add an initial."  # quoted (read 51)
    assert [e.value for e in at.error] == [escape_markdown(said)]


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_join_flood_is_refused_with_one_sentence(db):
    """Ten refused tries (a wrong code) use up the minute's ten: the sentence said "Too many joins" after none had
    joined, and docs/classroom.md "a device may join 10 times a minute" (44th read); both say tries now, as the
    Portuguese did ("tentativas de entrada")."""
    at = _page()
    for _ in range(10):
        at.text_input(key="classroom_code").input("ZZ")
        at.text_input(key="classroom_name").input("Bot")
        at.form_submit_button[0].click().run()
        assert [e.value[:20] for e in at.error] == ["A join code is 6 let"]
    at.form_submit_button[0].click().run()
    assert not at.exception and len(at.error) == 1
    assert at.error[0].value.startswith("Too many join attempts from this device; please wait")
    doc = " ".join((ROOT / "docs" / "classroom.md").read_text(encoding="utf-8").split())
    # Read 48 review: since ccba22c6 a press with no name is refused without counting, which the doc now says
    assert "a device may try to join 10 times a minute (a refused try counts too; a press of Join with no name " \
           "typed does not)" in doc


def _answer(at, question):
    key = f"classroom_{question.id}"
    if question.kind == "numeric":
        at.text_input(key=key).input(str(question.answer))
    else:
        at.radio(key=key).set_value(question.answer)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_busy_database_is_one_sentence_on_the_student_page(db, monkeypatch):
    monkeypatch.setattr(classroom.store, "BUSY_TIMEOUT", 0.2)
    session = _session(db)
    store = ClassroomStore(db)
    student = store.join(session.code, "Fay")
    at = _page({"student": student.token})
    _answer(at, store.next_question(session, student))
    lock = sqlite3.connect(db, isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
    try:
        at.button(key="classroom_submit").click().run()
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    assert not at.exception
    assert [e.value for e in at.error] == ["The class database is busy; try again in a moment."]
    assert store.answers(student.token) == {}
    at.button(key="classroom_submit").click().run()  # a moment later it goes through
    assert not at.exception and not at.error and len(store.answers(student.token)) == 1


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_busy_database_is_one_sentence_on_the_teacher_page(db, monkeypatch):
    monkeypatch.setattr(classroom.store, "BUSY_TIMEOUT", 0.2)
    session = _session(db)
    at = _as_teacher(PIN)
    at.button(key="classroom_end").click().run()  # asks first
    lock = sqlite3.connect(db, isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")
    try:
        at.button(key="classroom_end_confirm").click().run()
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    assert not at.exception
    assert [e.value for e in at.error] == ["The class database is busy; try again in a moment."]
    assert not ClassroomStore(db).session(session.code).closed


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_stale_student_link_asks_to_join_again(db, lang):
    """Read 48: a made-up token read "not valid any more", as if it had once been valid. Read 53: it then read "not
    a valid link for this session", though the link names no session (a token alone): it says what is wrong with the
    link as it is, that no student here holds its token."""
    at = _page({"student": "no-such-student-token", **({"lang": "pt"} if lang == "pt" else {})})
    assert at.warning[0].value == {
        "en": "No student here holds the token in this student link; please join again with the join code.",
        "pt": "Nenhum(a) aluno(a) daqui tem o token deste link de aluno(a); entre de novo com o código de entrada, "
              "por favor."}[lang]
    assert "session" not in at.warning[0].value and "sessão" not in at.warning[0].value
    assert {t.label for t in at.text_input} >= {{"en": "Your display name", "pt": "Seu nome de exibição"}[lang]}


def test_student_names_are_escaped_everywhere(db):
    session = _session(db)
    store = ClassroomStore(db)
    student = store.join(session.code, "<img src=x onerror=alert(1)> **bold**")
    at = _page({"student": student.token})
    header = next(m.value for m in at.markdown if "you are" in m.value)
    assert "<img" not in header and "&lt;img" in header and "\\*\\*bold\\*\\*" in header

    teacher = _as_teacher(PIN)
    teacher.button(key="classroom_present").click().run()
    shown = " ".join(m.value for m in teacher.markdown)
    assert session.code in shown and "&lt;img src=x onerror=alert(1)&gt;" in shown and "<img" not in shown
    assert "classroom_start" not in _keys(teacher)  # presenter view: controls hidden


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_ending_a_session_asks_first_and_keeps_its_results(db):
    session = _session(db)
    store = ClassroomStore(db)
    student = store.join(session.code, "Ana")
    store.record_answer(student.token, session.questions[0].id, session.questions[0].answer)
    at = _as_teacher(PIN)
    at.button(key="classroom_end").click().run()
    assert not store.session(session.code).closed  # one click only asks
    assert any(f"End session {session.code}?" in w.value for w in at.warning)
    at.button(key="classroom_end_cancel").click().run()
    assert not store.session(session.code).closed and "classroom_end_confirm" not in {b.key for b in at.button}
    at.button(key="classroom_end").click().run()
    at.button(key="classroom_end_confirm").click().run()
    assert not at.exception and store.session(session.code).closed
    ended = store.session(session.code).ended_at
    # still in the list, labelled ended, with its dashboard and its export
    picker = at.selectbox(key="classroom_session")
    assert picker.value == session.code and "ended" in picker.format_func(session.code)
    assert any("ended" in i.value for i in at.info) and "classroom_end" not in {b.key for b in at.button}
    assert [(m.label, m.value) for m in at.metric] == [("Students", "1"), ("Answers", "1"), ("Share right", "100%")]
    assert "Download all answers (CSV)" in {b.label for b in at.get("download_button")}
    assert "Ana" in store.export_csv(store.session(session.code))
    fresh = _as_teacher(PIN)  # another visit: the ended session is still there to pick
    ended_at = time.strftime('%Y-%m-%d %H:%M', time.gmtime(ended))
    assert fresh.selectbox(key="classroom_session").options == [f"{session.code} · Period 3 · ended {ended_at} UTC"]


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_a_reload_keeps_the_teacher_on_the_teacher_view_behind_the_pin(db):
    session = _session(db)
    at = _as_teacher(PIN)
    assert at.query_params["as"] == "teacher" and at.query_params["session"] == session.code
    reloaded = _page({"as": "teacher", "session": session.code})  # a new browser session with the same URL
    assert reloaded.radio(key="classroom_role").value == "the teacher"
    assert reloaded.text_input(key="classroom_pin") is not None and not reloaded.metric  # the PIN is asked again
    reloaded.text_input(key="classroom_pin").input(PIN)
    reloaded.form_submit_button[0].click().run()
    assert reloaded.selectbox(key="classroom_session").value == session.code and reloaded.metric
    forged = _page({"as": "teacher", "session": session.code})
    forged.text_input(key="classroom_pin").input("wrong-pin-000")
    forged.form_submit_button[0].click().run()
    assert not forged.metric and [e.value for e in forged.error] == ["That PIN is not right."]


@pytest.mark.parametrize("lang, says", [
    ("en", "There is no session **NOPE42** on this server. Pick one of its sessions below."),
    ("pt", "Não há nenhuma sessão **NOPE42** neste servidor. Escolha abaixo uma das sessões deste servidor.")])
def test_a_link_to_an_unknown_session_says_so_and_shows_no_other_session(db, lang, says):
    """Read 44: ?session= with a code this server does not hold silently showed the first session, its dashboard
    under the link as if it were the one asked for. The page now says in one sentence that there is no such session,
    shows no dashboard, and waits for the teacher to pick one."""
    from specviz.core.i18n import using

    session = _session(db)
    with using(lang):  # AppTest calls the widgets' format_func (the role switch's `_`) in the test's thread
        at = _page({"as": "teacher", "session": "NOPE42", "lang": lang})
        at.text_input(key="classroom_pin").input(PIN)
        at.form_submit_button[0].click().run()
        assert not at.exception
        assert [w.value for w in at.warning if "NOPE42" in w.value] == [says]
        assert not at.metric and at.selectbox(key="classroom_session").value is None  # none pretends to be it
        at.selectbox(key="classroom_session").set_value(session.code).run()  # the teacher picks one: its dashboard
    assert not at.exception and at.metric and at.query_params["session"] == session.code
    assert not [w.value for w in at.warning if "NOPE42" in w.value]


def test_an_unknown_session_with_a_control_character_is_quoted_with_its_escape(db):
    """Read 49: `?session=` was repeated as it was, so a right-to-left override reversed the rest of the sentence
    and a NUL vanished from the quote; it is now written as its escape (`urlvalues.echoed`)."""
    _session(db)
    at = _page({"as": "teacher", "session": "NO\u202ePE\x00"})
    at.text_input(key="classroom_pin").input(PIN)
    at.form_submit_button[0].click().run()
    assert not at.exception
    assert [w.value for w in at.warning if "NO" in w.value] == [
        "There is no session **NO\\\\u202ePE\\\\x00** on this server. Pick one of its sessions below."]


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_an_ordering_question_is_answered_by_tapping_items_in_order(db):
    bank = load_bank()
    ordering = next(q for q in bank.questions if q.kind == "ordering")
    session = ClassroomStore(db).create_session([ordering], "Order")
    student = ClassroomStore(db).join(session.code, "Ana")
    at = _page({"student": student.token})
    assert not at.multiselect  # no dropdown with clipped options and "Select all"
    key = f"classroom_{ordering.id}"
    items = ordering.options(zlib.crc32(student.token.encode()))
    assert [b.label for b in at.button if b.key.startswith(f"{key}_item_")] == items  # whole texts, as buttons
    at.button(key="classroom_submit").click().run()
    assert any("Place every item first: 0 of" in w.value for w in at.warning)
    first = items.index(ordering.answer[0])
    at.button(key=f"{key}_item_{first}").click().run()
    at.button(key=f"{key}_item_{items.index(ordering.answer[1])}").click().run()
    at.button(key=f"{key}_placed_{first}").click().run()  # take the first back
    assert [b.label for b in at.button if b.key.startswith(f"{key}_placed_")] == [f"**1.** {ordering.answer[1]}"]
    at.button(key=f"{key}_placed_{items.index(ordering.answer[1])}").click().run()
    for item in ordering.answer:
        at.button(key=f"{key}_item_{items.index(item)}").click().run()
    at.button(key="classroom_submit").click().run()
    assert not at.exception and any("Correct" in s.value for s in at.success)
    assert ClassroomStore(db).answers(student.token)[ordering.id] == (list(ordering.answer), True)


def test_the_last_answer_leads_to_the_score_not_to_a_next_question(db):
    """After the session's last question the feedback's button read "Next question", though none was left; it led
    to "All done!" (read 43). It now says where it leads."""
    question = next(q for q in load_bank().questions if q.kind == "single")
    session = ClassroomStore(db).create_session([question], "One")
    student = ClassroomStore(db).join(session.code, "Ana")
    at = _page({"student": student.token})
    at.radio(key=f"classroom_{question.id}").set_value(question.answer)
    at.button(key="classroom_submit").click().run()
    assert at.button(key="classroom_next").label == "See my score"
    at.button(key="classroom_next").click().run()
    assert [s.value for s in at.success] == ["All done! You got 1 of 1 right."]


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_teacher_view_survives_the_presenter_view(db):
    """Issue 27 item 1: after "Exit presenter view" the *I am* switch showed "a student", and the next click dropped
    the teacher on the join form and stripped as=teacher&session= from the URL."""
    at = _as_teacher(PIN)
    at.button(key="classroom_start").click().run()
    code = at.session_state["classroom_session"]
    present = next(b for b in at.button if b.label.startswith("Present"))
    present.click().run()
    assert not at.exception and "classroom_exit_presenter" in _keys(at)
    shown = " ".join(m.value for m in at.markdown)  # a new session: nobody in yet, and no "0 joined:" (pt "0 entrou:")
    assert "Nobody has joined yet." in shown and "joined:" not in shown
    assert at.query_params["as"] == "teacher" and at.query_params["session"] == code
    at.run()  # the presenter view refreshes: no role radio, no session box drawn in these runs
    at.run()
    at.button(key="classroom_exit_presenter").click().run()
    assert not at.exception
    assert at.radio(key="classroom_role").value == "the teacher"
    assert at.session_state["classroom_session"] == code and "classroom_exit_presenter" not in _keys(at)
    assert at.query_params["as"] == "teacher" and at.query_params["session"] == code
    at.run()  # the next click still finds the teacher's dashboard, not the join form
    assert at.radio(key="classroom_role").value == "the teacher" and "classroom_start" in _keys(at)
    assert at.query_params["as"] == "teacher" and at.query_params["session"] == code


def test_the_teacher_is_told_when_phones_cannot_reach_this_server(db, monkeypatch):
    """Issue 42 item 6: the server listened on 127.0.0.1 while the QR code offered the LAN address. The dashboard
    says so in one sentence, with the fix, next to the join address."""
    import streamlit as st

    from specviz.ui.classroom import presenter

    real = st.get_option
    monkeypatch.setattr(st, "get_option", lambda name: "127.0.0.1" if name == "server.address" else real(name))
    monkeypatch.setattr(presenter, "guessed_base", lambda: "http://192.168.1.20:8501")
    at = _as_teacher(PIN)
    at.button(key="classroom_start").click().run()
    said = [w.value for w in at.warning]
    assert any(w.startswith("Students' phones cannot reach this server: it listens only on this computer "
                            "(127.0.0.1), while the join address points at 192.168.1.20.") and
               "--server.address 0.0.0.0" in w for w in said), said


def _flag_flips_after_the_body_chose_its_view():
    """A page whose presenter flag is set after the body chose the dashboard, as a click's callback in a timed
    refresh of the dashboard's part sets it: what each run drew, in order."""
    import streamlit as st

    from specviz.ui.classroom import teacher

    log = st.session_state.setdefault("log", [])
    presenting = bool(st.session_state.get(teacher.PRESENTING))
    log.append("presenter view" if presenting else "dashboard view")
    if not st.session_state.get("clicked"):
        st.session_state["clicked"] = True
        st.session_state[teacher.PRESENTING] = True  # the click's callback, in the part's run
    teacher.follows_the_view(presenting, lambda: log.append("its part"))()


def test_a_live_part_drawn_for_the_old_view_runs_the_whole_page_again():
    """The dashboard's part, run after the flag said presenter view, draws nothing of the dashboard: the whole page
    runs again and draws the presenter view (a lost rerun once left the dashboard refreshing for good)."""
    at = AppTest.from_function(_flag_flips_after_the_body_chose_its_view, default_timeout=30).run()
    assert not at.exception
    assert at.session_state["log"] == ["dashboard view", "presenter view", "its part"]


@pytest.mark.parametrize("page_url, base", [("http://[fd00::5]:8502/classroom", "http://[fd00::5]:8502"),
                                            ("https://class.example:9000/x", "https://class.example:9000"),
                                            ("http://host:99999/", "http://localhost:8501")])
def test_the_guessed_join_address_is_scheme_host_port_with_an_ipv6_host_in_brackets(monkeypatch, page_url, base):
    """presenter.guessed_base promises scheme://host:port of this page: an IPv6 host keeps its brackets (it lost
    them, giving http://fd00::5:8502, which no phone opens), and a port urlsplit refuses falls back to the default
    instead of raising."""
    import streamlit as st

    from specviz.ui.classroom import presenter

    monkeypatch.setattr(type(st.context), "url", property(lambda self: page_url))
    monkeypatch.setattr(presenter, "_lan_host", lambda: None)
    assert presenter.guessed_base() == base


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_join_address_help_does_not_ask_for_a_flag_make_run_does_not_need(lang):
    """Read 44: the help under the join address said "start the app with --server.address 0.0.0.0 so that they can
    reach it", though `make run` leaves server.address unset and so listens on every interface (docs/classroom.md).
    It now names what the address is and when phones cannot reach it."""
    from pathlib import Path

    from specviz.core.i18n import _, using
    from specviz.ui.classroom.presenter import TEXT

    run = Path(__file__).resolve().parents[2].joinpath("Makefile").read_text(encoding="utf-8").split("\nrun:")[1]
    assert "--server.address" not in run.split("\n\n")[0]  # make run: every interface
    with using(lang):
        shown = _(TEXT["base_help"])
    assert "make run" in shown and "127.0.0.1" in shown and "0.0.0.0" not in shown, shown


def _ended_with_an_unreadable_answer(db) -> str:
    """An ended session with one readable answer and one a damaged file left behind; its code."""
    session = _session(db)
    store = ClassroomStore(db)
    ana, ben = store.join(session.code, "Ana"), store.join(session.code, "Ben")
    first = session.questions[0]
    store.record_answer(ana.token, first.id, first.answer)
    with sqlite3.connect(store.path) as conn:
        conn.execute("INSERT INTO answers (token, question_id, answer, correct, answered_at) VALUES (?, ?, ?, 1, 5.0)",
                     (ben.token, first.id, "{oops"))
    store.close_session(session.code)
    return session.code


def test_an_ended_session_with_an_unreadable_answer_does_not_promise_every_answer_in_its_csv(db):
    """Read 45: an ended session said "the CSV above still has every answer" beside the note that an unreadable
    stored answer "is left out of the charts and the exports"; it now says ending deletes no answer."""
    _ended_with_an_unreadable_answer(db)
    at = _as_teacher(PIN)
    shown = " ".join([i.value for i in at.info] + [c.value for c in at.caption])
    assert "1 stored answer could not be read; it is left out of the charts and the exports." in shown
    assert "Its results stay here and in the CSV above: ending the session deletes no answer." in shown
    assert "every answer" not in shown


AT = 1_000_000_000.0  # 2001-09-09 01:46:40 UTC; 22:46:40 the day before in São Paulo


@pytest.fixture
def far_zone(monkeypatch):
    """The server's clock in a zone that is not UTC (São Paulo, UTC−3), as a classroom server abroad has it."""
    monkeypatch.setenv("TZ", "America/Sao_Paulo")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _ended_at_a_known_time(db) -> str:
    """An ended session whose one answer and whose end were both stored at AT; its code."""
    session = _session(db)
    store = ClassroomStore(db)
    ana = store.join(session.code, "Ana")
    store.record_answer(ana.token, session.questions[0].id, session.questions[0].answer)
    store.close_session(session.code)
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE answers SET answered_at = ?", (AT,))
        conn.execute("UPDATE sessions SET ended_at = ?", (AT,))
    return session.code


def test_the_teachers_times_are_written_in_utc_and_say_so(db, far_zone):
    """Read 48: the session's end, a student's last answer and the CSV's times were the server's local clock with no
    zone ("ended at 22:46"), which a teacher in another zone could not read. They are UTC now, and say so."""
    code = _ended_at_a_known_time(db)
    at = _as_teacher(PIN)
    assert any(f"Session {code} ended at 2001-09-09 01:46 UTC:" in i.value for i in at.info)
    assert at.selectbox(key="classroom_session").format_func(code) == f"{code} · Period 3 · ended 2001-09-09 01:46 UTC"
    students = next(d.value for d in at.dataframe if "name" in d.value.columns)
    assert list(students["last answer (UTC)"]) == ["2001-09-09 01:46:40"]  # with its day: a session can last days
    rows = ClassroomStore(db).export_csv(ClassroomStore(db).session(code)).splitlines()
    assert rows[0].endswith(",answered_at_utc") and rows[1].endswith(",2001-09-09T01:46:40Z")


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_enter_in_the_code_field_before_the_name_costs_no_join_try(db):
    """Read 48: Enter in a form's field presses its submit button, so Enter after the join code pressed Join with no
    name; each such press counted against the device's ten joins a minute, and ten of them locked the phone out.
    It says what is missing, and the join still goes through."""
    session = _session(db)
    at = _page()
    at.text_input(key="classroom_code").input(session.code)
    for _press in range(11):
        at.form_submit_button[0].click().run()
        assert [e.value for e in at.error] == [escape_markdown("Please enter a display name.")]
    assert at.text_input(key="classroom_code").value == session.code  # the code typed stays in its field
    at.text_input(key="classroom_name").input("Gus")
    at.form_submit_button[0].click().run()
    assert not at.exception and not at.error and at.query_params["student"]


@pytest.mark.slow  # over 0.5 s on 2 cores: make check stays under a minute, make test runs it
def test_a_class_with_one_wrong_answer_is_not_shown_right_100_percent(db):
    """Read 49: every percentage on the teacher's screens was rounded to a whole percent, so 199 right answers of
    200 read "Right 100%" (and, for a question, "199/200 (100%)" in the teacher-paced mastery table, or "0%" missed
    for 1 of 200): one more digit where a whole percent would say 0% or 100% of a share that is neither."""
    at = _as_teacher(PIN)
    at.slider(key="classroom_count").set_value(10)
    at.button(key="classroom_start").click().run()
    code = at.session_state["classroom_session"]
    store = ClassroomStore(db)
    questions = store.session(code).questions
    assert len(questions) == 10
    for n in range(20):
        student = store.join(code, f"S{n:02d}")
        for number, question in enumerate(questions):
            right = n or number  # one wrong answer in 200: S00's to the first question
            store.record_answer(student.token, question.id, question.answer if right else _wrong(question))
    at.run()
    assert [(m.label, m.value) for m in at.metric] == [("Students", "20"), ("Answers", "200"), ("Share right", "99.5%")]
    missed = at.dataframe[0].value["share missed"]
    assert list(missed) == ["5%"] + ["0%"] * 9  # 1 of 20 missed the first question; nobody missed the others
    with i18n.using("pt"):
        from specviz.ui.classroom.paced_teacher import _share
        from specviz.ui.common.quiz.view import mastery_table
        from specviz.teach.quiz.run import ConceptMastery
        assert _share(199, 200) == "199/200 (99,5%)" and _share(200, 200) == "200/200 (100%)"
        assert list(mastery_table([ConceptMastery("x", "X", 1, 300, 300)])["Fração de acertos"]) == ["0,3%"]


@pytest.mark.parametrize(("lang", "says"), [
    ("en", "This session has ended before you answered any of its 3 questions."),
    ("pt", "Esta sessão foi encerrada antes que você respondesse a qualquer uma das 3 perguntas dela.")])
def test_a_student_who_answered_nothing_is_not_told_they_got_0_right(db, lang, says):
    """Read 49: a student who joined and answered nothing before the teacher ended the session read "This session
    has ended. You got 0 of 4 right.", as if every answer had been wrong."""
    session = _session(db)
    store = ClassroomStore(db)
    quiet, busy = store.join(session.code, "Quiet"), store.join(session.code, "Busy")
    first = store.next_question(session, busy)
    store.record_answer(busy.token, first.id, first.answer)
    store.close_session(session.code)
    shown = [s.value for s in _page({"student": quiet.token, "lang": lang}).success]
    assert shown == [says]
    ended = "This session has ended. You got 1 of 3 right; 2 were not answered."  # their score, and what is left
    assert [s.value for s in _page({"student": busy.token}).success] == [ended]


@pytest.mark.parametrize(("lang", "answered", "says"), [
    ("en", 1, "This session has ended. You got 0 of 3 right; 2 were not answered."),
    ("en", 2, "This session has ended. You got 0 of 3 right; 1 was not answered."),
    ("en", 3, "This session has ended. You got 0 of 3 right."),
    ("pt", 1, "Esta sessão foi encerrada. Você acertou 0 de 3; 2 ficaram sem resposta."),
    ("pt", 2, "Esta sessão foi encerrada. Você acertou 0 de 3; 1 ficou sem resposta.")])
def test_a_student_the_end_cut_short_is_not_told_every_question_was_wrong(db, lang, answered, says):
    """Read 50: a student who answered one question of four, wrongly, before the teacher ended the session read
    "This session has ended. You got 0 of 4 right.", as if all four answers had been wrong (read 49 fixed this for
    a student who answered none); the questions the end left unanswered are now counted apart."""
    session = _session(db)
    store = ClassroomStore(db)
    student = store.join(session.code, "Cut")
    for _n in range(answered):
        question = store.next_question(session, student)
        store.record_answer(student.token, question.id, _wrong(question))
    store.close_session(session.code)
    assert [s.value for s in _page({"student": student.token, "lang": lang}).success] == [says]


@pytest.mark.slow  # AppTest runs of a page, over the fast tier's 0.35 s a test
@pytest.mark.parametrize("lang, typed, answer, said, stored", [
    ("en", "1,500", 1500.0, "Correct.", 1500.0), ("pt", "1.500", 1500.0, "Correto.", 1500.0),
    # only the other convention's reading is right: the student's language still decides (read 52's review)
    ("en", "1.500", 1500.0, "Not quite.", 1.5), ("pt", "1,500", 1500.0, "Não exatamente.", 1.5),
    # neither reading is right: the student's language decides what is stored
    ("en", "1,500", 3.0, "Not quite.", 1500.0), ("pt", "1,500", 3.0, "Não exatamente.", 1.5)])
def test_a_student_s_number_is_read_in_the_student_s_language(db, lang, typed, answer, said, stored):
    """Read 51: an English student's "1,500" (as the app writes 1500 in English) was stored as 1.5 and graded
    wrong; a number is read in the student's language, which wins where the conventions disagree (`read_answer`)."""
    from specviz.core.i18n import using
    from specviz.teach.quiz import Question

    big = Question("big", "speedup", "numeric", "How many tokens?", answer, "Counted.", "pages/quiz.py",
                   tolerance=0.5)
    store = ClassroomStore(db)
    student = store.join(store.create_session([big], "Period 3").code, "Dee")
    with using(lang):  # AppTest calls the widgets' format_func in the test's thread
        at = _page({"student": student.token, "lang": lang})
        at.text_input(key="classroom_big").input(typed)
        at.button(key="classroom_submit").click().run()
    assert not at.exception
    feedback = [*(s.value for s in at.success), *(e.value for e in at.error)]
    assert len(feedback) == 1 and feedback[0].startswith(said)
    assert store.answers(student.token)["big"][0] == stored


@pytest.mark.slow  # AppTest runs of a page, over the fast tier's 0.35 s a test
@pytest.mark.parametrize("lang, said", [("en", "1 question, the only one on these concepts"),
                                        ("pt", "1 pergunta, a única sobre esses conceitos")])
def test_a_one_question_session_offers_no_count_it_would_not_ask(db, lang, said):
    """Read 51: with one question available, the teacher's "Questions" slider ran from 1 to 2, and a session opened
    with 2 asked 1. Now no slider is drawn; a line says how many questions the session asks."""
    import yaml

    from specviz.core.i18n import using

    own = yaml.safe_dump({"concepts": {"ours": "Our class topic"}, "questions": [
        {"id": "only", "concept": "ours", "type": "single", "prompt": "Pick A.", "choices": ["A", "B"],
         "answer": "A", "explanation": "A is the one.", "link": "pages/quiz.py"}]})
    with using(lang):  # AppTest calls the widgets' format_func (the role switch's `_`) in the test's thread
        at = _page({"as": "teacher", "lang": lang})
        at.text_input(key="classroom_pin").input(PIN)
        at.form_submit_button[0].click().run()
        at.file_uploader(key="classroom_upload").set_value(("class.yaml", own.encode(), "application/yaml"))
        at.run()
        at.multiselect(key="classroom_concepts").set_value(["ours"]).run()
        assert not at.exception
        assert "classroom_count" not in {s.key for s in at.slider}
        assert said in [c.value for c in at.caption]
        at.button(key="classroom_start").click().run()
    assert not at.exception
    session = ClassroomStore(db).session(at.session_state["classroom_session"])
    assert [q.id for q in session.questions] == ["only"]


@pytest.mark.parametrize("lang, says", [
    ("en", "The link's join code ('ABC234ABC234X') is longer than a join code can be, so it was left out: type the "
           "code from your teacher's screen."),
    ("pt", "O código de entrada do link ('ABC234ABC234X') é mais longo do que um código de entrada pode ser, então ele "
           "foi deixado de fora: digite o código da tela do(a) professor(a).")])
def test_a_link_code_too_long_for_the_field_is_said_and_left_out_not_cut(lang, says):
    """Read 52: a ?code= of 13 characters was cut to 12 by the field without a word, so the student saw a code the
    link never held."""
    at = _page({"code": "ABC234ABC234X", "lang": lang})
    assert [w.value for w in at.warning] == [escape_markdown(says)]
    assert at.text_input(key="classroom_code").value == ""


@pytest.mark.parametrize("lang, column, listed", [("en", "share missed", "1/2 missed"),
                                                   ("pt", "fração de erros", "erraram&#58; 1/2")])  # ":" escaped
def test_the_questions_tables_share_is_not_named_like_the_lists_count(db, lang, column, listed):
    """Read 53: the sortable Questions table headed its column "missed" (pt "erros") and showed a share, "50%",
    under the list that writes the count, "1/2 missed" (pt "erraram: 1/2"); the column is now named for the share
    it shows, as the metric "Share right" (pt "Fração de acertos") is."""
    session = _session(db, n=2)
    store = ClassroomStore(db)
    first = session.questions[0]
    for name, right in (("Ana", True), ("Ben", False)):
        store.record_answer(store.join(session.code, name).token, first.id, first.answer if right else _wrong(first))
    with i18n.using(lang):
        at = _page({"as": "teacher", **({"lang": "pt"} if lang == "pt" else {})})
        at.text_input(key="classroom_pin").input(PIN)
        at.form_submit_button[0].click().run()
        assert not at.exception
        table = at.dataframe[0].value
        assert {"missed", "erros"}.isdisjoint(table.columns)
        assert list(table[column])[0] == "50%" and listed in _html(at)


def test_a_teachers_link_opens_the_teacher_side_after_a_student_view_in_the_same_session(db):
    """Read 54: the browser session remembers whom it joined as (`classroom_joined`), and put that student back into
    any Classroom URL without ?student=, a teacher's own ?as=teacher link too: a teacher who had tried the student
    view got that student's view, not the PIN. The teacher's link now opens the teacher's side; a plain Classroom
    link still brings the student back."""
    session = _session(db)
    at = _page({"join": session.code})
    at.text_input(key="classroom_name").input("Dee")
    at.form_submit_button[0].click().run()
    token = at.query_params["student"]
    at.query_params.clear()
    at.query_params["as"] = "teacher"
    at.run()
    assert not at.exception and "student" not in at.query_params
    assert not any("you are **Dee**" in m.value for m in at.markdown)
    assert at.radio(key="classroom_role") is not None  # the page's role switch, drawn only off the student view
    at.query_params.clear()
    at.run()
    assert at.query_params["student"] == token


def test_a_teachers_link_opens_the_teacher_side_after_the_join_page_drew_the_switch(db):
    """Read 54: `role_from_url` set the teacher side only before the switch was ever drawn: once the join page had
    drawn it ("a student"), a ?as=teacher link showed the join form, no PIN, and the switch took ?as=teacher out of
    the URL. The link now opens the teacher side (the PIN); a click on "a student" still takes the student side."""
    at = _page()
    assert at.radio(key="classroom_role").value == "a student"
    at.query_params["as"] = "teacher"
    at.run()
    assert not at.exception and at.radio(key="classroom_role").value == "the teacher"
    assert at.query_params["as"] == "teacher" and at.text_input(key="classroom_pin") is not None
    at.radio(key="classroom_role").set_value("a student").run()  # the page's own ?as=teacher is still in the URL
    assert at.radio(key="classroom_role").value == "a student" and "as" not in at.query_params
    at.run()
    assert at.radio(key="classroom_role").value == "a student"


@pytest.mark.slow  # AppTest runs of the page, over the fast tier's 0.35 s a test
@pytest.mark.parametrize("pace", [0, 1])
def test_an_ended_session_shows_no_join_address_and_no_advice_to_reach_it(db, monkeypatch, pace):
    """Read 55: after "Yes, end …" the teacher-paced dashboard still showed "Join address shown on the projector"
    and "Students' phones cannot reach this server… start it again with --server.address 0.0.0.0", advice for
    joins an ended session refuses. Both go once the session has ended, on either pace's dashboard."""
    import streamlit as st

    from specviz.ui.classroom import presenter

    real = st.get_option
    monkeypatch.setattr(st, "get_option", lambda name: "127.0.0.1" if name == "server.address" else real(name))
    monkeypatch.setattr(presenter, "guessed_base", lambda: "http://192.168.1.20:8501")
    at = _as_teacher(PIN)
    at.radio(key="classroom_pace").set_value(teacher.PACES[pace]).run()
    at.button(key="classroom_start").click().run()

    def advice() -> list[str]:
        return [w.value for w in at.warning if w.value.startswith("Students' phones cannot reach this server")]

    def address() -> list[str]:
        return [t.value for t in at.text_input if t.key == presenter.INPUT_KEY]

    assert len(advice()) == 1 and address() == (["http://192.168.1.20:8501"] if pace == 1 else [])
    at.button(key="classroom_end").click().run()
    at.button(key="classroom_end_confirm").click().run()
    assert not at.exception and any("students can no longer join or answer" in i.value for i in at.info)
    assert advice() == [] and address() == []
