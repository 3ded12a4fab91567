"""The Theory explorer's figures (the speedup map over α and K, speedup against K, tokens per step, predicted
against measured) and the derivations. The formulas are in `specviz.engine.theory`, the measured points in
`specviz.ui.theory.points`; everything but `render_derivations` returns a `plotly.graph_objects.Figure` and is tested
without a browser.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from specviz.core.i18n import (N_, _, as_written, list_separator, ngettext, number, percent, signed_delta,
                               small_number)
from specviz.engine import theory
from specviz.engine.proposers import registry
from specviz.ui.common.palette import BLUE, GREY, ORANGE, REDDISH_PURPLE, VERMILLION
from specviz.ui.common.bench_results import temperature_text
from specviz.ui.theory.points import K_MAX, MeasuredPoint, TemperatureRow, TracePoint, setting_text

ALPHAS = np.round(np.linspace(0.0, 1.0, 101), 2)
TABLE_ALPHAS = [round(a / 10, 1) for a in range(1, 10)] + [0.95]  # the heatmap table's columns: a readable few
LOG2_LIMIT = 4  # the colour scale runs from 1/16× to 16× (log2 −4..4), so its white middle is exactly 1×
SPEEDUP_TICKS = {-4: "1/16×", -3: "1/8×", -2: "¼×", -1: "½×", 0: "1×", 1: "2×", 2: "4×", 3: "8×", 4: "16×"}
# red (slower) through white (1×, no change) to blue (faster), symmetric around the middle
SPEEDUP_COLORS = [[0.0, "#B2182B"], [0.25, "#EF8A62"], [0.5, "#FFFFFF"], [0.75, "#67A9CF"], [1.0, "#2166AC"]]
# Every sentence of this module's figures that a user reads, in one place, translated with _() where shown.
TEXT = {
    "heatmap_caption": N_("Colour is the expected speedup over target-only decoding: blue is faster, red is slower, "
                          "white is the same speed (1×); the scale is logarithmic, each tick on its bar a doubling or "
                          "a halving. The orange steps are the best K for each α."),
    # the dashed line's sentence, or why there is none (c > 1: `theory.break_even_curve` is empty; 44th read)
    # read 54: the steps stop at the chart's top K, where at a high α a larger K is faster (c = 0.05, α = 0.95: K = 20
    # gives 6.59× against K = 16's 6.47×), yet the table called K = 16 the best K for "0.92 to 1.00"
    "heatmap_k_cap": N_("The steps only choose among K = 0 to {k_max}: where they reach {k_max}, a larger K may be "
                        "faster still."),
    "heatmap_even": N_("Left of the dashed line speculation loses time."),
    "heatmap_no_even": N_("At c above 1 no α pays at any K ≥ 1, so the map has no dashed break-even line: every K "
                          "≥ 1 loses time."),
    "heatmap_table": N_("The table of its numbers shows {shown} of the chart's {total} α columns (α = {alphas}), "
                        "for every K from 0 to {k_max}; hover the chart for any other α."),
    # read 52: the dashed line and the orange steps were in no table, the chart's text alternative
    "heatmap_lines": N_("Its last two columns are the chart's lines: each K's break-even α (the dashed line; – "
                        "where that K has none) and the α at which that K is the best K (the orange steps, read on "
                        "the chart's α grid of step 0.01; – where it never is)."),
    # read 54: the table left out the chart's marks
    "heatmap_marks": N_("The columns before them give the chart's marks in their K's row: your setting (its α and "
                        "expected speedup), and the benchmark runs' and the session trace's α estimates where the "
                        "chart has them."),
    # read 52: a run's α is its α estimate, as the Speedup lab names it (the chart's hovers and table said "α")
    "heatmap_points": N_("Benchmark runs sit at their own α estimate and K; their c may differ from the slider's "
                         "(hover to see it)."),
    # read 50: the map charges K·c, where the one-pass proposers' points are predicted with c per step
    # read 54: "whose one pass drafts every token of a step" was said of the Medusa heads too, whose heads 1 to K each
    # run a block after the target's pass: c per step is a model for them (`charts.one_pass_reason`)
    "heatmap_one_pass": N_("The map charges K·c, a drafter pass per drafted token; the Medusa heads' and n-gram "
                           "lookup's points are charged c per step (n-gram lookup drafts a step in one search, whose "
                           "time is c; the Medusa heads draft from the target's last pass with no drafter pass, and c "
                           "per step, one head's time, is a model that leaves out what heads 2 to K add), so the "
                           "map's colours, dashed line and best-K steps do not hold for them: with c per step every "
                           "extra draft gains, and their predicted speedups (the chart \"Does the formula predict "
                           "real runs?\") charge c per step."),
    # read 53: the caption placed the benchmark points (at their own c) but not the session trace's star, which sits
    # on this map, drawn at the slider's c
    "heatmap_trace": N_("The star is the trace in this session, at its α estimate and K, on this map for the slider's "
                        "c: a trace measures no c of its own (its timings give at most about c / v, under Measured "
                        "runs), so the colour under the star is what its α and K would give at the slider's c, not "
                        "its measured speed."),
    # read 54: a threshold, heuristic or optimal run's star sits at its K setting, which its policy only caps (the
    # threshold), starts from (the heuristic) or ignores (the optimal one): "at its α estimate and K" named one K
    "heatmap_trace_policy": N_("The star is the trace in this session, at its α estimate and its K setting, {k}, on "
                               "this map for the slider's c: a trace measures no c of its own (its timings give at "
                               "most about c / v, under Measured runs), so the colour under the star is what its α "
                               "and that K setting would give at the slider's c, not its measured speed."),
    # read 53: a heuristic or optimal run's star sat at its K setting, called "its K", though its steps drafted a
    # range of K (`timeline.drafted_k_range`)
    "heatmap_trace_k_range": N_("Its policy moved K step to step: its steps drafted {low} to {high} tokens, so the "
                                "formula's K drafts every step does not describe it."),
    # read 54: a heuristic run whose K never moved read "moved K" because a step at the token limit drafted 0; the
    # sentence says the policy moved K only where its K did (`TracePoint.k_moved`)
    "heatmap_trace_k_kept": N_("Its policy kept K at {k} every step, yet its steps drafted {low} to {high} tokens, so "
                               "the formula's K drafts every step does not describe it."),
    "heatmap_trace_k_drafted": N_("Its steps drafted {low} to {high} tokens, so the formula's K drafts every step "
                                  "does not describe it."),
    "heatmap_trace_threshold": N_("Its threshold policy stops a step's drafting early where the draft's own top "
                                  "probability falls below its threshold, so its K setting is only the most a step "
                                  "may draft."),
    "heatmap_trace_one_pass": N_("Its proposer is charged c per step, not K·c (n-gram lookup drafts a step in one "
                                 "search; the Medusa heads draft from the target's last pass, with no drafter pass), "
                                 "so the map's K·c does not hold for the star either."),
    "temperature": N_("**Why the α estimate changes between T = 0 and T = 0.7.** α, the average of Σ min(p, q), is "
                   "computed after the temperature is applied to both models. At T = 0 both distributions collapse "
                   "onto their most likely token, so each drafted position scores 1 if the two argmaxes agree and 0 "
                   "if not: α is the share of positions where draft and target pick the same top token. At T = 0.7 "
                   "both spread their mass; where the argmaxes agree the overlap is now below 1 (the target also "
                   "gives weight to tokens the draft did not pick), and where they disagree it is now above 0. Which "
                   "of the two weighs more sets the direction: most rows below fall, as their drafts lose more where "
                   "they agree than they gain where they disagree; a draft that almost never agrees has little to lose "
                   "(the untrained layer-skip row); and the separate draft's rows measured on the H200 rise. For "
                   "n-gram lookup q is a single token, so Σ min(p, q) is the target's probability of that token: 1 "
                   "or 0 at T = 0, p(x) after temperature."),
    "temperature_table": N_("α estimate (for each prompt, the mean min(1, p/q) over the drafts the verifier "
                            "tested; then the mean over the prompts; K = {k}), SmolLM2-135M, from the committed "
                            "benchmarks, one table per machine and dtype ([n] is the benchmark, named with its command "
                            "below):"),
}

# The session trace's draft / target ratio (`TracePoint.draft_over_verify`), named by how its proposer drafts a step
# (`ratio_kind`): read 48 named it c / v, not c; read 49 gave a lookup its own words; read 51: a one-pass drafter's
# (the Medusa heads') pass grows with the tokens it drafts, so its ratio sits above the benchmarks' c / v for it
RATIO_LABELS = {
    "draft": N_("Trace: draft pass / target step (about c / v)"),
    "one_pass": N_("Trace: draft pass per step / target step (about c / v)"),
    "lookup": N_("Trace: lookup per step / target step (about c / v)"),
}
RATIO_HELPS = {
    "draft": N_("Draft seconds per draft forward (one per drafted token in a chain, one per level in a tree) divided "
                "by target seconds per step, from the step timings. A step's target forward scores the drafts too: "
                "where it costs v one-token forwards (v > 1), this reads about c / v, below this drafter's c, which, "
                "like the slider's, is over a one-token forward."),
    "one_pass": N_("Draft seconds per step divided by target seconds per step, from the step timings. This proposer "
                   "drafts every token of a step in one pass, which the formula charges once per step, as c; for the "
                   "Medusa heads that pass runs one residual block per drafted token and one product with the LM "
                   "head's rows for them all, so it costs more the more tokens it drafts, and at K > 1 it costs "
                   "more than the benchmarks' c for the heads, which times them drafting one token. A step's target "
                   "forward scores the drafts too: where it costs v one-token forwards (v > 1), this reads about "
                   "c / v, with c this trace's pass per step over a one-token forward."),
    "lookup": N_("Lookup seconds per step (this proposer runs no model, so there is no draft forward: the time is its "
                 "one search a step of the text for the last tokens and the copy of what followed) divided by target "
                 "seconds per step, from the step timings. A step's target forward scores the drafts too: where it "
                 "costs v one-token forwards (v > 1), this reads about c / v, below this lookup's c, which, like "
                 "the slider's, is over a one-token forward."),
}


def ratio_kind(point: TracePoint) -> str:
    """Which words name a trace's draft / target ratio: "lookup" (a proposer that runs no model), "one_pass" (one
    pass drafts a step's tokens: the Medusa heads) or "draft" (a forward per drafted token, or per tree level)."""
    return "lookup" if point.lookup else "one_pass" if point.one_pass else "draft"


