"""The Speedup lab's words: which benchmark results there are, the headline numbers and the verdict in sentences,
where they were measured, and what each metric means.

The questions asked of a result (its rows, the best K, α, the verify cost) are methods of
`specviz.bench.BenchResult`; the figures are in `specviz.ui.speedup_charts`, the comparison tables in
`specviz.ui.speedup_tables`, the live toy sweep in `specviz.ui.speedup_live`. Everything but the `render_*`
functions is plain Python.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import streamlit as st

from specviz import bench, theory
from specviz.bench import DEFINITIONS, BenchResult

POLICY_TEXT = {
    "constant": "constant K",
    "heuristic": "+2 / −1 heuristic",
    "threshold": "stop below draft confidence",
    "optimal": "optimal K from α and c",
}


def label(key: str) -> str:
    """The shared label of a metric (the same words as the bench's JSON, CSV and markdown)."""
    return DEFINITIONS[key][0]


def times(v: float | None) -> str:
    """A speedup for people: '1.58×', or '–' when unknown."""
    return "–" if v is None else f"{v:.2f}×"


def number(v: float | None, digits: int = 2) -> str:
    return "–" if v is None or (isinstance(v, float) and not math.isfinite(v)) else f"{v:.{digits}f}"


# ---- loading --------------------------------------------------------------------------------------------------------


def result_files() -> list[Path]:
    """Committed results (assets/benchmarks/*/results.json), newest first; read at call time so tests can redirect."""
    return bench.find_results(bench.BENCHMARKS_DIR)


@st.cache_data(show_spinner=False, max_entries=16)
def _load(path: str, mtime: float) -> BenchResult:
    return BenchResult.load(path)


def load_result(path: Path) -> BenchResult:
    """A result file, cached until the file changes; a bad file is a ValueError with one sentence."""
    return _load(str(path), path.stat().st_mtime)


def result_name(path: Path) -> str:
    return path.parent.name if path.name == "results.json" else path.stem


def ordered(paths: list[Path]) -> list[Path]:
    """The richest result first (most measured cases); unreadable files last, so the page still opens."""
    def size(path: Path) -> int:
        try:
            return len(load_result(path).cases)
        except ValueError:
            return -1
    return sorted(paths, key=lambda p: (-size(p), str(p)))


# ---- what the numbers say -------------------------------------------------------------------------------------------


def headline(result: BenchResult, proposer: str, temperature: float) -> dict[str, str]:
    """The four numbers at the top: best measured speedup, its K, α, c."""
    best = result.best_constant(proposer, temperature)
    if best is None:
        return {}
    return {
        "best": times(best["speedup_vs_ar"]), "best_k": str(best["k"]),
        "alpha": number(result.mean_alpha(proposer, temperature), 3), "c": number(best["c"], 3),
        "identical": best["identical_count"] or "–",
    }


def verdict(result: BenchResult, proposer: str, temperature: float) -> str:
    """Plain sentences on what the numbers say (slowdowns included), and where it pays if it pays anywhere."""
    best = result.best_constant(proposer, temperature)
    if best is None:
        return "No constant-K runs for this proposer and temperature."
    alpha, s, k = result.mean_alpha(proposer, temperature), best["speedup_vs_ar"] or 0, best["k"]
    verify = result.verify_ratio(k)
    where = f"Over all categories, {proposer} at T = {temperature:g}"
    if s >= 1.05:
        text = (f"{where} is {s:.2f}× faster than target-only decoding at its best K = {k} (α ≈ {number(alpha)}, "
                f"c = {best['c']:.3f}), measured in the same run.")
    elif s >= 0.97:
        text = f"{where} roughly breaks even (best {s:.2f}× at K = {k}, α ≈ {number(alpha)})."
    else:
        why = slowdown_reason(alpha, best["c"], k, verify, best["mat_with_bonus"])
        text = f"{where} is slower than target-only decoding at every K (best {s:.2f}× at K = {k}): {why}."
    titles = result.suite_titles()
    top = result.best_in_one_suite(proposer, temperature)
    if top is not None and len(titles) > 1 and (top["speedup_vs_ar"] or 0) >= 1.05:
        how = f"K = {top['k']}" if top["policy"] == "constant" else f"{POLICY_TEXT[top['policy']]}"
        text += (f" Where the output copies the prompt it pays: **{titles[top['suite']]}** reaches "
                 f"{top['speedup_vs_ar']:.2f}× ({how}, {top['mat_with_bonus']:.2f} tokens per step).")
    return text


def slowdown_reason(alpha: float | None, c: float, k: int, verify: float, tokens_per_step: float) -> str:
    """Why a speculative run lost to target-only decoding, naming the cause the numbers point to.

    A step costs K·c draft forwards plus one target forward over K + 1 tokens (`verify` one-token forwards) and emits
    `tokens_per_step`. With c ≥ 1 the draft is the cause whatever α is; else α is the cause when it is below the
    break-even α for this K and c (Leviathan et al.); else the formula says the step should pay, and the cost of
    verifying K + 1 tokens is what it misses.

    >>> slowdown_reason(0.61, 1.17, 2, 1.1, 1.9)[:58]
    'each drafted token costs c = 1.17 of a target forward: the'
    >>> slowdown_reason(0.2, 0.1, 4, 1.2, 1.2)[:45]
    'at c = 0.10 a step of K = 4 drafts pays only '
    """
    if c >= 1:
        return (f"each drafted token costs c = {c:.2f} of a target forward: the draft is no cheaper than the "
                f"target, so even if all K = {k} drafts were kept, a step would cost at least the {k + 1} target "
                f"forwards plain decoding pays for the same {k + 1} tokens (the acceptance α ≈ {number(alpha)} is "
                "not what holds it back)")
    needed = theory.break_even_alpha(k, c)
    if alpha is not None and math.isfinite(needed) and alpha < needed:
        return (f"at c = {c:.2f} a step of K = {k} drafts pays only if α is above {needed:.2f}, and here α ≈ "
                f"{alpha:.2f}: too many drafts are thrown away for their cost")
    return (f"α ≈ {number(alpha)} and c = {c:.3f} would pay if checking the drafts were free, but one target "
            f"forward over {k + 1} tokens costs {verify:.2f}× a one-token forward on this machine, more than the "
            f"{tokens_per_step:.2f} tokens per step it buys")


# ---- streamlit --------------------------------------------------------------------------------------------------------


def definitions_table() -> pd.DataFrame:
    return pd.DataFrame([{"metric": lab, "what it means": meaning} for lab, meaning in DEFINITIONS.values()])


def render_definitions() -> None:
    st.markdown(
        "People quote different numbers for the same run. Here is what each label means; the bench's JSON, CSV and "
        "markdown use the same labels. **p = target, q = draft, K = drafted tokens per step.**")
    st.dataframe(definitions_table(), hide_index=True, width="stretch")


def render_machine(result: BenchResult, name: str) -> None:
    """One line on where and how the numbers were measured; the notes and the exact command in an expander."""
    m = result.machine
    clock = "CPU time" if result.config.get("clock") == "cpu" else "wall time"
    st.caption(f"Pair `{result.config['pair']}` on {m['cpu']} ({m['cores']} cores, GPU {m['gpu'] or 'none'}), "
               f"{m['torch_threads']} torch thread(s), {clock}, {m['date'][:10]}: {len(result.cases)} measured "
               f"cases, {result.config['max_new_tokens']} new tokens each.")
    with st.expander("How this was measured: machine, notes, the command that reproduces it"):
        st.markdown(f"torch {m['torch']}, transformers {m['transformers']}, Python {m.get('python', '?')}, "
                    f"{m.get('platform', '')}; load average {m.get('load_average_start')} at the start.")
        for note in result.notes:
            st.markdown("- " + note)
        if result.command:
            st.code(result.command, language="bash", wrap_lines=True)
