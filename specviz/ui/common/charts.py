"""How every page draws a Plotly chart: one config, so charts read the same on a desktop, a projector and a phone,
and the numbers a chart plots, as a table for anyone who cannot hover (a phone, a keyboard, a screen reader).

Every chart on every page goes through `show` (tests/ui/test_accessibility.py holds every page to it): it gets an
accessible name (its title unless the page gives one) as a `role="figure"` (specviz.ui.common.accessibility sets it
in the browser) and, right under it, its numbers as a real HTML table, folded. A chart whose numbers cannot be read
off the figure gets them from the page (`table=`); a chart with neither is an error, not a silent gap.

Plotly's toolbar (the "modebar") shows only while a mouse hovers the chart, never on a phone (where a tap would put
it over the chart's title); its buttons are not in the keyboard's Tab order. Zooming by drag and resetting by
double-click work as before.
"""

from __future__ import annotations

import html
import math
import re
import textwrap
from decimal import Decimal
from numbers import Number, Real
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from specviz.core.i18n import (N_, _, as_written, get_language, half_up, list_separator, localized, ngettext,
                               number, with_decimal_point, with_minus)
from specviz.ui.common.accessibility import CHART_NAME_CLASS
from specviz.ui.common.escaping import escape_cell, escape_text
from specviz.ui.common.palette import GREY

CONFIG: dict[str, Any] = {"displayModeBar": "hover", "scrollZoom": False, "displaylogo": False, "responsive": True}
NUMBERS_LABEL = N_("The numbers in this chart")
TABLE_NOTE = N_("Chart: {name}. Its numbers are in the table “{table}” under it.")
# A table of this many columns or more (its row labels included) is wider than a 390 px phone's box (318 px), which
# shows its first columns and scrolls sideways with no scroll bar and no sign of the cut: the race's table of eleven
# read as if it ended at "draft (ms)" (read 46). Such a table says, above it, how to reach the rest.
WIDE_TABLE = 5
TABLE_SCROLLS = N_("A table cut off at its right edge on a narrow screen scrolls sideways: swipe it, or Tab to it "
                   "and press the arrow keys, to read its other columns.")
SEPARATORS = {"en": ".,", "pt": ",."}  # Plotly's decimal then thousands separator, per language: 1,58 in Portuguese


def localize(fig: go.Figure) -> go.Figure:
    """Write the figure's numbers (ticks, hovers) the reader's way; every chart passes through here or `show`."""
    fig.update_layout(separators=SEPARATORS[get_language()])
    return written_hovers(fig)


# a value a hover writes with fixed decimals: %{y:.3f}, %{x:,.2f}, %{customdata:.2f}, %{customdata[2]:.2f}
_FIXED = re.compile(r"%\{(x|y|z|customdata)(?:\[(\d+)\])?:,?\.(\d+)f\}")


def written_hovers(fig: go.Figure) -> go.Figure:
    """Hovers that write their numbers as the page does: each `%{y:.2f}` of a line, bar or heatmap becomes the
    point's value as `number` writes it, carried in its `customdata`. Plotly's d3 format rounds the binary double, so
    1.005 hovered "1.00" and 0.125 "0.12" beside a table (`figure_table`, `number`) that rounds ties half away from
    zero, "1.01" and "0.13" (read 51). A line or bar trace with no hover template of its own (and hover not turned
    off) gets one: "(x, y)" as Plotly's default hover, each value written as the chart's table writes it (three
    significant figures; "1,234" where Plotly wrote 1.234567k or 1234.567), the pair separated by `list_separator`.

    >>> fig = written_hovers(go.Figure([go.Scatter(x=[1, 2], y=[1.005, 0.125], hovertemplate="K = %{x}: %{y:.2f}"),
    ...                                 go.Bar(x=["a"], y=[2.34567], name="bars")]))
    >>> fig.data[0].hovertemplate, [row[0] for row in fig.data[0].customdata]
    ('K = %{x}: %{customdata[0]}', ['1.01', '0.13'])
    >>> fig.data[1].hovertemplate, fig.data[1].customdata
    ('(%{customdata[0]}, %{customdata[1]})', (['a', '2.35'],))
    """
    for trace in fig.data:
        if trace.type in ("scatter", "bar"):
            _write_points(trace)
        elif trace.type == "heatmap":
            _write_cells(trace)
    return fig


