"""Timeline & race: speculative decoding against target-only decoding on one wall clock."""

import streamlit as st

from specviz.ui.race_view import (example_picker, init_from_url, live_settings, race_specs, render_race, run_race,
                                  source_picker, write_url)
from specviz.ui.runs import start_live_run
from specviz.ui.frame import route_through_app

route_through_app()

st.title("Timeline & race")
st.markdown("Speculative decoding against plain target-only decoding: same prompt, same settings, timed in the "
            "same run. Does guessing ahead actually save time? It depends on how often the guesses are kept "
            "and on how cheap the guesser is.")

if "race_linked" not in st.session_state:  # opened from a link to a live race: run it once, without a click
    st.session_state["race_linked"] = st.query_params.get("race_source") == "live"
bad = init_from_url()
if bad:
    st.error(f"The link's value for {', '.join(bad)} was not usable, so the default is shown instead.")

traces = None
if source_picker() == "example":
    traces = example_picker()
else:
    settings = live_settings()  # a RunSpec, or the sentence that says why these settings cannot run
    ran = st.session_state.get("race_ran")
    if st.button("Run the race", key="race_run", type="primary") or st.session_state["race_linked"]:
        st.session_state["race_linked"] = False
        try:
            if isinstance(settings, str):
                raise ValueError(settings)
            start_live_run(*race_specs(settings))
            ran = st.session_state["race_ran"] = settings
        except ValueError as exc:
            st.error(str(exc))
            ran = None if isinstance(settings, str) else ran  # too soon after the last press: the last race stays
    if ran is None:
        if not isinstance(settings, str):
            st.info("Pick the models and settings, then press **Run the race**.")
    else:
        if ran != settings:
            st.caption("The settings changed since this race ran: press **Run the race** to run them.")
        try:
            traces = run_race(ran)
        except ValueError as exc:
            st.error(str(exc))
write_url()

if traces is not None:
    st.session_state["race_traces"] = traces  # the pair on screen (tests and later pages read it)
    render_race(*traces)
