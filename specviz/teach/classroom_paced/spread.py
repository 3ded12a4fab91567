"""How a class's answers spread over a pushed question's choices (or, for a number, over ranges around the right
answer), round by round: what the teacher's chart and the presenter view draw."""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from specviz.core.i18n import _, number, outward
from specviz.teach.classroom import ClassroomError, answer_between
from specviz.teach.classroom_paced.text import TEXT
from specviz.teach.quiz import Question, read_answer
from specviz.teach.quiz.grading import within_tolerance, written_number
from specviz.teach.quiz.schema import MAX_ANSWER, _plain
from specviz.teach.quiz.schema import QuestionKind


NUMERIC_BINS = 6  # numeric answers with more distinct values than this are binned into this many ranges
OTHER_ORDERS = "other_orders"  # the JSON export's key for the orders not listed (no order's key: those hold " → ")


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
    # a numeric question's bars as plain numbers, for the JSON export (read 49: it wrote the labels, "1.000.000.000"
    # and "−3" in Portuguese): a range's two ends (None for the open end of a "far" bar), or for a bar of one value
    # the lowest and the highest answer in it (one value twice when its answers are equal); () for the other kinds
    bounds: tuple[tuple[float | None, float | None], ...] = ()
    # an ordering question's last label counts every order not listed (the screen's "another order"; the JSON export's
    # OTHER_ORDERS key, the same in every language: read 50, it was the exporting teacher's words)
    other: bool = False
    # what a bar is, for the chart's axis and name (read 50: a numeric question's ranges and an ordering's orders
    # were each headed "choice"): the question's kind
    kind: str = QuestionKind.SINGLE


def checked_answer(question: Question, answer: Any, language: str | None = None) -> Any:
    """The answer in stored form (a choice, a list of choices, the items in order, or a float: a typed number read in
    the student's `language`: see `read_answer`), or a ClassroomError sentence when it cannot be an answer to
    `question` at all.

    >>> q = Question("d", "speedup", "numeric", "?", 2.0, "", "pages/quiz.py", tolerance=0.1)
    >>> checked_answer(q, "2,5")
    2.5
    """
    if question.kind == QuestionKind.NUMERIC:
        value = read_answer(question, answer, language).value
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
        return Distribution(tuple(labels), counts, right, answered, correct, kind=question.kind)
    if question.kind == QuestionKind.ORDERING:
        right_order = " → ".join(question.answer)
        seen = [" → ".join(a) for r in rounds for a in r]
        # the wrong orders most common first, equally common ones in the code-point order of their text (read 50:
        # a set's order, which differs from one server start to the next, decided which of them got a bar)
        common = [right_order] + sorted({s for s in seen if s != right_order}, key=lambda s: (-seen.count(s), s))
        other = len(common) > NUMERIC_BINS
        listed = common[:NUMERIC_BINS]
        labels = listed + ([_(TEXT["other_orders"])] if other else [])
        index = {label: i for i, label in enumerate(listed)}
        counts = tuple(tuple(sum(index.get(" → ".join(a), len(labels) - 1) == i for a in r)
                             for i in range(len(labels))) for r in rounds)
        return Distribution(tuple(labels), counts, tuple(i == 0 for i in range(len(labels))), answered, correct,
                            other=other, kind=question.kind)
    return _numeric(question, rounds, answered, correct)


