"""One step's decisions as Plotly figures: p and q at a drafted position, the coin flip u against min(1, p/q), all
drafts at a glance, and the distribution the step's last token was sampled from. Plain Python (no streamlit), so
the figures are tested without a browser; `specviz.ui.common.step_view` places them on the page.

Public API: `distribution_figure`, `accept_strip_figure`, `verdict_overview_figure`, `correction_figure`, and
the tables of their numbers (`distribution_table`, `accept_strip_table`, `verdict_overview_table`,
`correction_table`), which carry the charts' marks in words too.
"""

from __future__ import annotations

import textwrap

import pandas as pd
import plotly.graph_objects as go

from specviz.core.i18n import _
from specviz.engine.limits import TOP_N
from specviz.engine.shown import POINT_MASS_Q, column_numbers
from specviz.engine.trace import (Decision, Step, TokenKind, TokenProb, TreeNode, point_mass_pq,
                                  recorded_point_mass, rule_point_mass, tested_on_own_probs, uses_residuals)
from specviz.ui.common.escaping import plot_text, table_text
from specviz.ui.common.palette import (ACCEPT_FILL, P_COLOR, Q_COLOR, REJECT_FILL, RESIDUAL_COLOR, U_COLOR, DisplayState,
                                style)
from specviz.ui.common.tokens import (decision_kind, decision_numbers, draft_gave_text, draft_numbers, fmt,
                                      main_line_view, point_mass_text, shown_numbers)

FONT = dict(size=15)
_BASE_LAYOUT = dict(template="plotly_white", font=FONT, margin=dict(l=10, r=10, t=44, b=10))
TITLE_CHARS = 38  # a title line fits a 390 px phone at 16 px; longer titles wrap (Plotly does not)


def _wrapped(title: str) -> tuple[str, int]:
    """A chart title broken into lines a phone shows whole, and the extra top margin its extra lines need."""
    head, colon, tail = title.partition(": ")
    if len(title) > TITLE_CHARS and colon and max(len(head), len(tail)) <= TITLE_CHARS:
        lines = [head + ":", tail]  # break after the colon: a formula after it stays whole
    else:
        lines = textwrap.wrap(title, TITLE_CHARS) or [title]
    return "<br>".join(lines), 20 * (len(lines) - 1)

def distribution_table(d: Decision, n: int = 10, node: TreeNode | None = None) -> pd.DataFrame:
    """The numbers of `distribution_figure`, as its hover gives them: a token outside a model's full top 10 reads
    "below the target's top 10" (or the draft's), not the 0 its bar is drawn at: the trace does not store it. Outside
    a shorter list it reads 0, which it is (`_outside`). The drafted token's row carries the chart's mark and its
    verdict in words ("✗ drafted (rejected)"): the table did not say which token was drafted (issue 43). Its q
    column is the q the rule used, named as the chart's legend names it (`_q_name`). A token a tree's lookup branch
    copied reads "✓ copied (accepted)": it read "drafted" (read 49)."""
    # the whole token (read 55: the table, the chart's text alternative, cut it to the 14 characters of a tick label,
    # "␣representati…")
    ids, labels, _pv, _qv, p_hover, q_hover = _distribution(d, n, node, limit=None)
    s = style(decision_kind(d))
    mark = (_("{glyph} copied ({verdict})", glyph=s.glyph, verdict=_(s.label)) if _copied(node) else
            _("{glyph} drafted ({verdict})", glyph=s.glyph, verdict=_(s.label)))
    marks = [mark if i == d.token_id else "" for i in ids]
    return pd.DataFrame({_("token"): table_text(labels), _("p (target)"): p_hover, _q_name(node): q_hover,
                         _("mark"): marks})


def _copied(node: TreeNode | None) -> bool:
    """Whether a main-line token is a copy of a tree's lookup branch (no model drafted it; glossary: "copiado", never
    a drafted token), which the charts name a copied token."""
    return node is not None and node.copied


def _q_name(node: TreeNode | None) -> str:
    """The q bars' name: the draft's q, or for a node the rule tests against a point mass, that point mass."""
    return _("q as the rule used it (a point mass)") if rule_point_mass(node) else _("q (draft)")


