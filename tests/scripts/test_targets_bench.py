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


def test_a_calibrations_machine_line_counts_one_thread_in_the_singular():
    """targets.txt's first line quotes the calibration's machine ("AMD EPYC, 2 threads, avx ..."), which said
    "1 threads" for a one-thread calibration."""
    from dataclasses import replace

    from specviz.labs.calibration import Calibration

    fields = {name: None for name in Calibration.__dataclass_fields__}
    cal = Calibration(**{**fields, "cpu": "AMD EPYC", "threads": 1, "cpu_flags": ["avx2"]})
    assert cal.machine == "AMD EPYC, 1 thread, avx2"
    assert replace(cal, threads=2).machine == "AMD EPYC, 2 threads, avx2"
