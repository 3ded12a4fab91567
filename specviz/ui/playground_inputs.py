"""The Playground's inputs: where the trace comes from (example, live run, upload) and the URL that shares it.

A live run starts from a preset that shows the idea working (copying text with n-gram lookup, greedy: most drafts
are kept), with the harder cases one click away (`PRESETS`), and is drawn step by step while it runs
(`LiveProgress`); the page then lands on its finished text.

Settings live in page-prefixed session-state keys (`playground_*`). They are read from `st.query_params` on the
first load (bad values fall back to defaults with one warning sentence) and written back whenever the shown trace
changes, so a teacher can share the exact run: `?source=live&pair=toy&proposer=draft&k=4&temperature=1&seed=3`.
`parse_query_params` and `query_params_for` are plain functions (tested without a browser).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

import streamlit as st

from specviz.examples import DEFAULT_EXAMPLE, list_examples, load_example
from specviz.generation import TokenTexts
from specviz.models import Pair
from specviz.recording import StepOutcome
from specviz.runspec import SETTINGS, WEB_MAX_NEW_TOKENS, RunSpec
from specviz.trace import TokenKind, Trace
from specviz.ui import state as shared
from specviz.ui.escaping import escape_label
from specviz.ui.runs import run_speculative, start_live_run
from specviz.ui.tokens import stream_html

SOURCES = {"example": "Example trace (instant)", "live": "Live run", "upload": "Upload a trace"}
PAIRS = {"default": "SmolLM2-135M-Instruct (real model)", "toy": "Toy pair (tiny, instant)"}
PAIR_PROPOSERS = {"toy": ("draft", "ngram", "layerskip"), "default": ("eagle", "draft", "ngram", "layerskip")}
PROPOSER_LABELS = {"draft": "Draft model", "ngram": "N-gram lookup (no model)", "layerskip": "Layer-skip self-draft",
                   "eagle": "EAGLE feature drafter (trained)"}
# one line under the pickers, so the chosen proposer is explained where it is chosen (not only in a tooltip)
PROPOSER_NOTES = {
    "eagle": "**EAGLE**: one small layer, trained here, that guesses the next tokens from the target's own hidden "
             "states (its internal summary of the text so far).",
    "draft": "**Draft model**: a small separate model guesses; for SmolLM2, its first 3 layers plus 1 trained layer.",
    "ngram": "**N-gram lookup**: no model at all: it finds the last few words earlier in the text and copies what "
             "followed them. It shines when the answer repeats the prompt.",
    "layerskip": "**Layer-skip**: the target's own first layers guess, untrained for it, so the guesses are rarely "
                 "right: a way to see speculation fail.",
}
COPY_PROMPT = ("Copy this paragraph exactly, word for word:\n\nThe moon goes around the Earth about once a month. "
               "It does not make its own light. We see it because it reflects light from the sun, and its shape "
               "seems to change as it moves.")
QUESTION_PROMPT = "Explain owls using an analogy."
# The first live run shows the idea working: on the default pair, greedy n-gram lookup on this copying prompt keeps 23
# of 28 drafts (3.9 tokens per target pass), measured with `python -m specviz generate --pair default --proposer ngram
# --temperature 0 --k 4 --prompt "<COPY_PROMPT>"` (tests/test_playground.py checks it). The presets, measured the same
# way with 48 new tokens: EAGLE greedy on QUESTION_PROMPT kept 23 of 71 (1.9 tokens per pass), EAGLE at T = 0.7 16-19
# of about 90 (1.5-1.7), the untrained layer-skip draft at T = 0.7 1-2 of about 135 (1.0).
LIVE_DEFAULTS = RunSpec(
    pair="default", proposer="ngram", chat=True, k=4, max_new_tokens=48, temperature=0.0, seed=0, prompt=COPY_PROMPT,
)
# name -> (button label, what to expect, the settings it sets by URL name); each also sets pair "default", seed 0
PRESETS = {
    "copy": ("1 · Copying text", "n-gram lookup, greedy: most drafts are kept",
             {"proposer": "ngram", "prompt": COPY_PROMPT, "k": 4, "temperature": 0.0}),
    "question": ("2 · A question", "the trained EAGLE drafter, greedy: about one step in two gains a token",
                 {"proposer": "eagle", "prompt": QUESTION_PROMPT, "k": 3, "temperature": 0.0}),
    "sampling": ("3 · With sampling", "the same at temperature 0.7: the drafter's guesses match less often",
                 {"proposer": "eagle", "prompt": QUESTION_PROMPT, "k": 3, "temperature": 0.7}),
    "untrained": ("4 · Untrained draft", "a layer-skip draft nobody trained: almost every guess is rejected",
                  {"proposer": "layerskip", "prompt": QUESTION_PROMPT, "k": 3, "temperature": 0.7, "layers": 0}),
}
# session-state key of each setting, and the URL name it is shared under (a RunSpec field, or the page's own)
KEYS = {
    "source": "playground_source", "example": "playground_example", "prompt": "playground_prompt",
    "pair": "playground_pair", "proposer": "playground_proposer", "k": "playground_k",
    "temperature": "playground_temperature", "top_k": "playground_top_k", "top_p": "playground_top_p",
    "seed": "playground_seed", "max_new_tokens": "playground_max_new_tokens", "chat": "playground_chat",
    "layers": "playground_layers",
}
PAIR_LAYERS = {"default": 30, "toy": 2}  # decoder layers of each built-in target (the layer-skip draft keeps fewer)
STEP_PARAM = "step"
_SAVED = "playground_saved_settings"  # a copy that survives visits to other pages (widget state does not)
_LAND = "playground_land_at_end"  # a new live run opens on its finished text (taken once by the page)
SETTINGS_OPEN = "playground_settings_open"  # the live settings' expander (open until a run lands, then folded)
_FOLD = "playground_fold_settings"  # fold the settings on the next run (a widget's state can't change after it is drawn)
LIVE_REDRAW_SECONDS = 0.2  # the live view redraws at most this often (a toy run takes milliseconds per step)

# Every sentence of the live run that a user reads, in one place (named placeholders, for the translation layer).
TEXT = {
    "settings": "Prompt and settings",
    "presets": "**Start from a preset.** The first shows the idea working; each next one is harder for the draft.",
    "waiting_one": "Waiting for the model: 1 run is ahead of yours.",
    "waiting_many": "Waiting for the model: {ahead} runs are ahead of yours.",
    "started": "**Running:** the target checks each step's drafts as they come; the first tokens appear in a moment.",
    "progress": "Step {steps} · {tokens} of at most {limit} tokens · {kept} of {drafted} drafts kept · {seconds:.0f} s",
    "running": "**Running:** each chip is a token as soon as the target decided it.",
    "first_prompt": "Type a prompt, choose the settings and press **Run**. The first run loads the real model (a box "
                    "counts the seconds: about a second once its weights were converted, half a minute or more for "
                    "the very first load on a machine); the toy pair is instant.",
    "changed": "The settings above changed since this run: press **Run** to see their effect.",
    "failed": "The live run failed on this machine ({error}); the example traces still work.",
}


# ---- URL <-> settings (plain functions) ---------------------------------------------------------------------


def defaults(example_names: list[str]) -> dict[str, Any]:
    """Every setting's default, by URL name."""
    example = DEFAULT_EXAMPLE if DEFAULT_EXAMPLE in example_names or not example_names else example_names[0]
    live = asdict(LIVE_DEFAULTS)
    live["layers"] = live["layers"] or 0  # 0 = the default depth, a quarter of the target's layers
    live.pop("policy")
    return {"source": "example", "example": example, **live}