def _distribution(d: Decision, n: int, node: TreeNode | None = None, limit: int | None = 14
                  ) -> tuple[list[int], list[str], list[float], list[float], list[str], list[str]]:
    """The tokens of `distribution_figure` (ids and unique labels, cut to `limit` characters: None for a table), their
    bars' p and q, and their hover texts.
    Read 48: for a node the rule tests against a point mass q′ = δ_x (`rule_point_mass`) the bars drew the draft's
    whole q, which the rule never used, beside a verdict min(1, p′/q′) with q′(x) = 1; its q is now that point mass
    (1 on the drafted token, 0 elsewhere), and the drafted token's hover says what the draft gave it."""
    p = {t.token_id: t for t in d.target_top}
    point_mass = rule_point_mass(node)
    q = {d.token_id: TokenProb(d.token_id, d.text, 1.0)} if point_mass else {t.token_id: t for t in d.draft_top}
    p.setdefault(d.token_id, TokenProb(d.token_id, d.text, d.target_prob))
    q.setdefault(d.token_id, TokenProb(d.token_id, d.text, d.draft_prob))
    ids = sorted(set(p) | set(q), key=lambda i: -max(p[i].prob if i in p else 0, q[i].prob if i in q else 0))[:n]
    if d.token_id not in ids:
        ids[-1] = d.token_id
    texts = {i: (p.get(i) or q.get(i)).text for i in ids}
    labels, seen = [], set()
    for i in ids:  # two tokens can look the same once whitespace is drawn: keep labels unique
        label = plot_text(texts[i], limit)
        label = label if label not in seen else f"{label} ({i})"
        seen.add(label)
        labels.append(label)
    pv = [p[i].prob if i in p else 0.0 for i in ids]
    qv = [q[i].prob if i in q else 0.0 for i in ids]
    below_p = _outside(d.target_top, _("below the target's top 10"))
    # a point mass q′ is exactly 0 off the drafted token, whatever the draft's own top 10 left out (Read 48 review:
    # beside a full draft list those zero bars read "below the draft's top 10")
    below_q = fmt(0.0) if point_mass else _outside(d.draft_top, _("below the draft's top 10"))
    # two significant figures at least, one number of decimals per column, as the correction table (read 52:
    # smollm-draft-t07 step 1 wrote p = 0.001 and q = 0.003, 0.007, 0.009: one figure each)
    p_known, q_known = column_numbers([p[i].prob for i in ids if i in p]), column_numbers([q[i].prob for i in ids
                                                                                          if i in q])
    p_hover = [p_known.pop(0) if i in p else below_p for i in ids]
    q_hover = [q_known.pop(0) if i in q else below_q for i in ids]
    if d.token_id in p and d.token_id in q and 0 < p[d.token_id].prob != q[d.token_id].prob > 0:  # an exact 0 stays 0
        # the drafted token's p and q, compared by the sentence beside the chart, are written apart: p = 0.9997
        # against q = 1 read "1.000" and "1.000" (read 46)
        row = ids.index(d.token_id)
        # with the decimals the step's sentence and hovers give them, the chance and u included (`decision_numbers`;
        # read 47 review: p = 0.4, q = 0.8 beside u = 0.50001 read "0.400" here and "0.40000" in the sentence)
        shown = shown_numbers(p[d.token_id].prob, q[d.token_id].prob, d.accept_prob, d.uniform if d.reached else None)
        p_hover[row], q_hover[row] = shown.p, shown.q
    # read 53: a greedy p or q and a lookup's q, point masses, read "1.000" here where the tree's table wrote
    # "1 (point mass)" (a point-mass q′ of the rule's is written below)
    for top, hover in ((d.target_top, p_hover), ([] if point_mass else d.draft_top, q_hover)):
        if top and recorded_point_mass(top[0].prob, top, top[0].token_id) and top[0].token_id in ids:
            hover[ids.index(top[0].token_id)] = point_mass_text()
    if uses_residuals(node):
        # read 50: a child tried after a rejected sibling hovered p = 0.208, q = 0.144 (p/q above 1) beside the strip's
        # min(1, p′/q′) = 0.945: the rule compared p′ = 0.194 and q′ = 0.205, which the drafted token's row now adds
        # (the bars stay p and q, as the title says; a point mass's q′ is its q, 1)
        row = ids.index(d.token_id)
        used = decision_numbers(d, node)  # as the strip, the overview and the sentence write p′ and q′
        p_hover[row] = _("{p} (p′ = {used} after the siblings tried before it)", p=p_hover[row], used=used.p)
        if not point_mass:
            q_hover[row] = _("{q} (q′ = {used} after the siblings tried before it)", q=q_hover[row], used=used.q)
    if point_mass:
        row = ids.index(d.token_id)
        q_hover[row] = POINT_MASS_Q  # exactly 1, as the chips and the tree's table write it (read 52)
        # read 49: a copy's recorded q(x) = 1 is graft_copy's point mass, not anything a drafter gave it
        q_hover[row] = (_("{one} (point mass; copied from the context: no model drafted it)", one=q_hover[row])
                        if node.copied else
                        _("{one} (point mass; the draft gave it q(x) = {q})", one=q_hover[row],
                          q=draft_gave_text(d.draft_prob, recorded_point_mass(d.draft_prob, d.draft_top, d.token_id))))
    return ids, labels, pv, qv, p_hover, q_hover


