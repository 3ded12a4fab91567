"""Timeline & race: the charts. One time axis (the wall clock in a live race, the recording's own clock in an
example) with a lane per method (speculative steps as draft + verify segments, target-only decoding as one forward
per token, and the tree lane when the race has one), the output tokens against time, and their legends as HTML that
wraps on a phone.
"""

from __future__ import annotations

from decimal import Decimal
from itertools import pairwise

import pandas as pd
import plotly.graph_objects as go

from specviz.core.i18n import N_, _, fewest_digits, half_up, ngettext, number
from specviz.engine.trace import TokenKind, Trace
from specviz.labs.timeline import Interval, step_intervals, tokens_over_time, untimed_seconds
from specviz.ui.common.charts import PHASE_PATTERNS, phase_pattern
from specviz.ui.common.escaping import escape_text
from specviz.ui.common.palette import COLORS, LIGHT_GREY, P_COLOR, Q_COLOR
from specviz.ui.race.tree import CHAIN_LANE, TREE_LANE

# The words below are marked with N_() and translated with _() where they are shown (never at import).
SPEC_LANE, BASE_LANE = N_("speculative"), N_("target only")
PHASE_COLORS = {"prefill": LIGHT_GREY, "draft": Q_COLOR, "verify": P_COLOR, "overhead": "#333333",
                "untimed": "#E3E3E3"}  # pale and hatched: the prefill's grey starts a lane, this ends it
# Each segment's fill pattern (`PHASE_PATTERNS`, specviz.ui.common.charts: the Speedup lab's time chart uses the same
# ones), so the segments differ by more than colour and order (read 49, WCAG 1.4.1: prefill, draft, target forward and
# the rest of the step differed by colour alone); the HTML legend draws the same pattern in its swatch
# (`swatches_html`). The target forward stays solid: it carries the "+n" emitted count.
# read 45: the draft's name said "propose K tokens", beside a tree step's hover "6 nodes drafted" (K = 3) and a last
# step near the token limit that drafts fewer
PHASE_NAMES = {"prefill": N_("prefill (read the prompt)"),
               "draft": N_("draft: propose up to K tokens"),
               "verify": N_("target forward pass"),
               "overhead": N_("rest of the step: sampling and, when speculating, the rule and the cache rewind"),
               "untimed": N_("between steps: not timed")}
# read 54: the draft's name said "(a tree lane: its nodes)" in every race, in the legend and in each chain step's
# hover, where the race had no tree lane; it says so only beside one (`phase_names`)
TREE_DRAFT_NAME = N_("draft: propose up to K tokens (a tree lane: its nodes)")


def phase_names(tree: bool) -> dict[str, str]:
    """The segments' names (untranslated msgids, as `PHASE_NAMES`) for a race with a tree lane (`tree`) or without:
    the draft's name speaks of a tree lane's nodes only where the race has one. The legend and the hovers both take
    them from here."""
    return {**PHASE_NAMES, "draft": TREE_DRAFT_NAME} if tree else dict(PHASE_NAMES)
# the lanes table's one mark for a cell that does not apply to its row (read 44: some such cells were empty, others
# "–"), and the note under the table's title that says so
NOT_APPLICABLE = "–"
LANES_TABLE_NOTE = N_("A dash (–) marks a cell that does not apply to its row: a prefill row has only its prefill "
                      "time, a step no prefill time, a target-only forward drafts nothing, and a \"between steps\" "
                      "row has only the time no step timed. Each time is the difference of its segment's ends, each "
                      "end rounded to 0.01 ms, so a row's start and times, as written, add up to the next row's "
                      "start; a time so written is within 0.01 ms of the one measured.")


def _at(seconds: float) -> Decimal:
    """A moment (seconds since generation started) in milliseconds, rounded once and half up to 0.01 ms, in decimal.
    Read 52: Python's `round(1000 * seconds, 2)` rounded first (half to even, on the binary double), then `number`
    again, so 1.125 ms read "1.12" and 2.675 ms "2.67" where `number` writes 1.13 and 2.68; and 1000 * 0.001005 is
    1.0049999..., so the milliseconds are scaled in decimal."""
    with half_up():
        return Decimal(repr(float(seconds))).scaleb(3).quantize(Decimal("0.01"))


