"""The record of one generation: every speculation step, every decision, every timing.

A `Trace` is what the engine returns and what the app, the bench and the quizzes read. It is plain data
(dataclasses of numbers and strings) so it round-trips through JSON exactly; `SCHEMA_VERSION` names its shape.

Vocabulary (used everywhere in specviz; accepted, recovered and bonus are vLLM's words, target is specviz's):
  accepted   a drafted token the verifier kept
  rejected   a drafted token the verifier dropped (the first rejection, and every draft after it)
  recovered  the token sampled from norm(max(0, p - q)) at the first rejection; in a tree, once every child of
             the last accepted node was rejected, from the residual those rejections left
  bonus      the token sampled from p after every token a chain step drafted was accepted (K, or fewer where a
             proposal was shorter); in a tree, once the accepted path reached a node with no children
  target     a token sampled from p with nothing drafted before it, one per target forward: every token of
             target-only decoding (the baseline), and the token of a speculative step that drafted nothing (an
             n-gram lookup with no match, a draft-length policy's K of 0 or a draft already below the threshold
             policy's confidence at its first token, or the last token of a run, with no room left to draft)
p is the target's distribution, q the draft's, both after temperature / top-k / top-p.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from specviz.core.i18n import _
from specviz.core.text import shortened
from specviz.engine.kinds import Mode, NodeStatus, StopReason, TokenKind
from specviz.engine.limits import is_whole
from specviz.engine.trace_schema import check_has_steps, check_trace_dict, check_trace_size

SCHEMA_VERSION = 1


TOKEN_KINDS = tuple(TokenKind)


@dataclass
class TokenProb:
    """One bar of a top-k chart: a token and its probability."""

    token_id: int
    text: str
    prob: float


@dataclass
class Decision:
    """The verifier's verdict on one drafted token (position `position` of the step, 0-based).

    `reached` is False for drafts after the first rejection: they were never tested, so `uniform` is None.
    `ratio` is p/q (math.inf when q = 0). `accept_prob` is the chance the rule kept the draft with: min(1, p/q) in
    a chain under the exact rule (and for every draft not reached); on a tree step's main line min(1, p′/q′), after
    the siblings tried before it (p′(x) for a top-k or copied child), so not min(1, ratio); a broken rule's own.
    """

    position: int
    token_id: int
    text: str
    draft_prob: float
    target_prob: float
    ratio: float
    accept_prob: float
    uniform: float | None
    accepted: bool
    reached: bool
    target_top: list[TokenProb] = field(default_factory=list)
    draft_top: list[TokenProb] = field(default_factory=list)

    @property
    def kind(self) -> TokenKind:
        return TokenKind.ACCEPTED if self.accepted else TokenKind.REJECTED


@dataclass
class EmittedToken:
    """A token that became part of the output, with the kind that says where it came from."""

    token_id: int
    text: str
    kind: TokenKind
    target_prob: float | None = None
    draft_prob: float | None = None
    uniform: float | None = None


@dataclass
class TreeNode:
    """One node of a step's draft tree: its token, its parent (-1 = the root, the context's last token) and depth,
    q(x) it was drafted with, p(x) at its parent, and the verdict: `status` is accepted, rejected or not reached.
    `uniform` and `accept_prob` (min(1, p'/q'), with the residuals left by the siblings tried before it) exist only
    for tested nodes."""

    token_id: int
    text: str
    parent: int
    depth: int
    draft_prob: float
    target_prob: float
    status: NodeStatus | str  # accepted, rejected or not reached
    uniform: float | None = None
    accept_prob: float | None = None
    copied: bool = False  # copied from the context by prompt lookup, not drafted: q is a point mass
    # the rule tests it against a point mass q' = δ_x (a copied node, or a child not drawn from q: a greedy or top-k
    # tree), so keeps it with p'(x); `draft_prob` stays the q(x) the draft gave x, which the rule then does not use
    point_mass: bool = False
    # p'(x) and q'(x) that `accept_prob` compared (tested nodes only; None in traces written before read 49): the
    # residuals the siblings tried before it left, so p(x) and `rule_draft_prob` for the first child tried
    target_prob_used: float | None = None
    draft_prob_used: float | None = None

    @property
    def rule_draft_prob(self) -> float:
        """The q(x) the tree rule compared this node with: 1 for a point mass, else the draft's q(x)."""
        return 1.0 if rule_point_mass(self) else self.draft_prob


