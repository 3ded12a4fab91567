"""What a trace file may hold: every field's type and bounds, checked before a `Trace` is built from it.

A trace can come from anywhere (an upload, a link, a file someone edited), and the pages draw what it says: a step
with 5,000 drafts or a cache of 10^9 entries would hang the server. `check_trace_dict` refuses anything the engine
cannot produce, with one sentence that says where and what, so every caller of `Trace.from_dict` is protected.

    >>> check_trace_dict({"schema_version": 1, "mode": "speculative", "settings": {}, "prompt_ids": [1],
    ...                   "output_ids": [], "steps": [{"index": 0, "context_length": 1, "k": 99, "proposer": "draft",
    ...                                                "decisions": [], "emitted": []}]})
    Traceback (most recent call last):
    ...
    ValueError: This trace is damaged: step 1: k must be a whole number from 0 to 16 (got 99).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from specviz.core.i18n import N_, _, ngettext, number, with_minus
from specviz.core.text import shortened
from specviz.engine.kinds import Mode, NodeStatus, StopReason, TokenKind, kind_after_drafts
from specviz.engine.limits import (CLOCKS, K_RANGE, MAX_NEW_TOKENS_RANGE, MAX_SEED, POLICIES, TOP_N, TREE_LOOKUP_RANGE,
                                   TREE_NODES_RANGE, TREE_WIDTH_RANGE, is_whole)

MAX_STEPS = MAX_NEW_TOKENS_RANGE[1]  # every step emits at least one token
MAX_DRAFTS = K_RANGE[1]
MAX_TREE_NODES = TREE_NODES_RANGE[1] + TREE_LOOKUP_RANGE[1]  # drafted nodes and a copied branch
MAX_CONTEXT = 131_072  # positions: the longest context of any model in the catalog (128k)
MAX_TOKEN_ID = 1 << 24
MAX_TOKEN_TEXT = 256
MAX_TEXT = 200_000  # the prompt or the output, in characters
MAX_NAME = 200
MAX_SECONDS = 1e6
MAX_DEPTH = 12  # trace > steps > step > decisions > decision > target_top > entry is 7; meta gets a little room
MODES = tuple(Mode)
STOP_REASONS = ("", *StopReason)  # "" while a generation goes on
KINDS = tuple(TokenKind)
TREE_STATUSES = tuple(NodeStatus)  # a tree node's verdict

Check = Callable[[Any], bool]


@dataclass(frozen=True)
class Words:
    """A phrase for an error sentence, translated when it is written out (the rules below are built at import, when
    no reader's language is known yet). Values may be Words themselves."""

    message: str
    values: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        return _(self.message, **{k: str(v) for k, v in self.values}) if self.values else _(self.message)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


def _words(message: str, **values: Any) -> Words:
    return Words(message, tuple(values.items()))


def _whole(lo: int, hi: int) -> tuple[Check, Words]:
    return (lambda v: is_whole(v) and lo <= v <= hi,
            _words(N_("a whole number from {lo} to {hi}"), lo=_Count(lo), hi=_Count(hi)))


def _number(lo: float, hi: float, *, inf: bool = False) -> tuple[Check, Words]:
    def check(v: Any) -> bool:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return False
        if isinstance(v, int):  # compared as an int: a 400-digit one would overflow a float
            return lo <= v <= hi
        return (inf and v == math.inf) or (math.isfinite(v) and lo <= v <= hi)
    ends = {"lo": _bound(lo), "hi": _bound(hi)}
    if inf:
        return check, _words(N_("a number from {lo} to {hi} (or inf)"), **ends)
    return check, _words(N_("a number from {lo} to {hi}"), **ends)


def _bound(value: float) -> Any:
    """A range's end as the reader reads it: a whole one grouped (1,000,000 or 1.000.000, not 1e+06), one past any
    count a reader writes out (1e300) as %g."""
    return _Count(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:g}"


def _optional(rule: tuple[Check, Words]) -> tuple[Check, Words]:
    return (lambda v: v is None or rule[0](v)), _words(N_("{rule} or null"), rule=rule[1])


def _text(limit: int) -> tuple[Check, Words]:
    return (lambda v: isinstance(v, str) and len(v) <= limit), _words(N_("text of at most {limit} characters"),
                                                                      limit=_Count(limit))


class _Count(int):
    """A count or a range's end written the reader's way when it is put into words (200,000 or 200.000): the
    rules are built at import, before a reader's language is known (read 46: "from 0 to 131072", "from 1 to 2048"
    and "from 0 to 1e+06" were written raw beside "at most 200,000 characters")."""

    def __str__(self) -> str:
        return number(int(self), 0)


def _one_of(options: tuple[str, ...]) -> tuple[Check, Words]:
    return (lambda v: v in options), _words(N_("one of {choices}"), choices=", ".join(o or '""' for o in options))


BOOL = ((lambda v: isinstance(v, bool)), _words(N_("true or false")))
PROB = _number(0.0, 1.0)

TOKEN_PROB = {"token_id": _whole(0, MAX_TOKEN_ID), "text": _text(MAX_TOKEN_TEXT), "prob": PROB}
DECISION = {
    "position": _whole(0, MAX_DRAFTS - 1), "token_id": _whole(0, MAX_TOKEN_ID), "text": _text(MAX_TOKEN_TEXT),
    "draft_prob": PROB, "target_prob": PROB, "ratio": _number(0.0, 1e300, inf=True), "accept_prob": PROB,
    "uniform": _optional(PROB), "accepted": BOOL, "reached": BOOL,
}
TREE_NODE = {
    "token_id": _whole(0, MAX_TOKEN_ID), "text": _text(MAX_TOKEN_TEXT), "parent": _whole(-1, MAX_TREE_NODES - 1),
    "depth": _whole(1, MAX_DRAFTS), "draft_prob": PROB, "target_prob": PROB,
    "status": _one_of(TREE_STATUSES), "uniform": _optional(PROB),
    "accept_prob": _optional(PROB), "copied": BOOL, "point_mass": BOOL,
    "target_prob_used": _optional(PROB), "draft_prob_used": _optional(PROB),
}
EMITTED = {"token_id": _whole(0, MAX_TOKEN_ID), "text": _text(MAX_TOKEN_TEXT), "kind": _one_of(KINDS),
           "target_prob": _optional(PROB), "draft_prob": _optional(PROB), "uniform": _optional(PROB)}
STEP = {
    "index": _whole(0, MAX_STEPS - 1), "context_length": _whole(0, MAX_CONTEXT), "k": _whole(0, MAX_DRAFTS),
    "proposer": _text(MAX_NAME), "correction_kind": _optional(_one_of(KINDS)),
    "target_cache_before": _whole(0, MAX_CONTEXT), "target_cache_after": _whole(0, MAX_CONTEXT),
    "draft_cache_before": _optional(_whole(0, MAX_CONTEXT)), "draft_cache_after": _optional(_whole(0, MAX_CONTEXT)),
    "draft_seconds": _number(0.0, MAX_SECONDS), "verify_seconds": _number(0.0, MAX_SECONDS),
    "overhead_seconds": _number(0.0, MAX_SECONDS),
}
TRACE = {
    "mode": _one_of(MODES), "prompt_text": _text(MAX_TEXT), "output_text": _text(MAX_TEXT),
    "stop_reason": _one_of(STOP_REASONS), "prefill_seconds": _number(0.0, MAX_SECONDS),
    "wall_seconds": _number(0.0, MAX_SECONDS),
}
SETTING_VALUE = (lambda v: v is None or isinstance(v, (bool, int, str)) and len(str(v)) <= MAX_NAME
                 or isinstance(v, float) and math.isfinite(v), _words(N_("a number, text or true/false")))
TOP_P = ((lambda v: PROB[0](v) and v > 0), _words(N_("a number above 0, at most 1")))
TEMPERATURE = ((lambda v: not isinstance(v, bool) and isinstance(v, (int, float)) and 0 <= v < math.inf),
               _words(N_("a finite number, 0 or more")))
# The heuristic policy's steps, whole numbers 0 or more as `policies.Heuristic` takes them (read 53: decode() records
# them, and "heuristic_grow": -3 or 2.5 loaded as written, though no run could have had them)
HEURISTIC_STEP = ((lambda v: is_whole(v) and v >= 0), _words(N_("a whole number, 0 or more")))
# The settings the engine writes (GenerationSettings, DraftShape.tree_settings, the proposer's name), with the types and
# ranges it checks before a run: a page reads them back as numbers ("k": "abc" would be a traceback, not a sentence).
# Any other key (a proposer's own setting) keeps SETTING_VALUE.
SETTINGS = {
    "max_new_tokens": _whole(*MAX_NEW_TOKENS_RANGE), "temperature": TEMPERATURE, "top_k": _whole(0, MAX_SEED),
    "top_p": TOP_P, "seed": _whole(0, MAX_SEED), "k": _optional(_whole(*K_RANGE)),
    "tree_nodes": _whole(*TREE_NODES_RANGE), "tree_width": _whole(*TREE_WIDTH_RANGE),
    "tree_lookup": _whole(*TREE_LOOKUP_RANGE), "proposer": _text(MAX_NAME), "policy": _one_of(POLICIES),
    "threshold": PROB, "heuristic_grow": HEURISTIC_STEP, "heuristic_shrink": HEURISTIC_STEP,
    "heuristic_k_min": _whole(*K_RANGE), "heuristic_k_max": _whole(*K_RANGE),
}
# What the engine writes in meta (`specviz.runs.running.run`, `make_traces`), which pages show as text, test as true or
# false, or count with: read 53 found `"proposer": true` and `"clock": NaN` loaded as written. A key not here (one an
# older or later specviz may write) is kept unchecked: no page reads it. `clock` is one the engine knows (read 54:
# "clock": "sundial" loaded, and the race, which names only CPU time, showed its times as wall time without a word).
_ANY_TEXT = _text(MAX_TEXT)
META = {"chat": BOOL, "machine": ((lambda v: isinstance(v, dict) and len(v) <= 50),
                                  _words(N_("an object of at most {limit} entries"), limit=50)),
        "clock": _one_of(CLOCKS),
        **dict.fromkeys(("pair", "proposer", "prompt", "dtype", "device", "example", "title", "description",
                         "recorded"), _ANY_TEXT)}
_COUNT = _optional(_whole(1, 10**6))
MACHINE = {"cores": _COUNT, "torch_threads": _COUNT,
           **dict.fromkeys(("cpu", "gpu", "device", "dtype", "kernels", "torch", "date"), _optional(_ANY_TEXT))}
# Each object's other fields (lists and objects checked on their own) and the fields a file must give, those without
# a default in specviz.engine.trace (tests/engine/test_trace_schema.py holds the two to its dataclasses). A step's
# index and target cache lengths have their own sentences below. Read 50: a missing or unknown field was "This trace
# file is damaged or incomplete (a field is missing or unknown)", naming neither the field nor where it was, and a
# step without decisions or emitted was refused as if its lists were too long or the output wrong.
OTHER = {"trace": ("settings", "meta", "prompt_ids", "output_ids", "steps", "schema_version", "summary"),
         "step": ("decisions", "emitted", "correction_top", "tree"), "decision": ("target_top", "draft_top")}
REQUIRED = {
    "trace": ("mode", "settings", "prompt_ids", "output_ids", "steps"),
    "step": ("context_length", "k", "proposer", "decisions", "emitted"),
    "decision": tuple(DECISION), "emitted": ("token_id", "text", "kind"), "top": tuple(TOKEN_PROB),
    "node": ("token_id", "text", "parent", "depth", "draft_prob", "target_prob", "status"),
}


def check_has_steps(data: Any) -> None:
    """The first check of any file: an object with a non-empty list of `steps` (the engine's loop makes a step before
    it checks for a stop, so every run writes one). One sentence whatever is missing: read 51 found a file without
    steps refused three ways, "no 'steps' found" (`Trace.from_dict`), "no list of 'steps' found" (here) and "a trace
    has at least one step" (an empty list, read 47: the Playground's player had failed on it)."""
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list) or not data["steps"]:
        raise ValueError(_("This file is not a specviz trace: specviz writes a list of at least one step under "
                           "'steps', and this file has none."))


