"""The Speedup lab's two lessons from issue 13, read off a committed `BenchResult`: which dtype hides verification
the way a memory-bound GPU does on this CPU (the verify-cost curve in float32 and in bfloat16),
and what a draft tree buys over a chain of K (tokens per target forward and speedup by node budget, next to the
physical limit of a perfect free draft of the same shape).

Plain functions of a result, returning Plotly figures, pandas tables and sentences; `render_*` draw them.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from specviz.core.i18n import _, as_written, list_separator, ngettext
from specviz.engine.draft_shape import DraftShape
from specviz.engine.limits import is_whole
from specviz.engine.proposers import registry
from specviz.labs.bench import BenchConfig, BenchResult
from specviz.labs.bench.report import run_kernels
from specviz.labs.bench.summary import VERIFY_DIGITS, over_limit, tokens_fed, written_fraction, written_limit
from specviz.labs.bench.timing import curve_repeats
from specviz.ui.common import charts as plot
from specviz.ui.common.palette import BLUE, GREY, VERMILLION
from specviz.ui.speedup import results
from specviz.ui.speedup.charts import ASSUMPTION_COLOR, _layout, _machine, dtype_style
from specviz.ui.speedup.view import label, number, proposer_text, temperature_text, times, written

WIDE = 17  # the verify size the sentence quotes: a tree of 16 nodes and its root
SAME_SLOPE = 0.1  # verify-cost ratios at WIDE this close count as the same: neither dtype hides verification better


# ---- float32 vs bfloat16 ----------------------------------------------------------------------------------------


def curves_rounds(result: BenchResult) -> int | None:
    """The timing rounds of the result's verify curves (`timing.curve_repeats` of its cost rounds), None when its
    file records no cost rounds."""
    rounds = (result.config or {}).get("cost_repeats")
    return curve_repeats(rounds) if is_whole(rounds) else None


SHAPE_DIGITS = 3  # the decimals of the Chain vs tree table and of its chart's hovers (`shape_figure`)
CURVE_DIGITS = 3  # the decimals the dtype curves' hovers, table and caption write a ratio with


def dtype_curve_figure(result: BenchResult) -> go.Figure:
    """One line per dtype: a target forward over n new tokens (warm cache) over one token. A second timing,
    separate from the run's first one above it (`charts.verify_cost_figure`), and its legend says so
    (`curves_caption`)."""
    fig = go.Figure()
    rounds = curves_rounds(result)
    for dtype, curve in result.verify_curves().items():
        one = next((p["seconds"] for p in curve if p["n_tokens"] == 1), 0.0)
        # two lines, so a legend entry fits a phone's width (the chart's table reads the break as a space)
        name = (_("{dtype}, timed separately:<br>median of {rounds} rounds (1 token = {ms} ms)", dtype=dtype,
                  rounds=rounds, ms=number(one * 1e3, 1)) if rounds
                else _("{dtype}, timed separately<br>(1 token = {ms} ms)", dtype=dtype, ms=number(one * 1e3, 1)))
        # read 55: three decimals, as the caption under it quotes a point (`curves_caption`: "0.910") and as the
        # physical limits under Chain vs tree follow from it as written (3 / 0.977 = 3.071); three significant
        # figures wrote "0.91" and "1.1"
        fig.add_scatter(x=[p["n_tokens"] for p in curve], y=[p["ratio"] for p in curve], mode="markers+lines",
                        name=name, marker=dict(size=9, color=dtype_style(dtype)[0], symbol=dtype_style(dtype)[1]),
                        line=dict(color=dtype_style(dtype)[0]),
                        hovertemplate="(%{x}" + list_separator() + "%{y:." + str(CURVE_DIGITS) + "f})")
    sizes = sorted({p["n_tokens"] for curve in result.verify_curves().values() for p in curve})
    if sizes:
        fig.add_scatter(x=sizes, y=[1.0] * len(sizes), mode="lines", name=_("the paper's assumption: free (1)"),
                        line=dict(color=ASSUMPTION_COLOR, dash="dash"))
    curves = list(result.verify_curves())  # the Medusa run measured float32 only: its title names no bfloat16
    title = (_("Verify cost in float32 and in bfloat16") if sorted(curves) == ["bfloat16", "float32"]
             else _("Verify cost in {dtypes}", dtypes=", ".join(curves)))
    return _layout(fig, title, _("tokens in one target forward"), _("time / one-token forward"), height=380)


def curves_caption(result: BenchResult) -> str | None:
    """What the dtype curves are next to the chart above them (None without curves): both timings ran before the
    cases, on the bench's first prompt, but separately, so the run's own dtype has two curves that start at the same
    one-token forward and part a little further on (default-cpu-f32-packed, float32 at 5 tokens: 0.931 above,
    0.910 here; issue 43). Which tab reads which timing, from `summary.verify_ratio` and `summary.run_curve`."""
    curves = result.verify_curves()
    if not curves:
        return None
    first, rounds = result.costs.get("repeats"), curves_rounds(result)
    widest = max(p["n_tokens"] for curve in curves.values() for p in curve)
    chain = max(int(v["n_tokens"]) for v in result.costs["verify"])
    if first and rounds:
        text = _("A second, separate timing of the same forwards: both ran before the cases, on the bench's first "
                 "prompt, but the chart above timed 1 to {chain} tokens together with the draft's cost c (median of "
                 "{first} rounds), and this one times 1 to {widest} tokens again right after it, once for each dtype "
                 "in its legend (median of {rounds} rounds).", chain=chain, first=first, widest=widest, rounds=rounds)
    else:
        text = _("A second, separate timing of the same forwards: both ran before the cases, on the bench's first "
                 "prompt, but the chart above timed 1 to {chain} tokens together with the draft's cost c, and this "
                 "one times 1 to {widest} tokens again right after it, once for each dtype in its legend.",
                 chain=chain, widest=widest)
    own = result.dtype or "float32"  # the first runs' files record none: float32, the only dtype then
    if own not in curves:
        return text
    above = {int(v["n_tokens"]): float(v["ratio"]) for v in result.costs["verify"]}
    here = {int(p["n_tokens"]): float(p["ratio"]) for p in curves[own]}
    both = sorted(n for n in set(above) & set(here) if n > 1)
    text += " " + _("Its {dtype} line times the same forward as the chart above.", dtype=own)
    # each as its chart writes it (read 55: "0.931 above" beside the chart above's 0.93, `VERIFY_DIGITS`)
    if both and as_written(above[both[-1]], VERIFY_DIGITS) != as_written(here[both[-1]], CURVE_DIGITS):
        n = both[-1]
        text += " " + _("At {n} tokens it reads {here} one-token forwards against {above} above: two timings of one "
                        "forward differ that much.", n=n, here=number(here[n], CURVE_DIGITS),
                        above=number(above[n], VERIFY_DIGITS))
    if any(r.get("tree_nodes") for r in result.summary):  # the physical limit is shown only beside trees
        text += " " + _("The dashed prediction under Speedup vs K uses the chart above; the physical limit under "
                        "Chain vs tree uses this {dtype} line.", dtype=own)
    return text


def _ratio(curve: list[dict], n: int) -> float | None:
    return next((p["ratio"] for p in curve if p["n_tokens"] == n), None)


def dtype_sentence(result: BenchResult) -> str | None:
    """Why the dtype matters for speculation, from the result's own curves (None without both dtypes): which dtype's
    forward over WIDE tokens costs clearly more (by over SAME_SLOPE one-token forwards), or that neither does, as
    with weights packed for oneDNN, where float32 hides verification as well as bfloat16 (default-cpu-f32-packed:
    1.30x against 1.32x). The explanation by bfloat16 instructions is given only where the run's file records them
    (`machine.cpu_bf16`); the Xeon tree runs record no CPU flags."""
    curves = result.verify_curves()
    f32, b16 = curves.get("float32"), curves.get("bfloat16")
    if not f32 or not b16 or _ratio(f32, WIDE) is None or _ratio(b16, WIDE) is None:
        return None
    one32 = next(p["seconds"] for p in f32 if p["n_tokens"] == 1)
    one16 = next(p["seconds"] for p in b16 if p["n_tokens"] == 1)
    wide32, wide16 = _ratio(f32, WIDE), _ratio(b16, WIDE)
    values = dict(n=WIDE, f32=times(wide32), bf16=times(wide16), ms32=number(one32 * 1e3, 1),
                  ms16=number(one16 * 1e3, 1), machine=_machine(result))
    if wide32 - wide16 > SAME_SLOPE:  # float32 clearly steeper
        # the float32 climb: with stock kernels (packed float32 is far flatter, default-cpu-f32-packed), not
        # "the arithmetic itself" as this sentence said before the 41st read
        float32 = (_("In float32, with the PyTorch stock kernels this run used, the cost grows with the tokens and "
                     "verification eats into the gain; with the weights packed for oneDNN, as specviz now runs "
                     "float32, the committed packed runs on an AMD EPYC measured a far flatter float32 curve "
                     "(`default-cpu-f32-packed`).")
                   if run_kernels(result.machine or {}) == "stock" else
                   _("In float32 the cost grows with the tokens, and verification eats into the gain."))
        if not (result.machine or {}).get("cpu_bf16"):  # the file cannot say why
            return " ".join((
                _("On {machine}, one target forward over {n} tokens costs {f32} a one-token forward in float32 but "
                  "{bf16} in bfloat16, and a one-token forward takes {ms32} ms in float32 against {ms16} ms in "
                  "bfloat16. In bfloat16, extra tokens in the same forward ride along almost free, as on a GPU at "
                  "batch size 1, which is exactly what verifying a chain or a tree of drafts needs.", **values),
                float32, _("The run's file does not record whether this CPU has bfloat16 instructions.")))
        return " ".join((  # a CPU the file records with bf16 instructions
            _("On {machine}, one target forward over {n} tokens costs {f32} a one-token forward in float32 but {bf16} "
              "in bfloat16, and a one-token forward takes {ms32} ms in float32 against {ms16} ms in bfloat16. On "
              "this CPU, which has bfloat16 instructions, extra tokens in the same forward ride along almost free "
              "in bfloat16, as on a GPU at batch size 1 (likely because the arithmetic is then fast enough that "
              "reading the weights dominates; the run does not measure that), which is exactly what verifying a "
              "chain or a tree of drafts needs.", **values), float32))
    if wide16 - wide32 > SAME_SLOPE:  # bfloat16 clearly steeper (kernels without bfloat16 instructions)
        machine = result.machine or {}
        if machine.get("cpu_bf16") and not machine.get("isa_limits"):
            # read 50: a live sweep on an AMD EPYC with avx512_bf16, busy, was told its bfloat16 grew "as it does where
            # the kernels cannot use bfloat16 instructions", though its file records them, uncapped
            return _("On {machine}, one target forward over {n} tokens costs {f32} a one-token forward in float32 "
                     "but {bf16} in bfloat16, and a one-token forward takes {ms32} ms in float32 against {ms16} ms in "
                     "bfloat16. Here bfloat16 is the dtype whose cost grows with the tokens, though this CPU has "
                     "bfloat16 instructions and the run capped none (the run does not measure why; a machine busy "
                     "with other work can skew one dtype's timings): verification eats into the gain there, and "
                     "float32 hides it better.", **values)
        return _("On {machine}, one target forward over {n} tokens costs {f32} a one-token forward in float32 but {bf16} in "
                 "bfloat16, and a one-token forward takes {ms32} ms in float32 against {ms16} ms in bfloat16. On "
                 "the machine that measured them bfloat16 is the dtype whose cost grows with the tokens, as it "
                 "does where the kernels cannot use bfloat16 instructions: verification eats into the gain there, "
                 "and float32 hides it better.", **values)
    return _("On {machine}, one target forward over {n} tokens costs {f32} a one-token forward in float32 and {bf16} in "
             "bfloat16, and a one-token forward takes {ms32} ms in float32 against {ms16} ms in bfloat16. With these "
             "kernels float32 hides verification as well as bfloat16 does: in both, extra tokens in the same forward "
             "ride along almost free, as on a GPU at batch size 1, which is exactly what verifying a chain or a tree "
             "of drafts needs.", **values)


# ---- chain vs tree ----------------------------------------------------------------------------------------------


def shape_name(row: dict) -> str:
    """A bench row's shape in the reader's language, `DraftShape.describe()`: "a chain of K = 4", "a tree of 16
    nodes, depth 4, width 3" (and its lookup branch)."""
    return DraftShape.of(row).describe()


