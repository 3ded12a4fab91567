"""The docstring examples in specviz/ui run too (issue 29, item 6). pytest's --doctest-modules leaves specviz/ui out
(pyproject.toml: its modules need Streamlit's caches, which AppTest sets up); here each module's examples run under
doctest, outside any page."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UI_MODULES = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts) for p in (ROOT / "specviz" / "ui").rglob("*.py")
                    if p.name != "__init__.py")
WITH_EXAMPLES = [m for m in UI_MODULES if ">>>" in (ROOT / Path(*m.split("."))).with_suffix(".py").read_text()]


def test_the_ui_has_docstring_examples_to_run():
    assert len(UI_MODULES) > 50 and len(WITH_EXAMPLES) >= 10


@pytest.mark.parametrize("module", WITH_EXAMPLES)
def test_the_docstring_examples_hold(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
