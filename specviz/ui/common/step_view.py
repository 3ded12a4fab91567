"""One speculation step, drawn for a learner: drafts, the verifier's decision at each position, the correction,
and what happened to the KV caches; and the headline of a whole trace above the player.

The figures are in `specviz.ui.common.step_figures`, the chips in `specviz.ui.common.tokens`; this module adds the words (the
step's headline, what happened at a position), the KV-cache strip, and `render_step`, which lays them out.

Public API (other pages may import it; keep it stable): `kv_cache_html`, `step_headline`, `tree_nodes_text`,
`accepted_path_text`, `accepted_count_text`, `render_step`, `render_verifier_source`, `trace_headline`,
`settings_line`, `trace_summary`, `prompt_label`, `dtype_text`.
"""

from __future__ import annotations

import inspect

import streamlit as st

from specviz.core.i18n import N_, _, localized, ngettext, number
from specviz.engine import tree_verifier, verifier
from specviz.engine.kinds import StopReason
from specviz.engine.limits import is_whole
from specviz.engine.proposers import registry
from specviz.engine.shown import POINT_MASS_Q
from specviz.engine.trace import (Decision, Step, TokenKind, Trace, TreeNode, point_mass_pq, recorded_point_mass,
                                  rule_point_mass, tested_on_own_probs, uses_residuals)
from specviz.labs.timeline import heuristic_steps, policy_k_range
from specviz.models.toy_text import TOY_UNK_ID
from specviz.ui.common.charts import show
from specviz.ui.common.escaping import escape_attr, escape_label, escape_text
from specviz.ui.common.palette import style
from specviz.ui.common.step_figures import (accept_strip_figure, accept_strip_table, correction_figure,
                                             correction_table, distribution_figure, distribution_table,
                                             verdict_overview_figure, verdict_overview_table)
from specviz.ui.common.tokens import (decision_chips, decision_kind, decision_numbers, emitted_chips,
                                      fmt, main_line_view, point_mass_text, shown_numbers, text_html)
from specviz.ui.common.tree_view import TEXT as TREE_TEXT
from specviz.ui.common.tree_view import render_tree


