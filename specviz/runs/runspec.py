"""The description of one run: a typed, checked `RunSpec`, and its URL form.

    spec = RunSpec(pair="toy", proposer="draft", prompt="the quick brown fox", k=4, temperature=1.0, seed=3)
    spec.to_query()                     # {"pair": "toy", ...}: the settings as URL parameters
    RunSpec.from_query({"k": "6"})      # and back; a bad value is a ValueError with one sentence

`specviz.runs.running.run(spec)` turns a spec into a `Trace`; the CLI, every page, the bench, `make_traces`, `gpu_bench`
and the Exactness lab describe their runs with one. Each setting's range and label is defined once, in `SETTINGS`; a
value outside it is refused with a sentence, never clamped. Plain data: checking a spec loads no model and no torch.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from specviz.core import urlvalues
from specviz.core.i18n import N_, _, given, localized, number, with_minus
from specviz.core.text import prompt_refusal, typed
from specviz.engine.draft_shape import DraftShape, tree_holds
from specviz.engine.limits import (K_RANGE, MAX_NEW_TOKENS_RANGE, POLICIES, SEED_RANGE, TEMPERATURE_RANGE,
                                   TREE_LOOKUP_RANGE, TREE_NODES_RANGE, TREE_WIDTH_RANGE, as_typed, is_real)
from specviz.engine.proposers import registry

MAX_PROMPT_CHARS = 4000
WEB_MAX_NEW_TOKENS = 256  # what one browser visitor may ask for (the CLI and the library allow the whole range)


@dataclass(frozen=True)
class Setting:
    """One setting: its name in error sentences, its label (as a form shows it) and its allowed values: a
    numeric range, or a set of choices (or a function that names them when asked: the proposers are the
    registry's). `name`, `label` and `help` (what the setting does, for a form's help and the CLI's; empty: none)
    are English messages (marked with `N_`): translate them with `specviz.core.i18n._` where they are shown."""

    name: str
    label: str
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] | Callable[[], tuple[str, ...]] | None = None
    whole: bool = False  # a whole number
    help: str = ""

    def options(self) -> tuple[str, ...]:
        """The allowed choices now (empty for a numeric setting)."""
        return () if self.choices is None else self.choices() if callable(self.choices) else self.choices

    def rule(self) -> str:
        """What the setting accepts, as words for an error sentence."""
        if self.choices is not None:
            return _("one of {choices}", choices=", ".join(self.options()))
        if self.whole:
            return _("a whole number from {lo} to {hi}", lo=_num(self.lo), hi=_num(self.hi))
        return _("a number from {lo} to {hi}", lo=_num(self.lo), hi=_num(self.hi))

    @property
    def bounds(self) -> tuple[float, float]:
        """(lo, hi), for a widget."""
        return self.lo, self.hi

    def accepts(self, value: Any) -> bool:
        """Whether `value` is allowed: one of the choices, or a number in range (NumPy's included, never a bool;
        a whole setting takes only whole numbers: 3, not 3.0)."""
        if self.choices is not None:
            return value in self.options()
        if not is_real(value):
            return False
        if isinstance(value, numbers.Integral):  # compared as an int: math.isfinite(10**400) raises OverflowError
            return self.lo <= value <= self.hi
        return not self.whole and math.isfinite(value) and self.lo <= value <= self.hi

    def plain(self, value: Any) -> Any:
        """An accepted number as Python's int or float (NumPy's np.int64(3) as 3), so a URL writes it as 3 and a
        trace's JSON can hold it; a choice as given."""
        if self.choices is not None or value is None:
            return value
        return int(value) if self.whole else value if type(value) in (int, float) else float(value)


def own_setting(name: str) -> Setting:
    """A proposer's own setting (declared in `specviz.engine.proposers.registry`, e.g. layer-skip's "layers") as a
    RunSpec setting; an unknown name is a ValueError with one sentence."""
    declared = registry.setting(name)
    return Setting(declared.name, declared.label, declared.lo, declared.hi, whole=True, help=declared.help)


