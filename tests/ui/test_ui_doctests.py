"""The docstring examples in specviz/ui run too (issue 29, item 6). pytest's --doctest-modules leaves specviz/ui out
(pyproject.toml: its modules need Streamlit's caches, which AppTest sets up); here each module's examples run under
doctest, outside any page."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UI_MODULES = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts) for p in (ROOT / "specviz" / "ui").rglob("*.py")
                    if p.name != "__init__.py")
WITH_EXAMPLES = [m for m in UI_MODULES if ">>>" in (ROOT / Path(*m.split("."))).with_suffix(".py").read_text()]


def test_the_ui_has_docstring_examples_to_run():
    assert len(UI_MODULES) > 50 and len(WITH_EXAMPLES) >= 10


@pytest.mark.parametrize("module", WITH_EXAMPLES)
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_the_docstring_examples_hold(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0, f"{result.failed} of {result.attempted} examples failed"



def _module(name: str):
    """The module `name`, or None when there is none."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def test_every_module_path_the_ui_names_exists():
    """The 22nd read: docstrings named `specviz.runs.runspec.PAIRS` (the cache is `specviz.runs.running.PAIRS`) and
    modules by their names before eee3b3e moved them into folders (`race_settings`, `classroom_view.session_key`,
    `playground_live`...). Every dotted specviz path in specviz/ui resolves, and none of the old names is left."""
    text = "\n".join(path.read_text(encoding="utf-8") for path in sorted((ROOT / "specviz" / "ui").rglob("*.py")))
    refs = sorted(set(re.findall(r"specviz(?:\.[A-Za-z_]\w*)+", text)) - {"specviz.json"})  # json: a card's file
    assert len(refs) > 100
    unresolved = []
    for ref in refs:
        parts = ref.split(".")
        depth = next((i for i in range(len(parts), 0, -1) if _module(".".join(parts[:i])) is not None), 0)
        obj = _module(".".join(parts[:depth])) if depth else None
        for name in parts[depth:]:
            obj = getattr(obj, name, None)
        if obj is None:
            unresolved.append(ref)
    assert not unresolved, unresolved
    old = re.findall(r"`(?:race|playground|classroom|classroom_paced)_(?:settings|inputs|figures|outputs|live|view|"
                     r"teacher)[`.]", text)
    assert not old, old
