"""The Playground's settings as plain data: the pairs and proposers it offers, the presets, the session-state keys,
and the URL that shares a run.

Settings are read from `st.query_params` on the first load (bad values fall back to defaults with one warning
sentence) and written back whenever the shown trace changes, so a teacher can share the exact run:
`?source=live&pair=toy&proposer=draft&k=4&temperature=1&seed=3`. Everything here is a plain function (tested
without a browser); `specviz.ui.playground.inputs` reads and writes the session state,
`specviz.ui.playground.live` draws the live form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, replace
from typing import Any

from specviz.core import urlvalues
from specviz.core.i18n import N_, _, ngettext, number, times
from specviz.engine.draft_shape import DraftShape
from specviz.engine.limits import PAIR_DRAFTERS, is_whole
from specviz.engine.proposers import registry
from specviz.engine.trace import Trace
from specviz.labs.bench import quoted
from specviz.labs.examples import DEFAULT_EXAMPLE
from specviz.labs.shape_choice import lookup_lift, shape_table
from specviz.models.catalog import recommended_for
from specviz.runs.presets import (CHAIN_PRESETS, LIVE_DEFAULTS, QUESTION_PROMPT, first_load, preset_measurement,
                                  preset_run)
from specviz.runs.runspec import WEB_MAX_NEW_TOKENS, RunSpec, link_refusal, lookup_refusal, setting_of
from specviz.ui.common.runs import PAIR_TITLES

# The labels below are English messages (marked with `N_`): the pages translate them with `_()` where they are shown.
SOURCES = {"example": N_("Example trace (instant)"), "live": N_("Live run"), "upload": N_("Upload a trace")}
PAIRS = PAIR_TITLES  # the Models menu's labels, which the loading box names a pair by too
# The chain presets' prompts and settings, and the form's defaults, are plain data in `specviz.runs.presets`, where
# `python -m specviz.scripts.preset_runs` runs them as the buttons set them up and writes their counts, with the
# command, dtype, commit and machine, to assets/benchmarks/presets/presets.json: the texts below read that file
# (`preset_figures`), in PRESET_DTYPE with OTHER_DTYPE beside it, and the first hint (TEXT["first_prompt"]) reads the
# first-load time recorded there. The machine goes through `quoted.machine_text`, as every committed run's does.
PRESET_DTYPE = "bfloat16"  # what a CPU with bfloat16 instructions runs by default
OTHER_DTYPE = "float32"


def recommended_settings(pair: str) -> dict[str, int]:
    """The pair's best measured draft shape (K, tree nodes, tree width, lookup branch) as Playground settings, by URL
    name."""
    best = recommended_for(pair)
    return {"k": best.k, "tree_nodes": best.tree_nodes, "tree_width": best.tree_width, "tree_lookup": best.tree_lookup}


# name -> (button label, what to expect, the settings it sets by URL name); each also sets pair "default", seed 0.
# The prompts are the model's input and stay English (the models are English); the labels are messages. The chain
# presets set tree_nodes 0, so a tree picked before does not stay on; the tree preset is the pair's recommended
# shape (`recommended:` in assets/catalog.yaml, measured by `python -m specviz.scripts.tree_sweep`).
PRESETS = {
    # the chain presets' {measured}, {tokens}, {seeds} and {cpu} come from the committed file (`preset_figures`)
    "copy": (N_("1 · Copying text"), N_("n-gram lookup, greedy: most drafts are kept (measured on this prompt with "
                                        "{tokens} new tokens on {cpu}: {measured})"), dict(CHAIN_PRESETS["copy"])),
    "question": (N_("2 · A question"), N_("the trained EAGLE drafter, greedy: measured on this prompt with {tokens} "
                                          "new tokens on {cpu}, {measured}; a prompt unlike its training data keeps "
                                          "fewer"), dict(CHAIN_PRESETS["question"])),
    "sampling": (N_("3 · With sampling"), N_("the same at temperature 0.7: the drafter's guesses match less often "
                                             "(measured over seeds {seeds} with {tokens} new tokens on {cpu}: "
                                             "{measured})"), dict(CHAIN_PRESETS["sampling"])),
    "untrained": (N_("4 · Untrained draft"), N_("a layer-skip draft nobody trained, at temperature 0.7: almost every "
                                                "guess is rejected (measured over seeds {seeds} with {tokens} new "
                                                "tokens on {cpu}: {measured})"), dict(CHAIN_PRESETS["untrained"])),
    "tree": (N_("5 · A draft tree"), N_("the trained EAGLE drafter proposing a tree of {nodes} nodes, plus "
                                        "up to {lookup} tokens copied from the text so far, the pair's recommended "
                                        "shape: "
                                        "measured on {prompts} held-out prompts in {dtype} on {cpu}, "
                                        "{tree} tokens per target pass against {chain} for a chain of K = {k}; "
                                        "much of that is the small target's greedy answers repeating themselves, "
                                        "which the lookup branch predicts (it alone lifts this shape from {without} "
                                        "to {with_lookup} in {shape_dtype}, `assets/benchmarks/shapes/default.json`)"),
             {"proposer": "eagle", "prompt": QUESTION_PROMPT, "temperature": 0.0,
              **recommended_settings("default")}),
    # its shape is this machine's (`preset_settings`): the one predicted fastest from the cached calibration
    "fastest": (N_("6 · Fastest here"), N_("the same drafter with the draft shape predicted fastest on this machine "
                                           "({shape}): {prediction}"),
                {"proposer": "eagle", "prompt": QUESTION_PROMPT, "temperature": 0.0, **recommended_settings("default")}),
    "medusa": (N_("7 · Medusa heads"), N_("the Medusa heads trained here, greedy, a tree of {nodes} nodes (width "
                                         "{width}, depth {k}), head d drafting depth d: measured on {prompts} "
                                         "held-out prompts in {dtype} on {cpu}, {medusa} tokens per target "
                                         "pass against {eagle} for the EAGLE drafter's same tree; timed by {clock}, "
                                         "{speed} the speed of model.generate there, slower than the heads' chain "
                                         "of {k} ({chain_speed})"),
               {"proposer": "medusa", "prompt": QUESTION_PROMPT, "temperature": 0.0, "k": 4, "tree_nodes": 16,
                "tree_width": 4, "tree_lookup": 0}),
}
# The fastest preset's promise before this machine is measured (read 52: "the draft shape predicted fastest on this
# machine (...): this machine is not measured yet" contradicted itself): what it runs until then, and after
FASTEST_UNMEASURED = N_("the same drafter with the pair's recommended draft shape ({shape}), as this machine is not "
                        "measured yet; once the Speedup lab measures it, the draft shape predicted fastest here")
# The committed benchmark the tree preset quotes (its recommended shape against a chain of the same K, held-out
# prompts; assets/benchmarks/README.md has the command): a figure read from the file, never typed.
TREE_PRESET_RUN = "default-cpu-bf16-tree"
MEDUSA_PRESET_RUN = "default-cpu-f32-medusa"  # the Medusa preset's: both trained drafters on the same prompts


def preset_settings(name: str) -> dict:
    """A preset's settings by URL name; the "fastest" preset takes this machine's shape (`fastest_here`)."""
    settings = dict(PRESETS[name][2])
    if name == "fastest":
        from specviz.ui.common.this_machine import fastest_here

        settings.update(fastest_here("default", settings["temperature"])[0].settings())
    return settings


def preset_expectation(name: str) -> str:
    """What a preset's button promises, in the reader's language, its measured figures filled in; the fastest preset
    on a machine not measured yet says it runs the pair's recommended shape (FASTEST_UNMEASURED)."""
    figures = preset_figures(name)
    if name == "fastest" and not figures["prediction"]:
        return _(FASTEST_UNMEASURED, shape=figures["shape"])
    return _(PRESETS[name][1], **figures)


