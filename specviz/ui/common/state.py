"""What pages share through the session: the keys that more than one module reads, each with a typed accessor.

A page never spells another page's session key; it calls these functions. Keys read by one module only stay in that
module (prefixed with its page's name). Loaded models are not session state: every session shares them through
`specviz.runs.running.PAIRS`.

    key                      written by                  read by
    "trace"                  the Playground's player     Theory explorer, Exactness lab
    "custom_pair"            the Models page             the Playground's pair picker
    "custom_pair_typed"      the Models page             the Playground's pair picker (the name it shows)
    "playground_start_step"  the Playground's URL reader  the Playground page, once
    "learn_progress"         the guided path             the Quiz (its default concepts)
"""

from __future__ import annotations

import streamlit as st

from specviz.core.i18n import _
from specviz.engine.trace import Trace
from specviz.teach.learn import Progress

TRACE_KEY = "trace"
CUSTOM_PAIR_KEY = "custom_pair"  # the "TARGET,DRAFT" spec of the pair loaded by hand on the Models page
CUSTOM_TYPED_KEY = "custom_pair_typed"  # that pair as the visitor typed it (the spec has its folders resolved)
START_STEP_KEY = "playground_start_step"  # the step a shared Playground link asks for
LEARN_KEY = "learn_progress"  # a specviz.teach.learn.Progress


# ---- the trace on screen -----------------------------------------------------------------------------------------


def current_trace() -> Trace | None:
    """The trace the Playground shows now (None before one was shown). Anything else stored under the key is a bug
    elsewhere, reported as a ValueError with one sentence."""
    value = st.session_state.get(TRACE_KEY)
    if value is None or isinstance(value, Trace):
        return value
    raise ValueError(_("The trace in this session is not a speculative-decoding trace (it is a {kind}, not a "
                       "specviz Trace).", kind=type(value).__name__))


def set_current_trace(trace: Trace) -> None:
    """Make `trace` the one other pages (theory, exactness) measure against."""
    if not isinstance(trace, Trace):
        raise TypeError(_("set_current_trace takes a specviz Trace, not a {kind}.", kind=type(trace).__name__))
    st.session_state[TRACE_KEY] = trace


# ---- the pair loaded by hand -------------------------------------------------------------------------------------


def custom_pair() -> str | None:
    """The spec of the pair loaded by hand on the Models page in this session, if any."""
    return st.session_state.get(CUSTOM_PAIR_KEY) or None


def custom_pair_typed() -> str | None:
    """The pair loaded by hand as the visitor typed it ("./my-model"), for the screen: never a resolved server path.
    The spec itself when none was given."""
    spec = custom_pair()
    return (st.session_state.get(CUSTOM_TYPED_KEY) or spec) if spec else None


def set_custom_pair(spec: str, typed: str | None = None) -> None:
    """Record the pair loaded by hand under the spec the pair cache holds it by (its folders resolved: the
    Playground asks the cache for it by that spec) and, for the screen, as typed."""
    st.session_state[CUSTOM_PAIR_KEY] = spec
    st.session_state[CUSTOM_TYPED_KEY] = typed or spec


# ---- the step a shared link starts at ----------------------------------------------------------------------------


def set_start_step(step: int) -> None:
    st.session_state[START_STEP_KEY] = int(step)


def take_start_step() -> int:
    """The step a shared link asked for (0 if none); it is taken once, so a later rerun keeps the player's place."""
    return int(st.session_state.pop(START_STEP_KEY, 0))


# ---- the learner's place on the guided path ------------------------------------------------------------------


def learn_progress() -> Progress | None:
    """Where the learner stands on the guided path in this session (None before they opened it); the Quiz draws
    from the concepts it has met."""
    value = st.session_state.get(LEARN_KEY)
    return value if isinstance(value, Progress) else None


def set_learn_progress(progress: Progress) -> None:
    st.session_state[LEARN_KEY] = progress