# ---- figures ----------------------------------------------------------------------------------------------------


def heatmap_table(c: float, alpha: float | None = None, k: int | None = None, points: list[MeasuredPoint] = (),
                  trace: TracePoint | None = None) -> pd.DataFrame:
    """The heatmap's numbers, readable without hovering: the expected speedup for K = 0..K_MAX (rows) at α = 0.1, 0.2,
    ..., 0.9, 0.95 (columns, `TABLE_ALPHAS`: 10 of the chart's 101, as `heatmap_table_note` says), for this c; then
    the chart's marks in their K's row, as `heatmap_figure` draws them (read 54: the table left them out): your
    setting (the slider's α, 2 decimals, and its expected speedup, as the grid's cells write it), the benchmark runs
    (their α estimates, 3 decimals, as their hovers) when there are some, and the session's trace (its α estimate, at
    its K setting for a policy's trace) when the chart places it; last, the chart's two lines, each K's break-even α
    (the dashed line, as its hover writes it) and the α of the chart's grid at which the K is the best K (the orange
    steps), "–" where there is none."""
    alphas = TABLE_ALPHAS
    ks = list(range(K_MAX + 1))
    grid = theory.speedup_grid(np.array(alphas), ks, c)  # (K, α)
    even = dict((kk, a) for a, kk in theory.break_even_curve(ks, c))
    marks: dict[str, list[str]] = {}
    if alpha is not None and k is not None:
        setting = f"α = {setting_text(alpha)}: {number(theory.expected_speedup(alpha, k, c), 2)}×"
        marks[_("your setting")] = [setting if kk == k else "–" for kk in ks]
    if points:
        def runs(kk: int) -> str:
            here = sorted(pt.alpha for pt in points if pt.k == kk)
            return ngettext("{n} run, α estimate {alphas}", "{n} runs, α estimates {alphas}", len(here),
                            alphas=list_separator().join(number(a, MeasuredPoint.ALPHA_DIGITS) for a in here)) \
                if here else "–"
        marks[_("benchmark runs")] = [runs(kk) for kk in ks]
    if trace is not None:
        star = _("α estimate") + f" = {number(trace.alpha, trace.ALPHA_DIGITS)}"
        drafted = trace.every_k_range
        if trace.policy_k and drafted is not None:
            star += " " + (_("(its steps drafted {low} to {high})", low=number(drafted[0], 0),
                              high=number(drafted[1], 0)) if drafted[0] < drafted[1] else
                           _("(every step drafted {k})", k=number(drafted[0], 0)))
        marks[_("trace in this session")] = [star if kk == trace.k else "–" for kk in ks]
    return pd.DataFrame({"K": [str(k) for k in ks],
                         **{f"α = {number(a, 2)}": [number(float(grid[i][j]), 2) + "×" for i in range(len(ks))]
                            for j, a in enumerate(alphas)},
                         **marks,
                         _("break-even α (dashed line)"): [number(even[k], 3) if k in even else "–" for k in ks],
                         _("α where this K is best (orange steps)"): best_k_alphas(c, ks)})


