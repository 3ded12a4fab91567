"""Example traces shipped with specviz: replayed instantly, with no model loaded.

Each example is a pair of files under `assets/traces/`, written by `python -m specviz.scripts.make_traces`:

    <name>.json           the speculative trace (its `meta` holds the title and description)
    <name>.baseline.json  target-only decoding of the same prompt with the same settings (optional)

    >>> names = [e.name for e in list_examples()]
    >>> "toy-draft" in names
    True
    >>> spec, base = load_example("toy-draft")
    >>> spec.mode, base.mode
    ('speculative', 'autoregressive')

Public API (other pages import it; keep it stable): `Example`, `TRACES_DIR`, `DEFAULT_EXAMPLE`,
`list_examples()`, `get_example(name)`, `load_example(name)`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from specviz.core.i18n import N_, _
from specviz.core.paths import TRACES_DIR
from specviz.engine.trace import Trace

BASELINE_SUFFIX = ".baseline.json"
# The example the Playground opens with; the others follow in this order, then any extra files by name.
ORDER = ("smollm-ngram-t07", "smollm-eagle-greedy", "smollm-draft-t07", "toy-draft", "smollm-layerskip-t07",
         "smollm-draft-greedy", "smollm-ngram-greedy")
DEFAULT_EXAMPLE = ORDER[0]

# The shipped examples' titles and descriptions (written into each trace's `meta` by specviz.scripts.make_traces),
# marked for the Portuguese catalog: `Example.shown_title` and `.shown_description` translate them where they
# are shown. A trace whose text differs from these (re-recorded with new words) is shown as it is, in English,
# until its new text is added here; tests/i18n/test_i18n_overview_playground.py checks that every shipped one is.
SHIPPED_TEXTS = (
    N_("Copying text: n-gram drafts (SmolLM2, T = 0.7)"),
    N_("SmolLM2-135M copies a paragraph. The n-gram proposer drafts by looking up what followed the last few "
       "tokens earlier in the text: no draft model at all. Because the output repeats the prompt, long runs of "
       "drafts are accepted, often with a bonus token after them; where the model words it differently, a draft "
       "is rejected and replaced by a recovered token."),
    N_("A trained feature drafter: EAGLE-3 (SmolLM2, T = 0)"),
    N_("The EAGLE-3 drafter specviz trained for SmolLM2 (assets/models/smollm2-eagle): one small layer that reads "
       "three of the target's layers fused into one state and guesses the next token with its own head. On this "
       "held-out prompt it emits about 1.9 tokens per target forward. In float32, like this trace, over 8 held-out "
       "prompts at K = 4 it averages {eagle_tokens}, about {eagle_speedup} times as fast as model.generate, with "
       "c = {eagle_c}: assets/benchmarks/default-cpu-f32-packed, measured on {f32_packed_machine}."),
    N_("A separate draft model, sampling (SmolLM2, T = 0.7)"),
    N_("The guided path's lesson 4: SmolLM2's 4-layer draft (assets/models/smollm2-draft) samples K = 2 tokens "
       "per step at T = 0.7, so each guess has a real probability q below 1 and the target keeps it with "
       "probability min(1, p/q). Rejections with a recovered token come early, and a bonus token follows every "
       "step whose two drafts were both kept."),
    N_("A toy pair with a draft model (T = 1)"),
    N_("Two tiny random-weight models over 34 tokens (32 characters and two special tokens); the draft is the "
       "target with noise added to its weights, so the two usually agree (accepted / drafted about 0.7). Every "
       "kind of token appears: accepted drafts, rejections with a recovered token, and bonus tokens after a fully "
       "accepted step."),
    N_("An untrained self-draft: layer skip (SmolLM2, T = 0.7)"),
    N_("The draft is SmolLM2's own first 7 of 30 layers with its output head. It was never trained to exit "
       "early, so its guesses rarely match the full model: most drafts are rejected and almost every step "
       "emits one token. Speculation only pays when the draft agrees with the target."),
    N_("A separate draft model (SmolLM2, T = 0)"),
    N_("The classic form: a separate small model drafts. Here it is SmolLM2's first 3 layers plus one trained "
       "adapter layer (assets/models/smollm2-draft), a standalone model that loads with from_pretrained. On the same "
       "prompt it emits about as many tokens per target forward as the EAGLE drafter (2.0 against 1.9), but "
       "each draft costs far more: 4 layers and the full LM head, c = {draft_c} in float32 in "
       "assets/benchmarks/default-cpu-drafts, measured on {drafts_machine}. So in that run, with PyTorch's stock "
       "kernels, it was slower than specviz's target-only decoding at every fixed K it tried ({draft_low} to "
       "{draft_high} times its speed at T = 0): the race shows where the time goes."),
    N_("Medusa heads (SmolLM2, T = 0)"),
    N_("The Medusa heads specviz trained for SmolLM2 (assets/models/smollm2-medusa): each head reads the target's "
       "last hidden state and guesses one position further ahead, head 2 without knowing head 1's guess, so few "
       "steps keep more than one draft. On the EAGLE example's held-out prompt they emit about "
       "1.5 tokens per target forward against 1.9 for the EAGLE drafter; proposing takes no drafter pass: it "
       "runs the blocks of heads 1 to K on the last hidden state the target's own forward computed, then the LM "
       "head once over all K (c = {medusa_c} in float32 in "
       "assets/benchmarks/default-cpu-f32-medusa, measured on {medusa_machine} and timed by {medusa_clock}; c is "
       "the time of one head's block, its product with the LM head's rows for the heads' draft vocabulary and "
       "the greedy token pick, over one target forward)."),
    N_("Copying text, greedy: n-gram drafts (SmolLM2, T = 0)"),
    N_("The same copying task at temperature 0. With greedy decoding a draft is accepted exactly when it is "
       "the target's top token, so every decision is a clean yes or no (p is 1 or 0)."),
)


# The committed runs whose machine a shipped description names, by its placeholder: `quoted.machine` words it from the
# run's results.json, so no description types a CPU by hand.
DESCRIPTION_MACHINES = {"f32_packed_machine": "default-cpu-f32-packed", "drafts_machine": "default-cpu-drafts",
                        "medusa_machine": "default-cpu-f32-medusa"}


def description_machines() -> dict[str, str]:
    """{placeholder: "AMD EPYC (2 cores, oneDNN packed-weight kernels)", ...} for the shipped descriptions ("?" when a run's
    file is missing)."""
    from specviz.labs.bench import quoted

    found = {}
    for key, folder in DESCRIPTION_MACHINES.items():
        try:
            found[key] = quoted.machine(folder)
        except ValueError:
            found[key] = "?"
    return found


def description_figures() -> dict[str, str]:
    """{placeholder: figure} for the committed runs' figures the shipped descriptions quote, read from each run's
    results.json in the reader's number format, so no description types a measured figure by hand: the EAGLE-3
    drafter's chain of 4 (greedy, float32) in default-cpu-f32-packed, the separate draft's c and its speed against
    target-only decoding at T = 0 in default-cpu-drafts, the Medusa heads' c in default-cpu-f32-medusa and the clock
    and torch threads that run timed it by ("?" for a figure whose run is missing). Every c is written as the Theory
    and Speedup pages and the runs' results.md write a measured c (`small_number`: 3 decimals; read 54: the Medusa
    example's "c = 0.05" beside 0.046 there, the separate draft's 0.30 beside 0.303)."""
    from specviz.core.i18n import number, small_number
    from specviz.labs.bench import quoted

    def eagle() -> dict[str, str]:
        chain = dict(k=4, temperature=0.0)
        tokens = quoted.mean_accepted_length("default-cpu-f32-packed", "eagle", **chain)[0]
        speed = quoted.speedup_range("default-cpu-f32-packed", "eagle", against="speedup_vs_hf_generate", **chain)
        return {"eagle_tokens": tokens.text(1), "eagle_speedup": speed.text(1),
                "eagle_c": small_number(quoted.draft_cost("default-cpu-f32-packed", "eagle").low)}

    def draft() -> dict[str, str]:
        speed = quoted.speedup_range("default-cpu-drafts", "draft", temperature=0.0)
        return {"draft_c": small_number(quoted.draft_cost("default-cpu-drafts", "draft").low),
                "draft_low": number(speed.low, 2), "draft_high": number(speed.high, 2)}

    def medusa() -> dict[str, str]:  # read 49: its run was timed by one thread's CPU time, which the text says
        return {"medusa_c": small_number(quoted.draft_cost("default-cpu-f32-medusa", "medusa").low),
                "medusa_clock": quoted.timed_by("default-cpu-f32-medusa")}

    found = {}
    for part, keys in ((eagle, ("eagle_tokens", "eagle_speedup", "eagle_c")),
                       (draft, ("draft_c", "draft_low", "draft_high")),
                       (medusa, ("medusa_c", "medusa_clock"))):
        try:
            found.update(part())
        except ValueError:
            found.update(dict.fromkeys(keys, "?"))
    return found


@dataclass(frozen=True)
class Example:
    """One shipped example: `name` is the file stem; `paths` is (speculative,) or (speculative, baseline)."""

    name: str
    title: str
    description: str
    paths: tuple[Path, ...]

    @property
    def shown_title(self) -> str:
        """The title in the reader's language (a shipped example's; any other as it is)."""
        return _(self.title) if self.title else self.title

    @property
    def shown_description(self) -> str:
        """The description in the reader's language, with the machines it names and the figures it quotes filled in
        from their committed runs (a shipped example's; any other as it is)."""
        if self.description in SHIPPED_TEXTS:
            return _(self.description, **description_machines(), **description_figures())
        return self.description

    @property
    def path(self) -> Path:
        """The speculative trace file."""
        return self.paths[0]

    @property
    def baseline_path(self) -> Path | None:
        """The target-only trace file, when there is one."""
        return self.paths[1] if len(self.paths) > 1 else None


def list_examples(folder: Path | None = None) -> list[Example]:
    """Every example in `folder` (default `assets/traces/`), the default example first."""
    folder = Path(folder) if folder is not None else TRACES_DIR
    files = sorted(p for p in folder.glob("*.json") if not p.name.endswith(BASELINE_SUFFIX)) if folder.is_dir() else []
    rank = {name: i for i, name in enumerate(ORDER)}
    files.sort(key=lambda p: (rank.get(p.stem, len(ORDER)), p.stem))
    return [_example(p, p.stat().st_mtime_ns) for p in files]


def get_example(name: str, folder: Path | None = None) -> Example:
    """The example called `name`; an unknown name is a ValueError with one sentence."""
    examples = list_examples(folder)
    for example in examples:
        if example.name == name:
            return example
    choices = ", ".join(e.name for e in examples) or _("none are installed")
    raise ValueError(_("There is no example trace called '{name}' (choose from: {choices}).", name=name,
                       choices=choices))


def load_example(name: str, folder: Path | None = None) -> tuple[Trace, Trace | None]:
    """The speculative trace of example `name` and its target-only baseline (None when the file is missing).

    Each call returns fresh objects, so a caller may change them freely.
    """
    example = get_example(name, folder)
    spec = Trace.from_json(_read(example.path, example.path.stat().st_mtime_ns))
    spec.meta.setdefault("example", example.name)
    base = None
    if example.baseline_path is not None:
        base = Trace.from_json(_read(example.baseline_path, example.baseline_path.stat().st_mtime_ns))
    return spec, base


@lru_cache(maxsize=32)
def _read(path: Path, mtime_ns: int) -> str:
    return path.read_text(encoding="utf-8")


@lru_cache(maxsize=64)
def _example(path: Path, mtime_ns: int) -> Example:
    try:
        meta = json.loads(_read(path, mtime_ns)).get("meta") or {}
    except (ValueError, AttributeError):
        meta = {}
    baseline = path.with_name(path.stem + BASELINE_SUFFIX)
    paths = (path, baseline) if baseline.is_file() else (path,)
    return Example(path.stem, str(meta.get("title") or path.stem), str(meta.get("description") or ""), paths)
