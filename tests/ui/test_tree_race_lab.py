"""Draft trees on Timeline & race and in the Exactness lab, toy pair only: the race puts a tree lane next to the chain
lane with each lane's target forwards and tokens per forward; the Exactness lab's tree trap fails the chi-square
test where the exact tree rule passes, and says why in this run's numbers; both in Portuguese too."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
import torch
from streamlit.testing.v1 import AppTest

from i18n_check import english_sentences
from specviz.core.i18n import read_number, using
from specviz.labs.exactness import TREE_RULES
from specviz.labs.exactness.tree_lab import one_level_drift, one_level_samples
from specviz.ui.common.tokens import output_html
from specviz.ui.race import live as race_live, settings as race_settings
from specviz.ui.race.tree import CHAIN_LANE, TREE_LANE

ROOT = Path(__file__).resolve().parents[2]
RACE = dict(race_source="live", race_pair="toy", race_proposer="draft", race_k="3", race_max_new="16",
            race_temperature="0.0", race_seed="1", race_tree_nodes="8", race_tree_width="3")


def app(page: str, lang: str = "en", **query: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / f"{page}.py"), default_timeout=120)
    for key, value in {**query, "lang": lang}.items():
        at.query_params[key] = value
    with using(lang):
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


# ---- Timeline & race ----------------------------------------------------------------------------------------------


@pytest.mark.slow  # a warm-up and three rounds of three lanes on the toy pair: about 3 s
def test_the_race_puts_a_tree_lane_next_to_the_chain_lane(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = app("race", **RACE)
    assert not at.error
    live = at.session_state[race_live.RESULT_KEY]
    rounds = race_settings.ROUNDS_BY_PAIR["toy"]  # what the page runs for the pair (not race_live.ROUNDS)
    assert len(live.tree) == len(live.rounds.rounds) == rounds
    chain, base = live.rounds.typical
    tree = live.tree[live.rounds.rounds.index(live.rounds.typical)]
    assert any(s.tree is not None for s in tree.steps) and all(s.tree is None for s in chain.steps)
    assert tree.prompt_ids == chain.prompt_ids and tree.settings["k"] == chain.settings["k"] == 3
    lanes = json.loads(next(c for c in at.get("plotly_chart") if "race_lanes" in c.proto.id).proto.spec)
    assert {d["y"][0] for d in lanes["data"]} == {CHAIN_LANE, TREE_LANE, "target only"}
    table = next(t.value for t in at.table if "target forwards" in t.value.columns)
    assert table.loc[CHAIN_LANE, "target forwards"] == str(chain.num_steps)
    assert table.loc[TREE_LANE, "target forwards"] == str(tree.num_steps)
    assert table.loc["target only", "target forwards"] == str(base.num_steps) == str(base.num_tokens)
    assert float(table.loc[TREE_LANE, "mean accepted length"]) == round(tree.num_tokens / tree.num_steps, 2)
    assert at.query_params["race_tree_nodes"] == "8"  # the link keeps the tree lane
    # read 54: beside a tree lane the draft's legend names its nodes (without one it does not: test_race_page)
    legend = next(body for body in (html.unescape(h.proto.body) for h in at.get("html"))
                  if "draft: propose up to K tokens" in body)
    assert "draft: propose up to K tokens (a tree lane: its nodes)" in legend


@pytest.mark.slow  # the same three-lane race: about 3 s
def test_the_outputs_box_shows_the_tree_lanes_output_identical_at_greedy(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = app("race", **RACE)
    live = at.session_state[race_live.RESULT_KEY]
    chain, base = live.rounds.typical
    tree = live.tree[live.rounds.rounds.index(live.rounds.typical)]
    box = next(e for e in at.expander if e.label == "The three outputs")
    assert [m.value for m in box.markdown] == [f"**Speculative, chain** ({chain.num_tokens} tokens)",
                                               f"**Speculative, tree** ({tree.num_tokens} tokens)",
                                               f"**Target only** ({base.num_tokens} tokens)"]
    shown = [h.proto.body for h in box.get("html")][1:]  # after the token kinds' legend
    assert shown == [output_html(chain), output_html(tree), output_html(base)]  # escaped chips, one box per lane
    # greedy: the exact rule keeps the target's argmax, whatever the shape of the draft
    assert tree.output_ids == chain.output_ids == base.output_ids
    same = ("Identical to the target-only output, token for token (float32): at temperature 0 the exact rule keeps "
            "the target's argmax at every step, so only rounding could have parted them.")
    assert [c.value for c in box.caption].count(same) == 2  # one sentence per speculative lane


def test_a_race_link_without_a_tree_lane_stays_as_it_was():
    values, bad = race_settings.parse_url({"race_tree_nodes": "65", "race_tree_width": "2"})
    assert values == {"race_tree_width": 2} and bad == {
        "race_tree_nodes": "race_tree_nodes must be a whole number from 0 to 64 (got 65)"}
    assert race_settings.DEFAULTS.tree_nodes == 0  # no tree lane unless asked for



@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_tree_lanes_step_that_drafted_nothing_says_so_in_both_languages():
    """Read 45: a tree lane's last step, with one token left to write, drafts no node, and its hover read "0 nó
    rascunhado" in Portuguese (whose plural rule puts 0 in the singular); it now reads "nenhum nó rascunhado", and
    "no node drafted" in English."""
    from specviz.runs.running import run, run_target_only
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race.figures import race_figure

    chain_spec = RunSpec(pair="toy", proposer="draft", prompt="hello", k=3, max_new_tokens=14, temperature=0.0)
    chain, base = run(chain_spec), run_target_only(chain_spec)
    tree = run(RunSpec(pair="toy", proposer="draft", prompt="hello", k=3, tree_nodes=8, tree_width=2,
                       max_new_tokens=14, temperature=0.0))
    assert tree.steps[-1].n_drafted == 0  # 13 tokens written before it: the last step has one left to write
    last = f"<b>step {len(tree.steps)}</b>"
    for lang, none, zero in (("en", "<br>no node drafted, accepted 0, emitted 1<br>", "<br>0 node"),
                             ("pt", "<br>nenhum nó rascunhado, aceitos 0, emitidos 1<br>", "<br>0 nó")):
        with using(lang):
            fig = race_figure(chain, base, tree)
        hovers = [h for bar in fig.data for h in (bar.hovertext or [])]
        tree_last = [h for h in hovers if none in h]
        assert tree_last and all(h.replace("passo", "step").startswith(last) for h in tree_last)
        assert not any(zero in h for h in hovers)

@pytest.mark.slow
def test_a_race_with_a_tree_lane_in_portuguese(monkeypatch):
    monkeypatch.chdir(ROOT)
    at = app("race", lang="pt", **RACE)
    typed = {str(box.value)[:120] for box in at.text_area}
    assert [t for t in english_sentences(at) if t not in typed] == []
    assert any("Cadeia contra árvore" in m.value for m in at.markdown)


# ---- the Exactness lab's tree trap --------------------------------------------------------------------------------


def test_the_closed_forms_tell_the_trap_from_the_exact_rules():
    p, q = torch.tensor([0.4, 0.3, 0.2, 0.1]), torch.tensor([0.1, 0.2, 0.3, 0.4])
    drifts = {name: one_level_drift(name, p, q, 2) for name in TREE_RULES}
    assert drifts["tree_sampled"] < 1e-12 and drifts["tree_top_children"] < 1e-12
    assert drifts["tree_top_k_against_q"] > 0.05
    assert one_level_drift("tree_sampled", torch.ones(4096) / 4096, torch.ones(4096) / 4096, 3) is None  # too many
    with pytest.raises(ValueError, match="Unknown tree rule"):
        one_level_samples(p, q, "nope", 2, 10)


@pytest.mark.statistical  # chi-square verdicts on the page's samples
@pytest.mark.slow
def test_the_lab_catches_the_tree_trap_and_passes_the_exact_tree_rule():
    at = app("exactness", exact_pair="toy")
    at.radio(key="exact_shape").set_value("tree").run()
    assert not at.exception
    assert any("Consistent" in s.value and "Speculative, Exact tree rule" in s.value for s in at.success)
    assert not any("Not the target" in e.value for e in at.error)
    at.selectbox(key="exact_tree_rule").set_value("tree_top_k_against_q").run()
    failing = [e.value for e in at.error if "Not the target" in e.value]
    assert len(failing) == 1 and "Broken: top-k children verified against q" in failing[0]
    assert any(m.value.startswith("**Why it fails here:**") for m in at.markdown)
    assert any("Consistent" in s.value and "Target-only" in s.value for s in at.success)


@pytest.mark.slow
@pytest.mark.parametrize("rule", list(TREE_RULES))
def test_the_tree_trap_in_portuguese(rule):
    at = app("exactness", lang="pt")
    with using("pt"):
        at.radio(key="exact_shape").set_value("tree").run()
        at.selectbox(key="exact_tree_rule").set_value(rule).run()
    assert not at.exception
    assert english_sentences(at) == []


def test_the_tree_lanes_steps_name_their_nodes_not_k():
    """Issue 43, ninth read: the race chart's hover wrote every speculative step as "K = {k}, accepted …" with k the
    step's Step.n_drafted, so a tree lane's 8-node steps read "K = 8", though K is the tree's depth (3 here) and 8 the
    nodes it drafted. The tree lane names its nodes; the chain lane says what each step drafted (read 40: "K = 0" on
    a chain's last step, where the run's K was 4, read as another K), which is K = 3 here until the token limit. Its
    table holds the same counts (issue 43)."""
    from specviz.runs.running import run, run_target_only
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race.figures import lanes_table, race_figure

    chain_spec = RunSpec(pair="toy", proposer="draft", prompt="hello", k=3, max_new_tokens=12, temperature=0.0)
    chain, base = run(chain_spec), run_target_only(chain_spec)
    tree = run(RunSpec(pair="toy", proposer="draft", prompt="hello", k=3, tree_nodes=8, tree_width=2,
                       max_new_tokens=12, temperature=0.0))
    fig = race_figure(chain, base, tree)
    hovers: dict[str, list[str]] = {}  # every hover of a lane, its untimed end segment's included
    for bar in fig.data:
        hovers.setdefault(bar.y[0], []).extend(bar.hovertext or [])
    tree_steps = [h for h in hovers[TREE_LANE] if "step " in h]
    chain_steps = [h for h in hovers[CHAIN_LANE] if "step " in h]
    assert "8 nodes drafted" in tree_steps[0]  # a last step near the token limit drafts fewer
    assert all(" drafted, accepted " in h and "K = " not in h for h in tree_steps)
    assert chain_steps and "drafted 3, accepted " in chain_steps[0] and not any("K = " in h for h in chain_steps)
    table = lanes_table(chain, base, tree)  # issue 43: the table holds the hover's counts, a tree's nodes as drafted
    steps = table[(table["lane"] == TREE_LANE) & table["step"].str.isdigit()]
    assert steps["tokens drafted"].tolist()[0] == "8"
    assert steps["tokens drafted"].tolist() == [str(s.n_drafted) for s in tree.steps]
    assert steps["tokens accepted"].tolist() == [str(s.n_accepted) for s in tree.steps]


@pytest.mark.slow
def test_the_tree_trap_is_not_explained_where_it_does_not_fail():
    """Read 31: at temperature 0 the broken tree rule's closed form is p (one child, the draft's top token, kept
    exactly when it is the target's), yet the page said "Why it fails here"."""
    at = app("exactness", exact_pair="toy")
    at.select_slider(key="exact_temperature").set_value(0.0).run()
    at.radio(key="exact_shape").set_value("tree").run()
    at.selectbox(key="exact_tree_rule").set_value("tree_top_k_against_q").run()
    assert not at.exception
    texts = [m.value for m in at.markdown]
    assert not any(t.startswith("**Why it fails here:**") for t in texts)
    assert any(t.startswith("**Here it does not fail:**") for t in texts)
    assert not any("Not the target" in e.value for e in at.error)


