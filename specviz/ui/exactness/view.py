"""The Exactness lab's view: the experiments of `specviz.labs.exactness.lab` behind `st.cache_data`, and their figures.

The experiments are keyed by the `RunSpec`, the lab's own settings and the language (their notes are sentences; the
pair is passed through unhashed and named by the spec). Token text shown anywhere goes through `label`: whitespace
made visible, then escaped. Every other text is translated with `_()` where it is drawn.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

if TYPE_CHECKING:  # annotations only: the library computes, the page shows
    import torch

from specviz.core.i18n import (N_, _, as_written, clause, get_language, list_separator, localized, ngettext, number,
                                signed_delta, times)
from specviz.engine import theory
from specviz.engine.draft_shape import DraftShape
from specviz.engine.proposers import registry
from specviz.engine.trace import Trace
from specviz.labs import exactness
from specviz.labs.exactness import lab
from specviz.labs.exactness.lab import (LabResult, StepDistributions, bucket, drop_empty_bars, rules_table,
                                        bounds_text, chance_digits, chance_text, share_text,
                                        table_digits, top_for_bars)
from specviz.labs.exactness.stats import shown_p_value
from specviz.labs.examples import list_examples, load_example
from specviz.models.pairs import Pair
from specviz.runs.runspec import RunSpec
from specviz.ui.common.charts import ACCEPTED_PART, RECOVERED_AT_POSITION, figure_table, show
from specviz.ui.common.escaping import escape_markdown, escape_text, plot_text
from specviz.ui.common.grids import NAMED_ROWS, name_column
from specviz.ui.common.palette import (BLUISH_GREEN, GREY, LIGHT_GREY, P_COLOR, Q_COLOR, RESIDUAL_COLOR,
                                      VERMILLION)
from specviz.ui.common.runs import with_turn
from specviz.ui.common.tokens import decision_numbers
from specviz.ui.common.verdicts import verdict_with_grouping

PAIRS = {
    "toy": N_("Toy pair (instant; 32 characters and 2 special tokens)"),
    "default": N_("SmolLM2-135M, trained EAGLE-3 drafter (slow first load: the model is converted once)"),
}
N_MAX = {("toy", "one_step"): 5000, ("toy", "engine"): 2000, ("default", "one_step"): 5000,
         ("default", "engine"): 200}
N_DEFAULT = {("toy", "one_step"): 2000, ("toy", "engine"): 400, ("default", "one_step"): 2000,
             ("default", "engine"): 20}
BARS = lab.BARS
OTHERS = N_("(all others)")
# read 55: from a trace's lists the last row is 1 minus the listed values, so it also holds the p or q of a listed
# token that one list leaves out (written "–" in its row): not all others alone
OTHERS_AND_MISSING = N_("(all others, plus the “–” values)")
# the grey bars: p whose split the trace's lists cannot give (a listed token the draft's list leaves out, and the
# rest of p); read 55: named "rest of p" alone while a listed token's p was drawn as recovered with q 0
UNKNOWN_SPLIT = N_("p, split unknown (not in both lists)")
NO_BAR = N_("Tokens that p and q both give probability 0 add nothing to min(p, q) or to max(0, p − q), so they "
            "get no bar.")
RULE_BOX = N_("**{label}.** {text}")
# the decomposition's one-position acceptance probability β = Σ min(p, q): Leviathan et al.'s β, as in Theory
BETA_LABEL = N_("β = Σ min(p, q) at this position")
BETA_HELP = N_("The acceptance probability at this one position: the chance that a draft x ~ q is accepted, "
               "1 − TV(p, q). α, the mean over positions (E[β]), is what the speedup formula uses.")
# "kept": each rule's chance of keeping one draft x ~ q, from its closed form; β = Σ min(p, q) is that chance under
# the rules whose accept test is min(1, p/q) (the exact rule, resample-from-p), so neither the column nor the metric
# above it calls another rule's chance β (issue 43). Read 55: the page takes one position out of a real text, so its
# Σ min(p, q) is β, as in the Theory explorer (Leviathan et al.'s β; α = E[β] over positions), not α
# read 53: "exact" ✗ beside a drift of 0.0000 (every rule but accept-all at T = 0; the top-20 rule at top-k <= 20)
# read as a contradiction: the column says whether a rule emits p for every p and q, not at these settings
TABLE_COLUMNS = {"rule": N_("rule"), "exact": N_("exact for any p, q"), "drift (TV)": N_("drift (TV)"),
                 "kept": N_("chance of keeping a draft"), "tokens/step": N_("mean accepted length"),
                 "speedup ×": N_("speedup ×")}
# the charts' legends at the bottom of the figure, under the x axis title: hung at a share of the plot's height
# below it, they fell on the title where rotated token labels pushed it down ("token" over "especulativa: Regra exata
# (Leviathan / Chen)" at 1400 px in Portuguese, read 44), as the Speedup lab's did (read 43)
BELOW = dict(orientation="h", yref="container", yanchor="bottom", y=0, x=0)
# read 47: it ended "a lossy rule buys speed with drift", beside a table where accept iff p ≥ q and the top-20 rule
# predict less speed than the exact rule: those two, and resampling from p, never keep more drafts than α (each keeps
# at most min(p, q) of every token), so their drift buys nothing; only accept-all (always) and Medusa's typical
# acceptance (at some prompts) keep more. Read 48: accept-all keeps more only where α < 1; at temperature 0, where
# draft and target share their top token, both keep every draft and the table shows 1.0000 twice
RULES_CAPTION = N_("Every rule at this prompt, from its closed form. Mean accepted lengths and speedups are "
                   "predictions: the i.i.d. formulas of the Theory explorer with each rule's chance of keeping a draft "
                   "in place of α at every one of the K positions. Drift does not always buy speed: accepting every "
                   "draft keeps more drafts than the exact rule wherever β < 1, and so can Medusa's typical "
                   "acceptance, but the other broken rules keep at most as many: their drift buys nothing.")
# read 47: "Drift from p (exact, one step)" beside the table's "exact" column (✓ / ✗: whether a rule is exact) read as
# the exact rule's drift, while it is the chosen rule's, computed exactly from its closed form
DRIFT_LABEL = N_("Drift from p (closed form, one step)")
# read 52: the drift was written with 4 decimals in its metric and the rules tables, 3 in the TV chart's label, its
# table and the caption under a green box, beside TV distances with 4 decimals in the metrics and 3 significant
# figures in the chart's table; every TV distance and drift on the page now has the rules table's decimals
TV_DIGITS = lab.RULES_TABLE_DIGITS["drift (TV)"]
# read 50: the speedup metric and column named no baseline (STYLE.md: a speedup names what it is against)
SPEEDUP_HELP = N_("Predicted speedup over target-only decoding (1×): the Theory explorer's formula, mean accepted "
                  "length / (K c + 1), with this rule's chance of keeping a draft in place of α.")
KEPT_HEADER = N_("P(kept)")  # the kept column's narrow header: its full name shows on hovering it
# read 55: it said "Only under the exact rule ... is it α" and called resample-from-p's chance "not α", where the
# Sandbox calls that rule's kept share an estimate of α and the glossary names α for both rules
KEPT_HELP = N_("The chance that this rule keeps one draft x ~ q, from its closed form. Under the two rules whose "
               "accept test is min(1, p/q), the exact rule (Leviathan / Chen) and resampling from p (which changes "
               "only what follows a rejection), it is the acceptance probability at this position, β = Σ min(p, q), "
               "{beta} at this prompt; under any other rule it is that rule's own chance, not β, even where it has "
               "β's value. It is "
               "not the measured accepted / drafted either.")
UNSEEN_DRIFT = N_("This rule is not exact here: its closed form drifts TV = {drift} from p at this prompt, but {n} "
                  "samples are too few for the test to see it. Draw more samples.")
# whole continuations have no closed form on the page: the rule's own registry entry says it is not exact
UNSEEN_LOSSY = N_("This rule is not exact (its explanation above says why), but {n} samples are too few for the test "
                  "to see its drift on whole continuations. Draw more samples.")
# read 47: it said only min(1, p′/q′), but `verify_tree` keeps a child that was not drawn from q (the draft's top tokens
# at temperature 0, a token copied from the context) with p′(x), as a point mass
TREE_NOTE = N_("This step drafted a tree: there a child drawn from q is kept with chance min(1, p′/q′), and a fixed "
               "guess (one of the draft's top tokens at temperature 0, or a token copied from the context) with "
               "p′(x), against the residual p′ the siblings tried before it left; a recovered token comes only after "
               "every child at the node was rejected. The split shown here is the chain's rule for one draft from "
               "this p and q.")
SOURCES = {"prompt": N_("p and q at the prompt above"), "session": N_("the trace in this session"),
           "example": N_("an example trace")}


def note_caption(note: str, proposer: str) -> str:
    """The caption over a lab's verdicts: what was sampled (its note, whose own full stop is dropped) and who
    drafted, by the proposer's name in the reader's language, not its registry key ("Draft: draft.").

    >>> note_caption("Over 3 tokens, renormalised.", "draft")
    'Over 3 tokens, renormalised. Proposer: Draft model.'
    """
    shown = registry.menu_label(proposer)
    return _("{note}. Proposer: {proposer}.", note=clause(note), proposer=shown)


def label(text: str, token_id: int | None = None) -> str:
    """A token for a chart axis: visible whitespace, escaped for Plotly, the id appended so labels stay unique.

    >>> label("<b> x", 7)
    '&lt;b&gt;␣x · 7'
    """
    shown = plot_text(text, limit=None)
    return shown if token_id is None else f"{shown} · {token_id}"


def labels(texts: list[str], ids: list[int] | None, outcomes: list[tuple[int, ...]] | None = None) -> list[str]:
    """Chart labels for a lab's categories (a token without text, in a large vocabulary, shows its id). Compared on
    two tokens, a pair is its text, and where two pairs decode to one text ("a" + "bc" and "ab" + "c") each also
    gets its token ids (`outcomes`), so each has a bar and a table row of its own: Plotly drew two categories with
    one label as one bar, and the table under the chart kept only the first (read 51).

    >>> labels(["ab", "ab", "c"], None, [(1, 2), (3, 4), (5,)])
    ['ab · 1, 2', 'ab · 3, 4', 'c']
    """
    if ids is None:
        shown = [label(t) for t in texts]
        if outcomes is None:
            return shown
        return [f"{s} · {list_separator().join(map(str, o))}" if o and shown.count(s) > 1 else s
                for s, o in zip(shown, outcomes, strict=True)]
    return [label(t, i) if t else str(i) for t, i in zip(texts, ids)]


# ---- the experiments, cached ----------------------------------------------------------------------------------


# Each experiment that runs a model holds the pair's turn, like a live run: the lab shares the model fairly too.
# The spinners are drawn here (a cache's own spinner text is fixed when the module loads, in English).
@st.cache_data(show_spinner=False, max_entries=32)
def _step_distributions(_pair: Pair, spec: RunSpec) -> StepDistributions:
    return with_turn(spec.pair, lambda pair: lab.step_distributions(pair, spec))


def step_distributions(pair: Pair, spec: RunSpec) -> StepDistributions:
    with st.spinner(_("Computing p and q at the prompt...")):
        return _step_distributions(pair, spec)


@st.cache_data(show_spinner=False, max_entries=32)
def _one_step_lab(_pair: Pair, spec: RunSpec, rule: str, n: int, lang: str) -> LabResult:
    return lab.one_step_lab(_step_distributions(_pair, spec), rule, n, spec.seed)


def one_step_lab(pair: Pair, spec: RunSpec, rule: str, n: int) -> LabResult:
    with st.spinner(_("Sampling...")):
        return _one_step_lab(pair, spec, rule, n, get_language())


@st.cache_data(show_spinner=False, max_entries=16)
def _engine_lab(_pair: Pair, spec: RunSpec, rule: str, n: int, length: int, compare: str, lang: str) -> LabResult:
    return with_turn(spec.pair, lambda pair: lab.engine_lab(pair, spec, rule, n, length, compare))


def engine_lab(pair: Pair, spec: RunSpec, rule: str, n: int, length: int, compare: str = "first") -> LabResult:
    with st.spinner(_("Sampling continuations through the engine...")):
        return _engine_lab(pair, spec, rule, n, length, compare, get_language())


# ---- figures ----------------------------------------------------------------------------------------------------


def named_hover(body: str, name: str) -> str:
    """A hover template whose box names its series as the legend does (read 55: the legend's "speculative: Exact
    rule …", "target-only decoding", "accepted drafts: min(p, q)", "recovered: …", "q (draft)" hovered as
    "speculative", "target-only", "min(p, q)", "recovered part", "draft"). The names are the app's own words.

    >>> named_hover("%{x}: %{y:.4f}", "q (draft)")
    '%{x}: %{y:.4f}<extra>q (draft)</extra>'
    """
    return f"{body}<extra>{name}</extra>"


def histogram_figure(result: LabResult, rule_label: str) -> go.Figure:
    """Sample frequencies (speculative with the rule, target-only) next to the target's probabilities, for the
    categories that matter most; everything else summed into one last bar."""
    size = result.exact_probs.shape[0]
    spec, plain = result.frequencies()
    order = top_for_bars(result.exact_probs, spec, BARS)
    shown = set(order)
    rest = [i for i in range(size) if i not in shown]
    # read 54: an "(all others)" bar of 0 everywhere (at top-k 5, every token p gives 0 and no sample took) is dropped
    rest = rest if any(float(v[rest].sum()) > 0 for v in (spec, plain, result.exact_probs)) else []
    names = [labels(result.texts, result.ids, result.outcomes)[i] for i in order]
    pick = lambda v: [float(v[i]) for i in order] + ([float(v[rest].sum())] if rest else [])  # noqa: E731
    if rest:
        names.append(_(OTHERS))
    fig = go.Figure()
    speculative = _("speculative: {rule}", rule=rule_label)
    fig.add_trace(go.Bar(x=names, y=pick(spec), name=speculative, marker_color=VERMILLION,
                         hovertemplate=named_hover("%{x}: %{y:.4f}", speculative)))
    fig.add_trace(go.Bar(x=names, y=pick(plain), name=_("target-only decoding"), marker_color=GREY,
                         hovertemplate=named_hover("%{x}: %{y:.4f}", _("target-only decoding"))))
    # Read 48: "exact p (target)"; p is the target's distribution as computed at the chosen dtype, and "exact" is
    # what a rule preserves, not a property of p: named as the rest of the app names it
    # read 49: compared on two tokens the truth is the target's distribution over pairs, not its next-token p; an
    # end-of-sequence first token ends the continuation, so that outcome is the one token (t₁,), not a pair
    truth = _("p (target)") if result.ids is not None else _(
        "p(t₁, t₂) (target, over two-token pairs, or an end-of-sequence t₁ alone)")
    fig.add_trace(go.Scatter(x=names, y=pick(result.exact_probs), mode="markers", name=truth,
                             marker=dict(symbol="line-ew", size=26, line=dict(width=3, color=P_COLOR)),
                             hovertemplate=named_hover("%{x}: " + ("p" if result.ids is not None else "p(t₁, t₂)")
                                                       + " = %{y:.4f}", truth)))
    fig.update_layout(barmode="group", height=440, margin=dict(l=10, r=10, t=40, b=10),
                      # a category is a token (the table's first column: "token") or a two-token continuation (read 46)
                      xaxis_title=_("token") if result.ids is not None else _(
                          "first two tokens (or an end-of-sequence first token alone)"),
                      yaxis_title=_("frequency"),
                      legend=BELOW,
                      # read 50: "the exact distribution" named p for what a rule preserves; p is the target's
                      # distribution computed from its probabilities at the chosen dtype
                      title=_("Samples against the target's distribution p") if result.ids is not None else _(
                          "Samples against the target's distribution over two tokens, p(t₁, t₂)"))
    fig.update_xaxes(type="category", tickangle=-45 if len(names) > 12 else 0)
    return fig


def tv_figure(result: LabResult, drift: float | None) -> go.Figure:
    """TV distance to the target's distribution against N, log-log, with the TV an exact sampler is expected to have
    (`expected_tv_exact`: in proportion to 1/√N once every likely outcome comes up often)."""
    spec = exactness.tv_curve(result.speculative, result.exact_probs, points=14)
    plain = exactness.tv_curve(result.target_only, result.exact_probs, points=14)
    hover = "(%{x:.0f}" + list_separator() + "%{y:." + str(TV_DIGITS) + "f})"  # its table's decimals too
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=spec.ns, y=spec.tv, mode="lines+markers", name=_("speculative (this rule)"),
                             line=dict(color=VERMILLION), hovertemplate=hover))
    fig.add_trace(go.Scatter(x=plain.ns, y=plain.tv, mode="lines+markers", name=_("target-only"),
                             line=dict(color=GREY), hovertemplate=hover))
    fig.add_trace(go.Scatter(x=spec.ns, y=spec.exact_reference, mode="lines",
                             name=_("expected for exact sampling"),
                             line=dict(color=P_COLOR, dash="dash"), hovertemplate=hover))
    if drift is not None and drift > 1e-9:
        fig.add_hline(y=drift, line=dict(color=VERMILLION, dash="dot"),
                      annotation_text=_("this rule's drift: TV = {drift}", drift=share_text(drift, TV_DIGITS)))
    fig.update_layout(height=440, margin=dict(l=10, r=10, t=40, b=10), xaxis_title=_("samples N"),
                      yaxis_title=_("TV distance to p") if result.ids is not None else _("TV distance to p(t₁, t₂)"),
                      title=_("Distance to the target as samples grow"),
                      legend=BELOW)
    xs = [n for n in spec.ns if n > 0]
    ys = [v for v in [*spec.tv, *plain.tv, *spec.exact_reference, drift or 0.0] if v and v > 0]
    fig.update_xaxes(type="log", **log_ticks(min(xs), max(xs)) if xs else {})
    fig.update_yaxes(type="log", **log_ticks(min(ys), max(ys)) if ys else {})
    return fig


DRIFT_COLUMN = N_("this rule's drift: TV (dotted line)")


def tv_table(fig: go.Figure, drift: float | None) -> pd.DataFrame | None:
    """`tv_figure`'s numbers: its lines (`figure_table`) and the dotted line of the rule's drift, written as its
    label writes it. The line is a shape, which a figure's table does not read: the chart said "this rule's drift:
    TV = 0.050" and its table had no drift (read 51), as the Speedup lab's dashed line once had none (read 40)."""
    table = figure_table(fig)
    if table is not None and drift is not None and drift > 1e-9:
        table[_(DRIFT_COLUMN)] = share_text(drift, TV_DIGITS)
    return table


