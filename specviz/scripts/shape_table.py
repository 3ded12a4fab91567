"""The pair's per-shape table: tokens per target forward of many draft shapes, greedy and at T = 0.7.

    python -m specviz.scripts.shape_table --pair default --out assets/benchmarks/shapes/default.json

Tokens per target forward (emitted tokens over verification forwards, pooled over the held-out prompts) and the mean
tokens fed to a verification forward (`mean_rows`: a tree's copied branch is often shorter than its budget) are counts:
the same on any machine with the same dtype and kernels and under any load (another dtype can change which drafts are
kept, so the counts move a little). `specviz.choose_shape` divides them by this machine's measured costs (`python -m
specviz calibrate`) to predict each shape's speedup here and pick the best.
The grid (`GRID`): chains of K = 1-6, and trees of 6-32 nodes, depth 3-5, width 2 or 4, with and without a lookup
branch. Run one process per temperature (`--temperatures 0`, `--temperatures 0.7`, each `--threads 1`) and join them
with `--merge`: the committed table's two processes ran at once for 51 minutes in float32 with the defaults on the
project's 2-core AMD EPYC (12:01-12:52 UTC, the `note` in assets/benchmarks/shapes/default.json).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.engine.draft_shape import DraftShape
from specviz.engine.limits import (MAX_NEW_TOKENS_CAP, MAX_NEW_TOKENS_RANGE, TEMPERATURE_RANGE, dtype_arg, number_arg,
                                   threads_arg, toy_stand_in_refusal, whole_arg, writable_file_arg)
from specviz.labs.bench.config import held_out_arg
from specviz.labs.bench.summary import count_text

CHAINS = [DraftShape(k) for k in range(1, 7)]
TREES = ([DraftShape(k, n, 4, lookup) for k, nodes in ((3, (6, 8, 12, 16)), (4, (6, 8, 12, 16, 24, 32)),
                                                          (5, (8, 12, 16, 24))) for n in nodes for lookup in (0, 8)]
         + [DraftShape(4, 8, 4, 4), DraftShape(4, 16, 4, 4)]
         + [DraftShape(3, 6, 2), DraftShape(4, 8, 2), DraftShape(4, 16, 2)])
GRID = CHAINS + TREES


def rows_fed(step) -> int:
    """Tokens one step's verification forward read: the root, every tree node and every copied token, or the last
    token and the chain's drafts."""
    return (len(step.tree.nodes) if step.tree is not None else len(step.decisions)) + 1


def measure_row(pair, proposer: str, shape: DraftShape, prompts: list[str], max_new_tokens: int,
                temperature: float) -> dict:
    """One shape over the prompts: tokens per target forward, and the mean tokens its verify forwards read."""
    from dataclasses import replace

    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    spec = RunSpec(pair=pair.name, proposer=proposer, max_new_tokens=max_new_tokens, temperature=temperature,
                   **shape.settings())
    traces = [run(replace(spec, prompt=text), pair=pair) for text in prompts]
    steps = [step for trace in traces for step in trace.steps]
    return {**shape.settings(), "label": shape.label(), "temperature": temperature,
            "tokens_per_forward": round(sum(t.num_tokens for t in traces) / len(steps), 4),
            "mean_rows": round(sum(rows_fed(step) for step in steps) / len(steps), 3)}


