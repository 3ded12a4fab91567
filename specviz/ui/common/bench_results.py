"""A committed benchmark result as the pages read it: loaded once per file version, and what its command, typed
today, would run differently. The Speedup lab and the Theory explorer both show committed runs' commands."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from specviz.core.i18n import _
from specviz.labs.bench import BenchResult
from specviz.labs.bench.config import load_suites
from specviz.labs.bench.report import ran_stock_kernels, replaced_eagle_drafter


@st.cache_data(show_spinner=False, max_entries=16)
def _load(path: str, mtime: float) -> BenchResult:
    return BenchResult.load(path)


def load_result(path: Path) -> BenchResult:
    """A result file, cached until the file changes; a bad file is a ValueError with one sentence."""
    return _load(str(path), path.stat().st_mtime)


def command_notes(result: BenchResult) -> list[str]:
    """What the run's command, typed today, would do differently from the run: a dtype default that is the machine's
    (the first runs name none, and ran float32, then the only dtype), the kernels (a CPU run whose machine names none
    ran PyTorch's stock ones, as `specviz.distill.cards.bench_command` says too), the prompt suites (a run that named
    none ran every suite there was then) and an EAGLE drafter replaced since."""
    notes = []
    if "--dtype" not in result.command.split():
        notes.append(_("This command names no --dtype: run today it takes the machine's default (bfloat16 on a CPU "
                       "with bf16 instructions), so add `--dtype {dtype}` to measure in {dtype}, as this run did.",
                       dtype=result.dtype or "float32"))
    if ran_stock_kernels(result.machine):  # a CPU run from before the packed kernels (ce0deb7)
        notes.append(_("This run's linear layers ran PyTorch's stock kernels, as CPU runs did until 2026-12-03 "
                       "(ce0deb7); run today on a CPU they are packed for oneDNN wherever it can pack them, so put "
                       "`SPECVIZ_KERNELS=stock` before the command to time the kernels this run timed."))
    ran = list(result.suite_titles())
    today = [suite.name for suite in load_suites()]
    if not result.config.get("suites") and ran and sorted(ran) != sorted(today):
        notes.append(_("This command names no --suites: run today it takes every suite in assets/prompts ({today}), "
                       "not the {count} this run had, so add `--suites {ran}`.", today=", ".join(today),
                       count=len(ran), ran=" ".join(ran)))
    if replaced_eagle_drafter(result) is not None:
        notes.append(_("Its eagle rows drafted with the EAGLE-1 drafter then in assets/models/smollm2-eagle; the "
                       "EAGLE-3 drafter replaced it on 2026-12-02, and the command drafts with that one today."))
    return notes
