"""Audit the app's accessibility in a real browser: `python -m specviz.scripts.a11y_audit`.

Runs axe-core (the npm package, pinned in the Makefile; `make axe` installs it into .cache/axe) with the WCAG 2.1 A
and AA rules over every page in both languages, plus the checks axe cannot make:

- the page's language: `<html lang>` names the language the page is written in (WCAG 3.1.1);
- every Plotly chart has an accessible name (`role="figure"` and an `aria-label`) and, in the block under it, its
  numbers as an HTML table with header cells;
- text inside the app's own HTML (chips, legends, KV-cache cells) has a contrast of at least 4.5:1 against the
  colour behind it (3:1 when large), computed from the rendered colours;
- the Plotly toolbar is not shown until a mouse hovers a chart, and nothing inside a chart is a Tab stop;
- on every page at its default, the keyboard (WCAG 2.1.1 keyboard, 2.1.2 no trap, 2.4.3 focus order, 2.4.7 focus
  visible): from the top of the page, Tab reaches the page's own content, never gets stuck, never lands on something
  that is not drawn, and every stop shows where the focus is (`keyboard_pass`).

A violation that comes from Streamlit's own frontend and that the app cannot mend is listed in `STREAMLIT_OWNED`
with its upstream issue (docs/accessibility.md lists them too); the test tier
(tests/browser/test_accessibility_browser.py) fails on every other serious or critical one.

    python -m specviz.scripts.a11y_audit                  # every page, English and Portuguese
    python -m specviz.scripts.a11y_audit --pages race quiz --languages pt
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.core.paths import SOURCE_ROOT

AXE_VERSION = "4.14.1"  # keep in step with the Makefile's AXE_VERSION
AXE_PATH = SOURCE_ROOT / ".cache" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = ("serious", "critical")
LANG_TAGS = {"en": "en", "pt": "pt-BR"}

# axe rule id -> why it cannot be fixed from the app, and Streamlit's issue for it. Empty today: every serious or
# critical violation found on specviz's pages is mended (the navigation's list roles and <html lang> by
# specviz.ui.common.accessibility). A new Streamlit release that brings one goes here, and into docs/accessibility.md, with
# its issue.
STREAMLIT_OWNED: dict[str, tuple[str, str]] = {}


def axe_source() -> str:
    """axe-core's script; a RuntimeError that says how to install it when it is missing."""
    import json

    package = AXE_PATH.parent / "package.json"
    installed = json.loads(package.read_text(encoding="utf-8")).get("version") if package.exists() else None
    if installed != AXE_VERSION:
        raise RuntimeError(f"axe-core {AXE_VERSION} is not installed (found: {installed or 'none'}): run `make axe` "
                           "(npm install into .cache/axe).")
    return AXE_PATH.read_text(encoding="utf-8")


@dataclass(frozen=True)
class Finding:
    """One problem on one page state: an axe rule (with its impact and where), or one of specviz's own checks."""

    state: str
    rule: str
    impact: str
    where: list[str] = field(default_factory=list)
    summary: str = ""

    def __str__(self) -> str:
        return f"{self.state}: {self.impact} {self.rule} ({len(self.where)}×) {self.summary[:160]} {self.where[:3]}"


_RUN_AXE = """async (tags) => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return result.violations.map(v => ({id: v.id, impact: v.impact || '', help: v.help,
    nodes: v.nodes.map(n => n.target.join(' '))}));
}"""


