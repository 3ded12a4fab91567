"""Issues 13 and 30's targets in one run: the default pair against `model.generate` on held-out prompts, both
sides in the same dtype, then a verdict per target.

    python -m specviz.scripts.targets_bench --out assets/benchmarks/default-cpu-bf16-tree

It runs `python -m specviz bench` with the pair's recommended draft (`recommended:` in assets/catalog.yaml) and the
chain of the same K next to it, greedy and at T = 0.7, 128 new tokens, on the held-out prompts (topics the drafts
never saw), `model.generate` as the baseline (`do_sample=True` at T = 0.7), the verify curve in float32 and bfloat16,
and writes results.json, .csv and .md into --out. It then prints each target with the measured number: at least
1.6× over `model.generate` greedy, 1.3× at T = 0.7, 2.8 tokens per target forward greedy (issue 30; issue 13 asked
2.6), greedy output identical to target-only decoding on every prompt, and the physical limit (a perfect free draft
of the same shape, from the measured verify curve) with the share of it reached.

About 12 minutes on a quiet 2-core CPU with the defaults (8 prompts, 2 repeats). Timings are only meaningful on a
quiet machine: run it when nothing else does.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from specviz.labs.bench.report import BenchResult
from specviz.models.catalog import recommended_for

TARGETS = {"greedy_speedup": 1.6, "sampled_speedup": 1.3, "tokens_per_forward": 2.8}


def bench_argv(args: argparse.Namespace) -> list[str]:
    """The `python -m specviz bench` flags of the run: the recommended shape and the chain of the same K."""
    best = recommended_for(args.pair)
    nodes = sorted({0, best.tree_nodes})
    argv = ["bench", "--pair", args.pair, "--k", str(best.k), "--tree-nodes", *map(str, nodes),
            "--tree-width", str(best.tree_width), "--tree-lookup", str(best.tree_lookup),
            "--temperatures", "0", "0.7", "--suites", "held-out",
            "--prompts-per-suite", str(args.prompts), "--max-new-tokens", str(args.max_new_tokens),
            "--repeats", str(args.repeats), "--warmup", "1", "--hf", "all", "--no-record-overhead", "--out", args.out]
    return argv + (["--dtype", args.dtype] if args.dtype else []) + (["--threads", str(args.threads)]
                                                                     if args.threads else [])


def shape_label(k: int, tree_nodes: int, tree_width: int, tree_lookup: int = 0) -> str:
    """"tree 16x4 depth 4" (+ "lookup 8" with a lookup branch) or "chain K=4": how the scripts' verdict lines name a
    draft shape."""
    if not tree_nodes:
        return f"chain K={k}"
    return f"tree {tree_nodes}x{tree_width} depth {k}" + (f" + lookup {tree_lookup}" if tree_lookup else "")


def verdicts(result: BenchResult) -> list[str]:
    """One line per target and per configuration: the measured number, the target, met or missed by how much."""
    prompts = len({c["prompt_id"] for c in result.cases})
    lines = [f"pair {result.config['pair']}, {result.dtype} on both sides, {prompts} held-out prompts x "
             f"{result.config['max_new_tokens']} new tokens"]
    for row in result.rows(policy="constant", trees=True):
        shape = shape_label(row["k"], row.get("tree_nodes") or 0, row.get("tree_width") or 0,
                            row.get("tree_lookup") or 0)
        if row["temperature"] == 0:
            lines.append(f"{shape}, greedy:")
            lines.append(_check("speedup vs model.generate", row["speedup_vs_hf_generate"],
                                TARGETS["greedy_speedup"], "x"))
            lines.append(_check("tokens per target forward", row["mat_with_bonus"], TARGETS["tokens_per_forward"]))
            lines.append(f"  greedy output identical to target-only: {row['identical_count']}")
            limit, share = row.get("physical_limit"), row.get("fraction_of_limit")
            if limit:
                lines.append(f"  physical limit {limit:.2f}x (perfect free draft, same shape); reached "
                             f"{share:.0%} of it (speedup vs target-only {row['speedup_vs_ar']:.2f}x)")
        else:
            lines.append(f"{shape}, T = {row['temperature']:g}:")
            lines.append(_check("speedup vs model.generate(do_sample=True)", row["speedup_vs_hf_generate"],
                                TARGETS["sampled_speedup"], "x"))
            lines.append(f"  tokens per target forward {row['mat_with_bonus']:.2f}")
    return lines


def _check(name: str, value: float | None, target: float, unit: str = "") -> str:
    if value is None:
        return f"  {name}: not measured (target {target:g}{unit})"
    verdict = "met" if value >= target else f"MISSED by {target - value:.2f}{unit} ({value / target - 1:+.0%})"
    return f"  {name} {value:.2f}{unit} (target >= {target:g}{unit}): {verdict}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.targets_bench", description=__doc__.split("\n")[0])
    parser.add_argument("--pair", default="default")
    parser.add_argument("--out", required=True, help="e.g. assets/benchmarks/default-cpu-bf16-tree")
    parser.add_argument("--prompts", type=int, default=8, help="held-out prompts (the first N of the suite)")
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=2, help="timed repeats per case (medians are reported)")
    parser.add_argument("--dtype", default=None, help="default: bfloat16 on a CPU with bf16 instructions")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    from specviz.cli import main as specviz_main

    code = specviz_main(bench_argv(args))
    if code:
        return code
    print("\n".join(verdicts(BenchResult.load(Path(args.out) / "results.json"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
