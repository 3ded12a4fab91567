"""The Proposers page under AppTest, and its tree-verification pieces."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz.core.i18n import number, small_number, using
from specviz.labs.examples import list_examples
from specviz.teach.pagemap import PAGE_FILES
from specviz.teach.quiz import BANK_DIR, load_bank
from specviz.ui.proposers import view

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages/proposers.py")


@pytest.fixture(scope="module")
def page():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    return at


def test_the_page_is_in_the_map():
    assert "pages/proposers.py" in PAGE_FILES


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_every_proposer_gets_a_section_with_costs_needs_wins_and_losses(page):
    assert not page.exception and not page.error
    headings = [h.value for h in page.subheader]
    for title in ["Separate draft model", "n-gram prompt lookup", "Layer-skip self-speculation", "Medusa heads",
                  "EAGLE-1/2/3", "Multi-token prediction", "Lookahead decoding (Jacobi)", "Suffix decoding"]:
        assert title in headings
    text = " ".join(m.value for m in page.markdown)
    for word in ("**Costs.**", "**Needs.**", "**Wins.**", "**Loses.**"):
        assert text.count(word) == len(view.PROPOSERS)
    assert "Tree attention mask" in text and "The exact rule at T > 0" in text and "norm(max(0, p′ − q′))" in text


def test_each_diagram_is_balanced_and_names_its_nodes():
    assert view.PROPOSERS
    for dot in [p.dot for p in view.PROPOSERS] + [view.tree_dot()]:
        assert dot.count("{") == dot.count("}") and dot.count('"') % 2 == 0, dot
        assert dot.startswith("digraph") and "->" in dot and "label=" in dot, dot


def test_recorded_traces_exist_for_the_proposers_specviz_has():
    names = {e.name for e in list_examples()}
    with_example = {p.key: p.example for p in view.PROPOSERS if p.example}
    assert set(with_example) == {"draft", "ngram", "layerskip", "eagle", "medusa"}
    assert set(with_example.values()) <= names


def test_the_sixteen_proposer_questions_link_here_and_are_listed():
    bank = load_bank([BANK_DIR])
    proposer_questions = [q for q in bank if q.id.startswith(("pl-", "ls-", "md-", "eg-"))]
    assert len(proposer_questions) >= 16
    assert all(q.link == "pages/proposers.py" for q in proposer_questions)
    listed = {i for p in view.PROPOSERS for i, _ in view.quiz_items(p.quiz_prefixes)}
    assert {q.id for q in proposer_questions} <= listed


def test_tree_mask_lets_a_node_see_only_itself_and_its_ancestors():
    parents = [parent for _, parent in view.TREE_NODES]
    mask = view.tree_attention_mask(parents)
    assert mask[3] == [True, True, False, True, False, False, False, False]  # "sat": the, cat, sat
    assert not mask[1][2] and not mask[2][1]  # siblings never see each other
    assert all(mask[i][i] for i in range(len(parents)))
    path = view.ACCEPTED_PATH
    assert all(parents[child] == parent for parent, child in zip(path, path[1:]))
    # the accepted path is marked by a glyph and a thicker frame, not by its green alone (WCAG 1.4.1)
    assert view.tree_dot().count('label="✓ ') == len(path) == view.tree_dot().count("penwidth=3")


def test_typical_acceptance_is_shown_lossy_and_the_exact_rule_exact():
    frame = view.typical_vs_exact()
    assert frame["exact rule"].tolist() == pytest.approx(frame["p (target)"].tolist())
    assert (frame["typical acceptance"] - frame["p (target)"]).abs().sum() > 0.05


def test_the_typical_caption_names_what_the_chart_shows():
    """Issue 43: the caption said typical acceptance over-emits the likely tokens, but in this example C (p = 0.15)
    comes out too rarely and A exactly as often as p. It now names each token's fate by letter; hold the example
    to it."""
    frame = view.typical_vs_exact()
    typical, p = frame["typical acceptance"], frame["p (target)"]
    assert typical["B"] > p["B"] and typical["D"] > p["D"] and typical["C"] < p["C"]
    assert typical["E"] == typical["F"] == 0 and typical["A"] == pytest.approx(0.4)
    assert "over-emits" not in view.TEXT["typical_caption"]


def test_the_tree_rule_at_t_above_0_takes_the_two_steps_the_engine_takes():
    """Issue 26, item 1: as written before, the page's rule applied to EAGLE-2's top-k children was the Exactness
    lab's broken `tree_top_k_against_q`. It must say that q′ loses a rejected child (children drawn without
    replacement) and that top-k children are point masses (kept with p′(x), removed from p′ when rejected)."""
    text = view.TREE_TEXT["exact"]
    for words in ("q′ loses x", "renormalised", "without replacement", "with replacement", "point mass",
                  "kept with probability p′(x)", "p′ loses x", "Top-k children"):
        assert words in text, words


def test_the_page_and_the_engine_cite_the_same_papers_for_the_tree_rule():
    import re

    from specviz.engine import tree_verifier

    cited = re.compile(r"([A-Z][a-z]+) et al\. (\d{4})")
    engine = set(cited.findall(" ".join(tree_verifier.__doc__.split())))
    page = set(cited.findall(view.TREE_TEXT["exact"]))
    assert engine == page and {("Miao", "2024"), ("Jeon", "2024"), ("Li", "2024")} <= page
    for doc in (" ".join(tree_verifier.__doc__.split()), view.TREE_TEXT["exact"]):
        assert re.search(r"SpecInfer.{0,60}with replacement", doc) and "without replacement" in doc


def test_the_tree_questions_are_on_the_page_and_cover_sampled_and_top_k_children():
    bank = load_bank([BANK_DIR])
    tree = {q.id: q for q in bank if q.concept == "trees"}
    assert {"tr-mask", "tr-rule", "tr-top-k"} <= set(tree)
    assert "point mass" in tree["tr-top-k"].answer and "q′ loses x" in tree["tr-rule"].answer
    assert {i for i, _ in view.quiz_items(("tr-", "md-tree"))} >= {"tr-mask", "tr-rule", "tr-top-k"}


def _all_texts() -> list[str]:
    """Every English message, every Portuguese translation and every question of both banks."""
    from i18n_check import catalog_texts

    texts = list(catalog_texts())
    for lang in ("en", "pt"):
        texts += [" ".join([q.prompt, q.explanation, *q.choices]) for q in load_bank(lang=lang)]
    return texts


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_medusa_head_k_predicts_token_t_plus_k_plus_1_everywhere():
    """Issue 26, item 7: the LM head predicts t+1, so Medusa's head k predicts t+k+1 (the diagram said head 1: t+1)."""
    import re

    medusa = next(p for p in view.PROPOSERS if p.key == "medusa")
    labels = view._LABEL.findall(medusa.dot)
    heads = [tuple(map(int, m.groups())) for label in labels if (m := re.fullmatch(r"head (\d+): t\+(\d+)", label))]
    assert len(heads) == 3 and all(n == k + 1 for k, n in heads) and "LM head: t+1" in labels
    claims = [(t[:80], m.group(0)) for t in _all_texts()
              for m in re.finditer(r"(?:head|cabeça) (\d+|[ik])\W{1,3}(?:\w+ ){0,3}(?:token )?t\+(\d+|[ik])\b(?!\+)", t)
              if not (m.group(1).isdigit() and m.group(2).isdigit() and int(m.group(2)) == int(m.group(1)) + 1)]
    assert claims == []


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_medusa_errors_do_not_compound_and_eagle_features_are_named_right():
    """The heads cannot condition on earlier guesses, so nothing compounds; EAGLE's 'second-to-top layer' is the
    last decoder layer's output (the LM head's input), not the 'penúltima camada'."""
    import re

    texts = _all_texts()
    assert not [t[:80] for t in texts if re.search(r"errors? compound|erros se acumulam", t, re.IGNORECASE)]
    assert not [t[:80] for t in texts if re.search(r"penúltima camada", t, re.IGNORECASE)]
    named = [t for t in texts if "second-to-top" in t]
    assert named and all("last decoder layer" in t or "última camada do decodificador" in t for t in named)


