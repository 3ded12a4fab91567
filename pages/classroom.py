"""Classroom: students join a teacher's session with a code and take the quiz (self-paced) or answer what the
teacher pushes (teacher-paced, peer instruction); the teacher watches live."""

import streamlit as st

from specviz.core.i18n import _
from specviz.teach.classroom import ClassroomError
from specviz.ui.classroom import paced_student
from specviz.ui.classroom import paced_teacher
from specviz.ui.classroom import presenter
from specviz.ui.classroom import teacher
from specviz.ui.classroom import view
from specviz.ui.common.frame import live_fragment, route_through_app

route_through_app()

store = view.open_store()
if store is None:
    st.stop()

try:  # a busy or read-only database (or any refused input) is one sentence, never a traceback
    student = view.current_student(store)
    if student is not None:
        st.title(_("Classroom"))
        with st.container(key="classroom_student"):  # where Join lands the keyboard (accessibility.LANDINGS)
            if store.is_paced(student.code):
                paced_student.student_paced(store, student)
            else:
                view.student_quiz(store, student)
        view.leave_control(student)  # after the view Join lands in: a second Enter must not leave (read 48)
        st.stop()

    if st.session_state.get(teacher.PRESENTING) and teacher.is_teacher():
        session = store.session(st.session_state.get("classroom_session", ""))
        if session is not None:
            paced = store.is_paced(session.code)
            show = presenter.presenter if paced else teacher.presenter
            live_fragment(teacher.follows_the_view(True, show),
                          run_every=presenter.REFRESH_SECONDS if paced else 5)(store, session)
            st.button(_("Exit presenter view"), key="classroom_exit_presenter", type="tertiary",
                      on_click=teacher.leave_presenter, args=(session.code,))
            st.stop()

    st.title(_("Classroom"))
    teacher.role_from_url()
    # persist_state="page": the switch is not drawn in the presenter view; without it, a presenter refresh that ran
    # between "Exit presenter view" and this run left the browser showing "a student" (3 of 20 round trips, CI)
    role = st.radio(_("I am"), list(teacher.ROLES), horizontal=True, key="classroom_role", format_func=_,
                    persist_state="page")
    teacher.role_to_url(role)
    if role == "a student":
        view.join_form(store)
    elif teacher.teacher_unlocked():
        with st.expander(_("Start a new session"), expanded=not store.open_sessions()):
            teacher.new_session_form(store)
        session = teacher.pick_session(store)
        if session is not None and store.is_paced(session.code):
            st.session_state[paced_teacher.ACTIVE] = None if session.closed else session.code  # for the Playground
            if not session.closed:
                paced_teacher.push_picker(store, session)
            refresh = None if session.closed else paced_teacher.REFRESH_SECONDS
            live_fragment(teacher.follows_the_view(False, paced_teacher.live_panel), run_every=refresh)(store, session)
            if not session.closed:  # an ended session takes no joins: no join address, no advice to reach it
                presenter.base_input()
            teacher.session_controls(store, session, exported=store.current(session.code) is not None)
        elif session is not None:
            if not session.closed:
                presenter.reach_warning()
            live = not session.closed and st.toggle(_("Refresh every 5 seconds"), value=True, key="classroom_live")
            dashboard = teacher.follows_the_view(False, teacher.dashboard)
            live_fragment(dashboard, run_every=5 if live else None)(store, session)
            teacher.session_controls(store, session)
except ClassroomError as exc:
    st.error(str(exc))
