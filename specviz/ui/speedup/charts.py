"""The Speedup lab's figures, each a plain function of a `BenchResult` returning a Plotly figure: measured speedup
against K over the theory's curves, acceptance by position, where a step's time goes, speedup per prompt
category, and the verify cost that decides how much speculation can pay on this machine.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from specviz.core.i18n import N_, _, as_written, list_separator, ngettext, small_digits, small_number
from specviz.engine import theory
from specviz.engine.proposers import registry
from specviz.labs.bench import BenchResult
from specviz.labs.bench import summary
from specviz.labs.bench.report import TARGET_ONLY, run_kernels
from specviz.ui.common.charts import figure_table, phase_pattern, wrap_axis_title
from specviz.ui.common.sliders import medusa_heads
from specviz.ui.common.palette import BLUE, BLUISH_GREEN, GREY, LIGHT_GREY, ORANGE, REDDISH_PURPLE, SKY_BLUE, VERMILLION
from specviz.ui.speedup.view import (label, number, paper_label, policy_text, proposer_text, suite_titles,
                                    temperature_text)

SERIES = [BLUE, ORANGE, BLUISH_GREEN, REDDISH_PURPLE, SKY_BLUE, VERMILLION, GREY]


def _layout(fig: go.Figure, title: str, x: str, y: str, height: int = 430) -> go.Figure:
    """The lab's chart frame; a long y axis title in short lines (`wrap_axis_title`), so it fits a phone's plot."""
    fig.update_layout(title=title, xaxis_title=x, yaxis_title=wrap_axis_title(y), height=height,
                      margin=dict(l=10, r=10, t=50, b=10),
                      legend=dict(orientation="h", yref="container", yanchor="bottom", y=0, x=0),
                      template="plotly_white")
    return fig


# the Speedup vs K curves' mean α is written as the α estimate at the top of the lab and in the table (one constant)
ALPHA_DIGITS = summary.ALPHA_DIGITS


def at_mean_alpha(name: str) -> str:
    """A prediction's name on the Speedup vs K chart, whose curves use one α for every K, the mean over the K run
    (`BenchResult.mean_alpha`); the table under it computes the same formulas at each row's own α
    (`tables.at_row_alpha`), and the two once shared one name (issue 43: 1.6 on the chart, 1.612 in the table).
    Two lines, so a legend entry fits a phone's width (its table reads the break as a space)."""
    return _("{label}<br>at the mean α", label=name)


def speedup_vs_k_caption(proposer: str) -> str:
    """The Speedup vs K chart's caption: what its dots and lines are, the solid line named as `paper_label` names
    it. It sits under the chart's own table of numbers (at the mean α, `at_mean_alpha`), so the lab's table it
    speaks of is named "the table below" (read 53: "the table's two predicted columns use each row's own α" read
    as the chart's table just above it, whose two predicted columns use the mean α)."""
    if registry.one_pass(proposer):
        return _("Dots: measured. Solid line: Leviathan et al.'s formula with c of drafting per step instead of K·c "
                 "({why}), from the measured c and one α for every "
                 "K, the mean of the α estimates at each K run (the legend gives it; the α at the top is the best "
                 "K's own); like the "
                 "paper, it assumes verifying K+1 tokens costs one target forward. Dashed: the same with the "
                 "measured verify cost. The two predicted columns of the table below (\"at this row's α\") use each "
                 "row's own α instead, so they can differ a little from the curves, and from the chart's numbers, "
                 "at the same K.", why=one_pass_reason(proposer))
    return _("Dots: measured. Solid line: Leviathan et al.'s prediction from the measured c and one α for every "
             "K, the mean of the α estimates at each K run (the legend gives it; the α at the top is the best "
             "K's own), which assumes verifying K+1 tokens costs one target forward. Dashed: the same with the "
             "measured verify cost. The two predicted columns of the table below (\"at this row's α\") use each "
             "row's own α instead, so they can differ a little from the curves, and from the chart's numbers, at "
             "the same K.")


