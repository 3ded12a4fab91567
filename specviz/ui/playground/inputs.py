"""The Playground's inputs: where the trace comes from (example, live run, upload), and the session state and URL
that remember and share it. The settings' plain data and URL rules are in `specviz.ui.playground.settings`; the live
form in `specviz.ui.playground.live`, its progress in `specviz.ui.playground.progress`.
"""

from __future__ import annotations

import streamlit as st

from specviz.core.i18n import N_, _, get_language, ngettext
from specviz.engine.trace import Trace
from specviz.labs.examples import list_examples, load_example
from specviz.runs.runspec import RunSpec
from specviz.ui.common import state as shared
from specviz.ui.common.runs import INSTANT_PAIRS
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.common.frame import LANG_PARAM
from specviz.ui.playground.live import AUTORUN, LAND_AT_END, digest
from specviz.ui.playground.settings import (
    KEYS,
    SOURCES,
    STEP_PARAM,
    defaults,
    parse_query_params,
    query_params_for,
    settings_of,
)

_SAVED = "playground_saved_settings"  # a copy that survives visits to other pages (widget state does not)
# The "run it live" button's help: only a real model loads; the toy pair is built in code at once (read 41: the toy
# example's help promised a real model's load)
COPY_HELP = {"model": N_("Copies this example's prompt and settings into a live run (the real model loads on first "
                         "use)."),
             "instant": N_("Copies this example's prompt and settings into a live run (the toy pair runs at once: "
                           "nothing to load).")}


# ---- session state -------------------------------------------------------------------------------------------


def init_state() -> None:
    """Fill the settings' session-state keys: from the URL on the first load, else from the saved copy."""
    names = [e.name for e in list_examples()]
    state = st.session_state
    if "playground_url_read" not in state:
        state["playground_url_read"] = True
        values, bad = parse_query_params({k: st.query_params[k] for k in st.query_params}, names)
        state["playground_url_warning"] = list(bad.values())  # one phrase per refused parameter: rule and value
        state[LAND_AT_END] = values.get("source") == "live" and STEP_PARAM not in values
        shared.set_start_step(values.pop(STEP_PARAM, 0))
        state[_SAVED] = {**defaults(names), **values}
        state[AUTORUN] = values.get("source") == "live"
    saved = state.setdefault(_SAVED, defaults(names))
    for name, key in KEYS.items():
        if key not in state:
            state[key] = saved[name]


def save_state() -> None:
    """Remember the settings so they survive a visit to another page."""
    st.session_state[_SAVED] = {name: st.session_state[key] for name, key in KEYS.items() if key in st.session_state}


def show_url_warning() -> None:
    """Which settings of the link were refused, what each accepts and the value the link gave (read 52: it named
    only the parameter, "…not valid (max_new_tokens)")."""
    if problems := st.session_state.get("playground_url_warning"):
        st.warning(escape_markdown(ngettext(
            "A setting in the link was not valid, so it was set to its default: {problems}.",
            "Some settings in the link were not valid, so they were set to their defaults: {problems}.",
            len(problems), problems="; ".join(problems))))


def write_url(source: str, example: str | None, settings: RunSpec | None, step: int) -> None:
    """Put the shown run in the address bar (only when it changed, so the history stays short)."""
    params = {**query_params_for(source, example, settings, step, shared.custom_pair_typed()),
              LANG_PARAM: get_language()}  # keep ?lang=
    if {k: st.query_params[k] for k in st.query_params} != params:
        st.query_params.from_dict(params)


# ---- the source picker and the three sources ----------------------------------------------------------------


def pick_source() -> str:
    """The source radio; returns "example", "live" or "upload"."""
    return st.radio(_("Where the trace comes from"), list(SOURCES), format_func=lambda name: _(SOURCES[name]),
                    horizontal=True, key=KEYS["source"])


def example_trace() -> tuple[Trace, str] | None:
    """The chosen example (instant, no model loaded) and its id; None with an error if none are installed."""
    examples = list_examples()
    if not examples:
        st.error(_("No example traces are installed: run `make traces` to record them, or choose a live run."))
        return None
    names = [e.name for e in examples]
    key = KEYS["example"]
    if st.session_state.get(key) not in names:
        st.session_state[key] = names[0]
    titles = {e.name: e.shown_title for e in examples}
    name = st.selectbox(_("Example"), names, format_func=titles.get, key=key)
    st.caption(next(e.shown_description for e in examples if e.name == name))
    trace, _baseline = load_example(name)
    st.button(_("Change its settings and run it live"), key="playground_example_to_live", icon=":material/tune:",
              on_click=_copy_to_live, args=(trace,),
              help=_(COPY_HELP["instant" if trace.meta.get("pair") in INSTANT_PAIRS else "model"]))
    return trace, f"example:{name}"


def example_baseline(name: str | None) -> Trace | None:
    """The target-only recording of an example (None for an unknown name or one recorded without it)."""
    if not name:
        return None
    try:
        return load_example(name)[1]
    except ValueError:
        return None


def _copy_to_live(trace: Trace) -> None:
    values = settings_of(trace)
    if values is None:
        return
    for name, value in values.items():
        st.session_state[KEYS[name]] = value
    st.session_state[KEYS["source"]] = "live"


def uploaded_trace() -> tuple[Trace, str] | None:
    """A trace JSON from the learner's disk; a bad file is one sentence."""
    file = st.file_uploader(_("A trace saved from specviz (JSON)"), type=["json"], key="playground_upload",
                            help=_("Download one with the button at the bottom of this page, or with "
                                   "`python -m specviz generate --prompt \"...\" --json trace.json`."))
    if file is None:
        st.info(_("Choose a .json trace file to replay it here."))
        return None
    data = file.getvalue()
    try:
        trace = parsed_trace(data)
    except ValueError as exc:  # it may quote a value from the file (k: got '...'): shown literally
        st.error(escape_markdown(str(exc)))
        return None
    return trace, f"upload:{digest(data)}"


@st.cache_data(show_spinner=False, max_entries=16)
def parsed_trace(data: bytes) -> Trace:
    """An uploaded file parsed once (keyed by its content), not on every rerun of the page. `Trace.from_json`
    checks every field's type and size: an upload can say anything."""
    return Trace.from_json(data)
