"""The Exactness lab's parts: cached experiments on a loaded pair, and the Plotly figures.

The experiments are `specviz.exactness` functions behind `st.cache_data` (keyed by every setting; the pair is
passed through unhashed and named by its key). The figure builders are plain Python returning a
`plotly.graph_objects.Figure`. Token text shown anywhere goes through `label`: whitespace made visible, then
HTML-escaped.
"""

from __future__ import annotations

import contextlib
import html
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import plotly.graph_objects as go
import streamlit as st
import torch

from specviz import exactness, theory
from specviz.examples import list_examples, load_example
from specviz.models import Pair, encode_prompt
from specviz.proposers import make_proposer
from specviz.sampling import SamplingConfig
from specviz.trace import Trace
from specviz.ui.palette import BLUISH_GREEN, GREY, P_COLOR, Q_COLOR, RESIDUAL_COLOR, VERMILLION
from specviz.ui.tokens import escape_text, visible

PAIRS = {
    "toy": "Toy pair (instant; 34 characters)",
    "default": "SmolLM2-135M, trained EAGLE-style drafter (first load ≈ 15 s)",
}
N_MAX = {("toy", "one_step"): 5000, ("toy", "engine"): 2000, ("default", "one_step"): 5000,
         ("default", "engine"): 200}
N_DEFAULT = {("toy", "one_step"): 2000, ("toy", "engine"): 400, ("default", "one_step"): 2000,
             ("default", "engine"): 20}
BARS = 20  # categories per histogram


def label(text: str, token_id: int | None = None) -> str:
    """A token for a chart axis: visible whitespace, HTML-escaped, the id appended so labels stay unique.

    >>> label("<b> x", 7)
    '&lt;b&gt;␣x · 7'
    """
    shown = html.escape(visible(text))
    return shown if token_id is None else f"{shown} · {token_id}"


@contextlib.contextmanager
def single_thread(active: bool = True) -> Iterator[None]:
    """Run torch on one thread: small tensors and the toy models spend more time handing work between threads than
    computing, and the machine's cores are shared."""
    if not active:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


# ---- the experiments ----------------------------------------------------------------------------------------------


@dataclass
class StepDistributions:
    """p and q for the first new token after the prompt, restricted to the tokens that carry their mass
    (`exactness.restrict_support`; the whole vocabulary for the toy pair), with readable labels."""

    prompt_ids: list[int]
    support: exactness.Support
    labels: list[str]  # one per kept token
    proposer: str

    @property
    def target_probs(self) -> torch.Tensor:
        return self.support.target_probs

    @property
    def draft_probs(self) -> torch.Tensor:
        return self.support.draft_probs

    @property
    def note(self) -> str:
        s = self.support
        if s.target_coverage >= 1 - 1e-9 and s.draft_coverage >= 1 - 1e-9:
            return ""
        return (f"Over the {len(s.token_ids):,} tokens that carry almost all the mass ({s.target_coverage:.4%} of p, "
                f"{s.draft_coverage:.4%} of q), renormalised.")


@st.cache_data(show_spinner="Computing p and q at the prompt...", max_entries=32)
def step_distributions(_pair: Pair, pair_name: str, prompt: str, temperature: float, top_k: int,
                       top_p: float) -> StepDistributions:
    """p from the target and q from the pair's default proposer, at the prompt (a ValueError on bad input)."""
    sampling = SamplingConfig(temperature, top_k, top_p)
    ids = encode_prompt(_pair.tokenizer, prompt, chat=_pair.chat)
    proposer = make_proposer(_pair)
    with single_thread(pair_name == "toy"):
        p = exactness.exact_first_token_distribution(_pair.target, ids, sampling)
        q = exactness.proposal_distribution(proposer, ids, sampling, _pair.target.config.vocab_size)
    support = exactness.restrict_support(p, q)
    labels = [label(_pair.tokenizer.decode([i]), i) for i in support.token_ids.tolist()]
    return StepDistributions(ids, support, labels, proposer.name)


@dataclass
class LabResult:
    """Samples of one experiment, as category ids against an exact distribution over the same categories."""

    exact_probs: torch.Tensor  # (C,) float64
    category_labels: list[str]  # (C,)
    speculative: torch.Tensor  # (n,) category ids
    target_only: torch.Tensor  # (n,)
    acceptance_rate: float  # share of kept drafts in the speculative runs
    note: str