def log_ticks(lo: float, hi: float) -> dict:
    """Tick values and labels for a log axis from lo to hi: 1, 2 and 5 times each power of ten, and nothing else
    (left to itself, Plotly labels the minor ticks with bare digits: "7 6 5 … 0.1 9 8"), written the reader's way
    (0,05 and 1.000 in Portuguese).

    >>> log_ticks(0.03, 0.4)["ticktext"]
    ['0.02', '0.05', '0.1', '0.2', '0.5']
    >>> log_ticks(10, 5000)["ticktext"]
    ['10', '20', '50', '100', '200', '500', '1,000', '2,000', '5,000']
    """
    values = [m * 10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
              for m in (1, 2, 5)]
    shown = [v for v in values if lo / 1.5 <= v <= hi * 1.5]
    text = [localized(f"{v:,.10g}") for v in shown]
    return dict(tickvals=shown, ticktext=text, minor=dict(showgrid=False))


def rest_label(draft_probs: torch.Tensor, unknown: torch.Tensor) -> str:
    """The last row's name for a recorded step's split (`RecordedStep.shown_split`): its p and q are what the lists
    leave, 1 minus the listed values, so where a listed token's p or q is not given (NaN, "–" in its row) that value
    is in the last row too, which is then not all others alone.

    >>> import torch
    >>> nan = float("nan")
    >>> rest_label(torch.tensor([0.5, 0.2, 0.3]), torch.tensor([0.0, 0.0, 0.3]))
    '(all others)'
    >>> rest_label(torch.tensor([nan, 0.2, 0.3]), torch.tensor([0.5, 0.0, 0.3]))
    '(all others, plus the “–” values)'
    """
    missing = any(math.isnan(v) for v in draft_probs[:-1].tolist() + unknown[:-1].tolist())
    return _(OTHERS_AND_MISSING) if missing else _(OTHERS)


