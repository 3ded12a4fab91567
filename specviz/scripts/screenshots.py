"""Take eight of the screenshots the READMEs and app tours show, in a browser: `python -m specviz.scripts.screenshots`.

The READMEs and app tours are README.md, README.pt-BR.md, docs/app.md and docs/app.pt-BR.md. The script starts
`streamlit run app.py` on a free local port, drives Debian's Chromium with Playwright and writes the eight below
(the others, such as the tree, lookup, Proposers, sandbox, phone and Portuguese Overview shots, come from one-off
runs of its helpers or a browser test: docs/app.md, "Where the screenshots come from", says which)

    assets/screenshots/playground.png   the Playground at the first step that kept some drafts, then rejected one
    assets/screenshots/race.png         the Timeline & race page on the EAGLE example (its trace names its machine)
    assets/screenshots/learn.png        the guided path at lesson 3, the accept rule
    assets/screenshots/theory-batch.png the Theory explorer's batch section (when speculation stops paying)
    assets/screenshots/pt-race.png      the race again, in Portuguese (README.pt-BR.md and docs/app.pt-BR.md show
                                        the pt- shots)
    assets/screenshots/pt-learn.png     lesson 3 again, in Portuguese
    assets/screenshots/pt-playground.png, pt-theory-batch.png   the Playground and the Theory explorer in Portuguese

Needs `chromium` on PATH (`make browser` installs it). The real-browser tests (tests/browser/, with the fixtures in
tests/conftest.py) reuse the helpers here: `chromium_path`, `serve`, `launch`, `wait_for_app`, `click_button`.

    python -m specviz.scripts.screenshots                 # all eight, into assets/screenshots/
    python -m specviz.scripts.screenshots --out /tmp/s    # somewhere else
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.core.paths import SCREENSHOTS_DIR, SOURCE_ROOT
from specviz.engine.limits import whole_arg

ROOT = SOURCE_ROOT  # the checkout that holds app.py (screenshots need the app, so not an installed wheel)
SHOTS_DIR = SCREENSHOTS_DIR
VIEWPORT = {"width": 1400, "height": 900}
# An init script (`context.add_init_script(STILL)`) that stops CSS animations and transitions in every page of a
# context: where one machine plays many visitors (the 30-tab load test, a class of phones), each tab's spinners and
# fades, drawn at 60 frames a second, took most of the CPU and starved the server under test
# (tests/browser/test_load.py: Chromium 387 CPU seconds against the server's 27; stilled, 169 against 31).
# Streamlit's "Running…" man is not CSS: a 200 ms setInterval redraws him while a run lasts, in every tab waiting in
# the model's queue; STILL starts no such interval (his first frame stays).
STILL_CSS = "*, *::before, *::after {transition: none !important; animation: none !important;}"
STILL = f"""document.addEventListener('DOMContentLoaded', () => {{
  const style = document.createElement('style');
  style.textContent = '{STILL_CSS}';
  document.head.appendChild(style);
}});
(() => {{
  const every = window.setInterval;
  window.setInterval = function (fn, ms, ...rest) {{
    if (ms === 200 && typeof fn === 'function' && /%\\w+\\.length/.test(String(fn))) return 0;  // the running man
    return every.call(this, fn, ms, ...rest);
  }};
}})();"""
# --renderer-process-limit=2: tabs of one browser share two renderer processes instead of one process each, so a new
# tab does not start a process and compile Streamlit's script bundle again. The accessibility, keyboard and phone
# modules (76 tests, one after the other) cost the 2-core AMD EPYC 252 and 260 CPU seconds with it against 425 and
# 565 without, and the 30-tab load test's Chromium 82 against 147 (docs/testing.md, "Renderer processes").
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--renderer-process-limit=2"]
MAX_BYTES = 300_000


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chromium_path() -> str:
    """Debian's Chromium for a headless run: its headless shell (package chromium-headless-shell, the build Playwright
    itself runs headless) where installed, else the full browser; a RuntimeError that says how to install it when
    neither is there.

    The shell is the same Blink and V8 without the desktop browser around them. On the 2-core AMD EPYC, five pages
    (theory, playground, quiz, race, overview) loaded three times each, twice per build and alternated, cost 8.9 CPU
    seconds of Chromium, 2.2 of the app server and 10.0 s of wall time per round with the shell, against 10.5, 2.4
    and 11.1 s with the full `chromium --headless` (means per round of the five pages) (`python -m
    specviz.scripts.page_cost --pages theory playground quiz race overview --repeats 3 --browser
    chromium-headless-shell`, then `--browser chromium`; 2026-12-04 18:00 UTC, load average 6 falling to 2)."""
    path = (shutil.which("chromium-headless-shell") or shutil.which("chromium")
            or shutil.which("chromium-browser"))
    if not path:
        raise RuntimeError("chromium is not on PATH: run `make browser` (apt-get install chromium "
                           "chromium-headless-shell) first.")
    return path


def wait_for_health(url: str, proc: subprocess.Popen, timeout: float, log=None) -> None:
    """Until Streamlit at `url` answers its health check; a RuntimeError if `proc` exits first (with the tail of
    `log`, a file its output goes to, when given) or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            said = ""
            if log is not None:
                log.seek(0)
                said = ": " + log.read().decode(errors="replace")[-2000:]
            raise RuntimeError(f"streamlit exited early{said}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"streamlit did not answer on {url} within {timeout:.0f} s.")
        time.sleep(0.3)


@contextlib.contextmanager
def serve(port: int | None = None, timeout: float = 60.0, launcher: Sequence[str] = ("-m", "streamlit"),
          env: Mapping[str, str] | None = None) -> Iterator[str]:
    """Run `streamlit run app.py` headless on localhost; yield its base URL; always stop it. `launcher` is what
    follows `python` before `run app.py` (a test may start Streamlit from `-c` after patching something), `env`
    adds to the environment."""
    port = port or free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", **(env or {})}
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        [sys.executable, *launcher, "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    LIVE_SERVERS[url] = log
    try:
        wait_for_health(url, proc, timeout, log)
        yield url
    finally:
        proc.send_signal(signal.SIGINT)  # streamlit's own Ctrl+C shutdown
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        LIVE_SERVERS.pop(url, None)
        log.close()


LIVE_SERVERS: dict[str, object] = {}  # base URL -> the log file of each server `serve` runs now (this process)


def server_log_tails(lines: int = 40) -> list[tuple[str, str]]:
    """(base URL, its last `lines` lines of output) for every server `serve` runs now: what a failed test's report
    shows, so a red CI run can be read without running it again."""
    tails = []
    for url, log in list(LIVE_SERVERS.items()):
        try:  # pread: the server writes through the same file position, which a seek here would move
            fd = log.fileno()
            size = os.fstat(fd).st_size
            text = os.pread(fd, 64_000, max(0, size - 64_000)).decode(errors="replace")
        except (OSError, ValueError):  # closed meanwhile
            continue
        tails.append((url, "\n".join(text.splitlines()[-lines:]) or "(no output yet)"))
    return tails


@contextlib.contextmanager
def launch(playwright, executable: str | None = None) -> Iterator[object]:
    """A headless Chromium browser context with a fresh profile in a temporary folder (`executable`: another
    Chromium build than `chromium_path()`'s)."""
    with tempfile.TemporaryDirectory(prefix="specviz-chromium-") as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=executable or chromium_path(), headless=True, args=CHROMIUM_ARGS,
            viewport=VIEWPORT,
        )
        try:
            yield context
        finally:
            context.close()


# What a page shows while its script runs: the app's own run state (Streamlit writes it on the app's root element from
# the first message of a run; its "Running…" widget only appears once a run has lasted 500 ms, so a run that had just
# started, a second run right after a first one say, looked idle to a wait that read the widget alone: the audit
# then read a page before its charts' tables were drawn, 2026-12-05), the widget, skeletons, spinners, and stale
# elements (drawn faded until the run redraws them).
BUSY = ('[data-testid="stApp"]:is([data-test-script-state="running"], [data-test-script-state="rerunRequested"], '
        '[data-test-script-state="stopRequested"], [data-test-script-state="initial"]), '
        '[data-testid="stStatusWidget"], [data-testid="stSkeleton"], .stSpinner, [data-stale="true"]')


# Quiet for `quiet` ms: read in the page every POLL_MS (Playwright's polling), so a wait ends QUIET_MS after the run
# ends instead of after fixed sleeps. `call` tells one wait from the one before it on the same page.
QUIET_MS, POLL_MS = 300, 50
_QUIET = """([busy, quiet, call]) => {
  const now = performance.now();
  if (!window.__specvizQuiet || window.__specvizQuiet.call !== call) window.__specvizQuiet = {call, since: null};
  const state = window.__specvizQuiet;
  if (document.querySelector(busy)) { state.since = null; return false; }
  if (state.since === null) state.since = now;
  return now - state.since >= quiet;
}"""
_calls = iter(range(1, 1 << 62))


def wait_for_app(page, timeout: float = 30.0, settle: float | None = None) -> None:
    """Wait until Streamlit has drawn the page and finished running its script: nothing in BUSY for QUIET_MS in a row,
    read every POLL_MS in the page (two reads 250 ms apart, then 250 ms more, took 0.5 s a call before).

    A page that refreshes itself (a classroom dashboard every 2 s) may never look idle on a busy machine, where each
    refresh takes most of its interval: `settle` caps the wait for quiet there (seconds; `timeout` when None), so a
    test goes on to its own explicit wait instead of spending the whole timeout."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.wait_for_selector('[data-testid="stMainBlockContainer"] h1', timeout=timeout * 1000)
    bound = timeout if settle is None else min(settle, timeout)  # from the heading on, as before
    try:
        page.wait_for_function(_QUIET, arg=[BUSY, QUIET_MS, next(_calls)], polling=POLL_MS, timeout=bound * 1000)
    except PlaywrightTimeout:
        pass  # never quiet within the bound: the caller's own waits and checks say what is missing


def click_button(page, label: str, timeout: float = 30.0) -> None:
    """Click the button whose text is `label` and wait for the script run it starts: the run shows in BUSY at once
    (Streamlit marks a rerun requested on the click); a click whose run is not seen within 400 ms (it started and
    ended between two reads, or never started) waits those 400 ms, as every click did before."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.get_by_role("button", name=label).first.click()
    try:
        page.wait_for_function("(busy) => !!document.querySelector(busy)", arg=BUSY, polling=25, timeout=400)
    except PlaywrightTimeout:
        pass
    wait_for_app(page, timeout)


def shoot(page, path: Path, full_page: bool = False) -> Path:
    """A PNG of what the viewport shows (or the whole page); a RuntimeError if it is over MAX_BYTES."""
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=full_page)
    if path.stat().st_size > MAX_BYTES:
        raise RuntimeError(f"{path} is {path.stat().st_size // 1000} KB, over the {MAX_BYTES // 1000} KB limit.")
    return path


