"""Timeline & race: the widgets that pick what to race, a recorded example (a speculative trace with its
target-only twin) or a live run's settings (the pair, who drafts, K, length, temperature, seed and the tree lane).
Their keys are the URL's names (`specviz.ui.race.settings`).
"""

from __future__ import annotations

import streamlit as st

from specviz.core.i18n import N_, _, as_written, ngettext, number, small_digits
from specviz.engine.proposers import registry
from specviz.engine.trace import Trace
from specviz.labs.bench.quoted import machine_text
from specviz.labs.examples import list_examples, load_example
from specviz.runs.running import PAIRS
from specviz.runs.runspec import SETTINGS, WEB_MAX_NEW_TOKENS, RunSpec
from specviz.ui.common.runs import INSTANT_PAIRS
from specviz.ui.common.sliders import medusa_cap_note, number_slider
from specviz.ui.race.live import race_specs
from specviz.ui.race.settings import RACE_PAIRS, SOURCES, pair_changed, pair_proposers
from specviz.ui.race.tree import has_tree_lane, tree_inputs, tree_refusal

# The words below are marked with N_() and translated with _() where they are shown (never at import).
PAIR_LABELS = {"toy": N_("toy pair (instant, random weights)"),
               "default": N_("SmolLM2-135M (real, loads once per server)")}


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
    st.caption(" ".join(text for text in (description, recorded_note(spec)) if text))
    return spec, base


def recorded_note(spec: Trace) -> str:
    """When and where an example was recorded: its machine as `quoted.machine_text` words it when the trace records
    one (`make traces` writes it now); for an older recording only that it ran on a CPU (`make traces` loads every pair
    on the CPU), since no file says which one. "" when the trace has no recording date."""
    recorded = spec.meta.get("recorded", "")
    if not recorded:
        return ""
    machine = machine_text(spec.meta.get("machine") or {})
    if machine:
        return _("Recorded {when} on {machine}; the times are that machine's.", when=recorded, machine=machine)
    return _("Recorded {when} on a CPU this recording does not name; the times are that machine's.", when=recorded)


def race_estimate(spec: RunSpec, rounds: int) -> str | None:
    """How long the race will take, before it starts: every lane (two, three with a tree lane), every round, plus the
    warm-up of every lane (`live.race_specs`; the sentence says it is counted), at this machine's measured target-only
    speed when its calibration is cached (a quiet measurement, `python -m specviz calibrate`), else at the recorded
    examples' speed for the same models. None when neither is there."""
    measured = _calibrated_rate(spec.pair)
    recorded = _recorded_rate(spec.pair) if measured is None else None
    if measured is None and recorded is None:
        return None
    rate, machine, dtype = (measured, "", "") if measured is not None else recorded
    lanes = 3 if has_tree_lane(spec) else 2  # speculative, target-only, and the tree lane when there is one
    warm = race_specs(spec)[0].max_new_tokens  # the warm-up run of every lane before the rounds (`live.measure_race`)
    seconds = (rounds * spec.max_new_tokens + warm) * lanes / rate  # every lane and round, plus the warm-up
    # read 52: every lane is counted at the target-only speed, and the sentence did not say so: a layer-skip lane
    # (the recorded example's 0.34×) makes a race about twice as long as "about 10 s"
    # read 46: the seconds included the warm-up and the sentence did not say so
    words = dict(seconds=estimate_seconds(seconds), rounds=rounds, lanes=lanes,
                 tokens=ngettext("{n} token", "{n} tokens", spec.max_new_tokens),
                 warm=ngettext("{n}-token warm-up", "{n}-token warm-up", warm),
                 rate=number(rate, 1), machine=machine, dtype=dtype)
    if measured is not None:  # the pair is loaded: no first load to add
        return _("Estimate: about {seconds} s ({rounds} rounds of the {lanes} lanes, {tokens} each, and a {warm} of "
                 "each lane before them), from this machine's calibration ({rate} tokens/s target-only, measured "
                 "quietly), as if every lane ran at that speed; longer if the machine is busy now or a speculative "
                 "lane runs slower than target-only. A recorded example (What to race, above) is instant.",
                 **words)
    if machine:
        text = _("Estimate: about {seconds} s ({rounds} rounds of the {lanes} lanes, {tokens} each, and a {warm} of "
                 "each lane before them), from the recorded examples' speed for these models ({rate} tokens/s "
                 "target-only in {dtype}, the slowest recorded example, on {machine}), as if every lane ran at that "
                 "speed; longer on a busy or slower machine, or where a speculative lane runs slower than "
                 "target-only. A recorded example (What to race, above) is instant.", **words)
    else:
        text = _("Estimate: about {seconds} s ({rounds} rounds of the {lanes} lanes, {tokens} each, and a {warm} of "
                 "each lane before them), from the recorded examples' speed for these models ({rate} tokens/s "
                 "target-only in {dtype}, the slowest recorded example, on a CPU its recording does not name), as if "
                 "every lane ran at that speed; longer on a busy or slower machine, or where a speculative lane runs "
                 "slower than target-only. A recorded example (What to race, above) is instant.", **words)
    if spec.pair not in INSTANT_PAIRS and PAIRS.loaded(spec.pair) is None:
        text += " " + _("The models are not loaded yet: add their first load (seconds once their weights are "
                        "converted; the very first load on a machine converts them and takes longer).")
    return text