# Every sentence of this module that a user reads, in one place (English messages: `_()` translates them where
# they are shown; named placeholders).
TEXT = {
    "no_drafts": N_("No drafts this step: the target wrote {new} on its own."),
    # {drafted}: "3 tokens"; {accepted}: `accepted_count_text`, "accepted 1" or "accepted none"
    "step": N_("Drafted {drafted}, {accepted}: {new} for one target forward pass."),
    "step_recovered": N_("Drafted {drafted}, {accepted}, then 1 recovered token ↻: {new} for one target forward "
                         "pass."),
    "step_bonus": N_("Drafted {drafted}, {accepted}, then 1 bonus token ★: {new} for one target forward pass."),
    "accepted_none": N_("accepted none"),
    "accepted_count": N_("accepted {n}"),
    "ended_eos": N_("Drafted {drafted}; the target kept {kept} and the text ended there (the end-of-text token), so "
                    "no {missing} token was added: {new} for one target forward pass."),
    "ended_limit": N_("Drafted {drafted}; the target kept {kept} and the text ended there (the token limit), so no "
                      "{missing} token was added: {new} for one target forward pass."),
    # a trace that records no stop reason (an uploaded file may say ""): the text ended, for a reason not known
    "ended": N_("Drafted {drafted}; the target kept {kept} and the text ended there, so no {missing} token was "
                "added: {new} for one target forward pass."),
    # read 53: a trace run under another policy than constant K read "K = 4" over steps of 0 to 3 drafts (or 6)
    "policy_threshold": N_("threshold policy: up to K drafts a step, stopping where the draft's own top probability "
                           "falls below {threshold}"),
    # read 53: a threshold of 0 stops no step early
    "policy_threshold_zero": N_("threshold policy: threshold 0, which no top probability falls below, so it stops no "
                                "step early"),
    "policy_threshold_unknown": N_("threshold policy: up to K drafts a step, stopping where the draft's own top "
                                   "probability falls below its threshold"),
    # read 53: "2 higher ... 1 lower" whatever the policy's steps were (`Heuristic(grow, shrink)`)
    "policy_heuristic": N_("heuristic policy: K starts at {k}, {grow} higher after a step that kept every draft and "
                           "{shrink} lower after one with a rejected draft"),
    "policy_heuristic_unknown": N_("heuristic policy: K starts at {k}, higher after a step that kept every draft and "
                                   "lower after one with a rejected draft"),
    "policy_optimal": N_("optimal policy: each step's K from the formula and the α estimated from the steps before"),
    # read 53: the line also read "K = 4", the K setting, which the optimal policy ignores (its steps drafted 3 to 10)
    "policy_optimal_range": N_("optimal policy: each step's K from the formula and the α estimated from the steps "
                               "before (its steps drafted {low} to {high}; the K setting is not used)"),
    "policy_optimal_one": N_("optimal policy: each step's K from the formula and the α estimated from the steps "
                             "before (every step drafted {k}; the K setting is not used)"),
    "plus_copied": N_("{drafted} plus {copied}"),
    "recovered": N_("recovered"),
    "bonus": N_("bonus"),
    # read 47: "one slot per token below" over a row that draws every slot cached before the step as one grey cell
    "kv_title": N_("**KV caches** · while reading the text, a model stores two vectors per token and layer (keys and "
                   "values) so it never computes them again: one slot per token. Below, one grey cell stands for all "
                   "the slots cached before the step, and each coloured cell for one slot the step changed (a run of "
                   "more than {most} is one cell with its count). Slots written for drafts the target did not keep "
                   "are thrown away (rolled back)."),
    "kv_wrote": N_("The target wrote {wrote} new entries (the last token and {drafts}) and rolled back {rolled} "
                   "for the drafts it did not keep (rejected or never tested)."),
    # read 51: a step that kept every draft read "rolled back 0 for the drafts it did not keep"
    "kv_wrote_all": N_("The target wrote {wrote} new entries (the last token and {drafts}) and kept every one: "
                       "nothing was rolled back."),
    "kv_one": N_("The target wrote one new entry."),
    # read 52: the EAGLE clause stood under draft-model, layer-skip and tree steps too: only an EAGLE chain step's
    "kv_draft": N_("The draft's row compares only its cache's length before and after the step: the slots it wrote "
                   "while drafting and dropped again are not recorded."),
    "kv_draft_eagle": N_("The draft's row compares only its cache's length before and after the step: the slots it "
                         "wrote while drafting and dropped again are not recorded, and after a chain step an EAGLE "
                         "drafter keeps its last drafts' slots until its next step drops them."),
    # read 50: "kept only the accepted path: 6 rolled back" of 7 written, where the last token's entry stays too
    "kv_tree": N_("The target wrote {wrote} new entries (the last token and {nodes}), kept {kept} (the last token "
                  "and the accepted path) and rolled back {rolled}."),
    # read 52: a tree step that kept no token read "kept 1 (the last token and the accepted path)", a path it had not
    "kv_tree_none": N_("The target wrote {wrote} new entries (the last token and {nodes}), kept {kept} (the last "
                       "token's: no drafted or copied token was accepted) and rolled back {rolled}."),
    "kv_tree_all": N_("The target wrote {wrote} new entries (the last token and {nodes}) and kept every one (the last "
                      "token and the accepted path): nothing was rolled back."),
    # {path}: `accepted_path_text`, "accepted a path of 3 tokens" or "accepted no draft token"
    "tree_step": N_("Drafted a tree of {nodes}, {path}: {new} for one target forward pass."),
    "tree_recovered": N_("Drafted a tree of {nodes}, {path}, then 1 recovered token ↻: {new} for one target forward "
                         "pass."),
    "tree_bonus": N_("Drafted a tree of {nodes}, {path}, then 1 bonus token ★: {new} for one target forward pass."),
    "no_path": N_("accepted no draft token"),
    # read 53: "6 nodes plus 3 tokens copied from the context, accepted no draft token" left the copies unsaid
    "no_path_copied": N_("accepted no drafted or copied token"),
    "residual": N_("norm(max(0, p − q)), the tokens the target wanted more than the draft did, rescaled to add up "
                   "to 1"),
    "medusa_chain": N_("**Medusa:** draft #1 is head 1's guess, draft #2 head 2's, and so on, all read from the "
                       "target's last hidden state before this step. No head saw the drafts before its own, so a "
                       "later draft can follow a first guess that was never made."),
    "medusa_tree": N_("**Medusa:** every node at depth d is a guess of head d (depth 1: head 1), read from the "
                      "target's last hidden state before this step; all nodes at one depth share that head's q, "
                      "whatever their parent."),
}


# ---- HTML blocks ----------------------------------------------------------------------------------------------


def _count(n: int) -> str:
    return ngettext("{n} new token", "{n} new tokens", n)


def step_headline(step: Step, stop: str = "") -> str:
    """One sentence that says what the step did, e.g. 'Drafted 4 tokens, accepted 2, then 1 recovered token ↻: 3 new
    tokens for one target forward pass.' It counts what was added to the output: when the text ended inside the
    step (`stop` is the trace's StopReason), no recovered or bonus token was added."""
    n_new = len(step.emitted)
    if not step.decisions:
        return _(TEXT["no_drafts"], new=_count(n_new))
    drafted, copied = _drafted_and_copied(step)
    if n_new < step.n_accepted + 1:  # cut by end-of-text or the token limit before the step's last token
        kept = sum(t.kind == TokenKind.ACCEPTED for t in step.emitted)
        missing = _(TEXT["bonus"]) if step.correction_kind == TokenKind.BONUS else _(TEXT["recovered"])
        # read 47: a stop not recorded ("") was told as the end-of-text token
        ended = {StopReason.MAX_NEW_TOKENS: TEXT["ended_limit"], StopReason.EOS: TEXT["ended_eos"]}.get(
            stop, TEXT["ended"])
        drafts = tree_nodes_text(step) if step.tree is not None else _tokens(drafted)
        return _(ended, drafted=drafts, kept=kept, new=_count(n_new), missing=missing)
    if step.tree is not None:
        sentence = {TokenKind.RECOVERED: TEXT["tree_recovered"],
                    TokenKind.BONUS: TEXT["tree_bonus"]}.get(step.emitted[-1].kind, TEXT["tree_step"])
        return _(sentence, nodes=tree_nodes_text(step), path=accepted_path_text(step.n_accepted, copied=copied),
                 new=_count(n_new))
    sentence = {TokenKind.RECOVERED: TEXT["step_recovered"],
                TokenKind.BONUS: TEXT["step_bonus"]}.get(step.emitted[-1].kind, TEXT["step"])
    return _(sentence, drafted=_tokens(step.n_drafted), accepted=accepted_count_text(step.n_accepted),
             new=_count(n_new))