def shape_names() -> dict[str, str]:
    """The Chain vs tree chart's series and its table's columns, each with its unit, in the reader's language: one
    name for one quantity in both (read 52: the chart's series named their units, the table's columns did not)."""
    return {"mat_with_bonus": _("mean accepted length (tokens per target forward, recovered or bonus token "
                                "included)"),
            "speedup_vs_ar": label("speedup_vs_ar") + " (×)",
            "speedup_vs_hf_generate": label("speedup_vs_hf_generate") + " (×)",
            "physical_limit": _("physical limit: speedup of a perfect, free draft (×)")}


def shape_table(result: BenchResult, proposer: str, temperature: float) -> pd.DataFrame:
    """Chain and tree rows side by side: tokens per forward, speedups, the physical limit and the share reached,
    under the chart's names (`shape_names`)."""
    names = shape_names()
    # read 55: the limit from the dtype curve as its chart writes it (CURVE_DIGITS), as results.md's from its table
    data = [{_("draft shape"): shape_name(r), names["mat_with_bonus"]: r["mat_with_bonus"],
             names["speedup_vs_ar"]: r["speedup_vs_ar"], names["speedup_vs_hf_generate"]: r["speedup_vs_hf_generate"],
             names["physical_limit"]: written_limit(r, result.costs, CURVE_DIGITS),
             label("fraction_of_limit"): written_fraction(r, result.costs, CURVE_DIGITS),
             label("identical"): r["identical_count"]}
            for r in result.shape_rows(proposer, temperature)]
    df = pd.DataFrame(data)
    return written(df, SHAPE_DIGITS) if not df.empty else df  # 3 decimals, the reader's way, as the chart's hovers