def rule_point_mass(node: TreeNode | None) -> bool:
    """Whether the tree rule tests this node against a point mass q′ = δ_x whatever the draft gave it: a node copied
    from the context (prompt lookup) or a child not drawn from q (a top-k or greedy tree's). The one test of it: the
    CLI, the hovers, tables and figures all ask here (read 48: five copies of `point_mass or copied`)."""
    return node is not None and (node.point_mass or node.copied)


def recorded_point_mass(prob: float, top: list[TokenProb], token_id: int) -> bool:
    """Whether a distribution a trace recorded puts all its probability on `token_id`: probability exactly 1 there
    and no other token in its top list, which leaves out only tokens of probability 0 (`generation.top_tokens`). Every
    greedy (T = 0) p and q is one (`sampling`: a point mass on the argmax), and so is n-gram lookup's q at any
    temperature; a p of 1.0 beside nine other tokens (rounding: smollm-draft-t07) is not. An empty list (not
    recorded) says nothing.

    >>> one = [TokenProb(7, "a", 1.0)]
    >>> recorded_point_mass(1.0, one, 7), recorded_point_mass(1.0, one + [TokenProb(8, "b", 1e-9)], 7)
    (True, False)
    >>> recorded_point_mass(1.0, [], 7), recorded_point_mass(0.0, [], 7)
    (False, False)
    """
    return prob == 1.0 and [t.token_id for t in top] == [token_id]


def point_mass_pq(d: Decision, node: TreeNode | None = None) -> tuple[bool, bool]:
    """Whether the p and the q the rule compared for drafted token `d` are point masses on it, each written "1" (read
    53: a lookup chain step's q read "1.000" in the hover, the overview table and the step's sentence, and a greedy
    p = 1 "1.000", where the tree's table wrote "1 (point mass)"). q: a tree node the rule tests against a point
    mass (`rule_point_mass`) or a recorded one (`recorded_point_mass`: a copy, a greedy draft); p: a recorded one,
    also as p′ after a rejected sibling where p′(x) stayed 1 (`uses_residuals`).

    >>> one = [TokenProb(7, "a", 1.0)]
    >>> point_mass_pq(Decision(0, 7, "a", 1.0, 1.0, 1.0, 1.0, 0.5, True, True, one, one))
    (True, True)
    >>> point_mass_pq(Decision(0, 7, "a", 1.0, 0.4, 0.4, 0.4, 0.5, True, True, [], one))
    (False, True)
    """
    p_used = node.target_prob_used if uses_residuals(node) else d.target_prob
    q_used = node.draft_prob_used if uses_residuals(node) else d.draft_prob
    return (p_used == 1.0 and recorded_point_mass(d.target_prob, d.target_top, d.token_id),
            rule_point_mass(node) or (q_used == 1.0 and recorded_point_mass(d.draft_prob, d.draft_top, d.token_id)))


def uses_residuals(node: TreeNode | None) -> bool:
    """Whether the rule tested this node against p′(x), q′(x) other than p(x) and its q: a child tried after a
    rejected sibling, whose residuals the trace records (one written before read 49 does not). The CLI's step
    lines, the tree's hovers and table then show p′, q′ and p′/q′ (read 49: "p/q=1.318" beside a chance of 0.771)."""
    return (node is not None and node.target_prob_used is not None and node.draft_prob_used is not None
            and (node.target_prob_used, node.draft_prob_used) != (node.target_prob, node.rule_draft_prob))


def tested_on_own_probs(node: TreeNode | None) -> bool:
    """Whether the trace records that the rule tested this node against its own p(x) and q(x): a first child, or
    one whose residuals equal them. False where the rule used residuals (`uses_residuals`) or the trace does not say
    (written before p′, q′ were recorded); the hovers then name min(1, p′/q′) "after the siblings tried before it"."""
    return node is not None and node.target_prob_used is not None and not uses_residuals(node)


tested_on_own_probs.__test__ = False  # its name starts with "test": `pytest specviz/engine/trace.py` took it for one


