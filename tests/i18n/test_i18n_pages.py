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

    at = AppTest.from_function(page).run()
    assert unformatted_numbers(at) == ["table column 'α'", "chart with separators None"]
