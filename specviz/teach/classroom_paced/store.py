"""The teacher-paced store: pushes, rounds and one answer per (push, round, student), next to the self-paced tables
in the same SQLite file, with every refusal one ClassroomError sentence."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from specviz.core.i18n import _, get_language, language_code, number
from specviz.teach.classroom import (DEFAULT_TITLES, UNREADABLE, ClassroomError, ClassroomStore, Session, concept_name,
                                     in_language, normalize_code, read_stored, stored_answer)
from specviz.teach.classroom.store import DAMAGED_QUESTIONS, unusable_database, utc_stamp
from specviz.teach.classroom_paced.spread import OTHER_ORDERS, Distribution, checked_answer, distribution, relabel
from specviz.teach.classroom_paced.text import TEXT
from specviz.teach.quiz import Question, QuizBankError, answer_text, csv_text, grade, question_from_dict
from specviz.teach.quiz.schema import QuestionKind


ROUNDS = (1, 2)
POLL_SECONDS = 2  # how often a student's screen asks for the teacher's current push: a push arrives within about
# one poll plus the time the server takes to draw it (docs/classroom.md; measured by scripts/push_latency.py)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS paced_sessions (code TEXT PRIMARY KEY REFERENCES sessions(code));
CREATE TABLE IF NOT EXISTS pushes (
    id INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT NOT NULL REFERENCES sessions(code), question TEXT NOT NULL,
    round INTEGER NOT NULL DEFAULT 1 CHECK (round IN (1, 2)), open INTEGER NOT NULL DEFAULT 1,
    revealed INTEGER NOT NULL DEFAULT 0, pushed_at REAL NOT NULL, round_started_at REAL NOT NULL,
    revealed_at REAL);
CREATE INDEX IF NOT EXISTS pushes_by_session ON pushes (code, id);
CREATE TABLE IF NOT EXISTS round_answers (
    push_id INTEGER NOT NULL REFERENCES pushes(id), round INTEGER NOT NULL CHECK (round IN (1, 2)),
    token TEXT NOT NULL REFERENCES students(token), answer TEXT NOT NULL, correct INTEGER NOT NULL,
    answered_at REAL NOT NULL, UNIQUE (push_id, round, token));
"""


@dataclass(frozen=True)
class Push:
    """One pushed question. `number` counts the session's pushes from 1; `round` is 1 or 2; `open` says whether
    that round takes answers; after `revealed` nothing does."""

    id: int
    code: str
    number: int
    question: Question
    round: int
    open: bool
    revealed: bool
    pushed_at: float
    round_started_at: float
    revealed_at: float | None
    translations: dict[str, Question] = field(default_factory=dict)  # language -> the question in it (live ones)

    def shown(self, lang: str | None = None) -> Question:
        """The pushed question as a reader of `lang` (default: the current language) sees it: the translation pushed
        with it (a question from a live run), else its bank twin (`in_language`), else as pushed."""
        code = language_code(lang) or get_language()
        return self.translations.get(code) or in_language(self.question, code)


@dataclass(frozen=True)
class ConceptScore:
    """One concept over a session's pushes: right answers out of answers, in round 1 and in round 2. `questions`
    counts its distinct questions, `pushes` the times they were pushed (read 49: "questions" counted pushes, so a
    question pushed twice counted as 2). Round 1 counts every push's answers, round 2 only the pushes that had a
    round 2 (`paired_pushes` of them), so the two can cover different questions; `paired` is round 1 (right,
    answered) over those same pushes, the share to set beside round 2's (read 49)."""

    concept: str
    name: str
    questions: int
    correct: tuple[int, int]
    answered: tuple[int, int]
    pushes: int = 0
    paired: tuple[int, int] = (0, 0)
    paired_pushes: int = 0

    def share(self, round_: int) -> float | None:
        n = self.answered[round_ - 1]
        return self.correct[round_ - 1] / n if n else None


