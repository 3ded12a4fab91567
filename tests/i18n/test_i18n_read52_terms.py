"""Read 52: Portuguese words that named another quantity than the English."""

from __future__ import annotations

from pathlib import Path

from specviz.core.i18n import _, using
from specviz.ui.models.view import card_summary
from specviz.ui.proposers.view import TREE_TEXT

ROOT = Path(__file__).parents[2]
META = {"target": "T", "steps": 1300, "train_records": 33539, "held_out_records": 200,
        "training": {"epoch": 0.79, "acc1": 0.5, "acc12": 0.3, "agreement": 0.4}}


def test_a_drafters_training_steps_are_not_called_decoding_steps():
    """The pt model cards said "Treinado por 1.300 passos", and "passo" is the glossary's decoding step; they say
    "passos de treino", the glossary's training step."""
    kinds = ("eagle3", "eagle", "medusa", "shallow")
    with using("pt"):
        cards = [card_summary({**META, "kind": kind}) for kind in kinds]
    assert all("por 1.300 passos de treino (épocas: 0,79)" in card for card in cards), cards
    glossary = (ROOT / "docs" / "glossary.pt-BR.md").read_text(encoding="utf-8")
    assert "| training step (of a drafter) | passo de treino |" in glossary


def test_up_to_k_plus_1_times_as_much_is_not_k_plus_1_times_more():
    """"up to K+1 times as much" was "até K+1 vezes mais", which reads as K+1 times more (K+2 times as much)."""
    with using("pt"):
        stops = _(TREE_TEXT["stops"])
    assert "custa mais que verificar uma, até K+1 vezes esse custo," in stops and "vezes mais" not in stops