def dashed_stop_caption(result: BenchResult, proposer: str, temperature: float) -> str | None:
    """Where the Speedup vs K chart's dashed curve stops short of the solid one, and why (read 55: the caption said
    "Dashed: the same with the measured verify cost" beside a dashed curve that ends at K = 4 while the solid one
    runs to 8): it is drawn only where the verify cost was measured, up to as many tokens fed as the run's verify
    curve holds, and verifying K drafts feeds K + 1 (`speedup_vs_k_figure`: no extrapolation). None when it runs as
    far as the solid curve, or the chart draws no curve."""
    constant = result.rows(proposer=proposer, temperature=temperature, policy="constant")
    if not constant or result.mean_alpha(proposer, temperature) is None:
        return None
    top = max(curve_ks(proposer, [r["k"] for r in constant]))
    fed = len(result.costs.get("verify") or [])
    if not fed or fed - 1 >= top:
        return None
    return ngettext("The dashed line stops at K = {k}, while the solid one runs to K = {top}: this run measured the "
                    "verify cost only up to {n} token fed, and verifying K drafts feeds K + 1 tokens to the pass.",
                    "The dashed line stops at K = {k}, while the solid one runs to K = {top}: this run measured the "
                    "verify cost only up to {n} tokens fed, and verifying K drafts feeds K + 1 tokens to the pass.",
                    fed, k=fed - 1, top=top)


def one_pass_reason(proposer: str) -> str:
    """Why a one-pass proposer's curves charge c per step, true of that proposer (read 54: "as one pass (for n-gram,
    one search) drafts the whole step" was said of Medusa too, whose heads 1 to K each run a block after the
    target's pass, more than one head's c: `medusa_draft_caption`)."""
    if proposer == "medusa":
        return _("a model: heads 1 to K each run a block on the hidden state the target's last pass gave, with no "
                 "drafter pass, and c times one head, so the curves leave out what heads 2 to K add")
    if proposer in registry.names() and registry.get(proposer).timed_as == "lookup":
        return _("one search of the context drafts the whole step, and c is its time")
    return _("one pass drafts the whole step")


def curve_ks(proposer: str, measured: list[int]) -> list[int]:
    """The K the Speedup vs K curves are drawn at: 0 to 8, or to the largest K run if larger; for the Medusa heads
    no further than their count (read 49: the curves ran to K = 8 for 5 heads, though a step drafts one token per
    head), unless the run itself went further."""
    top = max(max(measured, default=0), 8)
    heads = medusa_heads() if proposer == "medusa" else None
    if heads:
        top = min(top, max(heads, max(measured, default=0)))
    return list(range(0, top + 1))