def p_over_q(target_prob: float | None, draft_prob: float | None) -> float | None:
    """p/q as every place that shows it writes it: ∞ where q = 0 < p, None (no value: "–", or "-" in the CLI) where
    p = q = 0 or a trace file left p or q out. `Decision.ratio` stores inf for 0/0 as well (the trace schema checks
    it so); read 51: a chain's hover wrote that 0/0 as "p/q = ∞" where the tree's table wrote "–". Only an uploaded
    trace holds p = q = 0.

    >>> p_over_q(0.2, 0.5), p_over_q(0.2, 0.0), p_over_q(0.0, 0.0), p_over_q(None, 0.5), p_over_q(0.2, None)
    (0.4, inf, None, None, None)
    """
    if target_prob is None or draft_prob is None:
        return None
    if draft_prob > 0:
        return target_prob / draft_prob
    return math.inf if target_prob > 0 else None


@dataclass
class TreeRecord:
    """A tree step's whole draft tree (nodes parents first) and the accepted path (node indices, root first)."""

    nodes: list[TreeNode]
    path: list[int]


@dataclass
class Step:
    """One round of propose -> verify -> accept/reject -> correct (or one target forward in the baseline).

    `correction_top` is the top of the distribution the recovered or bonus token was sampled from: the residual
    norm(max(0, p - q)) after a rejection (in a tree, the residual every rejected child of the last accepted node
    left), p after all drafts were accepted. `emitted` is what this step added to the output, already cut at EOS
    and at max_new_tokens.

    A tree step (`tree_nodes` > 0) keeps its whole tree in `tree`; `decisions` are then its main line, the accepted
    path and the first child rejected below it. Chain steps have no tree (and their JSON no `tree` key).
    """

    index: int
    context_length: int
    k: int  # a chain's drafts; a tree step's main line (`decisions`), not its depth (`draft_depth`)
    proposer: str
    decisions: list[Decision]
    emitted: list[EmittedToken]
    correction_kind: TokenKind | None = None
    correction_top: list[TokenProb] = field(default_factory=list)
    target_cache_before: int = 0
    target_cache_after: int = 0
    draft_cache_before: int | None = None
    draft_cache_after: int | None = None
    draft_seconds: float = 0.0
    verify_seconds: float = 0.0
    overhead_seconds: float = 0.0
    tree: TreeRecord | None = None

    def main_line(self) -> list[int]:
        """A tree step's `decisions` as node indices of its tree: the accepted path, then the first child of its
        last node that the rule rejected (`specviz.engine.decoding.main_line`; children are tried in the order
        drafted). [] for a chain step, or a record whose tree does not line up with its decisions."""
        if self.tree is None or not self.tree.nodes:
            return []
        line = list(self.tree.path)
        below = line[-1] if line else -1  # the root
        line += [j for j, node in enumerate(self.tree.nodes)
                 if node.parent == below and node.status == NodeStatus.REJECTED][:1]
        return line if len(line) == len(self.decisions) else []

    @property
    def n_drafted(self) -> int:
        """Tokens proposed for the target to check: K for a chain; for a tree every node (a drafted token) and every
        token its lookup branch copied (`n_copied`; what users read names the two apart, "drafted + copied"),
        whether or not the verifier reached them (a tree's `decisions` hold only its main line). A tree's
        accepted / drafted therefore counts many nodes nothing tested: it is no estimate of α and need not sit
        below it (a copied lookup branch can keep tokens that the drafter's own children miss)."""
        if self.tree is not None:
            return len(self.tree.nodes)
        return len(self.decisions)

    @property
    def n_accepted(self) -> int:
        return sum(d.accepted for d in self.decisions)

    @property
    def n_copied(self) -> int:
        """Of `n_drafted`, the tokens a tree's lookup branch copied from the context (no model drafted them); 0 for
        a chain."""
        return sum(node.copied for node in self.tree.nodes) if self.tree is not None else 0

    @property
    def n_copied_accepted(self) -> int:
        """Of `n_accepted`, the copied ones: lookup-branch nodes on the accepted path (0 for a chain)."""
        return sum(self.tree.nodes[i].copied for i in self.tree.path) if self.tree is not None else 0

    @property
    def draft_depth(self) -> int:
        """How many tokens ahead the draft reached: K for a chain, the deepest node for a tree (whose `decisions`
        stop at the first rejection, so their count is not how far it drafted)."""
        if self.tree is not None and self.tree.nodes:
            return max(node.depth for node in self.tree.nodes)
        return self.n_drafted

    @property
    def seconds(self) -> float:
        return self.draft_seconds + self.verify_seconds + self.overhead_seconds