def parse_query_params(params: Mapping[str, str], example_names: list[str]) -> tuple[dict[str, Any], list[str]]:
    """Settings from URL parameters: (values by URL name for the valid ones, names of the invalid ones). A run
    setting is checked by `RunSpec` (refused, never clamped) and by what this page offers (its pairs, their
    proposers, at most WEB_MAX_NEW_TOKENS new tokens).

    >>> parse_query_params({"k": "6", "temperature": "hot", "pair": "toy"}, ["toy-draft"])
    ({'pair': 'toy', 'k': 6}, ['temperature'])
    """
    page_checks = {
        "source": lambda v: v if v in SOURCES else None,
        "example": lambda v: v if v in example_names else None,
        STEP_PARAM: lambda v: int(v) if v.isdigit() and int(v) <= 100_000 else None,
    }
    values: dict[str, Any] = {}
    bad: list[str] = []
    for name in ("source", "example", *KEYS, STEP_PARAM):
        if name not in params or name in values or name in bad:
            continue
        raw = str(params[name])
        value = page_checks[name](raw) if name in page_checks else _run_setting(name, raw)
        if value is None:
            bad.append(name)
        else:
            values[name] = value
    pair = values.get("pair", LIVE_DEFAULTS.pair)
    if "proposer" in values and values["proposer"] not in PAIR_PROPOSERS[pair]:
        bad.append("proposer")
        values.pop("proposer")
    return values, bad


