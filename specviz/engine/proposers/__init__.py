"""Who proposes the drafted tokens: a separate draft model, n-gram prompt lookup, a layer-skip self-draft, an
EAGLE-style feature drafter, or Medusa heads. `specviz.engine.proposers.registry` says what each is; `make_proposer`
builds one by name.

Light to import: the proposer classes (and torch) load when first named, so the registry can be read by the
limits, the run spec, the CLI and the pages without them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from specviz.engine.proposers import registry

if TYPE_CHECKING:
    from specviz.engine.proposers.base import Proposer

# name -> the submodule that defines it, imported on first use
_LAZY = {
    "Proposal": "specviz.engine.proposers.base", "Proposer": "specviz.engine.proposers.base",
    "DraftModelProposer": "specviz.engine.proposers.draft_model", "EagleDrafter": "specviz.engine.proposers.eagle",
    "EagleProposer": "specviz.engine.proposers.eagle", "LayerSkipProposer": "specviz.engine.proposers.layerskip",
    "default_layers": "specviz.engine.proposers.layerskip", "early_exit_model": "specviz.engine.proposers.layerskip",
    "NgramProposer": "specviz.engine.proposers.ngram", "prompt_lookup": "specviz.engine.proposers.ngram",
    "template_tokens": "specviz.engine.proposers.ngram",
}

__all__ = ["PROPOSERS", *_LAZY, "make_proposer"]


def __getattr__(name: str) -> Any:
    if name == "PROPOSERS":  # read when asked, so a proposer registered later is in it
        return registry.names()
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_proposer(pair, name: str | None = None, **settings: Any) -> Proposer:
    """The proposer called `name` for a loaded `specviz.models.pairs.Pair` (its default when name is None), with its own
    settings (`layers=` for layer-skip; None or absent: the proposer's default; others are ignored)."""
    return registry.get(name or pair.default_proposer).make(pair, **settings)