def test_the_broken_tree_rule_is_exact_where_p_alone_is_a_point_mass():
    """What the no-trap sentence below now says: the broken rule's one level is p wherever p or q is a point mass,
    with the other spread (read 52: it said the rule fails wherever q spreads its mass)."""
    rule = TREE_RULES["tree_top_k_against_q"]
    p, q = torch.tensor([0.0, 1.0, 0.0, 0.0]), torch.tensor([0.5, 0.3, 0.2, 0.0])
    for width in (1, 2, 3):
        assert rule.one_level(p, q, width).tolist() == pytest.approx(p.tolist())
        assert rule.one_level(torch.tensor([0.4, 0.3, 0.2, 0.1]), p, width).tolist() == pytest.approx(
            [0.4, 0.3, 0.2, 0.1])
    assert one_level_drift(rule, torch.tensor([0.4, 0.3, 0.2, 0.1]), q, 2) > 0.05  # both spread: it drifts


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_no_trap_sentence_does_not_blame_a_spread_q_where_p_is_a_point_mass(lang):
    """Read 52: at top-p 0.15 on the toy pair ("once upon a time") p is a point mass and q keeps two tokens; the
    broken tree rule's closed form is p, and the page said "It fails where q spreads its mass over several tokens"
    beside it."""
    from specviz.core.i18n import _
    from specviz.labs.exactness.lab import step_distributions
    from specviz.runs.runspec import RunSpec
    from specviz.ui.common.runs import PAIRS
    from specviz.ui.exactness.tree_lab import TEXT

    settings = dict(prompt="once upon a time", top_p=0.15, temperature=1.0)  # the page's temperature
    dists = step_distributions(PAIRS.get("toy"), RunSpec(pair="toy", **settings))
    assert int((dists.target_probs > 0).sum()) == 1 and int((dists.draft_probs > 0).sum()) == 2
    at = AppTest.from_file(str(ROOT / "pages" / "exactness.py"), default_timeout=120)
    at.query_params["lang"] = lang
    for key, value in {"exact_prompt": settings["prompt"], "exact_top_p": settings["top_p"], "exact_shape": "tree",
                       "exact_tree_rule": "tree_top_k_against_q"}.items():
        at.session_state[key] = value
    with using(lang):
        at.run()
        shown = _(TEXT["no_trap"])
    assert not at.exception
    texts = [m.value for m in at.markdown]
    assert shown in texts
    assert not any("It fails where q spreads" in t or "Ela falha onde q espalha" in t for t in texts)
    assert ("p or q puts all its mass on one token" if lang == "en" else
            "p ou q põe toda a sua massa em um só token") in shown


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_with_a_tree_lane_the_rounds_and_the_draft_legend_name_the_chain_and_the_nodes(lang):
    """Read 45: with a tree lane the rounds table still named its lane "speculative" (and "speculative tokens/s")
    beside the lanes table's "speculative, chain" and "speculative, tree", so the reader could not tell which
    speculative lane the rounds timed (the chain); and the draft's legend, "draft: propose K tokens", sat in a tree
    step's hover next to "8 nodes drafted" at K = 3. Both languages."""
    from specviz.core.i18n import _
    from specviz.labs.timeline import RaceRounds
    from specviz.runs.running import run, run_target_only
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race.figures import PHASE_NAMES, TREE_DRAFT_NAME, race_figure
    from specviz.ui.race.view import rounds_table

    chain_spec = RunSpec(pair="toy", proposer="draft", prompt="hello", k=3, max_new_tokens=12, temperature=0.0)
    chain, base = run(chain_spec), run_target_only(chain_spec)
    tree = run(RunSpec(pair="toy", proposer="draft", prompt="hello", k=3, tree_nodes=8, tree_width=2,
                       max_new_tokens=12, temperature=0.0))
    rounds = RaceRounds(((chain, base), (chain, base)))
    with using(lang):
        chain_name, spec_name = _(CHAIN_LANE), _("speculative")
        with_tree, without = rounds_table(rounds, tree=True), rounds_table(rounds)
        assert [row[_("ran first")] for row in with_tree] == [chain_name, _("target only")]
        assert with_tree[0][f"tokens/s ({chain_name})"] == without[0][_("speculative tokens/s")]
        assert with_tree[0][f"tokens/s ({_('target only')})"] == without[0][_("target only tokens/s")]
        assert [row[_("ran first")] for row in without] == [spec_name, _("target only")]  # no tree: as it was
        fig = race_figure(chain, base, tree)
        draft = _(TREE_DRAFT_NAME)
        hovers = {lane: [h for bar in fig.data if bar.y[0] == lane and bar.name == draft for h in bar.hovertext]
                  for lane in (_(TREE_LANE), chain_name)}
        # read 54: without a tree lane the draft's name said "(a tree lane: its nodes)" too, in every chain hover
        plain, alone = _(PHASE_NAMES["draft"]), race_figure(chain, base)
        alone_hovers = [h for bar in alone.data if bar.name == plain for h in bar.hovertext]
        names = {bar.name for bar in alone.data}
    assert all(hovers.values()) and all(f"({draft})" in h for lane in hovers.values() for h in lane)
    assert draft == {"en": "draft: propose up to K tokens (a tree lane: its nodes)",
                     "pt": "rascunho: propor até K tokens (na raia da árvore: os seus nós)"}[lang]
    assert plain == {"en": "draft: propose up to K tokens", "pt": "rascunho: propor até K tokens"}[lang]
    assert alone_hovers and all(f"({plain})" in h for h in alone_hovers) and draft not in names
    assert not any(word in h for h in alone_hovers for word in ("tree lane", "raia da árvore"))


