"""The numbers behind the theory, measured outside the decoding loop, and the machine they were measured on.

    costs = measure_costs(target, {"draft": draft_model, "ngram": None}, context, n_max=K_max + 1, repeats=15)
    costs["c"]["draft"]           # draft forward / target forward, one new token, warm cache
    costs["verify"][3]["ratio"]   # a target forward over 4 new tokens / over 1

Every timed region is bracketed by device synchronisation and read from an injectable clock (wall time, or the
process's CPU time on a shared machine); a warm-up call runs before any timing.
"""

from __future__ import annotations

import copy
import datetime as dt
import os
import platform
import statistics
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import torch
import transformers

from specviz.engine.generation import Clock, default_clock, synchronize
from specviz.engine.kernels import kernels_of
from specviz.engine.kvcache import runner_for
from specviz.engine.proposers.ngram import prompt_lookup
from specviz.engine.sampling import SamplingConfig
from specviz.models.machine import cpu_has_bf16, cpu_model, cpu_speed_flags

# environment variables that cap the instruction sets PyTorch's kernels use (oneDNN, ATen, MKL): a run made with them
# stands for a CPU without the capped sets, and its result says so
ISA_LIMITS = ("ONEDNN_MAX_CPU_ISA", "ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS")


# ---- machine --------------------------------------------------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    """CPU model and the instruction sets that matter for speed, cores, GPU, torch threads, library versions, date and
    load: printed with every result."""
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    return {
        "cpu": cpu_model(), "cpu_flags": cpu_speed_flags(), "cpu_bf16": cpu_has_bf16(), "cores": os.cpu_count(),
        "gpu": gpu, "torch_threads": torch.get_num_threads(),
        "isa_limits": {name: os.environ[name] for name in ISA_LIMITS if os.environ.get(name)},
        "torch": torch.__version__, "transformers": transformers.__version__, "python": platform.python_version(),
        "platform": platform.platform(), "date": utc_now(), "load_average_start": load_average(),
    }


def pair_placement(pair) -> dict[str, str]:
    """Where and how a loaded pair runs, for the result: {"device": "cuda:0", "dtype": "bfloat16", "kernels":
    "stock"} (the target's; kernels: `specviz.engine.kernels`)."""
    weight = next(pair.target.parameters())
    return {"device": str(weight.device), "dtype": str(weight.dtype).removeprefix("torch."),
            "kernels": kernels_of(pair.target)}


def utc_now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages, rounded; None where the platform keeps none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


# ---- micro-benchmarks: c and the verify curve ---------------------------------------------------------------------


def forward_timer(model, context: list[int], n_new: int, clock: Clock = default_clock) -> Callable[[], float]:
    """A function that times one forward over `n_new` new tokens after `context` (kept cached) and rewinds."""
    runner = runner_for(model)  # the runner the engine itself uses for the target
    runner.feed(context)
    extra = [context[i % len(context)] for i in range(n_new)]

    def once() -> float:
        runner.rewind(len(context))
        synchronize(runner.device)
        t0 = clock()
        runner.feed(context, extra, keep=n_new)
        synchronize(runner.device)
        return clock() - t0

    once()  # warm-up
    return once


def feature_draft_timer(target, proposer, context: list[int], clock: Clock = default_clock) -> Callable[[], float]:
    """A function that times one drafting step of a feature drafter (EAGLE): one pass of its layer and its head,
    after the target's features for `context` have been handed over."""
    runner = runner_for(target, feature_layers=proposer.feature_layers)
    runner.feed(context, features=True)
    proposer.reset()
    proposer.observe_target(0, runner.last_hidden)
    greedy, generator = SamplingConfig(), torch.Generator().manual_seed(0)

    def once() -> float:
        synchronize(runner.device)
        t0 = clock()
        proposer.propose(context + [context[-1]], 1, greedy, generator)  # re-reads one true position, drafts one
        synchronize(runner.device)
        return clock() - t0

    once()
    return once


def measure_costs(target, draft_models: dict[str, Any], context: list[int], n_max: int, repeats: int,
                  clock: Clock = default_clock) -> dict[str, Any]:
    """c for each proposer and the verify curve t(n)/t(1) for n = 1..n_max (target forwards, warm cache).

    `draft_models` maps a proposer's name to its draft model, to None for n-gram lookup (timed as a lookup), or
    to a ready timer (a function returning seconds, as `feature_draft_timer` makes).
    Every round times every forward once, so a burst of load on a shared machine hits all of them alike;
    each number is the median over `repeats` rounds.
    """
    def lookup() -> float:
        t0 = clock()
        prompt_lookup(context, n_max)
        return clock() - t0

    timers = {("verify", n): forward_timer(target, context, n, clock) for n in range(1, n_max + 1)}
    for name, model in draft_models.items():
        timers[("draft", name)] = (lookup if model is None else model if _is_timer(model)
                                   else forward_timer(model, context, 1, clock))
    if any(model is None for model in draft_models.values()):
        lookup()  # warm-up, as `forward_timer` and `feature_draft_timer` make their own before any timing
    times: dict[tuple, list[float]] = defaultdict(list)
    for _ in range(repeats):
        for key, timer in timers.items():
            times[key].append(timer())
    median = {key: statistics.median(values) for key, values in times.items()}
    one = median[("verify", 1)]
    draft_seconds = {name: median[("draft", name)] for name in draft_models}
    return {
        "context_tokens": len(context), "repeats": repeats,
        "target_forward_seconds": one, "draft_forward_seconds": draft_seconds,
        "c": {name: s / one for name, s in draft_seconds.items()},
        "verify": [{"n_tokens": n, "seconds": median[("verify", n)], "ratio": median[("verify", n)] / one}
                   for n in range(1, n_max + 1)],
    }


VERIFY_SIZES = (1, 2, 5, 9, 17, 33)  # tokens fed: one, a chain of K = 1 or 4, trees of 8, 16 and 32 nodes


def verify_curve(target, context: list[int], sizes=VERIFY_SIZES, repeats: int = 9,
                 clock: Clock = default_clock) -> list[dict[str, float]]:
    """Time of one target forward over n new tokens (`context` cached) over one token, for each n in `sizes`:
    [{"n_tokens": n, "seconds": s, "ratio": s / s(1)}]. Rounds interleave every n, medians over `repeats`."""
    sizes = sorted({1, *sizes})
    timers = {n: forward_timer(target, context, n, clock) for n in sizes}
    times: dict[int, list[float]] = defaultdict(list)
    for _ in range(repeats):
        for n, timer in timers.items():
            times[n].append(timer())
    median = {n: statistics.median(values) for n, values in times.items()}
    return [{"n_tokens": n, "seconds": median[n], "ratio": median[n] / median[1]} for n in sizes]


def curve_repeats(cost_repeats: int) -> int:
    """The timing rounds a bench run gives `verify_curves`: half the rounds of `measure_costs` (c and the run's own
    1..K+1 verify curve), at least 3. Every run with verify curves used it; the Speedup lab quotes it.

    >>> curve_repeats(15), curve_repeats(4)
    (7, 3)
    """
    return max(3, cost_repeats // 2)


def verify_curves(target, context: list[int], dtypes=("float32", "bfloat16"), sizes=VERIFY_SIZES, repeats: int = 9,
                  clock: Clock = default_clock) -> dict[str, list[dict[str, float]]]:
    """The verify curve of the target in each dtype ({"float32": [...], "bfloat16": [...]}): the model as loaded
    for its own dtype, a copy cast to each other one (the copy is dropped afterwards)."""
    own = next(target.parameters()).dtype
    curves = {}
    for name in dtypes:
        dtype = getattr(torch, name)
        model = target if dtype == own else copy.deepcopy(target).to(dtype)
        curves[name] = verify_curve(model, context, sizes, repeats, clock)
        del model
    return curves


def _is_timer(value) -> bool:
    return callable(value) and not isinstance(value, torch.nn.Module)