def best_k_alphas(c: float, ks: list[int]) -> list[str]:
    """For each K in `ks`, the α of the heatmap's grid (`ALPHAS`) where it is the best K (the orange steps, as their
    hover writes α: 2 decimals), as ranges ("0.42 to 0.54"; one α alone; "–" where it is never best).

    >>> best_k_alphas(0.5, [0, 1, 5, 8, 16])
    ['0.00 to 0.50', '0.51 to 0.76', '0.95', '–', '1.00']
    """
    best = theory.optimal_k_curve(ALPHAS, c, K_MAX)
    runs: dict[int, list[tuple[float, float]]] = {}
    for a, kk in zip(ALPHAS, best):
        spans = runs.setdefault(int(kk), [])
        if spans and spans[-1][1] == round(float(a) - 0.01, 2):  # the next α of the grid: the same step goes on
            spans[-1] = (spans[-1][0], float(a))
        else:
            spans.append((float(a), float(a)))
    return [list_separator().join(number(lo, 2) if lo == hi else _("{low} to {high}", low=number(lo, 2),
                                                                        high=number(hi, 2))
                                  for lo, hi in runs[k]) if k in runs else "–" for k in ks]


def heatmap_caption(c: float, with_points: bool, one_pass: bool = False, trace: TracePoint | None = None) -> str:
    """The heatmap's caption: its colours, the dashed break-even line (or, at c > 1, that it has none), the benchmark
    points when the chart has some, that the map is a K·c one when some of them are a one-pass proposer's
    (`MeasuredPoint.one_pass`: predicted with c per step), where the session trace's star sits when the chart places
    one (`trace`: at the slider's c; a one-pass proposer's, off the K·c map too), and how much of the chart its table
    holds."""
    texts = [_(TEXT[key]) for key in ["heatmap_caption", "heatmap_even" if theory.break_even_curve([1], c) else
                                      "heatmap_no_even", *(["heatmap_points"] if with_points else []),
                                      *(["heatmap_one_pass"] if with_points and one_pass else [])]]
    if K_MAX in theory.optimal_k_curve(ALPHAS, c, K_MAX):
        texts.insert(1, _(TEXT["heatmap_k_cap"], k_max=number(K_MAX, 0)))
    if trace is not None:
        # a policy's trace: the star at its K setting, then what the policy did with it (read 54)
        texts.append(_(TEXT["heatmap_trace_policy"], k=number(trace.k, 0)) if trace.policy_k else
                     _(TEXT["heatmap_trace"]))
        drafted = trace.every_k_range  # what its steps drafted, 0 included (read 54: 0 to 5 was said "1 to 5")
        if drafted is not None and drafted[0] < drafted[1]:
            key = {True: "heatmap_trace_k_range", False: "heatmap_trace_k_kept"}.get(trace.k_moved,
                                                                                   "heatmap_trace_k_drafted")
            texts.append(_(TEXT[key], low=number(drafted[0], 0), high=number(drafted[1], 0), k=number(trace.k, 0)))
        elif drafted is not None:  # read 54: one number of tokens every step read "drafted 4 to 4 tokens"
            texts.append(ngettext("Its policy picked each step's K: every step drafted {n} token.",
                                  "Its policy picked each step's K: every step drafted {n} tokens.", drafted[0]))
        elif trace.policy == "threshold":
            texts.append(_(TEXT["heatmap_trace_threshold"]))
        if trace.one_pass:
            texts.append(_(TEXT["heatmap_trace_one_pass"]))
    return " ".join([*texts, heatmap_table_note()])


