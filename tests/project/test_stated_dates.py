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
    for commit, said in (("f75c49d", "the run of 2026-12-03 {}–{} UTC"),
                         ("3e40c3f", "the run of 2026-12-03 {}–{} UTC"),
                         ("19bd4ae", "2026-12-02 {}–{} UTC (commit 19bd4ae"),
                         ("0c3b164", "the committed one {}–{} UTC"), ("86a0e25", "2026-12-01 {}–{} UTC)"),
                         ("d5b353b", "the first drafter's run ({}–{} UTC, committed in d5b353b)")):
        assert said.format(*_committed_run(commit)) in text, commit
    assert "(the same folder until 2026-12-03 06:46)" not in text


def test_the_replaced_eagle_drafter_is_named_by_the_runs_that_first_used_each_drafter(tmp_path: Path):
    """Read 28: report.py cut the EAGLE-1 versions at the commits' times (86a0e25 at 04:54, d63459e at 09:59) and said
    a run before them drafted with the older drafter; but 86a0e25's own run started at 04:23 with the retrained
    drafter, and 0c3b164's at 09:37 with EAGLE-3, so both files were named after a drafter they did not run."""
    from specviz.labs.bench.report import BenchResult, replaced_eagle_drafter

    def named(commit: str) -> str | None:
        shown = subprocess.run(["git", "show", f"{commit}:{TREE_RESULTS}"], cwd=ROOT, capture_output=True, text=True)
        path = tmp_path / f"{commit}.json"
        path.write_text(shown.stdout, encoding="utf-8")
        return replaced_eagle_drafter(BenchResult.load(path))

    assert named("d5b353b") == "the first EAGLE-1 drafter (commit 35ce4c2)"
    assert named("86a0e25") == "the retrained EAGLE-1 drafter (commit 86a0e25)"
    assert named("0c3b164") is None and named("3e40c3f") is None
    for folder in ("default-cpu-drafts", "default-cpu-bf16-trees"):
        result = BenchResult.load(ROOT / "assets" / "benchmarks" / folder / "results.json")
        assert replaced_eagle_drafter(result) == "the first EAGLE-1 drafter (commit 35ce4c2)", folder


def test_report_dates_the_old_bench_notes_by_the_commits_that_changed_them():
    """Read 28: report.py said "runs before 2026-12-05" wrote the busy-start note as "The machine was shared" and the
    end's load average as a list; the runner changed the list at 530837a (2026-12-05 09:31 UTC) and the wording at
    68b529c (20:59 UTC), so runs earlier that day wrote the old forms too."""
    source = (ROOT / "specviz" / "labs" / "bench" / "report.py").read_text(encoding="utf-8")
    assert "before 2026-12-05" not in source
    assert 'Runs before 68b529c (2026-12-05 20:59 UTC) wrote "The machine was shared' in source
    assert "runs before 530837a, 2026-12-05 09:31 UTC, wrote the end's three" in " ".join(source.split())
    for commit, old, when in (("68b529c", "-        notes.append(f\"The machine was shared", "2026-12-05 20:59"),
                              ("530837a", "{machine.get('load_average_end')}", "2026-12-05 09:31")):
        shown = subprocess.run(["git", "show", "--format=%ai", commit, "--", "specviz/labs/bench/runner.py"], cwd=ROOT,
                               capture_output=True, text=True).stdout
        assert shown.startswith(when) and old in shown, commit


def test_the_speedup_lab_dates_the_mat_tree_note_by_its_commit():
    """Read 28: a comment in ui/speedup/results.py said the committed results "before 2026-12-04" wrote the tree
    note with #MAT; default-cpu-f32-medusa ran on 2026-12-04 (03:51 UTC) and wrote it too: the runner changed it at
    7498909 (authored 2026-12-04 14:24 UTC), as report.py's OLD_TREE_NOTE comment says."""
    from specviz.labs.bench.report import OLD_TREE_NOTE

    source = (ROOT / "specviz" / "ui" / "speedup" / "results.py").read_text(encoding="utf-8")
    assert "(before 2026-12-04)" not in source and "runs before 7498909 (2026-12-04 14:24 UTC)" in source
    changed = subprocess.run(["git", "show", "-s", "--format=%aI", "7498909"], cwd=ROOT, capture_output=True,
                             text=True).stdout.strip()
    assert changed.startswith("2026-12-04T14:24")
    old = [run for run in (ROOT / "assets" / "benchmarks").rglob("results.json")
           if OLD_TREE_NOTE in json.loads(run.read_text(encoding="utf-8")).get("notes", [])]
    assert any(json.loads(run.read_text(encoding="utf-8"))["machine"]["date"].startswith("2026-12-04") for run in old)
    for run in old:
        assert json.loads(run.read_text(encoding="utf-8"))["machine"]["date"] < "2026-12-04T14:24", run


