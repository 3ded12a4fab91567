"""Reading and validating quiz files: a teacher's YAML becomes a `Bank`, or a `QuizBankError` in one sentence.

`load_bank` reads the bundled bank (`assets/quiz/*.yaml`) plus whatever `SPECVIZ_QUIZ_PATHS` names, or the files
it is given; `parse_bank` checks one file's text (an upload, say) field by field, recomputing a numeric answer
from its `formula` and `params` when it names one; `question_from_dict` rebuilds a stored question the same way.

An upload comes from anyone, so the file is bounded before and while YAML reads it: at most `MAX_BYTES`, UTF-8,
no anchors or aliases (ten lines of `*alias` can expand to gigabytes), no key twice in one mapping (YAML would keep
the last silently), at most `MAX_DEPTH` levels and `MAX_VALUES` values, no text longer than `MAX_TEXT` characters and
no number longer than `MAX_NUMBER` characters. The fields
are bounded next (`MAX_QUESTIONS`, `MAX_ITEMS` choices of at most `MAX_ITEM` characters, ...), and every formula
parameter by `specviz.teach.quiz.schema.FORMULA_PARAMS`, so recomputing an answer is quick; whatever a file holds, the
result is a `Bank` or one `QuizBankError` sentence.
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

from specviz.core.i18n import N_, _, localized, number
from specviz.core.paths import QUIZ_DIR as BANK_DIR
from specviz.core.text import control_refusal, control_shown, has_control
from specviz.engine.limits import is_whole
from specviz.teach.pagemap import PAGE_FILES
from specviz.teach.quiz.schema import QuestionKind
from specviz.teach.quiz.schema import (CONCEPTS, FORMULA_PARAMS, FORMULAS, MAX_ANSWER, TYPES, Bank, Question, QuizBankError,
                                 _fmt)
from specviz.teach.quiz.translation import translated_dir, translated_questions

PATHS_ENV = "SPECVIZ_QUIZ_PATHS"

# What one quiz file may hold. Each bundled file, English or Portuguese, uses under half of MAX_BYTES and of
# MAX_QUESTIONS (tests/teach/test_quiz_bank.py checks it), so a teacher's file has room beyond the largest of them.
MAX_BYTES = 256 * 1024
MAX_DEPTH = 10  # file > questions > question > params > a list of probabilities is 5
MAX_VALUES = 20_000  # scalars, lists and mappings together: bounds what YAML builds in memory
MAX_TEXT = 3000  # characters in a prompt or an explanation, and in any value at all
MAX_NUMBER = 40  # characters in a number as written
MAX_QUESTIONS = 200
MAX_ITEMS = 12  # choices, right answers or items to order in one question
MAX_ITEM = 500  # characters in one choice or item
MAX_CONCEPTS = 50
MAX_LABEL = 200  # characters in a concept's label
MAX_UNIT = 40

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")  # used with fullmatch: "id\n" is not an id
_KEYS = {"id", "concept", "type", "prompt", "choices", "answer", "tolerance", "unit", "explanation", "link", "faq",
         "params", "formula", "shuffle"}
_REQUIRED = ("id", "concept", "type", "prompt", "answer", "explanation", "link")
_NUMERIC_ONLY = ("tolerance", "unit", "params", "formula")  # the fields only a numeric question reads


def _page_files() -> list[str]:
    """The app's page files (specviz.teach.pagemap.PAGE_FILES)."""
    return list(PAGE_FILES)


