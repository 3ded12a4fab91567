"""One colour language for every page: a colour-blind-safe palette (Okabe & Ito 2008) plus a glyph per kind.

Colour is never the only cue: each token kind also has a glyph, and a rejected draft is struck through.

    kind        glyph  colour
    accepted    ✓      bluish green   a proposed token the target kept (drafted, or ❐ copied by a tree's lookup
                                      branch)
    rejected    ✗      vermillion     a proposed token the target dropped (likewise; struck through)
    recovered   ↻      reddish purple resampled from norm(max(0, p − q)) at the first rejection
    bonus       ★      sky blue       sampled from p after every draft of its step was accepted (in a tree:
                                      after the kept path reached a leaf)
    target      •      grey           one token from one target forward (no draft)
    not reached ·      light grey     a draft never tested: after the first rejection (in a tree: off the tested
                                      path, `NodeStatus`)
    drafted     ?      black outline  a draft whose verdict is not revealed yet (predict-then-reveal)

Charts use P_COLOR (blue) for the target's p and Q_COLOR (orange) for the draft's q.

The first five are a trace's `TokenKind`s; the last two are `DisplayState`s that only the screen knows. A kind
that is neither is a bug upstream, so `style` refuses it rather than drawing it grey:

    >>> style(TokenKind.BONUS).glyph, style("not reached").label
    ('★', 'not reached')
    >>> style("grey")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: 'grey' is not a token kind the palette knows (accepted, rejected, ..., not reached, drafted).

Public API (other pages import it; keep it stable): `KindStyle`, `DisplayState`, `Kind`, `STYLES`, `KINDS`,
`GLYPHS`, `COLORS`, `style(kind)`, `P_COLOR`, `Q_COLOR`, `RESIDUAL_COLOR`, `U_COLOR`, `ACCEPT_FILL`, `REJECT_FILL`,
`legend_html(kinds)`, and the Okabe-Ito colours by name: `BLACK`, `ORANGE`, `SKY_BLUE`, `BLUISH_GREEN`, `YELLOW`,
`BLUE`, `VERMILLION`, `REDDISH_PURPLE`, plus `GREY` and `LIGHT_GREY`.
This module is plain Python (no streamlit): `legend_html` returns an HTML string for `st.html`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from specviz.core.i18n import N_, _
from specviz.engine.kinds import NodeStatus
from specviz.engine.trace import TokenKind
from specviz.ui.common.escaping import escape_attr, escape_text

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


class DisplayState(StrEnum):
    """How a drafted token looks before it has a kind of its own: states of the screen, never written to a trace."""

    NOT_REACHED = NodeStatus.NOT_REACHED.value  # never tested (one spelling, the trace's)
    DRAFTED = "drafted"  # the verdict is hidden for now (predict-then-reveal)


Kind = TokenKind | DisplayState


@dataclass(frozen=True)
class KindStyle:
    """How one token kind looks: `color` for borders, markers and chart bars; `background` for chip fills. `label`
    and `meaning` are English messages: show them through `specviz.core.i18n._`."""

    kind: Kind
    label: str
    glyph: str
    color: str
    background: str
    text_color: str
    strike: bool
    meaning: str


# How each kind looks, one row a kind: label, glyph, colour (borders, markers, chart bars), chip fill, chip text,
# struck through. What each kind means is the next table; STYLES joins the two.
_LOOKS: dict[Kind, tuple[str, str, str, str, str, bool]] = {
    TokenKind.ACCEPTED: (N_("accepted"), "✓", BLUISH_GREEN, "#D3EFE6", "#0B3D2E", False),
    TokenKind.REJECTED: (N_("rejected"), "✗", VERMILLION, "#F8DECB", "#7A2E00", True),
    TokenKind.RECOVERED: (N_("recovered"), "↻", REDDISH_PURPLE, "#F4E1EC", "#5E2148", False),
    TokenKind.BONUS: (N_("bonus"), "★", SKY_BLUE, "#DCEFFA", "#0B3C5D", False),
    TokenKind.TARGET: (N_("target"), "•", GREY, "#ECECEC", "#222222", False),
    DisplayState.NOT_REACHED: (N_("not reached"), "·", LIGHT_GREY, "#F6F6F6", "#5E5E5E", True),
    DisplayState.DRAFTED: (N_("drafted"), "?", BLACK, "#FFFFFF", "#222222", False),
}
_MEANINGS: dict[Kind, str] = {
    # read 45: "drafted" was false for a tree's lookup branch, whose copied nodes (❐, no model drafted them) are
    # kept or dropped by the same rule and drawn with the same chips
    TokenKind.ACCEPTED: N_("a proposed token the target kept (drafted, or ❐ copied by a tree's lookup branch)"),
    TokenKind.REJECTED: N_("a proposed token the target dropped (drafted, or ❐ copied by a tree's lookup branch)"),
    TokenKind.RECOVERED: N_("resampled from norm(max(0, p − q)) at the first rejection (in a tree: from the residual "
                        "p′ once every child of the last kept node was rejected)"),
    TokenKind.BONUS: N_("sampled from p after every draft of its step was accepted (in a tree: after the kept path "
                     "reached a leaf): a free extra token"),
    TokenKind.TARGET: N_("one target forward, one token (no draft)"),
    DisplayState.NOT_REACHED: N_("a draft never tested: after the first rejection (in a tree: below a rejected "
                                 "node, or a sibling after the kept one, or below those)"),
    DisplayState.DRAFTED: N_("a drafted token whose verdict is not revealed yet"),
}
STYLES: dict[Kind, KindStyle] = {kind: KindStyle(kind, *look, _MEANINGS[kind]) for kind, look in _LOOKS.items()}
KINDS: tuple[Kind, ...] = (*TokenKind, DisplayState.NOT_REACHED)  # the legend's kinds
GLYPHS = {k: s.glyph for k, s in STYLES.items()}
COLORS = {k: s.color for k, s in STYLES.items()}


def style(kind: Kind | str) -> KindStyle:
    """The style of a kind: a `TokenKind`, a `DisplayState`, or the plain string of either (they compare equal).
    Anything else is a ValueError with one sentence."""
    try:
        return STYLES[kind]
    except (KeyError, TypeError):
        known = ", ".join(STYLES)
        raise ValueError(_("{kind} is not a token kind the palette knows ({known}).", kind=repr(str(kind)[:40]),
                           known=known)) from None


def legend_html(kinds: Iterable[Kind | str] = KINDS, *, distributions: bool = True,
                meanings: dict[Kind, str] | None = None, kept_mark: bool = True) -> str:
    """A one-line legend: one sample chip per kind, and (optionally) the p / q colour key of the charts. `meanings`
    (English messages by kind) replace the kinds' own hover texts, for a reader who has not met p, q or a tree yet.
    `kept_mark=False` draws the accepted chip without its ✓, as an output line draws its kept drafts (`output_html`;
    read 49: the Overview's and the race's legends showed "✓ tok accepted" above an output whose green chips carried
    no ✓)."""
    items = []
    for kind in kinds:
        s = style(kind)
        glyph = "" if (not kept_mark and s.kind == TokenKind.ACCEPTED) else f"{s.glyph}&nbsp;"
        deco = "text-decoration:line-through;" if s.strike else ""
        meaning = (meanings or {}).get(s.kind, s.meaning)
        items.append(
            f'<span title="{escape_attr(_(meaning))}" style="display:inline-block;margin:2px 10px 2px 0;'
            f'white-space:nowrap"><span style="display:inline-block;padding:1px 7px;border-radius:6px;'
            f'border:2px solid {s.color};background:{s.background};color:{s.text_color};{deco}'
            f'font-family:monospace">{glyph}tok</span>&nbsp;{escape_text(_(s.label), whitespace=False)}</span>'
        )
    if distributions:
        for color, label in ((P_COLOR, _("p = target's probability")), (Q_COLOR, _("q = draft's probability"))):
            items.append(
                f'<span style="display:inline-block;margin:2px 10px 2px 0;white-space:nowrap">'
                f'<span style="display:inline-block;width:14px;height:14px;vertical-align:middle;'
                f'background:{color};border-radius:2px"></span>&nbsp;{escape_text(label, whitespace=False)}</span>'
            )
    return f'<div style="line-height:2;font-size:0.95rem">{"".join(items)}</div>'