def heatmap_table_note() -> str:
    """How much of the heatmap its table holds: which of the chart's α columns, for which K (read 32: it showed 10 of
    101 without saying so)."""
    return " ".join((_(TEXT["heatmap_table"], shown=len(TABLE_ALPHAS), total=len(ALPHAS),
                       alphas=list_separator().join(number(a, 2) for a in TABLE_ALPHAS), k_max=K_MAX),
                     _(TEXT["heatmap_lines"]), _(TEXT["heatmap_marks"])))


def heatmap_figure(c: float, alpha: float, k: int, points: list[MeasuredPoint] = (),
                   trace: TracePoint | None = None) -> go.Figure:
    """Speedup over (alpha, K) for this c, with the break-even line (speedup = 1), the best K for each alpha,
    the chosen setting, and any measured points."""
    ks = list(range(K_MAX + 1))
    grid = theory.speedup_grid(ALPHAS, ks, c)
    # colour on a log2 scale symmetric around 0 = 1×: white is exactly "no change", and halving and doubling look
    # equally strong (a lopsided range such as −3..4 would put white at 1.4× and paint real gains red)
    z = np.clip(np.log2(grid), -LOG2_LIMIT, LOG2_LIMIT)
    fig = go.Figure(go.Heatmap(
        x=ALPHAS, y=ks, z=z, zmin=-LOG2_LIMIT, zmax=LOG2_LIMIT, colorscale=SPEEDUP_COLORS, customdata=grid,
        colorbar=dict(title=_("speedup"), tickvals=list(SPEEDUP_TICKS), ticktext=list(SPEEDUP_TICKS.values())),
        hovertemplate=_("α = %{x:.2f}<br>K = %{y}<br>speedup = %{customdata:.2f}×") + "<extra></extra>",
    ))
    even = theory.break_even_curve(ks, c)
    if even:
        fig.add_trace(go.Scatter(x=[a for a, _ in even], y=[kk for _, kk in even], mode="lines",
                                 line=dict(color="black", width=3, dash="dash"), name=_("break-even (speedup = 1)"),
                                 hovertemplate=_("break-even α = %{x:.3f} at K = %{y}") + "<extra></extra>"))
    fig.add_trace(go.Scatter(x=ALPHAS, y=theory.optimal_k_curve(ALPHAS, c, K_MAX), mode="lines", line=dict(color=ORANGE, width=2, shape="hv"),
                             name=_("best K for each α"),
                             hovertemplate=_("α = %{x:.2f}: best K = %{y}") + "<extra></extra>"))
    # read 54: with no hover of its own it read "(0.8, 4)" (three significant figures) under the slider's α = 0.80;
    # now α as the slider writes it and the speedup as the map's cells and the table's "your setting" write it
    fig.add_trace(go.Scatter(x=[alpha], y=[k], mode="markers", name=_("your setting"),
                             marker=dict(symbol="x", size=14, color="black", line=dict(width=2, color="white")),
                             hovertemplate=_("your setting: α = {alpha}, K = {k}, speedup = {speedup}×",
                                             alpha=setting_text(alpha), k=number(k, 0),
                                             speedup=number(theory.expected_speedup(alpha, k, c), 2))
                                           + "<extra></extra>"))
    if points:
        fig.add_trace(go.Scatter(
            x=[pt.alpha for pt in points], y=[pt.k for pt in points], mode="markers", name=_("benchmark runs"),
            marker=dict(symbol="diamond", size=11, color=REDDISH_PURPLE, line=dict(width=1, color="white")),
            # read 54: α as the table under "Does the formula predict real runs?" writes it (3 decimals), pre-written
            customdata=[[_where(pt), small_number(pt.c), pt.measured_speedup, number(pt.alpha, pt.ALPHA_DIGITS)]
                        for pt in points],
            hovertemplate="%{customdata[0]}<br>" + _("α estimate = %{customdata[3]}, K = %{y}, c = "
                                                     "%{customdata[1]}<br>measured %{customdata[2]:.2f}×")
                          + "<extra></extra>"))
    if trace is not None:
        drafted = trace.every_k_range  # what its steps drafted, 0 included (read 54)
        # read 53: "trace: α ≈ 0.50" beside the metric "Trace: α estimate" 0.499, one number under two names and
        # two roundings on one page: the star hovers as the metric writes it
        fig.add_trace(go.Scatter(x=[trace.alpha], y=[trace.k], mode="markers", name=_("trace in this session"),
                                 marker=dict(symbol="star", size=16, color=VERMILLION,
                                             line=dict(width=1, color="white")),
                                 hovertemplate=(_("trace: α estimate = %{x:.3f}, K = %{y}") if not trace.policy_k
                                                else _("trace: α estimate = %{x:.3f}, K setting = %{y}")
                                                if drafted is None
                                                else _("trace: α estimate = %{x:.3f}, K setting = %{y}") + " "
                                                + (_("(its steps drafted {low} to {high})",
                                                     low=number(drafted[0], 0), high=number(drafted[1], 0))
                                                   if drafted[0] < drafted[1] else
                                                   _("(every step drafted {k})", k=number(drafted[0], 0))))
                                 + "<extra></extra>"))
    fig.update_layout(xaxis_title=_("α = E[Σ min(p, q)], the chance a draft is kept"),
                      yaxis_title=_("drafted tokens per step K"), height=460,
                      margin=dict(l=10, r=10, t=30, b=10), legend=dict(orientation="h", y=-0.2),
                      title=_("Expected speedup for c = {c}", c=setting_text(c)))
    fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(range=[-0.5, K_MAX + 0.5], dtick=2)
    return fig


