"""The Serving lab in Portuguese (issue 15): the page with no server, against a fake vLLM server answering the
recorded /metrics (a speculating one and one without speculation), a small load sweep, the committed measured sweep
and a bad address, with no English sentence on the page (tests/i18n_check.py); and the serving library's sentences
(address checks, an unreachable server, the load generator's bounds, the sweep verdicts) in Portuguese."""

from __future__ import annotations

from pathlib import Path

import pytest
from i18n_check import english_sentences, unformatted_numbers
from serving_fake import FakeServer, recorded
from streamlit.testing.v1 import AppTest

from specviz.core.i18n import using
from specviz.serving import client
from specviz.serving.load import LoadPlan, Prompt
from specviz.serving.metrics import parse_scrape
from specviz.serving.results import PayShape
from specviz.ui.serving.sweep import verdict

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "serving.py")
BUSY, PLAIN = "ngram-after-copy.prom", "none-after-copy.prom"


def _portuguese(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert english_sentences(at) == []
    assert unformatted_numbers(at) == []  # numbers drawn with a decimal point


def _page(url: str) -> AppTest:
    """The page opened in Portuguese and pointed at `url`; the caller speaks Portuguese too (AppTest calls a widget's
    format_func in the test's thread)."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = "pt"
    at.run()
    _portuguese(at)
    at.text_input(key="serving_url").set_value(url).run()
    _portuguese(at)
    return at


@pytest.fixture
def speaking_pt():
    with using("pt"):
        yield


def test_the_library_speaks_portuguese():
    with using("pt"), pytest.raises(ValueError) as bad:
        client.base_url("ftp://example.org")
    assert "começa com http://" in str(bad.value)
    with using("pt"), pytest.raises(ValueError) as bounds:
        LoadPlan(prompts=(Prompt("copy", "x"),), requests=10_000).check()
    assert "requisições por nível" in str(bounds.value)
    with using("pt"), pytest.raises(ValueError) as not_vllm:
        parse_scrape("# nothing here\n", at=0.0)
    assert "não tem métricas do vLLM" in str(not_vllm.value)
    with using("pt"):
        assert verdict("ngram", "open", PayShape.of([(1, 1.2), (4, 1.1), (16, 0.9)])) == (
            "ngram, prompt aberto: a especulação deixa de compensar com 16 fluxos simultâneos.")
    stops = PayShape.of([(1, 1.2), (4, 1.1), (16, 0.9)])
    assert verdict("ngram", "open", stops).startswith("ngram, open prompt")  # English outside


def test_a_sweep_of_one_stream_counts_it_in_the_singular(monkeypatch):
    """Read 44: a sweep of `--levels 1` that paid read "up to 1 streams" ("até 1 fluxos"); a break-even at the first
    level on the vLLM comparison read "it stopped paying at 1 streams" ("deixou de compensar com 1 fluxos")."""
    from specviz.serving.results import ServingResult
    from specviz.ui.serving import sweep

    assert verdict("ngram", "copy", PayShape.of([(1, 1.2)])) == (
        "ngram, copy prompt: speculation paid at the one level measured, 1 stream.")
    with using("pt"):
        assert verdict("ngram", "copy", PayShape.of([(1, 1.2)])) == (
            "ngram, prompt de cópia: a especulação compensou no único nível medido, 1 fluxo.")
        assert verdict("ngram", "copy", PayShape.of([(1, 1.2), (4, 1.2), (16, 1.1)])) == (
            "ngram, prompt de cópia: a especulação compensou em todos os níveis medidos, até 16 fluxos.")
    result = ServingResult.load(Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "serving" /
                                "cpu-smollm2.json")
    result.pay_shape = lambda *args, **kwargs: PayShape.of([(1, 0.9), (4, 0.8)])  # the first level already lost
    said = []
    monkeypatch.setattr(sweep.st, "markdown", lambda text, *a, **k: said.append(text))
    monkeypatch.setattr(sweep.st, "caption", lambda *a, **k: None)
    for lang in ("en", "pt"):
        with using(lang):
            sweep.predicted(result)
    assert said[0].endswith(r"Measured\: it did not pay even at one stream\."), said  # escaped markdown
    assert said[1].endswith(r"Medido\: não compensou nem com um fluxo\."), said


@pytest.mark.slow
def test_the_page_without_a_server_and_with_a_bad_address(speaking_pt):
    at = _page("http://127.0.0.1:9")
    assert at.warning and all("Nenhum servidor vLLM respondeu" in w.value for w in at.warning)
    at.text_input(key="serving_url").set_value("ftp://example.org").run()
    _portuguese(at)
    assert len(at.error) == 1 and "começa com http" in at.error[0].value


@pytest.mark.slow
@pytest.mark.parametrize("scrape", [BUSY, PLAIN])
def test_the_page_against_recorded_metrics_and_a_small_sweep(speaking_pt, scrape):
    server = FakeServer(recorded(scrape))
    try:
        at = _page(server.url)
        assert {m.label for m in at.metric} >= {"Taxa de aceitação",
                                                "Comprimento médio de aceitação (passos com palpites)"}
        at.run()  # a second read: the charts over time
        _portuguese(at)
        at.session_state["serving_tab"] = "Gerador de carga"  # only the open tab runs
        at.run()
        _portuguese(at)
        at.multiselect(key="serving_load_levels").set_value([1, 2])
        at.number_input(key="serving_load_requests").set_value(2)
        [b for b in at.button if b.label == "Executar a varredura"][0].click().run()
        _portuguese(at)
        assert "serving_live_sweep_chart" in [c.key for c in at.get("plotly_chart")]
        at.session_state["serving_tab"] = "Varredura medida"
        at.run()
        _portuguese(at)
        assert "serving_speedup_chart" in [c.key for c in at.get("plotly_chart")]
    finally:
        server.close()
