"""Findings of the 48th read, in English and in Portuguese; each test says what the read found."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from specviz.core.i18n import _, using

ROOT = Path(__file__).resolve().parents[2]


def test_portuguese_names_the_bench_benchmark_as_its_glossary_does():
    """Read 48: the Portuguese Speedup lab said "rode o bench com ..." beside "rode o benchmark com ..." for the same
    thing; the glossary's term is "benchmark", and every Portuguese message uses it (the command `specviz bench`,
    the schema "specviz-bench" and the suite "Spec-Bench" are names, kept)."""
    from specviz.scripts.i18n import PO, read_catalog
    from specviz.ui.speedup import tables

    glossary = (ROOT / "docs" / "glossary.pt-BR.md").read_text(encoding="utf-8")
    assert "| benchmark | benchmark | kept |" in glossary
    strings = [text for message in read_catalog(PO) if message.id
               for text in (message.string if isinstance(message.string, tuple) else (message.string,))]
    assert any("rode o benchmark com" in text for text in strings)
    bare = [text for text in strings
            if re.search(r"(?<![-`\w])bench\b(?![-\w])", re.sub(r"`[^`]*`|specviz bench", "", text))]
    assert bare == []
    result = type("Result", (), {"summary": []})()  # no policy row anywhere: the advice to rerun the bench
    with using("pt"):
        said = tables.no_policies_text(result, 0.7)
    assert "rode o benchmark com `--policies" in said and "o bench " not in said


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_theory_pages_trace_ratio_is_not_named_c(lang):
    """Read 48: the Theory page's metric "Trace: c estimate" is draft seconds per pass over target seconds per step,
    about c / v (its help says so), while c everywhere else is the draft's cost over a one-token target forward:
    one name for two quantities. The label names it c / v in both languages."""
    from specviz.ui.theory.view import RATIO_LABELS

    page = " ".join((ROOT / "pages" / "theory.py").read_text(encoding="utf-8").split())
    assert '_("Trace: c estimate")' not in page and "RATIO_LABELS[kind]" in page
    assert RATIO_LABELS["draft"] == "Trace: draft pass / target step (about c / v)"
    with using(lang):
        label = _("Trace: draft pass / target step (about c / v)")
    assert label == {"en": "Trace: draft pass / target step (about c / v)",
                     "pt": "Traço: passagem do rascunho / passo do alvo (cerca de c / v)"}[lang]
    assert "estimate" not in label and "estimativa" not in label


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_notation_legend_lets_a_lookup_branch_reach_past_k(lang):
    """Read 48: the sidebar legend said K is "a draft tree's depth", but a lookup branch grafted onto a tree
    (`tree.graft_copy`) reaches deeper than K; the legend says the copied branch can go deeper."""
    from specviz.engine.tree import ROOT as TREE_ROOT
    from specviz.engine.tree import DraftTree, graft_copy
    from specviz.ui.common.frame import LEGEND

    k = 2  # a drafted tree of depth 2, then a copied branch of 4 tokens that shares none of its nodes
    tree = DraftTree([7, 8, 9], [TREE_ROOT, TREE_ROOT, 0], torch.zeros(3, 10), sampled=False)
    grown = graft_copy(tree, [3, 4, 5, 6], vocab_size=10)
    drafted = max(d for d, copied in zip(grown.depths, grown.copied) if not copied)
    assert drafted == k and max(grown.depths) > k
    with using(lang):
        legend = _(LEGEND)
    wanted = {"en": "(a draft tree's greatest depth; a lookup branch copied into the tree can reach deeper)",
              "pt": "(a profundidade máxima de uma árvore de rascunho; um ramo de busca copiado para a árvore pode "
                    "ir mais fundo)"}[lang]
    assert wanted in legend, legend
