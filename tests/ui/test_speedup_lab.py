"""The Speedup lab under AppTest (committed results, a tiny result made here, the live toy sweep) and its figures."""

import math
import re
from pathlib import Path

import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from specviz.core.i18n import as_written, small_digits
from specviz.engine import theory
from specviz.engine.policies import PROBE_EVERY, OptimalK
from specviz.engine.proposers import registry
from specviz.labs import bench, timeline
from specviz.labs.bench import BenchConfig, run_bench
from specviz.labs.bench.summary import written_limit
from specviz.models.pairs import toy_pair
from specviz.ui.common import charts as plot
from specviz.ui.speedup import charts
from specviz.ui.speedup import results
from specviz.ui.speedup import tables
from specviz.ui.speedup import trees
from specviz.ui.speedup import verdict
from specviz.ui.speedup import view

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "speedup_lab.py")
TABS = ["Speedup vs K", "Chain vs tree", "Acceptance by position", "Where the time goes", "By category", "Policies",
        "Verify cost", "vs transformers", "Definitions"]


@pytest.fixture(scope="module")
def tiny():
    """A small but complete result: two proposers, two K, greedy and sampled, every policy, two categories."""
    config = BenchConfig(pair="toy", proposers=["draft", "ngram"], ks=[1, 3], temperatures=[0.0, 1.0],
                         suites=["qa", "rewrite"], prompts_per_suite=1, max_new_tokens=10, repeats=1, warmup=0,
                         threads=1, policies=["constant", "heuristic", "threshold", "optimal"], policy_k=2,
                         policy_temperatures=[0.0], hf="greedy", cost_repeats=3)
    return run_bench(config, command=bench.command_line(config), pair=toy_pair())


@pytest.fixture
def tiny_folder(tiny, tmp_path, monkeypatch):
    tiny.save(tmp_path / "tiny")
    monkeypatch.setattr(bench, "BENCHMARKS_DIR", tmp_path)
    return tmp_path


def _ok(at) -> None:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]

def _ngram_run(lang: str) -> AppTest:
    """The lab in `lang` on default-cpu-ngram, the run whose optimal rows are its constant K = 8 cases."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["lang"] = lang
    at.run()
    source = at.selectbox(key="speedup_lab_source")
    source.set_value(next(o for o in source.options if o.startswith("default-cpu-ngram"))).run()
    _ok(at)
    return at



@pytest.mark.slow
def test_page_opens_on_the_committed_results():
    files = results.result_files()
    assert files, "assets/benchmarks/ should hold the committed default-pair results"
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    _ok(at)
    # it opens on the run the README quotes (float32, the CPU most students have), not a newer check run
    newest = next(path for path in files if results.result_name(path) == results.HEADLINE_RUN)
    assert at.selectbox(key="speedup_lab_source").value == f"{results.result_name(newest)} (committed)"
    assert [t.label for t in at.tabs] == TABS
    # the proposer menu speaks the registry's labels, not its keys ("eagle")
    menu = at.selectbox(key="speedup_lab_proposer")
    assert menu.options and menu.value in results.load_result(newest).proposers()
    assert menu.options[menu.index] == registry.label_of(menu.value) != menu.value
    assert [c.key for c in at.get("plotly_chart")] == [f"speedup_lab_{name}_chart" for name in
                                                       ("k", "tree", "accept", "time", "cat", "verify", "dtype")]
    # the headline is the best chain; the run's tree is named beside it with its own measured figure
    shown = results.load_result(newest)
    proposer, temperature = at.selectbox(key="speedup_lab_proposer").value, at.selectbox(
        key="speedup_lab_temperature").value
    tree = max((r for r in shown.shape_rows(proposer, temperature) if r.get("tree_nodes")),
               key=lambda r: r["speedup_vs_ar"])
    said = " ".join(m.value for m in at.markdown)
    lookup = (f" plus a lookup branch of up to {tree['tree_lookup']} tokens copied from the context"
              if tree.get("tree_lookup") else "")  # the recommended tree's copied branch is named, not hidden
    # a budget and a bound: the tree grows at most tree_width children per node (36th read, as settings_line), and
    # expands at most tree_width nodes per level (read 46)
    width = tree["tree_width"]
    assert (f"A draft tree of up to {tree['tree_nodes']} nodes (width {width}: at most {width} nodes expanded per "
            f"level and {width} children per node, depth up to {tree['k']}){lookup} reached "
            f"{tree['speedup_vs_ar']:.2f}× against target-only decoding") in said
    assert [m.label for m in at.metric] == ["Best speedup", "at K", "α estimate", "c (measured)"]
    measured_in = [c.value for c in at.caption if c.value.startswith("Measured in ")]  # issue 27 item 4: the dtype
    assert measured_in and any(d in measured_in[0] for d in ("float32", "bfloat16"))
    for source in at.selectbox(key="speedup_lab_source").options:  # every committed file, every proposer
        at.selectbox(key="speedup_lab_source").set_value(source).run()
        _ok(at)
        # a file without a dtype (the first runs: default-cpu-ngram, -layerskip, -drafts) says so in a sentence,
        # not "Measured in dtype not recorded.", and names the float32 they ran (37th read: the caption said only
        # "records no dtype" beside a command note and a Verify cost tab that both say float32)
        captions = [c.value for c in at.caption]
        assert not any("dtype not recorded" in c for c in captions), captions
        assert any(c.startswith("Measured in ") for c in captions)
        if source.startswith("default-cpu-ngram"):
            assert any(c.startswith("Measured in float32") and "records no dtype" in c for c in captions), captions
        for proposer in at.selectbox(key="speedup_lab_proposer").options:
            at.selectbox(key="speedup_lab_proposer").set_value(proposer).run()
            _ok(at)


def test_committed_results_are_default_pair_runs_with_their_command():
    files = results.result_files()
    assert files, "assets/benchmarks/ should hold the committed default-pair results"
    for path in files:
        result = results.load_result(path)
        assert result.config["pair"] == "default" and result.command.startswith("python -m specviz bench")
        assert result.machine["torch_threads"] >= 1 and result.machine["cpu"]
        assert {r["temperature"] for r in result.cases} == {0.0, 0.7}
        greedy = [r["identical"] for r in result.cases if r["temperature"] == 0]
        if result.dtype in (None, "float32"):
            assert all(greedy)  # exact, and it shows
        else:  # bfloat16: a K+1-token forward rounds differently from a one-token one ("lossless up to numerics"),
            assert None not in greedy  # so every greedy case says whether it matched, and the lab shows the count
            ar_vs_generate = [b["identical"] for b in result.baselines
                              if b["temperature"] == 0 and b["method"] == "transformers generate"]
            assert not all(ar_vs_generate) or all(greedy)  # a split only where two one-token decoders split too


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_page_shows_a_tiny_result_and_its_numbers(tiny, tiny_folder):
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    _ok(at)
    assert at.selectbox(key="speedup_lab_source").options == ["tiny (committed)"]
    at.selectbox(key="speedup_lab_proposer").set_value("ngram").run()
    _ok(at)
    shown = {m.label: m.value for m in at.metric}
    top = verdict.headline(tiny, "ngram", 0.0)
    assert shown["Best speedup"] == top["best"] and shown["c (measured)"] == top["c"]
    frames = at.dataframe
    policies = next(f.value for f in frames if "winner" in f.value.columns)  # the policy comparison
    assert set(policies["proposer"]) == {"Draft model", "N-gram lookup (no model)"}
    assert "all categories" in set(policies["category"])
    assert any("mean accepted length (recovered or bonus token included)" in f.value.columns for f in frames)
    # the optimal policy at K = 0 still probes (issue 43, twelfth read): the text says so, with the engine's interval
    words = " ".join(m.value for m in at.markdown)
    assert f"it still drafts one token every {PROBE_EVERY} steps" in words and "(K = 0: don't speculate)." not in words
    # read 49: this sweep ran no constant K = 2 (--policy-k 2, --k 1 3): the table says it has no constant to compare
    assert any(c.value.startswith("This run ran no chain of constant K = 2, where its policies start")
               for c in at.caption)
    at.selectbox(key="speedup_lab_temperature").set_value(1.0).run()  # the policies ran greedy only
    _ok(at)
    # read 46: sent to the temperature that has them, not told to rerun the bench with flags its command has
    assert any(i.value.startswith("This result measured its adaptive draft-length policies at T = 0 only")
               for i in at.info)


@pytest.mark.slow  # over 1 s: make test runs it, make check stays under a minute
def test_live_toy_sweep_runs_with_a_progress_bar_and_becomes_a_source(tiny_folder):
    at = AppTest.from_file(PAGE, default_timeout=180).run()
    at.multiselect(key="speedup_lab_live_suites").set_value(["qa"])
    at.slider(key="speedup_lab_live_tokens").set_value(8)
    at.button(key="speedup_lab_live_run").click().run()
    _ok(at)
    assert at.selectbox(key="speedup_lab_source").value == "live toy sweep (this session)"
    assert "live toy sweep (this session)" in at.selectbox(key="speedup_lab_source").options
    assert any(m.label == "α estimate" for m in at.metric)


@pytest.mark.slow  # the page under AppTest, twice: make check stays under a minute
@pytest.mark.parametrize(("lang", "shown"), [("en", ["0", "0.7", "1"]), ("pt", ["0", "0,7", "1"])])
def test_the_live_sweeps_temperatures_are_written_as_the_page_writes_them(lang, shown):
    """Read 51: in English the live sweep's Temperatures menu offered "0.0", "0.7" and "1.0" (str of the float),
    where the rest of the page, and the Portuguese menu, write 0, 0.7 and 1 (`temperature_text`)."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert at.multiselect(key="speedup_lab_live_temps").options == shown


@pytest.mark.slow  # a live toy sweep
def test_a_one_case_toy_sweep_says_one_case_and_no_dtype_to_add(tiny_folder):
    """36th read (page states): a live toy sweep of one case read "1 measured cases", and its note said the
    command, typed today, would take the machine's default dtype (bfloat16): the toy pair runs in float32 unless a
    --dtype is named (models.pairs), so the command runs as it ran."""
    at = AppTest.from_file(PAGE, default_timeout=180).run()
    at.multiselect(key="speedup_lab_live_proposers").set_value(["ngram"])
    at.multiselect(key="speedup_lab_live_ks").set_value([1])
    at.multiselect(key="speedup_lab_live_temps").set_value([1.0])
    at.multiselect(key="speedup_lab_live_suites").set_value(["qa"])
    at.multiselect(key="speedup_lab_live_policies").set_value(["constant"])
    at.slider(key="speedup_lab_live_tokens").set_value(8)
    at.button(key="speedup_lab_live_run").click().run()
    _ok(at)
    captions = [c.value for c in at.caption]
    # read 46: the line counts prompt x temperature cases, as a time-limit note does
    assert any(": 1 prompt × temperature case measured, 8 new tokens each." in c for c in captions), captions
    assert not [c for c in captions if "names no --dtype" in c], captions
    # Read 44: the finished progress bar said "Done: 1 cases measured." ("1 casos medidos" in Portuguese)
    bars = [bar.proto.text for bar in at.get("progress")]
    assert bars == ["Done: 1 prompt × temperature case measured."], bars


@pytest.mark.slow  # an AppTest of the whole page
def test_live_sweep_starts_its_policies_at_a_k_it_runs(tiny_folder, monkeypatch):
    """Read 49: with K values 2 and 6 the sweep started its policies at min(4, 6) = 4, a K it never ran at constant,
    so the Policies tab had no constant column, named the heuristic alone its winner, and said above it that the
    policies start at the same K as constant. The policies now start at one of the K picked (the sweep is not run)."""
    from specviz.ui.speedup import live

    started = []
    monkeypatch.setattr(live, "run_live", lambda config, pair: started.append(config))
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    at.multiselect(key="speedup_lab_live_ks").set_value([2, 6])
    at.button(key="speedup_lab_live_run").click().run()
    _ok(at)
    assert [(config.ks, config.policy_k) for config in started] == [([2, 6], 2)]


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_live_sweep_without_a_k_is_one_sentence(tiny_folder):
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    at.multiselect(key="speedup_lab_live_ks").set_value([])
    at.button(key="speedup_lab_live_run").click().run()
    assert not at.exception
    assert [e.value for e in at.error] == ["Pick at least one proposer, K, temperature, category and policy."]


@pytest.mark.parametrize("text", ['{"schema": "specviz-bench", "schema_version": 1}',
                                  '{"schema": "specviz-bench", "cas'])
def test_a_damaged_result_file_is_one_sentence(tmp_path, monkeypatch, text):
    """Read 48: a folder whose results.json a stopped run or a partial copy cut short read "Cannot read a benchmark
    result from '<the server's full path>'"; the sentence names the folder as incomplete (escaped: a_b stays a_b)."""
    (tmp_path / "killed_run").mkdir()
    (tmp_path / "killed_run" / "results.json").write_text(text)
    monkeypatch.setattr(bench, "BENCHMARKS_DIR", tmp_path)
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    assert not at.exception
    assert len(at.error) == 1, [e.value for e in at.error]
    shown = at.error[0].value  # markdown-escaped, so a_b stays a_b when drawn
    assert shown.startswith("The benchmark folder 'killed\\_run' is incomplete\\: its results\\.json "), shown
    assert str(tmp_path) not in shown.replace("\\", "")


def test_no_results_at_all_offers_the_live_sweep(tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "BENCHMARKS_DIR", tmp_path)
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    _ok(at)
    assert any("No benchmark results yet" in i.value for i in at.info)
    assert at.button(key="speedup_lab_live_run")


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_theory_curve_is_the_formula_at_the_measured_alpha_and_c(tiny):
    fig = charts.speedup_vs_k_figure(tiny, "draft", 0.0)
    curve = next(t for t in fig.data if t.name.startswith("predicted (paper)"))
    constant = tiny.rows(proposer="draft", temperature=0.0, policy="constant")
    alpha = round(sum(r["alpha"] for r in constant) / len(constant), charts.ALPHA_DIGITS)  # as its legend writes it
    c = round(constant[0]["c"], small_digits(constant[0]["c"]))
    assert list(curve.y) == pytest.approx([theory.expected_speedup(alpha, k, c) for k in curve.x])
    measured = next(t for t in fig.data if t.name.startswith("measured"))
    assert list(measured.x) == [1, 3] and list(measured.y) == [r["speedup_vs_ar"] for r in constant]


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_verify_cost_figure_starts_at_one_and_covers_k_plus_one(tiny):
    fig = charts.verify_cost_figure(tiny)
    measured = fig.data[0]
    assert list(measured.x) == [1, 2, 3, 4] and measured.y[0] == 1.0


def test_verify_cost_figure_names_its_x_the_tokens_fed_as_the_glossary_does(tiny):
    """Read 44: the chart's title said "Verify cost vs tokens verified", where the x is the tokens one forward is fed
    (K + 1 for a chain of K: verifying 4 drafts feeds 5, and a one-token forward verifies none); the glossary's name,
    and This machine's chart's, is "tokens fed" ("tokens fornecidos")."""
    from specviz.core.i18n import using

    title = charts.verify_cost_figure(tiny).layout.title.text
    assert "tokens fed" in title and "verified" not in title, title
    with using("pt"):
        title = charts.verify_cost_figure(tiny).layout.title.text
    assert "tokens fornecidos" in title and "verificados" not in title, title


def test_definitions_panel_uses_the_bench_labels():
    table = view.definitions_table()
    assert list(table["metric"]) == [label for label, _ in bench.DEFINITIONS.values()]
    assert "Spec-Bench" in " ".join(table["what it means"]) and "gpt-fast" in " ".join(table["what it means"])


def test_definitions_intro_says_the_csv_heads_its_columns_with_keys_not_labels():
    """The intro once said the bench's JSON, CSV and markdown "use the same labels": results.csv heads its columns
    with keys (mat_with_bonus), and no label appears in a committed CSV's header."""
    source = " ".join(view.DEFINITIONS_INTRO.split())
    assert "JSON, CSV and" not in source and "results.csv heads its columns with short keys" in source
    assert "mat_with_bonus" in source and bench.DEFINITIONS["mat_with_bonus"][0].startswith("mean accepted length")
    header = (ROOT / "assets/benchmarks/default-cpu-f32-packed/results.csv").read_text().splitlines()[0].split(",")
    assert header == bench.CASE_COLUMNS and "mat_with_bonus" in header
    assert not {label for label, _ in bench.DEFINITIONS.values()} & set(header)


def test_the_definitions_are_the_codes_and_a_committed_results_json_may_keep_older_words():
    """Read 47: the bench's writer (DEFINITIONS, written into every results.json) once defined "predicted (paper)"
    "from the measured α and c", though the project calls the bench's α an "α estimate" (test_vocabulary); the
    committed results.json files keep those words (measurement records, not edited by hand), while the Speedup lab's
    intro said a results.json defines the labels "in the same words" as its table. The writer says "α estimate", the
    table is the code's, and the intro says a committed results.json can keep older words, in both languages."""
    import json

    from specviz.core.i18n import _, using
    from specviz.labs.bench import BenchResult

    written = BenchResult.load(ROOT / "assets/benchmarks/default-cpu-f32-packed/results.json").to_dict()
    meaning = written["definitions"]["predicted_speedup"]["meaning"]
    assert "measured α" not in meaning and "from the α estimate and the measured c" in meaning
    assert "measured α" not in " ".join(view.definitions_table()["what it means"])
    committed = json.loads((ROOT / "assets/benchmarks/default-cpu-f32-medusa/results.json").read_text())
    assert "from the measured α and c" in committed["definitions"]["predicted_speedup"]["meaning"]  # older words
    intro = " ".join(view.DEFINITIONS_INTRO.split())
    assert "results.json and results.md define them in the same words" not in intro
    assert "a committed results.json keeps the words of the run that wrote it, which can be older" in intro
    with using("pt"):
        assert "um results.json registrado guarda as palavras da execução que o escreveu" in _(view.DEFINITIONS_INTRO)


def test_the_policy_table_names_the_winner_of_each_comparison(tiny):
    table = tables.policy_table(tiny, 0.0)
    comparisons = tiny.policy_comparisons(0.0)
    assert len(table) == len(comparisons) > 0
    for comparison, (_, row) in zip(comparisons, table.iterrows()):
        assert row["proposer"] == view.proposer_text(comparison.proposer) and comparison.k0 == 2
        for policy in ("heuristic", "threshold", "optimal"):
            if policy in comparison.speedups:
                assert row[policy] == view.times(comparison.speedups[policy], tables.policy_decimals(comparisons))
        assert row["winner"] == tables.policy_column(comparison.winner, comparison.k0)
        assert row["winner vs constant"] == "–"  # this sweep ran no constant K = 2 to compare with
    assert tables.policy_table(tiny, 1.0).empty  # the policies ran greedy only
    # the headers are the bench's short names, defined above the table; the longer names show on hovering
    assert {column: text for column, text in tables.policy_help(table).items()} == {
        tables.policy_column(policy, 2): view.policy_text(policy) for policy in comparisons[0].speedups}


def test_a_policy_table_without_constant_at_its_start_says_so(tiny):
    """Read 49: a run whose --policy-k is not among its --k (this sweep: 2, against K 1 and 3) has no constant column;
    its table named the fastest policy the winner with "–" against constant and no word on why. A committed run that
    ran constant K at its --policy-k gets no such sentence."""
    from specviz.core.i18n import using

    assert tables.no_constant_text(tiny, 0.0) == (
        "This run ran no chain of constant K = 2, where its policies start (its --policy-k is not among its --k): the "
        "table has no constant column, and its winner is the fastest of the policies alone.")
    with using("pt"):
        said = tables.no_constant_text(tiny, 0.0)
    assert said.startswith("Esta execução não rodou nenhuma cadeia de K constante = 2"), said
    assert tables.no_constant_text(tiny, 1.0) is None  # no policies at T = 1
    drafts = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-drafts" / "results.json")
    assert not tables.policy_table(drafts, 0.0).empty and tables.no_constant_text(drafts, 0.0) is None


def test_a_proposer_without_the_threshold_policy_shows_a_dash_and_the_reason(tiny):
    """Read 50: a sweep of the draft model and n-gram lookup with the threshold policy (the live toy sweep lets a
    visitor pick it) showed "NaN" in the n-gram rows' threshold cell, since the bench runs no threshold policy for a
    lookup (no draft probability to stop on), and nothing said why. The cell reads "–", and a sentence names the
    proposer and the reason, in both languages; a run where every proposer ran it gets no sentence."""
    from specviz.core.i18n import using

    table = tables.policy_table(tiny, 0.0)
    lookup = table[table["proposer"] == view.proposer_text("ngram")]
    assert len(lookup) and list(lookup["threshold"]) == ["–"] * len(lookup)
    assert "NaN" not in table.astype(str).to_string() and not table.isna().any().any()
    assert tables.no_threshold_text(tiny, 0.0) == (
        "The bench runs no threshold policy for n-gram lookup (no model), hence the – in its rows: that policy stops a "
        "draft once the drafter's top probability falls below the threshold, and a lookup has no probability to read.")
    with using("pt"):
        said = tables.no_threshold_text(tiny, 0.0)
    # read 51: "para busca de n-gramas", a name that takes an article in Portuguese, written without one
    assert said.startswith("O benchmark não roda a política threshold para um proponente que busca (busca de "
                           "n-gramas (sem modelo)), daí o – nas linhas dele"), said
    assert tables.no_threshold_text(tiny, 1.0) is None  # no policies at T = 1
    drafts = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-drafts" / "results.json")
    assert tables.no_threshold_text(drafts, 0.0) is None  # both its proposers ran the threshold policy


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_policy_tables_winner_and_margin_follow_from_its_speedups_as_written(lang):
    """Read 54: the policy table wrote 2 decimals and computed "winner vs constant" from the unrounded speedups, so
    default-cpu-layerskip's optimal 0.80× over constant 0.34× read "+134%" (0.80 / 0.34 is +135%), default-cpu-drafts'
    threshold 0.84× over constant 0.70× "+21%" (+20%), and default-cpu-ngram's question-answering heuristic won
    "+1%" with 0.83× beside constant's 0.83×. In every committed run and both languages, a reader who divides the
    written winner by the written constant gets the written margin, and the winner is the largest figure written."""
    from specviz.core.i18n import _, using

    seen = set()
    for path in results.result_files():
        result = results.load_result(path)
        for temperature in result.temperatures():
            with using(lang):
                table = tables.policy_table(result, temperature)
                columns = [c for c in table.columns if c.split(" ")[0] in view.POLICY_TEXT]
                for _index, row in table.iterrows():
                    written = {c: float(row[c].rstrip("×").replace(",", ".")) for c in columns if row[c] != "–"}
                    winner = row[_("winner")]
                    assert all(written[winner] > v for c, v in written.items() if c != winner), row.to_dict()
                    constant = next((v for c, v in written.items() if c.startswith("constant")), None)
                    if constant:
                        assert row[_("winner vs constant")] == tables.margin_text(written[winner] / constant - 1)
                        seen.add(row[_("winner vs constant")])
    assert {"+134%", "+21%", "+2%", "+1%"} <= seen  # default-cpu-layerskip, -drafts, -ngram's code and qa rows


