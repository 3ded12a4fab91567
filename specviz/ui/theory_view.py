"""The Theory explorer's parts: measured points (benchmark files, a trace) and the Plotly figures.

Everything but `render_derivations` is plain Python returning data or a `plotly.graph_objects.Figure`, so the
figures can be tested without a browser. The formulas themselves live in `specviz.theory`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from specviz import theory
from specviz.trace import Trace
from specviz.ui.palette import BLUE, GREY, ORANGE, REDDISH_PURPLE, VERMILLION

BENCHMARKS_DIR = Path(__file__).resolve().parent.parent.parent / "assets" / "benchmarks"
K_MAX = 16
ALPHAS = np.round(np.linspace(0.0, 1.0, 101), 2)


# ---- measured points ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MeasuredPoint:
    """One measured run: its alpha, K and c, and its speedup over target-only decoding (None when unknown)."""

    alpha: float
    k: int
    c: float
    measured_speedup: float | None
    label: str
    source: str

    @property
    def predicted_speedup(self) -> float:
        return theory.expected_speedup(self.alpha, self.k, self.c)


SPEEDUP_KEYS = ("measured_speedup", "speedup_vs_ar")  # the second is what `specviz bench` writes


def _records(obj: Any) -> list[dict]:
    """The benchmark records in a JSON document: dicts with alpha, k, c and a measured speedup, however nested.

    A `specviz bench` results.json holds per-prompt "cases" and pooled "summary" rows; only the summary rows pooled
    over all suites with a constant K are taken, so one setting gives one point.
    """
    if isinstance(obj, dict) and isinstance(obj.get("summary"), list):
        pooled = [r for r in obj["summary"] if isinstance(r, dict) and r.get("suite", "all") == "all"
                  and r.get("policy", "constant") == "constant"]
        return [r for r in pooled if _is_record(r)]
    if isinstance(obj, dict):
        return [obj] if _is_record(obj) else [r for value in obj.values() for r in _records(value)]
    if isinstance(obj, list):
        return [r for value in obj for r in _records(value)]
    return []


def _is_record(d: dict) -> bool:
    return {"alpha", "k", "c"} <= d.keys() and any(key in d for key in SPEEDUP_KEYS)


def load_benchmark_points(folder: Path | str | None = None) -> list[MeasuredPoint]:
    """Benchmark records (alpha, k, c and measured_speedup, or a `specviz bench` results.json) from the JSON files
    under `folder` (default assets/benchmarks/, subfolders included).

    A missing folder gives no points; unreadable files and records with out-of-range numbers are skipped.
    """
    folder = Path(folder) if folder is not None else BENCHMARKS_DIR
    points: list[MeasuredPoint] = []
    for path in sorted(folder.rglob("*.json")) if folder.is_dir() else []:
        try:
            records = _records(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
        source = str(path.relative_to(folder))
        for i, r in enumerate(records):
            try:
                speedup = next(r[key] for key in SPEEDUP_KEYS if r.get(key) is not None)
                alpha, k, c, s = float(r["alpha"]), int(r["k"]), float(r["c"]), float(speedup)
                theory.expected_speedup(alpha, k, c)  # validates the ranges
            except (StopIteration, TypeError, ValueError):
                continue
            if not (math.isfinite(s) and s > 0) or k > K_MAX:
                continue
            points.append(MeasuredPoint(alpha, k, c, s, _record_label(r, path, i), source))
    return points


def _record_label(r: dict, path: Path, i: int) -> str:
    name = r.get("label") or r.get("name")
    if name:
        return str(name)
    parts = [str(r[key]) for key in ("pair", "proposer") if r.get(key)]
    if r.get("temperature") is not None:
        parts.append(f"T = {r['temperature']}")
    return ", ".join(parts) or f"{path.parent.name}/{path.stem} #{i + 1}"


@dataclass(frozen=True)
class TracePoint:
    """What one speculative trace says about the formulas."""

    alpha: float  # mean of min(1, p/q) over tested drafts: the estimate of alpha
    acceptance_rate: float  # accepted / drafted (lower: drafts after a rejection count as drafted)
    k: int
    tokens_per_step: float  # measured mean accepted length, bonus included
    c: float | None  # draft seconds per drafted token / target seconds per step, from the step timings

    @property
    def predicted_tokens_per_step(self) -> float:
        return theory.expected_tokens_per_step(self.alpha, self.k)


def trace_point(trace: Any) -> TracePoint:
    """The (alpha, K) of a speculative trace; a trace that cannot give one is a ValueError with one sentence."""
    if not isinstance(trace, Trace) or trace.mode != "speculative":
        raise ValueError("The trace in this session is not a speculative-decoding trace.")
    k = trace.settings.get("k")
    if not isinstance(k, int) or not 1 <= k <= K_MAX:
        raise ValueError(f"The trace in this session has no usable K in its settings (got {k!r}).")
    alpha = trace.mean_accept_prob
    if not math.isfinite(alpha):
        raise ValueError("The trace in this session tested no drafts, so it says nothing about α.")
    drafted = [s for s in trace.steps if s.n_drafted]
    draft_s = sum(s.draft_seconds for s in drafted)
    verify_s = sum(s.verify_seconds for s in drafted)
    c = (draft_s / sum(s.n_drafted for s in drafted)) / (verify_s / len(drafted)) if verify_s > 0 else None
    return TracePoint(min(1.0, max(0.0, alpha)), trace.acceptance_rate, k, trace.mean_accepted_length, c)


# ---- figures ----------------------------------------------------------------------------------------------------


def heatmap_figure(c: float, alpha: float, k: int, points: list[MeasuredPoint] = (),
                   trace: TracePoint | None = None) -> go.Figure:
    """Speedup over (alpha, K) for this c, with the break-even line (speedup = 1), the best K for each alpha,
    the chosen setting, and any measured points."""
    ks = list(range(K_MAX + 1))
    grid = theory.speedup_grid(ALPHAS, ks, c)
    # colour on a log2 scale centred on 1x, so halving and doubling look equally strong
    ticks = list(range(-3, 5))
    fig = go.Figure(go.Heatmap(
        x=ALPHAS, y=ks, z=np.log2(grid), zmin=-3, zmax=4, zmid=0, colorscale="RdBu", customdata=grid,
        colorbar=dict(title="speedup", tickvals=ticks, ticktext=[f"{2.0 ** t:g}×" for t in ticks]),
        hovertemplate="α = %{x:.2f}<br>K = %{y}<br>speedup = %{customdata:.2f}×<extra></extra>",
    ))
    even = [(theory.break_even_alpha(kk, c), kk) for kk in ks[1:]]
    even = [(a, kk) for a, kk in even if math.isfinite(a)]
    if even:
        fig.add_trace(go.Scatter(x=[a for a, _ in even], y=[kk for _, kk in even], mode="lines",
                                 line=dict(color="black", width=3, dash="dash"), name="break-even (speedup = 1)",
                                 hovertemplate="break-even α = %{x:.3f} at K = %{y}<extra></extra>"))
    best = [theory.optimal_k(a, c, K_MAX) for a in ALPHAS]
    fig.add_trace(go.Scatter(x=ALPHAS, y=best, mode="lines", line=dict(color=ORANGE, width=2, shape="hv"),
                             name="best K for each α", hovertemplate="α = %{x:.2f}: best K = %{y}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[alpha], y=[k], mode="markers", name="your setting",
                             marker=dict(symbol="x", size=14, color="black", line=dict(width=2, color="white"))))
    if points:
        fig.add_trace(go.Scatter(
            x=[pt.alpha for pt in points], y=[pt.k for pt in points], mode="markers", name="benchmark runs",
            marker=dict(symbol="diamond", size=11, color=REDDISH_PURPLE, line=dict(width=1, color="white")),
            customdata=[[pt.label, pt.c, pt.measured_speedup] for pt in points],
            hovertemplate="%{customdata[0]}<br>α = %{x:.2f}, K = %{y}, c = %{customdata[1]:.3f}<br>"
                          "measured %{customdata[2]:.2f}×<extra></extra>"))
    if trace is not None:
        fig.add_trace(go.Scatter(x=[trace.alpha], y=[trace.k], mode="markers", name="trace in this session",
                                 marker=dict(symbol="star", size=16, color=VERMILLION,
                                             line=dict(width=1, color="white")),
                                 hovertemplate="trace: α ≈ %{x:.2f}, K = %{y}<extra></extra>"))
    fig.update_layout(xaxis_title="acceptance rate α", yaxis_title="drafted tokens per step K", height=460,
                      margin=dict(l=10, r=10, t=30, b=10), legend=dict(orientation="h", y=-0.2),
                      title=f"Expected speedup for c = {c:.2f}")
    fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(range=[-0.5, K_MAX + 0.5], dtick=2)
    return fig


def speedup_vs_k_figure(alpha: float, c: float, k: int) -> go.Figure:
    """Expected speedup against K for one alpha and c; the best K and the chosen K marked, 1× drawn."""
    ks = list(range(K_MAX + 1))
    speedups = [theory.expected_speedup(alpha, kk, c) for kk in ks]
    best = theory.optimal_k(alpha, c, K_MAX)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=ks, y=speedups, mode="lines+markers", line=dict(color=BLUE), name="speedup",
                             hovertemplate="K = %{x}: %{y:.3f}×<extra></extra>"))
    fig.add_hline(y=1.0, line=dict(color=GREY, dash="dot"), annotation_text="no speedup (1×)")
    fig.add_trace(go.Scatter(x=[best], y=[speedups[best]], mode="markers", name=f"best K = {best}",
                             marker=dict(size=14, color=ORANGE, symbol="star")))
    fig.add_trace(go.Scatter(x=[k], y=[speedups[k]], mode="markers", name=f"your K = {k}",
                             marker=dict(size=12, color="black", symbol="x")))
    fig.update_layout(xaxis_title="K", yaxis_title="expected speedup ×", height=360,
                      margin=dict(l=10, r=10, t=30, b=10), title=f"Speedup against K (α = {alpha:.2f}, c = {c:.2f})")
    return fig


def tokens_distribution_figure(alpha: float, k: int, simulated: np.ndarray | None = None) -> go.Figure:
    """P(a step emits j tokens), j = 1..K+1, from the formula and (optionally) from simulated steps."""
    js = list(range(1, k + 2))
    fig = go.Figure(go.Bar(x=js, y=theory.tokens_per_step_distribution(alpha, k), name="formula",
                           marker_color=BLUE, hovertemplate="%{x} tokens: %{y:.3f}<extra>formula</extra>"))
    if simulated is not None and len(simulated):
        freq = np.bincount(np.asarray(simulated) - 1, minlength=k + 1)[: k + 1] / len(simulated)
        fig.add_trace(go.Scatter(x=js, y=freq, mode="markers", name=f"simulated ({len(simulated):,} steps)",
                                 marker=dict(size=11, color=ORANGE, symbol="diamond"),
                                 hovertemplate="%{x} tokens: %{y:.3f}<extra>simulated</extra>"))
    fig.update_layout(xaxis_title="tokens emitted in one step", yaxis_title="probability", height=320,
                      margin=dict(l=10, r=10, t=30, b=10), title="Tokens per step: a truncated geometric")
    fig.update_xaxes(dtick=1)
    return fig


def predicted_vs_measured_figure(points: list[MeasuredPoint]) -> go.Figure:
    """Each benchmark run's measured speedup against the formula's prediction at its own alpha, K and c."""
    pred = [pt.predicted_speedup for pt in points]
    meas = [pt.measured_speedup for pt in points]
    top = max(pred + meas + [1.5]) * 1.1
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, top], y=[0, top], mode="lines", line=dict(color=GREY, dash="dot"),
                             name="measured = predicted", hoverinfo="skip"))
    fig.add_trace(go.Scatter(
        x=pred, y=meas, mode="markers", name="benchmark runs",
        marker=dict(size=11, color=REDDISH_PURPLE, symbol="diamond"),
        customdata=[[pt.label, pt.alpha, pt.k, pt.c] for pt in points],
        hovertemplate="%{customdata[0]}<br>α = %{customdata[1]:.2f}, K = %{customdata[2]}, c = %{customdata[3]:.3f}"
                      "<br>predicted %{x:.2f}×, measured %{y:.2f}×<extra></extra>"))
    fig.update_layout(xaxis_title="predicted speedup ×", yaxis_title="measured speedup ×", height=360,
                      margin=dict(l=10, r=10, t=30, b=10), title="Does the formula predict real runs?")
    return fig


# ---- text -------------------------------------------------------------------------------------------------------


def render_derivations() -> None:
    """The three short derivations, with st.latex."""
    st.markdown("**1. The acceptance rate.** A draft x ~ q is kept with probability min(1, p(x)/q(x)), so")
    st.latex(r"\alpha \;=\; \sum_x q(x)\,\min\!\Big(1, \frac{p(x)}{q(x)}\Big) \;=\; \sum_x \min\big(p(x), q(x)\big)"
             r" \;=\; 1 - \mathrm{TV}(p, q).")
    st.markdown("**2. Tokens per step.** If each draft is kept with probability α independently, the first "
                "rejection comes after i kept drafts with probability αⁱ(1 − α), and all K are kept with "
                "probability αᴷ. Every step also emits one recovered or bonus token, so")
    st.latex(r"\mathbb{E}[\text{tokens per step}] \;=\; \sum_{i=0}^{K} \alpha^i \;=\; "
             r"\frac{1 - \alpha^{K+1}}{1 - \alpha}\qquad(\to K + 1 \text{ as } \alpha \to 1).")
    st.markdown("**3. Speedup.** One step costs K draft forwards (c each, in units of one target forward) plus one "
                "target forward over K + 1 positions (assumed to cost the same as one ordinary forward); "
                "target-only decoding gets one token per forward. So")
    st.latex(r"\text{speedup} \;=\; \frac{1 - \alpha^{K+1}}{(1 - \alpha)\,(K c + 1)},\qquad "
             r"K^\ast = \arg\max_{0 \le K \le 16} \text{speedup}.")
    st.markdown("K = 0 means not speculating (speedup 1). Speculation pays only above the break-even α where the "
                "speedup is exactly 1; if c ≥ 1 (a draft as slow as the target) it never pays. These are "
                "Leviathan et al. (2023), section 3; real runs differ because α varies with position and context "
                "and a K + 1-token forward is not quite free.")
