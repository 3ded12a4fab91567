"""Speedup lab: how much faster speculative decoding really is on this hardware with this pair, and why."""

import streamlit as st

from specviz.core.i18n import N_, _
from specviz.engine.policies import PROBE_EVERY
from specviz.ui.common import charts as plot
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.common.frame import route_through_app
from specviz.ui.common.runs import get_pair
from specviz.ui.common.step_view import dtype_text
from specviz.ui.common.this_machine import render_this_machine
from specviz.ui.speedup import charts
from specviz.ui.speedup import live
from specviz.ui.speedup import results
from specviz.ui.speedup import tables
from specviz.ui.speedup import trees
from specviz.ui.speedup import verdict
from specviz.ui.speedup import view

route_through_app()

st.title(_("Speedup lab"))
st.markdown(_("The claim is *2–3× faster with identical output*. Here is what was measured, on a named machine, "
              "against named baselines, with the theory next to it — slowdowns included. Every speedup is a ratio "
              "of tokens per second measured in the same run."))

render_this_machine("speedup_lab_machine")
st.subheader(_("Measured results"))

# ---- which results ------------------------------------------------------------------------------------------------
# The options are English labels (session state and links keep them, whatever the language); `shown` is how each
# reads in the visitor's language.
LIVE = "live toy sweep (this session)"
sources: dict[str, object] = {}
shown: dict[str, str] = {LIVE: _("live toy sweep (this session)")}
for path in results.ordered(results.result_files()):
    sources[f"{results.result_name(path)} (committed)"] = path
    shown[f"{results.result_name(path)} (committed)"] = _("{name} (committed)", name=results.result_name(path))
if live.live_result() is not None:
    sources[LIVE] = "live"

with st.expander(_("Run a small live sweep on the toy pair"), expanded=not sources):
    st.caption(_("The toy pair is two tiny random models over a 34-token vocabulary (32 characters and 2 special "
                 "tokens): instant, so you can see "
                 "the sweep work end to end. Its timings say nothing about real models."))
    config = live.live_sweep_form()
    if config is not None:
        result = live.run_live(config, get_pair("toy"))
        if result is not None:
            sources[LIVE] = "live"
            st.session_state["speedup_lab_source"] = LIVE

if not sources:
    st.info(_("No benchmark results yet: run `python -m specviz bench --pair default --out assets/benchmarks/NAME`, "
              "or the live toy sweep above."))
    st.stop()

name = st.selectbox(_("Results"), list(sources), key="speedup_lab_source", format_func=lambda key: shown[key])
source = sources[name]
try:
    result = live.live_result() if source == "live" else results.load_result(source)
except ValueError as exc:
    st.error(escape_markdown(str(exc)))  # it names the folder, whose name may hold _ or *
    st.stop()
results.render_machine(result, shown[name])

left, right = st.columns(2)
proposer = left.selectbox(_("Proposer"), result.proposers(), key="speedup_lab_proposer", format_func=view.proposer_text)
temps = result.temperatures()
temperature = right.selectbox(_("Temperature"), temps,
                              format_func=lambda t: _("0 (greedy)") if t == 0 else view.temperature_text(t),
                              key="speedup_lab_temperature")

# the headline is the best chain (`BenchResult.best_constant`); a draft tree of the same run can be faster (several
# committed runs' trees are), so the help says which rows it is the best of
BEST_HELP = N_("The fastest chain of constant K in this run, all categories pooled: draft trees are left out here (the "
               "sentence below and the Chain vs tree tab give them).")
