"""Timeline & race: a live race, measured anew on every press of Run. Speculative decoding and specviz's target-only
decoding (the named baseline) run the same prompt and settings: a warm-up, then the page's rounds
(`specviz.ui.race.settings.ROUNDS_BY_PAIR`: 3 for the toy pair, 2 for SmolLM2; ROUNDS when none are given) with
the lanes interleaved, each round holding the model's turn so no other visitor's run lands inside it. The quickest
one-token forward seen so far is kept per (pair, device), so a later race can tell a busy machine
(`specviz.labs.timeline.busy_note`) and the Models page can scale it to a bigger model.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import streamlit as st

from specviz.core.i18n import N_, _
from specviz.engine.trace import Trace
from specviz.labs.timeline import RaceRounds
from specviz.runs.running import run, run_target_only
from specviz.runs.runspec import RunSpec
from specviz.ui.common.runs import get_pair, quiet_forwards, turn_deadline, waiting_note, with_turn
from specviz.ui.race.tree import has_tree_lane, lane_specs

ROUNDS = 3  # rounds of a live race when the caller names none (the page passes ROUNDS_BY_PAIR's)
RESULT_KEY = "race_result"  # session key: the last live race measured in this session (a LiveRace)


def race_specs(settings: RunSpec) -> tuple[RunSpec, RunSpec]:
    """(the warm-up's spec, the race's spec): a press of Run runs both."""
    return replace(settings, max_new_tokens=2), settings


@dataclass(frozen=True)
class LiveRace:
    """A live race as it was measured: the settings, the rounds, when, and the usual forward cost known before."""

    settings: RunSpec
    rounds: RaceRounds
    measured_at: float  # time.time()
    usual_ms: float | None = None
    tree: tuple[Trace, ...] = ()  # the tree lane of each round, when the race has one


def measure_race(settings: RunSpec, rounds: int = ROUNDS) -> LiveRace:
    """Measure the race now, never from a cache: a warm-up of every lane (so none pays the first call), then
    `rounds` rounds, speculative first in odd rounds and target-only first in even ones (a tree lane, when the
    settings ask for one, runs between them). Each round holds the pair's turn. ValueError (one sentence) on bad
    input or a model that stays busy."""
    loading = st.empty()
    with loading.container():  # the status box of a first load, gone once the models are in
        get_pair(settings.pair)
    loading.empty()
    warm, settings = race_specs(settings)
    chain, tree = lane_specs(settings)
    lanes = {"speculative": (run, chain), "tree": (run, tree), "target-only": (run_target_only, chain)}
    if not has_tree_lane(settings):
        del lanes["tree"]
    warm_lanes = [(fn, replace(spec, max_new_tokens=warm.max_new_tokens)) for fn, spec in lanes.values()]
    bar = st.progress(0.0, text=_("Warming up every lane...") + waiting_note(settings.pair))
    def warm_up(pair) -> str:
        for fn, spec in warm_lanes:
            fn(spec, pair=pair, deadline=turn_deadline())
        return pair.device.type

    device = with_turn(settings.pair, warm_up)
    running = {"speculative": N_("Round {index} of {rounds}: speculative decoding..."),
               "target-only": N_("Round {index} of {rounds}: target-only decoding..."),
               "tree": N_("Round {index} of {rounds}: speculative decoding with a draft tree...")}
    measured, trees = [], []
    for index in range(rounds):
        order = list(lanes) if index % 2 == 0 else list(lanes)[::-1]

        def one_round(pair, index=index, order=order) -> dict[str, Trace]:
            traces = {}
            for done, lane in enumerate(order):
                bar.progress((len(order) * index + done) / (len(order) * rounds),
                             text=_(running[lane], index=index + 1, rounds=rounds))
                fn, spec = lanes[lane]
                # every lane the same token budget and its own time: a lane that still hits the limit is cut short,
                # and the race draws nothing from it (`specviz.labs.timeline.cut_short`)
                traces[lane] = fn(spec, pair=pair, deadline=turn_deadline())
            return traces

        bar.progress(index / rounds, text=_("Round {index} of {rounds}: waiting for the model...",
                                            index=index + 1, rounds=rounds) + waiting_note(settings.pair))
        traces = with_turn(settings.pair, one_round)
        measured.append((traces["speculative"], traces["target-only"]))
        trees.append(traces.get("tree"))
    bar.empty()
    result = RaceRounds(tuple(measured))
    known, where = quiet_forwards(), (settings.pair, device)
    usual = known.get(where)
    quick = result.quick_forward_ms()
    if math.isfinite(quick):
        known[where] = min(quick, usual) if usual is not None else quick
    return LiveRace(settings, result, time.time(), usual, tuple(t for t in trees if t is not None))
