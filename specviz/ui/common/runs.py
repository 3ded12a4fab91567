"""Runs for the pages: the library's `run()` and its one pair cache, plus what a shared server needs around them.

Pairs come from `specviz.runs.running.PAIRS` (one copy per server process, shared by every session; a pair loaded by
hand on the Models page is put there too). A class of 30 may press Run at once, so a run takes the pair's turn (first
come, first served; the page says how many runs are ahead), gives up with one sentence after WAIT_SECONDS, stops
cleanly after RUN_SECONDS with its partial trace (a race gives each of its lanes RUN_SECONDS of its own:
`turn_deadline`), and a session waits COOLDOWN_SECONDS between two new runs and holds or waits for one turn at a
time. A shared link runs on open only what is light (`is_light`) or cached. Traces of both lanes (speculative and
target-only) are cached by their `RunSpec` (same spec, same seed = same trace): a cached one is instant and takes no
turn. A run the time limit cut short, in either lane, is not cached (`_keep`): where it stopped says how busy the
server was.

A new speculative run can report each step as it is decided (`run_speculative(spec, progress=...)`, see
`Progress`), so the page draws tokens while the model works. The loading of a pair is timed: its status box counts
the seconds, and says how long the last load on this server took.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Protocol

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from specviz.core.i18n import N_, _, ngettext, number
from specviz.engine.kinds import StopReason
from specviz.engine.recording import StepOutcome
from specviz.engine.trace import Trace
from specviz.models.pairs import Pair
from specviz.runs.running import DTYPE_MARK, PAIRS, run, run_target_only
from specviz.runs.runspec import RunSpec

log = logging.getLogger(__name__)

INSTANT_PAIRS = ("toy",)  # built in code in a blink: no status box
LINK_PAIRS = ("toy",)  # light enough that a shared link may run them on open (`is_light`)
WAIT_SECONDS = 90.0  # the longest a visitor waits for the model before being told it is busy
RUN_SECONDS = 60.0  # a live run past this stops with what it has ("deadline")
COOLDOWN_SECONDS = 3.0  # between two new live runs of one session
TICK_SECONDS = 0.5  # how often the loading box updates its clock
_LAST_RUN = "runs_last_started"  # session key: when this session last started new work
_SEEN = "runs_seen"  # session key: the specs this session has computed (cached: free to show again)
_LOAD_SECONDS: dict[str, float] = {}  # pair name -> how long its last load on this server took (measured)

# Every sentence this module shows, in one place (English messages with named placeholders: `_()` translates them
# where they are shown; seconds are passed already written as the reader writes numbers).
TEXT = {
    "loading": N_("Loading {pair}: {seconds} s so far."),
    "loading_last": N_("Loading {pair}: {seconds} s so far (the last load here took {last} s)."),
    "loading_note": N_("The models load once per server and then stay in memory. The very first load on a machine "
                       "also converts SmolLM2's GGUF weights to float32 files that load faster, so it takes longest."),
    "loading_note_other": N_("The models load once per server and then stay in memory."),
    "ready": N_("Ready: {pair} (loaded in {seconds} s)."),
    "running_speculative": N_("Running speculative decoding...{waiting}"),
    "running_target": N_("Running target-only decoding...{waiting}"),
    "cooldown": N_("One new live run every {seconds} s: start another in a moment."),
    "preloading": N_("Loading the SmolLM2 models in the background ({seconds} s so far), so a live run can start "
                     "at once; recorded examples work now."),
    "preload_failed": N_("The background load failed ({pair}); a live run will try again and say why."),
    "pair_by_name": N_("the pair '{name}'"),
    "pair_in_dtype": N_("{pair}, in {dtype}"),
}
# The pairs' names as the Playground's Models menu writes them (read 51: the loading box said "Models 'default'
# ready" beside a menu that calls that pair "SmolLM2-135M-Instruct (real model)"); `pair_title` writes any other.
PAIR_TITLES = {"default": N_("SmolLM2-135M-Instruct (real model)"), "toy": N_("Toy pair (tiny, instant)")}
PRELOAD_PAIR = "default"  # loaded in the background when the app starts (SPECVIZ_PRELOAD=0 turns it off)
_PRELOAD: dict[str, float] = {}  # pair name -> when its background load started (one per server process)
_PRELOAD_LOCK = threading.Lock()
_PRELOAD_FAILED: set[str] = set()  # the pairs whose background load failed (the console says why)


class Progress(Protocol):
    """What a page draws while a new speculative run is computed (`run_speculative(spec, progress=...)`)."""

    def waiting(self, ahead: int) -> None:
        """Other runs hold or wait for the model: `ahead` of them go first."""

    def started(self, pair: Pair) -> None:
        """This run has the model now (the pair's tokenizer can turn draft ids into text)."""

    def step(self, outcome: StepOutcome) -> None:
        """One step was decided (its emitted tokens already carry their text)."""


# ---- loading --------------------------------------------------------------------------------------------------
def preload(name: str = PRELOAD_PAIR) -> bool:
    """Start loading `name` in a background thread, once per server process, so the first live run does not wait
    for the model (a first load with an empty cache, in bfloat16: 21 s on the 2-core machine of
    assets/benchmarks/presets/presets.json, at load average 1.6). True when this call started it. Off with
    SPECVIZ_PRELOAD=0."""
    if os.environ.get("SPECVIZ_PRELOAD", "1").strip() == "0" or name in INSTANT_PAIRS:
        return False
    with _PRELOAD_LOCK:
        if name in _PRELOAD or PAIRS.loaded(name) is not None:
            return False
        _PRELOAD[name] = time.monotonic()

    def load() -> None:
        start = time.monotonic()
        try:
            PAIRS.get(name)  # a page that asks meanwhile waits for this load (PairCache: one load per name)
            _LOAD_SECONDS[name] = time.monotonic() - start
        except Exception as exc:  # noqa: BLE001 - the page that needs the pair loads it again and reports the error
            log.warning("specviz: the background load of the %r models failed: %s", name, exc)
            _PRELOAD_FAILED.add(name)  # the sidebar, which every visitor sees, says no more

    threading.Thread(target=load, name=f"specviz-preload-{name}", daemon=True).start()
    return True


def preload_note(name: str = PRELOAD_PAIR) -> str | None:
    """One sentence while the background load of `name` is running (None before it started and once it is done)."""
    started = _PRELOAD.get(name)
    if started is None or PAIRS.loaded(name) is not None or name in _LOAD_SECONDS or name in _PRELOAD_FAILED:
        return None
    return _(TEXT["preloading"], seconds=number(time.monotonic() - started, 0))


def preload_ready_note(name: str = PRELOAD_PAIR) -> str | None:
    """Once the background load of `name` has finished: the sentence that says so, with its measured seconds (or
    why it failed, until a later load succeeds)."""
    if name in _PRELOAD_FAILED and PAIRS.loaded(name) is None:
        return _(TEXT["preload_failed"], pair=pair_title(name))
    seconds = _LOAD_SECONDS.get(name)
    return None if seconds is None else _(TEXT["ready"], pair=pair_title(name), seconds=number(seconds, 0))


def get_pair(name: str) -> Pair:
    """The loaded pair. A slow first load runs beside a status box that counts the seconds (and says how long the
    last load on this server took), so the wait on screen is measured, not guessed. A page that asks while the
    background load (`preload`) runs waits for that load, so its box counts from when that load started (read 48:
    it counted from the page's request, so "loaded in" gave only the seconds this page waited)."""
    if name.partition(DTYPE_MARK)[0] in INSTANT_PAIRS or PAIRS.loaded(name) is not None:  # toy@float32 too
        return PAIRS.get(name)
    result: dict[str, object] = {}

    def load() -> None:
        try:
            result["pair"] = PAIRS.get(name)
        except BaseException as exc:  # handed to the page's thread, which raises it
            result["error"] = exc

    background = _PRELOAD.get(name) if preload_note(name) is not None else None
    start = time.monotonic() if background is None else background
    worker = threading.Thread(target=load, name=f"specviz-load-{name}", daemon=True)
    worker.start()
    with st.status(loading_label(name, time.monotonic() - start), expanded=False) as status:
        st.caption(loading_note(name))
        while worker.is_alive():
            worker.join(TICK_SECONDS)
            status.update(label=loading_label(name, time.monotonic() - start))
        if "error" in result:
            status.update(state="error")
            raise result["error"]  # type: ignore[misc]
        seconds = time.monotonic() - start
        _LOAD_SECONDS[name] = seconds
        status.update(label=_(TEXT["ready"], pair=pair_title(name), seconds=number(seconds, 0)), state="complete")
    return result["pair"]  # type: ignore[return-value]


def loading_note(name: str) -> str:
    """The loading box's note. Only the default pair converts anything (its GGUF target, once per cache): a pair
    loaded by hand on the Models page, reloaded here after the cache dropped it, reads its files as they are (read
    47: the note said "converts the weights to a faster format" for every pair, a format that runs no faster)."""
    default = name.partition(DTYPE_MARK)[0] == PRELOAD_PAIR
    return _(TEXT["loading_note"] if default else TEXT["loading_note_other"])


def loading_label(name: str, seconds: float) -> str:
    """The loading box's line: the seconds so far, and the last measured load of this pair on this server."""
    last = _LOAD_SECONDS.get(name)
    if last is None:
        return _(TEXT["loading"], pair=pair_title(name), seconds=number(seconds, 0))
    return _(TEXT["loading_last"], pair=pair_title(name), seconds=number(seconds, 0), last=number(last, 0))


def pair_title(name: str) -> str:
    """A pair as the reader knows it: the Models menu's label for a built-in pair, "the pair 'x'" for one loaded by
    its name, with the dtype where the name asks for one ("default@float32": the Exactness lab's float32 demo)."""
    base, _mark, dtype = name.partition(DTYPE_MARK)
    title = _(PAIR_TITLES[base]) if base in PAIR_TITLES else _(TEXT["pair_by_name"], name=base)
    return _(TEXT["pair_in_dtype"], pair=title, dtype=dtype) if dtype else title


@st.cache_resource(show_spinner=False)
def quiet_forwards() -> dict[tuple[str, str], float]:
    """(pair name, device type) -> the quickest one-token forward of its target measured by any race in this server
    process (ms): what a forward costs here when nothing interferes, so a later race on a busy machine can tell (and
    the Models page can scale it to a bigger model)."""
    return {}


def last_load_seconds(name: str) -> float | None:
    """How long the last load of this pair on this server took, if it was loaded here."""
    return _LOAD_SECONDS.get(name)


# ---- the shared model ---------------------------------------------------------------------------------------------


def owner() -> str:
    """Whose turn it is: this browser session (a visitor holds or waits for one turn at a time; see
    `specviz.runs.running.Turns`)."""
    ctx = get_script_run_ctx()
    return f"session:{ctx.session_id}" if ctx is not None else "no session"


def with_turn(name: str, work: Callable[[Pair], object]) -> object:
    """`work(pair)` while holding the pair's turn (a Busy ValueError after WAIT_SECONDS in the queue, or at once
    when this session already waits or runs). For every page that computes on a shared model: the labs as well as
    the runs. A `work` that runs several generations (a race's lanes) gives each its own deadline from
    `turn_deadline()`."""
    pair = PAIRS.get(name)
    with PAIRS.turn(name, timeout=WAIT_SECONDS, owner=owner()):
        return work(pair)


def turn_deadline() -> float:
    """The deadline of one generation that starts now: RUN_SECONDS from now. A race calls it once per lane, its
    warm-ups included (`specviz.ui.race.live`: lanes that shared one deadline let target-only decoding run one token
    while the speculative lane used the time, issue 42), so one turn of a race may hold the model for RUN_SECONDS
    per lane it runs."""
    return time.perf_counter() + RUN_SECONDS


def is_light(spec: RunSpec) -> bool:
    """Whether a link may run this spec on open, without a click: the instant toy pair (a cached trace is free
    anyway). Anything heavier waits for the visitor's press, so a link cannot hold the shared model."""
    return spec.pair in LINK_PAIRS


def waiting_note(name: str) -> str:
    """" (2 runs ahead of you)" while others hold or wait for the model, else ""."""
    ahead = PAIRS.ahead(name)
    if not ahead:
        return ""
    return " " + ngettext("({n} run ahead of you)", "({n} runs ahead of you)", ahead)


def start_live_run(*specs: RunSpec) -> None:
    """Call once per press of a Run button, with the specs the press will compute: a ValueError with one sentence if
    this session started new work less than COOLDOWN_SECONDS ago (specs already computed for it cost nothing)."""
    if all(_seen(spec) for spec in specs):
        return
    now = time.monotonic()
    last = st.session_state.get(_LAST_RUN)
    if last is not None and now - last < COOLDOWN_SECONDS:
        seconds = number(COOLDOWN_SECONDS, 0 if COOLDOWN_SECONDS.is_integer() else 1)
        raise ValueError(_(TEXT["cooldown"], seconds=seconds))
    st.session_state[_LAST_RUN] = now


def _seen(spec: RunSpec) -> bool:
    return spec in st.session_state.get(_SEEN, set())


# ---- the two kinds of run -----------------------------------------------------------------------------------------


class _NotCached(LookupError):
    """Raised inside `_trace_store` to look a spec up without computing it (exceptions are never cached)."""


SPECULATIVE, TARGET_ONLY = "speculative", "target-only"  # the two lanes a page runs, each with its traces stored


@st.cache_data(show_spinner=False, max_entries=128)
def _trace_store(lane: str, spec: RunSpec, _trace: Trace | None = None) -> Trace:
    """The cache of both lanes' traces, keyed by lane and spec. Called with `_trace` it stores that trace (on a
    miss); without, it looks the spec up. The run itself happens outside (`_keep` decides what is stored), so a page
    can draw a speculative run step by step."""
    if _trace is None:
        raise _NotCached
    return _trace


def _cached(lane: str, spec: RunSpec) -> Trace | None:
    try:
        return _trace_store(lane, spec)
    except _NotCached:
        return None


def _keep(lane: str, spec: RunSpec, trace: Trace) -> Trace:
    """Store a new trace as the spec's run, unless the time limit cut it short: where it stopped depends on how busy
    the server was, not on the spec, so it is shown to the session that ran it and the next press or visitor of the
    same link runs it again (read 46: the docs' owls link runs 15 steps; cut after 8 on a busy server, it read
    "Passo 2 de 8", and every later visitor got those 8 from the cache). One rule for both lanes (read 47: the
    target-only lane cut short was stored)."""
    if trace.stop_reason == StopReason.DEADLINE:
        return trace
    return _trace_store(lane, spec, trace)


def cached_speculative(spec: RunSpec) -> Trace | None:
    """The trace of this spec if some session computed it already (instant, takes no turn), else None."""
    return _cached(SPECULATIVE, spec)


def cached_target_only(spec: RunSpec) -> Trace | None:
    """The target-only trace of this spec if some session computed it already, else None."""
    return _cached(TARGET_ONLY, spec)


def run_speculative(spec: RunSpec, progress: Progress | None = None) -> Trace:
    """The speculative trace for this spec (ValueError with one sentence on bad input or a busy model). A cached
    one comes back at once; a new one is computed on the pair's turn and, with `progress`, drawn step by step."""
    trace = cached_speculative(spec)
    if trace is None:
        pair = get_pair(spec.pair)
        # without a progress display, a spinner says what runs; with one, it reports waiting, start and each step
        shown = (st.spinner(_(TEXT["running_speculative"], waiting=waiting_note(spec.pair))) if progress is None
                 else contextlib.nullcontext())
        with shown, PAIRS.turn(spec.pair, timeout=WAIT_SECONDS, on_wait=progress.waiting if progress else None,
                               owner=owner()):
            if progress is not None:
                progress.started(pair)
            trace = run(spec, pair=pair, deadline=time.perf_counter() + RUN_SECONDS,
                        on_step=progress.step if progress else None)
        trace = _keep(SPECULATIVE, spec, trace)
    st.session_state.setdefault(_SEEN, set()).add(spec)
    return trace


def run_autoregressive(spec: RunSpec) -> Trace:
    """The target-only trace for the same spec (the race's other lane): cached like a speculative one."""
    trace = cached_target_only(spec)
    if trace is None:
        get_pair(spec.pair)
        with st.spinner(_(TEXT["running_target"], waiting=waiting_note(spec.pair))):
            trace = with_turn(spec.pair, lambda pair: run_target_only(spec, pair=pair,
                                                                      deadline=time.perf_counter() + RUN_SECONDS))
        trace = _keep(TARGET_ONLY, spec, trace)
    st.session_state.setdefault(_SEEN, set()).add(spec)
    return trace
