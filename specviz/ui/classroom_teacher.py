"""Classroom mode, the teacher's side: the PIN gate, opening a session, the live dashboard and the presenter view.
Data and rules live in specviz.classroom; the student's side is `specviz.ui.classroom_view`.

Wrong PINs are counted by one `PinGuard` per server process, per device (`classroom_view.client_key`) and overall,
so a reload or a new browser does not reset them; restarting the app does. Student names reach the screen as data
(st.dataframe) or through specviz.ui.escaping, never raw.
"""

from __future__ import annotations

import hashlib
import os
import time

import plotly.graph_objects as go
import streamlit as st

from specviz.classroom import (MIN_PIN_LENGTH, PIN_ENV, ClassroomError, ClassroomStore, PinGuard, QuestionStat,
                               Session, teacher_pin)
from specviz.quiz import QuizRun
from specviz.ui import classroom_view as view
from specviz.ui import quiz_setup
from specviz.ui.escaping import escape_text


@st.cache_resource(show_spinner=False)
def pin_guard() -> PinGuard:
    """Wrong PINs for every browser session of this server process."""
    return PinGuard()


def configured_pin() -> str | None:
    """SPECVIZ_TEACHER_PIN from the environment, else from st.secrets (missing secrets are not an error);
    ClassroomError when it is too short."""
    try:
        secrets = {PIN_ENV: st.secrets.get(PIN_ENV)} if PIN_ENV in st.secrets else {}
    except Exception:  # noqa: BLE001 - no or unreadable secrets.toml simply means no PIN from there
        secrets = {}
    return teacher_pin(os.environ, secrets)


def _fingerprint(pin: str) -> str:
    return hashlib.sha256(pin.encode()).hexdigest()


def is_teacher() -> bool:
    """Whether this browser session was unlocked with the PIN that is configured now (draws nothing)."""
    try:
        pin = configured_pin()
    except ClassroomError:
        return False
    return pin is not None and st.session_state.get("classroom_teacher") == _fingerprint(pin)


def teacher_unlocked() -> bool:
    """Show the PIN gate until the right PIN is given; True once this browser session is unlocked."""
    try:
        pin = configured_pin()
    except ClassroomError as exc:
        st.warning(str(exc))
        return False
    if pin is None:
        st.warning(f"Teacher mode is locked because no teacher PIN is set. Set the environment variable {PIN_ENV} "
                   f"(at least {MIN_PIN_LENGTH} characters) before starting the app (or add {PIN_ENV} = \"...\" to "
                   ".streamlit/secrets.toml), then reload.")
        return False
    if is_teacher():
        return True
    with st.form("classroom_pin_form"):
        given = st.text_input("Teacher PIN", type="password", key="classroom_pin")
        unlock = st.form_submit_button("Unlock")
    if not unlock:
        return False
    try:
        right = pin_guard().attempt(view.client_key(), given, pin)
    except ClassroomError as exc:  # this device, or the whole server, is waiting out too many wrong PINs
        st.error(str(exc))
        return False
    if right:
        st.session_state["classroom_teacher"] = _fingerprint(pin)
        st.rerun()
    st.error("That PIN is not right.")
    return False


def new_session_form(store: ClassroomStore) -> None:
    """Pick questions (bank, a teacher's file, concepts, how many) and open a session with a fresh join code."""
    bank = quiz_setup.with_upload(quiz_setup.default_bank(), "classroom_upload")
    title = st.text_input("Title (shown to students)", max_chars=80, key="classroom_title")
    concepts = st.multiselect("Concepts (none picked = all)", bank.used_concepts(), format_func=bank.label,
                              key="classroom_concepts")
    available = len(bank.select(concepts))
    count = st.slider("Questions", 1, max(available, 2), min(10, available), key="classroom_count")
    if st.button("Start the session", key="classroom_start", type="primary"):
        questions = QuizRun.start(bank.select(concepts), int(time.time()), min(count, available)).questions
        try:
            session = store.create_session(questions, title)
        except ClassroomError as exc:
            st.error(str(exc))
            return
        st.session_state["classroom_session"] = session.code
        st.rerun()


