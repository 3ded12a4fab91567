"""The Theory explorer's "When speculation stops paying" section: hardware, model pair, context and batch drive a
roofline verify cost (`specviz.labs.roofline`), and the speedup and the break-even α move as the batch grows. The
figures return `plotly.graph_objects.Figure`s and are tested without a browser; `render` draws the section.
"""

from __future__ import annotations

import math
from functools import partial

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from specviz.core.i18n import N_, _, number, times
from specviz.engine.limits import pays
from specviz.labs import roofline
from specviz.labs.roofline import BatchPoint
from specviz.ui.common import charts
from specviz.ui.common.palette import BLUE, BLUISH_GREEN, GREY, ORANGE, VERMILLION
from specviz.ui.common import roofline as serving_roofline
from specviz.ui.common.roofline import paying_ranges, paying_runs  # shared with the Serving lab
from specviz.ui.theory import costs as theory_costs
from specviz.ui.theory.points import setting_text

BATCHES = [2**i for i in range(11)]  # 1 .. 1024, the batch slider's stops
CONTEXTS = [128, 512, 2048, 8192]
PAYS_FILL = "rgba(0, 158, 115, 0.13)"  # bluish green, faint: where speculation pays
NEVER_FILL = "rgba(213, 94, 0, 0.08)"  # vermillion, fainter: where no α below 1 pays
# Every sentence of this section that a user reads, in one place, translated with _() where shown.
TEXT = {
    "intro": N_("Everything above assumes that scoring K + 1 tokens costs one forward (v = 1). That holds while a "
                "forward waits on memory: reading the weights once serves every token in the pass. A server runs "
                "many sequences in one batch; as the batch grows the arithmetic catches up, verifying K + 1 tokens "
                "starts to cost K + 1 tokens' compute, and speculation, which spends idle compute to save memory "
                "reads, stops paying. A roofline model of one forward over n tokens for each of B sequences:"),
    "formula_note": N_("W = the weights' bytes, κ = KV-cache bytes per token, L = the context, P = parameters. The "
                       "draft's cost c(B) is its own t(B, 1) over the target's. α and K are the sliders at the top."),
    "hardware_source": N_("{name}, weights in {dtype}: {source}."),
    "pays_up_to": N_("With α = {alpha} and K = {k}, the roofline model predicts that speculation pays up to a batch "
                     "of **{batch}** sequences on this hardware; beyond it, plain decoding is faster."),
    "ridge": N_("The verify pass over K + 1 = {n} tokens per sequence turns compute-bound near a batch of {ridge}: "
                "from there each verified position costs compute, and v climbs from 1 toward {n}, a value it reaches "
                "only once even a one-token pass is compute-bound (near {ridge_one})."),
    # a ridge below 1 (the benchmark CPU's preset: 0.9 for K = 4): "turns compute-bound near a batch of 1 ... v climbs
    # from 1" sat beside v = 1.11 at B = 1 (44th read)
    "ridge_at_one": N_("The verify pass over K + 1 = {n} tokens per sequence is compute-bound already at batch 1, "
                       "where v = {v}: each verified position costs compute, and v climbs toward {n} as the batch "
                       "grows, a value it reaches only once even a one-token pass is compute-bound (near "
                       "{ridge_one})."),
    # read 52: with each sequence's cache long enough that a one-token pass never turns compute-bound (the laptop
    # preset, SmolLM2 at 512 tokens: its ridge is inf) the caption was left out, though the K + 1-token pass still
    # turns compute-bound (near a batch of 8 for K = 4) and v climbs from there
    "ridge_no_one": N_("The verify pass over K + 1 = {n} tokens per sequence turns compute-bound near a batch of "
                       "{ridge}: from there each verified position costs compute, and v climbs from 1, but it stays "
                       "below {n}: with each sequence's cache of {context} tokens a one-token pass stays "
                       "memory-bound whatever the batch."),
    "ridge_at_one_no_one": N_("The verify pass over K + 1 = {n} tokens per sequence is compute-bound already at "
                              "batch 1, where v = {v}: each verified position costs compute, and v climbs as the "
                              "batch grows, but it stays below {n}: with each sequence's cache of {context} tokens "
                              "a one-token pass stays memory-bound whatever the batch."),
    "pays_always": N_("With α = {alpha} and K = {k}, the roofline model predicts that speculation pays at every "
                      "batch up to {batch}: {reason}"),
    # the model's reason, for the settings shown: which one holds depends on where the verify pass's ridge falls
    "always_no_ridge": N_("with these settings reading each sequence's cache of {context} tokens takes longer than "
                          "that sequence's share of the compute, so in the model the verify pass never turns "
                          "compute-bound, whatever the batch."),
    "always_past_max": N_("with these settings the model's verify pass stays memory-bound up to that batch (it would "
                          "turn compute-bound near {ridge})."),
    "always_low_v": N_("in the model the verify pass turns compute-bound near a batch of {ridge}, but with these "
                       "settings v climbs no higher than {v}, which the tokens each step emits still pay for."),
    "pays_never": N_("With α = {alpha} and K = {k}, the roofline model predicts that speculation does not pay even "
                     "at batch 1 on this hardware."),
    # read 47: "does not pay even at batch 1" sat beside a curve that crossed 1× at larger batches. For the SmolLM2
    # pairs c falls as the batch grows (c = 0.071 at B = 1, 0.034 at B = 1,024 for the EAGLE drafter on an H100 at
    # 512 tokens), so near the break-even α speculation loses at batch 1 and pays at larger batches
    # read 48: "from {first} to {last}" read the paying batches as one run; they are its runs (`paying_ranges`)
    "pays_later": N_("With α = {alpha} and K = {k}, the roofline model predicts that speculation does not pay at "
                     "batch 1 on this hardware, but pays at larger batches ({ranges}): the draft's cost c falls as "
                     "the batch grows, because its KV caches, which grow with the batch, are a smaller share of the "
                     "target's than its weights are."),
    # Read 45: "barely changed" undersold a separate draft model's prefill: a 7B draft adds about a tenth of a 72B
    # target's prefill compute (7.6 / 72.7 billion parameters)
    "ttft": N_("**Time to first token: changed only by the draft's own prefill.** The first token comes from the "
               "prefill, the one pass over the prompt that plain decoding makes too; speculation only changes how the "
               "tokens after it are made. It adds the draft's own pass over the prompt: an EAGLE drafter's is one "
               "small layer and n-gram lookup adds nothing, but a separate draft model's prefill costs about its "
               "share of the target's parameters (about a tenth for a 7B draft of a 72B target). c does not price "
               "that pass: c is measured on one-token passes, and a prefill scores the whole prompt at once."),
    "guidance": N_("**What serving engines advise.** vLLM's documentation presents speculative decoding as a way to "
                   "cut inter-token latency under low to medium load, in memory-bound workloads "
                   "([vLLM: Speculative Decoding](https://docs.vllm.ai/en/latest/features/speculative_decoding/)); "
                   "Hugging Face TGI bases its use on models being memory-bound rather than compute-bound "
                   "([TGI: Speculation](https://huggingface.co/docs/text-generation-inference/conceptual/"
                   "speculation)); TensorRT-LLM names small batches that leave the GPU underused "
                   "([TensorRT-LLM: Speculative Sampling](https://nvidia.github.io/TensorRT-LLM/advanced/"
                   "speculative-decoding.html)). How much it keeps at high load depends on the method: vLLM's own "
                   "table rates EAGLE and MTP drafts medium to high gain at high QPS (high at low QPS), and a separate "
                   "draft model and n-gram and suffix lookup medium (the lookups low to medium at low QPS); its text "
                   "calls the lookups' speedups modest, adding no load at peak traffic. So at peak load "
                   "watch the measured acceptance rate and latency, and shorten K or switch speculation off where, as "
                   "in the chart above, it stops paying for your method."),
    # read 52: the fitted values are at the run's own context and batch 1 (`fitted_curve`), so they differ from the v
    # metric above at the page's context (1.15 against 1.11 for n = 5 at the default 512 tokens): the caption says so
    "measured_fit": N_("The benchmark CPU is not a clean roofline: at batch 1 and the run's context of {context} "
                       "tokens, measured v for n = 1..{n} tokens {measured}; the fitted roofline says {fitted} there "
                       "(the metrics above take the context and batch chosen here). It under-states small verify "
                       "passes, so for that CPU the Speedup lab's measured curve is the better guide."),
}


