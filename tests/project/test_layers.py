"""The import graph is acyclic and layered: every arrow between specviz modules points down (or stays in a layer).

A module's layer is its folder. Bottom to top: specviz/core <- engine <- models <- runs <- labs, teach, serving,
distill <- scripts and the CLI <- ui/common <- ui/<page> <- pages/ and app.py (`LAYERS` below). The test reads the
source with `ast` (it imports nothing it checks, so it runs in well under a second) and counts every import of a
specviz module: top-level, inside a function or under `if TYPE_CHECKING:` (a type-only import is still a
dependency, and hiding one is how cycles hide), `import specviz.x`, `from specviz.x import y`, `from specviz import
x` (x a submodule) and relative imports alike (and `importlib.import_module` with a literal name). A module left
loose in specviz/ or specviz/ui/ fails until it moves into the folder of its layer.

The companion rule, that nothing outside specviz/ui imports Streamlit even indirectly, is checked at run time by
tests/project/test_layout.py.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Bottom to top: a module's layer is the folder it sits in. A pattern "specviz.x.*" covers the package specviz.x and
# everything under it; "specviz.ui.<page>.*" is any page package under specviz/ui other than common/. A module left
# loose in specviz/ or specviz/ui/ is in no layer, and fails the test until it moves into a folder.
LAYERS: list[tuple[str, list[str], str]] = [
    ("core", ["specviz.core.*"], "where files are, the URL reader, text helpers, the translation function"),
    ("engine", ["specviz.engine.*"], "the loop, its limits, the chain and tree rules, caches, the Trace, proposers, policies, theory"),
    ("models", ["specviz.models.*"], "loading pairs, the drafts, the catalog, the machine"),
    ("runs", ["specviz.runs.*"], "RunSpec -> run(): the one way every caller runs a generation"),
    ("features", ["specviz.labs.*", "specviz.teach.*", "specviz.serving.*", "specviz.distill.*"],
     "the labs, the lessons and classroom, a real vLLM server, training the drafts"),
    ("tools", ["specviz.scripts.*", "specviz.cli", "specviz.__main__"], "maintenance commands and the CLI"),
    ("ui", ["specviz.ui", "specviz.ui.common.*"], "the only Streamlit-aware code that every page shares"),
    ("page ui", ["specviz.ui.<page>.*"], "one page's Streamlit code"),
    ("app", ["pages.*", "app"], "thin Streamlit pages and the router"),
]

# The top-level facade: it may re-export the public API lazily, so it sits outside the layering. Library modules
# import what they use from the module that defines it, never through the facade; the app and the tests may use it.
FACADE = "specviz"
FACADE_USERS = {"app"}

LAYER_INDEX = {name: i for i, (name, _, _) in enumerate(LAYERS)}


def _matches(module: str, pattern: str) -> bool:
    if pattern == "specviz.ui.<page>.*":
        parts = module.split(".")
        return len(parts) >= 3 and parts[:2] == ["specviz", "ui"] and parts[2] != "common" and (
            len(parts) > 3 or module in _PACKAGES)
    if pattern.endswith(".*"):
        package = pattern[:-2]
        return module == package or module.startswith(package + ".")
    return module == pattern


_PACKAGES: set[str] = set()  # the modules that are packages (an __init__.py), filled by source_files


def layer_of(module: str) -> str | None:
    for layer, patterns, _ in LAYERS:
        if any(_matches(module, pattern) for pattern in patterns):
            return layer
    return None


# ---- reading the source ---------------------------------------------------------------------------------------------


def source_files(root: Path = ROOT) -> dict[str, Path]:
    """Module name -> file, for every .py file under specviz/ and pages/, and app.py."""
    files = [*sorted((root / "specviz").rglob("*.py")), *sorted((root / "pages").glob("*.py")), root / "app.py"]
    modules = {}
    for path in files:
        if not path.is_file():
            continue
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
            _PACKAGES.add(".".join(parts))
        modules[".".join(parts)] = path
    return modules


@dataclass(frozen=True)
class Arrow:
    source: str
    target: str
    path: Path
    line: int
    text: str

    def where(self, root: Path = ROOT) -> str:
        return f"{self.path.relative_to(root)}:{self.line}: {self.text}"


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[Arrow]:
    """Every import of a specviz module in `path`, wherever it sits in the file."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    arrows = []

    def add(target: str, node: ast.stmt | ast.expr) -> None:
        arrows.append(Arrow(module, target, path, node.lineno, lines[node.lineno - 1].strip()))

    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == FACADE or alias.name.startswith(FACADE + "."):
                    add(alias.name, node)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the file's own package upwards
                base = _package_of(module, path).split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            if origin != FACADE and not origin.startswith(FACADE + "."):
                continue
            for alias in node.names:  # `from pkg import submodule` is an arrow to the submodule
                submodule = f"{origin}.{alias.name}"
                add(submodule if submodule in modules else origin, node)
        elif isinstance(node, ast.Call) and _called_name(node.func) in ("import_module", "__import__"):
            name = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
            if isinstance(name, str) and (name == FACADE or name.startswith(FACADE + ".")):
                add(name, node)  # importlib.import_module("specviz.x") with a literal name
    return arrows


