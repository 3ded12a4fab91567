"""The frame every page shares: the page map for st.navigation and the sidebar legend."""

from __future__ import annotations

import streamlit as st

from specviz.pagemap import PAGE_FILES, PAGES  # noqa: F401  (re-exported for app.py and pages)


def shared_sidebar() -> None:
    """The notation legend, shown on every page."""
    with st.sidebar:
        st.caption("Notation: **p** = target model's distribution, **q** = draft's, **K** = drafted tokens per step, "
                   "**α** = acceptance rate.")