def _run_setting(name: str, raw: str) -> Any:
    """One run setting from its URL text, or None when RunSpec or this page refuses it."""
    spec, problems = RunSpec.parse_query({name: raw}, LIVE_DEFAULTS)
    if problems:
        return None
    value = getattr(spec, name)
    if name == "pair" and value not in PAIRS:
        return None
    if name == "max_new_tokens" and value > WEB_MAX_NEW_TOKENS:
        return None
    return 0 if name == "layers" and value is None else value


def query_params_for(source: str, example: str | None, settings: RunSpec | None, step: int) -> dict[str, str]:
    """The URL parameters that reproduce what is on screen.

    >>> query_params_for("example", "toy-draft", None, 3)
    {'source': 'example', 'example': 'toy-draft', 'step': '3'}
    """
    params = {"source": source}
    if source == "example" and example:
        params["example"] = example
    if source == "live" and settings is not None:
        query = settings.to_query()
        query.pop("policy", None)  # the Playground runs constant K
        if settings.proposer != "layerskip":
            query.pop("layers", None)
        params.update(query)
    params[STEP_PARAM] = str(step)
    return params


# ---- session state -------------------------------------------------------------------------------------------


def init_state() -> None:
    """Fill the settings' session-state keys: from the URL on the first load, else from the saved copy."""
    names = [e.name for e in list_examples()]
    state = st.session_state
    if "playground_url_read" not in state:
        state["playground_url_read"] = True
        values, bad = parse_query_params({k: st.query_params[k] for k in st.query_params}, names)
        state["playground_url_warning"] = (
            f"Some settings in the link were not valid ({', '.join(bad)}); they were set to their defaults."
            if bad else "")
        state[_LAND] = values.get("source") == "live" and STEP_PARAM not in values
        shared.set_start_step(values.pop(STEP_PARAM, 0))
        state[_SAVED] = {**defaults(names), **values}
        state["playground_autorun"] = values.get("source") == "live"
    saved = state.setdefault(_SAVED, defaults(names))
    for name, key in KEYS.items():
        if key not in state:
            state[key] = saved[name]


def save_state() -> None:
    """Remember the settings so they survive a visit to another page."""
    st.session_state[_SAVED] = {name: st.session_state[key] for name, key in KEYS.items() if key in st.session_state}


def show_url_warning() -> None:
    if st.session_state.get("playground_url_warning"):
        st.warning(st.session_state["playground_url_warning"])


def write_url(source: str, example: str | None, settings: RunSpec | None, step: int) -> None:
    """Put the shown run in the address bar (only when it changed, so the history stays short)."""
    params = query_params_for(source, example, settings, step)
    if {k: st.query_params[k] for k in st.query_params} != params:
        st.query_params.from_dict(params)


# ---- the source picker and the three sources ----------------------------------------------------------------


def pick_source() -> str:
    """The source radio; returns "example", "live" or "upload"."""
    return st.radio("Where the trace comes from", list(SOURCES), format_func=SOURCES.get, horizontal=True,
                    key=KEYS["source"])


def example_trace() -> tuple[Trace, str] | None:
    """The chosen example (instant, no model loaded) and its id; None with an error if none are installed."""
    examples = list_examples()
    if not examples:
        st.error("No example traces are installed: run `make traces` to record them, or choose a live run.")
        return None
    names = [e.name for e in examples]
    key = KEYS["example"]
    if st.session_state.get(key) not in names:
        st.session_state[key] = names[0]
    titles = {e.name: e.title for e in examples}
    name = st.selectbox("Example", names, format_func=titles.get, key=key)
    st.caption(next(e.description for e in examples if e.name == name))
    trace, _baseline = load_example(name)
    st.button("Change its settings and run it live", key="playground_example_to_live", icon=":material/tune:",
              on_click=_copy_to_live, args=(trace,),
              help="Copies this example's prompt and settings into a live run (the real model loads on first use).")
    return trace, f"example:{name}"


