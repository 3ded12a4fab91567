"""Grading: one `grade(question, answer)` for all four question types, and the `Grade` it returns.

A malformed answer (None, a word for a number, an unknown choice) is wrong, never an exception: `Grade.valid`
says whether the answer even had the right form, and `Grade.feedback` is "Correct." or two short sentences (what
was wrong, then the right answer, with the range the grader takes when a numeric question has a tolerance: "Not
quite. The answer is 0.4 (anything from 0.395 to 0.405 counts as right)."). `parse_number` reads what a learner
types into a numeric question ("0.4", "3,5", "40%"; "1,500" in English and "1.500" in Portuguese, the thousands the
app itself writes, given the learner's `language`).
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from specviz.core.i18n import (N_, _, decimal_text, end_sentence, language_code, localized, ngettext, number,
                               with_minus)
from specviz.teach.quiz.schema import MAX_ANSWER, Question, _plain
from specviz.teach.quiz.schema import QuestionKind

# Every sentence a learner reads from the grader, in one place (English messages with named placeholders, translated
# with `_()` when a grade is made, so the feedback speaks the language of the run that graded it).
TEXT = {
    "correct": N_("Correct."),
    "wrong": N_("Not quite. {answer}"),
    "invalid": N_("{problem} {answer}"),
    "single": N_("The right answer is {choice}"),
    "ordering": N_("The right order is: {items}"),  # read 54: "The right order is The draft proposes…"
    "numeric": N_("The answer is {value}."),
    "numeric_range": N_("The answer is {value} (anything from {low} to {high} counts as right)."),
    "and": N_("{first} and {last}"),
    "no_choice": N_("No choice was picked."),
    "not_a_list": N_("The answer should be a list of choices."),
    "unknown_picks": N_("Some picks are not among the choices."),
    "no_number": N_("No number was given."),  # a sheet's field left empty, as "No choice was picked." (read 48)
    "not_a_number": N_("That cannot be read as a number; write one like {example}."),  # "2/5", "forty"
    "too_large": N_("That number is too large: no answer here is larger than {most} in size."),
    "not_an_order": N_("The answer should be the items in order."),
    "each_once": N_("Every item must be placed exactly once."),
    # a number the two conventions read apart (`read_answer`): "142,857" is 142857 in English, 142.857 in Portuguese
    "read_as": N_("Your answer {typed} was read as {value}, not {other}."),
}


@dataclass(frozen=True)
class Grade:
    """The verdict on one answer. `valid` is False when the answer was not even of the right form (a word for a
    numeric question, an unknown choice); such an answer is simply wrong. `feedback` is "Correct." or two short
    sentences: what was wrong, then the right answer (`answer_sentence`)."""

    correct: bool
    valid: bool
    feedback: str
    expected: str

    @property
    def score(self) -> float:
        return 1.0 if self.correct else 0.0


def grade(question: Question, answer: Any, language: str | None = None) -> Grade:
    """Grade any answer to any question; a malformed answer (None, a word for a number, an unknown choice) is
    wrong, never an exception. `language` is the one the learner typed a number in (`parse_number`): "en" reads
    "1,500" as 1500, "pt" reads it as 1.5.

    >>> q = Question("demo", "accept_rule", "numeric", "p = 0.2, q = 0.5: min(1, p/q)?", 0.4, "0.2/0.5",
    ...              "pages/playground.py", tolerance=0.005)
    >>> grade(q, "0.4").correct, grade(q, "40%").correct, grade(q, "forty").valid
    (True, True, False)
    """
    graders = {"single": _grade_single, "multiple": _grade_multiple, "ordering": _grade_ordering}
    read_as = ""
    if question.kind == QuestionKind.NUMERIC:
        reading = read_answer(question, answer, language)
        correct, valid, problem = _grade_numeric(question, answer, reading.value, language)
        # a learner marked wrong on a number the two conventions read apart sees which reading was graded (read 52)
        if reading.other is not None and not correct:
            read_as = _(TEXT["read_as"], typed=with_minus(_without_unit(str(answer), question.unit)),
                        value=_ungrouped(reading.value), other=_ungrouped(reading.other)) + " "
    else:
        correct, valid, problem = graders[question.kind](question, answer)
    expected = question.expected_text()
    if correct:
        feedback = _(TEXT["correct"])  # read_as is only set for a wrong answer
    elif not valid:
        said = _(problem, most=number(MAX_ANSWER, 0), example=number(0.25))  # each problem takes the ones it names
        feedback = _(TEXT["invalid"], problem=said, answer=answer_sentence(question))
    else:
        feedback = _(TEXT["wrong"], answer=read_as + answer_sentence(question))
    return Grade(correct=correct, valid=valid, feedback=feedback, expected=expected)


def answer_sentence(question: Question) -> str:
    """The right answer as one sentence, each choice in quotation marks, so a choice's own full stop never runs into
    the sentence's punctuation (an order's last item that ends with one ends the sentence: never "..").

    >>> q = Question("demo", "kv_rollback", "multiple", "?", ("It is cut back.", "Entries go"), "", "pages/quiz.py",
    ...              ("It is cut back.", "Entries go", "Nothing"))
    >>> answer_sentence(q)
    'The right choices are “It is cut back.” and “Entries go”.'
    >>> answer_sentence(Question("one", "kv_rollback", "multiple", "?", ("Entries go",), "", "pages/quiz.py",
    ...                          ("It is cut back.", "Entries go")))
    'The right choice is “Entries go”.'
    """
    if question.kind == QuestionKind.NUMERIC:
        if question.tolerance > 0:  # the grader takes the whole range: the key says so (read 32: ck-best-1's "8")
            low, high = (_bound(float(question.answer) + sign * question.tolerance) for sign in (-1, 1))
            return _(TEXT["numeric_range"], value=shown_number(question), low=low, high=high)
        return _(TEXT["numeric"], value=shown_number(question))
    if question.kind == QuestionKind.ORDERING:
        return end_sentence(_(TEXT["ordering"], items=" → ".join(question.answer)), question.answer[-1])
    if question.kind == QuestionKind.MULTIPLE:
        quoted = [f"“{choice}”" for choice in question.answer]
        listed = quoted[0] if len(quoted) == 1 else _(TEXT["and"], first=", ".join(quoted[:-1]), last=quoted[-1])
        # one right choice is "the right choice is", not "the right choices are" (read 48: a live "which drafts end up
        # in the output?" with one draft kept, the common case, said "The right choices are “#1 ' Paris'”.")
        return end_sentence(ngettext("The right choice is {choices}", "The right choices are {choices}", len(quoted),
                                     choices=listed), question.answer[-1])
    quoted = "“" + str(question.answer) + "”"
    return end_sentence(_(TEXT["single"], choice=quoted), str(question.answer))


def shown_number(question: Question) -> str:
    """A numeric question's answer (and unit) as the reader writes numbers: 0.315, or 0,315 in Portuguese;
    1,000,005 (never 1e+06, which would name another answer); −0.0004 with the minus sign its range's ends use."""
    text = question.expected_text()
    value = _plain(float(question.answer))  # the number at the start of the text; its unit stays as written
    return written_number(value) + text[len(value):]