def _at_batch(label: str) -> str:
    """A metric label with its "B = 1" unbroken: in a quarter-width column the label wrapped between "B =" and "1"
    ("Predicted break-even α at B =" over "1", in both languages; Read 44), the batch alone on a line."""
    return label.replace(" = ", "\u00a0=\u00a0")


def _only_alpha_one(point: BatchPoint) -> bool:
    """Whether only α = 1 breaks even at this batch (K c + v = K + 1): then no α below 1 pays, and "above this α"
    names no α at all."""
    return point.break_even_alpha >= 1.0


def _ridge_caption(k: int, ridge: float, ridge_one: float, v_at_one: float, context: int) -> str:
    """Where the verify pass over K + 1 tokens turns compute-bound (`roofline.ridge_batch`), and whether v can reach
    K + 1: only once a one-token pass is compute-bound too, which a long enough cache puts off for ever (`ridge_one`
    inf). "" where even the K + 1-token pass never turns compute-bound (the success box says so where it matters)."""
    if math.isinf(ridge):
        return ""
    # a ridge below 1 is compute-bound already at batch 1 (44th read)
    at_one, n, whole = ridge <= 1 and ridge_one > 1, k + 1, number(math.ceil(ridge), 0)
    if math.isinf(ridge_one):
        return (_(TEXT["ridge_at_one_no_one"], n=n, v=number(v_at_one), context=number(context, 0)) if at_one else
                _(TEXT["ridge_no_one"], n=n, ridge=whole, context=number(context, 0)))
    one = number(math.ceil(ridge_one), 0)
    return (_(TEXT["ridge_at_one"], n=n, v=number(v_at_one), ridge_one=one) if at_one else
            _(TEXT["ridge"], n=n, ridge=whole, ridge_one=one))


