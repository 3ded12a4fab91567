"""A page's timed live parts stop while its browser tab is hidden and start again when it is shown
(`specviz.ui.common.frame.watch_tab_visibility`, `tab_hidden`, `live_fragment`), all but the sidebar's loading note
(`watch_tab=False`: it ticks only while the default pair loads): once the pair is loaded, a class's phones in pockets
cost the laptop serving it no timed reruns, and a returning tab is current at once."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from specviz.scripts.screenshots import free_port, wait_for_health
from specviz.ui.common import frame

ROOT = Path(__file__).resolve().parents[2]


class _Recorder:
    """Stands in for `streamlit.fragment`: records the timer each live part was given."""

    def __init__(self):
        self.run_every = []

    def __call__(self, function, run_every=None):
        self.run_every.append(run_every)
        return function


def test_a_hidden_tab_turns_a_timer_off_and_a_shown_one_keeps_it(monkeypatch):
    recorder, hidden, watched = _Recorder(), [False], []
    monkeypatch.setattr(frame.st, "fragment", recorder)
    monkeypatch.setattr(frame, "watch_tab_visibility", lambda name: watched.append(name) or hidden[0])

    def panel():
        pass

    frame.live_fragment(panel, run_every=2)
    hidden[0] = True
    frame.live_fragment(panel, run_every=2)
    frame.live_fragment(panel, run_every=2, watch_tab=False)  # the sidebar's loading note keeps its timer
    frame.live_fragment(panel, run_every=None)  # an untimed part never mounts a watcher
    hidden[0] = False
    frame.live_fragment(panel, run_every=5)
    assert recorder.run_every == [2, None, 2, None, 5]
    assert watched == [panel.__qualname__] * 3
    sources = [*(ROOT / "specviz").rglob("*.py"), *(ROOT / "pages").glob("*.py")]
    untied = [p.name for p in sources for _ in range(p.read_text(encoding="utf-8").count("watch_tab=False)"))]
    assert untied == ["frame.py"], "the module docstring names the one timer that ignores the tab"


# A page with two timed live parts, made the way specviz's pages make them: each mounts its own watcher.
APP = textwrap.dedent("""
    import time
    import streamlit as st
    from specviz.ui.common.frame import live_fragment

    st.markdown(f"page run at {time.monotonic():.3f}")

    def tick():
        st.markdown(f"tick at {time.monotonic():.3f}")

    def tock():
        st.markdown(f"tock at {time.monotonic():.3f}")

    live_fragment(tick, run_every=0.5)()
    live_fragment(tock, run_every=0.7)()
""")

HIDE = """(state) => {
    Object.defineProperty(document, 'visibilityState', {value: state, configurable: true});
    document.dispatchEvent(new Event('visibilitychange'));
}"""


@pytest.mark.browser
@pytest.mark.slow
def test_a_hidden_tab_stops_the_refresh_and_a_shown_one_starts_it(browser_context, tmp_path):
    script = tmp_path / "live_page.py"
    script.write_text(APP, encoding="utf-8")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1",
                             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for_health(url, proc, 60)
        page = browser_context.new_page()
        page.goto(url)

        def tick() -> tuple[float, float]:
            return tuple(float(page.get_by_text(re.compile(f"^{part} at ")).inner_text(timeout=15_000).split()[-1])
                         for part in ("tick", "tock"))

        def both_advance(since: tuple[float, float], what: str) -> None:
            # each timer fires every 0.5-0.7 s; on a loaded machine a rerun can come seconds late: wait, within a bound
            deadline = time.monotonic() + 30
            while not all(now > then for now, then in zip(tick(), since)):
                assert time.monotonic() < deadline, f"{what}: a live part did not refresh within 30 s"
                page.wait_for_timeout(250)

        both_advance(tick(), "shown")  # shown: both refresh on their own

        page.evaluate(HIDE, "hidden")
        # the rerun the change causes, and any tick already on its way (late on a loaded machine), settle first
        deadline, paused = time.monotonic() + 30, tick()
        page.wait_for_timeout(1500)
        while (now := tick()) != paused:
            assert time.monotonic() < deadline, "a live part kept refreshing in a hidden tab (30 s)"
            paused = now
            page.wait_for_timeout(1500)
        page.wait_for_timeout(3000)  # six periods of the 0.5 s timer, four of the 0.7 s one
        assert tick() == paused, "a live part kept refreshing in a hidden tab"

        page.evaluate(HIDE, "visible")
        both_advance(paused, "shown again")  # shown again: current, timers on again
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_frame_docstring_names_the_timed_part_that_does_not_watch_its_tab():
    """25th read: frame.py's docstring said every live part that refreshes on a timer watches its tab, but the
    sidebar's loading note runs its timer with `watch_tab=False`."""
    source = (ROOT / "specviz" / "ui" / "common" / "frame.py").read_text(encoding="utf-8")
    assert "live_fragment(_preload_ticking, run_every=PRELOAD_TICK_SECONDS, watch_tab=False)" in source
    doc = " ".join(frame.__doc__.split())
    assert "One timed part does not watch: the sidebar's loading note (`watch_tab=False`)" in doc


def test_the_serving_toggle_says_a_hidden_tab_pauses_it():
    """Read 26: the Serving lab's "Live updates" help said /metrics is re-read "while this page is open", but its
    panel is a `live_fragment` that watches its tab: in a hidden browser tab the page is still open and nothing is
    read."""
    from specviz.core.i18n import using
    from specviz.ui.serving import view

    source = Path(view.__file__).read_text(encoding="utf-8")
    assert "live_fragment(_live_body, run_every=REFRESH_S if live else None)(base)" in source  # watches its tab
    assert "while this page is open" not in source and "a hidden browser tab" in source
    with using("pt"):
        from specviz.core.i18n import _
        shown = _("Re-read /metrics every {seconds} s while this page is shown (a hidden browser tab pauses it).",
                  seconds="5")
    assert "oculta" in shown