def settings_of(trace: Trace) -> dict[str, Any] | None:
    """A trace's live-run settings by URL name, or None when it was not made by a pair the Playground can load.

    >>> from specviz.examples import load_example
    >>> settings_of(load_example("toy-draft")[0])["pair"]
    'toy'
    """
    meta, s = trace.meta, trace.settings
    name = str(s.get("proposer", meta.get("proposer", "")))
    pair, proposer = meta.get("pair"), name.split("-")[0]
    depth = name.split("-")[1] if proposer == "layerskip" and "-" in name else ""
    if pair not in PAIR_PROPOSERS or proposer not in PAIR_PROPOSERS[pair] or not meta.get("prompt"):
        return None
    return {"pair": pair, "proposer": proposer, "prompt": str(meta["prompt"]), "chat": bool(meta.get("chat", True)),
            "k": int(s.get("k") or 4), "temperature": float(s.get("temperature", 0.0)),
            "top_k": int(s.get("top_k", 0)), "top_p": float(s.get("top_p", 1.0)), "seed": int(s.get("seed", 0)),
            "max_new_tokens": min(int(s.get("max_new_tokens", 48)), WEB_MAX_NEW_TOKENS),
            "layers": int(depth) if depth.isdigit() else 0}


def _copy_to_live(trace: Trace) -> None:
    values = settings_of(trace)
    if values is None:
        return
    for name, value in values.items():
        st.session_state[KEYS[name]] = value
    st.session_state[KEYS["source"]] = "live"


def available_pairs() -> dict[str, str]:
    """The built-in pairs, plus the pair loaded by hand on the Models page in this session (if any)."""
    custom = shared.custom_pair()
    return {**PAIRS, custom: f"Your pair: {escape_label(custom)}"} if custom else dict(PAIRS)


def pair_proposers(pair: str) -> tuple[str, ...]:
    """Proposers that work for a pair: a hand-made pair drafts with its draft model when it has one."""
    if pair in PAIR_PROPOSERS:
        return PAIR_PROPOSERS[pair]
    return ("draft", "ngram", "layerskip") if "," in pair else ("ngram", "layerskip")


def live_settings_form() -> tuple[RunSpec | str, bool]:
    """The live-run inputs; returns the settings (or the sentence that says why they cannot run) and whether Run
    was pressed."""
    state = st.session_state
    preset_buttons()
    st.text_area("Prompt", key=KEYS["prompt"], height=90,
                 help="Your text. With the chat template on, it is sent as a user message to the instruct model.")
    c1, c2, c3 = st.columns(3)
    pairs = available_pairs()
    if state.get(KEYS["pair"]) not in pairs:
        state[KEYS["pair"]] = LIVE_DEFAULTS.pair
    pair = c1.selectbox("Models", list(pairs), format_func=pairs.get, key=KEYS["pair"])
    choices = pair_proposers(pair)
    if state.get(KEYS["proposer"]) not in choices:
        state[KEYS["proposer"]] = choices[0]
    c2.selectbox("Who drafts", choices, format_func=PROPOSER_LABELS.get, key=KEYS["proposer"],
                 help="EAGLE: one small trained layer that drafts from the target's own hidden states. "
                      "Draft model: a small separate model (for SmolLM2: its first 3 layers + 1 trained layer). "
                      "N-gram: copy what followed the same words earlier. "
                      "Layer-skip: the target's own first layers (untrained for this, so it rarely agrees).")
    c3.slider("K: drafts per step", *SETTINGS["k"].bounds, key=KEYS["k"])
    st.caption(PROPOSER_NOTES.get(state[KEYS["proposer"]], ""))
    if state[KEYS["proposer"]] == "layerskip":
        layers_input(pair)
    c4, c5, c6, c7, c8 = st.columns(5)
    c4.number_input("Temperature", *SETTINGS["temperature"].bounds, step=0.1, format="%.2f",
                    key=KEYS["temperature"], help="0 = greedy: always the most likely token.")
    c5.number_input("Top-k (0 = off)", *SETTINGS["top_k"].bounds, step=1, key=KEYS["top_k"])
    c6.number_input("Top-p (1 = off)", *SETTINGS["top_p"].bounds, step=0.05, format="%.2f", key=KEYS["top_p"])
    c7.number_input("Seed", *SETTINGS["seed"].bounds, step=1, key=KEYS["seed"], help="Same seed, same run.")
    c8.number_input("Max new tokens", SETTINGS["max_new_tokens"].lo, WEB_MAX_NEW_TOKENS, step=8,
                    key=KEYS["max_new_tokens"])
    st.toggle("Chat template", key=KEYS["chat"], disabled=pair == "toy",
              help="Wrap the prompt as a chat turn (the instruct model expects it). The toy pair has no template.")
    run = st.button("Run", type="primary", key="playground_run", icon=":material/play_arrow:")
    return current_settings(), run