_SCROLL_TO = """(el, margin) => {
    el.scrollIntoView({block: 'start'});
    let box = el.parentElement;
    while (box && !['auto', 'scroll'].includes(getComputedStyle(box).overflowY)) box = box.parentElement;
    (box || document.scrollingElement).scrollTop -= margin;
}"""


def _scroll_to_top_of(page, locator, margin: int = 90) -> None:
    """Scroll Streamlit's main area so that `locator` sits `margin` pixels below the top of the viewport."""
    locator.first.evaluate(_SCROLL_TO, margin)
    page.wait_for_timeout(500)


# the Playground's step headline when some drafts were kept and then one was rejected (the most telling step), as
# `step_view.step_headline` writes it ("Drafted 4 tokens, accepted 1, then 1 recovered token ↻: ...")
PARTLY_ACCEPTED = {"en": re.compile(r"Drafted \d+ tokens?, accepted [1-9]\d*, then 1 recovered"),
                   "pt": re.compile(r"Rascunhou \d+ tokens?, aceitou [1-9]\d*, depois 1 token recuperado")}
NEXT_STEP = {"en": "Next step", "pt": "Próximo passo"}


def playground_shot(page, base: str, out: Path, max_steps: int = 12, lang: str = "en") -> Path:
    """The Playground at the first step that kept some drafts and rejected one (or, failing that, the last step
    tried with a rejection on screen), scrolled to that step."""
    page.goto(f"{base}/playground" + ("?lang=pt" if lang == "pt" else ""))
    wait_for_app(page)
    for _ in range(max_steps):
        click_button(page, NEXT_STEP[lang])
        if page.get_by_text(PARTLY_ACCEPTED[lang]).count():
            break
    _scroll_to_top_of(page, page.get_by_role("button", name=NEXT_STEP[lang]))
    page.mouse.move(360, 450)  # to the blank left margin: off Next step, which the click left hovered (drawn darker)
    page.wait_for_timeout(300)
    return shoot(page, out / ("pt-playground.png" if lang == "pt" else "playground.png"))


