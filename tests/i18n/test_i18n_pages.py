"""Every page of the app, as a Portuguese visitor first opens it, has no English sentence (issue 15). The page list
comes from the page map, so a page added later is checked without anyone remembering to. Each part's own file
(tests/i18n/test_i18n_*.py) goes through its page's other states."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz.core.i18n import using
from specviz.teach.pagemap import PAGE_FILES
from tests.i18n_check import english_sentences, unformatted_numbers

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("page", PAGE_FILES)
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_every_page_opens_in_portuguese_without_an_english_sentence(page, monkeypatch):
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / page), default_timeout=90)
    at.query_params["lang"] = "pt"
    with using("pt"):
        at.run()
    assert not at.exception, at.exception
    typed = {str(box.value)[:120] for box in at.text_area}  # a prompt box holds the user's text, never translated
    assert [text for text in english_sentences(at) if text not in typed] == []
    # numbers too: a float column is drawn by st.dataframe with a decimal point (0.72 beside the page's 0,72)
    assert unformatted_numbers(at) == [], f"numbers drawn with a decimal point in Portuguese on {page}"


def test_the_number_check_sees_a_float_column_and_a_chart_without_portuguese_separators():
    def page():
        import pandas as pd
        import plotly.graph_objects as go
        import streamlit as st

        st.dataframe(pd.DataFrame({"α": [0.72]}))
        st.table(pd.DataFrame({"K": [4], "tokens": ["2,5"]}))  # an int and a written number: both fine
        st.plotly_chart(go.Figure(go.Bar(y=[0.5])))
        st.slider("T", 0.0, 2.0, 0.7, 0.05, key="decimals")  # Streamlit prints 0.70
        st.slider("N", 100, 5000, 2000, 100, key="thousands")  # and 2000
        st.slider("K", 1, 16, 4, key="small")  # whole numbers under 1,000 read the same in both languages
        st.select_slider("B", [1, 1024], key="batch")  # Streamlit writes an option as str() does: 1024
        st.select_slider("T", [0.5, 1.0], key="written", format_func=lambda v: f"{v:.2f}".replace(".", ","))

    at = AppTest.from_function(page).run()
    assert unformatted_numbers(at) == ["table column 'α'", "slider 'decimals': 0.7", "slider 'thousands': 2000",
                                       "select slider 'batch': '1024'", "chart with separators None"]


def test_a_number_slider_writes_its_values_for_the_readers_locale():
    """specviz.ui.common.sliders.number_slider: the values a slider shows (Streamlit's st.slider printed 0.70 and
    2000 on a Portuguese page) go through the one formatter; the value it returns is the number."""
    def page():
        import streamlit as st

        from specviz.core.i18n import set_language
        from specviz.ui.common.sliders import number_slider

        set_language(st.query_params.get("lang", "en"))
        st.session_state["t"] = number_slider(st, "T", 0.0, 2.0, 0.7, 0.05, key="temperature")
        st.session_state["n"] = number_slider(st, "N", 100, 5000, 2000, 100, key="samples")

    for lang, (seven, thousands) in {"en": ("0.70", "2,000"), "pt": ("0,70", "2.000")}.items():
        at = AppTest.from_function(page)
        at.query_params["lang"] = lang
        with using(lang):
            at.run()
            shown = {s.key: s.options for s in at.select_slider}
            assert seven in shown["temperature"] and thousands in shown["samples"], shown
            assert (at.session_state["t"], at.session_state["n"]) == (0.7, 2000)
            assert lang == "en" or unformatted_numbers(at) == []  # the check reads a Portuguese page
            at.select_slider(key="temperature").set_value(1.35).run()
            assert at.session_state["t"] == 1.35 and not at.exception


def test_the_english_check_reads_every_chart_and_flags_its_english():
    """Streamlit 1.67's AppTest returns a chart as an UnknownElement, which the check once skipped: every chart text
    below is English and must be flagged, while Portuguese, a token string (a trace's `text`), a hidden helper
    trace's name and a label that reads the same in both languages ("K") must not be."""
    def page():
        import plotly.graph_objects as go
        import streamlit as st
        from plotly.subplots import make_subplots

        fig = make_subplots(rows=1, cols=2, subplot_titles=("The draft is checked by the target", "acceptance rate"))
        fig.add_bar(x=[1], y=[2], name="the tokens that were kept", row=1, col=1, text=["the of and is to"],
                    hovertemplate="This is the share of drafts that the target kept<extra></extra>")
        fig.add_bar(x=[1], y=[1], name="track", showlegend=False, hoverinfo="skip", row=1, col=2)
        fig.update_layout(title="How the speedup grows with K", xaxis_title="K",
                          yaxis=dict(title="taxa de aceitação", tickvals=[0, 1],
                                     ticktext=["none of the drafts", "all of the drafts are kept"]))
        st.plotly_chart(fig)

    at = AppTest.from_function(page).run()
    assert not at.exception, at.exception
    assert sorted(english_sentences(at)) == sorted([
        "How the speedup grows with K", "The draft is checked by the target", "acceptance rate",
        "the tokens that were kept", "This is the share of drafts that the target kept",
        "all of the drafts are kept"])


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_no_page_draws_a_decimal_or_four_digit_slider_with_st_slider():
    """The pages' AppTest checks see the sliders a page draws at its first state only; this one reads every
    `.slider(...)` call in the app's code: none gets a float or a bound of 1,000 or more (number_slider's job)."""
    import ast

    calls = []
    for path in [*(ROOT / "specviz" / "ui").rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "slider":
                values = [a.value for a in [*node.args, *(k.value for k in node.keywords)] if isinstance(a, ast.Constant)]
                calls.append((f"{path.name}:{node.lineno}", values))
    assert len(calls) >= 8  # K, tokens, counts, widths, the Playground's steps ...
    assert [where for where, values in calls if any(isinstance(v, float) or (isinstance(v, int) and v >= 1000)
                                                   for v in values)] == []