def _tokens(n: int) -> str:
    return ngettext("{n} token", "{n} tokens", n)


def accepted_count_text(accepted: int) -> str:
    """What a chain step kept, after "Drafted 3 tokens, " (read 46: "Drafted 3, accepted 0" named no unit), worded
    as the tree's `accepted_path_text`.

    >>> accepted_count_text(0), accepted_count_text(1), accepted_count_text(3)
    ('accepted none', 'accepted 1', 'accepted 3')
    """
    if accepted == 0:
        return _(TEXT["accepted_none"])
    return _(TEXT["accepted_count"], n=number(accepted, 0))


def accepted_path_text(accepted: int, copied: int = 0) -> str:
    """What a tree step kept, with its noun (read 46: "accepted a path of 0" named no unit and read as a path kept);
    `copied`: the tokens its lookup branch copied, which a path that kept nothing did not keep either.

    >>> accepted_path_text(0), accepted_path_text(1), accepted_path_text(3)
    ('accepted no draft token', 'accepted a path of 1 token', 'accepted a path of 3 tokens')
    >>> accepted_path_text(0, copied=3)
    'accepted no drafted or copied token'
    """
    if accepted == 0:
        return _(TEXT["no_path_copied" if copied else "no_path"])
    return ngettext("accepted a path of {n} token", "accepted a path of {n} tokens", accepted)


def _with_copies(drafted_text: str, copied: int) -> str:
    """"6 nodes" plus the tree's lookup branch, counted apart: no model drafted it."""
    if not copied:
        return drafted_text
    return _(TEXT["plus_copied"], drafted=drafted_text, copied=ngettext(
        "{n} token copied from the context", "{n} tokens copied from the context", copied))


def _drafted_and_copied(step: Step) -> tuple[int, int]:
    """The tokens a model drafted in the step and those its tree's lookup branch copied (0 for a chain)."""
    return step.n_drafted - step.n_copied, step.n_copied


def tree_nodes_text(step: Step) -> str:
    """A tree step's nodes as the step's headline counts them: "6 nodes plus 5 tokens copied from the context" (the
    lookup branch apart: `Step.n_drafted` counts its copies too, and no model drafted them)."""
    drafted, copied = _drafted_and_copied(step)
    nodes = ngettext("{n} node", "{n} nodes", drafted)  # its own call: the extractor skips one nested in _()
    return _with_copies(nodes, copied)


def kv_cache_html(step: Step) -> str:
    """The target's and the draft's KV caches before and after the step, with the rolled-back slots drawn.

    The target scores the last token plus K drafts in one forward, so its cache peaks at before + 1 + K and is
    then cut back to the accepted prefix: K − accepted slots are rolled back (a step that kept them all says nothing
    was, not "rolled back 0").
    """
    rows = []
    k = step.n_drafted  # a tree writes a slot for every node and every token its lookup branch copied
    peak = step.target_cache_before + (1 + k if step.decisions else 1)
    rows.append(_cache_row(_("Target"), step.target_cache_before, peak, step.target_cache_after))
    if step.draft_cache_before is not None and step.draft_cache_after is not None:
        rows.append(_cache_row(_("Draft"), step.draft_cache_before, None, step.draft_cache_after))
    rolled = peak - step.target_cache_after
    wrote = TEXT[("kv_tree" if step.tree is not None else "kv_wrote") + ("_all" if rolled == 0 else "")]
    if step.tree is not None and rolled and not step.n_accepted:  # nothing kept but the last token's entry
        wrote = TEXT["kv_tree_none"]
    drafted, copied = _drafted_and_copied(step)  # read 49: "the last token and 10 tree nodes" counted 4 copies
    counts = dict(drafts=ngettext("{n} draft", "{n} drafts", k),
                  nodes=_with_copies(ngettext("{n} tree node", "{n} tree nodes", drafted), copied))
    written = peak - step.target_cache_before
    note = (_(wrote, wrote=written, kept=written - rolled, rolled=rolled, **counts) if step.decisions
            else _(TEXT["kv_one"]))
    if len(rows) > 1:  # read 45: the draft's net growth was drawn as "written and kept", an EAGLE drafter's last
        eagle = step.tree is None and step.proposer == "eagle"  # drafts included, which its next step drops
        note += " " + _(TEXT["kv_draft_eagle" if eagle else "kv_draft"])
    note = escape_text(note, whitespace=False)
    return f'<div style="font-size:0.95rem">{"".join(rows)}<div style="color:#444;margin-top:4px">{note}</div></div>'


