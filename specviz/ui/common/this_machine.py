""""This machine": what speculative decoding should reach on the computer the app runs on, from a quiet measurement.

The Speedup lab shows the whole panel (the cost of verifying n tokens here, as a chart with its table, and the
predicted speedup of the best shapes, greedy and at T = 0.7); the Overview shows its one line. Nothing is measured
while a page loads: the panel reads this machine's cached calibration (`specviz.labs.calibration`) and offers a button
that measures it (after the model loads; how long depends on the CPU), on the pair's turn, so no other run shares the CPU meanwhile.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from specviz.core.i18n import N_, _, number, small_number, times
from specviz.engine.draft_shape import DraftShape
from specviz.engine.kernels import PACKED, STOCK, packing_available
from specviz.labs.calibration import Calibration, TooBusy, cached, calibrate, ms_decimals
from specviz.labs.shape_choice import (Prediction, predictions, slowdown_note, table_for, table_temperature,
                                      written_digits)
from specviz.models.catalog import recommended_for
from specviz.models.machine import cpu_has_bf16
from specviz.ui.common import charts as plot

PAIR = "default"
MEASURE_WAIT_SECONDS = 60.0  # the longest "Measure this machine" waits for the model's turn (docs/classroom.md)
# Under the cost chart. A tree with a lookup branch feeds the copied tokens too (`specviz.labs.bench.summary.tokens_fed`:
# the recommended 16-node tree with a lookup branch of 8 feeds up to 25 tokens, not 17).
COST_CAPTION = N_("One target forward over n new tokens, in one-token forwards ({one} ms here). Checking K drafts "
                  "feeds K + 1 tokens; a tree feeds its nodes, the tokens of its lookup branch when it has one, and "
                  "one more. The flatter the curve, the more a step can check for the price of one token. One drafter "
                  "pass costs {c}; one token of model.generate {g} greedy and {s} sampling at T = 0.7 (the predictions "
                  "at T = 0.7 are measured against the sampled one).")
# read 52: a calibration without a sampled model.generate timing (`sampled_generate_seconds` 0) has the greedy one only,
# which its T = 0.7 predictions then divide by too (`Calibration.baseline_ratio`); the caption said "model.generate"
COST_CAPTION_GREEDY = N_("One target forward over n new tokens, in one-token forwards ({one} ms here). Checking K "
                         "drafts feeds K + 1 tokens; a tree feeds its nodes, the tokens of its lookup branch when it "
                         "has one, and one more. The flatter the curve, the more a step can check for the price of one "
                         "token. One drafter pass costs {c}; one token of greedy model.generate {g} (sampling was not "
                         "timed: the predictions at T = 0.7 are measured against greedy model.generate too).")


def expected(pair: str = PAIR) -> Calibration | None:
    """This machine's cached calibration of `pair` as the app would load it (on the CPU, bfloat16 where the CPU has
    bf16 instructions, else float32), without loading anything; None if it was never measured here."""
    dtype = "bfloat16" if cpu_has_bf16() else "float32"
    cal = cached(pair, dtype, PACKED if packing_available() else STOCK, "cpu")
    # a cache written before the key named the proposer (86e385b9) may hold `calibrate --proposer ngram`'s
    # measurement under the default proposer's file name; `calibrate` refuses it there, and so does this (read 44)
    default = _default_proposer(pair) if cal is not None else None
    return cal if default is None or cal.proposer == default else None


def _default_proposer(pair: str) -> str | None:
    """The proposer `pair` loads with: the catalog's, except that the default pair drafts with the layer-skip
    self-draft in a checkout without the EAGLE drafter (`pairs.default_pair_proposer`, the rule `pairs.default_pair`
    loads by), whose own calibration is then this machine's; None when the catalog cannot say (then any calibration
    is taken)."""
    from specviz.models.catalog import load_catalog
    from specviz.models.pairs import default_pair_proposer

    if pair == "default" and (proposer := default_pair_proposer()) != "eagle":
        return proposer
    try:
        entry = load_catalog().get(pair)
    except ValueError:
        return None
    return entry.proposer if entry is not None else None


def fastest_here(pair: str = PAIR, temperature: float = 0.0) -> tuple[DraftShape, Prediction | None]:
    """The shape a page starts a run of `pair` with when the visitor chose none: the one predicted fastest from this
    machine's cached calibration (with its prediction), else the pair's catalog recommendation (and None). The shape
    is `fitted`: a table row such as "tree 16x2 depth 4" drafts 14 nodes, the budget the pages' inputs then hold."""
    cal = expected(pair)
    best = best_here(cal, temperature) if cal is not None else None
    return (best.shape.fitted(), best) if best is not None else (recommended_for(pair).shape.fitted(), None)


def best_here(cal: Calibration, temperature: float) -> Prediction | None:
    table = table_for(cal.pair, cal.proposer)
    ranked = predictions(table, cal, temperature) if table else []
    return ranked[0] if ranked else None


