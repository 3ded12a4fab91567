"""A quiz in progress: one learner's pass through a list of questions, per-concept mastery, and the downloads.

`QuizRun.start` puts the questions in order: basics first (the default: a tour of the concepts in the bank's order,
each concept's first question before any second one) or shuffled by a seed; `submit` grades and keeps each answer;
`mastery` sums up right answers per concept; `results` gives one row per question for `csv_text` (spreadsheet-safe)
and `results_json`.
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from specviz.core.i18n import N_, _
from specviz.engine.limits import is_whole
from specviz.teach.quiz.grading import Grade, grade, read_answer, written_number
from specviz.teach.quiz.schema import Bank, Question, _plain
from specviz.teach.quiz.schema import QuestionKind


# how a run orders its questions, with their labels (English messages: show them with `_()`)
ORDERS = {"basics": N_("Basics first"), "shuffled": N_("Shuffled")}


def basics_first(questions: Sequence[Question]) -> list[Question]:
    """A tour of the concepts: the first question of every concept (in the order the concepts first appear, which
    for the bundled bank is its files' order, basics first), then the second of every concept, and so on. Within a
    concept the questions keep their written order, easiest first, so a short quiz asks the basic question of each
    concept and never opens on an advanced one.

    >>> from specviz.teach.quiz.schema import Question
    >>> q = [Question(i, c, "single", "?", "a", "", "pages/quiz.py", ("a", "b")) for i, c in
    ...      [("a1", "a"), ("a2", "a"), ("b1", "b"), ("a3", "a"), ("c1", "c")]]
    >>> [x.id for x in basics_first(q)]
    ['a1', 'b1', 'c1', 'a2', 'a3']
    """
    by_concept: dict[str, list[Question]] = {}
    for question in questions:
        by_concept.setdefault(question.concept, []).append(question)
    rounds = max((len(group) for group in by_concept.values()), default=0)
    return [group[i] for i in range(rounds) for group in by_concept.values() if i < len(group)]


@dataclass
class ConceptMastery:
    concept: str
    label: str
    correct: int
    answered: int
    total: int

    @property
    def share(self) -> float:
        return self.correct / self.answered if self.answered else 0.0


@dataclass
class QuizRun:
    """One learner's pass through a list of questions: their answers, grades and where they are."""

    questions: list[Question]
    seed: int
    answers: dict[str, Any] = field(default_factory=dict)
    grades: dict[str, Grade] = field(default_factory=dict)
    position: int = 0
    earlier: tuple[str, ...] = ()  # the ids earlier rounds of this quiz asked (retries), oldest first
    # question id -> the language its answer was typed in (`grade`'s `language`: "1,500" is 1500 in English, 1.5 in
    # Portuguese), kept so a switch of language grades the same number again
    languages: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def start(cls, questions: Sequence[Question], seed: int, limit: int | None = None,
              order: str = "basics") -> QuizRun:
        """The questions in `order` ("basics": `basics_first`; "shuffled": an order fixed by `seed`), cut to
        `limit` (None: all of them; 0 asked 0 and a negative one dropped the last, read 35). The seed also shuffles
        each question's choices."""
        if limit is not None and (not is_whole(limit) or limit < 0):
            raise ValueError(f"limit must be a whole number of questions, 0 or more, or None, not {limit!r}")
        if order not in ORDERS:
            raise ValueError(_("Unknown question order {order}: use one of {orders}.", order=repr(order),
                               orders=", ".join(ORDERS)))
        ordered = basics_first(questions) if order == "basics" else list(questions)
        if order == "shuffled":
            random.Random(seed).shuffle(ordered)
        return cls(ordered if limit is None else ordered[:limit], seed)

    def current(self) -> Question | None:
        return self.questions[self.position] if self.position < len(self.questions) else None

    def submit(self, question: Question, answer: Any, language: str | None = None) -> Grade:
        """Grade and keep an answer (a second answer to the same question replaces the first); `language` is the
        one the learner typed it in, which says how a number's "," and "." read (`parse_number`)."""
        result = grade(question, answer, language)
        self.answers[question.id], self.grades[question.id] = answer, result
        self.languages[question.id] = language
        return result

    def advance(self) -> None:
        self.position = min(self.position + 1, len(self.questions))

    @property
    def finished(self) -> bool:
        return len(self.grades) == len(self.questions)

    @property
    def n_correct(self) -> int:
        return sum(g.correct for g in self.grades.values())

    @property
    def n_answered(self) -> int:
        """Graded questions that were given an answer: a sheet grades a question left blank too, as wrong ("No
        number was given."), and that one was not answered (read 50: the results JSON said "answered": 5 of a sheet
        with one left blank)."""
        return sum(not is_blank(self.answers.get(qid)) for qid in self.grades)

    def missed(self) -> list[Question]:
        return [q for q in self.questions if q.id in self.grades and not self.grades[q.id].correct]

    def retry_plan(self, pool: Sequence[Question] = ()) -> list[Question]:
        """What a retry asks for each question answered wrongly. A miss shows its key, so asking the same item again
        would let a learner copy it (issue 43 item 10): each missed question gives way to the first question in
        `pool` on the same concept that no round of this quiz has asked; only when its concept has none left does
        the missed question itself come back (its choices then reordered by the retry's seed, unless the question
        keeps its choices in a fixed order, `shuffle: false`, as sp-perfect-draft does).

        >>> from specviz.teach.quiz.schema import Question
        >>> a1, a2, b1 = (Question(i, c, "single", "?", "x", "", "pages/quiz.py", ("x", "y")) for i, c in
        ...               [("a1", "a"), ("a2", "a"), ("b1", "b")])
        >>> run = QuizRun([a1, b1], seed=0)
        >>> _ = run.submit(a1, "y"), run.submit(b1, "y")
        >>> [q.id for q in run.retry_plan([a1, a2, b1])]
        ['a2', 'b1']
        """
        taken = {*self.earlier, *(q.id for q in self.questions)}
        plan = []
        for missed in self.missed():
            pick = next((q for q in pool if q.concept == missed.concept and q.id not in taken), missed)
            taken.add(pick.id)
            plan.append(pick)
        return plan

    def retry_missed(self, pool: Sequence[Question] = ()) -> QuizRun:
        """A new round for the questions answered wrongly (`retry_plan`: a fresh question on the same concept from
        `pool` where there is one), in a fresh order, remembering every question this quiz has asked."""
        run = QuizRun.start(self.retry_plan(pool), self.seed + 1, order="shuffled")
        run.earlier = (*self.earlier, *(q.id for q in self.questions))
        return run

    def relabeled(self, twins: Mapping[str, Question]) -> QuizRun:
        """The same run with each question replaced by its twin of the same id in `twins` (the bank in another
        language), each answer carried over by its position among the choices or items and graded again, so the
        feedback speaks the new language; a typed number is read again in the language it was typed in (an English
        "1,500" stays 1500 in Portuguese, where "1,500" is 1.5). A question without a twin stays as it was.

        >>> from specviz.teach.quiz.schema import Question
        >>> en = Question("d", "accept_rule", "single", "Kept?", "yes", "", "pages/quiz.py", ("yes", "no"))
        >>> pt = Question("d", "accept_rule", "single", "Mantido?", "sim", "", "pages/quiz.py", ("sim", "não"))
        >>> run = QuizRun([en], seed=0)
        >>> run.submit(en, "no").correct
        False
        >>> moved = run.relabeled({"d": pt})
        >>> moved.questions[0].prompt, moved.answers["d"], moved.grades["d"].correct
        ('Mantido?', 'não', False)
        """
        questions = [twins.get(q.id, q) for q in self.questions]
        run = QuizRun(questions, self.seed, position=self.position, earlier=self.earlier)
        for old, new in zip(self.questions, questions, strict=True):
            if old.id in self.grades:
                run.submit(new, _carried(old, new, self.answers.get(old.id)), self.languages.get(old.id))
            elif old.id in self.answers:
                run.answers[old.id] = _carried(old, new, self.answers[old.id])
        return run

    def mastery(self, bank: Bank) -> list[ConceptMastery]:
        """Per concept (in the bank's concept order): right answers out of answered, and how many were asked."""
        rows = []
        for concept in dict.fromkeys(q.concept for q in self.questions):
            asked = [q for q in self.questions if q.concept == concept]
            graded = [self.grades[q.id] for q in asked if q.id in self.grades]
            rows.append(ConceptMastery(concept, bank.label(concept), sum(g.correct for g in graded), len(graded),
                                       len(asked)))
        order = list(bank.concepts)
        return sorted(rows, key=lambda m: order.index(m.concept) if m.concept in order else len(order))

    def results(self) -> list[dict[str, Any]]:
        """One row per question, for the CSV and JSON downloads. A numeric question's "expected" is its bare number,
        as "answer" is (the number the grader read, not the text typed: read 52, a Portuguese "1.500", graded
        1500, was exported as "1.500" beside "1500" and True), and its unit has a column of its own (read 49:
        "0.4 tokens" beside "0.4", which a spreadsheet reads as a text and a number)."""
        return [{"question_id": q.id, "concept": q.concept, "type": q.kind, "prompt": q.prompt,
                 "answer": self._answer_cell(q) if q.id in self.grades else "",
                 # the picks as the "answer" column writes them (read 49: "; " here, " | " there)
                 "expected": _expected(q), "unit": q.unit if q.kind == QuestionKind.NUMERIC else "",
                 "correct": self.grades[q.id].correct if q.id in self.grades else None}
                for q in self.questions]

    def _answer_cell(self, question: Question) -> str:
        """A graded answer as an export's "answer" cell: for a numeric question the number the grader read from it,
        in the language it was typed in (`read_answer`: an English "142,857" is 142857, as it was graded), written as
        "expected" is, "0.4" for "0,4" or "40%"; a text that is no number as it was typed (it was graded wrong:
        "forty")."""
        answer = self.answers.get(question.id)
        if question.kind == QuestionKind.NUMERIC:
            value = read_answer(question, answer, self.languages.get(question.id)).value
            if value is not None:
                return answer_text(value)  # 0.30000000000000004, typed as 0.3, as 0.3 (`shown_answer`)
        return answer_text(answer)


def _expected(question: Question) -> str:
    """A question's right answer as an export's "expected" cell: a list as `answer_text` writes the "answer" cell,
    a number with no unit (the row's "unit" cell holds it), anything else as the page writes it."""
    if isinstance(question.answer, tuple):
        return answer_text(question.answer)
    if question.kind == QuestionKind.NUMERIC:
        return _plain(float(question.answer))
    return question.expected_text()


def _carried(old: Question, new: Question, answer: Any) -> Any:
    """An answer to `old` given to `new`, its twin in another language: each picked text moved to the same
    position among the new choices (or items to order); a number, or a text that is not a choice, unchanged."""
    if old is new or old.kind == QuestionKind.NUMERIC:
        return answer
    texts = old.choices if old.kind in (QuestionKind.SINGLE, QuestionKind.MULTIPLE) else tuple(old.answer)
    targets = new.choices if new.kind in (QuestionKind.SINGLE, QuestionKind.MULTIPLE) else tuple(new.answer)

    def move(text: Any) -> Any:
        return targets[texts.index(text)] if isinstance(text, str) and text in texts and len(texts) == len(
            targets) else text

    if isinstance(answer, list | tuple):
        return [move(a) for a in answer]
    return move(answer)


EXPORT_SEPARATOR = "\n"  # between the picks of one answer in an export's cell: no choice or item holds a line break
# (`bank._text_list` refuses one; a live question's labels are reprs), while "; " and " | " may occur in a choice


def answer_text(answer: Any) -> str:
    """An answer (or a right answer) as an export's cell: a list's texts one per line (`EXPORT_SEPARATOR`), the same
    in the "answer" and "expected" columns (read 49: "expected" joined with "; ", which choices contain, and
    "answer" with " | "); a number as the Quiz's export writes it, plain and to 12 significant digits (read 52: the
    classroom exports wrote Python's "1500.0" where the Quiz's wrote "1500").

    >>> answer_text(["a; b", "c | d"]), answer_text(2.5), answer_text(1500.0), answer_text(None)
    ('a; b\\nc | d', '2.5', '1500', '')
    """
    if answer is None:
        return ""
    if isinstance(answer, list | tuple):
        return EXPORT_SEPARATOR.join(map(str, answer))
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        return _plain(float(answer), 12)  # 0.30000000000000004, typed as 0.3, as 0.3 (`_answer_cell`)
    return str(answer)


def shown_answer(answer: Any) -> str:
    """An answer as a learner reads it back on a page: a list's texts joined with " | " on one line, a number written
    the reader's way and with no more decimals than it has (2.5, 2,5 in Portuguese; 3, not 3.0; 1,000 or 1.000),
    where `answer_text` writes 2.5 and 3 in every language, and a list one text per line, for the exports.

    >>> from specviz.core.i18n import using
    >>> shown_answer(3.0), shown_answer(0.125), shown_answer(1234567.0), shown_answer(["a", "b"])
    ('3', '0.125', '1,234,567', 'a | b')
    >>> shown_answer(1e-7), shown_answer(1e15)
    ('0.0000001', '1,000,000,000,000,000')
    >>> with using("pt"):
    ...     shown_answer(2.5), shown_answer(-0.4)
    ('2,5', '−0,4')
    """
    if isinstance(answer, list | tuple):
        return " | ".join(map(str, answer))
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return answer_text(answer)
    return written_number(_plain(float(answer), 12))  # 0.30000000000000004, typed as 0.3, is read back as 0.3


def is_blank(answer: Any) -> bool:
    """Whether an answer is no answer at all: nothing, or a text or list with nothing but blanks in it.

    >>> is_blank(None), is_blank(" "), is_blank([]), is_blank(["", " "]), is_blank("0"), is_blank(0.0)
    (True, True, True, True, False, False)
    """
    return answer is None or (isinstance(answer, str | list | tuple) and not [a for a in answer if str(a).strip()])


def results_json(run: QuizRun) -> str:
    return json.dumps({"seed": run.seed, "correct": run.n_correct, "answered": run.n_answered,
                       "total": len(run.questions), "results": run.results()}, indent=2, ensure_ascii=False)


def csv_text(rows: Sequence[dict[str, Any]]) -> str:
    """Rows as CSV. Cells that a spreadsheet would run as a formula get a leading apostrophe.

    A cell is escaped when it starts with =, +, -, @, a tab or a carriage return (CR): the OWASP list of
    characters that start a formula in Excel, LibreOffice or Google Sheets. A plain number ("-0.25", "1e-05") is no
    formula and stays a number (read 49: a negative answer was exported as the text "'-0.25").

    >>> csv_text([{"answer": "-0.25", "name": "-Ann", "formula": "-1+2"}]).splitlines()[1]
    "-0.25,'-Ann,'-1+2"
    """
    out = io.StringIO()
    if rows:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({k: _csv_safe(v) for k, v in row.items()} for row in rows)
    return out.getvalue()


_PLAIN_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


def _csv_safe(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r") and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value
