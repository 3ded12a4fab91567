"""What the app teaches agrees with itself (issue 14): every quiz question links to a page that teaches its concept,
and the texts section 1 of the issue corrected keep saying the right thing."""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import pytest
import torch

from specviz.labs.exactness.registry import RULES, one_step_distribution
from specviz.teach.pagemap import PAGE_FILES
from specviz.teach.quiz import BANK_DIR, load_bank
from specviz.teach.quiz.schema import FORMULAS

ROOT = Path(__file__).parents[2]

# concept -> words at least one of which the linked page (or a specviz module it imports) must say, case-insensitive
CONCEPT_WORDS = {
    "memory_bound": ["memory-bound", "memory bandwidth"],
    "core_idea": ["one forward pass", "one pass"],
    "accept_rule": ["min(1, p"],
    "first_disagreement": ["first rejection"],
    "residual": ["max(0, p − q)", "max(0, p - q)"],
    "bonus_token": ["bonus"],
    "quality": ["exactly the target", "exact"],
    "speedup": ["speedup"],
    "choosing_k": ["optimal k", "best k"],
    "greedy_vs_sampling": ["greedy"],
    "kv_rollback": ["kv cache", "kv-cache"],
    "prompt_lookup": ["prompt lookup", "n-gram"],
    "layer_skip": ["layer-skip", "layer skip"],
    "medusa": ["medusa"],
    "eagle": ["eagle"],
    "trees": ["tree"],
    "production": ["acceptance rate", "latency"],
    "limits": ["batch", "break-even", "slower"],
}


def _module_file(name: str) -> Path | None:
    path = ROOT / Path(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def page_text(page: str) -> str:
    """The page file's source and that of every specviz module it imports, transitively (where its words live)."""
    seen: set[Path] = set()
    todo = [ROOT / page]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom) else
                     [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            if isinstance(node, ast.ImportFrom) and node.module:
                names += [f"{node.module}.{a.name}" for a in node.names]
            for name in names:
                if name.startswith(("specviz.ui", "specviz.labs.exactness")):
                    found = _module_file(name)
                    if found:
                        todo.append(found)
    return "\n".join(p.read_text() for p in seen).lower()


def test_every_concept_has_words_to_look_for():
    bank = load_bank([BANK_DIR])
    assert {q.concept for q in bank} <= set(CONCEPT_WORDS)


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_every_quiz_link_points_at_a_page_that_teaches_its_concept():
    bank = load_bank([BANK_DIR])
    texts = {page: page_text(page) for page in PAGE_FILES}
    missing = [f"{q.id} -> {q.link}" for q in bank
               if not any(word in texts[q.link] for word in CONCEPT_WORDS[q.concept])]
    assert not missing, missing


def test_accept_iff_p_ge_q_never_emits_a_token_the_draft_over_proposes():
    """The registry says so: with p(x) < q(x), acceptance turns x down and the residual gives it nothing."""
    p, q = torch.tensor([0.5, 0.3, 0.2]), torch.tensor([0.2, 0.6, 0.2])
    emitted, _ = one_step_distribution("accept_if_p_ge_q", p, q)
    assert emitted[1] == 0 and p[1] > 0
    assert "never emitted" in RULES["accept_if_p_ge_q"].explanation


def test_exact_match_accepts_as_often_as_the_exact_rule_for_a_point_mass_proposer():
    p = torch.tensor([0.5, 0.3, 0.2])
    for guess in range(3):
        q = torch.nn.functional.one_hot(torch.tensor(guess), 3).double()
        _, match = one_step_distribution("exact_match", p, q)
        _, exact = one_step_distribution("exact", p, q)
        assert match == pytest.approx(exact) == pytest.approx(float(p[guess]))
    spread = torch.tensor([0.2, 0.6, 0.2])
    assert one_step_distribution("exact_match", p, spread)[1] < one_step_distribution("exact", p, spread)[1]
    assert "less often: Σ p(x)q(x) instead of Σ min(p, q)" not in RULES["exact_match"].explanation


def test_kv_questions_end_at_before_plus_one_plus_accepted_as_the_cache_panel_does():
    by_id = load_bank([BANK_DIR]).by_id()
    assert by_id["kv-count"].answer == 100 + 1 + 1
    # the formula itself has the +1 (the last emitted token's entry), fed the cache as the question states it
    assert by_id["kv-count"].params == {"cache_before": 100, "n_accepted": 1}
    assert FORMULAS["cache_after_rollback"](cache_before=14, n_accepted=2) == 17  # README's 14 -> 17
    assert any("last emitted token and all K" in item for item in by_id["kv-order"].answer)


def test_the_quiz_formula_matches_every_recorded_step_the_cache_panel_draws():
    from specviz.labs.examples import list_examples, load_example

    checked = 0
    for example in list_examples():
        trace = load_example(example.name)[0]
        for step in (s for s in trace.steps if s.decisions):
            assert step.target_cache_after == FORMULAS["cache_after_rollback"](
                cache_before=step.target_cache_before, n_accepted=step.n_accepted), (example.name, step.index)
            checked += 1
    assert checked > 0, "no example has a step with decisions"


def test_best_k_accepts_the_flat_optimum():
    q = load_bank([BANK_DIR]).by_id()["ck-best-1"]
    speedups = {k: (1 - 0.83 ** (k + 1)) / ((1 - 0.83) * (k * 0.05 + 1)) for k in range(1, 11)}
    flat = [k for k, s in speedups.items() if s >= 0.995 * max(speedups.values())]
    assert all(abs(k - q.answer) <= q.tolerance for k in flat) and "flat" in q.explanation


def test_readme_quotes_the_speedup_with_the_verify_cost():
    """The speedup formula with the verify cost v lives in docs/benchmarks.md since the README became a front door."""
    text = (ROOT / "docs" / "benchmarks.md").read_text()
    assert "E / (K·c + v)" in text
    for doc in (ROOT / "README.md", ROOT / "docs" / "benchmarks.md"):
        assert "on a CPU or a GPU at batch size 1" not in doc.read_text()


PLAN_EN, PLAN_PT = (ROOT / "docs" / "teaching.md"), (ROOT / "docs" / "teaching.pt-BR.md")
MINUTES = {"two rounds": 4, "duas rodadas": 4, "round 1 only": 1.5, "só a rodada 1": 1.5, "one round": 2,
           "uma rodada": 2}


def _sessions(text: str) -> list[list[list[str]]]:
    """The plan's timetables: for each session, its table rows as cells."""
    sessions, rows = [], None
    for line in text.splitlines():
        if line.startswith("## ") and rows is not None:
            sessions.append(rows)
            rows = None
        if line.startswith(("## Session", "## Aula")):
            rows = []
        elif rows is not None and re.match(r"\| \d+–\d+ \|", line):
            rows.append([c.strip() for c in line.strip("|").split("|")])
    return sessions + ([rows] if rows else [])


WORDS = {"four": 4, "five": 5, "quatro": 4, "cinco": 5}


def _summaries(text: str) -> list[tuple[int, float]]:
    """What the sentence under each timetable claims: (pushes after the warm-up, minutes of polling)."""
    said = re.findall(r"^(?:A warm-up and|Um aquecimento e) (\w+) (?:pushes|envios), (?:about|cerca de) (\d+) "
                      r"(?:minutes of polling|minutos de perguntas)", text, flags=re.MULTILINE)
    return [(WORDS[count.lower()], float(minutes)) for count, minutes in said]


@pytest.mark.parametrize("plan", [PLAN_EN, PLAN_PT])
def test_each_session_says_the_pushes_and_minutes_its_table_holds(plan):
    """The sentence under a timetable ("A warm-up and four pushes, about 12 minutes of polling") counts what the
    table pushes: one round-1-only warm-up, then the rest, their minutes added up as the polling budget does."""
    text = plan.read_text(encoding="utf-8")
    assert plan != PLAN_EN or "A warm-up and four pushes, about 12 minutes of polling" in text  # the quoted one
    sessions, said = _sessions(text), _summaries(text)
    assert len(said) == len(sessions) == 2
    for rows, (count, minutes) in zip(sessions, said):
        pushes = [row[3] for row in rows if re.search(r"`[a-z]{1,3}-[a-z0-9-]+`", row[3])]
        warm_ups = [p for p in pushes if "round 1 only" in p or "só a rodada 1" in p]
        polling = sum(next((m for key, m in MINUTES.items() if key in push), 4) for push in pushes)
        assert (len(warm_ups), len(pushes) - len(warm_ups)) == (1, count)
        assert abs(polling - minutes) <= 1, (polling, minutes)


@pytest.mark.parametrize("plan", [PLAN_EN, PLAN_PT])
def test_each_session_opens_with_its_warm_up_and_session_2s_derivations_keep_their_minutes(plan):
    """Read 47: session 2's minutes 5-13 held lesson 6, board derivations 2 and 3, the Theory explorer and the
    `sp-driver` warm-up, about 6 minutes for two derivations. The warm-up now closes the 0-5 recap, as session 1's
    opens its first row, and the derivations' row pushes nothing; the heading below still names its minutes."""
    text = plan.read_text(encoding="utf-8")
    for rows in _sessions(text):
        warm_ups = [i for i, row in enumerate(rows) if "round 1 only" in row[3] or "só a rodada 1" in row[3]]
        assert warm_ups == [0], [row[3] for row in rows]
    rows = _sessions(text)[1]
    board = next(row for row in rows if "Board derivations 2 and 3" in row[2] or "Deduções no quadro 2 e 3" in row[2])
    assert board[3] == "—" and "`sp-driver`" in rows[0][3], board
    start, end = map(int, board[0].split("–"))
    assert end - start == 8 and f"(minut{'es' if plan == PLAN_EN else 'os'} {start}–{end})" in text


@pytest.mark.parametrize("plan", [PLAN_EN, PLAN_PT])
def test_the_plan_is_two_50_minute_sessions_a_lecturer_can_run(plan):
    """Issue 26: two sessions of 50 minutes whose polling leaves time to teach, with objectives, prerequisites, the
    board derivations, a worked example, notes for lessons 8-10, a fallback, homework with answers and readings."""
    text = plan.read_text(encoding="utf-8")
    sessions = _sessions(text)
    assert len(sessions) == 2
    for rows in sessions:
        spans = [tuple(map(int, row[0].split("–"))) for row in rows]
        assert spans[0][0] == 0 and spans[-1][1] == 50
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))  # contiguous, no gap, no overlap
        pushes = [row[3] for row in rows if re.search(r"`[a-z]{1,3}-[a-z0-9-]+`", row[3])]
        assert 3 <= len(pushes) <= 5
        polling = sum(next((m for key, m in MINUTES.items() if key in push), 4) for push in pushes)
        assert polling <= 18  # at most about a third of the session
    for words in (("Objectives", "Objetivos"), ("prerequisites", "pré-requisitos"), ("worked example", "exemplo resolvido"),
                  ("Lessons 8–11", "lições 8–11"), ("phones or the network fail", "celulares ou a rede falham"),
                  ("Homework", "Tarefas")):
        assert any(w.lower() in text.lower() for w in words), words
    for formula in ("min(p, q) + (p − q)⁺", "(1 − α^(K+1)) / (1 − α)", "S = E / (K·c + v)"):
        assert formula in text, formula
    for paper in ("2211.17192", "2302.01318", "2401.10774", "2401.15077", "2406.16858", "2503.01840", "2305.09781",
                  "docs.vllm.ai"):
        assert paper in text, paper


