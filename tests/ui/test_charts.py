"""Charts: titles, tables and cues (specviz.ui.common.charts)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_a_wrapped_title_never_breaks_inside_t_equals_a_value():
    """Read 47: the Speedup lab's titles broke as "…, T =" over "0" (and "T" over "= 0") on a phone; a setting's
    "name = value" stays on one line, joined by no-break spaces the browser shows as spaces."""
    import plotly.graph_objects as go

    from specviz.ui.common.charts import wrap_title

    for title in ("Speedup vs K — Draft model, T = 0.7, all categories",
                  "Aceleração em função de K — Modelo de rascunho, T = 0"):
        lines = wrap_title(go.Figure(layout=dict(title=title)), line=40).layout.title.text.split("<br>")
        assert len(lines) == 2
        assert not any(line.endswith(("=", "T")) or line.startswith(("=", "0")) for line in lines), lines
        assert " ".join(lines).replace("\u00a0", " ") == title


@pytest.mark.parametrize("lang, speedup, best", [("en", "2.801", "3.092"), ("pt", "2,801", "3,092")])
def test_a_charts_table_rounds_its_numbers_as_its_hover_does(lang, speedup, best):
    """Read 49: the Theory explorer's speedup-against-K chart hovers "K = 4: 2.801×" while its table read 2.8 (three
    significant figures), and the Exactness lab's histogram hovers 0.1255 where its table read 0.126. A table cell
    is written with the decimals its trace's hover uses, the best-K mark's too."""
    from specviz.core.i18n import using
    from specviz.ui.common.charts import figure_table
    from specviz.ui.theory.view import speedup_vs_k_figure

    with using(lang):
        table = figure_table(speedup_vs_k_figure(0.8, 0.05, 4))
    row = table[table["K"] == "4"].iloc[0]
    assert row.iloc[1] == speedup and row.iloc[3] == speedup  # the line and "your K = 4"
    assert table[table["K"] == "8"].iloc[0].iloc[2] == best  # "best K = 8"


def _cues(trace: dict) -> tuple:
    """What tells a series apart from the others besides its colour: its fill pattern, its dash and its marker."""
    mode = trace.get("mode") or "lines"
    marker, line = trace.get("marker") or {}, trace.get("line") or {}
    if trace["type"] == "bar":
        return ("bar", (marker.get("pattern") or {}).get("shape") or "")
    return ("scatter", (line.get("dash") or "solid") if "lines" in mode else "",
            (marker.get("symbol") or "circle") if "markers" in mode else "")


@pytest.mark.slow  # renders four pages
@pytest.mark.parametrize("page", ["pages/speedup_lab.py", "pages/sandbox.py", "pages/exactness.py",
                                  "pages/proposers.py"])
def test_no_two_series_of_a_charts_legend_differ_by_colour_alone(page):
    """Read 49: the Speedup lab's K = 2 and K = 4 lines (acceptance by position) and bars (speedup by category),
    the Sandbox's p and q bars, the Exactness lab's speculative and target-only bars and the Proposers page's three
    bars differed only by their colour, so a reader who cannot tell those colours apart could not match them to the
    legend. Every two series a chart's legend names differ by a hatch, a dash or a marker too."""
    import json

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / page), default_timeout=120).run()
    assert not at.exception
    charts = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    assert charts
    for spec in charts:
        if spec["layout"].get("showlegend") is False:
            continue
        named = {t["name"]: _cues(t) for t in spec["data"]
                 if t.get("name") and t.get("showlegend") is not False and t["type"] in ("bar", "scatter")}
        assert len(set(named.values())) == len(named), (spec["layout"].get("title"), named)


def _hover(trace, point) -> str:
    """A trace's hover at one point as Plotly fills it in, for a template that reads only customdata and bare x, y
    (a fixed-point format such as `%{y:.2f}` left in it is Plotly's d3 rounding, which this cannot show: it fails)."""
    import re

    template = trace.hovertemplate.split("<extra>")[0]
    assert not re.search(r"%\{[^}]*:[^}]*\}", template), template
    if isinstance(point, tuple):  # a heatmap's cell (row, column)
        row, column = point
        data, x, y = trace.customdata[row][column], trace.x[column], trace.y[row]
    else:
        data, x, y = trace.customdata[point], trace.x[point], trace.y[point]
    text = template.replace("%{x}", str(x)).replace("%{y}", str(y)).replace("%{customdata}", str(data))
    return re.sub(r"%\{customdata\[(\d+)\]\}", lambda m: str(data[int(m.group(1))]), text)