@st.cache_data(show_spinner="Sampling...", max_entries=32)
def one_step_lab(_pair: Pair, pair_name: str, prompt: str, temperature: float, top_k: int, top_p: float, rule: str,
                 n: int, seed: int) -> LabResult:
    """n simulated single steps (K = 1) with the rule on the real p and q, next to n draws from p."""
    dists = step_distributions(_pair, pair_name, prompt, temperature, top_k, top_p)
    p, q = dists.target_probs, dists.draft_probs
    with single_thread():
        samples = exactness.one_step_samples(p, q, rule, n, torch.Generator().manual_seed(seed))
        plain = exactness.target_samples(p, n, torch.Generator().manual_seed(seed + 1))
    note = "one step with K = 1: the draft token comes from q, the rule decides, the first emitted token is counted"
    return LabResult(p.double(), dists.labels, samples.tokens, plain, samples.acceptance_rate,
                     note + (f". {dists.note}" if dists.note else ""))


def _sparse_labels(tokenizer, samples: Sequence[torch.Tensor], probs: torch.Tensor) -> list[str]:
    """Labels for a large vocabulary: decode only the tokens that were sampled or are likely."""
    wanted = set(torch.cat(list(samples)).unique().tolist()) | set(torch.topk(probs, BARS).indices.tolist())
    return [label(tokenizer.decode([i]), i) if i in wanted else str(i) for i in range(probs.shape[0])]


@st.cache_data(show_spinner="Sampling continuations through the engine...", max_entries=16)
def engine_lab(_pair: Pair, pair_name: str, prompt: str, temperature: float, top_k: int, top_p: float, rule: str,
               n: int, seed: int, length: int, k: int, compare: str = "first") -> LabResult:
    """n continuations of `length` tokens through speculative_generate (with the rule) and autoregressive_generate,
    compared with the exact distribution of their first token (`compare="first"`) or first two tokens ("pair")."""
    sampling = SamplingConfig(temperature, top_k, top_p)
    ids = encode_prompt(_pair.tokenizer, prompt, chat=_pair.chat)
    with single_thread(pair_name == "toy"):
        runs = exactness.continuation_samples(
            _pair.target, make_proposer(_pair), ids, n=n, length=length, rule=rule, k=k, temperature=temperature,
            top_k=top_k, top_p=top_p, seed=seed, tokenizer=_pair.tokenizer)
        if compare == "first":
            p = exactness.exact_first_token_distribution(_pair.target, ids, sampling)
        else:
            truth = exactness.exact_two_token_distribution(_pair.target, ids, sampling, tokenizer=_pair.tokenizer)
    what = f"{length}-token continuations (speculative with K = {k}, and target-only)"
    if compare == "first":
        firsts = [torch.tensor([s[0] for s in seqs], dtype=torch.int64) for seqs in (runs.speculative,
                                                                                       runs.autoregressive)]
        labels = [label(_pair.tokenizer.decode([i]), i) for i in range(p.shape[0])] if p.shape[0] <= 512 else \
            _sparse_labels(_pair.tokenizer, firsts, p)
        return LabResult(p.double(), labels, firsts[0], firsts[1], runs.acceptance_rate,
                         f"{what}, compared on their first token with the target's exact p")
    labels = [html.escape("".join(visible(_pair.tokenizer.decode([t])) for t in seq)) for seq in truth.support]
    return LabResult(truth.probs, labels + ["(other)"], truth.categorize([s[:2] for s in runs.speculative]),
                     truth.categorize([s[:2] for s in runs.autoregressive]), runs.acceptance_rate,
                     f"{what}, compared on their first two tokens; ground truth {truth.note}")


# ---- figures ----------------------------------------------------------------------------------------------------


