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


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_bench_texts_name_both_jobs_of_the_tree_width(lang):
    """The bench's definition of "draft tree nodes" (results.md, the Speedup lab's glossary) said "at most tree width
    children per node", and the Speedup lab's verdict "at most 4 children per node": `grow_tree` also expands at
    most W nodes per level. Both now name the two jobs, as the width input's label does."""
    from pathlib import Path

    from specviz.labs.bench import DEFINITIONS
    from specviz.ui.speedup import results, verdict

    jobs = {"en": ("at most W nodes expanded per level", "at most W children per node"),
            "pt": ("no máximo W nós expandidos por nível", "no máximo W filhos por nó")}[lang]
    with using(lang):
        meaning = _(DEFINITIONS["tree_nodes"][1])
    assert all(job in meaning for job in jobs), meaning
    root = Path(__file__).resolve().parents[2]
    result = results.load_result(root / "assets" / "benchmarks" / "default-cpu-f32-packed" / "results.json")
    rows = result.shape_rows("eagle", 0.0)
    tree = {**next(r for r in rows if r.get("tree_nodes")), "tree_nodes": 16, "tree_width": 4, "k": 3,
            "tree_lookup": 0, "speedup_vs_ar": 99.0}
    result.shape_rows = lambda proposer, temperature: [*rows, tree]
    with using(lang):
        said = verdict.verdict(result, "eagle", 0.0)
    expected = {"en": "(width 4: at most 4 nodes expanded per level and 4 children per node, depth up to 3)",
                "pt": "(largura 4: no máximo 4 nós expandidos por nível e 4 filhos por nó, profundidade até 3)"}
    assert expected[lang] in said, said


def test_portuguese_counts_zero_in_the_plural():
    """The catalog's plural rule was gettext's usual one for pt_BR, (n > 1), so a count of 0 took the singular form:
    "0 nó", a race lane's "(0 token)". Brazilian Portuguese counts zero in the plural ("0 nós"), as English does; the
    rule is now (n != 1), and every plural message of the catalog reads its plural form at 0."""
    from babel.messages.pofile import read_po

    from specviz.core.i18n import _catalog, ngettext
    from specviz.scripts.i18n import PLURAL_RULE, PO
    from specviz.ui.race.figures import CHAIN_LANE, lane_tokens

    with PO.open("rb") as f:
        catalog = read_po(f, locale="pt_BR")
    assert catalog.plural_expr == PLURAL_RULE == "(n != 1)"
    plurals = [m for m in catalog if isinstance(m.id, tuple | list) and m.id[0]]
    assert len(plurals) > 50
    compiled = _catalog("pt")  # the .mo the app reads, unfilled
    assert {m.id[0]: compiled.ngettext(m.id[0], m.id[1], 0) for m in plurals} == {m.id[0]: m.string[1] for m in plurals}
    assert {m.id[0]: compiled.ngettext(m.id[0], m.id[1], 1) for m in plurals} == {m.id[0]: m.string[0] for m in plurals}
    with using("pt"):
        assert ngettext("{n} node", "{n} nodes", 0) == "0 nós" and ngettext("{n} node", "{n} nodes", 1) == "1 nó"
        assert lane_tokens(CHAIN_LANE, 0).endswith("(0 tokens)") and lane_tokens(CHAIN_LANE, 1).endswith("(1 token)")


def test_draw_more_samples_has_one_portuguese_wording():
    """"draw more samples" read "Tire mais amostras" in four messages and "Sorteie mais amostras" in the fifth (the
    Exactness lab's note on a lossy rule that passed on whole continuations): one English phrase, one Portuguese."""
    from babel.messages.pofile import read_po

    from specviz.scripts.i18n import PO

    with PO.open("rb") as f:
        catalog = read_po(f, locale="pt_BR")
    asks = [m for m in catalog if isinstance(m.id, str) and m.id.lower().endswith("draw more samples.")]
    assert len(asks) == 6  # read 55: the Sandbox says a broken rule drifted unseen
    with using("pt"):
        endings = {" ".join(_(m.id).split()).rsplit("; ", 1)[-1].rsplit(". ", 1)[-1].lower() for m in asks}
    assert endings == {"tire mais amostras."}
