"""Quiz questions as data: the bank loader and validator, the graders, live questions from a trace, and scoring.

Questions live in YAML files (`assets/quiz/*.yaml`, schema in `assets/quiz/README.md`); `load_bank` reads and
validates them, so a teacher can add a file without touching code. Four question types share one `Question`
dataclass and one `grade(question, answer)`:

  single    pick one choice          answer: the choice's text
  multiple  pick every right choice  answer: a list of choice texts
  numeric   type a number            answer: a number (or a string like "0.4" or "40%"), right within `tolerance`
  ordering  put items in order       answer: the items as a list, in the learner's order

`live_questions` builds questions of the same type from one step of a real `Trace`, and `score_predictions` scores
predict-then-reveal guesses of how many drafts a step accepts. A broken bank file is a `QuizBankError` whose message
is one sentence naming the file and the question. Nothing here imports Streamlit except `_page_files`, which reads
the app's page map lazily.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from specviz.trace import Decision, Step, Trace

BANK_DIR = Path(__file__).resolve().parent.parent / "assets" / "quiz"
PATHS_ENV = "SPECVIZ_QUIZ_PATHS"
TYPES = ("single", "multiple", "numeric", "ordering")

CONCEPTS: dict[str, str] = {
    "memory_bound": "Why one-token-at-a-time decoding is slow",
    "core_idea": "Draft proposes, target verifies",
    "accept_rule": "The accept rule min(1, p/q)",
    "first_disagreement": "The first disagreement",
    "residual": "The residual distribution",
    "bonus_token": "The bonus token",
    "quality": "Why quality is unchanged",
    "speedup": "What drives the speedup",
    "choosing_k": "Choosing K",
    "greedy_vs_sampling": "Greedy vs sampling",
    "kv_rollback": "KV-cache rollback",
    "prompt_lookup": "N-gram / prompt lookup",
    "layer_skip": "Layer-skip self-drafting",
    "medusa": "Medusa heads",
    "eagle": "EAGLE feature-space drafting",
    "limits": "When it helps less",
}

FAQ_TOPICS = ("what-is", "core-idea", "why-slow", "first-disagreement", "quality", "speedup-driver")

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_KEYS = {"id", "concept", "type", "prompt", "choices", "answer", "tolerance", "unit", "explanation", "link", "faq",
         "params", "formula", "shuffle"}
_REQUIRED = ("id", "concept", "type", "prompt", "answer", "explanation", "link")


class QuizBankError(ValueError):
    """A quiz file that cannot be used; the message is one sentence naming the file and the question."""


# ---- formulas that numeric questions can name, so a loader can recompute their answers ---------------------------
def _accept_prob(p: float, q: float) -> float:
    """min(1, p/q); with q = 0 the draft could not have proposed the token, so accept iff p > 0."""
    return (1.0 if p > 0 else 0.0) if q <= 0 else min(1.0, p / q)


def _expected_tokens(alpha: float, k: int) -> float:
    """Leviathan et al. eq. 1: tokens per step (1 - alpha^(K+1)) / (1 - alpha); K + 1 when alpha = 1."""
    return float(k + 1) if alpha >= 1 else (1 - alpha ** (k + 1)) / (1 - alpha)


def _speedup(alpha: float, k: int, c: float) -> float:
    """Expected walltime improvement: expected tokens per step / (K*c + 1) target-forward costs."""
    return _expected_tokens(alpha, k) / (k * c + 1)


def _residual(p: Sequence[float], q: Sequence[float]) -> list[float]:
    mass = [max(0.0, a - b) for a, b in zip(p, q, strict=True)]
    total = sum(mass)
    return [m / total for m in mass] if total > 1e-12 else [a / sum(p) for a in p]


FORMULAS: dict[str, Callable[..., float]] = {
    "accept_prob": _accept_prob,
    "reject_prob": lambda p, q: 1.0 - _accept_prob(p, q),
    "alpha": lambda p, q: sum(min(a, b) for a, b in zip(p, q, strict=True)),
    "residual_prob": lambda p, q, index: _residual(p, q)[index],
    "emit_prob": lambda p, q, index: (min(p[index], q[index])
                                      + (1 - sum(map(min, p, q))) * _residual(p, q)[index]),
    "expected_tokens": _expected_tokens,
    "expected_tokens_limit": lambda alpha: 1 / (1 - alpha),
    "speedup": _speedup,
    "best_k": lambda alpha, c, k_max: max(range(1, k_max + 1), key=lambda k: _speedup(alpha, k, c)),
    "all_accepted_prob": lambda alpha, k: alpha**k,
    "tokens_emitted": lambda n_accepted: n_accepted + 1,
    "cache_after_rollback": lambda cache_before, n_accepted: cache_before + n_accepted,
    "decode_tokens_per_second": lambda params_billion, bytes_per_param, bandwidth_tb_s: (
        bandwidth_tb_s * 1e12 / (params_billion * 1e9 * bytes_per_param)),
    "cost_ratio": lambda draft_layers, total_layers: draft_layers / total_layers,
}


# ---- the data --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Question:
    """One question. `answer` is a str (single), a tuple of str (multiple: the right choices; ordering: the items
    in the right order) or a float (numeric). `source` is the file it came from, or "live" for trace questions."""

    id: str
    concept: str
    kind: str
    prompt: str
    answer: str | tuple[str, ...] | float
    explanation: str
    link: str
    choices: tuple[str, ...] = ()
    tolerance: float = 0.0
    unit: str = ""
    faq: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    formula: str | None = None
    shuffle: bool = True
    source: str = ""

    def options(self, seed: int) -> list[str]:
        """What the learner picks from, in display order: the choices (shuffled by `seed` unless the question says
        not to) or, for an ordering question, the items always shuffled so they do not start in the right order."""
        items = list(self.answer) if self.kind == "ordering" else list(self.choices)
        if self.kind == "ordering" or self.shuffle:
            rng = random.Random(f"{seed}:{self.id}")
            rng.shuffle(items)
            if self.kind == "ordering" and items == list(self.answer) and len(items) > 1:
                items = items[1:] + items[:1]
        return items

    def expected_text(self) -> str:
        """The right answer, written for a person."""
        if self.kind == "numeric":
            return f"{_fmt(float(self.answer), 6)}{' ' + self.unit if self.unit else ''}"
        if self.kind == "ordering":
            return " → ".join(self.answer)
        if self.kind == "multiple":
            return "; ".join(self.answer)
        return str(self.answer)

    def to_dict(self) -> dict[str, Any]:
        """Plain data in the YAML schema (plus `source`), for storing a question and rebuilding it."""
        data: dict[str, Any] = {"id": self.id, "concept": self.concept, "type": self.kind, "prompt": self.prompt,
                                "answer": list(self.answer) if isinstance(self.answer, tuple) else self.answer,
                                "explanation": self.explanation, "link": self.link, "shuffle": self.shuffle}
        if self.choices:
            data["choices"] = list(self.choices)
        if self.kind == "numeric":
            data["tolerance"] = self.tolerance
        for key in ("unit", "faq", "params", "formula"):
            if getattr(self, key):
                data[key] = getattr(self, key)
        return data


@dataclass(frozen=True)
class Bank:
    """Validated questions from one or more files, and the concept labels they use (built-in plus any a file adds)."""

    questions: tuple[Question, ...]
    concepts: dict[str, str]

    def __len__(self) -> int:
        return len(self.questions)

    def __iter__(self) -> Iterator[Question]:
        return iter(self.questions)

    def by_id(self) -> dict[str, Question]:
        return {q.id: q for q in self.questions}

    def select(self, concepts: Iterable[str] | None = None) -> list[Question]:
        """The questions on the given concepts (all of them when `concepts` is None or empty)."""
        wanted = set(concepts or ())
        return [q for q in self.questions if not wanted or q.concept in wanted]

    def label(self, concept: str) -> str:
        return self.concepts.get(concept, concept)

    def used_concepts(self) -> list[str]:
        """The concepts that have at least one question, in the bank's concept order."""
        used = {q.concept for q in self.questions}
        return [c for c in self.concepts if c in used]


