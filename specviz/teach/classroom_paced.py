"""Teacher-paced classroom sessions: peer instruction (Mazur) on top of the classroom store.

The teacher pushes one question to the whole class; everyone answers it at once and sees no feedback; the teacher
sees how the answers spread (without the right one), lets neighbours discuss, opens a second round of the same
question, and then reveals the answer with its explanation. A pushed question is stored whole with the push, so a
question made from a live Playground step (`ask_the_class`) is pushed like a bank question.

The tables sit next to the self-paced ones in the same SQLite file (created with CREATE TABLE IF NOT EXISTS, so an
older database gains them when it is opened), and the store is the same `ClassroomStore`, extended:

    paced_sessions   which sessions are teacher-paced
    pushes           one row per pushed question: its round (1 or 2), whether answers are open, whether revealed
    round_answers    one answer per (push, round, student), held by a UNIQUE constraint, so a double submit
                     (two tabs, two threads) is counted once: the first one

Who may push, open round 2 or reveal is the page's business (the teacher's PIN); what may be answered is checked
here, and every refusal is one ClassroomError sentence. No Streamlit here.
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from specviz.teach.quiz.schema import QuestionKind
from specviz.teach.classroom import (DEFAULT_TITLES, UNREADABLE, ClassroomError, ClassroomStore, Session, answer_between,
                               concept_name, in_language, normalize_code, read_stored, stored_answer)
from specviz.core.i18n import N_, _, get_language, language_code, localized, ngettext, number
from specviz.engine.trace import Trace
from specviz.teach.quiz import Question, QuizBankError, answer_text, csv_text, grade, parse_number, question_from_dict
from specviz.teach.quiz.live import LIVE_LINK, _md_token, live_questions
from specviz.teach.quiz.schema import MAX_ANSWER

ROUNDS = (1, 2)
POLL_SECONDS = 2  # how often a student's screen asks for the teacher's current push (a push arrives within one)
NUMERIC_BINS = 6  # numeric answers with more distinct values than this are binned into this many ranges

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

# Every sentence a user can read from here, with named placeholders: English messages, translated with `_()` where
# they are raised or shown (specviz.core.i18n).
TEXT = {
    "no_session": N_("There is no session with the code {code}; please check it."),
    "not_paced": N_("Session {code} is self-paced: its students answer in their own order, so nothing can be "
                    "pushed."),
    "ended": N_("Session {code} has ended; answers are no longer taken."),
    "no_push": N_("No question has been pushed in session {code} yet."),
    "stale_link": N_("This student link is not valid any more; please join again."),
    "not_current": N_("That question is no longer the current one; your screen shows the new one in a moment."),
    "round_closed": N_("Round {round} is not open for answers."),
    "revealed": N_("The answer has been revealed, so this question takes no more answers."),
    "round2_twice": N_("Round 2 of this question has already started."),
    "round2_after_reveal": N_("The answer has already been revealed; push the question again for a new vote."),
    "not_a_choice": N_("That answer is not one of the choices; please pick one of them."),
    "no_pick": N_("Please pick at least one choice."),
    "not_an_order": N_("Please place every item exactly once."),
    "not_finite": N_("Please answer with a number from −{most} to {most}, like 0.4."),
    "how_many": N_("Step {step} drafted K = {k} tokens: {drafts}. How many of them will the target keep (accept) "
                   "before it adds a token of its own?"),
    "how_many_why_recovered": N_("{verdicts}. Drafts are kept up to the first rejection, so {kept} of {k} were "
                                 "kept, and a recovered token from norm(max(0, p − q)) took the rejected one's "
                                 "place."),
    "how_many_why_bonus": N_("{verdicts}. Drafts are kept up to the first rejection, so {kept} of {k} were kept, "
                             "and a bonus token from p came free with them."),
    "accepted": N_("#{n} {token}: accepted"),
    "rejected": N_("#{n} {token}: rejected"),
    "untested": N_("#{n} {token}: never tested"),
    "other_orders": N_("another order"),
    "far_below": N_("far below: under {value}"),
    "far_above": N_("far above: over {value}"),
}


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
class Distribution:
    """How a push's answers spread, round 1 next to round 2, over the same `labels` (the choices; for a numeric
    question ranges of values; for an ordering question the orders given). `right[i]` says whether label i is (or
    holds) the right answer: show it only after the reveal. For a multiple-choice question a student counts once
    under every choice they picked."""

    labels: tuple[str, ...]
    counts: tuple[tuple[int, ...], tuple[int, ...]]
    right: tuple[bool, ...]
    answered: tuple[int, int]
    correct: tuple[int, int]


@dataclass(frozen=True)
class ConceptScore:
    """One concept over a session's pushes: right answers out of answers, in round 1 and in round 2."""

    concept: str
    name: str
    questions: int
    correct: tuple[int, int]
    answered: tuple[int, int]

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
            raise ClassroomError(_("The classroom database at {path} cannot be opened ({error}).",
                                   path=self.path, error=exc)) from None

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

    def record_answer(self, token: str, question_id: str, answer: Any):  # noqa: ANN201 - the parent's type
        """Self-paced answers only: a teacher-paced session takes answers through `answer`."""
        student = self.student(token)
        if student is not None and self.is_paced(student.code):
            raise ClassroomError(_(TEXT["not_current"]))
        return super().record_answer(token, question_id, answer)

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
    def answer(self, token: str, push_id: int, round_: int, answer: Any) -> bool:
        """Store a student's answer to the current question's open round; no feedback (that waits for the reveal).
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
        value = checked_answer(push.question, stored_answer(push.question, answer, push.translations.values()))
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
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO round_answers (push_id, round, token, answer, correct, answered_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (push.id, round_, token, json.dumps(value, ensure_ascii=False), int(correct), time.time()))
                return cursor.rowcount == 1
        except sqlite3.IntegrityError:
            raise ClassroomError(_(TEXT["stale_link"])) from None

    def my_answers(self, token: str, push_id: int) -> dict[int, tuple[Any, bool]]:
        """round -> (answer, correct) for one student and one push."""
        with self._connect() as conn:
            rows = conn.execute("SELECT round, answer, correct FROM round_answers WHERE token = ? AND push_id = ?",
                                (token, push_id)).fetchall()
        return {r["round"]: (json.loads(r["answer"]), bool(r["correct"])) for r in rows}

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
        """How many students have answered `round_` (default: the push's current round)."""
        with self._connect() as conn:
            return conn.execute("SELECT COUNT(*) FROM round_answers WHERE push_id = ? AND round = ?",
                                (push.id, round_ or push.round)).fetchone()[0]

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
        """Per concept pushed in the session, in order of first push: right answers in round 1 and in round 2."""
        scores: dict[str, list[int]] = {}
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT p.id AS id, p.question AS question, a.round AS round, COUNT(a.token) AS n, "
                "COALESCE(SUM(a.correct), 0) AS ok FROM pushes p LEFT JOIN round_answers a ON a.push_id = p.id "
                "WHERE p.code = ? GROUP BY p.id, a.round ORDER BY p.id", (code,)).fetchall()
        seen: set[int] = set()
        for r in rows:
            concept = json.loads(r["question"]).get("concept", "")
            score = scores.setdefault(concept, [0, 0, 0, 0, 0])  # questions, right 1, answered 1, right 2, answered 2
            if r["id"] not in seen:
                seen.add(r["id"])
                score[0] += 1
            if r["round"] in ROUNDS:
                score[2 * r["round"] - 1] += r["ok"]
                score[2 * r["round"]] += r["n"]
        return [ConceptScore(c, concept_name(c), s[0], (s[1], s[3]), (s[2], s[4])) for c, s in scores.items()]

    # ---- export -----------------------------------------------------------------------------------------------
    def export_rows(self, session: Session) -> list[dict[str, Any]]:
        """Every answer of a session, both rounds for a teacher-paced one (the self-paced rows otherwise)."""
        if not self.is_paced(session.code):
            return super().export_rows(session)
        return [{"push": push.number, "question_id": push.question.id, "concept": push.question.concept,
                 "question": push.question.prompt, "round": rnd, "student": name, "answer": answer_text(answer),
                 "correct": ok, "answered_at": _when(at)}
                for push in self.pushes(session.code) for rnd, name, answer, ok, at in self.round_answers(push)]

    def export_csv(self, session: Session) -> str:
        if not self.is_paced(session.code):
            return super().export_csv(session)
        return csv_text(self.export_rows(session)) or (
            "push,question_id,concept,question,round,student,answer,correct,answered_at\n")

    def export_json(self, session: Session) -> str:
        """The session as JSON: each pushed question with its right answer, its rounds' answers and
        distributions, and the per-concept mastery."""
        pushes = []
        for push in self.pushes(session.code):
            answers = self.round_answers(push)
            dist = self.distribution(push)
            rounds = {str(r): {"answers": [{"student": n, "answer": a, "correct": ok, "answered_at": _when(at)}
                                           for rnd, n, a, ok, at in answers if rnd == r],
                               "distribution": dict(zip(dist.labels, dist.counts[r - 1], strict=True))}
                      for r in ROUNDS if r <= push.round}
            pushes.append({"number": push.number, "question": push.question.to_dict(), "revealed": push.revealed,
                           "pushed_at": _when(push.pushed_at), "rounds": rounds})
        mastery = [{"concept": m.concept, "name": m.name, "questions": m.questions,
                    "round_1": {"correct": m.correct[0], "answered": m.answered[0]},
                    "round_2": {"correct": m.correct[1], "answered": m.answered[1]}} for m in self.mastery(session.code)]
        return json.dumps({"code": session.code, "title": session.title, "created_at": _when(session.created_at),
                           "students": [s.name for s in self.students(session.code)], "pushes": pushes,
                           "mastery": mastery, "unreadable_answers": self.unreadable_answers(session)},
                          indent=2, ensure_ascii=False, allow_nan=False)  # strict JSON: no NaN ever written


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
    data = json.loads(payload)
    twins = data.pop("translations", None) if isinstance(data, dict) else None
    translations = {}
    for lang, twin in (twins if isinstance(twins, dict) else {}).items():
        try:
            translations[lang] = question_from_dict(twin)
        except QuizBankError:
            continue  # a damaged translation: that language reads the question as pushed
    return question_from_dict(data), translations


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


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