def preset_figures(name: str) -> dict[str, str]:
    """The placeholders of a preset's promise: for the tree preset, tokens per target pass of its shape and of the
    chain, read from TREE_PRESET_RUN (a ValueError sentence when the committed run has no such row); for the chain
    presets, their committed runs' counts (`chain_figures`)."""
    if name == "fastest":
        from specviz.ui.common.this_machine import fastest_here

        shape, prediction = fastest_here("default", PRESETS[name][2]["temperature"])
        # no prediction (not measured here): "" and `preset_expectation` says FASTEST_UNMEASURED
        return {"shape": shape.describe(), "prediction": _(
            "predicted {speedup} the speed of model.generate here", speedup=times(prediction.vs_generate))
            if prediction else ""}
    if name == "medusa":
        settings = PRESETS[name][2]
        shape = dict(suite="held-out", k=settings["k"], temperature=settings["temperature"],
                     tree_nodes=settings["tree_nodes"])
        medusa, prompts = quoted.mean_accepted_length(MEDUSA_PRESET_RUN, "medusa", **shape)
        eagle, _prompts = quoted.mean_accepted_length(MEDUSA_PRESET_RUN, "eagle", **shape)
        speeds = {key: quoted.speedup_range(MEDUSA_PRESET_RUN, "medusa", k=settings["k"], temperature=0.0,
                                            tree_nodes=nodes, against="speedup_vs_hf_generate")
                  for key, nodes in (("speed", settings["tree_nodes"]), ("chain_speed", 0))}
        return {"nodes": str(settings["tree_nodes"]), "width": str(settings["tree_width"]), "k": str(settings["k"]),
                "prompts": str(prompts), "dtype": medusa.dtype, "cpu": quoted.machine(MEDUSA_PRESET_RUN),
                "clock": speed_clock(quoted.result(MEDUSA_PRESET_RUN)),
                "medusa": medusa.text(2), "eagle": eagle.text(2),
                **{key: times(value.low) for key, value in speeds.items()}}
    if name in CHAIN_PRESETS:
        return chain_figures(name)
    settings = PRESETS[name][2]
    where = {"suite": "held-out", "k": settings["k"], "temperature": settings["temperature"]}
    tree, prompts = quoted.mean_accepted_length(TREE_PRESET_RUN, settings["proposer"],
                                                tree_nodes=settings["tree_nodes"],
                                                tree_lookup=settings["tree_lookup"], **where)
    chain, _prompts = quoted.mean_accepted_length(TREE_PRESET_RUN, settings["proposer"], **where)
    # the 2.90 rests on the small target's repetitive greedy answers: the committed shape table's lookup lift says so
    lift = lookup_lift("default", DraftShape.of(settings), settings["temperature"])
    table = shape_table("default")
    if lift is None or table is None:
        raise ValueError(_("The committed shape table has no row for the tree preset's shape."))
    return {"nodes": str(settings["tree_nodes"]), "lookup": str(settings["tree_lookup"]), "prompts": str(prompts),
            "dtype": tree.dtype, "cpu": quoted.machine(TREE_PRESET_RUN),
            "tree": tree.text(2), "chain": chain.text(2), "k": str(settings["k"]),
            "without": number(lift[0]), "with_lookup": number(lift[1]), "shape_dtype": table["dtype"]}


