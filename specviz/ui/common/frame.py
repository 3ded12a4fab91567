"""The frame every page shares: the language, the sidebar legend (the page map itself is in specviz.teach.pagemap), and
the guard every live part of a page runs under (`live_fragment`, `guarded`).

The language of a visit: `?lang=pt` or `?lang=en` in the link, else the browser's language, else English; the
sidebar switch changes it, and every page writes it back into the address bar so a shared link opens in the same
language. It is chosen once per session (navigating between pages keeps it) and applied at the start of every run,
before anything is drawn.

A live part of a page is an `st.fragment`: it reruns on its own (on a timer, or when one of its widgets changes),
without the page around it. Every one is made with `live_fragment`, never with `st.fragment` itself
(tests/ui/test_fragments.py checks), so an error inside it is one translated sentence in its place, in the visitor's
language, and the rest of the page stays as it was.

A live part that refreshes on a timer also watches whether its browser tab is shown: when the visitor switches to
another tab or locks the phone, the browser says so, the page reruns once and the timer stops (the part keeps what
it shows); when the tab is shown again, the page reruns (so it is current at once) and the timer starts again.
Thirty phones in pockets then cost the laptop serving a class nothing. One timed part does not watch: the sidebar's
loading note (`watch_tab=False`), which every page shows and which ticks every PRELOAD_TICK_SECONDS only while the
default pair loads in the background. A page without a timed part never watches, so switching tabs never reruns it
(and never interrupts a long run on it).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable
from datetime import timedelta
from typing import ParamSpec

import streamlit as st
from streamlit.errors import FragmentHandledException

from specviz.core.i18n import DEFAULT_LANGUAGE, LANGUAGES, N_, _, language_code, set_language, using
from specviz.core.text import control_shown, shortened
from specviz.ui.common import accessibility
from specviz.ui.common.escaping import escape_markdown

P = ParamSpec("P")

LANG_PARAM = "lang"
LANG_KEY = "specviz_language"
LANG_WARNING = "specviz_language_warning"  # the ?lang= value asked for, when specviz does not offer it
UNKNOWN_LANGUAGE = N_("The link asks for the language '{asked}', which specviz does not offer (it offers {offered}); "
                      "it opened in {language}.")

# What a live part of a page says in its place when it fails (its traceback goes to the server's log).
PANEL_FAILED = N_("This part of the page could not be drawn just now; it tries again at the next refresh.")

# The sidebar's one sentence.
# Read 48: K was "a draft tree's depth", but a lookup branch grafted onto a tree (`tree.graft_copy`) can reach deeper
# Read 55: a tree of fewer nodes than K is shallower than K, so K is the tree's greatest depth (as the sliders say)
# Read 55: α read "on average Σ min(p, q)", where the glossary, the Theory explorer and the Exactness lab call the
# one-position Σ min(p, q) β and α its mean over positions, α = E[β]; the legend names β as they do
LEGEND = N_("Notation: **p** = the target model's probability for a token, **q** = the draft's, **K** = tokens drafted "
          "per step (a draft tree's greatest depth; a lookup branch copied into the tree can reach deeper), **α** "
          "(alpha) = the chance that the target keeps one drafted token, on average over positions: α = E[β], where "
          "**β** (beta) = Σ min(p, q) is that chance at one position, with that position's p and q. α is not the "
          "measured accepted / drafted, where the drafts after a step's first rejection still count as drafted.")

# The symbols a page's text uses beyond p, q, K and α, each defined under the legend on the pages that use it (read 51:
# the legend defined only p, q, K, α and accepted / drafted, where pages write c, T, u, the residual and p′, q′)
SYMBOLS = {
    "c": N_("**c** = the time of one draft forward ÷ one target forward, each for one new token"),
    "T": N_("**T** = the sampling temperature (T = 0: greedy)"),
    "u": N_("**u** = the uniform draw in [0, 1) that tests a draft: kept when u < min(1, p/q)"),
    "residual": N_("**residual** = norm(max(0, p − q)), the distribution a recovered token is drawn from after a "
                   "rejection"),
    "p′": N_("**p′**, **q′** = what a tree child tried after a rejected sibling is tested on: p′ the residual those "
             "siblings left of p, q′ the draft without them (u < min(1, p′/q′) keeps it)"),
}
EVERY_SYMBOL = tuple(SYMBOLS)
# page file -> the symbols its text (its panels, and the quiz bank on the quiz and classroom pages) uses
PAGE_SYMBOLS: dict[str, tuple[str, ...]] = {
    "pages/overview.py": ("T", "u", "residual", "p′"),  # read 52: its legend hovers "the residual p′"
    "pages/learn.py": EVERY_SYMBOL,
    "pages/playground.py": ("u", "residual", "p′"),
    "pages/race.py": ("u", "residual", "p′"),
    "pages/proposers.py": ("c", "T", "residual", "p′"),
    "pages/exactness.py": ("c", "residual", "p′"),
    "pages/sandbox.py": ("T", "residual"),
    "pages/theory.py": ("c", "T", "residual", "p′"),
    "pages/speedup_lab.py": ("c", "T"),
    "pages/quiz.py": EVERY_SYMBOL,
    "pages/classroom.py": EVERY_SYMBOL,
    "pages/models.py": (),
    "pages/serving.py": (),
}


def page_notation(page: str | None) -> str | None:
    """The sentence under the legend that defines the symbols `page` (a page file) uses beyond the legend's, in the
    reader's language; None for a page that uses none, or an unknown one.

    >>> said = page_notation("pages/speedup_lab.py")
    >>> said[:53], said[-50:]
    ('Also on this page: **c** = the time of one draft forw', ' **T** = the sampling temperature (T = 0: greedy).')
    >>> page_notation("pages/serving.py") is None
    True
    """
    symbols = PAGE_SYMBOLS.get(page or "", ())
    if not symbols:
        return None
    return _("Also on this page: {symbols}.", symbols="; ".join(_(SYMBOLS[s]) for s in symbols))


def page_file(url_path: str) -> str | None:
    """The page file that Streamlit serves at `url_path` (`StreamlitPage.url_path`: "" for the default page).

    >>> page_file(""), page_file("speedup_lab"), page_file("nowhere")
    ('pages/overview.py', 'pages/speedup_lab.py', None)
    """
    from specviz.teach.pagemap import PAGE_FILES, url_path as served_at

    return next((f for f in PAGE_FILES if served_at(f) == "/" + url_path.strip("/")), None)


def apply_language() -> str:
    """Choose this session's language on its first run, speak it for this run, and keep it in the URL."""
    state = st.session_state
    if LANG_KEY not in state:
        asked = st.query_params.get(LANG_PARAM)
        state[LANG_KEY] = (language_code(asked) or language_code(getattr(st.context, "locale", None))
                           or DEFAULT_LANGUAGE)
        if asked is not None and language_code(asked) is None:
            state[LANG_WARNING] = asked
    set_language(state[LANG_KEY])
    keep_language_in_url()
    return state[LANG_KEY]


