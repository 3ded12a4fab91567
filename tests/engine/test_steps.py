"""The step strategies stand alone (issue 45, item 3): `ChainStep` and `TreeStep` work from a `StepContext` built by
hand, with no decoder around them, and hand back a `StepResult`; one round of each replays the first step of a
`speculative_generate` run with the same seed, draw for draw. The kind of the token after the accepted drafts is
decided in one place, and each emitted token gets its text once, when the step makes it."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from specviz.engine.baseline import autoregressive_generate
from specviz.engine.decoding import (ChainStep, StepContext, StepResult, TreeStep, TreeVerification, decode,
                                     emitted_tokens, speculative_generate)
from specviz.engine.draft_shape import DraftShape
from specviz.engine.generation import GenerationSettings
from specviz.engine.kinds import TokenKind
from specviz.engine.kvcache import runner_for
from specviz.engine.proposers import make_proposer
from specviz.engine.recording import TraceRecorder
from specviz.engine.tree import DraftTree
from specviz.engine.tree_verifier import TreeVerifyResult, verify_tree
from specviz.engine.verifier import verify

ENGINE = Path(__file__).resolve().parents[2] / "specviz" / "engine"
PROMPT = "abcab abc"
K, LIMIT, SEED, EOS = 3, 20, 4, 1  # the toy pair's end-of-text token is 1


def standalone(toy, prompt: list[int]) -> StepContext:
    """A context for a fresh round after `prompt`, both caches filled as `SpeculativeDecoder.prefill` fills them."""
    settings = GenerationSettings(LIMIT, 1.0, 0, 1.0, SEED, K)
    proposer = make_proposer(toy, "draft")
    target = runner_for(toy.target)
    proposer.reset()
    target.reset()
    target.prefill(prompt)
    proposer.prefill(prompt)
    return StepContext(target, proposer, settings.sampling, settings.generator(), frozenset({EOS}), frozenset(),
                       toy.target.config.vocab_size, LIMIT, lambda n_emitted: min(K, LIMIT - n_emitted - 1))


def one_round(strategy: ChainStep | TreeStep, prompt: list[int]) -> tuple[StepResult, object]:
    """Propose, score and verify once; the result and what was drafted."""
    draft = strategy.propose(list(prompt), 0)
    return strategy.verify(strategy.score(list(prompt), draft), draft), draft


def test_a_chain_step_alone_returns_its_step_result_and_replays_the_engines_first_step(toy):
    prompt = toy.tokenizer(PROMPT)["input_ids"]
    result, draft = one_round(ChainStep(standalone(toy, prompt)), prompt)
    vocab = toy.target.config.vocab_size
    assert isinstance(result, StepResult) and result.tree is result.tree_verdict is result.tree_target_probs is None
    assert len(result.drafts) == K and result.drafts == draft.tokens
    assert result.draft_probs.shape == (K, vocab) and result.target_probs.shape == (K + 1, vocab)
    assert torch.allclose(result.target_probs.sum(-1), torch.ones(K + 1))
    first = speculative_generate(toy.target, make_proposer(toy, "draft"), prompt, k=K, max_new_tokens=LIMIT,
                                 temperature=1.0, seed=SEED, tokenizer=toy.tokenizer).steps[0]
    assert [d.token_id for d in first.decisions] == result.drafts
    assert [d.uniform for d in first.decisions if d.reached] == result.verdict.uniforms
    assert first.n_accepted == result.verdict.n_accepted
    assert first.emitted[-1].token_id == result.verdict.next_token


def test_a_tree_step_alone_returns_its_main_line_and_the_whole_tree(toy):
    prompt = toy.tokenizer(PROMPT)["input_ids"]
    result, tree = one_round(TreeStep(standalone(toy, prompt), DraftShape(K, 8, 3)), prompt)
    assert isinstance(result.tree, DraftTree) and result.tree is tree and 1 < len(tree) <= 8
    assert isinstance(result.tree_verdict, TreeVerifyResult)
    assert result.tree_target_probs.shape == (len(tree) + 1, toy.target.config.vocab_size)
    path = result.tree_verdict.path
    assert result.drafts[: len(path)] == [tree.tokens[n] for n in path]  # the main line starts with the path
    assert len(result.drafts) - len(path) in (0, 1)  # and ends with the first child rejected below it, if any
    assert result.target_probs.shape[0] == len(result.drafts) + 1
    first = speculative_generate(toy.target, make_proposer(toy, "draft"), prompt, k=K, max_new_tokens=LIMIT,
                                 temperature=1.0, seed=SEED, tokenizer=toy.tokenizer, tree_nodes=8,
                                 tree_width=3).steps[0]
    assert [node.token_id for node in first.tree.nodes] == tree.tokens
    assert first.tree.path == path and [d.token_id for d in first.decisions] == result.drafts


def test_a_round_with_nothing_drafted_emits_one_target_token_whatever_the_rule_called_it():
    p = torch.tensor([[0.2, 0.5, 0.3]])  # (K+1, V) with K = 0
    for verdict in (verify(p, torch.zeros(0, 3), [], uniforms=[]),
                    verify_tree(p, DraftTree([], [], torch.zeros(0, 3)), uniforms=[])):
        assert verdict.next_kind == TokenKind.BONUS  # the rule's own word: its "bonus" comes from p at position 1
        result = StepResult([], torch.zeros(0, 3), p, verdict)
        assert result.next_kind == TokenKind.TARGET
        assert [(t.token_id, t.kind) for t in emitted_tokens(result)] == [(verdict.next_token, TokenKind.TARGET)]


def test_target_tokens_come_exactly_from_the_steps_that_drafted_nothing(toy):
    prompt = toy.tokenizer(PROMPT)["input_ids"]
    plain = autoregressive_generate(toy.target, prompt, max_new_tokens=6, temperature=1.0, seed=SEED)
    assert len(plain.steps) == 6
    assert all([t.kind for t in s.emitted] == [TokenKind.TARGET] == [s.correction_kind] for s in plain.steps)
    # one token to go leaves no room to draft (the last token is the target's), in a chain and in a tree
    for tree_nodes in (0, 6):
        run = dict(k=K, temperature=1.0, seed=SEED, eos_token_id=[], tree_nodes=tree_nodes)
        last = speculative_generate(toy.target, make_proposer(toy, "draft"), prompt, max_new_tokens=1, **run)
        assert [(s.k, [t.kind for t in s.emitted], s.correction_kind) for s in last.steps] == [
            (0, [TokenKind.TARGET], TokenKind.TARGET)]
        trace = speculative_generate(toy.target, make_proposer(toy, "draft"), prompt, max_new_tokens=12, **run)
        assert len(trace.steps) >= 3
        for step in trace.steps:
            kinds = [t.kind for t in step.emitted]
            assert (TokenKind.TARGET in kinds) == (step.k == 0) == (step.correction_kind == TokenKind.TARGET)


def test_the_trace_vocabulary_says_a_speculative_step_can_emit_a_target_token():
    """The vocabulary in specviz.engine.trace once called a target token one "from plain target-only decoding (the
    baseline)"; the test above shows speculative steps that drafted nothing emit one too."""
    import specviz.engine.trace as trace_module

    doc = " ".join(trace_module.__doc__.split())
    assert "a speculative step that drafted nothing" in doc and "a token from plain target-only decoding" not in doc


