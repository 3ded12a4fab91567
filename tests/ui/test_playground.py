"""The Playground page under AppTest: replay opens instantly, the controls move through the steps, the URL
shares the run, live runs work with the toy pair, and text from models or users is always escaped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz.engine.trace import Trace
from specviz.labs.examples import DEFAULT_EXAMPLE, list_examples, load_example
from specviz.models.catalog import recommended_for
from specviz.ui.common import state
from specviz.ui.common.escaping import escape_markdown, escape_text

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "playground.py")
EVIL = "<img src=x onerror=alert(1)> **bold** # head"


def page(**params: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def counter(at: AppTest) -> tuple[int, int]:
    for m in at.markdown:
        found = re.search(r"Step (\d+) of (\d+)", m.value)
        if found:
            return int(found[1]), int(found[2])
    raise AssertionError("no step counter on the page")


def shown_text(at: AppTest) -> list[str]:
    """Every string the page handed to the browser as markdown or HTML."""
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [h.proto.body for h in at.get("html")]
    texts += [e.value for e in at.error] + [w.value for w in at.warning] + [i.value for i in at.info]
    return texts


def no_problems(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_opens_on_an_example_with_no_model_loaded():
    at = page()
    no_problems(at)
    spec, _ = load_example(DEFAULT_EXAMPLE)
    assert counter(at) == (0, spec.num_steps)
    assert isinstance(at.session_state["trace"], Trace)
    assert at.session_state["trace"].output_ids == spec.output_ids
    assert at.query_params["source"] == ["example"] or at.query_params["source"] == "example"
    assert any("Coming up: step 1." in m.value for m in at.markdown)
    assert any("p = target" in body for body in (h.proto.body for h in at.get("html")))  # the legend


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_next_previous_run_to_end_and_reset_move_the_counter():
    at = page(example="toy-draft")
    n = counter(at)[1]
    at.button(key="playground_next").click().run()
    assert counter(at) == (1, n)
    assert any(m.value.startswith("##### Step 1 ·") for m in at.markdown)  # the revealed step's panel
    at.button(key="playground_next").click().run()
    assert counter(at) == (2, n)
    at.button(key="playground_prev").click().run()
    assert counter(at) == (1, n)
    at.button(key="playground_end").click().run()
    assert counter(at) == (n, n)
    assert at.button(key="playground_next").disabled
    assert any("Done:" in s.value for s in at.success)
    at.button(key="playground_reset").click().run()
    assert counter(at) == (0, n)
    at.slider(key="playground_slider").set_value(5).run()
    assert counter(at) == (5, n)
    no_problems(at)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_play_and_pause_toggle():
    at = page(example="toy-draft")
    at.button(key="playground_play").click().run()
    assert at.session_state["playground_playing"] is True
    assert at.button(key="playground_play").label == "Pause"
    at.button(key="playground_play").click().run()
    assert at.session_state["playground_playing"] is False
    no_problems(at)


@pytest.mark.slow  # over the fast tier's 0.7 s a test
def test_the_url_opens_the_same_run_and_follows_the_steps():
    at = page(source="example", example="toy-draft", step="4")
    spec, _ = load_example("toy-draft")
    assert counter(at) == (4, spec.num_steps)
    assert at.selectbox(key="playground_example").value == "toy-draft"
    at.button(key="playground_next").click().run()
    params = {k: at.query_params[k] for k in at.query_params}
    flat = {k: v[0] if isinstance(v, list) else v for k, v in params.items()}
    assert flat == {"source": "example", "example": "toy-draft", "step": "5", "lang": "en"}  # the language stays


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_step_past_the_traces_end_opens_at_the_end_and_says_so():
    """A link's `?step=` past the trace's end opened on the last step without a word (a 30th-read report): the page
    now says which step the link asked for and how many the trace has."""
    spec, _ = load_example("toy-draft")
    at = page(source="example", example="toy-draft", step="999")
    assert counter(at) == (spec.num_steps, spec.num_steps)
    assert [i.value for i in at.info if "The link asks for step 999" in i.value] == [
        f"The link asks for step 999, but this trace has {spec.num_steps} steps: it opens at its end."]
    at = page(source="example", example="toy-draft", step="2")
    assert not [i for i in at.info if "The link asks for step" in i.value]  # a step inside the trace: no sentence


def test_bad_url_values_fall_back_with_one_warning():
    at = page(source="example", example="no-such-example", step="-3", k="many")
    no_problems(at)
    assert len(at.warning) == 1
    said = at.warning[0].value.replace("\\", "")
    assert said.startswith("Some settings in the link were not valid, so they were set to their defaults: example "
                           "must be one of ") and said.endswith("(got 'no-such-example'); k must be a whole number "
                                                                "from 1 to 16 (got 'many'); step must be a whole "
                                                                "number from 0 to 100,000 (got \u22123).")
    assert counter(at)[0] == 0
    assert at.selectbox(key="playground_example").value == DEFAULT_EXAMPLE


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_out_of_range_live_values_in_the_url_never_break_the_widgets():
    at = page(source="live", pair="toy", proposer="draft", top_p="0.001", temperature="9", k="17", seed="-1",
              max_new_tokens="100000", top_k="5", chat="maybe", prompt="the cat")
    no_problems(at)
    said = at.warning[0].value.replace("\\", "")
    assert [name for name in ("k", "temperature", "top_p", "seed", "max_new_tokens", "chat")
            if f"; {name} must be " in said or f": {name} must be " in said] == [
        "k", "temperature", "top_p", "seed", "max_new_tokens", "chat"]
    assert "max_new_tokens must be a whole number from 1 to 256 (got 100000)" in said  # the page's top, not 2,048
    trace = at.session_state["trace"]
    assert trace.settings["top_k"] == 5 and trace.settings["top_p"] == 1.0 and trace.settings["k"] == 4


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_a_shared_live_link_runs_the_toy_pair_and_opens_on_its_answer():
    from specviz.models.pairs import shown_output

    at = page(source="live", pair="toy", proposer="draft", k="3", temperature="1", seed="2", max_new_tokens="20",
              prompt="the cat sat")
    no_problems(at)
    trace = at.session_state["trace"]
    assert trace.mode == "speculative" and trace.settings["k"] == 3 and trace.settings["seed"] == 2
    assert trace.meta["pair"] == "toy" and trace.num_tokens <= 20
    # a live run lands on its finished text: plain, next to the annotated one, with the way back to step 1
    assert counter(at) == (trace.num_steps, trace.num_steps)
    assert any(m.value == "**What the model wrote**" for m in at.markdown)
    assert any(m.value == "**How each token was made**" for m in at.markdown)
    plain = next(h.proto.body for h in at.get("html") if "background:#F6F6F6;border-radius:6px;white-space:normal"
                 in h.proto.body)
    assert "data-kind" not in plain and escape_text(shown_output(trace), whitespace=False) in plain
    # read 51: this run writes one <unk> (id 0), which the trace's output text leaves out; the answer shows it
    assert trace.output_ids.count(0) == 1 and plain.count("&lt;unk&gt;") == 1
    assert any(f"Done: {trace.num_tokens} tokens from {trace.num_steps} target forward passes" in s.value
               for s in at.success)
    at.button(key="playground_from_start").click().run()
    assert counter(at) == (0, trace.num_steps)
    at.button(key="playground_next").click().run()
    assert counter(at)[0] == 1
    flat = {k: (v[0] if isinstance(v, list) else v) for k, v in ((k, at.query_params[k]) for k in at.query_params)}
    assert flat["k"] == "3" and flat["pair"] == "toy" and flat["prompt"] == "the cat sat" and flat["step"] == "1"


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_shared_live_link_with_a_step_opens_on_that_step():
    at = page(source="live", pair="toy", proposer="draft", k="3", temperature="1", seed="2", max_new_tokens="20",
              prompt="the cat sat", step="2")
    no_problems(at)
    assert counter(at)[0] == 2


@pytest.mark.slow  # over 0.7 s in make check (00:40 UTC: 3,026 tests in 61-66 s)
def test_a_new_live_run_is_drawn_step_by_step_and_a_cached_one_is_instant(monkeypatch):
    """While the model works, each decided step appears: the bar counts steps, tokens and kept drafts, and the chips
    grow. Asking for the same run again takes it from the cache: nothing to draw, no turn on the model."""
    from specviz.ui.common import runs
    from specviz.ui.playground import progress as playground_progress

    runs._trace_store.clear()
    monkeypatch.setattr(playground_progress, "LIVE_REDRAW_SECONDS", 0.0)
    drawn: list[tuple[int, int, str]] = []
    real_draw = playground_progress.LiveProgress.draw

    def spy(self, seconds):
        real_draw(self, seconds)
        drawn.append((len(self.groups), self.tokens, playground_progress.stream_html(self.groups)))

    monkeypatch.setattr(playground_progress.LiveProgress, "draw", spy)
    at = page()
    at.radio(key="playground_source").set_value("live").run()
    at.selectbox(key="playground_pair").set_value("toy").run()
    at.selectbox(key="playground_proposer").set_value("draft").run()
    at.text_area(key="playground_prompt").set_value("streaming now").run()
    at.number_input(key="playground_temperature").set_value(1.0).run()
    at.button(key="playground_run").click().run()
    no_problems(at)
    trace = at.session_state["trace"]
    assert [n for n, _, _ in drawn] == list(range(1, trace.num_steps + 1))  # once per step, as it was decided
    assert [t for _, t, _ in drawn][-1] == trace.num_tokens
    final = drawn[-1][2]
    shown = final.count("data-kind=") - final.count('data-kind="rejected"')
    assert shown == trace.num_tokens and 'data-kind="accepted"' in final
    assert counter(at) == (trace.num_steps, trace.num_steps)  # then it lands on the finished text
    drawn.clear()
    at.button(key="playground_from_start").click().run()
    at.button(key="playground_run").click().run()  # the same settings again: from the cache
    no_problems(at)
    assert drawn == [] and at.session_state["trace"].output_ids == trace.output_ids


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_run_draws_the_new_trace_in_the_same_run_of_the_page(monkeypatch):
    """Issue 45 item 4: a press of Run computes the trace and draws its chips in one run of the page, with the
    settings folded by Run's callback, not by a second run (st.rerun) after it."""
    import streamlit

    from specviz.ui.common import runs as common_runs

    monkeypatch.setattr(common_runs, "COOLDOWN_SECONDS", 0.0)  # two live runs in a row
    reruns = []
    real = streamlit.rerun
    monkeypatch.setattr(streamlit, "rerun", lambda *a, **k: (reruns.append(k), real(*a, **k)))
    at = page(source="live", pair="toy", proposer="draft", k="3", max_new_tokens="10", prompt="one run only")
    assert at.session_state["playground_settings_open"] is False and reruns == []  # a link that ran on open: folded
    at.session_state["playground_settings_open"] = True  # the reader opens the settings again
    at.text_area(key="playground_prompt").set_value("one run, no rerun").run()
    assert at.session_state["playground_settings_open"] is True
    reruns.clear()
    at.button(key="playground_run").click().run()
    no_problems(at)
    trace = at.session_state["trace"]
    assert trace.meta["prompt"] == "one run, no rerun" and reruns == []
    assert at.session_state["playground_settings_open"] is False  # folded: the answer is near the top
    assert any('data-kind="accepted"' in h.proto.body or 'data-kind="target"' in h.proto.body
               for h in at.get("html"))  # the chips are on the page


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_a_live_run_from_the_widgets():
    at = page()
    at.radio(key="playground_source").set_value("live").run()
    assert any("press **Run**" in i.value for i in at.info)  # nothing runs until asked
    at.selectbox(key="playground_pair").set_value("toy").run()
    assert at.selectbox(key="playground_proposer").options == ["Draft model", "N-gram lookup (no model)",
                                                              "Layer-skip self-draft"]
    at.text_area(key="playground_prompt").set_value("hello there").run()
    at.slider(key="playground_k").set_value(2).run()
    at.button(key="playground_run").click().run()
    no_problems(at)
    trace = at.session_state["trace"]
    assert trace.settings["k"] == 2 and trace.meta["prompt"] == "hello there"
    assert max(s.n_drafted for s in trace.steps) == 2
    at.text_area(key="playground_prompt").set_value("   ").run()
    at.button(key="playground_run").click().run()
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "prompt" in errors[0] and "\n" not in errors[0]  # one sentence about the prompt
    assert at.session_state["trace"] is trace  # and the last good run is still the one shown


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_the_live_run_starts_where_the_idea_works_with_the_harder_cases_one_click_away():
    at = page()
    at.radio(key="playground_source").set_value("live").run()
    assert at.selectbox(key="playground_pair").value == "default"
    assert at.selectbox(key="playground_proposer").options == [
        "EAGLE feature drafter (trained)", "Draft model", "Medusa heads (trained)", "N-gram lookup (no model)",
        "Layer-skip self-draft"]
    # the first live run: copying text with n-gram lookup, greedy (most drafts kept)
    assert at.selectbox(key="playground_proposer").value == "ngram"
    assert at.number_input(key="playground_temperature").value == 0.0
    assert at.text_area(key="playground_prompt").value.startswith("Copy this paragraph exactly")
    assert any(c.value.startswith("**N-gram lookup**: no model at all") for c in at.caption)  # said inline
    labels = [b.label for b in at.button if b.key and b.key.startswith("playground_preset_")]
    assert labels == ["1 · Copying text", "2 · A question", "3 · With sampling", "4 · Untrained draft",
                      "5 · A draft tree", "6 · Fastest here", "7 · Medusa heads"]
    at.button(key="playground_preset_tree").click().run()  # the pair's recommended shape from the catalog
    best = recommended_for("default")
    assert best.tree_nodes > 0 and at.number_input(key="playground_tree_nodes").value == best.tree_nodes
    assert at.slider(key="playground_k").value == best.k
    assert at.number_input(key="playground_tree_width").value == best.tree_width
    at.button(key="playground_preset_question").click().run()
    assert at.number_input(key="playground_tree_nodes").value == 0  # a chain preset turns the tree off
    assert at.selectbox(key="playground_proposer").value == "eagle"
    assert at.number_input(key="playground_temperature").value == 0.0
    assert any(c.value.startswith("**EAGLE**: one small layer") for c in at.caption)
    at.button(key="playground_preset_medusa").click().run()  # Medusa's tree: head d drafts depth d
    assert at.selectbox(key="playground_proposer").value == "medusa"
    assert at.number_input(key="playground_tree_nodes").value == 16 and at.slider(key="playground_k").value == 4
    assert any(c.value.startswith("**Medusa**: extra heads") for c in at.caption)
    at.button(key="playground_preset_sampling").click().run()
    assert at.number_input(key="playground_temperature").value == 0.7
    at.button(key="playground_preset_untrained").click().run()
    assert at.selectbox(key="playground_proposer").value == "layerskip"
    at.selectbox(key="playground_pair").set_value("toy").run()
    at.button(key="playground_preset_copy").click().run()  # a preset runs on the real pair
    assert at.selectbox(key="playground_pair").value == "default"
    assert at.selectbox(key="playground_proposer").value == "ngram"
    no_problems(at)


