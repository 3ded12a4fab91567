"""The Playground's live run: the presets and settings form, the run itself, and its progress drawn step by step.

A live run starts from a preset that shows the idea working (copying text with n-gram lookup, greedy: most drafts
are kept), with the harder cases one click away (`PRESETS`), and is drawn step by step while it runs
(`LiveProgress`); the page then lands on its finished text.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal

import streamlit as st

from specviz.core.i18n import N_, _, drafts_kept, ngettext, number
from specviz.engine.draft_shape import DraftShape, too_deep_or_wide
from specviz.engine.kinds import Mode, StopReason
from specviz.engine.proposers import registry
from specviz.engine.trace import Trace
from specviz.runs.runspec import SETTINGS, WEB_MAX_NEW_TOKENS, RunSpec
from specviz.ui.common import state as shared
from specviz.ui.common.escaping import escape_label
from specviz.ui.common.sliders import medusa_cap_note
from specviz.ui.playground.settings import (
    KEYS,
    LIVE_DEFAULTS,
    PAIRS,
    PRESETS,
    TEXT,
    first_load_figures,
    form_value,
    kept_prompt_note_text,
    pair_proposers,
    pooled_note,
    preset_expectation,
    preset_settings,
    presets_intro,
)
from specviz.ui.common.runs import cached_speculative, is_light, run_speculative, start_live_run
from specviz.ui.playground.progress import LiveProgress

LAND_AT_END = "playground_land_at_end"  # a new live run opens on its finished text (taken once by the page)
SETTINGS_OPEN = "playground_settings_open"  # the live settings' expander (open until a run lands, then folded)
AUTORUN = "playground_autorun"  # a shared live link asked for its run when the page opened (taken once)
SEED_HELP = N_("Same seed and settings, same tokens, in the same dtype on the same kind of machine: another dtype or "
               "CPU rounds differently and can change them. The timings differ from run to run.")


def available_pairs() -> dict[str, str]:
    """The built-in pairs, plus the pair loaded by hand on the Models page in this session (if any): name -> label,
    in the reader's language."""
    custom = shared.custom_pair()
    pairs = {name: _(label) for name, label in PAIRS.items()}
    shown = shared.custom_pair_typed()  # as typed on the Models page, never the server's path it resolved to
    return {**pairs, custom: _("Your pair: {name}", name=escape_label(shown))} if custom else pairs


def live_settings_form() -> tuple[RunSpec | str, bool]:
    """The live-run inputs; returns the settings (or the sentence that says why they cannot run) and whether Run
    was pressed."""
    state = st.session_state
    preset_buttons()
    kept_prompt_note()
    st.text_area(_("Prompt"), key=KEYS["prompt"], height=90,
                 help=_("Your text. With the chat template on, it is sent as a user message to the instruct model."))
    c1, c2, c3 = st.columns(3)
    pairs = available_pairs()
    if state.get(KEYS["pair"]) not in pairs:
        state[KEYS["pair"]] = LIVE_DEFAULTS.pair
    pair = c1.selectbox(_("Models"), list(pairs), format_func=pairs.get, key=KEYS["pair"])
    choices = pair_proposers(pair)
    if state.get(KEYS["proposer"]) not in choices:
        state[KEYS["proposer"]] = choices[0]
    c2.selectbox(_("Who drafts"), choices, format_func=registry.menu_label, key=KEYS["proposer"],
                 help=who_drafts_help(choices))
    c3.slider(_("K: drafts per step (a tree's greatest depth)"), *SETTINGS["k"].bounds, key=KEYS["k"])
    cap = medusa_cap_note(state[KEYS["proposer"]], state[KEYS["k"]], tree=bool(state.get(KEYS["tree_nodes"])))
    if cap:  # read 48: Medusa drafts one token per head, so K above the heads is not what a step drafts
        c3.caption(cap)
    note = registry.note_of(state[KEYS["proposer"]])
    if note:
        st.caption(_(note))
    own_inputs(pair, state[KEYS["proposer"]])
    tree_inputs(state[KEYS["proposer"]])
    c4, c5, c6, c7, c8 = st.columns(5)
    c4.number_input(_("Temperature"), *SETTINGS["temperature"].bounds, step=0.1,
                    format=f"%.{box_digits(state[KEYS['temperature']])}f", key=KEYS["temperature"],
                    help=_("0 = greedy: always the most likely token."))
    c5.number_input(_("Top-k (0 = off)"), *SETTINGS["top_k"].bounds, step=1, key=KEYS["top_k"])
    c6.number_input(_("Top-p (1 = off)"), *SETTINGS["top_p"].bounds, step=0.05,
                    format=f"%.{box_digits(state[KEYS['top_p']])}f", key=KEYS["top_p"])
    c7.number_input(_("Seed"), *SETTINGS["seed"].bounds, step=1, key=KEYS["seed"],
                    help=_(SEED_HELP))
    c8.number_input(_("Max new tokens"), SETTINGS["max_new_tokens"].lo, WEB_MAX_NEW_TOKENS, step=8,
                    key=KEYS["max_new_tokens"])
    decimals_caption(state[KEYS["temperature"]], state[KEYS["top_p"]])
    st.toggle(_("Chat template"), key=KEYS["chat"], disabled=pair == "toy",
              help=_("Wrap the prompt as a chat turn (the instruct model expects it). The toy pair has no "
                     "template."))
    run = st.button(_("Run"), type="primary", key="playground_run", icon=":material/play_arrow:",
                    on_click=fold_settings)
    return current_settings(), run