def _always_reason(points: list[roofline.BatchPoint], ridge: float, context: int) -> str:
    """Why the roofline predicts speculation pays at every batch it looks at, for the settings shown."""
    if math.isinf(ridge):
        return _(TEXT["always_no_ridge"], context=number(context, 0))
    if ridge > roofline.MAX_BATCH:
        return _(TEXT["always_past_max"], ridge=number(math.ceil(ridge), 0))
    v = max(p.verify_cost for p in points if p.batch <= roofline.MAX_BATCH)
    return _(TEXT["always_low_v"], ridge=number(math.ceil(ridge), 0), v=number(v))


# ---- figures ----------------------------------------------------------------------------------------------------


def paying_note(paying: list[int]) -> str:
    """What the speedup chart shades, in words, for the table under it (which reads only the lines)."""
    if not paying:
        return _("The chart shades no batch: the model predicts speculation pays at none of them.")
    return _("The chart shades the batches where the model predicts speculation pays: {ranges}.",
             ranges=paying_ranges(paying))


NARROW_RUN = 0.01  # a run of paying batches narrower than this share of the log axis is drawn MIN_RUN_PX wide
MIN_RUN_PX = 6


def speedup_vs_batch_figure(points: list[BatchPoint], batch: int, even_batch: int | None,
                            paying: list[int] | None = None) -> go.Figure:
    """Speedup against batch size (log axis), 1× drawn, the batches where speculation pays shaded (`paying`, from
    `roofline.paying_batches`; by default every batch up to `even_batch`), the chosen batch and the break-even batch
    marked. Read 48: a draft that loses at batch 1 and pays at larger batches (`pays_later`) had no shading at all;
    each run of paying batches is shaded wherever it lies. A run too narrow to see on the log axis (a single batch
    drew a rectangle of width 0) is drawn MIN_RUN_PX pixels wide about its batches, outlined."""
    xs, ys = [p.batch for p in points], [p.speedup for p in points]
    if paying is None:
        last = xs[-1] if even_batch is None else even_batch
        paying = list(range(xs[0], last + 1))
    shapes = [dict(type="line", xref="paper", x0=0, x1=1, y0=1, y1=1, line=dict(color=GREY, dash="dot"))]
    notes = []
    runs = paying_runs(paying)
    span = math.log10(xs[-1] / xs[0]) or 1.0
    for first, last in reversed(runs):
        if math.log10(last / first) / span >= NARROW_RUN:
            shapes.insert(0, dict(type="rect", xref="x", yref="paper", x0=first, x1=last, y0=0, y1=1, line_width=0,
                                  fillcolor=PAYS_FILL, layer="below"))
        else:  # read 48: a run of one batch was a rectangle of width 0, invisible
            shapes.insert(0, dict(type="rect", xref="x", yref="paper", xsizemode="pixel",
                                  xanchor=math.sqrt(first * last), x0=-MIN_RUN_PX / 2, x1=MIN_RUN_PX / 2, y0=0, y1=1,
                                  fillcolor=PAYS_FILL, line=dict(color=BLUISH_GREEN, width=1), layer="below"))
    if runs:
        notes.append(dict(x=math.log10(runs[0][0]), y=0.02, xref="x", yref="paper", xanchor="left",
                          yanchor="bottom", showarrow=False, text=_("speculation pays"),
                          font=dict(color=BLUISH_GREEN)))
    if even_batch:
        shapes.append(dict(type="line", xref="x", yref="paper", x0=even_batch, x1=even_batch, y0=0, y1=1,
                           line=dict(color=VERMILLION, dash="dash", width=2)))
        right_half = (math.log10(even_batch) - math.log10(xs[0])) / span > 0.5  # then the words go left of the line,
        notes.append(dict(x=math.log10(even_batch), y=1, xref="x", yref="paper",  # inside the plot on a phone too
                          xanchor="right" if right_half else "left", yanchor="top", showarrow=False,
                          text=_("predicted break-even: batch {batch}", batch=number(even_batch, 0)),
                          font=dict(color=VERMILLION)))
    chosen = next(p for p in points if p.batch == batch)
    # the mark hovers as the line does (2 decimals), so its table cell reads as the line's in the same row: 0.71 at
    # batch 256, not 0.707 (read 51)
    hover = _batch_hover(_("batch %{x}: %{y:.2f}×"))
    fig = go.Figure([go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=BLUE, width=2.5),
                                name=_("predicted speedup (roofline)"), customdata=_batches(xs), hovertemplate=hover),
                     go.Scatter(x=[batch], y=[chosen.speedup], mode="markers",
                                name=_("your batch ({batch})", batch=number(batch, 0)),
                                marker=dict(size=13, color="black", symbol="x"), customdata=_batches([batch]),
                                hovertemplate=hover)])
    fig.update_layout(xaxis_title=_("batch size B (sequences per forward)"), yaxis_title=_("expected speedup ×"),
                      height=360, margin=dict(l=10, r=10, t=30, b=10), showlegend=False, shapes=shapes,
                      annotations=notes, title=_("Speedup as the batch grows"), xaxis=_batch_axis(xs),
                      yaxis=dict(automargin=True))
    return fig


