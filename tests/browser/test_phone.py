"""The app on a 390×844 phone, on a 1920×1080 projector and from the keyboard, in a real Chromium: what AppTest
cannot see (sizes in pixels, clipping, the Tab order, the Plotly toolbar). Screenshots land in artifacts/.

Needs `chromium` on PATH (`make browser`); without it these tests fail, they do not skip.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from specviz.scripts.screenshots import CHROMIUM_ARGS, _scroll_to_top_of, chromium_path, serve, wait_for_app
from specviz.teach.classroom import ClassroomStore
from specviz.teach.quiz import load_bank
from specviz.ui.common import charts

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1920, "height": 1080}
PIN = "phone-test-pin-42"
pytestmark = [pytest.mark.browser, pytest.mark.slow]

# what the Tab key lands on, and whether it sits inside a chart
FOCUSED = """() => { const e = document.activeElement;
  return {inChart: !!(e && e.closest('.js-plotly-plot, [data-testid="stPlotlyChart"]')),
          label: e ? (e.getAttribute('aria-label') || e.innerText || e.tagName).slice(0, 40) : ''}; }"""
SCROLL_MAIN = """(y) => { let box = document.querySelector('[data-testid="stMain"]');
  while (box && !['auto', 'scroll'].includes(getComputedStyle(box).overflowY)) box = box.parentElement;
  (box || document.scrollingElement).scrollTop = y; }"""


@pytest.fixture(scope="module")
def classroom_db(tmp_path_factory):
    """The server's classroom database and PIN (set before it starts), with one session of ordering questions."""
    path = tmp_path_factory.mktemp("phone") / "classroom.sqlite"
    saved = {k: os.environ.get(k) for k in ("SPECVIZ_CLASSROOM_DB", "SPECVIZ_TEACHER_PIN")}
    os.environ.update(SPECVIZ_CLASSROOM_DB=str(path), SPECVIZ_TEACHER_PIN=PIN)
    yield path
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="module")
def base(classroom_db):
    with serve() as url:
        yield url


@pytest.fixture(scope="module")
def browser(playwright):
    """Chromium without a window of its own (tests/conftest.py checked that Chromium is there); test_classroom_browser
    shares it and opens a context per device."""
    browser = playwright.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


class Screens:
    """One context per screen size, made when a test first asks for it and shared by this module's tests (each opens
    its own tab, so its own Streamlit session): a new context starts with an empty cache and compiles Streamlit's
    scripts again, about a second of CPU a page."""

    def __init__(self, browser):
        self.browser, self.contexts = browser, {}

    def context(self, viewport: dict):
        size = (viewport["width"], viewport["height"])
        if size not in self.contexts:
            phone = viewport["width"] < 500  # a phone's: touch, mobile
            self.contexts[size] = self.browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
            self.contexts[size].set_default_timeout(60_000)
        return self.contexts[size]


@pytest.fixture(scope="module")
def screens(browser):
    return Screens(browser)


def _open(screens: Screens, base: str, path: str, viewport=PHONE):
    """A new tab on `path` at the size `viewport`, the app drawn."""
    page = screens.context(viewport).new_page()
    page.goto(base + path)
    wait_for_app(page, timeout=120)
    return page


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))


def _no_page_overflow(page) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] + 1, f"the page is {width} px wide: it scrolls sideways"


def _tab_through(page, presses: int = 80) -> list[dict]:
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    stops = []
    for _ in range(presses):
        page.keyboard.press("Tab")
        stops.append(page.evaluate(FOCUSED))
    return stops


def test_the_loop_diagram_and_where_next_read_on_a_phone(screens, base):
    page = _open(screens, base, "/")
    texts = page.locator('[data-testid="stGraphVizChart"] svg text')
    assert texts.count() > 10
    heights = texts.evaluate_all("els => els.map(e => e.getBoundingClientRect().height)")
    assert min(h for h in heights if h > 0) >= 10, f"diagram text is {min(heights):.1f} px tall on a phone"
    links = page.locator('[data-testid="stPageLink-NavLink"] [data-testid="stMarkdownContainer"]')
    assert links.count() >= 5
    clipped = links.evaluate_all("els => els.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)")
    assert not clipped, f"cut off on a phone: {clipped}"
    _no_page_overflow(page)
    page.evaluate(SCROLL_MAIN, 600)
    _shot(page, "phone-overview.png")
    page.close()