def pt_playground_shot(page, base: str, out: Path) -> Path:
    return playground_shot(page, base, out, lang="pt")


@dataclass(frozen=True)
class ChartShot:
    """A page with a Plotly chart, shot in the viewport once the chart is drawn, scrolled so that the element
    `scroll_to(page)` finds sits `margin` pixels below the top."""

    url: str  # below the app's base URL
    file: str
    scroll_to: Callable[[object], object]  # page -> Playwright locator
    margin: int
    settle_ms: int = 0  # charts below the fold draw only once in view

    def __call__(self, page, base: str, out: Path) -> Path:
        page.goto(f"{base}/{self.url}")
        wait_for_app(page)
        page.wait_for_selector(".js-plotly-plot", timeout=30_000)
        _scroll_to_top_of(page, self.scroll_to(page), margin=self.margin)
        if self.settle_ms:
            page.wait_for_timeout(self.settle_ms)
        return shoot(page, out / self.file)


# The Timeline & race page on the EAGLE example, whose trace records the machine that timed it (the default example's
# does not, so its speedup is no figure to show): the metrics and the race chart.
RACE_EXAMPLE = "smollm-eagle-greedy"
race_shot = ChartShot(f"race?race_source=example&race_example={RACE_EXAMPLE}", "race.png",
                      lambda page: page.locator('[data-testid="stMetric"]'), margin=70)
