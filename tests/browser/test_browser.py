"""The app in a real browser: Debian's Chromium, driven by Playwright, against `streamlit run app.py`.

What AppTest cannot see: that the pages load through the router, that the loop diagram and the token chips are
really drawn, and that clicking works. Screenshots land in artifacts/ (gitignored) for a human to look at.
Needs `chromium` on PATH (`make browser`); without it this test fails, it does not skip.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from specviz.scripts.screenshots import serve, wait_for_app

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'
pytestmark = [pytest.mark.browser, pytest.mark.slow]


class Server:
    """A streamlit server and the way a visitor opens its pages."""

    def __init__(self, url: str):
        self.url = url

    def open(self, page, path: str = "") -> None:
        page.goto(self.url + path)
        wait_for_app(page, timeout=90)  # the first visit imports torch: slow on a busy machine

    def navigate(self, page, link: str, path: str) -> None:
        """Open the landing page, then follow the sidebar link to another page, as a visitor would."""
        self.open(page)
        page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=link).click()
        page.wait_for_url(f"**/{path}**")
        wait_for_app(page)


@pytest.fixture(scope="module")
def server(app_url):
    return Server(app_url)  # the worker's shared server: other modules visit it too


@pytest.fixture
def page(browser_context):  # the Chromium window and the server are tests/conftest.py's
    page = browser_context.new_page()
    yield page
    page.close()


def _no_errors(page) -> None:
    errors = page.locator(ERRORS)
    assert errors.count() == 0, f"error on the page: {errors.first.inner_text()[:500]}"


def _shot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    return path


def test_a_link_straight_to_a_page_opens_it_inside_the_app(browser_context):
    """A fresh server's first visitor follows a shared link to the race page and gets the app's frame (the
    sectioned sidebar and the wide layout), not Streamlit's legacy mode for a folder named pages/."""
    with serve() as url, contextlib.closing(browser_context.new_page()) as page:  # a server nobody has visited
        server = Server(url)
        server.open(page, "/race?race_source=example")
        _shot(page, "deep-link-race.png")
        assert page.locator("h1").first.inner_text() == "Timeline & race"
        sidebar = page.locator('[data-testid="stSidebarNav"]')
        assert sidebar.get_by_text("Learn", exact=True).count() == 1, \
            "the page ran outside st.navigation (Streamlit's legacy mode for a folder named pages/)"


def test_overview_shows_the_diagram_and_plays_the_example(server, page):
    server.open(page)
    assert page.locator("h1").first.inner_text() == "Speculative decoding, step by step"
    assert page.locator('[data-testid="stGraphVizChart"] svg').count() == 1  # drawn in the browser
    assert "1. propose" in page.locator('[data-testid="stGraphVizChart"] svg').text_content()
    page.get_by_role("button", name="Play the example").click()
    page.wait_for_function("document.body.innerText.includes('Done: ')", timeout=30_000)
    wait_for_app(page)
    chips = page.locator(".sv-play [data-kind]")
    assert chips.count() > 10
    assert page.locator('.sv-play [data-kind="accepted"]').count() > 0
    _no_errors(page)
    _shot(page, "overview.png")


def test_playground_steps_forward_and_draws_token_chips(server, page):
    server.navigate(page, "Playground", "playground")
    assert page.locator("h1").first.inner_text() == "Playground"
    before = page.locator("[data-kind]").count()
    for _ in range(2):
        page.get_by_role("button", name="Next step").first.click()
        page.wait_for_timeout(300)
        wait_for_app(page)
    chips = page.locator("[data-kind]")
    assert chips.count() > before, "Next step drew no new token chips"
    kinds = set(chips.evaluate_all("els => els.map(e => e.dataset.kind)"))
    assert kinds & {"accepted", "rejected", "recovered", "bonus", "target"}
    _no_errors(page)
    _shot(page, "playground.png")


# How far each box around the page's content is scrolled, from Streamlit's main column out: [test id, scrollTop,
# overflow-y] of every box scrolled at all.
SCROLLED = """() => { const out = []; let e = document.querySelector('[data-testid="stMainBlockContainer"]');
  while (e) { if (e.scrollTop) out.push([e.getAttribute('data-testid') || e.tagName, e.scrollTop,
                                        getComputedStyle(e).overflowY]); e = e.parentElement; }
  return out; }"""


