"""A slider that writes its numbers in the reader's convention.

Streamlit's `st.slider` prints its value with a JavaScript format ("0.70", "2000") whatever the page's language, so
a Portuguese page showed 0.70 above a chart that says 0,70. `number_slider` is a `select_slider` over the same grid
(lo to hi in steps of `step`) whose labels go through `specviz.core.i18n.number`: 0,70 and 2.000 in Portuguese, 0.70
and 2,000 in English. It returns the number, as `st.slider` does, and is moved with the arrow keys the same way.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import streamlit as st

from specviz.core.i18n import ngettext, number
from specviz.core.paths import MEDUSA_NAME, MODELS_DIR, read_json_once

MAX_DIGITS = 4  # the most decimals a value set through session state (a link) is written with


def _digits(value: float) -> int:
    """The decimals `value` needs to be written back as it is (0.05 -> 2, 2000 -> 0), at most MAX_DIGITS."""
    exponent = Decimal(repr(float(value))).normalize().as_tuple().exponent
    return min(MAX_DIGITS, max(0, -int(exponent)))


def slider_text(value: float, step: float) -> str:
    """`value` as `number_slider` writes it on a slider of step `step`: the step's decimals, more for a value off
    the grid (a link's), at most MAX_DIGITS. Read 54: the Theory map hovered the slider's α = 0.80 as "(0.8, 4)".

    >>> slider_text(0.8, 0.01), slider_text(0.805, 0.01), slider_text(2000, 100)
    ('0.80', '0.805', '2,000')
    """
    return number(value, max(_digits(step), _digits(value)))


def grid(lo: float, hi: float, step: float, extra: float | None = None) -> list[float] | list[int]:
    """lo, lo + step, ... up to hi (each rounded to the step's decimals, so 0.1 + 0.2 is 0.3), plus `extra` where it
    lies in [lo, hi] off the grid (a value a link set, kept as it is rather than moved to a neighbour).

    >>> grid(0.0, 0.2, 0.05), grid(100, 400, 100), grid(0.0, 0.1, 0.05, extra=0.07)
    ([0.0, 0.05, 0.1, 0.15, 0.2], [100, 200, 300, 400], [0.0, 0.05, 0.07, 0.1])
    """
    whole = all(float(x).is_integer() for x in (lo, hi, step))
    digits = _digits(step)
    count = int(round((hi - lo) / step))
    values = [round(lo + i * step, digits) for i in range(count + 1)]
    values = [v for v in values if v <= hi + 1e-12]
    if extra is not None and lo <= extra <= hi and extra not in values:
        values = sorted([*values, extra])
    return [int(v) for v in values] if whole and all(float(v).is_integer() for v in values) else values


def number_slider(container: Any, label: str, lo: float, hi: float, value: float | None = None, step: float = 1, *,
                  key: str, **kwargs: Any) -> float:
    """`container.slider(label, lo, hi, value, step, key=key, ...)`, its numbers written for the reader's locale.
    A value already in session state under `key` (a link's, a preset's) is the one shown, even off the grid, and
    `value` (the first run's, lo when None) is then not passed: Streamlit warns when a widget gets both."""
    current = st.session_state.get(key)
    options = grid(lo, hi, step, current if isinstance(current, (int, float)) else None)
    def label_of(option: float) -> str:
        return slider_text(option, step)

    if key in st.session_state:
        return container.select_slider(label, options, format_func=label_of, key=key, **kwargs)
    start = lo if value is None else min(options, key=lambda option: abs(option - value))
    return container.select_slider(label, options, value=start, format_func=label_of, key=key, **kwargs)


# ---- K beyond the Medusa heads (read 48) ------------------------------------------------------------------------
#
# The K sliders go to 16, but Medusa drafts one token per head (`MedusaProposer.propose` takes the heads' first K),
# so with the shipped 5 heads a race "at K = 8" drafted 5 a step and a formula "at K = 8" read as 8 drafts.

def medusa_heads() -> int | None:
    """How many trained Medusa heads are installed (their specviz.json's "heads", the count `load_medusa` builds),
    read without loading torch; None when none are installed or the file cannot be read."""
    try:
        return int(read_json_once(MODELS_DIR / MEDUSA_NAME / "specviz.json")["heads"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def medusa_cap_note(proposer: str, k: int, tree: bool = False) -> str | None:
    """The sentence a K slider shows when Medusa drafts and K is above its head count, else None. For a `tree` (the
    Playground's, tree nodes > 0) it names the depth only: head d gives every node at depth d, several of them in a
    wide tree (read 50: "each drafts one token, so a step drafts at most 5" stood over a Medusa tree of 16 nodes)."""
    heads = medusa_heads() if proposer == "medusa" else None
    if heads is None or k <= heads:
        return None
    if tree:
        return ngettext("Medusa has {n} head, and head d gives the tree's nodes at depth d, so a tree is at most {n} "
                        "deep, not K = {k}.",
                        "Medusa has {n} heads, and head d gives the tree's nodes at depth d, so a tree is at most {n} "
                        "deep, not K = {k}.", heads, k=k)
    return ngettext("Medusa has {n} head and each drafts one token, so a step drafts at most {n}, not K = {k} (a "
                    "tree is at most {n} deep).",
                    "Medusa has {n} heads and each drafts one token, so a step drafts at most {n}, not K = {k} (a "
                    "tree is at most {n} deep).", heads, k=k)
