"""Runs for the pages: the library's `run()` and its one pair cache, plus what a shared server needs around them.

Pairs come from `specviz.running.PAIRS` (one copy per server process, shared by every session; a pair loaded by hand
on the Models page is put there too). A class of 30 may press Run at once, so a run takes the pair's turn (first
come, first served; the spinner says how many runs are ahead), gives up with one sentence after WAIT_SECONDS, stops
cleanly after RUN_SECONDS with its partial trace, and a session waits COOLDOWN_SECONDS between two new runs. Traces
are cached with `st.cache_data`, keyed by the `RunSpec` (same spec, same seed = same trace): a cached one is instant
and takes no turn.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import streamlit as st

from specviz.models import Pair
from specviz.running import PAIRS, run, run_target_only
from specviz.runspec import RunSpec
from specviz.trace import Trace

INSTANT_PAIRS = ("toy",)  # built in code in a blink: no status box
WAIT_SECONDS = 90.0  # the longest a visitor waits for the model before being told it is busy
RUN_SECONDS = 60.0  # a live run past this stops with what it has ("deadline")
COOLDOWN_SECONDS = 3.0  # between two new live runs of one session
_LAST_RUN = "runs_last_started"  # session key: when this session last started new work
_SEEN = "runs_seen"  # session key: the specs this session has computed (cached: free to show again)


def get_pair(name: str) -> Pair:
    """The loaded pair, with a status box while a slow first load runs (the GGUF conversion takes ~15 s)."""
    if name in INSTANT_PAIRS or PAIRS.loaded(name) is not None:
        return PAIRS.get(name)
    with st.status(f"Loading the '{name}' models (the first load converts the weights, about 15 s)...",
                   expanded=False) as status:
        pair = PAIRS.get(name)
        status.update(label=f"Models '{name}' ready.", state="complete")
    return pair


def with_turn(name: str, work: Callable[[Pair], object]) -> object:
    """`work(pair)` while holding the pair's turn (a Busy ValueError after WAIT_SECONDS in the queue). For every page
    that computes on a shared model: the labs as well as the runs."""
    pair = PAIRS.get(name)
    with PAIRS.turn(name, timeout=WAIT_SECONDS):
        return work(pair)


@st.cache_data(show_spinner=False, max_entries=64)
def _speculative(spec: RunSpec) -> Trace:
    return with_turn(spec.pair, lambda pair: run(spec, pair=pair, deadline=time.perf_counter() + RUN_SECONDS))


@st.cache_data(show_spinner=False, max_entries=64)
def _target_only(spec: RunSpec) -> Trace:
    return with_turn(spec.pair, lambda pair: run_target_only(spec, pair=pair,
                                                             deadline=time.perf_counter() + RUN_SECONDS))


def waiting_note(name: str) -> str:
    """" (2 runs ahead of you)" while others hold or wait for the model, else ""."""
    ahead = PAIRS.ahead(name)
    return "" if not ahead else f" ({ahead} run{'s' if ahead > 1 else ''} ahead of you)"


def start_live_run(*specs: RunSpec) -> None:
    """Call once per press of a Run button, with the specs the press will compute: a ValueError with one sentence if
    this session started new work less than COOLDOWN_SECONDS ago (specs already computed for it cost nothing)."""
    if all(_seen(spec) for spec in specs):
        return
    now = time.monotonic()
    last = st.session_state.get(_LAST_RUN)
    if last is not None and now - last < COOLDOWN_SECONDS:
        raise ValueError(f"One new live run every {COOLDOWN_SECONDS:g} s: press Run again in a moment.")
    st.session_state[_LAST_RUN] = now


def _seen(spec: RunSpec) -> bool:
    return spec in st.session_state.get(_SEEN, set())


def _run(function, spec: RunSpec, what: str) -> Trace:
    get_pair(spec.pair)
    with st.spinner(f"Running {what}...{waiting_note(spec.pair)}"):
        trace = function(spec)
    st.session_state.setdefault(_SEEN, set()).add(spec)
    return trace


def run_speculative(spec: RunSpec) -> Trace:
    """The speculative trace for this spec (ValueError with one sentence on bad input or a busy model)."""
    return _run(_speculative, spec, "speculative decoding")


def run_autoregressive(spec: RunSpec) -> Trace:
    """The target-only trace for the same spec (the race's other lane)."""
    return _run(_target_only, spec, "target-only decoding")