def speedup_vs_k_figure(result: BenchResult, proposer: str, temperature: float) -> go.Figure:
    """Measured speedup at each K (dots) over the paper's curve and the curve with the measured verify cost, both at
    the mean α (`at_mean_alpha`); a proposer that drafts a step in one pass (`registry.one_pass`: the Medusa heads,
    n-gram lookup) is charged c per step, not K·c, as the bench's predicted columns are."""
    constant = result.rows(proposer=proposer, temperature=temperature, policy="constant")
    fig = go.Figure()
    if not constant:
        return _layout(fig, _("Speedup vs K"), _("K (drafted tokens per step)"), _("speedup"))
    alpha, c = result.mean_alpha(proposer, temperature), constant[0]["c"]
    ks, one_pass = curve_ks(proposer, [r["k"] for r in constant]), registry.one_pass(proposer)
    fig.add_hline(y=1.0, line=dict(color=GREY, dash="dot"), annotation_text=_("target-only"),
                  annotation_position="top left")
    if alpha is not None:
        # read 53: the legend wrote the mean α to 2 decimals and the curves used every digit, so the chart's table
        # read 1.22, 1.29, 1.31 at K = 1, 2, 3 beside "α = 0.27, c = 0.046" (Medusa, T = 0), which give 1.21, 1.28,
        # 1.30: the curves now use α and c as the legend writes them, α to 3 decimals, as the α estimate at the top
        a = as_written(min(1.0, max(0.0, alpha)), ALPHA_DIGITS)
        c = as_written(c, small_digits(c))
        fig.add_scatter(x=ks, y=[theory.expected_speedup(a, k, c, one_pass) for k in ks], mode="lines",
                        name=_("{label}<br>at the mean α = {alpha}, c = {c}", label=paper_label(proposer),
                               alpha=number(a, ALPHA_DIGITS), c=small_number(c)), line=dict(color=SKY_BLUE))
        measured = [k for k in ks if k < len(result.costs["verify"])]  # no extrapolation beyond the verify curve
        # read 54: the verify cost as results.md's Costs table and the predicted columns write it (2 decimals,
        # `summary.written_verify`), not every digit (default-cpu-f32-medusa: 0.9037, written 0.90)
        verify = summary.written_verify(result.costs)
        fig.add_scatter(x=measured, y=[theory.speedup_with_verify_cost(a, k, c, summary.verify_ratio(verify, k),
                                                                       one_pass) for k in measured], mode="lines",
                        name=at_mean_alpha(label("predicted_speedup_measured_verify")),
                        line=dict(color=REDDISH_PURPLE, dash="dash"))
    fig.add_scatter(x=[r["k"] for r in constant], y=[r["speedup_vs_ar"] for r in constant], mode="markers+lines",
                    name=_("measured: {label}", label=label("speedup_vs_ar")), marker=dict(size=11, color=BLUE),
                    line=dict(color=BLUE, width=1))
    hf = [r for r in constant if r["hf_assisted_speedup"] is not None]
    if hf:
        fig.add_scatter(x=[r["k"] for r in hf], y=[r["hf_assisted_speedup"] for r in hf], mode="markers",
                        name=label("hf_assisted_speedup"), marker=dict(size=10, symbol="diamond", color=ORANGE))
    fig.update_xaxes(dtick=1)
    return _layout(fig, _("Speedup vs K: {proposer}, T = {t}", proposer=proposer_text(proposer),
                          t=temperature_text(temperature)),
                   _("K (drafted tokens per step)"), label("speedup_vs_ar") + " (×)")


def short_drafts_caption(result: BenchResult, proposer: str, temperature: float) -> str | None:
    """Where this run's chains drafted fewer than K tokens a step on average (`mean_k`): the curves and the table's
    predicted columns take every step to draft K, so they count drafts never made; the sentence says so with each
    such K's mean (read 49: default-cpu-ngram at K = 1 drafted 0.45 a step, predicted 1.29× against 0.89× measured).
    Only a K whose steps drafted below `theory.SHORT_DRAFTS` of K counts (`theory.drafts_short`, which the Theory
    explorer's measured points use too): a model drafter's steps near the token limit draft a few per cent fewer
    (3.91 of 4), which moves the prediction less than its rounding; None when no K did."""
    rows = sorted((r for r in result.rows(proposer=proposer, temperature=temperature, policy="constant")
                   if not r.get("tree_nodes") and theory.drafts_short(r.get("mean_k"), r["k"])),
                  key=lambda r: r["k"])
    if not rows:
        return None
    each = list_separator().join(f"K = {r['k']}: {number(r['mean_k'])}" for r in {r["k"]: r for r in rows}.values())
    return _("This run's steps drafted fewer than K tokens on average ({each}), but the curves and the table's "
             "predicted columns take every step to draft K, so they count drafts that were never made and "
             "overstate the mean accepted length.", each=each)


