"""The Overview page under AppTest (on its own and as the app's landing page) and its token-by-token player."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz.engine.trace import EmittedToken, Step, Trace
from specviz.labs.examples import load_example
from specviz.teach.pagemap import PAGE_FILES
from specviz.ui.overview import view as overview_view
from specviz.ui.overview.view import LOOP_DOT, example_name, play_frames

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / next(path for path in PAGE_FILES if path.endswith("/overview.py")))
TITLE = "Speculative decoding, step by step"


@pytest.fixture
def fast_play(monkeypatch):
    monkeypatch.setattr(overview_view, "PLAY_SECONDS", 0.2)
    monkeypatch.chdir(ROOT)


def _kinds(frame_html: str) -> list[str]:
    return re.findall(r'data-kind="(\w+)"', frame_html)


def test_overview_explains_the_loop_and_the_rule(fast_play):
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.run()
    assert not at.exception and not at.error
    assert at.title[0].value == TITLE
    text = " ".join(m.value for m in at.markdown)
    assert "memory-bound" in text
    # every term is explained in the sentence where it first appears
    assert "**forward pass**: one run of the whole network, which reads **all of its weights**" in text
    assert "*memory-bound*: the time goes into moving the weights from memory" in text
    assert "norm(max(0, p − q))**: the target's probabilities minus the draft's" in text
    assert "**p = target**" in text and "**q = draft**" in text and "min(1, p(x) / q(x))" in text
    assert "norm(max(0, p − q))" in text
    # read 36: "follows *exactly* the target's distribution" had no word on rounding anywhere on the page
    assert "*exactly* the target's distribution p" in text
    assert "That holds in exact arithmetic; a computer rounds" in text
    (chart,) = at.get("graphviz_chart")
    for stage in ("1. propose", "2. verify", "3. accept / reject", "4. correct"):
        assert stage in chart.proto.spec
    # outside the app's navigation the links degrade to captions naming every destination
    captions = " ".join(c.value for c in at.caption)
    for page in ("Playground", "Timeline & race", "Exactness lab", "Theory explorer", "Quiz"):
        assert page in captions


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_play_button_plays_the_example_to_the_end(fast_play):
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.run()
    assert any(c.value.startswith("Press ▶ Play the example: ") for c in at.caption)  # the button as it reads
    at.button(key="overview_play").click().run()
    assert not at.exception
    spec, _ = load_example(example_name())
    done = f"Done: {spec.num_tokens} tokens in {spec.num_steps} steps"
    assert any(c.value.startswith(done) for c in at.caption)
    # the final frame stays on screen after the animation, and again on the next rerun
    frames = [h for h in at.get("html") if "sv-play" in h.proto.body]
    assert len(frames) == 1 and _kinds(frames[0].proto.body) == _kinds(play_frames(spec)[-1].html)
    at.run()
    assert any(c.value.startswith(done) for c in at.caption)


@pytest.mark.slow  # over 0.4 s on 2 cores (read 51's --durations): make check stays under a minute
def test_the_legend_draws_a_kept_draft_as_the_played_output_does(fast_play):
    """Read 49: the legend above the player read "✓ tok accepted" while the played output's kept drafts are green
    chips with no ✓ (the Playground's note says so; the Overview has none). The legend's accepted chip has no ✓ now;
    the other kinds keep their marks."""
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.run()
    at.button(key="overview_play").click().run()
    bodies = [h.proto.body for h in at.get("html")]
    legend = next(b for b in bodies if "recovered</span>" in b and "sv-play" not in b)
    played = next(b for b in bodies if "sv-play" in b)
    shown = [re.sub(r' title="[^"]*"', "", b) for b in (legend, played)]  # what is drawn, not the hover texts
    assert "accepted" in _kinds(played) and "✓" not in shown[1]  # the output: kept drafts unmarked
    assert "✓" not in shown[0] and all(mark in shown[0] for mark in ("✗", "↻", "★", "•"))


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_overview_is_the_apps_landing_page(fast_play):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    at.run()
    assert not at.exception
    assert at.title[0].value == TITLE


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_frames_grow_one_chip_at_a_time_and_end_with_the_whole_output():
    spec, _ = load_example(example_name())
    frames = play_frames(spec)
    assert _kinds(frames[0].html) == []
    counts = [len(_kinds(f.html)) for f in frames]
    assert all(b - a in (0, 1) for a, b in zip(counts, counts[1:]))  # one token at a time
    final = _kinds(frames[-1].html)
    rejected = sum(1 for s in spec.steps for d in s.decisions if d.reached and not d.accepted)
    assert final.count("rejected") == rejected  # each step's first rejection is shown, struck through
    assert len(final) - rejected == spec.num_tokens  # and every output token is there
    assert [k for k in final if k != "rejected"] == [t.kind for s in spec.steps for t in s.emitted]


def test_example_is_real_text_with_accepted_drafts():
    spec, _ = load_example(example_name())
    assert spec.num_accepted >= 10
    assert any(t.kind in ("recovered", "bonus") for s in spec.steps for t in s.emitted)


def test_model_text_is_escaped_in_the_player():
    evil = "<img src=x onerror=alert(1)>"
    step = Step(0, 3, 0, "none", [], [EmittedToken(5, evil, "target"), EmittedToken(6, "a b\n", "target")])
    trace = Trace("speculative", {}, [1, 2, 3], [5, 6], [step])
    last = play_frames(trace)[-1].html
    assert "<img" not in last and html.escape("<img") in last
    assert "a␣b↵" in last  # whitespace made visible


def test_the_diagram_is_self_contained():
    assert "http" not in LOOP_DOT and "image" not in LOOP_DOT.lower()


def test_the_played_example_drafts_words_not_chat_template_markers():
    """A beginner's first struck-through chip should be a word, not <|im_start|> copied from the chat template."""
    spec, _ = load_example(example_name())
    drafts = [d.text for s in spec.steps for d in s.decisions]
    assert drafts, "the example drafts nothing: the check below would pass on no drafts"
    assert not any("<|" in text for text in drafts)


def test_this_machines_line_names_the_shape_of_each_prediction(monkeypatch):
    """31st read: the line said "predicted 2.14× ... greedy (a tree of 8 nodes, ...) and 1.57× at T = 0.7", and the
    1.57× was a chain of K = 2's (the best shape differs with T): each figure now comes with its own shape."""
    from types import SimpleNamespace

    from specviz.ui.common import this_machine

    best = {0.0: SimpleNamespace(vs_generate=2.14, shape=SimpleNamespace(describe=lambda: "a tree of 8 nodes")),
            0.7: SimpleNamespace(vs_generate=1.57, shape=SimpleNamespace(describe=lambda: "a chain of K = 2"))}
    monkeypatch.setattr(this_machine, "best_here", lambda cal, temperature: best[temperature])
    cal = SimpleNamespace(timed_on="AMD EPYC", dtype="bfloat16", measured_at="2026-12-05T10:00:00Z")
    line = this_machine.one_line(cal)
    assert "2.14× the speed of model.generate greedy (a tree of 8 nodes)" in line
    assert "1.57× at T = 0.7 (a chain of K = 2)" in line


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_gpus_costs_are_said_to_be_the_gpus_not_the_host_cpus(monkeypatch, lang):
    """Read 48: the This machine panel and line named the host CPU (and its bf16 instructions) above costs timed on
    cuda:0, as `calibrate` did; both name the device the costs were timed on now, the host after it."""
    from types import SimpleNamespace

    from specviz.core.i18n import using
    from specviz.labs.calibration import Calibration
    from specviz.ui.common import this_machine

    gpu = Calibration("default", "eagle", "bfloat16", "cuda:0", "stock", "AMD EPYC", (), True, "2.13.0", 16,
                      ((1, 0.02),), 0.002, 0.03, 0.0, measured_at="2026-12-05T10:00:00Z")
    cpu = Calibration("default", "eagle", "float32", "cpu", "packed", "AMD EPYC", (), True, "2.13.0", 2,
                      ((1, 0.02),), 0.002, 0.03, 0.0, measured_at="2026-12-05T10:00:00Z")
    monkeypatch.setattr(this_machine, "best_here", lambda cal, temperature: SimpleNamespace(
        vs_generate=1.5, shape=SimpleNamespace(describe=lambda: "a chain of K = 2")))
    with using(lang):
        assert this_machine.measured_heading(gpu).startswith(
            {"en": "Measured on **cuda:0** (host: AMD EPYC",
             "pt": "Medido em **cuda:0** (máquina hospedeira: AMD EPYC"}[lang])
        assert this_machine.one_line(gpu).startswith("**This machine** (cuda:0, bfloat16" if lang == "en" else
                                                     "**Esta máquina** (cuda:0, bfloat16")
        assert "cuda" not in this_machine.measured_heading(cpu) and "AMD EPYC" in this_machine.measured_heading(cpu)


def test_the_unmeasured_line_names_the_pair_the_speedup_lab_measures():
    """Read 44 (front): the Overview's line said the Speedup lab measures "four short runs of the loaded pair", but its
    button always calibrates the default pair (`this_machine.PAIR`) with its own drafter, whatever pair a page loaded
    (the toy pair, a catalog pair): it now names that pair, in both languages."""
    from specviz.core.i18n import using
    from specviz.labs.calibration import PROBES
    from specviz.models.catalog import load_catalog
    from specviz.ui.common import this_machine

    assert this_machine.PAIR == "default" and len(PROBES) * 2 == 4  # a chain and a tree, greedy and at T = 0.7
    assert load_catalog()["default"].proposer == "eagle"
    line = this_machine.one_line(None)
    assert "loaded pair" not in line
    assert "four short runs of the default pair, SmolLM2-135M with its EAGLE drafter;" in line
    with using("pt"):
        assert "quatro execuções curtas do par padrão, o SmolLM2-135M com o seu rascunhador EAGLE;" in \
            this_machine.one_line(None)


def test_the_overview_does_not_promise_one_measurement_where_a_busy_one_is_not_kept():
    """Read 44 (review): 218092cf stopped the CLI saying it measures "once" (a busy machine's calibration is not
    cached, so the next run measures again), but the Overview's note still said "the Speedup lab measures it once"
    / "a mede uma vez". It now says the measurement is kept if the machine was quiet, in both languages."""
    from specviz.core.i18n import using
    from specviz.ui.common import this_machine

    line = this_machine.one_line(None)
    assert "measures it once" not in line and "kept if the machine was quiet)" in line, line
    with using("pt"):
        line = this_machine.one_line(None)
    assert "uma vez" not in line and "a medição fica guardada se a máquina estiver ociosa)" in line, line


def test_overview_names_the_kernels_of_each_verify_curve_it_quotes(fast_play):
    """Read 42: "it depends on the chip and the kernels" named the kernels of the float32 run (onednn-packed) but not
    those of the bfloat16 one, which predates the packing and ran PyTorch's stock kernels."""
    from specviz.labs.bench import quoted
    from specviz.labs.bench.report import ran_stock_kernels

    assert ran_stock_kernels(quoted.result("default-cpu-bf16-tree")["machine"])
    assert "oneDNN packed-weight kernels" in quoted.machine("default-cpu-f32-packed")
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.run()
    text = " ".join(m.value for m in at.markdown)
    # named once, by the machine line ("(2 cores, stock kernels)"): the sentence also said "in bfloat16 with
    # PyTorch's stock kernels" after it, the kernels twice in one clause (second review of the 43rd read)
    assert "(2 cores, stock kernels) of a committed benchmark, in bfloat16, scoring 2 to 5 tokens" in text
    assert text.count("stock kernels") == 1


def test_every_page_names_a_pre_packing_cpu_runs_kernels_as_stock():
    """Read 42 (README and Overview): `quoted.machine_text`, the one place every page words a run's machine, named a
    packed run's kernels but said nothing for a CPU run from before specviz packed them, so a stock-kernel curve and a
    packed one read as if from one kind of run. It now says "stock kernels" for those, in both languages."""
    from specviz.core.i18n import using
    from specviz.labs.bench import quoted
    from specviz.labs.bench.report import ran_stock_kernels

    record = quoted.result("default-cpu-drafts")["machine"]
    assert ran_stock_kernels(record) and "kernels" not in record
    assert quoted.machine("default-cpu-drafts").endswith("(2 cores, stock kernels)")
    with using("pt"):
        assert quoted.machine("default-cpu-drafts").endswith("(2 núcleos, kernels padrão)")
    assert quoted.machine("default-cpu-f32-packed").endswith("oneDNN packed-weight kernels)")


def test_the_portuguese_overview_calls_stock_kernels_by_one_portuguese_name(fast_play):
    """Read 43 (front): in Portuguese the machine of the bfloat16 curve read "(2 núcleos, kernels stock)", an English
    word, in the very sentence that calls the same kernels "os kernels padrão do PyTorch": two names for one thing."""
    from specviz.core.i18n import using

    with using("pt"):
        at = AppTest.from_file(PAGE, default_timeout=30)
        at.query_params["lang"] = "pt"
        at.run()
    text = " ".join(m.value for m in at.markdown)
    assert "(2 núcleos, kernels padrão) de um benchmark registrado, em bfloat16, avaliar de 2 a 5 tokens" in text
    assert text.count("kernels padrão") == 1  # once, as in English (second review of the 43rd read)
    assert "stock" not in text


def test_the_portuguese_overview_gives_each_cpu_the_article_the_readme_and_the_chip_after_it_take(fast_play):
    """Read 44 (front): the Portuguese intro said "na Intel(R) Xeon(R) Processor" and "na AMD EPYC" (the feminine
    article, which before "Intel" reads as "at the company Intel"), then "nesse mesmo chip" for the second; the README
    says "no AMD EPYC", the processor's article, and so does the chip that follows."""
    from specviz.core.i18n import using
    from specviz.labs.bench import quoted

    with using("pt"):
        at = AppTest.from_file(PAGE, default_timeout=30)
        at.query_params["lang"] = "pt"
        at.run()
        xeon, epyc = quoted.machine("default-cpu-bf16-tree"), quoted.machine("default-cpu-f32-packed")
    text = " ".join(m.value for m in at.markdown)
    assert f"dos kernels: no {xeon} de um benchmark registrado" in text
    assert f"; no {epyc} de outro, em float32" in text and "nesse mesmo chip" in text
    assert f"na {xeon}" not in text and f"na {epyc}" not in text


def test_app_md_dates_the_portuguese_overview_shot_by_words_the_page_says_today(fast_play):
    """Read 44 (review): pt-overview.png was retaken (9bc06266) before two later fixes of the same page, so it showed
    "na Intel(R) Xeon(R) Processor" and "quatro execuções curtas do par carregado", the claim c6236786 corrected. It is
    retaken again, and docs/app.md names the words the shot was taken once the page said: each is on today's page."""
    from specviz.core.i18n import using

    doc = " ".join((ROOT / "docs" / "app.md").read_text(encoding="utf-8").split())
    said = re.search(r"`pt-overview\.png`\) is `/\?lang=pt` at 1400×900, retaken on [0-9-]+ with .*? once the page "
                     r"said (.*?)\. ", doc)
    assert said, "docs/app.md no longer says when the Portuguese Overview shot was taken"
    quoted = re.findall(r'"([^"]+)"', said.group(1))
    assert {"no Intel(R) Xeon(R) Processor", "do par padrão, o SmolLM2-135M"} <= set(quoted), quoted
    with using("pt"):
        at = AppTest.from_file(PAGE, default_timeout=30)
        at.query_params["lang"] = "pt"
        at.run()
    page = " ".join([*(m.value for m in at.markdown), *(i.value for i in at.info),
                     *(h.value for h in at.subheader)]).replace("\\", "")
    assert [words for words in quoted if words not in page] == [], page[:300]


def test_the_portuguese_overview_calls_the_loop_what_the_readme_and_the_lessons_do(fast_play):
    """Read 43 (front): the Overview's heading said "O ciclo" where the README's pages table, the app tour and lesson
    2's title ("O laço: palpites baratos, ...") call the propose → verify → accept/reject → correct loop "o laço"."""
    from specviz.core.i18n import using

    readme = (ROOT / "README.pt-BR.md").read_text(encoding="utf-8")
    assert "o laço propor → verificar → aceitar/rejeitar → corrigir" in readme
    with using("pt"):
        at = AppTest.from_file(PAGE, default_timeout=30)
        at.query_params["lang"] = "pt"
        at.run()
    assert "O laço" in [h.value for h in at.subheader]


def test_the_exactness_link_promises_a_comparison_not_a_proof_of_exactness(fast_play):
    """Read 43 (front): "Exactness lab: check that the output distribution is exactly the target's" promised what no
    finite sample can show, on a page whose rule paragraph says rounding can flip a near-tie and whose Exactness lab
    compares samples with the target's probabilities (a chi-square test, TV distances). The link now says that.
    Read 50: "the target's exact probabilities" called p exact, a word for what a rule preserves; p is what the
    target computes."""
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.run()
    (link,) = [c.value for c in at.caption if c.value.startswith("Exactness lab:")]
    assert link == ("Exactness lab: sample speculative and target-only output many times and compare both with the "
                    "probabilities the target computes")
    assert "exact" not in link


@pytest.mark.parametrize("lang, said", [
    ("en", "not counting the pass over the prompt both make first."),
    ("pt", "sem contar a passagem sobre o prompt que as duas decodificações fazem antes.")])
@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_done_caption_counts_passes_alike_and_says_the_prompts_pass_is_left_out(lang, said):
    """43rd read (front door): "48 tokens in 25 steps, that is 25 target forward passes instead of 48" left out the
    pass over the prompt both decodings make first (`TargetCache.prefill`; the first step feeds the prompt's last
    token), so a reader counting every pass would find 26 against 49. The caption now says what it leaves out, as
    the Playground's last message does."""
    from specviz.core.i18n import _, using
    from specviz.ui.playground.player import TEXT

    trace, _base = load_example(example_name())
    with using(lang):
        last = play_frames(trace)[-1].caption
        playground = _(TEXT["done"], tokens="1", passes="1", n="1", stop="")
    assert said in last and said.split(" que")[0] in playground
    assert f"{trace.num_steps}" in last and f"{trace.num_tokens}" in last


@pytest.mark.parametrize("lang, said", [
    ("en", "Recorded in float32 on AMD EPYC (2 cores, oneDNN packed-weight kernels); another number format or "
           "machine can compute slightly different numbers and give other counts."),
    ("pt", "Gravado em float32 numa máquina AMD EPYC (2 núcleos, kernels do oneDNN com pesos pré-empacotados); outro "
           "formato numérico ou outra máquina pode calcular números um pouco diferentes e dar outras contagens.")])
def test_the_done_caption_names_the_dtype_and_machine_its_counts_come_from(fast_play, lang, said):
    """Read 55: "Done: 48 tokens in 25 steps" came from a float32 trace recorded on a 2-core AMD EPYC (its meta says
    so) but the caption named neither, while a bfloat16 run can keep other drafts and give other counts. The caption
    now names both as the trace records them; an older trace without a machine says only that it ran on a CPU."""
    import dataclasses

    from specviz.core.i18n import using
    from specviz.ui.overview.view import recorded_counts

    spec, _base = load_example(example_name())
    assert spec.meta["dtype"] == "float32" and spec.meta["machine"]["cpu"] == "AMD EPYC"
    with using(lang):
        at = AppTest.from_file(PAGE, default_timeout=30)
        at.query_params["lang"] = lang
        at.run()
        at.button(key="overview_play").click().run()
    assert not at.exception
    (done,) = [c.value for c in at.caption if c.value.startswith(("Done: ", "Pronto: "))]
    assert done.endswith(" " + said)
    older = dataclasses.replace(spec, meta={**spec.meta, "machine": None})  # as the 2026-12-01 recordings are
    assert recorded_counts(older) == ("Recorded in float32 on a CPU this recording does not name; another number "
                                      "format or machine can compute slightly different numbers and give other counts.")
    # lesson 2 plays it before lesson 5 names float32: lesson 1's words for it, as it says "fp16 (16-bit numbers)"
    assert recorded_counts(spec, plain=True).startswith("Recorded in 32-bit numbers on AMD EPYC (2 cores, ")


def test_a_cached_calibration_of_another_proposer_under_the_defaults_name_is_not_this_machines(tmp_path, monkeypatch):
    """Read 44 (review): before 86e385b9 the cache key left the proposer out, so `calibrate --proposer ngram` wrote
    its measurement under the default pair's file name. `calibrate` refuses such a file for the default proposer,
    but the Overview and the Speedup lab read it as this machine's EAGLE calibration: the Overview then said the pair
    "has no per-shape table to predict from" and the presets fell back to the catalog's shape without saying why."""
    from specviz.engine.kernels import PACKED, STOCK, packing_available
    from specviz.labs.calibration import Calibration, cache_path
    from specviz.models.machine import cpu_has_bf16
    from specviz.ui.common import this_machine

    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))
    dtype, kernels = ("bfloat16" if cpu_has_bf16() else "float32"), (PACKED if packing_available() else STOCK)

    def written(proposer):
        cal = Calibration("default", proposer, dtype, "cpu", kernels, "Test CPU", (), False, "x", 2,
                          ((1, 0.05), (2, 0.052), (3, 0.055), (5, 0.2), (9, 0.3), (17, 0.4), (25, 0.5), (33, 0.6)),
                          0.002, 0.055, 0.01, measured_at="2026-12-03T12:00:00Z")
        path = cache_path("default", dtype, kernels)  # the old key: no proposer in it
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(cal.to_json())
        return cal

    written("ngram")
    assert this_machine.expected() is None
    assert "has not been measured yet" in this_machine.one_line(this_machine.expected())
    eagle = written("eagle")
    assert this_machine.expected() == eagle
    # a checkout without the EAGLE drafter loads the default pair with the layer-skip self-draft (pairs.default_pair):
    # its own calibration is this machine's there, and the EAGLE one is not (read 44's last review)
    from specviz.models import drafts

    monkeypatch.setattr(drafts, "has_eagle", lambda: False)
    assert this_machine.expected() is None
    layerskip = written("layerskip")
    assert this_machine.expected() == layerskip


