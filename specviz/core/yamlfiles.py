"""YAML files the app reads again and again, parsed once per version of the file.

The model catalog (assets/catalog.yaml) is read by every Playground run (the presets' "fastest here" figures) and
the bench's prompt suites (assets/prompts/*.yaml) by every page that words a benchmark's command; PyYAML's own
parser took about a tenth of those pages' rendering (py-spy over the UI tests, 2026-12-06). `read_yaml` keeps
the parsed document per file and parses again only when the file changes. It stays on PyYAML's pure-Python safe
loader: libyaml's C loader composes nested nodes by C recursion, and a file nested thousands of levels deep (which
the readers refuse in one sentence, catching RecursionError) must not reach the C stack.

    >>> from specviz.core.paths import SOURCE_ROOT
    >>> read_yaml(SOURCE_ROOT / "assets" / "catalog.yaml")["pairs"][0]["name"]
    'default'
"""

from __future__ import annotations

import copy
import functools
import os
from pathlib import Path
from typing import Any

import yaml


def read_yaml(path: str | Path) -> Any:
    """The document in the YAML file at `path` (PyYAML's safe loader), parsed again only when the file's size or
    modification time changes; a deep copy each time, so a caller that edits what it got cannot change what the
    next caller gets. OSError, UnicodeDecodeError, yaml.YAMLError and RecursionError reach the caller, which words
    them."""
    path = Path(path)
    stat = os.stat(path)
    return copy.deepcopy(_parsed(str(path.resolve()), stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=64)
def _parsed(path: str, mtime_ns: int, size: int) -> Any:
    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))
