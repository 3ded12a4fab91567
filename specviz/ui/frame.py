"""The frame every page shares: the sidebar legend (the page map itself is in specviz.pagemap)."""

from __future__ import annotations

import streamlit as st

from specviz.i18n import N_, _

# The sidebar's one sentence.
LEGEND = N_("Notation: **p** = the target model's probability for a token, **q** = the draft's, **K** = tokens drafted "
          "per step, **α** (alpha) = the chance that the target keeps one drafted token: on average Σ min(p, q). It "
          "is not the measured accepted / drafted, which stops counting at the first rejection.")


def shared_sidebar() -> None:
    """The notation legend, shown on every page."""
    with st.sidebar:
        st.caption(_(LEGEND))


def route_through_app() -> None:
    """Make a page opened by a direct link run inside app.py's router.

    Streamlit 1.67 decides once per server process whether a `pages/` folder means a legacy multipage app, and
    only the first `st.navigation` call corrects that. A shared link such as /race?... opened before anyone has
    visited / would therefore run the page alone: no sections, no shared sidebar, no wide layout. Each page calls
    this first; it clears the flag and reruns, so the router (app.py) handles the same URL. It does so at most
    once per session, so a run that carries a click is never thrown away.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory and not st.session_state.get("_specviz_routed"):
        st.session_state["_specviz_routed"] = True
        PagesManager.uses_pages_directory = False
        st.rerun()
