"""One command that proves and measures specviz on a GPU, section by section, within a fixed time budget.

    python -m specviz.scripts.gpu_check --out DIR               # the default pair on cuda (a 480 s budget)
    python -m specviz.scripts.gpu_check --out DIR --rehearse    # the same sections, toy pair on the CPU (a 110 s budget)

Each section writes DIR/<section>.json when it starts ("running"), after each unit of work, and when it ends, with
its status: ok, failed (a check did not hold), timeout (its time cap ran out: the record holds what finished), error
(one line and the traceback's tail) or skipped. DIR/gpu_check.log gets a line per event: 8 files in all, as many as
the device tool brings back. The sections, in order:

  versions   Python, torch, CUDA, transformers and the other libraries; the GPU; which KV-cache keyword this
             transformers uses; the plan (profile, caps)
  float32    the pair loaded in float32 on the device; cached logits (one by one, K+1 at a time, after a rewind)
             against a full forward; greedy identity on held-out prompts: target-only = EAGLE = separate draft =
             `model.generate`, token for token (an algorithm check: float32 rounds finely enough that no split
             is expected, though a near-tie could still flip one, so any split fails the section and is recorded
             with the target's top-2 logit gap there)
  bfloat16   the pair loaded in bfloat16 (from_pretrained casts; the rotary frequencies stay float32); the same
             comparison, reported as numerics: where outputs part, the target's top-2 logit gap there
  bench      `python -m specviz bench`'s machinery on held-out prompts, K 3 and 4, T 0 and 0.7, in bfloat16,
             saved as DIR/bench/results.json in the Speedup lab's format (copy the folder to assets/benchmarks/)
  exactness  chi-square at T = 1 through the engine: the exact rule must pass, a broken rule (accept all) must fail
  distill    the distill data step (batched generation with features recorded) on the device: tokens per second

Time: every section has a cap (`Profile.caps`), cut to what is left of the whole `--budget` (counted from after torch
and transformers are imported): a section stops starting new work at its cap and writes what it has; a section that
does not stop is interrupted 15 s later, so a run can end up to 15 s past its budget. On a GPU machine that received
the offline target in parts (`specviz.scripts.transfer`), that target is used. The two committed runs, each on an
H200, took 257 s and 309 s (the last line of `gpu_check.log` in assets/benchmarks/default-h200-bf16*/).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.core.paths import write_text_atomically
from specviz.core.text import typed
from specviz.engine.limits import (MAX_NEW_TOKENS_CAP, MAX_NEW_TOKENS_RANGE, as_typed, finite_float, number_arg,
                                   whole_arg)
from specviz.scripts.transfer import activate

SECTIONS = ("versions", "float32", "bfloat16", "bench", "exactness", "distill")
GRACE = 15.0  # seconds a section may run past its cap before it is interrupted
MIN_SECTION = 3.0  # a section with less time than this left in the budget is skipped


@dataclass(frozen=True)
class Profile:
    """What the check runs, and how long each section may take (seconds)."""

    pair: str
    device: str
    prompts: int  # held-out prompts for the greedy comparisons
    new_tokens: int
    bench_prompts: int
    bench_tokens: int
    ks: tuple[int, ...] = (3, 4)
    temperatures: tuple[float, ...] = (0.0, 0.7)
    chi_samples: int = 300
    data_prompts: int = 128
    data_batch: int = 64
    data_tokens: int = 128
    threads: int | None = None  # torch's CPU threads (None: its default); the toy pair runs fastest on one
    cost_repeats: int = 10  # the bench's timing rounds for c and the verify curve
    budget: float = 480.0
    caps: dict[str, float] = field(default_factory=dict)


GPU = Profile("default", "cuda", prompts=4, new_tokens=64, bench_prompts=4, bench_tokens=128, budget=480.0,
              caps={"versions": 15, "float32": 150, "bfloat16": 60, "bench": 150, "exactness": 60, "distill": 45})
REHEARSAL = Profile("toy", "cpu", prompts=2, new_tokens=24, bench_prompts=2, bench_tokens=24, chi_samples=300,
                    data_prompts=8, data_batch=4, data_tokens=16, threads=1, cost_repeats=3, budget=110.0,
                    caps={"versions": 10, "float32": 20, "bfloat16": 15, "bench": 35, "exactness": 20, "distill": 10})


class SectionTimeout(Exception):
    """A section ran past its cap and its grace."""


@dataclass
class Context:
    """What the sections share: the profile, the output folder, the loaded pairs, the clock."""

    profile: Profile
    out: Path
    started: float = field(default_factory=time.monotonic)
    deadline: float = 0.0  # the running section's soft deadline (time.monotonic())
    pairs: dict[str, Any] = field(default_factory=dict)
    import_seconds: float | None = None  # torch and transformers, imported before the first section

    def budget_left(self) -> float:
        return self.profile.budget - (time.monotonic() - self.started)

    def time_left(self) -> float:
        return self.deadline - time.monotonic()


class Record(dict):
    """A section's JSON, written to DIR/<section>.json on every `save()` (atomically: a reader never sees half)."""

    def __init__(self, path: Path, **fields: Any):
        super().__init__(**fields)
        self.path = path

    def save(self) -> None:
        write_text_atomically(self.path, json_text(self))

    def fail(self, why: str) -> None:
        """A check did not hold: the section ends as failed, with `why` listed."""
        self["status"] = "failed"
        self.setdefault("failures", []).append(why)

    def note(self, text: str) -> None:
        self.setdefault("notes", []).append(text)


