"""Model cards for the trained drafts (assets/models/*/README.md), written from what was recorded: the data
step's log, the training log (the learning curve), specviz.json, and the benchmark of the held-out prompts.

    python -m specviz.distill cards
"""

from __future__ import annotations

import json
import math
import platform
from pathlib import Path

from specviz.core.paths import BENCHMARKS_DIR
from specviz.distill.data import training_folders
from specviz.distill.trainer import DEFAULT_STEPS
from specviz.models.drafts import DRAFT_NAME, EAGLE_NAME, read_meta

BENCH = BENCHMARKS_DIR / "default-cpu-drafts" / "results.json"
# each draft's card reads the benchmark of the weights it describes: the EAGLE drafter's is issue 13's targets run
# (bfloat16, chain and tree); the separate draft's the float32 run of both drafts
BENCHES = {"eagle": BENCHMARKS_DIR / "default-cpu-bf16-tree" / "results.json", "draft": BENCH}
TARGETS = {"eagle": {"first_position": 0.6, "speedup_greedy": 1.4, "mat": 2.3, "speedup_t07": 1.2},
           "draft": {"agreement": 0.4}}


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()] if Path(path).exists() else []


def data_summary(work: Path, records: int | None = None) -> dict:
    """What the data step made; with `records` (a draft's `train_records`), only the leading passes that add up to
    them: a draft trained before later passes existed is described by the data it saw."""
    passes = [rows for rows in (read_jsonl(folder / "log.jsonl") for folder in training_folders(work)) if rows]
    if records is not None:
        seen = [sum(r["prompts"] for rows in passes[:n + 1] for r in rows) for n in range(len(passes))]
        passes = passes[: next((n + 1 for n, total in enumerate(seen) if total >= records), len(passes))]
    train, held = [r for rows in passes for r in rows], read_jsonl(work / "held-out" / "log.jsonl")
    return {"prompts": sum(r["prompts"] for r in passes[0]) if passes else 0, "passes": len(passes),
            "new_tokens": sum(r["new_tokens"] for r in train),
            "minutes": sum(r["seconds"] for r in train + held) / 60, "held_out_prompts": sum(r["prompts"] for r in held),
            "sampled_shards": sum(r["sampled"] for r in train), "shards": len(train)}


def read_bench(bench: Path) -> dict:
    """A benchmark's results.json ({} when it was not run)."""
    return json.loads(bench.read_text()) if bench.exists() else {}


def bench_rows(proposer_prefix: str, bench: Path = BENCH) -> list[dict]:
    return [r for r in read_bench(bench).get("summary", []) if r["proposer"].startswith(proposer_prefix) and r["policy"] == "constant"
            and r["suite"] == "all"]


def bench_dtype(bench: Path) -> str:
    """The dtype the benchmark ran in (older runs did not record it: float32)."""
    result = read_bench(bench)
    return result.get("machine", {}).get("dtype") or result.get("config", {}).get("dtype") or "float32"


def bench_command(bench: Path = BENCH) -> str:
    return read_bench(bench).get("command", "(not run yet)")


def stage_logs(work: Path, runs: list[str]) -> list[dict]:
    """The evaluations of each training stage in order, with cumulative steps and minutes (a resumed run
    restarts its clock; that is undone here) and the stage's number."""
    out, step0, minutes0 = [], 0, 0.0
    for stage, run in enumerate(runs, start=1):
        offset, last = 0.0, 0.0
        rows = read_jsonl(work / run / "log.jsonl")
        for r in rows:
            if r["minutes"] < last:
                offset += last
            last = r["minutes"]
            out.append({**r, "stage": stage, "step": step0 + r["step"], "minutes": round(minutes0 + offset + r["minutes"], 1)})
        if rows:
            step0, minutes0 = out[-1]["step"], out[-1]["minutes"]
    return out


