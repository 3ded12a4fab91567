"""Timeline & race, Theory explorer and Speedup lab in Portuguese: no English sentence on the page in their main
states (a replayed example, a live toy race, a moved slider, another hardware preset, the committed benchmark
results, a live toy sweep), and the library sentences they show come out in Portuguese."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz.core.i18n import using
from specviz.labs.examples import list_examples
from specviz.teach.pagemap import PAGE_FILES
from tests.i18n_check import english_sentences, unformatted_numbers

# Each page's states walked in Portuguese: make test runs them; make check keeps the catalog check and every
# page's first render in Portuguese (tests/core/test_i18n.py, tests/i18n/test_i18n_pages.py).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _page(name: str) -> str:
    return str(ROOT / next(path for path in PAGE_FILES if path.endswith(f"/{name}.py")))


def _pt(name: str, **query) -> AppTest:
    """The page rendered in Portuguese. Widgets are set inside `using("pt")`: AppTest calls a widget's format_func
    in the test's thread, which must speak the page's language to find the translated option."""
    at = AppTest.from_file(_page(name), default_timeout=90)
    at.query_params["lang"] = "pt"
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    _portuguese(at)
    return at


def _portuguese(at: AppTest) -> None:
    """No exception and no English sentence, the prompt box aside: a prompt is the user's text, never translated."""
    assert not at.exception, at.exception
    prompts = {str(box.value)[:120] for box in at.text_area}
    assert [text for text in english_sentences(at) if text not in prompts] == []
    assert unformatted_numbers(at) == []  # numbers drawn with a decimal point


# ---- Timeline & race ----------------------------------------------------------------------------------------------