# the presets whose promise quotes a committed run over several held-out prompts, by that run's folder
POOLED_PRESET_RUNS = {"tree": TREE_PRESET_RUN, "medusa": MEDUSA_PRESET_RUN}


def pooled_note(name: str, limit: int) -> str | None:
    """For a preset whose promise pools a committed run's held-out prompts (the tree and Medusa presets; the tree's
    lookup lift, from assets/benchmarks/shapes/default.json, pools the same prompts at the same limit): that one live
    run of `limit` new tokens at most is one prompt, the promise's figures all of the run's prompts together (their
    tokens over their target passes) at its own token limit. None for the others, whose figures were measured on
    their own prompt (read 51: "This run: 29 of 288 drafts kept, 2.53 tokens per target pass" stood beside the tree
    preset's 2.90, read as the preset failing).
    """
    if name not in POOLED_PRESET_RUNS:
        return None
    run = quoted.result(POOLED_PRESET_RUNS[name])
    return ngettext("This run is one prompt, with at most {limit} new tokens; the preset's figures were measured on "
                    "{n} held-out prompt, up to {tokens} new tokens, so one prompt can land above or below them.",
                    "This run is one prompt, with at most {limit} new tokens; the preset's figures were measured over "
                    "{n} held-out prompts together, up to {tokens} new tokens each, so one prompt can land above or "
                    "below them.", int(preset_figures(name)["prompts"]), limit=number(limit, 0),
                    tokens=number(int(run["config"]["max_new_tokens"]), 0))


