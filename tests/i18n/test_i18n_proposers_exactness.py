"""The Proposers page, the Exactness lab and the p/q sandbox in Portuguese: no English sentence in their main states
(the toy pair and the recorded examples only, no model load), and the exactness library's sentences translated."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from streamlit.testing.v1 import AppTest

from i18n_check import english_sentences, unformatted_numbers
from specviz.core.i18n import using
from specviz.labs.exactness import RULES, chi_square_test, get_rule
from specviz.labs.exactness.sandbox import sandbox_step

# Each page's states walked in Portuguese: make test runs them; make check keeps the catalog check and every
# page's first render in Portuguese (tests/core/test_i18n.py, tests/i18n/test_i18n_pages.py).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def portuguese(page: str, **state) -> AppTest:
    at = AppTest.from_file(str(ROOT / page), default_timeout=120)
    at.query_params["lang"] = "pt"
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


@pytest.fixture
def speak_pt():
    """AppTest formats a selectbox's or radio's value with the widget's format_func in the test's own thread, at
    every run: that thread has to speak Portuguese too."""
    with using("pt"):
        yield


def choose(at: AppTest, kind: str, key: str, value) -> AppTest:
    return getattr(at, kind)(key=key).set_value(value).run()


def assert_portuguese(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]
    assert english_sentences(at) == []
    assert unformatted_numbers(at) == []  # numbers drawn with a decimal point


def test_the_proposers_page_every_section_and_the_recorded_traces(speak_pt):
    at = portuguese("pages/proposers.py")
    assert_portuguese(at)
    headings = [h.value for h in at.subheader]
    assert "Cabeças de previsão (Medusa)" in headings and "Verificação em árvore" in [h.value for h in at.header]
    text = " ".join(m.value for m in at.markdown)
    assert "**Custos.**" in text and "Máscara de atenção em árvore" in text and "Traço gravado" in text
    diagrams = " ".join(g.proto.spec for g in at.get("graphviz_chart"))
    assert "LM de rascunho pequeno" in diagrams and "text so far" not in diagrams
    assert 'label="✓ the"' in diagrams  # token text in the tree stays as it is (the accepted path marked ✓)


def test_the_sandbox_defaults_the_broken_rule_and_the_temperature(speak_pt):
    at = portuguese("pages/sandbox.py")
    assert_portuguese(at)
    assert any("Compatível com a distribuição do alvo" in s.value for s in at.success)
    assert at.metric[0].value == "0,750"
    choose(at, "selectbox", "sandbox_rule", "accept_all")
    assert_portuguese(at)
    assert any("Não é a distribuição do alvo" in e.value for e in at.error)
    assert any("Quebrada: aceitar todo palpite" in w.value for w in at.warning)
    at.select_slider(key="sandbox_temperature").set_value(0.0).run()
    assert_portuguese(at)


def _sandbox_with(p, q):
    from specviz.core.i18n import set_language
    from specviz.ui.sandbox import view

    set_language("pt")
    step = view.compute(p, q, 1.0)
    if step is not None:
        view.render_numbers(step)
        view.render_simulation(p, q, 1.0, step)


@pytest.mark.parametrize("p", [[0.1, 0.2, 0.3, 0.2, 0.1, 0.1], [0, 0, 0, 0, 0, 0]])
def test_the_sandbox_with_an_edited_table_and_a_bad_one(p, speak_pt):
    at = AppTest.from_function(_sandbox_with, args=(p, [0.2, 0.35, 0.05, 0.2, 0.1, 0.1]), default_timeout=60).run()
    assert_portuguese(at)
    if sum(p) == 0:
        assert [e.value for e in at.error] == ["A tabela precisa de correção: p deve dar a pelo menos um token um peso "
                                               "acima de 0\\."]


@pytest.mark.parametrize("rule", list(RULES))
def test_the_exactness_lab_under_every_rule(rule, speak_pt):
    at = portuguese("pages/exactness.py", exact_pair="toy", exact_rule=rule, exact_n_one_step_toy=200)
    assert_portuguese(at)
    assert at.get("plotly_chart")


def test_the_exactness_lab_greedy_engine_bad_prompt_and_the_recorded_step(speak_pt):
    from specviz.labs.examples import load_example

    at = portuguese("pages/exactness.py", exact_pair="toy", trace=load_example("toy-draft")[0])
    at.select_slider(key="exact_temperature").set_value(0.0).run()
    assert_portuguese(at)
    assert sum("Nada a testar" in i.value for i in at.info) == 2
    at.select_slider(key="exact_temperature").set_value(1.0).run()
    choose(at, "radio", "exact_mode", "engine")
    at.select_slider(key="exact_n_engine_toy").set_value(50).run()
    assert_portuguese(at)
    choose(at, "radio", "exact_compare", "pair")
    assert_portuguese(at)
    choose(at, "radio", "exact_source", "session")
    assert_portuguese(at)
    choose(at, "radio", "exact_source", "example")
    assert_portuguese(at)
    at.text_input(key="exact_prompt").set_value("   ").run()
    assert_portuguese(at)
    assert len(at.error) == 1 and "prompt" in at.error[0].value


def test_the_library_speaks_portuguese():
    with using("pt"):
        assert chi_square_test([0, 10], [1.0, 0.0]).verdict.startswith("Não é a distribuição do alvo: 10 de 10")
        assert chi_square_test([52, 48], [0.5, 0.5]).verdict.startswith("Compatível com a distribuição do alvo")
        with pytest.raises(ValueError, match="deve dar a pelo menos um token"):
            sandbox_step([0, 0], [1, 1])
        with pytest.raises(ValueError, match="Regra desconhecida"):
            get_rule("nope")
    assert chi_square_test([52, 48], [0.5, 0.5]).verdict.startswith("Consistent with the target distribution")
    assert RULES["exact"].explanation.startswith("Accept the draft x")
    assert torch.tensor(1.0)  # the module's tensors stay untouched by the language