def medusa_draft_caption(result: BenchResult, proposer: str, temperature: float) -> str | None:
    """For Medusa's Speedup vs K chart: the model its curves use. Read 48 said the curves charged K·c of drafting a
    step though a step runs the LM head once over all its heads; read 49 made the curves and the bench's predicted
    columns charge c per step whatever K (`registry.one_pass`), and the sentence says so, with what c times (one
    head's block, the LM head's draft-vocabulary rows and the greedy token pick, `timing.feature_draft_timer`), and
    quotes this run's measured draft time per step at each K beside c, so a reader sees where the model charges too
    little (default-cpu-f32-medusa: about 5.3 ms a greedy step at K = 2 and 4, c 2.5 ms). Read 50: it said a step
    "runs every head's block", but a step of K drafts runs heads 1 to K only (`MedusaProposer.head_logits`: 2 of the
    5 shipped heads at K = 2). Read 52: "Where it is above {c_ms} ms" followed "Its c ... is {c_ms} ms", so "it" read
    as c (the pt "ele" too); the sentence now names the draft time per step. Read 54: "K blocks and the LM head
    once, so c per step" did not follow (K blocks cost more than one head's c): the curves charge c per step as a
    model that leaves out what heads 2 to K add (`theory.draft_cost`). None for another proposer, or when the run has
    no Medusa chain."""
    rows = sorted(result.rows(proposer=proposer, temperature=temperature, policy="constant"), key=lambda r: r["k"])
    rows = [r for r in rows if not r.get("tree_nodes")]
    if proposer != "medusa" or not rows:
        return None
    one = result.costs["target_forward_seconds"] * 1e3  # a target forward, ms
    each = list_separator().join(_("K = {k}: {measured} ms", k=r["k"], measured=number(r["draft_ms"]))
                                 for r in {r["k"]: r for r in rows}.values())  # one per K (rows repeat per suite)
    c_ms = number(rows[0]["c"] * one)
    return _("For Medusa, c is the time of one head over a target forward's: its block, the LM head's rows for the "
             "heads' draft vocabulary and the greedy token pick. A step of K drafts runs the blocks of heads 1 to K, "
             "all on the one hidden state the target's last pass gave (no drafter pass, and no head waits for "
             "another's token), and then the LM head once over all K of them. The curves and the table's predicted "
             "columns charge c of drafting a step whatever K, not K·c. They count the step as one head's pass and "
             "leave out what heads 2 to K add (their blocks and their rows of the LM head's product). This run's "
             "draft time per step: {each}. Its c, {c} of a "
             "target forward, is {c_ms} ms. Where a step's draft time is above {c_ms} ms, the curves and the "
             "table's predicted columns charge Medusa too little drafting and overstate its speedup.", each=each,
             c=small_number(rows[0]["c"]), c_ms=c_ms)


# The acceptance-by-position charts' y axis: each point counts only the steps that drafted that far
# (`Trace.per_position_acceptance`). Read 55: "share of steps with drafts 1..i all kept" read as a share of every
# step, which cannot rise with i, beside default-cpu-ngram's n-gram lookup at K = 8, T = 0, whose points rise from
# 0.057 at i = 3 to 0.066 at i = 5 (fewer steps draft that far).
POSITION_AXIS = N_("of the steps that drafted i or more: share with drafts 1..i all kept")


def acceptance_figure(result: BenchResult, proposer: str, temperature: float) -> go.Figure:
    """Acceptance by position for each K: at draft position i (from 1), the share of the steps that drafted at least
    i tokens whose first i drafts were all kept, next to α^i."""
    fig = go.Figure()
    for i, r in enumerate(result.rows(proposer=proposer, temperature=temperature, policy="constant")):
        pos = r["per_position"]
        fig.add_scatter(x=list(range(1, len(pos) + 1)), y=pos, mode="markers+lines", name=f"K = {r['k']}",
                        line=dict(color=SERIES[i % len(SERIES)]))
    alpha = result.mean_alpha(proposer, temperature)
    if alpha is not None:
        # read 54: the legend wrote "α = 0.56" (default-cpu-f32-packed, EAGLE, T = 0; Medusa's "0.27") for the mean α
        # the Speedup vs K legend writes 0.557 (0.272), and its line took every digit: it names the same mean α, to
        # the same 3 decimals, and draws α^i from α as written
        a = as_written(min(1.0, max(0.0, alpha)), ALPHA_DIGITS)
        n = max((len(r["per_position"]) for r in result.summary), default=1)
        fig.add_scatter(x=list(range(1, n + 1)), y=theory.acceptance_by_position(a, n), mode="lines",
                        name=_("α^i (i.i.d. model, at the mean α = {alpha})", alpha=number(a, ALPHA_DIGITS)),
                        line=dict(color=GREY, dash="dot"))
    fig.update_yaxes(range=[0, 1.05])
    fig.update_xaxes(dtick=1)
    return _layout(fig, _("Acceptance by position: {proposer}, T = {t}", proposer=proposer_text(proposer),
                            t=temperature_text(temperature)), _("draft position i"),
                   _(POSITION_AXIS))


