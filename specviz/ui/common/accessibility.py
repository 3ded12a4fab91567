"""What the app adds so every page meets WCAG 2.1 AA where Streamlit's own frontend falls short.

One `<style>` and one `<script>`, drawn once per run in the sidebar (`install`), mend in the browser what the app
cannot pass to Streamlit as a parameter:

- the page's language: Streamlit hard-codes `<html lang="en">`; the script writes the session's language (WCAG
  3.1.1), so a screen reader reads a Portuguese page with Portuguese rules;
- the sidebar navigation: Streamlit 1.67 puts each section's header and links in a `<div>` inside the `<ul>`, which
  breaks the list (axe: `list`, `listitem`); the script makes each section a list named after its header;
- every Plotly chart becomes a `role="figure"` with the accessible name `specviz.ui.common.charts.show` wrote next to it;
  the drawing itself (hover-only) is hidden from screen readers, whose reader gets the table of numbers under it,
  and the toolbar's buttons leave the Tab order (they show only on a mouse hover);
- keyboard focus: when a pressed button (or Enter in a form's field, which presses its submit button) goes away on
  the rerun it started ("Check" becomes the feedback and "Next"), focus moves to the button that took its place
  instead of dropping to `<body>`; a button that opens new content ("Quiz me on all concepts", the Classroom's
  Join) lands on it (`LANDINGS`); a page that moves the focus itself (the guided path's Next lesson:
  `land_on_title`) says so, and the pressed button is not looked for again; the element that gets the focus is
  scrolled into view, never focused off screen;
- a visible focus ring on the navigation's links, readable text in a graded question's disabled options, and
  Plotly's toolbar off on phone-sized screens.

The script is constant text apart from the language code, which comes from `LANG_TAGS` (never from a visitor), so
running it (`unsafe_allow_javascript`) runs nothing a visitor wrote. It re-applies itself on every DOM change
(Streamlit redraws parts of the page on every rerun) and installs its observer once per browser tab.
"""

from __future__ import annotations

import json
import re

import streamlit as st

from specviz.core.i18n import N_, _, get_language

# the app's language code -> the BCP 47 tag of <html lang>
LANG_TAGS = {"en": "en", "pt": "pt-BR"}
FOCUS_COLOR = "#0B5CAD"  # 6.7:1 on white, 6.1:1 on the sidebar's #F2F4F7: the focus ring of the nav's links
CHART_NAME_CLASS = "sv-chart-name"  # the hidden accessible name `charts.show` writes before each chart
IDS_BOX = "sv_ids"  # key of a container whose tables hold identifiers (model ids) that may break anywhere on a phone

# Streamlit's own words that no parameter reaches (an input's "Press Enter to apply", the file uploader's button and
# limit, an empty select's placeholder, the status widget, the "Help for ..." name of every help icon): the script
# swaps them on a page in another language. Exact texts, then patterns whose groups fill the named placeholders.
STREAMLIT_TEXTS = {
    "Press Enter to apply": N_("Press Enter to apply"),
    "Press Enter to submit form": N_("Press Enter to submit form"),
    "Upload": N_("Upload"),
    "Browse files": N_("Browse files"),
    "Drag and drop file here": N_("Drag and drop file here"),
    "Choose an option": N_("Choose an option"),
    "Choose options": N_("Choose options"),
    "No results": N_("No results"),
    "Stop": N_("Stop"),
    "Running...": N_("Running..."),
}
STREAMLIT_PATTERNS = [
    (r"^Limit (\S+) per file(.*)$", N_("Limit {size} per file{types}"), ("size", "types")),
    (r"^(\S+) per file(.*)$", N_("{size} per file{types}"), ("size", "types")),
    (r"^Help for (.+)$", N_("Help for {label}"), ("label",)),
]