def setting_of(name: str) -> Setting:
    """Any setting by its URL name: one of `SETTINGS`, or a proposer's own (read from the registry when asked, so a
    proposer registered later is in it)."""
    return SETTINGS[name] if name in SETTINGS else own_setting(name)


SETTINGS: dict[str, Setting] = {
    "k": Setting("K", N_("Drafted tokens per step (K)"), *K_RANGE, whole=True),
    "max_new_tokens": Setting("max_new_tokens", N_("New tokens"), *MAX_NEW_TOKENS_RANGE, whole=True),
    "temperature": Setting(N_("Temperature"), N_("Temperature (0 = greedy)"), *TEMPERATURE_RANGE),
    "top_k": Setting("top-k", N_("top-k (0 = off)"), 0, 1000, whole=True),
    "top_p": Setting("top-p", N_("top-p (1 = off)"), 0.01, 1.0),
    "seed": Setting(N_("The seed"), N_("Seed"), *SEED_RANGE, whole=True),  # the bench's limit too
    "proposer": Setting(N_("The proposer"), N_("Proposer"), choices=registry.names),
    "policy": Setting(N_("The draft-length policy"), N_("Draft-length policy"), choices=POLICIES),
    "tree_nodes": Setting("tree_nodes", N_("Draft tree nodes (0 = a chain of K)"), *TREE_NODES_RANGE, whole=True),
    # `specviz.engine.tree.grow_tree` uses the width for two jobs; read 46: the label named only one ("Children per
    # tree node"), now it names the number and both, the help says how; read 51: and how the N nodes are spread
    "tree_width": Setting("tree_width", N_("Tree width W (nodes expanded per level, children per node)"),
                          *TREE_WIDTH_RANGE, whole=True, help=N_(
        "The tree's width W does two jobs. At each level the drafter expands at most W of the nodes it added last "
        "(the root, at first): the W it is surest of, by the product of its own probabilities (at temperature 1) "
        "along the path. And each of them gets at most W children. So a level adds at most W × W nodes, within the "
        "tree's N nodes and its depth K. How the N nodes are spread: at temperature 0, the tree keeps the N "
        "candidates the drafter is surest of over all levels (EAGLE-2's reranking); above 0, each level gets an "
        "even share of the nodes still left, "
        "so the tree can reach depth K (N = 8, K = 4: at most 2 nodes a level).")),
    "tree_lookup": Setting("tree_lookup", N_("Lookup branch (0 = none)"), *TREE_LOOKUP_RANGE, whole=True),
}
# left out of a URL at their defaults: chain links (and tree links without a lookup branch) stay as they were
TREE_FIELDS = ("tree_nodes", "tree_width", "tree_lookup")
LOOKUP_NEEDS_TREE = N_("A lookup branch needs a draft tree: set tree nodes above 0, or the lookup branch to 0 (a chain "
                       "has no lookup branch).")
THRESHOLD_NEEDS_CHAIN = N_("The threshold policy ends a chain of drafts where the draft grows unsure, and a tree drafts "
                           "all its nodes: use it with tree nodes 0, or pick another policy for a tree.")