def test_classroom_md_dates_the_commits_behind_the_unquoted_load_runs():
    """Read 28: classroom.md called the load test's unquoted runs those "of 2026-12-02 (commits 2820310 and
    1429800)", but 1429800 is of 2026-12-04: it quotes 2820310's run of 2026-12-02 again."""
    text = " ".join((ROOT / "docs" / "classroom.md").read_text(encoding="utf-8").split())
    assert "of 2026-12-02 (commit 2820310's body; 1429800, of 2026-12-04, quotes one of them again)" in text
    for commit, day in (("2820310", "2026-12-02"), ("1429800", "2026-12-04")):
        shown = subprocess.run(["git", "show", "-s", "--format=%aI", commit], cwd=ROOT, capture_output=True, text=True)
        assert shown.stdout.startswith(day), commit


def test_the_issue_13_sections_put_the_chains_wall_time_lead_in_the_past():
    """Read 28: benchmarks.md and assets/benchmarks/README.md said of the 2026-12-01 runs (EAGLE-1 drafter) "Today the
    chain of 4 is the faster shape in wall time" and "today's runs"; in the committed runs of the same folder at HEAD
    (EAGLE-3 drafter, lookup branch) the tree is faster than the chain of 4 at T = 0 and 0.7."""
    readme = " ".join((ROOT / "assets" / "benchmarks" / "README.md").read_text(encoding="utf-8").split())
    bench = " ".join((ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").split())
    for gone in ("In today's two runs", "the chain of 4 is now the faster shape", "with today's verify curve"):
        assert gone not in readme, gone
    assert "Today the chain of 4 is the faster shape" not in bench and "cost more in today's runs" not in bench
    then = "the chain of 4 was then the faster shape (in the later runs above, with the EAGLE-3 drafter, the tree is)"
    assert then in readme
    assert "with the EAGLE-3 drafter, the tree is faster in wall time too" in bench
    summary = json.loads((ROOT / TREE_RESULTS).read_text(encoding="utf-8"))["summary"]
    rows = [row for row in summary if row["suite"] == "all"]
    for temperature in (0.0, 0.7):
        chain = [r["speedup_vs_hf_generate"] for r in rows if r["temperature"] == temperature and not r["tree_nodes"]]
        tree = [r["speedup_vs_hf_generate"] for r in rows if r["temperature"] == temperature and r["tree_nodes"]]
        assert chain and tree and min(tree) > max(chain), (temperature, chain, tree)


def test_benchmarks_readme_does_not_date_the_current_results_md_to_2026_12_04():
    """Read 28: assets/benchmarks/README.md said every results.md "was rewritten on 2026-12-04 ... by the current
    report code"; 427ee24 did so on 2026-12-04, but the files have been rewritten since as the report changed. Each
    results.md is the current report's markdown of its results.json, its v1 notes included (read 51: they were
    written by hand; tests/labs/test_bench.py checks every file against the report code)."""
    text = " ".join((ROOT / "assets" / "benchmarks" / "README.md").read_text(encoding="utf-8").split())
    assert "rewritten on 2026-12-04 from its `results.json` by the current report code" not in text
    assert "rewritten on 2026-12-04 (427ee24) from its `results.json` by the report code, and again as that" in text
    assert "not by the report code" not in text and "notes included" in text


def test_the_before_reranking_pairs_put_0c3b164s_committed_figure_where_the_text_says():
    """Read 39: the README named "the committed one 09:37–09:44 UTC" first and "the other at 09:11" second, then gave
    pairs (1.65× / 1.69×, ...) whose committed figure is the second, while every table above puts the committed
    figure first. The text now says the order; each pair's second figure is the one 0c3b164's file holds."""
    shown = subprocess.run(["git", "show", f"0c3b164:{TREE_RESULTS}"], cwd=ROOT, capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    rows = {(r["tree_nodes"], r["temperature"]): r for r in json.loads(shown.stdout)["summary"]
            if r["suite"] == "all" and r["policy"] == "constant"}
    text = " ".join((ROOT / "assets" / "benchmarks" / "README.md").read_text(encoding="utf-8").split())
    assert "each pair below in that order, the committed figure second" in text
    pairs = {(16, 0.0): "1.65× / {:.2f}× greedy", (16, 0.7): "1.39× / {:.2f}× at T = 0.7",
             (0, 0.0): "the chain: 1.59× / {:.2f}×", (0, 0.7): "1.29× / {:.2f}×)"}
    for key, said in pairs.items():
        assert said.format(rows[key]["speedup_vs_hf_generate"]) in text, key