top = verdict.headline(result, proposer, temperature)
if top:
    m1, m2, m3, m4 = st.columns(4)
    m1.metric(_("Best speedup"), top["best"], help=" ".join((_(BEST_HELP), _(view.DEFINITIONS["speedup_vs_ar"][1]))))
    m2.metric(_("at K"), top["best_k"])
    m3.metric(_("α estimate"), top["alpha"], help=_(view.DEFINITIONS["alpha"][1]))
    m4.metric(_("c (measured)"), top["c"], help=_(view.DEFINITIONS["c"][1]))
    st.markdown(verdict.verdict(result, proposer, temperature))
    dtype = result.machine.get("dtype")  # every figure's dtype; the first runs' files record none: they ran float32,
    # then the only dtype (`quoted.run_dtype`; the Proposers page, the Verify cost tab and the command note say so)
    st.caption(_("Measured in {dtype}.", dtype=dtype_text(dtype)) if dtype in ("float32", "bfloat16", "float16")
               else _("Measured in {dtype}. This result file records no dtype: it comes from before specviz recorded "
                      "one, when every run was float32.", dtype=dtype_text("float32")))

(tab_k, tab_tree, tab_accept, tab_time, tab_cat, tab_policy, tab_verify, tab_hf, tab_defs) = st.tabs([
    _("Speedup vs K"), _("Chain vs tree"), _("Acceptance by position"), _("Where the time goes"), _("By category"),
    _("Policies"), _("Verify cost"), _("vs transformers"), _("Definitions")])

recomputed = tables.recomputed_text(result)  # where a run's optimal rows repeat its constant K cases (read 51)
with tab_k:
    plot.show(charts.speedup_vs_k_figure(result, proposer, temperature), key="speedup_lab_k_chart")
    st.caption(charts.speedup_vs_k_caption(proposer))
    dashed_note = charts.dashed_stop_caption(result, proposer, temperature)
    if dashed_note:  # read 55: the dashed curve ends where the verify cost was measured
        st.caption(dashed_note)
    short_note = charts.short_drafts_caption(result, proposer, temperature)
    if short_note:  # read 49: the formula drafts K every step; n-gram lookup often drafts fewer
        st.caption(short_note)
    heads_note = charts.medusa_draft_caption(result, proposer, temperature)
    if heads_note:  # Medusa is charged c per step (read 49); its measured draft ms per step sit beside c
        st.caption(heads_note)
    if any(r["hf_assisted_speedup"] is not None
           for r in result.rows(proposer=proposer, temperature=temperature, policy="constant")):
        # Read 45: for n-gram the diamonds are transformers' prompt lookup, not a draft model (the bench's rule)
        st.caption(_("Diamonds: what transformers' own assisted generation gets with the same draft and K (prompt "
                     "lookup for n-gram), against its own model.generate."))
    k_table = tables.mat_table(result, proposer, temperature)
    st.dataframe(k_table, hide_index=True, width="stretch",
                 column_config={column: st.column_config.Column(help=text)
                                for column, text in tables.mat_help(k_table).items()})
    if recomputed and any(r["policy"] == "optimal" for r in result.rows(proposer=proposer, temperature=temperature)):
        st.caption(recomputed)

with tab_tree:
    trees.render_chain_vs_tree(result, proposer, temperature)

with tab_accept:
    plot.show(charts.acceptance_figure(result, proposer, temperature), key="speedup_lab_accept_chart")
    st.caption(_("If every draft were accepted independently with probability α, position i would survive with "
                 "probability α^i (dotted). Real acceptance can cluster: an n-gram match, say, keeps going or fails "
                 "at once, so its later positions survive more often than α^i."))
    if len(result.proposers()) > 1:  # the same prompts for each: whose later drafts survive
        plot.show(charts.proposers_acceptance_figure(result, temperature), key="speedup_lab_accept_all_chart")
        # read 55: each point counts only the steps that drafted that far, so the quotient is that share only
        # where every step drafted K (n-gram lookup drafts what it finds)
        st.caption(_("Every proposer of this run on the same prompts. Divide a point by the one before it to read "
                     "how often a draft was kept once every draft before it was (exactly so where every step "
                     "drafted K: each point counts only the steps that drafted that far): a drafter that sees the "
                     "drafts before a position (EAGLE reads its own earlier guesses; Medusa's heads all read one "
                     "hidden state and see none) tends to keep a larger share of its later drafts, though a position "
                     "few steps reach can read the other way."))