MAX_CELLS = 40  # slots drawn one by one; a longer run is drawn as one cell with its count


def _cache_row(name: str, before: int, peak: int | None, after: int) -> str:
    """One cache's row. With no `peak` (the draft's: only its length before and after is recorded), the cells are
    its net change, not slots written and kept or rolled back."""
    cells = [_cell(_("{n} cached before the step", n=number(before, 0)))] if before else []
    kept, rolled = after - before, (peak - after if peak is not None and peak > after else 0)
    net = peak is None
    cells += _cells(max(kept, 0), "grew" if net else "kept", TokenKind.ACCEPTED)
    cells += _cells(rolled, "rolled_back_after_writing", TokenKind.REJECTED)
    cells += _cells(max(-kept, 0), "shrank" if net else "rolled_back", TokenKind.REJECTED)
    shown = {"before": number(before, 0), "after": number(after, 0)}  # 1,234 (1.234 in Portuguese), as counts are
    summary = (_("{before} → {after} (peak {peak})", peak=number(peak, 0), **shown)
               if peak is not None and peak > after else "{before} → {after}".format(**shown))
    # the name's box grows with it: "Rascunho" (pt) at 600 weight is wider than 60 px and ran into the numbers
    return (f'<div style="margin:3px 0"><span style="display:inline-block;min-width:60px;padding-right:0.4em;'
            f'font-weight:600">'
            f'{escape_text(name, whitespace=False)}</span> '  # a space: read and copied as "Target 69 → 71"
            f'<span style="display:inline-block;min-width:190px;margin-right:8px;white-space:nowrap;'
            f'font-family:monospace">{summary}</span> '
            f'{"".join(cells)}</div>')


def _cells(n: int, what: str, kind: TokenKind) -> list[str]:
    """n slots of one kind (`what`: "kept", "rolled_back_after_writing" or "rolled_back"; a net change, "grew" or
    "shrank"): one cell each, or (past MAX_CELLS) a single wide cell that says how many."""
    if n <= MAX_CELLS:
        tip = {"kept": _("written and kept"), "rolled_back_after_writing": _("written, then rolled back"),
               "rolled_back": _("rolled back"), "grew": _("one slot more after the step than before (net)"),
               "shrank": _("one slot fewer after the step than before (net)")}[what]
        return [_cell(tip, kind)] * n
    count = number(n, 0)
    tip = {"kept": ngettext("{count} slot written and kept", "{count} slots written and kept", n, count=count),
           "rolled_back_after_writing": ngettext("{count} slot written, then rolled back",
                                                 "{count} slots written, then rolled back", n, count=count),
           "rolled_back": ngettext("{count} slot rolled back", "{count} slots rolled back", n, count=count),
           "grew": ngettext("{count} slot more after the step than before (net)",
                            "{count} slots more after the step than before (net)", n, count=count),
           "shrank": ngettext("{count} slot fewer after the step than before (net)",
                              "{count} slots fewer after the step than before (net)", n, count=count)}[what]
    return [_cell(tip, kind, label=f"×{count}")]


def _cell(tip: str, kind: TokenKind | None = None, label: str = "") -> str:
    """One cache slot: grey when it was there before the step, else coloured (and marked ✗) like the token kind."""
    fill, border, ink, strike = ("#D9D9D9", "#9A9A9A", "#222222", False) if kind is None else \
        (style(kind).background, style(kind).color, style(kind).text_color, style(kind).strike)
    mark = label or ("✗" if strike else "&nbsp;")  # in the kind's text colour: at 11 px it needs 4.5:1
    width = "min-width:18px;padding:0 4px" if label else "width:18px"
    return (f'<span title="{escape_attr(tip)}" style="display:inline-block;{width};height:18px;margin-right:2px;'
            f'vertical-align:middle;background:{fill};border:1.5px solid {border};border-radius:3px;font-size:11px;'
            f'text-align:center;line-height:16px;color:{ink}">{mark}</span>')


# ---- streamlit rendering --------------------------------------------------------------------------------------


