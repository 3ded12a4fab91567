"""`run_bench`: the whole benchmark, from loading the pair to the finished `BenchResult`.

    result = run_bench(BenchConfig(pair="toy", proposers=["draft"], ks=[1, 2, 4]), progress=print)

In order: fix torch's thread count, measure the costs (c and the verify curve), warm up, run every case (see
`cases.py`), pool the cases per suite (`summary.py`) and note how the machine was doing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict

import torch
from transformers.utils import logging as hf_logging

from specviz.labs.bench.cases import CaseRunner
from specviz.labs.bench.config import CPU_CLOCK_ON_GPU, BenchConfig, encode_bench_prompt, load_suites
from specviz.labs.bench.report import TREE_NOTE, BenchResult, load_note, repeats_note, stopped_note, threads_note
from specviz.labs.bench.summary import summarise
from specviz.labs.bench.summary import tokens_fed
from specviz.labs.bench.timing import (VERIFY_SIZES, curve_repeats, feature_draft_timer, load_average, machine_info,
                                  measure_costs, pair_placement, utc_now, verify_curves)
from specviz.engine.generation import Clock, default_clock, torch_threads
from specviz.engine.proposers import make_proposer, registry
from specviz.models.pairs import load_pair

Progress = Callable[[int, int, str], None]  # (runs done, runs in all, what runs next)


def run_bench(config: BenchConfig, *, command: str = "", progress: Progress | None = None,
              pair=None, clock: Clock = default_clock, deadline: float | None = None) -> BenchResult:
    """Run the whole benchmark; `pair` may be passed already loaded (the app's cached toy pair). torch's thread
    count is set for the run and restored afterwards. With a `deadline` (a `time.monotonic()` value), a case starts
    only if the longest case so far would still end before it: the result holds the cases that finished, and a note
    says how many were left out."""
    config.check()
    if config.clock == "cpu" and clock is default_clock:
        clock = time.process_time
    with torch_threads(config.threads):  # the process's own count back when the run leaves, even while another
        # overlapping block is still inside (`torch_threads`: every block restores it, not only the last)
        return _run(config, command, progress, pair, clock, deadline)


def timed_draft(pair, name: str, proposer, context: list[int], clock: Clock):
    """What `measure_costs` times as one drafting step of the proposer `name`, as its registry line says
    (`ProposerInfo.timed_as`): its draft model, a ready timer for a feature drafter, or None for a lookup."""
    how = registry.get(name).timed_as
    if how == "model":
        return proposer.runner.model
    return feature_draft_timer(pair.target, proposer, context, clock) if how == "features" else None


def _run(config: BenchConfig, command: str, progress: Progress | None, pair, clock: Clock,
         deadline: float | None) -> BenchResult:
    hf_logging.set_verbosity_error()
    machine = machine_info()
    pair = pair or load_pair(config.pair, device=config.device, dtype=config.dtype)
    machine.update(pair_placement(pair))
    if config.clock == "cpu" and machine["device"].startswith("cuda"):
        raise ValueError(CPU_CLOCK_ON_GPU)
    suites = load_suites(config.suites or None)
    prompts = [(suite, p) for suite in suites for p in suite.prompts[: config.prompts_per_suite]]
    encoded = {p.id: encode_bench_prompt(pair.tokenizer, p, pair.chat) for _, p in prompts}

    proposers = {name: make_proposer(pair, name, **config.proposer_settings) for name in config.proposers}
    idle = next((name for name, prop in proposers.items()  # the plan skips threshold for a lookup: nothing would run
                 if not prop.has_draft_probs and set(config.policies) <= {"threshold"}), None)
    if idle is not None:
        raise ValueError(f"--policies threshold stops on a draft's probabilities, and {idle} has none, so it would "
                         "run nothing: add another policy (e.g. constant) or drop that proposer.")
    labels = {name: prop.name for name, prop in proposers.items()}  # e.g. "layerskip-7"
    context = encoded[prompts[0][1].id]
    drafts = {name: timed_draft(pair, name, prop, context, clock) for name, prop in proposers.items()}
    twins = {name: registry.get(name).transformers_twin(pair, proposers[name]) for name in config.proposers}
    costs = measure_costs(pair.target, drafts, context, config.k_max + 1, config.cost_repeats, clock)
    costs["c"] = {labels[n]: v for n, v in costs["c"].items()}
    costs["draft_forward_seconds"] = {labels[n]: v for n, v in costs["draft_forward_seconds"].items()}
    costs["dtype"] = machine["dtype"]
    if config.verify_dtypes and str(machine["device"]).startswith("cpu"):  # both dtypes: the lesson of a CPU
        sizes = sorted({*VERIFY_SIZES, *(tokens_fed(k, n, lookup) for k, n, _w, lookup in config.shape_plan())})
        costs["verify_curves"] = verify_curves(pair.target, context, config.verify_dtypes, sizes,
                                               curve_repeats(config.cost_repeats), clock)

    runner = CaseRunner(config, pair, proposers, twins, costs, clock)
    plan = runner.plan()
    total = sum(runner.count(temp) for temp in plan for _ in prompts) + config.warmup * runner.count(None)
    done = 0

    def tick(label: str) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total, label)

    first = encoded[prompts[0][1].id]
    for _ in range(config.warmup):  # one-time costs (allocation, kernel choice) stay out of every timing
        runner.warmup(first, tick)

    cases, baselines, skipped, longest = [], [], 0, 0.0
    for suite, prompt in prompts:
        for temperature, configs in plan.items():
            if deadline is not None and time.monotonic() + longest > deadline:  # it would not finish in time
                skipped += 1
                continue
            started = time.monotonic()
            results, baseline_results = runner.case(suite, prompt, encoded[prompt.id], temperature, configs, tick)
            longest = max(longest, time.monotonic() - started)
            cases += [r.to_row() for r in results]
            baselines += [b.to_row() for b in baseline_results]

    machine["load_average_end"] = load_average()
    machine["torch_threads"] = torch.get_num_threads()
    result = BenchResult(
        command=command, created=utc_now(), machine=machine, config=asdict(config), costs=costs, cases=cases,
        baselines=baselines, summary=summarise(cases, baselines, costs),
        suites=[{"name": s.name, "title": s.title, "description": s.description} for s in suites],
        notes=_notes(machine, config, trees=any(c.tree_nodes for configs in plan.values() for c in configs)),
    )
    if skipped:
        result.notes.append(stopped_note(skipped, len(prompts) * len(plan)))
    return result


def _notes(machine, config: BenchConfig, trees: bool | None = None) -> list[str]:
    """The run's notes; `trees`: whether it ran a tree (a proposer that drafts none runs chains of the same K; None:
    whether the config's shapes name one)."""
    if trees is None:
        trees = any(nodes for _k, nodes, _width, _lookup in config.shape_plan())
    notes = [
        repeats_note(config.repeats, config.warmup),
        threads_note(machine["torch_threads"], machine["cores"]),
        f"The models ran on {machine['device']} in {machine['dtype']}.",
    ]
    if trees:  # the shapes it ran, --shapes' included
        notes.append(TREE_NOTE)
    if config.clock == "cpu":
        notes.append("Times are this process's CPU time (time.process_time), not wall time: the machine was shared, "
                     "and CPU time leaves out the waits for a free core. With one torch thread it equals wall time "
                     "on an idle machine; with more threads it adds them up.")
    load, end = machine.get("load_average_start"), machine.get("load_average_end")
    if load and machine.get("cores") and load[0] > 0.5 * machine["cores"]:  # the 1-minute figures, start and end
        notes.append(load_note(load[0], end[0] if end else "unknown", machine["cores"], machine.get("torch_threads")))
    return notes