def kept_prompt_note_text(name: str) -> str:
    """The note after preset `name` left the student's own prompt in place: what its figures were measured on. A
    chain preset's on its own prompt; the tree and Medusa presets' over a committed run's held-out prompts together
    (`POOLED_PRESET_RUNS`); the fastest preset's figure is a prediction from this machine's costs, and before a
    measurement it quotes none."""
    label = _(PRESETS[name][0])
    if name in POOLED_PRESET_RUNS:
        return ngettext("{label}: its settings are in, and your own prompt stays. Its figures were measured on {n} "
                        "held-out prompt.",
                        "{label}: its settings are in, and your own prompt stays. Its figures were measured over {n} "
                        "held-out prompts together.", int(preset_figures(name)["prompts"]), label=label)
    if name == "fastest":
        predicted = bool(preset_figures(name)["prediction"])
        return _(TEXT["kept_prompt_predicted" if predicted else "kept_prompt_unmeasured"], label=label)
    return _(TEXT["kept_prompt"], label=label)


def presets_intro() -> str:
    """The line over the preset buttons; the sixth is "the shape predicted fastest here" only once this machine is
    measured (before that it runs the tree preset's shape, `FASTEST_UNMEASURED`)."""
    return _(TEXT["presets" if preset_figures("fastest")["prediction"] else "presets_unmeasured"])


def speed_clock(result: dict[str, Any]) -> str:
    """What a committed run's speeds were timed by: its clock and torch threads (`quoted.clock_text`; read 49: the
    Medusa preset quoted a run timed by one thread's CPU time as measured "on AMD EPYC (2 cores, ...)", which reads
    as both cores).

    >>> speed_clock({"config": {"clock": "cpu"}, "machine": {"torch_threads": 1}})
    'CPU time with 1 torch thread'
    """
    return quoted.clock_text(result)


def chain_figures(name: str) -> dict[str, str]:
    """A chain preset's placeholders, from assets/benchmarks/presets/presets.json (`python -m
    specviz.scripts.preset_runs`): drafts kept of drafts made and tokens per target pass in PRESET_DTYPE, then in
    OTHER_DTYPE (each a range over the seeds where there are several), the new tokens the runs wrote (in both
    dtypes), the seeds and the machine."""
    main, other = preset_measurement(name, PRESET_DTYPE), preset_measurement(name, OTHER_DTYPE)
    measured = ngettext("{kept} of {drafted} draft kept, {per_pass} tokens per target pass in {dtype}; {other_kept} "
                        "of {other_drafted}, {other_per_pass} in {other_dtype}",
                        "{kept} of {drafted} drafts kept, {per_pass} tokens per target pass in {dtype}; {other_kept} "
                        "of {other_drafted}, {other_per_pass} in {other_dtype}", main.drafted[1],
                        kept=span(main.accepted, 0), drafted=span(main.drafted, 0),
                        per_pass=span(main.mean_accepted_length, 1), dtype=main.dtype,
                        other_kept=span(other.accepted, 0), other_drafted=span(other.drafted, 0),
                        other_per_pass=span(other.mean_accepted_length, 1), other_dtype=other.dtype)
    seeds = (min(main.seeds), max(main.seeds))
    # the tokens the runs wrote, not the limit: the copy preset's text ends at 31 of its 48 (it said "48" for both)
    tokens = (min(main.tokens[0], other.tokens[0]), max(main.tokens[1], other.tokens[1]))
    return {"measured": measured, "tokens": span(tokens, 0), "seeds": span(seeds, 0),
            "cpu": quoted.machine_text(main.machine)}


