"""A tree step drawn for a learner: the draft tree with its accepted path, and the tree attention mask that lets one
target forward score every branch. Plain Python (no streamlit), so the figures are tested without a browser;
`specviz.ui.common.tree_view` places them on the page.

The tree reads left to right like the text: the root (the context's last token) on the left, one column per token
ahead, each node's children the draft's guesses for the token after it. Nodes are chips in the palette's colours
(accepted ✓, rejected ✗, not reached ·); a node copied from the context by prompt lookup (a tree's lookup branch)
carries COPIED_MARK after its verdict. The accepted path is a thick line. Hover a node for q, p, p/q (q′, p′, p′/q′
for a child tried after a rejected sibling, `uses_residuals`), the acceptance chance the verifier used and u.

    >>> record = TreeRecord([TreeNode(7, "a", -1, 1, 0.5, 0.6, "accepted", 0.2, 1.0),
    ...                      TreeNode(8, "b", -1, 1, 0.3, 0.1, "not reached"),
    ...                      TreeNode(9, "c", 0, 2, 0.4, 0.2, "rejected", 0.9, 0.5)], path=[0])
    >>> tree_positions(record)
    [(0, 0.5), (1, 0.0), (1, 1.0), (2, 0.0)]
    >>> attention_rows(record)
    [[1, 0, 0, 0], [1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 0, 1]]

Public API: `node_kind`, `tree_positions`, `attention_rows`, `tree_figure`, `tree_title`, `mask_figure`, `tree_rows`,
`tree_list`, `mask_table`, `PATH_META`, `COPIED_MARK`, `STATUS_KINDS`.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from specviz.core.i18n import _, ngettext
from specviz.engine.kinds import NodeStatus
from specviz.engine.trace import (Step, TokenKind, TreeNode, TreeRecord, rule_point_mass, tested_on_own_probs,
                                  uses_residuals)
from specviz.engine.tree import ROOT, mask_rows
from specviz.ui.common.escaping import escape_markdown, plot_text, shortened, table_text, visible
from specviz.ui.common.palette import LIGHT_GREY, P_COLOR, DisplayState, Kind, style
from specviz.ui.common.tokens import Shown, draft_gave_text, fmt, point_mass_text, rule_probs, shown_numbers

COPIED_MARK = "❐"  # a node copied from the context, not drafted (DejaVu Sans Mono has it, so every chip shows it)
PATH_META = "accepted_path"  # the `meta` of the accepted path's trace: tests and readers find it by this, not by name
STATUS_KINDS: dict[str, Kind] = {NodeStatus.ACCEPTED: TokenKind.ACCEPTED, NodeStatus.REJECTED: TokenKind.REJECTED,
                                 NodeStatus.NOT_REACHED: DisplayState.NOT_REACHED}
_LAYOUT = dict(template="plotly_white", font=dict(size=14), showlegend=False)


def node_kind(node: TreeNode) -> Kind:
    """The palette kind of a node's verdict: accepted, rejected or not reached."""
    return STATUS_KINDS[node.status]


def tree_positions(record: TreeRecord) -> list[tuple[int, float]]:
    """(column, row) of the root, then of every node: the column is the depth, and leaves take rows 0, 1, 2, ...
    depth first (a node's whole branch before its next sibling; siblings in drafting order, the order the target
    tries them), each parent centred on its children (a tidy tree: no two branches cross). So a leaf drafted late
    under the first child sits above an earlier leaf under the second (the module's example: c above b)."""
    children: dict[int, list[int]] = {ROOT: []}
    for j, node in enumerate(record.nodes):
        children.setdefault(node.parent, []).append(j)
    rows: dict[int, float] = {}
    next_leaf = 0

    def place(node: int) -> float:
        nonlocal next_leaf
        kids = children.get(node, [])
        if kids:
            rows[node] = sum(place(kid) for kid in kids) / len(kids)
        else:
            rows[node] = float(next_leaf)
            next_leaf += 1
        return rows[node]

    place(ROOT)
    return [(0, rows[ROOT])] + [(node.depth, rows[j]) for j, node in enumerate(record.nodes)]


