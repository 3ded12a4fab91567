"""The Medusa heads' model card (assets/models/smollm2-medusa/README.md), written from what was recorded: the data
step's chunks, the training log, specviz.json, the EAGLE drafter's card numbers on the same held-out answers, and
the committed benchmark that runs both on the same prompts.

    python -m specviz.distill cards --work artifacts/distill-medusa
"""

from __future__ import annotations

from pathlib import Path

from specviz.core.i18n import fixed
from specviz.core.paths import BENCHMARKS_DIR
from specviz.distill.cards import NOT_RECORDED, bench_command, card_inputs, learning_curve, parameter_count, \
    read_bench, sampled_at, stage_table, token_limit, trained_on
from specviz.distill.trainer import DEFAULT_STEPS
from specviz.engine.draft_shape import DraftShape
from specviz.labs.bench.quoted import machine_text
from specviz.models.catalog import recommended_for
from specviz.models.drafts import EAGLE_NAME, MEDUSA_NAME, read_meta

MEDUSA_BENCH = BENCHMARKS_DIR / "default-cpu-f32-medusa" / "results.json"
CHAIN = ("acc1", "acc12", "acc123", "acc1234")


def write_medusa_card(work: Path, assets: Path, bench: Path = MEDUSA_BENCH) -> Path | None:
    """Write the card from `work` when it holds the heads' training log, else from the record beside the card
    (`cards.card_inputs`; with neither the card stays as it is); returns its path."""
    folder = Path(assets) / MEDUSA_NAME
    if not (folder / "specviz.json").exists():
        return None
    inputs = card_inputs(Path(work), ["medusa"], folder)  # the work folder's, else the record beside the card
    if inputs is None:
        return None
    data, log, work = inputs["data"], inputs["log"], inputs["work"]
    meta = read_meta(folder)
    heads = int(meta["heads"])
    final = meta["training"]
    eagle_folder = Path(assets) / EAGLE_NAME
    eagle_meta = read_meta(eagle_folder) if (eagle_folder / "specviz.json").exists() else {}
    steps = meta["steps"]
    command = (f"python -m specviz.distill data --stages seed --scale 0.2 --work {work}\n"
               f"python -m specviz.distill medusa --heads {heads} --work {work}"
               + (f" --steps {steps}" if steps != DEFAULT_STEPS["medusa"] else "")
               + f"\npython -m specviz.distill cards --work {work}")
    per_head = ["| head | guesses | top-1 | top-2 | top-3 | top-4 |", "|---:|---|---:|---:|---:|---:|"]
    per_head += [f"| {k} | token t+{k + 1} from the state after token t | "
                 + " | ".join(fixed(final.get(f'head{k}_top{n}', 0), 3) for n in (1, 2, 3, 4)) + " |"
                 for k in range(1, heads + 1)]
    against = ["| drafter | training positions | " + " | ".join(CHAIN) + " |", "|---|---:|" + "---:|" * len(CHAIN)]
    against.append(f"| Medusa heads (this card) | {meta.get('train_positions', 0):,} | "
                   + " | ".join(fixed(final.get(m, 0), 3) for m in CHAIN) + " |")
    if eagle_meta.get("training"):
        against.append(f"| EAGLE-3 drafter ({EAGLE_NAME}) | {eagle_meta.get('train_positions', 0):,} | "
                       + " | ".join(fixed(eagle_meta['training'].get(m, 0), 3) for m in CHAIN) + " |")
    card = CARD.format(
        heads=heads, recommended=recommended_for("default").shape.describe(), params=parameter_count(folder),
        vocab=f"{meta['draft_vocab_size']:,}",
        coverage=fixed(100 * meta.get("vocab_coverage", 0), 1), stage_table=stage_table(data),
        new_tokens=data["new_tokens"],
        held=data["held_out_prompts"], command=command, steps=steps, train_minutes=log[-1]["minutes"],
        # the run's own settings, never today's defaults (Read 44)
        batch=(f"at most {meta['batch_positions']:,} padded positions" if meta.get("batch_positions") is not None
               else f"padded positions (how many {NOT_RECORDED})"),
        lr=f"{meta['lr']:g}" if meta.get("lr") is not None else NOT_RECORDED,
        token_limit=token_limit(data), sampled_at=sampled_at(data),
        machine=trained_on(meta),
        curve=learning_curve(log, [f"head{k}_top1" for k in range(1, heads + 1)] + list(CHAIN)),
        per_head="\n".join(per_head), against="\n".join(against), bench=bench_section(bench))
    (folder / "README.md").write_text(card)
    return folder / "README.md"


