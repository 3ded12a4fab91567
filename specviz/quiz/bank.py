"""Reading and validating quiz files: a teacher's YAML becomes a `Bank`, or a `QuizBankError` in one sentence.

`load_bank` reads the bundled bank (`assets/quiz/*.yaml`) plus whatever `SPECVIZ_QUIZ_PATHS` names, or the files
it is given; `parse_bank` checks one file's text (an upload, say) field by field, recomputing a numeric answer
from its `formula` and `params` when it names one; `question_from_dict` rebuilds a stored question the same way.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

from specviz.pagemap import PAGE_FILES
from specviz.paths import QUIZ_DIR as BANK_DIR
from specviz.quiz.schema import CONCEPTS, FORMULAS, TYPES, Bank, Question, QuizBankError, _fmt

PATHS_ENV = "SPECVIZ_QUIZ_PATHS"

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_KEYS = {"id", "concept", "type", "prompt", "choices", "answer", "tolerance", "unit", "explanation", "link", "faq",
         "params", "formula", "shuffle"}
_REQUIRED = ("id", "concept", "type", "prompt", "answer", "explanation", "link")


def _page_files() -> list[str]:
    """The app's page files (specviz.pagemap.PAGE_FILES)."""
    return list(PAGE_FILES)


def bank_paths(paths: Iterable[str | os.PathLike[str]] | None = None) -> list[Path]:
    """The YAML files to load: `paths` (files or folders) if given, else the bundled bank plus whatever the
    os.pathsep-separated `SPECVIZ_QUIZ_PATHS` names."""
    if paths is None:
        extra = [p for p in os.environ.get(PATHS_ENV, "").split(os.pathsep) if p.strip()]
        paths = [BANK_DIR, *extra]
    files: list[Path] = []
    for entry in map(Path, paths):
        if entry.is_dir():
            files += sorted(p for p in entry.iterdir() if p.suffix in (".yaml", ".yml"))
        elif entry.is_file():
            files.append(entry)
        else:
            raise QuizBankError(f"The quiz file '{entry}' does not exist.")
    return files


def load_bank(paths: Iterable[str | os.PathLike[str]] | None = None) -> Bank:
    """Read and validate quiz files (see `bank_paths` for which). Raises QuizBankError on the first problem.

    >>> len(load_bank()) >= 40
    True
    """
    files = bank_paths(paths)
    return merge_banks([parse_bank(f.read_text(encoding="utf-8"), f.name) for f in files])


def merge_banks(banks: Sequence[Bank]) -> Bank:
    """One bank from several; an id used twice is an error naming both files."""
    seen: dict[str, Question] = {}
    concepts = dict(CONCEPTS)
    for bank in banks:
        concepts.update(bank.concepts)
        for q in bank.questions:
            if q.id in seen:
                raise QuizBankError(f"Quiz file '{q.source}', question '{q.id}': that id is already used in "
                                    f"'{seen[q.id].source}'.")
            seen[q.id] = q
    return Bank(tuple(seen.values()), concepts)