def train_command(kind: str, log: list[dict], total: int) -> str:
    """The training command with the flags this run needed (steps other than the defaults)."""
    steps = stage_steps(log, total) if kind == "eagle" else {"stage1": total, "stage2": 0}
    flags = f" --steps {steps['stage1']}" if steps["stage1"] != DEFAULT_STEPS[kind] else ""
    flags += f" --ttt-steps {steps['stage2']}" if kind == "eagle" and steps["stage2"] != DEFAULT_STEPS["eagle-ttt"] else ""
    return f"python -m specviz.distill {kind}{flags}"


def stage_steps(log: list[dict], total: int) -> dict:
    """{"stage1": steps of the first stage, "stage2": the rest}, read off the learning curve's stage numbers."""
    first = max((r["step"] for r in log if r["stage"] == 1), default=total)
    return {"stage1": first, "stage2": total - first}


def learning_curve(log: list[dict], metrics: list[str]) -> str:
    present = [m for m in metrics if any(m in r for r in log)]
    rows = ["| stage | step | epoch | minutes | " + " | ".join(present) + " |", "|---:" * (4 + len(present)) + "|"]
    rows += [f"| {r['stage']} | {r['step']} | {r['epoch']} | {r['minutes']} | "
             + " | ".join(f"{r[m]:.3f}" if m in r else "–" for m in present) + " |" for r in log]
    return "\n".join(rows)


def extrapolate(log: list[dict], metric: str) -> str:
    """A rough log-linear fit of the metric against steps over the second half of training."""
    late = [r for r in log if r["step"] >= log[-1]["step"] / 2 and r[metric] > 0]
    if len(late) < 2:
        return "Too few evaluations to extrapolate."
    xs, ys = [math.log(r["step"]) for r in late], [r[metric] for r in late]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / max(sum((x - mx) ** 2 for x in xs), 1e-9)
    gain = slope * math.log(2)
    return (f"Over the second half of training the held-out {metric} grew by about {gain:+.3f} per doubling of "
            f"steps (a log-linear fit of {len(late)} evaluations): twice the compute on the same data would give "
            f"roughly {ys[-1] + gain:.2f}, four times {ys[-1] + 2 * gain:.2f}, if the trend held; more data "
            "(the data step is the expensive part on a CPU) keeps a longer run from memorising.")


def draft_shape(row: dict) -> str:
    """'chain' or 'tree 16 × 4' (nodes × width) for a bench summary row."""
    return f"tree {row['tree_nodes']} × {row['tree_width']}" if row.get("tree_nodes") else "chain"


def bench_table(rows: list[dict]) -> str:
    if not rows:
        return "Not benchmarked yet: run the command under *Command*."
    head = ["| T | draft | K | α | c | accepted length (bonus incl.) | per-position acceptance | speedup vs target-only | "
            "vs model.generate | predicted (measured verify cost) |", "|---:|---|---:|---:|---:|---:|---|---:|---:|---:|"]
    body = [f"| {r['temperature']:g} | {draft_shape(r)} | {r['k']} | {r['alpha']:.3f} | {r['c']:.3f} | {r['mat_with_bonus']:.2f} | "
            f"{' / '.join(f'{a:.2f}' for a in r['per_position'])} | {_fmt(r.get('speedup_vs_ar'))} | "
            f"{_fmt(r.get('speedup_vs_hf_generate'))} | {_fmt(r.get('predicted_speedup_measured_verify'))} |"
            for r in sorted(rows, key=lambda r: (r["temperature"], r.get("tree_nodes") or 0, r["k"]))]
    return "\n".join(head + body)


def _fmt(x) -> str:
    return "–" if x is None else f"{x:.2f}×"


def needed_length(bench: Path, row: dict, speedup: float) -> tuple[float, float] | None:
    """(tokens per step needed for `speedup`, one step's cost in target forwards) from the measured costs."""
    result = read_bench(bench)
    if not result:
        return None
    verify = {v["n_tokens"]: v["ratio"] for v in result["costs"]["verify"]}
    cost = row["k"] * row["c"] + verify.get(row["k"] + 1, 1.0)
    return speedup * cost, cost