def box_digits(value: float) -> int:
    """The decimals a number box writes `value` with: 2 (0.70), or as many as the value has, up to BOX_DIGITS
    (a link's 0.123 is shown as the 0.123 it runs, not as 0.12).

    >>> box_digits(0.7), box_digits(0.123), box_digits(1.0), box_digits(1e-300)
    (2, 3, 2, 10)
    """
    exponent = Decimal(repr(float(value))).normalize().as_tuple().exponent
    return min(BOX_DIGITS, max(2, -int(exponent)))


BOX_DIGITS = 10  # the most decimals a number box writes


def decimals_caption(temperature: float, top_p: float) -> None:
    """Streamlit's number inputs write 0.70 in every language (their printf format has no locale): where the
    reader's decimal sign is not a point, repeat their values the reader's way under them, with the boxes' decimals."""
    if number(0.5, 1) != "0.5":
        st.caption(_("The boxes above write decimals with a point: temperature {temperature}, top-p {top_p}.",
                     temperature=number(temperature, box_digits(temperature)),
                     top_p=number(top_p, box_digits(top_p))))


def open_settings() -> bool:
    """The settings expander's `expanded` default, always True (open). Its key, SETTINGS_OPEN, holds the state that
    counts: a shared link about to run on open sets it False here, folding the settings as Run does
    (`fold_settings`), so that its answer is drawn near the top in this same run."""
    state = st.session_state
    if state.get(AUTORUN) and runs_on_open(current_settings()):
        state[SETTINGS_OPEN] = False
    return True


def fold_settings() -> None:
    """Run's callback, called before the page runs again: fold the settings when they can run, so the new trace is
    drawn near the top of the page in the same run that computes it (no second run of the page)."""
    if not isinstance(current_settings(), str):
        st.session_state[SETTINGS_OPEN] = False


def runs_on_open(settings: RunSpec | str) -> bool:
    """Whether a shared link's run starts by itself: only what is instant (the toy pair) or already computed."""
    return not isinstance(settings, str) and (is_light(settings) or cached_speculative(settings) is not None)


PRESETS_PER_ROW = 4


def preset_buttons() -> None:
    """One button per preset, easiest first, each with what to expect on hover and below."""
    st.markdown(presets_intro())
    presets = list(PRESETS.items())
    for start in range(0, len(presets), PRESETS_PER_ROW):  # rows of four: seven in one row cut every label short
        for col, (name, (label, _expect, _settings)) in zip(st.columns(PRESETS_PER_ROW),
                                                            presets[start:start + PRESETS_PER_ROW]):
            col.button(_(label), key=f"playground_preset_{name}", on_click=apply_preset, args=(name,),
                       help=preset_expectation(name), width="stretch")
    st.caption(" · ".join(f"{label.split(' · ')[0]}: {preset_expectation(name)}"
                          for name, (label, _expect, _settings) in PRESETS.items()))