def break_even_figure(points: list[BatchPoint], alpha: float, batch: int) -> go.Figure:
    """The break-even α against batch size: above the line speculation pays (shaded); your α as a level line and
    the break-even α at your batch as a marker."""
    finite = [p for p in points if math.isfinite(p.break_even_alpha)]
    fig = go.Figure()
    if finite:
        xs, ys = [p.batch for p in finite], [p.break_even_alpha for p in finite]
        fig.add_trace(go.Scatter(x=xs, y=[1.0] * len(xs), mode="lines", line=dict(width=0), hoverinfo="skip",
                                 showlegend=False, name="top"))
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", fill="tonexty", fillcolor=PAYS_FILL,
                                 line=dict(color=VERMILLION, width=2.5), name=_("break-even α"),
                                 customdata=_batches(xs),
                                 hovertemplate=_batch_hover(_("batch %{x}: break-even α = %{y:.3f}"))))
    shapes = [dict(type="line", xref="paper", x0=0, x1=1, y0=alpha, y1=alpha,
                   line=dict(color=BLUISH_GREEN, dash="dot", width=2))]
    never = [p.batch for p in points if not math.isfinite(p.break_even_alpha)]
    notes = []
    if never:  # from here on no α < 1 pays: the verify pass costs more than K + 1 tokens can bring back
        shapes.append(dict(type="rect", xref="x", yref="paper", x0=never[0], x1=points[-1].batch, y0=0, y1=1,
                           line_width=0, fillcolor=NEVER_FILL, layer="below"))
        notes.append(dict(x=math.log10(points[-1].batch), y=0.02, xref="x", yref="paper", xanchor="right",
                          yanchor="bottom", showarrow=False, text=_("no α pays"),  # from the right end, inward:
                          font=dict(color=VERMILLION)))  # the region is at the right, where a phone cut the words
    fig.update_layout(shapes=shapes,
                      annotations=notes + [dict(x=0, y=alpha, xref="paper", xanchor="left", yanchor="bottom",
                                                showarrow=False, text=_("your α = {alpha}", alpha=setting_text(alpha)),
                                                font=dict(color=BLUISH_GREEN))])
    here = next(p for p in points if p.batch == batch)
    if math.isfinite(here.break_even_alpha):
        fig.add_trace(go.Scatter(x=[batch], y=[here.break_even_alpha], mode="markers",
                                 name=_("your batch ({batch})", batch=number(batch, 0)),
                                 marker=dict(size=13, color=ORANGE, symbol="diamond", line=dict(width=1,
                                                                                                color="black")),
                                 customdata=_batches([batch]),
                                 hovertemplate=_batch_hover(_("batch %{x}: break-even α = %{y:.3f}"))))
    fig.update_layout(xaxis_title=_("batch size B (sequences per forward)"), yaxis_title=_("break-even α"),
                      height=360, margin=dict(l=10, r=10, t=30, b=10), showlegend=False,
                      title=_("Break-even α as the batch grows"))  # read 47: it "moves up" for 7B-for-72B,
    # but falls for SmolLM2 + EAGLE on an H100 (0.222 at B = 1, 0.120 at B = 1,024): c falls as the batch grows
    fig.update_layout(xaxis=_batch_axis([p.batch for p in points]), yaxis=dict(range=[0, 1.02]))
    return fig