def render_step(step: Step, *, key: str, stop: str = "", greedy: bool = False) -> None:
    """The full panel for one revealed step: headline, drafted and emitted chips, the verdict overview next to the
    correction, one draft in detail (chosen with a segmented control) next to its coin flip, and the KV caches.
    `key` prefixes every widget key; `stop` is the trace's stop reason when this is its last step; `greedy`: the
    run's temperature was 0 (`Trace.greedy`: a tree node's or an emitted token's p of 1 is a point mass)."""
    st.markdown(_("##### Step {n} · {headline}", n=step.index + 1, headline=step_headline(step, stop)))
    drew_tree = step.tree is not None and bool(step.tree.nodes)  # a tree step with no node left to draft is a chain
    if step.proposer == "medusa" and step.decisions:
        st.caption(_(TEXT["medusa_tree"] if drew_tree else TEXT["medusa_chain"]))
    if drew_tree:
        render_tree(step, key=key, greedy=greedy)
    left, right = st.columns(2)
    with left:
        st.caption(_(TREE_TEXT["main_line"]) if drew_tree else
                   _("Drafted (hover a chip for p, q, p/q, min(1, p/q) and u)"))
        st.html(f"<div>{decision_chips(step)}</div>")
    with right:
        st.caption(_("Added to the output"))
        st.html(f"<div>{emitted_chips(step, greedy=greedy)}</div>")
    left, right = st.columns(2)
    if step.decisions:
        show(verdict_overview_figure(step), f"{key}_overview_{step.index}", left,
             table=verdict_overview_table(step))
    fig = correction_figure(step)
    if fig is not None:
        show(fig, f"{key}_correction_{step.index}", right if step.decisions else left,
             table=correction_table(step))
    if step.decisions:
        shown = len(step.decisions)  # a tree's main line: its accepted path and the child rejected below it
        deciding = step.n_accepted if step.n_accepted < shown else shown - 1
        # a tree's main line: its nodes' numbers in the tree, as drawn above, and the nodes (a point mass's q)
        numbers, nodes = main_line_view(step)
        chosen = st.segmented_control(
            look_closely_label(nodes), list(range(shown)), default=deciding, required=True,
            key=f"{key}_position_{step.index}",
            format_func=lambda i: f"#{numbers[i]} {style(decision_kind(step.decisions[i])).glyph} "
                                  f"{escape_label(step.decisions[i].text)}",
        )
        at = chosen if chosen is not None else deciding
        d = step.decisions[at]
        left, right = st.columns(2)
        show(distribution_figure(d, number=numbers[at], node=nodes[at]), f"{key}_dist_{step.index}", left,
             table=distribution_table(d, node=nodes[at]))
        with right:
            show(accept_strip_figure(d, tree=drew_tree, node=nodes[at]), f"{key}_strip_{step.index}",
                 table=accept_strip_table(d, tree=drew_tree, node=nodes[at]))
            st.markdown(_position_sentence(d, tree=drew_tree, node=nodes[at], copied=registry.copies(step.proposer)))
            _kv_box(step)
    else:
        with right:
            _kv_box(step)


def _mass_or(written: str, mass: bool) -> str:
    """A p or q as a step sentence writes it: "1 (point mass)" where it is one (`point_mass_text`), else as written."""
    return point_mass_text() if mass else written


def look_closely_label(nodes: list[TreeNode | None]) -> str:
    """The label of the control that picks one main-line token (`main_line_nodes`) for a closer look: a main line that
    runs into a tree's lookup branch offered its copies as drafts (read 49), though no model drafted them."""
    if any(node is not None and node.copied for node in nodes):
        return _("Look closely at a drafted or copied token")
    return _("Look closely at draft")


def _kv_box(step: Step) -> None:
    with st.container(border=True):
        st.caption(_(TEXT["kv_title"], most=number(MAX_CELLS, 0)))
        st.html(kv_cache_html(step))