@pytest.mark.parametrize(("lang", "said"), [("en", ["+25%", "+0.3%", "no gain", "no gain"]),
                                            ("pt", ["+25%", "+0,3%", "sem ganho", "sem ganho"])])
def test_a_winner_that_gains_under_half_a_percent_is_not_shown_as_plus_zero(tiny, monkeypatch, lang, said):
    """Read 48: the policy table wrote a gain that rounds to 0% as "+0%", a signed zero that reads as a win; it now
    shows one decimal more, and "no gain" where constant K wins or even that rounds to zero. A negative margin (never
    one the table meets: the winner is the fastest) is written with U+2212 by the locale's formatter, not "-"."""
    from specviz.core.i18n import _, using
    from specviz.labs.bench.report import PolicyComparison

    cases = [{"constant": 2.0, "heuristic": 2.5}, {"constant": 2.0, "heuristic": 2.006},
             {"constant": 2.0, "heuristic": 2.0}, {"constant": 2.0, "optimal": 2.00005}]
    monkeypatch.setattr(tiny, "policy_comparisons",
                        lambda temperature: [PolicyComparison("all", "draft", 2, speedups) for speedups in cases])
    with using(lang):
        column = tables.policy_table(tiny, 0.0)[_("winner vs constant")]
        negative = tables.margin_text(-0.12)
    assert list(column) == said
    assert negative == "\u221212%"


def test_a_slowdown_is_blamed_on_what_caused_it():
    """The toy sweep that lost with α ≈ 0.61 and c = 1.17 lost because of c, not because drafts were thrown away."""
    costly_draft = verdict.slowdown_reason(0.61, 1.17, 2, 1.1, 1.9)
    assert "c = 1.17" in costly_draft and "no cheaper than the target" in costly_draft
    assert "thrown away" not in costly_draft
    low_alpha = verdict.slowdown_reason(0.10, 0.10, 4, 1.2, 1.1)  # break-even α for K = 4, c = 0.1 is about 0.29
    assert "thrown away" in low_alpha and f"{theory.break_even_alpha(4, 0.1):.2f}" in low_alpha
    # 36th read (page states): the layer-skip run's best K = 1 read "a step of K = 1 drafts"; c >= 1 "all K = 1 drafts"
    assert "a step drafting K = 1 pays only if" in verdict.slowdown_reason(0.02, 0.344, 1, 1.1, 1.0)
    assert "even if every draft were kept (K = 1)" in verdict.slowdown_reason(0.6, 1.2, 1, 1.1, 1.5)
    verify_bound = verdict.slowdown_reason(0.80, 0.01, 4, 4.5, 3.2)  # α and c pay; the K+1-token forward does not
    assert "4.50× a one-token forward" in verify_bound and "thrown away" not in verify_bound
    assert "4.54 one-token forwards, more than the 3.20 tokens" in verify_bound
    # the H200 run's eagle at T = 0.7: K·c + verify = 1.46 < 1.73 tokens, so the forwards measured alone would pay
    beyond_costs = verdict.slowdown_reason(0.43, 0.122, 3, 1.09, 1.73)
    assert "1.46 one-token forwards for the 1.73 tokens" in beyond_costs and "more than the" not in beyond_costs


def test_a_lookup_slowdown_compares_the_tokens_with_what_an_average_step_cost():
    """Read 46: the n-gram run at T = 0 said "a step's forwards (K·c plus that forward, K = 4) cost 1.57 one-token
    forwards, more than the 1.18 tokens a step buys", but its lookup drafted 1.60 tokens a step on average, so 1.57
    was the cost of a full step only; an average step cost tokens / speedup by the measured speedup."""
    result = results.load_result(ROOT / "assets" / "benchmarks" / "default-cpu-ngram" / "results.json")
    best = result.best_constant("ngram", 0.0)
    assert best["mean_k"] < best["k"]  # the case: the lookup drafts fewer than K on average
    text = verdict.verdict(result, "ngram", 0.0)
    assert f"a step that drafts all K = {best['k']} costs" in text and "a step's forwards" not in text
    assert f"drafted {best['mean_k']:.2f} tokens on average" in text
    assert re.search(r"about \d\.\d\d one-token forwards, more than the "
                     rf"{best['mat_with_bonus']:.2f} tokens it bought", text)
    full = verdict.slowdown_reason(0.80, 0.01, 4, 4.5, 3.2, drafted=4.0, speedup=0.7)  # a chain drafts all K
    assert "4.54 one-token forwards, more than the 3.20 tokens" in full and "on average (a lookup" not in full


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.parametrize("temperature", [0.0, 0.7])
def test_a_lookup_steps_average_cost_follows_from_its_tokens_and_speedup_as_written(lang, temperature):
    """Read 55: default-cpu-ngram at T = 0 read "best 0.93×" and "about 1.26 one-token forwards, more than the 1.18
    tokens it bought", but 1.18 / 0.93 = 1.27 (T = 0.7: 1.14 / 0.90, also 1.27, shown 1.26): the cost was divided
    from every digit. A reader who divides the written tokens by the written speedup gets the written cost."""
    from specviz.core.i18n import number, using

    words = {"en": (r"\(best (\d[.,]\d\d)×", r"about (\d[.,]\d\d) one-token forwards, more than the "
                                             r"(\d[.,]\d\d) tokens"),
             "pt": (r"\(melhor (\d[.,]\d\d)×", r"cerca de (\d[.,]\d\d) passagens de um token, mais que os "
                                                r"(\d[.,]\d\d) tokens")}
    result = results.load_result(ROOT / "assets" / "benchmarks" / "default-cpu-ngram" / "results.json")
    with using(lang):
        text = verdict.verdict(result, "ngram", temperature)
        speedup = float(re.search(words[lang][0], text).group(1).replace(",", "."))
        cost, tokens = re.search(words[lang][1], text).groups()
        tokens_read = float(tokens.replace(",", "."))
        assert cost == number(tokens_read / speedup), text


def test_a_model_drafters_short_steps_are_not_blamed_on_a_lookup():
    """Read 46 (browser): the EAGLE drafter's verdict at T = 0.7 (default-cpu-drafts) said its steps "drafted 3.92
    tokens on average (a lookup drafts only what it finds)"; no lookup runs there: its steps near the token limit
    draft fewer (`max_new_tokens - n_emitted - 1`, specviz.engine.decoding)."""
    result = results.load_result(ROOT / "assets" / "benchmarks" / "default-cpu-drafts" / "results.json")
    best = result.best_constant("eagle", 0.7)
    assert best["mean_k"] < best["k"]  # the case: a model drafter that drafted fewer than K on average
    text = verdict.verdict(result, "eagle", 0.7)
    assert f"drafted {best['mean_k']:.2f} tokens on average (drafting stops at the token limit" in text
    assert "(a lookup" not in text


def test_a_win_its_own_costs_call_a_loss_says_so_with_both_slowdowns():
    """Read 52: default-h200-bf16-run2's separate draft, greedy, read "1.26× faster ... at its best K = 3" and no
    more, though a step of K = 3 costs 1.77 one-token forwards (3 x 0.207 + 1.15) for 1.58 tokens: by its costs a
    loss. Target-only decoding there took 42.5 ms a token against an 18.8 ms forward (its first prompt's slow start,
    docs/gpu.md); the verdict now says so, and the two factors it gives multiply back to the measured speedup."""
    result = results.load_result(ROOT / "assets" / "benchmarks" / "default-h200-bf16-run2" / "results.json")
    best = result.best_constant("draft", 0.0)
    step = best["k"] * best["c"] + result.verify_ratio(best["k"])
    assert best["speedup_vs_ar"] > 1.05 and step > best["mat_with_bonus"]  # the case: a win the costs call a loss
    text = verdict.verdict(result, "draft", 0.0)
    assert "1.26× faster" in text
    assert ("Its costs measured alone say it should lose: a step of K = 3 costs 1.77 one-token forwards (K·c of "
            "drafting, c = 0.207, plus one target forward over 4 tokens, which costs 1.15× a one-token forward) for "
            "the 1.58 tokens it buys on average") in text
    assert "took 42.5 ms a token in this run (prefill included), 2.26× the 18.8 ms of one target forward" in text
    assert "speculative decoding 33.7 ms, 1.60× what its costs add up to" in text
    assert 2.26 / 1.60 * best["mat_with_bonus"] / step == pytest.approx(best["speedup_vs_ar"], rel=0.01)
    for proposer, temperature in (("eagle", 0.0), ("eagle", 0.7), ("draft", 0.7)):  # costs that pay, or a loss
        assert "should lose" not in verdict.verdict(result, proposer, temperature)
    packed = results.load_result(ROOT / "assets" / "benchmarks" / "default-cpu-f32-packed" / "results.json")
    assert "should lose" not in verdict.verdict(packed, "eagle", 0.0)
    from specviz.core.i18n import using

    with using("pt"):
        pt = verdict.verdict(result, "draft", 0.0)
    assert "deveria perder" in pt and "42,5 ms" in pt and "2,26×" in pt and "1,60×" in pt


def test_a_win_well_above_what_its_own_costs_predict_says_where_the_rest_came_from():
    """Read 52: default-h200-bf16-run2's EAGLE-1 drafter, greedy, read "1.62× faster" where its own costs (a step of
    K = 4 costs 1.62 one-token forwards for 1.93 tokens) give 1.19× and the predicted (measured verify cost) column
    1.13×; the win its costs call a loss got a note, this one none. Past `WIN_BEYOND_COSTS` (1.25) times its costs'
    prediction the verdict now says so with the same two factors (target-only decoding's 42.5 ms a token against an
    18.8 ms forward, the first prompt's slow start in docs/gpu.md), and over every committed run only there."""
    result = results.load_result(ROOT / "assets" / "benchmarks" / "default-h200-bf16-run2" / "results.json")
    best = result.best_constant("eagle", 0.0)
    step = best["k"] * best["c"] + result.verify_ratio(best["k"])
    assert verdict.WIN_BEYOND_COSTS == 1.25 and step < best["mat_with_bonus"]  # the costs say it pays, by less
    assert best["speedup_vs_ar"] / (best["mat_with_bonus"] / step) > verdict.WIN_BEYOND_COSTS
    text = verdict.verdict(result, "eagle", 0.0)
    assert "1.62× faster" in text and "should lose" not in text
    assert ("That is 1.36× what its costs measured alone predict: a step of K = 4 costs 1.62 one-token forwards (K·c "
            "of drafting, c = 0.120, plus one target forward over 5 tokens, which costs 1.14× a one-token forward) for "
            "the 1.93 tokens it buys on average (its mean accepted length), 1.19× faster.") in text
    assert ("target-only decoding took 42.5 ms a token in this run (prefill included), 2.26× the 18.8 ms of one "
            "target forward timed alone, and speculative decoding 26.2 ms, 1.66× what its costs add up to. Read the "
            "win beyond 1.19× as this run's timing") in text
    assert 2.26 / 1.66 == pytest.approx(1.36, abs=0.005)
    noted = []
    for path in sorted((ROOT / "assets" / "benchmarks").glob("*/results.json")):
        run = results.load_result(path)
        for proposer in sorted({r["proposer"] for r in run.rows()}):
            for temperature in sorted({r["temperature"] for r in run.rows(proposer=proposer)}):
                if "what its costs measured alone predict" in verdict.verdict(run, proposer, temperature):
                    noted.append((path.parent.name, proposer, temperature))
    assert noted == [("default-h200-bf16-run2", "eagle", 0.0)]
    from specviz.core.i18n import using

    with using("pt"):
        pt = verdict.verdict(result, "eagle", 0.0)
    assert "Isso é 1,36× o que preveem os custos medidos à parte" in pt and "1,19× mais rápido" in pt
    assert "42,5 ms" in pt and "2,26×" in pt and "1,66×" in pt


def test_a_win_beyond_its_costs_divides_the_figures_as_written():
    """Read 55: `beyond_costs_win` divided "{predicted} faster" from the unrounded mean accepted length and step, while
    the sentence writes both rounded: 1.9355 tokens over a step of 1.62 forwards read "for the 1.94 tokens ..., 1.19×
    faster", though 1.94 / 1.62 = 1.20. The prediction, and the "That is {over}" over it, now follow from the figures
    as written (1.62× / 1.20× = 1.35×), in both languages."""
    from specviz.core.i18n import using

    result = results.load_result(ROOT / "assets" / "benchmarks" / "default-h200-bf16-run2" / "results.json")
    best = dict(result.best_constant("eagle", 0.0), mat_with_bonus=1.9355)
    assert verdict.written_step(best["k"], best["c"], result.verify_ratio(best["k"])) == pytest.approx(1.62)
    text = " ".join(verdict.beyond_costs_win(result, best, 0.0).split())
    assert "for the 1.94 tokens it buys on average (its mean accepted length), 1.20× faster." in text
    assert "That is 1.35× what its costs measured alone predict" in text and "1.19×" not in text
    assert "Read the win beyond 1.20× as this run's timing" in text
    with using("pt"):
        pt = verdict.beyond_costs_win(result, best, 0.0)
    assert "Isso é 1,35× o que preveem os custos medidos à parte" in pt and "1,20× mais rápido" in pt


def test_a_slowdown_at_the_break_even_alpha_blames_alpha_not_the_verify_cost():
    """α = 0 with free drafts (break-even α = 0) was told "α ≈ 0.00 and c = 0.000 would pay if checking the drafts
    were free": at α = 0 every draft is thrown away, and at the break-even α a step only ties."""
    for alpha, c, k in ((0.0, 0.0, 1), (0.0, 0.0, 4), (0.5, 0.5, 1)):
        assert theory.break_even_alpha(k, c) == pytest.approx(alpha, abs=1e-12)  # (1, 0.5): 1 + α = 1.5
        text = verdict.slowdown_reason(alpha, c, k, 1.0, 1.0 + alpha)
        assert "thrown away" in text and "would pay" not in text, text


def test_the_verdict_of_a_losing_sweep_names_c(tiny, monkeypatch):
    best = dict(tiny.best_constant("draft", 0.0), speedup_vs_ar=0.55, c=1.17, k=3, mat_with_bonus=2.1)
    monkeypatch.setattr(type(tiny), "best_constant", lambda self, proposer, temperature: best)
    monkeypatch.setattr(type(tiny), "mean_alpha", lambda self, proposer, temperature: 0.61)
    text = verdict.verdict(tiny, "draft", 0.0)
    assert "slower than target-only decoding" in text and "c = 1.17" in text and "thrown away" not in text


@pytest.mark.parametrize("speedup,word", [(0.96, "roughly breaks even"), (0.95, "slower than"),
                                          (1.05, "faster than"), (1.04, "roughly breaks even"),
                                          (1.0454, "faster than"), (0.9527, "slower than")])
def test_the_lab_and_the_race_give_one_measured_speedup_the_same_word(tiny, monkeypatch, speedup, word):
    """The lab called 0.95-0.97x slower while the Race called it a tie: both read timeline.speedup_band now. Read 51:
    the band is that of the speedup as written, so 1.0454, written 1.05×, is a win as a measured 1.05 is."""
    best = dict(tiny.best_constant("draft", 0.0), speedup_vs_ar=speedup, c=0.2, k=3, mat_with_bonus=1.2)
    monkeypatch.setattr(type(tiny), "best_constant", lambda self, proposer, temperature: best)
    text = verdict.verdict(tiny, "draft", 0.0)
    assert word in text
    race = {"won": "faster than", "tie": "roughly breaks even", "lost": "slower than"}[timeline.speedup_band(speedup)]
    assert race == word


def test_figure_table_lists_every_point_of_bars_and_lines():
    """The numbers behind each chart, for a phone or a keyboard that cannot hover."""
    fig = go.Figure([go.Bar(x=["a", "b"], y=[1.0, 2.5], name="bars"),
                     go.Bar(y=["a"], x=[3.0], orientation="h", name="sideways"),
                     go.Scatter(x=["b"], y=[0.123456], name="line"), go.Heatmap(z=[[1, 2]])],
                    layout={"xaxis_title": "kind"})
    table = plot.figure_table(fig)
    assert table.to_dict("records") == [{"kind": "a", "bars": "1", "sideways": "3", "line": "–"},
                                        {"kind": "b", "bars": "2.5", "sideways": "–", "line": "0.123"}]
    assert plot.figure_table(go.Figure(go.Heatmap(z=[[1]]))).to_dict("records") == [{"y": "0", "0": "1"}]
    assert plot.figure_table(go.Figure(layout={"title": "nothing drawn"})) is None


@pytest.fixture(scope="module")
def tree_tiny():
    """Chains and trees of one K on the toy pair, with the verify curve in float32 and bfloat16."""
    config = BenchConfig(pair="toy", proposers=["draft"], ks=[3], tree_nodes=[0, 8, 16], tree_widths=[3],
                         temperatures=[0.0], suites=["qa"], prompts_per_suite=1, max_new_tokens=10, repeats=1,
                         warmup=0, threads=1, hf="greedy", cost_repeats=3, record_overhead=False)
    return run_bench(config, command=bench.command_line(config), pair=toy_pair())


@pytest.mark.slow  # a bench of its own and a page run
def test_page_shows_chain_vs_tree_and_the_verify_cost_of_both_dtypes(tree_tiny, tmp_path, monkeypatch):
    tree_tiny.save(tmp_path / "trees")
    monkeypatch.setattr(bench, "BENCHMARKS_DIR", tmp_path)
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    _ok(at)
    keys = [c.key for c in at.get("plotly_chart")]
    assert "speedup_lab_tree_chart" in keys and "speedup_lab_dtype_chart" in keys
    assert trees.curves_caption(tree_tiny) in [c.value for c in at.caption]  # the second timing says it is one
    table = next(f.value for f in at.dataframe if "share of the physical limit" in f.value.columns)
    assert list(table["draft shape"]) == ["a chain of K = 3", "a tree of 8 nodes, depth 3, width 3",  # describe()
                                          "a tree of 16 nodes, depth 3, width 3"]
    text = " ".join(m.value for m in at.markdown)
    assert "The tree that emits the most tokens per target forward" in text and trees.dtype_sentence(tree_tiny) in text


@pytest.mark.slow  # the tree_tiny bench (about 3 s)
def test_the_dtype_sentence_quotes_the_curves_it_was_measured_with(tree_tiny):
    curves = tree_tiny.verify_curves()
    wide = {dtype: next(p["ratio"] for p in curve if p["n_tokens"] == 17) for dtype, curve in curves.items()}
    sentence = trees.dtype_sentence(tree_tiny)
    assert view.times(wide["float32"]) in sentence and view.times(wide["bfloat16"]) in sentence
    fig = trees.dtype_curve_figure(tree_tiny)
    assert [t.name.split(",")[0] for t in fig.data[:2]] == ["float32", "bfloat16"]
    assert all(t.y[0] == 1.0 for t in fig.data[:2])  # each curve relative to its own one-token forward


def _curves_result(wide32: float, wide16: float) -> bench.BenchResult:
    """A result holding only verify curves: a one-token forward of 10 ms (float32) and 8 ms (bfloat16), and the
    forward over WIDE tokens at the given ratios."""
    def curve(one: float, wide: float) -> list[dict]:
        return [{"n_tokens": 1, "seconds": one, "ratio": 1.0}, {"n_tokens": trees.WIDE, "seconds": one * wide,
                                                                  "ratio": wide}]
    return bench.BenchResult(command="", created="", machine={}, config={}, cases=[], baselines=[], summary=[],
                             suites=[], costs={"verify_curves": {"float32": curve(0.010, wide32),
                                                                 "bfloat16": curve(0.008, wide16)}})


