"""Classroom mode, the teacher's side: the PIN gate, opening a session, the live dashboard and the presenter view.
Data and rules live in specviz.teach.classroom; the student's side is `specviz.ui.classroom.view`. Ended sessions stay
in the teacher's list with their dashboard and CSV; ending one asks first.

Wrong PINs are counted by one `PinGuard` per server process, per browser (`specviz.ui.classroom.view.session_key`),
per device (`specviz.ui.classroom.view.client_key`) and overall, so a reload does not reset a device's count, and a
browser that has not missed can still give the right PIN while others guess; restarting the app resets them. Student
names reach the screen as data (st.dataframe) or through specviz.ui.common.escaping, never raw.
"""

from __future__ import annotations

import functools
import hashlib
import os
import time
from collections.abc import Callable
from typing import ParamSpec

import streamlit as st

from specviz.teach.classroom import (MIN_PIN_LENGTH, PIN_ENV, ClassroomError, ClassroomStore, PinGuard, QuestionStat,
                               Session, concept_name, in_language, teacher_pin, utc_clock)
from specviz.core import urlvalues
from specviz.core.i18n import N_, _, ngettext, percent_of
from specviz.teach.classroom_paced import PacedStore
from specviz.teach.quiz import QuizRun
from specviz.ui.classroom import view
from specviz.ui.common.escaping import escape_markdown, escape_text
from specviz.ui.common.quiz import setup as quiz_setup

P = ParamSpec("P")

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
        st.warning(_("Teacher mode is locked because no teacher PIN is set. Set the environment variable {variable} "
                     "(at least {length} characters) before starting the app (or add {variable} = \"...\" to "
                     ".streamlit/secrets.toml), then reload.", variable=PIN_ENV, length=MIN_PIN_LENGTH))
        return False
    if is_teacher():
        return True
    with st.form("classroom_pin_form"):
        given = st.text_input(_("Teacher PIN"), type="password", key="classroom_pin")
        unlock = st.form_submit_button(_("Unlock"))
    if not unlock:
        return False
    try:
        right = pin_guard().attempt(view.client_key(), given, pin, session=view.session_key())
    except ClassroomError as exc:  # this browser is waiting out too many wrong PINs (its own, or its device's)
        st.error(str(exc))
        return False
    if right:
        st.session_state["classroom_teacher"] = _fingerprint(pin)
        st.rerun()
    st.error(_("That PIN is not right."))
    return False


# English messages (the radio's values, which tests set); shown with `_()`
PACES = (N_("Self-paced: each student answers every question in their own order, with instant feedback"),
         N_("Teacher-paced: you push one question at a time, answers are held until you reveal (peer instruction)"))
PACE_HELP = N_("Teacher-paced follows peer instruction: everyone answers the same question, you see how the answers "
               "spread, neighbours discuss, everyone votes again, then you reveal the answer and its explanation.")


def new_session_form(store: PacedStore) -> None:
    """Pick questions (bank, a teacher's file, concepts, how many) and open a session with a fresh join code."""
    bank = quiz_setup.with_upload(quiz_setup.default_bank(), "classroom_upload")
    pace = st.radio(_("How it runs"), PACES, key="classroom_pace", help=_(PACE_HELP), format_func=_)
    title = st.text_input(_("Title (shown to students)"), max_chars=80, key="classroom_title")
    concepts = st.multiselect(_("Concepts (none picked = all)"), bank.used_concepts(), format_func=bank.label,
                              key="classroom_concepts")
    available = len(bank.select(concepts))
    paced = pace == PACES[1]
    count = available if paced else quiz_setup.question_count(st, available, "classroom_count")
    if st.button(_("Start the session"), key="classroom_start", type="primary"):
        questions = (bank.select(concepts) if paced else
                     QuizRun.start(bank.select(concepts), int(time.time()), min(count, available)).questions)
        try:
            opened = store.create_paced_session if paced else store.create_session
            session = opened(questions, title)
        except ClassroomError as exc:
            st.error(str(exc))
            return
        st.session_state["classroom_session"] = session.code
        st.rerun()


