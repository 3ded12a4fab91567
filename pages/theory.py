"""Theory explorer: how the acceptance probability α, the number of drafts K and the draft cost c set the speedup."""

import math

import streamlit as st

from specviz.core.i18n import N_, _, as_written, ngettext, number, percent, percent_of, signed_delta, times
from specviz.engine import theory
from specviz.labs.timeline import recording_note, run_short_step_reasons
from specviz.ui.common import charts, state
from specviz.ui.common.frame import page_start
from specviz.ui.common.sliders import number_slider
from specviz.ui.theory import points as theory_points, serving as theory_serving, view as theory_view

page_start(N_("Theory explorer"), N_("Speculative decoding pays when the draft is cheap (small c) and usually right "
                                     "(high α). These are the closed forms of Leviathan et al. (2023); speedup is "
                                     "against target-only decoding with the same sampler."))

left, middle, right = st.columns(3)
alpha = number_slider(left, _("α: the chance a draft is kept"), 0.0, 1.0, 0.8, 0.01, key="theory_alpha",
                      help=_("The chance that one drafted token is kept, averaged over contexts: α = E[β], "
                             "where β = Σ min(p, q) = 1 − TV(p, q) at one position. Not the measured accepted / "
                             "drafted."))
k = middle.slider(_("Drafted tokens per step K"), 0, theory_points.K_MAX, 4, 1, key="theory_k",
                  help=_("K = 0 means no speculation."))
c = number_slider(right, _("Draft cost c (draft forward / target forward)"), 0.0, 1.5, 0.05, 0.01,
                  key="theory_c", help=_("0.05 means one draft forward costs 5% of a target forward. At c ≥ 1 "
                                         "speculation never pays."))

try:
    tokens = theory.expected_tokens_per_step(alpha, k)
    speedup = theory.expected_speedup(alpha, k, c)
    best_k = theory.optimal_k(alpha, c, theory_points.K_MAX)
    best_speedup = theory.expected_speedup(alpha, best_k, c)
    even = theory.break_even_alpha(k, c)
except ValueError as exc:
    st.error(str(exc))
    st.stop()

m1, m2, m3, m4 = st.columns(4)
# read 44: the formula's value, "Expected" as the Guided path's same metric says; a measured run's (the race, the
# Playground, "Trace: mean accepted length" below) is the one without
m1.metric(_("Expected mean accepted length"), number(tokens),
          help=_("Expected tokens per target pass from α and K: accepted drafts plus the recovered or bonus token. "
                 "Plain decoding: 1."))
# a slowdown: −12%, red and pointing down; from the speedup as written, so the two agree (read 51: 1.2261 / 1.22
# read "1.01×" over "0%", the float 1.00499… against the 1.005 written; 0.625 read "0.63×" over "−38%")
change, arrow = signed_delta(percent(as_written(speedup, 2) - 1))
m2.metric(_("Expected speedup"), times(speedup), delta=change,  # bare, so it fits the metric's width in Portuguese
          delta_color={"down": "red", "up": "green"}.get(arrow, "off"), delta_arrow=arrow,
          help=_("Over target-only decoding (1×), from α, K and c: mean accepted length / (K c + 1) (Leviathan et "
                 "al., 2023). The change under it is against target-only decoding too."))
m3.metric(_("Best K"), str(best_k), help=_("Among K = 0 to 16: speedup {speedup} at K = {k}. K = 0 means "
                                           "speculation does not pay here.", speedup=times(best_speedup), k=best_k)
          if best_k == 0 else _("Among K = 0 to 16: speedup {speedup} at K = {k}.", speedup=times(best_speedup),
                                k=best_k))
m4.metric(_("Break-even α"), _("never") if math.isnan(even) else number(even, 3),
          help=_("For this K and c: above this α the speedup exceeds 1. At c = 1 it is α = 1, where the speedup "
                 "only reaches 1 (so at c ≥ 1 speculation never pays); with c > 1, or K = 0, there is no break-even "
                 "point."))
if best_k == 0:
    st.warning(_("With these numbers speculation does not pay: the best choice is not to draft at all (K = 0)."))