@pytest.mark.parametrize("path", ["/race", "/theory", "/speedup_lab"])
def test_charts_have_no_toolbar_over_titles_and_stay_out_of_the_tab_order(screens, base, path):
    page = _open(screens, base, path)
    page.wait_for_selector(".js-plotly-plot")
    plot = page.locator(".js-plotly-plot").first
    plot.scroll_into_view_if_needed()
    plot.tap(position={"x": 60, "y": 60})  # a tap is what showed the toolbar over the title
    page.wait_for_timeout(500)
    toolbars = page.locator(".modebar-container .modebar, .modebar-btn")
    assert toolbars.count() == 0 or not toolbars.first.is_visible(), "Plotly's toolbar is drawn"
    stops = _tab_through(page)
    assert not [s for s in stops if s["inChart"]], "Tab stops inside a chart"
    _no_page_overflow(page)
    _shot(page, f"phone-{path.strip('/')}.png")
    page.close()


def test_chart_numbers_are_readable_without_hovering(screens, base):
    page = _open(screens, base, "/theory")
    page.locator('[data-testid="stExpander"] summary').filter(has_text=charts.NUMBERS_LABEL).first.click()
    page.wait_for_timeout(800)
    table = page.locator('[data-testid="stExpander"] table').first  # a real table: a screen reader reads it too
    assert table.is_visible() and table.locator("th").count() >= 2
    page.close()



# the text in the main area that runs past the right edge of the screen, where no box of its own scrolls or clips it
# (a page whose outer box clips does not scroll sideways, so `_no_page_overflow` alone passed such text)
PAST_THE_EDGE = """() => { const width = window.innerWidth, main = document.querySelector('[data-testid="stMain"]');
  const out = [];
  for (const e of main.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || r.right <= width + 1) continue;
    if (![...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    let box = e.parentElement, own = false;
    for (; box && box !== main; box = box.parentElement)
      if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(box).overflowX)
          && box.getBoundingClientRect().right <= width + 1) { own = true; break; }
    if (!own) out.push(e.textContent.trim().slice(0, 60));
  }
  return out; }"""


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_race_legend_wraps_inside_a_phone(screens, base, lang):
    """Read 49: the timeline's legend kept each item on one line, so "rest of the step: sampling and, when
    speculating, the rule and the cache rewind" ran 150 px past a 390 px phone's edge, cut off after "the ru" (in
    Portuguese two items). A long item wraps inside the screen."""
    page = _open(screens, base, f"/race?lang={lang}")
    legend = page.get_by_text("prefill (read the prompt)" if lang == "en" else "prefill (ler o prompt)").first
    legend.wait_for(state="visible")
    assert page.evaluate(PAST_THE_EDGE) == []
    _shot(page, f"phone-race-legend-{lang}.png")
    page.close()

# the words of a table's cells that the browser broke over two lines or more (each word a Range: one line, one top)
SPLIT_WORDS = """(table) => { const split = []; let words = 0;
  for (const cell of table.querySelectorAll('th, td')) {
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      for (const m of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        words += 1;
        if (new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1) split.push(m[0]);
      }
    }
  }
  return {split, words}; }"""


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_charts_numbers_keep_their_words_whole_on_a_phone(screens, base, lang):
    """Read 43: at 390 px the race's table of eleven columns shrank each column to a letter, "speculative" and
    "212.11" read down the column a character a line. A word stays whole; the table scrolls inside its own box."""
    page = _open(screens, base, f"/race?lang={lang}")
    label = charts.NUMBERS_LABEL if lang == "en" else "Os números deste gráfico"
    page.locator('[data-testid="stExpander"] summary').filter(has_text=label).first.click()
    table = page.locator('[data-testid="stExpander"] [data-testid="stTable"] table').first
    table.wait_for(state="visible")
    found = table.evaluate(SPLIT_WORDS)
    assert found["words"] >= 100, found  # the whole table was read, not an empty one
    assert not found["split"], f"words broken over lines on a phone: {found['split'][:10]}"
    _no_page_overflow(page)
    box = page.evaluate(WIDE_BOXES)
    assert box and all(b["scrolls"] for b in box if b["wide"]), box
    _shot(page, f"phone-race-numbers-{lang}.png")
    page.close()


