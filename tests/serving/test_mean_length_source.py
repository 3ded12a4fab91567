"""Where vLLM's mean accepted length comes from (issue 43 item 7; read 21 fixed the quiz): vLLM's /metrics page holds
counters and no mean, but its log lines print one ("Mean acceptance length" in v1/spec_decode/metrics.py). The
Serving lab's help and docs/serving.md said "vLLM exports the counters, not this mean", which a reader takes for
"vLLM never reports it"; read 39 made both name the /metrics page and the log lines, in English and Portuguese."""

from __future__ import annotations

import re
from pathlib import Path

from specviz.core.i18n import _, using

ROOT = Path(__file__).resolve().parents[2]
HELP = ("1 + accepted / steps with drafts, computed here from vLLM's counters since the server started (its /metrics "
        "page holds the counters, not this mean, which its log lines print): tokens per verify step of one request, "
        "including the one recovered or bonus token every step emits. Steps that drafted nothing (n-gram lookup "
        "without a match) are left out, so for n-gram lookup it can read above a request's tokens per step over all "
        "its steps (a step without drafts emits one), never below. It counts per request: with several requests "
        "batched, one target pass emits tokens for each of them, more than this mean.")


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r'"\s*\n\s*"', "", text))


def test_the_serving_help_and_doc_name_the_metrics_page_and_the_log_lines():
    view = _flat((ROOT / "specviz/ui/serving/view.py").read_text(encoding="utf-8"))
    doc = _flat((ROOT / "docs/serving.md").read_text(encoding="utf-8"))
    assert HELP in view
    assert "/metrics page holds counters, not this mean, which its log lines print" in doc
    for text in (view, doc):
        assert not re.search(r"vLLM exports (the )?counters, not this mean", text)
    with using("pt"):
        shown = _(HELP)
    assert shown != HELP and "/metrics" in shown and "linhas de log" in shown
    assert "exporta os contadores, não esta média" not in shown
    # read 49: "it reads above" held only when some step drafted nothing (and a draft was kept); where every step
    # drafted, both means are equal
    assert "it reads above" not in view
    # read 54: "never below the tokens per target pass" held per request only: one batched target pass emits tokens
    # for each of its requests (16 streams: far more than this mean), so the bound names a request's steps
    assert "tokens per target pass, never below" not in view
    assert "tokens por passagem do alvo, nunca abaixo" not in shown
    assert ("pode ficar acima dos tokens por passo de uma requisição em todos os seus passos (um passo sem palpites "
            "emite um), nunca abaixo" in shown)
    assert "uma passagem do alvo emite tokens para cada uma delas" in shown


def test_the_steps_help_counts_only_the_requests_that_drafted():
    """vLLM's num_drafts grows once per request whose step carried drafts; a request in the same batched forward
    whose n-gram lookup found no match adds nothing. The help said a forward "counts once for each of them", every
    running request (read 49)."""
    view = _flat((ROOT / "specviz/ui/serving/view.py").read_text(encoding="utf-8"))
    steps = ("Verify steps that carried drafted tokens since the server started, counted per request (vLLM's "
             "num_drafts: one request's step, not a drafted token; a forward over several running requests counts "
             "once for each of them that carried drafts).")
    assert steps in view
    with using("pt"):
        assert _(steps).endswith("conta uma vez para cada uma delas que levou palpites).")


def test_the_metrics_module_says_which_words_are_vllms():
    """Read 54: specviz.serving.metrics said "The words follow vLLM's v1/spec_decode/metrics.py" above "mean accepted
    length" and "acceptance at position i", but vLLM's log lines say "Mean acceptance length" and "Per-position
    acceptance rate": the definitions are vLLM's, the names the glossary's ("acceptance by position" is the one name)."""
    import specviz.serving.metrics as metrics

    doc = " ".join(metrics.__doc__.split())
    assert "The words follow vLLM's" not in doc and "acceptance at position" not in doc
    assert "The definitions follow vLLM's `v1/spec_decode/metrics.py`" in doc
    for vllm_word in ("Avg Draft acceptance rate", "Per-position acceptance rate", "Mean acceptance length"):
        assert f'"{vllm_word}"' in doc
    assert "- acceptance by position, entry i = accepted at i / num_drafts" in doc
    assert 'as vLLM defines its "mean acceptance length"' in doc
