"""Read 36 (claims with an absolute word): quiz and lesson sentences that said always / whenever / only where the
committed files show it holds under a condition."""

from __future__ import annotations

from specviz.teach.quiz import load_bank


def test_the_roadmap_explanation_says_acceptance_can_drift_not_that_it_always_does():
    """`pr-roadmap` said "acceptance drifts whenever the prompts change" (pt "muda sempre que"): a prompt change
    need not move it. The committed vLLM sweep shows it moving with the prompt at one level and not at another."""
    from specviz.serving.results import ServingResult, find_serving_results

    result = ServingResult.load(find_serving_results()[0])
    rates = {streams: [result.level("ngram", prompt, streams).acceptance_rate for prompt in ("copy", "open")]
             for streams in result.concurrencies("open")}
    assert rates and max(abs(a - b) for a, b in rates.values()) > 0.05  # moved with the prompt at one level
    assert min(abs(a - b) for a, b in rates.values()) < 0.01  # and not at another (0.72 and 0.71 at one stream)
    for language, wrong, right in (("en", "drifts whenever", "can drift when"), ("pt", "muda sempre que",
                                                                                 "pode mudar quando")):
        explanation = load_bank(lang=language).by_id()["pr-roadmap"].explanation
        assert wrong not in explanation and right in explanation


def test_the_plans_say_n_gram_lookup_costs_almost_nothing_with_the_committed_c():
    """docs/teaching.md (and pt) said n-gram lookup "costs nothing" ("não custa nada"); its committed c is small but
    not 0: the plans now quote it from assets/benchmarks/default-cpu-ngram, which this test reads."""
    import json
    from pathlib import Path

    from specviz.core.i18n import number, using

    root = Path(__file__).resolve().parents[2]
    rows = json.loads((root / "assets/benchmarks/default-cpu-ngram/results.json").read_text())["summary"]
    costs = {round(row["c"], 4) for row in rows if row["proposer"] == "ngram"}
    assert len(costs) == 1 and 0 < next(iter(costs)) < 0.001
    english = " ".join((root / "docs/teaching.md").read_text(encoding="utf-8").split())
    portuguese = " ".join((root / "docs/teaching.pt-BR.md").read_text(encoding="utf-8").split())
    with using("pt"):
        shown_pt = number(next(iter(costs)), 4)
    assert f"n-gram lookup costs almost nothing (its measured c, one search over the text, is {costs.pop()}" in english
    assert f"quase não custa nada (o seu c medido, uma busca no texto, é {shown_pt}" in portuguese
    assert "n-gram lookup costs nothing" not in english and "n-gramas não custa nada" not in portuguese


def test_the_first_question_says_where_exact_stops_in_both_languages():
    """`ci-what-is` called speculative decoding "an exact acceleration method" with no word on rounding (the Overview
    said the same until read 36); its explanation now says exact holds in exact arithmetic, as `q-quality`'s does."""
    for language, says in (("en", "Exact in exact arithmetic: a computer rounds"),
                           ("pt", "Exato em aritmética exata: um computador arredonda")):
        assert says in " ".join(load_bank(lang=language).by_id()["ci-what-is"].explanation.split())


def test_testing_md_gives_the_tolerance_of_the_forward_equality_checks():
    """Read 36: docs/testing.md said a rewound cache's logits "equal a fresh forward" and a tree-masked forward
    "equals a fresh forward per node"; the tests compare with atol=1e-5 (on the toy pair the rewound logits sat about
    1e-6 from the fresh ones when read 36 looked): two computations in another order round differently."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    text = " ".join((root / "docs/testing.md").read_text(encoding="utf-8").split())
    for file, name in (("engine/test_engine.py", "test_rewound_cache_gives_the_logits_of_a_fresh_forward"),
                       ("engine/test_tree.py", "test_one_tree_forward_then_compaction_equals_fresh_forwards")):
        body = re.search(rf"def {name}\(.*?(?=\n\n\n|\Z)", (root / "tests" / file).read_text(), re.S)
        assert body and "atol=1e-5" in body.group(0), file
    assert "logits match a fresh forward on the same prefix to 1e-5" in text
    assert "one tree-masked forward matches a fresh forward per node to 1e-5" in text
    assert "logits equal a fresh forward" not in text and "tree-masked forward equals" not in text


def test_architecture_md_says_the_lean_runner_matches_up_to_rounding():
    """docs/architecture.md said the lean runner and transformers' forward "compute the same function"; the test it
    cites compares them with assert_close at 1e-5 (1e-4 over 300 tokens), not bit for bit."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    source = (root / "tests/engine/test_lean_runner.py").read_text()
    assert "atol=1e-5" in source and "atol=1e-4" in source
    text = " ".join((root / "docs/architecture.md").read_text(encoding="utf-8").split())
    assert "Both compute the same function, up to rounding" in text and "to 1e-5 in float32, 1e-4 over" in text


def test_the_plans_bfloat16_answer_counts_a_trees_verify_pass_too():
    """The 37th read: question 6 of teaching.md's board exercises answered "the verify pass over K + 1 tokens" and then
    quoted the committed float32 check, which drafted a tree (8 nodes + a lookup branch of 8: 17 rows), as the race
    notes and the Exactness page's greedy check did before; both languages now count a tree's pass too."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    # read 55: a chain's forward scores UP TO K + 1 tokens, and the app calls it the target forward
    for name, says in (("teaching.md", "the target forward over several tokens (up to K + 1 for a chain; a tree's "
                                       "nodes, its lookup branch and one more) rounds differently from a one-token "
                                       "forward"),
                       ("teaching.pt-BR.md", "a passagem do alvo sobre vários tokens (até K + 1 numa cadeia; numa "
                                             "árvore, seus nós, o ramo de busca e mais um) arredonda")):
        text = " ".join((root / "docs" / name).read_text(encoding="utf-8").split())
        assert says in text, name
        assert "verify pass over K + 1 tokens rounds" not in text and "sobre K + 1 tokens arredonda" not in text


def test_session_1_says_a_bfloat16_near_tie_can_flip_not_that_it_does():
    """Read 40: session 1's row for lesson 5 said "in bfloat16 a K+1-token pass rounds differently from a one-token
    pass, a near-tie flips" ("um quase empate se inverte"), as if every near-tie flipped; lesson 5, the Exactness
    lab and homework 6 say it can (2 of 8 prompts matched in the committed bfloat16 check, not 0)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for name, says, said in (("teaching.md", "a one-token pass, a near-tie can flip, and the text after it then differs",
                              "a near-tie flips"),
                             ("teaching.pt-BR.md", "um quase empate pode se inverter, e o texto depois dele então muda",
                              "um quase empate se inverte")):
        row = next(line for line in (root / "docs" / name).read_text(encoding="utf-8").splitlines()
                   if line.startswith("| 34–42 |"))
        assert says in row and said not in row, name