ROLES = (N_("a student"), N_("the teacher"))  # the radio's values (English; tests set them), shown with `_()`
ROLE_PARAM, TEACHER_ROLE = view.ROLE_PARAM, view.TEACHER_ROLE  # ?as=teacher: a reload opens the teacher view
SESSION_PARAM = "session"  # the URL parameter that keeps the teacher's session across a reload
MAX_SHOWN_CODE = 24  # characters of an unknown ?session= value the page repeats (a join code has CODE_LENGTH)
CONFIRM_END = "classroom_confirm_end"  # session key: the code of the session whose End button asks for a yes


ROLE_IN_URL = "classroom_role_in_url"  # session key: whether the page's last run left ?as=teacher in the URL


def role_from_url() -> None:
    """Before the role radio is drawn: a reloaded teacher page (?as=teacher) opens on the teacher's side. The URL
    only picks the side; the PIN is still asked for by `teacher_unlocked` (the PinGuard keeps counting). Read 54: once
    the join page had drawn the switch ("a student"), a ?as=teacher link still showed the student side (and the
    switch took the parameter out of the URL): a ?as=teacher the page did not write itself (`role_to_url` notes what
    it wrote) now opens the teacher side, while a click on "a student" under the page's own ?as=teacher still wins."""
    asked = st.query_params.get(ROLE_PARAM) == TEACHER_ROLE
    if asked and ("classroom_role" not in st.session_state or not st.session_state.get(ROLE_IN_URL)):
        st.session_state["classroom_role"] = ROLES[1]


PRESENTING = "classroom_presenting"  # session key: the teacher's page shows the presenter view


def start_presenting() -> None:
    """The presenter button's callback. It runs in whichever run receives the click, a dashboard refresh too (the
    dashboard's fragment reruns every few seconds); the flag was once set in the script body, where a click that
    reached the server with a refresh ran no body and was lost (CI, 2026-12-04). The rerun is the whole page's,
    and it stays even though a refresh's run now notices the flag too (`follows_the_view`): without it, in 2 of 2
    stress runs under load (round trips 6 and 17), Streamlit's frontend was handed elements at a place the new page
    no longer had ("Bad delta path index 9 (should be between [0, 3])"; likely a dashboard refresh that ran after
    the presenter view was drawn), went blank and lost its connection; with it, 100 of 100 round trips before the
    guard and 50 of 50 with it."""
    st.session_state[PRESENTING] = True
    st.rerun()


def follows_the_view(presenting: bool, render: Callable[P, None]) -> Callable[P, None]:
    """`render` for a live part drawn in the presenter view (`presenting`) or on the dashboard: when the flag says
    the other view, the whole page runs again instead. A click on Presenter view (or its exit) sets the flag in a
    callback; the page's next run draws the new view, but on a loaded server that run could be lost between the
    click and the parts' timed refreshes, which went on drawing the old view for good (the presenter-view browser
    test: no "Exit presenter view" in 90 s after a click the server had received, 2026-12-05). Now the next refresh,
    a few seconds later, brings the right view."""

    @functools.wraps(render)
    def part(*args: P.args, **kwargs: P.kwargs) -> None:
        if bool(st.session_state.get(PRESENTING)) != presenting:
            st.rerun(scope="app")
        render(*args, **kwargs)

    return part


def leave_presenter(code: str) -> None:
    """The "Exit presenter view" button's callback: back to the teacher's dashboard of session `code`. The role
    switch and the session box were not drawn while presenting, so Streamlit forgot their values (the switch came
    back as "a student" and the next click dropped the teacher on the join form): they are set again here, before
    they are drawn. A callback, like `start_presenting`: the presenter view refreshes itself every 2 s, and a click
    that reached the server with that refresh ran no script body, where the flag was once cleared."""
    st.session_state[PRESENTING] = False
    st.session_state["classroom_role"] = ROLES[1]
    st.session_state["classroom_session"] = code
    st.query_params[ROLE_PARAM], st.query_params[SESSION_PARAM] = TEACHER_ROLE, code
    st.session_state[ROLE_IN_URL] = True
    st.rerun()


