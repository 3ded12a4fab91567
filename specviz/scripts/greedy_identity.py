"""Greedy speculative output against target-only decoding, prompt by prompt: identical, or where they part and why.

    python -m specviz.scripts.greedy_identity --dtype bfloat16 --k 4 --tree-nodes 16 --tree-width 4 \
        --tree-lookup 8 --prompts 8 --max-new-tokens 128 \
        --out assets/benchmarks/default-cpu-bf16-tree/greedy-identity.json

(the committed file's own command; without the shape flags a run takes the shape calibrated for its machine)

For each held-out prompt it decodes greedily with the draft shape predicted fastest on this machine
(`specviz.choose_shape`; `--k`/`--tree-nodes` choose another, the rest from the pair's recommended draft in
assets/catalog.yaml) and with the target alone, in the same dtype, and reports
the first new token where the two outputs part with the target's top-2 logit gap there (`checks.compare_outputs`).
The rule is exact in exact arithmetic; a forward over K + 1 (or nodes + 1) tokens still rounds differently from a
one-token forward. In float32 that rounding is fine enough that the outputs matched on every prompt checked so far
(an observation, not a guarantee); in bfloat16, where the target's two best logits nearly tie, the argmax can flip:
"lossless up to numerics". A gap under `checks.NUMERICS_GAP` (0.5) counts as a near-tie: four bfloat16 steps for
logits from 16 to 32, where a step is 0.125 (the committed splits sat 0 to 2 steps apart). A split that is not a
near-tie would be a bug, and the script exits 1. The command written to `--out` names, after the flags as typed, every
default the run resolved (pair, proposer, dtype, shape, prompts, tokens), so typed on another machine it runs the
same check.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.labs.bench.config import held_out_arg, load_suites
from specviz.labs.bench.summary import count_text
from specviz.engine.limits import (DEFAULT_DTYPE_RULE, K_RANGE, MAX_NEW_TOKENS_CAP, MAX_NEW_TOKENS_RANGE,
                                   TREE_LOOKUP_RANGE, TREE_NODES_RANGE, TREE_WIDTH_RANGE, dtype_arg,
                                   toy_stand_in_refusal, whole_arg, writable_file_arg)
from specviz.models.catalog import recommended_for
from specviz.models.machine import dtype_name
from specviz.models.pairs import load_pair
from specviz.runs.running import run, run_target_only
from specviz.runs.runspec import RunSpec
from specviz.scripts import recorded_command
from specviz.scripts.checks import compare_outputs
from specviz.engine.draft_shape import DraftShape


def identity_report(spec: RunSpec, prompts: Sequence[str], pair) -> list[dict[str, Any]]:
    """One entry per prompt: the speculative output against target-only decoding (greedy, same pair and dtype)."""
    entries = []
    for text in prompts:
        one = replace(spec, prompt=text, temperature=0.0)
        speculative, alone = run(one, pair=pair), run_target_only(one, pair=pair)
        found = compare_outputs(pair.target, alone.prompt_ids,
                                {"target-only": alone.output_ids, "speculative": speculative.output_ids},
                                "target-only")["speculative"]
        entries.append({"prompt": text, **found})
    return entries


def summary_lines(entries: list[dict[str, Any]]) -> list[str]:
    """What a reader needs: how many are identical, and for each split its position, gap and verdict."""
    same = sum(e["identical"] for e in entries)
    lines = [f"identical to target-only: {same} of {len(entries)}"]
    for i, e in enumerate(entries):
        if not e["identical"]:
            gap = e["gaps"]["target"]["gap"]
            lines.append(f"  prompt {i + 1}: parted at new token {e['first_difference']}, target top-2 logit gap "
                         f"{gap:.3f} ({'a near-tie: numerics' if e['near_tie'] else 'NOT a near-tie'})")
    return lines


def heading(pair: str, proposer: str, shape: DraftShape, dtype: str, prompts: int, max_new_tokens: int) -> str:
    """The first line the script prints: the run's pair, proposer, shape as a person reads it (`DraftShape.shown`,
    with ×; read 55: it printed the JSON identifier, "tree 16x4 depth 4"), dtype, prompts and token cap.

    The toy pair's EAGLE and Medusa are untrained stand-ins (read 55: the default eagle on `--pair toy` was headed
    "eagle" alone). An identity check holds for any drafter, so the run goes on, and the heading says what drafted:

    >>> heading("default", "eagle", DraftShape(4, 16, 4, 8), "bfloat16", 4, 64)
    'pair default, eagle tree 16×4 depth 4 + lookup 8, bfloat16, greedy, 4 held-out prompts, up to 64 new tokens each'
    >>> heading("toy", "eagle", DraftShape(4), "float32", 1, 4).split(", ")[:2]
    ['pair toy', "eagle (the toy pair's untrained stand-in) chain K=4"]
    """
    drafter = f"{proposer} (the toy pair's untrained stand-in)" if toy_stand_in_refusal(pair, proposer) else proposer
    return (f"pair {pair}, {drafter} {shape.shown()}, {dtype}, greedy, {count_text(prompts, 'held-out prompt')}, "
            f"up to {count_text(max_new_tokens, 'new token')} each")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.greedy_identity",
                                     description=__doc__.split("\n")[0],
                                     formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--pair", default="default", help="a catalog name or TARGET[,DRAFT]: local folders or Hub ids")
    parser.add_argument("--proposer", default="eagle", help="who drafts")
    parser.add_argument("--dtype", type=dtype_arg, default=None, help=f"default: the machine's: {DEFAULT_DTYPE_RULE}")
    parser.add_argument("--k", type=whole_arg(*K_RANGE), default=None,
                        help="default: the shape predicted fastest on this machine (python -m specviz calibrate) "
                             "when no shape flag is given; else the pair's recommended K")
    parser.add_argument("--tree-nodes", type=whole_arg(*TREE_NODES_RANGE), default=None,
                        help="default: as for --k when no shape flag is given; else the recommended tree's nodes "
                             "(--k alone keeps the recommended tree, at depth K)")
    parser.add_argument("--tree-width", type=whole_arg(*TREE_WIDTH_RANGE), default=None,
                        help="default: as for --k when no shape flag is given; else the recommended width")
    parser.add_argument("--tree-lookup", type=whole_arg(*TREE_LOOKUP_RANGE), default=None,
                        help="default: as for --k when no shape flag is given; else the recommended tree's lookup "
                             "branch, 0 when --k or --tree-nodes is given")
    parser.add_argument("--prompts", type=held_out_arg, default=8, help="the first N prompts of the held-out suite")
    parser.add_argument("--max-new-tokens", type=whole_arg(*MAX_NEW_TOKENS_RANGE), default=128,
                        help=f"the most new tokens per prompt ({MAX_NEW_TOKENS_CAP})")
    parser.add_argument("--out", type=writable_file_arg, default=None, help="a JSON file for the entries")
    args = parser.parse_args(argv)
    pair = load_pair(args.pair, dtype=args.dtype)
    if all(v is None for v in (args.k, args.tree_nodes, args.tree_width, args.tree_lookup)):
        from specviz.labs.shape_choice import choose_shape

        shape = choose_shape(pair, 0.0, proposer=args.proposer).settings()
    else:
        best = recommended_for(args.pair)
        shape = dict(k=args.k or best.k, tree_nodes=best.tree_nodes if args.tree_nodes is None else args.tree_nodes,
                     tree_width=args.tree_width or best.tree_width,
                     tree_lookup=best.lookup_for(args.k, args.tree_nodes, args.tree_lookup))
    spec = RunSpec(pair=args.pair, proposer=args.proposer, max_new_tokens=args.max_new_tokens, **shape)
    dtype = dtype_name(next(pair.target.parameters()).dtype)
    prompts = [p.text for p in load_suites(["held-out"])[0].prompts if p.text][: args.prompts]
    entries = identity_report(spec, prompts, pair)
    drafted = DraftShape(spec.k, spec.tree_nodes, spec.tree_width, spec.tree_lookup)
    shape = drafted.label()  # the identifier the JSON record keeps; the heading shows it with × (`heading`)
    print(heading(args.pair, args.proposer, drafted, dtype, len(prompts), args.max_new_tokens))
    print("\n".join(summary_lines(entries)))
    if args.out:
        from specviz.labs.bench.timing import machine_info, pair_placement

        machine = {key: value for key, value in {**machine_info(), **pair_placement(pair)}.items()
                   if key in ("cpu", "cpu_flags", "cpu_bf16", "isa_limits", "kernels", "torch", "date")}
        typed = list(argv) if argv is not None else sys.argv[1:]
        resolved = {"--pair": args.pair, "--proposer": args.proposer, "--dtype": dtype, "--k": spec.k,
                    "--tree-nodes": spec.tree_nodes, "--tree-width": spec.tree_width,
                    "--tree-lookup": spec.tree_lookup, "--prompts": args.prompts,
                    "--max-new-tokens": args.max_new_tokens}  # what the defaults resolved to on this machine
        record = {"command": recorded_command("python -m specviz.scripts.greedy_identity", typed, resolved),
                  "dtype": dtype, "shape": shape, "machine": machine, "entries": entries}
        Path(args.out).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return 0 if all(e["identical"] or e["near_tie"] for e in entries) else 1


if __name__ == "__main__":
    sys.exit(main())
