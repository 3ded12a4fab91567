"""What the app's data grids (`st.dataframe`, drawn by Glide on a canvas) share: row names that stay in view.

A table of named rows (the Exactness lab's rules) is wider than a 390 px phone, which scrolls it sideways: its names
scrolled out of view with the first column, and the numbers left on screen named nothing ("ift (TV)" and four bare
columns at 390 × 844, read 51). `NAME_COLUMN` pins that column. Streamlit 1.67 pins only columns that take at most
60% of the grid's width (under 212 px of the 354 px grid on that phone), and a name column sized to its text (330 px
for "Exata: amostrar de p, manter o palpite se coincidir") would leave no room for the rest: it is 200 px wide, and
its names wrap over up to three lines, which Streamlit does only in rows taller than 4rem (64 px). A pinned column's
text is Streamlit's faded grey, #707070 on white: 4.95:1, over WCAG AA's 4.5:1.
"""

from __future__ import annotations

import streamlit as st

NAME_WIDTH = 200  # px: Streamlit's "medium", under 60% of a 390 px phone's 354 px grid
WRAP_ROW_HEIGHT = 70  # px: over 4rem, so a name wraps; three lines of 14 px text
NAMED_ROWS = {"row_height": WRAP_ROW_HEIGHT, "height": "content"}  # every row shown: a taller row left "auto" short


def name_column(label: str | None = None, help: str | None = None) -> st.column_config.Column:
    """The column config of a table's row names: pinned on the left, `NAME_WIDTH` wide."""
    return st.column_config.Column(label, pinned=True, width=NAME_WIDTH, help=help)
