"""The teacher-paced distribution chart: how the class answered one question, round 1 next to round 2.

Horizontal bars, so a long choice reads whole on a projector and a phone; the count is written on every bar. The
right answer is marked (a ✓ before its label, a bluish-green outline) only when `reveal` is true, so the teacher
can put the chart on the projector before the discussion without giving the answer away. Choice texts come from a
quiz file (perhaps a teacher's upload) or a model's tokens, so they are escaped with `escape_text` (Plotly reads
the entities, and a choice's spaces stay spaces).
"""

from __future__ import annotations

import textwrap

import plotly.graph_objects as go

from specviz.core.i18n import N_, _
from specviz.teach.classroom_paced import Distribution
from specviz.teach.quiz.schema import QuestionKind
from specviz.ui.common.escaping import escape_text
from specviz.ui.common.palette import BLUE, BLUISH_GREEN, SKY_BLUE

# English messages, shown with `_()` (specviz.core.i18n)
TEXT = {
    "round": N_("Round {n}"),
    "round_n": N_("Round {n} ({answered} answered)"),
    "right": "✓ {label}",
    "axis": N_("students"),
    # what a bar is, by the question's kind (read 50: a numeric question's ranges and an ordering's orders were
    # each headed "choice" on the axis and in the table under the chart, and the chart was named "students per
    # choice")
    "choices": N_("choice"),
    "numbers": N_("answer (value or range of values)"),
    "orders": N_("order given"),
}
NAMES = {
    "choices": N_("How the class answered: students per choice, each round"),
    "numbers": N_("How the class answered: students per answer (value or range of values), each round"),
    "orders": N_("How the class answered: students per order given, each round"),
}
ROUND_COLORS = (SKY_BLUE, BLUE)
WRAP, LINES = 46, 4  # characters per label line, lines per label
# a label line's height in font sizes, as Plotly sets a tick label's lines (1.3 em), and the gap between two labels
LINE_EM, LABEL_GAP = 1.3, 18
INK = "#1f1f1f"  # labels dark enough for a projector (the theme's grey washes out)


ORDER_SEP = " → "  # how `specviz.teach.classroom_paced.distribution` joins an ordering's items into one label
ITEM_WORDS = 4  # an item of a long order is cut to its first words: at least this many, more until items differ


def _label(text: str, right: bool, reveal: bool, lines: int | None = LINES) -> str:
    wrapped = textwrap.wrap(text, WRAP, max_lines=lines, placeholder=" …") or [text]
    shown = "<br>".join(escape_text(line, whitespace=False) for line in wrapped)  # Plotly reads entities
    return TEXT["right"].format(label=shown) if reveal and right else shown


def _short_orders(labels: tuple[str, ...]) -> list[str]:
    """Orders ("item → item → …") that do not fit LINES lines with each item cut to its first words, as few as keep
    every two items of the question apart (at least ITEM_WORDS); other labels as they are. Cut at the end, two
    orders of long items that differ only in their last items read alike, and Plotly drew them as one bar (read 49:
    the right order of ci-round-order and the one with its last two items swapped, before the reveal).

    >>> _short_orders(("The cache holds entries → The cache is cut back to the context", "another order"))
    ['The cache holds entries → The cache is cut back to the context', 'another order']
    >>> long = " ".join(f"w{i}" for i in range(60))
    >>> _short_orders((f"{long} → w0 w1 w2 w3 w4 z", "another order"))
    ['w0 w1 w2 w3 w4 w5… → w0 w1 w2 w3 w4 z', 'another order']
    """
    orders = [label.split(ORDER_SEP) for label in labels]
    if all(len(items) < 2 or len(label) <= WRAP * LINES for items, label in zip(orders, labels, strict=True)):
        return list(labels)
    items = {item for order in orders if len(order) > 1 for item in order}
    longest = max(len(item.split()) for item in items)
    words = next((n for n in range(ITEM_WORDS, longest + 1)
                  if len({" ".join(item.split()[:n]) for item in items}) == len(items)), longest)

    def cut(item: str) -> str:
        split = item.split()
        return item if len(split) <= words else " ".join(split[:words]) + "…"

    return [ORDER_SEP.join(cut(item) for item in order) if len(order) > 1 else label
            for order, label in zip(orders, labels, strict=True)]


def _bars(dist: Distribution) -> str:
    """What one bar of `dist` stands for: "choices", "numbers" or "orders" (a key of TEXT and NAMES)."""
    return {QuestionKind.NUMERIC: "numbers", QuestionKind.ORDERING: "orders"}.get(dist.kind, "choices")


def chart_name(dist: Distribution) -> str:
    """The chart's name for a screen reader, saying what a bar is.

    >>> from specviz.teach.classroom_paced import Distribution
    >>> chart_name(Distribution(("1", "2"), ((1, 0), (0, 0)), (True, False), (1, 0), (1, 0), kind="numeric"))
    'How the class answered: students per answer (value or range of values), each round'
    """
    return _(NAMES[_bars(dist)])


