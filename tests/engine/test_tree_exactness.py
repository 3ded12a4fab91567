"""Exactness of draft trees: the tree rule emits exactly the target's distribution; the tempting mistake does not.

Two kinds of evidence, as for the chain (tests/engine/test_exact_sampling.py, tests/labs/test_exactness.py):
  closed forms  the first emitted token of a one-level tree, enumerated over every way the children can be drawn
                (`TreeRule.one_level`): equal to p for the exact rules, off by a measurable TV for the broken one;
  chi-square    the first two emitted tokens of many simulated steps on tiny pairs, against the target's exact
                p(t1) p(t2 | t1), for tree widths 2-3 and depths 1-3. The simulation grows the tree with the
                engine's own `grow_tree` and judges it with the engine's `verify_tree`, on distributions read from
                the tiny models once (memoised), so thousands of steps take a second; one test runs the real engine.
The power test shows the same chi-square rejects top-k children verified against q.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import pytest
import torch

from specviz.engine.decoding import speculative_generate
from specviz.engine.proposers import make_proposer
from specviz.engine.sampling import SamplingConfig
from specviz.engine.tree import DraftTree, grow_tree
from specviz.engine.tree_verifier import verify_tree
from specviz.labs.exactness import TREE_RULES, chi_square_test, tv_distance
from specviz.models.pairs import toy_pair

SAMPLING = SamplingConfig(temperature=1.0, top_k=4)  # 4 tokens per position: 16 two-token cells
N = 2000
PROMPT = "abcab"


@lru_cache(maxsize=None)
def pair(seed: int):
    return toy_pair(seed)


@lru_cache(maxsize=None)
def logits(seed: int, model: str, context: tuple[int, ...]) -> torch.Tensor:
    """The last position's logits (V,) of the tiny pair's target or draft after `context`."""
    net = getattr(pair(seed), model)
    with torch.inference_mode():
        return net(torch.tensor([context])).logits[0, -1]


@lru_cache(maxsize=None)
def target_probs(seed: int, context: tuple[int, ...]) -> torch.Tensor:
    return SAMPLING.probs(logits(seed, "target", context))


def draft_probs(row: torch.Tensor) -> torch.Tensor:
    """q for a logits row. Not memoised by `id(row)`: grow_tree hands over rows of a fresh stacked tensor, whose ids
    Python reuses once they are freed, so such a memo could return another node's q, and which one depended on the
    process's memory (a CI run got p = 0.0009 where a fresh process gets 0.42)."""
    return SAMPLING.probs(row)


def exact_two_tokens(seed: int, prompt: tuple[int, ...]) -> dict[tuple[int, int], float]:
    """p(t1) p(t2 | t1) by enumeration: the ground truth."""
    p1 = target_probs(seed, prompt)
    return {(a, b): float(p1[a] * p2[b]) for a in torch.nonzero(p1).flatten().tolist()
            for p2 in [target_probs(seed, prompt + (a,))] for b in torch.nonzero(p2).flatten().tolist()}


def simulated_step(seed: int, context: tuple[int, ...], width: int, depth: int, rule: str,
                   generator: torch.Generator) -> list[int]:
    """One engine step on memoised distributions: grow a tree, score it, verify it; the emitted tokens."""
    entry = TREE_RULES[rule]

    def node_context(tree: DraftTree, node: int) -> tuple[int, ...]:
        return context + tuple(tree.tokens[n] for n in tree.path_to(node))

    def expand(tree: DraftTree, nodes: list[int]) -> torch.Tensor:
        return [logits(seed, "draft", node_context(tree, n)) for n in nodes]  # rows (V,), iterated by grow_tree

    tree = grow_tree(expand, max_nodes=width * depth + width, max_depth=depth, width=width, probs=draft_probs,
                     sampled=entry.children == "sampled", generator=generator)
    rows = torch.stack([target_probs(seed, context)] + [target_probs(seed, node_context(tree, j))
                                                        for j in range(len(tree))])
    verdict = entry.function(rows, tree, generator=generator)
    return [tree.tokens[n] for n in verdict.path] + [verdict.next_token]


def first_two_tokens(seed: int, width: int, depth: int, rule: str, n: int = N) -> Counter:
    prompt = tuple(pair(seed).tokenizer(PROMPT)["input_ids"])
    generator, counts = torch.Generator().manual_seed(1000 * seed + 10 * width + depth), Counter()
    for _ in range(n):
        emitted = simulated_step(seed, prompt, width, depth, rule, generator)
        if len(emitted) < 2:
            emitted += simulated_step(seed, prompt + tuple(emitted), width, depth, rule, generator)
        counts[tuple(emitted[:2])] += 1
    return counts


def chi_square_p_value(counts: Counter, exact: dict) -> float:
    cells = sorted(exact)
    if not set(counts) <= set(exact):
        return 0.0
    fit = chi_square_test([counts[c] for c in cells], [exact[c] for c in cells])
    assert fit.dof >= 1  # read 44: everything pooled into one group has p = 1, which no broken rule can fail
    return fit.p_value


# ---- closed forms -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("width", [1, 2, 3])
def test_one_level_closed_forms_exact_rules_give_p_the_broken_rule_does_not(width):
    generator = torch.Generator().manual_seed(width)
    worst = 0.0
    for _ in range(20):
        p, q = (torch.rand(6, generator=generator, dtype=torch.float64) ** 3 for _ in range(2))
        p, q = p / p.sum(), q / q.sum()
        for rule in TREE_RULES.values():
            dist = rule.one_level(p, q, width)
            assert float(dist.sum()) == pytest.approx(1.0)
            if rule.exact:
                assert tv_distance(dist, p) < 1e-9, rule.name
        worst = max(worst, tv_distance(TREE_RULES["tree_top_k_against_q"].one_level(p, q, width), p))
    assert worst > 0.1


