"""Runs for the pages: the library's `run()` and its one pair cache, plus what a browser needs around them.

Pairs come from `specviz.runspec.PAIRS` (one copy per server process, shared by every session; a pair loaded by hand on
the Models page is put there too). A generation holds its pair's lock, because each call keeps its own KV caches but
the CPU is better used by one generation at a time than by several fighting for two cores. Traces are cached with
`st.cache_data`, keyed by the `RunSpec` (same spec, same seed = same trace), and each session gets its own copy.
"""

from __future__ import annotations

import streamlit as st

from specviz.models import Pair
from specviz.running import PAIRS, run, run_target_only
from specviz.runspec import RunSpec
from specviz.trace import Trace

INSTANT_PAIRS = ("toy",)  # built in code in a blink: no status box


def get_pair(name: str) -> Pair:
    """The loaded pair, with a status box while a slow first load runs (the GGUF conversion takes ~15 s)."""
    if name in INSTANT_PAIRS or PAIRS.loaded(name) is not None:
        return PAIRS.get(name)
    with st.status(f"Loading the '{name}' models (the first load converts the weights, about 15 s)...",
                   expanded=False) as status:
        pair = PAIRS.get(name)
        status.update(label=f"Models '{name}' ready.", state="complete")
    return pair


@st.cache_data(show_spinner=False, max_entries=64)
def _speculative(spec: RunSpec) -> Trace:
    pair = PAIRS.get(spec.pair)
    with PAIRS.lock(spec.pair):
        return run(spec, pair=pair)


@st.cache_data(show_spinner=False, max_entries=64)
def _target_only(spec: RunSpec) -> Trace:
    pair = PAIRS.get(spec.pair)
    with PAIRS.lock(spec.pair):
        return run_target_only(spec, pair=pair)


def run_speculative(spec: RunSpec) -> Trace:
    """The speculative trace for this spec (ValueError with one sentence on bad input)."""
    get_pair(spec.pair)
    with st.spinner("Running speculative decoding..."):
        return _speculative(spec)


def run_autoregressive(spec: RunSpec) -> Trace:
    """The target-only trace for the same spec (the race's other lane)."""
    get_pair(spec.pair)
    with st.spinner("Running target-only decoding..."):
        return _target_only(spec)
