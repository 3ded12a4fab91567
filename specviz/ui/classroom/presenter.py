"""Classroom, teacher-paced, on the projector: the current question in type a back row can read (1920×1080), who
has answered, the round and its timer, round 1 next to round 2, and a QR code with the join link (`?code=...`
filled in). The right answer appears only after the teacher reveals it. No controls: the teacher drives from the
dashboard on their own screen (or this one, after "Exit presenter view").

The join link needs an address the students' phones can reach: the teacher may type it on the dashboard; otherwise
it is this page's own address, with `localhost` swapped for this machine's address on the local network.
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import streamlit as st

from specviz.core.i18n import N_, _, get_language
from specviz.teach.classroom import Session
from specviz.teach.classroom_paced import PacedStore, join_url, qr_data_uri
from specviz.teach.quiz.grading import answer_sentence
from specviz.ui.classroom import view
from specviz.ui.classroom.chart import chart_name, distribution_figure
from specviz.ui.classroom.paced_teacher import elapsed
from specviz.ui.common.charts import show
from specviz.ui.common.escaping import escape_markdown, escape_text

BASE_KEY = "classroom_join_base"  # the address students use, as the teacher typed it
INPUT_KEY = "classroom_join_base_input"
REFUSED_KEY = "classroom_join_base_refused"  # set by the input's callback when the typed address gives no link
REFRESH_SECONDS = 2
# the chart's least height: with the status line and a two-line question, the view fits 1080 px without
# scrolling; more choices, or longer ones, make it taller (`distribution_figure`), the view scrolling
CHART_HEIGHT = 660

# English messages, shown with `_()` (specviz.core.i18n)
TEXT = {
    "join": N_("Scan to join, or open"),
    "qr_alt": N_("QR code of the join link"),
    "waiting": N_("The first question appears here when it is pushed."),
    "status": N_("Question {number} · round {round} · {answered} of {students} answered · {time}"),
    "ended": N_("This session has ended."),
    "base": N_("Join address shown on the projector"),
    "base_help": N_("The address students' phones open: this computer's address on the room's network and the "
                    "app's port. The app must listen on that network, as `make run` does (a server started with "
                    "--server.address 127.0.0.1 is reachable only from this computer)."),
    "unreachable": N_("Students' phones cannot reach this server: it listens only on this computer "
                      "({address}), while the join address points at {host}. Stop the app and start it again "
                      "with `--server.address 0.0.0.0` (docs/teaching.md, step 1); phones and this computer must be "
                      "on the same network."),
    "bad_base": N_("A join address looks like http://192.168.1.20:8501: http or https, a host, a port if needed, "
                   "and no ?… or #…; the QR code keeps {base} until then."),
}
LOOPBACK = ("localhost", "127.0.0.1", "::1")


def unreachable_note(base: str, listening: str | None) -> str | None:
    """The sentence for a teacher whose server phones cannot reach (issue 42 item 6: it listened on 127.0.0.1 while
    the QR code offered the LAN address), or None. `listening` is Streamlit's server.address (None: all
    interfaces).

    >>> unreachable_note("http://192.168.1.20:8501", "127.0.0.1").startswith("Students' phones cannot reach")
    True
    >>> unreachable_note("http://192.168.1.20:8501", None), unreachable_note("http://localhost:8501", "127.0.0.1")
    (None, None)
    """
    host = urlsplit(base).hostname or ""
    if not listening or listening not in LOOPBACK or host in LOOPBACK:
        return None
    return _(TEXT["unreachable"], address=listening, host=host)

CSS = """<style>
[data-testid="stSidebar"], [data-testid="stHeader"], [data-testid="stToolbar"] {display: none;}
[data-testid="stMainBlockContainer"] {padding-top: 1.2rem; padding-bottom: 1rem; max-width: 100%;}
.st-key-paced_present_q p, .st-key-paced_present_q li {font-size: 2.3rem; line-height: 1.3;}
.st-key-paced_present_answer p {font-size: 1.5rem; line-height: 1.3;}
.sv-status {font-size: 2.2rem; font-weight: 700; color: #0b3d6b;}
.sv-join {font-size: 1.5rem; text-align: center; line-height: 1.3;}
.sv-join .url {display: block; font-size: 1.25rem; overflow-wrap: anywhere; margin: 0.2em 0 0.4em 0;}
.sv-join b {font-size: 3.2rem; letter-spacing: 0.2em; display: block;}
.sv-qr img {width: 100%; height: auto; max-width: 320px; display: block; margin: 0 auto;
           image-rendering: pixelated;}
</style>"""


def _lan_host() -> str | None:
    """This machine's address on the local network (no packet is sent), or None."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            return s.getsockname()[0]
    except OSError:
        return None


def guessed_base() -> str:
    """scheme://host:port of this page, with a loopback host swapped for the LAN address."""
    try:
        parts = urlsplit(st.context.url or "")
        port = parts.port or 8501
    except Exception:  # noqa: BLE001 - no browser (AppTest), or an address urlsplit refuses: a plausible default
        parts, port = urlsplit(""), 8501
    scheme, host = parts.scheme or "http", parts.hostname or "localhost"
    if host in ("localhost", "127.0.0.1", "::1"):
        host = _lan_host() or host
    return f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}"  # an IPv6 host goes in brackets


