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

