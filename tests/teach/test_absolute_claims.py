"""Read 36 (claims with an absolute word): quiz and lesson sentences that said always / whenever / only where the
committed files show it holds under a condition."""

from __future__ import annotations

from specviz.teach.quiz import load_bank


def test_the_roadmap_explanation_says_acceptance_can_drift_not_that_it_always_does():
    """`pr-roadmap` said "acceptance drifts whenever the prompts change" (pt "muda sempre que"): a prompt change
    need not move it. The committed vLLM sweep shows it moving with the prompt at one level and not at another."""
    from specviz.serving.results import ServingResult, find_serving_results

    result = ServingResult.load(find_serving_results()[0])
    rates = {streams: [result.level("ngram", prompt, streams).acceptance_rate for prompt in ("copy", "open")]
             for streams in result.concurrencies("open")}
    assert rates and max(abs(a - b) for a, b in rates.values()) > 0.05
    for language, wrong, right in (("en", "drifts whenever", "can drift when"), ("pt", "muda sempre que",
                                                                                 "pode mudar quando")):
        explanation = load_bank(lang=language).by_id()["pr-roadmap"].explanation
        assert wrong not in explanation and right in explanation
