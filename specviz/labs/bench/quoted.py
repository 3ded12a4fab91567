"""Figures the pages quote, read from the committed benchmarks (`assets/benchmarks/<folder>/results.json`), so a
sentence cannot go stale when a benchmark is re-run, and every figure knows where it came from and in which dtype.

    quoted.speedup_range("default-cpu-ngram", "ngram", suite="rewrite", k=8)
    # Quoted(1.94, 2.22, "default-cpu-ngram", "float32"): low, high, folder, dtype
    quoted.verify_range("default-cpu-bf16-tree")                              # n = 2..5 tokens over one token
    quoted.draft_cost("default-cpu-drafts", "draft")                          # c of the separate draft model

A `Quoted` is a low and a high value (equal for a single figure) with the folder and the dtype of the run; its
`text()` writes them the reader's way ("1.9–2.2", "1,9–2,2"). A missing or unreadable file is a ValueError with
one sentence, so a page that quotes it fails loudly in the tests instead of printing a number nobody measured.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from pathlib import Path

from specviz.core.i18n import _, ngettext, number
from specviz.core.paths import BENCHMARKS_DIR
from specviz.labs.bench.machine import kernels_words, machine_text  # noqa: F401 - re-exported


@dataclass(frozen=True)
class Quoted:
    """A measured figure or range: `low`..`high`, from the run in `folder` (under assets/benchmarks/) in `dtype`."""

    low: float
    high: float
    folder: str
    dtype: str

    def text(self, digits: int = 1) -> str:
        """The figure as the reader writes it: "1.3", or "1.9–2.2" for a range (en dash, no spaces).

        >>> Quoted(1.94, 2.22, "x", "float32").text(), Quoted(1.302, 1.304, "x", "bfloat16").text(2)
        ('1.9–2.2', '1.30')
        """
        low, high = number(self.low, digits), number(self.high, digits)
        return low if low == high else f"{low}–{high}"

    @property
    def source(self) -> str:
        """Where it was measured: the folder and the dtype, for a caption."""
        return f"{BENCHMARKS_DIR.parent.name}/{BENCHMARKS_DIR.name}/{self.folder} ({self.dtype})"


@lru_cache(maxsize=16)
def _result(folder: str, root: str) -> dict:
    path = Path(root) / folder / "results.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"The committed benchmark {path} cannot be read ({exc.__class__.__name__}).") from None


def result(folder: str, root: Path | None = None) -> dict:
    """The committed run in `folder`, as written by `python -m specviz bench`."""
    return _result(folder, str(root or BENCHMARKS_DIR))


def dtype(folder: str, root: Path | None = None) -> str:
    """The dtype the run's models were in (runs from before the field existed were float32)."""
    return run_dtype(result(folder, root))


def run_dtype(run: dict) -> str:
    """The dtype of a `specviz bench` results.json already read: its machine's, else its config's, else float32
    (the only dtype before the field existed).

    >>> run_dtype({"machine": {"dtype": "bfloat16"}}), run_dtype({"machine": {"cpu": "x"}, "config": {}})
    ('bfloat16', 'float32')
    """
    return str((run.get("machine") or {}).get("dtype") or (run.get("config") or {}).get("dtype") or "float32")


def speedup_range(folder: str, proposer: str, *, suite: str = "all", k: int | None = None,
                  policy: str = "constant", temperature: float | None = None, tree_nodes: int = 0,
                  against: str = "speedup_vs_ar", root: Path | None = None, tree_lookup: int | None = None) -> Quoted:
    """The lowest and highest speedup of the summary rows that match (None matches any K, temperature or lookup
    branch); `against` names the baseline: "speedup_vs_ar" (specviz's target-only decoding) or
    "speedup_vs_hf_generate"."""
    rows = _rows(folder, proposer, suite, k, policy, temperature, tree_nodes, against, root, tree_lookup)
    values = [float(r[against]) for r in rows]
    return Quoted(min(values), max(values), folder, dtype(folder, root))


def mean_accepted_length(folder: str, proposer: str, *, suite: str = "all", k: int | None = None,
                         policy: str = "constant", temperature: float | None = None, tree_nodes: int = 0,
                         root: Path | None = None, tree_lookup: int | None = None) -> tuple[Quoted, int]:
    """Tokens per target forward (mean accepted length, the recovered or bonus token included) of the matching
    summary rows, lowest and highest, and how many prompts the rows pooled (the fewest of them). These are counts,
    so they do not depend on how busy the machine was."""
    rows = _rows(folder, proposer, suite, k, policy, temperature, tree_nodes, "mat_with_bonus", root, tree_lookup)
    values = [float(r["mat_with_bonus"]) for r in rows]
    return Quoted(min(values), max(values), folder, dtype(folder, root)), min(int(r["prompts"]) for r in rows)


