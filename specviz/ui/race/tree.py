"""Timeline & race with a tree lane: the same proposer drafting a chain of K and a draft tree of at most N nodes,
side by side against target-only decoding, with each lane's target forwards and mean accepted length.

The race's settings are one `RunSpec`; its `tree_nodes` is the tree lane's node budget (0 = no tree lane) and
`tree_width` its width W (at most W nodes expanded per level, W children per node). The chain lane runs the same
spec with `tree_nodes=0` (`lane_specs`), so the two lanes differ only in the shape of the draft. A proposer that
cannot branch would draft a chain in both lanes, so it gets no tree lane (`has_tree_lane`).

    >>> spec = RunSpec(pair="toy", proposer="draft", tree_nodes=8)
    >>> chain, tree = lane_specs(spec)
    >>> chain.tree_nodes, tree.tree_nodes, has_tree_lane(spec), has_tree_lane(RunSpec(proposer="ngram", tree_nodes=8))
    (0, 8, True, False)
"""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd
import streamlit as st

from specviz.core.i18n import N_, _, number, times
from specviz.engine.draft_shape import too_deep_or_wide
from specviz.engine.proposers import registry
from specviz.engine.trace import Trace
from specviz.labs.timeline import measured_speedup, speed_decimals
from specviz.runs.runspec import SETTINGS, RunSpec

# The words below are marked with N_() and translated with _() where they are shown (never at import).
CHAIN_LANE, TREE_LANE = N_("speculative, chain"), N_("speculative, tree")
TREE_FIELDS = {"race_tree_nodes": "tree_nodes", "race_tree_width": "tree_width"}  # widget key (= URL name) -> field
TEXT = {
    "nodes": N_("Tree lane: nodes (0 = no tree lane)"),
    "nodes_help": N_("Adds a lane where the same proposer drafts a tree of at most this many nodes (depth at most K) "
                     "instead of a chain of K, and the target checks the whole tree in one forward."),
    "no_branching": N_("N-gram lookup cannot branch, so a tree lane would draft the same chain: pick a model that "
                       "drafts for a tree lane."),
    # read 46: "on average it emits more tokens per forward" is not so for every tree: one of fewer nodes than K is
    # shallower than the chain (`grow_tree` shares the nodes out over the levels), so it can emit fewer
    "lanes": N_("**Chain against tree.** Each lane's target forwards and what each forward bought. A tree spends "
                "one forward on many guesses, so it can emit more tokens per forward than the chain, but every node "
                "costs some verification time: the mean accepted length says whether it emitted more, the speedup "
                "whether it paid here."),
}


def has_tree_lane(settings: RunSpec) -> bool:
    """Whether the race gets a tree lane: a node budget, and a proposer that can branch."""
    return bool(settings.tree_nodes) and registry.can_branch(settings.proposer)


def lane_specs(settings: RunSpec) -> tuple[RunSpec, RunSpec]:
    """(the chain lane's spec, the tree lane's spec): the same settings, the chain with no tree."""
    return replace(settings, tree_nodes=0), settings


def tree_inputs(proposer: str) -> tuple[int, int]:
    """The tree lane's node budget and width, in RunSpec's ranges (widget keys are also the URL names)."""
    nodes, width = SETTINGS["tree_nodes"], SETTINGS["tree_width"]
    c1, c2 = st.columns(2)
    n = int(c1.number_input(_(TEXT["nodes"]), *nodes.bounds, step=1, key="race_tree_nodes", help=_(TEXT["nodes_help"])))
    w = int(c2.number_input(_(width.label), *width.bounds, step=1, key="race_tree_width", disabled=not n,
                            help=_(width.help)))
    if n and not registry.can_branch(proposer):
        st.caption(_(TEXT["no_branching"]))
    return n, w


def tree_refusal(settings: RunSpec) -> str | None:
    """The sentence that refuses the tree lane's node budget when a tree of K's depth and the lane's width cannot
    hold it (`draft_shape.too_deep_or_wide`; read 55: K 1, 16 nodes, width 4 raced trees of 4 nodes); None when it
    fits or there is no tree lane."""
    if not has_tree_lane(settings):
        return None
    return too_deep_or_wide(settings.tree_nodes, settings.k, settings.tree_width)


def lanes_rows(chain: Trace, tree: Trace, base: Trace, decimals: int | None = None) -> list[dict[str, str]]:
    """One row per lane: target forwards used, tokens, mean accepted length, tokens/s, speedup over
    target-only decoding (the baseline lane's own speedup is 1 by definition)."""
    rows = []
    if decimals is None:  # each lane's speed ÷ target-only's gives its speedup (the page passes the metrics')
        decimals = speed_decimals((chain, base), (tree, base))
    for lane, trace in ((_(CHAIN_LANE), chain), (_(TREE_LANE), tree), (_("target only"), base)):
        speedup = 1.0 if trace is base else measured_speedup(trace, base)
        rows.append({_("lane"): lane, _("target forwards"): str(trace.num_steps), _("tokens"): str(trace.num_tokens),
                     _("mean accepted length"): number(trace.mean_accepted_length),
                     _("tokens/s"): number(trace.tokens_per_second, decimals),
                     _("speedup"): times(speedup) if math.isfinite(speedup) else "–"})
    return rows


def render_lanes(chain: Trace, tree: Trace, base: Trace, decimals: int | None = None) -> None:
    """The lanes table under its one-line reading."""
    st.markdown(_(TEXT["lanes"]))
    st.table(pd.DataFrame(lanes_rows(chain, tree, base, decimals)).set_index(_("lane")))
