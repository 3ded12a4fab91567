"""The Theory explorer under AppTest, and its helpers (benchmark files, trace points, figures) without a browser."""

import json
import math
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz import theory
from specviz.examples import load_example
from specviz.ui import theory_points, theory_view

ROOT = Path(__file__).resolve().parent.parent
PAGE = str(ROOT / "pages" / "theory.py")  # AppTest resolves relative paths against this file


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_page_shows_the_formulas_and_reacts_to_the_sliders(tmp_path, monkeypatch):
    monkeypatch.setattr(theory_points, "BENCHMARKS_DIR", tmp_path / "none")  # no measured runs
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception and not at.error
    shown = metrics(at)
    assert shown["Tokens per step"] == "3.36"  # (1 - 0.8^5) / 0.2
    assert shown["Speedup"] == "2.80×"
    assert shown["Best K"] == "8"
    assert len(at.get("plotly_chart")) == 3
    assert any("No measured runs yet" in i.value for i in at.info)

    at.slider(key="theory_c").set_value(1.2).run()  # a draft slower than the target
    shown = metrics(at)
    assert shown["Best K"] == "0" and shown["Break-even α"] == "never"
    assert any("does not pay" in w.value for w in at.warning)

    at.slider(key="theory_c").set_value(0.0).run()
    at.slider(key="theory_alpha").set_value(1.0).run()
    at.slider(key="theory_k").set_value(0).run()
    assert metrics(at)["Speedup"] == "1.00×" and not at.exception


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
    assert "Trace: α estimate" in shown and "Trace: tokens per step (K = 4)" in shown
    assert len(at.get("plotly_chart")) == 4  # the predicted-vs-measured scatter joins
    assert any("1 benchmark runs" in c.value for c in at.caption)


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


def test_benchmark_loader_reads_bench_results_summaries(tmp_path):
    """`specviz bench` writes <out>/results.json with per-prompt cases and pooled summary rows."""
    run = tmp_path / "default-cpu-ngram"
    run.mkdir()
    row = {"proposer": "ngram", "policy": "constant", "k": 4, "temperature": 0.0, "alpha": 0.4, "c": 0.001,
           "speedup_vs_ar": 1.3}
    (run / "results.json").write_text(json.dumps({
        "cases": [{**row, "suite": "qa", "prompt_id": "q1"}],
        "summary": [{**row, "suite": "qa"}, {**row, "suite": "all"}, {**row, "suite": "all", "policy": "heuristic"}],
    }))
    points = theory_points.load_benchmark_points(tmp_path)
    assert len(points) == 1  # only the pooled, constant-K row
    assert points[0].measured_speedup == 1.3 and points[0].label == "ngram, T = 0.0"
    assert points[0].source == "default-cpu-ngram/results.json"


def test_trace_point_reads_alpha_k_and_c():
    trace = load_example("toy-draft")[0]
    point = theory_points.trace_point(trace)
    assert point.k == trace.settings["k"]
    assert point.alpha == pytest.approx(trace.mean_accept_prob)
    assert point.acceptance_rate <= point.alpha + 0.1
    assert point.c is None or point.c > 0
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


def test_a_slowdown_shows_as_a_red_change_pointing_down():
    from streamlit.proto.Metric_pb2 import Metric

    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.slider(key="theory_alpha").set_value(0.3).run()
    at.slider(key="theory_c").set_value(0.5).run()
    speedup = next(m for m in at.metric if m.label == "Speedup")
    assert float(speedup.value.rstrip("×")) < 1
    assert speedup.delta.startswith("-") and speedup.proto.color == Metric.MetricColor.RED
    assert speedup.proto.direction == Metric.MetricDirection.DOWN
    at.slider(key="theory_alpha").set_value(0.9).run()
    at.slider(key="theory_c").set_value(0.05).run()
    speedup = next(m for m in at.metric if m.label == "Speedup")
    assert speedup.delta.startswith("+") and speedup.proto.color == Metric.MetricColor.GREEN