def decomposition_figure(labels: list[str], decomposition: exactness.StepDecomposition,
                         draft_probs: torch.Tensor, alpha_text: str | None = None,
                         rest_unknown: bool = False, unknown: torch.Tensor | None = None) -> go.Figure:
    """p as two stacked parts per token: min(p, q) (accepted drafts) and max(0, p − q) (recovered), with q as
    markers. The stack heights are p. `alpha_text` replaces the β in the title (e.g. bounds). `rest_unknown`: the
    last bar, "(all others)", is the rest of p past a trace's top-10 lists, whose split is not known (read 54: it
    was split as if its tokens were one, min(rest of p, rest of q), where the rest of q also holds the q of listed
    tokens the draft's list left out: 0.105 of p drawn as accepted drafts that the lists cannot show); it is drawn
    whole, in grey, as "split unknown". `unknown` (from `unknown_parts`) gives the grey bars itself, and a NaN in
    the parts or in q is a value the lists do not give: no bar or diamond there, "–" in the table of numbers (read
    55: a token missing from the draft's list had its q drawn and tabled as 0 and its whole p drawn as recovered)."""
    def unwritten(values: torch.Tensor) -> list[float | None]:
        return [None if math.isnan(v) else v for v in values.tolist()]

    accepted, recovered = unwritten(decomposition.accepted), unwritten(decomposition.recovered)
    if unknown is not None:
        unknown = unwritten(unknown)
    elif rest_unknown:
        unknown = [0.0] * (len(labels) - 1) + [accepted[-1] + recovered[-1]]
        accepted[-1] = recovered[-1] = 0.0
    fig = go.Figure()
    fig.add_trace(go.Bar(x=labels, y=accepted, name=_(ACCEPTED_PART),
                         marker_color=BLUISH_GREEN, hovertemplate=named_hover("%{x}: %{y:.4f}", _(ACCEPTED_PART))))
    fig.add_trace(go.Bar(x=labels, y=recovered,
                         name=_(RECOVERED_AT_POSITION), marker_color=RESIDUAL_COLOR,
                         hovertemplate=named_hover("%{x}: %{y:.4f}", _(RECOVERED_AT_POSITION))))
    if unknown is not None:
        fig.add_trace(go.Bar(x=labels, y=unknown, name=_(UNKNOWN_SPLIT),
                             marker_color=LIGHT_GREY,
                             hovertemplate=named_hover("%{x}: p = %{y:.4f}", _(UNKNOWN_SPLIT))))
    fig.add_trace(go.Scatter(x=labels, y=unwritten(draft_probs), mode="markers", name=_("q (draft)"),
                             marker=dict(symbol="diamond-open", size=11, color=Q_COLOR, line=dict(width=2)),
                             hovertemplate=named_hover("%{x}: q = %{y:.4f}", _("q (draft)"))))
    alpha_text = alpha_text or number(decomposition.alpha, 3)
    fig.update_layout(barmode="stack", height=460, margin=dict(l=10, r=10, t=60, b=10),
                      xaxis_title=_("token"), yaxis_title=_("probability"),  # the table's first column: "token"
                      legend=BELOW,
                      title=f"p = min(p, q) + (1 − β)·norm(max(0, p − q))<br>β = {alpha_text}")
    fig.update_xaxes(type="category", tickangle=-45 if len(labels) > 12 else 0)
    return fig