with tab_time:
    time_figure = charts.time_breakdown_figure(result, proposer, temperature)
    plot.show(time_figure, key="speedup_lab_time_chart", table=charts.time_breakdown_table(time_figure, result,
                                                                                           temperature))
    st.caption(_("A step pays off when its time is less than the dashed line times the tokens it emits on average "
                 "(its mean accepted length). Drafting costs K drafter passes (n-gram lookup: one search; Medusa: no "
                 "drafter pass, but the blocks of heads 1 to K, all on the hidden state the target's last pass gave, "
                 "then the LM head once over all K of them); verifying is one target forward over K+1 tokens."))
    # read 52: its optimal bar is default-cpu-ngram's constant K = 8 bar again, as the three other tabs that set the
    # optimal policy beside constant K say
    if recomputed and any(r["policy"] == "optimal" for r in result.rows(proposer=proposer, temperature=temperature)):
        st.caption(recomputed)

with tab_cat:
    plot.show(charts.category_figure(result, proposer, temperature), key="speedup_lab_cat_chart")
    st.caption(charts.category_caption(result, proposer, temperature))  # read 53: one category says so
    if recomputed and any(r["policy"] == "optimal" for r in result.rows(proposer=proposer, temperature=temperature)):
        st.caption(recomputed)

with tab_policy:
    table = tables.policy_table(result, temperature)
    if table.empty:
        st.info(tables.no_policies_text(result, temperature))
    else:
        st.markdown(_("This table compares chains: each policy sets how many tokens a chain drafts, so constant is the "
                      "chain of constant K, and a draft tree, which no policy drafts, is left out.") + " " +
                    # read 50: "shrinks by 1 otherwise" left out a step that drafted nothing, which
                    # `Heuristic.observe` skips (an n-gram miss: default-cpu-ngram drafted 1.60 a step at K = 4)
                    _("The constant, heuristic and threshold policies start at the same K. **heuristic**: K grows "
                      "by 2 after a step whose drafts were all accepted and shrinks by 1 after one with a rejected "
                      "draft, never below 1 "
                      "(transformers' `num_assistant_tokens_schedule=\"heuristic\"`, an option: in transformers 5.x "
                      "the default is a constant 20 assistant tokens with an `assistant_confidence_threshold` of 0.4, "
                      "which stops the draft early and is re-tuned as it goes when scikit-learn is installed); here it "
                      "never grows past the run's largest K (of its --k, --shapes and --policy-k), and a step that "
                      "drafted nothing (an n-gram lookup that found no match) leaves K as it is. "
                      "**threshold**: at most K drafts, and the draft stops as soon as its top probability falls "
                      "below a threshold. "
                      "**optimal**: not tied to that K, it maximises Leviathan et al.'s formula, which charges K·c of "
                      "drafting a step, for the measured c and the α seen so far in the generation, starting from "
                      "α = 0.5, up to the run's largest K too. Where the formula says K = 0 (don't speculate), "
                      "it still drafts one token every {probe} steps so that a poor early estimate of α can recover: "
                      "its mean K drafted is then about 1/{probe}, not 0.", probe=PROBE_EVERY) +
                    tables.optimal_charge_text(result, temperature))
        st.dataframe(table, hide_index=True, width="stretch",
                     column_config={column: st.column_config.Column(help=text)
                                    for column, text in tables.policy_help(table).items()})
        unmatched = tables.no_constant_text(result, temperature)
        if unmatched:
            st.caption(unmatched)
        no_threshold = tables.no_threshold_text(result, temperature)
        if no_threshold:
            st.caption(no_threshold)
        if recomputed and any("optimal" in c.speedups for c in result.policy_comparisons(temperature)):
            st.caption(recomputed)

with tab_verify:
    plot.show(charts.verify_cost_figure(result), key="speedup_lab_verify_chart")
    st.caption(charts.verify_sentence(result))
    trees.render_dtype_curves(result)

with tab_hf:
    st.dataframe(tables.comparison_table(result, temperature), hide_index=True, width="stretch")
    st.caption(tables.comparison_caption(result, temperature))

with tab_defs:
    view.render_definitions()