@pytest.mark.parametrize("eagle", [True, False])
def test_the_default_pairs_proposer_has_one_rule_that_both_callers_read(monkeypatch, eagle):
    """Read 45: this_machine._default_proposer repeated pairs.default_pair's rule (EAGLE when has_eagle(), else
    layer-skip), so the calibration looked up and the pair loaded could drift apart. Both now read
    pairs.default_pair_proposer; with the drafter and without it they name the same proposer."""
    from specviz.models import drafts, pairs
    from specviz.ui.common import this_machine

    monkeypatch.setattr(drafts, "has_eagle", lambda: eagle)
    monkeypatch.setattr(pairs, "has_draft", lambda: False)  # no models read from assets/ for this check
    monkeypatch.setattr(pairs, "has_medusa", lambda: False)
    monkeypatch.setattr(pairs, "load_eagle", lambda target: ("drafter", "vocabulary"))
    toy = pairs.toy_pair()
    loaded = pairs.default_pair(toy.target, toy.tokenizer).default_proposer
    assert loaded == pairs.default_pair_proposer() == ("eagle" if eagle else "layerskip")
    assert this_machine._default_proposer("default") == loaded


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_first_frame_names_the_play_button_as_it_reads(lang):
    """Read 45: the first frame said "Press play" (pt "Aperte ▶ Reproduzir"), while the button reads "▶ Play the
    example" ("▶ Reproduzir o exemplo"): it now names the button by its whole label, in both languages."""
    from specviz.core.i18n import _, using

    spec, _example = load_example(example_name())
    with using(lang):
        first, button = play_frames(spec)[0].caption, _("▶ Play the example")
    assert first.startswith(f"{'Press' if lang == 'en' else 'Aperte'} {button}: "), (first, button)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_overview_quotes_the_h200s_verify_cost_instead_of_saying_it_holds_best_on_a_gpu(fast_play):
    """Read 47: the intro said "(That holds best on a GPU. On a CPU it depends ...)", but this project's two H200 runs
    measured SmolLM2's verify pass over 2 to 5 tokens at 1.09-1.16x one, dearer than two of the three CPU curves the
    same sentence quotes. The page now quotes the H200 range from both committed runs, in both languages."""
    from specviz.core.i18n import number, using
    from specviz.labs.bench import quoted

    runs = [quoted.verify_range(folder) for folder in ("default-h200-bf16", "default-h200-bf16-run2")]
    low, high = min(q.low for q in runs), max(q.high for q in runs)
    assert low > quoted.verify_range("default-cpu-bf16-tree").high  # why "best on a GPU" was wrong for this model
    for lang, said in (("en", "for SmolLM2-135M, scoring 2 to 5 tokens cost {range}× one on the NVIDIA H200 of two "
                               "committed runs, in bfloat16"),
                       ("pt", "para o SmolLM2-135M, avaliar de 2 a 5 tokens custou {range}× um na NVIDIA H200 de duas "
                              "execuções registradas, em bfloat16")):
        with using(lang):
            at = AppTest.from_file(PAGE, default_timeout=30)
            at.query_params["lang"] = lang
            at.run()
            text = " ".join(m.value for m in at.markdown)
            assert said.format(range=f"{number(low, 2)}–{number(high, 2)}") in text
        assert "holds best on a GPU" not in text and "vale melhor numa GPU" not in text


