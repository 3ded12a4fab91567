"""Classroom sessions: a teacher opens a session with a join code, students join by name and answer a quiz.

Everything lives in one SQLite file (WAL mode, a fresh connection per call, so any thread may use a store), which
means a refresh or a reconnect loses nothing: a student is identified by a random token (the page keeps it in the
URL) and resumes at their first unanswered question. Answers are graded here, server-side, with
`specviz.quiz.grade`, and stored once: the first answer to a question counts, a repeat returns the stored grade.
The teacher is authenticated by a PIN from the environment (or Streamlit secrets, read by the page), compared in
constant time. No Streamlit here.

  SPECVIZ_CLASSROOM_DB   the database file (default: $SPECVIZ_CACHE/classroom.sqlite, or
                         ~/.cache/specviz/classroom.sqlite)
  SPECVIZ_TEACHER_PIN    the teacher's PIN; without one the teacher view stays locked
"""

from __future__ import annotations

import functools
import hmac
import json
import os
import random
import secrets
import sqlite3
import time
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specviz.quiz import Grade, Question, answer_text, csv_text, grade, question_from_dict

DB_ENV, CACHE_ENV, PIN_ENV = "SPECVIZ_CLASSROOM_DB", "SPECVIZ_CACHE", "SPECVIZ_TEACHER_PIN"
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: easy to read off a projector
CODE_LENGTH = 6
NAME_MAX, TITLE_MAX, ANSWER_MAX = 40, 80, 2000
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    code TEXT PRIMARY KEY, title TEXT NOT NULL, questions TEXT NOT NULL,
    created_at REAL NOT NULL, closed INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS students (
    token TEXT PRIMARY KEY, code TEXT NOT NULL REFERENCES sessions(code), name TEXT NOT NULL COLLATE NOCASE,
    joined_at REAL NOT NULL, UNIQUE (code, name));
CREATE TABLE IF NOT EXISTS answers (
    token TEXT NOT NULL REFERENCES students(token), question_id TEXT NOT NULL, answer TEXT NOT NULL,
    correct INTEGER NOT NULL, answered_at REAL NOT NULL, PRIMARY KEY (token, question_id));