def _labels(dist: Distribution, reveal: bool) -> list[str]:
    """The bars' labels, wrapped, every two apart: Plotly draws two bars with one label as one, and the table under
    the chart reads them as one row. Labels that would still read alike are written whole."""
    texts = _short_orders(dist.labels)
    shown = [_label(text, right, reveal) for text, right in zip(texts, dist.right, strict=True)]
    return [_label(text, right, reveal, lines=None) if shown.count(label) > 1 else label
            for text, right, label in zip(texts, dist.right, shown, strict=True)]


def _bars_px(rounds: int, font_size: int) -> int:
    """The thickness in px of one choice's bars, one a round, side by side."""
    return int((8 + 22 * rounds) * font_size / 14)


def _label_px(labels: list[str], font_size: int) -> int:
    """The height in px of the tallest label's lines (1.3 font sizes a line, as Plotly sets a text's lines)."""
    return round(max((label.count("<br>") + 1 for label in labels), default=1) * LINE_EM * font_size)


def slot_height(labels: list[str], rounds: int, font_size: int = 14) -> int:
    """The height in px of one choice's slot: its label's lines above its bars (one a round), and a gap. Labels sat
    left of the bars once, and Plotly centres those on the slot without keeping them apart (read 50: four choices
    of four lines each were given 62 px each, and at 1400 px each label ran into the next); on a 390 px phone the
    margin they needed was more than Plotly gives, and they were cut at the left edge ("robability min(p(x)…",
    read 55). A label is now written above its bars, across the chart's width.

    >>> slot_height(["one line"], 1), slot_height(["one<br>two<br>three<br>four"], 1)
    (66, 121)
    """
    return _label_px(labels, font_size) + _bars_px(rounds, font_size) + LABEL_GAP


def distribution_figure(dist: Distribution, rounds: int, reveal: bool, font_size: int = 14,
                        min_height: int = 220) -> go.Figure:
    """Round 1 (light) and, once it has started, round 2 (dark) as grouped horizontal bars over the choices, first
    choice on top, each choice's label written above its bars; `reveal` marks the right one. Its height comes from
    the number of choices and their labels' lines (`slot_height`), at least `min_height`; `font_size` and
    `min_height` grow for the presenter view, whose fixed 660 px gave six four-line choices at 22 px 97 px each
    where their labels need 132 (read 51)."""
    labels = _labels(dist, reveal)
    fig = go.Figure()
    for r in range(1, rounds + 1):
        counts = dist.counts[r - 1]
        outline = [BLUISH_GREEN if reveal and right else "rgba(0,0,0,0)" for right in dist.right]
        name = _(TEXT["round_n"], n=r, answered=dist.answered[r - 1])
        # the legend's key is a trace of its own: Plotly draws a bar trace's key with its first bar's outline, so
        # with the right choice first both rounds' keys wore the green "right answer" outline (read 44)
        fig.add_bar(y=[None], x=[None], orientation="h", name=name, legendgroup=f"round{r}", hoverinfo="skip",
                    offsetgroup=f"round{r}",  # the key shares its round's slot: no empty slot beside the bars
                    marker={"color": ROUND_COLORS[r - 1], "line": {"width": 0}})
        fig.add_bar(y=labels, x=list(counts), orientation="h", name=name, legendgroup=f"round{r}", showlegend=False,
                    offsetgroup=f"round{r}",
                    marker={"color": ROUND_COLORS[r - 1], "line": {"color": outline, "width": 4}},
                    text=[str(c) for c in counts], textposition="outside", cliponaxis=False,
                    hovertemplate="%{x}<extra>" + _(TEXT["round"], n=r) + "</extra>")
    most = max([c for r in dist.counts[:rounds] for c in r] or [0])
    text = {"size": font_size, "color": INK}
    fig.update_traces(textfont=text)
    slot, bars = slot_height(labels, rounds, font_size), _bars_px(rounds, font_size)
    below = (bars / 2 + LABEL_GAP / 2) / slot  # from a slot's centre (its bars') down to its end, in slots
    top = (bars / 2) / slot  # from the centre up to the bars' top edge, where the label starts
    for index, label in enumerate(labels):  # each label above its bars, whole at any width (no tick labels)
        fig.add_annotation(text=label, xref="paper", x=0, xanchor="left", yref="y", y=index - top,
                           yanchor="bottom", align="left", showarrow=False, font=text)
    fig.update_layout(
        barmode="group", bargap=1 - bars / slot, font=text, legend_font=text,
        height=max(min_height, slot * len(labels) + 80),
        margin={"l": 10, "r": 30, "t": 10, "b": 40},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0, "traceorder": "normal"},
        xaxis={"title": {"text": _(TEXT["axis"]), "font": text}, "range": [0, max(1, most) * 1.15],
               "dtick": max(1, round(most / 5)), "fixedrange": True, "tickfont": text},
        # first choice on top: the range runs down from above the first label to below the last bars, a slot each
        yaxis={"type": "category", "range": [len(labels) - 1 + below, below - 1], "fixedrange": True,
               "showticklabels": False, "ticks": "", "automargin": True,
               "title": {"text": _(TEXT[_bars(dist)]), "font": text, "standoff": 4}},  # the table's first column too
        plot_bgcolor="white")
    return fig
