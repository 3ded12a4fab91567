"""What the app adds so every page meets WCAG 2.1 AA where Streamlit's own frontend falls short.

One `<style>` and one `<script>`, drawn once per run in the sidebar (`install`), mend in the browser what the app
cannot pass to Streamlit as a parameter:

- the page's language: Streamlit hard-codes `<html lang="en">`; the script writes the session's language (WCAG
  3.1.1), so a screen reader reads a Portuguese page with Portuguese rules;
- the sidebar navigation: Streamlit 1.67 puts each section's header and links in a `<div>` inside the `<ul>`, which
  breaks the list (axe: `list`, `listitem`); the script makes each section a list named after its header;
- every Plotly chart becomes a `role="figure"` with the accessible name `specviz.ui.charts.show` wrote next to it;
  the drawing itself (hover-only) is hidden from screen readers, whose reader gets the table of numbers under it,
  and the toolbar's buttons leave the Tab order (they show only on a mouse hover);
- keyboard focus: when a pressed button goes away on the rerun it started ("Check" becomes the feedback and
  "Next"), focus moves to the button that took its place instead of dropping to `<body>`;
- a visible focus ring on the navigation's links, readable text in a graded question's disabled options, and
  Plotly's toolbar off on phone-sized screens.

The script is constant text apart from the language code, which comes from `LANG_TAGS` (never from a visitor), so
running it (`unsafe_allow_javascript`) runs nothing a visitor wrote. It re-applies itself on every DOM change
(Streamlit redraws parts of the page on every rerun) and installs its observer once per browser tab.
"""

from __future__ import annotations

import streamlit as st

from specviz.i18n import get_language

# the app's language code -> the BCP 47 tag of <html lang>
LANG_TAGS = {"en": "en", "pt": "pt-BR"}
FOCUS_COLOR = "#0B5CAD"  # 7.0:1 on white: the focus ring of the navigation's links
CHART_NAME_CLASS = "sv-chart-name"  # the hidden accessible name `charts.show` writes before each chart

CSS = f"""<style>
/* text only a screen reader reads (WAI's visually-hidden pattern); its element container leaves the layout */
.sv-sr-only {{position:absolute !important; width:1px; height:1px; padding:0; margin:-1px; overflow:hidden;
  clip:rect(0 0 0 0); white-space:nowrap; border:0;}}
[data-testid="stElementContainer"]:has(.sv-sr-only) {{position:absolute !important; width:1px; height:1px;
  overflow:hidden; clip:rect(0 0 0 0);}}
/* the navigation's focus ring: Streamlit's is a faint grey fill */
[data-testid="stSidebarNav"] a:focus-visible, [data-testid="stPageLink-NavLink"]:focus-visible {{
  outline:3px solid {FOCUS_COLOR} !important; outline-offset:2px; border-radius:6px;}}
/* a graded question shows its options disabled (read-only): Streamlit greys them to about 2.6:1, but the learner
   reads them with the marks; disabled stays visible in the greyed radio or box itself */
[data-testid="stMain"] label:has(input:disabled) [data-testid="stMarkdownContainer"],
[data-testid="stMain"] label:has(input:disabled) [data-testid="stMarkdownContainer"] *,
[data-testid="stMain"] [data-testid="stWidgetLabel"][disabled] [data-testid="stMarkdownContainer"] * {{
  color:#333333 !important; opacity:1 !important;}}
/* Plotly's toolbar: shown on hover with a mouse, never on a phone (a tap would put it over the chart's title) */
@media (max-width: 640px), (hover: none) {{ .js-plotly-plot .modebar-container {{display:none !important;}} }}
</style>"""

SCRIPT = """<script>
(() => {
  const w = window.parent && window.parent.document ? window.parent : window;
  const doc = w.document;
  w.__specvizLang = "%(lang)s";
  if (w.__specvizA11y) { w.__specvizA11y(); return; }
  let pressed = null;  // the key of the button pressed last, until the rerun it started has settled
  const keyOf = (el) => {
    const box = el && el.closest('[class*="st-key-"]');
    const cls = box ? [...box.classList].find((c) => c.startsWith("st-key-")) : null;
    return cls ? cls.slice(7) : null;
  };
  const rememberPress = (event) => {
    const button = event.target.closest && event.target.closest("button");
    if (!button) return;
    if (event.type === "keydown" && !["Enter", " "].includes(event.key)) return;
    pressed = {key: keyOf(button), text: button.innerText, at: Date.now()};
  };
  doc.addEventListener("click", rememberPress, true);
  doc.addEventListener("keydown", rememberPress, true);
  const restoreFocus = () => {
    if (!pressed || Date.now() - pressed.at > 30000) { pressed = null; return; }
    const active = doc.activeElement;
    if (active && active !== doc.body && active !== doc.documentElement) {
      if (keyOf(active) !== pressed.key) pressed = null;  // the visitor moved on: leave the focus alone
      return;
    }
    if (doc.querySelector('[data-testid="stStatusWidget"]')) return;  // still running: wait for the next change
    const find = (key) => key && doc.querySelector(`.st-key-${CSS.escape(key)} button:not([disabled])`);
    let target = find(pressed.key);
    if (!target && pressed.key && pressed.key.includes("_")) {  // its successor: same key up to the last "_"
      const stem = pressed.key.slice(0, pressed.key.lastIndexOf("_") + 1);
      target = [...doc.querySelectorAll(`[class*="st-key-${CSS.escape(stem)}"] button:not([disabled])`)][0];
    }
    if (target) { target.focus({preventScroll: true}); pressed = null; }
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
    restoreFocus();
  };
  let queued = false;
  const schedule = () => { if (!queued) { queued = true; w.requestAnimationFrame(() => { queued = false; mend(); }); } };
  new w.MutationObserver(schedule).observe(doc.documentElement, {childList: true, subtree: true, attributes: true,
                                                                  attributeFilter: ["lang"]});
  w.__specvizA11y = mend;
  mend();
})();
</script>"""


def script(language: str) -> str:
    """The script for a page in `language` (an app language code: "en" or "pt")."""
    return SCRIPT % {"lang": LANG_TAGS[language], "name_class": CHART_NAME_CLASS}


def install() -> None:
    """Draw the style and the script for this run's language (call once per run, from the shared frame)."""
    st.html(CSS)  # style only: Streamlit puts it in the event container, where it takes no space
    st.html(f'<span class="sv-sr-only"></span>{script(get_language())}', unsafe_allow_javascript=True)