@dataclass(frozen=True)
class Grade:
    """The verdict on one answer. `valid` is False when the answer was not even of the right form (a word for a
    numeric question, an unknown choice); such an answer is simply wrong. `feedback` is one sentence."""

    correct: bool
    valid: bool
    feedback: str
    expected: str

    @property
    def score(self) -> float:
        return 1.0 if self.correct else 0.0


# ---- loading and validating ------------------------------------------------------------------------------------
def _page_files() -> list[str]:
    """The app's page files (specviz.pagemap.PAGE_FILES)."""
    from specviz.pagemap import PAGE_FILES

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


# ---- grading ---------------------------------------------------------------------------------------------------
def grade(question: Question, answer: Any) -> Grade:
    """Grade any answer to any question; a malformed answer (None, a word for a number, an unknown choice) is
    wrong, never an exception.

    >>> q = Question("demo", "accept_rule", "numeric", "p = 0.2, q = 0.5: min(1, p/q)?", 0.4, "0.2/0.5",
    ...              "pages/playground.py", tolerance=0.005)
    >>> grade(q, "0.4").correct, grade(q, "40%").correct, grade(q, "forty").valid
    (True, True, False)
    """
    graders = {"single": _grade_single, "multiple": _grade_multiple, "numeric": _grade_numeric,
               "ordering": _grade_ordering}
    correct, valid, problem = graders[question.kind](question, answer)
    expected = question.expected_text()
    if correct:
        feedback = "Correct."
    elif not valid:
        feedback = f"{problem} The answer is {expected}."
    else:
        feedback = f"Not quite: the answer is {expected}."
    return Grade(correct=correct, valid=valid, feedback=feedback, expected=expected)


