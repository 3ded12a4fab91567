"""Sizes, times and rates the docs state, checked against their sources (issue 43's 27th read): each test pins one
statement that read found wrong or unsourced, with the figure read from a committed file where one holds it."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import TIMEOUTS, time_limit

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def test_benchmarks_readme_says_the_greedy_identity_paths_now_hold_later_files():
    """Read 27: assets/benchmarks/README.md said of default-cpu-bf16-tree's greedy-identity files "Neither file has a
    `machine` field", true of the files d5b353b and 86a0e25 committed; the bfloat16 path now holds 838fee56's run
    (8 prompts, its machine recorded) and the float32 one f75c49d0's (64 prompts)."""
    folder = ROOT / "assets" / "benchmarks" / "default-cpu-bf16-tree"
    bf16 = json.loads((folder / "greedy-identity.json").read_text(encoding="utf-8"))
    f32 = json.loads((folder / "greedy-identity-float32.json").read_text(encoding="utf-8"))
    same = [sum(bool(e["identical"]) for e in d["entries"]) for d in (bf16, f32)]
    assert "machine" in bf16 and bf16["machine"]["cpu"] == "AMD EPYC"
    text = " ".join((ROOT / "assets" / "benchmarks" / "README.md").read_text(encoding="utf-8").split())
    assert "Neither file has a `machine` field" not in text
    assert (f"the bfloat16 one the lookup tree's {len(bf16['entries'])} prompts on the AMD EPYC (838fee56, {same[0]} "
            f"of {len(bf16['entries'])} identical, its `machine` recorded), the float32 one {len(f32['entries'])} "
            f"prompts (f75c49d0, {same[1]} of {len(f32['entries'])})") in text


def test_the_older_transformers_check_is_timed_by_its_measured_run():
    """Read 27: gpu.md timed the older-transformers check at "about 4 minutes the first time, 2 once the environment
    is built", figures no commit or file records; testing.md's fresh-machine run measured 292 s for the first. The
    test's docstring also said torch comes "from the local wheel", but `scratch_env` pip-installs every pin from PyPI
    (testing.md says so too)."""
    import re

    testing = " ".join((DOCS / "testing.md").read_text(encoding="utf-8").split())
    first = re.search(r"the older-transformers check took (\d+) s, most of it building its scratch virtualenv",
                      testing).group(1)
    gpu = " ".join((DOCS / "gpu.md").read_text(encoding="utf-8").split())
    assert "about 4 minutes the first time" not in gpu
    assert f"rehearsal in it ({first} s the first time on a fresh 2-core machine under load" in gpu
    source = (ROOT / "tests" / "engine" / "test_transformers_versions.py").read_text(encoding="utf-8")
    assert "local wheel" not in source and "--find-links" not in source
    assert f"took {first} s in all (docs/testing.md)" in " ".join(source.split())


def test_gpu_md_times_the_rehearsal_by_a_recorded_run():
    """Read 27: gpu.md timed the CPU rehearsal at "13 to 35 s on 2 busy cores", a figure the commit that wrote it
    (9225823) recorded nowhere; two runs on 42f0989 at load average 1.0 took 9 s of sections, 12 s with the imports
    (their gpu_check.log summaries and `time`, in the body of the commit that changed the sentence)."""
    from specviz.scripts.gpu_check import REHEARSAL

    text = " ".join((DOCS / "gpu.md").read_text(encoding="utf-8").split())
    assert "13 to 35 s" not in text
    assert "9 s of sections, 12 s with the imports, in each of two runs on this project's 2-core AMD EPYC" in text
    assert 12 < REHEARSAL.budget  # the measured run sits well inside the rehearsal's own budget


def test_the_limits_comment_quotes_its_sources():
    """Read 27: conftest's comment called the limits "about ten times what a test takes" (a fast-tier test takes
    under 0.7 s, the `slow` marker's bound, against a 120 s limit) and ended "not after CI's 90", a figure with no
    unit whose source no file holds (.ci/run sets no time limit). Read 45: since 1b5dce23 marked the 53 tests over
    0.35 s slow, the marker's bound (pyproject.toml, conftest, testing.md) is 0.35 s, not 0.7 s."""
    root = ROOT
    conftest = " ".join((root / "tests" / "conftest.py").read_text(encoding="utf-8").split())
    assert "about ten times" not in conftest and "CI's 90" not in conftest
    slow = next(line for line in (root / "pyproject.toml").read_text(encoding="utf-8").splitlines() if '"slow:' in line)
    assert "more than about 0.35 s" in slow and "a fast-tier test under about 0.35 s" in conftest
    load = " ".join((root / "docs" / "classroom.md").read_text(encoding="utf-8").split())
    assert "30 served in 95 s" in load and "the 30-tab load test, a browser test, 95 s" in conftest
    assert time_limit(set()) > 100 * 0.35 and TIMEOUTS["browser"] > 5 * 95