@dataclass(frozen=True)
class RunSpec:
    """Everything that decides a trace. Hashable (it keys caches) and checked on construction.

    `proposer` None means the pair's own default. `proposer_settings` holds the proposers' own settings (the
    registry's `ProposerSetting`s, e.g. {"layers": 3} for layer-skip), given as a mapping or as (name, value) pairs
    and kept as sorted pairs; a value at its `unset` (layer-skip's 0) or None means the proposer's default and is
    left out. `proposer_setting(name)` reads one back (None: the default). A proposer ignores the ones it does
    not declare.
    `tree_nodes` > 0 drafts a tree of at most that many nodes and depth K, `tree_width` nodes expanded per level
    and children per node, and `tree_lookup` > 0 adds a branch of up to that many tokens copied from the context
    (prompt lookup).

    >>> RunSpec(pair="toy", k=3).k
    3
    >>> RunSpec(k=40)
    Traceback (most recent call last):
    ...
    ValueError: K must be a whole number from 1 to 16 (got 40).
    """

    pair: str = "default"
    proposer: str | None = None
    prompt: str = "Why is the sky blue?"
    chat: bool = True
    k: int = 4
    policy: str = "constant"
    max_new_tokens: int = 64
    temperature: float = 0.0
    top_k: int = 0
    top_p: float = 1.0
    seed: int = 0
    proposer_settings: tuple[tuple[str, int], ...] = ()
    tree_nodes: int = 0
    tree_width: int = 4
    tree_lookup: int = 0

    def __post_init__(self) -> None:
        for name, setting in SETTINGS.items():
            value = getattr(self, name)
            if value is None and name == "proposer":
                continue
            if not setting.accepts(value):
                raise ValueError(_must(_(setting.name), setting.rule(), value, setting.whole))
            object.__setattr__(self, name, setting.plain(value))
        object.__setattr__(self, "proposer_settings", _own_settings(self.proposer_settings))
        if self.tree_lookup and not self.tree_nodes:  # issue 44 item 9: accepted and silently ignored before
            raise ValueError(_(LOOKUP_NEEDS_TREE))
        if self.policy == "threshold" and self.tree_nodes:  # a tree step never asks the proposer to stop: it ran
            raise ValueError(_(THRESHOLD_NEEDS_CHAIN))     # as "constant" under the threshold's name before
        if not isinstance(self.pair, str) or not self.pair.strip():
            raise ValueError(_("Name a pair: a catalog name such as default or toy, or TARGET[,DRAFT]."))
        # the name as load_pair reads it, so the trace records it so (read 52: a trace of pair " toy" lost the toy
        # pair's <unk> tokens from its text, which is written for a trace of pair "toy")
        object.__setattr__(self, "pair", self.pair.strip())
        if not isinstance(self.prompt, str):  # read 52: prompt=3 was refused as "The prompt is empty"
            raise ValueError(_must("prompt", rule_of("prompt"), self.prompt))
        if not self.prompt.strip():
            raise ValueError(_("The prompt is empty: type something for the model to continue."))
        if refusal := prompt_refusal(self.prompt):  # checked before a model loads, as every setting is
            raise ValueError(refusal)
        if len(self.prompt) > MAX_PROMPT_CHARS:
            raise ValueError(_("The prompt has {n} characters; the limit is {limit}.", n=number(len(self.prompt), 0),
                               limit=number(MAX_PROMPT_CHARS, 0)))
        if not isinstance(self.chat, bool):
            raise ValueError(_must("chat", _("true or false"), self.chat))

    @property
    def shape(self) -> DraftShape:
        """What a step drafts, as the engine takes it: K and the three tree fields in one `DraftShape`.

        >>> RunSpec(k=3, tree_nodes=8, tree_width=2).shape.label()
        'tree 8x2 depth 3'
        """
        return DraftShape(self.k, self.tree_nodes, self.tree_width, self.tree_lookup)

    def proposer_setting(self, name: str) -> int | None:
        """The value of a proposer's own setting, None for the proposer's default."""
        return dict(self.proposer_settings).get(name)

    # ---- URLs ---------------------------------------------------------------------------------------------------
    def to_query(self) -> dict[str, str]:
        """The spec as URL parameters (strings); `from_query` reads them back to an equal spec.

        >>> RunSpec(pair="toy", temperature=0.7).to_query()["temperature"]
        '0.7'
        >>> spec = RunSpec(pair="toy", proposer="layerskip", chat=False, proposer_settings={"layers": 3})
        >>> spec.to_query()["layers"], RunSpec.from_query(spec.to_query()) == spec
        ('3', True)
        """
        query = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or f.name == "proposer_settings" or (f.name in TREE_FIELDS and value == f.default):
                continue
            query[f.name] = ("1" if value else "0") if isinstance(value, bool) else \
                float_text(value) if isinstance(value, float) else str(value)
        query.update((name, str(value)) for name, value in self.proposer_settings)  # each under its own name
        return query

    @classmethod
    def from_query(cls, params: Mapping[str, str], defaults: RunSpec | None = None) -> RunSpec:
        """The spec that URL parameters describe (missing ones from `defaults`); any bad value is a ValueError
        with one sentence naming every bad parameter.

        >>> RunSpec.from_query({"k": "99", "temperature": "hot"})
        Traceback (most recent call last):
        ...
        ValueError: These settings in the link are not valid: k must be a whole number from 1 to 16 (got 99); temperature must be a number from 0 to 2 (got 'hot').
        """
        spec, problems = cls.parse_query(params, defaults)
        if problems:
            raise ValueError(_("These settings in the link are not valid: {problems}.", problems="; ".join(problems)))
        return spec

    @classmethod
    def parse_query(cls, params: Mapping[str, str], defaults: RunSpec | None = None) -> tuple[RunSpec, list[str]]:
        """(the spec from the valid parameters on top of `defaults`, one phrase per refused parameter).
        Unknown parameter names are ignored (a page may share its own). A proposer's own setting is read under its
        own name (`layers=3`)."""
        values, problems = {}, []
        base = defaults or cls()
        own, own_names = dict(base.proposer_settings), registry.setting_names()  # read once, not per parameter
        names = [*(f.name for f in fields(cls) if f.name != "proposer_settings"), *own_names]
        for name in names:
            if name not in params:
                continue
            raw = str(params[name])
            try:
                value = _parse(name, raw)
                probe = {"proposer_settings": {**own, name: value}} if name in own_names else \
                    {name: value}
                if name == "tree_lookup" and not base.tree_nodes:
                    probe["tree_nodes"] = TREE_NODES_RANGE[1]  # its range alone: the nodes are judged with it below
                if name == "policy":  # its choices alone: the pair with the tree is judged below
                    probe.update(tree_nodes=0, tree_lookup=0)
                if name == "tree_nodes":
                    probe["policy"] = "constant"
                replace(base, **probe)  # checks the value in the spec's own terms
            except ValueError:
                # what the link says, a number bare and a word quoted (`typed`; read 50: "(got '99')")
                problems.append(setting_refusal(name, raw, name))
                continue
            if name in own_names:
                own[name] = value
                values["proposer_settings"] = own
            else:
                values[name] = value
        if values.get("tree_lookup") and not values.get("tree_nodes", base.tree_nodes):
            values.pop("tree_lookup")  # a lookup branch with no tree: refused, not silently ignored
            problems.append(lookup_refusal(params["tree_lookup"]))
        if values.get("policy", base.policy) == "threshold" and values.get("tree_nodes", base.tree_nodes):
            if "policy" in values:  # refused, not silently run as constant: the link's tree stays
                values.pop("policy")
                problems.append(threshold_refusal("policy", params["policy"]))
            else:
                values.pop("tree_nodes", None)
                problems.append(threshold_refusal("tree_nodes", params["tree_nodes"]))
            if values.get("policy", base.policy) == "threshold" and values.get("tree_nodes", base.tree_nodes):
                values["policy"] = "constant"  # both came from the defaults' side: keep the tree
        problems += _trees_fit(values, base, params)
        try:
            return replace(base, **values), problems
        except ValueError as exc:  # valid one by one but not together cannot happen today; say so if it ever does
            return base, [*problems, str(exc).rstrip(".")]