def histogram_figure(result: LabResult, rule_label: str) -> go.Figure:
    """Sample frequencies (speculative with the rule, target-only) next to the exact probabilities, for the
    categories that matter most; everything else summed into one last bar."""
    size = result.exact_probs.shape[0]
    spec = torch.bincount(result.speculative, minlength=size).double() / len(result.speculative)
    plain = torch.bincount(result.target_only, minlength=size).double() / len(result.target_only)
    score = torch.maximum(result.exact_probs, spec)
    order = torch.argsort(score, descending=True)[:BARS].tolist()
    shown = set(order)
    rest = [i for i in range(size) if i not in shown]
    names = [result.category_labels[i] for i in order]
    pick = lambda v: [float(v[i]) for i in order] + ([float(v[rest].sum())] if rest else [])  # noqa: E731
    if rest:
        names.append("(all others)")
    fig = go.Figure()
    fig.add_trace(go.Bar(x=names, y=pick(spec), name=f"speculative: {rule_label}", marker_color=VERMILLION,
                         hovertemplate="%{x}: %{y:.4f}<extra>speculative</extra>"))
    fig.add_trace(go.Bar(x=names, y=pick(plain), name="target-only decoding", marker_color=GREY,
                         hovertemplate="%{x}: %{y:.4f}<extra>target-only</extra>"))
    fig.add_trace(go.Scatter(x=names, y=pick(result.exact_probs), mode="markers", name="exact p (target)",
                             marker=dict(symbol="line-ew", size=26, line=dict(width=3, color=P_COLOR)),
                             hovertemplate="%{x}: p = %{y:.4f}<extra>exact</extra>"))
    fig.update_layout(barmode="group", height=440, margin=dict(l=10, r=10, t=40, b=10), yaxis_title="frequency",
                      legend=dict(orientation="h", yanchor="top", y=-0.3, x=0),
                      title="Samples against the exact distribution")
    fig.update_xaxes(type="category", tickangle=-45 if len(names) > 12 else 0)
    return fig


def tv_figure(result: LabResult, drift: float | None) -> go.Figure:
    """TV distance to the exact distribution against N, log-log, with the 1/√N line an exact sampler follows."""
    spec = exactness.tv_curve(result.speculative, result.exact_probs, points=14)
    plain = exactness.tv_curve(result.target_only, result.exact_probs, points=14)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=spec.ns, y=spec.tv, mode="lines+markers", name="speculative (this rule)",
                             line=dict(color=VERMILLION)))
    fig.add_trace(go.Scatter(x=plain.ns, y=plain.tv, mode="lines+markers", name="target-only",
                             line=dict(color=GREY)))
    fig.add_trace(go.Scatter(x=spec.ns, y=spec.exact_reference, mode="lines",
                             name="expected for exact sampling ∝ 1/√N",
                             line=dict(color=P_COLOR, dash="dash")))
    if drift is not None and drift > 1e-9:
        fig.add_hline(y=drift, line=dict(color=VERMILLION, dash="dot"),
                      annotation_text=f"this rule's drift: TV = {drift:.3f}")
    fig.update_layout(height=440, margin=dict(l=10, r=10, t=40, b=10), xaxis_title="samples N",
                      yaxis_title="TV distance to p", title="Distance to the target as samples grow",
                      legend=dict(orientation="h", yanchor="top", y=-0.22, x=0))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return fig


def decomposition_figure(labels: list[str], decomposition: exactness.StepDecomposition,
                         draft_probs: torch.Tensor, alpha_text: str | None = None) -> go.Figure:
    """p as two stacked parts per token: min(p, q) (accepted drafts) and max(0, p − q) (recovered), with q as
    markers. The stack heights are p. `alpha_text` replaces the α in the title (e.g. bounds)."""
    fig = go.Figure()
    fig.add_trace(go.Bar(x=labels, y=decomposition.accepted.tolist(), name="accepted drafts: min(p, q)",
                         marker_color=BLUISH_GREEN, hovertemplate="%{x}: %{y:.4f}<extra>min(p, q)</extra>"))
    fig.add_trace(go.Bar(x=labels, y=decomposition.recovered.tolist(),
                         name="recovered: (1 − α)·norm(max(0, p − q))", marker_color=RESIDUAL_COLOR,
                         hovertemplate="%{x}: %{y:.4f}<extra>recovered part</extra>"))
    fig.add_trace(go.Scatter(x=labels, y=draft_probs.tolist(), mode="markers", name="q (draft)",
                             marker=dict(symbol="diamond-open", size=11, color=Q_COLOR, line=dict(width=2)),
                             hovertemplate="%{x}: q = %{y:.4f}<extra>draft</extra>"))
    alpha_text = alpha_text or f"{decomposition.alpha:.3f}"
    fig.update_layout(barmode="stack", height=440, margin=dict(l=10, r=10, t=40, b=10), yaxis_title="probability",
                      legend=dict(orientation="h", yanchor="top", y=-0.3, x=0),
                      title=f"p = min(p, q) + (1 − α)·norm(max(0, p − q)),  α = {alpha_text}")
    fig.update_xaxes(type="category", tickangle=-45 if len(labels) > 12 else 0)
    return fig