def chain_alpha(length: float, k: int) -> float:
    """The constant per-position acceptance a for which (1 - a^(k+1)) / (1 - a) = length (bisection)."""
    lo, hi = 0.0, 0.999
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if (1 - mid ** (k + 1)) / (1 - mid) < length else (lo, mid)
    return lo


def best(rows: list[dict], temperature: float, key: str = "speedup_vs_hf_generate") -> dict | None:
    rows = [r for r in rows if r["temperature"] == temperature and r.get(key)]
    return max(rows, key=lambda r: r[key]) if rows else None


def verdict(ok: bool | None) -> str:
    return "not measured" if ok is None else "met" if ok else "missed"


def setting(row: dict) -> str:
    """'K = 4' for a chain, 'K = 4, tree 16 × 4' for a tree."""
    return f"K = {row['k']}" + (f", {draft_shape(row)}" if row.get("tree_nodes") else "")


def target_lines(kind: str, meta: dict, rows: list[dict], bench: Path = BENCH) -> list[str]:
    t = TARGETS[kind]
    if kind == "eagle":
        g, s = best(rows, 0.0), best(rows, 0.7, "speedup_vs_ar")
        first = g["per_position"][0] if g else None
        lines = [
            f"- First-position acceptance ≥ {t['first_position']}: " + (
                f"{first:.2f} at {setting(g)} ({verdict(first >= t['first_position'])}"
                + (f", by {t['first_position'] - first:.2f})" if first < t["first_position"] else ")") if g else "not measured"),
            f"- Speedup ≥ {t['speedup_greedy']}× over `model.generate` (greedy): " + (
                f"{g['speedup_vs_hf_generate']:.2f}× at {setting(g)} ({verdict(g['speedup_vs_hf_generate'] >= t['speedup_greedy'])})"
                if g else "not measured"),
            f"- Mean accepted length ≥ {t['mat']} (greedy): " + (
                f"{g['mat_with_bonus']:.2f} ({verdict(g['mat_with_bonus'] >= t['mat'])})" if g else "not measured"),
            f"- Speedup ≥ {t['speedup_t07']}× over target-only sampling at T = 0.7: " + (
                f"{s['speedup_vs_ar']:.2f}× at {setting(s)} ({verdict(s['speedup_vs_ar'] >= t['speedup_t07'])})"
                if s else "not measured"),
        ]
        g = best([r for r in rows if not r.get("tree_nodes")], 0.0)  # the chain arithmetic below
        needed = needed_length(bench, g, t["speedup_greedy"]) if g else None
        if needed:
            lines.append(f"- What it would take (chain): on this CPU a step at K = {g['k']} costs {needed[1]:.2f} target "
                         f"forwards ({g['k']} drafts at c = {g['c']:.2f} plus verifying {g['k'] + 1} tokens), so "
                         f"{t['speedup_greedy']}× needs about {needed[0]:.1f} tokens per step instead of "
                         f"{g['mat_with_bonus']:.2f}: about {chain_alpha(needed[0], g['k']):.2f} acceptance at every "
                         "draft position (this drafter keeps about half of its first drafts and fewer deeper ones). "
                         "Where verifying K+1 tokens costs one forward (a GPU at batch size 1), the same tokens per "
                         f"step and c would give {g['mat_with_bonus'] / (1 + g['k'] * g['c']):.2f}× by the formula.")
        return lines
    agreement = meta["training"].get("agreement")
    g = best(rows, 0.0)
    return [f"- Held-out greedy agreement with the target ≥ {t['agreement']}: {agreement:.3f} "
            f"({verdict(agreement >= t['agreement'])})",
            "- Speed, reported honestly: " + (f"{g['speedup_vs_hf_generate']:.2f}× over `model.generate` at best "
                                              f"(K = {g['k']}, greedy); c = {g['c']:.2f}." if g else "not measured")]


