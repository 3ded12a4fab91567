"""The Playground on a draft tree: a tree step is drawn as a tree whose highlighted path is the trace's accepted path,
next to the tree attention mask (ancestors and self), with the toy pair only; chain runs show no tree; the tree
settings travel in the URL and bad ones are refused with one sentence; token text is escaped; all in Portuguese too."""

from __future__ import annotations

import json
from functools import cache

import pytest
from streamlit.testing.v1 import AppTest

from i18n_check import english_sentences
from specviz.core.i18n import using
from specviz.engine.proposers import DraftModelProposer, EagleProposer, LayerSkipProposer, NgramProposer, registry
from specviz.engine.trace import EmittedToken, Step, TokenKind, TreeNode, TreeRecord
from specviz.engine.tree import ROOT
from specviz.runs.runspec import RunSpec
from specviz.ui.common.escaping import escape_text
from specviz.ui.common.palette import style
from specviz.ui.common.tree_figures import PATH_META, mask_figure, node_kind, tree_figure, tree_positions, tree_title
from specviz.ui.playground.settings import LIVE_DEFAULTS, parse_query_params, query_params_for
from test_playground import page  # the Playground opened with a link's query parameters

TREE_LINK = dict(source="live", pair="toy", proposer="draft", k="3", temperature="1", seed="2", max_new_tokens="20",
                 prompt="the cat sat", tree_nodes="8", tree_width="3")
EVIL = "<img src=x onerror=alert(1)>"