def other_prompt_reason(proposer: str) -> str | None:
    """Why another prompt keeps fewer drafts than the preset's (a TEXT key), by the preset's proposer: a drafter the
    pair brings (the default pair's were trained on the target's short chat answers) learned from those; n-gram
    lookup copies the text so far; None for a draft that learned nothing (the untrained layer-skip draft)."""
    if registry.get(proposer).needs:
        return "other_prompt"
    return "other_prompt_ngram" if proposer == "ngram" else None


PRESET_KEY = "playground_preset"  # session key: the preset pressed last (its figures are compared with the run)
PRESET_PAIR = "default"  # the pair every preset runs (and its figures were measured with)
# The sampling and length settings every preset was measured with (`preset_runs` runs the chain presets over
# LIVE_DEFAULTS), by URL name: a preset sets them too, and a run with other ones is not compared with its figures.
# Read 50: a top-p of 0.5 or 16 new tokens left from before stayed under "the other settings stay", and "This run:
# ..." stood beside figures measured with top-p 1 and 48 new tokens
PRESET_MEASURED = {"top_k": LIVE_DEFAULTS.top_k, "top_p": LIVE_DEFAULTS.top_p, "chat": LIVE_DEFAULTS.chat,
                   "max_new_tokens": LIVE_DEFAULTS.max_new_tokens}
KEPT_PROMPT = "playground_kept_prompt"  # session key: the preset left the student's own prompt in place
PRESET_PROMPTS = {settings["prompt"] for _label, _expect, settings in PRESETS.values()} | {LIVE_DEFAULTS.prompt}


def apply_preset(name: str) -> None:
    """Put a preset's settings into the widgets (default pair, seed 0, and the top-k, top-p, chat template and
    token limit its figures were measured with, `PRESET_MEASURED`). A prompt the student wrote stays (the page says
    so and offers the preset's); a preset's or an empty one is replaced."""
    values = {"pair": PRESET_PAIR, "seed": 0, **PRESET_MEASURED, **preset_settings(name)}
    own = str(st.session_state.get(KEYS["prompt"]) or "").strip()
    keep = bool(own) and own not in {p.strip() for p in PRESET_PROMPTS}
    if keep:
        values.pop("prompt")
    st.session_state[KEPT_PROMPT] = keep
    st.session_state[PRESET_KEY] = name
    for setting, value in values.items():
        st.session_state[KEYS[setting]] = value


def use_preset_prompt() -> None:
    name = st.session_state.get(PRESET_KEY)
    if name in PRESETS:
        st.session_state[KEYS["prompt"]] = preset_settings(name)["prompt"]
    st.session_state[KEPT_PROMPT] = False


def kept_prompt_note() -> None:
    """After a preset that left the student's prompt in place: say so, and offer the preset's prompt."""
    name = st.session_state.get(PRESET_KEY)
    if not st.session_state.get(KEPT_PROMPT) or name not in PRESETS:
        return
    left, right = st.columns([3, 1])
    left.info(kept_prompt_note_text(name), icon=":material/edit_note:")
    right.button(_(TEXT["use_preset_prompt"]), key="playground_use_preset_prompt", on_click=use_preset_prompt)