def _numeric(question: Question, rounds: tuple[list, list], answered: tuple[int, int],
             correct: tuple[int, int]) -> Distribution:
    """Numeric answers: each distinct value its own bar when there are few, else NUMERIC_BINS equal ranges over the
    answers near the right one, with the answers far from it (more than 10 × max(|answer|, tolerance, 1) away: a typo,
    a joke, 1e15) counted apart in a bar below and a bar above, so two of them cannot squash the class into one bin
    (issue 44 item 8). The range the grader accepts (answer ± tolerance, or the answer alone) is a bar of its own,
    written as the feedback writes it, and the only one marked right: the ranges it cuts end at its bounds (read 47:
    "✓ 7–239" held 6 answers of which 1 was graded right), and a range it would cut to under a quarter of its
    width, or to two ends written alike, joins the one beside it (read 48: "1.9–1.9" beside "✓ 1.9–2.1"). Any finite
    floats bin safely, even stored ones from before answers were bounded (1e308 and −1e308 together): a stored value
    that is not a finite number is left out.

    Each label says which of its ends it holds (read 52: an answer of 200 sat in "144.357–200", not in "200–250",
    the equal ranges' edge being 200.00000000000006): a range holds its lower end and not its upper one ("200 to
    under 250"), the grader's range both its ends (as the feedback writes it), the range just above it not its lower
    end ("over 144.357 to under 200"), the highest range its upper end too; the equal ranges' edges are the numbers
    their labels write, and the far bars' cut-offs are written whole ("under −1,285.713", where "under −1,286"
    left out −1285.8, counted there).

    >>> q = Question("d", "speedup", "numeric", "?", 2.0, "", "pages/quiz.py", tolerance=0.1)
    >>> d = _numeric(q, ([1e308, -1e308, 1, 2, 3, 4, 5], []), (7, 0), (1, 0))
    >>> d.labels[1:5], d.counts[0], d.right.index(True)
    (('1 to under 1.67', '1.67 to under 1.9', '1.9–2.1', 'over 2.1 to under 2.33'), (1, 1, 0, 1, 0, 0, 1, 1, 1, 1), 3)
    >>> d.labels[0], d.labels[-2], d.labels[-1]
    ('far below: under −18', 'from 4.33 to 5', 'far above: over 22')
    """
    values = [[v for v in (_stored_number(a) for a in r) if v is not None] for r in rounds]
    target, tol = float(question.answer), question.tolerance
    distinct = sorted({_round3(v) for r in values for v in r} | {_round3(target)})
    if len(distinct) <= NUMERIC_BINS:
        return _few_numbers(values, target, tol, answered, correct)
    reach = 10 * max(abs(target), tol, 1.0)  # farther than this from the right answer: counted apart
    # the cut-offs as their labels write them, whole (read 52: "under −1,286" for −1285.713)
    low_edge, high_edge = (float(_plain(e, 12)) for e in (target - reach, target + reach))
    near = [v for r in values for v in r if low_edge <= v <= high_edge]
    # the lowest and highest answers as the end ranges write them, six figures rounded outward, so the range that
    # holds each says so (read 53: an answer of 1003.03 sat in "from 833 to 1,003", of −12.52 in "−12.5 to under
    # −9.1")
    lo, hi = _outward(min([*near, target]), up=False), _outward(max([*near, target]), up=True)
    width = hi / NUMERIC_BINS - lo / NUMERIC_BINS  # not (hi − lo) / n: hi − lo overflows for 1e308 and −1e308
    # the edges between the equal ranges are the numbers their labels write (read 52: 200.00000000000006, written
    # "200", put an answer of 200 in the range below it); one that rounds onto another, or onto an end, is dropped
    inner = sorted({float(_plain(lo + i * width, 3)) for i in range(1, NUMERIC_BINS)})
    edges = [lo, *(e for e in inner if lo < e < hi), hi]

    def graded(v: float) -> bool:  # the grader's own rule
        return within_tolerance(v, target, tol)

    low, high = target - tol, target + tol  # the grader's range: its own bar; the ranges it cuts end at its bounds
    wrong = [v for v in near if not graded(v)]
    def apart(e: float, bound: float) -> bool:  # an edge a bar's end can be: not a sliver from the grader's bound
        return abs(e - bound) >= width / 4 and _num(e) != _num(bound, 6)

    # read 48: "1.9–1.9" beside "✓ 1.9–2.1", an edge a hair from the bound; such an edge is dropped, and the bar
    # beside the range reaches from the edge before
    below = [e for e in edges if e < low and apart(e, low)] or ([lo] if any(v < target for v in wrong) else [])
    above = [e for e in edges if e > high and apart(e, high)] or ([hi] if any(v > target for v in wrong) else [])
    below, above = [*below, low], [high, *above]

    def bar_of(v: float) -> int:  # bars: those below the grader's range, the range, those above it
        if graded(v):
            return len(below) - 1
        side, start = (below, 0) if v < target else (above, len(below))
        return start + min(len(side) - 2, max(0, bisect.bisect_right(side, v) - 1))

    def end(e: float) -> str:  # the grader's bounds as the feedback writes them, the other ends as ranges are (an
        # end that would read as a bound, the answers' lowest or highest a hair from it, with six figures too)
        return _num(e, 6) if e in (low, high, lo, hi) or _num(e) in (_num(low, 6), _num(high, 6)) else _num(e)

    def label(side: list[float], i: int) -> str:  # which ends a range holds: its lower one (not the grader's
        # bound just below it), and its upper one only at the top
        key = ("range_over" if side is above and i == 0 else "range") + (
            "_top" if side is above and i == len(side) - 2 else "")
        return _(TEXT[key], low=end(side[i]), high=end(side[i + 1]))

    def bound(e: float) -> float:  # a range's end for the JSON export: the number its label writes (read 55: the
        # grader's bound 0.3 − 0.1 went out as 0.19999999999999998 beside "0.2–0.4"); the other ends already are
        return float(_plain(e, 6)) if e in (low, high) else e

    labels = tuple(label(side, i) for side in (below, above) for i in range(len(side) - 1))
    bounds = tuple((bound(side[i]), bound(side[i + 1])) for side in (below, above) for i in range(len(side) - 1))
    right_label = f"{_num(low, 6)}–{_num(high, 6)}" if tol > 0 else _num(target, 6)
    labels = (*labels[:len(below) - 1], right_label, *labels[len(below) - 1:])
    right_bounds = (bound(low), bound(high)) if tol > 0 else (target, target)  # no tolerance: the answer itself
    bounds = (*bounds[:len(below) - 1], right_bounds, *bounds[len(below) - 1:])
    counts = tuple(tuple(sum(bar_of(v) == i for v in r if low_edge <= v <= high_edge) for i in range(len(labels)))
                   for r in values)
    right = tuple(i == len(below) - 1 for i in range(len(labels)))
    far_below = tuple(sum(v < low_edge for v in r) for r in values)
    far_above = tuple(sum(v > high_edge for v in r) for r in values)
    if any(far_below):
        labels, right = (_(TEXT["far_below"], value=_num(low_edge, 12)), *labels), (False, *right)
        counts = tuple((b, *c) for b, c in zip(far_below, counts, strict=True))
        bounds = ((None, low_edge), *bounds)
    if any(far_above):
        labels, right = (*labels, _(TEXT["far_above"], value=_num(high_edge, 12))), (*right, False)
        counts = tuple((*c, a) for a, c in zip(far_above, counts, strict=True))
        bounds = (*bounds, (high_edge, None))
    return Distribution(labels, counts, right, answered, correct, bounds, kind=QuestionKind.NUMERIC)


