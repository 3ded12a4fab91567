"""The Overview and the Playground in Portuguese: every state a student reaches (the example playing, stepping,
predict-then-reveal, the finished text, a live toy run, the live form, a bad upload) shows no English sentence
outside token text and prompts, and the library sentences those pages show (run settings, trace files, the
shipped examples) come out in Portuguese."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from i18n_check import english_sentences, unformatted_numbers
from specviz.core.i18n import _, using
from specviz.engine.trace import Trace
from specviz.labs.examples import list_examples
from specviz.runs.runspec import RunSpec
from specviz.scripts.i18n import read_catalog
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.overview import view as overview_view

# Each page's states walked in Portuguese: make test runs them; make check keeps the catalog check and every
# page's first render in Portuguese (tests/core/test_i18n.py, tests/i18n/test_i18n_pages.py).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def portuguese():
    """AppTest formats a widget's options (format_func) in the test's own thread: speak Portuguese there too."""
    with using("pt"):
        yield


def page(name: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=60)
    at.query_params["lang"] = "pt"
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def portuguese_only(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    prompts = {t.value for t in at.text_area}  # a prompt is the model's input: never translated
    assert [t for t in english_sentences(at) if t not in {p[:120] for p in prompts}] == []
    assert unformatted_numbers(at) == []  # numbers drawn with a decimal point


def test_overview_in_portuguese_before_and_after_playing(monkeypatch):
    monkeypatch.setattr(overview_view, "PLAY_SECONDS", 0.0)
    at = page("overview")
    portuguese_only(at)
    assert at.title[0].value == "Decodificação especulativa, passo a passo"
    at.button(key="overview_play").click().run()
    portuguese_only(at)
    assert any(c.value.startswith("Pronto:") for c in at.caption)


def test_overview_diagram_is_drawn_in_portuguese():
    assert "2. verificar" in overview_view.loop_dot() and "\\n" in overview_view.loop_dot()


def test_playground_example_stepping_predicting_and_finishing_in_portuguese():
    at = page("playground", example="toy-draft")
    portuguese_only(at)
    assert any("A seguir: passo 1." in m.value for m in at.markdown)
    key = "playground_predict_example:toy-draft_0"
    at.number_input(key=key).set_value(1).run()
    at.button(key="playground_next").click().run()
    portuguese_only(at)
    assert any(m.value.startswith("##### Passo 1 ·") for m in at.markdown)
    assert any(m.value.startswith("Você previu que o alvo aceitaria **1**:") for m in at.markdown)  # not "1 aceitos"
    at.button(key="playground_end").click().run()
    portuguese_only(at)
    assert any(s.value.startswith("Pronto:") for s in at.success)


def test_playground_live_form_and_a_toy_run_in_portuguese():
    at = page("playground")
    at.radio(key="playground_source").set_value("live").run()
    portuguese_only(at)  # the form and the invitation to run, before any model is loaded
    at = page("playground", source="live", pair="toy", proposer="draft", k="3", max_new_tokens="12",
              prompt="the cat sat")
    portuguese_only(at)
    trace = at.session_state["trace"]
    assert any(f"Passo {trace.num_steps} de {trace.num_steps}" in m.value for m in at.markdown)


def test_playground_bad_upload_is_one_portuguese_sentence():
    at = page("playground", source="upload")
    portuguese_only(at)
    at.file_uploader(key="playground_upload").set_value(("x.json", b"{not json", "application/json")).run()
    portuguese_only(at)
    assert [e.value for e in at.error] == [escape_markdown(  # escaped: a damaged trace's values are quoted in it
        "Este arquivo não é um JSON válido, então não pode ser um traço do specviz.")]


def test_playground_bad_link_warns_in_portuguese():
    at = page("playground", k="99", temperature="hot")
    portuguese_only(at)
    # read 52: the warning gives each refused value's rule and the value typed (markdown-escaped where shown)
    assert re.sub(r"\\(.)", r"\1", at.warning[0].value) == (
        "Algumas configurações do link não eram válidas, então elas voltaram ao padrão: k deve ser um número inteiro "
        "de 1 a 16 (recebido: 99); temperature deve ser um número de 0 a 2 (recebido: 'hot').")


def test_library_sentences_in_portuguese():
    with pytest.raises(ValueError, match=r"^K deve ser um número inteiro de 1 a 16 \(recebido: 40\)\.$"):
        RunSpec(k=40)
    with pytest.raises(ValueError, match=r"^Temperatura deve ser um número de 0 a 2 "):
        RunSpec(temperature=2.5)
    with pytest.raises(ValueError, match="^Estas configurações do link não são válidas: temperature deve ser"):
        RunSpec.from_query({"temperature": "hot"})
    data = json.loads(Trace.from_json(
        (ROOT / "assets" / "traces" / "toy-draft.json").read_text(encoding="utf-8")).to_json())
    data["steps"][0]["decisions"][0]["target_prob"] = "lots"
    with pytest.raises(ValueError, match=r"^Este traço está danificado: passo 1: palpite 1: target_prob deve ser "
                                         r"um número de 0 a 1 \(recebido: 'lots'\)\.$"):
        Trace.from_dict(data)
    data["steps"][0]["decisions"][0]["text"] = "x" * 300
    data["steps"][0]["decisions"][0]["target_prob"] = 0.5
    with pytest.raises(ValueError, match=r"um texto de no máximo 256 caracteres"):
        Trace.from_dict(data)
    with using("en"):
        with pytest.raises(ValueError, match=r"^K must be a whole number from 1 to 16 \(got 40\)\.$"):
            RunSpec(k=40)


def test_every_shipped_example_has_a_portuguese_title_and_description():
    catalog = read_catalog()
    examples = list_examples()
    assert examples
    for example in examples:
        for text in (example.title, example.description):
            entry = catalog.get(text)
            assert entry is not None and entry.string, f"{example.name}: no Portuguese for {text[:60]!r}"
        assert example.shown_title == _(example.title) != example.title
