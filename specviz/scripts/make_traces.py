"""Record the example traces the app opens with: `python -m specviz.scripts.make_traces` (or `make traces`).

Each recipe runs one speculative generation and the target-only baseline with the same prompt and settings,
and writes `assets/traces/<name>.json` and `assets/traces/<name>.baseline.json`. The traces carry a title and a
description in `meta`, which `specviz.labs.examples` reads. Recording is deterministic (fixed seeds) and in float32,
where every committed greedy example equals its target-only baseline token for token (an observation, not a
guarantee: float32 rounds too, far more finely than bfloat16); the timings are those of the machine that ran the
script. The prompts and seeds are chosen so that the examples a student meets first show every token kind
(accepted, rejected, recovered, bonus) in their first steps and draft no chat-template marker there
(tests/labs/test_examples.py holds them to that, and each description's figures to its trace).

    python -m specviz.scripts.make_traces               # every recipe
    python -m specviz.scripts.make_traces toy-draft     # only the ones named
    python -m specviz.scripts.make_traces --clock wall  # wall-clock timings (on a quiet machine of your own)

The timings are CPU time by default (`time.process_time`, one torch thread, `meta["clock"] = "cpu"`): on a shared
machine wall time mostly measures waiting for a core, while one thread's CPU time is what wall time would be on an
idle one (the bench's `--clock cpu` reads the same clock, but runs one thread only with `--threads 1`: with more it
adds their times up). The race says which clock a recording used, and on which machine: `meta["machine"]` records
it (`specviz.labs.bench.timing.machine_info` plus the pair's device, dtype and kernels; the examples recorded before
the field existed have none).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from dataclasses import replace

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.engine.generation import default_clock, torch_threads
from specviz.engine.limits import CLOCKS
from specviz.engine.trace import Trace
from specviz.labs.bench.timing import machine_info, pair_placement
from specviz.labs.examples import TRACES_DIR
from specviz.models.pairs import load_pair
from specviz.runs.running import proposer_for, run, run_target_only
from specviz.runs.runspec import RunSpec

REWRITE_PROMPT = (
    "Copy this paragraph exactly, word for word:\n\n"
    "The water cycle moves water between the oceans, the air and the land. The sun heats the oceans and water "
    "evaporates into the air. The vapour cools, forms clouds and falls back to the land as rain or snow."
)
TOY_PROMPT = "the quick brown fox jumps over the lazy dog. the quick"
SPIDERS_PROMPT = "Give me three interesting facts about spiders."  # a held-out prompt: the drafts never trained on it


@dataclass(frozen=True)
class Recipe:
    """One example: the run (pair, proposer, prompt and settings) and the words the app shows for it."""

    name: str
    title: str
    description: str
    spec: RunSpec


def _spec(pair: str, proposer: str, prompt: str, chat: bool, k: int, temperature: float, max_new_tokens: int,
          seed: int = 0) -> RunSpec:
    return RunSpec(pair=pair, proposer=proposer, prompt=prompt, chat=chat, k=k, temperature=temperature,
                   max_new_tokens=max_new_tokens, seed=seed)


RECIPES = (
    Recipe(
        "smollm-ngram-t07", "Copying text: n-gram drafts (SmolLM2, T = 0.7)",
        "SmolLM2-135M copies a paragraph. The n-gram proposer drafts by looking up what followed the last few tokens "
        "earlier in the text: no draft model at all. Because the output repeats the prompt, long runs of drafts "
        "are accepted, often with a bonus token after them; where the model words it differently, a draft is "
        "rejected and replaced by a recovered token.",
        _spec("default", "ngram", REWRITE_PROMPT, True, 4, 0.7, 64, seed=0),
    ),
    Recipe(
        "smollm-ngram-greedy", "Copying text, greedy: n-gram drafts (SmolLM2, T = 0)",
        "The same copying task at temperature 0. With greedy decoding a draft is accepted exactly when it is the "
        "target's top token, so every decision is a clean yes or no (p is 1 or 0).",
        _spec("default", "ngram", REWRITE_PROMPT, True, 4, 0.0, 64),
    ),
    Recipe(
        "smollm-draft-t07", "A separate draft model, sampling (SmolLM2, T = 0.7)",
        "The guided path's lesson 4: SmolLM2's 4-layer draft (assets/models/smollm2-draft) samples K = 2 tokens "
        "per step at T = 0.7, so each guess has a real probability q below 1 and the target keeps it with "
        "probability min(1, p/q). Rejections with a recovered token come early, and a bonus token follows every "
        "step whose two drafts were both kept.",
        _spec("default", "draft", "Explain owls using an analogy.", True, 2, 0.7, 40),
    ),
    Recipe(
        "smollm-layerskip-t07", "An untrained self-draft: layer skip (SmolLM2, T = 0.7)",
        "The draft is SmolLM2's own first 7 of 30 layers with its output head. It was never trained to exit "
        "early, so its guesses rarely match the full model: most drafts are rejected and almost every step emits "
        "one token. Speculation only pays when the draft agrees with the target.",
        _spec("default", "layerskip", "Why is the sky blue? Answer in two sentences.", True, 4, 0.7, 48),
    ),
    Recipe(
        "smollm-eagle-greedy", "A trained feature drafter: EAGLE-3 (SmolLM2, T = 0)",
        "The EAGLE-3 drafter specviz trained for SmolLM2 (assets/models/smollm2-eagle): one small layer that reads "
        "three of the target's layers fused into one state and guesses the next token with its own head. On this "
        "held-out prompt it emits about 1.9 tokens per target forward. In float32, like this trace, over 8 held-out "
        "prompts at K = 4 it averages {eagle_tokens}, about {eagle_speedup} times as fast as model.generate, with "
        "c = {eagle_c}: assets/benchmarks/default-cpu-f32-packed, measured on {f32_packed_machine}.",
        _spec("default", "eagle", SPIDERS_PROMPT, True, 4, 0.0, 48),
    ),
    Recipe(
        "smollm-medusa-greedy", "Medusa heads (SmolLM2, T = 0)",
        "The Medusa heads specviz trained for SmolLM2 (assets/models/smollm2-medusa): each head reads the target's "
        "last hidden state and guesses one position further ahead, head 2 without knowing head 1's guess, so few "
        "steps keep more than one draft. On the EAGLE example's held-out prompt they emit about "
        "1.5 tokens per target forward against 1.9 for the EAGLE drafter; proposing takes no drafter pass: it "
        "runs the blocks of heads 1 to K on the last hidden state the target's own forward computed, then the LM "
        "head once over all K (c = {medusa_c} in float32 in "
        "assets/benchmarks/default-cpu-f32-medusa, measured on {medusa_machine} and timed by {medusa_clock}; c is "
        "the time of one head's block, its product with the LM head's rows for the heads' draft vocabulary and "
        "the greedy token pick, over one target forward).",
        _spec("default", "medusa", SPIDERS_PROMPT, True, 4, 0.0, 48),
    ),
    Recipe(
        "smollm-draft-greedy", "A separate draft model (SmolLM2, T = 0)",
        "The classic form: a separate small model drafts. Here it is SmolLM2's first 3 layers plus one trained "
        "adapter layer (assets/models/smollm2-draft), a standalone model that loads with from_pretrained. On the "
        "same prompt it emits about as many tokens per target forward as the EAGLE drafter (2.0 against 1.9), "
        "but each draft costs far more: 4 layers and the full LM head, c = {draft_c} in float32 in "
        "assets/benchmarks/default-cpu-drafts, measured on {drafts_machine}. So in that run, with PyTorch's stock "
        "kernels, it was slower than specviz's target-only decoding at every fixed K it tried ({draft_low} to "
        "{draft_high} times its speed at T = 0): the race shows where the time goes.",
        _spec("default", "draft", SPIDERS_PROMPT, True, 4, 0.0, 48),
    ),
    Recipe(
        "toy-draft", "A toy pair with a draft model (T = 1)",
        "Two tiny random-weight models over 34 tokens (32 characters and two special tokens); the draft is the "
        "target with noise added to its weights, so the two usually agree (accepted / drafted about 0.7). Every "
        "kind of token appears: accepted drafts, rejections with a recovered token, and bonus tokens after a fully "
        "accepted step.",
        _spec("toy", "draft", TOY_PROMPT, False, 4, 1.0, 64),
    ),
)


def record(recipe: Recipe, pairs: dict, clock: str = "cpu") -> tuple[Trace, Trace]:
    """The speculative trace and the target-only baseline for one recipe, with the recipe in `meta` (and which
    clock timed it: "cpu", one thread's process time, or "wall")."""
    settings = recipe.spec
    if settings.pair not in pairs:
        # float32: greedy examples have matched target-only decoding token for token (an observation; bfloat16
        # visibly only up to numerics)
        pairs[settings.pair] = load_pair(settings.pair, device="cpu", dtype="float32")
    pair = pairs[settings.pair]
    proposer = proposer_for(settings, pair)
    timer = time.process_time if clock == "cpu" else default_clock
    with torch_threads(1 if clock == "cpu" else None):
        # untimed warm-up: first calls pay one-time costs (allocations, kernel choice) that would distort the race
        warm = replace(settings, max_new_tokens=4)
        run(warm, pair=pair, proposer=proposer, clock=timer)
        run_target_only(warm, pair=pair, clock=timer)
        spec = run(settings, pair=pair, proposer=proposer, clock=timer)
        base = run_target_only(settings, pair=pair, clock=timer)
        machine = machine_record(pair)  # inside: torch_threads is the recording's
    meta = dict(example=recipe.name, title=recipe.title, description=recipe.description,
                recorded=time.strftime("%Y-%m-%d"), clock=clock, machine=machine)
    spec.meta.update(meta)
    base.meta.update(meta, title=f"{recipe.title}: target only")
    return spec, base


MACHINE_FIELDS = ("cpu", "cpu_flags", "cores", "gpu", "torch_threads", "device", "dtype", "kernels", "torch", "date")


def machine_record(pair) -> dict:
    """Where a recording ran, as the bench records it (`machine_info` plus `pair_placement`), trimmed to what a
    reader is told (`specviz.labs.bench.quoted.machine_text`) and what explains the times."""
    full = {**machine_info(), **pair_placement(pair)}
    return {key: full[key] for key in MACHINE_FIELDS if key in full}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.make_traces", description=__doc__.split("\n")[0],
                                     formatter_class=DefaultsHelpFormatter)
    parser.add_argument("names", nargs="*", help="recipes to record (default: all)")
    parser.add_argument("--clock", choices=CLOCKS, default="cpu",  # the clocks a trace may record (read 54)
                        help="time the steps by one thread's CPU time (cpu) or by the wall clock (wall)")
    args = parser.parse_args(argv)
    known = {r.name: r for r in RECIPES}
    unknown = [n for n in args.names if n not in known]
    if unknown:
        print(f"Unknown example '{unknown[0]}': choose from {', '.join(known)}.", file=sys.stderr)
        return 2
    TRACES_DIR.mkdir(parents=True, exist_ok=True)
    pairs: dict = {}
    for recipe in [known[n] for n in args.names] or RECIPES:
        start = time.perf_counter()
        spec, base = record(recipe, pairs, args.clock)
        (TRACES_DIR / f"{recipe.name}.json").write_text(spec.to_json() + "\n", encoding="utf-8")
        (TRACES_DIR / f"{recipe.name}.baseline.json").write_text(base.to_json() + "\n", encoding="utf-8")
        print(f"{recipe.name}: {spec.num_tokens} tokens in {spec.num_steps} steps (baseline {base.num_steps}), "
              f"accepted / drafted {spec.acceptance_rate:.2f}, recorded in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
