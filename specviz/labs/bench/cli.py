"""`python -m specviz bench`: the subcommand's flags, the `BenchConfig` they make, and the command that remakes a run.

    python -m specviz bench --pair default --proposers ngram layerskip --k 1 2 4 8 --temperatures 0 0.7

`command_line(config)` writes the flags back, so every result file carries the command that reproduces it (all but
the timing rounds of c and the verify curve, `cost_repeats`, which no flag sets).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from specviz.core.i18n import with_minus
from specviz.core.paths import folders_made_for
from specviz.core.text import shortened, typed
from specviz.engine.draft_shape import DraftShape, tree_holds
from specviz.engine.limits import (BENCH_DTYPE_HELP, DEVICE_HELP, K_RANGE, MAX_NEW_TOKENS_CAP, REPEATS_RANGE,
                                   TREE_LOOKUP_RANGE, TREE_NODES_RANGE, TREE_WIDTH_RANGE, dtype_arg, finite_float,
                                   path_arg, plain_int, threads_arg)
from specviz.engine.proposers import registry
from specviz.labs.bench.config import CLOCKS, DTYPES, HF_MODES, BenchConfig, prompts_run_note
from specviz.models.catalog import recommended_for
from specviz.runs.runspec import SETTINGS


# what a list flag takes, by the type of its values, in words (read 52: "'1,x' is not a list of int values" used
# Python's type names)
_LISTED = {plain_int: "whole numbers", str: "names", finite_float: "numbers"}


def _listed(kind):
    """argparse type for list flags: each value may itself be comma-separated; a value with none in it (`--k ""`,
    `--proposers ,`) is refused, not read as the flag's default. argparse names the flag before the sentence:
    "argument --k: whole numbers, separated by spaces or commas (got '1,x')".

    >>> _listed(plain_int)("1,2")
    [1, 2]
    >>> _listed(plain_int)("1,x")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: whole numbers, separated by spaces or commas (got '1,x')
    """
    def parse(text: str):
        try:
            values = [kind(x) for x in text.split(",") if x.strip()]
        except ValueError:
            values = []
        if not values:
            raise argparse.ArgumentTypeError(f"{_LISTED[kind]}, separated by spaces or commas (got "
                                             f"{typed(text, marks=False)})")
        return values
    return parse


def add_bench_arguments(cmd: argparse.ArgumentParser) -> None:
    """The `bench` subcommand's flags."""
    cmd.add_argument("--pair", default="default", help="a catalog name (default, toy, qwen2.5-0.5b-7b, ...) or "
                                                        "TARGET[,DRAFT]: local folders or Hub ids (default: default)")
    cmd.add_argument("--proposers", nargs="+", type=_listed(str), default=None,
                     help=f"{', '.join(registry.names())} (default: the pair's own)")
    registry.add_setting_flags(cmd)  # each proposer's own settings (--layers for layer-skip)
    cmd.add_argument("--k", nargs="+", type=_listed(plain_int), default=None,
                     help="drafted tokens per step, a tree's greatest depth (default: with no shape flag, the shape "
                          "predicted fastest on "
                          "this machine for the lowest temperature, `python -m specviz calibrate`, or the pair's "
                          "recommended without a shape table for the proposer (with several proposers: the "
                          "pair's own, whether or not it runs); else the pair's recommended K; "
                          "n-gram lookup drafts no tree: it runs a chain of each K, drafting at most K tokens a "
                          "step, fewer where the copied text runs out or reaches a chat marker, none where "
                          "nothing matches)")
    cmd.add_argument("--tree-nodes", nargs="+", type=_listed(plain_int), default=None,
                     help="draft tree node budgets, 0 = a chain of K (default: as for --k when no shape flag is "
                          "given; else the pair's recommended tree, or a chain when --k is given)")
    cmd.add_argument("--tree-width", nargs="+", type=_listed(plain_int), default=None,
                     help=f"{SETTINGS['tree_width'].help} (default: as for --k when no shape flag is given; else "
                          "the pair's recommended width)")
    cmd.add_argument("--tree-lookup", type=plain_int, default=None,
                     help="tokens every tree also copies from the context as one more branch, 0 = none (default: "
                          "as for --k when no shape flag is given; else the pair's recommended tree's, or none when "
                          "--k or --tree-nodes is given)")
    cmd.add_argument("--shapes", nargs="+", type=_listed(str), default=None, metavar="K:NODES:WIDTH:LOOKUP",
                     help="run exactly these draft shapes, each with its own lookup branch (e.g. 2:0:4:0 for a chain "
                          "of K = 2, 3:6:4:8 for a tree of 6 nodes, width 4, depth 3 with a lookup branch of 8; "
                          "trailing parts may be left out: 3 is a chain of K = 3), in place of the --k x --tree-nodes "
                          "x --tree-width cross product (default: none, so that cross product runs)")
    cmd.add_argument("--verify-dtypes", nargs="*", type=_listed(str), default=[["float32", "bfloat16"]],
                     help="dtypes whose verify-cost curve is measured on a CPU (default: float32 bfloat16; the "
                          "flag alone, with no dtype after it, skips the curves)")
    cmd.add_argument("--temperatures", nargs="+", type=_listed(finite_float), default=[[0.0]], help="0 = greedy")
    cmd.add_argument("--suites", nargs="+", type=_listed(str), default=None,
                     help="prompt suites in assets/prompts (default: all)")
    lo, hi = REPEATS_RANGE  # BenchConfig's limits, stated in the help (read 52: they were not)
    cmd.add_argument("--prompts-per-suite", type=plain_int, default=2, help=f"prompts taken from each suite, 1 to {hi}")
    cmd.add_argument("--max-new-tokens", type=plain_int, default=64,
                     help=f"the most new tokens per prompt ({MAX_NEW_TOKENS_CAP})")
    cmd.add_argument("--repeats", type=plain_int, default=3, help=f"timed repeats per case, {lo} to {hi} (medians are "
                                                                "reported)")
    cmd.add_argument("--warmup", type=plain_int, default=1, help=f"untimed warm-up rounds before timing, 0 to {hi}")
    cmd.add_argument("--threads", type=threads_arg, default=None, help="torch.set_num_threads (0 or left out: torch's choice)")
    cmd.add_argument("--policies", nargs="+", type=_listed(str), default=[["constant"]],
                     help="constant, heuristic, threshold, optimal (threshold runs only proposers with a draft's "
                          "probabilities: not ngram)")
    cmd.add_argument("--policy-k", type=plain_int, default=4,
                     help="the K the heuristic policy starts at and the threshold policy's cap (the optimal policy "
                          "picks its own K, up to the largest of the run's K values and --policy-k)")
    cmd.add_argument("--policy-temperatures", nargs="+", type=_listed(finite_float), default=None,
                     help="temperatures for the adaptive policies (default: all)")
    cmd.add_argument("--threshold", type=finite_float, default=0.4, help="confidence threshold of the threshold policy")
    cmd.add_argument("--hf", choices=HF_MODES, default="all",
                     help="compare with transformers at all temperatures, greedy only, or not at all")
    cmd.add_argument("--clock", choices=CLOCKS, default="wall",
                     help="wall: elapsed time; cpu: this process's CPU time (for a machine shared with other jobs)")
    cmd.add_argument("--device", default=None, help=DEVICE_HELP)
    cmd.add_argument("--dtype", type=dtype_arg, choices=DTYPES, default=None,
                     help=BENCH_DTYPE_HELP + "; the baselines run in the same dtype")
    cmd.add_argument("--no-record-overhead", action="store_true", help="skip the recorded-trace runs")
    cmd.add_argument("--seed", type=plain_int, default=0, help="seed of the sampled runs")
    cmd.add_argument("--out", type=path_arg, default="bench-results",
                     help="folder for results.json, results.csv, results.md")


