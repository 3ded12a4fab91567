"""A keyboard-only pass over every page (WCAG 2.1.1 keyboard, 2.1.2 no trap, 2.4.3 focus order, 2.4.7 focus
visible), in a real Chromium: from the top of the page, Tab reaches the page's own content, never gets stuck, never
lands on something that is not drawn, and every stop shows where the focus is. The focus after "Check" and the
navigation's ring have their own tests in test_accessibility_browser.py.
"""

from __future__ import annotations


import pytest

from test_accessibility_browser import page  # noqa: F401 - the fixture: one tab, opened on the landing page

from specviz.scripts.screenshots import STILL_CSS, wait_for_app
from specviz.teach.pagemap import PAGE_FILES, url_path

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PATHS = [url_path(file) for file in PAGE_FILES]  # the Overview at "/": /overview is Streamlit's "Page not found"
PRESSES = 45

# Where the focus is after a Tab: is it drawn, is it in the page's content, and how it looks focused (an outline, a
# ring drawn as a box shadow, a border or background colour, on the element or on one of the four boxes around it:
# Streamlit's select box colours its frame, not the input). A data grid's cell (Glide Data Grid, behind st.dataframe)
# is a zero-size stand-in the grid keeps for the keyboard and screen readers, and the grid's canvas takes the focus
# itself: the grid draws the focused cell's frame on its canvas (seen in screenshots of the sandbox's grid, the frame
# following the arrow keys), so for them the grid's own box is what must be drawn. Each stop's element is kept, and
# UNFOCUSED reads all of them once the pass is over and nothing has the focus: a stop shows where the focus is when
# its look differs from its look unfocused. (Blurring and refocusing at every stop, as before, cost two more redraws
# a stop, about a third of the test's time; Tab never reruns a script, so the elements are the ones Tab reached.)
LOOK = """(e) => { const out = []; let n = e;
  for (let i = 0; i < 5 && n; i++, n = n.parentElement) { const s = getComputedStyle(n);
    out.push([s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow, s.borderColor, s.backgroundColor].join());
  } return out.join('|'); }"""
# React redraws a widget's frame after focus moves: two animation frames later the redraw has been painted
RENDER = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
STOP = f"""async () => {{
  await ({RENDER})();
  const e = document.activeElement;
  if (!e || e === document.body || e === document.documentElement) return {{lost: true}};
  const inGrid = (e.id && e.id.startsWith('glide-cell')) || e.getAttribute('data-testid') === 'data-grid-canvas';
  const grid = inGrid ? e.closest('[data-testid="stDataFrame"]') : null;
  (window.__specvizStops = window.__specvizStops || []).push(e);
  const r = (grid || e).getBoundingClientRect();
  return {{lost: false, key: (e.getAttribute('data-testid') || e.tagName) + ':' + (e.getAttribute('aria-label')
            || e.innerText || e.value || '').slice(0, 30).replace(/\\s+/g, ' '),
          drawn: r.width > 0 && r.height > 0, inMain: !!e.closest('[data-testid="stMain"]'), grid: !!grid,
          look: ({LOOK})(e)}};
}}"""
UNFOCUSED = f"""async () => {{
  if (document.activeElement) document.activeElement.blur();
  await ({RENDER})();
  return (window.__specvizStops || []).map(e => e.isConnected ? ({LOOK})(e) : null);
}}"""


@pytest.mark.parametrize("path", PATHS)
def test_the_keyboard_reaches_every_pages_content_without_a_trap(app_url, page, path):
    page.goto(f"{app_url}{path}?lang=en")
    wait_for_app(page, timeout=120)
    # styles change at once: Streamlit fades its borders in over 200 ms, which a measurement right after Tab would miss
    page.add_style_tag(content=STILL_CSS)
    page.wait_for_timeout(300)
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    stops = []
    for _ in range(PRESSES):
        page.keyboard.press("Tab")
        stops.append(page.evaluate(STOP))
    held = [s for s in stops if not s["lost"]]
    unfocused = page.evaluate(UNFOCUSED)  # in the order of `held`: lost stops kept no element
    assert len(unfocused) == len(held) and None not in unfocused, f"{path}: the page redrew during the pass"
    for stop, look in zip(held, unfocused):
        stop["shown"] = stop["grid"] or stop["look"] != look
    assert len(held) >= PRESSES - 2, f"{path}: the focus fell back to the page {PRESSES - len(held)} times"
    main = [s for s in held if s["inMain"]]
    assert main, f"{path}: {PRESSES} presses of Tab never reached the page's content"
    assert len({s["key"] for s in held}) >= min(10, len(held)) // 2, f"{path}: the focus keeps to a few elements"
    undrawn = sorted({s["key"] for s in held if not s["drawn"]})
    assert undrawn == [], f"{path}: the focus landed on elements that are not drawn: {undrawn}"
    unshown = sorted({s["key"] for s in held if not s["shown"]})
    assert unshown == [], f"{path}: no focus indicator on {unshown}"