def test_a_recorded_tree_trace_is_not_said_to_estimate_alpha():
    """Issue 43, ninth read: render_example named any recorded trace's mean min(1, p/q) "an estimate of α"; for a
    trace of draft trees (an examples folder may hold one: list_examples reads every *.json there) it is the mean
    min(1, p′/q′) along each step's main line, not α (Trace.mean_accept_prob), and its accepted / drafted counts every
    node."""
    from specviz.labs.examples import load_example
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    tree = run(RunSpec(pair="toy", proposer="draft", prompt="hello", k=3, tree_nodes=8, tree_width=2,
                       max_new_tokens=12, temperature=0.0))
    text = view.example_stats(tree)
    assert "not an estimate of α" in text and "mean min(1, p′/q′) along each step's main line" in text
    assert "every node of a tree counted as drafted" in text
    chain = view.example_stats(load_example("toy-draft")[0])
    assert "mean min(1, p/q) = " in chain and "(an estimate of α)" in chain


def test_a_recorded_tree_trace_with_copies_names_them_in_its_ratio():
    """Read 50: a recorded tree trace whose lookup branch copied tokens was summed up "accepted / drafted = 0.13,
    every node of a tree counted as drafted", where the ratio is accepted / (drafted + copied) (Trace.acceptance_rate;
    the CLI writes "2 / (12 + 3)"). The sentence names the copies, as the CLI does."""
    from specviz.core.i18n import number
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    tree = run(RunSpec(pair="toy", proposer="draft", prompt="abcabcabc", k=3, tree_nodes=6, tree_width=2,
                       tree_lookup=3, max_new_tokens=12, temperature=0.0))
    assert tree.num_copied
    text = view.example_stats(tree)
    assert f"accepted / (drafted + copied) = {number(tree.acceptance_rate, 2)}" in text
    assert "accepted / drafted" not in text and "not an estimate of α" in text


