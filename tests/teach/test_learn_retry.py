"""A retry after a missed lesson check (issue 43 item 10): the miss revealed the key, so "Try again" asks a sibling on
the same concept, and that sibling is never an exit-ticket question (its key would be seen before the ticket asks it)
nor any lesson's check (it would spoil that lesson, and may use terms the learner has not met yet)."""

from __future__ import annotations

import re

import pytest

from specviz.teach.learn import BY_NUMBER, LESSONS, check_questions, exit_ticket, retry_question
from specviz.teach.quiz import PATHS_ENV, load_bank


@pytest.fixture(autouse=True)
def threads_for_model_size():
    """Overrides conftest's fixture: nothing here runs a model."""
    yield


@pytest.fixture(scope="module", params=["en", "pt"])
def bank(request):
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(PATHS_ENV, raising=False)  # the bundled bank, without a teacher's files
        return load_bank(lang=request.param)


def _asked_elsewhere(bank) -> set[str]:
    return {q.id for q in exit_ticket(bank)} | {qid for lesson in LESSONS for qid in lesson.checks}


def test_every_check_missed_once_gets_a_fresh_sibling(bank):
    ticket, checks, tried = {q.id for q in exit_ticket(bank)}, _asked_elsewhere(bank), 0
    assert len(ticket) == 6
    for lesson in LESSONS:
        for missed in check_questions(bank, lesson):
            retry = retry_question(bank, lesson, missed, {missed.id})
            assert retry.id != missed.id and retry.concept == missed.concept, (lesson.number, missed.id)
            assert retry.id not in ticket, f"lesson {lesson.number}: {missed.id} -> {retry.id}, an exit-ticket question"
            assert retry.id not in checks, f"lesson {lesson.number}: {missed.id} -> {retry.id}, a lesson's check"
            tried += 1
    assert tried == sum(len(lesson.checks) for lesson in LESSONS) > 30


def test_missing_every_check_in_turn_never_serves_the_ticket_or_a_check(bank):
    """Seen grows as on the page (`specviz.ui.learn.questions._try_again`): every question shown so far, the lesson's
    checks and each sibling served. A concept that runs out of siblings falls back to the missed question itself."""
    forbidden, served = _asked_elsewhere(bank), 0
    for lesson in LESSONS:
        seen = set(lesson.checks)
        for check in check_questions(bank, lesson):
            missed = check
            for _ in range(len(bank)):  # miss it, then miss every sibling served in its place
                retry = retry_question(bank, lesson, missed, seen)
                if retry.id == missed.id:
                    break
                assert retry.id not in forbidden and retry.id not in seen, (lesson.number, missed.id, retry.id)
                assert retry.concept == check.concept
                seen.add(retry.id)
                missed = retry
                served += 1
    assert served >= sum(len(lesson.checks) for lesson in LESSONS)  # at least one sibling per check was served


@pytest.mark.parametrize("concept, lessons", [("memory_bound", (1, 2)), ("production", (11,))])
def test_a_learner_who_misses_every_check_of_a_concept_gets_a_new_question_each_time(bank, concept, lessons):
    """memory_bound's checks (two in lesson 1, one in lesson 2) and lesson 11's four production checks once had no
    sibling left outside the ticket and the checks, so the missed item came back with its key revealed."""
    seen, served = set(), []
    for number in lessons:
        seen |= set(BY_NUMBER[number].checks)
        for missed in check_questions(bank, BY_NUMBER[number]):
            if missed.concept != concept:
                continue
            retry = retry_question(bank, BY_NUMBER[number], missed, seen)
            assert retry.id != missed.id and retry.id not in seen, (missed.id, retry.id)
            seen.add(retry.id)
            served.append(retry.id)
    assert len(served) >= 3 and len(set(served)) == len(served)


def _question_text(q) -> str:
    return " ".join([q.prompt, *q.choices, *(q.answer if q.kind == "ordering" else ())])


def _mentions(text: str, term: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(term) + r"s?(?![\w-])", text, re.IGNORECASE) is not None


def test_a_lesson_1_retry_uses_only_lesson_1_terms():
    """A learner who misses a lesson-1 check has met only lesson 1: its retries name no term a later lesson defines
    (no draft, target or verify pass), as the term rule of tests/teach/test_learn.py asks of the checks."""
    bank = load_bank()
    seen, lesson = set(BY_NUMBER[1].checks), BY_NUMBER[1]
    siblings = []
    for missed in check_questions(bank, lesson):
        while (retry := retry_question(bank, lesson, missed, seen)).id != missed.id:
            seen.add(retry.id)
            siblings.append(retry)
    assert len(siblings) >= 3
    later = [(q.id, term) for q in siblings for each in LESSONS[1:] for term in each.terms
             if _mentions(_question_text(q), term)]
    assert later == []


def test_every_first_retry_uses_only_terms_defined_so_far():
    """A retry is asked where the learner stands: helper reads of issue 43 found ci-round-order (min(1, p/q), first
    rejection, KV cache) served after a lesson-2 miss, bt-prob ("independently", lesson 6) after a lesson-4 one. A
    sibling that says a later lesson's term is served only when no other is left; today none is needed."""
    bank, asked = load_bank(), 0
    for lesson in LESSONS:
        seen = set(lesson.checks)
        for missed in check_questions(bank, lesson):
            retry = retry_question(bank, lesson, missed, seen)
            seen.add(retry.id)
            later = [(term, each.number) for each in LESSONS[lesson.number:] for term in each.terms
                     if _mentions(_question_text(retry), term)]
            assert later == [], f"lesson {lesson.number}: {missed.id} -> {retry.id} says {later}"
            asked += 1
    assert asked == sum(len(lesson.checks) for lesson in LESSONS)
