"""No two questions of a bundled bank ask nearly the same thing in nearly the same words (issue 27 item 11: quiz
question 8 read like question 1). A prompt that repeats another's wording, only with other numbers, reads to a
learner as the same question asked twice; the bank words each one differently, in English and in Portuguese."""

from __future__ import annotations

import difflib
from itertools import combinations

import pytest

from specviz.teach.quiz import PATHS_ENV, load_bank

MOST_ALIKE = 0.8  # difflib.SequenceMatcher ratio; the bank's closest pair today is about 0.79


@pytest.fixture(scope="module", params=["en", "pt"])
def bank(request):
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(PATHS_ENV, raising=False)  # the bundled bank, without a teacher's files
        return load_bank(lang=request.param)


def alike(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def test_no_two_prompts_are_near_duplicates(bank):
    close = [(round(alike(a.prompt, b.prompt), 3), a.id, b.id) for a, b in combinations(bank, 2)
             if alike(a.prompt, b.prompt) > MOST_ALIKE]
    assert close == []


def test_what_it_is_and_where_it_saves_time_are_different_questions(bank):
    """The exit ticket asks these two back to back: one what speculative decoding is, one where its time goes."""
    by_id = bank.by_id()
    what, core = by_id["ci-what-is"], by_id["ci-core-idea"]
    assert alike(what.prompt, core.prompt) < 0.6 and alike(what.answer, core.answer) < 0.6


def test_the_check_catches_a_near_duplicate():
    before = ("α = 0.8, K = 4: expected tokens per step?", "α = 0.6, K = 3: expected tokens per step?")  # 0.95
    assert alike(*before) > MOST_ALIKE