@pytest.mark.parametrize("name", ["copy", "question", "sampling", "untrained"])
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_a_chain_presets_button_sets_up_the_run_its_script_measures(name):
    """Issue 43 item 4: `python -m specviz.scripts.preset_runs` measures each chain preset with
    `specviz.runs.presets.preset_spec`; that must be the run the Playground makes after the preset's button (its
    figures are the button's promise), every setting of the form included."""
    from dataclasses import fields

    from specviz.engine.proposers import registry
    from specviz.runs.presets import preset_spec
    from specviz.ui.playground.settings import KEYS

    at = page()
    at.radio(key="playground_source").set_value("live").run()
    at.selectbox(key="playground_pair").set_value("toy").run()  # the button sets the pair and the seed back
    at.number_input(key="playground_seed").set_value(7).run()
    at.button(key=f"playground_preset_{name}").click().run()
    no_problems(at)
    spec = preset_spec(name)
    assert at.session_state[KEYS["proposer"]] == spec.proposer and at.session_state[KEYS["seed"]] == 0
    for field in fields(spec):
        if field.name not in ("policy", "proposer_settings"):  # the Playground runs constant K
            assert at.session_state[KEYS[field.name]] == getattr(spec, field.name), field.name
    for own in registry.get(spec.proposer).setting_names:  # what the form passes as the proposer's own settings
        value = at.session_state[KEYS[own]]
        assert spec.proposer_setting(own) == (None if value == registry.setting(own).unset else value), own


@pytest.mark.model
@pytest.mark.slow
def test_the_default_live_run_shows_the_idea_working():
    """On SmolLM2 the default live settings keep most drafts (the copy preset's counts in
    assets/benchmarks/presets/presets.json, `python -m specviz.scripts.preset_runs`), and the first thing drafted is
    a word, not the chat template's <|im_start|>."""
    from specviz import run
    from specviz.ui.playground.settings import LIVE_DEFAULTS

    trace = run(LIVE_DEFAULTS)
    assert trace.num_accepted > trace.num_drafted / 2 and trace.mean_accepted_length > 2.5
    first = next(d.text for s in trace.steps for d in s.decisions)
    assert "<|" not in first


@pytest.mark.model
@pytest.mark.slow
def test_a_live_run_with_the_trained_eagle_drafter():
    at = page(source="live", pair="default", proposer="eagle", k="3", temperature="0", max_new_tokens="16",
              prompt="Describe trains in exactly three sentences.")
    assert any("press **Run** to start it" in i.value for i in at.info)  # a link on the real model waits
    at.button(key="playground_run").click().run()
    no_problems(at)
    trace = at.session_state["trace"]
    assert trace.settings["proposer"] == "eagle" and trace.num_tokens == 16
    assert trace.num_accepted > 0  # a trained drafter: some drafts survive
    decision = trace.steps[0].decisions[0]
    assert decision.draft_top and 0 < decision.draft_prob <= 1  # a real q to draw next to p


def evil_trace() -> Trace:
    trace, _ = load_example("toy-draft")
    trace.prompt_text = EVIL
    trace.meta["pair"] = EVIL
    first = trace.steps[0]
    first.emitted[0].text = EVIL
    first.decisions[0].text = EVIL
    first.decisions[0].target_top[0].text = EVIL
    first.correction_top[0].text = "**bold**"
    return trace


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_an_uploaded_trace_is_parsed_once_not_on_every_rerun(monkeypatch):
    from specviz.ui.playground import inputs as playground_inputs

    calls = []
    real = Trace.from_json
    uploaded = evil_trace().to_json().encode()
    monkeypatch.setattr(Trace, "from_json", classmethod(lambda cls, data: calls.append(data == uploaded) or real(data)))
    playground_inputs.parsed_trace.clear()
    at = page()
    at.radio(key="playground_source").set_value("upload").run()
    at.file_uploader(key="playground_upload").set_value(("t.json", uploaded, "application/json")).run()
    for _ in range(3):
        at.button(key="playground_next").click().run()
    no_problems(at)
    assert counter(at)[0] == 3 and calls.count(True) == 1  # the upload; the example list parses its own files


def test_uploads_are_capped_by_the_server():
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert 1 <= config["server"]["maxUploadSize"] <= 16  # MiB; Streamlit's default is 200


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_an_uploaded_trace_renders_with_model_text_escaped():
    at = page()
    at.radio(key="playground_source").set_value("upload").run()
    at.file_uploader(key="playground_upload").set_value(("evil.json", evil_trace().to_json().encode(),
                                                         "application/json")).run()
    at.button(key="playground_next").click().run()
    no_problems(at)
    assert counter(at)[0] == 1
    texts = shown_text(at)
    assert not any("<img" in t for t in texts)
    assert not any("**bold**" in re.sub(r"<[^>]*>", "", t) for t in texts if "&" in t or "<" in t)
    assert any("&lt;img" in t for t in texts)
    # the segmented control's options are markdown too: the token text is backslash-escaped there
    options = at.get("button_group")[0].proto.options if at.get("button_group") else []
    assert options and "\\<img" in options[0].content and "\\*\\*bold" in options[0].content
    assert not any(re.search(r"(?<!\\)<img", o.content) for o in options)


@pytest.mark.parametrize("field", ["target_prob", "draft_prob", "uniform"])
@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_an_uploaded_trace_without_an_accepted_tokens_numbers_still_replays(field):
    """Read 45: a trace file whose accepted token had "target_prob": null (a trace the schema allows, as
    EmittedToken's default) loaded, and the token hover divided None by q: Streamlit's error box in place of the
    page. The hover now shows "–" for a number the file left out, as for any missing number."""
    import json

    trace, _ = load_example("toy-draft")
    data = json.loads(trace.to_json())
    token = data["steps"][1]["emitted"][0]
    assert token["kind"] == "accepted"
    token[field] = None
    at = page()
    at.radio(key="playground_source").set_value("upload").run()
    at.file_uploader(key="playground_upload").set_value(("t.json", json.dumps(data).encode(),
                                                         "application/json")).run()
    for _ in range(2):
        at.button(key="playground_next").click().run()
    no_problems(at)
    assert counter(at)[0] == 2


def test_a_hover_shows_a_missing_number_as_a_dash():
    from specviz.engine.trace import EmittedToken, TokenKind
    from specviz.ui.common.tokens import emitted_tooltip

    text = emitted_tooltip(EmittedToken(5, "a", TokenKind.ACCEPTED, None, 0.5, 0.2))
    assert "p (target) = –" in text and "p/q = –" in text and "min(1, p/q) = –" in text
    assert "min(1, p/q) = –" in emitted_tooltip(EmittedToken(5, "a", TokenKind.ACCEPTED, 0.2, None, 0.2))


def long_trace_json(steps: int = 1200) -> bytes:
    """The toy example's steps repeated past `steps`: a trace as long as a CLI run of 2,048 tokens can be."""
    import copy
    import json

    trace, _ = load_example("toy-draft")
    data = json.loads(trace.to_json())
    reps = steps // len(data["steps"]) + 1
    data["steps"] = [dict(copy.deepcopy(s), index=i * len(data["steps"]) + j)
                     for i in range(reps) for j, s in enumerate(data["steps"])]
    data["output_ids"] = data["output_ids"] * reps
    return json.dumps(data).encode()


@pytest.mark.slow  # a live toy run per language
@pytest.mark.parametrize("lang, said", [("en", "Done: 1 token from 1 target forward pass, where plain decoding"),
                                        ("pt", "Pronto: 1 token em 1 passagem do alvo, onde")])