def test_focus_rings_stay_for_the_keyboard(screens, base):
    page = _open(screens, base, "/race", viewport={"width": 1400, "height": 900})
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.tagName") == "BUTTON":
            break
    ring = page.evaluate("""() => { const cs = getComputedStyle(document.activeElement);
        return (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== 'none'; }""")
    assert ring, "a focused button shows no focus ring"
    page.close()


def test_an_ordering_question_on_a_phone_is_whole_buttons_to_tap(screens, base, classroom_db):
    store = ClassroomStore(classroom_db)
    ordering = next(q for q in load_bank().questions if q.kind == "ordering")
    session = store.create_session([ordering], "Phones")
    student = store.join(session.code, "Pat")
    page = _open(screens, base, f"/classroom?student={student.token}")
    assert page.locator('[data-testid="stMultiSelect"]').count() == 0
    items = page.locator('[data-testid="stButton"] button').filter(has_text=ordering.answer[0][:20])
    assert items.count() == 1
    clipped = page.locator('[data-testid="stButton"] button').evaluate_all(
        "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)")
    assert not clipped, f"cut off on a phone: {clipped}"
    items.first.tap()
    page.wait_for_timeout(500)
    wait_for_app(page)
    assert page.get_by_text("Your order").count() == 1
    _no_page_overflow(page)
    _shot(page, "phone-classroom-ordering.png")
    page.close()


def test_the_dashboard_reads_from_the_back_of_the_room(screens, base, classroom_db):
    store = ClassroomStore(classroom_db)
    questions = load_bank().select(["accept_rule"])[:3]
    session = store.create_session(questions, "Projector")
    for name in ("Ana", "Ben"):
        student = store.join(session.code, name)
        store.record_answer(student.token, questions[0].id, questions[0].answer + 10 * questions[0].tolerance + 1)
    page = _open(screens, base, f"/classroom?as=teacher&session={session.code}", viewport=PROJECTOR)
    page.get_by_label("Teacher PIN").fill(PIN)
    page.get_by_role("button", name="Unlock").click()
    page.wait_for_selector(".sv-fail")
    wait_for_app(page)
    size = page.locator(".sv-fail .q").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 18, f"question text is {size} px at 1920×1080"
    shown = page.locator(".sv-fail").inner_text()
    assert "2/2 missed" in shown and questions[0].id not in shown and "None" not in shown
    _shot(page, "projector-dashboard.png")
    page.close()



def test_the_playground_step_buttons_leave_the_output_on_the_first_screen(screens, base):
    """At 390 px the five step buttons wrap into a few short rows instead of five full-width ones, so the output
    starts within the first screen under them.

    Read 44: a link to a step now opens scrolled to that step, so the shot this test writes (docs/app.md's
    playground-phone.png, "the step buttons wrap above the output") showed neither; it scrolls back to the buttons
    first and checks that the screen it shoots holds the buttons and the output's heading."""
    page = _open(screens, base, "/playground?source=example&example=toy-draft&step=3")
    names = ["Reset", "Previous", "Next step", "Play", "Run to end"]
    buttons = [page.get_by_role("button", name=re.compile(rf"^{name}")).first for name in names]
    boxes = [button.bounding_box() for button in buttons]
    rows = {round(b["y"]) for b in boxes}
    assert len(rows) <= 3, f"the step buttons take {len(rows)} rows on a phone"
    top, output = min(b["y"] for b in boxes), page.get_by_text("The output so far").first.bounding_box()["y"]
    assert output - top < PHONE["height"], "the output starts more than a screen below the step buttons"
    _scroll_to_top_of(page, page.get_by_text("models: toy pair"), margin=75)  # the run's settings above the buttons
    shown = [b.bounding_box() for b in [*buttons, page.get_by_text("The output so far").first]]
    assert all(0 <= b["y"] and b["y"] + b["height"] <= PHONE["height"] for b in shown), shown
    _shot(page, "playground-phone.png")
    page.close()