def test_the_parameter_ratio_of_a_1b_draft_for_a_70b_target_is_quoted_right():
    """Issue 43, twelfth read: the draft model's "wins" gave 1B / 70B as "about 0.015"; 1/70 = 0.0143."""
    draft = next(p for p in view.PROPOSERS if p.wins.startswith("A family with a small sibling"))
    assert f"about {1 / 70:.3f})" in draft.wins and "0.015" not in draft.wins


def test_suffix_decoding_sizes_its_draft_by_the_match_length_not_by_past_hits():
    """Issue 43, eighteenth read: the section said SuffixDecoding "sizes the draft by how often it was right". Oliaro
    et al. (2024) cap the draft at a factor times the length of the matched suffix (vLLM's
    suffix_decoding_max_spec_factor) and score the tree's nodes by how often each continuation was seen."""
    suffix = next(p for p in view.PROPOSERS if p.key == "suffix")
    assert "how often it was right" not in suffix.how
    assert "length of the match" in suffix.how and "Oliaro et al. 2024" in suffix.how


def test_suffix_decoding_scores_a_node_by_the_shares_multiplied_along_its_path_in_both_languages():
    """Read 45: the English said each node is "scored by how often it followed its parent" and the Portuguese "com um
    peso igual ao número de vezes que veio depois do seu pai", a count. Read 49: it then said "scored by the share of
    its parent's occurrences that it followed", one factor only. SuffixDecoding (Oliaro et al. 2024; its reference
    code, ArcticInference's `SuffixTree::_speculate_tree`) scores a node by that share multiplied along its path from
    the match (`item.prob * child->count / node->count`): a node at depth 2 whose share is 0.9 under a parent whose
    own share is 0.1 scores 0.09, not 0.9."""
    from specviz.core.i18n import _, using

    suffix = next(p for p in view.PROPOSERS if p.key == "suffix")
    assert "scored by the product of the shares along its path" in suffix.how
    assert "the share of its parent's occurrences that it followed, not by its own count" not in suffix.how
    with using("pt"):
        shown = _(suffix.how)
    assert "número de vezes" not in shown
    said = "peso igual ao produto das frações ao longo do seu caminho"
    assert said in shown and "não à sua própria contagem" not in shown


def test_the_serving_note_reads_vllms_table_as_it_rates_the_methods(page):
    """Read 19: the page said model-based drafts keep "more of their gain at high load than lookups"; vLLM's table
    (docs/features/speculative_decoding) rates EAGLE and MTP high at low QPS and medium to high at high QPS, n-gram and
    suffix low to medium at low QPS and medium at high QPS: the lookups keep their rating, EAGLE's is still higher."""
    text = " ".join(m.value for m in page.markdown)
    assert "more of their gain" not in text
    said = "still rates EAGLE and MTP above the lookups at high load (medium to high gain against medium)"
    assert said in text


