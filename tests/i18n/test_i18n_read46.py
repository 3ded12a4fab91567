"""Small findings of the 46th read, in English and in Portuguese; each test says what the read found."""

from __future__ import annotations

import pytest

from specviz.core.i18n import _, using
from specviz.runs.runspec import SETTINGS

WIDTH_LABEL = {"en": "Tree width W (nodes expanded per level, children per node)",
               "pt": "Largura da árvore W (nós expandidos por nível, filhos por nó)"}


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_tree_width_label_names_the_width_and_both_its_jobs(lang):
    """The label read "Children per tree node", one of the width's two jobs in `grow_tree` (it also expands at most
    W nodes per level); the label now names the number, the width W, and both jobs, as its help does."""
    width = SETTINGS["tree_width"]
    with using(lang):
        label, help_text = _(width.label), " ".join(_(width.help).split())
    assert label == WIDTH_LABEL[lang]
    jobs = {"en": ("expands at most W of the nodes", "at most W children"),
            "pt": ("expande no máximo W", "no máximo W filhos")}[lang]
    assert all(job in help_text for job in jobs), help_text