def _columns(point: Any) -> list[Any]:
    """A point's customdata as a list of columns: a scalar is one column, a missing one none."""
    if point is None:
        return []
    return list(point) if isinstance(point, list | tuple) or getattr(point, "ndim", 0) > 0 else [point]


def _written(template: str, rows: list[list[Any]], value: Any) -> tuple[str, list[list[Any]]] | None:
    """`template` with each fixed-point value replaced by a customdata column holding it as `number` writes it, and
    the points' customdata rows with those columns added; None when the template has none or cannot be rewritten.
    `value(letter, index, row, point)` is a point's x, y, z or customdata value."""
    refs = list(dict.fromkeys(m.group(0) for m in _FIXED.finditer(template)))
    widths = {len(row) for row in rows}
    if not refs or len(widths) > 1:
        return None
    width = widths.pop() if widths else 0
    if "%{customdata}" in template:
        if width != 1:
            return None
        template = template.replace("%{customdata}", "%{customdata[0]}")
    for column, ref in enumerate(refs, start=width):
        template = template.replace(ref, "%{customdata[" + str(column) + "]}")
    found = [_FIXED.fullmatch(ref) for ref in refs]
    written = [[*row, *(_value(value(m.group(1), m.group(2), row, point), int(m.group(3))) for m in found)]
               for point, row in enumerate(rows)]
    return template, written


def _at(values: Any, index: int) -> Any:
    return values[index] if values is not None and index < len(values) else None


def _write_points(trace: Any) -> None:
    """`written_hovers` for a line or bar trace, a point per x (or y) value."""
    xs, ys = trace.x, trace.y
    count = max(len(xs) if xs is not None else 0, len(ys) if ys is not None else 0)
    old = trace.customdata
    rows = [_columns(_at(old, i)) for i in range(count)] if old is not None else [[] for _i in range(count)]
    template = trace.hovertemplate
    if template is None:
        if trace.hoverinfo not in (None, "all") or xs is None or ys is None or not count:
            return
        width = len(rows[0])
        if any(len(row) != width for row in rows):
            return
        pair = [(_plain(_at(xs, i)), _value(_at(ys, i))) for i in range(count)]
        pair = [(x, y) if trace.orientation != "h" else (_value(_at(xs, i)), _plain(_at(ys, i)))
                for i, (x, y) in enumerate(pair)]
        trace.customdata = [[*row, x, y] for row, (x, y) in zip(rows, pair)]
        trace.hovertemplate = ("(%{customdata[" + str(width) + "]}" + list_separator() + "%{customdata["
                               + str(width + 1) + "]})")
        return
    if not isinstance(template, str):
        return

    def value(letter: str, index: str | None, row: list[Any], point: int) -> Any:
        if letter == "customdata":
            return _at(row, int(index or 0))
        return _at({"x": xs, "y": ys}.get(letter), point)

    done = _written(template, rows, value)
    if done is not None:
        trace.hovertemplate, trace.customdata = done


def _write_cells(trace: Any) -> None:
    """`written_hovers` for a heatmap, a point per cell (row i at y[i], column j at x[j])."""
    template, grid = trace.hovertemplate, trace.z
    if not isinstance(template, str) or grid is None:
        return
    shape = [(i, j) for i, row in enumerate(grid) for j in range(len(row))]
    old = trace.customdata
    rows = [_columns(old[i][j]) if old is not None else [] for i, j in shape]

    def value(letter: str, index: str | None, row: list[Any], point: int) -> Any:
        i, j = shape[point]
        if letter == "customdata":
            return _at(row, int(index or 0))
        return {"x": lambda: _at(trace.x, j), "y": lambda: _at(trace.y, i), "z": lambda: grid[i][j]}[letter]()

    done = _written(template, rows, value)
    if done is None:
        return
    trace.hovertemplate, written = done
    cells = iter(written)
    trace.customdata = [[next(cells) for _j in range(len(row))] for row in grid]