def check_trace_size(data: Any) -> None:
    """The cheap checks that come before any work on the file: a list of steps, not more than a run makes, no
    nesting deeper than a trace has (walked without recursion, so a deep file cannot exhaust the stack) and no text
    longer than a prompt may be (`meta` is checked nowhere else)."""
    check_has_steps(data)
    if len(data["steps"]) > MAX_STEPS:
        _fail("", _("a trace has at most {limit} steps (this one has {n})", limit=_Count(MAX_STEPS),
                    n=_Count(len(data["steps"]))))
    stack = [(data, 1)]
    while stack:
        obj, depth = stack.pop()
        if depth > MAX_DEPTH:
            _fail("", _("a trace nests at most {limit} levels deep", limit=MAX_DEPTH))
        children = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
            elif isinstance(child, str) and len(child) > MAX_TEXT:
                _fail("", _("a trace's texts hold at most {limit} characters", limit=_Count(MAX_TEXT)))


def check_trace_dict(data: Any) -> None:
    """Raise a ValueError with one sentence unless `data` (parsed JSON, floats decoded) is a trace
    the engine could have written; return quietly otherwise."""
    check_trace_size(data)
    _fields(data, TRACE, "", "trace")
    for name in ("settings", "meta"):
        value = data.get(name, {})
        if not isinstance(value, dict) or len(value) > 50:
            _fail("", _("{name} must be an object of at most {limit} entries", name=name, limit=50))
        if name == "settings":
            for key, v in value.items():
                _check(v, SETTINGS.get(key, SETTING_VALUE), f"settings[{shortened(repr(key))}]", "")
        else:
            for key, rule in META.items():
                if key in value:
                    _check(value[key], rule, f"meta[{key!r}]", "")
            for key, rule in MACHINE.items():
                if key in value.get("machine", {}):
                    _check(value["machine"][key], rule, f"meta['machine'][{key!r}]", "")
    for name in ("prompt_ids", "output_ids"):
        ids = data.get(name)
        if not isinstance(ids, list) or len(ids) > MAX_CONTEXT or not all(_whole(0, MAX_TOKEN_ID)[0](i) for i in ids):
            _fail("", _("{name} must be a list of token ids", name=name))
    for n, step in enumerate(data["steps"], start=1):
        _step(step, n, _("step {n}: ", n=n))
    # the output is what the steps emitted (a trace with no steps and 47 output tokens read "47 tokens from 0 target
    # forward passes" on the Playground)
    if [token.get("token_id") for step in data["steps"] for token in step.get("emitted", [])] != data["output_ids"]:
        _fail("", _("output_ids must be the tokens the steps emitted, in order"))
    _first_children(data)