def _outside(top: list[TokenProb], below: str) -> str:
    """What a token outside a recorded top list reads: exactly 0 where the list holds fewer than TOP_N tokens, else
    `below`. A trace's top list leaves out only tokens of probability 0 (`generation.top_tokens`), so a shorter one
    holds every token the model gave any probability: a one-hot q or p at T = 0 (a greedy draft model, EAGLE or
    Medusa head), a point mass (n-gram lookup at any temperature), a top-k under 10. A Medusa greedy step's target
    token read "below the draft's top 10" where q is 0 (issue 43). An empty list was not recorded: nothing is known.
    """
    return fmt(0.0) if 0 < len(top) < TOP_N else below


def distribution_figure(d: Decision, n: int = 10, number: int | None = None, node: TreeNode | None = None
                        ) -> go.Figure:
    """Top-n bars of p (target, blue) and q (draft, orange) side by side at one drafted position.

    The bars cover the union of both top-10 lists, ranked by max(p, q); a probability outside a model's top 10 is
    not stored in the trace and is drawn as 0 with "below the top 10" on hover (and in `distribution_table`), or
    with 0 where the list is shorter, since it then holds every token of probability above 0 (`_outside`). The
    drafted token is marked. `number`: the draft's number as shown (`draft_numbers`; its place in the chain when
    None). `node`: the draft's tree node, if any; where the rule tests it against a point mass, q is drawn as that
    point mass and named so (`_distribution`), not as the draft's distribution.
    """
    ids, labels, pv, qv, p_hover, q_hover = _distribution(d, n, node)
    # horizontal bars: the token labels sit on the y axis, one per line, so they never overlap or need rotating
    fig = go.Figure()
    fig.add_bar(y=labels, x=pv, orientation="h", name=_("p (target)"), marker_color=P_COLOR, customdata=p_hover,
                hovertemplate="%{y}<br>p = %{customdata}<extra></extra>")
    fig.add_bar(y=labels, x=qv, orientation="h", name=_q_name(node), marker_color=Q_COLOR, customdata=q_hover,
                hovertemplate="%{y}<br>q = %{customdata}<extra></extra>")
    s = style(decision_kind(d))
    mark = labels[ids.index(d.token_id)]
    top = max(pv + qv + [1e-9])
    end = max(pv[ids.index(d.token_id)], qv[ids.index(d.token_id)])  # the drafted token's longer bar, as drawn
    right = end > top * 0.5  # a long bar: the label goes to its left, inside the plot (a phone clipped it)
    label = _("{mark} copied", mark=s.glyph) if _copied(node) else _("{glyph} drafted", glyph=s.glyph)
    fig.add_annotation(x=end, y=mark, text=label, showarrow=True, arrowhead=2,
                       ax=-44 if right else 44, ay=-18 if right else 0, xanchor="right" if right else "left",
                       font=dict(color=s.text_color, size=15), bgcolor="white", bordercolor=s.color)
    # the label of a long bar in the top row, raised 18 px, covered the legend above the plot ("p (target)" at
    # 390 px, "q (draft)" at 1400 px): there the axis keeps half a row free above the first token for it
    headroom = right and ids.index(d.token_id) == 0
    fig.update_layout(**{**_BASE_LAYOUT, "margin": dict(l=10, r=10, t=90, b=10)}, barmode="group",
                      # a wide gap between tokens: at 0.25 one token's lower bar sat as close to the next token's
                      # upper bar as to its own pair, and read as one pair
                      height=128 + 36 * len(ids) + (18 if headroom else 0), bargap=0.45,
                      xaxis=dict(title=_("probability"), range=[0, top * 1.45]),
                      yaxis=dict(range=[len(ids) - 0.5, -1.0], tickfont=dict(family="monospace", size=14))
                      if headroom else dict(autorange="reversed", tickfont=dict(family="monospace", size=14)),
                      title=dict(text=_("Copied token #{n}: p and q, top tokens", n=number or d.position + 1)
                                 if _copied(node) else _("Draft #{n}: p and q, top tokens", n=number or d.position + 1),
                                 font=dict(size=16)),
                      legend=dict(orientation="h", x=0, y=1.0, xanchor="left", yanchor="bottom"))
    return fig