def test_a_one_token_run_says_one_token_and_one_pass(lang, said):
    """36th read (page states): a run of Max new tokens = 1 ended on "Done: 1 tokens from 1 target forward passes"."""
    at = page(lang=lang, source="live", pair="toy", proposer="draft", k="4", temperature="0", max_new_tokens="1",
              prompt="a")
    no_problems(at)
    assert at.session_state["trace"].num_tokens == 1
    done = [s.value for s in at.success]
    assert any(d.startswith(said) for d in done), done
    assert not [d for d in done if "Parou em o" in d], done  # "em o limite": Portuguese contracts it, so say it otherwise


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_a_long_traces_step_and_token_counts_are_grouped_in_the_readers_format():
    """The step counter and the end's "Done: ... tokens from ... target forward passes" wrote bare numbers, so a
    trace past 999 steps read "Passo 1212 de 1212": Portuguese groups counts as 1.212."""
    from specviz.core.i18n import using

    at = page(lang="pt")
    with using("pt"):  # AppTest formats the radio's options in this process: the page's language
        at.radio(key="playground_source").set_value("upload").run()
        at.file_uploader(key="playground_upload").set_value(("long.json", long_trace_json(), "application/json"))
        at.run()
        at.button(key="playground_end").click().run()
    no_problems(at)
    steps = 1212  # 12 steps of the toy example, 101 times
    shown = f"{steps // 1000}.{steps % 1000:03d}"
    assert any(f"Passo {shown} de {shown}" in m.value for m in at.markdown)
    done = " ".join(s.value for s in at.success)
    assert f"de {shown} passagens" in done or f"{shown} passagens" in done, done
    assert str(steps) not in done


def test_a_bad_upload_is_one_sentence():
    at = page()
    at.radio(key="playground_source").set_value("upload").run()
    at.file_uploader(key="playground_upload").set_value(("x.json", b"{not json", "application/json")).run()
    assert not at.exception
    assert [e.value for e in at.error] == [escape_markdown("This file is not valid JSON, so it cannot be a specviz "
                                                           "trace.")]
    broken = evil_trace().to_dict()
    broken["steps"][0]["decisions"][0]["target_prob"] = "lots"
    import json

    at.file_uploader(key="playground_upload").set_value(("y.json", json.dumps(broken).encode(),
                                                         "application/json")).run()
    assert not at.exception
    assert [e.value for e in at.error] == [escape_markdown(
        "This trace is damaged: step 1: draft 1: target_prob must be a number from 0 to 1 (got 'lots').")]
    broken["steps"][0]["decisions"][0]["target_prob"] = "[x](https://e.io)"  # quoted by the sentence: no link
    at.file_uploader(key="playground_upload").set_value(("z.json", json.dumps(broken).encode(),
                                                         "application/json")).run()
    assert [e.value for e in at.error] == [escape_markdown(
        "This trace is damaged: step 1: draft 1: target_prob must be a number from 0 to 1 (got '[x](https://e.io)').")]


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_predict_then_reveal_scores_the_guess():
    at = page(example="toy-draft")
    spec, _ = load_example("toy-draft")
    actual = spec.steps[0].n_accepted
    key = "playground_predict_example:toy-draft_0"
    at.number_input(key=key).set_value(actual).run()
    at.button(key="playground_next").click().run()
    assert any(f"You predicted **{actual}** accepted: exactly right." in m.value for m in at.markdown)
    assert any("1 of 1 predictions exact" in c.value for c in at.caption)


@pytest.mark.parametrize("name", ["smollm-layerskip-t07", "smollm-ngram-greedy"])
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_other_examples_replay_to_the_end(name):
    at = page(example=name)
    at.button(key="playground_end").click().run()
    no_problems(at)
    n = counter(at)[1]
    assert counter(at) == (n, n)


@pytest.mark.slow  # over 0.7 s in make check (00:40 UTC: 3,026 tests in 61-66 s)
def test_the_page_runs_inside_the_app():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/playground.py").run()
    no_problems(at)
    assert at.title[0].value == "Playground"
    at.button(key="playground_next").click().run()
    assert counter(at)[0] == 1


def test_the_run_it_live_help_promises_a_model_load_only_for_a_real_model():
    """Read 41: the toy example's "Change its settings and run it live" help said the real model loads on first use,
    but the toy pair is built in code at once; a SmolLM2 example's help still says its model loads."""
    toy = page(example="toy-draft").button(key="playground_example_to_live").help
    assert "real model loads" not in toy and "nothing to load" in toy
    real = next(e.name for e in list_examples() if load_example(e.name)[0].meta.get("pair") == "default")
    assert "real model loads" in page(example=real).button(key="playground_example_to_live").help


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_an_example_rerun_live_gives_the_same_trace():
    at = page(example="toy-draft")
    at.button(key="playground_example_to_live").click().run()
    assert at.radio(key="playground_source").value == "live"
    spec, _ = load_example("toy-draft")
    assert at.text_area(key="playground_prompt").value == spec.meta["prompt"]
    at.button(key="playground_run").click().run()
    no_problems(at)
    live = at.session_state["trace"]
    assert live.output_ids == spec.output_ids  # same pair, prompt, settings and seed: the same run, step for step
    assert [s.n_accepted for s in live.steps] == [s.n_accepted for s in spec.steps]


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_a_pair_loaded_by_hand_on_the_models_page_runs_in_the_playground(tmp_path):
    """Models page -> "pair by hand" -> Playground: the same loaded pair drafts, with its own draft model."""
    from specviz.ui.models import view as models_view
    from tests.tiny_folders import save_toy_pair

    target_dir, draft_dir = save_toy_pair(tmp_path)
    spec = f"{target_dir},{draft_dir}"
    loaded = models_view._load(spec, "cpu", "auto", progress=lambda message: None)
    at = page()
    at.session_state[state.CUSTOM_PAIR_KEY] = spec
    at.radio(key="playground_source").set_value("live").run()
    at.selectbox(key="playground_pair").set_value(spec).run()
    assert at.selectbox(key="playground_proposer").options[0] == "Draft model"  # the pair has a draft model
    at.selectbox(key="playground_proposer").set_value("draft").run()
    at.text_area(key="playground_prompt").set_value("hello there").run()
    at.button(key="playground_run").click().run()
    no_problems(at)
    trace = at.session_state["trace"]
    assert trace.meta["pair"] == spec and trace.num_tokens > 0
    assert models_view.loaded_pair(spec) is loaded  # reused, not loaded a second time


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_a_pair_loaded_by_hand_puts_its_typed_name_in_the_address_bar_not_the_server_path(tmp_path):
    """Read 44: the Models page now records a pair by hand under its resolved spec (the pair cache's key) and the
    picker shows the name as typed, but the Playground's link still wrote the spec, so the address bar read
    "pair=/srv/.../target,/srv/.../draft": the server paths the page hides everywhere else."""
    from specviz.ui.models import view as models_view
    from tests.tiny_folders import save_toy_pair

    target_dir, draft_dir = save_toy_pair(tmp_path)
    spec = f"{target_dir},{draft_dir}"
    models_view._load(spec, "cpu", "auto", progress=lambda message: None)
    at = page()
    state_typed = "./target,./draft"
    at.session_state[state.CUSTOM_PAIR_KEY] = spec
    at.session_state[state.CUSTOM_TYPED_KEY] = state_typed
    at.radio(key="playground_source").set_value("live").run()
    at.selectbox(key="playground_pair").set_value(spec).run()
    at.selectbox(key="playground_proposer").set_value("draft").run()
    at.text_area(key="playground_prompt").set_value("hello there").run()
    at.button(key="playground_run").click().run()
    no_problems(at)
    assert at.session_state["trace"].meta["pair"] == spec
    shown = at.query_params["pair"]
    assert shown in (state_typed, [state_typed]), shown
    assert not any(str(tmp_path) in str(at.query_params[k]) for k in at.query_params)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_layer_skip_depth_is_a_control_and_part_of_the_shared_link():
    at = page(source="live", pair="toy", proposer="layerskip", layers="1", k="2", temperature="1", seed="4",
              max_new_tokens="12", prompt="hello there")
    no_problems(at)
    assert at.number_input(key="playground_layers").value == 1
    trace = at.session_state["trace"]
    assert trace.settings["proposer"] == "layerskip-1"
    assert at.query_params["layers"] in ("1", ["1"])
    assert at.number_input(key="playground_layers").max == 1  # the toy target has 2 layers
    at.number_input(key="playground_layers").set_value(5).run()  # too deep for this target: back to the default
    assert not at.exception and at.number_input(key="playground_layers").value == 0


def test_a_link_deeper_than_the_pairs_layer_skip_allows_is_refused_with_the_warning():
    """RunSpec allows up to 128 layers, the toy target's layer skip at most 1: the link's 2 was reset by the input
    with no sentence, and the run kept the default depth while the link said 2."""
    at = page(source="live", pair="toy", proposer="layerskip", layers="2", k="2", max_new_tokens="6", prompt="hi")
    no_problems(at)
    assert [w.value for w in at.warning] == [escape_markdown(
        "A setting in the link was not valid, so it was set to its default: layers must be a whole number from 0 to 1 "
        "(got 2).")]


def test_a_refused_link_setting_is_quoted_with_its_range_and_value():
    """Read 52: "Some settings in the link were not valid (max_new_tokens)" named the parameter only; the warning
    now says what each accepts and what the link gave, as the command line's refusals do."""
    at = page(source="live", pair="toy", max_new_tokens="999", temperature="*hot*", prompt="hi")
    assert [w.value for w in at.warning] == [escape_markdown(
        "Some settings in the link were not valid, so they were set to their defaults: temperature must be a number "
        "from 0 to 2 (got '*hot*'); max_new_tokens must be a whole number from 1 to 256 (got 999).")]


@pytest.mark.parametrize("lang, said", [
    ("en", "A setting in the link was not valid, so it was set to its default: temperature must not be so close to 0 "
           "that it reads as 0 (got 1e-400)."),
    ("pt", "não deve ser tão próximo de 0 que seja lido como 0 (recebido: 1e-400).")])
def test_a_temperature_that_reads_as_zero_is_refused_not_run_greedy(lang, said):
    """Read 53: `temperature=1e-400` underflowed to 0.0 and the live form ran greedy without a word; a number typed
    non-zero that a float reads as 0 is now refused like any other bad link value, in the reader's language."""
    at = page(lang=lang, source="live", pair="toy", proposer="draft", temperature="1e-400", prompt="hi")
    assert not at.exception, at.exception
    (warning,) = [w.value for w in at.warning]
    assert warning.endswith(escape_markdown(said)), warning