def _step(step: Any, number: int, where: str) -> None:
    if not isinstance(step, dict):
        _fail(where, _("a step must be an object"))
    _fields(step, STEP, where, "step")
    decisions, emitted = step.get("decisions", []), step.get("emitted", [])
    if step.get("index") != number - 1:  # the pages label and outline a step by its index (read 50: two "step 1")
        _fail(where, _("index must be {i}, as specviz numbers the steps 0, 1, 2, … in order (got {value})",
                       i=number - 1, value=_shown(step["index"]) if "index" in step else _("nothing")))
    if not isinstance(decisions, list) or len(decisions) > MAX_DRAFTS:
        _fail(where, _("decisions must be a list of at most {limit} drafts", limit=MAX_DRAFTS))
    if step["k"] != len(decisions):  # the recorder's k is len(decisions): a chain's drafts, a tree's main line
        _fail(where, _("k must be {n}, the number of drafts in decisions (got {value})", n=len(decisions),
                       value=_shown(step["k"])))
    if not isinstance(emitted, list) or len(emitted) > len(decisions) + 1:
        _fail(where, _("emitted must be a list of at most one token more than the drafts in decisions"))
    for name in ("target_cache_before", "target_cache_after"):  # read 50: a missing one was quoted "(0 -> 40)"
        if name not in step:
            _fail(where, _("{name} is missing (every step specviz writes records the target's cache length before "
                           "and after it)", name=name))
    before, after = step["target_cache_before"], step["target_cache_after"]
    if not 0 <= after - before <= len(decisions) + 1:  # the last token plus the accepted drafts (K+1 for a chain)
        _fail(where, _("the target's cache grows by 0 to {most} entries in a step, one more than the drafts in "
                       "decisions ({before} -> {after})",
                       most=len(decisions) + 1, before=before, after=after))
    _tops(step.get("correction_top", []), "correction_top", where)
    rejected = 0  # the draft (from 1) the step rejected; 0 until then
    for i, decision in enumerate(decisions, start=1):
        if not isinstance(decision, dict):
            _fail(where, _("a decision must be an object"))
        here = where + _("draft {i}: ", i=i)
        _fields(decision, DECISION, here, "decision")
        if decision["position"] != i - 1:  # the recorder numbers a step's drafts in order, from 0
            _fail(here, _("position must be {i}, as specviz numbers a step's drafts 0, 1, 2, … in order (got "
                          "{value})", i=i - 1, value=_shown(decision["position"])))
        _ratio(decision, here)
        if step.get("tree") is None:
            _chain_chance(decision, here)
        _tested(decision, here)
        _verdict(decision, here)
        _in_order(decision, rejected, here)
        if decision["reached"] and not decision["accepted"]:
            rejected = rejected or i
        _tops(decision.get("target_top", []), "target_top", here)
        _tops(decision.get("draft_top", []), "draft_top", here)
    for i, token in enumerate(emitted, start=1):
        if not isinstance(token, dict):
            _fail(where, _("an emitted token must be an object"))
        _fields(token, EMITTED, where + _("token {i}: ", i=i), "emitted")
    if step.get("tree") is not None:
        _tree(step["tree"], where + _("tree: "))
        _main_line(decisions, step["tree"]["nodes"], step["tree"]["path"], where)
    _emitted_kinds(decisions, emitted, where)
    _correction_kind(step.get("correction_kind"), decisions, where)


