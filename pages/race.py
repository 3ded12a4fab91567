"""Timeline & race: speculative decoding against target-only decoding on one time axis (the wall clock in a live
race, one thread's CPU time in the shipped examples)."""

import streamlit as st

from specviz.core.i18n import _, ngettext
from specviz.labs.timeline import RaceRounds
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.common.frame import route_through_app
from specviz.ui.common.runs import is_light, start_live_run
from specviz.ui.race.inputs import example_picker, live_settings, race_estimate, source_picker
from specviz.ui.race.live import RESULT_KEY, measure_race
from specviz.ui.race.settings import ROUNDS_BY_PAIR, init_from_url, write_url
from specviz.ui.race.tree import has_tree_lane
from specviz.ui.race.view import render_race

route_through_app()

st.title(_("Timeline & race"))
st.markdown(_("Speculative decoding against plain target-only decoding: same prompt, same settings, timed in the "
              "same run. Does guessing ahead actually save time? It depends on how often the guesses are kept "
              "and on how cheap the guesser is."))

if "race_linked" not in st.session_state:  # opened from a link to a live race: run it once, without a click
    st.session_state["race_linked"] = st.query_params.get("race_source") == "live"
bad = init_from_url()
if bad:
    st.error(escape_markdown(ngettext(
        "A value in the link was not usable, so the default is shown instead: {problems}.",
        "Some values in the link were not usable, so the defaults are shown instead: {problems}.", len(bad),
        problems="; ".join(bad))))

traces = None
live = None
if source_picker() == "example":
    traces = example_picker()
else:
    settings = live_settings()  # a RunSpec, or the sentence that says why these settings cannot run
    live = st.session_state.get(RESULT_KEY)
    rounds = ROUNDS_BY_PAIR.get(st.session_state.get("race_pair"), 3)
    estimate = None if isinstance(settings, str) else race_estimate(settings, rounds)
    if estimate:
        st.caption(estimate)
    pressed = st.button(_("Run the race"), key="race_run", type="primary")
    linked = st.session_state["race_linked"]
    st.session_state["race_linked"] = False
    held = linked and not pressed and not isinstance(settings, str) and not is_light(settings)
    if held:  # a link runs on open only the instant toy pair: a heavy race waits for the visitor's press
        st.info(_("This link asks for a live race on the shared model: press **Run the race** to start it."))
    elif pressed or linked:
        try:  # every press measures anew (never a cached timing); a second press within the cooldown is refused
            if isinstance(settings, str):
                raise ValueError(settings)
            start_live_run(settings)
            live = st.session_state[RESULT_KEY] = measure_race(settings, rounds)
        except ValueError as exc:
            st.error(str(exc))
            live = None if isinstance(settings, str) else live  # too soon after the last press: the last race stays
    if live is None:
        if not isinstance(settings, str) and not held:
            lanes = 3 if has_tree_lane(settings) else 2  # speculative and target-only, and the tree lane if any
            st.info(_("Pick the models and settings, then press **Run the race**: the {lanes} lanes each run {rounds} "
                      "times, interleaved, and the page shows the median and the spread.", lanes=lanes,
                      rounds=rounds))
    elif live.settings != settings:
        st.caption(_("The settings changed since this race ran: press **Run the race** to run them."))
write_url()

if live is not None:
    st.session_state["race_traces"] = live.rounds.typical  # the pair on screen (tests and later pages read it)
    render_race(live.rounds, usual_ms=live.usual_ms, measured_at=live.measured_at, tree_lanes=live.tree)
elif traces is not None:
    st.session_state["race_traces"] = traces
    render_race(RaceRounds((traces,)))