def _chance_name(tree: bool, node: TreeNode | None) -> str:
    """The name of a drafted token's chance to be kept: min(1, p/q) in a chain and for a tree child the trace records
    was tested on its own p and q (a first child, `tested_on_own_probs`), as its hover (`tree_chance_line`) and the
    CLI name it; else, in a tree, min(1, p′/q′). Read 51: the strip labelled a first child "min(1, p′/q′)" beside a
    hover of "min(1, p/q)".

    >>> _chance_name(False, None), _chance_name(True, None)
    ('min(1, p/q)', 'min(1, p′/q′)')
    """
    return "min(1, p′/q′)" if tree and not tested_on_own_probs(node) else "min(1, p/q)"


def _overview_chance(step: Step, nodes: list[TreeNode | None]) -> str:
    """The name of the overview's chance column and y axis: what its rows show. A chain's rows and a tree's first
    children (tested on their own p and q) show min(1, p/q); a tree child tried after a rejected sibling shows
    min(1, p′/q′) (`_chance_name`, as each bar's hover names it). Read 52: the header and the axis said
    min(1, p′/q′) for every tree row, a first child's min(1, p/q) included; a main line holding both now names both.
    """
    tree = step.tree is not None and bool(step.tree.nodes)
    names = {_chance_name(tree, node) for d, node in zip(step.decisions, nodes) if d.reached}
    names = names or {_chance_name(tree, node) for node in nodes} or {_chance_name(tree, None)}
    return names.pop() if len(names) == 1 else _("min(1, p/q), or min(1, p′/q′) after a rejected sibling")


def accept_strip_table(d: Decision, tree: bool = False, node: TreeNode | None = None) -> pd.DataFrame:
    """The numbers of `accept_strip_figure`: the chance to keep the draft and u (read off the figure, the table held
    u as a category and the diamond's height, 0.5, as its value; a draft never reached had no table at all). `node`:
    the draft's tree node, whose q the rule may take as a point mass: its decimals are the chip's (Read 48)."""
    chance = _chance_name(tree, node)
    drawn = d.reached and d.uniform is not None
    shown = decision_numbers(d, node)  # as the step's sentence and hover write them (read 47)
    a, u = shown.chance, shown.u
    if not d.reached:  # read 52: a chance that decided nothing, beside the overview's "not reached"
        chance = _("not reached; if the drafts before it had been kept: {name}", name=chance)
    return pd.DataFrame({_("quantity"): [chance, "u"], _("value"): [a, u if drawn else _("not drawn")]})


