"""One speculation step, drawn for a learner: drafts, the verifier's decision at each position, the correction,
and what happened to the KV caches. Figures are Plotly; the rest is HTML from `specviz.ui.tokens`.

Plain-Python builders (`*_figure`, `*_html`) are tested without streamlit; `render_step` puts them on the page.

Public API (other pages may import it; keep it stable): `distribution_figure`, `accept_strip_figure`,
`verdict_overview_figure`, `correction_figure`, `kv_cache_html`, `step_headline`, `render_step`,
`render_verifier_source`.
"""

from __future__ import annotations

import inspect

import plotly.graph_objects as go
import streamlit as st

from specviz import verifier
from specviz.trace import Decision, Step, TokenProb, Trace
from specviz.ui.palette import ACCEPT_FILL, P_COLOR, Q_COLOR, REJECT_FILL, RESIDUAL_COLOR, U_COLOR, style
from specviz.ui.tokens import (decision_chips, decision_kind, emitted_chips, escape_label, escape_text, fmt, plot_text,
                               text_html)

FONT = dict(size=15)
_BASE_LAYOUT = dict(template="plotly_white", font=FONT, margin=dict(l=10, r=10, t=44, b=10))


# ---- figures --------------------------------------------------------------------------------------------------


def _label(text: str, token_id: int) -> str:
    """A bar label: the visible token text, HTML-escaped for Plotly."""
    return plot_text(text)


def distribution_figure(d: Decision, n: int = 10) -> go.Figure:
    """Top-n bars of p (target, blue) and q (draft, orange) side by side at one drafted position.

    The bars cover the union of both top-10 lists, ranked by max(p, q); a probability outside a model's top 10 is
    not stored in the trace and is drawn as 0 with "below the top 10" on hover. The drafted token is marked.
    """
    p = {t.token_id: t for t in d.target_top}
    q = {t.token_id: t for t in d.draft_top}
    p.setdefault(d.token_id, TokenProb(d.token_id, d.text, d.target_prob))
    q.setdefault(d.token_id, TokenProb(d.token_id, d.text, d.draft_prob))
    ids = sorted(set(p) | set(q), key=lambda i: -max(p[i].prob if i in p else 0, q[i].prob if i in q else 0))[:n]
    if d.token_id not in ids:
        ids[-1] = d.token_id
    texts = {i: (p.get(i) or q.get(i)).text for i in ids}
    labels, seen = [], set()
    for i in ids:  # two tokens can look the same once whitespace is drawn: keep labels unique
        label = _label(texts[i], i)
        label = label if label not in seen else f"{label} ({i})"
        seen.add(label)
        labels.append(label)
    pv = [p[i].prob if i in p else 0.0 for i in ids]
    qv = [q[i].prob if i in q else 0.0 for i in ids]
    p_hover = [fmt(p[i].prob) if i in p else "below the target's top 10" for i in ids]
    q_hover = [fmt(q[i].prob) if i in q else "below the draft's top 10" for i in ids]
    fig = go.Figure()
    fig.add_bar(x=labels, y=pv, name="p (target)", marker_color=P_COLOR, customdata=p_hover,
                hovertemplate="%{x}<br>p = %{customdata}<extra></extra>")
    fig.add_bar(x=labels, y=qv, name="q (draft)", marker_color=Q_COLOR, customdata=q_hover,
                hovertemplate="%{x}<br>q = %{customdata}<extra></extra>")
    s = style(decision_kind(d))
    mark = labels[ids.index(d.token_id)]
    fig.add_annotation(x=mark, y=max(d.target_prob, d.draft_prob), text=f"{s.glyph} drafted", showarrow=True,
                       arrowhead=2, ay=-34, font=dict(color=s.color, size=15), bgcolor="white", bordercolor=s.color)
    fig.update_layout(**_BASE_LAYOUT, barmode="group", height=330, yaxis=dict(title="probability", rangemode="tozero"),
                      title=dict(text=f"Draft #{d.position + 1}: p and q, top tokens", font=dict(size=16)),
                      legend=dict(x=0.99, y=0.98, xanchor="right", yanchor="top", bgcolor="rgba(255,255,255,0.8)"))
    fig.update_xaxes(tickfont=dict(family="monospace", size=14))
    return fig


