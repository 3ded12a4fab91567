"""The Serving page's figures, each a plain function returning a Plotly figure: the live counters over time, the
acceptance by position, and a load sweep's throughput and latency against concurrent streams with the
points where speculation starts and stops paying marked."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from specviz.core.i18n import N_, _, ngettext
from specviz.serving.load import LevelResult
from specviz.serving.metrics import Delta
from specviz.serving.results import PayShape, ServingResult, prompt_name, prompt_word
from specviz.ui.common.palette import BLUE, GREY, ORANGE, VERMILLION

COLORS = {"none": GREY, "ngram": BLUE, "draft": ORANGE, "eagle": VERMILLION}
# How a sweep's speculation is named on screen: "none" and the live sweep's "speculating" are words, translated;
# ngram, draft and eagle are the Serving lab's names for what vLLM was started with (`specviz.serving.server.SPECS`;
# the methods they pass in `--speculative-config` are ngram, draft_model and eagle3, or eagle for an EAGLE-1 drafter),
# shown as they are.
SPEC_WORDS = {"none": N_("no speculation"), "speculating": N_("speculating")}


def spec_name(spec: str) -> str:
    """A sweep's speculation as the reader sees it.

    >>> spec_name("none"), spec_name("eagle")
    ('no speculation', 'eagle')
    """
    return _(SPEC_WORDS[spec]) if spec in SPEC_WORDS else spec


def _streams(levels: list[int]) -> list[list[str]]:
    """Each level's count in words, a hover's customdata column ("1 concurrent stream", "16 concurrent streams")."""
    return [[ngettext("{n} concurrent stream", "{n} concurrent streams", c)] for c in levels]


# The hovers write each figure with the decimals the page's other tables and sentences give it (read 54: the charts'
# tables and hovers wrote three significant figures, "1.6" and "235" beside the verdict's "1.60×" and the level
# table's "234.8"): tokens/s with 1 decimal and latency with 2, as `sweep.level_table`; a speedup with 2, as `times`
THROUGHPUT_HOVER = N_("%{customdata[0]}: %{y:.1f} tokens/s in all")
LATENCY_HOVER = N_("%{customdata[0]}: median latency %{y:.2f} s")
SPEEDUP_HOVER = N_("%{customdata[0]}: %{y:.2f}× the tokens/s without speculation")


def _layout(fig: go.Figure, title: str, height: int = 380) -> go.Figure:
    fig.update_layout(title=title, height=height, margin=dict(l=10, r=10, t=50, b=10), template="plotly_white",
                      legend=dict(orientation="h", yanchor="top", y=-0.25, x=0))
    return fig


def live_figure(deltas: list[Delta], t0: float) -> go.Figure:
    """Four panels over time, one point per scrape window: acceptance rate, mean accepted length, steps with drafts
    per second (vLLM's num_drafts counts steps, not drafted tokens), generated tokens/s. Windows with no drafts leave a gap in the acceptance panels."""
    # each series is named as its panel's title (read 55: the chart's table, its text alternative, headed the columns
    # "acceptance rate", "steps with drafts/s" and "tokens/s" under the titles "acceptance rate (accepted /
    # drafted)", "steps with drafts per second" and "generated tokens per second")
    names = [_("acceptance rate (accepted / drafted)"), _("mean accepted length (drafted steps)"),
             _("steps with drafts per second"), _("generated tokens per second")]
    fig = make_subplots(rows=2, cols=2, shared_xaxes=True, vertical_spacing=0.14, subplot_titles=names)
    x = [round(d.start + d.seconds - t0, 1) for d in deltas]
    panels = [(1, 1, [d.acceptance_rate for d in deltas]), (1, 2, [d.mean_accepted_length for d in deltas]),
              (2, 1, [d.drafts_per_s for d in deltas]), (2, 2, [d.tokens_per_s for d in deltas])]
    for (row, col, y), name in zip(panels, names):
        fig.add_scatter(x=x, y=y, mode="lines+markers", name=name, row=row, col=col, line=dict(color=BLUE),
                        showlegend=False, connectgaps=False)
    fig.update_xaxes(title_text=_("seconds since you connected"), row=2)
    return _layout(fig, "", height=460)


def per_position_figure(per_position: list[float]) -> go.Figure:
    """Acceptance by position: accepted at each draft position / steps with drafts (vLLM's per-position counter over its
    num_drafts, which counts verify steps, not drafted tokens), both totals since the server started."""
    fig = go.Figure(go.Bar(x=[f"{i + 1}" for i in range(len(per_position))], y=per_position, marker_color=BLUE,
                           name=_("accepted at this position / steps with drafts, since the server started")))
    fig.update_yaxes(range=[0, 1], title=_("share of steps with drafts since the server started"))
    fig.update_xaxes(title=_("draft position"))
    return _layout(fig, _("Acceptance by position"))


def sweep_figure(levels: list[LevelResult], prompt: str, shapes: dict[str, PayShape] | None = None) -> go.Figure:
    """Throughput (all streams) and median latency against concurrent streams, one line per speculative config, each
    named with its panel's quantity and unit (the chart's table has no panel titles); a dotted line where a config
    starts paying against the target alone (1 or more: `limits.pays`) and one where it stops, as its `PayShape` has them
    (Read 45: a curve that lost, paid, then lost again was marked only where it stopped; a mixed curve or one that never
    or always paid gets no line, and the page says why in words)."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=(_("total tokens/s"), _("median latency (s)")))
    specs = list(dict.fromkeys(lv.speculative for lv in levels))
    for spec in specs:
        rows = sorted((lv for lv in levels if lv.speculative == spec and lv.prompt == prompt),
                      key=lambda lv: lv.concurrency)
        x = [lv.concurrency for lv in rows]
        color = COLORS.get(spec, ORANGE)
        fig.add_scatter(x=x, y=[lv.throughput for lv in rows], mode="lines+markers",
                        name=_("{spec}: total tokens/s", spec=spec_name(spec)), customdata=_streams(x),
                        hovertemplate=_(THROUGHPUT_HOVER), line=dict(color=color), row=1, col=1)
        fig.add_scatter(x=x, y=[lv.latency_s for lv in rows], mode="lines+markers",
                        name=_("{spec}: median latency (s)", spec=spec_name(spec)), customdata=_streams(x),
                        hovertemplate=_(LATENCY_HOVER), line=dict(color=color, dash="dash"), row=1, col=2)
    for spec, shape in (shapes or {}).items():
        for x, words in ((shape.start, _("{spec} starts paying", spec=spec_name(spec))),
                         (shape.stop, _("{spec} stops paying", spec=spec_name(spec)))):
            if x is not None:
                fig.add_vline(x=x, line=dict(color=COLORS.get(spec, ORANGE), dash="dot"), row=1, col=1,
                              annotation_text=words, annotation_position="top left")
    fig.update_xaxes(type="log", tickvals=[1, 2, 4, 8, 16], title_text=_("concurrent streams"))
    return _layout(fig, _("Load sweep: {prompt}", prompt=prompt_name(prompt)), height=420)


def speedup_figure(result: ServingResult) -> go.Figure:
    """Throughput with speculation / without, against streams, one line per prompt and config; 1 is break-even. Its
    title names what it plots (read 49: "Where speculation stops paying" stood over the committed sweep, where n-gram
    lookup pays at every level)."""
    fig = go.Figure()
    fig.add_hline(y=1.0, line=dict(color=GREY, dash="dot"), annotation_text=_("no gain"),
                  annotation_position="bottom right")
    for spec in [s for s in result.specs() if s != "none"]:
        for prompt, dash in zip(result.prompt_names(), ("solid", "dash", "dot", "dashdot")):
            xs = result.concurrencies(prompt)
            fig.add_scatter(x=xs, y=[result.speedup(spec, prompt, c) for c in xs], mode="lines+markers",
                            name=_("{spec}, {prompt} prompt", spec=spec_name(spec), prompt=prompt_word(prompt)),
                            customdata=_streams(xs), hovertemplate=_(SPEEDUP_HOVER),
                            line=dict(color=COLORS.get(spec, ORANGE), dash=dash))
    fig.update_xaxes(type="log", tickvals=[1, 2, 4, 8, 16], title=_("concurrent streams"))
    fig.update_yaxes(title=_("speedup (tokens/s vs no speculation)"))
    return _layout(fig, _("Speedup against concurrent streams"))
