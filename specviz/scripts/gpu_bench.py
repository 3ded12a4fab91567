"""Benchmark real pairs on a GPU: `python -m specviz.scripts.gpu_bench` writes tokens/s, acceptance rate and speedup.

    python -m specviz.scripts.gpu_bench                          # the catalog's GPU pairs found in the HF cache
    python -m specviz.scripts.gpu_bench --pair qwen2.5-0.5b-7b   # one catalog pair
    python -m specviz.scripts.gpu_bench --pair TARGET,DRAFT --device cpu --out bench.json   # any two folders/ids

For each pair and each temperature (greedy 0 and sampled 0.7 by default), every prompt is generated twice in
the same run: target-only (specviz's `autoregressive_generate`) and speculative (`speculative_generate`), same
settings and seed, after one short untimed warm-up per pair. Speedup is speculative tokens/s over target-only
tokens/s, measured on this machine in this run. Traces are recorded without per-token details (`record=False`)
so recording does not slow either side. Nothing is downloaded that the cache lacks unless a pair is named. The JSON
records the command with the defaults the run resolved (tokens, temperatures, prompts; for one pair its K and dtype).

For the prepared run on a GPU machine (the offline pair, identity and exactness checks, the bench in the Speedup
lab's format, all within a time budget), use `python -m specviz.scripts.gpu_check` instead.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

import torch

from dataclasses import replace

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.core.i18n import with_minus
from specviz.models.catalog import CatalogEntry, load_catalog
from specviz.engine.limits import (DEVICE_HELP, DTYPE_HELP, K_RANGE, MAX_NEW_TOKENS_CAP, MAX_NEW_TOKENS_RANGE,
                                   TEMPERATURE_RANGE, dtype_arg, number_arg, whole_arg, writable_file_arg)
from specviz.models.loading import detect_machine, hub_cache_dir
from specviz.models.pairs import load_pair
from specviz.runs.running import prompt_ids, proposer_for, run, run_target_only
from specviz.runs.runspec import RunSpec
from specviz.scripts import recorded_command

SCHEMA = "specviz-gpu-bench/1"
BASELINE = "specviz target-only decoding (autoregressive_generate), same prompt, settings and seed, same run"
PROMPTS = (
    "Explain in three sentences why the sky is blue.",
    "Write a Python function that returns True when a number is prime, with a docstring.",
    "Summarise the plot of Romeo and Juliet in one paragraph.",
    "List five tips for writing clear technical documentation.",
)


def cached_gpu_pairs(catalog: dict[str, CatalogEntry]) -> list[CatalogEntry]:
    """The catalog's GPU pairs whose models all have a config and weights in the local Hugging Face cache."""
    return [e for e in catalog.values() if e.device in ("gpu", "multi-gpu") and all(is_cached(m.id) for m in e.models)]


def is_cached(repo_id: str) -> bool:
    """True when the local Hub cache holds a snapshot of `repo_id` with a config and weight files."""
    from huggingface_hub import try_to_load_from_cache

    config = try_to_load_from_cache(repo_id, "config.json", cache_dir=hub_cache_dir())
    if not isinstance(config, str):
        return False
    snapshot = Path(config).parent
    return any(snapshot.glob("*.safetensors")) or any(snapshot.glob("*.bin"))


