"""Token renderers: coloured chips with visible whitespace, exact numbers on hover, and the growing output.

Every function returns an HTML string (plain Python, no streamlit) for `st.html`. A chip's colour and glyph come
from `specviz.ui.common.palette`; its text, whatever a model wrote, goes through `specviz.ui.common.escaping.escape_text`.

    >>> "line-through" in chip("x", TokenKind.REJECTED)
    True

Public API (other pages import it; keep it stable): `fmt`, `Shown`, `shown_numbers` (from `specviz.engine.shown`,
which the CLI's step lines share), `decision_numbers` (one draft's p, q, p/q, chance and u with one number of
decimals), `rule_probs` (the p and q the rule compared), `chip`, `decision_kind`, `draft_numbers`,
`main_line_nodes`, `main_line_view`, `decision_tooltip`, `step_tooltip`, `point_mass_text`, `draft_gave_text`,
`emitted_tooltip`, `emitted_chips`, `decision_chips`, `TraceView`, `trace_view`, `output_html`, `stream_html`,
`text_html`, `answer_html`. A page that draws one trace many times (the Playground's player) builds its `trace_view` once and
reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

from specviz.core.i18n import _
from specviz.engine.proposers import registry
from specviz.engine.shown import POINT_MASS_Q, Shown, column_numbers, fmt, shown_numbers, with_point_masses
from specviz.engine.trace import (Decision, EmittedToken, Step, TokenKind, Trace, TreeNode, p_over_q,
                                  point_mass_pq, recorded_point_mass, rule_point_mass, tested_on_own_probs,
                                  uses_residuals)
from specviz.models.toy_text import shown_output
from specviz.ui.common.escaping import escape_attr, escape_text, visible
from specviz.ui.common.palette import DisplayState, Kind, style


def rule_probs(target_prob: float | None, draft_prob: float | None, node: TreeNode | None
               ) -> tuple[float | None, float | None]:
    """The p(x) and q(x) the rule compared for a drafted token: p′, q′ for a tree child tried after a rejected
    sibling (`uses_residuals`: p′ the residual the siblings tried before it left, q′ q without them or a point mass,
    recorded per node), else p and the q the rule used (1 for a tree node it tests against a point mass, `pq_lines`).
    Read 50: the chips, the overview's hover and the step's sentence gave such a child its plain p, q and p/q (1.175)
    beside min(1, p′/q′) = 0.317. The one choice of them: a main-line decision passes its p, q and node, the tree's
    hover and table a node's own (`tree_figures`, whose near-twin `_used` read 51 folded in here)."""
    if uses_residuals(node):
        return node.target_prob_used, node.draft_prob_used
    return target_prob, 1.0 if rule_point_mass(node) else draft_prob


def decision_numbers(d: Decision, node: TreeNode | None = None) -> Shown:
    """`shown_numbers` for one drafted token: p and q the ones the rule compared (`rule_probs`: p′, q′ after a
    rejected sibling; q = 1 for a point mass), the chance `d.accept_prob` and u only where the verifier drew one.
    A p or q that is a point mass on the token (`point_mass_pq`: a copy's q, a greedy p or q) is written "1", as
    the tree's table writes it (read 53: "1.000" in a lookup chain step's hover, table and sentence)."""
    shown = shown_numbers(*rule_probs(d.target_prob, d.draft_prob, node), d.accept_prob,
                          d.uniform if d.reached else None)
    return with_point_masses(shown, *point_mass_pq(d, node))


def point_mass_text() -> str:
    """A p or q that is a point mass on the token, in a table cell or a hover: "1 (point mass)", as the tree's
    table writes a point-mass q (read 52), now for a chain's too and for a greedy p (read 53)."""
    return _("{q} (point mass)", q=POINT_MASS_Q)