# The legend below the axis title, as the Speedup lab's and the Exactness lab's: at Plotly's right it took half of a
# 390 px phone's width and left the plot 90 to 140 px wide (read 49, two browser looks).
BELOW_PLOT = dict(orientation="h", yref="container", yanchor="bottom", y=0, x=0)


def speedup_vs_k_figure(alpha: float, c: float, k: int) -> go.Figure:
    """Expected speedup against K for one alpha and c; the best K and the chosen K marked, 1× drawn."""
    ks = list(range(K_MAX + 1))
    speedups = [theory.expected_speedup(alpha, kk, c) for kk in ks]
    best = theory.optimal_k(alpha, c, K_MAX)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=ks, y=speedups, mode="lines+markers", line=dict(color=BLUE), name=_("speedup"),
                             hovertemplate="K = %{x}: %{y:.3f}×<extra></extra>"))
    fig.add_hline(y=1.0, line=dict(color=GREY, dash="dot"), annotation_text=_("no speedup (1×)"))
    # the marks hover as the line does (3 decimals), so their table cells read as the line's: 3.092, not 3.09
    fig.add_trace(go.Scatter(x=[best], y=[speedups[best]], mode="markers", name=_("best K = {k}", k=best),
                             marker=dict(size=14, color=ORANGE, symbol="star"),
                             hovertemplate="K = %{x}: %{y:.3f}×<extra></extra>"))
    fig.add_trace(go.Scatter(x=[k], y=[speedups[k]], mode="markers", name=_("your K = {k}", k=k),
                             marker=dict(size=12, color="black", symbol="x"),
                             hovertemplate="K = %{x}: %{y:.3f}×<extra></extra>"))
    fig.update_layout(xaxis_title="K", yaxis_title=_("expected speedup ×"), height=360,
                      margin=dict(l=10, r=10, t=30, b=10), legend=BELOW_PLOT,
                      title=_("Speedup against K (α = {alpha}, c = {c})", alpha=setting_text(alpha),
                              c=setting_text(c)))
    return fig