def check_named(values: Mapping[str, Any], names: Mapping[str, str]) -> None:
    """Check each value against its setting (`values` keyed by URL name: a RunSpec field or a proposer's own
    setting; None means not given), refusing a bad one with a sentence that names it as `names` says: the name the
    caller's user typed. RunSpec's own sentence names it as SETTINGS does (tree_nodes, K, top-p, Temperature), and
    `from_query`'s by its URL name (tree_nodes, k, top_p); a command line checks its flags here first, so its user
    reads --tree-nodes.

    >>> check_named({"tree_nodes": 99, "k": None}, {"tree_nodes": "--tree-nodes", "k": "--k"})
    Traceback (most recent call last):
    ...
    ValueError: --tree-nodes must be a whole number from 0 to 64 (got 99).

    A number a flag read as typed (`limits.finite_float`) that a float reads as 0 is refused as a link's is
    (`setting_refusal`; read 53: `generate --temperature 1e-400` ran greedy without a word); 0e-400 is 0.

    >>> from specviz.engine.limits import finite_float
    >>> check_named({"temperature": finite_float("1e-400")}, {"temperature": "--temperature"})
    Traceback (most recent call last):
    ...
    ValueError: --temperature must not be so close to 0 that it reads as 0 (got 1e-400).
    >>> check_named({"temperature": finite_float("0e-400")}, {"temperature": "--temperature"})
    """
    own_names = registry.setting_names()
    for name, value in values.items():
        if value is None or name in own_names and value == registry.setting(name).unset:
            continue
        setting = setting_of(name)
        if as_typed(value) is not None and setting.accepts(value) and urlvalues.reads_as_zero(as_typed(value)):
            raise ValueError(_("{name} must not be so close to 0 that it reads as 0 (got {value}).",
                               name=names.get(name, name), value=typed(as_typed(value))))
        if not setting.accepts(value):
            raise ValueError(_must(names.get(name, name), setting.rule(), value, setting.whole))