@pytest.mark.slow  # over 0.5 s on 2 cores: make check stays under a minute, make test runs it
def test_copying_the_layer_skip_example_keeps_its_depth():
    at = page(source="example", example="smollm-layerskip-t07")
    at.button(key="playground_example_to_live").click().run()
    assert at.session_state["playground_source"] == "live"
    assert at.session_state["playground_layers"] == 7


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_recorded_chat_template_draft_is_explained_where_it_is_drafted():
    """A trace recorded before n-gram lookup passed over the chat template (an upload, say) drafts <|im_start|> in
    its first step: the player says what that token is, right under the chips. (No shipped example does any more:
    tests/labs/test_examples.py holds them to that.)"""
    trace, _base = load_example("smollm-ngram-greedy")
    trace.steps[0].decisions[0].text = "<|im_start|>"
    at = page()
    at.radio(key="playground_source").set_value("upload").run()
    at.file_uploader(key="playground_upload").set_value(("old.json", trace.to_json().encode(), "application/json"))
    at.run()
    no_problems(at)
    assert any("is not a word but a control token of the chat template" in c.value for c in at.caption)
    at.button(key="playground_next").click().run()
    assert not any("control token of the chat template" in c.value for c in at.caption)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_end_of_text_draft_is_called_what_it_is_not_a_token_the_target_never_writes():
    """Read 44: the default example's last step drafts <|im_end|>, the chat model's end of text, which the target
    keeps (p = 0.92) and the text ends on; the caption above it said "the target never writes it inside its
    answer". It now says it is the end-of-text token, which the target writes to end its answer."""
    trace, _base = load_example(DEFAULT_EXAMPLE)
    assert trace.steps[-1].decisions[-1].text == "<|im_end|>" and trace.steps[-1].decisions[-1].accepted
    at = page(example=DEFAULT_EXAMPLE, step=str(trace.num_steps - 1))
    no_problems(at)
    captions = [c.value for c in at.caption]
    assert any("im\\_end" in c and "is not a word but the end-of-text token" in c for c in captions), captions
    assert not any("never writes" in c for c in captions)


@pytest.mark.slow  # over 1 s: make test runs it, make check stays under a minute
def test_a_slow_first_load_is_timed_not_guessed():
    """The loading box counts the seconds while the pair loads and ends with the measured time; the next load of
    that pair on this server says how long this one took (no fixed 'about 15 s' that a busy machine makes false)."""

    def script():
        import time

        import streamlit as st

        from specviz.models.pairs import toy_pair
        from specviz.runs.running import PairCache
        from specviz.ui.common import runs

        def slow(name):
            time.sleep(1.2)
            return toy_pair()

        runs.PAIRS = PairCache(loader=slow)
        runs.TICK_SECONDS = 0.1
        runs.get_pair("slow-toy")
        runs.get_pair("slow-toy")  # loaded now: no second box
        st.write(runs.loading_label("slow-toy", 2.0))

    from specviz.ui.common import runs

    real, tick = runs.PAIRS, runs.TICK_SECONDS
    try:
        at = AppTest.from_function(script, default_timeout=30).run()
    finally:
        runs.PAIRS, runs.TICK_SECONDS = real, tick
    assert not at.exception
    (box,) = at.get("status")
    from specviz.core.i18n import number

    took = runs.last_load_seconds("slow-toy")
    assert 1.2 <= took < 30  # the loader sleeps 1.2 s; a loaded machine adds to it
    shown = number(took, 0)  # the label says the measured time, not a guess (1 s on a quiet machine, 2 s under load)
    assert box.proto.label == f"Ready: the pair 'slow-toy' (loaded in {shown} s)."
    assert box.proto.state == box.proto.COMPLETE
    assert at.markdown[-1].value == f"Loading the pair 'slow-toy': 2 s so far (the last load here took {shown} s)."


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_terms_are_explained_where_they_first_appear():
    """Forward pass in the page's first sentence; α in the sidebar; the KV-cache panel, the residual and the
    • target chip next to where they are drawn (not only in tooltips)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/playground.py").run()
    assert "*forward pass* (one run of the model over the text" in at.caption[0].value
    assert any("**α** (alpha) = the chance that the target keeps one drafted token" in c.value
               for c in at.sidebar.caption)
    assert any("• target: a token the target wrote alone" in c.value for c in at.caption)
    at.button(key="playground_next").click().run()
    assert any(c.value.startswith("**KV caches** · while reading the text, a model stores two vectors per token")
               for c in at.caption)
    at.button(key="playground_end").click().run()
    at.button(key="playground_reset").click().run()
    spec, _ = load_example(DEFAULT_EXAMPLE)
    rejected = next(i for i, s in enumerate(spec.steps) if s.n_accepted < s.n_drafted)
    at.slider(key="playground_slider").set_value(rejected + 1).run()
    at.segmented_control(key=f"playground_step_position_{rejected}").set_value(spec.steps[rejected].n_accepted).run()
    assert any("the tokens the target wanted more than the draft did" in m.value for m in at.markdown)


@pytest.mark.slow  # over 1 s: make test runs it, make check stays under a minute
def test_a_live_run_waiting_for_the_model_says_how_many_are_ahead(monkeypatch):
    import threading
    import time

    from specviz.runs.running import PAIRS
    from specviz.ui.common import runs
    from specviz.ui.playground import progress as playground_progress

    runs._trace_store.clear()
    told: list[int] = []
    real_waiting = playground_progress.LiveProgress.waiting
    monkeypatch.setattr(playground_progress.LiveProgress, "waiting",
                        lambda self, ahead: told.append(ahead) or real_waiting(self, ahead))
    PAIRS.get("toy")
    holding = threading.Event()

    def hold() -> None:
        with PAIRS.turn("toy"):
            holding.set()
            time.sleep(2.5)

    threading.Thread(target=hold, daemon=True).start()
    holding.wait(5)
    at = page(source="live", pair="toy", proposer="draft", k="2", temperature="1", seed="77", max_new_tokens="8",
              prompt="queue please")
    no_problems(at)
    assert told and told[0] == 1  # one run (the thread's) held the model first
    assert at.session_state["trace"].num_tokens == 8


def test_a_preset_keeps_the_students_own_prompt_and_says_so():
    """Issue 27 item 5: pressing a preset silently replaced the student's own prompt."""
    at = page()
    at.radio(key="playground_source").set_value("live").run()
    at.text_area(key="playground_prompt").input("Why do cats purr?").run()
    at.button(key="playground_preset_question").click().run()
    assert at.text_area(key="playground_prompt").value == "Why do cats purr?"
    assert at.selectbox(key="playground_proposer").value == "eagle"  # the preset's settings are in
    assert any("your own prompt stays" in i.value for i in at.info)
    at.button(key="playground_use_preset_prompt").click().run()
    assert at.text_area(key="playground_prompt").value == "Explain owls using an analogy."
    assert not any("your own prompt stays" in i.value for i in at.info)
    at.button(key="playground_preset_copy").click().run()  # a preset's own prompt is replaced, as before
    assert at.text_area(key="playground_prompt").value.startswith("Copy this paragraph exactly")
    no_problems(at)


def test_a_run_from_a_preset_is_compared_with_the_presets_measured_figure():
    """Issue 27 item 5: the EAGLE preset promised 'about one step in two gains a token'; on another prompt a run
    kept 5 of 106 drafts. The preset states its measured figure, and a run from it says how it compares."""
    from specviz.labs.bench import quoted
    from specviz.labs.examples import load_example
    from specviz.runs.presets import preset_run
    from specviz.ui.playground.settings import PRESET_DTYPE, PRESETS, preset_figures

    assert "one step in two" not in PRESETS["question"][1]
    measured = preset_figures("question")["measured"]  # the committed file's counts (test_quoted_figures checks them)
    cpu = quoted.machine_text(preset_run(PRESET_DTYPE)["machine"])

    def script():
        import streamlit as st

        from specviz.labs.examples import load_example
        from specviz.ui.playground import live as playground_live

        trace = load_example("toy-draft")[0]
        trace.settings["max_new_tokens"], trace.meta["chat"] = 48, True  # as a preset sets them
        trace.meta["pair"] = st.session_state.get("pair_used", "default")  # the preset's pair, as a run from it
        trace.settings.update(proposer="eagle", temperature=0.0, k=st.session_state.get("k_used", 3))
        trace.meta["prompt"] = st.session_state.get("prompt_used", "Explain owls using an analogy.")
        st.session_state["playground_preset"] = "question"
        playground_live.compare_with_preset(trace)

    at = AppTest.from_function(script, default_timeout=30)
    at.run()
    trace = load_example("toy-draft")[0]
    kept, drafted = sum(s.n_accepted for s in trace.steps), sum(s.n_drafted for s in trace.steps)
    shown = at.caption[0].value
    assert f"This run: {kept} of {drafted} drafts kept" in shown and measured in shown
    assert f"on {cpu}" in shown and "{cpu}" not in shown  # the machine it was measured on, named
    assert "not the preset's" not in shown
    at.session_state["prompt_used"] = "Why do cats purr?"
    at.run()
    assert "Your prompt is not the preset's" in at.caption[0].value
    # another K than the preset's 3: the preset's figures were measured with its own shape, so no comparison
    at.session_state["k_used"] = 5
    at.run()
    assert not [c for c in at.caption if c.value.startswith("This run:")]
    # the 28th read: the pair switched to toy after the preset (its other settings kept) was compared too, with
    # figures measured on SmolLM2; the docstring listed what must match and left the pair out
    at.session_state["k_used"] = 3
    at.session_state["pair_used"] = "toy"
    at.run()
    assert not [c for c in at.caption if c.value.startswith("This run:")]


@pytest.mark.parametrize("lang, cut, said", [
    ("en", True, "It stopped at its time limit after 47 new tokens, so its counts cover fewer tokens than the "
                 "preset's figures."),
    ("pt", True, "Ela parou no seu limite de tempo depois de 47 tokens novos, então as suas contagens cobrem menos "
                 "tokens que os números da predefinição."),
    ("en", False, "stopped at its time limit")])
def test_a_preset_run_cut_short_at_its_time_limit_says_so_beside_the_promise(lang, cut, said):
    """Read 49: on a busy server the sampling preset's run stopped at its time limit after 29 tokens, and "This run:
    11 of 54 drafts kept" stood under a promise of "15 to 21 of 75 to 96 ... with 48 new tokens", as if the drafter
    had done worse; only the player's caption further down said the run was cut short."""

    def script(lang: str, cut: bool):
        import streamlit as st

        from specviz.core.i18n import using
        from specviz.engine.kinds import StopReason
        from specviz.labs.examples import load_example
        from specviz.ui.playground import live as playground_live

        trace = load_example("toy-draft")[0]
        trace.settings["max_new_tokens"], trace.meta["chat"] = 48, True  # as a preset sets them
        trace.meta.update(pair="default", prompt="Explain owls using an analogy.")  # a run from the preset
        trace.settings.update(proposer="eagle", temperature=0.7, k=3)
        if cut:
            trace.stop_reason = StopReason.DEADLINE
        st.session_state["playground_preset"] = "sampling"
        with using(lang):
            playground_live.compare_with_preset(trace)

    at = AppTest.from_function(script, args=(lang, cut), default_timeout=30)
    at.run()
    assert not at.exception
    shown = at.caption[0].value
    assert shown.startswith("This run:" if lang == "en" else "Esta execução:")
    assert (said in shown) == cut, shown


@pytest.mark.parametrize("layers, shown", [(0, True), (20, False)])
def test_the_untrained_presets_run_is_compared_unless_its_layers_changed(layers, shown):
    """A layer-skip trace names its proposer "layerskip-7" (its label), never the preset's "layerskip", so the
    untrained preset's run was never compared with its measured figures; a run with other layers (another drafter)
    must not be."""
    from dataclasses import replace

    from specviz.runs.presets import preset_spec

    def script(layers: int):
        import streamlit as st

        from dataclasses import replace

        from specviz.labs.examples import load_example
        from specviz.runs.presets import preset_spec
        from specviz.ui.playground import live as playground_live

        trace = load_example("toy-draft")[0]
        trace.settings["max_new_tokens"], trace.meta["chat"] = 48, True  # as a preset sets them
        trace.meta["pair"] = "default"
        trace.settings.update(proposer="layerskip-7", layers=7, temperature=0.7, k=3)  # as a real run records it
        st.session_state["playground_preset"] = "untrained"
        spec = preset_spec("untrained")
        playground_live.compare_with_preset(trace, replace(spec, proposer_settings={"layers": layers})
                                            if layers else spec)

    at = AppTest.from_function(script, args=(layers,), default_timeout=30)
    at.run()
    assert not at.exception
    assert [c.value.startswith("This run:") for c in at.caption] == ([True] if shown else [])
    assert replace(preset_spec("untrained"), proposer_settings={"layers": 20}).proposer_settings  # the case is real