def verdict_box(title: str, counts, probs, pairs: bool = False) -> exactness.ChiSquareResult:
    """Run the chi-square test and show its plain-language verdict in a coloured box (`pairs`: on two tokens), and
    under it how the outcomes were grouped, with the statistic and degrees of freedom behind the p-value."""
    result = exactness.chi_square_test(counts, probs, pairs=pairs)
    verdict_with_grouping(result, _(RULE_BOX, label=title, text=result.verdict))
    return result


def p_value_text(test: exactness.ChiSquareResult) -> str:
    """The speculative test's p-value for its metric: 0 where a sample of probability 0 refutes p outright, "–"
    where no test ran (one group left after pooling and no exact binomial test either; the 1 the result holds
    there is no p-value; read 45: the metric read "1" beside "Too few samples to test"), else the digits the verdict
    beside it gives (`shown_p_value`; read 45: the metric said 0.333 where the verdict said 0.33), the exact binomial
    test's where that ran (read 54: its refutation, "p-value < 1e-300", sat beside "–" and "no test ran").

    >>> from specviz.labs.exactness import chi_square_test
    >>> p_value_text(chi_square_test([3, 1], [0.5, 0.5])), p_value_text(chi_square_test([0, 9], [1.0, 0.0]))
    ('–', '0')
    >>> p_value_text(chi_square_test([52, 48], [0.5, 0.5])), p_value_text(chi_square_test([1995, 5], [0.9988, 0.0012]))
    ('0.69', '0.096')
    """
    if test.impossible:
        return "0"
    if test.dof == 0 and test.top_count is None:
        return "–"
    return shown_p_value(test.p_value)