def test_next_step_on_a_phone_brings_the_step_into_view(screens, base):
    """Issue 27 item 10: on a 390 px phone the step's result was about two screens below the buttons; after Next
    the page scrolls to the revealed step, whose charts show their titles whole."""
    page = _open(screens, base, "/playground?source=example&example=toy-draft")
    for _ in range(2):
        page.get_by_role("button", name=re.compile("^Next step")).first.tap()
        page.wait_for_timeout(600)
        wait_for_app(page)
    page.wait_for_timeout(800)
    headline = page.get_by_text(re.compile(r"^Step 2 ·")).first
    box = headline.bounding_box()
    header = page.locator('[data-testid="stHeader"]').bounding_box()
    assert box is not None and header["y"] + header["height"] <= box["y"] < PHONE["height"] / 2, \
        f"the step headline is at {box}, under a header ending at {header['y'] + header['height']}"
    titles = page.locator(".js-plotly-plot .gtitle")
    assert titles.count() >= 2
    clipped = titles.evaluate_all("""els => els.filter(t => { const r = t.getBoundingClientRect();
        const plot = t.closest('.js-plotly-plot').getBoundingClientRect();
        return r.right > plot.right + 1 || r.left < plot.left - 1; }).map(t => t.textContent)""")
    assert not clipped, f"chart titles cut off on a phone: {clipped}"
    _no_page_overflow(page)
    _shot(page, "phone-playground-step.png")
    page.close()


# each static table: whether it is wider than its box, whether something between them scrolls sideways, and where
# its box ends on the screen
WIDE_BOXES = """() => [...document.querySelectorAll('[data-testid="stTable"]')].map(box => {
  const table = box.querySelector('table');
  let scrolls = false;
  for (let e = table; e && e !== box.parentElement; e = e.parentElement)
    if (['auto', 'scroll'].includes(getComputedStyle(e).overflowX)) scrolls = true;
  return {wide: table.scrollWidth > box.getBoundingClientRect().width + 1, scrolls,
          right: Math.round(box.getBoundingClientRect().right)}; })"""


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_models_catalog_fits_a_phone(screens, base, lang):
    """Issue 27 item 10: the catalog's model ids cannot wrap, and the table pushed the whole page sideways at 390 px.
    The document never scrolls sideways; a table still wider than the screen scrolls inside its own box."""
    page = _open(screens, base, f"/models?lang={lang}")
    page.wait_for_selector('[data-testid="stTable"] table')
    sizes = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert sizes[0] <= sizes[1], f"/models?lang={lang} is {sizes[0]} px wide on a {sizes[1]} px screen"
    boxes = page.evaluate(WIDE_BOXES)
    assert len(boxes) >= 4 and all(b["scrolls"] for b in boxes if b["wide"]), boxes
    assert all(b["right"] <= sizes[1] + 1 for b in boxes), boxes  # each table's box ends on the screen
    _shot(page, f"phone-models-{lang}.png")
    page.close()


