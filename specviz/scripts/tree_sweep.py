"""Which draft shape pays most for a pair: chains of K and draft trees of several node budgets and widths, on the
same held-out prompts, ranked by the speedup the measured costs predict.

    python -m specviz.scripts.tree_sweep --k 3 4 5 --tree-nodes 0 8 16 24 --tree-width 2 3 4 --prompts 6

A tree's node budget must be above its depth K: a budget is not swept at the --k values it does not exceed (the run
prints which), and one that exceeds no --k is refused.

For each shape it counts tokens per target forward (emitted tokens over verification forwards, bonus and recovered
tokens included): a count, the same on any machine with the same dtype and kernels, and under any load. It then
estimates the speedup over target-only decoding as

    tokens per forward / (verify cost of the tokens fed + K · c)

with the verify cost read off the target's measured curve (one forward over n new tokens over one token) and c the
drafter's pass over one target forward: a chain feeds K + 1 tokens and drafts K passes, a tree of N nodes and depth K
feeds N + 1, plus the M tokens of its lookup branch (`--tree-lookup M`, copied: no drafter pass), and drafts one pass
per level. Those two costs are timings: on a shared machine they are noisy, so the
ranking is an estimate, and the wall-clock ratio is measured by the bench (`python -m specviz bench`), not here.
The best shape is what `recommended:` in assets/catalog.yaml records for the pair. `--json` writes the table with
the machine (CPU, kernels, threads, load) and a command that names, after the flags as typed, every default the run
resolved (proposer, dtype, device, shapes, temperature, prompts, tokens).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.core.i18n import as_written, small_digits
from specviz.engine.draft_shape import DraftShape
from specviz.engine.limits import (DEFAULT_DTYPE_RULE, DEVICE_HELP, K_RANGE, MAX_NEW_TOKENS_CAP, MAX_NEW_TOKENS_RANGE,
                                   TEMPERATURE_RANGE, TREE_LOOKUP_RANGE, TREE_NODES_RANGE, TREE_WIDTH_RANGE, dtype_arg,
                                   number_arg, toy_stand_in_refusal, whole_arg, writable_file_arg)
from specviz.engine.proposers import make_proposer, registry
from specviz.labs.bench.config import held_out_arg, load_suites
from specviz.labs.bench.summary import (count_text, estimated_speedup, physical_limit, tokens_fed, written_c,
                                       written_curve, written_limit)
from specviz.labs.bench.timing import feature_draft_timer, forward_timer, verify_curve
from specviz.models.machine import dtype_name
from specviz.models.pairs import load_pair
from specviz.runs.running import prompt_ids, run
from specviz.runs.runspec import RunSpec
from specviz.scripts import recorded_command




def shapes(ks: Sequence[int], nodes: Sequence[int], widths: Sequence[int], lookups: Sequence[int] = (0,)
           ) -> list[DraftShape]:
    """Every chain of K, and every tree (N > K nodes) of every width and lookup branch, for every K (`skipped`
    lists the budgets left out, which the run prints).

    >>> [s.label() for s in shapes([3], [0, 8], [2], [0, 6])]
    ['chain K=3', 'tree 8x2 depth 3', 'tree 8x2 depth 3 + lookup 6']
    """
    out = []
    for k in ks:
        out += [DraftShape(k)] if 0 in nodes else []
        out += [DraftShape(k, n, w, m) for n in nodes if n > k for w in widths for m in lookups]
    return out


def skipped(ks: Sequence[int], nodes: Sequence[int]) -> list[tuple[int, int]]:
    """The (K, node budget) pairs `shapes` leaves out: a tree's budget must be above its depth K.

    >>> skipped([3, 8], [0, 8, 16])
    [(8, 8)]
    """
    return [(k, n) for k in ks for n in nodes if 0 < n <= k]


def tokens_per_forward(traces: list) -> float:
    """All emitted tokens over all target forwards (steps), pooled over the prompts."""
    return sum(t.num_tokens for t in traces) / sum(t.num_steps for t in traces)


def measure(pair, proposer: str, shape_list: list[DraftShape], prompts: list[str], max_new_tokens: int,
            temperature: float, progress=print) -> dict[DraftShape, dict]:
    """Tokens per forward (and the greedy outputs) of every shape over the prompts."""
    found = {}
    for shape in shape_list:
        spec = RunSpec(pair=pair.name, proposer=proposer, k=shape.k, tree_nodes=shape.tree_nodes,
                       tree_width=shape.tree_width, tree_lookup=shape.tree_lookup, max_new_tokens=max_new_tokens,
                       temperature=temperature)
        traces = [run(replace(spec, prompt=text), pair=pair) for text in prompts]
        found[shape] = {"tokens_per_forward": tokens_per_forward(traces), "outputs": [t.output_ids for t in traces]}
        progress(f"  {shape.shown():<46} {found[shape]['tokens_per_forward']:.2f} tokens per target forward")
    return found


def drafter_cost(pair, proposer: str, context: list[int], repeats: int = 9) -> float:
    """c: one drafting pass over one target forward (one new token, warm cache), medians over `repeats`."""
    import statistics

    prop = make_proposer(pair, proposer)
    draft = (feature_draft_timer(pair.target, prop, context) if prop.needs_target_features else
             forward_timer(prop.runner.model, context, 1) if hasattr(prop, "runner") else lambda: 0.0)
    target = forward_timer(pair.target, context, 1)
    pairs = [(draft(), target()) for _ in range(repeats)]
    return statistics.median(d for d, _ in pairs) / statistics.median(t for _, t in pairs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.tree_sweep",
                                     description=__doc__.split("\n\n")[0],  # the first paragraph, its line breaks kept
                                     formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--pair", default="default", help="a catalog name or TARGET[,DRAFT]: local folders or Hub ids")
    parser.add_argument("--proposer", default=None, help="default: the pair's own")
    parser.add_argument("--dtype", type=dtype_arg, default=None, help=f"default: the machine's: {DEFAULT_DTYPE_RULE}")
    parser.add_argument("--device", default=None, help=DEVICE_HELP)
    parser.add_argument("--k", type=whole_arg(*K_RANGE), nargs="+", default=[3, 4, 5],
                        help="chain lengths and tree depths")
    parser.add_argument("--tree-nodes", type=whole_arg(*TREE_NODES_RANGE), nargs="+", default=[0, 8, 16, 24],
                        help="0 = the chain; a tree's budget must be above its depth K")
    parser.add_argument("--tree-width", type=whole_arg(*TREE_WIDTH_RANGE), nargs="+", default=[2, 3, 4],
                        help="tree widths W (nodes expanded per level, children per node)")
    parser.add_argument("--tree-lookup", type=whole_arg(*TREE_LOOKUP_RANGE), nargs="+", default=[0],
                        help="tokens a tree copies from the context as one more branch; 0 = none")
    parser.add_argument("--temperature", type=number_arg(*TEMPERATURE_RANGE), default=0.0, help="0 = greedy")
    parser.add_argument("--prompts", type=held_out_arg, default=6, help="the first N prompts of the held-out suite")
    parser.add_argument("--max-new-tokens", type=whole_arg(*MAX_NEW_TOKENS_RANGE), default=64,
                        help=f"the most new tokens per prompt ({MAX_NEW_TOKENS_CAP})")
    parser.add_argument("--json", type=writable_file_arg, default=None, help="write the table to this file")
    args = parser.parse_args(argv)
    refusal = toy_stand_in_refusal(args.pair, args.proposer)
    if refusal:  # the toy pair's EAGLE and Medusa are untrained stand-ins: their counts would pass for the proposer's
        parser.error(refusal)
    shape_list = shapes(args.k, args.tree_nodes, args.tree_width, args.tree_lookup)
    if not shape_list:  # every budget at or under every K: nothing to measure, and rows[0] below would fail
        parser.error("no shape to sweep: give --tree-nodes 0 (the chain) or a budget above the smallest --k")
    unused = [n for n in args.tree_nodes if 0 < n <= min(args.k)]
    if unused:  # a budget no K can use would be dropped without a word
        parser.error(f"--tree-nodes {' '.join(map(str, unused))}: a tree's node budget must be above its depth K, "
                     f"and {'it is' if len(unused) == 1 else 'they are'} not above any --k (the smallest is "
                     f"{min(args.k)})")
    left_out = skipped(args.k, args.tree_nodes)
    if left_out:
        print("not swept (a tree's node budget must be above its depth K): "
              + ", ".join(f"{n} nodes at K={k}" for k, n in left_out))
    pair = load_pair(args.pair, device=args.device, dtype=args.dtype)
    proposer = args.proposer or pair.default_proposer
    from specviz.labs.bench.timing import machine_info, pair_placement

    machine = {key: value for key, value in {**machine_info(), **pair_placement(pair)}.items()  # at the start
               if key in ("cpu", "cpu_flags", "cpu_bf16", "cores", "gpu", "torch_threads", "isa_limits", "kernels",
                          "torch", "date", "load_average_start")}
    prompts = [p.text for p in load_suites(["held-out"])[0].prompts if p.text][: args.prompts]
    print(f"pair {args.pair}, proposer {proposer}, {dtype_name(pair.dtype)} on {pair.device}, T = "
          f"{args.temperature:g}, {count_text(len(prompts), 'held-out prompt')}, "
          f"up to {count_text(args.max_new_tokens, 'new token')} each")
    context = prompt_ids(RunSpec(pair=pair.name, prompt=prompts[0]), pair)
    sizes = sorted({tokens_fed(s.k, s.tree_nodes, s.tree_lookup) for s in shape_list} | {1, 2, 5, 9, 17, 33})
    curve = verify_curve(pair.target, context, sizes)
    c = drafter_cost(pair, proposer, context)
    print("verify cost (one forward over n tokens / one token; timed, noisy on a shared machine): "
          + ", ".join(f"{p['n_tokens']}: {p['ratio']:.2f}" for p in written_curve(curve))
          + f"; drafter c = {written_c(c):.{small_digits(c)}f}")
    found = measure(pair, proposer, shape_list, prompts, args.max_new_tokens, args.temperature)
    rows = []
    for shape, got in found.items():
        speedup = written_speedup(shape, got["tokens_per_forward"], c, curve, registry.one_pass(proposer))
        rows.append(sweep_row(shape, got["tokens_per_forward"], speedup, curve))
    rows.sort(key=lambda r: -r["estimated_speedup"])
    print("\n".join(report(rows)))
    if args.json:
        typed = list(argv) if argv is not None else sys.argv[1:]
        resolved = {"--pair": args.pair, "--proposer": proposer, "--dtype": dtype_name(pair.dtype),
                    "--device": pair.device.type, "--k": args.k, "--tree-nodes": args.tree_nodes,
                    "--tree-width": args.tree_width, "--tree-lookup": args.tree_lookup,
                    "--temperature": args.temperature, "--prompts": args.prompts,
                    "--max-new-tokens": args.max_new_tokens}  # str(float) reads back as the same number
        Path(args.json).write_text(json.dumps({
            "command": recorded_command("python -m specviz.scripts.tree_sweep", typed, resolved),
            "dtype": dtype_name(pair.dtype), "proposer": proposer, "temperature": args.temperature,
            "prompts": len(prompts), "max_new_tokens": args.max_new_tokens, "machine": machine,
            "verify_curve": curve, "c": c, "rows": rows}, indent=1) + "\n")
    return 0


def written_speedup(shape: DraftShape, tokens_per_forward: float, c: float, curve: list[dict],
                    one_pass: bool = False) -> float:
    """A shape's estimated speedup (`summary.estimated_speedup`) from the figures the sweep prints: tok/forward to
    two decimals, the verify costs to two (`written_curve`) and c as its line writes it (three decimals, or two
    significant figures under 0.001). Read 55 (review): the limit came from the printed costs but the estimate
    beside it from every digit timed, so 2.006 tokens a forward (printed 2.01), 5 tokens at 1.0949 (1.09) and
    c = 0.0496 (0.050) read 1.55× where 2.01 / (1.09 + 4 × 0.050) = 1.56×.
    A budget above what the tree holds is charged the tokens its tree feeds (`DraftShape.fitted`).

    >>> curve = [{"n_tokens": 1, "ratio": 1.0}, {"n_tokens": 5, "ratio": 1.0949}]
    >>> f"{written_speedup(DraftShape(k=4), 2.006, 0.0496, curve):.2f}"
    '1.56'
    """
    fit = shape.fitted()  # read 55 (review): a budget above what the tree holds drafts (and feeds) only that many
    return estimated_speedup(as_written(tokens_per_forward), fit.k, fit.tree_nodes,
                             written_c(c), written_curve(curve), fit.tree_lookup, one_pass)


def sweep_row(shape: DraftShape, tokens_per_forward: float, speedup: float, curve: list[dict]) -> dict:
    """One shape's row of the table and the JSON. Its physical limit is the one a reader recomputes from the verify
    costs the sweep prints (two decimals, `summary.written_limit`, as results.md does), not from every digit timed.
    Read 55: with 5 tokens timed at 1.0949 (printed 1.09), a chain of K = 4's limit read 4.57× where the printed
    cost gives 5 / 1.09 = 4.59×.
    A budget above what the tree holds is charged the tokens its tree feeds (read 55, review: "tree 16×2 depth 4"
    and "24×2" draft the same 14-node tree, but were charged 17 and 25 tokens fed).

    >>> curve = [{"n_tokens": 1, "ratio": 1.0}, {"n_tokens": 5, "ratio": 1.0949}]
    >>> sweep_row(DraftShape(k=4), 2.0, 1.2, curve)["physical_limit"]  # 5 / 1.09
    4.587155963302752
    """
    row = {"k": shape.k, "tree_nodes": shape.tree_nodes, "tree_width": shape.tree_width if shape.tree_nodes else None,
           "tree_lookup": shape.tree_lookup, "tokens_per_forward": tokens_per_forward, "estimated_speedup": speedup,
           "label": shape.label()}
    # read 55 (review): the tokens fed are the nodes the tree holds (`DraftShape.fitted`), not a larger budget's
    fit = shape.fitted()
    fed = {**row, "tree_nodes": fit.tree_nodes,
           "physical_limit": physical_limit(fit.k, fit.tree_nodes, curve, fit.tree_lookup)}
    return {**row, "physical_limit": written_limit(fed, {"verify": curve})}


def report(rows: list[dict]) -> list[str]:
    """The ranked table (`rows` best first), what its two speedup columns are measured against, and the best shape
    in the catalog's words. Read 51: the columns named no baseline ("est. speedup", "limit"), and a best shape
    estimated below 1x (0.51x on the toy pair) was printed as "recommended" without a word that it is slower.

    >>> rows = [{"label": "chain K=2", "k": 2, "tree_nodes": 0, "tree_width": None, "tree_lookup": 0,
    ...          "tokens_per_forward": 1.6, "estimated_speedup": 0.45, "physical_limit": 1.99}]
    >>> print("\\n".join(report(rows)[-2:]))
    best: chain K=2 (recommended: k: 2, tree_nodes: 0, tree_width: 4, tree_lookup: 0)
    no shape swept is estimated to beat target-only decoding here: the best, chain K=2, at 0.45×
    """
    lines = ["", f"{'shape':<48} {'tok/forward':>11} {'est. speedup':>13} {'limit':>7}"]
    lines += [f"{DraftShape.of(r).shown():<48} {r['tokens_per_forward']:>11.2f} {r['estimated_speedup']:>12.2f}× "
              f"{r['physical_limit']:>6.2f}×" for r in rows]
    lines.append("(est. speedup: over target-only decoding, tok/forward over a step's cost in one-token forwards, the "
                 "verify cost of the tokens fed plus the drafter's passes at c each; limit: the same shape with a "
                 "perfect, free draft, every step keeping a whole path and its bonus token)")
    best = rows[0]
    shown = DraftShape.of(best).shown()  # the JSON's label is the identifier; a person reads "×" (read 54)
    lines += ["", f"best: {shown} (recommended: k: {best['k']}, tree_nodes: {best['tree_nodes']}, "
                  f"tree_width: {best['tree_width'] or 4}, tree_lookup: {best['tree_lookup']})"]
    if best["estimated_speedup"] < 1:
        lines.append(f"no shape swept is estimated to beat target-only decoding here: the best, {shown}, at "
                     f"{best['estimated_speedup']:.2f}×")
    return lines


if __name__ == "__main__":
    sys.exit(main())