def test_the_thread_note_quotes_no_unmeasured_slowdown():
    """Read 27: conftest's thread fixture and testing.md said two pytest workers of two torch threads each on two
    cores "run about 3× slower"; b1eb7e4, which made the rule, measured only the one-thread run, and no file or
    commit records the other. Both now say what the rule avoids (four threads on two cores) without a figure."""
    root = ROOT
    for path in (root / "tests" / "conftest.py", root / "docs" / "testing.md"):
        text = " ".join(path.read_text(encoding="utf-8").split())
        assert "about 3× slower" not in text and "would run about 3×" not in text, path
        assert "four threads on two cores" in text, path


def test_the_readmes_time_the_targets_bench_by_its_committed_run():
    """Read 44 (front): both READMEs timed `targets_bench` at "15 minutes", a figure no file records; the committed
    run's results.json dates its bench from `machine.date` 13:39:53 to `created` 13:53:42 UTC, 14 minutes, as
    `specviz/scripts/targets_bench.py` says."""
    from datetime import datetime

    run = json.loads((ROOT / "assets" / "benchmarks" / "default-cpu-f32-packed" / "results.json").read_text(
        encoding="utf-8"))
    start, end = (datetime.fromisoformat(when.replace("Z", "+00:00"))
                  for when in (run["machine"]["date"], run["created"]))
    minutes = round((end - start).total_seconds() / 60)
    english = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    portuguese = " ".join((ROOT / "README.pt-BR.md").read_text(encoding="utf-8").split())
    assert "(15 minutes," not in english and "(15 minutos," not in portuguese
    assert f"the second run's bench took {minutes} minutes, `machine.date` to `created` in its results.json" in english
    assert (f"o bench da segunda execução levou {minutes} minutos, de `machine.date` a `created` no seu results.json"
            in portuguese)


