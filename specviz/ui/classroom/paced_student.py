"""Classroom, teacher-paced, the student's side: whatever question the teacher pushed, answered without feedback
until the reveal.

The question area is a live fragment (`specviz.ui.common.frame.live_fragment`) that reruns itself every POLL_SECONDS, so a
phone switches to a newly pushed question (or to round 2, or to the reveal) at its next poll with no
refresh; a widget keeps its value across those reruns because its key names the push and the round. Data and rules
live in specviz.teach.classroom_paced; the student's own answers are shown back through specviz.ui.common.escaping.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from specviz.core.i18n import N_, _, end_sentence, get_language
from specviz.teach.classroom import ClassroomError, Student, answer_between, shown_title
from specviz.teach.classroom_paced import POLL_SECONDS, PacedStore, Push
from specviz.teach.quiz import Question, grade, shown_answer
from specviz.teach.quiz.grading import answer_sentence
from specviz.teach.quiz.schema import QuestionKind
from specviz.ui.classroom import view
from specviz.ui.classroom.chart import ORDER_SEP
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.common.frame import live_fragment
from specviz.ui.common.quiz import view as quiz_view

# English messages, shown with `_()` (specviz.core.i18n)
TEXT = {
    "header": N_("**{title}** · you are **{name}** · session `{code}`"),
    "waiting": N_("Waiting for your teacher's first question. It appears here by itself; no need to refresh."),
    "ended": N_("This session has ended. Thank you for taking part!"),
    "question": N_("**Question {number}** · round {round}"),
    "round_2": N_("Round 2: talk it over with your neighbour, then answer again. You may change your mind."),
    # read 51: "answer again" and "change your mind" to a student with no round 1 answer, who had nothing to change
    "round_2_first": N_("Round 2: talk it over with your neighbour, then give your answer. You did not answer in "
                        "round 1, so this is your first answer to this question."),
    "round_1_was": N_("In round 1 you answered: {answer}"),
    "held": N_("Your answer is in: **{answer}**"),  # ended by end_sentence: an answer may end with its own full stop
    "held_then": N_("The answer is shown when your teacher reveals it."),
    "missed": N_("This round is closed. The answer is shown when your teacher reveals it."),
    "place_all": N_("Place every item first: {placed} of {total} placed."),
    "blank": N_("Give an answer first."),
    "submit": N_("Submit"),
    "revealed_none": N_("You did not answer this one. {answer}"),
    "your_answers": N_("Your answers: {answers}"),
    "round_answer": N_("round {round}: {answer} {mark}"),
}
SAID_KEY = "paced_student_said"  # session key: what a Submit's callback left for the question area (view.show_kept)


def student_paced(store: PacedStore, student: Student) -> None:
    """The header and the live question area (the way out is `view.leave_control`, drawn below)."""
    session = store.session(student.code)
    st.markdown(_(TEXT["header"], title=escape_markdown(shown_title(session.title)),
                  name=escape_markdown(student.name), code=session.code))
    live_fragment(current_question, run_every=None if session.closed else POLL_SECONDS)(store, student)


@view.one_sentence
def current_question(store: PacedStore, student: Student) -> None:
    session = store.session(student.code)
    push = store.current(student.code)
    if session.closed:  # said first, whatever the last question's state: the student stops waiting
        st.success(_(TEXT["ended"]), icon=":material/flag:")
    if push is None:
        if not session.closed:
            st.info(_(TEXT["waiting"]), icon=":material/hourglass_top:")
        return
    st.markdown(_(TEXT["question"], number=push.number, round=push.round))
    shown = push.shown()  # a bank question in this student's language, choices at the same positions
    st.markdown(shown.prompt)
    mine = {r: (answer_between(a, push.question, shown), ok)  # stored in the pushed question's words
            for r, (a, ok) in store.my_answers(student.token, push.id).items()}
    if push.revealed:
        _revealed(shown, mine, push.round)
    elif session.closed:
        pass  # said above
    elif push.round in mine:
        held = mine[push.round][0]
        said = end_sentence(_(TEXT["held"], answer=_echo(shown, held)), shown_answer(held))
        st.info(said + " " + _(TEXT["held_then"]),
                icon=":material/how_to_vote:")
    elif not push.open:
        st.info(_(TEXT["missed"]))
    else:
        if push.round == 2:
            st.warning(_(TEXT["round_2" if 1 in mine else "round_2_first"]), icon=":material/forum:")
            if 1 in mine:
                st.caption(_(TEXT["round_1_was"], answer=_echo(shown, mine[1][0])))
        _ask(store, student, push, shown)
    view.show_kept(SAID_KEY)  # under the Submit button when there is one, else here (the round closed meanwhile)


def _ask(store: PacedStore, student: Student, push: Push, question: Question) -> None:
    """`question` is the pushed one as this student reads it; the answer goes back in the pushed question's words."""
    key = f"paced_{push.id}_{push.round}"
    seed = push.id  # one order for the whole class (classroom_paced.display_order), as on the teacher's chart
    items = question.options(seed) if question.kind == QuestionKind.ORDERING else None
    if items is not None:
        view.order_widget(items, key)
    else:
        quiz_view.answer_widget(question, seed, key)
    st.button(_(TEXT["submit"]), key=f"{key}_submit", type="primary", width="stretch", on_click=_submit,
              args=(store, student.token, push, question, key))
    view.show_kept(SAID_KEY)


