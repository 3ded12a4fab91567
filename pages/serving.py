"""Serving lab: watch a real vLLM server speculate, and see when speculation stops paying under load."""

import streamlit as st

from specviz.core.i18n import _
from specviz.ui.common.frame import route_through_app
from specviz.ui.serving import sweep
from specviz.ui.serving import view

route_through_app()

st.title(_("Serving lab"))
st.markdown(_("A serving engine batches many requests at once, and speculation that pays for one stream can stop "
            "paying once the batch is large enough to make the server compute-bound; the measured sweep below says "
            "where it did on its machine, or that it did not. Start a local vLLM server with `make serve` (n-gram "
            "speculation by default; "
            "`make serve SPEC=none|draft|eagle` for the others), or point this page at another vLLM server that "
            "whoever runs this app allows."))

# The address serves both live tabs, so it sits above them. Only the open tab runs (on_change="rerun"): the live panel
# re-reads /metrics only while its tab is shown, and a visitor reading the committed sweep sends nothing.
base = view.server_url()
live_tab, load_tab, measured_tab = st.tabs([_("Live metrics"), _("Load generator"), _("Measured sweep")],
                                           key="serving_tab", on_change="rerun")
if live_tab.open:
    with live_tab:
        now = view.probe(base) if base else None
        if now is not None:
            view.live_panel(base)
if load_tab.open:
    with load_tab:
        now = view.probe(base) if base else None
        if now is not None:
            sweep.live_sweep(base, now.speculating)
if measured_tab.open:
    with measured_tab:
        sweep.committed_sweep()