def test_the_two_verify_timings_of_one_run_are_named_as_two_timings():
    """Issue 43: the Verify cost tab of default-cpu-f32-packed drew two float32 curves from 40.1 ms at one token that
    part further on (5 tokens: 0.931 and 0.910), and nothing said they were two timings: costs.verify, timed with c
    over 15 rounds, and costs.verify_curves, timed again right after over 7. The legends and the caption say so."""
    from specviz.labs.bench.timing import curve_repeats

    run = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    first, again = run.costs["repeats"], curve_repeats(run.config["cost_repeats"])
    assert first != again
    above = charts.verify_cost_figure(run).data[0].name
    assert above == f"measured with c: median of {first} rounds"
    f32 = trees.dtype_curve_figure(run).data[0].name
    assert f32.startswith(f"float32, timed separately:<br>median of {again} rounds (1 token = ")
    caption = trees.curves_caption(run)
    ratio = {int(v["n_tokens"]): v["ratio"] for v in run.costs["verify"]}[5]
    other = next(p["ratio"] for p in run.verify_curves()["float32"] if p["n_tokens"] == 5)
    assert view.number(ratio, 2) != view.number(other, 3)
    assert caption.startswith("A second, separate timing of the same forwards")
    # each as its chart writes it: the chart above to 2 decimals, the dtype curves to 3 (read 55)
    assert (f"At 5 tokens it reads {view.number(other, 3)} one-token forwards against {view.number(ratio, 2)} "
            "above") in caption
    assert "Its float32 line times the same forward as the chart above." in caption
    assert f"(median of {first} rounds)" in caption and f"(median of {again} rounds)" in caption
    assert trees.curves_caption(results.load_result(bench.BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")) \
        is None  # no curves, no second chart


def test_the_predictions_name_the_alpha_they_were_computed_at():
    """Issue 43: "predicted (paper)" on the Speedup vs K chart is the formula at the mean α of the K run (1.596 at
    K = 2 for default-cpu-f32-packed, eagle, greedy), in the table under it at each row's own α (1.612): the chart's
    names say "at the mean α", the table's "at this row's α", in both languages."""
    from specviz.core.i18n import using

    run = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    fig = charts.speedup_vs_k_figure(run, "eagle", 0.0)
    paper, verify = fig.data[0], fig.data[1]
    assert paper.name.startswith("predicted (paper)<br>at the mean α = ")
    assert verify.name == "predicted (measured verify cost)<br>at the mean α"
    table = tables.mat_table(run, "eagle", 0.0)
    row = table[table["K"] == "2"].iloc[0]
    on_chart = view.number(paper.y[list(paper.x).index(2)], 3)
    assert row["predicted (paper) at this row's α"] != on_chart
    assert "predicted (measured verify cost) at this row's α" in table.columns
    assert not {"predicted (paper)", "predicted (measured verify cost)"} & set(table.columns)
    with using("pt"):
        names = [t.name for t in charts.speedup_vs_k_figure(run, "eagle", 0.0).data[:2]]
        columns = list(tables.mat_table(run, "eagle", 0.0).columns)
    assert names[0].startswith("previsto (artigo)<br>com o α médio = ") and names[1].endswith("<br>com o α médio")
    assert "previsto (artigo) com o α desta linha" in columns


def test_the_optimal_policys_row_names_no_k_it_did_not_draft():
    """Read 51: the Speedup vs K table gave the optimal policy's row K = 4 (the run's --policy-k, under which the
    bench files it), though `make_policy` ignores K: default-cpu-ngram's optimal row drafted up to 8 a step, 2.805
    on average, as its constant K = 8 row did, beside "K 4". Its K is "–", and the column's help says what K means
    for each policy, in both languages."""
    from specviz.core.i18n import using

    run = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    table = tables.mat_table(run, "ngram", 0.0)
    optimal = table[table["policy"] == view.policy_text("optimal")].iloc[0]
    eight = table[(table["policy"] == view.policy_text("constant")) & (table["K"] == "8")].iloc[0]
    assert optimal["K"] == "–" and optimal["mean K drafted"] == eight["mean K drafted"] == "2.805"
    heuristic = table[table["policy"] == view.policy_text("heuristic")].iloc[0]
    assert heuristic["K"] == "4"  # where it starts, as the help says
    assert "Optimal: –, since it picks its own K at every step" in tables.mat_help(table)["K"]
    with using("pt"):
        said = tables.mat_help(tables.mat_table(run, "ngram", 0.0))["K"]
    assert "Optimal: –, já que ela escolhe o seu próprio K a cada passo" in said


def test_the_trace_recording_overhead_is_a_signed_percent_as_results_md_writes_it():
    """Read 55: the Speedup vs K table wrote default-cpu-ngram's trace recording overhead as the bare fraction
    "0.003" (K = 4, T = 0) and "−0.008" (T = 0.7), a number with no unit, where the run's results.md writes "+0.3%"
    and "-0.8%" for the same rows; it is a signed percent with one decimal, in the reader's way, and "–" where the
    run did not measure it."""
    from specviz.core.i18n import using
    from specviz.labs.bench.report import markdown_report

    run = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    column = view.label("record_overhead")
    report = markdown_report(run)
    for temperature, said, pt in ((0.0, "+0.3%", "+0,3%"), (0.7, "−0.8%", "−0,8%")):
        table = tables.mat_table(run, "ngram", temperature)
        measured = table[table[column] != "–"]
        assert measured["K"].tolist() == ["4"] and measured[column].tolist() == [said]
        assert f"ngram K=4 T={temperature:g}: {said.replace('−', '-')}" in report
        with using("pt"):
            assert tables.mat_table(run, "ngram", temperature)[_pt_label("record_overhead")].tolist().count(pt) == 1


def _pt_label(key: str) -> str:
    from specviz.core.i18n import using

    with using("pt"):
        return view.label(key)


def test_the_acceptance_by_position_axis_says_each_point_counts_the_steps_that_drafted_that_far():
    """Read 55: both acceptance-by-position charts titled their y axis "share of steps with drafts 1..i all kept",
    a share of every step, which cannot rise with i; default-cpu-ngram's n-gram lookup at K = 8, T = 0 rises from
    0.057 at i = 3 to 0.066 at i = 5, since each point counts only the steps that drafted that far (the Definitions'
    "of the steps that drafted at least i tokens"). The axis says so, in both languages."""
    from specviz.core.i18n import using

    run = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    eight = run.row(suite="all", proposer="ngram", temperature=0.0, policy="constant", k=8)["per_position"]
    assert eight[4] > eight[2]  # a share of every step would fall
    for figure in (charts.acceptance_figure(run, "ngram", 0.0), charts.proposers_acceptance_figure(run, 0.0)):
        axis = figure.layout.yaxis.title.text.replace("<br>", " ")
        assert axis == "of the steps that drafted i or more: share with drafts 1..i all kept"
    with using("pt"):
        axis = charts.acceptance_figure(run, "ngram", 0.0).layout.yaxis.title.text.replace("<br>", " ")
    assert axis == "dos passos que rascunharam i ou mais: fração com os palpites 1..i todos mantidos"


def test_target_only_is_the_reference_of_the_greedy_identical_column_not_a_check():
    """Read 55: the vs transformers table gave specviz target-only "8/8" under "greedy output identical" (the same
    tokens as specviz's target-only decoding), a comparison of its tokens with themselves that the bench files as
    passed on every prompt; its cell names it the reference, in both languages, and model.generate keeps its count."""
    from specviz.core.i18n import using

    run = results.load_result(bench.BENCHMARKS_DIR / "default-h200-bf16-run2" / "results.json")
    column = view.label("identical")
    table = tables.comparison_table(run, 0.0)
    cells = dict(zip(table["method"], table[column]))
    assert cells["specviz target-only"] == "the reference" and cells["transformers generate"] == "1/3"
    assert tables.comparison_table(run, 0.7).iloc[0][column] == "–"  # sampled: nothing compared
    with using("pt"):
        assert tables.comparison_table(run, 0.0).iloc[0][_pt_label("identical")] == "a referência"


def test_the_verify_cost_figure_names_only_the_dtypes_the_result_measured():
    """The committed Medusa run measured a float32 curve only, and its figure was titled "Verify cost in float32 and
    in bfloat16"; the title names the dtypes the file holds."""
    medusa = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-medusa" / "results.json")
    assert list(medusa.verify_curves()) == ["float32"]
    assert trees.dtype_curve_figure(medusa).layout.title.text == "Verify cost in float32"
    both = trees.dtype_curve_figure(_curves_result(1.3, 1.3)).layout.title.text
    assert both == "Verify cost in float32 and in bfloat16"


@pytest.mark.parametrize(("wide32", "wide16", "says", "never"), [
    (2.28, 1.17, "In float32 the cost grows with the tokens", "as well as bfloat16"),
    (1.30, 1.32, "float32 hides verification as well as bfloat16 does", "In float32"),
    (1.92, 7.26, "bfloat16 is the dtype whose cost grows with the tokens", "In float32"),
])
def test_the_dtype_sentence_says_which_dtype_hides_verification_from_the_numbers(wide32, wide16, says, never):
    """Issue 43, item 5: the sentence follows the measured curves. float32 clearly steeper (the stock-kernel tree
    run), the two within SAME_SLOPE (packed float32: 1.30x against 1.32x), bfloat16 clearly steeper (AVX2 cap)."""
    sentence = trees.dtype_sentence(_curves_result(wide32, wide16))
    assert says in sentence and never not in sentence
    assert view.times(wide32) in sentence and view.times(wide16) in sentence
    assert "10.0" in sentence and "8.0" in sentence  # each dtype's one-token forward in ms


def test_the_dtype_sentence_credits_bfloat16_instructions_only_where_the_file_records_them():
    """Issue 43, tenth read: the Xeon tree runs record no CPU flags (cpu_bf16 is None), so their sentence must not
    explain the curve by bfloat16 instructions; a run whose file records cpu_bf16 = True may."""
    unknown = trees.dtype_sentence(_curves_result(2.28, 1.17))
    assert "which has bfloat16 instructions" not in unknown
    assert "does not record whether this CPU has bfloat16 instructions" in unknown
    recorded = _curves_result(2.28, 1.17)
    recorded.machine["cpu_bf16"] = True
    said = trees.dtype_sentence(recorded)
    assert "On this CPU, which has bfloat16 instructions" in said
    assert "likely because the arithmetic is then fast enough" in said and "the run does not measure that" in said
    for name in ("default-cpu-bf16-tree", "default-cpu-bf16-trees"):
        path = next(p for p in results.result_files() if results.result_name(p) == name)
        assert "which has bfloat16 instructions" not in trees.dtype_sentence(results.load_result(path))


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_stock_kernel_runs_float32_climb_is_put_down_to_the_kernels_not_the_arithmetic(lang):
    """Issue 43, 41st read: the Xeon tree runs' sentence said "In float32 the arithmetic itself grows with the
    tokens"; they ran PyTorch's stock kernels, and with the weights packed for oneDNN float32 measured far flatter
    (default-cpu-f32-packed, same bench): the climb the project measured is the kernels', so the sentence names them."""
    from specviz.core.i18n import using

    for name in ("default-cpu-bf16-tree", "default-cpu-bf16-trees"):
        path = next(p for p in results.result_files() if results.result_name(p) == name)
        with using(lang):
            said = trees.dtype_sentence(results.load_result(path))
        assert "arithmetic itself" not in said and "própria aritmética" not in said
        assert ("with the PyTorch stock kernels this run used" if lang == "en" else
                "com os kernels padrão do PyTorch que esta execução usou") in said
        assert "`default-cpu-f32-packed`" in said


@pytest.mark.slow  # the page over one committed run, both temperatures (about 10 s a language)
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_lab_draws_no_old_tree_acceptance_by_position(lang):
    """Read 51: default-cpu-bf16-trees computed its tree rows' acceptance by position before it had its current meaning
    (0.78 / 0.55 / 0.86 at K = 3, 16×4, greedy), and the lab's loader handed them on under today's name. It loads
    them blank now; the Acceptance by position tab draws the run's chains, each with its own entries, and no tree."""
    import json

    from specviz.core.i18n import using

    shown = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-bf16-trees" / "results.json")
    tree_rows = [r for r in shown.summary if r.get("tree_nodes")]
    assert tree_rows and all(r["per_position"] == [] for r in tree_rows)
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["lang"] = lang
    with using(lang):
        at.run()
        source = at.selectbox(key="speedup_lab_source")
        source.set_value(next(o for o in source.options if o.startswith("default-cpu-bf16-trees"))).run()
        _ok(at)
        for index in range(len(at.selectbox(key="speedup_lab_temperature").options)):
            at.selectbox(key="speedup_lab_temperature").select_index(index).run()
            _ok(at)
            temperature = at.selectbox(key="speedup_lab_temperature").value
            chains = {f"K = {r['k']}": r["per_position"]
                      for r in shown.rows(proposer="eagle", temperature=temperature, policy="constant")}
            chart = next(c for c in at.get("plotly_chart") if c.key == "speedup_lab_accept_chart")
            drawn = {t["name"]: t["y"] for t in json.loads(chart.proto.spec)["data"] if t["name"].startswith("K = ")}
            assert drawn.keys() == chains.keys() == {"K = 3", "K = 4"}, (temperature, drawn.keys())
            assert all(drawn[name] == pytest.approx(chains[name]) for name in chains), temperature


def test_the_committed_packed_float32_run_says_float32_hides_verification_too():
    """The run docs/benchmarks.md quotes (packed oneDNN kernels, float32 1.30x against bfloat16 1.32x at 17 tokens)
    must not be told that float32's verification eats into the gain."""
    import json

    path = next(p for p in results.result_files() if results.result_name(p) == "default-cpu-f32-packed")
    assert "as well as bfloat16" in trees.dtype_sentence(results.load_result(path))
    curves = json.loads(path.read_text(encoding="utf-8"))["costs"]["verify_curves"]
    at17 = {dtype: next(r["ratio"] for r in rows if r["n_tokens"] == 17) for dtype, rows in curves.items()}
    quoted = f"{at17['float32']:.2f}× in float32, {at17['bfloat16']:.2f}× in bfloat16"  # read 24: it said README.md
    assert quoted in " ".join((ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").split())


@pytest.mark.slow  # the tree_tiny bench (about 3 s)
def test_the_tree_figure_puts_tokens_per_forward_next_to_the_speedup_and_the_limit(tree_tiny):
    rows = tree_tiny.shape_rows("draft", 0.0)
    fig = trees.shape_figure(tree_tiny, "draft", 0.0)
    bars, speedups, limits = fig.data
    assert list(bars.y) == [r["mat_with_bonus"] for r in rows]
    assert list(speedups.y) == [r["speedup_vs_ar"] for r in rows]
    # the limit from the dtype curve as its chart writes it (read 55), within that rounding of the recorded one
    assert list(limits.y) == [written_limit(r, tree_tiny.costs, trees.CURVE_DIGITS) for r in rows]
    assert list(limits.y) == pytest.approx([r["physical_limit"] for r in rows], rel=2e-3)
    assert trees.shape_sentence(tree_tiny, "draft", 1.0) is None  # no trees at that temperature


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_a_run_of_several_proposers_shows_their_acceptance_by_position_side_by_side():
    """Issue 46: Medusa's heads against the EAGLE drafter's depths on the same prompts, in one chart with a line style
    per proposer (colour is not the only cue) and its numbers as a table; a one-proposer run has no such chart."""
    medusa_run = next(path for path in results.result_files() if results.result_name(path) == "default-cpu-f32-medusa")
    shown = results.load_result(medusa_run)
    fig = charts.proposers_acceptance_figure(shown, 0.0)
    assert [t.name for t in fig.data] == ["EAGLE feature drafter (trained), chain K = 4",
                                      "Medusa heads (trained), chain K = 4"]
    assert len({t.line.dash for t in fig.data}) == 2 and len({t.marker.symbol for t in fig.data}) == 2
    eagle, medusa = (list(t.y) for t in fig.data)
    assert eagle == shown.row(suite="all", proposer="eagle", temperature=0.0, policy="constant", k=4)["per_position"]
    assert eagle[1] / eagle[0] > 1.5 * medusa[1] / medusa[0]  # draft 2 once draft 1 was kept: seeing it pays
    assert not plot.figure_table(fig).empty
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    at.selectbox(key="speedup_lab_source").set_value("default-cpu-f32-medusa (committed)").run()
    _ok(at)
    keys = [c.key for c in at.get("plotly_chart")]
    assert "speedup_lab_accept_all_chart" in keys and any("Divide a point by the one before" in c.value
                                                          for c in at.caption)
    at.selectbox(key="speedup_lab_source").set_value(f"{results.HEADLINE_RUN} (committed)").run()
    assert "speedup_lab_accept_all_chart" not in [c.key for c in at.get("plotly_chart")]


def test_the_verdict_names_the_proposer_by_its_label_and_the_best_category_as_measured():
    """Issue 43, fifth read: the verdict showed the registry key ("eagle") and called the best category one "where
    the output copies the prompt", although a run's best may be held-out answers that copy little."""
    from specviz.engine.proposers import registry

    for folder, proposer in (("default-cpu-ngram", "ngram"), ("default-cpu-f32-packed", "eagle")):
        result = results.load_result(ROOT / "assets" / "benchmarks" / folder / "results.json")
        text = verdict.verdict(result, proposer, 0.0)
        assert text.startswith(f"Over all categories — {registry.phrase_of(proposer)}, T = 0 — speculative "
                               "decoding is ")
        assert "copies the prompt" not in text
        top = result.best_in_one_suite(proposer, 0.0)
        if len(result.suite_titles()) > 1 and top["speedup_vs_ar"] >= 1.05:
            assert (f"Of the categories taken one at a time, **{result.suite_titles()[top['suite']]}** pays most: "
                    f"{view.times(top['speedup_vs_ar'])}") in text
    assert registry.phrase_of("layerskip-7") == "layerskip-7"  # a benchmark's own name is shown as it is


@pytest.mark.parametrize(("lang", "named"), [
    ("en", "Over all categories — layer-skip self-draft (the target's first 7 layers), T = 0 — "),
    ("pt", "Com todas as categorias juntas — autorrascunho pulando camadas (as 7 primeiras camadas do alvo), "
           "T = 0 — ")])
def test_the_layer_skip_runs_verdict_names_its_proposer_as_the_menu_above_it_does(lang, named):
    """Read 48: on the committed layer-skip run the Proposer menu (and the Policies and vs transformers tables) said
    "Layer-skip self-draft (the target's first 7 layers)" but the verdict under it said "layerskip-7", the bench's own
    name, which the page shows nowhere else. The verdict names it as the menu does, in both languages."""
    from specviz.core.i18n import using

    result = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-layerskip" / "results.json")
    with using(lang):
        text = verdict.verdict(result, "layerskip-7", 0.0)
        menu = view.proposer_text("layerskip-7")
    assert text.startswith(named) and "layerskip-7" not in text
    assert named.split(" — ")[1].split(",")[0].lower() == menu.lower()  # the menu's words, in a sentence's case


def test_the_portuguese_verdict_pools_the_categories_as_the_english_does():
    """Read 45: "Over all categories" (pooled) read "Em todas as categorias" in Portuguese, "in every category", so the
    n-gram run's verdict said it was slower in every category and then that Summarise / rewrite paid 2.08×."""
    from specviz.core.i18n import using

    result = results.load_result(ROOT / "assets" / "benchmarks" / "default-cpu-ngram" / "results.json")
    with using("pt"):
        text = verdict.verdict(result, "ngram", 0.0)
    assert text.startswith("Com todas as categorias juntas — ") and "Em todas as categorias" not in text
    assert "Das categorias tomadas uma a uma, **Resumir / reescrever**" in text  # the one category that paid


def test_the_optimal_policy_probes_as_often_as_the_policies_text_says():
    """Issue 43, twelfth read: the Policies tab said "K = 0: don't speculate", but OptimalK drafts one token every
    PROBE_EVERY steps while its formula says 0, so the committed layer-skip run's optimal row drafts a mean K of 1/8
    (assets/benchmarks/default-cpu-layerskip). The text now names the probe; this holds the engine to the number."""
    policy = OptimalK(c=0.5, alpha=0.0)
    ks = [policy.next_k() for _ in range(4 * PROBE_EVERY)]
    assert ks.count(1) == 4 and ks.count(0) == 4 * PROBE_EVERY - 4
    layerskip = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-layerskip" / "results.json")
    optimal = next(r for r in layerskip.rows(proposer="layerskip-7", temperature=0.0) if r["policy"] == "optimal")
    assert abs(optimal["mean_k"] - 1 / PROBE_EVERY) < 0.01


def test_the_chain_vs_tree_sentence_says_it_compares_the_most_tokens_not_the_fastest():
    """Issue 43, twelfth read: on the committed float32 packed run the sentence called the 16-node tree and the K = 4
    chain "the best" (most tokens per forward, 1.67× each) while the verdict above named the fastest, an 8-node tree
    at 1.88× and K = 2 at 1.68×: "best" meant two things on one page. It now says which it compares."""
    result = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    sentence = trees.shape_sentence(result, "eagle", 0.0)
    rows = result.shape_rows("eagle", 0.0)
    most = max((r for r in rows if r.get("tree_nodes")), key=lambda r: r["mat_with_bonus"])
    fastest = max((r for r in rows if r.get("tree_nodes")), key=lambda r: r["speedup_vs_ar"])
    assert most is not fastest  # the case that made "best" ambiguous
    assert "best" not in sentence and "emits the most tokens per target forward" in sentence
    assert trees.shape_name(most) in sentence and "the fastest shapes can be others" in sentence


def test_a_load_average_note_is_written_the_readers_way():
    """The bench note wrote the start's load as a number and the end's as a Python list ("[2.03, 2.01, 1.93]"),
    decimal points in Portuguese too; both are now the 1-minute figure in the reader's way."""
    from specviz.core.i18n import using

    note = ("The machine was shared (load average 1.04 at the start, [2.03, 2.01, 1.93] at the end): absolute times "
            "are noisy; ratios from the same run are the numbers to trust.")
    assert "was 1.04 at the start and 2.03 at the end, on 2 cores" in results.note_text(note, 2)
    with using("pt"):
        shown = results.note_text(note, 2)
    assert "1,04" in shown and "2,03" in shown and "[" not in shown and "2 núcleos" in shown


def test_the_cost_chart_caption_counts_a_trees_lookup_branch_in_the_tokens_fed():
    """Issue 43, twelfth read: under "This machine"'s cost chart, "a tree feeds its nodes plus one" left out the
    lookup branch that the pair's recommended tree carries: 16 nodes + a lookup branch of 8 feed up to 25 tokens
    (`tokens_fed`, the Chain vs tree tab's "nodes + lookup branch + 1"), not 17."""
    from specviz.labs.bench.summary import tokens_fed
    from specviz.models.catalog import recommended_for
    from specviz.ui.common.this_machine import COST_CAPTION

    best = recommended_for("default")
    assert best.tree_lookup > 0 and tokens_fed(best.k, best.tree_nodes, best.tree_lookup) > best.tree_nodes + 1
    assert "lookup branch" in COST_CAPTION and "a tree feeds its nodes plus one" not in COST_CAPTION


@pytest.mark.parametrize("lang, said", [
    ("en", ("One drafter pass costs 0.0020; one token of model.generate 1.200 greedy and 1.500 sampling at T = 0.7 "
            "(the predictions at T = 0.7 are measured against the sampled one).",
            "One drafter pass costs 0.0020; one token of greedy model.generate 1.2000 (sampling was not timed: the "
            "predictions at T = 0.7 are measured against greedy model.generate too).")),
    ("pt", ("Uma passagem do rascunhador custa 0,0020; um token do model.generate, 1,200 na decodificação gulosa e "
            "1,500 com amostragem a T = 0,7 (as previsões a T = 0,7 são comparadas com o da amostragem).",
            "Uma passagem do rascunhador custa 0,0020; um token do model.generate na decodificação gulosa, 1,2000 (a "
            "amostragem não foi cronometrada: as previsões a T = 0,7 também são comparadas com ele)."))])
def test_the_cost_chart_caption_writes_a_small_c_and_says_which_model_generate_it_timed(lang, said):
    """Read 52: under "This machine"'s cost chart the caption wrote c as `number(cal.c)`, so a drafter pass of 0.002
    one-token forwards read "0.00", and it gave "one token of model.generate 1.20", the greedy timing only, while the
    T = 0.7 predictions beside it divide by the sampled one (`Calibration.baseline_ratio`). Read 54: the token of
    model.generate takes the decimals its predictions need (`this_machine.cost_digits`): 3, or 4, for this one."""
    import dataclasses

    from specviz.core.i18n import using
    from specviz.labs import calibration
    from specviz.ui.common import this_machine

    cal = calibration.Calibration("default", "eagle", "float32", "cpu", "stock", "cpu", (), False, "2", 2,
                                  ((1, 0.01), (3, 0.012)), 0.00002, 0.012, 0.0, sampled_generate_seconds=0.015)
    with using(lang):
        assert this_machine.cost_caption(cal).endswith(said[0])
        assert this_machine.cost_caption(dataclasses.replace(cal, sampled_generate_seconds=0.0)).endswith(said[1])


def test_the_alpha_beside_the_best_k_is_that_ks_own():
    """Issue 43, twelfth read: the headline's α and the verdict's "at its best K = 4 (α ≈ 0.34 ...)" showed the mean
    of α over every constant K, while the table row for K = 4 of the same run says 0.36 (the committed n-gram run,
    T = 0). Beside a K, the α is now that K's."""
    result = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    best = result.best_constant("ngram", 0.0)
    assert best["k"] == 4 and abs(best["alpha"] - result.mean_alpha("ngram", 0.0)) > 0.01  # the case that misled
    assert verdict.headline(result, "ngram", 0.0)["alpha"] == view.number(best["alpha"], 3)
    assert f"best {view.times(best['speedup_vs_ar'])} at K = 4" in verdict.verdict(result, "ngram", 0.0)
    assert f"α ≈ {view.number(best['alpha'])}" in verdict.verdict(result, "ngram", 0.0)


def test_the_time_caption_does_not_give_n_gram_lookup_draft_forwards():
    """Issue 43, fourteenth read: under every proposer's time chart the caption said drafting costs "K draft
    forwards", but n-gram lookup drafts with one search and Medusa with its heads' products, as the draft ms
    definition says."""
    source = Path(PAGE).read_text(encoding="utf-8")
    assert "Drafting costs K draft forwards" not in source
    assert "n-gram lookup: one search" in source and "one n-gram lookup" in bench.DEFINITIONS["draft_ms"][1]


def test_the_theory_curve_says_its_alpha_is_the_mean_over_k_not_the_headlines():
    """Issue 43, eighteenth read: after the twelfth read put the best K's own α at the top (0.363 for the committed
    n-gram run at K = 4, T = 0), the caption under the chart still said its solid line used "the measured α", while
    the curve uses the mean over the K values run (0.34 in its legend). The caption now says which α it is."""
    result = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    mean, top = result.mean_alpha("ngram", 0.0), float(verdict.headline(result, "ngram", 0.0)["alpha"])
    assert abs(mean - top) > 0.01
    curve = next(t for t in charts.speedup_vs_k_figure(result, "ngram", 0.0).data
                 if t.name.startswith("predicted (paper's formula, c per step)"))  # one lookup a step (read 49)
    assert f"α = {view.number(mean, 3)}" in curve.name and f"α = {view.number(top, 3)}" not in curve.name
    caption = charts.speedup_vs_k_caption("ngram") + charts.speedup_vs_k_caption("eagle")
    assert caption.count("the mean of the α estimates at each K run") == 2
    assert "prediction from the measured α and c" not in caption
    assert "prediction from the measured α and c" not in caption


def test_a_command_that_would_run_otherwise_today_says_how():
    """Read 19: the lab offers each run's command as "the command that reproduces it", but the first runs name no
    --dtype (they ran float32, then the only dtype; today's default is bfloat16 on a CPU with bf16 instructions), and
    the runs before 2026-12-02 drafted their eagle rows with the EAGLE-1 drafter that EAGLE-3 replaced."""
    notes = {}
    for path in results.result_files():
        result = results.load_result(path)
        notes[path.parent.name] = results.command_notes(result)
        named = "--dtype" in result.command.split()
        assert named != any("names no --dtype" in n for n in notes[path.parent.name]), path
    drafts = " ".join(notes["default-cpu-drafts"])
    assert "add `--dtype float32`" in drafts and "EAGLE-1 drafter" in drafts
    assert any("EAGLE-1 drafter" in n for n in notes["default-cpu-bf16-trees"])
    assert not any("EAGLE-1" in n for n in notes["default-cpu-f32-medusa"] + notes["default-cpu-ngram"])
    assert notes["default-cpu-f32-packed"] == []  # --dtype float32, EAGLE-3: typed today, it runs as it ran


def test_a_command_notes_the_kernels_and_suites_it_ran_with():
    """Read 20: the CPU runs made before the packed oneDNN kernels (ce0deb7) record no `kernels` and ran PyTorch's
    stock ones, which a run today needs SPECVIZ_KERNELS=stock for (as the model cards' commands say); and
    default-cpu-ngram named no --suites, so it ran the six suites there were, where today's default takes them all."""
    stock, packed = [], []
    for path in results.result_files():
        result = results.load_result(path)
        said = any("SPECVIZ_KERNELS=stock" in n for n in results.command_notes(result))
        (stock if "kernels" not in result.machine and not result.gpu else packed).append((path.parent.name, said))
    assert {name for name, _said in stock} >= {"default-cpu-ngram", "default-cpu-drafts", "default-cpu-bf16-tree"}
    assert [name for name, said in stock if not said] == [] and [name for name, said in packed if said] == []
    def notes(name: str) -> list[str]:
        return results.command_notes(results.load_result(bench.BENCHMARKS_DIR / name / "results.json"))

    assert any("`--suites chat code math qa rewrite translation`" in n for n in notes("default-cpu-ngram"))
    assert not any("--suites" in n for n in notes("default-cpu-f32-medusa"))  # it named its suite


def test_the_command_notes_say_what_results_md_says():
    """Final review: the notes and results.md's rerun lines decided the same differences in two places (and the
    suites differently); both now format report.rerun_differences, one note per difference, each with its value."""
    from specviz.labs.bench.report import (GpuCheckRun, IsaLimits, SuitesDefault, rerun_command, rerun_differences,
                                           rerun_lines)

    found, kinds = 0, set()
    for path in results.result_files():
        result = results.load_result(path)
        differences, notes = rerun_differences(result), results.command_notes(result)
        assert len(notes) == len(differences), path.parent.name
        found += len(notes)
        committed = " ".join(path.with_name("results.md").read_text(encoding="utf-8").split())
        assert all(" ".join(line.split()) in committed for line in rerun_lines(result)), path.parent.name
        for difference, note in zip(differences, notes):
            kinds.add(type(difference))
            if isinstance(difference, SuitesDefault):
                assert f"`{difference.flag}`" in note and difference.flag in rerun_command(result)
            if isinstance(difference, IsaLimits):  # caps set in the environment: the command to rerun sets them
                assert f"`{difference.env}`" in note and rerun_command(result).startswith(difference.env)
            if isinstance(difference, GpuCheckRun):
                assert f"{difference.repeats} " in note and f"{difference.default}," in note
    assert found >= 16 and {IsaLimits, GpuCheckRun, SuitesDefault} <= kinds


def test_every_bundled_suite_title_is_marked_for_translation():
    """The 22nd read: SUITE_TITLES said it held the bundled suites' titles but left out assets/prompts/everyday.yaml's
    "Everyday questions", which the live sweep's Categories menu offers, so it showed in English on a Portuguese page.
    Every bundled title is listed, and each has a Portuguese translation."""
    from specviz.core.i18n import using

    titles = {suite.title for suite in bench.load_suites()}
    assert "Everyday questions" in titles and len(titles) >= 8
    assert titles <= set(view.SUITE_TITLES)
    with using("pt"):
        untranslated = sorted(title for title in titles if view._(title) == title)
    assert not untranslated, untranslated


def test_a_gpu_check_command_says_it_was_not_typed():
    """Read 26: the H200 runs' recorded command ends in `--out assets/benchmarks/<machine>` (bash reads `<machine>` as
    a redirection) and was written by `specviz.scripts.gpu_check`, which timed c over its own 10 rounds (the bench
    command line has no flag for them: it takes 15) under a time budget; the lab offered it as the command that
    reproduces the run."""
    checked = []
    for path in results.result_files():
        result = results.load_result(path)
        said = [n for n in results.command_notes(result) if "gpu_check" in n]
        assert bool(said) == ("<machine>" in result.command), path
        if said:
            checked.append(path.parent.name)
            assert f"over {result.config['cost_repeats']} rounds" in said[0]
            assert f"the command takes {BenchConfig.cost_repeats}" in said[0]
    assert {"default-h200-bf16", "default-h200-bf16-run2"} <= set(checked)


def test_a_run_with_capped_kernels_says_the_command_does_not_show_the_caps():
    """Read 26: default-cpu-f32-avx2cap ran with ONEDNN_MAX_CPU_ISA=AVX2, ATEN_CPU_CAPABILITY=avx2 and
    MKL_ENABLE_INSTRUCTIONS=AVX2 in its environment (machine.isa_limits; the Overview quotes it as the chip "with its
    kernels held to AVX2"), but its recorded command names none of them, so typed today it runs uncapped, and the lab
    offered it as the command that reproduces the run."""
    capped = []
    for path in results.result_files():
        result = results.load_result(path)
        limits = result.machine.get("isa_limits") or {}
        said = [n for n in results.command_notes(result) if "isa_limits" in n]
        assert bool(said) == bool(limits), path
        if limits:
            capped.append(path.parent.name)
            assert all(f"{name}={value}" in said[0] for name, value in limits.items())
    assert "default-cpu-f32-avx2cap" in capped


@pytest.mark.parametrize("lang, lines", [("en", ["time / one-token", "forward"]),
                                         ("pt", ["tempo / passagem", "de um token"])])
def test_the_dtype_charts_y_axis_title_is_short_lines_that_fit_a_phone(lang, lines):
    """Read 44: the float32/bfloat16 verify-cost chart's y axis title, "tempo / passagem de um token" in one line,
    was 196 px tall over a 140 px plot on a 390 px phone, and cut off (tests/browser/test_phone.py measures it). It
    is lines of at most `AXIS_TITLE_LINE` characters now, in both languages."""
    from specviz.core.i18n import using

    run = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    with using(lang):
        figure = trees.dtype_curve_figure(run)
    assert sorted(run.verify_curves()) == ["bfloat16", "float32"]  # the chart of both dtypes
    assert figure.layout.yaxis.title.text.split("<br>") == lines
    assert all(len(line) <= plot.AXIS_TITLE_LINE for line in lines)


def test_a_capped_run_reads_as_another_machine_than_the_uncapped_one():
    """Read 26: the Theory explorer grouped default-cpu-f32-avx2cap with default-cpu-f32-packed under one label, "AMD
    EPYC (2 cores, onednn-packed kernels)", and the Speedup lab said its climbing verify curve came from that machine
    too, though the same chip ran it with its kernels capped at AVX2 (machine.isa_limits)."""
    from specviz.labs.bench import quoted

    capped, uncapped = quoted.machine("default-cpu-f32-avx2cap"), quoted.machine("default-cpu-f32-packed")
    assert capped != uncapped and capped.startswith(uncapped)
    assert "ONEDNN_MAX_CPU_ISA=AVX2" in capped and "capped" not in uncapped


def test_the_measuring_spinner_says_what_calibration_does():
    """Read 26: the spinner said "one target forward over 1 to 33 tokens, six rounds", but `calibration.measure` also
    times a drafter pass and model.generate, runs all six rounds again when they disagree, and then makes the short
    probe runs (a chain and a tree, greedy and sampled: four for the default pair's EAGLE drafter). 43rd read: it then
    said model.generate was timed "over six rounds", though `measure` times it in the first three only."""
    from specviz.engine.proposers import registry
    from specviz.labs import calibration
    from specviz.ui.common import this_machine

    source = Path(this_machine.__file__).read_text(encoding="utf-8")
    assert "over 1 to 33 tokens" in source and max(calibration.SIZES) == 33
    assert calibration.ROUNDS == 6 and "a drafter pass over six rounds" in source
    assert calibration.GENERATE_ROUNDS == 3 and "model.generate in the first three (all again" in source
    runs = len(calibration.PROBES) * len(calibration.PROBE_TEMPERATURES)
    assert registry.can_branch("eagle") and runs == 4 and "then four short runs" in source


def test_the_shape_chart_wraps_each_shapes_name_into_short_lines():
    """The shape names became DraftShape.describe()'s sentence (up to 81 characters with a lookup branch: "a tree of
    16 nodes, depth 4, width 4, plus up to 8 tokens copied from the context"; 87 in Portuguese), and the chart broke
    only its first comma: one tick line of 61 characters (65 in Portuguese) on a 390 px phone. Each line is now at
    most 22 characters, and the ticks stay one per shape."""
    from specviz.core.i18n import using

    result = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    for lang in ("en", "pt"):
        with using(lang):
            rows = result.shape_rows("eagle", 0.0)
            ticks = list(trees.shape_figure(result, "eagle", 0.0).data[0].x)
            assert len(rows) == len(set(ticks)) == 4 and any(r.get("tree_lookup") for r in rows)
            assert max(len(line) for tick in ticks for line in tick.split("<br>")) <= 22
            first_comma = [part for r in rows for part in trees.shape_name(r).split(", ", 1)]  # the old break
            assert max(len(part) for part in first_comma) > 22
            assert [tick.replace("<br>", " ") for tick in ticks] == [trees.shape_name(r) for r in rows]


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_best_speedup_help_says_it_is_the_best_chain_and_a_tree_can_be_faster():
    """Read 32: the "Best speedup" metric is `BenchResult.best_constant`, the fastest chain of constant K, but its help
    was only the speedup's definition; in committed runs a draft tree of the same run is faster (the sentence below
    names it), so the metric read as the run's best. Its help now says which rows it is the best of."""
    from specviz.labs.bench import BenchResult

    at = AppTest.from_file(PAGE, default_timeout=120).run()
    _ok(at)
    best = next(m for m in at.metric if m.label == "Best speedup")
    assert best.proto.help.startswith("The fastest chain of constant K in this run, all categories pooled: draft "
                                      "trees are left out here")
    run = BenchResult.load(ROOT / "assets" / "benchmarks" / "default-cpu-bf16-tree" / "results.json")
    chain = run.best_constant("eagle", 0.0)
    tree = max((r for r in run.shape_rows("eagle", 0.0) if r.get("tree_nodes")), key=lambda r: r["speedup_vs_ar"])
    assert not chain["tree_nodes"] and tree["speedup_vs_ar"] > chain["speedup_vs_ar"]


def test_a_busy_start_note_is_worded_by_its_load_in_both_languages():
    """Issue 43 (mend): the lab showed every committed run's busy-start note as "other work, or this command's own
    imports", also for the runs that started at load 8-12 on 2 cores; those now say other work kept the machine
    busy, in Portuguese too, and the cores are counted in agreement with their number."""
    from specviz.core.i18n import using

    shared = ("The machine was shared (load average 8.35 at the start, [2.79, 5.74, 7.94] at the end): absolute "
              "times are noisy; ratios from the same run are the numbers to trust.")
    assert "so the machine was busy with other work" in results.note_text(shared, 2, 1)
    quiet = shared.replace("8.35", "1.2")
    assert "other work, or this command's own imports" in results.note_text(quiet, 2, 1)
    with using("pt"):
        busy, near, one = results.note_text(shared, 2, 1), results.note_text(quiet, 2, 1), results.note_text(quiet, 1)
    assert "a máquina estava ocupada com outro trabalho" in busy and "8,35" in busy and "em 2 núcleos:" in busy
    assert "outro trabalho, ou as próprias importações" in near and "ocupada com outro trabalho" not in near
    assert "em 1 núcleo:" in one


@pytest.mark.slow  # two page runs in two languages, over 10 s: make test runs it
def test_the_policies_tab_says_it_compares_chains():
    """Issue 43 (mend): the policy table compares each policy with the chain of constant K (a draft tree is no
    policy's draft and is left out), which neither results.md nor the Policies tab said; both do, in both languages."""
    from specviz.core.i18n import using

    for lang, said in (("en", "This table compares chains: each policy sets how many tokens a chain drafts"),
                       ("pt", "Esta tabela compara cadeias: cada política define quantos tokens uma cadeia rascunha")):
        with using(lang):  # AppTest formats the menus' options and values here, in this thread's language
            at = AppTest.from_file(PAGE, default_timeout=120)
            at.query_params["lang"] = lang
            at.run()
            _ok(at)
            source = at.selectbox(key="speedup_lab_source")
            source.set_value(next(o for o in source.options if o.startswith("default-cpu-ngram"))).run()
            _ok(at)
            assert at.selectbox(key="speedup_lab_source").value.startswith("default-cpu-ngram")
            assert any(m.value.startswith(said) for m in at.markdown), lang


def test_the_time_breakdown_table_holds_the_dashed_lines_time_per_token():
    """Read 40: "Where the time goes" draws target-only decoding's time per token as a dashed line ("target-only: 47
    ms per token") and its caption compares each step with it, but the table under the chart held the bars alone:
    a reader of the table had no time per token to compare with. It holds the line's figure as the label writes it."""
    from specviz.core.i18n import using
    from specviz.labs.bench.report import TARGET_ONLY

    result = results.load_result(bench.BENCHMARKS_DIR / results.HEADLINE_RUN / "results.json")
    proposer, temperature = result.proposers()[0], 0.0
    rate = result.baseline_tokens_per_second(TARGET_ONLY, temperature)
    for lang, column in (("en", "target-only ms per token (dashed line)"),
                         ("pt", "só o alvo: ms por token (linha tracejada)")):
        with using(lang):
            fig = charts.time_breakdown_figure(result, proposer, temperature)
            table = charts.time_breakdown_table(fig, result, temperature)
            drawn = view.number(1e3 / rate, 0)
        (line,) = fig.layout.shapes
        assert line.y0 == pytest.approx(1e3 / rate)
        assert drawn in fig.layout.annotations[0].text
        # read 52: the label sat on the first bar's stripes, unreadable; it has a white ground of its own now
        assert fig.layout.annotations[0].bgcolor == charts.LABEL_GROUND
        *rgb, alpha = (float(v) for v in charts.LABEL_GROUND.removeprefix("rgba(").rstrip(")").split(","))
        assert rgb == [255.0] * 3 and alpha >= 0.85
        assert list(table[column]) == [drawn] * len(result.rows(proposer=proposer, temperature=temperature))
        assert list(table.columns[1:4]) == [trace.name for trace in fig.data]  # the bars, as before


def test_the_verdicts_tree_of_one_node_child_and_copied_token_agrees():
    """Read 44: a bench's `--shapes` may name a tree of 1 node, 1 child a node or a lookup branch of 1 token, and
    the verdict read "A draft tree of up to 1 nodes (at most 1 children per node, ...) plus a lookup branch of up to
    1 tokens" ("1 nós", "1 filhos", "1 tokens copiados" in Portuguese)."""
    from specviz.core.i18n import using

    result = results.load_result(ROOT / "assets" / "benchmarks" / "default-cpu-f32-packed" / "results.json")
    rows = result.shape_rows("eagle", 0.0)
    tiny_tree = {**next(r for r in rows if r.get("tree_nodes")), "tree_nodes": 1, "tree_width": 1, "k": 1,
                 "tree_lookup": 1, "speedup_vs_ar": 99.0}
    result.shape_rows = lambda proposer, temperature: [*rows, tiny_tree]
    assert ("A draft tree of up to 1 node (width 1: at most 1 node expanded per level and 1 child per node, depth up "
            "to 1) plus a lookup branch of up to 1 token copied from the context reached 99.00× against") in \
        verdict.verdict(result, "eagle", 0.0)
    with using("pt"):
        said = verdict.verdict(result, "eagle", 0.0)
    assert ("Uma árvore de rascunho de até 1 nó (largura 1: no máximo 1 nó expandido por nível e 1 filho por nó, "
            "profundidade até 1) mais um ramo de busca de até 1 token copiado do contexto chegou a 99,00×") in said


def test_a_run_of_one_suite_is_named_in_the_singular(monkeypatch):
    """Read 44: a run of one suite whose command names no --suites read "not the 1 this run had" ("não os 1 que esta
    execução teve" in Portuguese, a plural article before one)."""
    from specviz.core.i18n import using
    from specviz.labs.bench.report import SuitesDefault
    from specviz.ui.common import bench_results

    result = results.load_result(results.result_files()[0])
    for ran, en, pt in ((("qa",), "not only the one this run had, so add `--suites qa`.",
                         "não só o conjunto que esta execução teve, então acrescente `--suites qa`."),
                        (("qa", "code"), "not the 2 this run had, so add `--suites qa code`.",
                         "não os 2 que esta execução teve, então acrescente `--suites qa code`.")):
        monkeypatch.setattr(bench_results, "rerun_differences",
                            lambda _result, ran=ran: [SuitesDefault(ran=ran, today=("qa", "code", "rewrite"))])
        assert bench_results.command_notes(result)[0].endswith(en)
        with using("pt"):
            assert bench_results.command_notes(result)[0].endswith(pt)


@pytest.mark.parametrize("folder", ["default-cpu-f32-packed", "default-cpu-bf16-packed"])
def test_the_runs_verify_line_has_its_dtypes_colour_in_the_curves_below(folder):
    """Read 44 (browser slice): the first verify-cost chart drew the run's float32 timing in blue while the dtype
    curves under it draw float32 orange and bfloat16 blue, so a student matching colours paired float32 with
    bfloat16. The run's own line now takes its dtype's colour from the same map."""
    from specviz.labs.bench import BenchResult
    from specviz.ui.speedup import trees

    result = BenchResult.load(Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / folder / "results.json")
    own = charts.verify_cost_figure(result).data[0]
    curves = {trace.marker.color for trace in trees.dtype_curve_figure(result).data
              if trace.name and trace.name.startswith(result.dtype)}
    assert result.dtype in ("float32", "bfloat16") and own.marker.color == charts.DTYPE_COLORS[result.dtype]
    assert curves == {own.marker.color}  # the curve below of the same dtype: the same colour


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "float64"])
def test_no_dtypes_verify_line_takes_the_assumption_lines_colour(dtype):
    """Read 45: DTYPE_COLORS gave float16 bluish green, the colour of the dashed "the paper's assumption: free (1)"
    line, so a float16 run's measured verify cost read as the assumption in both verify-cost charts. Each dtype now
    has a colour of its own (none the assumption's or the no-parallelism line's) and a marker of its own."""
    import copy

    from specviz.labs.bench import BenchResult
    from specviz.ui.speedup import trees

    base = BenchResult.load(Path(__file__).resolve().parents[2] / "assets" / "benchmarks" / "default-cpu-f32-packed" /
                            "results.json")
    result = copy.deepcopy(base)
    result.machine["dtype"] = dtype
    result.costs["verify_curves"] = {dtype: next(iter(base.verify_curves().values()))}
    first = charts.verify_cost_figure(result).data
    own, assumption, serial = first[0], first[1], first[2]
    curves = trees.dtype_curve_figure(result).data
    curve, curve_assumption = curves[0], curves[-1]
    assert "assumption" in assumption.name and assumption.line.dash == "dash" and curve_assumption.line.dash == "dash"
    assert curve_assumption.line.color == assumption.line.color
    for line in (own, curve):
        assert line.marker.color == line.line.color  # a dtype curve's line no longer falls to Plotly's colourway
        assert line.marker.color not in (assumption.line.color, serial.line.color), (dtype, line.marker.color)
    assert curve.name.startswith(dtype) and curve.marker.symbol == own.marker.symbol
    known = list(charts.DTYPE_COLORS)
    assert len({charts.dtype_style(d) for d in known}) == len(known)  # no two dtypes share a colour or a marker
    assert len({charts.DTYPE_SYMBOLS[d] for d in known}) == len(known)


def test_the_chain_vs_tree_sentence_writes_two_speedups_that_round_alike_apart():
    """Read 44 (lesson render): the sentence read "measured here 1.67× against 1.67×" for 1.671 and 1.667, a
    comparison it did not show. Speedups that round alike at two decimals are written with three."""
    from specviz.ui.speedup import trees

    rows = [{"k": 4, "tree_nodes": 0, "tree_width": 0, "tree_lookup": 0, "mat_with_bonus": 2.1,
             "speedup_vs_ar": 1.667},
            {"k": 4, "tree_nodes": 16, "tree_width": 4, "tree_lookup": 0, "mat_with_bonus": 2.5,
             "speedup_vs_ar": 1.671}]
    result = type("R", (), {"shape_rows": lambda self, proposer, temperature: rows})()
    said = trees.shape_sentence(result, "eagle", 0.0)
    assert "1.671× against 1.667×" in said, said
    rows[1]["speedup_vs_ar"] = 1.9
    assert "1.90× against 1.67×" in trees.shape_sentence(result, "eagle", 0.0)


def test_the_all_proposers_caption_hedges_where_medusa_keeps_more_of_a_late_draft():
    """Read 45: the caption said a drafter that sees its earlier drafts (EAGLE) "keeps a larger share of its later
    drafts" than Medusa's heads; in default-cpu-f32-medusa at T = 0 Medusa keeps more at its fourth draft (a position
    few steps reach), so the sentence says "tends to" and names the exception."""
    run = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-medusa" / "results.json")

    def kept_after(proposer):  # per position i >= 2: the share kept once drafts 1..i-1 all were
        row = max(run.rows(proposer=proposer, temperature=0.0, policy="constant"), key=lambda r: r["k"])
        pos = row["per_position"]
        return [b / a for a, b in zip(pos, pos[1:]) if a]

    eagle, medusa = kept_after("eagle"), kept_after("medusa")
    assert len(eagle) == len(medusa) >= 3
    assert any(m > e for e, m in zip(eagle, medusa))  # the exception the caption now admits
    page = Path(__file__).resolve().parents[2].joinpath("pages", "speedup_lab.py").read_text(encoding="utf-8")
    page = re.sub(r'"\s*\n\s*"', "", page)  # the caption's string literals joined, as Python joins them
    assert "tends to keep a larger share of its later drafts, though a position few steps reach" in page


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_n_gram_runs_tree_tab_does_not_send_it_to_rerun_with_tree_nodes(lang):
    """Read 45: the committed n-gram run's Chain vs tree tab said "run the bench with `--tree-nodes 0 8 16 24`", but
    n-gram lookup cannot branch and the bench runs each tree shape for it as the chain of the same K, so that run
    would have no tree either. A proposer that can branch (and a bench's own name, "layerskip-7") keeps the advice."""
    from specviz.core.i18n import using

    ngram = results.load_result(ROOT / "assets" / "benchmarks" / "default-cpu-ngram" / "results.json")
    assert "ngram" in ngram.proposers() and not ngram.shape_rows("ngram", 0.0)
    with using(lang):
        said = trees.no_trees_text("ngram")
        others = [trees.no_trees_text(name) for name in ("draft", "layerskip-7")]
    assert "--tree-nodes" not in said
    assert ("cannot branch" if lang == "en" else "não ramifica") in said
    assert all("--tree-nodes" in text for text in others)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_no_trees_advice_quotes_the_width_the_committed_tree_runs_used(lang):
    """Read 48: the Chain vs tree tab's advice said `--tree-width 3` while every committed tree run drafted width 4;
    the flags are now read from the committed runs' tree rows, so they name the widths and node budgets used."""
    from specviz.core.i18n import using

    used = {(r["tree_nodes"], r["tree_width"]) for path in results.result_files()
            for r in results.load_result(path).cases if r.get("tree_nodes")}
    assert used, "assets/benchmarks/ should hold committed tree runs"
    widths = " ".join(map(str, sorted({w for _n, w in used})))
    nodes = " ".join(map(str, sorted({0, *(n for n, _w in used)})))
    with using(lang):
        said = trees.no_trees_text("draft")
    assert f"`--tree-nodes {nodes} --tree-width {widths}`" in said, said
    assert "--tree-width 3" not in said


def test_the_diamonds_caption_names_prompt_lookup_where_the_n_gram_run_draws_them():
    """Read 45: on the n-gram run the Speedup vs K tab said its diamonds were transformers' assisted generation "with
    the same draft and K"; for n-gram the bench runs transformers' prompt lookup (no draft model), which the caption
    now names, in both languages."""
    from specviz.core.i18n import _, using

    run = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    assert any(r["hf_assisted_speedup"] is not None for r in run.rows(proposer="ngram", policy="constant"))
    page = " ".join(Path(__file__).resolve().parents[2].joinpath("pages", "speedup_lab.py").read_text(
        encoding="utf-8").split())
    said = ("Diamonds: what transformers' own assisted generation gets with the same draft and K (prompt lookup for "
            "n-gram), against its own model.generate.")
    assert said in page.replace('" "', "")  # the caption's string literals joined
    with using("pt"):
        assert "(busca no prompt para n-gramas)" in _(said)


def test_the_portuguese_slowdown_reason_reads_with_not_because_of_alpha():
    """Read 45: the slowdown reason's Portuguese opened "por α ≈ 0,43; c = 0,120 e o custo ...", which reads as
    "because of α" and listed its figures with a semicolon; it now says "com α ≈ 0,43 e c = 0,120, e com o custo"."""
    from specviz.core.i18n import using

    with using("pt"):
        said = verdict.slowdown_reason(0.43, 0.12, 2, 1.1, 1.6)
    assert said.startswith("com α ≈ 0,43 e c = 0,120, e com o custo de verificação medido à parte"), said
    assert "por α" not in said


@pytest.mark.parametrize("folder", ["default-cpu-drafts", "default-cpu-layerskip", "default-cpu-ngram"])
def test_a_run_with_greedy_policies_only_sends_its_sampled_policies_tab_to_the_greedy_temperature(folder):
    """Read 46: at T = 0.7 these runs' Policies tab said "This result has no adaptive draft-length policies at this
    temperature; run the bench with `--policies constant heuristic threshold optimal`", though their commands ran
    policies (`--policy-temperatures 0`) and the table was one pick of the temperature menu away."""
    from specviz.core.i18n import using

    result = results.load_result(bench.BENCHMARKS_DIR / folder / "results.json")
    assert "--policy-temperatures 0 " in result.command and 0.7 in result.temperatures()
    assert tables.policy_table(result, 0.7).empty and not tables.policy_table(result, 0.0).empty
    said = tables.no_policies_text(result, 0.7)
    assert said == ("This result measured its adaptive draft-length policies at T = 0 only (its "
                    "--policy-temperatures): pick that temperature above to compare them.")
    assert "run the bench" not in said
    with using("pt"):
        assert tables.no_policies_text(result, 0.7).startswith("Este resultado mediu as suas políticas adaptativas")
    # a run that measured no policy at all is still told how to measure them
    packed = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    advice = "run the bench with `--policies constant heuristic threshold optimal`"
    assert advice in tables.no_policies_text(packed, 0.0)


@pytest.mark.parametrize("lang, said", [
    ("en", "The machine was busy while it was measured (a timing of model.generate came out zero or negative, so "
           "the rounds could not be compared): the numbers below are not kept; measure again when nothing else runs."),
    ("pt", "A máquina estava ocupada durante a medição (uma medição do model.generate deu zero ou negativa, então as "
           "rodadas não puderam ser comparadas): os números abaixo não são guardados; meça de novo quando nada mais "
           "estiver rodando.")])
def test_measure_this_machine_never_shows_a_spread_it_could_not_measure(monkeypatch, lang, said):
    """Read 46: a zero difference of model.generate's timings was clamped to 1e-9 s and the spread read about 1e8
    ("disagreed by 10,543,728,911.8%" here, "agreed within" it on the command line); now the rounds could not be
    compared, and when no round of model.generate could be timed the panel says so in one sentence."""
    import contextlib
    import dataclasses
    from types import SimpleNamespace

    from specviz.core.i18n import using
    from specviz.labs import calibration
    from specviz.ui.common import runs as common_runs
    from specviz.ui.common import this_machine

    shown = []
    fake_st = SimpleNamespace(spinner=lambda text: contextlib.nullcontext(), warning=shown.append, info=shown.append)
    monkeypatch.setattr(this_machine, "st", fake_st)
    monkeypatch.setattr(common_runs, "get_pair", lambda name: None)
    busy = calibration.Calibration("default", "eagle", "float32", "cpu", "stock", "cpu", (), False, "2", 2,
                                   ((1, 0.05),), 0.004, 0.06, math.inf)
    monkeypatch.setattr(this_machine, "calibrate", lambda pair, force=False: busy)
    with using(lang):
        assert this_machine.measure_here() is busy and shown == [said]
        shown.clear()

        def too_busy(pair, force=False):
            raise calibration.TooBusy("no round")
        monkeypatch.setattr(this_machine, "calibrate", too_busy)
        assert this_machine.measure_here() is None and shown == ["no round"]
        shown.clear()
        monkeypatch.setattr(this_machine, "calibrate", lambda pair, force=False: dataclasses.replace(busy, spread=0.5))
        this_machine.measure_here()
        assert shown and ("disagreed by 50%" in shown[0] or "discordaram em 50%" in shown[0])


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_charts_name_a_proposer_as_the_page_does_in_titles_legends_and_tables(tiny, tree_tiny, lang):
    """Read 47: the charts' titles and the all-proposers legend showed the bench's keys ("ngram", "eagle",
    "draft") where the menu, the verdict and the rest of the page show the registry's names; the charts' tables
    (their text alternative) read the legend, so they did too. Every chart and table names a proposer as the menu
    does (`view.proposer_text`), in the reader's language."""
    from specviz.core.i18n import _, using

    medusa_run = next(path for path in results.result_files() if results.result_name(path) == "default-cpu-f32-medusa")
    medusa = results.load_result(medusa_run)
    with using(lang):
        ngram, draft = view.proposer_text("ngram"), view.proposer_text("draft")
        assert ngram != "ngram" and draft != "draft"
        titles = [charts.speedup_vs_k_figure(tiny, "ngram", 0.0).layout.title.text,
                  charts.acceptance_figure(tiny, "ngram", 0.0).layout.title.text,
                  charts.category_figure(tiny, "ngram", 0.0).layout.title.text]
        assert all(f": {ngram}, T = 0" in t for t in titles) and not [t for t in titles if ": ngram," in t], titles
        shape = trees.shape_figure(tree_tiny, "draft", 0.0).layout.title.text
        assert f": {draft}, T = 0" in shape and ": draft," not in shape
        fig = charts.proposers_acceptance_figure(medusa, 0.0)
        names = [view.proposer_text(p) for p in ("eagle", "medusa")]
        assert len(fig.data) == 2 and all(t.name.startswith(f"{n}, ") for t, n in zip(fig.data, names))
        columns = list(plot.figure_table(fig).columns)
        assert [c for c in columns if c.startswith(tuple(names))] and not [c for c in columns
                                                                           if c.startswith(("eagle", "medusa"))]
        policies = tables.policy_table(tiny, 0.0)
        assert set(policies[_("proposer")]) == {draft, ngram}
        compared = tables.comparison_table(tiny, 0.0)
        assert {draft, ngram} <= set(compared[_("proposer")])


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_run_of_one_k_says_at_k_not_at_its_best_k(monkeypatch, lang):
    """Read 47: the verdict said "at its best K = 4" of the committed bf16 tree run, whose chains ran K = 4 alone (and
    "at every K (best ...)" would say the same of a slowdown). With one K measured it says "at K = 4, the only K of
    this run's chains", in every speedup band; a run of several K still names its best."""
    from specviz.core.i18n import using

    one = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-bf16-tree" / "results.json")
    several = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    assert {r["k"] for r in one.rows(proposer="eagle", temperature=0.0, policy="constant")} == {4}
    assert len({r["k"] for r in several.rows(proposer="ngram", temperature=0.0, policy="constant")}) > 1
    best = several.best_constant("ngram", 0.0)
    words = {"en": ("at K = 4, the only K of this run's chains", ("best K", "best ", "every K")),
             "pt": ("com K = 4, o único K das cadeias desta execução", ("melhor K", "melhor ", "todo K"))}
    said, never = words[lang]
    with using(lang):
        texts = [verdict.verdict(one, "eagle", 0.0)]
        real = type(one).best_constant
        for speedup in (1.0, 0.5):  # a tie and a slowdown, at the run's one K
            monkeypatch.setattr(type(one), "best_constant",
                                lambda self, proposer, temperature, s=speedup: dict(real(self, proposer, temperature),
                                                                                    speedup_vs_ar=s))
            texts.append(verdict.verdict(one, "eagle", 0.0))
        monkeypatch.setattr(type(one), "best_constant", real)
        several_text = verdict.verdict(several, "ngram", 0.0)
    first = [t.split(". ")[0] for t in texts]  # the chain's sentence (a tree's may follow)
    assert len(first) == 3 and all(said in t for t in first), first
    assert not [t for t in first if any(w in t for w in never)], first
    assert said not in several_text and f" K = {best['k']}" in several_text
    assert (f"best {view.times(best['speedup_vs_ar'])} at K" if lang == "en" else "melhor") in several_text


def test_the_vs_transformers_caption_says_which_transformers_rows_this_run_has():
    """Read 47: one caption described model.generate and assisted generation rows under every run, but an EAGLE-only
    run has no assisted row (transformers has no EAGLE drafter) and a run with --hf greedy no transformers row at
    T = 0.7; the caption says so for the run and temperature shown, in both languages."""
    from specviz.core.i18n import using

    def committed(name):
        return results.load_result(next(p for p in results.result_files() if results.result_name(p) == name))

    packed, drafts, layerskip = committed("default-cpu-f32-packed"), committed("default-cpu-drafts"), committed(
        "default-cpu-layerskip")
    assert "transformers assisted generation" not in set(tables.comparison_table(packed, 0.0)["method"])
    said = tables.comparison_caption(packed, 0.0)
    assert "No transformers row compares with EAGLE feature drafter (trained)" in said
    assert not any(m.startswith("transformers") for m in tables.comparison_table(drafts, 0.7)["method"])
    assert tables.comparison_caption(drafts, 0.7).startswith("This run timed transformers at T = 0 only")
    assert "model.generate on the target alone" not in tables.comparison_caption(drafts, 0.7)
    assert tables.comparison_caption(layerskip, 0.0) == tables._(tables.COMPARISON_CAPTION)  # its twin ran
    # the column is named as its header names it, not "Greedy identical"
    header = view.label("identical")
    assert header in tables.comparison_table(layerskip, 0.0).columns
    assert f" {header[0].upper()}{header[1:]}: the same tokens" in tables.comparison_caption(layerskip, 0.0)
    with using("pt"):
        # read 47 review: "se compara a rascunhador EAGLE ..." left out the article a name needs after "a"; the
        # names now follow a colon, as a list reads with one or with several
        said = tables.comparison_caption(packed, 0.0)
        assert said.endswith("Sem linha do transformers para comparar (a geração assistida do transformers não tem "
                             "equivalente): rascunhador EAGLE de representações (treinado)."), said
        assert "se compara a rascunhador" not in said
        said = tables.comparison_caption(drafts, 0.7)
        assert said.startswith("Esta execução cronometrou o transformers só em T = 0")
        assert " Saída gulosa idêntica: os mesmos tokens" in tables.comparison_caption(layerskip, 0.0)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_committed_verdicts_give_the_short_step_reasons_of_their_proposer(lang):
    """Read 52: the n-gram, EAGLE and draft-model verdicts of the committed runs said "Medusa heads draft one token
    each" among the reasons their steps drafted fewer than K; each now gives its own proposer's."""
    from specviz.core.i18n import using

    heads = "cabeças de previsão (Medusa)" if lang == "pt" else "Medusa heads"
    lookup = "uma busca de n-gramas" if lang == "pt" else "a lookup drafts"
    limit = "no limite de tokens" if lang == "pt" else "at the token limit"
    said = {}
    for run, proposer, t in (("default-cpu-ngram", "ngram", 0.0), ("default-cpu-drafts", "eagle", 0.7),
                             ("default-h200-bf16", "draft", 0.7)):
        result = bench.BenchResult.load(ROOT / "assets" / "benchmarks" / run / "results.json")
        with using(lang):
            said[proposer] = verdict.verdict(result, proposer, t)
    assert all(limit in text and heads not in text for text in said.values()), said
    assert lookup in said["ngram"] and lookup not in said["eagle"] + said["draft"], said


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_slowdowns_short_steps_name_the_medusa_heads_cap(lang):
    """Read 48: the verdict's reasons for steps that drafted fewer than K named the token limit, an end-of-text and a
    lookup, not the Medusa heads' cap (5 shipped heads, one token each), which the race's α note already named."""
    from specviz.core.i18n import using

    with using(lang):
        text = verdict.slowdown_reason(0.80, 0.01, 8, 4.5, 3.2, drafted=5.0, speedup=0.7, proposer="medusa")
        # read 52: the same list went into every proposer's verdict, the heads' cap under an n-gram or draft model's
        others = {name: verdict.slowdown_reason(0.80, 0.01, 8, 4.5, 3.2, drafted=5.0, speedup=0.7, proposer=name)
                  for name in ("ngram", "draft")}
    heads = ("as cabeças de previsão (Medusa) rascunham um token cada, então nunca mais do que o número de cabeças"
             if lang == "pt" else "Medusa heads draft one token each, so never more than there are heads")
    lookup = ("uma busca de n-gramas rascunha só o que encontra" if lang == "pt" else
              "a lookup drafts only what it finds")
    assert heads in text and lookup not in text
    assert heads not in others["ngram"] and lookup in others["ngram"]
    assert heads not in others["draft"] and lookup not in others["draft"]


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_medusas_speedup_vs_k_charges_c_per_step_and_stops_at_its_heads(lang):
    """Read 49: Medusa's curves, its table's predicted columns and results.json charged K·c of drafting a step though
    greedy Medusa's draft time per step is flat in K (5.47 and 5.27 ms at K = 2 and 4 in default-cpu-f32-medusa:
    all heads run in one pass), as the caption said; and the curves ran to K = 8 for 5 heads. Now all of them charge
    c per step (`theory.draft_cost(one_pass=True)`), the curves stop at the head count, and the caption says what c
    times (the token pick included) and which model the curves use."""
    from specviz.core.i18n import number, small_number, using
    from specviz.engine import theory
    from specviz.ui.common.sliders import medusa_heads

    result = results.load_result(ROOT / "assets" / "benchmarks" / "default-cpu-f32-medusa" / "results.json")
    rows = {r["k"]: r for r in result.rows(proposer="medusa", temperature=0.0, policy="constant")
            if not r["tree_nodes"]}
    one = result.costs["target_forward_seconds"] * 1e3
    assert rows[4]["draft_ms"] < 0.6 * 4 * rows[4]["c"] * one  # the case: well below K·c at K = 4
    for k, r in rows.items():  # the committed table's predicted columns: c per step, not K·c
        assert r["predicted_speedup"] == pytest.approx(theory.expected_speedup(r["alpha"], k, r["c"], one_pass=True))
        assert r["predicted_speedup"] > theory.expected_speedup(r["alpha"], k, r["c"])
    fig = charts.speedup_vs_k_figure(result, "medusa", 0.0)
    curve = next(t for t in fig.data if t.mode == "lines" and "c =" in (t.name or ""))
    alpha = round(result.mean_alpha("medusa", 0.0), charts.ALPHA_DIGITS)  # as the legend writes it (read 53)
    assert max(curve.x) == medusa_heads() == 5  # not 8
    assert list(curve.y) == pytest.approx([theory.expected_speedup(alpha, k, round(rows[2]["c"], 3), one_pass=True)
                                           for k in curve.x])
    eagle = next(t for t in charts.speedup_vs_k_figure(result, "eagle", 0.0).data if t.mode == "lines"
                 and "c =" in (t.name or ""))
    assert max(eagle.x) == 8  # a drafter run once per token keeps its K·c and its range
    with using(lang):
        text = charts.medusa_draft_caption(result, "medusa", 0.0)
        for k, r in rows.items():
            assert f"K = {k}: {number(r['draft_ms'])} ms" in text
        c_ms = number(rows[2]['c'] * one)
        against, above = {"en": (". Its c, {c} of a target forward, is {ms} ms.", "above {ms} ms,"),
                          "pt": (". O c desta execução, {c} de uma passagem do alvo, é de {ms} ms.",
                                 "acima de {ms} ms,")}[lang]
        assert against.format(c=small_number(rows[2]['c']), ms=c_ms) in text  # c a ratio, its time in ms apart
        assert above.format(ms=c_ms) in text and "(c: " not in text and "K·c:" not in text
        # read 52: "Where it is above", just after "Its c ... is", read as c above its own time; it names the time
        where = {"en": "Where a step's draft time is above {ms} ms, the curves and the table's predicted columns",
                 "pt": "Onde o tempo de rascunho de um passo fica acima de {ms} ms, as curvas e as colunas previstas"}
        assert where[lang].format(ms=c_ms) in text and "Where it is" not in text and "Onde ele" not in text
        if lang == "pt":
            assert "cobram c de rascunho por passo, qualquer que seja K, e não K·c" in text
            assert "a escolha gulosa do token" in text and "superestimam sua aceleração" in text
        else:
            assert "charge c of drafting a step whatever K, not K·c" in text
            assert "the greedy token pick" in text and "overstate its speedup" in text
        assert charts.medusa_draft_caption(result, "eagle", 0.0) is None


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_medusa_caption_says_a_step_of_k_drafts_runs_k_heads_not_every_head(lang):
    """Read 50: the Medusa caption said a step "runs every head's block", but a step of K drafts runs the blocks of
    heads 1 to K only (`MedusaProposer.head_logits`): at K = 2, two of the five shipped heads."""
    from types import SimpleNamespace

    import torch

    from specviz.core.i18n import using
    from specviz.engine.proposers.medusa import MedusaHeads, MedusaProposer

    heads, ran = MedusaHeads(hidden=4, count=5), []
    for i, block in enumerate(heads.blocks):
        block.register_forward_hook(lambda _module, _args, _out, i=i: ran.append(i))
    head = SimpleNamespace(weight=torch.zeros(1), vocab_size=3, logits=lambda states: states[:, :3])
    proposer = SimpleNamespace(features=[torch.ones(4)] * 3, heads=heads, head=head)
    assert MedusaProposer.head_logits(proposer, [1, 2, 3, 4], 2).shape == (2, 3) and ran == [0, 1]
    result = results.load_result(ROOT / "assets" / "benchmarks" / "default-cpu-f32-medusa" / "results.json")
    with using(lang):
        text = charts.medusa_draft_caption(result, "medusa", 0.0)
    said = {"en": ("A step of K drafts runs the blocks of heads 1 to K", "every head's block"),
            "pt": ("Um passo de K palpites roda os blocos das cabeças 1 a K", "o bloco de cada cabeça")}[lang]
    assert said[0] in text and said[1] not in text


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_one_pass_drafters_slowdown_charges_c_per_step_not_k_c(lang, monkeypatch):
    """Read 49: the bench and the curves charge the Medusa heads c per step (one pass drafts the whole step), but the
    verdict's slowdown reason still charged K·c and took the break-even α for K·c: at α = 0.25, c = 0.1, K = 4 it
    said the drafts were "thrown away" (break-even 0.29 with K·c), though with c per step α need only pass 0.09."""
    from specviz.core.i18n import using

    with using(lang):
        low = verdict.slowdown_reason(0.25, 0.1, 4, 1.0, 1.2, one_pass=True)
        assert ("descartados" if lang == "pt" else "thrown away") not in low
        assert ("1,10" if lang == "pt" else "1.10") in low  # c + verify, not 4·0.1 + 1 = 1.40
        bound = verdict.slowdown_reason(0.80, 0.05, 4, 3.4, 3.2, one_pass=True)
        assert ("3,45" if lang == "pt" else "3.45") in bound and "K·c" not in bound
        assert ("da única passagem que rascunha todos os K = 4" if lang == "pt"
                else "for the one pass that drafts all K = 4") in bound
        costly = verdict.slowdown_reason(0.8, 4.5, 4, 1.0, 3.2, one_pass=True)
        assert ("não menos que K = 4" if lang == "pt" else "no less than K = 4") in costly
        k_c = verdict.slowdown_reason(0.25, 0.1, 4, 1.0, 1.2)  # K·c: break-even 0.29
        assert ("descartados" if lang == "pt" else "thrown away") in k_c
    result = results.load_result(ROOT / "assets" / "benchmarks" / "default-cpu-f32-medusa" / "results.json")
    best = dict(result.best_constant("medusa", 0.0), speedup_vs_ar=0.8, c=0.1, k=4, mat_with_bonus=1.2, mean_k=4.0)
    monkeypatch.setattr(type(result), "best_constant", lambda self, proposer, temperature: best)
    monkeypatch.setattr(type(result), "mean_alpha", lambda self, proposer, temperature: 0.25)
    best["alpha"] = 0.25
    monkeypatch.setattr(type(result), "verify_ratio", lambda self, k: 1.0)
    with using(lang):
        text = verdict.verdict(result, "medusa", 0.0)
        assert ("descartados" if lang == "pt" else "thrown away") not in text
        assert ("1,10" if lang == "pt" else "1.10") in text


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_medusa_solid_line_is_named_for_c_per_step_not_leviathans_prediction(lang):
    """Read 49: for the Medusa heads the Speedup vs K chart's solid line charges c of drafting per step (one pass
    drafts the whole step), not Leviathan et al.'s K·c, but the caption called it "Leviathan et al.'s prediction" and
    the legend and table "predicted (paper)". They now name the variant; EAGLE's keep the paper's name."""
    from specviz.core.i18n import using

    run = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-medusa" / "results.json")
    with using(lang):
        medusa, eagle = charts.speedup_vs_k_caption("medusa"), charts.speedup_vs_k_caption("eagle")
        solid = charts.speedup_vs_k_figure(run, "medusa", 0.0).data[0].name
        columns = list(tables.mat_table(run, "medusa", 0.0).columns)
        eagle_solid = charts.speedup_vs_k_figure(run, "eagle", 0.0).data[0].name
    if lang == "pt":
        assert "a previsão de Leviathan et al." not in medusa and "a previsão de Leviathan et al." in eagle
        assert "c de rascunho por passo no lugar de K·c" in medusa
        assert solid.startswith("previsto (fórmula do artigo, c por passo)<br>")
        assert "previsto (fórmula do artigo, c por passo) com o α desta linha" in columns
        assert eagle_solid.startswith("previsto (artigo)<br>")
    else:
        assert "Leviathan et al.'s prediction" not in medusa and "Leviathan et al.'s prediction" in eagle
        assert "Solid line: Leviathan et al.'s formula with c of drafting per step instead of K·c" in medusa
        assert solid.startswith("predicted (paper's formula, c per step)<br>at the mean α = ")
        assert "predicted (paper's formula, c per step) at this row's α" in columns
        assert "predicted (paper) at this row's α" not in columns
        assert eagle_solid.startswith("predicted (paper)<br>")


@pytest.mark.slow  # over 1 s (an AppTest of the page): make test runs it, make check stays under a minute
def test_the_page_names_the_medusa_solid_line_for_c_per_step():
    """Read 49, on the page: the Medusa run's Speedup vs K tab shows the c-per-step caption, not the paper's."""
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    source = next(o for o in at.selectbox(key="speedup_lab_source").options if o.startswith("default-cpu-f32-medusa"))
    at.selectbox(key="speedup_lab_source").set_value(source).run()
    at.selectbox(key="speedup_lab_proposer").set_value("medusa").run()
    _ok(at)
    captions = " ".join(c.value for c in at.caption)
    assert "Solid line: Leviathan et al.'s formula with c of drafting per step instead of K·c" in captions
    assert "Solid line: Leviathan et al.'s prediction" not in captions


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_k_chart_says_where_steps_drafted_fewer_than_k(lang):
    """Read 49: the Speedup vs K curves and the table's predicted columns take every step to draft K, but the n-gram
    run's lookup drafted 0.45 tokens a step at K = 1 (1.60 at K = 4); a caption now says so with each K's mean, and
    says nothing where a model drafter fell short only near the token limit (3.91 of 4)."""
    from specviz.core.i18n import using

    ngram = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    packed = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    with using(lang):
        text = charts.short_drafts_caption(ngram, "ngram", 0.0)
    if lang == "pt":
        assert text.startswith("Os passos desta execução rascunharam menos que K tokens em média (K = 1: 0,45; K = 2: "
                               "0,85; K = 4: 1,60; K = 8: 2,81)")
        assert "contam palpites que nunca foram feitos" in text
    else:
        assert text.startswith("This run's steps drafted fewer than K tokens on average (K = 1: 0.45, K = 2: 0.85, "
                               "K = 4: 1.60, K = 8: 2.81), but the curves and the table's predicted columns take "
                               "every step to draft K")
    assert charts.short_drafts_caption(packed, "eagle", 0.0) is None
    assert paper_is_c_per_step("ngram")


def paper_is_c_per_step(proposer: str) -> bool:
    """The n-gram lookup's solid line and column are the c-per-step variant (one search drafts the whole step)."""
    return view.paper_label(proposer) == "predicted (paper's formula, c per step)"


def test_the_policies_text_says_the_optimal_policy_charges_a_one_pass_drafter_c_per_step():
    """Read 49: the Policies tab said the optimal policy "maximises the formula", and on the n-gram run the Speedup
    vs K tab's formula charges c per step, but `OptimalK` maximised the K·c one (`theory.optimal_k`), picking K = 8
    at the n-gram run's c and α = 0.37. Read 50: the policy now charges a one-pass proposer c per step, as that tab
    does, so it asks for its largest K; the text says what it maximises, in both languages; nothing is added where no
    one-pass proposer ran it, and a proposer with K drafter passes is still charged K·c."""
    from specviz.core.i18n import using

    ngram = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    c = ngram.costs["c"]["ngram"]
    assert theory.optimal_k(0.37, c, k_max=16) == 8  # K·c: a drafter pass per token
    assert OptimalK(c, alpha=0.37, k_max=16, one_pass=True).next_k() == 16  # c per step: the largest K
    assert max(range(1, 17), key=lambda k: theory.expected_speedup(0.37, k, c, one_pass=True)) == 16
    for lang, said in (("en", "For n-gram lookup (no model) it charges c per step, as the Speedup vs K tab does"),
                       # read 51: "Para busca de n-gramas", a name that takes an article, written without one;
                       # read 54: "Para um proponente de uma só passagem (…)" said "one pass" where the English does
                       # not (of the Medusa heads too, whose c per step is a model): "Com …" needs no article
                       ("pt", "Com busca de n-gramas (sem modelo), ela cobra c por passo, como a aba Aceleração vs K")):
        with using(lang):
            text = tables.optimal_charge_text(ngram, 0.0).strip()
            assert text.startswith(said), lang
            assert "K·c" not in text and ("largest K" in text or "maior K" in text), lang
            assert tables.optimal_charge_text(ngram, 0.7) == ""  # no policies at T = 0.7
    layerskip = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-layerskip" / "results.json")
    assert tables.optimal_charge_text(layerskip, 0.0) == ""  # K drafter passes: K·c is its own model


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_optimal_policys_c_per_step_reason_is_each_proposers_own(lang):
    """Read 54: the Policies text said the optimal policy charges c per step "since one pass (for n-gram, one search)
    drafts the whole step", of the Medusa heads too, whose heads 1 to K each run a block after the target's pass:
    for them c per step is a model. The reason is now each proposer's own, as the Speedup vs K caption gives it."""
    import copy

    from specviz.core.i18n import using

    ngram = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    both = copy.deepcopy(ngram)
    both.summary += [{**r, "proposer": "medusa"} for r in ngram.summary if r["proposer"] == "ngram"]
    with using(lang):
        alone, text = tables.optimal_charge_text(ngram, 0.0), tables.optimal_charge_text(both, 0.0)
        search, heads = charts.one_pass_reason("ngram"), charts.one_pass_reason("medusa")
    assert f"({search})" in alone and heads not in alone
    assert search in text and heads in text
    for said in (alone, text):
        assert "one pass (for n-gram, one search)" not in said and "uma só busca) rascunha" not in said
        # read 54: pt named every proposer listed "um proponente de uma só passagem", the Medusa heads too, and in
        # the singular for two; the English names them and gives each one's own reason
        assert "one-pass" not in said and "de uma só passagem" not in said


def test_the_ngram_runs_optimal_rows_are_its_constant_k8_cases_with_a_note_saying_so():
    """Read 50: with c per step the optimal policy asks the n-gram run for K = 8 (its largest K) at every step of
    every prompt, so its rows were recomputed from the run's constant K = 8 cases (no re-run), and the file says so,
    in the reader's language."""
    from specviz.core.i18n import using
    from specviz.engine.policies import OptimalK as Policy

    ngram = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    skip = {"policy", "k", "hf_assisted_method", "hf_assisted_tokens", "hf_assisted_seconds", "hf_assisted_speedup",
            "speedup_vs_hf_assisted", "predicted_speedup", "predicted_speedup_measured_verify", "hf_assisted_identical"}
    optimal = [r for r in ngram.cases if r["policy"] == "optimal"]
    assert len(optimal) == 6
    for row in optimal:
        twin = next(r for r in ngram.cases if r["policy"] == "constant" and r["k"] == 8
                    and r["prompt_id"] == row["prompt_id"] and r["temperature"] == row["temperature"])
        assert {k: v for k, v in row.items() if k not in skip} == {k: v for k, v in twin.items() if k not in skip}
        policy = Policy(row["c"], alpha=0.5, k_max=8, one_pass=True)
        lowest = policy.successes / (policy.trials + row["drafted"] + row["steps"])  # α̂ can fall no lower
        assert theory.optimal_k(lowest, row["c"], 8, one_pass=True) == 8, row["prompt_id"]
    row = ngram.row(suite="all", proposer="ngram", temperature=0.0, policy="optimal", k=4)
    assert f"{row['speedup_vs_ar']:.2f}" == "0.91"  # constant K = 8's pooled speedup
    assert results.RECOMPUTED_OPTIMAL in ngram.notes
    with using("pt"):
        shown = results.note_text(results.RECOMPUTED_OPTIMAL)
    assert shown.startswith("As linhas da política optimal foram recalculadas, não medidas")


@pytest.mark.slow  # two page runs in two languages
def test_the_policies_tab_names_the_optimal_policys_k_c_formula_and_cap():
    """Read 49: the page's policy text under the n-gram run names the K·c formula the optimal policy maximises, the
    one-pass note (read 50: c per step for n-gram lookup), and the cap both adaptive policies keep (the run's
    largest K, `BenchConfig.k_max`)."""
    from specviz.core.i18n import using

    for lang, said in (("en", ("maximises Leviathan et al.'s formula, which charges K·c of drafting a step",
                               "never grows past the run's largest K (of its --k, --shapes and --policy-k)",
                               "For n-gram lookup (no model) it charges c per step, as the Speedup vs K tab does")),
                       ("pt", ("maximiza a fórmula de Leviathan et al., que cobra K·c de rascunho por passo",
                               "nunca passa do maior K da execução (dos seus --k, --shapes e --policy-k)",
                               "Com busca de n-gramas (sem modelo), ela cobra c por passo, como a aba Aceleração "
                               "vs K"))):
        with using(lang):
            at = _ngram_run(lang)
            text = next(m.value for m in at.markdown if "**optimal**" in m.value)
            assert all(part in text for part in said), (lang, text)


@pytest.mark.slow  # a page run in each language
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_heuristic_text_says_a_step_that_drafted_nothing_leaves_k(lang):
    """Read 50: the Policies tab said the heuristic's K "grows by 2 after a step whose drafts were all accepted and
    shrinks by 1 otherwise"; a step that drafted nothing (an n-gram miss: the n-gram run's K = 4 steps drafted 1.60
    tokens on average) does neither (`Heuristic.observe`), and the text under that run says so."""
    from specviz.core.i18n import using
    from specviz.engine.policies import Heuristic

    heuristic = Heuristic(start=4, k_max=8)
    heuristic.observe(0, 0)  # a lookup that found no match
    assert heuristic.next_k() == 4
    heuristic.observe(2, 1)
    assert heuristic.next_k() == 3
    said = {"en": ("shrinks by 1 after one with a rejected draft, never below 1", "a step that drafted nothing (an "
                   "n-gram lookup that found no match) leaves K as it is", "shrinks by 1 otherwise"),
            "pt": ("diminui 1 depois de um com um palpite rejeitado, nunca abaixo de 1", "um passo que não rascunhou "
                   "nada (uma busca de n-gramas que não encontrou coincidência) deixa K como está",
                   "diminui 1 caso contrário")}[lang]
    with using(lang):
        at = _ngram_run(lang)
        text = next(m.value for m in at.markdown if "**heuristic**" in m.value)
    assert said[0] in text and said[1] in text and said[2] not in text, text


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.parametrize("proposer", ["eagle", "ngram"])
def test_the_speedup_vs_k_caption_names_the_table_whose_predictions_use_each_rows_alpha(lang, proposer):
    """Read 53: the caption under the Speedup vs K chart's own table of numbers said "The table's two predicted
    columns use each row's own α instead", but that table, just above it, predicts at the mean α; the columns it
    meant are the lab's table below it. It names that table and quotes its columns' own words."""
    from specviz.core.i18n import using

    result = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    with using(lang):
        caption = charts.speedup_vs_k_caption(proposer)
        below = [c for c in tables.mat_table(result, "eagle", 0.0).columns if c.startswith(("predicted", "previsto"))]
        above = [c for c in plot.figure_table(charts.speedup_vs_k_figure(result, "eagle", 0.0)).columns
                 if c.startswith(("predicted", "previsto"))]
        words = tables.at_row_alpha("").strip()
    assert len(below) == len(above) == 2 and all(c.endswith(words) for c in below)
    assert not any(words in c for c in above)  # the chart's table: at the mean α
    said = "da tabela abaixo (\"" + words + "\")" if lang == "pt" else "of the table below (\"" + words + "\")"
    assert said in caption and "The table's two" not in caption and "colunas de previsão da tabela usam" not in caption


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_each_one_pass_solid_line_caption_says_what_is_true_of_its_proposer(lang):
    """Read 49: under the n-gram run the Speedup vs K caption said the solid line charges c per step "as one pass
    drafts the whole step", but n-gram lookup runs no pass (the Where the time goes caption contrasts "K drafter
    passes" with "n-gram lookup: one search"); it names the one search, as the definitions and the Theory caption
    do. Read 54: the same words stood under the Medusa heads, whose heads 1 to K each run a block after the target's
    pass (more than c, one head's time): each caption now says what is true of its proposer."""
    from specviz.core.i18n import using

    with using(lang):
        ngram, medusa = charts.speedup_vs_k_caption("ngram"), charts.speedup_vs_k_caption("medusa")
    search, heads = {"en": ("(one search of the context drafts the whole step, and c is its time)",
                            "(a model: heads 1 to K each run a block on the hidden state the target's last pass "
                            "gave, with no drafter pass, and c times one head, so the curves leave out what heads 2 "
                            "to K add)"),
                     "pt": ("(uma só busca no contexto rascunha o passo inteiro, e c é o tempo dela)",
                            "(um modelo: as cabeças 1 a K rodam cada uma um bloco sobre o estado oculto que a "
                            "última passagem do alvo deu, sem passagem de um modelo de rascunho, e c mede uma só "
                            "cabeça, então as curvas deixam de fora o que as cabeças 2 a K acrescentam)")}[lang]
    assert search in ngram and heads in medusa
    for caption in (ngram, medusa):  # no longer "one pass drafts the whole step" of either
        assert "drafts the whole step, from" not in caption and "rascunha o passo inteiro, a partir" not in caption


@pytest.mark.slow  # over 0.4 s on 2 cores (read 51's --durations): make check stays under a minute
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_both_acceptance_charts_are_titled_acceptance_by_position_as_their_tab(lang):
    """Read 50: the all-proposers chart was titled "Acceptance, all proposers", naming no quantity, under the tab
    "Acceptance by position" and beside a chart titled with that name; it plots the same rate, so it says so."""
    from specviz.core.i18n import _, using

    medusa_run = next(path for path in results.result_files() if results.result_name(path) == "default-cpu-f32-medusa")
    shown = results.load_result(medusa_run)
    with using(lang):
        name = _("Acceptance by position")
        titles = [charts.proposers_acceptance_figure(shown, 0.0).layout.title.text,
                  charts.acceptance_figure(shown, "eagle", 0.0).layout.title.text]
    assert all(t.startswith(name) for t in titles), titles


def test_a_list_of_other_temperatures_takes_semicolons_in_portuguese():
    """Read 50: the Policies tab's note joined the temperatures a run measured its policies at with ", ", so two of
    them read "T = 0, 0,7" in Portuguese, a list comma beside a decimal comma; the glossary's number lists take
    semicolons there."""
    from specviz.core.i18n import using
    from specviz.labs.bench.report import BenchResult
    from specviz.ui.speedup import tables

    row = dict(suite="all", proposer="draft", tree_nodes=0, speedup_vs_ar=1.2, k=4)
    result = BenchResult(command="", created="", machine={}, config={}, costs={}, cases=[], baselines=[],
                         summary=[dict(row, policy="heuristic", temperature=t) for t in (0.0, 0.7)], suites=[])
    with using("pt"):
        pt = tables.no_policies_text(result, 1.0)
    assert "T = 0; 0,7 " in pt, pt
    assert "T = 0, 0.7 " in tables.no_policies_text(result, 1.0)


def test_a_steeper_bfloat16_is_not_blamed_on_missing_instructions_the_file_records():
    """Read 50: a live toy sweep on this AMD EPYC (avx512_bf16, no cap, a busy machine) measured bfloat16 climbing
    faster (1.28x against 0.74x at 17 tokens) and was told it grew "as it does where the kernels cannot use bfloat16
    instructions"; where the file records the instructions and no cap, the sentence says the run does not measure
    why. A capped run (default-cpu-f32-avx2cap) and one that records nothing keep the instruction-set reason."""
    uncapped = _curves_result(1.92, 7.26)
    uncapped.machine.update(cpu_bf16=True, isa_limits={})
    said = trees.dtype_sentence(uncapped)
    assert "though this CPU has bfloat16 instructions and the run capped none" in said
    assert "cannot use bfloat16 instructions" not in said
    capped = _curves_result(1.92, 7.26)
    capped.machine.update(cpu_bf16=True, isa_limits={"ONEDNN_MAX_CPU_ISA": "AVX2"})
    assert "as it does where the kernels cannot use bfloat16 instructions" in trees.dtype_sentence(capped)
    assert "as it does where the kernels cannot use bfloat16 instructions" in trees.dtype_sentence(
        _curves_result(1.92, 7.26))


@pytest.mark.parametrize("lang, c", [("en", "0.00022"), ("pt", "0,00022")])
def test_the_ngram_runs_c_is_not_written_as_zero(lang, c):
    """Read 50 (review): the Theory page stopped writing the n-gram runs' c = 0.000217 as "0.000", but the Speedup
    lab's headline metric "c (measured)", its verdict ("α ≈ 0.36 and c = 0.000 would pay ...") and its Speedup vs K
    curve's legend still did, as if the lookup cost nothing. They write two significant digits, as Theory does."""
    from specviz.core.i18n import using

    ngram = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    zero = "0,000" if lang == "pt" else "0.000"
    with using(lang):
        for temperature in (0.0, 0.7):
            said = [verdict.headline(ngram, "ngram", temperature)["c"], verdict.verdict(ngram, "ngram", temperature),
                    *(d.name for d in charts.speedup_vs_k_figure(ngram, "ngram", temperature).data)]
            assert said[0] == c and f"c = {c}" in said[1] and any(f"c = {c}" in s for s in said[2:]), said
            assert not any(re.search(zero + r"(?![0-9])", s) for s in said), said
        reason = verdict.slowdown_reason(0.0001, 0.000217, 4, 1.1, 1.0)  # α at or below the break-even α
        assert f"c = {c}" in reason and re.search(zero + r"(?![0-9])", reason) is None, reason


@pytest.mark.slow  # a page run in each language
@pytest.mark.parametrize("lang, said", [
    ("en", "In this run the optimal policy's figures are its constant K = 8 cases, recomputed, not a run of their own"),
    ("pt", "Nesta execução os números da política optimal são os seus casos de K = 8 constante, recalculados")])
def test_the_n_gram_runs_optimal_rows_are_named_as_its_constant_k_8_cases(lang, said):
    """Read 51: default-cpu-ngram's optimal rows are its constant K = 8 cases, recomputed (its note), but the lab set
    them beside constant K = 8 as another run: 1.94× and 1.94× in Summarise / rewrite, and the Policies tab's optimal
    column "won" by 25%. Each tab that shows the two says whose cases the optimal figures are; a run that measured
    its optimal policy (default-cpu-layerskip) gets no such sentence. Read 52: the Where the time goes tab's optimal
    bar (draft, verify and overhead ms the K = 8 bar's to the digit) had no such sentence."""
    from specviz.core.i18n import using

    with using(lang):
        at = _ngram_run(lang)
        # Speedup vs K, Where the time goes, By category, Policies
        assert sum(said in c.value for c in at.caption) == 4
    layerskip = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-layerskip" / "results.json")
    assert tables.recomputed_text(layerskip) is None  # it measured its optimal policy


def test_the_threshold_policy_has_one_name_in_the_lab(tiny):
    """Read 52: the text above the policy table defined "**threshold**" (the CLI's --policies name, and results.md's
    column), while the table's header help, the mean-accepted-length rows and the live menu called it "stop below
    draft confidence": one policy, two names. Both languages now say "threshold", as the pt text above does."""
    from specviz.core.i18n import using
    table = tables.policy_table(tiny, 0.0)
    assert tables.policy_help(table)["threshold"] == "threshold"
    for lang in ("en", "pt"):
        with using(lang):
            assert view.policy_text("threshold") == "threshold"
            rows = tables.mat_table(tiny, "draft", 0.0).iloc[:, 0].tolist()
            assert "threshold" in rows and not any("confian" in r or "confidence" in r for r in rows)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_shape_table_names_its_columns_as_the_chart_names_its_series(lang):
    """Read 52: the chart's series named their units ("physical limit: speedup of a perfect, free draft (×)"), the
    st.dataframe under it still had "physical limit" and two speedups with no unit beside a length. Its columns now
    carry the chart's names."""
    from specviz.core.i18n import using

    result = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    with using(lang):
        columns = list(trees.shape_table(result, "eagle", 0.0).columns)
        series = list(plot.figure_table(trees.shape_figure(result, "eagle", 0.0)).columns[1:])
        generate = view.label("speedup_vs_hf_generate") + " (×)"
    assert columns[1:5] == [*series[:2], generate, series[2]], columns
    assert all(name.endswith("(×)") for name in columns[2:5]), columns


def test_the_shape_chart_names_each_series_with_its_unit():
    """Read 52: the Chain vs tree chart's one axis read "mean accepted length / speedup (×)", giving the length the
    unit ×, and its table (the chart's text alternative) had a column "physical limit" of 6.9 beside a length of 2.98,
    which read as a length. Each series now names its unit: tokens per target forward for the bars, × for the two
    speedups, and the physical limit says it is a speedup."""
    from specviz.core.i18n import using

    result = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    names = {"en": ("tokens per target forward", "(×)", "physical limit: speedup", "speedup (×"),
             "pt": ("tokens por passagem do alvo", "(×)", "limite físico: aceleração", "aceleração (×")}
    assert len(names) == 2
    for lang, (tokens, times_unit, limit, axis_speedup) in names.items():
        with using(lang):
            fig = trees.shape_figure(result, "eagle", 0.0)
            length, speedup, physical = plot.figure_table(fig).columns[1:]
            axis = fig.layout.yaxis.title.text.replace("<br>", " ")
        assert tokens in length and "×" not in length
        assert speedup.endswith(times_unit) and physical.startswith(limit) and physical.endswith(times_unit)
        assert tokens in axis and axis_speedup in axis and "/ speedup (×)" not in axis


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_shape_charts_hovers_and_text_alternative_write_the_table_s_numbers(lang):
    """Read 55: the Chain vs tree chart's hovers and its own table (its text alternative) wrote three significant
    figures, a physical limit of "6.9" and "5.5" and a length of "1.9", right above the table that wrote 6.902, 5.505
    and 1.897 (default-cpu-f32-packed, greedy). Both now write the table's 3 decimals."""
    from specviz.core.i18n import using

    result = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    with using(lang):
        table = trees.shape_table(result, "eagle", 0.0)
        fig = trees.shape_figure(result, "eagle", 0.0)
        chart = plot.figure_table(fig)
        hovers = [[row[-1] for row in trace.customdata] for trace in plot.written_hovers(fig).data]
    names = list(chart.columns[1:])
    assert [list(chart[name]) for name in names] == [list(table[name]) for name in names] == hovers
    limits = {"en": ["3.071", "6.902", "5.495", "5.505"], "pt": ["3,071", "6,902", "5,495", "5,505"]}[lang]
    assert list(chart[names[2]]) == limits and list(chart[names[0]])[0] == {"en": "1.897", "pt": "1,897"}[lang]


def test_each_comparison_rows_tokens_per_second_as_written_give_its_speedups():
    """Read 52 (a browser look): default-cpu-f32-packed's vs transformers table wrote EAGLE at 35.4 tokens/s and
    model.generate at 20.6 beside a speedup of 1.71× (35.4 / 20.6 = 1.72), and 35.1 against target-only's 21.1
    beside 1.67× (1.66): the speedups are ratios of the unrounded speeds. The speeds now carry the decimals the ratios
    need, in every committed run, at every temperature."""
    from specviz.core.i18n import read_number
    from specviz.labs.bench.report import HF_GENERATE, TARGET_ONLY

    checked = 0
    for path in results.result_files():
        result = results.load_result(path)
        for temperature in sorted({r["temperature"] for r in result.summary}):
            table = tables.comparison_table(result, temperature)
            speeds = [None if s == "–" else read_number(s) for s in table[view.label("tokens_per_second")]]
            bases = {}
            for method, speed in zip(table["method"], speeds):
                bases.setdefault(method, speed)
            for column, base in ((view.label("speedup_vs_ar"), bases.get(view.method_text(TARGET_ONLY))),
                                 (view.label("speedup_vs_hf_generate"), bases.get(view.method_text(HF_GENERATE)))):
                if not base:
                    continue
                for speed, shown in zip(speeds, table[column]):
                    if speed is None:
                        continue
                    assert shown == f"{view.number(speed / base, 2)}×", (results.result_name(path), temperature)
                    checked += 1
    assert checked > 50


def test_the_assisted_rows_say_on_how_many_prompts_their_output_was_identical():
    """Read 53: in the vs transformers table the column "greedy output identical" read "3/3" for specviz's rows and
    "1/3" for model.generate, but "yes" for transformers' assisted generation (default-h200-bf16-run2, greedy): one
    column, two ways of writing it, and "yes" said nothing of how many prompts were checked. Every committed greedy
    table now writes each row's count as "same/checked", the assisted rows' from the run's cases."""
    counted = 0
    for path in results.result_files():
        result = results.load_result(path)
        table = tables.comparison_table(result, 0.0)
        for method, k, shown in zip(table["method"], table["K"], table[view.label("identical")]):
            if method == "specviz target-only":  # what the column compares with (read 55)
                assert shown == "the reference", (results.result_name(path), shown)
                continue
            assert shown == "–" or re.fullmatch(r"\d+/\d+", shown), (results.result_name(path), method, shown)
            if method.startswith("transformers") and k != "–":
                checked = [c["hf_assisted_identical"] for c in result.cases if c["k"] == int(k)
                           and c["temperature"] == 0.0 and c["policy"] == "constant" and not c.get("tree_nodes")
                           and c.get("hf_assisted_identical") is not None]
                assert shown == f"{sum(checked)}/{len(checked)}", (results.result_name(path), method, k)
                counted += 1
    assert counted >= 12  # the draft, layer-skip and n-gram runs' and both H200 runs' assisted rows


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_machine_line_and_notes_write_a_product_with_a_times_sign(lang):
    """Read 53: every committed run's machine line counted "16 prompt x temperature cases" and its tree note said
    "node budget x width", with an ASCII x where the pages write × for every product (docs/gpu.md: "prompt ×
    temperature"). The line and the notes as the lab shows them, in both languages; the files keep their words."""
    from specviz.core.i18n import using

    shown = 0
    for path in results.result_files():
        result = results.load_result(path)
        m = result.machine
        with using(lang):
            texts = [results.machine_line(result, "wall time"),
                     *(results.note_text(n, m.get("cores", "?"), m.get("torch_threads")) for n in result.notes)]
        assert not [t for t in texts if re.search(r"\w x \w", t)], (results.result_name(path), texts)
        shown += sum("×" in t for t in texts)
    assert shown >= 14  # every run's line, the trees' notes, the H200 runs' time-limit notes


@pytest.mark.slow  # the page runs once per language
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_by_category_caption_of_a_one_category_run_says_so(lang, tiny):
    """Read 53: the By category tab of a run over one category (every committed run but default-cpu-ngram) said "the
    other categories repeat little" and "each bar pools the prompts run in that category" beside one group of bars;
    it now says the run measured one category, on how many prompts, and how a run compares categories."""
    from specviz.core.i18n import using

    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["lang"] = lang
    at.run()
    _ok(at)  # the lab opens on default-cpu-f32-packed: held-out prompts only, 8 of them
    said = [c.value for c in at.tabs[TABS.index("By category")].caption]
    one = ("Esta execução mediu uma só categoria de prompts, Reservados (rascunhos), em 8 prompts, então cada barra"
           if lang == "pt" else
           "This run measured one prompt category, Held-out (drafts), on 8 prompts, so each bar")
    assert any(text.startswith(one) for text in said), said
    assert not any("Each bar pools" in text or "Cada barra junta" in text for text in said), said
    with using(lang):  # two categories: the generic caption, which compares them
        both = charts.category_caption(tiny, "ngram", 0.0)
    assert both.startswith("Respostas que copiam o prompt" if lang == "pt" else "Answers that copy the prompt")


def test_the_lab_and_the_race_fill_draft_and_verify_with_one_pattern_each(monkeypatch):
    """Read 53: the race striped its draft segments and left the target forward solid, while the Speedup lab's "Where
    the time goes" (its bars' cues given by `distinguish`) drew the draft solid and the verify bars striped: one
    quantity, two fills. Both charts now take each quantity's fill from `PHASE_PATTERNS`, as `show` draws them."""
    from specviz.labs.examples import list_examples, load_example
    from specviz.ui.common.charts import PHASE_PATTERNS
    from specviz.ui.race import figures as race

    monkeypatch.chdir(ROOT)
    spec, base = load_example(next(e for e in list_examples() if e.baseline_path is not None).name)
    lanes = plot.distinguish(race.race_figure(spec, base))
    raced = {t.name: t.marker.pattern.shape or "" for t in lanes.data}
    run = next(path for path in results.result_files() if results.result_name(path) == results.HEADLINE_RUN)
    result = results.load_result(run)
    bars = plot.distinguish(charts.time_breakdown_figure(result, result.proposers()[0], result.temperatures()[0]))
    lab = {t.name: t.marker.pattern.shape or "" for t in bars.data}
    for phase, key in (("draft", "draft_ms"), ("verify", "verify_ms"), ("overhead", "overhead_ms")):
        assert lab[view.label(key)] == raced[race.PHASE_NAMES[phase]] == PHASE_PATTERNS[phase][0], phase
    assert lab[view.label("draft_ms")] != lab[view.label("verify_ms")] == ""  # the target forward solid in both


def _this_machine_panel(lang):
    from specviz.core.i18n import set_language
    from specviz.ui.common.this_machine import render_this_machine

    set_language(lang)
    render_this_machine()


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_this_machines_milliseconds_give_the_ratios_written_beside_them(monkeypatch, lang):
    """Read 53: the panel wrote its milliseconds with one decimal, so a forward of 1.0739 ms and one of 1.1241 ms
    read "1.1 | 1.00" and "1.1 | 1.05", and 1.1970 ms "1.2 | 1.11" (1.2 ÷ 1.1 is 1.09), beside a caption's "1.1 ms
    here": `calibrate` had the same fault (fixed by `ms_decimals`). The panel now writes them as `calibrate` does."""
    from specviz.labs.calibration import Calibration
    from specviz.ui.common import this_machine

    cal = Calibration("default", "eagle", "float32", "cpu", "stock", "Test CPU", (), False, "x", 2,
                      ((1, 0.00107385), (2, 0.00112412), (3, 0.00113223), (17, 0.00119693)), 0.00002, 0.00158998,
                      0.0, sampled_generate_seconds=0.00153640)
    monkeypatch.setattr(this_machine, "expected", lambda pair="default": cal)
    at = AppTest.from_function(_this_machine_panel, args=(lang,), default_timeout=60).run()
    assert not at.exception, at.exception
    table = at.table[0].value  # the cost chart's folded table, indexed by the tokens fed
    ms, ratios = (list(table[table.columns[i]]) for i in (0, 1))
    read = (lambda text: float(text.replace(",", "."))) if lang == "pt" else float
    assert ms == (["1.074", "1.124", "1.132", "1.197"] if lang == "en" else ["1,074", "1,124", "1,132", "1,197"])
    for written, ratio in zip(ms, ratios):
        assert f"{read(written) / read(ms[0]):.2f}" == ratio.replace(",", "."), (written, ratio)
    here = "(1.074 ms here)" if lang == "en" else "(1,074 ms aqui)"
    assert any(here in caption.value for caption in at.caption), [c.value for c in at.caption]


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_speedup_vs_k_curve_follows_from_the_alpha_and_c_its_legend_writes(lang):
    """Read 53: the solid line's legend wrote "at the mean α = 0.27, c = 0.046" (Medusa, T = 0) while the curve used
    the mean α to every digit, 0.2722, so its table read 1.22, 1.29 and 1.31 at K = 1, 2 and 3, where the written α
    and c give 1.21, 1.28 and 1.30. The curves now take α (3 decimals, as the α estimate at the top) and c as the
    legend writes them, for every committed run, proposer and temperature."""
    from specviz.core.i18n import using
    from specviz.core.i18n import as_written
    from specviz.ui.common.charts import figure_table, table_cells

    comma = lang == "pt"
    files = results.result_files()
    assert len(files) >= 10, files  # every committed run
    curves = 0
    for path in files:
        result = results.load_result(path)
        for proposer in result.proposers():
            for t in result.temperatures():
                curves += 1
                with using(lang):
                    fig = charts.speedup_vs_k_figure(result, proposer, t)
                    cells = table_cells(figure_table(fig))
                solid = fig.data[0]
                found = re.search(r"α (?:médio )?= ([0-9.,]+)[,;] c = ([0-9.,]+)", solid.name)
                assert found, solid.name
                alpha, c = (float(v.replace(",", ".")) if comma else float(v) for v in found.groups())
                assert len(found.group(1).split("," if comma else ".")[1]) == charts.ALPHA_DIGITS
                one_pass = registry.one_pass(proposer)
                assert list(solid.y) == pytest.approx([theory.expected_speedup(alpha, k, c, one_pass)
                                                       for k in solid.x], abs=1e-12)
                written = [theory.expected_speedup(alpha, k, c, one_pass) for k in solid.x]
                column = cells[cells.columns[1]]
                for cell, w in zip(column, written):  # each cell to its own decimals ("1.2", "0.986")
                    plain = cell.replace(",", ".") if comma else cell
                    digits = len(plain.split(".")[1]) if "." in plain else 0
                    assert float(plain) == as_written(w, digits), (path, proposer, t, cell, w)
    assert curves >= 20, curves


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_tables_predictions_follow_from_alpha_and_c_as_written(lang):
    """Read 54: the table's predicted columns came from every digit of α while it writes α to 3 decimals: Medusa, K =
    2, greedy, default-cpu-f32-medusa read 1.280 beside α 0.268 and c 0.046 (Medusa is charged c per step), from
    which (1 + 0.268 + 0.268²) / 1.046 = 1.281. results.md's predicted (paper) follows from the same written α."""
    from specviz.core.i18n import read_number, using

    run = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-medusa" / "results.json")
    c = run.rows(proposer="medusa", temperature=0.0, policy="constant")[0]["c"]
    written_c = float(f"{c:.{small_digits(c)}f}")  # 0.046, as the Speedup vs K legend writes it
    with using(lang):
        table = tables.mat_table(run, "medusa", 0.0)
        alpha_column, paper = view.label("alpha"), tables.at_row_alpha(view.paper_label("medusa"))
        measured = tables.at_row_alpha(view.label("predicted_speedup_measured_verify"))
        row = table[table["K"] == "2"].iloc[0]
        assert row[alpha_column] == {"en": "0.268", "pt": "0,268"}[lang]
        assert row[paper] == {"en": "1.281", "pt": "1,281"}[lang]
        for _, each in table.iterrows():  # every row with a prediction follows from its written α and c
            if each[paper] != "–":
                alpha = read_number(each[alpha_column])
                expected = theory.expected_speedup(alpha, int(each["K"]), written_c, one_pass=True)
                assert each[paper] == view.number(expected, 3), each["K"]
                # and the measured-verify column from the verify cost as results.md writes it, 2 decimals (read 54:
                # K = 4 read 1.454 from 0.9037 where the written 0.90 gives 1.460)
                verify = as_written(run.verify_ratio(int(each["K"])), 2)
                expected = theory.speedup_with_verify_cost(alpha, int(each["K"]), written_c, verify, one_pass=True)
                assert each[measured] == view.number(expected, 3), each["K"]
    md = (bench.BENCHMARKS_DIR / "default-cpu-f32-medusa" / "results.md").read_text(encoding="utf-8")
    assert "| medusa | constant | 2 | chain | 0 | 0.268 |" in md  # α to 3 decimals there too, not 0.27


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_noisy_verify_curve_is_not_called_flat(lang):
    """Read 54: the verify sentence called any curve whose 2..5-token costs stayed under 1.35 "nearly flat, as on a
    memory-bound GPU", whatever it measured below that: a live toy sweep on a busy 2-core machine timed 0.15, 1.20,
    0.18, 0.16 one-token forwards, which no forward over more tokens costs. It now quotes the timings and calls them
    noise; a curve within the bounds (the one this machine measured on a quiet run) still reads nearly flat."""
    from dataclasses import replace

    from specviz.core.i18n import using

    base = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-bf16-tree" / "results.json")

    def with_curve(ratios: list[float]):
        verify = [dict(v, ratio=r) for v, r in zip(base.costs["verify"], ratios)]
        return replace(base, costs={**base.costs, "verify": verify})

    noisy, quiet = with_curve([1.0, 0.151, 1.2, 0.175, 0.162]), with_curve([1.0, 1.037, 0.991, 1.031, 1.067])
    with using(lang):
        said, flat = charts.verify_sentence(noisy), charts.verify_sentence(quiet)
    words = {"en": ("nearly flat", "0.15×, 1.20×, 0.18×, 0.16× a one-token forward", "these timings are noise"),
             "pt": ("quase plana", "0,15×; 1,20×; 0,18×; 0,16× uma passagem de um token",
                    "essas medições são ruído")}
    flat_word, each, noise = words[lang]
    assert flat_word not in said and each in said and noise in said
    assert flat_word in flat and noise not in flat


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_verify_sentence_names_the_token_counts_the_run_measured(lang):
    """Read 54: the six verify sentences said "2 to 5 tokens" whatever the run measured: a sweep at K = 1 times
    forwards over 1 and 2 tokens only, and read "2 to 5 tokens cost 6.26× one". They now name the counts measured:
    "2 tokens" there, "2 to 5 tokens" for a full curve, in both languages."""
    from dataclasses import replace

    from specviz.core.i18n import using

    base = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-drafts" / "results.json")
    short = replace(base, costs={**base.costs, "verify": [base.costs["verify"][0],
                                                          dict(base.costs["verify"][1], ratio=6.26)]})
    with using(lang):
        one, full = charts.verify_sentence(short), charts.verify_sentence(base)
    measured, whole = {"en": ("2 tokens cost 6.26× one", "2 to 5 tokens cost"),
                       "pt": ("2 tokens custam 6,26× um", "de 2 a 5 tokens custam")}[lang]
    assert measured in one and whole not in one and whole in full, (one, full)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_medusa_caption_does_not_derive_c_per_step_from_k_blocks(lang):
    """Read 54: "A step of K drafts runs the blocks of heads 1 to K and then the LM head once ..., so the curves ...
    charge c of drafting a step whatever K": K blocks cost more than one head's c, so "so" did not follow. The
    caption now says the curves count the step as one head's pass and leave out what heads 2 to K add."""
    from specviz.core.i18n import using

    result = results.load_result(ROOT / "assets" / "benchmarks" / "default-cpu-f32-medusa" / "results.json")
    with using(lang):
        text = charts.medusa_draft_caption(result, "medusa", 0.0)
    said, gone = {"en": ("They count the step as one head's pass and leave out what heads 2 to K add",
                         "all K of them, so the curves"),
                  "pt": ("Contam o passo como a passagem de uma só cabeça e deixam de fora o que as cabeças 2 a K "
                         "acrescentam", "todas as K, então as curvas")}[lang]
    assert said in text and gone not in text


@pytest.mark.parametrize(("lang", "said"), [("en", "α^i (i.i.d. model, at the mean α = 0.272)"),
                                            ("pt", "α^i (modelo i.i.d., com o α médio = 0,272)")])
def test_the_acceptance_charts_alpha_is_the_speedup_charts_mean_alpha_as_written(lang, said):
    """Read 54: the Acceptance by position chart's dotted line read "α = 0.27" (default-cpu-f32-medusa, Medusa, T = 0)
    where the Speedup vs K legend gives the same mean α as 0.272, and it drew α^i from every digit. It names the mean
    α as that legend does, to 3 decimals, and each point is α^i of the α it writes."""
    from specviz.core.i18n import using

    medusa = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-medusa" / "results.json")
    with using(lang):
        line = charts.acceptance_figure(medusa, "medusa", 0.0).data[-1]
        legend = charts.speedup_vs_k_figure(medusa, "medusa", 0.0).data[0].name
    assert line.name == said
    alpha = float(said.rsplit("= ", 1)[1].rstrip(")").replace(",", "."))
    written = said.rsplit("= ", 1)[1].rstrip(")")
    assert f"= {written}, c" in legend or f"= {written}; c" in legend, legend  # the Speedup vs K legend's mean α
    assert list(line.y) == pytest.approx([alpha ** i for i in range(1, len(line.y) + 1)], abs=1e-12)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_this_machines_predictions_follow_from_the_figures_written_beside_them(lang):
    """Read 54: "This machine"'s table wrote each prediction's mean accepted length and step cost with 2 decimals and
    the caption a token of model.generate with 2, so about 4 rows in 10 did not follow from them (2.98 × 1.32 / 1.42
    = 2.77 beside 2.76×). They take the decimals that make written MAL × written model.generate token ÷ written
    step cost give the written speedup, on every calibration of a grid of plausible costs."""
    import itertools
    import re

    from specviz.core.i18n import _, using
    from specviz.labs.calibration import Calibration
    from specviz.ui.common import this_machine

    def read(text: str) -> float:
        return float(text.rstrip("×").replace(",", "."))

    wider = 0
    for one, draft, generate, sampled in itertools.product((0.030, 0.0401, 0.061), (0.0021, 0.0051),
                                                           (0.0395, 0.0421, 0.047), (0.0, 0.0433)):
        curve = tuple((n, one * r) for n, r in ((1, 1), (3, 0.97), (5, 0.93), (9, 1.08), (17, 1.3), (25, 1.63),
                                                (33, 1.9)))
        cal = Calibration("default", "eagle", "float32", "cpu", "packed", "AMD EPYC", (), False, "2", 2, curve,
                          draft, generate, sampled, steps=(("chain-greedy", draft, 0.0011),
                                                           ("tree-greedy", draft, 0.0017),
                                                           ("chain-sampled", draft, 0.0013),
                                                           ("tree-sampled", draft, 0.0019)))
        table = this_machine.table_for(cal.pair, cal.proposer)
        assert table is not None
        with using(lang):
            rows = this_machine.predicted_table(cal, table)
            caption = this_machine.cost_caption(cal)
            temperature, greedy_word, predicted = _("temperature"), _("greedy"), _("predicted vs model.generate")
            mal_column, cost_column = _("mean accepted length"), _("step cost (one-token forwards)")
        decimal = "," if lang == "pt" else r"\."
        tokens = [read(t) for t in re.findall(rf"model\.generate[^0-9]*(\d+{decimal}\d+)", caption)]
        sampled_token = re.findall(rf"(\d+{decimal}\d+)(?: ao amostrar| sampling)", caption)
        greedy, at_07 = tokens[0], read(sampled_token[0]) if sampled_token else tokens[0]
        for _i, row in rows.iterrows():
            token = greedy if row[temperature] == greedy_word else at_07
            mal, cost = read(row[mal_column]), read(row[cost_column])
            with using(lang):
                assert this_machine.number(mal * token / cost) + "×" == row[predicted], (row.to_dict(), caption)
            wider += len(re.split("[.,]", row[cost_column])[-1]) > 2
    assert wider  # some rows need a third decimal


@pytest.mark.slow  # the page under AppTest, in both languages
@pytest.mark.parametrize("lang, start, blocks", [
    ("en", "A step pays off", "the blocks of heads 1 to K, all on the hidden state the target's last pass gave"),
    ("pt", "Um passo compensa", "os blocos das cabeças de previsão 1 a K, todos sobre o estado oculto")])
def test_the_time_caption_counts_the_medusa_heads_blocks(lang, start, blocks):
    """Read 54: the time chart's caption said Medusa drafts with "its heads' small products", leaving out the heads'
    blocks that the Medusa caption and its c count (`charts` Medusa note: a step runs the blocks of heads 1 to K, then
    the LM head once over all K). It now names both, as that note does."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["lang"] = lang
    at.run()
    _ok(at)
    (caption,) = [c.value for c in at.caption if c.value.startswith(start)]
    assert blocks in caption and "small products" not in caption and "pequenos produtos" not in caption
    assert ("LM head once over all K" if lang == "en" else "cabeça de LM uma vez sobre todas as K") in caption


def test_the_dashed_speedup_vs_k_curve_uses_the_verify_cost_as_written():
    """Read 54: the dashed curve (the formula with the measured verify cost) divided by the verify cost's every digit,
    while results.md's Costs table and the predicted columns write it to 2 decimals (default-cpu-f32-medusa: a
    forward over 5 tokens 0.9037, written 0.90). For every committed run the dashed line follows from the solid
    line's written α and c and the verify costs as written."""
    from specviz.labs.bench import summary

    moved = 0
    for path in results.result_files():
        result = results.load_result(path)
        written = summary.written_verify(result.costs)
        for proposer in result.proposers():
            for t in result.temperatures():
                fig = charts.speedup_vs_k_figure(result, proposer, t)
                if len(fig.data) < 2 or fig.data[1].line.dash != "dash":
                    continue
                found = re.search(r"α = ([0-9.]+), c = ([0-9.]+)", fig.data[0].name)
                alpha, c = float(found.group(1)), float(found.group(2))
                one_pass = registry.one_pass(proposer)
                dashed = fig.data[1]
                assert list(dashed.y) == pytest.approx([theory.speedup_with_verify_cost(
                    alpha, k, c, summary.verify_ratio(written, k), one_pass) for k in dashed.x], abs=1e-12)
                moved += any(abs(y - theory.speedup_with_verify_cost(alpha, k, c, result.verify_ratio(k), one_pass))
                             > 1e-6 for k, y in zip(dashed.x, dashed.y))
    assert moved  # the written verify cost moves some curve


def test_a_physical_limit_above_the_tokens_a_forward_emits_is_explained():
    """Read 54: default-cpu-f32-packed's Chain vs tree table gave the chain of K = 4 a physical limit of 5.495×,
    above the 5 tokens one forward can emit, because its float32 verify curve measured 5 tokens at 0.910 of one
    token's time; nothing said so. A note now names the shape, its limit as the table writes it and the measured
    cost under 1 (written so that tokens / cost gives that limit), in both languages; shapes whose limit stays under
    their tokens (the trees: cost above 1) get none."""
    from specviz.core.i18n import read_number, using

    result = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    limits = {trees.shape_name(r): written_limit(r, result.costs, trees.CURVE_DIGITS)
              for r in result.shape_rows("eagle", 0.0)}
    with using("en"):
        notes = trees.over_limit_notes(result, "eagle", 0.0)
        table = trees.shape_table(result, "eagle", 0.0)
    over = {name: limit for name, limit in limits.items()
            if name.startswith("a chain") and limit > int(name.rsplit(" ", 1)[-1]) + 1}
    assert sorted(over) == ["a chain of K = 2", "a chain of K = 4"] and len(notes) == 2
    k4 = next(n for n in notes if "a chain of K = 4" in n)
    assert k4.startswith("The physical limit of a chain of K = 4, 5.495×, is above the 5 tokens one target forward")
    assert "5.495" in table[trees.shape_names()["physical_limit"]].tolist()
    ratio = read_number(re.search(r"at ([0-9.]+) of a one-token forward", k4).group(1))
    assert ratio < 1 and f"{5 / ratio:.3f}" == "5.495" and "at most 5×" in k4
    for note in notes:  # every cost as written gives its shape's limit as written
        shape = re.search(r"limit of (a chain of K = \d+),", note).group(1)
        tokens = int(shape.rsplit(" ", 1)[-1]) + 1
        cost = read_number(re.search(r"at ([0-9.]+) of a one-token", note).group(1))
        assert view.number(tokens / cost, 3) == view.number(limits[shape], 3)
    assert not any("tree" in n.split(",")[0] for n in notes)
    with using("pt"):
        pt = trees.over_limit_notes(result, "eagle", 0.0)
    assert any(n.startswith("O limite físico de uma cadeia de K = 4, 5,495×, passa dos 5 tokens") and "0,91 do tempo"
               in n and "no máximo 5×" in n for n in pt), pt


def test_the_verdicts_step_total_is_the_sum_of_its_written_parts():
    """Read 54: default-cpu-drafts' EAGLE-1 drafter, T = 0.7, K = 4, read "a step that drafts all K = 4 costs 1.70
    one-token forwards" beside c = 0.081 and a verify cost of 1.37×, which add to 4 × 0.081 + 1.37 = 1.69: the total
    came from the unrounded c and verify cost. Over every committed run, each verdict that writes a step's total
    writes the sum of the c and verify cost it writes beside it (K·c, or c for a one-pass proposer)."""
    result = results.load_result(ROOT / "assets" / "benchmarks" / "default-cpu-drafts" / "results.json")
    assert "costs 1.69 one-token forwards" in verdict.verdict(result, "eagle", 0.7)
    checked = 0
    for path in sorted((ROOT / "assets" / "benchmarks").glob("*/results.json")):
        run = results.load_result(path)
        for proposer in sorted({r["proposer"] for r in run.rows()}):
            for temperature in sorted({r["temperature"] for r in run.rows(proposer=proposer)}):
                text = verdict.verdict(run, proposer, temperature)
                step = re.search(r"costs? ([0-9.]+) one-token forwards", text)
                if not step:
                    continue
                k = int(re.search(r"K = ([0-9]+)", text).group(1))
                c = float(re.search(r"c = ([0-9.]+)", text).group(1))
                verify = float(re.search(r"costs ([0-9.]+)× a one-token forward", text).group(1))
                parts = (c if registry.one_pass(proposer) else k * c) + verify
                assert step.group(1) == view.number(parts), (path.parent.name, proposer, temperature, text)
                checked += 1
    assert checked >= 9


@pytest.mark.parametrize("lang, above, curve, said", [
    ("en", ["1.00", "1.09", "0.97", "0.97", "0.93"], ["1.000", "1.102", "0.977", "0.910"],
     "At 5 tokens it reads 0.910 one-token forwards against 0.93 above"),
    ("pt", ["1,00", "1,09", "0,97", "0,97", "0,93"], ["1,000", "1,102", "0,977", "0,910"],
     "Com 5 tokens ela marca 0,910 passagens de um token, contra 0,93 acima")])
def test_the_verify_charts_write_their_costs_as_the_figures_that_follow_from_them(lang, above, curve, said):
    """Read 55: the Verify cost chart of default-cpu-f32-packed wrote its measured ratios to three significant figures
    (0.973, 0.969, 0.931) in its hover and its table, beside the sentence above it ("0.93–1.09×") and results.md's
    Costs table (1.00 | 1.09 | 0.97 | 0.97 | 0.93), the verify costs the dashed Speedup vs K curve divides by: from
    the chart's 0.973 a reader got 1.63 at K = 2 where the curve reads 1.64. The dtype curves below it wrote "0.91"
    and "1.1" (1.102) beside their caption's "0.910", and the physical limit 3.07 under Chain vs tree follows from their
    0.977, not from 0.98. The first chart writes VERIFY_DIGITS decimals, the curves 3, the caption each as its chart."""
    from specviz.core.i18n import using
    from specviz.engine.theory import expected_tokens_per_step
    from specviz.labs.bench.summary import VERIFY_DIGITS

    run = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    with using(lang):
        first = charts.verify_cost_figure(run)
        table = plot.figure_table(first)
        assert list(table[table.columns[1]]) == above  # the measured series, after the tokens fed
        plot.localize(first)
        assert [row[-1] for row in first.data[0].customdata] == above  # the hover writes the table's figures
        curves = trees.dtype_curve_figure(run)
        written = plot.figure_table(curves)
        assert list(written[written.columns[1]])[:4] == curve
        assert said in trees.curves_caption(run)
    # the dashed curve's K = 2 point follows from the chart's 0.97 (3 tokens fed), as a reader recomputes it
    a = as_written(run.mean_alpha("eagle", 0.0), 3)
    c = as_written(run.costs["c"]["eagle"], small_digits(run.costs["c"]["eagle"]))
    verify = as_written(run.costs["verify"][2]["ratio"], VERIFY_DIGITS)
    assert view.number(expected_tokens_per_step(a, 2) / (2 * c + verify)) == "1.64"


@pytest.mark.parametrize("lang, said", [
    ("en", "The dashed line stops at K = 4, while the solid one runs to K = 8: this run measured the verify cost "
           "only up to 5 tokens fed, and verifying K drafts feeds K + 1 tokens to the pass."),
    ("pt", "A linha tracejada para em K = 4, enquanto a contínua vai até K = 8: esta execução mediu o custo de "
           "verificação só até 5 tokens fornecidos, e verificar K palpites fornece K + 1 tokens à passagem.")])
@pytest.mark.slow  # opens the lab
def test_the_speedup_vs_k_captions_say_where_the_dashed_curve_stops_and_why(lang, said):
    """Read 55: under the Speedup vs K chart the caption said "Dashed: the same with the measured verify cost" while
    the dashed curve ends at K = 4 (default-cpu-f32-packed measured the verify cost at 1 to 5 tokens fed) and the
    solid one runs to K = 8; nothing said why it stops. A caption now says where and why, from the run's own verify
    curve; a run that measured it far enough (default-cpu-ngram, 1 to 9 tokens fed) gets none."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["lang"] = lang
    at.run()
    _ok(at)
    assert at.selectbox(key="speedup_lab_source").value.startswith(results.HEADLINE_RUN)
    assert said in [c.value for c in at.caption]
    run = results.load_result(bench.BENCHMARKS_DIR / results.HEADLINE_RUN / "results.json")
    solid, dashed = charts.speedup_vs_k_figure(run, "eagle", 0.0).data[:2]
    assert (max(solid.x), max(dashed.x), dashed.line.dash) == (8, 4, "dash")
    ngram = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-ngram" / "results.json")
    assert max(charts.speedup_vs_k_figure(ngram, "ngram", 0.0).data[1].x) == 8
    assert charts.dashed_stop_caption(ngram, "ngram", 0.0) is None


def test_the_chain_vs_tree_limit_follows_from_the_dtype_curve_as_its_chart_writes_it():
    """Read 55: Chain vs tree gave default-cpu-f32-packed's chain of K = 2 a physical limit of 3.069× beside the dtype
    curve's hover and table, which write its 3 tokens at 0.977: 3 / 0.977 = 3.071. The limit now follows from the
    curve as the chart writes it (`trees.CURVE_DIGITS`), as results.md's follows from its table's 2 decimals."""
    from specviz.core.i18n import using

    result = results.load_result(bench.BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")
    curve = {p["n_tokens"]: p["ratio"] for p in result.verify_curves()[result.dtype or "float32"]}
    with using("en"):
        table = trees.shape_table(result, "eagle", 0.0)
        limits = dict(zip(table[table.columns[0]], table[trees.shape_names()["physical_limit"]]))
    assert view.number(curve[3], 3) == "0.977" and limits["a chain of K = 2"] == "3.071"
    assert limits["a chain of K = 4"] == view.number(5 / float(view.number(curve[5], 3)), 3)