"""


class ClassroomError(ValueError):
    """Something a user did that cannot be done (bad name, unknown code, closed session); one sentence."""


@dataclass(frozen=True)
class Session:
    code: str
    title: str
    questions: tuple[Question, ...]
    created_at: float
    closed: bool


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


# ---- input checks ----------------------------------------------------------------------------------------------
def clean_text(text: Any, what: str, max_length: int) -> str:
    """Stripped, whitespace-collapsed text without control or direction-override characters, or ClassroomError.

    >>> clean_text("  Ada   Lovelace ", "name", 40)
    'Ada Lovelace'
    """
    if not isinstance(text, str) or not text.strip():
        raise ClassroomError(f"Please enter a {what}.")
    text = " ".join(unicodedata.normalize("NFC", text).split())
    if _has_control(text):
        raise ClassroomError(f"The {what} contains control characters; please use plain text.")
    if len(text) > max_length:
        raise ClassroomError(f"The {what} is too long: at most {max_length} characters, please.")
    return text


def clean_name(text: Any) -> str:
    return clean_text(text, "display name", NAME_MAX)


def normalize_code(text: Any) -> str:
    """A join code as typed (any case, spaces or dashes) in canonical form, or ClassroomError.

    >>> normalize_code(" abc-234 ")
    'ABC234'
    """
    raw = "".join(str(text or "").split()).replace("-", "").upper()
    if len(raw) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in raw):
        raise ClassroomError(f"A join code is {CODE_LENGTH} letters and digits, like {new_code(random.Random(0))}; "
                             "please check it.")
    return raw


def new_code(rng: random.Random | None = None) -> str:
    """A random join code from CODE_ALPHABET (cryptographically random unless an `rng` is given)."""
    pick = rng.choice if rng is not None else secrets.choice
    return "".join(pick(CODE_ALPHABET) for _ in range(CODE_LENGTH))


# ---- teacher PIN -----------------------------------------------------------------------------------------------
def teacher_pin(environ: Mapping[str, str] | None = None, secrets_map: Mapping[str, Any] | None = None) -> str | None:
    """The configured PIN: SPECVIZ_TEACHER_PIN from the environment, else from `secrets_map` (Streamlit secrets);
    None when neither sets a non-empty one."""
    environ = os.environ if environ is None else environ
    for source in (environ, secrets_map or {}):
        value = source.get(PIN_ENV)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    return None


def pin_matches(given: Any, expected: str | None) -> bool:
    """Constant-time comparison; no PIN configured means nothing matches."""
    if not expected or not isinstance(given, str):
        return False
    return hmac.compare_digest(given.strip().encode(), expected.encode())


# ---- the store -------------------------------------------------------------------------------------------------
def default_db_path(environ: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    if environ.get(DB_ENV):
        return Path(environ[DB_ENV]).expanduser()
    cache = Path(environ[CACHE_ENV]).expanduser() if environ.get(CACHE_ENV) else Path.home() / ".cache" / "specviz"
    return cache / "classroom.sqlite"


class ClassroomStore:
    """Sessions, students and answers in one SQLite file. Safe to share across threads: every call opens its own
    connection (with a busy timeout), and writes run in `BEGIN IMMEDIATE` transactions."""

    def __init__(self, path: str | os.PathLike[str] | None = None, timeout: float = 15.0) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self.timeout = timeout
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as conn:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ClassroomError(f"The classroom database at {self.path} cannot be opened ({exc}).") from None

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        try:
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    # ---- sessions ---------------------------------------------------------------------------------------------
    def create_session(self, questions: Sequence[Question], title: str = "") -> Session:
        """Open a session over `questions` (stored whole, so uploaded questions survive restarts)."""
        if not questions:
            raise ClassroomError("A session needs at least one question.")
        title = clean_text(title, "title", TITLE_MAX) if title and title.strip() else "Speculative decoding quiz"
        payload = json.dumps([q.to_dict() | {"source": q.source} for q in questions], ensure_ascii=False)
        now = time.time()
        for _ in range(20):
            code = new_code()
            try:
                with self._write() as conn:
                    conn.execute("INSERT INTO sessions (code, title, questions, created_at) VALUES (?, ?, ?, ?)",
                                 (code, title, payload, now))
                return Session(code, title, tuple(questions), now, False)
            except sqlite3.IntegrityError:
                continue
        raise ClassroomError("Could not find a free join code; please try again.")

    def session(self, code: str) -> Session | None:
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM sessions WHERE code = ?", (code,)).fetchone()
        if row is None:
            return None
        questions = _questions(row["questions"])
        return Session(row["code"], row["title"], questions, row["created_at"], bool(row["closed"]))

    def open_sessions(self) -> list[tuple[str, str, float]]:
        """(code, title, created_at) of sessions not yet closed, newest first."""
        with self._connect() as conn:
            rows = conn.execute("SELECT code, title, created_at FROM sessions WHERE closed = 0 "
                                "ORDER BY created_at DESC").fetchall()
        return [(r["code"], r["title"], r["created_at"]) for r in rows]

    def close_session(self, code: str) -> None:
        with self._write() as conn:
            conn.execute("UPDATE sessions SET closed = 1 WHERE code = ?", (code,))

    # ---- students ---------------------------------------------------------------------------------------------
    def join(self, code: str, name: str) -> Student:
        """Add a student to an open session; the name must be free in that session (case-insensitive)."""
        code, name = normalize_code(code), clean_name(name)
        session = self.session(code)
        if session is None:
            raise ClassroomError(f"There is no session with the code {code}; please check it with your teacher.")
        if session.closed:
            raise ClassroomError(f"Session {code} has ended.")
        student = Student(secrets.token_urlsafe(16), code, name, time.time())
        try:
            with self._write() as conn:
                conn.execute("INSERT INTO students (token, code, name, joined_at) VALUES (?, ?, ?, ?)",
                             (student.token, code, name, student.joined_at))
        except sqlite3.IntegrityError:
            raise ClassroomError(f"Someone in this session is already called {name}; please add an initial.") from None
        return student

    def student(self, token: Any) -> Student | None:
        """The student with this token, or None (for an unknown, expired or malformed token)."""
        if not isinstance(token, str) or not 10 <= len(token) <= 64:
            return None
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM students WHERE token = ?", (token,)).fetchone()
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
    def record_answer(self, token: str, question_id: str, answer: Any) -> tuple[Grade, bool]:
        """Grade and store a student's answer. Returns (grade, stored): stored is False when this question was
        already answered, and then the grade is that of the first answer, which is the one that counts."""
        student = self.student(token)
        if student is None:
            raise ClassroomError("This student link is not valid any more; please join again.")
        session = self.session(student.code)
        question = next((q for q in session.questions if q.id == question_id), None) if session else None
        if question is None:
            raise ClassroomError("That question is not part of this session.")
        if session.closed:
            raise ClassroomError(f"Session {session.code} has ended; answers are no longer taken.")
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
                result = grade(question, json.loads(first["answer"]))
        return result, stored

    def answers(self, token: str) -> dict[str, tuple[Any, bool]]:
        """question id -> (answer, correct) for one student."""
        with self._connect() as conn:
            rows = conn.execute("SELECT question_id, answer, correct FROM answers WHERE token = ?", (token,)).fetchall()
        return {r["question_id"]: (json.loads(r["answer"]), bool(r["correct"])) for r in rows}

    # ---- the teacher's view -----------------------------------------------------------------------------------
    def students(self, code: str) -> list[Student]:
        with self._connect() as conn:
            rows = conn.execute("SELECT * FROM students WHERE code = ? ORDER BY joined_at", (code,)).fetchall()
        return [Student(r["token"], r["code"], r["name"], r["joined_at"]) for r in rows]

    def question_stats(self, session: Session) -> list[QuestionStat]:
        """Per question: answered and correct counts, the most-failed first (unanswered last)."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT a.question_id AS qid, COUNT(*) AS n, SUM(a.correct) AS ok FROM answers a "
                "JOIN students s ON s.token = a.token WHERE s.code = ? GROUP BY a.question_id", (session.code,),
            ).fetchall()
        counts = {r["qid"]: (r["n"], r["ok"]) for r in rows}
        stats = [QuestionStat(q, *counts.get(q.id, (0, 0))) for q in session.questions]
        return sorted(stats, key=lambda s: (s.failure_rate is None, -(s.failure_rate or 0), -s.answered))

    def progress(self, session: Session) -> list[Progress]:
        """Per student, in joining order: answered, correct, out of how many, and when they last answered."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT s.name AS name, COUNT(a.question_id) AS n, COALESCE(SUM(a.correct), 0) AS ok, "
                "MAX(a.answered_at) AS last FROM students s LEFT JOIN answers a ON a.token = s.token "
                "WHERE s.code = ? GROUP BY s.token ORDER BY s.joined_at", (session.code,),
            ).fetchall()
        return [Progress(r["name"], r["n"], r["ok"], len(session.questions), r["last"]) for r in rows]

    def export_rows(self, session: Session) -> list[dict[str, Any]]:
        """Every stored answer: who, which question, what they answered, whether it was right, when."""
        concepts = {q.id: q.concept for q in session.questions}
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT s.name AS name, a.question_id AS qid, a.answer AS answer, a.correct AS correct, "
                "a.answered_at AS at FROM answers a JOIN students s ON s.token = a.token WHERE s.code = ? "
                "ORDER BY s.joined_at, a.answered_at", (session.code,),
            ).fetchall()
        return [{"student": r["name"], "question_id": r["qid"], "concept": concepts.get(r["qid"], ""),
                 "answer": answer_text(json.loads(r["answer"])), "correct": bool(r["correct"]),
                 "answered_at": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r["at"]))} for r in rows]

    def export_csv(self, session: Session) -> str:
        return csv_text(self.export_rows(session)) or "student,question_id,concept,answer,correct,answered_at\n"


@functools.lru_cache(maxsize=64)
def _questions(payload: str) -> tuple[Question, ...]:
    """A session's stored questions, parsed once per process (a session's questions never change)."""
    return tuple(question_from_dict(d) for d in json.loads(payload))


def _answer_json(answer: Any) -> str:
    """An answer as JSON for storage: text, a number, or a list of texts; anything else is refused."""
    if isinstance(answer, tuple):
        answer = list(answer)
    ok = answer is None or isinstance(answer, str | int | float) or (
        isinstance(answer, list) and all(isinstance(a, str) for a in answer))
    text = json.dumps(answer, ensure_ascii=False) if ok else ""
    texts = [answer] if isinstance(answer, str) else answer if isinstance(answer, list) else []
    if not ok or len(text) > ANSWER_MAX or any(_has_control(t) for t in texts):
        raise ClassroomError("That answer cannot be stored; please answer with the controls shown.")
    return text


def _has_control(text: str) -> bool:
    return any(unicodedata.category(ch) in ("Cc", "Cs", "Co") or ch in _BIDI for ch in text)