def attention_rows(record: TreeRecord) -> list[list[int]]:
    """The tree attention mask over the root and the nodes (N+1, N+1), 1 = may attend: the engine's own
    `specviz.engine.tree.tree_attention_mask` with no cached context (every row also sees the whole context)."""
    return mask_rows([n.parent for n in record.nodes])


def _shown(node: TreeNode) -> Shown:
    """A node's p, q (the rule's: p′, q′ after a rejected sibling), p/q, chance and u with one number of decimals
    (`shown_numbers`, read 47; p and q more where their quotient needs them, read 52); p/q is ∞ where q = 0 < p
    and "–" where both are 0 (`p_over_q`)."""
    return shown_numbers(*rule_probs(node.target_prob, node.draft_prob, node), node.accept_prob, node.uniform)


def _pq(node: TreeNode, greedy: bool = False) -> tuple[str, str]:
    """The p and q columns of a node (p′, q′ after a rejected sibling): each as `_shown` writes it, or "1 (point
    mass)", exactly 1 as the CLI writes it, where it is a point mass on the token: a q the rule tests against a
    point mass (read 52: "1.0000 (point mass)" among rows of "1.000 (point mass)", the decimals a copy's p = 0.9997
    needed to be told from 1 given to q too), and in a greedy run (`Trace.greedy`: every p and q a point mass on its
    model's top token) a p or q of 1 (read 53: a greedy tree's p read "1.000"; a node records no top list)."""
    shown = _shown(node)
    p_used, q_used = rule_probs(node.target_prob, node.draft_prob, node)
    p_mass, q_mass = greedy and p_used == 1.0, rule_point_mass(node) or (greedy and q_used == 1.0)
    return point_mass_text() if p_mass else shown.p, point_mass_text() if q_mass else shown.q


def _hover(j: int, node: TreeNode, greedy: bool = False) -> str:
    """Plain lines (escaped for Plotly) for hovering node j; `greedy`: the run's temperature was 0 (`_pq`)."""
    s = style(node_kind(node))
    lines = [_("#{n} {token} (id {id}) · depth {depth}", n=j + 1, token=plot_text(node.text), id=node.token_id,
               depth=node.depth)]
    if node.copied:
        lines.append(_("{mark} copied from the context (prompt lookup): q is a point mass", mark=COPIED_MARK))
    elif node.point_mass:  # read 44: a greedy tree's second child read "q (draft) = 0.000", "p/q = ∞"
        # read 54: a greedy draft's own q is a point mass too, "1 (point mass)", not "1.000" (`draft_gave_text`)
        lines.append(_("a top-k child, not drawn from q: the rule takes q as a point mass (the draft gave it "
                       "q(x) = {q})", q=draft_gave_text(node.draft_prob, greedy and node.draft_prob == 1.0)))
    # a point mass's q is the rule's, not the draft's: "q (draft) = 1.000 (point mass)" under "the draft gave it
    # q(x) = 0.000" named two values the draft's q (read 44 review)
    shown = _shown(node)  # written apart, as the chain's hover writes them: q = 1 against p = 0.9997 (read 46)
    p, q = _pq(node, greedy)
    if uses_residuals(node):  # read 49: "p/q = 1.318" beside "kept with 0.771"; the rule compared p′ with q′
        # read 51: not "(the residuals ...)": only p′ is a residual; q′ is q without the siblings, or a point mass
        q_line = _("q′ = {q} · p′ = {p} (after the siblings tried before it were rejected)", q=q, p=p)
    elif rule_point_mass(node):
        q_line = _("q = {q} · p (target) = {p}", q=q, p=p)
    else:
        q_line = _("q (draft) = {q} · p (target) = {p}", q=q, p=p)
    lines += [q_line, f"p′/q′ = {shown.ratio}" if uses_residuals(node) else f"p/q = {shown.ratio}"]
    if node.uniform is None:
        lines.append(_("not reached: never tested, no u drawn"))
    else:
        chance, u = shown.chance, shown.u  # never "u = 1.000 < 1.000"
        # read 50: "(after the siblings tried before it)" on a first child, which no sibling came before: said only
        # where the rule used residuals or the trace does not say (one written before p′, q′ were recorded)
        lines.append(_("kept with {chance}", chance=chance) if tested_on_own_probs(node) else
                     _("kept with {chance} (after the siblings tried before it)", chance=chance))
        sign = "<" if node.status == NodeStatus.ACCEPTED else "≥"
        lines.append(f"u = {u} {sign} {chance} → {s.glyph} {_(s.label)}")
    return "<br>".join(lines)