def break_even_table(points: list[BatchPoint], alpha: float, batch: int) -> pd.DataFrame:
    """The break-even chart's numbers: every batch computed with its break-even α, or "no α pays" where the chart
    shades the batch (the table read off the figure held an unnamed column of 1s, the fill's upper edge, and
    stopped at the last batch some α paid); a break-even α of 1 says that no α below 1 pays (read 51). Read 54: the
    chart also marks your batch (the diamond) and your α (the dotted level line, above the break-even α where
    speculation pays), which the table left out: a column gives your batch's break-even α in its row, as the
    speedup chart's table does, and one says at which batches your α pays (`limits.pays`, a tie paying)."""
    evens = [_("no α pays") if not math.isfinite(p.break_even_alpha) else
             _("{alpha}: no α below 1 pays", alpha=number(p.break_even_alpha, 3))
             if _only_alpha_one(p) else number(p.break_even_alpha, 3) for p in points]
    return pd.DataFrame({_("batch size B (sequences per forward)"): [number(p.batch, 0) for p in points],
                         _("break-even α"): evens,
                         _("your batch ({batch})", batch=number(batch, 0)):
                             [even if p.batch == batch else "–" for p, even in zip(points, evens)],
                         _("speculation at your α = {alpha}", alpha=setting_text(alpha)):
                             [_("pays") if pays(p.speedup) else _("does not pay") for p in points]})


def _batches(batches: list[int]) -> list[list[str]]:
    """Each batch as the axis's ticks, the slider and the tables write it ("1,024"; "1.024" in Portuguese), one
    customdata row a point, for `_batch_hover`."""
    return [[number(b, 0)] for b in batches]


