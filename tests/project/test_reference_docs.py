"""The reference docs (cli, library, models, serving, drafts, gpu, classroom, app, accessibility) say what the code
they describe does (issue 43, fortieth read): each test pins one statement a read found wrong, against the code."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def flat(name: str) -> str:
    return " ".join((DOCS / name).read_text(encoding="utf-8").split())


def test_the_serving_lab_docs_name_the_third_counter_as_the_page_does():
    """app.md and serving.md listed the Serving lab's live figures as "... drafts and tokens per second"; the page's
    counter is "Steps with drafts" (vLLM's num_drafts: one request's verify step that carried drafts, "not a drafted
    token", as its help says), so "drafts per second" read as drafted tokens per second, a quantity the page does not
    show. The Portuguese tour already said "passos com rascunhos"."""
    view = (ROOT / "specviz" / "ui" / "serving" / "view.py").read_text(encoding="utf-8")
    assert '_("Steps with drafts")' in view and "not a drafted token" in view
    for page in ("app.md", "serving.md"):
        text = flat(page)
        assert re.search(r"\), drafts and tokens per second", text) is None, page
        assert "steps with drafts and tokens per second" in text, page
    assert "passos com rascunhos e tokens por segundo" in flat("app.pt-BR.md")