# The guided path at lesson 3 (the rule) with lessons 1 and 2 done: the progress, the objective, the text and the
# accept-rule slider.
learn_shot = ChartShot("learn?lesson=3&done=1,2", "learn.png", lambda page: page.get_by_text("lessons mastered"),
                       margin=110)
# The same two, and the Theory explorer, in Portuguese, for docs/app.pt-BR.md.
pt_race_shot = ChartShot(f"race?race_source=example&race_example={RACE_EXAMPLE}&lang=pt", "pt-race.png",
                         lambda page: page.locator('[data-testid="stMetric"]'), margin=70)
pt_learn_shot = ChartShot("learn?lesson=3&done=1,2&lang=pt", "pt-learn.png",
                          lambda page: page.get_by_text("lições dominadas"), margin=110)
pt_theory_shot = ChartShot("theory?lang=pt", "pt-theory-batch.png",
                           lambda page: page.get_by_text("Contexto por sequência (tokens)"), margin=60, settle_ms=1000)
# The Theory explorer's "When speculation stops paying" section at its defaults (7B drafts for 72B on an H100,
# α = 0.8, K = 4): the inputs, the metrics at batch 1 and the two batch charts.
theory_shot = ChartShot("theory", "theory-batch.png", lambda page: page.get_by_text("Context per sequence (tokens)"),
                        margin=60, settle_ms=1000)


def shot_args(prog: str, doc: str, argv: list[str] | None) -> argparse.Namespace | None:
    """A screenshot script's --out and --port, or None (with the sentence on stderr) when there is no Chromium."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.split("\n")[0],
                                     formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--out", type=Path, default=SHOTS_DIR,
                        help="folder for the PNG files (default: assets/screenshots)")
    parser.add_argument("--port", type=whole_arg(1, 65535), default=None,
                        help="port for the temporary server (default: any free)")
    args = parser.parse_args(argv)
    try:
        chromium_path()
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return None
    return args


def main(argv: list[str] | None = None) -> int:
    args = shot_args("python -m specviz.scripts.screenshots", __doc__, argv)
    if args is None:
        return 2
    from playwright.sync_api import sync_playwright

    with serve(args.port) as base, sync_playwright() as pw, launch(pw) as context:
        page = context.new_page()
        page.goto(base)  # the landing page first: a fresh server routes deep links only after st.navigation ran once
        wait_for_app(page, timeout=90)
        for shot in (playground_shot, race_shot, learn_shot, theory_shot, pt_playground_shot, pt_race_shot,
                     pt_learn_shot, pt_theory_shot):
            path = shot(page, base, args.out)
            print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {path.stat().st_size // 1000} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
