"""One case of the benchmark: every method on one prompt at one temperature, timed side by side.

    runner = CaseRunner(config, pair, proposers, assistants, costs, clock)
    for temperature, configs in runner.plan().items():
        results, baselines = runner.case(suite, prompt, ids, temperature, configs, tick)   # CaseResult, BaselineResult

The methods are specviz's target-only decoding, `model.generate`, speculative decoding for every proposer x policy x
K, and transformers' own assisted generation (or prompt lookup) with the same K. The runs of each repeat are
interleaved so a burst of machine noise hits every method alike; each case becomes one `CaseResult` per
configuration (rows.py), with the speedups against the baselines and the paper's predicted speedup next to the
measured one.
"""

from __future__ import annotations

import copy
import math
import statistics
from collections import defaultdict
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import torch

from specviz.engine.draft_shape import DraftShape
from specviz.engine.generation import Clock, default_clock, synchronize
from specviz.engine.policies import confident
from specviz.engine.proposers import registry
from specviz.engine.trace import Trace
from specviz.labs.bench.config import BenchConfig
from specviz.labs.bench.report import HF_GENERATE, TARGET_ONLY
from specviz.labs.bench.rows import BaselineResult, CaseResult
from specviz.labs.bench.summary import limits, predicted_speedups
from specviz.runs.running import run, run_target_only
from specviz.runs.runspec import RunSpec


# ---- transformers' own generation ---------------------------------------------------------------------------------


def hf_generate(target, ids: list[int], *, max_new_tokens: int, temperature: float, seed: int,
                assistant=None, k: int | None = None, prompt_lookup: int | None = None,
                clock: Clock = default_clock) -> tuple[list[int], float]:
    """transformers' `model.generate` on the target (with an assistant model or prompt lookup when given);
    returns the new token ids and the seconds `clock` measured (wall time, or the process's CPU time with --clock
    cpu)."""
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
        config = copy.deepcopy(saved)
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


def _pad_id(model) -> int | None:
    config = model.generation_config
    if config.pad_token_id is not None:
        return config.pad_token_id
    eos = config.eos_token_id
    return eos[0] if isinstance(eos, list) else eos


# ---- one case -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Configuration:
    """One speculative configuration of a case: which proposer, which policy, which K, which tree (0: a chain)."""

    proposer: str
    policy: str
    k: int
    tree_nodes: int = 0
    tree_width: int = 0
    tree_lookup: int = 0  # tokens the tree also copies from the context; 0 = no lookup branch

    @property
    def shape(self) -> DraftShape:
        return DraftShape(self.k, self.tree_nodes, self.tree_width or 4, self.tree_lookup if self.tree_nodes else 0)

    @property
    def label(self) -> str:
        return f"{self.proposer} {self.policy} {self.shape.shown()}"  # progress: the shape as shown


@dataclass
class Timed:
    """One method's repeats in a case, pooled: the tokens of the first repeat and the median time over all."""

    output_ids: list[int]
    seconds: float

    @property
    def tokens_per_second(self) -> float:
        return len(self.output_ids) / self.seconds

    @classmethod
    def of_traces(cls, traces: list[Trace]) -> Timed:
        return cls(traces[0].output_ids, statistics.median(t.wall_seconds for t in traces))

    @classmethod
    def of_generate(cls, runs: list[tuple[list[int], float]]) -> Timed:
        return cls(runs[0][0], statistics.median(seconds for _, seconds in runs))


@dataclass
class Repeats:
    """What one case ran: every method's repeats (the speculative ones and transformers' twins by configuration
    index), and the seconds (on the bench's clock) of the runs that recorded the full trace."""

    target_only: list[Trace] = field(default_factory=list)
    generate: list[tuple[list[int], float]] = field(default_factory=list)
    speculative: dict[int, list[Trace]] = field(default_factory=lambda: defaultdict(list))
    assisted: dict[int, list[tuple[list[int], float]]] = field(default_factory=lambda: defaultdict(list))
    recorded_seconds: dict[int, float] = field(default_factory=dict)