def top_for_bars(target_probs: torch.Tensor, draft_probs: torch.Tensor, n: int = BARS) -> list[int]:
    """The token ids worth a bar: the most likely under p or q."""
    return torch.argsort(torch.maximum(target_probs, draft_probs), descending=True)[:n].tolist()


def rules_table(target_probs: torch.Tensor, draft_probs: torch.Tensor, k: int, c: float) -> list[dict]:
    """Every rule at this p, q: how far its output drifts from p, how often it keeps a draft, and the speedup
    that acceptance rate would give at K and c (specviz.theory, i.i.d. acceptance assumed)."""
    rows = []
    for rule in exactness.RULES.values():
        dist, accept = exactness.one_step_distribution(rule, target_probs, draft_probs)
        rows.append({
            "rule": rule.label,
            "exact": "✓" if rule.exact else "✗",
            "drift (TV)": round(exactness.tv_distance(dist, target_probs), 4),
            "acceptance": round(accept, 4),
            "tokens/step": round(theory.expected_tokens_per_step(min(1.0, accept), k), 2),
            "speedup ×": round(theory.expected_speedup(min(1.0, accept), k, c), 2),
        })
    return rows


def verdict_box(title: str, counts: torch.Tensor, probs: torch.Tensor) -> exactness.ChiSquareResult:
    """Run the chi-square test and show its plain-language verdict in a coloured box."""
    result = exactness.chi_square_test(counts, probs)
    text = f"**{title}.** {result.verdict}"
    if result.impossible or result.p_value < 1e-3:
        st.error(text, icon=":material/cancel:")
    elif result.dof == 0:
        st.info(text, icon=":material/info:")
    elif result.p_value < 1e-2:
        st.warning(text, icon=":material/warning:")
    else:
        st.success(text, icon=":material/check_circle:")
    return result


def render_samples(result: LabResult, rule_label: str, drift: float | None) -> None:
    """The two verdicts, the numbers behind them, the histogram and the TV-vs-N curve."""
    size = result.exact_probs.shape[0]
    spec_counts = torch.bincount(result.speculative, minlength=size)
    plain_counts = torch.bincount(result.target_only, minlength=size)
    v1, v2 = st.columns(2)
    with v1:
        spec_test = verdict_box(f"Speculative, {rule_label}", spec_counts, result.exact_probs)
    with v2:
        verdict_box("Target-only decoding", plain_counts, result.exact_probs)
    m1, m2, m3 = st.columns(3)
    m1.metric("Chi-square p-value (speculative)", f"{spec_test.p_value:.3g}",
              help="How often chance alone would produce a gap at least this large if the samples came from p.")
    m2.metric("TV distance to p (speculative)", f"{exactness.tv_distance(spec_counts, result.exact_probs):.4f}")
    m3.metric("TV distance to p (target-only)", f"{exactness.tv_distance(plain_counts, result.exact_probs):.4f}")
    h1, h2 = st.columns(2)
    h1.plotly_chart(histogram_figure(result, rule_label), key="exact_histogram")
    h2.plotly_chart(tv_figure(result, drift), key="exact_tv")
    h2.caption("Exact sampling gets closer like 1/√N (the dashed line); a lossy rule levels off at its drift.")


