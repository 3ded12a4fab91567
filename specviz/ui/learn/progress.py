"""Where the learner stands on the guided path: read from the URL once per session (`?lesson=4&done=1,2&tried=3`, parsed
by `specviz.teach.learn.parse_progress`), kept in `specviz.ui.common.state` (the Quiz reads it), moved by the page's buttons and
written back into the address bar on every run, so a reload or a shared link comes back to the same place."""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitAPIException

from specviz.teach.learn import TICKET, Progress, parse_progress
from specviz.ui.common import state
from specviz.ui.common.accessibility import land_on_title


def current() -> Progress:
    """The session's progress; on a session's first run, the URL's (a bad URL leaves one sentence for `problem`)."""
    progress = state.learn_progress()
    if progress is None:
        params = {key: st.query_params[key] for key in st.query_params}
        progress, problem = parse_progress(params)
        st.session_state["learn_problem"] = params if problem else None  # the sentence is made when shown
        state.set_learn_progress(progress)
    return progress


def problem() -> str | None:
    """The sentence about a bad URL (in the language of this run), until the learner moves."""
    params = st.session_state.get("learn_problem")
    return parse_progress(params)[1] if params else None


def go(lesson: int | str) -> None:
    """Callback of the navigation buttons: move (moving marks nothing; a lesson is mastered by its checks)."""
    state.set_learn_progress(current().go(lesson))
    st.session_state.pop("learn_problem", None)
    st.session_state["learn_moves"] = st.session_state.get("learn_moves", 0) + 1
    st.session_state["learn_scroll"] = True


def checked(lesson: int, all_right: bool, missed: bool = True) -> None:
    """After a check of `lesson` was graded: mastered when all its checks are right, else attempted (a lesson
    mastered already stays so while none of this session's answers to it is wrong: `Progress.checked`)."""
    state.set_learn_progress(current().checked(lesson, all_right, missed))


def jump() -> None:
    """Callback of the row of lesson numbers (widget key `learn_jump`)."""
    choice = st.session_state.get("learn_jump")
    if choice is not None:
        go(TICKET if choice == TICKET else int(choice))


def land_after_a_move(heading: str) -> None:
    """After a move: the page's top on screen and the focus on the new lesson's heading (its anchor `heading`)."""
    if st.session_state.pop("learn_scroll", False):
        land_on_title(st.session_state.get("learn_moves", 0), heading)


def write_url(progress: Progress) -> None:
    """Put the progress in the address bar, touching only its own parameters (others, such as a language, stay)."""
    wanted = progress.to_params()
    for key in ("lesson", "done", "tried"):
        if key in wanted and st.query_params.get(key) != wanted[key]:
            st.query_params[key] = wanted[key]
        elif key not in wanted and key in st.query_params:
            del st.query_params[key]


def link(page: str, label: str, icon: str | None = None, query: dict[str, str] | None = None) -> None:
    """A link to an app page (a caption when the page runs on its own, outside the app's router)."""
    try:
        st.page_link(page, label=label, icon=icon, query_params=query)
    except StreamlitAPIException:
        st.caption(label)