def accept_strip_figure(d: Decision, tree: bool = False, node: TreeNode | None = None) -> go.Figure:
    """The coin flip on [0, 1]: accept if u falls left of min(1, p/q) (shaded green), reject otherwise. In a `tree`
    step's main line the chance is min(1, p′/q′), against the residual the siblings tried before left (the tree rule),
    and it is named so, but a first child, tested on its own p and q, keeps min(1, p/q) (`_chance_name`); `node` as
    in `accept_strip_table`."""
    a = d.accept_prob
    chance = _chance_name(tree, node)
    shown = decision_numbers(d, node)  # never "1.000" beside "1.000" for u < a; p/q's decimals (read 47)
    a_text, u_text = shown.chance, shown.u
    fig = go.Figure()
    fig.add_shape(type="rect", x0=0, x1=a, y0=0, y1=1, fillcolor=ACCEPT_FILL, line_width=0)
    fig.add_shape(type="rect", x0=a, x1=1, y0=0, y1=1, fillcolor=REJECT_FILL, line_width=0)
    fig.add_vline(x=a, line=dict(color=style(TokenKind.ACCEPTED).color, width=3))
    side = "left" if a < 0.2 else "right" if a > 0.8 else "center"  # keep the label inside the plot
    # read 52: a draft never reached was given "min(1, p/q) = 0.488" as if tested: its chance is what it would
    # have been kept with had the drafts before it been kept, and named so
    label = f"{chance} = {a_text}" if d.reached else _("if the drafts before it had been kept: {name} = {chance}",
                                                          name=chance, chance=a_text)
    fig.add_annotation(x=a, y=1, yanchor="bottom", xanchor=side, showarrow=False, text=label,
                       font=dict(color="#0B3D2E"))
    # the zone names along the strip's top edge, u's diamond and its label below them: on one line (y = 0.5) the
    # diamond at u = 0.70 covered "rejeitar" on a 390 px phone whenever u fell near the middle of its zone
    if a > 0.08:
        fig.add_annotation(x=a / 2, y=1, yanchor="top", yshift=-2, text=_("accept"), showarrow=False,
                           font=dict(color="#0B3D2E"))
    if a < 0.92:
        fig.add_annotation(x=(a + 1) / 2, y=1, yanchor="top", yshift=-2, text=_("reject"), showarrow=False,
                           font=dict(color="#7A2E00"))
    if d.reached and d.uniform is not None:
        s = style(d.kind)
        fig.add_scatter(x=[d.uniform], y=[0.5], mode="markers", marker=dict(symbol="diamond", size=18, color=U_COLOR,
                                                                           line=dict(color=s.color, width=2)),
                        hovertemplate=f"u = {u_text}<extra></extra>", showlegend=False,
                        cliponaxis=False)  # u near 0 or 1 (0.978): whole, not cut in half by the axis end
        # u's label under its diamond, clear of its points (Plotly's "bottom" text touched the diamond's tip), in
        # near-black: the theme's grey read 3.2:1 on the reject zone's fill (WCAG AA asks 4.5:1)
        fig.add_annotation(x=d.uniform, y=0.5, yanchor="top", yshift=-13, showarrow=False, text=f"u = {u_text}",
                           xanchor="left" if d.uniform < 0.1 else "right" if d.uniform > 0.9 else "center",
                           font=dict(color="#222222"))
        verdict = ((_("u < min(1, p′/q′): accepted ✓") if d.accepted else _("u ≥ min(1, p′/q′): rejected ✗"))
                   if chance != "min(1, p/q)" else
                   (_("u < min(1, p/q): accepted ✓") if d.accepted else _("u ≥ min(1, p/q): rejected ✗")))
    else:
        verdict = _("not reached: an earlier draft was rejected, so no u was drawn")
    fig.update_layout(**{**_BASE_LAYOUT, "margin": dict(l=10, r=10, t=58, b=28)}, height=176, showlegend=False,
                      title=dict(text=verdict, font=dict(size=15)),
                      xaxis=dict(range=[0, 1], dtick=0.1, showgrid=False),
                      yaxis=dict(range=[0, 1], visible=False))
    return fig


def _rule_q(d: Decision, node: TreeNode | None) -> tuple[str, str, str, str, str, str, str, str]:
    """p, q, p/q, the chance and u as the rule used them, then the names of the first three: a tree node tested
    against a point mass (copied from the context, or a child not drawn from q) has q = 1 and p/q = p, not the
    draft's q(x) (read 44: "q = 0.000, p/q = ∞"); a child tried after a rejected sibling has p′, q′ and p′/q′, the
    residuals the siblings tried before it left (`rule_probs`; read 50: "p/q = 1.175" beside a bar of 0.317); all
    five with one number of decimals (`decision_numbers`, read 47), p and q more where p/q needs (read 52)."""
    shown = decision_numbers(d, node)
    # read 53: a lookup chain step's q and a greedy p, point masses, read "1.000" where the tree's table wrote
    # "1 (point mass)"; now any p or q that is one reads so (`point_mass_pq`)
    p_point_mass, q_point_mass = point_mass_pq(d, node)
    names = ("p′", "q′", "p′/q′") if uses_residuals(node) else ("p", "q", "p/q")
    return (point_mass_text() if p_point_mass else shown.p, point_mass_text() if q_point_mass else shown.q,
            shown.ratio, shown.chance, shown.u if d.uniform is not None else fmt(None), *names)