def _chip(x: float, y: float, text: str, kind: Kind, hover: str, *, on_path: bool = False, size: int = 14) -> dict:
    s = style(kind)
    return dict(x=x, y=y, text=text, showarrow=False, bgcolor=s.background, bordercolor=s.color,
                borderwidth=3 if on_path else 1.5, borderpad=3, hovertext=hover,
                font=dict(family="monospace", size=size, color=s.text_color))


def chip_fit(depth: int) -> tuple[int, int]:
    """(font size, characters of token text) for a tree `depth` columns deep: a deep tree (a long lookup branch)
    has narrow columns, so its chips get a smaller font and shorter text, and neighbours do not overlap.

    >>> chip_fit(4), chip_fit(8), chip_fit(16)
    ((14, 10), (12, 4), (12, 3))
    """
    return (14, 10) if depth <= 5 else (12, max(3, 10 - 2 * (depth - 5)))


def tree_figure(step: Step, greedy: bool = False) -> go.Figure:
    """The step's draft tree: nodes as chips in their verdict's colours, edges parent → child, the accepted path as
    a thick green line (its trace's `meta` is PATH_META and its customdata the path's node indices). `greedy`: the
    run's temperature was 0 (`Trace.greedy`), so a p or q of 1 is a point mass (`_pq`)."""
    record = step.tree
    where = tree_positions(record)
    fig = go.Figure()
    xs, ys = [], []
    for j, node in enumerate(record.nodes):
        (x0, y0), (x1, y1) = where[node.parent + 1], where[j + 1]
        xs += [x0, x1, None]
        ys += [y0, y1, None]
    fig.add_scatter(x=xs, y=ys, mode="lines", line=dict(color=LIGHT_GREY, width=1.5), hoverinfo="skip")
    path = [ROOT, *record.path]
    fig.add_scatter(x=[where[j + 1][0] for j in path], y=[where[j + 1][1] for j in path], mode="lines",
                    line=dict(color=style(TokenKind.ACCEPTED).color, width=6), meta=PATH_META,
                    customdata=path, hoverinfo="skip")
    depth = max(x for x, _y in where)
    size, limit = chip_fit(depth)
    chips = [_chip(*where[0], _("root"), TokenKind.TARGET, _("the context's last token: the first column follows it"),
                   size=size)]
    for j, node in enumerate(record.nodes):
        s = style(node_kind(node))
        mark = COPIED_MARK if node.copied else ""
        chips.append(_chip(*where[j + 1], f"{s.glyph}{mark} {plot_text(node.text, limit=limit)}", node_kind(node),
                           _hover(j, node, greedy), on_path=j in record.path, size=size))
    leaves = max(y for _x, y in where) + 1
    fig.update_layout(**_LAYOUT, annotations=chips, height=int(min(620, 110 + 46 * leaves)),
                      margin=dict(l=10, r=10, t=10, b=30),
                      hoverlabel=dict(font=dict(family="monospace")),
                      xaxis=dict(range=[-0.5, depth + 0.5], tickvals=list(range(depth + 1)),
                                 ticktext=[""] + [f"+{d}" for d in range(1, depth + 1)],
                                 title=_("tokens ahead of the context"), showgrid=False, zeroline=False),
                      yaxis=dict(range=[leaves - 0.4, -0.6], visible=False))
    return fig