def _ratio(decision: dict, where: str) -> None:
    """A draft's ratio is p/q, inf exactly when q = 0 (`specviz.engine.recording`): a ratio of inf beside q = 0.5
    was read as it stood (read 50). Read 52: the refusal named neither p/q's value nor the tolerance, so a ratio
    rounded to 0.665 was refused as "must be target_prob / draft_prob (got 0.665)", as if 0.665 were not p/q."""
    if not all(name in decision for name in ("ratio", "target_prob", "draft_prob")):
        return
    p, q, ratio = decision["target_prob"], decision["draft_prob"], decision["ratio"]
    if q == 0 and ratio != math.inf:
        _fail(where, _("ratio must be inf, as draft_prob is 0 (got {value})", value=_shown(ratio)))
    if q > 0 and not math.isclose(ratio, p / q, rel_tol=RATIO_TOLERANCE):
        _fail(where, _("ratio must be target_prob / draft_prob = {rule}, to within a relative {tolerance} (got "
                       "{value})", rule=_shown(p / q), tolerance=RATIO_TOLERANCE_TEXT, value=_shown(ratio)))


RATIO_TOLERANCE_TEXT = "1e-9"  # relative: p/q computed elsewhere differs from the recorder's in its last bits
RATIO_TOLERANCE = float(RATIO_TOLERANCE_TEXT)


