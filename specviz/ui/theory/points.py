"""The measured points the Theory explorer puts next to its formulas: runs from benchmark files (α, K, c and the
measured speedup) and the trace in this session (α, K, tokens per step, c from its step timings). Plain Python:
reading JSON and a trace, no streamlit; the figures are in `specviz.ui.theory.view`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specviz.core.i18n import _, as_written, small_digits
from specviz.core.paths import BENCHMARKS_DIR, read_json
from specviz.engine import theory
from specviz.engine.proposers import registry
from specviz.engine.kinds import Mode, NodeStatus
from specviz.engine.limits import is_number
from specviz.engine.trace import Step, Trace
from specviz.labs.bench.quoted import machine_text, run_dtype
from specviz.labs.timeline import drafted_k_range, policy_ks
from specviz.ui.common.sliders import slider_text

K_MAX = 16  # the explorer's range of K; points beyond it are left out
SLIDER_STEP = 0.01  # the step of the explorer's α and c sliders


def setting_text(value: float) -> str:
    """The α or c slider's value as the slider writes it ("0.80", a link's 0.805 in full), for the charts' titles,
    hovers and tables beside it (read 54: the map hovered your setting's α = 0.80 as "(0.8, 4)")."""
    return slider_text(value, SLIDER_STEP)


@dataclass(frozen=True)
class MeasuredPoint:
    """One measured run: its alpha, K and c, its speedup over target-only decoding (None when unknown), and the dtype
    its models ran in (None when the file does not say); `label` names the run, its dtype included."""

    alpha: float
    k: int
    c: float
    measured_speedup: float | None
    label: str
    source: str
    dtype: str | None = None
    machine: str = ""  # where it ran, as `quoted.machine_text` writes it; "" when the file does not say
    one_pass: bool = False  # its proposer drafts a step in one pass (Medusa, n-gram lookup): c per step, not K·c
    mean_k: float | None = None  # tokens its steps drafted on average (a bench row's mean_k; None: not recorded),
    # below K where n-gram lookup found nothing long enough, which the formula (K drafts every step) does not model

    ALPHA_DIGITS = 3  # the page writes a run's α estimate with 3 decimals, as it writes the trace's

    @property
    def predicted_speedup(self) -> float:
        """The paper's formula at the run's α, K and c as the page writes them (α with `ALPHA_DIGITS` decimals, c as
        `small_number` writes it), charging c per step for a one-pass drafter (read 49: the Medusa points were
        predicted with K·c, as the bench's own predicted columns no longer are). Read 54: predicted from the exact
        values beside α written with 2 decimals, 23 of the 70 rows gave a prediction their own row did not (α 0.45,
        K 2, c 0.081: 1.42×, not the 1.43× shown)."""
        return theory.expected_speedup(min(1.0, as_written(self.alpha, self.ALPHA_DIGITS)), self.k,
                                       as_written(self.c, small_digits(self.c)), self.one_pass)


SPEEDUP_KEYS = ("measured_speedup", "speedup_vs_ar")  # the second is what `specviz bench` writes


def _records(obj: Any, dtype: str | None = None) -> list[tuple[dict, str | None]]:
    """The benchmark records in a JSON document, each with its dtype: dicts with alpha, k, c and a measured speedup,
    however nested.

    A `specviz bench` results.json holds per-prompt "cases" and pooled "summary" rows; only the summary rows pooled
    over all suites with a constant K are taken, so one setting gives one point, in the run's dtype
    (`quoted.run_dtype`). Chain rows only: a tree row's "alpha" is the mean min(1, p′/q′) along its main line, not α,
    and the chain formula does not describe a tree. A record elsewhere may name its own "dtype"; without one it has
    none.
    """
    if isinstance(obj, dict) and isinstance(obj.get("summary"), list):
        pooled = [r for r in obj["summary"] if isinstance(r, dict) and r.get("suite", "all") == "all"
                  and r.get("policy", "constant") == "constant" and not r.get("tree_nodes")]
        return [(r, run_dtype(obj)) for r in pooled if _is_record(r)]
    if isinstance(obj, dict):
        if _is_record(obj):
            return [(obj, str(obj["dtype"]) if obj.get("dtype") else dtype)]
        return [r for value in obj.values() for r in _records(value, dtype)]
    if isinstance(obj, list):
        return [r for value in obj for r in _records(value, dtype)]
    return []


def _is_record(d: dict) -> bool:
    return {"alpha", "k", "c"} <= d.keys() and any(key in d for key in SPEEDUP_KEYS)


def load_benchmark_points(folder: Path | str | None = None) -> list[MeasuredPoint]:
    """Benchmark records (alpha, k, c and measured_speedup, or a `specviz bench` results.json) from the JSON files
    under `folder` (default assets/benchmarks/, subfolders included).

    A missing folder gives no points; unreadable files and records with out-of-range numbers are skipped. A
    `specviz bench` results.json nested in another run's folder is skipped too: the points are the runs the Speedup lab
    lists (`bench.find_results`), and the one nested run committed, default-h200-bf16-run2/bench-rerun, measured one
    prompt whose slow start made its separate draft read 2.32x at K = 3 and 2.98x at K = 4 (its results.json; the
    slow start is explained in docs/gpu.md, which quotes the K = 3 figure).
    """
    folder = Path(folder) if folder is not None else BENCHMARKS_DIR
    points: list[MeasuredPoint] = []
    for path in sorted(folder.rglob("*.json")) if folder.is_dir() else []:
        if path.name == "results.json" and len(path.relative_to(folder).parts) > 2:
            continue  # a run nested in another run's folder is not one the Speedup lab lists (`bench.find_results`)
        try:
            document = read_json(path)
            records = _records(document)
        except (OSError, ValueError):
            continue
        source = str(path.relative_to(folder))
        recorded = document.get("machine") if isinstance(document, dict) else None
        machine = machine_text(recorded) if isinstance(recorded, dict) else ""
        for i, (r, dtype) in enumerate(records):
            try:
                speedup = next(r[key] for key in SPEEDUP_KEYS if r.get(key) is not None)
                alpha, k, c, s = float(r["alpha"]), int(r["k"]), float(r["c"]), float(speedup)
                theory.expected_speedup(alpha, k, c)  # validates the ranges
            except (StopIteration, TypeError, ValueError):
                continue
            if not (math.isfinite(s) and s > 0) or k > K_MAX:
                continue
            mean_k = r.get("mean_k")
            points.append(MeasuredPoint(alpha, k, c, s, _record_label(r, path, i, dtype), source, dtype, machine,
                                        registry.one_pass(str(r.get("proposer", ""))),
                                        float(mean_k) if is_number(mean_k) else None))
    return points


def _record_label(r: dict, path: Path, i: int, dtype: str | None) -> str:
    """The run's name (or pair, proposer and T), then its dtype: float32 and bfloat16 runs sit side by side. T is
    written as the Speedup lab writes it (`temperature_text`: read 52, "T = 0.0" here beside the lab's "T = 0"); the
    proposer is named as the Models menu and the Speedup lab name it (`registry.menu_label`; read 53: "ngram",
    "layerskip-7" on the Portuguese page).

    >>> _record_label({"proposer": "ngram", "temperature": 0.7}, Path("run/results.json"), 0, "bfloat16")
    'N-gram lookup (no model), T = 0.7 · bfloat16'
    >>> _record_label({"proposer": "layerskip-7", "temperature": 0}, Path("run/results.json"), 0, "float32")
    "Layer-skip self-draft (the target's first 7 layers), T = 0 · float32"
    """
    from specviz.ui.common.bench_results import temperature_text

    name = r.get("label") or r.get("name")
    if not name:
        parts = [str(r["pair"])] if r.get("pair") else []
        if r.get("proposer"):
            parts.append(registry.menu_label(str(r["proposer"])))
        if r.get("temperature") is not None:
            parts.append("T = " + temperature_text(float(r["temperature"])))
        name = ", ".join(parts) or f"{path.parent.name}/{path.stem} #{i + 1}"
    return f"{name} · " + (dtype or _("dtype not recorded"))


@dataclass(frozen=True)
class TracePoint:
    """What one speculative trace says about the formulas."""

    alpha: float  # mean min(1, p/q) over tested drafts, the estimate of alpha (a branched tree's: min(1, p′/q′), not
    # alpha; see `tree_branched`)
    acceptance_rate: float  # accepted / drafted (lower: drafts after a rejection count as drafted)
    k: int
    tokens_per_step: float  # measured mean accepted length, recovered or bonus token included
    # draft seconds per drafter pass (`_draft_passes`) / target seconds per step, from the timings: about c / v (the
    # step's target forward costs v one-token forwards), so not named c, the cost over one (Read 48)
    draft_over_verify: float | None
    tree_nodes: int = 0  # > 0: the trace drafted trees of up to this many tokens (nodes and copied tokens), which
    # the chain formula does not describe
    tree_depth: int = 0  # the deepest node of those trees: past K where a lookup branch copied a longer continuation
    tree_untested_count: int = 0  # those trees' tokens the verifier never tested (status not reached), of
    tree_token_count: int = 0  # all their tokens, summed over the steps (`tree_untested` is the share)
    tree_copied_count: int = 0  # those tokens a lookup branch copied from the context, summed over the steps (0: every
    # token was a drafted node, and the page does not speak of copies; read 52)
    # some node of those trees had a sibling or was copied (`Trace.mean_estimates_alpha` false): a child can then be
    # tried after a rejected one, against residuals, or a copy against a point mass, and the mean min(1, p′/q′) is no
    # estimate of α; a trace whose trees never branched (one node, or width 1 with no lookup branch) tests one drafted
    # child a depth, on its own p and q, as a chain does (read 51)
    tree_branched: bool = False
    short_steps: int = 0  # chain steps that drafted fewer than K (near the token limit, after a drafted end-of-text,
    # a lookup that found fewer), which the formula, K drafts every step, does not model (read 46)
    steps: int = 0  # the trace's steps
    lookup: bool = False  # its proposer runs no model (`timed_as` "lookup"): its draft seconds are a lookup's, one
    # search a step, with no draft forward to count (read 49: the help said "per draft forward" for n-gram)
    one_pass: bool = False  # its proposer drafts a step's tokens in one pass (`registry.one_pass`: the Medusa heads,
    # n-gram lookup), whose cost grows with the tokens it drafts: the ratio is that whole pass's, per step (read 51)
    k_range: tuple[int, int] | None = None  # the fewest and the most tokens a step drafted, where its policy (the
    # heuristic or optimal one) moved K step to step (`timeline.drafted_k_range`): `k` is then only the setting, the
    # heuristic's first K or one the optimal policy ignores (read 53: the page said "K = 4" of steps drafting 1 to 6)
    policy: str = "constant"  # its draft-length policy (`policies.POLICIES`): any but "constant" makes `k` a setting
    # the policy caps (threshold), starts from (heuristic) or ignores (optimal), not the K of every step (read 54)
    every_k_range: tuple[int, int] | None = None  # `k_range` with the steps that drafted 0 counted too, for what a
    # sentence says "its steps drafted" (`timeline.drafted_k_range(every_step=True)`; read 54: the caption said "its
    # steps drafted 1 to 5 tokens" of steps that drafted 0 to 5); `k_range` is the K the formula is given at
    k_moved: bool | None = None  # whether its policy's K changed from step to step (`timeline.policy_ks`, the heuristic
    # replayed); None where the trace cannot tell (the optimal policy; a file without the heuristic's K max). Read 54:
    # a heuristic run whose K never moved read "Its policy moved K" because a step at the token limit drafted 0

    @property
    def policy_k(self) -> bool:
        """Whether a draft-length policy, not `k`, set how many tokens each step drafted: `k` is then its K setting."""
        return self.policy != "constant"

    @property
    def tree_untested(self) -> float:
        """The share of the trees' tokens the verifier never tested (0 for a chain)."""
        return self.tree_untested_count / self.tree_token_count if self.tree_token_count else 0.0

    ALPHA_DIGITS = 3  # the page writes the trace's α estimate with 3 decimals ("α = 0.854")

    @property
    def predicted_tokens_per_step(self) -> float:
        """The formula's mean accepted length at K and at the α estimate as the page writes it (`ALPHA_DIGITS`), so a
        reader who puts the α beside it into the formula gets the figure shown (read 53: α = 0.8444 at K = 14 was
        written "α = 0.844" beside "predicts 5.92", where 0.844 gives 5.91; as `timeline.alpha_note` does).

        >>> round(TracePoint(0.8444218515250481, 0.5, 14, 5.0, None).predicted_tokens_per_step, 4)
        5.9067
        """
        return self.predicted_at(self.k)

    def predicted_at(self, k: int) -> float:
        """The formula's mean accepted length at `k` drafts a step and the α estimate as the page writes it."""
        return theory.expected_tokens_per_step(min(1.0, as_written(self.alpha, self.ALPHA_DIGITS)), k)


def _draft_passes(step: Step, one_pass: bool = False) -> int:
    """The drafter's forwards in a step: K for a chain, the deepest drafted (not copied) node for a tree, and one for
    a drafter whose single pass drafts every token of the step (`one_pass`: the Medusa heads, n-gram lookup's one
    search; read 49: their one pass was divided by the K tokens it drafted, a quarter of its cost at K = 4)."""
    if one_pass:
        return 1 if step.n_drafted else 0
    if step.tree is None:
        return step.n_drafted
    return max((node.depth for node in step.tree.nodes if not node.copied), default=0)


def trace_point(trace: Any) -> TracePoint:
    """The (alpha, K) of a speculative trace; a trace that cannot give one is a ValueError with one sentence."""
    if not isinstance(trace, Trace) or trace.mode != Mode.SPECULATIVE:
        raise ValueError(_("The trace in this session is not a speculative-decoding trace."))
    k = trace.settings.get("k")
    if not isinstance(k, int) or not 1 <= k <= K_MAX:
        raise ValueError(_("The trace in this session has no usable K in its settings (got {k}).", k=repr(k)))
    alpha = trace.mean_accept_prob
    if not math.isfinite(alpha):
        raise ValueError(_("The trace in this session tested no drafts, so it says nothing about α."))
    drafted = [s for s in trace.steps if s.n_drafted]
    proposer = str(trace.settings.get("proposer", ""))
    one_pass = registry.one_pass(proposer)
    ratio = theory.cost_ratio_from_timings(sum(s.draft_seconds for s in drafted),
                                           sum(_draft_passes(s, one_pass) for s in drafted),
                                           sum(s.verify_seconds for s in drafted), len(drafted))
    nodes = max((len(s.tree.nodes) for s in trace.steps if s.tree is not None), default=0)
    depth = max((s.draft_depth for s in trace.steps if s.tree is not None), default=0)
    statuses = [str(n.status) for s in trace.steps if s.tree is not None for n in s.tree.nodes]
    untested = statuses.count(str(NodeStatus.NOT_REACHED))
    copied = sum(1 for s in trace.steps if s.tree is not None for n in s.tree.nodes if n.copied)
    branched = not trace.mean_estimates_alpha  # a sibling or a copied token somewhere (one test for CLI and page)
    short = sum(1 for s in trace.steps if s.tree is None and s.n_drafted < k)
    lookup = proposer in registry.names() and registry.get(proposer).timed_as == "lookup"
    return TracePoint(min(1.0, max(0.0, alpha)), trace.acceptance_rate, k, trace.mean_accepted_length, ratio, nodes,
                      depth, untested, len(statuses), copied, branched, short, len(trace.steps), lookup, one_pass,
                      None if nodes else drafted_k_range(trace), str(trace.settings.get("policy") or "constant"),
                      None if nodes else drafted_k_range(trace, every_step=True), _k_moved(trace))


def _k_moved(trace: Trace) -> bool | None:
    """Whether the policy of `trace` changed K from step to step (`TracePoint.k_moved`): a constant or threshold K
    never moves; the heuristic's, replayed (`timeline.policy_ks`); None where the trace cannot tell."""
    if str(trace.settings.get("policy") or "constant") in ("constant", "threshold"):
        return False
    ks = policy_ks(trace)
    return None if ks is None else len(set(ks)) > 1


@dataclass(frozen=True)
class TemperatureRow:
    """One proposer's α estimate (per prompt the mean min(1, p/q) over tested drafts, then the mean over prompts) at
    T = 0 and at a sampling temperature."""

    proposer: str  # several runs may share it
    k: int
    alpha_greedy: float
    alpha_sampled: float
    temperature: float
    run: str  # the benchmark folder, relative to the folder read
    command: str  # the command that measured it
    machine: str = ""  # where it ran (`quoted.machine_text`): "NVIDIA H200", "AMD EPYC (2 cores)"; "" if not recorded
    dtype: str = "float32"  # the run's (`run_dtype`)


def alpha_by_temperature(folder: Path | str | None = None, k: int = 4) -> list[TemperatureRow]:
    """The α estimate at T = 0 next to T > 0 for each proposer benchmarked at both, at this K (the suite "all",
    constant K: the bench's summary α, the mean over prompts of each prompt's mean min(1, p/q) over its tested
    drafts), from the `specviz bench` results under `folder` (default assets/benchmarks/). Unreadable files are
    skipped; a missing folder gives no rows."""
    folder = Path(folder) if folder is not None else BENCHMARKS_DIR
    rows: list[TemperatureRow] = []
    for path in sorted(folder.rglob("results.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            pooled = [r for r in data["summary"] if r.get("suite") == "all" and r.get("policy") == "constant"
                      and r.get("k") == k and not r.get("tree_nodes")]  # chains: a tree's α is another quantity
            by_key = {(str(r["proposer"]), float(r["temperature"])): float(r["alpha"]) for r in pooled}
            dtype = run_dtype(data)
            machine = machine_text(data.get("machine") or {})
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            continue
        for (proposer, temperature), alpha in sorted(by_key.items()):
            greedy = by_key.get((proposer, 0.0))
            if temperature > 0 and greedy is not None:
                run = path.parent.relative_to(folder).as_posix()
                rows.append(TemperatureRow(proposer, k, greedy, alpha, temperature, run, str(data.get("command", "")),
                                           machine, dtype))
    return rows