def compare_with_preset(trace, spec: RunSpec | None = None) -> None:
    """Under a live run started from a preset: this run's figures next to the preset's measured ones, and why a
    different prompt keeps fewer. Nothing when the run's pair, proposer (its own settings, e.g. layer-skip's layers,
    included), temperature, draft shape (K, the tree's nodes, width and lookup branch), top-k, top-p, chat template
    or token limit (`PRESET_MEASURED`) differs from the preset's: the preset's figures were measured with its own.
    `spec` is the RunSpec the trace ran: a trace names a proposer with settings of its own by its label
    ("layerskip-7"), not by the registry name the preset sets."""
    name = st.session_state.get(PRESET_KEY)
    if name not in PRESETS or trace.mode != Mode.SPECULATIVE or trace.meta.get("pair") != PRESET_PAIR:
        return  # the pair switched after the preset (the toy pair offers n-gram lookup too): another model's run
    preset = preset_settings(name)
    s = trace.settings
    own = registry.get(preset["proposer"]).setting_names
    preset_own = {key: preset[key] for key in own if preset.get(key)}  # 0: unset (layer-skip: a quarter)
    drafter = (spec.proposer, dict(spec.proposer_settings)) if spec is not None else (s.get("proposer"), {})
    if drafter != (preset["proposer"], preset_own) or float(s.get("temperature", -1)) != float(preset["temperature"]) \
            or DraftShape.of(s).label() != DraftShape.of(preset).label():  # a chain's label names no width
        return
    if ran_with(trace) != PRESET_MEASURED:
        return
    # drafts only, as the headline above counts them (`trace_headline`): a tree's lookup branch copies tokens, no
    # model drafts them (read 45: the tree preset's run counted them here and not there)
    drafted, kept = trace.drafts_only()
    text = _(TEXT["this_run"], kept_of_drafted=drafts_kept(kept, drafted), per_pass=number(trace.mean_accepted_length),
             label=_(PRESETS[name][0]), expected=preset_expectation(name))
    if trace.stop_reason == StopReason.DEADLINE:  # read 49: a busy server's cut-short run read as below the promise
        text += " " + ngettext("It stopped at its time limit after {n} new token, so its counts cover fewer tokens "
                               "than the preset's figures.",
                               "It stopped at its time limit after {n} new tokens, so its counts cover fewer tokens "
                               "than the preset's figures.", trace.num_tokens)
    pooled = pooled_note(name, int(s.get("max_new_tokens", LIVE_DEFAULTS.max_new_tokens)))
    if pooled:  # read 51: one prompt's run beside a figure pooled over a committed run's prompts
        text += " " + pooled
    why = other_prompt_reason(preset["proposer"])
    if why and str(trace.meta.get("prompt", "")).strip() != preset["prompt"].strip():
        text += " " + _(TEXT[why])
    st.caption(text)


def ran_with(trace: Trace) -> dict:
    """A trace's top-k, top-p, chat template and token limit, by URL name, as `PRESET_MEASURED` holds them (a value
    the trace does not record reads as the Playground's default)."""
    s = trace.settings
    return {"top_k": int(s.get("top_k", LIVE_DEFAULTS.top_k)), "top_p": float(s.get("top_p", LIVE_DEFAULTS.top_p)),
            "chat": bool(trace.meta.get("chat", LIVE_DEFAULTS.chat)),
            "max_new_tokens": int(s.get("max_new_tokens", LIVE_DEFAULTS.max_new_tokens))}


def who_drafts_help(choices: tuple[str, ...]) -> str:
    """The "Who drafts" menu's help: the registry's note of every proposer the pair offers, in the menu's order (a
    proposer registered later explains itself here with no edit)."""
    return "\n\n".join(_(note) for note in map(registry.note_of, choices) if note)


def own_inputs(pair: str, proposer: str) -> None:
    """One input per setting of the proposer's own (the registry's `ProposerSetting`: its label, help and range; the
    top is what the setting says makes sense for this pair, e.g. all but one of its layers)."""
    for own in registry.get(proposer).settings:
        key, top = KEYS[own.name], own.most_for(pair)
        if not own.lo <= st.session_state.get(key, own.lo) <= top:
            st.session_state[key] = form_value(own.name, None)
        st.number_input(_(own.label), own.lo, top, step=1, key=key, help=_(own.help) if own.help else None)


def tree_inputs(proposer: str) -> None:
    """Draft-tree nodes (0 = a chain of K), width W and the lookup branch, in RunSpec's ranges and words."""
    nodes, width, lookup = SETTINGS["tree_nodes"], SETTINGS["tree_width"], SETTINGS["tree_lookup"]
    tree_on = bool(st.session_state.get(KEYS["tree_nodes"]))
    branches = registry.can_branch(proposer)  # n-gram lookup drafts a chain: the width and the branch go unused
    unused = not (tree_on and branches)
    c1, c2, c3 = st.columns(3)
    c1.number_input(_(nodes.label), *nodes.bounds, step=1, key=KEYS["tree_nodes"],
                    help=_("A tree drafts several guesses per position (EAGLE-2) and the target checks them all in "
                           "one forward; its drafted nodes go at most K deep (a lookup branch can reach further)."))
    c2.number_input(_(width.label), *width.bounds, step=1, key=KEYS["tree_width"], help=_(width.help),
                    disabled=unused)
    c3.number_input(_(lookup.label), *lookup.bounds, step=1, key=KEYS["tree_lookup"], disabled=unused,
                    help=_("The tree also gets one branch copied from the text so far (prompt lookup): the tokens "
                           "that followed the last earlier place where its last 3 tokens appeared (failing a match, "
                           "its last 2, then its last 1). Where fewer tokens follow that place than the branch "
                           "holds, the copy reads on into what it has copied so far, so a repeating loop is "
                           "carried on past the text's end. Where the copy starts as a drafted path does, it "
                           "follows those nodes and adds only the rest. No drafter pass makes the copied tokens; the "
                           "target scores them in the same forward as the tree. It pays off when the answer repeats "
                           "itself or the prompt."))
    if tree_on and not branches:
        st.caption(_(TEXT["no_branching"]))