# ---- answers and their spread ----------------------------------------------------------------------------------
def checked_answer(question: Question, answer: Any) -> Any:
    """The answer in stored form (a choice, a list of choices, the items in order, or a float), or a ClassroomError
    sentence when it cannot be an answer to `question` at all.

    >>> q = Question("d", "speedup", "numeric", "?", 2.0, "", "pages/quiz.py", tolerance=0.1)
    >>> checked_answer(q, "2,5")
    2.5
    """
    if question.kind == QuestionKind.NUMERIC:
        value = parse_number(answer)
        if value is None:
            raise ClassroomError(_(TEXT["not_finite"], most=number(MAX_ANSWER, 0)))
        return value
    if question.kind == QuestionKind.SINGLE:
        if not isinstance(answer, str) or answer.strip() not in question.choices:
            raise ClassroomError(_(TEXT["not_a_choice"]))
        return answer.strip()
    if isinstance(answer, str) or not isinstance(answer, list | tuple):
        raise ClassroomError(_(TEXT["not_a_choice"]) if question.kind == QuestionKind.MULTIPLE else _(TEXT["not_an_order"]))
    items = [a.strip() if isinstance(a, str) else a for a in answer]
    if question.kind == QuestionKind.MULTIPLE:
        if not items:
            raise ClassroomError(_(TEXT["no_pick"]))
        if not all(isinstance(a, str) and a in question.choices for a in items) or len(set(items)) != len(items):
            raise ClassroomError(_(TEXT["not_a_choice"]))
        return [c for c in question.choices if c in items]
    if sorted(map(str, items)) != sorted(question.answer) or not all(isinstance(a, str) for a in items):
        raise ClassroomError(_(TEXT["not_an_order"]))
    return items