def draft_gave_text(draft_prob: float | None, point_mass: bool) -> str:
    """The q(x) the draft gave a token the rule tests against a point mass, in "the draft gave it q(x) = …": "1, a
    point mass too" where the draft's own q is a point mass on it (a greedy draft at T = 0: `recorded_point_mass`, or
    a greedy run's q of 1, `Trace.greedy`), else as `fmt` writes it (read 54: a greedy tree node read "the draft gave
    it q(x) = 1.000" where the chain hovers write that point mass "1 (point mass)"; then "1 (point mass; the draft gave
    it q(x) = 1 (point mass))", brackets in brackets, where the sentence has named the rule's point mass already).

    >>> draft_gave_text(1.0, True), draft_gave_text(0.0, False), draft_gave_text(0.25, False)
    ('1, a point mass too', '0', '0.250')
    """
    return _("{q}, a point mass too", q=POINT_MASS_Q) if point_mass else fmt(draft_prob)


# ---- tooltips -------------------------------------------------------------------------------------------------


def draft_numbers(step: Step) -> list[int]:
    """The number each of a step's drafts is shown with: its place in a chain (#1 first); in a tree step, its
    node's number in the tree's drawing, list and mask (#3 is the tree's third node), so the main line names a node
    as the tree does (read 43: the rejected node #3 was "#2" in the main line's chart, and the tree's #2 was another
    node, never tested). The main line is the accepted path, then the first child tried below it, which the rule
    rejected (`specviz.engine.decoding.main_line`; children are tried in the order drafted).

    >>> from specviz.engine.trace import TreeNode, TreeRecord
    >>> step = Step(0, 5, 2, "draft", [Decision(i, 1, "a", 0.5, 0.5, 1.0, 1.0, 0.1, i == 0, True) for i in (0, 1)],
    ...             [],
    ...             tree=TreeRecord([TreeNode(1, "a", -1, 1, 0.5, 0.5, "accepted"),
    ...                              TreeNode(2, "b", -1, 1, 0.2, 0.1, "not reached"),
    ...                              TreeNode(3, "c", 0, 2, 0.5, 0.1, "rejected")], path=[0]))
    >>> draft_numbers(step)
    [1, 3]
    """
    return main_line_view(step)[0]


def main_line_nodes(step: Step) -> list[TreeNode | None]:
    """The tree node behind each of a step's decisions (`Step.main_line`); None for each in a chain step."""
    return main_line_view(step)[1]


def main_line_view(step: Step) -> tuple[list[int], list[TreeNode | None]]:
    """`draft_numbers` and `main_line_nodes` from one walk of the tree (`Step.main_line`, which scans every node):
    what a caller that needs both, or needs them for every token of a step, computes once per step (Read 45)."""
    line = step.main_line()
    if not line:
        return [d.position + 1 for d in step.decisions], [None] * len(step.decisions)
    return [j + 1 for j in line], [step.tree.nodes[j] for j in line]


def ratio(target_prob: float | None, draft_prob: float | None) -> float | None:
    """p/q for a hover (`specviz.engine.trace.p_over_q`): ∞ where q = 0 < p, None (shown "–") where p = q = 0 (read
    51: "p/q = ∞" where the tree's table wrote "–") or a trace file left p or q out (EmittedToken's defaults): an
    uploaded trace with "target_prob": null divided None by q and broke the Playground (read 45).

    >>> ratio(0.2, 0.5), ratio(0.2, 0.0), ratio(0.0, 0.0), ratio(None, 0.5), ratio(0.2, None)
    (0.4, inf, None, None, None)
    """
    return p_over_q(target_prob, draft_prob)


