"""The guided path's data (issue 14, section 3): ten lessons in order, every concept introduced before a check asks
about it, every term defined before a lesson or a check uses it, every link target there, and the exit ticket."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from specviz.examples import list_examples
from specviz.learn import (BY_NUMBER, LESSONS, TICKET, Progress, check_questions, concepts_up_to, exit_ticket,
                           lesson_for_concept, lessons_to_revisit, parse_progress)
from specviz.pagemap import PAGE_FILES
from specviz.quiz import BANK_DIR, CONCEPTS, FAQ_TOPICS, load_bank

ROOT = Path(__file__).resolve().parent.parent
INTERACTIONS = {"bandwidth", "loop", "rule", "first_disagreement", "exactness", "speedup", "choosing_k", "proposers",
                "trees", "limits"}


@pytest.fixture(autouse=True)
def threads_for_model_size():
    """Overrides conftest's fixture: nothing here runs a model."""
    yield


@pytest.fixture(scope="module")
def bank():
    return load_bank([BANK_DIR])


def _question_text(q) -> str:
    return " ".join([q.prompt, *q.choices, *(q.answer if q.kind == "ordering" else ())])


def _mentions(text: str, term: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(term) + r"s?(?![\w-])", text, re.IGNORECASE) is not None


def test_ten_lessons_in_the_order_the_issue_lists():
    assert [lesson.number for lesson in LESSONS] == list(range(1, 11))
    assert [lesson.slug for lesson in LESSONS] == ["why-slow", "loop", "rule", "first-disagreement", "exactness",
                                                   "speedup", "choosing-k", "proposers", "trees", "limits"]
    assert len({lesson.slug for lesson in LESSONS}) == 10
    assert {lesson.interaction for lesson in LESSONS} == INTERACTIONS
    assert all(lesson.objective and lesson.text for lesson in LESSONS)


def test_every_check_asks_only_about_concepts_introduced_so_far(bank):
    by_id = bank.by_id()
    for lesson in LESSONS:
        assert 2 <= len(lesson.checks) <= 4, lesson.slug
        assert len(check_questions(bank, lesson)) == len(lesson.checks), f"{lesson.slug}: a check is not in the bank"
        for qid in lesson.checks:
            assert by_id[qid].concept in concepts_up_to(lesson.number), f"{lesson.slug}: {qid} comes too early"


def test_every_quiz_concept_is_taught_by_exactly_one_lesson(bank):
    taught = [c for lesson in LESSONS for c in lesson.concepts]
    assert len(taught) == len(set(taught))
    assert set(bank.used_concepts()) == set(taught)
    assert concepts_up_to(1) == ["memory_bound"] and concepts_up_to(2) == ["memory_bound", "core_idea"]


def test_every_term_is_defined_before_a_lesson_or_a_check_uses_it(bank):
    """A term a lesson defines (in bold in its text) appears in no earlier lesson and no earlier check question."""
    by_id = bank.by_id()
    for lesson in LESSONS:
        for term in lesson.terms:
            assert _mentions(lesson.text.replace("**", ""), term), f"lesson {lesson.number} never says {term!r}"
            for earlier in LESSONS[: lesson.number - 1]:
                assert not _mentions(earlier.text, term), f"lesson {earlier.number} says {term!r} before lesson " \
                                                          f"{lesson.number} defines it"
                for qid in earlier.checks:
                    assert not _mentions(_question_text(by_id[qid]), term), \
                        f"{qid} (lesson {earlier.number}) says {term!r} before lesson {lesson.number} defines it"


def test_the_exit_ticket_is_one_question_per_faq_topic_all_taught(bank):
    ticket = exit_ticket(bank)
    assert [q.faq for q in ticket] == list(FAQ_TOPICS) and len(ticket) == 6
    assert all(lesson_for_concept(q.concept) is not None for q in ticket)
    checked = {qid for lesson in LESSONS for qid in lesson.checks}
    assert not checked & {q.id for q in ticket}  # the ticket asks questions the learner has not seen yet


