"""This machine's calibration and the draft shape chosen from it (specviz.labs.calibration, .shape_choice)."""

import dataclasses
import itertools
import json
import math

import pytest

from specviz.core.i18n import using
from specviz.engine.draft_shape import DraftShape
from specviz.labs import calibration, shape_choice
from specviz.labs.calibration import Calibration
from specviz.labs.shape_choice import PAYS, choose_shape, predict, predictions, slowdown_note


def machine(curve: dict[int, float], drafter=0.004, generate=0.055, **kw) -> Calibration:
    """A calibration built by hand: `curve` maps tokens fed to a forward's seconds."""
    base = dict(pair="fake", proposer="eagle", dtype="float32", device="cpu", kernels="onednn-packed",
                cpu="Test CPU", cpu_flags=("avx2",), cpu_bf16=False, torch="2.13.0", threads=2,
                verify=tuple(sorted(curve.items())), drafter_seconds=drafter, generate_seconds=generate, spread=0.02,
                measured_at="2026-12-03T12:00:00Z")
    return Calibration(**{**base, **kw})


FLAT = machine({1: 0.05, 5: 0.051, 9: 0.052, 17: 0.053, 25: 0.055, 33: 0.057})  # verifying is nearly free
# made up: steep, as stock MKL kernels are
STEEP = machine({1: 0.05, 2: 0.09, 5: 0.11, 9: 0.13, 17: 0.15, 25: 0.18, 33: 0.20})
TABLE = {"pair": "fake", "proposer": "eagle", "prompts": 8, "rows": [
    {"k": 2, "tree_nodes": 0, "tree_width": 4, "tree_lookup": 0, "temperature": 0.0, "tokens_per_forward": 1.9,
     "mean_rows": 3.0},
    {"k": 4, "tree_nodes": 0, "tree_width": 4, "tree_lookup": 0, "temperature": 0.0, "tokens_per_forward": 2.1,
     "mean_rows": 4.9},
    {"k": 4, "tree_nodes": 16, "tree_width": 4, "tree_lookup": 8, "temperature": 0.0, "tokens_per_forward": 2.9,
     "mean_rows": 21.0},
    {"k": 2, "tree_nodes": 0, "tree_width": 4, "tree_lookup": 0, "temperature": 0.7, "tokens_per_forward": 1.7,
     "mean_rows": 3.0},
    {"k": 4, "tree_nodes": 16, "tree_width": 4, "tree_lookup": 8, "temperature": 0.7, "tokens_per_forward": 2.2,
     "mean_rows": 21.0},
]}


def test_the_prediction_is_the_formula():
    p = predict(DraftShape(4), 2.1, 4.9, STEEP)
    verify = STEEP.ratio(4.9)  # between n = 2 and n = 5, linearly
    assert verify == pytest.approx(1.8 + (2.2 - 1.8) * (4.9 - 2) / 3)
    assert p.draft_cost == pytest.approx(4 * 0.004 / 0.05) and p.overhead_cost == 0  # no real runs: the timed pass
    assert p.vs_target_only == pytest.approx(2.1 / (verify + p.draft_cost))
    assert p.vs_generate == pytest.approx(p.vs_target_only * 0.055 / 0.05)
    real = dataclasses.replace(STEEP, steps=(("chain-greedy", 0.005, 0.003), ("tree-sampled", 0.006, 0.004)))
    q = predict(DraftShape(4), 2.1, 4.9, real)  # the pass and the overhead as a real chain run paid them
    assert q.draft_cost == pytest.approx(4 * 0.005 / 0.05) and q.overhead_cost == pytest.approx(0.003 / 0.05)
    assert q.vs_generate == pytest.approx(2.1 * 0.055 / (0.05 * verify + 4 * 0.005 + 0.003))
    tree = predict(DraftShape(3, 6, 4), 2.4, 7.0, real, temperature=0.7)
    assert tree.draft_cost == pytest.approx(3 * 0.006 / 0.05) and tree.overhead_cost == pytest.approx(0.004 / 0.05)


def test_a_flat_curve_chooses_the_big_tree_and_a_steep_one_a_short_chain():
    assert predictions(TABLE, FLAT, 0.0)[0].shape == DraftShape(4, 16, 4, 8)
    assert predictions(TABLE, STEEP, 0.0)[0].shape == DraftShape(2)
    ranked = predictions(TABLE, STEEP, 0.0)
    assert [p.vs_generate for p in ranked] == sorted((p.vs_generate for p in ranked), reverse=True)
    assert len(ranked) == 3  # only the greedy rows


