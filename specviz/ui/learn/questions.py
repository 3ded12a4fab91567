"""The guided path's questions: each lesson's two to four checks (graded one by one; "Try again" after a miss asks
another question on its concept where there is one, `specviz.teach.learn.retry_question`) and the six-question exit
ticket, with its score and the lessons to revisit. Asked and graded with the Quiz's own pieces
(`specviz.ui.common.quiz.view`, `specviz.teach.quiz.QuizRun`); which questions is `specviz.teach.learn`'s data."""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from specviz.core.i18n import N_, _, get_language
from specviz.teach.learn import (Lesson, Progress, check_questions, exit_ticket, lessons_to_revisit, retry_question,
                                  ticket_retake)
from specviz.teach.quiz import Bank, QuizRun
from specviz.ui.learn import progress as learn_progress
from specviz.ui.common.quiz import view as quiz_view

TICKET_ANCHOR = "exit-ticket"  # the exit ticket's heading: a link's #fragment and where a move lands

TEXT = {  # English messages, translated with `_()` where they are shown
    "check_header": N_("**Question {number} of {total}**"),
    "check_button": N_("Check"),
    "again_button": N_("Try again"),
    "ticket_title": N_("Exit ticket"),
    "ticket_intro": N_("Six questions, one for each of the questions people ask most about speculative decoding. "
                    "Answer them all, then grade them together."),
    "retake_intro": N_("Six questions, each on the same concept as one on your last ticket, and a different "
                       "question wherever that concept has another. Answer them all, then grade them together."),
    "score": N_("Your score"),
    "all_right": N_("All six right: you have the whole idea. The Quiz has more questions on every concept."),
    "revisit": N_("Worth another look: the lessons that teach what you missed."),
    "revisit_button": N_("Lesson {number}: {title}"),
    "again": N_("Take the exit ticket again"),
    "quiz_link": N_("Quiz yourself on the concepts you have met"),
    "mastered": N_("Lesson mastered: every check answered right."),
    "attempted": N_("Attempted: {right} of {total} checks right so far. A lesson is mastered when all are right."),
}


SEEN = "learn_seen"  # session key: the ids the path has shown (lesson checks, retries, exit tickets), oldest first


def _saw(ids: Iterable[str]) -> list[str]:
    """Mark `ids` as seen just now (each moved to the end of the one list the lesson retries and the exit ticket's
    retakes both read, so neither serves a question whose key the other already showed); the list, oldest first."""
    seen: list[str] = st.session_state.setdefault(SEEN, [])
    for qid in ids:
        if qid in seen:
            seen.remove(qid)
        seen.append(qid)
    return seen


def _try_again(run: QuizRun, question_id: str, bank: Bank, lesson: Lesson) -> None:
    """After a miss, ask another question on the same concept in its place (the missed one showed its key): a
    sibling not seen yet, else the one seen longest ago; the same one, its choices shuffled anew, only when the
    concept has no other. The lesson stays done if it was."""
    run.grades.pop(question_id, None)
    run.answers.pop(question_id, None)
    seen: list[str] = st.session_state.setdefault(SEEN, [])  # ids shown, oldest first, each once
    seen.extend(q.id for q in run.questions if q.id not in seen)
    at = next(i for i, q in enumerate(run.questions) if q.id == question_id)
    shown = run.questions[at] = retry_question(bank, lesson, run.questions[at], seen,
                                               showing=[q.id for q in run.questions])
    _saw((question_id, shown.id))  # the missed one was seen just now, and the new one is seen from now on
    tries = st.session_state.setdefault("learn_tries", {})
    tries[run.questions[at].id] = tries.get(question_id, 0) + 1