class CaseRunner:
    """Runs the methods of one case, interleaved repeat by repeat, and turns the traces into typed results."""

    def __init__(self, config: BenchConfig, pair, proposers, twins, costs, clock: Clock):
        """`twins`: per proposer, what transformers runs for the same method (`ProposerInfo.transformers_twin`:
        {"assistant": model} or {"prompt_lookup": True}), or None."""
        self.config, self.pair, self.proposers, self.twins = config, pair, proposers, twins
        self.costs, self.clock = costs, clock

    def plan(self) -> dict[float, list[Configuration]]:
        cfg = self.config
        policy_temps = cfg.policy_temperatures if cfg.policy_temperatures is not None else cfg.temperatures
        plan: dict[float, list[Configuration]] = {}
        for temperature in dict.fromkeys([*cfg.temperatures, *policy_temps]):
            configs = []
            for name in cfg.proposers:
                if temperature in cfg.temperatures and "constant" in cfg.policies:
                    configs += [Configuration(name, "constant", k, n, w, lookup)
                                for k, n, w, lookup in self.shapes_of(name)]
                if temperature in policy_temps:
                    for policy in cfg.policies:
                        if policy == "threshold" and not self.proposers[name].has_draft_probs:
                            continue  # a lookup has no draft probability to threshold
                        if policy != "constant":
                            configs.append(Configuration(name, policy, cfg.policy_k))
            plan[float(temperature)] = configs
        self._plan_cache = plan
        return plan

    def shapes_of(self, proposer: str) -> list[tuple[int, int, int, int]]:
        """The constant shapes `proposer` runs: the config's, or for one that drafts no tree (n-gram lookup: the
        engine runs a tree shape as the chain of its K) the chain of each K, once, so no row names a tree it never
        drafted (read 44: an n-gram row read "tree 16x4 + 8" over a chain of 4, with that tree's physical limit)."""
        shapes = self.config.shape_plan()
        if getattr(self.proposers[proposer], "can_branch", True):
            return shapes
        return list(dict.fromkeys((k, 0, 0, 0) for k, *_tree in shapes))

    def records_overhead(self, config: Configuration) -> bool:
        """Whether this configuration also runs once with the full trace recorded: the constant chain at --policy-k,
        or at the first K given when --policy-k is not among them (DEFINITIONS["record_overhead"])."""
        k = self.config.policy_k if self.config.policy_k in self.config.ks else self.config.ks[0]
        return self.config.record_overhead and config.policy == "constant" and config.k == k and not config.tree_nodes

    def runs_assisted(self, config: Configuration) -> bool:
        """Whether transformers runs the same configuration (a chain of constant K with a twin method)."""
        return config.policy == "constant" and not config.tree_nodes and self.has_transformers_twin(config.proposer)

    def runs_transformers(self, temperature: float | None) -> bool:
        """Whether transformers' own generation runs at this temperature (the --hf setting)."""
        return self.config.hf == "all" or (self.config.hf == "greedy" and not temperature)

    def has_transformers_twin(self, proposer: str) -> bool:
        """Whether transformers has its own version of the method (the registry's `twin`): prompt lookup for n-gram
        (which copies after the earliest match where specviz's copies after the latest: `specviz.engine.proposers.
        ngram`), assisted generation for a draft model or an early exit; nothing for a feature drafter (EAGLE,
        Medusa), which needs the target's hidden states."""
        return self.twins.get(proposer) is not None

    def count(self, temperature: float | None) -> int:
        """Runs one case makes (temperature None: one warm-up round)."""
        cfg = self.config
        if temperature is None:
            twins = sum(1 + (self.runs_transformers(0.0) and self.has_transformers_twin(p)) for p in cfg.proposers)
            return 1 + twins + self.runs_transformers(0.0)
        configs = self._plan_cache[temperature]
        hf = self.runs_transformers(temperature)
        per_repeat = 1 + hf + len(configs) + hf * sum(self.runs_assisted(c) for c in configs)
        record = sum(self.records_overhead(c) for c in configs)
        return cfg.repeats * per_repeat + record

    # ---- single runs
    def run_spec(self, temperature: float, config: Configuration | None = None,
                 max_new_tokens: int | None = None) -> RunSpec:
        """The RunSpec of one run of this case: the pair, the settings and (for a speculative run) proposer, policy
        and K. The prompt is already encoded (`input_ids`); its text only labels the trace."""
        return RunSpec(pair=self.pair.name, proposer=config.proposer if config else None, prompt="(bench prompt)",
                       k=config.k if config else self.config.ks[0], policy=config.policy if config else "constant",
                       max_new_tokens=max_new_tokens or self.config.max_new_tokens, temperature=temperature,
                       seed=self.config.seed, tree_nodes=config.tree_nodes if config else 0,
                       tree_width=(config.tree_width if config else 0) or 4,
                       tree_lookup=config.tree_lookup if config else 0)

    def target_only(self, ids, temperature, record=False, max_new_tokens=None) -> Trace:
        """specviz's target-only decoding: the baseline of `speedup_vs_ar`."""
        return run_target_only(self.run_spec(temperature, None, max_new_tokens), pair=self.pair, input_ids=ids,
                               record=record, clock=self.clock)

    def speculative(self, ids, temperature, config: Configuration, record=False, max_new_tokens=None) -> Trace:
        """specviz's speculative decoding in one configuration."""
        proposer = self.proposers[config.proposer]
        if config.policy == "threshold":
            proposer = confident(proposer, self.config.threshold)
        return run(self.run_spec(temperature, config, max_new_tokens), pair=self.pair, input_ids=ids,
                   proposer=proposer, c=self.costs["c"].get(proposer.name), k_max=self.config.k_max, record=record,
                   clock=self.clock)

    def generate(self, ids, temperature, config: Configuration | None,
                 max_new_tokens=None) -> tuple[list[int], float]:
        """transformers' `model.generate` alone (no configuration), or its twin of the configuration: prompt lookup
        for n-gram, assisted generation with the same K for a draft model or an early exit."""
        n = max_new_tokens or self.config.max_new_tokens
        method = {} if config is None else self.twins[config.proposer]
        if not method:
            twin = {}
        elif method.get("prompt_lookup"):
            twin = {"prompt_lookup": config.k}
        else:
            twin = {"assistant": method["assistant"], "k": config.k}
        return hf_generate(self.pair.target, ids, max_new_tokens=n, temperature=temperature, seed=self.config.seed,
                           clock=self.clock, **twin)

    def warmup(self, ids, tick) -> None:
        n = min(8, self.config.max_new_tokens)
        self.target_only(ids, 0.0, max_new_tokens=n)
        tick("warm-up")
        if self.runs_transformers(0.0):
            self.generate(ids, 0.0, None, max_new_tokens=n)
            tick("warm-up")
        for name in self.config.proposers:
            config = Configuration(name, "constant", self.config.ks[0])
            self.speculative(ids, 0.0, config, max_new_tokens=n)
            tick("warm-up")
            if self.runs_transformers(0.0) and self.has_transformers_twin(name):
                self.generate(ids, 0.0, config, max_new_tokens=n)
                tick("warm-up")

    # ---- one case
    def case(self, suite, prompt, ids, temperature: float, configs: list[Configuration],
             tick) -> tuple[list[CaseResult], list[BaselineResult]]:
        """Every method on one prompt at one temperature: 1. run the repeats, interleaved; 2. run the recorded
        traces; 3. pool the baselines; 4. one result per configuration, against them."""
        where = f"{prompt.id} T={temperature:g}"
        repeats = self.run_repeats(ids, temperature, configs, tick, where)
        self.run_recorded(ids, temperature, configs, tick, where, repeats)
        target_only = Timed.of_traces(repeats.target_only)
        generate = Timed.of_generate(repeats.generate) if repeats.generate else None
        baselines = baseline_results(suite.name, prompt.id, temperature, target_only, generate)
        results = [self.case_result(suite.name, prompt.id, temperature, config, i, repeats, target_only, generate)
                   for i, config in enumerate(configs)]
        return results, baselines

    def run_repeats(self, ids, temperature: float, configs: list[Configuration], tick, where: str) -> Repeats:
        """Every method once per repeat, interleaved: every method sees the same stretch of machine noise."""
        hf = self.runs_transformers(temperature)
        repeats = Repeats()
        for _ in range(self.config.repeats):
            repeats.target_only.append(self.target_only(ids, temperature))
            tick(f"{where} target-only")
            if hf:
                repeats.generate.append(self.generate(ids, temperature, None))
                tick(f"{where} model.generate")
            for i, config in enumerate(configs):
                repeats.speculative[i].append(self.speculative(ids, temperature, config))
                tick(f"{where} {config.label}")
                if hf and self.runs_assisted(config):
                    repeats.assisted[i].append(self.generate(ids, temperature, config))
                    tick(f"{where} transformers assisted {config.proposer} K={config.k}")
        return repeats

    def run_recorded(self, ids, temperature: float, configs: list[Configuration], tick, where: str,
                     repeats: Repeats) -> None:
        """One run with the full trace recorded, for the configurations that measure what recording costs."""
        if not self.config.record_overhead:
            return
        for i, config in enumerate(configs):
            if self.records_overhead(config):
                repeats.recorded_seconds[i] = self.speculative(ids, temperature, config, record=True).wall_seconds
                tick(f"{where} {config.proposer} K={config.k} recorded")

    def case_result(self, suite: str, prompt_id: str, temperature: float, config: Configuration, index: int,
                    repeats: Repeats, target_only: Timed, generate: Timed | None) -> CaseResult:
        """One configuration's result: its counts and times, its speedups against the baselines, the paper's
        prediction and the physical limit, and transformers' twin when it ran."""
        traces = repeats.speculative[index]
        trace = traces[0]
        seconds = statistics.median(t.wall_seconds for t in traces)
        tokens_per_second = trace.num_tokens / seconds
        label = self.proposers[config.proposer].name
        c = self.costs["c"][label]
        alpha = trace.mean_accept_prob
        drafted_pos, survived_pos = _position_counts(trace)
        greedy = temperature == 0
        result = CaseResult(
            suite=suite, prompt_id=prompt_id, temperature=temperature, proposer=label, policy=config.policy,
            k=config.k, mean_k=trace.num_drafted / trace.num_steps if trace.num_steps else math.nan,
            tokens=trace.num_tokens, steps=trace.num_steps, drafted=trace.num_drafted,
            tree_nodes=config.tree_nodes, tree_width=config.tree_width or None, tree_lookup=config.tree_lookup,
            accepted=trace.num_accepted, acceptance_rate=trace.acceptance_rate, alpha=alpha,
            mat_with_bonus=trace.mean_accepted_length,
            mat_without_bonus=trace.num_accepted / trace.num_steps if trace.num_steps else math.nan,
            per_position=trace.per_position_acceptance,
            position_drafted=drafted_pos, position_survived=survived_pos,
            draft_ms=_median_ms(traces, "draft_seconds"), verify_ms=_median_ms(traces, "verify_seconds"),
            overhead_ms=_median_ms(traces, "overhead_seconds"),
            prefill_ms=1e3 * statistics.median(t.prefill_seconds for t in traces),
            seconds=seconds, tokens_per_second=tokens_per_second, c=c,
            ar_tokens=len(target_only.output_ids), ar_seconds=target_only.seconds,
            speedup_vs_ar=tokens_per_second / target_only.tokens_per_second,
            hf_generate_tokens=len(generate.output_ids) if generate else None,
            hf_generate_seconds=generate.seconds if generate else None,
            speedup_vs_hf_generate=tokens_per_second / generate.tokens_per_second if generate else None,
            record_overhead=(repeats.recorded_seconds[index] / seconds - 1
                             if index in repeats.recorded_seconds else None),
            identical=(trace.output_ids == target_only.output_ids) if greedy else None,
        )
        if config.policy == "constant" and not config.tree_nodes and math.isfinite(alpha):
            result = replace(result, **predicted_speedups(alpha, config.k, c, self.costs,
                                                          registry.one_pass(config.proposer)))
        result = replace(result, **limits(asdict(result), self.costs))
        if index in repeats.assisted:
            assisted = Timed.of_generate(repeats.assisted[index])
            result = replace(
                result, hf_assisted_method=registry.twin_method(self.twins[config.proposer]),
                hf_assisted_tokens=len(assisted.output_ids), hf_assisted_seconds=assisted.seconds,
                hf_assisted_speedup=assisted.tokens_per_second / generate.tokens_per_second if generate else None,
                speedup_vs_hf_assisted=tokens_per_second / assisted.tokens_per_second,
                hf_assisted_identical=(assisted.output_ids == target_only.output_ids) if greedy else None)
        return result


