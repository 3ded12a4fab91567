"""The benchmark harness on the toy pair: it runs in seconds and writes the documented schema."""

import csv
import math
import io
import json
import re
from pathlib import Path

import pytest

from specviz.labs.bench import (CASE_COLUMNS, DEFINITIONS, BenchConfig, BenchResult, load_suites, run_bench)
from specviz.cli import main
from specviz.engine.theory import expected_speedup
from specviz.labs.bench.report import TREE_NOTE, PolicyComparison, markdown_report
from specviz.labs.bench.config import BENCHMARKS_DIR
from specviz.models.pairs import toy_pair


CONFIG = dict(pair="toy", proposers=["draft", "ngram"], ks=[1, 3], temperatures=[0.0, 1.0], suites=["qa", "code"],
              prompts_per_suite=1, max_new_tokens=12, repeats=2, warmup=1, threads=1,
              policies=["constant", "heuristic", "threshold", "optimal"], policy_k=2, policy_temperatures=[0.0],
              hf="greedy", cost_repeats=3)


@pytest.fixture(scope="module")
def result():
    calls = []
    res = run_bench(BenchConfig(**CONFIG), command="test", pair=toy_pair(),
                    progress=lambda done, total, label: calls.append((done, total)))
    res.progress_calls = calls
    return res


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_every_case_is_measured_once_per_prompt_temperature_and_configuration(result):
    constant = {(c["suite"], c["temperature"], c["proposer"], c["k"]) for c in result.cases if c["policy"] == "constant"}
    assert len(constant) == 2 * 2 * 2 * 2  # suites x temperatures x proposers x K
    adaptive = [c for c in result.cases if c["policy"] != "constant"]
    # heuristic + optimal for both proposers, threshold for the draft model only; greedy only
    assert len(adaptive) == 2 * (2 + 2 + 1) and {c["temperature"] for c in adaptive} == {0.0}
    assert {c["proposer"] for c in adaptive if c["policy"] == "threshold"} == {"draft"}


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_progress_counts_up_to_the_announced_total(result):
    done, total = zip(*result.progress_calls)
    assert list(done) == list(range(1, len(done) + 1)) and done[-1] == total[0] == total[-1]


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_greedy_outputs_of_all_methods_are_identical(result):
    greedy = [c for c in result.cases if c["temperature"] == 0]
    assert any(c["policy"] == "constant" for c in greedy)  # so neither check below passes on no cases
    assert all(c["identical"] is True for c in greedy)
    assert all(c["hf_assisted_identical"] is True for c in greedy if c["policy"] == "constant")
    generate = [b for b in result.baselines if b["method"] == "transformers generate"]
    assert generate and all(b["identical"] is True for b in generate)


def test_metrics_are_consistent_with_the_trace_counts_and_the_theory(result):
    for c in result.cases:
        assert c["mat_with_bonus"] == pytest.approx(c["tokens"] / c["steps"])
        assert c["mat_without_bonus"] == pytest.approx(c["accepted"] / c["steps"])
        if c["drafted"]:
            assert c["acceptance_rate"] == pytest.approx(c["accepted"] / c["drafted"])
        if c["policy"] == "constant" and c["alpha"] is not None:
            assert c["predicted_speedup"] == pytest.approx(expected_speedup(c["alpha"], c["k"], c["c"],
                                                                            one_pass=c["proposer"] == "ngram"))
        assert c["speedup_vs_ar"] == pytest.approx((c["tokens"] / c["seconds"]) / (c["ar_tokens"] / c["ar_seconds"]))
    # a lookup is far cheaper than a forward: compared with each other, measured in the same interleaved rounds, not
    # with a fixed bound (the toy draft's c read 0.037 once with the machine loaded 6x: `make check` under two `yes`
    # loops and a full `make test` beside it; a speed figure belongs in a benchmark, not a timed test)
    ngram_c, draft_c = result.costs["c"]["ngram"], result.costs["c"]["draft"]
    assert 0 <= ngram_c < draft_c and math.isfinite(draft_c)
    assert [v["n_tokens"] for v in result.costs["verify"]] == [1, 2, 3, 4]
    assert result.costs["verify"][0]["ratio"] == 1.0


def test_summary_pools_over_all_suites(result):
    overall = [s for s in result.summary if s["suite"] == "all"]
    per_suite = [s for s in result.summary if s["suite"] != "all"]
    assert len(overall) * 2 == len(per_suite)
    for s in overall:
        rows = [c for c in result.cases if (c["proposer"], c["policy"], c["k"], c["temperature"])
                == (s["proposer"], s["policy"], s["k"], s["temperature"])]
        assert s["tokens"] == sum(r["tokens"] for r in rows)
        assert s["mat_with_bonus"] == pytest.approx(s["tokens"] / s["steps"])


def test_a_result_answers_the_labs_questions_from_its_rows(result):
    constant = result.rows(proposer="draft", temperature=0.0, policy="constant")
    assert [r["k"] for r in constant] == [1, 3] and all(r["suite"] == "all" for r in constant)
    assert result.row(suite="qa", proposer="draft", temperature=0.0, policy="constant", k=3)["suite"] == "qa"
    assert result.proposers() == ["draft", "ngram"] and result.temperatures() == [0.0, 1.0]
    best = result.best_constant("draft", 0.0)
    assert best["speedup_vs_ar"] == max(r["speedup_vs_ar"] for r in constant)
    assert result.mean_alpha("draft", 0.0) == pytest.approx(sum(r["alpha"] for r in constant) / len(constant))
    assert result.verify_ratio(99) == result.costs["verify"][-1]["ratio"]  # beyond the curve: its longest point
    ar = [b for b in result.baselines if b["method"] == "specviz target-only" and b["temperature"] == 0.0]
    assert result.baseline_tokens_per_second("specviz target-only", 0.0) == pytest.approx(
        sum(b["tokens"] for b in ar) / sum(b["seconds"] for b in ar))
    assert result.baseline_tokens_per_second("no such method", 0.0) is None
    comparisons = result.policy_comparisons(0.0)
    assert [(c.suite, c.proposer) for c in comparisons][:2] == [("all", "draft"), ("all", "ngram")]
    draft = comparisons[0]
    assert draft.k0 == 2 and set(draft.speedups) == {"heuristic", "threshold", "optimal"}  # no constant K = 2 ran
    assert draft.speedups[draft.winner] == max(draft.speedups.values()) and draft.margin is None
    assert result.policy_comparisons(1.0) == []  # the policies ran greedy only
    two = PolicyComparison("qa", "ngram", 4, {"constant": 1.2, "heuristic": 1.5, "optimal": None})
    assert two.winner == "heuristic" and two.margin == pytest.approx(0.25)


def test_a_version_1_result_shows_no_misnamed_tree_acceptance_rate():
    """Version 1 counted a tree's main line as drafted (accepted / drafted read above α): its tree rows load with
    no acceptance rate; its chain rows keep theirs."""
    path = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "default-cpu-f32-packed" / "results.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert raw["schema_version"] == 1 and any(r.get("tree_nodes") for r in raw["summary"])
    loaded = BenchResult.from_dict(raw)
    assert loaded.schema_version == 2
    trees = [r for r in loaded.summary if r.get("tree_nodes")]
    chains = [r for r in loaded.summary if not r.get("tree_nodes")]
    assert trees and all(r["acceptance_rate"] is None and r["mean_k"] is None for r in trees)
    assert chains and all(r["acceptance_rate"] is not None for r in chains)
    assert all(r["speedup_vs_ar"] is not None for r in trees)  # what was measured right stays


def test_a_run_before_the_tree_per_position_meaning_shows_no_tree_entries_and_says_why():
    """Read 51: default-cpu-bf16-trees (started 2026-12-01 00:23 UTC, before e3141ea gave a tree's acceptance by
    position its current meaning) loaded its tree rows' old entries (0.78 / 0.55 / 0.86, a hazard that can rise with i)
    under today's name; its results.md hid them and said why only because a commit edited the file by hand. Now the
    loader blanks them and the report writes both notes; a v1 run from after e3141ea keeps its entries."""
    folder = Path(__file__).resolve().parents[2] / "assets" / "benchmarks"
    raw = json.loads((folder / "default-cpu-bf16-trees" / "results.json").read_text(encoding="utf-8"))
    old = [r for r in raw["summary"] if r.get("tree_nodes")]
    assert raw["schema_version"] == 1 and raw["machine"]["date"] < "2026-12-01T01:10:21Z"
    assert any(r["per_position"][2] > r["per_position"][1] for r in old)  # entries that rise: the old meaning
    loaded = BenchResult.from_dict(raw)
    for part in (loaded.summary, loaded.cases):
        assert all(r["per_position"] == [] for r in part if r.get("tree_nodes"))
        assert all(r["per_position"] for r in part if not r.get("tree_nodes"))  # chains mean the same in v1
    assert all(r["position_drafted"] == r["position_survived"] == [] for r in loaded.cases if r.get("tree_nodes"))
    report = markdown_report(loaded)
    assert "| eagle | 3 | 16×4 | 0 | 0.062 | – |" in report and "0.78 / 0.55 / 0.86" not in report
    assert "- Tree rows: no acceptance rate. This run wrote results.json in schema version 1" in report
    assert "- Tree rows: no acceptance by position. This run computed it for trees before" in report
    later = BenchResult.load(folder / "default-cpu-bf16-tree" / "results.json")  # v1, 2026-12-03
    assert all(r["per_position"] for r in later.summary) and later.blanked == ("acceptance_rate",)
    said = markdown_report(later)
    assert "Tree rows: no acceptance rate." in said and "Tree rows: no acceptance by position." not in said
    medusa = BenchResult.load(folder / "default-cpu-f32-medusa" / "results.json")  # v2: nothing blanked, no note
    assert medusa.blanked == () and "Tree rows: no" not in markdown_report(medusa)
    assert "blanked" not in medusa.to_dict()  # nothing blanked, nothing written


@pytest.mark.parametrize("folder", ["default-cpu-bf16-trees", "default-cpu-bf16-tree"])
def test_a_version_1_result_written_and_read_again_keeps_its_blanked_notes(folder, tmp_path):
    """Read 52: `to_dict` dropped what `load` had blanked on a version-1 result's tree rows, and wrote schema version
    2, so reading it again blanked nothing and its report lost both notes while the cells stayed blank."""
    root = Path(__file__).resolve().parents[2] / "assets" / "benchmarks"
    loaded = BenchResult.load(root / folder / "results.json")
    assert loaded.blanked
    again = BenchResult.from_dict(json.loads(json.dumps(loaded.to_dict())))
    assert again.blanked == loaded.blanked and markdown_report(again) == markdown_report(loaded)
    assert "- Tree rows: no acceptance rate." in markdown_report(again)
    loaded.save(tmp_path)
    assert BenchResult.load(tmp_path / "results.json").blanked == loaded.blanked
    for bad in (["nonsense"], "acceptance_rate", [3]):
        with pytest.raises(ValueError, match="blanked is not a list of known names"):
            BenchResult.from_dict({**loaded.to_dict(), "blanked": bad})


def test_every_committed_results_md_is_the_report_of_its_results_json():
    """assets/benchmarks/README.md says each results.md is `markdown_report(BenchResult.load(results.json))`; read 51
    found five that were not (notes and blank cells a commit wrote by hand). Regenerate with the report code:
    `result = BenchResult.load(path); (path.parent / "results.md").write_text(markdown_report(result))`."""
    found = sorted(path for path in BENCHMARKS_DIR.rglob("results.json") if (path.parent / "results.md").exists())
    assert len(found) >= 11
    for path in found:
        written = (path.parent / "results.md").read_text(encoding="utf-8")
        assert written == markdown_report(BenchResult.load(path)), path.parent.name


def test_the_results_md_table_heads_its_acceptance_column_with_the_definitions_name():
    """Read 51, names: every results.md headed the column of `acceptance_rate` "accepted/drafted", while its own
    Definitions and the Speedup lab's table name it "acceptance rate (accepted / (drafted + copied))": two names for
    one column, and on a tree row whose lookup branch copied tokens the header's fraction leaves out the copies its
    number counts. The table now uses the Definitions' name, and the v1 note names the column so too."""
    name = DEFINITIONS["acceptance_rate"][0]
    assert name == "acceptance rate (accepted / (drafted + copied))"
    for path in sorted(BENCHMARKS_DIR.glob("*/results.json")):
        text = markdown_report(BenchResult.load(path))
        header = next(line for line in text.splitlines() if line.startswith("| proposer | policy |"))
        assert f"| {name} |" in header and "accepted/drafted" not in header, path.parent.name
        assert "Tree rows: no accepted/drafted" not in text, path.parent.name
        # and the two lengths: "mean accepted length" and "accepted/step (excl.)" beside their longer labels
        lengths = [DEFINITIONS[key][0] for key in ("mat_with_bonus", "mat_without_bonus")]
        assert f"| {lengths[0]} | {lengths[1]} |" in header and "(excl.)" not in header, path.parent.name


def test_files_follow_the_documented_schema(result, tmp_path):
    paths = result.save(tmp_path)
    data = json.loads(paths["json"].read_text())
    assert data["schema"] == "specviz-bench" and data["schema_version"] == 2
    assert {"cpu", "cores", "gpu", "torch_threads", "torch", "transformers", "date"} <= data["machine"].keys()
    assert data["machine"]["torch_threads"] == 1
    assert set(data["definitions"]) == set(DEFINITIONS)
    assert BenchResult.from_dict(data).cases == json.loads(json.dumps(result.to_dict()))["cases"]
    rows = list(csv.DictReader(io.StringIO(paths["csv"].read_text())))
    assert list(rows[0].keys()) == CASE_COLUMNS and len(rows) == len(result.cases)
    md = paths["md"].read_text()
    assert "| proposer | policy | K |" in md and "mean accepted length" in md and "predicted (paper)" in md
    for label, _ in DEFINITIONS.values():
        assert label in md


def test_a_file_that_is_not_a_result_is_one_clear_error(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"steps": []}')
    with pytest.raises(ValueError, match="not a specviz benchmark"):
        BenchResult.load(bad)


def test_suites_have_six_categories_of_eight_or_more_prompts():
    suites = load_suites()
    # six categories, five of them Spec-Bench's (code stands where it has retrieval-augmented generation), plus the
    # held-out prompts (topics no training prompt is about) and everyday ones
    assert {s.name for s in suites} == {"chat", "code", "math", "rewrite", "translation", "qa", "held-out", "everyday"}
    assert all(len(s.prompts) >= 8 for s in suites)
    ids = [p.id for s in suites for p in s.prompts]
    assert len(ids) == len(set(ids))
    assert all(len(p.turns()) == 3 for p in next(s for s in suites if s.name == "chat").prompts)


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_cli_bench_writes_the_three_files(tmp_path, capsys):
    code = main(["bench", "--pair", "toy", "--proposers", "ngram", "--k", "1,2", "--temperatures", "0",
                 "--suites", "rewrite", "--prompts-per-suite", "1", "--max-new-tokens", "8", "--repeats", "1",
                 "--warmup", "0", "--threads", "1", "--hf", "none", "--out", str(tmp_path)])
    assert code == 0
    assert {p.name for p in tmp_path.iterdir()} == {"results.json", "results.csv", "results.md"}
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["command"].startswith("python -m specviz bench --pair toy --proposers ngram --k 1 2")
    assert "| ngram | constant | 2 | chain | 0 |" in capsys.readouterr().out
    # no --dtype given: the command records the one the machine's default chose, so typed anywhere it measures in
    # that dtype, and results.md has nothing to add under it (27th read: it said the command would run otherwise)
    assert f"--dtype {data['machine']['dtype']} " in data["command"]
    from specviz.labs.bench.report import rerun_lines

    assert rerun_lines(BenchResult.load(tmp_path / "results.json")) == []