@pytest.mark.parametrize("changed", [{}, {"top_p": 0.5}, {"top_k": 5}, {"max_new_tokens": 16}, {"chat": False}])
def test_a_run_with_other_sampling_or_length_settings_is_not_compared_with_the_presets_figures(changed):
    """Read 50: a preset set its proposer, K and temperature but left top-p, top-k, the chat template and the token
    limit as they were, and "This run: ..." stood beside the sampling preset's figures, measured with top-p 1 and 48
    new tokens, under a run with top-p 0.5 or 16 new tokens."""

    def script(changed: dict):
        import streamlit as st

        from specviz.labs.examples import load_example
        from specviz.ui.playground import live as playground_live

        trace = load_example("toy-draft")[0]
        trace.meta.update(pair="default", prompt="Explain owls using an analogy.", chat=changed.get("chat", True))
        trace.settings.update(proposer="eagle", temperature=0.7, k=3, max_new_tokens=48)
        trace.settings.update({key: value for key, value in changed.items() if key != "chat"})
        st.session_state["playground_preset"] = "sampling"
        playground_live.compare_with_preset(trace)

    at = AppTest.from_function(script, args=(changed,), default_timeout=30)
    at.run()
    assert not at.exception
    assert [c.value.startswith("This run:") for c in at.caption] == ([] if changed else [True])


def test_a_preset_sets_the_sampling_and_length_settings_its_figures_were_measured_with():
    """Read 50: top-p 0.5, top-k 5, 16 new tokens and the chat template off, set before, stayed after a preset."""
    at = page()
    at.radio(key="playground_source").set_value("live").run()
    at.number_input(key="playground_top_p").set_value(0.5).run()
    at.number_input(key="playground_top_k").set_value(5).run()
    at.number_input(key="playground_max_new_tokens").set_value(16).run()
    at.toggle(key="playground_chat").set_value(False).run()
    at.button(key="playground_preset_sampling").click().run()
    assert (at.number_input(key="playground_top_p").value, at.number_input(key="playground_top_k").value,
            at.number_input(key="playground_max_new_tokens").value, at.toggle(key="playground_chat").value) == (
        1.0, 0, 48, True)
    no_problems(at)


def _toy_tree_with_copies():
    """A toy run with a draft tree and a lookup branch whose copied tokens the target keeps some of."""
    from specviz.runs.runspec import RunSpec
    from specviz.ui.common.runs import run_speculative

    trace = run_speculative(RunSpec(pair="toy", proposer="draft", prompt="abc abc abc abc abc abc", chat=False, k=4,
                                    temperature=0.0, tree_nodes=6, tree_width=2, tree_lookup=4, max_new_tokens=32))
    assert trace.num_copied and trace.num_copied_accepted  # the case is real
    return trace


def test_a_tree_presets_run_counts_drafts_as_the_headline_does_without_copies():
    """Read 45: under a run from the tree preset (a lookup branch of 8), "This run: X of Y drafts kept" counted the
    tokens the lookup branch copied as drafts, while the headline's "Drafts accepted" above it did not."""
    from specviz.ui.common.step_view import trace_headline

    trace = _toy_tree_with_copies()

    def script():
        import streamlit as st

        from specviz.ui.playground import live as playground_live
        from specviz.ui.playground.settings import preset_settings

        trace = st.session_state["trace_used"]
        trace.meta.update(pair="default", prompt=preset_settings("tree")["prompt"])  # as a run from the preset
        trace.settings["max_new_tokens"], trace.meta["chat"] = 48, True  # as a preset sets them
        trace.settings.update({key: value for key, value in preset_settings("tree").items() if key != "prompt"})
        st.session_state["playground_preset"] = "tree"
        playground_live.compare_with_preset(trace)

    at = AppTest.from_function(script, default_timeout=30)
    at.session_state["trace_used"] = trace
    at.run()
    assert not at.exception
    kept = trace.num_accepted - trace.num_copied_accepted
    drafted = trace.num_drafted - trace.num_copied
    assert f"This run: {kept} of {drafted} drafts kept" in at.caption[0].value
    assert trace_headline(trace)["Drafts accepted"] == f"{kept} of {drafted}"


def test_the_live_bar_counts_drafts_as_the_headline_does_without_copies():
    """Read 45: the bar drawn while a tree run with a lookup branch ran counted the copied tokens as drafts kept."""
    from specviz.runs.runspec import RunSpec
    from specviz.ui.common import runs
    from specviz.ui.playground.progress import LiveProgress

    spec = RunSpec(pair="toy", proposer="draft", prompt="abc abc abc abc abc abc", chat=False, k=4, temperature=0.0,
                   tree_nodes=6, tree_width=2, tree_lookup=4, max_new_tokens=32)
    runs._trace_store.clear()  # a new run, drawn step by step
    progress = LiveProgress(spec)
    trace = runs.run_speculative(spec, progress=progress)
    assert trace.num_copied and trace.num_copied_accepted  # the case is real
    assert (progress.kept, progress.drafted) == (trace.num_accepted - trace.num_copied_accepted,
                                                 trace.num_drafted - trace.num_copied)


@pytest.mark.parametrize("preset, reason", [("copy", "n-gram lookup only drafts what followed the same tokens"),
                                            ("untrained", None), ("question", "the drafter learned from short chat")])
def test_another_prompts_reason_fits_the_presets_proposer(preset, reason):
    """"The drafter learned from short chat answers" is true of the trained drafters (EAGLE, Medusa and the separate
    draft, which no preset runs): n-gram lookup learned nothing (it copies the text so far) and the untrained
    layer-skip draft learned nothing at all."""
    from specviz.ui.playground.live import other_prompt_reason

    assert [other_prompt_reason(p) for p in ("eagle", "medusa", "draft")] == ["other_prompt"] * 3

    def script(preset: str):
        import streamlit as st

        from specviz.labs.examples import load_example
        from specviz.ui.playground import live as playground_live
        from specviz.ui.playground.settings import preset_settings

        trace = load_example("toy-draft")[0]
        trace.settings["max_new_tokens"], trace.meta["chat"] = 48, True  # as a preset sets them
        trace.meta["pair"] = "default"  # a run from the preset: its pair
        settings = preset_settings(preset)
        trace.settings.update(proposer=settings["proposer"], temperature=settings["temperature"], k=settings["k"])
        trace.meta["prompt"] = "Why do cats purr?"  # not the preset's prompt
        st.session_state["playground_preset"] = preset
        playground_live.compare_with_preset(trace)

    at = AppTest.from_function(script, args=(preset,), default_timeout=30)
    at.run()
    shown = at.caption[0].value
    assert shown.startswith("This run:")
    if reason is None:
        assert "not the preset's" not in shown
    else:
        assert "Your prompt is not the preset's: " + reason in shown
    assert preset == "question" or "learned from short chat" not in shown

@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_run_of_a_pooled_preset_says_it_is_one_prompt_against_the_committed_runs_prompts(lang):
    """Read 51: after the tree preset the page said "This run: 29 of 288 drafts kept, 2.53 tokens per target pass"
    beside the preset's promise of 2.90, which pools the 8 held-out prompts of assets/benchmarks/default-cpu-bf16-tree
    at up to 128 new tokens each (920 tokens in 317 target passes), so a student read the preset as failing. The
    caption now says this run is one prompt and what the promise pooled; a chain preset, measured on its own prompt,
    gets no such sentence."""
    import json

    from specviz.labs.bench import quoted
    from specviz.ui.playground.settings import MEDUSA_PRESET_RUN, TREE_PRESET_RUN

    def script(preset: str, lang: str):
        import streamlit as st

        from specviz.core.i18n import using
        from specviz.labs.examples import load_example
        from specviz.ui.playground import live as playground_live
        from specviz.ui.playground.settings import preset_settings

        trace = load_example("toy-draft")[0]
        trace.settings["max_new_tokens"], trace.meta["chat"] = 48, True  # as a preset sets them
        trace.meta["pair"] = "default"  # a run from the preset: its pair
        settings = preset_settings(preset)
        trace.settings.update({key: settings[key] for key in ("proposer", "temperature", "k", "tree_nodes",
                                                              "tree_width", "tree_lookup") if key in settings})
        trace.meta["prompt"] = settings["prompt"]
        st.session_state["playground_preset"] = preset
        with using(lang):
            playground_live.compare_with_preset(trace)

    runs = {folder: quoted.result(folder) for folder in (TREE_PRESET_RUN, MEDUSA_PRESET_RUN)}
    for folder, run in runs.items():  # what the sentence says, read from the files
        prompts = {c["prompt_id"] for c in run["cases"]}
        assert len(prompts) == 8 and run["config"]["max_new_tokens"] == 128, folder
    shapes = json.loads((ROOT / "assets" / "benchmarks" / "shapes" / "default.json").read_text(encoding="utf-8"))
    assert (shapes["prompts"], shapes["suite"], shapes["max_new_tokens"]) == (8, "held-out", 128)  # the lookup lift
    said = {"en": "This run is one prompt, with at most 48 new tokens; the preset's figures were measured over 8 "
                  "held-out prompts together, up to 128 new tokens each, so one prompt can land above or below them.",
            "pt": "Esta execução é um prompt só, com no máximo 48 tokens novos; os números da predefinição foram "
                  "medidos sobre 8 prompts reservados juntos, com até 128 tokens novos cada um, então um prompt pode "
                  "ficar acima ou abaixo deles."}[lang]
    for preset in ("tree", "medusa"):
        at = AppTest.from_function(script, args=(preset, lang), default_timeout=30)
        at.run()
        assert not at.exception
        shown = at.caption[0].value
        assert shown.startswith("This run:" if lang == "en" else "Esta execução:") and said in shown, shown
    at = AppTest.from_function(script, args=("copy", lang), default_timeout=30)
    at.run()
    assert at.caption and said.split(";")[0] not in at.caption[0].value


