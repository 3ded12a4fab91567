"""Classroom store: joining, answering once, resuming after a reconnect, 40 students at once, PIN, exports."""

from __future__ import annotations

import csv
import io
import sqlite3
import threading

import pytest

from specviz.classroom import (
    CODE_ALPHABET,
    ClassroomError,
    ClassroomStore,
    clean_name,
    default_db_path,
    new_code,
    normalize_code,
    pin_matches,
    teacher_pin,
)
from specviz.quiz import load_bank

QUESTIONS = load_bank().select(["accept_rule"])[:5]


@pytest.fixture
def store(tmp_path):
    return ClassroomStore(tmp_path / "class.sqlite")


def _wrong(question):
    return "not an answer at all"


def test_database_is_in_wal_mode(store):
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_join_answer_and_resume_after_reconnect(tmp_path):
    store = ClassroomStore(tmp_path / "class.sqlite")
    session = store.create_session(QUESTIONS, "Period 3")
    student = store.join(session.code.lower(), "  Ada  ")
    assert student.name == "Ada"
    order = store.question_order(session, student)
    first, second = order[0], order[1]
    assert store.next_question(session, student) == first
    result, stored = store.record_answer(student.token, first.id, first.answer)
    assert stored and result.correct

    # A refresh: a brand-new store object (a new process, a new connection) and only the token from the URL.
    again = ClassroomStore(tmp_path / "class.sqlite")
    back = again.student(student.token)
    assert back == student
    resumed = again.session(back.code)
    assert again.next_question(resumed, back) == second
    assert again.answers(student.token) == {first.id: (first.answer, True)}


def test_the_first_answer_counts(store):
    session = store.create_session(QUESTIONS)
    student = store.join(session.code, "Bo")
    q = QUESTIONS[0]
    first, stored = store.record_answer(student.token, q.id, _wrong(q))
    assert stored and not first.correct
    second, stored_again = store.record_answer(student.token, q.id, q.answer)
    assert not stored_again and not second.correct  # a second try does not overwrite the first
    assert store.progress(session)[0].answered == 1


def test_forty_students_answer_at_once(store):
    session = store.create_session(QUESTIONS)
    students = [store.join(session.code, f"Student {i}") for i in range(40)]
    barrier = threading.Barrier(40)
    errors: list[BaseException] = []

    def answer_all(i: int) -> None:
        try:
            barrier.wait()
            for q in QUESTIONS:
                answer = q.answer if (i + len(q.id)) % 3 else _wrong(q)
                store.record_answer(students[i].token, q.id, answer)
                store.record_answer(students[i].token, q.id, answer)  # a double click
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=answer_all, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    with sqlite3.connect(store.path) as conn:
        rows = conn.execute("SELECT token, question_id FROM answers").fetchall()
    assert len(rows) == 40 * len(QUESTIONS) == len(set(rows))
    expected_correct = sum(bool((i + len(q.id)) % 3) for i in range(40) for q in QUESTIONS)
    assert sum(s.correct for s in store.question_stats(session)) == expected_correct
    assert all(p.answered == len(QUESTIONS) for p in store.progress(session))


def test_dashboard_orders_questions_by_failure_rate(store):
    session = store.create_session(QUESTIONS)
    a, b = store.join(session.code, "A"), store.join(session.code, "B")
    hard, easy = QUESTIONS[0], QUESTIONS[1]
    for s in (a, b):
        store.record_answer(s.token, hard.id, _wrong(hard))
        store.record_answer(s.token, easy.id, easy.answer)
    store.record_answer(a.token, QUESTIONS[2].id, QUESTIONS[2].answer)
    stats = store.question_stats(session)
    assert [s.question.id for s in stats[:3]] == [hard.id, easy.id, QUESTIONS[2].id]  # ties: most answered first
    assert stats[0].failure_rate == 1.0 and stats[1].failure_rate == 0.0
    assert stats[-1].failure_rate is None and stats[-1].answered == 0
    assert [(p.name, p.answered, p.correct) for p in store.progress(session)] == [("A", 3, 2), ("B", 2, 1)]


