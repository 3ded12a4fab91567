"""Exactness lab: sample with the exact rule, or a broken one, and test whether the output is the target's."""

import streamlit as st

from specviz.core.i18n import N_, _
from specviz.labs import exactness
from specviz.runs.runspec import RunSpec
from specviz.ui.common.frame import route_through_app
from specviz.ui.common.runs import get_pair
from specviz.ui.common.sliders import number_slider
from specviz.ui.common.state import current_trace
from specviz.ui.exactness import tree_lab as tree_lab_view
from specviz.ui.exactness import view

MODES = {"one_step": N_("One step (fast)"), "engine": N_("Whole continuations")}
COMPARE = {"first": N_("the first token"), "pair": N_("the first two tokens")}
# read 52: the chain help ("every rule here ... except “accept every draft”") was shown beside the tree rules too
GREEDY_HELP = {"chain": N_("At 0 (greedy) p is a point mass on the target's top token. Every rule here emits that "
                           "token except “accept every draft”, which emits the draft's top token: where the two "
                           "differ, it is the only rule that fails."),
               "tree": N_("At 0 (greedy) p and q are point masses on each model's top token, and every tree rule "
                          "here, the broken one included, emits the target's top token: the broken rule can fail "
                          "only at a temperature above 0.")}

route_through_app()

st.title(_("Exactness lab"))
st.caption(_("Speculative decoding promises output distributed *exactly* as the target's: not approximately, not "
             "on average. That holds in exact arithmetic; a computer rounds, as the greedy check further down (with "
             "“a chain of drafts”) shows. Sample it many times, next to plain target-only decoding and the "
             "probabilities the target computes, and let a chi-square test judge. Then switch to a broken rule "
             "and watch the test catch it."))

# ---- inputs ---------------------------------------------------------------------------------------------------------
c1, c2 = st.columns([1, 2])
pair_name = c1.selectbox(_("Models"), list(view.PAIRS), format_func=lambda name: _(view.PAIRS[name]), key="exact_pair")
prompt = c2.text_input(_("Prompt"), "the quick brown fox", key="exact_prompt", max_chars=500)
c3, c4, c5 = st.columns(3)
temperature = number_slider(c3, _("Temperature"), 0.0, 2.0, 1.0, 0.05, key="exact_temperature",
                            help=_(GREEDY_HELP[st.session_state.get("exact_shape", "chain")]))  # the shape below
top_k = c4.number_input(_("top-k (0 = off)"), 0, 1000, 0, 1, key="exact_top_k")
top_p = number_slider(c5, _("top-p (1 = off)"), 0.05, 1.0, 1.0, 0.05, key="exact_top_p")

shape = st.radio(_("What the draft proposes"), list(tree_lab_view.SHAPES), key="exact_shape", horizontal=True,
                 format_func=lambda s: _(tree_lab_view.SHAPES[s]),
                 help=_("A draft tree needs its own rule: its children are tried one after another below each node."))
if shape == "tree":
    tree_lab_view.render_tree_lab(pair_name, prompt, temperature, int(top_k), top_p)
    st.stop()

names = list(exactness.RULES)
rule_name = st.selectbox(_("Verification rule"), names, key="exact_rule",
                         format_func=lambda n: ("✓ " if exactness.RULES[n].exact else "✗ ")
                         + _(exactness.RULES[n].label),
                         help=_("The exact rules (✓: Leviathan / Chen's, and the exact-match rule transformers uses "
                                "without a q), and rules that break exactness (✗). Each is run through the "
                                "same code path."))
rule = exactness.RULES[rule_name]
rule_label = _(rule.label)
(st.success if rule.exact else st.warning)(_(view.RULE_BOX, label=rule_label, text=_(rule.explanation)))

c6, c7, c8 = st.columns(3)
mode = c6.radio(_("Experiment"), list(MODES), key="exact_mode", horizontal=True, format_func=lambda m: _(MODES[m]),
                help=_("One step: draft x ~ q, the rule decides, count the first emitted token (K = 1). Whole "
                       "continuations: run speculative_generate and autoregressive_generate N times each."))