class PacedStore(ClassroomStore):
    """The classroom store with teacher-paced sessions. Thread-safe like its parent: a connection per call, writes
    in BEGIN IMMEDIATE transactions, one answer per (push, round, student) enforced by the database."""

    ANSWER_TABLES = ("answers", "round_answers")  # a student who answered a pushed round has answered too

    def __init__(self, path: Any = None, timeout: float | None = None) -> None:
        super().__init__(path, timeout)
        try:
            with self._connect() as conn:
                conn.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise unusable_database(exc, self.path, opening=True) from None

    # ---- sessions ---------------------------------------------------------------------------------------------
    def create_paced_session(self, questions: Sequence[Question], title: str = "") -> Session:
        """A teacher-paced session whose question list is the pool the teacher picks from (any other question,
        such as one from a live run, can still be pushed)."""
        session = self.create_session(questions, title or _(DEFAULT_TITLES[1]))
        with self._write() as conn:
            conn.execute("INSERT INTO paced_sessions (code) VALUES (?)", (session.code,))
        return session

    def is_paced(self, code: str) -> bool:
        with self._connect() as conn:
            return conn.execute("SELECT 1 FROM paced_sessions WHERE code = ?", (code,)).fetchone() is not None

    def record_answer(self, token: str, question_id: str, answer: Any,  # noqa: ANN201 - the parent's type
                      language: str | None = None):
        """Self-paced answers only: a teacher-paced session takes answers through `answer`."""
        student = self.student(token)
        if student is not None and self.is_paced(student.code):
            raise ClassroomError(_(TEXT["not_current"]))
        return super().record_answer(token, question_id, answer, language)

    def _paced_session(self, code: Any) -> Session:
        code = normalize_code(code)
        session = self.session(code)
        if session is None:
            raise ClassroomError(_(TEXT["no_session"], code=code))
        if not self.is_paced(code):
            raise ClassroomError(_(TEXT["not_paced"], code=code))
        if session.closed:
            raise ClassroomError(_(TEXT["ended"], code=code))
        return session

    # ---- the teacher's moves ----------------------------------------------------------------------------------
    def push(self, code: str, question: Question, translations: Mapping[str, Question] | None = None) -> Push:
        """Make `question` the class's current question, round 1 open; the previous one stops taking answers.
        `translations` (language -> the same question in it, e.g. a live question built in each language) are kept
        with it when they are its twins (same id and kind, the right answer at the same position), so every student
        reads it in their own language and their answers are counted together."""
        session = self._paced_session(code)
        twins = {lang: q.to_dict() | {"source": q.source} for lang, q in (translations or {}).items()
                 if language_code(lang) == lang and twin_of(question, q)}
        payload = json.dumps(question.to_dict() | {"source": question.source}
                             | ({"translations": twins} if twins else {}), ensure_ascii=False)
        now = time.time()
        with self._write() as conn:
            conn.execute("UPDATE pushes SET open = 0 WHERE code = ?", (session.code,))
            conn.execute("INSERT INTO pushes (code, question, pushed_at, round_started_at) VALUES (?, ?, ?, ?)",
                         (session.code, payload, now, now))
        return self.current(session.code)

    def start_round_2(self, code: str) -> Push:
        """After the discussion: the same question again, answers open for round 2 (round 1's are kept)."""
        push = self._current_or_error(code)
        if push.revealed:
            raise ClassroomError(_(TEXT["round2_after_reveal"]))
        if push.round == 2:
            raise ClassroomError(_(TEXT["round2_twice"]))
        with self._write() as conn:
            conn.execute("UPDATE pushes SET round = 2, open = 1, round_started_at = ? WHERE id = ? AND round = 1",
                         (time.time(), push.id))
        return self.current(push.code)

    def reveal(self, code: str) -> Push:
        """Close the answers and show everyone the right answer and its explanation (again: nothing changes)."""
        push = self._current_or_error(code)
        with self._write() as conn:
            conn.execute("UPDATE pushes SET open = 0, revealed = 1, revealed_at = COALESCE(revealed_at, ?) "
                         "WHERE id = ?", (time.time(), push.id))
        return self.current(push.code)

    def _current_or_error(self, code: str) -> Push:
        session = self._paced_session(code)
        push = self.current(session.code)
        if push is None:
            raise ClassroomError(_(TEXT["no_push"], code=session.code))
        return push

    # ---- the students' answers --------------------------------------------------------------------------------
    def answer(self, token: str, push_id: int, round_: int, answer: Any, language: str | None = None) -> bool:
        """Store a student's answer to the current question's open round, a number read in the student's `language`
        (`read_answer`); no feedback (that waits for the reveal).
        Returns whether it was stored: False when this student already answered this round (the first answer
        counts). Every refusal is one ClassroomError sentence."""
        student = self.student(token)
        if student is None:
            raise ClassroomError(_(TEXT["stale_link"]))
        self._paced_session(student.code)
        push = self.current(student.code)
        if push is None or push.id != push_id:
            raise ClassroomError(_(TEXT["not_current"]))
        if push.revealed:
            raise ClassroomError(_(TEXT["revealed"]))
        if round_ != push.round or not push.open:
            raise ClassroomError(_(TEXT["round_closed"], round=round_))
        value = checked_answer(push.question, stored_answer(push.question, answer, push.translations.values()),
                               language)
        correct = grade(push.question, value).correct
        try:
            with self._write() as conn:  # checked again under the write lock: the teacher may have moved on
                now = conn.execute(
                    "SELECT round, open, revealed, id = (SELECT MAX(id) FROM pushes WHERE code = ?) AS current "
                    "FROM pushes WHERE id = ?", (student.code, push.id)).fetchone()
                if not now["current"]:
                    raise ClassroomError(_(TEXT["not_current"]))
                if now["revealed"]:
                    raise ClassroomError(_(TEXT["revealed"]))
                if now["round"] != round_ or not now["open"]:
                    raise ClassroomError(_(TEXT["round_closed"], round=round_))
                held = conn.execute("SELECT answer FROM round_answers WHERE push_id = ? AND round = ? AND token = ?",
                                    (push.id, round_, token)).fetchone()
                if held is not None and read_stored(held["answer"]) is UNREADABLE:  # a damaged row: answer again
                    conn.execute("DELETE FROM round_answers WHERE push_id = ? AND round = ? AND token = ?",
                                 (push.id, round_, token))
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO round_answers (push_id, round, token, answer, correct, answered_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (push.id, round_, token, json.dumps(value, ensure_ascii=False), int(correct), time.time()))
                return cursor.rowcount == 1
        except sqlite3.IntegrityError:
            raise ClassroomError(_(TEXT["stale_link"])) from None

    def my_answers(self, token: str, push_id: int) -> dict[int, tuple[Any, bool]]:
        """round -> (answer, correct) for one student and one push. A stored answer `read_stored` cannot read is
        left out, as everywhere else: the student sees that round unanswered, and `answer` replaces the row."""
        with self._connect() as conn:
            rows = conn.execute("SELECT round, answer, correct FROM round_answers WHERE token = ? AND push_id = ?",
                                (token, push_id)).fetchall()
        return {r["round"]: (answer, bool(r["correct"])) for r in rows
                if (answer := read_stored(r["answer"])) is not UNREADABLE}

    # ---- what the teacher sees --------------------------------------------------------------------------------
    def current(self, code: str) -> Push | None:
        """The session's current question: the last one pushed (None before the first push)."""
        pushes = self.pushes(code, last_only=True)
        return pushes[0] if pushes else None

    def pushes(self, code: str, last_only: bool = False) -> list[Push]:
        """The session's pushes in order (or only the last)."""
        with self._connect() as conn:
            rows = conn.execute("SELECT * FROM pushes WHERE code = ? ORDER BY id", (code,)).fetchall()
        numbered = list(enumerate(rows, start=1))
        return [_push(r, n) for n, r in (numbered[-1:] if last_only else numbered)]

    def answered(self, push: Push, round_: int | None = None) -> int:
        """How many students have answered `round_` (default: the push's current round); an answer `read_stored`
        cannot read is left out, as in `round_answers`."""
        with self._connect() as conn:
            rows = conn.execute("SELECT answer FROM round_answers WHERE push_id = ? AND round = ?",
                                (push.id, round_ or push.round)).fetchall()
        return sum(read_stored(r["answer"]) is not UNREADABLE for r in rows)

    def round_answers(self, push: Push) -> list[tuple[int, str, Any, bool, float]]:
        """(round, student name, answer, correct, answered_at) for every answer to a push, in answering order."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT a.round AS round, s.name AS name, a.answer AS answer, a.correct AS correct, "
                "a.answered_at AS at FROM round_answers a JOIN students s ON s.token = a.token "
                "WHERE a.push_id = ? ORDER BY a.round, a.answered_at", (push.id,)).fetchall()
        return [(r["round"], r["name"], answer, bool(r["correct"]), r["at"]) for r in rows
                if (answer := read_stored(r["answer"])) is not UNREADABLE]

    def unreadable_answers(self, session: Session) -> int:
        """The session's unreadable stored answers: self-paced ones and every pushed round's."""
        rows = self._rows("SELECT a.answer AS answer FROM round_answers a JOIN pushes p ON p.id = a.push_id "
                          "WHERE p.code = ?", (session.code,))
        return super().unreadable_answers(session) + sum(read_stored(r["answer"]) is UNREADABLE for r in rows)

    def distribution(self, push: Push, lang: str | None = None) -> Distribution:
        """How the push's answers spread; with `lang`, labelled with the question's choices in that language (the
        answers of every language are counted together: they are stored in the pushed question's words)."""
        answers = [[a for rnd, _name, a, _ok, _at in self.round_answers(push) if rnd == r] for r in ROUNDS]
        correct = tuple(sum(grade(push.question, a).correct for a in answers[r - 1]) for r in ROUNDS)
        spread = distribution(push.question, answers[0], answers[1], correct, order=display_order(push))
        return spread if lang is None else relabel(spread, push.question, push.shown(lang))

    def mastery(self, code: str) -> list[ConceptScore]:
        """Per concept pushed in the session, in order of first push: right answers in round 1 (every push), in
        round 2 (the pushes that had one) and in round 1 of those same pushes (an answer `read_stored` cannot read
        left out, as in `round_answers`)."""
        scores: dict[str, list[int]] = {}
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT p.id AS id, p.question AS question, p.round AS pushed_round, a.round AS round, "
                "a.answer AS answer, a.correct AS correct FROM pushes p "
                "LEFT JOIN round_answers a ON a.push_id = p.id WHERE p.code = ? ORDER BY p.id", (code,)).fetchall()
        seen: set[int] = set()
        questions: dict[str, set[str]] = {}  # concept -> its distinct question ids
        for r in rows:
            question = _question(r["question"])[0]
            # pushes, right 1, answered 1, right 2, answered 2, pushes with a round 2, right 1 and answered 1 of those
            score = scores.setdefault(question.concept, [0] * 8)
            questions.setdefault(question.concept, set()).add(question.id)
            paired = r["pushed_round"] == 2
            if r["id"] not in seen:
                seen.add(r["id"])
                score[0] += 1
                score[5] += paired
            if r["round"] in ROUNDS and read_stored(r["answer"]) is not UNREADABLE:
                score[2 * r["round"] - 1] += bool(r["correct"])
                score[2 * r["round"]] += 1
                if paired and r["round"] == 1:
                    score[6] += bool(r["correct"])
                    score[7] += 1
        return [ConceptScore(c, concept_name(c), len(questions[c]), (s[1], s[3]), (s[2], s[4]), s[0], (s[6], s[7]),
                             s[5]) for c, s in scores.items()]

    # ---- export -----------------------------------------------------------------------------------------------
    def export_rows(self, session: Session) -> list[dict[str, Any]]:
        """Every answer of a session, both rounds for a teacher-paced one (the self-paced rows otherwise)."""
        if not self.is_paced(session.code):
            return super().export_rows(session)
        return [{"push": push.number, "question_id": push.question.id, "concept": push.question.concept,
                 "question": push.question.prompt, "round": rnd, "student": name, "answer": answer_text(answer),
                 "correct": ok, "answered_at_utc": utc_stamp(at)}
                for push in self.pushes(session.code) for rnd, name, answer, ok, at in self.round_answers(push)]

    def export_csv(self, session: Session) -> str:
        if not self.is_paced(session.code):
            return super().export_csv(session)
        return csv_text(self.export_rows(session)) or (
            "push,question_id,concept,question,round,student,answer,correct,answered_at_utc\n")

    def export_json(self, session: Session) -> str:
        """The session as JSON: each pushed question with its right answer, its rounds' answers and
        distributions, and the per-concept mastery."""
        pushes = []
        for push in self.pushes(session.code):
            answers = self.round_answers(push)
            dist = self.distribution(push)
            rounds = {str(r): {"answers": [{"student": n, "answer": a, "correct": ok, "answered_at": utc_stamp(at)}
                                           for rnd, n, a, ok, at in answers if rnd == r],
                               "distribution": _spread_json(dist, r)}
                      for r in ROUNDS if r <= push.round}
            pushes.append({"number": push.number, "question": push.question.to_dict(), "revealed": push.revealed,
                           "pushed_at": utc_stamp(push.pushed_at), "rounds": rounds})
        # read 49: round 1 counted every push and round 2 only those with a round 2; each says its pushes, and
        # round 1 is given again over round 2's pushes
        mastery = [{"concept": m.concept, "name": m.name, "questions": m.questions, "pushes": m.pushes,
                    "round_1": {"correct": m.correct[0], "answered": m.answered[0], "pushes": m.pushes},
                    "round_2": {"correct": m.correct[1], "answered": m.answered[1], "pushes": m.paired_pushes},
                    "round_1_of_round_2_pushes": {"correct": m.paired[0], "answered": m.paired[1],
                                                  "pushes": m.paired_pushes}}
                   for m in self.mastery(session.code)]
        return json.dumps({"code": session.code, "title": session.title,
                           "created_at": utc_stamp(session.created_at),
                           # read 49: the CSV's teacher could not tell from the JSON when the session ended
                           "ended_at": utc_stamp(session.ended_at) if session.ended_at is not None else None,
                           "students": [s.name for s in self.students(session.code)], "pushes": pushes,
                           "mastery": mastery, "unreadable_answers": self.unreadable_answers(session)},
                          indent=2, ensure_ascii=False, allow_nan=False)  # strict JSON: no NaN ever written