def accept_strip_figure(d: Decision) -> go.Figure:
    """The coin flip on [0, 1]: accept if u falls left of min(1, p/q) (shaded green), reject otherwise."""
    a = d.accept_prob
    fig = go.Figure()
    fig.add_shape(type="rect", x0=0, x1=a, y0=0, y1=1, fillcolor=ACCEPT_FILL, line_width=0)
    fig.add_shape(type="rect", x0=a, x1=1, y0=0, y1=1, fillcolor=REJECT_FILL, line_width=0)
    fig.add_vline(x=a, line=dict(color=style("accepted").color, width=3))
    side = "left" if a < 0.2 else "right" if a > 0.8 else "center"  # keep the label inside the plot
    fig.add_annotation(x=a, y=1, yanchor="bottom", xanchor=side, showarrow=False, text=f"min(1, p/q) = {fmt(a)}",
                       font=dict(color="#0B3D2E"))
    if a > 0.08:
        fig.add_annotation(x=a / 2, y=0.5, text="accept", showarrow=False, font=dict(color="#0B3D2E"))
    if a < 0.92:
        fig.add_annotation(x=(a + 1) / 2, y=0.5, text="reject", showarrow=False, font=dict(color="#7A2E00"))
    if d.reached and d.uniform is not None:
        s = style("accepted" if d.accepted else "rejected")
        fig.add_scatter(x=[d.uniform], y=[0.5], mode="markers+text", text=[f"u = {fmt(d.uniform)}"],
                        textposition="bottom right" if d.uniform < 0.1 else "bottom left" if d.uniform > 0.9
                        else "bottom center", marker=dict(symbol="diamond", size=18, color=U_COLOR,
                                                                  line=dict(color=s.color, width=2)),
                        hovertemplate=f"u = {fmt(d.uniform)}<extra></extra>", showlegend=False)
        verdict = "u < min(1, p/q): accepted ✓" if d.accepted else "u ≥ min(1, p/q): rejected ✗"
    else:
        verdict = "not reached: an earlier draft was rejected, so no u was drawn"
    fig.update_layout(**{**_BASE_LAYOUT, "margin": dict(l=10, r=10, t=58, b=28)}, height=150, showlegend=False,
                      title=dict(text=verdict, font=dict(size=15)),
                      xaxis=dict(range=[0, 1], dtick=0.1, showgrid=False),
                      yaxis=dict(range=[0, 1], visible=False))
    return fig


def verdict_overview_figure(step: Step) -> go.Figure:
    """All drafts of a step at a glance: bar = min(1, p/q) (the chance to accept), diamond = u.

    A draft is accepted when its diamond sits inside its bar; positions after the first rejection are grey.
    """
    labels = [f"#{d.position + 1} {_label(d.text, d.token_id)}" for d in step.decisions]
    kinds = [decision_kind(d) for d in step.decisions]
    fig = go.Figure()
    fig.add_bar(x=labels, y=[d.accept_prob for d in step.decisions],
                marker=dict(color=[style(k).background for k in kinds], line=dict(color=[style(k).color for k in kinds],
                                                                                   width=2)),
                customdata=[[fmt(d.target_prob), fmt(d.draft_prob), fmt(d.ratio), fmt(d.accept_prob), fmt(d.uniform)]
                            for d in step.decisions],
                hovertemplate="%{x}<br>p = %{customdata[0]}, q = %{customdata[1]}<br>p/q = %{customdata[2]}"
                              "<br>min(1, p/q) = %{customdata[3]}<br>u = %{customdata[4]}<extra></extra>",
                name="min(1, p/q)")
    for lab, k in zip(labels, kinds):  # the verdict glyph above each bar (above u's diamond, never under it)
        fig.add_annotation(x=lab, y=1.12, text=style(k).glyph, showarrow=False,
                           font=dict(size=20, color=style(k).color))
    reached = [(lab, d.uniform) for lab, d in zip(labels, step.decisions) if d.reached and d.uniform is not None]
    if reached:
        fig.add_scatter(x=[r[0] for r in reached], y=[r[1] for r in reached], mode="markers", name="u",
                        marker=dict(symbol="diamond", size=15, color=U_COLOR),
                        hovertemplate="u = %{y:.3f}<extra></extra>")
    fig.update_layout(**_BASE_LAYOUT, height=260,
                      yaxis=dict(range=[0, 1.22], title="min(1, p/q)", tickvals=[0, 0.25, 0.5, 0.75, 1]),
                      title=dict(text="Every draft: kept if u (◆) lands inside its bar", font=dict(size=16)),
                      showlegend=False, bargap=0.35)
    fig.update_xaxes(tickfont=dict(family="monospace", size=14))
    return fig


