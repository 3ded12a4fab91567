"""Where specviz finds its files: the bundled assets and the user cache. The one module that knows.

The assets (example traces, quiz banks, prompt suites, trained drafts, benchmark results, the catalog) live in the
repository's top-level `assets/` folder. They are found from this file, never from the current directory:

- a source checkout or an editable install (`pip install -e .`): `<checkout>/assets/`, next to the package;
- a regular install (`pip install .`): the wheel carries the same folder inside the package, `specviz/assets/`
  (pyproject.toml maps `assets/` to the package `specviz.assets`).

    >>> CATALOG_PATH.name, CATALOG_PATH.is_file()
    ('catalog.yaml', True)
    >>> TRACES_DIR.relative_to(ASSETS).as_posix()
    'traces'

Converted models and other per-user files go to `cache_dir()`: `$SPECVIZ_CACHE`, else `~/.cache/specviz`.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ASSETS", "BENCHMARKS_DIR", "CATALOG_PATH", "MODELS_DIR", "PROMPTS_DIR", "QUIZ_DIR", "SCREENSHOTS_DIR",
           "SOURCE_ROOT", "TRACES_DIR", "cache_dir"]

CACHE_ENV = "SPECVIZ_CACHE"

_PACKAGE = Path(__file__).resolve().parent


def _find_assets() -> Path:
    """The assets folder: inside the package when installed from a wheel, else next to the package."""
    installed = _PACKAGE / "assets"
    return installed if (installed / "catalog.yaml").is_file() else _PACKAGE.parent / "assets"


ASSETS = _find_assets()
CATALOG_PATH = ASSETS / "catalog.yaml"
TRACES_DIR = ASSETS / "traces"  # example traces: <name>.json and <name>.baseline.json
QUIZ_DIR = ASSETS / "quiz"  # the bundled quiz bank, *.yaml
PROMPTS_DIR = ASSETS / "prompts"  # bench prompt suites, *.yaml
MODELS_DIR = ASSETS / "models"  # the trained drafts, one folder each
BENCHMARKS_DIR = ASSETS / "benchmarks"  # committed bench results, <run>/results.json
SCREENSHOTS_DIR = ASSETS / "screenshots"
LOCALE_DIR = ASSETS / "locale"  # gettext catalogs: <locale>/LC_MESSAGES/specviz.po and .mo
CONFUSABLES_PATH = ASSETS / "unicode" / "confusables.json"  # Unicode's look-alike prototypes (UTS #39), for names

# The checkout that holds app.py and pages/ (for scripts that start the app), or None in a wheel install.
SOURCE_ROOT: Path | None = _PACKAGE.parent if (_PACKAGE.parent / "app.py").is_file() else None


def cache_dir() -> Path:
    """Where converted models and other per-user files live: $SPECVIZ_CACHE, else ~/.cache/specviz."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "specviz").expanduser()