@pytest.mark.parametrize("flags,message", [
    (["--k", "0"], "--k must be whole numbers from 1 to 16 (got 0)."),
    (["--policy-k", "0"], "--policy-k must be a whole number from 1 to 16 (got 0)."),  # names the flag it refuses
    (["--policy-k", "17"], "--policy-k must be a whole number from 1 to 16 (got 17)."),
    (["--suites", "poetry"], "Unknown prompt suite 'poetry'"),
    (["--proposers", "oracle"], "Unknown proposer 'oracle'"),
    (["--policies", "fastest"], "Unknown draft-length policy"),
    (["--repeats", "1000000"], "--repeats must be a whole number from 1 to 100"),  # issue 44 item 5: every number
    (["--warmup", "-1"], "--warmup must be a whole number from 0 to 100"),
    (["--prompts-per-suite", "0"], "--prompts-per-suite must be a whole number from 1"),
    (["--seed", "-3"], "--seed must be a whole number from 0 to 4,294,967,295 (got −3)."),  # grouped (read 46)
    (["--max-new-tokens", "0"], "--max-new-tokens must be a whole number from 1 to 2,048 (got 0)."),
    (["--k", "3", "--tree-lookup", "4"], "--tree-lookup needs a tree"),  # issue 44 item 9: not silently ignored
])
def test_cli_bad_values_end_in_one_sentence(flags, message, capsys, tmp_path):
    code = main(["bench", "--pair", "toy", "--proposers", "ngram", "--out", str(tmp_path), *flags])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())  # refused before anything ran or was written


@pytest.mark.parametrize("flags,message", [
    # a number as typed, not float()'s 5.0 (read 47)
    (["--temperatures", "5"], "--temperatures must be numbers from 0 to 2 (got 5)."),
    (["--policy-temperatures", "3"], "--policy-temperatures must be numbers from 0 to 2 (got 3)."),  # read 45
    (["--suites", "poetry"], "Unknown prompt suite 'poetry'"),
    (["--repeats", "0"], "--repeats must be a whole number from 1 to 100"),
    (["--k", "0"], "--k must be whole numbers from 1 to 16 (got 0)."),
])
def test_without_proposers_a_bad_value_is_refused_before_the_pair_loads(flags, message, capsys, tmp_path,
                                                                        monkeypatch):
    """43rd read: with no --proposers (the pair's own proposer, the usual bench), every flag was checked only after
    the pair had loaded (minutes for a large pair), and the refusal came after a "draft shape" progress line."""
    import specviz.models.pairs as pairs

    def no_load(*args, **kwargs):
        raise AssertionError("the pair loaded before the flags were checked")

    monkeypatch.setattr(pairs, "load_pair", no_load)
    code = main(["bench", "--pair", "toy", "--out", str(tmp_path), *flags])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("flags,message", [
    (["--suites", "chat", "chat"], "--suites names 'chat' twice: give each once."),
    (["--k", "1", "2,1"], "--k gives 1 twice: give each once."),
    (["--proposers", "draft", "draft"], "--proposers names 'draft' twice: give each once."),
    (["--temperatures", "0", "0.0"], "--temperatures gives 0 twice: give each once."),
    (["--temperatures", "0", "-0"], "--temperatures gives 0 twice: give each once."),  # read 55: "gives −0 twice"
    (["--policies", "constant", "heuristic", "heuristic"], "--policies names 'heuristic' twice: give each once."),
    (["--shapes", "2", "2:0:8"], "--shapes gives chain K=2 twice (a chain has no WIDTH or LOOKUP: 2 and 2:0:8 are "
                                 "one shape): give each shape once."),
    (["--shapes", "3:6:4", "3:6:4:0"], "--shapes gives tree 6×4 depth 3 twice: give each shape once."),
])
def test_a_list_flag_giving_one_value_twice_is_refused_before_anything_runs(flags, message, capsys, tmp_path,
                                                                            monkeypatch):
    """Read 53: `bench --suites chat chat --k 1 1` ran every case four times and wrote four rows for one prompt, two
    "chat" lines under "Best configuration per category" and "4/4" greedy identical for the one prompt it had; a
    value given twice is now refused in one sentence, as `serve sweep --specs none none` is."""
    import specviz.models.pairs as pairs

    def no_load(*args, **kwargs):
        raise AssertionError("the pair loaded before the flags were checked")

    monkeypatch.setattr(pairs, "load_pair", no_load)
    code = main(["bench", "--pair", "toy", "--out", str(tmp_path), *flags])
    err = capsys.readouterr().err
    assert code == 2 and err.strip().splitlines()[-1] == f"specviz: {message}" and "Traceback" not in err
    assert not any(tmp_path.iterdir())


def test_the_tree_flags_help_says_the_defaults_config_from_args_takes():
    """--k alone benches a chain (no tree, no lookup branch), so the help may not promise the pair's recommended tree
    as the plain default of --tree-nodes or --tree-lookup."""
    import argparse

    from specviz.labs.bench.cli import add_bench_arguments, config_from_args

    parser = argparse.ArgumentParser()
    add_bench_arguments(parser)
    config = config_from_args(parser.parse_args(["--pair", "default", "--k", "3"]))
    assert config.tree_nodes == [0] and config.tree_lookup == 0
    helps = {a.dest: " ".join(a.help.split()) for a in parser._actions if a.help}
    assert "or a chain when --k is given" in helps["tree_nodes"]
    assert "or none when --k or --tree-nodes is given" in helps["tree_lookup"]
    assert all("as for --k when no shape flag is given" in helps[d] for d in ("tree_nodes", "tree_width", "tree_lookup"))


def test_the_verify_dtypes_help_says_how_to_skip_the_curves_as_the_parser_reads_it():
    """Issue 43, 43rd read: the help said "(none: skip)", and `--verify-dtypes none` is refused ("must be among
    float32, float16, bfloat16 (got none)"): the flag with no dtype after it is what skips them. The help now says
    that, and the default it had left out."""
    import argparse

    from specviz.labs.bench.cli import add_bench_arguments, config_from_args
    from specviz.labs.bench.config import BenchConfig

    parser = argparse.ArgumentParser()
    add_bench_arguments(parser)
    helps = {a.dest: " ".join(a.help.split()) for a in parser._actions if a.help}
    assert "none: skip" not in helps["verify_dtypes"]
    default = BenchConfig().verify_dtypes
    assert f"default: {' '.join(default)}" in helps["verify_dtypes"]
    assert config_from_args(parser.parse_args(["--pair", "toy"])).verify_dtypes == default
    assert "the flag alone, with no dtype after it, skips the curves" in helps["verify_dtypes"]
    assert config_from_args(parser.parse_args(["--pair", "toy", "--verify-dtypes"])).verify_dtypes == []


@pytest.mark.parametrize("threads", ["100000", "-1", "two", "1e3"])
def test_a_thread_count_out_of_range_is_refused_before_torch_sees_it(threads, capsys, tmp_path):
    """Issue 44 item 5: `bench --threads 100000` crashed inside libgomp (out of memory). argparse refuses it."""
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "--pair", "toy", "--threads", threads, "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--threads: a whole number from 0 (torch's choice) to 256" in err
    assert "Traceback" not in err and not any(tmp_path.iterdir())


def test_results_record_the_device_and_dtype_the_models_ran_in(result, tmp_path):
    assert result.machine["device"] == "cpu" and result.machine["dtype"] == "float32"
    assert "The models ran on cpu in float32." in result.notes
    assert "Models on cpu in float32." in result.save(tmp_path)["md"].read_text()


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_cli_bench_runs_in_the_dtype_asked_for_and_says_so_in_its_command(tmp_path):
    code = main(["bench", "--pair", "toy", "--proposers", "ngram", "--k", "2", "--temperatures", "0",
                 "--suites", "rewrite", "--prompts-per-suite", "1", "--max-new-tokens", "6", "--repeats", "1",
                 "--warmup", "0", "--threads", "1", "--hf", "none", "--device", "cpu", "--dtype", "bfloat16",
                 "--out", str(tmp_path)])
    data = json.loads((tmp_path / "results.json").read_text())
    assert code == 0 and (data["machine"]["device"], data["machine"]["dtype"]) == ("cpu", "bfloat16")
    assert (data["config"]["device"], data["config"]["dtype"]) == ("cpu", "bfloat16")
    assert "--device cpu --dtype bfloat16" in data["command"]


