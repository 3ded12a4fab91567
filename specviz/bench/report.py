"""A bench run's result and how it is written: `BenchResult`, its JSON schema, the CSV of cases, the markdown report.

    result.save("bench-results")        # results.json, results.csv, results.md
    result = BenchResult.load("bench-results/results.json")

`DEFINITIONS` reconciles the metrics people quote (#MAT with or without the bonus token, acceptance rate vs α,
...); the same keys label the JSON, the CSV, the markdown and the app.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from specviz.bench.config import BENCHMARKS_DIR

SCHEMA = "specviz-bench"
SCHEMA_VERSION = 1

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
        return nan_to_null(data)

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
    lines += ["", "## Acceptance by draft position (all suites)", "",
              "Entry i: of the steps that drafted at least i tokens, the share whose first i drafts were all kept "
              "(so the entries fall with i; the first is first-position acceptance).", "", "| proposer | K | T | c | per-position acceptance |", "|---|---|---|---|---|"]
    for r in rows:
        if r["policy"] == "constant":
            lines.append(f"| {r['proposer']} | {r['k']} | {r['temperature']:g} | {_fmt(r['c'], 3)} | "
                         + " / ".join(_fmt(a) for a in r["per_position"]) + " |")
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


def nan_to_null(obj: Any) -> Any:
    """JSON has no nan or inf: write them as null."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: nan_to_null(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [nan_to_null(v) for v in obj]
    return obj
