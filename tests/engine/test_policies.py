"""Draft-length policies: each behaves as specified and none changes what the target would have said."""

import pytest

from specviz.engine.baseline import autoregressive_generate
from specviz.engine.decoding import speculative_generate
from specviz.engine.policies import Constant, Heuristic, OptimalK, confident, make_policy
from specviz.engine.proposers import DraftModelProposer, NgramProposer, make_proposer
from specviz.models.pairs import encode_prompt, toy_pair


@pytest.fixture(scope="module")
def pair():
    return toy_pair()


@pytest.fixture(scope="module")
def ids(pair):
    return encode_prompt(pair.tokenizer, "the cat sat on the mat. the cat sat", chat=False)


def test_heuristic_grows_by_two_after_a_full_accept_and_shrinks_by_one_otherwise():
    h = Heuristic(start=4, k_min=1, k_max=8)
    seen = []
    for drafted, accepted in [(4, 4), (6, 6), (8, 8), (8, 3), (7, 0), (6, 0), (5, 0), (4, 0), (3, 0), (2, 0), (1, 0),
                              (1, 1), (0, 0)]:
        h.observe(drafted, accepted)
        seen.append(h.next_k())
    #            +2 +2 +2(capped) -1 -1 -1 -1 -1 -1 -1 -1(floor)  +2  nothing drafted: unchanged
    assert seen == [6, 8, 8, 7, 6, 5, 4, 3, 2, 1, 1, 3, 3]
    h.reset()
    assert h.next_k() == 4


def test_heuristic_in_the_engine_sets_each_steps_k_from_the_previous_step(pair, ids):
    trace = speculative_generate(pair.target, pair.draft, ids, k=2, max_new_tokens=60, temperature=1.0, seed=3,
                                 draft_length=Heuristic(start=2, k_min=1, k_max=6),
                                 eos_token_id=[])  # no early end-of-text: the test is about K, over many steps
    ks = [s.k for s in trace.steps]
    assert len(set(ks)) > 2  # it really moved
    for prev, step in zip(trace.steps, trace.steps[1:-1]):  # the last step may be cut by max_new_tokens
        expected = min(6, prev.k + 2) if prev.n_accepted == prev.k else max(1, prev.k - 1)
        assert step.k == expected


MODEL_PROPOSERS = ["draft", "layerskip", "eagle", "medusa"]  # the ones with a q to be confident in


def test_the_model_proposers_are_every_registered_proposer_with_draft_probabilities(pair):
    from specviz.engine.proposers import registry

    assert [n for n in registry.names() if make_proposer(pair, n).has_draft_probs] == MODEL_PROPOSERS


@pytest.mark.parametrize("name", MODEL_PROPOSERS)
@pytest.mark.parametrize("temperature", [0.0, 1.0])
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_threshold_zero_changes_nothing_and_threshold_one_drafts_nothing_for_every_model_proposer(pair, ids, name,
                                                                                                   temperature):
    kwargs = dict(k=4, max_new_tokens=30, temperature=temperature, seed=5)
    proposer = make_proposer(pair, name, layers=1)
    plain = speculative_generate(pair.target, proposer, ids, **kwargs)
    never_stops = speculative_generate(pair.target, confident(proposer, 0.0), ids, **kwargs)
    always_stops = speculative_generate(pair.target, confident(proposer, 1.0), ids, **kwargs)
    assert plain.num_drafted > 0
    assert never_stops.output_ids == plain.output_ids
    assert [s.k for s in never_stops.steps] == [s.k for s in plain.steps]
    assert always_stops.num_drafted == 0 and always_stops.num_steps == always_stops.num_tokens
    assert proposer.stop_below == 0.0  # the original is left as it was


def test_threshold_stops_early_somewhere_between(pair, ids):
    trace = speculative_generate(pair.target, confident(DraftModelProposer(pair.draft, 34), 0.3), ids, k=6,
                                 max_new_tokens=40, temperature=0.0)
    ks = {s.k for s in trace.steps}
    assert len(ks) > 1 and max(ks) <= 6


def test_a_confident_copy_shares_the_drafts_weights_but_not_its_cache(pair, ids):
    plain = DraftModelProposer(pair.draft, 34)
    plain.prefill(ids)
    twin = confident(plain, 0.3)
    assert twin.runner.model is plain.runner.model
    assert len(twin.runner) == 0 and len(plain.runner) > 0  # the prefill stays in the original's cache
    assert (twin.stop_below, plain.stop_below) == (0.3, 0.0)
    layerskip = confident(make_proposer(pair, "layerskip", layers=1), 0.3)
    assert layerskip.name == "layerskip-1" and layerskip.layers == 1  # still the proposer it was


