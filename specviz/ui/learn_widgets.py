"""The guided path's live widgets over formulas: bandwidth and tokens per second (lesson 1, the quiz's
`FORMULAS`), the accept rule's coin flip (lesson 3, drawn by the Playground's own strip), and the closed forms of
`specviz.theory` for the speedup, the best K, a tree of candidates next to a line of drafts (with the Proposers
page's tree diagram) and the verify cost (lessons 6, 7, 9, 10). The recorded-run interactions are in
`specviz.ui.learn_runs`.

`WIDGETS` maps a lesson's `interaction` name (specviz.learn) to the function that draws it; widget keys start with
`learn_`; every sentence is in `TEXT` with named placeholders.
"""

from __future__ import annotations

from collections.abc import Callable

import plotly.graph_objects as go
import streamlit as st

from specviz import theory
from specviz.learn import Lesson
from specviz.quiz import FORMULAS
from specviz.trace import Decision
from specviz.ui import proposers_view
from specviz.ui.step_figures import accept_strip_figure

TEXT = {
    "params": "Parameters (billions)",
    "bytes": "Bytes per parameter",
    "bytes_names": {4: "4 (fp32)", 2: "2 (fp16)", 1: "1 (8-bit)"},
    "bandwidth": "Memory bandwidth (TB/s: terabytes per second)",
    "rate": "Tokens per second, at most",
    "rate_help": "Every token reads every weight once: bandwidth ÷ bytes of weights. The arithmetic is not counted.",
    "read": "Each token reads {gb:,.2f} GB of weights: at least {ms:,.2f} ms per token, however fast the "
            "arithmetic. SmolLM2-135M in fp32 on a laptop (about 0.05 TB/s) is near the left end; a 7-billion "
            "model on a 2 TB/s GPU near the middle.",
    "p": "p(x): the target's probability",
    "q": "q(x): the draft's probability",
    "u": "u: the uniform draw",
    "rule_kept": "min(1, p/q) = {a:.2f}, and u = {u:.2f} < {a:.2f}: x is **kept** ✓.",
    "rule_dropped": "min(1, p/q) = {a:.2f}, and u = {u:.2f} ≥ {a:.2f}: x is **rejected** ✗.",
    "alpha": "α (acceptance rate)",
    "k": "K (drafts per step)",
    "c": "c (draft cost / target cost)",
    "tokens": "Expected tokens per step",
    "speedup": "Expected speedup",
    "spread_title": "How many tokens a step emits",
    "spread_x": "tokens emitted in one step",
    "spread_y": "chance",
    "best_title": "Speedup against K (α = {alpha:.2f}, c = {c:.2f})",
    "best": "Best K here: {k}, for a {s:.2f}× expected speedup.",
    "best_none": "Best K here: 0. With this α and c no draft pays for itself: do not speculate.",
    "width": "Candidates per position (tree width)",
    "depth": "Positions ahead (depth)",
    "tree_alpha": "α of one candidate",
    "chain": "One line of drafts",
    "tree": "A tree",
    "tree_nodes": "{nodes} nodes to score in one pass",
    "tree_note": "A simplification: each candidate is kept with chance α, independently, so a position is kept "
                 "with chance 1 − (1 − α)^width. Real candidates are correlated, so the gain is smaller.",
    "v": "v (cost of the verify pass, in one-token target passes)",
    "limits_title": "Speedup against the verify cost v (α = {alpha:.2f}, K = {k}, c = {c:.2f})",
    "break_even": "break-even",
    "limits_now": "At v = {v:.1f}: {s:.2f}× ({verdict}). Speculation stops paying at v = {v0:.2f}.",
    "faster": "faster than the target alone",
    "slower": "slower than the target alone",
}


def _chart(fig: go.Figure, key: str, title: str, x: str, y: str) -> None:
    fig.update_layout(title=title, height=280, margin=dict(l=10, r=10, t=40, b=10), xaxis_title=x, yaxis_title=y,
                      showlegend=False)
    st.plotly_chart(fig, key=key, width="stretch")


def bandwidth(lesson: Lesson) -> None:
    left, middle, right = st.columns(3)
    params = left.select_slider(TEXT["params"], [0.135, 0.5, 1, 3, 7, 13, 70], value=7, key="learn_params")
    size = middle.radio(TEXT["bytes"], [4, 2, 1], index=1, horizontal=True, key="learn_bytes",
                        format_func=TEXT["bytes_names"].get)
    bw = right.select_slider(TEXT["bandwidth"], [0.05, 0.1, 0.5, 1.0, 2.0, 3.35, 4.8], value=2.0, key="learn_bw")
    rate = FORMULAS["decode_tokens_per_second"](params_billion=params, bytes_per_param=size, bandwidth_tb_s=bw)
    st.metric(TEXT["rate"], f"{rate:,.0f}", help=TEXT["rate_help"])
    st.caption(TEXT["read"].format(gb=params * size, ms=1000 / rate))


