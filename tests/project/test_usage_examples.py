"""The usage lines of module docstrings that are no doctests (they need a loaded pair) still call each function
with arguments its signature takes (issue 43, thirteenth read: three named arguments the functions do not have)."""

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# module -> the functions whose usage lines its docstring shows
EXAMPLES = {
    "specviz.engine.numerics": ["greedy_split"],
    "specviz.labs.exactness.lab": ["step_distributions", "one_step_lab", "engine_lab"],
    "specviz.runs.presets": ["preset_spec", "preset_measurement"],
    "specviz.scripts.checks": ["incremental_vs_full", "compare_outputs", "exactness_check"],
}


def usage_calls(module: str, name: str) -> list[ast.Call]:
    doc = ast.get_docstring(ast.parse((ROOT / (module.replace(".", "/") + ".py")).read_text())) or ""
    calls = []
    for line in doc.splitlines():
        found = re.search(rf"\b{name}\(.*\)", line.split("#")[0])
        if found:
            call = ast.parse(found.group(0).replace("...", "None")).body[0].value
            calls.append(call)
    return calls


@pytest.mark.parametrize("module, name", [(m, n) for m, names in EXAMPLES.items() for n in names])
def test_a_docstring_usage_line_fits_the_signature(module, name):
    calls = usage_calls(module, name)
    assert calls, f"{module}'s docstring no longer shows {name}"
    signature = inspect.signature(getattr(importlib.import_module(module), name))
    for call in calls:
        signature.bind(*[None] * len(call.args), **{k.arg: None for k in call.keywords})