def test_race_replays_an_example_in_portuguese(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _pt("race")  # the first example
    assert at.title[0].value == "Linha do tempo e corrida"
    assert any(m.label == "Aceleração medida" for m in at.metric)


@pytest.mark.slow  # every example (eight), each with its token chips: 4.7 s on the 2-core EPYC (2026-12-05)
def test_race_replays_every_example_in_portuguese(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _pt("race")
    examples = [e for e in list_examples() if e.baseline_path is not None][1:]
    assert examples, "no example to replay after the first"
    for example in examples:
        with using("pt"):
            at.selectbox(key="race_example").set_value(example.name).run()
        _portuguese(at)
        assert any(m.label == "Aceleração medida" for m in at.metric)


def test_a_live_toy_race_in_portuguese(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _pt("race", race_source="live", race_pair="toy", race_proposer="ngram", race_k="2", race_max_new="16",
             race_temperature="0.0", race_seed="1")
    assert any(m.label == "Aceleração medida" for m in at.metric)
    assert at.table and "rodada" in " ".join(c.value for c in at.caption)
    with using("pt"):
        at.slider(key="race_k").set_value(3).run()  # the settings changed: a note, the old race stays
    _portuguese(at)


def test_a_bad_link_value_is_one_portuguese_sentence(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _pt("race", race_source="live", race_k="40")
    # read 52: the sentence gives the rule and the value typed (markdown-escaped where it is shown)
    assert [re.sub(r"\\(.)", r"\1", e.value) for e in at.error] == [
        "Um valor do link não pôde ser usado, então o padrão é mostrado no lugar: race_k deve ser um número inteiro "
        "de 1 a 16 (recebido: 40)."]


def test_race_sentences_of_the_library_in_portuguese():
    from specviz.engine.trace import Step, Trace
    from specviz.labs import timeline

    def lane(mode, seconds):
        return Trace(mode, {}, [1], [7], [Step(0, 1, 0, "none", [], [], verify_seconds=seconds)], wall_seconds=seconds)

    rounds = timeline.RaceRounds(((lane("speculative", 1.0), lane("autoregressive", 1.2)),) * 2)
    cut = timeline.RaceRounds(((lane("speculative", 1.0), lane("autoregressive", math.nan)),) * 2)
    with using("pt"):
        # read 49: the rounds' speedups are a list of numbers, separated by semicolons as the busy note's are
        assert timeline.spread_sentence(rounds) == ("2 rodadas, raias intercaladas: 1,20×; 1,20×. Mediana 1,20×, "
                                                    "variação 1,20–1,20×.")
        assert timeline.spread_sentence(cut) == ("2 rodadas, raias intercaladas: –; –. Nenhuma rodada comparou o "
                                                 "mesmo texto.")
        assert timeline.explain_race(*rounds.rounds[0]).startswith("A especulação venceu: 1,20× mais rápida.")
        with pytest.raises(ValueError, match="prompts diferentes"):
            timeline.check_race(lane("speculative", 1.0), Trace("autoregressive", {}, [2], [7], []))
    assert timeline.spread_sentence(rounds).startswith("2 rounds, lanes interleaved: 1.20×")  # English after


# ---- Theory explorer ----------------------------------------------------------------------------------------------


def test_theory_explorer_in_portuguese_as_the_sliders_move(monkeypatch):
    from specviz.labs.examples import load_example

    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(_page("theory"), default_timeout=90)
    at.query_params["lang"] = "pt"
    at.session_state["trace"] = load_example("toy-draft")[0]  # the measured-runs section with a trace
    at.run()
    _portuguese(at)
    shown = {m.label: m.value for m in at.metric}
    assert shown["Aceleração esperada"] == "2,80×" and shown["Comprimento médio de aceitação esperado"] == "3,36"
    with using("pt"):
        at.select_slider(key="theory_c").set_value(1.2).run()  # speculation never pays: a warning, "nunca"
        _portuguese(at)
        assert {m.label: m.value for m in at.metric}["α de equilíbrio"] == "nunca"
        at.slider(key="theory_k").set_value(0).run()  # K = 0: the batch section says there is nothing to verify
        _portuguese(at)


def test_theory_batch_section_in_portuguese_for_other_hardware(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _pt("theory")
    with using("pt"):
        for hw in ("measured", "laptop"):
            at.selectbox(key="theory_hw").set_value(hw).run()
            _portuguese(at)
        at.selectbox(key="theory_pair").set_value("smollm2-ngram").run()
        at.select_slider(key="theory_batch").set_value(256).run()
        _portuguese(at)
    assert any(m.label == "Aceleração esperada com B\u00a0=\u00a0256" for m in at.metric)  # unbroken (Read 44)


def test_theory_sentences_of_the_library_in_portuguese():
    from specviz.engine import theory
    from specviz.labs import roofline

    with using("pt"):
        with pytest.raises(ValueError, match="deve estar entre 0 e 1") as refused:
            theory.expected_speedup(1.5, 4, 0.1)
        assert "1,5" in str(refused.value) and "1.5" not in str(refused.value)  # the value typed, the reader's way
        with pytest.raises(ValueError, match="^O lote e os tokens por passagem"):
            roofline.forward_seconds(roofline.SMOLLM2, roofline.HARDWARE["h100"], 0, 1, 0)
        assert roofline.measured_hardware() is None or "CPU dos benchmarks" in roofline.measured_hardware().name


# ---- Speedup lab --------------------------------------------------------------------------------------------------


def test_speedup_lab_on_the_committed_results_in_portuguese(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _pt("speedup_lab")
    assert [m.label for m in at.metric] == ["Melhor aceleração", "com K", "estimativa de α", "c (medido)"]
    with using("pt"):
        for source in at.selectbox(key="speedup_lab_source").options:  # every committed file (shown translated)
            at.selectbox(key="speedup_lab_source").set_value(source.replace("(registrado)", "(committed)")).run()
            _portuguese(at)
            for temperature in at.selectbox(key="speedup_lab_temperature").options[1:]:  # sampled: no policies
                at.selectbox(key="speedup_lab_temperature").set_value(float(temperature.replace(",", "."))).run()
                _portuguese(at)


def test_a_live_toy_sweep_in_portuguese(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = _pt("speedup_lab")
    with using("pt"):
        at.multiselect(key="speedup_lab_live_suites").set_value(["qa"])
        at.multiselect(key="speedup_lab_live_ks").set_value([1, 2])
        at.slider(key="speedup_lab_live_tokens").set_value(8)
        at.button(key="speedup_lab_live_run").click().run()
        _portuguese(at)
        assert at.selectbox(key="speedup_lab_source").value == "live toy sweep (this session)"
        assert "varredura ao vivo no par de brinquedo (esta sessão)" in at.selectbox(key="speedup_lab_source").options
        at.multiselect(key="speedup_lab_live_ks").set_value([])
        at.button(key="speedup_lab_live_run").click().run()
        _portuguese(at)
    assert [e.value for e in at.error] == ["Escolha pelo menos um proponente, um K, uma temperatura, uma categoria e "
                                           "uma política."]


def test_speedup_sentences_of_the_library_in_portuguese():
    from specviz.labs.bench import BenchResult
    from specviz.ui.speedup import results as speedup_results, verdict as speedup_verdict, view as speedup_view

    with using("pt"):
        with pytest.raises(ValueError, match="não é um resultado de benchmark"):
            BenchResult.from_dict({"schema": "other"})
        assert speedup_view.label("acceptance_rate") == "taxa de aceitação (aceitos / (rascunhados + copiados))"
        assert speedup_verdict.slowdown_reason(0.2, 0.1, 4, 1.2, 1.2).startswith("com c = 0,10, um passo que rascunha K = 4")
        assert speedup_results.note_text("torch used 1 thread(s) on 2 visible core(s).") == (
            "O torch usou 1 thread em 2 núcleos visíveis.")  # an older run's "(s)", said with its nouns agreeing
        assert speedup_results.note_text("torch used 2 threads on 1 visible core.") == (
            "O torch usou 2 threads em 1 núcleo visível.")
        assert speedup_results.note_text(
            "Speedups are ratios of tokens/s measured in the same run, repeat by repeat interleaved, medians over 1 "
            "repeat after 2 warm-up rounds.").endswith("medianas sobre 1 repetição depois de 2 rodadas de aquecimento.")
        assert speedup_results.note_text("Stopped at its time limit: 1 of 1 prompt x temperature case did not run.") \
            == "Parou no limite de tempo sem rodar 1 de 1 caso prompt × temperatura."
    assert speedup_view.label("acceptance_rate") == "acceptance rate (accepted / (drafted + copied))"  # files: English