def run_axe(page, state: str, source: str | None = None) -> list[Finding]:
    """axe's WCAG 2.1 A/AA violations on the page as it is now, every impact."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=source or axe_source())
    found = page.evaluate(_RUN_AXE, TAGS)
    return [Finding(state, v["id"], v["impact"], v["nodes"], v["help"]) for v in found]


_CHARTS = """(numbersLabel) => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].map((chart) => {
  const box = chart.closest('[data-testid="stVerticalBlock"]');
  const tables = box ? [...box.querySelectorAll('[data-testid="stExpander"]')].filter(
      (e) => e.querySelector('summary').innerText.includes(numbersLabel) && e.querySelector('table th')) : [];
  return {role: chart.getAttribute('role') || '', name: (chart.getAttribute('aria-label') || '').trim(),
          table: tables.length > 0,
          title: (chart.querySelector('.gtitle') || {}).textContent || ''};
})"""

_CONTRAST = """() => {
  const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const v = m[1].split(/[ ,/]+/).filter(Boolean).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const lum = ([r, g, b]) => { const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const over = (top, under) => { const a = top[3]; return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1); };
  const behind = (el) => { const layers = []; for (let e = el; e; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor); if (bg && bg[3] > 0) layers.push(bg); if (bg && bg[3] >= 1) break; }
    return layers.reverse().reduce((acc, c) => over(c, acc), [255, 255, 255, 1]); };
  const bad = [];
  const own = document.querySelectorAll('[data-testid="stHtml"] *, [data-testid="stMarkdownContainer"] [style] *, [data-testid="stMarkdownContainer"] [style]');
  for (const el of own) {
    const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
    if (!text || !el.getClientRects().length) continue;
    const cs = getComputedStyle(el); if (cs.visibility === 'hidden' || parseFloat(cs.opacity) === 0) continue;
    if (el.closest('.sv-sr-only')) continue;
    const bg = behind(el), fg = over(parse(cs.color), bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(cs.fontSize), bold = parseInt(cs.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < need - 0.005) bad.push(`${text.slice(0, 24)} (${ratio.toFixed(2)}:1 at ${size}px, needs ${need})`);
  }
  return bad;
}"""


def app_checks(page, state: str, language: str, numbers_label: str) -> list[Finding]:
    """specviz's own checks on the page as it is now (see the module docstring)."""
    found = []
    lang = page.evaluate("() => document.documentElement.lang")
    if lang != LANG_TAGS[language]:
        found.append(Finding(state, "specviz-html-lang", "serious", ["html"],
                             f"<html lang> is '{lang}' on a page in '{LANG_TAGS[language]}'"))
    charts = page.evaluate(_CHARTS, numbers_label)
    unnamed = [c["title"] or "(untitled)" for c in charts if c["role"] != "figure" or not c["name"]]
    if unnamed:
        found.append(Finding(state, "specviz-chart-name", "serious", unnamed, "a chart has no accessible name"))
    untabled = [c["title"] or c["name"][:60] for c in charts if not c["table"]]
    if untabled:
        found.append(Finding(state, "specviz-chart-table", "serious", untabled,
                             f"a chart has no table of its numbers ('{numbers_label}') under it"))
    low = page.evaluate(_CONTRAST)
    if low:
        found.append(Finding(state, "specviz-contrast", "serious", low, "text in the app's HTML under 4.5:1"))
    page.mouse.move(0, 0)  # no chart under the mouse
    shown = page.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot .modebar-group')].filter((g) =>
        g.getClientRects().length && parseFloat(getComputedStyle(g).opacity) > 0).length""")
    if shown:
        found.append(Finding(state, "specviz-toolbar", "serious", [], "Plotly's toolbar shows without a hover"))
    tabbable = page.evaluate("""() => [...document.querySelectorAll(
        '.js-plotly-plot button, .js-plotly-plot a[href], .js-plotly-plot [tabindex]')].filter(
        (e) => e.tabIndex >= 0).length""")
    if tabbable:
        found.append(Finding(state, "specviz-chart-tab", "serious", [], f"{tabbable} Tab stop(s) inside charts"))
    return found


@dataclass(frozen=True)
class State:
    """A page state to audit: a URL below the app and, optionally, what a visitor does there first."""

    name: str
    path: str
    act: Callable[[object], None] | None = None
    charts: int = 0  # at least this many Plotly charts must be drawn (so a chart check cannot pass on an empty page)
    keyboard: bool = False  # a page at its default: the keyboard pass runs there too (`keyboard_pass`)


def _press(label: str, times: int = 1) -> Callable[[object], None]:
    def act(page) -> None:
        from specviz.scripts.screenshots import click_button

        for _ in range(times):
            click_button(page, label, timeout=90)
    return act


def answer_any(page) -> None:
    """Give some answer to the question on screen, whatever its kind (a choice, boxes, a number or a text)."""
    main = page.locator('[data-testid="stMain"]')
    # :visible in the selector: the first match in the page's order can be a hidden widget (a folded expander's),
    # and waiting for *that* one to show spent the whole bound on every call
    widgets = ('[role="radiogroup"] label:visible, [data-testid="stCheckbox"] label:visible, '
               '[data-testid="stNumberInput"] input:visible, [data-testid="stTextInput"] input:visible')
    try:  # on a loaded machine the question may draw after the run looked idle: wait for it, within a bound
        main.locator(widgets).first.wait_for(state="visible", timeout=30_000)
    except Exception:  # noqa: BLE001 - the sentence below says what was missing
        pass
    for selector, act in (('[role="radiogroup"] label:visible', "click"),
                          ('[data-testid="stCheckbox"] label:visible', "click"),
                          ('[data-testid="stNumberInput"] input:visible', "0.5"),
                          ('[data-testid="stTextInput"] input:visible', "x")):
        found = main.locator(selector)
        if found.count():
            if act == "click":
                found.first.click()
            else:
                found.first.fill(act)
                found.first.press("Tab")
            page.wait_for_timeout(400)
            return
    raise RuntimeError("no answer widget on the page")


LOOKUP_TREE_LINK = ("source=live&pair=toy&proposer=draft&prompt=abcabcabcabcab&k=3&max_new_tokens=30&temperature=0"
                    "&seed=2&tree_nodes=8&tree_width=3&tree_lookup=6")


def _copied_shown(page) -> None:
    """Wait until the step shows its copied nodes (the ❐ legend chip): the state is audited only once it is there."""
    page.locator('[data-testid="stMain"]').get_by_text("❐").first.wait_for(timeout=60_000)


def states(language: str) -> list[State]:
    """Every page at its default, and the states where the teaching happens (a revealed step, a graded question)."""
    from specviz.core.i18n import _, using
    from specviz.teach.pagemap import PAGE_FILES, url_path

    with using(language):
        check, next_question = _("Check"), _("Next question")
    charts = {"race": 2, "exactness": 3, "sandbox": 3, "theory": 5, "speedup_lab": 5}
    pages = [State(Path(path).stem, url_path(path), charts=charts.get(Path(path).stem, 0), keyboard=True)
             for path in PAGE_FILES]

    def answer_and_check(page) -> None:
        from specviz.scripts.screenshots import wait_for_app

        answer_any(page)
        _press(check)(page)
        # graded when Next question replaces Check (scope=all: the first question is never the last, which would
        # say "See results"): on a loaded machine the run that grades it may start after the
        # press looked idle, and axe then read the options half-faded (14 contrast findings, loaded make test)
        page.get_by_role("button", name=next_question).first.wait_for(timeout=90_000)
        wait_for_app(page, timeout=90)

    return pages + [
        # four steps revealed, opened there by the URL's `step`: the same page as four presses of "Next step" (their
        # main areas read the same text, 2026-12-06), without four reruns in each language
        State("playground, 4 steps in", "/playground?source=example&step=4", charts=3),
        # a live toy tree (instant, so the link runs on open) at a step whose tree holds a lookup branch: 4 nodes
        # copied from the context (❐), the first three kept and the fourth rejected (issue 42's "tree step with a
        # lookup branch")
        State("playground, tree step with a lookup branch", f"/playground?{LOOKUP_TREE_LINK}&step=6", _copied_shown,
              charts=3),
        State("race, live settings", "/race?race_source=live"),
        State("quiz, one question checked", "/quiz?scope=all", answer_and_check),
        State("learn, lesson 3", "/learn?lesson=3&done=1,2"),
        State("classroom, teacher", "/classroom?as=teacher"),
    ]


# The keyboard pass: where the focus is after a Tab: is it drawn, is it in the page's content, and how it looks
# focused (an outline, a ring drawn as a box shadow, a border or background colour, on the element or on one of the
# four boxes around it: Streamlit's select box colours its frame, not the input). A data grid's cell (Glide Data Grid,
# behind st.dataframe) is a zero-size stand-in the grid keeps for the keyboard and screen readers, and the grid's
# canvas takes the focus itself: the grid draws the focused cell's frame on its canvas (seen in screenshots of the
# sandbox's grid, the frame following the arrow keys), so for them the grid's own box is what must be drawn. Each
# stop's element is kept, and _UNFOCUSED reads all of them once the pass is over and nothing has the focus: a stop
# shows where the focus is when its look differs from its look unfocused. (Blurring and refocusing at every stop cost
# two more redraws a stop, about a third of the pass's time; Tab never reruns a script, so the elements are the ones
# Tab reached.)
KEYBOARD_PRESSES = 45
_LOOK = """(e) => { const out = []; let n = e;
  for (let i = 0; i < 5 && n; i++, n = n.parentElement) { const s = getComputedStyle(n);
    out.push([s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow, s.borderColor, s.backgroundColor].join());
  } return out.join('|'); }"""
# React redraws a widget's frame after focus moves: two animation frames later the redraw has been painted
_RENDER = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
_STOP = f"""async () => {{
  await ({_RENDER})();
  const e = document.activeElement;
  if (!e || e === document.body || e === document.documentElement) return {{lost: true}};
  const inGrid = (e.id && e.id.startsWith('glide-cell')) || e.getAttribute('data-testid') === 'data-grid-canvas';
  const grid = inGrid ? e.closest('[data-testid="stDataFrame"]') : null;
  (window.__specvizStops = window.__specvizStops || []).push(e);
  const r = (grid || e).getBoundingClientRect();
  return {{lost: false, key: (e.getAttribute('data-testid') || e.tagName) + ':' + (e.getAttribute('aria-label')
            || e.innerText || e.value || '').slice(0, 30).replace(/\\s+/g, ' '),
          drawn: r.width > 0 && r.height > 0, inMain: !!e.closest('[data-testid="stMain"]'), grid: !!grid,
          look: ({_LOOK})(e)}};
}}"""
_UNFOCUSED = f"""async () => {{
  if (document.activeElement) document.activeElement.blur();
  await ({_RENDER})();
  return (window.__specvizStops || []).map(e => e.isConnected ? ({_LOOK})(e) : null);
}}"""


def keyboard_pass(page, name: str, presses: int = KEYBOARD_PRESSES) -> list[Finding]:
    """Press Tab `presses` times from the top of the page as it is now; a serious finding for each way the keyboard
    fails there: the page redrew during the pass, the focus fell back to the page, never reached the page's content,
    kept to a few elements, landed on something not drawn, or showed no focus indicator. Styles change at once
    during the pass (`STILL_CSS`): Streamlit fades its borders in over 200 ms, which a reading right after Tab would
    miss; run it after axe, which then reads the page's own styles."""
    from specviz.scripts.screenshots import STILL_CSS

    page.add_style_tag(content=STILL_CSS)
    page.wait_for_timeout(300)
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); "
                  "window.__specvizStops = []; }")  # a page that kept its window: no stops from a pass before
    stops = []
    for _ in range(presses):
        page.keyboard.press("Tab")
        stops.append(page.evaluate(_STOP))
    held = [s for s in stops if not s["lost"]]
    unfocused = page.evaluate(_UNFOCUSED)  # in the order of `held`: lost stops kept no element

    def finding(rule: str, summary: str, where: list[str] = ()) -> Finding:
        return Finding(name, f"specviz-keyboard-{rule}", "serious", list(where), summary)

    if len(unfocused) != len(held) or None in unfocused:
        return [finding("redraw", "the page redrew during the keyboard pass")]
    for stop, look in zip(held, unfocused):
        stop["shown"] = stop["grid"] or stop["look"] != look
    found = []
    if len(held) < presses - 2:
        found.append(finding("lost", f"the focus fell back to the page {presses - len(held)} times in {presses} "
                                     "presses of Tab"))
    if not any(s["inMain"] for s in held):
        found.append(finding("no-content", f"{presses} presses of Tab never reached the page's content"))
    if len({s["key"] for s in held}) < min(10, len(held)) // 2:
        found.append(finding("few-stops", "the focus keeps to a few elements", sorted({s["key"] for s in held})))
    undrawn = sorted({s["key"] for s in held if not s["drawn"]})
    if undrawn:
        found.append(finding("undrawn", "the focus landed on elements that are not drawn", undrawn))
    unshown = sorted({s["key"] for s in held if not s["shown"]})
    if unshown:
        found.append(finding("no-focus-indicator", "no focus indicator on these stops", unshown))
    return found