def _bound(value: float) -> str:
    """One end of the range a numeric question accepts, to six significant digits as the answer is shown (0.395,
    not 0.39499999999999996; 2,000,000,000,000,000, not 2e+15), in the reader's convention: −0.001, or 0,395 in
    Portuguese."""
    return written_number(_plain(value))


def written_number(text: str) -> str:
    """A number `_plain` wrote, in the reader's convention (grouped, U+2212 minus, Portuguese marks), with as many
    decimals as `_plain` kept: the key's answer and range here, a learner's answer read back in `run.shown_answer`.

    >>> written_number("1000005"), written_number("-0.0004"), written_number("inf")
    ('1,000,005', '−0.0004', '∞')
    """
    if "n" in text:  # inf, nan: no fixed-point form to write
        return number(float(text))
    return number(float(text), len(text.partition(".")[2]))


def _grade_single(q: Question, answer: Any) -> tuple[bool, bool, str]:
    if not isinstance(answer, str) or answer.strip() not in q.choices:
        return False, False, TEXT["no_choice"]
    return answer.strip() == q.answer, True, ""


def _grade_multiple(q: Question, answer: Any) -> tuple[bool, bool, str]:
    if isinstance(answer, str) or not isinstance(answer, Iterable):
        return False, False, TEXT["not_a_list"]
    given = list(answer)
    if not given:  # a sheet's boxes left unticked: no answer, as a single choice left blank (read 53: "Not quite.")
        return False, False, TEXT["no_choice"]
    picked = [a.strip() for a in given if isinstance(a, str)]
    if len(picked) != len(given) or not set(picked) <= set(q.choices):
        return False, False, TEXT["unknown_picks"]
    return set(picked) == set(q.answer), True, ""


