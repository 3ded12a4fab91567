"""A pair's recommended draft settings (`Pair.recommended`, `recommended:` in assets/catalog.yaml) are what the command
line and the bench run when no K or tree is given; a flag given still wins."""

from __future__ import annotations

from specviz.bench import config_from_args
from specviz.catalog import recommended_for
from specviz.cli import build_parser, draft_shape
from specviz.models import toy_pair


def _generate(*flags: str):
    return build_parser().parse_args(["generate", "--prompt", "hi", *flags])


def test_generate_without_k_or_tree_runs_the_pairs_recommended_shape():
    best = recommended_for("default")
    assert draft_shape(_generate()) == {"k": best.k, "tree_nodes": best.tree_nodes, "tree_width": best.tree_width}


def test_an_explicit_k_keeps_a_chain_and_explicit_tree_flags_win():
    assert draft_shape(_generate("--k", "6")) == {"k": 6, "tree_nodes": 0,
                                                 "tree_width": recommended_for("default").tree_width}
    assert draft_shape(_generate("--k", "5", "--tree-nodes", "12", "--tree-width", "2")) == \
        {"k": 5, "tree_nodes": 12, "tree_width": 2}
    hand = draft_shape(_generate("--pair", "some/target,some/draft"))  # not in the catalog: a chain of K = 4
    assert hand == {"k": 4, "tree_nodes": 0, "tree_width": 4}


def test_the_bench_defaults_to_the_recommended_shape_and_takes_lists_of_tree_budgets():
    best = recommended_for("default")
    config = config_from_args(build_parser().parse_args(["bench", "--pair", "default"]))
    assert config.ks == [best.k] and config.tree_nodes == [best.tree_nodes]
    assert config.tree_widths == [best.tree_width] and config.verify_dtypes == ["float32", "bfloat16"]
    swept = config_from_args(build_parser().parse_args(
        ["bench", "--pair", "toy", "--k", "3", "4", "--tree-nodes", "0", "8", "--tree-width", "2", "--verify-dtypes"]))
    assert swept.shapes() == [(3, 0, 0), (3, 8, 2), (4, 0, 0), (4, 8, 2)] and swept.verify_dtypes == []


def test_a_loaded_pair_knows_its_recommended_settings():
    assert toy_pair().recommended == recommended_for("toy")