def span(values: tuple[float, float], digits: int) -> str:
    """A lowest and highest value the reader's way: "4.4", or "15 to 21" when they differ as written.

    >>> span((15, 21), 0), span((1.02, 1.04), 1)
    ('15 to 21', '1.0')
    """
    low, high = number(values[0], digits), number(values[1], digits)
    return low if low == high else _("{low} to {high}", low=low, high=high)


def first_load_figures() -> dict[str, str]:
    """The first hint's placeholders (TEXT["first_prompt"]): the pair's first load with an empty cache and a second
    one in the same process, in seconds, and the dtype, load average and machine they were timed at, from the
    committed PRESET_DTYPE run."""
    run = preset_run(PRESET_DTYPE)
    loading, machine = first_load(PRESET_DTYPE), run.get("machine") or {}
    return {"first": number(loading["first_seconds"], 0), "later": number(loading["later_seconds"], 1),
            "load": number(loading["load_average_start"][0], 1), "cpu": quoted.machine_text(machine),
            "dtype": str(run["dtype"])}


class SettingKeys(Mapping):
    """The session-state key of each setting, by the URL name it is shared under: a RunSpec field, the page's own,
    or a proposer's own setting (the registry's, read when asked: a proposer registered later has its key)."""

    FIXED = {
        "source": "playground_source", "example": "playground_example", "prompt": "playground_prompt",
        "pair": "playground_pair", "proposer": "playground_proposer", "k": "playground_k",
        "temperature": "playground_temperature", "top_k": "playground_top_k", "top_p": "playground_top_p",
        "seed": "playground_seed", "max_new_tokens": "playground_max_new_tokens", "chat": "playground_chat",
        "tree_nodes": "playground_tree_nodes", "tree_width": "playground_tree_width",
        "tree_lookup": "playground_tree_lookup",
    }

    def __getitem__(self, name: str) -> str:
        if name in self.FIXED:
            return self.FIXED[name]
        if name in registry.setting_names():
            return f"playground_{name}"
        raise KeyError(name)

    def __iter__(self):
        return iter((*self.FIXED, *registry.setting_names()))

    def __len__(self) -> int:
        return len(self.FIXED) + len(registry.setting_names())


KEYS = SettingKeys()
STEP_PARAM = "step"

