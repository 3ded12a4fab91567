"""The Proposers page and the p/q sandbox in a real browser (issue 14): they load through the router, draw their
diagrams and charts without an error, and leave 1400×900 screenshots in artifacts/ (the README's come from here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from specviz.scripts.screenshots import chromium_path, launch, serve, shoot, wait_for_app

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'
pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def browser_page():
    try:
        chromium_path()
    except RuntimeError as exc:
        pytest.fail(str(exc))
    from playwright.sync_api import sync_playwright

    with serve() as url, sync_playwright() as pw, launch(pw) as ctx:
        ctx.set_default_timeout(30_000)
        page = ctx.new_page()
        yield url, page
        page.close()


@pytest.mark.parametrize("path, title, drawn", [
    ("/proposers", "Proposers: who writes the drafts", '[data-testid="stGraphVizChart"] svg'),
    ("/sandbox", "p/q sandbox", ".js-plotly-plot"),
])
def test_new_page_loads_and_draws(browser_page, path, title, drawn):
    url, page = browser_page
    page.goto(url + path)
    wait_for_app(page, timeout=120)
    page.wait_for_selector(drawn, timeout=30_000)
    assert page.locator("h1").first.inner_text() == title
    assert page.locator(ERRORS).count() == 0
    shoot(page, ARTIFACTS / f"{path.strip('/')}.png")