def _parse(name: str, raw: str) -> Any:
    """A URL string as the type of the spec's field `name` (ValueError when it is not one)."""
    if name == "chat":
        value = {"1": True, "true": True, "0": False, "false": False}.get(raw.lower())
        if value is None:
            raise ValueError(raw)
        return value
    if name in ("pair", "prompt"):
        return raw
    setting = setting_of(name)
    if setting.choices is not None:
        return raw
    # ASCII digits, bounded length (specviz.core.urlvalues): int() would read "٣" and "５", float() "nan" and "1_0"
    number = (urlvalues.whole(raw, -10**15, 10**15) if setting.whole else urlvalues.decimal(raw, -1e15, 1e15))
    if number is None:
        raise ValueError(raw[:40])
    return number


def rule_of(name: str) -> str:
    """What the setting under URL name `name` accepts, as words for a refusal: "a whole number from 1 to 16"."""
    if name == "chat":
        return _("1 or 0")
    if name == "pair":
        return _("a pair name")
    if name == "prompt":
        return _("text of 1 to {limit} characters", limit=number(MAX_PROMPT_CHARS, 0))
    return setting_of(name).rule()


def _own_settings(given: Mapping[str, Any] | tuple | list) -> tuple[tuple[str, int], ...]:
    """The proposers' own settings as sorted (name, value) pairs, each checked against its declared range, the ones
    at their default (None or the setting's `unset`) left out; a bad name or value is a ValueError with one
    sentence."""
    try:
        items = dict(given)
    except (TypeError, ValueError):
        raise ValueError(_("The proposers' own settings must be names with whole numbers, such as layers=3.")) from None
    kept = {}
    for name, value in items.items():
        declared = registry.setting(str(name))
        if value is None or value == declared.unset and not isinstance(value, bool):
            continue
        setting = own_setting(declared.name)
        if not setting.accepts(value):
            raise ValueError(_must(declared.name, setting.rule(), value))
        kept[declared.name] = setting.plain(value)
    return tuple(sorted(kept.items()))


def link_refusal(name: str, raw: object, rule: str) -> str:
    """The phrase that refuses one parameter of a link, as `parse_query` words it: the parameter as the link writes
    it, what it accepts and the value typed (`typed`: a number bare, a word quoted, a control character escaped).
    A page that offers less than RunSpec allows passes its own rule (read 52: the Playground and the race named only
    the parameter, "…not valid (max_new_tokens)", not the value nor the range).

    >>> link_refusal("race_k", "40", rule_of("k"))
    'race_k must be a whole number from 1 to 16 (got 40)'
    """
    return _("{name} must be {rule} (got {value}).", name=name, rule=rule, value=typed(raw)).rstrip(".")


