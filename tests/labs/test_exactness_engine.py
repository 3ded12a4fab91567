"""The rules run through the real engine on the toy pair: speculative_generate with the exact rule samples the
target's distribution, a broken rule does not, and the enumerated ground truth agrees with plain decoding."""

import pytest
import torch

from specviz.engine.decoding import DecodeOptions, decode, speculative_generate
from specviz.engine.draft_shape import DraftShape
from specviz.engine.generation import GenerationSettings
from specviz.labs.exactness import (RULES, TREE_RULES, chi_square_test, continuation_samples,
                                    exact_first_token_distribution, exact_two_token_distribution,
                                    next_token_distributions, one_step_distribution, proposal_distribution,
                                    tv_distance)
from specviz.engine.proposers import make_proposer
from specviz.engine.sampling import SamplingConfig
from specviz.models.pairs import load_pair

PROMPT = "hello world"
SAMPLING = SamplingConfig(temperature=1.0)


@pytest.fixture(scope="module")
def toy():
    pair = load_pair("toy")
    return pair, pair.tokenizer(PROMPT)["input_ids"]


def first_token_counts(samples, vocab_size):
    return torch.bincount(torch.tensor([s[0] for s in samples]), minlength=vocab_size)


def test_toy_prompt_trips_the_broken_rules(toy):
    pair, ids = toy
    p = exact_first_token_distribution(pair.target, ids, SAMPLING)
    q = proposal_distribution(make_proposer(pair), ids, SAMPLING, pair.target.config.vocab_size)
    assert tv_distance(one_step_distribution("accept_all", p, q)[0], p) > 0.15
    assert tv_distance(one_step_distribution("exact", p, q)[0], p) < 1e-9


@pytest.mark.statistical
@pytest.mark.slow
def test_exact_rule_through_the_engine_samples_p(toy):
    pair, ids = toy
    p = exact_first_token_distribution(pair.target, ids, SAMPLING)
    samples = continuation_samples(pair.target, pair.draft, ids, n=600, length=2, rule="exact", seed=0,
                                   autoregressive=False)
    assert 0.3 < samples.acceptance_rate < 1.0  # the verifier really ran and rejected some drafts
    spec = chi_square_test(first_token_counts(samples.speculative, p.shape[0]), p)
    assert spec.dof >= 1 and spec.p_value > 1e-3, spec


@pytest.mark.statistical
@pytest.mark.slow
@pytest.mark.parametrize("name,n", [("accept_all", 300), ("typical_acceptance", 200)])
def test_broken_rules_through_the_engine_fail(toy, name, n):
    pair, ids = toy
    p = exact_first_token_distribution(pair.target, ids, SAMPLING)
    samples = continuation_samples(pair.target, pair.draft, ids, n=n, length=2, rule=name, seed=0,
                                   autoregressive=False)
    assert chi_square_test(first_token_counts(samples.speculative, p.shape[0]), p).p_value < 1e-3


@pytest.mark.statistical
@pytest.mark.slow
def test_exact_match_rule_through_the_engine_passes(toy):
    pair, ids = toy
    p = exact_first_token_distribution(pair.target, ids, SAMPLING)
    samples = continuation_samples(pair.target, pair.draft, ids, n=400, length=2, rule="exact_match", seed=0,
                                   autoregressive=False)
    assert samples.acceptance_rate < 0.3  # Σ p q is small for a 34-token vocabulary
    fit = chi_square_test(first_token_counts(samples.speculative, p.shape[0]), p)
    assert fit.dof >= 1 and fit.p_value > 1e-3


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_every_rule_runs_in_the_engine(toy):
    pair, ids = toy
    assert len(RULES) > 1 and "accept_all" in RULES
    for name, rule in RULES.items():
        trace = speculative_generate(pair.target, pair.draft, ids, k=3, max_new_tokens=8, temperature=1.0, seed=1,
                                     verifier=rule.function, tokenizer=pair.tokenizer)
        assert 1 <= trace.num_tokens <= 8, name
        if name == "accept_all":
            assert trace.num_accepted == trace.num_drafted


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_every_tree_rule_runs_in_the_engine_on_the_tree_it_judges(toy):
    """`TreeRule.verification` tells the engine how the rule's children are drafted: the draft's top tokens for the
    two top-k rules (one tree whatever the seed, its first level the top of q), samples of q for the sampled rule."""
    pair, ids = toy

    def first_tree(name: str, seed: int) -> list:
        trace = decode(pair.target, make_proposer(pair), ids, GenerationSettings(6, 1.0, 0, 1.0, seed, 2),
                       DecodeOptions(pair.tokenizer), shape=DraftShape(2, 6, 3),
                       tree=TREE_RULES[name].verification())
        assert 1 <= trace.num_tokens <= 6 and trace.steps[0].tree is not None
        return trace.steps[0].tree.nodes

    assert set(TREE_RULES) == {"tree_sampled", "tree_top_children", "tree_top_k_against_q"}
    for name in ("tree_top_children", "tree_top_k_against_q"):
        trees = [first_tree(name, seed) for seed in range(3)]
        assert all([n.token_id for n in tree] == [n.token_id for n in trees[0]] for tree in trees), name
        q = [n.draft_prob for n in trees[0] if n.parent == -1]
        assert len(q) == 3 and q == sorted(q, reverse=True), name
    sampled = {tuple(n.token_id for n in first_tree("tree_sampled", seed)) for seed in range(3)}
    assert len(sampled) > 1


