"""docs/architecture.md stays true: the layer diagram names folders that exist (and every layer folder is in it), and
the prompt box -> chip path is real functions, each of whose source calls the next (issue 29, item 5)."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
LEGS = ((1, 7), (8, 10), (11, 12))  # the run, the chips, the placing; the page calls the head of each
# A call made through an attribute: ChainStep holds its rule as `verifier` (verify, unless the Exactness lab passes
# a broken rule), so ChainStep.verify calls `verifier(`.
CALLED_AS = {"verify": r"\bverify\(|\.verifier\("}


def path_rows() -> list[tuple[int, str, str]]:
    """(number, function, module) for each row of the path's table."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## From the Playground's prompt box"):text.index("## Adding a proposer")]
    rows = re.findall(r"^\| (\d+) \| `(\w+)` \| `([\w.]+)`(?: \(`(\w+)`\))?", section, flags=re.MULTILINE)
    return [(int(n), name, module, owner) for n, name, module, owner in rows]


def function(name: str, module: str, owner: str = ""):
    """The function `name` of `module`, or the method of its class `owner`."""
    holder = getattr(importlib.import_module(module), owner) if owner else importlib.import_module(module)
    assert hasattr(holder, name), f"{module} {owner} has no function {name}"
    return getattr(holder, name)


def test_the_path_is_real_functions_each_calling_the_next():
    rows = path_rows()
    assert [row[0] for row in rows] == list(range(1, LEGS[-1][1] + 1))
    body = lambda source: source.split(":\n", 1)[1]  # noqa: E731 - what the function does, not its own `def` line
    found = {n: (name, body(inspect.getsource(function(name, module, owner)))) for n, name, module, owner in rows}
    for first, last in LEGS:
        for n in range(first, last):
            called = CALLED_AS.get(found[n + 1][0], rf"\b{found[n + 1][0]}\(")
            assert re.search(called, found[n][1]), f"{found[n][0]} does not call {found[n + 1][0]}"
    assert "The path has twelve functions in three legs" in DOC.read_text(encoding="utf-8")  # the count it says
    page = (ROOT / "pages" / "playground.py").read_text(encoding="utf-8")
    assert all(f"{found[first][0]}(" in page for first, _ in LEGS)


def test_nothing_on_the_run_and_chip_legs_runs_the_page_again():
    """From Run to the chips is one run of the page: no `st.rerun()` in the run's and the chips' functions, nor in the
    form that holds Run (its callback folds the settings before the page runs). The player restarts the page only
    when Play starts or stops its timer; tests/ui/test_playground.py presses Run and counts the page's runs."""
    from specviz.ui.playground import live

    sources = [inspect.getsource(function(name, module, owner)) for n, name, module, owner in path_rows()
               if n <= LEGS[1][1]]
    sources += [inspect.getsource(live.live_settings_form), inspect.getsource(live.fold_settings)]
    assert len(sources) == LEGS[1][1] + 2
    assert not [s.split("(", 1)[0] for s in sources if "st.rerun(" in s]


def test_the_layer_diagram_names_every_layer_folder_and_only_real_ones():
    text = DOC.read_text(encoding="utf-8")
    diagram = text[text.index("## The layers"):text.index("## The run path")]
    named = set(re.findall(r"^(specviz/[\w/]*?)/?(?:<page>/)?[ ,]", diagram, flags=re.MULTILINE))
    folders = {p.parent.relative_to(ROOT).as_posix() for p in (ROOT / "specviz").glob("*/__init__.py")}
    assert folders - {"specviz/ui"} <= named, folders - named
    assert {"specviz/ui/common", "specviz/ui"} <= named
    for name in named:
        assert (ROOT / name).is_dir() or (ROOT / f"{name}.py").is_file(), name


def test_the_proposer_list_scan_is_described_with_its_scope_and_exceptions():
    """22nd read: the doc said the AST scan "fails on any hand-written list that names three proposers"; it scans
    specviz/ only (the tests parametrise over the proposers by name) and skips the literals in NOT_PROPOSERS."""
    import ast

    text = " ".join(DOC.read_text(encoding="utf-8").split())
    assert "fails on any hand-written list" not in text
    assert "AST scan of `specviz/` fails" in text and "`NOT_PROPOSERS`" in text
    source = (ROOT / "tests" / "engine" / "test_proposer_registry.py").read_text(encoding="utf-8")
    assigned = {t.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)}
    assert "NOT_PROPOSERS" in assigned
    assert 'rglob("*.py")' in source and '(root / "specviz")' in source


def test_the_shared_ui_modules_are_all_named():
    """22nd read: the diagram's list of what pages share (specviz/ui/common) left out bench_results; every module
    there is named, or is one of the step and tree renderers the diagram names together."""
    text = DOC.read_text(encoding="utf-8")
    block = text[text.index("specviz/ui/common/"):text.index("─── nothing below")]
    renderers = {"step_figures", "step_view", "tree_figures", "tree_view"}
    assert "the step and tree renderers" in block
    modules = {p.stem for p in (ROOT / "specviz" / "ui" / "common").glob("*.py") if p.stem != "__init__"}
    modules |= {p.parent.name + "/" for p in (ROOT / "specviz" / "ui" / "common").glob("*/__init__.py")}
    assert len(modules) > len(renderers)
    assert sorted(m for m in modules - renderers if not re.search(rf"\b{re.escape(m)}", block)) == []


def test_the_rewind_step_is_not_credited_to_the_papers():
    """Read 27: architecture.md said the step "runs the papers' five steps: 1. propose, 2. score, 3. verify, 4.
    rewind, 5. emit", and decoding.py "in the papers' order"; Leviathan et al.'s Algorithm 1 and Chen et al.'s
    algorithm propose, score, verify and emit, and rewind no cache (they describe none)."""
    import specviz.engine.decoding as decoding

    text = " ".join(DOC.read_text(encoding="utf-8").split())
    assert "the papers' five steps" not in text
    assert "rewinding the caches is the implementation's" in text
    doc = " ".join((decoding.__doc__ or "").split())
    assert "in the papers' order" not in doc and "which their algorithms do not spell out" in doc


def test_the_serving_labs_spec_names_are_not_called_vllms_methods():
    """Read 27: charts.py called ngram, draft and eagle "vLLM's method names (`--speculative-config`)" and
    architecture.md and the registry test called server.SPECS "vLLM's methods"; they are the Serving lab's names for
    what vLLM is started with, and `speculative_config` passes vLLM the methods ngram, draft_model and eagle3 (or
    eagle). The names differ for two of the three."""
    import inspect

    from specviz.serving import server

    code = inspect.getsource(server.speculative_config)
    assert '"method": "ngram"' in code and '"method": "draft_model"' in code
    charts = (ROOT / "specviz" / "ui" / "serving" / "charts.py").read_text(encoding="utf-8")
    assert "are vLLM's method names" not in charts and "draft_model" in charts
    assert "`NOT_PROPOSERS`: vLLM's methods" not in " ".join(DOC.read_text(encoding="utf-8").split())