def tree_title(step: Step, plain: bool = False) -> str:
    """'8 drafted nodes · accepted path: ‘a’ → ‘b’, then ↻ ‘c’' as markdown (token texts escaped), shown above the
    chart where it wraps on a phone rather than as a Plotly title that is cut off; `plain`: the same words as plain
    text, for the chart's accessible name (issue 42 item 5: aria-labels held markdown's backslashes)."""
    token = (lambda text: shortened(text, limit=8)) if plain else _token
    record = step.tree
    copied = sum(n.copied for n in record.nodes)
    nodes = ngettext("{n} drafted node", "{n} drafted nodes", len(record.nodes) - copied)
    if copied:
        nodes = _("{drafted} + {copied}", drafted=nodes,
                  copied=ngettext("{n} copied from the context", "{n} copied from the context", copied))
    path = " → ".join(f"‘{token(record.nodes[j].text)}’" for j in record.path) or (
        _("no drafted or copied token kept") if copied else _("no node kept"))  # read 53: a copy is no node
    last = step.emitted[-1] if step.emitted and step.emitted[-1].kind in (TokenKind.RECOVERED, TokenKind.BONUS) \
        else None
    then = _(", then {glyph} ‘{token}’", glyph=style(last.kind).glyph, token=token(last.text)) if last else ""
    return _("{nodes} · accepted path: {path}{then}", nodes=nodes, path=path, then=then)


def _token(text: str) -> str:
    return escape_markdown(shortened(text, limit=8))


def _node_names(record: TreeRecord, limit: int | None = 6) -> list[str]:
    """The mask's row and column names: root, then "#1 a", with a copied token marked as the tree list marks it
    ("#7 j ❐"; read 53: the mask named copied tokens as if they were drafted nodes); each token cut to `limit`
    characters on the chart, whole in its table (None; read 55: the table cut it as the ticks do)."""
    return [_("root")] + [f"#{j + 1} {plot_text(n.text, limit=limit)}" + (f" {COPIED_MARK}" if n.copied else "")
                          for j, n in enumerate(record.nodes)]


def scored_title(record: TreeRecord) -> str:
    """The mask's row heading: a copied token is no node (the glossary), so a tree with copies names both."""
    return _("node or copied token being scored") if any(n.copied for n in record.nodes) else _("node being scored")


def mask_table(record: TreeRecord) -> pd.DataFrame:
    """The mask's numbers as the chart names them: a row per node being scored, a column per node it may read, each
    cell "attends" or "masked" (read off the heatmap, the table numbered the nodes from 0 where the chart's ticks say
    root, #1 ... and wrote 1 and 0 for the two words)."""
    # plain text: the table escapes it (read 46: "&lt;" twice escaped)
    names = table_text(_node_names(record, limit=None))
    seen, hidden = _("attends"), _("masked")
    rows = attention_rows(record)
    return pd.DataFrame({scored_title(record): names,
                         **{name: [seen if row[j] else hidden for row in rows] for j, name in enumerate(names)}})