@pytest.mark.statistical
@pytest.mark.slow
def test_two_token_enumeration_is_exact(toy):
    pair, ids = toy
    dist = exact_two_token_distribution(pair.target, ids, SAMPLING, eos={1})
    assert dist.exhaustive and float(dist.probs.sum()) == pytest.approx(1.0, abs=1e-6)
    assert float(dist.probs[-1]) == pytest.approx(0.0, abs=1e-6)
    # spot-check one pair against two separate forwards
    t1, t2 = dist.support[0]
    p1 = exact_first_token_distribution(pair.target, ids, SAMPLING)
    p2 = next_token_distributions(pair.target, [ids + [t1]], SAMPLING)[0]
    assert float(dist.probs[0]) == pytest.approx(float(p1[t1] * p2[t2]), rel=1e-4)
    # plain decoding agrees with it over whole 2-token continuations
    samples = continuation_samples(pair.target, pair.draft, ids, n=500, length=2, seed=1000)
    for seqs in (samples.autoregressive, samples.speculative):
        counts = torch.bincount(dist.categorize(seqs), minlength=len(dist.probs))
        assert (fit := chi_square_test(counts, dist.probs)).dof >= 1 and fit.p_value > 1e-3


def test_a_feature_drafter_gets_the_targets_features_in_the_lab(toy):
    """The Exactness lab on the default pair (an EAGLE drafter) said "no guess after this prompt" for every prompt:
    its q was read without handing the drafter the target's features, as the engine's prefill does."""
    from specviz.engine.decoding import speculative_generate

    pair, ids = toy
    proposer = make_proposer(pair, "eagle")
    with pytest.raises(ValueError, match="no guess after this prompt"):
        proposal_distribution(proposer, ids, SAMPLING, pair.target.config.vocab_size)
    q = proposal_distribution(proposer, ids, SAMPLING, pair.target.config.vocab_size, target=pair.target)
    assert float(q.sum()) == pytest.approx(1.0, abs=1e-5)
    trace = speculative_generate(pair.target, proposer, list(ids), k=1, max_new_tokens=2, temperature=1.0, seed=0)
    drafted = trace.steps[0].decisions[0]  # the engine's first draw came from the same q
    assert drafted.draft_prob == pytest.approx(float(q[drafted.token_id]), rel=1e-4)


@pytest.mark.parametrize("length", [2, 3])
def test_a_short_continuation_drafts_fewer_than_k_and_the_note_says_so(toy, length):
    """The engine drafts at most one token fewer than it can still emit: with K = 4, a 2-token continuation drafts
    at most one token a step (one in its first, none in a second), a 3-token one at most two; the lab's note must
    not read as K = 4 drafts a step."""
    from specviz.labs.exactness.lab import drafts_per_step, engine_lab
    from specviz.runs.runspec import RunSpec

    pair, ids = toy
    runs = continuation_samples(pair.target, pair.draft, ids, n=6, length=length, k=4, seed=0, autoregressive=False)
    first = drafts_per_step(4, length)  # each run's first step drafts this many; a later one at most length - 2
    assert first == length - 1 and 6 * first <= runs.drafted <= 6 * (first + length - 2)
    spec = RunSpec(pair="toy", prompt=PROMPT, chat=False, k=4, temperature=1.0)
    note = engine_lab(pair, spec, "exact", n=2, length=length).note
    assert f"drafting at most {length - 1} a step with K = 4" in note, note


