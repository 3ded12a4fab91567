"""The Exactness lab's tree trap: pick a tree rule (the exact recursive rule, top-k children as point masses, or the
tempting top-k children verified against q), sample one level of a draft tree many times at the prompt's real p and
q (`specviz.labs.exactness.tree_lab`), and let the chain's own verdicts and charts (`specviz.ui.exactness.view`) judge.
"""

from __future__ import annotations


import pandas as pd
import streamlit as st

from specviz.core.i18n import N_, _, as_written, fewest_digits, get_language
from specviz.engine.shown import column_numbers, quotient_follows
from specviz.labs.exactness import TREE_RULES, TreeRule
from specviz.labs.exactness.lab import LabResult, StepDistributions, share_text
from specviz.labs.exactness.tree_lab import one_level_drift, tree_lab
from specviz.runs.runspec import RunSpec
from specviz.ui.common.escaping import escape_text
from specviz.ui.common.grids import NAMED_ROWS, name_column
from specviz.ui.common.runs import get_pair
from specviz.ui.common.sliders import number_slider
from specviz.ui.exactness.view import (RULE_BOX, TABLE_COLUMNS, TV_DIGITS, note_caption, render_samples,
                                      step_distributions)

SHAPES = {"chain": N_("a chain of drafts"), "tree": N_("a draft tree")}
WIDTHS = (1, 4)  # children at the tree's first level
TEXT = {
    "rule": N_("Tree verification rule"),
    "rule_help": N_("How a tree's children are drafted and tested. The exact rules keep the output distributed as p; "
                    "the broken one is a real trap."),
    "width": N_("Children at the first level"),
    "trap": N_("**Why it fails here:** the draft's favourite, {token}, is always the first child, so it is tried in "
               "every step; the rule still divides by q = {q} as if it had been drawn by chance, so it comes out "
               "with probability {expected} (a share of {measured} in these samples) where the target gives it "
               "p = {p}. Children that were not drawn from q must be tested as point masses (the second exact "
               "rule)."),
    # read 46: at "speculative", T = 1.5, top-p 0.2 (toy pair) the favourite has p = 0: the sentence above said it
    # "comes out 0.0% of the time ... where the target gives it 0.0%", its drift elsewhere
    "trap_rest": N_("**Why it fails here:** the draft's favourite, {favourite}, is always the first child, and the "
                    "rule happens to emit it about as often as the target does (p = {p_favourite}). But every "
                    "rejection still subtracts q′ from p′ as if the child had been drawn from q, so what is left of p "
                    "is shared out wrongly: {token} comes out with probability {expected} (a share of {measured} in "
                    "these samples) where the target gives it p = {p}. Children that were not drawn from q must be "
                    "tested as point masses (the second exact rule)."),
    # read 52: it said "It fails where q spreads its mass over several tokens" beside a q on two tokens (toy pair,
    # "once upon a time", top-p 0.15), where p is a point mass and the rule's closed form is p
    "no_trap": N_("**Here it does not fail:** at these settings its closed form for one level is p itself, as "
                  "wherever p or q puts all its mass on one token (both do at temperature 0). With q a point mass, "
                  "its one child is tested with p′(x), as a point mass should be; with p a point mass, the target's "
                  "token is always kept and any other child always rejected. It can fail only where p and q both "
                  "spread their mass over several tokens."),
    "table": N_("Every tree rule at this prompt, from the closed form of one level with these children: how far "
                "what it emits drifts from p (– where enumerating every order of sampled children would take too "
                "long)."),
}


@st.cache_data(show_spinner=False, max_entries=32)
def _tree_lab(_dists: StepDistributions, spec: RunSpec, rule: str, width: int, n: int, lang: str) -> LabResult:
    return tree_lab(_dists, rule, width, n, spec.seed)  # the spec names the distributions: they are its p and q


def rule_picker() -> str:
    """The tree rule's selector and its explanation box; returns the rule's name."""
    name = st.selectbox(_(TEXT["rule"]), list(TREE_RULES), key="exact_tree_rule", help=_(TEXT["rule_help"]),
                        format_func=lambda n: ("✓ " if TREE_RULES[n].exact else "✗ ") + _(TREE_RULES[n].label))
    rule = TREE_RULES[name]
    (st.success if rule.exact else st.warning)(_(RULE_BOX, label=_(rule.label), text=_(rule.explanation)))
    return name