def p_value_metric(test: exactness.ChiSquareResult, pairs: bool) -> tuple[str, str]:
    """The speculative p-value metric's label and help: the chi-square test's, or the exact binomial test's where
    pooling left the chi-square test one group and the most likely outcome was tested alone (read 54: the label said
    "Chi-square" and the help "– where no test ran" beside a binomial test's refutation). Its help says what that
    p-value is, the chance of a count no more likely than the one seen (scipy's `binomtest`), not of one "at least
    this far from the n·p it expects" (read 55: 2,000 of 2,000 where p expects 1,995.2 has p-value 0.019, and a
    count that far from 1,995.2 comes up with chance 0.033). `pairs`: compared on two tokens."""
    if test.top_count is not None and not test.impossible:
        label = _("Exact binomial test p-value (speculative)")
        if pairs:
            return label, _("The chi-square test had one group after pooling, so the most likely outcome was "
                            "tested alone, by a two-sided exact binomial test: the chance, if the samples' first two "
                            "tokens came from p(t₁, t₂), of a count for it no more likely than this one (the verdict "
                            "gives both counts).")
        return label, _("The chi-square test had one group after pooling, so the most likely outcome was tested "
                        "alone, by a two-sided exact binomial test: the chance, if the samples came from p, of a count "
                        "for it no more likely than this one (the verdict gives both counts).")
    if pairs:
        return _("Chi-square p-value (speculative)"), _(
            "How often chance alone would produce a gap at least this large if the samples' first two tokens came "
            "from p(t₁, t₂); – where no test ran (the verdict says why).")
    return _("Chi-square p-value (speculative)"), _(
        "How often chance alone would produce a gap at least this large if the samples came from p; – where no test "
        "ran (the verdict says why).")