def verdict_overview_table(step: Step) -> pd.DataFrame:
    """The numbers of `verdict_overview_figure`: each draft's p, q and p/q as its hover gives them (the rule's), its
    chance to be kept and u; a draft after the first rejection (drawn with no bar, its table row read 0) says it was
    not reached. The glyph the chart draws above each bar is its verdict column, in words ("✓ accepted"): a table
    reader had to compare u with the chance (issue 43)."""
    styles = [style(decision_kind(d)) for d in step.decisions]
    # never 1.000 and 1.000; p/q's decimals, with the q the rule used, as the chart's hover (`_rule_q`; Read 48)
    nodes = main_line_view(step)[1]
    chance = _overview_chance(step, nodes)
    shown = [(n.chance, n.u) for n in map(decision_numbers, step.decisions, nodes)]
    # read 49: a main line that runs into the lookup branch's copies headed them "drafted token"
    head = _("drafted or copied token") if any(map(_copied, nodes)) else _("drafted token")
    # read 50: the bars' hover gives p, q and p/q (p′, q′, p′/q′ after a rejected sibling), which the table left out;
    # a residual's cell names its primed quantity, as the tree's table does ("p′ = 0.069")
    rule = [_rule_q(d, node) for d, node in zip(step.decisions, nodes)]
    columns = {name: [r[i] if r[5] == "p" else f"{r[5 + i]} = {r[i]}" for r in rule]
               for i, name in enumerate(("p", "q", "p/q"))}
    return pd.DataFrame({head: table_text([f"#{n} {plot_text(d.text, None)}"  # the whole token (read 55)
                                                         for d, n in zip(step.decisions, draft_numbers(step))]),
                         **columns,
                         chance: [a if d.reached else _("not reached") for d, (a, _u) in zip(step.decisions, shown)],
                         "u": [u if d.reached else "–" for d, (_a, u) in zip(step.decisions, shown)],
                         _("verdict"): [f"{s.glyph} {_(s.label)}" for s in styles]})


def _overview_hover(d: Decision, node: TreeNode | None, chance: str) -> list[str]:
    """One bar's hover data: p, q and p/q as the rule used them (`_rule_q`), then its chance line and its u line. A
    draft after the first rejection was never tested: its lines say so and give no chance to keep it (read 51: its
    hover read "min(1, p/q) = 0.750" and "u = –", a chance that decided nothing)."""
    rule = list(_rule_q(d, node))
    if d.reached:
        rule[3:5] = [f"{chance} = {rule[3]}", f"u = {rule[4]}"]
    else:
        rule[3:5] = [_("not reached (after the first rejection)"), _("never tested, so no u was drawn")]
    return rule