def role_to_url(role: str) -> None:
    if role == ROLES[1]:
        st.query_params[ROLE_PARAM] = TEACHER_ROLE
    else:
        for key in (ROLE_PARAM, SESSION_PARAM):
            st.query_params.pop(key, None)
    st.session_state[ROLE_IN_URL] = role == ROLES[1]  # `role_from_url`: a later ?as=teacher is the page's own


def pick_session(store: ClassroomStore) -> Session | None:
    """The session the dashboard shows: open ones first, then ended ones (still viewable and exportable). The choice
    goes into the URL, so a reload (after the PIN) comes back to it. A session the URL names but this server does not
    hold is said to be not found, and none is shown until the teacher picks one (read 44: the first session was
    shown under the link's code as if it were that one)."""
    sessions = store.sessions()
    if not sessions:
        st.info(_("No session yet. Start one above."))
        return None
    labels = {s.code: s.label() for s in sessions}
    wanted = st.session_state.get("classroom_session") or st.query_params.get(SESSION_PARAM)
    if wanted and wanted not in labels:
        shown = urlvalues.echoed(wanted, MAX_SHOWN_CODE + 1)  # read 49: a control character as its escape
        code = "**" + escape_markdown(shown) + "**"
        st.warning(_("There is no session {code} on this server. Pick one of its sessions below.", code=code))
        st.session_state["classroom_session"] = None  # no session picked: the dashboard waits for the teacher
        st.selectbox(_("Session"), list(labels), format_func=labels.get, key="classroom_session",
                     placeholder=_("Pick a session"))
        return None
    st.session_state["classroom_session"] = wanted if wanted in labels else sessions[0].code
    code = st.selectbox(_("Session"), list(labels), format_func=labels.get, key="classroom_session")
    st.query_params[SESSION_PARAM] = code
    return store.session(code)


def session_controls(store: ClassroomStore, session: Session, exported: bool = True) -> None:
    """The presenter button, and End with a confirmation; for an ended session, when it ended (and, where the panel
    above drew one, that its results stay in its CSV, and its JSON for a teacher-paced session: `exported`). Not "the
    CSV still has every answer": answers `unreadable_note` counts are left out of the exports."""
    if session.closed and not exported:
        st.info(_("Session {code} ended: students can no longer join or answer.", code=session.code))
    elif session.closed and store.is_paced(session.code):  # read 55: its panel offers a JSON download too
        if session.ended_at:
            st.info(_("Session {code} ended at {time} UTC: students can no longer join or answer. Its results stay "
                      "here and in the CSV and JSON downloads above: ending the session deletes no answer.",
                      code=session.code, time=utc_clock(session.ended_at)))
        else:
            st.info(_("Session {code} ended: students can no longer join or answer. Its results stay here and in the "
                      "CSV and JSON downloads above: ending the session deletes no answer.", code=session.code))
    elif session.closed:
        if session.ended_at:
            st.info(_("Session {code} ended at {time} UTC: students can no longer join or answer. Its results stay "
                      "here and in the CSV above: ending the session deletes no answer.", code=session.code,
                      time=utc_clock(session.ended_at)))
        else:
            st.info(_("Session {code} ended: students can no longer join or answer. Its results stay here and in the "
                      "CSV above: ending the session deletes no answer.", code=session.code))
    presenter_col, end_col = st.columns(2)
    presenter_col.button(_("Presenter view (for the projector)"), key="classroom_present", on_click=start_presenting)
    if session.closed:
        return
    if end_col.button(_("End session {code}…", code=session.code), key="classroom_end"):
        st.session_state[CONFIRM_END] = session.code
    if st.session_state.get(CONFIRM_END) != session.code:
        return
    with st.container(border=True):
        st.warning(_("End session {code}? Students can no longer join or answer. Everything answered so far stays "
                     "in this list, on the dashboard and in the CSV.", code=session.code))
        yes, no = st.columns(2)
        if yes.button(_("Yes, end {code}", code=session.code), key="classroom_end_confirm", type="primary"):
            st.session_state.pop(CONFIRM_END, None)
            store.close_session(session.code)
            st.rerun()
        if no.button(_("Cancel"), key="classroom_end_cancel"):
            st.session_state.pop(CONFIRM_END, None)
            st.rerun()