@pytest.mark.slow  # over 0.4 s on 2 cores (read 51's --durations): make check stays under a minute
@pytest.mark.parametrize("lang, last, after", [("en", "draft {k} of {k} rejected ✗", "(and every draft after it)"),
                                               ("pt", "palpite {k} de {k} rejeitado ✗",
                                                "(e todos os palpites depois dele)")])
def test_a_steps_last_draft_rejected_names_no_draft_after_it(lang, last, after):
    """Read 50: the player's caption for a step whose last draft was rejected read "draft 4 of 4 rejected ✗ (and
    every draft after it)", where no draft comes after it (3 such frames in the Overview's example, 3 in lesson 2's,
    there "draft 2 of 2"). The last draft's caption ends at ✗; an earlier one still says the rest is dropped."""
    from specviz.core.i18n import using

    for name in (example_name(), "smollm-draft-t07"):
        spec, _example = load_example(name)
        lasts = [step.k for step in spec.steps for d in step.decisions
                 if d.reached and not d.accepted and d.position + 1 == step.k]
        assert len(lasts) == 3, (name, lasts)  # the frames the check below reads
        with using(lang):
            captions = [frame.caption.split(": ", 1)[1] for frame in play_frames(spec)[1:-1]]
        for k in set(lasts):
            assert captions.count(last.format(k=k)) == lasts.count(k), (name, captions)
            assert not any(c.startswith(last.format(k=k) + " ") for c in captions)
        assert any(c.endswith(after) for c in captions)  # an earlier rejected draft still says the rest is dropped


