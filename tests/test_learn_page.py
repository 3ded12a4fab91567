"""The guided path under AppTest (issue 14, section 3): a lesson with its objective, interaction and checks; a check
answered and graded; Next; the URL carries the progress and a reload restores it; a bad URL gets one sentence; every
lesson renders; the exit ticket scores and points back to lessons; the Quiz then draws from the concepts met."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz.learn import BY_NUMBER, LESSONS, check_questions, exit_ticket
from specviz.quiz import BANK_DIR, load_bank

ROOT = Path(__file__).resolve().parent.parent
PAGE = str(ROOT / "pages" / "learn.py")
BANK = load_bank([BANK_DIR])


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.delenv("SPECVIZ_QUIZ_PATHS", raising=False)
    monkeypatch.chdir(ROOT)
    return AppTest.from_file(PAGE, default_timeout=30)


def _open(at: AppTest, **params: str) -> AppTest:
    at.query_params.update(params)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _give(at: AppTest, key: str, question, answer) -> None:
    if question.kind == "single":
        at.radio(key=key).set_value(answer)
    elif question.kind == "numeric":
        at.text_input(key=key).input(str(answer))
    elif question.kind == "ordering":
        at.multiselect(key=key).set_value(list(answer))
    else:
        for i, choice in enumerate(question.options(0)):
            at.checkbox(key=f"{key}_{i}").set_value(choice in answer)


def _wrong(question):
    if question.kind == "single":
        return next(c for c in question.choices if c != question.answer)
    if question.kind == "numeric":
        return question.answer + 10 * question.tolerance + 1
    if question.kind == "ordering":
        return list(reversed(question.answer))
    return [c for c in question.choices if c not in question.answer][:1]


def _url(at: AppTest) -> dict[str, str]:
    """The guided path's own parameters in the address bar (other pages' parameters, such as a language, aside)."""
    return {key: at.query_params[key] for key in ("lesson", "done") if key in at.query_params}


def _heading(at: AppTest) -> str:
    return at.subheader[0].value


def test_lesson_1_opens_with_its_objective_text_interaction_and_checks(fresh):
    at = _open(fresh)
    assert at.title[0].value == "Guided path"
    assert _heading(at) == "Lesson 1 of 10: Why decoding is slow"
    assert at.info[0].value.startswith("**Objective.** Explain why")
    assert "**memory-bound**" in " ".join(m.value for m in at.markdown)
    assert at.metric[0].label == "Tokens per second, at most" and at.metric[0].value == "143"  # 7 B, fp16, 2 TB/s
    prompts = [m.value for m in at.markdown if m.value.startswith("**Question ")]
    assert prompts == ["**Question 1 of 2**", "**Question 2 of 2**"]
    assert _url(at) == {"lesson": "1"} and not at.warning


def test_answer_a_check_then_next_and_the_url_carries_the_progress(fresh):
    at = _open(fresh)
    first, second = check_questions(BANK, BY_NUMBER[1])
    _give(at, f"learn_q1_{first.id}", first, first.answer)
    at.button(key=f"learn_q1_{first.id}_check").click().run()
    assert [s.value for s in at.success] == ["Correct."] and first.explanation in [i.value for i in at.info]
    _give(at, f"learn_q1_{second.id}", second, _wrong(second))
    at.button(key=f"learn_q1_{second.id}_check").click().run()
    assert at.error[0].value.startswith("Not quite.")
    assert _url(at) == {"lesson": "1", "done": "1"}  # both answered: lesson 1 is done
    at.button(key=f"learn_q1_{second.id}_again").click().run()  # a wrong answer can be tried again
    assert not at.error and _url(at) == {"lesson": "1", "done": "1"}
    _give(at, f"learn_q1_{second.id}_1", second, second.answer)
    at.button(key=f"learn_q1_{second.id}_1_check").click().run()
    assert [s.value for s in at.success] == ["Correct.", "Correct."]
    at.button(key="learn_next").click().run()
    assert not at.exception
    assert _heading(at) == "Lesson 2 of 10: The loop: guess cheaply, check in one pass"
    assert _url(at) == {"lesson": "2", "done": "1"}
    at.button(key="learn_prev").click().run()
    assert _heading(at).startswith("Lesson 1 of 10") and at.success  # the graded check is still there


def test_a_reload_with_the_url_comes_back_to_the_same_place(fresh):
    at = _open(fresh, lesson="4", done="1,2,3", other="kept")
    assert _heading(at) == "Lesson 4 of 10: The first disagreement"
    assert "3 of 10 lessons done" in at.get("progress")[0].proto.text
    jump = at.get("button_group")[0]
    assert jump.value == ["4"] if isinstance(jump.value, list) else jump.value == "4"
    at.button(key="learn_next").click().run()
    assert _url(at) == {"lesson": "5", "done": "1,2,3,4"}
    assert at.query_params["other"] == "kept"  # another page's parameter (a language, say) is left alone


@pytest.mark.parametrize("params, shown", [
    ({"lesson": "99"}, '"99"'), ({"lesson": "two"}, '"two"'), ({"lesson": "3", "done": "1,x"}, '"1,x"'),
])
def test_a_bad_url_gives_one_sentence_and_lesson_1(fresh, params, shown):
    at = _open(fresh, **params)
    (warning,) = at.warning
    assert shown in warning.value and warning.value.endswith("so it starts at lesson 1.")
    assert _heading(at).startswith("Lesson 1 of 10") and _url(at) == {"lesson": "1"}


@pytest.mark.parametrize("lesson", [lesson.number for lesson in LESSONS])
def test_every_lesson_renders_its_interaction_and_checks(fresh, lesson):
    at = _open(fresh, lesson=str(lesson))
    assert _heading(at).startswith(f"Lesson {lesson} of 10") and not at.error
    assert len([m for m in at.markdown if m.value.startswith("**Question ")]) == len(BY_NUMBER[lesson].checks)
    assert at.button(key="learn_next").label == ("Take the exit ticket →" if lesson == 10 else "Next lesson →")
    deeper = [c.value for c in at.caption if c.value.startswith("Go deeper")]  # a caption outside the app's router
    assert len(deeper) == 1 and (BY_NUMBER[lesson].section or "Go deeper") in deeper[0]


def test_lesson_4_hides_the_verdicts_until_the_learner_predicts_and_reveals(fresh):
    at = _open(fresh, lesson="4")
    hidden = " ".join(h.proto.body for h in at.get("html"))
    assert "verdict hidden" in hidden and "im_start" not in hidden  # a beginner's first chips are words
    at.number_input(key="learn_predict_smollm-ngram-t07_1").set_value(2).run()
    at.button(key="learn_reveal").click().run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "You predicted **2** accepted: it was 1." in text and "##### Step 2 ·" in text


def test_the_exit_ticket_scores_and_points_back_to_the_lessons_missed(fresh):
    at = _open(fresh, lesson="10", done="1,2,3,4,5,6,7,8,9")
    at.button(key="learn_next").click().run()
    assert _url(at) == {"lesson": "ticket", "done": ",".join(map(str, range(1, 11)))}
    ticket = exit_ticket(BANK)
    assert len(ticket) == 6
    for q in ticket:
        _give(at, f"learn_ticket1_{q.id}", q, _wrong(q) if q.faq == "quality" else q.answer)
    at.button(key="FormSubmitter:learn_ticket1_sheet-Grade my answers").click().run()
    assert not at.exception
    assert at.metric[0].value == "5 / 6"
    at.button(key="learn_revisit_5").click().run()  # exactness teaches the quality question
    assert _heading(at).startswith("Lesson 5 of 10")


def test_the_quiz_after_the_path_asks_about_the_concepts_met(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    at.query_params.update({"lesson": "2", "done": "1"})
    at.switch_page("pages/learn.py").run()
    assert _heading(at).startswith("Lesson 2 of 10")
    at.switch_page("pages/quiz.py").run()
    assert not at.exception
    assert {q.concept for q in at.session_state["quiz_run"].questions} == {"memory_bound", "core_idea"}


def test_lesson_5_judges_the_simulated_tokens_in_words(fresh):
    at = _open(fresh, lesson="5")
    assert at.success[0].value.startswith("What came out matches p")
    at.get("button_group")[1].set_value("resample_from_target").run()  # [0] is the row of lesson numbers
    assert at.error[0].value.startswith("What came out does not match p")