def open_settings() -> bool:
    """Whether the live settings start open: yes, except on the run right after a new live run, which folds them so
    that its result is near the top of the page."""
    if st.session_state.pop(_FOLD, False):
        st.session_state[SETTINGS_OPEN] = False
    return True


def preset_buttons() -> None:
    """One button per preset, easiest first, each with what to expect on hover and below."""
    st.markdown(TEXT["presets"])
    for col, (name, (label, expect, _)) in zip(st.columns(len(PRESETS)), PRESETS.items()):
        col.button(label, key=f"playground_preset_{name}", on_click=apply_preset, args=(name,), help=expect,
                   width="stretch")
    st.caption(" · ".join(f"{label.split(' · ')[0]}: {expect}" for label, expect, _ in PRESETS.values()))


def apply_preset(name: str) -> None:
    """Put a preset's settings into the widgets (default pair, seed 0; the other settings stay)."""
    values = {"pair": "default", "seed": 0, **PRESETS[name][2]}
    for setting, value in values.items():
        st.session_state[KEYS[setting]] = value


def layers_input(pair: str) -> None:
    """How many of the target's layers the layer-skip draft keeps (0 = a quarter of them)."""
    total = PAIR_LAYERS.get(pair)
    top = total - 1 if total else SETTINGS["layers"].hi
    if st.session_state.get(KEYS["layers"], 0) > top:
        st.session_state[KEYS["layers"]] = 0
    st.number_input(f"Layers the self-draft keeps (0 = a quarter{f' of {total}' if total else ''})", 0, top, step=1,
                    key=KEYS["layers"],
                    help="More layers: the draft agrees with the target more often, but each draft costs more.")


def current_settings() -> RunSpec | str:
    """The live-run settings in the widgets now, or the sentence that says why they cannot run (an empty prompt)."""
    s = st.session_state
    try:
        return RunSpec(
            pair=s[KEYS["pair"]], proposer=s[KEYS["proposer"]], prompt=s[KEYS["prompt"]], chat=bool(s[KEYS["chat"]]),
            k=int(s[KEYS["k"]]), max_new_tokens=int(s[KEYS["max_new_tokens"]]),
            temperature=float(s[KEYS["temperature"]]), top_k=int(s[KEYS["top_k"]]), top_p=float(s[KEYS["top_p"]]),
            seed=int(s[KEYS["seed"]]),
            layers=(int(s[KEYS["layers"]]) or None) if s[KEYS["proposer"]] == "layerskip" else None,
        )
    except ValueError as exc:
        return str(exc)


def live_trace(settings: RunSpec | str, run: bool) -> tuple[Trace, str, RunSpec] | None:
    """The live trace: run when Run was pressed (or a shared link asked for it), drawn step by step while it runs,
    else the last one shown."""
    state = st.session_state
    autorun = state.pop("playground_autorun", False)
    if run or autorun:
        if isinstance(settings, str):
            st.error(settings)
            return None
        progress = LiveProgress(settings)
        try:
            start_live_run(settings)
            trace = run_speculative(settings, progress=progress)
        except ValueError as exc:
            st.error(str(exc))
            return None
        except Exception as exc:  # a model that cannot load or run here: one sentence, no traceback
            st.error(TEXT["failed"].format(error=type(exc).__name__))
            return None
        finally:
            progress.clear()
        state["playground_live"] = (trace, settings)
        state[_LAND] = run or state.get(_LAND, False)  # a shared link with a step opens on that step
        state[_FOLD] = True
        st.rerun()  # fold the settings: the answer lands near the top (the trace is cached now: instant)
    if "playground_live" not in state:
        st.info(TEXT["first_prompt"])
        return None
    trace, shown = state["playground_live"]
    if shown != settings:
        st.caption(TEXT["changed"])
    return trace, "live:" + _digest(repr(shown)), shown