def _called_name(func: ast.expr) -> str | None:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def import_graph(root: Path = ROOT) -> tuple[dict[str, Path], list[Arrow]]:
    modules = source_files(root)
    arrows = [a for m, p in modules.items() for a in imports_of(m, p, modules) if a.target != m]
    return modules, arrows


# ---- the checks -----------------------------------------------------------------------------------------------------


def unplaced(modules: dict[str, Path], root: Path = ROOT) -> list[str]:
    return [f"{p.relative_to(root)} ({m}) is in no layer: move it into the folder of its layer "
            "(specviz/core, engine, models, runs, labs, teach, serving, distill, scripts; specviz/ui/common or "
            "specviz/ui/<page>)." for m, p in modules.items() if m != FACADE and layer_of(m) is None]


def upward(arrows: list[Arrow], root: Path = ROOT) -> list[str]:
    found = []
    for a in arrows:
        source, target = layer_of(a.source), layer_of(a.target)
        if a.source == FACADE or source is None:
            continue
        if a.target == FACADE:
            if source not in FACADE_USERS:
                found.append(f"{a.where(root)}  ({source} imports the facade `specviz`; import from the module that "
                             "defines the name)")
            continue
        if target is None:
            found.append(f"{a.where(root)}  ({a.target} does not exist or is in no layer)")
        elif LAYER_INDEX[target] > LAYER_INDEX[source]:
            found.append(f"{a.where(root)}  ({source} -> {target}: points up the layers)")
    return found


# One page's package imports another's only where a page embeds the other page's own widget on purpose, each argued
# in docs/architecture.md ("Page boundaries"); anything two pages share otherwise lives in specviz/ui/common.
EMBEDS = {
    ("learn", "overview"): "the guided path's lesson 2 plays the Overview's loop diagram and example player on its "
                           "own recording (smollm-draft-t07), in its own words",
    ("learn", "proposers"): "the guided path shows the Proposers page's tree and recorded examples",
    ("learn", "sandbox"): "the guided path runs the Sandbox's own p/q sampling figure",
    ("playground", "classroom"): "the step player's 'Ask the class' buttons are the classroom's",
}


def page_of(module: str) -> str | None:
    """The page package a module belongs to (specviz.ui.<page>...), or None."""
    parts = module.split(".")
    return parts[2] if layer_of(module) == "page ui" and len(parts) >= 3 else None


def across_pages(arrows: list[Arrow], root: Path = ROOT) -> list[str]:
    """Imports from one page's package into another's that are not an argued embed (`EMBEDS`)."""
    found = []
    for a in arrows:
        source, target = page_of(a.source), page_of(a.target)
        if source and target and source != target and (source, target) not in EMBEDS:
            found.append(f"{a.where(root)}  (page {source} -> page {target}: move what both use to specviz/ui/common)")
    return found


def cycles(arrows: list[Arrow], root: Path = ROOT) -> list[str]:
    """One line per cycle found by a depth-first search (each cycle reported once), naming every import on it."""
    edges: dict[str, dict[str, Arrow]] = {}
    for a in arrows:
        if a.source != FACADE and a.target != FACADE:
            edges.setdefault(a.source, {}).setdefault(a.target, a)
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []
    found: list[str] = []
    seen: set[frozenset[str]] = set()

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, {})):
            if state.get(nxt) == 1:
                loop = stack[stack.index(nxt):]
                key = frozenset(loop)
                if key not in seen:
                    seen.add(key)
                    hops = [edges[x][y] for x, y in zip(loop, loop[1:] + [nxt])]
                    found.append(" -> ".join(loop + [nxt]) + ":\n    " + "\n    ".join(h.where(root) for h in hops))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return found


def problems(root: Path = ROOT) -> list[str]:
    modules, arrows = import_graph(root)
    return unplaced(modules, root) + upward(arrows, root) + across_pages(arrows, root) + cycles(arrows, root)


# ---- the tests ------------------------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def threads_for_model_size():
    """Overrides conftest's fixture of the same name: no model runs here, so torch is never imported."""
    yield


