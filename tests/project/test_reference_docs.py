"""The reference docs (cli, library, models, serving, drafts, gpu, classroom, app, accessibility) say what the code
they describe does (issue 43, fortieth read): each test pins one statement a read found wrong, against the code."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def flat(name: str) -> str:
    return " ".join((DOCS / name).read_text(encoding="utf-8").split())


def test_the_serving_lab_docs_name_the_third_counter_as_the_page_does():
    """app.md and serving.md listed the Serving lab's live figures as "... drafts and tokens per second"; the page's
    counter is "Steps with drafts" (vLLM's num_drafts: one request's verify step that carried drafts, "not a drafted
    token", as its help says), so "drafts per second" read as drafted tokens per second, a quantity the page does not
    show. The Portuguese tour already said "passos com rascunhos" (read 45: now "passos com palpites", the glossary's
    word for drafts)."""
    view = (ROOT / "specviz" / "ui" / "serving" / "view.py").read_text(encoding="utf-8")
    assert '_("Steps with drafts")' in view and "not a drafted token" in view
    for page in ("app.md", "serving.md"):
        text = flat(page)
        assert re.search(r"\), drafts and tokens per second", text) is None, page
        assert "steps with drafts and tokens per second" in text, page
    assert "passos com palpites e tokens por segundo" in flat("app.pt-BR.md")


def test_the_tours_say_the_exit_ticket_points_to_the_lessons_of_the_questions_missed():
    """Read 44: the tours said the exit ticket "points back to the lessons missed" and, in Portuguese, "às lições que
    faltaram" (the lessons that were lacking: skipped ones), but it points to the lessons that teach the concepts of
    the ticket's questions answered wrong (`lessons_to_revisit`), whatever lessons were done, as the page says."""
    learn = (ROOT / "specviz" / "teach" / "learn.py").read_text(encoding="utf-8")
    assert '"""The lessons that teach the concepts of the missed questions' in learn
    page = (ROOT / "specviz" / "ui" / "learn" / "questions.py").read_text(encoding="utf-8")
    assert 'N_("Worth another look: the lessons that teach what you missed.")' in page
    _tours_say(("the lessons missed", "that points back to the lessons that teach what the learner got wrong in it"),
               ("que faltaram", "aponta de volta para as lições que ensinam o que a pessoa errou nele"))


def test_the_tours_say_the_playground_output_leaves_a_kept_draft_unmarked():
    """Read 45: both tours said the Playground's output text shows each token's origin as "✓ accepted, ✗ rejected,
    ↻ recovered, ★ bonus", but the output draws a kept draft as a green chip with no glyph (its ✓ only in the hover),
    as the page's own note says ("Drafts the target kept have no mark"); only the step's drafted chips carry ✓."""
    from specviz.labs.examples import load_example
    from specviz.ui.common.tokens import output_html

    trace, _ = load_example("smollm-ngram-t07")
    html = output_html(trace)
    shown = re.sub(r'title="[^"]*"', "", html)  # the hover text holds "✓ accepted"; the chips show no ✓
    assert 'data-kind="accepted"' in shown and "✓" not in shown and "★" in shown and "↻" in shown
    player = (ROOT / "specviz" / "ui" / "playground" / "player.py").read_text(encoding="utf-8")
    assert 'N_("Drafts the target kept have no mark;' in player
    _tours_say(("(✓ accepted, ✗ rejected", "token's origin (a kept draft green with no mark, ✗ rejected"),
               # a kept draft token is a "palpite" (the glossary), not a "rascunho"
               ("(✓ aceito, ✗ rejeitado", "origem de cada token (um palpite mantido em verde e sem marca, ✗ rejeitado"))
    assert "rascunho mantido" not in flat("app.pt-BR.md")


def _tours_say(english: tuple[str, str], portuguese: tuple[str, str]) -> None:
    """Each tour no longer says its old wording (the first) and says its new one (the second)."""
    for doc, (old, new) in (("app.md", english), ("app.pt-BR.md", portuguese)):
        assert old not in flat(doc) and new in flat(doc), doc


def test_the_tours_list_the_guided_paths_kinds_of_thing_to_try():
    """Read 45: both tours said each lesson's thing to try was "a formula's sliders, a recorded run with
    predict-then-reveal, or a vLLM server's counters", but lesson 5 runs the p/q sandbox's simulation (none of the
    three), only lesson 4's recorded run asks for a prediction (lessons 2 and 8 replay one without), and lesson 11
    shows the counters of the committed vLLM sweep, not a server's live ones."""
    from specviz.teach.learn import LESSONS

    kinds = {lesson.number: lesson.interaction for lesson in LESSONS}
    assert (kinds[4], kinds[5], kinds[11]) == ("first_disagreement", "exactness", "production")
    runs = (ROOT / "specviz" / "ui" / "learn" / "runs.py").read_text(encoding="utf-8")
    assert "the p/q sandbox's simulation (lesson 5)" in runs
    assert "the committed vLLM sweep's counters (lesson 11)" in runs
    tree = ast.parse(runs)
    asking = {f.name for f in tree.body if isinstance(f, ast.FunctionDef) and "PREDICTOR." in ast.unparse(f)}
    assert asking == {"first_disagreement", "_toggle_reveal"}  # lesson 4's widget and its Reveal button
    assert "a recorded run with predict-then-reveal, or a vLLM server's counters" not in flat("app.md")
    assert ("a recorded run, one of them with predict-then-reveal, the p/q sandbox's simulation, or the counters of a "
            "recorded vLLM sweep)") in flat("app.md")
    assert "ou os contadores de um servidor vLLM" not in flat("app.pt-BR.md")
    assert ("uma execução gravada, uma delas com prever e depois revelar, a simulação do sandbox p/q, ou os contadores "
            "de uma varredura gravada do vLLM)") in flat("app.pt-BR.md")


def test_the_tours_name_the_sandboxs_rules_as_the_page_offers_them():
    """Read 45: both tours said the p/q sandbox simulates "under the exact rule or a broken one", but its rule box
    offers two exact rules (Leviathan / Chen, and sampling from p to keep a matching draft), three broken ones and
    Medusa's typical acceptance, which the Exactness lab files as lossy by design, not broken."""
    from specviz.labs.exactness import RULES
    from specviz.ui.sandbox.view import sandbox_rules

    offered = sandbox_rules()
    assert sum(RULES[name].exact for name in offered) == 2
    assert [RULES[name].label for name in offered if not RULES[name].exact and "Broken" not in RULES[name].label] == [
        "Lossy: Medusa's typical acceptance"]
    # review45c: "a broken one" read as one broken rule; the box offers three (accept all, resample from p, p >= q)
    assert sum(RULES[name].label.startswith("Broken") for name in offered) == 3
    assert "under the exact rule or a broken one" not in flat("app.md") and ", a broken one, or" not in flat("app.md")
    assert ("under one of two exact rules, one of three broken ones, or Medusa's typical acceptance (lossy by design)"
            in flat("app.md"))
    assert "pela regra exata ou por uma quebrada" not in flat("app.pt-BR.md")
    assert ("por uma de duas regras exatas, por uma de três quebradas ou pela aceitação típica do Medusa (com perdas "
            "por projeto)") in flat("app.pt-BR.md")


def test_classroom_md_gives_the_quiz_files_own_size_limit():
    """Read 45: docs/classroom.md gave only the server's 8 MiB upload cap, so a teacher read a 1 MiB quiz file as
    allowed; `parse_bank` refuses any quiz file over MAX_BYTES (256 KiB) with a sentence naming that limit."""
    import pytest

    from specviz.teach.quiz import QuizBankError, parse_bank
    from specviz.teach.quiz.bank import MAX_BYTES

    assert MAX_BYTES == 256 * 1024
    with pytest.raises(QuizBankError, match="256"):
        parse_bank("#" * (MAX_BYTES + 1), source="big.yaml")
    assert "and a quiz file at 256 KiB (`MAX_BYTES` in `specviz.teach.quiz.bank`" in flat("classroom.md")


def test_app_md_gives_json_export_to_teacher_paced_sessions_only():
    """Read 45: app.md closed the Classroom entry with "CSV and JSON export" for both kinds of session, but a
    self-paced session's dashboard offers only "Download all answers (CSV)"; the JSON download is the teacher-paced
    dashboard's (next to "Download both rounds (CSV)")."""
    teacher = (ROOT / "specviz" / "ui" / "classroom" / "teacher.py").read_text(encoding="utf-8")
    paced = (ROOT / "specviz" / "ui" / "classroom" / "paced_teacher.py").read_text(encoding="utf-8")
    assert teacher.count("download_button(") == 1 and 'N_("Download the session (JSON)")' in paced
    assert "JSON" not in teacher.split("download_button(", 1)[1].split("\n", 1)[0]
    assert "); CSV and JSON export." not in flat("app.md")
    assert "CSV export, and JSON too for a teacher-paced session." in flat("app.md")


def test_the_tours_name_the_playgrounds_step_buttons_by_their_labels():
    """Read 46: the tours named the Playground's buttons "Step / previous / play / run to end" and "Avance, volte,
    toque ou vá até o fim", where the page's buttons read Next step, Previous, Play and Run to end (Próximo passo,
    Anterior, Reproduzir, Ir até o fim in Portuguese): a reader looked for a "Step" button, and "toque" reads "tap"."""
    from specviz.core.i18n import _, using

    player = (ROOT / "specviz" / "ui" / "playground" / "player.py").read_text(encoding="utf-8")
    labels = ("Next step", "Previous", "Play", "Run to end")
    assert all(f'row.button(_("{label}")' in player or f'else _("{label}")' in player for label in labels)
    with using("pt"):
        portuguese = [_(label) for label in labels]
    for doc, names in (("app.md", labels), ("app.pt-BR.md", portuguese)):
        assert ", ".join(f"*{name}*" for name in names[:-1]) + f" {'and' if doc == 'app.md' else 'e'} *{names[-1]}*" \
            in flat(doc), doc
    _tours_say(("Step / previous / play / run to end", "*Next step*, *Previous*, *Play* and *Run to end* through"),
               ("Avance, volte, toque", "*Próximo passo*, *Anterior*, *Reproduzir* e *Ir até o fim* por um traço"))


def test_the_tours_say_the_committed_sweep_may_never_stop_paying():
    """Read 49: both tours listed the Serving lab's committed sweep as showing "where it stops paying" ("onde ela
    deixa de compensar"), but in that sweep n-gram lookup paid at every level and the EAGLE drafter at none, so no
    curve stops paying (the page's chart lost the title "Where speculation stops paying" for that reason, 85aec2db);
    the page says where it did "or that it did not"."""
    from specviz.serving.results import PayKind, ServingResult, find_serving_results

    kinds = set()
    for path in find_serving_results():
        result = ServingResult.load(path)
        kinds |= {result.pay_shape(spec, prompt).kind for spec in result.specs() if spec != "none"
                  for prompt in result.prompt_names()}
    assert kinds and not kinds & {PayKind.UNTIL, PayKind.BETWEEN}, kinds  # nothing stops paying in any shipped sweep
    _tours_say(("sweep with and without speculation, where it stops paying,",
                "sweep with and without speculation, whether and where it stops paying,"),
               ("sem especulação, onde ela deixa de compensar,", "sem especulação, se e onde ela deixa de compensar,"))


def test_the_tour_says_the_theory_pages_temperature_tables_go_by_machine():
    """Read 49: app.md said of the Theory explorer's α-by-temperature section "each row names its machine", but the
    rows name their benchmark ([n]) and the machine heads each table, one per machine and dtype (51efeae2)."""
    view = (ROOT / "specviz" / "ui" / "theory" / "view.py").read_text(encoding="utf-8")
    assert "one table per machine and dtype ([n] is the benchmark" in " ".join(view.replace('"', " ").split())
    assert "(most runs fall; each row names its machine)" not in flat("app.md")
    assert "(most runs fall; one table per machine and dtype)" in flat("app.md")


def test_the_tours_say_a_later_tree_child_hovers_its_primed_p_and_q():
    """Read 50: both tours said a draft-tree step shows "p, q, p/q and u on hover" ("p, q, p/q e u ao passar o
    mouse"), but since 1ee1c18d a child tried after a rejected sibling hovers q′, p′ and p′/q′, the residuals the
    rule compared, not its plain p and q; the tours now name both."""
    from specviz.engine.trace import TreeNode
    from specviz.ui.common.tree_figures import _hover

    later = TreeNode(4, "b", -1, 1, 0.469, 0.619, "accepted", uniform=0.2, accept_prob=0.27 / 0.35,
                     target_prob_used=0.27, draft_prob_used=0.35)
    shown = _hover(1, later)
    assert "q′ = 0.350 · p′ = 0.270" in shown and "p′/q′ = 0.771" in shown and "p/q = " not in shown, shown
    # read 53: only p′ is a residual; q′ is the draft's q without the rejected siblings, or a point mass
    _tours_say(("p, q, p/q and u on hover) next to", "p, q, p/q and u on hover; p′, q′ and p′/q′ for a child tried "
                                                     "after a rejected sibling: p′ the residual the siblings tried "
                                                     "before it left, q′ the draft's q without them, or a point mass)"),
               ("p, q, p/q e u ao passar o mouse) ao lado", "p, q, p/q e u ao passar o mouse; p′, q′ e p′/q′ para um "
                                                           "filho tentado depois de um irmão rejeitado: p′ a "
                                                           "distribuição residual que os irmãos tentados antes dele "
                                                           "deixaram, q′ o q do rascunho sem eles, ou uma massa "
                                                           "pontual)"))


def test_the_tours_name_the_theory_explorers_best_k_as_its_metric_does():
    """Read 54: both tours listed the Theory explorer's figures as "speedup, optimal K" ("aceleração, K ótimo"), where
    the page's metric reads "Best K" ("Melhor K") and its heatmap's orange steps "the best K for each α"; "optimal K"
    is the name of a draft-length policy ("optimal K from α and c") elsewhere in the app."""
    from specviz.core.i18n import _, using

    page = (ROOT / "pages" / "theory.py").read_text(encoding="utf-8")
    assert 'metric(_("Best K")' in page
    with using("pt"):
        assert _("Best K") == "Melhor K"
    _tours_say(("speedup, optimal K;", "expected mean accepted length, speedup, best K;"),
               ("aceleração, K ótimo;", "comprimento médio de aceitação esperado, aceleração, melhor K;"))


def test_the_tour_names_the_guided_paths_exceptions_to_terms_defined_first():
    """Read 55: app.md said of the guided path "every term of the texts and checks defined before it is used", but
    the page itself names two exceptions: a wrong choice may name a method the course does not teach (beam search),
    and a retry after many misses may borrow a question that uses a later lesson's word. The tour now says both."""
    view = (ROOT / "specviz" / "ui" / "learn" / "view.py").read_text(encoding="utf-8")
    page = " ".join(view.replace('"', " ").split())
    assert "a wrong choice may name a method the course does not teach, such as beam search;" in page
    assert "a retry after many misses may borrow a question that uses a later lesson's word)" in page
    text = flat("app.md")
    assert "every term of the texts and checks defined before it is used;" not in text
    assert ("every term of the texts, the checks and their right answers defined before it is used (a wrong choice "
            "may name a method the course does not teach, such as beam search, and a retry after many misses may "
            "borrow a question that uses a later lesson's word, as the page says)") in text


def test_the_tours_name_the_races_segments_as_its_legend_does():
    """Read 55: both tours said the race draws "each step's draft and verify time" ("o tempo de rascunho e de
    verificação"), but the race names its segments drafting, "target forward" (pt "passagem do alvo") and "rest of the
    step" ("resto do passo"), and calls no time "verify" (read 54: "target forward" everywhere)."""
    from specviz.core.i18n import _, using

    figures = (ROOT / "specviz" / "ui" / "race" / "figures.py").read_text(encoding="utf-8")
    assert 'N_("target forward pass")' in figures and 'N_("rest of the step: sampling' in figures
    with using("pt"):
        assert _("target forward pass") == "passagem do alvo"
    _tours_say(("Each step's draft and verify time",
                "Each step's drafting, target forward and rest of the step on one time axis"),
               ("O tempo de rascunho e de verificação de cada passo",
                "Em cada passo, o rascunho, a passagem do alvo e o resto do passo num só eixo de tempo"))


def test_the_tours_say_the_models_catalog_holds_the_toy_pair_too():
    """Read 55: both tours opened the Models page with "the catalog of real pairs" ("pares reais"), but its catalog
    tables list the toy pair too, two tiny random models (20.8 thousand parameters each, built in code)."""
    import yaml

    catalog = yaml.safe_load((ROOT / "assets" / "catalog.yaml").read_text(encoding="utf-8"))
    pairs = catalog["pairs"] if isinstance(catalog, dict) else catalog
    assert "toy" in [pair["name"] for pair in pairs]
    _tours_say(("The catalog of real pairs",
                "The catalog of pairs (real models, and the toy pair: two tiny random ones)"),
               ("O catálogo de pares reais",
                "O catálogo de pares (modelos reais, e o par de brinquedo: dois minúsculos e aleatórios)"))
