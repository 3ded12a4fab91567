"""Counts and lists that claim to be complete, checked against what they count (issue 43, the 28th read)."""

import ast
import inspect
import re
from enum import StrEnum
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # over 0.4 s on 2 cores (read 51's --durations): make check stays under a minute
def test_the_kinds_module_and_the_architecture_doc_name_all_five_enums():
    """Read 28: architecture.md listed kinds as (TokenKind, NodeStatus, StopReason, Mode) and the module's docstring
    said "the trace's fixed vocabularies, one enum each" over four; the module holds a fifth, DrafterKind, which is
    no trace field, and trace_schema derives its sets from the other four only."""
    from specviz.engine import kinds

    enums = {name for name, value in vars(kinds).items()
             if inspect.isclass(value) and issubclass(value, StrEnum) and value is not StrEnum}
    assert len(enums) == 5, enums
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    listed = re.search(r"kinds \(([^)]*)\)", doc).group(1)
    assert {name.strip() for name in listed.split(",")} == enums
    schema = ast.parse((ROOT / "specviz" / "engine" / "trace_schema.py").read_text(encoding="utf-8"))
    used = {alias.name for node in ast.walk(schema) if isinstance(node, ast.ImportFrom)
            and node.module == "specviz.engine.kinds" for alias in node.names}
    # and read 52's kind_after_drafts, the one rule for the token after the drafts, which is no enum
    assert used == (enums - {"DrafterKind"}) | {"kind_after_drafts"}
    assert "Four are a trace's" in kinds.__doc__ and "The fifth, `DrafterKind`" in kinds.__doc__
    assert "draft" not in {str(m) for m in kinds.DrafterKind} and '"draft", which is not a member' in (
        kinds.DrafterKind.__doc__)


PACKAGES_THAT_LIST_THEIR_MODULES = ("specviz.labs.bench", "specviz.labs.exactness", "specviz.teach.quiz",
                                    "specviz.teach.classroom", "specviz.teach.classroom_paced", "specviz.serving")


def test_a_package_docstring_that_lists_its_modules_lists_every_one():
    """Read 28: specviz.labs.bench's docstring listed eight of its nine modules (not `quoted`) and said "everything
    public is importable from specviz.labs.bench itself" while CaseResult, which it names, is not; the exactness
    package's "the parts" left out lab, tree_lab and sandbox, the quiz package's left out translation."""
    import importlib
    import pkgutil

    for name in PACKAGES_THAT_LIST_THEIR_MODULES:
        package = importlib.import_module(name)
        modules = [info.name for info in pkgutil.iter_modules(package.__path__)]
        assert len(modules) >= 4, name
        unnamed = [m for m in modules if not re.search(rf"\b{m}\.py\b|`{m}`|^ +{m} ", package.__doc__, re.M)]
        assert unnamed == [], f"{name}'s docstring does not name {unnamed}"
    from specviz.labs import bench

    assert "CaseResult" not in bench.__all__ and "Everything public is importable" not in bench.__doc__


