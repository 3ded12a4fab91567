"""The rows a bench case writes, typed: `CaseResult` for one speculative configuration and `BaselineResult` for one
baseline method, each on one prompt at one temperature.

    CaseResult(...).to_row()["speedup_vs_ar"]      # the dict results.json holds

A field's name is its key in results.json, in the file's order, so `to_row()` writes what the committed results
hold and what the pages read. The pooled meaning of each metric is in `DEFINITIONS` (summary.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from specviz.labs.bench.report import Row, nan_to_null


@dataclass
class BaselineResult:
    """A baseline method (specviz target-only or transformers' `model.generate`) on one prompt at one temperature."""

    suite: str
    prompt_id: str
    temperature: float
    method: str  # TARGET_ONLY or HF_GENERATE
    tokens: int  # new tokens of the first repeat
    seconds: float  # median over repeats
    tokens_per_second: float
    identical: bool | None  # greedy: the same tokens as target-only; None when sampling

    def to_row(self) -> Row:
        """The row as results.json holds it (nan written as null)."""
        return nan_to_null(asdict(self))


@dataclass
class CaseResult:
    """One speculative configuration (proposer x policy x K x tree) on one prompt at one temperature, measured side
    by side with the baselines. Times are medians over repeats; counts come from the first repeat's trace."""

    suite: str
    prompt_id: str
    temperature: float
    proposer: str  # the proposer's label, e.g. "layerskip-7"
    policy: str
    k: int
    mean_k: float  # drafted tokens over every step: at most K for a constant chain, below it where a step drafts
    # fewer (an n-gram miss, the last steps' room; an adaptive policy varies K); a tree's nodes and copied tokens per
    # step (Step.n_drafted), not its depth K
    tokens: int  # emitted tokens
    steps: int  # target forwards after the prefill
    drafted: int  # drafted + copied: a tree's nodes and its lookup branch's copied tokens (Trace.num_drafted)
    tree_nodes: int  # 0: a chain of K drafts
    tree_width: int | None
    accepted: int
    acceptance_rate: float  # accepted / (drafted + copied), the measured count (a chain copies none)
    alpha: float  # α: mean min(1, p/q) over the tested drafts (a tree: min(1, p′/q′) on its main line, not α)
    mat_with_bonus: float  # mean accepted length (Spec-Bench's #MAT), the recovered or bonus token included
    mat_without_bonus: float  # accepted drafts per step
    per_position: list[float]
    position_drafted: list[int]  # per draft position: steps that drafted that far
    position_survived: list[int]  # ... and kept every draft up to it
    draft_ms: float  # per step
    verify_ms: float
    overhead_ms: float
    prefill_ms: float
    seconds: float
    tokens_per_second: float
    c: float  # draft forward / target forward, measured
    ar_tokens: int  # specviz target-only, the baseline of speedup_vs_ar
    ar_seconds: float
    speedup_vs_ar: float
    hf_generate_tokens: int | None  # transformers' model.generate, when it ran
    hf_generate_seconds: float | None
    speedup_vs_hf_generate: float | None
    hf_assisted_method: str | None = None  # "assisted generation" or "prompt lookup", when transformers ran its twin
    hf_assisted_tokens: int | None = None
    hf_assisted_seconds: float | None = None
    hf_assisted_speedup: float | None = None  # transformers' own gain over its model.generate
    speedup_vs_hf_assisted: float | None = None
    predicted_speedup: float | None = None  # the paper's formula from α, K and c (constant chains)
    predicted_speedup_measured_verify: float | None = None
    # one run with the full trace recorded over the median of the --repeats runs without it, minus 1 (one chain
    # per proposer and temperature: DEFINITIONS["record_overhead"]); None where not measured
    record_overhead: float | None = None
    identical: bool | None = None  # greedy: the same tokens as target-only; None when sampling
    hf_assisted_identical: bool | None = None
    physical_limit: float | None = None  # a perfect, free draft of the same shape
    fraction_of_limit: float | None = None
    tree_lookup: int = 0  # tokens a tree also copied from the context (its lookup branch); 0 = none

    def to_row(self) -> Row:
        """The row as results.json holds it (nan written as null)."""
        return nan_to_null(asdict(self))