def bench_pair(spec: str, *, k: int | None, max_new_tokens: int, temperatures: Sequence[float],
               prompts: Sequence[str], device: str | None, dtype: str | None, seed: int = 0) -> dict:
    """Load one pair and time target-only vs speculative decoding on every prompt at every temperature."""
    say = lambda msg: print(msg, file=sys.stderr)  # noqa: E731
    pair = load_pair(spec, device=device, dtype=dtype, progress=say)
    entry = load_catalog().get(spec)
    k = k or (entry.k if entry else 4)
    settings = [RunSpec(pair=spec, proposer=pair.default_proposer, prompt=p, k=k, max_new_tokens=max_new_tokens)
                for p in prompts]
    proposer = proposer_for(settings[0], pair)
    warm = replace(settings[0], max_new_tokens=4)  # warm-up: allocations, kernel choice
    run(warm, pair=pair, proposer=proposer, record=False)
    run_target_only(warm, pair=pair, record=False)
    runs = []
    for temperature in temperatures:
        for index, prompt_spec in enumerate(settings):
            case = replace(prompt_spec, temperature=temperature, seed=seed + index)
            ids = prompt_ids(case, pair)
            base = run_target_only(case, pair=pair, input_ids=ids, record=False)
            spec_trace = run(case, pair=pair, input_ids=ids, proposer=proposer, record=False)
            runs.append({
                "temperature": temperature, "prompt_index": index, "prompt_tokens": len(ids),
                "target_only_tokens": base.num_tokens, "target_only_seconds": base.wall_seconds,
                "target_only_tokens_per_s": base.tokens_per_second,
                "speculative_tokens": spec_trace.num_tokens, "speculative_seconds": spec_trace.wall_seconds,
                "speculative_tokens_per_s": spec_trace.tokens_per_second,
                "speedup": spec_trace.tokens_per_second / base.tokens_per_second,
                "acceptance_rate": spec_trace.acceptance_rate, "accepted": spec_trace.num_accepted,
                "drafted": spec_trace.num_drafted, "mean_accepted_length": spec_trace.mean_accepted_length,
                "target_forwards": spec_trace.num_steps,
                "greedy_identical": base.output_ids == spec_trace.output_ids if temperature == 0 else None,
            })
            say(f"{pair.name} T={temperature} prompt {index}: {runs[-1]['speedup']:.2f}×, "
                f"acceptance rate (accepted / drafted) {spec_trace.acceptance_rate:.2f}")
    info = pair.info
    ids = [m.id for m in entry.models] if entry else [part.strip() for part in spec.split(",")]
    return {
        "pair": pair.name, "target": ids[0], "draft": ids[1] if len(ids) > 1 else None,
        "proposer": proposer.name, "k": k, "device": info.device if info else str(pair.device),
        "dtype": info.dtype if info else str(next(pair.target.parameters()).dtype).removeprefix("torch."),
        "placement": info.placement if info else "", "runs": runs,
        "summary": {str(t): summarise([r for r in runs if r["temperature"] == t]) for t in temperatures},
    }


def summarise(runs: list[dict]) -> dict:
    """Totals over prompts: tokens over seconds for each side, accepted over drafted."""
    base_tps = sum(r["target_only_tokens"] for r in runs) / sum(r["target_only_seconds"] for r in runs)
    spec_tps = sum(r["speculative_tokens"] for r in runs) / sum(r["speculative_seconds"] for r in runs)
    drafted = sum(r["drafted"] for r in runs)
    identical = [r["greedy_identical"] for r in runs if r["greedy_identical"] is not None]
    return {"target_only_tokens_per_s": base_tps, "speculative_tokens_per_s": spec_tps, "speedup": spec_tps / base_tps,
            "acceptance_rate": sum(r["accepted"] for r in runs) / drafted if drafted else None,
            "greedy_identical": all(identical) if identical else None}


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def machine_record() -> dict:
    machine = detect_machine()
    return {"gpus": [{"name": g.name, "total_gb": g.total_bytes / 1e9} for g in machine.gpus], "mps": machine.mps,
            "platform": platform.platform(), "torch": torch.__version__,
            "transformers": __import__("transformers").__version__}


