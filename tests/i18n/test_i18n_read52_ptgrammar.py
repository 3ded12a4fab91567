"""Portuguese findings of the 52nd read (the catalog's msgstr against its English msgid, and the Portuguese docs);
each test says what the read found."""

from __future__ import annotations

from pathlib import Path

from specviz.core.i18n import _, ngettext, using

ROOT = Path(__file__).resolve().parents[2]

TREES_HELD = ("This trace's trees held up to {tokens} (every one a drafted node: no token was copied from the "
              "context), up to {depth} deep")


def test_the_theory_pages_tree_note_says_every_one_is_a_drafted_node_not_all_of_us():
    """Read 52: the Theory page's note on a tree trace with no lookup branch read "até 12 tokens (todos nós
    rascunhados: …)", where "todos nós" reads first as the pronoun "all of us"; the English says every one of them is
    a drafted node."""
    page = (ROOT / "pages" / "theory.py").read_text(encoding="utf-8")
    assert "(every one a drafted node: no token was copied from the " in page
    msgids = [TREES_HELD + rest for rest in (
        ". The formula above is for a chain of K drafts, so it is not compared: a tree offers several candidates at "
        "each depth and keeps, on average, a longer prefix than a chain of the same depth at the same α (the Speedup "
        "lab measures trees against chains).",
        ", and none branched: each offered one candidate at each depth, as a chain does. The formula above is compared "
        "only with traces run as chains (the Speedup lab measures trees against chains).")]
    with using("pt"):
        tokens = ngettext("{n} token", "{n} tokens", 12).format(n=12)
        said = [_(msgid, tokens=tokens, depth=3) for msgid in msgids]
    for text in said:
        assert text.startswith("As árvores deste traço tiveram até 12 tokens (todos eles nós rascunhados: nenhum "
                               "token foi copiado do contexto), com até 3 de profundidade"), text
        assert "(todos nós" not in text


def test_the_exactness_verdict_says_all_other_continuations_not_every_other_one():
    """Read 52: the Exactness lab's chi-square note over two-token continuations read "toda outra continuação conta
    como “(outros)”", a calque of "every other continuation"; Portuguese says "todas as outras continuações"."""
    source = (ROOT / "specviz" / "labs" / "exactness" / "stats.py").read_text(encoding="utf-8")
    assert "other continuation is counted as “(other)”" in source
    one = ("The {count} outcome tested is the only one p gives a positive probability; every other continuation "
           "is counted as “(other)”, which has probability 0 and is in no group: a single sample there would refute "
           "p on its own.")
    many = ("The {count} outcomes tested are all the ones p gives a positive probability; every other continuation "
            "is counted as “(other)”, which has probability 0 and is in no group: a single sample there would "
            "refute p on its own.")
    with using("pt"):
        said = [ngettext(one, many, n, count=str(n)) for n in (1, 7)]
    assert said[0].startswith("O 1 resultado testado é o único a que p dá probabilidade positiva; todas as "
                              "outras continuações contam como “(outros)”, que tem probabilidade 0"), said[0]
    assert said[1].startswith("Os 7 resultados testados são todos aqueles a que p dá probabilidade positiva; "
                              "todas as outras continuações contam como “(outros)”"), said[1]
    for text in said:
        assert "toda outra" not in text