def one_line(cal: Calibration | None) -> str:
    """The Overview's sentence: what this machine should reach, or how to measure it."""
    if cal is None:
        # not "measures it once": a busy machine's measurement is not kept (`calibrate`'s 15%), read 44 review.
        # Read 51: a checkout without the trained drafter calibrates the default pair with the layer-skip
        # self-draft (`_default_proposer`), where this line still said "with its EAGLE drafter"
        if _default_proposer(PAIR) == "layerskip":
            return _("**This machine** has not been measured yet: the Speedup lab measures it (timed forwards and "
                     "four short runs of the default pair, SmolLM2-135M with its layer-skip self-draft, as "
                     "assets/models holds no trained EAGLE drafter here; kept if the machine was quiet) and predicts "
                     "what speculative decoding reaches here.")
        return _("**This machine** has not been measured yet: the Speedup lab measures it (timed forwards and four "
                 "short runs of the default pair, SmolLM2-135M with its EAGLE drafter; kept if the machine was quiet) "
                 "and predicts what speculative decoding reaches here.")
    greedy, sampled = best_here(cal, 0.0), best_here(cal, 0.7)
    if greedy is None or sampled is None:
        return _("**This machine** ({machine}, {dtype}) was measured; its pair has no per-shape table to predict from.",
                 machine=cal.timed_on, dtype=cal.dtype)
    # each figure with its own shape: the best shape at T = 0.7 is often another (a chain where greedy's is a tree)
    return _("**This machine** ({machine}, {dtype}, measured {date}): predicted {greedy} the speed of model.generate "
             "greedy ({shape}) and {sampled} at T = 0.7 ({sampled_shape}). A prediction from measured costs, not a "
             "measured speedup: the Speedup lab shows how it is made.", machine=cal.timed_on, dtype=cal.dtype,
             date=cal.measured_at[:10], greedy=times(greedy.vs_generate), shape=greedy.shape.describe(),
             sampled=times(sampled.vs_generate), sampled_shape=sampled.shape.describe())


def render_this_machine(key: str = "this_machine") -> None:
    """The panel: the measured cost curve, where speculation pays, the shapes predicted best; or the button."""
    st.subheader(_("This machine"))
    cal = expected()
    if cal is None:
        st.markdown(_("The committed results below were measured on the machines they name. What this computer "
                      "reaches depends on its CPU: measure it (once the model is loaded; how long that takes depends on the "
                      "CPU too) and specviz predicts the speedup here of each draft shape in the pair's committed "
                      "shape table and picks the best one for your runs."))
        if not st.button(_("Measure this machine"), key=f"{key}_measure"):
            return
        cal = measure_here()
        if cal is None:
            return
    _render(cal, key)


def measure_here() -> Calibration | None:
    """Load the default pair and calibrate it on its turn; None (with one sentence) if the machine was too busy."""
    from specviz.runs.running import PAIRS, Busy
    from specviz.ui.common.runs import get_pair

    pair = get_pair(PAIR)
    try:
        with st.spinner(_("Measuring this machine: timed forwards over 1 to 33 tokens and "
                          "a drafter pass over six rounds, model.generate in the first three (all again if they "
                          "disagree), then four short runs…")):
            with PAIRS.turn(PAIR, timeout=MEASURE_WAIT_SECONDS):
                cal = calibrate(pair, force=True)
    except Busy:
        st.info(_("Other visitors' runs held the model for a minute: measure again when they are done."))
        return None
    except TooBusy as exc:  # every timing of model.generate failed: nothing to show
        st.warning(str(exc))
        return None
    if not cal.quiet:
        st.warning(_("The machine was busy while it was measured ({why}): the numbers below are not kept; measure "
                     "again when nothing else runs.", why=cal.disagreement()))
    return cal


def measured_heading(cal: Calibration) -> str:
    """The panel's first line: what the costs were timed on, the pair, dtype, kernels and date. On a GPU it names the
    device first and the host CPU after it (read 48: a GPU's costs were shown under the host CPU's name alone, as
    `calibrate` printed them)."""
    values = dict(machine=cal.machine_words(), bf16=_("with bf16 instructions") if cal.cpu_bf16 else
                  _("without bf16 instructions"), pair=cal.pair, dtype=cal.dtype, kernels=cal.kernels,
                  date=cal.measured_at[:16].replace("T", " ") + " UTC")
    if cal.device != "cpu":
        return _("Measured on **{device}** (host: {machine}, {bf16}), pair `{pair}` in {dtype}, linear kernels "
                 "{kernels}, {date}.", device=cal.device, **values)
    return _("Measured on **{machine}** ({bf16}), pair `{pair}` in {dtype}, linear kernels {kernels}, {date}.",
             **values)


def _render(cal: Calibration, key: str) -> None:
    st.markdown(measured_heading(cal))
    plot.show(cost_figure(cal), key=f"{key}_cost", table=cost_table(cal))
    st.caption(cost_caption(cal))
    table = table_for(cal.pair, cal.proposer)
    if table is None:
        return
    for temperature in (0.0, 0.7):
        ranked = predictions(table, cal, temperature)
        note = slowdown_note(ranked[0], cal) if ranked else None
        if note:
            st.warning(note)
    st.markdown(_("**Predicted here**, best first: the mean accepted length (tokens per target forward, the recovered "
                  "or bonus token included) is counted on {prompts} held-out prompts in {dtype} (a count: the same "
                  "dtype and kernels give the same numbers on any machine, up to rounding, while another dtype can "
                  "change which drafts are kept); the step's cost is this machine's. Your runs take the first shape "
                  "of their temperature when you do not choose one.", prompts=table.get("prompts", "?"),
                  dtype=table.get("dtype", "?")))
    st.dataframe(predicted_table(cal, table), hide_index=True, width="stretch")


