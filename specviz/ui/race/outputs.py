"""Timeline & race: the outputs side by side, every lane's tokens as chips (escaped by `output_html`), each
speculative lane with one sentence saying whether it is the target-only output token for token.

At temperature 0 it must be: the exact rule keeps the target's most likely token, and a chain or a tree of the same
proposer only changes how many tokens one target forward settles. The one way they can part is a near-tie in the
target's scores that a target forward over several tokens (up to K + 1 for a chain; a tree's nodes, its lookup branch
and one more) rounds the other way (bfloat16): `specviz.ui.common.greedy_compare` names the first split and the target's
top-2 logit gap there. At temperature > 0 the lanes draw their random numbers differently, so their outputs can part
(or not) while all follow the target's distribution.
"""

from __future__ import annotations

import streamlit as st

from specviz.core.i18n import N_, _, ngettext
from specviz.engine.trace import TokenKind, Trace
from specviz.labs.bench import quoted
from specviz.labs.timeline import cut_short
from specviz.ui.common import greedy_compare
from specviz.ui.common.palette import legend_html
from specviz.ui.common.tokens import output_html
from specviz.ui.race.figures import BASE_LANE, SPEC_LANE
from specviz.ui.race.tree import CHAIN_LANE, TREE_LANE

# The words below are marked with N_() and translated with _() where they are shown (never at import).
TEXT = {
    "two": N_("The two outputs"),
    "three": N_("The three outputs"),
    "two_note": N_("Both follow the target's distribution exactly. With temperature > 0 they can still differ, "
                   "because the two methods use the random numbers differently. At temperature 0, with the default "
                   "pair (SmolLM2-135M and its EAGLE drafter), they matched token for token in float32 on {fp32} "
                   "held-out prompts checked on {fp32_cpu}, drafting {fp32_shape}, though a near-tie could still "
                   "flip one there too; in bfloat16 only up to numerics: a target forward over several tokens (up "
                   "to K + 1 for a chain; a tree's nodes, its lookup branch and one more) rounds differently from a "
                   "one-token forward, a near-tie between the target's two best tokens can flip, and from there the "
                   "two texts part ways: every later token is written after a different text."),
    "three_note": N_("All three follow the target's distribution exactly. With temperature > 0 they can still "
                     "differ, because the lanes use the random numbers differently. At temperature 0, with the "
                     "default pair (SmolLM2-135M and its EAGLE drafter), they matched token for token in float32 on "
                     "{fp32} held-out prompts checked on {fp32_cpu}, drafting {fp32_shape}, though a near-tie could "
                     "still flip one there too; in bfloat16 only up to numerics: a target forward over several "
                     "tokens (up to K + 1 for a chain; a tree's nodes, its lookup branch and one more) rounds "
                     "differently from a one-token forward, a near-tie between the target's two best tokens can "
                     "flip, and from there the texts part ways: every later token is written after a different "
                     "text."),
    # read 47: the float32 check these notes quote drafted a tree, so beside a chain lane the notes say so
    "chain_unchecked": N_("That float32 check drafted a tree, not a chain like the “{lane}” lane above."),
    "tree_unchecked": N_("That float32 check drafted a chain, not a tree like the “{lane}” lane above."),
    "same": N_("Identical to the target-only output, token for token."),
    "cut_short": N_("Not compared: a lane reached its time limit before its token budget, so the two outputs do not "
                    "cover the same tokens."),
    "lane_cut": N_("cut short at the time limit"),
    "parts": N_("Parts from the target-only output at token {index}: at temperature > 0 the lanes draw different "
                "random numbers."),
}


def first_difference(output: list[int], reference: list[int]) -> int | None:
    """The position (from 1) of the first token where `output` parts from `reference`; None when they are equal.

    >>> first_difference([1, 2, 3], [1, 2, 3]), first_difference([1, 5, 3], [1, 2, 3]), first_difference([1, 2], [1])
    (None, 2, 2)
    """
    if output == reference:
        return None
    parted = (i for i, (a, b) in enumerate(zip(output, reference), start=1) if a != b)
    return next(parted, min(len(output), len(reference)) + 1)


def agreement(trace: Trace, base: Trace) -> str:
    """Whether a speculative lane's output is the target-only output, and why it must or need not be (one sentence,
    or at temperature 0 `greedy_compare.explain`'s paragraph when they part); nothing is compared when either lane
    was cut short at its time limit."""
    if cut_short(trace) or cut_short(base):
        return _(TEXT["cut_short"])
    if trace.settings.get("temperature") == 0:
        return greedy_compare.explain(trace, base)
    index = first_difference(trace.output_ids, base.output_ids)
    return _(TEXT["same"]) if index is None else _(TEXT["parts"], index=index)


def check_shape_note(tree_lane: bool, root=None) -> str:
    """The sentence that follows a note quoting the committed float32 greedy-identity check, when a lane of the race
    drafts a shape the check did not (a chain lane beside a check that drafted a tree, or a tree lane beside a check
    that drafted a chain); "" when every lane drafts the check's kind of shape. The speculative lane is a chain in
    every race (`lane_specs`; the recorded examples drafted chains). Lanes are named as the box's headings name them."""
    if quoted.greedy_identity_draft_shapes(root)["fp32"].is_tree:
        return _(TEXT["chain_unchecked"], lane=_(CHAIN_LANE if tree_lane else SPEC_LANE).capitalize())
    return _(TEXT["tree_unchecked"], lane=_(TREE_LANE).capitalize()) if tree_lane else ""


def render_outputs(spec: Trace, base: Trace, tree: Trace | None = None) -> None:
    """A folded box with every lane's output (the chain, the tree lane when there is one, then target-only), the
    token kinds' legend, and under each speculative lane whether it matches target-only decoding."""
    lanes = [(spec, SPEC_LANE if tree is None else CHAIN_LANE), *([(tree, TREE_LANE)] if tree is not None else []),
             (base, BASE_LANE)]
    with st.expander(_(TEXT["two"] if tree is None else TEXT["three"])):
        st.html(legend_html(tuple(TokenKind), distributions=False, kept_mark=False))
        for trace, lane in lanes:
            st.markdown(ngettext("**{lane}** ({n} token)", "**{lane}** ({n} tokens)", trace.num_tokens,
                                 lane=_(lane).capitalize()) + (f" · ⏱ {_(TEXT['lane_cut'])}" if cut_short(trace) else ""))
            st.html(output_html(trace))
            if trace is not base:
                st.caption(agreement(trace, base))
        note = _(TEXT["two_note"] if tree is None else TEXT["three_note"],
                 fp32=quoted.greedy_identity_counts()["fp32"],
                 fp32_cpu=quoted.greedy_identity_machines()["fp32_cpu"],
                 fp32_shape=quoted.greedy_identity_shapes()["fp32_shape"])
        st.caption(" ".join(filter(None, (note, check_shape_note(tree is not None)))))