def merge(tables: list[dict]) -> dict:
    """Several tables of the same pair as one: later rows replace earlier rows of the same shape and temperature."""
    out = dict(tables[0])
    rows = {}
    for table in tables:
        if table.get("pair") != out.get("pair"):
            raise ValueError(f"cannot merge tables of pairs {out.get('pair')!r} and {table.get('pair')!r}")
        for row in table["rows"]:
            rows[(DraftShape.of(row), row["temperature"])] = row
    out["rows"] = sorted(rows.values(), key=lambda r: (r["temperature"], r["tree_nodes"], r["k"], r["tree_width"],
                                                       r["tree_lookup"]))
    out["commands"] = [c for t in tables for c in t.get("commands", [])]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.shape_table", description=__doc__.split("\n")[0],
                                     formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--pair", default="default", help="a catalog name or TARGET[,DRAFT]: local folders or Hub ids")
    parser.add_argument("--proposer", default=None, help="default: the pair's own")
    parser.add_argument("--dtype", type=dtype_arg, default="float32",
                        help="float32, float16 or bfloat16 (default: float32; another dtype can move the counts)")
    parser.add_argument("--temperatures", type=number_arg(*TEMPERATURE_RANGE), nargs="+", default=[0.0, 0.7],
                        help="the temperatures each shape runs at; 0 = greedy")
    parser.add_argument("--prompts", type=held_out_arg, default=8, help="the first N prompts of the held-out suite")
    parser.add_argument("--max-new-tokens", type=whole_arg(*MAX_NEW_TOKENS_RANGE), default=128,
                        help=f"the most new tokens per prompt ({MAX_NEW_TOKENS_CAP})")
    parser.add_argument("--threads", type=threads_arg, default=None,
                        help="torch threads (default: torch's own choice on this machine)")
    parser.add_argument("--out", required=True, type=writable_file_arg,
                        help="the JSON file to write (checked before the runs: its folder must exist)")
    parser.add_argument("--merge", nargs="+", default=None, help="join these tables into --out; loads no model")
    args = parser.parse_args(argv)
    if args.merge:
        try:
            table = merge([json.loads(Path(p).read_text(encoding="utf-8")) for p in args.merge])
            Path(args.out).write_text(json.dumps(table, indent=1) + "\n")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:  # a missing or damaged table
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
            where = getattr(exc, "filename", None) or " ".join(args.merge)
            print(f"shape_table: cannot merge ({type(exc).__name__}: {reason}; {where}).", file=sys.stderr)
            return 2
        print(f"{len(table['rows'])} rows written to {args.out}")
        return 0
    refusal = toy_stand_in_refusal(args.pair, args.proposer)
    if refusal:  # the toy pair's EAGLE and Medusa are untrained stand-ins: their counts would pass for the proposer's
        parser.error(refusal)
    import torch

    from specviz.labs.bench.config import load_suites
    from specviz.labs.bench.timing import machine_info, pair_placement
    from specviz.models.machine import dtype_name
    from specviz.scripts import recorded_command
    from specviz.models.pairs import load_pair

    if args.threads:
        torch.set_num_threads(args.threads)
    pair = load_pair(args.pair, dtype=args.dtype)
    proposer = args.proposer or pair.default_proposer
    machine = {**machine_info(), **pair_placement(pair)}  # the counts hold for this dtype and these kernels
    prompts = [p.text for p in load_suites(["held-out"])[0].prompts if p.text][: args.prompts]
    rows = []
    for temperature in args.temperatures:
        print(f"T = {temperature:g}, {len(GRID)} shapes, {count_text(len(prompts), 'prompt')}, "
              f"up to {count_text(args.max_new_tokens, 'new token')} each", flush=True)
        for shape in GRID:
            rows.append(measure_row(pair, proposer, shape, prompts, args.max_new_tokens, temperature))
            print(f"  {shape.shown():<32} {rows[-1]['tokens_per_forward']:.2f} tokens per target forward, "
                  f"{rows[-1]['mean_rows']:.1f} tokens fed", flush=True)
    command = recorded_command("python -m specviz.scripts.shape_table",
                               list(argv) if argv is not None else sys.argv[1:],
                               {"--pair": args.pair, "--proposer": proposer, "--dtype": dtype_name(pair.dtype)})
    table = {"pair": args.pair, "proposer": proposer, "dtype": dtype_name(pair.dtype), "prompts": len(prompts),
             "suite": "held-out", "max_new_tokens": args.max_new_tokens, "commands": [command],
             "machine": machine, "rows": rows}
    Path(args.out).write_text(json.dumps(table, indent=1) + "\n")
    print(f"{len(rows)} rows written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