def _ms(seconds: float) -> str:
    """A moment in milliseconds (`_at`) for a hover or the lanes table, in the reader's number format with two
    decimals: where a bar starts, or a time measured from 0.

    >>> _ms(0.001125), _ms(0.002675), _ms(0.001005), _ms(0.0012449), _ms(0.0)
    ('1.13', '2.68', '1.01', '1.24', '0.00')
    """
    return number(float(_at(seconds)), 2)


def _span(start: float, end: float) -> str:
    """The time from `start` to `end` as the lanes table and the hovers write it: the difference of its two ends, each
    rounded to 0.01 ms (`_at`), so the parts of a step, as written, add up to the step as written and a row's start
    plus its parts to the next row's start. Read 54: each part was rounded on its own, and in the recorded races 197
    of 535 rows' start and parts, as written, missed the next row's start by 0.01 ms ("212.11 + 0.28 + 125.93 +
    1.67" = 339.99 beside a next start of 339.98). A part so written differs from the time measured by less than
    0.01 ms (`LANES_TABLE_NOTE` says so).

    >>> [_span(a, b) for a, b in ((0.0, 0.001125), (0.001125, 0.00224), (0.0, 0.00224))]
    ['1.13', '1.11', '2.24']
    """
    return number(float(_at(end) - _at(start)), 2)


def step_times(bar: Interval) -> dict[str, str]:
    """A step's draft, target forward, rest of the step and whole step (`total`) as its hover and the lanes table
    write them (`_span`): the three parts, as written, add up to the total as written."""
    return dict(draft=_span(bar.start, bar.draft_end), forward=_span(bar.draft_end, bar.verify_end),
                rest=_span(bar.verify_end, bar.end), total=_span(bar.start, bar.end))


def _lane_bars(fig: go.Figure, lane: str, bars: list[Interval], *, speculative: bool, legend: set[str],
               tree: bool = False, with_tree: bool = False) -> None:
    """Add one lane: the prefill, then each step's draft, verify and overhead segments. A `tree` lane's steps name
    their drafted nodes (`Interval.k` is `Step.n_drafted`), not K, which is a tree's depth. `with_tree`: the race has
    a tree lane, so the draft's name (`phase_names`) speaks of its nodes."""
    segments: dict[str, list[tuple[float, float, Interval]]] = {"prefill": [], "draft": [], "verify": [],
                                                                 "overhead": []}
    for bar in bars:
        if bar.phase == "prefill":
            segments["prefill"].append((bar.start, bar.end, bar))
            continue
        segments["draft"].append((bar.start, bar.draft_end, bar))
        segments["verify"].append((bar.draft_end, bar.verify_end, bar))
        segments["overhead"].append((bar.verify_end, bar.end, bar))
    names = {phase: _(name) for phase, name in phase_names(with_tree or tree).items()}
    for phase, segs in segments.items():
        segs = [s for s in segs if s[1] > s[0]]
        if not segs:
            continue
        if phase == "prefill":
            hover = [_("<b>{lane}</b><br>prefill: {ms} ms", lane=lane, ms=_span(s, e)) for s, e, _b in segs]
        elif speculative and tree:
            hover = [_tree_step_hover(b, names[phase]) for _s, _e, b in segs]
        elif speculative:  # `b.k` is what this step drafted, not the run's K: a last step near the limit drafts fewer
            hover = [_("<b>step {step}</b> ({phase})<br>drafted {drafted}, accepted {accepted}, emitted {emitted}<br>"
                       "draft {draft} ms, target forward {forward} ms, rest of the step {rest} ms, step {total} ms",
                       step=b.index + 1, phase=names[phase], drafted=b.k, accepted=b.n_accepted,
                       emitted=b.n_emitted, **step_times(b)) for _s, _e, b in segs]
        else:  # read 46: one "{ms} ms", the whole step, under "target forward" beside the table's forward alone
            hover = [_("<b>target forward {index}</b><br>emitted 1 token<br>target forward {forward} ms, rest of the "
                       "step {rest} ms, step {total} ms", index=b.index + 1, **step_times(b)) for _s, _e, b in segs]
        text = [f"+{b.n_emitted}" for _, _, b in segs] if (speculative and phase == "verify") else None
        fig.add_trace(go.Bar(
            y=[lane] * len(segs), x=[e - s for s, e, _ in segs], base=[s for s, _, _ in segs], orientation="h",
            name=names[phase], legendgroup=names[phase], showlegend=names[phase] not in legend,
            marker=dict(color=PHASE_COLORS[phase], line=dict(color="white", width=0.6), pattern=phase_pattern(phase)),
            text=text, textposition="inside", insidetextanchor="middle", textfont=dict(color="white", size=11),
            hovertext=hover, hoverinfo="text",
        ))
        legend.add(names[phase])