def bench_section(bench: Path) -> str:
    """Acceptance by position and tokens per forward of both drafters from the committed run, or a line saying it
    was not run."""
    result = read_bench(bench)
    rows = [r for r in result.get("summary", []) if r["suite"] == "all" and r["policy"] == "constant"]
    if not rows:
        return "The benchmark that runs both drafters on the same prompts has not been run yet."
    machine = result.get("machine") or {}
    # read 49: the line named the CPU only; the machine as every page words it, and the clock the speeds were
    # timed by (its --clock and torch threads), stand with the figures
    lines = [f"`{bench_command(bench)}` ({machine.get('dtype', 'float32')}, {machine_text(machine) or '?'}; speeds "
             f"timed by {speed_clock(result)}):", "",
             "| proposer | shape | T | mean accepted length | acceptance by position | vs target-only | "
             "vs model.generate |", "|---|---|---:|---:|---|---:|---:|"]
    for r in sorted(rows, key=lambda r: (r["temperature"], r.get("tree_nodes") or 0, r["k"], r["proposer"])):
        shape = DraftShape.of(r).shown()  # the name scripts and tables print (×, not x)
        per = " / ".join(fixed(a) if isinstance(a, int | float) else "–" for a in r.get("per_position") or [])
        speeds = [r.get("speedup_vs_ar"), r.get("speedup_vs_hf_generate")]
        lines.append(f"| {r['proposer']} | {shape} | {r['temperature']:g} | {fixed(r['mat_with_bonus'])} | {per} | "
                     + " | ".join(f"{fixed(v)}×" if v is not None else "–" for v in speeds) + " |")
    lines += ["", "Acceptance by position, entry i: of the steps that drafted at least i tokens (a tree: reached "
              "depth i), the share whose first i drafts were all kept. Counts, the same on any machine with this "
              "run's dtype and kernels (another dtype can change which drafts are kept); the speeds are "
              "ratios of the run's own times."]
    return "\n".join(lines)


def speed_clock(result: dict) -> str:
    """What the run's speeds were timed by, from its results.json: the process's CPU time (`--clock cpu`,
    `time.process_time`) or wall time, with the torch threads it ran (`machine.torch_threads`).

    >>> speed_clock({"config": {"clock": "cpu"}, "machine": {"torch_threads": 1}})
    "this process's CPU time (time.process_time) with 1 torch thread"
    >>> speed_clock({"config": {"clock": "wall"}, "machine": {"torch_threads": 2}})
    'wall time with 2 torch threads'
    """
    threads = (result.get("machine") or {}).get("torch_threads")
    count = ("1 torch thread" if threads == 1 else
             f"{threads if threads is not None else '?'} torch threads")
    if (result.get("config") or {}).get("clock") == "cpu":
        return f"this process's CPU time (time.process_time) with {count}"
    return f"wall time with {count}"


CARD = """# smollm2-medusa: Medusa heads for SmolLM2-135M-Instruct

{heads} heads after Cai et al. (2024, *Medusa-1*: the target frozen, only the heads trained), {params} trained
parameters: each head is one residual block, x + SiLU(W x + b), on the target's last hidden state (the input of its
LM head, 576 wide), read by the target's own LM head (the paper's heads each train an output layer of their own;
sharing the target's is specviz's change)
restricted to the EAGLE drafter's draft vocabulary of {vocab} tokens ({coverage}% of the held-out
answers' tokens). Head k guesses the k-th token after the one the target's own head predicts, from the same state;
no head sees the tokens drafted before its own. The target stays frozen. It only proposes: the output distribution
stays exactly the target's in exact arithmetic (`specviz.engine.numerics` for floating point). Use:
`python -m specviz generate --proposer medusa --prompt "..."` (with no shape flag, the default pair's recommended
shape, {recommended}; a tree's depth-d nodes come from head d; `--k K` alone drafts a chain of up to {heads}).

## Data

A smaller run of the EAGLE drafter's data step, not a slice of its data (its seed stage only, on fewer of the
template × topic prompts; the same pipeline, seeded, so its prompts are largely among the EAGLE drafter's, but
its answers were generated anew; no prompt is about a held-out topic, though
a few name one in passing, such as "the train was late"): the target answered
the seed stage's template × topic prompts itself in bfloat16, {token_limit}, half greedy and half sampled at
{sampled_at}, and its final-norm states were recorded at every position.

{stage_table}

- {new_tokens:,} response tokens (the comparison below gives both drafters' training positions, prompts included).
- {held} held-out prompts on topics no training prompt is about (`assets/prompts/held-out.yaml`), answered greedily
  by the float32 target: the numbers below.

## Command

```
{command}
```

Training: {steps} steps of {batch}, AdamW (peak learning rate {lr}, warm-up then
cosine decay), {train_minutes} minutes on {machine}. Head k's loss is the cross-entropy to the target's own
distribution over token t+1+k, k places after the one the target's own head predicts from the same state (that
distribution recomputed from the target's state after token t+k), over the draft vocabulary, on every response
position; head k weighs 0.8^(k-1).

## Learning curve (held-out)

`headK_top1`: the share of held-out response positions where head k's first guess is the target's token t+1+k, k
places after the one the target's own head predicts; `acc1` … `acc1234`: the share where heads 1 … 4's first
guesses, all read from one state, are all right (the chance a greedy chain keeps that many drafts).

{curve}

## Per head (held-out, final)

{per_head}

## Against the EAGLE drafter (the same held-out answers)

{against}

The EAGLE drafter reads its own guesses back, so its second guess knows its first, and even its first guess reads
the token the target chose, which Medusa's head 1 never sees; Medusa's heads all read one state. The gap has causes
this table does not separate: that difference, the EAGLE drafter's larger model (a decoder layer that attends over the
context and reads three of the target's layers, against one residual block per head on the last one) and its far
larger training data.

## Benchmark (held-out prompts, both drafters)

{bench}
"""