def show(fig: go.Figure, key: str, where: Any = None, *, name: str | None = None,
         table: pd.DataFrame | None = None, note: str | None = None) -> None:
    """Draw `fig` with the shared config in `where` (a column or container; default: the page), named for a screen
    reader by `name` (default: the figure's title) and followed by a folded table of its numbers: `table` if given,
    else what `figure_table` reads off the figure, with `note` (translated text: how to read the table) as a caption
    above it, and TABLE_SCROLLS above a table of WIDE_TABLE columns or more. A ValueError when the chart would have
    no name or no numbers."""
    label = " ".join((name or _plain(fig.layout.title.text)).split())
    numbers = table if table is not None else figure_table(fig)
    if not label or numbers is None or numbers.empty:
        raise ValueError(f"The chart '{key}' needs a name and a table of its numbers (name=..., table=...).")
    wrap_title(fig)
    wrap_subplot_titles(fig)
    distinguish(fig)
    place = where if where is not None else st
    box = place.container()
    box.html(f'<span class="sv-sr-only {CHART_NAME_CLASS}" aria-hidden="true">'
             f'{escape_text(_(TABLE_NOTE, name=label, table=_(NUMBERS_LABEL)), whitespace=False)}</span>')
    box.plotly_chart(localize(fig), key=key, config=CONFIG, width="stretch")
    with box.expander(_(NUMBERS_LABEL)):
        if note:
            st.caption(note)
        if len(numbers.columns) >= WIDE_TABLE:
            st.caption(_(TABLE_SCROLLS))
        shown = table_cells(numbers)
        st.table(shown.set_index(shown.columns[0]))


PATTERNS = ("", "/", ".", "x", "\\", "+", "-", "|")  # bar fills: the first series solid, the others hatched
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x", "star", "triangle-down")

# One fill pattern per quantity of a step's time (Plotly's `marker.pattern.shape`, and the colour it is drawn in), on
# every chart that splits a step: the race's lanes and the Speedup lab's "Where the time goes" (read 53: the lab's
# `distinguish` gave the draft the solid fill and the target forward stripes, the race the other way round). The
# target forward stays solid: the race writes its "+n" emitted count on it.
PHASE_PATTERNS = {"prefill": (".", "#333333"), "draft": ("\\", "#FFFFFF"), "verify": ("", ""),
                  "overhead": ("x", "#FFFFFF"), "untimed": ("/", GREY)}


def phase_pattern(phase: str) -> dict:
    """A bar's `marker.pattern` for one quantity of a step's time (`PHASE_PATTERNS`): its shape drawn in its colour
    over the bar's own fill; the target forward's is solid (an empty shape).

    >>> phase_pattern("overhead")["shape"], phase_pattern("verify")
    ('x', {'shape': ''})
    """
    shape, color = PHASE_PATTERNS[phase]
    return dict(shape=shape, fgcolor=color, fillmode="overlay", solidity=0.3) if shape else dict(shape="")


def distinguish(fig: go.Figure) -> go.Figure:
    """Give every series a chart's legend names a cue besides its colour: two bar series the same fill got a
    hatch, two lines the same dash and marker got another marker (or, without markers, another dash). The Speedup
    lab's K = 2 and K = 4 bars and lines, the Sandbox's p and q bars, the Exactness lab's samples and the race's
    phases differed by colour alone (read 49), which a reader who cannot tell the colours apart (or a grey print)
    could not match to their legend. A cue a series already has is kept; series of one name (one per lane) share
    their cue.

    >>> fig = distinguish(go.Figure([go.Bar(y=[1], name="K = 2"), go.Bar(y=[2], name="K = 4"),
    ...                              go.Scatter(y=[1, 2], name="a", mode="lines+markers"),
    ...                              go.Scatter(y=[2, 1], name="b", mode="lines+markers")]))
    >>> [t.marker.pattern.shape for t in fig.data[:2]], [t.marker.symbol for t in fig.data[2:]]
    ([None, '/'], [None, 'square'])
    """
    if fig.layout.showlegend is False:
        return fig
    named = [t for t in fig.data if t.name and t.showlegend is not False and t.type in ("bar", "scatter")]
    bars = list(dict.fromkeys(t.name for t in named if t.type == "bar"))
    if len(bars) > 1:
        given = {t.name: t.marker.pattern.shape for t in fig.data if t.type == "bar" and t.marker.pattern.shape}
        free = iter(shape for shape in PATTERNS if shape not in given.values())
        shapes = {name: given[name] if name in given else next(free, "") for name in bars}
        for t in fig.data:
            if t.type == "bar" and t.name in shapes and not t.marker.pattern.shape and shapes[t.name]:
                t.marker.pattern.update(shape=shapes[t.name], fillmode="overlay", solidity=0.3)
    lines = [t for t in named if t.type == "scatter"]
    cues: set[tuple[str, str]] = set()
    for t in lines:
        mode = t.mode or "lines"
        dash = (t.line.dash or "solid") if "lines" in mode else ""
        symbol = (t.marker.symbol or "circle") if "markers" in mode else ""
        if (dash, symbol) in cues and "markers" in mode and not t.marker.symbol:
            symbol = next((s for s in SYMBOLS if (dash, s) not in cues), symbol)
            t.marker.symbol = symbol
        elif (dash, symbol) in cues and "lines" in mode and not t.line.dash:
            dash = next((d for d in DASHES if (d, symbol) not in cues), dash)
            t.line.dash = dash
        cues.add((dash, symbol))
    return fig