def bank_paths(paths: Iterable[str | os.PathLike[str]] | None = None) -> list[Path]:
    """The YAML files to load: `paths` (files or folders) if given, else the bundled bank plus whatever the
    os.pathsep-separated `SPECVIZ_QUIZ_PATHS` names."""
    if paths is None:
        extra = [p for p in os.environ.get(PATHS_ENV, "").split(os.pathsep) if p.strip()]
        paths = [BANK_DIR, *extra]
    files: list[Path] = []
    for given in paths:
        if refusal := control_refusal(os.fspath(given)):  # read 48: never "does not exist" for a name with a NUL
            raise QuizBankError(refusal)
        if not os.fspath(given).strip():  # read 48: Path("") is ".", which loaded every YAML file of the working folder
            raise QuizBankError(_("An empty quiz path names no file; give a quiz file or a folder of them."))
        entry = Path(given)
        if entry.is_dir():
            files += sorted(p for p in entry.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
        elif entry.is_file():
            files.append(entry)
        elif entry.exists() or entry.is_symlink():  # a device, a pipe, a link that loops or leads nowhere (30th read)
            raise QuizBankError(_("'{path}' is neither a quiz file nor a folder of them.", path=_shown(str(entry), 120)))
        else:
            raise QuizBankError(_("The quiz file '{path}' does not exist.", path=_shown(str(entry), 120)))
    return files


def load_bank(paths: Iterable[str | os.PathLike[str]] | None = None, lang: str = "en") -> Bank:
    """Read and validate quiz files (see `bank_paths` for which). Raises QuizBankError on the first problem.

    In another language (`lang="pt"`), each bundled file is replaced by its translation in `assets/quiz/<lang>/`,
    checked against it question by question (`specviz.teach.quiz.translation`); a teacher's own files stay as written.

    >>> len(load_bank()) >= 40
    True
    """
    folder = translated_dir(BANK_DIR, lang)
    banks = []
    for path in bank_paths(paths):
        bank = parse_bank(_read(path), path.name)
        twin = folder / path.name if folder is not None and path.parent.resolve() == BANK_DIR.resolve() else None
        if twin is not None and twin.is_file():
            source = f"{folder.name}/{path.name}"
            translated = parse_bank(_read(twin), source)
            bank = Bank(tuple(translated_questions(bank.questions, translated, source)),
                        {**bank.concepts, **translated.concepts})
        banks.append(bank)
    return merge_banks(banks)


def _read(path: Path) -> bytes:
    """A file's bytes, or (if it is larger than a quiz file may be) just enough of them for parse_bank to say so."""
    try:
        with path.open("rb") as f:
            return f.read(MAX_BYTES + 1)
    except OSError:
        raise QuizBankError(_("The quiz file '{path}' cannot be read.", path=_shown(str(path), 120))) from None


def merge_banks(banks: Sequence[Bank]) -> Bank:
    """One bank from several; an id used twice is an error naming both files."""
    seen: dict[str, Question] = {}
    concepts = dict(CONCEPTS)
    for bank in banks:  # every parsed file carries the built-in labels: restating one keeps an earlier file's
        concepts.update({c: label for c, label in bank.concepts.items() if CONCEPTS.get(c) != label})
        for q in bank.questions:
            if q.id in seen and built_in(seen[q.id]):  # read 54: it named '02_rule.yaml', a file of the app's
                raise QuizBankError(_("Quiz file '{source}', question '{id}': that id is already used by one of the "
                                      "app's built-in questions; give your question another id.",
                                      source=q.source, id=q.id))
            if q.id in seen:
                raise QuizBankError(_("Quiz file '{source}', question '{id}': that id is already used in '{other}'.",
                                      source=q.source, id=q.id, other=seen[q.id].source))
            seen[q.id] = q
    return Bank(tuple(seen.values()), concepts)


def built_in(question: Question) -> bool:
    """Whether `question` is one of the app's own: read from a bundled file (`assets/quiz/NAME.yaml`, or its
    translation `assets/quiz/LANG/NAME.yaml`), under an id of that file. A teacher never sees those files, so a clash
    with one is said in the teacher's terms, not by a file name the teacher does not have.

    >>> built_in(load_bank().by_id()["ar-prob-1"]), built_in(load_bank(lang="pt").by_id()["ar-prob-1"])
    (True, True)
    """
    return question.source in _bundled_sources() and question.id in _bundled_ids()


@functools.cache
def _bundled_sources() -> frozenset[str]:
    """The names the bundled files' questions carry as their `source`: "NAME.yaml", and "LANG/NAME.yaml" for a
    translation."""
    names = {p.name for p in BANK_DIR.glob("*.y*ml")}
    return frozenset(names | {f"{d.name}/{n}" for d in BANK_DIR.iterdir() if d.is_dir() for n in names
                              if (d / n).is_file()})


@functools.cache
def _bundled_ids() -> frozenset[str]:
    """The bundled questions' ids (the same in every language)."""
    return frozenset(q.id for path in sorted(BANK_DIR.glob("*.y*ml")) for q in parse_bank(_read(path), path.name))


UPLOAD_NAME = N_("The file's name '{name}' contains a control character (such as a NUL, a line break or a "
                  "text-direction override); rename the file and choose it again.")


def parse_bank(text: str | bytes, source: str) -> Bank:
    """Validate one file's text. `source` names it in error messages (a file name, or an upload's name)."""
    if has_control(source):  # an upload's name: refused like a path, but nobody typed it (read 52: "type it as plain
        shown = control_shown(source)  # text" was said of a file's name); a long one keeps its end, as paths do
        raise QuizBankError(_(UPLOAD_NAME, name=shown if len(shown) <= 60 else "…" + shown[-59:]))
    source = _shown(source, 60)
    data = _load_yaml(text, source)
    if isinstance(data, list):
        data = {"questions": data}
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list) or not data["questions"]:
        # one sentence for no list, a list of nothing and `questions: []` (read 49: "has no 'questions:' list" said
        # of a file that had one, empty)
        raise QuizBankError(_("Quiz file '{source}' has no questions: it needs a 'questions:' list with at least one "
                              "question.", source=source))
    if len(data["questions"]) > MAX_QUESTIONS:
        raise QuizBankError(_("Quiz file '{source}' has {count} questions; a file may hold at most {limit} (split it "
                              "into several files).", source=source, count=number(len(data["questions"]), 0),
                              limit=MAX_QUESTIONS))
    concepts = _file_concepts(data.get("concepts"), source)
    known = {**CONCEPTS, **concepts}
    questions = [_question(raw, i, source, known) for i, raw in enumerate(data["questions"], start=1)]
    return merge_banks([Bank((q,), {}) for q in questions] + [Bank((), concepts)])


