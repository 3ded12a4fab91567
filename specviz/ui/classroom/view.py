"""Classroom mode, the student's side: the classroom database, the join form, and the quiz one question at a time.
Data and rules live in specviz.teach.classroom; the teacher's side is `specviz.ui.classroom.teacher`.

Everything a student typed is shown either as data (st.dataframe) or through specviz.ui.common.escaping; raw student
text never reaches unsafe_allow_html. The server-side limits (joins here, PINs on the teacher's side) are one
object per server process, shared by every browser session, and know a client by `client_key`.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any, ParamSpec

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from specviz.teach.quiz.schema import QuestionKind
from specviz.teach.classroom import (NAME_MAX, NOT_A_STUDENT_LINK, ClassroomError, ClassroomStore, RateLimit, Student,
                                     answer_between, clean_name, client_id, default_db_path, in_language, shown_title)
from specviz.core.i18n import _, get_language, ngettext
from specviz.core.text import typed
from specviz.teach.classroom_paced import PacedStore
from specviz.teach.quiz import Question, grade
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.common.frame import guarded, speak_visitors_language
from specviz.ui.common.quiz import view as quiz_view

LAST_ANSWER = "classroom_last"  # (student token, question id) of the answer whose feedback is on screen


@st.cache_resource(show_spinner=False)
def _store(path: str) -> PacedStore:
    return PacedStore(path)


def open_store() -> PacedStore | None:
    """The classroom database (SPECVIZ_CLASSROOM_DB or the default), or None after one st.error sentence."""
    try:
        return _store(str(default_db_path()))
    except ClassroomError as exc:
        st.error(str(exc))
        return None


P = ParamSpec("P")


def one_sentence(render: Callable[P, None]) -> Callable[P, None]:
    """`render` under the page frame's guard (specviz.ui.common.frame.guarded), with a ClassroomError (a busy or read-only
    database, a refused input) shown as its own sentence: any other error is the one neutral PANEL_FAILED, so a live
    panel never shows an exception box and the rest of the page stays as it is."""
    return guarded(render, said=(ClassroomError,))


def keep_for_panel(key: str, sentence: str, kind: str = "error") -> None:
    """A button callback's sentence ("success", "warning" or "error"), kept under session key `key` for its panel to
    show when it draws next: a callback runs before any script body and cannot place an element itself."""
    st.session_state[key] = (kind, sentence)


def show_kept(key: str) -> None:
    """The sentence a callback kept under `key` (`keep_for_panel`), shown once, here."""
    if kept := st.session_state.pop(key, None):
        kind, sentence = kept
        {"success": st.success, "warning": st.warning}.get(kind, st.error)(sentence)


def speak_session() -> None:
    """The session's language for a fragment's rerun (specviz.ui.common.frame.speak_visitors_language)."""
    speak_visitors_language()


def session_key() -> str:
    """This browser session, as a key for the server's counters (the PIN guard counts browsers as well as devices)."""
    ctx = get_script_run_ctx()
    return f"session:{ctx.session_id if ctx is not None else 'no session'}"[:100]


def client_key() -> str:
    """This browser's device as the server sees it (see specviz.teach.classroom.client_id): its address, a local proxy's
    forwarded address when the operator trusts it ($SPECVIZ_TRUST_PROXY_HEADERS), or, when neither is known, this
    browser session."""
    ctx = get_script_run_ctx()
    try:
        ip, headers = st.context.ip_address, st.context.headers
    except Exception:  # noqa: BLE001 - no client (bare mode, tests): fall back to the session
        ip, headers = None, {}
    return client_id(ip, headers, ctx.session_id if ctx is not None else "no session")


@st.cache_resource(show_spinner=False)
def join_limit() -> RateLimit:
    """Joins per client per minute, for every browser session of this server process."""
    return RateLimit()


# ---- students --------------------------------------------------------------------------------------------------
JOINED = "classroom_joined"  # session key: the token of the student this browser session joined as
ROLE_PARAM, TEACHER_ROLE = "as", "teacher"  # ?as=teacher: the teacher's side (`teacher.role_from_url`)