# A graded question's disabled options: the colour Streamlit greys their text to (the theme's textColor in
# .streamlit/config.toml at 40% opacity on the white page, rounded to a whole #RRGGBB) and the one this style shows
# instead; each contrast ratio is WCAG 2.1's, to two decimals (tests/ui/test_accessibility.py recomputes all three).
THEME_TEXT, GREYED_TEXT, DISABLED_TEXT = "#111111", "#A0A0A0", "#333333"
GREYED_CONTRAST, DISABLED_CONTRAST = "2.61", "12.63"
TREE_WIDE, TREE_NARROW = "treedrawn", "treelist"  # tree_view's container keys: the drawn tree, the list a phone reads
CSS = f"""<style>
/* a draft tree: drawn on a wide screen, a list on a phone, where a deep tree's labels overlap (issue 42 item 5) */
@media (max-width: 640px) {{ [class*="_{TREE_WIDE}_"] {{display:none !important;}} }}
@media (min-width: 641px) {{ [class*="_{TREE_NARROW}_"] {{display:none !important;}} }}
/* text only a screen reader reads (WAI's visually-hidden pattern); its element container leaves the layout */
.sv-sr-only {{position:absolute !important; width:1px; height:1px; padding:0; margin:-1px; overflow:hidden;
  clip:rect(0 0 0 0); white-space:nowrap; border:0;}}
[data-testid="stElementContainer"]:has(.sv-sr-only) {{position:absolute !important; width:1px; height:1px;
  overflow:hidden; clip:rect(0 0 0 0);}}
/* a heading the page gave the focus after a move (land_on_title): where reading starts, not a control, so no ring */
[data-testid="stMainBlockContainer"] :is(h1, h2, h3)[tabindex="-1"]:focus {{outline:none;}}
/* the page's scrolling box takes the focus (Streamlit gives it tabindex 0, so the keyboard can scroll it): show it */
[data-testid="stMain"]:focus-visible {{outline:3px solid {FOCUS_COLOR} !important; outline-offset:-3px;}}
/* the navigation's focus ring: Streamlit's is a faint grey fill */
[data-testid="stSidebarNav"] a:focus-visible, [data-testid="stPageLink-NavLink"]:focus-visible {{
  outline:3px solid {FOCUS_COLOR} !important; outline-offset:2px; border-radius:6px;}}
/* radio options, pills, segmented controls, checkboxes and select menus: Streamlit's focus ring is a faint tint
   (under 3:1 against the page, WCAG 1.4.11); a solid ring where the keyboard is (issue 42 item 7) */
[data-testid="stMain"] label:has(input:focus-visible),
[data-testid="stMain"] [data-testid="stButtonGroup"] button:focus-visible,
[data-testid="stMain"] [data-baseweb="select"] > div:focus-within {{
  outline:3px solid {FOCUS_COLOR} !important; outline-offset:2px; border-radius:4px;}}
[role="listbox"] [role="option"][aria-selected="true"], [role="listbox"] [role="option"]:focus-visible {{
  outline:2px solid {FOCUS_COLOR} !important; outline-offset:-2px;}}
/* a graded question shows its options disabled (read-only): Streamlit 1.67 greys their text to its fadedText40, the
   theme's {THEME_TEXT} at 40% opacity, {GREYED_TEXT} on white: {GREYED_CONTRAST}:1, under WCAG AA's 4.5:1; the
   learner reads them with the marks, so they are {DISABLED_TEXT} ({DISABLED_CONTRAST}:1); disabled stays visible in
   the greyed radio or box itself */
[data-testid="stMain"] label:has(input:disabled) [data-testid="stMarkdownContainer"],
[data-testid="stMain"] label:has(input:disabled) [data-testid="stMarkdownContainer"] *,
[data-testid="stMain"] [data-testid="stWidgetLabel"][disabled] [data-testid="stMarkdownContainer"] * {{
  color:{DISABLED_TEXT} !important; opacity:1 !important;}}
/* a phone: a row of radio options wraps with room between them (they ran together), a row of pills wraps */
@media (max-width: 640px) {{
  [data-testid="stRadio"] [role="radiogroup"] {{row-gap:0.45rem !important; column-gap:1.1rem !important;}}
  [data-testid="stButtonGroup"] > div {{flex-wrap:wrap !important;}}
}}
/* nothing widens the page (WCAG 1.4.10 reflow): a table wider than the screen scrolls inside its own box (a
   markdown table too), and on a phone identifiers that cannot wrap (model ids, paths) may break anywhere */
[data-testid="stMain"] [data-testid="stElementContainer"] {{min-width:0; max-width:100%;}}
[data-testid="stMain"] [data-testid="stTable"] {{max-width:100%; overflow-x:auto;}}
[data-testid="stMain"] [data-testid="stMarkdownContainer"] table {{display:block; max-width:100%; overflow-x:auto;}}
@media (max-width: 640px) {{
  [data-testid="stMain"] .katex-display {{font-size:0.82em; max-width:100%; overflow-x:auto; overflow-y:hidden;}}
  .st-key-{IDS_BOX} td, .st-key-{IDS_BOX} td * {{overflow-wrap:anywhere !important;}}
  [data-testid="stMain"] [data-testid="stMarkdownContainer"] :is(p, li, code) {{overflow-wrap:anywhere;}}
  /* but not in a table's cells: there "anywhere" let the columns shrink to a letter, and a chart's numbers read
     "s p e c u l a t i v e" down a column (the race's table at 390 px); a word stays whole, the table scrolls */
  [data-testid="stMain"] :is(th, td) [data-testid="stMarkdownContainer"] :is(p, li, code) {{overflow-wrap:normal;}}
}}
/* a metric's label: Streamlit keeps it on one line and cuts it with "…", which hid a long one in four columns
   ("Comprimento médio de acei…" on the race, the Playground and the Theory explorer at 1400 px): it wraps instead */
[data-testid="stMetricLabel"] [data-testid="stMarkdownContainer"],
[data-testid="stMetricLabel"] [data-testid="stMarkdownContainer"] p {{white-space:normal !important;
  overflow:visible !important; text-overflow:clip !important;}}
/* a page link: Streamlit keeps it on one line and cuts it, on a phone with no "…" (the guided path's last link read
   "Teste-se no Quiz sobre os conceitos que você já vi" at 390 px, read 50): every one wraps, as the Overview's did */
[data-testid="stPageLink-NavLink"] span:has(> [data-testid="stMarkdownContainer"]),
[data-testid="stPageLink-NavLink"] [data-testid="stMarkdownContainer"],
[data-testid="stPageLink-NavLink"] [data-testid="stMarkdownContainer"] p {{white-space:normal; overflow:visible;
  text-overflow:clip;}}
/* a select box's chosen value (an input): Streamlit cut a long one mid-letter with no sign of the cut ("Toy pair
   (instant; 32 characters and 2 sp" in the Exactness lab at 1400 px; "Qwen2.5-7B → Qwen2.5-72", another model's
   name, in the Theory explorer on a phone in Portuguese): it ends in "…" where it is cut */
[data-testid="stSelectbox"] input[role="combobox"] {{text-overflow:ellipsis;}}
/* Plotly's toolbar: shown on hover with a mouse, never on a phone (a tap would put it over the chart's title) */
@media (max-width: 640px), (hover: none) {{ .js-plotly-plot .modebar-container {{display:none !important;}} }}
/* a table's toolbar (search, download, full screen) sat on the text above the table on a phone, where it shows
   without hovering: hidden there, as Plotly's is */
@media (max-width: 640px) {{ [data-testid="stElementToolbar"] {{display:none !important;}} }}
</style>"""

