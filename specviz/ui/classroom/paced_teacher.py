"""Classroom, teacher-paced, the teacher's side: find a question and push it, watch the answers come in (a count,
a timer, round 1 next to round 2), open round 2, reveal; mastery per concept and the exports.

Only drawn behind the teacher's PIN (pages/classroom.py), and every move checks
`specviz.ui.classroom.teacher.is_teacher()` again before it writes, so a stale page cannot push. The live part is a
live fragment (pages/classroom.py) that reruns every REFRESH_SECONDS. Question texts are quiz-file Markdown; student
names never appear here except as data.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import streamlit as st

from specviz.core.i18n import N_, _, get_language, percent_of
from specviz.teach.classroom import ClassroomError, Session, concept_name, in_language
from specviz.teach.classroom.inputs import _duration
from specviz.teach.classroom_paced import POLL_SECONDS, PacedStore, Push, search_questions
from specviz.teach.quiz.grading import answer_sentence
from specviz.ui.classroom import teacher
from specviz.ui.classroom import view
from specviz.ui.classroom.chart import chart_name, distribution_figure
from specviz.ui.common.charts import show
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.common.quiz import view as quiz_view

REFRESH_SECONDS = 2
ACTIVE = "classroom_paced_active"  # session key: the open teacher-paced session of this browser (for the Playground)

# English messages, shown with `_()` (specviz.core.i18n)
TEXT = {
    "search": N_("Find a question"),
    "search_hint": N_("a word from the question or its concept, e.g. residual"),
    "none_found": N_("No question in this session matches “{text}”."),
    "pick": N_("Question to push ({n} found)"),
    "push": N_("Push to the class"),
    # not "within a couple of seconds", a time nothing measures (docs/classroom.md; read 46 fixed the plans): when
    # a phone checks, and that a live model run on the server makes it later (read 48)
    "nothing_yet": N_("Nothing pushed yet. Pick a question above and push it: every student's screen shows it at "
                      "its next check for a push (each checks every {interval}), later while a live model run keeps "
                      "the server busy."),
    "nothing_pushed": N_("Nothing was pushed in this session, so it has no answers to show or export."),
    "question": N_("**Question {number}** · {concept}"),
    "answered": N_("Answered"),
    "answered_of": N_("{answered} of {students}"),
    "round": N_("Round"),
    "round_n": N_("round {n}"),
    "who": N_("Who has answered ({answered} of {students} in this round)"),
    "time": N_("Time"),
    "round_2": N_("Start round 2 (after the discussion)"),
    "reveal": N_("Reveal the answer"),
    "for_you": N_("The right answer (only on this screen)"),
    "mastery": N_("Mastery per concept"),
    "csv": N_("Download both rounds (CSV)"),
    "json": N_("Download the session (JSON)"),
    "not_teacher": N_("Only the teacher can do that; please unlock the teacher view with the PIN."),
    "pushed_from": N_("Questions pushed from the Playground's “Ask the class” appear here too."),
}


def _refusal(move: Callable[..., Any], *args: Any) -> str | None:
    """Run a teacher's move if this browser session still holds the PIN; the one sentence that refused it, if any."""
    if not teacher.is_teacher():
        return _(TEXT["not_teacher"])
    try:
        move(*args)
    except ClassroomError as exc:
        return str(exc)
    return None


def _act(move: Callable[..., Any], *args: Any) -> bool:
    """`_refusal`, its sentence shown where the move was asked for; whether the move ran."""
    view.speak_session()  # a callback may run in a fresh script thread: its sentence in the teacher's language
    said = _refusal(move, *args)
    if said:
        st.error(said)
    return said is None


REFUSED_KEY = "paced_refused"  # session key: a round button's refused move, left for the panel (view.show_kept)


def _act_on_click(move: Callable[..., Any], *args: Any) -> None:
    """A round button's callback (Start round 2, Reveal): `_act` before the panel draws again. The panel refreshes
    itself every few seconds, and on a busy server a refresh can stop the run that carried the click before the
    script body reaches the button, so a move checked in the body was lost (the loaded test runs of 2026-12-04: the
    phones never saw round 2, or the answer revealed). A callback runs before any body; a refusal is kept for the
    panel to say, in the teacher's language (a callback may run in a fresh script thread: read 47)."""
    view.speak_session()
    said = _refusal(move, *args)
    if said:
        view.keep_for_panel(REFUSED_KEY, said)


def _choice_label(question: Any) -> str:
    prompt = " ".join(question.prompt.split())
    return f"{concept_name(question.concept)} · {prompt[:110]}{'…' if len(prompt) > 110 else ''}"  # plain text