def verdict_overview_figure(step: Step) -> go.Figure:
    """All drafts of a step at a glance: bar = min(1, p/q) (the chance to accept), diamond = u. The hover's q is the
    one the rule used: 1 for a tree node it tests against a point mass; a child tried after a rejected sibling's
    hover gives p′, q′ and p′/q′ (`_rule_q`).

    A draft is accepted when its diamond sits inside its bar; positions after the first rejection were never
    checked, so they get no bar, only their · glyph (and the words "not reached" under it in a step of up to 8
    drafts; past 8 the words would not fit), and a hover that gives them no chance (`_overview_hover`). A tree
    step's bars are its main line's chances: min(1, p/q) for a first child, min(1, p′/q′) after a rejected sibling
    (`_overview_chance` names the axis after them).
    """
    numbers, nodes = main_line_view(step)  # one walk of the tree for the labels and the hover's q (Read 45)
    chance = _overview_chance(step, nodes)
    labels = [f"#{n} {plot_text(d.text)}" for d, n in zip(step.decisions, numbers)]
    kinds = [decision_kind(d) for d in step.decisions]
    fig = go.Figure()
    # a draft after the first rejection was never checked: no bar (its min(1, p/q) decided nothing), numbers on hover
    fig.add_bar(x=labels, y=[d.accept_prob if d.reached else 0.0 for d in step.decisions],
                marker=dict(color=[style(k).background for k in kinds], line=dict(color=[style(k).color for k in kinds],
                                                                                   width=2)),
                customdata=[_overview_hover(d, node, _chance_name(step.tree is not None, node))
                            for d, node in zip(step.decisions, nodes)],
                hovertemplate="%{x}<br>%{customdata[5]} = %{customdata[0]}, %{customdata[6]} = %{customdata[1]}"
                              "<br>%{customdata[7]} = %{customdata[2]}<br>%{customdata[3]}"
                              "<br>%{customdata[4]}<extra></extra>",
                name=chance)
    # the verdict glyph above each bar (above u's diamond, never under it), and "not reached" where there is no bar,
    # all in one layout call: adding them one by one copies the layout each time, quadratic in the number of drafts
    notes = [dict(x=lab, y=1.12, text=style(k).glyph, showarrow=False, font=dict(size=20, color=style(k).color))
             for lab, k in zip(labels, kinds)]
    if len(step.decisions) <= 8:
        notes += [dict(x=lab, y=0.02, yanchor="bottom", text=_("not<br>reached"), showarrow=False,
                       font=dict(size=10, color=style(DisplayState.NOT_REACHED).text_color))  # fits 4 on a phone
                  for lab, d in zip(labels, step.decisions) if not d.reached]
    fig.update_layout(annotations=notes)
    reached = [(lab, d.uniform, _rule_q(d, node)[4])
               for lab, d, node in zip(labels, step.decisions, nodes) if d.reached and d.uniform is not None]
    if reached:
        fig.add_scatter(x=[r[0] for r in reached], y=[r[1] for r in reached], mode="markers", name="u",
                        marker=dict(symbol="diamond", size=15, color=U_COLOR), customdata=[r[2] for r in reached],
                        hovertemplate="u = %{customdata}<extra></extra>")  # as the bar's hover and the table write it
    # a tree step's bars are its main line only, not every node it drafted (read 43: 3 bars under "Every draft" for
    # a tree of 8)
    title, extra = _wrapped(_("The main line: each node kept if u (◆) lands inside its bar")
                            if step.tree is not None and step.tree.nodes else
                            _("Every draft: kept if u (◆) lands inside its bar"))
    # both names (read 52) take two lines of a smaller font, and the plot the height they need
    axis = textwrap.wrap(chance, 30)
    taller = 48 if len(axis) > 1 else 0
    fig.update_layout(**{**_BASE_LAYOUT, "margin": dict(l=10, r=10, t=44 + extra, b=10)},
                      height=260 + extra + taller,
                      yaxis=dict(range=[0, 1.22], tickvals=[0, 0.25, 0.5, 0.75, 1],
                                 title=dict(text="<br>".join(axis), font=dict(size=13 if taller else 15))),
                      title=dict(text=title, font=dict(size=16)),
                      showlegend=False, bargap=0.35)
    fig.update_xaxes(tickfont=dict(family="monospace", size=14))
    return fig


def correction_figure(step: Step) -> go.Figure | None:
    """Where the step's last token came from: the residual norm(max(0, p − q)) after a rejection, or p after all
    drafts were accepted (bonus), or p for a plain target step; the emitted token is marked (named in a corner when
    it is not among the bars: the trace keeps the top 10 only). None if unknown, or if
    the text ended inside the step so that no recovered or bonus token was added (the headline says so). A tree
    step's recovered token comes from the residual p′ left once every child of the last kept node was rejected, and
    its bonus follows a kept leaf (`specviz.engine.tree_verifier`)."""
    drawn = _correction(step)
    if drawn is None:
        return None
    kind, labels, picked = drawn
    color = RESIDUAL_COLOR if kind == TokenKind.RECOVERED else P_COLOR
    fig = go.Figure()
    fig.add_bar(x=labels, y=[t.prob for t in step.correction_top],
                marker=dict(color=color, opacity=[1.0 if pk else 0.55 for pk in picked],
                            line=dict(color=["#000" if pk else color for pk in picked],
                                      width=[3 if pk else 0 for pk in picked])),
                # the hover writes each probability as the table does (`fmt`): its own 3 figures read 0.0723 where
                # the table read 0.072, and 1 for 0.9996 (read 50); an exact 0 is "0", 2.9e-05 stays 2.9e-05
                customdata=correction_numbers(step),  # as its table (read 52)
                hovertemplate=_("%{x}<br>probability %{customdata}<extra></extra>"))
    s = style(kind)
    if any(picked):
        fig.add_annotation(x=labels[picked.index(True)], y=step.correction_top[picked.index(True)].prob,
                           text=_("{glyph} sampled", glyph=s.glyph), showarrow=True, arrowhead=2, ay=-32,
                           font=dict(color=s.text_color, size=15), bgcolor="white", bordercolor=s.color)
    else:  # read 46: a toy step's recovered token lay outside the bars drawn, and the chart marked none of them
        fig.add_annotation(xref="paper", yref="paper", x=1, y=1, xanchor="right", yanchor="top", showarrow=False,
                           text=_("{glyph} sampled: {token}, not among these {n}", glyph=s.glyph,
                                  token=plot_text(step.emitted[-1].text), n=len(labels)),
                           font=dict(color=s.text_color, size=15), bgcolor="white", bordercolor=s.color)
    tree = step.tree is not None and bool(step.tree.nodes)
    title = {TokenKind.RECOVERED: _("Recovered ↻: drawn from the residual p′ left after every child was rejected")
             if tree else _("Recovered ↻: drawn from norm(max(0, p − q))"),
             TokenKind.BONUS: _("Bonus ★: the kept path reached a leaf, one more from p")
             if tree else _("Bonus ★: all drafts kept, one more from p"),
             TokenKind.TARGET: _("Target •: no drafts, one token from p")}.get(kind, kind)
    title, extra = _wrapped(title)
    yaxis = dict(title=_("probability"), rangemode="tozero")
    if max(t.prob for t in step.correction_top) >= 0.25:
        # the axis makes room for the "sampled" label above the bar: on a phone, whose plot is 80 px tall under the
        # tokens' labels, that stretched it to 1.5 and the axis read "probability 1.5" (read 44); ticks stop at 1
        yaxis["tickvals"] = [0, 0.25, 0.5, 0.75, 1]
    fig.update_layout(**{**_BASE_LAYOUT, "margin": dict(l=10, r=10, t=44 + extra, b=10)}, height=300 + extra,
                      title=dict(text=title, font=dict(size=16)), yaxis=yaxis, showlegend=False)
    fig.update_xaxes(tickfont=dict(family="monospace", size=14), title=_("token"))  # the table's first column
    return fig