def test_a_temperature_reads_the_nearest_sampled_rows():
    assert {p.temperature for p in predictions(TABLE, FLAT, 1.0)} == {0.7}
    assert {p.temperature for p in predictions(TABLE, FLAT, 0.0)} == {0.0}


def test_choose_shape_uses_this_machines_calibration(monkeypatch):
    monkeypatch.setattr(shape_choice, "shape_table", lambda name: TABLE if name == "fake" else None)
    pair = type("P", (), {"name": "fake", "default_proposer": "eagle"})()
    assert choose_shape(pair, 0.0, calibration=FLAT) == DraftShape(4, 16, 4, 8)
    assert choose_shape(pair, 0.0, calibration=STEEP) == DraftShape(2)
    assert choose_shape(pair, 0.0, calibration=FLAT, proposer="ngram") == DraftShape()  # no table for it: catalog's
    shape = choose_shape(pair, 0.7, calibration=FLAT)
    assert set(dataclasses.asdict(shape)) == {"k", "tree_nodes", "tree_width", "tree_lookup"}


def test_choose_shape_without_a_table_keeps_the_catalog_shape():
    assert choose_shape("toy") == DraftShape(4)


def test_no_shape_paying_is_said_in_one_sentence_with_the_reason():
    slow = machine({1: 0.05, 5: 0.15, 9: 0.2, 25: 0.3}, generate=0.05)
    best = predictions(TABLE, slow, 0.7)[0]
    assert best.vs_generate < PAYS
    note = slowdown_note(best, slow)
    assert "Test CPU" in note and "float32" in note and note.count(". ") <= 1 and note.endswith("run it.")
    # Read 47: the step's overhead (cli calibrate's "a step's overhead") was "the step's own work" here
    assert "the drafter and the step's overhead add" in note
    with using("pt"):
        assert "Test CPU" in slowdown_note(best, slow) and "run it" not in slowdown_note(best, slow)
        assert "o rascunhador e a sobrecarga do passo somam" in slowdown_note(best, slow)
    assert slowdown_note(predictions(TABLE, FLAT, 0.0)[0], FLAT) is None
    # 43rd read: the margin was typed ("by 5%") beside the constant that decides it; it is now read from PAYS
    import specviz.labs.shape_choice as shape_choice

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(shape_choice, "PAYS", 1.10)
        assert "beat model.generate by 10%:" in slowdown_note(best, slow)


def test_no_shape_paying_on_a_gpu_names_the_gpu_not_the_host_cpu():
    """Read 48: the sentence said "On this machine (Test CPU, bfloat16)" beside costs timed on cuda:0, so a GPU's
    slowdown read as the host CPU's."""
    import dataclasses

    slow = machine({1: 0.05, 5: 0.15, 9: 0.2, 25: 0.3}, generate=0.05)
    gpu = dataclasses.replace(slow, device="cuda:0", dtype="bfloat16")
    note = slowdown_note(predictions(TABLE, gpu, 0.7)[0], gpu)
    assert note.startswith("On this machine (cuda:0, bfloat16)") and "Test CPU" not in note
    assert slowdown_note(predictions(TABLE, slow, 0.7)[0], slow).startswith("On this machine (Test CPU, float32)")


def test_calibration_round_trips_and_is_cached_per_machine_dtype_and_kernels(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))
    cal = machine({1: 0.05, 5: 0.06})
    assert Calibration.from_json(cal.to_json()) == cal
    keys = {calibration.cache_key("default", d, k) for d in ("float32", "bfloat16") for k in ("stock", "onednn-packed")}
    assert len(keys) == 4
    path = calibration.cache_path("fake", "float32", "onednn-packed")
    path.parent.mkdir(parents=True)
    path.write_text("{ not json")
    assert calibration.cached("fake", "float32", "onednn-packed") is None  # damaged: measured again
    path.write_text(json.dumps({**json.loads(cal.to_json()), "version": 0}))
    assert calibration.cached("fake", "float32", "onednn-packed") is None  # another format


def _fake_pair(tmp_path, monkeypatch):
    """A stand-in for a loaded pair (name "fake", EAGLE by default, float32, packed kernels on the CPU), with the
    calibration cache in `tmp_path`."""
    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))
    monkeypatch.setattr(calibration, "dtype_name", lambda dtype: "float32")
    return type("P", (), {"name": "fake", "default_proposer": "eagle", "dtype": None, "kernels": "onednn-packed",
                          "device": "cpu"})()


