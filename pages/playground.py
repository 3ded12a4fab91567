"""Playground: replay or run speculative decoding step by step (inputs, a trace, then the player)."""

import streamlit as st

from specviz.core.i18n import _
from specviz.ui.common import greedy_compare
from specviz.ui.common.frame import route_through_app
from specviz.ui.common.state import take_start_step
from specviz.ui.common.step_view import render_verifier_source, trace_summary
from specviz.ui.common.tokens import trace_view
from specviz.ui.playground import inputs
from specviz.ui.playground import live as live_run
from specviz.ui.playground.player import render_player, select_trace
from specviz.ui.playground.settings import KEYS, TEXT

route_through_app()

st.title(_("Playground"))
st.caption(_("A small, fast **draft** guesses K tokens, as a chain or as a tree of alternatives K deep; the big "
             "**target** scores every guess in one *forward pass* (one run of the model over the text, reading all "
             "of its weights once), keeps each with probability min(1, p/q) up to the first rejection (in a tree, a "
             "rejected guess's siblings are tried next, each with min(1, p′/q′) against the residual p′ the "
             "rejections leave; under sampling the kept prefix is random), then adds one token of its own: the "
             "*recovered* token, drawn from norm(max(0, p − q)) at the rejection (in a tree, from the residual p′ "
             "left after every sibling was rejected), or the *bonus* token, drawn from p when all K (in a tree, a "
             "whole path) are kept. Step through it."))
inputs.init_state()
inputs.show_url_warning()

source = inputs.pick_source()
example, settings, picked = None, None, None
if source == "example":
    picked = inputs.example_trace()
    example = st.session_state[KEYS["example"]]
elif source == "live":
    with st.container(border=True):
        with st.expander(_(TEXT["settings"]), expanded=live_run.open_settings(), key=live_run.SETTINGS_OPEN,
                         on_change="rerun"):
            form = live_run.live_settings_form()
        live = live_run.live_trace(*form)
    picked, settings = (live[:2], live[2]) if live else (None, None)
else:
    picked = inputs.uploaded_trace()
inputs.save_state()
if picked is None:
    st.stop()

trace, trace_id = picked
start = take_start_step()
if live_run.take_landing():  # a new live run opens on its finished text, then invites stepping through
    start = trace.num_steps
select_trace(trace, trace_id, start)
trace_summary(trace)
if source == "live":
    live_run.compare_with_preset(trace, settings)  # a preset's measured figures next to this run's
view = trace_view(trace)  # the chips, built once: every run of the player reads them
render_player(view, trace_id, on_position=lambda pos: inputs.write_url(source, example, settings, pos))
greedy_compare.render_compare(trace, baseline=inputs.example_baseline(example) if source == "example" else None,
                              spec=settings if source == "live" else None, key="playground_compare")
st.download_button(_("Download this trace (JSON)"), trace.to_json(), mime="application/json",
                   file_name=f"specviz-{trace_id.replace(':', '-')}.json", key="playground_download",
                   icon=":material/download:", on_click="ignore")
render_verifier_source(trace)
