"""One colour language for every page: a colour-blind-safe palette (Okabe & Ito 2008) plus a glyph per kind.

Colour is never the only cue: each token kind also has a glyph, and a rejected draft is struck through.

    kind        glyph  colour
    accepted    ✓      bluish green   a drafted token the target kept
    rejected    ✗      vermillion     a drafted token the target dropped (struck through)
    recovered   ↻      reddish purple resampled from norm(max(0, p − q)) at the first rejection
    bonus       ★      sky blue       sampled from p after all K drafts were accepted
    target      •      grey           one token from one target forward (no draft)
    not_reached ·      light grey     a draft after the first rejection: never tested
    drafted     ?      black outline  a draft whose verdict is not revealed yet (predict-then-reveal)

Charts use P_COLOR (blue) for the target's p and Q_COLOR (orange) for the draft's q.

Public API (other pages import it; keep it stable): `KindStyle`, `STYLES`, `KINDS`, `GLYPHS`, `COLORS`,
`style(kind)`, `P_COLOR`, `Q_COLOR`, `RESIDUAL_COLOR`, `U_COLOR`, `legend_html(kinds)`.
This module is plain Python (no streamlit): `legend_html` returns an HTML string for `st.html`.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass

# Okabe-Ito colours
BLACK, ORANGE, SKY_BLUE, BLUISH_GREEN = "#000000", "#E69F00", "#56B4E9", "#009E73"
YELLOW, BLUE, VERMILLION, REDDISH_PURPLE = "#F0E442", "#0072B2", "#D55E00", "#CC79A7"
GREY, LIGHT_GREY = "#6B6B6B", "#B5B5B5"

P_COLOR = BLUE  # the target's distribution p
Q_COLOR = ORANGE  # the draft's distribution q
RESIDUAL_COLOR = REDDISH_PURPLE  # norm(max(0, p - q)), where recovered tokens come from
U_COLOR = BLACK  # the uniform draw u
ACCEPT_FILL = "rgba(0, 158, 115, 0.22)"  # the accept region u < min(1, p/q)
REJECT_FILL = "rgba(213, 94, 0, 0.12)"


@dataclass(frozen=True)
class KindStyle:
    """How one token kind looks: `color` for borders, markers and chart bars; `background` for chip fills."""

    kind: str
    label: str
    glyph: str
    color: str
    background: str
    text_color: str
    strike: bool
    meaning: str


STYLES: dict[str, KindStyle] = {
    s.kind: s
    for s in (
        KindStyle("accepted", "accepted", "✓", BLUISH_GREEN, "#D3EFE6", "#0B3D2E", False,
                  "a drafted token the target kept"),
        KindStyle("rejected", "rejected", "✗", VERMILLION, "#F8DECB", "#7A2E00", True,
                  "a drafted token the target dropped"),
        KindStyle("recovered", "recovered", "↻", REDDISH_PURPLE, "#F4E1EC", "#5E2148", False,
                  "resampled from norm(max(0, p − q)) at the first rejection"),
        KindStyle("bonus", "bonus", "★", SKY_BLUE, "#DCEFFA", "#0B3C5D", False,
                  "sampled from p after all K drafts were accepted: a free extra token"),
        KindStyle("target", "target", "•", GREY, "#ECECEC", "#222222", False,
                  "one target forward, one token (no draft)"),
        KindStyle("not_reached", "not reached", "·", LIGHT_GREY, "#F6F6F6", "#8A8A8A", True,
                  "a draft after the first rejection: never tested"),
        KindStyle("drafted", "drafted", "?", BLACK, "#FFFFFF", "#222222", False,
                  "a drafted token whose verdict is not revealed yet"),
    )
}
KINDS = ("accepted", "rejected", "recovered", "bonus", "target", "not_reached")  # the legend's kinds
GLYPHS = {k: s.glyph for k, s in STYLES.items()}
COLORS = {k: s.color for k, s in STYLES.items()}


def style(kind: str) -> KindStyle:
    """The style of a kind; an unknown kind gets the target's look rather than an error."""
    return STYLES.get(kind, STYLES["target"])


def legend_html(kinds: Iterable[str] = KINDS, *, distributions: bool = True) -> str:
    """A one-line legend: one sample chip per kind, and (optionally) the p / q colour key of the charts."""
    items = []
    for kind in kinds:
        s = style(kind)
        deco = "text-decoration:line-through;" if s.strike else ""
        items.append(
            f'<span title="{html.escape(s.meaning)}" style="display:inline-block;margin:2px 10px 2px 0;'
            f'white-space:nowrap"><span style="display:inline-block;padding:1px 7px;border-radius:6px;'
            f'border:2px solid {s.color};background:{s.background};color:{s.text_color};{deco}'
            f'font-family:monospace">{s.glyph}&nbsp;tok</span>&nbsp;{html.escape(s.label)}</span>'
        )
    if distributions:
        for color, label in ((P_COLOR, "p = target's probability"), (Q_COLOR, "q = draft's probability")):
            items.append(
                f'<span style="display:inline-block;margin:2px 10px 2px 0;white-space:nowrap">'
                f'<span style="display:inline-block;width:14px;height:14px;vertical-align:middle;'
                f'background:{color};border-radius:2px"></span>&nbsp;{html.escape(label)}</span>'
            )
    return f'<div style="line-height:2;font-size:0.95rem">{"".join(items)}</div>'
