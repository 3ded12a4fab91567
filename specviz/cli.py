"""The command line: `python -m specviz generate | compare | bench | serve`.

    python -m specviz generate --prompt "Why is the sky blue?"
    python -m specviz compare --prompt "Why is the sky blue?" --k 4

A mistake a user can make (a bad flag value, an unknown pair) ends with one sentence on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace

from specviz.bench import add_bench_arguments, run_bench_command
from specviz.limits import K_RANGE, MAX_NEW_TOKENS_RANGE, PROPOSERS
from specviz.runspec import RunSpec
from specviz.serving.cli import add_serve_arguments, run_serve_command
from specviz.text import visible
from specviz.trace import Step, TokenKind, Trace

# The modules that load torch and transformers (specviz.running, specviz.models) are imported inside the commands
# that run a model, so `--help` and a bad flag answer at once.

GLYPHS = {TokenKind.ACCEPTED: "✓", TokenKind.REJECTED: "✗", TokenKind.RECOVERED: "↻", TokenKind.BONUS: "★",
          TokenKind.TARGET: "•"}
COLORS = {TokenKind.ACCEPTED: "32", TokenKind.REJECTED: "31;9", TokenKind.RECOVERED: "33", TokenKind.BONUS: "36",
          TokenKind.TARGET: "0"}  # ANSI


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m specviz", description="See speculative decoding, step by step.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, help_text in (("generate", "generate with speculative decoding and show every step"),
                            ("compare", "target-only vs speculative decoding, same settings, timed back to back")):
        cmd = commands.add_parser(name, help=help_text)
        add_generation_flags(cmd)
        if name == "generate":
            cmd.add_argument("--json", metavar="PATH", help="write the full trace as JSON to PATH ('-' for stdout)")
            cmd.add_argument("--quiet", action="store_true", help="print only the text and the summary")
        else:
            cmd.add_argument("--no-warmup", action="store_true", help="skip the short untimed warm-up run")
    add_bench_arguments(commands.add_parser("bench", help="measure speedups over prompt suites (JSON, CSV, markdown)"))
    add_serve_arguments(commands.add_parser("serve", help="a local vLLM server: start, stop, status, load sweep"))
    return parser


def add_generation_flags(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--prompt", required=True, help="the user prompt")
    cmd.add_argument("--pair", default="default",
                     help="a catalog name (default, toy, qwen2.5-0.5b-7b, ...) or TARGET[,DRAFT]: local folders or Hub ids")
    cmd.add_argument("--proposer", choices=PROPOSERS, default=None, help="who drafts (default: the pair's own)")
    cmd.add_argument("--layers", type=int, default=None, help="layers the layer-skip draft keeps (default: 1/4)")
    cmd.add_argument("--k", type=int, default=4, help=f"drafted tokens per step, {K_RANGE[0]}..{K_RANGE[1]}")
    cmd.add_argument("--max-new-tokens", type=int, default=64, help=f"{MAX_NEW_TOKENS_RANGE[0]}..{MAX_NEW_TOKENS_RANGE[1]}")
    cmd.add_argument("--temperature", type=float, default=0.0, help="0 = greedy")
    cmd.add_argument("--top-k", type=int, default=0, help="0 = off")
    cmd.add_argument("--top-p", type=float, default=1.0, help="1.0 = off")
    cmd.add_argument("--seed", type=int, default=0)
    cmd.add_argument("--tree-nodes", type=int, default=0,
                     help="draft a tree of at most this many nodes (depth K), EAGLE-2 style; 0 = a chain of K")
    cmd.add_argument("--tree-width", type=int, default=4, help="children per tree node (with --tree-nodes)")
    cmd.add_argument("--no-chat", action="store_true", help="feed the prompt as plain text, without the chat template")
    cmd.add_argument("--device", default=None, help="cpu, cuda, mps (default: the fastest available)")
    cmd.add_argument("--dtype", default=None, help="float32, float16, bfloat16 (default: auto)")
    cmd.add_argument("--trust-remote-code", action="store_true",
                     help="let the --pair models run code from their own repositories (only for models you trust)")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except ValueError as exc:
        print(f"specviz: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("specviz: interrupted.", file=sys.stderr)
        return 130


# ---- commands ----------------------------------------------------------------------------------------------------


def run_generate(args: argparse.Namespace) -> int:
    spec, pair = _prepare(args)
    from specviz.running import run
    trace = run(spec, pair=pair)
    human = sys.stderr if args.json == "-" else sys.stdout
    color = human.isatty() and not os.environ.get("NO_COLOR")
    if not args.quiet:
        for step in trace.steps:
            print(format_step(step, color), file=human)
    print(f"\n{trace.output_text}\n", file=human)
    print(format_summary(trace), file=human)
    if args.json:
        _write_json(trace, args.json)
    return 0


def run_compare(args: argparse.Namespace) -> int:
    spec_settings, pair = _prepare(args)
    from specviz.running import proposer_for, run, run_target_only
    proposer = proposer_for(spec_settings, pair)
    if not args.no_warmup:  # first calls pay one-time costs (allocations, kernel choice); keep them out of the timing
        warm = replace(spec_settings, max_new_tokens=4)
        run(warm, pair=pair, proposer=proposer)
        run_target_only(warm, pair=pair)
    baseline = run_target_only(spec_settings, pair=pair)
    spec = run(spec_settings, pair=pair, proposer=proposer)
    print(f"target-only:  {baseline.num_tokens} tokens in {baseline.wall_seconds:.2f} s "
          f"({baseline.tokens_per_second:.1f} tok/s, {baseline.num_steps} target forwards)")
    print(f"speculative:  {spec.num_tokens} tokens in {spec.wall_seconds:.2f} s "
          f"({spec.tokens_per_second:.1f} tok/s, {spec.num_steps} target forwards, proposer {proposer.name}, K={args.k})")
    print(f"speedup:      {speedup(baseline, spec):.2f}x (tokens/s, speculative vs specviz's target-only decoding, "
          f"same run)")
    print(f"acceptance:   {_fmt(spec.acceptance_rate)} accepted/drafted; "
          f"{_fmt(spec.mean_accepted_length)} tokens per target forward")
    if args.temperature == 0:
        same = baseline.output_ids == spec.output_ids
        print("greedy output identical: " + ("yes" if same else "NO (a floating-point near-tie; see README)"))
    return 0


def run_bench(args: argparse.Namespace) -> int:
    return run_bench_command(args)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"generate": run_generate, "compare": run_compare,
                                                            "bench": run_bench, "serve": run_serve_command}


# ---- helpers -----------------------------------------------------------------------------------------------------


def _prepare(args: argparse.Namespace):
    """The run's spec, checked before torch or any model loads (a bad flag answers at once), and the loaded pair."""
    spec = RunSpec(pair=args.pair, proposer=args.proposer, prompt=args.prompt, chat=not args.no_chat, k=args.k,
                   max_new_tokens=args.max_new_tokens, temperature=args.temperature, top_k=args.top_k,
                   top_p=args.top_p, seed=args.seed, layers=args.layers, tree_nodes=args.tree_nodes,
                   tree_width=args.tree_width)
    from specviz.models import load_pair  # after the checks: it loads torch and transformers

    pair = load_pair(args.pair, device=args.device, dtype=args.dtype, trust_remote_code=args.trust_remote_code,
                     progress=lambda msg: print(msg, file=sys.stderr))
    return spec, pair