@pytest.mark.slow  # over the fast tier's 0.7 s a test
def test_a_public_api_list_names_everything_other_modules_import_from_it():
    """Read 28: palette's "Public API (other pages import it; keep it stable)" left out the named colours eleven
    modules import (BLUE, VERMILLION, ...) and the two fills step_figures imports; step_view's left out dtype_text
    (the Race page and the Speedup lab import it); tree_figures' left out tree_list, COPIED_MARK and STATUS_KINDS
    (tree_view imports them)."""
    apis = {}
    for path in (ROOT / "specviz").rglob("*.py"):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if found := re.search(r"Public API[^:]*:(.*?)(\n\n|\Z)", doc, re.S):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            apis[module] = set(re.findall(r"`([A-Za-z_]\w*)(?:\([^`]*\))?`", found.group(1)))
    assert {"specviz.ui.common.palette", "specviz.ui.common.step_view", "specviz.ui.common.tree_figures"} <= set(apis)
    unlisted = []
    for path in [*(ROOT / "specviz").rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in apis:
                unlisted += [(path.name, node.module, a.name) for a in node.names if a.name not in apis[node.module]]
    assert unlisted == []


def test_the_doc_indexes_name_every_subcommand_cli_md_documents():
    """Read 28: docs/README.md and README.md described cli.md as `generate`, `compare`, `bench`; the CLI has five
    subcommands and cli.md documents `calibrate` too (`serve` lives in serving.md)."""
    from specviz.cli import build_parser

    parser = build_parser()
    commands = set(next(a for a in parser._actions if a.dest == "command").choices)
    assert commands == {"generate", "compare", "bench", "calibrate", "serve"}
    cli_md = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    documented = {c for c in commands if f"python -m specviz {c}" in cli_md}
    assert documented == commands - {"serve"}
    row = next(line for line in (ROOT / "docs" / "README.md").read_text(encoding="utf-8").splitlines()
               if line.startswith("| [cli.md]"))
    readme = next(line for line in (ROOT / "README.md").read_text(encoding="utf-8").split("\n- ")
                  if line.startswith("[Command line]"))
    for command in documented:
        assert f"`{command}`" in row and f"`{command}`" in readme.replace("python -m specviz ", ""), command


def test_the_architecture_doc_lists_the_page_packages_and_the_page_without_one():
    """Read 28: architecture.md said "one package per page" over twelve packages for thirteen pages; the Quiz page
    has no package of its own (its code is specviz/ui/common/quiz/). The list, the count and the exception."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    pages = sorted(p.stem for p in (ROOT / "pages").glob("*.py"))
    packages = sorted(p.name for p in (ROOT / "specviz" / "ui").iterdir() if p.is_dir() and p.name != "common"
                      and (p / "__init__.py").exists())
    assert len(pages) == 13 and "thirteen thin pages" in doc
    block = doc.split("specviz/ui/<page>/", 1)[1].split("specviz/ui/common/", 1)[0]
    listed = sorted(re.sub(r"[│\s]+", " ", block).split("(", 1)[1].split(")", 1)[0].replace(" ", "").split(","))
    assert listed == packages
    without = [p for p in pages if p not in packages and p != "speedup_lab"]  # speedup_lab.py draws ui/speedup
    assert without == ["quiz"] and "but the Quiz, whose code is ui/common/quiz/" in re.sub(r"[│\s]+", " ", block)


def test_the_distill_docstring_shows_every_step_its_parser_takes():
    """Read 28: specviz.distill.cli's usage lines showed eight of its nine steps (not `cards`, which every model
    card's command section runs)."""
    from specviz.distill import cli

    choices = re.search(r'"step", choices=\[([^\]]*)\]', inspect.getsource(cli)).group(1)
    steps = re.findall(r'"([a-z0-9]+)"', choices)
    assert len(steps) == 9
    shown = set(re.findall(r"python -m specviz\.distill (\w+)", cli.__doc__))
    assert shown == set(steps)


def test_the_shared_quiz_package_names_every_page_that_uses_it():
    """Read 28: specviz/ui/common/quiz was "the Quiz page's" code, its view and setup "shared by the Quiz and
    Classroom pages", and architecture.md said the same; the guided path (pages/learn.py, specviz/ui/learn) uses
    both modules too."""
    users = {"quiz": set(), "classroom": set(), "learn": set()}
    for path in [*(ROOT / "pages").glob("*.py"), *(ROOT / "specviz" / "ui").rglob("*.py")]:
        page = path.stem if path.parent.name == "pages" else path.relative_to(ROOT / "specviz" / "ui").parts[0]
        for module in ("setup", "view"):
            text = path.read_text(encoding="utf-8")
            if page in users and re.search(rf"ui\.common\.quiz import .*\b{module}\b", text):
                users[page].add(module)
    assert users == {"quiz": {"setup", "view"}, "classroom": {"setup", "view"}, "learn": {"setup", "view"}}
    import specviz.ui.common.quiz as package
    from specviz.ui.common.quiz import setup, view

    for doc in (package.__doc__, setup.__doc__, view.__doc__):
        assert "Quiz, Classroom and Learn" in " ".join(doc.split())
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert "the Quiz, Classroom and Learn pages' questions" in re.sub(r"[│\s]+", " ", architecture)


def test_the_tour_gives_a_recorded_trace_only_to_the_proposers_that_have_one():
    """Read 28: docs/app.md gave each of the Proposers page's eight sections "a recorded trace and its quiz
    questions"; multi-token prediction, lookahead and suffix decoding have neither. The Portuguese tour also left
    the exact rule at T > 0 out of the tree section's list."""
    from specviz.ui.proposers.view import PROPOSERS

    with_trace = [p.key for p in PROPOSERS if p.example]
    assert len(PROPOSERS) == 8 and len(with_trace) == 5
    assert all(bool(p.quiz_prefixes) == bool(p.example) for p in PROPOSERS)
    tour = " ".join((ROOT / "docs" / "app.md").read_text(encoding="utf-8").split())
    tour_pt = " ".join((ROOT / "docs" / "app.pt-BR.md").read_text(encoding="utf-8").split())
    assert "a recorded trace and its quiz questions for the five that run here" in tour
    assert "um traço gravado e as suas perguntas para os cinco que rodam aqui" in tour_pt
    assert "longest accepted path, the exact rule at T > 0)" in tour
    assert "o caminho aceito mais longo, a regra exata com T > 0)" in tour_pt