def test_the_serving_note_does_not_rank_a_separate_draft_model_above_the_lookups_in_both_languages(page):
    """Read 47: the note said vLLM's table rates "model-based drafts (EAGLE, MTP) above lookups at high load", but the
    same table rates a separate draft model, model-based too, medium at high QPS, as n-gram and suffix lookup (the
    Theory page's serving note says so). It now names EAGLE and MTP and says the draft model is rated as the lookups."""
    from specviz.core.i18n import _, using

    text = " ".join(m.value for m in page.markdown)
    assert "model-based drafts (EAGLE, MTP) above lookups" not in text
    assert "though not a separate draft model (medium, as the lookups)" in text
    with using("pt"):
        shown = _(view.TREE_TEXT["stops"])
    assert "rascunhos com modelo (EAGLE, MTP)" not in shown
    assert "põe o EAGLE e o MTP acima das buscas" in shown
    assert "mas não um modelo de rascunho separado (médio, como as buscas)" in shown


def test_medusa_is_said_to_train_on_a_dataset_or_its_own_answers_and_head_k_to_guess_draft_k():
    """Read 20: the section said Medusa's heads cost "training them on the target's outputs", but Medusa-1 trains
    its heads on a dataset (ShareGPT for Vicuna) and self-distillation is the option for when there is none; and the
    Playground's menu note said head k guesses "the k-th token ahead", read from token t the target's own guess when
    k = 1, where head k guesses token t+1+k, draft k (`specviz.engine.proposers.medusa`)."""
    medusa = next(p for p in view.PROPOSERS if p.key == "medusa")
    assert "training them on the target's outputs" not in medusa.costs
    assert "on a dataset or on the target's own answers" in medusa.costs and "self-distillation" in medusa.costs
    note = view.registry.note_of("medusa")
    assert "k-th token ahead" not in note
    assert "head k guesses draft k, the token k places after the one the target's own head predicts" in note


def test_no_proposer_text_names_a_training_machine_the_cards_do_not_record():
    """21st read: the EAGLE section said specviz's drafter was "trained on a CPU", but since 9de5ea5 every model card
    says its specviz.json does not record the machine its training ran on, and no committed file does (the training
    code runs on a GPU when one is there, `specviz.distill.cli.device_and_dtype`)."""
    import json

    from specviz.core.i18n import _, using

    metas = sorted((ROOT / "assets" / "models").glob("*/specviz.json"))
    assert metas and all("machine" not in json.loads(m.read_text(encoding="utf-8")).get("training", {})
                         for m in metas)
    texts = [text for p in view.PROPOSERS for text in (p.how, p.costs, p.needs, p.wins, p.loses) if text]
    assert texts
    for english in texts:
        assert "trained on a" not in english and "2-core" not in english, english
        with using("pt"):
            assert "treinado em uma CPU" not in _(english) and "núcleos" not in _(english), english


def test_n_gram_lookup_is_not_said_to_match_nothing_on_open_ended_text():
    """Read 36: the n-gram card's "loses" said "Open-ended writing: nothing matches", the claim read 19 took out of
    the lecture plans. An open answer that repeats itself gives the lookup matches: in the committed vLLM sweep the
    open question's n-gram rows kept most of their drafts and beat no speculation at every level."""
    from specviz.serving.results import ServingResult, find_serving_results

    result = ServingResult.load(find_serving_results()[0])
    levels = result.concurrencies("open")
    assert levels
    assert all(result.level("ngram", "open", streams).acceptance_rate > 0.5 for streams in levels)
    assert all(result.speedup("ngram", "open", streams) > 1 for streams in levels)  # beat no speculation
    ngram = next(p for p in view.PROPOSERS if p.key == "ngram")
    assert "nothing matches" not in ngram.loses and "repeats neither its prompt nor itself" in ngram.loses


def test_medusa_and_eagle_need_tree_attention_only_to_verify_a_tree():
    """Read 40: both sections' "Needs" listed a tree attention mask as if the method could not run without one, yet
    every speed and acceptance figure they quote is a chain of 4 (no tree attention), and `make serve SPEC=eagle`
    hands vLLM a chain too (`specviz.serving.server.speculative_config` names no tree)."""
    for key in ("medusa", "eagle"):
        section = next(p for p in view.PROPOSERS if p.key == key)
        assert "for a tree" in section.needs and "needs none" in section.needs
        assert "chain of 4" in section.loses
    server = (ROOT / "specviz/serving/server.py").read_text(encoding="utf-8")
    assert "tree" not in server[server.index("def speculative_config"):server.index("class ", server.index(
        "def speculative_config"))]