def within_tolerance(value: float, answer: float, tolerance: float) -> bool:
    """Whether a numeric answer is right: |value − answer| ≤ tolerance, with room for the float rounding of both.

    >>> within_tolerance(2.01, 2.0, 0.01), within_tolerance(2.0149, 2.0, 0.01)
    (True, False)
    """
    return abs(value - answer) <= tolerance + 1e-12


@dataclass(frozen=True)
class Reading:
    """The number a numeric answer is graded as (`value`, None when it is no number), and the other convention's
    reading of the same text where the two differ (`other`): "142,857" is 142857 in English and 142.857 in
    Portuguese, a thousandfold apart."""

    value: float | None
    other: float | None = None


def read_answer(question: Question, answer: Any, language: str | None = None) -> Reading:
    """The number a numeric answer is graded as: the learner's `language` reads it (`parse_number`), always. A number
    with one "," or "." before three digits ("142,857", "1.500") reads two ways, a thousandfold apart, and
    `Reading.other` keeps the reading not taken, so a learner marked wrong sees how their answer was read ("Not quite.
    Your answer 142,857 was read as 142857, not 142.857. The answer is 142.857 tokens/s …"). The other reading is
    never graded: a thousandfold slip (ms for s, MB for GB) typed with a grouping mark would then pass, and the
    teacher's export would show the slip as right (read 52's review; for a while "142,857" was taken as 142.857 in
    English where 142.857 was the answer).

    >>> q = Question("demo", "memory_bound", "numeric", "?", 142.857, "", "pages/overview.py", tolerance=1.5)
    >>> read_answer(q, "142,857", "en"), read_answer(q, "142.857", "pt")
    (Reading(value=142857.0, other=142.857), Reading(value=142857.0, other=142.857))
    >>> read_answer(q, "142,857", "pt"), read_answer(q, "142,86", "en")
    (Reading(value=142.857, other=142857.0), Reading(value=142.86, other=None))
    """
    return Reading(parse_number(answer, question.unit, language), other_reading(answer, question.unit, language))


def other_reading(answer: Any, unit: str = "", language: str | None = None) -> float | None:
    """The number the other language's convention reads in a typed `answer` where it differs from what `language`
    reads, else None: "142,857" is 142857 in English and 142.857 in Portuguese; "1,5", "12,345.6", "40%" and a
    number (not a text) read one way only.

    >>> other_reading("142,857", "", "en"), other_reading("1.500 tokens/s", "tokens/s", "en")
    (142.857, 1500.0)
    >>> other_reading("1,5", "", "en"), other_reading("12,345.6", "", "en"), other_reading("1,500%", "", "en")
    (None, None, None)
    """
    code = language_code(language)
    if code is None or not isinstance(answer, str) or answer.strip().endswith("%"):
        return None
    mine, theirs = parse_number(answer, unit, code), parse_number(answer, unit, "pt" if code == "en" else "en")
    return theirs if None not in (mine, theirs) and mine != theirs else None


def _ungrouped(value: float) -> str:
    """A reading of a typed number with no grouping marks, so its two readings cannot be told apart only by a mark a
    reader might take for the other: 142857 and 142.857 (142857 and 142,857 in Portuguese)."""
    return with_minus(localized(_plain(value, 15)))


def _grade_numeric(q: Question, answer: Any, value: float | None,
                   language: str | None = None) -> tuple[bool, bool, str]:
    if value is None:
        if answer is None or (isinstance(answer, str) and not answer.strip()):
            return False, False, TEXT["no_number"]
        return False, False, TEXT["too_large" if _too_large(answer, q.unit, language) else "not_a_number"]
    return within_tolerance(value, float(q.answer), q.tolerance), True, ""


def _grade_ordering(q: Question, answer: Any) -> tuple[bool, bool, str]:
    if isinstance(answer, str) or not isinstance(answer, Iterable):
        return False, False, TEXT["not_an_order"]
    items = list(answer)
    if sorted(map(str, items)) != sorted(q.answer) or len(items) != len(q.answer):
        return False, False, TEXT["each_once"]
    return tuple(items) == q.answer, True, ""