def tokens_distribution_figure(alpha: float, k: int, simulated: np.ndarray | None = None) -> go.Figure:
    """P(a step emits j tokens), j = 1..K+1, from the formula and (optionally) from simulated steps."""
    js = list(range(1, k + 2))
    counts = [ngettext("{n} token", "{n} tokens", j) for j in js]  # a step emits at least 1: not "1 tokens"
    formula = _("formula")
    fig = go.Figure(go.Bar(x=js, y=theory.tokens_per_step_distribution(alpha, k), name=formula, marker_color=BLUE,
                           customdata=counts, hovertemplate="%{customdata}: %{y:.3f}" + f"<extra>{formula}</extra>"))
    if simulated is not None and len(simulated):
        fig.add_trace(go.Scatter(x=js, y=theory.tokens_per_step_frequencies(simulated, k), mode="markers",
                                 name=_("simulated ({n} steps)", n=number(len(simulated), 0)),
                                 marker=dict(size=11, color=ORANGE, symbol="diamond"), customdata=counts,
                                 hovertemplate="%{customdata}: %{y:.3f}<extra>" + _("simulated") + "</extra>"))
    fig.update_layout(xaxis_title=_("tokens emitted in one step"), yaxis_title=_("probability"), height=320,
                      margin=dict(l=10, r=10, t=30, b=10), title=_("Tokens per step: a truncated geometric"),
                      legend=BELOW_PLOT)
    fig.update_xaxes(dtick=1)
    return fig


def _where(point: MeasuredPoint) -> str:
    """A benchmark point's hover title: the run's label (its dtype included) and the machine it ran on."""
    return f"{point.label} · {point.machine}" if point.machine else point.label


def measured_table(points: list[MeasuredPoint]) -> pd.DataFrame:
    """The predicted-vs-measured chart's numbers, one row per benchmark run, its dtype and its machine in columns of
    their own."""
    return pd.DataFrame({
        _("run"): [pt.label for pt in points],
        _("dtype"): [pt.dtype or _("not recorded") for pt in points],
        _("machine"): [pt.machine or _("not recorded") for pt in points],
        # a run's α, as the Speedup lab names it, with the decimals its prediction is computed from (read 54)
        _("α estimate"): [number(pt.alpha, pt.ALPHA_DIGITS) for pt in points],
        "K": [str(pt.k) for pt in points],
        "c": [small_number(pt.c) for pt in points],
        _("mean K drafted"): [number(pt.mean_k, 2) if pt.mean_k is not None else "–" for pt in points],
        _("predicted ×"): [number(pt.predicted_speedup, 2) for pt in points],
        _("measured ×"): [number(pt.measured_speedup, 2) if pt.measured_speedup is not None else "–"
                          for pt in points],
        _("file"): [pt.source for pt in points],
    })