def lane_end(trace: Trace) -> float:
    """Where a lane ends on the chart: its run's wall time, the one its tokens/s divides by (the timed prefill and
    steps, then what no timer counted), or the timed bars' end if that is later."""
    return step_intervals(trace)[-1].end + untimed_seconds(trace)


def _untimed_bar(fig: go.Figure, lane: str, trace: Trace, legend: set[str]) -> None:
    """The run's time that no step timed (`untimed_seconds`), as one grey segment after the lane's last step, so the
    lane ends at the wall time its tokens/s divides by. Nothing when there is none."""
    gap = untimed_seconds(trace)
    if gap <= 0:
        return
    name = _(PHASE_NAMES["untimed"])
    end = step_intervals(trace)[-1].end
    hover = _("<b>{lane}</b><br>between steps, not timed: {ms} ms<br>the run took {total} ms", lane=lane,
              ms=_span(end, trace.wall_seconds), total=_ms(trace.wall_seconds))
    fig.add_trace(go.Bar(y=[lane], x=[gap], base=[end], orientation="h", name=name,
                         legendgroup=name, showlegend=name not in legend,
                         marker=dict(color=PHASE_COLORS["untimed"], line=dict(color="white", width=0.6),
                                     pattern=phase_pattern("untimed")),
                         hovertext=[hover], hoverinfo="text"))
    legend.add(name)


def _tree_step_hover(b: Interval, phase: str) -> str:
    """A tree lane's step as its hover reads it: the nodes it drafted, or none on a last step with one token left to
    write (read 45: "0 nó rascunhado" under the catalog's old plural rule; "no node" reads better than a count of
    0)."""
    values = dict(step=b.index + 1, phase=phase, accepted=b.n_accepted, emitted=b.n_emitted, **step_times(b))
    if not b.k:
        return _("<b>step {step}</b> ({phase})<br>no node drafted, accepted {accepted}, emitted {emitted}<br>"
                 "draft {draft} ms, target forward {forward} ms, rest of the step {rest} ms, step {total} ms",
                 **values)
    return ngettext("<b>step {step}</b> ({phase})<br>{nodes} node drafted, accepted {accepted}, emitted "
                    "{emitted}<br>draft {draft} ms, target forward {forward} ms, rest of the step {rest} ms, step "
                    "{total} ms",
                    "<b>step {step}</b> ({phase})<br>{nodes} nodes drafted, accepted {accepted}, emitted "
                    "{emitted}<br>draft {draft} ms, target forward {forward} ms, rest of the step {rest} ms, step "
                    "{total} ms", b.k, nodes=b.k, **values)


