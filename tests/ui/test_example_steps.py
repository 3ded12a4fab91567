"""Every shipped example, as a learner steps through it in the Playground (read 45): at its first, a middle and its
last step, in English and in Portuguese, the step panel's headline, KV-cache strip, chip tooltips and charts say
the numbers its trace recorded, and the two languages show the same numbers."""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz.engine.proposers import registry
from specviz.engine.trace import point_mass_pq
from specviz.labs.examples import list_examples, load_example
from specviz.ui.common.step_view import accepted_count_text
from specviz.ui.common.tokens import decision_numbers

pytestmark = pytest.mark.slow  # 8 examples × 3 steps × 2 languages: about 40 s

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "playground.py")
EXAMPLES = [e.name for e in list_examples()]


def opened(name: str, step: int, lang: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    for key, value in dict(source="example", example=name, step=str(step), lang=lang).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception and not at.error, (name, step, lang)
    return at


def titles(body: str) -> list[str]:
    return [html.unescape(t) for t in re.findall(r'title="([^"]*)"', body)]


def chart_words(spec: str) -> str:
    """What a reader sees of a chart: its title, marks and hovers (not its axis ranges)."""
    fig = json.loads(spec)
    words = [fig["layout"].get("title", {}).get("text", "")]
    words += [a.get("text", "") for a in fig["layout"].get("annotations", [])]
    for trace in fig["data"]:
        words += [str(trace.get("hovertemplate", "")), json.dumps(trace.get("customdata") or [], ensure_ascii=False)]
    return " ".join(words)


def shown_numbers(at: AppTest, decimal_comma: bool) -> Counter:
    """Every number the page shows in words, charts and tables, written with a decimal point. Markdown is read as
    it renders: Read 48 found the settings caption's escaped apostrophe ("the target&#x27;s first 7 layers", the
    layer-skip menu name) counted as a number 27 the English page showed and the Portuguese one did not."""
    texts = [html.unescape(m.value) for m in at.markdown] + [html.unescape(c.value) for c in at.caption]
    texts += [m.value for m in at.metric]
    texts += [html.unescape(h.proto.body) for h in at.get("html") if "querySelector" not in h.proto.body]
    texts += [chart_words(c.proto.spec) for c in at.get("plotly_chart")]
    texts += [t.value.reset_index().to_csv(sep="|") for t in at.table]
    text = re.sub(r"(?<=\d),(?=\d)", "." if decimal_comma else "§", " ".join(texts))
    return Counter(re.findall(r"\d+(?:\.\d+)?(?:e-\d+)?", text))


def test_every_shipped_example_is_in_the_list():
    assert len(EXAMPLES) >= 8 and "smollm-medusa-greedy" in EXAMPLES


@pytest.mark.parametrize("name", EXAMPLES)
def test_an_examples_steps_show_their_recorded_numbers_in_both_languages(name):
    spec, _ = load_example(name)
    n = len(spec.steps)
    steps = sorted({1, (n + 1) // 2, n})
    assert len(steps) == 3
    for number in steps:
        step = spec.steps[number - 1]
        en, pt = opened(name, number, "en"), opened(name, number, "pt")
        assert shown_numbers(en, False) == shown_numbers(pt, True), (name, number)
        head = next(m.value for m in en.markdown if m.value.startswith("##### Step"))
        assert re.search(rf"\b{len(step.emitted)} new tokens?( for one target forward pass| on its own)", head), head
        if step.decisions:
            assert head.split(" · ")[1].startswith(f"Drafted {step.n_drafted} token"), head
            assert f"{accepted_count_text(step.n_accepted)}," in head or f"kept {step.n_accepted} " in head, head
        bodies = [h.proto.body for h in en.get("html")]
        strip = " ".join(" ".join(re.sub(r"<[^>]+>", " ", html.unescape(b)).split())
                         for b in bodies if "cached before the step" in b)
        peak = step.target_cache_before + 1 + step.n_drafted
        after = f"{step.target_cache_after} (peak {peak})" if peak > step.target_cache_after else \
            str(step.target_cache_after)
        assert f"Target {step.target_cache_before} → {after}" in strip, strip
        if step.draft_cache_before is not None:
            assert f"Draft {step.draft_cache_before} → {step.draft_cache_after}" in strip, strip
        chips = [titles(b) for b in bodies if titles(b) and all(t.startswith("draft #") and "hidden" not in t
                                                                 for t in titles(b))]
        assert len(chips[-1] if chips else []) == len(step.decisions), (name, number)
        for d, tip in zip(step.decisions, chips[-1] if chips else []):
            shown = decision_numbers(d)  # read 46: 0.9997 against 1 is no "1.000 = 1.000"; one precision (read 47)
            # read 53: a point-mass p or q (a greedy one, a lookup's copy) reads "1 (point mass)", as trees write it
            p_mass, q_mass = point_mass_pq(d)
            q_line = ("q = 1, a point mass (copied from the context: no model drafted it)"
                      if q_mass and registry.copies(step.proposer) else
                      f"q (draft) = {'1 (point mass)' if q_mass else shown.q}")
            assert f"p (target) = {'1 (point mass)' if p_mass else shown.p}\n{q_line}" in tip, tip
            if d.reached:
                assert f"u = {shown.u} {'<' if d.accepted else '≥'} {shown.chance}" in tip, tip
        charts = {json.loads(c.proto.spec)["layout"]["title"]["text"].split(":")[0]: json.loads(c.proto.spec)
                  for c in en.get("plotly_chart")}
        if step.decisions:
            bars = charts["Every draft"]["data"][0]["y"]
            assert bars == [d.accept_prob if d.reached else 0.0 for d in step.decisions], (name, number)
        last = step.emitted[-1]
        if last.kind == step.correction_kind:  # the step's own token was added: its chart shows where it came from
            kind = {"recovered": "Recovered ↻", "bonus": "Bonus ★", "target": "Target •"}[last.kind.value]
            assert charts[kind]["data"][0]["y"] == [t.prob for t in step.correction_top], (name, number)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_kv_caption_says_the_grey_cell_holds_every_slot_cached_before(lang):
    """Read 47: the KV-cache box said "one slot per token below" over a strip that draws all 84 slots the default
    example cached before its first step as one grey cell (and a run past MAX_CELLS as one counted cell)."""
    from specviz.ui.common.step_view import MAX_CELLS

    spec, _ = load_example(EXAMPLES[0])
    at = opened(EXAMPLES[0], 1, lang)
    strip = next(h.proto.body for h in at.get("html") if "cached before the step" in h.proto.body
                 or "no cache antes do passo" in h.proto.body)
    grey = [t for t in titles(strip) if t.startswith(f"{spec.steps[0].target_cache_before} ")]
    assert spec.steps[0].target_cache_before > 1 and len(grey) == 1, grey  # many slots, one cell
    (caption,) = [c.value for c in at.caption if c.value.startswith(("**KV caches**", "**Caches KV**"))]
    words = {"en": ("one slot per token below", "one grey cell stands for all the slots cached before the step"),
             "pt": ("uma posição por token abaixo", "uma célula cinza representa todas as posições que já estavam")}
    assert words[lang][0] not in caption and words[lang][1] in caption, caption
    assert f"more than {MAX_CELLS} " in caption or f"mais de {MAX_CELLS} " in caption, caption


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_greedy_examples_comparison_says_its_target_only_run_was_recorded(lang):
    """Read 48: under a greedy example the comparison's caption asked the reader to "Run target-only decoding with
    the same settings to check", with no button to do it: the verdict compares the run recorded with the example."""
    name = "smollm-eagle-greedy"
    assert load_example(name)[1] is not None  # the recorded target-only run the caption names
    at = opened(name, 1, lang)
    captions = [c.value for c in at.caption]
    ask = {"en": "Run target-only decoding with the same settings", "pt": "Rode a decodificação só com o alvo"}[lang]
    says = {"en": "recorded together with a target-only run of the same prompt and settings",
            "pt": "gravado junto com uma execução só com o alvo do mesmo prompt"}[lang]
    assert not any(ask in c for c in captions), captions
    assert sum(says in c and ".baseline.json" in c for c in captions) == 1, captions
    assert not [b for b in at.button if b.key == "playground_compare_run"]