def current_student(store: ClassroomStore) -> Student | None:
    """The student whose token is in the URL (?student=...), if it is still valid; without one, the student this
    browser session joined as, put back into the URL. A page link (the feedback's "See it on the ... page", the
    sidebar) drops the URL's parameters: read 54, a student who followed one and came back found the join form, and
    their name taken, in a real browser. A join link (?code=...) opens the join form as before, and a teacher's link
    (?as=teacher) the teacher's side (read 54: a teacher who had tried the student view in the same browser session
    got that student's view from their own dashboard's link)."""
    token = st.query_params.get("student")
    if not token and not (st.query_params.get("code") or st.query_params.get("join")
                          or st.query_params.get(ROLE_PARAM) == TEACHER_ROLE):
        token = st.session_state.get(JOINED)
        if token:
            st.query_params["student"] = token
    if not token:
        return None
    student = store.student(token)
    if student is None:
        st.warning(_(NOT_A_STUDENT_LINK))
        del st.query_params["student"]
        st.session_state.pop(JOINED, None)
        return None
    st.session_state[JOINED] = token
    return student


CODE_FIELD_CHARS = 12  # the join-code field: 6 characters and room for the spaces and dashes a student may type


def join_form(store: ClassroomStore) -> None:
    """Join code + display name; on success the student's token goes into the URL, so a refresh keeps them in. Enter
    in either field presses Join (accessibility.LANDINGS counts on it); an Enter in the code field before the name
    is typed is told to give the name and is not counted as a try against the join limit (read 48: ten such Enters
    locked the phone out for a minute)."""
    with st.form("classroom_join"):
        given = st.query_params.get("code") or st.query_params.get("join", "")  # ?code=... from the QR code
        if len(given) > CODE_FIELD_CHARS:  # read 52: the field cut it to 12 characters without a word
            st.warning(escape_markdown(_("The link's join code ({code}) is longer than a join code can be, so it was "
                                         "left out: type the code from your teacher's screen.",
                                         code=typed(given))))
            given = ""
        code = st.text_input(_("Join code (from your teacher's screen)"), value=given, max_chars=CODE_FIELD_CHARS,
                             key="classroom_code")
        name = st.text_input(_("Your display name"), max_chars=NAME_MAX, key="classroom_name")
        joined = st.form_submit_button(_("Join"), type="primary", key="classroom_join_submit")  # see LANDINGS
    if not joined:
        return
    try:
        if not isinstance(name, str) or not name.strip():  # nothing asked of the database: not a try
            clean_name(name)  # the one sentence: "Please enter a display name."
        join_limit().hit(client_key())
        student = store.join(code, name)
    except ClassroomError as exc:  # it may quote the typed name ("already called ..."): shown literally
        st.error(escape_markdown(str(exc)))
        return
    st.query_params["student"] = student.token
    st.query_params.pop("join", None)
    st.query_params.pop("code", None)
    st.rerun()


def student_quiz(store: ClassroomStore, student: Student) -> None:
    """The student's next unanswered question, or the feedback on the one just answered, or the final score; a
    bank question in the student's language (`in_language`), whatever language the session was opened in."""
    session = store.session(student.code)
    answers = store.answers(student.token)
    order = store.question_order(session, student)
    st.markdown(_("**{title}** · you are **{name}** · session `{code}`",
                  title=escape_markdown(shown_title(session.title)), name=escape_markdown(student.name),
                  code=session.code))
    st.progress(len(answers) / len(order), text=_("{answered} of {total} answered", answered=len(answers),
                                                  total=len(order)))
    just = st.session_state.get(LAST_ANSWER)
    if just and just[0] == student.token and just[1] in answers:
        _show_last(order, just[1], answers[just[1]][0], last=len(answers) >= len(order))
    elif (question := store.next_question(session, student)) is None or session.closed:
        right = sum(ok for _given, ok in answers.values())
        # read 49: "You got 0 of 4 right" to a student who answered nothing, as if all four were wrong
        if session.closed and not answers:
            done = ngettext("This session has ended before you answered its question.",
                            "This session has ended before you answered any of its {n} questions.", len(order))
        elif session.closed and len(answers) < len(order):  # read 50: "You got 0 of 4 right" after 1 answer
            done = ngettext("This session has ended. You got {right} of {total} right; {n} was not answered.",
                            "This session has ended. You got {right} of {total} right; {n} were not answered.",
                            len(order) - len(answers), right=right, total=len(order))
        elif session.closed:
            done = _("This session has ended. You got {right} of {total} right.", right=right, total=len(order))
        else:
            done = _("All done! You got {right} of {total} right.", right=right, total=len(order))
        st.success(done)
    else:
        _ask(store, student, question, len(answers) + 1, len(order))


CONFIRM_LEAVE = "classroom_confirm_leave"  # session key: the token of the student whose Leave asks for a yes


