"""The classroom's SQLite store: sessions, students and their answers in one file (WAL mode, a fresh connection per
call), graded server-side once, and every database failure as one ClassroomError sentence."""

from __future__ import annotations

import json
import logging
import os
import random
import secrets
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specviz.core.i18n import N_, _, number
from specviz.core.text import typed
from specviz.teach.classroom.answers import UNREADABLE, _answer_json, _questions, read_stored, stored_answer
from specviz.teach.classroom.inputs import (NOT_A_NUMBER, NOT_A_STUDENT_LINK, ClassroomError, DEFAULT_TITLES, TITLE_MAX,
                                            clean_name, clean_text, name_keys, new_code, normalize_code, shown_title)
from specviz.teach.quiz import Grade, Question, answer_text, csv_text, grade, parse_number, read_answer
from specviz.teach.quiz.schema import MAX_ANSWER, QuestionKind


log = logging.getLogger(__name__)

DB_ENV, CACHE_ENV = "SPECVIZ_CLASSROOM_DB", "SPECVIZ_CACHE"
MAX_STUDENTS = 200  # per session
BUSY_TIMEOUT = 5.0  # seconds a call waits for another writer before the database counts as busy
# A session's stored questions that no longer read as questions (the file was edited or damaged): one sentence on the
# page, and nothing deleted, so the answers stay for an export once the text is repaired.
DAMAGED_QUESTIONS = N_("This session's stored questions are damaged, so it cannot be shown; its students' answers "
                       "are kept in the class database.")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    code TEXT PRIMARY KEY, title TEXT NOT NULL, questions TEXT NOT NULL,
    created_at REAL NOT NULL, closed INTEGER NOT NULL DEFAULT 0, ended_at REAL);
CREATE TABLE IF NOT EXISTS students (
    token TEXT PRIMARY KEY, code TEXT NOT NULL REFERENCES sessions(code), name TEXT NOT NULL COLLATE NOCASE,
    joined_at REAL NOT NULL, UNIQUE (code, name));
CREATE TABLE IF NOT EXISTS answers (
    token TEXT NOT NULL REFERENCES students(token), question_id TEXT NOT NULL, answer TEXT NOT NULL,
    correct INTEGER NOT NULL, answered_at REAL NOT NULL, PRIMARY KEY (token, question_id));
"""


@dataclass(frozen=True)
class Session:
    code: str
    title: str
    questions: tuple[Question, ...]
    created_at: float
    closed: bool
    ended_at: float | None = None  # when the teacher ended it (None: still open, or ended before this was recorded)


@dataclass(frozen=True)
class SessionSummary:
    """One line of the teacher's list: open sessions and ended ones, which keep their answers."""

    code: str
    title: str
    created_at: float
    closed: bool
    ended_at: float | None = None

    def label(self) -> str:
        """'ABC234 · Period 3' or 'ABC234 · Period 3 · ended 2026-12-07 14:05 UTC' (the server's zone is not the
        teacher's)."""
        title = shown_title(self.title)
        if not self.closed:
            return f"{self.code} · {title}"
        if not self.ended_at:
            return _("{code} · {title} · ended", code=self.code, title=title)
        return _("{code} · {title} · ended {time} UTC", code=self.code, title=title, time=utc_clock(self.ended_at))


@dataclass(frozen=True)
class Student:
    token: str
    code: str
    name: str
    joined_at: float


@dataclass(frozen=True)
class QuestionStat:
    """How the class did on one question; `failure_rate` is None until someone answers it."""

    question: Question
    answered: int
    correct: int

    @property
    def failure_rate(self) -> float | None:
        return 1 - self.correct / self.answered if self.answered else None


@dataclass(frozen=True)
class Progress:
    name: str
    answered: int
    correct: int
    total: int
    last_answer_at: float | None