# How far a chain draft's accept_prob may sit from min(1, p/q): JSON keeps the recorder's floats exactly, so this
# only forgives a hand-written or rounded-again value (p/q computed elsewhere differs in its last bits).
CHANCE_TOLERANCE_TEXT = "1e-9"  # as the refusal writes it (f"{1e-9:g}" is "1e-09")
CHANCE_TOLERANCE = float(CHANCE_TOLERANCE_TEXT)


def _chain_chance(decision: dict, where: str) -> None:
    """A chain step's drafts are judged by the exact rule, so each `accept_prob` is min(1, p/q), 1 where q = 0 < p
    and 0 where p = q = 0 (`verifier.accept_probability`, which the recorder writes for every draft, tested or not;
    not imported: the verifier imports the trace, which imports this module). Left by earlier reads (read 52's
    list): an uploaded chain trace could claim any keep chance beside its p and q. A tree step's main line is
    min(1, p′/q′) and is not checked here; the Exactness lab's broken rules record their own chances but never write
    a file."""
    p, q, chance = decision["target_prob"], decision["draft_prob"], decision["accept_prob"]
    rule = min(1.0, p / q) if q > 0 else float(p > 0)
    if abs(chance - rule) > CHANCE_TOLERANCE:
        _fail(where, _("accept_prob must be min(1, target_prob / draft_prob) = {rule}, the chance the exact rule "
                       "keeps a chain's draft with, to within {tolerance} (got {value})", rule=_shown(rule),
                       tolerance=CHANCE_TOLERANCE_TEXT, value=_shown(chance)))


def _tested(decision: dict, where: str) -> None:
    """A draft is `reached` exactly when the rule tested it, and the rule draws a uniform for each draft it tests
    and for no other (`recording.TraceRecorder.decisions`)."""
    if decision["reached"] and decision["uniform"] is None:
        _fail(where, _("reached is true, but uniform is null (specviz draws a uniform for every draft it tests)"))
    if not decision["reached"] and decision["uniform"] is not None:
        _fail(where, _("reached is false, but it has a uniform {u} (specviz draws a uniform only for the drafts "
                       "it tests)", u=_shown(decision["uniform"])))


def _in_order(decision: dict, rejected: int, where: str) -> None:
    """A step's drafts are tested from the first until one is rejected: accepted ones, then at most one rejected,
    then only drafts not reached (`verifier.verify_chain`; a tree step's main line ends the same way). Left by
    earlier reads (read 52's list): a step whose third draft was kept after its second was rejected loaded."""
    if rejected and decision["accepted"]:
        _fail(where, _("accepted is true, but draft {j} before it was rejected, and specviz keeps no draft after a "
                       "step's first rejection", j=rejected))
    if rejected and decision["reached"]:
        _fail(where, _("reached is true, but draft {j} before it was rejected, and specviz tests no draft after a "
                       "step's first rejection", j=rejected))
    if not rejected and not decision["reached"]:
        _fail(where, _("reached is false, but no draft before it was rejected (specviz tests every draft up to a "
                       "step's first rejection)"))


def _verdict(decision: dict, where: str) -> None:
    """A draft's `accepted` is what its u and `accept_prob` decided: every rule specviz runs keeps a tested draft
    exactly when u < the chance it records (`verifier.verify_chain`, `tree_verifier.verify_tree`: min(1, p/q) in a
    chain, min(1, p′/q′) on a tree step's main line, a broken rule's own chance in the Exactness lab, 0 or 1 when
    greedy) and gives u only to the drafts it tested. Read 51: a flipped `accepted` loaded as it stood."""
    u, chance, kept = decision["uniform"], decision["accept_prob"], decision["accepted"]
    if u is None and kept:
        _fail(where, _("accepted is true, but uniform is null, and specviz keeps no draft that the rule did not test"))
    if u is not None and kept and not u < chance:
        _fail(where, _("accepted is true, but its uniform {u} is not below its accept_prob {chance} (specviz keeps a "
                       "draft exactly when uniform < accept_prob)", u=_shown(u), chance=_shown(chance)))
    if u is not None and not kept and u < chance:
        _fail(where, _("accepted is false, but its uniform {u} is below its accept_prob {chance} (specviz keeps a "
                       "draft exactly when uniform < accept_prob)", u=_shown(u), chance=_shown(chance)))


def _emitted_kinds(decisions: list[dict], emitted: list[dict], where: str) -> None:
    """A step emits its accepted drafts, in order, then one token of the kind its decisions call for: recovered after
    a rejection, bonus when every draft was accepted, target when nothing was drafted (`decoding.emitted_tokens`,
    `StepResult.next_kind`); the list may stop early, where the run hit EOS or max_new_tokens. Left by earlier reads
    (read 52's list): a step whose draft was rejected could emit a "bonus" token, and one with kept drafts a
    "target" one."""
    kept = sum(1 for decision in decisions if decision["accepted"])  # a prefix, `_in_order` saw to that
    rejected = any(decision["reached"] and not decision["accepted"] for decision in decisions)
    after = kind_after_drafts(bool(decisions), rejected)
    for i, token in enumerate(emitted, start=1):
        here = where + _("token {i}: ", i=i)
        if i > kept + 1:
            _fail(here, _("specviz emits nothing after the token that follows a step's accepted drafts (token "
                          "{n} here)", n=kept + 1))
        expected = TokenKind.ACCEPTED if i <= kept else after
        if token["kind"] != expected:
            _fail(here, _("kind is {value}, but the step's decisions make it {expected} (specviz emits the accepted "
                          "drafts, then a recovered token after a rejection, a bonus token when every draft was "
                          "accepted, a target token when nothing was drafted)", value=token["kind"], expected=expected))
        if i <= kept and token["token_id"] != decisions[i - 1]["token_id"]:
            _fail(here, _("token_id is {value}, but draft {i}, the accepted draft it emits, is {draft} (specviz "
                          "emits a step's accepted drafts first, in order)", value=_shown(token["token_id"]), i=i,
                          draft=_shown(decisions[i - 1]["token_id"])))


