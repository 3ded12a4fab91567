"""Find English sentences on a page rendered in Portuguese (a word-list heuristic, for AppTest).

    at = AppTest.from_file(...); at.query_params["lang"] = "pt"; at.run()
    assert english_sentences(at) == []

It reads what a visitor reads: titles, headers, Markdown, captions, alerts, metric labels, widget labels, help texts
and options, expander and tab labels, and a Plotly chart's titles, axis titles and ticks, legend and trace names,
hover templates and annotations (Streamlit 1.67's AppTest returns a chart as an `UnknownElement` of type
"plotly_chart"). Raw HTML counts only through its `title` and `aria-label` attributes: its text is token text or a
user's prompt, which is never translated. A text counts as English when it has at least three English function words
and more of them than Portuguese ones; a chart's short label counts when it is one of the catalog's English messages
with a different Portuguese translation.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache

from babel.messages.mofile import read_mo

from specviz.core.paths import LOCALE_DIR

ENGLISH = frozenset("the and is are of to with this that which for you your each when what how it its on in by from "
                    "be not more than one was were has have will can does do there their these those".split())
PORTUGUESE = frozenset("o os as de do da dos das que e é em um uma para com não por se no na nos nas mais você cada "
                       "ao à pelo pela são está como seu sua".split())
_WORD = re.compile(r"[a-zà-ÿ]+")
_ATTRIBUTE = re.compile(r'(?:title|aria-label)="([^"]*)"')
_TEXT_FIELDS = ("value", "body", "label", "help", "placeholder", "caption")


def is_english(text: str) -> bool:
    """True for a sentence in English, False for Portuguese, symbols, numbers or a short label either way.

    >>> is_english("The target checks all of the drafts in one pass.")
    True
    >>> is_english("O alvo verifica todos os palpites em uma passagem.")
    False
    >>> is_english("p/q = 0.42 · K = 4")
    False
    """
    words = _WORD.findall(text.lower())
    english = sum(w in ENGLISH for w in words)
    return english >= 3 and english > sum(w in PORTUGUESE for w in words)


def visible_texts(at) -> list[str]:
    """Every text a visitor reads on the rendered page."""
    texts: list[str] = []
    _collect(at._tree, texts)
    return [t for t in texts if t and t.strip()]


def english_sentences(at) -> list[str]:
    """The page's English sentences, and a chart's English labels: a chart speaks in short labels ("acceptance
    rate", "tokens per second") with too few function words for `is_english`, so a chart text also counts when it is
    exactly one of the catalog's English messages whose Portuguese differs (a label drawn without `_()`)."""
    sentences = [t for t in visible_texts(at) if is_english(_markdown_to_text(t))]
    labels = [t for t in chart_texts(at) if t in _translated_english() and t not in sentences]
    return [t[:120] for t in sentences + labels]


def chart_texts(at) -> list[str]:
    """The words on every Plotly chart of the page (see `_plotly_texts`)."""
    return [t for chart in at.get("plotly_chart") for t in _plotly_texts(json.loads(chart.proto.spec))]


@cache
def _translated_english() -> frozenset[str]:
    """Every English message of the Portuguese catalog, as a chart shows it (tags and placeholders dropped), whose
    Portuguese is not the same text: "K", "token" or "tokens/s" read the same in both languages and are left out."""
    with open(LOCALE_DIR / "pt_BR" / "LC_MESSAGES" / "specviz.mo", "rb") as handle:
        catalog = read_mo(handle)
    return frozenset(_plain(m.id) for m in catalog if isinstance(m.id, str) and m.id
                     and isinstance(m.string, str) and _plain(m.string) != _plain(m.id))


def unformatted_numbers(at) -> list[str]:
    """What a Portuguese page draws with a decimal point because no one wrote it: a float column, index or cell in an
    st.dataframe or st.table (the grid draws 0.72 beside the page's 0,72; the cells go through `number`), and a
    Plotly chart without Portuguese separators (its ticks and hovers would read 0.72 too; `charts.show` sets them), and
    a slider over decimals or past 999 (Streamlit prints its value as 0.70 or 2000: `sliders.number_slider` writes it).
    Each as "where: what"; an empty list on a clean page."""
    found = [f"table column {column!r}" for frame in [*at.dataframe, *at.table] for column in frame.value.columns
             if frame.value[column].dtype.kind == "f"]
    found += [f"table index {frame.value.index.name!r}" for frame in [*at.dataframe, *at.table]
              if frame.value.index.dtype.kind == "f"]
    found += [f"table cell {column!r}: {value!r}" for frame in [*at.dataframe, *at.table]
              for column in frame.value.columns if frame.value[column].dtype == object
              for value in frame.value[column].tolist()[:1000] if isinstance(value, float)]
    found += [f"slider {slider.key!r}: {slider.value!r}" for slider in at.slider  # printed by JavaScript: 0.70, 2000
              if isinstance(slider.value, float) or max(abs(slider.min), abs(slider.max)) >= 1000]
    unwritten = re.compile(r"-?\d{4,}|-?\d+\.\d{1,2}|-?0\.\d+")  # 2048, 0.70, 0.125: a Portuguese page writes 2.048, 0,70
    found += [f"select slider {slider.key!r}: {option!r}" for slider in at.select_slider for option in slider.options
              if unwritten.fullmatch(option)]
    layouts = [json.loads(chart.proto.spec).get("layout", {}) for chart in at.get("plotly_chart")]
    return found + [f"chart with separators {layout.get('separators')!r}" for layout in layouts
                    if layout.get("separators") != ",."]


def _collect(node, texts: list[str]) -> None:
    kind = type(node).__name__
    proto = getattr(node, "proto", None)
    if kind == "Html" and proto is not None:
        texts.extend(html.unescape(a) for a in _ATTRIBUTE.findall(proto.body))
    elif _is_chart(node) and proto is not None:
        texts.extend(_plotly_texts(json.loads(proto.spec)))
    elif proto is not None and kind not in ("Code", "Json", "Dataframe", "Table"):
        for field in _TEXT_FIELDS:
            value = getattr(proto, field, None)
            if isinstance(value, str):
                texts.append(value)
        options = getattr(proto, "options", None)
        if options is not None and not isinstance(options, str):
            texts.extend(str(o) for o in options if isinstance(o, str))
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            _collect(child, texts)


def _is_chart(node) -> bool:
    """A Plotly chart: Streamlit 1.67's AppTest has no class for one and hands it back as an `UnknownElement` of type
    "plotly_chart" (the figure's JSON in `proto.spec`); a later Streamlit may name it `PlotlyChart`."""
    return type(node).__name__ == "PlotlyChart" or getattr(node, "type", None) == "plotly_chart"


def _plotly_texts(spec: dict) -> list[str]:
    """The words a reader sees on a Plotly figure: its title, every axis' title and tick labels, the legend's title,
    every trace's name a reader can see (`_name_shown`), hover template, text template and hover text, colour bar
    titles and ticks, and every annotation (make_subplots' panel titles are annotations) with its hover text.
    Plotly's own template (`layout.template`) is left out, and so is a trace's `text`: it holds the plotted data
    (counts, token strings from the model's output).
    Each is `_plain` (tags and %{...} placeholders dropped); a string with no letter (a number, a tick) is dropped.

    >>> _plotly_texts({"layout": {"title": {"text": "Speed<br>up"}, "xaxis2": {"title": "K", "ticktext": ["a", "1"]}},
    ...                "data": [{"name": "p", "hovertemplate": "%{x} ms<extra></extra>", "text": ["the"]}]})
    ['Speed up', 'K', 'a', 'p', 'ms']
    """
    found: list[str] = []
    layout = spec.get("layout", {})

    def add(value) -> None:
        if isinstance(value, dict):
            value = value.get("text")
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, list):
            found.extend(v for v in value if isinstance(v, str))

    def axis(value) -> None:
        if isinstance(value, dict):
            add(value.get("title"))
            add(value.get("ticktext"))

    add(layout.get("title"))
    for key, value in layout.items():
        if key.startswith(("xaxis", "yaxis", "coloraxis")):
            axis(value.get("colorbar") if key.startswith("coloraxis") and isinstance(value, dict) else value)
        elif key.startswith(("scene", "polar", "ternary")) and isinstance(value, dict):
            for inner in value.values():
                axis(inner)
    add((layout.get("legend") or {}).get("title"))
    for note in layout.get("annotations", []):
        if isinstance(note, dict):
            add(note.get("text"))
            add(note.get("hovertext"))
    for trace in spec.get("data", []):
        if _name_shown(trace):
            add(trace.get("name"))
        for key in ("hovertemplate", "texttemplate", "hovertext"):
            add(trace.get(key))
        axis(trace.get("colorbar"))
        add((trace.get("legendgrouptitle") or {}).get("text"))
    texts = [_plain(t) for t in found]
    return [t for t in texts if re.search(r"[^\W\d_]", t)]


