"""Chain against tree, in one run: tokens per target forward (the mean accepted length, bonus and recovered tokens
included) of a chain of K and of a draft tree, on the same prompts, pair, proposer and settings.

    python -m specviz.scripts.tree_tokens --dtype float32 --prompts 8
    python -m specviz.scripts.tree_tokens --dtype bfloat16 --tree-nodes 16 --tree-width 4 --k 4

Tokens per forward is a count, not a timing: it says how much each target pass buys, the same on any machine with
the same dtype and kernels and under any load (other kernels or another dtype round differently and can keep other
drafts, as `specviz.scripts.shape_table` says of its counts). The wall-time ratio it prints next to it is one run's
ratio on this machine (on a shared CPU, a rough one), after one short untimed run of each. Greedy outputs of chain
and tree matched in float32 on the prompts checked (an observation: float32 rounds too, far more finely); in
bfloat16 the tree's one wide forward rounds differently from the chain's often enough to flip near-ties, and where
the two part the script prints the target's top-2 logit gap there (`checks.compare_outputs`: a gap under 0.5 is a
near-tie that rounding can flip, "lossless up to numerics"). At a temperature above 0 the two draw their random
numbers differently, so their outputs differ by chance: the script counts identical ones but compares none.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.core.i18n import as_written
from specviz.engine.draft_shape import over_holds
from specviz.labs.bench.config import held_out_arg, load_suites
from specviz.labs.bench.summary import count_text
from specviz.engine.limits import (DEVICE_HELP, K_RANGE, MAX_NEW_TOKENS_CAP, MAX_NEW_TOKENS_RANGE, TEMPERATURE_RANGE,
                                   TREE_NODES_RANGE, TREE_WIDTH_RANGE, dtype_arg, number_arg, toy_stand_in_refusal,
                                   whole_arg)
from specviz.models.pairs import load_pair
from specviz.runs.running import run
from specviz.runs.runspec import RunSpec
from specviz.scripts.checks import compare_outputs


def tokens_per_forward(traces: list) -> float:
    """All emitted tokens over all target forwards (steps), pooled over the prompts."""
    return sum(t.num_tokens for t in traces) / sum(t.num_steps for t in traces)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.tree_tokens",
                                     description=__doc__.split("\n\n")[0],  # the first paragraph, its line breaks kept
                                     formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--pair", default="default", help="a catalog name or TARGET[,DRAFT]: local folders or Hub ids")
    parser.add_argument("--proposer", default="eagle", help="who drafts")
    parser.add_argument("--dtype", type=dtype_arg, default="float32",
                        help="float32, float16 or bfloat16 (default: float32; another dtype can move the counts)")
    parser.add_argument("--device", default=None, help=DEVICE_HELP)
    parser.add_argument("--k", type=whole_arg(*K_RANGE), default=4, help="the chain's K and the tree's greatest depth")
    parser.add_argument("--tree-nodes", type=whole_arg(*TREE_NODES_RANGE), default=16,
                        help="the most nodes the tree drafts (N)")
    parser.add_argument("--tree-width", type=whole_arg(*TREE_WIDTH_RANGE), default=4,
                        help="the tree's width W (nodes expanded per level, children per node)")
    parser.add_argument("--temperature", type=number_arg(*TEMPERATURE_RANGE), default=0.0, help="0 = greedy")
    parser.add_argument("--prompts", type=held_out_arg, default=8, help="the first N prompts of the held-out suite")
    parser.add_argument("--max-new-tokens", type=whole_arg(*MAX_NEW_TOKENS_RANGE), default=64,
                        help=f"the most new tokens per prompt ({MAX_NEW_TOKENS_CAP})")
    args = parser.parse_args(argv)
    refusal = toy_stand_in_refusal(args.pair, args.proposer)
    if refusal:
        parser.error(refusal)
    if args.tree_nodes <= args.k:  # 0 would race the chain against itself, and N <= K nodes cannot reach depth K
        parser.error(f"--tree-nodes must be above --k, the tree's greatest depth (got {args.tree_nodes} and {args.k})")
    if refusal := over_holds(args.tree_nodes, args.k, args.tree_width):  # read 55 (review): 64 nodes, width 8,
        parser.error(refusal)  # depth 1 was printed as "tree 64 nodes" for trees of 8, as generate once did
    chain = RunSpec(pair=args.pair, proposer=args.proposer, k=args.k, max_new_tokens=args.max_new_tokens,
                    temperature=args.temperature)
    tree = RunSpec(pair=args.pair, proposer=args.proposer, k=args.k, max_new_tokens=args.max_new_tokens,
                   temperature=args.temperature, tree_nodes=args.tree_nodes, tree_width=args.tree_width)
    pair = load_pair(args.pair, device=args.device, dtype=args.dtype)
    prompts = [p.text for p in load_suites(["held-out"])[0].prompts if p.text][: args.prompts]
    results: dict[str, list] = {"chain": [], "tree": []}
    for spec in (chain, tree):  # untimed: the first call pays one-time costs (allocations, kernel choice), which
        run(replace(spec, prompt=prompts[0], max_new_tokens=4), pair=pair)  # would land on the chain's wall time
    for text in prompts:
        for name, spec in (("chain", chain), ("tree", tree)):
            results[name].append(run(replace(spec, prompt=text), pair=pair))
    same = sum(a.output_ids == b.output_ids for a, b in zip(results["chain"], results["tree"]))
    # as printed (two decimals, ties away from zero): "(N× the chain)" is the quotient of the two printed figures
    chain_tpf, tree_tpf = (as_written(tokens_per_forward(results[name])) for name in ("chain", "tree"))
    wall = sum(t.wall_seconds for t in results["tree"]) / sum(t.wall_seconds for t in results["chain"])
    weight = next(pair.target.parameters())  # the dtype it ran, not the flag: `--dtype auto` picks one
    print(f"pair {args.pair}, proposer {args.proposer}, {str(weight.dtype).removeprefix('torch.')} on {weight.device}, "
          f"T = {args.temperature:g}, {count_text(len(prompts), 'held-out prompt')}, "
          f"up to {count_text(args.max_new_tokens, 'new token')} each")
    print(f"  chain K={args.k}:                          {chain_tpf:.2f} tokens per target forward")
    print(f"  tree {args.tree_nodes} nodes, width {args.tree_width}, depth {args.k}:   {tree_tpf:.2f} tokens per "
          f"target forward  ({as_written(tree_tpf / chain_tpf):.2f}× the chain)")
    print(f"  tree / chain wall time: {wall:.2f}  (this run, this machine)")
    if args.temperature:  # sampled: chain and tree draw their random numbers differently, so outputs differ by chance
        print(f"  identical outputs: {same} of {len(prompts)} (sampled: not compared, a split here is chance)")
        return 0
    print(f"  identical outputs: {same} of {len(prompts)}")
    for a, b in zip(results["chain"], results["tree"]):
        if a.output_ids != b.output_ids:
            found = compare_outputs(pair.target, a.prompt_ids, {"chain": a.output_ids, "tree": b.output_ids}, "chain")
            entry = found["tree"]
            print(f"    parted at new token {entry['first_difference']}: target top-2 logit gap "
                  f"{entry['gaps']['target']['gap']:.3f} ({'a near-tie' if entry['near_tie'] else 'NOT a near-tie'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