DASHES = ["solid", "dash", "dot", "dashdot", "longdash"]  # one per proposer, so colour is never the only cue
SYMBOLS = ["circle", "diamond", "square", "triangle-up", "x"]
LABEL_GROUND = "rgba(255, 255, 255, 0.9)"  # behind a line's label that may lie on a bar: nearly opaque white


def proposers_acceptance_figure(result: BenchResult, temperature: float) -> go.Figure:
    """Acceptance by position of every proposer the run measured, each with its longest chain at `temperature`: on
    the same prompts, whose later drafts survive (Medusa's heads against the EAGLE drafter's depths, say)."""
    fig = go.Figure()
    for i, proposer in enumerate(result.proposers()):
        chains = result.rows(proposer=proposer, temperature=temperature, policy="constant")
        if not chains:
            continue
        r = max(chains, key=lambda row: row["k"])
        pos = r["per_position"]
        fig.add_scatter(x=list(range(1, len(pos) + 1)), y=pos, mode="markers+lines",
                        name=_("{proposer}, chain K = {k}", proposer=proposer_text(proposer), k=r["k"]),
                        line=dict(color=SERIES[i % len(SERIES)], dash=DASHES[i % len(DASHES)]),
                        marker=dict(symbol=SYMBOLS[i % len(SYMBOLS)], size=10))
    fig.update_yaxes(range=[0, 1.05])
    fig.update_xaxes(dtick=1)
    # read 50: "Acceptance, all proposers" named no quantity; the chart beside it and the tab say acceptance by position
    return _layout(fig, _("Acceptance by position, all proposers, T = {t}",
                          t=temperature_text(temperature)), _("draft position i"),
                   _(POSITION_AXIS))


def config_name(policy: str, k: int) -> str:
    """A configuration's name on a chart: "K = 4" for constant K, the policy with the K it starts at ("+2 / −1
    heuristic (K₀ = 4)"), and the optimal policy alone, since it picks its own K from c and α (make_policy ignores K).

    >>> config_name("constant", 4), config_name("optimal", 4)
    ('K = 4', 'optimal K from α and c')
    """
    if policy == "constant":
        return f"K = {k}"
    return policy_text(policy) if policy == "optimal" else f"{policy_text(policy)} (K₀ = {k})"


def time_breakdown_figure(result: BenchResult, proposer: str, temperature: float) -> go.Figure:
    """Per-step time split into draft / verify / overhead, per K and policy, next to target-only's time per token."""
    group = result.rows(proposer=proposer, temperature=temperature)
    names = [config_name(r["policy"], r["k"]) for r in group]
    fig = go.Figure()
    # each quantity's fill is the race's (`PHASE_PATTERNS`; read 53: the draft was solid here, striped there)
    for key, phase, color in (("draft_ms", "draft", ORANGE), ("verify_ms", "verify", BLUE),
                              ("overhead_ms", "overhead", LIGHT_GREY)):
        fig.add_bar(x=names, y=[r[key] for r in group], name=label(key),
                    marker=dict(color=color, pattern=phase_pattern(phase)))
    rate = result.baseline_tokens_per_second(TARGET_ONLY, temperature)
    if rate:
        fig.add_hline(y=1e3 / rate, line=dict(color=VERMILLION, dash="dash"),
                      annotation_text=_("target-only: {ms} ms per token", ms=number(1e3 / rate, 0)),
                      annotation_position="top left",
                      # on a white ground: over the first bar's stripes and crosses (the line crosses the bars when a
                      # step costs about one target-only token), the label was unreadable (read 52, a browser look)
                      annotation=dict(bgcolor=LABEL_GROUND))
    fig.update_layout(barmode="stack")
    return _layout(fig, _("Where a step's time goes (and how many tokens it must buy)"), _("configuration"),
                   _("ms per step"))


def time_breakdown_table(fig: go.Figure, result: BenchResult, temperature: float) -> pd.DataFrame | None:
    """`time_breakdown_figure`'s numbers: its bars (`figure_table`) and the dashed line they are read against,
    target-only decoding's time per token, written as its label writes it. The line is a shape, which a figure's
    table does not read: the table had the bars alone, and the caption's "the dashed line" no number (read 40)."""
    table = figure_table(fig)
    rate = result.baseline_tokens_per_second(TARGET_ONLY, temperature)
    if table is not None and rate:
        table[_("target-only ms per token (dashed line)")] = number(1e3 / rate, 0)
    return table


