"""A bench run's result: `BenchResult`, its JSON schema, the questions a reader asks of it, the CSV of cases and the
markdown report.

    result.save("bench-results")        # results.json, results.csv, results.md
    result = BenchResult.load("bench-results/results.json")
    result.best_constant("ngram", 0.0)  # the summary row of the fastest chain of constant K, over all categories

The rows are plain dicts, as the JSON holds them: a summary row holds the metrics `DEFINITIONS` names (in
specviz.labs.bench.summary; the verify cost is the run's, in `costs`), keyed by suite, proposer, policy, k,
temperature and the tree's shape, with counts beside them (prompts, tokens, steps, mean_k, identical_count,
hf_assisted_identical).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from specviz.core.i18n import N_, _, as_written, fewest_digits, fixed, small_digits, using
from specviz.core.paths import read_json, write_text_atomically
from specviz.engine.draft_shape import DraftShape
from specviz.engine.limits import is_number, is_whole
from specviz.labs.bench.config import BENCHMARKS_DIR, BenchConfig, load_suites
from specviz.labs.bench.machine import (PACKING_SHIPPED, gpu_used, ran_stock_kernels,  # noqa: F401 - re-exported
                                       run_kernels)
from specviz.labs.bench.summary import (ALPHA_DIGITS, DEFINITIONS, VERIFY_DIGITS, count_text, over_limit,
                                        predicted_as_written, signed_percent, verify_ratio, written_fraction,
                                        written_limit)

SCHEMA = "specviz-bench"
SCHEMA_VERSION = 2  # 2: a tree row's "drafted" counts every node (1 counted its main line only)
TARGET_ONLY, HF_GENERATE = "specviz target-only", "transformers generate"  # baseline methods, as cases.py names them

Row = dict[str, Any]  # one summary row (or case, or baseline row), as in the JSON

# ---- the result ---------------------------------------------------------------------------------------------------


# The definition under "Acceptance by position". Each entry has its own denominator (the steps that drafted at
# least i tokens), so the entries need not fall with i: when the steps that drafted fewer tokens (a run's last steps,
# an n-gram lookup that found a short match) also kept fewer, a later entry reads higher than an earlier one.
PER_POSITION_NOTE = ("Entry i: of the steps that drafted at least i tokens, the share whose first i drafts were all "
                     "kept (the first is first-position acceptance); each entry counts only the steps that drafted at "
                     "least i, so an entry can read higher than the one before it. For a tree, of the steps whose tree "
                     "reached depth i, the share whose accepted path reached it.")


# Before commit e3141ea (2026-12-01 01:10 UTC) a tree row's acceptance by position meant something else: entry i was,
# of the steps whose accepted path reached depth i - 1 and tried a node below it, the share that kept one (a hazard,
# so its entries can rise with i). A run that started before it (`machine.date`: default-cpu-bf16-trees started at
# 00:23, the first run after it, d5b353b's, at 01:11) wrote that meaning under today's name.
TREE_PER_POSITION_SINCE = "2026-12-01T01:10"

# What `_upgrade` blanked on a version-1 result's tree rows -> the note results.md prints about it (English, as the
# whole report is)
BLANKED_NOTES = {
    "acceptance_rate": (
        "Tree rows: no acceptance rate. This run wrote results.json in schema version 1, which counted a tree step's "
        "main line (its accepted path and the first child rejected below it) as drafted, so a tree's accepted/drafted "
        "read above α. The current definition counts every node a tree drafted and every token its lookup branch "
        "copied (see Definitions); this run did not record those nodes, so the rate cannot be recomputed and the "
        "report code leaves it blank. results.json and results.csv keep the old main-line counts (drafted, "
        "acceptance_rate, mean_k) of the tree rows; read them with that definition."),
    "per_position": (
        "Tree rows: no acceptance by position. This run computed it for trees before it had its current meaning "
        "(entry i was, of the steps whose accepted path reached depth i − 1 and tried a node below it, the share "
        "that kept one, so its entries can rise with i; now it is, of the steps whose tree reached depth i, the share "
        "whose path reached it); results.json and results.csv keep those entries. Runs since commit e3141ea "
        "(2026-12-01 01:10 UTC) compute the current ones (assets/benchmarks/default-cpu-bf16-tree/ has them)."),
}


def _upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """A version-1 result read as version 2. Version 1 counted a tree step's main line (its accepted path and the
    child rejected below it) as drafted, which put a tree's accepted / drafted above α; the nodes it drafted were not
    recorded, so its tree rows get no acceptance rate and no mean drafted count rather than a misnamed one. A run from
    before `TREE_PER_POSITION_SINCE` also gets no acceptance by position on its tree rows (nor the counts behind it),
    which it computed with another meaning. `blanked` names what was left out (`BLANKED_NOTES`)."""
    if data.get("schema_version") == SCHEMA_VERSION:
        return data
    machine = data.get("machine")
    started = str(machine.get("date", "")) if isinstance(machine, dict) else ""
    old_positions = bool(started) and started < TREE_PER_POSITION_SINCE
    def is_tree(row: Any) -> bool:
        return isinstance(row, dict) and bool(row.get("tree_nodes"))
    def blank(row: dict[str, Any]) -> dict[str, Any]:
        row = {**row, "drafted": None, "acceptance_rate": None, "mean_k": None}
        if old_positions:  # a case's counts too, so that nothing pools them again (summary rows have none)
            row |= {"per_position": [], **{k: [] for k in ("position_drafted", "position_survived") if k in row}}
        return row
    def clean(rows: Any) -> Any:
        if not isinstance(rows, list):
            return rows
        return [blank(row) if is_tree(row) else row for row in rows]
    trees = any(is_tree(row) for part in ("cases", "summary") if isinstance(data.get(part), list)
                for row in data[part])
    blanked = ("acceptance_rate", "per_position") if old_positions else ("acceptance_rate",)
    return {**data, "cases": clean(data.get("cases")), "summary": clean(data.get("summary")),
            "schema_version": SCHEMA_VERSION, "blanked": blanked if trees else ()}


def _damage(result: BenchResult) -> str | None:
    """What is wrong with a result's shape, in a few words of the reader's language (None: nothing the queries and
    the report read): the parts of the right kinds, and each summary row with the keys every table reads (a damaged
    file ended in a KeyError or TypeError on the page that showed it)."""
    kinds = {"command": str, "created": str, "machine": dict, "config": dict, "costs": dict, "cases": list,
             "baselines": list, "summary": list, "suites": list, "notes": list}
    for name, kind in kinds.items():
        if not isinstance(getattr(result, name), kind):
            return {dict: _("{name} is not an object", name=name), list: _("{name} is not a list", name=name)}.get(
                kind, _("{name} is not text", name=name))
    if not isinstance(result.config.get("pair"), str):
        return _("config has no pair")
    for name in ("cases", "baselines", "summary", "suites"):
        if not all(isinstance(row, dict) for row in getattr(result, name)):
            return _("{name} holds a row that is not an object", name=name)
    for row in result.summary:
        text = [row.get(key) for key in ("suite", "proposer", "policy")]
        number = row.get("temperature")
        if not all(isinstance(v, str) for v in text) or not is_whole(row.get("k")) \
                or not is_number(number):
            return _("a summary row lacks its suite, proposer, policy, k or temperature")
    if not all(isinstance(note, str) for note in result.notes):
        return _("notes holds something that is not text")
    return _figures_damage(result)


# The keys every summary row has had (`summary.summarise` writes them all; version-1 rows have them too), which the
# pages read
SUMMARY_KEYS = frozenset({
    "acceptance_rate", "alpha", "c", "draft_ms", "hf_assisted_identical", "hf_assisted_speedup", "identical",
    "identical_count", "k", "mat_with_bonus", "mat_without_bonus", "mean_k", "overhead_ms", "per_position", "policy",
    "predicted_speedup", "predicted_speedup_measured_verify", "prompts", "proposer", "record_overhead", "speedup_vs_ar",
    "speedup_vs_hf_assisted", "speedup_vs_hf_generate", "steps", "suite", "temperature", "tokens", "tokens_per_second",
    "verify_ms"})


def _figures_damage(result: BenchResult) -> str | None:
    """The figures the Speedup lab draws, of the types `run_bench` writes (30th read: a `"torch_threads": null`, a
    summary's `"speedup_vs_ar": "x"`, a costs' `"verify": null` or a proposer with no pooled row ended in a
    TypeError or an empty chart on the page)."""
    m, costs = result.machine, result.costs
    if not (is_whole(m.get("torch_threads")) and m["torch_threads"] >= 1 and isinstance(m.get("date"), str)
            and (m.get("cores") is None or is_whole(m["cores"]))
            and all(isinstance(m.get(k), str) for k in ("torch", "transformers"))
            and all(isinstance(m.get(k, ""), str) for k in ("cpu", "python", "platform"))
            and "gpu" in m and (m["gpu"] is None or isinstance(m["gpu"], str))):
        return _("the machine lacks its threads, date or versions")
    if not (is_whole(result.config.get("max_new_tokens")) and result.config["max_new_tokens"] >= 1):
        return _("config has no max_new_tokens")
    verify = costs.get("verify", [])
    if not (is_number(costs.get("target_forward_seconds")) and costs["target_forward_seconds"] > 0
            and isinstance(verify, list) and verify  # verify_ratio reads n = 1, 2, ... tokens by index
            and all(isinstance(v, dict) and is_whole(v.get("n_tokens")) and is_number(v.get("seconds"))
                    and is_number(v.get("ratio")) and v["seconds"] > 0 and v["ratio"] > 0 for v in verify)):
        return _("the costs lack a target forward time or a verify curve")
    for row in result.summary:
        if not SUMMARY_KEYS <= row.keys():
            return _("a summary row lacks {field}", field=sorted(SUMMARY_KEYS - row.keys())[0])
        if not (isinstance(row["per_position"], list) and all(is_number(v) for v in row["per_position"])):
            return _("a summary row's acceptance by position is not a list of numbers")
        for key, value in row.items():
            if key in ("suite", "proposer", "policy", "identical_count", "per_position") or value is None \
                    or isinstance(value, bool):
                continue
            if not is_number(value):
                return _("a summary row holds a figure that is not a number")
    pooled = {(r["proposer"], r["temperature"]) for r in result.summary if r["suite"] == "all"
              and r["policy"] == "constant" and not r.get("tree_nodes")}
    if any((r["proposer"], r["temperature"]) not in pooled for r in result.summary):
        return _("a proposer has no row pooled over all suites")
    return None


class DamagedResult(ValueError):
    """A result whose parts are missing or of the wrong kinds: the one sentence, and the problem it names."""

    def __init__(self, problem: str) -> None:
        super().__init__(_("This benchmark file is damaged or incomplete ({problem}).", problem=problem))
        self.problem = problem


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
    # what reading a version-1 file left blank on its tree rows (`_upgrade`, `BLANKED_NOTES`); written to JSON only
    # when something was, so that a result read, written and read again keeps its notes (read 52: they were lost)
    blanked: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if self.blanked:
            data["blanked"] = list(self.blanked)
        else:
            del data["blanked"]
        data["definitions"] = {key: {"label": label, "meaning": meaning} for key, (label, meaning) in DEFINITIONS.items()}
        return nan_to_null(data)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BenchResult:
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise ValueError(_("This file is not a specviz benchmark result (no 'specviz-bench' schema found)."))
        if data.get("schema_version") not in (1, SCHEMA_VERSION):
            raise ValueError(_("This benchmark has schema version {found}; this specviz reads version {version}.",
                               found=data.get("schema_version"), version=SCHEMA_VERSION))
        written = data.get("blanked", []) if data.get("schema_version") == SCHEMA_VERSION else []
        if not (isinstance(written, list) and all(isinstance(name, str) and name in BLANKED_NOTES for name in written)):
            raise DamagedResult(_("{name} is not a list of known names", name="blanked"))
        data = _upgrade({k: v for k, v in data.items() if k not in ("definitions", "blanked")})
        blanked = data.pop("blanked", ()) or tuple(written)  # a version-1 file's, or what a version-2 copy carries
        fields = set(cls.__dataclass_fields__) - {"blanked"}
        missing, extra = sorted(fields - {"notes", "schema", "schema_version"} - set(data)), sorted(set(data) - fields)
        if missing or extra:  # Python's own TypeError named the class and its __init__ (30th read)
            problem = (_("no {field}", field=missing[0]) if missing
                       else _("an unknown field {field}", field=repr(extra[0][:40])))
            raise DamagedResult(problem)
        result = cls(**data, blanked=tuple(blanked))
        problem = _damage(result)
        if problem:
            raise DamagedResult(problem)
        return result

    @classmethod
    def load(cls, path: str | Path) -> BenchResult:
        """A result file; every way it can be bad is a ValueError with one sentence. A run's results.json that is
        cut short or lacks a part names its folder as incomplete (read 48: a folder a stopped run or a partial copy
        left was "Cannot read a benchmark result from '/the/full/path/results.json'", or "This benchmark file is
        damaged ..." without saying which folder)."""
        path = Path(path)
        folder = path.parent.name if path.name == "results.json" and path.parent.name else None
        try:
            data = read_json(path)
        except OSError:
            raise ValueError(_("Cannot read a benchmark result from '{path}'.", path=path)) from None
        except ValueError:  # bad JSON (cut short), not UTF-8, a 5,000-digit integer, nested too deep
            if folder is None:
                raise ValueError(_("Cannot read a benchmark result from '{path}'.", path=path)) from None
            raise ValueError(_("The benchmark folder '{folder}' is incomplete: its results.json is cut short or "
                               "damaged, so nothing in it can be read; run the bench into that folder again.",
                               folder=folder)) from None
        try:
            return cls.from_dict(data)
        except DamagedResult as exc:
            if folder is None:
                raise
            raise ValueError(_("The benchmark folder '{folder}' is incomplete: its results.json is damaged or lacks a "
                               "part ({problem}); run the bench into that folder again.", folder=folder,
                               problem=exc.problem)) from None

    def save(self, folder: str | Path) -> dict[str, Path]:
        """Write results.json, results.csv (one row per case) and results.md into `folder`."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        paths = {"json": folder / "results.json", "csv": folder / "results.csv", "md": folder / "results.md"}
        write_text_atomically(paths["json"], json.dumps(self.to_dict(), indent=1, ensure_ascii=False))  # each whole
        write_text_atomically(paths["csv"], cases_csv(self.cases))
        write_text_atomically(paths["md"], markdown_report(self))
        return paths


    # ---- queries ------------------------------------------------------------------------------------------------

    def rows(self, *, suite: str = "all", proposer: str | None = None, temperature: float | None = None,
             policy: str | None = None, trees: bool = False) -> list[Row]:
        """Summary rows of one suite ("all": pooled over every suite) matching the filters given; constant K first,
        then the adaptive policies, each by K. Chains only, unless `trees` (then the draft trees too, after the
        chains of each K)."""
        out = [r for r in self.summary if r["suite"] == suite
               and (proposer is None or r["proposer"] == proposer)
               and (temperature is None or r["temperature"] == temperature)
               and (policy is None or r["policy"] == policy)
               and (trees or not r.get("tree_nodes"))]
        return sorted(out, key=lambda r: (r["policy"] != "constant", r["policy"], r["k"], r.get("tree_nodes") or 0,
                                          r.get("tree_width") or 0, r.get("tree_lookup") or 0))

    def shape_rows(self, proposer: str, temperature: float) -> list[Row]:
        """Chain and tree rows of one proposer at one temperature, all suites pooled, when the run had trees (else
        empty): the Speedup lab's chain vs tree comparison."""
        found = self.rows(proposer=proposer, temperature=temperature, policy="constant", trees=True)
        return found if any(r.get("tree_nodes") for r in found) else []

    @property
    def dtype(self) -> str | None:
        """The dtype both sides ran in (None in results from before it was recorded)."""
        return self.machine.get("dtype")

    @property
    def gpu(self) -> str | None:
        """The GPU the models ran on (its name), or None when they ran on the CPU (a GPU merely present is not it)."""
        return gpu_used(self.machine)

    def verify_curves(self) -> dict[str, list[dict]]:
        """The verify-cost curve per dtype ({"float32": [{"n_tokens", "seconds", "ratio"}], ...}), when measured."""
        return self.costs.get("verify_curves") or {}

    def row(self, *, suite: str, proposer: str, temperature: float, policy: str, k: int) -> Row | None:
        """The one summary row of a configuration in a suite, if it was run."""
        return next((r for r in self.rows(suite=suite, proposer=proposer, temperature=temperature, policy=policy)
                     if r["k"] == k), None)

    def proposers(self) -> list[str]:
        """The proposers measured, in the order they were run."""
        return list(dict.fromkeys(r["proposer"] for r in self.summary))

    def temperatures(self) -> list[float]:
        return sorted({r["temperature"] for r in self.summary})

    def suite_titles(self) -> dict[str, str]:
        """Suite name -> its title, in the order the suites were run."""
        return {s["name"]: s["title"] for s in self.suites}

    def mean_alpha(self, proposer: str, temperature: float) -> float | None:
        """α averaged over the constant-K chains of a proposer at a temperature, all suites pooled (None: no α); tree
        rows are left out, as `rows` leaves them by default: their mean of min(1, p′/q′) is no α."""
        alphas = [r["alpha"] for r in self.rows(proposer=proposer, temperature=temperature, policy="constant")
                  if r["alpha"] is not None]
        return sum(alphas) / len(alphas) if alphas else None

    def recomputed_optimal_k(self) -> int | None:
        """The constant K whose cases a run's optimal rows repeat when they were recomputed, not measured (the run
        carries `RECOMPUTED_OPTIMAL`: default-cpu-ngram, K = 8, its largest K); None for a run that measured them.
        Read 51: its tables set the two side by side as two runs, 1.94× and 1.94×."""
        if RECOMPUTED_OPTIMAL not in self.notes:
            return None
        return max((r["k"] for r in self.summary if r["policy"] == "constant" and not r.get("tree_nodes")),
                   default=None)

    def best_constant(self, proposer: str, temperature: float) -> Row | None:
        """The constant-K chain with the highest speedup vs target-only, all suites pooled (None: no constant chain);
        tree rows are left out, as `rows` leaves them by default, so a faster tree is not it."""
        constant = self.rows(proposer=proposer, temperature=temperature, policy="constant")
        return max(constant, key=lambda r: r["speedup_vs_ar"] or 0) if constant else None

    def best_in_one_suite(self, proposer: str, temperature: float) -> Row | None:
        """The fastest chain (any policy; tree rows left out, as `rows` leaves them by default) within a single
        suite: where the proposer's chains pay most."""
        found = [r for suite in self.suite_titles()
                 for r in self.rows(suite=suite, proposer=proposer, temperature=temperature)]
        return max(found, key=lambda r: r["speedup_vs_ar"] or 0) if found else None

    def verify_ratio(self, k: int) -> float:
        """The measured cost of verifying K drafts (one target forward over K + 1 tokens) in one-token forwards."""
        return verify_ratio(self.costs, k)

    def assisted_method(self, proposer: str) -> str | None:
        """What transformers ran as the twin of `proposer` (a row's name, such as "layerskip-7"), as its cases
        record it: "prompt lookup" or "assisted generation"; None when no twin ran."""
        return next((c["hf_assisted_method"] for c in self.cases
                     if c["proposer"] == proposer and c.get("hf_assisted_method")), None)

    def baseline_methods(self, temperature: float) -> list[str]:
        """The baselines measured at a temperature (specviz target-only, transformers generate, ...)."""
        return list(dict.fromkeys(b["method"] for b in self.baselines if b["temperature"] == temperature))

    def baseline_tokens_per_second(self, method: str, temperature: float) -> float | None:
        """A baseline's pooled tokens/s over every prompt at a temperature (None: not measured)."""
        group = [b for b in self.baselines if b["method"] == method and b["temperature"] == temperature]
        seconds = sum(b["seconds"] for b in group)
        return sum(b["tokens"] for b in group) / seconds if seconds else None

    def baseline_identical(self, method: str, temperature: float) -> str | None:
        """On how many prompts a baseline's greedy output equalled target-only's, as "same/checked" (None: none
        checked)."""
        checked = [b["identical"] for b in self.baselines
                   if b["method"] == method and b["temperature"] == temperature and b["identical"] is not None]
        return f"{sum(checked)}/{len(checked)}" if checked else None

    def policy_comparisons(self, temperature: float) -> list[PolicyComparison]:
        """For every suite ("all" first) and proposer that ran adaptive policies: each policy's speedup next to
        constant K at the run's --policy-k (K₀: where the heuristic policy starts, the threshold policy's cap; the
        optimal policy picks its own K)."""
        out = []
        for suite in ["all", *self.suite_titles()]:
            for proposer in self.proposers():
                group = self.rows(suite=suite, proposer=proposer, temperature=temperature)
                start = [r["k"] for r in group if r["policy"] != "constant"]
                if not start:
                    continue
                k0 = min(start)
                speedups = {r["policy"]: r["speedup_vs_ar"] for r in group
                            if r["policy"] != "constant" or r["k"] == k0}
                out.append(PolicyComparison(suite, proposer, k0, speedups))
        return out


@dataclass(frozen=True)
class PolicyComparison:
    """The draft-length policies of one proposer in one suite, run with --policy-k K₀, against constant K = K₀: the
    heuristic policy starts at K₀ and the threshold policy drafts up to it; the optimal policy picks its own K from
    its α estimate and the measured c (`specviz.engine.policies.make_policy`)."""

    suite: str
    proposer: str
    k0: int
    speedups: dict[str, float | None]  # policy -> speedup vs target-only; "constant" is constant K = K₀

    @property
    def winner(self) -> str:
        """The fastest policy (the first listed on a tie)."""
        return max(self.speedups, key=lambda name: self.speedups[name] or 0)

    @property
    def margin(self) -> float | None:
        """The winner's speedup over constant K's, minus 1 (None when either is unknown)."""
        best, constant = self.speedups[self.winner], self.speedups.get("constant")
        return best / constant - 1 if constant and best else None


def margin_percent(gain: float) -> str:
    """results.md's "winner vs constant": the gain in whole percent, a gain under half a percent with a decimal ("+0%"
    read as a tie, read 40), a tie rounded half up as the Speedup lab's `margin_text` rounds it (read 51).

    >>> margin_percent(0.125), margin_percent(0.003), margin_percent(0.0)
    ('+13%', '+0.3%', '0.0%')
    """
    return signed_percent(gain, 0 if abs(gain) >= 0.005 else 1)


def policy_decimals(comparisons: Sequence[PolicyComparison],
                    margin_written: Callable[[float], str] = margin_percent) -> int:
    """The decimals a policy table writes its speedups with (results.md's and the Speedup lab's, one rule): 2, or as
    many more (up to 4) as it takes for every row's winner to be the fastest as written and its "winner vs constant"
    (`margin_written`) to follow from the winner's and constant K's speedups as written. Read 54: with 2,
    default-cpu-layerskip's optimal 0.80× over constant 0.34× read "+134%" (0.80 / 0.34 is +135%), default-cpu-drafts'
    threshold 0.84× over 0.70× "+21%" (+20%), and default-cpu-ngram's question-answering heuristic won "+1%" with
    0.83× beside constant's 0.83×.

    >>> policy_decimals([PolicyComparison("qa", "ngram", 4, {"constant": 0.8251, "heuristic": 0.8316})])
    3
    >>> policy_decimals([PolicyComparison("qa", "draft", 4, {"constant": 0.6985, "threshold": 0.842})])
    4
    >>> policy_decimals([PolicyComparison("all", "draft", 4, {"constant": 0.70, "threshold": 0.84})])
    2
    """
    def agrees(decimals: int) -> bool:
        for comparison in comparisons:
            shown = {policy: as_written(v, decimals) for policy, v in comparison.speedups.items() if v is not None}
            best = comparison.speedups[comparison.winner]
            if best is None:
                continue
            if any(shown[policy] >= shown[comparison.winner] for policy, v in comparison.speedups.items()
                   if policy != comparison.winner and v is not None and v != best):
                return False
            constant = shown.get("constant")
            if comparison.margin is not None and constant and (
                    margin_written(shown[comparison.winner] / constant - 1) != margin_written(comparison.margin)):
                return False
        return True

    return fewest_digits(agrees, 2, 4)


def find_results(folder: Path = BENCHMARKS_DIR) -> list[Path]:
    """Result files under `folder` (results.json in it or in any subfolder), sorted by folder name."""
    folder = Path(folder)
    return sorted([*folder.glob("*/results.json"), *folder.glob("results.json")], key=lambda p: str(p.parent))


# ---- writing --------------------------------------------------------------------------------------------------------

CASE_COLUMNS = [
    "suite", "prompt_id", "temperature", "proposer", "policy", "k", "tree_nodes", "tree_width", "tree_lookup", "mean_k",
    "tokens",
    "steps", "drafted", "accepted", "acceptance_rate", "alpha", "mat_with_bonus", "mat_without_bonus", "per_position", "draft_ms",
    "verify_ms", "overhead_ms", "prefill_ms", "seconds", "tokens_per_second", "c", "ar_tokens", "ar_seconds",
    "speedup_vs_ar", "hf_generate_tokens", "hf_generate_seconds", "speedup_vs_hf_generate", "hf_assisted_method",
    "hf_assisted_tokens", "hf_assisted_seconds",
    "hf_assisted_speedup", "speedup_vs_hf_assisted", "predicted_speedup", "predicted_speedup_measured_verify",
    "record_overhead", "identical", "hf_assisted_identical", "physical_limit", "fraction_of_limit",
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
    """A results.md cell: `v` to `digits` decimals, a tie rounded half away from zero as the pages round it (read 51:
    Python's format wrote 0.125 "0.12" and 2.675 "2.67"), "–" for none, yes/NO for a check.

    >>> _fmt(0.125), _fmt(2.675, 2, "×"), _fmt(None), _fmt(True)
    ('0.13', '2.68×', '–', 'yes')
    """
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "NO"
    return f"{fixed(v, digits)}{suffix}"


def _c_cell(c: Any) -> str:
    """A measured c to 3 decimals, or to two significant digits where 3 would write it 0 (`small_digits`: the n-gram
    run's c = 0.000217 read "c = 0.000", as if the lookup cost nothing; read 50).

    >>> _c_cell(0.0713), _c_cell(0.000217), _c_cell(None)
    ('0.071', '0.00022', '–')
    """
    return _fmt(c, small_digits(c) if isinstance(c, float) else 3)


def _ms_cell(seconds: float, extra: int = 0) -> str:
    """A measured draft forward in milliseconds: 2 decimals, or as many as show its first two significant digits, so
    that it over the target forward gives the c written beside it (read 51: the n-gram lookup's 0.0145 ms read
    "0.01 ms" beside c = 0.00022, where 0.01 / 67.1 ms is 0.00015).

    >>> _ms_cell(0.0225), _ms_cell(1.4541e-05), _ms_cell(0.0)
    ('22.50', '0.015', '0.00')
    """
    ms = 1e3 * seconds
    digits = 2 if ms <= 0 or ms >= 0.1 else 1 - math.floor(math.log10(ms))
    return _fmt(ms, digits + extra)


def _cost_digits(costs: dict) -> int:
    """How many decimals more than one the Costs line's target forward (and than `_ms_cell`'s the draft forwards)
    takes so that each draft forward as written ÷ the target forward as written gives the c written beside it (read
    51: the H200 run's "draft forward 3.88 ms, c = 0.207" under a target forward of 18.8 ms, where 3.88 ÷ 18.8 is
    0.206): 0, or as many more (up to 3) as it takes.

    >>> _cost_digits({"target_forward_seconds": 0.0187815, "draft_forward_seconds": {"draft": 0.0038831},
    ...               "c": {"draft": 0.0038831 / 0.0187815}})
    1
    """
    target, drafts, cs = costs.get("target_forward_seconds"), costs.get("draft_forward_seconds", {}), costs.get("c", {})

    def agrees(extra: int) -> bool:
        shown = float(fixed(target * 1e3, 1 + extra))
        for name, c in cs.items():
            draft = drafts.get(name)
            if not is_number(c) or not is_number(draft) or shown <= 0:
                continue
            if _c_cell(float(float(_ms_cell(draft, extra)) / shown)) != _c_cell(c):
                return False
        return True

    if not is_number(target):
        return 0
    return fewest_digits(agrees, 0, 3)


def markdown_report(result: BenchResult) -> str:
    """The headline tables: every configuration over all suites, the categories, the costs, the definitions."""
    m, cfg, costs = result.machine, result.config, result.costs
    lines = [
        f"# specviz bench: pair `{cfg['pair']}`", "",
        f"`{result.command}`" if result.command else "", "",
        *(rerun_lines(result) if result.command else []),
        f"Machine: {m['cpu']}, {count_text(m.get('cores'), 'core')}, GPU {m['gpu'] or 'none'}, torch {m['torch']} "
        f"({count_text(m['torch_threads'], 'thread')}), transformers {m['transformers']}, {m['date']}."
        + (f" CPU instruction sets: {' '.join(m['cpu_flags']) or 'none listed'}"
           f" ({'with' if m.get('cpu_bf16') else 'without'} bf16 instructions)." if "cpu_flags" in m else "")
        + (" Kernels capped by " + ", ".join(f"{k}={v}" for k, v in m["isa_limits"].items()) + "."
           if m.get("isa_limits") else "")
        + (f" Models on {m['device']} in {m['dtype']}." if m.get("device") else "")
        + (f" Linear kernels: {m['kernels']}." if m.get("kernels") else ""), "",
        *[f"- {current_note(n, m.get('cores', '?'), m.get('torch_threads'))}" for n in result.notes],
        *[f"- {BLANKED_NOTES[name]}" for name in result.blanked], "",
        "## All suites", "",
        # read 51, names: this column was headed "accepted/drafted", which the Definitions below and the Speedup
        # lab's table call the acceptance rate, and which on a tree row with a lookup branch counts the copies too;
        # the two lengths' columns, "mean accepted length" and "accepted/step (excl.)", take their labels too
        "| proposer | policy | K | tree | T | α estimate (tree: main-line mean min(1, p′/q′)) | "
        f"{DEFINITIONS['acceptance_rate'][0]} | {DEFINITIONS['mat_with_bonus'][0]} | "
        f"{DEFINITIONS['mat_without_bonus'][0]} | tok/s | "
        "vs target-only | vs generate | transformers assisted vs generate | predicted (paper) | "
        "predicted (measured verify) | greedy identical |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    rows = sorted((r for r in result.summary if r["suite"] == "all"),
                  key=lambda r: (r["temperature"], r["proposer"], r["policy"] != "constant", r["policy"], r["k"],
                                 r.get("tree_nodes") or 0, r.get("tree_width") or 0))
    for r in rows:
        predicted = predicted_as_written(r, costs)  # from α and c as written (read 54)
        lines.append(
            f"| {r['proposer']} | {r['policy']} | {'–' if r['policy'] == 'optimal' else r['k']} | "
            f"{DraftShape.of(r).short()} | {r['temperature']:g} | "
            f"{_alpha_cell(r)} | "
            f"{_fmt(r['acceptance_rate'])} | {_fmt(r['mat_with_bonus'])} | {_fmt(r['mat_without_bonus'])} | "
            f"{_fmt(r['tokens_per_second'], 1)} | {_fmt(r['speedup_vs_ar'], 2, '×')} | "
            f"{_fmt(r['speedup_vs_hf_generate'], 2, '×')} | {_fmt(r['hf_assisted_speedup'], 2, '×')} | "
            f"{_fmt(predicted['predicted_speedup'], 2, '×')} | "
            f"{_fmt(predicted['predicted_speedup_measured_verify'], 2, '×')} | "
            f"{r['identical_count'] or '–'} |")
    if any(r.get("tree_nodes") and r["alpha"] is not None for r in rows):
        lines += ["", TREE_ALPHA_NOTE]
    lines += ["", "## Acceptance by position (all suites)", "",
              PER_POSITION_NOTE, "", "| proposer | K | tree | T | c | acceptance by position |",
              "|---|---|---|---|---|---|"]
    for r in rows:
        if r["policy"] == "constant":
            lines.append(f"| {r['proposer']} | {r['k']} | {DraftShape.of(r).short()} | {r['temperature']:g} | "
                         f"{_c_cell(r['c'])} | "
                         + (" / ".join(_fmt(a) for a in r["per_position"]) or "–") + " |")
    recomputed = result.recomputed_optimal_k()
    lines += ["", "## Best configuration per category (speedup vs specviz target-only)", "",
              "| category | T | best | speedup | runner-up policy |", "|---|---|---|---|---|"]
    for suite in [s["name"] for s in result.suites]:
        for temperature in result.temperatures():
            group = [r for r in result.summary if r["suite"] == suite and r["temperature"] == temperature]
            if not group:
                continue
            group.sort(key=lambda r: -(r["speedup_vs_ar"] or 0))
            best = group[0]
            other = next((r for r in group[1:] if r["policy"] != best["policy"]), None)
            lines.append(f"| {suite} | {temperature:g} | {_config(best, recomputed)} | "
                         f"{_fmt(best['speedup_vs_ar'], 2, '×')} | "
                         + (f"{_config(other, recomputed)}: "
                            f"{_fmt(other['speedup_vs_ar'], 2, '×')}" if other else "–") + " |")
    policy_rows = [r for r in result.summary if r["policy"] != "constant"]
    if policy_rows:
        lines += ["", POLICIES_HEADING, "", POLICIES_NOTE, "",
                  "| category | proposer | T | constant | heuristic | threshold | optimal | winner |",
                  "|---|---|---|---|---|---|---|---|"]
        keys = dict.fromkeys((r["suite"], r["proposer"], r["temperature"], r["k"]) for r in policy_rows)
        table = [(temperature, PolicyComparison(suite, proposer, k, {
                      r["policy"]: r["speedup_vs_ar"] for r in result.summary if not r.get("tree_nodes")  # chains
                      and (r["suite"], r["proposer"], r["temperature"], r["k"]) == (suite, proposer, temperature, k)}))
                 for suite, proposer, temperature, k in sorted(keys, key=lambda t: (t[0] != "all", t))]
        # the speedups to the decimals at which each winner and its margin follow from them as written (read 54:
        # default-cpu-drafts' threshold 0.84× over constant 0.70× read "+21%"), as the Speedup lab's policy table
        decimals = policy_decimals([comparison for _t, comparison in table])
        for temperature, comparison in table:
            best, found = comparison.winner, comparison.speedups
            # a win under half a percent keeps a decimal (`margin_percent`)
            gain = comparison.margin if best != "constant" else None
            margin = "" if gain is None else f" ({margin_percent(gain)} vs constant)"
            lines.append(f"| {comparison.suite} | {comparison.proposer} | {temperature:g} | " + " | ".join(
                _fmt(found.get(name), decimals, "×") for name in ("constant", "heuristic", "threshold", "optimal"))
                + f" | {best if best == 'optimal' else f'{best} K₀={comparison.k0}'}{margin} |")  # optimal: own K
        if recomputed is not None:
            lines += ["", f"The optimal column holds the constant K={recomputed} cases, recomputed, not a run of its "
                          "own (see the notes above)."]
    overheads = [r for r in result.summary if r["suite"] == "all" and r["record_overhead"] is not None]
    if overheads:
        lines += ["", "Trace recording overhead (per prompt, one run with the full trace recorded over the median "
                  "of the runs without it, minus 1; the mean over the prompts): " + "; ".join(
            f"{r['proposer']} K={r['k']} T={r['temperature']:g}: {signed_percent(r['record_overhead'], 1)}"
            for r in overheads) + "."]
    lines += _limit_lines(rows, costs)
    lines += _curve_lines(result.verify_curves())
    extra = _cost_digits(costs)  # the digits that make each draft ÷ target forward give its c
    lines += ["", "## Costs", "",
              f"Target forward, 1 new token, warm cache ({count_text(costs['context_tokens'], 'token')} of context): "
              f"{fixed(costs['target_forward_seconds'] * 1e3, 1 + extra)} ms.", ""]
    for name, c in costs["c"].items():
        lines.append(f"- {name}: draft forward {_ms_cell(costs['draft_forward_seconds'][name], extra)} ms, "
                     f"c = {_c_cell(c)}")
    lines += ["", "| tokens fed | " + " | ".join(str(v["n_tokens"]) for v in costs["verify"]) + " |",
              "|---|" + "---|" * len(costs["verify"]),
              "| time / one-token forward | "
              + " | ".join(fixed(v['ratio'], VERIFY_DIGITS) for v in costs["verify"]) + " |",
              "", "## Definitions", ""]
    lines += [f"- **{label}**: {meaning}" for label, meaning in DEFINITIONS.values()]
    return "\n".join(lines) + "\n"


# The EAGLE-3 drafter replaced the EAGLE-1 one in assets/models/smollm2-eagle in commit d63459e (2026-12-02 09:59 UTC);
# before that the first EAGLE-1 drafter (35ce4c2) was retrained in 86a0e25 (2026-12-01 04:54 UTC). Each new drafter
# ran before its commit: the bench files committed with it started earlier (`machine.date` 2026-12-01T04:23:36Z in
# 86a0e25's default-cpu-bf16-tree/results.json, 2026-12-02T09:37:13Z in 0c3b164's), so the cut-offs are those starts.
# A run of the default pair before them drafted its "eagle" rows with an EAGLE-1 drafter, which its command, typed
# today, no longer loads.
EAGLE3_FIRST_RUN = "2026-12-02T09:37"
EAGLE1_VERSIONS = (("2026-12-01T04:23", "the first EAGLE-1 drafter (commit 35ce4c2)"),
                   (EAGLE3_FIRST_RUN, "the retrained EAGLE-1 drafter (commit 86a0e25)"))


def replaced_eagle_drafter(result: BenchResult) -> str | None:
    """The EAGLE-1 drafter a run of the default pair drafted its "eagle" rows with, when it ran before the EAGLE-3
    drafter replaced it (EAGLE1_VERSIONS); None for any other run. Typed today, its command drafts with EAGLE-3."""
    date = str(result.machine.get("date", ""))
    if result.config.get("pair") != "default" or "eagle" not in result.proposers():
        return None
    if not date or date >= EAGLE3_FIRST_RUN:
        return None
    return next(name for until, name in EAGLE1_VERSIONS if date < until)


# ---- what a recorded command, typed today, would run differently ------------------------------------------------


@dataclass(frozen=True)
class DtypeDefault:
    """The command names no --dtype and the run ran `dtype` (float32 where unrecorded: then the only one); typed
    today it takes the machine's default (bfloat16 on a CPU with bf16 instructions)."""

    dtype: str

    @property
    def flag(self) -> str:
        return f"--dtype {self.dtype}"


@dataclass(frozen=True)
class StockKernels:
    """The run's linear layers ran PyTorch's stock kernels on a CPU, before specviz packed them (`ran_stock_kernels`);
    typed today on a CPU its command runs the packed ones, and `ENV` before it the stock ones."""

    ENV: ClassVar[str] = "SPECVIZ_KERNELS=stock"


@dataclass(frozen=True)
class SuitesDefault:
    """The command names no --suites and ran the suites `ran`; typed today it runs every suite in assets/prompts,
    `today`, another set."""

    ran: tuple[str, ...]
    today: tuple[str, ...]

    @property
    def flag(self) -> str:
        return "--suites " + " ".join(self.ran)


@dataclass(frozen=True)
class ReplacedDrafter:
    """The run's "eagle" rows drafted with `drafter`, an EAGLE-1 drafter the EAGLE-3 one has replaced since
    (`replaced_eagle_drafter`); typed today the command drafts with EAGLE-3, and no flag brings the old one back."""

    drafter: str


@dataclass(frozen=True)
class IsaLimits:
    """The run capped its kernels' instruction sets through its environment (`machine.isa_limits`, e.g.
    ONEDNN_MAX_CPU_ISA=AVX2), which its recorded command does not show; typed today without them the kernels use
    whatever the CPU offers, and `env` before the command caps them again."""

    limits: tuple[tuple[str, str], ...]

    @property
    def env(self) -> str:
        return " ".join(f"{name}={value}" for name, value in self.limits)


# what `specviz.scripts.gpu_check` writes in the --out of the bench command it records, for the folder it copies to
GPU_CHECK_FOLDER = "<machine>"


@dataclass(frozen=True)
class GpuCheckRun:
    """The GPU check (`specviz.scripts.gpu_check`, docs/gpu.md) made the run and wrote its command, which was never
    typed: `GPU_CHECK_FOLDER` stands for the folder the results were copied to, and the check timed c and the verify
    cost over `repeats` rounds (the bench's command line takes `default`, and has no flag for it) under its own time
    budget."""

    repeats: int | str
    default: int


RerunDifference = DtypeDefault | StockKernels | SuitesDefault | ReplacedDrafter | IsaLimits | GpuCheckRun


def rerun_differences(result: BenchResult, today_suites: Sequence[str] | None = None) -> list[RerunDifference]:
    """What `result.command`, typed today, would run differently from the run, in this order: its dtype, its
    kernels, its prompt suites, its EAGLE drafter, the instruction-set caps of its environment, and whether the GPU
    check wrote the command ([] when it runs as it ran). `today_suites`: the suites a command
    that names none runs (default: every suite in assets/prompts now). results.md says them in English
    (`rerun_lines`), the pages in the reader's language (`specviz.ui.common.bench_results.command_notes`), the model
    cards as a command (`rerun_command`).

    >>> run = BenchResult("python -m specviz bench --k 2 --out x", "", {"device": "cpu", "date": "2026-11-30"}, {},
    ...                   {}, [], [], [], [{"name": "qa", "title": "Q&A"}])
    >>> rerun_differences(run, today_suites=["qa", "chat"])
    [DtypeDefault(dtype='float32'), StockKernels(), SuitesDefault(ran=('qa',), today=('qa', 'chat'))]
    >>> rerun_differences(run, today_suites=["qa"])  # the suites it ran are today's: it runs them again
    [DtypeDefault(dtype='float32'), StockKernels()]
    >>> toy = BenchResult("python -m specviz bench --pair toy --out x", "", {"device": "cpu", "date": "2026-12-06",
    ...                   "kernels": "onednn-packed"}, {"pair": "toy"}, {}, [], [], [], [{"name": "qa", "title": "Q&A"}])
    >>> rerun_differences(toy, today_suites=["qa"])  # typed today the toy pair still runs in float32
    []
    """
    words = result.command.split()
    found: list[RerunDifference] = []
    toy = result.config.get("pair") == "toy"  # the toy pair runs in float32 unless a --dtype is named (models.pairs)
    if "--dtype" not in words and not (toy and (result.dtype or "float32") == "float32"):
        found.append(DtypeDefault(result.dtype or "float32"))
    if ran_stock_kernels(result.machine):
        found.append(StockKernels())
    ran = tuple(suite["name"] for suite in result.suites)
    if ran and "--suites" not in words:
        today = tuple(today_suites) if today_suites is not None else tuple(suite.name for suite in load_suites())
        if sorted(ran) != sorted(today):
            found.append(SuitesDefault(ran, today))
    drafter = replaced_eagle_drafter(result)
    if drafter is not None:
        found.append(ReplacedDrafter(drafter))
    limits = result.machine.get("isa_limits") or {}
    if limits:
        found.append(IsaLimits(tuple((str(name), str(value)) for name, value in limits.items())))
    if GPU_CHECK_FOLDER in result.command:
        found.append(GpuCheckRun(result.config.get("cost_repeats", "?"), BenchConfig.cost_repeats))
    return found


def rerun_command(result: BenchResult, differences: Sequence[RerunDifference] | None = None) -> str:
    """The recorded command with the defaults its run had that a run today would not (`rerun_differences`, or the
    `differences` given): its dtype and suites as flags before `--out`, SPECVIZ_KERNELS=stock before it for stock
    kernels and its environment's instruction-set caps; the recorded command when none applies (a replaced EAGLE
    drafter and the GPU check's timing rounds have no flag).

    >>> run = BenchResult("python -m specviz bench --k 2 --out x", "", {"device": "cpu", "date": "2026-11-30"}, {},
    ...                   {}, [], [], [], [{"name": "qa", "title": "Q&A"}])
    >>> rerun_command(run, rerun_differences(run, today_suites=["qa", "chat"]))
    'SPECVIZ_KERNELS=stock python -m specviz bench --k 2 --dtype float32 --suites qa --out x'
    >>> rerun_command(BenchResult.load(BENCHMARKS_DIR / "default-cpu-f32-packed" / "results.json")).split()[-4:]
    ['float32', '--no-record-overhead', '--out', 'assets/benchmarks/default-cpu-f32-packed']
    """
    differences = rerun_differences(result) if differences is None else differences
    command = result.command
    flags = " ".join(d.flag for d in differences if isinstance(d, (DtypeDefault, SuitesDefault)))
    if flags:
        command = command.replace(" --out ", f" {flags} --out ", 1) if " --out " in command else f"{command} {flags}"
    if any(isinstance(d, StockKernels) for d in differences):
        command = f"{StockKernels.ENV} {command}"
    for caps in (d for d in differences if isinstance(d, IsaLimits)):
        command = f"{caps.env} {command}"
    return command


def rerun_change(differences: Sequence[RerunDifference]) -> str:
    """How the recorded command typed today differs from the run, for results.md: the instruction-set caps its
    environment set, named with their values (`IsaLimits`; Read 44: a capped run's line listed "its kernels, dtype
    or suites", none of which it changed), and the generic list for the defaults the command spells out
    (`StockKernels`, `DtypeDefault`, `SuitesDefault`).

    >>> rerun_change([IsaLimits((("ONEDNN_MAX_CPU_ISA", "AVX2"), ("ATEN_CPU_CAPABILITY", "avx2")))]).split(" (")[1]
    'ONEDNN_MAX_CPU_ISA=AVX2 and ATEN_CPU_CAPABILITY=avx2)'
    >>> rerun_change([StockKernels()])
    'with other defaults than this run had (its kernels, dtype or suites)'
    """
    caps = [f"{name}={value}" for d in differences if isinstance(d, IsaLimits) for name, value in d.limits]
    parts = []
    if any(isinstance(d, (StockKernels, DtypeDefault, SuitesDefault)) for d in differences):
        parts.append("with other defaults than this run had (its kernels, dtype or suites)")
    if caps:
        named = caps[0] if len(caps) == 1 else f"{', '.join(caps[:-1])} and {caps[-1]}"
        parts.append(f"without the instruction-set caps this run had in its environment ({named})")
    return " and ".join(parts)


def rerun_lines(result: BenchResult) -> list[str]:
    """What results.md says under the recorded command when typing it today would not run what ran
    (`rerun_differences`): the command with the defaults it then had (`rerun_command`), which EAGLE drafter its
    eagle rows drafted with, when one that has been replaced since, and that the GPU check wrote the command ([]
    when none applies)."""
    differences = rerun_differences(result)
    command = rerun_command(result, differences)
    lines = [] if command == result.command else [
        f"Typed today, the command above would run {rerun_change(differences)}; with the ones it had: `{command}`"]
    lines += [f"Its eagle rows drafted with {d.drafter}; the EAGLE-3 drafter replaced it in commit d63459e "
              "(2026-12-02), and the command drafts with that one today." for d in differences
              if isinstance(d, ReplacedDrafter)]
    lines += [f"The GPU check (`python -m specviz.scripts.gpu_check`, docs/gpu.md) made this run and wrote the "
              f"command above, which was not typed: `{GPU_CHECK_FOLDER}` stands for the folder its results were "
              f"copied to, and the check timed c and the verify cost over {count_text(d.repeats, 'round')}, where "
              f"the command takes {d.default}, under its own time budget (a run it stopped early says so in its notes)."
              for d in differences if isinstance(d, GpuCheckRun)]
    return [item for line in lines for item in (line, "")]


_LOAD_LIST = re.compile(r"(load average \S+ at the start, )\[\s*(-?\d+(?:\.\d+)?)[^\]]*\]( at the end)")


# The note a run with tree rows writes (specviz.labs.bench.runner). Runs before 7498909 (2026-12-04 14:24 UTC) wrote it
# with Spec-Bench's name, #MAT, for what results.md's tables call mean accepted length (its definitions cite #MAT).
TREE_NOTE = ("Tree rows draft an EAGLE-2 style tree (node budget x width, depth K) scored in one target forward; their "
             "mean accepted length counts tokens per target forward, and their physical limit is that of a perfect "
             "free draft of the same shape.")
OLD_TREE_NOTE = ("Tree rows draft an EAGLE-2 style tree (node budget x width, depth K) scored in one target forward; "
                 "#MAT is tokens per target forward, the physical limit a perfect free draft of the same shape.")



def repeats_note(repeats: Any, warmup: Any) -> str:
    """The note on how a run's speedups were taken, its counts agreeing with their nouns (`count_text`; runs before
    this wording, 2026-12-06, wrote "1 repeat(s) after 1 warm-up round(s)": `current_note` rewords them).

    >>> repeats_note(1, 2).split("interleaved, ")[1]
    'medians over 1 repeat after 2 warm-up rounds.'
    """
    return ("Speedups are ratios of tokens/s measured in the same run, repeat by repeat interleaved, medians over "
            f"{count_text(repeats, 'repeat')} after {count_text(warmup, 'warm-up round')}.")


def threads_note(threads: Any, cores: Any) -> str:
    """The note on torch's threads and the machine's cores: "torch used 1 thread on 2 visible cores." (runs before
    2026-12-06 wrote "thread(s)" and "core(s)": `current_note` rewords them).

    >>> threads_note(1, 2)
    'torch used 1 thread on 2 visible cores.'
    """
    return f"torch used {count_text(threads, 'thread')} on {count_text(cores, 'visible core')}."


def stopped_note(skipped: int, total: int) -> str:
    """The note of a run its time limit cut short: "1 of 1 prompt x temperature case did not run." (runs before
    2026-12-06 wrote "cases" whatever the count: `current_note` rewords them).

    >>> stopped_note(1, 1)
    'Stopped at its time limit: 1 of 1 prompt x temperature case did not run.'
    >>> stopped_note(3, 8)[-46:]
    '3 of 8 prompt x temperature cases did not run.'
    """
    return f"Stopped at its time limit: {skipped} of {count_text(total, 'prompt x temperature case')} did not run."


def _count(text: str) -> int | None:
    """A count read back from an older note, or None ("?") when it is not a whole number."""
    return int(text) if text.isdigit() else None


# the notes above as runs before 2026-12-06 wrote them, with "(s)" for a noun's plural; `current_note` rewords them
_OLD_COUNT_NOTES = (
    (re.compile(r"Speedups are ratios of tokens/s measured in the same run, repeat by repeat interleaved, medians "
                r"over (\S+) repeat\(s\) after (\S+) warm-up round\(s\)\."),
     lambda m: repeats_note(_count(m[1]), _count(m[2]))),
    (re.compile(r"torch used (\S+) thread\(s\) on (\S+) visible core\(s\)\."),
     lambda m: threads_note(_count(m[1]), _count(m[2]))),
    (re.compile(r"Stopped at its time limit: (\d+) of (\d+) prompt x temperature cases did not run\."),
     lambda m: stopped_note(int(m[1]), int(m[2]))),
)

# The note of a run that started with the 1-minute load average over half the cores (specviz.labs.bench.runner), in one
# of two wordings (`load_note`). The load average counts the threads running or ready to run, averaged over the last
# minute; a run's own command adds its work before the run to it (the imports, loading the models, targets_bench's
# calibration), which runs at most one thread per core, or per torch thread where torch runs more threads than there
# are cores: call that bound n. A start up to twice n (`LOAD_NOTE`) may be that work or other work: the load says the
# cores were busy, not by whom. A start above twice n (`BUSY_LOAD_NOTE`, `busy_with_other_work`) is more than the
# command's own work can account for (at least n more threads were waiting): other work was running, as on the shared
# 2-core machine of default-cpu-ngram/, -layerskip/ and -bf16-trees/ (8.35, 11.59 and 8.19 at their starts), while a
# quiet machine's run stays under it (default-cpu-bf16-tree/, "nothing else running", started at 2.4).
# Runs before 68b529c (2026-12-05 20:59 UTC) wrote "The machine was shared (...)" whatever the load, and runs from then
# until this split (2026-12-06) `_PREVIOUS_LOAD_NOTE`'s single wording; `current_note` prints both in today's words.
# Read 54: the two wordings said "in the minute before the run" of both figures, true only of the one at the start
# (the one at the end covers the minute before the run ended); runs that wrote them (`_SPLIT_LOAD_NOTE`) are reworded.
LOAD_NOTE = ("The load average (threads running or ready to run, averaged over the minute before it is read) was "
             "{start} at the start and {end} at the end, on {cores}: the one at the start says that in the minute "
             "before the run, more threads than half the number of cores were running or ready to run (other work, or "
             "this command's own imports, loading or calibration), so absolute times may be noisy; ratios from the "
             "same run are the numbers to trust.")
BUSY_LOAD_NOTE = ("The load average (threads running or ready to run, averaged over the minute before it is read) was "
                  "{start} at the start and {end} at the end, on {cores}: the one at the start says that in the minute "
                  "before the run, more threads than twice the number of cores were running or ready to run, more "
                  "than this command's own imports, loading or calibration can account for, so the machine was busy "
                  "with other work; absolute times may read slower and noisier than on a quiet machine, and ratios "
                  "from the same run are the numbers to trust.")
_SPLIT_LOAD_NOTE = re.compile(
    r"The load average was (\S+) at the start and (\S+) at the end, on (\d+) cores?: in the minute before the run, "
    r"more threads than (?:half|twice) the number of cores were running or ready to run.*")
_OLD_LOAD_NOTE = re.compile(r"The machine was shared \(load average (\S+) at the start, (.+) at the end\): absolute "
                            r"times are noisy; ratios from the same run are the numbers to trust\.")
_PREVIOUS_LOAD_NOTE = re.compile(
    r"The load average was (\S+) at the start and (\S+) at the end, on (\S+) cores: over half of them were busy in "
    r"the minute before the run \(other work, or this command's own imports, loading or calibration\), so absolute "
    r"times may be noisy; ratios from the same run are the numbers to trust\.")


def busy_with_other_work(load: float, cores: int, threads: int | None = None) -> bool:
    """Whether a run's 1-minute load average at its start is more than its own command's work can account for: above
    twice the cores, or twice the torch threads where those are more (the rule above `LOAD_NOTE`).

    >>> busy_with_other_work(8.19, 2), busy_with_other_work(2.4, 2), busy_with_other_work(5.0, 2, threads=8)
    (True, False, False)
    """
    return load > 2 * max(cores, threads or 0)


def load_note(start: Any, end: Any, cores: Any, threads: int | None = None) -> str:
    """The busy-start note of a run that started at the 1-minute load average `start` (a number, or its text) on
    `cores` cores: `BUSY_LOAD_NOTE` when that is more than the command's own work can account for
    (`busy_with_other_work`), else `LOAD_NOTE`; "1 core" or "2 cores" (`count_text`). With no number for `start`
    or `cores`, `LOAD_NOTE`, which names both causes.

    >>> load_note(8.35, 2.79, 2)[95:209]
    'was 8.35 at the start and 2.79 at the end, on 2 cores: the one at the start says that in the minute before the run'
    >>> "busy with other work" in load_note(8.35, 2.79, 2), "busy with other work" in load_note(1.04, 2.03, 2)
    (True, False)
    """
    try:
        busy = busy_with_other_work(float(start), int(cores), threads)
    except (TypeError, ValueError):
        busy = False
    return (BUSY_LOAD_NOTE if busy else LOAD_NOTE).format(
        start=start, end=end, cores=count_text(cores if is_whole(cores) else None, "core"))


def is_load_note(note: str) -> bool:
    """Whether a recorded bench note is the busy-start note (`LOAD_NOTE`, `BUSY_LOAD_NOTE`, or an older form)."""
    return note.startswith(("The load average ", "The machine was shared (load average "))


def current_note(note: str, cores: int | str = "?", threads: int | None = None) -> str:
    """A recorded bench note as results.md prints it: the busy-start note in today's words (`load_note`, which picks
    the wording by the load at the start, `cores` and `threads`, the machine's; the load average at the end as one
    number: `plain_load_note`), the tree note in today's words (`TREE_NOTE`: one name, mean accepted length, for
    tokens per target forward), and the notes with counts ("1 repeat(s)", "thread(s)", "1 of 1 ... cases") with
    their nouns agreeing (`repeats_note`, `threads_note`, `stopped_note`).

    >>> current_note(OLD_TREE_NOTE) == TREE_NOTE, current_note("torch used 1 thread(s) on 2 visible core(s).")
    (True, 'torch used 1 thread on 2 visible cores.')
    >>> current_note("The machine was shared (load average 1.04 at the start, [2.03, 2.01, 1.93] at the end): "
    ...              "absolute times are noisy; ratios from the same run are the numbers to trust.", 2)[95:148]
    'was 1.04 at the start and 2.03 at the end, on 2 cores'
    """
    note = plain_load_note(note)
    old = _OLD_LOAD_NOTE.fullmatch(note)
    if old:
        return load_note(old[1], old[2], cores, threads)
    previous = _PREVIOUS_LOAD_NOTE.fullmatch(note) or _SPLIT_LOAD_NOTE.fullmatch(note)
    if previous:
        return load_note(previous[1], previous[2], int(previous[3]) if previous[3].isdigit() else cores, threads)
    for pattern, reword in _OLD_COUNT_NOTES:
        found = pattern.fullmatch(note)
        if found:
            return reword(found)
    return TREE_NOTE if note == OLD_TREE_NOTE else note


def plain_load_note(note: str) -> str:
    """A bench note with the load average at the end as one number, its 1-minute figure like the one at the start
    (runs before 530837a, 2026-12-05 09:31 UTC, wrote the end's three `os.getloadavg()` figures as a list); other
    notes unchanged.

    >>> plain_load_note("The machine was shared (load average 2.4 at the start, [2.01, 2.13, 1.89] at the end): x")
    'The machine was shared (load average 2.4 at the start, 2.01 at the end): x'
    """
    return _LOAD_LIST.sub(r"\1\2\3", note)


# The note default-cpu-ngram carries since its optimal rows were recomputed for the policy that charges a one-pass
# proposer c per step (read 50; the command is in that commit's message); the Speedup lab shows it in the reader's
# language (`specviz.ui.speedup.results.NOTES`), and both name those rows as constant K's (`recomputed_optimal_k`)
RECOMPUTED_OPTIMAL = N_("The optimal policy's rows were recomputed, not measured: this run measured the policy when it "
                        "charged n-gram lookup K·c; it now charges c per step (one search drafts the whole step), and "
                        "at this run's c it then asks for K = 8 at every step, whatever α estimate these prompts can "
                        "give it, so it drafts and emits what constant K = 8 did, token for token: its rows are the "
                        "constant K = 8 cases, their times included.")


# --policy-k is where the heuristic policy starts and the threshold policy's cap; the optimal policy picks its own K up
# to BenchConfig.k_max, the largest K of the run's shapes and --policy-k (read 48: "ignores it" was not so). Every
# policy other than constant drafts a chain (cases.py runs them at --policy-k with no tree), so the table compares
# chains: its constant column is the chain of K₀ and never a tree of depth K₀ (whose row the table leaves out).
POLICIES_HEADING = ("## Draft-length policies, chains only (speedup vs specviz target-only; K₀: where heuristic "
                    "starts, threshold's cap; optimal picks its own K)")
POLICIES_NOTE = ("Each policy sets how many tokens a chain drafts, so the table compares chains: constant is the chain "
                 "of constant K = K₀, and a draft tree, which no policy drafts, is left out (its speedup is in the "
                 "tables above). A – marks what this run did not measure: a policy, or a chain of K₀ where the run "
                 "had only a tree of that depth.")
# what a † on a tree row's α cell means (the model cards' bench tables say it too, specviz.distill.cards)
TREE_ALPHA_MEANING = ("† A tree row's value in the α estimate column is the mean min(1, p′/q′) along each step's main "
                      "line (a child tried after a rejected sibling meets the residual p′), not α")
TREE_ALPHA_NOTE = (TREE_ALPHA_MEANING + "; its predicted speedup (measured verify) is its measured mean accepted length "
                   "over its step's measured cost (the verify cost of the tokens fed plus K·c, or plus c for the "
                   "Medusa heads, which draft with no drafter pass: a model that leaves out what heads 2 to K add), "
                   "not the paper's formula.")


def _alpha_cell(row: Row) -> str:
    """The α estimate column's cell: α for a chain; for a tree its mean min(1, p′/q′) marked † (`TREE_ALPHA_NOTE`),
    which is another quantity (DEFINITIONS["alpha"]). To `ALPHA_DIGITS` decimals, as the Speedup lab and the model
    cards write it, the α the predicted columns follow from (`predicted_as_written`; read 54: α 0.27 at 2 decimals
    beside predictions computed from every digit).

    >>> _alpha_cell({"alpha": 0.61, "tree_nodes": 0}), _alpha_cell({"alpha": 0.7245, "tree_nodes": 16})
    ('0.610', '0.725†')
    """
    if row.get("tree_nodes") and row["alpha"] is not None:
        return _fmt(row["alpha"], ALPHA_DIGITS) + "†"
    return _fmt(row["alpha"], ALPHA_DIGITS)


def _config(row: Row, recomputed_k: int | None = None) -> str:
    """"eagle constant K=4" for a chain, "eagle constant K=4, tree 16×4 + 8" for a tree: a tree row must not read as
    a chain of K. The optimal policy picks its own K, so its row names none (read 51: "ngram optimal K=4" gave the
    --policy-k the bench files it under), and where its rows repeat constant K's cases (`recomputed_k`,
    `BenchResult.recomputed_optimal_k`) it says so.

    >>> _config({"proposer": "eagle", "policy": "constant", "k": 3, "tree_nodes": 8, "tree_width": 4, "tree_lookup": 8})
    'eagle constant K=3, tree 8×4 + 8'
    >>> _config({"proposer": "ngram", "policy": "optimal", "k": 4}), _config({"proposer": "ngram", "policy": "optimal",
    ...                                                                     "k": 4}, 8)
    ('ngram optimal', 'ngram optimal (the constant K=8 cases, recomputed)')
    """
    if row["policy"] == "optimal":
        same = f" (the constant K={recomputed_k} cases, recomputed)" if recomputed_k is not None else ""
        return f"{row['proposer']} optimal{same}"
    tree = f", tree {DraftShape.of(row).short()}" if row.get("tree_nodes") else ""
    return f"{row['proposer']} {row['policy']} K={row['k']}{tree}"


def over_limit_note(row: Row, costs: dict) -> str | None:
    """The note under the Physical limit table for a shape whose limit is above the tokens one target forward can
    emit (`summary.over_limit`), in the Speedup lab's words (`specviz.ui.speedup.trees.over_limit_notes`), its limit
    as the table writes it (2 decimals) and the measured cost with the decimals that give it; None for the others.
    Read 54: default-cpu-f32-packed's table read 5.49× for a chain of K = 4 and 3.07× for K = 2, above the 5 and 3
    tokens a forward can emit, with no note."""
    over = over_limit(row, costs)
    if over is None:
        return None
    with using("en"):
        shape = DraftShape.of(row).describe()
    tokens = f"{over.tokens} token" + ("" if over.tokens == 1 else "s")
    return (f"The physical limit of {shape}, {fixed(over.limit, 2)}×, is above the {tokens} one target forward can "
            f"emit: the run's measured verify curve puts a forward over its {over.fed} tokens fed at "
            f"{fixed(over.ratio, over.ratio_digits(2))} of a one-token forward's time, under 1 (timing noise or a "
            f"kernel choice, not less work), and the limit divides by it. At a cost of one forward or more it would "
            f"be at most {over.tokens}×.")


def _limit_lines(rows: list[Row], costs: dict) -> list[str]:
    """The physical limit of each constant configuration and the share of it reached, then a note for each shape
    whose limit is above the tokens a forward can emit (`over_limit_note`; one per shape: the limit is the shape's)."""
    found = [r for r in rows if r.get("physical_limit")]
    if not found:
        return []
    lines = ["", "## Physical limit (a perfect, free draft of the same shape)", "",
             "Limit = (K + 1) tokens per forward (the lookup branch's length + 1 if that is longer) / verify cost of "
             "the tokens fed (K + 1 for a chain, nodes + lookup branch + 1 for a tree), from the verify curve measured "
             "in this run's dtype.", "",
             "| proposer | K | tree | T | mean accepted length | vs target-only | vs generate | physical limit | "
             "share of the limit | greedy identical |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in found:  # the limit from the verify costs as the dtype table below writes them (read 55)
        share = written_fraction(r, costs)
        lines.append(f"| {r['proposer']} | {r['k']} | {DraftShape.of(r).short()} | {r['temperature']:g} | "
                     f"{_fmt(r['mat_with_bonus'])} | {_fmt(r['speedup_vs_ar'], 2, '×')} | "
                     f"{_fmt(r['speedup_vs_hf_generate'], 2, '×')} | {_fmt(written_limit(r, costs), 2, '×')} | "
                     f"{_fmt(share * 100 if share is not None else None, 0, '%')} | "
                     f"{r['identical_count'] or '–'} |")
    notes = dict.fromkeys(note for r in found if (note := over_limit_note(r, costs)))
    for note in notes:
        lines += ["", note]
    return lines


def _curve_lines(curves: dict[str, list[dict]]) -> list[str]:
    """The verify-cost curve per dtype: one target forward over n new tokens over one token."""
    if not curves:
        return []
    sizes = sorted({p["n_tokens"] for curve in curves.values() for p in curve})
    lines = ["", "## Verify cost by dtype (one target forward over n new tokens / one token, KV cache present)", "",
             "| dtype | one token | " + " | ".join(f"n = {n}" for n in sizes) + " |",
             "|---|---|" + "---|" * len(sizes)]
    for dtype, curve in curves.items():
        by_n = {p["n_tokens"]: p["ratio"] for p in curve}
        one = next((p["seconds"] for p in curve if p["n_tokens"] == 1), None)
        lines.append(f"| {dtype} | {_fmt(one * 1e3 if one else None, 1, ' ms')} | "
                     + " | ".join(_fmt(by_n.get(n)) for n in sizes) + " |")
    return lines


def nan_to_null(obj: Any) -> Any:
    """JSON has no nan or inf: write them as null."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: nan_to_null(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [nan_to_null(v) for v in obj]
    return obj
