"""Issue 27 item 2 in a real browser: while the default pair loads in the background, the sidebar's note counts the
seconds on by itself and then says the models are ready, with no click. The server's loader is patched to take a
known time (the real SmolLM2 load is too quick once converted, and too slow on a fresh machine, to test against)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from specviz.scripts.screenshots import serve, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LOAD_SECONDS = 9
SLOW_LOADER = (  # runs in the server before Streamlit starts: the app's pair cache loads slowly
    "import runpy, sys, time\n"
    "from specviz.runs.running import PairCache\n"
    "from specviz.ui.common import runs\n"
    f"runs.PAIRS = PairCache(loader=lambda name: time.sleep({LOAD_SECONDS}) or object())\n"
    "sys.argv[0] = 'streamlit'\n"
    "runpy.run_module('streamlit', run_name='__main__')\n"
)


@pytest.fixture(scope="module")
def slow_base():
    with serve(launcher=("-c", SLOW_LOADER), env={"SPECVIZ_PRELOAD": "1"}) as url:
        yield url


def test_the_loading_note_counts_on_and_says_when_the_models_are_ready(browser_context, slow_base):
    page = browser_context.new_page()
    page.goto(slow_base)
    wait_for_app(page, 60)
    sidebar = page.locator('[data-testid="stSidebar"]')
    note = sidebar.get_by_text(re.compile(r"in the background \((\d+) s so far\)"))
    expect(note).to_be_visible(timeout=15_000)
    first = int(re.search(r"\((\d+) s so far", note.inner_text()).group(1))
    page.wait_for_timeout(4_500)  # nobody clicks: the note refreshes by itself
    later = int(re.search(r"\((\d+) s so far", note.inner_text()).group(1))
    assert later >= first + 3, (first, later)
    ready = sidebar.get_by_text(re.compile(r"Models 'default' ready \(loaded in \d+ s\)\."))
    expect(ready).to_be_visible(timeout=LOAD_SECONDS * 1000 + 10_000)
    assert int(re.search(r"loaded in (\d+) s", ready.inner_text()).group(1)) in (LOAD_SECONDS - 1, LOAD_SECONDS,
                                                                                    LOAD_SECONDS + 1)
    expect(note).to_have_count(0)
    page.close()
