"""How every page draws a Plotly chart: one config, so charts read the same on a desktop, a projector and a phone,
and the numbers a chart plots, as a table for anyone who cannot hover (a phone, a keyboard, a screen reader).

Plotly's toolbar (the "modebar") is off: on a phone it sits over the chart's title after any tap, and its seven
buttons join the keyboard's Tab order once per chart. Zooming by drag and resetting by double-click still work.
"""

from __future__ import annotations

import math
from itertools import islice
from numbers import Number
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from specviz.i18n import N_, _, get_language

CONFIG: dict[str, Any] = {"displayModeBar": False, "scrollZoom": False, "displaylogo": False, "responsive": True}
NUMBERS_LABEL = N_("The numbers in this chart")
SEPARATORS = {"en": ".,", "pt": ",."}  # Plotly's decimal then thousands separator, per language: 1,58 in Portuguese


def localize(fig: go.Figure) -> go.Figure:
    """Write the figure's numbers (ticks, hovers) the reader's way; every chart passes through here or `show`."""
    fig.update_layout(separators=SEPARATORS[get_language()])
    return fig


def show(fig: go.Figure, key: str, where: Any = None, *, numbers: bool = True) -> None:
    """Draw `fig` with the shared config in `where` (a column or container; default: the page), followed by a folded
    table of the numbers it plots (`figure_table`) unless `numbers` is False (the page shows them another way)."""
    place = where if where is not None else st
    place.plotly_chart(localize(fig), key=key, config=CONFIG)
    table = figure_table(fig) if numbers else None
    if table is not None:
        with place.expander(_(NUMBERS_LABEL)):
            st.dataframe(table, hide_index=True, key=f"{key}_numbers")


def figure_table(fig: go.Figure, max_rows: int = 60) -> pd.DataFrame | None:
    """The points of a figure's line, marker and bar traces as one table: a row per x value (the category, K, α...),
    a column per trace, values to three significant figures ("–" where a trace has no point). Horizontal bars are
    read along their y axis. Heatmaps and traces without x and y are left out; None when nothing is left. Linear in
    the number of points, so a chart of a million points costs a page no more than drawing it.

    >>> fig = go.Figure([go.Bar(x=["a", "b"], y=[1.0, 2.5], name="bars"), go.Scatter(x=["b"], y=[0.123456],
    ...                  name="line")], layout={"xaxis_title": "kind"})
    >>> figure_table(fig).to_dict("records")
    [{'kind': 'a', 'bars': '1', 'line': '–'}, {'kind': 'b', 'bars': '2.5', 'line': '0.123'}]
    """
    x_title = _plain(fig.layout.xaxis.title.text) or "x"
    columns: dict[str, dict[str, str]] = {}
    order: dict[str, None] = {}  # the x labels in first-seen order (a dict: linear however many points)
    for index, trace in enumerate(fig.data):
        if trace.type not in ("scatter", "bar") or trace.x is None or trace.y is None:
            continue
        horizontal = getattr(trace, "orientation", None) == "h"
        xs, ys = (trace.y, trace.x) if horizontal else (trace.x, trace.y)
        name = _plain(trace.name) or f"series {index + 1}"
        while name in columns or name == x_title:
            name += " "
        column = columns.setdefault(name, {})
        for x, y in zip(xs, ys):
            label = _plain(x)
            if label not in column:
                column[label] = _value(y)
                order.setdefault(label)
    if not columns or not order:
        return None
    rows = list(islice(order, max_rows))
    return pd.DataFrame({x_title: rows, **{name: [col.get(r, "–") for r in rows] for name, col in columns.items()}})


def _plain(value: Any) -> str:
    """A label as plain text: Plotly's <br> line breaks become spaces, numbers get three significant figures."""
    if value is None:
        return ""
    if isinstance(value, Number) and not isinstance(value, bool):
        return _value(value)
    return " ".join(str(value).replace("<br>", " ").split())


def _value(y: Any) -> str:
    if y is None or (isinstance(y, float) and not math.isfinite(y)):
        return "–"
    if isinstance(y, Number) and not isinstance(y, bool):
        text = f"{float(y):.3g}"
        return text.replace(".", ",") if get_language() == "pt" else text
    return str(y)
