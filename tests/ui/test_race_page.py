"""The Timeline & race page under AppTest: replayed examples, a live toy-pair race, URL settings, bad input."""

from __future__ import annotations

import contextlib
import json
import re
import time
from decimal import Decimal
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz.core.i18n import _, number, read_number, times, using
from specviz.engine.trace import Trace
from specviz.labs import timeline
from specviz.labs.bench import quoted
from specviz.labs.examples import list_examples, load_example
from specviz.labs.timeline import measured_speedup
from specviz.runs.running import PairCache
from specviz.teach.pagemap import PAGE_FILES
from specviz.ui.common import runs
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.race import live as race_live
from specviz.ui.race.outputs import agreement
from specviz.ui.race.view import format_speedup

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / next(path for path in PAGE_FILES if path.endswith("/race.py")))


def _app(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _verdicts(at: AppTest) -> list[str]:
    """The verdict boxes, less the sentence that names a race's round (several rounds: read 47)."""
    said = [re.sub(r"^This verdict is round \d+'s, [^.]*\. ", "", str(e.value))
            for e in [*at.success, *at.info, *at.warning]]
    return [text for text in said if text.startswith(("Speculation", "About"))]


def _raced_examples():
    return [e for e in list_examples() if e.baseline_path is not None]


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_replay_shows_the_measured_speedup_of_the_example_traces(monkeypatch):
    monkeypatch.chdir(ROOT)
    examples = _raced_examples()
    assert examples, "no example traces with a baseline are installed (run `make traces`)"
    at = _app()
    assert at.radio(key="race_source").value == "example"
    assert at.selectbox(key="race_example").value == examples[0].name
    assert not at.error
    for example in examples[:3]:  # switching examples updates every number
        at.selectbox(key="race_example").set_value(example.name).run()
        assert not at.exception and not at.error
        spec, base = load_example(example.name)
        speedup = measured_speedup(spec, base)
        assert _metric(at, "Measured speedup") == format_speedup(speedup)
        assert _metric(at, "Mean accepted length") == f"{spec.mean_accepted_length:.2f}"
        # named apart: the measured ratio, and the estimate of α the Theory explorer's slider takes
        assert _metric(at, "Accepted / drafted") == number(spec.acceptance_rate)  # 19/40 = 0.475 shows as 0.48
        assert _metric(at, "α = E[Σ min(p, q)], estimated") == number(spec.mean_accept_prob)
        assert any("E[accepted] / K = α(1 − α^K) / ((1 − α)K)" in c.value for c in at.caption)
        assert any("timed each step by CPU time on one thread" in c.value for c in at.caption)  # make traces' clock
        assert not any(m.label == "Acceptance rate" for m in at.metric)
        verdict = _verdicts(at)
        assert len(verdict) == 1
        expected = "Speculation won" if speedup >= 1.05 else "About a tie" if speedup > 0.95 else "Speculation lost"
        assert verdict[0].startswith(expected)
        assert at.query_params["race_example"] == example.name  # the URL names what is on screen
        assert "race_k" not in at.query_params  # and nothing that does not apply
        assert len(at.get("plotly_chart")) == 2  # the lanes and the tokens-over-time chart
    box = next(e for e in at.expander if e.label == "The two outputs")
    # the float32 identity figure names its count and its machine as the check's file records it (read 54: not the
    # cores of the benchmark run beside it)
    machine, shape = quoted.greedy_identity_machines()["fp32_cpu"], quoted.greedy_identity_shapes()["fp32_shape"]
    count = quoted.greedy_identity_counts()["fp32"]
    said = f"in float32 on {count} held-out prompts checked on {machine}, drafting {shape},"
    assert any(said in c.value for c in box.caption)


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_live_toy_race_runs_both_lanes_with_the_same_settings(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _app()
    at.radio(key="race_source").set_value("live").run()
    assert "Run the race" in at.info[0].value and not at.metric  # nothing runs before the click
    at.slider(key="race_k").set_value(3)
    at.number_input(key="race_seed").set_value(5)
    at.button(key="race_run").click().run()
    assert not at.exception and not at.error
    spec, base = at.session_state["race_traces"]
    assert (spec.mode, base.mode) == ("speculative", "autoregressive")
    assert spec.prompt_ids == base.prompt_ids
    for key in ("temperature", "seed", "max_new_tokens", "top_k", "top_p"):
        assert spec.settings[key] == base.settings[key]
    assert spec.settings["k"] == 3 and spec.settings["seed"] == 5
    assert _metric(at, "Measured speedup") == format_speedup(at.session_state[race_live.RESULT_KEY].rounds
                                                             .median_speedup)
    busy = [w.value for w in at.warning if w.value.startswith("The machine was busy")]  # a loaded test machine
    assert len(_verdicts(at)) + len(busy) == 1
    assert at.query_params["race_source"] == "live" and at.query_params["race_k"] == "3"
    # changing a setting does not rerun by itself: the old race stays, with a note
    at.slider(key="race_k").set_value(2).run()
    assert at.session_state["race_traces"][0].settings["k"] == 3
    assert any("settings changed" in c.value for c in at.caption)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_link_to_a_live_race_runs_it_once(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _app(race_source="live", race_pair="toy", race_proposer="ngram", race_k="2", race_max_new="16",
              race_temperature="0.0", race_seed="1")
    assert not at.error
    spec, base = at.session_state["race_traces"]
    assert spec.settings["proposer"] == "ngram" and spec.settings["k"] == 2 and spec.settings["temperature"] == 0
    assert _metric(at, "Measured speedup") == format_speedup(at.session_state[race_live.RESULT_KEY].rounds
                                                             .median_speedup)
    # greedy decoding: both lanes write the same text (the target's argmax at every position)
    assert spec.output_ids == base.output_ids


def test_each_speculative_lane_says_whether_it_is_the_target_only_output():
    def lane(output: list[int], temperature: float) -> Trace:
        return Trace("speculative", {"temperature": temperature}, [1], output, [])

    base = [7, 8, 9]
    assert agreement(lane([7, 8, 9], 0.0), lane(base, 0.0)).startswith("Identical to the target-only output")
    assert "the exact rule keeps the target's argmax" in agreement(lane([7, 8, 9], 0.0), lane(base, 0.0))
    assert "argmax" not in agreement(lane([7, 8, 9], 0.7), lane(base, 0.7))
    parted = agreement(lane([7, 5, 9], 0.0), lane(base, 0.0))
    assert parted.startswith("Parts from the target-only output at new token 2 (") and "near-tie" in parted
    assert agreement(lane([7, 8], 0.7), lane(base, 0.7)).startswith("Parts from the target-only output at token 3:")


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_bad_input_gets_one_sentence_not_a_traceback(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _app(race_source="live", race_k="many", race_example="nope")
    assert [e.value for e in at.error] == [escape_markdown(
        "A value in the link was not usable, so the default is shown instead: race_k must be a whole number from 1 "
        "to 16 (got 'many').")]
    assert at.slider(key="race_k").value == 4
    at.text_area(key="race_prompt").input("   ")
    at.button(key="race_run").click().run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "prompt" in errors[0] and "\n" not in errors[0]  # one sentence about the prompt
    assert not at.metric  # and nothing ran


def test_an_unknown_example_in_the_link_falls_back_to_the_first(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _app(race_source="example", race_example="no-such-example")
    assert len(at.error) == 1 and "does not exist" in at.error[0].value
    assert at.selectbox(key="race_example").value == _raced_examples()[0].name


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_proposer_choices_follow_the_pair(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _app(race_source="live")
    assert at.selectbox(key="race_proposer").options == ["draft model", "n-gram lookup (no model)",
                                                          "layer-skip self-draft"]
    at.selectbox(key="race_pair").set_value("toy").run()
    at.selectbox(key="race_proposer").set_value("layerskip").run()
    at.selectbox(key="race_pair").set_value("default").run()
    assert not at.exception
    # SmolLM2's own drafts come first: the trained EAGLE drafter, then the trained separate draft
    # (the registry's order, as in the Playground)
    assert at.selectbox(key="race_proposer").options == ["EAGLE feature drafter (trained)", "draft model",
                                                          "Medusa heads (trained)", "n-gram lookup (no model)",
                                                          "layer-skip self-draft"]
    assert at.selectbox(key="race_proposer").value == "layerskip"  # a choice both pairs offer is kept


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
@pytest.mark.parametrize("value", ["0.5", "inf"])
def test_temperature_from_the_link_is_kept_or_refused(monkeypatch, value):
    monkeypatch.chdir(ROOT)
    at = _app(race_source="live", race_temperature=value)
    if value == "inf":
        assert "temperature" in at.error[0].value
        assert at.select_slider(key="race_temperature").value == 1.0
    else:
        assert not at.error and at.select_slider(key="race_temperature").value == 0.5


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_an_out_of_range_k_in_the_link_is_refused_not_clamped(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _app(race_source="live", race_k="40", race_seed="7")
    assert [e.value for e in at.error] == [escape_markdown(
        "A value in the link was not usable, so the default is shown instead: race_k must be a whole number from 1 "
        "to 16 (got 40).")]
    assert at.slider(key="race_k").value == 4 and at.number_input(key="race_seed").value == 7
    assert at.slider(key="race_k").max == 16  # the engine's K range, the same on every page


def test_a_proposer_the_pair_does_not_offer_is_refused_in_the_sentence_not_swapped_silently(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _app(race_source="example", race_pair="toy", race_proposer="eagle")  # the toy pair has no EAGLE drafter
    assert [e.value for e in at.error] == [escape_markdown(
        "A value in the link was not usable, so the default is shown instead: race_proposer must be one of draft, "
        "ngram, layerskip (got 'eagle').")]


def _live_toy(**query) -> AppTest:
    at = _app(race_source="live", race_pair="toy", race_proposer="ngram", race_k="2", race_max_new="12",
              race_temperature="0.0", race_seed="1", **query)
    return at


@pytest.mark.slow  # two presses, each a warm-up and three rounds of both lanes: ~4 s
def test_every_press_measures_the_race_anew_in_interleaved_rounds(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _live_toy()  # the link runs it once
    first = at.session_state[race_live.RESULT_KEY]
    from specviz.ui.race.settings import ROUNDS_BY_PAIR

    assert len(first.rounds.rounds) == ROUNDS_BY_PAIR["toy"] == 3  # the page's count for the pair, not ROUNDS'
    table = at.table[0].value  # the rounds, numbers without hovering
    assert list(table.index) == [1, 2, 3] and list(table["ran first"]) == ["speculative", "target only",
                                                                              "speculative"]
    shown = " ".join(c.value for c in at.caption)
    assert "3 rounds, lanes interleaved" in shown and "median" in shown and "not from a cache" in shown
    assert _metric(at, "Measured speedup") == format_speedup(first.rounds.median_speedup)
    time.sleep(runs.COOLDOWN_SECONDS + 0.1)
    at.button(key="race_run").click().run()  # the same settings again: measured again, not served from a cache
    assert not at.exception and not at.error
    second = at.session_state[race_live.RESULT_KEY]
    assert second.measured_at > first.measured_at
    firsts = {id(t) for pair in first.rounds.rounds for t in pair}
    assert not firsts & {id(t) for pair in second.rounds.rounds for t in pair}
    assert [s.wall_seconds for s, _ in second.rounds.rounds] != [s.wall_seconds for s, _ in first.rounds.rounds]
    assert second.rounds.rounds[0][0].output_ids == first.rounds.rounds[0][0].output_ids  # same seed, same text


@pytest.mark.slow  # over 0.7 s in make check (00:40 UTC: 3,026 tests in 61-66 s)
def test_a_busy_machine_is_named_instead_of_a_verdict(monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(timeline, "BUSY_MIN_MS", 0.0)
    race_live.quiet_forwards()[("toy", "cpu")] = 1e-6  # a forward "usually" costs a nanosecond: every real one is far off
    try:
        at = _live_toy()
    finally:
        race_live.quiet_forwards.clear()
    assert not at.error
    assert len(at.warning) == 1 and at.warning[0].value.startswith("The machine was busy with other work")
    assert not _verdicts(at)  # no conclusion drawn from the timings
    assert _metric(at, "Measured speedup")  # the numbers are still shown


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_first_load_leaves_no_ready_boxes_behind(monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(runs, "INSTANT_PAIRS", ())  # treat the toy pair like SmolLM2: a status box while it loads
    monkeypatch.setattr(runs, "PAIRS", PairCache())
    at = _live_toy()
    assert not at.exception and not at.error and at.metric
    assert not at.status  # the loading box is gone once the models are in; no "Models ... ready." boxes stack up


@pytest.mark.browser
@pytest.mark.slow
def test_in_a_browser_a_second_press_measures_again(app_url, browser_context, tmp_path):
    """Run the race twice in Chromium: the second press shows a new measurement time and new per-round numbers,
    not the first race's numbers served again."""
    from specviz.scripts.screenshots import click_button, wait_for_app

    live = ("/race?race_source=live&race_pair=toy&race_proposer=ngram&race_k=2&race_max_new=16"
            "&race_temperature=0&race_seed=1")
    base = app_url
    with contextlib.closing(browser_context.new_page()) as page:
        page.goto(base)
        wait_for_app(page, timeout=120)
        page.goto(base + live)  # a link to a live race runs it once
        wait_for_app(page, timeout=120)
        page.wait_for_selector("text=Measured at", timeout=120_000)

        def measured() -> tuple[str, str]:
            """(when, what): the time in the caption, and the rounds' speedups with both lanes' tokens/s."""
            caption = page.get_by_text("Measured at").first.inner_text()
            speeds = page.locator('[data-testid="stMetricValue"]').all_inner_texts()
            return caption.split("Measured at ")[1][:8], caption.split("Measured at ")[0] + " ".join(speeds)

        first_time, first_rounds = measured()
        page.wait_for_timeout(3500)  # the cooldown between two live runs of one session
        click_button(page, "Run the race", timeout=120)
        page.wait_for_function(f"!document.body.innerText.includes('Measured at {first_time}')", timeout=120_000)
        second_time, second_rounds = measured()
        assert second_time != first_time and second_rounds != first_rounds
        assert page.locator('[data-testid="stException"], [data-testid="stAlertContentError"]').count() == 0
        page.screenshot(path=str(tmp_path / "race-again.png"))


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_switching_to_smollm2_races_greedy_shorter_and_says_how_long_first():
    """Issue 27 item 3: a live race on SmolLM2 at T = 1.00 (word salad) with 3 rounds of 48 tokens took 289 s and
    ended with no conclusion. Picking the real model sets T = 0 and 32 tokens, races 2 rounds, and the page gives a
    time estimate (from the recorded examples' speed) before anything runs."""
    at = _app(race_source="live")  # a live link runs its (toy) race once at once
    assert at.select_slider(key="race_temperature").value == 1.0  # the toy pair: sampling shows every kind of token
    at.selectbox(key="race_pair").set_value("default").run()
    assert not at.exception
    assert at.select_slider(key="race_temperature").value == 0.0 and at.slider(key="race_max_new").value == 32
    estimate = next(c.value for c in at.caption if c.value.startswith("Estimate: about"))
    # the pair's recommended shape is a tree, so the race has a tree lane too: three lanes to run, not two
    assert at.number_input(key="race_tree_nodes").value > 0
    assert "2 rounds of the 3 lanes, 32 tokens each" in estimate and "tokens/s target-only" in estimate
    linked = _app(race_pair="default")  # a link naming the real model but no temperature (not run: an example)
    assert linked.session_state["race_temperature"] == 0.0 and linked.session_state["race_max_new"] == 32


def test_the_race_estimate_uses_this_machines_calibration_when_there_is_one(monkeypatch):
    """Issue 42 item 1: the estimate came from the recorded examples' machine ("about 10 s", then 139–146 s). With
    the pair loaded and this machine's calibration cached, it counts both lanes at this machine's measured speed."""
    from specviz.labs import calibration
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race import inputs

    spec = RunSpec(pair="default", proposer="eagle", max_new_tokens=48)
    fallback = inputs.race_estimate(spec, rounds=2)
    assert fallback is None or "recorded examples' speed" in fallback  # nothing loaded: the recorded speed
    pair = object()
    monkeypatch.setattr(inputs.PAIRS, "loaded", lambda name: pair if name == "default" else None)
    cal = type("Cal", (), {"one": 0.05})()  # a one-token target forward of 50 ms: 20 tokens/s
    monkeypatch.setattr(calibration, "cached_for", lambda loaded: cal if loaded is pair else None)
    text = inputs.race_estimate(spec, rounds=2)
    seconds = 2 * 2 * 48 / 20 + 2 * 2 / 20  # both lanes, two rounds, plus the warm-up: 9.8 s
    assert f"about {number(seconds, 0)} s" in text and "this machine's calibration (20.0 tokens/s" in text


@pytest.mark.parametrize("lang, said", [
    ("en", ("as if every lane ran at that speed; longer if the machine is busy now or a speculative lane runs slower "
            "than target-only.",
            "as if every lane ran at that speed; longer on a busy or slower machine, or where a speculative lane runs "
            "slower than target-only.")),
    ("pt", ("como se todas as raias rodassem nessa velocidade; mais se a máquina estiver ocupada agora ou se uma raia "
            "especulativa for mais lenta que a raia só com o alvo.",
            "como se todas as raias rodassem nessa velocidade; mais numa máquina ocupada ou mais lenta, ou se uma raia "
            "especulativa for mais lenta que a raia só com o alvo."))])
def test_the_race_estimate_says_it_counts_every_lane_at_the_target_only_speed(monkeypatch, lang, said):
    """Read 52: the estimate's seconds count every lane at the target-only speed it quotes, and the sentence said only
    that a busy or slower machine takes longer; a layer-skip race (its recorded example ran at 0.34×, so its
    speculative lane takes about three times the target-only lane) takes about twice the "about 10 s" it gave."""
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race import inputs

    spec = RunSpec(pair="default", proposer="layerskip", max_new_tokens=32)
    monkeypatch.setattr(inputs, "has_tree_lane", lambda spec: False)
    monkeypatch.setattr(inputs, "_calibrated_rate", lambda name: 13.0)
    with using(lang):
        calibrated = inputs.race_estimate(spec, rounds=2)
    monkeypatch.setattr(inputs, "_calibrated_rate", lambda name: None)
    for machine in ("AMD EPYC (2 cores)", ""):
        monkeypatch.setattr(inputs, "_recorded_rate", lambda name, machine=machine: (13.0, machine, "float32"))
        with using(lang):
            recorded = inputs.race_estimate(spec, rounds=2)
        assert said[1] in recorded, recorded
    assert said[0] in calibrated and number((2 * 32 + 2) * 2 / 13.0, 0) == "10", calibrated


@pytest.mark.parametrize("lang, said", [
    ("en", "(2 rounds of the 2 lanes, 48 tokens each, and a 2-token warm-up of each lane before them)"),
    ("pt", "(2 rodadas das 2 raias, 48 tokens cada, e um aquecimento de 2 tokens de cada raia antes delas)")])
def test_the_race_estimate_says_its_seconds_include_the_warm_up(monkeypatch, lang, said):
    """Read 46: the estimate's seconds counted every lane's warm-up run before the rounds (`live.race_specs`) but the
    sentence named only the rounds; it now says the warm-up is in, with the warm-up's own token count."""
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race import inputs
    from specviz.ui.race.live import race_specs

    spec = RunSpec(pair="default", proposer="eagle", max_new_tokens=48)
    monkeypatch.setattr(inputs, "_calibrated_rate", lambda name: 20.0)
    monkeypatch.setattr(inputs, "has_tree_lane", lambda spec: False)
    warm = race_specs(spec)[0].max_new_tokens
    assert warm == 2
    with using(lang):
        text = inputs.race_estimate(spec, rounds=2)
        seconds = number((2 * 48 + warm) * 2 / 20, 0)  # 9.8 s: both lanes, two rounds and the warm-up
    assert said in text and f"{seconds} s" in text, text


def test_a_recorded_example_names_its_machine_only_when_its_trace_records_one():
    """Issue 43, fifth read: "Recorded ... on a CPU" named no CPU. A trace that records its machine (make traces does
    now) is named through quoted.machine_text; an older one says the CPU is not named, and never guesses one."""
    from specviz.ui.race.inputs import recorded_note

    spec, _base = load_example("toy-draft")
    spec.meta.pop("machine", None)
    assert recorded_note(spec) == (f"Recorded {spec.meta['recorded']} on a CPU this recording does not name; the "
                                   "times are that machine's.")
    spec.meta["machine"] = {"cpu": "AMD EPYC", "cores": 2, "kernels": "onednn-packed", "gpu": None, "device": "cpu"}
    assert recorded_note(spec) == (f"Recorded {spec.meta['recorded']} on "
                                   f"{quoted.machine_text(spec.meta['machine'])}; the times are that machine's.")
    spec.meta.pop("recorded")
    assert recorded_note(spec) == ""


def test_the_recorded_speed_estimate_names_the_machine_and_dtype_that_measured_it(monkeypatch):
    """Issue 43, eighth read: the estimate quoted "tokens/s target-only on the CPU that recorded them" without naming
    the CPU or the dtype. It names the slowest recorded example's machine (quoted.machine_text) and dtype."""
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race import inputs

    monkeypatch.setattr(inputs, "_calibrated_rate", lambda name: None)
    monkeypatch.setattr(inputs, "_recorded_rate", lambda name: (13.0, "AMD EPYC (2 cores)", "float32"))
    text = inputs.race_estimate(RunSpec(pair="default", proposer="eagle", max_new_tokens=48), rounds=2)
    assert "13.0 tokens/s target-only in float32, the slowest recorded example, on AMD EPYC (2 cores)" in text
    monkeypatch.setattr(inputs, "_recorded_rate", lambda name: (13.0, "", "float32"))
    text = inputs.race_estimate(RunSpec(pair="default", proposer="eagle", max_new_tokens=48), rounds=2)
    assert "on a CPU its recording does not name" in text


def test_the_live_race_docstring_gives_the_rounds_the_page_runs():
    """25th read: specviz/ui/race/live.py said a live race runs ROUNDS (3) rounds, but the page passes
    ROUNDS_BY_PAIR's count, 2 for SmolLM2; the docstring now quotes that table."""
    from specviz.ui.race.settings import ROUNDS_BY_PAIR

    doc = " ".join(race_live.__doc__.split())
    assert ROUNDS_BY_PAIR == {"toy": 3, "default": 2}
    assert (f"{ROUNDS_BY_PAIR['toy']} for the toy pair, {ROUNDS_BY_PAIR['default']} for SmolLM2; ROUNDS when none "
            "are given") in doc
    page = (Path(__file__).resolve().parents[2] / "pages" / "race.py").read_text(encoding="utf-8")
    assert "rounds = ROUNDS_BY_PAIR.get(" in page and "measure_race(settings, rounds)" in page


def test_the_cpu_clock_note_says_make_traces_uses_it_by_default_not_only_on_a_shared_machine():
    """The note said a recording was timed by CPU time "as `make traces` does on a shared machine", as if the script
    chose that clock on a shared machine; `record` times by CPU time unless asked for `--clock wall`, anywhere."""
    import inspect

    from specviz.scripts import make_traces
    assert inspect.signature(make_traces.record).parameters["clock"].default == "cpu"
    source = (ROOT / "specviz" / "ui" / "race" / "view.py").read_text(encoding="utf-8")
    assert "does on a shared machine" not in source and "as `make traces` does by default, on any machine." in source


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_temperature_link_keeps_every_digit():
    """write_url wrote floats with "{:g}", so a link's race_temperature=0.1234567 came back as 0.123457: a reload
    raced another temperature than the one the link named (the race's promise: "shared or reloaded as it is")."""
    at = _app(race_source="live", race_temperature="0.1234567", race_max_new="4")
    assert at.session_state["race_temperature"] == 0.1234567
    assert at.query_params["race_temperature"] == "0.1234567"


def _two_round_race() -> None:
    """Render a two-round toy race (AppTest script): the lanes' metrics are one round's, the headline the median."""
    from specviz.labs.timeline import RaceRounds
    from specviz.models.pairs import toy_pair
    from specviz.runs.running import run, run_target_only
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race.view import render_race

    pair, spec = toy_pair(), RunSpec(pair="toy", prompt="the quick brown fox", k=3, max_new_tokens=12)
    render_race(RaceRounds(tuple((run(spec, pair=pair), run_target_only(spec, pair=pair)) for _ in range(2))))


def test_the_lanes_tokens_per_second_help_names_the_round_they_come_from():
    """Read 32: with several rounds the headline is the median of the rounds' speedups (of two, their mean: no
    round's own), while "Speculative, tokens/s" and "Target only, tokens/s" are the `typical` round's, so their ratio
    was not the speedup shown beside them and their help did not say which round they were. It now names it."""
    at = AppTest.from_function(_two_round_race, default_timeout=120).run()
    assert not at.exception
    helps = {m.label: m.proto.help for m in at.metric}
    for label in ("Speculative, tokens/s", "Target only, tokens/s"):
        assert re.search(r" Round [12], the first of the rounds whose speedup is closest to the median "
                         r"\(\S+× here\)\.$", helps[label])
    assert "The median of the rounds." in helps["Measured speedup"]


def _tie_and_win_race(lang: str) -> None:
    """Render a two-round toy race whose rounds are a tie (1.00×) and a win (1.125×, written 1.13×), so their median
    (of the rounds as written, 1.065×: read 53) wins (AppTest script)."""
    import dataclasses

    from specviz.core.i18n import set_language
    from specviz.labs.timeline import RaceRounds
    from specviz.models.pairs import toy_pair
    from specviz.runs.running import run, run_target_only
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race.view import render_race

    set_language(lang)
    pair, spec = toy_pair(), RunSpec(pair="toy", prompt="the quick brown fox", k=3, max_new_tokens=12, temperature=0.0)
    # both lanes write the same 12 tokens at T = 0: the wall times set each round's speedup, exactly in binary (both
    # rounds are equally far from their median, so the first, the tie, is the one the charts show)
    fast = dataclasses.replace(run(spec, pair=pair), wall_seconds=1.0)
    base = run_target_only(spec, pair=pair)
    tie, win = dataclasses.replace(base, wall_seconds=1.0), dataclasses.replace(base, wall_seconds=1.125)
    render_race(RaceRounds(((fast, tie), (fast, win))))


@pytest.mark.parametrize("lang, said", [
    ("en", "This verdict is round 1's, the one the charts show; the measured speedup above is the median of the "
           "rounds. About a tie (1.00×)."),
    ("pt", "Este veredito é o da rodada 1, a que os gráficos mostram; a aceleração medida acima é a mediana das "
           "rodadas. Praticamente um empate (1,00×).")])
def test_a_two_round_verdict_names_its_round_and_takes_the_colour_of_its_words(lang, said):
    """Read 47: the verdict box explains the charts' round (its speedup, its costs), while its colour came from the
    median: of a tie (1.00×) and a win (1.125×), "About a tie (1.00×)" sat in a green box under a headline of 1.06×,
    and nothing said the two figures were of different things. The box names its round and is coloured by its own
    words (a tie: blue)."""
    at = AppTest.from_function(_tie_and_win_race, args=(lang,), default_timeout=120).run()
    assert not at.exception
    assert _metric(at, {"en": "Measured speedup", "pt": "Aceleração medida"}[lang]) == {"en": "1.07×",
                                                                                       "pt": "1,07×"}[lang]
    assert not at.success and not at.warning
    assert [i.value for i in at.info if i.value.startswith(said)], [i.value for i in at.info]


@pytest.mark.parametrize("lang, said", [
    ("en", ("The charts show round 1, the first of the rounds whose speedup is closest to the median.",
            "Round 1, the first of the rounds whose speedup is closest to the median (1.00× here).")),
    ("pt", ("Os gráficos mostram a rodada 1, a primeira das rodadas cuja aceleração está mais perto da mediana.",
            "Rodada 1, a primeira das rodadas cuja aceleração está mais perto da mediana (1,00× nela)."))])
def test_two_rounds_equally_close_to_their_median_are_not_called_the_one_closest(lang, said):
    """Read 47: of two rounds both speedups are equally far from their median (their mean), but the caption and the
    lanes' help called the round shown "the one whose speedup is closest to the median", and which of the two it was
    hung on a rounding of their distances. The first of them is shown, and the words say so."""
    at = AppTest.from_function(_tie_and_win_race, args=(lang,), default_timeout=120).run()
    assert not at.exception
    assert said[0] in " ".join(c.value for c in at.caption)
    assert any(m.proto.help.endswith(said[1]) for m in at.metric), [m.proto.help for m in at.metric]


def test_the_caption_names_the_round_the_charts_show():
    """Read 45: the caption said "The charts show the median round", but of two rounds (SmolLM2's live race) the median
    is their mean and no round's own; the charts show `typical`, the round closest to it, as the metrics' help says."""
    at = AppTest.from_function(_two_round_race, default_timeout=120).run()
    assert not at.exception
    caption = next(c.value for c in at.caption if "lanes interleaved" in c.value)
    assert "the median round" not in caption
    assert re.search(r"The charts show round [12], the first of the rounds whose speedup is closest to the median\.",
                     caption)


def _measured_race(lang: str) -> None:
    """Render a one-round toy race as a live one measured at 2026-12-07 21:05:09 UTC (AppTest script)."""
    from specviz.core.i18n import set_language
    from specviz.labs.timeline import RaceRounds
    from specviz.models.pairs import toy_pair
    from specviz.runs.running import run, run_target_only
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race.view import render_race

    set_language(lang)
    pair = toy_pair()
    spec = RunSpec(pair="toy", prompt="the quick brown fox", k=3, max_new_tokens=8)
    render_race(RaceRounds(((run(spec, pair=pair), run_target_only(spec, pair=pair)),)), measured_at=1796677509.0)


@pytest.mark.parametrize(("lang", "said"), [("en", "Measured at 21:05:09 UTC"), ("pt", "Medido às 21:05:09 UTC")])
def test_a_live_races_clock_is_utc_and_says_so(lang, said, monkeypatch):
    """Read 47: "Measured at HH:MM:SS" was the server's local time with no zone, so a visitor elsewhere read the
    server's clock as theirs; it is UTC, named."""
    monkeypatch.setenv("TZ", "America/Sao_Paulo")
    time.tzset()
    try:
        at = AppTest.from_function(_measured_race, args=(lang,), default_timeout=120).run()
    finally:
        monkeypatch.undo()
        time.tzset()
    assert not at.exception
    assert any(said in c.value for c in at.caption)


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "This race timed each step on the wall clock (`time.perf_counter`: elapsed time, so whatever else this "
           "server ran at the time counts too), not by CPU time as the recorded examples do."),
    ("pt", "Esta corrida mediu cada passo pelo tempo de relógio (`time.perf_counter`: o tempo decorrido, então o que "
           "mais este servidor rodava naquele momento também conta), não pelo tempo de CPU, como os exemplos "
           "gravados.")])
def test_a_live_race_names_the_clock_that_timed_it(lang, said, monkeypatch):
    """Read 55: a recorded example says "This recording timed each step by CPU time on one thread", but a live race
    named no clock, though its times are another kind: `run`'s default clock, time.perf_counter (elapsed time, a
    busy server's other work included). The live race's caption now names it, in both languages."""
    import inspect

    from specviz.engine import generation
    from specviz.runs import running

    assert inspect.signature(running.run).parameters["clock"].default is generation.default_clock
    monkeypatch.setattr(generation.time, "perf_counter", lambda: 42.0)
    assert generation.default_clock() == 42.0
    monkeypatch.undo()
    at = AppTest.from_function(_measured_race, args=(lang,), default_timeout=120).run()
    assert not at.exception
    captions = [" ".join(c.value.split()) for c in at.caption]
    assert any(said in c for c in captions), captions
    assert not any("CPU time on one thread" in c or "tempo de CPU em uma thread" in c for c in captions)


def _tree_race() -> None:
    """Render a one-round toy race with a tree lane (AppTest script)."""
    from specviz.labs.timeline import RaceRounds
    from specviz.models.pairs import toy_pair
    from specviz.runs.running import run, run_target_only
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race.tree import lane_specs
    from specviz.ui.race.view import render_race

    pair = toy_pair()
    chain, tree = lane_specs(RunSpec(pair="toy", prompt="the quick brown fox", k=3, max_new_tokens=12, tree_nodes=6))
    render_race(RaceRounds(((run(chain, pair=pair), run_target_only(chain, pair=pair)),)),
                tree_lanes=(run(tree, pair=pair),))


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_tree_race_says_whose_figures_the_headline_holds():
    """Read 45: with a tree lane the headline's "Measured speedup" and "Speculative, tokens/s" are the chain lane's
    (the tree lane is speculative too), and the page did not say so; its caption now does."""
    at = AppTest.from_function(_tree_race, default_timeout=120).run()
    assert not at.exception
    assert any("the speedup and the speculative figures above are the chain lane's" in c.value for c in at.caption)
    plain = AppTest.from_function(_two_round_race, default_timeout=120).run()
    assert not any("chain lane's" in c.value for c in plain.caption)  # a race without a tree lane has one lane


def _two_round_tree_race(lang: str) -> None:
    """Render a two-round toy race with a tree lane, the second round's lanes slowed apart (AppTest script)."""
    import dataclasses

    from specviz.core.i18n import set_language
    from specviz.labs.timeline import RaceRounds
    from specviz.models.pairs import toy_pair
    from specviz.runs.running import run, run_target_only
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race.tree import lane_specs
    from specviz.ui.race.view import render_race

    set_language(lang)
    pair = toy_pair()
    chain, tree = lane_specs(RunSpec(pair="toy", prompt="the quick brown fox", k=3, max_new_tokens=12, tree_nodes=6))
    spec, base, grown = run(chain, pair=pair), run_target_only(chain, pair=pair), run(tree, pair=pair)
    slow = dataclasses.replace(base, wall_seconds=2 * base.wall_seconds)  # round 2: speedup twice round 1's
    render_race(RaceRounds(((spec, base), (spec, slow))), tree_lanes=(grown, grown))


@pytest.mark.parametrize("lang, said", [("en", r"the Chain against tree table below gives every lane's in round "
                                                r"([12]), the one the charts show"),
                                        ("pt", r"a tabela Cadeia contra árvore abaixo dá os de cada raia na rodada "
                                               r"([12]), a que os gráficos mostram")])
def test_a_tree_race_of_two_rounds_says_the_lanes_table_is_one_rounds(lang, said):
    """Read 46: of two rounds the headline speedup is their mean, while the Chain against tree table gives round 1's
    (the charts' round) with its own chain speedup beside the tree's: the caption said only that the table "gives the
    tree lane's", so a reader compared the tree's one-round speedup with the two rounds' median. It names the round."""
    at = AppTest.from_function(_two_round_tree_race, args=(lang,), default_timeout=120).run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    shown = re.search(said, captions)
    assert shown and f" {shown[1]}, " in next(m.proto.help for m in at.metric if m.label.endswith("tokens/s")), captions
    with using(lang):
        # the lanes table's chain row: round 1's, not the median
        chain_speedup = at.table[1].value.iloc[0][_("speedup")]
    assert chain_speedup != _metric(at, {"en": "Measured speedup", "pt": "Aceleração medida"}[lang])


def test_every_lane_of_the_race_chart_ends_at_its_runs_wall_time(monkeypatch):
    """Read 32: the chart's lanes ended where the timed steps did (1.548 s in a replay) while tokens/s divides by the
    whole run's wall time (1.576 s: the loop between the steps' timers), and the text called the tokens/s above its
    totals. Each lane now ends at its wall time, the remainder a "between steps" segment and table row."""
    from specviz.ui.race.figures import _ms, lanes_table, race_figure

    monkeypatch.chdir(ROOT)
    example = _raced_examples()[0]
    spec, base = load_example(example.name)
    assert timeline.untimed_seconds(spec) > 0 and timeline.untimed_seconds(base) > 0  # the replay has gaps
    ends: dict[str, float] = {}
    for bar in race_figure(spec, base).data:
        for lane, start, width in zip(bar.y, bar.base, bar.x):
            ends[lane] = max(ends.get(lane, 0.0), start + width)
    assert ends == pytest.approx({"speculative": spec.wall_seconds, "target only": base.wall_seconds})
    table = lanes_table(spec, base)
    gaps = table[table["step"] == "between steps"]
    assert list(gaps["lane"]) == ["speculative", "target only"]
    gap_ms = [_ms(timeline.untimed_seconds(t)) for t in (spec, base)]
    assert list(gaps["not timed (ms)"]) == gap_ms
    at = _app()
    text = " ".join(m.value for m in at.markdown)
    assert "the numbers above are its totals" not in text and "ends at the time its tokens/s" in text
    # 43rd read: a recorded example's lanes end at its recording's CPU time (its caption says so), not a wall time
    assert spec.meta["clock"] == "cpu" and "wall time its tokens/s" not in text
    assert "on the clock that timed it" in text

@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_two_unusable_link_values_are_named_in_the_plural(monkeypatch):
    """It read "The link's value for k, seed was not usable, so the default is shown instead." for two names; read
    52: it named the parameters only, not what each accepts nor the value the link gave."""
    monkeypatch.chdir(ROOT)
    at = _app(race_source="live", race_k="40", race_seed="-3")
    assert [e.value for e in at.error] == [escape_markdown(
        "Some values in the link were not usable, so the defaults are shown instead: race_k must be a whole number "
        "from 1 to 16 (got 40); race_seed must be a whole number from 0 to 4,294,967,295 (got −3).")]


@pytest.mark.slow  # an AppTest run per language
@pytest.mark.parametrize("lang, says", [
    ("en", "Some values in the link were not usable, so the defaults are shown instead: race_example must be text "
           "of at most 100 characters (got 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'); race_prompt must be text of 1 "
           "to 4,000 characters (got ' ')."),
    ("pt", "Alguns valores do link não puderam ser usados, então os padrões são mostrados no lugar: race_example deve "
           "ser um texto de no máximo 100 caracteres (recebido: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'); "
           "race_prompt deve ser um texto de 1 a 4.000 caracteres (recebido: ' ').")])
def test_an_unusable_link_value_is_named_as_the_link_writes_it(monkeypatch, lang, says):
    """Read 50: the refusal named "example, prompt" (in Portuguese too, English words no link holds) where the
    link's parameters are race_example and race_prompt; it names the parameters as the address bar shows them."""
    monkeypatch.chdir(ROOT)
    at = _app(race_source="live", race_example="x" * 200, race_prompt=" ", lang=lang)
    assert [e.value for e in at.error] == [escape_markdown(says)]


def test_the_outputs_note_says_sampled_lanes_can_differ_not_that_they_do(toy):
    """Read 36: the race's note said "With temperature > 0 they still differ". Sampled lanes can also write the same
    text (on the toy pair at T = 0.01 target-only and speculative decoding agree on seeds 0-2), and the page then
    says "Identical to the target-only output" beside it. The note now says they can differ."""
    from specviz.engine.baseline import autoregressive_generate
    from specviz.engine.decoding import speculative_generate
    from specviz.ui.race.outputs import TEXT, agreement

    ids = toy.tokenizer("the quick brown fox")["input_ids"]
    settings = dict(temperature=0.01, max_new_tokens=16, seed=0)
    base = autoregressive_generate(toy.target, ids, **settings)
    spec = speculative_generate(toy.target, toy.draft, ids, k=3, **settings)
    assert spec.output_ids == base.output_ids and agreement(spec, base) == TEXT["same"]
    for key in ("two_note", "three_note"):
        assert "they still differ" not in TEXT[key] and "they can still differ" in " ".join(TEXT[key].split())


def test_the_outputs_notes_count_a_trees_verify_pass_too():
    """The 37th read: the notes (rewritten by the 36th read) still said "a verify pass over K + 1 tokens" beside a
    tree lane and the committed float32 check's tree ({fp32_shape}), though a tree's pass reads its nodes, its lookup
    branch and one more (`DraftShape.rows`: 17 for that 8-node tree with a lookup branch of 8), as the Exactness
    page's greedy check now says. Both notes word it for a chain and a tree, in both languages."""
    from specviz.core.i18n import _, using
    from specviz.engine.draft_shape import DraftShape
    from specviz.ui.race import outputs

    assert DraftShape(3, 8, 4, 8).rows == 17 > DraftShape(3).rows == 4
    for key in ("two_note", "three_note"):
        english = " ".join(outputs.TEXT[key].split())
        assert "over K + 1 tokens" not in english
        assert "over several tokens (up to K + 1 for a chain; a tree's nodes, its lookup branch and one more)" in (
            english)
        with using("pt"):
            assert "(até K + 1 numa cadeia; numa árvore, seus nós, o ramo de busca e mais um)" in _(
                outputs.TEXT[key])
    doc = " ".join(outputs.__doc__.split())
    assert "a forward over K + 1 tokens" not in doc and "so their outputs part while" not in doc


def test_the_outputs_notes_name_the_target_forward_that_scores_up_to_k_plus_1():
    """Read 55: the notes said "a verify pass over several tokens (K + 1 for a chain; …)", but a chain step's target
    forward scores UP TO K + 1 positions (fewer at the token limit or when a policy drafts fewer), and the race names
    that pass "target forward" (its legend, table and hovers), never "verify pass". Both languages now say so."""
    from specviz.core.i18n import _, using
    from specviz.ui.race import outputs

    for key in ("two_note", "three_note"):
        english = " ".join(outputs.TEXT[key].split())
        assert "verify pass" not in english and "(K + 1 for a chain" not in english
        assert "a target forward over several tokens (up to K + 1 for a chain;" in english
        assert "differently from a one-token forward," in english
        with using("pt"):
            portuguese = _(outputs.TEXT[key])
        assert "passagem de verificação" not in portuguese and "(K + 1 numa cadeia" not in portuguese
        assert "uma passagem do alvo sobre vários tokens (até K + 1 numa cadeia;" in portuguese

def test_the_outputs_notes_name_the_pair_the_greedy_check_ran():
    """Read 45: under a toy-pair race the notes said "At temperature 0 they matched token for token in float32 on 64 of
    64 held-out prompts", but the committed check (greedy-identity-float32.json) ran the default pair with its EAGLE
    drafter (`greedy_identity`'s defaults), as the Exactness page says; the notes now name it, in both languages."""
    from specviz.core.i18n import _, using
    from specviz.ui.race import outputs

    check = json.loads((ROOT / "assets" / "benchmarks" / quoted.IDENTITY_FILES["fp32"][0]
                        / quoted.IDENTITY_FILES["fp32"][1]).read_text(encoding="utf-8"))
    assert "--pair" not in check["command"] and "--proposer" not in check["command"]  # so the defaults: default, eagle
    for key in ("two_note", "three_note"):
        english = " ".join(outputs.TEXT[key].split())
        assert "At temperature 0, with the default pair (SmolLM2-135M and its EAGLE drafter), they matched" in english
        with using("pt"):
            assert "Na temperatura 0, com o par padrão (o SmolLM2-135M e o seu rascunhador EAGLE), coincidiram" in _(
                outputs.TEXT[key])


def test_the_outputs_note_says_a_chain_lane_is_not_the_shape_the_float32_check_drafted(monkeypatch, tmp_path):
    """Read 47: under the race's chain lane the note said the lanes "matched token for token in float32 on 64 of 64
    held-out prompts", quoting greedy-identity-float32.json of default-cpu-f32-packed/, which drafted a tree (its
    `shape`: tree 8x4 depth 3 + lookup 8), not a chain. The note now says plainly that the check drafted a tree, not
    a chain like the lane under it, in both languages (and, were the check a chain, that a tree lane is unchecked)."""
    from specviz.ui.race import outputs

    folder, name = quoted.IDENTITY_FILES["fp32"]
    check = json.loads((ROOT / "assets" / "benchmarks" / folder / name).read_text(encoding="utf-8"))
    assert check["shape"].startswith("tree ")  # the committed check drafted a tree
    monkeypatch.chdir(ROOT)
    for lang, said in (("en", "That float32 check drafted a tree, not a chain like the “Speculative” lane above."),
                       ("pt", "Essa verificação em float32 rascunhou uma árvore, não uma cadeia como a da raia "
                              "“Especulativa” acima.")):
        at = _app(lang=lang)
        box = next(e for e in at.expander if e.label == ("The two outputs" if lang == "en" else "As duas saídas"))
        assert any(c.value.endswith(said) for c in box.caption), [c.value for c in box.caption]
    with using("pt"):
        assert outputs.check_shape_note(True) == ("Essa verificação em float32 rascunhou uma árvore, não uma cadeia "
                                                  "como a da raia “Especulativa, cadeia” acima.")
    chain = {**check, "shape": "chain K=4"}  # a check of a chain: the chain lane is its shape, a tree lane is not
    for key, (other_folder, other_name) in quoted.IDENTITY_FILES.items():
        (tmp_path / other_folder).mkdir(exist_ok=True)
        (tmp_path / other_folder / other_name).write_text(json.dumps(chain if key == "fp32" else check))
    assert outputs.check_shape_note(False, tmp_path) == ""
    assert outputs.check_shape_note(True, tmp_path) == ("That float32 check drafted a chain, not a tree like the "
                                                        "“Speculative, tree” lane above.")


@pytest.mark.slow  # a live toy race
def test_a_one_token_race_says_one_token_and_one_step(monkeypatch):
    """36th read (page states): at Max new tokens = 1 the lanes' help read "1 tokens in 0.02 s, 1 steps" and the
    estimate "1 tokens each"; the counts now agree with their nouns in both languages."""
    monkeypatch.chdir(ROOT)
    for lang, one, step in (("en", "1 token in ", "1 step (each"), ("pt", "1 token em ", "1 passo (cada")):
        at = _app(lang=lang, race_source="live", race_pair="toy", race_proposer="draft", race_prompt="a", race_k="4",
                  race_max_new="1", race_temperature="0.0", race_seed="0")
        helps = [m.proto.help for m in at.metric]
        assert any(h.startswith(one) and step in h for h in helps), helps
        shown = helps + [c.value for c in at.caption]
        assert not [t for t in shown if re.search(r"(?<!\+ )\b1 (tokens|steps|passos)\b", t)], shown


def test_the_lanes_table_puts_the_prefill_under_prefill_and_names_the_forward_as_the_legend_does(monkeypatch):
    """Read 40: the race chart's table put each lane's prefill time under "verify (ms)" with a draft of 0.00, where
    the chart draws the grey "prefill (read the prompt)" segment (with a draft model, the draft's pass over the prompt
    too), and headed the target-only lane's forwards "verify" although that lane verifies nothing. The prefill now
    has its own column and the blue segment's column is named as the legend names it, in both languages."""
    from specviz.ui.race.figures import PHASE_NAMES, _span, lanes_table

    monkeypatch.chdir(ROOT)
    spec, base = load_example("smollm-draft-greedy")
    for lang, prefill, forward, draft in (("en", "prefill (ms)", "target forward (ms)", "draft (ms)"),
                                          ("pt", "prefill (ms)", "passagem do alvo (ms)", "rascunho (ms)")):
        with using(lang):
            table = lanes_table(spec, base)
            assert forward.startswith(_(PHASE_NAMES["verify"]).split()[0])  # "target", "passagem": the legend's word
            prefills = [number(round(1000 * t.prefill_seconds, 2), 2) for t in (spec, base)]
            # read 54: a time is the difference of its segment's ends as written (`_span`)
            forwards = [_span(b.draft_end, b.verify_end) for b in (timeline.step_intervals(t)[1] for t in (spec, base))]
        assert not any("verify" in column or "verificação" in column for column in table.columns)
        first = table.groupby(table.columns[0], sort=False).head(1)  # each lane's first row: its prefill
        assert list(first[prefill]) == prefills
        assert list(first[forward]) == ["–", "–"] and list(first[draft]) == ["–", "–"]  # not a step: read 44
        assert list(table[table[table.columns[1]] == "1"][forward]) == forwards
        # stop 68's known-left list: a target-only forward drafts nothing, and its draft time read "0.00" beside a
        # drafted count of "–"; both read "–" now, and a speculative step keeps its measured draft time
        steps = table[table[table.columns[1]].str.isdigit()]  # the forwards' rows (not a prefill or "between steps")
        base_rows = steps[steps[table.columns[0]] == list(first[table.columns[0]])[-1]]
        assert len(base_rows) == len(base.steps) and set(base_rows[draft]) == {"–"}
        spec_rows = steps[steps[table.columns[0]] == list(first[table.columns[0]])[0]]
        assert len(spec_rows) == len(spec.steps) and "–" not in set(spec_rows[draft])


@pytest.mark.parametrize("lang, words", [("en", "A dash (–) marks a cell that does not apply to its row"),
                                         ("pt", "Um travessão (–) marca uma célula que não se aplica à sua linha")])
def test_the_lanes_table_marks_every_cell_that_does_not_apply_with_one_dash_and_says_so(monkeypatch, lang, words):
    """Read 44: the race chart's table left a prefill row's step cells, a step's prefill cell and a "between steps"
    row's cells empty, but wrote "–" for a target-only forward's draft: two marks for "does not apply", neither
    explained. Every such cell is "–" now, and a caption over the table says what the dash means."""
    from specviz.ui.race.figures import lanes_table

    monkeypatch.chdir(ROOT)
    spec, base = load_example(_raced_examples()[0].name)
    assert timeline.untimed_seconds(spec) > 0  # a "between steps" row too
    with using(lang):
        table = lanes_table(spec, base)
    cells = table.to_numpy().ravel().tolist()
    assert "" not in cells and cells.count("–") > len(table)  # each row has at least one; step rows more
    at = _app(lang=lang)
    captions = [c.value for c in at.caption if c.value.startswith(words)]
    assert len(captions) == 1, [c.value for c in at.caption]


@pytest.mark.parametrize("lang, words", [("en", "A table cut off at its right edge on a narrow screen scrolls"),
                                         ("pt", "Uma tabela cortada na borda direita numa tela estreita rola")])
def test_the_wide_lanes_table_says_it_scrolls_sideways_and_the_narrow_one_does_not(monkeypatch, lang, words):
    """Read 46: on a 390 px phone the race's table of eleven columns showed its first five, cut at "draft (ms)"
    ("rascun…" in Portuguese), in a box that scrolls sideways with no scroll bar: it read as if the table ended there.
    A caption above it says how to reach the other columns (a swipe, or Tab then the arrow keys); the tokens chart's
    table of three columns fits a phone and says nothing of the kind."""
    from specviz.ui.common.charts import NUMBERS_LABEL, WIDE_TABLE

    monkeypatch.chdir(ROOT)
    at = _app(lang=lang)
    with using(lang):
        label = _(NUMBERS_LABEL)
    folds = [e for e in at.expander if e.label == label]
    hints = [[c.value for c in e.caption if c.value.startswith(words)] for e in folds]
    widths = [len(e.table[0].value.columns) + 1 for e in folds]  # the row labels are the table's index
    assert len(folds) >= 2 and min(widths) < WIDE_TABLE <= max(widths), widths  # the lanes' wide, the tokens' not
    assert [len(h) for h in hints] == [int(w >= WIDE_TABLE) for w in widths], (widths, hints)


def test_the_race_hover_says_what_a_step_drafted_not_another_k(monkeypatch):
    """Read 40: a step's hover read "K = 2" or "K = 0" where that step drafted fewer than the run's K = 4 (a draft that
    stopped early, the last step at the token limit), next to a settings line saying K = 4. It says "drafted 2"."""
    from specviz.ui.race.figures import race_figure

    monkeypatch.chdir(ROOT)
    spec, base = load_example("smollm-draft-greedy")
    short = [s for s in spec.steps if s.n_drafted < spec.settings["k"]]
    assert short  # this recording has steps that drafted fewer than K
    for lang, word in (("en", "drafted"), ("pt", "rascunhados")):
        with using(lang):
            hovers = [h for bar in race_figure(spec, base).data for h in (bar.hovertext or ())]
        assert not any("K = " in h for h in hovers)
        for step in short:
            assert any(h.startswith(f"<b>{_step_word(lang)} {step.index + 1}</b>") and f"{word} {step.n_drafted}," in h
                       for h in hovers), step.index



@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_lanes_table_holds_what_each_steps_hover_says_it_drafted_and_accepted(monkeypatch, lang):
    """Issue 43: each speculative step's hover says what it drafted and accepted ("drafted 2, accepted 1, emitted
    2"), but the table beside the chart, its text alternative, held only the tokens emitted. It now holds all three
    for every step, as the hover gives them; a target-only forward, whose hover names no draft, reads "–"."""
    from specviz.ui.race.figures import BASE_LANE, SPEC_LANE, lanes_table, race_figure

    monkeypatch.chdir(ROOT)
    spec, base = load_example("smollm-draft-greedy")
    pattern = {"en": r"<b>step (\d+)</b>.*<br>drafted (\d+), accepted (\d+), emitted (\d+)<br>",
               "pt": r"<b>passo (\d+)</b>.*<br>rascunhados (\d+), aceitos (\d+), emitidos (\d+)<br>"}[lang]
    with using(lang):
        fig, table = race_figure(spec, base), lanes_table(spec, base)
        lane, step, counts = _("lane"), _("step"), [_("tokens drafted"), _("tokens accepted"), _("tokens emitted")]
        spec_lane, base_lane = _(SPEC_LANE), _(BASE_LANE)
    said: dict[tuple[str, str], tuple[str, ...]] = {}
    for bar in fig.data:
        for y, hover in zip(bar.y, bar.hovertext or ()):
            if match := re.match(pattern, hover):
                said[(y, match[1])] = match.groups()[1:]
    rows = {(r[lane], r[step]): tuple(r[c] for c in counts) for r in table.to_dict("records")}
    assert len(said) == len(spec.steps) and {name for name, _n in said} == {spec_lane}
    assert {key: rows[key] for key in said} == said
    assert len({drafted for drafted, _a, _e in said.values()}) > 1  # steps that drafted fewer than K, too
    forwards = [cells for (name, n), cells in rows.items() if name == base_lane and n.isdigit()]
    assert len(forwards) == len(base.steps) and set(forwards) == {("–", "–", "1")}


@pytest.mark.parametrize("lang, forward, rest, step", [("en", "target forward", "rest of the step", "step"),
                                                      ("pt", "passagem do alvo", "resto do passo", "passo")])
def test_a_target_only_hover_gives_the_tables_forward_and_its_step_apart(monkeypatch, lang, forward, rest, step):
    """Read 46: a target-only forward's hover gave one "103.89 ms", its whole step (the forward and its sampling), on
    the blue "target forward" segment, while the table beside it holds "target forward (ms)" 103.61 and the rest of
    the step apart. The hover now names both, each as the table has it (read 54: and the rest of the step between)."""
    from specviz.ui.race.figures import BASE_LANE, lanes_table, race_figure

    monkeypatch.chdir(ROOT)
    spec, base = load_example("smollm-draft-greedy")
    with using(lang):
        fig, table = race_figure(spec, base), lanes_table(spec, base)
        base_lane, column, rest_column = _(BASE_LANE), _("target forward (ms)"), _("rest of the step (ms)")
    hovers = {h for bar in fig.data if bar.y[0] == base_lane for h in (bar.hovertext or ())}
    rows = table[(table[table.columns[0]] == base_lane) & table[table.columns[1]].str.isdigit()]
    assert len(rows) == len(base.steps) == len([h for h in hovers if f" ms, {step} " in h])
    for _index, row in rows.iterrows():
        assert any(f"{forward} {row[column]} ms, {rest} {row[rest_column]} ms, {step} " in h for h in hovers), row


def _written(text: str, lang: str) -> Decimal:
    """A number as the race writes it in `lang` ("1,355.55"; "1.355,55"), exactly."""
    return Decimal(text.replace(",", "") if lang == "en" else text.replace(".", "").replace(",", "."))


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_lanes_tables_written_times_add_up_to_the_next_rows_start(monkeypatch, lang):
    """Read 54: the lanes table rounded each time to 0.01 ms on its own, so in the recorded races 197 of 535 rows'
    start and times, as written, missed the next row's start ("212.11 + 0.28 + 125.93 + 1.67" = 339.99 beside a
    next start of 339.98, smollm-ngram-t07's step 1). Each time is now the difference of its segment's ends, each
    rounded once, so every row adds up, in every recorded race and both lanes, and the last row to the run's time
    its "between steps" hover gives; the note over the table says how the times are rounded."""
    from specviz.ui.race.figures import LANES_TABLE_NOTE, _ms, lanes_table

    monkeypatch.chdir(ROOT)
    checked = 0
    for example in _raced_examples():
        spec, base = load_example(example.name)
        with using(lang):
            table = lanes_table(spec, base)
            lane, start = _("lane"), _("starts at (ms)")
            times = [_("prefill (ms)"), _("draft (ms)"), _("target forward (ms)"), _("rest of the step (ms)"),
                     _("not timed (ms)")]
            walls = {_("speculative"): _ms(spec.wall_seconds), _("target only"): _ms(base.wall_seconds)}
        rows = table.to_dict("records")
        for row, after in zip(rows, [*rows[1:], None]):
            total = _written(row[start], lang) + sum(_written(row[t], lang) for t in times if row[t] != "–")
            if after is not None and after[lane] == row[lane]:
                assert total == _written(after[start], lang), (example.name, row, after[start])
                checked += 1
            elif row[times[-1]] != "–":  # a lane's last row, "between steps": it ends where the run does
                assert total == _written(walls[row[lane]], lang), (example.name, row)
    assert checked >= 500  # 535 rows in the races recorded for read 54
    with using(lang):
        note = _(LANES_TABLE_NOTE)
    assert {"en": "each end rounded to 0.01 ms", "pt": "cada ponta arredondada a 0,01 ms"}[lang] in note, note


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_every_race_hovers_step_time_is_the_sum_of_its_written_parts(monkeypatch, lang):
    """Read 54: a step's hover wrote its draft and verify times and the whole step, each rounded on its own, and left
    out the rest of the step, so its parts could not be added up to the step it gave. It now writes all three parts,
    named as the legend and the table name them ("target forward", not "verify"), and they add up to the step."""
    from specviz.ui.race.figures import race_figure

    monkeypatch.chdir(ROOT)
    n = r"([\d.,]+)"
    pattern = {"en": rf"draft {n} ms, target forward {n} ms, rest of the step {n} ms, step {n} ms",
               "pt": rf"rascunho {n} ms, passagem do alvo {n} ms, resto do passo {n} ms, passo {n} ms"}[lang]
    checked = 0
    for example in _raced_examples():
        spec, base = load_example(example.name)
        with using(lang):
            hovers = [h for bar in race_figure(spec, base).data for h in (bar.hovertext or ()) if "<b>" in h]
        for hover in hovers:
            assert "verify" not in hover and "verificação" not in hover, hover
            if match := re.search(pattern, hover):
                draft, forward, rest, step = (_written(text, lang) for text in match.groups())
                assert draft + forward + rest == step, hover
                checked += 1
    assert checked > 300


def _step_word(lang: str) -> str:
    return {"en": "step", "pt": "passo"}[lang]


@pytest.mark.parametrize("lang, name", [("en", "rest of the step"), ("pt", "resto do passo")])
def test_the_race_names_the_part_of_a_step_after_the_forward_one_way(lang, name):
    """Read 44: the chart's legend called the part of a step after the target's forward "overhead: sampling and
    bookkeeping", the table "overhead (ms)", and the verdict "the rest of the step, the rule and the cache rewind":
    three names for one segment. All three now call it the rest of the step and say what it holds."""
    from specviz.ui.race.figures import lanes_table, race_figure

    spec, base = load_example("smollm-draft-t07")
    with using(lang):
        legend = {trace.name for trace in race_figure(spec, base).data if trace.showlegend is not False}
        columns = list(lanes_table(spec, base).columns)
        verdict = timeline.explain_race(spec, base)
    rest = [n for n in legend if n and name in n]
    assert len(rest) == 1 and ("sampling" in rest[0] or "amostragem" in rest[0]), legend
    assert any(c.startswith(name) for c in columns), columns
    assert re.search(rf"\+ {name} [0-9,.]+ ms: ", verdict), verdict  # "+ rest of the step 1.7 ms: sampling, ..."
    for text in (*legend, *columns, verdict):
        assert not re.search(r"overhead|sobrecarga", text or ""), text
    # the target-only lane's segment has the same name: the rule and the rewind are named as speculation's only
    assert re.search(r"when speculating, the rule|na especulação, a regra", rest[0]), rest


def test_the_token_lines_hover_puts_the_count_after_a_colon():
    """Read 44: the race's token lines hovered "0.012 s: 1 tokens" (the target-only lane's first token; "1 tokens"
    in Portuguese too). The count now follows a colon under the axis's own name, so 0 and 1 read right."""
    from specviz.ui.race import figures

    example = next(e for e in list_examples() if e.baseline_path is not None)
    spec, base = load_example(example.name)
    fig = figures.tokens_figure(spec, base)
    assert 1 in fig.data[-1].y  # target-only: one token a step, so a point at 1 token exists
    assert {t.hovertemplate.split("<extra>")[0] for t in fig.data} == {"%{x:.3f} s · output tokens: %{y}"}
    with using("pt"):
        fig = figures.tokens_figure(spec, base)
    assert {t.hovertemplate.split("<extra>")[0] for t in fig.data} == {"%{x:.3f} s · tokens de saída: %{y}"}


@pytest.mark.slow  # over 0.5 s on 2 cores: make check stays under a minute, make test runs it
def test_the_token_lines_share_the_lanes_time_axis_and_show_the_last_count():
    """Read 49 (a browser look): the "How the output grew" chart's axes ended at its last point, so the lane that
    finished last rose to its count in the plot's top right corner (44 tokens: a stub half outside the plot) and its
    seconds ran to 1.55 under the lanes chart's 1.6 with the same axis title. Both charts now end their time axis at
    the same second, and the token axis leaves room above the longest output."""
    from specviz.ui.race import figures

    examples = [e for e in list_examples() if e.baseline_path is not None]
    assert len(examples) >= 8  # every shipped example races
    for example in examples:
        spec, base = load_example(example.name)
        tokens, lanes = figures.tokens_figure(spec, base), figures.race_figure(spec, base)
        assert tokens.layout.xaxis.range == lanes.layout.xaxis.range, example.name
        last = max(x for t in tokens.data for x in t.x)
        assert tokens.layout.xaxis.range[1] > last, example.name  # the last jump is inside the plot, not on its edge
        most = max(y for t in tokens.data for y in t.y)
        assert most == max(spec.num_tokens, base.num_tokens)
        assert tokens.layout.yaxis.range[0] == 0 and tokens.layout.yaxis.range[1] >= most * 1.05, example.name


def test_the_token_lines_and_their_legend_differ_by_dash_as_well_as_colour():
    """Read 49: the race's speculative and target-only token lines were two solid lines told apart by their colour
    alone (green, grey), in the chart and in the HTML legend above it. Each lane's line has its own dash, and the
    legend draws each lane's swatch with it."""
    from specviz.ui.race import figures

    example = next(e for e in list_examples() if e.baseline_path is not None)
    spec, base = load_example(example.name)
    dashes = [t.line.dash for t in figures.tokens_figure(spec, base).data]
    assert dashes == ["solid", "dash"]
    legend = figures.swatches_html([("speculative", "#009E73"), ("target only", "#6B6B6B")], line=True,
                                   dashes=dashes)
    assert "border-top:3px solid #009E73" in legend and "border-top:3px dashed #6B6B6B" in legend


@pytest.mark.slow  # the page under AppTest
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_lanes_segments_and_their_legend_differ_by_pattern_as_well_as_colour(monkeypatch, lang):
    """Read 49 (WCAG 1.4.1): the lanes chart's prefill, draft, target forward and rest-of-the-step segments differed
    only by colour and order, and the HTML legend above it drew plain colour boxes. Each segment has its own fill
    pattern now (the target forward solid), the legend's swatch draws the same one, and the paragraph above names
    them with the colours."""
    import html
    import json

    from specviz.ui.race import figures

    monkeypatch.chdir(ROOT)
    at = _app(lang=lang)
    with using(lang):
        names = {phase: figures._(name) for phase, name in figures.PHASE_NAMES.items()}
    lanes = next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                 if any(t.get("name") == names["draft"] for t in json.loads(c.proto.spec)["data"]))
    shapes = {t["name"]: ((t["marker"].get("pattern") or {}).get("shape") or "",
                          (t["marker"].get("pattern") or {}).get("fgcolor") or "") for t in lanes["data"]}
    phases = {phase: shapes[name] for phase, name in names.items() if name in shapes}
    assert {"prefill", "draft", "verify", "overhead"} <= set(phases)
    assert len(set(s for s, _c in phases.values())) == len(phases), phases  # no two segments share a fill
    legend = next(body for body in (html.unescape(h.proto.body) for h in at.get("html")) if names["draft"] in body)
    # read 54: the draft's legend said "(a tree lane: its nodes)" in a race without a tree lane (this one)
    assert "tree lane" not in legend and "raia da árvore" not in legend, legend
    for phase, name in names.items():
        swatch = legend.split(name)[0].rsplit('<span style="display:inline-block;width:13px', 1)[1]
        shape, color = figures.PHASE_PATTERNS[phase]
        assert (figures.pattern_css(shape, color) in swatch) if shape else ("background-image" not in swatch), phase
        if phase in phases:
            assert phases[phase] == (shape, color), phase
    said = [m.value for m in at.markdown if "orange" in m.value or "laranja" in m.value]
    assert said and ("orange, striped drafting segment followed by one solid blue" in said[0] if lang == "en" else
                     "laranja e listrado de rascunho seguido de uma passagem azul lisa" in said[0])


@pytest.mark.slow  # the page under AppTest
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_lanes_paragraph_says_a_narrow_segment_may_show_no_count_or_nothing(monkeypatch, lang):
    """Read 50, in Chromium: the paragraph said "the number on it is how many tokens the step emitted", but Plotly
    leaves a target forward unlabelled where its "+n" does not fit (the toy example at 1,400 px: 7 of 12 steps
    labelled; Medusa's: 5 of 33; on a phone fewer), and the default n-gram example's drafting (0.5 ms of a 111 ms step
    on average) draws no orange segment at all. The paragraph now says both, and where every step's count is."""
    monkeypatch.chdir(ROOT)
    at = _app(lang=lang)
    said = [m.value for m in at.markdown if "orange" in m.value or "laranja" in m.value]
    assert said, [m.value for m in at.markdown]
    if lang == "en":
        assert "the number on it, where the segment is wide enough to hold it, is how many tokens" in said[0]
        assert "(n-gram lookup's or Medusa's drafting, the rest of a step) is too thin to see" in said[0]
        assert '"The numbers in this chart" lists every step\'s' in said[0]
    else:
        assert "o número nela, onde o segmento é largo o bastante para contê-lo, é quantos tokens" in said[0]
        assert "é fino demais para se ver" in said[0]
        assert '"Os números deste gráfico" lista os de cada passo' in said[0]
    # the default example is the one whose drafting is too thin: under 1% of its mean step
    spec, _base = load_example(list_examples()[0].name)
    bars = [b for b in timeline.step_intervals(spec) if b.index >= 0]
    assert "ngram" in list_examples()[0].name
    assert sum(b.draft_seconds for b in bars) < 0.01 * sum(b.seconds for b in bars)


@pytest.mark.slow  # two pages under AppTest: over 0.35 s
def test_k_is_named_a_trees_depth_wherever_a_tree_can_be_drafted(monkeypatch):
    """Read 45, names: the sidebar's notation and the K sliders beside the tree inputs (the race's tree lane, the
    Playground's live run) called K "tokens drafted per step" alone, while a tree drafts up to its node budget per
    step and K is its depth (the tree inputs' help, the CLI's --k, the glossary's "a tree of N nodes, width W,
    depth K"): one name for two quantities. Each now says which K a tree means, in both languages."""
    from specviz.ui.common.frame import LEGEND
    from specviz.ui.race import tree

    monkeypatch.chdir(ROOT)
    race = _app(race_source="live")
    # read 55: a tree of fewer nodes than K is shallower than K, so K is the greatest depth the tree may reach (as
    # the nodes' help says, "depth at most K"), not its depth
    assert race.slider(key="race_k").label == "K (drafts per step; the tree lane's greatest depth)"
    assert race.number_input(key="race_tree_nodes").label.startswith("Tree lane: nodes")  # the inputs it names
    playground = AppTest.from_file(str(ROOT / "pages" / "playground.py"), default_timeout=60).run()
    playground.radio(key="playground_source").set_value("live").run()
    assert playground.slider(key="playground_k").label == "K: drafts per step (a tree's greatest depth)"
    assert "**K** = tokens drafted per step (a draft tree's greatest depth; a lookup branch" in _(LEGEND)
    with using("pt"):
        assert "tokens rascunhados por passo (a profundidade máxima de uma árvore de rascunho; um ramo de busca" \
            in _(LEGEND)
        assert _("K: drafts per step (a tree's greatest depth)") == \
            "K: palpites por passo (a profundidade máxima de uma árvore)"
        assert _("K (drafts per step; the tree lane's greatest depth)") == \
            "K (palpites por passo; a profundidade máxima da raia da árvore)"
    assert "depth at most K" in tree.TEXT["nodes_help"]  # the tree lane's nodes help, which the label now agrees with


@pytest.mark.slow  # the page under AppTest twice: over 0.35 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_lanes_tokens_and_seconds_give_the_tokens_per_second_it_shows(monkeypatch, lang):
    """Read 48: the lanes' help rounded the run time to two decimals, so the toy example's "47 tokens in 0.06 s"
    (783 tokens/s) stood under a metric of 738.8 and "42 tokens in 0.04 s" (1,050) under 937.8. Read 49: three
    significant digits were still not enough ("47 tokens in 0.0636 s" is 739.0, the Medusa example's "48 tokens in
    3.01 s" 15.9 under 16.0). Now tokens ÷ the seconds shown, to one decimal, is the metric, in every example and in
    both languages."""
    monkeypatch.chdir(ROOT)
    said = re.compile(r"^(\d+) tokens? (?:in|em) ([\d.,]+) s")
    at = _app(lang=lang)
    checked = 0
    for example in _raced_examples():
        at.selectbox(key="race_example").set_value(example.name)
        with using(lang):  # AppTest formats the selectbox's options in the test's thread
            at.run()
        assert not at.exception
        for metric in at.metric:
            shown = said.match(metric.proto.help)
            if shown:
                seconds = float(shown[2].replace(",", ".") if lang == "pt" else shown[2])
                decimals = len(metric.value.rpartition("," if lang == "pt" else ".")[2])  # 1, or 2 (read 51)
                with using(lang):
                    assert number(int(shown[1]) / seconds, decimals) == metric.value, (example.name,
                                                                                        metric.proto.help,
                                                                                        metric.value)
                checked += 1
    assert checked == 2 * len(_raced_examples())  # the speculative lane and target-only of each example


@pytest.mark.slow  # the page under AppTest once per example: over 0.35 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_lanes_tokens_per_second_as_shown_divide_to_the_measured_speedup(monkeypatch, lang):
    """Read 51: the headline reads "Measured speedup = tokens/s of speculative decoding ÷ tokens/s of target-only",
    but the n-gram example's 27.9 and 13.2 tokens/s stood beside 2.12× (27.9 ÷ 13.2 = 2.11), the EAGLE example's
    19.6 and 13.0 beside 1.50× (1.51) and Medusa's 24.2 and 16.0 beside 1.52× (1.51). The speeds now take a second
    decimal where one does not give the speedup shown, in every example and in both languages."""
    monkeypatch.chdir(ROOT)
    labels = {"en": ("Measured speedup", "Speculative, tokens/s", "Target only, tokens/s"),
              "pt": ("Aceleração medida", "Especulativa, tokens/s", "Só o alvo, tokens/s")}[lang]
    at = _app(lang=lang)
    widened = []
    for example in _raced_examples():
        at.selectbox(key="race_example").set_value(example.name)
        with using(lang):  # AppTest formats the selectbox's options in the test's thread
            at.run()
        assert not at.exception
        speedup, spec, base = (_metric(at, label) for label in labels)
        with using(lang):
            assert times(read_number(spec) / read_number(base)) == speedup, (example.name, spec, base, speedup)
        if len(spec.rpartition("," if lang == "pt" else ".")[2]) > 1:
            widened.append(example.name)
    assert "smollm-eagle-greedy" in widened and "toy-draft" not in widened  # one decimal where it is enough


@pytest.mark.slow  # the page runs twice per language: over 0.7 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_k_above_the_medusa_heads_says_a_step_drafts_at_most_the_heads(lang):
    """Read 48: the K slider goes to 16, but Medusa drafts one token per head (5 shipped), so a race at K = 8
    drafted 5 a step while the page read "K = 8". A caption beside the slider now says so, and only past the heads."""
    from specviz.ui.common.sliders import medusa_heads

    heads = medusa_heads()
    assert heads == 5  # the shipped heads (assets/models/smollm2-medusa/specviz.json)
    said = (f"O Medusa tem {heads} cabeças de previsão e cada uma rascunha um token, então um passo rascunha no "
            f"máximo {heads}, não K = 8" if lang == "pt" else
            f"Medusa has {heads} heads and each drafts one token, so a step drafts at most {heads}, not K = 8")
    at = _app(lang=lang, race_source="live", race_pair="default", race_proposer="medusa", race_k="8")
    assert at.slider(key="race_k").value == 8
    assert any(said in c.value for c in at.caption)
    # at the heads' count K is what a step drafts: no caption (a fresh page: AppTest's set_value on the Portuguese
    # page writes the English label of the source radio back)
    at = _app(lang=lang, race_source="live", race_pair="default", race_proposer="medusa", race_k=str(heads))
    assert not any(("cada uma rascunha um token" if lang == "pt" else "each drafts one token") in c.value
                   for c in at.caption)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_tokens_tables_times_tell_every_step_of_a_fast_lane_apart(lang):
    """Read 50: the toy example's target-only steps take under a millisecond, and the tokens chart's table, in
    seconds to 3 decimals, wrote "0.027" beside 26 output tokens and again beside 27, as if a token took no time
    (its hover said the same). The seconds take as many decimals as tell each lane's steps apart, in both."""
    from specviz.ui.race import figures

    spec, base = load_example("toy-draft")
    with using(lang):
        table = figures.tokens_table(spec, base)
        fig = figures.tokens_figure(spec, base)
        lane, seconds = _("lane"), _("seconds since generation started")
    for _name, rows in table.groupby(lane, sort=False):
        times = list(rows[seconds])
        assert all(a != b for a, b in zip(times, times[1:])), times
    digits = len(table[seconds].iloc[-1].split("," if lang == "pt" else ".")[1])
    assert digits == 4
    assert {t.hovertemplate.split(" s ·")[0] for t in fig.data} == {f"%{{x:.{digits}f}}"}


@pytest.mark.parametrize(("lang", "speeds"), [("en", ("19.55", "13.03")), ("pt", ("19,55", "13,03"))])
def test_the_rounds_and_lanes_tables_speeds_divide_to_their_speedups(lang, speeds):
    """Read 51: a round's (and a tree race lane's) tokens/s, to one decimal, need not divide to the speedup beside it:
    the EAGLE example's 19.6 ÷ 13.0 is 1.51, its speedup 1.50×, and a live toy race's rounds table read 9.2 and 12.4
    tokens/s beside 0.75× (9.2 ÷ 12.4 = 0.74). Both tables now write the speeds to the decimals that give it."""
    from specviz.labs.timeline import RaceRounds
    from specviz.ui.race.tree import lanes_rows
    from specviz.ui.race.view import rounds_table

    spec, base = load_example("smollm-eagle-greedy")
    with using(lang):
        rounds = rounds_table(RaceRounds(((spec, base),)))
        lanes = lanes_rows(spec, spec, base)  # the trace twice: a chain and a "tree" lane of the same speed
        shown = [(row[_("speculative tokens/s")], row[_("target only tokens/s")], row[_("speedup")]) for row in rounds]
        shown += [(row[_("tokens/s")], lanes[-1][_("tokens/s")], row[_("speedup")]) for row in lanes]
        for lane, target_only, speedup in shown:
            assert times(read_number(lane) / read_number(target_only)) == speedup, (lane, target_only, speedup)
    assert shown[0][:2] == speeds


def _short_tree_race() -> None:
    """Render a one-round toy race whose tree lane stopped after its first step, the others at 12 tokens (AppTest)."""
    from dataclasses import replace

    from specviz.labs.timeline import RaceRounds
    from specviz.models.pairs import toy_pair
    from specviz.runs.running import run, run_target_only
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race.tree import lane_specs
    from specviz.ui.race.view import render_race

    pair = toy_pair()
    chain, tree = lane_specs(RunSpec(pair="toy", prompt="the quick brown fox", k=3, max_new_tokens=12, tree_nodes=6))
    grown = run(tree, pair=pair)
    steps = grown.steps[:1]  # the tree lane as if it had met end-of-text after its first step
    emitted = sum(len(step.emitted) for step in steps)
    short = replace(grown, steps=steps, output_ids=grown.output_ids[:emitted],
                    wall_seconds=grown.prefill_seconds + sum(s.draft_seconds + s.verify_seconds for s in steps))
    render_race(RaceRounds(((run(chain, pair=pair), run_target_only(chain, pair=pair)),)), tree_lanes=(short,))


@pytest.mark.slow  # the page under AppTest
def test_a_tree_lane_shorter_than_target_only_gets_the_length_note():
    """Read 51: a chain lane whose output length differed from target-only's got a note, a tree lane none."""
    at = AppTest.from_function(_short_tree_race, default_timeout=120).run()
    assert not at.exception
    notes = [c.value for c in at.caption if "differ in length" in c.value]
    assert any(re.match(r"The tree lane's output and the target-only output differ in length \(\d vs 12 tokens\)", n)
               for n in notes), notes


@pytest.mark.parametrize("lang, said", [("en", "Estimate: about 0.2 s ("), ("pt", "Estimativa: cerca de 0,2 s (")])
def test_a_race_estimate_under_a_second_says_so_not_about_1_s(monkeypatch, lang, said):
    """Read 51: the estimate never went below "about 1 s" (a floor of 1.0): at 1,000 tokens/s two rounds of two lanes
    of 48 tokens and their 2-token warm-ups take 0.196 s, and it said "about 1 s", five times that."""
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race import inputs

    monkeypatch.setattr(inputs, "_calibrated_rate", lambda name: 1000.0)
    monkeypatch.setattr(inputs, "has_tree_lane", lambda spec: False)
    with using(lang):
        text = inputs.race_estimate(RunSpec(pair="default", proposer="eagle", max_new_tokens=48), rounds=2)
    assert text.startswith(said), text


@pytest.mark.parametrize("lang, written", [("en", ["1.13", "2.68", "1.01", "1.24"]),
                                           ("pt", ["1,13", "2,68", "1,01", "1,24"])])
def test_the_races_milliseconds_are_rounded_once_half_up(lang, written):
    """Read 52: the race's hovers and lanes table wrote milliseconds with `number(round(1000 * s, 2), 2)`: Python's
    round first (half to even, on the binary double), then `number`, so a segment of 1.125 ms read "1.12" and one of
    2.675 ms "2.67", where a reader (and `number`) rounds to 1.13 and 2.68; 1000 × 0.001005 s is 1.0049999... in
    floating point. They are now rounded once, half up, from the seconds recorded."""
    from specviz.ui.race.figures import _ms

    with using(lang):
        assert [_ms(s) for s in (0.001125, 0.002675, 0.001005, 0.0012449)] == written


@pytest.mark.slow  # renders the page
def test_how_the_output_grew_says_what_one_jump_is(monkeypatch):
    """Read 52: "Steep jumps are steps where several drafts were accepted at once", though a jump of 2 tokens is one
    kept draft plus the recovered or bonus token every step adds. The sentence now says what a jump is, and the
    example's steps bear it out: each adds its kept drafts plus one."""
    monkeypatch.chdir(ROOT)
    told = [str(m.value) for m in _app().markdown if "How the output grew" in str(m.value)]
    assert len(told) == 1 and "several drafts were accepted at once" not in told[0]
    assert ("plus the one token it adds (recovered or bonus, or its own token in a step that drafted nothing), so a "
            "jump of n tokens kept n − 1") in told[0]
    spec = load_example(_raced_examples()[0].name)[0]
    assert all(len(s.emitted) == sum(d.accepted for d in s.decisions) + 1 for s in spec.steps[:-1])


@pytest.mark.parametrize("lang, said", [
    ("en", "(recovered or bonus, or its own token in a step that drafted nothing)"),
    ("pt", "(recuperado ou bônus, ou o seu próprio token num passo que não rascunhou nada)")])
def test_how_the_output_grew_names_the_token_of_a_step_that_drafted_nothing(monkeypatch, lang, said):
    """Read 53: "plus the one token it adds (recovered or bonus)" stood over the EAGLE example, whose last step (one
    token left to write) drafted nothing and added the target's own token, the outputs box's "target" chip."""
    from specviz.engine.trace import TokenKind

    monkeypatch.chdir(ROOT)
    spec = load_example("smollm-eagle-greedy")[0]
    last = spec.steps[-1]
    assert last.n_drafted == 0 and [t.kind for t in last.emitted] == [TokenKind.TARGET]
    at = _app(race_example="smollm-eagle-greedy", lang=lang)
    told = [str(m.value) for m in at.markdown if "**How the output grew.**" in str(m.value)
            or "**Como a saída cresceu.**" in str(m.value)]
    assert len(told) == 1 and said in told[0]


def _rounds_of_one_and_two_decimals(lang: str) -> None:
    """Render a two-round race (AppTest script): round 1's speeds need one decimal to give its speedup (20.0 ÷ 10.0
    = 2.00×), round 2's two (19.55 ÷ 13.03 = 1.50×, where 19.6 ÷ 13.0 is 1.51); both are 0.25 from the median 1.75×,
    so the metrics show round 1."""
    from specviz.core.i18n import set_language
    from specviz.engine.trace import Step, Trace
    from specviz.labs.timeline import RaceRounds
    from specviz.ui.race.view import render_race

    def lane(mode, seconds, tokens):
        steps = [Step(0, 1, 0, "none", [], [], verify_seconds=seconds)]
        return Trace(mode, {}, [1], [7] * tokens, steps, wall_seconds=seconds)

    set_language(lang)
    render_race(RaceRounds(((lane("speculative", 1.0, 20), lane("autoregressive", 1.0, 10)),
                            (lane("speculative", 2.454946, 48), lane("autoregressive", 3.685060, 48)))))


@pytest.mark.parametrize("lang, spec_label, base_label, spec, base", [
    ("en", "Speculative, tokens/s", "Target only, tokens/s", "20.00", "10.00"),
    ("pt", "Especulativa, tokens/s", "Só o alvo, tokens/s", "20,00", "10,00")])
def test_the_speed_metrics_write_their_round_as_the_rounds_table_does(lang, spec_label, base_label, spec, base):
    """Read 54: the speed metrics took the decimals their own round needs, the rounds table those every round needs,
    so a live race showed round 2's speculative speed as "69,5" in the metric and "69,52" in the table under it. The
    metrics now take the table's decimals: one figure per round's speed."""
    at = AppTest.from_function(_rounds_of_one_and_two_decimals, args=(lang,), default_timeout=120).run()
    assert not at.exception
    assert (_metric(at, spec_label), _metric(at, base_label)) == (spec, base)
    table = at.table[0].value
    assert list(table.iloc[0, 1:3]) == [spec, base]  # round 1, the round the metrics show


def _chain_and_tree_of_one_and_two_decimals(lang: str) -> None:
    """Render a one-round race with a tree lane (AppTest script): the chain's speeds need one decimal to give its
    speedup (26.0 ÷ 13.0 = 2.00×), the tree's two (19.55 ÷ 13.03 = 1.50×, where 19.6 ÷ 13.0 is 1.51)."""
    from specviz.core.i18n import set_language
    from specviz.engine.trace import Step, Trace
    from specviz.labs.timeline import RaceRounds
    from specviz.ui.race.view import render_race

    def lane(mode, seconds, tokens):
        steps = [Step(0, 1, 0, "none", [], [], verify_seconds=seconds)]
        return Trace(mode, {}, [1], [7] * tokens, steps, wall_seconds=seconds)

    set_language(lang)
    render_race(RaceRounds(((lane("speculative", 1.0, 26), lane("autoregressive", 3.685060, 48)),)),
                tree_lanes=(lane("speculative", 2.454946, 48),))


@pytest.mark.parametrize("lang, label, chain", [("en", "Speculative, tokens/s", "26.00"),
                                                ("pt", "Especulativa, tokens/s", "26,00")])
def test_the_chain_speed_reads_the_same_in_its_metric_and_the_chain_against_tree_table(lang, label, chain):
    """Read 54: the Chain against tree table wrote the chain lane's speed with the decimals the tree lane needs and the
    metric above it with the chain's own, so one figure read "26.0" and "26.00". Both now take one count."""
    at = AppTest.from_function(_chain_and_tree_of_one_and_two_decimals, args=(lang,), default_timeout=120).run()
    assert not at.exception
    assert _metric(at, label) == chain
    assert at.table[0].value.iloc[0].tolist()[3] == chain  # the chain lane's row: forwards, tokens, MAL, tokens/s


def test_a_shape_table_row_holding_fewer_nodes_than_its_budget_sets_the_nodes_it_holds(monkeypatch):
    """Read 55: the committed shape table's "tree 16x2 depth 4" holds at most 14 nodes (2 + 3 · 2²); predicted fastest
    here, it set the race's tree lane to 16 nodes, a budget the race now refuses. `fastest_here` gives the 14 its
    tree drafts (the same tree), so switching to the real model races it."""
    from types import SimpleNamespace

    from specviz.engine.draft_shape import DraftShape
    from specviz.ui.common import this_machine

    monkeypatch.setattr(this_machine, "expected", lambda pair="default": object())
    monkeypatch.setattr(this_machine, "best_here", lambda cal, t: SimpleNamespace(shape=DraftShape(4, 16, 2)))
    assert this_machine.fastest_here("default")[0] == DraftShape(4, 14, 2)
    at = _app(race_source="live")
    at.selectbox(key="race_pair").set_value("default").run()
    assert not at.exception and not at.error
    assert (at.number_input(key="race_tree_nodes").value, at.number_input(key="race_tree_width").value) == (14, 2)