# measured points: committed benchmark results, and a trace from another page if there is one
points = theory_points.load_benchmark_points()
trace_point = None
try:
    trace = state.current_trace()
    trace_point = theory_points.trace_point(trace) if trace is not None else None
except ValueError as exc:
    st.info(str(exc))

# a tree trace's mean min(1, p'/q') is not α (`Trace.mean_accept_prob`), and even a tree's that never branched, an α
# estimate, is no chain of K drafts: neither is placed on the α axis
on_alpha_axis = trace_point if trace_point is not None and not trace_point.tree_nodes else None
charts.show(theory_view.heatmap_figure(c, alpha, k, points, on_alpha_axis), key="theory_heatmap",
            table=theory_view.heatmap_table(c, alpha, k, points, on_alpha_axis))
st.caption(theory_view.heatmap_caption(c, bool(points), any(pt.one_pass for pt in points), on_alpha_axis))

col_a, col_b = st.columns(2)
charts.show(theory_view.speedup_vs_k_figure(alpha, c, k), key="theory_speedup_k", where=col_a)
simulated = theory.simulate_tokens_per_step(alpha, k, 20_000, seed=0).numpy()
spread = theory_view.tokens_distribution_figure(alpha, k, simulated)  # its table: 3 decimals, which may miss 1
charts.show(spread, key="theory_tokens_dist", where=col_b, note=charts.rounded_note(spread))
col_b.caption(_("{n} simulated steps average {mean} tokens; the formula says {formula}.", n=number(20_000, 0),
                mean=number(simulated.mean(), 3), formula=number(tokens, 3)))