def test_threshold_needs_a_model_draft_and_a_probability(pair):
    with pytest.raises(ValueError, match="probabilities"):
        confident(NgramProposer())
    with pytest.raises(ValueError, match="between 0 and 1"):
        confident(DraftModelProposer(pair.draft, 34), 1.5)


@pytest.mark.parametrize("make, says", [
    (lambda: OptimalK(c=0.1, prior_weight=0), "prior weight above 0"),  # was a ZeroDivisionError at next_k
    (lambda: OptimalK(c=0.1, probe_every=0), "probe every 1 or more steps"),  # a modulo by zero once K was 0
    (lambda: OptimalK(c=True), "got α = 0.500, c = True"),  # True was taken as c = 1
    (lambda: OptimalK(c=0.1, alpha=True), "got α = True"),
    (lambda: OptimalK(c="0.1"), "c = '0.1'"),  # Python's TypeError before
    (lambda: OptimalK(c=None), "c = None"),
])
def test_a_bad_optimal_k_setting_of_any_kind_is_one_sentence(make, says):
    with pytest.raises(ValueError, match="optimal-K policy needs") as refused:
        make()
    assert says in str(refused.value)


@pytest.mark.parametrize("threshold", [True, "0.4", None])
def test_a_threshold_that_is_no_number_is_one_sentence(pair, threshold):
    """True was taken as a threshold of 1 (a proposer that drafts nothing); a text was Python's TypeError."""
    with pytest.raises(ValueError, match=f"between 0 and 1 \\(got {threshold!r}\\)"):
        confident(DraftModelProposer(pair.draft, 34), threshold)


def test_optimal_k_follows_the_formula_and_backs_off_when_drafts_fail():
    from specviz.engine.theory import optimal_k

    policy = OptimalK(c=0.5, alpha=0.8, prior_weight=10)
    assert policy.next_k() == optimal_k(0.8, 0.5) == 2
    for _ in range(30):
        policy.observe(policy.next_k() or 1, 0)
    ks = [policy.next_k() for _ in range(16)]
    assert ks.count(0) == 14 and ks.count(1) == 2  # don't speculate, but probe every 8th step


def test_make_policy_rejects_unknown_names_and_optimal_needs_c():
    with pytest.raises(ValueError, match="Unknown draft-length policy"):
        make_policy("fastest", 4)
    with pytest.raises(ValueError, match="draft cost"):
        make_policy("optimal", 4)
    assert isinstance(make_policy("constant", 3), Constant)


@pytest.mark.parametrize("policy,proposer", [(p, d) for p in ("constant", "heuristic", "threshold", "optimal")
                                              for d in ("draft", "ngram") if (p, d) != ("threshold", "ngram")])
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_every_policy_keeps_greedy_output_identical_to_target_only(pair, ids, policy, proposer):
    base = autoregressive_generate(pair.target, ids, max_new_tokens=40, temperature=0.0)
    prop = DraftModelProposer(pair.draft, 34) if proposer == "draft" else NgramProposer()
    if policy == "threshold":
        prop = confident(prop, 0.3)
    trace = speculative_generate(pair.target, prop, ids, k=3, max_new_tokens=40, temperature=0.0,
                                 draft_length=make_policy(policy, 3, k_max=8, c=0.2))
    assert trace.output_ids == base.output_ids


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_the_eagle_drafter_stops_on_low_confidence_somewhere_between(pair, ids, temperature):
    kwargs = dict(k=4, max_new_tokens=30, temperature=temperature, seed=5)
    eagle = make_proposer(pair, "eagle")
    plain = speculative_generate(pair.target, eagle, ids, **kwargs)
    sometimes = speculative_generate(pair.target, confident(eagle, 0.15), ids, **kwargs)
    assert 0 < sometimes.num_drafted < 4 * sometimes.num_steps
    if temperature == 0:
        assert sometimes.output_ids == plain.output_ids


@pytest.mark.parametrize("lang, says", [("en", "(got α = 1.500, c = 1e+300)."), ("pt", "(recebido: α = 1,500; c = 1e+300).")])
def test_a_bad_optimal_k_setting_is_one_sentence_with_the_readers_numbers(lang, says):
    from specviz.core.i18n import using

    with using(lang), pytest.raises(ValueError) as refused:
        OptimalK(c=1e300, alpha=1.5)
    assert str(refused.value).endswith(says), str(refused.value)