@dataclass
class Trace:
    """A whole generation. `output_ids` holds the new tokens only."""

    mode: Mode | str  # Mode.SPECULATIVE or Mode.AUTOREGRESSIVE
    settings: dict[str, Any]
    prompt_ids: list[int]
    output_ids: list[int]
    steps: list[Step]
    prompt_text: str = ""
    output_text: str = ""
    stop_reason: StopReason | Literal[""] = ""  # "" while the generation goes on
    prefill_seconds: float = 0.0
    wall_seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    @property
    def greedy(self) -> bool:
        """Whether the run sampled at temperature 0: every p and q is then a point mass on its model's top token
        (`sampling`), so a p or q of 1 is one, written "1 (point mass)" in hovers and tables (read 53: a tree node's
        and a recovered or bonus token's p = 1 read "1.000"; neither records a top list that would say so)."""
        return self.settings.get("temperature") == 0

    # ---- totals -------------------------------------------------------------------------------------------
    @property
    def num_steps(self) -> int:
        return len(self.steps)

    @property
    def num_tokens(self) -> int:
        return len(self.output_ids)

    @property
    def num_drafted(self) -> int:
        """Drafted and copied tokens over the steps (`Step.n_drafted`); `drafts_only` leaves the copies out."""
        return sum(s.n_drafted for s in self.steps)

    @property
    def num_accepted(self) -> int:
        return sum(s.n_accepted for s in self.steps)

    @property
    def num_copied(self) -> int:
        """Of `num_drafted`, the tokens tree lookup branches copied from the context (`Step.n_copied`)."""
        return sum(s.n_copied for s in self.steps)

    @property
    def num_copied_accepted(self) -> int:
        """Of `num_accepted`, the copied tokens the target kept (`Step.n_copied_accepted`)."""
        return sum(s.n_copied_accepted for s in self.steps)

    def drafts_only(self) -> tuple[int, int]:
        """(drafted, kept) counting model drafts only: `num_drafted` and `num_accepted` less the tokens a tree's
        lookup branch copied from the context (no model drafted those). The Playground's "Drafts accepted", its
        preset note and the CLI's rarely-right hint count these."""
        return self.num_drafted - self.num_copied, self.num_accepted - self.num_copied_accepted

    @property
    def acceptance_rate(self) -> float:
        """Accepted / drafted tokens (what vLLM reports as acceptance rate); nan when nothing was drafted."""
        return self.num_accepted / self.num_drafted if self.num_drafted else math.nan

    @property
    def mean_accept_prob(self) -> float:
        """Mean of min(1, p(x)/q(x)) over the drafts the verifier tested (`reached`); nan when none was tested.

        An estimate of the acceptance probability α = E[Σ min(p, q)]: for x drawn from q, min(1, p(x)/q(x)) has
        expectation Σ min(p, q) at its position. It is taken only over the positions reached (a draft after a step's
        first rejection is never tested and does not count), so it estimates α there, not over all K positions.
        A tree step's terms are its main line's (`decisions`: the accepted path and the first child rejected below
        it) and are min(1, p'(x)/q'(x)): p' is the residual of p after the siblings tried before the child and q' the
        draft without those siblings (p and q for the first child tried), or a point mass for a deterministic or
        copied child. A tree trace's mean is therefore not an estimate of α, unless every tree was a chain
        (`mean_estimates_alpha`).
        """
        probs = [d.accept_prob for s in self.steps for d in s.decisions if d.reached]
        return sum(probs) / len(probs) if probs else math.nan

    @property
    def mean_estimates_alpha(self) -> bool:
        """Whether `mean_accept_prob` estimates α as a chain's does: True for a chain trace, and for a tree trace
        whose every tree was a chain of drafted nodes (no node has a sibling, none was copied: `--tree-nodes 1`, or a
        width of 1, with no lookup branch). Each tested node is then the only child of its parent, drawn from q and
        tested against p and q themselves, never against a residual. Decided by the trees' shapes, which are drafted
        before the verifier draws, never by which nodes the verifier happened to reach: a wide tree whose later
        children were never tested only because every first child was kept would be a mean over kept drafts.
        """
        for step in self.steps:
            if step.tree is None:
                continue
            parents = [node.parent for node in step.tree.nodes]
            if len(set(parents)) < len(parents) or any(node.copied for node in step.tree.nodes):
                return False
        return True

    @property
    def mean_accepted_length(self) -> float:
        """Tokens emitted per target forward, bonus and recovered tokens included (Spec-Bench's #MAT)."""
        return self.num_tokens / self.num_steps if self.num_steps else math.nan

    @property
    def per_position_acceptance(self) -> list[float]:
        """Entry i: among steps that drafted at least i+1 tokens ahead, the share whose first i+1 drafts were all
        accepted (for a tree: whose accepted path reached depth i+1)."""
        k_max = max((s.draft_depth for s in self.steps), default=0)
        rates = []
        for i in range(k_max):
            drafted = [s for s in self.steps if s.draft_depth > i]
            rates.append(sum(s.n_accepted > i for s in drafted) / len(drafted))
        return rates

    @property
    def decode_seconds(self) -> float:
        return sum(s.seconds for s in self.steps)

    @property
    def tokens_per_second(self) -> float:
        return self.num_tokens / self.wall_seconds if self.wall_seconds > 0 else math.nan

    def summary(self) -> dict[str, float | int | str]:
        """The headline numbers, as printed by the CLI and shown by the app. "drafted" counts model drafts only and
        "copied" the tokens a tree's lookup branch copied, as the CLI's summary names them apart (read 49: "drafted"
        was 33 in the --json of a run whose printout said "6 / (30 + 3)"); acceptance_rate is accepted over both.
        "copied" is there only for a run with a lookup branch, so other traces are written as they were."""
        summary = {
            "mode": self.mode,
            "steps": self.num_steps,
            "tokens": self.num_tokens,
            "drafted": self.num_drafted - self.num_copied,
            "copied": self.num_copied,
            "accepted": self.num_accepted,
            "acceptance_rate": self.acceptance_rate,
            "mean_accept_prob": self.mean_accept_prob,
            "mean_accepted_length": self.mean_accepted_length,
            "wall_seconds": self.wall_seconds,
            "tokens_per_second": self.tokens_per_second,
            "stop_reason": self.stop_reason,
        }
        if not self.num_copied and "tree_lookup" not in self.settings:
            del summary["copied"]
        return summary

    # ---- JSON ---------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for step in data["steps"]:
            if step["tree"] is None:
                del step["tree"]  # chain traces stay as they were
            else:
                for node in step["tree"]["nodes"]:
                    for flag in ("copied", "point_mass"):
                        if not node[flag]:
                            del node[flag]  # trees without a lookup branch (or sampled ones) stay as they were
        data["summary"] = {k: _json_number(v) for k, v in self.summary().items()}
        return _encode_floats(data)

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trace:
        """Rebuild a trace from `to_dict` output. Anything the engine could not have written (a wrong schema, a
        field of the wrong type, sizes beyond what a run produces) is a ValueError with one sentence."""
        check_has_steps(data)
        version = data.get("schema_version")
        if version is None:  # read 48: a file without the field read "(got None)", Python's word, not the file's
            raise ValueError(_("This file names no schema version, so it is not a trace specviz wrote (specviz "
                               "writes version {version}).", version=SCHEMA_VERSION))
        if not is_whole(version):
            raise ValueError(_("This trace's schema version must be a whole number (got {value}).",
                               value=repr(version)[:20]))
        if version != SCHEMA_VERSION:
            shown = str(version) if abs(version) < 10**6 else _("a number that no specviz writes")
            raise ValueError(_("This trace has schema version {shown}; this specviz reads version {version}.",
                               shown=shown, version=SCHEMA_VERSION))
        check_trace_size(data)  # before any work on a file that may be huge
        data = _decode_floats(dict(data))
        data.pop("summary", None)
        check_trace_dict(data)
        try:
            steps = [_step_from_dict(s) for s in data.pop("steps")]
            stop = data.pop("stop_reason", "")
            trace = cls(steps=steps, stop_reason=StopReason(stop) if stop else "", **data)
        except (TypeError, KeyError):
            raise ValueError(_("This trace file is damaged or incomplete (a field is missing or unknown).")) from None
        _mark_greedy_point_masses(trace)
        return trace

    @classmethod
    def from_json(cls, text: str | bytes) -> Trace:
        try:
            data = json.loads(text, object_pairs_hook=_keys_once)
        except _KeyTwice as twice:
            raise ValueError(_("This file gives the key {key} twice in one object (a JSON reader keeps only its last "
                               "value, without a word), so it is not a trace specviz wrote.",
                               key=repr(shortened(twice.key, 38)))) from None
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ValueError(_("This file is not valid JSON, so it cannot be a specviz trace.")) from None
        except RecursionError:
            raise ValueError(_("This file nests too deeply to be a specviz trace.")) from None
        except ValueError:  # Python's own limits, such as an integer of more than 4,300 digits
            raise ValueError(_("This file holds a number far too long to be part of a specviz trace.")) from None
        return cls.from_dict(data)