def leave_control(student: Student) -> None:
    """"Not you? Leave this session", which asks first. Drawn below the student's view (`pages/classroom.py`), not
    in it: Join lands the keyboard on the first control in that view (accessibility.LANDINGS), and before a
    teacher-paced session's first push that was this button, so a second Enter left the session at once (read 48);
    the student's name stays taken there, so leaving by mistake cost them their name."""
    if st.button(_("Not you? Leave this session"), key="classroom_leave", type="tertiary"):
        st.session_state[CONFIRM_LEAVE] = student.token
    if st.session_state.get(CONFIRM_LEAVE) != student.token:
        return
    with st.container(border=True):
        st.warning(_("Leave session {code}? This browser forgets that you are {name}, and the name {name} stays "
                     "taken in this session.", code=student.code, name=escape_markdown(student.name)))
        yes, no = st.columns(2)
        if yes.button(_("Yes, leave"), key="classroom_leave_confirm"):
            st.session_state.pop(CONFIRM_LEAVE, None)
            st.session_state.pop(JOINED, None)
            del st.query_params["student"]
            st.rerun()
        if no.button(_("Stay"), key="classroom_leave_cancel", type="primary"):
            st.session_state.pop(CONFIRM_LEAVE, None)
            st.rerun()


def _ask(store: ClassroomStore, student: Student, question: Question, number: int, total: int) -> None:
    shown = in_language(question)  # the same choices at the same positions, so the same order for the same seed
    st.markdown(_("**Question {number} of {total}**", number=number, total=total))
    st.markdown(shown.prompt)
    seed = zlib.crc32(student.token.encode())
    key = f"classroom_{question.id}"
    if shown.kind == QuestionKind.ORDERING:  # tap to place: full-width, wrapping buttons work on a phone; a dropdown did not
        items = shown.options(seed)
        answer = order_widget(items, key)
    else:
        answer = quiz_view.answer_widget(shown, seed, key)
    if not st.button(_("Submit"), key="classroom_submit", type="primary"):
        return
    if shown.kind == QuestionKind.ORDERING and len(answer) < len(items):
        st.warning(_("Place every item first: {placed} of {total} placed.", placed=len(answer), total=len(items)))
        return
    if quiz_view.is_blank(answer):
        st.warning(_("Give an answer first."))
        return
    try:
        store.record_answer(student.token, question.id, answer_between(answer, shown, question), get_language())
    except ClassroomError as exc:
        st.error(str(exc))
        return
    st.session_state[LAST_ANSWER] = (student.token, question.id)
    st.rerun()


def order_widget(items: list[str], key: str) -> list[str]:
    """An ordering answer by tapping: each item is a full-width button that wraps its whole text; tapping one puts it
    next in the order, tapping a placed one takes it back. Returns the items placed so far, in order (the session
    key `key` holds their indexes into `items`)."""
    placed = _placed(len(items), key)
    st.session_state[key] = placed
    st.caption(_("Tap the items in order, first to last. Tap a placed item to take it back."))
    if placed:
        st.markdown(_("**Your order**"))
        for n, i in enumerate(placed, start=1):
            st.button(f"**{n}.** {items[i]}", key=f"{key}_placed_{i}", on_click=_unplace, args=(key, i),
                      width="stretch", icon=":material/undo:", wrap=True)
    left = [i for i in range(len(items)) if i not in placed]
    if left:
        st.markdown(_("**Still to place**") if placed else _("**Items**"))
        for i in left:
            st.button(items[i], key=f"{key}_item_{i}", on_click=_place, args=(key, i), width="stretch",
                      icon=":material/add:", wrap=True)
    return [items[i] for i in placed]


def order_in_state(items: list[str], key: str) -> list[str]:
    """What `order_widget(items, key)` returns, read from the session: for a button's callback."""
    return [items[i] for i in _placed(len(items), key)]


def _placed(count: int, key: str) -> list[int]:
    return [i for i in st.session_state.get(key, []) if isinstance(i, int) and 0 <= i < count]


def _place(key: str, index: int) -> None:
    st.session_state[key] = [*st.session_state.get(key, []), index]


def _unplace(key: str, index: int) -> None:
    st.session_state[key] = [i for i in st.session_state.get(key, []) if i != index]


def _show_last(order: list[Question], question_id: str, answer: Any, last: bool = False) -> None:
    """The feedback on the answer just given; its button leads on to the next question, or, after the `last` one,
    to the score (no "Next question" when there is none)."""
    question = next(q for q in order if q.id == question_id)
    shown = in_language(question)
    st.markdown(shown.prompt)
    quiz_view.feedback(shown, grade(shown, answer_between(answer, question, shown)))
    if st.button(_("See my score") if last else _("Next question"), key="classroom_next", type="primary"):
        del st.session_state[LAST_ANSWER]
        st.rerun()
