"""A committed benchmark result as the pages read it: loaded once per file version, and what its command, typed
today, would run differently. The Speedup lab and the Theory explorer both show committed runs' commands."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from specviz.core.i18n import _, localized, ngettext
from specviz.labs.bench import BenchResult
from specviz.labs.bench.report import (GPU_CHECK_FOLDER, DtypeDefault, GpuCheckRun, IsaLimits, ReplacedDrafter,
                                       StockKernels, SuitesDefault, rerun_differences)


@st.cache_data(show_spinner=False, max_entries=16)
def _load(path: str, mtime: float) -> BenchResult:
    return BenchResult.load(path)


def load_result(path: Path) -> BenchResult:
    """A result file, cached until the file changes; a bad file is a ValueError with one sentence."""
    return _load(str(path), path.stat().st_mtime)


def command_notes(result: BenchResult) -> list[str]:
    """What the run's command, typed today, would do differently from the run (`report.rerun_differences`, which
    results.md's lines and the model cards' commands read too), in the reader's language: a dtype default that is the
    machine's (the first runs name none, and ran float32, then the only dtype), the kernels (a CPU run from before
    the packed ones ran PyTorch's stock ones), the prompt suites (a run that named none ran every suite there was
    then), an EAGLE drafter replaced since, the instruction-set caps a run set in its environment
    (`machine.isa_limits`, which the recorded command does not show), and a command the GPU check wrote (with
    `GPU_CHECK_FOLDER` in its --out: never typed, its timing rounds and time budget the command line cannot set)."""
    notes = []
    for difference in rerun_differences(result):
        match difference:
            case DtypeDefault(dtype=dtype):
                notes.append(_("This command names no --dtype: run today it takes the machine's default (bfloat16 on "
                               "a CPU with bf16 instructions), so add `--dtype {dtype}` to measure in {dtype}, as "
                               "this run did.", dtype=dtype))
            case StockKernels():
                notes.append(_("This run's linear layers ran PyTorch's stock kernels, as CPU runs did until "
                               "2026-12-03 (ce0deb7); run today on a CPU they are packed for oneDNN wherever it can "
                               "pack them, so put `SPECVIZ_KERNELS=stock` before the command to time the kernels this "
                               "run timed."))
            case SuitesDefault(ran=ran, today=today):
                # a run of one suite: Portuguese "não a 1 que esta execução teve", not "não os 1" (read 44)
                notes.append(ngettext("This command names no --suites: run today it takes every suite in "
                                      "assets/prompts ({today}), not only the one this run had, so add `--suites "
                                      "{ran}`.",
                                      "This command names no --suites: run today it takes every suite in "
                                      "assets/prompts ({today}), not the {n} this run had, so add `--suites {ran}`.",
                                      len(ran), today=", ".join(today), ran=" ".join(ran)))
            case ReplacedDrafter():
                notes.append(_("Its eagle rows drafted with the EAGLE-1 drafter then in assets/models/smollm2-eagle; "
                               "the EAGLE-3 drafter replaced it on 2026-12-02, and the command drafts with that one "
                               "today."))
            case IsaLimits():  # set in the environment, so the recorded command does not show them
                notes.append(_("This run capped its kernels' instruction sets with `{limits}` in its environment (its "
                               "file's machine.isa_limits), which the command does not show: put them before the "
                               "command to run it as it ran; without them the kernels use whatever the CPU offers.",
                               limits=difference.env))
            case GpuCheckRun(repeats=repeats, default=default):
                notes.append(_("This run was made by the GPU check (`python -m specviz.scripts.gpu_check`, "
                               "docs/gpu.md), not by this command: `{folder}` stands for the folder its results were "
                               "copied to, and the check timed c and the verify cost over {repeats} rounds, where the "
                               "command takes {default}, under its own time budget (a run it stopped early says so in "
                               "its notes).", folder=GPU_CHECK_FOLDER, repeats=repeats, default=default))
    return notes


def temperature_text(t: float) -> str:
    """A run's temperature as written: 0, 0.7 (0,7 in Portuguese). The Speedup lab and the Theory explorer both name
    runs by it (read 52: "T = 0.0" on one beside "T = 0" on the other)."""
    return localized(f"{t:g}")
