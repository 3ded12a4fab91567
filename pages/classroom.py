"""Classroom: students join a teacher's session with a code and take the quiz; the teacher watches live."""

import streamlit as st

from specviz.classroom import ClassroomError
from specviz.ui import classroom_teacher as teacher
from specviz.ui import classroom_view as view
from specviz.ui.frame import route_through_app

route_through_app()

store = view.open_store()
if store is None:
    st.stop()

try:  # a busy or read-only database (or any refused input) is one sentence, never a traceback
    student = view.current_student(store)
    if student is not None:
        st.title("Classroom")
        view.student_quiz(store, student)
        st.stop()

    if st.session_state.get("classroom_presenting") and teacher.is_teacher():
        session = store.session(st.session_state.get("classroom_session", ""))
        if session is not None:
            st.fragment(teacher.presenter, run_every=5)(store, session)
            if st.button("Exit presenter view", key="classroom_exit_presenter", type="tertiary"):
                st.session_state["classroom_presenting"] = False
                st.rerun()
            st.stop()

    st.title("Classroom")
    role = st.radio("I am", ["a student", "the teacher"], horizontal=True, key="classroom_role")
    if role == "a student":
        view.join_form(store)
    elif teacher.teacher_unlocked():
        with st.expander("Start a new session", expanded=not store.open_sessions()):
            teacher.new_session_form(store)
        session = teacher.pick_session(store)
        if session is not None:
            live = st.toggle("Refresh every 5 seconds", value=True, key="classroom_live")
            st.fragment(teacher.dashboard, run_every=5 if live else None)(store, session)
            presenter_col, end_col = st.columns(2)
            if presenter_col.button("Presenter view (for the projector)", key="classroom_present"):
                st.session_state["classroom_presenting"] = True
                st.rerun()
            if end_col.button(f"End session {session.code}", key="classroom_end"):
                store.close_session(session.code)
                st.rerun()
except ClassroomError as exc:
    st.error(str(exc))