def correction_figure(step: Step) -> go.Figure | None:
    """Where the step's last token came from: the residual norm(max(0, p − q)) after a rejection, or p after all
    drafts were accepted (bonus), or p for a plain target step; the emitted token is marked. None if unknown."""
    if not step.correction_top or not step.emitted:
        return None
    kind = step.correction_kind or "target"
    last = step.emitted[-1] if step.emitted[-1].kind == kind else None
    labels = [_label(t.text, t.token_id) for t in step.correction_top]
    labels = [lab if labels.index(lab) == i else f"{lab} ({t.token_id})"
              for i, (lab, t) in enumerate(zip(labels, step.correction_top))]
    color = RESIDUAL_COLOR if kind == "recovered" else P_COLOR
    picked = [last is not None and t.token_id == last.token_id for t in step.correction_top]
    fig = go.Figure()
    fig.add_bar(x=labels, y=[t.prob for t in step.correction_top],
                marker=dict(color=color, opacity=[1.0 if pk else 0.55 for pk in picked],
                            line=dict(color=["#000" if pk else color for pk in picked],
                                      width=[3 if pk else 0 for pk in picked])),
                hovertemplate="%{x}<br>probability %{y:.3f}<extra></extra>")
    if last is not None and any(picked):
        s = style(kind)
        fig.add_annotation(x=labels[picked.index(True)], y=step.correction_top[picked.index(True)].prob,
                           text=f"{s.glyph} sampled", showarrow=True, arrowhead=2, ay=-32,
                           font=dict(color=s.color, size=15), bgcolor="white", bordercolor=s.color)
    title = {"recovered": "Recovered ↻: drawn from norm(max(0, p − q))",
             "bonus": "Bonus ★: all drafts kept, one more from p",
             "target": "Target •: no drafts, one token from p"}.get(kind, kind)
    fig.update_layout(**_BASE_LAYOUT, height=300, title=dict(text=title, font=dict(size=16)),
                      yaxis=dict(title="probability", rangemode="tozero"), showlegend=False)
    fig.update_xaxes(tickfont=dict(family="monospace", size=14))
    return fig


# ---- HTML blocks ----------------------------------------------------------------------------------------------


def step_headline(step: Step) -> str:
    """One sentence that says what the step did, e.g. 'Drafted 4, accepted 2, then 1 recovered token: 3 new.'"""
    n_new = len(step.emitted)
    if not step.decisions:
        return f"No drafts this step: the target produced {n_new} token{'s' * (n_new != 1)} on its own."
    extra = {"recovered": "then 1 recovered token ↻",
             "bonus": "then 1 bonus token ★"}.get(step.correction_kind or "", "")
    tail = f", {extra}" if extra else ""
    return (f"Drafted {step.n_drafted}, accepted {step.n_accepted}{tail}: {n_new} new token{'s' * (n_new != 1)} "
            f"for one target forward.")


