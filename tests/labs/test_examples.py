"""The shipped example traces: they load, round-trip, show what their descriptions promise, and re-record the same."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from specviz.engine.trace import Trace
from specviz.labs.examples import DEFAULT_EXAMPLE, TRACES_DIR, get_example, list_examples, load_example
from specviz.scripts import make_traces

EXPECTED = {"smollm-ngram-t07", "smollm-ngram-greedy", "smollm-layerskip-t07", "toy-draft", "smollm-eagle-greedy",
            "smollm-draft-greedy", "smollm-draft-t07", "smollm-medusa-greedy"}
KINDS = {"accepted", "rejected", "recovered", "bonus"}
FIRST_STEPS = 6  # what a student meets first: the player's opening steps, lesson 4's offered steps


def kinds(trace: Trace) -> Counter:
    return Counter(t.kind for s in trace.steps for t in s.emitted)


def test_every_recipe_is_shipped_and_listed_default_first():
    examples = list_examples()
    names = [e.name for e in examples]
    assert set(names) == EXPECTED  # the tests below run "every example" over EXPECTED: no shipped one escapes them
    assert names[0] == DEFAULT_EXAMPLE
    for e in examples:
        assert e.title and e.title != e.name and len(e.description) > 40
        assert e.baseline_path is not None and e.baseline_path.is_file()


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_example_loads_round_trips_and_matches_its_baseline(name):
    spec, base = load_example(name)
    assert spec.mode == "speculative" and base is not None and base.mode == "autoregressive"
    assert spec.meta["title"] and spec.meta["description"] and spec.meta["example"] == name
    assert Trace.from_json(spec.to_json()).to_dict() == spec.to_dict()
    assert Trace.from_json(base.to_json()).to_dict() == base.to_dict()
    # same prompt and sampling settings in both lanes of the race
    assert spec.prompt_ids == base.prompt_ids
    for key in ("temperature", "top_k", "top_p", "seed", "max_new_tokens"):
        assert spec.settings[key] == base.settings[key]
    # every step's emitted tokens agree with its decisions, and the top-10 lists are there to draw
    for step in spec.steps:
        kept = min(step.n_accepted, len(step.emitted))  # the last step may be cut at EOS or the token limit
        assert [t.kind for t in step.emitted[:kept]] == ["accepted"] * kept
        for d in step.decisions:
            assert d.target_top and d.draft_top
            assert d.reached == (d.position <= step.n_accepted)
    assert "".join(t.text for s in spec.steps for t in s.emitted).strip()


def test_each_example_shows_its_lesson():
    toy, _ = load_example("toy-draft")
    assert {"accepted", "recovered", "bonus"} <= set(kinds(toy))
    assert any(not d.reached for s in toy.steps for d in s.decisions)  # "not reached" drafts appear too
    greedy, greedy_base = load_example("smollm-ngram-greedy")
    assert greedy.mean_accepted_length > 2.5  # copying text: several tokens per target forward
    assert greedy.output_ids == greedy_base.output_ids  # greedy: speculative output is exactly the target's
    ngram, _ = load_example("smollm-ngram-t07")
    assert {"accepted", "recovered", "bonus"} <= set(kinds(ngram))
    skip, _ = load_example("smollm-layerskip-t07")
    assert skip.acceptance_rate < 0.2 and skip.mean_accepted_length < 1.2  # the untrained self-draft barely helps
    eagle, eagle_base = load_example("smollm-eagle-greedy")
    draft, _ = load_example("smollm-draft-greedy")
    assert eagle.output_ids == eagle_base.output_ids  # greedy: exactly the target's text
    assert eagle.mean_accepted_length > 1.5 and draft.mean_accepted_length > 1.5  # both trained: well above 1
    # the descriptions quote their own traces' tokens per target forward
    assert f"about {eagle.mean_accepted_length:.1f} tokens per target forward" in eagle.meta["description"]
    assert (f"tokens per target forward as the EAGLE drafter ({draft.mean_accepted_length:.1f} against "
            f"{eagle.mean_accepted_length:.1f})") in draft.meta["description"]
    medusa, medusa_base = load_example("smollm-medusa-greedy")
    assert medusa.output_ids == medusa_base.output_ids and medusa.prompt_ids == eagle.prompt_ids  # the same prompt
    assert 1.0 < medusa.mean_accepted_length < eagle.mean_accepted_length  # heads blind to earlier drafts keep fewer
    assert f"tokens per target forward against {eagle.mean_accepted_length:.1f} for the EAGLE drafter" \
        in medusa.meta["description"]
    assert {s.proposer for s in medusa.steps if s.decisions} == {"medusa"}


def test_example_files_stay_small():
    total = sum(p.stat().st_size for p in TRACES_DIR.glob("*.json"))
    assert total < 2_000_000


def test_unknown_example_is_one_sentence():
    with pytest.raises(ValueError, match=r"no example trace called 'nope'.*toy-draft"):
        get_example("nope")


def test_a_folder_with_a_trace_but_no_baseline(tmp_path):
    spec, _ = load_example("toy-draft")
    spec.meta.update(title="Mine", description="")
    (tmp_path / "mine.json").write_text(spec.to_json())
    (tmp_path / "broken.json").write_text("{not json")
    examples = {e.name: e for e in list_examples(tmp_path)}
    assert examples["mine"].title == "Mine" and examples["mine"].baseline_path is None
    assert examples["broken"].title == "broken"  # listed by name; loading it is what fails, with one sentence
    again, base = load_example("mine", tmp_path)
    assert base is None and again.output_ids == spec.output_ids
    with pytest.raises(ValueError, match="not valid JSON"):
        load_example("broken", tmp_path)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_make_traces_rerecords_the_toy_example_identically(tmp_path, monkeypatch):
    monkeypatch.setattr(make_traces, "TRACES_DIR", tmp_path)
    assert make_traces.main(["toy-draft"]) == 0
    new, new_base = load_example("toy-draft", tmp_path)
    old, old_base = load_example("toy-draft")
    assert new.output_ids == old.output_ids and new_base.output_ids == old_base.output_ids
    assert [[(d.token_id, d.accepted, d.reached) for d in s.decisions] for s in new.steps] == \
        [[(d.token_id, d.accepted, d.reached) for d in s.decisions] for s in old.steps]
    assert all(math.isclose(a.uniform, b.uniform) for s, t in zip(new.steps, old.steps)
               for a, b in zip(s.decisions, t.decisions) if a.reached)
    # the recording names its machine, as the bench records one (issue 43: the race said "a CPU" and no more)
    from specviz.labs.bench.quoted import machine_text
    from specviz.labs.bench.timing import machine_info

    for trace in (new, new_base):
        machine = trace.meta["machine"]
        assert machine["cpu"] == machine_info()["cpu"] and machine["device"] == "cpu"
        assert machine["dtype"] == "float32" and machine["torch_threads"] == 1  # make traces' CPU clock: one thread
        assert machine_text(machine).startswith(machine["cpu"])


def test_make_traces_rejects_an_unknown_name(capsys):
    assert make_traces.main(["nope"]) == 2
    assert "Unknown example 'nope'" in capsys.readouterr().err


def _kinds_seen(trace: Trace, steps: int | None = None) -> set[str]:
    """Every token kind the first `steps` steps show: kept and rejected drafts, recovered and bonus tokens."""
    seen = set()
    for step in trace.steps[:steps]:
        seen |= {"accepted" if d.accepted else "rejected" for d in step.decisions if d.reached}
        seen |= {str(t.kind) for t in step.emitted}
    return seen


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_no_example_drafts_a_chat_template_marker_in_its_first_steps(name):
    """Issue 26 item 9: the first example a student met drafted <|im_start|> and "ass" (n-gram lookup matched the
    chat template's own header)."""
    from specviz.ui.playground.player import SPECIAL

    spec, _base = load_example(name)
    drafted = [d.text for s in spec.steps[:FIRST_STEPS] for d in s.decisions]
    assert drafted and not [t for t in drafted if SPECIAL.search(t) or t.strip() in ("ass", "istant")]


@pytest.mark.parametrize("name", sorted(EXPECTED - {"smollm-layerskip-t07", "smollm-medusa-greedy"}))
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_every_example_shows_every_token_kind(name):
    """Accepted, rejected, recovered and bonus tokens in every example (the untrained layer skip, whose point is that
    it is rarely right, and the Medusa heads, whose point is that few steps keep more than one draft, aside: no step
    keeps all four, so no bonus); the default example and the guided path's show all four in their first steps."""
    from specviz.teach.learn import LESSONS

    spec, _base = load_example(name)
    assert _kinds_seen(spec) >= KINDS
    first = {DEFAULT_EXAMPLE} | {lesson.example for lesson in LESSONS if lesson.example}
    if name in first:
        assert _kinds_seen(spec, FIRST_STEPS) >= KINDS, name


@pytest.mark.slow  # over 0.4 s on 2 cores (read 51's --durations): make check stays under a minute
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_description_says_what_its_trace_shows(name):
    """The figures an example's description quotes (tokens per target forward, accepted / drafted, K, T) are its
    trace's."""
    import re

    spec, _base = load_example(name)
    description, title = get_example(name).description, get_example(name).title
    for found in re.finditer(r"about (\d+(?:\.\d+)?) tokens per target forward", description):
        assert abs(spec.mean_accepted_length - float(found.group(1))) < 0.06, (name, found.group(0))
    for found in re.finditer(r"accepted / drafted about (\d+(?:\.\d+)?)", description):
        assert abs(spec.acceptance_rate - float(found.group(1))) < 0.06, (name, found.group(0))
    for found in re.finditer(r"\bK = (\d+)", description):
        assert spec.settings["k"] == int(found.group(1)), name
    for found in re.finditer(r"\bT = (\d+(?:\.\d+)?)", title + " " + description):
        assert spec.settings["temperature"] == pytest.approx(float(found.group(1))), name
    if spec.settings["temperature"] == 0:
        assert spec.output_ids == _base.output_ids  # float32: these greedy examples match the target's text


def test_ngram_lookup_never_drafts_the_chat_templates_markers():
    """make_proposer gives n-gram lookup the chat template's markers (but the end of text) to pass over: a chat prompt
    ends with the template's header, whose last token also ends every earlier header."""
    from types import SimpleNamespace

    from specviz.engine.proposers import make_proposer, prompt_lookup

    tokenizer = SimpleNamespace(chat_template="<|im_start|>{{ m }}<|im_end|>", eos_token_id=2,
                                all_special_tokens=["<unk>", "<|im_start|>", "<|im_end|>"], all_special_ids=[0, 1, 2])
    pair = SimpleNamespace(tokenizer=tokenizer, default_proposer="ngram", target=SimpleNamespace(
        generation_config=SimpleNamespace(eos_token_id=2), config=SimpleNamespace(vocab_size=10)))
    proposer = make_proposer(pair, "ngram")
    assert proposer.exclude == {1}  # the turn marker; not <unk> (not in the template) nor the end of text
    marker, word = 1, 9
    sequence = [5, 7, 8, 3, 5, marker, word, 5]
    assert prompt_lookup(sequence, 2) == [marker, word]  # plain lookup: the latest match, marker first
    assert prompt_lookup(sequence, 2, exclude=proposer.exclude) == [7, 8]  # passed over for an earlier match


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_examples_are_timed_by_cpu_time_and_the_race_says_so(name):
    """On a shared machine wall time measures the wait for a core: `make traces` times each step by one thread's CPU
    time (what wall time is on an idle machine) and records which clock, and the race names it."""
    spec, base = load_example(name)
    assert spec.meta["clock"] == base.meta["clock"] == "cpu"
    per_token = base.wall_seconds / base.num_tokens
    assert per_token < (0.01 if name.startswith("toy") else 0.25)  # a SmolLM2-135M forward, not a wait for a core


def test_descriptions_name_their_benchmark_machine_from_its_record():
    """Issue 43: a description quoting a committed run names that run's machine as `quoted.machine` words it from
    its results.json, never a CPU typed by hand; the recipes and the shipped traces carry the same text."""
    from specviz.labs.bench import quoted
    from specviz.labs.examples import DESCRIPTION_MACHINES, SHIPPED_TEXTS

    recipes = {r.name: r for r in make_traces.RECIPES}
    examples = list_examples()
    assert len(examples) >= len(EXPECTED) and len(DESCRIPTION_MACHINES) == 3
    for example in examples:
        assert "EPYC" not in example.description and "Xeon" not in example.description and "-core" not in \
            example.description, example.name
        assert example.description == recipes[example.name].description
        assert example.description in SHIPPED_TEXTS
    for key, folder in DESCRIPTION_MACHINES.items():
        named = [e for e in examples if "{" + key + "}" in e.description]
        assert named, key
        for example in named:
            assert f"{folder}, measured on {quoted.machine(folder)}" in example.shown_description


def test_descriptions_quote_their_benchmark_figures_from_the_runs(monkeypatch):
    """40th read: the EAGLE, separate-draft and Medusa descriptions typed their runs' figures by hand (2.1 tokens,
    1.7×, c = 0.085; c = 0.30 and 0.64 to 0.72× at T = 0; c = 0.05), where the committed results.json holds them: a
    re-run would have left the words behind. They are now read from the runs, so a changed run changes the words."""
    import copy

    from specviz.core.i18n import using
    from specviz.labs.bench import quoted

    examples = {e.name: e for e in list_examples()}
    shown = {name: " ".join(examples[name].shown_description.split())
             for name in ("smollm-eagle-greedy", "smollm-draft-greedy", "smollm-medusa-greedy")}
    assert "it averages 2.1, about 1.7 times as fast as model.generate, with c = 0.085:" in shown["smollm-eagle-greedy"]
    assert "c = 0.303 in float32" in shown["smollm-draft-greedy"]
    assert "(0.64 to 0.72 times its speed at T = 0)" in shown["smollm-draft-greedy"]
    assert "(c = 0.046 in float32" in shown["smollm-medusa-greedy"]
    with using("pt"):
        said = " ".join(examples["smollm-draft-greedy"].shown_description.split())
    assert "c = 0,303 em float32" in said and "(de 0,64× a 0,72× a velocidade dela com T = 0)" in said

    real = quoted.result

    def rerun(folder, root=None):  # the same runs, re-measured: every c doubled, every speedup halved
        run = copy.deepcopy(real(folder, root))
        run["costs"]["c"] = {name: 2 * c for name, c in run["costs"]["c"].items()}
        for row in run["summary"]:
            for key in ("speedup_vs_ar", "speedup_vs_hf_generate"):
                if row.get(key) is not None:
                    row[key] /= 2
        return run

    monkeypatch.setattr(quoted, "result", rerun)
    again = {name: " ".join(examples[name].shown_description.split()) for name in shown}
    assert "about 0.9 times as fast as model.generate, with c = 0.170:" in again["smollm-eagle-greedy"]
    assert "c = 0.606 in float32" in again["smollm-draft-greedy"]
    assert "(0.32 to 0.36 times its speed at T = 0)" in again["smollm-draft-greedy"]
    assert "(c = 0.092 in float32" in again["smollm-medusa-greedy"]


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_descriptions_write_each_c_as_its_runs_results_md_and_the_other_pages_do(lang):
    """Read 54: the race's Medusa example read "c = 0.05" (and the separate draft's "c = 0.30") where the run's
    results.md, the Speedup lab and the Theory explorer write the same measured c as 0.046 (0.303): two roundings of
    one figure. Every c a description quotes is now written as those are (`small_number`), in both languages."""
    import re

    from specviz.core.i18n import small_number, using
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench import quoted

    examples = {e.name: e for e in list_examples()}
    quoted_c = {"smollm-eagle-greedy": ("default-cpu-f32-packed", "eagle"),
                "smollm-draft-greedy": ("default-cpu-drafts", "draft"),
                "smollm-medusa-greedy": ("default-cpu-f32-medusa", "medusa")}
    seen = []
    for name, (folder, proposer) in quoted_c.items():
        seen.append(name)
        report = (BENCHMARKS_DIR / folder / "results.md").read_text(encoding="utf-8")
        in_report = re.search(rf"^- {proposer}: draft forward [\d.]+ ms, c = ([\d.]+)$", report, re.M)[1]
        with using(lang):
            said = " ".join(examples[name].shown_description.split())
            written = small_number(quoted.draft_cost(folder, proposer).low)
        assert written == (in_report if lang == "en" else in_report.replace(".", ","))
        assert f"c = {written}" in said, (name, said)
    assert seen == list(quoted_c) and len(seen) == 3


def test_the_medusa_description_says_what_its_trace_keeps():
    """Read 44: the description said the heads' "second and later drafts are rarely kept", yet the trace keeps the
    second draft in half the steps that kept the first (5 of 9): what is rare is a step keeping more than one draft."""
    spec, _base = load_example("smollm-medusa-greedy")
    kept = [sum(d.accepted for d in step.decisions) for step in spec.steps]
    first, more = sum(k >= 1 for k in kept), sum(k >= 2 for k in kept)
    assert more <= len(kept) / 4 and more >= first / 2  # few steps keep two, but most that keep one keep two
    description = get_example("smollm-medusa-greedy").description
    assert "few steps keep more than one draft" in description and "rarely kept" not in description


def test_the_medusa_description_says_how_its_c_was_timed_and_what_c_times():
    """Read 49: the Medusa description quoted "c = 0.05 in float32 in assets/benchmarks/default-cpu-f32-medusa,
    measured on AMD EPYC (2 cores, ...)", but that run ran --threads 1 --clock cpu (its results.json: torch_threads 1,
    clock "cpu"), and it did not say what c times. Both now come from the run's file and the bench's timer."""
    import json

    from specviz.core.i18n import using
    from specviz.core.paths import BENCHMARKS_DIR

    run = json.loads((BENCHMARKS_DIR / "default-cpu-f32-medusa" / "results.json").read_text(encoding="utf-8"))
    assert (run["config"]["clock"], run["machine"]["torch_threads"]) == ("cpu", 1)
    example = get_example("smollm-medusa-greedy")
    said = " ".join(example.shown_description.split())
    assert "and timed by CPU time with 1 torch thread; c is the time of one head's block, its product with the LM " \
           "head's rows for the heads' draft vocabulary and the greedy token pick, over one target forward)." in said
    with using("pt"):
        said = " ".join(example.shown_description.split())
    assert "e em tempo de CPU com 1 thread do torch; c é o tempo do bloco de uma cabeça de previsão" in said


def test_the_medusa_description_says_what_drafting_runs():
    """Read 54: the Medusa example said proposing takes "only small products on a state the verify pass computed":
    a step runs the blocks of heads 1 to K on the target's last hidden state (the prefill's too, not only a verify
    pass's), then the LM head once over all K (`MedusaProposer.head_logits`). Both languages say that now."""
    from specviz.core.i18n import using

    example = get_example("smollm-medusa-greedy")
    said = ("proposing takes no drafter pass: it runs the blocks of heads 1 to K on the last hidden state the "
            "target's own forward computed, then the LM head once over all K (c = ")
    assert said in example.shown_description and "small products" not in example.shown_description
    with using("pt"):
        pt = example.shown_description
    assert ("propor não custa nenhuma passagem de rascunho: roda os blocos das cabeças 1 a K sobre o último estado "
            "oculto que a própria passagem do alvo calculou e depois a cabeça de LM uma vez sobre as K (c = ") in pt
