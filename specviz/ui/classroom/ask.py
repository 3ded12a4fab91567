""""Ask the class" in the Playground: the teacher steps through a run on the projector and pushes a question about
the step that is coming up ("how many of these 4 drafts will the target keep?") or one of the live quiz's questions
about it, to their open teacher-paced session.

Shown only in a browser session that holds the teacher's PIN and has a teacher-paced session open on the Classroom
page (`specviz.ui.classroom.paced_teacher.ACTIVE`); a student never sees it. The questions come from
`specviz.teach.classroom_paced.ask_the_class`.
"""

from __future__ import annotations

import streamlit as st

from specviz.core.i18n import LANGUAGES, N_, _, get_language, ngettext, using
from specviz.engine.trace import Trace
from specviz.teach.classroom import ClassroomError
from specviz.teach.classroom_paced import ask_the_class
from specviz.ui.classroom import teacher
from specviz.ui.classroom import view
from specviz.ui.classroom.paced_teacher import ACTIVE
from specviz.ui.common.escaping import escape_markdown

# English messages, shown with `_()` (specviz.core.i18n)
TEXT = {
    "more": N_("Ask about this step"),
    "pick": N_("Question"),
    "push": N_("Push to session {code}"),
    "pushed": N_("Pushed to session {code}: question {number}. The Classroom page shows the answers coming in."),
}


def how_many_label(drafted: int) -> str:
    """The button that asks the class how many of a step's `drafted` drafts are kept, its noun and verb agreeing
    with the count (a step may draft one token: "of the 1 drafted", "dos 1 rascunhados" read wrong)."""
    return ngettext("Ask the class: {n} token was drafted; how many will be kept?",
                    "Ask the class: {n} tokens were drafted; how many will be kept?", drafted)


def active_session() -> str | None:
    """The code of this teacher's open teacher-paced session, or None (not a teacher, or no such session)."""
    code = st.session_state.get(ACTIVE)
    return code if code and teacher.is_teacher() else None


def ask_buttons(trace: Trace, step_index: int, key: str) -> None:
    """The "Ask the class" button for step `step_index` (the one coming up) and a popover with the step's other
    questions; nothing at all unless `active_session()`."""
    code = active_session()
    if code is None or not 0 <= step_index < len(trace.steps):
        return
    try:
        questions = ask_the_class(trace, step_index, seed=step_index)
    except ClassroomError:
        return
    if not questions:
        return
    if st.button(how_many_label(len(trace.steps[step_index].decisions)), key=f"{key}_ask",
                 icon=":material/campaign:"):
        _push(code, questions[0], trace, step_index)
    with st.popover(_(TEXT["more"]), icon=":material/quiz:"):
        labels = {q.id: q for q in questions}
        picked = st.radio(_(TEXT["pick"]), list(labels), key=f"{key}_ask_pick",
                          format_func=lambda i: labels[i].prompt)  # quiz Markdown, its tokens already quoted
        if st.button(_(TEXT["push"], code=code), key=f"{key}_ask_push", type="primary"):
            _push(code, labels[picked], trace, step_index)


def translations(question, trace: Trace, step_index: int) -> dict:  # noqa: ANN001 - a Question -> {lang: Question}
    """The same live question built in every other language (the same seed, so the same id and choices), for a
    class that mixes languages: each student reads it in their own."""
    found = {}
    for lang in LANGUAGES:
        if lang == get_language():
            continue
        with using(lang):
            built = ask_the_class(trace, step_index, seed=step_index)
        found.update({lang: q for q in built if q.id == question.id})
    return found


def _push(code: str, question, trace: Trace, step_index: int) -> None:  # noqa: ANN001 - a Question
    store = view.open_store()
    if store is None or not teacher.is_teacher():
        return
    try:
        push = store.push(code, question, translations(question, trace, step_index))
    except ClassroomError as exc:
        st.error(str(exc))
        return
    st.success(_(TEXT["pushed"], code=escape_markdown(code), number=push.number))
