"""Live parts of a page never show an exception box (issue 28, High 2, for every live fragment): each one is made by
`specviz.ui.common.frame.live_fragment`, whose guard turns any error into one translated sentence in its place and keeps
the rest of the page; Streamlit's rerun and stop signals pass through it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from serving_fake import FakeServer, recorded
from streamlit.runtime.scriptrunner_utils.exceptions import StopException
from streamlit.testing.v1 import AppTest

from specviz.core.i18n import _, using
from specviz.ui.common import frame
from specviz.ui.playground import player as playground_player
from specviz.ui.serving import charts as serving_charts

ROOT = Path(__file__).resolve().parents[2]
SCANNED = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "specviz" / "ui").rglob("*.py"))]
FRAME = ROOT / "specviz" / "ui" / "common" / "frame.py"


def bare_fragments(source: str) -> list[int]:
    """The lines of `source` that make an `st.fragment` directly (any alias of streamlit, or `from streamlit import
    fragment`), where a live fragment has no guard."""
    tree = ast.parse(source)
    aliases = {"streamlit"}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases |= {a.asname or a.name for a in node.names if a.name == "streamlit"}
        elif isinstance(node, ast.ImportFrom) and node.module == "streamlit":
            found += [node.lineno for a in node.names if a.name == "fragment"]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "fragment" and isinstance(node.value, ast.Name) \
                and node.value.id in aliases:
            found.append(node.lineno)
    return sorted(found)


def test_the_scan_finds_a_bare_fragment_in_every_spelling():
    assert bare_fragments("import streamlit as st\n@st.fragment(run_every=2)\ndef f(): pass\n") == [2]
    assert bare_fragments("import streamlit as st\nst.fragment(f, run_every=2)(x)\n") == [2]
    assert bare_fragments("import streamlit\nstreamlit.fragment(f)()\n") == [2]
    assert bare_fragments("from streamlit import fragment\n") == [1]
    assert bare_fragments('"""Runs in an `st.fragment`."""\nfrom specviz.ui.common.frame import live_fragment\n') == []


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_no_page_makes_a_fragment_without_the_guard():
    bare = {str(path.relative_to(ROOT)): lines for path in SCANNED if path != FRAME
            if (lines := bare_fragments(path.read_text(encoding="utf-8")))}
    assert bare == {}, "make live parts with specviz.ui.common.frame.live_fragment, not st.fragment"
    users = [path.relative_to(ROOT).as_posix() for path in SCANNED if "live_fragment(" in path.read_text(encoding="utf-8")]
    assert {"pages/classroom.py", "specviz/ui/playground/player.py", "specviz/ui/serving/view.py",
            "specviz/ui/classroom/paced_student.py"} <= set(users)


def test_the_guard_lets_streamlits_signals_through_and_says_one_sentence_for_the_rest():
    def stops():
        raise StopException()

    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(StopException):
        frame.guarded(stops)()
    with pytest.raises(KeyboardInterrupt):
        frame.guarded(interrupted)()
    assert frame.guarded(lambda: 1 / 0)() is None  # an ordinary error ends in the sentence, not in the caller
    once = frame.guarded(lambda: None)
    assert frame.guarded(once) is once and once.__name__ == "<lambda>"


@pytest.fixture(params=["en", "pt"])
def code(request):
    """The page's language; the test speaks it too (AppTest calls a widget's format_func in the test's thread)."""
    with using(request.param):
        yield request.param


def _broken(*args, **kwargs):
    raise ValueError("cannot convert float NaN to integer")


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_player_that_fails_is_one_sentence_and_the_page_stays(monkeypatch, code):
    at = AppTest.from_file(str(ROOT / "pages" / "playground.py"), default_timeout=60)
    at.query_params["lang"] = code
    at.run()
    assert not at.exception and not at.error
    monkeypatch.setattr(playground_player, "_coming_up", _broken)  # drawn after the controls
    at.button(key="playground_next").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.error] == [_(frame.PANEL_FAILED)]
    assert (code == "en") == at.error[0].value.startswith("This part of the page")
    assert "NaN" not in " ".join(e.value for e in at.error)
    assert at.button(key="playground_next")  # the controls drawn before the failure stay
    assert [d.proto.id for d in at.get("download_button")]  # and the page below the player is drawn


@pytest.fixture
def fake():
    server = FakeServer(recorded("ngram-after-copy.prom"))
    yield server
    server.close()


def test_a_serving_live_panel_that_fails_is_one_sentence_and_the_page_stays(monkeypatch, fake, code):
    monkeypatch.setattr(serving_charts, "per_position_figure", _broken)
    at = AppTest.from_file(str(ROOT / "pages" / "serving.py"), default_timeout=60)
    at.query_params["lang"] = code
    at.run()
    at.text_input(key="serving_url").set_value(fake.url).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.error] == [_(frame.PANEL_FAILED)]
    assert len(at.metric) == 4  # the counters, drawn before the chart that failed, stay
    assert at.text_input(key="serving_url").value == fake.url and at.title  # and so does the page around the panel
