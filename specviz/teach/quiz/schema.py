"""The quiz's data model: the four question types, the concepts they test, the formulas a numeric question can
name with the bounds of their parameters, and the `Question` and `Bank` dataclasses.

A `Question` is frozen plain data (`to_dict` gives it back in the YAML schema of `assets/quiz/README.md`); a
`Bank` is the validated questions of one or more files with their concept labels. Reading and checking the files
is `specviz.teach.quiz.bank`; `FORMULAS` lets the loader recompute a numeric answer from its `params`, once
`FORMULA_PARAMS` has checked that every parameter lies where the formula is quick and meaningful (a `best_k` over
10^9 values of K would run for minutes).
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import Any

from specviz.core.i18n import N_, _, half_up, localized

class QuestionKind(StrEnum):
    """A question's `type` in the bank's YAML: one choice, several, a number, or an order."""

    SINGLE = "single"
    MULTIPLE = "multiple"
    NUMERIC = "numeric"
    ORDERING = "ordering"


TYPES = tuple(QuestionKind)
MAX_ANSWER = 1e15  # the largest size of a numeric answer, in a bank and from a student (bounded sums and bins)

# concept -> its label: English messages (show them with `_()`; the Portuguese bank files carry their own labels)
CONCEPTS: dict[str, str] = {
    "memory_bound": N_("Why one-token-at-a-time decoding is slow"),
    "core_idea": N_("Draft proposes, target verifies"),
    "accept_rule": N_("The accept rule min(1, p/q)"),
    "first_disagreement": N_("The first disagreement"),
    "residual": N_("The residual distribution"),
    "bonus_token": N_("The bonus token"),
    "quality": N_("Why quality is unchanged"),
    "speedup": N_("What drives the speedup"),
    "choosing_k": N_("Choosing K"),
    "greedy_vs_sampling": N_("Greedy vs sampling"),
    "kv_rollback": N_("KV-cache rollback"),
    "prompt_lookup": N_("N-gram / prompt lookup"),
    "layer_skip": N_("Layer-skip self-drafting"),
    "medusa": N_("Medusa heads"),
    "eagle": N_("EAGLE feature-space drafting"),
    "trees": N_("Draft trees: the mask and the rule"),
    "production": N_("Running it for real"),
    "limits": N_("When it helps less"),
}

FAQ_TOPICS = ("what-is", "core-idea", "why-slow", "first-disagreement", "quality", "speedup-driver")


class QuizBankError(ValueError):
    """A quiz file (or stored question) that cannot be used; the message is one sentence naming the file and, when
    one question is at fault, that question (a file that cannot be read, is not UTF-8 or YAML, or has no questions
    names the file alone; an unknown quiz language names the language)."""


# ---- formulas that numeric questions can name, so a loader can recompute their answers ---------------------------
def _accept_prob(p: float, q: float) -> float:
    """min(1, p/q); with q = 0 the draft could not have proposed the token, so accept iff p > 0."""
    return (1.0 if p > 0 else 0.0) if q <= 0 else min(1.0, p / q)


def _expected_tokens(alpha: float, k: int) -> float:
    """Tokens per step (1 - alpha^(K+1)) / (1 - alpha), K + 1 when alpha = 1: Leviathan et al. 2023's expected
    number of tokens one step produces (their equation 1, with γ = K)."""
    return float(k + 1) if alpha >= 1 else (1 - alpha ** (k + 1)) / (1 - alpha)


def _speedup(alpha: float, k: int, c: float) -> float:
    """Expected walltime improvement: expected tokens per step / (K*c + 1) target-forward costs."""
    return _expected_tokens(alpha, k) / (k * c + 1)


def _residual(p: Sequence[float], q: Sequence[float]) -> list[float]:
    mass = [max(0.0, a - b) for a, b in zip(p, q, strict=True)]
    total = sum(mass)
    return [m / total for m in mass] if total > 1e-12 else [a / sum(p) for a in p]


def _tree_child_accept(p: Sequence[float], q: Sequence[float], rejected: Sequence[int], index: int) -> float:
    """min(1, p'(x)/q'(x)) for the child `index` of a tree node whose children were drawn from q without
    replacement, once the children `rejected` were tried and rejected in that order: each rejection sets
    p' <- norm(max(0, p' - q')) and removes that child from q', renormalised (`specviz.engine.tree_verifier`).

    >>> round(_tree_child_accept([0.1, 0.5, 0.4], [0.5, 0.4, 0.1], [0], 1), 4)
    0.3125
    >>> _tree_child_accept([0.1, 0.5, 0.4], [0.5, 0.4, 0.1], [0], 0)
    Traceback (most recent call last):
    ValueError: child 0 was rejected already: a child is tried once
    """
    if index in rejected:
        raise ValueError(f"child {index} was rejected already: a child is tried once")
    if len(set(rejected)) != len(rejected):
        raise ValueError("a child is rejected once: `rejected` names one twice")
    if any(not 0 <= child < len(q) for child in rejected):
        raise ValueError("`rejected` names a child past the end of the list")
    target, draft = list(p), list(q)
    for child in rejected:
        target = _residual(target, draft)
        draft = [0.0 if i == child else v for i, v in enumerate(draft)]
        draft = [v / sum(draft) for v in draft]
    return _accept_prob(target[index], draft[index])


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
    # with the verify pass over K+1 tokens costing v one-token target forwards (v = 1 is the line above)
    "speedup_with_verify_cost": lambda alpha, k, c, v: _expected_tokens(alpha, k) / (k * c + v),
    # the largest draft cost c, or verify cost v, at which the expected speedup is still 1 (break-even)
    "break_even_c": lambda alpha, k, v: (_expected_tokens(alpha, k) - v) / k,
    "break_even_v": lambda alpha, k, c: _expected_tokens(alpha, k) - k * c,
    "best_k": lambda alpha, c, k_max: max(range(1, k_max + 1), key=lambda k: _speedup(alpha, k, c)),
    "all_accepted_prob": lambda alpha, k: alpha**k,
    "tokens_emitted": lambda n_accepted: n_accepted + 1,
    # the verify pass feeds the last emitted token plus K drafts; the last token and the accepted drafts stay
    "cache_after_rollback": lambda cache_before, n_accepted: cache_before + 1 + n_accepted,
    "decode_tokens_per_second": lambda params_billion, bytes_per_param, bandwidth_tb_s: (
        bandwidth_tb_s * 1e12 / (params_billion * 1e9 * bytes_per_param)),
    "cost_ratio": lambda draft_layers, total_layers: draft_layers / total_layers,
    # a tree node at depth d may attend to d tree nodes: its d - 1 ancestors and itself (and the whole context)
    "tree_visible_nodes": lambda depth: depth,
    "tree_child_accept": _tree_child_accept,
}


@dataclass(frozen=True)
class Param:
    """What one formula parameter may be: a number (a whole number if `whole`) from `lo` to `hi`, or, if `size`
    is set, a list of 1 to `size` such numbers (a distribution over a small vocabulary).

    >>> Param(1, 1000, whole=True).accepts(10**9), Param(0, 1, size=64).accepts([0.5, 0.5])
    (False, True)
    """

    lo: float
    hi: float
    whole: bool = False
    size: int = 0

    def accepts(self, value: Any) -> bool:
        if self.size:
            return isinstance(value, list) and 1 <= len(value) <= self.size and all(map(self._number, value))
        return self._number(value)

    def _number(self, v: Any) -> bool:
        kinds = int if self.whole else int | float
        return isinstance(v, kinds) and not isinstance(v, bool) and self.lo <= v <= self.hi  # nan fails lo <= v

    def describe(self) -> str:
        """What the parameter may be, in words (the end of a loader's sentence)."""
        lo, hi = _bound(self.lo), _bound(self.hi)
        if self.size:
            return _("a list of 1 to {size} numbers from {lo} to {hi}", size=self.size, lo=lo, hi=hi)
        if self.whole:
            return _("a whole number from {lo} to {hi}", lo=lo, hi=hi)
        return _("a number from {lo} to {hi}", lo=lo, hi=hi)


def _bound(x: float) -> str:
    """A bound as the reader writes it: 10,000,000 and 0.001 (10.000.000 and 0,001 in Portuguese), never 1e+07.

    >>> _bound(10_000_000), _bound(100_000.0), _bound(0.001)
    ('10,000,000', '100,000', '0.001')
    """
    text = f"{int(x):,}" if float(x).is_integer() else f"{x:,g}"
    return localized(text)


PROB = Param(0.0, 1.0)
PROBS = Param(0.0, 1.0, size=64)  # a distribution over a made-up vocabulary, as the questions draw them
INDEX = Param(0, 63, whole=True)
K = Param(0, 1000, whole=True)  # far beyond the engine's K_RANGE, for "what if" questions
COUNT = Param(0, 1000, whole=True)
FORMULA_PARAMS: dict[str, dict[str, Param]] = {
    "accept_prob": {"p": PROB, "q": PROB},
    "reject_prob": {"p": PROB, "q": PROB},
    "alpha": {"p": PROBS, "q": PROBS},
    "residual_prob": {"p": PROBS, "q": PROBS, "index": INDEX},
    "emit_prob": {"p": PROBS, "q": PROBS, "index": INDEX},
    "expected_tokens": {"alpha": PROB, "k": K},
    "expected_tokens_limit": {"alpha": PROB},
    "speedup": {"alpha": PROB, "k": K, "c": Param(0.0, 100.0)},
    "speedup_with_verify_cost": {"alpha": PROB, "k": K, "c": Param(0.0, 100.0), "v": Param(0.01, 1000.0)},
    "break_even_c": {"alpha": PROB, "k": Param(1, 1000, whole=True), "v": Param(0.01, 1000.0)},
    "break_even_v": {"alpha": PROB, "k": K, "c": Param(0.0, 100.0)},
    "best_k": {"alpha": PROB, "c": Param(0.0, 100.0), "k_max": Param(1, 1000, whole=True)},
    "all_accepted_prob": {"alpha": PROB, "k": K},
    "tokens_emitted": {"n_accepted": COUNT},
    "cache_after_rollback": {"cache_before": Param(0, 10_000_000, whole=True), "n_accepted": COUNT},
    "decode_tokens_per_second": {"params_billion": Param(0.001, 100_000.0), "bytes_per_param": Param(0.01, 64.0),
                                 "bandwidth_tb_s": Param(0.001, 1000.0)},
    "cost_ratio": {"draft_layers": COUNT, "total_layers": Param(1, 1000, whole=True)},
    "tree_visible_nodes": {"depth": Param(1, 1000, whole=True)},
    "tree_child_accept": {"p": PROBS, "q": PROBS, "rejected": Param(0, 63, whole=True, size=64), "index": INDEX},
}


# ---- the data --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Question:
    """One question. `answer` is a str (single), a tuple of str (multiple: the right choices; ordering: the items
    in the right order) or a float (numeric). `source` is the file it came from, or "live" for trace questions."""

    id: str
    concept: str
    kind: QuestionKind
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
        not to) or, for an ordering question, the items always shuffled so they do not start in the right order.

        A choice question's (first) right answer sits at position (crc32(id) + seed) mod n, so the next seed always
        moves it: a missed question that comes back in a retry (the retry's seed is the next one) is shown in
        another order with its key elsewhere (issue 43 item 10), where a plain reshuffle left 6 of the 77 bundled
        choice questions in the very same order. The seed still spreads the keys over the positions, and the other
        choices are shuffled around the key by the seed.

        >>> q = Question("d", "accept_rule", "single", "?", "a", "", "pages/quiz.py", ("a", "b", "c", "d"))
        >>> [q.options(seed).index("a") for seed in range(6)]
        [0, 1, 2, 3, 0, 1]
        """
        items = list(self.answer) if self.kind == QuestionKind.ORDERING else list(self.choices)
        if self.kind == QuestionKind.ORDERING or self.shuffle:
            rng = random.Random(f"{seed}:{self.id}")
            rng.shuffle(items)
            if self.kind == QuestionKind.ORDERING and items == list(self.answer) and len(items) > 1:
                items = items[1:] + items[:1]
            key = self.answer if self.kind == QuestionKind.SINGLE else (
                self.answer[0] if self.kind == QuestionKind.MULTIPLE and self.answer else None)
            if len(items) > 1 and key in items:
                shift = ((zlib.crc32(self.id.encode()) + seed) - items.index(key)) % len(items)
                items = items[len(items) - shift:] + items[:len(items) - shift]
        return items

    def expected_text(self) -> str:
        """The right answer, written for a person."""
        if self.kind == QuestionKind.NUMERIC:
            return f"{_plain(float(self.answer))}{' ' + self.unit if self.unit else ''}"
        if self.kind == QuestionKind.ORDERING:
            return " → ".join(self.answer)
        if self.kind == QuestionKind.MULTIPLE:
            return "; ".join(self.answer)
        return str(self.answer)

    def to_dict(self) -> dict[str, Any]:
        """Plain data in the YAML schema (plus `source`), for storing a question and rebuilding it."""
        data: dict[str, Any] = {"id": self.id, "concept": self.concept, "type": str(self.kind), "prompt": self.prompt,
                                "answer": list(self.answer) if isinstance(self.answer, tuple) else self.answer,
                                "explanation": self.explanation, "link": self.link, "shuffle": self.shuffle}
        if self.choices:
            data["choices"] = list(self.choices)
        if self.kind == QuestionKind.NUMERIC:
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


def _plain(x: float, digits: int = 6) -> str:
    """A number to `digits` significant digits with no exponent, every whole digit kept: 0.315, 1000005 (not
    1e+06, which would name another answer), 0.000015; inf and nan as Python writes them. A tie rounds up, as a
    reader rounds it by hand and as `core.i18n.number` does (read 50: the live quiz wrote min(1, 0.087/0.6), which
    is 0.145, as "0.14", Python's float 0.145 being a hair under it).

    >>> _plain(0.31500001), _plain(1000005.0), _plain(1.5e-5), _plain(-1e15), _plain(0.0), _plain(0.087 / 0.6, 2)
    ('0.315', '1000005', '0.000015', '-1000000000000000', '0', '0.15')
    """
    if not math.isfinite(x):
        return str(x)
    if not x:
        return "0"
    exact = Decimal(repr(x))  # the number as written (0.145), not its binary neighbour (0.14499999...)
    places = max(0, digits - 1 - exact.adjusted())
    with half_up() as context:
        context.prec = max(context.prec, exact.adjusted() + places + 2)  # every whole digit of 1.8e308 too
        text = f"{exact.quantize(Decimal(1).scaleb(-places)):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _fmt(x: float, digits: int = 3) -> str:
    """A number with `digits` significant digits, no trailing zeros: 0.62, 0.315, 3.3616 (as `_plain` writes it)."""
    return _plain(x, digits)

