"""The Playground's chain presets, run as its buttons set them up, into the documented file
(specviz.scripts.preset_runs)."""

from __future__ import annotations

import json

import pytest

from specviz.runs.presets import CHAIN_PRESETS, PRESET_SEEDS, preset_measurement
from specviz.scripts.preset_runs import main

ROW_KEYS = {"seed", "drafted", "accepted", "tokens", "target_passes", "mean_accepted_length", "stop_reason"}


@pytest.mark.slow  # about 4 s: twelve runs of 48 tokens
def test_the_script_writes_each_presets_counts_with_command_dtype_and_machine(tmp_path, capsys):
    """On the toy pair (instant): every chain preset over its seeds, each row the counts the texts quote, the run
    with what reproduces it; a run in another dtype already in the file stays."""
    out = tmp_path / "presets.json"
    out.write_text(json.dumps({"pair": "toy", "runs": {"bfloat16": {"dtype": "bfloat16", "kept": "as it was"}}}))
    assert main(["--pair", "toy", "--out", str(out)]) == 0
    written = json.loads(out.read_text())
    assert written["schema"] == "specviz-presets" and written["schema_version"] == 1 and written["pair"] == "toy"
    assert written["runs"]["bfloat16"] == {"dtype": "bfloat16", "kept": "as it was"}
    run = written["runs"]["float32"]  # the toy pair's own dtype
    assert run["dtype"] == "float32" == run["machine"]["dtype"] and run["machine"]["cpu"] and run["machine"]["cores"]
    # the dtype the default chose is named: typed on a machine whose default is another dtype, it runs this one
    assert run["command"] == f"python -m specviz.scripts.preset_runs --pair toy --out {out} --dtype float32"
    assert run["date"] and "commit" in run and "first_load" not in run
    assert list(run["presets"]) == list(CHAIN_PRESETS)
    for name, preset in run["presets"].items():
        assert preset["spec"]["pair"] == "toy" and preset["spec"]["max_new_tokens"] == 48
        assert preset["spec"]["proposer"] == CHAIN_PRESETS[name]["proposer"]
        assert [row["seed"] for row in preset["seeds"]] == list(PRESET_SEEDS[name])
        for row in preset["seeds"]:
            assert set(row) == ROW_KEYS and row["drafted"] >= row["accepted"] >= 0
            assert row["mean_accepted_length"] == pytest.approx(row["tokens"] / row["target_passes"], abs=1e-4)
    sampled = preset_measurement("sampling", "float32", out)
    assert sampled.seeds == (0, 1, 2, 3, 4) and sampled.dtype == "float32" and sampled.max_new_tokens == 48
    assert "copy seed 0:" in capsys.readouterr().out


def test_another_pair_needs_its_own_file():
    with pytest.raises(SystemExit):
        main(["--pair", "toy"])  # the committed file is the default pair's


@pytest.mark.slow
def test_the_first_load_is_timed_with_an_empty_cache(tmp_path):
    """--first-load times the pair's load in a fresh process whose $SPECVIZ_CACHE is an empty folder."""
    from specviz.scripts.preset_runs import time_first_load

    loading = time_first_load("toy", None)
    assert loading["first_seconds"] >= 0 and loading["later_seconds"] >= 0 and len(loading["load_average_start"]) == 3
    assert "empty temporary SPECVIZ_CACHE" in loading["what"]


@pytest.mark.parametrize("content, said", [("{damaged", "not valid JSON"), ("[1, 2]", "is not a preset results file"),
                                           (None, "Is a directory")])
def test_a_damaged_out_file_stops_before_the_runs_not_after_them(content, said, tmp_path, capsys, monkeypatch):
    """30th read: the docstring promises "the other dtypes' runs stay", but a damaged --out file was read as {}
    after the runs and written over, losing them; a list ended in AttributeError, a folder in a traceback after
    minutes of runs. Each is now one sentence, exit code 2, before any model loads."""
    import specviz.models.pairs

    monkeypatch.setattr(specviz.models.pairs, "load_pair", lambda *a, **k: pytest.fail("a model loaded"))
    out = tmp_path / "presets.json"
    out.mkdir() if content is None else out.write_text(content, encoding="utf-8")
    assert main(["--pair", "toy", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("preset_runs: ") and said in err and "\n" not in err, err
    assert content is None or out.read_text(encoding="utf-8") == content


def test_an_out_file_of_another_pair_stops_before_the_runs_not_written_over(tmp_path, capsys, monkeypatch):
    """35th read: the help promises "the other dtypes' runs kept", but an --out file holding another pair's runs was
    silently replaced by this pair's one run, every dtype of the other pair lost. It is now one sentence, exit 2."""
    import specviz.models.pairs

    monkeypatch.setattr(specviz.models.pairs, "load_pair", lambda *a, **k: pytest.fail("a model loaded"))
    out = tmp_path / "presets.json"
    content = json.dumps({"pair": "default", "runs": {"bfloat16": {"dtype": "bfloat16"}}})
    out.write_text(content, encoding="utf-8")
    assert main(["--pair", "toy", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"preset_runs: '{out}' holds the default pair's runs, which a toy run would replace: "
                   "name another --out.")
    assert out.read_text(encoding="utf-8") == content


def test_the_out_help_says_the_run_replaces_its_dtypes_entry_in_the_committed_file(capsys):
    """Read 32: `--out` had no help, while its default is the committed presets.json, whose runs[<dtype>] a run
    replaces (the other dtypes' runs stay), as the module docstring says and `main` does."""
    import inspect

    from specviz.scripts import preset_runs

    with pytest.raises(SystemExit):
        preset_runs.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ("the file whose runs[<dtype>] this run replaces, the other dtypes' runs kept (default: the committed "
            "assets/benchmarks/presets/presets.json)") in text
    assert str(preset_runs.PRESET_RESULTS).endswith("assets/benchmarks/presets/presets.json")
    assert 'runs = {**whole.get("runs", {}), dtype: record}' in inspect.getsource(preset_runs.main)