def category_figure(result: BenchResult, proposer: str, temperature: float) -> go.Figure:
    """Speedup vs target-only per prompt category, one bar per configuration."""
    titles = suite_titles(result)
    fig = go.Figure()
    configs = [(r["policy"], r["k"]) for r in result.rows(proposer=proposer, temperature=temperature)]
    for i, (policy, k) in enumerate(configs):
        found = [(title, result.row(suite=suite, proposer=proposer, temperature=temperature, policy=policy, k=k))
                 for suite, title in titles.items()]
        found = [(title, r) for title, r in found if r is not None]
        name = config_name(policy, k)
        fig.add_bar(x=[title.replace(" ", "<br>", 1) for title, _ in found],  # two short lines fit under a group
                    y=[r["speedup_vs_ar"] for _, r in found], name=name, marker_color=SERIES[i % len(SERIES)])
    fig.add_hline(y=1.0, line=dict(color=GREY, dash="dot"))
    fig.update_layout(barmode="group")
    fig.update_xaxes(tickangle=0)
    return _layout(fig, _("Speedup by category: {proposer}, T = {t}", proposer=proposer_text(proposer),
                            t=temperature_text(temperature)), _("prompt category"),
                   label("speedup_vs_ar") + " (×)", height=470)


def category_caption(result: BenchResult, proposer: str, temperature: float) -> str:
    """The By category chart's caption. Over several categories: which copy the prompt, and that each bar pools its
    category's prompts. Over one (read 53: most committed runs, whose caption spoke of "the other categories"): that
    there is nothing to compare, each bar being the speedup over all the run's prompts (the category's, counted at
    this proposer and temperature), and how a run compares categories."""
    titles = suite_titles(result)
    if len(titles) != 1:
        return _("Answers that copy the prompt (rewrites, summaries, code edits) give prompt lookup long matches; the "
                 "other categories repeat little. Each bar pools the prompts run in that category: check the "
                 "result's --prompts-per-suite before reading much into one bar.")
    suite, title = next(iter(titles.items()))
    prompts = len({case.get("prompt_id") for case in result.cases if case.get("suite") == suite
                   and case.get("proposer") == proposer and case.get("temperature") == temperature})
    return _("This run measured one prompt category, {category}, on {prompts}, so each bar is a configuration's "
             "speedup over all the run's prompts, as in the other tabs, and there is no other category to compare it "
             "with. A run over several categories (the bench's --suites; every suite by default) compares them: "
             "answers that copy the prompt (rewrites, summaries, code edits) give prompt lookup long matches, the "
             "other categories repeat little.", category=title,
             prompts=ngettext("{n} prompt", "{n} prompts", prompts))


FLAT_VERIFY = 1.35  # a verify curve whose 2..5-token costs stay under this is "nearly flat"
# ... and over this: a forward over more tokens that timed under about three quarters of a one-token forward (as far
# below 1 as FLAT_VERIFY is above it) is noise, not a cost (read 54: a live toy sweep on a busy 2-core machine timed
# 0.15, 1.76, 0.18, 0.16 one-token forwards for 2 to 5 tokens; a curve like it under FLAT_VERIFY read "nearly flat,
# as on a memory-bound GPU"). The committed runs' lowest is 0.878 (default-cpu-bf16-trees).
NOISY_VERIFY = 1 / FLAT_VERIFY


SMALL_PAIRS = ("default", "toy")  # SmolLM2-135M and the toy pair: small enough that a GPU forward is kernel launches


def sizes_text(sizes: list[int]) -> str:
    """The token counts a verify sentence quotes, as measured: "2 to 5 tokens" for a run of sizes, "2 tokens" for
    one, "2, 3, 5 tokens" otherwise (read 54: a sweep at K = 1 measured only 2 tokens, and its sentence read "2 to
    5 tokens cost 6.26× one").

    >>> sizes_text([2, 3, 4, 5]), sizes_text([2]), sizes_text([2, 3, 5])
    ('2 to 5 tokens', '2 tokens', '2, 3, 5 tokens')
    """
    if len(sizes) > 1 and sizes == list(range(sizes[0], sizes[-1] + 1)):
        return _("{low} to {high} tokens", low=sizes[0], high=sizes[-1])
    if len(sizes) == 1:
        return ngettext("{n} token", "{n} tokens", sizes[0])
    return _("{sizes} tokens", sizes=list_separator().join(map(str, sizes)))