# Every sentence of the live run that a user reads, in one place (English messages with named placeholders: `_()`
# translates them where they are shown).
TEXT = {
    "settings": N_("Prompt and settings"),
    # presets 2 to 4 keep fewer drafts each (PRESETS' figures); 5 to 7 keep more than 4 does, so no "each next one"
    "presets": N_("**Start from a preset.** The first shows the idea working; the next three are each harder for the "
                  "draft; the last three try other shapes and drafters: a draft tree, the shape predicted fastest "
                  "here, and Medusa heads."),
    # read 55: on a machine not measured yet the sixth preset runs the pair's recommended tree (FASTEST_UNMEASURED)
    "presets_unmeasured": N_("**Start from a preset.** The first shows the idea working; the next three are each "
                             "harder for the draft; the last three try other shapes and drafters: a draft tree, the "
                             "shape predicted fastest here (the same tree until the Speedup lab measures this "
                             "machine), and Medusa heads."),
    # read 55: the tree and Medusa presets' figures pool held-out prompts and the fastest preset's is a prediction,
    # yet this note said "The figures under the presets were measured on the preset's prompt" after any of them
    "kept_prompt": N_("{label}: its settings are in, and your own prompt stays. Its figures were measured on the "
                      "preset's prompt."),
    "kept_prompt_predicted": N_("{label}: its settings are in, and your own prompt stays. Its figure is a prediction "
                                "from this machine's measured costs, not a measurement on any one prompt."),
    "kept_prompt_unmeasured": N_("{label}: its settings are in, and your own prompt stays."),
    "use_preset_prompt": N_("Use the preset's prompt"),
    "this_run": N_("This run: {kept_of_drafted}, {per_pass} tokens per target pass. The preset "
                   "{label} promised: {expected}."),
    "other_prompt": N_("Your prompt is not the preset's: the drafter learned from short chat answers, so a prompt "
                       "unlike them keeps fewer drafts."),
    "other_prompt_ngram": N_("Your prompt is not the preset's: n-gram lookup only drafts what followed the same tokens "
                             "earlier in the text, so an answer that repeats its prompt less keeps fewer drafts."),
    "started": N_("**Running:** the target checks each step's drafts as they come; the first tokens appear in a "
                  "moment."),
    "progress": N_("Step {steps} · {tokens} of at most {limit} · {kept_of_drafted} · {seconds} s"),  # "1 token"
    "running": N_("**Running:** each chip is a token as soon as the target decided it."),
    "link_waits": N_("This link asks for a live run on the shared model: press **Run** to start it."),
    "first_prompt": N_("Type a prompt, choose the settings and press **Run**. If the real model is not ready yet, the "
                       "first run waits for it to load (a box counts the seconds). The very first load on a machine "
                       "converts its weights to float32: "
                       "{first} s on {cpu} at load average {load}, loading the pair in {dtype}; a second load in the "
                       "same process, reading the converted copy, took {later} s. The toy pair is instant."),
    "changed": N_("The settings above changed since this run: press **Run** to see their effect."),
    "failed": N_("The live run failed on this machine ({error}); the example traces still work."),
    # read 55: the width and lookup boxes stayed open and the run dropped them; now greyed out, and said so
    "no_branching": N_("N-gram lookup cannot branch, so it keeps drafting a chain of K and uses neither the tree's "
                       "width nor its lookup branch (greyed out): pick a model that drafts to see a tree."),
}


# ---- who drafts (the registry's proposers) -------------------------------------------------------------------


def pair_proposers(pair: str) -> tuple[str, ...]:
    """Proposers that work for a pair, best first (`specviz.engine.proposers.registry.offered`): a built-in pair's own
    drafters first; a hand-made pair ("TARGET,DRAFT") drafts with its draft model when it has one.

    >>> pair_proposers("toy"), pair_proposers("my-target")
    (('draft', 'ngram', 'layerskip'), ('ngram', 'layerskip'))
    """
    return registry.offered(PAIR_DRAFTERS.get(pair, ("draft",) if "," in pair else ()))


# ---- URL <-> settings (plain functions) ---------------------------------------------------------------------


def defaults(example_names: list[str]) -> dict[str, Any]:
    """Every setting's default, by URL name."""
    example = DEFAULT_EXAMPLE if DEFAULT_EXAMPLE in example_names or not example_names else example_names[0]
    live = asdict(LIVE_DEFAULTS)
    live.pop("policy")
    live.pop("proposer_settings")
    own = {setting.name: form_value(setting.name, LIVE_DEFAULTS.proposer_setting(setting.name))
           for setting in registry.all_settings()}
    return {"source": "example", "example": example, **live, **own}


def form_value(name: str, value: int | None) -> int:
    """A proposer's own setting as its input shows it: the proposer's default (None) as the setting's `unset`
    (layer-skip's 0), else its lowest value."""
    if value is not None:
        return value
    setting = registry.setting(name)
    return setting.lo if setting.unset is None else setting.unset


