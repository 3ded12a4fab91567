"""Statistical exactness: speculative sampling reproduces the target's distribution over the first two tokens.

For each proposer and K in {1, 3}, N generations from one prompt (`PROMPTS`) are compared with the exact joint
distribution p(t1) p(t2 | t1) of the target, computed by enumeration with plain forwards (no cache, no engine).
top-k = 6 keeps the joint support small (36 cells) so a chi-square test has power with N = 1,000 samples.
"""

from collections import Counter

import pytest
import torch
from scipy.stats import chisquare

from specviz.engine.decoding import speculative_generate
from specviz.engine.proposers import make_proposer
from specviz.engine.sampling import logits_to_probs

N = 1000
SETTINGS = dict(temperature=1.0, top_k=6)
# The prompt a proposer drafts after. Read 44: on "abcab" the n-gram lookup always drafts 'c', which the target's
# top-6 leaves out (p = 0): no draft was ever kept, the residual was p itself, and a rule that resampled from p
# instead of the residual passed both n-gram tests. After "hello hello" it copies a token with p = 0.18.
PROMPTS = {"ngram": "hello hello"}
pytestmark = [pytest.mark.statistical, pytest.mark.slow]


def exact_two_token_distribution(model, ids):
    with torch.no_grad():
        p1 = logits_to_probs(model(torch.tensor([ids])).logits[0, -1], **SETTINGS)
        joint = {}
        for t1 in torch.nonzero(p1).flatten().tolist():
            p2 = logits_to_probs(model(torch.tensor([ids + [t1]])).logits[0, -1], **SETTINGS)
            for t2 in torch.nonzero(p2).flatten().tolist():
                joint[(t1, t2)] = float(p1[t1] * p2[t2])
    return joint


def chi_square_p_value(counts: Counter, exact: dict) -> float:
    """Pearson's test of sampled pairs against exact probabilities; cells expecting < 5 samples are pooled.
    A sampled pair the target gives probability zero is impossible under the target: p-value 0."""
    if not set(counts) <= set(exact):
        return 0.0
    total = sum(counts.values())
    norm = sum(exact.values())
    big = [c for c in exact if exact[c] / norm * total >= 5]
    small = [c for c in exact if c not in big]
    observed = [counts[c] for c in big] + ([sum(counts[c] for c in small)] if small else [])
    expected = [exact[c] / norm * total for c in big] + ([sum(exact[c] for c in small) / norm * total] if small else [])
    expected = [e * total / sum(expected) for e in expected]  # exact sums despite rounding
    return chisquare(observed, expected).pvalue


class FirstTwo:
    """Stops a generation once it holds the two tokens a test reads, through the engine's own deadline: its clock
    passes the deadline after the step that brought the second token (`DecodeOptions`: a deadline changes where a
    run stops, not what it samples before). A K = 3 run otherwise went on to fill its K + 1 tokens, a second step
    in most runs, whose tokens no test read: 25 to 40% of each K = 3 test's time (300 runs a proposer, 2026-12-06,
    the same counts with and without)."""

    deadline = 0.5

    def __init__(self) -> None:
        self.tokens = 0

    def clock(self) -> float:
        return 1.0 if self.tokens >= 2 else 0.0

    def on_step(self, outcome) -> None:
        self.tokens += len(outcome.emitted)


@pytest.mark.parametrize("name", ["draft", "ngram", "layerskip", "eagle", "medusa"])
@pytest.mark.parametrize("k", [1, 3])
def test_first_two_tokens_follow_the_target(toy, name, k):
    ids = toy.tokenizer(PROMPTS.get(name, "abcab"))["input_ids"]  # repeats: the n-gram proposer finds a match
    exact = exact_two_token_distribution(toy.target, ids)
    proposer = make_proposer(toy, name, layers=1)
    counts, drafted, kept = Counter(), 0, 0
    for seed in range(N):
        # k + 1 new tokens: K is really drafted in the first step (the engine caps it at what can still be emitted,
        # less the bonus), and no step runs past what the test reads for K = 1 (the first two tokens)
        stop = FirstTwo()
        trace = speculative_generate(toy.target, proposer, ids, k=k, max_new_tokens=k + 1, seed=seed, eos_token_id=[],
                                     clock=stop.clock, on_step=stop.on_step, deadline=stop.deadline, **SETTINGS)
        assert len(trace.output_ids) >= 2
        counts[tuple(trace.output_ids[:2])] += 1
        drafted += trace.steps[0].k
        kept += trace.steps[0].n_accepted > 0
    assert drafted >= N * k  # the proposer really proposed
    assert N / 20 < kept < N - N / 20  # first drafts both kept and rejected: the accept test and the residual ran
    assert chi_square_p_value(counts, exact) > 1e-3


def test_the_test_has_power_a_draft_only_sampler_fails(toy):
    """Sampling straight from the draft (what 'accept everything' would give) is caught by the same test."""
    ids = toy.tokenizer("abcab")["input_ids"]
    exact = exact_two_token_distribution(toy.target, ids)
    counts = Counter()
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for _ in range(N):
            p1 = logits_to_probs(toy.draft(torch.tensor([ids])).logits[0, -1], **SETTINGS)
            t1 = int(torch.multinomial(p1, 1, generator=g))
            p2 = logits_to_probs(toy.draft(torch.tensor([ids + [t1]])).logits[0, -1], **SETTINGS)
            t2 = int(torch.multinomial(p2, 1, generator=g))
            counts[(t1, t2)] += 1
    assert chi_square_p_value(counts, exact) < 1e-3


def test_the_module_docstring_states_the_sample_count_the_tests_draw():
    """Read 24: the module said the chi-square test has power "with a few thousand samples"; each test draws N."""
    assert f"N = {N:,} samples" in __doc__ and "few thousand" not in __doc__


def test_stopping_after_the_second_token_changes_none_of_the_first_two(toy):
    """FirstTwo's early stop is only a shortcut: over 200 seeds the first two tokens are the ones a run to K + 1
    tokens writes, and the stopped runs did stop early (fewer tokens) in some of them."""
    ids = toy.tokenizer("abcab")["input_ids"]
    proposer, shorter = make_proposer(toy, "draft"), 0
    for seed in range(200):
        whole = speculative_generate(toy.target, proposer, ids, k=3, max_new_tokens=4, seed=seed, eos_token_id=[],
                                     **SETTINGS)
        stop = FirstTwo()
        early = speculative_generate(toy.target, proposer, ids, k=3, max_new_tokens=4, seed=seed, eos_token_id=[],
                                     clock=stop.clock, on_step=stop.on_step, deadline=stop.deadline, **SETTINGS)
        assert early.output_ids[:2] == whole.output_ids[:2]
        shorter += len(early.output_ids) < len(whole.output_ids)
    assert shorter > 20