def default_db_path(environ: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    if environ.get(DB_ENV):
        return Path(environ[DB_ENV]).expanduser()
    cache = Path(environ[CACHE_ENV]).expanduser() if environ.get(CACHE_ENV) else Path.home() / ".cache" / "specviz"
    return cache / "classroom.sqlite"


class ClassroomStore:
    """Sessions, students and answers in one SQLite file. Safe to share across threads: every call opens its own
    connection (with a busy timeout, BUSY_TIMEOUT unless given), and writes run in `BEGIN IMMEDIATE` transactions.
    Database failures (busy, read-only, full, not a database) leave here as ClassroomError sentences."""

    def __init__(self, path: str | os.PathLike[str] | None = None, timeout: float | None = None) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self.timeout = BUSY_TIMEOUT if timeout is None else timeout
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as conn:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.executescript(_SCHEMA)
                columns = {r["name"] for r in conn.execute("PRAGMA table_info(sessions)")}
                if "ended_at" not in columns:  # a database made before ended sessions were kept with their time
                    conn.execute("ALTER TABLE sessions ADD COLUMN ended_at REAL")
        except (OSError, sqlite3.Error) as exc:
            raise unusable_database(exc, self.path, opening=True) from None

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection; any sqlite3 error but IntegrityError (which callers handle) becomes a ClassroomError."""
        try:
            conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise _database_error(exc, self.path) from None
        try:
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
            yield conn
        except sqlite3.IntegrityError:
            raise
        except sqlite3.Error as exc:
            raise _database_error(exc, self.path) from None
        finally:
            conn.close()

    def _rows(self, sql: str, params: Sequence[Any]) -> list[sqlite3.Row]:
        """The rows of one read-only query, on a connection of its own."""
        with self._connect() as conn:
            return conn.execute(sql, params).fetchall()

    def _row(self, sql: str, params: Sequence[Any]) -> sqlite3.Row | None:
        """The first row of one read-only query, or None."""
        rows = self._rows(sql, params)
        return rows[0] if rows else None

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:  # SQLite may already have rolled back (busy, full, I/O error)
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    # ---- sessions ---------------------------------------------------------------------------------------------
    def create_session(self, questions: Sequence[Question], title: str = "") -> Session:
        """Open a session over `questions` (stored whole, so uploaded questions survive restarts)."""
        if not questions:
            raise ClassroomError(_("A session needs at least one question."))
        title = clean_text(title, N_("title"), TITLE_MAX) if title and title.strip() else _(DEFAULT_TITLES[0])
        payload = json.dumps([q.to_dict() | {"source": q.source} for q in questions], ensure_ascii=False)
        now = time.time()
        for _attempt in range(20):
            code = new_code()
            try:
                with self._write() as conn:
                    conn.execute("INSERT INTO sessions (code, title, questions, created_at) VALUES (?, ?, ?, ?)",
                                 (code, title, payload, now))
                return Session(code, title, tuple(questions), now, False)
            except sqlite3.IntegrityError:
                continue
        raise ClassroomError(_("Could not find a free join code; please try again."))

    def session(self, code: str) -> Session | None:
        row = self._row("SELECT * FROM sessions WHERE code = ?", (code,))
        if row is None:
            return None
        try:
            questions = _questions(row["questions"])
        except (ValueError, TypeError, RecursionError):  # edited or damaged text; QuizBankError is a ValueError
            raise ClassroomError(_(DAMAGED_QUESTIONS)) from None
        return Session(row["code"], row["title"], questions, row["created_at"], bool(row["closed"]), row["ended_at"])

    def open_sessions(self) -> list[tuple[str, str, float]]:
        """(code, title, created_at) of sessions not yet closed, newest first."""
        return [(s.code, s.title, s.created_at) for s in self.sessions() if not s.closed]

    def sessions(self, limit: int = 200) -> list[SessionSummary]:
        """The teacher's list: open sessions (newest first), then ended ones (most recently ended first), which stay
        viewable and exportable; at most `limit`."""
        rows = self._rows("SELECT code, title, created_at, closed, ended_at FROM sessions "
                          "ORDER BY closed, COALESCE(ended_at, created_at) DESC, created_at DESC LIMIT ?", (limit,))
        return [SessionSummary(r["code"], r["title"], r["created_at"], bool(r["closed"]), r["ended_at"])
                for r in rows]

    def close_session(self, code: str) -> None:
        """End a session: no more joins or answers; its students and answers stay, and so does it in `sessions`."""
        with self._write() as conn:
            conn.execute("UPDATE sessions SET closed = 1, ended_at = COALESCE(ended_at, ?) WHERE code = ?",
                         (time.time(), code))

    # ---- students ---------------------------------------------------------------------------------------------
    def join(self, code: str, name: str) -> Student:
        """Add a student to an open session that has room (MAX_STUDENTS); the name must be free in that session
        (compared by `name_keys`: case, invisible characters and look-alike letters do not make a new name). A name
        that only looks like one already there is refused with both names: the sentence said "already called Amie"
        to an Amie beside an Arnie, which nobody was (read 45)."""
        code, name = normalize_code(code), clean_name(name)
        session = self.session(code)
        if session is None:
            raise ClassroomError(_("There is no session with the code {code}; please check it with your teacher.",
                                   code=code))
        if session.closed:
            raise ClassroomError(_("Session {code} has ended.", code=code))
        student = Student(secrets.token_urlsafe(16), code, name, time.time())
        # read 51: the names quoted as typed words are (`typed`: 'Ana'), so a refusal that opens on a name is no
        # sentence beginning in lower case ("ana looks too much like Ana")
        taken = ClassroomError(_("Someone in this session is already called {name}; please add an initial.",
                                 name=typed(name, marks=False)))
        try:
            with self._write() as conn:  # BEGIN IMMEDIATE: the count and the names cannot change under us
                names = [r["name"] for r in conn.execute("SELECT name FROM students WHERE code = ?", (code,))]
                if len(names) >= MAX_STUDENTS:
                    raise ClassroomError(_("Session {code} is full ({limit} students); please ask your teacher to "
                                           "start another one.", code=code, limit=MAX_STUDENTS))
                keys = name_keys(name)
                clash = next((n for n in names if keys & name_keys(n)), None)
                if clash is not None and clash != name:  # "Amie" beside "Arnie": nobody is called what was typed
                    raise ClassroomError(_("The name {name} is too easily mistaken for {taken}, who is already in "
                                           "this session; please add an initial.", name=typed(name, marks=False),
                                           taken=typed(clash, marks=False)))
                if clash is not None:
                    raise taken
                conn.execute("INSERT INTO students (token, code, name, joined_at) VALUES (?, ?, ?, ?)",
                             (student.token, code, name, student.joined_at))
        except sqlite3.IntegrityError:
            raise taken from None
        return student

    ANSWER_TABLES: tuple[str, ...] = ("answers",)  # where a student's answers are kept (PacedStore adds its rounds')

    def _no_answer(self) -> str:
        """SQL: the `students` row has no answer in any of ANSWER_TABLES."""
        return " AND ".join(f"NOT EXISTS (SELECT 1 FROM {table} WHERE {table}.token = students.token)"
                            for table in self.ANSWER_TABLES)

    def unanswered_students(self, code: str) -> list[Student]:
        """The session's students who have not answered anything: the names a teacher may release."""
        rows = self._rows(f"SELECT * FROM students WHERE code = ? AND {self._no_answer()} ORDER BY joined_at", (code,))
        return [Student(r["token"], r["code"], r["name"], r["joined_at"]) for r in rows]

    def release_name(self, code: str, name: str) -> bool:
        """Free a name for joining again (issue 44 item 4: a join whose reply was lost left a name its student could
        never rejoin under): only a student of this session who has answered nothing is removed, checked and removed
        in one statement, so no answer is ever lost. Whether one was."""
        with self._write() as conn:
            removed = conn.execute(f"DELETE FROM students WHERE code = ? AND name = ? COLLATE BINARY AND "
                                   f"{self._no_answer()}", (normalize_code(code), name)).rowcount
        return removed == 1

    def student(self, token: Any) -> Student | None:
        """The student with this token, or None (for a malformed token, or one no student holds: never issued, or
        its name released by `release_name`; tokens do not expire)."""
        if not isinstance(token, str) or not 10 <= len(token) <= 64:
            return None
        row = self._row("SELECT * FROM students WHERE token = ?", (token,))
        return Student(row["token"], row["code"], row["name"], row["joined_at"]) if row else None

    def question_order(self, session: Session, student: Student) -> list[Question]:
        """This student's question order: shuffled per student (so neighbours differ), fixed across reconnects."""
        order = list(session.questions)
        random.Random(f"{session.code}:{student.token}").shuffle(order)
        return order

    def next_question(self, session: Session, student: Student) -> Question | None:
        """The first question this student has not answered yet; None when they are done."""
        done = self.answers(student.token)
        return next((q for q in self.question_order(session, student) if q.id not in done), None)

    # ---- answers ----------------------------------------------------------------------------------------------
    def record_answer(self, token: str, question_id: str, answer: Any,
                      language: str | None = None) -> tuple[Grade, bool]:
        """Grade and store a student's answer, a number read in the student's `language` (`parse_number`: "1,500" is
        1500 in English, 1.5 in Portuguese: `read_answer`, never the other convention's reading).
        Returns (grade, stored): stored is False when this question was
        already answered, and then the grade is that of the first answer, which is the one that counts."""
        student = self.student(token)
        if student is None:
            raise ClassroomError(_(NOT_A_STUDENT_LINK))
        session = self.session(student.code)
        question = next((q for q in session.questions if q.id == question_id), None) if session else None
        if question is None:
            raise ClassroomError(_("That question is not part of this session."))
        if session.closed:
            raise ClassroomError(_("Session {code} has ended; answers are no longer taken.", code=session.code))
        answer = stored_answer(question, answer)  # a choice picked in another language: the stored question's text
        if question.kind == QuestionKind.NUMERIC:  # read 49: stored as typed ("1,5") where a teacher-paced one was 1.5
            _answer_json(answer)  # what no form sends (a list, a NaN, a control character): "cannot be stored"
            answer = read_answer(question, answer, language).value
            if answer is None:  # read 50: "forty" was stored as typed and graded wrong; teacher-paced refuses it
                raise ClassroomError(_(NOT_A_NUMBER, most=number(MAX_ANSWER, 0)))
        text = _answer_json(answer)
        result = grade(question, answer)
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO answers (token, question_id, answer, correct, answered_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (token, question_id, text, int(result.correct), time.time()))
            stored = cursor.rowcount == 1
            if not stored:
                first = conn.execute("SELECT answer FROM answers WHERE token = ? AND question_id = ?",
                                     (token, question_id)).fetchone()
                kept = read_stored(first["answer"])
                result = grade(question, kept) if kept is not UNREADABLE else result
        return result, stored

    def answers(self, token: str) -> dict[str, tuple[Any, bool]]:
        """question id -> (answer, correct) for one student."""
        rows = self._rows("SELECT question_id, answer, correct FROM answers WHERE token = ?", (token,))
        return {r["question_id"]: (answer, bool(r["correct"])) for r in rows
                if (answer := read_stored(r["answer"])) is not UNREADABLE}

    # ---- the teacher's view -----------------------------------------------------------------------------------
    def students(self, code: str) -> list[Student]:
        rows = self._rows("SELECT * FROM students WHERE code = ? ORDER BY joined_at", (code,))
        return [Student(r["token"], r["code"], r["name"], r["joined_at"]) for r in rows]

    def question_stats(self, session: Session) -> list[QuestionStat]:
        """Per question: answered and correct counts, the most-failed first (unanswered last). A stored answer
        `read_stored` cannot read is left out, as in `export_rows` (`unreadable_answers` counts it)."""
        rows = self._rows(
            "SELECT a.question_id AS qid, a.answer AS answer, a.correct AS correct FROM answers a "
            "JOIN students s ON s.token = a.token WHERE s.code = ?", (session.code,),
        )
        counts: dict[str, list[int]] = {}
        for r in rows:
            if read_stored(r["answer"]) is not UNREADABLE:
                count = counts.setdefault(r["qid"], [0, 0])
                count[0] += 1
                count[1] += bool(r["correct"])
        stats = [QuestionStat(q, *counts.get(q.id, (0, 0))) for q in session.questions]
        return sorted(stats, key=lambda s: (s.failure_rate is None, -(s.failure_rate or 0), -s.answered))

    def progress(self, session: Session) -> list[Progress]:
        """Per student, in joining order: answered, correct, out of how many, and when they last answered (an
        unreadable stored answer left out, as in `question_stats`)."""
        rows = self._rows(
            "SELECT s.token AS token, s.name AS name, a.answer AS answer, a.correct AS correct, "
            "a.answered_at AS at FROM students s LEFT JOIN answers a ON a.token = s.token "
            "WHERE s.code = ? ORDER BY s.joined_at, s.token", (session.code,),
        )
        found: dict[str, list] = {}  # token -> [name, answered, correct, last], in joining order
        for r in rows:
            entry = found.setdefault(r["token"], [r["name"], 0, 0, None])
            if r["at"] is not None and read_stored(r["answer"]) is not UNREADABLE:
                entry[1] += 1
                entry[2] += bool(r["correct"])
                entry[3] = r["at"] if entry[3] is None else max(entry[3], r["at"])
        return [Progress(name, n, ok, len(session.questions), last) for name, n, ok, last in found.values()]

    def export_rows(self, session: Session) -> list[dict[str, Any]]:
        """Every stored answer: who, which question, what they answered, whether it was right, when."""
        concepts = {q.id: q.concept for q in session.questions}
        numeric = {q.id for q in session.questions if q.kind == QuestionKind.NUMERIC}
        rows = self._rows(
            "SELECT s.name AS name, a.question_id AS qid, a.answer AS answer, a.correct AS correct, "
            "a.answered_at AS at FROM answers a JOIN students s ON s.token = a.token WHERE s.code = ? "
            "ORDER BY s.joined_at, a.answered_at", (session.code,),
        )
        return [{"student": r["name"], "question_id": r["qid"], "concept": concepts.get(r["qid"], ""),
                 "answer": answer_text(as_number(answer) if r["qid"] in numeric else answer),
                 "correct": bool(r["correct"]), "answered_at_utc": utc_stamp(r["at"])} for r in rows
                if (answer := read_stored(r["answer"])) is not UNREADABLE]

    def unreadable_answers(self, session: Session) -> int:
        """How many of the session's stored answers `read_stored` cannot read: left out of the counts, the charts'
        data and the exports."""
        rows = self._rows("SELECT a.answer AS answer FROM answers a JOIN students s ON s.token = a.token "
                          "WHERE s.code = ?", (session.code,))
        return sum(read_stored(r["answer"]) is UNREADABLE for r in rows)

    def export_csv(self, session: Session) -> str:
        return csv_text(self.export_rows(session)) or "student,question_id,concept,answer,correct,answered_at_utc\n"


def as_number(answer: Any) -> Any:
    """A numeric question's answer as it is stored and exported: the number it is (2.5 for "2,5", 0.4 for "40%"), as
    a teacher-paced session keeps it (read 49: self-paced ones were kept as typed, "1,5" beside 1.5); an answer that
    is no number stays as typed (`record_answer` refuses one since read 50; a database from before may hold one).

    >>> as_number("2,5"), as_number(" 40% "), as_number("forty")
    (2.5, 0.4, 'forty')
    """
    value = parse_number(answer)
    return answer if value is None else value


def utc_clock(at: float, seconds: bool = False) -> str:
    """A stored time as the teacher's screens write it: the date, hours and minutes (and `seconds`) in UTC, which the
    sentence around it names. The server's local clock has no zone a teacher elsewhere can read, and a session kept
    for days (homework) needs its day: "ended 14:05" three days later read as today's (read 48).

    >>> utc_clock(0.0), utc_clock(3723.0, seconds=True)
    ('1970-01-01 00:00', '1970-01-01 01:02:03')
    """
    return time.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M", time.gmtime(at))


def utc_stamp(at: float) -> str:
    """A stored time as the exports write it: ISO 8601 in UTC, with its Z.

    >>> utc_stamp(1_000_000_000.0)
    '2001-09-09T01:46:40Z'
    """
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


_BUSY, _LOCKED, _READONLY, _IOERR, _FULL = 5, 6, 8, 10, 13  # SQLite's primary result codes


def _database_error(exc: sqlite3.Error, path: Path) -> ClassroomError:
    """One sentence for a database failure: busy, read-only, out of space, or (with the file) anything else."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary, text = (code & 0xFF if isinstance(code, int) else None), str(exc).lower()
    if primary in (_BUSY, _LOCKED) or "locked" in text or "busy" in text:
        return ClassroomError(_("The class database is busy; try again in a moment."))
    if primary == _READONLY or "readonly" in text:
        return ClassroomError(_("The class database is read-only, so nothing can be saved; please tell your "
                                "teacher."))
    if primary in (_IOERR, _FULL) or "disk" in text:
        return ClassroomError(_("The class database cannot be written (the disk is full or failing); please tell "
                                "your teacher."))
    return unusable_database(exc, path)


def unusable_database(exc: Exception, path: Path, opening: bool = False) -> ClassroomError:
    """One translated sentence for a database failure with no sentence of its own; SQLite's (or the system's) own
    English message and the file's path go to the server's log, never onto a page any visitor reads (read 48:
    "(file is not a database)" quoted in the middle of a Portuguese sentence, and the server's path shown to
    students)."""
    log.warning("class database %s %s: %s", path, "not opened" if opening else "not usable", exc)
    if opening:
        return ClassroomError(_("The class database cannot be opened; the server's log names its file and says why."))
    return ClassroomError(_("The class database cannot be used; the server's log names its file and says why."))
