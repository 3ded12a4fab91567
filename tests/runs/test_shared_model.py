"""One visitor cannot hold the shared model by a link (issue 28, Medium 6): a live link ran on open, and a race gave
each of its lanes a fresh 60-s deadline (one heavy race link held the model > 105 s). Now a link runs on open only
what is light (the toy pair) or already computed, and a browser session holds or waits for one turn at a time. A
turn's one shared deadline, issue 28's fix, let target-only decoding starve (issue 42): each race lane now has
RUN_SECONDS of its own (`runs.turn_deadline`)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz.runs.running import Busy, Turns
from specviz.ui.common.runs import RUN_SECONDS
from specviz.ui.race import live as race_live

ROOT = Path(__file__).resolve().parents[2]


def test_an_owner_holds_or_waits_for_one_turn_at_a_time():
    turns = Turns()
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with turns.take(owner="session:a"):
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    assert held.wait(10)
    start = time.monotonic()
    with pytest.raises(Busy) as info:  # the same visitor again (a second tab of the same session, a reload race)
        with turns.take(timeout=30, owner="session:a"):
            pass
    assert time.monotonic() - start < 1 and str(info.value).startswith("You already have a run")
    waiting: list[str] = []

    def wait_as_b() -> None:
        with turns.take(timeout=30, owner="session:b"):
            waiting.append("b ran")

    other = threading.Thread(target=wait_as_b)
    other.start()
    deadline = time.monotonic() + 5
    while turns.ahead() < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    with pytest.raises(Busy):  # b is queued: b cannot queue a second run
        with turns.take(timeout=30, owner="session:b"):
            pass
    release.set()
    holder.join(10)
    other.join(10)
    assert waiting == ["b ran"] and turns.ahead() == 0
    with turns.take(timeout=1, owner="session:a"):  # once done, the owner may go again
        pass


def test_a_waiter_that_is_stopped_leaves_the_queue():
    """A page stopped while waiting (Streamlit raises a control exception from the progress callback) used to stay
    in the queue for ever, and every later run waited behind it."""
    turns = Turns()
    release = threading.Event()
    holder = threading.Thread(target=lambda: _hold(turns, release))
    holder.start()
    while turns.ahead() < 1:
        time.sleep(0.01)

    def stopped(ahead: int) -> None:
        raise KeyboardInterrupt  # stands for Streamlit's StopException, a BaseException too

    with pytest.raises(KeyboardInterrupt):
        with turns.take(timeout=30, on_wait=stopped, owner="session:gone"):
            pass
    assert turns.ahead() == 1  # only the holder
    release.set()
    holder.join(10)
    with turns.take(timeout=1, owner="session:gone"):
        pass


def _hold(turns: Turns, release: threading.Event) -> None:
    with turns.take(owner="session:holder"):
        release.wait(10)


def _page(name: str, **query: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    return at


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_every_race_lane_gets_the_same_tokens_and_its_own_time(monkeypatch):
    """Issue 42: lanes that shared one deadline let target-only decoding run 1 token while the speculative lane used
    the time. Each lane (and each warm-up lane) now runs with a deadline of its own, RUN_SECONDS from its start,
    and the same token budget."""
    seen: list[tuple[str, float, float, int]] = []
    real_run, real_target = race_live.run, race_live.run_target_only

    def recorded(real, name):
        def lane(spec, *, pair, deadline, **kwargs):
            seen.append((name, deadline, time.perf_counter(), spec.max_new_tokens))
            return real(spec, pair=pair, deadline=deadline, **kwargs)
        return lane

    monkeypatch.setattr(race_live, "run", recorded(real_run, "speculative"))
    monkeypatch.setattr(race_live, "run_target_only", recorded(real_target, "target-only"))
    at = _page("race.py", race_source="live", race_pair="toy", race_proposer="ngram", race_k="2",
               race_max_new="8").run()
    assert not at.exception and not at.error
    turns = 1 + race_live.ROUNDS
    assert len(seen) == 2 * turns  # a chain lane and the target-only lane per turn
    assert len({deadline for _, deadline, _, _ in seen}) == 2 * turns  # one deadline per lane
    assert all(0 < deadline - start <= RUN_SECONDS for _, deadline, start, _ in seen)
    races = seen[2:]  # after the warm-up's two lanes
    assert {tokens for _, _, _, tokens in races} == {8}  # every lane the same token budget


def test_a_heavy_race_link_waits_for_a_press(monkeypatch):
    measured: list[object] = []
    monkeypatch.setattr("specviz.ui.race.live.measure_race", lambda settings: measured.append(settings))
    at = _page("race.py", race_source="live", race_pair="default", race_proposer="ngram").run()
    assert not at.exception and not at.error and measured == []
    assert any("press **Run the race** to start it" in i.value for i in at.info)


def test_a_heavy_playground_link_waits_for_a_press(monkeypatch):
    started: list[object] = []
    monkeypatch.setattr("specviz.ui.playground.live.run_speculative",
                        lambda spec, progress=None: started.append(spec))
    at = _page("playground.py", source="live", pair="default", proposer="ngram", k="3").run()
    assert not at.exception and started == []  # nothing was run, nothing loaded
    assert any("press **Run** to start it" in i.value for i in at.info)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_light_link_still_runs_on_open():
    at = _page("playground.py", source="live", pair="toy", proposer="ngram", k="3", max_new_tokens="8").run()
    assert not at.exception and not at.error
    assert not any("press **Run** to start it" in i.value for i in at.info)
    assert "playground_live" in at.session_state


def test_the_runs_module_says_each_race_lane_has_its_own_deadline():
    """The 22nd read: `runs.turn_deadline` still said a race's lanes share one deadline ("a turn never holds the model
    longer than one run may"), which ed2db90 undid; the race calls it once per lane
    (test_every_race_lane_gets_the_same_tokens_and_its_own_time)."""
    from specviz.ui.common import runs

    said = " ".join(" ".join((runs.__doc__, runs.with_turn.__doc__, runs.turn_deadline.__doc__)).split())
    assert "lanes share it" not in said and "one deadline per turn" not in said
    assert "once per lane" in said and "RUN_SECONDS per lane" in said
    assert "a turn has one deadline for everything" not in " ".join(__doc__.split())  # this file's own, read 25



def test_the_class_docs_say_each_race_lane_has_its_own_deadline():
    """Read 46: docs/classroom.md still said "a race's lanes share that deadline", issue 28's rule that issue 42
    undid (each lane and each warm-up lane calls `runs.turn_deadline`, test_every_race_lane_gets_the_same_tokens_and_its
    _own_time), so a teacher sizing a class's wait read one race turn as at most RUN_SECONDS."""
    said = " ".join((ROOT / "docs" / "classroom.md").read_text(encoding="utf-8").split())
    assert "lanes share that deadline" not in said
    assert f"a race gives each of its lanes, warm-ups included, {RUN_SECONDS:.0f} s of its own" in said
    assert f"hold the model for {RUN_SECONDS:.0f} s a lane" in said
    # only a live run has the deadline: the Exactness lab and the Speedup lab's sweep take the turn with none
    assert "the Exactness lab and the sweep hold it until their job is done" in said
    for page in ("exactness/view.py", "speedup/live.py"):
        code = (ROOT / "specviz" / "ui" / page).read_text(encoding="utf-8")
        assert "with_turn(" in code and "deadline" not in code