def kv_cache_html(step: Step) -> str:
    """The target's and the draft's KV caches before and after the step, with the rolled-back slots drawn.

    The target scores the last token plus K drafts in one forward, so its cache peaks at before + 1 + K and is
    then cut back to the accepted prefix: K − accepted slots are rolled back.
    """
    rows = []
    k = step.n_drafted
    peak = step.target_cache_before + (1 + k if step.decisions else 1)
    rows.append(_cache_row("Target", step.target_cache_before, peak, step.target_cache_after))
    if step.draft_cache_before is not None and step.draft_cache_after is not None:
        rows.append(_cache_row("Draft", step.draft_cache_before, None, step.draft_cache_after))
    rolled = peak - step.target_cache_after
    note = (f"The target wrote {peak - step.target_cache_before} new entries (the last token and {k} drafts) and "
            f"rolled back {rolled} for the rejected drafts." if step.decisions else
            "The target wrote one new entry.")
    return f'<div style="font-size:0.95rem">{"".join(rows)}<div style="color:#444;margin-top:4px">{note}</div></div>'


def _cache_row(name: str, before: int, peak: int | None, after: int) -> str:
    cells = [_cell("#D9D9D9", "#9A9A9A", f"{before} cached before the step")] if before else []
    kept = after - before
    cells += [_cell(style("accepted").background, style("accepted").color, "written and kept")] * max(kept, 0)
    if peak is not None and peak > after:
        cells += [_cell(style("rejected").background, style("rejected").color, "written, then rolled back", strike=True)
                  ] * (peak - after)
    if kept < 0:
        cells += [_cell(style("rejected").background, style("rejected").color, "rolled back", strike=True)] * -kept
    summary = f"{before} → {after}" + (f" (peak {peak})" if peak is not None and peak > after else "")
    return (f'<div style="margin:3px 0"><span style="display:inline-block;width:60px;font-weight:600">{name}</span>'
            f'<span style="display:inline-block;width:190px;font-family:monospace">{summary}</span>'
            f'{"".join(cells)}</div>')


def _cell(fill: str, border: str, tip: str, strike: bool = False) -> str:
    mark = "✗" if strike else "&nbsp;"
    return (f'<span title="{tip}" style="display:inline-block;width:18px;height:18px;margin-right:2px;'
            f'vertical-align:middle;background:{fill};border:1.5px solid {border};border-radius:3px;font-size:11px;'
            f'text-align:center;line-height:16px;color:{border}">{mark}</span>')


# ---- streamlit rendering --------------------------------------------------------------------------------------


def render_step(step: Step, *, key: str) -> None:
    """The full panel for one revealed step: headline, drafted and emitted chips, the verdict overview next to the
    correction, one draft in detail (chosen with a segmented control) next to its coin flip, and the KV caches.
    `key` prefixes every widget key."""
    st.markdown(f"##### Step {step.index + 1} · {step_headline(step)}")
    left, right = st.columns(2)
    with left:
        st.caption("Drafted (hover a chip for p, q, p/q, min(1, p/q) and u)")
        st.html(f"<div>{decision_chips(step)}</div>")
    with right:
        st.caption("Added to the output")
        st.html(f"<div>{emitted_chips(step)}</div>")
    left, right = st.columns(2)
    if step.decisions:
        left.plotly_chart(verdict_overview_figure(step), key=f"{key}_overview_{step.index}", width="stretch")
    fig = correction_figure(step)
    if fig is not None:
        (right if step.decisions else left).plotly_chart(fig, key=f"{key}_correction_{step.index}", width="stretch")
    if step.decisions:
        deciding = step.n_accepted if step.n_accepted < step.n_drafted else step.n_drafted - 1
        chosen = st.segmented_control(
            "Look closely at draft", list(range(step.n_drafted)), default=deciding, required=True,
            key=f"{key}_position_{step.index}",
            format_func=lambda i: f"#{i + 1} {style(decision_kind(step.decisions[i])).glyph} "
                                  f"{escape_label(step.decisions[i].text)}",
        )
        d = step.decisions[chosen if chosen is not None else deciding]
        left, right = st.columns(2)
        left.plotly_chart(distribution_figure(d), key=f"{key}_dist_{step.index}", width="stretch")
        with right:
            st.plotly_chart(accept_strip_figure(d), key=f"{key}_strip_{step.index}", width="stretch")
            st.markdown(_position_sentence(d))
            _kv_box(step)
    else:
        with right:
            _kv_box(step)