def replaced(meta: dict, metrics: list[str]) -> str:
    """The drafter these weights replaced, side by side with them (same held-out answers), when training recorded it."""
    old = meta.get("replaces")
    if not old:
        return ""
    rows = ["| | training records | steps | " + " | ".join(metrics) + " |", "|---|---:|---:|" + "---:|" * len(metrics)]
    for name, m in (("replaced drafter", old), ("this drafter", meta)):
        rows.append(f"| {name} | {m.get('train_records', '?')} | {m.get('steps', '?')} | "
                    + " | ".join(f"{m.get('training', {}).get(k, float('nan')):.3f}" for k in metrics) + " |")
    return "## Compared with the drafter it replaced\n\nHeld-out accuracies at the end of training, on the same held-out answers:\n\n" \
        + "\n".join(rows) + "\n\n"


def write_cards(work: Path, assets: Path, benches: dict[str, Path] | None = None) -> list[Path]:
    benches = benches or BENCHES
    written = []
    for kind, name, runs, metrics, prefix in (("eagle", EAGLE_NAME, ["eagle", "eagle-ttt"], ["acc1", "acc12", "acc123"], "eagle"),
                                              ("draft", DRAFT_NAME, ["draft"], ["agreement"], "draft")):
        folder = assets / name
        log = stage_logs(work, runs)
        if not log and (folder / "README.md").exists():
            continue  # not trained from this work folder: its card (and learning curve) stays as it is
        meta = read_meta(folder)
        data = data_summary(work, meta.get("train_records"))
        metric = metrics[0]
        bench = benches[kind]
        rows = bench_rows(prefix, bench)
        card = CARD.format(
            title=TITLES[kind], what=WHAT[kind], size_mb=sum(f.stat().st_size for f in folder.glob("*.safetensors")) / 2**20,
            prompts=data["prompts"], new_tokens=data["new_tokens"], data_minutes=data["minutes"],
            held=data["held_out_prompts"], shards=data["shards"], sampled=data["sampled_shards"],
            passes=PASSES.get(data["passes"], PASSES[3]).format(n=data["passes"]) if data["passes"] else "",
            step_command=train_command(kind, log, meta["steps"]),
            data_command="python -m specviz.distill data" + (f" --passes {data['passes']}" if data["passes"] > 1 else ""), steps=meta["steps"], stages=STAGES[kind].format(**stage_steps(log, meta["steps"])),
            train_minutes=log[-1]["minutes"] if log else 0, machine=f"{platform.processor() or platform.machine()}, "
            "2 CPU cores, no GPU, torch 2.13.0+cpu, transformers 5.24.0",
            curve=learning_curve(log, metrics) if log else "(no log)", metric_text=METRIC_TEXT[kind],
            extrapolation=extrapolate(log, metric) if log else "", bench_command=bench_command(bench),
            bench=bench_table(rows), targets="\n".join(target_lines(kind, meta, rows, bench)), extra=EXTRA[kind].format(**meta),
            replaced=replaced(meta, metrics), dtype=bench_dtype(bench),
        )
        (folder / "README.md").write_text(card)
        written.append(folder / "README.md")
    return written


TITLES = {"eagle": "smollm2-eagle: an EAGLE-style feature drafter for SmolLM2-135M-Instruct",
          "draft": "smollm2-draft: a separate draft model for SmolLM2-135M-Instruct"}