def checks(bank: Bank, lesson: Lesson) -> None:
    """The lesson's questions, each with its own Check button; every answer marks the lesson attempted, all of
    them right marks it mastered. A line under them says which."""
    runs = st.session_state.setdefault("learn_checks", {})
    run: QuizRun = runs.setdefault(lesson.number, QuizRun(check_questions(bank, lesson), seed=0))
    by_id = bank.by_id()
    if any(by_id.get(q.id) != q for q in run.questions):  # the learner switched language: the same questions, theirs
        run = runs[lesson.number] = run.relabeled(by_id)
    for number, question in enumerate(run.questions, start=1):
        with st.container(border=True):
            st.markdown(_(TEXT["check_header"], number=number, total=len(run.questions)))
            st.markdown(question.prompt)
            result = run.grades.get(question.id)
            tries = st.session_state.setdefault("learn_tries", {}).get(question.id, 0)
            key = f"learn_q{lesson.number}_{question.id}" + (f"_{tries}" if tries else "")  # a new box per try
            answer = quiz_view.answer_widget(question, run.seed + tries, key, disabled=result is not None,
                                             graded=run.answers.get(question.id) if result is not None else None)
            if result is not None:
                quiz_view.feedback(question, result)
                if not result.correct:
                    st.button(_(TEXT["again_button"]), key=f"{key}_again", on_click=_try_again,
                              args=(run, question.id, bank, lesson))
            elif st.button(_(TEXT["check_button"]), key=f"{key}_check"):
                if quiz_view.is_blank(answer):
                    st.warning(_(quiz_view.TEXT["give_answer"]))
                else:
                    run.submit(question, answer, get_language())
                    right = sum(g.correct for g in run.grades.values())
                    learn_progress.checked(lesson.number, right == len(run.questions), missed=right < len(run.grades))
                    st.rerun()
    status(run, lesson.number in learn_progress.current().done)


def status(run: QuizRun, mastered: bool = False) -> None:
    """Mastered, or how many checks are right so far (nothing before the first answer). `mastered`: the lesson was
    mastered before (a reload brings it back unanswered), which right answers keep and a wrong one ends."""
    right = sum(g.correct for g in run.grades.values())
    if not run.grades:
        return
    if right == len(run.questions) or (mastered and right == len(run.grades)):
        st.success(_(TEXT["mastered"]))
    else:
        st.caption(_(TEXT["attempted"], right=right, total=len(run.questions)))


def ticket(bank: Bank, progress: Progress) -> None:
    """The exit ticket as one sheet; once graded, the score and a button back to each lesson that teaches a miss."""
    st.subheader(_(TEXT["ticket_title"]), anchor=TICKET_ANCHOR)
    if "learn_ticket" not in st.session_state:
        # a retake swaps each question for another on its concept and reshuffles the choices: the graded sheet
        # showed every key (issue 43 item 10); "another" is judged on every question the path has shown, since a
        # lesson's retry may have shown a sibling and its key already
        seen = st.session_state.setdefault(SEEN, [])
        taken = st.session_state.get("learn_ticket_round", 0)
        st.session_state["learn_ticket"] = QuizRun(ticket_retake(bank, seen) if taken else exit_ticket(bank),
                                                   seed=taken)
        st.session_state["learn_ticket_round"] = taken + 1
    # a retake asks other questions on the ticket's concepts, not the questions people ask most (read 32)
    retake = st.session_state.get("learn_ticket_round", 1) > 1
    st.markdown(_(TEXT["retake_intro" if retake else "ticket_intro"]))
    run: QuizRun = st.session_state["learn_ticket"]
    by_id = bank.by_id()
    if any(by_id.get(q.id, q) != q for q in run.questions):  # the learner switched language
        run = st.session_state["learn_ticket"] = run.relabeled(by_id)
    quiz_view.sheet(run, bank, f"learn_ticket{st.session_state['learn_ticket_round']}")
    if not run.grades:
        return
    seen = st.session_state.setdefault(SEEN, [])  # graded: every key is on screen, so a lesson's retry skips them
    seen.extend(q.id for q in run.questions if q.id not in seen)
    st.metric(_(TEXT["score"]), f"{run.n_correct} / {len(run.questions)}")
    missed = [q for q in run.questions if not run.grades[q.id].correct]
    if not missed:
        st.success(_(TEXT["all_right"]))
    else:
        st.markdown(_(TEXT["revisit"]))
        for lesson in lessons_to_revisit(missed):
            st.button(_(TEXT["revisit_button"], number=lesson.number, title=lesson.shown_title()),
                      key=f"learn_revisit_{lesson.number}", on_click=learn_progress.go, args=(lesson.number,))
    if st.button(_(TEXT["again"]), key="learn_ticket_again"):
        _saw(q.id for q in run.questions)
        del st.session_state["learn_ticket"]
        st.rerun()
    learn_progress.link("pages/quiz.py", _(TEXT["quiz_link"]), ":material/quiz:", progress.to_params())
