"""Models: the catalog of pairs, a memory check against this machine, and a pair of your own (folders or Hub ids)."""

import streamlit as st

from specviz.core.i18n import N_, _
from specviz.ui.common.frame import page_start
from specviz.ui.models import view as models_view

page_start(N_("Models"), N_("Which (target, draft) pair to run, whether it fits this machine, and how to bring your "
                           "own. p = target, q = draft; K = drafted tokens per step (a tree's greatest depth; a lookup "
                           "branch copied into the tree can reach deeper)."))

entries = models_view.catalog()
machine = models_view.current_machine()

st.subheader(_("Catalog"))
models_view.catalog_table(entries)

st.subheader(_("Drafts trained for the offline model"))
st.caption(_("SmolLM2-135M has no smaller sibling to draft with, so specviz trains its own: each card says how, on "
             "what, and what it measured (not the machine it trained on, which no committed file records)."))
models_view.trained_drafts()

st.subheader(_("Will it fit here?"))
st.caption(models_view.machine_summary(machine))
models_view.memory_check(entries, machine)

st.subheader(_("Pair by hand"))
policy = models_view.WebModelPolicy.from_env()
st.caption(models_view.hand_caption(policy))
hand = models_view.hand_form(policy)
if hand is not None:
    pair = models_view.load_hand_pair(hand, policy)  # it records the pair for the Playground under the spec it loaded
    if pair is not None:
        models_view.show_loaded(pair)