@pytest.fixture(scope="module")
def graph():
    return import_graph()


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_every_module_is_placed_in_a_layer(graph):
    modules, _ = graph
    assert "specviz.engine.decoding" in modules and "pages.overview" in modules and "app" in modules
    bad = unplaced(modules)
    if bad:
        pytest.fail("\n".join(bad), pytrace=False)


@pytest.mark.slow  # over 0.5 s on 2 cores: make check stays under a minute, make test runs it
def test_no_import_points_up_the_layers(graph):
    _, arrows = graph
    assert len(arrows) > 100  # the parser really sees the imports
    bad = upward(arrows)
    if bad:
        pytest.fail("Imports that point up the layers (" + " <- ".join(n for n, _, _ in LAYERS) + "):\n" + "\n".join(bad),
                    pytrace=False)


def test_no_page_imports_another_page_but_the_argued_embeds(graph):
    """Issue 45 item 5: 13 imports went from one page's package into another's. What two pages share lives in
    specviz/ui/common; the four embeds left are named in EMBEDS and argued in docs/architecture.md."""
    _, arrows = graph
    bad = across_pages(arrows)
    if bad:
        pytest.fail("Imports from one page into another:\n" + "\n".join(bad), pytrace=False)
    used = {(page_of(a.source), page_of(a.target)) for a in arrows}
    assert set(EMBEDS) <= used, f"an embed no page uses any more: {set(EMBEDS) - used}; remove it from EMBEDS"
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert all(f"{source} → {target}" in architecture for source, target in EMBEDS)


def test_the_learn_to_overview_embed_names_the_lesson_that_plays_it():
    """Read 44: the rationale said "the guided path's first lesson plays the Overview's loop diagram"; the lesson
    whose widget embeds it (interaction "loop", specviz.ui.learn.runs.loop) is lesson 2, on its own recording."""
    from specviz.teach.learn import LESSONS

    loop = next(lesson for lesson in LESSONS if lesson.interaction == "loop")
    why = EMBEDS[("learn", "overview")]
    assert f"lesson {loop.number} " in why and "first lesson" not in why
    assert loop.example and loop.example in why


def test_the_import_graph_has_no_cycles(graph):
    _, arrows = graph
    bad = cycles(arrows)
    if bad:
        pytest.fail("Import cycles between specviz modules:\n" + "\n".join(bad), pytrace=False)


def test_the_checks_catch_what_they_are_for(tmp_path):
    """A small tree with a function-level cycle, an upward `from pkg import submodule`, a relative import, an
    `importlib.import_module` with a literal name and an unplaced module: each is reported, naming file and line."""
    files = {
        "specviz/__init__.py": "",
        "specviz/engine/sampling.py": "def f():\n    from specviz.engine import decoding\n",
        "specviz/engine/decoding.py": "from .sampling import f\n",
        "specviz/models/pairs.py": "from specviz.ui.common import frame\n",
        "specviz/ui/__init__.py": "",
        "specviz/ui/common/frame.py": "import specviz.models.pairs\n",
        "specviz/newthing.py": "",
        "specviz/ui/loose.py": "",
        "specviz/ui/playground/__init__.py": "",
        "specviz/ui/playground/live.py": "from specviz.ui.common import frame\n",
        "specviz/ui/common/charts.py": "from specviz.ui.playground import live\n",
        "specviz/ui/race/__init__.py": "",
        "specviz/ui/race/view.py": "from specviz.ui.playground import live\n",
        "specviz/engine/verifier.py": "import importlib\nimportlib.import_module('specviz.models.pairs')\n",
        "app.py": "from specviz import __version__\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = "\n".join(problems(tmp_path))
    assert "specviz/newthing.py (specviz.newthing) is in no layer" in found
    assert "specviz/models/pairs.py:1: from specviz.ui.common import frame  (models -> ui: points up the layers)" in found
    assert "specviz.engine.decoding -> specviz.engine.sampling -> specviz.engine.decoding" in found
    assert "specviz/engine/sampling.py:2: from specviz.engine import decoding" in found
    assert "specviz/ui/loose.py (specviz.ui.loose) is in no layer" in found
    assert "specviz/ui/common/charts.py:1: from specviz.ui.playground import live  (ui -> page ui" in found
    assert "specviz/ui/playground/live.py" not in found  # a page may use ui/common
    assert "specviz/ui/race/view.py:1: from specviz.ui.playground import live  (page race -> page playground" in found
    assert "specviz.models.pairs -> specviz.ui.common.frame -> specviz.models.pairs" in found
    assert "specviz/engine/verifier.py:2: importlib.import_module('specviz.models.pairs')  (engine -> models" in found
    assert "app.py" not in found  # the app may use the facade