def join_base() -> str:
    return st.session_state.get(BASE_KEY) or guessed_base()


def base_input() -> None:
    """On the dashboard: the address the projector's QR code and link point at (kept under BASE_KEY, which outlives
    the widget: the presenter view does not draw it)."""
    st.session_state.setdefault(BASE_KEY, guessed_base())
    st.session_state[INPUT_KEY] = st.session_state[BASE_KEY]
    st.text_input(_(TEXT["base"]), key=INPUT_KEY, help=_(TEXT["base_help"]), max_chars=200, on_change=_keep_base)
    if st.session_state.pop(REFUSED_KEY, False):
        st.error(_(TEXT["bad_base"], base=escape_markdown(st.session_state[BASE_KEY])))
    reach_warning()


def reach_warning() -> None:
    """On the teacher's screen, one warning when the students' phones cannot reach this server."""
    note = unreachable_note(join_base(), st.get_option("server.address"))
    if note:
        st.warning(note)


def usable_base(text: str) -> bool:
    """Whether a typed join address gives a link a phone opens: http(s), a host urlsplit reads with no space in it,
    a port from 1 to 65535 if any, no query or fragment.

    >>> usable_base("http://192.168.1.20:8501"), usable_base("http://[::1"), usable_base("192.168.1.20:8501")
    (True, False, False)
    >>> usable_base("http://class room:8501"), usable_base("http://192.168.1.20:0")
    (False, False)
    >>> usable_base("http://192.168.1.20:8501?"), usable_base("http://192.168.1.20:8501/#")  # an empty ? or # too
    (False, False)
    """
    try:
        parts = urlsplit(text)
        port = parts.port  # raises on a port outside 0..65535
    except ValueError:
        return False
    return (parts.scheme in ("http", "https") and bool(parts.hostname) and not any(c.isspace() for c in text)
            and port != 0 and "?" not in text and "#" not in text)  # even empty: the link would follow it


def _keep_base() -> None:
    typed = st.session_state[INPUT_KEY].strip()
    if usable_base(typed):  # else the last good address stays, and base_input says why
        st.session_state[BASE_KEY] = typed
    elif typed:
        st.session_state[REFUSED_KEY] = True


def join_box(code: str) -> None:
    url = join_url(join_base(), code)
    alt, join = escape_text(_(TEXT["qr_alt"]), whitespace=False), escape_text(_(TEXT["join"]), whitespace=False)
    st.html(f'<div class="sv-qr"><img src="{qr_data_uri(url)}" alt="{alt}"></div>'
            f'<div class="sv-join">{join}<span class="url">{escape_text(url, whitespace=False)}</span>'
            f'<b>{escape_text(code, whitespace=False)}</b></div>')


@view.one_sentence
def presenter(store: PacedStore, session: Session) -> None:
    """Everything the room sees; rerun every REFRESH_SECONDS by the page's fragment."""
    st.markdown(CSS, unsafe_allow_html=True)
    push = store.current(session.code)
    main, side = st.columns([3, 1], gap="large")
    if not session.closed:  # an ended session takes no joins: no "Scan to join" for the room
        with side:
            join_box(session.code)
    with main:
        if session.closed:  # nothing more will be pushed: no "the first question appears here"
            st.html(f'<div class="sv-status">{escape_text(_(TEXT["ended"]), whitespace=False)}</div>')
        elif push is None:
            st.html(f'<div class="sv-status">{escape_text(_(TEXT["waiting"]), whitespace=False)}</div>')
        if push is None:
            return
        status = _(TEXT["status"], number=push.number, round=push.round, answered=store.answered(push),
                   students=len(store.students(session.code)), time=elapsed(push, ended_at=session.ended_at))
        st.html(f'<div class="sv-status">{escape_text(status, whitespace=False)}</div>')
        question = push.shown()  # the projector speaks the teacher's language
        with st.container(key="paced_present_q"):
            st.markdown(question.prompt)
        spread = store.distribution(push, get_language())
        show(distribution_figure(spread, push.round, push.revealed, font_size=22, min_height=CHART_HEIGHT),
             f"paced_present_chart_{push.id}", name=chart_name(spread))
    if push.revealed:
        with side.container(key="paced_present_answer"):
            st.markdown(f"**{answer_sentence(question)}**")
            st.markdown(question.explanation)