def _trees_fit(values: dict, base: RunSpec, params: Mapping[str, str]) -> list[str]:
    """Drop, with a phrase each, the link's parameters that ask a tree for more nodes than its depth and width hold
    (`draft_shape.tree_holds`; read 55: tree_nodes=64 with k=1, tree_width=8 built trees of 8 nodes without a word):
    the link's tree_nodes first, else its k and tree_width that shrank the tree below the defaults' budget.

    >>> _trees_fit({"k": 1, "tree_nodes": 64, "tree_width": 8}, RunSpec(), {"tree_nodes": "64"})
    ['tree_nodes must be at most 8 while k is 1 and tree_width is 8, the most a tree that deep and wide can hold \
(got 64)']
    """
    def over() -> tuple[int, int, int] | None:
        nodes, k, width = (values.get(name, getattr(base, name)) for name in ("tree_nodes", "k", "tree_width"))
        return (nodes, k, width) if nodes and nodes > tree_holds(k, width) else None

    problems = []
    if (asked := over()) and "tree_nodes" in values:
        nodes, k, width = asked
        values.pop("tree_nodes")
        problems.append(link_refusal("tree_nodes", params["tree_nodes"], _(
            "at most {most} while k is {k} and tree_width is {width}, the most a tree that deep and wide can hold",
            most=tree_holds(k, width), k=k, width=width)))
    if asked := over():
        for name in ("k", "tree_width"):
            if name in values:
                values.pop(name)
                problems.append(link_refusal(name, params[name], _(
                    "one that, with the other of k and tree_width, makes a tree that holds tree_nodes {nodes}: a "
                    "tree {k} deep and {width} wide holds only {most}",
                    nodes=asked[0], k=asked[1], width=asked[2], most=tree_holds(asked[1], asked[2]))))
    return problems


def lookup_refusal(raw: object) -> str:
    """The phrase that refuses a link's lookup branch `raw` given with no tree, as `link_refusal` words every other
    parameter: its name, the rule and the value (read 54: `parse_query` still wrote "A lookup branch needs a draft
    tree: set tree nodes above 0, …", which named neither, where the Playground's warning had been given them).

    >>> lookup_refusal("3")
    'tree_lookup must be 0 while tree_nodes is 0, as a chain has no lookup branch (got 3)'
    """
    return link_refusal("tree_lookup", raw, _("0 while tree_nodes is 0, as a chain has no lookup branch"))


def threshold_refusal(name: str, raw: object) -> str:
    """The phrase that refuses a link's threshold policy with a tree (`name` "policy") or its tree with the threshold
    policy (`name` "tree_nodes"), as `link_refusal` words every other parameter: its name, the rule and the value
    (read 54: `parse_query` wrote "The threshold policy ends a chain of drafts …", which named neither).

    >>> threshold_refusal("policy", "threshold")
    "policy must be another policy than threshold while tree_nodes is above 0, as only a chain stops where the draft \
grows unsure and a tree drafts all its nodes (got 'threshold')"
    >>> threshold_refusal("tree_nodes", "8")
    'tree_nodes must be 0 under the threshold policy, as only a chain stops where the draft grows unsure and a tree \
drafts all its nodes (got 8)'
    """
    rule = _("another policy than threshold while tree_nodes is above 0, as only a chain stops where the draft grows "
             "unsure and a tree drafts all its nodes") if name == "policy" else \
        _("0 under the threshold policy, as only a chain stops where the draft grows unsure and a tree drafts all "
          "its nodes")
    return link_refusal(name, raw, rule)


