"""The Playground's chain presets as plain data: their prompts and settings, the run each one makes, and the
committed file that records what those runs did.

    spec = preset_spec("sampling", seed=3)                   # the Playground's run after that button, seed 3
    measured = preset_measurement("sampling", "bfloat16")    # its committed counts over the seeds it quotes

The Playground (`specviz.ui.playground.settings.PRESETS`) puts a preset's settings into its form over its defaults
(`LIVE_DEFAULTS`), with pair "default" and seed 0. `python -m specviz.scripts.preset_runs` runs each chain preset the
same way, over `PRESET_SEEDS` (the sampled ones over five seeds), and writes `PRESET_RESULTS`
(assets/benchmarks/presets/presets.json): the counts the presets' texts quote, with the command, dtype, date, commit
and machine of each run. The counts do not depend on how busy the machine was; another dtype, CPU or kernel can
change which drafts are kept.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from specviz.core.paths import BENCHMARKS_DIR, read_json_once
from specviz.engine.proposers import registry
from specviz.runs.runspec import RunSpec

COPY_PROMPT = ("Copy this paragraph exactly, word for word:\n\nThe moon goes around the Earth about once a month. "
               "It does not make its own light. We see it because it reflects light from the sun, and its shape "
               "seems to change as it moves.")
QUESTION_PROMPT = "Explain owls using an analogy."
# The Playground's first live run; its top-k, top-p, chat template and 48 new tokens are what every preset sets
LIVE_DEFAULTS = RunSpec(
    pair="default", proposer="ngram", chat=True, k=4, max_new_tokens=48, temperature=0.0, seed=0, prompt=COPY_PROMPT,
)
PRESET_PAIR = "default"  # every preset sets it, with seed 0
CHAIN = {"tree_nodes": 0, "tree_lookup": 0}  # a tree picked before does not stay on
# name -> the settings the preset's button sets, by URL name (a proposer's own settings, such as layers, among them)
CHAIN_PRESETS: dict[str, dict[str, Any]] = {
    "copy": {"proposer": "ngram", "prompt": COPY_PROMPT, "k": 4, "temperature": 0.0, **CHAIN},
    "question": {"proposer": "eagle", "prompt": QUESTION_PROMPT, "k": 3, "temperature": 0.0, **CHAIN},
    "sampling": {"proposer": "eagle", "prompt": QUESTION_PROMPT, "k": 3, "temperature": 0.7, **CHAIN},
    "untrained": {"proposer": "layerskip", "prompt": QUESTION_PROMPT, "k": 3, "temperature": 0.7, "layers": 0,
                  **CHAIN},
}
# the seeds each preset is measured over: greedy needs one; a sampled preset's figures are a range over five
PRESET_SEEDS = {name: (0,) if settings["temperature"] == 0 else tuple(range(5))
                for name, settings in CHAIN_PRESETS.items()}
PRESET_RESULTS = BENCHMARKS_DIR / "presets" / "presets.json"  # not results.json: that is a bench result's name
SCHEMA, SCHEMA_VERSION = "specviz-presets", 1


def preset_spec(name: str, seed: int = 0, pair: str = PRESET_PAIR, base: RunSpec = LIVE_DEFAULTS) -> RunSpec:
    """The run a chain preset's button sets up in the Playground: its form's defaults (`base`), the preset's
    settings (its proposer's own among them), the pair and the seed.

    >>> spec = preset_spec("untrained", seed=2)
    >>> spec.proposer, spec.k, spec.temperature, spec.seed, spec.max_new_tokens, spec.proposer_settings
    ('layerskip', 3, 0.7, 2, 48, ())
    """
    settings = dict(CHAIN_PRESETS[name])
    own_names = registry.get(settings["proposer"]).setting_names
    own = {key: settings.pop(key) for key in list(settings) if key in registry.setting_names()}
    return replace(base, pair=pair, seed=seed, proposer_settings={k: v for k, v in own.items() if k in own_names},
                   **settings)


# ---- the committed measurement ------------------------------------------------------------------------------------


def preset_results(path: Path = PRESET_RESULTS) -> dict[str, Any]:
    """The file `python -m specviz.scripts.preset_runs` wrote, read once per version of it (its size and modification
    time: a page quotes it several times per render); a ValueError with one sentence when it cannot be read, so a page
    that quotes it fails in the tests instead of printing a number nobody measured. Shared between callers: read it,
    never change it."""
    try:
        return read_json_once(path)
    except (OSError, ValueError) as exc:
        raise ValueError(f"The committed preset runs {path} cannot be read ({exc.__class__.__name__}).") from None


def preset_run(dtype: str, path: Path = PRESET_RESULTS) -> dict[str, Any]:
    """The run in `dtype` (float32, bfloat16) of the file: command, dtype, date, commit, machine and presets."""
    data = preset_results(path)
    runs = data.get("runs") if isinstance(data, dict) else None
    run = runs.get(dtype) if isinstance(runs, dict) else None
    if not isinstance(run, dict) or not run:
        raise ValueError(f"The committed preset runs {path} hold no run in {dtype}.")
    return run


@dataclass(frozen=True)
class PresetMeasurement:
    """One preset's counts in one run, each the lowest and the highest over its seeds (equal for one seed)."""

    seeds: tuple[int, ...]
    accepted: tuple[int, int]
    drafted: tuple[int, int]
    mean_accepted_length: tuple[float, float]  # tokens emitted per target pass, the recovered or bonus token included
    max_new_tokens: int
    tokens: tuple[int, int]  # the new tokens written: fewer than max_new_tokens where the text ended (copy: 31 of 48)
    dtype: str
    machine: dict[str, Any]


def preset_measurement(name: str, dtype: str, path: Path = PRESET_RESULTS) -> PresetMeasurement:
    """A preset's committed counts in `dtype`, over the seeds it was run with."""
    run = preset_run(dtype, path)
    presets = run.get("presets")
    preset = presets.get(name) if isinstance(presets, dict) else None
    if not isinstance(preset, dict) or not preset.get("seeds"):
        raise ValueError(f"The committed preset runs {path} hold no {name} preset in {dtype}.")
    seeds = preset["seeds"]

    def span(key: str) -> tuple[Any, Any]:
        values = [row[key] for row in seeds]
        return min(values), max(values)

    try:  # a damaged row or spec: one sentence, as preset_results promises, not a KeyError
        return PresetMeasurement(tuple(row["seed"] for row in seeds), span("accepted"), span("drafted"),
                                 span("mean_accepted_length"), int(preset["spec"]["max_new_tokens"]),
                                 span("tokens"), str(run["dtype"]), dict(run.get("machine") or {}))
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"The committed preset runs {path} hold a damaged {name} preset in {dtype}.") from None


def first_load(dtype: str, path: Path = PRESET_RESULTS) -> dict[str, Any]:
    """The first-load timing recorded with the run in `dtype` (`preset_runs --first-load`): first_seconds,
    later_seconds, load_average_start, what was timed."""
    record = preset_run(dtype, path).get("first_load")
    if not isinstance(record, dict) or not record:
        raise ValueError(f"The committed preset runs {path} time no first load in {dtype}.")
    return record