def table_cells(table: pd.DataFrame) -> pd.DataFrame:
    """`table` as `st.table` must get it: it reads every cell and header as markdown, so a token "-" was an empty
    bullet and "$x$" math (read 45); each text is `escape_cell`'s, which leaves numbers and words as they are."""
    def cell(value: Any) -> Any:
        return escape_cell(value) if isinstance(value, str) else value

    shown = table.map(cell)
    shown.columns = [cell(c) for c in table.columns]
    return shown


TITLE_LINE = 40  # characters: what a chart title fits on one line of a 390 px phone
TITLE_PAD = 8  # pixels above a wrapped title and between it and the plot


def wrap_title(fig: go.Figure, line: int = TITLE_LINE) -> go.Figure:
    """Break a long plain chart title into lines of at most `line` characters (Plotly never wraps one, so a phone
    cut it off), and give the extra lines room above the plot.

    Plotly's own placement ("auto") puts a title's first line at the middle of the top margin and the others below
    it, so a wrapped title ran into the plot: its third line over the axis of lesson 10's chart in Portuguese at
    390 px, a second line's descenders over the Theory explorer's (read 43). A wrapped title placed by Plotly is
    hung from the top of the figure instead, with its lines' height and TITLE_PAD above and below it in the margin.
    A title its figure already broke into lines (`<br>` its only markup: a step's charts, which made their own room)
    is hung the same way: the Playground's three-line Portuguese title of a tree step's recovered token ran into its
    plot on a phone (read 44).

    >>> fig = wrap_title(go.Figure(layout=dict(title="The break-even line moves up as the batch grows",
    ...                                        margin=dict(t=40))))
    >>> fig.layout.title.text, fig.layout.title.yanchor, fig.layout.margin.t
    ('The break-even line moves up as the<br>batch grows', 'top', 64)
    >>> fig = wrap_title(go.Figure(layout=dict(title="one<br>two<br>three", margin=dict(t=100))))
    >>> fig.layout.title.yanchor, fig.layout.margin.t
    ('top', 100)
    """
    title = fig.layout.title.text
    broken = bool(title) and "<br>" in title and "<" not in title.replace("<br>", "")
    if broken:
        lines = title.split("<br>")
    elif not title or "<" in title or len(title) <= line:
        return fig
    else:  # "T = 0" and "K = 4" kept on one line: a break read "…, T =" over "0" (read 47)
        lines = _lines(re.sub(r"(?<=\S) = (?=[−-]?\d)", "\u00a0=\u00a0", title), line)
    top = fig.layout.margin.t if fig.layout.margin.t is not None else 80
    need = 0
    if fig.layout.title.y is None:
        size = fig.layout.title.font.size or 17  # Plotly's title font: 17 px unless the figure sets one
        # "top" hangs the first line by its baseline: its letters rose about a font size above the pad, out of the
        # figure (measured in Chromium), so the pad adds that size
        fig.update_layout(title_y=1, title_yref="container", title_yanchor="top", title_pad_t=TITLE_PAD + size)
        need = TITLE_PAD + round(1.4 * size) * len(lines) + TITLE_PAD  # 1.4 × the size: a line's height
    fig.update_layout(title_text="<br>".join(lines),
                      margin_t=max(top if broken else top + 20 * (len(lines) - 1), need))
    return fig


AXIS_TITLE_LINE = 16  # characters: a vertical axis title that fits a 140 px tall plot (the Speedup lab's dtype chart
# on a 390 px phone, its legend below it); "tempo / passagem de um token" in one line was 196 px tall (read 44)