def estimate_seconds(seconds: float) -> str:
    """The estimate's seconds as its sentence writes them: whole seconds from 1 s up, and below that in tenths, or with
    two significant digits under 0.1 s (`small_digits`). Read 51: every estimate under a second read "about 1 s" (a
    floor of 1.0), 0.2 s included.

    >>> estimate_seconds(9.8), estimate_seconds(0.97), estimate_seconds(0.196), estimate_seconds(0.0392)
    ('10', '1', '0.2', '0.039')
    """
    if float(as_written(seconds, 0)) >= 1:
        return number(seconds, 0)
    return number(seconds, small_digits(seconds, 1))


def _recorded_rate(pair_name: str) -> tuple[float, str, str] | None:
    """Target-only tokens per second of the slowest recorded example of these models (an estimate should not promise
    too much), with the machine that recorded it as `quoted.machine_text` words it ("" when the trace names none) and
    its dtype, if one is installed."""
    rates = []
    for example in list_examples():
        if example.baseline_path is None:
            continue
        spec, base = load_example(example.name)
        if base is not None and base.meta.get("pair") == pair_name and base.tokens_per_second > 0:
            machine = machine_text(base.meta.get("machine") or spec.meta.get("machine") or {})
            dtype = base.meta.get("dtype") or spec.meta.get("dtype") or "float32"  # make traces runs in float32
            rates.append((base.tokens_per_second, machine, dtype))
    return min(rates, key=lambda rate: rate[0]) if rates else None


def _calibrated_rate(pair_name: str) -> float | None:
    """Target-only tokens per second from this machine's cached calibration of the loaded pair, if there is one."""
    from specviz.labs.calibration import cached_for

    pair = PAIRS.loaded(pair_name) if pair_name not in INSTANT_PAIRS else None
    cal = cached_for(pair) if pair is not None else None
    return 1.0 / cal.one if cal is not None and cal.one > 0 else None


def live_settings() -> RunSpec | str:
    """The live-run widgets; returns the spec they describe (the race runs only when asked), or the sentence that
    says why they cannot run."""
    left, right = st.columns([1, 2])
    pair = left.selectbox(_("Models"), RACE_PAIRS, format_func=lambda key: _(PAIR_LABELS[key]), key="race_pair",
                          on_change=pair_changed)
    proposers = pair_proposers(pair)
    if st.session_state.get("race_proposer") not in proposers:
        st.session_state["race_proposer"] = proposers[0]
    proposer = left.selectbox(_("Who drafts"), proposers, format_func=lambda key: _(registry.get(key).phrase),
                              key="race_proposer")
    prompt = right.text_area(_("Prompt"), key="race_prompt", height=100)
    c1, c2, c3, c4 = st.columns(4)
    k = c1.slider(_("K (drafts per step; the tree lane's greatest depth)"), *SETTINGS["k"].bounds, key="race_k")
    cap = medusa_cap_note(proposer, k)
    if cap:  # read 48: Medusa drafts one token per head, so K above the heads is not what a step drafts
        c1.caption(cap)
    max_new = c2.slider(_("Max new tokens"), SETTINGS["max_new_tokens"].lo, WEB_MAX_NEW_TOKENS, key="race_max_new")
    temperature = number_slider(c3, _("Temperature"), *SETTINGS["temperature"].bounds, step=0.05,
                                key="race_temperature")
    seed = int(c4.number_input(_("Seed"), *SETTINGS["seed"].bounds, step=1, key="race_seed"))
    tree_nodes, tree_width = tree_inputs(proposer)
    try:
        spec = RunSpec(pair=pair, proposer=proposer, prompt=prompt, k=k, max_new_tokens=max_new,
                       temperature=float(temperature), seed=seed, tree_nodes=tree_nodes, tree_width=tree_width)
    except ValueError as exc:
        return str(exc)
    return tree_refusal(spec) or spec  # a budget the tree cannot hold: refused, not raced as a smaller tree