# Chart titles and annotations drawn outside their chart's own box (Plotly never wraps a title, so a long one ran off
# a phone's screen), and formulas wider than their box that do not scroll inside it.
CLIPPED = """() => {
  const out = [];
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const box = plot.querySelector('.main-svg').getBoundingClientRect();
    if (!box.width) continue;
    for (const t of plot.querySelectorAll('.gtitle, .annotation-text')) {
      const r = t.getBoundingClientRect();
      if (r.width && (r.left < box.left - 1 || r.right > box.right + 1)) out.push(t.textContent);
    }
  }
  for (const d of document.querySelectorAll('.katex-display')) {
    if (d.scrollWidth > d.clientWidth + 1 && getComputedStyle(d).overflowX !== 'auto') out.push('formula: ' + d.textContent.slice(0, 40));
  }
  return {clipped: out, charts: document.querySelectorAll('.js-plotly-plot .gtitle').length,
          formulas: document.querySelectorAll('.katex-display').length};
}"""


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.parametrize("path", ["/theory", "/exactness"])
def test_chart_titles_annotations_and_formulas_stay_on_a_phone(screens, base, path, lang):
    """A 390 px screen cut off "The break-even line moves up as the batch grows", the break-even label and the
    roofline formulas: long titles now wrap (`charts.wrap_title`), a label near the right edge points left, and a
    formula is one per line and scrolls in its own box if it is still too wide."""
    page = _open(screens, base, f"{path}?lang={lang}")
    page.wait_for_selector(".js-plotly-plot .gtitle")
    page.wait_for_timeout(1500)  # every chart drawn
    found = page.evaluate(CLIPPED)
    assert found["charts"] >= 3 and (path != "/theory" or found["formulas"] >= 2), found
    assert found["clipped"] == [], f"{path}?lang={lang} on a phone cuts off: {found['clipped']}"
    page.close()


# every chart on show (not in a hidden tab) drawn at its size: a plot area with a height, and a title where it has one
DRAWN = """() => [...document.querySelectorAll('.js-plotly-plot')].filter(p => p.offsetParent !== null)
  .every(p => { const area = p.querySelector('.nsewdrag'); return area && area.getBoundingClientRect().height > 0; })"""
# each chart's title against its chart: where its lines start and end, where the chart's box and its plot begin
TITLE_BOXES = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(plot => {
  const title = plot.querySelector('.gtitle'), area = plot.querySelector('.nsewdrag');
  if (!title || !area || !title.getBoundingClientRect().height) return [];
  const t = title.getBoundingClientRect();
  return [{text: title.textContent, top: t.top, bottom: t.bottom, box: plot.getBoundingClientRect().top,
           plot: area.getBoundingClientRect().top}]; })"""


@pytest.mark.parametrize("path", ["/learn?lesson=10&lang=pt", "/theory?lang=pt"])
def test_a_wrapped_chart_title_stays_above_its_plot_on_a_phone(screens, base, path):
    """Read 43: lesson 10's chart title wrapped to three lines in Portuguese at 390 px and its last line, "0,10)",
    sat over the plot's axis; two-line titles on the Theory explorer touched their plots. A title now starts inside
    its chart and ends above the plot."""
    page = _open(screens, base, path)
    page.wait_for_function(DRAWN)
    titles = page.evaluate(TITLE_BOXES)
    assert sum("<" not in t["text"] and t["bottom"] - t["top"] > 40 for t in titles) >= 1, titles  # a wrapped one
    assert [t["text"] for t in titles if t["bottom"] > t["plot"] + 0.5] == [], titles
    # a one-line title in a 30 px margin starts 2 px above the chart: the blank top of its line box, no letter cut
    assert [t["text"] for t in titles if t["top"] < t["box"] - 3] == [], titles
    page.close()


# each chart's legend box against its x axis's title: whether the two overlap
LEGEND_ON_AXIS_TITLE = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(plot => {
  const legend = plot.querySelector('.legend'), axis = plot.querySelector('.g-xtitle');
  if (!legend || !axis) return [];
  const a = legend.getBoundingClientRect(), b = axis.getBoundingClientRect();
  if (!a.height || !b.height) return [];
  return [{chart: (plot.querySelector('.gtitle') || {}).textContent, overlap: a.top < b.bottom && a.bottom > b.top}];
})"""