def test_the_portuguese_intro_says_the_race_page_measures_the_readers_runs(fast_play):
    """Read 50: the intro's "the Speedup lab shows the runs, and the Timeline & race page measures your own" (runs)
    read in Portuguese "mede a sua", a feminine singular whose noun is "esta máquina": the race page measuring the
    machine, which the line below says the Speedup lab does. It says "as suas" (execuções) now."""
    from specviz.core.i18n import using

    texts = {}
    for lang in ("en", "pt"):
        with using(lang):
            at = AppTest.from_file(PAGE, default_timeout=30)
            at.query_params["lang"] = lang
            at.run()
        texts[lang] = " ".join(m.value for m in at.markdown)
    assert "the Speedup lab shows the runs, and the Timeline & race page measures your own.)" in texts["en"]
    assert ("o Laboratório de aceleração mostra as execuções, e a página Linha do tempo e corrida mede as suas.)"
            in texts["pt"])


@pytest.mark.slow  # the app under AppTest, twice
def test_the_sidebar_defines_the_symbols_the_page_uses_beyond_p_q_k_and_alpha(fast_play):
    """Read 51: the sidebar's notation defined only p, q, K, α and accepted / drafted, on every page, while pages write
    c, T, u, the residual and p′, q′ undefined (the Overview's chips hover u; its machine line says T = 0.7). Under
    the legend each page now defines the ones it uses, in both languages; the Serving lab uses none of them."""
    import re as regex

    from specviz.core.i18n import using
    from specviz.scripts.i18n import extract
    from specviz.ui.common.frame import PAGE_SYMBOLS, page_file, page_notation

    assert set(PAGE_SYMBOLS) == set(PAGE_FILES) and page_file("") == "pages/overview.py"
    for lang, also, u, residual in (("en", "Also on this page: ", "**u** = the uniform draw in [0, 1)",
                                     "norm(max(0, p − q)), the distribution a recovered token"),
                                    ("pt", "Também nesta página: ", "**u** = o sorteio uniforme em [0, 1)",
                                     "norm(max(0, p − q)), a distribuição residual")):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
        at.query_params["lang"] = lang
        at.run()
        assert not at.exception
        notes = [c.value for c in at.sidebar.caption if c.value.startswith(also)]
        assert len(notes) == 1 and u in notes[0] and "**T** = " in notes[0] and "**c**" not in notes[0], notes
        with using(lang):
            assert residual in page_notation("pages/playground.py") and "**p′**, **q′** = " in page_notation(
                "pages/playground.py")
    assert page_notation("pages/serving.py") is None
    # each page's own messages that write c, T or p′ are covered by its list (a page package -> its page file)
    written = {"c": regex.compile(r"(?<![\w′/])c(?![\w′'(])\s*(=|÷|\))|K·c|K c\b"), "T": regex.compile(r"\bT = "),
               "p′": regex.compile(r"p′|q′")}
    packages = {"specviz/ui/speedup/": "pages/speedup_lab.py", "specviz/ui/theory/": "pages/theory.py",
                "specviz/ui/sandbox/": "pages/sandbox.py", "specviz/ui/proposers/": "pages/proposers.py",
                "specviz/ui/exactness/": "pages/exactness.py", "specviz/ui/serving/": "pages/serving.py"}
    for message in extract():
        text = message.id if isinstance(message.id, str) else " ".join(message.id or ())
        for where, _line in message.locations:
            page = next((p for folder, p in packages.items() if where.startswith(folder)), None)
            for symbol, pattern in written.items():
                if page and pattern.search(text):
                    assert symbol in PAGE_SYMBOLS[page], (page, symbol, text[:80])


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_unmeasured_line_names_the_layer_skip_draft_where_there_is_no_eagle_drafter(monkeypatch, lang):
    """Read 51: without the trained drafter in assets/models the default pair drafts (and is calibrated) with the
    layer-skip self-draft (`pairs.default_pair_proposer`), but the Overview's line still said the Speedup lab runs
    "SmolLM2-135M with its EAGLE drafter". It names the draft the measurement will use, in both languages."""
    from specviz.core.i18n import using
    from specviz.models import drafts
    from specviz.ui.common import this_machine

    monkeypatch.setattr(drafts, "has_eagle", lambda *args, **kwargs: False)
    with using(lang):
        line = this_machine.one_line(None)
    assert "EAGLE drafter;" not in line and "rascunhador EAGLE;" not in line, line
    assert {"en": "SmolLM2-135M with its layer-skip self-draft, as assets/models holds no trained EAGLE drafter here;",
            "pt": "SmolLM2-135M com o seu autorrascunho pulando camadas, já que assets/models não tem aqui o "
                  "rascunhador EAGLE treinado;"}[lang] in line, line
    monkeypatch.setattr(drafts, "has_eagle", lambda *args, **kwargs: True)
    with using(lang):
        assert "layer-skip" not in this_machine.one_line(None) and "pulando" not in this_machine.one_line(None)


