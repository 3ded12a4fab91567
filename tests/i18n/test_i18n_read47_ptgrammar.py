"""Portuguese grammar findings of the 47th read (the catalog's msgstr and the pt quiz twins); each test says what the
read found. The glossary's rule (docs/glossary.pt-BR.md, Style): a decimal count below 1 keeps the singular ("0,134
token"), so where a placeholder can receive a decimal below 1 and above it, the Portuguese is worded so that no count
noun follows the number."""

from __future__ import annotations

import json
import re

from specviz.core.i18n import using
from specviz.core.paths import MODELS_DIR
from specviz.teach.quiz.bank import load_bank
from specviz.teach.quiz.predictions import PredictionScore, StepPrediction
from specviz.ui.models import view as models_view
from specviz.ui.speedup import verdict

BELOW_ONE_THEN_PLURAL = re.compile(r"\b0,\d+ (?:épocas|palpites|tokens)\b")


def test_the_tree_child_explanation_calls_the_wrong_values_wrong_not_the_updates():
    """Read 47: "Pular qualquer uma das duas atualizações dá 0,625 (...), pular as duas dá 1: cada uma está errada"
    made "cada uma" (feminine) point back to "atualizações", so it read "each update is wrong", where the English
    "each is wrong" means each of those results (the updates are what makes it right)."""
    question = next(q for q in load_bank(lang="pt") if q.id == "tr-second-child")
    assert "pular as duas dá 1: cada um desses valores está errado" in question.explanation
    assert "cada uma está errada" not in question.explanation


def test_the_card_summaries_never_put_a_count_noun_after_the_epochs():
    """Read 47: the EAGLE-3 drafter's summary read "(0,79 épocas)"; a count below 1 keeps the singular, and the same
    placeholder receives 4,48 for the separate draft, so the Portuguese names the unit first: "(épocas: 0,79)"."""
    cards = sorted(MODELS_DIR.glob("*/specviz.json"))
    assert len(cards) == 3
    with using("pt"):
        summaries = {path.parent.name: models_view.card_summary(json.loads(path.read_text())) for path in cards}
    assert "1.300 passos de treino (épocas: 0,79)" in summaries["smollm2-eagle"]  # "passo" alone: decoding (read 52)
    assert all("épocas: " in text and not BELOW_ONE_THEN_PLURAL.search(text) for text in summaries.values())


def test_the_prediction_summary_gives_a_mean_error_below_one_without_a_plural_noun():
    """Read 47: "erro médio de 0,50 palpites" put a plural after a mean error below 1 (the English "off by 0.50
    drafts" is fine); the error is in the number of drafts the target kept, so the Portuguese says that."""
    score = PredictionScore((StepPrediction(0, 2, 1, 4), StepPrediction(1, 1, 1, 4)))
    with using("pt"):
        summary = score.summary()
    assert summary == ("1 de 2 previsões exatas; erro médio de 0,50 no número de palpites aceitos, com tendência a "
                       "otimismo.")
    assert not BELOW_ONE_THEN_PLURAL.search(summary)


def test_the_slowdown_reason_gives_a_mean_drafted_below_one_without_a_plural_noun():
    """Read 47: "os passos desta execução rascunharam 0,60 tokens em média": a lookup that rarely matches drafts
    fewer than one token a step on average, and the placeholder also receives counts above 1."""
    with using("pt"):
        reason = verdict.slowdown_reason(0.5, 0.1, 4, 1.5, 1.2, drafted=0.6, speedup=0.8)
    assert "a média de tokens rascunhados por passo desta execução foi 0,60 (" in reason
    assert not BELOW_ONE_THEN_PLURAL.search(reason)


def test_the_default_drafters_parameters_read_as_portuguese_after_an_abbreviated_count():
    """Read 47: "soma 9,81 mi parâmetros" wants "de" after "mi" (milhões de parâmetros) but none after "mil", and
    the count's unit comes from the number; the Portuguese now gives the count after the noun."""
    with using("pt"):
        note = models_view.drafter_note()
    assert re.search(r"soma mais parâmetros: \d+,\d+\xa0?\s?mi \(", note), note
    assert not re.search(r"\b(?:mi|bi|mil) parâmetros", note)


def test_the_speedup_labs_unrecorded_machine_names_whose_file_it_is():
    """Read 47: "uma máquina que o arquivo dela não registra": "dela" read as the machine's own file; the file is the
    run's."""
    from types import SimpleNamespace

    from specviz.ui.speedup.charts import _machine

    with using("pt"):
        said = _machine(SimpleNamespace(machine={}))  # a run whose file records no machine
    assert said == "uma máquina que o arquivo da execução não registra"


def test_the_catalogs_size_check_gives_a_parameter_count_below_two_billion_without_a_plural():
    """Read 47: "0,135 bilhões de parâmetros" (the catalog check's sentence for a model under 2 billion parameters)
    put a plural after a count below two; the Portuguese writes "bi" (bilhões), which agrees with any count."""
    import pytest

    from specviz.models.catalog import _model

    raw = {"id": "x/y", "params_billion": 0.135, "memory_gb": {"float32": 9.0, "bfloat16": 0.27},
           "licence": "apache-2.0", "gated": False}
    with using("pt"), pytest.raises(ValueError) as caught:
        _model(raw, "modelo x/y")
    assert "um modelo de 0,135 bi de parâmetros ocupa" in str(caught.value)
    assert "bilhões de parâmetros" not in str(caught.value)


def test_the_catalogs_dtype_key_check_says_no_english_and_in_portuguese():
    """Read 47: "'memory_gb' precisa exatamente de float32 and bfloat16" joined the keys with an English "and"
    inside the Portuguese sentence; the keys are now a list after a colon, in either language."""
    import pytest

    from specviz.models.catalog import _model

    raw = {"id": "x/y", "params_billion": 0.135, "memory_gb": {"float32": 0.54}, "licence": "mit", "gated": False}
    with using("pt"), pytest.raises(ValueError) as caught:
        _model(raw, "modelo x/y")
    assert str(caught.value) == "modelo x/y: 'memory_gb' precisa exatamente destas chaves: float32, bfloat16."


def test_the_medusa_examples_title_has_one_pair_of_parentheses_and_the_proposers_intro_says_do_que():
    """Read 47 (proposers47): the Medusa example's title read "Cabeças de previsão (Medusa) (SmolLM2, T = 0)", two
    parentheses in a row; the Proposers intro's "o que ele precisa" wants "do que" (precisar de)."""
    from specviz.core.i18n import _

    with using("pt"):
        title = _("Medusa heads (SmolLM2, T = 0)")
    assert title == "Cabeças de previsão Medusa (SmolLM2, T = 0)"
    catalog = (MODELS_DIR.parent / "locale" / "pt_BR" / "LC_MESSAGES" / "specviz.po").read_text(encoding="utf-8")
    assert "do que ele precisa, onde ganha" in catalog and "o que ele precisa, onde ganha" not in catalog.replace(
        "do que ele precisa, onde ganha", "")
