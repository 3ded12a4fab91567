"""specviz.scripts.targets_bench: the command its docstring quotes for a committed run."""

from __future__ import annotations

import json

import specviz.scripts.targets_bench as script
from specviz.core.paths import BENCHMARKS_DIR


def test_the_docstrings_example_names_the_committed_runs_dtype():
    """The committed default-cpu-f32-packed run was float32 on a CPU with bf16 instructions, where the script's
    default dtype is bfloat16: the quoted command must say --dtype, or it would remake another run."""
    result = json.loads((BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json").read_text())
    example = " ".join(script.__doc__.split("\n\n")[1].split())
    assert result["machine"]["cpu_bf16"] and result["machine"]["dtype"] == "float32"
    assert f"--dtype {result['machine']['dtype']}" in example
    assert "--out assets/benchmarks/default-cpu-f32-packed" in example
    assert f"--dtype {result['machine']['dtype']}" in result["command"]