@pytest.mark.slow  # about 7 s: 80 continuations through the engine
def test_a_k_that_drafts_no_more_draws_the_same_continuations_and_the_note_says_so(toy):
    """Read 46: the engine mode gave the same p-values for K = 2 and K = 3. Not a lost K: a 3-token continuation
    drafts at most 2 a step whatever K is above that, and the same seed draws the same outputs; the note now says
    so, where K = 2 (which drafts all it asks for) says nothing of it."""
    from specviz.labs.exactness.lab import engine_lab
    from specviz.runs.runspec import RunSpec

    pair, _ = toy
    results = {k: engine_lab(pair, RunSpec(pair="toy", prompt=PROMPT, chat=False, k=k, temperature=1.0), "exact",
                             n=40, length=3) for k in (2, 3)}
    assert torch.equal(results[2].speculative, results[3].speculative)  # same draws: by construction, not a cache
    said = "A larger K drafts no more here: with this seed, every K from 2 up draws these same continuations"
    assert said in results[3].note and said not in results[2].note, results[3].note
    assert "with K = 3" in results[3].note and "with K = 2" in results[2].note  # each run records its own K


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_a_one_token_continuation_still_calls_the_rule_with_no_draft(toy):
    """continuation_samples' docstring: a 1-token continuation drafts nothing, yet the rule is called with K = 0 and
    picks the bonus token. Medusa's typical acceptance takes p's argmax there, so even one token is not p."""
    pair, ids = toy
    p = exact_first_token_distribution(pair.target, ids, SAMPLING)
    runs = continuation_samples(pair.target, pair.draft, ids, n=20, length=1, rule="typical_acceptance", seed=0)
    assert runs.drafted == 0
    assert {s[0] for s in runs.speculative} == {int(p.argmax())}
    assert len({s[0] for s in runs.autoregressive}) > 1  # target-only samples p


def test_two_token_enumeration_that_drops_pairs_is_not_exhaustive(toy):
    """`exhaustive` promises an empty "other" by construction; with more positive pairs than `max_support` and no
    end-of-text first token it said True while "other" held 0.63 of the mass (the top-k had cut the pairs): the
    mass of every pair past the 50 most likely, read from the full enumeration."""
    pair, ids = toy
    dist = exact_two_token_distribution(pair.target, ids, SAMPLING, eos=set(), max_support=50)
    full = exact_two_token_distribution(pair.target, ids, SAMPLING, eos=set())
    assert full.exhaustive and not dist.exhaustive
    cut = 1.0 - float(full.probs[:-1].sort(descending=True).values[:50].sum())
    assert float(dist.probs[-1]) == pytest.approx(cut, abs=1e-6) and round(cut, 2) == 0.63


def test_continuation_count_refuses_a_huge_negative_int_in_one_sentence():
    """continuation_samples promised a sentence for a count that is not a positive whole number, but called
    math.isfinite on ints, which raises OverflowError past about 10**308: -10**400 crashed instead."""
    from specviz.labs.exactness.engine import continuation_samples

    with pytest.raises(ValueError, match=r"positive whole number \(got −1000000.*…\)\.$"):
        continuation_samples(None, None, [1], n=-10**400, length=2, rule="exact")


def test_a_support_of_one_token_is_named_in_the_singular():
    """Read 44: at a cool temperature p and q can put all but a millionth of their mass on one token, and the note
    read "Over the 1 tokens that carry almost all the mass" ("Sobre os 1 tokens que carregam" in Portuguese)."""
    from specviz.core.i18n import using
    from specviz.labs.exactness.experiments import restrict_support
    from specviz.labs.exactness.lab import StepDistributions

    p = torch.tensor([1 - 1e-7, 5e-8, 5e-8, 0.0])
    one = StepDistributions([0], restrict_support(p, p, max_tokens=2), ["a"], "draft")
    assert one.support.token_ids.tolist() == [0]
    assert one.note.startswith("Over the 1 token that carries almost all the mass (")
    with using("pt"):
        assert one.note.startswith("Sobre o 1 token que carrega quase toda a massa (")
    two = StepDistributions([0], restrict_support(torch.tensor([0.6, 0.4 - 1e-7, 1e-7, 0.0]),
                                                  torch.tensor([0.5, 0.5 - 1e-7, 1e-7, 0.0]), max_tokens=2),
                            ["a", "b"], "draft")
    assert two.note.startswith("Over the 2 tokens that carry almost all the mass (")