@pytest.mark.parametrize("lang, tie, low", [("en", "1.01", "0.13"), ("pt", "1,01", "0,13")])
def test_a_hover_rounds_a_tie_as_its_table_does(lang, tie, low):
    """Read 51: `%{y:.2f}` is Plotly's d3 format, which rounds the binary double: 1.005 hovered "1.00" and 0.125
    "0.12", while the chart's table (and every number on the page) rounds ties half away from zero, 1.01 and 0.13.
    A chart shown by `show` hovers each value as the table beside it writes it, a heatmap's cells too."""
    import plotly.graph_objects as go

    from specviz.core.i18n import using
    from specviz.ui.common.charts import figure_table, localize

    with using(lang):
        fig = go.Figure([go.Scatter(x=[1, 2], y=[1.005, 0.125], name="speedup", hovertemplate="K = %{x}: %{y:.2f}×"),
                         go.Heatmap(x=[0.5, 0.125], y=[1], z=[[0.1, 0.2]], customdata=[[1.005, 2.0]],
                                    hovertemplate="α = %{x:.2f}: %{customdata:.2f}×<extra></extra>")])
        cells = list(figure_table(fig)["speedup"])
        localize(fig)
    assert cells == [tie, low]
    assert [_hover(fig.data[0], i) for i in (0, 1)] == [f"K = 1: {tie}×", f"K = 2: {low}×"]
    point = tie[1]  # the decimal sign
    assert _hover(fig.data[1], (0, 0)) == f"α = 0{point}50: {tie}×"
    assert _hover(fig.data[1], (0, 1)) == f"α = {low}: 2{point}00×"


@pytest.mark.parametrize("lang, pair", [("en", "(4, 1.23)"), ("pt", "(4; 1,23)")])
def test_a_line_with_no_hover_of_its_own_hovers_as_its_table_writes_it(lang, pair):
    """Read 51: the Speedup lab's lines and bars had no hover template, so Plotly hovered its own format (1.234567,
    and "(4, 1,23)" in Portuguese, where the comma is also the decimal sign). They hover "(x, y)" as the table
    writes the values, the pair split by "; " in Portuguese."""
    import plotly.graph_objects as go

    from specviz.core.i18n import using
    from specviz.ui.common.charts import figure_table, localize

    with using(lang):
        fig = go.Figure(go.Scatter(x=[4], y=[1.234567], name="measured"))
        cell = figure_table(fig)["measured"][0]
        localize(fig)
    assert _hover(fig.data[0], 0) == pair and pair.endswith(cell + ")")


@pytest.mark.parametrize("lang, tie, nine, pair", [("en", "2.63", "1.13", "(3, 2.63)"),
                                                   ("pt", "2,63", "1,13", "(3; 2,63)")])
def test_a_value_without_hover_decimals_rounds_its_third_figure_half_up(lang, tie, nine, pair):
    """Read 51: a value with no hover decimals of its own is written to three significant figures, by the format
    spec ".3g", which rounds the binary double: 21 / 8 = 2.625 read "2.62" and 9 / 8 = 1.125 "1.12" in a chart's
    table and hover, where `number` (every other figure on a page) writes "2.63" and "1.13"."""
    import plotly.graph_objects as go

    from specviz.core.i18n import number, using
    from specviz.ui.common.charts import figure_table, localize

    with using(lang):
        fig = go.Figure(go.Scatter(x=[3, 9], y=[21 / 8, 9 / 8], name="speedup"))
        cells = list(figure_table(fig)["speedup"])
        localize(fig)
        written = [number(21 / 8, 2), number(9 / 8, 2)]
    assert cells == [tie, nine] == written
    assert _hover(fig.data[0], 0) == pair


