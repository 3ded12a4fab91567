"""The Speedup lab's benchmark: how much faster speculative decoding is on this machine, with this pair, and why.

    python -m specviz bench --pair default --proposers ngram layerskip --k 1 2 4 8 --temperatures 0 0.7

For every prompt of every suite (assets/prompts/) and every temperature, one run measures side by side, with
the runs of each repeat interleaved so machine noise hits every method alike:

  * specviz's target-only decoding (the baseline the speedup is quoted against) and `model.generate`;
  * speculative decoding for every proposer x draft-length policy x K, traces recorded off (and once on, to
    measure what recording costs);
  * transformers' own assisted generation with the same draft and a fixed K (prompt lookup for n-gram);
  * the costs behind the theory: c = draft forward / target forward (1 new token, warm cache) and the verify
    cost of a target forward over 1..K+1 tokens.

Timings: warm-up runs excluded, medians over repeats, the device synchronised around every timed region,
torch's thread count fixed and reported. The result (`BenchResult`) is written as JSON, CSV and a markdown table.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import json
import math
import os
import platform
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from specviz.generation import K_RANGE, MAX_NEW_TOKENS_RANGE, Clock, default_clock, synchronize
from specviz.theory import expected_speedup, expected_tokens_per_step

ROOT = Path(__file__).resolve().parent.parent
PROMPTS_DIR = ROOT / "assets" / "prompts"
BENCHMARKS_DIR = ROOT / "assets" / "benchmarks"
SCHEMA = "specviz-bench"
SCHEMA_VERSION = 1
HF_MODES = ("all", "greedy", "none")
CLOCKS = ("wall", "cpu")

Progress = Callable[[int, int, str], None]  # (runs done, runs in all, what runs next)

# The metrics people quote, reconciled. The same keys label the JSON, the CSV, the markdown and the app.
DEFINITIONS: dict[str, tuple[str, str]] = {
    "acceptance_rate": (
        "acceptance rate (accepted / drafted)",
        "Drafted tokens the target kept, over all drafted tokens. Drafts after a step's first rejection count as "
        "drafted and not accepted although they were never tested (vLLM's 'draft acceptance rate')."),
    "alpha": (
        "α (mean min(1, p/q) over tested drafts)",
        "Leviathan et al.'s α: the expected chance a draft is accepted, estimated from the drafts that were tested. "
        "The theory curves use it."),
    "mat_with_bonus": (
        "#MAT, tokens per target forward (bonus included)",
        "Mean tokens each verification step emits: accepted drafts + the recovered or bonus token. Spec-Bench's "
        "#MAT and vLLM's 'mean acceptance length' include the bonus; 1.0 means no gain."),
    "mat_without_bonus": (
        "accepted drafts per step (bonus excluded)",
        "gpt-fast's 'mean accepted' counts only accepted drafts: #MAT minus one (0.0 means no gain)."),
    "per_position": (
        "acceptance by position",
        "Entry i: of the steps that drafted at least i+1 tokens, the share whose first i+1 drafts were all kept."),
    "c": (
        "c = draft forward / target forward",
        "Measured: median time of one draft forward over one new token with a warm cache, over the same for the "
        "target. For n-gram lookup it is the lookup's time over a target forward (near 0)."),
    "verify_cost": (
        "verify cost of n tokens",
        "Time of one target forward over n new tokens (warm cache) over the time for one token. The paper's "
        "formula assumes 1 for every n up to K+1; on a CPU it grows, which is why speculation pays less there."),
    "tokens_per_second": (
        "tokens/s",
        "New tokens over the time from the call to the last token, prefill included, median over repeats (wall "
        "time, or the process's CPU time with --clock cpu)."),
    "speedup_vs_ar": (
        "speedup vs specviz target-only",
        "tokens/s of speculative decoding over tokens/s of specviz's own target-only decoding (same sampler, same "
        "cache code), measured in the same run. Below 1 is a slowdown."),
    "speedup_vs_hf_generate": (
        "speedup vs model.generate",
        "tokens/s of speculative decoding over tokens/s of transformers' model.generate on the target alone, same "
        "run (greedy: do_sample=False)."),
    "hf_assisted_speedup": (
        "transformers assisted: speedup vs model.generate",
        "What transformers itself gets from the same draft and fixed K (assistant_model=, constant schedule, no "
        "confidence stop) or from prompt lookup (prompt_lookup_num_tokens=K), over its own model.generate."),
    "speedup_vs_hf_assisted": (
        "speedup vs transformers assisted",
        "tokens/s of specviz's speculative decoding over transformers' assisted generation / prompt lookup with the "
        "same K."),
    "predicted_speedup": (
        "predicted (paper)",
        "(1 − α^(K+1)) / ((1 − α)(K·c + 1)) from the measured α and c: Leviathan et al.'s speedup, which assumes "
        "verifying K+1 tokens costs one target forward."),
    "predicted_speedup_measured_verify": (
        "predicted (measured verify cost)",
        "The same expected tokens per step over (K·c + verify cost of K+1 tokens): the formula with the measured "
        "verify curve instead of the free-verification assumption."),
    "record_overhead": (
        "trace recording overhead",
        "Time with the full trace recorded (top-10 lists and token text per position) over time without, minus 1; "
        "measured at one K per proposer (the policies' K), from a single recorded run."),
    "identical": (
        "greedy output identical",
        "At temperature 0, whether the method's tokens equal specviz target-only decoding's, token for token."),
    "draft_ms": ("draft ms / step", "Time spent proposing per step (K draft forwards, or one n-gram lookup)."),
    "verify_ms": ("verify ms / step", "Time of the target forward that scores the drafts, per step."),
    "overhead_ms": ("overhead ms / step", "The rest of a step: verification rule, cache rewind, bookkeeping."),
}


# ---- prompt suites ----------------------------------------------------------------------------------------------


@dataclass
class BenchPrompt:
    """One prompt: a single user turn (`text`) or a conversation (`messages`, the last one the user's)."""

    id: str
    suite: str
    text: str = ""
    messages: list[dict[str, str]] = field(default_factory=list)

    def turns(self) -> list[dict[str, str]]:
        return self.messages or [{"role": "user", "content": self.text}]


@dataclass
class Suite:
    name: str
    title: str
    description: str
    prompts: list[BenchPrompt]


def load_suites(names: Sequence[str] | None = None, folder: Path = PROMPTS_DIR) -> list[Suite]:
    """The prompt suites in `folder` (all of them, or those named, in that order)."""
    import yaml

    found: dict[str, Suite] = {}
    for path in sorted(Path(folder).glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        name = data["name"]
        prompts = [BenchPrompt(id=p["id"], suite=name, text=p.get("text", ""), messages=p.get("messages", []))
                   for p in data["prompts"]]
        found[name] = Suite(name, data.get("title", name), data.get("description", ""), prompts)
    if not names:
        return list(found.values())
    unknown = [n for n in names if n not in found]
    if unknown:
        raise ValueError(f"Unknown prompt suite '{unknown[0]}': choose from {', '.join(found)}.")
    return [found[n] for n in names]


def encode_bench_prompt(tokenizer, prompt: BenchPrompt, chat: bool) -> list[int]:
    """Token ids for a prompt: through the chat template when the pair has one, else the turns joined by newlines."""
    turns = prompt.turns()
    if chat and getattr(tokenizer, "chat_template", None):
        encoded = tokenizer.apply_chat_template(turns, add_generation_prompt=True, tokenize=True, return_dict=True)
        return list(encoded["input_ids"])
    return list(tokenizer("\n".join(t["content"] for t in turns), add_special_tokens=True)["input_ids"])


# ---- configuration ------------------------------------------------------------------------------------------------


@dataclass
class BenchConfig:
    """What to measure. `check()` turns any bad value into a ValueError with one sentence."""

    pair: str = "toy"
    proposers: list[str] = field(default_factory=lambda: ["draft"])
    ks: list[int] = field(default_factory=lambda: [1, 2, 4])
    temperatures: list[float] = field(default_factory=lambda: [0.0])
    suites: list[str] = field(default_factory=list)  # empty: all
    prompts_per_suite: int = 2
    max_new_tokens: int = 64
    repeats: int = 3
    warmup: int = 1
    threads: int | None = None
    policies: list[str] = field(default_factory=lambda: ["constant"])
    policy_k: int = 4
    policy_temperatures: list[float] | None = None  # None: the same as `temperatures`
    threshold: float = 0.4
    hf: str = "all"  # transformers comparisons: "all" temperatures, "greedy" only, or "none"
    record_overhead: bool = True
    cost_repeats: int = 15
    clock: str = "wall"  # "cpu": process CPU time, for a shared machine (waiting for a core is not counted)
    layers: int | None = None
    seed: int = 0

    def check(self) -> None:
        from specviz.policies import POLICIES
        from specviz.proposers import PROPOSERS

        for name in self.proposers:
            if name not in PROPOSERS:
                raise ValueError(f"Unknown proposer '{name}': choose one of {', '.join(PROPOSERS)}.")
        for k in [*self.ks, self.policy_k]:
            if not (isinstance(k, int) and K_RANGE[0] <= k <= K_RANGE[1]):
                raise ValueError(f"K must be a whole number from {K_RANGE[0]} to {K_RANGE[1]} (got {k}).")
        for t in [*self.temperatures, *(self.policy_temperatures or [])]:
            if not (isinstance(t, (int, float)) and 0 <= t <= 10):
                raise ValueError(f"Temperatures must be numbers from 0 to 10 (got {t}).")
        for name in self.policies:
            if name not in POLICIES:
                raise ValueError(f"Unknown draft-length policy '{name}': choose one of {', '.join(POLICIES)}.")
        lo, hi = MAX_NEW_TOKENS_RANGE
        if not lo <= self.max_new_tokens <= hi:
            raise ValueError(f"--max-new-tokens must be from {lo} to {hi} (got {self.max_new_tokens}).")
        if not (self.proposers and self.ks and self.temperatures):
            raise ValueError("Give at least one proposer, one K and one temperature.")
        if self.prompts_per_suite < 1 or self.repeats < 1 or self.warmup < 0 or self.cost_repeats < 1:
            raise ValueError("--prompts-per-suite and --repeats must be 1 or more, --warmup 0 or more.")
        if self.threads is not None and self.threads < 1:
            raise ValueError(f"--threads must be 1 or more (got {self.threads}).")
        if self.clock not in CLOCKS:
            raise ValueError(f"--clock must be one of {', '.join(CLOCKS)} (got {self.clock}).")
        if self.hf not in HF_MODES:
            raise ValueError(f"--hf must be one of {', '.join(HF_MODES)} (got {self.hf}).")
        if not 0 <= self.threshold <= 1:
            raise ValueError(f"--threshold must be between 0 and 1 (got {self.threshold}).")
        load_suites(self.suites or None)

    @property
    def k_max(self) -> int:
        return max([*self.ks, self.policy_k])


# ---- the result ---------------------------------------------------------------------------------------------------


@dataclass
class BenchResult:
    """Everything one bench run measured; plain data, round-trips through JSON."""

    command: str
    created: str
    machine: dict[str, Any]
    config: dict[str, Any]
    costs: dict[str, Any]
    cases: list[dict[str, Any]]  # one row per prompt x temperature x proposer x policy x K
    baselines: list[dict[str, Any]]  # one row per prompt x temperature x baseline method
    summary: list[dict[str, Any]]  # cases pooled per suite (and over all suites: suite "all")
    suites: list[dict[str, str]]
    notes: list[str] = field(default_factory=list)
    schema: str = SCHEMA
    schema_version: int = SCHEMA_VERSION

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["definitions"] = {key: {"label": label, "meaning": meaning} for key, (label, meaning) in DEFINITIONS.items()}
        return _clean(data)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BenchResult:
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise ValueError("This file is not a specviz benchmark result (no 'specviz-bench' schema found).")
        if data.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(f"This benchmark has schema version {data.get('schema_version')}; this specviz reads "
                             f"version {SCHEMA_VERSION}.")
        data = {k: v for k, v in data.items() if k != "definitions"}
        try:
            return cls(**data)
        except TypeError as exc:
            raise ValueError(f"This benchmark file is damaged or incomplete ({exc}).") from None

    @classmethod
    def load(cls, path: str | Path) -> BenchResult:
        try:
            return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError, UnicodeDecodeError):
            raise ValueError(f"Cannot read a benchmark result from '{path}'.") from None

    def save(self, folder: str | Path) -> dict[str, Path]:
        """Write results.json, results.csv (one row per case) and results.md into `folder`."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        paths = {"json": folder / "results.json", "csv": folder / "results.csv", "md": folder / "results.md"}
        paths["json"].write_text(json.dumps(self.to_dict(), indent=1, ensure_ascii=False), encoding="utf-8")
        paths["csv"].write_text(cases_csv(self.cases), encoding="utf-8")
        paths["md"].write_text(markdown_report(self), encoding="utf-8")
        return paths


def find_results(folder: Path = BENCHMARKS_DIR) -> list[Path]:
    """Result files under `folder` (results.json in it or in any subfolder), sorted by folder name."""
    folder = Path(folder)
    return sorted([*folder.glob("*/results.json"), *folder.glob("results.json")], key=lambda p: str(p.parent))


# ---- machine --------------------------------------------------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    """CPU model, cores, GPU, torch threads, library versions, date and load: printed with every result."""
    import transformers

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {
        "cpu": cpu, "cores": os.cpu_count(), "gpu": gpu, "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__, "transformers": transformers.__version__, "python": platform.python_version(),
        "platform": platform.platform(), "date": _now(), "load_average_start": load,
    }


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---- micro-benchmarks: c and the verify curve ---------------------------------------------------------------------


def forward_timer(model, context: list[int], n_new: int, clock: Clock = default_clock) -> Callable[[], float]:
    """A function that times one forward over `n_new` new tokens after `context` (kept cached) and rewinds."""
    from specviz.kvcache import CachedModel

    runner = CachedModel(model)
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


def measure_costs(target, draft_models: dict[str, Any], context: list[int], n_max: int, repeats: int,
                  clock: Clock = default_clock) -> dict[str, Any]:
    """c for each proposer and the verify curve t(n)/t(1) for n = 1..n_max (target forwards, warm cache).

    `draft_models` maps a proposer's name to its draft model, or to None for n-gram lookup (timed as a lookup).
    Every round times every forward once, so a burst of load on a shared machine hits all of them alike;
    each number is the median over `repeats` rounds.
    """
    from specviz.proposers import prompt_lookup

    def lookup() -> float:
        t0 = clock()
        prompt_lookup(context, n_max)
        return clock() - t0

    timers = {("verify", n): forward_timer(target, context, n, clock) for n in range(1, n_max + 1)}
    for name, model in draft_models.items():
        timers[("draft", name)] = lookup if model is None else forward_timer(model, context, 1, clock)
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


# ---- transformers' own generation ---------------------------------------------------------------------------------


def hf_generate(target, ids: list[int], *, max_new_tokens: int, temperature: float, seed: int,
                assistant=None, k: int | None = None, prompt_lookup: int | None = None,
                clock: Clock = default_clock) -> tuple[list[int], float]:
    """transformers' `model.generate` on the target (with an assistant model or prompt lookup when given);
    returns the new token ids and the wall time."""
    device = next(target.parameters()).device
    input_ids = torch.tensor([ids], device=device)
    kwargs: dict[str, Any] = dict(
        input_ids=input_ids, attention_mask=torch.ones_like(input_ids), max_new_tokens=max_new_tokens,
        do_sample=temperature > 0, pad_token_id=_pad_id(target),
    )
    if temperature > 0:
        kwargs.update(temperature=temperature, top_k=0, top_p=1.0)
    if prompt_lookup is not None:
        kwargs.update(prompt_lookup_num_tokens=prompt_lookup, max_matching_ngram_size=3)
    saved = None
    if assistant is not None:
        # the assistant's own generation config sets K; copy it first (an early-exit model shares the target's)
        saved = assistant.generation_config
        config = _copy(saved)
        config.num_assistant_tokens = k
        config.num_assistant_tokens_schedule = "constant"
        config.assistant_confidence_threshold = 0.0
        assistant.generation_config = config
        kwargs["assistant_model"] = assistant
    try:
        torch.manual_seed(seed)
        synchronize(device)
        t0 = clock()
        with torch.inference_mode():
            out = target.generate(**kwargs)
        synchronize(device)
        seconds = clock() - t0
    finally:
        if saved is not None:
            assistant.generation_config = saved
    return out[0, len(ids):].tolist(), seconds


def _copy(obj):
    import copy

    return copy.deepcopy(obj)


def _pad_id(model) -> int | None:
    config = model.generation_config
    if config.pad_token_id is not None:
        return config.pad_token_id
    eos = config.eos_token_id
    return eos[0] if isinstance(eos, list) else eos


# ---- the run --------------------------------------------------------------------------------------------------------


@dataclass
class _Spec:
    """One speculative configuration of a case: which proposer, which policy, which K."""

    proposer: str
    policy: str
    k: int


def run_bench(config: BenchConfig, *, command: str = "", progress: Progress | None = None,
              pair=None, clock: Clock = default_clock) -> BenchResult:
    """Run the whole benchmark; `pair` may be passed already loaded (the app's cached toy pair). torch's thread
    count is set for the run and restored afterwards."""
    config.check()
    threads_before = torch.get_num_threads()
    if config.threads is not None:
        torch.set_num_threads(config.threads)
    if config.clock == "cpu" and clock is default_clock:
        clock = time.process_time
    try:
        return _run(config, command, progress, pair, clock)
    finally:
        torch.set_num_threads(threads_before)


def _run(config: BenchConfig, command: str, progress: Progress | None, pair, clock: Clock) -> BenchResult:
    from transformers.utils import logging as hf_logging

    from specviz.models import load_pair
    from specviz.proposers import early_exit_model, make_proposer

    hf_logging.set_verbosity_error()
    machine = machine_info()
    pair = pair or load_pair(config.pair)
    suites = load_suites(config.suites or None)
    prompts = [(suite, p) for suite in suites for p in suite.prompts[: config.prompts_per_suite]]
    encoded = {p.id: encode_bench_prompt(pair.tokenizer, p, pair.chat) for _, p in prompts}

    proposers = {name: make_proposer(pair, name, layers=config.layers) for name in config.proposers}
    labels = {name: prop.name for name, prop in proposers.items()}  # e.g. "layerskip-7"
    drafts = {name: prop.runner.model if hasattr(prop, "runner") else None for name, prop in proposers.items()}
    assistants = {name: (pair.draft if name == "draft" else
                         early_exit_model(pair.target, proposers[name].layers) if name == "layerskip" else None)
                  for name in config.proposers}
    costs = measure_costs(pair.target, drafts, encoded[prompts[0][1].id], config.k_max + 1, config.cost_repeats,
                          clock)
    costs["c"] = {labels[n]: v for n, v in costs["c"].items()}
    costs["draft_forward_seconds"] = {labels[n]: v for n, v in costs["draft_forward_seconds"].items()}

    runner = _Runner(config, pair, proposers, assistants, costs, clock)
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

    cases, baselines = [], []
    for suite, prompt in prompts:
        for temperature, specs in plan.items():
            c_rows, b_rows = runner.case(suite, prompt, encoded[prompt.id], temperature, specs, tick)
            cases += c_rows
            baselines += b_rows

    machine["load_average_end"] = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    machine["torch_threads"] = torch.get_num_threads()
    result = BenchResult(
        command=command, created=_now(), machine=machine, config=asdict(config), costs=costs, cases=cases,
        baselines=baselines, summary=summarise(cases, baselines, costs),
        suites=[{"name": s.name, "title": s.title, "description": s.description} for s in suites],
        notes=_notes(machine, config),
    )
    return result


class _Runner:
    """Runs the methods of one case, interleaved repeat by repeat, and turns the traces into rows."""

    def __init__(self, config: BenchConfig, pair, proposers, assistants, costs, clock: Clock):
        self.config, self.pair, self.proposers, self.assistants = config, pair, proposers, assistants
        self.costs, self.clock = costs, clock

    def plan(self) -> dict[float, list[_Spec]]:
        cfg = self.config
        policy_temps = cfg.policy_temperatures if cfg.policy_temperatures is not None else cfg.temperatures
        plan: dict[float, list[_Spec]] = {}
        for temperature in dict.fromkeys([*cfg.temperatures, *policy_temps]):
            specs = []
            for name in cfg.proposers:
                if temperature in cfg.temperatures and "constant" in cfg.policies:
                    specs += [_Spec(name, "constant", k) for k in cfg.ks]
                if temperature in policy_temps:
                    for policy in cfg.policies:
                        if policy == "threshold" and name == "ngram":
                            continue  # a lookup has no draft probability to threshold
                        if policy != "constant":
                            specs.append(_Spec(name, policy, cfg.policy_k))
            plan[float(temperature)] = specs
        self._plan_cache = plan
        return plan

    def records(self, spec: _Spec) -> bool:
        """Whether this configuration also runs once with the full trace recorded (one K per proposer: policy K)."""
        k = self.config.policy_k if self.config.policy_k in self.config.ks else self.config.ks[0]
        return self.config.record_overhead and spec.policy == "constant" and spec.k == k

    def hf_on(self, temperature: float | None) -> bool:
        return self.config.hf == "all" or (self.config.hf == "greedy" and not temperature)

    def count(self, temperature: float | None) -> int:
        """Runs one case makes (temperature None: one warm-up round)."""
        cfg = self.config
        if temperature is None:
            return 1 + len(cfg.proposers) * (2 if self.hf_on(0.0) else 1) + self.hf_on(0.0)
        specs = self._plan_cache[temperature]
        hf = self.hf_on(temperature)
        per_repeat = 1 + hf + len(specs) + (hf * sum(s.policy == "constant" for s in specs))
        record = sum(self.records(s) for s in specs)
        return cfg.repeats * per_repeat + record

    # ---- single runs
    def ar(self, ids, temperature, record=False, max_new_tokens=None):
        from specviz.baseline import autoregressive_generate

        return autoregressive_generate(self.pair.target, ids, max_new_tokens=max_new_tokens or self.config.max_new_tokens,
                                       temperature=temperature, seed=self.config.seed, tokenizer=self.pair.tokenizer,
                                       record=record, clock=self.clock)

    def spec(self, ids, temperature, spec: _Spec, record=False, max_new_tokens=None):
        from specviz.decoding import speculative_generate
        from specviz.policies import confident, make_policy

        proposer = self.proposers[spec.proposer]
        if spec.policy == "threshold":
            proposer = confident(proposer, self.config.threshold)
        c = self.costs["c"].get(proposer.name)
        policy = None if spec.policy == "constant" else make_policy(spec.policy, spec.k, k_max=self.config.k_max,
                                                                     c=c)
        return speculative_generate(self.pair.target, proposer, ids, k=spec.k,
                                    max_new_tokens=max_new_tokens or self.config.max_new_tokens,
                                    temperature=temperature, seed=self.config.seed, tokenizer=self.pair.tokenizer,
                                    record=record, clock=self.clock, draft_length=policy)

    def hf(self, ids, temperature, spec: _Spec | None, max_new_tokens=None):
        n = max_new_tokens or self.config.max_new_tokens
        if spec is None:
            return hf_generate(self.pair.target, ids, max_new_tokens=n, temperature=temperature,
                               seed=self.config.seed, clock=self.clock)
        if spec.proposer == "ngram":
            return hf_generate(self.pair.target, ids, max_new_tokens=n, temperature=temperature,
                               seed=self.config.seed, prompt_lookup=spec.k, clock=self.clock)
        return hf_generate(self.pair.target, ids, max_new_tokens=n, temperature=temperature, seed=self.config.seed,
                           assistant=self.assistants[spec.proposer], k=spec.k, clock=self.clock)

    def warmup(self, ids, tick) -> None:
        n = min(8, self.config.max_new_tokens)
        self.ar(ids, 0.0, max_new_tokens=n)
        tick("warm-up")
        if self.hf_on(0.0):
            self.hf(ids, 0.0, None, max_new_tokens=n)
            tick("warm-up")
        for name in self.config.proposers:
            spec = _Spec(name, "constant", self.config.ks[0])
            self.spec(ids, 0.0, spec, max_new_tokens=n)
            tick("warm-up")
            if self.hf_on(0.0):
                self.hf(ids, 0.0, spec, max_new_tokens=n)
                tick("warm-up")

    # ---- one case
    def case(self, suite, prompt, ids, temperature, specs: list[_Spec], tick):
        cfg = self.config
        hf = self.hf_on(temperature)
        where = f"{prompt.id} T={temperature:g}"
        ar_runs, hf_runs = [], []
        spec_runs: dict[int, list] = defaultdict(list)
        assisted: dict[int, list] = defaultdict(list)
        for _ in range(cfg.repeats):  # interleaved: every method sees the same stretch of machine noise
            ar_runs.append(self.ar(ids, temperature))
            tick(f"{where} target-only")
            if hf:
                hf_runs.append(self.hf(ids, temperature, None))
                tick(f"{where} model.generate")
            for i, spec in enumerate(specs):
                spec_runs[i].append(self.spec(ids, temperature, spec))
                tick(f"{where} {spec.proposer} {spec.policy} K={spec.k}")
                if hf and spec.policy == "constant":
                    assisted[i].append(self.hf(ids, temperature, spec))
                    tick(f"{where} transformers assisted {spec.proposer} K={spec.k}")
        recorded = {}
        if cfg.record_overhead:
            for i, spec in enumerate(specs):
                if self.records(spec):
                    recorded[i] = self.spec(ids, temperature, spec, record=True).wall_seconds
                    tick(f"{where} {spec.proposer} K={spec.k} recorded")

        base = {"suite": suite.name, "prompt_id": prompt.id, "temperature": temperature}
        ar_ids = ar_runs[0].output_ids
        ar_sec = statistics.median(t.wall_seconds for t in ar_runs)
        ar_tps = len(ar_ids) / ar_sec
        b_rows = [{**base, "method": "specviz target-only", "tokens": len(ar_ids), "seconds": ar_sec,
                   "tokens_per_second": ar_tps, "identical": True if temperature == 0 else None}]
        hf_tps = None
        if hf_runs:
            hf_ids, hf_sec = hf_runs[0][0], statistics.median(s for _, s in hf_runs)
            hf_tps = len(hf_ids) / hf_sec
            b_rows.append({**base, "method": "transformers generate", "tokens": len(hf_ids), "seconds": hf_sec,
                           "tokens_per_second": hf_tps, "identical": (hf_ids == ar_ids) if temperature == 0 else None})
        rows = []
        for i, spec in enumerate(specs):
            runs = spec_runs[i]
            trace = runs[0]
            sec = statistics.median(t.wall_seconds for t in runs)
            tps = trace.num_tokens / sec
            label = self.proposers[spec.proposer].name
            c = self.costs["c"][label]
            alpha = trace.mean_accept_prob
            drafted_pos, survived_pos = _position_counts(trace)
            row = {
                **base, "proposer": label, "policy": spec.policy, "k": spec.k,
                "mean_k": trace.num_drafted / trace.num_steps if trace.num_steps else math.nan,
                "tokens": trace.num_tokens, "steps": trace.num_steps, "drafted": trace.num_drafted,
                "accepted": trace.num_accepted, "acceptance_rate": trace.acceptance_rate, "alpha": alpha,
                "mat_with_bonus": trace.mean_accepted_length,
                "mat_without_bonus": trace.num_accepted / trace.num_steps if trace.num_steps else math.nan,
                "per_position": trace.per_position_acceptance,
                "position_drafted": drafted_pos, "position_survived": survived_pos,
                "draft_ms": _median_ms(runs, "draft_seconds"), "verify_ms": _median_ms(runs, "verify_seconds"),
                "overhead_ms": _median_ms(runs, "overhead_seconds"),
                "prefill_ms": 1e3 * statistics.median(t.prefill_seconds for t in runs),
                "seconds": sec, "tokens_per_second": tps, "c": c,
                "ar_tokens": len(ar_ids), "ar_seconds": ar_sec, "speedup_vs_ar": tps / ar_tps,
                "hf_generate_tokens": len(hf_runs[0][0]) if hf_runs else None,
                "hf_generate_seconds": statistics.median(s for _, s in hf_runs) if hf_runs else None,
                "speedup_vs_hf_generate": tps / hf_tps if hf_tps else None,
                "hf_assisted_method": None, "hf_assisted_tokens": None, "hf_assisted_seconds": None, "hf_assisted_speedup": None,
                "speedup_vs_hf_assisted": None,
                "predicted_speedup": None, "predicted_speedup_measured_verify": None,
                "record_overhead": recorded[i] / sec - 1 if i in recorded else None,
                "identical": (trace.output_ids == ar_ids) if temperature == 0 else None,
                "hf_assisted_identical": None,
            }
            if spec.policy == "constant" and math.isfinite(alpha):
                row["predicted_speedup"] = expected_speedup(min(1.0, alpha), spec.k, c)
                verify = self.costs["verify"][min(spec.k, len(self.costs["verify"]) - 1)]["ratio"]
                row["predicted_speedup_measured_verify"] = (expected_tokens_per_step(min(1.0, alpha), spec.k)
                                                            / (spec.k * c + verify))
            if i in assisted:
                a_ids = assisted[i][0][0]
                a_sec = statistics.median(s for _, s in assisted[i])
                a_tps = len(a_ids) / a_sec
                row.update(hf_assisted_method="prompt lookup" if spec.proposer == "ngram" else "assisted generation",
                           hf_assisted_tokens=len(a_ids), hf_assisted_seconds=a_sec, hf_assisted_speedup=a_tps / hf_tps if hf_tps else None,
                           speedup_vs_hf_assisted=tps / a_tps,
                           hf_assisted_identical=(a_ids == ar_ids) if temperature == 0 else None)
            rows.append(_clean(row))
        return rows, b_rows


def _median_ms(traces, attr: str) -> float:
    """Median over repeats of the mean per-step time, in milliseconds."""
    return 1e3 * statistics.median(
        sum(getattr(s, attr) for s in t.steps) / t.num_steps if t.num_steps else 0.0 for t in traces)


def _position_counts(trace) -> tuple[list[int], list[int]]:
    """Per draft position i: how many steps drafted at least i+1 tokens, and in how many the first i+1 survived."""
    k_max = max((s.n_drafted for s in trace.steps), default=0)
    drafted = [sum(s.n_drafted > i for s in trace.steps) for i in range(k_max)]
    survived = [sum(s.n_drafted > i and s.n_accepted > i for s in trace.steps) for i in range(k_max)]
    return drafted, survived


def _notes(machine, config: BenchConfig) -> list[str]:
    notes = [
        "Speedups are ratios of tokens/s measured in the same run, repeat by repeat interleaved, medians over "
        f"{config.repeats} repeat(s) after {config.warmup} warm-up round(s).",
        f"torch used {machine['torch_threads']} thread(s) on {machine['cores']} visible core(s).",
    ]
    if config.clock == "cpu":
        notes.append("Times are this process's CPU time (time.process_time), not wall time: the machine was shared, "
                     "and CPU time leaves out the waits for a free core. With one torch thread it equals wall time "
                     "on an idle machine; with more threads it adds them up.")
    load = machine.get("load_average_start")
    if load and machine.get("cores") and load[0] > 0.5 * machine["cores"]:
        notes.append(f"The machine was shared (load average {load[0]} at the start, {machine.get('load_average_end')}"
                     " at the end): absolute times are noisy; ratios from the same run are the numbers to trust.")
    return notes


# ---- pooling --------------------------------------------------------------------------------------------------------


def summarise(cases: list[dict], baselines: list[dict], costs: dict) -> list[dict]:
    """Pool cases per (suite, proposer, policy, K, temperature), and over all suites (suite "all").

    Speedups are pooled as ratios of total tokens / total seconds; acceptance as total accepted / total drafted;
    α as the mean over cases; acceptance by position from the pooled counts.
    """
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row in cases:
        key = (row["proposer"], row["policy"], row["k"], row["temperature"])
        groups[(row["suite"], *key)].append(row)
        groups[("all", *key)].append(row)
    out = []
    for (suite, proposer, policy, k, temperature), rows in groups.items():
        def total(col):
            return sum(r[col] for r in rows)

        n_pos = max((len(r["position_drafted"]) for r in rows), default=0)
        drafted_pos = [sum(r["position_drafted"][i] for r in rows if i < len(r["position_drafted"])) for i in range(n_pos)]
        survived_pos = [sum(r["position_survived"][i] for r in rows if i < len(r["position_survived"]))
                        for i in range(n_pos)]
        alphas = [r["alpha"] for r in rows if r["alpha"] is not None and math.isfinite(r["alpha"])]
        alpha = sum(alphas) / len(alphas) if alphas else None
        c = rows[0]["c"]
        steps = total("steps")
        identical = [r["identical"] for r in rows if r["identical"] is not None]
        hf_ident = [r["hf_assisted_identical"] for r in rows if r["hf_assisted_identical"] is not None]
        hf_gen = [r for r in rows if r.get("hf_generate_seconds") and r.get("hf_assisted_seconds")]
        row = {
            "suite": suite, "proposer": proposer, "policy": policy, "k": k, "temperature": temperature,
            "prompts": len(rows), "tokens": total("tokens"), "steps": steps,
            "mean_k": total("drafted") / steps if steps else None,
            "acceptance_rate": total("accepted") / total("drafted") if total("drafted") else None,
            "alpha": alpha, "c": c,
            "mat_with_bonus": total("tokens") / steps if steps else None,
            "mat_without_bonus": total("accepted") / steps if steps else None,
            "per_position": [s / d if d else None for s, d in zip(survived_pos, drafted_pos)],
            "draft_ms": _weighted(rows, "draft_ms"), "verify_ms": _weighted(rows, "verify_ms"),
            "overhead_ms": _weighted(rows, "overhead_ms"),
            "tokens_per_second": total("tokens") / total("seconds"),
            "speedup_vs_ar": _pooled(rows, "ar_seconds", "ar_tokens"),
            "speedup_vs_hf_generate": _pooled(rows, "hf_generate_seconds", "hf_generate_tokens"),
            "hf_assisted_speedup": (_rate(hf_gen, "hf_assisted_tokens", "hf_assisted_seconds")
                                    / _rate(hf_gen, "hf_generate_tokens", "hf_generate_seconds")) if hf_gen else None,
            "speedup_vs_hf_assisted": _pooled(rows, "hf_assisted_seconds", "hf_assisted_tokens"),
            "predicted_speedup": None, "predicted_speedup_measured_verify": None,
            "record_overhead": _mean([r["record_overhead"] for r in rows]),
            "identical": all(identical) if identical else None,
            "identical_count": f"{sum(identical)}/{len(identical)}" if identical else None,
            "hf_assisted_identical": all(hf_ident) if hf_ident else None,
        }
        if policy == "constant" and alpha is not None:
            row["predicted_speedup"] = expected_speedup(min(1.0, alpha), k, c)
            verify = costs["verify"][min(k, len(costs["verify"]) - 1)]["ratio"]
            row["predicted_speedup_measured_verify"] = expected_tokens_per_step(min(1.0, alpha), k) / (k * c + verify)
        out.append(row)
    return out


def _pooled(rows: list[dict], baseline_seconds: str, baseline_tokens: str) -> float | None:
    """Pooled tokens/s of the method over pooled tokens/s of a baseline, over the rows that ran the baseline."""
    have = [r for r in rows if r.get(baseline_seconds)]
    if not have:
        return None
    return _rate(have, "tokens", "seconds") / _rate(have, baseline_tokens, baseline_seconds)


def _rate(rows: list[dict], tokens: str, seconds: str) -> float:
    return sum(r[tokens] for r in rows) / sum(r[seconds] for r in rows)


def _weighted(rows: list[dict], col: str) -> float:
    steps = sum(r["steps"] for r in rows)
    return sum(r[col] * r["steps"] for r in rows) / steps if steps else 0.0


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


# ---- writing --------------------------------------------------------------------------------------------------------

CASE_COLUMNS = [
    "suite", "prompt_id", "temperature", "proposer", "policy", "k", "mean_k", "tokens", "steps", "drafted",
    "accepted", "acceptance_rate", "alpha", "mat_with_bonus", "mat_without_bonus", "per_position", "draft_ms",
    "verify_ms", "overhead_ms", "prefill_ms", "seconds", "tokens_per_second", "c", "ar_tokens", "ar_seconds",
    "speedup_vs_ar", "hf_generate_tokens", "hf_generate_seconds", "speedup_vs_hf_generate", "hf_assisted_method",
    "hf_assisted_tokens", "hf_assisted_seconds",
    "hf_assisted_speedup", "speedup_vs_hf_assisted", "predicted_speedup", "predicted_speedup_measured_verify",
    "record_overhead", "identical", "hf_assisted_identical",
]


def cases_csv(cases: list[dict]) -> str:
    """One row per case; list cells (acceptance by position) joined with ';'."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CASE_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in cases:
        writer.writerow({k: ";".join(f"{x:.4f}" for x in v) if isinstance(v, list) else _cell(v)
                         for k, v in row.items()})
    return buf.getvalue()


def _cell(v: Any) -> Any:
    if isinstance(v, float):
        return "" if not math.isfinite(v) else f"{v:.6g}"
    return "" if v is None else v


def _fmt(v: Any, digits: int = 2, suffix: str = "") -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "NO"
    return f"{v:.{digits}f}{suffix}"


def markdown_report(result: BenchResult) -> str:
    """The headline tables: every configuration over all suites, the categories, the costs, the definitions."""
    m, cfg, costs = result.machine, result.config, result.costs
    lines = [
        f"# specviz bench: pair `{cfg['pair']}`", "",
        f"`{result.command}`" if result.command else "", "",
        f"Machine: {m['cpu']}, {m['cores']} cores, GPU {m['gpu'] or 'none'}, torch {m['torch']} "
        f"({m['torch_threads']} threads), transformers {m['transformers']}, {m['date']}.", "",
        *[f"- {n}" for n in result.notes], "",
        "## All suites", "",
        "| proposer | policy | K | T | α | accepted/drafted | #MAT (bonus incl.) | accepted/step (excl.) | tok/s "
        "| vs target-only | vs generate | transformers assisted vs generate | predicted (paper) | "
        "predicted (measured verify) | greedy identical |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    rows = sorted((r for r in result.summary if r["suite"] == "all"),
                  key=lambda r: (r["temperature"], r["proposer"], r["policy"] != "constant", r["policy"], r["k"]))
    for r in rows:
        lines.append(
            f"| {r['proposer']} | {r['policy']} | {r['k']} | {r['temperature']:g} | {_fmt(r['alpha'])} | "
            f"{_fmt(r['acceptance_rate'])} | {_fmt(r['mat_with_bonus'])} | {_fmt(r['mat_without_bonus'])} | "
            f"{_fmt(r['tokens_per_second'], 1)} | {_fmt(r['speedup_vs_ar'], 2, '×')} | "
            f"{_fmt(r['speedup_vs_hf_generate'], 2, '×')} | {_fmt(r['hf_assisted_speedup'], 2, '×')} | "
            f"{_fmt(r['predicted_speedup'], 2, '×')} | {_fmt(r['predicted_speedup_measured_verify'], 2, '×')} | "
            f"{r['identical_count'] or '–'} |")
    lines += ["", "## Best configuration per category (speedup vs specviz target-only)", "",
              "| category | T | best | speedup | runner-up policy |", "|---|---|---|---|---|"]
    for suite in [s["name"] for s in result.suites]:
        for temperature in sorted({r["temperature"] for r in result.summary}):
            group = [r for r in result.summary if r["suite"] == suite and r["temperature"] == temperature]
            if not group:
                continue
            group.sort(key=lambda r: -(r["speedup_vs_ar"] or 0))
            best = group[0]
            other = next((r for r in group[1:] if r["policy"] != best["policy"]), None)
            lines.append(f"| {suite} | {temperature:g} | {best['proposer']} {best['policy']} K={best['k']} | "
                         f"{_fmt(best['speedup_vs_ar'], 2, '×')} | "
                         + (f"{other['proposer']} {other['policy']} K={other['k']}: "
                            f"{_fmt(other['speedup_vs_ar'], 2, '×')}" if other else "–") + " |")
    policy_rows = [r for r in result.summary if r["policy"] != "constant"]
    if policy_rows:
        lines += ["", "## Draft-length policies (speedup vs specviz target-only; all start at the same K)", "",
                  "| category | proposer | T | constant | heuristic | threshold | optimal | winner |",
                  "|---|---|---|---|---|---|---|---|"]
        keys = dict.fromkeys((r["suite"], r["proposer"], r["temperature"], r["k"]) for r in policy_rows)
        for suite, proposer, temperature, k in sorted(keys, key=lambda t: (t[0] != "all", t)):
            found = {r["policy"]: r["speedup_vs_ar"] for r in result.summary
                     if (r["suite"], r["proposer"], r["temperature"], r["k"]) == (suite, proposer, temperature, k)}
            best = max(found, key=lambda name: found[name] or 0)
            margin = (f" ({found[best] / found['constant'] - 1:+.0%} vs constant)"
                      if found.get("constant") and best != "constant" else "")
            lines.append(f"| {suite} | {proposer} | {temperature:g} | " + " | ".join(
                _fmt(found.get(name), 2, "×") for name in ("constant", "heuristic", "threshold", "optimal"))
                + f" | {best} K₀={k}{margin} |")
    overheads = [r for r in result.summary if r["suite"] == "all" and r["record_overhead"] is not None]
    if overheads:
        lines += ["", "Trace recording overhead (full trace vs record=False): " + "; ".join(
            f"{r['proposer']} K={r['k']} T={r['temperature']:g}: {r['record_overhead']:+.1%}" for r in overheads) + "."]
    lines += ["", "## Costs", "",
              f"Target forward, 1 new token, warm cache ({costs['context_tokens']} tokens of context): "
              f"{costs['target_forward_seconds'] * 1e3:.1f} ms.", ""]
    for name, c in costs["c"].items():
        lines.append(f"- {name}: draft forward {costs['draft_forward_seconds'][name] * 1e3:.2f} ms, c = {c:.3f}")
    lines += ["", "| tokens verified | " + " | ".join(str(v["n_tokens"]) for v in costs["verify"]) + " |",
              "|---|" + "---|" * len(costs["verify"]),
              "| time / one-token forward | " + " | ".join(f"{v['ratio']:.2f}" for v in costs["verify"]) + " |",
              "", "## Definitions", ""]
    lines += [f"- **{label}**: {meaning}" for label, meaning in DEFINITIONS.values()]
    return "\n".join(lines) + "\n"


def _clean(obj: Any) -> Any:
    """JSON has no nan or inf: write them as null."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


# ---- command line -------------------------------------------------------------------------------------------------


def _listed(kind):
    """argparse type for list flags: each value may itself be comma-separated."""
    def parse(text: str):
        try:
            return [kind(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a list of {kind.__name__} values") from None
    return parse


def add_bench_arguments(cmd: argparse.ArgumentParser) -> None:
    """The `bench` subcommand's flags."""
    cmd.add_argument("--pair", default="default", help="default, toy, or TARGET_FOLDER[,DRAFT_FOLDER]")
    cmd.add_argument("--proposers", nargs="+", type=_listed(str), default=None,
                     help="draft, ngram, layerskip (default: the pair's own)")
    cmd.add_argument("--layers", type=int, default=None, help="layers the layer-skip draft keeps (default: 1/4)")
    cmd.add_argument("--k", nargs="+", type=_listed(int), default=[[1, 2, 4, 8]], help="drafted tokens per step")
    cmd.add_argument("--temperatures", nargs="+", type=_listed(float), default=[[0.0]], help="0 = greedy")
    cmd.add_argument("--suites", nargs="+", type=_listed(str), default=None,
                     help="prompt suites in assets/prompts (default: all)")
    cmd.add_argument("--prompts-per-suite", type=int, default=2)
    cmd.add_argument("--max-new-tokens", type=int, default=64)
    cmd.add_argument("--repeats", type=int, default=3, help="timed repeats per case (medians are reported)")
    cmd.add_argument("--warmup", type=int, default=1, help="untimed warm-up rounds before timing")
    cmd.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's choice)")
    cmd.add_argument("--policies", nargs="+", type=_listed(str), default=[["constant"]],
                     help="constant, heuristic, threshold, optimal")
    cmd.add_argument("--policy-k", type=int, default=4, help="the K adaptive policies start at (threshold: its cap)")
    cmd.add_argument("--policy-temperatures", nargs="+", type=_listed(float), default=None,
                     help="temperatures for the adaptive policies (default: all)")
    cmd.add_argument("--threshold", type=float, default=0.4, help="confidence threshold of the threshold policy")
    cmd.add_argument("--hf", choices=HF_MODES, default="all",
                     help="compare with transformers at all temperatures, greedy only, or not at all")
    cmd.add_argument("--clock", choices=CLOCKS, default="wall",
                     help="wall: elapsed time; cpu: this process's CPU time (for a machine shared with other jobs)")
    cmd.add_argument("--no-record-overhead", action="store_true", help="skip the recorded-trace runs")
    cmd.add_argument("--seed", type=int, default=0)
    cmd.add_argument("--out", default="bench-results", help="folder for results.json, results.csv, results.md")


def config_from_args(args: argparse.Namespace) -> BenchConfig:
    flat = lambda lists: [x for part in lists for x in part] if lists else None  # noqa: E731
    return BenchConfig(
        pair=args.pair, proposers=flat(args.proposers) or [], ks=flat(args.k), temperatures=flat(args.temperatures),
        suites=flat(args.suites) or [], prompts_per_suite=args.prompts_per_suite, max_new_tokens=args.max_new_tokens,
        repeats=args.repeats, warmup=args.warmup, threads=args.threads, policies=flat(args.policies),
        policy_k=args.policy_k, policy_temperatures=flat(args.policy_temperatures), threshold=args.threshold,
        hf=args.hf, clock=args.clock, record_overhead=not args.no_record_overhead, layers=args.layers, seed=args.seed,
    )


def command_line(config: BenchConfig, out: str | None = None) -> str:
    """The command that reproduces a run with this configuration."""
    parts = ["python -m specviz bench", f"--pair {config.pair}", "--proposers " + " ".join(config.proposers),
             "--k " + " ".join(map(str, config.ks)), "--temperatures " + " ".join(f"{t:g}" for t in config.temperatures)]
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
            parts.append("--policy-temperatures " + " ".join(f"{t:g}" for t in config.policy_temperatures))
        if "threshold" in config.policies:
            parts.append(f"--threshold {config.threshold:g}")
    if config.layers is not None:
        parts.append(f"--layers {config.layers}")
    parts.append(f"--hf {config.hf}")
    if config.clock != "wall":
        parts.append(f"--clock {config.clock}")
    if not config.record_overhead:
        parts.append("--no-record-overhead")
    if config.seed:
        parts.append(f"--seed {config.seed}")
    if out:
        parts.append(f"--out {out}")
    return " ".join(parts)


def run_bench_command(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from specviz.models import load_pair

    config = config_from_args(args)
    if config.proposers:
        config.check()  # fail fast, before loading a model
    pair = load_pair(config.pair, progress=lambda msg: print(msg, file=sys.stderr))
    config.proposers = config.proposers or [pair.default_proposer]
    config.check()
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