SCRIPT = r"""<script>
(() => {
  const w = window.parent && window.parent.document ? window.parent : window;
  const doc = w.document;
  w.__specvizLang = "%(lang)s";
  w.__specvizText = %(texts)s;
  w.__specvizLandings = %(landings)s;
  if (w.__specvizA11y) { w.__specvizA11y(); return; }
  let pressed = null;  // the key of the button pressed last, until the rerun it started has settled
  // after a landing: the press that led there, for a few seconds, in case a later redraw of the page drops the
  // focus to the page body again (a loaded server redraws a question's choices after they got the focus)
  let held = null;
  w.__specvizLanded = () => { pressed = null; held = null; };  // the page put the focus where the press leads
  const keyOf = (el) => {
    const box = el && el.closest('[class*="st-key-"]');
    const cls = box ? [...box.classList].find((c) => c.startsWith("st-key-")) : null;
    return cls ? cls.slice(7) : null;
  };
  const rememberPress = (event) => {
    held = null;  // the visitor acts: the focus is theirs from here
    let button = event.target.closest && event.target.closest("button");
    if (!button && event.key === "Enter" && event.target.tagName === "INPUT") {  // Enter in a form's field submits it
      const form = event.target.closest('[data-testid="stForm"]');
      button = form && form.querySelector('[data-testid="stFormSubmitButton"] button:not([disabled])');
    }
    const press = button && (event.type === "click" || ["Enter", " "].includes(event.key));
    if (press) pressed = {key: keyOf(button), text: button.innerText, at: Date.now(), from: event.target};
    else if (event.type === "click" || ["Tab", "Escape"].includes(event.key)) pressed = null;  // the visitor moved on
  };
  doc.addEventListener("click", rememberPress, true);
  doc.addEventListener("keydown", rememberPress, true);
  const onBody = () => !doc.activeElement || doc.activeElement === doc.body || doc.activeElement === doc.documentElement;
  const restoreFocus = () => {
    if (!pressed && held && Date.now() < held.until && onBody() &&
        !doc.querySelector('[data-testid="stStatusWidget"]')) {
      // a redraw took the landed focus away: land it again, within the first landing's time (a page that redraws
      // every 2 s, the presenter view, would otherwise keep the hold alive for ever)
      pressed = {...held.press, at: Date.now(), until: held.until};
    }
    // a run that a loaded server takes long over still lands (30 s was too short under load); a later click, Tab
    // or Escape has dropped the press already
    if (!pressed || Date.now() - pressed.at > 120000) { pressed = null; return; }
    // still running: wait for the next change (a focus the rerun moves in passing is not the visitor's doing)
    if (doc.querySelector('[data-testid="stStatusWidget"]')) return;
    const active = doc.activeElement;
    if (active && active !== doc.body && active !== doc.documentElement) {
      // the visitor moved on: leave the focus alone (the field Enter was pressed in keeps it until the rerun)
      if (keyOf(active) !== pressed.key && active !== pressed.from) pressed = null;
      return;
    }
    const shown = (el) => el && el.offsetParent !== null;  // not in a closed expander or a hidden tab
    const find = (key) => key && [...doc.querySelectorAll(`.st-key-${CSS.escape(key)} button:not([disabled])`)]
      .find(shown);
    let target = find(pressed.key);
    const landing = (w.__specvizLandings || {})[pressed.key];
    if (!target && landing) {  // a button that opens new content: the first thing to answer in it
      const box = [...doc.querySelectorAll(landing)].find(shown);
      if (!box) return;  // not drawn yet: the next change looks again
      target = box.querySelector('input:not([disabled]), textarea:not([disabled]), button:not([disabled])');
      if (!target && Date.now() - pressed.at < 10000) {  // drawn before its choices (a loaded server): look again
        setTimeout(restoreFocus, 400);
        return;
      }
      if (!target) { box.setAttribute("tabindex", "-1"); target = box; }  // a question with nothing to answer
    }
    if (!target && pressed.key && pressed.key.includes("_")) {  // its successor: same key up to the last "_"
      const stem = pressed.key.slice(0, pressed.key.lastIndexOf("_") + 1);
      target = [...doc.querySelectorAll(`[class*="st-key-${CSS.escape(stem)}"] button:not([disabled])`)].find(shown);
      if (!target) {  // no button took its place (a right answer): the feedback next to the question it answered
        const owner = doc.querySelector(`.st-key-${CSS.escape(stem.slice(0, -1))}`);
        const block = owner && owner.parentElement && owner.parentElement.closest('[data-testid="stVerticalBlock"]');
        const note = block && block.querySelector('[data-testid="stAlert"]');
        if (note) { note.setAttribute("tabindex", "-1"); target = note; }
      }
    }
    if (target) {
      target.focus({preventScroll: true});
      target.scrollIntoView({block: "nearest"});  // where the keyboard is, on screen
      held = {press: pressed, until: pressed.until || Date.now() + 8000};
      pressed = null;
    }
  };
  const mend = () => {
    const lang = w.__specvizLang;
    if (doc.documentElement.lang !== lang) doc.documentElement.lang = lang;
    const list = doc.querySelector('[data-testid="stSidebarNavItems"]');
    if (list) {
      const sections = [...list.children].filter((c) => c.tagName === "DIV");
      if (sections.length) {
        if (list.getAttribute("role") !== "none") list.setAttribute("role", "none");
        for (const section of sections) {
          const header = section.querySelector(':scope > [data-testid="stNavSectionHeader"]');
          const name = header ? header.innerText.trim() : "";
          if (section.getAttribute("role") !== "list") section.setAttribute("role", "list");
          if (name && section.getAttribute("aria-label") !== name) section.setAttribute("aria-label", name);
          if (header && header.getAttribute("aria-hidden") !== "true") header.setAttribute("aria-hidden", "true");
        }
      }
    }
    for (const name of doc.querySelectorAll(".%(name_class)s")) {
      const box = name.closest('[data-testid="stVerticalBlock"]');
      const chart = box && box.querySelector('[data-testid="stPlotlyChart"]');
      const label = name.textContent.trim();
      if (!chart || !label) continue;
      if (chart.getAttribute("role") !== "figure") chart.setAttribute("role", "figure");
      if (chart.getAttribute("aria-label") !== label) chart.setAttribute("aria-label", label);
      const plot = chart.querySelector(".js-plotly-plot");  // hover-only drawing: its numbers are the table
      if (plot && plot.getAttribute("aria-hidden") !== "true") plot.setAttribute("aria-hidden", "true");
      for (const button of chart.querySelectorAll(".modebar-btn:not([tabindex])")) button.setAttribute("tabindex", "-1");
    }
    translate();
    restoreFocus();
  };
  const swap = (text) => {  // Streamlit's English for the page's language, or null
    const T = w.__specvizText, t = text.trim();
    if (!t || !T) return null;
    let out = T.exact[t];
    for (const [re, template] of T.patterns) {
      if (out !== undefined) break;
      const m = t.match(new RegExp(re));
      if (m) out = template.replace(/\{(\d)\}/g, (_, i) => m[+i]);
    }
    return out === undefined ? null : text.replace(t, out);
  };
  const swapTexts = (root, change) => {
    const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const next = change(n.nodeValue);
      if (next !== null && next !== n.nodeValue) n.nodeValue = next;
    }
  };
  const translate = () => {
    const T = w.__specvizText;
    if (!T) return;
    for (const root of doc.querySelectorAll('[data-testid="InputInstructions"], [data-testid="stFileUploaderDropzone"], '
                                            + '[data-testid="stStatusWidget"], [data-testid="stSelectboxVirtualDropdownEmpty"]')) {
      swapTexts(root, swap);
    }
    for (const input of doc.querySelectorAll('input[placeholder]')) {
      const next = swap(input.placeholder);
      if (next !== null && next !== input.placeholder) input.placeholder = next;
    }
    for (const el of doc.querySelectorAll('[aria-label^="Help for "]')) {
      const next = swap(el.getAttribute("aria-label"));
      if (next !== null) el.setAttribute("aria-label", next);
    }
  };
  let queued = false;
  const schedule = () => { if (!queued) { queued = true; w.requestAnimationFrame(() => { queued = false; mend(); }); } };
  new w.MutationObserver(schedule).observe(doc.documentElement, {childList: true, subtree: true, characterData: true,
                                                                  attributes: true, attributeFilter: ["lang"]});
  w.__specvizA11y = mend;
  mend();
})();
</script>"""


