"""The guided path's live widgets over formulas: bandwidth and tokens per second (lesson 1, the quiz's
`FORMULAS`), the accept rule's coin flip (lesson 3, drawn by the Playground's own strip), and the closed forms of
`specviz.engine.theory` for the speedup, the best K, a tree of candidates next to a line of drafts (with the Proposers
page's tree diagram) and the verify cost (lessons 6, 7, 9, 10). The recorded-run interactions are in
`specviz.ui.learn.runs`.

Every widget opens on values other than those its lesson's check questions, and the siblings a retry asks in their
place, ask about, so no question is answered on the screen above it (tests/ui/test_learn_page.py holds them to that).

`WIDGETS` maps a lesson's `interaction` name (specviz.teach.learn) to the function that draws it; widget keys start with
`learn_`; every sentence is in `TEXT` with named placeholders.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from specviz.core.i18n import N_, _, ngettext, number, times
from specviz.engine import theory
from specviz.engine.draft_shape import DraftShape
from specviz.engine.trace import Decision
from specviz.labs.bench import quoted
from specviz.labs.roofline import HARDWARE
from specviz.teach.learn import Lesson
from specviz.teach.quiz import FORMULAS
from specviz.ui.common.charts import rounded_note, show
from specviz.ui.common.sliders import number_slider, slider_text
from specviz.ui.common.step_figures import accept_strip_figure, accept_strip_table
from specviz.ui.common.tokens import fmt
from specviz.ui.proposers import view as proposers_view

K_SHOWN = 16  # lesson 7's chart: K = 0 to 16
LAPTOP_TB_S = HARDWARE["laptop"].bandwidth / 1e12  # the Theory explorer's laptop preset: ~70 GB/s usable
OPEN_PARAMS = 13  # lesson 1's controls open on 13 billion parameters in fp16 ...
OPEN_GPU = HARDWARE["h100"]  # ... read at this GPU's bandwidth (3.35 TB/s), neither a check's setting nor a retry's

TEXT = {  # English messages, translated with `_()` where they are shown
    "params": N_("Parameters (billions)"),
    "bytes": N_("Bytes per parameter"),
    "bytes_names": {4: N_("4 (fp32)"), 2: N_("2 (fp16 or bfloat16)"), 1: N_("1 (8-bit)")},
    "bandwidth": N_("Memory bandwidth (TB/s: terabytes per second)"),
    "rate": N_("Tokens per second, at most"),
    "rate_help": N_("Every token reads every weight once: bandwidth ÷ bytes of weights. The arithmetic is not "
                    "counted."),
    # read 52: it named "a 7-billion model on a 2 TB/s GPU", the setting of the lesson's check mb-bandwidth-bound,
    # so two slider moves put that check's answer on the metric above it; it names where the controls open instead
    "read": N_("Each token reads {gb} GB of weights: at least {ms} ms per token, however fast the arithmetic. "
               "SmolLM2-135M in fp32 on a laptop CPU (about {laptop} TB/s usable, the Theory explorer's laptop "
               "estimate) sets all three controls to their left end; they open on a {params}-billion model in fp16 "
               "on a GPU that reads {bandwidth} TB/s, the memory bandwidth of an {gpu}."),
    "p": N_("p(x): the target's probability"),
    "q": N_("q(x): the draft's probability"),
    "u": N_("u: the uniform draw"),
    "rule_kept": N_("min(1, p/q) = {a}, and u = {u} < {a}: x is **kept** ✓."),
    "rule_dropped": N_("min(1, p/q) = {a}, and u = {u} ≥ {a}: x is **rejected** ✗."),
    "alpha": N_("α (acceptance probability)"),
    "k": N_("K (drafts per step)"),
    "c": N_("c (draft forward / target forward)"),
    "tokens": N_("Expected mean accepted length"),
    "speedup": N_("Expected speedup"),
    "spread_title": N_("How many tokens a step emits"),
    "spread_x": N_("tokens emitted in one step"),
    "spread_y": N_("probability"),  # read 50: the Theory explorer names this axis so
    "best_title": N_("Speedup against K (α = {alpha}, c = {c})"),
    "best": N_("Best K here: {k}, for a {s} expected speedup."),
    "best_none": N_("Best K here: 0. With this α and c no draft pays for itself: do not speculate."),
    "best_edge": N_("Best K here: {k}, the largest on the chart, for a {s} expected speedup; a larger K would give "
                    "more still."),
    "width": N_("Candidates per position (tree width)"),
    "depth": N_("Positions ahead (depth)"),
    "tree_alpha": N_("α of one candidate"),
    "chain": N_("A chain of drafts"),
    "tree": N_("A tree"),
    "tree_note": N_("A simplification: each candidate is kept with chance α, independently, so a position is kept "
                    "with chance 1 − (1 − α)^width. Real candidates are not independent, and the gain is usually "
                    "smaller: in specviz's benchmark of its EAGLE drafter ({dtype} on {machine}, greedy, {prompts} "
                    "held-out prompts, `assets/benchmarks/default-cpu-f32-medusa`) a chain's first draft was kept "
                    "{chain} of the time, which this model turns into {model} for 4 candidates, but the first level of "
                    "{tree_shape} (at most 4 candidates) was kept {tree} of the time."),
    "v": N_("v (cost of the verify pass, in one-token target passes)"),
    "limits_title": N_("Speedup against the verify cost v (α = {alpha}, K = {k}, c = {c})"),
    "break_even": N_("break-even"),
    "limits_now": N_("At v = {v}: {s} ({verdict}). Speculation stops paying at v = {v0}."),
    "limits_never": N_("At v = {v}: {s} ({verdict}). With this α, K and c speculation does not pay at any v: even at "
                       "v = 1, a verify pass as cheap as a one-token pass, it reaches only {s1}."),
    "faster": N_("faster than the target alone"),
    "slower": N_("slower than the target alone"),
    "same_speed": N_("the same speed as the target alone"),
}

TREE_NOTE_RUN = "default-cpu-f32-medusa"  # the committed run the trees widget's caption quotes, and whose machine
TREE_NOTE_SHAPES = {"chain": 0, "tree": 16}  # its EAGLE rows at T = 0, K = 4: a chain and the 16 x 4 tree (nodes)


def measured_first() -> dict[str, float]:
    """First-position acceptance of the EAGLE drafter in the committed `TREE_NOTE_RUN` (results.json, greedy,
    K = 4, per_position[0]): {"chain": ..., "tree": ...}, the chain's first draft and the 16 x 4 tree's first level,
    read from the file so the caption cannot drift from it."""
    return {name: quoted.kept_through(TREE_NOTE_RUN, "eagle", 1, k=4, temperature=0.0, tree_nodes=nodes).low
            for name, nodes in TREE_NOTE_SHAPES.items()}


def tree_note_figures() -> dict[str, str]:
    """The trees widget caption's placeholders, all from the committed `TREE_NOTE_RUN`: the two measured shares, what
    the independence model makes of the chain's for 4 candidates, the run's dtype, machine and prompt count."""
    first = measured_first()
    prompts = min(quoted.mean_accepted_length(TREE_NOTE_RUN, "eagle", k=4, temperature=0.0, tree_nodes=nodes)[1]
                  for nodes in TREE_NOTE_SHAPES.values())
    return dict(chain=number(first["chain"]), tree=number(first["tree"]), model=number(1 - (1 - first["chain"]) ** 4),
                tree_shape=DraftShape(k=4, tree_nodes=TREE_NOTE_SHAPES["tree"], tree_width=4).describe(),
                machine=quoted.machine(TREE_NOTE_RUN), dtype=quoted.dtype(TREE_NOTE_RUN), prompts=prompts)


def _chart(fig: go.Figure, key: str, title: str, x: str, y: str, note: str | None = None,
           table: pd.DataFrame | None = None) -> None:
    fig.update_layout(title=title, height=280, margin=dict(l=10, r=10, t=40, b=10), xaxis_title=x, yaxis_title=y,
                      showlegend=False)
    show(fig, key, note=note, table=table)


def bandwidth(lesson: Lesson) -> None:
    left, middle, right = st.columns(3)
    params = left.select_slider(_(TEXT["params"]), [0.135, 0.5, 1, 3, 7, 13, 70], value=OPEN_PARAMS,
                                key="learn_params", format_func=_decimal)
    size = middle.radio(_(TEXT["bytes"]), [4, 2, 1], index=1, horizontal=True, key="learn_bytes",
                        format_func=lambda b: _(TEXT["bytes_names"][b]))
    open_tb_s = OPEN_GPU.bandwidth / 1e12
    bw = right.select_slider(_(TEXT["bandwidth"]), [LAPTOP_TB_S, 0.1, 0.5, 1.0, 2.0, open_tb_s, 4.8], value=open_tb_s,
                             key="learn_bw", format_func=_decimal)
    rate = FORMULAS["decode_tokens_per_second"](params_billion=params, bytes_per_param=size, bandwidth_tb_s=bw)
    st.metric(_(TEXT["rate"]), rate_text(rate), help=_(TEXT["rate_help"]))
    st.caption(_(TEXT["read"], gb=number(params * size), ms=number(1000 / rate), laptop=_decimal(LAPTOP_TB_S),
                 params=_decimal(OPEN_PARAMS), bandwidth=_decimal(open_tb_s), gpu=OPEN_GPU.name))


def rate_text(rate: float) -> str:
    """Lesson 1's bound on tokens per second: whole above 10, two decimals below, where a whole number would
    misstate it (read 49: 70 billion fp32 parameters at the laptop's 0.07 TB/s allow 0.25 tokens per second, and
    the metric read "at most 0"; 13 billion there allow 1.35 and it read 1).

    >>> rate_text(128.8), rate_text(1.346), rate_text(0.25)
    ('129', '1.35', '0.25')
    """
    return number(rate, 0 if rate >= 10 else 2)


def rule(lesson: Lesson) -> None:
    left, middle, right = st.columns(3)
    p = number_slider(left, _(TEXT["p"]), 0.0, 1.0, 0.3, 0.01, key="learn_p")
    q = number_slider(middle, _(TEXT["q"]), 0.01, 1.0, 0.6, 0.01, key="learn_q")
    u = number_slider(right, _(TEXT["u"]), 0.0, 0.99, 0.7, 0.01, key="learn_u")
    a = round(min(1.0, p / q), 12)  # 0.07 / 0.1 is 0.7000000000000001: u = 0.70 is not below it
    d = Decision(0, 0, "x", q, p, p / q, a, u, u < a, True)
    show(accept_strip_figure(d), "learn_strip", table=accept_strip_table(d))
    # the strip beside it writes min(1, p/q) and u with `fmt`'s three digits; the sentence too, unless u < a would then
    # read "0.030 < 0.030" (p = 0.01, q = 0.33, u = 0.03): it then writes as many digits as part them
    digits = rule_digits(u, a)
    st.markdown(_(TEXT["rule_kept" if d.accepted else "rule_dropped"], a=fmt(a, digits), u=fmt(u, digits)))


def rule_digits(u: float, a: float) -> int:
    """The fewest decimals, from 3, that write u below a when it is (u has two decimals and a = p/q of two-decimal
    sliders, so they differ by at least 1/10,000 and 4 always part them).

    >>> rule_digits(0.5, 0.6), rule_digits(0.03, 0.01 / 0.33), rule_digits(0.7, 0.7)
    (3, 4, 3)
    """
    digits = 3
    while u < a and fmt(u, digits) == fmt(a, digits) and digits < 6:
        digits += 1
    return digits


SPEEDUP_ALPHA = 0.75  # lesson 6 opens α here, not on 0.7: its check ar-alpha's answer is α = 0.7


def _sliders(keys: tuple[str, ...], alpha: float = 0.7) -> dict[str, float]:
    """α, K and c sliders, as many as asked for, in one row; α opens on `alpha`."""
    specs = {"alpha": (_(TEXT["alpha"]), 0.0, 1.0, alpha, 0.05), "k": (_(TEXT["k"]), 1, 10, 3, 1),
             "c": (_(TEXT["c"]), 0.0, 0.5, 0.1, 0.01)}
    columns = st.columns(len(keys))
    return {name: number_slider(col, *specs[name], key=f"learn_{name}") for col, name in zip(columns, keys)}


def speedup(lesson: Lesson) -> None:
    v = _sliders(("alpha", "k", "c"), alpha=SPEEDUP_ALPHA)
    left, right = st.columns(2)
    left.metric(_(TEXT["tokens"]), number(theory.expected_tokens_per_step(v["alpha"], v["k"])))
    right.metric(_(TEXT["speedup"]), times(theory.expected_speedup(v["alpha"], v["k"], v["c"])))
    chances = theory.tokens_per_step_distribution(v["alpha"], v["k"])
    fig = go.Figure(go.Bar(x=list(range(1, len(chances) + 1)), y=chances, marker_color="#0072B2"))
    # read 53: at the opening α = 0.75, K = 3 its chances 0.25, 0.1875, 0.140625, 0.421875 read 0.25, 0.188, 0.141 and
    # 0.422, a column that adds up to 1.001 as written: the Sandbox's note on rounded shares says so over the table
    _chart(fig, "learn_spread", _(TEXT["spread_title"]), _(TEXT["spread_x"]), _(TEXT["spread_y"]),
           note=rounded_note(fig))


def choosing_k(lesson: Lesson) -> None:
    v = _sliders(("alpha", "c"))
    ks = list(range(0, K_SHOWN + 1))
    values = [theory.expected_speedup(v["alpha"], k, v["c"]) for k in ks]
    best = theory.optimal_k(v["alpha"], v["c"], k_max=K_SHOWN)
    # named: the table under the chart heads its columns with the traces' names (unnamed, both read "Expected speedup")
    fig = go.Figure(go.Scatter(x=ks, y=values, mode="lines+markers", line=dict(color="#0072B2"),
                               name=_(TEXT["speedup"])))
    fig.add_scatter(x=[best], y=[values[best]], mode="markers", marker=dict(size=16, color="#009E73",
                                                                            symbol="star"),
                    name=_("best K = {k}", k=best))
    _chart(fig, "learn_best_k", _(TEXT["best_title"], alpha=number(v["alpha"]), c=number(v["c"])), "K",
           _(TEXT["speedup"]))
    st.markdown(_(TEXT[best_k_sentence(v["alpha"], v["c"])], k=best, s=times(values[best])))


def best_k_sentence(alpha: float, c: float) -> str:
    """Which sentence lesson 7's chart states its best K with: "best_none" (K = 0), "best", or "best_edge" when the
    best K on the chart is its last and a longer chart would find a better one (α = 1 or c = 0 never stop gaining),
    so that 16 is not called the best K outright.

    >>> best_k_sentence(0.7, 0.1), best_k_sentence(0.0, 0.1), best_k_sentence(0.95, 0.0), best_k_sentence(1.0, 0.5)
    ('best', 'best_none', 'best_edge', 'best_edge')
    """
    best = theory.optimal_k(alpha, c, k_max=K_SHOWN)
    if best == 0:
        return "best_none"
    return "best_edge" if best == K_SHOWN and theory.optimal_k(alpha, c, k_max=K_SHOWN + 1) > K_SHOWN else "best"


def _nodes_to_score(n: int) -> str:
    """"1 node to score in one pass", "5,460 nodes to score in one pass" (a width-4, depth-6 tree)."""
    return ngettext("{n} node to score in one pass", "{n} nodes to score in one pass", n)


def trees(lesson: Lesson) -> None:
    st.graphviz_chart(proposers_view.diagram(proposers_view.tree_dot()), width="content")
    left, middle, right = st.columns(3)
    alpha = number_slider(left, _(TEXT["tree_alpha"]), 0.05, 0.95, 0.6, 0.05, key="learn_tree_alpha")
    width = middle.slider(_(TEXT["width"]), 1, 4, 2, key="learn_tree_width")
    depth = right.slider(_(TEXT["depth"]), 1, 6, 4, key="learn_tree_depth")
    level = 1 - (1 - alpha) ** width
    chain, tree = st.columns(2)
    chain.metric(_(TEXT["chain"]), number(theory.expected_tokens_per_step(alpha, depth)), help=_(TEXT["tokens"]))
    chain.caption(_nodes_to_score(depth))
    tree.metric(_(TEXT["tree"]), number(theory.expected_tokens_per_step(level, depth)), help=_(TEXT["tokens"]))
    tree.caption(_nodes_to_score(sum(width ** i for i in range(1, depth + 1))))
    st.caption(_(TEXT["tree_note"], **tree_note_figures()))


LIMITS_ALPHA = 0.75  # lesson 10 opens α here: at 0.7 (with K 3, c 0.1) it wrote lm-break-even-v's answer, 2.23


def limits(lesson: Lesson) -> None:
    v = _sliders(("alpha", "k", "c"), alpha=LIMITS_ALPHA)
    cost = number_slider(st, _(TEXT["v"]), 1.0, 6.0, 2.5, V_STEP, key="learn_v")
    costs = [1 + i / 10 for i in range(51)]
    values = [theory.speedup_with_verify_cost(v["alpha"], v["k"], v["c"], x) for x in costs]
    # read 54: the curve hovered Plotly's "(1, 2.1)" and its table read v "1" beside the slider's and sentence's 1.0:
    # now each point hovers as the table writes it (`curve_hover`, `limits_table`)
    fig = go.Figure(go.Scatter(x=costs, y=values, mode="lines", line=dict(color="#0072B2"), name=_(TEXT["speedup"]),
                               customdata=[[curve_hover(x, y)] for x, y in zip(costs, values)],
                               hovertemplate="%{customdata[0]}<extra></extra>"))
    fig.add_hline(y=1.0, line=dict(color="#C62828", dash="dash"), annotation_text=_(TEXT["break_even"]))
    now = theory.speedup_with_verify_cost(v["alpha"], v["k"], v["c"], cost)
    # read 54: with no hover of its own it read Plotly's "(1, 2.1)" beside the title's and the sentence's 2.10×: now
    # v as the v slider writes it and the speedup as the sentence below writes it (`setting_hover`)
    fig.add_scatter(x=[cost], y=[now], mode="markers", marker=dict(size=14, color="#E69F00"), name=_("your setting"),
                    hovertemplate=setting_hover(cost, now) + "<extra></extra>")
    _chart(fig, "learn_limits", _(TEXT["limits_title"], alpha=number(v["alpha"]), k=v["k"], c=number(v["c"])), "v",
           _(TEXT["speedup"]), table=limits_table(costs, values, cost, now))
    even = theory.expected_tokens_per_step(v["alpha"], v["k"]) - v["k"] * v["c"]  # E - Kc: where the speedup is 1
    said = dict(v=slider_text(cost, V_STEP), s=times(now), verdict=_(speed_verdict(now)))
    # the slider starts at v = 1, the memory-bound model's floor (a measured verify pass can read a little under
    # it: 0.93 for 5 tokens in default-cpu-f32-packed's costs.verify), so a break-even below 1 is off the slider
    if even > 1:
        st.markdown(_(TEXT["limits_now"], v0=number(even), **said))
    else:  # the break-even would sit below v = 1, off the slider: it never pays
        st.markdown(_(TEXT["limits_never"], s1=times(theory.speedup_with_verify_cost(v["alpha"], v["k"], v["c"], 1.0)),
                      **said))


V_STEP = 0.1  # the v slider's step


def setting_hover(cost: float, speedup: float) -> str:
    """Lesson 10's "your setting" hover: v as its slider writes it and the speedup as the sentence under the chart
    writes it (read 54: Plotly's default hover wrote v = 1.0 as "1" and the speedup to three significant figures).

    >>> setting_hover(1.0, 2.1033653846153846)
    'your setting: v = 1.0, speedup = 2.10×'
    """
    return _("your setting: v = {v}, speedup = {speedup}×", v=slider_text(cost, V_STEP), speedup=number(speedup, 2))


def curve_hover(cost: float, speedup: float) -> str:
    """A point of lesson 10's curve as its table and the "your setting" hover write it: v with the v slider's
    decimals, the speedup with 2 (read 54: Plotly's default hover wrote "(1, 2.1)").

    >>> curve_hover(1.0, 2.1033653846153846), curve_hover(6.0, 0.4339)
    ('v = 1.0, speedup = 2.10×', 'v = 6.0, speedup = 0.43×')
    """
    return _("v = {v}, speedup = {speedup}×", v=slider_text(cost, V_STEP), speedup=number(speedup, 2))


def limits_table(costs: list[float], values: list[float], cost: float, now: float) -> pd.DataFrame:
    """Lesson 10's "The numbers in this chart": a row per v on the curve, v with the slider's decimals and the
    speedups with 2, as the sentence under the chart and the hovers write them (read 54: `figure_table`'s three
    significant figures wrote v = 1.0 "1" and 2.10× "2.1"); "your setting" filled on its own v's row.

    >>> table = limits_table([1.0, 1.1], [2.1033653846153846, 1.95], 1.0, 2.1033653846153846)
    >>> list(table.columns), table.iloc[0].tolist(), table.iloc[1].tolist()
    (['v', 'Expected speedup', 'your setting'], ['1.0', '2.10', '2.10'], ['1.1', '1.95', '–'])
    """
    rows = {slider_text(x, V_STEP): (x, number(y, 2)) for x, y in zip(costs, values)}
    mine = slider_text(cost, V_STEP)
    rows.setdefault(mine, (cost, "–"))
    order = sorted(rows, key=lambda label: rows[label][0])
    return pd.DataFrame({"v": order, _(TEXT["speedup"]): [rows[label][1] for label in order],
                         _("your setting"): [number(now, 2) if label == mine else "–" for label in order]})


def speed_verdict(speedup: float) -> str:
    """The words for a speedup, judged on the figure the reader sees next to them: a speedup written 1.00× is the
    same speed as the target alone, neither faster nor slower (issue 43: exactly 1.0 read "faster").

    >>> [speed_verdict(s) == TEXT[key] for s, key in ((1.0, "same_speed"), (1.2, "faster"), (0.99, "slower"))]
    [True, True, True]
    """
    if times(speedup) == times(1.0):
        return TEXT["same_speed"]
    return TEXT["faster"] if speedup > 1 else TEXT["slower"]


def _decimal(value: float) -> str:
    """A slider's value as the reader writes it (0,135 in Portuguese), with no more digits than it has."""
    digits = len(str(value).partition(".")[2])
    return number(value, digits)


WIDGETS: dict[str, Callable[[Lesson], None]] = {
    "bandwidth": bandwidth, "rule": rule, "speedup": speedup, "choosing_k": choosing_k, "trees": trees,
    "limits": limits,
}