@pytest.mark.slow  # the page under AppTest
def test_the_trap_sentence_quotes_the_rules_closed_form_beside_the_sample():
    """Read 45: with N = 50 the trap sentence said the draft's favourite "comes out 24.0% of the time" (the sample's
    share) where the rule gives it 36.7% at T = 0.7, and a small sample can even fall below p's own share. The
    sentence now quotes the closed form of one level, with the sample's share beside it (read 53: as probabilities,
    written as a step panel writes p, `column_numbers`)."""
    from specviz.engine.shown import column_numbers
    from specviz.labs.exactness.lab import step_distributions
    from specviz.runs.runspec import RunSpec
    from specviz.ui.common.runs import PAIRS

    at = AppTest.from_file(str(ROOT / "pages" / "exactness.py"), default_timeout=120)
    for key, value in {"exact_shape": "tree", "exact_tree_rule": "tree_top_k_against_q", "exact_tree_n": 50,
                       "exact_tree_width": 1}.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception
    trap = next(m.value for m in at.markdown if m.value.startswith("**Why it fails here:**"))
    dists = step_distributions(PAIRS.get("toy"), RunSpec(pair="toy", prompt="the quick brown fox", temperature=1.0))
    favourite = int(dists.draft_probs.argmax())
    closed = float(TREE_RULES["tree_top_k_against_q"].one_level(dists.target_probs, dists.draft_probs, 1)[favourite])
    chance = re.search(r"comes out with probability ([0-9.]+) \(a share of ", trap).group(1)
    assert chance in column_numbers([closed], len(chance) - 2)  # its decimals: at least 3, more for the quotient
    assert "in these samples)" in trap