def _position_sentence(d: Decision, tree: bool = False, node: TreeNode | None = None, copied: bool = False) -> str:
    """What happened at one drafted position, in words (numbers only: safe as markdown). A `tree` step's main-line
    node was tested with min(1, p′/q′) (`specviz.engine.tree_verifier`), not with the chain's min(1, p/q). `node`:
    its tree node, whose q the rule may take as a point mass; the chance and u then have the chip's decimals (Read
    48: decimals chosen with the draft's q wrote 0.0420 here beside 0.042 in the chip). A child tried after a
    rejected sibling (`uses_residuals`) is told with the p′, q′ and p′/q′ the rule compared, and its p and q before;
    one the trace records was tested on its own p and q (`tested_on_own_probs`: a first child) with those. `copied`:
    the chain's proposer copies its tokens from the context (`registry.copies`), so a q of 1 is no model's."""
    if not d.reached:
        return _("**Not reached.** An earlier draft was rejected, and every draft after a rejection is thrown away "
                 "untested: no u was drawn for this one.")
    shown = decision_numbers(d, node)  # one number of decimals (read 47); p, q more if p/q needs (read 52)
    chance, u = shown.chance, shown.u  # never "u = 1.000 fell inside" a chance of 1.000 read as false
    if tree:
        # read 52: the rule was told as p′ "what p leaves once the siblings tried before it were rejected", of a first
        # child too, which met p and q themselves: the rule now covers both, and the next sentence says which it met
        rule = _("In a tree the target tests each child, drafted or copied, with min(1, p′/q′), where p′ and q′ are "
                 "p and q at its parent as the siblings tried before it left them: the first child tried meets p and "
                 "q themselves; after each rejected sibling, p′ is the residual it left (rescaled to add up to 1) and "
                 "q′ the draft's q without it. q′ is a point mass for a child taken from the draft's top tokens, not "
                 "drawn from q, or copied from the context.")
    # read 54: a point mass reads "1 (point mass)" here too, as in the tree's table beside it ("q′ = q = 1" of a
    # greedy or copied child, where the table wrote "1 (point mass)")
    p_mass, q_mass = point_mass_pq(d, node) if tree else (False, False)
    if tree and uses_residuals(node):  # read 50: the numbers the rule compared, not only the chance they gave
        before = shown_numbers(d.target_prob, node.rule_draft_prob, None, None)  # the rule's q: 1 for a point mass
        p0_mass = d.target_prob == 1.0 and recorded_point_mass(d.target_prob, d.target_top, d.token_id)
        why = rule + " " + _("This token was tried after a rejected sibling: p′ = {p} and q′ = {q}, where p = {p0} "
                             "and q = {q0} before those rejections, so p′/q′ = {ratio} and it was kept with "
                             "probability {chance}.", p=_mass_or(shown.p, p_mass), q=_mass_or(shown.q, q_mass),
                             p0=_mass_or(before.p, p0_mass), q0=_mass_or(before.q, rule_point_mass(node)),
                             ratio=shown.ratio, chance=chance)
    elif tree and tested_on_own_probs(node):
        why = rule + " " + _("No sibling before this token changed p and q, so it met p′ = p = {p} and q′ = q = "
                             "{q}: p/q = {ratio}, and it was kept with probability min(1, p/q) = {chance}.",
                             p=_mass_or(shown.p, p_mass), q=_mass_or(shown.q, q_mass), ratio=shown.ratio,
                             chance=chance)
    elif tree:  # a trace written before p′, q′ were recorded, or no node: the chance alone
        why = rule + " " + _("It was kept with probability {chance}.", chance=chance)
    if tree:
        outcome = (_("u = {u} fell inside, so it was **accepted ✓**.", u=u) if d.accepted else
                   _("u = {u} fell outside, so it was **rejected ✗**: the next sibling, if there is one, is tried "
                     "against the residual this one left, and a recovered token comes only once every child was "
                     "rejected.", u=u))
        return f"{why} {outcome}"
    p, q = shown.p, shown.q  # read 44: "p = 1.000 < q = 1.000" for p = 0.9999985
    masses = point_mass_pq(d, node)
    if all(masses):  # read 53: "p = 1.000 ≥ q = 1.000: the target likes this token at least as
        # much as the draft" of a greedy lookup step, where both are point masses, written 1 as the tree's table does
        why = (_("p = {one} and q = {one}: the target puts all its probability on this token, and so does q, as on "
                 "every token a lookup copies (point masses), so p/q = {ratio} and it is always kept.",
                 one=POINT_MASS_Q, ratio=shown.ratio) if copied else
               _("p = {one} and q = {one}: the target and the draft both put all their probability on this token "
                 "(point masses), so p/q = {ratio} and it is always kept.", one=POINT_MASS_Q, ratio=shown.ratio))
    elif d.draft_prob > 0 and d.target_prob >= d.draft_prob:
        why = _("p = {p} ≥ q = {q}: the target likes this token at least as much as the draft, so it is always "
                "kept.", p=p, q=q)
    elif d.target_prob == 0:
        why = _("p = 0: the target would never write this token, so it can never be kept.")
    elif d.draft_prob == 0:  # read 50: "p = 0.154 < q = 0: the draft was over-confident ... p/q = ∞" (a trace
        # file may record q = 0, and `verifier.accept_probability` keeps such a token whenever p > 0)
        why = _("p = {p} > q = 0: the draft gave this token no probability, so p/q = ∞ and it is always kept.", p=p)
    elif masses[1] and not copied:  # read 52: a draft model's q = 1 (its top-p kept one token) read as a lookup's
        # copy. read 53: a q of exactly 1.0 beside other tokens in its top list (rounding) is no point mass
        # (`recorded_point_mass`): it was "(a point mass)" here, written "1.000" beside it; it reads as the rest do
        why = _("p = {p} < q = {q}: the draft put all its probability on this token (a point mass), so the token "
                "survives with probability p/q = {ratio}, p itself.", p=p, q=q, ratio=shown.ratio)
    elif d.draft_prob == 1.0 and copied:  # read 49: "over-confident" of an n-gram draft, whose q = 1 is no
        # confidence at all, and "the draft gave" of a tree's copied token, which no draft scored
        why = _("p = {p} < q = {q}: q puts all its probability on this token (a point mass, as every token a "
                "lookup copies is, not a confidence), so the token survives with probability p/q = {ratio}, p "
                "itself.", p=p, q=q, ratio=shown.ratio)
    else:
        # p/q < 1 to the decimals that tell it from 1: "p = 0.99999 < q = 1.00000 ... survives with probability
        # p/q = 1.000" read as always kept (read 46)
        ratio = shown.ratio
        why = _("p = {p} < q = {q}: the draft was over-confident, so the token survives with probability "
                "p/q = {ratio}.", p=p, q=q, ratio=ratio)
    outcome = (_("u = {u} fell inside, so it was **accepted ✓**.", u=u) if d.accepted else
               _("u = {u} fell outside, so it was **rejected ✗** and a replacement was drawn from {residual}.",
                 u=u, residual=_(TEXT["residual"])))
    return f"{why} {outcome}"