def parse_query_params(params: Mapping[str, str],
                       example_names: list[str]) -> tuple[dict[str, Any], dict[str, str]]:
    """Settings from URL parameters: (values by URL name for the valid ones, a phrase by URL name for each invalid
    one, saying what it accepts and the value typed). A run setting is checked by `RunSpec` (refused, never clamped)
    and by what this page offers (its pairs, their proposers and the top of a proposer's own setting, at most
    WEB_MAX_NEW_TOKENS new tokens).

    >>> values, bad = parse_query_params({"k": "6", "temperature": "hot", "pair": "toy"}, ["toy-draft"])
    >>> values, bad
    ({'pair': 'toy', 'k': 6}, {'temperature': "temperature must be a number from 0 to 2 (got 'hot')"})
    >>> parse_query_params({"pair": "toy", "layers": "2"}, [])[1]  # the toy target's layer skip keeps at most 1 layer
    {'layers': 'layers must be a whole number from 0 to 1 (got 2)'}
    >>> parse_query_params({"max_new_tokens": "99999", "pair": "toy", "layers": "200"}, [])[1]  # the page's tops
    {'max_new_tokens': 'max_new_tokens must be a whole number from 1 to 256 (got 99999)', \
'layers': 'layers must be a whole number from 0 to 1 (got 200)'}
    """
    page_rules = {
        "source": (lambda v: v if v in SOURCES else None, lambda: _choices(SOURCES)),
        "example": (lambda v: v if v in example_names else None, lambda: _choices(example_names)),
        STEP_PARAM: (lambda v: urlvalues.whole(v, 0, 100_000),  # ASCII digits only: "²" or "٣" is no step
                     lambda: _("a whole number from {lo} to {hi}", lo=number(0, 0), hi=number(100_000, 0))),
    }
    values: dict[str, Any] = {}
    bad: dict[str, str] = {}
    for name in ("source", "example", *KEYS, STEP_PARAM):
        if name not in params or name in values or name in bad:
            continue
        raw = str(params[name])
        if name in page_rules:
            read, rule = page_rules[name]
            value = read(raw)
            if value is None:
                bad[name] = link_refusal(name, raw, rule())
        else:
            value, problem = _run_setting(name, raw)
            if problem is not None:
                bad[name] = problem
        if name not in bad:
            values[name] = value
    if values.get("tree_lookup") and not values.get("tree_nodes", LIVE_DEFAULTS.tree_nodes):
        # a lookup branch with no tree (issue 44 item 9): refused, not silently dropped, with the rule and the value
        # typed as every other refusal here (read 54: "...; A lookup branch needs a draft tree: set tree nodes above
        # 0, ...;" named neither the parameter nor the value, and began a list item with a capital)
        bad["tree_lookup"] = lookup_refusal(params["tree_lookup"])  # one sentence, RunSpec.parse_query's
        values.pop("tree_lookup")
    pair = values.get("pair", LIVE_DEFAULTS.pair)
    if "proposer" in values and values["proposer"] not in pair_proposers(pair):
        bad["proposer"] = link_refusal("proposer", params["proposer"], _choices(pair_proposers(pair)))
        values.pop("proposer")
    for own in registry.all_settings():  # the pair's own top (layer skip keeps fewer layers than the target has):
        over = own.name in values and values[own.name] > own.most_for(pair)  # refused here, not reset by its input
        if over or own.name in bad:  # a refusal says this pair's top, not RunSpec's (128 layers for a 2-layer toy)
            bad[own.name] = link_refusal(own.name, params[own.name],
                                         replace(setting_of(own.name), hi=own.most_for(pair)).rule())
            values.pop(own.name, None)
    return values, bad


def _choices(names) -> str:
    return _("one of {choices}", choices=", ".join(names))