@pytest.mark.parametrize("viewport, lang", [({"width": 1400, "height": 900}, "en"), (PHONE, "pt")])
def test_the_speedup_labs_legends_stay_below_their_axis_titles(screens, base, viewport, lang):
    """Read 43: the Speedup lab's legends hung 20% of the plot's height below it, which on the Verify cost tab (and
    the dtype chart under it, and Speedup vs K on a phone) fell on the x axis title: "tokens in one target forward"
    ran through the legend. A legend now sits at the bottom of the figure, under the axis title."""
    page = _open(screens, base, f"/speedup_lab?lang={lang}", viewport=viewport)
    tabs, seen, hit = page.get_by_role("tab"), 0, []
    for i in range(tabs.count()):
        tabs.nth(i).click()
        page.wait_for_function(DRAWN)
        found = page.evaluate(LEGEND_ON_AXIS_TITLE)
        seen += len(found)
        hit += [f["chart"] for f in found if f["overlap"]]
    assert seen >= 6, seen  # the tabs' charts were drawn and read
    assert hit == [], hit
    page.close()


@pytest.mark.parametrize("viewport, lang", [({"width": 1400, "height": 900}, "pt"), (PHONE, "en")])
def test_the_exactness_labs_legends_stay_below_their_axis_titles(screens, base, viewport, lang):
    """Read 44: the Exactness lab's three legends hung a share of the plot's height below it, and where rotated token
    labels pushed the x axis title down it fell on the legend: "token" over "especulativa: Regra exata (Leviathan /
    Chen)" at 1400 px in Portuguese, on a phone in English too. A legend now sits at the bottom of the figure."""
    page = _open(screens, base, f"/exactness?lang={lang}", viewport=viewport)
    page.wait_for_function(DRAWN)
    found = page.evaluate(LEGEND_ON_AXIS_TITLE)
    assert len(found) >= 3, found  # the samples, distance and decomposition charts were drawn and read
    assert [f["chart"] for f in found if f["overlap"]] == [], found
    page.close()


# each drawn chart's y axis title against its plot area: their heights (a vertical title longer than its plot is cut)
Y_TITLE_FITS = """() => [...document.querySelectorAll('.js-plotly-plot')].filter(p => p.offsetParent !== null)
  .flatMap(plot => { const title = plot.querySelector('.g-ytitle'), area = plot.querySelector('.nsewdrag');
    if (!title || !area || !title.getBoundingClientRect().height) return [];
    return [{text: title.textContent, title: title.getBoundingClientRect().height,
             plot: area.getBoundingClientRect().height}]; })"""


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_verify_cost_tabs_y_axis_titles_fit_their_plots_on_a_phone(screens, base, lang):
    """Read 44: on a 390 px phone the Portuguese y axis title of the float32/bfloat16 verify-cost chart, "tempo /
    passagem de um token", ran taller than its plot and was cut off. It is two short lines now
    (`charts.wrap_axis_title`, in the Speedup lab's `_layout`)."""
    page = _open(screens, base, f"/speedup_lab?lang={lang}")
    page.get_by_role("tab", name="Verify cost" if lang == "en" else "Custo de verificação").click()
    page.wait_for_function(DRAWN)
    found = page.evaluate(Y_TITLE_FITS)
    assert len(found) >= 2, found  # the run's verify curve and the dtype chart under it
    assert [f["text"] for f in found if f["title"] > f["plot"]] == [], found
    page.close()


# every select box's chosen value on the page: its text, whether it is cut (wider than its box) and how the cut shows
SELECT_VALUES = """() => [...document.querySelectorAll('[data-testid="stSelectbox"] input[role="combobox"]')]
  .filter(i => i.offsetParent !== null && i.closest('[data-testid="stMain"]'))
  .map(i => ({value: i.value, cut: i.scrollWidth > i.clientWidth + 1, overflow: getComputedStyle(i).textOverflow}))"""


@pytest.mark.parametrize("path, viewport", [("/exactness?lang=en", {"width": 1400, "height": 900}),
                                            ("/theory?lang=pt", PHONE)])