def shape_figure(result: BenchResult, proposer: str, temperature: float) -> go.Figure:
    """Tokens per target forward (bars) and speedup vs target-only (dots) for each shape, by node budget."""
    rows = result.shape_rows(proposer, temperature)
    # describe()'s sentence, up to 81 characters with a lookup branch, wrapped into short lines: a phone's chart has
    # room for a few words a tick
    names = ["<br>".join(textwrap.wrap(shape_name(r), 22)) for r in rows]
    # one axis, two units: each series names its own (read 52: the axis gave the length the unit ×, and a "physical
    # limit" of 6.9 beside a bar of 2.98 read as a length)
    series = shape_names()  # the table below the chart has the same names
    # read 55: each hover (and so the chart's own table, its text alternative) with the 3 decimals of the table
    # under it (`shape_table`): three significant figures read a limit of 6.9 and 5.5 above 6.902 and 5.505, and a
    # length of 1.9 above 1.897
    hover = "(%{x}" + list_separator() + "%{y:." + str(SHAPE_DIGITS) + "f})"
    fig = go.Figure()
    fig.add_bar(x=names, y=[r["mat_with_bonus"] for r in rows], marker_color=BLUE, name=series["mat_with_bonus"],
                hovertemplate=hover)
    fig.add_scatter(x=names, y=[r["speedup_vs_ar"] for r in rows], mode="markers", hovertemplate=hover,
                    name=series["speedup_vs_ar"], marker=dict(size=12, color=VERMILLION, symbol="diamond"))
    fig.add_scatter(x=names, y=[written_limit(r, result.costs, CURVE_DIGITS) for r in rows], mode="markers",
                    name=series["physical_limit"], marker=dict(size=10, color=GREY, symbol="line-ew-open"),
                    hovertemplate=hover)
    fig.add_hline(y=1.0, line=dict(color=GREY, dash="dot"))
    return _layout(fig, _("Chain vs tree: {proposer}, T = {t}", proposer=proposer_text(proposer),
                          t=temperature_text(temperature)),
                   _("draft shape"), _("tokens per target forward (bars) / speedup (×, markers)"), height=440)