def parse_number(answer: Any, unit: str = "", language: str | None = None) -> float | None:
    """A float from a number (int, float, a NumPy number, a Fraction) or a string like "0.4", "3,36" or "40%", at
    most MAX_ANSWER (10^15) in size; None for anything else: NaN, infinities, 1e308, a 5,000-digit string, digits
    that are not ASCII ("²", "٣", "５"), a bool. A string may end with `unit`, the question's unit that its answer
    box names ("2.8×" or "2.8x" where the unit is ×, "143 tokens/s"): read 51, "Your answer (×)" took "2.8×" for
    no number, graded it wrong and showed the key.

    A lone "." or "," is the decimal sign ("0.4" and "0,4" are both 0.4, "1,5" is 1.5), except in a number written
    with the thousands grouping of the learner's `language` ("en" or "pt"), which reads as the app writes it there:
    "1,500", "12,345.6" and "1,234,567" in English, "1.500" and "12.345,6" in Portuguese (read 51: an English
    student's "1,500" read 1.5, then "Not quite. The answer is 1,500"). The language wins where the two conventions
    disagree: "1.500" is 1.5 in English and "1,500" is 1.5 in Portuguese. A first group that starts with 0 is no
    grouping ("0,400" is 0.4 in English too). Without a language (None) no grouping is read.

    >>> parse_number("1,500", language="en"), parse_number("1.500", language="en"), parse_number("1,500")
    (1500.0, 1.5, 1.5)
    >>> parse_number("1.500", language="pt"), parse_number("1,500", language="pt"), parse_number("0.400", language="pt")
    (1500.0, 1.5, 0.4)
    >>> parse_number("12.345,6", language="pt"), parse_number("12,345.6", language="en"), parse_number("12,345.6")
    (12345.6, 12345.6, None)
    >>> parse_number("2,8 ×", "×"), parse_number("2.8x", "×"), parse_number("143 tokens/s", "tokens/s")
    (2.8, 2.8, 143.0)
    >>> parse_number("2.8×"), parse_number("143 tokens/s", "×")
    (None, None)

    >>> parse_number(" 40% "), parse_number("3,5"), parse_number("nan"), parse_number(True), parse_number(10**400)
    (0.4, 3.5, None, None, None)
    >>> parse_number("1e308"), parse_number("-1e308"), parse_number("٣"), parse_number("1e15"), parse_number("1e16")
    (None, None, None, 1000000000000000.0, None)
    >>> parse_number("−0,4"), parse_number("−0.4")  # the minus sign the app writes
    (-0.4, -0.4)
    """
    if isinstance(answer, bool):
        return None
    if isinstance(answer, numbers.Real):  # np.int64 and np.float32 too (no bool: NumPy's is not a Real)
        return float(answer) if -MAX_ANSWER <= answer <= MAX_ANSWER else None  # not nan or inf, no 400-digit int
    if isinstance(answer, str):  # the minus sign the app itself writes (number(-0.4) is "−0.4"), 43rd read
        answer = _without_unit(answer.replace("\u2212", "-"), unit)
    if not isinstance(answer, str) or len(answer) > 64 or not answer.isascii():
        return None  # float() would also read "٣" or "５", which nobody types as a number on purpose
    text = answer.strip().replace(" ", "")
    scale = 1.0
    if text.endswith("%"):
        text, scale = text[:-1], 0.01
    text = decimal_text(text, language)
    if not _DECIMAL.fullmatch(text):  # what people write: no "nan", "inf", "0x10", "1_000"
        return None
    value = float(text) * scale
    return value if -MAX_ANSWER <= value <= MAX_ANSWER else None


def _without_unit(answer: str, unit: str) -> str:
    """`answer` without a final `unit` (and for ×, which few keyboards have, without a final x or X)."""
    text = answer.strip()
    for written in ((unit, "x", "X") if unit == "×" else (unit,) if unit else ()):
        if text.endswith(written) and text[:-len(written)].strip():
            return text[:-len(written)].strip()
    return text


def _too_large(answer: Any, unit: str = "", language: str | None = None) -> bool:
    """Whether `parse_number` refused `answer` only for its size: a number written as it reads them ("1e16",
    "-1e999", 10**400, infinity), not a word or NaN, so the learner is not told that 1e16 is not a number.

    >>> _too_large("1e16"), _too_large("-1e999"), _too_large(10**400), _too_large("nan"), _too_large("1,000.5")
    (True, True, True, False, False)
    >>> _too_large("\u22121e16")  # the minus sign the app writes
    True
    """
    if isinstance(answer, bool):
        return False
    if isinstance(answer, numbers.Real):
        return answer == answer and parse_number(answer) is None  # not NaN (which equals nothing), beyond 10^15
    if isinstance(answer, str):  # the app's minus sign too, as parse_number reads it (read 51: "−1e16")
        answer = _without_unit(answer.replace("\u2212", "-"), unit)
    if not isinstance(answer, str) or len(answer) > 64 or not answer.isascii():
        return False
    text = decimal_text(answer.strip().replace(" ", "").removesuffix("%"), language)
    return bool(_DECIMAL.fullmatch(text)) and parse_number(answer, "", language) is None


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")