def pq_lines(shown: Shown, draft_prob: float | None, node: TreeNode | None,
             point_masses: tuple[bool, bool] = (False, False), copied: bool = False,
             draft_point_mass: bool = False) -> list[str]:
    """The p, q and p/q lines of a hover, as `shown_numbers` wrote them, with the q the rule used: a tree node it
    tests against a point mass (copied from the context, or a child not drawn from q) has q = 1, whatever the draft
    gave it (`draft_prob`; read 44: a greedy tree's second child read "q (draft) = 0.000", "p/q = ∞", though the rule
    kept it with p′(x)). A child tried after a rejected sibling (`uses_residuals`) gets q′, p′ and p′/q′, as the
    tree's hover writes them: `shown` then holds them (`rule_probs`). `point_masses`: whether p and q are point masses
    on the token (`point_mass_pq`), each then "1 (point mass)"; `copied`: the chain's proposer copies its tokens
    (`registry.copies`), whose q the line says no model gave (read 53: a lookup chain step read "q (draft) = 1.000").
    `draft_point_mass`: the draft's own q is a point mass on the token, which "the draft gave it" then writes so
    (`draft_gave_text`).
    """
    if uses_residuals(node):
        q = _("{q} (point mass)", q=POINT_MASS_Q) if rule_point_mass(node) else shown.q
        # read 51: "(the residuals the siblings tried before it left)" named q′ a residual, which it is not: q′ is q
        # without the rejected siblings, or a point mass (1), and the step's sentence says so
        return [_("q′ = {q} · p′ = {p} (after the siblings tried before it were rejected)", q=q, p=shown.p),
                f"p′/q′ = {shown.ratio}"]
    p_line = _("p (target) = {p}", p=point_mass_text() if point_masses[0] else shown.p)
    if not rule_point_mass(node):
        if point_masses[1] and copied:
            q_line = _("q = {one}, a point mass (copied from the context: no model drafted it)", one=POINT_MASS_Q)
        else:
            q_line = _("q (draft) = {q}", q=point_mass_text() if point_masses[1] else shown.q)
        return [p_line, q_line, f"p/q = {shown.ratio}"]
    if node.copied:  # read 49: "the draft gave it q(x) = 1.000" of a copy, which no drafter scored (graft_copy)
        q_line = _("q = {one}, a point mass (copied from the context: no model drafted it)", one=POINT_MASS_Q)
    else:
        q_line = _("q = {one}, a point mass ({why}; the draft gave it q(x) = {q})", one=POINT_MASS_Q,
                   why=_("a top-k child, not drawn from q"), q=draft_gave_text(draft_prob, draft_point_mass))
    return [p_line, q_line, f"p/q = {shown.ratio}"]


def tree_chance_line(chance: str, node: TreeNode | None) -> str:
    """The chance line of a tree node's hover: min(1, p′/q′) after the siblings tried before it where the rule used
    residuals (`uses_residuals`) or the trace does not say (one written before p′, q′ were recorded); min(1, p/q)
    where it records that the rule compared the node's own p and q (a first child: read 50 found "(after the
    siblings tried before it)" on a child no sibling came before)."""
    if tested_on_own_probs(node):
        return f"min(1, p/q) = {chance}"
    return _("min(1, p′/q′) = {chance} (after the siblings tried before it)", chance=chance)


def decision_tooltip(d: Decision, tree: bool = False, number: int | None = None, node: TreeNode | None = None,
                     copied: bool = False) -> str:
    """Plain text for hovering a drafted token: p, q, p/q, min(1, p/q), u and the verdict. In a `tree` step's main
    line the chance it was kept is min(1, p′/q′), with the residuals the siblings tried before it left (the tree
    rule), which differs from min(1, p/q) after a rejected sibling: it is named so. `number`: the draft's number as
    shown (`draft_numbers`; its place in the chain when None). `node`: its tree node (`main_line_nodes`), whose q
    is a point mass where the rule takes it so, and whose p′, q′ and p′/q′ replace p, q and p/q after a rejected
    sibling (`pq_lines`). `copied`: the step's proposer copies its tokens from the context (`registry.copies`)."""
    shown = decision_numbers(d, node)  # one number of decimals (read 47); p, q more if p/q needs (read 52)
    chance, u = shown.chance, shown.u
    kept = tree_chance_line(chance, node) if tree else f"min(1, p/q) = {chance}"
    if not d.reached:  # read 52: "min(1, p/q) = 0.488" of a draft the overview says was not reached, never tested
        name = "min(1, p′/q′)" if tree and not tested_on_own_probs(node) else "min(1, p/q)"
        kept = _("not reached: it would have been kept with chance {name} = {chance} if the drafts before it had "
                 "been kept", name=name, chance=chance)
    n = number or d.position + 1  # read 49: a lookup branch's copy read "draft #7" though no model drafted it
    head = (_("copied token #{n}: {text}  (id {id})", n=n, text=visible(d.text), id=d.token_id)
            if node is not None and node.copied else
            _("draft #{n}: {text}  (id {id})", n=n, text=visible(d.text), id=d.token_id))
    drafted_mass = recorded_point_mass(d.draft_prob, d.draft_top, d.token_id)  # a greedy draft's q
    lines = [head, *pq_lines(shown, d.draft_prob, node, point_mass_pq(d, node), copied, drafted_mass), kept]
    if not d.reached:
        lines.append(_("u: never drawn. An earlier draft was rejected, so this one was not tested."))
    else:
        sign = "<" if d.accepted else "≥"
        verdict = _("accepted ✓") if d.accepted else _("rejected ✗")
        lines.append(f"u = {u} {sign} {chance} → {verdict}")
    return "\n".join(lines)