def _correction_kind(value: str | None, decisions: list[dict], where: str) -> None:
    """A step's `correction_kind` is the kind of the token after its accepted drafts, which its decisions decide as
    they decide the emitted one (`StepResult.next_kind`, `kinds.kind_after_drafts`); the pages name it where the
    run stopped before that token (`step_view.step_headline`). Null in a trace written before it was recorded. Left
    by earlier reads (read 53's list): a step whose draft was rejected could say "bonus", one whose drafts were all
    kept "recovered", and either "accepted"."""
    if value is None:
        return
    kept = sum(1 for decision in decisions if decision["accepted"])  # a prefix, `_in_order` saw to that
    rejected = next((i for i, decision in enumerate(decisions, start=1)
                     if decision["reached"] and not decision["accepted"]), 0)
    expected = kind_after_drafts(bool(decisions), bool(rejected))
    if value == expected:
        return
    if expected == TokenKind.RECOVERED:
        reason = _("draft {j} was rejected, and after a step's first rejection specviz emits a recovered token, "
                   "sampled from the residual distribution", j=rejected)
    elif expected == TokenKind.BONUS:
        reason = ngettext("its {n} draft was accepted, and when every draft of a step is accepted specviz emits a "
                          "bonus token, sampled from p",
                          "all {n} of its drafts were accepted, and when every draft of a step is accepted specviz "
                          "emits a bonus token, sampled from p", kept)
    else:
        reason = _("the step drafted nothing, and specviz calls the token of a step without drafts a target token")
    _fail(where, _("correction_kind is {value}, but the token after the step's accepted drafts (token {i}) is "
                   "{expected}: {reason}", value=value, i=kept + 1, expected=expected, reason=reason))


def _tree(tree: Any, where: str) -> None:
    """A step's draft tree: at most MAX_TREE_NODES nodes, parents first, each depth one more than its parent's, and
    an accepted path that walks down from the root through exactly the accepted nodes."""
    if not isinstance(tree, dict) or not isinstance(tree.get("nodes"), list) or not isinstance(tree.get("path"), list):
        _fail(where, _("a tree must be an object with a list of nodes and a path"))
    for name in tree:
        if name not in ("nodes", "path"):
            _fail(where, _("{name} is not a field specviz writes", name=shortened(repr(name))))
    nodes, path = tree["nodes"], tree["path"]
    if len(nodes) > MAX_TREE_NODES:
        _fail(where, _("a tree has at most {limit} nodes (this one has {n})", limit=MAX_TREE_NODES, n=len(nodes)))
    for j, node in enumerate(nodes):
        if not isinstance(node, dict):
            _fail(where, _("a tree node must be an object"))
        _fields(node, TREE_NODE, where + _("node {j}: ", j=j), "node")
        parent = node.get("parent")
        if not isinstance(parent, int) or parent >= j:
            _fail(where, _("node {j}'s parent must come before it", j=j))
        if node.get("depth") != (1 if parent == -1 else nodes[parent].get("depth", 0) + 1):
            _fail(where, _("node {j} must be one level below its parent", j=j))
    if not all(is_whole(n) and 0 <= n < len(nodes) for n in path):
        _fail(where, _("the path must list nodes of the tree"))
    if any(nodes[n].get("parent") != (path[i - 1] if i else -1) for i, n in enumerate(path)):
        _fail(where, _("the path must walk down from the root, each node a child of the one before"))
    if sorted(path) != [j for j, node in enumerate(nodes) if node.get("status") == NodeStatus.ACCEPTED]:
        _fail(where, _("the accepted nodes must be exactly the path"))
    for j, node in enumerate(nodes):
        _node_tested(nodes, j, where + _("node {j}: ", j=j))


# What a tree step's decisions repeat of the node each one is (`decoding.main_line`, `recording.TraceRecorder`)
MAIN_LINE_FIELDS = ("token_id", "draft_prob", "target_prob", "uniform", "accept_prob")