def figures(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def title(fig: dict) -> str:
    return fig["layout"].get("title", {}).get("text", "")


def ancestors_and_self(record: TreeRecord) -> list[list[int]]:
    """The mask worked out by hand: every row sees the root; node j also sees itself and each ancestor."""
    size = len(record.nodes) + 1
    rows = [[1] + [0] * (size - 1)]
    for j in range(len(record.nodes)):
        row = [1] + [0] * (size - 1)
        node = j
        while node != ROOT:
            row[node + 1] = 1
            node = record.nodes[node].parent
        rows.append(row)
    return rows


@cache
def tree_page() -> AppTest:
    """A shared live toy run with a tree, opened on its first step whose accepted path is not empty."""
    at = page(**TREE_LINK)
    trace = at.session_state["trace"]
    first = next(i for i, s in enumerate(trace.steps) if s.tree is not None and s.tree.path)
    at.slider(key="playground_slider").set_value(first + 1).run()
    return at


@pytest.mark.slow  # a live toy run with a tree, shared by the next tests (over 2 s): make test runs them
def test_a_tree_step_is_drawn_with_the_traces_accepted_path_highlighted():
    at = tree_page()
    assert not at.exception and not at.error
    trace = at.session_state["trace"]
    step = trace.steps[at.session_state["playground_pos"] - 1]
    assert trace.settings["tree_nodes"] == 8 and len(step.tree.nodes) > step.n_drafted  # a real tree, not a chain
    tree = next(f for f in figures(at) if any(d.get("meta") == PATH_META for d in f["data"]))
    path = next(d for d in tree["data"] if d.get("meta") == PATH_META)
    assert path["customdata"] == [ROOT, *step.tree.path]
    chips = tree["layout"]["annotations"]
    assert len(chips) == len(step.tree.nodes) + 1  # the root and every node
    assert [c["bordercolor"] for c in chips[1:]] == [style(node_kind(n)).color for n in step.tree.nodes]
    headline = next(m.value for m in at.markdown if m.value.startswith(f"##### Step {step.index + 1} ·"))
    assert f"Drafted a tree of {len(step.tree.nodes)} nodes, accepted a path of {len(step.tree.path)}" in headline
    wrote = step.target_cache_after - step.target_cache_before  # the accepted path and the recovered or bonus token
    rolled = 1 + len(step.tree.nodes) - wrote
    sentence = f"and {len(step.tree.nodes)} tree nodes) and kept only the accepted path: {rolled} rolled back"
    assert any(escape_text(sentence, whitespace=False) in h.proto.body for h in at.get("html"))


@pytest.mark.slow
def test_the_mask_heatmap_is_ancestors_and_self():
    at = tree_page()
    step = at.session_state["trace"].steps[at.session_state["playground_pos"] - 1]
    heatmap = next(d for f in figures(at) for d in f["data"] if d["type"] == "heatmap")
    assert heatmap["z"] == ancestors_and_self(step.tree)
    assert any(c.value.startswith("**How to read the mask:**") for c in at.caption)
    assert any(c.value.startswith("**How to read the tree:**") for c in at.caption)
    n = len(step.tree.nodes)
    assert any(m.value.startswith(f"**{n} drafted nodes · accepted path: ‘") for m in at.markdown)  # wraps on phones


@pytest.mark.slow
def test_the_tree_settings_travel_in_the_url():
    at = tree_page()
    flat = {k: (v[0] if isinstance(v, list) else v) for k, v in ((k, at.query_params[k]) for k in at.query_params)}
    assert flat["tree_nodes"] == "8" and flat["tree_width"] == "3"
    assert at.number_input(key="playground_tree_nodes").value == 8
    values, bad = parse_query_params({k: flat[k] for k in ("tree_nodes", "tree_width")}, [])
    assert values == {"tree_nodes": 8, "tree_width": 3} and bad == []


def test_a_chain_link_stays_a_chain_link():
    chain = RunSpec(pair="toy", proposer="draft", tree_width=2)
    params = query_params_for("live", None, chain, 1)
    assert "tree_nodes" not in params and "tree_width" not in params
    params = query_params_for("live", None, RunSpec(pair="toy", proposer="draft", tree_nodes=5, tree_width=2), 1)
    assert (params["tree_nodes"], params["tree_width"]) == ("5", "2")
    assert parse_query_params({"tree_nodes": "5"}, [])[0]["tree_nodes"] == 5
    assert LIVE_DEFAULTS.tree_nodes == 0  # the first live run is a chain


@pytest.mark.slow  # a live toy run (about 0.7 s)
def test_bad_tree_settings_in_the_link_are_one_sentence_and_the_run_is_a_chain():
    at = page(**{**TREE_LINK, "tree_nodes": "65", "tree_width": "0"})
    assert not at.exception and not at.error
    assert len(at.warning) == 1
    assert "(tree_nodes, tree_width)" in at.warning[0].value and at.warning[0].value.endswith("defaults.")
    trace = at.session_state["trace"]
    assert "tree_nodes" not in trace.settings and all(s.tree is None for s in trace.steps)


def test_a_chain_step_shows_no_tree():
    at = page(source="example", example="toy-draft", step="3")
    assert not at.exception
    assert not any(any(d.get("meta") == PATH_META or d["type"] == "heatmap" for d in f["data"]) for f in figures(at))
    assert not any("How to read the tree" in c.value for c in at.caption)
    assert any(m.value.startswith("##### Step 3 · Drafted") and "tree" not in m.value for m in at.markdown)


def test_only_proposers_that_branch_offer_a_tree():
    classes = {"draft": DraftModelProposer, "eagle": EagleProposer, "ngram": NgramProposer,
               "layerskip": LayerSkipProposer}
    assert set(classes) <= set(registry.names())
    assert {name for name in classes if registry.can_branch(name)} == {name for name, cls in classes.items()
                                                                        if cls.can_branch}


def evil_tree_step() -> Step:
    nodes = [TreeNode(1, EVIL, ROOT, 1, 0.5, 0.6, "accepted", 0.2, 1.0),
             TreeNode(2, "**b**", ROOT, 1, 0.3, 0.1, "not reached"),
             TreeNode(3, "c", 0, 2, 0.4, 0.2, "rejected", 0.9, 0.5)]
    return Step(0, 3, 2, "draft", [], [EmittedToken(1, EVIL, TokenKind.ACCEPTED), EmittedToken(4, EVIL,
                                                                                            TokenKind.RECOVERED)],
                correction_kind=TokenKind.RECOVERED, tree=TreeRecord(nodes, [0]))


def test_token_text_in_the_tree_is_escaped():
    step = evil_tree_step()
    fig = tree_figure(step).to_plotly_json()
    texts = [a["text"] for a in fig["layout"]["annotations"]] + [a["hovertext"] for a in fig["layout"]["annotations"]]
    texts += [*(t for row in mask_figure(step.tree).data[0].customdata for t in row)]
    assert not any("<img" in t for t in texts)
    assert any("&lt;img" in t for t in texts)
    caption = tree_title(step)  # markdown above the chart, where it wraps: HTML inert, the correction named
    assert "<img" not in caption and "&lt;img" in caption and "↻" in caption


def test_the_figures_follow_the_record_without_a_browser():
    """The fast twin of the page tests: the path drawn is the record's, the mask is ancestors and self."""
    step = evil_tree_step()
    fig = tree_figure(step)
    assert next(d for d in fig.data if d.meta == PATH_META).customdata == (ROOT, *step.tree.path)
    assert [list(row) for row in mask_figure(step.tree).data[0].z] == ancestors_and_self(step.tree)


def test_a_parent_sits_between_its_children_and_no_two_nodes_overlap():
    record = evil_tree_step().tree
    where = tree_positions(record)
    assert len(set(where)) == len(where)
    assert where[0][1] == (where[1][1] + where[2][1]) / 2  # the root between its two children
    assert [x for x, _y in where] == [0, *(n.depth for n in record.nodes)]


@pytest.mark.slow  # a page walk in Portuguese (make test)
def test_a_tree_step_in_portuguese():
    with using("pt"):
        at = page(**TREE_LINK, lang="pt", step="1")
        assert not at.exception
        prompts = {t.value[:120] for t in at.text_area}
        assert [t for t in english_sentences(at) if t not in prompts] == []
        assert any("Rascunhou uma árvore de" in m.value for m in at.markdown)


def test_the_examples_in_the_tree_modules_docstrings_hold():
    import doctest

    from specviz.ui.common import tree_figures
    from specviz.ui.race import tree as tree_race

    for module in (tree_figures, tree_race):
        assert doctest.testmod(module).failed == 0