def _few_numbers(values: list[list[float]], target: float, tol: float, answered: tuple[int, int],
                 correct: tuple[int, int]) -> Distribution:
    """Few distinct numbers: a bar per value at three significant figures, marked right only when every answer in it
    was graded right (43rd read: 2.0149 for 2 ± 0.01 fell in a bar "2.01" marked right, though graded wrong). Where
    three figures would put right and wrong answers in one bar, those answers get six figures each.

    >>> d = _few_numbers([[2.0149, 2.0]], 2.0, 0.01, (2, 0), (1, 0))
    >>> d.labels, d.counts, d.right
    (('2', '2.01'), ((1, 1),), (True, False))
    >>> _few_numbers([[2.0149, 2.0095]], 2.0, 0.01, (2, 0), (1, 0)).labels
    ('2', '2.0095', '2.0149')
    """
    def graded(v: float) -> bool:  # the grader's own rule
        return within_tolerance(v, target, tol)

    grades: dict[float, set[bool]] = {}
    for v in (v for r in values for v in r):
        grades.setdefault(_round3(v), set()).add(graded(v))
    mixed = {k for k, g in grades.items() if len(g) > 1}

    def key(v: float) -> float:
        return float(f"{v:.6g}") if _round3(v) in mixed else _round3(v)

    bars = sorted({key(v) for r in values for v in r} | {_round3(target)})
    labels = tuple(_num(b, 6) if _round3(b) in mixed and b != _round3(target) else _num(b) for b in bars)
    counts = tuple(tuple(sum(key(v) == b for v in r) for b in bars) for r in values)
    held = [[graded(v) for r in values for v in r if key(v) == b] for b in bars]
    right = tuple(all(h) if h else b == _round3(target) for b, h in zip(bars, held, strict=True))
    # for the JSON export, the answers a bar holds (both rounds'), lowest and highest, not the rounded value its
    # label writes (read 49: {"value": 143.0} for a class whose one answer was 142.857); a bar no one answered is
    # the right answer's own
    spans = [[v for r in values for v in r if key(v) == b] or [target] for b in bars]
    return Distribution(labels, counts, right, answered, correct, tuple((min(v), max(v)) for v in spans),
                        kind=QuestionKind.NUMERIC)