# ---- reading YAML from anyone ------------------------------------------------------------------------------------
class _Refused(Exception):
    """A file that breaks one of the reading limits: what it has (an English message, with "{where}" where the line
    goes, and its other named `values`), and the line where it shows (0 if unknown)."""

    def __init__(self, problem: str, line: int = 0, **values: object) -> None:
        super().__init__(problem)
        self.problem, self.line, self.values = problem, line, values

    def sentence(self, source: str) -> str:
        where = _(" near line {line}", line=self.line) if self.line else ""
        return _("Quiz file '{source}' has {problem}.", source=source,
                 problem=_(self.problem, where=where, **self.values))


_Fast: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when PyYAML has it; the same results


class _QuizLoader(_Fast):  # type: ignore[misc, valid-type]
    """The safe loader, refusing numbers (whole or not) too long to be a quiz's (int() of 5,000 digits raises a
    ValueError), and turning what PyYAML's constructors raise on an impossible value (`0x_`, `2001-02-30`, `!!bool
    maybe`: a ValueError, a KeyError, ...) into a sentence with the line."""

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        _check_length(node)
        return super().construct_yaml_int(node)

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        _check_length(node)  # float() reads any length quickly; the bound is the module docstring's promise
        return super().construct_yaml_float(node)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        # YAML keeps only the last of two equal keys, without a word (read 51: a question with "answer: 0.4" and
        # "answer: 0.5" was graded against 0.5, and the teacher's 0.4 was lost): refused, with the second one's line
        seen = set()
        for key_node, _value in node.value if isinstance(node, yaml.MappingNode) else ():
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            if (key_node.tag, key_node.value) in seen:
                raise _Refused(N_("the key '{key}' twice in one mapping{where} (YAML would keep only its last value, "
                                  "without a word; write each key once)"), key_node.start_mark.line + 1,
                               key=_shown(key_node.value))
            seen.add((key_node.tag, key_node.value))
        return super().construct_mapping(node, deep)

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, ArithmeticError, LookupError, AttributeError, TypeError):
            raise _Refused(N_("a value YAML cannot read{where} (put it in quotes if it is text)"),
                           node.start_mark.line + 1) from None