def distribution(question: Question, round_1: Sequence[Any], round_2: Sequence[Any],
                 correct: tuple[int, int] = (0, 0), order: Sequence[str] | None = None) -> Distribution:
    """The spread of two rounds of stored answers over shared labels (see `Distribution`); the choices in `order`
    (the order the class saw them in) if given.

    >>> q = Question("d", "speedup", "single", "?", "b", "", "pages/quiz.py", ("a", "b", "c"))
    >>> d = distribution(q, ["a", "a", "b"], ["b", "b", "b"])
    >>> d.labels, d.counts, d.right
    (('a', 'b', 'c'), ((2, 1, 0), (0, 3, 0)), (False, True, False))
    """
    rounds = (list(round_1), list(round_2))
    answered = (len(rounds[0]), len(rounds[1]))
    if question.kind in (QuestionKind.SINGLE, QuestionKind.MULTIPLE):
        labels = tuple(order) if order is not None and sorted(order) == sorted(question.choices) else question.choices
        right = tuple(c in (question.answer if question.kind == QuestionKind.MULTIPLE else (question.answer,)) for c in labels)
        picks = [[a if isinstance(a, list) else [a] for a in r] for r in rounds]
        counts = tuple(tuple(sum(c in p for p in r) for c in labels) for r in picks)
        return Distribution(tuple(labels), counts, right, answered, correct)
    if question.kind == QuestionKind.ORDERING:
        right_order = " → ".join(question.answer)
        seen = [" → ".join(a) for r in rounds for a in r]
        common = [right_order] + sorted({s for s in seen if s != right_order}, key=lambda s: -seen.count(s))
        labels = common[:NUMERIC_BINS] + ([_(TEXT["other_orders"])] if len(common) > NUMERIC_BINS else [])
        index = {label: i for i, label in enumerate(labels)}
        counts = tuple(tuple(sum(index.get(" → ".join(a), len(labels) - 1) == i for a in r)
                             for i in range(len(labels))) for r in rounds)
        return Distribution(tuple(labels), counts, tuple(i == 0 for i in range(len(labels))), answered, correct)
    return _numeric(question, rounds, answered, correct)