def _spread_json(spread: Distribution, round_: int) -> dict[str, int] | list[dict[str, float | int | None]]:
    """One round's spread for the JSON export: choice (or order) -> answers, the orders not listed under
    `OTHER_ORDERS` ("other_orders" in every language; docs/classroom.md); for a numeric question a list of bars
    with plain numbers, {"value": v, "count": n} or {"from": a, "to": b, "count": n} (None for an open end; for a
    bar of one value, its lowest and highest answers where they differ), never the labels the screen writes in the
    reader's way (read 49: "1.000.000.000" and "−3" beside plain numbers).

    >>> from specviz.teach.classroom_paced.spread import Distribution
    >>> _spread_json(Distribution(("−3", "0–1"), ((1, 2), (0, 0)), (True, False), (3, 0), (1, 0),
    ...                           ((-3.0, -3.0), (0.0, None))), 1)
    [{'value': -3.0, 'count': 1}, {'from': 0.0, 'to': None, 'count': 2}]
    """
    counts = spread.counts[round_ - 1]
    if not spread.bounds:  # the orders not listed under one key in every language (read 50: the teacher's words)
        keys = (*spread.labels[:-1], OTHER_ORDERS) if spread.other else spread.labels
        return dict(zip(keys, counts, strict=True))
    return [({"value": low} if low == high else {"from": low, "to": high}) | {"count": n}
            for (low, high), n in zip(spread.bounds, counts, strict=True)]