st.subheader(_("Measured runs"))
if trace_point is not None:
    t1, t2, t3 = st.columns(3)
    chain = trace_point.tree_nodes == 0  # the formula is for a chain of K drafts: a tree is not compared with it
    if chain:
        t1.metric(_("Trace: α estimate"), number(trace_point.alpha, 3),
                  help=_("Mean of min(1, p/q) over the drafts the verifier tested. Accepted / drafted ({rate}) also "
                         "counts the drafts after a step's first rejection, which were never tested, so with K ≥ 2 it "
                         "is usually lower.",
                         rate=number(trace_point.acceptance_rate, 3))
                  if (trace_point.k_range or (0, trace_point.k))[1] > 1 else  # a policy's K: the most a step drafted
                  _("Mean of min(1, p/q) over the drafts the verifier tested. At K = 1 it tested every draft, so "
                    "accepted / drafted ({rate}) differs from it only by chance: accepted / drafted counts the coin "
                    "flips, this mean averages their chances.", rate=number(trace_point.acceptance_rate, 3)))
    else:
        # read 51: a tree that never branched (one node, or width 1 with no lookup branch beside it) tests one child
        # a depth on its own p and q, as a chain does; "Not an estimate of α" and "never tested 0% of them" were said
        # of it. The share is `percent_of` (never a nonzero part as 0%), and an untested part of 0 is said in words
        rate = number(trace_point.acceptance_rate, 3)
        untested = percent_of(trace_point.tree_untested_count, trace_point.tree_token_count)
        # read 52: a tree with no lookup branch was said to count "every token its lookup branch copied"
        if trace_point.tree_copied_count:
            counted = _("Its accepted / (drafted + copied), {rate}, counts every node the tree drafted and every "
                        "token its lookup branch copied, and the verifier never tested {untested} of them.",
                        rate=rate, untested=untested) if trace_point.tree_untested_count else \
                _("Its accepted / (drafted + copied), {rate}, counts every node the tree drafted and every token "
                  "its lookup branch copied, and the verifier tested every one of them.", rate=rate)
        else:
            counted = _("Its accepted / drafted, {rate}, counts every node the trees drafted (no token was copied "
                        "from the context), and the verifier never tested {untested} of them.",
                        rate=rate, untested=untested) if trace_point.tree_untested_count else \
                _("Its accepted / drafted, {rate}, counts every node the trees drafted (no token was copied from "
                  "the context), and the verifier tested every one of them.", rate=rate)
        if trace_point.tree_branched:
            t1.metric(_("Trace: mean min(1, p′/q′) along the tree's main line"), number(trace_point.alpha, 3),
                      help=_("Not an estimate of α: a child tried after a rejected sibling is tested against the "
                             "residual p′ and the draft without that sibling, q′, so this mean is another quantity, "
                             "and the chart above does not place this trace.") + " " + counted)
        else:
            t1.metric(_("Trace: α estimate"), number(trace_point.alpha, 3),
                      help=_("Mean of min(1, p/q) over the nodes the verifier tested: an estimate of α, as a chain's "
                             "is. No node of this trace's trees had a sibling, so no child was tried after a "
                             "rejected one, and each tested node was kept with min(1, p/q) for its own p and q (q a "
                             "point mass for a top-k child). The chart above places only traces run as chains.")
                      + " " + counted)
    # read 51: from the two as written (the metric's value, the caption's prediction), so 1.90 against 1.75 is
    # +0.15, not the +0.16 of 1.9048 − 1.7485
    off = as_written(trace_point.tokens_per_step) - as_written(trace_point.predicted_tokens_per_step)
    difference, arrow = signed_delta(number(off))
    # read 51: "(K = 2)" named the setting for a tree whose lookup branch went 8 deep: a tree names its own size.
    # read 53: and the K setting for a heuristic run whose steps drafted 1 to 6: a policy's run names what it drafted,
    # and, with no one K to put into the formula, has no difference from it
    moved = trace_point.k_range if chain else None
    compared = chain and moved is None
    t2.metric(_("Trace: mean accepted length (K = {k})", k=trace_point.k) if compared else
              _("Trace: mean accepted length (K = {low} to {high}, set step by step by its policy)",
                low=moved[0], high=moved[1]) if moved is not None and moved[0] < moved[1] else
              _("Trace: mean accepted length (K = {k}, set step by step by its policy)", k=moved[0]) if moved else
              _("Trace: mean accepted length (trees of up to {tokens}, up to {depth} deep)",
                tokens=ngettext("{n} token", "{n} tokens", trace_point.tree_nodes), depth=trace_point.tree_depth),
              number(trace_point.tokens_per_step),
              delta=_("{difference} vs formula", difference=difference) if compared else None, delta_color="off",
              delta_arrow=arrow if compared else "auto",
              # read 55: as the Expected metric's help says, the count includes the token every step adds itself
              help=_("Measured: this trace's new tokens over its target forwards (one a step), so the drafted or "
                     "copied tokens the target kept plus the recovered or bonus token each step emits. Plain "
                     "decoding: 1."))
    if trace_point.draft_over_verify is not None:  # about c / v, not c (Read 48: its label called it c)
        kind = theory_view.ratio_kind(trace_point)  # a lookup's, a one-pass drafter's, a forward per draft's
        t3.metric(_(theory_view.RATIO_LABELS[kind]), number(trace_point.draft_over_verify, 3),
                  # a recording's timings name their machine
                  help=" ".join(text for text in (_(theory_view.RATIO_HELPS[kind]), recording_note(trace)) if text))
    if moved is not None:
        # read 53: a heuristic run's caption gave the formula at K = 4, its first K, "and 1 of this trace's 6 steps
        # drafted fewer than K", of steps drafting 4, 6, 5, 4, 6, 1: as the α note, at the fewest and the most drafted
        values = dict(alpha=number(trace_point.alpha, trace_point.ALPHA_DIGITS), reasons=run_short_step_reasons(trace))
        st.caption(_("The formula with α = {alpha} predicts a mean accepted length of {low_tokens} at K = {low} and "
                     "{high_tokens} at K = {high}, the fewest and the most tokens a step of this trace drafted, where "
                     "it drafted any. It assumes every step drafts the same K tokens, each kept independently with "
                     "chance α; this trace's steps drafted different numbers of tokens ({reasons}), and real "
                     "acceptance clusters (a run of easy tokens is kept whole, a hard one fails at once), so its mean "
                     "is not compared with one K's prediction.", low=moved[0], high=moved[1],
                     low_tokens=number(trace_point.predicted_at(moved[0])),
                     high_tokens=number(trace_point.predicted_at(moved[1])), **values) if moved[0] < moved[1] else
                   _("The formula with α = {alpha} and K = {k}, the K of every step of this trace that drafted any "
                     "token, predicts a mean accepted length of {tokens}. It assumes each draft is kept "
                     "independently with chance α, and its policy could have set another K at any step ({reasons}); "
                     "real acceptance clusters (a run of easy tokens is kept whole, a hard one fails at once), so the "
                     "two differ in either direction.", k=moved[0],
                     tokens=number(trace_point.predicted_at(moved[0])), **values))
    elif chain:
        # read 46: it blamed "the last step, cut short by EOS or the token limit"; every example has shorter steps,
        # several near the limit (its budget caps K), one after a drafted end-of-text, a lookup's where it found fewer
        values = dict(alpha=number(trace_point.alpha, trace_point.ALPHA_DIGITS), k=trace_point.k,
                      tokens=number(trace_point.predicted_tokens_per_step))
        st.caption(ngettext("The formula with α = {alpha} and K = {k} predicts a mean accepted length of {tokens}. "
                            "It assumes every step drafts K tokens, each kept independently with chance α; real "
                            "acceptance clusters (a run of easy tokens is kept whole, a hard one fails at once), and "
                            "{n} of this trace's {steps} steps drafted fewer than K ({reasons}), so the two differ in "
                            "either direction.",
                            "The formula with α = {alpha} and K = {k} predicts a mean accepted length of {tokens}. "
                            "It assumes every step drafts K tokens, each kept independently with chance α; real "
                            "acceptance clusters (a run of easy tokens is kept whole, a hard one fails at once), and "
                            "{n} of this trace's {steps} steps drafted fewer than K ({reasons}), so the two differ in "
                            "either direction.", trace_point.short_steps, steps=trace_point.steps,
                            reasons=run_short_step_reasons(trace), **values) if trace_point.short_steps else
                   _("The formula with α = {alpha} and K = {k} predicts a mean accepted length of {tokens}. It "
                     "assumes each draft is kept independently with chance α; real acceptance clusters (a run of "
                     "easy tokens is kept whole, a hard one fails at once), so the two differ in either direction.",
                     **values))
    else:
        # len(tree.nodes): the copied lookup branch included, so past the settings' node budget (36th read); a node is
        # a drafted token (read 49), so the count is of tokens
        held = dict(tokens=ngettext("{n} token", "{n} tokens", trace_point.tree_nodes),  # one token: "1 token"
                    depth=trace_point.tree_depth)
        st.caption(_("This trace's trees held up to {tokens}, their nodes and the tokens copied from the context "
                     "together, up to {depth} deep. The formula above is for a chain of K drafts, so it is not "
                     "compared: a tree offers several candidates at each depth and keeps, on average, a longer prefix "
                     "than a chain of the same depth at the same α (the Speedup lab measures trees against chains).",
                     **held) if trace_point.tree_branched and trace_point.tree_copied_count else
                   # read 52: "the tokens copied from the context" was said of trees no lookup branch grew
                   _("This trace's trees held up to {tokens} (every one a drafted node: no token was copied from the "
                     "context), up to {depth} deep. The formula above is for a chain of K drafts, so it is not "
                     "compared: a tree offers several candidates at each depth and keeps, on average, a longer prefix "
                     "than a chain of the same depth at the same α (the Speedup lab measures trees against chains).",
                     **held) if trace_point.tree_branched else
                   # read 51: "several candidates at each depth" was said of trees that never branched
                   _("This trace's trees held up to {tokens} (every one a drafted node: no token was copied from the "
                     "context), up to {depth} deep, and none branched: each offered one candidate at each depth, as "
                     "a chain does. The formula above is compared only with traces run as chains (the Speedup lab "
                     "measures trees against chains).", **held))
if points:
    charts.show(theory_view.predicted_vs_measured_figure(points), key="theory_measured",
                table=theory_view.measured_table(points))
    st.caption(theory_view.measured_caption(points))
if trace_point is None and not points:
    st.info(_("No measured runs yet: generate a trace on another page, or add benchmark results to "
              "assets/benchmarks/, and they appear here next to the formulas."))

theory_serving.render(alpha, k)
theory_view.render_temperature(theory_points.alpha_by_temperature())

with st.expander(_("Where the formulas come from"), expanded=False):
    theory_view.render_derivations()