LIVE_TREE = ("/playground?source=live&pair=toy&proposer=draft&k=3&tree_nodes=8&tree_width=3&prompt=the+cat+sat"
             "&chat=0&temperature=1&seed=2&max_new_tokens=20")


def test_bringing_the_last_step_on_screen_scrolls_only_the_main_column(server, page):
    """Read 47: the step a press reveals is scrolled to the top of the screen; the last step sits at the bottom of
    the page, where Streamlit's main column cannot scroll that far, and scrollIntoView then scrolled the box around
    it, whose overflow is hidden: the whole app moved up by 500 px, the bottom of the window went blank and neither
    the wheel could bring it back. A live link on the toy pair runs to its end and shows its last step."""
    server.open(page)  # the landing page first: a fresh server routes deep links only after st.navigation ran once
    server.open(page, LIVE_TREE)
    page.get_by_text("Step through it from the start").first.wait_for()
    page.wait_for_function("() => document.querySelector('[data-testid=\"stMain\"]').scrollTop > 0")  # on screen
    scrolled = page.evaluate(SCROLLED)
    assert [box for box in scrolled if box[2] == "hidden"] == [], scrolled
    assert [box[0] for box in scrolled] == ["stMain"], scrolled  # the step was brought on screen, in the column
    _no_errors(page)


def test_race_page_draws_both_lanes(server, page):
    server.navigate(page, "Timeline & race", "race")
    page.wait_for_selector(".js-plotly-plot")
    assert page.locator(".js-plotly-plot").count() == 2
    lanes = page.locator(".js-plotly-plot").first.inner_text()
    assert "speculative" in lanes and "target only" in lanes
    assert "race_example=" in page.url  # the settings are in the URL
    _no_errors(page)
    _shot(page, "race.png")


@pytest.mark.model  # the first live run loads SmolLM2 in the server
def test_a_live_run_streams_its_steps_then_shows_its_answer(server, page):
    """The Playground's default live run on the real model: while it runs, a progress bar and token chips appear step
    by step; then the page shows the finished text plainly next to the annotated one and offers to step through."""
    server.open(page)
    page.goto(server.url + "/playground?source=live")  # a link to a live run on the real model waits for a press
    page.wait_for_selector("text=press Run to start it", timeout=60_000)
    # the run is drawn while it runs: a warm model finishes in about a second, so the progress box may come and go
    # between two of Playwright's looks; an observer installed before the press records every text it showed
    page.evaluate("""() => { window.__progress = [];
        new MutationObserver(() => { for (const el of document.querySelectorAll('[data-testid="stProgress"]')) {
            const text = el.innerText; if (text && !window.__progress.includes(text)) window.__progress.push(text); } })
        .observe(document.body, {childList: true, subtree: true, characterData: true}); }""")
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_selector("text=What the model wrote", timeout=180_000)
    shown = page.evaluate("window.__progress")
    assert any("drafts kept" in text and "of at most 48 tokens" in text for text in shown), shown
    wait_for_app(page)
    _no_errors(page)
    assert page.locator('[data-testid="stProgress"]').count() == 0  # the progress box made way for the result
    answer = page.get_by_text("What the model wrote").locator("xpath=ancestor::*[@data-testid='stColumn'][1]")
    assert "moon" in answer.inner_text().lower() and answer.locator("[data-kind]").count() == 0  # plain text
    assert page.locator('[data-kind="accepted"]').count() > 10  # the annotated text: most drafts were kept
    _shot(page, "playground-live.png")
    page.get_by_role("button", name="Step through it from the start").click()
    page.wait_for_function("document.body.innerText.includes('Coming up: step 1.')", timeout=30_000)
    wait_for_app(page)
    page.get_by_role("button", name="Next step").first.click()
    page.wait_for_function("document.body.innerText.includes('Step 1 ·')", timeout=30_000)
    _no_errors(page)
