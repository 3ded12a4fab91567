"""Run the Playground's chain presets as its buttons set them up and record what they kept.

    python -m specviz.scripts.preset_runs --dtype bfloat16 --first-load
    python -m specviz.scripts.preset_runs --dtype float32

Each chain preset (`specviz.runs.presets.CHAIN_PRESETS`: copying text, a question, the same with sampling, an
untrained draft) runs through `specviz.runs.running.run`, the entry point the Playground uses, with the settings its
button puts into the form (`preset_spec`: 48 new tokens, chat template on), once per seed in `PRESET_SEEDS` (seed 0
for the greedy ones, 0 to 4 for those at T = 0.7). For each preset and seed the file records drafts made and kept,
tokens emitted, target passes, tokens per pass (the recovered or bonus token included) and why the run stopped; for
the run, the command (with the dtype the run took named, as `python -m specviz bench` names it), dtype, date,
commit and machine (as the bench records it). The run goes into
`runs[<dtype>]` of `--out` (default assets/benchmarks/presets/presets.json); the other dtypes' runs stay.
`--first-load` also times the Playground's first load of the pair in a fresh process whose $SPECVIZ_CACHE is an
empty temporary folder (the offline model's conversion), then a second load there. The Playground's preset texts
and its first hint read the file.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.core.paths import SOURCE_ROOT, write_text_atomically
from specviz.engine.limits import DEFAULT_DTYPE_RULE, dtype_arg
from specviz.scripts import recorded_command
from specviz.runs.presets import (CHAIN_PRESETS, PRESET_PAIR, PRESET_RESULTS, PRESET_SEEDS, SCHEMA, SCHEMA_VERSION,
                                  preset_spec)

# timed in a fresh process (imports done first, as 9d06235 timed load_default_target): the first load converts the
# offline model into the empty cache; the second reads the converted copy
FIRST_LOAD_CODE = """\
import json, sys, time
from specviz.labs.bench.timing import load_average
from specviz.models.pairs import load_pair
load = load_average()
t0 = time.perf_counter(); load_pair(sys.argv[1], dtype=sys.argv[2] or None); t1 = time.perf_counter()
load_pair(sys.argv[1], dtype=sys.argv[2] or None); t2 = time.perf_counter()
print(json.dumps({"first_seconds": round(t1 - t0, 2), "later_seconds": round(t2 - t1, 2), "load_average_start": load}))
"""


def preset_counts(trace) -> dict[str, Any]:
    """What one run of a preset did: drafts made and kept, tokens emitted, target passes, their ratio, the stop."""
    return {"drafted": trace.num_drafted, "accepted": trace.num_accepted, "tokens": trace.num_tokens,
            "target_passes": trace.num_steps, "mean_accepted_length": round(trace.mean_accepted_length, 4),
            "stop_reason": str(trace.stop_reason)}


def run_presets(pair, pair_name: str = PRESET_PAIR, names: Sequence[str] = tuple(CHAIN_PRESETS)) -> dict[str, Any]:
    """Each preset over its seeds on the loaded `pair`: {name: {"spec": the RunSpec at seed 0, "seeds": [...]}}."""
    from specviz.runs.running import run

    presets = {}
    for name in names:
        rows = []
        for seed in PRESET_SEEDS[name]:
            trace = run(preset_spec(name, seed=seed, pair=pair_name), pair=pair)
            rows.append({"seed": seed, **preset_counts(trace)})
            print(f"{name} seed {seed}: {rows[-1]['accepted']} of {rows[-1]['drafted']} drafts kept, "
                  f"{rows[-1]['tokens']} tokens in {rows[-1]['target_passes']} target passes "
                  f"({rows[-1]['mean_accepted_length']:.2f} per pass), stop: {rows[-1]['stop_reason']}", flush=True)
        spec = asdict(preset_spec(name, pair=pair_name))
        spec["proposer_settings"] = dict(spec["proposer_settings"])
        presets[name] = {"spec": spec, "seeds": rows}
    return presets


def time_first_load(pair_name: str, dtype: str | None) -> dict[str, Any]:
    """The pair's load in a fresh process with an empty temporary $SPECVIZ_CACHE, then again in that process."""
    with tempfile.TemporaryDirectory(prefix="specviz-cache-") as cache:
        env = {**os.environ, "SPECVIZ_CACHE": cache}
        done = subprocess.run([sys.executable, "-c", FIRST_LOAD_CODE, pair_name, dtype or ""], env=env,
                              capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"the timed load failed:\n{done.stderr[-2000:]}")
    timing = json.loads(done.stdout.strip().splitlines()[-1])
    what = (f"load_pair({pair_name!r}, dtype={dtype!r}) in a fresh python process with an empty temporary "
            "SPECVIZ_CACHE (first), then once more in that process (later)")
    return {"what": what, **timing}


