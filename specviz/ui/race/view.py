"""The Timeline & race page's result: the measured speedup (the median of the rounds') with the words that explain
it, the rounds, and the charts and outputs of the round whose speedup is closest to that median.

The race is between two traces of the same prompt and settings: speculative decoding and specviz's target-only
decoding (the named baseline), from a shipped example or a live race (`specviz.ui.race.live`). The headline is the
median of the rounds' speedups with the spread of all rounds, and when the one-token forward itself ran far slower
than usual the page says the machine was busy instead of explaining the numbers (`specviz.labs.timeline.busy_note`).
The settings and their URL live in `specviz.ui.race.settings` and `specviz.ui.race.inputs`, the charts in
`specviz.ui.race.figures`, the outputs in `specviz.ui.race.outputs`.
"""

from __future__ import annotations

import math
import time

import pandas as pd
import streamlit as st

from specviz.core.i18n import _, ngettext, number, times
from specviz.labs.timeline import (ALPHA_ESTIMATE, ALPHA_NAME, BASELINE_NAME, RATIO_NAME, SPEEDUP_DEFINITION, RaceRounds,
                              alpha_note, busy_note, explain_race, length_note, measured_speedup, speed_decimals,
                              seconds_text, speedup_band, spread_sentence)
from specviz.engine.trace import Trace
from specviz.ui.common import charts
from specviz.ui.race.figures import (BASE_LANE, LANE_DASHES, LANES_TABLE_NOTE, PHASE_COLORS, PHASE_PATTERNS,
                                     SPEC_LANE, lane_tokens, lanes_table, phase_names, race_figure, swatches_html,
                                     token_lines, tokens_figure, tokens_table)
from specviz.ui.common.step_view import dtype_text
from specviz.ui.race.outputs import render_outputs
from specviz.ui.race.tree import CHAIN_LANE, render_lanes


def _tokens(trace) -> str:
    """A lane's output length: "1 token", "15 tokens"."""
    return ngettext("{n} token", "{n} tokens", trace.num_tokens)


def format_speedup(speedup: float) -> str:
    return times(speedup) if math.isfinite(speedup) else "–"


def rounds_table(rounds: RaceRounds, *, tree: bool = False, decimals: int | None = None) -> list[dict[str, object]]:
    """One row per round: which lane ran first, both speeds, the speedup and the median target-only step. With a
    tree lane (`tree`) the speculative lane is named as every other table and chart names it, the chain (read 45:
    "speculative" here beside "speculative, chain" in the lanes table left two speculative lanes unnamed apart)."""
    spec_lane = _(CHAIN_LANE) if tree else _(SPEC_LANE)
    spec_speed = _("tokens/s ({lane})", lane=spec_lane) if tree else _("speculative tokens/s")
    base_speed = _("tokens/s ({lane})", lane=_(BASE_LANE)) if tree else _("target only tokens/s")
    rows = []
    if decimals is None:  # one for the whole column: each row's speeds give its speedup
        decimals = speed_decimals(*rounds.rounds)
    for index, ((spec, base), forward) in enumerate(zip(rounds.rounds, rounds.forward_ms()), start=1):
        rows.append({_("round"): index, _("ran first"): spec_lane if index % 2 else _(BASE_LANE),
                     spec_speed: number(spec.tokens_per_second, decimals),
                     base_speed: number(base.tokens_per_second, decimals),
                     _("speedup"): format_speedup(measured_speedup(spec, base)),
                     # read 46: "one-token forward" beside the lanes table's "target forward (ms)", which leaves out
                     # the sampling this median holds (`RaceRounds.forward_ms`: each target-only step's time)
                     _("target-only step (median)"): _("{ms} ms", ms=number(forward, 1)) if math.isfinite(forward)
                     else "–"})
    return rows


