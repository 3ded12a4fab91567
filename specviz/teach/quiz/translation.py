"""The quiz bank in another language: the same questions, checked against the English ones.

A translated file lives under `assets/quiz/<lang>/` with the English file's name and the same schema. It may change
every text a learner reads (prompt, choices, items, explanation, unit, concept labels) and nothing a grade or a
count depends on: the same question ids, types, concepts, links, FAQ tags, shuffling, numbers, formulas, and the
right answers at the same positions among the choices. So a classroom can mix students of both languages: the
choices are shown in the same order for the same seed, and an answer is counted by its position, under the one
question id.

    >>> from specviz.teach.quiz.bank import load_bank
    >>> en, pt = load_bank(), load_bank(lang="pt")
    >>> [q.id for q in en] == [q.id for q in pt]
    True
    >>> en.by_id()["ci-what-is"].prompt, pt.by_id()["ci-what-is"].prompt
    ('What is speculative decoding?', 'O que é decodificação especulativa?')
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from specviz.core.i18n import language_code
from specviz.teach.quiz.schema import Bank, Question, QuizBankError
from specviz.teach.quiz.schema import QuestionKind


def translated_questions(english: Sequence[Question], translated: Bank, source: str) -> list[Question]:
    """The translated file's questions in the English order, each checked against its English twin; a file that
    disagrees is one QuizBankError sentence naming the file and the question."""
    by_id = translated.by_id()
    english_ids = [q.id for q in english]
    extra = sorted(set(by_id) - set(english_ids))
    if extra:
        raise QuizBankError(f"Quiz file '{source}' has question '{extra[0]}', which its English file does not have.")
    questions = []
    for q in english:
        if q.id not in by_id:
            raise QuizBankError(f"Quiz file '{source}' lacks question '{q.id}' of its English file.")
        problem = _disagreement(q, by_id[q.id])
        if problem:
            raise QuizBankError(f"Quiz file '{source}', question '{q.id}': {problem}")
        questions.append(by_id[q.id])
    return questions


def _disagreement(en: Question, other: Question) -> str | None:
    """What a translation changed that it may not, as the end of a sentence; None when it only changed text."""
    for field in ("kind", "concept", "link", "faq", "shuffle", "formula"):
        if getattr(en, field) != getattr(other, field):
            return f"its {field} differs from the English one ({getattr(other, field)!r}, not {getattr(en, field)!r})."
    if en.params != other.params:
        return "its formula parameters differ from the English ones."
    if len(en.choices) != len(other.choices):
        return f"it has {len(other.choices)} choices where the English one has {len(en.choices)}."
    if en.kind == QuestionKind.NUMERIC:
        if float(en.answer) != float(other.answer) or en.tolerance != other.tolerance:
            return "its answer or tolerance differs from the English one."
    elif en.kind == QuestionKind.SINGLE:
        if en.choices.index(en.answer) != other.choices.index(other.answer):
            return "its right answer is not the choice at the English answer's position."
    elif en.kind == QuestionKind.MULTIPLE:
        if {en.choices.index(a) for a in en.answer} != {other.choices.index(a) for a in other.answer}:
            return "its right answers are not the choices at the English answers' positions."
    elif len(en.answer) != len(other.answer):
        return f"it orders {len(other.answer)} items where the English one orders {len(en.answer)}."
    return None


def translated_dir(bank_dir: Path, lang: str) -> Path | None:
    """The folder of a language's quiz files, None for English (the bank itself); an unknown language is a
    QuizBankError sentence."""
    code = language_code(lang)
    if code is None:
        raise QuizBankError(f"The quiz has no language '{str(lang)[:20]}'; use en or pt.")
    return None if code == "en" else bank_dir / code


def answer_position(question: Question, answer: str) -> int | None:
    """Where a picked choice sits among the question's choices (None if it is not one): the language-free form of a
    single-choice answer.

    >>> q = Question("x", "core_idea", "single", "?", "b", "", "pages/overview.py", choices=("a", "b"))
    >>> answer_position(q, "b"), answer_position(q, "z")
    (1, None)
    """
    try:
        return question.choices.index(answer)
    except ValueError:
        return None
