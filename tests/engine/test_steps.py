"""The step strategies stand alone (issue 45, item 3): `ChainStep` and `TreeStep` work from a `StepContext` built by
hand, with no decoder around them, and hand back a `StepResult`; one round of each replays the first step of a
`speculative_generate` run with the same seed, draw for draw."""

from __future__ import annotations

import torch

from specviz.engine.decoding import ChainStep, StepContext, StepResult, TreeShape, TreeStep, speculative_generate
from specviz.engine.generation import GenerationSettings
from specviz.engine.kvcache import runner_for
from specviz.engine.proposers import make_proposer
from specviz.engine.tree import DraftTree
from specviz.engine.tree_verifier import TreeVerifyResult

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
    result, tree = one_round(TreeStep(standalone(toy, prompt), TreeShape(8, 3)), prompt)
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