def config_from_args(args: argparse.Namespace) -> BenchConfig:
    """The flags as a `BenchConfig`; K and the tree default to the pair's recommended settings
    (`specviz.models.catalog.recommended_for`: assets/catalog.yaml, read without loading a model)."""
    flat = lambda lists: [x for part in lists for x in part] if lists else None  # noqa: E731
    best = recommended_for(args.pair)
    ks = flat(args.k) or [best.k]
    nodes = flat(getattr(args, "tree_nodes", None)) or ([best.tree_nodes] if args.k is None else [0])
    widths = flat(getattr(args, "tree_width", None)) or [best.tree_width]
    verify = getattr(args, "verify_dtypes", None)
    shapes = [parse_shape(text) for text in flat(getattr(args, "shapes", None)) or []]
    return BenchConfig(
        draft_shapes=shapes, 
        tree_nodes=nodes, tree_widths=widths, verify_dtypes=flat(verify) or [],
        tree_lookup=best.lookup_for(args.k, getattr(args, "tree_nodes", None), getattr(args, "tree_lookup", None)),
        pair=args.pair, proposers=flat(args.proposers) or [], ks=ks, temperatures=flat(args.temperatures),
        suites=flat(args.suites) or [], prompts_per_suite=args.prompts_per_suite, max_new_tokens=args.max_new_tokens,
        repeats=args.repeats, warmup=args.warmup, threads=args.threads or None, policies=flat(args.policies),
        policy_k=args.policy_k, policy_temperatures=flat(args.policy_temperatures), threshold=args.threshold,
        hf=args.hf, clock=args.clock, record_overhead=not args.no_record_overhead,
        proposer_settings=registry.settings_from_args(args), seed=args.seed,
        device=getattr(args, "device", None), dtype=getattr(args, "dtype", None),
    )