def push_picker(store: PacedStore, session: Session) -> None:
    """Search the session's questions, preview one, push it."""
    text = st.text_input(_(TEXT["search"]), key="paced_search", placeholder=_(TEXT["search_hint"]), max_chars=80)
    found = search_questions([in_language(q) for q in session.questions], text)  # in the teacher's language
    if not found:
        st.info(_(TEXT["none_found"], text=escape_markdown(text)))
        return
    by_id = {q.id: q for q in found}
    picked = st.selectbox(_(TEXT["pick"], n=len(found)), list(by_id), key="paced_pick",
                          format_func=lambda i: _choice_label(by_id[i]))
    question = next(q for q in session.questions if q.id == picked)  # pushed as stored: one language per session
    if st.button(_(TEXT["push"]), key="paced_push", type="primary", icon=":material/cast:"):
        if _act(store.push, session.code, question):
            st.rerun()
    st.caption(_(TEXT["pushed_from"]))


def elapsed(push: Push, now: float | None = None, ended_at: float | None = None) -> str:
    """The current round's time as m:ss, stopped at the reveal or, for a question left unrevealed, when the session
    ended (`ended_at`: no answer is taken after it, so the round's clock stops there too).

    >>> from types import SimpleNamespace
    >>> elapsed(SimpleNamespace(round_started_at=100.0, revealed_at=None), now=175.2)
    '1:15'
    >>> elapsed(SimpleNamespace(round_started_at=100.0, revealed_at=None), now=9_999.0, ended_at=130.0)
    '0:30'
    """
    stopped = push.revealed_at if push.revealed_at is not None else ended_at
    end = stopped if stopped is not None else (time.time() if now is None else now)
    seconds = max(0, int(end - push.round_started_at))
    return f"{seconds // 60}:{seconds % 60:02d}"


@view.one_sentence
def live_panel(store: PacedStore, session: Session) -> None:
    """The current question, who has answered, the timer, the round buttons, the chart, mastery and the exports."""
    push = store.current(session.code)
    if push is None:  # an ended session has no picker to push from
        st.info(_(TEXT["nothing_pushed"]) if session.closed
                else _(TEXT["nothing_yet"], interval=_duration(POLL_SECONDS)))
        return
    question = push.shown()  # the answers are counted in the pushed question's words, any language
    st.markdown(_(TEXT["question"], number=push.number, concept=concept_name(question.concept)))
    st.markdown(question.prompt)
    answered, students = store.answered(push), len(store.students(session.code))
    count, rnd, clock = st.columns(3)
    count.metric(_(TEXT["answered"]), _(TEXT["answered_of"], answered=answered, students=students))
    rnd.metric(_(TEXT["round"]), str(push.round))
    clock.metric(_(TEXT["time"]), elapsed(push, ended_at=session.ended_at))
    if not session.closed:
        row = st.container(horizontal=True, gap="small")
        row.button(_(TEXT["round_2"]), key="paced_round_2", disabled=push.round == 2 or push.revealed,
                   icon=":material/forum:", on_click=_act_on_click, args=(store.start_round_2, session.code))
        row.button(_(TEXT["reveal"]), key="paced_reveal", disabled=push.revealed, type="primary",
                   icon=":material/visibility:", on_click=_act_on_click, args=(store.reveal, session.code))
        view.show_kept(REFUSED_KEY)
    spread = store.distribution(push, get_language())
    show(distribution_figure(spread, push.round, push.revealed), f"paced_chart_{push.id}", name=chart_name(spread))
    with st.expander(_(TEXT["who"], answered=answered, students=students)):
        done = {(rnd, name) for rnd, name, *_ in store.round_answers(push)}
        st.dataframe([{_("name"): s.name, **{_(TEXT["round_n"], n=r): "✓" if (r, s.name) in done else "–"
                                          for r in range(1, push.round + 1)}}
                      for s in store.students(session.code)], hide_index=True, key="paced_who")
    if push.revealed:
        st.success(answer_sentence(question))
        st.info(question.explanation)
        quiz_view.page_link(question.link)
    else:
        with st.expander(_(TEXT["for_you"])):
            st.markdown(answer_sentence(question))
    mastery_and_exports(store, session)


def mastery_and_exports(store: PacedStore, session: Session) -> None:
    scores = store.mastery(session.code)
    if scores:
        st.subheader(_(TEXT["mastery"]))
        st.dataframe([{_("concept"): s.name, _("questions"): s.questions,
                       # read 49: round 1 counted every push, round 2 only those with a round 2; the columns say
                       # which pushes they cover, and round 1 is given again over round 2's pushes
                       _("round 1 right, every push"): _share(s.correct[0], s.answered[0]),
                       _("round 1 right, pushes with a round 2"): _share(*s.paired),
                       _("round 2 right"): _share(s.correct[1], s.answered[1])} for s in scores],
                     hide_index=True, key="paced_mastery")
    teacher.release_form(store, session)
    teacher.unreadable_note(store, session)
    csv_col, json_col = st.columns(2)
    csv_col.download_button(_(TEXT["csv"]), store.export_csv(session), f"classroom-{session.code}.csv", "text/csv",
                            key="paced_csv", on_click="ignore")
    json_col.download_button(_(TEXT["json"]), store.export_json(session), f"classroom-{session.code}.json",
                             "application/json", key="paced_json", on_click="ignore")


def _share(correct: int, answered: int) -> str:
    return f"{correct}/{answered} ({percent_of(correct, answered)})" if answered else "–"
