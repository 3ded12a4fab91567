"""The Serving lab's screenshots (serving.png and serving-sweep.png), in a real browser, against a running vLLM
server.

    python -m specviz serve start --spec ngram      # or any server, with some traffic going to it
    python -m specviz.scripts.serving_screenshot [--url http://127.0.0.1:8000] [--out assets/screenshots]

writes serving.png (the live metrics after `--wait` seconds of scraping) and serving-sweep.png (the committed
sweep tab). It reuses the helpers of specviz.scripts.screenshots (serve, launch, wait_for_app).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.engine.limits import number_arg
from specviz.scripts.screenshots import SHOTS_DIR, launch, serve, shoot, wait_for_app


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m specviz.scripts.serving_screenshot",
                                description=__doc__.split("\n\n")[0],  # the first paragraph, its line breaks kept
                                formatter_class=DefaultsHelpFormatter)
    p.add_argument("--url", default="http://127.0.0.1:8000", help="the vLLM server the page connects to")
    p.add_argument("--out", type=Path, default=SHOTS_DIR,
                   help="folder for the two PNG files (default: assets/screenshots)")
    p.add_argument("--wait", type=number_arg(0, 600), default=20.0, help="seconds of live scraping before the shot")
    args = p.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with serve() as base, sync_playwright() as pw, launch(pw) as context:
        page = context.new_page()
        page.goto(f"{base}/serving")
        wait_for_app(page, timeout=60)
        box = page.locator('[data-testid="stTextInput"] input').first
        if box.input_value() != args.url:
            box.fill(args.url)
            box.press("Enter")
            wait_for_app(page, timeout=60)
        page.wait_for_timeout(args.wait * 1000)
        print(shoot(page, args.out / "serving.png"))
        page.get_by_role("tab", name="Measured sweep").click()  # only the open tab runs: wait for its rerun
        wait_for_app(page, timeout=60)
        print(shoot(page, args.out / "serving-sweep.png"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