def _batch_hover(template: str) -> str:
    """A translated hover whose batch is `%{x}`, with the batch taken from the points' customdata (`_batches`):
    Plotly wrote %{x} bare, "batch 1024" over the axis's and the table's "1,024" (read 53)."""
    return template.replace("%{x}", "%{customdata[0]}") + "<extra></extra>"


def _batch_axis(batches: list[int]) -> dict:
    """A log axis over the batches computed (a little margin, so markers at the ends show whole), ticked at the
    powers of two."""
    return dict(type="log", range=[math.log10(batches[0]) - 0.06, math.log10(batches[-1]) + 0.06], tickvals=BATCHES,
                ticktext=[number(b, 0) for b in BATCHES])  # 1,024 (1.024 in Portuguese), as the slider


# ---- the section --------------------------------------------------------------------------------------------------


def _fmt_ratios(values: list[float]) -> str:
    return " / ".join(number(v) for v in values)


def render(alpha: float, k: int) -> None:
    """The whole section, for the α and K chosen at the top of the page."""
    st.subheader(_("When speculation stops paying"))
    st.markdown(_(TEXT["intro"]))
    st.latex(r"t(B, n) = \max\!\Big(\frac{W + B\,L\,\kappa}{\text{%s}},\;"  # LaTeX; only the words are messages
             r"\frac{2\,P\,B\,n}{\text{FLOP/s}}\Big)" % _("bandwidth"))  # one formula a line: a phone shows it whole
    st.latex(r"v(B, K) = \frac{t(B, K+1)}{t(B, 1)}")
    st.latex(r"\text{%s}(B) = \frac{1 - \alpha^{K+1}}{(1 - \alpha)\,\big(K\,c(B) + v(B, K)\big)}" % _("speedup"))
    st.caption(_(TEXT["formula_note"]))
    presets = roofline.hardware_presets()
    c1, c2, c3, c4 = st.columns(4)
    hw_key = c1.selectbox(_("Hardware"), list(presets), format_func=lambda key: _(presets[key].name),
                          key="theory_hw", index=list(presets).index("h100"))
    pair_key = c2.selectbox(_("Models"), list(roofline.PAIRS), format_func=lambda key: _(roofline.PAIRS[key].name),
                            key="theory_pair", index=list(roofline.PAIRS).index("qwen-7b-72b"))
    whole = partial(number, digits=0)  # 2,048 and 1,024; 2.048 and 1.024 in Portuguese
    context = c3.select_slider(_("Context per sequence (tokens)"), CONTEXTS, value=512, key="theory_context",
                               format_func=whole)
    batch = c4.select_slider(_("Batch size B"), BATCHES, value=1, key="theory_batch", format_func=whole,
                             help=_("Sequences the server decodes together in one forward pass."))
    hw, pair = presets[hw_key], roofline.PAIRS[pair_key]
    st.caption(_(TEXT["hardware_source"], name=_(hw.name), dtype=hw.dtype, source=_(hw.source)))

    if k == 0:
        st.info(_("K = 0 drafts nothing, so there is nothing to verify: pick K ≥ 1 at the top to see the batch "
                  "effect."))
        return
    grid = sorted(set(roofline.batch_grid()) | set(BATCHES))
    points = roofline.sweep(alpha, k, pair, hw, context, grid)
    here = next(p for p in points if p.batch == batch)
    even = roofline.break_even_batch(alpha, k, pair, hw, context)
    paying = roofline.paying_batches(alpha, k, pair, hw, context)
    m1, m2, m3, m4 = st.columns(4)
    # the metrics are the roofline model's outputs, not measurements: each label says so, since a metric is read alone
    m1.metric(_at_batch(_("Predicted verify cost v at B = {batch}", batch=number(batch, 0))), number(here.verify_cost),
              help=_("One target forward over K + 1 = {n} tokens per sequence, in one-token forwards: 1 while that "
                     "pass is memory-bound, then climbing toward K + 1, which it reaches only once a one-token pass "
                     "is compute-bound too.", n=k + 1))
    # read 53: the n-gram pair read "0.000", its help "one draft forward", which a lookup does not run
    m2.metric(_("Predicted draft cost c"), number(here.draft_cost, 3) if pair.draft is not None else "0",
              help=_("The roofline model's time of one draft forward over its time of one target forward, same "
                     "batch: a prediction, not a measurement.") if pair.draft is not None else
              _("Exactly 0: n-gram lookup runs no draft model, so the roofline model charges it no forward pass "
                "(the lookup's own small CPU time is not modelled)."))
    # 44th read: it had no help, beside the top's "Expected speedup" of another value (2.80× against 2.37× at B = 1
    # by default: the slider's c = 0.05 there, the roofline's c = 0.105 here)
    m3.metric(_at_batch(_("Expected speedup at B = {batch}", batch=number(batch, 0))), times(here.speedup),
              help=_("The formula at the top with this section's predicted c and v: mean accepted length / (K c + v), "
                     "for the α and K of the sliders. A prediction, not a measurement; the Expected speedup at the "
                     "top takes the slider's c and v = 1 instead, so the two can differ even at B = 1."))
    # read 51: "Above this α speculation pays" sat under 1.000, where only α = 1 ties (n-gram lookup, c = 0, once
    # v = K + 1: the benchmark CPU's preset, α 0.05, K 1, batch 64)
    only_one = _only_alpha_one(here)
    m4.metric(_at_batch(_("Predicted break-even α at B = {batch}", batch=number(batch, 0))), _("never")
              if math.isnan(here.break_even_alpha)
              else number(here.break_even_alpha, 3), delta=_("no α below 1 pays") if only_one else None,
              delta_color="off", delta_arrow="off",
              help=_("Only α = 1 breaks even (a speedup of exactly 1): no α below 1 pays at this batch size.")
              if only_one else
              # read 52: "Above this α" sat under "never", where there is no α (K c + v > K + 1)
              _("No α pays at this batch size: even at α = 1 the K + 1 tokens a step emits do not pay for its cost, "
                "K c + v.") if math.isnan(here.break_even_alpha) else
              _("Above this α speculation pays at this batch size."))
    ridge, ridge_one = (roofline.ridge_batch(pair.target, hw, n, context) for n in (k + 1, 1))
    if even is None:
        st.success(_(TEXT["pays_always"], alpha=setting_text(alpha), k=k, batch=number(roofline.MAX_BATCH, 0),
                     reason=_always_reason(points, ridge, context)))
    elif even == 0 and paying:
        st.warning(_(TEXT["pays_later"], alpha=setting_text(alpha), k=k, ranges=paying_ranges(paying)))
    elif even == 0:
        st.warning(_(TEXT["pays_never"], alpha=setting_text(alpha), k=k))
    else:
        st.info(_(TEXT["pays_up_to"], alpha=setting_text(alpha), k=k, batch=number(even, 0)))
    ridge_caption = _ridge_caption(k, ridge, ridge_one, points[0].verify_cost, context)
    if ridge_caption:
        st.caption(ridge_caption)
    left, right = st.columns(2)
    sweep = serving_roofline.committed()
    fig, measured = serving_roofline.on_chart(speedup_vs_batch_figure(points, batch, even, paying), pair_key, hw,
                                            sweep)
    charts.show(fig, key="theory_batch_speedup", where=left, note=paying_note(paying),
                table=serving_roofline.chart_table(fig, pair_key, sweep))
    left.caption(measured)
    charts.show(break_even_figure(points, alpha, batch), key="theory_batch_even", where=right,
                table=break_even_table(points, alpha, batch))
    if hw_key == "measured":
        curve = roofline.measured_curve()
        fitted = list(roofline.fitted_curve().values())  # at the run's own context, as fitted (read 46)
        st.caption(_(TEXT["measured_fit"], n=max(curve), measured=_fmt_ratios(list(curve.values())),
                     fitted=_fmt_ratios(fitted), context=number(roofline.measured_context(), 0)))
    theory_costs.render(alpha, k, pair, hw, batch, context)
    st.markdown(_(TEXT["ttft"]))
    st.markdown(_(TEXT["guidance"]))