def over_limit_notes(result: BenchResult, proposer: str, temperature: float) -> list[str]:
    """A sentence for each shape whose physical limit is above the tokens one target forward can emit (depth + 1):
    its verify curve measured the forward over its tokens fed at under one one-token forward, and the limit divides
    by that. Read 54: default-cpu-f32-packed's chain of K = 4 read a limit of 5.495 for 5 tokens a forward, its
    curve's 5 tokens measured at 0.910 of one token, with nothing said. The cost is written with the decimals that
    give the table's limit when the tokens are divided by it."""
    notes = []
    for row in result.shape_rows(proposer, temperature):
        # results.md's Physical limit notes say it too (report._limit_lines), from its table's 2 decimals
        over = over_limit(row, result.costs, CURVE_DIGITS)
        if over is None:
            continue
        notes.append(ngettext(
            "The physical limit of {shape}, {limit}×, is above the {n} token one target forward can emit: the "
            "run's measured verify curve puts a forward over its {fed} tokens fed at {ratio} of a one-token "
            "forward's time, under 1 (timing noise or a kernel choice, not less work), and the limit divides by it. "
            "At a cost of one forward or more it would be at most {n}×.",
            "The physical limit of {shape}, {limit}×, is above the {n} tokens one target forward can emit: the "
            "run's measured verify curve puts a forward over its {fed} tokens fed at {ratio} of a one-token "
            "forward's time, under 1 (timing noise or a kernel choice, not less work), and the limit divides by it. "
            "At a cost of one forward or more it would be at most {n}×.", over.tokens,
            shape=shape_name(row), limit=number(over.limit, 3), fed=number(over.fed, 0),
            ratio=number(over.ratio, over.ratio_digits(3))))
    return notes


