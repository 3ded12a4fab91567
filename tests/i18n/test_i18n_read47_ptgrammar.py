"""Portuguese grammar findings of the 47th read (the catalog's msgstr and the pt quiz twins); each test says what the
read found. The glossary's rule (docs/glossary.pt-BR.md, Style): a decimal count below 1 keeps the singular ("0,134
token"), so where a placeholder can receive a decimal below 1 and above it, the Portuguese is worded so that no count
noun follows the number."""

from __future__ import annotations

from specviz.teach.quiz.bank import load_bank


def test_the_tree_child_explanation_calls_the_wrong_values_wrong_not_the_updates():
    """Read 47: "Pular qualquer uma das duas atualizações dá 0,625 (...), pular as duas dá 1: cada uma está errada"
    made "cada uma" (feminine) point back to "atualizações", so it read "each update is wrong", where the English
    "each is wrong" means each of those results (the updates are what makes it right)."""
    question = next(q for q in load_bank(lang="pt") if q.id == "tr-second-child")
    assert "pular as duas dá 1: cada um desses valores está errado" in question.explanation
    assert "cada uma está errada" not in question.explanation