def test_a_cpu_clock_on_a_gpu_is_refused_before_anything_loads(capsys, tmp_path):
    """Process CPU time leaves out the GPU's work: a GPU run timed by it would report impossible speedups."""
    code = main(["bench", "--pair", "toy", "--proposers", "ngram", "--device", "cuda", "--clock", "cpu",
                 "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "--clock cpu counts this process's CPU time" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(ValueError, match="--dtype must be one of"):
        BenchConfig(pair="toy", dtype="float8").check()


def test_a_proposers_own_flag_for_no_proposer_the_bench_runs_is_refused():
    """Read 44: `bench --proposers draft --layers 1` ran the draft model alone, dropped --layers, and still wrote
    `--layers 1` into the command its results.json records."""
    with pytest.raises(ValueError) as refused:
        BenchConfig(pair="toy", proposers=["draft"], proposer_settings={"layers": 1}).check()
    assert str(refused.value) == ("--layers 1 sets layerskip, which this bench does not run (draft): add it to "
                                  "--proposers, or drop --layers.")
    BenchConfig(pair="toy", proposers=["draft", "layerskip"], proposer_settings={"layers": 1}).check()
    BenchConfig(pair="toy", proposers=["draft"], proposer_settings={"layers": 0}).check()  # 0: the default


def test_a_cpu_clock_is_refused_when_the_pair_turns_out_to_be_on_a_gpu(monkeypatch):
    """The device may be picked automatically: the check runs again once the pair is loaded."""
    import specviz.labs.bench.runner as runner

    monkeypatch.setattr(runner, "pair_placement", lambda pair: {"device": "cuda:0", "dtype": "bfloat16"})
    with pytest.raises(ValueError, match="on cuda use --clock wall"):
        run_bench(BenchConfig(pair="toy", proposers=["ngram"], ks=[1], clock="cpu", cost_repeats=1),
                  pair=toy_pair())


def test_past_its_deadline_the_bench_starts_no_new_case_and_says_so():
    import time

    res = run_bench(BenchConfig(pair="toy", proposers=["ngram"], ks=[1], suites=["qa"], prompts_per_suite=2,
                                max_new_tokens=4, repeats=1, warmup=0, hf="none", cost_repeats=1),
                    pair=toy_pair(), deadline=time.monotonic() - 1)
    assert res.cases == [] and "2 of 2 prompt x temperature cases did not run" in res.notes[-1]


def test_the_bench_notes_say_their_counts_with_the_nouns_agreeing():
    """Read 44: the bench wrote "1 repeat(s) after 1 warm-up round(s)", "torch used 1 thread(s) on 2 visible
    core(s)" and "1 of 1 prompt x temperature cases did not run" into results.json; it writes plain English now, and
    results.md and the Speedup lab print an older run's notes in today's words (report.current_note)."""
    import time

    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench.report import current_note
    from specviz.labs.bench.runner import _notes

    machine = {"torch_threads": 1, "cores": 2, "device": "cpu", "dtype": "float32", "load_average_start": [0.1, 0, 0]}
    notes = _notes(machine, BenchConfig(**{**CONFIG, "repeats": 1, "warmup": 2}), trees=False)
    assert notes[0].endswith("medians over 1 repeat after 2 warm-up rounds.")
    assert notes[1] == "torch used 1 thread on 2 visible cores."
    res = run_bench(BenchConfig(pair="toy", proposers=["ngram"], ks=[1], suites=["qa"], prompts_per_suite=1,
                                max_new_tokens=4, repeats=1, warmup=0, hf="none", cost_repeats=1),
                    pair=toy_pair(), deadline=time.monotonic() - 1)
    assert res.notes[-1] == "Stopped at its time limit: 1 of 1 prompt x temperature case did not run."
    assert not [n for n in [*notes, *res.notes] if "(s)" in n]
    runs = sorted(BENCHMARKS_DIR.glob("**/results.json"))
    recorded = [n for run in runs for n in json.loads(run.read_text(encoding="utf-8"))["notes"]]
    assert len(runs) >= 10 and any("repeat(s)" in n for n in recorded)  # written by the old code, kept as measured
    assert not [n for n in recorded if "(s)" in current_note(n)]
    mds = sorted(BENCHMARKS_DIR.glob("*/results.md"))
    assert len(mds) >= 10 and not [md for md in mds if "(s)" in md.read_text(encoding="utf-8")]
    assert current_note("Stopped at its time limit: 1 of 1 prompt x temperature cases did not run.") == res.notes[-1]


@pytest.fixture(scope="module")
def tree_result():
    config = BenchConfig(pair="toy", proposers=["draft"], ks=[3], tree_nodes=[0, 8], tree_widths=[2],
                         temperatures=[0.0], suites=["qa"], prompts_per_suite=2, max_new_tokens=12, repeats=1,
                         warmup=0, threads=1, hf="greedy", cost_repeats=3, record_overhead=False)
    return run_bench(config, command="test", pair=toy_pair())


@pytest.mark.slow  # a bench of its own (about 3 s on 2 cores)
def test_a_tree_bench_reports_chain_and_tree_side_by_side_with_tokens_per_forward(tree_result):
    chain, tree = tree_result.shape_rows("draft", 0.0)
    assert (chain["tree_nodes"], tree["tree_nodes"], tree["tree_width"]) == (0, 8, 2)
    cases = [c for c in tree_result.cases if c["tree_nodes"] == 8]
    assert tree["mat_with_bonus"] == pytest.approx(sum(c["tokens"] for c in cases) / sum(c["steps"] for c in cases))
    assert tree["identical"] and chain["identical"]  # float32: greedy trees and chains equal target-only decoding
    assert tree["hf_assisted_speedup"] is None and chain["hf_assisted_speedup"] is not None  # no transformers twin
    assert tree_result.rows(proposer="draft", temperature=0.0) == [chain]  # the K charts keep to chains


@pytest.mark.slow  # a bench of its own (about 3 s on 2 cores)
def test_the_physical_limit_is_k_plus_one_tokens_over_the_verify_cost_of_the_tokens_fed(tree_result):
    curves = tree_result.verify_curves()
    assert set(curves) == {"float32", "bfloat16"} and tree_result.dtype == "float32"
    ratio = {p["n_tokens"]: p["ratio"] for p in curves["float32"]}
    assert {1, 2, 5, 9, 17, 33} <= set(ratio) and ratio[1] == 1.0 and 4 in ratio  # K + 1 = 4 fed by the chain
    chain, tree = tree_result.shape_rows("draft", 0.0)
    assert chain["physical_limit"] == pytest.approx(4 / ratio[4])  # 4 tokens per forward at most, 4 fed
    assert tree["physical_limit"] == pytest.approx(4 / ratio[9])  # the same 4 at most, 8 nodes + the root fed
    assert tree["fraction_of_limit"] == pytest.approx(tree["speedup_vs_ar"] / tree["physical_limit"])


@pytest.mark.slow  # a bench of its own (about 3 s on 2 cores)
def test_the_markdown_shows_trees_the_physical_limit_and_both_verify_curves(tree_result):
    from specviz.labs.bench import markdown_report

    text = markdown_report(tree_result)
    assert "| draft | constant | 3 | 8×2 | 0 |" in text and "| draft | constant | 3 | chain | 0 |" in text
    assert "## Physical limit" in text and "## Verify cost by dtype" in text
    assert "| float32 |" in text and "| bfloat16 |" in text


def test_the_markdown_marks_a_tree_rows_alpha_column_as_not_alpha():
    """Issue 43, ninth read: results.md wrote a tree row's "alpha" under the α heading like a chain's, though it is
    the mean min(1, p′/q′) along each step's main line (DEFINITIONS["alpha"]); the committed speed-targets run's
    16×4 + 8 tree showed 0.72 as α next to its chain's 0.53. A tree row's cell is marked † and a note says what it is."""
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench import markdown_report

    text = markdown_report(BenchResult.load(BENCHMARKS_DIR / "default-cpu-bf16-tree" / "results.json"))
    table = [line for line in text.splitlines() if line.startswith("| eagle | constant | 4 |")]
    trees = [line for line in table if "| 16×4 + 8 |" in line]
    chains = [line for line in table if "| chain |" in line]
    assert len(trees) == 2 and len(chains) == 2
    assert all(line.split(" | ")[5].endswith("†") for line in trees)
    assert not any(line.split(" | ")[5].endswith("†") for line in chains)
    assert "† A tree row's value in the α estimate column is the mean min(1, p′/q′) along each step's main line" in text


def test_every_committed_results_md_marks_its_tree_rows_alpha_cells():
    """The committed results.md files were written before the † existed: each is the report code's markdown of its
    results.json (plus the hand-written notes on schema-1 tree rows, assets/benchmarks/README.md), so each tree row's
    α cell carries the † and the file says what it means."""
    from specviz.core.paths import BENCHMARKS_DIR

    trees = 0
    for path in sorted(BENCHMARKS_DIR.glob("*/results.md")):
        text = path.read_text(encoding="utf-8")
        table = text.split("## All suites", 1)[1].split("\n## ", 1)[0].splitlines()
        header = next(line for line in table if line.startswith("| proposer |")).split(" | ")
        alpha, tree = next(i for i, c in enumerate(header) if c.startswith("α")), header.index("tree")
        for row in (line.split(" | ") for line in table if line.startswith("| ") and "---" not in line):
            if row[0] == "| proposer":
                continue
            if row[tree] != "chain":
                trees += 1
                assert row[alpha].endswith("†"), (path.parent.name, row)
            else:
                assert not row[alpha].endswith("†"), (path.parent.name, row)
        if "†" in text:
            assert "† A tree row's value in the α estimate column is the mean min(1, p′/q′)" in text, path.parent.name
    assert trees >= 20  # six committed runs hold 30 tree rows (2026-12-05)


def test_the_best_configuration_table_names_a_tree_as_a_tree():
    """Issue 43, tenth read: "Best configuration per category" wrote the 16×4 + 8 tree of the committed
    speed-targets run as "eagle constant K=4", which reads as the chain of 4 (1.59×, not the 1.79× shown)."""
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench import markdown_report

    path = BENCHMARKS_DIR / "default-cpu-bf16-tree" / "results.json"
    text = markdown_report(BenchResult.load(path))
    assert "| held-out | 0 | eagle constant K=4, tree 16×4 + 8 | 1.79× |" in text
    assert "| held-out | 0 | eagle constant K=4, tree 16×4 + 8 |" in path.with_name("results.md").read_text()


def test_a_tree_acceptance_rate_is_defined_as_no_estimate_of_alpha_and_results_md_say_so():
    """Issue 43, thirteenth read: the definition said a tree's accepted / drafted "sits far below α"; no bound ties
    the two (a step keeps at most one path of the nodes counted, so the rate follows the tree's shape), and in the
    one committed v2 run with trees it reads far below the chains' α. Every committed results.md carries the
    current definitions."""
    from specviz.core.paths import BENCHMARKS_DIR

    meaning = DEFINITIONS["acceptance_rate"][1]
    assert "far below" not in meaning and "no estimate of α" in meaning
    current = "".join(f"- **{label}**: {text}\n" for label, text in DEFINITIONS.values())
    mds = sorted(BENCHMARKS_DIR.glob("*/results.md"))
    assert len(mds) >= 10
    for md in mds:
        assert md.read_text().partition("## Definitions\n\n")[2] == current, md.parent.name
    medusa = BenchResult.load(BENCHMARKS_DIR / "default-cpu-f32-medusa" / "results.json")
    for temperature in (0.0, 0.7):
        for proposer in ("eagle", "medusa"):
            rows = [r for r in medusa.summary if r["suite"] == "all" and r["proposer"] == proposer
                    and r["temperature"] == temperature]
            tree_rate = max(r["acceptance_rate"] for r in rows if r["tree_nodes"])
            assert tree_rate < 0.5 * min(r["alpha"] for r in rows if not r["tree_nodes"])


def test_a_shared_machines_load_average_is_written_as_numbers():
    """Issue 43, thirteenth read: the bench note, results.md and the model cards printed the end's load average as
    Python's list of the three os.getloadavg() figures; they now print its 1-minute figure, as at the start."""
    from specviz.core.paths import ASSETS, BENCHMARKS_DIR
    from specviz.distill.cards import bench_note
    from specviz.labs.bench.runner import _notes

    machine = {"torch_threads": 1, "cores": 2, "device": "cpu", "dtype": "float32", "load_average_start": [1.5, 1.2, 1.0],
               "load_average_end": [2.03, 2.01, 1.93]}
    config = BenchConfig(**CONFIG)
    assert any("was 1.5 at the start and 2.03 at the end, on 2 cores" in n
               for n in _notes(machine, config))
    assert "was 2.4 at the start and 2.01 at the end, on 2 cores" in bench_note(
        BENCHMARKS_DIR / "default-cpu-bf16-tree" / "results.json")
    files = [*BENCHMARKS_DIR.glob("*/results.md"), *(ASSETS / "models").glob("*/README.md")]
    assert files and not [f for f in files if "at the start, [" in f.read_text()]


def test_a_busy_start_is_not_called_another_process():
    """The 26th read: every committed run's note said "The machine was shared", inferred from a 1-minute load
    average over half the cores at its start, which counts the command's own work before it (targets_bench
    calibrates first), so README's "nothing else running" runs read as shared. The note says what the load shows,
    in the files written since and, through current_note, in every committed results.md and card."""
    from specviz.core.paths import ASSETS, BENCHMARKS_DIR
    from specviz.labs.bench.report import LOAD_NOTE, current_note, is_load_note
    from specviz.labs.bench.runner import _notes

    quiet = {"torch_threads": 1, "cores": 2, "device": "cpu", "dtype": "float32", "load_average_start": [0.9, 1, 1]}
    assert not any(is_load_note(n) for n in _notes(quiet, BenchConfig(**CONFIG)))  # at most half the cores: no note
    busy = [n for n in _notes({**quiet, "load_average_start": [1.04, 1, 1]}, BenchConfig(**CONFIG)) if is_load_note(n)]
    assert busy == [LOAD_NOTE.format(start=1.04, end="unknown", cores="2 cores")] and "this command's own" in busy[0]
    files = [*BENCHMARKS_DIR.glob("*/results.md"), *(ASSETS / "models").glob("*/README.md")]
    assert len(files) >= 10 and not [f for f in files if "machine was shared (load" in f.read_text()]
    for md in BENCHMARKS_DIR.glob("*/results.md"):  # each as its results.json's note prints today
        run = json.loads(md.with_name("results.json").read_text(encoding="utf-8"))
        for note in run["notes"]:
            if is_load_note(note):
                assert f"- {current_note(note, run['machine']['cores'])}" in md.read_text(encoding="utf-8"), md


def test_the_bench_refuses_a_temperature_its_runs_would_refuse_before_loading_a_model():
    """Issue 43, thirteenth read: the bench's check said "Temperatures must be numbers from 0 to 10" while every case
    runs through RunSpec, which takes 0 to 2: a temperature of 5 passed the check, loaded the pair and then failed."""
    from specviz.engine.limits import TEMPERATURE_RANGE
    from specviz.runs.runspec import SETTINGS

    assert SETTINGS["temperature"].bounds == TEMPERATURE_RANGE == (0.0, 2.0)
    BenchConfig(**{**CONFIG, "temperatures": [2.0]}).check()
    with pytest.raises(ValueError, match=r"^--temperatures must be numbers from 0 to 2 \(got 5\)\.$"):
        BenchConfig(**{**CONFIG, "temperatures": [5]}).check()


def test_the_policy_k_help_says_what_each_policy_does_with_it():
    """make_policy ignores K for "optimal" (it starts at optimal_k of its prior α and the measured c, bounded by the
    run's k_max), so --policy-k is not "the K adaptive policies start at" for every policy."""
    import argparse

    from specviz.engine.policies import make_policy
    from specviz.labs.bench.cli import add_bench_arguments

    parser = argparse.ArgumentParser()
    add_bench_arguments(parser)
    text = next(a.help for a in parser._actions if "--policy-k" in a.option_strings)
    assert "adaptive policies start at" not in text and "optimal policy picks its own K" in text
    assert make_policy("optimal", 2, k_max=8, c=0.05).next_k() == make_policy("optimal", 6, k_max=8, c=0.05).next_k()
    assert make_policy("heuristic", 2).next_k() == 2 and make_policy("heuristic", 6).next_k() == 6


def test_the_policy_k_help_names_what_bounds_the_optimal_policy():
    """Read 48: the help said the optimal policy picks its K "up to the largest K of the run", but its cap is
    BenchConfig.k_max, which counts --policy-k too: `--k 2 --policies constant optimal` runs no K above 2 and lets the
    optimal policy draft up to 4 (the default --policy-k)."""
    import argparse

    from specviz.labs.bench.cli import add_bench_arguments

    parser = argparse.ArgumentParser()
    add_bench_arguments(parser)
    text = " ".join(next(a.help for a in parser._actions if "--policy-k" in a.option_strings).split())
    assert BenchConfig(**{**CONFIG, "ks": [2], "policies": ["constant", "optimal"], "policy_k": 4}).k_max == 4
    assert "up to the largest K of the run" not in text
    assert "up to the largest of the run's K values and --policy-k" in text


def test_results_md_does_not_say_every_policy_starts_at_the_same_k():
    """Issue 43, fourteenth read: results.md headed its policy table "all start at the same K", but the optimal policy
    ignores --policy-k (make_policy) and starts at optimal_k of its prior α and the measured c."""
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench.report import POLICIES_HEADING

    assert "optimal picks its own K" in POLICIES_HEADING
    with_policies = [p for p in sorted(BENCHMARKS_DIR.glob("*/results.md")) if "## Draft-length policies" in p.read_text()]
    assert len(with_policies) >= 3
    for path in with_policies:
        text = path.read_text(encoding="utf-8")
        assert "all start at the same K" not in text and POLICIES_HEADING in text, path.parent.name


def test_bench_threads_zero_is_torchs_choice_as_its_flag_says(tmp_path):
    """threads_arg (the --threads type) reads 0 as torch's choice, and its own error says "from 0 (torch's choice)";
    the bench passed the 0 on and BenchConfig.check refused it ("--threads must be a whole number from 1 to 256")."""
    import argparse

    from specviz.labs.bench.cli import add_bench_arguments, config_from_args

    parser = argparse.ArgumentParser()
    add_bench_arguments(parser)
    config = config_from_args(parser.parse_args(["--pair", "toy", "--proposers", "ngram", "--threads", "0"]))
    assert config.threads is None
    config.check()
    assert config_from_args(parser.parse_args(["--pair", "toy", "--proposers", "ngram", "--threads", "2"])).threads == 2


def test_the_share_of_the_physical_limit_names_the_benchmarks_machine():
    """Issue 43, fourteenth read: the definition said what the shape "could ever give on this machine", but the Speedup
    lab shows committed runs from other machines; the limit is the machine that ran the benchmark's."""
    meaning = DEFINITIONS["fraction_of_limit"][1]
    assert "this machine" not in meaning and "the machine that ran the benchmark" in meaning


def test_the_mean_accepted_length_is_not_called_vllms_number():
    """Issue 43, fourteenth read: the definition said vLLM calls "the same number" its 'mean acceptance length', but
    vLLM's is 1 + accepted / steps that drafted (its observe_draft skips a step with no drafts), while specviz's
    counts every target forward. The committed serving sweep shows the gap for n-gram lookup."""
    import json

    from specviz.core.paths import BENCHMARKS_DIR

    meaning = DEFINITIONS["mat_with_bonus"][1]
    assert "the same number #MAT, vLLM" not in meaning and "steps that drafted" in meaning
    sweep = json.loads((BENCHMARKS_DIR / "serving" / "cpu-smollm2.json").read_text())
    copy = next(row for row in sweep["specviz"] if row["prompt"] == "copy" and row["proposer"] == "ngram")
    assert copy["mean_accepted_length_drafted_steps"] > copy["mean_accepted_length"]


def test_the_per_position_definition_in_every_committed_report_is_the_codes_and_true():
    """The definition under "Acceptance by position" (read 48: "by draft position" before) said the entries "fall
    with i". Each entry has its own denominator (the steps that drafted at least i tokens), so a later entry can read
    higher: two steps that drafted 3 tokens and kept all 3, one that drafted 1 and kept none give 2/3, then 2/2, then
    2/2."""
    from types import SimpleNamespace

    from specviz.engine.trace import Trace
    from specviz.labs.bench.report import PER_POSITION_NOTE

    steps = [SimpleNamespace(draft_depth=3, n_accepted=3)] * 2 + [SimpleNamespace(draft_depth=1, n_accepted=0)]
    rates = Trace.per_position_acceptance.fget(SimpleNamespace(steps=steps))
    assert rates == pytest.approx([2 / 3, 1.0, 1.0])
    assert rates[1] > rates[0] and "can read higher than the one before it" in PER_POSITION_NOTE
    reports = sorted((Path(__file__).resolve().parents[2] / "assets" / "benchmarks").glob("*/results.md"))
    with_section = [r for r in reports if "## Acceptance by position (all suites)" in r.read_text(encoding="utf-8")]
    assert len(with_section) >= 10, [r.parent.name for r in reports]
    stale = [r.parent.name for r in with_section if PER_POSITION_NOTE not in r.read_text(encoding="utf-8")
             or "fall with i" in r.read_text(encoding="utf-8")]
    assert stale == [], f"results.md files whose per-position definition is not the report's: {stale}"


def test_the_verify_cost_table_heads_its_row_with_the_tokens_fed_in_every_report(result):
    """Read 44: the Costs table of results.md headed its n with "tokens verified", where n is the tokens one forward
    is fed (K + 1 for a chain of K); the glossary's name, and the app's, is "tokens fed". The report and every
    committed results.md say "tokens fed"."""
    from specviz.labs.bench.report import markdown_report

    report = markdown_report(result)
    assert "| tokens fed | " in report and "tokens verified" not in report
    reports = sorted((Path(__file__).resolve().parents[2] / "assets" / "benchmarks").glob("*/results.md"))
    with_costs = [r for r in reports if "| time / one-token forward |" in r.read_text(encoding="utf-8")]
    assert len(with_costs) >= 10
    assert [r.parent.name for r in with_costs if "| tokens fed | " not in r.read_text(encoding="utf-8")
            or "tokens verified" in r.read_text(encoding="utf-8")] == []


def test_the_record_overhead_is_defined_as_what_the_bench_measures(result):
    """Issue 43, 17th read: the definition said "time with the full trace recorded over time without, minus 1,
    measured at one K per proposer (the policies' K)", which left out that the recorded side is one run against the
    median of the --repeats runs, that the K falls back to the first K given, that only chains are measured, and
    that a row holds the mean over its prompts. The cases that carry it are exactly those, and the text says so."""
    measured = [c for c in result.cases if c["record_overhead"] is not None]
    shapes = {(c["policy"], c["k"], c["tree_nodes"]) for c in measured}
    assert measured and shapes == {("constant", 1, 0)}  # --policy-k 2 is not among the Ks: the first K, 1
    assert {(c["proposer"], c["temperature"]) for c in measured} == {(p, t) for p in ("draft", "ngram") for t in (0, 1)}
    for row in (r for r in result.summary if r["record_overhead"] is not None):
        group = [c["record_overhead"] for c in measured if (c["proposer"], c["temperature"], c["k"])
                 == (row["proposer"], row["temperature"], row["k"]) and row["suite"] in ("all", c["suite"])]
        assert row["record_overhead"] == pytest.approx(sum(group) / len(group))
    meaning = DEFINITIONS["record_overhead"][1]
    for phrase in ("one run that records the full trace", "median time of the --repeats runs", "the first K given",
                   "mean over its prompts"):
        assert phrase in meaning
    from specviz.labs.bench import markdown_report

    assert "one run with the full trace recorded over the median of the runs without it" in markdown_report(result)


def test_the_policy_table_compares_the_policies_with_the_chain_of_k0_not_a_tree():
    """Issue 43, 17th read: results.md's policy table read "constant" from every constant row of K₀, so a run with a
    tree at --policy-k showed the tree's speedup under "constant" (on the committed tree run's rows: 1.79× for the
    16×4 + 8 tree instead of the chain's 1.59×) and could name "constant" the winner."""
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench import markdown_report

    result = BenchResult.load(BENCHMARKS_DIR / "default-cpu-bf16-tree" / "results.json")
    rows = [r for r in result.summary if r["suite"] == "all" and r["temperature"] == 0 and r["k"] == 4]
    chain = next(r for r in rows if not r.get("tree_nodes"))
    tree = next(r for r in rows if r.get("tree_nodes"))
    assert tree["speedup_vs_ar"] > chain["speedup_vs_ar"] + 0.1
    result.summary = [chain, tree, {**chain, "policy": "heuristic", "speedup_vs_ar": chain["speedup_vs_ar"] + 0.1}]
    line = next(x for x in markdown_report(result).splitlines() if x.startswith("| all | eagle | 0 |"))
    assert line.split(" | ")[3] == f"{chain['speedup_vs_ar']:.2f}×" and "heuristic K₀=4" in line


def test_a_report_defines_acceptance_by_position_with_one_numbering():
    """Issue 43, 18th read: every results.md defined "Entry i" twice, under its table as "at least i tokens" (the
    first entry is i = 1) and in its Definitions as "at least i+1 tokens", so the same entry read as two quantities.
    Both now count from 1, and a summary row's first entry is first-position acceptance (steps that drafted 1+)."""
    from specviz.labs.bench.report import PER_POSITION_NOTE
    from specviz.labs.bench.summary import summarise

    meaning = DEFINITIONS["per_position"][1]
    for text in (meaning, PER_POSITION_NOTE):
        assert "at least i tokens" in text and "first i drafts" in text and "i+1" not in text
    case = {"suite": "s", "proposer": "p", "policy": "constant", "k": 2, "temperature": 0.0, "c": 0.1, "alpha": 0.5,
            "tokens": 5, "steps": 3, "drafted": 6, "accepted": 2, "seconds": 1.0, "draft_ms": 1.0, "verify_ms": 1.0,
            "overhead_ms": 1.0, "position_drafted": [3, 3], "position_survived": [2, 0], "record_overhead": None,
            "identical": None, "hf_assisted_identical": None}
    row = next(r for r in summarise([case], [], {"verify": [{"n_tokens": 1, "ratio": 1.0}]}) if r["suite"] == "all")
    assert row["per_position"] == [2 / 3, 0.0]  # entry 1: of 3 steps that drafted 1+, 2 kept their first draft
    mds = sorted((Path(__file__).resolve().parents[2] / "assets" / "benchmarks").glob("*/results.md"))
    assert len(mds) >= 10 and not [md.parent.name for md in mds if "at least i+1" in md.read_text(encoding="utf-8")]


def test_every_results_md_says_how_its_command_would_run_as_it_ran():
    """Issue 43, 20th read: each results.md quoted its run's recorded command as the one that reproduces it, but typed
    today the first CPU runs' commands pack the kernels for oneDNN (they ran stock), take bfloat16 on a CPU with bf16
    instructions (they ran float32), default-cpu-ngram's runs the held-out and everyday suites too, and the runs
    before 2026-12-02 draft their eagle rows with the EAGLE-3 drafter (they had EAGLE-1). report.rerun_lines says so
    under the command (also a GPU check's command and a run's kernel caps), and every committed results.md carries
    its lines."""
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench.report import rerun_lines

    said = {}
    for path in sorted(BENCHMARKS_DIR.glob("**/results.json")):
        if not path.with_name("results.md").exists():
            continue  # a GPU check's bench rerun keeps only its results.json
        result = BenchResult.load(path)
        lines = [line for line in rerun_lines(result) if line]
        text = path.with_name("results.md").read_text(encoding="utf-8")
        assert all(line in text for line in lines), path.parent.name
        said[path.parent.name] = " ".join(lines)
    assert len(said) >= 10
    assert "SPECVIZ_KERNELS=stock" in said["default-cpu-ngram"] and "--dtype float32" in said["default-cpu-ngram"]
    assert "--suites chat code math qa rewrite translation" in said["default-cpu-ngram"]
    assert "the first EAGLE-1 drafter (commit 35ce4c2)" in said["default-cpu-drafts"]
    assert "the first EAGLE-1 drafter (commit 35ce4c2)" in said["default-cpu-bf16-trees"]
    assert "SPECVIZ_KERNELS=stock" in said["default-cpu-bf16-tree"] and "EAGLE-1" not in said["default-cpu-bf16-tree"]
    assert said["default-cpu-f32-packed"] == ""  # --dtype float32, packed kernels, its suite named, EAGLE-3
    # the 26th read: a GPU check's command was never typed, and a capped run's caps were in its environment
    assert said["default-h200-bf16"].startswith("The GPU check") and "over 10 rounds" in said["default-h200-bf16"]
    assert "`ONEDNN_MAX_CPU_ISA=AVX2 " in said["default-cpu-f32-avx2cap"]


def test_a_capped_runs_rerun_line_names_its_caps_not_kernels_dtype_or_suites():
    """Read 44: results.md's line under a run's command said typing it today would run "with other defaults than this
    run had (its kernels, dtype or suites)" for default-cpu-f32-avx2cap, whose only difference is the instruction-set
    caps its environment set (machine.isa_limits). The line now names those caps with their values; a run whose
    command misses its kernels, dtype or suites keeps the list."""
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench.report import rerun_lines

    capped = BenchResult.load(BENCHMARKS_DIR / "default-cpu-f32-avx2cap" / "results.json")
    caps = [f"{name}={value}" for name, value in capped.machine["isa_limits"].items()]
    assert len(caps) == 3
    line = rerun_lines(capped)[0]
    assert line.startswith("Typed today, the command above would run without the instruction-set caps this run had "
                           f"in its environment ({caps[0]}, {caps[1]} and {caps[2]}); with the ones it had: `")
    assert "kernels, dtype or suites" not in line
    assert line in (BENCHMARKS_DIR / "default-cpu-f32-avx2cap" / "results.md").read_text(encoding="utf-8")
    ngram = rerun_lines(BenchResult.load(BENCHMARKS_DIR / "default-cpu-ngram" / "results.json"))[0]
    assert "would run with other defaults than this run had (its kernels, dtype or suites); " in ngram
    assert "instruction-set caps" not in ngram


def test_a_command_that_ran_todays_suites_gets_no_suites_flag():
    """Final review: results.md's rerun command added --suites to every command that named none, while the pages
    noted the suites only when today's default runs another set. Typed today, a command that ran every suite there is
    runs them again, so neither says so now: report.rerun_differences decides for both, the pages' notes
    (ui.common.bench_results.command_notes), results.md's lines and the cards' commands."""
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench.report import (DtypeDefault, StockKernels, SuitesDefault, rerun_command,
                                           rerun_differences)

    ngram = BenchResult.load(BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")  # named no --suites, no --dtype
    ran = tuple(s["name"] for s in ngram.suites)
    same = rerun_differences(ngram, today_suites=list(reversed(ran)))
    assert same == [DtypeDefault("float32"), StockKernels()]
    assert "--suites" not in rerun_command(ngram, same) and "--dtype float32" in rerun_command(ngram, same)
    today = tuple(suite.name for suite in load_suites())
    assert set(today) > set(ran)  # held-out and everyday came after it
    assert rerun_differences(ngram)[2:] == [SuitesDefault(ran, today)]
    assert f"--suites {' '.join(ran)} --out " in rerun_command(ngram)


def test_one_rule_says_which_kernels_a_run_ran():
    """Final review: the roofline's `run_kernels` dated a run against the packing (ce0deb7, 11:58 UTC) while the
    rerun notes' `ran_stock_kernels` took a missing `kernels` record for stock kernels; the record names them only
    from 11301c3 (12:30 UTC), so a CPU run in between packed and records none. Both now read report.run_kernels."""
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs import roofline
    from specviz.labs.bench.report import ran_stock_kernels, run_kernels

    assert roofline.run_kernels is run_kernels
    between = {"device": "cpu", "date": "2026-12-03T12:10:00Z"}  # packed, not recorded
    before = {"device": "cpu", "date": "2026-12-01T00:23:26Z"}
    assert (run_kernels(between), ran_stock_kernels(between)) == ("?", False)
    assert (run_kernels(before), ran_stock_kernels(before)) == ("stock", True)
    assert (run_kernels({"device": "cpu"}), ran_stock_kernels({"device": "cpu"})) == ("?", False)  # no date, no claim
    gpu = {**before, "gpu": "NVIDIA H200", "device": "cuda:0"}  # stock then and today: nothing to add
    assert (run_kernels(gpu), ran_stock_kernels(gpu)) == ("stock", False)
    stock = {path.parent.name for path in BENCHMARKS_DIR.glob("*/results.json")
             if ran_stock_kernels(BenchResult.load(path).machine)}
    assert stock == {"default-cpu-ngram", "default-cpu-layerskip", "default-cpu-drafts", "default-cpu-bf16-trees",
                     "default-cpu-bf16-tree"}


def test_a_tree_row_never_pools_with_the_chain_of_its_k():
    """summarise's docstring: cases pool per suite, proposer, policy, K, temperature and tree shape. The committed
    float32 run drafted a chain and a 16-node tree at K = 4: pooled again, they stay two rows."""
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench.summary import summarise

    data = json.loads((BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json").read_text(encoding="utf-8"))
    rows = [r for r in summarise(data["cases"], data["baselines"], data["costs"])
            if r["suite"] == "all" and r["k"] == 4 and r["temperature"] == 0]
    assert sorted(r["tree_nodes"] for r in rows) == [0, 16]
    assert len({r["mat_with_bonus"] for r in rows}) == 2


def test_the_best_in_one_suite_is_a_chain_even_where_a_tree_was_faster():
    """best_in_one_suite's docstring: it picks among chains (rows leaves trees out). In the committed float32 run the
    greedy 8-node tree with a lookup branch beat every chain on the held-out suite, and the chain is still picked."""
    from specviz.core.paths import BENCHMARKS_DIR

    result = BenchResult.load(BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    top = result.best_in_one_suite("eagle", 0.0)
    trees = [r for r in result.rows(suite="held-out", proposer="eagle", temperature=0.0, trees=True)
             if r.get("tree_nodes")]
    assert top is not None and not top.get("tree_nodes")
    assert max(r["speedup_vs_ar"] for r in trees) > top["speedup_vs_ar"]


def test_accepted_per_step_is_not_said_to_be_the_mean_accepted_length_minus_one_everywhere():
    """Issue 43, 23rd read: the definitions said accepted drafts per step is "the mean accepted length minus one" and
    the mean accepted length "the mean of accepted drafts + the recovered or bonus token"; the n-gram run's table
    shows 1.18 next to 0.21. A run that ends at a kept end-of-text draft emits no token after it, and before
    c11cd08 drafts past that token were kept and counted but never emitted: tokens < steps + accepted there."""
    from specviz.core.paths import BENCHMARKS_DIR

    assert "the mean accepted length minus one (0.0" not in DEFINITIONS["mat_without_bonus"][1]
    assert "except where a run ends at a kept end-of-text draft" in DEFINITIONS["mat_without_bonus"][1]
    assert DEFINITIONS["mat_with_bonus"][1].startswith("Tokens per target forward: the tokens emitted over the")
    ngram = BenchResult.load(BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    gaps = [r["mat_without_bonus"] - (r["mat_with_bonus"] - 1) for r in ngram.summary if r["suite"] == "all"]
    assert gaps and max(gaps) > 0.02
    for case in ngram.cases:
        assert case["tokens"] <= case["steps"] + case["accepted"]


def test_the_tree_note_follows_the_shapes_a_run_runs():
    """The 26th read: the note on tree rows was written when --tree-nodes named a tree, so a run given its shapes
    with --shapes got it or not by the default --tree-nodes, not by whether it ran a tree."""
    from specviz.engine.draft_shape import DraftShape
    from specviz.labs.bench.report import TREE_NOTE
    from specviz.labs.bench.runner import _notes

    machine = {"torch_threads": 1, "cores": 2, "device": "cpu", "dtype": "float32"}
    chains = BenchConfig(**{**CONFIG, "tree_nodes": [16], "draft_shapes": [DraftShape(2), DraftShape(4)]})
    tree = BenchConfig(**{**CONFIG, "tree_nodes": [0], "draft_shapes": [DraftShape(2), DraftShape(3, 8, 4, 8)]})
    assert TREE_NOTE not in _notes(machine, chains) and TREE_NOTE in _notes(machine, tree)
    assert TREE_NOTE in _notes(machine, BenchConfig(**{**CONFIG, "tree_nodes": [0, 16]}))
    assert TREE_NOTE not in _notes(machine, BenchConfig(**{**CONFIG, "tree_nodes": [0]}))


def test_a_bench_with_no_shape_flag_runs_the_shape_chosen_for_its_own_proposer(monkeypatch):
    """Issue 43, 27th read: `python -m specviz bench --proposers ngram` with no shape flag ran the shape calibrated for
    the EAGLE drafter (tree 8x4 + lookup 8 on the AMD EPYC) and said "draft shape for this machine ... (python -m
    specviz calibrate shows why)", where `calibrate --proposer ngram` says the pair has no table for it and runs keep
    the recommended shape, as `generate` does. The bench now chooses for its proposer, and says which case it is."""
    from types import SimpleNamespace

    from specviz.engine.draft_shape import DraftShape
    from specviz.labs import shape_choice
    from specviz.labs.bench.cli import default_shape
    from specviz.models.catalog import recommended_for

    asked = []
    monkeypatch.setattr(shape_choice, "choose_shape",
                        lambda pair, temperature, proposer=None: asked.append(proposer) or "calibrated")
    default = SimpleNamespace(name="default", default_proposer="eagle")
    for proposer in ("draft", "medusa", "layerskip"):
        assert default_shape(default, 0.0, [proposer]) == (recommended_for("default").shape, False)
    # n-gram lookup drafts no tree: the chain of the recommended K, which is what runs (read 44)
    assert default_shape(default, 0.0, ["ngram"]) == (DraftShape(recommended_for("default").shape.k), False)
    assert default_shape(default, 0.0, ["eagle"]) == ("calibrated", True)
    assert default_shape(default, 0.7, ["eagle", "draft"]) == ("calibrated", True)  # several: the pair's own
    assert asked == ["eagle", "eagle"]


def test_quoted_figures_from_a_result_without_those_fields_are_one_sentence(tmp_path):
    """quoted's docstring: a file the figures cannot be read from is a ValueError with one sentence; a results.json
    with no summary or no costs raised a bare KeyError ('summary', 'costs')."""
    from specviz.labs.bench import quoted
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "results.json").write_text('{"machine": {}}', encoding="utf-8")
    for ask in (lambda: quoted.speedup_range("bare", "ngram", root=tmp_path),
                lambda: quoted.verify_range("bare", root=tmp_path),
                lambda: quoted.draft_cost("bare", "draft", root=tmp_path)):
        with pytest.raises(ValueError, match="The benchmark bare"):
            ask()


@pytest.mark.parametrize("bad", [{"max_new_tokens": 3.5}, {"max_new_tokens": "5"}, {"threshold": "x"},
                                 {"tree_nodes": [True]}, {"tree_nodes": [4], "tree_lookup": True}])
def test_bench_config_refuses_every_bad_value_in_one_sentence(bad):
    """BenchConfig says check() turns any bad value into a ValueError with one sentence: 3.5 new tokens and True as
    a node budget were accepted, and a string compared with a number raised a TypeError."""
    with pytest.raises(ValueError, match="must be"):
        BenchConfig(**{**CONFIG, **bad}).check()


def test_the_recorded_bench_command_keeps_every_digit_of_a_float():
    """command_line's docstring: the command that reproduces the run. It wrote floats with {:g} (six digits), so a
    run at T = 0.1234567 or threshold 0.33333333 recorded a command that runs another temperature and threshold."""
    from specviz.labs.bench.cli import command_line
    config = BenchConfig(**{**CONFIG, "temperatures": [0.0, 0.1234567], "policies": ["constant", "threshold"],
                            "threshold": 0.33333333})
    line = command_line(config)
    assert "--temperatures 0 0.1234567 " in line and "--threshold 0.33333333" in line


@pytest.mark.parametrize("damage", [{"summary": None}, {"summary": [{}]}, {"config": {}}, {"machine": None},
                                    {"costs": None}, {"notes": None}, {"suites": [1]}, {"summary": "x"}])
def test_a_damaged_result_is_refused_in_one_sentence(damage):
    """load_result promises a bad file is a ValueError with one sentence; these parts of the right names but the
    wrong kinds loaded and then ended in a KeyError or TypeError in markdown_report or on the Speedup lab."""
    data = json.loads((BENCHMARKS_DIR / "default-cpu-bf16-packed" / "results.json").read_text(encoding="utf-8"))
    row = {**data["summary"][0], "temperature": None}
    for bad in (damage, {"summary": [row]}):
        with pytest.raises(ValueError, match=r"^This benchmark file is damaged or incomplete \(.*\)\.$"):
            BenchResult.from_dict({**data, **bad})
    markdown_report(BenchResult.from_dict(data))  # the committed file itself still reads


def _damaged(path: tuple, value: object) -> dict:
    data = json.loads((BENCHMARKS_DIR / "default-cpu-bf16-packed" / "results.json").read_text(encoding="utf-8"))
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    if value == "del":
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return data


@pytest.mark.parametrize("path, value", [
    (("machine", "torch_threads"), None), (("machine", "date"), -1), (("machine", "cores"), "x"),
    (("costs", "target_forward_seconds"), "x"), (("costs", "verify"), None), (("costs", "verify"), []),
    (("summary", 0, "speedup_vs_ar"), "x"),
    (("summary", 0, "per_position"), None), (("summary", 0, "proposer"), "x"), (("extra",), 1),
    (("machine", "torch"), None), (("config", "max_new_tokens"), "x"), (("costs", "verify", 0, "ratio"), 0),
    (("summary", 0, "speedup_vs_ar"), "del")])
def test_a_result_whose_figures_are_of_the_wrong_types_is_one_sentence(path, value):
    """Each of these loaded, then the Speedup lab raised a TypeError or KeyError (or drew an empty chart for a
    proposer with no pooled row), an empty verify curve an IndexError, a ratio of 0 the formula's ValueError; an
    unknown top-level field was refused with Python's "BenchResult.__init__() got an unexpected keyword argument"
    inside the sentence (30th read)."""
    with pytest.raises(ValueError, match=r"^This benchmark file is damaged or incomplete \(.*\)\.$") as refused:
        BenchResult.from_dict(_damaged(path, value))
    assert "__init__" not in str(refused.value)


def test_a_damaged_result_is_refused_in_the_readers_language():
    """The problem inside the sentence was English on a Portuguese page ("config has no pair"), and a missing part
    was Python's "BenchResult.__init__() missing 1 required positional argument" (30th read)."""
    from specviz.core.i18n import using

    data = _damaged(("config",), {})
    with using("pt"), pytest.raises(ValueError) as refused:
        BenchResult.from_dict(data)
    assert str(refused.value) == "Este arquivo de benchmark está danificado ou incompleto (config não tem par)."
    del data["costs"]
    with using("pt"), pytest.raises(ValueError, match=r"^Este arquivo .* \(sem costs\)\.$"):
        BenchResult.from_dict(data)


@pytest.mark.parametrize("text", ["[" * 50_000, '{"schema": ' + "1" * 5000 + "}", "\udcff"])
def test_an_unreadable_result_file_is_one_sentence(tmp_path, text):
    """JSON nested 50,000 deep raised a RecursionError out of load, and a 5,000-digit integer Python's "Exceeds the
    limit (4300 digits) for integer string conversion ..." (30th read)."""
    path = tmp_path / "results.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(ValueError, match=rf"^The benchmark folder '{tmp_path.name}' is incomplete: its results.json is "
                                         r"cut short or damaged, .*; run the bench into that folder again\.$"):
        BenchResult.load(path)
    other = tmp_path / "mine.json"  # a file not named results.json is no run's folder: it is named itself
    other.write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(ValueError, match=r"^Cannot read a benchmark result from '.*mine.json'\.$"):
        BenchResult.load(other)


@pytest.mark.parametrize("cut", ["half", "no summary"])
def test_a_folder_a_stopped_run_left_is_named_as_incomplete_in_one_sentence(tmp_path, cut):
    """Read 48: a run's folder whose results.json is cut short (a run stopped mid-write, a partial copy) read
    "Cannot read a benchmark result from '<the full path>'", and one that lacks a part "This benchmark file is
    damaged or incomplete (summary is not a list)", neither naming the folder. Both name it as incomplete now."""
    text = (BENCHMARKS_DIR / "default-cpu-bf16-packed" / "results.json").read_text(encoding="utf-8")
    if cut == "no summary":
        data = json.loads(text)
        del data["summary"]
        text = json.dumps(data)
    folder = tmp_path / "killed-run"
    folder.mkdir()
    (folder / "results.json").write_text(text[: len(text) // 2] if cut == "half" else text, encoding="utf-8")
    with pytest.raises(ValueError) as refused:
        BenchResult.load(folder / "results.json")
    said = str(refused.value)
    assert said.startswith("The benchmark folder 'killed-run' is incomplete: its results.json ")
    assert said.endswith("; run the bench into that folder again.") and "\n" not in said
    assert str(tmp_path) not in said
    assert ("summary" in said) == (cut == "no summary")  # the part it lacks, when it can be read at all


def test_the_recorded_command_cannot_carry_cost_repeats():
    """command_line's docstring says the one setting its command leaves out is cost_repeats (no flag sets it): a
    config that changes it records a command that, typed, times BenchConfig's default."""
    from specviz.labs.bench.cli import command_line

    assert command_line(BenchConfig(cost_repeats=5)) == command_line(BenchConfig())
    assert BenchConfig().cost_repeats == 15


def test_command_lines_docstring_gives_each_callers_timing_rounds_from_the_code():
    """30th read: command_line's docstring said "(the GPU check, the Speedup lab's live sweep: 5)", while the GPU
    check times 10 rounds (3 in its rehearsal); each number is now its caller's."""
    import inspect

    from specviz.labs.bench.cli import command_line
    from specviz.labs.bench.config import BenchConfig
    from specviz.scripts import gpu_check
    from specviz.ui.speedup import live

    doc = " ".join(command_line.__doc__.split())
    assert (f"the GPU check: {gpu_check.GPU.cost_repeats}, {gpu_check.REHEARSAL.cost_repeats} in its rehearsal; "
            "the Speedup lab's live sweep: 5) records a command that, typed, times "
            f"{BenchConfig.cost_repeats}") in doc
    assert "cost_repeats=5)" in inspect.getsource(live)


def test_a_threshold_only_bench_of_a_lookup_is_refused_in_one_sentence(capsys):
    """Read 32: `bench --proposers ngram --policies threshold` ran no speculative case (the plan skips threshold for a
    proposer without a draft's probabilities), wrote empty tables and exited 0. It is now refused before any timing;
    the --policies help names the proposers threshold cannot run, from the registry."""
    import argparse

    from specviz.engine.proposers import registry
    from specviz.labs.bench.cli import add_bench_arguments
    from specviz.runs.running import make_proposer

    pair = toy_pair()
    with pytest.raises(ValueError, match=r"^--policies threshold .* ngram has none, .*\.$"):
        run_bench(BenchConfig(pair="toy", proposers=["draft", "ngram"], ks=[1], policies=["threshold"],
                              suites=["qa"], prompts_per_suite=1, max_new_tokens=4, repeats=1, warmup=0, hf="none",
                              cost_repeats=1), pair=pair)
    parser = argparse.ArgumentParser()
    add_bench_arguments(parser)
    text = next(a.help for a in parser._actions if "--policies" in a.option_strings)
    lookups = [name for name in registry.offered(("draft",)) if not make_proposer(pair, name).has_draft_probs]
    assert lookups == ["ngram"] and "threshold runs only proposers with a draft's probabilities: not ngram" in text


def test_policy_temperatures_with_only_constant_are_refused_before_any_timing(capsys, monkeypatch):
    """`bench --policy-temperatures 0.5 --policies constant` timed target-only decoding at T = 0.5 and ran no
    speculative case there (the plan runs constant K only at --temperatures): now one sentence, exit 2, before
    the pair is loaded."""
    from specviz.labs.bench import runner
    from specviz.models import pairs

    for module in (runner, pairs):  # the CLI imports load_pair from specviz.models.pairs when it runs
        monkeypatch.setattr(module, "load_pair", lambda *a, **k: pytest.fail("the pair was loaded"))
    assert main(["bench", "--pair", "toy", "--proposers", "ngram", "--temperatures", "0", "--policy-temperatures",
                 "0.5", "--policies", "constant"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("specviz: --policy-temperatures")
    assert err.endswith("in --temperatures instead.")
    assert "--policies has only constant, so at T = 0.5 it would time target-only decoding alone" in err
    BenchConfig(temperatures=[0], policy_temperatures=[0.5], policies=["constant", "heuristic"]).check()


def test_bench_config_takes_numpy_numbers_and_names_an_empty_tree_list():
    """check() refused ks=[np.int64(3)] with "K must be a whole number from 1 to 16 (got 3)", a false sentence, and
    said "Give at least one proposer, one K and one temperature." for an empty tree_nodes list: NumPy's numbers are
    now checked and kept as Python's, and an empty tree list is named."""
    import numpy as np

    config = BenchConfig(ks=[np.int64(3)], seed=np.int64(2), temperatures=[np.float32(0.5)], threshold=np.float64(0.4))
    config.check()
    assert config.ks == [3] and type(config.ks[0]) is int and type(config.seed) is int
    assert type(config.temperatures[0]) is float and type(config.threshold) is float
    with pytest.raises(ValueError, match="one --tree-nodes budget"):
        BenchConfig(tree_nodes=[]).check()
    with pytest.raises(ValueError, match="got True"):
        BenchConfig(ks=[np.bool_(True)]).check()


def test_bench_package_docstring_says_how_many_prompts_a_suite_gives():
    """specviz.labs.bench's docstring said a run measures "every prompt of every suite"; it takes the first
    --prompts-per-suite of each (runner.py: suite.prompts[: config.prompts_per_suite]), 2 by default, of suites
    holding 8 or 64."""
    import specviz.labs.bench as bench

    doc = " ".join(bench.__doc__.split())
    assert "every prompt of every suite" not in doc
    assert f"--prompts-per-suite prompts ({BenchConfig().prompts_per_suite} by default)" in doc


def test_kept_through_refuses_a_selection_of_several_rows(tmp_path):
    """quoted.kept_through promises "the one matching summary row" but read rows[0] of however many matched (trees of
    two widths share a node budget): it now refuses several in one sentence."""
    from specviz.labs.bench import quoted

    row = {"proposer": "eagle", "suite": "all", "policy": "constant", "k": 4, "temperature": 0.0, "tree_nodes": 16,
           "per_position": [0.7]}
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "results.json").write_text(json.dumps(
        {"summary": [{**row, "tree_width": 2}, {**row, "tree_width": 4, "per_position": [0.8]}]}))
    with pytest.raises(ValueError, match="has 2 eagle rows for that selection, not one"):
        quoted.kept_through("two", "eagle", 1, k=4, temperature=0.0, tree_nodes=16, root=tmp_path)
    assert quoted.kept_through("default-cpu-f32-medusa", "eagle", 1, k=4, temperature=0.0, tree_nodes=16).low > 0


def test_command_line_quotes_a_path_with_a_space():
    """command_line promises the command that reproduces a run, but wrote `--pair /tmp/my models/t` and `--out my
    out` bare, which a shell splits into other arguments: paths are now quoted as the shell reads them back."""
    import shlex

    from specviz.labs.bench.cli import command_line

    words = shlex.split(command_line(BenchConfig(pair="/tmp/my models/t,/tmp/d"), out="my out"))
    assert words[words.index("--pair") + 1] == "/tmp/my models/t,/tmp/d"
    assert words[words.index("--out") + 1] == "my out"
    assert "--pair default " in command_line(BenchConfig(pair="default"), out="x")


def test_best_constant_is_the_fastest_chain_and_says_so():
    """BenchResult.best_constant said "the constant-K row with the highest speedup", but a tree row is constant K
    too and is left out (rows() keeps chains by default): on the committed default-cpu-bf16-tree run a greedy EAGLE
    tree is faster than the row it returns. The docstring now says chain."""
    from specviz.core.paths import BENCHMARKS_DIR

    result = BenchResult.load(BENCHMARKS_DIR / "default-cpu-bf16-tree" / "results.json")
    best = result.best_constant("eagle", 0.0)
    trees = [r for r in result.rows(proposer="eagle", temperature=0.0, policy="constant", trees=True)
             if r.get("tree_nodes")]
    assert not best.get("tree_nodes")
    assert max(r["speedup_vs_ar"] for r in trees) > best["speedup_vs_ar"]
    assert "chain" in " ".join(BenchResult.best_constant.__doc__.split())
    assert "tree rows are left out" in " ".join(BenchResult.mean_alpha.__doc__.split())


def test_summary_keys_name_the_function_that_writes_them():
    """report.py's comment said `SummaryRow` writes every key of SUMMARY_KEYS; no SummaryRow exists: summarise
    writes the rows (re-pooling a committed run's cases gives every key)."""
    import inspect

    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench import report
    from specviz.labs.bench.summary import summarise

    assert "SummaryRow" not in inspect.getsource(report)
    result = BenchResult.load(BENCHMARKS_DIR / "default-cpu-f32-medusa" / "results.json")
    rows = summarise(result.cases, result.baselines, result.costs)
    assert rows and all(report.SUMMARY_KEYS <= row.keys() for row in rows)


def test_a_result_with_a_figure_past_float_range_is_damaged_not_a_crash():
    """from_dict promises one sentence for a damaged file, but math.isfinite raised OverflowError for an int past
    float's range (a summary row's temperature or speedup of 10**400)."""
    import copy

    from specviz.core.paths import BENCHMARKS_DIR

    data = json.loads((BENCHMARKS_DIR / "default-cpu-f32-medusa" / "results.json").read_text(encoding="utf-8"))
    for key in ("temperature", "speedup_vs_ar"):
        damaged = copy.deepcopy(data)
        damaged["summary"][0][key] = 10**400
        with pytest.raises(ValueError, match="damaged or incomplete"):
            BenchResult.from_dict(damaged)


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_reading_a_committed_result_imports_what_the_package_docstring_says():
    """specviz.labs.bench's docstring said reading committed results pays for neither torch nor transformers; loading
    BenchResult imports torch (summary.py -> engine.theory). Checked in a fresh interpreter."""
    import subprocess
    import sys

    import specviz.labs.bench as bench

    code = ("import sys; from specviz.labs.bench import BenchResult; "
            "from specviz.core.paths import BENCHMARKS_DIR as B;"
            "BenchResult.load(B / 'default-cpu-f32-medusa' / 'results.json');"
            "print('torch' in sys.modules, 'transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "False"]
    doc = " ".join(bench.__doc__.split())
    assert "results not for transformers until a benchmark really runs (it does import torch" in doc


def test_a_pooled_rows_alpha_is_the_mean_of_its_prompts_estimates_as_its_definition_says():
    """The 36th read: the α column's definition said only "estimated from the drafts that were tested", but a row over
    several prompts averages the prompts' own estimates, each prompt weighing the same: a prompt that tested 2 drafts
    counts as much as one that tested 200. The definition now says so; the row's α is that mean."""
    from specviz.labs.bench.summary import summarise

    def case(alpha, drafted):
        return {"suite": "s", "proposer": "p", "policy": "constant", "k": 2, "temperature": 0.0, "c": 0.1,
                "alpha": alpha, "tokens": drafted, "steps": drafted // 2, "drafted": drafted, "accepted": 1,
                "seconds": 1.0, "draft_ms": 1.0, "verify_ms": 1.0, "overhead_ms": 1.0, "position_drafted": [1, 1],
                "position_survived": [1, 0], "record_overhead": None, "identical": None, "hf_assisted_identical": None}
    rows = summarise([case(0.9, 2), case(0.3, 200)], [], {"verify": [{"n_tokens": 1, "ratio": 1.0}]})
    row = next(r for r in rows if r["suite"] == "all")
    assert row["alpha"] == pytest.approx(0.6)  # (0.9 + 0.3) / 2, not weighted by the 2 and 200 drafts
    assert "each prompt weighing the same" in DEFINITIONS["alpha"][1]


def test_mean_k_is_said_to_fall_below_k_for_a_constant_chain_as_the_committed_cases_show():
    """The 37th read: the 36th's fix to CaseResult.mean_k's comment said "K for a constant chain"; in the committed
    results.json files most constant chain cases read below K (the last steps have room for fewer drafts; n-gram
    lookup drafts nothing on a miss: 0.42 at K = 1 in default-cpu-ngram). The comment now says "at most K"."""
    import json

    root = Path(__file__).resolve().parents[2]
    below = {}
    for path in sorted((root / "assets" / "benchmarks").glob("*/results.json")):
        for case in json.loads(path.read_text(encoding="utf-8")).get("cases", []):
            if case.get("policy") == "constant" and not case.get("tree_nodes") and case.get("mean_k") is not None:
                assert case["mean_k"] <= case["k"] + 1e-9, (path, case["prompt_id"])
                if case["mean_k"] < case["k"] - 1e-9:
                    below.setdefault(case["proposer"], []).append(case["mean_k"] / case["k"])
    assert "ngram" in below and min(below["ngram"]) < 0.5 and "eagle" in below
    comment = " ".join((root / "specviz" / "labs" / "bench" / "rows.py").read_text(encoding="utf-8").split())
    assert "per step: K for a constant chain" not in comment
    assert "at most K for a constant chain, below it where" in comment


BUSY = "so the machine was busy with other work"


def test_a_start_far_above_the_cores_says_other_work_and_a_nearer_one_names_both_causes():
    """Issue 43 (mend): every busy-start note said the load came from "other work, or this command's own imports",
    also for runs that started at load 8.35, 11.59 and 8.19 on 2 cores (default-cpu-ngram, -layerskip, -bf16-trees),
    far more than one command's imports, loading or calibration can keep running (one thread per core or per torch
    thread). Above twice that the note says other work kept the machine busy; up to it, it still names both causes."""
    from specviz.labs.bench.report import BUSY_LOAD_NOTE, LOAD_NOTE, busy_with_other_work, current_note, load_note
    from specviz.labs.bench.runner import _notes

    machine = {"torch_threads": 2, "cores": 2, "device": "cpu", "dtype": "float32", "load_average_end": [2.8, 5, 7]}
    def note(start, **more):
        found = [n for n in _notes({**machine, "load_average_start": [start, 1, 1], **more}, BenchConfig(**CONFIG))
                 if n.startswith("The load average ")]
        assert len(found) == 1
        return found[0]
    assert BUSY in note(8.35) and "or this command's own" not in note(8.35)
    assert BUSY not in note(4.0) and "other work, or this command's own imports" in note(4.0)  # twice the cores
    assert BUSY in note(4.01) and BUSY not in note(4.01, torch_threads=8)  # 8 threads of its own can reach 8
    assert note(8.35) == BUSY_LOAD_NOTE.format(start=8.35, end=2.8, cores="2 cores")
    assert note(1.2) == LOAD_NOTE.format(start=1.2, end=2.8, cores="2 cores")
    assert "on 1 core:" in note(0.8, cores=1) and "1 cores" not in note(0.8, cores=1)  # its count agrees too
    assert busy_with_other_work(2.01, 1) and not busy_with_other_work(2.0, 1)
    assert load_note("?", 2.0, "?") == LOAD_NOTE.format(start="?", end=2.0, cores="? cores")  # nothing to compare
    old = ("The machine was shared (load average 11.59 at the start, [5.92, 7.39, 8.72] at the end): absolute times "
           "are noisy; ratios from the same run are the numbers to trust.")
    previous = ("The load average was 8.35 at the start and 2.79 at the end, on 2 cores: over half of them were busy "
                "in the minute before the run (other work, or this command's own imports, loading or calibration), so "
                "absolute times may be noisy; ratios from the same run are the numbers to trust.")
    assert current_note(old, 2, 1) == load_note(11.59, 5.92, 2) and BUSY in current_note(old, 2, 1)
    assert current_note(previous) == load_note(8.35, 2.79, 2) and BUSY in current_note(previous)


def test_the_committed_reports_call_only_the_shared_runs_busy_with_other_work():
    """The three runs that started above twice the cores say other work kept the machine busy in results.md, the
    runs near the cores (targets_bench's calibration, "nothing else running" in assets/benchmarks/README.md for
    default-cpu-bf16-tree) keep both causes; the model cards print the same notes."""
    from specviz.core.paths import ASSETS
    from specviz.distill.cards import BENCHES, bench_note

    said = {}
    for md in sorted(BENCHMARKS_DIR.glob("*/results.md")):
        run = json.loads(md.with_name("results.json").read_text(encoding="utf-8"))
        m = run["machine"]
        if m["load_average_start"][0] > 0.5 * m["cores"]:
            said[md.parent.name] = BUSY in md.read_text(encoding="utf-8")
            assert said[md.parent.name] == (m["load_average_start"][0] > 2 * max(m["cores"], m["torch_threads"]))
    assert {name for name, busy in said.items() if busy} == {"default-cpu-ngram", "default-cpu-layerskip",
                                                             "default-cpu-bf16-trees"}
    assert said["default-cpu-bf16-tree"] is False
    for name, bench in (("smollm2-eagle", BENCHES["eagle"]), ("smollm2-draft", BENCHES["draft"])):
        # as prose: 33f0c65e refilled the cards' paragraphs at 120 characters, so the note's line breaks moved
        card = " ".join((ASSETS / "models" / name / "README.md").read_text(encoding="utf-8").split())
        note = " ".join(bench_note(bench).split())
        assert note and note in card and "over half of them were busy" not in card, name


def test_a_count_of_one_reads_in_the_singular_in_results_md():
    """Issue 43 (mend): results.md's machine line said "torch 2.13.0+cpu (1 threads)" for every one-thread run
    (default-cpu-ngram, -layerskip, -bf16-trees, -f32-medusa); each count in it now agrees with its noun."""
    path = BENCHMARKS_DIR / "default-cpu-ngram" / "results.json"
    run = BenchResult.load(path)
    assert run.machine["torch_threads"] == 1
    text = markdown_report(run)
    assert "(1 thread), transformers" in text and "1 threads" not in text
    one = BenchResult.from_dict({**run.to_dict(), "machine": {**run.machine, "cores": 1, "torch_threads": 1},
                                 "costs": {**run.costs, "context_tokens": 1}})
    lines = markdown_report(one)
    assert "Machine: AMD EPYC, 1 core, GPU none" in lines and "(1 token of context)" in lines
    assert "(2 threads)" in markdown_report(BenchResult.load(BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json"))
    import re

    for md in BENCHMARKS_DIR.glob("*/results.md"):  # the machine line, the notes and the costs' context
        text = md.read_text(encoding="utf-8")
        counted = [line for line in text.partition("## All suites")[0].splitlines()
                   if line.startswith(("Machine:", "- "))] + [l for l in text.splitlines() if l.startswith("Target f")]
        assert counted and not re.search(r"\b1 (threads|cores|tokens)\b", "\n".join(counted)), md


def test_the_policy_table_says_it_compares_chains_and_why_a_tree_is_not_in_it():
    """Issue 43 (mend): the policy table takes its constant column from the chain of K₀ only (its 17th read), but
    neither its heading nor a line under it said so: a run whose shape of depth K₀ was a tree read – under constant
    with no reason given. The heading says chains only and the line under it why a tree is left out."""
    from specviz.labs.bench.report import POLICIES_HEADING, POLICIES_NOTE

    assert "chains only" in POLICIES_HEADING
    assert "no policy drafts" in POLICIES_NOTE and "a chain of K₀ where the run had only a tree" in POLICIES_NOTE
    run = BenchResult.load(BENCHMARKS_DIR / "default-cpu-bf16-tree" / "results.json")
    tree = next(r for r in run.summary if r["suite"] == "all" and r["temperature"] == 0 and r.get("tree_nodes")
                and r["k"] == 4)
    run.summary = [tree, {**tree, "tree_nodes": 0, "tree_width": 0, "tree_lookup": 0, "k": 2},
                   {**tree, "policy": "heuristic", "tree_nodes": 0, "tree_width": 0, "tree_lookup": 0}]
    lines = markdown_report(run).split(POLICIES_HEADING + "\n\n" + POLICIES_NOTE + "\n\n", 1)[1].splitlines()
    row = next(line for line in lines if line.startswith("| all | eagle | 0 |"))
    assert row.split(" | ")[3] == "–"  # the tree of depth 4 is no constant chain of K₀ = 4
    for path in (BENCHMARKS_DIR / name / "results.md" for name in ("default-cpu-ngram", "default-cpu-layerskip",
                                                                   "default-cpu-drafts")):
        assert f"{POLICIES_HEADING}\n\n{POLICIES_NOTE}\n\n| category |" in path.read_text(encoding="utf-8")


def test_a_policy_that_wins_by_under_half_a_percent_is_not_shown_as_plus_zero():
    """Read 40 (left by the bench mender): the n-gram run's policy table said "optimal K₀=4 (+0% vs constant)", a
    win that read as a tie; a margin under half a percent keeps one decimal. (Read 50 recomputed that run's optimal
    rows, which no longer win: its optimal row is set here 0.4% above constant K = 4.)"""
    result = BenchResult.load(BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    rows = [r for r in result.summary if r["suite"] == "all" and r["temperature"] == 0 and not r.get("tree_nodes")
            and r["k"] == 4 and r["policy"] in ("constant", "optimal")]
    by = {r["policy"]: r for r in rows}
    by["optimal"]["speedup_vs_ar"] = by["constant"]["speedup_vs_ar"] * 1.004
    gain = by["optimal"]["speedup_vs_ar"] / by["constant"]["speedup_vs_ar"] - 1
    assert 0 < gain < 0.005
    text = markdown_report(result)
    assert f"| optimal ({gain:+.1%} vs constant) |" in text and "(+0% vs constant)" not in text


def test_results_md_policy_winners_and_margins_follow_from_the_speedups_as_written():
    """Read 54: results.md's policy table wrote its speedups to 2 decimals and computed the winner's margin from the
    unrounded ones: default-cpu-drafts read "0.70× | – | 0.84× | – | threshold K₀=4 (+21% vs constant)" (0.84 / 0.70
    is +20%), default-cpu-layerskip "0.34× … 0.80× | optimal (+134% vs constant)" (+135%), default-cpu-ngram's qa row
    a heuristic winning "+1%" with 0.83× beside constant's 0.83×. In every committed report a reader who divides the
    written winner by the written constant gets the written margin, and the winner is the largest figure written
    (the Speedup lab's table follows the same rule, `report.policy_decimals`)."""
    from specviz.labs.bench.report import POLICIES_NOTE, margin_percent

    seen = set()
    for path in sorted(BENCHMARKS_DIR.glob("*/results.json")):
        text = markdown_report(BenchResult.load(path))
        if POLICIES_NOTE not in text:
            continue
        table = text.split(POLICIES_NOTE, 1)[1].split("\n\n")[1].splitlines()[2:]
        for line in table:
            cells = line.strip("|").split(" | ")
            written = {name: float(cell.rstrip("×")) for name, cell in
                       zip(("constant", "heuristic", "threshold", "optimal"), cells[3:7]) if cell != "–"}
            winner = cells[7].split(" ")[0]
            assert all(written[winner] > v for name, v in written.items() if name != winner), (path.parent.name, line)
            if "vs constant" in cells[7]:
                margin = margin_percent(written[winner] / written["constant"] - 1)
                assert f"({margin} vs constant)" in cells[7], (path.parent.name, line)
                seen.add((path.parent.name, margin))
    assert {("default-cpu-drafts", "+21%"), ("default-cpu-layerskip", "+134%"), ("default-cpu-ngram", "+1%")} <= seen
    drafts = markdown_report(BenchResult.load(BENCHMARKS_DIR / "default-cpu-drafts" / "results.json"))
    assert "| all | draft | 0 | 0.698× | – | 0.842× | – | threshold K₀=4 (+21% vs constant) |" in drafts


def test_results_md_names_the_optimal_policy_without_a_k_and_its_recomputed_rows_as_constant_k():
    """Read 51: results.md wrote "ngram optimal K=4: 1.94×" beside "ngram constant K=8 | 1.94×" as two runs, though
    the n-gram run's optimal rows are its constant K = 8 cases, recomputed (its note), and "optimal K₀=4" under a
    heading that says the optimal policy picks its own K: the 4 is only the --policy-k its rows are filed under. The
    Speedup lab writes "–" for that K (931cd712); results.md names no K for it, and says whose cases the recomputed
    rows are wherever it names them."""
    ngram = markdown_report(BenchResult.load(BENCHMARKS_DIR / "default-cpu-ngram" / "results.json"))
    assert "optimal K=" not in ngram and "optimal K₀=" not in ngram
    assert ("| rewrite | 0 | ngram constant K=8 | 1.94× | ngram optimal (the constant K=8 cases, recomputed): 1.94× |"
            in ngram)
    assert "| rewrite | ngram | 0 | 1.554× | 1.569× | – | 1.937× | optimal (+25% vs constant) |" in ngram
    assert "The optimal column holds the constant K=8 cases, recomputed, not a run of its own" in ngram
    assert "| ngram | optimal | – | chain | 0 |" in ngram
    layerskip = markdown_report(BenchResult.load(BENCHMARKS_DIR / "default-cpu-layerskip" / "results.json"))
    assert "| qa | 0 | layerskip-7 optimal | 0.80× |" in layerskip and "optimal (+134% vs constant) |" in layerskip
    assert "recomputed" not in layerskip  # a run that measured its optimal policy


def test_the_package_docstring_names_the_proposers_transformers_has_no_twin_for():
    """Read 44: the bench's docstring listed "transformers' own assisted generation with the same draft and a fixed
    K" among what every run measures, as if each proposer had one; the registry gives the EAGLE drafter and the
    Medusa heads no twin (`ProposerInfo.twin`), so their rows have no transformers comparison."""
    import specviz.labs.bench as bench
    from specviz.engine.proposers import registry

    untwinned = [info.name for info in registry.proposers() if info.twin is None]
    assert untwinned == ["eagle", "medusa"]
    text = " ".join(bench.__doc__.split())
    assert "nothing for the EAGLE drafter and the Medusa heads, which transformers does not run" in text
    assert "for each chain of constant K" in text


@pytest.mark.slow  # a bench of its own (about 3 s on 2 cores)
def test_a_proposer_that_drafts_no_tree_gets_chain_rows_not_the_trees_it_never_drafted():
    """Read 44: with a tree shape, n-gram lookup ran the chain of its K (the engine cannot branch it) while its row
    read "tree 16x4 + lookup 8", with that tree's physical limit and the tree note; the draft model's row is a tree."""
    from specviz.engine.draft_shape import DraftShape

    config = BenchConfig(pair="toy", proposers=["ngram", "draft"], draft_shapes=[DraftShape(3, 8, 2, 4)],
                         temperatures=[0.0], suites=["qa"], prompts_per_suite=1, max_new_tokens=12, repeats=1,
                         warmup=0, threads=1, hf="none", cost_repeats=3, record_overhead=False, verify_dtypes=[])
    res = run_bench(config, command="test", pair=toy_pair())
    shapes = {r["proposer"]: (r["k"], r["tree_nodes"], r["tree_lookup"]) for r in res.summary if r["suite"] == "all"}
    assert shapes == {"ngram": (3, 0, 0), "draft": (3, 8, 4)}
    ngram = next(c for c in res.cases if c["proposer"] == "ngram")
    assert ngram["mean_k"] <= 3 and ngram["physical_limit"] is not None
    only_ngram = run_bench(BenchConfig(**{**config.__dict__, "proposers": ["ngram"]}), command="test", pair=toy_pair())
    assert not any(r["tree_nodes"] for r in only_ngram.summary) and TREE_NOTE not in only_ngram.notes


def test_a_bench_with_no_shape_flag_announces_a_chain_for_n_gram_lookup():
    """Read 44: `bench --proposers ngram` on the default pair said it ran the pair's recommended tree."""
    from types import SimpleNamespace

    from specviz.labs.bench.cli import default_shape

    default = SimpleNamespace(name="default", default_proposer="eagle")
    assert default_shape(default, 0.0, ["ngram"])[0].tree_nodes == 0
    assert default_shape(default, 0.0, ["layerskip"])[0].tree_nodes == 16


def test_the_benchmarks_readme_quotes_each_bench_command_as_its_run_recorded_it():
    """Read 45: assets/benchmarks/README.md says its "exact command" column holds "the ones the runs recorded", but
    three rows (default-cpu-f32-medusa, -ngram, -layerskip) gave their flags in another order and the Medusa row left
    out `--policies constant`. Every `python -m specviz bench` command of the folder table is now its folder's
    results.json `command`, character for character."""
    import re

    rows = [line for line in (BENCHMARKS_DIR / "README.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| `") and line.count(" | ") >= 2]
    checked = []
    for row in rows:
        folder, command_cell = row.split(" | ")[0].strip("| `"), row.rsplit(" | ", 1)[1]
        quoted = re.findall(r"`(python -m specviz bench [^`]*)`", command_cell)
        if not quoted:  # a script's command (targets_bench, gpu_check, ...): the bench line is in its results.md
            continue
        recorded = json.loads((BENCHMARKS_DIR / folder / "results.json").read_text(encoding="utf-8"))["command"]
        assert quoted == [recorded], folder
        checked.append(folder)
    assert {"default-cpu-f32-medusa/", "default-cpu-ngram/", "default-cpu-layerskip/", "default-cpu-drafts/",
            "default-cpu-bf16-trees/"} <= set(checked)


def test_a_long_shape_is_quoted_cut_with_an_ellipsis():
    """Read 46: `--shapes` quoted a bad value's first 40 characters with nothing to say that it went on."""
    from specviz.labs.bench.cli import parse_shape

    with pytest.raises(ValueError, match=r"\(got '4:8:2:1:a{31}…'\)\.$"):
        parse_shape("4:8:2:1:" + "a" * 300)
    with pytest.raises(ValueError, match=r"\(got '4:8:2:1:x'\)\.$"):
        parse_shape("4:8:2:1:x")


def test_a_refused_results_folder_leaves_no_folder_behind(tmp_path, capsys):
    """Read 46: `--out NEW/<300 characters>` was refused as "File name too long" with NEW made and left behind."""
    code = main(["bench", "--pair", "toy", "--proposers", "ngram", "--out", f"{tmp_path}/new/{'d' * 300}"])
    assert code == 2 and "File name too long" in capsys.readouterr().err and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text, says", [
    ("2:0:4:8", "--shapes 2:0:4:8: a lookup branch (LOOKUP 8) needs a tree: give NODES above 0, or LOOKUP 0."),
    ("99:0:4:0", "--shapes 99:0:4:0: K must be a whole number from 1 to 16 (got 99)."),
    ("3:65:4:0", "--shapes 3:65:4:0: NODES must be a whole number from 0 to 64 (got 65)."),
    ("3:6:9:0", "--shapes 3:6:9:0: WIDTH must be a whole number from 1 to 8 (got 9)."),
    ("3:6:4:17", "--shapes 3:6:4:17: LOOKUP must be a whole number from 0 to 16 (got 17)."),
])
def test_a_shape_of_whole_numbers_says_which_part_is_wrong(text, says):
    """Read 47: `--shapes 2:0:4:8` was refused "--shapes takes K:NODES:WIDTH:LOOKUP, whole numbers in range", though
    its four numbers are whole and in range: a lookup branch needs a tree. A number out of range is now named."""
    from specviz.labs.bench.cli import parse_shape

    with pytest.raises(ValueError) as refused:
        parse_shape(text)
    assert str(refused.value) == says


def test_c_names_the_draft_vocabulary_rows_a_medusa_step_times(monkeypatch):
    """Read 48: c's definition said a Medusa step is "one Medusa head (its block and the LM head)", but the bench
    times one head's block and its product with the LM head's rows for the heads' draft vocabulary (8,192 of the
    shipped heads' 49,152 tokens), not the whole LM head. The definition says so in both languages, and every
    committed results.md prints the new words (the results.json files keep their runs' words)."""
    import torch

    from specviz.core.i18n import _, number, using
    from specviz.engine.proposers import registry
    from specviz.engine.proposers.eagle import DraftHead
    from specviz.engine.proposers.medusa import MedusaProposer
    from specviz.labs.bench.timing import feature_draft_timer

    pair = toy_pair()
    proposer = MedusaProposer(pair.target, pair.medusa[0], torch.tensor([3, 1, 4, 2, 5]))
    seen = []
    logits = DraftHead.logits
    monkeypatch.setattr(DraftHead, "logits",
                        lambda head, x: seen.append((x.shape, head.weight.shape)) or logits(head, x))
    timer = feature_draft_timer(pair.target, proposer, [2, 3, 4, 5, 6, 7])
    seen.clear()
    timer()
    hidden = pair.target.config.hidden_size
    assert registry.get("medusa").timed_as == "features"
    assert seen == [((1, hidden), (5, hidden))]  # one head's state, times the draft vocabulary's 5 rows

    shipped = json.loads((Path(__file__).parents[2] / "assets/models/smollm2-medusa/specviz.json").read_text())
    label, meaning = DEFINITIONS["c"]
    said = (f"one Medusa head (its block and the product with the LM head's rows for the heads' draft vocabulary: "
            f"{number(shipped['draft_vocab_size'], 0)} of the {number(shipped['vocab_size'], 0)} tokens for the "
            "shipped heads, not the whole LM head)")
    assert said in meaning and "its block and the LM head)" not in meaning
    with using("pt"):
        assert (f"uma cabeça de previsão Medusa (seu bloco e o produto com as linhas da cabeça de LM do vocabulário "
                f"de rascunho das cabeças: {number(shipped['draft_vocab_size'], 0)} dos "
                f"{number(shipped['vocab_size'], 0)} tokens" in _(meaning))
    for path in sorted(BENCHMARKS_DIR.glob("*/results.md")):
        text = path.read_text(encoding="utf-8")
        assert f"- **{label}**: {meaning}" in text.splitlines() and "its block and the LM head)" not in text, path


def test_the_assisted_speedup_says_the_ngram_twin_copies_after_another_match():
    """Read 48: "speedup vs transformers assisted" read as implementation speed alone, but for n-gram lookup
    transformers' prompt lookup copies after the earliest match and specviz after the latest
    (`specviz.engine.proposers.ngram`), so the ratio also holds a different match rule. Both languages say so, and
    every committed results.md prints the new words."""
    from specviz.core.i18n import _, using

    label, meaning = DEFINITIONS["speedup_vs_hf_assisted"]
    assert ("For n-gram lookup the two copy after different matches (transformers' prompt lookup after the earliest, "
            "specviz after the latest), so the ratio holds a different match rule too" in meaning)
    with using("pt"):
        translated = " ".join(_(meaning).split())
    assert ("Na busca de n-gramas, os dois copiam a partir de ocorrências diferentes (a busca no prompt do "
            "transformers, depois da mais antiga; o specviz, depois da mais recente)" in translated)
    paths = sorted(BENCHMARKS_DIR.glob("*/results.md"))
    assert len(paths) >= 10
    for path in paths:
        lines = path.read_text(encoding="utf-8").splitlines()
        assert f"- **{label}**: {meaning}" in lines, path
        assert f"- **{label}**: tokens/s of specviz's speculative decoding over transformers' assisted generation / " \
               "prompt lookup with the same K." not in lines, path


def test_medusa_predictions_charge_c_per_step_in_the_bench_and_its_committed_run():
    """Read 49: the bench's predicted columns charged the Medusa heads K·c, though a step drafts every head in one
    pass (greedy draft time per step 5.47 and 5.27 ms at K = 2 and 4 in default-cpu-f32-medusa). `summarise` (and
    the per-case columns) now charge c per step for a one-pass proposer, and the committed run was re-pooled from
    its own cases and costs; EAGLE's rows keep K·c. The definitions say so, and what c times (the token pick)."""
    from specviz.engine.proposers import registry
    from specviz.labs.bench.summary import summarise

    assert registry.one_pass("medusa") and not registry.one_pass("eagle") and not registry.one_pass("unknown")
    result = BenchResult.load(BENCHMARKS_DIR / "default-cpu-f32-medusa" / "results.json")
    for row in result.summary + result.cases:
        if row["policy"] != "constant" or row.get("tree_nodes") or row["alpha"] is None:
            continue
        one_pass = row["proposer"] == "medusa"
        assert row["predicted_speedup"] == pytest.approx(
            expected_speedup(min(1.0, row["alpha"]), row["k"], row["c"], one_pass=one_pass)), row["proposer"]
    medusa4 = next(r for r in result.summary if r["suite"] == "all" and r["proposer"] == "medusa" and r["k"] == 4
                   and r["temperature"] == 0 and not r["tree_nodes"])
    assert round(medusa4["predicted_speedup"], 2) == 1.32  # 1.17 with K·c
    again = summarise(result.cases, result.baselines, result.costs)
    assert [r["predicted_speedup_measured_verify"] for r in again] == pytest.approx(
        [r["predicted_speedup_measured_verify"] for r in result.summary])
    md = (BENCHMARKS_DIR / "default-cpu-f32-medusa" / "results.md").read_text()
    assert ("| medusa | constant | 4 | chain | 0 | 0.277 | 0.10 | 1.38 | 0.38 | 21.8 | 1.44× | 1.40× | – "
            "| 1.32× | "
            "1.46× |") in md  # from the written verify cost 0.90 (19be04af; 1.45× from 0.9037)
    assert "c + 1 in place of K·c + 1" in DEFINITIONS["predicted_speedup"][1]
    assert "c in place of K·c" in DEFINITIONS["predicted_speedup_measured_verify"][1]
    assert "so it includes the token pick (an argmax; a greedy draft computes no softmax)" in DEFINITIONS["c"][1]


def test_ngram_predictions_charge_one_lookup_per_step_and_name_the_k_drafts_assumption():
    """Read 49: n-gram's c times one lookup, which copies every token of a step, but the predicted columns charged
    K·c (K lookups); and the formula takes every step to draft K tokens, though default-cpu-ngram's lookup drafted
    0.45 a step at K = 1 (predicted 1.29× against 0.89× measured). n-gram is now a one-pass proposer, its committed
    run re-pooled with the bench's functions, and the definitions name the assumption."""
    from specviz.engine.proposers import registry
    from specviz.labs.bench.summary import summarise

    assert registry.one_pass("ngram")
    result = BenchResult.load(BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    rows = [r for r in result.summary + result.cases if r["policy"] == "constant" and r["alpha"] is not None]
    assert len(rows) > 50
    for row in rows:
        assert row["predicted_speedup"] == pytest.approx(
            expected_speedup(min(1.0, row["alpha"]), row["k"], row["c"], one_pass=True))
    again = summarise(result.cases, result.baselines, result.costs)
    assert [r["predicted_speedup_measured_verify"] for r in again] == pytest.approx(
        [r["predicted_speedup_measured_verify"] for r in result.summary])
    md = (BENCHMARKS_DIR / "default-cpu-ngram" / "results.md").read_text()
    assert "| ngram | constant | 4 | chain | 0 | 0.363 | 0.13 | 1.18 | 0.21 | 13.5 | 0.93× | 0.89× | 0.96× " \
           "| 1.56× | " \
           "0.99× | 6/6 |" in md  # from the written verify cost 1.57 (19be04af; 1.00× from 1.5675)
    paper = DEFINITIONS["predicted_speedup"][1]
    assert "which assumes every step drafts K tokens and verifying K+1 tokens costs one target forward" in paper
    assert "it counts drafts that were never made" in paper
    assert "For n-gram lookup, whose one search of the context drafts every token of a step" in paper
    assert "every step drafting K" in DEFINITIONS["predicted_speedup_measured_verify"][1]


def test_results_md_writes_a_c_under_a_thousandth_with_two_significant_digits():
    """Read 50 (review): default-cpu-ngram's results.md wrote its measured c = 0.000217 as "0.000" in the
    acceptance-by-position table and the costs ("c = 0.000"), as if the lookup cost nothing; it writes 0.00022, and a
    c of 0.001 or more keeps 3 decimals (the layer-skip run's 0.3-odd)."""
    ngram = markdown_report(BenchResult.load(BENCHMARKS_DIR / "default-cpu-ngram" / "results.json"))
    assert "| ngram | 4 | chain | 0 | 0.00022 |" in ngram and "- ngram: draft forward 0.015 ms, c = 0.00022" in ngram
    assert "0.000 |" not in ngram and "c = 0.000\n" not in ngram
    assert ngram == (BENCHMARKS_DIR / "default-cpu-ngram" / "results.md").read_text(encoding="utf-8")
    layerskip = markdown_report(BenchResult.load(BENCHMARKS_DIR / "default-cpu-layerskip" / "results.json"))
    c = BenchResult.load(BENCHMARKS_DIR / "default-cpu-layerskip" / "results.json").costs["c"]["layerskip-7"]
    assert f"c = {c:.3f}" in layerskip


def test_results_md_writes_a_draft_forward_that_gives_the_c_beside_it():
    """Read 51: default-cpu-ngram's costs read "draft forward 0.01 ms, c = 0.00022" under a 67.1 ms target forward,
    where 0.01 / 67.1 is 0.00015: the lookup's 0.0145 ms was cut to two decimals. Each draft forward is written with
    at least two significant digits, so that it over the target forward, both as written, gives the c written.
    Read 51 (review): the check allowed a whole unit of c's last decimal, so the H200 runs' "draft forward 3.88 ms,
    c = 0.207" under 18.8 ms (3.88 ÷ 18.8 = 0.206) passed; it now asks for c as written, and both forwards take more
    decimals where the ratio needs them (`report._cost_digits`: 18.78 and 3.883 ms)."""
    seen = 0
    for path in sorted(BENCHMARKS_DIR.glob("*/results.json")):
        text = markdown_report(BenchResult.load(path))
        target = float(re.search(r"warm cache \(.*?\): ([0-9.]+) ms\.", text).group(1))
        for name, ms, c in re.findall(r"^- (\S+): draft forward ([0-9.]+) ms, c = ([0-9.]+)$", text, re.M):
            seen += 1
            assert f"{float(ms) / target:.{len(c.partition('.')[2])}f}" == c, (path.parent.name, name, ms, target, c)
    assert seen >= 11
    run2 = markdown_report(BenchResult.load(BENCHMARKS_DIR / "default-h200-bf16-run2" / "results.json"))
    assert "18.78 ms." in run2 and "- draft: draft forward 3.883 ms, c = 0.207" in run2


def test_results_md_and_targets_round_a_tie_half_up_as_the_pages_do():
    """Read 51: `signed_percent` (Python's round) and results.md's cells (Python's format) rounded the binary double
    half to even, where every page rounds a tie half away from zero: a 14.5% change read "+14%", 0.5% "0%", and the
    bf16 packed run's eighth acceptance-by-position entry, 1/8, read 0.12. They now read +15%, +1% and 0.13."""
    from specviz.labs.bench.report import _fmt, markdown_report
    from specviz.labs.bench.summary import signed_percent

    assert (signed_percent(0.145), signed_percent(0.005), signed_percent(-0.0015, 1)) == ("+15%", "+1%", "-0.2%")
    assert (signed_percent(-0.001), signed_percent(-0.08)) == ("0%", "-8%")  # as before
    assert (_fmt(0.125), _fmt(2.675, 2, "×"), _fmt(1.5, 0, "%")) == ("0.13", "2.68×", "2%")
    folder = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "default-cpu-bf16-packed"
    line = "| eagle | 4 | 16×4 + 8 | 0 | 0.081 | 0.81 / 0.58 / 0.35 / 0.27 / 0.17 / 0.14 / 0.13 / 0.13 |"
    assert line in markdown_report(BenchResult.load(folder / "results.json")).splitlines()
    assert line in (folder / "results.md").read_text(encoding="utf-8").splitlines()


def test_the_acceptance_rate_names_copied_tokens_apart_and_counts_them():
    """Read 51: the bench's acceptance rate was labelled "accepted / drafted" and defined as "drafted tokens the
    target kept, over all drafted tokens", while a tree's lookup branch puts copied tokens to the target too, and the
    rate counts them (`Trace.num_drafted` holds nodes and copies): the project writes that ratio accepted / (drafted
    + copied), copied counted apart. The label and the definition now say so, in both languages; a case's rate and
    drafted count are its trace's (`cases.py`), which hold the copies."""
    from specviz.core.i18n import _, using
    from specviz.runs.runspec import RunSpec
    from specviz.ui.common.runs import run_speculative
    from specviz.ui.speedup.view import label

    name, meaning = DEFINITIONS["acceptance_rate"]
    assert name == "acceptance rate (accepted / (drafted + copied))"
    assert "counted apart as copied" in meaning and "is drafted + copied." in meaning
    with using("pt"):
        assert label("acceptance_rate") == "taxa de aceitação (aceitos / (rascunhados + copiados))"
        assert "contados à parte como copiados" in _(meaning)
    # the computation: a case's rate is the trace's accepted / (drafted + copied), copies in its drafted count
    trace = run_speculative(RunSpec(pair="toy", proposer="draft", prompt="abc abc abc abc abc abc", chat=False, k=4,
                                    temperature=0.0, tree_nodes=6, tree_width=2, tree_lookup=4, max_new_tokens=32))
    drafted, _kept = trace.drafts_only()
    assert trace.num_copied and trace.num_drafted == drafted + trace.num_copied
    assert trace.acceptance_rate == trace.num_accepted / (drafted + trace.num_copied)


def test_results_md_rounds_the_policy_margin_and_the_verify_ratios_half_up():
    """Read 51 (review): results.md's cells and signed changes round a tie half up (`fixed`, `signed_percent`), as the
    pages do, but the policy table's "(+12% vs constant)" and the Costs ratios kept Python's format, which rounds the
    binary double half to even: a 12.5% gain read "+12%" (the Speedup lab's `margin_text` writes +13%) and a ratio of
    0.125 "0.12"."""
    import copy

    result = copy.deepcopy(BenchResult.load(BENCHMARKS_DIR / "default-cpu-layerskip" / "results.json"))
    for row in result.summary:
        if row["suite"] in ("all", "qa") and row["temperature"] == 0 and row["k"] == 4 and not row.get("tree_nodes"):
            row["speedup_vs_ar"] = {"constant": 1.0, "optimal": 1.125}.get(row["policy"], 0.5)
    result.costs["verify"][0]["ratio"] = 0.125
    text = markdown_report(result)
    assert "| qa | layerskip-7 | 0 | 1.00× | 0.50× | 0.50× | 1.13× | optimal (+13% vs constant) |" in text
    assert "| time / one-token forward | 0.13 |" in text



def test_a_none_in_acceptance_by_position_is_a_dash_or_a_sentence_wherever_it_is_read(tmp_path):
    """Read 52: a summary row whose acceptance by position holds None (`summarise` writes one for a position no step
    drafted) was a TypeError in `quoted.kept_through` (the Proposers page, the tree widget) and in the model cards'
    bench tables, and would have printed "None"; load refuses it in one sentence, the report writes "–"."""
    from specviz.distill import cards, medusa_card
    from specviz.labs.bench import quoted

    source = Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "default-cpu-f32-medusa" / "results.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    for r in data["summary"]:
        r["per_position"] = [None, *r["per_position"][1:]]
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "results.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="acceptance by position is not a list of numbers"):
        BenchResult.load(tmp_path / "run" / "results.json")
    row = next(r for r in data["summary"] if r["suite"] == "all" and r["policy"] == "constant")
    chain = dict(k=row["k"], temperature=row["temperature"], tree_nodes=row.get("tree_nodes") or 0)
    with pytest.raises(ValueError, match="has no .* acceptance at draft position 1"):
        quoted.kept_through("run", row["proposer"], 1, root=tmp_path, **chain)
    assert quoted.kept_through("run", row["proposer"], 2, root=tmp_path, **chain).low == row["per_position"][1]
    rows = [r for r in data["summary"] if r["suite"] == "all" and r["policy"] == "constant"]
    for text in (cards.bench_table(rows), medusa_card.bench_section(tmp_path / "run" / "results.json")):
        assert "| – / " in text and "None" not in text


def test_results_md_predicted_measured_verify_follows_from_its_written_cells():
    """Read 54: results.md's "predicted (measured verify)" divided by the verify cost's every digit while its Costs
    table writes it to 2 decimals (default-cpu-drafts, draft K = 2, T = 0: 0.64× where α 0.454, c 0.303 and the
    written 2.01 give 1.660 / 2.616 = 0.63×). Every chain row's prediction now follows from the α, c and verify cost
    the file writes."""
    from specviz.engine.proposers import registry
    from specviz.core.i18n import fixed
    from specviz.engine.theory import speedup_with_verify_cost

    checked = 0
    for path in sorted(BENCHMARKS_DIR.glob("*/results.md")):
        lines = path.read_text(encoding="utf-8").splitlines()
        cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines if line.startswith("| ")]
        fed = next(row for row in cells if row[0] == "tokens fed")[1:]
        ratio = dict(zip(map(int, fed), map(float, next(row for row in cells if row[0].startswith("time /"))[1:])))
        c = {tuple(row[:4]): float(row[4]) for row in cells if len(row) == 6 and row[2] == "chain"
             and re.fullmatch(r"\d+\.\d+", row[4])}
        for row in cells:
            if len(row) != 16 or row[1] != "constant" or row[3] != "chain" or row[14] == "–":
                continue
            k, key = int(row[2]), (row[0], row[2], "chain", row[4])
            verify = ratio[min(k + 1, max(ratio))]
            predicted = speedup_with_verify_cost(min(1.0, float(row[5])), k, c[key], verify, registry.one_pass(row[0]))
            assert row[14] == f"{fixed(predicted, 2)}×", (path.parent.name, row[:5], row[14], predicted)
            checked += 1
    assert checked >= 40, checked


def test_the_bench_names_the_shape_it_chose_with_the_times_sign():
    """Read 54: with no shape flag, the bench printed "draft shape for this machine: tree 8x4 depth 3 + lookup 8"
    (`DraftShape.label()`, the identifier, ASCII x) to a person; it prints `shown()`, "tree 8×4 depth 3 + lookup 8"."""
    import inspect

    from specviz.engine.draft_shape import DraftShape
    from specviz.labs.bench.cli import run_bench_command

    source = inspect.getsource(run_bench_command)
    assert "draft shape for this machine: {shape.shown()}" in source and "shape.label()" not in source
    assert DraftShape(3, 8, 4, 8).shown() == "tree 8×4 depth 3 + lookup 8"


def test_the_draft_time_help_counts_the_medusa_heads_blocks():
    """Read 54: the "draft ms / step" help, printed into every committed results.md, said Medusa proposes with "the
    Medusa heads' small products", leaving out the heads' blocks: a step runs the blocks of heads 1 to K on the
    target's last hidden state, then the LM head once over all K (the Speedup lab's caption says so too)."""
    from specviz.core.i18n import _, using
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench.summary import DEFINITIONS

    said = DEFINITIONS["draft_ms"][1]
    assert "the blocks of heads 1 to K, all on the hidden state the target's last pass gave, then the LM head once " \
        "over all K of them." in said and "small products" not in said
    with using("pt"):
        assert "os blocos das cabeças 1 a K, todos sobre o estado oculto" in _(said)
    for path in sorted(BENCHMARKS_DIR.glob("*/results.md")):
        text = path.read_text(encoding="utf-8")
        assert "small products" not in text, path.parent.name


def test_results_md_explains_a_physical_limit_above_the_tokens_a_forward_emits():
    """Read 54: default-cpu-f32-packed's Physical limit table read 5.49× for the chains of K = 4 and 3.07× for K = 2
    (default-cpu-f32-medusa 5.74×, 3.09×), above the 5 and 3 tokens one target forward can emit, with no note (its
    float32 verify curve measured those forwards under one token's time). Each such shape now gets the Speedup lab's
    note once, its measured cost written so that tokens ÷ cost gives the table's limit; trees, under their tokens,
    get none."""
    from specviz.core.i18n import using
    from specviz.labs.bench.summary import written_limit
    from specviz.ui.speedup import trees

    text = (BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.md").read_text(encoding="utf-8")
    section = text.split("## Physical limit", 1)[1].split("\n## ", 1)[0]
    notes = [line for line in section.splitlines() if line.startswith("The physical limit of ")]
    assert [n[:45] for n in notes] == ["The physical limit of a chain of K = 2, 3.06×", "The physical limit of a "
                                       "chain of K = 4, 5.49×"]
    for note in notes:
        limit, tokens, cost = re.search(r", ([0-9.]+)×, is above the (\d+) tokens .* at ([0-9.]+) of a one-token",
                                        note).groups()
        assert float(cost) < 1 and f"{int(tokens) / float(cost):.2f}" == limit and f"at most {tokens}×" in note
    assert "at 0.91 of a one-token forward's time" in notes[1]
    # the lab's words: the lab's English note for the same shape with its 3-decimal figures masked is the same
    result = BenchResult.load(BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    with using("en"):
        lab = trees.over_limit_notes(result, "eagle", 0.0)
    mask = lambda s: re.sub(r"\d+\.\d+", "#", s)
    assert sorted(map(mask, lab)) == sorted(map(mask, notes))
    # every shape over its tokens, in every committed results.md, gets its note, and no other
    for path in sorted(BENCHMARKS_DIR.rglob("results.json")):
        loaded = BenchResult.load(path)
        over = {(r["k"], r.get("tree_nodes") or 0) for r in loaded.summary if r.get("physical_limit")
                and written_limit(r, loaded.costs) > max(r["k"], r.get("tree_lookup") or 0 if r.get("tree_nodes")
                                                         else 0) + 1}
        assert markdown_report(loaded).count("\nThe physical limit of ") == len(over), path.parent.name


@pytest.mark.parametrize("start", [8.35, 1.04])
def test_the_load_note_says_only_the_start_covers_the_minute_before_the_run(start):
    """Read 54: the busy-start note said "The load average was 8.35 at the start and 2.79 at the end ...: in the
    minute before the run, more threads than ...", as if both figures covered the minute before the run; the one at
    the end covers the minute before the run ended. The note (results.md, the Speedup lab, both languages) now says
    what a load average averages and that the claim is the start's; a run that wrote the old wording is reworded."""
    from specviz.core.i18n import using
    from specviz.labs.bench.report import current_note, load_note
    from specviz.ui.speedup.results import note_text

    note = load_note(start, 2.79, 2)
    assert note.startswith(f"The load average (threads running or ready to run, averaged over the minute before it is "
                           f"read) was {start} at the start and 2.79 at the end, on 2 cores: the one at the start says "
                           "that in the minute before the run, more threads than ")
    split = note.replace("The load average (threads running or ready to run, averaged over the minute before it is "
                         "read) was", "The load average was").replace("the one at the start says that in the minute "
                                                                      "before the run,", "in the minute before the run,")
    assert current_note(split, 2) == note and note_text(split, 2) == note
    with using("pt"):
        assert note_text(split, 2).startswith(
            f"A carga média (threads rodando ou prontas para rodar, na média do minuto antes de ser lida) era "
            f"{str(start).replace('.', ',')} no início e 2,79 no fim, em 2 núcleos: a do início diz que no minuto "
            "antes da execução mais threads do que ")
    for md in sorted(BENCHMARKS_DIR.glob("*/results.md")):
        assert "2 cores: in the minute before the run" not in md.read_text(), md


def test_every_results_md_physical_limit_follows_from_its_verify_cost_as_written():
    """Read 55: default-cpu-f32-packed's results.md wrote the chain of K = 2's physical limit 3.07× beside its Verify
    cost by dtype table's float32 cost of 3 tokens, 0.98, and 3 / 0.98 = 3.06: the limit came from 0.977. Every chain
    whose K + 1 tokens the table lists now reads (K + 1) / that cost as written, and its share is the quotient of the
    speedup and limit cells."""
    from specviz.core.i18n import fixed

    checked = 0
    for path in sorted(BENCHMARKS_DIR.rglob("results.json")):
        loaded, md = BenchResult.load(path), path.parent / "results.md"
        if not md.exists() or "## Physical limit" not in (text := md.read_text(encoding="utf-8")):
            continue
        rows = lambda section: [line.strip("|").split(" | ") for line in section.splitlines()  # noqa: E731
                                if line.startswith("| ") and not line.startswith("| proposer") and "---" not in line]
        costs_section = text.split("## Verify cost by dtype", 1)[1].split("\n## ", 1)[0] if (
            "## Verify cost by dtype" in text) else None
        if costs_section is not None:
            head = next(line for line in costs_section.splitlines() if line.startswith("| dtype"))
            sizes = [int(h.split("= ")[1]) for h in head.strip("|").split(" | ")[2:]]
            by_dtype = {r[0].strip(): dict(zip(sizes, r[2:])) for r in rows(costs_section) if r[0] != "dtype"}
            written = by_dtype.get(loaded.dtype or "float32")
        else:  # no dtype curves: the run's own curve, the Costs table's "time / one-token forward"
            costs_section = text.split("## Costs", 1)[1].split("\n## ", 1)[0]
            lines = [line for line in costs_section.splitlines() if line.startswith("| tokens fed")
                     or line.startswith("| time / one-token forward")]
            written = dict(zip([int(n) for n in lines[0].strip("|").split(" | ")[1:]],
                               lines[1].strip("|").split(" | ")[1:]))
        if not written:
            continue
        section = text.split("## Physical limit", 1)[1].split("\n## ", 1)[0]
        for cells in rows(section):
            k, shape, speedup, limit, share = int(cells[1]), cells[2], cells[5], cells[7], cells[8]
            if shape != "chain" or k + 1 not in written or limit == "–":
                continue
            assert limit == fixed((k + 1) / float(written[k + 1]), 2) + "×", (path.parent.name, cells)
            assert share == f"{fixed(100 * float(speedup[:-1]) / float(limit[:-1]), 0)}%", (path.parent.name, cells)
            checked += 1
    assert checked >= 20