def _numeric(question: Question, rounds: tuple[list, list], answered: tuple[int, int],
             correct: tuple[int, int]) -> Distribution:
    """Numeric answers: each distinct value its own bar when there are few, else NUMERIC_BINS equal ranges around
    the right answer over the answers near it, with the answers far from it (more than ten times the answer's own
    size away: a typo, a joke, 1e15) counted apart in a bar below and a bar above, so two of them cannot squash the
    class into one bin (issue 44 item 8). Any finite floats bin safely, even stored ones from before answers were
    bounded (1e308 and −1e308 together): a stored value that is not a finite number is left out.

    >>> q = Question("d", "speedup", "numeric", "?", 2.0, "", "pages/quiz.py", tolerance=0.1)
    >>> d = _numeric(q, ([1e308, -1e308, 1, 2, 3, 4, 5], []), (7, 0), (1, 0))
    >>> d.counts[0], d.labels[0], d.labels[-1], d.right.index(True)
    ((1, 1, 1, 0, 1, 1, 1, 1), 'far below: under -18', 'far above: over 22', 2)
    """
    values = [[v for v in (_stored_number(a) for a in r) if v is not None] for r in rounds]
    target, tol = float(question.answer), question.tolerance
    distinct = sorted({_round3(v) for r in values for v in r} | {_round3(target)})
    if len(distinct) <= NUMERIC_BINS:
        labels = tuple(_num(v) for v in distinct)
        counts = tuple(tuple(sum(_round3(v) == d for v in r) for d in distinct) for r in values)
        right = tuple(abs(d - target) <= tol + 1e-12 or d == _round3(target) for d in distinct)
        return Distribution(labels, counts, right, answered, correct)
    reach = 10 * max(abs(target), tol, 1.0)  # farther than this from the right answer: counted apart
    low_edge, high_edge = target - reach, target + reach
    near = [d for d in distinct if low_edge <= d <= high_edge]
    lo, hi = min([*near, target]), max([*near, target])
    width = hi / NUMERIC_BINS - lo / NUMERIC_BINS  # not (hi − lo) / n: hi − lo overflows for 1e308 and −1e308
    edges = [lo + i * width for i in range(NUMERIC_BINS)] + [hi]
    labels = tuple(f"{_num(edges[i])}–{_num(edges[i + 1])}" for i in range(NUMERIC_BINS))

    def bin_of(v: float) -> int:
        if not width > 0:
            return 0
        place = (v / NUMERIC_BINS - lo / NUMERIC_BINS) / width * NUMERIC_BINS  # (v − lo) / width, finite
        return min(NUMERIC_BINS - 1, max(0, math.floor(place))) if math.isfinite(place) else 0

    counts = tuple(tuple(sum(bin_of(v) == i for v in r if low_edge <= v <= high_edge) for i in range(NUMERIC_BINS))
                   for r in values)
    right = tuple(i == bin_of(target) for i in range(NUMERIC_BINS))
    below = tuple(sum(v < low_edge for v in r) for r in values)
    above = tuple(sum(v > high_edge for v in r) for r in values)
    if any(below):
        labels, right = (_(TEXT["far_below"], value=_num(low_edge)), *labels), (False, *right)
        counts = tuple((b, *c) for b, c in zip(below, counts, strict=True))
    if any(above):
        labels, right = (*labels, _(TEXT["far_above"], value=_num(high_edge))), (*right, False)
        counts = tuple((*c, a) for a, c in zip(above, counts, strict=True))
    return Distribution(labels, counts, right, answered, correct)


def _stored_number(answer: Any) -> float | None:
    """A stored numeric answer as a finite float, else None (a damaged or pre-bound row counts as no answer)."""
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return None
    try:
        value = float(answer)
    except OverflowError:
        return None
    return value if math.isfinite(value) else None


def _round3(value: float) -> float:
    """Three significant figures (the largest floats stay as they are: 1.797e308 would round up to inf)."""
    rounded = float(f"{value:.3g}") if math.isfinite(value) else value
    return rounded if math.isfinite(rounded) else value