def test_calibrate_caches_a_quiet_measurement_only(tmp_path, monkeypatch):
    pair = _fake_pair(tmp_path, monkeypatch)
    calls = []

    def fake_measure(pair, proposer=None, progress=None, clock=None):
        calls.append(proposer)
        return machine({1: 0.05, 5: 0.06}, spread=0.5 if len(calls) == 1 else 0.01)

    monkeypatch.setattr(calibration, "measure", fake_measure)
    assert not calibration.calibrate(pair).quiet  # busy: not cached
    assert calibration.calibrate(pair).quiet  # measured again, quiet: cached
    assert calibration.calibrate(pair).quiet and len(calls) == 2  # read from the cache
    assert calibration.calibrate(pair, force=True) and len(calls) == 3


def test_a_calibration_of_another_proposer_is_kept_beside_the_defaults(tmp_path, monkeypatch):
    """Read 44: the cache key left the proposer out, so `calibrate --proposer ngram` replaced the default pair's EAGLE
    calibration and the next default run measured again (and the other way round). Each proposer now has its file;
    the default proposer's file keeps its old name."""
    pair = _fake_pair(tmp_path, monkeypatch)
    calls = []

    def fake_measure(pair, proposer=None, progress=None, clock=None):
        calls.append(proposer or pair.default_proposer)
        return machine({1: 0.05, 5: 0.06}, proposer=proposer or pair.default_proposer)

    monkeypatch.setattr(calibration, "measure", fake_measure)
    for proposer in ("eagle", "ngram", None, "ngram", "eagle"):
        calibration.calibrate(pair, proposer)
    assert calls == ["eagle", "ngram"]  # each measured once, then read from its own file
    assert calibration.cached_for(pair).proposer == "eagle"
    assert calibration.cached_for(pair, "ngram").proposer == "ngram"
    assert calibration.cache_key("fake", "float32", "stock") == calibration.cache_key("fake", "float32", "stock", "cpu",
                                                                                      None)
    assert sorted(p.name.split("-")[1] for p in (tmp_path / "calibration").iterdir()) == ["float32", "ngram"]


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_measure_times_the_toy_pair(toy):
    cal = calibration.measure(toy, "draft", sizes=(1, 2, 5), rounds=2)
    assert [n for n, _ in cal.verify] == [1, 2, 5] and all(s > 0 for _, s in cal.verify)
    assert cal.ratio(1) == 1.0 and cal.drafter_seconds > 0 and cal.generate_seconds > 0
    assert {key for key, _d, _o in cal.steps} == {"chain-greedy", "chain-sampled", "tree-greedy", "tree-sampled"}
    assert all(draft > 0 and overhead > 0 for _k, draft, overhead in cal.steps)
    assert cal.kernels == toy.kernels and cal.dtype == "float32" and cal.cpu


def test_the_committed_table_covers_chains_and_trees_at_both_temperatures():
    table = shape_choice.shape_table("default")
    assert table is not None, "assets/benchmarks/shapes/default.json is missing"
    shapes = {(DraftShape.of(r), r["temperature"]) for r in table["rows"]}
    for t in (0.0, 0.7):
        assert {DraftShape(k) for k in range(1, 7)} <= {s for s, temp in shapes if temp == t}
        assert sum(1 for s, temp in shapes if temp == t and s.is_tree) >= 20
    assert all(1 <= r["tokens_per_forward"] <= r["k"] + max(1, r["tree_lookup"]) + 1 for r in table["rows"])
    assert table["proposer"] == "eagle" and table["dtype"] and table["machine"]["cpu"]


def test_the_docstring_counts_the_short_real_runs_each_proposer_makes():
    """A tree probe runs only for a proposer that can draft a tree (calibration._probe_steps): four runs for the
    default pair's EAGLE drafter, two for n-gram lookup; the docstring once said four for every proposer."""
    from specviz.engine.proposers import registry
    from specviz.models.catalog import load_catalog

    assert load_catalog()["default"].proposer == "eagle"
    words = {2: "two", 4: "four"}
    doc = " ".join(calibration.__doc__.split())
    for name, who in (("eagle", "the default pair's EAGLE drafter"), ("ngram", "n-gram lookup")):
        kinds = [kind for kind in calibration.PROBES if kind != "tree" or registry.can_branch(name)]
        runs = len(kinds) * len(calibration.PROBE_TEMPERATURES)
        assert f"{words[runs]} for {who}" in doc, (name, runs)


