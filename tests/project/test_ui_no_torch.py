"""Nothing in the app's own code imports torch (issue 29, item 5): the pages and specviz/ui ask the library for
numbers (counts, masks, simulations) and draw them. A type-only import under `if TYPE_CHECKING:` is allowed: it
never runs."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCANNED = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "specviz" / "ui").rglob("*.py"))]


def torch_imports(source: str) -> list[int]:
    """Lines that import torch when the module runs (not those inside an `if TYPE_CHECKING:` block).

    >>> torch_imports("import torch\\nfrom torch import nn\\nimport torchvision\\nimport os")
    [1, 2]
    >>> torch_imports("from typing import TYPE_CHECKING\\nif TYPE_CHECKING:\\n    import torch\\n")
    []
    """
    tree = ast.parse(source)
    hidden = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If) and ast.unparse(block.test).endswith(
        "TYPE_CHECKING") for stmt in block.body for n in ast.walk(stmt)}
    lines = []
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import) and any(a.name == "torch" or a.name.startswith("torch.") for a in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module and (node.module == "torch"
                                                                   or node.module.startswith("torch.")):
            lines.append(node.lineno)
    return sorted(lines)


def test_no_page_or_ui_module_imports_torch():
    assert len(SCANNED) > 60  # the app, 13 pages and the ui packages
    found = {str(p.relative_to(ROOT)): lines for p in SCANNED if (lines := torch_imports(p.read_text(encoding="utf-8")))}
    assert found == {}, "ask the library (specviz/engine, labs, models) for the numbers instead"


@pytest.mark.slow  # over 0.4 s on 2 cores (read 51's --durations): make check stays under a minute
def test_the_token_chips_and_the_overview_load_no_torch_at_run_time():
    """Read 51: the Playground answer's `shown_output` came from models.pairs, which imports torch and transformers,
    so the token chips (`ui.common.tokens`) and with them the Overview page loaded both (seconds on a laptop) though
    they only read a trace. The toy vocabulary lives in the torch-free models.toy_text."""
    import subprocess
    import sys

    code = ("import sys, specviz.ui.common.tokens, specviz.ui.overview.view; "
            "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