def trap_sentence(result: LabResult, dists: StepDistributions, rule: TreeRule, width: int) -> str:
    """The broken rule's failure in this experiment's numbers: the draft's favourite token comes out too often, by
    the rule's closed form for one level (read 45: the sentence quoted only the sample's share, which at N = 50 said
    24.0% where the rule gives 36.7%, and can fall below p's share by chance), and in the samples. Where the
    favourite comes out as p says (the target gives it 0, read 46), the token whose share the rule moves most.

    Its p, the rule's chance and the sample's share are probabilities, written as the step panels write p and q
    (`specviz.engine.shown`: three decimals, or more until each shows two significant figures, and for the token the
    rule moves most, until its chance and p differ as written; read 53: p was a one-decimal percent, "0.1%" beside
    "q = 0.0054")."""
    favourite = int(dists.draft_probs.argmax())
    closed = rule.one_level(dists.target_probs, dists.draft_probs, width)
    p = dists.target_probs.double()

    def shares(token: int, *more: float, apart: tuple[tuple[int, int], ...] = ((0, 2),)) -> dict[str, str]:
        """The sentence's numbers for `token`: the rule's chance, the sample's share, p (and q, in `more`), with one
        number of decimals, as a step panel's p and q: the fewest from 3 that give each two significant figures,
        write each two numbers at `apart` (by default the rule's chance and p) differently where they differ, and
        write no chance or share below 1 as 1 (read 53: p = 0.9996 read "p = 1.000", and so did 1,999 samples of
        2,000, beside a rule's chance of exactly 1). With q given, a chance that is p/q (the rule can turn the
        favourite down) is the written p ÷ the written q, as a step panel's p/q is (`shown.quotient_follows`;
        second read 53: "divides by q = 0.323 ... probability 0.414 ... p = 0.134", where 0.134 / 0.323 is 0.415)."""
        values = [float(closed[token]), float((result.speculative == token).double().mean()), float(p[token]), *more]

        def holds(digits: int) -> bool:
            shown = column_numbers(values, digits)
            # the rule's chance is p/q of p and q renormalised in float64 (`TreeRule.one_level`): within 1e-6 of the
            # float32 p ÷ q written beside it, not 1e-9
            return (all(values[i] == values[j] or shown[i] != shown[j] for i, j in apart)
                    and not any(v < 1 and as_written(v, digits) == 1 for v in values)
                    and quotient_follows(values[2], values[3] if more else None, values[0], digits, digits, 1e-6))

        shown = column_numbers(values, fewest_digits(holds, 3, 9))
        return {"token": "‘" + escape_text(dists.texts[token]) + "’", "expected": shown[0], "measured": shown[1],
                "p": shown[2], **({"q": shown[3]} if more else {})}

    # read 52: q at 3 decimals wrote a favourite's 0.0054 as "q = 0.005", one figure; now two at least, and p and q
    # told apart, as a step panel writes them
    # read 53: p and q told apart, and the rule's chance and p too, so that the sentence below is picked by what they
    # are: with only p and q apart, a chance of 1 and a p of 0.9996 both read "1.000" and the favourite was said to
    # come out "about as often as the target does", then named again as the token the rule moves most
    favourite_shares = shares(favourite, float(dists.draft_probs[favourite]), apart=((2, 3), (0, 2)))
    if favourite_shares["expected"] != favourite_shares["p"]:
        return _(TEXT["trap"], **favourite_shares)
    worst = int((closed - p).abs().argmax())  # the favourite comes out as p says: the drift is on another token
    return _(TEXT["trap_rest"], favourite=favourite_shares["token"], p_favourite=favourite_shares["p"], **shares(worst))


def rules_frame(dists: StepDistributions, width: int) -> pd.DataFrame:
    """Every tree rule: exact for any p and q or not, and its one-level drift from p at this prompt. The ✓ / ✗
    column has the chain table's name (read 54: headed "exact", it read ✗ beside a drift of 0.0000 at temperature 0
    as a contradiction, as the chain table's did in read 53)."""
    rows = []
    for rule in TREE_RULES.values():
        drift = one_level_drift(rule, dists.target_probs, dists.draft_probs, width)
        rows.append({_("rule"): _(rule.label), _(TABLE_COLUMNS["exact"]): "✓" if rule.exact else "✗",
                     _("drift (TV)"): share_text(drift, TV_DIGITS) if drift is not None else "–"})
    return pd.DataFrame(rows)


def render_tree_lab(pair_name: str, prompt: str, temperature: float, top_k: int, top_p: float) -> None:
    """The tree experiment under the page's shared inputs: rule, children, N and seed, then the verdicts."""
    name = rule_picker()
    rule = TREE_RULES[name]
    c1, c2, c3 = st.columns(3)
    width = int(c1.slider(_(TEXT["width"]), *WIDTHS, 2, key="exact_tree_width"))
    n = int(number_slider(c2, _("Samples N"), 50, 5000, 2000, 50, key="exact_tree_n"))
    seed = int(c3.number_input(_("Seed"), 0, 10_000, 0, 1, key="exact_tree_seed"))
    try:
        spec = RunSpec(pair=pair_name, prompt=prompt, temperature=temperature, top_k=top_k, top_p=top_p, seed=seed)
        pair = get_pair(pair_name)
        dists = step_distributions(pair, spec)
        with st.spinner(_("Sampling...")):
            result = _tree_lab(dists, spec, name, width, n, get_language())
    except ValueError as exc:
        st.error(str(exc))
        return
    st.subheader(_("Is it the target's distribution?"))
    st.caption(note_caption(result.note, dists.proposer))
    drift = one_level_drift(rule, dists.target_probs, dists.draft_probs, width)
    render_samples(result, _(rule.label), drift)
    if not rule.exact:  # a broken rule whose closed form is p here (T = 0) has no failure to explain
        st.markdown(trap_sentence(result, dists, rule, width) if drift is None or drift > 1e-9 else _(TEXT["no_trap"]))
    st.subheader(_("What each tree rule emits"))
    st.dataframe(rules_frame(dists, width), hide_index=True, key="exact_tree_rules_table", **NAMED_ROWS,
                 column_config={_("rule"): name_column()})  # the names pinned, as the rules table's (read 51)
    st.caption(_(TEXT["table"]))
