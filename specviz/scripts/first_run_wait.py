"""How long a visitor waits for the first live answer after `make run`, with the background load on and off.

    python -m specviz.scripts.first_run_wait [--cold]

For each of SPECVIZ_PRELOAD=1 and =0 it starts `make run`'s launcher (`python -m specviz.ui.common.launch`) on a free
local port, opens the landing page and then a live Playground link in headless Chromium as soon as the server answers,
presses Run on the default settings and times the wait until the finished answer is on screen. `--cold` points
$SPECVIZ_CACHE at an empty folder, so the models are converted from the wheel first, as on a fresh machine. Run it
with nothing else on the machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.core.i18n import number
from specviz.engine.limits import number_arg
from specviz.scripts.screenshots import (CHROMIUM_ARGS, VIEWPORT, chromium_path, free_port, wait_for_app,
                                         wait_for_health)

ANSWERED = "Step through it from the start"  # the button under a finished live run


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.first_run_wait",
                                     description=__doc__.split("\n")[0],
                                     formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--cold", action="store_true", help="start from an empty model cache (a fresh machine)")
    parser.add_argument("--timeout", type=number_arg(1, 3600), default=300.0,
                        help="seconds to wait for the answer (default 300)")
    return parser.parse_args(argv)


def measure(preload: bool, cold: bool, timeout: float) -> dict[str, float]:
    """Seconds from the launcher's start to the server answering and the Playground opening, and from Run to the
    answer."""
    from playwright.sync_api import sync_playwright

    port, env = free_port(), {**os.environ, "SPECVIZ_PRELOAD": "1" if preload else "0"}
    with tempfile.TemporaryDirectory(prefix="specviz-cache-") as cache:
        if cold:
            env["SPECVIZ_CACHE"] = cache
        start = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "specviz.ui.common.launch", "--server.port", str(port), "--server.headless", "true",
             "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for_health(base, proc, 60)
            up = time.monotonic() - start
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport=VIEWPORT)
                page.set_default_timeout(timeout * 1000)
                page.goto(base)
                wait_for_app(page, 120)
                page.goto(f"{base}/playground?source=live")
                wait_for_app(page, 120)
                opened = time.monotonic() - start
                page.get_by_role("button", name="Run", exact=True).click()
                clicked = time.monotonic()
                page.get_by_role("button", name=ANSWERED).wait_for()
                answered = time.monotonic() - clicked
                browser.close()
        finally:
            proc.terminate()
            proc.wait()
    return {"up": up, "opened": opened, "answered": answered}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cache = "an empty model cache" if args.cold else "the model cache as it is"
    print(f"make run's launcher, {cache}, {os.cpu_count()} CPU cores; seconds:")
    for preload in (True, False):
        try:
            got = measure(preload, args.cold, args.timeout)
        except RuntimeError as exc:  # no chromium, or the app did not start: one sentence
            print(exc, file=sys.stderr)
            return 2
        print(f"  SPECVIZ_PRELOAD={int(preload)}: server answering {number(got['up'], 1)}, live Playground open "
              f"{number(got['opened'], 1)} after the start; Run -> answer on screen {number(got['answered'], 1)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