def measured_caption(points: list[MeasuredPoint]) -> str:
    """How many runs the chart shows and in which dtypes, so float32 and bfloat16 runs are never mixed unsaid, and
    which baseline both speedups are against (STYLE.md: a speedup names its baseline)."""
    counts: dict[str, int] = {}
    for pt in points:
        shown = pt.dtype or _("no recorded dtype")
        counts[shown] = counts.get(shown, 0) + 1
    # read 45: one setting read "1 settings ... in 1 benchmark runs"; each count now agrees with its noun
    files = len({pt.source for pt in points})
    # read 52: "at its own α": a run's α is its α estimate, as the chart's table and the heatmap's points name it
    # read 53: "70 settings (proposer, K, temperature)" counted the rows, 32 settings measured in several runs each
    runs = ngettext("{n} measurement (a proposer, K and temperature in one run) from {runs} in assets/benchmarks/, "
                    "predicted at its own α estimate, K and c.",
                    "{n} measurements (each a proposer, K and temperature in one run; a setting measured in several "
                    "runs counts once in each) from {runs} in assets/benchmarks/, each predicted at its own α "
                    "estimate, K and c.", len(points),
                    runs=ngettext("{n} benchmark run", "{n} benchmark runs", files))
    runs += " " + _("Both speedups are against specviz's target-only decoding: the measured one is tokens/s of "
                    "speculative decoding over tokens/s of target-only decoding in the same run (a bench run's "
                    "speedup_vs_ar), the predicted one the paper's formula, which takes a verify pass to cost one "
                    "target forward.")
    if any(pt.one_pass for pt in points):  # read 49: the Medusa (and n-gram) points were predicted with K·c
        # read 54: "whose one pass drafts every token" was said of the Medusa heads too (`charts.one_pass_reason`)
        runs += " " + _("For n-gram lookup, whose one search of the context drafts every token of a step, and the "
                        "Medusa heads, which draft from the hidden state the target's last pass gave with no drafter "
                        "pass, the formula charges c per step in place of K·c (for the heads a model: heads 1 to K "
                        "each run a block and c times one head, so it leaves out what heads 2 to K add).")
    short = sum(theory.drafts_short(pt.mean_k, pt.k) for pt in points)
    if short:  # read 49: the Speedup lab names the formula's K-drafts assumption (2848e26b); so does this chart
        runs += " " + ngettext(
            "The formula takes every step to draft K tokens, but {n} of these measurements drafted fewer on average "
            "(below {share} of K: the table's mean K drafted; n-gram lookup drafts only what it finds, and steps near "
            "the token limit draft fewer), so its prediction counts drafts that were never made and overstates the "
            "mean accepted length.",
            "The formula takes every step to draft K tokens, but {n} of these measurements drafted fewer on average "
            "(below {share} of K: the table's mean K drafted; n-gram lookup drafts only what it finds, and steps near "
            "the token limit draft fewer), so their predictions count drafts that were never made and overstate the "
            "mean accepted length.", short,
            share=percent(theory.SHORT_DRAFTS))
    if len(counts) == 1:
        return runs + " " + _("All ran in {dtype}.", dtype=next(iter(counts)))
    dtypes = ", ".join(_("{n} in {dtype}", n=n, dtype=dtype) for dtype, n in counts.items())
    return runs + " " + _("Their models ran in different dtypes ({dtypes}); each run's label and table row say "
                          "which.", dtypes=dtypes)


def predicted_vs_measured_figure(points: list[MeasuredPoint]) -> go.Figure:
    """Each benchmark run's measured speedup against the formula's prediction at its own alpha, K and c."""
    pred = [pt.predicted_speedup for pt in points]
    meas = [pt.measured_speedup for pt in points]
    top = max(pred + meas + [1.5]) * 1.1
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, top], y=[0, top], mode="lines", line=dict(color=GREY, dash="dot"),
                             name=_("measured = predicted"), hoverinfo="skip"))
    fig.add_trace(go.Scatter(
        x=pred, y=meas, mode="markers", name=_("benchmark runs"),
        marker=dict(size=11, color=REDDISH_PURPLE, symbol="diamond"),
        customdata=[[_where(pt), number(pt.alpha, pt.ALPHA_DIGITS), pt.k, small_number(pt.c)] for pt in points],
        # read 50: the settings were an untranslated literal, "α = 0,56, K = 2, c = 0,081" in Portuguese, whose
        # glossary separates numbers with semicolons
        hovertemplate="%{customdata[0]}<br>" + _("α estimate = %{customdata[1]}, K = %{customdata[2]}, c = "
                                                 "%{customdata[3]}") + "<br>"
                      + _("predicted %{x:.2f}×, measured %{y:.2f}×") + "<extra></extra>"))
    fig.update_layout(xaxis_title=_("predicted speedup ×"), yaxis_title=_("measured speedup ×"), height=400,
                      margin=dict(l=10, r=10, t=30, b=10), title=_("Does the formula predict real runs?"),
                      legend=BELOW_PLOT)
    return fig


# ---- text -------------------------------------------------------------------------------------------------------


def render_temperature(rows: list[TemperatureRow]) -> None:
    """Why acceptance differs at T = 0 and T = 0.7, with the committed measurements and their commands."""
    st.markdown(_(TEXT["temperature"]))
    if not rows:
        return
    st.caption(_(TEXT["temperature_table"], k=rows[0].k))
    proposer = _("proposer")

    # +0.014, −0.159 (the minus sign, as `number` writes it), 0.000: the difference of the two α as written, so a
    # reader who subtracts them gets it (read 52: 0.464 and 0.380 beside "−0.083", from 0.4635 − 0.3805)
    def change(r: TemperatureRow) -> str:
        return signed_delta(number(as_written(r.alpha_sampled, 3) - as_written(r.alpha_greedy, 3), 3))[0]

    # one table per machine and dtype, both above it, and the benchmark folders in the expander: with them as
    # columns (six in all) a 390 px phone split numbers mid-digit
    groups: dict[tuple[str, str], list[TemperatureRow]] = {}
    for r in rows:
        groups.setdefault((r.machine, r.dtype), []).append(r)
    runs: dict[str, int] = {}  # [n]: the run's number, in the order the tables show them
    for group in groups.values():
        for r in group:
            runs.setdefault(r.run, len(runs) + 1)
    for (machine, dtype), group in groups.items():
        st.caption(_("Measured on {machine}, in {dtype}:", machine=machine or _("a machine not recorded"),
                     dtype=dtype))
        # read 53: "draft [4]", "layerskip-7 [5]": the proposer named as the Models menu names it
        # read 55: the columns said "α at T = 0" over the runs' α estimates, the caption's and the heading's name
        st.table(pd.DataFrame([{proposer: f"{registry.menu_label(r.proposer)} [{runs[r.run]}]",
                                _("α estimate at T = {t}", t=0): number(r.alpha_greedy, 3),
                                # read 52: T as the Speedup lab writes it (0.05 is not "0.1")
                                _("α estimate at T = {t}", t=temperature_text(r.temperature)):
                                    number(r.alpha_sampled, 3),
                                _("change"): change(r)} for r in group]).set_index(proposer))
    with st.expander(_("The benchmarks [n] and the commands that measured them")):
        for run, n in runs.items():
            first = next(r for r in rows if r.run == run)
            st.markdown(_("[{n}] the benchmark `{folder}`, on {machine}:", n=n, folder=run,
                          machine=first.machine or _("a machine not recorded")))
            if first.command:
                st.code(first.command, language="bash")
                for note in run_notes(run):  # an EAGLE-1 run's "eagle" rows are not today's drafter's
                    st.caption(note)