def test_no_docstring_bounds_a_trees_acceptance_rate_by_alpha():
    """A tree's accepted / drafted counts untested nodes and has no α of its own: the old `Step.n_drafted` docstring
    said it "stays below α on average for trees too", and the vLLM metrics module said a chain's rate is below α
    without "on average"."""
    import specviz.serving.metrics as metrics
    from specviz.engine.trace import Step

    drafted = " ".join(Step.n_drafted.__doc__.split())
    assert "below α on average for trees too" not in drafted and "no estimate of α" in drafted
    assert "on average" in " ".join(metrics.__doc__.split()).split("acceptance by position")[0]


def test_the_target_kind_is_decided_in_one_place():
    """The step names the token after the accepted drafts once (`StepResult.next_kind`); the recorder and the
    emitted tokens read that name instead of deciding again."""
    found = [(path.name, line) for path in sorted(ENGINE.rglob("*.py")) if path.name != "kinds.py"
             for line in path.read_text(encoding="utf-8").splitlines() if re.search(r"TokenKind\.TARGET\b", line)]
    assert found == [("decoding.py", "        return self.verdict.next_kind if self.drafts else TokenKind.TARGET")]


def test_emitted_tokens_carry_the_tokenizers_text_and_the_recorder_never_rewrites_them(toy):
    prompt = toy.tokenizer(PROMPT)["input_ids"]
    outcomes = []
    run = dict(k=K, max_new_tokens=12, temperature=1.0, seed=SEED, tokenizer=toy.tokenizer, eos_token_id=[])
    trace = speculative_generate(toy.target, make_proposer(toy, "draft"), prompt, on_step=outcomes.append, **run)
    emitted = [t for step in trace.steps for t in step.emitted]
    assert len(emitted) == 12 and {t.kind for t in emitted} >= {TokenKind.ACCEPTED}
    assert [t.text for t in emitted] == [toy.tokenizer.decode([t.token_id], skip_special_tokens=False)
                                         for t in emitted]
    assert [o.emitted for o in outcomes] == [step.emitted for step in trace.steps]  # what the observer was shown
    # observing an outcome again, without recording texts, leaves its tokens as the step made them
    made = [replace(t) for t in outcomes[0].emitted]
    TraceRecorder(toy.tokenizer, record=False).observe(outcomes[0])
    assert outcomes[0].emitted == made and all(t.text for t in made)
    quiet = speculative_generate(toy.target, make_proposer(toy, "draft"), prompt, record=False, **run)
    assert [t.token_id for s in quiet.steps for t in s.emitted] == [t.token_id for t in emitted]
    assert {t.text for s in quiet.steps for t in s.emitted} == {""}