def test_the_preloads_docstring_quotes_the_committed_first_load():
    """The 22nd read: `runs.preload` said the model takes "25 s on a quiet 2-core machine", a figure from ffff04a's
    message (a Playground link's wait on a machine it does not describe). The docstring quotes the committed first
    load instead, as the Playground's first hint does, with its dtype."""
    from specviz.core.i18n import number
    from specviz.runs.presets import first_load
    from specviz.ui.common import runs

    loading = first_load("bfloat16")
    said = " ".join(runs.preload.__doc__.split())
    assert "25 s" not in said and "quiet" not in said
    assert f"{number(loading['first_seconds'], 0)} s on the 2-core machine of assets/benchmarks/presets/" in said
    assert f"in bfloat16: {number(loading['first_seconds'], 0)} s" in said  # 28th read: it lacked its dtype
    assert f"load average {number(loading['load_average_start'][0], 1)}" in said


def test_a_target_only_run_cut_by_the_time_limit_is_not_stored_but_a_whole_one_is(monkeypatch):
    """Read 47: a speculative run the time limit cut short was not cached, by a rule of its own in `run_speculative`,
    but the target-only lane (the Exactness page's greedy pair, the greedy comparison) cut short WAS, so a later
    visit showed the cut-short run as the link's. Both lanes now go through one store that refuses such a trace: the
    next call recomputes it; a whole run is stored and comes back without running again."""
    from specviz.engine.kinds import StopReason
    from specviz.runs.runspec import RunSpec
    from specviz.ui.common import runs

    computed: list[StopReason] = []
    real = runs.run_target_only

    def counted(spec, **kwargs):
        trace = real(spec, **kwargs)
        computed.append(trace.stop_reason)
        return trace

    monkeypatch.setattr(runs, "run_target_only", counted)
    runs._trace_store.clear()
    spec = RunSpec(pair="toy", prompt="cut short, then whole", temperature=0.0, max_new_tokens=8)
    monkeypatch.setattr(runs, "RUN_SECONDS", -1.0)  # past before the first token ends: the run stops after it
    cut = runs.run_autoregressive(spec)
    assert cut.stop_reason == StopReason.DEADLINE and cut.num_tokens < 8
    assert runs.cached_target_only(spec) is None
    runs.run_autoregressive(spec)
    assert computed == [StopReason.DEADLINE, StopReason.DEADLINE]  # recomputed, not the cut run again
    monkeypatch.setattr(runs, "RUN_SECONDS", 60.0)
    whole = runs.run_autoregressive(spec)
    assert whole.stop_reason != StopReason.DEADLINE and whole.num_tokens == 8
    assert runs.cached_target_only(spec).output_ids == whole.output_ids
    assert runs.run_autoregressive(spec).output_ids == whole.output_ids and len(computed) == 3  # from the store
    assert runs.cached_speculative(spec) is None  # the lanes keep their own traces
    runs._trace_store.clear()