def _num(value: float) -> str:
    text = f"{value:.3g}"
    return localized(text)


def relabel(spread: Distribution, stored: Question, shown: Question) -> Distribution:
    """`spread` (over `stored`'s choices or orders) labelled with `shown`'s words, its twin in another language."""
    if shown is stored or stored.kind == QuestionKind.NUMERIC:
        return spread
    if stored.kind == QuestionKind.ORDERING:
        labels = tuple(" → ".join(answer_between(label.split(" → "), stored, shown)) for label in spread.labels)
    else:
        labels = tuple(answer_between(label, stored, shown) for label in spread.labels)
    return Distribution(labels, spread.counts, spread.right, spread.answered, spread.correct)


# ---- questions for the class -----------------------------------------------------------------------------------
def search_questions(questions: Sequence[Question], text: str) -> list[Question]:
    """The questions whose prompt, id or concept contains every word of `text` (case-insensitive); all of them for
    empty text.

    >>> from specviz.teach.quiz import load_bank
    >>> [q.concept for q in search_questions(load_bank().questions, "bonus token")][:1]
    ['bonus_token']
    """
    words = str(text or "").casefold().split()
    return [q for q in questions
            if all(w in f"{q.prompt} {q.id} {q.concept} {concept_name(q.concept)}".casefold() for w in words)]


def ask_the_class(trace: Trace, step_index: int, seed: int = 0) -> list[Question]:
    """Questions about step `step_index` of a trace for the teacher to push: first "how many of these K drafts will
    the target keep?" (asked before the step is revealed), then the live quiz's questions about the same step
    (`specviz.teach.quiz.live_questions`: accept or reject one draft, min(1, p/q), the next token's kind, which drafts
    stay). A step with no drafts gives none."""
    if not 0 <= step_index < len(trace.steps):
        raise ClassroomError(ngettext("Step {step} is not in this trace, which has {n} step.",
                                      "Step {step} is not in this trace, which has {n} steps.",
                                      len(trace.steps), step=step_index + 1))
    step = trace.steps[step_index]
    if not step.decisions:
        return []
    return [how_many_question(trace, step_index), *live_questions(trace, step_index, seed)]


def how_many_question(trace: Trace, step_index: int) -> Question:
    """"How many of these K drafts will the target keep?", choices 0 to K, with the verdicts as the explanation."""
    step = trace.steps[step_index]
    k = len(step.decisions)
    drafts = ", ".join(f"#{d.position + 1} {_md_token(d.text)}" for d in step.decisions)
    verdicts = "; ".join(
        _(TEXT[("accepted" if d.accepted else "rejected") if d.reached else "untested"],
          n=d.position + 1, token=_md_token(d.text))
        for d in step.decisions)
    kept = step.n_accepted
    why = TEXT["how_many_why_bonus"] if kept == k else TEXT["how_many_why_recovered"]
    return Question(
        id=f"live-s{step.index}-how-many", concept="first_disagreement", kind=QuestionKind.SINGLE, shuffle=False,
        prompt=_(TEXT["how_many"], step=step.index + 1, k=k, drafts=drafts),
        choices=tuple(str(n) for n in range(k + 1)), answer=str(kept),
        explanation=_(why, verdicts=verdicts, kept=kept, k=k),
        link=LIVE_LINK, source="live")


# ---- joining from the projector --------------------------------------------------------------------------------
def join_url(base_url: str, code: str) -> str:
    """The link a student opens to join `code`: the Classroom page with the code filled in.

    >>> join_url("http://192.168.1.20:8501/", "abc234")
    'http://192.168.1.20:8501/classroom?code=ABC234'
    """
    return f"{base_url.rstrip('/')}/classroom?code={normalize_code(code)}"


def qr_svg(text: str, scale: int = 10) -> str:
    """`text` as a QR code in an inline SVG (black on white, with its quiet zone), for a phone's camera."""
    import segno  # noqa: PLC0415 - only the presenter view draws one

    return segno.make(text, error="m").svg_inline(scale=scale, dark="#000", light="#fff")


def qr_data_uri(text: str, scale: int = 10) -> str:
    """The same QR code as a PNG `data:` URI, for an <img> where inline SVG is not allowed (st.html drops it)."""
    import segno  # noqa: PLC0415

    return segno.make(text, error="m").png_data_uri(scale=scale, dark="#000", light="#fff")


__all__ = ["ConceptScore", "Distribution", "PacedStore", "Push", "ask_the_class", "checked_answer", "display_order",
           "distribution", "how_many_question", "join_url", "qr_data_uri", "qr_svg", "relabel", "search_questions",
           "twin_of"]