def test_the_registry_says_why_the_broken_tree_rule_breaks():
    broken = TREE_RULES["tree_top_k_against_q"]
    assert not broken.exact and broken.children == "top" and broken.compare_with_q
    assert "not distributed as q" in broken.explanation
    assert TREE_RULES["tree_sampled"].function is verify_tree  # the exact rule is the engine's, not a copy
    assert {name for name, rule in TREE_RULES.items() if rule.exact} == {"tree_sampled", "tree_top_children"}


# ---- chi-square on tiny pairs ---------------------------------------------------------------------------------------

@pytest.mark.statistical
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("width", [2, 3])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_first_two_tokens_of_a_sampled_tree_follow_the_target(seed, width, depth):
    prompt = tuple(pair(seed).tokenizer(PROMPT)["input_ids"])
    counts = first_two_tokens(seed, width, depth, "tree_sampled")
    assert chi_square_p_value(counts, exact_two_tokens(seed, prompt)) > 1e-3


@pytest.mark.statistical
@pytest.mark.parametrize("width", [2, 3])
def test_top_children_as_point_masses_follow_the_target(width):
    prompt = tuple(pair(0).tokenizer(PROMPT)["input_ids"])
    counts = first_two_tokens(0, width, 2, "tree_top_children")
    assert chi_square_p_value(counts, exact_two_tokens(0, prompt)) > 1e-3


@pytest.mark.statistical
@pytest.mark.parametrize("seed", [0, 1])
def test_the_test_has_power_top_k_children_against_q_fail(seed):
    """The tempting mistake, on the same pairs and the same test: rejected."""
    prompt = tuple(pair(seed).tokenizer(PROMPT)["input_ids"])
    counts = first_two_tokens(seed, 2, 2, "tree_top_k_against_q")
    assert chi_square_p_value(counts, exact_two_tokens(seed, prompt)) < 1e-3


# p = (0.2, 0.2, 0.6) at the root and q = (0.9, 0.1, 0): two children drawn from q without replacement, token 0
# first 9 times in 10. After 0 is rejected, q' = q without 0 = δ_1, so 1 is kept with p'(1) = ¼ and 2 comes from the
# residual 3 times in 4; a q' left at q keeps 1 whenever it is tried (p'(1) = ¼ > q(1) = 0.1), so the first token
# is 0, 1, 2 with (0.2, 0.8, 0): token 2, 0.6 of p, is never emitted (TV 0.6)
Q_UPDATE_P, Q_UPDATE_Q = torch.tensor([0.2, 0.2, 0.6]), torch.tensor([0.9, 0.1, 0.0])


@pytest.mark.statistical
def test_the_tree_rule_removes_a_rejected_child_from_q():
    """Read 46: the real-engine tree test above passes with `verify_tree`'s q' update removed (q' left at q after
    a rejected child): on the toy pair the update moves the first token by a TV of 0.08 at most (every prompt, T
    and top-k tried), which 300 runs cannot see. Here the engine's own `grow_tree` and `verify_tree` judge a tree
    on p and q chosen so that the update moves the first token by a TV of 0.6: 400 seeded steps give p = 0.39 with
    the update and p = 1e-218 without it (token 2 never comes out)."""
    generator, counts = torch.Generator().manual_seed(0), Counter()
    target_rows = torch.stack([Q_UPDATE_P, *[torch.full((3,), 1 / 3)] * 2])  # the root's p; the leaves' p (unused)
    for _ in range(400):
        tree = grow_tree(lambda tree, nodes: [Q_UPDATE_Q.log()] * len(nodes), max_nodes=2, max_depth=1, width=2,
                         probs=lambda row: torch.softmax(row, -1), sampled=True, generator=generator)
        assert len(tree) == 2 and set(tree.tokens) == {0, 1}  # both children drawn: token 1 is tried after 0
        verdict = verify_tree(target_rows, tree, generator=generator)
        counts[tree.tokens[verdict.path[0]] if verdict.path else verdict.next_token] += 1
    fit = chi_square_test([counts[t] for t in range(3)], Q_UPDATE_P.tolist())
    assert fit.dof >= 1 and counts[2] > 0 and fit.p_value > 1e-3, (counts, fit.p_value)


@pytest.mark.statistical
@pytest.mark.slow
@pytest.mark.parametrize("name", ["draft", "eagle", "medusa"])
def test_the_real_engine_samples_p_with_a_tree(name):
    """The same check through `speculative_generate` (tree forwards, cache compaction), for the draft model, EAGLE and
    Medusa. Read 44: it never looked at the trees, so a run that drafted a chain, or nothing, passed it too; each
    run's first step must have drafted the whole shape asked for (2 children at the root, 6 nodes, depth 2)."""
    toy = pair(0)
    prompt = tuple(toy.tokenizer(PROMPT)["input_ids"])
    proposer, counts, shapes = make_proposer(toy, name), Counter(), Counter()
    for seed in range(300):
        trace = speculative_generate(toy.target, proposer, list(prompt), k=2, max_new_tokens=3, seed=seed,
                                     eos_token_id=[], temperature=1.0, top_k=4, tree_nodes=6, tree_width=2)
        counts[tuple(trace.output_ids[:2])] += 1
        nodes = trace.steps[0].tree.nodes
        shapes[sum(n.parent == -1 for n in nodes), len(nodes), max(n.depth for n in nodes)] += 1
    assert shapes == {(2, 6, 2): 300}, shapes  # the tree really branched: the test is about trees
    assert chi_square_p_value(counts, exact_two_tokens(0, prompt)) > 1e-3
