"""Example traces shipped with specviz: replayed instantly, with no model loaded.

Each example is a pair of files under `assets/traces/`, written by `python -m specviz.scripts.make_traces`:

    <name>.json           the speculative trace (its `meta` holds the title and description)
    <name>.baseline.json  target-only decoding of the same prompt with the same settings (optional)

    >>> names = [e.name for e in list_examples()]
    >>> "toy-draft" in names
    True
    >>> spec, base = load_example("toy-draft")
    >>> spec.mode, base.mode
    ('speculative', 'autoregressive')

Public API (other pages import it; keep it stable): `Example`, `TRACES_DIR`, `DEFAULT_EXAMPLE`,
`list_examples()`, `get_example(name)`, `load_example(name)`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from specviz.paths import TRACES_DIR
from specviz.trace import Trace

BASELINE_SUFFIX = ".baseline.json"
# The example the Playground opens with; the others follow in this order, then any extra files by name.
ORDER = ("smollm-ngram-t07", "smollm-eagle-greedy", "toy-draft", "smollm-layerskip-t07", "smollm-draft-greedy",
         "smollm-ngram-greedy")
DEFAULT_EXAMPLE = ORDER[0]


@dataclass(frozen=True)
class Example:
    """One shipped example: `name` is the file stem; `paths` is (speculative,) or (speculative, baseline)."""

    name: str
    title: str
    description: str
    paths: tuple[Path, ...]

    @property
    def path(self) -> Path:
        """The speculative trace file."""
        return self.paths[0]

    @property
    def baseline_path(self) -> Path | None:
        """The target-only trace file, when there is one."""
        return self.paths[1] if len(self.paths) > 1 else None


def list_examples(folder: Path | None = None) -> list[Example]:
    """Every example in `folder` (default `assets/traces/`), the default example first."""
    folder = Path(folder) if folder is not None else TRACES_DIR
    files = sorted(p for p in folder.glob("*.json") if not p.name.endswith(BASELINE_SUFFIX)) if folder.is_dir() else []
    rank = {name: i for i, name in enumerate(ORDER)}
    files.sort(key=lambda p: (rank.get(p.stem, len(ORDER)), p.stem))
    return [_example(p, p.stat().st_mtime_ns) for p in files]


def get_example(name: str, folder: Path | None = None) -> Example:
    """The example called `name`; an unknown name is a ValueError with one sentence."""
    examples = list_examples(folder)
    for example in examples:
        if example.name == name:
            return example
    choices = ", ".join(e.name for e in examples) or "none are installed"
    raise ValueError(f"There is no example trace called '{name}' (choose from: {choices}).")


def load_example(name: str, folder: Path | None = None) -> tuple[Trace, Trace | None]:
    """The speculative trace of example `name` and its target-only baseline (None when the file is missing).

    Each call returns fresh objects, so a caller may change them freely.
    """
    example = get_example(name, folder)
    spec = Trace.from_json(_read(example.path, example.path.stat().st_mtime_ns))
    spec.meta.setdefault("example", example.name)
    base = None
    if example.baseline_path is not None:
        base = Trace.from_json(_read(example.baseline_path, example.baseline_path.stat().st_mtime_ns))
    return spec, base


@lru_cache(maxsize=32)
def _read(path: Path, mtime_ns: int) -> str:
    return path.read_text(encoding="utf-8")


@lru_cache(maxsize=64)
def _example(path: Path, mtime_ns: int) -> Example:
    try:
        meta = json.loads(_read(path, mtime_ns)).get("meta") or {}
    except (ValueError, AttributeError):
        meta = {}
    baseline = path.with_name(path.stem + BASELINE_SUFFIX)
    paths = (path, baseline) if baseline.is_file() else (path,)
    return Example(path.stem, str(meta.get("title") or path.stem), str(meta.get("description") or ""), paths)