def test_the_plans_worked_numbers_are_right():
    from specviz.engine import theory

    text = PLAN_EN.read_text(encoding="utf-8")
    assert f"**{theory.expected_tokens_per_step(0.7, 3):.2f}** tokens per target pass" in text
    assert f"S = 2.53 / 1.3 = {theory.expected_speedup(0.7, 3, 0.1):.2f}×" in text
    assert f"{theory.speedup_with_verify_cost(0.7, 3, 0.1, 1.5):.2f}×" in text
    assert theory.optimal_k(0.7, 0.1, 10) == 4 and "K = 4 (S = 1.98×)" in text
    assert theory.optimal_k(0.6, 0.1, 10) == 3 and "K = 3 (1.67×)" in text
    assert f"{theory.expected_tokens_per_step(0.6, 3):.3f}" in text
    assert f"{theory.expected_speedup(0.6, 3, 0.05):.2f}×" in text and \
        f"{theory.speedup_with_verify_cost(0.6, 3, 0.05, 1.6):.2f}×" in text


def _verify_range(run: str, digits: int, lang: str) -> str:
    """The lo–hi cost of a verify pass over 2-5 tokens, in one-token passes, as a committed run measured it."""
    import json

    from specviz.core.i18n import number, using

    costs = json.loads((ROOT / "assets" / "benchmarks" / run / "results.json").read_text())["costs"]
    ratios = [row["ratio"] for row in costs["verify"] if 2 <= row["n_tokens"] <= 5]
    with using(lang):
        return f"{number(min(ratios), digits)}–{number(max(ratios), digits)}"


def test_the_plans_verify_costs_are_the_committed_runs():
    """Issue 43 item 4: the guide's verify-pass costs are typed by hand, so they are checked against the committed
    files they cite (the packed-kernel runs on the AMD EPYC, the stock-kernel float32 run), in both languages."""
    for plan, lang in ((PLAN_EN, "en"), (PLAN_PT, "pt")):
        text = plan.read_text(encoding="utf-8")
        bf16, f32 = _verify_range("default-cpu-bf16-packed", 2, lang), _verify_range("default-cpu-f32-packed", 2, lang)
        stock = _verify_range("default-cpu-drafts", 1, lang)
        said = {"en": (f"cost {bf16} one-token passes in bfloat16 and {f32} in", f"{f32}× in float32 and {bf16}× in "
                       "bfloat16", f"2–5 tokens cost {stock}× one"),
                "pt": (f"custou {bf16} passagens de um token em bfloat16", f"e {f32} em float32",
                          f"{f32}× em float32 e {bf16}× em bfloat16", f"2–5 tokens custam {stock}× um")}[lang]
        assert len(said) >= 3
        for words in said:
            assert words in " ".join(text.split()), (plan.name, words)