def _submit(store: PacedStore, token: str, push: Push, question: Question, key: str) -> None:
    """Submit's callback: the answer read from the widgets' session values and stored before the question area draws
    again. The area refreshes itself every POLL_SECONDS, and on a busy server a refresh can stop the run that carried
    a click before the script body reaches the button (the teacher's round buttons lost clicks that way in the loaded
    test runs of 2026-12-04); a callback runs before any body. What it has to say waits in SAID_KEY."""
    view.speak_session()
    seed = push.id
    if question.kind == QuestionKind.ORDERING:
        items = question.options(seed)
        answer: Any = view.order_in_state(items, key)
        if len(answer) < len(items):
            view.keep_for_panel(SAID_KEY, _(TEXT["place_all"], placed=len(answer), total=len(items)), "warning")
            return
    else:
        answer = quiz_view.answer_in_state(question, seed, key)
    if quiz_view.is_blank(answer):
        view.keep_for_panel(SAID_KEY, _(TEXT["blank"]), "warning")
        return
    try:
        store.answer(token, push.id, push.round, answer_between(answer, question, push.question), get_language())
    except ClassroomError as exc:  # the round closed or the teacher moved on meanwhile: one sentence
        view.keep_for_panel(SAID_KEY, str(exc))


def _echo(question: Question, answer: Any) -> str:
    """A student's stored answer as a markdown body reads it back, escaped exactly once: a pick among the choices (or
    an ordering's items) is the question's own markdown, shown as the answer widget showed it (a live label's token
    text was escaped when the question was made, and escaping it again showed a backslash: read 32); anything else
    (a number, a stored answer that is no choice) is escaped here. Picks are joined as `shown_answer` joins them, an
    ordering's items with " → ", as the spread chart, the JSON export and the right order join them (read 54: a
    held order read "A | B | C" beside a chart of "A → B → C")."""
    labels = set(question.choices) | (set(question.answer) if isinstance(question.answer, tuple) else set())
    parts = list(answer) if isinstance(answer, list | tuple) else [answer]
    separator = ORDER_SEP if question.kind == QuestionKind.ORDERING else " | "
    return separator.join(part if isinstance(part, str) and part in labels else escape_markdown(shown_answer(part))
                      for part in parts)


def _revealed(question: Question, mine: dict[int, tuple[Any, bool]], shown_round: int) -> None:
    """The feedback on the student's last answer, with their answers round by round where there were two, or where
    the one graded is not of the round on screen (read 50: "Question 1 · round 2" over "Correct." to a student whose
    only answer was in round 1)."""
    if mine:
        last = mine[max(mine)][0]
        quiz_view.feedback(question, grade(question, last))
        if len(mine) > 1 or max(mine) != shown_round:
            shown = "; ".join(_(TEXT["round_answer"], round=r, answer=_echo(question, a),
                                mark="✓" if ok else "✗") for r, (a, ok) in sorted(mine.items()))
            st.caption(_(TEXT["your_answers"], answers=shown))
        return
    st.info(_(TEXT["revealed_none"], answer=answer_sentence(question)))
    st.info(question.explanation)
    quiz_view.page_link(question.link)
