"""Every step a run can produce draws on the page (issue 42): a tree step with no node (one token was left), a bonus
token, a step with no drafts (its one token the target's), the stop token, a lookup-only tree, chains cut by the token
limit. Sixty short seeded runs of the toy pair, chains and trees, greedy and sampled, each step through the
Playground's step panel; the test checks the runs reach each of these."""

from __future__ import annotations

import copy
import dataclasses
import itertools

import pytest
from streamlit.testing.v1 import AppTest

from specviz.engine.kinds import StopReason
from specviz.runs.running import run
from specviz.runs.runspec import RunSpec

pytestmark = pytest.mark.slow

SHAPES = [dict(k=3), dict(k=1), dict(k=3, tree_nodes=6, tree_width=2), dict(k=2, tree_nodes=4, tree_width=3,
                                                                                tree_lookup=4),
          dict(k=4, tree_nodes=8, tree_width=2, tree_lookup=8)]
PROMPTS = ["a b a b a b", "the cat sat"]


def traces(toy):
    out = []
    for seed, (shape, prompt, tokens, temperature) in enumerate(itertools.product(
            SHAPES, PROMPTS, (1, 3, 6), (0.0, 1.0))):
        spec = RunSpec(pair="toy", proposer="draft", prompt=prompt, max_new_tokens=tokens, temperature=temperature,
                       seed=seed, **shape)
        out.append(run(spec, pair=toy))
    # a tree whose every node was copied from the context (a drafter that proposed nothing the copy did not hold)
    lookup_only = copy.deepcopy(next(t for t in out if any(s.tree is not None and s.tree.nodes for s in t.steps)))
    for step in lookup_only.steps:
        if step.tree is not None:
            step.tree.nodes = [dataclasses.replace(node, copied=True) for node in step.tree.nodes]
    return out + [lookup_only]


def render_all(traces):  # runs inside AppTest: every step of every trace through the step panel
    from specviz.ui.common.step_view import render_step

    for t, trace in enumerate(traces):
        for step in trace.steps:
            last = step.index == len(trace.steps) - 1
            render_step(step, key=f"t{t}", stop=str(trace.stop_reason) if last else "")


def test_every_step_of_many_short_runs_draws(toy):
    found = traces(toy)
    steps = [s for t in found for s in t.steps]
    kinds = {"empty tree": any(s.tree is not None and not s.tree.nodes for s in steps),
             "lookup-only tree": any(s.tree is not None and s.tree.nodes and all(n.copied for n in s.tree.nodes)
                                     for s in steps),
             "bonus": any(e.kind.value == "bonus" for s in steps for e in s.emitted),
             "no drafts": any(not s.decisions for s in steps),
             "stop token": any(t.stop_reason == StopReason.EOS for t in found),
             "chain cut by the token limit": any(t.stop_reason == StopReason.MAX_NEW_TOKENS
                                                 and not t.settings.get("tree_nodes") for t in found)}
    assert all(kinds.values()), kinds  # the runs really reach the edge cases
    at = AppTest.from_function(render_all, args=(found,), default_timeout=300).run()
    assert not at.exception, at.exception
    assert len(at.markdown) >= len(steps)
