"""House rules that keep the project usable: the library never imports Streamlit, every page is routed, specviz
installs as a package whose assets are found through it (never through the current directory), and
`import specviz` is light while its public names resolve."""

import ast
import importlib
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import specviz
from specviz.core.paths import ASSETS

ROOT = Path(__file__).resolve().parents[2]

# Modules that still find a file from their own location or from the current directory instead of specviz.core.paths.
# Each is someone else's to switch; delete its line when it is done (the test fails on any module not listed).
PENDING_PATH_LOOKUPS: set[str] = set()  # files allowed to find assets another way while they are being switched


def run_python(code: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.slow  # imports every library module in a fresh interpreter
def test_library_modules_import_without_streamlit(tmp_path):
    modules = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for p in (ROOT / "specviz").rglob("*.py")
        if "ui" not in p.relative_to(ROOT / "specviz").parts and p.name != "__main__.py"
    )
    assert "specviz.engine.decoding" in modules and "specviz.engine.verifier" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = [m for m in sys.modules if m == 'streamlit' or m.startswith('streamlit.')]\n"
        "print('STREAMLIT' if bad else 'CLEAN')\n"
    )
    out = run_python(code, cwd=tmp_path)  # away from the checkout: the installed package is what gets imported
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("CLEAN"), "a module outside specviz/ui imports streamlit"


def test_every_page_file_is_routed_and_every_route_has_a_file():
    from specviz.teach.pagemap import PAGE_FILES

    on_disk = {p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py")}
    routed = set(PAGE_FILES)
    assert len(routed) == len(PAGE_FILES), "a page file is routed twice in specviz.teach.pagemap.PAGES"
    assert not on_disk - routed, f"not in specviz.teach.pagemap.PAGES, so unreachable in the app: {sorted(on_disk - routed)}"
    assert not routed - on_disk, f"routed in specviz.teach.pagemap.PAGES but missing: {sorted(routed - on_disk)}"


# ---- the package and its assets -------------------------------------------------------------------------------------


def test_import_specviz_is_light_and_finds_its_assets_from_any_directory(tmp_path):
    code = (
        "import sys, specviz\n"
        "heavy = sorted(m for m in ('torch', 'transformers', 'streamlit') if m in sys.modules)\n"
        "from specviz.core.paths import ASSETS\n"
        "print(specviz.__file__, ASSETS, *heavy, sep='\\n')\n"
    )
    out = run_python(code, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    package, assets, *heavy = out.stdout.split("\n")[:-1]
    assert not heavy, f"`import specviz` imported {heavy}"
    assert Path(package).parent == Path(specviz.__file__).parent and Path(assets) == ASSETS


def test_the_assets_are_where_the_library_looks():
    from specviz.core import paths

    assert paths.CATALOG_PATH.is_file()
    assert any(paths.TRACES_DIR.glob("*.baseline.json"))
    assert any(paths.QUIZ_DIR.glob("*.yaml")) and any(paths.PROMPTS_DIR.glob("*.yaml"))
    assert (paths.MODELS_DIR / "smollm2-eagle" / "specviz.json").is_file()
    assert any(paths.BENCHMARKS_DIR.glob("*/results.json"))


def test_public_names_resolve_lazily_to_their_definitions():
    assert set(specviz.__all__) == {"__version__", *specviz._LAZY} <= set(dir(specviz))
    for name, module in specviz._LAZY.items():
        # compare after the defining module is imported: a submodule with the same name would shadow the object
        defined = getattr(importlib.import_module(module), name)
        assert getattr(specviz, name) is defined, f"specviz.{name} is not {module}.{name}"


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_only_specviz_paths_locates_files():
    """No module finds the assets or the checkout from its own file or from the current directory."""
    offenders = set()
    for path in [*(ROOT / "specviz").rglob("*.py"), *(ROOT / "pages").glob("*.py")]:
        rel = path.relative_to(ROOT).as_posix()
        if rel == "specviz/core/paths.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            by_file = isinstance(node, ast.Name) and node.id == "__file__"
            by_name = isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                node.value == "assets" or node.value.startswith("assets/"))
            by_cwd = isinstance(node, ast.Attribute) and node.attr in ("getcwd", "cwd")
            if by_file or by_name or by_cwd:
                offenders.add(rel)
    assert offenders <= PENDING_PATH_LOOKUPS, f"use specviz.core.paths instead: {sorted(offenders - PENDING_PATH_LOOKUPS)}"


def test_pyproject_ships_every_package_and_the_assets():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "specviz").rglob("__init__.py")}
    # assets/ ships as specviz.assets; its subfolders with importable names are listed too (setuptools wants that)
    assets = {"specviz.assets"} | {f"specviz.assets.{d.name}" for d in (ROOT / "assets").iterdir()
                                   if d.is_dir() and d.name.isidentifier()}
    assert set(setuptools["packages"]) == packages | assets
    assert setuptools["package-dir"] == {"specviz.assets": "assets"}
    assert setuptools["package-data"] == {"specviz.assets": ["**/*"]}


WHEEL_INPUTS = ("pyproject.toml", "README.md", "specviz", "assets")  # what pyproject.toml builds the wheel from


@pytest.mark.slow
def test_a_wheel_carries_the_assets_and_finds_them_inside_the_package(tmp_path):
    pytest.importorskip("setuptools")
    source, dist, site = tmp_path / "source", tmp_path / "dist", tmp_path / "site"
    # what the build reads, and nothing else: a checkout also holds virtualenvs (.venv-vllm is 3.5 GB), training
    # artifacts and caches, and copying them took most of this test's 38 s
    source.mkdir()
    for name in WHEEL_INPUTS:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(ROOT / name, source / name)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                            "-w", str(dist), str(source)], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr
    with zipfile.ZipFile(next(dist.glob("specviz-*.whl"))) as wheel:
        wheel.extractall(site)
    code = ("from specviz.core import paths\n"
            "from specviz.labs.examples import list_examples\n"
            "print(paths.ASSETS, paths.SOURCE_ROOT, len(list_examples()), sep='\\n')\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(site)})  # the unpacked wheel comes before the checkout
    assert out.returncode == 0, out.stderr
    assets, source_root, examples = out.stdout.split()
    assert Path(assets) == site / "specviz" / "assets" and source_root == "None"
    traces = [p for p in (ROOT / "assets" / "traces").glob("*.json") if not p.name.endswith(".baseline.json")]
    assert int(examples) == len(traces) > 0
    assert sorted(p.relative_to(site / "specviz" / "assets") for p in (site / "specviz" / "assets").rglob("*")
                  if p.is_file()) == sorted(p.relative_to(ROOT / "assets") for p in (ROOT / "assets").rglob("*")
                                            if p.is_file())


def test_markers_sit_on_the_tests_and_every_marker_is_registered():
    """A test's tier is on the test itself (`@pytest.mark.slow`, a file's `pytestmark`), never in a name -> marker
    table in conftest; every marker the tests use is registered in pyproject.toml."""
    import conftest
    from conftest import FIXTURE_MARKS

    registered = {line.split(":")[0] for line in
                  tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]}
    assert registered == {"slow", "model", "browser", "statistical", "serving"}
    assert set(FIXTURE_MARKS.values()) <= registered
    assert not hasattr(conftest, "TEST_MARKS")
    used = set()
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        used |= set(re.findall(r"pytest\.mark\.(\w+)", path.read_text(encoding="utf-8")))
    assert {"slow", "statistical", "browser", "model"} <= used
    assert used - {"parametrize", "skipif", "xfail", "filterwarnings", "usefixtures", "timeout"} <= registered