def emitted_p_text(t: EmittedToken, greedy: bool = False, step: Step | None = None) -> str:
    """p(x) of a recovered, bonus or target token as its hover writes it: "1 (point mass)" for a greedy run's p of 1
    (`emitted_tooltip`), else two significant figures at least and never a p below 1 written as 1 (`column_numbers`,
    the rule of every other p the step panel shows). Read 55: `fmt`'s three decimals wrote smollm-ngram-t07 step 10's
    bonus p = 0.99951 "1.000" beside the bonus chart's 0.9995, smollm-layerskip-t07 step 32's recovered p = 0.9999999
    "1.000", and smollm-draft-t07 step 12's bonus p = 0.00492 "0.005", one figure. With `step` (the token's step), a
    bonus or target token among the bars of its step's chart, which draws p there, is written as that chart's column
    writes it (0.0730 in a column of four decimals, not 0.073).

    >>> [emitted_p_text(EmittedToken(7, "a", TokenKind.BONUS, p)) for p in (0.99951, 0.00492, 0.25)]
    ['0.9995', '0.0049', '0.250']
    """
    p = t.target_prob
    if p is None:
        return fmt(None)
    if greedy and p == 1.0:
        return point_mass_text()
    if step is not None and step.emitted and t is step.emitted[-1] and t.kind in (TokenKind.BONUS, TokenKind.TARGET) \
            and (step.correction_kind or TokenKind.TARGET) == t.kind:
        top = step.correction_top
        ids = [c.token_id for c in top]
        if t.token_id in ids and top[ids.index(t.token_id)].prob == p:
            if len(top) == 1 and recorded_point_mass(p, top, t.token_id):
                return point_mass_text()  # as the chart's column writes it (`step_figures.correction_numbers`)
            return column_numbers([c.prob for c in top])[ids.index(t.token_id)]
    return column_numbers([p])[0]


