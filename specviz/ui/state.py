"""What pages share: the session keys that more than one module reads, each with a typed accessor, and the pairs
loaded by hand, which every session of this server shares.

A page never spells another page's session key; it calls these functions. Keys read by one module only stay in that
module (prefixed with its page's name).

    key                      written by                  read by
    "trace"                  the Playground's player     Theory explorer, Exactness lab
    "custom_pair"            the Models page             the Playground's pair picker
    "playground_start_step"  the Playground's URL reader  the Playground page, once
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

import streamlit as st

from specviz.trace import Trace

if TYPE_CHECKING:  # loading a pair needs torch; this module only stores one
    from specviz.models import Pair

TRACE_KEY = "trace"
CUSTOM_PAIR_KEY = "custom_pair"  # the "TARGET,DRAFT" spec of the pair loaded by hand on the Models page
START_STEP_KEY = "playground_start_step"  # the step a shared Playground link asks for


# ---- the trace on screen -----------------------------------------------------------------------------------------


def current_trace() -> Trace | None:
    """The trace the Playground shows now (None before one was shown). Anything else stored under the key is a bug
    elsewhere, reported as a ValueError with one sentence."""
    value = st.session_state.get(TRACE_KEY)
    if value is None or isinstance(value, Trace):
        return value
    raise ValueError(f"The trace in this session is not a speculative-decoding trace (it is a "
                     f"{type(value).__name__}, not a specviz Trace).")


def set_current_trace(trace: Trace) -> None:
    """Make `trace` the one other pages (theory, exactness) measure against."""
    if not isinstance(trace, Trace):
        raise TypeError(f"set_current_trace takes a specviz Trace, not a {type(trace).__name__}.")
    st.session_state[TRACE_KEY] = trace


# ---- the pair loaded by hand -------------------------------------------------------------------------------------


def custom_pair() -> str | None:
    """The spec of the pair loaded by hand on the Models page in this session, if any."""
    return st.session_state.get(CUSTOM_PAIR_KEY) or None


def set_custom_pair(spec: str) -> None:
    st.session_state[CUSTOM_PAIR_KEY] = spec


# ---- the step a shared link starts at ----------------------------------------------------------------------------


def set_start_step(step: int) -> None:
    st.session_state[START_STEP_KEY] = int(step)


def take_start_step() -> int:
    """The step a shared link asked for (0 if none); it is taken once, so a later rerun keeps the player's place."""
    return int(st.session_state.pop(START_STEP_KEY, 0))


# ---- pairs loaded by hand, shared by every session of this server ----------------------------------------------

HandPairKey = tuple[str, str, str, bool]  # (spec, device, dtype, trust_remote_code)
HAND_PAIRS_MAX = 2  # a pair can take gigabytes: keep only the most recent few
_HAND_PAIRS: OrderedDict[HandPairKey, Pair] = OrderedDict()
_HAND_PAIRS_LOCK = threading.Lock()


def keep_hand_pair(key: HandPairKey, load: Callable[[], Pair]) -> Pair:
    """The pair stored under `key` (its spec first), loading it with `load()` the first time. One load at a time,
    so two sessions asking for the same pair load it once; the least recently used pair is dropped beyond
    HAND_PAIRS_MAX."""
    with _HAND_PAIRS_LOCK:
        if key in _HAND_PAIRS:
            _HAND_PAIRS.move_to_end(key)
            return _HAND_PAIRS[key]
        pair = load()
        _HAND_PAIRS[key] = pair
        while len(_HAND_PAIRS) > HAND_PAIRS_MAX:
            _HAND_PAIRS.popitem(last=False)
        return pair


def loaded_pair(spec: str) -> Pair | None:
    """The most recently loaded pair for `spec` (the value of `custom_pair()`), if it is still in memory."""
    with _HAND_PAIRS_LOCK:
        return next((pair for key, pair in reversed(_HAND_PAIRS.items()) if key[0] == spec), None)