def audit_state(page, base: str, state: State, language: str, source: str, keyboard: bool = False) -> list[Finding]:
    """Open one state in `language` and return everything axe and the app's checks find there, and with `keyboard`
    what the keyboard pass finds on a page at its default (`State.keyboard`), after axe has read the page."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    from specviz.core.i18n import _, using
    from specviz.scripts.screenshots import wait_for_app

    joiner = "&" if "?" in state.path else "?"
    page.goto(f"{base}{state.path}{joiner}lang={language}")
    wait_for_app(page, timeout=120)
    if state.act is not None:
        state.act(page)
    errors = page.locator('[data-testid="stException"]')
    if errors.count():
        return [Finding(f"{state.name} [{language}]", "specviz-page-error", "critical", [],
                        errors.first.inner_text()[:300])]
    with using(language):
        numbers = _("The numbers in this chart")
    if state.charts:
        page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {state.charts}",
                               timeout=30_000)
        # each chart's table of numbers comes after it in the same run: on a loaded machine the page can look idle
        # between two runs, and the check then read six charts before their tables (a 3-worker make test, quiet).
        # Wait for the tables too, but not for ever: past the deadline the check below reports what is missing.
        try:
            page.wait_for_function(f"(label) => ({_CHARTS})(label).every((chart) => chart.table)", arg=numbers,
                                   timeout=30_000)
        except PlaywrightTimeout:
            pass
        wait_for_app(page, timeout=60)
    # the app's accessibility script mends the page on the next animation frame after the last change: two frames on
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    name = f"{state.name} [{language}]"
    found = run_axe(page, name, source) + app_checks(page, name, language, numbers)
    return found + (keyboard_pass(page, name) if keyboard and state.keyboard else [])


def blocking(findings: list[Finding]) -> list[Finding]:
    """The findings a release must not have: serious or critical, and not one of Streamlit's own listed above."""
    return [f for f in findings if f.impact in BLOCKING and f.rule not in STREAMLIT_OWNED]