def test_the_policies_docstring_qualifies_greedy_identity_by_exact_arithmetic():
    """Exactness is a property of the rule in exact arithmetic: a policy that changes K changes the verify forward's
    width, and in bfloat16 a near-tie can flip a greedy token (specviz.engine.numerics)."""
    import specviz.engine.policies as policies

    doc = " ".join(policies.__doc__.split())
    assert "exactly the target's in exact arithmetic" in doc and "specviz.engine.numerics" in doc


def test_steps_that_draft_nothing_under_a_policy_emit_a_target_token(pair, ids):
    """Read 20: trace.py's vocabulary named an n-gram miss and a run's last token as the speculative steps whose token
    is "target"; the optimal policy's K = 0 and a draft below the threshold at its first token draft nothing too."""
    from specviz.engine import trace as trace_module

    idle = speculative_generate(pair.target, pair.draft, ids, k=4, max_new_tokens=12, seed=0, eos_token_id=[],
                                draft_length=OptimalK(c=5.0))  # c this high: the formula says K = 0
    unsure = speculative_generate(pair.target, confident(make_proposer(pair, "draft"), 1.0), ids, k=4,
                                  max_new_tokens=12, seed=0, eos_token_id=[])
    for trace in (idle, unsure):
        empty = [s for s in trace.steps if s.n_drafted == 0]
        assert empty and all([t.kind for t in s.emitted] == ["target"] for s in empty)
    doc = " ".join(trace_module.__doc__.split())
    assert "a draft-length policy's K of 0" in doc and "below the threshold policy's confidence" in doc


@pytest.mark.parametrize("name", ["draft", "eagle"])
def test_the_threshold_stop_ends_chains_only_as_the_docstrings_say(pair, ids, name):
    """`Proposer.stops_here` is asked by `propose`, never by `propose_tree`: a confident copy that stops every chain
    at once still drafts whole trees (the policies and base docstrings say so; they once said every proposal)."""
    proposer = confident(make_proposer(pair, name), 1.0)
    kwargs = dict(k=3, max_new_tokens=12, temperature=1.0, seed=2)
    chain = speculative_generate(pair.target, proposer, ids, **kwargs)
    tree = speculative_generate(pair.target, proposer, ids, tree_nodes=6, tree_width=2, **kwargs)
    assert chain.num_drafted == 0
    assert tree.num_drafted > 0 and all(s.tree is not None for s in tree.steps[:-1])


@pytest.mark.parametrize("k_min, start", [(0, 0), (0, 1), (0, 4), (-1, 1)])
def test_the_heuristic_refuses_a_k_min_of_0_it_could_never_leave(k_min, start):
    """Known and left (issue 43): Heuristic(start=0, k_min=0) never drafted (a step of K = 0 observes nothing, so K
    never grows), and k_min = 0 with any start fell into the same K = 0 for good after enough rejections. The
    combination is refused in one sentence that names plain decoding's own spelling, Constant(0)."""
    with pytest.raises(ValueError, match=r"^The heuristic's K min must be 1 or more: .*K = 0\)\.$"):
        Heuristic(start=start, k_min=k_min)
    stuck = Constant(0)  # what k_min = 0 came to, said plainly
    assert stuck.next_k() == 0
    policy = Heuristic(start=1, k_min=1)
    policy.observe(1, 0)
    assert policy.next_k() == 1  # the floor of 1 keeps drafting, so an accepted step can grow K again


@pytest.mark.parametrize("make", [lambda: Constant(True), lambda: Heuristic(start=True), lambda: Heuristic(start=2.5),
                                  lambda: Heuristic(start=4, grow=0.5), lambda: Heuristic(start=4, shrink=-1),
                                  lambda: Heuristic(start=4, k_max=True)])
def test_a_k_that_is_no_whole_number_is_refused(make):
    """The 29th read: True passed as a K (isinstance(True, int)) and a start of 2.5 became the next step's K; each is
    now the promised ValueError with one sentence, as GenerationSettings gives for K = True."""
    with pytest.raises(ValueError) as err:
        make()
    assert "\n" not in str(err.value) and str(err.value).endswith(").")


@pytest.mark.parametrize("make, english, portuguese", [
    (lambda: Heuristic(start=2.5), "(got 2.5)", "(recebido: 2,5)"),
    (lambda: Heuristic(start=20), "(got 20)", "(recebido: 20)"),
    (lambda: Heuristic(grow=-1), "(got grow = −1, shrink = 1)", "(recebido: grow = −1; shrink = 1)"),
    (lambda: Heuristic(grow=0.5), "(got grow = 0.5, shrink = 1)", "(recebido: grow = 0,5; shrink = 1)"),
    (lambda: Heuristic(k_min=1.5), "(got 1.5 and 16)", "(recebido: 1,5 e 16)"),
    (lambda: OptimalK(c=0.1, prior_weight=0), "(got 0 and 8)", "(recebido: 0 e 8)")])