def test_a_share_just_short_of_all_is_not_written_100_percent():
    """Read 53: on SmolLM at T = 0.3 ("Once upon a time") the kept tokens held 0.99999952 of q, and the note under the
    verdicts read "Over the 171 tokens that carry almost all the mass (99.9999% of p, 100.0000% of q)": a share that
    is not all of q written as all of it. Now with the digits it needs, as every share (`core.i18n.percent_of`)."""
    from specviz.labs.exactness.experiments import Support
    from specviz.labs.exactness.lab import StepDistributions

    p = torch.tensor([0.5, 0.5])
    dists = StepDistributions([0], Support(torch.arange(2), p, p, 0.9999991655349234, 0.9999995231628418),
                              ["a", "b"], "draft")
    assert "(99.9999% of p, 99.99995% of q)" in dists.note and "100.0000%" not in dists.note


def test_the_two_token_note_does_not_round_the_enumerated_share_to_100_percent():
    """Read 53: SmolLM at T = 0.1, top-k 50 read "exact for the most likely first token (100.00% of p); the rest is
    'other'", where that token held 0.9999963 of p and the rest is not empty. The toy pair after "the cat sat" at
    T = 0.03 puts 0.9999982 of p on one token."""
    pair = load_pair("toy")
    ids = pair.tokenizer("the cat sat")["input_ids"]
    cold = SamplingConfig(temperature=0.03)
    top = float(exact_first_token_distribution(pair.target, ids, cold).max())
    assert 0.99995 <= top < 1  # a share that two decimals write as 100.00%
    note = exact_two_token_distribution(pair.target, ids, cold, eos=set(), coverage=1e-9).note
    assert note == "exact for the most likely first token (99.9998% of p(t₁)); the rest is “(other)”"


def test_one_enumerated_first_token_is_named_in_the_singular(toy):
    """Read 44: at top-k 1 the two-token comparison's note read "exact, by enumerating all 1 possible first tokens"
    ("todos os 1 primeiros tokens possíveis"), and one token covering the enumeration's share "exact for the 1 most
    likely first tokens"."""
    from specviz.core.i18n import using

    pair, ids = toy
    one = exact_two_token_distribution(pair.target, ids, SamplingConfig(temperature=1.0, top_k=1), eos=set())
    assert one.note == "exact: only 1 first token is possible"
    top = exact_two_token_distribution(pair.target, ids, SAMPLING, eos=set(), coverage=1e-9)
    assert top.note.startswith("exact for the most likely first token (") and top.note.endswith(
        "of p(t₁)); the rest is “(other)”")
    with using("pt"):
        assert exact_two_token_distribution(pair.target, ids, SamplingConfig(temperature=1.0, top_k=1),
                                            eos=set()).note == "exata: só 1 primeiro token é possível"


@pytest.mark.slow  # 100 two-token continuations of the toy pair, twice
def test_a_continuation_the_target_cannot_write_refutes_p_over_two_tokens():
    """Read 50: at top-k 5 the enumeration of every pair is exhaustive, but 1 minus its float32 sum left "other"
    about 1e-8; accept-all's continuations outside the target's top 5 landed there, the test pooled them with the
    rare pairs, and the page said "Consistent with the target distribution (chi-square p-value 0.19)" with 25 of
    100 samples a pair the target gives probability 0. Compared on the first token, the same drafts refute p."""
    from specviz.labs.exactness import lab
    from specviz.runs.runspec import RunSpec

    pair = load_pair("toy")
    spec = RunSpec(pair="toy", prompt="the cat sat", temperature=1.0, top_k=5, k=4, seed=0)
    result = lab.engine_lab(pair, spec, "accept_all", 100, 2, "pair")
    spec_counts, plain_counts = result.counts()
    assert float(result.exact_probs[-1]) == 0.0 and int(spec_counts[-1]) > 0
    test = chi_square_test(spec_counts, result.exact_probs, pairs=True)
    assert test.impossible == int(spec_counts[-1]) and not test.consistent
    assert test.verdict.startswith(f"Not the target distribution: {int(spec_counts[-1])} of 100 samples are "
                                   "outcomes the target gives probability 0"), test.verdict
    assert chi_square_test(plain_counts, result.exact_probs, pairs=True).impossible == 0