def display_order(push: Push) -> list[str]:
    """The choices (or, for an ordering question, the items) as every student sees them for this push: shuffled
    once per push, the same for the whole class, so neighbours can talk about "the second one" and the chart
    lists them in the same order."""
    return push.question.options(push.id)


def _push(row: sqlite3.Row, number: int) -> Push:
    question, translations = _question(row["question"])
    return Push(row["id"], row["code"], number, question, row["round"], bool(row["open"]), bool(row["revealed"]),
                row["pushed_at"], row["round_started_at"], row["revealed_at"], translations)


def _question(payload: str) -> tuple[Question, dict[str, Question]]:
    """A pushed question and the translations pushed with it."""
    try:
        data = json.loads(payload)
    except (ValueError, TypeError, RecursionError):
        raise ClassroomError(_(DAMAGED_QUESTIONS)) from None
    twins = data.pop("translations", None) if isinstance(data, dict) else None
    translations = {}
    for lang, twin in (twins if isinstance(twins, dict) else {}).items():
        try:
            translations[lang] = question_from_dict(twin)
        except QuizBankError:
            continue  # a damaged translation: that language reads the question as pushed
    try:
        return question_from_dict(data), translations
    except (QuizBankError, TypeError):
        raise ClassroomError(_(DAMAGED_QUESTIONS)) from None


def twin_of(question: Question, other: Question) -> bool:
    """Whether `other` is `question` in another language: the same id, kind and concept, as many choices (items),
    the right answer at the same positions, the same number for a numeric one."""
    if (other.id, other.kind, other.concept) != (question.id, question.kind, question.concept):
        return False
    if question.kind == QuestionKind.NUMERIC:
        return float(other.answer) == float(question.answer) and other.tolerance == question.tolerance
    if question.kind == QuestionKind.ORDERING:
        return len(other.answer) == len(question.answer)
    if len(other.choices) != len(question.choices):
        return False
    right = (question.answer,) if question.kind == QuestionKind.SINGLE else question.answer
    other_right = (other.answer,) if other.kind == QuestionKind.SINGLE else other.answer
    return ({question.choices.index(a) for a in right if a in question.choices}
            == {other.choices.index(a) for a in other_right if a in other.choices})
