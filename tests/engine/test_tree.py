"""Draft trees in the engine: the tree's mask and positions, its growth, the tree rule on hand-computed numbers,
KV-cache compaction, greedy equality with target-only decoding, the tree record in traces, and the bad settings."""

from __future__ import annotations

import copy
import inspect
import json
import math
from pathlib import Path

import pytest
import torch

from specviz.engine.baseline import autoregressive_generate
from specviz.engine.decoding import speculative_generate
from specviz.engine.kinds import NodeStatus
from specviz.engine.kvcache import CachedModel
from specviz.engine.proposers import PROPOSERS, make_proposer
from specviz.engine.trace import Trace
from specviz.engine.tree import ROOT, DraftTree, chain_tree, grow_tree, tree_attention_mask, tree_positions
from specviz.engine.tree_verifier import greedy_tree_path, verify_tree
from specviz.engine.verifier import verify
from specviz.models.pairs import toy_pair

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "traces"

# The hand-drawn tree:           root
#                              /   |   \
#                            n0   n1   n2        depth 1
#                           /  \        |
#                         n3   n4      n5        depth 2
#                          |
#                         n6                     depth 3
HAND = DraftTree([10, 11, 12, 13, 14, 15, 16], [ROOT, ROOT, ROOT, 0, 0, 2, 3], torch.zeros(7, 40))


def test_hand_drawn_tree_positions_and_mask():
    assert HAND.depths == [1, 1, 1, 2, 2, 2, 3]
    assert tree_positions(HAND, root_position=4).tolist() == [4, 5, 5, 5, 6, 6, 6, 7]
    mask = tree_attention_mask(HAND, past=2).int().tolist()
    #        past  root n0 n1 n2 n3 n4 n5 n6
    assert mask == [
        [1, 1, 1, 0, 0, 0, 0, 0, 0, 0],  # root
        [1, 1, 1, 1, 0, 0, 0, 0, 0, 0],  # n0
        [1, 1, 1, 0, 1, 0, 0, 0, 0, 0],  # n1
        [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],  # n2
        [1, 1, 1, 1, 0, 0, 1, 0, 0, 0],  # n3: n0, itself
        [1, 1, 1, 1, 0, 0, 0, 1, 0, 0],  # n4: n0, itself (not its sibling n3)
        [1, 1, 1, 0, 0, 1, 0, 0, 1, 0],  # n5: n2, itself
        [1, 1, 1, 1, 0, 0, 1, 0, 0, 1],  # n6: n0, n3, itself
    ]
    assert HAND.path_to(6) == [0, 3, 6] and HAND.children(0) == [3, 4]


def test_a_tree_lists_parents_first():
    with pytest.raises(ValueError, match="every parent before its children"):
        DraftTree([1, 2], [1, ROOT], torch.zeros(2, 4))


def test_grow_tree_keeps_the_budget_the_depth_and_the_width():
    calls = []

    def expand(tree, nodes):  # every node: the same confident q over 6 tokens
        calls.append(list(nodes))
        return torch.log(torch.tensor([[0.4, 0.3, 0.1, 0.1, 0.05, 0.05]] * len(nodes)))

    probs = lambda row: row.softmax(-1)  # noqa: E731
    tree = grow_tree(expand, max_nodes=16, max_depth=4, width=4, probs=probs, sampled=True,
                     generator=torch.Generator().manual_seed(0))
    assert len(tree) == 16 and tree.depth == 4
    assert [tree.depths.count(d) for d in (1, 2, 3, 4)] == [4, 4, 4, 4]  # the budget shared over the levels
    assert len(calls) == 4  # one drafter pass per level
    for node in [ROOT, *range(len(tree))]:
        kids = [tree.tokens[c] for c in tree.children(node)]
        assert len(kids) <= 4 and len(set(kids)) == len(kids)  # drawn without replacement
    top = grow_tree(expand, max_nodes=12, max_depth=3, width=2, probs=probs, sampled=False, generator=None)
    assert [top.tokens[c] for c in top.children(ROOT)] == [0, 1]  # deterministic: the two most likely
    assert top.scores[0] == pytest.approx(torch.log(torch.tensor(0.4)).item(), abs=1e-6)


