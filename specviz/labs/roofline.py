"""When speculation stops paying: a roofline model of one forward pass, and what the batch size does to the speedup.

One forward over n new tokens for each of B sequences reads every weight once and each sequence's KV cache, and
does about 2 FLOPs per parameter per token (Kaplan et al. 2020; attention's own FLOPs are left out):

    t(B, n) = max( (weight_bytes + B · context · kv_bytes_per_token) / bandwidth ,  2 · params · B · n / flops )
                   memory time: read the weights and the caches                     compute time

whichever takes longer (the roofline model, Williams et al. 2009). Verifying K drafts is one target forward over
n = K + 1 tokens per sequence, so in one-token forwards it costs

    v(B, K) = t(B, K + 1) / t(B, 1),        and a draft token costs  c(B) = t_draft(B, 1) / t_target(B, 1),

and the speedup is E[tokens per step] / (K c + v) (`specviz.engine.theory.speedup_with_verify_cost`). At batch 1 on a GPU
the memory term dominates, v = 1 and the paper's formula holds. As B grows the compute term catches up, in three
stages. The verify pass over K + 1 tokens per sequence turns compute-bound first (`ridge_batch(target, hw, K + 1,
context)`): from there each verified position adds compute, and v climbs from 1 toward K + 1. Speculation, which
spends idle compute to save memory reads, stops paying where v passes E[tokens per step] − K c
(`break_even_batch`), usually well after that and well before v reaches K + 1, which happens only once even a
one-token pass is compute-bound (`ridge_batch(target, hw, 1, context)`); there the speedup is below 1 for every
alpha < 1. For Qwen2.5-7B drafting for 72B on an H100 at a 512-token context, alpha = 0.8, K = 4: compute-bound
verify from batch 64, break-even at 212 (v = 2.9), v = 5 past 448. Long contexts are the exception: the KV caches grow
with B too, so the pass can stay memory-bound (MagicDec, Sadhukhan et al. 2024).

Pure functions of numbers, plus one reader of the committed benchmark (the "benchmark CPU" preset). Time to first
token is not in here: speculation leaves the target's prefill as it is and adds only the draft's own pass over the
prompt (nothing for n-gram lookup), which c does not price: c compares one-token passes, a prefill scores the whole
prompt at once.

    >>> pair, hw = PAIRS["qwen-7b-72b"], HARDWARE["h100"]
    >>> math.ceil(ridge_batch(pair.target, hw, 5, 512)), break_even_batch(0.8, 4, pair, hw, 512)
    (64, 212)
    >>> round(verify_cost(pair.target, hw, 212, 4, 512), 1), math.ceil(ridge_batch(pair.target, hw, 1, 512))
    (2.9, 448)

    >>> h100, pair = HARDWARE["h100"], PAIRS["qwen-7b-72b"]
    >>> verify_cost(pair.target, h100, batch=1, k=4, context=0)  # memory-bound: 5 tokens cost what 1 does
    1.0
    >>> verify_cost(pair.target, h100, batch=4096, k=4, context=0)  # compute-bound: 5 tokens cost 5
    5.0
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from specviz.core.i18n import N_, _, given, number
from specviz.core.paths import BENCHMARKS_DIR
from specviz.engine import theory
from specviz.engine.limits import PAYS_TOLERANCE, pays  # noqa: F401 (roofline.pays: the predicted curves' rule)
from specviz.labs.bench.quoted import kernels_words, machine_text
from specviz.labs.bench.report import (PACKING_SHIPPED, BenchResult, rerun_command,  # noqa: F401 - PACKING_SHIPPED
                                       run_kernels)  # is this module's name too

BYTES = {"float32": 4, "bfloat16": 2}
MAX_BATCH = 1024  # the largest batch the explorer looks at


@dataclass(frozen=True)
class Hardware:
    """What bounds a forward pass: memory bandwidth (bytes/s), dense arithmetic (FLOP/s in `dtype`) and memory
    capacity (bytes: `GIB` for the GiB a device's "GB" means). `source` says where the numbers come from."""

    name: str
    bandwidth: float
    flops: float
    memory: float
    dtype: str
    source: str

    @property
    def ridge_flops_per_byte(self) -> float:
        """FLOPs per byte read at which the two roofs meet: below it a pass waits on memory."""
        return self.flops / self.bandwidth


@dataclass(frozen=True)
class Model:
    """A model as the roofline sees it: parameters read per forward, KV-cache elements per token (2 · layers ·
    KV heads · head size), and `shared` parameters it reads but the target already stores (an EAGLE drafter's LM
    head), which cost no extra memory."""

    name: str
    params: float
    kv_per_token: float
    shared: float = 0.0

    def weight_bytes(self, dtype: str) -> float:
        return self.params * BYTES[dtype]

    def kv_bytes(self, dtype: str, tokens: float) -> float:
        return self.kv_per_token * BYTES[dtype] * tokens


@dataclass(frozen=True)
class ModelPair:
    """A target and its draft (None: a proposer with no model, such as n-gram lookup, c = 0)."""

    name: str
    target: Model
    draft: Model | None
    context: int  # a typical context length for this pair, tokens per sequence


# SmolLM2-135M (HuggingFaceTB/SmolLM2-135M-Instruct config.json): 30 layers, hidden 576, 3 KV heads of 64, vocab
# 49,152, tied embeddings: 134.5 M parameters, 2 · 30 · 3 · 64 = 11,520 KV elements per token.
SMOLLM2 = Model("SmolLM2-135M", 134_515_008, 11_520)
# specviz's EAGLE-3 drafter (assets/models/smollm2-eagle/model.safetensors): fc (3 · 576 → 576), one decoder layer
# whose q, k, v read 1,152 wide, and its own head over an 8,192-token draft vocabulary: 9,808,128 parameters.
SMOLLM2_EAGLE = Model("EAGLE-3 drafter (1 layer, own head)", 9_808_128, 2 * 1 * 3 * 64)
# specviz's separate draft model (assets/models/smollm2-draft/config.json): 4 layers of SmolLM2 with its own tied
# embeddings: 28.3 M + 4 · 3.54 M = 42.5 M parameters.
SMOLLM2_DRAFT = Model("separate draft model (4 layers)", 42_472_512, 2 * 4 * 3 * 64)
# Qwen2.5-72B / Qwen2.5-7B (their config.json; assets/catalog.yaml's qwen2.5-7b-72b): 80 layers, 8 KV heads of 128;
# 28 layers, 4 KV heads of 128.
QWEN_72B = Model("Qwen2.5-72B", 72.7e9, 2 * 80 * 8 * 128)
QWEN_7B = Model("Qwen2.5-7B", 7.62e9, 2 * 28 * 4 * 128)

PAIRS: dict[str, ModelPair] = {
    "smollm2-eagle": ModelPair(N_("SmolLM2-135M + its EAGLE drafter (the default pair)"), SMOLLM2, SMOLLM2_EAGLE,
                               512),
    "smollm2-draft": ModelPair(N_("SmolLM2-135M + its separate 4-layer draft"), SMOLLM2, SMOLLM2_DRAFT, 512),
    "smollm2-ngram": ModelPair(N_("SmolLM2-135M + n-gram lookup (no draft model)"), SMOLLM2, None, 512),
    "qwen-7b-72b": ModelPair(N_("7B drafts for 72B: Qwen2.5-7B → Qwen2.5-72B"), QWEN_72B, QWEN_7B, 2048),
}  # the names (and the hardware's names and sources below) are English; pages show them through _()

# Dense bfloat16 tensor throughput and memory bandwidth from the vendors' data sheets (the sparse figures are twice
# these); a laptop is an estimate, not a product. Bandwidths are decimal (3.35 TB/s = 3.35e12 bytes/s), but a memory
# size is binary: an "80 GB" H100 holds 80 GiB = 85.9e9 bytes, and a laptop's 16 GB of RAM 16 GiB (read 45: at 80e9
# bytes the default pair's 149.8 GiB "took 3" H100s, where 2 hold it).
GIB = 2**30
HARDWARE: dict[str, Hardware] = {
    "laptop": Hardware(N_("a laptop CPU"), 70e9, 1e12, 16 * GIB, "float32",
                       N_("estimate: dual-channel DDR5-4800 (77 GB/s peak, ~70 usable), 8 cores with AVX2 FMA "
                          "(~1 TFLOPS float32), 16 GB")),
    "l4": Hardware("NVIDIA L4", 300e9, 121e12, 24 * GIB, "bfloat16",
                   N_("NVIDIA L4 data sheet: 300 GB/s GDDR6, 121 TFLOPS bf16 dense (242 with sparsity), 24 GB")),
    "a100": Hardware("NVIDIA A100 80GB SXM", 2039e9, 312e12, 80 * GIB, "bfloat16",
                     N_("NVIDIA A100 data sheet: 2,039 GB/s HBM2e, 312 TFLOPS bf16 dense (624 with sparsity), "
                        "80 GB")),
    "h100": Hardware("NVIDIA H100 SXM", 3350e9, 989e12, 80 * GIB, "bfloat16",
                     N_("NVIDIA H100 data sheet: 3.35 TB/s HBM3, 989 TFLOPS bf16 dense (1,979 with sparsity), "
                        "80 GB")),
}


# ---- the roofline -----------------------------------------------------------------------------------------------


def _check(batch: float, n_tokens: float, context: float) -> None:
    try:  # an int past float's range (10**400) cannot be timed: refused below, not an OverflowError
        finite = math.isfinite(batch * n_tokens * context) and math.isfinite(batch * n_tokens)
    except (OverflowError, TypeError):
        finite = False
    if not (finite and batch >= 1 and n_tokens >= 1 and context >= 0):
        raise ValueError(_("The batch and the tokens per pass must be 1 or more and the context 0 or more (got batch "
                           "{batch}, tokens per pass {tokens}, context {context}).", batch=given(batch), tokens=given(n_tokens),
                           context=given(context)))


def memory_seconds(model: Model, hw: Hardware, batch: float, context: float) -> float:
    """Time to read the weights once and each of `batch` KV caches of `context` tokens."""
    return (model.weight_bytes(hw.dtype) + batch * model.kv_bytes(hw.dtype, context)) / hw.bandwidth


def compute_seconds(model: Model, hw: Hardware, batch: float, n_tokens: float) -> float:
    """Time for 2 FLOPs per parameter for each of batch · n_tokens tokens."""
    return 2.0 * model.params * batch * n_tokens / hw.flops


def forward_seconds(model: Model, hw: Hardware, batch: float, n_tokens: float, context: float) -> float:
    """One forward over `n_tokens` new tokens for each of `batch` sequences: the slower of memory and compute.

    >>> round(forward_seconds(QWEN_72B, HARDWARE["h100"], 1, 1, 0) * 1000, 2)  # 145.4 GB at 3.35 TB/s
    43.4
    """
    _check(batch, n_tokens, context)
    return max(memory_seconds(model, hw, batch, context), compute_seconds(model, hw, batch, n_tokens))


def verify_cost(target: Model, hw: Hardware, batch: float, k: int, context: float) -> float:
    """v(B, K) = t(B, K + 1) / t(B, 1): the verify pass in one-token forwards, 1 while the K + 1-token pass is
    memory-bound, then climbing, and K + 1 only once even the one-token pass is compute-bound."""
    k = theory._check_k(k)
    return forward_seconds(target, hw, batch, k + 1, context) / forward_seconds(target, hw, batch, 1, context)


def draft_cost_ratio(pair: ModelPair, hw: Hardware, batch: float, context: float) -> float:
    """c(B) = one draft forward / one target forward, both over one token per sequence; 0 with no draft model."""
    if pair.draft is None:
        return 0.0
    return (forward_seconds(pair.draft, hw, batch, 1, context)
            / forward_seconds(pair.target, hw, batch, 1, context))


def ridge_batch(model: Model, hw: Hardware, n_tokens: int, context: float) -> float:
    """The batch at which a pass over `n_tokens` per sequence turns compute-bound (memory time = compute time);
    inf when the KV caches grow as fast as the compute and the pass never does.

    Solves W + B·ctx·kv = 2·P·B·n · bandwidth / flops for B. With no context,
    B·n = bytes per parameter · flops / (2 · bandwidth): 295 tokens per pass on an H100 in bfloat16.

    >>> round(ridge_batch(QWEN_72B, HARDWARE["h100"], 1, 0), 1)
    295.2
    """
    _check(1, n_tokens, context)
    per_sequence = 2.0 * model.params * n_tokens * hw.bandwidth / hw.flops - model.kv_bytes(hw.dtype, context)
    return model.weight_bytes(hw.dtype) / per_sequence if per_sequence > 0 else math.inf


# ---- the speedup as the batch grows ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BatchPoint:
    """Everything the roofline says at one batch size, for one alpha and K."""

    batch: int
    verify_cost: float  # v(B, K)
    draft_cost: float  # c(B)
    speedup: float  # E[tokens per step] / (K c + v)
    break_even_alpha: float  # where speedup = 1 at this batch (nan: never pays at this batch)
    compute_bound: bool  # is the verify pass compute-bound here?


def at_batch(alpha: float, k: int, pair: ModelPair, hw: Hardware, batch: int, context: float) -> BatchPoint:
    """The speedup and the break-even alpha at one batch size.

    >>> p = at_batch(0.8, 4, PAIRS["qwen-7b-72b"], HARDWARE["h100"], 1, 0)
    >>> p.verify_cost, round(p.draft_cost, 4), round(p.speedup, 3)
    (1.0, 0.1048, 2.369)
    """
    v = verify_cost(pair.target, hw, batch, k, context)
    c = draft_cost_ratio(pair, hw, batch, context)
    n = theory._check_k(k) + 1
    bound = compute_seconds(pair.target, hw, batch, n) > memory_seconds(pair.target, hw, batch, context)
    return BatchPoint(int(batch), v, c, theory.speedup_with_verify_cost(alpha, k, c, v),
                      theory.break_even_alpha(k, c, v), bound)


def batch_grid(max_batch: int = MAX_BATCH) -> list[int]:
    """Batch sizes 1..max_batch, dense at the small end (every integer to 16, then ~10 per doubling)."""
    values = np.unique(np.round(np.geomspace(1, max_batch, 100)).astype(int))
    return sorted(set(range(1, min(16, max_batch) + 1)) | {int(b) for b in values})


def sweep(alpha: float, k: int, pair: ModelPair, hw: Hardware, context: float,
          batches: list[int] | None = None) -> list[BatchPoint]:
    """at_batch over a grid of batch sizes (default batch_grid())."""
    return [at_batch(alpha, k, pair, hw, b, context) for b in (batches or batch_grid())]


def break_even_batch(alpha: float, k: int, pair: ModelPair, hw: Hardware, context: float,
                     max_batch: int = MAX_BATCH) -> int | None:
    """The largest batch (1..max_batch) up to which speculation pays at every batch (`pays`: speedup >= 1, a tie
    included); 0 when it does not pay at batch 1, or when K = 0 (nothing is drafted: its speedup, 1 / v = 1 at every
    batch, is no gain), None when it pays at every batch up to max_batch. Grows with alpha: a better draft keeps
    paying into larger batches. The speedup need not fall from batch 1: where c falls as the batch grows (the
    SmolLM2 pairs, whose drafts' KV caches are a smaller share of the target's than their weights), a 0 can have
    larger batches that pay (`paying_batches`).

    >>> [break_even_batch(a, 4, PAIRS["qwen-7b-72b"], HARDWARE["h100"], 0) for a in (0.3, 0.6, 0.9)]
    [59, 111, 217]
    >>> break_even_batch(0.8, 0, PAIRS["qwen-7b-72b"], HARDWARE["h100"], 0)
    0
    """
    if k == 0:
        return 0
    tokens, last = theory.expected_tokens_per_step(alpha, k), 0
    for b in range(1, max_batch + 1):  # stop at the first loss (past batch 1 the speedup may still rise)
        if not _pays(tokens, k, pair, hw, b, context):
            return last
        last = b
    return None


def paying_batches(alpha: float, k: int, pair: ModelPair, hw: Hardware, context: float,
                   max_batch: int = MAX_BATCH) -> list[int]:
    """Every batch (1..max_batch) at which speculation pays (`pays`), for a `break_even_batch` of 0: one that
    loses at batch 1 can pay at larger batches where c falls as the batch grows.

    >>> paying_batches(0.05, 1, PAIRS["smollm2-eagle"], HARDWARE["h100"], 512)[:2]
    [32, 33]
    >>> paying_batches(0.0, 4, PAIRS["qwen-7b-72b"], HARDWARE["h100"], 512)
    []
    """
    if k == 0:
        return []
    tokens = theory.expected_tokens_per_step(alpha, k)
    return [b for b in range(1, max_batch + 1) if _pays(tokens, k, pair, hw, b, context)]


def _pays(tokens: float, k: int, pair: ModelPair, hw: Hardware, batch: int, context: float) -> bool:
    """Whether speculation pays at `batch` (`pays`): the `tokens` a step emits over its cost, K·c + v, in one-token
    target forwards. One test for `break_even_batch` and `paying_batches`, and through them for the Theory page and
    the Serving lab's prediction."""
    return pays(tokens / (k * draft_cost_ratio(pair, hw, batch, context)
                          + verify_cost(pair.target, hw, batch, k, context)))


# ---- what the draft costs besides time ----------------------------------------------------------------------------


@dataclass(frozen=True)
class DraftCosts:
    """The draft's price in memory and in arithmetic.

    `extra_bytes`: the draft's own weights plus its KV caches at this batch and context. `flops_per_token_ratio`:
    FLOPs spent per emitted token with speculation over plain decoding's 2·P (the target scores K + 1 positions and
    the draft K, for E tokens). `wasted_share`: the share of the target's verified positions whose result is thrown
    away (1 − E / (K + 1)).
    """

    extra_bytes: float
    target_bytes: float
    flops_per_token_ratio: float
    wasted_share: float


def draft_costs(alpha: float, k: int, pair: ModelPair, dtype: str, batch: int, context: float) -> DraftCosts:
    """What the draft costs besides time (see DraftCosts).

    >>> d = draft_costs(0.8, 4, PAIRS["qwen-7b-72b"], "bfloat16", 1, 0)
    >>> round(d.extra_bytes / 1e9, 2), round(d.flops_per_token_ratio, 3), round(d.wasted_share, 4)
    (15.24, 1.612, 0.3277)
    """
    _check(batch, 1, context)
    tokens = theory.expected_tokens_per_step(alpha, k)
    target = pair.target
    target_bytes = target.weight_bytes(dtype) + batch * target.kv_bytes(dtype, context)
    draft = pair.draft
    extra = 0.0 if draft is None else ((draft.params - draft.shared) * BYTES[dtype]
                                       + batch * draft.kv_bytes(dtype, context))
    draft_params = 0.0 if draft is None else draft.params
    flops = (target.params * (k + 1) + draft_params * k) / tokens  # per emitted token, in units of 2 FLOPs
    return DraftCosts(extra, target_bytes, flops / target.params, 1.0 - tokens / (k + 1))


# ---- the benchmark CPU, from its measured verify-cost curve -------------------------------------------------------

MEASURED_RUN = "default-cpu-ngram"  # --threads 1 --clock cpu, n = 1..9 tokens, 83 tokens of context, 15 repeats


def fit_hardware(model: Model, dtype: str, one_token_seconds: float, context: float,
                 ratios: dict[int, float], name: str, source: str, memory: float = math.nan) -> Hardware:
    """The hardware whose roofline best matches a measured verify-cost curve (n tokens -> t(n) / t(1)).

    Bandwidth: the one-token forward is taken as memory-bound, so bandwidth = bytes read / its time (an effective
    figure: it includes every overhead of a real forward). FLOPs: the one number left, fitted by least squares of
    max(1, n · r) to the measured ratios, where r = compute time / memory time of one token.

    >>> hw = fit_hardware(SMOLLM2, "float32", 0.05, 0, {1: 1.0, 4: 1.0, 8: 2.0}, "demo", "")
    >>> round(hw.bandwidth / 1e9, 2), round(hw.flops / 1e9, 2)  # r = 1/4: one token computes in 12.5 ms
    (10.76, 21.52)
    """
    if not (one_token_seconds > 0 and ratios):
        raise ValueError(_("A measured verify-cost curve needs a one-token time and at least one ratio."))
    bandwidth = (model.weight_bytes(dtype) + model.kv_bytes(dtype, context)) / one_token_seconds
    ns = np.array(sorted(ratios), dtype=float)
    measured = np.array([ratios[int(n)] for n in ns])
    grid = np.linspace(1e-4, 1.0, 10_000)  # r from "compute is free" to "one token is already compute-bound"
    errors = ((np.maximum(1.0, np.outer(grid, ns)) - measured) ** 2).sum(axis=1)
    r = float(grid[int(np.argmin(errors))])
    flops = 2.0 * model.params / (r * one_token_seconds)
    return Hardware(name, bandwidth, flops, memory, dtype, source)


def _measured_run(folder: Path | str | None = None) -> Any:
    """The committed run the "measured" preset is fitted to, as its JSON (OSError or ValueError when unreadable):
    the one reader of that file for `measured_hardware`, `measured_kernels` and `measured_curve`."""
    return json.loads((Path(folder or BENCHMARKS_DIR) / MEASURED_RUN / "results.json").read_text(encoding="utf-8"))


def measured_hardware(folder: Path | str | None = None) -> Hardware | None:
    """"The project's benchmark CPU, as measured": the roofline fitted to the verify-cost curve the committed n-gram
    benchmark measured with SmolLM2-135M in float32 and PyTorch's stock kernels, before specviz packed them
    (assets/benchmarks/default-cpu-ngram/results.json, "costs"): the same CPU with the packed kernels verifies a few
    tokens for about one token's cost. None when the file is missing or has no curve. Not the machine the app runs on
    (the Speedup lab's "This machine")."""
    try:
        data = _measured_run(folder)
        costs = data["costs"]
        ratios = {int(row["n_tokens"]): float(row["ratio"]) for row in costs["verify"]}
        one, context = float(costs["target_forward_seconds"]), float(costs["context_tokens"])
        run = BenchResult.from_dict(data)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not ratios or not all(math.isfinite(x) and x > 0 for x in (*ratios.values(), one)) \
            or not (math.isfinite(context) and context >= 0):  # an empty, NaN or zero curve: no curve to fit
        return None
    name = _("the project's benchmark CPU, as measured: {machine}", machine=machine_text(run.machine) or "?")
    # the recorded command with the defaults the run had (report.rerun_differences): typed as recorded, it would
    # run today's (bfloat16 where the CPU has bf16 instructions, packed kernels, more suites)
    source = _("fitted to the verify-cost curve of `{command}`: SmolLM2-135M in float32 with {kernels} kernels, "
               "one-token forward {ms} ms, n = 1..{n} tokens", command=rerun_command(run),
               kernels=kernels_words(run_kernels(run.machine)), ms=number(one * 1000, 1), n=max(ratios))
    if rerun_command(run) != run.command:
        source += " " + _("(the command its results.json records, with the defaults it then ran spelled out)")
    return fit_hardware(SMOLLM2, "float32", one, context, ratios, name, source)


def measured_kernels(folder: Path | str | None = None) -> str:
    """The linear kernels of the run `measured_hardware` fits ("stock" for the committed one: it predates packing),
    "?" when its file cannot be read.

    >>> measured_kernels()
    'stock'
    """
    try:
        data = _measured_run(folder)
    except (OSError, ValueError):
        return "?"
    return run_kernels(data.get("machine") or {}) if isinstance(data, dict) else "?"


def measured_curve(folder: Path | str | None = None) -> dict[int, float]:
    """The committed verify-cost curve itself (n tokens -> t(n) / t(1)); empty when missing or damaged."""
    try:
        rows = _measured_run(folder)["costs"]["verify"]
        curve = {int(r["n_tokens"]): float(r["ratio"]) for r in rows}
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return curve if all(math.isfinite(x) and x > 0 for x in curve.values()) else {}  # a NaN is no measurement


def fitted_curve(folder: Path | str | None = None) -> dict[int, float]:
    """The "measured" preset's own curve, t(n) / t(1) for the n of `measured_curve`, at the context the run measured
    and the fit used (`costs.context_tokens`: 83 tokens for the committed run; read 46: the Theory page drew it at no
    context, 2.09 for 2.07 at n = 9); empty when that preset or its curve is missing.

    >>> round(fitted_curve()[9], 2)
    2.07
    """
    hw, curve = measured_hardware(folder), measured_curve(folder)
    if hw is None or not curve:
        return {}
    context = measured_context(folder)
    one = forward_seconds(SMOLLM2, hw, 1, 1, context)
    return {n: forward_seconds(SMOLLM2, hw, 1, n, context) / one for n in curve}


def measured_context(folder: Path | str | None = None) -> float:
    """The context, in tokens, at which the committed run measured its verify-cost curve (`costs.context_tokens`),
    one sequence at a time: where `measured_curve` and `fitted_curve` hold. nan when the file cannot be read.

    >>> measured_context()
    83.0
    """
    try:
        return float(_measured_run(folder)["costs"]["context_tokens"])
    except (OSError, ValueError, KeyError, TypeError):
        return math.nan


def hardware_presets(folder: Path | str | None = None) -> dict[str, Hardware]:
    """Every preset, the benchmark CPU first when its measurement is committed."""
    measured = measured_hardware(folder)
    return ({"measured": measured} if measured else {}) | HARDWARE