def kept_through(folder: str, proposer: str, depth: int, *, k: int, temperature: float, tree_nodes: int = 0,
                 suite: str = "all", root: Path | None = None) -> Quoted:
    """Acceptance by position at `depth` (1 = the first draft) of the one matching summary row: of the steps
    that drafted at least `depth` tokens (a tree: reached that depth), the share whose first `depth` drafts were all
    kept. A count, so it does not depend on how busy the machine was."""
    rows = _rows(folder, proposer, suite, k, "constant", temperature, tree_nodes, "per_position", root)
    if len(rows) > 1:  # trees of several widths or lookup branches: the first would be quoted as if it were the one
        raise ValueError(f"The benchmark {folder} has {len(rows)} {proposer} rows for that selection, not one.")
    shares = rows[0]["per_position"]
    if not 1 <= depth <= len(shares) or not isinstance(shares[depth - 1], int | float):  # read 52: None, a TypeError
        raise ValueError(f"The benchmark {folder} has no {proposer} acceptance at draft position {depth}.")
    return Quoted(float(shares[depth - 1]), float(shares[depth - 1]), folder, dtype(folder, root))


def kept_after(folder: str, proposer: str, depth: int, *, k: int, temperature: float, tree_nodes: int = 0,
               suite: str = "all", root: Path | None = None) -> Quoted:
    """Of the steps that kept drafts 1..depth-1, the share that kept draft `depth` too: acceptance by position at
    `depth` over the one before it (depth >= 2). What the drafter's view of the drafts before a position is worth."""
    if depth < 2:
        raise ValueError("kept_after needs a draft position of 2 or more.")
    before = kept_through(folder, proposer, depth - 1, k=k, temperature=temperature, tree_nodes=tree_nodes,
                          suite=suite, root=root)
    through = kept_through(folder, proposer, depth, k=k, temperature=temperature, tree_nodes=tree_nodes, suite=suite,
                           root=root)
    share = through.low / before.low if before.low else 0.0
    return Quoted(share, share, folder, through.dtype)


def _rows(folder: str, proposer: str, suite: str, k: int | None, policy: str, temperature: float | None,
          tree_nodes: int, field: str, root: Path | None, tree_lookup: int | None = None) -> list[dict]:
    rows = [r for r in result(folder, root).get("summary", [])
            if r["proposer"] == proposer and r["suite"] == suite and r["policy"] == policy
            and (k is None or r["k"] == k) and (temperature is None or r["temperature"] == temperature)
            and (r.get("tree_nodes") or 0) == tree_nodes and r.get(field) is not None
            and (tree_lookup is None or (r.get("tree_lookup") or 0) == tree_lookup)]
    if not rows:
        raise ValueError(f"The benchmark {folder} has no {proposer} row for that selection.")
    return rows


def machine(folder: str, root: Path | None = None) -> str:
    """Where a committed run was measured, as `machine_text` writes its result's `machine` record: "AMD EPYC (2 cores,
    oneDNN packed-weight kernels)", "NVIDIA H200"; "?" when the result records no machine."""
    return machine_text(result(folder, root).get("machine") or {}) or "?"


def timed_by(folder: str, root: Path | None = None) -> str:
    """What a committed run's speeds and costs were timed by (`clock_text`): "CPU time with 1 torch thread"."""
    return clock_text(result(folder, root))


def clock_text(run: dict[str, Any]) -> str:
    """What a run's speeds were timed by: its clock and torch threads (read 49: the Medusa preset quoted a run timed
    by one thread's CPU time as measured "on AMD EPYC (2 cores, ...)", which reads as both cores).

    >>> clock_text({"config": {"clock": "cpu"}, "machine": {"torch_threads": 1}})
    'CPU time with 1 torch thread'
    """
    threads = int((run.get("machine") or {}).get("torch_threads") or 0)
    clock = _("CPU time") if (run.get("config") or {}).get("clock") == "cpu" else _("wall time")
    if not threads:
        return clock
    return ngettext("{clock} with {n} torch thread", "{clock} with {n} torch threads", threads, clock=clock)


def verify_range(folder: str, tokens: range = range(2, 6), root: Path | None = None) -> Quoted:
    """The cost of one target forward over n new tokens in one-token forwards, lowest and highest over `tokens`
    (the verify pass of K = 1..4 drafts by default)."""
    rows = (result(folder, root).get("costs") or {}).get("verify", [])
    curve = {int(r["n_tokens"]): float(r["ratio"]) for r in rows}
    values = [curve[n] for n in tokens if n in curve]
    if not values:
        raise ValueError(f"The benchmark {folder} has no verify cost for {tokens.start}..{tokens.stop - 1} tokens.")
    return Quoted(min(values), max(values), folder, dtype(folder, root))


def draft_cost(folder: str, proposer: str, root: Path | None = None) -> Quoted:
    """c: one draft forward over one target forward, as the run measured it."""
    cost = ((result(folder, root).get("costs") or {}).get("c") or {}).get(proposer)
    if cost is None:
        raise ValueError(f"The benchmark {folder} measured no draft cost for {proposer}.")
    return Quoted(float(cost), float(cost), folder, dtype(folder, root))