def emitted_tooltip(t: EmittedToken, step_index: int | None = None, tree_chance: float | None = None,
                    tree: bool = False, node: TreeNode | None = None, point_masses: tuple[bool, bool] = (False, False),
                    copied: bool = False, greedy: bool = False, step: Step | None = None) -> str:
    """Plain text for hovering an output token: where it came from and its numbers. `tree_chance` is the chance an
    accepted token of a tree step was kept, min(1, p′/q′) (its main-line Decision.accept_prob, `step_tooltip`): the
    tree rule tested u against it, not against min(1, p/q); `node`, its tree node, gives the q the rule used
    (`pq_lines`). With `tree` (the token ends a tree step), a recovered
    token comes from the residual p′ left once every child of its node was rejected, and a bonus token follows an
    accepted node with no children (`specviz.engine.tree_verifier`), not "all drafts accepted". `point_masses` and
    `copied` of an accepted token: as `pq_lines` takes them (`step_tooltip` finds them from its decision). `greedy`:
    the run's temperature was 0 (`Trace.greedy`), so a recovered, bonus or target token's p of 1 is a point mass on
    it, "1 (point mass)" (read 53: "p (target) = 1.000"; the token records no top list that would say so). `step`: the
    token's step, whose chart of p a bonus or target token's p is written as (`emitted_p_text`)."""
    s = style(t.kind)
    if step_index is None:
        head = _("{glyph} {kind}: {text}  (id {id})", glyph=s.glyph, kind=_(s.label), text=visible(t.text),
                 id=t.token_id)
    else:
        head = _("{glyph} {kind}: {text}  (id {id}), step {step}", glyph=s.glyph, kind=_(s.label),
                 text=visible(t.text), id=t.token_id, step=step_index + 1)
    lines = [head]
    p_line = _("p (target) = {p}", p=emitted_p_text(t, greedy, step))
    if t.kind == TokenKind.ACCEPTED and tree_chance is not None:
        shown = with_point_masses(shown_numbers(*rule_probs(t.target_prob, t.draft_prob, node), tree_chance,
                                                t.uniform), *point_masses)
        lines += [*pq_lines(shown, t.draft_prob, node, point_masses, copied, greedy and t.draft_prob == 1.0),
                  tree_chance_line(shown.chance, node),
                  _("u = {u} < {a} → kept", u=shown.u, a=shown.chance)]
    elif t.kind == TokenKind.ACCEPTED:
        r = ratio(t.target_prob, t.draft_prob)
        shown = with_point_masses(shown_numbers(t.target_prob, t.draft_prob, None if r is None else min(1.0, r),
                                                t.uniform), *point_masses)
        lines += [*pq_lines(shown, t.draft_prob, None, point_masses, copied), f"min(1, p/q) = {shown.chance}",
                  _("u = {u} < {a} → kept", u=shown.u, a=shown.chance)]
    elif t.kind == TokenKind.RECOVERED and tree:
        lines += [_("sampled from the residual p′ left after every child of the last kept node was rejected"),
                  p_line]
    elif t.kind == TokenKind.RECOVERED:
        lines += [_("sampled from norm(max(0, p − q)) after the rejection"), p_line]
    elif t.kind == TokenKind.BONUS and tree:
        lines += [_("sampled from p after the accepted path reached a leaf of the tree"), p_line]
    elif t.kind == TokenKind.BONUS:
        lines += [_("sampled from p after all drafts were accepted"), p_line]
    else:
        lines += [_("sampled from p by one target forward"), p_line]
    return "\n".join(lines)


def step_tooltip(t: EmittedToken, step: Step, i: int, nodes: list[TreeNode | None] | None = None,
                 greedy: bool = False) -> str:
    """`emitted_tooltip` for the `i`-th token `step` emitted: an accepted token of a tree step gets the chance the
    tree rule kept it with (its main-line decision's min(1, p′/q′)); its recovered or bonus token, the tree rule's
    origin. `nodes`: the step's `main_line_nodes`, when the caller already has them (one walk per step, not one per
    token). An accepted token's p or q that is a point mass is written "1" (`point_mass_pq` of its decision);
    `greedy` as `emitted_tooltip` takes it."""
    decided = t.kind == TokenKind.ACCEPTED and i < len(step.decisions)
    chance = step.tree is not None and decided
    if decided and nodes is None:
        nodes = main_line_nodes(step)
    node = nodes[i] if decided else None
    return emitted_tooltip(t, step.index, step.decisions[i].accept_prob if chance else None,
                           tree=step.tree is not None, node=node if chance else None,
                           point_masses=point_mass_pq(step.decisions[i], node) if decided else (False, False),
                           copied=registry.copies(step.proposer), greedy=greedy, step=step)


# ---- chips ----------------------------------------------------------------------------------------------------


def chip(text: str, kind: Kind, tooltip: str = "", *, current: bool = False, size: str = "normal",
         glyph: bool = True) -> str:
    """One token as a coloured chip: glyph + escaped text, struck through when the kind says so.

    `size` is "normal" (drafts of the current step), "large" (projector panels) or "inline" (running text).
    """
    s = style(kind)
    pad, font = {"large": ("4px 10px", "1.35rem"), "inline": ("0 3px", "1rem")}.get(size, ("2px 8px", "1.1rem"))
    deco = "text-decoration:line-through;text-decoration-thickness:2px;" if s.strike else ""
    outline = "outline:3px solid #000;outline-offset:1px;" if current else ""
    border = "1.5px" if size == "inline" else "2px"
    lead = f'<span style="font-size:0.8em">{s.glyph}</span>&#8202;' if glyph else ""  # full colour: 0.85 opacity read 4.28:1
    title = f' title="{escape_attr(tooltip)}"' if tooltip else ""
    return (f'<span{title} data-kind="{s.kind}" style="display:inline-block;padding:{pad};margin:2px 1px;'
            f'border:{border} solid {s.color};border-radius:6px;background:{s.background};color:{s.text_color};'
            f'font-family:ui-monospace,Menlo,Consolas,monospace;font-size:{font};line-height:1.35;'
            f'white-space:pre;{deco}{outline}cursor:help">{lead}{escape_text(text)}</span>')