def _main_line(decisions: list[dict], nodes: list[dict], path: list[int], where: str) -> None:
    """A tree step's `decisions` are its tree's main line: the nodes of its path, then the first child rejected below
    the path's last node (the root's, for an empty path), each with that node's token, q, p, u and chance, accepted
    exactly when the node is (`Step.main_line`). Read 52: nothing tied the two, so a chain trace given an empty
    `tree` on each step skipped the check of its accept_prob and loaded with any keep chance."""
    below = path[-1] if path else -1
    line = list(path) + [j for j, node in enumerate(nodes)
                         if node["parent"] == below and node["status"] == NodeStatus.REJECTED][:1]
    if len(decisions) != len(line):
        _fail(where, ngettext("decisions must be the tree's main line, its path and then the first child rejected "
                              "below it: {n} draft (got {got})",
                              "decisions must be the tree's main line, its path and then the first child rejected "
                              "below it: {n} drafts (got {got})", len(line), got=len(decisions)))
    for i, (decision, j) in enumerate(zip(decisions, line), start=1):
        node = nodes[j]
        same = all(decision[name] == node.get(name) for name in MAIN_LINE_FIELDS)
        if not same or decision["accepted"] != (node["status"] == NodeStatus.ACCEPTED):
            _fail(where + _("draft {i}: ", i=i),
                  _("this draft must be node {j} of the tree, with its token_id, draft_prob, target_prob, uniform "
                    "and accept_prob, and accepted exactly when the node is (a tree step's decisions are its main "
                    "line: its path, then the first child rejected below it)", j=j))


def _node_tested(nodes: list[dict], j: int, where: str) -> None:
    """A tree node is tested (accepted or rejected) exactly when the rule reached it: the rule walks down from the
    root, tries an accepted node's children in order until it keeps one (`tree_verifier.verify_tree`), and records a
    uniform and an accept_prob for each node it tries and for no other; it keeps a node exactly when uniform <
    accept_prob, as in a chain. Left by earlier reads (read 52's list): a node marked not reached with a uniform, or
    accepted below a rejected parent, loaded as it stood."""
    node = nodes[j]
    status, tested = node["status"], node["status"] != NodeStatus.NOT_REACHED
    for name in ("uniform", "accept_prob"):
        if tested and node.get(name) is None:
            _fail(where, _("status is {status}, but {name} is null (specviz records a uniform and an accept_prob for "
                           "every node it tests)", status=status, name=name))
        if not tested and node.get(name) is not None:
            _fail(where, _("status is not reached, but it has {name} {value} (specviz records a uniform and an "
                           "accept_prob only for the nodes it tests)", name=name, value=_shown(node[name])))
    used = node.get("target_prob_used"), node.get("draft_prob_used")
    if tested and None not in used:  # traces written before read 49 hold no p′, q′: nothing to check
        rule = min(1.0, used[0] / used[1]) if used[1] > 0 else float(used[0] > 0)
        if abs(node["accept_prob"] - rule) > CHANCE_TOLERANCE:
            _fail(where, _("accept_prob must be min(1, target_prob_used / draft_prob_used) = {rule}, the chance the "
                           "exact rule keeps a node with, to within {tolerance} (got {value})", rule=_shown(rule),
                           tolerance=CHANCE_TOLERANCE_TEXT, value=_shown(node["accept_prob"])))
    parent = node["parent"]
    reached = parent == -1 or nodes[parent]["status"] == NodeStatus.ACCEPTED  # the rule tried this node's siblings
    before = [(k, nodes[k]["status"]) for k in range(j) if nodes[k]["parent"] == parent]
    if tested and not reached:
        _fail(where, _("status is {status}, but its parent, node {parent}, was not accepted (specviz tests only the "
                       "children of the root and of accepted nodes)", status=status, parent=parent))
    if tested and any(other != NodeStatus.REJECTED for _k, other in before):
        k = next(k for k, other in before if other != NodeStatus.REJECTED)
        _fail(where, _("status is {status}, but node {k}, a sibling before it, was not rejected (specviz tries a "
                       "node's children in order and stops at the first it accepts)", status=status, k=k))
    if not tested and reached and all(other == NodeStatus.REJECTED for _k, other in before):
        _fail(where, _("status is not reached, but the rule reached it: its parent was accepted (or is the root) and "
                       "every sibling before it was rejected (specviz tries a node's children in order until it "
                       "accepts one)"))
    kept = status == NodeStatus.ACCEPTED
    if tested and kept and not node["uniform"] < node["accept_prob"]:
        _fail(where, _("status is accepted, but its uniform {u} is not below its accept_prob {chance} (specviz keeps a "
                       "node exactly when uniform < accept_prob)", u=_shown(node["uniform"]),
                       chance=_shown(node["accept_prob"])))
    if tested and not kept and node["uniform"] < node["accept_prob"]:
        _fail(where, _("status is rejected, but its uniform {u} is below its accept_prob {chance} (specviz keeps a "
                       "node exactly when uniform < accept_prob)", u=_shown(node["uniform"]),
                       chance=_shown(node["accept_prob"])))