def render_rule_economics(rule: exactness.Rule, dists: StepDistributions, k: int, c: float) -> None:
    """How far the rule drifts from p at this prompt, and the speed its acceptance rate would buy."""
    p, q = dists.target_probs, dists.draft_probs
    dist, rule_alpha = exactness.one_step_distribution(rule, p, q)
    exact_alpha = float(torch.minimum(p.double(), q.double()).sum())
    speedup = theory.expected_speedup(min(1.0, rule_alpha), k, c)
    b1, b2, b3 = st.columns(3)
    b1.metric("Drift from p (exact, one step)", f"{exactness.tv_distance(dist, p):.4f}",
              help="TV distance between what this rule emits and p, from its closed form at this prompt.")
    b2.metric("Acceptance rate", f"{rule_alpha:.3f}", delta=f"{rule_alpha - exact_alpha:+.3f} vs exact rule",
              delta_color="off")
    b3.metric(f"Speedup at K = {k}, c = {c:.2f}", f"{speedup:.2f}×",
              delta=f"{speedup - theory.expected_speedup(exact_alpha, k, c):+.2f}× vs exact rule", delta_color="off")
    st.dataframe(rules_table(p, q, k, c), hide_index=True, key="exact_rules_table")
    st.caption("Every rule at this prompt, from its closed form. Speedups use the i.i.d. formula of the Theory "
               "explorer with each rule's acceptance rate: a lossy rule buys speed with drift."
               + (f" {dists.note}" if dists.note else ""))


def render_decomposition(dists: StepDistributions, session_trace: object) -> None:
    """α and the stacked bars p = min(p, q) + (1 − α)·norm(max(0, p − q)), for p and q at the prompt, one drafted
    position of the session's trace, or one of an example trace."""
    sources = ["prompt"]
    if isinstance(session_trace, Trace) and session_trace.num_drafted:
        sources.append("session")
    examples = list_examples()
    if examples:
        sources.append("example")
    source = st.radio("Distributions from", sources, horizontal=True, key="exact_source",
                      format_func={"prompt": "p and q at the prompt above", "session": "the trace in this session",
                                   "example": "an example trace"}.get)
    try:
        if source == "prompt":
            p, q = dists.target_probs, dists.draft_probs
            ids = top_for_bars(p, q)
            labels = [dists.labels[i] for i in ids] + ["(all others)"]
            full = exactness.decompose_step(p, q)
            decomposition = exactness.StepDecomposition(full.alpha, _bucket(full.accepted, ids),
                                                        _bucket(full.recovered, ids))
            draft_probs = _bucket(q.double(), ids)
            alpha_text, note = f"{full.alpha:.3f}", dists.note
        else:
            if source == "session":
                trace = session_trace
            else:
                titles = {e.name: e.title for e in examples}
                name = st.selectbox("Example", list(titles), key="exact_example", format_func=titles.get)
                trace = load_example(name)[0]
            tested = [(s.index, d.position) for s in trace.steps for d in s.decisions]
            if not tested:
                raise ValueError("This trace drafted nothing, so it has no step to take apart.")
            choice = st.selectbox("Drafted position", range(len(tested)), key=f"exact_position_{source}",
                                  format_func=lambda i: f"step {tested[i][0] + 1}, draft {tested[i][1] + 1}")
            decision = trace.steps[tested[choice][0]].decisions[tested[choice][1]]
            recorded = exactness.recorded_step(decision)
            labels = [label(t, i) for t, i in zip(recorded.texts, recorded.token_ids)] + ["(all others)"]
            draft_probs = recorded.draft_probs
            decomposition = exactness.decompose_step(recorded.target_probs, draft_probs)
            lower, upper = recorded.alpha_bounds
            alpha_text = f"{lower:.3f} to {upper:.3f}"
            note = (f"From the trace's top-10 lists only: a token missing from a list shows 0 there, so α is known "
                    f"only within bounds. The drafted token was {escape_text(decision.text)} (id "
                    f"{decision.token_id}), kept with probability {decision.accept_prob:.3f}.")
    except ValueError as exc:
        st.error(str(exc))
        return
    d1, d2 = st.columns([1, 3])
    d1.metric("α = Σ min(p, q)", alpha_text, help="The chance that a draft x ~ q is accepted; 1 − TV(p, q).")
    d1.markdown("Green: the part of p delivered by **accepted** drafts, min(p, q). Purple: the part delivered by "
                "**recovered** tokens after a rejection, which happens with probability 1 − α and then samples "
                "norm(max(0, p − q)). Together they are exactly p; orange diamonds show q.")
    if note:
        d1.caption(note)
    d2.plotly_chart(decomposition_figure(labels, decomposition, draft_probs, alpha_text), key="exact_decomposition")


def _bucket(values: torch.Tensor, ids: list[int]) -> torch.Tensor:
    """values[ids] followed by the sum of all the others, (len(ids) + 1,)."""
    picked = values[ids]
    return torch.cat([picked, (values.sum() - picked.sum()).clamp_min(0)[None]])