def run_notes(run: str) -> list[str]:
    """What the command of the committed run in `run` (a folder under assets/benchmarks/), typed today, would do
    differently: the Speedup lab's `command_notes`, such as the EAGLE-1 drafter that an older run's "eagle" rows
    drafted with; none when its file cannot be read."""
    from specviz.labs import bench
    from specviz.ui.common.bench_results import command_notes, load_result

    try:
        return command_notes(load_result(bench.BENCHMARKS_DIR / run / "results.json"))
    except (OSError, ValueError):
        return []


def render_derivations() -> None:
    """The three short derivations, with st.latex."""
    st.markdown(_("**1. The acceptance probability α.** A draft x ~ q is kept with probability min(1, p(x)/q(x)), so at one "
                  "position, with that context's p and q, the chance of keeping it is"))
    st.latex(r"\beta \;=\; \sum_x q(x)\,\min\!\Big(1, \frac{p(x)}{q(x)}\Big) \;=\; \sum_x \min\big(p(x), q(x)\big)"
             r" \;=\; 1 - \mathrm{TV}(p, q),")  # one formula a line: a phone shows each whole (or scrolls it)
    st.latex(r"\alpha \;=\; \mathbb{E}[\beta].")
    st.markdown(_("β changes from one position to the next (Leviathan et al. call it β too, and name it the "
                  "*acceptance rate*: specviz keeps that name for the measured accepted / drafted below, another "
                  "number); α, its average over the "
                  "contexts a run meets, is the one number the formulas below use and the slider sets. A trace "
                  "estimates α by the mean of min(1, p/q) over the drafts it tested. The measured accepted / drafted "
                  "is lower on average for a chain of K ≥ 2, because drafts after a step's first rejection still count "
                  "as drafted; at K = 1 every draft is tested and the two agree on average."))
    st.markdown(_("**2. Mean accepted length.** If each draft is kept with probability α independently, the first "
                  "rejection comes after i kept drafts with probability αⁱ(1 − α), and all K are kept with "
                  "probability αᴷ. Every step also emits one recovered or bonus token, so the tokens one step emits "
                  "follow a truncated geometric, and their expected value, the mean accepted length, is"))
    # the formulas stay LaTeX; only their words are messages
    as_ = _("as")  # i18n: the word of "(→ K + 1 as α → 1)" in a formula: the limit as α tends to 1
    st.latex(r"\mathbb{E}[\text{%s}] \;=\; \sum_{i=0}^{K} \alpha^i \;=\; "
             r"\frac{1 - \alpha^{K+1}}{1 - \alpha}\qquad(\to K + 1 \text{ %s } \alpha \to 1)."
             % (_("tokens per step"), as_))
    st.markdown(_("**3. Speedup.** One step costs K draft forwards (c each, in units of one target forward) plus one "
                  "target forward over K + 1 positions (assumed to cost the same as one ordinary forward); "
                  "target-only decoding gets one token per forward. So"))
    st.latex(r"\text{%s} \;=\; \frac{1 - \alpha^{K+1}}{(1 - \alpha)\,(K c + 1)}," % _("speedup"))
    st.latex(r"K^\ast = \arg\max_{0 \le K \le 16} \text{%s}." % _("speedup"))
    st.markdown(_("K = 0 means not speculating (speedup 1). Speculation pays only above the break-even α where the "
                  "speedup is exactly 1; if c ≥ 1 (a draft as slow as the target) it never pays. These are "
                  "Leviathan et al. (2023), section 3; real runs differ because α varies with position and context "
                  "and a K + 1-token forward is not quite free."))
