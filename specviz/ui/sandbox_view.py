"""The p/q sandbox's pieces: the editable table of p and q, the figures, and the simulated outputs.

The numbers come from specviz.exactness.sandbox; this module only gathers inputs and draws. Every sentence a
reader sees is in `TEXT` (named placeholders). Widget keys start with `sandbox_`.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from specviz.exactness import RULES
from specviz.exactness.sandbox import MAX_SAMPLES, SandboxSamples, SandboxStep, sandbox_step, simulate
from specviz.ui.escaping import escape_markdown, plot_text

TOKENS = ["the", "a", "cat", "dog", "sat", "ran"]
DEFAULT_P = [0.35, 0.25, 0.15, 0.12, 0.08, 0.05]
DEFAULT_Q = [0.20, 0.35, 0.05, 0.20, 0.10, 0.10]
COLOURS = {"p": "#0072B2", "q": "#E69F00", "overlap": "#009E73", "residual": "#CC79A7", "samples": "#6B6B6B"}

TEXT = {
    "editor_help": "Type any non-negative numbers: each column is normalised to sum to 1 before the temperature "
                   "is applied to both.",
    "temperature": "Temperature (applied to p and q)",
    "temperature_help": "p^(1/T), normalised, for both. T = 0 is greedy: all mass on each one's top token.",
    "alpha": "α = Σ min(p, q)",
    "tv": "TV(p, q) = 1 − α",
    "reject": "chance the draft is rejected",
    "pq_title": "p (target) and q (draft) after temperature",
    "split_title": "p = min(p, q) + (1 − α)·norm(max(0, p − q))",
    "overlap": "min(p, q): kept drafts",
    "residual": "(1 − α)·residual: recovered tokens",
    "no_residual": "p = q: every draft is kept (α = 1), the residual is never used.",
    "rule": "Verification rule",
    "n": "Simulated steps N",
    "seed": "Seed",
    "samples_title": "{n:,} simulated first tokens under: {rule}",
    "observed": "simulated",
    "rule_form": "this rule, closed form",
    "kept": "Drafts kept in the simulation: {kept:.1%} (α for this rule).",
    "bad_input": "The table needs fixing: {reason}",
}


def edit_distributions() -> tuple[list[float], list[float], float]:
    """The learner's p, q (raw weights from the editable table) and the temperature."""
    frame = pd.DataFrame({"token": TOKENS, "p (target)": DEFAULT_P, "q (draft)": DEFAULT_Q})
    edited = st.data_editor(frame, key="sandbox_table", hide_index=True, disabled=["token"], num_rows="fixed",
                            column_config={c: st.column_config.NumberColumn(c, min_value=0.0, step=0.01,
                                                                            format="%.3f")
                                           for c in ("p (target)", "q (draft)")})
    st.caption(TEXT["editor_help"])
    temperature = st.slider(TEXT["temperature"], 0.0, 2.0, 1.0, 0.05, key="sandbox_temperature",
                            help=TEXT["temperature_help"])
    p = [float(x) if pd.notna(x) else 0.0 for x in edited["p (target)"]]
    q = [float(x) if pd.notna(x) else 0.0 for x in edited["q (draft)"]]
    return p, q, temperature


def compute(p: list[float], q: list[float], temperature: float) -> SandboxStep | None:
    """The exact rule's pieces, or None after one sentence on screen when the table cannot be used."""
    try:
        return sandbox_step(p, q, temperature)
    except ValueError as exc:
        st.error(TEXT["bad_input"].format(reason=escape_markdown(str(exc))))
        return None


def _bars(title: str) -> go.Figure:
    fig = go.Figure()
    fig.update_layout(title=title, height=300, margin=dict(l=10, r=10, t=40, b=10), yaxis_title="probability",
                      legend=dict(orientation="h", y=-0.2))
    return fig