def render_samples(result: LabResult, rule_label: str, drift: float | None, exact: bool = True) -> None:
    """The two verdicts, the numbers behind them, the histogram and the TV-vs-N curve. `exact`: whether the rule is
    exact at these settings (`Rule.exact_with_top_k`); with no `drift` (whole continuations) a green box for a lossy
    rule says it is still lossy (read 45: Medusa's typical acceptance passed at N = 200 with nothing said)."""
    spec_counts, plain_counts = result.counts()
    v1, v2 = st.columns(2)
    on_pairs = result.ids is None  # compared on the first two tokens: an outcome is a pair (read 49)
    with v1:
        spec_test = verdict_box(_("Speculative, {rule}", rule=rule_label), spec_counts, result.exact_probs, on_pairs)
    with v2:
        verdict_box(_("Target-only decoding"), plain_counts, result.exact_probs, on_pairs)
    green = spec_test.dof and not spec_test.impossible and spec_test.p_value >= 1e-2  # `verdict_box`'s success
    if green and drift is not None and drift > 1e-9:  # a rule the closed form shows is not p (read 45)
        v1.caption(_(UNSEEN_DRIFT, drift=share_text(drift, TV_DIGITS), n=number(spec_test.n, 0)))
    elif green and drift is None and not exact:
        v1.caption(_(UNSEEN_LOSSY, n=number(spec_test.n, 0)))
    m1, m2, m3 = st.columns(3)
    tvs = [share_text(exactness.tv_distance(counts, result.exact_probs), TV_DIGITS)
           for counts in (spec_counts, plain_counts)]
    if result.ids is not None:
        label, text = p_value_metric(spec_test, pairs=False)
        m1.metric(label, p_value_text(spec_test), help=text)
        m2.metric(_("TV distance to p (speculative)"), tvs[0])
        m3.metric(_("TV distance to p (target-only)"), tvs[1])
    else:  # read 49: compared on two tokens, the truth is the target's distribution over pairs, not p
        pairs = _("p(t₁, t₂) = p(t₁)·p(t₂ | t₁): the target's distribution over the first two tokens, a pair as one "
                  "outcome; an end-of-sequence t₁ ends the continuation, so it is an outcome alone, of probability "
                  "p(t₁).")
        label, text = p_value_metric(spec_test, pairs=True)
        m1.metric(label, p_value_text(spec_test), help=text + " " + pairs)
        m2.metric(_("TV distance to p(t₁, t₂) (speculative)"), tvs[0], help=pairs)
        m3.metric(_("TV distance to p(t₁, t₂) (target-only)"), tvs[1], help=pairs)
    h1, h2 = st.columns(2)
    show(histogram_figure(result, rule_label), "exact_histogram", h1)
    tv = tv_figure(result, drift)
    show(tv, "exact_tv", h2, table=tv_table(tv, drift))
    # read 49: "∝ 1/√N" beside a line that was a normal approximation, 3.32 at N = 10 over two-token continuations.
    # Read 50: "about 1/√N" read as its value, 0.022 at N = 2,000, where the toy pair's line stands at 0.046: the
    # expected TV falls in proportion to 1/√N, its factor larger the more outcomes are likely
    h2.caption(_("Exact sampling follows the dashed line, its expected TV, which falls in proportion to 1/√N once "
                 "every likely outcome comes up often (over two-token continuations that takes far more samples); a "
                 "lossy rule levels off at its drift."))


def render_rule_economics(rule: exactness.Rule, dists: StepDistributions, k: int, c: float) -> None:
    """How far the rule drifts from p at this prompt, how often it keeps a draft, and the speed that would buy."""
    p, q = dists.target_probs, dists.draft_probs
    dist, kept = exactness.one_step_distribution(rule, p, q)
    exact_alpha = float(theory.acceptance_probability(p, q))
    speedup = theory.expected_speedup(min(1.0, kept), k, c)
    b1, b2, b3 = st.columns(3)
    b1.metric(_(DRIFT_LABEL), share_text(exactness.tv_distance(dist, p), TV_DIGITS),
              help=_("TV distance between what this rule emits and p, from its closed form at this prompt."))
    # read 51: each change is the difference of the two figures as written (`as_written`), so a reader who subtracts
    # them gets it: "0.351 (−0.183 vs exact rule)" beside α = 0.533 (0.3506 and 0.5334 before rounding)
    # read 55: each with the decimals that keep a chance neither 0 nor 1 from reading 0 or 1 (`share_digits`)
    # second read 55: and two significant figures at least, as the table under it (`chance_digits`)
    kept_digits, alpha_digits = chance_digits(kept, 3), chance_digits(exact_alpha, 3)
    kept_delta, kept_arrow = signed_delta(number(as_written(kept, kept_digits) - as_written(exact_alpha, alpha_digits),
                                                 max(kept_digits, alpha_digits)))
    kept_help = _(KEPT_HELP, beta=number(exact_alpha, alpha_digits))  # the metric's help and the table column's
    b2.metric(_("Chance of keeping a draft"), number(kept, kept_digits),
              delta=_("{delta} vs exact rule", delta=kept_delta), delta_color="off", delta_arrow=kept_arrow,
              help=kept_help)
    exact_speedup = theory.expected_speedup(exact_alpha, k, c)
    gain, gain_arrow = signed_delta(number(as_written(speedup, 2) - as_written(exact_speedup, 2), 2))
    b3.metric(_("Expected speedup at K = {k}, c = {c}", k=k, c=number(c, 2)), times(speedup),
              delta=_("{delta} vs exact rule", delta=gain + "×"), delta_color="off", delta_arrow=gain_arrow,
              help=_(SPEEDUP_HELP))
    # the kept column headed "P(kept)", its full name on hovering: a long header made the Portuguese table wider than
    # its 1400 px page and cut its last column, "aceleração ×", to "ac" (as the policy table's long headers were,
    # specviz/ui/speedup/tables.py); the metric above names the chance in full
    full, short = _(TABLE_COLUMNS["kept"]), _(KEPT_HEADER)
    # the rule names pinned: on a phone the numbers scrolled sideways without them (read 51)
    st.dataframe(rules_frame(p, q, k, c).rename(columns={full: short}), hide_index=True, key="exact_rules_table",
                 **NAMED_ROWS, column_config={
                     _(TABLE_COLUMNS["rule"]): name_column(), short: st.column_config.Column(help=kept_help),
                     _(TABLE_COLUMNS["speedup ×"]): st.column_config.Column(help=_(SPEEDUP_HELP))})
    caption = _(RULES_CAPTION)
    st.caption(f"{caption} {dists.note}" if dists.note else caption)