def wrap_axis_title(text: str, line: int = AXIS_TITLE_LINE) -> str:
    """A long plain axis title in lines of at most `line` characters, for a vertical axis whose plot is short on a
    phone: Plotly never wraps one, and a title taller than its plot is cut off. A chart's table reads the break as a
    space (`figure_table`).

    >>> wrap_axis_title("tempo / passagem de um token"), wrap_axis_title("speedup")
    ('tempo / passagem<br>de um token', 'speedup')
    """
    if not text or "<" in text or len(text) <= line:
        return text
    return "<br>".join(_lines(text, line))


def _lines(text: str, line: int) -> list[str]:
    """`text` in lines of at most `line` characters, broken between words only (a longer word keeps a line alone),
    and outside parentheses where that fits as many lines: the p/q sandbox's formula title broke as "p = min(p, q) +
    (1 − α)·norm(max(0, p −" over "q))" (read 44).

    >>> _lines("p = min(p, q) + (1 − α)·norm(max(0, p − q))", 40)
    ['p = min(p, q) +', '(1 − α)·norm(max(0, p − q))']
    """
    lines = textwrap.wrap(text, line, break_long_words=False, break_on_hyphens=False) or [""]
    words = [word for word in text.split(" ") if word]  # a no-break space joins, as textwrap reads it
    if len(lines) < 2 or all(_depth(" ".join(words[:i])) == 0 for i in _breaks(lines)):
        return lines
    kept, start = [], 0
    while start < len(words):  # the longest line that fits and ends where every parenthesis opened is closed
        ends = [i for i in range(start + 1, len(words) + 1)
                if len(" ".join(words[start:i])) <= line and (i == len(words) or _depth(" ".join(words[:i])) == 0)]
        if not ends:
            return lines
        kept.append(" ".join(words[start:ends[-1]]))
        start = ends[-1]
    return kept if len(kept) == len(lines) else lines


def _breaks(lines: list[str]) -> list[int]:
    """The word counts at which `lines` break."""
    counts = [len([word for word in a.split(" ") if word]) for a in lines]  # as `_lines` counts words
    return [sum(counts[:i + 1]) for i in range(len(counts) - 1)]


def _depth(text: str) -> int:
    """How many parentheses `text` leaves open."""
    return text.count("(") - text.count(")")