def test_mtp_section_does_not_say_draft_modules_cannot_be_added_to_a_trained_model():
    """Read 40: MTP's "Loses" said "you cannot bolt MTP on without retraining", which reads as contradicting Medusa
    and EAGLE on the same page: both add draft modules to a frozen, already trained model. What cannot be added
    afterwards is the gain of pre-training the model itself with the multi-token objective."""
    mtp = next(p for p in view.PROPOSERS if p.key == "mtp")
    assert "bolt" not in mtp.loses and "frozen model" in mtp.loses
    assert "Medusa" in mtp.loses and "EAGLE" in mtp.loses


def test_layer_skip_cost_names_the_lm_head_share_alone_and_quotes_the_measured_c(page):
    """Read 40: "c is the layer fraction plus the LM head (≈ 21% of SmolLM2-135M)" read as if layers plus head were
    21%; the head alone is 576 × 49,152 of SmolLM2-135M's ~134.5M weights. The section now quotes the run's c
    (default-cpu-layerskip), which sits well above the layer ratio 7/30 as the sentence says."""
    head_share = 576 * 49_152 / 134_515_008
    assert round(head_share * 100) == 21
    c = view.measured()["c_layerskip"]
    assert c.low > 7 / 30 + 0.05
    layerskip = next(p for p in view.PROPOSERS if p.key == "layerskip")
    assert "c_layerskip" in layerskip.figures and "{c_layerskip}" in layerskip.costs
    assert "on its own ≈ 21%" in layerskip.costs
    text = " ".join(m.value for m in page.markdown)
    assert f"(7 of 30 layers): {number(c.low, 3)} here" in text


def test_every_measured_figure_on_a_card_is_marked_here_as_its_caption_says():
    """Read 44: a card's caption reads "Figures marked “here” come from the committed benchmarks", but the separate
    draft model's c ({c_draft}, its only figure) and EAGLE's c carried no "here": on the draft card the caption named
    a mark that marked nothing. Every card field that quotes a measured figure now says "here", "aqui" in Portuguese."""
    import re

    from specviz.core.i18n import _, using

    figures = set(view.measured())
    checked = 0
    for proposer in view.PROPOSERS:
        for field in ("how", "costs", "needs", "wins", "loses"):
            text = getattr(proposer, field)
            if not set(re.findall(r"\{(\w+)\}", text)) & figures:
                continue
            checked += 1
            assert " here" in text, (proposer.key, field)
            with using("pt"):
                assert " aqui" in _(text), (proposer.key, field)
    assert checked >= 8  # draft, n-gram, layer-skip (2), Medusa (2), EAGLE (2)


def test_the_mask_sentence_lets_a_node_attend_to_itself_as_the_table_marks():
    """Read 45: the sentence over the mask table said a node may attend "only to the context and its own
    ancestors", which leaves the node itself out, while the table's diagonal marks every node ✓ (and quiz item
    tr-mask counts it). The sentence now names the node itself, in both languages."""
    from specviz.core.i18n import _, using

    mask = view.tree_attention_mask([parent for _, parent in view.TREE_NODES])
    assert all(mask[i][i] for i in range(len(mask)))
    assert "its own ancestors and itself" in view.TREE_TEXT["mask"]
    with using("pt"):
        assert "o contexto, os seus próprios ancestrais e a si mesmo" in _(view.TREE_TEXT["mask"])


def test_the_eagle_section_says_specvizs_eagle_3_scores_tokens_with_its_own_head():
    """Read 45: the EAGLE section's diagram and text showed EAGLE-1 (the next feature read off the target's LM
    head) and said of EAGLE-3 only that it fuses layers and trains on its own outputs; specviz's drafter, whose c
    the section quotes, is an EAGLE-3 with a head of its own over a smaller draft vocabulary and no feature target
    (its card: "no feature regression")."""
    import json

    from specviz.core.paths import MODELS_DIR

    meta = json.loads((MODELS_DIR / "smollm2-eagle" / "specviz.json").read_text(encoding="utf-8"))
    assert meta["kind"] == "eagle3" and meta["draft_vocab_size"] < meta["vocab_size"]
    eagle = next(p for p in view.PROPOSERS if p.key == "eagle")
    assert "target's LM head" in eagle.dot and "as the diagram shows" in eagle.how
    assert "EAGLE-3, specviz's kind, no longer predicts the next feature" in eagle.how
    assert "a head of its own over a smaller draft vocabulary" in eagle.how