def _run_setting(name: str, raw: str) -> tuple[Any, str | None]:
    """One run setting from its URL text: (its value, None), or (None, the phrase that refuses it) when RunSpec or
    this page refuses it."""
    base = replace(LIVE_DEFAULTS, tree_nodes=1) if name == "tree_lookup" else LIVE_DEFAULTS  # nodes judged apart
    spec, problems = RunSpec.parse_query({name: raw}, base)
    if name == "max_new_tokens" and (problems or spec.max_new_tokens > WEB_MAX_NEW_TOKENS):  # this page's top
        return None, link_refusal(name, raw, replace(setting_of(name), hi=WEB_MAX_NEW_TOKENS).rule())
    if problems:
        return None, problems[0]
    if name in registry.setting_names():
        return form_value(name, spec.proposer_setting(name)), None
    value = getattr(spec, name)
    if name == "pair" and value not in PAIRS:
        return None, link_refusal(name, raw, _choices(PAIRS))
    return value, None


def query_params_for(source: str, example: str | None, settings: RunSpec | None, step: int,
                     typed_pair: str | None = None) -> dict[str, str]:
    """The URL parameters that reproduce what is on screen. A pair loaded by hand on the Models page is written as
    the visitor typed it (`typed_pair`), never the server paths its spec resolved to (read 44: the address bar
    showed them); a link cannot load such a pair anyway (`parse_query_params` refuses it, with the warning).

    >>> query_params_for("example", "toy-draft", None, 3)
    {'source': 'example', 'example': 'toy-draft', 'step': '3'}
    >>> query_params_for("live", None, RunSpec(pair="/srv/models/a"), 0, "./a")["pair"]
    './a'
    """
    params = {"source": source}
    if source == "example" and example:
        params["example"] = example
    if source == "live" and settings is not None:
        query = settings.to_query()
        query.pop("policy", None)  # the Playground runs constant K
        for name in registry.setting_names():  # only the chosen proposer's own settings
            if not registry.takes(settings.proposer, name):
                query.pop(name, None)
        if not settings.tree_nodes:  # a chain: its width and lookup mean nothing, and chain links stay as they were
            query.pop("tree_width", None)
            query.pop("tree_lookup", None)
        if query.get("pair") not in PAIRS:  # by hand: as typed, else not at all
            query.pop("pair", None)
            if typed_pair:
                query["pair"] = typed_pair
        params.update(query)
    params[STEP_PARAM] = str(step)
    return params


def settings_of(trace: Trace) -> dict[str, Any] | None:
    """A trace's live-run settings by URL name, or None when it was not made by a pair the Playground can load.

    >>> from specviz.labs.examples import load_example
    >>> settings_of(load_example("toy-draft")[0])["pair"]
    'toy'
    """
    meta, s = trace.meta, trace.settings
    name = str(s.get("proposer", meta.get("proposer", "")))
    pair, proposer = meta.get("pair"), name.split("-")[0]  # "layerskip-7" is the proposer "layerskip"
    if pair not in PAIRS or proposer not in pair_proposers(pair) or not meta.get("prompt"):
        return None
    return {"pair": pair, "proposer": proposer, "prompt": str(meta["prompt"]), "chat": bool(meta.get("chat", True)),
            "k": int(s.get("k") or 4), "temperature": float(s.get("temperature", 0.0)),
            "top_k": int(s.get("top_k", 0)), "top_p": float(s.get("top_p", 1.0)), "seed": int(s.get("seed", 0)),
            "max_new_tokens": min(int(s.get("max_new_tokens", 48)), WEB_MAX_NEW_TOKENS),
            **{own.name: form_value(own.name, _whole_or_none(s.get(own.name)) if registry.takes(proposer, own.name)
                                    else None) for own in registry.all_settings()},
            "tree_nodes": int(s.get("tree_nodes", 0)),
            "tree_width": int(s.get("tree_width", LIVE_DEFAULTS.tree_width)),
            "tree_lookup": int(s.get("tree_lookup", 0))}


def _whole_or_none(value: Any) -> int | None:
    """A recorded setting's value if it is a whole number (a trace file can say anything), else None."""
    return value if is_whole(value) else None