def take_landing() -> bool:
    """True once after a new live run: the player opens on its finished text, not on step 0."""
    return bool(st.session_state.pop(_LAND, False))


class LiveProgress:
    """A live run drawn while it runs (`specviz.ui.runs.Progress`): a bar over the token budget with the step count,
    the drafts kept and the seconds, and the output growing as chips, each step as soon as the target decided it.
    Everything is drawn into one placeholder, cleared when the run ends (the player takes over)."""

    def __init__(self, spec: RunSpec):
        self.spec = spec
        self.holder = st.empty()
        self.texts: TokenTexts | None = None
        self.groups: list[list[tuple[str, TokenKind]]] = []
        self.tokens = self.drafted = self.kept = 0
        self.start = self.drawn = 0.0
        self.line = self.bar = self.text = None

    def waiting(self, ahead: int) -> None:
        self.holder.info(TEXT["waiting_one"] if ahead == 1 else TEXT["waiting_many"].format(ahead=ahead))

    def started(self, pair: Pair) -> None:
        self.texts = TokenTexts(pair.tokenizer)
        self.start = time.monotonic()
        box = self.holder.container(border=True)
        self.line, self.bar, self.text = box.empty(), box.empty(), box.empty()
        self.line.markdown(TEXT["started"])

    def step(self, outcome: StepOutcome) -> None:
        n_accepted = outcome.verdict.n_accepted
        group = [(t.text, t.kind) for t in outcome.emitted[:n_accepted] if outcome.drafts]
        if n_accepted < len(outcome.drafts) and len(outcome.emitted) > n_accepted:  # the rejected draft, struck
            group.append((self.texts(outcome.drafts[n_accepted]) if self.texts else "", TokenKind.REJECTED))
        group += [(t.text, t.kind) for t in (outcome.emitted[n_accepted:] if outcome.drafts else outcome.emitted)]
        self.groups.append(group)
        self.tokens += len(outcome.emitted)
        self.drafted += len(outcome.drafts)
        self.kept += n_accepted
        now = time.monotonic()
        if now - self.drawn >= LIVE_REDRAW_SECONDS or outcome.stop:
            self.drawn = now
            self.draw(now - self.start)

    def draw(self, seconds: float) -> None:
        if self.bar is None:
            return
        self.line.markdown(TEXT["running"])
        limit = self.spec.max_new_tokens
        self.bar.progress(min(1.0, self.tokens / limit), text=TEXT["progress"].format(
            steps=len(self.groups), tokens=self.tokens, limit=limit, kept=self.kept, drafted=self.drafted,
            seconds=seconds))
        self.text.html(stream_html(self.groups))

    def clear(self) -> None:
        self.holder.empty()


def uploaded_trace() -> tuple[Trace, str] | None:
    """A trace JSON from the learner's disk; a bad file is one sentence."""
    file = st.file_uploader("A trace saved from specviz (JSON)", type=["json"], key="playground_upload",
                            help="Download one with the button at the bottom of this page, or with "
                                 "`python -m specviz generate --json trace.json`.")
    if file is None:
        st.info("Choose a .json trace file to replay it here.")
        return None
    data = file.getvalue()
    try:
        trace = parsed_trace(data)
    except ValueError as exc:
        st.error(str(exc))
        return None
    return trace, f"upload:{_digest(data)}"


@st.cache_data(show_spinner=False, max_entries=16)
def parsed_trace(data: bytes) -> Trace:
    """An uploaded file parsed once (keyed by its content), not on every rerun of the page. `Trace.from_json`
    checks every field's type and size: an upload can say anything."""
    return Trace.from_json(data)


def _digest(data: str | bytes) -> str:
    raw = data.encode() if isinstance(data, str) else data
    return hashlib.sha1(raw).hexdigest()[:12]