def rules_frame(p: torch.Tensor, q: torch.Tensor, k: int, c: float) -> pd.DataFrame:
    """`lab.rules_table` for the reader: rule names, column headers and numbers (0,2526 in Portuguese) in their
    language."""
    labels = {rule.label: _(rule.label) for rule in exactness.RULES.values()}
    frame = pd.DataFrame(rules_table(p, q, k, c))
    frame["rule"] = frame["rule"].map(labels)
    for column in lab.RULES_TABLE_DIGITS:  # by `number`, as the tree lab's table is: 0,2526 in pt
        frame[column] = [number(v, table_digits(column, v)) for v in frame[column]]
    return frame.rename(columns={name: _(shown) for name, shown in TABLE_COLUMNS.items()})


def render_decomposition(dists: StepDistributions, session_trace: object) -> None:
    """β and the stacked bars p = min(p, q) + (1 − β)·norm(max(0, p − q)), for p and q at the prompt, one drafted
    position of the session's trace, or one of an example trace."""
    sources, unknown = ["prompt"], None
    if isinstance(session_trace, Trace) and session_trace.num_drafted:
        sources.append("session")
    examples = list_examples()
    if examples:
        sources.append("example")
    source = st.radio(_("Distributions from"), sources, horizontal=True, key="exact_source",
                      format_func=lambda s: _(SOURCES[s]))
    try:
        if source == "prompt":
            p, q = dists.target_probs, dists.draft_probs
            ids = top_for_bars(p, q)
            names = labels(dists.texts, dists.token_ids)
            bar_labels = [names[i] for i in ids] + [_(OTHERS)]
            full = exactness.decompose_step(p, q)
            decomposition = exactness.StepDecomposition(full.alpha, bucket(full.accepted, ids),
                                                        bucket(full.recovered, ids))
            draft_probs = bucket(q.double(), ids)
            alpha_text, note = chance_text(full.alpha, 3), dists.note
        else:
            if source == "session":
                trace = session_trace
            else:
                titles = {e.name: getattr(e, "shown_title", e.title) for e in examples}
                name = st.selectbox(_("Example"), list(titles), key="exact_example", format_func=titles.get)
                trace = load_example(name)[0]
            # only the drafts the verifier tested: one after a step's first rejection was never kept "with
            # probability" anything, and its p comes from a context that the rejection threw away
            tested = [(s.index, d.position) for s in trace.steps for d in s.decisions if d.reached]
            if not tested:
                raise ValueError(_("This trace drafted nothing, so it has no step to take apart."))
            choice = st.selectbox(_("Drafted position"), range(len(tested)), key=f"exact_position_{source}",
                                  format_func=lambda i: _("step {step}, draft {draft}", step=tested[i][0] + 1,
                                                          draft=tested[i][1] + 1))
            decision = trace.steps[tested[choice][0]].decisions[tested[choice][1]]
            recorded = exactness.recorded_step(decision)
            bar_labels = [label(t, i) for t, i in zip(recorded.texts, recorded.token_ids)] + [_(OTHERS)]
            decomposition, draft_probs, unknown = recorded.shown_split()  # NaN: a value the lists do not give
            bar_labels[-1] = rest_label(draft_probs, unknown)
            lower, upper = recorded.alpha_bounds
            drafted = dict(token=escape_text(decision.text), token_id=decision.token_id,
                           accept=decision_numbers(decision).chance)  # as the Playground writes it (read 47)
            if lower == upper:  # Read 48: a point mass (n-gram lookup, greedy) leaves α exact, not a range; so
                alpha_text = bounds_text(lower, upper)[0]  # does a top-k or top-p leaving 10 tokens or fewer (read 48)
                note = _("From the trace's top-10 lists: every token one model could give is in both lists (all of a "
                         "point mass, as a deterministic proposer's q, or of a distribution top-k or top-p cut to 10 "
                         "tokens or fewer), so β is known exactly. The drafted token was {token} (id {token_id}), "
                         "kept with probability {accept}.", **drafted)
            else:
                alpha_text = _("{lower} to {upper}", **dict(zip(("lower", "upper"), bounds_text(lower, upper))))
                # read 55: "a token missing from a list shows 0 there", where its probability is not known
                note = _("From the trace's top-10 lists only: a token missing from a list has no value there (no p "
                         "bar or q diamond, and “–” in the table under the chart), so β is known only within "
                         "bounds, and how p splits into accepted and recovered is not known for a token missing "
                         "from the draft's list nor for the rest of p (the grey bars). The drafted token was {token} "
                         "(id {token_id}), kept with probability {accept}.", **drafted)
            if trace.steps[tested[choice][0]].tree is not None:  # the tree rule, not this chain split, kept it
                note += " " + _(TREE_NOTE)
    except ValueError as exc:
        st.error(str(exc))
        return
    # read 54: at top-k 5 the chart drew 14 tokens p and q both give 0, and an "(all others)" of 0, as empty bars
    series = (decomposition.accepted, decomposition.recovered, draft_probs) + (() if unknown is None else (unknown,))
    bar_labels, (accepted, recovered, draft_probs, *unknown_kept), dropped = drop_empty_bars(bar_labels, *series)
    decomposition = exactness.StepDecomposition(decomposition.alpha, accepted, recovered)
    if dropped:
        none = _(NO_BAR)
        note = f"{note} {none}" if note else none
    d1, d2 = st.columns([1, 3])
    # read 55: named α here while the Theory explorer calls this one-position quantity β (α = E[β])
    d1.metric(_(BETA_LABEL), alpha_text, help=_(BETA_HELP))
    # read 53: with a broken rule picked above (accept every draft keeps q, not min(p, q)) this split read as that
    # rule's; it is the exact rule's, whichever rule the page's selector holds
    d1.markdown(_("Under the exact rule, whichever rule is picked above: green, the part of p delivered by "
                  "**accepted** drafts, min(p, q); purple, the part delivered by **recovered** tokens after a "
                  "rejection, which happens with probability 1 − β and then samples norm(max(0, p − q)). Together "
                  "they are exactly p; orange diamonds show q."))
    if note:
        d1.caption(note)
    # the grey bars: p the lists cannot split (`RecordedStep.shown_split`), drawn where there is some
    grey = unknown_kept[0] if unknown_kept and float(unknown_kept[0].nansum()) > 0 else None
    show(decomposition_figure(bar_labels, decomposition, draft_probs, alpha_text, unknown=grey),
         "exact_decomposition", d2)