def _grade_single(q: Question, answer: Any) -> tuple[bool, bool, str]:
    if not isinstance(answer, str) or answer.strip() not in q.choices:
        return False, False, "No choice was picked."
    return answer.strip() == q.answer, True, ""


def _grade_multiple(q: Question, answer: Any) -> tuple[bool, bool, str]:
    if isinstance(answer, str) or not isinstance(answer, Iterable):
        return False, False, "The answer should be a list of choices."
    given = list(answer)
    picked = [a.strip() for a in given if isinstance(a, str)]
    if len(picked) != len(given) or not set(picked) <= set(q.choices):
        return False, False, "Some picks are not among the choices."
    return set(picked) == set(q.answer), True, ""


def _grade_numeric(q: Question, answer: Any) -> tuple[bool, bool, str]:
    value = parse_number(answer)
    if value is None:
        return False, False, "That is not a number."
    return abs(value - float(q.answer)) <= q.tolerance + 1e-12, True, ""


def _grade_ordering(q: Question, answer: Any) -> tuple[bool, bool, str]:
    if isinstance(answer, str) or not isinstance(answer, Iterable):
        return False, False, "The answer should be the items in order."
    items = list(answer)
    if sorted(map(str, items)) != sorted(q.answer) or len(items) != len(q.answer):
        return False, False, "Every item must be placed exactly once."
    return tuple(items) == q.answer, True, ""


def parse_number(answer: Any) -> float | None:
    """A finite float from a number or a string like "0.4", "3,36" or "40%"; None for anything else.

    >>> parse_number(" 40% "), parse_number("3,5"), parse_number("nan"), parse_number(True)
    (0.4, 3.5, None, None)
    """
    if isinstance(answer, bool):
        return None
    if isinstance(answer, int | float):
        return float(answer) if math.isfinite(answer) else None
    if not isinstance(answer, str) or len(answer) > 64:
        return None
    text = answer.strip().replace(" ", "")
    scale = 1.0
    if text.endswith("%"):
        text, scale = text[:-1], 0.01
    if text.count(",") == 1 and "." not in text:
        text = text.replace(",", ".")
    try:
        value = float(text) * scale
    except ValueError:
        return None
    return value if math.isfinite(value) else None