# read 49: it said "q′ loses the rejected token" of every child, but a child taken from the draft's top tokens or
# copied from the context is tested as a point mass (`verify_tree`'s `from_q`), and its rejection leaves q′ as it was
TREE_RULE_CAPTION = N_(
    "This trace's tree steps ran this function: a child drawn from q is tested with min(1, p′/q′), and after its "
    "rejection p′ becomes the residual norm(max(0, p′ − q′)) and q′ loses the rejected token, for the next sibling; "
    "a child taken from the draft's top tokens or copied from the context is a point mass, kept with probability "
    "p′(x), and its rejection only takes x out of p′ (the rest rescaled to add up to 1), leaving q′ as it was. The "
    "recovered token is drawn from the last p′, a bonus token from p after a kept leaf.")


def render_verifier_source(trace: Trace | None = None) -> None:
    """An expander with the exact verification rule the loop ran (specviz.engine.verifier.verify); when `trace`
    drafted trees, the tree rule its tree steps ran (specviz.engine.tree_verifier.verify_tree) instead."""
    if trace is not None and any(s.tree is not None and s.tree.nodes for s in trace.steps):
        with st.expander(_("The rule in code: specviz.engine.tree_verifier.verify_tree")):
            st.code(inspect.getsource(tree_verifier.verify_tree), language="python")
            st.caption(_(TREE_RULE_CAPTION))
        return
    with st.expander(_("The rule in code: specviz.engine.verifier.verify")):
        st.code(inspect.getsource(verifier.verify), language="python")
        st.caption(_("The same function runs in every step above; `accept_probability` is min(1, p/q) and "
                     "`residual_distribution` is norm(max(0, p − q))."))


# The headline's labels (English messages, keys of `trace_headline`; `_()` translates them where they are shown).
HEADLINE_LABELS = (N_("Tokens"), N_("Target passes"), N_("Mean accepted length"), N_("Drafts accepted"))


def trace_headline(trace: Trace) -> dict[str, str]:
    """The headline numbers of a trace, formatted for people (keyed by the English labels). "Drafts accepted" counts
    drafts only: the tokens a tree's lookup branch copied from the context are no drafts (read 44: they were
    counted in both numbers), and `headline_help` says how many of those were kept."""
    drafted, kept = trace.drafts_only()
    return {
        "Tokens": number(trace.num_tokens, 0),  # 1,234 (1.234 in Portuguese), as counts are written
        "Target passes": number(trace.num_steps, 0),
        "Mean accepted length": fmt(trace.mean_accepted_length, 2),
        "Drafts accepted": (_("{kept} of {drafted}", kept=number(kept, 0), drafted=number(drafted, 0))
                            if drafted else "–"),
    }


def headline_help(trace: Trace, label: str) -> str | None:
    """The translated help of a headline number (`HEADLINE_HELP`), with this trace's copied tokens for "Drafts
    accepted" when its tree had a lookup branch."""
    help_text = HEADLINE_HELP.get(label)
    if help_text is None:
        return None
    if label == "Drafts accepted" and trace.num_copied:
        copied = ngettext("{n} token", "{n} tokens", trace.num_copied)  # its own call: the extractor skips a nested one
        return " ".join((_(help_text), _("This run's lookup branch copied {copied}; the target kept {kept}.",
                                         copied=copied, kept=number(trace.num_copied_accepted, 0))))
    return _(help_text)


HEADLINE_HELP = {
    "Target passes": N_("Forward passes of the target, one per step, not counting the pass over the prompt that "
                        "plain decoding makes first too. Plain decoding needs one pass per token."),
    "Mean accepted length": N_("Tokens added per target pass, averaged over the steps, the recovered or bonus token "
                               "included. Plain decoding: 1."),
    # read 55: the n-gram lookup proposer's copies count as drafts ("Drafts accepted 4 of 28"), a tree's lookup branch's
    # do not (accepted / (drafted + copied)); the help said only the second, so the first read as a contradiction
    "Drafts accepted": N_("Drafted tokens the target accepted, of all the proposer drafted. The n-gram lookup "
                          "proposer drafts by copying tokens from the text: those are its drafts and count here. The "
                          "tokens a tree's lookup branch copies from the context are not drafts: they are counted "
                          "apart, not here."),
}