def _check_length(node: yaml.ScalarNode) -> None:
    if len(node.value) > MAX_NUMBER:
        raise _Refused(N_("a number longer than {limit} characters{where}"), node.start_mark.line + 1,
                       limit=MAX_NUMBER)


_QuizLoader.add_constructor("tag:yaml.org,2002:int", _QuizLoader.construct_yaml_int)
_QuizLoader.add_constructor("tag:yaml.org,2002:float", _QuizLoader.construct_yaml_float)
# YAML 1.1 (PyYAML) reads 1e-3 and 1e15 as text, since its floats need a point ("1.0e-3"); a quiz file's author
# writes them as numbers, as a learner may type them (read 35: "tolerance: 1e-3" was told it "must be a number")
_QuizLoader.add_implicit_resolver("tag:yaml.org,2002:float",
                                  re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$"),
                                  list("-+0123456789."))


def _load_yaml(text: str | bytes, source: str) -> Any:
    """The YAML document in `text`, after the limits of the module docstring; a QuizBankError otherwise."""
    if len(text) <= MAX_BYTES and isinstance(text, str):  # as the bytes of a file, lone surrogates kept to fail below
        text = text.encode("utf-8", "surrogatepass")
    if len(text) > MAX_BYTES:
        raise QuizBankError(_("Quiz file '{source}' is larger than {limit} KiB, the most a quiz file may be (split it "
                              "into several files).", source=source, limit=MAX_BYTES // 1024))
    try:
        text = text.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise QuizBankError(_("Quiz file '{source}' is not UTF-8 text (save it as UTF-8 and upload it again).",
                              source=source)) from None
    try:
        _check_events(text)
        return yaml.load(text, Loader=_QuizLoader)  # safe: _QuizLoader is a SafeLoader
    except _Refused as exc:
        raise QuizBankError(exc.sentence(source)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = _(" near line {line}", line=mark.line + 1) if mark is not None else ""
        raise QuizBankError(_("Quiz file '{source}' is not valid YAML{where}.", source=source, where=where)) from None


def _check_events(text: str) -> None:
    """Walk the file's YAML events (flat, so nothing has expanded yet) and refuse anchors, aliases, deep nesting,
    too many values and overlong texts before any node is built."""
    depth = values = documents = 0
    for event in yaml.parse(text, Loader=_Fast):
        line = event.start_mark.line + 1 if event.start_mark is not None else 0
        if isinstance(event, yaml.DocumentStartEvent):  # read 51: valid YAML, said to be "not valid YAML"
            documents += 1
            if documents > 1:
                raise _Refused(N_("a second YAML document (after a line '---'){where}; a quiz file holds one"), line)
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _Refused(N_("a YAML anchor or alias (& or *){where}, which quiz files may not use"), line)
        tag = getattr(event, "tag", None)
        if tag is not None and tag != "!" and tag not in _QuizLoader.yaml_constructors:  # "!!python/object:...":
            # valid YAML that the safe loader refuses, which read "is not valid YAML" (43rd read)
            raise _Refused(N_("a YAML tag ({tag}){where}, which quiz files may not use"), line,
                           tag=_shown(tag.replace("tag:yaml.org,2002:", "!!")))
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise _Refused(N_("lists or mappings nested more than {limit} levels deep{where}"), line,
                               limit=MAX_DEPTH)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        if isinstance(event, yaml.NodeEvent):
            values += 1
            if values > MAX_VALUES:
                raise _Refused(N_("more than {limit} values, more than a quiz file needs"),
                               limit=number(MAX_VALUES, 0))
            if isinstance(event, yaml.ScalarEvent) and len(event.value) > MAX_TEXT:
                raise _Refused(N_("a value longer than {limit} characters{where}"), line, limit=number(MAX_TEXT, 0))


def _shown(value: Any, limit: int = 40) -> str:
    """A value as a message may quote it: text with its newlines escaped and cut to `limit` characters; a list or
    a mapping as YAML writes an elided one, "[…]" or "{…}", never its (maybe huge) contents (read 50: the words "a
    list" inside the quotes, "type 'a list' is not one of ...", named a text the file does not hold).

    >>> _shown(["single"]), _shown({"a": 1}), _shown("a\\nb")
    ('[…]', '{…}', 'a\\\\nb')
    """
    if isinstance(value, list | tuple | dict | set):
        return "[…]" if not isinstance(value, dict) else "{…}"
    if is_whole(value) and abs(value) >= 10**MAX_NUMBER:
        return _("a huge number")  # str() of 5,000 digits raises a ValueError
    text = value if isinstance(value, str) else repr(value)
    text = text[:limit + 1].encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    return text if len(text) <= limit else text[:limit - 1] + "…"


# ---- checking the fields ------------------------------------------------------------------------------------------
def _file_concepts(raw: Any, source: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or len(raw) > MAX_CONCEPTS or not all(
            isinstance(k, str) and _ID.fullmatch(k) and isinstance(v, str) and 0 < len(v) <= MAX_LABEL
            for k, v in raw.items()):
        raise QuizBankError(_("Quiz file '{source}': 'concepts:' must map at most {limit} short ids to labels of at "
                              "most {label} characters.", source=source, limit=MAX_CONCEPTS, label=MAX_LABEL))
    for concept, label in raw.items():  # read 50: a label "\u202e..." passed where a prompt's was refused (`_plain`)
        if bad := next((ch for ch in label if has_control(ch)), None):
            raise QuizBankError(_("Quiz file '{source}': the label of concept '{concept}' under 'concepts:' contains "
                                  "a control character, {char} (such as a NUL or a text-direction override); write "
                                  "it as plain text.", source=source, concept=concept, char=control_shown(bad)))
    return dict(raw)


def _question(raw: Any, position: int, source: str, concepts: dict[str, str]) -> Question:
    qid = raw.get("id") if isinstance(raw, dict) else None
    if is_whole(qid) and 0 <= qid < 10**12:
        qid = str(qid)  # `id: 12` in YAML is a number; it names the question as well as "12" does
    name = qid if isinstance(qid, str) and _ID.fullmatch(qid) else f"#{position}"

    def fail(problem: str) -> QuizBankError:
        return QuizBankError(_("Quiz file '{source}', question '{name}': {problem}.", source=source, name=name,
                               problem=problem))

    if not isinstance(raw, dict):
        raise fail(_("each question must be a mapping of fields"))
    unknown = sorted(map(str, set(raw) - _KEYS))
    if unknown:
        raise fail(_("unknown field '{field}'", field=_shown(unknown[0])))
    missing = [k for k in _REQUIRED if raw.get(k) in (None, "", [])]
    if missing:
        raise fail(_("the required field '{field}' is missing or empty", field=missing[0]))
    if not (isinstance(qid, str) and _ID.fullmatch(qid)):
        raise fail(_("the id must be 1 to 64 of A-Z, a-z, 0-9, '-', '_' and '.', starting with a letter or digit"))
    kind, concept = raw["type"], raw["concept"]
    if not isinstance(kind, str) or kind not in TYPES:
        raise fail(_("type '{type}' is not one of {types}", type=_shown(kind), types=", ".join(TYPES)))
    if not isinstance(concept, str) or concept not in concepts:
        raise fail(_("concept '{concept}' is unknown (add it under 'concepts:' at the top of the file)",
                     concept=_shown(concept)))
    for key in ("prompt", "explanation"):
        if not isinstance(raw[key], str) or not raw[key].strip() or len(raw[key]) > MAX_TEXT:
            raise fail(_("'{field}' must be text of at most {limit} characters", field=key,
                         limit=number(MAX_TEXT, 0)))
        _plain(raw[key], key, fail, lines=True)
    if not isinstance(raw["link"], str) or raw["link"] not in _page_files():
        # the pages by name, not "see specviz.teach.pagemap.PAGE_FILES": a teacher uploading in the app cannot open
        # the code (read 45), as the type's refusal names its choices
        raise fail(_("link '{link}' is not a page of the app: write pages/NAME.py, NAME one of {names}",
                     link=_shown(raw["link"]), names=", ".join(Path(page).stem for page in _page_files())))
    if "faq" in raw and not (isinstance(raw["faq"], str) and raw["faq"].strip() and len(raw["faq"]) <= 64):
        raise fail(_("'faq' must name the FAQ topic"))
    if "shuffle" in raw and not isinstance(raw["shuffle"], bool):
        raise fail(_("'shuffle' must be true or false"))
    fields = _typed_fields(raw, kind, fail)
    return Question(id=qid, concept=concept, kind=QuestionKind(kind), prompt=raw["prompt"].strip(),
                    explanation=raw["explanation"].strip(), link=raw["link"], faq=raw.get("faq"),
                    shuffle=raw.get("shuffle", True), source=source, **fields)


def _typed_fields(raw: dict[str, Any], kind: str, fail: Callable[[str], QuizBankError]) -> dict[str, Any]:
    """The type-specific fields (choices, answer, tolerance, unit, params, formula), checked. A numeric question's
    own field on another type is refused, as `choices` on a numeric one is (read 50: `tolerance: nan` on a
    single-choice question loaded without a word, and did nothing)."""
    numeric_only = [key for key in _NUMERIC_ONLY if key in raw]
    if kind != QuestionKind.NUMERIC and numeric_only:
        raise fail(_("only a numeric question has '{field}'", field=numeric_only[0]))
    if kind in (QuestionKind.SINGLE, QuestionKind.MULTIPLE):
        choices = _text_list(raw.get("choices"), "choices", 2, fail)
        answer = raw["answer"]
        if kind == QuestionKind.SINGLE and not isinstance(answer, str):
            raise fail(_("the answer of a single-choice question must be one choice's text"))
        answer = answer.strip() if kind == QuestionKind.SINGLE else answer
        wanted = [answer]
        if kind == QuestionKind.MULTIPLE:
            wanted = _text_list(answer, "answer", 1, fail)
        for a in wanted:
            if a not in choices:
                raise fail(_("the answer '{answer}' is not one of its choices", answer=_shown(a)))
        return {"choices": tuple(choices), "answer": answer if kind == QuestionKind.SINGLE else tuple(wanted)}
    if "choices" in raw:
        raise fail(_("an ordering question has no 'choices'") if kind == QuestionKind.ORDERING else
                   _("a numeric question has no 'choices'"))
    if kind == QuestionKind.ORDERING:
        return {"answer": tuple(_text_list(raw["answer"], "answer", 2, fail))}
    return _numeric_fields(raw, fail)


def _numeric_fields(raw: dict[str, Any], fail: Callable[[str], QuizBankError]) -> dict[str, Any]:
    answer = raw["answer"]
    if not _is_number(answer):
        raise fail(_("the answer of a numeric question must be a number (at most {most} in size)",
                     most=number(MAX_ANSWER, 0)))
    tolerance = raw.get("tolerance", max(0.001, 0.01 * abs(answer)))
    if not _is_number(tolerance) or tolerance < 0:  # at most MAX_ANSWER, like the answer
        raise fail(_("'tolerance' must be a number from 0 to {most}", most=number(MAX_ANSWER, 0)))
    unit = raw.get("unit", "")
    if not isinstance(unit, str) or len(unit) > MAX_UNIT:
        raise fail(_("'unit' must be text of at most {limit} characters", limit=MAX_UNIT))
    _plain(unit, "unit", fail)
    params, formula = raw.get("params", {}), raw.get("formula")
    if params is None or params == {}:
        params = {}
    elif not isinstance(params, dict):
        raise fail(_("'params' must map the formula's parameter names to numbers"))
    if (formula is None) != (not params):
        raise fail(_("'params' and 'formula' go together"))
    if formula is not None:
        if not isinstance(formula, str) or formula not in FORMULAS:
            raise fail(_("formula '{formula}' is unknown (assets/quiz/README.md lists the formulas)",
                         formula=_shown(formula)))
        value = _evaluate(formula, params, fail)
        if abs(value - answer) > tolerance:
            # with the reader's decimal mark (read 49: pt "que dá 1.9375" reads as nineteen thousand)
            raise fail(_("the answer {answer} does not match {formula} of its params, which is {value}",
                         answer=localized(_fmt(float(answer), 6)), formula=formula, value=localized(_fmt(value, 6))))
    return {"answer": float(answer), "tolerance": float(tolerance), "unit": unit, "params": dict(params),
            "formula": formula}


def _evaluate(formula: str, params: dict[Any, Any], fail: Callable[[str], QuizBankError]) -> float:
    """`formula` of `params`, once every parameter is in its bounds (FORMULA_PARAMS), so the work is small; a
    failure (1 / 0, an overflow, lists of different lengths, an index past the list, a tree child named twice) is a
    QuizBankError like any other mismatch."""
    bounds = FORMULA_PARAMS[formula]
    names = ", ".join(bounds)
    if set(params) != set(bounds):
        raise fail(_("the params of {formula} must be exactly {names}", formula=formula, names=names))
    for name, bound in bounds.items():
        if not bound.accepts(params[name]):
            raise fail(_("param '{name}' of {formula} must be {bound} (got {value})", name=name, formula=formula,
                         bound=bound.describe(), value=_shown(params[name])))
    try:
        value = float(FORMULAS[formula](**params))
    except (ArithmeticError, ValueError, IndexError, TypeError):  # ArithmeticError: overflow, 1 / 0
        raise fail(_("its params do not fit the formula '{formula}' (a division by zero, an overflow, lists of "
                     "different lengths, an index past a list's end, or a child named twice)",
                     formula=formula)) from None
    if not math.isfinite(value):
        raise fail(_("its params do not fit the formula '{formula}' (the result is not a finite number)",
                     formula=formula))
    return value


def _text_list(value: Any, key: str, at_least: int, fail: Callable[[str], QuizBankError]) -> list[str]:
    """The texts of a list of choices or items, stripped (the grader strips what a learner picks, so "A " could
    never be picked right)."""
    if not isinstance(value, list) or not at_least <= len(value) <= MAX_ITEMS or not all(
            isinstance(v, str) and v.strip() and len(v) <= MAX_ITEM for v in value):
        raise fail(_("'{field}' must be a list of {least} to {most} texts of at most {limit} characters", field=key,
                     least=at_least, most=MAX_ITEMS, limit=MAX_ITEM))
    texts = [v.strip() for v in value]
    if any(len(v.splitlines()) > 1 for v in texts):  # the exports write a list's texts one per line (read 49)
        raise fail(_("'{field}' holds a text with a line break; write each text on one line", field=key))
    for text in texts:
        _plain(text, key, fail)
    if len(set(texts)) != len(texts):
        raise fail(_("'{field}' lists the same text twice", field=key))
    return texts


def _plain(text: str, key: str, fail: Callable[[str], QuizBankError], lines: bool = False) -> None:
    """Refuse a text that holds a character the one check refuses (`specviz.core.text.has_control`: a NUL, a
    text-direction override such as U+202E, ...), naming the field and the character; a prompt or an explanation
    (`lines`) may hold line breaks and tabs. Read 50: a prompt "\\u202e..." was shown reversed, a NUL vanished."""
    bad = next((ch for ch in text if has_control(ch) and not (lines and ch in "\n\t")), None)
    if bad is not None:
        raise fail(_("'{field}' contains a control character, {char} (such as a NUL or a text-direction override); "
                     "write it as plain text", field=key, char=control_shown(bad)))


def _is_number(x: Any) -> bool:
    """A finite int or float no larger than MAX_ANSWER (NaN fails the comparison; a 400-digit int never gets
    converted)."""
    return isinstance(x, int | float) and not isinstance(x, bool) and -MAX_ANSWER <= x <= MAX_ANSWER


def question_from_dict(data: dict[str, Any]) -> Question:
    """Rebuild a question stored with `Question.to_dict` (validated like a bank entry; its concept, checked when it
    was first loaded, is taken as known)."""
    if not isinstance(data, dict):
        raise QuizBankError(_("A stored question is damaged (it is not a mapping of fields)."))
    data = dict(data)
    source = _shown(data.pop("source", "stored"), 60)
    concept = data.get("concept")
    known = {**CONCEPTS, concept: concept} if isinstance(concept, str) else CONCEPTS
    return _question(data, 1, source, known)
