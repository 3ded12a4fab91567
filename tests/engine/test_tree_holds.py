"""Read 55: a node budget above what a tree's depth and width can hold was accepted and built a smaller tree without a
word (`generate --k 1 --tree-nodes 64 --tree-width 8` and `bench --shapes 1:64:8:16` drafted trees of 8 nodes). The
one rule (`draft_shape.tree_holds`: width + (K − 1) · width², as `grow_tree` expands at most `width` nodes a level)
refuses it at every door a person types a shape into: the command line, bench --shapes and its grid, and links."""

from __future__ import annotations

import pytest
import torch

from specviz.core.i18n import using
from specviz.engine.draft_shape import tree_holds
from specviz.engine.tree import grow_tree, rerank_tree
from specviz.runs.runspec import RunSpec


@pytest.mark.parametrize("k, width", [(1, 8), (2, 2), (3, 3), (4, 2)])
@pytest.mark.parametrize("greedy", [True, False])
def test_the_rule_is_the_largest_tree_grow_tree_builds(k, width, greedy):
    """A budget of 64 nodes builds exactly `tree_holds` nodes, greedy (rerank) or sampled: the rule is the engine's."""
    expand = lambda tree, nodes: torch.zeros(len(nodes), 50)  # noqa: E731 - every token equally likely
    probs = lambda row: row.softmax(-1)  # noqa: E731
    if greedy:
        tree = rerank_tree(expand, max_nodes=64, max_depth=k, width=width, probs=probs)
    else:
        tree = grow_tree(expand, max_nodes=64, max_depth=k, width=width, probs=probs, sampled=True,
                         generator=torch.Generator().manual_seed(0))
    assert len(tree.tokens) == tree_holds(k, width)


def test_the_command_line_refuses_a_budget_no_tree_can_hold(capsys):
    from specviz.cli import main

    args = ["generate", "--pair", "toy", "--prompt", "hi", "--k", "1", "--tree-nodes", "64", "--tree-width", "8"]
    assert main(args) == 2
    assert capsys.readouterr().err.strip() == (
        "specviz: --tree-nodes 64 is more than a tree 1 deep and 8 wide can hold (8): give at most 8, or a larger --k "
        "or --tree-width.")
    assert main([*args, "--lang", "pt"]) == 2
    assert capsys.readouterr().err.strip() == (
        "specviz: --tree-nodes 64 é mais do que cabe numa árvore de profundidade 1 e largura 8 (8): dê no máximo 8, "
        "ou um --k ou --tree-width maior.")


def test_a_link_refuses_a_budget_no_tree_can_hold():
    spec, problems = RunSpec.parse_query({"k": "1", "tree_nodes": "64", "tree_width": "8"})
    assert (spec.k, spec.tree_width, spec.tree_nodes) == (1, 8, 0) and problems == [
        "tree_nodes must be at most 8 while k is 1 and tree_width is 8, the most a tree that deep and wide can hold "
        "(got 64)"]
    with using("pt"):
        assert RunSpec.parse_query({"k": "1", "tree_nodes": "64", "tree_width": "8"})[1] == [
            "tree_nodes deve ser no máximo 8 enquanto k for 1 e tree_width for 8, o máximo que cabe numa árvore "
            "dessa profundidade e largura (recebido: 64)"]
    # a link's k that shrinks the defaults' tree below its budget is refused, and the tree stays as it was
    spec, problems = RunSpec.parse_query({"k": "1"}, RunSpec(tree_nodes=16))
    assert (spec.k, spec.tree_nodes) == (4, 16) and problems == [
        "k must be one that, with the other of k and tree_width, makes a tree that holds tree_nodes 16: a tree 1 "
        "deep and 4 wide holds only 4 (got 1)"]
    # read 55: "k must be large enough" asked the impossible where only a wider tree could hold the budget (k = 16
    # is the most allowed, tree_width 1 holds 16 nodes at most) and wrote two parentheses in a row
    with using("pt"):
        assert RunSpec.parse_query({"k": "16"}, RunSpec(tree_nodes=17, tree_width=1))[1] == [
            "k deve ser um valor que, com o outro de k e tree_width, forme uma árvore em que caibam tree_nodes 17: "
            "numa árvore de profundidade 16 e largura 1 cabem só 16 (recebido: 16)"]
    assert RunSpec.parse_query({"k": "1", "tree_nodes": "8", "tree_width": "8"})[1] == []  # it fits: as before


def test_bench_refuses_a_shape_no_tree_can_hold(capsys):
    from specviz.labs.bench.cli import parse_shape
    from specviz.labs.bench.config import BenchConfig

    with pytest.raises(ValueError) as refused:
        parse_shape("1:64:8:16")
    assert str(refused.value) == ("--shapes 1:64:8:16: NODES 64 is more than a tree 1 deep and 8 wide can hold (8): "
                                  "give at most 8, or a larger K or WIDTH.")
    assert parse_shape("1:8:8:16").label() == "tree 8x8 depth 1 + lookup 16"
    with pytest.raises(ValueError) as refused:
        BenchConfig(proposers=["draft"], ks=[1, 4], tree_nodes=[0, 16], tree_widths=[4]).check()
    assert str(refused.value) == ("--tree-nodes 16 with --k 1 and --tree-width 4: a tree 1 deep and 4 wide can hold "
                                  "at most 4 nodes: give at most 4 nodes for it, or a larger K or width.")
