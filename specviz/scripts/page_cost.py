"""What one page load costs in a real browser: wall time, and the CPU seconds the app server and Chromium spend on it.

    python -m specviz.scripts.page_cost                      # every page, twice, by full load (page.goto)
    python -m specviz.scripts.page_cost --pages theory quiz --by-link   # the same pages by a click on the sidebar link
    python -m specviz.scripts.page_cost --pages theory --browser chromium   # the full browser, not its headless shell

The browser tests are CPU-bound on a 2-core machine (docs/testing.md): this says where that CPU goes, page by page.
CPU seconds are read from /proc (user + system time of every process whose command line names the server or
Chromium), so the figures are only meaningful with nothing else running. Linux only; loopback only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.engine.limits import whole_arg
from specviz.teach.pagemap import PAGE_FILES, url_path

PROC = Path("/proc")


def cpu_seconds(matches: Callable[[bytes], bool], proc: Path = PROC) -> float:
    """User + system CPU seconds of every running process whose command line (NUL-separated bytes) `matches`.

    >>> cpu_seconds(lambda cmd: False)
    0.0
    """
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if matches((entry / "cmdline").read_bytes()):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime (fields 14 and 15 of stat)
        except (OSError, IndexError, ValueError):  # a process that ended while being read
            continue
    return total


def is_server(cmd: bytes) -> bool:
    return b"streamlit" in cmd and b"app.py" in cmd


def is_chromium(cmd: bytes) -> bool:
    return b"chrom" in cmd.split(b"\0", 1)[0]


def page_paths() -> list[str]:
    """Every page's path ("/" for the Overview, which Streamlit serves at the root)."""
    return [url_path(file) for file in PAGE_FILES]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.page_cost", description=__doc__.split("\n")[0],
                                     formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--pages", nargs="*", help="page names (default: every page), e.g. theory quiz or "
                        "'playground?source=example'")
    parser.add_argument("--repeats", type=whole_arg(1, 100), default=2,
                        help="loads of each page (the first warms caches)")
    parser.add_argument("--by-link", action="store_true", help="open pages by a click on the sidebar link")
    parser.add_argument("--browser", help="the Chromium executable (default: the tests' own, chromium-headless-shell "
                        "where installed), e.g. chromium")
    args = parser.parse_args(argv)
    paths = page_paths() if not args.pages else ["/" + name.strip("/") for name in args.pages]
    if args.by_link and any("?" in path for path in paths):  # no sidebar link carries a query: the click would hang
        parser.error("--by-link opens the sidebar's links, which carry no query: name pages without '?'")
    browser = shutil.which(args.browser) or args.browser if args.browser else None
    from playwright.sync_api import sync_playwright

    from specviz.scripts.screenshots import launch, serve, wait_for_app

    with sync_playwright() as playwright, serve() as url, launch(playwright, browser) as context:
        page = context.new_page()
        page.goto(url)
        wait_for_app(page, timeout=120)
        print(f"{'page':14s} {'wall s':>7s} {'server cpu s':>13s} {'chromium cpu s':>15s}")
        for repeat in range(args.repeats):
            for path in paths:
                server, chromium, start = cpu_seconds(is_server), cpu_seconds(is_chromium), time.perf_counter()
                if args.by_link and path != "/":
                    page.locator(f'[data-testid="stSidebarNav"] a[href$="{path}"]').first.click()
                    page.wait_for_url(f"**{path}*")
                else:
                    page.goto(f"{url}{path}{'&' if '?' in path else '?'}lang=en")
                wait_for_app(page, timeout=120)
                print(f"{path:14s} {time.perf_counter() - start:7.2f} {cpu_seconds(is_server) - server:13.2f} "
                      f"{cpu_seconds(is_chromium) - chromium:15.2f}" + ("  (warm-up)" if repeat == 0 else ""),
                      flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