def race_figure(spec: Trace, base: Trace, tree: Trace | None = None) -> go.Figure:
    """Two lanes on one time axis: speculative steps (draft + verify) against target-only forwards; with
    `tree`, a third lane between them, where the same proposer drafted trees (the first lane is then the chain)."""
    fig = go.Figure()
    legend: set[str] = set()
    spec_lane, base_lane = _(CHAIN_LANE if tree is not None else SPEC_LANE), _(BASE_LANE)
    with_tree = tree is not None
    _lane_bars(fig, spec_lane, step_intervals(spec), speculative=True, legend=legend, with_tree=with_tree)
    lanes = [base_lane, spec_lane]
    if tree is not None:
        _lane_bars(fig, _(TREE_LANE), step_intervals(tree), speculative=True, legend=legend, tree=True)
        lanes.insert(1, _(TREE_LANE))
    _lane_bars(fig, base_lane, step_intervals(base), speculative=False, legend=legend, with_tree=with_tree)
    named = [(spec_lane, spec), (base_lane, base)] + ([(_(TREE_LANE), tree)] if tree is not None else [])
    for lane, trace in named:
        _untimed_bar(fig, lane, trace, legend)
    end = time_axis_end(spec, base, tree)
    fig.update_layout(
        barmode="overlay", height=300 + 80 * (tree is not None), margin=dict(l=10, r=10, t=10, b=10), bargap=0.35,
        xaxis=dict(title=_("seconds since generation started"), range=[0, end]),
        yaxis=dict(categoryorder="array", categoryarray=lanes),
        showlegend=False, uniformtext=dict(minsize=8, mode="hide"),  # the legend is HTML above it: it wraps
    )
    return fig


def time_axis_end(spec: Trace, base: Trace, tree: Trace | None = None) -> float:
    """Where both race charts' time axes end: 2% past the lane that ends last (`lane_end`)."""
    return max(lane_end(t) for t in (spec, base, tree) if t is not None) * 1.02


def tokens_figure(spec: Trace, base: Trace, tree: Trace | None = None) -> go.Figure:
    """Output tokens against time for every lane, as step lines: jumps of several tokens mean drafts paid off.

    Its time axis is the lanes chart's (`time_axis_end`), and its token axis runs 6% past the longest output. Read
    49: both axes ended at the last point, so the lane that finished last rose to its count in the plot's corner
    (its last jump drawn half outside, no level at its count), and the chart's seconds did not line up with the
    lanes chart's above it under the same axis title."""
    fig = go.Figure()
    most = max(t.num_tokens for t in (spec, base, tree) if t is not None)
    # the count after a colon: it is 0 and 1 too ("1 tokens"); the seconds with as many decimals as the table's
    seconds_format = "%{x:." + str(time_digits(spec, base, tree)) + "f}"  # Plotly's d3 format: "%{x:.3f}"
    hover = _("{seconds} s · output tokens: {count}", seconds=seconds_format, count="%{y}")
    for trace, lane, color in token_lines(spec, base, tree):
        seconds, tokens = tokens_over_time(trace)
        name = _(lane)
        fig.add_trace(go.Scatter(x=seconds, y=tokens, mode="lines",
                                 line=dict(shape="hv", color=color, width=2.5, dash=LANE_DASHES[lane]),
                                 name=lane_tokens(lane, trace.num_tokens),
                                 hovertemplate=hover + "<extra>" + name + "</extra>"))
    fig.update_layout(height=320, margin=dict(l=10, r=10, t=10, b=10), showlegend=False,
                      xaxis=dict(title=_("seconds since generation started"),
                                 range=[0, time_axis_end(spec, base, tree)]),
                      yaxis=dict(title=_("output tokens"), range=[0, max(most, 1) * 1.06]))
    return fig