def shape_sentence(result: BenchResult, proposer: str, temperature: float) -> str | None:
    """The tree that emits the most tokens per forward against the chain that does, in tokens per forward and in
    speed. "Most tokens" is not "fastest": the verdict above the tabs names the fastest chain and the fastest tree,
    so the sentence says which it compares."""
    rows = result.shape_rows(proposer, temperature)
    chains = [r for r in rows if not r.get("tree_nodes")]
    trees = [r for r in rows if r.get("tree_nodes")]
    if not chains or not trees:
        return None
    chain = max(chains, key=lambda r: r["mat_with_bonus"] or 0)
    tree = max(trees, key=lambda r: r["mat_with_bonus"] or 0)
    # two speedups that round alike at 2 decimals are written with 3, so the comparison shows (read 44: "1.67×
    # against 1.67×" for 1.671 and 1.667)
    digits = 3 if times(tree["speedup_vs_ar"]) == times(chain["speedup_vs_ar"]) else 2
    return _("The tree that emits the most tokens per target forward ({tree}) emits {tree_tokens} against "
             "{chain_tokens} for the chain that emits the most ({chain}): the same forward checks several guesses "
             "per position. Whether that is faster depends on the verify cost of its {fed} tokens at most: measured "
             "here {tree_speedup} against {chain_speedup} over target-only decoding (the fastest shapes can be "
             "others: the table below has every shape).", tree=shape_name(tree),
             tree_tokens=number(tree["mat_with_bonus"]), chain_tokens=number(chain["mat_with_bonus"]),
             chain=shape_name(chain), fed=tokens_fed(tree["k"], tree["tree_nodes"], tree.get("tree_lookup") or 0),
             tree_speedup=times(tree["speedup_vs_ar"], digits), chain_speedup=times(chain["speedup_vs_ar"], digits))