def test_missed_questions_point_back_to_their_lessons_once_each(bank):
    by_id = bank.by_id()
    missed = [by_id["q-quality"], by_id["mb-why-slow"], by_id["q-worse-draft"]]
    assert [lesson.number for lesson in lessons_to_revisit(missed)] == [1, 5]


def test_every_link_target_exists():
    names = {e.name for e in list_examples()}
    for lesson in LESSONS:
        assert lesson.page in PAGE_FILES
        assert not lesson.example or lesson.example in names
    assert BY_NUMBER[9].anchor == "trees" and 'anchor="trees"' in (ROOT / "pages" / "proposers.py").read_text()
    # Streamlit's own anchor for a heading without one: its words in lower case, joined by hyphens
    theory = BY_NUMBER[10]
    assert theory.anchor == theory.section.lower().replace(" ", "-")
    assert f'"{theory.section}"' in (ROOT / "specviz" / "ui" / "theory_serving.py").read_text()  # its heading
    assert all(bool(lesson.anchor) == bool(lesson.section) for lesson in LESSONS)


@pytest.mark.parametrize("params, lesson, done", [
    ({}, 1, set()),
    ({"lesson": "4", "done": "1,2,3"}, 4, {1, 2, 3}),
    ({"lesson": " 10 ", "done": "3, 1"}, 10, {1, 3}),
    ({"lesson": "ticket", "done": ""}, TICKET, set()),
])
def test_progress_reads_what_the_url_says(params, lesson, done):
    progress, problem = parse_progress(params)
    assert problem is None and progress.lesson == lesson and progress.done == done
    assert parse_progress(progress.to_params()) == (progress, None)


@pytest.mark.parametrize("params, word", [
    ({"lesson": "0"}, '"0"'), ({"lesson": "11"}, '"11"'), ({"lesson": "<b>x</b>"}, "<b>x</b>"),
    ({"lesson": "2", "done": "1,zwei"}, '"1,zwei"'), ({"lesson": "2", "done": "12"}, '"12"'),
])
def test_a_bad_url_starts_at_lesson_1_with_one_sentence(params, word):
    progress, problem = parse_progress(params)
    assert progress == Progress() and word in problem
    assert problem.count(". ") == 0 and problem.endswith(".")


def test_met_concepts_follow_the_lessons_seen():
    assert Progress(1).met_concepts() == ["memory_bound"]
    assert Progress(3, frozenset({1})).met_concepts() == ["memory_bound", "accept_rule"]
    assert len(Progress(TICKET).met_concepts()) == len(CONCEPTS)
    assert Progress(2).go(3, finished=2).to_params() == {"lesson": "3", "done": "2"}


def test_lesson_9_teaches_the_tree_rule_at_every_temperature_and_checks_it():
    """Issue 26, item 1: "keeps the longest path" is the greedy case only, and the engine does run trees."""
    text = BY_NUMBER[9].text
    assert "longest" in text and "Greedy (temperature 0)" in text
    assert "q′ loses x" in text and "point masses" in text and "not run trees" not in text
    assert {"tr-mask", "tr-top-k"} <= set(BY_NUMBER[9].checks)


def test_no_text_says_the_engine_runs_no_trees_or_gives_the_greedy_path_as_the_rule():
    from specviz.scripts.i18n import extract, read_catalog

    texts = [str(m.id) for m in extract() if m.id] + [str(m.string) for m in read_catalog() if m.id]
    assert len(texts) > 1000
    assert not [t[:80] for t in texts if re.search(r"not run trees|não executa árvores", t)]
    longest = [t for t in texts if re.search(r"longest (accepted )?path|caminho mais longo", t, re.IGNORECASE)]
    assert longest and all(re.search(r"[Gg]reedy|T = 0|temperature 0|gulos|temperatura 0", t) for t in longest)