@pytest.mark.parametrize("damage", ["no rows", "rows text", "nan", "negative", "mean_rows text", "temperature nan"])
def test_a_damaged_shape_table_is_no_table(tmp_path, monkeypatch, damage):
    """shape_table promises None for a table it cannot use, so the pair keeps its recommendation: empty rows ended
    in min() of an empty list, text mean_rows in a TypeError, and a NaN or negative tokens per forward was ranked."""
    good = json.loads((shape_choice.SHAPES_DIR / "default.json").read_text(encoding="utf-8"))
    rows = good["rows"]
    bad = {"no rows": [], "rows text": "x", "nan": [{**rows[0], "tokens_per_forward": math.nan}, *rows[1:]],
           "negative": [{**r, "tokens_per_forward": -5} for r in rows],
           "mean_rows text": [{**r, "mean_rows": "x"} for r in rows],
           "temperature nan": [{**r, "temperature": math.nan} for r in rows]}[damage]
    (tmp_path / "broken.json").write_text(json.dumps({**good, "rows": bad}), encoding="utf-8")
    (tmp_path / "default.json").write_text(json.dumps(good), encoding="utf-8")
    monkeypatch.setattr(shape_choice, "SHAPES_DIR", tmp_path)
    shape_choice.shape_table.cache_clear()
    try:
        assert shape_choice.shape_table("broken") is None
        assert shape_choice.shape_table("default") is not None  # the committed table itself still reads
    finally:
        shape_choice.shape_table.cache_clear()


@pytest.mark.parametrize("verify", [None, [[1, 0.0], [5, 0.05]], [[2, 0.1]], [[1, 0.05], [5, "nan"]]])
def test_a_damaged_cached_calibration_is_measured_again(tmp_path, monkeypatch, verify):
    """cached() promises None for a file it cannot read (it is then measured again): a JSON list raised an
    AttributeError out of it, and a verify curve without a positive one-token time loaded, then divided by 0 or
    raised KeyError in `one`."""
    monkeypatch.setattr(calibration, "cache_path", lambda *args: tmp_path / "cal.json")
    good = Calibration("p", "eagle", "float32", "cpu", "stock", "cpu", (), False, "2", 2, ((1, 0.05), (5, 0.055)),
                       0.004, 0.06, 0.0)
    (tmp_path / "cal.json").write_text(good.to_json(), encoding="utf-8")
    assert calibration.cached("default", "float32", "stock") == good  # the file as written reads back
    text = "[]" if verify is None else json.dumps({**json.loads(good.to_json()), "verify": verify})
    (tmp_path / "cal.json").write_text(text, encoding="utf-8")
    assert calibration.cached("default", "float32", "stock") is None


@pytest.mark.parametrize("field, value", [("drafter_seconds", None), ("generate_seconds", "x"), ("spread", None),
                                          ("sampled_generate_seconds", None), ("drafter_seconds", 1e308),
                                          ("cpu_flags", [[1, "x"]]), ("threads", True), ("steps", [["c", "x", 0]]),
                                          ("verify", [[1, 1e-320]]), ("deep", None), ("verify", "infinite size"),
                                          ("verify", "huge time")])
def test_a_cached_calibration_of_the_wrong_types_is_measured_again(tmp_path, monkeypatch, field, value):
    """Only the verify curve was checked: a cache file with `"drafter_seconds": null` (or text, or 1e308) loaded, and
    the costs it feeds divided by it (TypeError) or came out infinite; JSON nested 50,000 deep raised a
    RecursionError out of cached() (30th read), and a verify curve of size Infinity (which Python's JSON reads) or a
    time of 400 digits an OverflowError (read 50). Each is now a file cached() cannot read: None, measured again."""
    monkeypatch.setattr(calibration, "cache_path", lambda *args: tmp_path / "cal.json")
    good = Calibration("p", "eagle", "float32", "cpu", "stock", "cpu", (), False, "2", 2, ((1, 0.05), (5, 0.055)),
                       0.004, 0.06, 0.0)
    if field == "verify" and isinstance(value, str):
        value = {"infinite size": [[1, 0.05], [math.inf, 0.06]], "huge time": [[1, 10**400]]}[value]
    text = "[" * 50_000 if field == "deep" else json.dumps({**json.loads(good.to_json()), field: value})
    (tmp_path / "cal.json").write_text(text, encoding="utf-8")
    assert calibration.cached("default", "float32", "stock") is None


def test_the_machine_line_is_in_the_readers_language():
    """Read 40: the calibrate command's and the This machine panel's machine line was English inside a Portuguese
    sentence ("no listed instruction sets" for a CPU with none of them, an ARM laptop's); targets_bench's file keeps
    the English `machine`."""
    arm = machine({1: 0.05, 2: 0.06}, cpu="Apple M2", cpu_flags=(), threads=1)
    assert arm.machine == "Apple M2, 1 thread, no listed instruction sets"
    assert arm.machine_words() == arm.machine
    with using("pt"):
        words = arm.machine_words()
    assert words.startswith("Apple M2, 1 thread, ") and "instruction" not in words
    with using("pt"):
        assert FLAT.machine_words() == "Test CPU, 2 threads, avx2"