def _stored_number(answer: Any) -> float | None:
    """A stored numeric answer as a finite float, else None (a damaged or pre-bound row counts as no answer)."""
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return None
    try:
        value = float(answer)
    except OverflowError:
        return None
    return value if math.isfinite(value) else None


def _outward(value: float, up: bool) -> float:
    """`value` to six significant figures, rounded up or down (never across it), as `_num(value, 6)` writes it.

    >>> _outward(1003.03, True), _outward(133.22034, True), _outward(-12.52, False), _outward(-0.1234567, False)
    (1003.03, 133.221, -12.52, -0.123457)
    """
    if not value or not math.isfinite(value):
        return value
    return outward(value, Decimal(repr(value)).adjusted() - 5, up)  # the one directed rounding (core.i18n)


def _round3(value: float) -> float:
    """Three significant figures (the largest floats stay as they are: 1.797e308 would round up to inf)."""
    rounded = float(f"{value:.3g}") if math.isfinite(value) else value
    return rounded if math.isfinite(rounded) else value


def _num(value: float, digits: int = 3) -> str:
    """A bar's value or a range's end, to `digits` significant figures, as the app writes numbers: 1,170 (1.170 in
    Portuguese), −9.6 with the minus sign, never 1.17e+03 (read 47: "936–1,17e+03" and "mais de -9,6" on the
    projector).

    >>> _num(1170.0), _num(-9.6), _num(0.395), _num(2.0149, 6)
    ('1,170', '−9.6', '0.395', '2.0149')
    """
    return written_number(_plain(value, digits))


def relabel(spread: Distribution, stored: Question, shown: Question) -> Distribution:
    """`spread` (over `stored`'s choices or orders) labelled with `shown`'s words, its twin in another language."""
    if shown is stored or stored.kind == QuestionKind.NUMERIC:
        return spread
    if stored.kind == QuestionKind.ORDERING:
        listed = spread.labels[:-1] if spread.other else spread.labels  # "another order" is no order to relabel
        labels = (*(" → ".join(answer_between(label.split(" → "), stored, shown)) for label in listed),
                  *spread.labels[len(listed):])
    else:
        labels = tuple(answer_between(label, stored, shown) for label in spread.labels)
    return dataclasses.replace(spread, labels=labels)
