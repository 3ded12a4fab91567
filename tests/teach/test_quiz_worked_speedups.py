"""The speedups a quiz item works out in its text (not only its key) are the formula's: the 17th full read (issue 43)
recomputed every one of them by hand; this keeps them recomputed. The loader checks a numeric key against its
formula, but a figure typed in an explanation ("3.09× at K = 8", "best K is 3 (1.71×)") is only text, and a changed
α, K or c would leave it stale. Checked in English and in the Portuguese twins (decimal commas)."""

from __future__ import annotations

import pytest

from specviz.core.i18n import number, using
from specviz.engine.theory import expected_speedup, optimal_k
from specviz.teach.quiz import load_bank

# question id -> the (α, K, c) of every speedup its prompt, choices or explanation writes out, to two decimals
WORKED = {
    "sp-speedup-1": [(0.78, 4, 0.05)],
    "sp-speedup-2": [(0.48, 4, 0.2)],
    "ck-best-1": [(0.83, 1, 0.05), (0.83, 8, 0.05), (0.83, 9, 0.05), (0.83, 10, 0.05)],
    "ck-best-2": [(0.62, 1, 0.1), (0.62, 2, 0.1), (0.62, 3, 0.1), (0.62, 4, 0.1)],
    "ck-article": [(0.82, 4, 0.1), (0.82, 6, 0.1), (0.7, 4, 0.1)],
    "ck-cheaper-draft": [(0.75, 3, 0.2), (0.75, 9, 0.02)],
    "ck-next-draft": [(0.75, 5, 0.08), (0.75, 6, 0.08)],
    "ck-flat": [(0.86, 8, 0.04), (0.86, 9, 0.04), (0.86, 11, 0.04)],
    "lm-slower": [(0.3, 4, 0.3)],
    "lm-verify-cost": [(0.8, 4, 0.05)],  # the v = 1 speedup it compares with
    "lm-break-even-v": [(0.7, 3, 0.1)],  # the v = 1 speedup of the same pair
}
# question id -> (α, c, largest K searched, the best K its text names)
BEST = {
    "ck-best-1": (0.83, 0.05, 10, 9),
    "ck-best-2": (0.62, 0.1, 10, 3),
    "ck-cheaper-draft": (0.75, 0.2, 16, 3),
    "ck-next-draft": (0.75, 0.08, 16, 5),
    "ck-flat": (0.86, 0.04, 20, 11),
}


@pytest.fixture(scope="module")
def bank(bundled_bank):  # tests/conftest.py, in English and Portuguese
    return (bundled_bank[0], bundled_bank[1].by_id())


def _text(question) -> str:
    return " ".join([question.prompt, *question.choices, question.explanation])


@pytest.mark.parametrize("qid", sorted(WORKED))
def test_every_worked_speedup_is_the_formulas(bank, qid):
    lang, by_id = bank
    text = _text(by_id[qid])
    with using(lang):
        written = [number(expected_speedup(alpha, k, c), 2) + "×" for alpha, k, c in WORKED[qid]]
    missing = [figure for figure in written if figure not in text]
    assert not missing, f"{lang} {qid}: the formula gives {missing}, which the text does not say"


@pytest.mark.parametrize("qid", sorted(BEST))
def test_every_best_k_named_is_the_formulas(bank, qid):
    lang, by_id = bank
    alpha, c, k_max, said = BEST[qid]
    assert optimal_k(alpha, c, k_max) == said, f"{qid}: the best K at α = {alpha}, c = {c} is not {said}"
    assert f"K = {said}" in _text(by_id[qid]), f"{lang} {qid}: the text should name K = {said}"


def test_the_table_catches_a_stale_figure():
    """The check can fail: a speedup one step off the formula's is not in the text."""
    with using("en"):
        stale = number(expected_speedup(0.83, 9, 0.05) + 0.01, 2) + "×"
    assert stale not in _text(load_bank(lang="en").by_id()["ck-best-1"])