@pytest.mark.slow  # the page under AppTest
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_trap_sentence_names_the_token_that_drifts_where_the_favourite_does_not(lang):
    """Read 46: at T = 1.5, top-p 0.2 the toy pair's draft favours a token its target gives 0, and the broken tree
    rule, which never emits it, is exact on it; the sentence said it "comes out 0.0% of the time ... where the
    target gives it 0.0%" under "Why it fails here", though the drift (TV 0.295) is on other tokens. It now names
    the token the rule moves most, with its closed form (read 53: a probability beside p, as a step panel writes
    p, not a one-decimal percent)."""
    from specviz.core.i18n import using
    from specviz.engine.shown import column_numbers
    from specviz.labs.exactness.lab import step_distributions
    from specviz.runs.runspec import RunSpec
    from specviz.ui.common.runs import PAIRS

    settings = dict(prompt="speculative", temperature=1.5, top_p=0.2)
    at = AppTest.from_file(str(ROOT / "pages" / "exactness.py"), default_timeout=120)
    at.query_params["lang"] = lang
    for key, value in {"exact_shape": "tree", "exact_tree_rule": "tree_top_k_against_q", "exact_tree_width": 2,
                       **{f"exact_{k}": v for k, v in settings.items()}}.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception
    why = "**Why it fails here:**" if lang == "en" else "**Por que falha aqui:**"
    trap = next(m.value for m in at.markdown if m.value.startswith(why))
    dists = step_distributions(PAIRS.get("toy"), RunSpec(pair="toy", **settings))
    p, q = dists.target_probs.double(), dists.draft_probs
    closed = TREE_RULES["tree_top_k_against_q"].one_level(p, q, 2)
    favourite, worst = int(q.argmax()), int((closed - p).abs().argmax())
    assert float(p[favourite]) == 0 and float(closed[favourite]) == 0 and worst != favourite  # the case it is about
    said = re.search(r"comes out with probability (\S+) \(a share of (\S+) in these samples\) where the target "
                     r"gives it p = (\S+)\." if lang == "en" else r"sai com probabilidade (\S+) \(uma fração de (\S+) "
                     r"nestas amostras\), quando o alvo lhe dá p = (\S+)\.", trap)
    assert said and "%" not in trap, trap
    with using(lang):  # one number of decimals, as `column_numbers` writes a step panel's column
        sep = "," if lang == "pt" else "."
        places = len(next(n for n in said.groups() if sep in n).split(sep)[1])
        assert list(said.groups()) == column_numbers([float(closed[worst]), read_number(said[2]), float(p[worst])],
                                                     places)
    assert said[1] != said[3]
    assert ("as often as the target does (p = 0)" if lang == "en" else "mesma frequência que o alvo (p = 0)") in trap
    assert "comes out 0.0% of the time" not in trap and "sai 0,0% das vezes" not in trap  # the old sentence


