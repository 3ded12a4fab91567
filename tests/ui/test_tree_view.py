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
from specviz.ui.common.step_view import accepted_path_text
from specviz.ui.common.tree_figures import (PATH_META, mask_figure, mask_table, node_kind, tree_figure, tree_positions,
                                            tree_title)
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
    assert trace.settings["tree_nodes"] == 8 and len(step.tree.nodes) > len(step.decisions)  # a real tree, not a chain
    tree = next(f for f in figures(at) if any(d.get("meta") == PATH_META for d in f["data"]))
    path = next(d for d in tree["data"] if d.get("meta") == PATH_META)
    assert path["customdata"] == [ROOT, *step.tree.path]
    chips = tree["layout"]["annotations"]
    assert len(chips) == len(step.tree.nodes) + 1  # the root and every node
    assert [c["bordercolor"] for c in chips[1:]] == [style(node_kind(n)).color for n in step.tree.nodes]
    headline = next(m.value for m in at.markdown if m.value.startswith(f"##### Step {step.index + 1} ·"))
    assert f"Drafted a tree of {len(step.tree.nodes)} nodes, {accepted_path_text(len(step.tree.path))}" in headline
    wrote = step.target_cache_after - step.target_cache_before  # the accepted path and the recovered or bonus token
    rolled = 1 + len(step.tree.nodes) - wrote
    sentence = (f"and {len(step.tree.nodes)} tree nodes), kept {wrote} (the last token and the accepted path) and "
                f"rolled back {rolled}.")
    assert any(escape_text(sentence, whitespace=False) in h.proto.body for h in at.get("html"))


@pytest.mark.slow  # shares the live toy tree run
def test_the_players_legend_says_a_tree_leaves_untested_nodes_without_a_rejection():
    """Read 51: the legend under a tree step said "not reached: drafts after a rejection, never checked", but a
    tree's kept node leaves its later siblings (and the lookup branch) untested with no rejection at all."""
    at = tree_page()
    trace = at.session_state["trace"]
    step = trace.steps[at.session_state["playground_pos"] - 1]
    unkept = [n for n in step.tree.nodes if n.parent == ROOT and n.status.value == "not reached"]
    assert unkept and step.tree.path  # a root child left untested beside the kept path
    legend = next(c.value for c in at.caption if c.value.startswith("↻ recovered:"))
    assert legend.endswith("not reached: drafts after a rejection (in a tree step: also below a rejected node, a "
                           "sibling after the kept one, or below those), never checked.")
    with using("pt_BR"):
        from specviz.core.i18n import _
        from specviz.ui.playground.player import TEXT
        assert _(TEXT["legend"]).endswith("(num passo em árvore: também abaixo de um nó rejeitado, um irmão depois "
                                          "do mantido, ou abaixo desses), nunca verificados.")


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
    assert values == {"tree_nodes": 8, "tree_width": 3} and bad == {}


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
    assert at.warning[0].value.replace("\\", "").endswith(
        ": tree_nodes must be a whole number from 0 to 64 (got 65); tree_width must be a whole number from 1 to 8 "
        "(got 0).")
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


def test_the_mask_table_names_the_nodes_and_the_verdicts_as_the_chart_does():
    """Read off the heatmap, the table numbered its rows and columns 0, 1, ... where the chart's ticks say root, #1
    ..., and wrote 1 and 0 for "attends" and "masked" (read 32). The names are the ticks' text as plain text: the
    ticks write < > & as entities for Plotly, and the table escapes what it shows itself (read 46)."""
    from specviz.ui.common.escaping import table_text

    step = evil_tree_step()
    table = mask_table(step.tree)
    ticks = list(mask_figure(step.tree).layout.xaxis.ticktext)
    names = table.iloc[:, 0].tolist()
    assert names != ticks and not any("&lt;" in name for name in names)  # the evil tokens' < > are shown as typed
    # each the tick's token whole (read 55: the table cut it to the tick's 6 characters, "#1 <img␣…")
    assert "#1 <img␣src=x␣onerror=alert(1)>" in names
    assert all(name == tick or (tick.endswith("…") and name.startswith(tick[:-1]))
               for name, tick in zip(names, table_text(ticks)))
    assert list(table.columns[1:]) == names
    words = {"attends": 1, "masked": 0}
    assert [[words[cell] for cell in row[1:]] for row in table.itertuples(index=False)] == \
        ancestors_and_self(step.tree)
    with using("pt"):
        assert set(mask_table(step.tree).iloc[:, 1:].stack()) == {"lê", "mascarado"}


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


def copied_tree_step() -> Step:
    """A tree whose lookup branch shares node 0 with the drafter, then adds two copied nodes (#3, #4); the path runs
    into the copy."""
    nodes = [TreeNode(1, "a", ROOT, 1, 0.5, 0.6, "accepted", 0.2, 1.0),
             TreeNode(3, "c", 0, 2, 0.4, 0.2, "rejected", 0.9, 0.5),
             TreeNode(5, "e", 0, 2, 1.0, 0.7, "accepted", 0.3, 0.7, copied=True),
             TreeNode(6, "f", 2, 3, 1.0, 0.1, "rejected", 0.8, 0.1, copied=True)]
    emitted = [EmittedToken(1, "a", TokenKind.ACCEPTED), EmittedToken(5, "e", TokenKind.ACCEPTED),
               EmittedToken(7, "g", TokenKind.RECOVERED)]
    return Step(0, 3, 3, "eagle", [], emitted,
                correction_kind=TokenKind.RECOVERED, tree=TreeRecord(nodes, [0, 2]))


def test_copied_nodes_carry_a_mark_a_hover_line_and_a_source_column():
    from specviz.ui.common.tree_figures import COPIED_MARK, tree_rows

    step = copied_tree_step()
    chips = tree_figure(step).to_plotly_json()["layout"]["annotations"][1:]  # the root first
    assert [COPIED_MARK in c["text"] for c in chips] == [False, False, True, True]  # a glyph, not colour alone
    assert [("copied from the context" in c["hovertext"]) for c in chips] == [False, False, True, True]
    assert [row["source"] for row in tree_rows(step.tree)] == ["drafted", "drafted", f"{COPIED_MARK} copied",
                                                              f"{COPIED_MARK} copied"]
    title = "2 drafted nodes + 2 copied from the context · accepted path: ‘a’ → ‘e’"
    assert tree_title(step).startswith(title)
    with using("pt"):
        assert tree_title(step).startswith("2 nós rascunhados + 2 copiados do contexto")
        assert [row["origem"] for row in tree_rows(step.tree)][2] == f"{COPIED_MARK} copiado"


def test_the_tree_table_names_its_first_column_for_nodes_and_copied_tokens():
    """Read 52: the tree's table headed its first column "node" (pt "nó") and listed the copied tokens in it, and
    an unused heading said "The numbers of every node"; the glossary says a copied token is never a node."""
    from specviz.ui.common.tree_figures import COPIED_MARK, tree_rows
    from specviz.ui.common.tree_view import TEXT

    step = copied_tree_step()
    rows = tree_rows(step.tree)
    assert list(rows[0])[0] == "node or copied token"
    assert [row["source"] for row in rows if row["node or copied token"].startswith(("#3 ", "#4 "))] == [
        f"{COPIED_MARK} copied"] * 2  # the copied tokens are listed in it
    with using("pt"):
        assert list(tree_rows(step.tree)[0])[0] == "nó ou token copiado"
    assert "The numbers of every node" not in TEXT.values()


def test_a_tree_without_copies_says_nothing_of_them():
    from specviz.ui.common.tree_figures import COPIED_MARK

    step = evil_tree_step()
    assert "copied" not in tree_title(step)
    assert not any(COPIED_MARK in a["text"] for a in tree_figure(step).to_plotly_json()["layout"]["annotations"])