def _first_children(data: dict) -> None:
    """Each tree node's recorded p′, q′ against its own p and q (`_used_probs`), once every step is known sound. A
    greedy trace none of whose nodes is marked is read as a point mass throughout, as loading will mark it
    (`trace._mark_greedy_point_masses`: a file written before read 44)."""
    trees = [step["tree"] for step in data["steps"] if step.get("tree") is not None]
    unmarked = not any(node.get("point_mass", False) for tree in trees for node in tree["nodes"])
    greedy = data["settings"].get("temperature") == 0 and unmarked
    for n, step in enumerate(data["steps"], start=1):
        nodes = (step.get("tree") or {}).get("nodes", [])
        for j, node in enumerate(nodes):
            used = node.get("target_prob_used"), node.get("draft_prob_used")
            if node["status"] == NodeStatus.NOT_REACHED or None in used:  # untested, or written before read 49
                continue
            first = not any(other["parent"] == node["parent"] for other in nodes[:j])
            where = _("step {n}: ", n=n) + _("tree: ") + _("node {j}: ", j=j)
            _used_probs(node, used, first, greedy, where)


def _used_probs(node: dict, used: tuple[float, float], first: bool, greedy: bool, where: str) -> None:
    """The p′, q′ a tested node records are its own p and q where no sibling was tried before it: the rule starts a
    node's children from p at that node and the draft's q there (`tree_verifier.verify_tree`); and q′ is 1 for every
    point mass, a copied token or a child not drawn from q, whatever siblings came before (`TreeNode.rule_draft_prob`).
    Left by earlier reads (read 53's list): a first child could record any p′, q′, and the pages showed them as the
    residuals its siblings left (`trace.uses_residuals`)."""
    point_mass = greedy or node.get("point_mass", False) or node.get("copied", False)
    if first and abs(used[0] - node["target_prob"]) > CHANCE_TOLERANCE:
        _fail(where, _("target_prob_used must be {p}, its own target_prob, to within {tolerance}, as the rule tests "
                       "the first child it tries below a node on the target's own p (got {value})",
                       p=_shown(node["target_prob"]), tolerance=CHANCE_TOLERANCE_TEXT, value=_shown(used[0])))
    if point_mass and abs(used[1] - 1.0) > CHANCE_TOLERANCE:
        _fail(where, _("draft_prob_used must be 1, to within {tolerance}, as the rule tests a copied token, or a child "
                       "not drawn from q, against a point mass (got {value})", tolerance=CHANCE_TOLERANCE_TEXT,
                       value=_shown(used[1])))
    if first and not point_mass and abs(used[1] - node["draft_prob"]) > CHANCE_TOLERANCE:
        _fail(where, _("draft_prob_used must be {q}, its own draft_prob, to within {tolerance}, as the rule tests "
                       "the first child it tries below a node on the draft's own q (got {value})",
                       q=_shown(node["draft_prob"]), tolerance=CHANCE_TOLERANCE_TEXT, value=_shown(used[1])))


def _tops(tops: Any, name: str, where: str) -> None:
    """A top-10 list. Read 52: a null one was refused as "target_top: a top list holds at most 10 tokens", as if
    it were too long."""
    if not isinstance(tops, list):
        _fail(where, _("{name} must be a list of at most {limit} tokens (got {value})", name=name, limit=TOP_N,
                       value=_shown(tops)))
    where += name + ": "
    if len(tops) > TOP_N:
        _fail(where, _("a top list holds at most {limit} tokens", limit=TOP_N))
    for top in tops:
        if not isinstance(top, dict):
            _fail(where, _("a top-list entry must be an object"))
        _fields(top, TOKEN_PROB, where, "top")


def _fields(obj: dict, rules: dict[str, tuple[Check, Words]], where: str, shape: str) -> None:
    for name in REQUIRED[shape]:
        if name not in obj:
            _fail(where, _("{name} is missing", name=name))
    for name in obj:
        if name not in rules and name not in OTHER.get(shape, ()):
            _fail(where, _("{name} is not a field specviz writes", name=shortened(repr(name))))
    for name, rule in rules.items():
        if name in obj:
            _check(obj[name], rule, name, where)


def _check(value: Any, rule: tuple[Check, Words], name: str, where: str) -> None:
    if not rule[0](value):
        _fail(where, _("{name} must be {rule} (got {value})", name=name, rule=rule[1], value=_shown(value)))


def _shown(value: Any) -> str:
    """A value from the file as the file wrote it: JSON's null, true and false, not Python's None, True and False
    (read 52: "k must be a whole number from 0 to 16 (got None)")."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if is_whole(value) and abs(value) >= 10**30:
        return _("a number of more than 30 digits")
    if isinstance(value, str):  # cut inside its quotes (read 47: "(got 'xxx…)." never closed the quote)
        return repr(shortened(value, 28))
    text = with_minus(repr(value)) if not isinstance(value, (list, dict)) else type(value).__name__
    return text if len(text) <= 30 else text[:29] + "…"


def _fail(where: str, what: str) -> None:
    raise ValueError(_("This trace is damaged: {where}{what}.", where=where, what=what))
