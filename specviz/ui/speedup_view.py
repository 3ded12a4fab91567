"""The Speedup lab's parts: benchmark results as tables and Plotly figures, the definitions panel, the live sweep.

The figure and table builders are plain functions of a `BenchResult` (no streamlit), so they can be tested
without a browser; the `render_*` functions draw with streamlit. The measuring lives in `specviz.bench`, the
formulas in `specviz.theory`.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from specviz import bench, theory
from specviz.bench import DEFINITIONS, BenchConfig, BenchResult
from specviz.ui.palette import BLUE, BLUISH_GREEN, GREY, LIGHT_GREY, ORANGE, REDDISH_PURPLE, SKY_BLUE, VERMILLION

SERIES = [BLUE, ORANGE, BLUISH_GREEN, REDDISH_PURPLE, SKY_BLUE, VERMILLION, GREY]
POLICY_TEXT = {
    "constant": "constant K",
    "heuristic": "+2 / −1 heuristic",
    "threshold": "stop below draft confidence",
    "optimal": "optimal K from α and c",
}
LIVE_KEY = "speedup_lab_live_result"


def label(key: str) -> str:
    """The shared label of a metric (the same words as the bench's JSON, CSV and markdown)."""
    return DEFINITIONS[key][0]


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


# ---- selections -----------------------------------------------------------------------------------------------------


def rows(result: BenchResult, *, suite: str = "all", proposer: str | None = None, temperature: float | None = None,
         policy: str | None = None) -> list[dict]:
    """Summary rows matching the filters, sorted by K."""
    out = [r for r in result.summary if r["suite"] == suite
           and (proposer is None or r["proposer"] == proposer)
           and (temperature is None or r["temperature"] == temperature)
           and (policy is None or r["policy"] == policy)]
    return sorted(out, key=lambda r: (r["policy"] != "constant", r["policy"], r["k"]))


def proposers(result: BenchResult) -> list[str]:
    return list(dict.fromkeys(r["proposer"] for r in result.summary))


def temperatures(result: BenchResult) -> list[float]:
    return sorted({r["temperature"] for r in result.summary})


def suite_titles(result: BenchResult) -> dict[str, str]:
    return {s["name"]: s["title"] for s in result.suites}


def headline(result: BenchResult, proposer: str, temperature: float) -> dict[str, str]:
    """The four numbers at the top: best measured speedup, its K, α, c."""
    constant = rows(result, proposer=proposer, temperature=temperature, policy="constant")
    if not constant:
        return {}
    best = max(constant, key=lambda r: r["speedup_vs_ar"] or 0)
    return {
        "best": _x(best["speedup_vs_ar"]), "best_k": str(best["k"]),
        "alpha": _num(_mean_alpha(constant), 3), "c": _num(best["c"], 3),
        "identical": best["identical_count"] or "–",
    }


def _mean_alpha(group: list[dict]) -> float | None:
    alphas = [r["alpha"] for r in group if r["alpha"] is not None]
    return sum(alphas) / len(alphas) if alphas else None


def _x(v) -> str:
    return "–" if v is None else f"{v:.2f}×"


def _num(v, digits: int = 2) -> str:
    return "–" if v is None or (isinstance(v, float) and not math.isfinite(v)) else f"{v:.{digits}f}"


def verdict(result: BenchResult, proposer: str, temperature: float) -> str:
    """Plain sentences on what the numbers say (slowdowns included), and where it pays if it pays anywhere."""
    constant = rows(result, proposer=proposer, temperature=temperature, policy="constant")
    if not constant:
        return "No constant-K runs for this proposer and temperature."
    best = max(constant, key=lambda r: r["speedup_vs_ar"] or 0)
    alpha, s, k = _mean_alpha(constant), best["speedup_vs_ar"] or 0, best["k"]
    verify = result.costs["verify"][min(k, len(result.costs["verify"]) - 1)]["ratio"]
    where = f"Over all categories, {proposer} at T = {temperature:g}"
    if s >= 1.05:
        text = (f"{where} is {s:.2f}× faster than target-only decoding at its best K = {k} (α ≈ {_num(alpha)}, "
                f"c = {best['c']:.3f}), measured in the same run.")
    elif s >= 0.97:
        text = f"{where} roughly breaks even (best {s:.2f}× at K = {k}, α ≈ {_num(alpha)})."
    else:
        if best["c"] < 0.05:
            why = (f"drafting is nearly free (c = {best['c']:.3f}), but one target forward over {k + 1} tokens costs "
                   f"{verify:.2f}× a one-token forward on this machine, more than the {best['mat_with_bonus']:.2f} "
                   "tokens per step it buys")
        else:
            why = (f"with α ≈ {_num(alpha)} most drafts are thrown away, yet each costs c = {best['c']:.2f} of a "
                   f"target forward, and verifying {k + 1} tokens costs {verify:.2f}× one")
        text = f"{where} is slower than target-only decoding at every K (best {s:.2f}× at K = {k}): {why}."
    titles = suite_titles(result)
    per_suite = [r for suite in titles for r in rows(result, suite=suite, proposer=proposer, temperature=temperature)]
    if per_suite and len(titles) > 1:
        top = max(per_suite, key=lambda r: r["speedup_vs_ar"] or 0)
        if (top["speedup_vs_ar"] or 0) >= 1.05:
            how = f"K = {top['k']}" if top["policy"] == "constant" else f"{POLICY_TEXT[top['policy']]}"
            text += (f" Where the output copies the prompt it pays: **{titles[top['suite']]}** reaches "
                     f"{top['speedup_vs_ar']:.2f}× ({how}, {top['mat_with_bonus']:.2f} tokens per step).")
    return text


# ---- figures --------------------------------------------------------------------------------------------------------


def _layout(fig: go.Figure, title: str, x: str, y: str, height: int = 430) -> go.Figure:
    fig.update_layout(title=title, xaxis_title=x, yaxis_title=y, height=height, margin=dict(l=10, r=10, t=50, b=10),
                      legend=dict(orientation="h", yanchor="top", y=-0.2, x=0), template="plotly_white")
    return fig


def speedup_vs_k_figure(result: BenchResult, proposer: str, temperature: float) -> go.Figure:
    """Measured speedup at each K (dots) over the paper's curve and the curve with the measured verify cost."""
    constant = rows(result, proposer=proposer, temperature=temperature, policy="constant")
    fig = go.Figure()
    if not constant:
        return _layout(fig, "Speedup vs K", "K (drafted tokens per step)", "speedup")
    alpha, c = _mean_alpha(constant), constant[0]["c"]
    k_top = max(max(r["k"] for r in constant), 8)
    ks = list(range(0, k_top + 1))
    verify = result.costs["verify"]
    fig.add_hline(y=1.0, line=dict(color=GREY, dash="dot"), annotation_text="target-only", annotation_position="top left")
    if alpha is not None:
        a = min(1.0, max(0.0, alpha))
        fig.add_scatter(x=ks, y=[theory.expected_speedup(a, k, c) for k in ks], mode="lines",
                        name=f"{label('predicted_speedup')}, α = {a:.2f}, c = {c:.3f}", line=dict(color=SKY_BLUE))
        vk = [k for k in ks if k < len(verify)]
        fig.add_scatter(x=vk, y=[theory.expected_tokens_per_step(a, k) / (k * c + verify[k]["ratio"]) for k in vk],
                        mode="lines", name=label("predicted_speedup_measured_verify"),
                        line=dict(color=REDDISH_PURPLE, dash="dash"))
    fig.add_scatter(x=[r["k"] for r in constant], y=[r["speedup_vs_ar"] for r in constant], mode="markers+lines",
                    name="measured: " + label("speedup_vs_ar"), marker=dict(size=11, color=BLUE),
                    line=dict(color=BLUE, width=1))
    hf = [r for r in constant if r["hf_assisted_speedup"] is not None]
    if hf:
        fig.add_scatter(x=[r["k"] for r in hf], y=[r["hf_assisted_speedup"] for r in hf], mode="markers",
                        name=label("hf_assisted_speedup"), marker=dict(size=10, symbol="diamond", color=ORANGE))
    fig.update_xaxes(dtick=1)
    return _layout(fig, f"Speedup vs K: {proposer}, T = {temperature:g}", "K (drafted tokens per step)",
                   label("speedup_vs_ar") + " (×)")


def acceptance_figure(result: BenchResult, proposer: str, temperature: float) -> go.Figure:
    """Acceptance by position for each K: the chance that the first i+1 drafts all survive."""
    fig = go.Figure()
    for i, r in enumerate(rows(result, proposer=proposer, temperature=temperature, policy="constant")):
        pos = r["per_position"]
        fig.add_scatter(x=list(range(1, len(pos) + 1)), y=pos, mode="markers+lines", name=f"K = {r['k']}",
                        line=dict(color=SERIES[i % len(SERIES)]))
    alpha = _mean_alpha(rows(result, proposer=proposer, temperature=temperature, policy="constant"))
    if alpha is not None:
        n = max((len(r["per_position"]) for r in result.summary), default=1)
        fig.add_scatter(x=list(range(1, n + 1)), y=[min(1.0, alpha) ** i for i in range(1, n + 1)], mode="lines",
                        name=f"α^i (i.i.d. model, α = {alpha:.2f})", line=dict(color=GREY, dash="dot"))
    fig.update_yaxes(range=[0, 1.05])
    fig.update_xaxes(dtick=1)
    return _layout(fig, f"Acceptance by position: {proposer}, T = {temperature:g}", "draft position i",
                   "share of steps with drafts 1..i all kept")


def time_breakdown_figure(result: BenchResult, proposer: str, temperature: float) -> go.Figure:
    """Per-step time split into draft / verify / overhead, per K and policy, next to target-only's time per token."""
    group = rows(result, proposer=proposer, temperature=temperature)
    names = [f"K={r['k']}" if r["policy"] == "constant" else f"{r['policy']} (K₀={r['k']})" for r in group]
    fig = go.Figure()
    for key, color in (("draft_ms", ORANGE), ("verify_ms", BLUE), ("overhead_ms", LIGHT_GREY)):
        fig.add_bar(x=names, y=[r[key] for r in group], name=label(key), marker_color=color)
    base = [b for b in result.baselines if b["method"] == "specviz target-only" and b["temperature"] == temperature]
    if base:
        per_token = 1e3 * sum(b["seconds"] for b in base) / sum(b["tokens"] for b in base)
        fig.add_hline(y=per_token, line=dict(color=VERMILLION, dash="dash"),
                      annotation_text=f"target-only: {per_token:.0f} ms per token", annotation_position="top left")
    fig.update_layout(barmode="stack")
    return _layout(fig, "Where a step's time goes (and how many tokens it must buy)", "configuration", "ms per step")


def mat_table(result: BenchResult, proposer: str, temperature: float) -> pd.DataFrame:
    """Tokens per step both ways, next to the acceptance numbers, so the quoted metrics can be compared."""
    data = []
    for r in rows(result, proposer=proposer, temperature=temperature):
        data.append({
            "policy": POLICY_TEXT.get(r["policy"], r["policy"]), "K": r["k"], "mean K drafted": r["mean_k"],
            label("alpha"): r["alpha"], label("acceptance_rate"): r["acceptance_rate"],
            label("mat_with_bonus"): r["mat_with_bonus"], label("mat_without_bonus"): r["mat_without_bonus"],
            label("tokens_per_second"): r["tokens_per_second"], label("speedup_vs_ar"): r["speedup_vs_ar"],
            label("predicted_speedup"): r["predicted_speedup"],
            label("predicted_speedup_measured_verify"): r["predicted_speedup_measured_verify"],
            label("record_overhead"): r["record_overhead"], label("identical"): r["identical_count"],
        })
    return _rounded(pd.DataFrame(data))


def _rounded(df: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """Numbers to a readable precision (the JSON keeps them all)."""
    return df.round(digits) if not df.empty else df


def category_figure(result: BenchResult, proposer: str, temperature: float) -> go.Figure:
    """Speedup vs target-only per prompt category, one bar per configuration."""
    titles = suite_titles(result)
    fig = go.Figure()
    configs = [(r["policy"], r["k"]) for r in rows(result, proposer=proposer, temperature=temperature)]
    for i, (policy, k) in enumerate(configs):
        ys, xs = [], []
        for suite, title in titles.items():
            match = rows(result, suite=suite, proposer=proposer, temperature=temperature, policy=policy)
            match = [r for r in match if r["k"] == k]
            if match:
                xs.append(title.replace(" ", "<br>", 1))  # two short lines fit under a group of bars
                ys.append(match[0]["speedup_vs_ar"])
        name = f"K = {k}" if policy == "constant" else f"{POLICY_TEXT[policy]} (K₀ = {k})"
        fig.add_bar(x=xs, y=ys, name=name, marker_color=SERIES[i % len(SERIES)])
    fig.add_hline(y=1.0, line=dict(color=GREY, dash="dot"))
    fig.update_layout(barmode="group")
    fig.update_xaxes(tickangle=0)
    return _layout(fig, f"Speedup by category: {proposer}, T = {temperature:g}", "prompt category",
                   label("speedup_vs_ar") + " (×)", height=470)


def policy_table(result: BenchResult, temperature: float) -> pd.DataFrame:
    """Per category and proposer: each policy's speedup, the winner and its margin over constant K."""
    titles = suite_titles(result)
    data = []
    for suite in ["all", *titles]:
        for proposer in proposers(result):
            group = rows(result, suite=suite, proposer=proposer, temperature=temperature)
            start_k = {r["k"] for r in group if r["policy"] != "constant"}
            if not start_k:
                continue
            k0 = min(start_k)
            entry = {"category": titles.get(suite, "all categories"), "proposer": proposer}
            scores = {}
            for r in group:
                if r["policy"] == "constant" and r["k"] != k0:
                    continue
                scores[POLICY_TEXT[r["policy"]] + (f" K={k0}" if r["policy"] == "constant" else "")] = r["speedup_vs_ar"]
            entry.update({name: _x(v) for name, v in scores.items()})
            best = max(scores, key=lambda name: scores[name] or 0)
            const = next((v for name, v in scores.items() if name.startswith("constant")), None)
            entry["winner"] = best
            entry["winner vs constant"] = f"{scores[best] / const - 1:+.0%}" if const and scores[best] else "–"
            data.append(entry)
    return pd.DataFrame(data)


def verify_cost_figure(result: BenchResult) -> go.Figure:
    """Target forward time over n new tokens (warm cache), relative to one token: the reason the method works."""
    verify = result.costs["verify"]
    ns = [v["n_tokens"] for v in verify]
    fig = go.Figure()
    fig.add_scatter(x=ns, y=[v["ratio"] for v in verify], mode="markers+lines", name="measured",
                    marker=dict(size=10, color=BLUE))
    fig.add_scatter(x=ns, y=[1.0] * len(ns), mode="lines", name="the paper's assumption: free (1)",
                    line=dict(color=BLUISH_GREEN, dash="dash"))
    fig.add_scatter(x=ns, y=ns, mode="lines", name="no parallelism at all: n one-token forwards",
                    line=dict(color=VERMILLION, dash="dot"))
    one = result.costs["target_forward_seconds"] * 1e3
    fig.update_xaxes(dtick=1)
    return _layout(fig, f"Verify cost vs tokens verified (1 token = {one:.1f} ms)", "tokens in one target forward",
                   "time / one-token forward")


def comparison_table(result: BenchResult, temperature: float) -> pd.DataFrame:
    """specviz against what a user would otherwise pick, over all categories, at one temperature: one row per
    method, every speedup a pooled tokens/s ratio from the same run."""
    base = [b for b in result.baselines if b["temperature"] == temperature]
    by_method = {m: [b for b in base if b["method"] == m] for m in dict.fromkeys(b["method"] for b in base)}
    ar = _rate(by_method.get("specviz target-only", []))
    generate = _rate(by_method.get("transformers generate", []))
    data = []

    def add(method, proposer, k, tps, identical):
        data.append({"method": method, "proposer": proposer, "K": "–" if k is None else str(k),
                     label("tokens_per_second"): _num(tps, 1),
                     label("speedup_vs_ar"): _x(tps / ar if tps and ar else None),
                     label("speedup_vs_hf_generate"): _x(tps / generate if tps and generate else None),
                     label("identical"): identical})

    for method, group in by_method.items():
        ident = [b["identical"] for b in group if b["identical"] is not None]
        add(method, "–", None, _rate(group), f"{sum(ident)}/{len(ident)}" if ident else "–")
    for r in rows(result, temperature=temperature, policy="constant"):
        add("specviz speculative", r["proposer"], r["k"], r["tokens_per_second"], r["identical_count"] or "–")
        if r["speedup_vs_hf_assisted"]:
            hf = "transformers prompt lookup" if r["proposer"] == "ngram" else "transformers assisted generation"
            add(hf, r["proposer"], r["k"], r["tokens_per_second"] / r["speedup_vs_hf_assisted"],
                _yes(r["hf_assisted_identical"]) if r["hf_assisted_identical"] is not None else "–")
    return pd.DataFrame(data)


def _rate(group: list[dict]) -> float | None:
    seconds = sum(b["seconds"] for b in group)
    return sum(b["tokens"] for b in group) / seconds if seconds else None


def _yes(v) -> str:
    return "–" if v is None else ("yes" if v else "NO")


def definitions_table() -> pd.DataFrame:
    return pd.DataFrame([{"metric": lab, "what it means": meaning} for lab, meaning in DEFINITIONS.values()])


# ---- streamlit --------------------------------------------------------------------------------------------------------


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


def ordered(paths: list[Path]) -> list[Path]:
    """The richest result first (most measured cases); unreadable files last, so the page still opens."""
    def size(path: Path) -> int:
        try:
            return len(load_result(path).cases)
        except ValueError:
            return -1
    return sorted(paths, key=lambda p: (-size(p), str(p)))


LIVE_PROPOSERS = ("draft", "ngram", "layerskip")


def live_sweep_form() -> BenchConfig | None:
    """The toy-pair sweep's settings; returns a config when the button is pressed."""
    c1, c2, c3 = st.columns(3)
    props = c1.multiselect("Proposers", LIVE_PROPOSERS, default=["draft", "ngram"], key="speedup_lab_live_proposers")
    ks = c2.multiselect("K values", [1, 2, 3, 4, 6, 8], default=[1, 2, 4], key="speedup_lab_live_ks")
    temps = c3.multiselect("Temperatures", [0.0, 0.7, 1.0], default=[0.0], key="speedup_lab_live_temps")
    c4, c5, c6 = st.columns(3)
    suites = c4.multiselect("Categories", [s.name for s in bench.load_suites()], default=["qa", "rewrite"],
                            key="speedup_lab_live_suites")
    tokens = c5.slider("New tokens", 8, 64, 24, 8, key="speedup_lab_live_tokens")
    policies = c6.multiselect("Policies", list(POLICY_TEXT), default=["constant", "heuristic"],
                              key="speedup_lab_live_policies")
    if not st.button("Run the toy sweep", key="speedup_lab_live_run", type="primary"):
        return None
    if not (props and ks and temps and suites and policies):
        st.error("Pick at least one proposer, K, temperature, category and policy.")
        return None
    if "constant" not in policies:
        policies = ["constant", *policies]
    return BenchConfig(pair="toy", proposers=list(props), ks=sorted(ks), temperatures=sorted(temps),
                       suites=list(suites), prompts_per_suite=1, max_new_tokens=tokens, repeats=1, warmup=1,
                       threads=1, policies=list(policies), policy_k=min(4, max(ks)), policy_temperatures=None,
                       hf="greedy", cost_repeats=5)


def run_live(config: BenchConfig, pair) -> BenchResult | None:
    """Run the sweep with a progress bar; a bad setting is one sentence on the page."""
    bar = st.progress(0.0, text="Starting the sweep...")

    def progress(done: int, total: int, what: str) -> None:
        bar.progress(min(1.0, done / total), text=f"{done}/{total} runs: {what}")

    try:
        result = bench.run_bench(config, command=bench.command_line(config), progress=progress, pair=pair)
    except ValueError as exc:
        bar.empty()
        st.error(str(exc))
        return None
    bar.progress(1.0, text=f"Done: {len(result.cases)} cases measured.")
    return result
