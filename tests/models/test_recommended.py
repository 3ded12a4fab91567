"""A pair's recommended draft settings (`Pair.recommended`, `recommended:` in assets/catalog.yaml) are what the command
line and the bench run when no K or tree is given; a flag given still wins."""

from __future__ import annotations

import argparse

from specviz.cli import build_parser, draft_shape
from specviz.labs.bench import config_from_args
from specviz.models.catalog import recommended_for
from specviz.models.pairs import toy_pair


def _generate(*flags: str):
    return build_parser().parse_args(["generate", "--prompt", "hi", *flags])


def test_generate_without_k_or_tree_runs_the_pairs_recommended_shape():
    best = recommended_for("default")
    assert draft_shape(_generate()) == {"k": best.k, "tree_nodes": best.tree_nodes, "tree_width": best.tree_width,
                                        "tree_lookup": best.tree_lookup}
    assert best.tree_lookup > 0  # the default pair's tree has a lookup branch
    assert draft_shape(_generate("--tree-lookup", "0"))["tree_lookup"] == 0  # a flag given wins


def test_an_explicit_k_keeps_a_chain_and_explicit_tree_flags_win():
    assert draft_shape(_generate("--k", "6")) == {"k": 6, "tree_nodes": 0,
                                                 "tree_width": recommended_for("default").tree_width, "tree_lookup": 0}
    assert draft_shape(_generate("--k", "5", "--tree-nodes", "12", "--tree-width", "2")) == \
        {"k": 5, "tree_nodes": 12, "tree_width": 2, "tree_lookup": 0}  # a tree of its own: no lookup unless asked
    assert draft_shape(_generate("--tree-nodes", "12", "--tree-lookup", "5"))["tree_lookup"] == 5
    hand = draft_shape(_generate("--pair", "some/target,some/draft"))  # not in the catalog: a chain of K = 4
    assert hand == {"k": 4, "tree_nodes": 0, "tree_width": 4, "tree_lookup": 0}


def test_the_bench_defaults_to_the_recommended_shape_and_takes_lists_of_tree_budgets():
    best = recommended_for("default")
    config = config_from_args(build_parser().parse_args(["bench", "--pair", "default"]))
    assert config.ks == [best.k] and config.tree_nodes == [best.tree_nodes]
    assert config.tree_widths == [best.tree_width] and config.verify_dtypes == ["float32", "bfloat16"]
    assert config.tree_lookup == best.tree_lookup
    own_tree = config_from_args(build_parser().parse_args(["bench", "--pair", "default", "--tree-nodes", "8"]))
    assert own_tree.tree_lookup == 0  # a tree of its own: no lookup branch unless asked
    swept = config_from_args(build_parser().parse_args(
        ["bench", "--pair", "toy", "--k", "3", "4", "--tree-nodes", "0", "8", "--tree-width", "2", "--verify-dtypes"]))
    assert swept.shapes() == [(3, 0, 0), (3, 8, 2), (4, 0, 0), (4, 8, 2)] and swept.verify_dtypes == []


def test_a_loaded_pair_knows_its_recommended_settings():
    assert toy_pair().recommended == recommended_for("toy")


def test_the_targets_command_benches_the_chosen_shapes_the_recommended_tree_and_a_chain_at_both_temperatures():
    from specviz.engine.draft_shape import DraftShape
    from specviz.scripts.targets_bench import bench_argv, run_shapes

    best = recommended_for("default")
    shapes = run_shapes("default", [DraftShape(3), DraftShape(3)])
    assert shapes == [DraftShape(3), best.shape, DraftShape(4)]
    argv = bench_argv(argparse.Namespace(pair="default", out="x", prompts=8, max_new_tokens=128, repeats=2, dtype=None,
                                         threads=None), shapes)
    config = config_from_args(build_parser().parse_args(argv))
    assert config.shape_plan() == [(3, 0, 0, 0), (best.k, best.tree_nodes, best.tree_width, best.tree_lookup),
                                   (4, 0, 0, 0)]
    assert config.temperatures == [0.0, 0.7] and config.hf == "all" and config.suites == ["held-out"]
    assert config.max_new_tokens == 128 and config.dtype is None  # the machine's dtype, on both sides


def test_the_targets_verdict_quotes_each_measured_number_against_its_target_and_the_prediction():
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench import BenchResult
    from specviz.scripts.targets_bench import TARGETS, verdicts

    result = BenchResult.load(BENCHMARKS_DIR / "default-cpu-bf16-trees" / "results.json")
    row = result.row(suite="all", proposer="eagle", temperature=0.0, policy="constant", k=4)  # the chain of 4
    measured = row["speedup_vs_hf_generate"]
    text = "\n".join(verdicts(result, {("chain K=4", 0.0): measured * 1.1}))
    line = next(x for x in text.splitlines() if f"speedup vs model.generate {measured:.2f}×" in x)
    assert ("met" if measured >= TARGETS["bfloat16"][0] else "MISSED") in line
    assert f"predicted {measured * 1.1:.2f}×, measured {measured:.2f}×: +10%, within 15%" in text
    assert "bfloat16 on both sides" in text and "machine: " in text
    assert "not measured" in text  # this run compared with model.generate greedy only (--hf greedy)


def test_recommended_does_not_call_tokens_per_forward_dtype_independent():
    """Issue 43, 21st read: `Recommended` said "Dtype-independent: tokens per target forward do not depend on it";
    in bfloat16 rounding changes some choices (the committed bfloat16 run, default-cpu-bf16-packed, writes target-only
    decoding's greedy text on fewer prompts than it ran; the float32 one on all), so the count moves a little."""
    import json

    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.models.catalog import Recommended

    doc = " ".join((Recommended.__doc__ or "").split())
    assert "Dtype-independent" not in doc and "in exact arithmetic tokens per target forward do not depend on it" in doc

    def counts(run: str) -> list[list[str]]:
        rows = json.loads((BENCHMARKS_DIR / run / "results.json").read_text())["summary"]
        return [r["identical_count"].split("/") for r in rows if r.get("identical_count")]

    bf16, f32 = counts("default-cpu-bf16-packed"), counts("default-cpu-f32-packed")
    assert bf16 and any(same != of for same, of in bf16)  # bfloat16 kept other tokens on some prompts
    assert f32 and all(same == of for same, of in f32)