def unknown_language_note(asked: str, opened: str) -> str:
    """What the sidebar says once when ?lang= names a language specviz does not offer: in every language it offers
    (the visitor may read none of them well, and the one it opened in may not be theirs), with the codes to use.
    Read 48: `?lang=xx` opened in English without a word on which languages there are. Markdown: `asked` is escaped.

    >>> note = unknown_language_note("xx", "en").split(" · ")
    >>> note[0].endswith("(it offers English (?lang=en), Português (?lang=pt)); it opened in English."), len(note)
    (True, 2)
    """
    offered = ", ".join(f"{name} (?lang={code})" for code, name in LANGUAGES.items())
    shown = escape_markdown(shortened(control_shown(asked), 20))
    said = []
    for code in LANGUAGES:
        with using(code):
            said.append(_(UNKNOWN_LANGUAGE, asked=shown, language=LANGUAGES[opened], offered=offered))
    return " · ".join(said)


def speak_visitors_language() -> None:
    """Speak the language this session chose. For fragments: a timed rerun of an `st.fragment` runs without the
    page around it, often in a fresh script thread, whose language would otherwise be English. Call it first."""
    code = language_code(st.session_state.get(LANG_KEY))
    if code is not None:
        set_language(code)


def guarded(render: Callable[P, None], said: tuple[type[Exception], ...] = ()) -> Callable[P, None]:
    """`render`, speaking the session's language first (`speak_visitors_language`), with any error it raises shown as
    one sentence in its place: an error of a type in `said` (a library error whose message is written for the
    visitor, such as a ClassroomError) as its own message, any other as PANEL_FAILED, its traceback logged for the
    operator. Only `Exception` is caught: Streamlit's rerun and stop signals (`st.rerun`, `st.stop`) derive from
    BaseException and pass through, and so does the marker of a nested fragment whose error Streamlit already
    showed. A render guarded already is returned as it is."""
    if getattr(render, "_specviz_guarded", False):
        return render

    @functools.wraps(render)  # the same module and name: the fragment's identity (and so its widgets) is unchanged
    def rendered(*args: P.args, **kwargs: P.kwargs) -> None:
        speak_visitors_language()
        try:
            render(*args, **kwargs)
        except FragmentHandledException:
            raise
        except said as exc:
            st.error(str(exc))
        except Exception:  # noqa: BLE001 - a live part of a page never shows an exception box
            logging.getLogger(__name__).exception("the live panel %s failed", getattr(render, "__qualname__", render))
            st.error(_(PANEL_FAILED))

    rendered._specviz_guarded = True
    return rendered