def command_line(config: BenchConfig, out: str | None = None) -> str:
    """The command that reproduces a run with this configuration, all but `cost_repeats` (the timing rounds of c
    and the verify curve), which no flag sets: a config that changes them (the GPU check: 10, 3 in its rehearsal;
    the Speedup lab's live sweep: 5) records a command that, typed, times 15 (`report.GpuCheckRun` says so for the
    GPU check's runs)."""
    # a pair or folder with a space (or a shell character) quoted, so the command typed runs that path
    parts = ["python -m specviz bench", f"--pair {shlex.quote(config.pair)}",
             "--proposers " + " ".join(config.proposers)]
    if config.draft_shapes:
        parts.append("--shapes " + " ".join(":".join(map(str, (s.k, s.tree_nodes, s.tree_width, s.tree_lookup)))
                                            for s in config.draft_shapes))
    else:
        parts.append("--k " + " ".join(map(str, config.ks)))
    if config.tree_nodes != [0] and not config.draft_shapes:
        parts += ["--tree-nodes " + " ".join(map(str, config.tree_nodes)),
                  "--tree-width " + " ".join(map(str, config.tree_widths))]
        parts += [f"--tree-lookup {config.tree_lookup}"] if config.tree_lookup else []
    parts.append("--temperatures " + " ".join(_float(t) for t in config.temperatures))
    if config.suites:
        parts.append("--suites " + " ".join(config.suites))
    parts += [f"--prompts-per-suite {config.prompts_per_suite}", f"--max-new-tokens {config.max_new_tokens}",
              f"--repeats {config.repeats}", f"--warmup {config.warmup}"]
    if config.threads is not None:
        parts.append(f"--threads {config.threads}")
    parts.append("--policies " + " ".join(config.policies))
    if config.policies != ["constant"]:
        parts.append(f"--policy-k {config.policy_k}")
        if config.policy_temperatures is not None:
            parts.append("--policy-temperatures " + " ".join(_float(t) for t in config.policy_temperatures))
        if "threshold" in config.policies:
            parts.append(f"--threshold {_float(config.threshold)}")
    parts += registry.settings_as_flags(config.proposer_settings)
    parts.append(f"--hf {config.hf}")
    if config.clock != "wall":
        parts.append(f"--clock {config.clock}")
    if config.device:
        parts.append(f"--device {config.device}")
    if config.dtype:
        parts.append(f"--dtype {config.dtype}")
    if config.verify_dtypes != ["float32", "bfloat16"]:
        parts.append("--verify-dtypes " + " ".join(config.verify_dtypes))
    if not config.record_overhead:
        parts.append("--no-record-overhead")
    if config.seed:
        parts.append(f"--seed {config.seed}")
    if out:
        parts.append(f"--out {shlex.quote(str(out))}")
    return " ".join(parts)