def parse_bank(text: str | bytes, source: str) -> Bank:
    """Validate one file's text. `source` names it in error messages (a file name, or an upload's name)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" near line {mark.line + 1}" if mark is not None else ""
        raise QuizBankError(f"Quiz file '{source}' is not valid YAML{where}.") from None
    except UnicodeDecodeError:
        raise QuizBankError(f"Quiz file '{source}' is not UTF-8 text.") from None
    if isinstance(data, list):
        data = {"questions": data}
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list) or not data["questions"]:
        raise QuizBankError(f"Quiz file '{source}' has no 'questions:' list.")
    concepts = _file_concepts(data.get("concepts"), source)
    known = {**CONCEPTS, **concepts}
    questions = [_question(raw, i, source, known) for i, raw in enumerate(data["questions"], start=1)]
    return merge_banks([Bank((q,), {}) for q in questions] + [Bank((), concepts)])


def _file_concepts(raw: Any, source: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(isinstance(k, str) and _ID.match(k) and isinstance(v, str)
                                            for k, v in raw.items()):
        raise QuizBankError(f"Quiz file '{source}': 'concepts:' must map short ids to labels.")
    return dict(raw)


def _question(raw: Any, number: int, source: str, concepts: dict[str, str]) -> Question:
    name = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else f"#{number}"

    def fail(problem: str) -> QuizBankError:
        return QuizBankError(f"Quiz file '{source}', question '{name}': {problem}.")

    if not isinstance(raw, dict):
        raise fail("each question must be a mapping of fields")
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise fail(f"unknown field '{unknown[0]}'")
    missing = [k for k in _REQUIRED if raw.get(k) in (None, "", [])]
    if missing:
        raise fail(f"the required field '{missing[0]}' is missing or empty")
    if not _ID.match(str(raw["id"])):
        raise fail("the id must be letters, digits, '-', '_' or '.' (at most 64 characters)")
    kind, concept = raw["type"], raw["concept"]
    if kind not in TYPES:
        raise fail(f"type '{kind}' is not one of {', '.join(TYPES)}")
    if concept not in concepts:
        raise fail(f"concept '{concept}' is unknown (add it under 'concepts:' at the top of the file)")
    for key in ("prompt", "explanation"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise fail(f"'{key}' must be text")
    if raw["link"] not in _page_files():
        raise fail(f"link '{raw['link']}' is not a page of the app (see specviz.pagemap.PAGE_FILES)")
    if "faq" in raw and not (isinstance(raw["faq"], str) and raw["faq"].strip()):
        raise fail("'faq' must name the FAQ topic")
    if "shuffle" in raw and not isinstance(raw["shuffle"], bool):
        raise fail("'shuffle' must be true or false")
    fields = _typed_fields(raw, kind, fail)
    return Question(id=raw["id"], concept=concept, kind=kind, prompt=raw["prompt"].strip(),
                    explanation=raw["explanation"].strip(), link=raw["link"], faq=raw.get("faq"),
                    shuffle=raw.get("shuffle", True), source=source, **fields)


def _typed_fields(raw: dict[str, Any], kind: str, fail: Callable[[str], QuizBankError]) -> dict[str, Any]:
    """The type-specific fields (choices, answer, tolerance, unit, params, formula), checked."""
    if kind in ("single", "multiple"):
        choices = _text_list(raw.get("choices"), "choices", 2, fail)
        answer = raw["answer"]
        wanted = [answer] if kind == "single" else answer
        if kind == "single" and not isinstance(answer, str):
            raise fail("the answer of a single-choice question must be one choice's text")
        if kind == "multiple":
            wanted = _text_list(answer, "answer", 1, fail)
        for a in wanted:
            if a not in choices:
                raise fail(f"the answer '{a}' is not one of its choices")
        return {"choices": tuple(choices), "answer": answer if kind == "single" else tuple(wanted)}
    if "choices" in raw:
        raise fail(f"a {kind} question has no 'choices'")
    if kind == "ordering":
        return {"answer": tuple(_text_list(raw["answer"], "answer", 2, fail))}
    return _numeric_fields(raw, fail)


def _numeric_fields(raw: dict[str, Any], fail: Callable[[str], QuizBankError]) -> dict[str, Any]:
    answer = raw["answer"]
    if not _is_number(answer):
        raise fail("the answer of a numeric question must be a number")
    tolerance = raw.get("tolerance", max(0.001, 0.01 * abs(answer)))
    if not _is_number(tolerance) or tolerance < 0:
        raise fail("'tolerance' must be a number of at least 0")
    params, formula = raw.get("params", {}), raw.get("formula")
    if (formula is None) != (not params):
        raise fail("'params' and 'formula' go together")
    if formula is not None:
        if formula not in FORMULAS or not isinstance(params, dict):
            raise fail(f"formula '{formula}' is unknown (known: {', '.join(FORMULAS)})")
        try:
            value = float(FORMULAS[formula](**params))
        except (TypeError, ValueError, IndexError, ZeroDivisionError):
            raise fail(f"its params do not fit the formula '{formula}'") from None
        if abs(value - answer) > tolerance:
            raise fail(f"the answer {answer} does not match {formula} of its params, which is {_fmt(value, 6)}")
    return {"answer": float(answer), "tolerance": float(tolerance), "unit": str(raw.get("unit", "")),
            "params": dict(params), "formula": formula}


def _text_list(value: Any, key: str, at_least: int, fail: Callable[[str], QuizBankError]) -> list[str]:
    if not isinstance(value, list) or len(value) < at_least or not all(isinstance(v, str) and v for v in value):
        raise fail(f"'{key}' must be a list of at least {at_least} texts")
    if len(set(value)) != len(value):
        raise fail(f"'{key}' lists the same text twice")
    return list(value)


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def question_from_dict(data: dict[str, Any]) -> Question:
    """Rebuild a question stored with `Question.to_dict` (validated like a bank entry; its concept, checked when it
    was first loaded, is taken as known)."""
    data = dict(data)
    source = str(data.pop("source", "stored"))
    concept = data.get("concept")
    known = {**CONCEPTS, concept: concept} if isinstance(concept, str) else CONCEPTS
    return _question(data, 1, source, known)