def greedy_identity(folder: str, name: str, root: Path | None = None) -> tuple[int, int, str]:
    """(identical, prompts, dtype) of a committed `python -m specviz.scripts.greedy_identity` run: on how many
    prompts greedy speculative output equalled target-only output, in which dtype."""
    path = Path(root or BENCHMARKS_DIR) / folder / name
    try:
        run = _identity_run(str(path))
        entries = run["entries"]
        return sum(bool(e["identical"]) for e in entries), len(entries), str(run["dtype"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"The committed greedy-identity check {path} cannot be read ({exc.__class__.__name__}).") \
            from None


@lru_cache(maxsize=8)
def _identity_run(path: str) -> dict:
    """A committed greedy-identity file, read once (its counts and its machine are both quoted on a page)."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


IDENTITY_RUN = "default-cpu-bf16-tree"  # where the committed bfloat16 greedy-identity check is
IDENTITY_FILES = {  # (run folder, file): float32 with packed kernels and the shape chosen for this CPU; bfloat16
    "fp32": ("default-cpu-f32-packed", "greedy-identity-float32.json"),
    "bf16": (IDENTITY_RUN, "greedy-identity.json"),
}


def greedy_identity_machines(root: Path | None = None) -> dict[str, str]:
    """{"fp32_cpu": ..., "bf16_cpu": ...}: the machine each committed greedy-identity check ran on (`machine`), for a
    sentence beside `greedy_identity_counts`; each as its own file records it, nothing added. A check's file that
    records no machine of its own is said to record none, with its folder's benchmark run's machine named as that
    run's, never guessed to be the check's. Read 54: the float32 check took its cores from the run beside it (the
    same CPU name, two hours earlier), so the caption read "AMD EPYC (2 cores, ...)" for it and "AMD EPYC (...)" for
    the bfloat16 one, though neither file records its cores; both are now written from what their files record.

    >>> machines = greedy_identity_machines()
    >>> machines["fp32_cpu"] == machines["bf16_cpu"] == "AMD EPYC (oneDNN packed-weight kernels)"
    True
    """
    machines = {}
    for key, (folder, name) in IDENTITY_FILES.items():
        try:
            own = _identity_run(str(Path(root or BENCHMARKS_DIR) / folder / name)).get("machine") or {}
        except (OSError, ValueError, AttributeError):
            own = {}
        text = machine_text(own) if isinstance(own, dict) else ""
        machines[f"{key}_cpu"] = text or _("a machine its file does not record, not necessarily the {machine} its "
                                           "folder's benchmark run recorded", machine=machine(folder, root))
    return machines


def greedy_identity_shapes(root: Path | None = None) -> dict[str, str]:
    """{"fp32_shape": ..., "bf16_shape": ...}: the draft shape each committed greedy-identity check drafted (its
    file's `shape`, a `DraftShape.label()`), in a phrase of the reader's language, for a sentence beside
    `greedy_identity_counts`: the two checks drafted different trees, and a larger one verifies more tokens in one
    pass, so the counts are not the same test in two dtypes.

    >>> greedy_identity_shapes()["fp32_shape"]
    'a tree of 8 nodes, depth 3, width 4, plus up to 8 tokens copied from the context'
    """
    return {f"{key}_shape": shape.describe() for key, shape in greedy_identity_draft_shapes(root).items()}


def greedy_identity_draft_shapes(root: Path | None = None) -> dict:
    """{"fp32": DraftShape, "bf16": DraftShape}: the draft shape each committed greedy-identity check drafted, read
    from its file's `shape`, for a sentence that must say whether a check drafted a chain or a tree.

    >>> {key: shape.is_tree for key, shape in greedy_identity_draft_shapes().items()}
    {'fp32': True, 'bf16': True}
    """
    from specviz.engine.draft_shape import DraftShape

    shapes = {}
    for key, (folder, name) in IDENTITY_FILES.items():
        path = Path(root or BENCHMARKS_DIR) / folder / name
        try:
            shapes[key] = DraftShape.from_label(str(_identity_run(str(path))["shape"]))
        except (OSError, ValueError, KeyError, TypeError):
            raise ValueError(f"The committed greedy-identity check {path} names no draft shape specviz can read.") \
                from None
    return shapes


def greedy_identity_counts(root: Path | None = None) -> dict[str, str]:
    """The committed greedy-identity checks as "same of total", for a sentence (the files' own counts):

    >>> greedy_identity_counts()
    {'fp32': '64 of 64', 'bf16': '2 of 8'}
    """
    counts = {}
    for key, (folder, name) in IDENTITY_FILES.items():
        same, total, _dtype = greedy_identity(folder, name, root)
        counts[key] = _("{same} of {total}", same=same, total=total)
    return counts