def settings_line(trace: Trace) -> str:
    """The settings that made the trace, in one line of plain text (escape it before rendering as HTML)."""
    s, m = trace.settings, trace.meta
    pair = {"default": "SmolLM2-135M-Instruct", "toy": _("toy pair")}.get(str(m.get("pair", "")),
                                                                        m.get("pair", "?"))
    proposer = str(s.get("proposer", m.get("proposer", "?")))  # its menu's name, not the key (read 47)
    parts = [_("models: {pair}", pair=pair), _("proposer: {proposer}", proposer=registry.menu_label(proposer))]
    threshold, policy = s.get("threshold"), s.get("policy")
    drafted = policy_k_range(trace)  # the optimal policy's: it picks each step's K, ignoring the setting
    if s.get("k") is not None and policy != "optimal":
        parts.append(f"K = {s['k']}")
    if isinstance(threshold, (int, float)) and not isinstance(threshold, bool) and threshold > 0:
        parts.append(_(TEXT["policy_threshold"], threshold=_setting(float(threshold))))
    elif drafted is not None:
        parts.append(_(TEXT["policy_optimal_range"], low=drafted[0], high=drafted[1]) if drafted[0] < drafted[1] else
                     _(TEXT["policy_optimal_one"], k=drafted[0]))
    elif policy == "threshold" and threshold == 0 and not isinstance(threshold, bool):
        parts.append(_(TEXT["policy_threshold_zero"]))
    elif policy == "heuristic":
        steps = heuristic_steps(trace)
        parts.append(_(TEXT["policy_heuristic"], k=s.get("k", "?"), grow=steps[0], shrink=steps[1]) if steps else
                     _(TEXT["policy_heuristic_unknown"], k=s.get("k", "?")))
    elif policy in ("threshold", "optimal"):
        parts.append(_(TEXT["policy_threshold_unknown" if policy == "threshold" else f"policy_{policy}"],
                       k=s.get("k", "?")))
    if s.get("tree_nodes"):
        nodes, width, lookup = s["tree_nodes"], s.get("tree_width", "?"), s.get("tree_lookup")
        parts.append(_("a draft tree of up to {nodes}, at most {children} each",  # "1 node", "1 child" agree
                       nodes=ngettext("{n} node", "{n} nodes", nodes) if is_whole(nodes) else str(nodes),
                       children=ngettext("{n} child", "{n} children", width) if is_whole(width) else str(width)))
        if lookup:
            parts.append(_("a lookup branch of up to {tokens} copied from the context",
                           tokens=ngettext("{n} token", "{n} tokens", lookup) if is_whole(lookup) else str(lookup)))
    greedy = s.get("temperature") == 0  # read 51: a greedy chip's "p (target) = 0" read as the target's softmax
    parts += [_("temperature = 0 (greedy: p and q are point masses, 1 on each model's top token and 0 elsewhere)")
              if greedy else _("temperature = {value}", value=_setting(s.get("temperature", "?"))),
              _("top-k = {value}", value=s.get("top_k", 0) or _("off")),
              _("top-p = {value}", value=_setting(s.get("top_p", 1.0))), _("seed = {value}", value=s.get("seed", "?")),
              _("max new tokens = {value}", value=_count_setting(s.get("max_new_tokens", "?"))),
              dtype_text(m.get("dtype"))]
    return " · ".join(str(p) for p in parts)


def dtype_text(dtype: object) -> str:
    """The dtype a run computed in, with what it means for exactness: the rule is exact, the arithmetic is not.
    float32 rounds finely enough that greedy output matched target-only decoding on every committed held-out prompt
    (an observation, not a proof); bfloat16 (and float16) are lossless only up to numerics (a K+1-token forward
    rounds differently from a one-token forward, so a near-tie can flip and a greedy run can part from target-only
    decoding)."""
    if dtype == "float32":
        return _("float32 (fine rounding: a near-tie rarely flips)")
    if dtype in ("bfloat16", "float16"):
        return _("{dtype} (lossless only up to rounding: a near-tie can flip)", dtype=dtype)
    return _("dtype not recorded")


def _count_setting(value: object) -> str:
    """A count setting as the reader groups digits (2,048; 2.048 in Portuguese); anything else as it is."""
    return number(value, 0) if is_whole(value) else str(value)


def _setting(value: object) -> str:
    """A setting's value as the reader writes numbers (0,7 in Portuguese)."""
    text = str(value)
    return localized(text) if isinstance(value, float) else text


def trace_summary(trace: Trace) -> None:
    """Headline metrics, the settings line and the prompt (escaped) above the player."""
    for col, (label, value) in zip(st.columns(4), trace_headline(trace).items()):
        col.metric(_(label), value, help=headline_help(trace, label))
    st.caption(escape_text(settings_line(trace), whitespace=False))
    with st.expander(prompt_label(trace)):
        st.html(text_html(trace.prompt_text or str(trace.meta.get("prompt", ""))))


def prompt_label(trace: Trace) -> str:
    """What the prompt under the summary is. A trace's prompt text is decoded without special tokens
    (`specviz.engine.generation.TokenTexts.text`), so a chat run's shows the template's words (system, user,
    assistant) but not its control tokens (<|im_start|>, <|im_end|>), which the model did read: "as the model saw
    it" said otherwise (read 44). A trace with no prompt text shows the prompt as typed. The toy pair reads every
    character outside its alphabet (a capital, a colon, a newline) as <unk>, a special token the text leaves out:
    "as the model saw it" over "opy this" hid the <unk> the model read for "C" (read 48)."""
    if not trace.prompt_text:
        return _("Prompt (as typed)")
    if trace.meta.get("chat"):
        return _("Prompt as the model read it, without the chat template's control tokens")
    unknown = trace.prompt_ids.count(TOY_UNK_ID) if trace.meta.get("pair") == "toy" else 0
    if unknown:
        return ngettext("Prompt as the model read it, without the {n} `<unk>` token it read for a character outside "
                        "the toy pair's alphabet",
                        "Prompt as the model read it, without the {n} `<unk>` tokens it read for characters outside "
                        "the toy pair's alphabet", unknown)
    return _("Prompt (as the model saw it)")