# ---- live questions from a trace -------------------------------------------------------------------------------
LIVE_LINK = "pages/playground.py"


def live_questions(trace: Trace, step_index: int, rng_seed: int) -> list[Question]:
    """Questions about step `step_index` (a position in `trace.steps`) of a recorded trace: accept or reject one
    tested draft, min(1, p/q) for it, which token kind the verifier emits after the accepted drafts, and which
    drafts reach the output. `rng_seed` picks the draft asked about. A step with no drafts gives no questions."""
    if not 0 <= step_index < len(trace.steps):
        raise ValueError(f"Step {step_index} is not in this trace, which has {len(trace.steps)} steps.")
    step = trace.steps[step_index]
    tested = [d for d in step.decisions if d.reached]
    if not tested:
        return []
    decision = random.Random(rng_seed).choice(tested)
    questions = [_live_verdict(step, decision), _live_ratio(step, decision), _live_next_kind(step, tested)]
    if step.n_accepted:
        questions.append(_live_kept(step))
    return questions


def live_quiz(trace: Trace, seed: int, n_steps: int = 3) -> list[Question]:
    """Live questions for up to `n_steps` steps that tested at least one draft, the steps picked by `seed`."""
    steps = [i for i, s in enumerate(trace.steps) if any(d.reached for d in s.decisions)]
    chosen = sorted(random.Random(seed).sample(steps, min(n_steps, len(steps))))
    return [q for i in chosen for q in live_questions(trace, i, seed + i)]


def _live_id(step: Step, what: str) -> str:
    return f"live-s{step.index}-{what}"


def _live_verdict(step: Step, d: Decision) -> Question:
    p, q, u, a = _shown_numbers(d)
    verdict = "accepted" if d.accepted else "rejected"
    sign = "<" if d.accepted else "≥"
    return Question(
        id=_live_id(step, f"verdict{d.position}"), concept="accept_rule", kind="single", shuffle=False,
        prompt=(f"In step {step.index}, the draft proposed {_md_token(d.text)} (draft #{d.position + 1}) with "
                f"q = {q}, the target gives p = {p}, and the verifier drew u = {u}. Accepted or rejected?"),
        choices=("accepted", "rejected"), answer=verdict,
        explanation=(f"min(1, p/q) = min(1, {p}/{q}) = {a}; u = {u} {sign} {a}, so the draft is {verdict}. "
                     "A draft is kept when u < min(1, p/q)."),
        link=LIVE_LINK, source="live")


def _live_ratio(step: Step, d: Decision) -> Question:
    p, q, _, _ = _shown_numbers(d)
    value = _accept_prob(float(p), float(q))
    return Question(
        id=_live_id(step, f"ratio{d.position}"), concept="accept_rule", kind="numeric",
        prompt=(f"In step {step.index}, the draft proposed {_md_token(d.text)} with q = {q}; the target gives "
                f"p = {p}. What is min(1, p/q) here?"),
        answer=value, tolerance=max(0.005, 0.01 * value), params={"p": float(p), "q": float(q)},
        formula="accept_prob",
        explanation=(f"min(1, {p}/{q}) = {_fmt(value, 4)}: the chance this draft is kept"
                     f"{' (p ≥ q, so it is always kept)' if value >= 1 else ''}."),
        link=LIVE_LINK, source="live")