def _kv_box(step: Step) -> None:
    with st.container(border=True):
        st.caption("KV caches: one slot per token position the model has seen")
        st.html(kv_cache_html(step))


def _position_sentence(d: Decision) -> str:
    """What happened at one drafted position, in words (numbers only: safe as markdown)."""
    if not d.reached:
        return ("**Not reached.** An earlier draft was rejected, and every draft after a rejection is thrown away "
                "untested: no u was drawn for this one.")
    p, q = fmt(d.target_prob), fmt(d.draft_prob)
    if d.draft_prob > 0 and d.target_prob >= d.draft_prob:
        why = f"p = {p} ≥ q = {q}: the target likes this token at least as much as the draft, so it is always kept"
    elif d.target_prob == 0:
        why = "p = 0: the target would never write this token, so it can never be kept"
    else:
        why = (f"p = {p} < q = {q}: the draft was over-confident, so the token survives with probability "
               f"p/q = {fmt(d.ratio)}")
    outcome = (f"u = {fmt(d.uniform)} fell inside, so it was **accepted ✓**." if d.accepted else
               f"u = {fmt(d.uniform)} fell outside, so it was **rejected ✗** and a replacement was drawn from "
               "norm(max(0, p − q)).")
    return f"{why}. {outcome}"


def render_verifier_source() -> None:
    """An expander with the exact verification rule the loop ran (specviz.verifier.verify)."""
    with st.expander("The rule in code: specviz.verifier.verify"):
        st.code(inspect.getsource(verifier.verify), language="python")
        st.caption("The same function runs in every step above; `accept_probability` is min(1, p/q) and "
                   "`residual_distribution` is norm(max(0, p − q)).")


def trace_headline(trace: Trace) -> dict[str, str]:
    """The headline numbers of a trace, formatted for people."""
    return {
        "Tokens": str(trace.num_tokens),
        "Target forwards": str(trace.num_steps),
        "Tokens per forward": fmt(trace.mean_accepted_length, 2),
        "Drafts accepted": f"{trace.num_accepted} of {trace.num_drafted}" if trace.num_drafted else "–",
    }


def settings_line(trace: Trace) -> str:
    """The settings that made the trace, in one line of plain text (escape it before rendering as HTML)."""
    s, m = trace.settings, trace.meta
    pair = {"default": "SmolLM2-135M-Instruct", "toy": "toy pair"}.get(str(m.get("pair", "")), m.get("pair", "?"))
    parts = [f"models: {pair}", f"proposer: {s.get('proposer', m.get('proposer', '?'))}"]
    if s.get("k") is not None:
        parts.append(f"K = {s['k']}")
    parts += [f"temperature = {s.get('temperature', '?')}", f"top-k = {s.get('top_k', 0) or 'off'}",
              f"top-p = {s.get('top_p', 1.0)}", f"seed = {s.get('seed', '?')}",
              f"max new tokens = {s.get('max_new_tokens', '?')}"]
    return " · ".join(str(p) for p in parts)


def trace_summary(trace: Trace) -> None:
    """Headline metrics, the settings line and the prompt (escaped) above the player."""
    for col, (label, value) in zip(st.columns(4), trace_headline(trace).items()):
        col.metric(label, value)
    st.caption(escape_text(settings_line(trace), whitespace=False))
    with st.expander("Prompt (as the model saw it)"):
        st.html(text_html(trace.prompt_text or str(trace.meta.get("prompt", ""))))