def unanswered(ended: bool) -> str:
    """What a question nobody answered shows: "not answered yet" while the session is open; once it ended no answer
    can come, and "yet" promised one (read 46)."""
    return _("not answered") if ended else _("not answered yet")


def _missed(stat: QuestionStat, ended: bool = False) -> str:
    return unanswered(ended) if stat.failure_rate is None else percent_of(stat.answered - stat.correct, stat.answered)


@view.one_sentence
def dashboard(store: ClassroomStore, session: Session) -> None:
    """Join code, counts, questions by failure rate (their text, in type a room can read), per-student progress,
    CSV export."""
    if session.closed:
        st.markdown(_("Session **`{code}`** has ended; these are its final results.", code=session.code))
    else:
        st.markdown(_("Students join on the **Classroom** page with the code **`{code}`**.", code=session.code))
    stats, progress = store.question_stats(session), store.progress(session)
    answers = sum(p.answered for p in progress)
    left, middle, right = st.columns(3)
    left.metric(_("Students"), len(progress))
    middle.metric(_("Answers"), answers)
    # read 51: headed "Right" (pt "Acertos"), the name of the Students table's count of right answers, over a share
    right.metric(_("Share right"), percent_of(sum(p.correct for p in progress), answers) if answers else "–")
    st.subheader(_("Questions, most missed first"))
    st.html(failure_list_html(stats, ended=session.closed))
    with st.expander(_("The same as a table (sortable)")):
        st.dataframe([{_("question"): in_language(q.question).prompt, _("concept"): concept_name(q.question.concept),
                       # read 53: headed "missed" (pt "erros"), a share beside the list's count "1/2 missed"
                       _("answers"): q.answered, _("share missed"): _missed(q, session.closed)} for q in stats],
                     hide_index=True, key="classroom_q_table")
    st.subheader(_("Students"))
    st.dataframe([{_("name"): p.name, _("answered"): f"{p.answered}/{p.total}", _("right"): p.correct,
                   _("last answer (UTC)"): utc_clock(p.last_answer_at, seconds=True)
                   if p.last_answer_at else "–"} for p in progress], hide_index=True, key="classroom_s_table")
    release_form(store, session)
    unreadable_note(store, session)
    st.download_button(_("Download all answers (CSV)"), store.export_csv(session), f"classroom-{session.code}.csv",
                       "text/csv", key="classroom_csv", on_click="ignore")


RELEASED_KEY = "classroom_released"  # session key: what the release callback left for the form (view.show_kept)


def release_form(store: ClassroomStore, session: Session) -> None:
    """Free the name of a student who joined but answered nothing (a join whose reply was lost, a typo), so they
    can join again under it; students with answers are never offered."""
    view.show_kept(RELEASED_KEY)  # before the list, which may be empty now
    free = [s.name for s in store.unanswered_students(session.code)]
    if not free or session.closed:
        return
    with st.expander(_("A student cannot join under their name?")):
        st.caption(_("If a student's join did not reach their phone, their name is taken by a place that has no "
                     "answers. Release it and ask them to join again."))
        st.selectbox(_("Joined, no answers yet"), free, key="classroom_release_name")
        st.button(_("Release this name"), key="classroom_release", on_click=_release, args=(store, session.code))


def _release(store: ClassroomStore, code: str) -> None:
    """The release button's callback. The form lives in a panel that refreshes itself every few seconds, and on a
    busy server a refresh can stop the run that carried a click before the body reaches the button (the round
    buttons lost clicks that way in the loaded test runs of 2026-12-04); a callback runs before any body."""
    view.speak_session()
    name = st.session_state.get("classroom_release_name")
    if not is_teacher() or not name:
        return
    try:
        released = store.release_name(code, name)
    except ClassroomError as exc:
        view.keep_for_panel(RELEASED_KEY, str(exc))
        return
    shown = escape_markdown(name)  # a student's own text: "[x](https://…)" or "**b**" stays inert on this screen
    if released:
        view.keep_for_panel(RELEASED_KEY, _("{name} can join again.", name=shown), "success")
    else:
        view.keep_for_panel(RELEASED_KEY, _("{name} has answered in the meantime, so the name stays.", name=shown),
                            "warning")


