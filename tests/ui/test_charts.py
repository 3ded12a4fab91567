

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