WHAT = {
    "eagle": "One Llama decoder layer plus an input projection (fc: 2 × 576 → 576), about 4.2 M parameters, that "
             "reads the target's last hidden state and the next token's embedding and predicts the target's next "
             "hidden state (Li et al., 2024, *EAGLE*). Tokens are read off the target's own LM head, restricted to "
             "a frequency-ranked draft vocabulary (FR-Spec). The engine hands it the target's features after every "
             "verify pass; it only proposes, so the output distribution stays exactly the target's. "
             "Use: `python -m specviz generate --proposer eagle` (the default for `--pair default`).",
    "draft": "A standalone `LlamaForCausalLM` on the target's tokenizer: the target's embeddings and first layers "
             "(frozen copies), one trained adapter decoder layer and a trained final norm, and the target's tied LM "
             "head, as Kangaroo (Liu et al., 2024) builds its draft from a shallow sub-network plus an adapter. "
             "Only the trained tensors ship (`trained.safetensors`); on first use `specviz.models.drafts.draft_model` "
             "writes the complete model into the cache folder and loads it with `from_pretrained`. "
             "Use: `python -m specviz generate --proposer draft`.",
}
STAGES = {
    "eagle": "Stage 1 ({stage1:,} steps, peak learning rate 1e-3) trains two drafting depths, the second reading the "
             "drafter's own predicted features at every row; stage 2 ({stage2:,} steps from there, 5e-4) trains three depths "
             "that attend exactly as drafting does: true features up to where the draft began, then the drafter's "
             "own chain (EAGLE-3's training-time test). Losses: smooth L1 to the target's next feature plus 0.5 × "
             "the cross-entropy to its next-token distribution (draft vocabulary, 512 random positions per batch); "
             "uniform noise ±0.1 on the input features.",
    "draft": "Losses: smooth L1 between the draft's normed output and the target's feature, plus the cross-entropy "
             "to the target's next-token distribution (draft vocabulary, 512 random positions per batch).",
}
METRIC_TEXT = {
    "eagle": "`acc1`: on the held-out answers (float32 target, greedy), the share of response positions where the "
             "drafter's first guess from the target's true features is the target's token; `acc12` (`acc123`): the "
             "share where a draft's first two (three) guesses are all right. Stage 1's `acc12` lets the second guess "
             "see predicted features everywhere, stage 2's attends as drafting does, so they differ in kind.",
    "draft": "`agreement`: on the held-out answers (float32 target, greedy), the share of response positions where "
             "the draft's most likely next token (full vocabulary) is the target's token.",
}
EXTRA = {
    "eagle": "Draft vocabulary: {draft_vocab_size} tokens, covering {vocab_coverage:.1%} of the held-out answers' "
             "tokens (the drafter can never propose the others).",
    "draft": "Layers: the target's first {shallow_layers} (frozen) + 1 trained adapter layer.",
}

PASSES = {1: "", 2: "answered twice (`--passes 2`: the second pass samples the batches the first answered greedily "
                    "and answers the others greedily); ",
          3: "answered {n} times (`--passes {n}`: the second pass swaps greedy and sampled batches, later passes "
             "sample every batch); "}

CARD = """# {title}

{what}

Trained weights: {size_mb:.1f} MB (float16). {extra}

## Data

- {prompts} training prompts made from templates × topics (`specviz/distill/prompts.py`: explain, create, list,
  code, rewrite, math), answered by the target itself in bfloat16 on CPU, batches of 64, up to 128 new tokens;
  {passes}{sampled} of {shards} batches sampled at temperature 0.7, the others greedy. {new_tokens} response tokens in all.
- The target's last hidden state at every position (prompt included) is recorded during generation; its
  next-token distribution is recomputed from it (softmax of the LM head).
- {held} held-out prompts whose topics never enter training (`assets/prompts/held-out.yaml`), answered greedily
  by the float32 target, exactly as the benchmark meets it.
- The data step took {data_minutes:.0f} minutes on this machine.

## Command

```
{data_command}     # the data step, shared by both drafts
{step_command}
python -m specviz.distill cards    # this card
```

`python -m specviz.distill all` runs every step. Seeded (`--seed 0`) and resumable.
Training: {steps} steps of about 2,048 padded positions, AdamW, warm-up then cosine decay, {train_minutes:.0f}
minutes on {machine}. {stages}

## Learning curve (held-out)

{metric_text}

{curve}

{extrapolation}

{replaced}## Held-out acceptance and speed

Benchmark on the first 8 of the 64 held-out prompts, 128 new tokens, {dtype} on both sides:

```
{bench_command}
```

{bench}

α is Leviathan et al.'s mean min(1, p/q) over the drafts the target tested; c is one drafting step's time over one
target forward; per-position entry i is the share of steps whose first i drafts were all kept; the prediction is the
speedup formula fed with the measured α, c and this CPU's measured verify cost.

## Targets

{targets}

## Licence

Apache-2.0, like SmolLM2-135M-Instruct (HuggingFaceTB), from which every weight and all training data derive.
"""