def _float(x: float) -> str:
    """A float as a command line writes it: short (0.7, 0) when that reads back as the same number, else every
    digit ("{:g}" keeps six: 0.1234567 would become 0.123457, another run).

    >>> _float(0.7), _float(0.0), _float(0.1234567)
    ('0.7', '0', '0.1234567')
    """
    short = f"{x:g}"
    return short if float(short) == x else repr(float(x))


def run_bench_command(args: argparse.Namespace) -> int:
    # loaded here, not at the top: the bench's flags (and `python -m specviz --help`) need neither torch nor a model
    from specviz.labs.bench.report import markdown_report
    from specviz.labs.bench.runner import run_bench
    from specviz.labs.bench.timing import pair_placement
    from specviz.models.pairs import load_pair

    config = config_from_args(args)
    # fail fast, before loading a model (minutes for a large pair): every flag, also when no --proposers is given
    # and the pair's own proposer is known only once it loads (a bad --temperatures or --suites was refused only
    # after the pair had loaded, 43rd read)
    config.check(proposer_later=not config.proposers)
    check_writable(args.out)  # before the benchmark, not after an hour of it
    pair = load_pair(config.pair, device=config.device, dtype=config.dtype,
                     progress=lambda msg: print(msg, file=sys.stderr))
    config.proposers = config.proposers or [pair.default_proposer]
    # the dtype the machine's default chose, in the recorded command: typed anywhere, it measures in this dtype
    config.dtype = config.dtype or pair_placement(pair)["dtype"]
    if not shape_given(args):  # the shape predicted fastest on this machine for the run's lowest temperature
        shape, measured = default_shape(pair, min(config.temperatures), config.proposers)
        config.draft_shapes = [shape]
        recommended = "the pair's recommended" if shape.tree_nodes or not recommended_for(config.pair).tree_nodes \
            else "the chain of the pair's recommended K (this proposer drafts no tree)"
        print(f"draft shape for this machine: {shape.shown()} (python -m specviz calibrate shows why)" if measured
              else f"draft shape: {shape.shown()}, {recommended} (no shape table for this pair and proposer)",
              file=sys.stderr)
    config.check()
    short = prompts_run_note(config.suites, config.prompts_per_suite)
    if short is not None:  # each suite gives what it holds: said, not silently fewer than the flag asked for
        print(short, file=sys.stderr)
    bar = tqdm(total=1, file=sys.stderr, unit="run", dynamic_ncols=True)

    def progress(done: int, total: int, label: str) -> None:
        bar.total = total
        bar.set_postfix_str(label[:60])
        bar.update(done - bar.n)

    try:
        result = run_bench(config, command=command_line(config, args.out), progress=progress, pair=pair)
    finally:
        bar.close()
    paths = result.save(args.out)
    print(markdown_report(result))
    print("results written to " + ", ".join(str(p) for p in paths.values()), file=sys.stderr)
    return 0