def test_a_greedy_example_is_compared_with_target_only_decoding():
    """Issue 27 item 4: where the Playground shows a greedy run, it says whether it is the target's own text and,
    where it is not, the first split and the top-2 logit gap there (specviz.ui.common.greedy_compare)."""
    at = page(example="smollm-ngram-greedy")
    no_problems(at)
    assert any(e.label == "Same text as target-only decoding?" for e in at.expander)
    assert any(m.value.startswith("Identical to the target-only output, token for token") and "(float32)" in m.value
               for m in at.markdown)
    sampled = page(example="smollm-ngram-t07")  # at T > 0 there is nothing to compare token for token
    assert not any(e.label == "Same text as target-only decoding?" for e in sampled.expander)


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_the_temperature_and_top_p_are_repeated_with_commas_in_portuguese(lang):
    """Issue 27 item 9: the number inputs' format="%.2f" shows 0.70 whatever the language; Streamlit cannot localise
    them, so in Portuguese a caption under them repeats the values with a decimal comma."""
    at = page(source="live", pair="toy", proposer="draft", temperature="0.7", top_p="0.95", lang=lang)
    no_problems(at)
    repeated = [c.value for c in at.caption if "decimals with a point" in c.value or "decimais com ponto" in c.value]
    if lang == "en":
        assert repeated == []  # the boxes already write decimals the English way
    else:
        assert repeated == ["As caixas acima escrevem os decimais com ponto: temperatura 0,70; top-p 0,95."]


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_a_links_temperature_is_shown_with_every_decimal_it_runs_with(lang):
    at = page(source="live", pair="toy", proposer="draft", temperature="0.123", top_p="0.9375", lang=lang)
    no_problems(at)
    formats = {n.key: n.proto.format for n in at.number_input}
    assert at.session_state["trace"].settings["temperature"] == 0.123
    assert formats["playground_temperature"] == "%.3f" and formats["playground_top_p"] == "%.4f"
    if lang == "pt":
        assert "temperatura 0,123; top-p 0,9375." in " ".join(c.value for c in at.caption)


def test_the_fastest_preset_takes_this_machines_shape(tmp_path, monkeypatch):
    from specviz.labs.calibration import Calibration, cache_path
    from specviz.ui.common.this_machine import expected

    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))
    at = page()
    at.radio(key="playground_source").set_value("live").run()
    at.button(key="playground_preset_fastest").click().run()  # not measured: the catalog's shape, said so
    best = recommended_for("default")
    assert at.slider(key="playground_k").value == best.k
    assert at.number_input(key="playground_tree_nodes").value == best.tree_nodes
    # read 52: it said "the draft shape predicted fastest on this machine (...): this machine is not measured yet";
    # before a measurement it names the shape it runs and says when the predicted one takes over
    said = (f"6: the same drafter with the pair's recommended draft shape ({best.shape.describe()}), as this machine "
            "is not measured yet; once the Speedup lab measures it, the draft shape predicted fastest here")
    shown = " ".join(c.value for c in at.caption)
    assert said in shown and "predicted fastest on this machine" not in shown
    # measured: a machine where verifying more than 3 tokens is dear, so a short chain is fastest
    from specviz.engine.kernels import PACKED, STOCK, packing_available
    from specviz.models.machine import cpu_has_bf16

    dtype, kernels = ("bfloat16" if cpu_has_bf16() else "float32"), (PACKED if packing_available() else STOCK)
    steep = Calibration("default", "eagle", dtype, "cpu", kernels, "Test CPU", (), False, "x", 2,
                        ((1, 0.05), (2, 0.052), (3, 0.055), (5, 0.2), (9, 0.3), (17, 0.4), (25, 0.5), (33, 0.6)),
                        0.002, 0.055, 0.01, measured_at="2026-12-03T12:00:00Z")
    path = cache_path("default", dtype, kernels)
    path.parent.mkdir(parents=True)
    path.write_text(steep.to_json())
    assert expected() == steep
    at.button(key="playground_preset_fastest").click().run()
    assert at.number_input(key="playground_tree_nodes").value == 0 and at.slider(key="playground_k").value <= 2
    assert any("predicted" in c.value and "the speed of model.generate here" in c.value for c in at.caption)
    assert not any("not measured yet" in c.value for c in at.caption)


def test_the_fastest_presets_promise_before_a_measurement_says_what_it_runs_in_portuguese(tmp_path, monkeypatch):
    from specviz.core.i18n import using
    from specviz.ui.playground.settings import preset_expectation

    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))
    with using("pt"):
        shape = recommended_for("default").shape.describe()
        assert preset_expectation("fastest") == (
            f"o mesmo rascunhador com a forma de rascunho recomendada do par ({shape}), pois esta máquina ainda não "
            "foi medida; depois que o Laboratório de aceleração a medir, a forma de rascunho prevista como a mais "
            "rápida aqui")


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_who_drafts_explains_every_proposer_the_menu_offers(lang):
    """The menu's help is built from the registry's notes: Medusa (and any proposer registered later) is explained
    as soon as it is offered, in the reader's language."""
    from specviz.core.i18n import _, using
    from specviz.engine.proposers import registry
    from specviz.ui.playground.live import who_drafts_help
    from specviz.ui.playground.settings import pair_proposers

    with using(lang):
        shown = who_drafts_help(pair_proposers("default"))
        notes = [_(registry.note_of(name)) for name in pair_proposers("default")]
    assert len(notes) == 5 and all(note in shown for note in notes)
    assert ("**Medusa**" in shown) and shown.index("**EAGLE**") < shown.index("**Medusa**")


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_each_measured_preset_names_the_cpu_it_was_measured_on(lang):
    """Issue 43: the presets said "this project's 2-core CPU"; the project ran on two 2-core CPUs (an AMD EPYC and an
    Intel Xeon). The first four presets and the first-load hint name the machine their committed file records
    (assets/benchmarks/presets/presets.json; issue 43 item 4: a PRESET_MACHINE typed in the code before) through
    `quoted.machine_text`, as the tree and Medusa presets name their committed runs' through `quoted.machine`."""
    from specviz.core.i18n import _, using
    from specviz.labs.bench import quoted
    from specviz.runs.presets import preset_run
    from specviz.ui.playground import settings
    from specviz.ui.playground.settings import PRESET_DTYPE, PRESETS, TEXT, first_load_figures, preset_expectation

    assert not hasattr(settings, "PRESET_MACHINE")
    with using(lang):
        cpu = quoted.machine_text(preset_run(PRESET_DTYPE)["machine"])
        for name in ("copy", "question", "sampling", "untrained"):
            shown = preset_expectation(name)
            assert cpu in shown and "{" not in shown and "2-core CPU" not in shown, (name, shown)
        hint = _(TEXT["first_prompt"], **first_load_figures())
        assert cpu in hint and "{" not in hint and "2-core CPU" not in TEXT["first_prompt"]
        # read 48: "The first run loads the real model" beside the sidebar's "already loading" (the background load)
        assert hint.startswith({"en": "Type a prompt, choose the settings and press **Run**. If the real model is not "
                                      "ready yet, the first run waits for it to load",
                                "pt": "Digite um prompt, escolha as configurações e aperte **Executar**. Se o modelo "
                                      "real ainda não estiver pronto, a primeira execução espera que ele "
                                      "carregue"}[lang])
    assert "{cpu}" in PRESETS["tree"][1] and "{cpu}" in PRESETS["medusa"][1]


def test_a_tree_step_coming_up_counts_its_nodes_and_asks_no_guess():
    """Issue 43, ninth read: before a tree step was revealed the player showed its `decisions` as "The proposer
    drafted:" and asked "how many of these n will the target accept?", n being the main line the check walked (the
    accepted path and the child rejected below it), not the nodes drafted: the toy pair's 8-node trees showed 1 to 3
    chips, and the number of chips gave the answer away. It now names the nodes and asks nothing."""
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    tree = run(RunSpec(pair="toy", proposer="draft", prompt="hello", k=3, tree_nodes=8, tree_width=2,
                       max_new_tokens=12, temperature=0.0))
    first = tree.steps[0]
    assert first.tree is not None and first.n_drafted == 8 and len(first.decisions) < 8
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.radio(key="playground_source").set_value("upload").run()
    at.file_uploader(key="playground_upload").set_value(("tree.json", tree.to_json().encode(), "application/json"))
    at.run()
    no_problems(at)
    assert any("Coming up: step 1.** The proposer drafted a tree of 8 nodes" in m.value for m in at.markdown)
    assert not [n for n in at.number_input if n.key.startswith("playground_predict_")]


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_tree_step_coming_up_counts_its_copied_tokens_apart_as_the_step_does(lang):
    """43rd read: before a tree step with a lookup branch was revealed, the player said "The proposer drafted a tree
    of 11 nodes", counting the 5 tokens copied from the context, which no proposer drafted; the revealed step's
    headline and the tree's title say "6 nodes plus 5 tokens copied from the context"."""
    from specviz.core.i18n import using
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    tree = run(RunSpec(pair="toy", proposer="draft", prompt="the quick brown fox jumps over the lazy dog. the quick "
                       "brown fox jumps", chat=False, k=3, tree_nodes=6, tree_width=2, tree_lookup=5,
                       max_new_tokens=12, temperature=0.0))
    first = tree.steps[0]
    copied = sum(node.copied for node in first.tree.nodes)
    assert copied and first.n_drafted == 6 + copied
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    with using(lang):  # AppTest formats the radio's options in this process: the page's language
        at.radio(key="playground_source").set_value("upload").run()
        at.file_uploader(key="playground_upload").set_value(("tree.json", tree.to_json().encode(),
                                                             "application/json"))
        at.run()
    no_problems(at)
    said = {"en": f"drafted a tree of 6 nodes plus {copied} tokens copied from the context, and",
            "pt": f"rascunhou uma árvore de 6 nós mais {copied} tokens copiados do contexto, e"}[lang]
    assert any(said in m.value for m in at.markdown), [m.value for m in at.markdown]
    assert not any(f"a tree of {6 + copied} nodes" in m.value or f"árvore de {6 + copied} nós" in m.value
                   for m in at.markdown)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_tree_step_with_no_node_left_to_draft_is_not_announced_as_a_tree(lang):
    """43rd read: a tree run's last step, with one token left to write, drafts no node; the player announced it as
    "The proposer drafted a tree of 0 nodes, and the target checks them all in one forward pass: the step shows the
    tree and the path it kept", and the step then showed no tree. It says nothing was drafted, as a chain step does.
    Read 51: it said so in two pieces, "The proposer drafted:" over "(nothing drafted: …)"; now in one sentence."""
    from specviz.core.i18n import using
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    tree = run(RunSpec(pair="toy", proposer="draft", prompt="hello there", chat=False, k=3, tree_nodes=4,
                       tree_width=2, max_new_tokens=9, temperature=1.0, seed=1))
    last = tree.steps[-1]
    assert last.tree is not None and not last.tree.nodes and not last.decisions
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    with using(lang):  # AppTest formats the radio's options in this process: the page's language
        at.radio(key="playground_source").set_value("upload").run()
        at.file_uploader(key="playground_upload").set_value(("tree.json", tree.to_json().encode(),
                                                             "application/json"))
        at.run()
        at.slider(key="playground_slider").set_value(tree.num_steps - 1).run()
    no_problems(at)
    coming = [m.value for m in at.markdown if "Coming up" in m.value or "A seguir" in m.value]
    said = {"en": f"**Coming up: step {tree.num_steps}.** The proposer drafted nothing (it found no guess, the draft "
                  "length was 0, or only one token was left to write), so the target writes one token on its own.",
            "pt": f"**A seguir: passo {tree.num_steps}.** O proponente não rascunhou nada (não achou palpite, o "
                  "tamanho do rascunho era 0 ou só faltava escrever um token), então o alvo escreve um token "
                  "sozinho."}[lang]
    assert coming == [said], coming
    assert not any("(nothing drafted" in h.proto.body or "(nada rascunhado" in h.proto.body for h in at.get("html"))


def test_each_measured_chain_preset_names_its_temperature():
    """Issue 43, twelfth read: the untrained layer-skip preset runs at T = 0.7, but its promise named no temperature
    while the others say "greedy" or "temperature 0.7"; a sampled figure read as a greedy one."""
    from specviz.ui.playground.settings import PRESETS

    for name in ("copy", "question", "sampling", "untrained"):
        text, settings = PRESETS[name][1], PRESETS[name][2]
        assert ("greedy" in text) if settings["temperature"] == 0 else ("temperature 0.7" in text), name