@pytest.mark.slow  # a live toy run with a lookup branch
def test_a_lookup_branch_travels_in_the_link_and_its_copies_are_explained_on_the_page():
    link = {**TREE_LINK, "prompt": "abcabcabcabcab", "temperature": "0", "tree_lookup": "6", "max_new_tokens": "30"}
    at = page(**link)
    assert not at.exception and not at.error
    trace = at.session_state["trace"]
    assert trace.settings["tree_lookup"] == 6
    assert at.number_input(key="playground_tree_lookup").value == 6
    with_copy = next(i for i, s in enumerate(trace.steps) if any(n.copied for n in s.tree.nodes))
    at.slider(key="playground_slider").set_value(with_copy + 1).run()
    assert any(c.value.startswith("**❐ Copied from the context:**") for c in at.caption)
    flat = {k: (v[0] if isinstance(v, list) else v) for k, v in ((k, at.query_params[k]) for k in at.query_params)}
    assert flat["tree_lookup"] == "6"
    with pytest.raises(ValueError, match="A lookup branch needs a draft tree"):  # issue 44 item 9: not ignored
        RunSpec(pair="toy", proposer="draft", tree_lookup=6)
    at.number_input(key="playground_tree_nodes").set_value(0).run()  # back to a chain: the greyed lookup is left out
    assert not at.exception and not at.error
    from specviz.ui.playground import live
    from specviz.ui.playground.settings import KEYS

    widgets = {key: at.session_state[key] for key in KEYS.values() if key in at.session_state}
    assert widgets[KEYS["tree_nodes"]] == 0 and widgets[KEYS["tree_lookup"]] == 6  # greyed out, still holding 6
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(live.st, "session_state", widgets)
        chain = live.current_settings()
    assert isinstance(chain, RunSpec) and (chain.tree_nodes, chain.tree_lookup) == (0, 0)  # runs, no refusal
    refused, bad = parse_query_params({"source": "live", "tree_lookup": "6"}, [])  # a link with no tree
    assert list(bad) == ["tree_lookup"] and "tree_lookup" not in refused
    kept, bad = parse_query_params({"source": "live", "tree_nodes": "8", "tree_lookup": "6"}, [])
    assert not bad and kept["tree_lookup"] == 6


def test_the_step_headline_counts_copied_tokens_apart_from_drafted_nodes():
    from specviz.engine.trace import Decision
    from specviz.ui.common.step_view import step_headline

    def kept(token: int) -> Decision:
        return Decision(0, token, "", 1.0, 0.5, 0.5, 0.5, 0.1, True, True)

    step = copied_tree_step()
    step.decisions = [kept(1), kept(5)]  # the main line: the accepted path
    assert step_headline(step).startswith("Drafted a tree of 2 nodes plus 2 tokens copied from the context, "
                                          "accepted a path of 2 tokens, then 1 recovered token")
    with using("pt"):
        assert "2 nós mais 2 tokens copiados do contexto" in step_headline(step)
    plain = evil_tree_step()
    plain.decisions = [kept(1)]
    assert "copied" not in step_headline(plain)


@pytest.mark.parametrize("accepted, english, portuguese", [
    (0, "accepted no draft token, then", "não aceitou nenhum token rascunhado, depois"),
    (1, "accepted a path of 1 token, then", "aceitou um caminho de 1 token, depois"),
    (3, "accepted a path of 3 tokens, then", "aceitou um caminho de 3 tokens, depois")])
def test_a_tree_steps_headline_names_the_tokens_its_path_kept(accepted, english, portuguese):
    """Read 46: a tree step's headline said "accepted a path of 0" (no noun, and a path kept where none was) and "a
    path of 1" (of what?); it now counts tokens with agreement, and says when no draft token was kept."""
    from specviz.engine.trace import Decision
    from specviz.ui.common.step_view import step_headline

    step = evil_tree_step()
    step.decisions = [Decision(i, 1, "", 1.0, 0.5, 0.5, 0.5, 0.1, i < accepted, True) for i in range(accepted + 1)]
    step.emitted = [EmittedToken(1, "a", TokenKind.ACCEPTED)] * accepted + [EmittedToken(4, "b", TokenKind.RECOVERED)]
    assert f"Drafted a tree of 3 nodes, {english} 1 recovered token ↻: {accepted + 1} new token" in step_headline(step)
    assert "a path of 0" not in step_headline(step)
    with using("pt"):
        assert f"Rascunhou uma árvore de 3 nós, {portuguese} 1 token recuperado ↻" in step_headline(step)


def test_a_phone_reads_the_tree_as_a_list_and_a_wide_screen_sees_it_drawn():
    """Issue 42 item 5: at 390 px a deep tree's labels overlapped. The step shows the drawn tree in one container
    and a list (the accepted path, then every node by depth with its verdict and parent) in another; the app's CSS
    shows exactly one of them by the screen's width."""
    from specviz.ui.common.accessibility import CSS, TREE_NARROW, TREE_WIDE
    from specviz.ui.common.tree_figures import tree_list

    step = evil_tree_step()
    text = tree_list(step)
    assert text.startswith(f"**{tree_title(step)}**")
    for j, node in enumerate(step.tree.nodes):  # every node, once, with its glyph and its depth's line
        assert f"{style(node_kind(node)).glyph} #{j + 1} " in text
    assert "<" not in text.replace("&lt;", "")  # token text escaped: no tag reaches the page
    assert f'@media (max-width: 640px) {{ [class*="_{TREE_WIDE}_"] {{display:none' in CSS
    assert f'@media (min-width: 641px) {{ [class*="_{TREE_NARROW}_"] {{display:none' in CSS


def test_the_tree_charts_accessible_name_is_plain_text():
    """Issue 42 item 5: the tree chart's aria-label was built from the markdown title, so a screen reader met its
    escapes ('&lt;' read out as such). The name is the same sentence as plain text; `charts.show` escapes it once."""
    step = evil_tree_step()
    shown, plain = tree_title(step), tree_title(step, plain=True)
    assert "&lt;" in shown and "&lt;" not in plain and "<img" in plain  # escaped for markdown, never in a name
    assert plain.split(" · ")[0] == shown.split(" · ")[0]  # the same words


def test_the_lookup_mark_has_a_legend_chip_with_its_full_label():
    """Issue 42 item 5: ❐ alone looked like a missing glyph; it gets a chip and a label in both languages, and
    the caption that names p′(x) says what p′ is."""
    from specviz.ui.common.tree_figures import COPIED_MARK
    from specviz.ui.common.tree_view import TEXT, copied_legend

    for lang, label in (("en", "copied from the context (no model drafted it)"),
                        ("pt", "copiado do contexto (nenhum modelo o rascunhou)")):
        with using(lang):
            chip = copied_legend()
        assert f"{COPIED_MARK}&nbsp;tok</span>" in chip and label in chip
    assert "where p′ is p at its parent after the siblings tried before it were rejected" in TEXT["copied"]


def test_tree_rows_are_depth_first_not_drafting_order():
    """tree_positions once said leaves take rows "in drafting order": a leaf drafted late under the first child
    (node 2) sits above an earlier leaf under the second (node 1), depth first, as its docstring now says."""
    record = TreeRecord([TreeNode(7, "a", -1, 1, 0.5, 0.6, "accepted", 0.2, 1.0),
                         TreeNode(8, "b", -1, 1, 0.3, 0.1, "not reached"),
                         TreeNode(9, "c", 0, 2, 0.4, 0.2, "rejected", 0.9, 0.5)], path=[0])
    rows = [row for _column, row in tree_positions(record)]
    assert rows[3] < rows[2]  # c (drafted third, under a) above b (drafted second)


@pytest.mark.parametrize("lang, rescaled, old", [("en", "rescaled to add up to 1", "minus what the siblings"),
                                                 ("pt", "renormalizada para somar 1", "menos o que os irmãos")])