def lanes_table(spec: Trace, base: Trace, tree: Trace | None = None) -> pd.DataFrame:
    """The race chart's numbers: a row per bar of every lane, its start and its segments in milliseconds, each in
    the column of the chart's segment of that name: the prefill's time under "prefill", each step's or forward's
    draft, target forward and overhead, then a "between steps" row with the run's time that no step timed (the
    chart's grey end segment), when there is any; and the tokens each step drafted, accepted and emitted, as its
    hover says them (a tree step's drafted tokens are its nodes; a target-only forward drafts nothing and reads "–",
    its hover names no draft). The prefill's time once sat under "verify (ms)" with a draft of 0.00 (read 40): the
    chart draws it as the grey prefill, which, with a draft model, is the draft's pass over the prompt too, and a
    target-only lane verifies nothing. The drafted and accepted counts were only in the hover (issue 43). A
    target-only forward's draft time reads "–" too, as its drafted count does (it read 0.00 beside "–"), and so does
    every other cell that does not apply to its row (NOT_APPLICABLE, explained by LANES_TABLE_NOTE; read 44: the
    prefill and "between steps" rows left theirs empty)."""
    lanes = [(_(CHAIN_LANE if tree is not None else SPEC_LANE), spec, True), (_(BASE_LANE), base, False)]
    if tree is not None:
        lanes.insert(1, (_(TREE_LANE), tree, True))
    columns = [_("prefill (ms)"), _("draft (ms)"), _("target forward (ms)"), _("rest of the step (ms)"),
               _("not timed (ms)")]
    counts = [_("tokens drafted"), _("tokens accepted")]  # a step's, as its hover gives them
    rows = []
    for lane, trace, speculative in lanes:
        bars = step_intervals(trace)
        for bar in bars:
            cells = dict.fromkeys(columns + counts, NOT_APPLICABLE)
            if bar.index < 0:
                cells[columns[0]] = _span(bar.start, bar.end)
            else:
                times = step_times(bar)
                cells.update(zip(columns[1:4], (times["draft"] if speculative else NOT_APPLICABLE,
                                                times["forward"], times["rest"])))
                cells.update(zip(counts, (str(bar.k), str(bar.n_accepted)) if speculative
                                 else (NOT_APPLICABLE, NOT_APPLICABLE)))
            rows.append({_("lane"): lane, _("step"): _("prefill") if bar.index < 0 else str(bar.index + 1),
                         _("starts at (ms)"): _ms(bar.start), **cells, _("tokens emitted"): str(bar.n_emitted)})
        if untimed_seconds(trace) > 0:  # the chart's grey end segment: the run's time no step timed
            rows.append({_("lane"): lane, _("step"): _("between steps"), _("starts at (ms)"): _ms(bars[-1].end),
                         **dict.fromkeys(columns[:4], NOT_APPLICABLE),
                         columns[4]: _span(bars[-1].end, trace.wall_seconds),
                         **dict.fromkeys(counts, NOT_APPLICABLE), _("tokens emitted"): "0"})
    return pd.DataFrame(rows)


def time_digits(*traces: Trace | None) -> int:
    """How many decimals the tokens chart's seconds take, in its hover and its table: 3 (a millisecond), or as many
    more (up to 6) as it takes for no two successive points of a lane to read the same time. Read 50: the toy
    example's target-only steps of under a millisecond wrote "0.027" beside 26 output tokens and again beside 27.

    >>> from specviz.engine.trace import Step
    >>> def lane(step_seconds):
    ...     steps = [Step(i, 5 + i, 0, "none", [], [], verify_seconds=step_seconds) for i in range(3)]
    ...     return Trace("autoregressive", {}, [1], [7, 8, 9], steps, prefill_seconds=0.01, wall_seconds=0.02)
    >>> time_digits(lane(0.06)), time_digits(lane(0.0004)), time_digits(lane(0.06), None, lane(0.00004))
    (3, 4, 5)
    """
    def apart(digits: int) -> bool:
        return all(number(a, digits) != number(b, digits) for trace in traces if trace is not None
                   for a, b in pairwise(tokens_over_time(trace)[0]) if b > a)

    return fewest_digits(apart, 3, 6)


def tokens_table(spec: Trace, base: Trace, tree: Trace | None = None) -> pd.DataFrame:
    """The tokens chart's numbers: for every lane, the output length after each step, against time (`time_digits`
    decimals)."""
    digits = time_digits(spec, base, tree)
    rows = [{_("lane"): _(lane), _("seconds since generation started"): number(second, digits),
             _("output tokens"): str(count)}
            for trace, lane, _color in token_lines(spec, base, tree)
            for second, count in zip(*tokens_over_time(trace))]
    return pd.DataFrame(rows)