def correction_table(step: Step) -> pd.DataFrame | None:
    """The numbers of `correction_figure`, as `column_numbers` writes them and as its hover gives them (0.0015),
    with the chart's mark on the sampled token in words ("↻ sampled (recovered)"): read off the figure, the table did
    not say which token was sampled (issue 43). None where there is no chart. Its tokens are whole, not a tick's 14
    characters (read 55)."""
    drawn = _correction(step, limit=None)
    if drawn is None:
        return None
    kind, labels, picked = drawn
    s = style(kind)
    mark = _("{glyph} sampled ({kind})", glyph=s.glyph, kind=_(s.label))
    shown = correction_numbers(step)
    marks = [mark if pk else "" for pk in picked]
    if not any(picked):  # the sampled token outside the bars drawn: its own row says so (read 46)
        labels = [*labels, plot_text(step.emitted[-1].text, None)]
        shown.append(_("not among the top {n}", n=len(step.correction_top)))
        marks.append(mark)
    return pd.DataFrame({_("token"): table_text(labels), _("probability"): shown, _("mark"): marks})


def correction_numbers(step: Step) -> list[str]:
    """The probabilities `correction_figure` hovers and `correction_table` lists: two significant figures at least,
    one number of decimals (read 52: 0.00148, 0.00141, 0.00135 read "0.001"), and a point mass (a greedy step's p, or
    the residual of a greedy rejection) "1 (point mass)", as the chips' hovers write it (read 54: the bonus, recovered
    and target charts of a greedy step read "1.000" under a chip that says "p (target) = 1 (point mass)")."""
    top = step.correction_top
    if len(top) == 1 and recorded_point_mass(top[0].prob, top, top[0].token_id):
        return [point_mass_text()]
    return column_numbers([t.prob for t in top])


def _correction(step: Step, limit: int | None = 14) -> tuple[TokenKind, list[str], list[bool]] | None:
    """What `correction_figure` draws: the last token's kind, the unique labels of the tokens it was sampled from
    (cut to `limit` characters; None for a table), and which of them it was. None if unknown, or if the text ended
    before the recovered or bonus token."""
    if not step.correction_top or not step.emitted:
        return None
    kind = step.correction_kind or TokenKind.TARGET
    last = step.emitted[-1]
    if last.kind != kind:  # the text ended before the recovered or bonus token: the step added none, so no chart
        return None
    labels = [plot_text(t.text, limit) for t in step.correction_top]
    labels = [lab if labels.index(lab) == i else f"{lab} ({t.token_id})"
              for i, (lab, t) in enumerate(zip(labels, step.correction_top))]
    return kind, labels, [t.token_id == last.token_id for t in step.correction_top]
