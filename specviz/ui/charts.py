"""How every page draws a Plotly chart: one config, so charts read the same on a desktop, a projector and a phone.

Plotly's toolbar (the "modebar") is off: on a phone it sits over the chart's title after any tap, and its seven or
eight buttons join the keyboard's Tab order once per chart. Zooming by drag and resetting by double-click still work,
and Streamlit's own fullscreen button stays. Charts never hold the only copy of a number: each page puts the numbers
in a table, a metric or the text next to its chart.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
import streamlit as st

CONFIG: dict[str, Any] = {"displayModeBar": False, "scrollZoom": False, "displaylogo": False, "responsive": True}


def show(fig: go.Figure, key: str, where: Any = None) -> None:
    """Draw `fig` with the shared config, in `where` (a column or container; default: the page)."""
    (where if where is not None else st).plotly_chart(fig, key=key, config=CONFIG)