def test_a_top_k_support_says_the_vocabulary_it_leaves_out():
    """Second read 51: at top-k 20 on SmolLM2 the one-step lab tests the 28 tokens p or q gives mass, and its
    caption said "The 8 outcomes p gives probability 0 are in no group" with nothing saying that the other 49,124
    tokens (p = 0 too) are not outcomes there: the coverage note was empty, as both coverages are 1."""
    from specviz.core.i18n import using
    from specviz.labs.exactness.experiments import restrict_support
    from specviz.labs.exactness.lab import StepDistributions, zero_outside

    p = torch.zeros(5000)
    q = torch.zeros(5000)
    p[:3], q[1:4] = torch.tensor([0.5, 0.3, 0.2]), torch.tensor([0.4, 0.4, 0.2])
    support = restrict_support(p, q)
    dists = StepDistributions([0], support, ["a", "b", "c", "d"], "draft", zero_outside(p, q, support))
    assert dists.note == ("Over the 4 tokens p or q gives a positive probability (the other 4,996 tokens of the "
                          "vocabulary have probability 0 under both).")
    with using("pt"):
        assert dists.note.startswith("Sobre os 4 tokens a que p ou q dá probabilidade positiva (os outros 4.996 ")
    whole = restrict_support(p[:4], q[:4])  # a small vocabulary is kept whole: nothing left out, no note
    assert zero_outside(p[:4], q[:4], whole) == 0


def test_the_two_token_note_names_the_other_bucket_and_p_as_the_page_does(toy):
    """Read 54: the note read "(99.999% of p); the rest is 'other'" on a page whose table names the bucket "(other)"
    ("(outros)" in Portuguese, where the note said 'outros') and whose truth is p(t₁, t₂): the share is of p(t₁)."""
    from specviz.core.i18n import _, using

    pair, ids = toy
    for lang, tail in (("en", "of p(t₁)); the rest is “(other)”"), ("pt", "de p(t₁)); o resto é “(outros)”")):
        with using(lang):
            note = exact_two_token_distribution(pair.target, ids, SAMPLING, eos=set(), coverage=1e-9).note
            assert note.endswith(tail) and f"“{_('(other)')}”" in note


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_first_token_that_float32_gives_all_of_p_is_not_written_100_percent(lang):
    """Read 55: the toy pair after "the quick brown fox" at T = 0.01 gives its top first token a float32 p of 1.0 and
    5 others 1e-15 between them, and the two-token note read "exact for the most likely first token (100.00% of
    p(t₁)); the rest is “(other)”", a non-empty rest beside a share of all of it. The share now comes from what the
    enumerated tokens leave, and past 6 decimals it is a bound (`core.i18n.percent_of`)."""
    from specviz.core.i18n import using

    pair = load_pair("toy")
    ids = pair.tokenizer("the quick brown fox")["input_ids"]
    cold = SamplingConfig(temperature=0.01)
    p1 = exact_first_token_distribution(pair.target, ids, cold)
    assert float(p1.max()) == 1.0 and int((p1 > 0).sum()) > 1  # the case: the float says all, the rest is not empty
    said = {"en": "exact for the most likely first token (> 99.999999% of p(t₁)); the rest is “(other)”",
            "pt": "exata para o primeiro token mais provável (> 99,999999% de p(t₁)); o resto é “(outros)”"}[lang]
    with using(lang):
        assert exact_two_token_distribution(pair.target, ids, cold).note == said
        # 3 tokens whose float32 p sum past 1 ("the cat sat", T = 0.05) read 100.00% too
        warm = exact_two_token_distribution(pair.target, pair.tokenizer("the cat sat")["input_ids"],
                                            SamplingConfig(temperature=0.05)).note
    assert "100" not in warm and ("99.999999%" in warm or "99,999999%" in warm), warm