def test_a_tree_verification_declares_how_its_children_are_drafted():
    assert not TreeVerification().top_children and TreeVerification(top_children=True).top_children
    with pytest.raises(ValueError, match="^tree_top_children must be True or False"):
        TreeVerification(top_children="yes")
    assert not {"verifier", "top_children"} & set(DraftShape(4, 8, 2).tree_settings())  # traces stay as they were


def test_the_draft_sizes_live_in_one_draft_shape(toy):
    """Issue 45: the sizes lived in two types (DraftShape and the engine's TreeShape), each with its range checks.
    `speculative_generate` takes a `shape` or its four fields as keywords, never both saying different things, and
    `decode` refuses a shape whose K is not the settings' K; a trace records the shape as before."""
    prompt = toy.tokenizer(PROMPT)["input_ids"]
    run = dict(max_new_tokens=8, temperature=1.0, seed=SEED)
    shape = DraftShape(K, 8, 3, 2)
    by_shape = speculative_generate(toy.target, make_proposer(toy, "draft"), prompt, shape=shape, **run)
    by_keywords = speculative_generate(toy.target, make_proposer(toy, "draft"), prompt, k=K, tree_nodes=8,
                                       tree_width=3, tree_lookup=2, **run)
    assert by_shape.output_ids == by_keywords.output_ids and by_shape.settings == by_keywords.settings
    assert {k: by_shape.settings[k] for k in shape.settings()} == shape.settings()
    same = speculative_generate(toy.target, make_proposer(toy, "draft"), prompt, shape=shape, k=K, tree_nodes=8, **run)
    assert same.output_ids == by_shape.output_ids  # a keyword that agrees with the shape is fine
    with pytest.raises(ValueError, match=r"^Give the draft's sizes once: shape=DraftShape\(.*\) and k=2, "
                                         r"tree_width=4 disagree\.$"):
        speculative_generate(toy.target, make_proposer(toy, "draft"), prompt, shape=shape, k=2, tree_width=4, **run)
    # Read 44: the sentence ended "give K once, in both from the same value", which asked for K once and twice
    with pytest.raises(ValueError, match=r"^The shape drafts K=3 but the settings say K=2: give both the same K\.$"):
        decode(toy.target, make_proposer(toy, "draft"), prompt, GenerationSettings(8, 1.0, 0, 1.0, SEED, 2),
               shape=shape)
    chain = speculative_generate(toy.target, make_proposer(toy, "draft"), prompt, k=K, **run)
    assert not {"tree_nodes", "tree_width", "tree_lookup"} & set(chain.settings)  # chain traces stay as they were


@pytest.mark.parametrize("name, cached", [("draft", True), ("layerskip", True), ("eagle", False), ("medusa", False),
                                          ("ngram", False)])
def test_prefill_warms_each_proposer_as_its_docstring_says(toy, name, cached):
    """Read 46: `SpeculativeDecoder.prefill` said only a separate draft model filled its cache at the prompt; the
    layer-skip draft is a draft model too and fills its own alike (the prompt but its last token, as the target's),
    while EAGLE fills its one-layer cache as it proposes and Medusa and n-gram lookup keep no cache."""
    from specviz.engine.decoding import SpeculativeDecoder

    prompt = toy.tokenizer(PROMPT)["input_ids"]
    proposer = make_proposer(toy, name)
    decoder = SpeculativeDecoder(toy.target, proposer, GenerationSettings(LIMIT, 0.0, 0, 1.0, SEED, K), {EOS})
    decoder.prefill(prompt)
    assert len(decoder.target) == len(prompt) - 1
    assert (proposer.cache_length() or 0) == (len(prompt) - 1 if cached else 0)
    assert "separate or layer-skip" in " ".join(SpeculativeDecoder.prefill.__doc__.split())