def _generate_clock(good_rounds: set[int]):
    """A fake clock for `_generate_timer`: in each of its rounds (round 0 is the warm-up) the 10-token call takes
    10 ms and the 2-token one 2 ms, except outside `good_rounds`, where both take 2 ms: a zero difference."""
    readings = itertools.count()

    def clock() -> float:
        index = next(readings)
        round_, reading = divmod(index, 4)  # t0, t1 of the 10-token call, then of the 2-token one
        if reading % 2 == 0:
            return 0.0
        return 0.010 if reading == 1 and round_ in good_rounds else 0.002
    return clock


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_generate_round_whose_difference_is_zero_is_unusable_not_a_nanosecond(toy, monkeypatch):
    """Read 46: a busy machine's zero difference was clamped to 1e-9 s, so the spread of the repeats read about 1e8
    and the calibrate command said they "agreed within 10,543,728,911.8%"."""
    once = calibration._generate_timer(toy.target, list(range(3, 27)), _generate_clock(set()))
    assert math.isnan(once())
    real = calibration._generate_timer
    monkeypatch.setattr(calibration, "_generate_timer", lambda model, context, clock, sample=False:
                        real(model, context, _generate_clock({2}), sample))
    monkeypatch.setattr(calibration, "_probe_steps", lambda pair, proposer: ())
    cal = calibration.measure(toy, "draft", sizes=(1, 2, 5), rounds=2)
    assert not cal.quiet and cal.spread == math.inf
    assert cal.generate_seconds > 0 and math.isfinite(cal.generate_seconds)  # the one usable round
    with using("en"):
        assert cal.disagreement() == "a timing of model.generate came out zero or negative, so the rounds could " \
            "not be compared"
    with using("pt"):
        assert cal.disagreement() == "uma medição do model.generate deu zero ou negativa, então as rodadas não " \
            "puderam ser comparadas"
    monkeypatch.setattr(calibration, "_generate_timer", lambda model, context, clock, sample=False:
                        real(model, context, _generate_clock(set()), sample))
    with pytest.raises(calibration.TooBusy, match="Every timing of model.generate came out zero or negative"):
        calibration.measure(toy, "draft", sizes=(1, 2, 5), rounds=2)


def test_an_ngram_calibration_whose_drafter_pass_is_untimed_reads_back_from_the_cache(tmp_path, monkeypatch):
    """Read 52: n-gram lookup runs no model, so `measure` writes its drafter pass as 0 (untimed), but the cache
    refused a drafter pass under a nanosecond as damaged: `calibrate --pair toy --proposer ngram` said "Cached in
    ..." and measured again (30 to 45 s here) on every later run."""
    pair = _fake_pair(tmp_path, monkeypatch)
    calls = []

    def fake_measure(pair, proposer=None, progress=None, clock=None):
        calls.append(proposer)
        return machine({1: 0.05, 5: 0.06}, drafter=0.0, proposer="ngram",
                       steps=(("chain-greedy", 3.5e-05, 0.00011),))

    monkeypatch.setattr(calibration, "measure", fake_measure)
    first = calibration.calibrate(pair, "ngram")
    assert first.quiet and first.drafter_seconds == 0.0
    assert calibration.cached_for(pair, "ngram") == first  # the file as written reads back
    assert calibration.calibrate(pair, "ngram") == first and calls == ["ngram"]  # not measured again


def test_calibrate_milliseconds_are_checked_as_they_are_written():
    """Read 54: `ms_decimals` checked a forward under 10^−decimals ms as `small_number` writes it (0.095) while
    `calibrate` and the This machine table write it with `number` at those decimals ("0.1"), so a 0.1 ms one-token
    forward and a 0.095 ms two-token one passed at one decimal and printed "n=2: 0.1 ms (0.95)" (0.1 ÷ 0.1 is 1.00)."""
    from types import SimpleNamespace

    from specviz.core.i18n import number
    from specviz.labs.calibration import ms_decimals

    cal = SimpleNamespace(one=1e-4, verify=((1, 1e-4), (2, 9.5e-5)), drafter_seconds=0.0,
                          generate_seconds=1e-4, sampled_generate_seconds=0.0)
    digits = ms_decimals(cal)
    one = float(number(cal.one * 1e3, digits))
    assert len(cal.verify) == 2
    for _n, seconds in cal.verify:
        assert number(float(number(seconds * 1e3, digits)) / one) == number(seconds / cal.one), (digits, seconds)