def mask_figure(record: TreeRecord) -> go.Figure:
    """The tree attention mask as a heatmap: row = the node being scored, column = a node it may read. Filled =
    attends (its ancestors, the root and itself), empty = masked (siblings, cousins, other branches)."""
    rows = attention_rows(record)
    names = _node_names(record)
    seen, hidden = _("attends"), _("masked")
    hover = [[_("{row} → {column}: {verdict}", row=names[i], column=names[j], verdict=seen if v else hidden)
              for j, v in enumerate(row)] for i, row in enumerate(rows)]
    size = len(rows)
    fig = go.Figure(go.Heatmap(z=rows, x=list(range(size)), y=list(range(size)), zmin=0, zmax=1,
                               colorscale=[[0, "#FFFFFF"], [1, P_COLOR]], showscale=False, xgap=1, ygap=1,
                               customdata=hover, hovertemplate="%{customdata}<extra></extra>"))
    ticks = dict(tickvals=list(range(size)), ticktext=names if size <= 25 else [str(i) for i in range(size)],
                 tickfont=dict(family="monospace", size=11 if size <= 13 else 9), showgrid=False)
    fig.update_layout(**_LAYOUT, height=int(min(520, 190 + 18 * size)), margin=dict(l=10, r=10, t=50, b=10),
                      title=dict(text=_("Tree attention mask"), font=dict(size=16)), plot_bgcolor="#D0D0D0",
                      xaxis=dict(**ticks, tickangle=-60, title=_("may read →"), constrain="domain"),
                      yaxis=dict(**ticks, autorange="reversed", title=scored_title(record), scaleanchor="x",
                                 constrain="domain"))
    return fig


def tree_list(step: Step) -> str:
    """The tree as markdown a phone can read (issue 42 item 5: at 390 px a deep tree's labels overlap): the accepted
    path, then every node by how far ahead it is, each with its verdict's glyph and its parent, token text escaped.

    Shown instead of the drawn tree on a narrow screen (`accessibility.CSS`); the drawn tree stays on a wide one."""
    record = step.tree
    lines = [f"**{tree_title(step)}**", ""]
    for depth in sorted({n.depth for n in record.nodes}):
        shown = []
        for j, node in enumerate(record.nodes):
            if node.depth != depth:
                continue
            mark = f" {COPIED_MARK}" if node.copied else ""
            shown.append(_("{glyph} #{n} ‘{text}’{copied}, parent {parent}", glyph=style(node_kind(node)).glyph,
                           n=j + 1, text=escape_markdown(visible(node.text)), copied=mark, parent=_parent(node)))
        lines.append(f"- **+{depth}:** " + "; ".join(shown))  # +1 = one token ahead, as the drawn tree's columns
    return "\n".join(lines)


def _parent(node: TreeNode) -> str:
    """A node's parent as the table and the list name it: "root", or "#3" (nodes are numbered from 1)."""
    return _("root") if node.parent == ROOT else f"#{node.parent + 1}"


def tree_rows(record: TreeRecord, greedy: bool = False) -> list[dict[str, str]]:
    """The tree's numbers as rows (for a table next to the hover): the node or copied token (read 52: the column
    was headed "node", and a copied token is never a node), parent, depth, source (drafted or copied from the
    context), q, p, p/q (written q′ = …, p′ = …, p′/q′ = … for a child tried after a rejected sibling), the
    acceptance chance used, u, verdict. `greedy`: the run's temperature was 0 (`Trace.greedy`, `_pq`).
    Token text with its whitespace drawn (a table shows plain text, never HTML)."""
    rows = []
    for j, n in enumerate(record.nodes):
        s = style(node_kind(n))
        shown = _shown(n)  # a kept node never reads 1.000 and u = 1.000; one number of decimals (read 47)
        chance, u = shown.chance, shown.u
        (p, q), pq = _pq(n, greedy), shown.ratio
        if uses_residuals(n):  # read 49: the rule compared p′ with q′, the residuals the siblings tried before it left
            q, p, pq = f"q′ = {q}", f"p′ = {p}", f"p′/q′ = {pq}"
        rows.append({_("node or copied token"): f"#{j + 1} {visible(n.text)}",
                     _("parent"): _parent(n),
                     _("depth"): str(n.depth),
                     _("source"): _("{mark} copied", mark=COPIED_MARK) if n.copied else _("drafted"),
                     "q": q, "p": p, "p/q": pq,
                     _("kept with"): chance, "u": u,
                     _("verdict"): f"{s.glyph} {_(s.label)}"})
    return rows
