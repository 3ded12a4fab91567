"""The command a script's results file records, typed again, runs the same measurement: it names every default the
run resolved on its machine (the dtype, the draft shape, the proposer), not only the flags that were typed. A
greedy_identity or tree_sweep file recorded `--dtype float32 --prompts 64` while the dtype and the shape came from the
machine's defaults, so the same command on a machine with bf16 instructions, or with another calibration, ran another
dtype or shape (specviz.scripts.recorded_command)."""

from __future__ import annotations

import json
import shlex

import pytest

from specviz.models.catalog import recommended_for


def _argv(command: str, prog: str) -> list[str]:
    assert command.startswith(prog + " ")
    return shlex.split(command[len(prog) + 1:])


@pytest.mark.slow  # two greedy runs of 4 tokens on the toy pair, twice
def test_greedy_identitys_recorded_command_names_the_shape_and_dtype_it_resolved(tmp_path):
    from specviz.scripts import greedy_identity

    prog = "python -m specviz.scripts.greedy_identity"
    first, again = tmp_path / "first.json", tmp_path / "again.json"
    assert greedy_identity.main(["--pair", "toy", "--proposer", "draft", "--k", "2", "--prompts", "1",
                                 "--max-new-tokens", "4", "--out", str(first)]) == 0
    record = json.loads(first.read_text())
    best = recommended_for("toy")  # --k alone keeps the pair's recommended tree, at depth K
    argv = _argv(record["command"], prog)
    assert argv[argv.index("--dtype") + 1] == record["dtype"] == "float32"
    assert argv[argv.index("--tree-nodes") + 1] == str(best.tree_nodes)
    assert argv[argv.index("--tree-width") + 1] == str(best.tree_width)
    argv[argv.index("--out") + 1] = str(again)
    assert greedy_identity.main(argv) == 0
    rerun = json.loads(again.read_text())
    assert (rerun["shape"], rerun["dtype"], rerun["entries"]) == (record["shape"], record["dtype"], record["entries"])


@pytest.mark.slow  # a sweep of two shapes over one prompt of 4 tokens on the toy pair
def test_tree_sweeps_json_names_what_it_resolved_and_the_machine(tmp_path):
    from specviz.scripts import tree_sweep

    out = tmp_path / "sweep.json"
    assert tree_sweep.main(["--pair", "toy", "--k", "2", "--tree-nodes", "0", "4", "--tree-width", "2",
                            "--prompts", "1", "--max-new-tokens", "4", "--json", str(out)]) == 0
    record = json.loads(out.read_text())
    argv = _argv(record["command"], "python -m specviz.scripts.tree_sweep")
    assert argv[argv.index("--dtype") + 1] == record["dtype"] == "float32"
    assert argv[argv.index("--proposer") + 1] == record["proposer"] == "draft"  # the pair's own, named
    assert argv[argv.index("--tree-lookup") + 1] == "0" and argv[argv.index("--temperature") + 1] == "0.0"
    assert record["machine"]["kernels"] and record["machine"]["cpu"] and record["machine"]["date"]
    assert record["temperature"] == 0.0 and out.read_text().endswith("}\n")


@pytest.mark.slow  # the 39 shapes of the grid over one prompt of 2 tokens on the toy pair
def test_shape_tables_machine_names_the_kernels_its_counts_hold_for(tmp_path):
    """The table's counts hold for one dtype and one set of kernels (its docstring says so); its machine record had
    no kernels and its command no proposer (the pair's own, by default)."""
    from specviz.scripts import shape_table

    out = tmp_path / "table.json"
    assert shape_table.main(["--pair", "toy", "--temperatures", "0", "--prompts", "1", "--max-new-tokens", "2",
                             "--out", str(out)]) == 0
    table = json.loads(out.read_text())
    assert table["machine"]["kernels"] and table["machine"]["dtype"] == table["dtype"] == "float32"
    argv = _argv(table["commands"][0], "python -m specviz.scripts.shape_table")
    assert argv[argv.index("--proposer") + 1] == table["proposer"] == "draft"


def test_the_committed_shape_tables_note_names_the_dtype_and_kernels_of_its_counts():
    """Its note said the counts are "the same on any machine"; another dtype or other kernels change which drafts are
    kept (shape_table's docstring), so the note names the ones its machine record holds."""
    from specviz.labs.shape_choice import SHAPES_DIR

    table = json.loads((SHAPES_DIR / "default.json").read_text())
    assert (f"the same on any machine with this dtype ({table['dtype']}) and these kernels "
            f"({table['machine']['kernels']})") in table["note"]


@pytest.mark.slow  # a chain and a tree over one prompt of 4 tokens on the toy pair
def test_tree_tokens_prints_the_dtype_it_ran_not_the_flag(capsys):
    """`--dtype auto` printed "auto on cpu": the header names the dtype the pair was loaded in."""
    from specviz.scripts import tree_tokens

    assert tree_tokens.main(["--pair", "toy", "--proposer", "draft", "--dtype", "auto", "--k", "2", "--tree-nodes", "4",
                             "--tree-width", "2", "--prompts", "1", "--max-new-tokens", "4"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.startswith("pair toy, proposer draft, float32 on cpu, T = 0,"), head


@pytest.mark.slow  # one prompt of 4 tokens on the toy pair, greedy, both sides
def test_gpu_benchs_result_records_a_command_that_names_k_and_dtype(tmp_path):
    """Its JSON had no command at all; with one pair the K (the catalog's) and the dtype (the machine's) are named."""
    from specviz.scripts import gpu_bench

    out = tmp_path / "gpu.json"
    assert gpu_bench.main(["--pair", "toy", "--device", "cpu", "--prompts", "1", "--max-new-tokens", "4",
                           "--temperatures", "0", "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    argv = _argv(record["command"], "python -m specviz.scripts.gpu_bench")
    pair = record["pairs"][0]
    assert argv[argv.index("--k") + 1] == str(pair["k"]) and argv[argv.index("--dtype") + 1] == pair["dtype"]
    assert argv[argv.index("--temperatures") + 1] == "0" and argv.count("--temperatures") == 1  # as typed
    parsed = gpu_bench.build_parser().parse_args(argv)
    assert (parsed.k, parsed.dtype, parsed.temperatures) == (pair["k"], pair["dtype"], [0.0])


@pytest.mark.slow  # one prompt of 4 tokens on the toy pair, greedy, both sides
def test_gpu_benchs_printed_speeds_name_their_dtype_device_and_sides(tmp_path, capsys):
    """38th read: gpu_bench printed "toy  T=0.0: 234.3 vs 740.4 tokens/s, speedup 0.32x": a timing with no dtype or
    device (STYLE.md), and no word on which side each number is."""
    from specviz.scripts import gpu_bench

    out = tmp_path / "gpu.json"
    assert gpu_bench.main(["--pair", "toy", "--device", "cpu", "--prompts", "1", "--max-new-tokens", "4",
                           "--temperatures", "0", "--out", str(out)]) == 0
    pair = json.loads(out.read_text())["pairs"][0]
    line = capsys.readouterr().out.strip().splitlines()[-1]
    speeds = pair["summary"]["0.0"]
    assert line.startswith(f"toy ({pair['dtype']} on {pair['device']})  T=0.0: speculative "
                           f"{speeds['speculative_tokens_per_s']:.1f} vs target-only "
                           f"{speeds['target_only_tokens_per_s']:.1f} tokens/s"), line