@pytest.mark.parametrize("lang, negative, pair", [("en", "−0.124", "(2, −0.124)"), ("pt", "−0,124", "(2; −0,124)")])
def test_a_charts_negative_value_has_the_minus_sign_and_zero_no_sign(lang, negative, pair):
    """Read 51: a value written to three significant figures kept the format spec's hyphen ("-0.124") and a
    negative zero its sign ("-0"), in a chart's table and its hover, where `number` writes −0.124 and 0."""
    import plotly.graph_objects as go

    from specviz.core.i18n import number, using
    from specviz.ui.common.charts import figure_table, localize

    with using(lang):
        fig = go.Figure(go.Scatter(x=[1, 2], y=[-0.0, -0.1235], name="gain"))
        cells = list(figure_table(fig)["gain"])
        localize(fig)
        assert cells == ["0", negative] and negative == number(-0.1235, 3)
    assert _hover(fig.data[0], 1) == pair


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_this_machines_cost_chart_hovers_what_its_table_writes(lang):
    """Read 52: the Speedup lab's "This machine" chart hovered Plotly's three significant figures ("(3, 0.973)",
    "(33, 10)") beside a table of two decimals (0.97, 10.05), and its table left out the dotted line. Every point now
    hovers the table's cell, and the dotted line's n is a column of its own."""
    from specviz.core.i18n import using
    from specviz.labs.calibration import Calibration
    from specviz.ui.common import charts, this_machine

    cal = Calibration("default", "eagle", "bfloat16", "cpu", "packed", "AMD EPYC", (), True, "2.13.0", 2,
                      ((1, 0.040), (3, 0.03892), (33, 0.4019)), 0.003, 0.045, 0.0)
    with using(lang):
        fig = charts.localize(this_machine.cost_figure(cal))
        table = this_machine.cost_table(cal)
        measured = [row[-1] for row in fig.data[0].customdata]
        assert measured == list(table[fig.data[0].name])
        assert measured == (["1.00", "0.97", "10.05"] if lang == "en" else ["1,00", "0,97", "10,05"])
        dotted = list(table[this_machine._("n separate one-token forwards")])
        assert dotted == [str(n) for n in fig.data[1].y] == ["1", "3", "33"]


@pytest.mark.parametrize("lang, name", [("en", "measured here, in one-token forwards"),
                                        ("pt", "medido aqui, em passagens de um token")])
def test_this_machines_cost_chart_names_its_measured_series_as_its_table_does(lang, name):
    """Read 54: the "This machine" cost chart's legend (and hover) said "measured here" for the series its table's
    column called "in one-token forwards": one series, two names. Legend, hover and column now share one name."""
    from specviz.core.i18n import using
    from specviz.labs.calibration import Calibration
    from specviz.ui.common import charts, this_machine

    cal = Calibration("default", "eagle", "bfloat16", "cpu", "packed", "AMD EPYC", (), True, "2.13.0", 2,
                      ((1, 0.040), (3, 0.03892), (33, 0.4019)), 0.003, 0.045, 0.0)
    with using(lang):
        fig = charts.localize(this_machine.cost_figure(cal))
        table = this_machine.cost_table(cal)
    assert fig.data[0].name == name and name in table.columns
    assert fig.data[0].hovertemplate.endswith("<extra>" + name + "</extra>")
    assert [c for c in table.columns if c not in {trace.name for trace in fig.data}] == [
        "tokens fed" if lang == "en" else "tokens fornecidos", "milliseconds" if lang == "en" else "milissegundos"]


def test_a_value_just_above_1_keeps_off_1_in_a_charts_table_and_the_note_says_so():
    """Read 55: a value just below 1 got more figures than three (0.99998, not "1", the point mass), but one just
    above it, a speedup of 1.0004, still read "1", a tie; and the rounding note said "three significant figures"
    beside those longer values. Above 1 a value now gets the figures that keep it off 1 (1.0004, 1.004), exact 1
    and float noise stay "1", and the note says a value near 1 gets more, in both languages."""
    import plotly.graph_objects as go

    from specviz.core.i18n import using
    from specviz.ui.common.charts import figure_table, rounded_note

    fig = go.Figure(go.Bar(x=["a", "b", "c", "d", "e"], y=[1.0004, 1.004, 1.0, 1 + 1e-15, 0.99998]))
    assert figure_table(fig).iloc[:, 1].tolist() == ["1.0004", "1.004", "1", "1", "0.99998"]
    with using("pt"):
        assert figure_table(fig).iloc[:, 1].tolist() == ["1,0004", "1,004", "1", "1", "0,99998"]
    note = rounded_note(go.Figure(go.Bar(x=[1, 2], y=[0.3495, 0.6505])))
    assert note.startswith("The values are rounded to three significant figures (more where a value near 1 would "
                           "otherwise be written 1), so a column")
    with using("pt"):
        assert rounded_note(go.Figure(go.Bar(x=[1, 2], y=[0.3495, 0.6505]))).startswith(
            "Os valores estão arredondados para três algarismos significativos (mais quando um valor perto de 1 "
            "seria, senão, escrito 1), então")