def decision_kind(d: Decision, revealed: bool = True) -> Kind:
    """accepted / rejected / not reached for a decision (drafted while the verdict is hidden)."""
    if not revealed:
        return DisplayState.DRAFTED
    if not d.reached:
        return DisplayState.NOT_REACHED
    return d.kind


def decision_chips(step: Step, *, revealed: bool = True, size: str = "large") -> str:
    """The drafted tokens of one step as chips, in order, with hover tooltips (verdicts hidden if not revealed)."""
    chips = []
    for d, n, node in zip(step.decisions, *main_line_view(step)):
        tip = (decision_tooltip(d, step.tree is not None, n, node, registry.copies(step.proposer)) if revealed
               else _("copied token #{n}: {text} (verdict hidden)", n=n, text=visible(d.text))
               if node is not None and node.copied else
               _("draft #{n}: {text} (verdict hidden)", n=n, text=visible(d.text)))
        chips.append(chip(d.text, decision_kind(d, revealed), tip, size=size))
    if not chips:
        return '<span style="color:#6B6B6B">' + escape_text(
            _("(nothing drafted: the proposer found no guess, the draft length was 0, or only one token was "
              "left to write; the target emitted one token on its own)"),
            whitespace=False) + '</span>'
    return "".join(chips)


def emitted_chips(step: Step, *, size: str = "large", greedy: bool = False) -> str:
    """What one step added to the output, as chips; `greedy`: the run's temperature was 0 (`emitted_tooltip`)."""
    nodes = main_line_nodes(step)
    return "".join(chip(t.text, t.kind, step_tooltip(t, step, i, nodes, greedy), size=size)
                   for i, t in enumerate(step.emitted)) or \
        '<span style="color:#6B6B6B">' + escape_text(_("(nothing: the generation had already stopped)"),
                                                     whitespace=False) + '</span>'


# ---- running text ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TraceView:
    """A trace as the screen draws it, built once by `trace_view`: each step's tokens as inline chips, in the order
    they grew the output. `output_html` draws these chips without walking the trace's tokens again; `answer` reads
    the trace's output text (its tokens only when a trace has none)."""

    trace: Trace
    groups: tuple[tuple[int, str], ...]  # per step: (its index, its chips)

    @property
    def answer(self) -> str:
        """What the model wrote, as plain text (the emitted tokens' texts when the trace has no output text), a toy
        run's <unk> tokens written as its chips write them (`shown_output`)."""
        return shown_output(self.trace) or "".join(t.text for s in self.trace.steps for t in s.emitted)

    def output_html(self, upto: int | None = None, *, current: int | None = None, prompt: bool = False) -> str:
        """The output as it grows: steps 0..upto-1 (all when None). Step `current` is outlined. With `prompt`, the
        prompt text comes first, in muted grey."""
        groups = self.groups if upto is None else self.groups[: max(0, upto)]
        parts = []
        if prompt and self.trace.prompt_text:
            prompt_text = escape_text(self.trace.prompt_text, whitespace=False).replace("\n", "&#10;")
            parts.append(f'<span style="color:#6B6B6B;white-space:pre-wrap">{prompt_text}</span><br>')
        for index, chips in groups:
            edge = "outline:2px dashed #000;outline-offset:1px;border-radius:4px;" if index == current else ""
            title = escape_attr(_("step {n}", n=index + 1))
            parts.append(f'<span title="{title}" style="{edge}margin-right:5px">{chips}</span>')
        if not groups:
            parts.append('<span style="color:#6B6B6B">' + escape_text(_("(no tokens yet: press Next step)"),
                                                                      whitespace=False) + '</span>')
        return f'<div style="line-height:2.1;font-size:1rem">{"".join(parts)}</div>'


