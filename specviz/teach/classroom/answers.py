"""A stored answer, whatever language it was given in: a question's twin in another language, an answer carried
between twins, the JSON an answer is stored as, and what an unreadable stored answer reads back as."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable
from typing import Any

from specviz.core.i18n import LANGUAGES, _, get_language, language_code
from specviz.core.text import has_control
from specviz.teach.classroom.inputs import ANSWER_MAX, ClassroomError
from specviz.teach.quiz import BANK_DIR, Question, QuizBankError, load_bank, question_from_dict
from specviz.teach.quiz.schema import QuestionKind


# A session stores its questions in the language of the teacher who opened it. A student (or a teacher) reading
# another language sees a bundled-bank question as its twin in that language (the same id, the same choices at the
# same positions, so the same display order for the same seed: specviz.teach.quiz.translation), and answers are stored in
# the stored question's language, choice by position, so every language's answers are counted together.
@functools.cache
def _bank_twins(lang: str) -> dict[str, Question]:
    """The bundled bank in `lang`, by question id (read once per process; empty if it cannot be read)."""
    try:
        return load_bank([BANK_DIR], lang=lang).by_id()
    except QuizBankError:
        return {}


def in_language(question: Question, lang: str | None = None) -> Question:
    """`question` as a reader of `lang` (default: the current language) sees it: a question of the bundled bank, in
    whichever language it was stored, becomes its twin in `lang`; any other question (a teacher's own file, a
    question from a live run) stays as stored.

    >>> q = load_bank([BANK_DIR]).by_id()["ci-what-is"]
    >>> in_language(q, "pt").prompt, in_language(in_language(q, "pt"), "en") == q
    ('O que é decodificação especulativa?', True)
    """
    twin = _bank_twins(language_code(lang) or get_language()).get(question.id)
    if twin is None or twin == question:
        return question
    stored = question.to_dict()
    for code in LANGUAGES:
        known = _bank_twins(code).get(question.id)
        if known is not None and known.to_dict() == stored:
            return twin if twin.kind == question.kind else question
    return question


def answer_between(answer: Any, source: Question, target: Question) -> Any:
    """An answer given to `source` as the same answer to `target`, its twin in another language: each picked choice
    (or placed item) replaced by the one at the same position; a number, or a text that is not one of `source`'s,
    unchanged.

    >>> en = Question("x", "core_idea", "multiple", "?", ("b",), "", "pages/overview.py", choices=("a", "b"))
    >>> pt = Question("x", "core_idea", "multiple", "?", ("B",), "", "pages/overview.py", choices=("A", "B"))
    >>> answer_between(["b"], en, pt), answer_between("a", en, pt), answer_between(0.5, en, pt)
    (['B'], 'A', 0.5)
    """
    if source is target or source.kind != target.kind or source.kind == QuestionKind.NUMERIC:
        return answer
    pools = (source.answer, target.answer) if source.kind == QuestionKind.ORDERING else (source.choices, target.choices)
    if len(pools[0]) != len(pools[1]):
        return answer

    def one(item: Any) -> Any:
        picked = item.strip() if isinstance(item, str) else item
        return pools[1][pools[0].index(picked)] if isinstance(picked, str) and picked in pools[0] else item

    if isinstance(answer, list | tuple):
        return [one(a) for a in answer]
    return one(answer)


def stored_answer(question: Question, answer: Any, twins: Iterable[Question] = ()) -> Any:
    """An answer to the stored `question` given in any language: when it is not already in the stored question's
    words but fits one of its `twins` or its bank twin in some language, it is mapped back by position (so the
    first choice picked in Portuguese and the first choice picked in English are one answer)."""
    if question.kind == QuestionKind.NUMERIC or _fits(question, answer):
        return answer
    for twin in [*twins, *(in_language(question, code) for code in LANGUAGES)]:
        if twin is not question and _fits(twin, answer):
            return answer_between(answer, twin, question)
    return answer


def _fits(question: Question, answer: Any) -> bool:
    pool = question.answer if question.kind == QuestionKind.ORDERING else question.choices
    items = answer if isinstance(answer, list | tuple) else [answer]
    return all(isinstance(a, str) and a.strip() in pool for a in items)


@functools.lru_cache(maxsize=64)
def _questions(payload: str) -> tuple[Question, ...]:
    """A session's stored questions, parsed once per process (a session's questions never change)."""
    return tuple(question_from_dict(d) for d in json.loads(payload))


UNREADABLE = object()  # what `read_stored` gives for a row that cannot be an answer


def read_stored(text: Any) -> Any:
    """An answer as the database holds it (JSON), or UNREADABLE for a row that cannot be one: damaged text, or a
    legacy NaN or infinity (strict JSON has neither, and no question's answer is one). Such a row is skipped and
    counted, so one bad row cannot hide a session's panel or its exports.

    >>> read_stored('"B"'), read_stored("2.5"), read_stored("NaN") is UNREADABLE, read_stored("{oops") is UNREADABLE
    ('B', 2.5, True, True)
    """
    def refuse(constant: str) -> Any:
        raise ValueError(constant)

    try:
        return json.loads(text, parse_constant=refuse)
    except (ValueError, TypeError):
        return UNREADABLE


def _answer_json(answer: Any) -> str:
    """An answer as JSON for storage: text, a finite number, or a list of texts; anything else is refused (a NaN or
    an infinity too: stored as JSON's NaN, it would read back UNREADABLE, and the question would be asked again)."""
    if isinstance(answer, tuple):
        answer = list(answer)
    finite = not isinstance(answer, float) or math.isfinite(answer)
    ok = answer is None or (isinstance(answer, str | int | float) and finite) or (
        isinstance(answer, list) and all(isinstance(a, str) for a in answer))
    text = json.dumps(answer, ensure_ascii=False) if ok else ""
    texts = [answer] if isinstance(answer, str) else answer if isinstance(answer, list) else []
    if not ok or len(text) > ANSWER_MAX or any(has_control(t) for t in texts):
        raise ClassroomError(_("That answer cannot be stored; please answer with the controls shown."))
    return text
