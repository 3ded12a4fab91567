"""The frame every page shares: the page map for st.navigation and the sidebar legend."""

from __future__ import annotations

import streamlit as st

# section -> (page file, title, icon). Page files are relative to the repository root.
PAGES: dict[str, list[tuple[str, str, str]]] = {
    "Learn": [
        ("pages/overview.py", "Overview", ":material/home:"),
        ("pages/playground.py", "Playground", ":material/play_circle:"),
        ("pages/race.py", "Timeline & race", ":material/timer:"),
    ],
    "Understand": [
        ("pages/exactness.py", "Exactness lab", ":material/balance:"),
        ("pages/theory.py", "Theory explorer", ":material/functions:"),
        ("pages/speedup_lab.py", "Speedup lab", ":material/speed:"),
    ],
    "Practice": [
        ("pages/quiz.py", "Quiz", ":material/quiz:"),
        ("pages/classroom.py", "Classroom", ":material/groups:"),
    ],
    "Engineer": [
        ("pages/models.py", "Models", ":material/memory:"),
    ],
}

PAGE_FILES = [path for pages in PAGES.values() for path, _, _ in pages]


def shared_sidebar() -> None:
    """The notation legend, shown on every page."""
    with st.sidebar:
        st.caption("Notation: **p** = target model's distribution, **q** = draft's, **K** = drafted tokens per step, "
                   "**α** = acceptance rate.")