def git_commit() -> dict[str, Any]:
    """The commit the code ran at, and whether tracked files had changes not committed."""
    root = SOURCE_ROOT
    if root is None:  # an installed copy without its checkout: no commit to name
        return {"commit": None, "clean": False}

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                                  check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""

    commit = git("rev-parse", "--short=12", "HEAD")
    changed = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit or None, "clean": bool(commit) and not changed}


def earlier_runs(path: Path, pair: str | None = None) -> dict | str:
    """The file's runs so far ({} when there is no file), or the sentence that says why it cannot be kept: a folder,
    an unreadable file, one that is not a preset file or (with `pair`) one that holds another pair's runs would
    otherwise lose its other dtypes' runs, or the new run, after minutes of runs."""
    if not path.exists():
        return {}
    try:
        whole = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not valid JSON"
        return f"cannot read '{path}' ({reason}); its other dtypes' runs would be lost: fix or move it first."
    if not isinstance(whole, dict) or not isinstance(whole.get("runs", {}), dict):
        return f"'{path}' is not a preset results file (no runs object): name another --out."
    if pair is not None and whole.get("pair", pair) != pair:
        return f"'{path}' holds the {whole['pair']} pair's runs, which a {pair} run would replace: name another --out."
    return whole


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.preset_runs",
                                     description=__doc__.split("\n")[0],
                                     formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--pair", default=PRESET_PAIR, help="default: default (the Playground's presets set it)")
    parser.add_argument("--dtype", type=dtype_arg, default=None,
                        help=f"default: the machine's, as the Playground: {DEFAULT_DTYPE_RULE}")
    parser.add_argument("--first-load", action="store_true",
                        help="also time the pair's first load with an empty temporary $SPECVIZ_CACHE")
    parser.add_argument("--out", type=Path, default=PRESET_RESULTS,
                        help="the file whose runs[<dtype>] this run replaces, the other dtypes' runs kept (default: "
                             "the committed assets/benchmarks/presets/presets.json)")
    args = parser.parse_args(argv)
    if args.pair != PRESET_PAIR and args.out == PRESET_RESULTS:
        parser.error(f"--pair {args.pair} needs its own --out: {PRESET_RESULTS} holds the {PRESET_PAIR} pair's runs")
    whole = earlier_runs(args.out, args.pair)  # read first: a damaged file stops here, not after the runs
    if isinstance(whole, str):
        print(f"preset_runs: {whole}", file=sys.stderr)
        return 2
    from specviz.labs.bench.timing import load_average, machine_info, pair_placement, utc_now
    from specviz.models.machine import dtype_name
    from specviz.models.pairs import load_pair

    typed = list(argv) if argv is not None else sys.argv[1:]
    loading = time_first_load(args.pair, args.dtype) if args.first_load else None
    if loading:
        print(f"first load {loading['first_seconds']:.1f} s, later {loading['later_seconds']:.1f} s "
              f"(load average {loading['load_average_start']})", flush=True)
    machine = machine_info()
    pair = load_pair(args.pair, dtype=args.dtype)
    machine.update(pair_placement(pair))
    dtype = dtype_name(pair.dtype)
    presets = run_presets(pair, args.pair)
    machine["load_average_end"] = load_average()
    # the dtype the machine's default chose, named: typed on a machine with another default it runs this dtype again
    command = recorded_command("python -m specviz.scripts.preset_runs", typed, {"--dtype": dtype})
    record = {"command": command, "dtype": dtype, "date": utc_now(), **git_commit(), "machine": machine,
              "presets": presets, **({"first_load": loading} if loading else {})}
    runs = {**whole.get("runs", {}), dtype: record}
    whole = {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "pair": args.pair,
             "runs": {key: runs[key] for key in sorted(runs)}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(args.out, json.dumps(whole, indent=1, ensure_ascii=False) + "\n")
    print(f"{dtype} run written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
