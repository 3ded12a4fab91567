"""A retry after a missed lesson check (issue 43 item 10): the miss revealed the key, so "Try again" asks a sibling on
the same concept, and that sibling is never an exit-ticket question (its key would be seen before the ticket asks it)
nor any lesson's check (it would spoil that lesson, and may use terms the learner has not met yet). When every sibling
has been seen, the concept's question seen longest ago comes back, never the one whose key is on screen."""

from __future__ import annotations

import re

import pytest

from specviz.teach.learn import BY_NUMBER, LESSONS, _uses_later_terms, check_questions, exit_ticket, retry_question
from specviz.teach.quiz import load_bank


@pytest.fixture(autouse=True)
def threads_for_model_size():
    """Overrides conftest's fixture: nothing here runs a model."""
    yield


@pytest.fixture(scope="module")
def bank(bundled_bank):  # tests/conftest.py, in English and Portuguese
    return bundled_bank[1]


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


def _seen_again(seen: list[str], *ids: str) -> None:
    """Move `ids` to the end of `seen` (oldest first), as `specviz.ui.learn.questions._try_again` does."""
    for qid in ids:
        if qid in seen:
            seen.remove(qid)
        seen.append(qid)


def test_missing_every_check_in_turn_never_serves_the_ticket_or_a_check(bank):
    """Seen grows as on the page (`specviz.ui.learn.questions._try_again`): every question shown so far, the lesson's
    checks and each sibling served. Until a concept runs out of fresh siblings, each retry is one not seen yet."""
    forbidden, served = _asked_elsewhere(bank), 0
    for lesson in LESSONS:
        seen = list(lesson.checks)
        for check in check_questions(bank, lesson):
            missed = check
            for _ in range(len(bank)):  # miss it, then miss every sibling served in its place
                retry = retry_question(bank, lesson, missed, seen)
                assert retry.id != missed.id, (lesson.number, missed.id)
                if retry.id in seen:  # no fresh sibling left: the cycle has begun
                    break
                assert retry.id not in forbidden, (lesson.number, missed.id, retry.id)
                assert retry.concept == check.concept
                _seen_again(seen, missed.id, retry.id)
                missed = retry
                served += 1
    assert served >= sum(len(lesson.checks) for lesson in LESSONS)  # at least one sibling per check was served


def _miss_in_every_place(bank, lesson, misses: int) -> list[list[str]]:
    """A learner on `lesson` who misses, `misses` times over, whatever each place shows, place by place in turn; seen
    and the places on screen kept as `_try_again` keeps them. The ids each place showed, in order."""
    places = [[q.id] for q in check_questions(bank, lesson)]
    seen, by_id = [q[0] for q in places], bank.by_id()
    for _ in range(misses):
        for place in places:
            missed = by_id[place[-1]]
            retry = retry_question(bank, lesson, missed, seen, showing=[p[-1] for p in places])
            _seen_again(seen, missed.id, retry.id)
            place.append(retry.id)
    return places


@pytest.mark.parametrize("number", [lesson.number for lesson in LESSONS])
def test_once_the_siblings_run_out_the_question_seen_longest_ago_comes_back_never_the_one_just_missed(bank, number):
    """Issue 43 item 10: with no fresh sibling left the missed question itself used to come back, its choices only
    reshuffled, so a learner who copied the key on screen mastered the lesson. Now the concept's question seen longest
    ago comes back (a sibling, or the lesson's own check), never the one just missed nor one shown in another place,
    never the exit ticket's nor another lesson's check, and each place goes round all of them before repeating."""
    lesson, forbidden = BY_NUMBER[number], _asked_elsewhere(bank) - set(BY_NUMBER[number].checks)
    places = _miss_in_every_place(bank, lesson, misses=12)
    assert len(places) == len(lesson.checks) and all(len(place) == 13 for place in places)  # one per check, 12 retries
    for place in places:
        concept = bank.by_id()[place[0]].concept
        assert all(bank.by_id()[qid].concept == concept for qid in place)
        assert all(a != b for a, b in zip(place, place[1:])), f"lesson {number}: a missed question came straight back"
        assert not forbidden & set(place), f"lesson {number}: {sorted(forbidden & set(place))}"
    for step in range(len(places[0])):  # no question is asked in two places at once
        now = [place[step] for place in places]
        assert len(now) == len(set(now)), (number, step, now)
    by_id = bank.by_id()
    for concept in {by_id[place[0]].concept for place in places}:  # the cycle reaches every question it may ask
        asked = {qid for place in places for qid in place if by_id[qid].concept == concept}
        may = {q.id for q in bank if q.concept == concept and (q.id not in forbidden or q.id in lesson.checks)
               and not _uses_later_terms(q, number)}
        assert may <= asked, f"lesson {number}: {sorted(may - asked)} never came back"