def script(language: str) -> str:
    """The script for a page in `language` (an app language code: "en" or "pt")."""
    return SCRIPT % {"lang": LANG_TAGS[language], "name_class": CHART_NAME_CLASS, "texts": _texts(language),
                     "landings": json.dumps(LANDINGS)}


# A button whose rerun replaces it with new content -> a CSS selector of the part of the page its focus lands on
# (the first input or button in it). Constant text: the script's only inputs are these and the language code. The
# Classroom's Join (pressed, or Enter in its form's fields) lands on the joined student's view: the first question's
# choices, or, before a teacher-paced session's first question, the view itself (read 47: the focus fell to <body>,
# Tab began at the sidebar). The way out is drawn below the view, so Join never lands on it (read 48: it did, and a
# second Enter left the session).
LANDINGS = {"quiz_widen": '[class*="st-key-quiz_r"][class*="_question"]',
            "classroom_join_submit": ".st-key-classroom_student"}


def _texts(language: str) -> str:
    """Streamlit's English and its translation, as a JSON object for the script (none on an English page): exact
    texts and patterns with their placeholders numbered (a slider's numbers are written on the server:
    `specviz.ui.common.sliders`). Catalog text only, never a visitor's."""
    from specviz.core.i18n import using

    with using(language):
        exact = {english: _(message) for english, message in STREAMLIT_TEXTS.items() if _(message) != english}
        patterns = []
        for regex, message, names in STREAMLIT_PATTERNS:
            template = _(message)
            for index, name in enumerate(names, start=1):
                template = template.replace("{" + name + "}", "{" + str(index) + "}")
            patterns.append([regex, template])
    if not exact:
        return "null"
    return json.dumps({"exact": exact, "patterns": patterns}, ensure_ascii=False).replace(
        "</", "<\\/")