def live_fragment(render: Callable[P, None] | None = None, *, run_every: float | timedelta | None = None,
                  said: tuple[type[Exception], ...] = (), watch_tab: bool = True):
    """`st.fragment(guarded(render, said), run_every=run_every)`: the one way specviz makes a live part of a page.
    As a decorator (`@live_fragment(run_every=2)`) or called (`live_fragment(panel, run_every=5)(store, session)`).
    A timed part first mounts the tab watcher in its place (`watch_tab=False` does not): while the tab is hidden
    the timer is off and the part keeps what it shows."""
    if render is None:
        return lambda function: live_fragment(function, run_every=run_every, said=said, watch_tab=watch_tab)
    if run_every is not None and watch_tab and watch_tab_visibility(getattr(render, "__qualname__", "part")):
        run_every = None
    return st.fragment(guarded(render, said), run_every=run_every)


# The browser's Page Visibility API, reported as the component's state `hidden`: a change reruns the page.
_WATCH_JS = """
export default function({ setStateValue }) {
  const report = () => setStateValue('hidden', document.visibilityState === 'hidden');
  document.addEventListener('visibilitychange', report);
  if (document.visibilityState === 'hidden') report();
  return () => document.removeEventListener('visibilitychange', report);
}
"""


@functools.cache
def _tab_watch():
    return st.components.v2.component("specviz_tab_visibility", js=_WATCH_JS)


def watch_tab_visibility(name: str) -> bool:
    """Mount an invisible watcher of this browser tab (one per live part: `name` keys it) and say whether the
    browser last said the tab is hidden."""
    key = "specviz-tab-watch-" + re.sub(r"[^A-Za-z0-9]+", "-", name)  # Streamlit refuses "__" in a component key
    result = _tab_watch()(key=key, default={"hidden": False}, on_hidden_change=_ignore, height=0)
    return bool(getattr(result, "hidden", False))


def _ignore() -> None:
    """The watcher's change callback: the rerun it causes is all that is needed."""


