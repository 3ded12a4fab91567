"""Small findings of the 45th read, in English and in Portuguese; each test says what the read found."""

from __future__ import annotations

import html
import re

import pytest

from specviz.core.i18n import _, using
from specviz.engine.trace import TokenKind
from specviz.ui.common.palette import legend_html

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