@pytest.mark.parametrize("lang, said", [
    ("en", "Playground: step through real generations one step at a time: what was drafted and what the target kept"),
    ("pt", "Playground: percorra gerações reais um passo por vez: o que foi rascunhado e o que o alvo manteve")])
def test_the_playground_link_promises_steps_as_its_next_step_button_reveals(lang, said):
    """Read 52: the link said "step through real generations one decision at a time" (pt "uma decisão por vez"), but
    the Playground's Next step reveals a whole step: every draft's verdict and the token that ends it at once."""
    from specviz.core.i18n import _, using
    from specviz.ui.playground import player

    with using(lang):
        links = [_("{page}: {what}", page=_(title), what=_(what)) for _path, title, _icon, what in
                 overview_view.next_pages()]
    assert said in links and not any("decision at a time" in link or "decisão por vez" in link for link in links)
    assert 'row.button(_("Next step")' in Path(player.__file__).read_text(encoding="utf-8")


@pytest.mark.slow  # the app under AppTest, twice
@pytest.mark.parametrize("lang, residual, primes", [
    ("en", "**residual** = norm(max(0, p − q))", "**p′**, **q′** = "),
    ("pt", "norm(max(0, p − q)), a distribuição residual", "**p′**, **q′** = ")])
def test_the_overview_sidebar_defines_the_residual_p_prime_its_legend_hovers(fast_play, lang, residual, primes):
    """Read 52: the Overview's legend hovers "(in a tree: from the residual p′ once every child of the last kept node
    was rejected)" over its recovered chip, but its sidebar note defined only T and u: p′ and the residual were
    nowhere defined on the page."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    hovers = " ".join(html.unescape(t) for h in at.main.get("html") for t in re.findall(r'title="([^"]*)"',
                                                                                          h.proto.body))
    assert "p′" in hovers and ("residual" in hovers)
    (note,) = [c.value for c in at.sidebar.caption if c.value.startswith(("Also on this page: ", "Também nesta"))]
    assert residual in note and primes in note and "**u** = " in note and "**T** = " in note


def test_the_players_caption_promises_the_numbers_each_chip_shows(fast_play):
    """Read 52: the caption promised p, q and u on every chip; a recovered, bonus or target chip shows p alone."""
    from specviz.engine.trace import TokenKind
    from specviz.ui.common.tokens import emitted_tooltip

    at = AppTest.from_file(PAGE, default_timeout=30)
    at.run()
    captions = [c.value for c in at.caption]
    assert any(c.endswith("hover a chip for its numbers: a drafted token's p, q and the uniform draw u, or p alone "
                          "for a token the target sampled (recovered, bonus or target).") for c in captions)
    for kind in (TokenKind.RECOVERED, TokenKind.BONUS, TokenKind.TARGET):
        hover = emitted_tooltip(EmittedToken(token_id=5, text="a", kind=kind, target_prob=0.5, draft_prob=0.25))
        lines = hover.splitlines()
        assert "p (target) = 0.500" in lines and not [line for line in lines if line.startswith(("q", "u"))], hover


@pytest.mark.slow  # the app under AppTest, twice
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_sidebar_defines_alpha_as_the_mean_of_beta_as_the_glossary_does(fast_play, lang):
    """Read 55: the sidebar's notation said α is "on average Σ min(p, q)", where the glossary, the Theory explorer and
    the Exactness lab call the one-position Σ min(p, q) β and α its mean over positions (α = E[β]). The legend, on
    every page, now names β and α = E[β] with the glossary's formulas, in both languages."""
    glossary = (ROOT / "docs" / "glossary.pt-BR.md").read_text(encoding="utf-8")
    assert "α = E[β]" in glossary and "β = Σ min(p, q)" in glossary  # the glossary's formulas, which the legend uses
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception
    (legend,) = [c.value for c in at.sidebar.caption if c.value.startswith(("Notation:", "Notação:"))]
    wanted = {"en": ("on average over positions: α = E[β], where **β** (beta) = Σ min(p, q) is that chance at one "
                     "position", "α is not the measured accepted / drafted"),
              "pt": ("em média sobre as posições: α = E[β], em que **β** (beta) = Σ min(p, q) é essa chance numa "
                     "posição", "α não é a razão medida aceitos / rascunhados")}[lang]
    assert all(part in legend for part in wanted), legend
    assert "average Σ min" not in legend and "média Σ min" not in legend, legend
