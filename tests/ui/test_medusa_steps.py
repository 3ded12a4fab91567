"""A Medusa step in the Playground's step panel says which head proposed what: draft #k is head k's guess in a chain,
a node at depth d is head d's in a tree; other proposers' steps do not say it."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from specviz.runs.running import run
from specviz.runs.runspec import RunSpec


def render(traces, lang):  # runs inside AppTest
    from specviz.core.i18n import set_language
    from specviz.ui.common.step_view import render_step

    set_language(lang)
    for t, trace in enumerate(traces):
        render_step(trace.steps[0], key=f"t{t}")


@pytest.mark.parametrize("lang, chain, tree", [
    ("en", "draft #2 head 2's", "every node at depth d is a guess of head d"),
    ("pt", "o #2 da cabeça 2", "cada nó na profundidade d é um palpite da cabeça d")])
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_a_medusa_step_names_the_head_behind_each_draft(toy, lang, chain, tree):
    shapes = [dict(proposer="medusa", k=3), dict(proposer="medusa", k=3, tree_nodes=6, tree_width=2),
              dict(proposer="draft", k=3)]
    traces = [run(RunSpec(pair="toy", prompt="the cat sat", max_new_tokens=8, temperature=1.0, seed=1, **shape),
                  pair=toy) for shape in shapes]
    assert traces[0].steps[0].decisions and traces[1].steps[0].tree.nodes  # each first step drafted
    at = AppTest.from_function(render, args=(traces, lang), default_timeout=120).run()
    assert not at.exception, at.exception
    captions = [c.value for c in at.caption]
    assert sum(chain in c for c in captions) == 1 and sum(tree in c for c in captions) == 1
    assert sum("Medusa" in c for c in captions) == 2  # the draft model's step says nothing of heads