@pytest.mark.parametrize("lang, said, old", [
    ("en", "so it can emit more tokens per forward than the chain", "on average it emits more"),
    ("pt", "então pode emitir mais tokens por passagem que a cadeia", "em média emite mais"),
])
def test_the_lanes_reading_does_not_promise_a_tree_emits_more_per_forward(lang, said, old):
    """Read 46: "A tree spends one forward on many guesses, so on average it emits more tokens per forward" is not so
    for every tree the race offers: one of fewer nodes than K is shallower than the chain of K (`grow_tree` shares the
    nodes out over the levels) and here emits fewer tokens per forward. The reading says it can, and where to look."""
    from specviz.core.i18n import _
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race.tree import TEXT

    common = dict(pair="toy", proposer="draft", prompt="the quick brown fox jumps over the lazy dog. the quick", k=4,
                  max_new_tokens=32, temperature=0.0)
    chain, tree = run(RunSpec(**common)), run(RunSpec(**common, tree_nodes=2, tree_width=2))
    assert max(len(s.emitted) for s in tree.steps) <= 3  # depth 2: two drafts and one more token at most
    assert tree.mean_accepted_length < chain.mean_accepted_length  # the old sentence's promise, broken
    with using(lang):
        text = _(TEXT["lanes"])
    assert said in text and old not in text, text