n_max = view.N_MAX[(pair_name, mode)]
slow = (pair_name, mode) == ("default", "engine")
n = number_slider(c7, _("Samples N"), 10 if slow else 50, n_max, view.N_DEFAULT[(pair_name, mode)],
                  10 if slow else 50, key=f"exact_n_{mode}_{pair_name}",
                  help=_("Each whole continuation with SmolLM runs the real models, once speculative and once plain, "
                         "so this takes far longer than the toy pair; how long depends on the CPU.") if slow else None)
seed = c8.number_input(_("Seed"), 0, 10_000, 0, 1, key="exact_seed")
length, compare = 2, "first"
if mode == "engine":
    e1, e2 = st.columns(2)
    length = e1.radio(_("Continuation length"), [2, 3], key="exact_length", horizontal=True,
                      help=_("The engine drafts at most one token fewer than it can still emit (every step also "
                             "adds the target's own recovered or bonus token), so a 1-token continuation drafts "
                             "nothing: the rule judges no draft and only picks the bonus token. From 2 tokens on, "
                             "the first token comes from the rule judging a draft."))
    compare = e2.radio(_("Compare on"), list(COMPARE), key="exact_compare", horizontal=True,
                       format_func=lambda m: _(COMPARE[m]),
                       help=_("Two-token continuations have far more outcomes, so the test needs far more samples "
                              "to see the same drift."))
c9, c10 = st.columns(2)
if mode == "engine":  # the continuations draft up to K a step; one step always drafts one token (one_step_lab)
    k = c9.slider(_("K for the speedup estimate and the continuations"), 1, 16, 4, key="exact_k",
                  help=_("The continuations draft up to K tokens a step, and at most one fewer than they can "
                         "still emit."))
else:
    k = c9.slider(_("K for the speedup estimate"), 1, 16, 4, key="exact_k",
                  help=_("Only the estimate below: the one-step experiment always drafts one token (K = 1)."))
c = number_slider(c10, _("Draft cost c for the speedup estimate"), 0.0, 1.0, 0.05, 0.01, key="exact_c",
                  help=_("Draft forward time / target forward time."))

# ---- the experiment -------------------------------------------------------------------------------------------
try:
    spec = RunSpec(pair=pair_name, prompt=prompt, temperature=temperature, top_k=int(top_k), top_p=top_p, k=k,
                   seed=int(seed))
    pair = get_pair(pair_name)
    dists = view.step_distributions(pair, spec)
    result = None
    if mode == "one_step":
        result = view.one_step_lab(pair, spec, rule_name, n)
    else:
        # slow on a real model: run on request, then keep showing the (cached) result while the settings stay
        settings = (spec, rule_name, n, int(length), compare)
        if not slow or st.button(_("Run the continuations"), key="exact_run", type="primary"):
            st.session_state["exact_engine_settings"] = settings
        if st.session_state.get("exact_engine_settings") == settings:
            result = view.engine_lab(pair, spec, rule_name, n, int(length), compare)
        else:
            st.info(_("{n} continuations with SmolLM take a while on a CPU: press the button to run them.", n=n))
except ValueError as exc:
    st.error(str(exc))
    st.stop()

if result is not None:
    st.subheader(_("Is it the target's distribution?"))
    st.caption(view.note_caption(result.note, dists.proposer))
    drift = exactness.tv_distance(exactness.one_step_distribution(rule, dists.target_probs, dists.draft_probs)[0],
                                  dists.target_probs)
    # whole continuations: no drift to draw, but a rule its sampling settings make exact is not "not exact" (read 48)
    view.render_samples(result, rule_label, drift if mode == "one_step" else None,
                        exact=rule.exact_with_top_k(int(top_k), temperature))

st.subheader(_("Greedy: the target's own text, token for token?"))
view.render_greedy_identity(pair_name, prompt)

st.subheader(_("What the rule buys"))
view.render_rule_economics(rule, dists, k, c)

st.subheader(_("One step, taken apart: where p comes from"))
view.render_decomposition(dists, current_trace())