def test_the_layer_skip_speed_names_the_one_prompt_its_run_measured():
    """Read 45: the layer-skip speed range read as a general figure; its run measured one question-answering prompt
    (suite qa), as the n-gram section says of its one copying prompt."""
    import json

    from specviz.core.i18n import _, using
    from specviz.core.paths import BENCHMARKS_DIR

    run = json.loads((BENCHMARKS_DIR / "default-cpu-layerskip" / "results.json").read_text(encoding="utf-8"))
    rows = [r for r in run["summary"] if r["proposer"] == "layerskip-7"]
    assert rows and {r["prompts"] for r in rows} == {1}
    assert [(suite["name"], suite["title"]) for suite in run["suites"]] == [("qa", "Question answering")]
    layerskip = next(p for p in view.PROPOSERS if p.key == "layerskip")
    assert "here, on one question-answering prompt, at each K the run held fixed, 1 to 8, greedy and at T = 0.7" \
        in layerskip.loses
    # read 46: "at a fixed K" read as one K, but the quoted range runs over every K and both temperatures of the run
    constant = [r for r in rows if r["policy"] == "constant" and r["suite"] == "all"]
    assert sorted({r["k"] for r in constant}) == run["config"]["ks"] and min(run["config"]["ks"]) == 1
    assert max(run["config"]["ks"]) == 8 and run["config"]["temperatures"] == [0.0, 0.7]
    slowest = min(constant, key=lambda r: r["speedup_vs_ar"])
    fastest = max(constant, key=lambda r: r["speedup_vs_ar"])
    assert slowest["k"] != fastest["k"]  # the range is not one K's
    quoted = view.measured()["layerskip"]
    assert (quoted.low, quoted.high) == (slowest["speedup_vs_ar"], fastest["speedup_vs_ar"])
    with using("pt"):
        shown = _(layerskip.loses, **view.figure_texts())
    assert "em cada K que a execução manteve fixo, de 1 a 8, com decodificação gulosa e com T = 0,7" in shown


def test_the_lesson_the_plan_and_the_quiz_let_a_tree_node_see_itself_as_the_mask_does():
    """Read 45 (review): the Proposers page's mask sentence now lets a node attend to "the context, its own ancestors
    and itself", but lesson 9 still said the mask "lets each node see only its own ancestors" (its own check, tr-mask,
    counts the node itself), the lecture plans' lesson 9 note "each node sees its ancestors only" beside the mask
    table it asks the lecturer to draw, and md-tree's explanation "each token attending only to its own ancestors".
    Each now names the context and the node itself, in both languages."""
    from specviz.core.i18n import _, using
    from specviz.teach.learn import LESSONS

    mask = view.tree_attention_mask([parent for _, parent in view.TREE_NODES])
    assert all(mask[i][i] for i in range(len(mask)))  # the table's diagonal: every node attends to itself
    assert load_bank().by_id()["tr-mask"].answer == 2  # a's child c: its ancestor a and itself
    lesson = next(lesson for lesson in LESSONS if lesson.number == 9)
    flat = " ".join(lesson.text.split())
    assert "lets each node see only the context, its own ancestors and itself, as if it were alone" in flat
    with using("pt"):
        assert "deixa cada nó ver só o contexto, os seus próprios ancestrais e a si mesmo, como se" in _(lesson.text)
    plans = {name: " ".join((ROOT / "docs" / name).read_text(encoding="utf-8").split())
             for name in ("teaching.md", "teaching.pt-BR.md")}
    assert "each node sees only the context, its ancestors and itself (the table's diagonal)" in plans["teaching.md"]
    assert "cada nó vê só o contexto, os seus ancestrais e a si mesmo (a diagonal da tabela)" in plans[
        "teaching.pt-BR.md"]
    assert "node sees its ancestors only" not in plans["teaching.md"]
    assert "cada nó vê só os seus ancestrais" not in plans["teaching.pt-BR.md"]
    for lang, said in (("en", "each token attending only to the context, its own ancestors and itself"),
                       ("pt", "com cada token prestando atenção só ao contexto, aos seus próprios ancestrais e a si "
                              "mesmo")):
        explanation = " ".join(load_bank(lang=lang).by_id()["md-tree"].explanation.split())
        assert said in explanation, (lang, explanation)


