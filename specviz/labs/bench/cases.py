"""One case of the benchmark: every method on one prompt at one temperature, timed side by side.

    runner = CaseRunner(config, pair, proposers, assistants, costs, clock)
    for temperature, specs in runner.plan().items():
        case_rows, baseline_rows = runner.case(suite, prompt, ids, temperature, specs, tick)

The methods are specviz's target-only decoding, `model.generate`, speculative decoding for every proposer x policy x
K, and transformers' own assisted generation (or prompt lookup) with the same K. The runs of each repeat are
interleaved so a burst of machine noise hits every method alike; each case becomes one row per configuration,
with the speedups against the baselines and the paper's predicted speedup next to the measured one.
"""

from __future__ import annotations

import copy
import math
import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import torch

from specviz.engine.generation import Clock, default_clock, synchronize
from specviz.engine.policies import confident
from specviz.labs.bench.config import BenchConfig
from specviz.labs.bench.report import HF_GENERATE, TARGET_ONLY, nan_to_null
from specviz.labs.bench.summary import limits, predicted_speedups
from specviz.runs.running import run, run_target_only
from specviz.runs.runspec import RunSpec


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


@dataclass
class _Spec:
    """One speculative configuration of a case: which proposer, which policy, which K, which tree (0: a chain)."""

    proposer: str
    policy: str
    k: int
    tree_nodes: int = 0
    tree_width: int = 0

    @property
    def label(self) -> str:
        shape = f"K={self.k}" + (f" tree {self.tree_nodes}x{self.tree_width}" if self.tree_nodes else "")
        return f"{self.proposer} {self.policy} {shape}"


class CaseRunner:
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
                    specs += [_Spec(name, "constant", k, n, w) for k, n, w in cfg.shapes()]
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
        return self.config.record_overhead and spec.policy == "constant" and spec.k == k and not spec.tree_nodes

    def assisted(self, spec: _Spec) -> bool:
        """Whether transformers runs the same configuration (a chain of constant K with a twin method)."""
        return spec.policy == "constant" and not spec.tree_nodes and self.has_hf_twin(spec.proposer)

    def hf_on(self, temperature: float | None) -> bool:
        return self.config.hf == "all" or (self.config.hf == "greedy" and not temperature)

    def has_hf_twin(self, proposer: str) -> bool:
        """Whether transformers has the same method: prompt lookup for n-gram, assisted generation for a draft
        model or an early exit; nothing for a feature drafter (EAGLE), which needs the target's hidden states."""
        return proposer == "ngram" or self.assistants.get(proposer) is not None

    def count(self, temperature: float | None) -> int:
        """Runs one case makes (temperature None: one warm-up round)."""
        cfg = self.config
        if temperature is None:
            return 1 + sum(1 + (self.hf_on(0.0) and self.has_hf_twin(p)) for p in cfg.proposers) + self.hf_on(0.0)
        specs = self._plan_cache[temperature]
        hf = self.hf_on(temperature)
        per_repeat = 1 + hf + len(specs) + hf * sum(self.assisted(s) for s in specs)
        record = sum(self.records(s) for s in specs)
        return cfg.repeats * per_repeat + record

    # ---- single runs
    def run_spec(self, temperature: float, spec: _Spec | None = None, max_new_tokens: int | None = None) -> RunSpec:
        """The RunSpec of one run of this case: the pair, the settings and (for a speculative run) proposer, policy
        and K. The prompt is already encoded (`input_ids`); its text only labels the trace."""
        return RunSpec(pair=self.pair.name, proposer=spec.proposer if spec else None, prompt="(bench prompt)",
                       k=spec.k if spec else self.config.ks[0], policy=spec.policy if spec else "constant",
                       max_new_tokens=max_new_tokens or self.config.max_new_tokens, temperature=temperature,
                       seed=self.config.seed, tree_nodes=spec.tree_nodes if spec else 0,
                       tree_width=(spec.tree_width if spec else 0) or 4)

    def ar(self, ids, temperature, record=False, max_new_tokens=None):
        return run_target_only(self.run_spec(temperature, None, max_new_tokens), pair=self.pair, input_ids=ids,
                               record=record, clock=self.clock)

    def spec(self, ids, temperature, spec: _Spec, record=False, max_new_tokens=None):
        proposer = self.proposers[spec.proposer]
        if spec.policy == "threshold":
            proposer = confident(proposer, self.config.threshold)
        return run(self.run_spec(temperature, spec, max_new_tokens), pair=self.pair, input_ids=ids, proposer=proposer,
                   c=self.costs["c"].get(proposer.name), k_max=self.config.k_max, record=record, clock=self.clock)

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
            if self.hf_on(0.0) and self.has_hf_twin(name):
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
                tick(f"{where} {spec.label}")
                if hf and self.assisted(spec):
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
        b_rows = [{**base, "method": TARGET_ONLY, "tokens": len(ar_ids), "seconds": ar_sec,
                   "tokens_per_second": ar_tps, "identical": True if temperature == 0 else None}]
        hf_tps = None
        if hf_runs:
            hf_ids, hf_sec = hf_runs[0][0], statistics.median(s for _, s in hf_runs)
            hf_tps = len(hf_ids) / hf_sec
            b_rows.append({**base, "method": HF_GENERATE, "tokens": len(hf_ids), "seconds": hf_sec,
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
                "tree_nodes": spec.tree_nodes, "tree_width": spec.tree_width or None,
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
                "hf_assisted_identical": None, "physical_limit": None, "fraction_of_limit": None,
            }
            if spec.policy == "constant" and not spec.tree_nodes and math.isfinite(alpha):
                row.update(predicted_speedups(alpha, spec.k, c, self.costs))
            row.update(limits(row, self.costs))
            if i in assisted:
                a_ids = assisted[i][0][0]
                a_sec = statistics.median(s for _, s in assisted[i])
                a_tps = len(a_ids) / a_sec
                row.update(hf_assisted_method="prompt lookup" if spec.proposer == "ngram" else "assisted generation",
                           hf_assisted_tokens=len(a_ids), hf_assisted_seconds=a_sec, hf_assisted_speedup=a_tps / hf_tps if hf_tps else None,
                           speedup_vs_hf_assisted=tps / a_tps,
                           hf_assisted_identical=(a_ids == ar_ids) if temperature == 0 else None)
            rows.append(nan_to_null(row))
        return rows, b_rows


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