def pick_session(store: ClassroomStore) -> Session | None:
    sessions = store.open_sessions()
    if not sessions:
        st.info("No session is open. Start one above.")
        return None
    titles = {code: title for code, title, _ in sessions}
    if st.session_state.get("classroom_session") not in titles:
        st.session_state["classroom_session"] = sessions[0][0]
    code = st.selectbox("Session", list(titles), format_func=lambda c: f"{c} · {titles[c]}", key="classroom_session")
    return store.session(code)


@view.one_sentence
def dashboard(store: ClassroomStore, session: Session) -> None:
    """Join code, counts, questions by failure rate, per-student progress, CSV export."""
    st.markdown(f"Students join on the **Classroom** page with the code **`{session.code}`**.")
    stats, progress = store.question_stats(session), store.progress(session)
    answers = sum(p.answered for p in progress)
    left, middle, right = st.columns(3)
    left.metric("Students", len(progress))
    middle.metric("Answers", answers)
    right.metric("Right", f"{100 * sum(p.correct for p in progress) / answers:.0f}%" if answers else "–")
    st.subheader("Questions, most missed first")
    st.plotly_chart(failure_chart(stats), key="classroom_fail_chart")
    st.dataframe([{"question": q.question.prompt[:90], "concept": q.question.concept, "answered": q.answered,
                   "missed": None if q.failure_rate is None else f"{100 * q.failure_rate:.0f}%"} for q in stats],
                 hide_index=True, key="classroom_q_table")
    st.subheader("Students")
    st.dataframe([{"name": p.name, "answered": f"{p.answered}/{p.total}", "right": p.correct,
                   "last answer": time.strftime("%H:%M:%S", time.localtime(p.last_answer_at))
                   if p.last_answer_at else ""} for p in progress], hide_index=True, key="classroom_s_table")
    st.download_button("Download all answers (CSV)", store.export_csv(session), f"classroom-{session.code}.csv",
                       "text/csv", key="classroom_csv", on_click="ignore")


def failure_chart(stats: list[QuestionStat], font_size: int = 13) -> go.Figure:
    """Share of wrong answers per answered question, worst at the top."""
    shown = [s for s in stats if s.answered]
    fig = go.Figure(go.Bar(
        x=[100 * s.failure_rate for s in shown], y=[s.question.id for s in shown], orientation="h",
        text=[f"{s.answered - s.correct}/{s.answered} missed" for s in shown], textposition="auto",
        marker_color="#c62828", hovertext=[s.question.prompt[:120] for s in shown]))
    fig.update_layout(xaxis={"range": [0, 100], "title": "% missed"}, yaxis={"autorange": "reversed"},
                      height=90 + (font_size + 20) * max(len(shown), 1), font={"size": font_size},
                      margin={"l": 10, "r": 10, "t": 10, "b": 10})
    return fig


_PRESENTER_CSS = """<style>
[data-testid="stSidebar"], [data-testid="stHeader"], [data-testid="stToolbar"] {display: none;}
.specviz-big {font-size: 4.5rem; font-weight: 700; letter-spacing: 0.3em; text-align: center;}
.specviz-large {font-size: 2rem; text-align: center;}
</style>"""


@view.one_sentence
def presenter(store: ClassroomStore, session: Session) -> None:
    """For the projector: the join code, who is in, and how each question went, in large type; no controls."""
    progress = store.progress(session)
    names = ", ".join(escape_text(p.name, whitespace=False) for p in progress) or "nobody yet"
    st.markdown(_PRESENTER_CSS, unsafe_allow_html=True)
    st.markdown(f'<div class="specviz-large">Join on the Classroom page with the code</div>'
                f'<div class="specviz-big">{escape_text(session.code, whitespace=False)}</div>'
                f'<div class="specviz-large">{len(progress)} joined: {names}</div>', unsafe_allow_html=True)
    st.plotly_chart(failure_chart(store.question_stats(session), font_size=24), key="classroom_presenter_chart")