def test_a_cut_select_value_ends_in_an_ellipsis(screens, base, path, viewport):
    """Read 45: a select box cut its chosen value mid-letter with no sign of the cut: "Toy pair (instant; 32
    characters and 2 sp" in the Exactness lab at 1400 px, and on a phone in Portuguese the Theory explorer's pair read
    "Qwen2.5-7B → Qwen2.5-72", another model's name. A cut value now ends in "…" (accessibility.CSS)."""
    page = _open(screens, base, path, viewport=viewport)
    found = page.evaluate(SELECT_VALUES)
    cut = [f for f in found if f["cut"]]
    assert cut, found  # the long value these pages show is cut at this width: the case this test is about
    assert [f["value"] for f in cut if f["overflow"] != "ellipsis"] == [], found
    page.close()


def test_a_tables_toolbar_does_not_cover_the_text_above_it_on_a_phone(screens, base):
    """On a phone Streamlit showed the editable table's toolbar without hovering, over the sandbox's intro text."""
    page = _open(screens, base, "/sandbox")
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.scroll_into_view_if_needed()
    grid.tap(position={"x": 40, "y": 40})
    page.wait_for_timeout(500)
    bars = page.locator('[data-testid="stElementToolbar"]')
    assert all(not bars.nth(i).is_visible() for i in range(bars.count())), "a table's toolbar is drawn on a phone"
    page.close()


# page links whose text the link cuts: wider than the box that shows it
CUT_LINKS = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stPageLink-NavLink"] p')]
  .filter(p => p.scrollWidth > p.clientWidth + 1 || p.parentElement.scrollWidth > p.parentElement.clientWidth + 1)
  .map(p => p.textContent)"""


def test_a_long_page_link_wraps_on_a_phone(screens, base):
    """Read 50: only the Overview let its page links wrap; elsewhere Streamlit kept a link on one line and cut it, at
    390 px with no "…": the guided path's last link read "Teste-se no Quiz sobre os conceitos que você já vi". Every
    page link now wraps (accessibility.CSS)."""
    page = _open(screens, base, "/learn?lesson=3&lang=pt")
    link = page.get_by_text("Teste-se no Quiz sobre os conceitos que você já viu")
    link.wait_for(state="visible")
    assert page.evaluate(CUT_LINKS) == []
    box = link.bounding_box()
    assert box["x"] + box["width"] <= PHONE["width"], box
    _shot(page, "phone-learn-links-pt.png")
    page.close()


# the first data grid's columns as Glide's accessibility table lists them: the ones in view (a pinned one included)
GRID_IN_VIEW = """() => { const grid = document.querySelector('[data-testid="stDataFrame"] table[role="grid"]');
  return {heads: [...grid.querySelectorAll('th')].map(t => t.innerText),
          first: [...grid.querySelectorAll('tbody tr')].map(r => (r.querySelector('td') || {}).innerText)}; }"""
GRID_TO_THE_RIGHT = """() => { const s = document.querySelector('[data-testid="stDataFrame"] .dvn-scroller');
  s.scrollLeft = s.scrollWidth; return s.scrollLeft; }"""


@pytest.mark.parametrize("lang, rule, first", [("en", "rule", "Exact rule (Leviathan / Chen)"),
                                               ("pt", "regra", "Regra exata (Leviathan / Chen)")])
def test_the_rules_table_keeps_its_rule_names_when_scrolled_sideways_on_a_phone(screens, base, lang, rule, first):
    """Read 51: at 390 × 844 the Exactness lab's rules table is wider than the screen; scrolled to its speedups, its
    rule names had gone with the first column, and seven rows of numbers named nothing ("ift (TV)", "P(kept)", ...).
    The names are pinned (`specviz.ui.common.grids`)."""
    page = _open(screens, base, f"/exactness?lang={lang}")
    page.locator('[data-testid="stDataFrame"]').first.scroll_into_view_if_needed()
    assert page.evaluate(GRID_TO_THE_RIGHT) > 100  # it scrolled: wider than the phone
    page.wait_for_timeout(500)
    shown = page.evaluate(GRID_IN_VIEW)
    assert shown["heads"][0] == rule and shown["first"][0] == first, shown
    assert len(shown["heads"]) >= 3, shown  # the names leave room for the numbers
    _shot(page, f"phone-exactness-rules-{lang}.png")
    _no_page_overflow(page)
    page.close()
