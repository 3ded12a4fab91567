"""The Speedup lab's benchmark: how much faster speculative decoding is on this machine, with this pair, and why.

    python -m specviz bench --pair default --proposers ngram layerskip --k 1 2 4 8 --temperatures 0 0.7

For the first --prompts-per-suite prompts (2 by default) of every suite (assets/prompts/; --suites picks some) and
every temperature, one run measures side by side, with the runs of each repeat interleaved so machine noise hits
every method alike:

  * specviz's target-only decoding (the baseline the speedup is quoted against) and `model.generate`;
  * speculative decoding for every proposer x draft-length policy x K, traces recorded off (and once on, to
    measure what recording costs);
  * transformers' own assisted generation with the same draft, for each chain of constant K (prompt lookup for
    n-gram; nothing for the EAGLE drafter and the Medusa heads, which transformers does not run);
  * the costs behind the theory: c = draft forward / target forward (1 new token, warm cache) and the verify
    cost of a target forward over 1..K+1 tokens.

Timings: warm-up runs excluded, medians over repeats, the device synchronised around every timed region,
torch's thread count fixed and reported. The result (`BenchResult`) is written as JSON, CSV and a markdown table.

The package, in the order a run uses it:

  config.py    prompt suites and `BenchConfig`, the folders read and written
  timing.py    the machine, c and the verify curve (micro-benchmarks with a warm cache)
  cases.py     one case: every method on one prompt and temperature, transformers' baselines included
  rows.py      what a case measured, typed: `CaseResult`, `BaselineResult` (their fields are the JSON's keys)
  runner.py    `run_bench`: costs, warm-up, every case, the finished result
  summary.py   cases pooled per suite and over all suites; the paper's predicted speedups; `DEFINITIONS`
  report.py    `BenchResult` (the JSON schema, which carries `DEFINITIONS`), the CSV and the markdown report
  cli.py       the `bench` subcommand's flags and the command line that reproduces a run

and, used by no run: quoted.py, the figures the pages, lessons and model cards quote, read from the committed results,
and machine.py, a run's machine and kernels in words without torch (the Overview's replay names it).

The names in `__all__` (`_LAZY` below) are importable from `specviz.labs.bench` itself, as before the split; the rest
(`CaseResult`, the `quoted` figures, the helpers) from the module that defines them.

Names are loaded on first use (PEP 562), so `python -m specviz --help` pays for neither torch nor transformers, and
the Speedup lab's reading of committed results not for transformers until a benchmark really runs (it does import
torch: `BenchResult` pools with `summary.py`, which computes with `specviz.engine.theory`).
"""

from __future__ import annotations

import importlib
from typing import Any

# public name -> the module of this package that defines it
_LAZY: dict[str, str] = {
    **dict.fromkeys(("hf_generate",), "cases"),
    **dict.fromkeys(("add_bench_arguments", "command_line", "config_from_args", "run_bench_command"), "cli"),
    **dict.fromkeys(("BENCHMARKS_DIR", "CLOCKS", "HF_MODES", "PROMPTS_DIR", "BenchConfig", "BenchPrompt", "Suite",
                     "encode_bench_prompt", "load_suites"), "config"),
    **dict.fromkeys(("CASE_COLUMNS", "DEFINITIONS", "SCHEMA", "SCHEMA_VERSION", "BenchResult", "cases_csv",
                     "find_results", "markdown_report"), "report"),
    **dict.fromkeys(("Progress", "run_bench"), "runner"),
    **dict.fromkeys(("summarise",), "summary"),
    **dict.fromkeys(("forward_timer", "machine_info", "measure_costs"), "timing"),
}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    try:
        module = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'specviz.labs.bench' has no attribute '{name}'") from None
    value = getattr(importlib.import_module(f"specviz.labs.bench.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