@pytest.mark.parametrize("lang, header", [("en", "target-only step (median)"), ("pt", "passo só com o alvo (mediana)")])
def test_the_rounds_table_names_its_median_a_target_only_step(lang, header):
    """Read 46: the rounds table's "one-token forward (median)" is the median of the target-only lane's Step.seconds,
    its forward and its sampling, while the lanes table's "target forward (ms)" column is the forward alone: a reader
    taking that column's median got another figure (79.5 against 79.9 ms in one race). It says target-only step."""
    import statistics

    from specviz.core.i18n import _, number
    from specviz.labs.timeline import RaceRounds
    from specviz.runs.running import run, run_target_only
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race.view import rounds_table

    spec = RunSpec(pair="toy", proposer="draft", prompt="hello", k=3, max_new_tokens=12, temperature=0.0)
    chain, base = run(spec), run_target_only(spec)
    with using(lang):
        row = rounds_table(RaceRounds(((chain, base),)))[0]
        assert row[header] == _("{ms} ms", ms=number(1000 * statistics.median(s.seconds for s in base.steps), 1))
        assert not [key for key in row if "forward" in key or "passagem" in key]


@pytest.mark.slow
def test_the_tree_rules_table_pins_its_rule_names_narrow_enough_for_a_phone():
    """Read 51: at 390 × 844 the tree lab's table scrolled sideways and its rule names went with it ("ildren as point
    masses" beside ✓ and 0.0000). The names are pinned now, in a column narrow enough that Streamlit keeps the pin on
    a phone (at most 60% of the 354 px grid), their rows tall enough to wrap them."""
    import json

    at = app("exactness", exact_pair="toy")
    at.radio(key="exact_shape").set_value("tree").run()
    assert not at.exception
    table = at.dataframe[0]
    names = json.loads(table.proto.columns)["rule"]
    assert names["pinned"] is True and names["width"] <= 0.6 * 354
    assert table.proto.row_height > 64  # Streamlit wraps a cell's text only in rows taller than 4rem
    assert list(table.value["rule"])[0].startswith("Exact tree rule")


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_trap_sentence_writes_a_small_favourites_q_with_two_figures(lang):
    """Read 52: the trap sentence wrote q at three decimals, so a draft favourite with q = 0.0054 (a flat draft over
    a large vocabulary) read "q = 0.005", one significant figure, where every p and q elsewhere shows two
    (`specviz.engine.shown`)."""
    from specviz.labs.exactness.experiments import Support
    from specviz.labs.exactness.lab import LabResult, StepDistributions
    from specviz.ui.exactness.tree_lab import trap_sentence

    size = 200
    q = torch.full((size,), (1 - 0.0054) / (size - 1), dtype=torch.float64)
    q[0] = 0.0054  # the favourite
    p = torch.full((size,), (1 - 0.001) / (size - 1), dtype=torch.float64)
    p[0] = 0.001
    dists = StepDistributions([1], Support(torch.arange(size), p, q, 1.0, 1.0), [f"t{i}" for i in range(size)], "toy")
    samples = torch.zeros(50, dtype=torch.int64)
    result = LabResult(p, dists.texts, dists.token_ids, samples, samples, 1.0, "")
    with using(lang):
        trap = trap_sentence(result, dists, TREE_RULES["tree_top_k_against_q"], 1)
    assert ("q = 0,0054" if lang == "pt" else "q = 0.0054") in trap, trap
    # read 53: p beside it was a one-decimal percent ("where the target gives it 0.1%"); now written as a step
    # panel writes p, a probability with the same decimals: p = 0.0010
    assert ("quando o alvo lhe dá p = 0,0010." if lang == "pt" else "where the target gives it p = 0.0010.") in trap
    assert "%" not in trap, trap


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_trap_sentence_never_writes_a_near_one_p_as_1(lang):
    """Read 53: a favourite with p = 0.9996 (q = 0.9, so the broken rule always keeps it: a chance of exactly 1) and
    1,999 samples of 2,000 were all written "1.000", p and q being the only numbers told apart: the sentence said the
    rule emits the favourite "about as often as the target does (p = 1.000)" and then named that same favourite as
    the token the rule moves most, with "p = 0.9996". A chance or share below 1 is never written 1 (the rule for
    shares, `core.i18n.percent_of`), and the rule's chance and p are told apart before the sentence is picked."""
    from specviz.labs.exactness.experiments import Support
    from specviz.labs.exactness.lab import LabResult, StepDistributions
    from specviz.ui.exactness.tree_lab import trap_sentence

    p = torch.tensor([0.9996, 0.0002, 0.0002], dtype=torch.float64)
    q = torch.tensor([0.9, 0.05, 0.05], dtype=torch.float64)
    dists = StepDistributions([1], Support(torch.arange(3), p, q, 1.0, 1.0), ["a", "b", "c"], "toy")
    samples = torch.zeros(2000, dtype=torch.int64)
    samples[0] = 1  # 1,999 of 2,000 samples are the favourite
    result = LabResult(p, dists.texts, dists.token_ids, samples, samples, 1.0, "")
    rule = TREE_RULES["tree_top_k_against_q"]
    assert rule.one_level(p, q, 1).tolist() == [1.0, 0.0, 0.0]
    with using(lang):
        trap = trap_sentence(result, dists, rule, 1)
    said = {"en": "comes out with probability 1.0000 (a share of 0.9995 in these samples) where the target gives it "
                  "p = 0.9996.",
            "pt": "sai com probabilidade 1,0000 (uma fração de 0,9995 nestas amostras), quando o alvo lhe dá "
                  "p = 0,9996."}[lang]
    assert said in trap, trap
    assert "1.000)" not in trap and "1,000)" not in trap
    assert "about as often" not in trap and "por acaso" not in trap


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_trap_sentences_chance_is_its_written_p_over_its_written_q(lang):
    """Second read 53: at the toy pair's default prompt the trap sentence said the rule "divides by q = 0.323" and
    so emits the favourite "with probability 0.414" where "the target gives it p = 0.134"; a reader who divides
    gets 0.134 / 0.323 = 0.415. The chance p/q is now the written p over the written q, as a step panel's p/q is
    (`shown.quotient_follows`): q = 0.3230, p = 0.1336, probability 0.4136."""
    from specviz.labs.exactness.experiments import Support
    from specviz.labs.exactness.lab import LabResult, StepDistributions
    from specviz.ui.exactness.tree_lab import trap_sentence

    p = torch.tensor([0.13358, 0.3, 0.3, 0.26642], dtype=torch.float64)
    q = torch.tensor([0.32298, 0.3, 0.2, 0.17702], dtype=torch.float64)  # the favourite, p < q: kept with p/q
    dists = StepDistributions([1], Support(torch.arange(4), p, q, 1.0, 1.0), ["a", "b", "c", "d"], "toy")
    samples = torch.zeros(50, dtype=torch.int64)
    result = LabResult(p, dists.texts, dists.token_ids, samples, samples, 1.0, "")
    with using(lang):
        trap = trap_sentence(result, dists, TREE_RULES["tree_top_k_against_q"], 1)
        numbers = {"en": r"q = ([0-9.]+) .* probability ([0-9.]+) .* p = ([0-9.]+)\.",
                   "pt": r"q = ([0-9,]+) .* probabilidade ([0-9,]+) .* p = ([0-9,]+)\."}[lang]
        q_shown, chance, p_shown = (read_number(x) for x in re.search(numbers, trap).groups())
    assert (q_shown, chance, p_shown) == (0.323, 0.4136, 0.1336), trap
    assert round(p_shown / q_shown, 4) == chance