def test_a_refused_policy_value_is_quoted_as_given_in_the_readers_format(make, english, portuguese):
    """32nd read: the heuristic's refusals quoted 2.5 as "2.5" in Portuguese and a negative step as "+-1", and a
    whole prior weight of 0 read "0.0"; each value is now quoted as given, with the reader's decimal mark."""
    from specviz.core.i18n import using

    for lang, expected in (("en", english), ("pt", portuguese)):
        with using(lang), pytest.raises(ValueError) as refused:
            make()
        assert str(refused.value).endswith(expected + ".")


def test_the_heuristics_k_min_refusal_never_names_0_as_allowed():
    """The 37th read: after the 36th read's fix, a heuristic K min of -1 met the shared bounds' sentence ("Draft-length
    bounds need 0 <= K min ..."), and the 0 it invites was then refused as never drafting. Below 1 the heuristic says
    its own bound; the other policies keep 0 <= K min."""
    for k_min in (-1, -5, 0):
        with pytest.raises(ValueError) as refused:
            Heuristic(start=1, k_min=k_min)
        assert "0 <= K min" not in str(refused.value) and "K min must be 1 or more" in str(refused.value)
    with pytest.raises(ValueError, match=r"0 <= K min"):
        Heuristic(start=1, k_min=1, k_max=17)


def test_the_heuristics_k_min_refusal_names_the_constant_policy_as_the_pages_do_in_portuguese():
    """The 37th read: the Portuguese of the K-min refusal said "a política constant", the English key, where the pages
    call that policy "K constante" (the Speedup lab's "constant K")."""
    from specviz.core.i18n import _, using

    with using("pt"), pytest.raises(ValueError) as refused:
        Heuristic(start=1, k_min=0)
    with using("pt"):
        shown = _("constant K")
    assert shown == "K constante" and "a política de K constante com K = 0" in str(refused.value)
    assert "política constant " not in str(refused.value)


def test_a_tree_steps_k_under_a_policy_is_its_main_line_as_the_docstrings_say(pair, ids):
    """Read 45: the policies docstring said "the step's `k` in the trace is what was actually drafted"; a tree step's
    `k` is the length of its main line (its `decisions`), while the policy's K is the tree's depth (`draft_depth`)."""
    import specviz.engine.policies as policies
    import specviz.engine.trace as trace_module

    trace = speculative_generate(pair.target, pair.draft, ids, k=4, tree_nodes=8, tree_width=2, max_new_tokens=24,
                                 temperature=1.0, seed=1, eos_token_id=[], draft_length=Heuristic(start=4))
    trees = [s for s in trace.steps if s.tree is not None]
    assert trees and all(s.k == len(s.decisions) for s in trees)
    assert any(s.k != s.draft_depth for s in trees)  # so "what was drafted" would misread it
    doc = " ".join(policies.__doc__.split())
    assert "a chain step's `k` in the trace is what was actually drafted" in doc and "main line" in doc
    assert "not its depth (`draft_depth`)" in open(trace_module.__file__, encoding="utf-8").read()


def test_the_policies_docstring_gives_the_one_pass_cost_the_optimal_policy_uses():
    """Read 51: the module docstring gave the optimal policy only the K·c denominator, (1 − α)(K c + 1), while
    `OptimalK(one_pass=True)` (the Medusa heads, n-gram lookup) charges c per step (`theory.draft_cost`) and then
    picks k_max wherever the speedup beats 1. The docstring now gives both, as the policy computes them."""
    import specviz.engine.policies as policies
    from specviz.engine.theory import expected_speedup

    doc = " ".join(policies.__doc__.split())
    assert "((1 - α)(K c + 1))" in doc and "the denominator is (1 - α)(c + 1)" in doc
    assert "the argmax is k_max wherever the speedup beats 1, else 0" in doc
    alpha, c = 0.37, 0.0002  # what the docstring says, computed: c per step picks k_max; K·c stops below it
    assert OptimalK(c=c, alpha=alpha, one_pass=True).next_k() == 16 > OptimalK(c=c, alpha=alpha).next_k()
    assert expected_speedup(alpha, 16, c, one_pass=True) == pytest.approx((1 - alpha ** 17) / ((1 - alpha) * (c + 1)))
    assert OptimalK(c=5.0, alpha=0.001, one_pass=True).next_k() == 0  # the speedup never beats 1 here