def token_lines(spec: Trace, base: Trace, tree: Trace | None) -> list[tuple[Trace, str, str]]:
    """(trace, lane name, colour) of each lane's line in the tokens chart."""
    if tree is None:
        return [(spec, SPEC_LANE, COLORS[TokenKind.ACCEPTED]), (base, BASE_LANE, COLORS[TokenKind.TARGET])]
    return [(spec, CHAIN_LANE, COLORS[TokenKind.ACCEPTED]), (tree, TREE_LANE, COLORS[TokenKind.BONUS]),
            (base, BASE_LANE, COLORS[TokenKind.TARGET])]


# Each lane's line has its own dash as well as its colour, so the lines differ by more than colour (read 49: the
# speculative and target-only lines were two solid lines); the HTML legend draws the same dash (CSS's name for it).
LANE_DASHES = {SPEC_LANE: "solid", CHAIN_LANE: "solid", TREE_LANE: "dot", BASE_LANE: "dash"}
CSS_DASHES = {"solid": "solid", "dot": "dotted", "dash": "dashed"}


def lane_tokens(lane: str, n: int) -> str:
    """A lane's name with its output length: "speculative (48 tokens)"."""
    return ngettext("{lane} ({n} token)", "{lane} ({n} tokens)", n, lane=_(lane))


# A Plotly fill pattern as CSS backgrounds over a swatch (4 px apart, as Plotly's default size draws them near it)
CSS_STRIPES = {"/": ("-45deg",), "\\": ("45deg",), "x": ("-45deg", "45deg"), "-": ("0deg",), "|": ("90deg",),
               "+": ("0deg", "90deg")}


def pattern_css(shape: str, color: str) -> str:
    """The CSS that draws Plotly's fill pattern `shape` in `color` over a legend swatch ("" for a solid fill).

    >>> pattern_css("/", "#fff")
    'background-image:repeating-linear-gradient(-45deg,#fff 0 1px,transparent 1px 4px)'
    >>> pattern_css(".", "#333"), pattern_css("", "")
    ('background-image:radial-gradient(#333 1px,transparent 1.5px);background-size:4px 4px', '')
    """
    if not shape:
        return ""
    if shape == ".":
        return f"background-image:radial-gradient({color} 1px,transparent 1.5px);background-size:4px 4px"
    return "background-image:" + ",".join(f"repeating-linear-gradient({angle},{color} 0 1px,transparent 1px 4px)"
                                          for angle in CSS_STRIPES[shape])


def swatches_html(items: list[tuple[str, str]], line: bool = False, dashes: list[str] | None = None,
                  patterns: list[tuple[str, str]] | None = None) -> str:
    """A chart's legend as HTML (colour, label), which wraps on a narrow screen where Plotly's legend would cover the
    chart. Labels are specviz's own words and token counts. Lines (`line`) are drawn with their Plotly `dashes`
    (solid, dash, dot), one per item, so a legend line is matched by its dash, not by its colour alone; boxes with
    their bars' fill `patterns` ((shape, colour) per item, `pattern_css`), so a bar is matched by its pattern too
    (read 49: the race's segments differed by colour alone). An item is
    one block no wider than the legend, so a label longer than a phone's line wraps inside it (read 49: "rest of the
    step: sampling and, when speculating, the rule and the cache rewind", kept on one line, ran 150 px past a 390 px
    phone's edge and was cut off); the swatch keeps to the label's first word (`&nbsp;`)."""
    def swatch(index: int, color: str) -> str:
        if not line:
            fill = pattern_css(*patterns[index]) if patterns else ""
            return f"width:13px;height:13px;border-radius:2px;background-color:{color}" + (f";{fill}" if fill else "")
        dash = CSS_DASHES[dashes[index]] if dashes else "solid"
        return f"width:22px;height:0;border-top:3px {dash} {color}"

    spans = [f'<span style="display:inline-block;max-width:calc(100% - 14px);margin:2px 14px 2px 0;line-height:1.5">'
             f'<span style="display:inline-block;{swatch(i, color)};vertical-align:middle"></span>&nbsp;'
             f'{escape_text(label, whitespace=False)}</span>' for i, (label, color) in enumerate(items)]
    return f'<div style="line-height:1.9;font-size:0.9rem">{"".join(spans)}</div>'
