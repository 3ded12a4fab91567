"""Proposers: who can draft (draft model, lookup, self-drafting, heads, features, MTP, lookahead, suffix trees),
what each costs, needs, wins and loses, and how a tree of drafts is verified."""

import streamlit as st

from specviz.core.i18n import N_, _
from specviz.ui.common.frame import page_start
from specviz.ui.proposers import view

page_start(N_("Proposers: who writes the drafts"))
st.markdown(_("The verifier never changes: the target scores every draft in one forward pass (K+1 positions for a "
            "chain of K) and keeps a chain's draft with probability min(1, p/q); a tree applies the same test "
            "recursively, child by child, with the residual after each rejection ([Tree verification](#trees), "
            "below). What changes is **who proposes**, and that sets α (how often a draft is "
            "kept) and c (what a draft costs). Each proposer below with a diagram, its costs, what it needs, where "
            "it wins and loses, a recorded trace where specviz has it, and the quiz questions on it where the quiz has "
            "some."))

for proposer in view.sections():
    view.render_proposer(proposer)
    st.divider()

st.header(_("Tree verification"), anchor="trees")
view.render_tree_section()
st.divider()
st.markdown(_(view.TREE_TEXT["stops"]))