def _live_next_kind(step: Step, tested: list[Decision]) -> Question:
    rejected = any(not d.accepted for d in tested)
    kind = step.correction_kind or ("recovered" if rejected else "bonus")
    rows = "; ".join(f"#{d.position + 1} {_md_token(d.text)}: q = {s[1]}, p = {s[0]}, u = {s[2]}"
                     for d in tested for s in [_shown_numbers(d)])
    why = ("a draft was rejected, so the target's replacement is sampled from the residual norm(max(0, p − q))"
           if kind == "recovered" else
           "every draft was accepted, so one more token is sampled from p at position K+1 for free")
    return Question(
        id=_live_id(step, "next-kind"), concept="first_disagreement" if rejected else "bonus_token",
        kind="single", shuffle=False,
        prompt=(f"Step {step.index} drafted K = {step.k} tokens. The verifier tested them in order: {rows}. "
                "Which kind of token does the target emit right after the accepted drafts?"),
        choices=("accepted", "rejected", "recovered", "bonus"), answer=kind,
        explanation=f"It is a {kind} token: {why}.", link=LIVE_LINK, source="live")


def _live_kept(step: Step) -> Question:
    labels = [f"#{d.position + 1} {_md_token(d.text)}" for d in step.decisions]
    kept = tuple(label for label, d in zip(labels, step.decisions, strict=True) if d.accepted)
    return Question(
        id=_live_id(step, "kept"), concept="first_disagreement", kind="multiple", shuffle=False,
        prompt=(f"Step {step.index} drafted: {', '.join(labels)}. Which drafted tokens end up in the output? "
                f"(The verifier accepted {step.n_accepted} of {step.n_drafted}.)"),
        choices=tuple(labels), answer=kept,
        explanation=("Accepted drafts form a prefix: everything before the first rejection is kept, the rejected "
                     "draft and every draft after it are dropped."),
        link=LIVE_LINK, source="live")


def _shown_numbers(d: Decision) -> tuple[str, str, str, str]:
    """p, q, u and min(1, p/q) as shown, with just enough digits that the shown numbers give the same verdict."""
    for digits in range(2, 9):
        p, q = _fmt(d.target_prob, digits), _fmt(d.draft_prob, digits)
        a = _accept_prob(float(p), float(q))
        u = _fmt(d.uniform if d.uniform is not None else math.nan, digits)
        if d.uniform is None or (float(u) < a) == d.accepted:
            return p, q, u, _fmt(a, digits)
    return p, q, u, _fmt(a, 8)


def _fmt(x: float, digits: int = 3) -> str:
    """A number with `digits` significant digits, no trailing zeros: 0.62, 0.315, 3.3616."""
    if not math.isfinite(x):
        return str(x)
    return f"{x:.{digits}g}" if x else "0"


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$])")


def _md_token(text: str) -> str:
    """A token's text quoted for Markdown (its repr, with Markdown's special characters escaped)."""
    return _MD_SPECIAL.sub(r"\\\1", repr(text))


# ---- predict-then-reveal ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StepPrediction:
    """A learner's guess of how many drafts step `step` accepts, next to what happened."""

    step: int
    predicted: int
    actual: int
    drafted: int

    @property
    def exact(self) -> bool:
        return self.predicted == self.actual

    @property
    def error(self) -> int:
        """predicted - actual: positive means the guess was too optimistic."""
        return self.predicted - self.actual


@dataclass(frozen=True)
class PredictionScore:
    """All scored predictions, plus the keys that could not be scored (not a step of this trace, or not a whole
    number between 0 and that step's K)."""

    results: tuple[StepPrediction, ...]
    ignored: tuple[int, ...] = ()

    @property
    def n_exact(self) -> int:
        return sum(r.exact for r in self.results)

    @property
    def exact_rate(self) -> float:
        return self.n_exact / len(self.results) if self.results else math.nan

    @property
    def mean_abs_error(self) -> float:
        return sum(abs(r.error) for r in self.results) / len(self.results) if self.results else math.nan

    @property
    def bias(self) -> float:
        """Mean signed error in drafts: > 0 means the learner expects more acceptance than happens."""
        return sum(r.error for r in self.results) / len(self.results) if self.results else math.nan

    def summary(self) -> str:
        """One sentence for the learner."""
        if not self.results:
            return "No predictions yet."
        lean = " and tend to be optimistic" if self.bias > 0.25 else (
            " and tend to be pessimistic" if self.bias < -0.25 else "")
        return (f"{self.n_exact} of {len(self.results)} predictions exact; off by {self.mean_abs_error:.2f} drafts "
                f"on average{lean}.")


