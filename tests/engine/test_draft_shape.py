"""DraftShape's label: the one plain name of a shape, which scripts write into files and the pages read back."""

from __future__ import annotations

import itertools

import pytest

from specviz.engine.draft_shape import DraftShape


def test_a_label_reads_back_as_the_shape_it_names():
    """`from_label` inverts `label`: every tree (its width and lookup branch named) and every chain of the default
    width comes back equal; a chain's label names no width, so any chain comes back with the same label."""
    shapes = [DraftShape(k, nodes, width, lookup if nodes else 0)
              for k, nodes, width, lookup in itertools.product((1, 4, 8), (0, 6, 16), (2, 4), (0, 8))]
    assert len(set(shapes)) == 30  # 6 chains, 24 trees
    for shape in shapes:
        back = DraftShape.from_label(shape.label())
        assert back.label() == shape.label()
        assert back == (shape if shape.is_tree else DraftShape(shape.k))


@pytest.mark.parametrize("text", ["", "chain K=", "chain K=2 + lookup 8", "tree 16x4", "tree 16x4 depth 4 + 8",
                                  "K=4", "chain K=99",
                                  # the 29th read: these read as shapes that label() writes otherwise
                                  "tree 0x4 depth 4", "tree 16x4 depth 4 + lookup 0", "chain K=04", "chain K=\u0663"])
def test_text_that_is_no_label_is_one_sentence(text):
    with pytest.raises(ValueError) as error:
        DraftShape.from_label(text)
    assert "\n" not in str(error.value)


def test_bench_reports_cards_and_the_speedup_lab_name_a_shape_through_draft_shape():
    """Issue 45 item 2: the bench report (`_shape`, "16×4 + 8"), the model cards (`draft_shape`, "tree 16 × 4 +
    lookup 8") and the Speedup lab (`shape_name`, its own translated sentence) each wrote a shape their own way. They
    now call `DraftShape.short()`, `label()` and `describe()`; no module formats a row's tree fields by hand."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "specviz"
    for path in ("labs/bench/report.py", "distill/cards.py", "ui/speedup/trees.py"):
        text = (root / path).read_text(encoding="utf-8")
        assert "DraftShape.of(" in text and "{row['tree_nodes']}" not in text and "{r['tree_nodes']}" not in text, path
    assert DraftShape(4, 16, 4, 8).short() == "16×4 + 8" and DraftShape(3).short() == "chain"
    assert DraftShape.of({"k": 4, "tree_nodes": 16, "tree_width": 4, "tree_lookup": 8}).short() == "16×4 + 8"


def test_a_shape_of_one_node_or_one_copied_token_says_it_in_the_singular():
    """Read 44: `describe()` wrote "a tree of 1 nodes" and "plus up to 1 tokens copied from the context" for shapes
    the ranges allow (1 node, a lookup branch of 1); Portuguese "uma árvore de 1 nós", "até 1 tokens copiados"."""
    from specviz.core.i18n import using

    assert DraftShape(1, 1, 1, 1).describe() == (
        "a tree of 1 node, depth 1, width 1, plus up to 1 token copied from the context")
    assert DraftShape(4, 16, 4, 8).describe() == (
        "a tree of 16 nodes, depth 4, width 4, plus up to 8 tokens copied from the context")
    assert DraftShape(1, 1, 1).describe() == "a tree of 1 node, depth 1, width 1"
    with using("pt"):
        assert DraftShape(1, 1, 1, 1).describe() == (
            "uma árvore de 1 nó, profundidade 1, largura 1, mais até 1 token copiado do contexto")
        assert DraftShape(4, 16, 4).describe() == "uma árvore de 16 nós, profundidade 4, largura 4"


def test_a_budget_above_what_the_tree_holds_is_shown_with_the_nodes_that_fit():
    """Read 55: the committed shape table (assets/benchmarks/shapes/default.json, the Speedup lab's This machine
    table and calibrate's pick) names "tree 16x2 depth 4", which holds at most 14 nodes (2 + 3 · 2²; its mean_rows
    14.741 agrees), yet was shown as "tree 16×2 depth 4", "16×2" and "a tree of 16 nodes, depth 4, width 2"."""
    import json
    from pathlib import Path

    from specviz.core.i18n import using

    shape = DraftShape.from_label("tree 16x2 depth 4")
    assert shape.label() == "tree 16x2 depth 4"  # the identifier the committed JSON holds stays
    assert shape.shown() == "tree 16×2 depth 4 (14 fit)" and shape.short() == "16×2 (14 fit)"
    assert shape.describe() == "a tree of 14 nodes, depth 4, width 2"
    with using("pt"):
        assert shape.describe() == "uma árvore de 14 nós, profundidade 4, largura 2"
    assert DraftShape.from_label(shape.shown()) == shape  # what shown() writes reads back
    assert DraftShape(4, 24, 2, 8).shown() == "tree 24×2 depth 4 + lookup 8 (14 fit)"
    assert DraftShape.from_label(DraftShape(4, 24, 2, 8).shown()) == DraftShape(4, 24, 2, 8)
    for wrong in ("tree 16×2 depth 4 (13 fit)", "tree 16×4 depth 4 (14 fit)", "tree 16x2 depth 4 (14 fit)",
                  "tree 14×2 depth 4 (14 fit)"):
        with pytest.raises(ValueError, match="is not how specviz names a draft shape"):
            DraftShape.from_label(wrong)
    table = json.loads((Path(__file__).resolve().parents[2] / "assets/benchmarks/shapes/default.json").read_text())
    over = [DraftShape.from_label(r["label"]) for r in table["rows"] if "16x2" in r["label"]]
    assert over and all(s.shown().endswith("(14 fit)") for s in over)


def test_benchmarks_md_counts_the_distinct_trees_its_sweeps_drafted():
    """Read 55: docs/benchmarks.md said `--k 4 5 --tree-nodes 16 24 --tree-width 2 3 4` swept "12 sampled trees",
    but at depth 4 and width 2 both 16 and 24 nodes draft the same 14-node tree: 11 distinct trees. The greedy
    sweeps' 21 trees all fit their budgets."""
    from pathlib import Path

    def distinct(ks, nodes, widths):
        return len({DraftShape(k, n, w).fitted() for k, n, w in itertools.product(ks, nodes, widths)})

    doc = " ".join((Path(__file__).resolve().parents[2] / "docs/benchmarks.md").read_text(encoding="utf-8").split())
    assert distinct((4, 5), (16, 24), (2, 3, 4)) == 11
    assert "over 12 sampled shapes, 11 distinct trees" in doc and "12 sampled trees" not in doc
    assert distinct((4, 5, 6), (16, 24, 32), (4,)) + distinct((5, 6, 7), (16, 20), (6, 8)) == 21
    assert "2.64–2.79 tokens per forward over 21 trees" in doc