def install() -> None:
    """Draw the style and the script for this run's language (call once per run, from the shared frame)."""
    st.html(CSS)  # style only: Streamlit puts it in the event container, where it takes no space
    st.html(f'<span class="sv-sr-only"></span>{script(get_language())}', unsafe_allow_javascript=True)


_LAND_ON_TITLE = """<script>/* move %(n)d */
(() => {
  const w = window.parent && window.parent.document ? window.parent : window;
  if (w.__specvizLanded) w.__specvizLanded();  // the button pressed is not where the keyboard goes next
  const doc = w.document, main = '[data-testid="stMainBlockContainer"]', wanted = main + " " + %(heading)s;
  // On a busy machine this script can run before the new lesson's heading is drawn, and a heading redrawn by the
  // rest of the run loses the focus: land again, every quarter second for ten seconds, until the visitor presses a
  // key, touches the page or moves the focus some other way (a screen reader's cursor, a script): then it is theirs.
  let acted = false, landing = false;
  const act = () => { acted = true; };
  doc.addEventListener("keydown", act, {capture: true, once: true});
  doc.addEventListener("pointerdown", act, {capture: true, once: true});  // a mouse, a finger or a pen
  const moved = (event) => {  // a focus this script did not give
    if (landing) return;
    acted = true;
    doc.removeEventListener("focusin", moved, true);
  };
  doc.addEventListener("focusin", moved, true);
  const until = Date.now() + 10000;
  const land = () => {
    if (acted) return;
    const title = doc.querySelector(main + " h1");
    const target = doc.querySelector(wanted) || title;
    if (target && doc.activeElement !== target) {
      target.setAttribute("tabindex", "-1");
      landing = true;
      try { target.focus({preventScroll: true}); } finally { landing = false; }
      (title || target).scrollIntoView({block: "start"});
    }
    if (Date.now() < until) setTimeout(land, 250);
    else doc.removeEventListener("focusin", moved, true);
  };
  land();
})();
</script>"""