def temperatures_arg(text: str) -> list[float]:
    """argparse's type for --temperatures: one or more numbers from 0 to 2, comma-separated, each once. An empty
    list ran nothing and exited 0; a temperature named twice ran twice and pooled both into one summary row.

    >>> temperatures_arg("0, 0.7")
    [0.0, 0.7]
    """
    one = number_arg(*TEMPERATURE_RANGE)
    values = [one(part.strip()) for part in text.split(",") if part.strip()]
    if not values:
        raise argparse.ArgumentTypeError(f"a number from 0 to 2, or several separated by commas (got {text!r})")
    if len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"a list that names each temperature once (got {text!r})")
    return values


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.gpu_bench", description=__doc__.splitlines()[0],
                                     formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--pair", action="append", help="catalog name or TARGET,DRAFT (repeatable; default: the "
                                                        "catalog's GPU pairs in the local Hugging Face cache)")
    parser.add_argument("--out", type=writable_file_arg, default="gpu_bench.json", help="where to write the result JSON")
    parser.add_argument("--k", type=whole_arg(*K_RANGE), default=None,
                        help="drafted tokens per step (default: the catalog's K, else 4)")
    parser.add_argument("--max-new-tokens", type=whole_arg(*MAX_NEW_TOKENS_RANGE), default=128,
                        help=f"the most new tokens per run ({MAX_NEW_TOKENS_CAP})")
    parser.add_argument("--temperatures", type=temperatures_arg, default=[0.0, 0.7],
                        help="comma-separated, each from 0 to 2 and named once; 0 = greedy (default: 0,0.7)")
    parser.add_argument("--prompts", type=int, default=len(PROMPTS), help=f"how many prompts, 1..{len(PROMPTS)}")
    parser.add_argument("--device", default=None, help=DEVICE_HELP)
    parser.add_argument("--dtype", type=dtype_arg, default=None, help=DTYPE_HELP)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    temperatures = args.temperatures
    if not 1 <= args.prompts <= len(PROMPTS):
        print(f"gpu_bench: --prompts must be a whole number from 1 to {len(PROMPTS)} "
              f"(got {with_minus(str(args.prompts))}).",
              file=sys.stderr)
        return 2
    pairs = args.pair
    if not pairs:
        cached = cached_gpu_pairs(load_catalog())
        if not cached:
            print(f"gpu_bench: no GPU pairs from the catalog are in the local Hugging Face cache ({hub_cache_dir()}); "
                  "download one with `hf download` on a machine with a GPU, or pass --pair TARGET,DRAFT.",
                  file=sys.stderr)
            return 1
        if not torch.cuda.is_available() and args.device is None:
            print("gpu_bench: this machine has no CUDA GPU; pass --device cpu to run the cached pairs anyway.",
                  file=sys.stderr)
            return 1
        pairs = [e.name for e in cached]
    results = []
    try:
        for spec in pairs:
            results.append(bench_pair(spec, k=args.k, max_new_tokens=args.max_new_tokens, temperatures=temperatures,
                                      prompts=PROMPTS[:args.prompts], device=args.device, dtype=args.dtype))
    except ValueError as exc:
        print(f"gpu_bench: {exc}", file=sys.stderr)
        return 2
    resolved = {"--max-new-tokens": args.max_new_tokens, "--temperatures": ",".join(map(str, temperatures)),
                "--prompts": args.prompts}
    if len(results) == 1:  # one pair: its K and dtype, which the catalog and the machine chose, are one flag each
        resolved.update({"--pair": pairs[0], "--k": results[0]["k"], "--dtype": results[0]["dtype"]})
    command = recorded_command("python -m specviz.scripts.gpu_bench", list(argv) if argv is not None else sys.argv[1:],
                               resolved)
    record = {"schema": SCHEMA, "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "command": command, "baseline": BASELINE, "machine": machine_record(),
              "settings": {"max_new_tokens": args.max_new_tokens, "temperatures": temperatures,
                           "prompts": list(PROMPTS[:args.prompts])}, "pairs": results}
    try:
        Path(args.out).write_text(json.dumps(record, indent=1), encoding="utf-8")
    except OSError as exc:
        print(f"gpu_bench: cannot write '{args.out}': {exc.strerror}.", file=sys.stderr)
        return 2
    for result in results:
        for t, s in result["summary"].items():
            # a timing names its dtype and device (STYLE.md), and which side is which
            print(f"{result['pair']} ({result['dtype']} on {result['device']})  T={t}: speculative "
                  f"{s['speculative_tokens_per_s']:.1f} vs target-only {s['target_only_tokens_per_s']:.1f} tokens/s, "
                  f"speedup {s['speedup']:.2f}×, acceptance rate {_fmt(s['acceptance_rate'])}")
    print(f"results written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