# ---- streamlit ----------------------------------------------------------------------------------------------------


def render_dtype_curves(result: BenchResult) -> None:
    """The verify-cost curve of each dtype the result measured (one or both), and the sentence comparing them."""
    if not result.verify_curves():
        return
    plot.show(dtype_curve_figure(result), key="speedup_lab_dtype_chart")
    st.caption(curves_caption(result))
    sentence = dtype_sentence(result)
    if sentence:
        st.markdown(sentence)


def no_trees_text(proposer: str) -> str:
    """What the Chain vs tree tab says when the result has no tree rows for `proposer`. A proposer that cannot branch
    (n-gram lookup) is not sent to rerun the bench with --tree-nodes: the bench runs a tree shape for it as the
    chain of its K (`cases.CaseRunner.shapes_of`), so that run would have no tree either (Read 45: the n-gram run's tab
    gave that advice). A bench's own name such as "layerskip-7" is not the registry's, and can branch."""
    if proposer in registry.names() and not registry.can_branch(proposer):
        return _("{proposer} cannot branch, so it drafts no tree: the bench runs a tree shape for it as the chain of "
                 "its K. Pick a run of a proposer that drafts with a model to compare chains and trees.",
                 proposer=registry.menu_label(proposer))
    return _("This result has no draft trees for this proposer and temperature; run the bench with `{flags}`.",
             flags=committed_tree_flags())


def committed_tree_flags(paths: list[Path] | None = None) -> str:
    """The bench flags that draft the trees the committed runs drafted (`paths`, default every committed result):
    the chain (0) and every node budget their tree rows used, and every width (Read 48: the advice typed
    `--tree-width 3`, a width no committed run used; they all used 4). Read from the rows, not typed, so the advice
    follows the runs; with no tree row anywhere, the bench's default width and a tree of `WIDE` - 1 nodes.

    >>> committed_tree_flags([])
    '--tree-nodes 0 16 --tree-width 4'
    """
    nodes, widths = {0}, set()
    for path in results.result_files() if paths is None else paths:
        try:
            rows = results.load_result(path).cases
        except ValueError:  # an unreadable file is the page's to report, not this sentence's
            continue
        for row in rows:
            if row.get("tree_nodes"):
                nodes.add(int(row["tree_nodes"]))
                widths.add(int(row.get("tree_width") or BenchConfig().tree_widths[0]))
    if not widths:
        nodes, widths = {0, WIDE - 1}, set(BenchConfig().tree_widths)
    return (f"--tree-nodes {' '.join(map(str, sorted(nodes)))} "
            f"--tree-width {' '.join(map(str, sorted(widths)))}")


def render_chain_vs_tree(result: BenchResult, proposer: str, temperature: float) -> None:
    if not result.shape_rows(proposer, temperature):
        st.info(no_trees_text(proposer))
        return
    plot.show(shape_figure(result, proposer, temperature), key="speedup_lab_tree_chart")
    sentence = shape_sentence(result, proposer, temperature)
    if sentence:
        st.markdown(sentence)
    st.dataframe(shape_table(result, proposer, temperature), hide_index=True, width="stretch")
    st.caption(_("Physical limit: a perfect, free draft of the same shape keeps a whole path of depth K (or the lookup "
                 "branch, when that is longer) and its bonus token, and pays only the measured verify cost of the "
                 "tokens fed (K + 1 for a chain, nodes + lookup branch + 1 for a tree)."))
    for note in over_limit_notes(result, proposer, temperature):
        st.caption(note)