class _KeyTwice(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _keys_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict, refusing a key given twice: `json.loads` keeps the last value without a word, so a
    file with two "accepted" in one decision was read by whichever came last (left by earlier reads, read 52's
    list). specviz writes each key once."""
    seen: set[str] = set()
    for key, _value in pairs:
        if key in seen:
            raise _KeyTwice(key)
        seen.add(key)
    return dict(pairs)


def _mark_greedy_point_masses(trace: Trace) -> None:
    """A greedy tree trace written before read 44 has no `point_mass` on its nodes, so its displays showed a second
    child's q(x) = 0 and p/q = inf, not the q = 1 the rule used. Every node of a greedy tree is a point mass (its
    children are the draft's top tokens, not drawn from q), and today's recorder marks them all, so a greedy trace
    with tree nodes and none marked is such a file: mark them as the recorder would have."""
    if trace.settings.get("temperature") != 0:
        return
    nodes = [node for step in trace.steps if step.tree is not None for node in step.tree.nodes]
    if nodes and not any(node.point_mass for node in nodes):
        for node in nodes:
            node.point_mass = True


def _step_from_dict(d: dict[str, Any]) -> Step:
    d = dict(d)
    d["decisions"] = [
        Decision(
            **{
                **x,
                "target_top": [TokenProb(**t) for t in x.get("target_top", [])],
                "draft_top": [TokenProb(**t) for t in x.get("draft_top", [])],
            }
        )
        for x in d["decisions"]
    ]
    d["emitted"] = [EmittedToken(**{**e, "kind": _kind(e["kind"])}) for e in d["emitted"]]
    d["correction_top"] = [TokenProb(**t) for t in d.get("correction_top", [])]
    if d.get("correction_kind") is not None:
        d["correction_kind"] = _kind(d["correction_kind"])
    if d.get("tree") is not None:
        d["tree"] = TreeRecord([TreeNode(**n) for n in d["tree"]["nodes"]], list(d["tree"]["path"]))
    return Step(**d)


def _kind(value: Any) -> TokenKind:
    try:
        return TokenKind(value)
    except ValueError:
        raise ValueError(_("This trace names an unknown token kind ({kind}); specviz knows {kinds}.",
                           kind=repr(shortened(str(value))), kinds=", ".join(TOKEN_KINDS))) from None


def _json_number(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def _encode_floats(obj: Any) -> Any:
    """JSON has no inf/nan: write them as strings so a round trip keeps them."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: _encode_floats(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_encode_floats(v) for v in obj]
    return obj


_SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _decode_floats(obj: Any, key: str = "") -> Any:
    if isinstance(obj, str) and key in _FLOAT_FIELDS and obj in _SPECIAL:
        return _SPECIAL[obj]
    if isinstance(obj, dict):
        return {k: _decode_floats(v, k) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_decode_floats(v, key) for v in obj]
    return obj


_FLOAT_FIELDS = {"ratio", "accept_prob", "draft_prob", "target_prob", "prob", "uniform"}