def keep_language_in_url() -> None:
    """Put ?lang= back after a page rewrote its parameters (call it after `st.query_params.from_dict`)."""
    code = st.session_state.get(LANG_KEY, DEFAULT_LANGUAGE)
    if st.query_params.get(LANG_PARAM) != code:
        st.query_params[LANG_PARAM] = code


def shared_sidebar(page: str | None = None) -> None:
    """The language switch and the notation legend, shown on every page, with the symbols `page` (its file) uses
    beyond the legend's (`page_notation`), and the page's accessibility repairs."""
    from specviz.ui.common import runs  # here, not at import: the library's models load only when the app runs

    runs.preload()  # the default pair, in the background: the first live run starts without the model's wait
    with st.sidebar:
        accessibility.install()
        st.selectbox("Language · Idioma", list(LANGUAGES), format_func=LANGUAGES.get, key=LANG_KEY,
                     on_change=_language_changed)
        asked = st.session_state.pop(LANG_WARNING, None)
        if asked is not None:  # once, on the first page: the URL now says the language it opened in
            st.caption(unknown_language_note(asked, st.session_state[LANG_KEY]))
        if runs.preload_note():  # counts on by itself, and says when the models are ready; above the legend, so
            # a 900 px window shows it; it does not watch the tab: every page has it, for a few seconds
            st.session_state[SAW_PRELOAD] = True
            live_fragment(_preload_ticking, run_every=PRELOAD_TICK_SECONDS, watch_tab=False)()
        elif st.session_state.pop(SAW_PRELOAD, False):  # the load ended: its sentence once more, with no timer
            _preload_status()
        st.caption(_(LEGEND))
        more = page_notation(page)
        if more:
            st.caption(more)


PRELOAD_TICK_SECONDS = 2  # the sidebar's loading note refreshes this often while the default pair loads
SAW_PRELOAD = "specviz_saw_preload"  # this session saw the loading note: the next full run says how it ended


def _preload_ticking() -> None:
    """The sidebar's timed part while the background load runs. Its first run after the load ended reruns the whole
    page, which draws the same place without a timer: a tab opened during the load would otherwise rerun it every
    2 s for as long as it stays open (a class's tabs, all opened during the load, the whole lesson long)."""
    from specviz.ui.common import runs

    if runs.preload_note() is None:
        st.rerun(scope="app")
    _preload_status()


def _preload_status() -> None:
    """The loading note while the background load runs, then what came of it (ready, with its seconds, or failed)."""
    from specviz.ui.common import runs

    note = runs.preload_note() or runs.preload_ready_note()
    if note:
        st.caption(note)


def _language_changed() -> None:
    set_language(st.session_state[LANG_KEY])
    st.query_params[LANG_PARAM] = st.session_state[LANG_KEY]


def route_through_app() -> None:
    """Make a page opened by a direct link run inside app.py's router.

    Streamlit 1.67 decides once per server process whether a `pages/` folder means a legacy multipage app, and
    only the first `st.navigation` call corrects that. A shared link such as /race?... opened before anyone has
    visited / would therefore run the page alone: no sections, no shared sidebar, no wide layout. Each page calls
    this first; it clears the flag and reruns, so the router (app.py) handles the same URL. It does so at most
    once per session, so a run that carries a click is never thrown away.
    """
    from streamlit.runtime.pages_manager import PagesManager

    apply_language()
    if PagesManager.uses_pages_directory and not st.session_state.get("_specviz_routed"):
        st.session_state["_specviz_routed"] = True
        PagesManager.uses_pages_directory = False
        st.rerun()


def page_start(title: str, caption: str | None = None) -> None:
    """What every page does first: run inside the router (which also picks the language), then show its title and,
    if given, the one-paragraph caption under it. `title` and `caption` are English messages marked with `N_()`:
    they are translated here, after the language is known."""
    route_through_app()
    st.title(_(title))
    if caption is not None:
        st.caption(_(caption))