def test_the_presets_intro_says_which_presets_get_harder():
    """Presets 2 to 4 each emit fewer tokens per target pass than the one before; the tree and Medusa presets'
    committed figures are above 4's (the fastest preset quotes a shape, no count), so the intro must not say that
    each next preset is harder for the draft (it did once there were seven)."""
    from specviz.runs.presets import preset_measurement
    from specviz.ui.playground.settings import PRESET_DTYPE, PRESETS, TEXT, preset_figures

    assert list(PRESETS) == ["copy", "question", "sampling", "untrained", "tree", "fastest", "medusa"]
    # the committed counts the texts quote (assets/benchmarks/presets/presets.json): the best seed of each
    chain = [preset_measurement(name, PRESET_DTYPE).mean_accepted_length[1]
             for name in ("copy", "question", "sampling", "untrained")]
    assert chain == sorted(chain, reverse=True) and len(set(chain)) == 4  # each harder
    later = [float(preset_figures("tree")["tree"]), float(preset_figures("medusa")["medusa"])]
    assert min(later) > chain[-1]  # not harder than the untrained draft
    assert set(preset_figures("fastest")) == {"shape", "prediction"}  # no committed count to compare
    assert "each next one" not in TEXT["presets"] and "the next three are each harder" in TEXT["presets"]
    from specviz.core.i18n import _, set_language

    set_language("pt")
    try:
        assert "cada uma das três seguintes" in _(TEXT["presets"]) and "as três últimas" in _(TEXT["presets"])
    finally:
        set_language("en")


def test_the_tree_help_does_not_bound_a_lookup_branch_by_k():
    """The 24th read: the nodes help said a tree's "depth is at most K" next to the lookup-branch input, but a
    committed tree with a lookup branch is tested deeper than K (default-cpu-f32-packed: K = 3, acceptance by
    position to depth 8); only its drafted nodes stop at K."""
    import inspect
    import json

    from specviz.core.paths import ASSETS
    from specviz.ui.playground import live

    rows = json.loads((ASSETS / "benchmarks/default-cpu-f32-packed/results.json").read_text())["summary"]
    deep = [r for r in rows if r.get("tree_lookup") and len(r["per_position"]) > r["k"]]
    assert deep, "a committed tree with a lookup branch reaches deeper than K"
    source = inspect.getsource(live.tree_inputs)
    assert "its depth is at most K" not in source and "drafted nodes go at most K deep" in source


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_the_seed_help_says_same_tokens_only_in_the_same_dtype_and_machine(toy):
    """Read 36: the seed box's help said "Same seed, same run." A seed fixes the draws, not the rounding: on the toy
    pair some seed gives other tokens in bfloat16 than in float32 (and a run's timings always vary)."""
    import copy

    import torch

    from specviz.engine.decoding import speculative_generate
    from specviz.ui.playground import live

    ids = toy.tokenizer("the quick brown fox")["input_ids"]
    half = copy.deepcopy(toy.target).to(torch.bfloat16), copy.deepcopy(toy.draft).to(torch.bfloat16)
    settings = dict(k=3, temperature=1.0, max_new_tokens=30)
    parted = [seed for seed in range(10)
              if speculative_generate(toy.target, toy.draft, ids, seed=seed, **settings).output_ids
              != speculative_generate(*half, ids, seed=seed, **settings).output_ids]
    assert parted
    assert "Same seed, same run." not in live.SEED_HELP
    assert "in the same dtype on the same kind of machine" in live.SEED_HELP


def test_the_live_progress_line_agrees_with_a_token_limit_of_one():
    """Read 44: the live bar read "Step 1 · 1 of at most 1 tokens" ("de no máximo 1 tokens") when Max new tokens was
    1, the least the Playground allows."""
    from specviz.core.i18n import using
    from specviz.engine.trace import TokenKind
    from specviz.runs.runspec import RunSpec
    from specviz.ui.playground import progress as playground_progress

    class Bar:
        def __init__(self):
            self.said = []

        def progress(self, value, text=""):
            self.said.append(text)

        def markdown(self, *args, **kwargs):
            pass

        html = markdown

    for lang, limit, expected in (("en", 1, "Step 1 · 1 of at most 1 token · "),
                                  ("en", 64, "Step 1 · 1 of at most 64 tokens · "),
                                  ("pt", 1, "Passo 1 · 1 de no máximo 1 token · ")):
        live = playground_progress.LiveProgress(RunSpec(pair="toy", prompt="hello", max_new_tokens=limit))
        live.bar, live.line, live.text = Bar(), Bar(), Bar()
        live.groups, live.tokens = [[("h", TokenKind.BONUS)]], 1
        with using(lang):
            live.draw(0.0)
        assert live.bar.said[-1].startswith(expected), live.bar.said


def test_every_tree_preset_counts_its_tree_in_nodes():
    """Read 45: preset 5 said "a tree of 16 candidates" where presets 6 and 7 (and the glossary's tree size) say
    nodes; a student read two words for one count. Both languages."""
    from specviz.core.i18n import _, using
    from specviz.ui.playground.settings import PRESETS

    assert "a tree of {nodes} nodes, plus" in PRESETS["tree"][1] and "candidates" not in PRESETS["tree"][1]
    assert "a tree of {nodes} nodes (width" in PRESETS["medusa"][1]
    with using("pt"):
        assert "uma árvore de {nodes} nós, mais" in _(PRESETS["tree"][1]) and "candidatos" not in _(PRESETS["tree"][1])


def test_a_token_that_reads_as_markdown_is_shown_as_it_is_in_the_step_tables():
    """Read 45: `st.table` reads every cell as markdown, so the EAGLE example's step 2, whose draft is the token "-",
    listed it as an empty bullet in the table of p and q: its cell is escaped (`escape_cell`), a browser shows "-"."""
    at = page(source="example", example="smollm-eagle-greedy", step="2")
    no_problems(at)
    spec, _ = load_example("smollm-eagle-greedy")
    assert spec.steps[1].decisions[0].text == "-"
    tokens = [str(i) for t in at.table if "q (draft)" in t.value.columns for i in t.value.index]
    assert "\\-" in tokens and "-" not in tokens


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_live_run_cut_by_the_time_limit_is_not_what_its_link_shows_next(monkeypatch):
    """Read 46: the docs' owls link read "Step 2 of 15" for one reader and "Passo 2 de 8" for another. The same spec
    gives the same tokens in either language; a live run stops at RUN_SECONDS on a busy server, and that cut trace
    was cached as the spec's run, so every later visitor of the link got the shortened run. A run the time limit cut
    short is shown to the session that ran it but not stored: the next press runs the whole of it. Read 52: the
    player, keyed by the settings alone, then stayed on the cut run's step ("Step 14 of 19", the first trace's
    guesses) instead of opening on the whole run's answer."""
    from specviz.engine.kinds import StopReason
    from specviz.ui.common import runs

    runs._trace_store.clear()
    monkeypatch.setattr(runs, "COOLDOWN_SECONDS", 0.0)
    monkeypatch.setattr(runs, "RUN_SECONDS", -1.0)  # past before the first step ends: the run stops after it
    at = page()
    at.radio(key="playground_source").set_value("live").run()
    at.selectbox(key="playground_pair").set_value("toy").run()
    at.selectbox(key="playground_proposer").set_value("draft").run()
    at.text_area(key="playground_prompt").set_value("cut short").run()
    at.button(key="playground_run").click().run()
    no_problems(at)
    cut, spec, _id = at.session_state["playground_live"]
    assert cut.stop_reason == StopReason.DEADLINE and counter(at) == (1, 1)
    at.button(key="playground_prev").click().run()
    assert counter(at) == (0, 1)
    assert runs.cached_speculative(spec) is None  # not the link's run for the next visitor
    monkeypatch.setattr(runs, "RUN_SECONDS", 60.0)
    at.button(key="playground_run").click().run()
    no_problems(at)
    whole, again, _id = at.session_state["playground_live"]
    assert again == spec and whole.stop_reason != StopReason.DEADLINE and whole.num_steps > 1
    assert runs.cached_speculative(spec) is not None
    assert counter(at) == (whole.num_steps, whole.num_steps)  # it opens on the whole run's answer, not on step 0
    assert any(f"Done: {whole.num_tokens} tokens" in s.value for s in at.success)


@pytest.mark.slow  # three pages
@pytest.mark.parametrize("lang, said", [("en", "Cut short: this run stopped at its time limit"),
                                        ("pt", "Interrompida: esta execução parou no seu limite de tempo")])
def test_a_cut_short_trace_says_so_beside_the_step_counter_at_every_step(lang, said):
    """Read 47: "Step 2 of 8" did not say the run was cut short (by its time limit) until its last step, so a reader
    took 8 for the whole run. A caption under the counter says so at every step; a complete trace says nothing."""
    from specviz.core.i18n import using
    from specviz.engine.kinds import StopReason

    whole, _ = load_example("toy-draft")
    assert whole.stop_reason != StopReason.DEADLINE and whole.num_steps > 3
    cut = Trace.from_json(whole.to_json())
    cut.stop_reason = StopReason.DEADLINE
    at = page(lang=lang, source="upload")
    with using(lang):  # AppTest formats the radio's options in this process: the page's language
        at.file_uploader(key="playground_upload").set_value(("cut.json", cut.to_json().encode(),
                                                             "application/json")).run()
        for _ in range(2):
            at.button(key="playground_next").click().run()
    no_problems(at)
    where = {"en": f"Step 2 of {whole.num_steps}", "pt": f"Passo 2 de {whole.num_steps}"}[lang]
    assert [m.value for m in at.markdown if where in m.value]  # a middle step
    assert [c.value for c in at.caption if said in c.value]
    complete = page(lang=lang, source="example", example="toy-draft", step="2")
    no_problems(complete)
    assert [m.value for m in complete.markdown if where in m.value]
    assert not [c.value for c in complete.caption if said in c.value]
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_done_line_names_no_stop_a_trace_does_not_record(lang):
    """Read 47: a trace with no stop reason (an uploaded file may say "") finished on "It stopped at the token
    limit.", which nothing in it showed. It now ends where the counts end; a recorded reason is still said."""
    from dataclasses import replace

    from specviz.core.i18n import using
    from specviz.engine.kinds import StopReason
    from specviz.ui.playground.player import done_text

    trace = load_example("toy-draft")[0]
    with using(lang):
        unknown = done_text(replace(trace, stop_reason=""))
        limit = done_text(replace(trace, stop_reason=StopReason.MAX_NEW_TOKENS))
        eos = done_text(replace(trace, stop_reason=StopReason.EOS))
    said = {"en": ("It stopped", "It stopped at the token limit.", "It stopped at the end-of-text token."),
            "pt": ("Parou", "Parou no limite de tokens.", "Parou no token de fim de texto.")}[lang]
    assert said[0] not in unknown and unknown.endswith("."), unknown
    assert limit.endswith(said[1]) and eos.endswith(said[2]), (limit, eos)
    assert limit.startswith(unknown), (unknown, limit)