def pq_figure(step: SandboxStep) -> go.Figure:
    """p and q side by side."""
    fig = _bars(TEXT["pq_title"])
    labels = [plot_text(t) for t in TOKENS]
    fig.add_bar(x=labels, y=step.target_probs.tolist(), name="p (target)", marker_color=COLOURS["p"])
    fig.add_bar(x=labels, y=step.draft_probs.tolist(), name="q (draft)", marker_color=COLOURS["q"])
    return fig


def split_figure(step: SandboxStep) -> go.Figure:
    """min(p, q) stacked with (1 − α)·residual: together exactly p (drawn as a marker)."""
    fig = _bars(TEXT["split_title"])
    labels = [plot_text(t) for t in TOKENS]
    fig.add_bar(x=labels, y=step.overlap.tolist(), name=TEXT["overlap"], marker_color=COLOURS["overlap"])
    fig.add_bar(x=labels, y=((1 - step.alpha) * step.residual).tolist(), name=TEXT["residual"],
                marker_color=COLOURS["residual"])
    fig.add_scatter(x=labels, y=step.target_probs.tolist(), mode="markers", name="p (target)",
                    marker=dict(color=COLOURS["p"], symbol="line-ew-open", size=28, line=dict(width=3)))
    fig.update_layout(barmode="stack")
    return fig


def render_numbers(step: SandboxStep) -> None:
    a, b, c = st.columns(3)
    a.metric(TEXT["alpha"], f"{step.alpha:.3f}")
    b.metric(TEXT["tv"], f"{step.tv:.3f}")
    c.metric(TEXT["reject"], f"{1 - step.alpha:.3f}")
    if step.residual.sum() == 0:
        st.info(TEXT["no_residual"])


def pick_simulation() -> tuple[str, int, int]:
    """The rule (with the broken ones), N and the seed."""
    names = list(RULES)
    left, middle, right = st.columns([3, 2, 1])
    rule = left.selectbox(TEXT["rule"], names, format_func=lambda name: RULES[name].label, key="sandbox_rule")
    n = middle.slider(TEXT["n"], 100, MAX_SAMPLES, 2000, 100, key="sandbox_n")
    seed = right.number_input(TEXT["seed"], 0, 10_000, 1, key="sandbox_seed")
    return rule, int(n), int(seed)


@st.cache_data(max_entries=64, show_spinner=False)
def _simulate(p: tuple[float, ...], q: tuple[float, ...], temperature: float, rule: str, n: int,
              seed: int) -> SandboxSamples:
    return simulate(sandbox_step(list(p), list(q), temperature), rule, n, seed)


def samples_figure(step: SandboxStep, samples: SandboxSamples, rule: str, n: int) -> go.Figure:
    """Simulated frequencies against p and against the rule's own closed form."""
    fig = _bars(TEXT["samples_title"].format(n=n, rule=RULES[rule].label))
    labels = [plot_text(t) for t in TOKENS]
    fig.add_bar(x=labels, y=(samples.counts.double() / n).tolist(), name=TEXT["observed"],
                marker_color=COLOURS["samples"])
    fig.add_bar(x=labels, y=step.target_probs.tolist(), name="p (target)", marker_color=COLOURS["p"])
    fig.add_scatter(x=labels, y=samples.expected.tolist(), mode="markers", name=TEXT["rule_form"],
                    marker=dict(color=COLOURS["residual"], symbol="diamond", size=11))
    return fig


def render_simulation(p: list[float], q: list[float], temperature: float, step: SandboxStep) -> None:
    rule, n, seed = pick_simulation()
    entry = RULES[rule]
    (st.success if entry.exact else st.warning)(f"**{entry.label}.** {entry.explanation}")
    samples = _simulate(tuple(p), tuple(q), float(temperature), rule, n, seed)
    st.plotly_chart(samples_figure(step, samples, rule, n), key="sandbox_samples_chart")
    st.caption(TEXT["kept"].format(kept=samples.accepted_fraction))
    verdict = samples.verdict
    (st.success if verdict.consistent else st.error)(verdict.verdict)