def unknown_pages(names: list[str]) -> list[str]:
    """The `--pages` names that match no state (a state matches its whole name or the page before its comma)."""
    known = {name for state in states("en") for name in (state.name, state.name.split(",")[0])}
    return [name for name in names if name not in known]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.a11y_audit", description=__doc__.split("\n")[0],
                                     formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--pages", nargs="*", help="state names to audit (default: all)")
    parser.add_argument("--languages", nargs="*", default=list(LANG_TAGS), choices=list(LANG_TAGS),
                        help="the languages each state is audited in")
    parser.add_argument("--shots", type=Path, default=None, help="a folder for a screenshot of every state")
    args = parser.parse_args(argv)
    unknown = unknown_pages(args.pages or [])
    if unknown or not args.languages:  # an audit of no state would print 0 findings and pass
        pages = ", ".join(dict.fromkeys(state.name.split(",")[0] for state in states("en")))
        print(f"a11y_audit: no state is named '{unknown[0]}': name a page ({pages}) or a state as the audit prints "
              "it." if unknown else "a11y_audit: --languages names none: choose from en, pt.", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    from specviz.scripts.screenshots import chromium_path, launch, serve, wait_for_app

    try:
        chromium_path()
        source = axe_source()
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 2
    failures = 0
    with serve() as base, sync_playwright() as pw, launch(pw) as context:
        page = context.new_page()
        page.goto(base)
        wait_for_app(page, timeout=120)
        for language in args.languages:
            for state in states(language):
                if args.pages and state.name.split(",")[0] not in args.pages and state.name not in args.pages:
                    continue
                findings = audit_state(page, base, state, language, source)
                if args.shots:  # the page as a visitor first sees it: before the keyboard pass moves the focus
                    args.shots.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(args.shots / f"{state.name.replace(', ', '-').replace(' ', '-')}"
                                                          f"-{language}.png"))
                if state.keyboard:
                    findings += keyboard_pass(page, f"{state.name} [{language}]")
                bad = blocking(findings)
                failures += len(bad)
                print(f"{state.name} [{language}]: {len(bad)} blocking, {len(findings) - len(bad)} other")
                for finding in findings:
                    print(f"  {finding}")
    print(f"{failures} serious or critical finding(s) the app can fix")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