def test_csv_export_has_every_answer_and_defuses_formulas(store):
    session = store.create_session(QUESTIONS)
    evil = store.join(session.code, "=cmd|' /C calc'!A0")
    store.record_answer(evil.token, QUESTIONS[0].id, QUESTIONS[0].answer)
    rows = list(csv.DictReader(io.StringIO(store.export_csv(session))))
    assert len(rows) == 1 and rows[0]["student"].startswith("'=") and rows[0]["correct"] == "True"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Please enter a display name."),
        ("   ", "Please enter a display name."),
        ("x" * 41, "too long"),
        ("Eve\x00", "control characters"),
        ("Eve\nMallory", None),  # newlines collapse to a space
        ("abc\u202eevil", "control characters"),
        (None, "Please enter a display name."),
    ],
)
def test_names_are_validated(name, message):
    if message is None:
        assert clean_name(name) == "Eve Mallory"
    else:
        with pytest.raises(ClassroomError, match=message):
            clean_name(name)


def test_names_are_unique_per_session_case_insensitively(store):
    session = store.create_session(QUESTIONS)
    store.join(session.code, "Kim")
    with pytest.raises(ClassroomError, match="already called kim"):
        store.join(session.code, "kim")
    other = store.create_session(QUESTIONS)
    assert store.join(other.code, "Kim").code == other.code


def test_join_codes(store):
    codes = {new_code() for _ in range(200)}
    assert all(len(c) == 6 and set(c) <= set(CODE_ALPHABET) for c in codes) and len(codes) > 190
    assert not set("01OIL") & set(CODE_ALPHABET)
    assert normalize_code(" ab c-234 ") == "ABC234"
    for bad in ("ABC", "ABC2340", "ABCD0O", "", None):
        with pytest.raises(ClassroomError, match="A join code is 6 letters and digits"):
            normalize_code(bad)
    with pytest.raises(ClassroomError, match="no session with the code"):
        store.join("ABCDEF", "Zoe")


def test_a_closed_session_takes_no_one(store):
    session = store.create_session(QUESTIONS)
    student = store.join(session.code, "Late")
    store.close_session(session.code)
    with pytest.raises(ClassroomError, match="has ended"):
        store.join(session.code, "Later")
    with pytest.raises(ClassroomError, match="has ended"):
        store.record_answer(student.token, QUESTIONS[0].id, QUESTIONS[0].answer)
    assert session.code not in [c for c, _, _ in store.open_sessions()]


def test_bad_tokens_and_questions(store):
    session = store.create_session(QUESTIONS)
    student = store.join(session.code, "Val")
    assert store.student("nope") is None and store.student(None) is None and store.student("x" * 500) is None
    with pytest.raises(ClassroomError, match="not valid any more"):
        store.record_answer("a-made-up-token-123", QUESTIONS[0].id, "x")
    with pytest.raises(ClassroomError, match="not part of this session"):
        store.record_answer(student.token, "not-a-question", "x")
    for bad in ("x" * 5000, "0.4\x1b[2J", ["ok", "\u202eevil"], {"a": 1}):
        with pytest.raises(ClassroomError, match="cannot be stored"):
            store.record_answer(student.token, QUESTIONS[0].id, bad)
    assert store.answers(student.token) == {}


def test_teacher_pin():
    assert teacher_pin({"SPECVIZ_TEACHER_PIN": " 4321 "}) == "4321"
    assert teacher_pin({}, {"SPECVIZ_TEACHER_PIN": 2468}) == "2468"
    assert teacher_pin({"SPECVIZ_TEACHER_PIN": ""}, {}) is None
    assert pin_matches("4321", "4321") and pin_matches(" 4321 ", "4321")
    assert not pin_matches("1234", "4321") and not pin_matches("", "4321") and not pin_matches(None, "4321")
    assert not pin_matches("", None) and not pin_matches("anything", None)


def test_database_location(tmp_path):
    assert default_db_path({"SPECVIZ_CLASSROOM_DB": str(tmp_path / "x.db")}) == tmp_path / "x.db"
    assert default_db_path({"SPECVIZ_CACHE": str(tmp_path)}) == tmp_path / "classroom.sqlite"
    assert default_db_path({}).name == "classroom.sqlite"
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    with pytest.raises(ClassroomError, match="cannot be opened"):
        ClassroomStore(blocked / "sub" / "db.sqlite")
