"""Dates, times and commits the docs and comments state, checked against git and the committed files (issue 43's
28th read, the dates theme): each test pins one statement that read found wrong or misleading."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREE_RESULTS = "assets/benchmarks/default-cpu-bf16-tree/results.json"


def _committed_run(commit: str) -> tuple[str, str]:
    """(start, end) as HH:MM of the default-cpu-bf16-tree run a commit holds: `machine.date` and `created`."""
    shown = subprocess.run(["git", "show", f"{commit}:{TREE_RESULTS}"], cwd=ROOT, capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    run = json.loads(shown.stdout)
    return run["machine"]["date"][11:16], run["created"][11:16]


def test_benchmarks_readme_times_each_committed_run_from_start_to_end():
    """Read 28: assets/benchmarks/README.md dated the committed targets runs by their end (06:46, 04:35, 01:22) in
    some places and by their start (05:06, 11:56, 09:37) in others, so a reader checking `machine.date` found
    06:38 where the text said 06:46. Each is now the interval `machine.date` to `created` of the file the commit
    holds."""
    text = " ".join((ROOT / "assets" / "benchmarks" / "README.md").read_text(encoding="utf-8").split())
    for commit, said in (("f75c49d", "the run of 2026-12-03 {}–{} UTC"), ("3e40c3f", "the run of 2026-12-03 {}–{} UTC"),
                         ("19bd4ae", "2026-12-02 {}–{} UTC (commit 19bd4ae"),
                         ("0c3b164", "the committed one {}–{} UTC"), ("86a0e25", "2026-12-01 {}–{} UTC)"),
                         ("d5b353b", "the first drafter's run ({}–{} UTC, committed in d5b353b)")):
        assert said.format(*_committed_run(commit)) in text, commit
    assert "(the same folder until 2026-12-03 06:46)" not in text