def verify_sentence(result: BenchResult) -> str:
    """What this run's verify curve says, from its own numbers and dtype (never a fixed "on a CPU it climbs")."""
    curve = {int(v["n_tokens"]): float(v["ratio"]) for v in result.costs["verify"]}
    costs = [curve[n] for n in range(2, 6) if n in curve]
    intro = _("Speculation works because a target forward over several tokens costs little more than over one: the "
              "weights are read once for all of them.")
    if not costs:
        return intro
    low, high = number(min(costs)), number(max(costs))
    tokens = sizes_text([n for n in range(2, 6) if n in curve])  # read 54: a K = 1 sweep measured 2 tokens only
    span = low if low == high else f"{low}–{high}"  # "0.89–0.89×" read as a range of one value
    dtype = result.dtype or "float32"  # the first runs' files record none: float32, the only dtype then (run_dtype)
    if min(costs) < NOISY_VERIFY:  # no claim about the curve's shape from timings that cannot be costs
        sizes = [n for n in range(2, 6) if n in curve]
        return intro + " " + _(
            "In this run ({dtype}, on {machine}) forwards over {sizes} tokens timed {each} a one-token forward: a "
            "forward over more tokens does more work and cannot truly take well under the time of one over a single "
            "token, so these timings are noise (a busy machine, or a forward too short to time well: one token took "
            "{ms} ms) and say nothing about how verification costs here; measure again on a quiet machine.",
            dtype=dtype, machine=_machine(result), sizes=list_separator().join(map(str, sizes)),
            each=list_separator().join(number(curve[n]) + "×" for n in sizes),
            ms=number(result.costs["target_forward_seconds"] * 1e3))
    if result.gpu and max(costs) <= FLAT_VERIFY and (result.config or {}).get("pair") in SMALL_PAIRS:
        said = _("In this run ({dtype}, on the {gpu} GPU) {tokens} cost {span}× one: nearly flat. For a "
                 "model this small a GPU forward's time is most likely spent launching its kernels rather than "
                 "reading its weights (the run did not profile it), and that does not grow with the tokens.",
                 dtype=dtype, gpu=result.gpu, span=span, tokens=tokens)
    elif result.gpu and max(costs) <= FLAT_VERIFY:  # a pair of another size: what makes it flat is not measured here
        said = _("In this run ({dtype}, on the {gpu} GPU) {tokens} cost {span}× one: nearly flat.",
                 dtype=dtype, gpu=result.gpu, span=span, tokens=tokens)
    elif max(costs) <= FLAT_VERIFY:
        said = _("In this run ({dtype}, on {machine}) {tokens} cost {span}× one: nearly flat, as on a "
                 "memory-bound GPU.", dtype=dtype, machine=_machine(result), span=span, tokens=tokens)
    elif not result.gpu and run_kernels(result.machine or {}) == "stock":  # the runs from before packing
        # Read 46: "the curve climbs" was said of default-cpu-drafts' 1.63, 2.01, 1.55, 1.37 (2 to 5 tokens), which
        # peaks at 3 and falls to its lowest at 5; what this branch knows is that the curve is not flat (FLAT_VERIFY)
        said = _("In this run ({dtype}, on {machine}) {tokens} cost {span}× one: not flat, because "
                 "PyTorch's stock kernels are slow for a few tokens though neither memory- nor "
                 "compute-bound (a profile of the LM head finds them copying a matrix, most likely its weight, on every "
                 "call from 5 tokens on; the other layers were not profiled), and that eats into the gain.", dtype=dtype,
                 machine=_machine(result), span=span, tokens=tokens)
    elif all(a <= b for a, b in zip(costs, costs[1:])):
        said = _("In this run ({dtype}, on {machine}) {tokens} cost {span}× one: the curve climbs, as "
                 "on a compute-bound CPU, and that eats into the gain.", dtype=dtype, machine=_machine(result),
                 span=span, tokens=tokens)
    else:  # read 46: a zigzag (1.63, 2.01, 1.55, 1.37) does not climb; what is known is that it is not flat
        said = _("In this run ({dtype}, on {machine}) {tokens} cost {span}× one: not flat, though it does not "
                 "climb with every token, and that eats into the gain.", dtype=dtype, machine=_machine(result),
                 span=span, tokens=tokens)
    return f"{intro} {said}"


