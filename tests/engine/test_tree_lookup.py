"""A draft tree with a lookup branch: a continuation copied from the context (prompt lookup) grafted on the drafter's
tree, as RASD (Quan et al. 2025) does. Copied nodes are deterministic, so the tree rule treats them as point masses at
every temperature; these tests check the graft, that greedy output stays the target's own, that sampled output still
follows the target (chi-square, fixed seeds), and that traces say which nodes were copied.

Power: the engine-like chi-square on the tiny pairs did not tell the exact rule from the tempting mistake (a copied
node judged against its drafted siblings' q', as if drawn from q; read 33 ran it: p > 1e-3 on all three seeds), since
the copy is seldom tried there. `test_the_test_has_power_a_copy_judged_against_q_fails` uses a hand-made p and q where
the copy is tried often, and the same kind of chi-square rejects the mistake and keeps the exact rule. The real-engine
test drafts after "hello hello", where the copy is often kept, and rejects the mistake too (read 44: p = 5e-59 with
the engine so mutated; after "abcab", whose copy the target never keeps, it passed)."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest
import torch

from specviz.core.i18n import using
from specviz.engine.baseline import autoregressive_generate
from specviz.engine.decoding import TreeStep, speculative_generate
from specviz.engine.draft_shape import DraftShape
from specviz.engine.proposers import make_proposer
from specviz.engine.trace import Trace
from specviz.engine.tree import ROOT, DraftTree, graft_copy, grow_tree
from specviz.engine.tree_verifier import verify_tree
from specviz.labs.exactness import chi_square_test
from specviz.models.pairs import toy_pair
from specviz.runs.runspec import RunSpec
from tests.engine.test_tree_exactness import (PROMPT, chi_square_p_value, draft_probs, exact_two_tokens, logits,
                                              pair, target_probs)

REPEATING = "abcabcabcabcab"  # prompt lookup finds a continuation at every step


# ---- the graft ------------------------------------------------------------------------------------------------------

def test_graft_shares_drafted_nodes_then_adds_a_copied_chain_of_point_masses():
    q = torch.full((3, 6), 1 / 6)
    tree = DraftTree([1, 2, 3], [ROOT, ROOT, 0], q, sampled=True, scores=[-1.0, -2.0, -3.0])
    grown = graft_copy(tree, [1, 3, 4, 5], vocab_size=6)
    assert grown.tokens == [1, 2, 3, 4, 5] and grown.parents == [ROOT, ROOT, 0, 2, 3]
    assert grown.copied == [False, False, False, True, True]
    assert [grown.is_copied(j) for j in range(5)] == grown.copied
    assert torch.equal(grown.draft_probs[:3], q)  # drafted rows untouched
    assert grown.draft_probs[3].tolist() == [0, 0, 0, 0, 1, 0] and grown.draft_probs[4].tolist() == [0] * 5 + [1]
    assert grown.sampled and grown.depths == [1, 1, 2, 3, 4]
    # scores: the drafted nodes' cumulative draft log-probabilities; a copied node has none (DraftTree says nan)
    assert grown.scores[:3] == [-1.0, -2.0, -3.0] and all(math.isnan(s) for s in grown.scores[3:])


def test_graft_on_an_empty_tree_and_nothing_to_add():
    empty = DraftTree([], [], torch.zeros(0, 5))
    grown = graft_copy(empty, [2, 3], vocab_size=5)
    assert grown.tokens == [2, 3] and grown.parents == [ROOT, 0] and grown.copied == [True, True]
    assert grown.draft_probs.shape == (2, 5)
    tree = DraftTree([2, 3], [ROOT, 0], torch.zeros(2, 5))
    assert graft_copy(tree, [2, 3], vocab_size=5) is tree  # wholly shared: nothing copied
    assert graft_copy(tree, [], vocab_size=5) is tree
    assert not tree.is_copied(0)


def test_the_copy_ends_at_its_first_stop_token():
    empty = DraftTree([], [], torch.zeros(0, 8))
    assert graft_copy(empty, [4, 7, 5, 6], vocab_size=8, stop_tokens=frozenset({7})).tokens == [4, 7]
    tree = DraftTree([4, 7], [ROOT, 0], torch.zeros(2, 8))  # the drafter already has 4 -> end of text
    assert graft_copy(tree, [4, 7, 5], vocab_size=8, stop_tokens=frozenset({7})) is tree


def test_a_tree_that_marks_some_nodes_must_mark_all():
    with pytest.raises(ValueError, match="marks every node"):
        DraftTree([1, 2], [ROOT, 0], torch.zeros(2, 4), copied=[True])


def test_a_copied_child_is_a_point_mass_tried_after_its_drafted_siblings():
    """Root p = (0.1, 0.2, 0.3, 0.4); drafted child 0 from q = (0.5, 0.5, 0, 0), copied child 3. u = 0.5 rejects
    child 0 (min(1, 0.1/0.5) = 0.2); the residual is norm(max(0, p - q)) = (0, 0, 3/7, 4/7), and the copied 3 is
    kept with p'(3) = 4/7 (not min(1, p'/q'), which would compare it with a q it was not drawn from)."""
    p = torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.25] * 4, [0.25] * 4])
    q = torch.tensor([[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    tree = DraftTree([0, 3], [ROOT, ROOT], q, sampled=True, copied=[False, True])
    result = verify_tree(p, tree, uniforms=[0.5, 0.5])
    assert result.tested == [0, 1] and result.path == [1]
    assert result.accept_probs == pytest.approx([0.2, 4 / 7])
    rejected = verify_tree(p, tree, uniforms=[0.5, 0.6], generator=torch.Generator().manual_seed(0))
    assert rejected.path == [] and rejected.next_dist.tolist() == pytest.approx([0, 0, 1.0, 0])


# ---- exactness ------------------------------------------------------------------------------------------------------

HAND_P, HAND_Q = torch.tensor([0.1, 0.2, 0.3, 0.4]), torch.tensor([0.5, 0.3, 0.1, 0.1])


def hand_made_first_tokens(n: int, copy_judged_against_q: bool) -> torch.Tensor:
    """Counts (V,) of the first emitted token of n steps on HAND_P, HAND_Q: one child drawn from q and a copied 3."""
    generator, counts = torch.Generator().manual_seed(0), torch.zeros(4)
    for _ in range(n):
        child = torch.multinomial(HAND_Q, 1, generator=generator).tolist()
        tree = graft_copy(DraftTree(child, [ROOT], HAND_Q[None]), [3], vocab_size=4)  # child 3: shared, no copy
        if copy_judged_against_q and len(tree) == 2:  # the mistake: the copy treated as a second draw from q
            tree = DraftTree(tree.tokens, tree.parents, torch.stack([HAND_Q, HAND_Q]), sampled=True)
        rows = torch.stack([HAND_P] + [torch.full((4,), 0.25)] * len(tree))
        verdict = verify_tree(rows, tree, generator=generator)
        counts[tree.tokens[verdict.path[0]] if verdict.path else verdict.next_token] += 1
    return counts


@pytest.mark.statistical
def test_the_test_has_power_a_copy_judged_against_q_fails():
    """p = (0.1, 0.2, 0.3, 0.4), q = (0.5, 0.3, 0.1, 0.1). A drafted 2 or 3 is always kept (p >= q); after a
    drafted 0 or 1 is rejected the residual is (0, 0, 0.4, 0.6): the exact rule keeps the copied 3 with 0.6, else
    emits 2. Judged against q' = q without the child instead, 3 is kept with min(1, 0.6 / q'(3)) = 1, so 2 comes
    out only as an accepted draft (0.1, not 0.3)."""
    exact = hand_made_first_tokens(3000, copy_judged_against_q=False)
    broken = hand_made_first_tokens(3000, copy_judged_against_q=True)
    assert (fit := chi_square_test(exact, HAND_P)).dof >= 1 and fit.p_value > 1e-3
    assert chi_square_test(broken, HAND_P).p_value < 1e-3
    assert abs(float(broken[2]) / 3000 - 0.1) < 0.03  # the mistake's own distribution, as the docstring works out


def lookup_step(seed: int, context: tuple[int, ...], generator: torch.Generator,
                copy_len: int = 3) -> tuple[list, bool]:
    """One engine-like step on memoised distributions: a sampled tree, then a copied branch (a deterministic
    function of the context: the target's first or second most likely token, by the context's parity, so the copy
    is often right and often wrong), judged by `verify_tree`. Returns the emitted tokens and whether a copied node was
    accepted."""
    def node_context(tree: DraftTree, node: int) -> tuple[int, ...]:
        return context + tuple(tree.tokens[n] for n in tree.path_to(node))

    def expand(tree: DraftTree, nodes: list[int]):
        return [logits(seed, "draft", node_context(tree, n)) for n in nodes]

    tree = grow_tree(expand, max_nodes=4, max_depth=2, width=2, probs=draft_probs, sampled=True, generator=generator)
    copy, ctx = [], context
    for _ in range(copy_len):
        p = target_probs(seed, ctx)
        token = int(p.argsort(descending=True)[(len(ctx) + sum(ctx)) % 2])
        copy.append(token)
        ctx += (token,)
    tree = graft_copy(tree, copy, vocab_size=int(logits(seed, "target", context).shape[-1]))
    rows = torch.stack([target_probs(seed, context)] + [target_probs(seed, node_context(tree, j))
                                                        for j in range(len(tree))])
    verdict = verify_tree(rows, tree, generator=generator)
    return [tree.tokens[n] for n in verdict.path] + [verdict.next_token], any(tree.is_copied(n) for n in verdict.path)


@pytest.mark.statistical
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_first_two_tokens_of_a_tree_with_a_copied_branch_follow_the_target(seed):
    prompt = tuple(pair(seed).tokenizer(PROMPT)["input_ids"])
    generator, counts, copied_kept = torch.Generator().manual_seed(77 + seed), Counter(), 0
    for _ in range(2000):
        emitted, kept = lookup_step(seed, prompt, generator)
        copied_kept += kept
        if len(emitted) < 2:
            emitted += lookup_step(seed, prompt + tuple(emitted), generator)[0]
        counts[tuple(emitted[:2])] += 1
    assert copied_kept > 100  # the copied branch took part: the test is not about the drafted nodes alone
    assert chi_square_p_value(counts, exact_two_tokens(seed, prompt)) > 1e-3


@pytest.mark.statistical
@pytest.mark.slow
def test_the_real_engine_samples_p_with_a_lookup_branch():
    """Read 44 (tests): after "abcab" the lookup copies 'c', which the target's top-4 gives p = 0: over 100 seeds its
    copies were tried 24 times and kept never, so the engine's handling of a kept copy went unchecked here. After
    "hello hello" the copy has p > 0: 241 copies tried and 60 kept over these 300 seeds."""
    toy = pair(0)
    prompt = tuple(toy.tokenizer("hello hello")["input_ids"])
    proposer, counts, copied, kept = make_proposer(toy, "eagle"), Counter(), 0, 0
    for seed in range(300):
        trace = speculative_generate(toy.target, proposer, list(prompt), k=2, max_new_tokens=3, seed=seed,
                                     eos_token_id=[], temperature=1.0, top_k=4, tree_nodes=6, tree_width=2,
                                     tree_lookup=3)
        copied += sum(n.copied for s in trace.steps for n in s.tree.nodes)
        kept += sum(s.tree.nodes[i].copied for s in trace.steps for i in s.tree.path)
        counts[tuple(trace.output_ids[:2])] += 1
    assert copied > 0 and kept > 20  # copies were kept too: the point-mass rule ran on both branches
    assert chi_square_p_value(counts, exact_two_tokens(0, prompt)) > 1e-3


# ---- the engine -----------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def toy():
    return toy_pair(0)


@pytest.mark.parametrize("name", ["draft", "eagle"])
@pytest.mark.parametrize("text", ["hello there", REPEATING])
def test_greedy_tree_with_a_lookup_branch_equals_target_only(toy, name, text):
    ids = toy.tokenizer(text)["input_ids"]
    trace = speculative_generate(toy.target, make_proposer(toy, name), ids, k=3, max_new_tokens=30,
                                 tree_nodes=8, tree_width=2, tree_lookup=6)
    assert trace.output_ids == autoregressive_generate(toy.target, ids, max_new_tokens=30).output_ids
    assert trace.settings["tree_lookup"] == 6


def test_a_copied_branch_is_recorded_and_can_go_deeper_than_k(toy):
    """On a repeating prompt the target (greedy) repeats too, so copied nodes get accepted, past depth K."""
    ids = toy.tokenizer(REPEATING)["input_ids"]
    trace = speculative_generate(toy.target, make_proposer(toy, "eagle"), ids, k=2, max_new_tokens=40,
                                 tree_nodes=4, tree_width=2, tree_lookup=8, tokenizer=toy.tokenizer)
    nodes = [n for s in trace.steps for n in s.tree.nodes]
    copied = [n for n in nodes if n.copied]
    assert copied and all(n.draft_prob == 1.0 for n in copied)  # q is a point mass
    sequence = list(ids) + trace.output_ids
    for step in trace.steps:  # every copied node holds what followed an earlier match in the context
        assert all(n.token_id in sequence[: step.context_length] for n in step.tree.nodes if n.copied)
    accepted_copies = [n for s in trace.steps for j, n in enumerate(s.tree.nodes) if n.copied and j in s.tree.path]
    assert accepted_copies and max(n.depth for n in accepted_copies) > 2
    assert trace.num_tokens / trace.num_steps > 3  # more than the K + 1 = 3 a plain tree of depth 2 can keep
    data = trace.to_dict()
    assert any(node.get("copied") for step in data["steps"] for node in step["tree"]["nodes"])
    again = Trace.from_json(json.dumps(data))
    assert [[n.copied for n in s.tree.nodes] for s in again.steps] == [[n.copied for n in s.tree.nodes]
                                                                        for s in trace.steps]
    # the texts say so too (TreeStep.propose once said "a draft tree of depth at most K", the step's comment "a tree
    # of at most N nodes and depth K", both before a branch that is bounded by tree_lookup alone)
    assert "can reach deeper than the drafted nodes" in " ".join(TreeStep.propose.__doc__.split())
    assert "may reach deeper than K" in " ".join(DraftShape.__doc__.split())


def test_a_tree_without_a_lookup_branch_writes_what_it_wrote_before(toy):
    ids = toy.tokenizer(REPEATING)["input_ids"]
    trace = speculative_generate(toy.target, make_proposer(toy, "eagle"), ids, k=3, max_new_tokens=20,
                                 tree_nodes=8, tree_width=2)
    text = json.dumps(trace.to_dict())
    assert '"copied"' not in text and "tree_lookup" not in trace.settings


def test_the_lookup_branch_never_passes_the_token_limit(toy):
    ids = toy.tokenizer(REPEATING)["input_ids"]
    for limit in (1, 2, 5):
        trace = speculative_generate(toy.target, make_proposer(toy, "eagle"), ids, k=3, max_new_tokens=limit,
                                     tree_nodes=4, tree_width=2, tree_lookup=16, eos_token_id=[])
        assert trace.num_tokens == limit
        done = 0
        for step in trace.steps:
            assert max((n.depth for n in step.tree.nodes), default=0) <= limit - done - 1
            done += len(step.emitted)


@pytest.mark.parametrize("bad", [-1, 17, 2.5, True])
def test_bad_lookup_lengths_are_one_sentence(bad):
    with pytest.raises(ValueError, match=r"^tree_lookup must be a whole number from 0 to 16 \(got"):
        DraftShape(4, 8, 2, bad)
    with pytest.raises(ValueError):
        RunSpec(pair="toy", tree_nodes=8, tree_lookup=bad)


def test_a_lookup_branch_without_a_tree_is_refused_everywhere(capsys):
    """Issue 44 item 9: tree_lookup without tree nodes was accepted and silently ignored (CLI, RunSpec, URL)."""
    from specviz.cli import main

    with pytest.raises(ValueError, match="^tree_lookup needs a tree"):
        DraftShape(4, 0, 4, 4)
    with pytest.raises(ValueError, match="^A lookup branch needs a draft tree"):
        RunSpec(pair="toy", tree_lookup=4)
    spec, problems = RunSpec.parse_query({"k": "3", "tree_lookup": "4"})
    # read 54: a link's refusal names the parameter, the rule and the value, as the Playground's warning does (it
    # read "A lookup branch needs a draft tree: set tree nodes above 0, ..." for every page but the Playground)
    assert spec.tree_lookup == 0 and spec.k == 3 and problems == [
        "tree_lookup must be 0 while tree_nodes is 0, as a chain has no lookup branch (got 4)"]
    with using("pt"):
        assert RunSpec.parse_query({"tree_lookup": "4"})[1] == [
            "tree_lookup deve ser 0 enquanto tree_nodes for 0, pois uma cadeia não tem ramo de busca (recebido: 4)"]
    spec, problems = RunSpec.parse_query({"tree_lookup": "4", "tree_nodes": "8"})  # either order, together: fine
    assert not problems and (spec.tree_nodes, spec.tree_lookup) == (8, 4)
    # the command line's sentence names the flags and the value typed (38th read: it gave RunSpec's, which names
    # settings, "tree nodes" and "the lookup branch", no flag and no value)
    for flags in (["--k", "3"], ["--tree-nodes", "0"]):
        code = main(["generate", "--pair", "toy", "--prompt", "abc", *flags, "--tree-lookup", "4"])
        err = capsys.readouterr().err
        assert code == 2 and "Traceback" not in err
        assert err.strip() == ("specviz: --tree-lookup 4 needs a draft tree: give --tree-nodes above 0 (--k without "
                               "it, or --tree-nodes 0, drafts a chain), or drop --tree-lookup."), err


def test_the_run_spec_carries_the_lookup_branch_in_a_link():
    spec = RunSpec(pair="toy", tree_nodes=8, tree_width=2, tree_lookup=6)
    assert spec.to_query()["tree_lookup"] == "6"
    assert RunSpec.from_query(spec.to_query()) == spec
    assert "tree_lookup" not in RunSpec(pair="toy", tree_nodes=8).to_query()


def test_the_threshold_policy_with_a_tree_is_refused_not_run_as_constant():
    """A tree step never asks the proposer whether to stop (`propose_tree` drafts every node), so a run spec with the
    threshold policy and a tree ran as "constant" under the threshold's name: refused in one sentence, as a lookup
    branch without a tree is, in the library and in a link (the CLI's generate has no policy to set)."""
    # a link's refusal names the parameter, its rule and the value, as every other one does (read 54)
    sentence = ("policy must be another policy than threshold while tree_nodes is above 0, as only a chain stops "
                "where the draft grows unsure and a tree drafts all its nodes (got 'threshold')")
    with pytest.raises(ValueError, match="^The threshold policy ends a chain"):
        RunSpec(pair="toy", policy="threshold", tree_nodes=8)
    assert RunSpec(pair="toy", policy="threshold").tree_nodes == 0  # a chain: fine
    assert RunSpec(pair="toy", policy="heuristic", tree_nodes=8).tree_nodes == 8  # another policy's K: fine
    # why: tests/engine/test_policies.py shows the confidence stop ending chains only
    # a link with both keeps the tree and refuses the policy, in either order
    for query in ({"policy": "threshold", "tree_nodes": "8"}, {"tree_nodes": "8", "policy": "threshold"}):
        spec, problems = RunSpec.parse_query(query)
        assert (spec.policy, spec.tree_nodes) == ("constant", 8) and problems == [sentence]
    spec, problems = RunSpec.parse_query({"policy": "threshold"}, RunSpec(pair="toy", tree_nodes=8, tree_lookup=4))
    assert (spec.policy, spec.tree_nodes, spec.tree_lookup) == ("constant", 8, 4) and problems == [sentence]
    spec, problems = RunSpec.parse_query({"tree_nodes": "8"}, RunSpec(pair="toy", policy="threshold"))
    assert (spec.policy, spec.tree_nodes) == ("threshold", 0) and problems == [
        "tree_nodes must be 0 under the threshold policy, as only a chain stops where the draft grows unsure and a "
        "tree drafts all its nodes (got 8)"]
    with using("pt"):
        said = RunSpec.parse_query({"policy": "threshold", "tree_nodes": "8"})[1]
    assert said == ["policy deve ser outra política que não threshold enquanto tree_nodes for maior que 0, pois só "
                    "uma cadeia se encerra onde o rascunho fica inseguro, e uma árvore rascunha todos os seus nós "
                    "(recebido: 'threshold')"]
    spec, problems = RunSpec.parse_query({"policy": "threshold", "k": "3"})
    assert (spec.policy, spec.k) == ("threshold", 3) and not problems


def test_the_lookup_branch_takes_the_longest_match_and_the_docs_say_so():
    """The copy follows the latest earlier match of the last 3 tokens, and only failing that of the last 2, then 1: a
    later match of the last token alone loses to an earlier one of all three. library.md and `TreeStep.propose` once
    said "the latest earlier occurrence of the sequence's last 1-3 tokens", which reads as the latest of any length
    (here 8, 1, ... instead of 9, 3, ...)."""
    from pathlib import Path

    from specviz.engine.proposers.ngram import prompt_lookup

    sequence = [1, 2, 3, 9, 3, 8, 1, 2, 3]  # all three at 0..2; the last token alone, later, at 4
    assert prompt_lookup(sequence, 3, overlap=True) == [9, 3, 8]
    library = " ".join((Path(__file__).resolve().parents[2] / "docs/library.md").read_text(encoding="utf-8").split())
    docstring = " ".join(TreeStep.propose.__doc__.split())
    for text in (library, docstring):
        assert "last 1-3 tokens" not in text
        assert "last 3 tokens (failing a match, its last 2, then its last 1" in text
    # and benchmarks.md and the bench's column help (read by the Speedup lab), both languages, said it the same way
    from specviz.core.i18n import _, using
    from specviz.labs.bench.summary import DEFINITIONS

    bench = " ".join((Path(__file__).resolve().parents[2] / "docs/benchmarks.md").read_text(encoding="utf-8").split())
    assert "last 1-3" not in bench and "the text's last 3 tokens (failing a match, its last 2, then its last 1" in bench
    for lang, said in (("en", "the last 3 tokens, failing that of the last 2, then of the last 1"),
                       ("pt", "dos últimos 3 tokens, ou, não havendo, dos últimos 2, depois do último")):
        with using(lang):
            assert said in _(DEFINITIONS["tree_lookup"][1]), lang
