"""The Theory explorer's draft-cost metrics in Portuguese, as read 47 found them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "theory.py")


@pytest.mark.slow  # the whole Theory explorer under AppTest
def test_the_drafts_extra_memory_says_whose_memory_the_share_is_of():
    """Read 47: the metric's delta read "10% da do alvo", an article with no noun after it (the English is "10% of
    the target's", its memory); it says "da memória do alvo"."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["lang"] = "pt"
    at.run()
    assert not at.exception
    shown = {m.label: m for m in at.metric}
    delta = shown["Memória extra do rascunho"].delta
    assert re.fullmatch(r"\d+(?:,\d+)?\s?% da memória do alvo", delta), delta
    assert "da do" not in delta
