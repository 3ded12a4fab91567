"""Statements in the docs about what another place does or holds (the 27th read): which commands say that no draft
shape pays, and what a benchmark run's recorded load average shows."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def test_benchmarks_md_says_who_takes_the_calibrated_shape_and_who_says_none_pays():
    """The 27th read: benchmarks.md listed the race and the Playground's *Fastest here* preset among the callers that
    "take the best" shape and then said "one sentence says so" where none pays, as if every caller did. Only
    `generate` and `compare` (through `cli.machine_shape`), `calibrate` and the Speedup lab's *This machine* call
    `slowdown_note`; the race's models switch sets K, nodes and width (no lookup branch), from a cached calibration."""
    import inspect
    import re

    from specviz.ui.race import settings as race_settings

    text = " ".join((DOCS / "benchmarks.md").read_text(encoding="utf-8").split())
    assert "preset take the best; where none is predicted" not in text
    assert ("Where none is predicted to beat `model.generate` by 5%, `generate` and `compare` say so and why in one "
            "sentence on stderr (as do `calibrate` and the Speedup lab's *This machine*)") in text
    assert "and the race leaves out its lookup branch, which its tree lane does not draft" in text
    callers = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "specviz").rglob("*.py")
                     if re.search(r"\bslowdown_note\(", path.read_text(encoding="utf-8"))
                     and path.name != "shape_choice.py")
    assert callers == ["specviz/cli.py", "specviz/ui/common/this_machine.py"]
    cli = (ROOT / "specviz" / "cli.py").read_text(encoding="utf-8")
    assert cli.count("slowdown_note(") == 2  # calibrate's and machine_shape's (generate and compare)
    source = inspect.getsource(race_settings.pair_changed)
    assert "fastest_here(" in source and "race_tree_width" in source and "lookup" not in source.split('"""')[-1]


def test_the_docs_call_no_run_shared_on_a_start_load_its_own_command_can_make():
    """The 27th read: benchmarks.md called the bfloat16 packed run's machine "shared" from its note's load average
    (1.3 at the start, 2.0 at the end, on 2 cores), and assets/benchmarks/README.md called the drafts run's machine
    shared citing its note's 1.36; commit 68b529cb had said such a start load counts the command's own work
    (targets_bench's calibration, the imports). The docs now quote the figures with what they count; the drafts
    run's 5- and 15-minute averages, which predate the command, are what show other work before it."""
    bench = ROOT / "assets" / "benchmarks"
    packed = json.loads((bench / "default-cpu-bf16-packed" / "results.json").read_text(encoding="utf-8"))
    start, end = packed["machine"]["load_average_start"][0], packed["machine"]["load_average_end"][0]
    assert packed["command"].startswith("python -m specviz bench") and packed["machine"]["cores"] == 2
    text = " ".join((DOCS / "benchmarks.md").read_text(encoding="utf-8").split())
    assert "machine shared: load average" not in text
    assert (f"note: load average {start:.1f} at the start and {end:.1f} at the end on 2 cores, figures that count "
            "`targets_bench`'s own calibration before the run and the run itself") in text
    drafts = json.loads((bench / "default-cpu-drafts" / "results.json").read_text(encoding="utf-8"))["machine"]
    one, five, fifteen = drafts["load_average_start"]
    readme = " ".join((bench / "README.md").read_text(encoding="utf-8").split())
    assert "wall clock on a shared 2-core machine (the run's own note" not in readme
    assert (f"`machine.load_average_start` in its `results.json`: {one}, {five} and {fifteen} over 1, 5 and 15 "
            f"minutes") in readme and min(five, fifteen) >= drafts["cores"]


def test_both_tours_say_the_fastest_preset_runs_the_recommended_shape_until_this_machine_is_measured():
    """Read 53: app.md says the Playground's *6 · Fastest here* preset runs the predicted shape "(the pair's recommended
    one, and says so, until this machine is measured)", as the preset's own line does (FASTEST_UNMEASURED); app.pt-BR.md
    said only "roda a forma prevista", true once the machine is measured."""
    from specviz.core.i18n import _, using
    from specviz.ui.playground.settings import FASTEST_UNMEASURED

    english = " ".join((DOCS / "app.md").read_text(encoding="utf-8").split())
    portuguese = " ".join((DOCS / "app.pt-BR.md").read_text(encoding="utf-8").split())
    assert ("*6 · Fastest here* preset runs the predicted shape (the pair's recommended one, and says so, until this "
            "machine is measured)") in english
    assert ("*6 · O mais rápido aqui* do Playground roda a forma prevista (a recomendada do par, e diz isso, até esta "
            "máquina ser medida)") in portuguese
    with using("pt"):
        assert "pois esta máquina ainda não foi medida" in _(FASTEST_UNMEASURED, shape="K = 4")


def test_the_uncommitted_bf16_runs_give_their_command_and_say_which_tree_shapes_are_unrecorded():
    """Read 54: benchmarks.md quoted a "12 × 4 tree" (and an "8 × 4" one) from two uncommitted bfloat16 runs as if
    the shape were known, with "the same command (`--out /tmp/bf16run2`)" for a command. The runs kept only the node
    budget × width (commit edd3513d's body); the shape table they chose from offers each at depths 3 to 5, with or
    without a lookup branch, so the doc gives the command in full and says the depth and lookup are unrecorded."""
    rows = json.loads((ROOT / "assets" / "benchmarks" / "shapes" / "default.json").read_text(encoding="utf-8"))["rows"]
    offered = {(r["k"], r["tree_lookup"]) for r in rows if (r["tree_nodes"], r["tree_width"]) == (12, 4)}
    assert offered == {(k, lookup) for k in (3, 4, 5) for lookup in (0, 8)}
    eight = {(r["k"], r["tree_lookup"]) for r in rows if (r["tree_nodes"], r["tree_width"]) == (8, 4)}
    assert eight == offered | {(4, 4)}
    text = " ".join((DOCS / "benchmarks.md").read_text(encoding="utf-8").split())
    assert "Two more bfloat16 runs of the same command (`--out /tmp/bf16run2`" not in text
    assert ("(`python -m specviz.scripts.targets_bench --dtype bfloat16 --prompts 4 --repeats 1 --out /tmp/bf16run2`, "
            "then `--out /tmp/bf16run3`; 4 prompts, 1 repeat)") in text
    assert ("offers 12 × 4 and 8 × 4 at depth 3, 4 or 5, each with or without an 8-token lookup branch (8 × 4 also at "
            "depth 4 with a 4-token one), and which of these ran is not recorded") in text
    assert "chose a 12 × 4 tree (12 nodes, width 4) greedy" in text