def predicted_table(cal: Calibration, table: dict) -> pd.DataFrame:
    """The panel's predictions: the `SHOWN` best shapes greedy and at T = 0.7, each with the mean accepted length and
    step cost it is made of, written with the decimals that make them give it (`cost_digits`)."""
    rows = []
    digits = cost_digits(cal)  # the caption's model.generate token has them too
    for temperature in (0.0, 0.7):
        for p in predictions(table, cal, temperature)[:SHOWN]:
            rows.append({_("temperature"): _("greedy") if temperature == 0 else number(
                table_temperature(table, temperature), 1), _("draft shape"): p.shape.describe(),
                _("mean accepted length"): number(p.tokens_per_forward, digits),
                _("step cost (one-token forwards)"): number(p.step_cost, digits),
                _("predicted vs model.generate"): times(p.vs_generate)})
    return pd.DataFrame(rows)


SHOWN = 4  # the predicted shapes the panel lists at each temperature, best first


def cost_digits(cal: Calibration) -> int:
    """The decimals of the panel's mean accepted lengths, step costs and model.generate token (`written_digits`):
    each written prediction follows from the written figures it is made of (read 54: "2.98", "1.42" and the caption's
    "1.32" beside 2.76×, which give 2.77)."""
    table = table_for(cal.pair, cal.proposer)
    if table is None:
        return 2
    return written_digits(cal, [p for temperature in (0.0, 0.7)
                                for p in predictions(table, cal, temperature)[:SHOWN]])


def cost_caption(cal: Calibration) -> str:
    """The caption under the cost chart: the one-token forward's milliseconds, c, and the token of model.generate,
    greedy and sampled, each the baseline of its temperature's predictions. Read 52: c was written `number(cal.c)`,
    so a c under 0.005 read "0.00"; it has two significant digits now, as the Theory page and `calibrate` write it.
    The milliseconds have the cost table's decimals (`ms_decimals`)."""
    digits = cost_digits(cal)
    values = dict(one=number(cal.one * 1e3, ms_decimals(cal)), c=small_number(cal.c, 2),
                  g=number(cal.generate_ratio, digits))
    if cal.sampled_generate_seconds > 0:
        return _(COST_CAPTION, s=number(cal.baseline_ratio(0.7), digits), **values)
    return _(COST_CAPTION_GREEDY, **values)


# The cost chart's measured series, one name in its legend, its hover and its table's column (read 54: the legend said
# "measured here", the column "in one-token forwards")
MEASURED_SERIES = N_("measured here, in one-token forwards")


def cost_table(cal: Calibration) -> pd.DataFrame:
    """The cost chart's numbers: each measured point in milliseconds and in one-token forwards (two decimals, as its
    hover writes them), and the dotted line's n beside it (read 52: the hover wrote three significant figures, 0.973
    and 10 beside the table's 0.97 and 10.05, and the table left the dotted line out). The milliseconds take the
    decimals that make each one ÷ the first give the ratio beside it, as `calibrate` writes them (`ms_decimals`; read
    53: a 1.07 ms forward and a 1.12 ms one read "1.1 | 1.00" and "1.1 | 1.05")."""
    ms = ms_decimals(cal)
    return pd.DataFrame([{_("tokens fed"): n, _("milliseconds"): number(s * 1e3, ms),
                          _(MEASURED_SERIES): number(s / cal.one),
                          _("n separate one-token forwards"): str(n)} for n, s in cal.verify])


def cost_figure(cal: Calibration) -> go.Figure:
    ns = [n for n, _s in cal.verify]
    fig = go.Figure()
    # hovers with the table's decimals (`cost_table`): Plotly's own wrote three significant figures
    measured, separate = _(MEASURED_SERIES), _("n separate one-token forwards")
    fig.add_trace(go.Scatter(x=ns, y=[s / cal.one for _n, s in cal.verify], mode="lines+markers",
                             marker={"symbol": "circle", "size": 9}, name=measured,
                             hovertemplate="n = %{x}: %{y:.2f}<extra>" + measured + "</extra>"))
    fig.add_trace(go.Scatter(x=ns, y=ns, mode="lines", line={"dash": "dot"}, name=separate,
                             hovertemplate="n = %{x}: %{y}<extra>" + separate + "</extra>"))
    fig.update_layout(title=_("Cost of one target forward over n tokens, this machine"), height=340,
                      xaxis_title=_("tokens fed (n)"), yaxis_title=_("one-token forwards"),
                      yaxis={"range": [0, max(4.0, max(s / cal.one for _n, s in cal.verify) * 1.2)]},
                      legend={"orientation": "h", "y": -0.25}, margin={"t": 60, "b": 40})
    return fig