def setting_refusal(name: str, raw: object, field: str) -> str:
    """The phrase that refuses parameter `name` of a link, which gives RunSpec's `field` (or a proposer's own
    setting) the text `raw`: `link_refusal`'s, or, for a number typed non-zero that a float reads as 0, one that
    says so where 0 is allowed (read 53: `temperature=1e-400` ran greedy without a word; "a number from 0 to 2"
    would not say why).

    >>> setting_refusal("race_temperature", "1e-400", "temperature")
    'race_temperature must not be so close to 0 that it reads as 0 (got 1e-400)'
    >>> setting_refusal("k", "1e-400", "k")
    'k must be a whole number from 1 to 16 (got 1e-400)'
    """
    setting = None if field in ("chat", "pair", "prompt") else setting_of(field)
    if setting is not None and setting.choices is None and not setting.whole and setting.lo <= 0 <= setting.hi \
            and urlvalues.reads_as_zero(raw):  # where 0 is out of range, the range says why: top_p=1e-400
        return _("{name} must not be so close to 0 that it reads as 0 (got {value}).", name=name,
                 value=typed(raw)).rstrip(".")
    return link_refusal(name, raw, rule_of(field))


def _must(name: str, rule: str, value: Any, whole: bool = True) -> str:
    """The sentence that refuses one value: "K must be a whole number from 1 to 16 (got 40)." `whole`: the setting
    takes whole numbers only (how `_shown` quotes a float)."""
    return _("{name} must be {rule} (got {value}).", name=name, rule=rule, value=_shown(value, whole))


def float_text(x: float) -> str:
    """A float as a URL writes it: short (0.7, 1) when that reads back as the same number, else every digit
    Python keeps (0.1234567, where "{:g}" would write 0.123457 and the link would run another temperature).

    >>> float_text(0.7), float_text(1.0), float_text(0.1234567)
    ('0.7', '1', '0.1234567')
    """
    short = f"{x:g}"
    return short if float(short) == x else repr(x)


def _num(x: float) -> str:
    """A bound as a rule writes it: 0.01, 2 (0,01 in Portuguese); a whole one grouped, 2,048 (2.048), as the pages
    write counts."""
    return localized(f"{x:g}") if isinstance(x, float) else number(x, 0)


def _shown(value: Any, whole: bool = True, limit: int = 40) -> str:
    """The refused value as the sentence quotes it, with the reader's decimal mark (as the rule's bounds are
    written): a finite float for a number setting (temperature, top-p) as typed, `given`'s way (`--top-p 0` reads
    "(got 0)", not "(got 0.0)", read 47); one for a whole setting as Python writes it, with its ".0" (3.0, so the
    refusal does not read "(got 3)"); anything else as Python writes it. A negative number with the minus sign
    U+2212 (`with_minus`), as every number is written: "(got −1)" for a whole setting as for a number setting.

    >>> _shown(0.0, whole=False), _shown(3.0, whole=False), _shown(1.5, whole=False), _shown(3.0), _shown("hot")
    ('0', '3', '1.5', '3.0', "'hot'")
    >>> _shown(-1), _shown(-1.0, whole=False)
    ('−1', '−1')

    A whole number too long to quote is written as `given` writes it, 1e+5000 (read 50: repr of an int of more than
    4,300 digits raised Python's "Exceeds the limit (4300 digits) for integer string conversion", which became the
    refusal).

    >>> _shown(10**5000), _shown(-(10**60))
    ('1e+5000', '−1e+60')

    A number a flag read (`limits.finite_float`) is quoted as typed: `--temperature 1e9` "(got 1e9)".

    >>> from specviz.engine.limits import finite_float
    >>> _shown(finite_float("1e9"), whole=False), _shown(finite_float("1e1"), whole=False)
    ('1e9', '1e1')
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**limit:
        return given(value)
    if as_typed(value) is not None:  # a flag's number as the user typed it: 1e9, not 1e+09 (read 52)
        return typed(as_typed(value))
    finite = isinstance(value, float) and math.isfinite(value)
    text = with_minus((given(value) if not whole else localized(repr(value))) if finite else repr(value))
    return text if len(text) <= limit else text[: limit - 1] + "…"
