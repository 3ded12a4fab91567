"""Small findings of the 45th read, in English and in Portuguese; each test says what the read found."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import torch
from streamlit.testing.v1 import AppTest

from specviz.core.i18n import _, using
from specviz.engine.trace import TokenKind
from specviz.labs.examples import description_figures, get_example
from specviz.runs.runspec import SETTINGS
from specviz.scripts.i18n import read_catalog
from specviz.ui.common.palette import legend_html

ROOT = Path(__file__).resolve().parents[2]

KEPT = {"en": "a proposed token the target kept (drafted, or ❐ copied by a tree's lookup branch)",
        "pt": "um token proposto que o alvo manteve (rascunhado, ou ❐ copiado pelo ramo de busca de uma árvore)"}
DROPPED = {"en": "a proposed token the target dropped (drafted, or ❐ copied by a tree's lookup branch)",
           "pt": "um token proposto que o alvo descartou (rascunhado, ou ❐ copiado pelo ramo de busca de uma árvore)"}


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_legend_of_kept_and_dropped_chips_covers_the_copied_nodes(lang):
    """The legend called every ✓ (✗) chip "a drafted token the target kept (dropped)", while a tree's lookup branch
    puts copied nodes (❐, no model drafted them) in those chips too; the tree view draws this legend (`legend_html`
    of the node kinds) above the ❐ chip."""
    with using(lang):
        shown = legend_html((TokenKind.ACCEPTED, TokenKind.REJECTED))
    hover = [html.unescape(text) for text in re.findall(r'title="([^"]*)"', shown)]
    assert hover == [KEPT[lang], DROPPED[lang]]
    assert not any(text.startswith(("a drafted token", "um token rascunhado")) for text in hover)


def _eagle_wins() -> str:
    from specviz.ui.proposers.view import PROPOSERS

    (eagle,) = [p for p in PROPOSERS if p.key == "eagle"]
    return " ".join(_(eagle.wins).split())


@pytest.mark.parametrize("lang, quantity", [
    ("en", "Among the highest speedups and mean accepted lengths reported for trained drafters"),
    ("pt", "Entre as maiores acelerações e os maiores comprimentos médios de aceitação relatados para rascunhadores "
           "treinados")])
def test_the_eagle_card_names_the_quantities_the_eagle_papers_compare(lang, quantity):
    """The card's "highest acceptance per unit of draft cost" named no quantity the EAGLE papers report: their
    tables compare speedup and the average acceptance length τ (tokens per target forward)."""
    with using(lang):
        wins = _eagle_wins()
    assert wins.startswith(quantity), wins
    assert "per unit of draft cost" not in wins and "por unidade de custo" not in wins


WIDTH_HELP = {"en": ("expands at most W of the nodes it added last", "gets at most W children",
                     "at most W × W nodes"),
              "pt": ("expande no máximo W dos nós que acabou de acrescentar", "ganha no máximo W filhos",
                     "no máximo W × W nós")}


def _width_inputs(where: str) -> None:
    import streamlit as st

    from specviz.core.i18n import set_language

    set_language(st.query_params.get("lang", "en"))
    if where == "playground":
        from specviz.ui.playground.live import KEYS, tree_inputs

        st.session_state.setdefault(KEYS["tree_nodes"], 8)
        tree_inputs("eagle")
    else:
        from specviz.ui.race.tree import tree_inputs

        tree_inputs("eagle")


@pytest.mark.parametrize("where", ["playground", "race"])
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_tree_width_input_says_both_jobs_of_the_width(where, lang):
    """The width's only words were "Children per tree node", while `grow_tree` also expands at most that many nodes
    per level: the Playground's and the race's inputs say both in their help."""
    at = AppTest.from_function(_width_inputs, args=(where,), default_timeout=60)
    at.query_params["lang"] = lang
    with using(lang):
        at.run()
        label = _(SETTINGS["tree_width"].label)
    assert not at.exception, at.exception
    (width,) = [box for box in at.number_input if box.label == label]
    shown = " ".join(width.help.split())
    assert all(part in shown for part in WIDTH_HELP[lang]), shown


def test_the_cli_tree_width_flags_say_both_jobs_of_the_width():
    """`generate`, `compare` and `bench` take --tree-width; their --help is English (the CLI's docstring)."""
    import argparse

    from specviz.cli import build_parser

    (commands,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    for name in ("generate", "compare", "bench"):
        text = " ".join(commands.choices[name].format_help().split())
        assert all(part in text for part in WIDTH_HELP["en"]), (name, text[-900:])


@pytest.mark.parametrize("sampled", [True, False])
def test_grow_tree_uses_the_width_as_its_help_says(sampled):
    """The help's two jobs, checked on the code: per level at most W expanded nodes, each with at most W children,
    so at most W × W new nodes per level."""
    from specviz.engine.tree import grow_tree

    width, gen = 3, torch.Generator().manual_seed(0)
    table = torch.randn(500, 40, generator=torch.Generator().manual_seed(1))
    tree = grow_tree(lambda tree, nodes: table[[n + 1 for n in nodes]], max_nodes=40, max_depth=4, width=width,
                     probs=lambda row: row.softmax(-1), sampled=sampled, generator=gen)
    depth = {}
    for j, parent in enumerate(tree.parents):
        depth[j] = 0 if parent < 0 else depth[parent] + 1
    levels = sorted(set(depth.values()))
    assert len(levels) >= 3 and len(tree.tokens) > width * 2  # a tree with several levels, wider than one chain
    for level in levels:
        nodes = [j for j in depth if depth[j] == level]
        parents = {tree.parents[j] for j in nodes}
        assert len(parents) <= width and len(nodes) <= width * width
        assert all(sum(tree.parents[j] == p for j in nodes) <= width for p in parents)
    assert any(len({tree.parents[j] for j in depth if depth[j] == lv}) > 1 for lv in levels)  # both jobs are used


def test_the_examples_portuguese_writes_decimal_token_counts_in_the_plural_and_speeds_with_times():
    """The descriptions wrote "cerca de 1,9 token" and "1,5 token por passagem" beside the app's "{per_pass} tokens
    por passagem", and "de {draft_low} a {draft_high} da velocidade dela" without the glossary's ×."""
    with using("pt"):
        figures = description_figures()  # the figures in the reader's number format
        eagle = " ".join(get_example("smollm-eagle-greedy").shown_description.split())
        medusa = " ".join(get_example("smollm-medusa-greedy").shown_description.split())
        draft = " ".join(get_example("smollm-draft-greedy").shown_description.split())
    assert "cerca de 1,9 tokens por passagem do alvo" in eagle
    assert "cerca de 1,5 tokens por passagem do alvo" in medusa
    low, high = figures["draft_low"], figures["draft_high"]
    assert f"(de {low}× a {high}× a velocidade dela com T = 0)" in draft, draft[-300:]


def test_no_portuguese_text_writes_a_decimal_of_1_or_more_before_a_singular_token():
    """The glossary's rule (docs/glossary.pt-BR.md, Style): a decimal count of tokens of 1 or more takes the plural;
    below 1 the singular stays ("0,134 token", the speedup quiz)."""
    glossary = " ".join((ROOT / "docs" / "glossary.pt-BR.md").read_text(encoding="utf-8").split())
    assert "A decimal count of tokens of 1 or more" in glossary
    assert '"cerca de 1,9 tokens por passagem do alvo"' in glossary
    singular = re.compile(r"(?<![\d,.])[1-9]\d*,\d+ token\b")
    texts = [m.string for m in read_catalog() if m.id and isinstance(m.string, str)]
    texts += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.pt-BR.md"))]
    texts += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "assets" / "quiz" / "pt").glob("*.yaml"))]
    assert len(texts) > 1000
    assert [hit.group(0) for text in texts for hit in singular.finditer(" ".join(text.split()))] == []