# ---- greedy: the target's own text, in float32 and in bfloat16 ------------------------------------------------------

GREEDY_DTYPES = {"float32": N_("float32 (fine rounding: a near-tie rarely flips)"),
                 "bfloat16": N_("bfloat16 (the default on a CPU or CUDA GPU that supports it: lossless only up to "
                                "numerics)")}  # machine.pick_dtype: float16 on MPS and on older CUDA GPUs
GREEDY_TOKENS = 48
GREEDY_SHAPE = DraftShape()  # what the greedy check drafts: RunSpec's default, a chain of K = 4
VERIFY_PASS = {  # what one verify pass reads, for the draft shape the greedy check runs (`verify_pass`)
    "chain": N_("A verify pass over K + 1 tokens ({rows} in the run below, which drafts a chain of K = {k}; a "
                "tree's pass reads its nodes, its lookup branch and one token more)"),
    "tree": N_("A verify pass over a tree's nodes, its lookup branch and one token more (at most {rows} in the run "
               "below, which drafts {shape}; a chain's pass reads K + 1)"),
}


def verify_pass(shape: DraftShape) -> str:
    """The greedy check's words for what one verify pass reads: K + 1 tokens for a chain, a tree's nodes, its
    lookup branch and one more for a tree (`DraftShape.rows`, its most), with the run's own count.

    >>> verify_pass(DraftShape(4))[:60]
    'A verify pass over K + 1 tokens (5 in the run below, which d'
    """
    if shape.is_tree:
        return _(VERIFY_PASS["tree"], rows=shape.rows, shape=shape.describe())
    return _(VERIFY_PASS["chain"], rows=shape.rows, k=shape.k)


def render_greedy_identity(pair_name: str, prompt: str) -> None:
    """Speculative and target-only decoding of the prompt at temperature 0, in the dtype the reader picks, and where
    (and why) their texts part: the exact rule gives the target's own greedy text, float32 nearly always token for token
    (its rounding is far finer, not absent), bfloat16 only up to numerics."""
    from specviz.labs.bench import quoted
    from specviz.runs.running import with_dtype
    from specviz.ui.common.greedy_compare import explain
    from specviz.ui.common.runs import run_autoregressive, run_speculative, start_live_run
    from specviz.ui.common.tokens import output_html

    st.caption(_("At temperature 0 the exact rule keeps the target's most likely token, so speculative decoding must "
                 "write the target's own greedy text. {verify} adds its numbers in another order "
                 "than a one-token pass, so it rounds differently: in float32 so finely that a near-tie "
                 "almost never flips, in bfloat16 coarsely enough that a near-tie between the target's two best "
                 "tokens can flip, and from there the two texts part ways (every later token is written after a "
                 "different text): lossless only up to numerics. The committed checks (the default pair, "
                 "`python -m specviz.scripts.greedy_identity`, in assets/benchmarks/) matched on {fp32} held-out "
                 "prompts in float32, drafting {fp32_shape}, on {fp32_cpu}, and on {bf16} in bfloat16, drafting "
                 "{bf16_shape}, on {bf16_cpu}.", verify=verify_pass(GREEDY_SHAPE), **quoted.greedy_identity_counts(),
                 **quoted.greedy_identity_machines(), **quoted.greedy_identity_shapes()))
    c1, c2 = st.columns([2, 1])
    dtype = c1.radio(_("Numbers in"), list(GREEDY_DTYPES), horizontal=True, key="exact_greedy_dtype",
                     format_func=lambda d: _(GREEDY_DTYPES[d]))
    spec = RunSpec(pair=with_dtype(pair_name, dtype), prompt=prompt, temperature=0.0, max_new_tokens=GREEDY_TOKENS,
                   **GREEDY_SHAPE.settings())
    if c2.button(_("Run both, greedy"), key="exact_greedy_run", type="primary"):
        try:
            start_live_run(spec)
        except ValueError as exc:
            st.warning(escape_markdown(str(exc)))
            return
        st.session_state["exact_greedy_spec"] = spec
    if st.session_state.get("exact_greedy_spec") != spec:
        return
    try:
        speculative, base = run_speculative(spec), run_autoregressive(spec)
    except ValueError as exc:
        st.error(escape_markdown(str(exc)))
        return
    st.markdown(explain(speculative, base))
    left, right = st.columns(2)
    left.markdown(ngettext("**{lane}** ({n} token)", "**{lane}** ({n} tokens)", speculative.num_tokens,
                           lane=_("speculative").capitalize()))
    left.html(output_html(speculative))
    right.markdown(ngettext("**{lane}** ({n} token)", "**{lane}** ({n} tokens)", base.num_tokens,
                            lane=_("target only").capitalize()))
    right.html(output_html(base))