def _machine(result: BenchResult) -> str:
    """The run's machine as `quoted.machine_text` words it, or that its file names none."""
    from specviz.labs.bench.quoted import machine_text

    return machine_text(result.machine or {}) or _("a machine its file does not record")


# The dashed "the paper's assumption: free (1)" line and the dotted "no parallelism at all" line of every verify-cost
# chart. One colour per dtype, so the run's own line and the dtype curves below it pair up, none of them the
# assumption's or the no-parallelism line's (Read 45: float16 had the assumption's bluish green); a marker per dtype
# too, so colour is never the only cue. A dtype not listed is grey with circles.
ASSUMPTION_COLOR, SERIAL_COLOR = BLUISH_GREEN, VERMILLION
DTYPE_COLORS = {"float32": ORANGE, "bfloat16": BLUE, "float16": REDDISH_PURPLE}
DTYPE_SYMBOLS = {"float32": "circle", "bfloat16": "square", "float16": "diamond"}


def dtype_style(dtype: str | None) -> tuple[str, str]:
    """A verify-cost line's colour and marker symbol for `dtype` (a run without one ran in float32).

    >>> dtype_style("float16") == (REDDISH_PURPLE, "diamond"), dtype_style("float64") == (GREY, "circle")
    (True, True)
    """
    dtype = dtype or "float32"
    return DTYPE_COLORS.get(dtype, GREY), DTYPE_SYMBOLS.get(dtype, "circle")


def verify_cost_figure(result: BenchResult) -> go.Figure:
    """Target forward time over n new tokens (warm cache), relative to one token: the reason the method works.

    Its line is the run's first timing of these forwards, made with the draft's cost c (`costs["verify"]`); the
    legend says so and how many rounds, since the curves below it (`trees.dtype_curve_figure`) time the same
    forwards again, separately, and read a little differently (issue 43)."""
    verify = result.costs["verify"]
    ns = [v["n_tokens"] for v in verify]
    rounds = result.costs.get("repeats")
    color, symbol = dtype_style(result.dtype)
    fig = go.Figure()
    # read 55: its hover and table wrote three significant figures (0.973, 0.969, 0.931 in default-cpu-f32-packed)
    # beside the sentence above it ("0.93–1.09×") and the verify cost the dashed Speedup vs K curve divides by, 0.97
    # and 0.93 as results.md's Costs table writes them (`summary.written_verify`): at K = 2 the chart's 0.973 gives
    # 1.63, the curve reads 1.64. It writes them as that table does, `summary.VERIFY_DIGITS` decimals.
    fig.add_scatter(x=ns, y=[v["ratio"] for v in verify], mode="markers+lines",
                    name=_("measured with c: median of {rounds} rounds", rounds=rounds) if rounds else _("measured"),
                    marker=dict(size=10, color=color, symbol=symbol), line=dict(color=color),
                    hovertemplate="(%{x}" + list_separator() + "%{y:." + str(summary.VERIFY_DIGITS) + "f})")
    fig.add_scatter(x=ns, y=[1.0] * len(ns), mode="lines", name=_("the paper's assumption: free (1)"),
                    line=dict(color=ASSUMPTION_COLOR, dash="dash"))
    fig.add_scatter(x=ns, y=ns, mode="lines", name=_("no parallelism at all: n one-token forwards"),
                    line=dict(color=SERIAL_COLOR, dash="dot"))
    one = result.costs["target_forward_seconds"] * 1e3
    fig.update_xaxes(dtick=1)
    return _layout(fig, _("Verify cost vs tokens fed (1 token = {ms} ms)", ms=number(one, 1)),
                   _("tokens in one target forward"), _("time / one-token forward"))