def test_a_tree_nodes_sentence_gives_p_prime_rescaled_as_the_rule_uses_it(lang, rescaled, old):
    """43rd read: the revealed tree step said "p′ is p at its parent minus what the siblings tried before it took".
    The rule's p′ is that remainder rescaled to add up to 1 (`verify_tree`'s example: after child 0 is rejected,
    p − min(p, q) gives token 1 just 0.1, and child 1 is kept with 0.25), so a reader working the chance from the
    sentence got 0.1."""
    import torch

    from specviz.engine.tree import DraftTree
    from specviz.engine.tree_verifier import verify_tree
    from specviz.engine.trace import Decision
    from specviz.ui.common.step_view import _position_sentence

    p = torch.tensor([[0.1, 0.6, 0.3], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    q = torch.tensor([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    result = verify_tree(p, DraftTree([0, 1], [ROOT, ROOT], q), uniforms=[0.5, 0.1])
    left = float((p[0] - torch.minimum(p[0], q[0]))[1])  # what "p minus what the sibling took" leaves token 1
    assert result.accept_probs[1] == pytest.approx(0.25) and left == pytest.approx(0.1)
    node = Decision(0, 1, "b", 0.5, 0.6, 1.2, result.accept_probs[1], 0.1, True, True)
    with using(lang):
        sentence = _position_sentence(node, tree=True)
    assert rescaled in sentence and old not in sentence and ("0.250" if lang == "en" else "0,250") in sentence


@pytest.mark.parametrize("lang, said, old", [("en", "a child taken from the draft's top tokens",
                                              "the draft's top token "),
                                             ("pt", "tirado dos tokens do topo do rascunho", "token mais provável")])
def test_a_tree_nodes_sentence_says_any_top_k_child_is_a_point_mass(lang, said, old):
    """Read 46: the sentence said q′ is "a point mass for a child taken as the draft's top token", but a greedy tree's
    every child is a point mass, the second one the draft's second most likely token (`TreeNode.point_mass`; the
    hover says "a top-k child, not drawn from q")."""
    from specviz.engine.trace import Decision
    from specviz.ui.common.step_view import _position_sentence

    node = Decision(0, 1, "b", 0.0, 0.3, 0.0, 0.3, 0.1, True, True)  # a second child: q(x) = 0, kept with p′(x)
    with using(lang):
        sentence = _position_sentence(node, tree=True)
    assert said in sentence and old not in sentence


def test_a_node_with_p_and_q_both_0_has_no_ratio_not_infinity():
    """43rd read: in a greedy tree a second child is drafted with q = 0 and often has p = 0 at its parent too; its
    table row and hover read "p/q = ∞", a value 0/0 does not have. A node with q = 0 < p still reads ∞."""
    record = TreeRecord([TreeNode(7, "a", ROOT, 1, 1.0, 1.0, "accepted", 0.2, 1.0),
                         TreeNode(8, "b", ROOT, 1, 0.0, 0.0, "not reached"),
                         TreeNode(9, "c", 0, 2, 0.0, 1.0, "accepted", 0.5, 1.0)], path=[0, 2])
    from specviz.ui.common.tree_figures import tree_rows

    rows = tree_rows(record)
    assert [row["p/q"] for row in rows] == ["1.000", "–", "∞"]
    step = Step(index=0, context_length=3, k=2, proposer="draft", decisions=[], emitted=[], tree=record)
    hovers = [chip.hovertext for chip in tree_figure(step).layout.annotations[1:]]
    assert "p/q = –" in hovers[1] and "∞" not in hovers[1] and "p/q = ∞" in hovers[2]


@pytest.mark.parametrize("lang, said", [("en", "The main line: each node kept if u (◆) lands inside its bar"),
                                        ("pt", "A linha principal: cada nó mantido se u (◆) cair dentro da sua barra")])
def test_a_tree_steps_verdict_chart_is_titled_by_its_main_line_not_every_draft(lang, said):
    """43rd read: a tree step's verdict chart has a bar for each node of its main line (the accepted path and the
    node rejected below it), 3 bars for a tree of 8 nodes, under the title "Every draft: kept if u (◆) lands inside
    its bar". A chain step keeps that title: there every draft has its bar."""
    from specviz.runs.running import run
    from specviz.ui.common.step_figures import verdict_overview_figure

    trace = run(RunSpec(pair="toy", proposer="draft", prompt="the cat sat", chat=False, k=3, tree_nodes=8,
                        tree_width=3, max_new_tokens=20, temperature=1.0, seed=2))
    step = next(s for s in trace.steps if s.tree is not None and s.tree.nodes and s.decisions)
    assert len(step.decisions) < len(step.tree.nodes)
    with using(lang):
        shown = verdict_overview_figure(step).layout.title.text.replace("<br>", " ")
    assert shown == said and "Every draft" not in shown


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_the_main_line_names_each_node_by_its_number_in_the_tree():
    """Read 43, in a browser: a tree step's main line numbered its nodes by depth, so the rejected node the tree
    draws as #3 (a child of #1) was "#2" in the main line's chart, its table, its chips and "Look closely at draft",
    while the tree's own #2 was another node, never tested. Every main-line label now names the tree's node."""
    from specviz.runs.running import run
    from specviz.ui.common.step_figures import distribution_figure, verdict_overview_figure, verdict_overview_table
    from specviz.ui.common.tokens import decision_chips, draft_numbers

    trace = run(RunSpec(pair="toy", proposer="draft", k=3, tree_nodes=8, tree_width=2, max_new_tokens=48,
                        temperature=0.0))
    renumbered = 0
    for step in (s for s in trace.steps if s.tree is not None and s.tree.nodes and s.decisions):
        nodes, numbers = step.tree.nodes, draft_numbers(step)
        assert [nodes[n - 1].text for n in numbers] == [d.text for d in step.decisions]
        assert [nodes[n - 1].status for n in numbers[:len(step.tree.path)]] == ["accepted"] * len(step.tree.path)
        assert all(nodes[n - 1].status == "rejected" for n in numbers[len(step.tree.path):])
        labels = [f"#{n} " for n in numbers]
        assert [x[:len(lab)] for x, lab in zip(verdict_overview_figure(step).data[0].x, labels)] == labels
        assert [x.startswith(lab) for x, lab in zip(verdict_overview_table(step).iloc[:, 0], labels)] == \
            [True] * len(labels)
        chips = decision_chips(step)
        assert all(f"draft #{n}:" in chips for n in numbers)
        last = step.decisions[-1]
        assert f"Draft #{numbers[-1]}:" in distribution_figure(last, number=numbers[-1]).layout.title.text
        renumbered += numbers != [d.position + 1 for d in step.decisions]
    assert renumbered, "no step whose main line numbers differ from its depths: the check above tested nothing new"


def test_a_point_mass_node_shows_the_q_the_rule_used_in_the_hover_table_and_chips():
    """Read 44: a greedy tree's second child (the draft's q(x) = 0) read "q (draft) = 0.000", "p/q = ∞" in the tree's
    hover and table and in the main line's chips, though the rule tests it against a point mass and keeps it with
    p′(x). They now show q = 1 (a point mass) and p/q = p, and say the draft's own q(x)."""
    from specviz.engine.trace import Decision
    from specviz.ui.common.step_figures import verdict_overview_figure
    from specviz.ui.common.tokens import decision_chips
    from specviz.ui.common.tree_figures import tree_rows

    nodes = [TreeNode(1, "a", ROOT, 1, 1.0, 0.0, "rejected", 0.5, 0.0, point_mass=True),
             TreeNode(2, "b", ROOT, 1, 0.0, 1.0, "accepted", 0.4, 1.0, point_mass=True)]
    decisions = [Decision(0, 2, "b", 0.0, 1.0, float("inf"), 1.0, 0.4, True, True)]
    step = Step(0, 3, 1, "draft", decisions, [EmittedToken(2, "b", TokenKind.ACCEPTED, 1.0, 0.0, 0.4),
                                              EmittedToken(4, "d", TokenKind.BONUS)], tree=TreeRecord(nodes, [1]))
    rows = tree_rows(step.tree)
    assert [(row["q"], row["p/q"]) for row in rows] == [("1 (point mass)", "0"), ("1 (point mass)", "1.000")]
    hover = tree_figure(step).to_plotly_json()["layout"]["annotations"][2]["hovertext"]
    assert "not drawn from q: the rule takes q as a point mass (the draft gave it q(x) = 0)" in hover, hover
    assert "p/q = 1.000" in hover and "∞" not in hover, hover
    # read 44 review: the q line called the rule's point mass the draft's, under "the draft gave it q(x) = 0.000"
    assert "q = 1 (point mass) · p (target) = 1.000" in hover and "q (draft) = 1" not in hover, hover
    chips = decision_chips(step)
    assert "q = 1, a point mass (a top-k child, not drawn from q; the draft gave it q(x) = 0)" in chips
    assert "p/q = ∞" not in chips
    bars = verdict_overview_figure(step).to_plotly_json()["data"][0]["customdata"][0]
    assert list(bars[1:3]) == ["1 (point mass)", "1.000"]
    with using("pt"):
        assert tree_rows(step.tree)[1]["q"] == "1 (massa pontual)"


def test_a_nodes_p_is_written_apart_from_the_q_the_rule_used_in_the_hover_and_table():
    """Read 47: a copied node with p = 0.9997 read "q = 1.000 (point mass) · p (target) = 1.000" beside
    "p/q = 0.9997" in the tree's hover and table (and a drafted node with p = 0.9997, q = 0.99999 read "1.000" twice),
    where the chain's hover writes them apart since read 46. Both now take the decimals that tell p from q. Read 52:
    that gave the copy's point mass "1.0000 (point mass)" among rows of "1.000 (point mass)"; a point mass is now
    written exactly, "1 (point mass)", in every row, as the CLI writes it."""
    from specviz.ui.common.tree_figures import tree_rows

    nodes = [TreeNode(1, "a", ROOT, 1, 0.2, 0.9997, "accepted", 0.5, 0.9997, copied=True),
             TreeNode(2, "b", 0, 2, 0.99999, 0.9997, "accepted", 0.3, 0.9997)]
    step = Step(0, 3, 2, "draft", [], [], tree=TreeRecord(nodes, [0, 1]))
    rows = tree_rows(step.tree)
    assert [(row["q"], row["p"], row["p/q"]) for row in rows] == [("1 (point mass)", "0.9997", "0.9997"),
                                                                   ("1.0000", "0.9997", "0.9997")]
    hovers = [a["hovertext"] for a in tree_figure(step).to_plotly_json()["layout"]["annotations"] if "hovertext" in a]
    assert any("q = 1 (point mass) · p (target) = 0.9997" in h for h in hovers), hovers
    assert any("q (draft) = 1.0000 · p (target) = 0.9997" in h for h in hovers), hovers
    with using("pt"):
        assert tree_rows(step.tree)[0]["p"] == "0,9997"


def test_a_tree_steps_chips_and_charts_walk_its_main_line_once(monkeypatch):
    """Read 45: decision_chips walked a tree step's main line twice (draft_numbers, then main_line_nodes), and each
    accepted token's tooltip walked it again (step_tooltip), so emitted_chips and trace_view scanned the tree once per
    kept token. Each now walks it once per step; the chips and tooltips are unchanged (the tests above)."""
    from specviz.engine.trace import Step
    from specviz.runs.running import run
    from specviz.ui.common import tokens
    from specviz.ui.common.step_figures import verdict_overview_figure

    trace = run(RunSpec(pair="toy", proposer="draft", prompt="the cat sat", chat=False, k=3, tree_nodes=8,
                        tree_width=3, max_new_tokens=40, temperature=0.0, seed=2))
    at, step = next((i, s) for i, s in enumerate(trace.steps) if s.tree is not None and s.n_accepted >= 2)
    walk, calls = Step.main_line, []
    monkeypatch.setattr(Step, "main_line", lambda self: calls.append(self.index) or walk(self))
    shown = {}
    for name, draw in [("decision_chips", lambda: tokens.decision_chips(step)),
                       ("emitted_chips", lambda: tokens.emitted_chips(step)),
                       ("trace_view", lambda: tokens.trace_view(trace, at + 1).groups[-1][1]),
                       ("verdict_overview_figure", lambda: verdict_overview_figure(step))]:
        calls.clear()
        shown[name] = draw()
        assert calls.count(step.index) == 1, (name, calls)
    kept = [tokens.tree_chance_line(tokens.fmt(d.accept_prob), node)
            for d, node in zip(step.decisions[:step.n_accepted], tokens.main_line_nodes(step))]
    assert len(kept) >= 2 and all(line in shown["emitted_chips"] for line in kept)  # the tooltips still say it


def test_the_copied_caption_says_the_output_follows_the_targets_distribution():
    """Read 45: "the output is still exactly the target's" read as the target's own tokens, which sampling does not
    give (the random draws differ); the rule keeps the output's distribution the target's."""
    from specviz.core.i18n import _, using
    from specviz.ui.common.tree_view import TEXT

    assert "output still follows the target's distribution exactly" in _(TEXT["copied"], mark="❐")
    with using("pt"):
        assert "a saída continua seguindo exatamente a distribuição do alvo" in _(TEXT["copied"], mark="❐")


def test_the_main_line_caption_allows_a_step_with_no_rejected_node():
    """Read 45: "the accepted path and the first node rejected below it" read wrong on a bonus step, whose kept path
    reaches a leaf with no node rejected below it."""
    from specviz.core.i18n import _, using
    from specviz.ui.common.tree_view import TEXT

    assert "the accepted path and, if one was rejected, the first node rejected below it" in _(TEXT["main_line"])
    with using("pt"):
        assert "o caminho aceito e, se algum foi rejeitado, o primeiro nó rejeitado" in _(TEXT["main_line"])


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_point_mass_drafts_distribution_chart_draws_the_q_the_rule_used(lang):
    """Read 48: the step panel's p-and-q chart drew the draft's whole q beside a top-k child at T = 0.7, which the
    rule tests against a point mass q′ = δ_x (kept with p′(x), not min(1, p(x)/q(x))): the orange bars read as the
    q of min(1, p/q). For such a node q is now drawn as that point mass, 1 on the drafted token, and named so; a
    chain draft drawn from q keeps the draft's q."""
    from specviz.engine.trace import Decision, TokenProb
    from specviz.ui.common.step_figures import distribution_figure, distribution_table

    draft_top = [TokenProb(1, "a", 0.6), TokenProb(2, "b", 0.3), TokenProb(3, "c", 0.1)]
    target_top = [TokenProb(1, "a", 0.2), TokenProb(2, "b", 0.7), TokenProb(3, "c", 0.1)]
    # the second child tried, "b": the first ("a") was rejected, so the rule keeps "b" with p′(b) = 0.7 / 0.8
    d = Decision(0, 2, "b", 0.3, 0.7, 0.7 / 0.3, 0.875, 0.5, True, True, target_top=target_top, draft_top=draft_top)
    node = TreeNode(2, "b", ROOT, 1, 0.3, 0.7, "accepted", 0.5, 0.875, point_mass=True)
    with using(lang):
        name = "q como a regra o usou (uma massa pontual)" if lang == "pt" else "q as the rule used it (a point mass)"
        bars = {t.name: dict(zip(t.y, t.x)) for t in distribution_figure(d, node=node).data}
        assert bars[name] == {"a": 0.0, "b": 1.0, "c": 0.0}
        table = distribution_table(d, node=node).set_index(distribution_table(d, node=node).columns[0])
        gave = "o rascunho lhe deu q(x) = 0,300" if lang == "pt" else "the draft gave it q(x) = 0.300"
        assert gave in table.loc["b", name] and table.loc["a", name] == "0"
        drawn = {t.name: dict(zip(t.y, t.x)) for t in distribution_figure(d).data}  # a chain draft drawn from q
        assert drawn["q (rascunho)" if lang == "pt" else "q (draft)"] == {"a": 0.6, "b": 0.3, "c": 0.1}
    from specviz.labs.examples import load_example

    ngram = next(d for s in load_example("smollm-ngram-t07")[0].steps for d in s.decisions if d.reached)
    bars = {t.name: dict(zip(t.y, t.x)) for t in distribution_figure(ngram).data}["q (draft)"]
    assert sorted(bars.values())[-2:] == [0.0, 1.0] and sum(bars.values()) == 1.0  # n-gram lookup: a point mass


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_copied_token_on_the_main_line_is_not_said_to_have_a_drafts_q(lang):
    """Read 49: on a live toy tree with a lookup branch (K 4, 6 nodes, width 2, lookup 4, T 0, "abc abc abc abc abc
    abc"), step 6 kept two copied tokens, and their chip hover and p-and-q chart said "a point mass (copied from the
    context; the draft gave it q(x) = 1.000)": no drafter scored them, the 1 is `graft_copy`'s point mass. A top-k
    child still says what the draft gave it."""
    from specviz.runs.running import run
    from specviz.ui.common.step_figures import distribution_table
    from specviz.ui.common.tokens import decision_chips, main_line_view

    trace = run(RunSpec(pair="toy", proposer="draft", prompt="abc abc abc abc abc abc", chat=False, k=4,
                        temperature=0.0, tree_nodes=6, tree_width=2, tree_lookup=4, max_new_tokens=32))
    step = next(s for s in trace.steps if s.n_copied_accepted)
    numbers, nodes = main_line_view(step)
    copied = next(i for i, node in enumerate(nodes) if node.copied)
    drafted = next(i for i, node in enumerate(nodes) if not node.copied)
    assert nodes[copied].draft_prob == 1.0  # recorded as the point mass, whatever the drafter would have said
    with using(lang):
        gave = "o rascunho lhe deu" if lang == "pt" else "the draft gave it"
        none = "nenhum modelo o rascunhou" if lang == "pt" else "no model drafted it"
        chips = decision_chips(step).split("<span")
        said = {i: next(c for c in chips if f"#{numbers[i]}:" in c) for i in (copied, drafted)}
        assert gave not in said[copied] and none in said[copied], said[copied]
        assert gave in said[drafted]
        for i, expected, absent in ((copied, none, gave), (drafted, gave, none)):
            table = distribution_table(step.decisions[i], node=nodes[i])
            cell = " ".join(table.iloc[:, 2].tolist())
            assert expected in cell and absent not in cell, cell


def test_a_point_mass_nodes_chance_and_u_have_the_chips_decimals_everywhere():
    """Read 48: the step's sentence, the coin-flip table and the overview table chose their decimals with the draft's
    q(x) = 0.0421 beside p = 0.0420, where the rule (and the chip, with q = 1) needs 3: "0.0420" there, "0.042" in
    the chip, for one copied node's chance."""
    from specviz.engine.trace import Decision
    from specviz.ui.common.step_figures import accept_strip_table, verdict_overview_table
    from specviz.ui.common.step_view import _position_sentence
    from specviz.ui.common.tokens import decision_numbers, decision_tooltip

    node = TreeNode(7, "a", ROOT, 1, 0.0421, 0.0420, "accepted", 0.0123, 0.0420, copied=True)
    d = Decision(0, 7, "a", 0.0421, 0.0420, 0.0420 / 0.0421, 0.0420, 0.0123, True, True)
    step = Step(0, 5, 2, "ngram", [d], [EmittedToken(7, "a", TokenKind.ACCEPTED)], tree=TreeRecord([node], path=[0]))
    shown = decision_numbers(d, node)
    assert (shown.chance, shown.u) == ("0.042", "0.012") != (decision_numbers(d).chance, decision_numbers(d).u)
    assert f"u = {shown.u} < {shown.chance}" in decision_tooltip(d, True, 1, node)
    sentence = _position_sentence(d, tree=True, node=node)
    assert f"probability {shown.chance}." in sentence and f"u = {shown.u} fell" in sentence, sentence
    assert accept_strip_table(d, tree=True, node=node).iloc[:, 1].tolist() == [shown.chance, shown.u]
    row = verdict_overview_table(step).loc[0, ["min(1, p′/q′)", "u"]].tolist()
    assert row == [shown.chance, shown.u], row


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_point_mass_q_reads_0_off_the_drafted_token_beside_a_full_draft_list(lang):
    """Read 48 review: with the q the rule used drawn as a point mass, a token the target's top 10 held but the
    draft's full top 10 did not read "below the draft's top 10" in the hover and the table, beside a bar at 0; under
    the point mass q′ = δ_x that q is exactly 0."""
    from specviz.engine.trace import Decision, TokenProb
    from specviz.ui.common.step_figures import distribution_table

    draft_top = [TokenProb(i, f"d{i}", 0.1) for i in range(1, 11)]  # a full top 10: it leaves tokens out
    target_top = [TokenProb(2, "d2", 0.5), TokenProb(20, "t20", 0.4)]
    d = Decision(0, 2, "d2", 0.1, 0.5, 5.0, 0.5, 0.2, True, True, target_top=target_top, draft_top=draft_top)
    node = TreeNode(2, "d2", ROOT, 1, 0.1, 0.5, "accepted", 0.2, 0.5, point_mass=True)
    with using(lang):
        table = distribution_table(d, node=node)
        table = table.set_index(table.columns[0])
        q_name = table.columns[1]
        assert table.loc["t20", q_name] == "0", table
        below = "abaixo dos 10 mais prováveis do rascunho" if lang == "pt" else "below the draft's top 10"
        assert not table[q_name].str.contains(below).any()
        assert below in distribution_table(d).set_index(table.index.name).loc["t20"].iloc[1]  # the draft's own q


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_copied_token_on_the_main_line_is_named_a_copy_not_a_draft(lang):
    """Read 49: a main line that ran into the lookup branch called its copies drafts: "draft #3:" in the chip hover,
    "Draft #3: p and q, top tokens" and "✓ drafted" on the chart, "✓ drafted (accepted)" in its table, a "drafted
    token" column, "Look closely at draft", and the player's "No mark: a draft the target kept", though a kept copy
    is unmarked too and no model drafted it. A drafted node keeps its name."""
    from specviz.engine.trace import Decision, Trace
    from specviz.ui.common.step_figures import distribution_figure, distribution_table, verdict_overview_table
    from specviz.ui.common.step_view import look_closely_label
    from specviz.ui.common.tokens import decision_chips, main_line_view
    from specviz.ui.playground.player import output_note

    nodes = [TreeNode(1, "a", ROOT, 1, 0.5, 0.6, "accepted", 0.2, 1.0),
             TreeNode(3, "c", ROOT, 1, 0.4, 0.2, "not reached"),
             TreeNode(5, "e", 0, 2, 1.0, 0.7, "accepted", 0.3, 0.7, copied=True)]
    decisions = [Decision(0, 1, "a", 0.5, 0.6, 1.2, 1.0, 0.2, True, True),
                 Decision(1, 5, "e", 1.0, 0.7, 0.7, 0.7, 0.3, True, True)]
    step = Step(0, 3, 3, "draft", decisions, [EmittedToken(1, "a", TokenKind.ACCEPTED),
                                              EmittedToken(5, "e", TokenKind.ACCEPTED),
                                              EmittedToken(7, "g", TokenKind.BONUS)],
                correction_kind=TokenKind.BONUS, tree=TreeRecord(nodes, [0, 2]))
    numbers, line = main_line_view(step)
    assert numbers == [1, 3] and [n.copied for n in line] == [False, True]
    chain = Step(0, 3, 1, "draft", decisions[:1], [EmittedToken(1, "a", TokenKind.ACCEPTED)])
    with using(lang):
        pt = lang == "pt"
        copy, draft = ("token copiado #3", "palpite #1") if pt else ("copied token #3", "draft #1")
        chips = decision_chips(step)
        assert f"{copy}: e" in chips and f"{draft}: a" in chips and ("palpite #3" if pt else "draft #3") not in chips
        hidden = decision_chips(step, revealed=False)
        assert f"{copy}: e" in hidden and f"{draft}: a" in hidden
        fig = distribution_figure(decisions[1], number=3, node=line[1]).to_plotly_json()["layout"]
        assert fig["title"]["text"].replace("<br>", " ").startswith(
            "Token copiado #3: p e q" if pt else "Copied token #3: p and q"), fig["title"]
        assert [a["text"] for a in fig["annotations"]] == ["✓ copiado" if pt else "✓ copied"]
        marks = distribution_table(decisions[1], node=line[1]).iloc[:, -1].tolist()
        assert ("✓ copiado (aceito)" if pt else "✓ copied (accepted)") in marks, marks
        drafted = distribution_figure(decisions[0], number=1, node=line[0]).to_plotly_json()["layout"]
        assert [a["text"] for a in drafted["annotations"]] == ["✓ rascunhado" if pt else "✓ drafted"]
        assert verdict_overview_table(step).columns[0] == ("token rascunhado ou copiado" if pt else
                                                           "drafted or copied token")
        assert verdict_overview_table(chain).columns[0] == ("token rascunhado" if pt else "drafted token")
        assert look_closely_label(line) == ("Olhe de perto um token rascunhado ou copiado" if pt else
                                            "Look closely at a drafted or copied token")
        assert look_closely_label([None]) == ("Olhe de perto o palpite" if pt else "Look closely at draft")
        copied = Trace("speculative", {}, [9], [1, 5, 7], [step])
        plain = Trace("speculative", {}, [9], [1], [chain])
        for done in (True, False):
            said = output_note(copied, done)
            assert ("token rascunhado ou copiado" if pt else "drafted or copied token") in said, said
            assert ("copiado" if pt else "copied") not in output_note(plain, done)


@pytest.mark.slow  # a live toy run with a tree (about 1 s)
def test_a_main_line_child_tried_after_a_rejected_sibling_shows_p_and_q_primed_in_the_step_panel():
    """Read 50: since read 49 the tree's hover, its table and the CLI give a child tried after a rejected sibling the
    p′, q′ and p′/q′ its rule compared, but the step panel did not: on the toy pair at T = 0.7 (seed 3, step 2) the
    main line's #2 'd' read "p (target) = 0.017 · q (draft) = 0.015 · p/q = 1.175" beside "min(1, p′/q′) = 0.317" in
    its chip's hover, the kept token's hover and the overview's hover, and the step's sentence gave no p′ or q′. They
    now give p′ = 0.013, q′ = 0.042 and p′/q′ = 0.317 (the trace's `target_prob_used`, `draft_prob_used`), the
    sentence its p and q before too; a trace that recorded no p′, q′ keeps the plain p, q and p/q."""
    import dataclasses

    from specviz.core.i18n import _
    from specviz.runs.running import run
    from specviz.ui.common import tree_figures
    from specviz.ui.common.step_figures import verdict_overview_figure
    from specviz.ui.common.step_view import _position_sentence
    from specviz.ui.common.tokens import decision_tooltip, main_line_view, step_tooltip
    from specviz.ui.common.tree_view import TEXT

    trace = run(RunSpec(pair="toy", proposer="draft", prompt="the cat sat on the mat. the cat sat on the", chat=False,
                        k=3, tree_nodes=8, tree_width=3, max_new_tokens=16, temperature=0.7, seed=3))
    step = trace.steps[1]
    numbers, nodes = main_line_view(step)
    d, node = step.decisions[0], nodes[0]
    first = step.tree.nodes[0]  # its sibling tried first, and rejected
    assert (numbers[0], node.text, first.status, node.status) == (2, "d", "rejected", "accepted")
    assert node.target_prob / node.draft_prob > 1 > node.accept_prob  # p/q 1.175, but kept with 0.317

    def overview(s):  # the bar's hover as Plotly writes it
        bar = verdict_overview_figure(s).data[0]
        text = bar.hovertemplate.replace("%{x}", bar.x[0])
        for i, value in enumerate(bar.customdata[0]):
            text = text.replace(f"%{{customdata[{i}]}}", str(value))
        return text.replace("<br>", "\n")

    for lang, primed, hovered, told, caption, chips in [
            ("en", "q′ = 0.04222 · p′ = 0.01339 (after the siblings tried before it were rejected)\np′/q′ = 0.317\n",
             "p′ = 0.01339, q′ = 0.04222\np′/q′ = 0.317\nmin(1, p′/q′) = 0.317",
             "p′ = 0.01339 and q′ = 0.04222, where p = 0.01710 and q = 0.01455 before those rejections, so p′/q′ = "
             "0.317 and it was kept with probability 0.317.",
             "a child tried after a rejected sibling is tested against p′, the residual the siblings tried before it "
             "left, and q′, the draft's q without them (or a point mass)",
             "for a node tried after a rejected sibling, p′, q′ and p′/q′"),
            ("pt", "q′ = 0,04222 · p′ = 0,01339 (depois que os irmãos tentados antes dele foram rejeitados)\n"
                   "p′/q′ = 0,317\n",
             "p′ = 0,01339, q′ = 0,04222\np′/q′ = 0,317\nmin(1, p′/q′) = 0,317",
             "p′ = 0,01339 e q′ = 0,04222, em que p = 0,01710 e q = 0,01455 antes dessas rejeições, então p′/q′ = "
             "0,317 e ele foi mantido com probabilidade 0,317.",
             "um filho tentado depois de um irmão rejeitado é testado contra p′, a distribuição residual que os "
             "irmãos tentados antes dele deixaram, e q′, o q do rascunho sem eles (ou uma massa pontual)",
             "para um nó tentado depois de um irmão rejeitado, p′, q′ e p′/q′")]:
        with using(lang):
            for tip in (decision_tooltip(d, True, numbers[0], node), step_tooltip(step.emitted[0], step, 0)):
                assert primed in tip and "1,175" not in tip and "1.175" not in tip, tip
                assert "0.017" not in tip and "0,017" not in tip, tip
                assert "residua" not in tip, tip  # read 51: q′ is no residual (q without the siblings tried before it)
            tree_hover = tree_figures._hover(numbers[0] - 1, node)  # the drawn tree's node says the same
            assert primed.split("\n")[0] in tree_hover and "residua" not in tree_hover, tree_hover
            assert hovered in overview(step), overview(step)
            assert told in _position_sentence(d, tree=True, node=node)
            assert caption in _(TEXT["read_tree"]) and chips in _(TEXT["main_line"])
    # a trace written before read 49 records no p′, q′: its numbers stay p, q and p/q
    old = dataclasses.replace(node, target_prob_used=None, draft_prob_used=None)
    bare = dataclasses.replace(step, tree=TreeRecord([first, old, *step.tree.nodes[2:]], step.tree.path))
    tip = decision_tooltip(d, True, numbers[0], old)
    # read 52: p and q with the decimals p/q needs (0.017 / 0.015 is 1.133; 0.01710 / 0.01455 is 1.175)
    assert "p (target) = 0.01710\nq (draft) = 0.01455\np/q = 1.175\nmin(1, p′/q′) = 0.317" in tip
    assert "q′ =" not in tip and "p = 0.01710, q = 0.01455\np/q = 1.175" in overview(bare)
    assert "p′ =" not in _position_sentence(d, tree=True, node=old)


@pytest.mark.parametrize("lang, said", [
    ("en", "above 0, each level gets an even share of the nodes still left, so the tree can reach depth K (N = 8, "
           "K = 4: at most 2 nodes a level)"),
    ("pt_BR", "acima de 0, cada nível recebe uma parte igual dos nós que ainda restam, para que a árvore possa chegar "
              "à profundidade K (N = 8; K = 4: no máximo 2 nós por nível)")])
def test_the_width_help_says_how_a_sampled_tree_spreads_its_nodes_over_the_levels(lang, said):
    """Read 51: the width's help said only "at most W × W nodes, within the tree's N nodes and its depth K", and a
    live toy tree of N = 8, K = 4, W = 2 at T = 0.7 drew 2 nodes a level, one parent expanded, where the help led a
    reader to expect 4 at level 2. The help now says each level gets an even share; the code does."""
    import torch

    from specviz.core.i18n import _
    from specviz.engine.tree import grow_tree
    from specviz.runs.runspec import SETTINGS

    with using(lang):
        assert said in " ".join(_(SETTINGS["tree_width"].help).split())
    table = torch.randn(500, 40, generator=torch.Generator().manual_seed(1))
    tree = grow_tree(lambda tree, nodes: table[[n + 1 for n in nodes]], max_nodes=8, max_depth=4, width=3,
                     probs=lambda row: row.softmax(-1), sampled=True, generator=torch.Generator().manual_seed(0))
    depth = {}
    for j, parent in enumerate(tree.parents):
        depth[j] = 0 if parent < 0 else depth[parent] + 1
    assert [sum(d == level for d in depth.values()) for level in range(4)] == [2, 2, 2, 2]


def test_the_copied_caption_says_a_copy_follows_a_drafted_path_it_starts_like():
    """Read 51: a live toy tree (N = 8, K = 4, W = 2, lookup 3, T = 0.7, seed 3, step 5) copied 3 tokens whose first a
    drafted node (#1) already held: its 2 ❐ nodes hung below #1, and the caption said the branch was the tokens that
    followed the match, all of them. It now says a copy follows a drafted path it starts like."""
    import torch

    from specviz.core.i18n import _
    from specviz.engine.tree import DraftTree, graft_copy
    from specviz.ui.common.tree_view import TEXT

    tree = DraftTree([7, 8], [ROOT, ROOT], torch.zeros(2, 10), sampled=False)
    grown = graft_copy(tree, [7, 9, 3], vocab_size=10)
    assert grown.parents[2:] == [0, 2] and grown.copied == [False, False, True, True]  # below drafted #1, not root
    assert ("Where the copy starts as a drafted path does, it follows those drafted nodes, and only the rest hangs "
            "below them, each copied token marked ❐.") in _(TEXT["copied"], mark="❐")  # read 52: no "❐ nodes"
    with using("pt_BR"):
        assert ("Onde a cópia começa como um caminho rascunhado, ela segue esses nós rascunhados, e só o resto fica "
                "pendurado abaixo deles, cada token copiado marcado com ❐.") in _(TEXT["copied"], mark="❐")


def test_the_lookup_inputs_help_says_a_copy_follows_a_drafted_path_it_starts_like():
    """Read 51: the lookup branch's input help, like the tree's ❐ caption, said nothing of a copy whose first tokens
    a drafted path already holds (`graft_copy` follows those nodes and adds only the rest)."""
    from specviz.scripts.i18n import PO, read_catalog

    (help_,) = [m for m in read_catalog(PO) if isinstance(m.id, str)
                and m.id.startswith("The tree also gets one branch copied from the text so far")]
    assert "Where the copy starts as a drafted path does, it follows those nodes and adds only the rest." in help_.id
    assert ("Onde a cópia começa como um caminho rascunhado, ela segue esses nós e acrescenta só o resto."
            in help_.string)


def _two_level_step(later_child_kept: bool) -> Step:
    """A tree step whose main line is a first child 'a' (tested on its own p and q), then below it either its first
    child 'b' or 'c', tried after 'b' was rejected (tested on the residuals p′ = 0.2, q′ = 0.5)."""
    from specviz.engine.trace import Decision

    a = TreeNode(1, "a", ROOT, 1, 0.5, 0.4, "accepted", 0.3, 0.8, target_prob_used=0.4, draft_prob_used=0.5)
    b = TreeNode(2, "b", 0, 2, 0.6, 0.1, "rejected" if later_child_kept else "accepted", 0.9 if later_child_kept
                 else 0.1, 1 / 6, target_prob_used=0.1, draft_prob_used=0.6)
    c = TreeNode(3, "c", 0, 2, 0.3, 0.3, "accepted" if later_child_kept else "not reached",
                 *((0.2, 0.4, False, False, 0.2, 0.5) if later_child_kept else ()))
    kept = c if later_child_kept else b
    decisions = [Decision(0, 1, "a", 0.5, 0.4, 0.8, 0.8, 0.3, True, True),
                 Decision(1, kept.token_id, kept.text, kept.draft_prob, kept.target_prob,
                          kept.target_prob / kept.draft_prob, kept.accept_prob, kept.uniform, True, True)]
    emitted = [EmittedToken(1, "a", TokenKind.ACCEPTED), EmittedToken(kept.token_id, kept.text, TokenKind.ACCEPTED),
               EmittedToken(9, "z", TokenKind.BONUS)]
    return Step(0, 3, 2, "draft", decisions, emitted, tree=TreeRecord([a, b, c], [0, 2 if later_child_kept else 1]))


@pytest.mark.parametrize("lang, both", [("en", "min(1, p/q), or min(1, p′/q′) after a rejected sibling"),
                                        ("pt", "min(1, p/q), ou min(1, p′/q′) depois de um irmão rejeitado")])
def test_the_tree_overviews_chance_is_named_after_what_its_rows_show(lang, both):
    """Read 52: the overview's chance column and y axis read min(1, p′/q′) on every tree step, but a first child is
    tested with min(1, p/q) (its own p and q, as its hover says): p′ and q′ exist only after a rejected sibling. A
    main line of first children now reads min(1, p/q); one that holds both names both."""
    from specviz.ui.common.step_figures import verdict_overview_figure, verdict_overview_table

    firsts, mixed = _two_level_step(later_child_kept=False), _two_level_step(later_child_kept=True)
    with using(lang):
        assert list(verdict_overview_table(firsts).columns)[4] == "min(1, p/q)"
        assert verdict_overview_figure(firsts).layout.yaxis.title.text == "min(1, p/q)"
        assert list(verdict_overview_table(mixed).columns)[4] == both
        assert verdict_overview_figure(mixed).layout.yaxis.title.text.replace("<br>", " ") == both
        hovers = verdict_overview_figure(mixed).data[0].customdata
    assert [h[3].split(" = ")[0] for h in hovers] == ["min(1, p/q)", "min(1, p′/q′)"]  # each bar says which


@pytest.mark.parametrize("lang, first, later, old", [
    ("en", "No sibling before this token changed p and q, so it met p′ = p = 0.400 and q′ = q = 0.500: p/q = 0.800, "
           "and it was kept with probability min(1, p/q) = 0.800.",
     "This token was tried after a rejected sibling: p′ = 0.200 and q′ = 0.500",
     "p′ is what p at its parent leaves once the siblings tried before it were rejected"),
    ("pt", "Nenhum irmão antes deste token mudou p e q, então ele encontrou p′ = p = 0,400 e q′ = q = 0,500: "
           "p/q = 0,800, e ele foi mantido com probabilidade min(1, p/q) = 0,800.",
     "Este token foi tentado depois de um irmão rejeitado: p′ = 0,200 e q′ = 0,500",
     "p′ é o que resta do p no nó pai depois que os irmãos tentados antes dele foram rejeitados")])
def test_the_tree_step_sentence_tells_a_first_childs_rule_apart_from_a_later_childs(lang, first, later, old):
    """Read 52: the step sentence gave every tree child the later child's rule, "p′ is what p at its parent leaves
    once the siblings tried before it were rejected", of a first child too, which no sibling came before and which
    met p and q themselves (its strip and hover say min(1, p/q)). The rule now says both cases, and the next sentence
    which one this token met, with its numbers."""
    from specviz.ui.common.step_view import _position_sentence

    step = _two_level_step(later_child_kept=True)
    nodes = [step.tree.nodes[0], step.tree.nodes[2]]
    with using(lang):
        said = [_position_sentence(d, tree=True, node=node) for d, node in zip(step.decisions, nodes)]
    assert first in said[0] and later not in said[0], said[0]
    assert later in said[1] and first not in said[1], said[1]
    assert all(old not in s for s in said)
    rule = ("the first child tried meets p and q themselves; after each rejected sibling, p′ is the residual it left"
            if lang == "en" else "o primeiro filho tentado encontra os próprios p e q; depois de cada irmão rejeitado")
    assert all(rule in s for s in said)


@pytest.mark.parametrize("lang, mass", [("en", "1 (point mass)"), ("pt", "1 (massa pontual)")])
def test_a_tree_step_sentence_writes_a_point_mass_as_its_table_does(lang, mass):
    """Read 54: at temperature 0 the look-closely sentence of a tree node read "This token met p′ = p = 0 and q′ = q
    = 1 (no sibling before it changed them)", where the tree's table beside it wrote q = "1 (point mass)"; a copied
    token tried after a rejected sibling read "q′ = 1" too. Both now write the point mass as the table does."""
    from specviz.ui.common.step_view import _position_sentence

    from specviz.engine.trace import Decision

    greedy = TreeNode(1, "a", ROOT, 1, 1.0, 0.0, "rejected", 0.5, 0.0, point_mass=True, target_prob_used=0.0,
                      draft_prob_used=1.0)  # a greedy first child: tested on its own p = 0 and q = 1
    copy = TreeNode(2, "c", ROOT, 1, 1.0, 0.3, "rejected", 0.4, 0.0, copied=True, point_mass=True,
                    target_prob_used=0.0, draft_prob_used=1.0)  # a copy tried after a rejected sibling: p′ = 0
    d_greedy = Decision(0, 1, "a", 1.0, 0.0, 0.0, 0.0, 0.5, False, True)
    d_copy = Decision(0, 2, "c", 1.0, 0.3, 0.3, 0.0, 0.4, False, True)
    with using(lang):
        first = _position_sentence(d_greedy, tree=True, node=greedy)
        later = _position_sentence(d_copy, tree=True, node=copy)
    assert f"q′ = q = {mass}" in first and "q′ = q = 1 (" not in first.replace(mass, ""), first
    assert f"q′ = {mass}" in later and f"q = {mass}" in later, later
    assert mass + " (" not in first + later  # no parenthesis right after the point mass's own


def test_a_greedy_runs_p_of_1_is_a_point_mass_in_the_tree_and_the_output_hovers():
    """Read 53: at temperature 0 every p is a point mass on the target's top token, and the CLI writes it "p=1", but
    the tree's hover and table wrote a node's p = 1 as "1.000" (a node records no top list), and so did a recovered or
    bonus token's hover ("p (target) = 1.000"). They now write "1 (point mass)", as for q, in both languages; a run at
    temperature 1 keeps its numbers."""
    from specviz.runs.running import run
    from specviz.ui.common import tokens
    from specviz.ui.common.tree_figures import tree_rows

    trace = run(RunSpec(pair="toy", proposer="draft", prompt="the cat", chat=False, k=3, tree_nodes=6,
                        tree_width=2, max_new_tokens=12, temperature=0.0, seed=2))
    assert trace.greedy
    trees = [s for s in trace.steps if s.tree is not None and s.tree.nodes]
    kept = [(s, j) for s in trees for j, n in enumerate(s.tree.nodes) if n.target_prob == 1.0]
    assert kept, "no node with p = 1 in a greedy tree run"
    step, j = kept[0]
    for language, mass in (("en", "1 (point mass)"), ("pt", "1 (massa pontual)")):
        with using(language):
            assert tree_rows(step.tree)[j]["p"] in ("1.000", "1,000")  # no temperature given: the old text
            assert tree_rows(step.tree, greedy=True)[j]["p"] == mass
            assert tree_rows(step.tree, greedy=True)[j]["q"] == mass  # every greedy node is a point mass
            hover = tree_figure(step, greedy=True).layout.annotations[j + 1].hovertext
            assert f"= {mass}" in hover and "1.000 ·" not in hover and not hover.endswith("= 1.000"), hover
    ends = [(s, t) for s in trace.steps for t in s.emitted if t.kind in (TokenKind.RECOVERED, TokenKind.BONUS)]
    assert {t.kind for _s, t in ends} == {TokenKind.RECOVERED, TokenKind.BONUS}, ends
    for s, t in ends:
        assert t.target_prob == 1.0
        chips = tokens.emitted_chips(s, greedy=trace.greedy)
        assert escape_text("p (target) = 1 (point mass)", whitespace=False) in chips
        assert "p (target) = 1.000" not in chips
        # no temperature and no step given: the old text (read 55: with its step, a bonus token's p is written as its
        # chart's column writes it, "1 (point mass)" for a point mass whatever the temperature)
        assert "p (target) = 1.000" in tokens.emitted_tooltip(t, s.index, tree=True)
        assert "p (target) = 1 (point mass)" in tokens.emitted_tooltip(t, s.index, tree=True, greedy=True)
        with using("pt"):
            assert "p (alvo) = 1 (massa pontual)" in tokens.emitted_tooltip(t, s.index, tree=True, greedy=True)
    groups = "".join(chips for _i, chips in tokens.trace_view(trace).groups)  # the output's chips too
    assert "p (target) = 1.000" not in groups and escape_text("p (target) = 1 (point mass)", whitespace=False) in groups
    warm = run(RunSpec(pair="toy", proposer="draft", prompt="the cat", chat=False, k=3, tree_nodes=6, tree_width=2,
                       max_new_tokens=12, temperature=1.0, seed=2))
    assert not warm.greedy


def test_a_tree_step_with_copies_that_kept_nothing_says_no_copied_token_was_kept_either():
    """Read 53: a live toy run's tree step (6 nodes plus 3 tokens copied from the context, every root child
    rejected) read "accepted no draft token" over the title "accepted path: no node kept", which left open whether a
    copied token (no draft, no node) was kept; the KV note of the same step already said "no drafted or copied token
    was accepted"."""
    from specviz.engine.trace import Decision
    from specviz.ui.common.step_view import step_headline

    step = copied_tree_step()
    for node in step.tree.nodes:
        node.status = "rejected" if node.parent == ROOT else "not_reached"
    step.tree.path = []
    step.decisions = [Decision(0, 1, "a", 0.0, 0.5, 0.0, 0.0, 0.9, False, True)]
    step.emitted = [EmittedToken(7, "g", TokenKind.RECOVERED)]
    said = {"en": ("2 tokens copied from the context, accepted no drafted or copied token, then 1 recovered",
                   "accepted path: no drafted or copied token kept, then"),
            "pt": ("2 tokens copiados do contexto, não aceitou nenhum token rascunhado nem copiado, depois",
                   "nenhum token rascunhado ou copiado mantido")}
    for lang, (headline, title) in said.items():
        with using(lang):
            assert headline in step_headline(step), step_headline(step)
            assert title in tree_title(step), tree_title(step)
    plain = evil_tree_step()  # a tree with no lookup branch keeps its words: its nodes are all it drafted
    plain.decisions = [Decision(0, 1, "", 0.0, 0.5, 0.0, 0.0, 0.9, False, True)]
    plain.emitted = [EmittedToken(4, "b", TokenKind.RECOVERED)]
    plain.tree.path = []
    assert "accepted no draft token" in step_headline(plain)
    assert "accepted path: no node kept" in tree_title(plain)


def test_the_mask_marks_copied_tokens_and_does_not_call_them_nodes():
    """Read 53: a live toy tree with a lookup branch (6 nodes plus 3 copied tokens) drew its attention mask
    with rows "#7 j", "#8 e", "#9 j" under "node being scored", unmarked, where the tree list beside it writes
    "#7 ‘j’ ❐" and a copied token is no node (the glossary). Copies now carry ❐ in the mask's ticks and table,
    and its heading and caption name both."""
    from specviz.ui.common.tree_figures import COPIED_MARK
    from specviz.ui.common.tree_view import TEXT as TREE_TEXT

    step = copied_tree_step()
    table = mask_table(step.tree)
    assert table.columns[0] == "node or copied token being scored"
    assert table.iloc[:, 0].tolist() == ["root", "#1 a", "#2 c", f"#3 e {COPIED_MARK}", f"#4 f {COPIED_MARK}"]
    figure = mask_figure(step.tree).layout
    assert list(figure.xaxis.ticktext)[3:] == [f"#3 e {COPIED_MARK}", f"#4 f {COPIED_MARK}"]
    assert figure.yaxis.title.text == "node or copied token being scored"
    with using("pt"):
        assert mask_table(step.tree).columns[0] == "nó ou token copiado sendo avaliado"
    assert "node or copied token being scored" in TREE_TEXT["read_mask_copied"]
    plain = evil_tree_step()  # no lookup branch: every row is a drafted node, named as before
    assert mask_table(plain.tree).columns[0] == "node being scored"
    assert not any(COPIED_MARK in name for name in mask_table(plain.tree).iloc[:, 0])


def test_a_tree_with_copies_is_read_with_the_masks_copied_caption():
    """The rendered step's mask caption names copied tokens where the tree has them (read 53)."""

    def script():
        from specviz.ui.common.tree_view import render_tree
        from test_tree_view import copied_tree_step

        render_tree(copied_tree_step(), key="t")

    at = AppTest.from_function(script, default_timeout=30)
    at.run()
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert any(c.startswith("**How to read the mask:** row = the node or copied token being scored") for c in captions)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_greedy_trees_point_mass_draft_is_written_1_point_mass_where_the_draft_gave_it(lang):
    """Read 54: on a live toy greedy tree (T 0, 6 nodes, width 2), a node's hover, chip, output token and p-and-q
    table read "the draft gave it q(x) = 1.000", where the greedy draft's own q is a point mass on the token, which
    the chain hovers write "1 (point mass)". A sibling the draft gave 0 still reads 0."""
    from specviz.runs.running import run
    from specviz.ui.common.step_figures import distribution_table
    from specviz.ui.common.tokens import decision_chips, main_line_view, step_tooltip
    from specviz.ui.common.tree_figures import tree_figure

    trace = run(RunSpec(pair="toy", proposer="draft", prompt="abc abc abc abc", chat=False, k=4, temperature=0.0,
                        tree_nodes=6, tree_width=2, max_new_tokens=24))
    assert trace.greedy
    step = next(s for s in trace.steps if any(d.accepted and d.draft_prob == 1.0 for d in s.decisions))
    numbers, nodes = main_line_view(step)
    i = next(i for i, d in enumerate(step.decisions) if d.accepted and d.draft_prob == 1.0)
    with using(lang):
        gave = "o rascunho lhe deu q(x) =" if lang == "pt" else "the draft gave it q(x) ="
        mass = "1, também uma massa pontual" if lang == "pt" else "1, a point mass too"
        one = "1,000" if lang == "pt" else "1.000"
        hovers = " ".join(a.hovertext or "" for a in tree_figure(step, greedy=True).layout.annotations)
        chips = decision_chips(step)
        chip = next(c for c in chips.split("<span") if f"#{numbers[i]}:" in c)
        token = step_tooltip(step.emitted[i], step, i, greedy=True)  # the accepted prefix: emitted as decided
        cell = distribution_table(step.decisions[i], node=nodes[i]).iloc[:, 2].tolist()
        for said in (hovers, chip, token, " ".join(cell)):
            assert f"{gave} {mass}" in said and f"{gave} {one}" not in said, said
            assert "(" not in said.split(f"{gave} {mass}")[1][:2], said  # read 54: no bracket inside a bracket
        assert f"{gave} 0)" in hovers  # the greedy draft gave a sibling exactly 0