def test_benchmarks_quotes_the_lookup_branchs_verify_cost_from_its_run():
    """Issue 43 item 4: the 25- and 17-token verify costs benchmarks.md quotes for the lookup branch are the bfloat16
    curve of the run it names."""
    import json

    costs = json.loads((ROOT / "assets" / "benchmarks" / "default-cpu-bf16-tree" / "results.json").read_text())["costs"]
    curve = {row["n_tokens"]: row["ratio"] for row in costs["verify_curves"]["bfloat16"]}
    text = " ".join((ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").split())
    assert (f"(25 tokens instead of 17: {curve[25]:.2f}× a one-token forward against {curve[17]:.2f}× in bfloat16"
            in text)


def test_lesson_7_and_the_plan_work_the_articles_pair_through_the_formula():
    """Issue 43 item 11: the article's 7B / 70B pair at c = 0.1. The figures the lesson fills in come from
    article_figures(); the guide types them, and the lesson types the α that reaches 3× and its best K."""
    from specviz.core.i18n import _, number, using
    from specviz.engine import theory
    from specviz.teach.learn import ARTICLE_C, LESSONS, article_figures

    def best(alpha: float) -> float:
        return theory.expected_speedup(alpha, theory.optimal_k(alpha, ARTICLE_C, 20), ARTICLE_C)

    alpha = next(a / 1000 for a in range(700, 1000) if best(a / 1000) >= 3)  # the smallest α whose best K reaches 3×
    lesson, k_best = next(lesson for lesson in LESSONS if lesson.number == 7), theory.optimal_k(alpha, ARTICLE_C, 20)
    assert f"α of about {alpha:.2f}, where the best K rises to about {k_best}" in " ".join(lesson.text.split())
    with using("pt"):
        said = f"α de cerca de {number(alpha, 2)}, e aí o melhor K sobe para cerca de {k_best}"
        assert said in " ".join(_(lesson.text).split())
    for plan, lang, k in ((PLAN_EN, "en", "best K"), (PLAN_PT, "pt", "melhor K")):
        with using(lang):
            fig = article_figures()
            alphas = number(0.7, 1), number(0.8, 1)
        text = plan.read_text(encoding="utf-8")
        assert f"{fig['article_low']} with α = {alphas[0]} ({k} = {fig['article_low_k']})" in text or \
            f"{fig['article_low']} com α = {alphas[0]} ({k} = {fig['article_low_k']})" in text, plan.name
        assert f"{fig['article_high']} with α = {alphas[1]} ({k} = {fig['article_high_k']})" in text or \
            f"{fig['article_high']} com α = {alphas[1]} ({k} = {fig['article_high_k']})" in text, plan.name


@pytest.mark.parametrize("plan", [PLAN_EN, PLAN_PT])
def test_trees_get_twelve_minutes_and_medusa_and_eagle_their_own(plan):
    """Issue 43 item 13: trees and the T > 0 rule need about 12 minutes; Medusa against EAGLE is taught in a row of
    its own after them (lesson 9 introduces both), not squeezed into the trees' minutes or lesson 8's."""
    rows = _sessions(plan.read_text(encoding="utf-8"))[1]
    minutes = {row[2]: (lambda a, b: b - a)(*map(int, row[0].split("–"))) for row in rows}
    trees = [said for said in minutes if "T > 0" in said]
    medusa = [said for said in minutes if "Medusa" in said and "EAGLE" in said]
    assert len(trees) == 1 and minutes[trees[0]] >= 12 and "Medusa" not in trees[0], trees
    assert len(medusa) == 1 and minutes[medusa[0]] >= 3, medusa
    order = list(minutes)
    assert order.index(trees[0]) < order.index(medusa[0])


def test_the_portuguese_plan_separates_number_assignments_with_semicolons():
    """Read 19: with a decimal comma, "α = 0,7, K = 3, c = 0,1" leaves the reader to tell the comma inside 0,7 from
    the one between two assignments; the glossary's Style section and the quiz twins write "α = 0,7; K = 3"."""
    text = PLAN_PT.read_text(encoding="utf-8")
    run_on = re.findall(r"[=≈] \d+,\d+, [A-Za-zα]\w* [=≈]", text)
    assert "α = 0,7; K = 3; c = 0,1" in text and not run_on, run_on


def test_the_plans_do_not_say_n_gram_lookup_matches_nothing_on_an_open_question():
    """Read 19: lesson 8's notes answered "why not always n-gram?" with "on open-ended text nothing matches" and said
    the lookup wins "only when the answer copies its input". It also copies the answer's own repeats (lesson 11): in
    the committed vLLM sweep the open question's n-gram rows kept most drafts and beat no speculation."""
    from specviz.serving.results import ServingResult, find_serving_results

    result = ServingResult.load(find_serving_results()[0])
    for streams in result.concurrencies("open"):
        assert result.level("ngram", "open", streams).acceptance_rate > 0.5
        assert result.speedup("ngram", "open", streams) > 1
    english, portuguese = (" ".join(p.read_text(encoding="utf-8").split()) for p in (PLAN_EN, PLAN_PT))
    assert "nothing matches" not in english and "nada coincide" not in portuguese
    assert "wins only when the answer copies its input" not in english
    assert "só ganha quando a resposta copia a entrada" not in portuguese
    assert "its input or its own earlier words" in english and "as suas próprias palavras anteriores" in portuguese


def test_the_hands_fallback_counts_fingers_up_to_the_most_choices_a_pushed_question_has():
    """Read 20: the fallback without phones had students "hold up one to four fingers for the choices", but
    `ar-verdict`, which session 1 pushes, has five. The plans give the largest number of choices among the questions
    their timetables push, and name the question that has them."""
    by_id = load_bank().by_id()
    names = {4: ("four", "quatro"), 5: ("five", "cinco"), 6: ("six", "seis"), 7: ("seven", "sete")}
    says = ((PLAN_EN, "(one to {n}: `{qid}` has {n} choices)"), (PLAN_PT, "(de um a {n}: `{qid}` tem {n} opções)"))
    checked = []
    for plan, say in says:
        text = plan.read_text(encoding="utf-8")
        pushed = {qid for rows in _sessions(text) for row in rows
                  for qid in re.findall(r"`([a-z]{1,3}-[a-z0-9-]+)`", row[3])}
        assert pushed and pushed <= set(by_id)
        most = max(sorted(pushed), key=lambda qid: len(by_id[qid].choices))
        name = names[len(by_id[most].choices)][plan is PLAN_PT]
        assert say.format(n=name, qid=most) in " ".join(text.split())
        checked.append(plan)
    assert checked == [PLAN_EN, PLAN_PT]


def test_the_plans_roofline_batches_are_the_models():
    """The lesson-10 note types the roofline model's batches for Qwen2.5-7B drafting for 72B on an H100 at a
    512-token context: where the verify pass over K + 1 = 5 tokens turns compute-bound, and where speculation at
    α = 0.8, K = 4 stops paying (c ≈ 0.1 there). Read from `specviz.labs.roofline`, so the two cannot drift apart."""
    import math

    from specviz.core.i18n import _, using
    from specviz.labs import roofline
    from specviz.ui.theory import serving as theory_serving

    pair, hw = roofline.PAIRS["qwen-7b-72b"], roofline.HARDWARE["h100"]
    ridge = math.ceil(roofline.ridge_batch(pair.target, hw, 5, 512))
    even = roofline.break_even_batch(0.8, 4, pair, hw, 512)
    assert even is not None and ridge < even
    # read 55: the plan said "c ≈ 0.1"; it now gives c at both ends, as the roofline computes it
    c_first, c_even = (f"{roofline.draft_cost_ratio(pair, hw, batch, 512):.3f}" for batch in (1, even))
    assert (c_first, c_even) == ("0.105", "0.119")
    # read 46: `even` is the last batch that still pays, so the plan says speculation stops paying beyond it (it said
    # "at 212"), in the words of the Theory explorer's own sentence
    last, first_loss = (point.speedup for point in roofline.sweep(0.8, 4, pair, hw, 512, [even, even + 1]))
    assert last >= 1 > first_loss
    page = {}
    for lang in ("en", "pt"):
        with using(lang):
            page[lang] = _(theory_serving.TEXT["pays_up_to"], alpha="A", k=4, batch=even).replace("**", "")
    quoted = {"en": f"pays up to a batch of {even}", "pt": f"compensa até um lote de {even}"}
    assert all(quoted[lang] in page[lang] for lang in quoted), page
    # read 50: the ridge is the K = 4 pass's (5 tokens); the plan named K only for the break-even, and the page's
    # ridge moves with K (near 111 for K = 2, 34 for K = 8), so the plan names K where it gives the ridge too.
    # Read 51: nor did it name the dtype its FLOP/s and bytes per weight come from (the H100 preset's bfloat16)
    assert hw.dtype == "bfloat16"
    assert math.ceil(roofline.ridge_batch(pair.target, hw, 3, 512)) > ridge > math.ceil(
        roofline.ridge_batch(pair.target, hw, 9, 512))
    said = {PLAN_EN: ("sooner the more tokens it scores",
                      f"predicts {ridge} for a 72B target in bfloat16 verifying K = 4 drafts on an H100 at 512",
                      f"(beyond {even} there, with α = 0.8, K = 4 and a c that grows with the batch as the caches' "
                      f"reads do, {c_first} at B = 1, the page's **Predicted draft cost c**, to {c_even} at "
                      f"B = {even}: the page's \"{quoted['en']}\")"),
            PLAN_PT: ("tanto mais cedo quanto mais tokens ela avalia",
                      f"prevê {ridge} para um alvo de 72B em bfloat16 que verifica K = 4 palpites numa H100 com 512",
                      f"(além de {even} ali, com α = 0,8; K = 4; e um c que cresce com o lote como as leituras dos "
                      f"caches, de {c_first.replace('.', ',')} em B = 1, o **Custo do rascunho c previsto** da "
                      f"página, a {c_even.replace('.', ',')} em B = {even}: o \"{quoted['pt']}\" da página)")}
    for plan, words in said.items():
        text = " ".join(plan.read_text(encoding="utf-8").split())
        for each in words:
            assert each in text, (plan.name, each)


@pytest.mark.parametrize("plan", [PLAN_EN, PLAN_PT])
def test_the_readings_give_each_paper_its_full_title(plan):
    """Read 32: the readings cited Jeon et al.'s paper as "*Recursive Speculative Decoding.*"; its title (arXiv
    2402.14160) is "Recursive Speculative Decoding: Accelerating LLM Inference via Sampling Without Replacement"."""
    readings = " ".join(plan.read_text(encoding="utf-8").split())
    assert "*Recursive Speculative Decoding.*" not in readings
    for title in ("Fast Inference from Transformers via Speculative Decoding",
                  "Accelerating Large Language Model Decoding with Speculative Sampling",
                  "Medusa: Simple LLM Inference Acceleration Framework with Multiple Decoding Heads",
                  "EAGLE: Speculative Sampling Requires Rethinking Feature Uncertainty",
                  "SpecInfer: Accelerating Large Language Model Serving with Tree-based Speculative Inference and "
                  "Verification",
                  "Recursive Speculative Decoding: Accelerating LLM Inference via Sampling Without Replacement.* "
                  "2024, arXiv:2402.14160"):
        assert title in readings, title


@pytest.mark.parametrize("plan", [PLAN_EN, PLAN_PT])
def test_the_plan_promises_defined_terms_only_for_the_lessons_texts_and_questions(plan):
    """Read 34: the plan said "the lessons define every term before they use it", the promise read 33 scoped on the
    Learn page: the "Try it" widgets show later lessons' names (lesson 1's bytes radio says bfloat16, a lesson-5
    term). The plan now scopes it to the texts and questions, the part a content test checks."""
    from specviz.ui.learn import widgets

    text = " ".join(plan.read_text(encoding="utf-8").split())
    assert "the lessons define every term" not in text and ": as lições definem cada termo" not in text
    assert re.search(r"the lessons' texts, questions and right answers define every term|os textos, as perguntas e "
                     r"as respostas certas das lições definem cada termo", text)
    # read 47: wrong choices name methods no lesson teaches (ci-what-is's beam search)
    assert re.search(r"a wrong choice a method the course does not teach|uma alternativa errada, um método que o "
                     r"curso não ensina", text)
    assert "bfloat16" in widgets.TEXT["bytes_names"][2]  # the widget the plan names as the exception


@pytest.mark.parametrize("lang, plan", [("en", PLAN_EN), ("pt", PLAN_PT)])
def test_the_hands_fallback_uses_buttons_the_app_has(lang, plan, tmp_path):
    """Read 34: the no-phones fallback said "project the question from the Quiz page" and reveal with its Check, but
    the Quiz page cannot open a question by its id (ar-verdict is the 4th of its concept's 9 with seed 0). The plan
    now projects the presenter view of a push: with no answer in, its chart still lists every choice, and the
    round buttons it names are the dashboard's own."""
    from specviz.core.i18n import _, using
    from specviz.teach.classroom_paced import PacedStore
    from specviz.ui.classroom import paced_teacher

    text = " ".join(plan.read_text(encoding="utf-8").split())
    fallback = text[text.index("**Phones cannot reach" if lang == "en" else "**Os celulares não alcançam"):]
    fallback = fallback[:fallback.index("**No network" if lang == "en" else "**Sem rede")]
    with using(lang):
        for key in ("round_2", "reveal"):
            assert f"**{_(paced_teacher.TEXT[key])}**" in fallback, key
    assert "**Check**" not in fallback and "**Verificar**" not in fallback
    question = load_bank().by_id()["ar-verdict"]
    store = PacedStore(tmp_path / "c.sqlite")
    push = store.push(store.create_paced_session([question]).code, question)
    assert sorted(store.distribution(push, "en").labels) == sorted(question.choices)


@pytest.mark.parametrize("lang, plan", [("en", PLAN_EN), ("pt", PLAN_PT)])
def test_the_plan_names_the_buttons_it_sends_the_lecturer_to(lang, plan):
    """Read 34: the plan kept the presenter view on the projector without naming the button that opens it. Each
    Classroom button or field the plan names is the app's own label, in the plan's language."""
    from specviz.core.i18n import _, using
    from specviz.ui.classroom import paced_teacher, presenter

    text = " ".join(plan.read_text(encoding="utf-8").split())
    with using(lang):
        labels = [_("Presenter view (for the projector)"), _("Start a new session"), _(presenter.TEXT["base"]),
                  *(_(paced_teacher.TEXT[k]) for k in ("search", "push", "round_2", "reveal", "mastery", "csv",
                                                       "json"))]
    assert len(labels) == 10
    for label in labels:
        assert f"**{label}**" in text, label


@pytest.mark.parametrize("plan", [PLAN_EN, PLAN_PT])
def test_the_mastery_recap_names_the_two_round_pushes_the_session_has(plan):
    """Read 34: session 1's recap said "which concepts moved from round 1 to round 2, which did not", but its table
    runs round 2 for one push only (`rs-why`): the other concepts have no round 2 on the dashboard's table. The recap
    names the two-round pushes its session has, read off the table."""
    text = plan.read_text(encoding="utf-8")
    rows = _sessions(text)[0]
    two_rounds = [re.search(r"`([a-z]{1,3}-[a-z0-9-]+)`", row[3]).group(1) for row in rows
                  if "two rounds" in row[3] or "duas rodadas" in row[3]]
    recap = next(row[2] for row in rows if "Mastery per concept" in row[1] or "Domínio por conceito" in row[1])
    assert two_rounds == ["rs-why"]
    assert all(f"`{qid}`" in recap for qid in two_rounds)
    assert "which concepts moved" not in recap and "quais conceitos melhoraram" not in recap


def test_the_plan_says_which_exit_ticket_questions_the_class_already_saw():
    """Read 40 (teacher's plans): the exit ticket, set as homework in session 2, holds two questions the plan pushes
    and reveals in class; the ticket row says which, in both languages, so a teacher reads those two as recall."""
    from specviz.teach.learn import exit_ticket

    for name in ("teaching.md", "teaching.pt-BR.md"):
        text = (ROOT / "docs" / name).read_text(encoding="utf-8")
        pushed = set(re.findall(r"\| `([a-z]+-[a-z0-9-]+)` \((?:round 1|one round|two rounds|só a rodada 1|uma rodada|"
                                r"duas rodadas)", text))
        on_ticket = {q.id for q in exit_ticket(load_bank())}
        both = pushed & on_ticket
        assert both, name  # the plan does push ticket questions; if it stops, this sentence can go
        row = next(line for line in text.splitlines() if "lesson=ticket" in line and line.startswith("| 47"))
        assert all(f"`{qid}`" in row for qid in both), (name, both)


def test_the_board_derivation_says_p_and_q_each_sum_to_one_in_both_languages():
    """The 40th read of issue 43: the Portuguese board derivation said both sums are 1 − α "porque p e q somam 1"
    ("because p and q sum to 1", as if together), where the English says p and q each sum to 1."""
    assert "because p and q each sum to 1" in PLAN_EN.read_text(encoding="utf-8")
    portuguese = PLAN_PT.read_text(encoding="utf-8")
    assert "porque p e q somam 1 cada uma" in portuguese and "porque p e q somam 1)" not in portuguese


@pytest.mark.parametrize("lang, plan", [("en", PLAN_EN), ("pt", PLAN_PT)])
def test_the_slow_laptop_fallback_names_the_sources_the_pages_offer(lang, plan):
    """The 43rd read of issue 43: the fallback for a slow model sent the lecturer to "the Playground's *Example*
    source" ("a fonte *Exemplo*"), but the Playground's source radio offers "Example trace (instant)" and the race's
    "Recorded example (instant)": the plan names both as each page shows them, in the plan's language."""
    from specviz.core.i18n import _, using
    from specviz.ui.playground.settings import SOURCES as PLAYGROUND
    from specviz.ui.race.settings import SOURCES as RACE

    text = " ".join(plan.read_text(encoding="utf-8").split())
    fallback = text[text.index("**The model is slow" if lang == "en" else "**O modelo fica lento"):]
    fallback = fallback[:fallback.index("## ")]
    with using(lang):
        names = [_(PLAYGROUND["example"]), _(RACE["example"])]
    assert len(names) == 2
    for name in names:
        assert f"*{name}*" in fallback, name
    assert "*Example* source" not in fallback and "*Exemplo*" not in fallback


@pytest.mark.parametrize("lang, plan", [("en", PLAN_EN), ("pt", PLAN_PT)])
def test_lesson_8s_note_keeps_the_lessons_exception_to_the_shared_tokenizer(lang, plan):
    """The 43rd read of issue 43: the plan's lesson-8 note said "A separate draft must share the tokenizer", where
    lessons 8 and 11 say it must unless a translation layer re-cuts its guesses into the target's tokens (Hugging
    Face's universal assisted generation). The note the lecturer reads aloud keeps the lesson's exception."""
    from specviz.core.i18n import _, using
    from specviz.teach.learn import LESSONS

    lesson = next(lesson for lesson in LESSONS if lesson.number == 8)
    exception = {"en": "unless a translation layer re-cuts its guesses into the target's tokens",
                 "pt": "a menos que uma camada de tradução recorte os seus palpites em tokens do alvo"}[lang]
    with using(lang):
        assert exception in " ".join(_(lesson.text).split())  # the lesson's own words
    text = " ".join(plan.read_text(encoding="utf-8").split())
    note = text[text.index("**Lesson 8, who proposes.**" if lang == "en" else "**Lição 8, quem propõe.**"):]
    note = note[:note.index("; n-gram lookup" if lang == "en" else "; a busca de n-gramas")]
    assert exception in note, note


@pytest.mark.parametrize("plan", [PLAN_EN, PLAN_PT])
def test_the_plan_says_the_launcher_already_loads_the_model(plan):
    """The 43rd read of issue 43: step 6 of "Before the class" opened a live run "so that the model is loaded before
    the students arrive", as if nothing loaded it before; the launch command of step 1 starts the load in the
    background and the sidebar says when it is ready (specviz.ui.common.launch, frame.shared_sidebar)."""
    text = " ".join(plan.read_text(encoding="utf-8").split())
    assert "specviz.ui.common.launch" in text
    assert "so that the model is loaded before the students arrive" not in text
    assert "para que o modelo já esteja carregado quando os alunos chegarem" not in text
    assert ("The launch command above starts loading the model in the background at once" in text
            or "O comando de início acima já começa a carregar o modelo em segundo plano" in text)


@pytest.mark.parametrize("plan", [PLAN_EN, PLAN_PT])
def test_the_checks_of_the_rooms_network_are_planned_in_the_room(plan):
    """The 43rd read of issue 43: "Before the class" was timed "10 minutes, the day before", yet its step 3 checks
    the join address on the room's network, step 4 joins from a phone to see that the room's network lets phones in
    and step 5 sets up the projector: done the day before elsewhere, they check another network. The heading now
    places the steps in the room, and only `make setup` (which needs a network) the day before."""
    text = plan.read_text(encoding="utf-8")
    heading = next(line for line in text.splitlines() if line.startswith(("## Before the class", "## Antes da aula")))
    assert "the day before" not in heading and "véspera" not in heading
    assert "in the room" in heading or "na sala" in heading
    steps = text[text.index(heading):text.index("\n## ", text.index(heading) + 1)]
    assert "room's network" in steps or "rede da sala" in steps  # step 3 still checks the room's address
    assert re.search(r"`make setup` (?:the day before|na véspera)", steps)


@pytest.mark.parametrize("lang, plan", [("en", PLAN_EN), ("pt", PLAN_PT)])
def test_the_plan_quotes_the_presenter_views_status_line_as_the_app_writes_it(lang, plan):
    """The 44th read of issue 43: the Portuguese plan quoted the presenter view as "Pergunta n · rodada 1 · 0 de 32
    responderam", where the app writes "Pergunta n · rodada 1 · respostas: 0 de 32 · <timer>". The quote is the
    status line of a fresh push (0 of 32), up to the timer, in the plan's language."""
    from specviz.core.i18n import _, using
    from specviz.ui.classroom import presenter

    with using(lang):
        line = _(presenter.TEXT["status"], number="n", round=1, answered=0, students=32, time="TIMER")
    shown = line[:line.index(" · TIMER")]
    text = " ".join(plan.read_text(encoding="utf-8").split())
    assert f'"{shown}"' in text, shown
    assert "0 de 32 responderam" not in text


@pytest.mark.parametrize("lang, plan", [("en", PLAN_EN), ("pt", PLAN_PT)])
def test_the_ask_the_class_tab_opens_lessons_without_typing_their_addresses(lang, plan):
    """The 44th read of issue 43: step 5 keeps the PIN in the projector's third tab so that "Ask the class" shows on
    the Playground, and warns that typing an address reloads the tab and asks for the PIN again; yet the timetables
    send the lecturer to `/learn?lesson=N` addresses in that tab, which would drop the PIN before minute 10's optional
    Ask the class. Step 5 now says to reach the lessons through the Guided path's own controls there."""
    from specviz.core.i18n import _, using
    from specviz.ui.learn import view as learn_view

    text = " ".join(plan.read_text(encoding="utf-8").split())
    step = text[text.index("5. Keep two browser windows" if lang == "en" else "5. Mantenha duas janelas"):]
    step = step[:step.index("6. ")]
    with using(lang):
        assert f"**{_(learn_view.TEXT['next'])}**" in step
    assert "`/learn?lesson=`" in step
    assert ("row of lesson numbers" if lang == "en" else "fileira de números das lições") in step


def test_the_mixed_language_class_is_promised_only_for_the_apps_own_questions(tmp_path):
    """Read 44: docs/app.pt-BR.md and both plans said every student reads "the questions" in their own language,
    but a teacher's own file (SPECVIZ_QUIZ_PATHS, an upload) is used as written. The docs now say so; the loader
    shows that it does."""
    from specviz.teach.quiz.bank import load_bank

    mine = tmp_path / "mine.yaml"
    mine.write_text('questions:\n  - id: mine-1\n    concept: accept_rule\n    type: single\n'
                    '    link: pages/playground.py\n    prompt: "Pick A, written in English."\n'
                    '    choices: ["A", "B"]\n    answer: "A"\n    explanation: "A is right."\n', encoding="utf-8")
    assert [q.prompt for q in load_bank([mine], lang="pt")] == ["Pick A, written in English."]
    root = Path(__file__).resolve().parents[2] / "docs"
    for doc, said in (("app.pt-BR.md", "(as de um arquivo do(a) professor(a) aparecem como foram escritas)"),
                      ("teaching.md", "(questions from a teacher's file, `SPECVIZ_QUIZ_PATHS` or an upload, appear "
                                      "as written)"),
                      # read 45: "um envio" there (an upload) is a question push everywhere else in the plan
                      ("teaching.pt-BR.md", "(as de um arquivo do(a) professor(a), `SPECVIZ_QUIZ_PATHS` ou um arquivo "
                                            "carregado na página, aparecem como foram escritas)")):
        assert said in " ".join((root / doc).read_text(encoding="utf-8").split()), doc


@pytest.mark.parametrize("lang, plan", [("en", PLAN_EN), ("pt", PLAN_PT)])
def test_the_teachers_test_join_is_released_with_the_dashboards_own_controls(lang, plan, tmp_path):
    """Read 45: step 4 has the lecturer join from their own phone to test the room's network, and said nothing more;
    that phone stays a student of the session, so every count reads one more than the class ("0 of 33 answered"
    for 32). Step 4 now says to free its name, after the first push (the dashboard draws the release form with the
    panel of a pushed question), with the dashboard's own labels in the plan's language."""
    from specviz.core.i18n import _, using
    from specviz.teach.classroom_paced import PacedStore
    from specviz.ui.classroom import presenter

    question = load_bank().by_id()["mb-why-slow"]
    store = PacedStore(tmp_path / "c.sqlite")
    code = store.create_paced_session([question]).code
    store.join(code, "teacher's phone")
    store.push(code, question)
    assert len(store.students(code)) == 1  # the test phone counts until it is released
    assert store.release_name(code, "teacher's phone") and store.students(code) == []
    text = " ".join(plan.read_text(encoding="utf-8").split())
    step = text[text.index("4. Join from your own phone" if lang == "en" else "4. Entre uma vez pelo seu"):]
    step = step[:step.index("5. ")]
    with using(lang):
        status = _(presenter.TEXT["status"], number="n", round=1, answered=0, students=33, time="TIMER")
        labels = _("A student cannot join under their name?"), _("Release this name")
    assert status.split(" · ")[2] in step
    for label in labels:
        assert f"**{label}**" in step, label


def test_the_plans_n_gram_draft_cost_is_its_committed_run():
    """Read 45: lesson 8's note types n-gram lookup's measured c by hand from `assets/benchmarks/default-cpu-ngram`;
    it is that run's `costs.c.ngram`, in both languages. Read 53: it wrote "0.0002", where that run's results.md
    and every page write this c as 0.00022 (`small_number`: two significant digits under 0.001), with no word of the
    dtype, kernels or threads a draft cost's ratio depends on; the note now gives the run's own."""
    import json

    from specviz.core.i18n import small_number, using

    run = json.loads((ROOT / "assets" / "benchmarks" / "default-cpu-ngram" / "results.json").read_text())
    c = run["costs"]["c"]["ngram"]
    report = (ROOT / "assets" / "benchmarks" / "default-cpu-ngram" / "results.md").read_text(encoding="utf-8")
    assert f"c = {small_number(c)}" in report and small_number(c) == "0.00022"
    assert run["config"]["threads"] == 1 and run["machine"]["cpu"] == "AMD EPYC" and run["machine"]["cores"] == 2
    assert "SPECVIZ_KERNELS=stock" in report and "--dtype float32" in report  # the run's kernels and dtype
    for plan, lang, said, how in (
            (PLAN_EN, "en", "is {c} of a target forward in `assets/benchmarks/default-cpu-ngram`: ",
             "float32, PyTorch's stock kernels, one thread on the project's 2-core AMD EPYC"),
            (PLAN_PT, "pt", "é {c} de uma passagem do alvo em `assets/benchmarks/default-cpu-ngram`: ",
             "float32, kernels padrão do PyTorch, uma thread no AMD EPYC de 2 núcleos do projeto")):
        with using(lang):
            figure = small_number(c)
        text = " ".join(plan.read_text(encoding="utf-8").split())
        assert said.format(c=figure) + how in text, plan.name
        assert "0.0002 " not in text and "0,0002 " not in text, plan.name


def test_the_plans_name_the_recovered_token_by_its_glossary_name():
    """Read 46 (one name per quantity): the plan called the token drawn from the residual "the replacement" / "o
    substituto" (six times in each language, rs-why's note among them) beside "a recovered token" in homework 1,
    the name lesson 4, rs-why itself and the glossary give it."""
    for plan, old, name in ((PLAN_EN, r"\bthe replacement\b", "the recovered token"),
                            (PLAN_PT, r"\bo substituto\b", "o token recuperado")):
        text = " ".join(plan.read_text(encoding="utf-8").split())
        assert re.findall(old, text) == [], plan.name
        assert text.count(name) >= 6, plan.name
    question = load_bank(lang="en").by_id()["rs-why"].prompt
    assert question.startswith("Why is the recovered token sampled from norm(max(0, p − q))")


def test_the_push_step_says_how_often_a_phone_checks_for_a_push():
    """Read 46: "How one peer-instruction question runs" said every phone shows a push "within a couple of seconds"
    (the Portuguese "em poucos segundos", in a few), a time nothing measured: classroom.md quotes no measured push
    time. A phone reruns its question area every POLL_SECONDS, so both plans now give that interval, the drawing
    time on top and a live model run's delay."""
    from specviz.teach.classroom_paced import POLL_SECONDS

    for plan, said in ((PLAN_EN, f"each phone checks every {POLL_SECONDS} seconds"),
                       (PLAN_PT, f"cada um consulta a cada {POLL_SECONDS} segundos")):
        text = " ".join(plan.read_text(encoding="utf-8").split())
        step = text[text.index("1. **Push**" if plan == PLAN_EN else "1. **Envie**"):][:500]
        assert said in step, plan.name
        assert "live model run" in step or "execução ao vivo do modelo" in step, plan.name
        assert "couple of seconds" not in step and "poucos segundos" not in step, plan.name


def test_the_push_step_says_a_live_run_slows_the_drawing_not_that_the_push_comes_later_on():
    """Read 47: the push step said a push shows "later while a live model run holds the laptop's cores", and the
    Portuguese "e mais tarde enquanto" reads as "and afterwards, while": neither says that a live run lengthens the
    drawing time the sentence has just named."""
    for plan, said, old in ((PLAN_EN, "the time the laptop takes to draw it, which grows while a live model run",
                             "later while a live model run"),
                            (PLAN_PT, "o tempo que o notebook leva para desenhá-la, que aumenta enquanto uma execução "
                             "ao vivo do modelo", "e mais tarde enquanto")):
        text = " ".join(plan.read_text(encoding="utf-8").split())
        assert said in text and old not in text, plan.name


def test_lesson_3s_row_says_whom_the_target_likes_a_draft_at_least_as_much_as():
    """Read 47: the Portuguese row said "o alvo gosta pelo menos tanto (p ≥ q)", a comparison with nothing after
    "tanto"; the catalog and the quiz twins write "pelo menos tanto quanto o rascunho"."""
    for plan, said in ((PLAN_EN, "likes at least as much as the draft does (p ≥ q) is always kept"),
                       (PLAN_PT, "gosta pelo menos tanto quanto o rascunho (p ≥ q) sempre fica")):
        assert said in plan.read_text(encoding="utf-8"), plan.name


def test_the_lesson_11_note_names_the_per_position_counter_as_the_serving_labs_chart_does():
    """Read 48: the lesson-11 note called the Serving lab's per-position counter "acceptance per position", a second
    name beside the chart the page draws; the note says the chart's title, "Acceptance by position" ("Aceitação por
    posição"), the one name read 48 gave it everywhere."""
    from specviz.core.i18n import using
    from specviz.ui.serving import charts

    for plan, lang in ((PLAN_EN, "en"), (PLAN_PT, "pt")):
        with using(lang):
            title = charts.per_position_figure([0.5, 0.25]).layout.title.text
        text = " ".join(plan.read_text(encoding="utf-8").split())
        assert f"{title[0].lower()}{title[1:]}." in text, (plan.name, title)
    assert "acceptance per" not in " ".join(PLAN_EN.read_text(encoding="utf-8").split())


def test_the_lesson_7_row_sets_c_to_the_articles_value_before_reading_its_figures():
    """Read 48: the lesson-7 row read the article's 7B / 70B pair (c = 0.1) off the Theory explorer's best-K staircase,
    but the explorer's c slider opens at 0.05, where α = 0.7's best K is 6 and its speedup 2.35×, not the row's 4 and
    1.98×; the row now has the lecturer set c to 0.1 first."""
    from specviz.engine import theory
    from specviz.teach.learn import ARTICLE_C

    source = (ROOT / "pages" / "theory.py").read_text(encoding="utf-8")
    opens = re.search(r'_\("Draft cost c [^"]*"\), [\d.]+, [\d.]+, ([\d.]+),', source).group(1)
    assert theory.optimal_k(0.7, float(opens)) != theory.optimal_k(0.7, ARTICLE_C)  # the row's figures need c = 0.1
    # read 52: "the article's 7B / 70B pair" named no article; the row names it as lesson 7 does
    said = {PLAN_EN: f"set c to {ARTICLE_C} (the explorer opens at {opens}) for the 7B / 70B pair of the article "
                     "this course follows (lesson 7's own example)",
            PLAN_PT: f"ajuste c para {str(ARTICLE_C).replace('.', ',')} (o explorador abre com "
                     f"{opens.replace('.', ',')}) para o par 7B / 70B do artigo que este curso segue (o exemplo da "
                     "própria lição 7)"}
    for plan, words in said.items():
        assert words in " ".join(plan.read_text(encoding="utf-8").split()), plan.name


def test_the_resample_from_p_question_counts_twice_every_token_the_draft_covers_in_full():
    """Read 50: after board derivation 1 the plan said that resampling the recovered token from p would count "the x
    with q > p" twice. Acceptance already gives every x with q ≥ p all of its p(x), so a tie is counted twice too:
    token C of the worked example (p = q = 0.2) comes out 0.26 of the time under that rule, not 0.2."""
    p, q = torch.tensor([0.5, 0.3, 0.2]), torch.tensor([0.2, 0.6, 0.2])  # the plan's worked example
    broken, _alpha = one_step_distribution("resample_from_target", p, q)
    over = [name for name, got, want in zip("ABC", broken.tolist(), p.tolist(), strict=True) if got > want + 1e-12]
    assert over == [name for name, pp, qq in zip("ABC", p.tolist(), q.tolist(), strict=True) if qq >= pp] == ["B", "C"]
    english = " ".join(PLAN_EN.read_text(encoding="utf-8").split())
    portuguese = " ".join(PLAN_PT.read_text(encoding="utf-8").split())
    assert "every x with q ≥ p, C of the worked example among them, would be counted twice" in english
    assert "todo x com q ≥ p, entre eles o C do exemplo resolvido, seria contado duas vezes" in portuguese
    assert "the x with q > p would be counted twice" not in english
    assert "os x com q > p seriam contados duas vezes" not in portuguese


def test_the_plans_say_how_a_longer_context_moves_the_ridge_as_the_model_does():
    """Read 50: lesson 10's note said "Long contexts keep the pass memory-bound", true in the roofline model only
    past about 7,500 tokens for the 72B target's K = 4 pass: at 2,048 tokens it still turns compute-bound, near batch
    82. The plans now give the model's batches and where the ridge goes away. Read 51: they said 81 there (81.16
    rounded) beside 64 at 512 tokens (63.36 rounded up, as the Theory explorer's caption rounds a ridge): at batch 81
    the pass is still memory-bound, so every batch is now the first one at or past the ridge."""
    from specviz.labs import roofline

    pair, hw = roofline.PAIRS["qwen-7b-72b"], roofline.HARDWARE["h100"]
    ridges = [math.ceil(roofline.ridge_batch(pair.target, hw, 5, ctx)) for ctx in (512, 2048, 4096)]
    model = pair.target
    never_from = 2.0 * model.params * 5 * hw.bandwidth / hw.flops / model.kv_bytes(hw.dtype, 1)
    assert ridges == [64, 82, 130] and round(never_from, -2) == 7500
    assert roofline.ridge_batch(pair.target, hw, 5, 7600) == float("inf")
    en, pt = (" ".join(plan.read_text(encoding="utf-8").split()) for plan in (PLAN_EN, PLAN_PT))
    # read 53: it also gave "130 at 4,096", a context the explorer's slider cannot be set to (its stops are 128, 512,
    # 2,048 and 8,192), so a lecturer could not show it; the note quotes the slider's own stops, by its label
    from specviz.core.i18n import _, using
    from specviz.ui.theory import serving as theory_serving

    assert 2048 in theory_serving.CONTEXTS and 8192 in theory_serving.CONTEXTS and 4096 not in theory_serving.CONTEXTS
    assert roofline.ridge_batch(pair.target, hw, 5, 8192) == float("inf")
    labels = {}
    for lang in ("en", "pt"):
        with using(lang):
            labels[lang] = _("Context per sequence (tokens)")
    assert (f"(82 at 2,048 tokens, the next stop of **{labels['en']}**), and beyond about 7,500 tokens the model's "
            "K = 4 pass never turns compute-bound (the slider's 8,192 shows that)") in en
    assert (f"(82 com 2.048 tokens, a parada seguinte de **{labels['pt']}**), e além de uns 7.500 tokens a passagem "
            "com K = 4 do modelo nunca fica limitada pelo cálculo (a parada de 8.192 mostra isso)") in pt
    assert "4,096" not in en and "4.096" not in pt
    assert "Long contexts keep the pass memory-bound" not in en
    # read 51: "moves that batch up" followed the break-even's 212, which a longer context moves too (to 632 at 2,048
    # tokens; at 4,096 it pays up to the explorer's last batch), so 82 and 130 read as break-evens; they are ridges
    assert roofline.break_even_batch(0.8, 4, pair, hw, 2048) not in (None, 82)
    assert "A longer context moves up the batch where the pass turns compute-bound" in en
    assert "Um contexto mais longo empurra para cima o lote em que a passagem fica limitada pelo cálculo" in pt
    assert "moves that batch up" not in en and "empurra esse lote" not in pt


@pytest.mark.parametrize("plan", [PLAN_EN, PLAN_PT])
def test_the_plans_pin_step_exports_no_sample_pin_the_app_lets_through(plan):
    """Read 51: step 1 said the app refuses the PINs a guesser tries first, then exported 'correct horse battery'
    (pt: 'cavalo correto bateria grampo'), xkcd 936's famous passphrase, which the app accepted: a lecturer copying
    the command ran the class on a PIN printed in the project's docs. The step now reads the teacher's own PIN
    without echoing it, and the app refuses the sample it used to give."""
    from specviz.teach.classroom import ClassroomError, teacher_pin

    text = plan.read_text(encoding="utf-8")
    assert not re.search(r"SPECVIZ_TEACHER_PIN=['\"]?\w", text), "a literal PIN in the plan"
    assert "read -rsp" in text and "export SPECVIZ_TEACHER_PIN" in text
    for sample in ("correct horse battery", "Correct Horse Battery Staple", "cavalo correto bateria grampo"):
        with pytest.raises(ClassroomError, match="one of the first a guesser tries"):
            teacher_pin({"SPECVIZ_TEACHER_PIN": sample})


def test_the_warm_up_row_names_the_one_token_batch_1_pass_its_flop_per_byte_holds_for():
    """Read 52: session 1's first row said "A forward pass reads every weight once: ... 2 FLOPs but 2 bytes per
    parameter, about 1 FLOP per byte, so the GPU waits on memory". A pass over n tokens (a prompt, a batch of B texts)
    does 2n FLOPs per parameter for the same bytes; lesson 1, which the row cites, gives the figure for one new token
    at batch size 1. The row now names both, in each language, as the lesson does."""
    from specviz.core.i18n import _, using
    from specviz.teach.learn import LESSONS

    for plan, lang, token, batch in ((PLAN_EN, "en", "A forward pass for one new token reads every weight once",
                                      "so at batch size 1 (one text at a time) the GPU waits on memory"),
                                     (PLAN_PT, "pt", "Uma passagem para um novo token lê cada peso uma vez",
                                      "então com tamanho de lote 1 (um texto por vez) a GPU espera pela memória")):
        row = _sessions(plan.read_text(encoding="utf-8"))[0][0][2]
        assert token in row and batch in row, (plan.name, row)
        with using(lang):
            lesson = " ".join(_(LESSONS[0].text).split()).replace("**", "")
        assert ("a pass for one new token" if lang == "en" else "uma passagem para um novo token") in lesson
        assert ("at batch size 1" if lang == "en" else "com tamanho de lote 1") in lesson


def test_the_large_batch_note_keeps_the_long_context_exception_its_question_gives():
    """Read 52: the `lm-large-batch` note had the lecturer say that at a large batch "the idle capacity the trick
    spends is gone", with no case named; the question's own explanation (MagicDec) and the plan's lesson-10 note give
    the exception, long contexts, where each sequence's KV-cache read keeps the pass memory-bound: in the roofline
    model the 72B target's K = 4 pass turns compute-bound near batch 64 at 512 tokens, and never at 8,192."""
    import math

    from specviz.labs import roofline

    pair, hw = roofline.PAIRS["qwen-7b-72b"], roofline.HARDWARE["h100"]
    assert math.ceil(roofline.ridge_batch(pair.target, hw, 5, 512)) == 64
    assert roofline.ridge_batch(pair.target, hw, 5, 8192) == float("inf")
    for lang, plan, heading, said, explained in (
            ("en", PLAN_EN, "**`lm-large-batch`", "Unless the contexts are long: each sequence's KV cache is still read "
             "for every token, which can keep the pass memory-bound even in a large batch", "long contexts"),
            ("pt", PLAN_PT, "**`lm-large-batch`", "A menos que os contextos sejam longos: o cache KV de cada sequência "
             "ainda é lido a cada token, o que pode manter a passagem limitada pela memória mesmo num lote grande",
             "contextos longos")):
        assert explained in load_bank(lang=lang).by_id()["lm-large-batch"].explanation
        text = " ".join(plan.read_text(encoding="utf-8").split())
        note = text[text.index(heading):]
        note = note[:note.index("**`pr-vllm-counters`")]
        assert said in note, (plan.name, note)


def test_the_lesson_7_row_says_where_the_explorer_shows_the_articles_speedups():
    """Read 54: the lesson-7 row said the article's pair at c = 0.1 "lands at 1.98× with α = 0.7 (best K = 4) to 2.47×
    with α = 0.8 (best K = 6)", read off the Theory explorer; there its *Expected speedup* metric is the K slider's
    (it opens at 4), 2.40× at α = 0.8, and 2.47× is in the *Best K* metric's help and the star's hover (3 decimals)."""
    from specviz.core.i18n import number, using
    from specviz.engine import theory
    from specviz.teach.learn import ARTICLE_C

    source = (ROOT / "pages" / "theory.py").read_text(encoding="utf-8")
    k_opens = int(re.search(r'K_MAX, (\d+), 1, key="theory_k"', source).group(1))
    best = {alpha: theory.optimal_k(alpha, ARTICLE_C, 16) for alpha in (0.7, 0.8)}
    assert k_opens == 4 != best[0.8]
    words = {PLAN_EN: ("en", "The *Best K* metric's help then gives the formula's {b7} with α = 0.7 (best K = 4) and "
                             "{b8} with α = 0.8 (best K = 6); the star on *Speedup against K* reads {s7} and {s8}, and "
                             "the *Expected speedup* metric is the K slider's, which opens at {k}: {e7} and {e8}."),
             PLAN_PT: ("pt", "A ajuda da métrica *Melhor K* dá então os valores da fórmula, {b7} com α = 0,7 "
                             "(melhor K = 4) e {b8} com α = 0,8 (melhor K = 6); a estrela em *Aceleração em função "
                             "de K* mostra {s7} e {s8}, e a métrica *Aceleração esperada* é a do controle de K, que "
                             "abre em {k}: {e7} e {e8}.")}
    for plan, (lang, said) in words.items():
        with using(lang):
            figures = {f"{name}{int(alpha * 10)}": number(theory.expected_speedup(alpha, k, ARTICLE_C), digits) + "×"
                       for alpha in (0.7, 0.8)
                       for name, k, digits in (("b", best[alpha], 2), ("s", best[alpha], 3), ("e", k_opens, 2))}
        text = " ".join(plan.read_text(encoding="utf-8").split())
        assert said.format(k=k_opens, **figures) in text, plan.name
        assert "which lands at" not in text and "que fica entre" not in text