@pytest.mark.parametrize("lang, said", [("en", "Layers the layer-skip draft keeps (0 = a quarter, rounded down, at "
                                               "least 1)"),
                                        ("pt", "Camadas que o rascunho de pular camadas mantém (0 = um quarto, "
                                               "arredondado para baixo, no mínimo 1)")])
def test_the_layer_skip_layers_box_says_its_default_keeps_at_least_one_layer(lang, said):
    """Read 48: the box said "0 = a quarter", but the toy target has 2 layers, and its default draft keeps 1 of them
    (a half): a quarter rounds down, and at least 1 layer is kept. Read 52: the default pair's 30 layers keep 7, not
    the 7.5 "a quarter" reads as: the box says it rounds down."""
    from specviz.core.i18n import using
    from specviz.engine.proposers.layerskip import default_layers
    from specviz.models.pairs import load_pair

    assert default_layers(load_pair("toy").target) == 1
    with using(lang):
        at = page(lang=lang, source="live", pair="toy", proposer="layerskip", k="2", max_new_tokens="4")
    no_problems(at)
    assert at.number_input(key="playground_layers").label == said


@pytest.mark.slow  # the page runs once per language
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_k_above_the_medusa_heads_in_a_tree_says_the_tree_is_at_most_that_deep(lang):
    """Read 50: over a Medusa tree of 16 nodes (width 4) at K = 8 the caption said "each drafts one token, so a step
    drafts at most 5", but head d gives every node at depth d, up to 16 in all: only the depth is capped."""
    from specviz.ui.common.sliders import medusa_heads

    heads = medusa_heads()
    said = (f"O Medusa tem {heads} cabeças de previsão, e a cabeça d dá os nós da árvore na profundidade d, então uma "
            f"árvore tem no máximo {heads} de profundidade, não K = 8." if lang == "pt" else
            f"Medusa has {heads} heads, and head d gives the tree's nodes at depth d, so a tree is at most {heads} "
            f"deep, not K = 8.")
    at = page(lang=lang, source="live", pair="default", proposer="medusa", k="8", tree_nodes="16", tree_width="4")
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert said in captions
    assert not any(("cada uma rascunha um token" if lang == "pt" else "each drafts one token") in c for c in captions)


@pytest.mark.slow  # the page runs several times per language: over 0.7 s
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_k_above_the_medusa_heads_says_a_step_drafts_at_most_the_heads(lang):
    """Read 48: the K slider goes to 16, but Medusa drafts one token per head (5 shipped), so a step at K = 8 drafts
    5. A caption beside the slider now says so, and only past the heads."""
    from specviz.ui.common.sliders import medusa_heads

    heads = medusa_heads()
    said = (f"O Medusa tem {heads} cabeças de previsão e cada uma rascunha um token, então um passo rascunha no "
            f"máximo {heads}, não K = 8" if lang == "pt" else
            f"Medusa has {heads} heads and each drafts one token, so a step drafts at most {heads}, not K = 8")
    at = page(lang=lang, source="live", pair="default", proposer="medusa", k="8")  # a link: the default pair waits
    assert not at.exception and at.slider(key="playground_k").value == 8
    assert any(said in c.value for c in at.caption)
    at = page(lang=lang, source="live", pair="default", proposer="medusa", k=str(heads))  # fresh: see the race's
    assert not any(("cada uma rascunha um token" if lang == "pt" else "each drafts one token") in c.value
                   for c in at.caption)


def test_every_preset_label_fits_its_button_in_both_languages():
    """The presets sit four to a row; at 1400x900 a button shows about 26 characters of its label ("5 · Uma árvore de
    rascunho", the longest that showed whole) and cuts a longer one to an ellipsis. Read 48 saw the Portuguese
    seventh button read "7 · Cabeças de previsão (…" in Chromium."""
    from specviz.core.i18n import _, using
    from specviz.ui.playground.settings import PRESETS

    for language in ("en", "pt"):
        with using(language):
            labels = [_(label) for label, _expect, _settings in PRESETS.values()]
        assert len(labels) == 7 and max(map(len, labels)) <= 26, (language, labels)
    with using("pt"):
        assert _(PRESETS["medusa"][0]) == "7 · Cabeças de previsão"
    tour = (Path(__file__).resolve().parents[2] / "docs" / "app.pt-BR.md").read_text(encoding="utf-8")
    assert "*7 · Cabeças de previsão* do Playground" in tour  # the app tour quotes the label as shown


@pytest.mark.parametrize("lang, coming, nothing", [
    ("en", "**Coming up: step 1.** This trace is target-only decoding, with no proposer: the target writes one token",
     "Nothing decoded yet. Press **Next step** to watch the target write its first token"),
    ("pt", "**A seguir: passo 1.** Este traço é decodificação só com o alvo, sem proponente: o alvo escreve",
     "Nada decodificado ainda. Aperte **Próximo passo** para ver o alvo escrever o primeiro token")])
def test_an_uploaded_target_only_trace_is_not_said_to_have_a_proposer_that_drafted_nothing(lang, coming, nothing):
    """Read 52: an example's baseline (target-only decoding) uploaded here read "The proposer drafted nothing (it
    found no guess, the draft length was 0, or only one token was left to write)" at every step: it has no proposer,
    and none of those reasons held."""
    from specviz.core.i18n import using

    baseline = load_example("smollm-eagle-greedy")[1]
    assert baseline is not None and baseline.mode == "autoregressive"
    at = page(lang=lang)
    with using(lang):  # AppTest formats the radio's options in this process: the page's language
        at.radio(key="playground_source").set_value("upload").run()
        at.file_uploader(key="playground_upload").set_value(("baseline.json", baseline.to_json().encode(),
                                                             "application/json")).run()
    no_problems(at)
    assert any(m.value.startswith(coming) for m in at.markdown)
    assert any(i.value.startswith(nothing) for i in at.info)
    assert not any("drafted nothing" in m.value or "não rascunhou nada" in m.value for m in at.markdown)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_kept_prompt_note_says_what_each_presets_figures_were_measured_on(tmp_path, monkeypatch, lang):
    """Read 55: after the tree, Medusa or fastest preset left the student's prompt in place, the note said "The
    figures under the presets were measured on the preset's prompt", but the tree and Medusa presets' figures pool
    8 held-out prompts and the fastest preset's is a prediction (none at all on a machine not measured yet)."""
    from specviz.core.i18n import using
    from specviz.ui.playground.settings import kept_prompt_note_text, preset_figures

    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))  # this machine not measured: the fastest preset quotes nothing
    with using(lang):
        notes = {name: kept_prompt_note_text(name) for name in ("question", "tree", "medusa", "fastest")}
    prompts = preset_figures("tree")["prompts"]
    if lang == "en":
        assert notes["question"].endswith("Its figures were measured on the preset's prompt.")
        for name in ("tree", "medusa"):
            assert notes[name].endswith(f"Its figures were measured over {prompts} held-out prompts together.")
        assert notes["fastest"] == "6 · Fastest here: its settings are in, and your own prompt stays."
    else:
        assert notes["question"].endswith("Os números dela foram medidos no prompt da predefinição.")
        for name in ("tree", "medusa"):
            assert notes[name].endswith(f"foram medidos sobre {prompts} prompts reservados juntos.")
        # read 55: "as configurações dela" after a label such as "6 · O mais rápido aqui" or "4 · Rascunho não
        # treinado" (masculine) had no feminine noun to refer to; the note now names the preset (predefinição)
        said = ("6 · O mais rápido aqui: as configurações da predefinição foram aplicadas, e o seu próprio prompt "
                "continua.")
        assert notes["fastest"] == said
        assert not any("configurações dela" in note for note in notes.values())
    assert not any("under the presets" in note or "sob as predefinições" in note for note in notes.values())
    at = page(lang=lang)
    with using(lang):
        at.radio(key="playground_source").set_value("live").run()
        at.text_area(key="playground_prompt").input("Why do cats purr?").run()
        at.button(key="playground_preset_tree").click().run()
    assert [i.value for i in at.info if i.value.startswith(notes["tree"][:4])] == [notes["tree"]]


def test_the_presets_intro_calls_the_sixth_the_fastest_shape_only_once_this_machine_is_measured(tmp_path,
                                                                                              monkeypatch):
    """Read 55: on a machine not measured yet the line over the buttons promised "the shape predicted fastest here"
    while the sixth button's own text said it runs the pair's recommended tree until a measurement."""
    from specviz.ui.playground.settings import presets_intro

    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path))
    intro = presets_intro()
    assert "the shape predicted fastest here (the same tree until the Speedup lab measures this machine)" in intro
    at = page(source="live")
    assert any(m.value == intro for m in at.markdown)
    from specviz.ui.playground import settings

    monkeypatch.setattr(settings, "preset_figures", lambda name: {"shape": "a chain of 2", "prediction": "1.5×"})
    assert presets_intro() == settings.TEXT["presets"]  # measured: the sixth is the shape predicted fastest here


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_n_gram_lookup_greys_out_the_tree_width_and_lookup_branch_it_does_not_use(lang):
    """Read 55: with n-gram lookup and tree nodes > 0 the width and lookup-branch boxes stayed open, and a toy run
    with tree_lookup = 3 silently dropped them (n-gram lookup drafts a chain of K). They are greyed out now, and the
    caption says so; a proposer that branches keeps them open."""
    said = ("A busca de n-gramas não ramifica, então continua rascunhando uma cadeia de K e não usa nem a largura da "
            "árvore nem o seu ramo de busca (em cinza)" if lang == "pt" else
            "N-gram lookup cannot branch, so it keeps drafting a chain of K and uses neither the tree's width nor its "
            "lookup branch (greyed out)")
    at = page(lang=lang, source="live", pair="toy", proposer="ngram", tree_nodes="8", tree_width="2", tree_lookup="3")
    assert not at.exception
    assert at.number_input(key="playground_tree_lookup").value == 3
    assert at.number_input(key="playground_tree_lookup").disabled
    assert at.number_input(key="playground_tree_width").disabled
    assert any(said in c.value for c in at.caption)
    at = page(lang=lang, source="live", pair="toy", proposer="draft", tree_nodes="8", tree_width="2", tree_lookup="3")
    assert not at.exception
    assert not at.number_input(key="playground_tree_lookup").disabled
    assert not at.number_input(key="playground_tree_width").disabled
    assert not any(said in c.value for c in at.caption)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_tree_budget_deeper_and_wider_than_k_and_the_width_allow_is_refused(lang):
    """Read 55: K = 1, 16 nodes and width 4 ran trees of 4 nodes a step (width + (K − 1)·width²), while the settings
    line said "a draft tree of up to 16 nodes"; the run is now refused with the most that fits."""
    said = ("Uma árvore de profundidade 1 (K) e largura 4 comporta no máximo 4 nós, não 16: defina no máximo 4 nós, "
            "ou aumente K ou a largura." if lang == "pt" else
            "A tree 1 deep (K) and 4 wide holds at most 4 nodes, not 16: set its nodes to at most 4, or raise K or "
            "the width.")
    at = page(lang=lang, source="live", pair="toy", proposer="draft", k="1", tree_nodes="16", tree_width="4",
              max_new_tokens="8", prompt="hi")
    assert not at.exception
    assert [e.value for e in at.error] == [said]
    assert "playground_live" not in at.session_state
    fits = page(lang=lang, source="live", pair="toy", proposer="draft", k="1", tree_nodes="4", tree_width="4",
                max_new_tokens="8", prompt="hi")
    assert not fits.error and "playground_live" in fits.session_state