def test_layer_skip_says_only_early_exit_needs_training_as_draft_and_verify_skips_untrained():
    """Read 46: the section credits Draft & Verify (Zhang et al. 2024), which skips intermediate layers of a model
    never trained for it (a search picks the layers), yet it said the method needs "a model trained to exit early"
    and loses on "untrained models". Both now hold for early exit only, in both languages."""
    from specviz.core.i18n import _, using

    layerskip = next(p for p in view.PROPOSERS if p.key == "layerskip")
    assert "Draft & Verify" in layerskip.how and "intermediate layers" in layerskip.how
    assert not layerskip.loses.startswith("Untrained models")
    assert layerskip.loses.startswith("Early exit from a model never trained for it")
    assert layerskip.needs.startswith("To draft with its first layers, a model trained to exit early")
    assert "(Draft & Verify) needs no training, only a search for which layers to skip" in layerskip.needs
    with using("pt"):
        needs, loses = _(layerskip.needs), _(layerskip.loses, **view.figure_texts())
    assert "(Draft & Verify) não exige treino, só uma busca por quais camadas pular" in needs
    assert loses.startswith("Saída antecipada de um modelo que nunca foi treinado para ela")


def test_the_typical_caption_says_the_chart_is_the_first_token_a_step_emits():
    """Read 46: at K = 1 a step that keeps its draft emits two tokens, but the chart is one token's distribution
    (`one_step_distribution`: the first token one step emits); the caption said "what one step emits"."""
    from specviz.core.i18n import _, using

    frame = view.typical_vs_exact()
    for column in frame.columns:
        assert frame[column].sum() == pytest.approx(1.0)  # one token's distribution, not a step's output
    caption = view.TEXT["typical_caption"]
    assert "the first token one step emits (K = 1)" in caption and "; what one step emits" not in caption
    with using("pt"):
        assert "o primeiro token que um passo emite (K = 1)" in _(caption)


def test_the_typical_charts_name_says_it_shows_the_first_token_a_step_emits(page):
    """Read 46: the chart's name for screen readers said "One step's output distribution", as the caption did."""
    import html

    names = html.unescape(" ".join(h.proto.body for h in page.get("html")))
    assert "Distribution of the first token one step emits: p, the exact rule and typical acceptance" in names
    assert "One step's output distribution" not in names


def test_the_intro_promises_quiz_questions_only_where_the_quiz_has_some(page):
    """Read 49: the intro said each proposer comes "with ... the quiz questions on it", but the bank has none on
    multi-token prediction, lookahead or suffix decoding, whose sections show no quiz list."""
    intro = page.markdown[0].value
    quizzes = [e for e in page.expander if e.label.startswith("Quiz questions on this")]
    assert len(quizzes) < len(view.sections())  # some sections have no questions to list
    assert intro.endswith("and the quiz questions on it where the quiz has some.")


def test_the_typical_acceptance_chart_keeps_its_legend_off_the_axis_title():
    """Read 49 (a browser look at 390 px, Portuguese): the typical-acceptance chart hung its legend at -0.25 of the
    plot's height, and its two rows ("p (alvo)", "regra exata", "aceitação típica") lay on the axis title "token".
    The legend now sits at the figure's bottom, below the title, as the Exactness lab's do."""
    fig = view.typical_figure(view.typical_vs_exact())
    legend = fig.layout.legend
    assert legend.orientation == "h" and legend.yref == "container" and legend.yanchor == "bottom", legend
    assert legend.y == 0 and fig.layout.xaxis.title.text == "token"


def test_the_tree_mask_is_a_scrolling_grid_that_keeps_its_row_names(page):
    """Read 50: at 390 px the mask's 8 columns need 501 px; it is an st.dataframe grid, which scrolls sideways by
    touch and, once Tab reaches it, by the arrow keys (Chromium), with its index, the row's token, pinned."""
    import json

    (mask,) = [d for d in page.dataframe if list(d.value.columns) == list(view.mask_frame().columns)]
    names = [f"{i}:{token}" for i, (token, _) in enumerate(view.TREE_NODES)]
    assert list(mask.value.index) == list(mask.value.columns) == names
    assert not json.loads(mask.proto.columns or "{}").get("_index", {}).get("hidden")