def baseline_results(suite: str, prompt_id: str, temperature: float, target_only: Timed,
                     generate: Timed | None) -> list[BaselineResult]:
    """The baselines of one case: specviz target-only, and transformers' model.generate when it ran."""
    greedy = temperature == 0
    out = [BaselineResult(suite, prompt_id, temperature, TARGET_ONLY, len(target_only.output_ids),
                          target_only.seconds, target_only.tokens_per_second, True if greedy else None)]
    if generate:
        out.append(BaselineResult(suite, prompt_id, temperature, HF_GENERATE, len(generate.output_ids),
                                  generate.seconds, generate.tokens_per_second,
                                  (generate.output_ids == target_only.output_ids) if greedy else None))
    return out


def _median_ms(traces, attr: str) -> float:
    """Median over repeats of the mean per-step time, in milliseconds."""
    return 1e3 * statistics.median(
        sum(getattr(s, attr) for s in t.steps) / t.num_steps if t.num_steps else 0.0 for t in traces)


def _position_counts(trace) -> tuple[list[int], list[int]]:
    """Per draft position i: how many steps drafted at least i+1 tokens ahead (a tree: reached depth i+1), and in
    how many the first i+1 survived."""
    k_max = max((s.draft_depth for s in trace.steps), default=0)
    drafted = [sum(s.draft_depth > i for s in trace.steps) for i in range(k_max)]
    survived = [sum(s.draft_depth > i and s.n_accepted > i for s in trace.steps) for i in range(k_max)]
    return drafted, survived