def score_predictions(predictions: dict[int, int], trace: Trace) -> PredictionScore:
    """Score predict-then-reveal guesses. `predictions` maps a step's position in `trace.steps` to the predicted
    number of accepted drafts (0..K, the bonus/recovered token not counted). Bad entries are ignored, not raised.

    >>> from specviz.trace import Step
    >>> t = Trace("speculative", {}, [], [], [Step(0, 0, 0, "demo", [], [])])
    >>> score_predictions({0: 0, 7: 1}, t).summary()
    '1 of 1 predictions exact; off by 0.00 drafts on average.'
    """
    results, ignored = [], []
    for key, guess in sorted(predictions.items(), key=lambda kv: (not isinstance(kv[0], int), str(kv[0]).zfill(9))):
        step = trace.steps[key] if isinstance(key, int) and 0 <= key < len(trace.steps) else None
        if step is None or isinstance(guess, bool) or not isinstance(guess, int) or not 0 <= guess <= step.n_drafted:
            ignored.append(key)
            continue
        results.append(StepPrediction(key, guess, step.n_accepted, step.n_drafted))
    return PredictionScore(tuple(results), tuple(ignored))


# ---- a quiz in progress ----------------------------------------------------------------------------------------
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

    @classmethod
    def start(cls, questions: Sequence[Question], seed: int, limit: int | None = None) -> QuizRun:
        """Questions in an order fixed by `seed`, cut to `limit`."""
        order = list(questions)
        random.Random(seed).shuffle(order)
        return cls(order[:limit] if limit else order, seed)

    def current(self) -> Question | None:
        return self.questions[self.position] if self.position < len(self.questions) else None

    def submit(self, question: Question, answer: Any) -> Grade:
        """Grade and keep an answer (a second answer to the same question replaces the first)."""
        result = grade(question, answer)
        self.answers[question.id], self.grades[question.id] = answer, result
        return result

    def advance(self) -> None:
        self.position = min(self.position + 1, len(self.questions))

    @property
    def finished(self) -> bool:
        return len(self.grades) == len(self.questions)

    @property
    def n_correct(self) -> int:
        return sum(g.correct for g in self.grades.values())

    def missed(self) -> list[Question]:
        return [q for q in self.questions if q.id in self.grades and not self.grades[q.id].correct]

    def retry_missed(self) -> QuizRun:
        """A new run over the questions answered wrongly, in a fresh order."""
        return QuizRun.start(self.missed(), self.seed + 1)

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
        """One row per question, for the CSV and JSON downloads."""
        return [{"question_id": q.id, "concept": q.concept, "type": q.kind, "prompt": q.prompt,
                 "answer": answer_text(self.answers.get(q.id)) if q.id in self.grades else "",
                 "expected": q.expected_text(),
                 "correct": self.grades[q.id].correct if q.id in self.grades else None}
                for q in self.questions]


def answer_text(answer: Any) -> str:
    """An answer as one line of text (lists joined with ' | ')."""
    if answer is None:
        return ""
    if isinstance(answer, list | tuple):
        return " | ".join(map(str, answer))
    return str(answer)


def results_json(run: QuizRun) -> str:
    return json.dumps({"seed": run.seed, "correct": run.n_correct, "answered": len(run.grades),
                       "total": len(run.questions), "results": run.results()}, indent=2, ensure_ascii=False)


def csv_text(rows: Sequence[dict[str, Any]]) -> str:
    """Rows as CSV. Cells that a spreadsheet would run as a formula (=, +, -, @ first) get a leading apostrophe."""
    out = io.StringIO()
    if rows:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({k: _csv_safe(v) for k, v in row.items()} for row in rows)
    return out.getvalue()


def _csv_safe(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
