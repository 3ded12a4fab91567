"""`make run` starts the default pair loading before Streamlit serves the first page (issue 27, item 2): the launcher
calls the preload, then hands the same process to Streamlit's own CLI with the Makefile's flags."""

from __future__ import annotations

import sys
from pathlib import Path

from specviz.ui.common import launch, runs

ROOT = Path(__file__).resolve().parents[2]


def test_the_launcher_preloads_then_runs_streamlit_with_the_flags(monkeypatch):
    calls = []
    monkeypatch.setattr(runs, "preload", lambda: calls.append("preload") or True)
    monkeypatch.setattr(sys, "argv", sys.argv[:])
    launch.main(["--server.port", "8601"], run_streamlit=lambda: calls.append(list(sys.argv)))
    assert calls == ["preload", ["streamlit", "run", str(ROOT / "app.py"), "--server.port", "8601"]]


def test_make_run_goes_through_the_launcher():
    recipe = (ROOT / "Makefile").read_text(encoding="utf-8").split("\nrun: setup\n", 1)[1].split("\n\n", 1)[0]
    assert "-m specviz.ui.common.launch --server.port $(PORT) --server.headless true" in recipe
    assert "streamlit run" not in recipe  # a bare `streamlit run` would load the model only at the first visit