def trace_view(trace: Trace, upto: int | None = None, *, show_rejected: bool = True,
               show_unreached: bool = False) -> TraceView:
    """The chips of steps 0..upto-1 (all when None), each token a chip of its kind, built once.

    The first rejected draft of each step is shown struck through at the place it was tried, just before the
    recovered token that replaced it (`show_rejected`); drafts after it (never tested) only with `show_unreached`.
    Newlines show as ↵ and also break the line.
    """
    groups = []
    for step in trace.steps if upto is None else trace.steps[: max(0, upto)]:
        n_acc = step.n_accepted
        cut = n_acc if step.decisions else 0  # the emitted tokens before the tried drafts: the kept ones
        numbers, nodes = main_line_view(step)
        tried = [(d, n, node) for d, n, node in zip(step.decisions[n_acc:], numbers[n_acc:], nodes[n_acc:])
                 if d.reached or show_unreached] if show_rejected else []
        emitted = [chip(t.text, t.kind, step_tooltip(t, step, i, nodes, trace.greedy), size="inline",
                        glyph=t.kind != TokenKind.ACCEPTED)
                   + ("<br>" if "\n" in t.text else "") for i, t in enumerate(step.emitted)]
        copied = registry.copies(step.proposer)
        rejected = [chip(d.text, decision_kind(d), decision_tooltip(d, step.tree is not None, n, node, copied),
                         size="inline") for d, n, node in tried]
        groups.append((step.index, "".join(emitted[:cut] + rejected + emitted[cut:])))
    return TraceView(trace, tuple(groups))


def output_html(trace: Trace, upto: int | None = None, *, current: int | None = None, show_rejected: bool = True,
                show_unreached: bool = False, prompt: bool = False) -> str:
    """The output as it grows, steps 0..upto-1 (all when None): `trace_view`'s chips, drawn by
    `TraceView.output_html` (step `current` outlined, the prompt first with `prompt`)."""
    view = trace_view(trace, upto, show_rejected=show_rejected, show_unreached=show_unreached)
    return view.output_html(upto, current=current, prompt=prompt)


def stream_html(groups: list[list[tuple[str, Kind]]]) -> str:
    """A run's output while it is still being computed: one group of (text, kind) chips per step, drawn like
    `output_html` (a rejected draft struck through before its replacement), without tooltips.

    >>> 'data-kind="recovered"' in stream_html([[("a", TokenKind.ACCEPTED), ("b", TokenKind.RECOVERED)]])
    True
    """
    parts = []
    for group in groups:
        chips = "".join(chip(text, kind, size="inline", glyph=kind != TokenKind.ACCEPTED) +
                        ("<br>" if "\n" in text else "") for text, kind in group)
        parts.append(f'<span style="margin-right:5px">{chips}</span>')
    return f'<div style="line-height:2.1;font-size:1rem">{"".join(parts)}</div>'


def answer_html(text: str) -> str:
    """What the model wrote, as plain reading text: escaped, line breaks kept, no chips and no marks."""
    body = escape_text(text, whitespace=False).replace(chr(10), "<br>") if text.strip() else \
        '<span style="color:#6B6B6B">' + escape_text(_("(the model wrote nothing)"), whitespace=False) + '</span>'
    return (f'<div style="font-size:1.05rem;line-height:1.6;padding:10px 14px;background:#F6F6F6;'
            f'border-radius:6px;white-space:normal">{body}</div>')


def text_html(text: str) -> str:
    """A user's or model's text as an escaped, pre-wrapped block (whitespace kept as is, not as glyphs)."""
    return (f'<div style="white-space:pre-wrap;font-family:ui-monospace,Menlo,Consolas,monospace;'
            f'padding:6px 10px;background:#F6F6F6;border-radius:6px">'
            f'{escape_text(text, whitespace=False).replace(chr(10), "&#10;")}</div>')
