"""The Timeline & race page's pieces: settings bound to the URL, the two-lane race chart, tokens over time,
the measured speedup and the words that explain it.

The race is between two traces of the same prompt and settings: speculative decoding and specviz's target-only
decoding (the named baseline). Both come from a shipped example, or from a live race measured anew on every press of
Run: a warm-up, then ROUNDS rounds with the lanes interleaved, each round holding the model's turn so no other
visitor's run lands inside it. The headline is the median round with the spread of all rounds, and when the
one-token forward itself ran far slower than usual the page says the machine was busy instead of explaining the
numbers (`specviz.timeline.busy_note`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from specviz.examples import list_examples, load_example
from specviz.i18n import N_, _, ngettext, number, times
from specviz.running import run, run_target_only
from specviz.runspec import SETTINGS, WEB_MAX_NEW_TOKENS, RunSpec
from specviz.timeline import (ALPHA_ESTIMATE, ALPHA_NAME, BASELINE_NAME, RATIO_NAME, SPEEDUP_DEFINITION, Interval,
                              RaceRounds, alpha_note, busy_note, explain_race, length_note, measured_speedup,
                              spread_sentence, step_intervals, tokens_over_time)
from specviz.trace import TokenKind, Trace
from specviz.ui import charts
from specviz.ui.escaping import escape_text
from specviz.ui.palette import COLORS, LIGHT_GREY, P_COLOR, Q_COLOR, legend_html
from specviz.ui.runs import RUN_SECONDS, get_pair, waiting_note, with_turn
from specviz.ui.tokens import output_html
from specviz.ui.tree_race import CHAIN_LANE, TREE_FIELDS, TREE_LANE, has_tree_lane, lane_specs, render_lanes, tree_inputs

# The words below are marked with N_() and translated with _() where they are shown (never at import).
SPEC_LANE, BASE_LANE = N_("speculative"), N_("target only")
PHASE_COLORS = {"prefill": LIGHT_GREY, "draft": Q_COLOR, "verify": P_COLOR, "overhead": "#333333"}
PHASE_NAMES = {"prefill": N_("prefill (read the prompt)"), "draft": N_("draft: propose K tokens"),
               "verify": N_("target forward pass"), "overhead": N_("sampling and bookkeeping")}
PROPOSERS = {"toy": ("draft", "ngram", "layerskip"), "default": ("eagle", "draft", "layerskip", "ngram")}
PROPOSER_LABELS = {"draft": N_("draft model"), "ngram": N_("n-gram lookup (no model)"),
                   "layerskip": N_("layer-skip self-draft"), "eagle": N_("EAGLE feature drafter (trained)")}
PAIR_LABELS = {"toy": N_("toy pair (instant, random weights)"), "default": N_("SmolLM2-135M (real, ~20 s first load)")}
SOURCES = {"example": N_("Recorded example (instant)"), "live": N_("Live run")}


# ---- settings bound to the URL -----------------------------------------------------------------------------------
DEFAULTS = RunSpec(pair="toy", proposer="draft", prompt="the quick brown fox jumps over the lazy dog. the quick", k=4,
                   max_new_tokens=48, temperature=1.0)
# widget key (also its URL parameter) -> the RunSpec field it holds; checked by RunSpec, refused, never clamped
RUN_FIELDS = {"race_pair": "pair", "race_proposer": "proposer", "race_prompt": "prompt", "race_k": "k",
              "race_max_new": "max_new_tokens", "race_temperature": "temperature", "race_seed": "seed",
              **TREE_FIELDS}
PAGE_FIELDS = {"race_source": "example", "race_example": ""}  # the page's own settings and their defaults


def parse_url(params: dict[str, str]) -> tuple[dict[str, object], list[str]]:
    """(widget values from the URL's usable parameters, names of the unusable ones).

    >>> parse_url({"race_k": "40", "race_seed": "5", "race_source": "live"})
    ({'race_source': 'live', 'race_seed': 5}, ['k'])
    """
    values: dict[str, object] = {}
    bad: list[str] = []
    if "race_source" in params:
        if params["race_source"] in SOURCES:
            values["race_source"] = params["race_source"]
        else:
            bad.append("source")
    if "race_example" in params:
        values["race_example"] = str(params["race_example"])  # checked against the installed examples when shown
    for key, field in RUN_FIELDS.items():
        if key not in params:
            continue
        spec, problems = RunSpec.parse_query({field: params[key]}, DEFAULTS)
        value = getattr(spec, field)
        offered = (field != "pair" or value in PROPOSERS) and (field != "max_new_tokens" or value <= WEB_MAX_NEW_TOKENS)
        if problems or not offered:
            bad.append(key.removeprefix("race_"))
        else:
            values[key] = value
    return values, bad


def init_from_url() -> list[str]:
    """Fill session state from the URL once per session; returns the names of URL values that were unusable."""
    if "race_url_read" in st.session_state:
        return []
    st.session_state["race_url_read"] = True
    values, bad = parse_url({k: st.query_params[k] for k in st.query_params})
    defaults = {**PAGE_FIELDS, **{key: getattr(DEFAULTS, field) for key, field in RUN_FIELDS.items()}}
    for key, default in defaults.items():
        st.session_state.setdefault(key, values.get(key, default))
    return bad


def write_url() -> None:
    """Put the settings in use into the URL (the example's name, or the live-run settings), so the page can be
    shared or reloaded as it is."""
    source = st.session_state.get("race_source", "example")
    used = {"race_source", "race_example"} if source == "example" else {"race_source", *RUN_FIELDS}
    if not st.session_state.get("race_tree_nodes"):  # no tree lane: chain links stay as they were
        used -= set(TREE_FIELDS)
    for key in (*PAGE_FIELDS, *RUN_FIELDS):
        if key not in used:
            if key in st.query_params:
                del st.query_params[key]
            continue
        value = st.session_state.get(key)
        text = f"{value:g}" if isinstance(value, float) else str(value)
        if st.query_params.get(key) != text:
            st.query_params[key] = text


# ---- inputs -------------------------------------------------------------------------------------------------------
def source_picker() -> str:
    return st.radio(_("What to race"), list(SOURCES), format_func=lambda key: _(SOURCES[key]), horizontal=True,
                    key="race_source")


def example_picker() -> tuple[Trace, Trace] | None:
    """The recorded examples that have a target-only twin; returns the chosen pair of traces."""
    examples = [e for e in list_examples() if e.baseline_path is not None]
    if not examples:
        st.error(_("No recorded examples with a target-only trace are installed; run `make traces` or pick a live "
                   "run."))
        return None
    names = [e.name for e in examples]
    asked = st.session_state.get("race_example")
    if asked not in names:
        if asked:
            st.error(_("The link names a recorded example that does not exist, so the first one is shown instead."))
        st.session_state["race_example"] = names[0]
    titles = {e.name: e.shown_title for e in examples}  # in the reader's language
    name = st.selectbox(_("Example"), names, format_func=titles.get, key="race_example")
    spec, base = load_example(name)
    description = next(e.shown_description for e in examples if e.name == name)
    recorded = spec.meta.get("recorded", "")
    recorded_note = _("Recorded {when} on a CPU; the times are that machine's.", when=recorded) if recorded else ""
    st.caption(" ".join(text for text in (description, recorded_note) if text))
    return spec, base


def live_settings() -> RunSpec | str:
    """The live-run widgets; returns the spec they describe (the race runs only when asked), or the sentence that
    says why they cannot run."""
    left, right = st.columns([1, 2])
    pair = left.selectbox(_("Models"), list(PROPOSERS), format_func=lambda key: _(PAIR_LABELS[key]), key="race_pair")
    proposers = PROPOSERS[pair]
    if st.session_state.get("race_proposer") not in proposers:
        st.session_state["race_proposer"] = proposers[0]
    proposer = left.selectbox(_("Who drafts"), proposers, format_func=lambda key: _(PROPOSER_LABELS[key]),
                              key="race_proposer")
    prompt = right.text_area(_("Prompt"), key="race_prompt", height=100)
    c1, c2, c3, c4 = st.columns(4)
    k = c1.slider(_("K (drafts per step)"), *SETTINGS["k"].bounds, key="race_k")
    max_new = c2.slider(_("Max new tokens"), SETTINGS["max_new_tokens"].lo, WEB_MAX_NEW_TOKENS, key="race_max_new")
    temperature = c3.slider(_("Temperature"), *SETTINGS["temperature"].bounds, step=0.05, key="race_temperature")
    seed = int(c4.number_input(_("Seed"), *SETTINGS["seed"].bounds, step=1, key="race_seed"))
    tree_nodes, tree_width = tree_inputs(proposer)
    try:
        return RunSpec(pair=pair, proposer=proposer, prompt=prompt, k=k, max_new_tokens=max_new,
                       temperature=float(temperature), seed=seed, tree_nodes=tree_nodes, tree_width=tree_width)
    except ValueError as exc:
        return str(exc)


def race_specs(settings: RunSpec) -> tuple[RunSpec, RunSpec]:
    """(the warm-up's spec, the race's spec): a press of Run runs both."""
    return replace(settings, max_new_tokens=2), settings


ROUNDS = 3  # rounds of a live race; the page shows their median and spread
RESULT_KEY = "race_result"  # session key: the last live race measured in this session (a LiveRace)


@dataclass(frozen=True)
class LiveRace:
    """A live race as it was measured: the settings, the rounds, when, and the usual forward cost known before."""

    settings: RunSpec
    rounds: RaceRounds
    measured_at: float  # time.time()
    usual_ms: float | None = None
    tree: tuple[Trace, ...] = ()  # the tree lane of each round, when the race has one


@st.cache_resource(show_spinner=False)
def quiet_forwards() -> dict[tuple[str, str], float]:
    """(pair name, device type) -> the quickest one-token forward of its target measured by any race in this server
    process (ms): what a forward costs here when nothing interferes, so a later race on a busy machine can tell (and
    the Models page can scale it to a bigger model)."""
    return {}


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
    bar = st.progress(0.0, text=_("Warming up both lanes...") + waiting_note(settings.pair))
    device = with_turn(settings.pair, lambda pair: ([fn(spec, pair=pair) for fn, spec in warm_lanes],
                                                    pair.device.type)[-1])
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
                traces[lane] = fn(spec, pair=pair, deadline=time.perf_counter() + RUN_SECONDS)
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


# ---- charts -------------------------------------------------------------------------------------------------------
def _ms(seconds: float) -> str:
    """Milliseconds for a hover, in the reader's number format (up to two decimals)."""
    return number(round(1000 * seconds, 2), 2)


def _lane_bars(fig: go.Figure, lane: str, bars: list[Interval], *, speculative: bool, legend: set[str]) -> None:
    """Add one lane: the prefill, then each step's draft, verify and overhead segments."""
    segments: dict[str, list[tuple[float, float, Interval]]] = {"prefill": [], "draft": [], "verify": [],
                                                                 "overhead": []}
    for bar in bars:
        if bar.phase == "prefill":
            segments["prefill"].append((bar.start, bar.end, bar))
            continue
        segments["draft"].append((bar.start, bar.draft_end, bar))
        segments["verify"].append((bar.draft_end, bar.verify_end, bar))
        segments["overhead"].append((bar.verify_end, bar.end, bar))
    names = {phase: _(name) for phase, name in PHASE_NAMES.items()}
    for phase, segs in segments.items():
        segs = [s for s in segs if s[1] > s[0]]
        if not segs:
            continue
        if phase == "prefill":
            hover = [_("<b>{lane}</b><br>prefill: {ms} ms", lane=lane, ms=_ms(e - s)) for s, e, _b in segs]
        elif speculative:
            hover = [_("<b>step {step}</b> ({phase})<br>K = {k}, accepted {accepted}, emitted {emitted}<br>draft "
                       "{draft} ms, verify {verify} ms, step {total} ms", step=b.index + 1, phase=names[phase], k=b.k,
                       accepted=b.n_accepted, emitted=b.n_emitted, draft=_ms(b.draft_seconds),
                       verify=_ms(b.verify_seconds), total=_ms(b.seconds)) for _s, _e, b in segs]
        else:
            hover = [_("<b>target forward {index}</b><br>emitted 1 token<br>{ms} ms", index=b.index + 1,
                       ms=_ms(b.seconds)) for _s, _e, b in segs]
        text = [f"+{b.n_emitted}" for _, _, b in segs] if (speculative and phase == "verify") else None
        fig.add_trace(go.Bar(
            y=[lane] * len(segs), x=[e - s for s, e, _ in segs], base=[s for s, _, _ in segs], orientation="h",
            name=names[phase], legendgroup=names[phase], showlegend=names[phase] not in legend,
            marker=dict(color=PHASE_COLORS[phase], line=dict(color="white", width=0.6)),
            text=text, textposition="inside", insidetextanchor="middle", textfont=dict(color="white", size=11),
            hovertext=hover, hoverinfo="text",
        ))
        legend.add(names[phase])


def race_figure(spec: Trace, base: Trace, tree: Trace | None = None) -> go.Figure:
    """Two lanes on one wall-clock axis: speculative steps (draft + verify) against target-only forwards; with
    `tree`, a third lane between them, where the same proposer drafted trees (the first lane is then the chain)."""
    fig = go.Figure()
    legend: set[str] = set()
    spec_lane, base_lane = _(CHAIN_LANE if tree is not None else SPEC_LANE), _(BASE_LANE)
    _lane_bars(fig, spec_lane, step_intervals(spec), speculative=True, legend=legend)
    lanes = [base_lane, spec_lane]
    if tree is not None:
        _lane_bars(fig, _(TREE_LANE), step_intervals(tree), speculative=True, legend=legend)
        lanes.insert(1, _(TREE_LANE))
    _lane_bars(fig, base_lane, step_intervals(base), speculative=False, legend=legend)
    end = max(step_intervals(t)[-1].end for t in (spec, base, tree) if t is not None)
    fig.update_layout(
        barmode="overlay", height=300 + 80 * (tree is not None), margin=dict(l=10, r=10, t=10, b=10), bargap=0.35,
        xaxis=dict(title=_("seconds since generation started"), range=[0, end * 1.02]),
        yaxis=dict(categoryorder="array", categoryarray=lanes),
        showlegend=False, uniformtext=dict(minsize=8, mode="hide"),  # the legend is HTML above it: it wraps
    )
    return fig


def tokens_figure(spec: Trace, base: Trace, tree: Trace | None = None) -> go.Figure:
    """Output tokens against time for every lane, as step lines: jumps of several tokens mean drafts paid off."""
    fig = go.Figure()
    for trace, lane, color in _token_lines(spec, base, tree):
        seconds, tokens = tokens_over_time(trace)
        name = _(lane)
        fig.add_trace(go.Scatter(x=seconds, y=tokens, mode="lines", line=dict(shape="hv", color=color, width=2.5),
                                 name=_lane_tokens(lane, trace.num_tokens),
                                 hovertemplate=_("%{x:.3f} s: %{y} tokens") + "<extra>" + name + "</extra>"))
    fig.update_layout(height=320, margin=dict(l=10, r=10, t=10, b=10),
                      xaxis_title=_("seconds since generation started"), yaxis_title=_("output tokens"), showlegend=False)
    return fig


def _token_lines(spec: Trace, base: Trace, tree: Trace | None) -> list[tuple[Trace, str, str]]:
    """(trace, lane name, colour) of each lane's line in the tokens chart."""
    if tree is None:
        return [(spec, SPEC_LANE, COLORS[TokenKind.ACCEPTED]), (base, BASE_LANE, COLORS[TokenKind.TARGET])]
    return [(spec, CHAIN_LANE, COLORS[TokenKind.ACCEPTED]), (tree, TREE_LANE, COLORS[TokenKind.BONUS]),
            (base, BASE_LANE, COLORS[TokenKind.TARGET])]


def _lane_tokens(lane: str, n: int) -> str:
    """A lane's name with its output length: "speculative (48 tokens)"."""
    return ngettext("{lane} ({n} token)", "{lane} ({n} tokens)", n, lane=_(lane))


def swatches_html(items: list[tuple[str, str]], line: bool = False) -> str:
    """A chart's legend as HTML (colour, label), which wraps on a narrow screen where Plotly's legend would cover the
    chart. Labels are specviz's own words and token counts."""
    shape = "width:18px;height:3px" if line else "width:13px;height:13px;border-radius:2px"
    spans = [f'<span style="display:inline-block;margin:2px 14px 2px 0;white-space:nowrap">'
             f'<span style="display:inline-block;{shape};vertical-align:middle;background:{color}"></span>&nbsp;'
             f'{escape_text(label, whitespace=False)}</span>' for label, color in items]
    return f'<div style="line-height:1.9;font-size:0.9rem">{"".join(spans)}</div>'


# ---- the whole result ---------------------------------------------------------------------------------------------
def format_speedup(speedup: float) -> str:
    return times(speedup) if math.isfinite(speedup) else "–"


def rounds_table(rounds: RaceRounds) -> list[dict[str, object]]:
    """One row per round: which lane ran first, both speeds, the speedup and the median one-token forward."""
    rows = []
    for index, ((spec, base), forward) in enumerate(zip(rounds.rounds, rounds.forward_ms()), start=1):
        rows.append({_("round"): index, _("ran first"): _(SPEC_LANE) if index % 2 else _(BASE_LANE),
                     _("speculative tokens/s"): number(spec.tokens_per_second, 1),
                     _("target only tokens/s"): number(base.tokens_per_second, 1),
                     _("speedup"): format_speedup(measured_speedup(spec, base)),
                     _("one-token forward (median)"): _("{ms} ms", ms=number(forward, 1)) if math.isfinite(forward)
                     else "–"})
    return rows


def render_race(rounds: RaceRounds, *, usual_ms: float | None = None, measured_at: float | None = None,
                tree_lanes: tuple[Trace, ...] = ()) -> None:
    """Metrics (the median round's, with the spread of all rounds), the explanation or the busy-machine note, the two
    charts and both outputs. `measured_at` marks a live race (when it was measured); `tree_lanes` holds each round's
    tree lane when the race has one (the median round's is drawn next to the chain)."""
    spec, base = rounds.typical
    tree = tree_lanes[rounds.rounds.index(rounds.typical)] if tree_lanes else None
    speedup = rounds.median_speedup
    several = len(rounds.rounds) > 1
    cols = st.columns(4)
    definition = _(SPEEDUP_DEFINITION)
    cols[0].metric(_("Measured speedup"), format_speedup(speedup),
                   help=" ".join((definition, _("The median of the rounds."))) if several else definition)
    cols[1].metric(_("Speculative, tokens/s"), number(spec.tokens_per_second, 1),
                   help=_("{n} tokens in {seconds} s, {steps} steps (each one target forward)", n=spec.num_tokens,
                          seconds=number(spec.wall_seconds), steps=spec.num_steps))
    cols[2].metric(_("Target only, tokens/s"), number(base.tokens_per_second, 1),
                   help=_("{n} tokens in {seconds} s, one target forward per token", n=base.num_tokens,
                          seconds=number(base.wall_seconds)))
    cols[3].metric(_("Tokens per step"), number(spec.mean_accepted_length),
                   help=_("output tokens ÷ speculative steps, recovered and bonus tokens included"))
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
    sentences = [definition, _("Baseline: {baseline}.", baseline=_(BASELINE_NAME))]
    if several:
        sentences += [spread_sentence(rounds), _("The charts show the median round.")]
    if measured_at is not None:
        sentences.append(_("Measured at {clock}, not from a cache: press **Run the race** to measure again.",
                           clock=time.strftime("%H:%M:%S", time.localtime(measured_at))))
    st.caption(" ".join(sentences))
    busy = busy_note(rounds, usual_ms) if measured_at is not None else None
    if busy:
        st.warning(busy)
    else:
        explanation = explain_race(spec, base)
        (st.success if speedup >= 1.05 else st.info if speedup > 0.95 else st.warning)(explanation)
    note = length_note(spec, base)
    if note:
        st.caption(note)
    if several:
        st.table(pd.DataFrame(rounds_table(rounds)).set_index(_("round")))  # wraps on a phone; no hover needed
    if tree is not None:
        render_lanes(spec, tree, base)

    st.markdown(_("**Where the time went.** Each speculative step is an orange drafting segment followed by one blue "
                  "target forward that checks all the drafts; the number on it is how many tokens the step emitted. "
                  "The lane below is plain decoding: one blue forward per token. Hover or tap a segment for its "
                  "numbers; the numbers above are its totals."))
    st.html(swatches_html([(_(PHASE_NAMES[p]), PHASE_COLORS[p]) for p in PHASE_NAMES]))
    charts.show(race_figure(spec, base, tree), key="race_lanes", numbers=False)  # the table above has the numbers
    st.markdown(_("**How the output grew.** Steep jumps are steps where several drafts were accepted at once."))
    st.html(swatches_html([(_lane_tokens(lane, trace.num_tokens), color)
                           for trace, lane, color in _token_lines(spec, base, tree)], line=True))
    charts.show(tokens_figure(spec, base, tree), key="race_tokens", numbers=False)
    with st.expander(_("The two outputs")):
        st.html(legend_html(tuple(TokenKind), distributions=False))
        st.markdown(ngettext("**Speculative** ({n} token)", "**Speculative** ({n} tokens)", spec.num_tokens))
        st.html(output_html(spec))
        st.markdown(ngettext("**Target only** ({n} token)", "**Target only** ({n} tokens)", base.num_tokens))
        st.html(output_html(base))
        st.caption(_("Both follow the target's distribution exactly. With temperature > 0 they still differ, "
                     "because the two methods use the random numbers differently; at temperature 0 they normally "
                     "match."))