def test_the_tree_rule_on_hand_computed_numbers():
    """Root children 0 then 1 drawn from q = (0.5, 0.5, 0); p = (0.1, 0.6, 0.3). Child 0 is kept with 0.1 / 0.5 = 0.2;
    rejected, p' = (0, 0.25, 0.75) and q' = δ_1, so child 1 is kept with 0.25; rejected too, p' = (0, 0, 1)."""
    p = torch.tensor([[0.1, 0.6, 0.3], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    q = torch.tensor([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    tree = DraftTree([0, 1], [ROOT, ROOT], q)
    both = verify_tree(p, tree, uniforms=[0.9, 0.9], generator=torch.Generator().manual_seed(0))
    assert both.path == [] and both.accept_probs == pytest.approx([0.2, 0.25])
    assert both.next_kind == "recovered" and both.next_dist.tolist() == [0.0, 0.0, 1.0] and both.next_token == 2
    first = verify_tree(p, tree, uniforms=[0.1])
    assert first.path == [0] and first.tested == [0] and first.next_kind == "bonus"
    assert first.status(0) == "accepted" and first.status(1) == "not reached"
    # read 20: NodeStatus said a node is never tested only "below a rejection"; child 1 is a sibling after an accept
    assert "sibling after the accepted one" in " ".join(NodeStatus.__doc__.split())


def test_a_chain_is_a_tree_of_width_one():
    generator = torch.Generator().manual_seed(3)
    for _ in range(20):
        p = torch.rand(4, 7, generator=generator).softmax(-1)
        q = torch.rand(3, 7, generator=generator).softmax(-1)
        drafts = [int(torch.multinomial(q[i], 1, generator=generator)) for i in range(3)]
        u = torch.rand(3, generator=generator).tolist()
        chain = verify(p, q, drafts, uniforms=u, generator=torch.Generator().manual_seed(1))
        tree = verify_tree(p, chain_tree(drafts, q), uniforms=u, generator=torch.Generator().manual_seed(1))
        assert tree.n_accepted == chain.n_accepted and tree.next_token == chain.next_token
        assert torch.allclose(tree.next_dist, chain.next_dist)


def test_greedy_tree_rule_takes_the_longest_path_the_target_agrees_with():
    p = torch.nn.functional.one_hot(torch.tensor([12, 0, 0, 15, 0, 0, 0, 0]), 40).float()  # argmax per row
    p[6] = torch.nn.functional.one_hot(torch.tensor(9), 40).float()  # after n5 the target writes 9
    point_masses = DraftTree(HAND.tokens, HAND.parents, HAND.draft_probs, sampled=False)
    result = verify_tree(p, point_masses, generator=torch.Generator().manual_seed(0))
    assert result.path == [2, 5] and result.next_token == 9 and result.next_kind == "bonus"
    assert greedy_tree_path(p, point_masses) == ([2, 5], 9)


def fresh_logits(model, ids: list[int]) -> torch.Tensor:
    with torch.inference_mode():
        return model(torch.tensor([ids])).logits[0, -1]


@pytest.mark.parametrize("model, attention", [("target", None), ("draft", None), ("target", "eager")])
def test_one_tree_forward_then_compaction_equals_fresh_forwards(toy, model, attention):
    """Also with eager attention, not only the SDPA the models load with: the additive tree mask (0 or
    finfo(dtype).min) is read the same way by both (read 36: the docstring had said "every attention
    implementation")."""
    net = getattr(toy, model)
    if attention is not None:
        net = copy.deepcopy(net)
        net.set_attn_implementation(attention)
        assert net.config._attn_implementation == attention
        assert "every attention implementation" not in " ".join(CachedModel._run.__doc__.split())
    sequence = [5, 6, 7, 8, 9]
    runner = CachedModel(net)
    runner.prefill(sequence)
    logits = runner.feed_tree(sequence, HAND)  # (8, V): the root, then every node
    assert torch.allclose(logits[0], fresh_logits(net, sequence), atol=1e-5)
    for j in range(len(HAND)):
        path = [HAND.tokens[n] for n in HAND.path_to(j)]
        assert torch.allclose(logits[j + 1], fresh_logits(net, sequence + path), atol=1e-5), j
    runner.keep_path([0, 3])  # accepted: n0, n3
    accepted = sequence + [10, 13]
    assert runner.tokens == accepted and runner.cache.get_seq_length() == len(accepted)
    after = runner.feed(accepted + [21, 22], keep=2)  # the next step reads on from the compacted cache
    assert torch.allclose(after[-1], fresh_logits(net, accepted + [21, 22]), atol=1e-5)


def test_a_draft_model_grows_its_tree_level_by_level_and_keeps_only_the_path(toy):
    proposer = make_proposer(toy, "draft")
    sequence = toy.tokenizer("hello there")["input_ids"]
    proposer.reset()
    proposer.prefill(sequence)
    tree = proposer.propose_tree(sequence, max_nodes=9, max_depth=3, width=3, sampling=toy_sampling(),
                                 generator=torch.Generator().manual_seed(0), sampled=True)
    for j in range(len(tree)):  # each node's q is the draft's distribution after its own ancestors
        context = sequence + [tree.tokens[n] for n in tree.path_to(tree.parents[j])] if tree.parents[j] != ROOT \
            else sequence
        assert torch.allclose(tree.draft_probs[j], fresh_logits(toy.draft, context).softmax(-1), atol=1e-5)
    path = tree.path_to(next(j for j, d in enumerate(tree.depths) if d == 3))
    proposer.keep_tree_path(len(sequence) + len(path), path)
    kept = sequence + [tree.tokens[n] for n in path[:-1]]  # the leaf was drafted, never fed
    assert proposer.runner.tokens == kept and proposer.runner.cache.get_seq_length() == len(kept)


def test_a_greedy_tree_goes_deep_where_the_drafter_is_sure_and_wide_where_it_is_not():
    """EAGLE-2's reranking: the same 8-node budget makes a deep spine under a confident drafter and a bushy tree
    under an unsure one, and always keeps the most probable candidates (an ancestor-closed set)."""
    def drafter(row):
        calls = []

        def expand(tree, nodes):
            calls.append(len(nodes))
            return torch.log(torch.tensor([row] * len(nodes)))
        return expand, calls

    probs = lambda row: row.softmax(-1)  # noqa: E731
    sure, sure_calls = drafter([0.97, 0.01, 0.01, 0.01])
    deep = grow_tree(sure, max_nodes=8, max_depth=6, width=3, probs=probs, sampled=False, generator=None)
    unsure, unsure_calls = drafter([0.3, 0.3, 0.2, 0.2])
    bushy = grow_tree(unsure, max_nodes=8, max_depth=6, width=3, probs=probs, sampled=False, generator=None)
    assert len(deep) == len(bushy) == 8
    assert deep.depth == 6 and bushy.depth <= 3  # the spine of 0.97s reaches the last level
    assert unsure_calls == [1, 3, 3]  # every level-3 candidate scores below the 8th best: no fourth pass
    # one drafter pass per level, at most `width` nodes; from level 3 on only the spine can still have a kept child
    # (its 0.01 siblings already score below the 8th candidate), so only it is expanded
    assert sure_calls == [1, 3, 1, 1, 1, 1]
    for tree in (deep, bushy):
        assert all(p == ROOT or p < j for j, p in enumerate(tree.parents))  # every kept node's parent is kept
        assert all(tree.scores[j] <= tree.scores[p] + 1e-9 for j, p in enumerate(tree.parents) if p != ROOT)
        assert tree.candidate_ids == sorted(tree.candidate_ids) and len(set(tree.candidate_ids)) == 8
    # 0.97 per level: three first guesses (0.97, 0.01, 0.01: -4.6 beats 0.97 x 0.01) and a spine of five more 0.97s
    assert [deep.depths.count(d) for d in range(1, 7)] == [3, 1, 1, 1, 1, 1]
    # flat: three first guesses, then the four 0.3 x 0.3 and the first 0.3 x 0.2 (ties keep the earlier candidate)
    assert [bushy.depths.count(d) for d in (1, 2)] == [3, 5]


def test_a_draft_model_renumbers_its_cache_after_reranking(toy):
    """A greedy tree keeps a subset of the candidates the draft model fed: its cache must still keep exactly the
    sequence and the accepted path (the nodes' new numbers point at their old slots)."""
    proposer = make_proposer(toy, "draft")
    sequence = toy.tokenizer("hello there")["input_ids"]
    proposer.reset()
    proposer.prefill(sequence)
    tree = proposer.propose_tree(sequence, max_nodes=7, max_depth=4, width=3, sampling=toy_sampling(),
                                 generator=None, sampled=False)
    assert tree.candidate_ids == [0, 1, 2, 3, 4, 6, 9]  # candidates 5, 7, 8 and all of level 3 were dropped
    for j in range(len(tree)):  # each node's q is the draft's distribution after its own ancestors
        context = sequence + [tree.tokens[n] for n in tree.path_to(tree.parents[j])] if tree.parents[j] != ROOT \
            else sequence
        assert torch.allclose(tree.draft_probs[j], fresh_logits(toy.draft, context).softmax(-1), atol=1e-5)
    path = tree.path_to(6)  # the last kept node: candidate 9, which the drafter read at level 3
    accepted = sequence + [tree.tokens[n] for n in path]
    proposer.keep_tree_path(len(accepted), path)
    assert proposer.runner.tokens == accepted and proposer.runner.cache.get_seq_length() == len(accepted)
    after = proposer.runner.feed(accepted + [5])  # reads on from the compacted cache
    assert torch.allclose(after[-1], fresh_logits(toy.draft, accepted + [5]), atol=1e-5)


def toy_sampling():
    from specviz.engine.sampling import SamplingConfig
    return SamplingConfig(temperature=1.0)


@pytest.mark.parametrize("name", PROPOSERS)
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_greedy_tree_decoding_equals_target_only(toy, name):
    for text in ["hello there", "abcabcabcab"]:
        ids = toy.tokenizer(text)["input_ids"]
        tree = speculative_generate(toy.target, make_proposer(toy, name, layers=1), ids, k=3, max_new_tokens=24,
                                    tree_nodes=10, tree_width=3)
        plain = autoregressive_generate(toy.target, ids, max_new_tokens=24)
        assert tree.output_ids == plain.output_ids
        if name != "ngram":  # a proposer that cannot branch drafts a chain
            assert all(step.tree is not None for step in tree.steps)
            assert tree.settings["tree_nodes"] == 10 and tree.settings["tree_width"] == 3
        else:  # and its trace says so: it once recorded the tree it never drafted, which pages then described
            assert all(step.tree is None for step in tree.steps) and "tree_nodes" not in tree.settings


@pytest.mark.parametrize("seed", [1, 2])
def test_greedy_tree_decoding_equals_target_only_on_other_tiny_pairs(seed):
    pair = toy_pair(seed)
    ids = pair.tokenizer("the sky is blue because")["input_ids"]
    for name in ("draft", "eagle"):
        tree = speculative_generate(pair.target, make_proposer(pair, name), ids, k=4, max_new_tokens=20,
                                    tree_nodes=16, tree_width=4)
        assert tree.output_ids == autoregressive_generate(pair.target, ids, max_new_tokens=20).output_ids


def test_chain_setting_is_untouched_by_the_tree_code(toy):
    ids = toy.tokenizer("hello there")["input_ids"]
    run = dict(k=3, max_new_tokens=30, temperature=1.0, seed=5, eos_token_id=[])
    old = speculative_generate(toy.target, toy.draft, ids, **run)
    new = speculative_generate(toy.target, toy.draft, ids, tree_nodes=0, tree_width=4, **run)
    assert new.output_ids == old.output_ids and new.settings == old.settings
    assert [[(d.token_id, d.uniform) for d in s.decisions] for s in new.steps] == \
        [[(d.token_id, d.uniform) for d in s.decisions] for s in old.steps]
    assert "tree" not in json.dumps(new.to_dict()["steps"])


@pytest.mark.parametrize("name", ["draft", "eagle"])
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_sampled_tree_trace_records_what_the_rule_saw(toy, name):
    ids = toy.tokenizer("hello there")["input_ids"]
    trace = speculative_generate(toy.target, make_proposer(toy, name), ids, k=3, max_new_tokens=40, temperature=1.0,
                                 seed=1, eos_token_id=[], tree_nodes=10, tree_width=3, tokenizer=toy.tokenizer)
    assert trace.settings["tree_nodes"] == 10 and trace.num_tokens == 40
    sequence = list(ids) + trace.output_ids
    for step, following in zip(trace.steps, trace.steps[1:]):
        assert step.target_cache_after == following.target_cache_before == following.context_length - 1
    for step in trace.steps:
        nodes, path = step.tree.nodes, step.tree.path
        context = sequence[: step.context_length]
        emitted = [t.token_id for t in step.emitted]
        assert emitted[: len(path)] == [nodes[n].token_id for n in path]  # the path, then recovered or bonus
        assert step.target_cache_after == step.context_length + len(path)  # the compacted cache: context + path
        assert step.draft_cache_after <= step.target_cache_after  # no drafted node left in the draft's cache
        for j, node in enumerate(nodes):  # p at its parent equals a fresh forward over context + ancestors
            above = [nodes[n].token_id for n in DraftTreeView(nodes).path_to(node.parent)]
            p = fresh_logits(toy.target, context + above).softmax(-1)[node.token_id]
            assert node.target_prob == pytest.approx(float(p), rel=1e-4, abs=1e-7)
            assert (node.uniform is None) == (node.status == "not reached")
            if node.status != "not reached":
                assert (node.status == "accepted") == (node.uniform < node.accept_prob)
    back = Trace.from_json(trace.to_json())
    assert back.to_dict() == trace.to_dict()


def test_a_tree_counts_every_node_as_drafted_so_accepted_per_drafted_stays_below_alpha(toy):
    """Issue 43 item 3: accepted / drafted counted a tree's main line (path + first rejected child) and read above
    α. Every node the tree proposed is drafted, tested or not."""
    ids = toy.tokenizer("hello there")["input_ids"]
    trace = speculative_generate(toy.target, make_proposer(toy, "draft"), ids, k=3, max_new_tokens=40,
                                 temperature=1.0, seed=1, eos_token_id=[], tree_nodes=10, tree_width=3,
                                 tokenizer=toy.tokenizer)
    tree_steps = [s for s in trace.steps if s.tree is not None]
    assert tree_steps and all(s.n_drafted == len(s.tree.nodes) for s in tree_steps)
    assert trace.num_drafted == sum(len(s.tree.nodes) for s in tree_steps)
    assert any(len(s.tree.nodes) > len(s.decisions) for s in tree_steps)  # some nodes were never tested
    assert trace.acceptance_rate < trace.mean_accept_prob  # the glossary's "lower than α" holds for trees too
    assert trace.acceptance_rate == pytest.approx(trace.num_accepted / trace.num_drafted)


class DraftTreeView:
    """The parent links of recorded nodes, to walk a path."""

    def __init__(self, nodes):
        self.parents = [n.parent for n in nodes]

    def path_to(self, node):
        path = []
        while node != ROOT:
            path.append(node)
            node = self.parents[node]
        return path[::-1]


def test_old_traces_load_unchanged():
    data = json.loads((ASSETS / "toy-draft.json").read_text())
    trace = Trace.from_dict(data)
    assert all(step.tree is None for step in trace.steps)
    assert [s for s in trace.to_dict()["steps"]] == [{k: v for k, v in s.items()} for s in data["steps"]]


def test_the_schema_refuses_a_damaged_tree(toy):
    ids = toy.tokenizer("hello there")["input_ids"]
    good = speculative_generate(toy.target, toy.draft, ids, k=2, max_new_tokens=6, temperature=1.0, seed=0,
                                eos_token_id=[], tree_nodes=4, tree_width=2).to_dict()
    Trace.from_dict(good)

    def damaged(change):
        data = json.loads(json.dumps(good))
        change(data["steps"][0]["tree"])
        return data

    cases = {
        "parent must come before": lambda t: t["nodes"][0].update(parent=2),
        "one level below": lambda t: t["nodes"][0].update(depth=3),
        "exactly the path": lambda t: t["nodes"][-1].update(status="accepted"),
        "at most 80 nodes": lambda t: t["nodes"].extend([t["nodes"][0]] * 80),  # 64 drafted + a 16-token lookup
        "status must be": lambda t: t["nodes"][0].update(status="maybe"),
        "copied must be true or false": lambda t: t["nodes"][0].update(copied="yes"),
    }
    assert len(cases) == 6  # no case lost to a repeated key
    for sentence, change in cases.items():
        with pytest.raises(ValueError, match=sentence):
            Trace.from_dict(damaged(change))


@pytest.mark.parametrize("bad, sentence", [
    (dict(tree_nodes=-1), "tree_nodes must be a whole number from 0"),
    (dict(tree_nodes=65), "tree_nodes must be a whole number from 0"),
    (dict(tree_nodes=8, tree_width=0), "tree_width must be a whole number from 1 to 8"),
    (dict(tree_nodes=2.5), "tree_nodes must be"),
])
def test_bad_tree_settings_are_one_sentence(toy, bad, sentence):
    with pytest.raises(ValueError, match=sentence):
        speculative_generate(toy.target, toy.draft, [3, 4], k=2, max_new_tokens=4, **bad)


@pytest.mark.parametrize("name", ["draft", "eagle"])
def test_a_tree_of_width_one_drafts_what_the_chain_drafts(toy, name):
    """Same seed, same tokens and the same q: the tree-masked level-by-level forwards read what the chain reads
    (for EAGLE: each node's input is its parent's predicted feature, at the right position)."""
    from specviz.engine.sampling import SamplingConfig

    sampling, sequence = SamplingConfig(temperature=1.0), toy.tokenizer("hello there")["input_ids"]
    runs = []
    for as_tree in (False, True):
        proposer = make_proposer(toy, name)
        trace = speculative_generate(toy.target, proposer, sequence, k=1, max_new_tokens=3, seed=0)  # warm state
        context = list(sequence) + trace.output_ids
        generator = torch.Generator().manual_seed(4)
        if as_tree:
            tree = proposer.propose_tree(context, max_nodes=4, max_depth=4, width=1, sampling=sampling,
                                         generator=generator, sampled=True)
            assert tree.parents == [ROOT, 0, 1, 2]
            runs.append((tree.tokens, tree.draft_probs))
        else:
            proposal = proposer.propose(context, 4, sampling, generator)
            runs.append((proposal.tokens, proposal.draft_probs))
    (chain_tokens, chain_q), (tree_tokens, tree_q) = runs
    assert tree_tokens == chain_tokens
    assert torch.allclose(tree_q, chain_q, atol=1e-5)


def test_run_spec_and_cli_carry_the_tree_settings(toy):
    from specviz.cli import build_parser
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    spec = RunSpec(pair="toy", prompt="hello there", chat=False, k=3, max_new_tokens=10, tree_nodes=12, tree_width=3)
    assert RunSpec.from_query(spec.to_query()) == spec
    assert "tree_nodes" not in RunSpec().to_query()  # chain links stay as they were
    with pytest.raises(ValueError, match=r"^tree_nodes must be a whole number from 0 to 64 \(got 99\)\.$"):
        RunSpec(tree_nodes=99)
    trace = run(spec, pair=toy)
    assert trace.settings["tree_nodes"] == 12 and all(step.tree is not None for step in trace.steps)
    args = build_parser().parse_args(["generate", "--prompt", "x", "--tree-nodes", "16", "--tree-width", "2"])
    assert (args.tree_nodes, args.tree_width) == (16, 2)


def test_the_cache_module_claims_a_compacted_tree_cache_equal_only_in_exact_arithmetic():
    """Issue 43, 18th read: kvcache's docstring said the compacted cache "equals" a plain forward's;
    test_one_tree_forward_then_compaction_equals_fresh_forwards finds it equal within 1e-5 (float32 rounds a wide
    tree forward differently), so the docstring says "in exact arithmetic" and points to specviz.engine.numerics."""
    assert "atol=1e-5" in inspect.getsource(test_one_tree_forward_then_compaction_equals_fresh_forwards)
    import specviz.engine.kvcache as kvcache

    text = " ".join(kvcache.__doc__.split())
    assert "would have built, in exact arithmetic" in text and "specviz.engine.numerics" in text
    assert "the cache equals the one a plain forward" not in text


def test_candidate_ids_are_empty_only_for_a_sampled_tree():
    """DraftTree's comment said candidate_ids is "empty when no candidate was dropped"; a reranked (greedy) tree
    lists its kept candidates even when it dropped none, and only a sampled tree leaves it empty."""
    import inspect

    from specviz.engine import tree as tree_module

    rows = lambda tree, nodes: torch.tensor([[2.0, 1.0, 0.0]] * len(nodes))  # noqa: E731
    kept_all = tree_module.rerank_tree(rows, max_nodes=8, max_depth=1, width=2, probs=lambda row: row.softmax(-1))
    assert len(kept_all) == 2 and kept_all.candidate_ids == [0, 1]  # nothing dropped, still listed
    sampled = grow_tree(rows, max_nodes=4, max_depth=2, width=2, probs=lambda row: row.softmax(-1), sampled=True,
                        generator=torch.Generator().manual_seed(0))
    assert len(sampled) > 0 and sampled.candidate_ids == []
    assert "empty when no candidate was dropped" not in inspect.getsource(tree_module)


def test_a_tree_main_line_decision_keeps_min_1_p_prime_over_q_prime_not_min_1_ratio(toy):
    """Read 26: `Decision` said its `accept_prob` is min(1, p/q). On a sampled tree's main line a child tried after
    a rejected sibling is kept with min(1, p′/q′) (the residual p′, q′ without the sibling), while `ratio` stays
    p/q at the parent: the two part. Seed 3 of this toy run tries such a child twice."""
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    spec = RunSpec(pair="toy", proposer="draft", prompt="the quick brown fox", k=3, tree_nodes=8, tree_width=3,
                   temperature=1.0, seed=3, max_new_tokens=24, chat=False)
    trace = run(spec, pair=toy)
    reached = [d for s in trace.steps for d in s.decisions if d.reached]
    parted = [d for d in reached if abs(d.accept_prob - min(1.0, d.ratio)) > 1e-6]
    assert reached and parted
    doc = " ".join(type(reached[0]).__doc__.split())
    assert "`accept_prob` is min(1, p/q)." not in doc and "min(1, p′/q′)" in doc


def test_the_trace_vocabulary_says_where_a_tree_recovers_from():
    """A tree's recovered token comes from the residual every rejected child of the last accepted node left
    (`test_the_tree_rule_on_hand_computed_numbers`: (0, 0, 1) after both root children, where the first rejection's
    norm(max(0, p - q)) is (0, ¼, ¾)). trace.py's vocabulary and `Step.correction_top` once gave only the chain's
    "norm(max(0, p - q)) at the first rejection", while naming the tree's case for bonus tokens."""
    from specviz.engine import trace
    from specviz.engine.trace import Step

    vocabulary, step = (" ".join(doc.split()) for doc in (trace.__doc__, Step.__doc__))
    assert ("at the first rejection; in a tree, once every child of the last accepted node was rejected, from the "
            "residual those rejections left") in vocabulary
    assert "(in a tree, the residual every rejected child of the last accepted node left)" in step


def test_the_tree_rule_says_which_nodes_it_tests_against_a_point_mass():
    """Read 44: the trace could not tell which nodes the rule compared with a point mass (so the CLI printed a
    greedy tree's second child as "q=0.000 p/q=inf"). `TreeVerifyResult.point_masses` says it per node: a copied node
    always, a drafted child when the tree was not drawn from q; the record carries it as `TreeNode.point_mass`."""
    from specviz.engine.tree import graft_copy
    from specviz.engine.tree_verifier import verify_tree

    p = torch.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    q = torch.tensor([[0.5, 0.5, 0.0]])
    for sampled, expected in ((True, [False, True]), (False, [True, True])):
        tree = graft_copy(DraftTree([0], [ROOT], q, sampled=sampled), [2], vocab_size=3)
        result = verify_tree(p, tree, uniforms=[0.99, 0.0])
        assert result.point_masses == expected


def test_one_helper_says_which_nodes_the_rule_tests_against_a_point_mass():
    """Read 48: `point_mass or copied` was spelled in five places (the CLI, the hovers, the tables, the figures), so a
    third kind of point mass would have had to be added to each. `rule_point_mass` is the one test; the others ask it,
    and it keeps what each copy said: a copied node or a top-k child yes, a drafted node or no node no."""
    from specviz.engine.trace import TreeNode, rule_point_mass

    node = TreeNode(token_id=1, text="a", parent=ROOT, depth=1, draft_prob=0.25, target_prob=0.5, status="accepted")
    kinds = {"drafted": node, "copied": TreeNode(**{**node.__dict__, "copied": True}),
             "top-k child": TreeNode(**{**node.__dict__, "point_mass": True})}
    assert {name: rule_point_mass(n) for name, n in kinds.items()} == {
        "drafted": False, "copied": True, "top-k child": True}
    assert rule_point_mass(None) is False
    assert [n.rule_draft_prob for n in kinds.values()] == [0.25, 1.0, 1.0]
    root = Path(__file__).resolve().parents[2] / "specviz"
    spelled = [str(f.relative_to(root)) for f in root.rglob("*.py")
               if any(s in f.read_text(encoding="utf-8") for s in ("point_mass or ", "copied or node", ".copied or "))]
    assert spelled == ["engine/trace.py"]


@pytest.mark.parametrize("vocab, tied", [(10, (3, 7)), (32000, (0, 9)), (32000, (5, 100))])
def test_a_greedy_tree_tries_first_the_token_its_q_is_a_point_mass_on(vocab, tied):
    """Read 55: in the EAGLE tree preset's step 1 (bfloat16, T = 0) the first root child tried, "In", had q = 0 and
    the point mass sat on "The", tried second: torch.topk ordered two tied logits one way, the greedy q
    (`first_max_index`) the other. Children now come largest first, equal logits in token order, so the first child
    is the point mass (q = 1), and the greedy rule still keeps the target's argmax wherever it is."""
    from specviz.engine.sampling import SamplingConfig, first_max_index, top_tokens
    from specviz.engine.tree import rerank_tree

    row = torch.linspace(-3.0, -1.0, vocab)
    row[list(tied)] = 4.0  # two equal largest logits, as bfloat16 rounding makes them
    greedy = SamplingConfig(temperature=0.0)
    tree = rerank_tree(lambda tree, nodes: row.expand(len(nodes), -1), max_nodes=3, max_depth=1, width=3,
                       probs=greedy.probs)
    first = int(first_max_index(row))
    assert tree.tokens[0] == first == min(tied) and tree.tokens[1] == max(tied)
    assert tree.draft_probs[0, tree.tokens[0]] == 1.0 and tree.draft_probs[1, tree.tokens[1]] == 0.0
    assert top_tokens(row[None], 3)[1].tolist() == [[min(tied), max(tied), vocab - 1]]
    for argmax, path in ((first, [0]), (max(tied), [1])):  # the target's argmax decides the output, as before
        p = torch.nn.functional.one_hot(torch.tensor([argmax, 0, 0, 0]), vocab).float()
        result = verify_tree(p, tree, generator=torch.Generator().manual_seed(0))
        assert result.path == path and result.point_masses[0] is True