def wrap_subplot_titles(fig: go.Figure, line: int = TITLE_LINE) -> go.Figure:
    """Break the panels' titles of a grid of plots (make_subplots' title annotations) into lines of their panel's
    share of a phone-wide title line: side by side, two long titles ran into each other (the Serving lab's live
    counters at 1400 x 900).

    >>> from plotly.subplots import make_subplots
    >>> fig = wrap_subplot_titles(make_subplots(rows=1, cols=2, subplot_titles=("acceptance rate (accepted / "
    ...                                         "drafted)", "tokens per second")))
    >>> [a.text for a in fig.layout.annotations]
    ['acceptance rate<br>(accepted / drafted)', 'tokens per second']
    """
    titles = [a for a in fig.layout.annotations if a.text and "<" not in a.text and a.showarrow is False
              and a.xref == "paper" and a.yref == "paper" and a.yanchor == "bottom"]
    if not titles:
        return fig
    columns = max(sum(1 for b in titles if abs(b.y - a.y) < 1e-6) for a in titles)
    width = max(16, line // columns)
    most = 1
    for a in titles:
        lines = _lines(a.text, width)
        a.text, most = "<br>".join(lines), max(most, len(lines))
    # Room above the top panels: their titles grow upwards from the plot's top edge, about 18 px a line, and a
    # chart's own title sits with its baseline at the middle of the top margin (Plotly's "auto"), so it needs the
    # upper half of the margin to itself.
    top = fig.layout.margin.t if fig.layout.margin.t is not None else 80
    need = 18 * most + (18 * most + 14 if fig.layout.title.text else 10)
    if need > top:
        fig.update_layout(margin_t=need)
    return fig


def figure_table(fig: go.Figure, max_rows: int = 200) -> pd.DataFrame | None:
    """The points of a figure's line, marker and bar traces as one table: a row per x value (the category, K, α...),
    a column per trace, values as the trace's hover writes them (its `%{y:.3f}`: 3 decimals, so the table never
    reads 2.8 where the hover reads 2.801) or else to three significant figures, a number from 1,000 up in full ("–"
    where a trace has no point). Horizontal bars are read along their y axis. A figure with only a heatmap becomes
    its grid: a row per y value, a column per x value. None when there is nothing to read. At most `max_rows` rows:
    past them a last row says how many more the chart has, so the table never passes for all of a chart it cut.
    Linear in the number of points (a numeric axis is sorted once), so a chart of a million points costs a page no
    more than drawing it.

    >>> fig = go.Figure([go.Bar(x=["a", "b"], y=[1.0, 2.5], name="bars"), go.Scatter(x=["b"], y=[0.123456],
    ...                  name="line")], layout={"xaxis_title": "kind"})
    >>> figure_table(fig).to_dict("records")
    [{'kind': 'a', 'bars': '1', 'line': '–'}, {'kind': 'b', 'bars': '2.5', 'line': '0.123'}]
    >>> figure_table(go.Figure(go.Heatmap(x=[1, 2], y=["K=1"], z=[[0.5, 0.25]]))).to_dict("records")
    [{'y': 'K=1', '1': '0.5', '2': '0.25'}]
    """
    columns: dict[str, dict[str, str]] = {}
    order: dict[str, float | None] = {}  # the x labels in first-seen order, each with its number (None for a word)
    x_title = ""
    for index, trace in enumerate(fig.data):
        if trace.type not in ("scatter", "bar") or trace.x is None or trace.y is None:
            continue
        horizontal = getattr(trace, "orientation", None) == "h"
        xs, ys = (trace.y, trace.x) if horizontal else (trace.x, trace.y)
        if all(x is None for x in xs):  # a legend key with no point of its own (x=[None]): nothing to read
            continue
        x_title = x_title or _axis_title(fig, "y" if horizontal else "x") or _("category")
        value_axis = (fig.layout.xaxis if horizontal else fig.layout.yaxis).title.text
        name = _plain(trace.name) or _plain(value_axis) or _("series {number}", number=index + 1)
        while name in columns or name == x_title:
            name += " "
        column = columns.setdefault(name, {})
        digits = _hover_digits(trace, "x" if horizontal else "y")
        for x, y in zip(xs, ys):
            label = _plain(x)
            if label not in column:
                column[label] = _value(y, digits)
                if label not in order:  # the x value itself, not its label read back: "1,331" is no decimal
                    order[label] = float(x) if _is_number(x) else _number(label)
    if not columns or not order:
        return _heatmap_table(fig, max_rows)
    labels = list(order)
    numeric = list(order.values())
    if None not in numeric:  # traces over the same numeric axis, each with its own points: one ascending x column
        labels = [label for _x, label in sorted(zip(numeric, labels))]
    rows = labels[:max_rows]
    table = {x_title: rows, **{name: [col.get(r, "–") for r in rows] for name, col in columns.items()}}
    return _with_rest(pd.DataFrame(table), len(labels) - len(rows))


# read 52 (the sandbox's tables), read 53 (lesson 6's "How many tokens a step emits": 0.25 + 0.188 + 0.141 + 0.422)
# read 55: a value near 1 gets more figures than three (`_figures_off_1`), and the note says so
ROUNDED_NOTE = N_("The values are rounded to three significant figures (more where a value near 1 would otherwise be "
                  "written 1), so a column, as written, can add up to a little more or less than its exact total (1 "
                  "for a distribution).")

# read 54: the p = min(p, q) + (1 − α)·norm(max(0, p − q)) split's two parts, one name each on the two pages that
# draw it (the Exactness lab said "accepted drafts: min(p, q)" where the Sandbox said "min(p, q): kept drafts")
ACCEPTED_PART = N_("accepted drafts: min(p, q)")
RECOVERED_PART = N_("recovered: (1 − α)·norm(max(0, p − q))")
# read 55: at one position of a real text (the Exactness lab) the sum Σ min(p, q) is β (α = E[β]), as the chart's
# title writes it; the Sandbox's one p and q are the whole model, where α = β
RECOVERED_AT_POSITION = N_("recovered: (1 − β)·norm(max(0, p − q))")


def rounded_note(fig: go.Figure) -> str | None:
    """`ROUNDED_NOTE`, translated, for `show`'s `note` where the figure's table, as written, does not add up to what
    its values do (`rounding_shows`); else None. A trace whose hover names its decimals (`%{y:.3f}`), which the
    table then writes, gets a note that says so instead (read 53: at α = 0.75, K = 3 the Theory page's chances
    read 0.250 + 0.188 + 0.141 + 0.422 = 1.001 with no note).

    >>> rounded_note(go.Figure(go.Bar(x=[1, 2], y=[0.3495, 0.6505])))[:54]
    'The values are rounded to three significant figures (m'
    >>> rounded_note(go.Figure(go.Bar(x=[1, 2], y=[0.3495, 0.6505], hovertemplate="%{y:.3f}")))[:45]
    'The values are rounded to 3 decimal places, s'
    >>> rounded_note(go.Figure(go.Bar(x=[1, 2], y=[0.25, 0.75], hovertemplate="%{y:.3f}"))) is None
    True
    """
    digits = next(iter(_rounded_traces(fig)), False)
    if digits is False:
        return None
    if digits is None:
        return _(ROUNDED_NOTE)
    return ngettext("The values are rounded to {n} decimal place, so a column, as written, can add up to a little "
                    "more or less than its exact total (1 for a distribution).",
                    "The values are rounded to {n} decimal places, so a column, as written, can add up to a little "
                    "more or less than its exact total (1 for a distribution).", digits)


def rounding_shows(fig: go.Figure) -> bool:
    """Whether a bar or line trace's values, as `figure_table` writes them, add up to other than the values do (by
    more than 1e-9): a table where a column of shares that adds up to 1 reads 1.0005 must say it is rounded (read 52:
    the sandbox's 699 of 2,000 simulated "the" tokens, 0.3495, is written 0.35, and its column read 1.0005).

    >>> rounding_shows(go.Figure(go.Bar(x=["a", "b"], y=[0.3495, 0.6505]))), rounding_shows(go.Figure(go.Bar(
    ...     x=["a", "b"], y=[0.35, 0.65])))
    (True, False)
    """
    return any(True for _digits in _rounded_traces(fig))


def _rounded_traces(fig: go.Figure):
    """For each bar or line trace whose column misses its total as written (`rounding_shows`), the decimals its
    hover writes it with (None: three significant figures)."""
    for trace in fig.data:
        if trace.type not in ("scatter", "bar") or trace.x is None or trace.y is None:
            continue
        letter = "x" if getattr(trace, "orientation", None) == "h" else "y"
        values = [float(y) for y in (trace.x if letter == "x" else trace.y) if _is_number(y)]
        digits = _hover_digits(trace, letter)
        written = [Decimal(repr(_written_value(y, digits))) for y in values]
        if abs(float(sum(written)) - math.fsum(values)) > 1e-9:
            yield digits


def _written_value(y: float, digits: int | None) -> float:
    """`y` as `_value` writes it, read back as a number."""
    if digits is not None:
        return as_written(y, digits)
    if "e+" in f"{_three_figures(y):.3g}":
        return as_written(y, 0)
    return _three_figures(y, _figures_off_1(y))


def _axis_title(fig: go.Figure, letter: str) -> str:
    """The title of the figure's first `letter` axis that has one: in a grid of panels sharing their x axes only the
    bottom row's carries it (the Serving lab's live counters), and the table's first column still needs its name."""
    names = sorted((name for name in fig.layout if re.fullmatch(letter + r"axis[0-9]*", name)),
                   key=lambda name: int(name[5:] or 1))
    return next((title for title in (_plain(fig.layout[name].title.text) for name in names) if title), "")


def _with_rest(table: pd.DataFrame, left_out: int) -> pd.DataFrame:
    """`table` with a last row saying how many more rows the chart has, when it has any."""
    if left_out <= 0:
        return table
    rest = {column: "" for column in table.columns}
    rest[table.columns[0]] = _("… and {count} more not listed here", count=number(left_out, 0))
    return pd.concat([table, pd.DataFrame([rest])], ignore_index=True)


def _is_number(value: Any) -> bool:
    return isinstance(value, Number) and not isinstance(value, bool) and math.isfinite(float(value))


def _number(label: str) -> float | None:
    """A table label read back as a number (either decimal sign), or None."""
    try:
        return float(with_decimal_point(label))
    except ValueError:
        return None


def _heatmap_table(fig: go.Figure, max_rows: int) -> pd.DataFrame | None:
    """The first heatmap's grid, a row per y value and a column per x value; None without a heatmap."""
    trace = next((t for t in fig.data if t.type == "heatmap" and t.z is not None), None)
    if trace is None:
        return None
    grid = [list(row) for row in trace.z]
    xs = list(trace.x) if trace.x is not None else list(range(len(grid[0]) if grid else 0))
    ys = list(trace.y) if trace.y is not None else list(range(len(grid)))
    y_title = _plain(fig.layout.yaxis.title.text) or "y"
    table = pd.DataFrame({y_title: [_plain(y) for y in ys[:max_rows]],
                          **{_plain(x) or " ": [_value(row[j]) for row in grid[:max_rows]] for j, x in enumerate(xs)}})
    return _with_rest(table, len(grid) - max_rows)


def _plain(value: Any) -> str:
    """A label as plain text: Plotly's tags (<br>, <b>...) become spaces and its entities characters again (the
    table escapes on its own), numbers get three significant figures."""
    if value is None:
        return ""
    if isinstance(value, Number) and not isinstance(value, bool):
        return _value(value)
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", str(value))).split())  # Plotly's tags as spaces


def _hover_digits(trace: Any, letter: str) -> int | None:
    """The decimals a trace's hover writes its `letter` value with (`%{y:.3f}` or `%{y:,.3f}`: 3), or None when its
    hover names no fixed-point format for it (one template for all its points, not a list)."""
    template = trace.hovertemplate
    if not isinstance(template, str):
        return None
    found = re.search(r"%\{" + letter + r":,?\.(\d+)f\}", template)
    return int(found.group(1)) if found else None


def _value(y: Any, digits: int | None = None) -> str:
    """A plotted value as the table writes it: "–" for no point (None, NaN or infinite, a NumPy float32's too);
    with `digits` decimals when given (its hover's), else three significant figures, a negative one with the minus
    sign U+2212 and a zero with no sign, as `number` writes them (read 51: "-0.124" and "-0" had a hyphen).

    >>> _value(-0.1235), _value(-0.0), _value(2.625), _value(1234.5), _value(0.99998), _value(1.0), _value(1.0004)
    ('−0.124', '0', '2.63', '1,235', '0.99998', '1', '1.0004')
    """
    if y is None or (isinstance(y, Real) and not isinstance(y, bool) and not math.isfinite(float(y))):
        return "–"
    if digits is not None and isinstance(y, Number) and not isinstance(y, bool):
        return number(float(y), digits)
    if isinstance(y, Number) and not isinstance(y, bool):
        figures = _figures_off_1(float(y))
        text = f"{_three_figures(float(y), figures):.{figures}g}"
        if "e+" in text:  # 1331 is "1,331" (1.331 in Portuguese), not 1.33e+03
            return number(float(y), 0)
        return with_minus(localized(text), keep_negative_zero=False)  # −0.124 as `number` writes it; 0, not -0
    return str(y)


def _figures_off_1(y: float) -> int:
    """The significant figures a table writes `y` with: 3, or as many more (up to 12) as keep a value near 1 from
    reading 1, the project's point mass and a speedup's tie (read 55: at T = 0.15 the sandbox's q of "the", 0.99998,
    read "1" beside q = 6.49e-06 for three other tokens; above 1, a speedup of 1.0004 read "1"). Within 1e-12 of 1
    is the float noise of an exact 1.

    >>> _figures_off_1(0.5), _figures_off_1(0.99998), _figures_off_1(1 - 1e-16), _figures_off_1(1.0004)
    (3, 5, 3, 5)
    >>> _figures_off_1(1.004), _figures_off_1(1 + 1e-16), _figures_off_1(1.5)
    (4, 3, 3)
    """
    figures = 3
    while 0 < y < 1 - 1e-12 and figures < 12 and _three_figures(y, figures) >= 1:
        figures += 1
    while 1 + 1e-12 < y < 2 and figures < 12 and _three_figures(y, figures) <= 1:
        figures += 1
    return figures


def _three_figures(y: float, figures: int = 3) -> float:
    """`y` rounded to three (or `figures`) significant figures as `number` rounds: its shortest repr, a tie away
    from zero. The
    format spec ".3g" alone rounds the binary double, so a chart's table and hover wrote 21 / 8 = 2.625 "2.62" and
    9 / 8 = 1.125 "1.12" where every other number on a page is "2.63" and "1.13" (`core.i18n.half_up`; read 51).

    >>> [f"{_three_figures(v):.3g}" for v in (2.625, 1.125, 9.995, -0.1235, 0.0)]
    ['2.63', '1.13', '10', '-0.124', '0']
    """
    exact = Decimal(repr(y))
    if not exact or not exact.is_finite():
        return y
    with half_up():
        return float(exact.quantize(Decimal(1).scaleb(exact.adjusted() - figures + 1)))