def current_settings() -> RunSpec | str:
    """The live-run settings in the widgets now, or the sentence that says why they cannot run (an empty prompt)."""
    s = st.session_state
    if int(s[KEYS["tree_nodes"]]) and registry.can_branch(s[KEYS["proposer"]]) and (refusal := too_deep_or_wide(
            int(s[KEYS["tree_nodes"]]), int(s[KEYS["k"]]), int(s[KEYS["tree_width"]]))):
        return refusal  # read 55: K 1, 16 nodes, width 4 ran trees of 4 nodes, described as "up to 16 nodes"
    try:
        return RunSpec(
            pair=s[KEYS["pair"]], proposer=s[KEYS["proposer"]], prompt=s[KEYS["prompt"]], chat=bool(s[KEYS["chat"]]),
            k=int(s[KEYS["k"]]), max_new_tokens=int(s[KEYS["max_new_tokens"]]),
            temperature=float(s[KEYS["temperature"]]), top_k=int(s[KEYS["top_k"]]), top_p=float(s[KEYS["top_p"]]),
            seed=int(s[KEYS["seed"]]),
            proposer_settings={name: int(s[KEYS[name]]) for name in registry.get(s[KEYS["proposer"]]).setting_names},
            tree_nodes=int(s[KEYS["tree_nodes"]]), tree_width=int(s[KEYS["tree_width"]]),
            tree_lookup=int(s[KEYS["tree_lookup"]]) if int(s[KEYS["tree_nodes"]]) else 0,  # greyed out for a chain
        )
    except ValueError as exc:
        return str(exc)


def live_trace(settings: RunSpec | str, run: bool) -> tuple[Trace, str, RunSpec] | None:
    """The live trace: run when Run was pressed (or a shared link asked for it), drawn step by step while it runs,
    else the last one shown."""
    state = st.session_state
    autorun = state.pop(AUTORUN, False)
    if autorun and not run and not isinstance(settings, str) and not runs_on_open(settings):
        st.info(_(TEXT["link_waits"]))  # a link runs on open only what is instant or already computed
        autorun = False
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
            st.error(_(TEXT["failed"], error=type(exc).__name__))
            return None
        finally:
            progress.clear()
        state["playground_live"] = (trace, settings, live_id(trace, settings))
        state[LAND_AT_END] = run or state.get(LAND_AT_END, False)  # a shared link with a step opens on that step
    if "playground_live" not in state:
        st.info(_(TEXT["first_prompt"], **first_load_figures()))
        return None
    trace, shown, trace_id = state["playground_live"]
    if shown != settings:
        st.caption(_(TEXT["changed"]))
    return trace, trace_id, shown


def live_id(trace: Trace, settings: RunSpec) -> str:
    """A live trace's id for the player: its settings and its tokens. A run cut short at its time limit is not
    cached, so Run with the same settings makes another trace (read 52: the tree preset stopped after 39 tokens, the
    next run of that shape wrote 48, and the player, keyed by the settings alone, stayed on step 14 of 19 with the
    first trace's guesses instead of opening on the new answer); the same trace from the cache keeps its id."""
    return "live:" + digest(repr(settings) + trace.to_json())


def take_landing() -> bool:
    """True once after a new live run: the player opens on its finished text, not on step 0."""
    return bool(st.session_state.pop(LAND_AT_END, False))


def digest(data: str | bytes) -> str:
    raw = data.encode() if isinstance(data, str) else data
    return hashlib.sha1(raw).hexdigest()[:12]