def json_text(obj: Any) -> str:
    """A record as JSON text. JSON has no nan or inf: Python writes them as NaN / Infinity, which the json module
    reads back through `parse_constant`, here as null. Anything else JSON lacks is written as its str().

    >>> json_text({"a": [float("nan"), 1.5, float("-inf")]}).split()
    ['{', '"a":', '[', 'null,', '1.5,', 'null', ']', '}']
    """
    plain = json.loads(json.dumps(obj, default=str), parse_constant=lambda constant: None)
    return json.dumps(plain, indent=1)


LOG: list[Path] = []  # where say() also writes: DIR/gpu_check.log once the output folder exists


def say(message: str) -> None:
    line = f"[gpu_check {time.strftime('%H:%M:%S')}] {message}"
    print(line, flush=True)
    for path in LOG:
        with path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")


# ---- the sections ------------------------------------------------------------------------------------------------------


def versions(ctx: Context, rec: Record) -> None:
    import importlib.metadata

    import torch
    from transformers import LlamaForCausalLM

    from specviz.engine.kvcache import cache_keyword

    libs = {}
    for name in ("torch", "transformers", "tokenizers", "safetensors", "huggingface_hub", "accelerate", "gguf",
                 "numpy", "scipy", "pandas", "PyYAML", "tqdm", "triton"):
        try:
            libs[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            libs[name] = None
    gpus = []
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(i)
            free, total = torch.cuda.mem_get_info(i)
            gpus.append({"index": i, "name": props.name, "capability": f"{props.major}.{props.minor}",
                         "multiprocessors": props.multi_processor_count, "memory_gb": total / 1e9,
                         "free_gb": free / 1e9, "bf16": torch.cuda.is_bf16_supported()})
    rec.update(python=platform.python_version(), platform=platform.platform(), cpus=os.cpu_count(), libraries=libs,
               torch_cuda=torch.version.cuda, cudnn=torch.backends.cudnn.version() if torch.cuda.is_available() else None,
               gpus=gpus, cache_keyword=cache_keyword(LlamaForCausalLM), gguf_file=os.environ.get("SPECVIZ_GGUF"),
               profile=asdict(ctx.profile), import_seconds=ctx.import_seconds)
    if ctx.profile.device.startswith("cuda") and not gpus:
        rec.fail("torch sees no CUDA GPU here; run with --rehearse (or --device cpu) on a machine without one.")


def load(ctx: Context, dtype: str):
    """The profile's pair on its device in `dtype`, loaded once per dtype (and the seconds it took)."""
    from specviz.models.pairs import load_pair

    if dtype not in ctx.pairs:
        t0 = time.perf_counter()
        pair = load_pair(ctx.profile.pair, device=ctx.profile.device, dtype=dtype, progress=say)
        ctx.pairs[dtype] = (pair, time.perf_counter() - t0)
    return ctx.pairs[dtype]


def held_out(ctx: Context, pair, n: int) -> list[list[int]]:
    from specviz.labs.bench.config import encode_bench_prompt, load_suites

    prompts = load_suites(["held-out"])[0].prompts[:n]
    return [encode_bench_prompt(pair.tokenizer, p, pair.chat) for p in prompts]


def greedy_outputs(pair, ids: list[int], new_tokens: int) -> dict[str, list[int]]:
    """Greedy new tokens by specviz target-only, the pair's EAGLE drafter (K = 4) and separate draft (K = 3) where it
    has them (not the Medusa heads), and `model.generate`."""
    from specviz.labs.bench.cases import hf_generate
    from specviz.runs.running import run, run_target_only
    from specviz.runs.runspec import RunSpec

    spec = RunSpec(pair=pair.name, prompt="(held-out prompt)", max_new_tokens=new_tokens, temperature=0.0)
    outputs = {"target-only": run_target_only(spec, pair=pair, input_ids=ids, record=False).output_ids}
    for name, k in (("eagle", 4), ("draft", 3)):
        if (name == "eagle" and pair.eagle) or (name == "draft" and pair.draft is not None):
            trace = run(replace(spec, proposer=name, k=k), pair=pair, input_ids=ids, record=False)
            outputs[f"{name} K={k}"] = trace.output_ids
    outputs["model.generate"] = hf_generate(pair.target, ids, max_new_tokens=new_tokens, temperature=0.0, seed=0)[0]
    return outputs


def float32(ctx: Context, rec: Record) -> None:
    import torch

    from specviz.scripts.checks import compare_outputs, incremental_vs_full

    torch.backends.cuda.matmul.allow_tf32 = False  # float32 means float32: TF32 would round to 10 bits
    torch.backends.cudnn.allow_tf32 = False
    pair, seconds = load(ctx, "float32")
    rec.update(load_seconds=seconds, device=str(pair.device), dtype=str(pair.target.dtype).removeprefix("torch."),
               proposers=[n for n, has in (("eagle", pair.eagle), ("draft", pair.draft is not None)) if has])
    rec.save()
    prompts = held_out(ctx, pair, ctx.profile.prompts)
    rec["logits"] = incremental_vs_full(pair.target, prompts[0][:48])
    if not rec["logits"]["ok"]:
        rec.fail("cached logits differ from a full forward by more than the tolerance")
    rec["prompts"] = []
    for ids in prompts:
        if ctx.time_left() < 0:
            rec.note("time cap reached: fewer prompts compared")
            break
        t0 = time.perf_counter()
        outputs = greedy_outputs(pair, ids, ctx.profile.new_tokens)
        found = compare_outputs(pair.target, ids, outputs, "target-only")
        rec["prompts"].append({"prompt_tokens": len(ids), "new_tokens": len(outputs["target-only"]),
                               "seconds": time.perf_counter() - t0, "methods": found})
        rec.save()
    same = [all(m["identical"] for m in p["methods"].values()) for p in rec["prompts"]]
    rec["identical"] = f"{sum(same)}/{len(same)}"
    if not all(same) or not same:
        rec.fail("greedy outputs differ in float32, where none has split on any prompt checked so far (an "
                 "observation, not a guarantee): see each split's top-2 logit gap")


def bfloat16(ctx: Context, rec: Record) -> None:
    from specviz.scripts.checks import compare_outputs

    pair, seconds = load(ctx, "bfloat16")
    rotary = [b for n, b in pair.target.named_buffers() if n.endswith("inv_freq")]
    rec.update(load_seconds=seconds, device=str(pair.device), dtype=str(pair.target.dtype).removeprefix("torch."),
               rotary_dtype=str(rotary[0].dtype).removeprefix("torch.") if rotary else None)
    rec.save()
    reference = ctx.pairs.get("float32", (None,))[0]
    gap_models = {"bfloat16": pair.target, **({"float32": reference.target} if reference else {})}
    rec["prompts"] = []
    for ids in held_out(ctx, pair, ctx.profile.prompts):
        if ctx.time_left() < 0:
            rec.note("time cap reached: fewer prompts compared")
            break
        outputs = greedy_outputs(pair, ids, ctx.profile.new_tokens)
        rec["prompts"].append({"prompt_tokens": len(ids), "new_tokens": len(outputs["target-only"]),
                               "methods": compare_outputs(pair.target, ids, outputs, "target-only", gap_models)})
        rec.save()
    splits = [m for p in rec["prompts"] for m in p["methods"].values() if not m["identical"]]
    rec["identical"] = f"{sum(all(m['identical'] for m in p['methods'].values()) for p in rec['prompts'])}/" \
                       f"{len(rec['prompts'])}"
    rec["splits_at_near_ties"] = f"{sum(m['near_tie'] for m in splits)}/{len(splits)}"
    rec["meaning"] = ("Lossless up to numerics: in bfloat16 two computations of one step (the verifier's K+1-token "
                      "pass, or model.generate, against specviz's one-token pass) round differently, so where the "
                      "target's two best logits nearly tie the argmax can flip. Identity is checked in float32 "
                      "(section float32).")
    if any(not m["near_tie"] for m in splits):
        rec.fail("a bfloat16 split where the target's top-2 logits do not nearly tie: not explained by rounding")
    if rec.get("rotary_dtype") not in (None, "float32"):
        if pair.name == "toy":  # built in code and cast with .to(): a random model, whose rounded rope is harmless
            rec.note("the toy pair's rotary frequencies are rounded to bfloat16 (it is cast with .to())")
        else:
            rec.fail("the rotary frequencies were rounded to the weights' dtype")


def bench(ctx: Context, rec: Record) -> None:
    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.labs.bench.cli import command_line
    from specviz.labs.bench.config import BenchConfig
    from specviz.labs.bench.runner import run_bench

    pair, _ = load(ctx, "bfloat16")
    p = ctx.profile
    proposers = [n for n, has in (("eagle", pair.eagle), ("draft", pair.draft is not None)) if has] or ["ngram"]
    config = BenchConfig(pair=p.pair, proposers=proposers, ks=list(p.ks), temperatures=list(p.temperatures),
                         suites=["held-out"], prompts_per_suite=p.bench_prompts, max_new_tokens=p.bench_tokens,
                         repeats=1, warmup=1, hf="greedy", record_overhead=False, cost_repeats=p.cost_repeats,
                         device=p.device, dtype="bfloat16")
    command = command_line(config, f"{BENCHMARKS_DIR.parent.name}/{BENCHMARKS_DIR.name}/<machine>")
    rec.update(command=command)
    rec.save()
    done = []

    def progress(n: int, total: int, label: str) -> None:
        done[:] = [n, total]

    result = run_bench(config, command=command, progress=progress, pair=pair,
                       deadline=time.monotonic() + max(0.0, ctx.time_left()))
    folder = ctx.out / "bench"
    folder.mkdir(exist_ok=True)
    path = folder / "results.json"
    path.write_text(json.dumps(result.to_dict(), indent=1, ensure_ascii=False), encoding="utf-8")
    rows = [{k: r[k] for k in ("proposer", "k", "temperature", "speedup_vs_ar", "speedup_vs_hf_generate",
                               "mat_with_bonus", "acceptance_rate", "tokens_per_second", "identical_count")}
            for r in result.summary if r["suite"] == "all"]
    rec.update(results=str(path.relative_to(ctx.out)), runs=done, machine={k: result.machine.get(k) for k in
               ("gpu", "device", "dtype", "torch", "transformers")}, summary=rows, notes=result.notes,
               verify_cost=[v["ratio"] for v in result.costs["verify"]], c=result.costs["c"])
    if not rows:
        rec.fail("no case finished within the time cap")


def exactness(ctx: Context, rec: Record) -> None:
    from specviz.engine.proposers import make_proposer
    from specviz.scripts.checks import exactness_check

    pair, _ = load(ctx, "float32")  # float32: the test is about the rule, not about rounding
    proposer = make_proposer(pair, "eagle" if pair.eagle else None)  # the default pair's proposer, on both pairs
    rec.update(proposer=proposer.name, temperature=1.0, dtype="float32")
    rec.update(exactness_check(pair.target, proposer, held_out(ctx, pair, 4), n=ctx.profile.chi_samples,
                               deadline=time.monotonic() + max(0.0, ctx.time_left()), progress=partial(rec)))
    failure = exactness_failure(rec["exact"], rec[rec["broken_rule"]])
    if failure is not None:
        rec.fail(failure)


def exactness_failure(exact: dict[str, Any], control: dict[str, Any]) -> str | None:
    """Why the exactness section fails (None when it holds): the exact rule's test and its broken control's, each a
    `specviz.scripts.checks.exactness_check` result naming the test that ran (`checks.verdict_record`; a record from
    before read 54 names none: a chi-square test where it has degrees of freedom). A p-value is written as every
    verdict writes it (`shown_p_value`: read 47, `:.2g` wrote 0.000996 as 0.001)."""
    from specviz.labs.exactness.stats import shown_p_value

    def test(result: dict[str, Any]) -> str | None:  # the record's "test"; a record from before read 54: its dof
        return result["test"] if "test" in result else "chi-square" if result.get("dof") else None

    if test(exact) is None or test(control) is None:
        return "too few samples within the time cap for a test"
    if test(exact) == "impossible outcome":
        return "the exact rule drew an outcome the target gives probability 0"
    if not exact["consistent"]:
        return f"the exact rule failed the {test(exact)} test (p = {shown_p_value(exact['p_value'])})"
    if test(exact) != "chi-square":  # read 54: an exact binomial test tries the most likely outcome alone
        return (f"the exact rule was tested on its most likely outcome alone (exact binomial test, p = "
                f"{shown_p_value(exact['p_value'])}): too few samples within the time cap for a chi-square test")
    if control["consistent"]:
        return (f"the broken control passed the {test(control)} test (p = {shown_p_value(control['p_value'])}): the "
                "test could not tell a broken rule from the exact one here")
    return None


def partial(rec: Record) -> Callable[[dict[str, Any]], None]:
    """A progress callback that merges what a long check has so far into the section's file."""
    def update(found: dict[str, Any]) -> None:
        rec.update(found)
        rec.save()
    return update


# The data step's time on the CPU, as the drafts' cards record it (neither card records the machine; docs/gpu.md
# places both runs in this project's 2-core sessions, docs/drafts.md the six-stage one);
# tests/scripts/test_gpu_check.py reads each figure back from the card it names
CPU_REFERENCE = ("41 min for the first data step (3,000 + 64 prompts, up to 128 tokens: "
                 "assets/models/smollm2-draft/README.md) and 146 min for the six-stage one "
                 "(assets/models/smollm2-eagle/README.md), each in a 2-core CPU session")


def distill(ctx: Context, rec: Record) -> None:
    from specviz.scripts.checks import data_throughput

    pair, _ = load(ctx, "bfloat16")  # what `python -m specviz.distill data` uses on a GPU
    p = ctx.profile
    rec.update(data_throughput(pair.target, pair.tokenizer, prompts=p.data_prompts, batch_size=p.data_batch,
                               max_new_tokens=p.data_tokens, deadline=time.monotonic() + max(0.0, ctx.time_left()),
                               progress=partial(rec)))
    rec["cpu_reference"] = CPU_REFERENCE
    if not rec["batches"]:
        rec.fail("no batch finished within the time cap")


RUNNERS: dict[str, Callable[[Context, Record], None]] = {
    "versions": versions, "float32": float32, "bfloat16": bfloat16, "bench": bench, "exactness": exactness,
    "distill": distill}


# ---- running the sections ------------------------------------------------------------------------------------------------


def _interrupt(signum, frame):
    raise SectionTimeout()


def run_section(name: str, ctx: Context) -> Record:
    cap = min(ctx.profile.caps.get(name, 60.0), ctx.budget_left())
    rec = Record(ctx.out / f"{name}.json", section=name, status="running", cap_seconds=round(cap, 1),
                        started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    if cap < MIN_SECTION:
        rec.update(status="skipped", reason="the budget was spent before this section")
        rec.save()
        return rec
    rec.save()
    say(f"{name}: started (cap {cap:.0f} s)")
    t0 = time.monotonic()
    ctx.deadline = t0 + cap
    previous = signal.signal(signal.SIGALRM, _interrupt)
    signal.setitimer(signal.ITIMER_REAL, cap + GRACE)
    try:
        RUNNERS[name](ctx, rec)
        if rec["status"] == "running":
            rec["status"] = "ok"
    except SectionTimeout:
        rec.update(status="timeout", reason=f"interrupted {GRACE:g} s after its {cap:.0f} s cap; what it had recorded "
                                            "by then is kept")
    except Exception as exc:  # one section's failure must not cost the others their minutes
        rec.update(status="error", error=f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}",
                   traceback=traceback.format_exc().splitlines()[-12:])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    rec["seconds"] = round(time.monotonic() - t0, 2)
    rec.save()
    say(f"{name}: {rec['status']} in {rec['seconds']:.1f} s" + (f" ({'; '.join(rec['failures'])})"
                                                                if rec.get("failures") else "")
        + (f" ({rec['error']})" if rec.get("error") else ""))
    return rec


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.gpu_check", description=__doc__.splitlines()[0],
                                     formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--out", required=True, type=Path, help="folder for <section>.json and bench/results.json")
    parser.add_argument("--rehearse", action="store_true", help=f"the toy pair on the CPU (a {REHEARSAL.budget:g} s budget)")
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated, of {', '.join(SECTIONS)}")
    parser.add_argument("--budget", type=number_arg(MIN_SECTION, 86400.0), default=None,
                        help="seconds for all sections (default: the profile's)")
    parser.add_argument("--cap-scale", type=finite_float, default=1.0,
                        help="multiply every section's cap and the budget (a busy machine: make test's rehearsal "
                             "runs beside browser tests)")
    parser.add_argument("--pair", default=None, help="override the profile's pair (a catalog name: default, toy, ...)")
    parser.add_argument("--device", default=None, help="override the profile's device (cuda, cpu)")
    parser.add_argument("--prompts", type=whole_arg(1), default=None,
                        help=f"held-out prompts for the greedy comparisons (default: the profile's: {GPU.prompts}, "
                             f"{REHEARSAL.prompts} with --rehearse)")
    parser.add_argument("--max-new-tokens", type=whole_arg(*MAX_NEW_TOKENS_RANGE), default=None,
                        help=f"the most new tokens per prompt in the greedy comparisons ({MAX_NEW_TOKENS_CAP}) "
                             f"(default: the profile's: {GPU.new_tokens}, "
                             f"{REHEARSAL.new_tokens} with --rehearse)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):  # the GPU machine reaches no hub: never wait for one
        os.environ.setdefault(var, "1")
    received = activate()  # before transformers is imported: it looks for gguf once
    profile = REHEARSAL if args.rehearse else GPU
    overrides = {k: v for k, v in {"pair": args.pair, "device": args.device, "prompts": args.prompts,
                                   "new_tokens": args.max_new_tokens, "budget": args.budget}.items() if v is not None}
    profile = replace(profile, **overrides)
    if not 1.0 <= args.cap_scale <= 10.0:
        # quoted as typed, as --budget's refusal is (read 54: 1e-400 read "(got 0)", 1e9 "(got 1e+09)", -1 an ASCII -)
        given = typed(as_typed(args.cap_scale) or f"{args.cap_scale:g}", marks=False)
        print(f"gpu_check: --cap-scale must be a number from 1 to 10 (got {given}).", file=sys.stderr)
        return 2
    if args.cap_scale != 1.0:
        profile = replace(profile, budget=profile.budget * args.cap_scale,
                          caps={name: cap * args.cap_scale for name, cap in profile.caps.items()})
    names = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = [s for s in names if s not in SECTIONS]
    if not names:  # no section would run, and a check that ran nothing would report success
        print(f"gpu_check: --sections names none: choose from {', '.join(SECTIONS)}.", file=sys.stderr)
        return 2
    if unknown:
        print(f"gpu_check: unknown section '{unknown[0]}': choose from {', '.join(SECTIONS)}.", file=sys.stderr)
        return 2
    from specviz.labs.bench.config import held_out_texts  # after activate: it needs the received packages

    size = len(held_out_texts())
    if args.prompts is not None and args.prompts > size:  # it ran the whole suite and recorded the N asked for
        print(f"gpu_check: --prompts must be from 1 to {size}, the prompts in the held-out suite (got {args.prompts}).",
              file=sys.stderr)
        return 2
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"gpu_check: cannot write to '{args.out}': {exc.strerror}.", file=sys.stderr)
        return 2
    LOG[:] = [args.out / "gpu_check.log"]
    if received:
        say("using the received offline target: " + ", ".join(f"{k}={v}" for k, v in received.items()))
    # The libraries every section uses, imported once before any section's cap starts: on a loaded 2-core machine (a
    # rehearsal beside 30 browser tabs) the versions section, importing transformers cold, was still running when it
    # was interrupted at 25 s (its 10 s cap plus GRACE). The section's own work is then mostly what it still imports
    # itself, transformers' Llama model code (loaded lazily): 1.8 and 1.9 s in two rehearsals (`--rehearse --sections
    # versions`) on the 2-core AMD EPYC, 2026-12-05 19:22 UTC, load average about 2.
    t0 = time.monotonic()
    import torch
    import transformers  # noqa: F401

    imported = time.monotonic() - t0
    if profile.threads:
        torch.set_num_threads(profile.threads)
    ctx = Context(profile, args.out, import_seconds=imported)
    say(f"torch and transformers imported in {imported:.1f} s")
    say(f"{'rehearsal' if args.rehearse else 'GPU check'}: pair {profile.pair} on {profile.device}, sections "
        f"{', '.join(names)}, budget {profile.budget:.0f} s; results in {args.out}")
    results = {}
    for name in SECTIONS:
        if name not in names:
            continue
        if name != "versions" and results.get("versions", {}).get("status") == "failed":
            rec = Record(ctx.out / f"{name}.json", section=name, status="skipped",
                                reason="the versions section found no usable device")
            rec.save()
            results[name] = rec
            continue
        results[name] = run_section(name, ctx)
    total = time.monotonic() - ctx.started
    say("summary: " + ", ".join(f"{n} {r['status']}" for n, r in results.items()) + f"; {total:.0f} s in all")
    return 0 if all(r["status"] == "ok" for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