def render_race(rounds: RaceRounds, *, usual_ms: float | None = None, measured_at: float | None = None,
                tree_lanes: tuple[Trace, ...] = ()) -> None:
    """Metrics (the median of the rounds' speedups with their spread, and the lanes' figures of the round closest to
    it), the explanation or the busy-machine note, the two charts and every lane's output. `measured_at` marks a
    live race (when it was measured); `tree_lanes` holds each round's tree lane when the race has one (that round's
    is drawn next to the chain)."""
    spec, base = rounds.typical
    tree = tree_lanes[rounds.rounds.index(rounds.typical)] if tree_lanes else None
    speedup = rounds.median_speedup
    several = len(rounds.rounds) > 1
    cols = st.columns(4)
    definition = _(SPEEDUP_DEFINITION)
    cols[0].metric(_("Measured speedup"), format_speedup(speedup),
                   help=" ".join((definition, _("The median of the rounds."))) if several else definition)
    # with several rounds the lanes' figures are one round's (`typical`), whose speedup need not be the median (of
    # two rounds the median is their mean): the help names the round, so their ratio is not read as the headline
    shown = (" " + _("Round {n}, the first of the rounds whose speedup is closest to the median ({speedup} here).",
                     n=rounds.rounds.index(rounds.typical) + 1, speedup=format_speedup(measured_speedup(spec, base)))
             if several else "")
    # so that the two speeds as written give the round's speedup, with the rounds table's decimals and the Chain
    # against tree table's (read 54: a live race's metric wrote round 2's speed "69.5" above the rounds table's
    # "69.52" for the same round): every lane of every round against its target-only lane
    decimals = speed_decimals(*rounds.rounds, *((lane, own) for lane, (_chain, own) in zip(tree_lanes, rounds.rounds)))
    cols[1].metric(_("Speculative, tokens/s"), number(spec.tokens_per_second, decimals),
                   help=_("{tokens} in {seconds} s, {steps} (each one target forward).", tokens=_tokens(spec),
                          seconds=seconds_text(spec.wall_seconds, spec.num_tokens, decimals),
                          steps=ngettext("{n} step", "{n} steps", spec.num_steps)) + shown)
    cols[2].metric(_("Target only, tokens/s"), number(base.tokens_per_second, decimals),
                   help=_("{tokens} in {seconds} s, one target forward per token.", tokens=_tokens(base),
                          seconds=seconds_text(base.wall_seconds, base.num_tokens, decimals)) + shown)
    cols[3].metric(_("Mean accepted length"), number(spec.mean_accepted_length),
                   help=_("Tokens per target pass: output tokens ÷ speculative steps, recovered and bonus tokens "
                          "included. Plain decoding: 1."))
    rate, alpha = spec.acceptance_rate, spec.mean_accept_prob
    acc = st.columns([1, 1, 2])
    acc[0].metric(_(RATIO_NAME).capitalize(), number(rate) if math.isfinite(rate) else "–",
                  help=_("Drafted tokens the target kept ÷ all drafted tokens, counting the drafts after a step's "
                         "first rejection as drafted."))
    acc[1].metric(_("{alpha}, estimated", alpha=ALPHA_NAME), number(alpha) if math.isfinite(alpha) else "–",
                  help=_(ALPHA_ESTIMATE))
    note = alpha_note(spec)
    if note:
        acc[2].caption(" ".join((note, _("The Theory explorer's α slider takes the estimate."))))
    sentences = [definition, _("Baseline: {baseline}.", baseline=_(BASELINE_NAME)),
                 _("Every lane computed in {dtype}.", dtype=dtype_text(spec.meta.get("dtype")))]
    if spec.meta.get("clock") == "cpu":
        sentences.append(_("This recording timed each step by CPU time on one thread (what wall time would be on an "
                           "idle machine), as `make traces` does by default, on any machine."))
    if several:
        # read 45: "the median round" was no round of two (their median is their mean): the charts show `typical`
        sentences += [spread_sentence(rounds), _("The charts show round {n}, the first of the rounds whose "
                                                 "speedup is closest to the median.",
                                                 n=rounds.rounds.index(rounds.typical) + 1)]
    if tree is not None and several:  # read 46: the table is one round's; its chain speedup need not be the median
        sentences.append(_("With a tree lane, the speedup and the speculative figures above are the chain lane's; "
                           "the Chain against tree table below gives every lane's in round {n}, the one the charts "
                           "show.", n=rounds.rounds.index(rounds.typical) + 1))
    elif tree is not None:  # read 45: "Speculative" and the speedup above are the chain lane's, not the tree's
        sentences.append(_("With a tree lane, the speedup and the speculative figures above are the chain lane's; "
                           "the Chain against tree table below gives the tree lane's."))
    if measured_at is not None:
        # read 55: a recording names its clock (CPU time, above); a live race said nothing of its own: `run`'s
        # default clock, `specviz.engine.generation.default_clock`
        sentences.append(_("This race timed each step on the wall clock (`time.perf_counter`: elapsed time, so "
                           "whatever else this server ran at the time counts too), not by CPU time as the recorded "
                           "examples do."))
        sentences.append(_("Measured at {clock} UTC, not from a cache: press **Run the race** to measure again.",
                           clock=time.strftime("%H:%M:%S", time.gmtime(measured_at))))  # the server's zone is not yours
    st.caption(" ".join(sentences))
    busy = busy_note(rounds, usual_ms) if measured_at is not None else None
    if busy:
        st.warning(busy)
    else:
        explanation = explain_race(spec, base)
        # read 47: the verdict is the charts' round's (its speedup, its costs), and of two rounds that is not the
        # median: "About a tie (1.00×)" sat in a green box under a headline of 1.06×. The box says whose verdict it
        # is and takes the colour of its own words
        verdict = measured_speedup(spec, base)
        if several:
            explanation = " ".join((_("This verdict is round {n}'s, the one the charts show; the measured speedup "
                                      "above is the median of the rounds.", n=rounds.rounds.index(rounds.typical) + 1),
                                    explanation))
        if not math.isfinite(verdict):  # a lane cut short: no verdict to colour
            st.info(explanation)
        else:
            {"won": st.success, "tie": st.info, "lost": st.warning}[speedup_band(verdict)](explanation)
    notes = [length_note(spec, base, chain=tree is not None),
             *([length_note(tree, base, tree=True)] if tree is not None else [])]
    for note in filter(None, notes):
        st.caption(note)
    if several:
        rows = rounds_table(rounds, tree=tree is not None, decimals=decimals)
        st.table(pd.DataFrame(rows).set_index(_("round")))  # wraps on a phone; no hover needed
    if tree is not None:
        render_lanes(spec, tree, base, decimals)

    # read 50: "the number on it" stood over segments Plotly leaves unlabelled where "+n" does not fit (7 of the toy
    # example's 12 steps labelled at 1,400 px, 5 of Medusa's 33), and beside drafting too thin to draw (n-gram
    # lookup's 0.5 ms of a 111 ms step on average, the default example's)
    st.markdown(_("**Where the time went.** Each speculative step is an orange, striped drafting segment followed "
                  "by one solid blue target forward that checks all the drafts; the number on it, where the segment "
                  "is wide enough to hold it, is how many tokens the step emitted. A segment far shorter than the run "
                  "(n-gram lookup's or Medusa's drafting, the rest of a step) is too thin to see. The bottom lane is "
                  "plain decoding: one solid blue forward per token. A hatched grey segment at a lane's end is the "
                  "run's time that no step's timer counted (the loop between steps), so each lane ends at the time "
                  "its tokens/s divides by, on the clock that timed it. Hover or tap a segment for its numbers; "
                  "\"The numbers in this chart\" lists every step's."))
    names = phase_names(tree is not None)  # read 54: the tree lane's nodes only where there is one
    st.html(swatches_html([(_(names[p]), PHASE_COLORS[p]) for p in names],
                          patterns=[PHASE_PATTERNS[p] for p in names]))
    charts.show(race_figure(spec, base, tree), key="race_lanes", table=lanes_table(spec, base, tree),
                name=_("Where the time went: every step of each lane on one time axis"), note=_(LANES_TABLE_NOTE))
    # read 52: "steps where several drafts were accepted at once" of every steep jump, though a jump of 2 tokens is
    # one kept draft and the recovered or bonus token the target adds in every step. Read 53: a last step with one
    # token left to write drafts nothing, and its token is the target's own (the outputs box's "target" chip), neither
    # recovered nor bonus (the EAGLE and both separate-draft examples end so)
    st.markdown(_("**How the output grew.** Each jump of a speculative line is one step: the drafted (or copied) "
                  "tokens the target kept, plus the one token it adds (recovered or bonus, or its own token in a "
                  "step that drafted nothing), so a jump of n tokens kept n − 1, unless the end of the text cut the "
                  "step short. The target-only line climbs one token per forward."))
    lines = token_lines(spec, base, tree)
    st.html(swatches_html([(lane_tokens(lane, trace.num_tokens), color) for trace, lane, color in lines], line=True,
                          dashes=[LANE_DASHES[lane] for _trace, lane, _color in lines]))
    charts.show(tokens_figure(spec, base, tree), key="race_tokens", table=tokens_table(spec, base, tree),
                name=_("How the output grew: output tokens against time, one line per lane"))
    render_outputs(spec, base, tree)