def rule(lesson: Lesson) -> None:
    left, middle, right = st.columns(3)
    p = left.slider(TEXT["p"], 0.0, 1.0, 0.2, 0.01, key="learn_p")
    q = middle.slider(TEXT["q"], 0.01, 1.0, 0.5, 0.01, key="learn_q")
    u = right.slider(TEXT["u"], 0.0, 0.99, 0.3, 0.01, key="learn_u")
    a = min(1.0, p / q)
    d = Decision(0, 0, "x", q, p, p / q, a, u, u < a, True)
    st.plotly_chart(accept_strip_figure(d), key="learn_strip", width="stretch")
    st.markdown(TEXT["rule_kept" if d.accepted else "rule_dropped"].format(a=a, u=u))


def _sliders(keys: tuple[str, ...]) -> dict[str, float]:
    """α, K and c sliders, as many as asked for, in one row."""
    specs = {"alpha": (TEXT["alpha"], 0.0, 1.0, 0.8, 0.05), "k": (TEXT["k"], 1, 10, 4, 1),
             "c": (TEXT["c"], 0.0, 0.5, 0.05, 0.01)}
    columns = st.columns(len(keys))
    return {name: col.slider(*specs[name], key=f"learn_{name}") for col, name in zip(columns, keys)}


def speedup(lesson: Lesson) -> None:
    v = _sliders(("alpha", "k", "c"))
    left, right = st.columns(2)
    left.metric(TEXT["tokens"], f"{theory.expected_tokens_per_step(v['alpha'], v['k']):.2f}")
    right.metric(TEXT["speedup"], f"{theory.expected_speedup(v['alpha'], v['k'], v['c']):.2f}×")
    chances = theory.tokens_per_step_distribution(v["alpha"], v["k"])
    fig = go.Figure(go.Bar(x=list(range(1, len(chances) + 1)), y=chances, marker_color="#0072B2"))
    _chart(fig, "learn_spread", TEXT["spread_title"], TEXT["spread_x"], TEXT["spread_y"])


def choosing_k(lesson: Lesson) -> None:
    v = _sliders(("alpha", "c"))
    ks = list(range(0, 17))
    values = [theory.expected_speedup(v["alpha"], k, v["c"]) for k in ks]
    best = theory.optimal_k(v["alpha"], v["c"])
    fig = go.Figure(go.Scatter(x=ks, y=values, mode="lines+markers", line=dict(color="#0072B2")))
    fig.add_scatter(x=[best], y=[values[best]], mode="markers", marker=dict(size=16, color="#009E73",
                                                                            symbol="star"))
    _chart(fig, "learn_best_k", TEXT["best_title"].format(**v), "K", TEXT["speedup"])
    st.markdown(TEXT["best"].format(k=best, s=values[best]) if best else TEXT["best_none"])


def trees(lesson: Lesson) -> None:
    st.graphviz_chart(proposers_view.tree_dot(), width="content")
    left, middle, right = st.columns(3)
    alpha = left.slider(TEXT["tree_alpha"], 0.05, 0.95, 0.6, 0.05, key="learn_tree_alpha")
    width = middle.slider(TEXT["width"], 1, 4, 2, key="learn_tree_width")
    depth = right.slider(TEXT["depth"], 1, 6, 4, key="learn_tree_depth")
    level = 1 - (1 - alpha) ** width
    chain, tree = st.columns(2)
    chain.metric(TEXT["chain"], f"{theory.expected_tokens_per_step(alpha, depth):.2f}", help=TEXT["tokens"])
    chain.caption(TEXT["tree_nodes"].format(nodes=depth))
    tree.metric(TEXT["tree"], f"{theory.expected_tokens_per_step(level, depth):.2f}", help=TEXT["tokens"])
    tree.caption(TEXT["tree_nodes"].format(nodes=sum(width ** i for i in range(1, depth + 1))))
    st.caption(TEXT["tree_note"])


def limits(lesson: Lesson) -> None:
    v = _sliders(("alpha", "k", "c"))
    cost = st.slider(TEXT["v"], 1.0, 6.0, 1.0, 0.1, key="learn_v")
    costs = [1 + i / 10 for i in range(51)]
    values = [theory.speedup_with_verify_cost(v["alpha"], v["k"], v["c"], x) for x in costs]
    fig = go.Figure(go.Scatter(x=costs, y=values, mode="lines", line=dict(color="#0072B2")))
    fig.add_hline(y=1.0, line=dict(color="#C62828", dash="dash"), annotation_text=TEXT["break_even"])
    now = theory.speedup_with_verify_cost(v["alpha"], v["k"], v["c"], cost)
    fig.add_scatter(x=[cost], y=[now], mode="markers", marker=dict(size=14, color="#E69F00"))
    _chart(fig, "learn_limits", TEXT["limits_title"].format(**v), "v", TEXT["speedup"])
    even = theory.expected_tokens_per_step(v["alpha"], v["k"]) - v["k"] * v["c"]
    st.markdown(TEXT["limits_now"].format(v=cost, s=now, v0=even,
                                          verdict=TEXT["faster"] if now >= 1 else TEXT["slower"]))


WIDGETS: dict[str, Callable[[Lesson], None]] = {
    "bandwidth": bandwidth, "rule": rule, "speedup": speedup, "choosing_k": choosing_k, "trees": trees,
    "limits": limits,
}
