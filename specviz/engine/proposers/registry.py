"""Who can draft, declared once: each proposer's name, its label and note for the pages, whether it can branch into a
tree, what a pair must bring for it, its own settings, and the factory that builds it.

    >>> names()
    ('draft', 'ngram', 'layerskip', 'eagle', 'medusa')
    >>> get("ngram").can_branch, get("layerskip").setting_names
    (False, ('layers',))

Everything that names proposers reads this: `make_proposer`, the limits, the catalog's check, `RunSpec`, the CLI and
the bench, and every menu (Playground, race, Speedup lab, Proposers page). A new proposer is one file with its class
and a factory `from_pair(pair, **settings)`, plus one `register(...)` line below. Plain data: the factory is named
by a 'module:function' string (or is a function that imports inside), so reading the registry loads no torch.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from specviz.core.i18n import N_, _, ngettext
from specviz.core.text import control_shown, shortened
from specviz.core.digits import plain_int


@dataclass(frozen=True)
class ProposerSetting:
    """A setting of one proposer's own, a whole number in [lo, hi]. Declared here once, it becomes an entry of
    `RunSpec.proposer_settings`, a URL parameter and a CLI and bench flag (`--name`, dashes for underscores), and a
    Playground input, all under `name`. `label` and `help` are English messages (marked with `N_`).

    `unset` is the value a form or a link writes for "the proposer's default" (layer-skip's 0 = a quarter of the
    layers); a spec stores it as absent. `most(pair)`, when given, is the largest value that makes sense for a
    pair by name (None when it does not know the pair), for a form's upper bound; a 'module:function' string is
    imported only when asked."""

    name: str
    label: str
    lo: int
    hi: int
    unset: int | None = None
    help: str = ""
    most: str | Callable[[str], int | None] | None = None

    @property
    def flag(self) -> str:
        """Its command-line flag: `--layers`, `--draft-depth` for a setting named draft_depth."""
        return "--" + self.name.replace("_", "-")

    def most_for(self, pair: str) -> int:
        """The largest value a form offers for `pair`: what `most` says, else `hi`."""
        found = None if self.most is None else _imported(self.most)(pair)
        return self.hi if found is None else max(self.lo, min(self.hi, int(found)))


@dataclass(frozen=True)
class ProposerInfo:
    """What one proposer is. `label` (a menu's capitalised entry), `phrase` (the same in lower case, as the race's
    menu shows it) and `note` (one line under a picker) are English messages, marked with `N_`.

    `factory(pair, **settings)` builds it for a loaded pair, with the values of its own `settings` (None for a
    default); a 'module:function' string is imported only then. `twin(pair, proposer)`, when given, says what
    transformers' own generation runs for the same method (`specviz.labs.bench` times it beside specviz's):
    {"assistant": a model for assisted generation} or {"prompt_lookup": True}; None: transformers has no twin
    (`twin_method` names what it ran). `needs` is what the pair must bring besides its target: "draft" (a separate
    draft model), "eagle" (a trained EAGLE drafter), "medusa" (trained Medusa heads), or None (nothing).
    `timed_as` says how the bench times one drafting step for c (`TIMED_AS`): "model" (the default: one forward of
    the proposer's own draft model, `proposer.runner.model`), "features" (one pass of a drafter that reads the
    target's features, after they are handed over) or "lookup" (a prompt lookup: no model runs; a line says so
    itself, so a new proposer is never called a lookup by default, read 49). `one_pass`: a step drafts
    every token in one pass (the Medusa heads: every head's block reads one hidden state, then the LM head runs once
    over all of them; n-gram lookup: one search copies every token, and c times that search), so the predicted
    speedups charge c once per step, not K·c (`theory.draft_cost`; read 49: K·c charged n-gram K searches)."""

    name: str
    label: str
    phrase: str
    note: str
    factory: str | Callable[..., Any]
    can_branch: bool = False
    needs: str | None = None
    settings: tuple[ProposerSetting, ...] = ()
    twin: str | Callable[..., Any] | None = None
    timed_as: str = "model"
    one_pass: bool = False

    def __post_init__(self) -> None:
        if self.timed_as not in TIMED_AS:
            raise ValueError(f"timed_as must be one of {', '.join(TIMED_AS)} (got {self.timed_as!r}).")

    @property
    def needs_draft_model(self) -> bool:
        return self.needs == "draft"

    @property
    def setting_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.settings)

    def make(self, pair, **settings: Any):
        """The proposer for `pair`; settings it does not declare are ignored (callers pass the same ones to all).
        What this line says of branching must be what the class does (a menu offers trees from this line)."""
        proposer = _imported(self.factory)(pair, **{name: settings.get(name) for name in self.setting_names})
        if bool(getattr(proposer, "can_branch", False)) != self.can_branch:
            raise ValueError(f"The registry says '{self.name}' can{'' if self.can_branch else 'not'} branch, but "
                             f"its class {type(proposer).__name__} does{'' if proposer.can_branch else ' not'}.")
        if bool(getattr(proposer, "needs_target_features", False)) != (self.timed_as == "features"):
            raise ValueError(f"The registry times '{self.name}' as {self.timed_as!r}, but its class "
                             f"{type(proposer).__name__} does{'' if proposer.needs_target_features else ' not'} read "
                             "the target's features.")
        if self.timed_as == "model" and getattr(getattr(proposer, "runner", None), "model", None) is None:
            raise ValueError(f"The registry times '{self.name}' as 'model', but its class {type(proposer).__name__} "
                             "has no draft model (runner.model); a proposer that runs none says timed_as='lookup'.")
        return proposer

    def transformers_twin(self, pair, proposer) -> dict | None:
        """What transformers runs for the same method with this pair and built proposer (`twin`), or None."""
        return None if self.twin is None else _imported(self.twin)(pair, proposer)


TIMED_AS = ("model", "features", "lookup")  # how the bench times one drafting step (`ProposerInfo.timed_as`)


def twin_method(twin: dict | None) -> str | None:
    """What transformers runs as a proposer's twin (`ProposerInfo.transformers_twin`), in the bench's words.

    >>> twin_method({"prompt_lookup": True}), twin_method({"assistant": None}), twin_method(None)
    ('prompt lookup', 'assisted generation', None)
    """
    if not twin:
        return None
    return "prompt lookup" if twin.get("prompt_lookup") else "assisted generation"


def _imported(function: str | Callable[..., Any]) -> Callable[..., Any]:
    """A function given as itself or as a 'module:function' string (imported now)."""
    if isinstance(function, str):
        module, _sep, name = function.partition(":")
        return getattr(importlib.import_module(module), name)
    return function


_REGISTRY: dict[str, ProposerInfo] = {}


def register(info: ProposerInfo) -> ProposerInfo:
    """Add a proposer (after the ones registered before it: that order is every list's). A name is registered once."""
    if info.name in _REGISTRY:
        raise ValueError(f"A proposer named '{info.name}' is registered already.")
    for own in info.settings:  # one name, one meaning: a URL parameter and a flag cannot mean two things
        known = next((s for s in all_settings() if s.name == own.name), None)
        if known is not None and known != own:
            raise ValueError(f"The setting '{own.name}' is declared already with another range or label.")
    _REGISTRY[info.name] = info
    return info


def unregister(name: str) -> None:
    """Remove a proposer (a test's dummy, after the test)."""
    _REGISTRY.pop(name, None)


def names() -> tuple[str, ...]:
    """Every proposer's name, in registration order."""
    return tuple(_REGISTRY)


def proposers() -> tuple[ProposerInfo, ...]:
    return tuple(_REGISTRY.values())


def get(name: str) -> ProposerInfo:
    """The proposer called `name`; an unknown name is a ValueError with one sentence."""
    if name not in _REGISTRY:
        raise ValueError(_("Unknown proposer '{name}': choose one of {choices}.", name=shortened(str(name)),
                           choices=", ".join(_REGISTRY)))
    return _REGISTRY[name]


def label_of(name: str) -> str:
    """A proposer's menu label, an English message (a name the registry does not know is shown as it is)."""
    return _REGISTRY[name].label if name in _REGISTRY else name


def menu_label(name: str) -> str:
    """`label_of` in the reader's language, its first letter a capital as a menu entry's is. EAGLE's and Medusa's
    label and phrase are one English message, translated once in the lower case a sentence needs ("rascunhador
    EAGLE ..."); a menu capitalises it here. A name the registry does not know is shown as it is.

    A layer-skip draft's own name, "layerskip-7" (a trace's or a bench's: `LayerSkipProposer` names itself by its
    layers), reads as its label with its layers (read 47: the Playground's settings line said "proposer:
    layerskip-7"), which are the target's first layers the draft runs, not the ones it skips (Read 48: "7 layers"
    left that open); another name the registry does not know is shown as it is.

    >>> menu_label("draft"), menu_label("eagle"), menu_label("layerskip-7"), menu_label("mystery")
    ('Draft model', 'EAGLE feature drafter (trained)', "Layer-skip self-draft (the target's first 7 layers)", 'mystery')
    """
    if (with_layers := _with_own_layers(name, menu_label)) is not None:
        return with_layers
    if name not in _REGISTRY:
        return name
    text = _(_REGISTRY[name].label)
    return text[:1].upper() + text[1:]


def _with_own_layers(name: str, named: Callable[[str], str]) -> str | None:
    """A layer-skip draft's own name ("layerskip-7") as `named` gives its proposer, with the target's first layers
    it runs; None for any other name. One reading for `menu_label` and `phrase_text`."""
    base, _dash, layers = name.partition("-")
    own = _REGISTRY[base].setting_names if base in _REGISTRY else ()
    if name in _REGISTRY or not layers.isdigit() or own != ("layers",):
        return None
    return ngettext("{label} (the target's first layer)", "{label} (the target's first {n} layers)", int(layers),
                    label=named(base))


def phrase_of(name: str) -> str:
    """A proposer's name inside a sentence (`phrase`, an English message); a name the registry does not know, such as
    a benchmark's "layerskip-7", is shown as it is."""
    return _REGISTRY[name].phrase if name in _REGISTRY else name


def phrase_text(name: str) -> str:
    """A proposer's name inside a sentence in the reader's language: `phrase_of` translated, and a layer-skip draft's
    own name ("layerskip-7", a bench's) as its phrase with the target's first layers it runs, as `menu_label` names
    it in a menu (Read 48: the Speedup lab's verdict said "layerskip-7" under a menu that said "Layer-skip self-draft
    (the target's first 7 layers)"); another name the registry does not know is shown as it is.

    >>> phrase_text("draft"), phrase_text("layerskip-7"), phrase_text("mystery")
    ('draft model', "layer-skip self-draft (the target's first 7 layers)", 'mystery')
    """
    if (with_layers := _with_own_layers(name, lambda base: _(_REGISTRY[base].phrase))) is not None:
        return with_layers
    return _(phrase_of(name)) if name in _REGISTRY else name


def note_of(name: str) -> str | None:
    """The line that explains a proposer (an English message), if it has one."""
    info = _REGISTRY.get(name)
    return info.note if info is not None and info.note else None


def can_branch(name: str) -> bool:
    """Whether the proposer can draft a tree (False for a name not registered)."""
    return name in _REGISTRY and _REGISTRY[name].can_branch


def copies(name: str) -> bool:
    """Whether the proposer called `name` copies its tokens from the context (a prompt lookup, `timed_as`
    "lookup"): no model scores them, so their q = 1 is a point mass, not a confidence (False for an unknown name).

    >>> copies("ngram"), copies("draft"), copies("no such proposer")
    (True, False, False)
    """
    return name in _REGISTRY and _REGISTRY[name].timed_as == "lookup"


def one_pass(name: str) -> bool:
    """Whether the proposer called `name` drafts a step's tokens in one pass (`ProposerInfo.one_pass`); a name the
    registry does not know (an old result's) drafts one pass per token, as the paper's formula charges."""
    return name in _REGISTRY and _REGISTRY[name].one_pass


def takes(name: str, setting: str) -> bool:
    """Whether the proposer has the setting of its own (layer-skip's "layers")."""
    return name in _REGISTRY and setting in _REGISTRY[name].setting_names


def all_settings() -> tuple[ProposerSetting, ...]:
    """Every proposer's own settings, each once, in registration order: what RunSpec, the URL, the CLI, the bench
    and the Playground offer."""
    found: dict[str, ProposerSetting] = {}
    for info in _REGISTRY.values():
        for own in info.settings:
            found.setdefault(own.name, own)
    return tuple(found.values())


def setting_names() -> tuple[str, ...]:
    return tuple(s.name for s in all_settings())


def setting(name: str) -> ProposerSetting:
    """A proposer's own setting by its name ("layers"), whichever proposer declares it; an unknown name is a
    ValueError with one sentence."""
    found = next((s for s in all_settings() if s.name == name), None)
    if found is None:
        raise ValueError(_("Unknown proposer setting '{name}': the proposers' own settings are {choices}.",
                           name=control_shown(shortened(str(name))), choices=", ".join(setting_names()) or _("none")))
    return found


def add_setting_flags(parser) -> None:
    """One flag per proposer's own setting on an argparse parser (`--layers N`), in the registry's words; the
    values are checked where they are used (RunSpec, BenchConfig), with one sentence."""
    for own in all_settings():  # left out: the proposer's default, which `unset` (layer-skip's 0) also asks for
        default = "the proposer's own" if own.unset is None else own.unset
        parser.add_argument(own.flag, dest=own.name, type=plain_int, default=None, metavar="N",
                            help=f"{own.label} ({own.lo}..{own.hi}; default: {default})")


def settings_from_args(args) -> dict[str, int]:
    """The proposers' own settings given on the command line (those left out are absent)."""
    return {own.name: getattr(args, own.name) for own in all_settings() if getattr(args, own.name, None) is not None}


def settings_as_flags(values: dict[str, int]) -> list[str]:
    """The command-line flags that give `values` back (`["--layers 3"]`), for a printed command."""
    return [f"{setting(name).flag} {value}" for name, value in sorted(values.items())]


def offered(drafters: Iterable[str] = ()) -> tuple[str, ...]:
    """The proposers a pair can run that has `drafters` besides its target ("eagle", "draft"), best first: those
    that draft with what the pair brings, in the order given, then those that need nothing, in registration order.

    >>> offered(("eagle", "draft")), offered()
    (('eagle', 'draft', 'ngram', 'layerskip'), ('ngram', 'layerskip'))
    """
    drafters = tuple(drafters)
    own = [info.name for d in drafters for info in _REGISTRY.values() if info.needs == d]
    return (*own, *(info.name for info in _REGISTRY.values() if info.needs is None))


# ---- the built-in proposers (one line each) ---------------------------------------------------------------------

register(ProposerInfo(
    "draft", N_("Draft model"), N_("draft model"),
    N_("**Draft model**: a small separate model guesses; for SmolLM2, its first 3 layers plus 1 trained layer."),
    "specviz.engine.proposers.draft_model:from_pair", can_branch=True, needs="draft",
    twin="specviz.engine.proposers.draft_model:transformers_twin", timed_as="model"))
register(ProposerInfo(
    "ngram", N_("N-gram lookup (no model)"), N_("n-gram lookup (no model)"),
    N_("**N-gram lookup**: no model at all: it finds the last few tokens earlier in the text and copies what "
       "followed them. It shines when the answer repeats the prompt. The tokens it copies are its drafts and count as "
       "drafted tokens (a draft tree's lookup branch also copies, but its copies are counted apart)."),
    "specviz.engine.proposers.ngram:from_pair", twin="specviz.engine.proposers.ngram:transformers_twin",
    timed_as="lookup", one_pass=True))
register(ProposerInfo(
    "layerskip", N_("Layer-skip self-draft"), N_("layer-skip self-draft"),
    # read 52: "so the guesses are rarely right" under the toy pair's menu, where sampling keeps about a third
    N_("**Layer-skip**: the target's own first layers guess, untrained for it: on SmolLM2 the guesses are rarely "
       "right, a way to see speculation fail."),
    "specviz.engine.proposers.layerskip:from_pair", can_branch=True,
    settings=(ProposerSetting(
        "layers", N_("Layers the layer-skip draft keeps (0 = a quarter, rounded down, at least 1)"), 0,
        128, unset=0,
        help=N_("More layers: the draft agrees with the target more often, but each draft costs more."),
        most="specviz.engine.proposers.layerskip:most_layers"),),
    twin="specviz.engine.proposers.layerskip:transformers_twin", timed_as="model"))
register(ProposerInfo(
    "eagle", N_("EAGLE feature drafter (trained)"), N_("EAGLE feature drafter (trained)"),
    N_("**EAGLE**: one small layer, trained here, that guesses the next tokens from the target's own hidden states "
       "(its internal summary of the text so far)."),
    "specviz.engine.proposers.eagle:from_pair", can_branch=True, needs="eagle", timed_as="features"))
register(ProposerInfo(
    "medusa", N_("Medusa heads (trained)"), N_("Medusa heads (trained)"),
    N_("**Medusa**: extra heads, trained here, on the target's last hidden state; head k guesses draft k, the token "
       "k places after the one the target's own head predicts, without seeing the drafts before it."),
    "specviz.engine.proposers.medusa:from_pair", can_branch=True, needs="medusa", timed_as="features",
    one_pass=True))