def land_on_title(move: int, heading: str | None = None) -> None:
    """After a button moved the page to new content from its bottom (the guided path's Next lesson): the page's
    title on screen and the keyboard's focus on the new content's heading (its anchor `heading`; the title when
    None), so a screen reader names what is new and reading and Tab start there. Without it the browser stayed
    where the button was, and when a rerun redrew the button the focus mender brought it back on screen (2,100 px
    down). Draw it after the heading. `move` counts the moves, so each move's script is new and the browser runs
    it; `heading` is the app's own anchor: letters, digits, - and _ only."""
    if heading is not None and (not heading or not all(c.isalnum() or c in "-_" for c in heading)):
        raise ValueError(f"A heading's anchor is letters, digits, - and _ only (got {heading[:40]!r}).")
    selector = json.dumps("h1" if heading is None else f'[id="{heading}"]')
    st.html(_LAND_ON_TITLE % {"n": int(move), "heading": selector}, unsafe_allow_javascript=True)


_SCROLL_TO_RESULT = """<span class="sv-sr-only sv-scroll-mark" data-mark="%(mark)s"></span><script>
(() => {
  const w = window.parent && window.parent.document ? window.parent : window;
  if (w.__specvizScrolledTo === "%(mark)s") return;
  const mark = w.document.querySelector('.sv-scroll-mark[data-mark="%(mark)s"]');
  const block = mark && mark.closest('[data-testid="stVerticalBlock"]');
  if (!block) return;
  w.__specvizScrolledTo = "%(mark)s";
  let top = block;  // a phone: the result fills the screen
  if (!w.matchMedia("(max-width: 640px)").matches) {  // wider: the controls at the top, the result's start under them
    const start = block.getBoundingClientRect().top;
    if (start < w.innerHeight - 160) return;  // already on screen: stay
    const controls = w.document.querySelector(%(controls)s);
    // a short screen, where even with the controls at the top the result would start below the fold: the result
    if (controls && start - controls.getBoundingClientRect().top + 72 < w.innerHeight - 160) top = controls;
  }
  // Scroll the box that scrolls (Streamlit's main column), never scrollIntoView: for a block near the page's end,
  // which the column cannot bring to the top, scrollIntoView also scrolled the app's outer box, whose overflow is
  // hidden, and the app moved up out of the window for good (read 47: a live link's last step)
  let box = top.parentElement;
  while (box && !["auto", "scroll"].includes(w.getComputedStyle(box).overflowY)) box = box.parentElement;
  box = box || w.document.scrollingElement;
  const from = box === w.document.scrollingElement ? 0 : box.getBoundingClientRect().top;
  box.scrollTop += top.getBoundingClientRect().top - from - 72;  // 72: clear Streamlit's header bar over the top
})();
</script>"""


def scroll_to_result(mark: str, controls: str) -> None:
    """Bring the block this is drawn in (a result a button just revealed) on screen, once per `mark` (a new mark,
    such as the next step's number, scrolls again). On a phone the block goes to the top of the screen (a step's
    result was two screens below the buttons); on a wider screen, when the block starts below the fold, the
    `controls` (the widget key of the button that revealed it) go to the top, so the button stays in view and the
    result starts under it (at 1400 x 900 Next step showed nothing new: it sat at the bottom with the result under
    the fold); on a screen too short for both, the block goes to the top. The caller draws it for a press, not for
    a timer's tick (Play), so a reader who scrolls away while it plays stays there. `mark` and `controls` are the
    app's own text: letters, digits, - and _ only."""
    for text in (mark, controls):
        if not text or not all(c.isalnum() or c in "-_" for c in text):
            raise ValueError(f"A scroll mark is letters, digits, - and _ only (got {text[:40]!r}).")
    st.html(_SCROLL_TO_RESULT % {"mark": mark, "controls": json.dumps(f".st-key-{controls}")},
            unsafe_allow_javascript=True)
