"""specviz: run speculative decoding on real models and see every step of it.

The public API is importable from the top level, and loaded on first use, so that `import specviz` stays light
(no torch) and a page or script pays only for what it touches:

    >>> from specviz import Trace
    >>> Trace.__module__
    'specviz.engine.trace'
    >>> import specviz
    >>> "speculative_generate" in dir(specviz)
    True

Library modules import from the module that defines a name, never from here (tests/project/test_layers.py holds that).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> the module that defines it. To publish a name, add one line.
_LAZY: dict[str, str] = {
    "speculative_generate": "specviz.engine.decoding",
    "autoregressive_generate": "specviz.engine.baseline",
    "load_pair": "specviz.models.pairs",
    "make_proposer": "specviz.engine.proposers",
    "Trace": "specviz.engine.trace",
    "TokenKind": "specviz.engine.kinds",
    "RunSpec": "specviz.runs.runspec",
    "run": "specviz.runs.running",
    "run_target_only": "specviz.runs.running",
    "DraftShape": "specviz.engine.draft_shape",
    "choose_shape": "specviz.labs.shape_choice",
    "calibrate": "specviz.labs.calibration",
}

__all__ = ["__version__", *_LAZY]

if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names arrive through __getattr__
    from specviz.engine.baseline import autoregressive_generate
    from specviz.engine.decoding import speculative_generate
    from specviz.engine.draft_shape import DraftShape
    from specviz.engine.kinds import TokenKind
    from specviz.engine.proposers import make_proposer
    from specviz.engine.trace import Trace
    from specviz.labs.calibration import calibrate
    from specviz.labs.shape_choice import choose_shape
    from specviz.models.pairs import load_pair
    from specviz.runs.running import run, run_target_only
    from specviz.runs.runspec import RunSpec


def __getattr__(name: str) -> Any:
    """Import the module that defines `name` on first access, then keep the name here (PEP 562)."""
    try:
        module = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'specviz' has no attribute '{name}'") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names, loaded or not (what tab completion offers)."""
    return sorted(__all__)
