"""docs/architecture.md stays true: the layer diagram names folders that exist (and every layer folder is in it), and
the prompt box -> chip path is real functions, each of which calls the next in its own body (issue 29, item 5; issue
45, item 4: a hop hidden in a nested function or a helper is a hop of its own, and the doc's count is the table's)."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
PAGE = ROOT / "pages" / "playground.py"
NUMBERS = dict(enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                         "fifteen sixteen seventeen eighteen nineteen twenty".split()))
# A call made through an attribute: ChainStep holds its rule as `verifier` (verify, unless the Exactness lab passes
# a broken rule), so ChainStep.verify calls `self.verifier(`.
CALLED_AS = {"verify": {"verify", "verifier"}}
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def path_rows() -> list[tuple[int, str, str, str]]:
    """(number, function, module, owner) for each row of the path's table; the owner is the class of a method or
    the function a nested function is defined in."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## From the Playground's prompt box"):text.index("## Adding a proposer")]
    rows = re.findall(r"^\| (\d+) \| `(\w+)` \| `([\w.]+)`(?: \(`(\w+)`\))?", section, flags=re.MULTILINE)
    return [(int(n), name, module, owner) for n, name, module, owner in rows]


@functools.cache
def tree(module: str) -> ast.Module:
    return ast.parse((ROOT / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8"))


def defined(holder: ast.AST, name: str) -> ast.AST | None:
    """The function, or class, `name` defined directly in `holder`'s body (a module, a class, a function)."""
    found = [node for node in ast.iter_child_nodes(holder) if isinstance(node, SCOPES) and getattr(node, "name", "")
             == name]
    for node in ast.iter_child_nodes(holder):  # a def inside an if/with/try of the holder's own body
        if not isinstance(node, SCOPES) and not found:
            found = [d for d in own_nodes(node) if isinstance(d, SCOPES) and getattr(d, "name", "") == name]
    return found[0] if found else None


def function(module: str, name: str, owner: str = "") -> ast.FunctionDef:
    holder = tree(module)
    if owner:
        holder = defined(holder, owner)
        assert holder is not None, f"{module} has no {owner}"
    node = defined(holder, name)
    assert isinstance(node, ast.FunctionDef), f"{module} {owner} has no function {name}"
    return node


def own_nodes(node: ast.AST):
    """The nodes of `node`'s own body: a nested def, lambda or class is yielded but not entered (it is a hop of
    its own). A comprehension is entered: it runs where it stands."""
    for child in ast.iter_child_nodes(node):
        yield child
        if not isinstance(child, SCOPES):
            yield from own_nodes(child)


def calls(node: ast.AST, *, nested: bool = False) -> set[str]:
    """The names `node` calls in its own body (a call `f(` or `x.f(`); with `nested`, in its nested defs too."""
    walk = ast.walk(node) if nested else own_nodes(node)
    names = set()
    for call in walk:
        if isinstance(call, ast.Call):
            func = call.func
            names.add(func.id if isinstance(func, ast.Name) else getattr(func, "attr", ""))
    return names


def detours(module: str, caller: ast.FunctionDef, callee: str) -> list[str]:
    """The functions between `caller` and a call of `callee` that a table going straight from one to the other
    would skip: a nested def of the caller that calls it, or a function of the caller's module that the caller
    calls and that calls it."""
    wanted = CALLED_AS.get(callee, {callee})
    nested = [d for d in own_nodes(caller) if isinstance(d, SCOPES) and getattr(d, "name", "") != callee]
    helpers = [d for d in ast.walk(tree(module)) if isinstance(d, ast.FunctionDef) and d.name in calls(caller)
               and d.name != callee and d is not caller]
    return sorted({getattr(d, "name", "lambda") for d in nested + helpers if calls(d, nested=True) & wanted})


def legs(rows) -> list[tuple[int, int]]:
    """(first, last) row of each leg: a leg starts at a function the page calls itself."""
    page = calls(ast.parse(PAGE.read_text(encoding="utf-8")), nested=True)
    heads = [n for n, name, _module, _owner in rows if name in page]
    return [(first, (heads + [len(rows) + 1])[i + 1] - 1) for i, first in enumerate(heads)]


def test_the_path_is_real_functions_each_calling_the_next_in_its_own_body():
    rows = path_rows()
    assert [row[0] for row in rows] == list(range(1, len(rows) + 1)) and len(rows) >= 10
    found = {n: (name, module, function(module, name, owner)) for n, name, module, owner in rows}
    spans = legs(rows)
    assert len(spans) == 3 and spans[0][0] == 1 and spans[-1][1] == len(rows), spans  # run, chips, placing
    for first, last in spans:
        for n in range(first, last):
            (name, module, node), callee = found[n], found[n + 1][0]
            assert calls(node) & CALLED_AS.get(callee, {callee}), f"{name} does not call {callee} in its own body"
            assert not detours(module, node, callee), f"{name} reaches {callee} through {detours(module, node, callee)}"
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    assert f"The path has {NUMBERS[len(rows)]} functions in three legs" in text  # the count it says is the table's


def test_nothing_on_the_run_and_chip_legs_runs_the_page_again():
    """From Run to the chips is one run of the page: no `st.rerun()` in the run's and the chips' functions (nested
    ones included), nor in the form that holds Run (its callback folds the settings before the page runs). The player
    restarts the page only when Play starts or stops its timer; tests/ui/test_playground.py presses Run and counts
    the page's runs."""
    rows = path_rows()
    last = legs(rows)[1][1]
    nodes = [function(module, name, owner) for n, name, module, owner in rows if n <= last]
    nodes += [function("specviz.ui.playground.live", name) for name in ("live_settings_form", "fold_settings")]
    assert len(nodes) == last + 2
    assert [node.name for node in nodes if "rerun" in calls(node, nested=True)] == []
    placing = [function(module, name, owner) for n, name, module, owner in rows if n > last]
    guarded = [node for fn in placing for test in ast.walk(fn) if isinstance(test, ast.If)
               and re.search(r"\b(PLAYING|_TOGGLED)\b", ast.unparse(test.test)) for node in ast.walk(test)]
    reruns = {id(node): node for fn in placing for node in ast.walk(fn) if isinstance(node, ast.Call)
              and getattr(node.func, "attr", "") == "rerun"}.values()  # player is inside render_player too
    assert len(reruns) == 2 and all(node in guarded for node in reruns)  # Play's start or stop, and its end


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


def test_the_layers_that_list_their_modules_name_every_one():
    """Read 47: the core layer's list (paths, cache, urlvalues, text, yamlfiles, i18n) left out cli_help, the module
    every command's --help states its defaults through; each layer whose entry lists its modules names them all."""
    text = DOC.read_text(encoding="utf-8")
    diagram = text[text.index("app.py, pages/"):text.index("### Page boundaries")]
    unnamed = []
    for layer in ("core", "engine", "models", "runs", "labs", "teach"):
        folder = ROOT / "specviz" / layer
        entry = diagram[diagram.index(f"\nspecviz/{layer}/") + 1:]
        entry = entry[:entry.find("\nspecviz/") % (len(entry) + 1)]  # up to the next layer's line, or the end
        names = {m.stem for m in folder.glob("*.py") if m.stem != "__init__"}
        names |= {d.parent.name for d in folder.glob("*/__init__.py")}
        assert names
        unnamed += [f"{layer}/{n}" for n in sorted(names) if not re.search(rf"\b{n}\b", entry)]
    assert unnamed == []


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


def test_the_prefill_paragraph_names_every_proposer_that_prefills():
    """Read 48: architecture.md said `decode` prefills "a separate draft model's" cache and that the other proposers
    fill theirs "when they first propose", but the layer-skip draft is a DraftModelProposer: its own cache is filled
    by the same prefill (SpeculativeDecoder.prefill), before any step."""
    from specviz.engine.proposers.draft_model import DraftModelProposer
    from specviz.engine.proposers.layerskip import LayerSkipProposer

    assert issubclass(LayerSkipProposer, DraftModelProposer) and LayerSkipProposer.prefill is DraftModelProposer.prefill
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    assert "when they first propose" not in text
    assert "`decode` prefills the target's cache and a draft model's, separate or layer-skip" in text


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


def test_adding_a_proposer_translates_every_message_of_its_line_and_compiles_them():
    """Read 45: step 3 of "Adding a proposer" said to run `make i18n` and translate "the label and note", but a
    registry line marks three messages (label, phrase, note; a setting adds its label and help), and the catalog is
    compiled only by a second `make i18n`: a `.mo` older than the `.po` fails `make test`."""
    from specviz.engine.proposers import registry

    text = " ".join(DOC.read_text(encoding="utf-8").split())
    step = text[text.index("3. Run `make i18n`"):text.index("`make_proposer`, `RunSpec`")]
    assert "the label and note in" not in step
    assert "the label, the phrase and the note, and a setting's label and help" in step
    assert "then run `make i18n` again to compile them" in step
    info = registry.proposers()[0]
    assert {"label", "phrase", "note"} <= set(type(info).__dataclass_fields__)
    assert {"label", "help"} <= set(registry.ProposerSetting.__dataclass_fields__)


def test_adding_a_proposer_names_every_setting_a_registry_line_can_give():
    """Read 50 (review): Medusa and n-gram lookup became one-pass proposers (`ProposerInfo.one_pass`: the predicted
    speedups charge c per step, not K·c), but step 2 of "Adding a proposer" named every other field of a line and not
    that one, so a new one-pass drafter would be charged K·c without a word."""
    from specviz.engine.proposers import registry

    text = " ".join(DOC.read_text(encoding="utf-8").split())
    step = text[text.index("2. Register it:"):text.index("3. Run `make i18n`")]
    fields = set(registry.ProposerInfo.__dataclass_fields__) - {"name", "label", "phrase", "note", "factory",
                                                                "settings"}
    assert {field for field in fields if field not in step} == set()
    assert "`one_pass=True` says one pass drafts every token of a step" in step