def test_benchmarks_md_times_the_targets_bench_by_its_committed_runs():
    """Read 47: docs/benchmarks.md still timed `targets_bench` at "about 15 minutes" (twice) and the 2026-12-01 runs
    at "12", figures no file records; the committed float32 run's bench took 14 minutes and each of the two runs of
    86a0e25 and d5b353b 11, `machine.date` to `created`."""
    from datetime import datetime

    def minutes(run: dict) -> int:
        start, end = (datetime.fromisoformat(when.replace("Z", "+00:00"))
                      for when in (run["machine"]["date"], run["created"]))
        return round((end - start).total_seconds() / 60)

    packed = json.loads((ROOT / "assets" / "benchmarks" / "default-cpu-f32-packed" / "results.json").read_text(
        encoding="utf-8"))
    text = " ".join((ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").split())
    assert "about 15 minutes" not in text and "12 for the two shapes" not in text
    assert f"its bench took {minutes(packed)} minutes, `machine.date` to `created` in results.json" in text
    assert f"its bench took {minutes(packed)} minutes in float32" in text
    assert "11 a run for the two shapes it ran below" in text and "(11 min its bench a run" in text


def test_classroom_md_names_every_wait_for_the_model():
    """Read 46: docs/classroom.md listed a live run, the Exactness lab and the Speedup lab's sweep as what takes the
    model's turn, each told "The model is busy" after 90 s; the Speedup lab's "Measure this machine" takes the same
    turn with a wait of its own (60 s, no queue count) and then holds the model for the whole measurement."""
    from specviz.ui.common.runs import WAIT_SECONDS
    from specviz.ui.common.this_machine import MEASURE_WAIT_SECONDS

    text = " ".join((DOCS / "classroom.md").read_text(encoding="utf-8").split())
    assert f'is told "The model is busy" after {WAIT_SECONDS:g} s in line' in text
    assert (f"the Speedup lab's *Measure this machine* takes the same turn but waits at most "
            f"{MEASURE_WAIT_SECONDS:g} s") in text


def test_the_readmes_give_the_first_loads_five_minute_load_too():
    """Read 47 (front47): both READMEs gave the 21 s first load "load average 1.6", the 1-minute figure of
    presets.json's [1.62, 6.06, 6.39]: the machine had been busy just before, which the 5-minute 6.1 says."""
    run = json.loads((ROOT / "assets" / "benchmarks" / "presets" / "presets.json").read_text(encoding="utf-8"))
    one, five, _fifteen = run["runs"]["bfloat16"]["first_load"]["load_average_start"]
    english = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    portuguese = " ".join((ROOT / "README.pt-BR.md").read_text(encoding="utf-8").split())
    assert f"load average {one:.1f} over 1 minute but {five:.1f} over 5;" in english
    assert f"carga média {one:.1f} em 1 minuto, mas {five:.1f} em 5;".replace(".", ",") in portuguese


def test_benchmarks_md_calls_targets_txt_the_scripts_printout_not_a_file_it_writes():
    """Read 50: benchmarks.md said targets_bench "prints each prediction next to its measurement (`targets.txt` in the
    folder)" beside the command that made the folder, as if that command wrote targets.txt. It prints its verdicts
    and writes only the bench's results.json, .csv and .md: a rerun leaves no targets.txt."""
    import inspect

    import specviz.scripts.targets_bench as script

    assert "targets.txt" not in inspect.getsource(script)  # the script never names, so never writes, the file
    text = " ".join((DOCS / "benchmarks.md").read_text(encoding="utf-8").split())
    assert "prints each prediction next to its measurement (`targets.txt` in the folder)" not in text
    assert ("it writes only the bench's three files; the folder's `targets.txt` is that printout, saved beside them"
            in text)


def test_testing_md_derives_no_make_test_time_its_sum_does_not_give():
    """Read 50: testing.md said of the eca82cef fresh clone "516.3 s ... set-up 44.7 s, so `make test` 9 min 23 s",
    but 516.3 + 44.7 s is 9 min 21 s; the 9 min 23 s is the commit's own timing of the whole make test (31e0f744),
    not a sum. Every "set-up X s, so `make test` M min S s" left adds up to its pytest time within a second."""
    import re

    text = " ".join(line.lstrip("# ") for line in (DOCS / "testing.md").read_text(encoding="utf-8").splitlines())
    assert "3,754 in 516.3 s on eca82cef" in text and "set-up 44.7 s; `make test` timed 9 min 23 s" in text
    derived = re.findall(r"in ([\d.]+) s on \w+ \([^()]*?set-up ([\d.]+) s, so `make test` (\d+) min (\d+) s", text)
    assert all(abs(float(pytest_s) + float(setup) - (60 * int(m) + int(s))) <= 1 for pytest_s, setup, m, s in derived)


def test_architecture_md_gives_the_last_make_test_time_not_the_old_minutes():
    """Read 55: architecture.md's make test minutes ended at "9 min 23 s (eca82cef ...); the bound is 10 minutes",
    beside a suite that has since doubled: the closing note of 2026-12-07's second session timed 6,192 tests in
    719.7 s of pytest on a fresh clone of 2c1ca450, 12.0 minutes before a set-up of about 45 s (44.5 and 44.7 s in
    the runs the doc quotes): about 12.7 in all, over the bound. testing.md records the run too."""
    architecture = " ".join((DOCS / "architecture.md").read_text(encoding="utf-8").split())
    testing = " ".join(line.lstrip("# ") for line in (DOCS / "testing.md").read_text(encoding="utf-8").splitlines())
    pytest_s, setups = 719.7, (44.5, 44.7)
    assert f"{pytest_s / 60:.1f}" == "12.0" and {f"{(pytest_s + s) / 60:.1f}" for s in setups} == {"12.7"}
    assert ("the last fresh clone's run, 6,192 tests in 719.7 s of pytest on 2c1ca450 (2026-12-07, `.ci/run` rc 0, "
            "the serving tier 160.1 s more") in architecture
    assert "is 12.0 minutes before its set-up (not timed there; 44.5 and 44.7 s above), so about 12.7 in all: over " \
           "the 10-minute bound" in architecture
    assert "9 min 23 s (eca82cef, 06:50 UTC); the bound is 10 minutes" not in architecture
    assert "6,192 tests in 719.7 s on 2c1ca450 (/tmp/fc90, 2026-12-07" in testing
