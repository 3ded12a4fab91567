"""Read 55: one name per quantity on the Serving page and the Theory explorer's measured vLLM points."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from specviz.core.i18n import using
from specviz.labs import roofline
from specviz.serving.results import PayShape
from specviz.ui.common import roofline as serving_roofline
from specviz.ui.serving.charts import speedup_figure, sweep_figure
from specviz.ui.serving.sweep import verdict

NAMES = {"en": ("concurrent streams", "copy prompt", "open prompt"),
         "pt": ("fluxos simultâneos", "prompt de cópia", "prompt aberto")}


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_sweep_levels_and_prompts_have_one_name_on_both_pages(lang):
    """The Serving page's axes, hovers and verdicts said "concurrent streams" and "open prompt"; the Theory chart's
    points over the same sweep said "concurrent requests" and "open question"; Portuguese legends read "prompt copy",
    "prompt open", the JSON's keys. Each is now named once, in the reader's language."""
    streams, copy, open_ = NAMES[lang]
    result = serving_roofline.committed()
    with using(lang):
        serving = speedup_figure(result)
        sweep = sweep_figure(result.levels, "open")
        theory, caption = serving_roofline.on_chart(go.Figure(), "smollm2-ngram",
                                                    roofline.hardware_presets()["measured"], result)
        said = verdict("ngram", "open", PayShape.of([(1, 1.2), (4, 1.1), (16, 0.9)]))
    legend = [t.name for t in serving.data]
    assert any(name.endswith(copy) for name in legend) and any(name.endswith(open_) for name in legend), legend
    assert open_ in sweep.layout.title.text and open_ in said and streams in said
    points = [t for t in theory.data if t.mode == "markers+lines"]
    assert sorted(t.name.split(", ")[-1] for t in points) == sorted([copy, open_])
    assert all(row[0].endswith(streams) for t in points for row in t.customdata[1:])  # beyond the first level, 1
    assert streams in caption
    hovers = [t.hovertemplate for t in theory.data]
    for text in [*legend, sweep.layout.title.text, said, caption, *(t.name for t in theory.data), *hovers]:
        assert not any(word in text for word in ("concurrent request", "requisições simultâneas", "requisição por",
                                                  "request at a time", "question", "pergunta", "prompt open",
                                                  "prompt copy", "At one request", "Com uma requisição")), text


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_live_charts_table_heads_its_columns_with_the_panels_titles(lang):
    """The live chart's panels were titled "generated tokens per second" and "steps with drafts per second" while its
    table (the chart's text alternative) headed the same numbers "tokens/s" and "steps with drafts/s"."""
    from specviz.serving.metrics import Delta, Scrape
    from specviz.ui.common.charts import figure_table
    from specviz.ui.serving.charts import live_figure

    scrapes = [Scrape(at=2.0 * i, speculating=True, drafts=10 * i, draft_tokens=40 * i, accepted=20 * i,
                      generation_tokens=30 * i, accepted_per_position=(8 * i, 6 * i, 4 * i, 2 * i)) for i in range(3)]
    with using(lang):
        fig = live_figure([Delta.between(a, b) for a, b in zip(scrapes, scrapes[1:])], 0.0)
        table = figure_table(fig)
    titles = [a.text for a in fig.layout.annotations]
    assert [t.name for t in fig.data] == titles and len(titles) == 4
    assert all(title in table.columns for title in titles), list(table.columns)
    assert ("generated tokens per second" if lang == "en" else "tokens gerados por segundo") in titles


def test_the_level_tables_name_a_prompt_in_the_readers_language():
    """Read 55: the level table's prompt column read "copy", "open" (the JSON's keys) on the Portuguese page."""
    from specviz.ui.serving.sweep import level_table

    result = serving_roofline.committed()
    with using("pt"):
        cells = set(level_table(result.levels)["prompt"])
    assert cells == {"de cópia", "aberto"}, cells


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_sweeps_progress_and_cut_short_note_name_a_prompt_as_the_page_does(lang, monkeypatch):
    """Read 55: `serve sweep`'s progress lines and the note on what the time cap cut named a prompt by its JSON key
    ("copy: 2 requests, 1 at a time", "copy at 1 stream"; pt "copy com 1 fluxo"), where the page says "copy prompt"
    ("prompt de cópia"). Both now use `prompt_name`."""
    from specviz.serving import load

    said: list[str] = []
    monkeypatch.setattr(load, "_scrape", lambda base, clock: None)
    monkeypatch.setattr(load, "_one_request", lambda *args: load.RequestRecord(0.1, 4))
    plan = load.LoadPlan(prompts=(load.Prompt("copy", "Repeat: a b c"),), levels=(1,), requests=2, max_tokens=4)
    with using(lang):
        levels = load._sweep("http://127.0.0.1:1", plan, "ngram", "m", lambda: 0.0, said.append)
        levels[0].stopped_early = True
        note = load.cap_note(levels, ["copy", "open"], (1,), 180.0)
    _, copy, open_ = NAMES[lang]
    assert said == [{"en": f"{copy}: 2 requests, 1 at a time", "pt": f"{copy}: 2 requisições, 1 por vez"}[lang]]
    wanted = {"en": (f"the requests that finished: {copy} at 1 stream. One level was never started: {open_} at 1 "
                     "stream."),
              "pt": (f"só as requisições que terminaram: {copy} com 1 fluxo. Um nível nunca começou: {open_} "
                     "com 1 fluxo.")}[lang]
    assert note.endswith(wanted), note