def unreadable_note(store: ClassroomStore, session: Session) -> None:
    """One line when stored answers could not be read (damaged or legacy rows): they are left out, not fatal."""
    n = store.unreadable_answers(session)
    if n:
        st.caption(ngettext("{n} stored answer could not be read; it is left out of the charts and the exports.",
                            "{n} stored answers could not be read; they are left out of the charts and the exports.",
                            n))


FAILURE_CSS = """<style>
.sv-fail {display: grid; grid-template-columns: minmax(8em, 20%) 1fr; gap: 0.7em 1.2em; align-items: start;
          font-size: var(--sv-fail-size, 1.25rem); line-height: 1.35; margin: 0.3em 0 1em 0;}
.sv-fail .count {font-weight: 700; color: #111;}
.sv-fail .count.none {font-weight: 400; color: #555;}
.sv-fail .bar {background: #f3d6d6; border-radius: 3px; height: 0.45em; margin-top: 0.2em; overflow: hidden;}
.sv-fail .bar span {display: block; height: 100%; background: #c62828;}
.sv-fail .q small {display: block; color: #555; font-size: 0.8em;}
@media (max-width: 640px) {.sv-fail {grid-template-columns: 1fr; gap: 0.2em;} .sv-fail .q {margin-bottom: 0.6em;}}
</style>"""


def failure_list_html(stats: list[QuestionStat], size_rem: float = 1.25, ended: bool = False) -> str:
    """Each question's wrong answers, written out ("4/6 missed") over a bar of their share, next to the question's
    text and concept name, worst first: readable across a room, every number visible without hovering. The text is a
    quiz file's (possibly a teacher's upload), so it is escaped; a bank question is shown in the reader's language."""
    rows = []
    for stat in stats:
        if stat.failure_rate is None:
            count = f'<div class="count none">{escape_text(unanswered(ended), whitespace=False)}</div>'
        else:
            missed = _("{missed}/{answered} missed", missed=stat.answered - stat.correct, answered=stat.answered)
            count = (f'<div class="count">{escape_text(missed, whitespace=False)}<div class="bar">'
                     f'<span style="width:{100 * stat.failure_rate:.0f}%"></span></div></div>')
        prompt = in_language(stat.question).prompt
        rows.append(f'{count}<div class="q">{escape_text(prompt, whitespace=False)}'
                    f'<small>{escape_text(concept_name(stat.question.concept), whitespace=False)}</small></div>')
    return (FAILURE_CSS + f'<div class="sv-fail" style="--sv-fail-size:{size_rem}rem">' + "".join(rows) + "</div>")


_PRESENTER_CSS = """<style>
[data-testid="stSidebar"], [data-testid="stHeader"], [data-testid="stToolbar"] {display: none;}
.specviz-big {font-size: 4.5rem; font-weight: 700; letter-spacing: 0.3em; text-align: center;}
.specviz-large {font-size: 2rem; text-align: center;}
</style>"""


@view.one_sentence
def presenter(store: ClassroomStore, session: Session) -> None:
    """For the projector: the join code, who is in, and how each question went, in large type; no controls."""
    progress = store.progress(session)
    names = ", ".join(escape_text(p.name, whitespace=False) for p in progress)
    st.markdown(_PRESENTER_CSS, unsafe_allow_html=True)
    head = _("This session has ended") if session.closed else _("Join on the Classroom page with the code")
    joined = (escape_text(ngettext("{n} joined:", "{n} joined:", len(progress)), whitespace=False) + " " + names
              if progress else escape_text(_("Nobody has joined yet."), whitespace=False))  # not "0 entrou" in pt
    st.markdown(f'<div class="specviz-large">{escape_text(head, whitespace=False)}</div>'
                f'<div class="specviz-big">{escape_text(session.code, whitespace=False)}</div>'
                f'<div class="specviz-large">{joined}</div>', unsafe_allow_html=True)
    st.html(failure_list_html(store.question_stats(session), size_rem=1.9, ended=session.closed))