def _plain(text: str) -> str:
    """A chart text as a reader sees it: tags (<br>, <b>) and %{...} placeholders as spaces, spaces collapsed."""
    return " ".join(re.sub(r"<[^>]+>|%\{[^}]*\}", " ", text).split())


def _name_shown(trace: dict) -> bool:
    """Whether a reader can see a trace's name: in the legend, or in the side box of its hover. A helper trace kept
    out of both (a grey track behind bars, the top edge of a shaded band) may carry any name.

    >>> _name_shown({"name": "track", "showlegend": False, "hoverinfo": "skip"})
    False
    >>> _name_shown({"name": "right", "showlegend": False, "hovertemplate": "%{x}<extra></extra>"})
    False
    >>> _name_shown({"name": "draft", "showlegend": False})
    True
    """
    if trace.get("showlegend") is not False:
        return True
    template = trace.get("hovertemplate")
    if isinstance(template, str):
        return "<extra>" not in template
    info = str(trace.get("hoverinfo", "all"))
    return info == "all" or "name" in info.split("+")


def _markdown_to_text(text: str) -> str:
    text = re.sub(r"`[^`]*`", " ", text)  # inline code: identifiers, commands
    text = re.sub(r"\$[^$]*\$", " ", text)  # LaTeX
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
    return re.sub(r"<[^>]+>", " ", text)


@cache
def catalog_texts() -> tuple[str, ...]:
    """Every English message in the sources and every Portuguese translation in the catalog, read once per test
    process: extracting the messages from the sources takes about 0.7 s, and seven tests read them."""
    from specviz.scripts.i18n import extract, read_catalog

    return tuple([str(m.id) for m in extract() if m.id] + [str(m.string) for m in read_catalog() if m.id])


@cache
def extracted_messages() -> tuple:
    """The sources' messages as `specviz.scripts.i18n.extract` finds them (with their locations), once per process."""
    from specviz.scripts.i18n import extract

    return tuple(extract())