def speedup(baseline: Trace, spec: Trace) -> float:
    return spec.tokens_per_second / baseline.tokens_per_second


def _write_json(trace: Trace, path: str) -> None:
    text = trace.to_json(indent=1)
    if path == "-":
        sys.stdout.write(text + "\n")
        return
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise ValueError(f"Cannot write the trace to '{path}': {exc.strerror}.") from None
    print(f"trace written to {path}", file=sys.stderr)


def _fmt(x: float, digits: int = 2) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


WHERE_FROM = {TokenKind.RECOVERED: "sampled from norm(max(0, p - q))",
              TokenKind.BONUS: "sampled from p: all drafts accepted",
              TokenKind.TARGET: "sampled from p (nothing was drafted)"}


def _paint(text: str, kind: TokenKind, color: bool) -> str:
    return f"\033[{COLORS[kind]}m{text}\033[0m" if color else text


def format_step(step: Step, color: bool = False) -> str:
    """A few lines per step: each drafted token with q, p, p/q, min(1, p/q), u and the verdict, then the
    recovered or bonus token."""
    head = (f"step {step.index + 1:>3}  context {step.context_length}  K={step.k}  "
            f"draft {step.draft_seconds * 1e3:.0f} ms  verify {step.verify_seconds * 1e3:.0f} ms  "
            f"cache target {step.target_cache_before}->{step.target_cache_after}")
    lines = [head]
    for d in step.decisions:
        verdict = ("accepted" if d.accepted else "rejected") if d.reached else "not reached (after a rejection)"
        u = f"{d.uniform:.3f}" if d.uniform is not None else "  -  "
        ratio = "inf" if math.isinf(d.ratio) else f"{d.ratio:.3f}"
        token = _paint(f"{GLYPHS[d.kind]} {visible(d.text)!r:<14}", d.kind, color)
        lines.append(f"   {token} q={d.draft_prob:.3f} p={d.target_prob:.3f} p/q={ratio:<7} "
                     f"min(1,p/q)={d.accept_prob:.3f} u={u}  {verdict}")
    last = step.emitted[-1] if step.emitted else None
    if last is not None and last.kind in WHERE_FROM:
        where = WHERE_FROM[last.kind]
        lines.append(f"   {_paint(f'{GLYPHS[last.kind]} {visible(last.text)!r:<14}', last.kind, color)} "
                     f"{last.kind}, {where}")
    return "\n".join(lines)


def format_summary(trace: Trace) -> str:
    per_pos = ", ".join(f"{x:.2f}" for x in trace.per_position_acceptance) or "n/a"
    return "\n".join([
        f"summary: {trace.num_steps} steps, {trace.num_tokens} tokens, stopped at {trace.stop_reason}",
        f"  acceptance rate       {_fmt(trace.acceptance_rate)}  (accepted / drafted = "
        f"{trace.num_accepted} / {trace.num_drafted}; stops counting at each step's first rejection)",
        f"  alpha estimate        {_fmt(trace.mean_accept_prob)}  (mean min(1, p/q) over tested drafts: "
        "E[sum min(p, q)])",
        f"  mean accepted length  {_fmt(trace.mean_accepted_length)}  (tokens per target forward, bonus included)",
        f"  per-position accept   [{per_pos}]",
        f"  speed                 {_fmt(trace.tokens_per_second, 1)} tokens/s ({trace.wall_seconds:.2f} s)",
        *low_acceptance_hint(trace),
    ])


def low_acceptance_hint(trace: Trace) -> list[str]:
    """One line of advice when the draft was almost never right (speculation then only costs time)."""
    if not trace.num_drafted or trace.acceptance_rate >= 0.1:
        return []
    return [f"  note: the draft was rarely right ({trace.num_accepted} of {trace.num_drafted} drafts kept), so each "
            f"step paid for drafting and still emitted about one token. An untrained draft (layer-skip) rarely "
            f"agrees; with the default pair try --proposer eagle (trained for it), --proposer ngram on text that "
            f"repeats the prompt, or `compare` to see the cost."]