def default_shape(pair, temperature: float, proposers: Sequence[str]):
    """The draft shape a bench with no shape flag runs, and whether this machine's calibration chose it: the shape
    predicted fastest here for the run's proposer (the pair's own when it runs several), or, for a proposer the
    pair's shape table did not measure, the pair's recommended shape, as `generate` and `compare` run it
    (`specviz.cli.machine_shape`); for a proposer that drafts no tree (n-gram lookup), the chain of its K, which is
    what the engine runs (read 44: the bench announced the recommended tree for n-gram lookup, as `calibrate` does
    not).

    >>> from types import SimpleNamespace
    >>> default_shape(SimpleNamespace(name="default", default_proposer="eagle"), 0.0, ["ngram"])
    (DraftShape(k=4, tree_nodes=0, tree_width=4, tree_lookup=0), False)
    >>> default_shape(SimpleNamespace(name="default", default_proposer="eagle"), 0.0, ["layerskip"])
    (DraftShape(k=4, tree_nodes=16, tree_width=4, tree_lookup=8), False)
    """
    from specviz.labs.shape_choice import choose_shape, table_for
    from specviz.models.catalog import recommended_for

    proposer = proposers[0] if len(set(proposers)) == 1 else pair.default_proposer
    if table_for(pair.name, proposer) is None:
        shape = recommended_for(pair.name).shape
        return (shape if registry.can_branch(proposer) else DraftShape(shape.k)), False
    return choose_shape(pair, temperature, proposer=proposer), True


def shape_given(args: argparse.Namespace) -> bool:
    """Whether the flags name any part of the draft shape (K, tree nodes, width, lookup branch, explicit shapes)."""
    return any(getattr(args, name, None) is not None
               for name in ("k", "tree_nodes", "tree_width", "tree_lookup", "shapes"))


def parse_shape(text: str) -> DraftShape:
    """A --shapes entry, K:NODES:WIDTH:LOOKUP (trailing parts may be left out: 3 is a chain of K = 3).

    >>> parse_shape("3:6:4:8").label(), parse_shape("2").label()
    ('tree 6x4 depth 3 + lookup 8', 'chain K=2')
    """
    parts = str(text).split(":")
    try:
        if not 1 <= len(parts) <= 4:
            raise ValueError
        values = [plain_int(p) for p in parts] + [0, 4, 0][len(parts) - 1:]
    except ValueError:
        raise ValueError("--shapes takes K:NODES:WIDTH:LOOKUP, whole numbers in range "
                         f"(got '{shortened(str(text))}').") from None
    k, nodes, width, lookup = values
    if lookup and not nodes:  # read 47: "whole numbers in range" for 2:0:4:8, whose numbers all are
        raise ValueError(f"--shapes {shortened(str(text))}: a lookup branch (LOOKUP {lookup}) needs a tree: give "
                         "NODES above 0, or LOOKUP 0.")
    for name, value, (lo, hi) in (("K", k, K_RANGE), ("NODES", nodes, TREE_NODES_RANGE),
                                  ("WIDTH", width, TREE_WIDTH_RANGE), ("LOOKUP", lookup, TREE_LOOKUP_RANGE)):
        if not lo <= value <= hi:
            raise ValueError(f"--shapes {shortened(str(text))}: {name} must be a whole number from {lo} to {hi} "
                             f"(got {with_minus(shortened(str(value)))}).")
    if nodes > tree_holds(k, width):  # read 55: 1:64:8 ran trees of 8 nodes, labelled 64, without a word
        raise ValueError(f"--shapes {shortened(str(text))}: NODES {nodes} is more than a tree {k} deep and {width} "
                         f"wide can hold ({tree_holds(k, width)}): give at most {tree_holds(k, width)}, or a larger K "
                         "or WIDTH.")
    return DraftShape(*values)


def check_writable(folder: str) -> None:
    """A ValueError with one sentence unless the results can be written into `folder` (created if missing)."""
    path = Path(folder)
    try:  # a name past the system's limit cannot even be looked at (read 50: "File name too long", exit code 1)
        if path.exists() and not path.is_dir():  # mkdir's own reason, "File exists", reads as if the results did
            raise ValueError(f"Cannot write the results to '{shortened(folder, 200)}': it is a file, not a folder.")
        # none left behind, refused or not: the bench may be refused later (a pair, a flag known once it loads), and
        # BenchResult.save makes the folder it writes into
        with folders_made_for(path, keep=False), tempfile.NamedTemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise ValueError(f"Cannot write the results to '{shortened(folder, 200)}': "
                         f"{exc.strerror or 'not a writable folder'}.") \
            from None
