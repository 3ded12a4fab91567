"""No two questions of a bundled bank ask nearly the same thing in nearly the same words (issue 27 item 11: quiz
question 8 read like question 1). A prompt that repeats another's wording, only with other numbers, reads to a
learner as the same question asked twice; the bank words each one differently, in English and in Portuguese."""

from __future__ import annotations

import difflib
from itertools import combinations

import pytest


MOST_ALIKE = 0.8  # difflib.SequenceMatcher ratio; the closest pair on 2026-12-05 reads 0.707 (pt: kv-facts, ls-facts)


@pytest.fixture(scope="module")
def bank(bundled_bank):  # tests/conftest.py, in English and Portuguese
    return bundled_bank[1]


def alike(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def close_pairs(texts: dict[str, str], limit: float = MOST_ALIKE) -> list[tuple[float, str, str]]:
    """(ratio, id, id) for every pair whose texts are more alike than `limit`. quick_ratio() is an upper bound of
    ratio(), so a pair it puts at or below the limit is skipped without the full comparison (same answer, 1/20 of
    the time)."""
    close = []
    for (a, x), (b, y) in combinations(texts.items(), 2):
        matcher = difflib.SequenceMatcher(None, x, y)
        if matcher.real_quick_ratio() > limit and matcher.quick_ratio() > limit and matcher.ratio() > limit:
            close.append((round(matcher.ratio(), 3), a, b))
    return close


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_no_two_prompts_are_near_duplicates(bank):
    assert close_pairs({q.id: q.prompt for q in bank}) == []


def test_what_it_is_and_where_it_saves_time_are_different_questions(bank):
    """The exit ticket asks these two back to back: one what speculative decoding is, one where its time goes."""
    by_id = bank.by_id()
    what, core = by_id["ci-what-is"], by_id["ci-core-idea"]
    assert alike(what.prompt, core.prompt) < 0.6 and alike(what.answer, core.answer) < 0.6


def test_the_check_catches_a_near_duplicate():
    before = ("α = 0.8, K = 4: expected tokens per step?", "α = 0.6, K = 3: expected tokens per step?")  # 0.95
    assert alike(*before) > MOST_ALIKE
    assert close_pairs({"a": before[0], "b": before[1], "c": "Why is decoding memory-bound?"}) == \
        [(round(alike(*before), 3), "a", "b")]  # the quick bounds keep the pair the full comparison finds