@pytest.mark.slow  # a CLI run in a subprocess: make check stays under a minute
def test_a_tree_trace_of_one_node_a_step_is_described_as_a_chain():
    """Read 51: the recorded-trace sentence called the mean of any tree trace "not an estimate of α: a child tried
    after a rejected sibling meets the residual p′", though with one node a step no child has a sibling; the CLI and
    the Theory page call that mean an α estimate (`Trace.mean_estimates_alpha`)."""
    import subprocess
    import sys

    from specviz.engine.trace import Trace

    out = subprocess.run([sys.executable, "-m", "specviz", "generate", "--pair", "toy", "--prompt", "the cat",
                          "--max-new-tokens", "16", "--temperature", "1", "--seed", "3", "--tree-nodes", "1",
                          "--json", "-"], capture_output=True, text=True, cwd=ROOT, check=True)
    trace = Trace.from_json(out.stdout)
    assert any(s.tree is not None for s in trace.steps) and trace.mean_estimates_alpha
    said = view.example_stats(trace)
    assert "(an estimate of α)" in said and "not an estimate" not in said and "p′" not in said


@pytest.mark.parametrize("lang, said", [
    ("en", "So A comes out with its own q, 0.2, plus q(E) + q(F) = 0.2: 0.4 in all, exactly p(A), and the chart "
           "shows it no excess."),
    ("pt", "Então A sai com o seu próprio q, 0,2, mais q(E) + q(F) = 0,2: 0,4 ao todo, exatamente p(A), e o gráfico "
           "não lhe mostra excesso.")])
def test_the_typical_caption_says_a_gets_exactly_p_of_a(lang, said):
    """Read 53: the caption said typical acceptance "gives their share [E's and F's] to the target's most likely
    token, A", which reads as A coming out too often; A takes q(E) + q(F) = 0.2 on top of its own q = 0.2, which is
    exactly p(A) = 0.4, and the chart shows no excess for A."""
    from specviz.core.i18n import using

    frame = view.typical_vs_exact()
    assert frame["typical acceptance"]["A"] == pytest.approx(frame["p (target)"]["A"])  # no excess for A
    assert view.TYPICAL_Q[0] + view.TYPICAL_Q[4] + view.TYPICAL_Q[5] == pytest.approx(0.4)
    with using(lang):
        caption = view.typical_caption(frame)
    assert said in caption and "gives their share" not in caption and "dá a parte deles" not in caption


def test_the_mtp_section_names_the_quantity_deepseek_reports():
    """Read 53: "DeepSeek-V3 reports about 85–90% acceptance of the second token" named no quantity, where the
    project keeps one name per quantity; DeepSeek-V3 reports the acceptance rate (accepted / drafted) of the one token
    its MTP module drafts per step."""
    from specviz.core.i18n import _, using

    mtp = next(p for p in view.PROPOSERS if p.key == "mtp")
    for lang, rate, fraction in (("en", "acceptance rate", "accepted / drafted"),
                                 ("pt", "taxa de aceitação", "aceitos / rascunhados")):
        with using(lang):
            wins = _(mtp.wins)
        assert "85–90%" in wins and rate in wins and fraction in wins, (lang, wins)
        assert "acceptance of" not in wins and "de aceitação do" not in wins


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_every_cards_c_is_written_as_its_runs_results_md_writes_it(lang):
    """Read 54: the Medusa card read "c = 0.05 here" (and the draft's 0.30, EAGLE's 0.09) where the run's results.md,
    the Speedup lab and the Theory explorer write the same measured c as 0.046 (0.303, 0.093): two roundings of one
    figure. Every c a card quotes is now written as those are (`small_number`), in both languages."""
    import re

    from specviz.core.i18n import _
    from specviz.core.paths import BENCHMARKS_DIR

    figures = view.measured()
    names = {"c_draft": "draft", "c_eagle": "eagle", "c_layerskip": "layerskip-7", "c_medusa": "medusa"}
    assert set(names) <= set(figures)
    with using(lang):
        texts = view.figure_texts()
        cards = " ".join(_(getattr(p, field), **texts) for p in view.PROPOSERS
                         for field in ("how", "costs", "needs", "wins", "loses") if getattr(p, field))
    for key, proposer in names.items():
        report = (BENCHMARKS_DIR / figures[key].folder / "results.md").read_text(encoding="utf-8")
        in_report = re.search(rf"^- {proposer}: draft forward [\d.]+ ms, c = ([\d.]+)$", report, re.M)[1]
        assert texts[key] == (in_report if lang == "en" else in_report.replace(".", ",")), key
        assert f"{texts[key]} here" in cards or f"{texts[key]} aqui" in cards, key
    with using(lang):
        assert texts["c_medusa"] == small_number(figures["c_medusa"].low) == number(0.046101972572461, 3)
    assert set(view.COSTS) == set(names)