def test_the_trap_sentence_asks_the_shared_digit_search_and_quotient_check():
    """Read 54: `trap_sentence.shares` had its own `for digits in range(3, 10)` search and its own p ÷ q check, beside
    `core.i18n.fewest_digits` and `engine.shown.quotient_follows`, which every other p, q writer asks. It asks them now
    (1,500 random p, q, both languages, gave the same 6,000 sentences before and after); the chance it checks is p/q of
    p and q renormalised in float64, so within 1e-6 of the float32 p ÷ q, not shown's default 1e-9."""
    import inspect

    from specviz.ui.exactness import tree_lab

    source = inspect.getsource(tree_lab.trap_sentence)
    assert "range(" not in source and "def follows" not in source
    assert "fewest_digits(holds, 3, 9)" in source and "quotient_follows(" in source


@pytest.mark.slow
@pytest.mark.parametrize("lang, header", [("en", "exact for any p, q"), ("pt", "exata para quaisquer p, q")])
def test_the_tree_rules_table_says_its_cross_means_not_exact_for_every_p_and_q(lang, header):
    """Read 54: at temperature 0 the tree table read "exact ✗" beside the broken rule's drift of 0.0000, under
    "Here it does not fail": the column says whether a rule is exact for every p and q, as the chain table's says."""
    at = AppTest.from_file(str(ROOT / "pages" / "exactness.py"), default_timeout=120)
    at.query_params["lang"] = lang
    for key, value in {"exact_pair": "toy", "exact_temperature": 0.0, "exact_shape": "tree",
                       "exact_tree_rule": "tree_top_k_against_q"}.items():
        at.session_state[key] = value
    with using(lang):
        at.run()
    assert not at.exception
    table = at.dataframe[0].value
    broken = table.iloc[-1]
    assert broken[header] == "✗" and broken.iloc[-1] in ("0.0000", "0,0000"), table
    assert "exact" not in table.columns and "exata" not in table.columns


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_race_refuses_a_tree_lane_its_depth_and_width_cannot_hold(monkeypatch, lang):
    """Read 55: K = 1, 16 nodes and width 4 raced a tree lane of 4 nodes a step (width + (K − 1)·width²) under a
    budget of 16, without a word; the race is now refused with the most that fits."""
    monkeypatch.chdir(ROOT)
    at = app("race", lang, **{**RACE, "race_k": "1", "race_tree_nodes": "16", "race_tree_width": "4"})
    said = ("Uma árvore de profundidade 1 (K) e largura 4 comporta no máximo 4 nós, não 16: defina no máximo 4 nós, "
            "ou aumente K ou a largura." if lang == "pt" else
            "A tree 1 deep (K) and 4 wide holds at most 4 nodes, not 16: set its nodes to at most 4, or raise K or "
            "the width.")
    assert [e.value for e in at.error] == [said]
    assert race_live.RESULT_KEY not in at.session_state or at.session_state[race_live.RESULT_KEY] is None  # no race