def test_a_place_cycles_through_every_question_of_its_concept_oldest_first():
    """Lesson 1, memory_bound's second check: its three siblings, then the check itself (shown first, so seen longest
    ago), then the siblings again in the order they came; the other check stays in its own place."""
    bank, lesson = load_bank(), BY_NUMBER[1]
    first, second = check_questions(bank, lesson)
    seen, missed, shown = [first.id, second.id], second, []
    for _ in range(8):
        retry = retry_question(bank, lesson, missed, seen, showing=[first.id, missed.id])
        _seen_again(seen, missed.id, retry.id)
        shown.append(retry.id)
        missed = retry
    siblings = shown[:3]
    assert first.id not in shown and second.id not in siblings and len(set(siblings)) == 3
    assert shown == [*siblings, second.id, *siblings, second.id]


def test_only_a_concept_with_a_single_question_repeats_the_one_just_missed(tmp_path):
    """A teacher's concept with one question has nothing else to ask; with two, a miss of either asks the other."""
    def bank_of(n: int):
        questions = "".join(
            f"  - {{id: own-{i}, concept: own, type: single, link: pages/quiz.py, prompt: 'Question {i}: which one?',"
            f" choices: ['Yes {i}', 'No {i}'], answer: 'Yes {i}', explanation: 'Because it is the one {i}.'}}\n"
            for i in range(n))
        path = tmp_path / f"own{n}.yaml"
        path.write_text("concepts:\n  own: My own topic\nquestions:\n" + questions)
        return load_bank([path])

    one, two, lesson = bank_of(1), bank_of(2), BY_NUMBER[3]
    (only,) = one
    assert retry_question(one, lesson, only, [only.id]).id == only.id
    a, b = two
    assert retry_question(two, lesson, a, [a.id, b.id]).id == b.id
    assert retry_question(two, lesson, b, [a.id, b.id]).id == a.id
    assert retry_question(two, lesson, b, [b.id, a.id]).id == a.id  # the only other one, however recently seen


# The concepts whose checks have enough plain siblings (no term a later lesson defines) for a learner to miss every
# check of that concept in a lesson and still get a question not seen yet, plus one. The other concepts join this
# list as their siblings land (trees, limits and choosing_k are being written).
ENOUGH_SIBLINGS = ("memory_bound", "core_idea", "accept_rule", "first_disagreement", "residual", "bonus_token",
                   "kv_rollback", "quality", "greedy_vs_sampling", "speedup", "prompt_lookup", "layer_skip", "medusa",
                   "eagle", "production", "trees", "limits", "choosing_k")


def test_every_concept_a_lesson_checks_is_held_to_the_sibling_count(bank):
    checked = {q.concept for lesson in LESSONS for q in check_questions(bank, lesson)}
    assert checked and checked <= set(ENOUGH_SIBLINGS), checked - set(ENOUGH_SIBLINGS)


@pytest.mark.parametrize("concept", ENOUGH_SIBLINGS)
def test_every_check_has_more_plain_siblings_than_its_lesson_has_checks_on_its_concept(bank, concept):
    """Issue 43 item 10: a concept with fewer siblings than checks ran out before the learner did. In every lesson
    that checks `concept`, the concept has at least (its checks there + 1) siblings that are neither a check nor an
    exit-ticket question and that use only the terms met so far."""
    forbidden, lessons = _asked_elsewhere(bank), 0
    for lesson in LESSONS:
        checks = [q for q in check_questions(bank, lesson) if q.concept == concept]
        if not checks:
            continue
        plain = [q.id for q in bank if q.concept == concept and q.id not in forbidden
                 and not _uses_later_terms(q, lesson.number)]
        assert len(plain) >= len(checks) + 1, f"lesson {lesson.number}: {concept} has {plain} for {len(checks)} checks"
        lessons += 1
    assert lessons >= 1


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
        while (retry := retry_question(bank, lesson, missed, seen)).id not in seen:  # until the cycle begins
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


def test_a_missed_alpha_check_is_retried_with_alpha_asked_again(bank):
    """Read 54: lesson 6's check ar-alpha (α = Σ min(p, q)) is filed under accept_rule, so a miss was retried with
    ar-prob-2 (min(1, p/q) for one token), and no sibling asked for α again. The retry now asks the missed
    calculation first: ar-alpha-2, α = 0.68 over four tokens. A lesson-3 miss still gets the plain siblings first
    (ar-alpha-2 says lesson 6's "acceptance probability")."""
    by_id, lesson = bank.by_id(), BY_NUMBER[6]
    missed = by_id["ar-alpha"]
    retry = retry_question(bank, lesson, missed, list(lesson.checks))
    assert retry.id == "ar-alpha-2" and retry.formula == missed.formula == "alpha"
    assert retry.params["p"] != missed.params["p"] and retry.answer == pytest.approx(0.68)
    seen = list(BY_NUMBER[3].checks)
    served = []
    for missed in check_questions(bank, BY_NUMBER[3]):
        if missed.concept == "accept_rule":
            served.append(retry_question(bank, BY_NUMBER[3], missed, seen).id)
            seen.append(served[-1])
    assert "ar-alpha-2" not in served and served
