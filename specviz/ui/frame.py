"""The frame every page shares: the language, the sidebar legend (the page map itself is in specviz.pagemap).

The language of a visit: `?lang=pt` or `?lang=en` in the link, else the browser's language, else English; the
sidebar switch changes it, and every page writes it back into the address bar so a shared link opens in the same
language. It is chosen once per session (navigating between pages keeps it) and applied at the start of every run,
before anything is drawn.
"""

from __future__ import annotations

import streamlit as st

from specviz.i18n import DEFAULT_LANGUAGE, LANGUAGES, N_, _, language_code, set_language
from specviz.ui import accessibility

LANG_PARAM = "lang"
LANG_KEY = "specviz_language"

# The sidebar's one sentence.
LEGEND = N_("Notation: **p** = the target model's probability for a token, **q** = the draft's, **K** = tokens drafted "
          "per step, **α** (alpha) = the chance that the target keeps one drafted token: on average Σ min(p, q). It "
          "is not the measured accepted / drafted, which stops counting at the first rejection.")


def apply_language() -> str:
    """Choose this session's language on its first run, speak it for this run, and keep it in the URL."""
    state = st.session_state
    if LANG_KEY not in state:
        asked = st.query_params.get(LANG_PARAM)
        state[LANG_KEY] = (language_code(asked) or language_code(getattr(st.context, "locale", None))
                           or DEFAULT_LANGUAGE)
        if asked is not None and language_code(asked) is None:
            state["specviz_language_warning"] = True
    set_language(state[LANG_KEY])
    keep_language_in_url()
    return state[LANG_KEY]


def speak_visitors_language() -> None:
    """Speak the language this session chose. For fragments: a timed rerun of an `st.fragment` runs without the
    page around it, often in a fresh script thread, whose language would otherwise be English. Call it first."""
    code = language_code(st.session_state.get(LANG_KEY))
    if code is not None:
        set_language(code)


def keep_language_in_url() -> None:
    """Put ?lang= back after a page rewrote its parameters (call it after `st.query_params.from_dict`)."""
    code = st.session_state.get(LANG_KEY, DEFAULT_LANGUAGE)
    if st.query_params.get(LANG_PARAM) != code:
        st.query_params[LANG_PARAM] = code


def shared_sidebar() -> None:
    """The language switch and the notation legend, shown on every page, and the page's accessibility repairs."""
    from specviz.ui import runs  # here, not at import: the library's models load only when the app runs

    runs.preload()  # the default pair, in the background: the first live run starts without the model's wait
    with st.sidebar:
        accessibility.install()
        st.selectbox("Language · Idioma", list(LANGUAGES), format_func=LANGUAGES.get, key=LANG_KEY,
                     on_change=_language_changed)
        if st.session_state.pop("specviz_language_warning", False):
            st.caption(_("The language in the link is not one specviz speaks; it opened in {language}.",
                         language=LANGUAGES[st.session_state[LANG_KEY]]))
        st.caption(_(LEGEND))
        note = runs.preload_note()
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
