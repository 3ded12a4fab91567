"""Every script's --help opens with a whole sentence: the first paragraph of its docstring, not its first line."""

import argparse
import importlib
import inspect
from pathlib import Path

import pytest

from specviz.core.cli_help import SAID, DefaultsHelpFormatter

SCRIPTS = ["a11y_audit", "classroom_screenshots", "first_run_wait", "gemm_profile", "gpu_bench", "gpu_check",
           "greedy_identity", "make_traces", "page_cost", "preset_runs", "push_latency", "screenshots",
           "serving_screenshot", "shape_table", "targets_bench", "transfer", "tree_sweep", "tree_tokens"]
NO_HELP = {"i18n": "no argparse: its one usage line (update|compile|check|translate) is all it prints"}


def test_the_list_holds_every_script():
    """serving_screenshot was missing, and its --help printed the whole docstring, its commands run together."""
    folder = Path(importlib.import_module("specviz.scripts").__file__).parent
    runnable = {p.stem for p in folder.glob("*.py") if '__name__ == "__main__"' in p.read_text(encoding="utf-8")}
    assert len(runnable) > 10 and sorted(runnable - set(NO_HELP)) == SCRIPTS


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_help_description_is_not_cut_mid_sentence(name, capsys):
    module = importlib.import_module(f"specviz.scripts.{name}")
    main = module.main
    with pytest.raises(SystemExit):
        main(["--help"]) if inspect.signature(main).parameters else main()
    out = capsys.readouterr().out
    description = " ".join(out.split("\n\n")[1].split())  # usage, then the description, then the options
    assert description.endswith((".", ")", "`")), description
    first = " ".join(module.__doc__.split("\n\n")[0].split())  # the docstring's opening, not its commands too
    assert first.startswith(description), description


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_usage_line_names_the_command_that_runs_the_script(name, capsys):
    """Read 44: `python -m specviz.scripts.gemm_profile --help` printed "usage: gemm_profile.py", a file name that
    does not run from the repository; its siblings print the `python -m` command."""
    module = importlib.import_module(f"specviz.scripts.{name}")
    with pytest.raises(SystemExit):
        module.main(["--help"]) if inspect.signature(module.main).parameters else module.main()
    assert capsys.readouterr().out.startswith(f"usage: python -m specviz.scripts.{name} ")


@pytest.mark.parametrize("name", ["shape_table", "tree_tokens"])
def test_a_fixed_default_dtype_is_named_in_the_help(name, capsys):
    """Read 44: shape_table's (and tree_tokens') --dtype help said nothing, though they run in float32 when it is
    left out; the siblings whose default is the machine's say so."""
    module = importlib.import_module(f"specviz.scripts.{name}")
    with pytest.raises(SystemExit):
        module.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "default: float32" in text[text.rindex("--dtype DTYPE"):][:200], text


@pytest.mark.parametrize("name", ["greedy_identity", "preset_runs", "targets_bench", "tree_sweep"])
def test_a_machine_default_dtype_says_what_a_cpu_without_bf16_gets(name, capsys):
    """`--dtype` left out takes pick_dtype's choice: on a CPU, bfloat16 where it has bf16 instructions and float32
    where it has none; bfloat16 on a GPU that supports it, float16 on an older one and on MPS. Two scripts' help said
    only "default: bfloat16 on a CPU with bf16 instructions"; then all four named only the CPU's two cases, though
    the pair lands on a GPU or MPS where there is one."""
    import torch

    from specviz.engine.limits import DEFAULT_DTYPE_RULE
    from specviz.models.machine import GpuInfo, Machine, pick_dtype

    assert pick_dtype(torch.device("cpu"), None, Machine(cpu_bf16=False)) == torch.float32
    old_gpu = Machine(gpus=(GpuInfo(0, "older GPU", 0, 0, bf16=False),))
    assert pick_dtype(torch.device("cuda"), None, old_gpu) == pick_dtype(torch.device("mps")) == torch.float16
    assert pick_dtype(torch.device("cuda"), None, Machine(gpus=(GpuInfo(0, "GPU", 0, 0),))) == torch.bfloat16
    for words in ("bfloat16 on a GPU that supports it", "float16 on an older one and on Apple MPS"):
        assert words in DEFAULT_DTYPE_RULE
    module = importlib.import_module(f"specviz.scripts.{name}")
    with pytest.raises(SystemExit):
        module.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    dtype_help = text[text.rindex("--dtype DTYPE"):][:300]  # the option, after the usage line
    assert "bfloat16 on a CPU with bf16 instructions, float32 on one without" in dtype_help, dtype_help
    assert " ".join(DEFAULT_DTYPE_RULE.split()) in text, text


def test_tree_sweeps_cost_model_counts_the_lookup_branch_it_can_sweep():
    """tree_sweep's docstring said a tree of N nodes "feeds N + 1" while the script sweeps `--tree-lookup` and its
    estimate (`tokens_fed`) counts a lookup branch's tokens too."""
    from specviz.labs.bench.summary import tokens_fed
    from specviz.scripts import tree_sweep

    assert tokens_fed(4, 16, 8) == 16 + 8 + 1 and tokens_fed(4, 0, 8) == 4 + 1
    doc = " ".join(tree_sweep.__doc__.split())
    assert "feeds N + 1, plus the M tokens of its lookup branch (`--tree-lookup M`" in doc


def test_the_screenshot_helpers_the_docstring_says_the_browser_tests_reuse_are_imported_there():
    """screenshots.py said tests/browser/test_browser.py reuses `free_port`, `serve`, `launch` and `wait_for_app`;
    that file imports two of them (the browser fixtures in tests/conftest.py import `launch`), and no browser test
    imports `free_port`. Each helper the docstring names is now imported by a browser test or the conftest."""
    import re
    from pathlib import Path

    from specviz.scripts import screenshots

    tests = Path(__file__).resolve().parents[1]
    sources = [p.read_text(encoding="utf-8") for p in [tests / "conftest.py", *(tests / "browser").glob("*.py")]]
    imported = {name.strip(" ()\n") for text in sources
                for names in re.findall(r"from specviz\.scripts\.screenshots import ([^\n]+)", text)
                for name in names.split(",")}
    doc = " ".join(screenshots.__doc__.split())
    named = re.findall(r"`(\w+)`", doc.split("reuse the helpers here:")[1].split(".")[0])
    assert len(named) == 5 and set(named) <= imported, (named, imported)


def test_the_screenshots_docstring_lists_the_eight_files_the_script_writes_not_every_docs_shot():
    """35th read: screenshots.py opened "Take the screenshots of README.md and docs/app.md", but docs/app.md shows
    six more (tree, lookup, Proposers, sandbox, phone, Portuguese Overview) that it does not write. The docstring
    now says eight, and lists exactly the files the code names."""
    import inspect
    import re

    from specviz.scripts import screenshots

    source = inspect.getsource(screenshots)
    doc = screenshots.__doc__
    code = source.replace(doc, "")
    listed = set(re.findall(r"([a-z-]+\.png)", doc.split("says which)")[1].split("Needs `chromium`")[0]))
    written = set(re.findall(r'"([a-z-]+\.png)"', code))
    assert listed == written and len(written) == 8, (listed, written)
    # Read 45: it said "of README.md and docs/app.md", where pt-theory-batch.png is in neither (docs/app.pt-BR.md
    # shows it) and pt-playground.png only in the Portuguese README and tour: the first line, which --help prints,
    # now names the docs by kind and the docstring lists them; each file written is shown in one of them
    assert doc.startswith("Take eight of the screenshots the READMEs and app tours show")
    from pathlib import Path

    root = Path(screenshots.__file__).resolve().parents[2]
    named = ["README.md", "README.pt-BR.md", "docs/app.md", "docs/app.pt-BR.md"]
    assert "The READMEs and app tours are " + ", ".join(named[:3]) + " and " + named[3] + "." in " ".join(doc.split())
    shown = " ".join((root / name).read_text(encoding="utf-8") for name in named)
    assert [png for png in sorted(written) if f"screenshots/{png}" not in shown] == []
    assert "pt-theory-batch.png" not in (root / "README.md").read_text(encoding="utf-8") + (
        root / "docs" / "app.md").read_text(encoding="utf-8")
    assert "all eight, into assets/screenshots/" in doc


def test_the_scripts_package_does_not_say_every_script_writes_under_assets():
    """specviz/scripts/__init__.py said the scripts "write files under assets/" (see the Makefile): page_cost,
    push_latency and first_run_wait only print, gpu_check writes into its --out, and the Makefile runs two of them."""
    import re
    from pathlib import Path

    import specviz.scripts as scripts

    doc = " ".join(scripts.__doc__.split())
    assert "they write files under assets/" not in doc
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text(encoding="utf-8")
    run = sorted(set(re.findall(r"-m specviz\.scripts\.(\w+)", makefile)))
    assert run == ["i18n", "make_traces"] and "`make traces` and `make i18n` run two of them" in doc


@pytest.mark.parametrize("name", ["shape_table", "tree_sweep", "tree_tokens"])
def test_a_scripts_tokens_per_forward_is_the_same_only_for_the_same_dtype_and_kernels(name):
    """tree_tokens called its tokens per forward the same "whatever the machine" (26th read): a count does not depend
    on speed or load, but other kernels or another dtype round differently and can keep other drafts, as shape_table
    and tree_sweep already said."""
    module = importlib.import_module(f"specviz.scripts.{name}")
    doc = " ".join(module.__doc__.split())
    assert "whatever the machine" not in doc
    assert "the same on any machine with the same dtype and kernels" in doc


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_tree_tokens_compares_no_sampled_outputs_as_if_greedy(capsys):
    """35th read: at T = 1 tree_tokens printed "parted at new token 3: target top-2 logit gap 1.341 (NOT a
    near-tie)" on the toy pair, as if a split that sampling makes by chance were the bug its docstring says a
    non-near-tie greedy split would be. A sampled run now counts identical outputs and compares none."""
    from specviz.scripts import tree_tokens

    flags = ["--pair", "toy", "--proposer", "draft", "--prompts", "2", "--max-new-tokens", "8", "--tree-nodes", "8",
             "--tree-width", "2"]
    assert tree_tokens.main([*flags, "--temperature", "1"]) == 0
    out = capsys.readouterr().out
    assert "(sampled: not compared, a split here is chance)" in out and "near-tie" not in out
    assert tree_tokens.main(flags) == 0
    assert "(sampled" not in capsys.readouterr().out


def test_gpu_check_rehearsal_states_its_budget_not_a_bound_it_can_pass(capsys):
    """35th read: gpu_check promised a rehearsal "in under two minutes", but its profile's budget is 110 s, counted
    after the imports, and a section may run GRACE (15 s) past it: 125 s and more is allowed. The help and the
    docstring now give the budget, read from the profile."""
    import pytest

    from specviz.scripts import gpu_check

    with pytest.raises(SystemExit):
        gpu_check.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    budget = f"(a {gpu_check.REHEARSAL.budget:g} s budget)"
    assert f"the toy pair on the CPU {budget}" in text and budget in gpu_check.__doc__
    assert "two minutes" not in text + gpu_check.__doc__
    assert gpu_check.REHEARSAL.budget + gpu_check.GRACE > 120


def _script_parser(name: str, monkeypatch) -> argparse.ArgumentParser:
    """The parser a script's main builds, caught as it parses (nothing runs)."""
    module = importlib.import_module(f"specviz.scripts.{name}")
    built = []

    def caught(self, args=None, namespace=None):
        built.append(self)
        raise SystemExit(0)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", caught)
    with pytest.raises(SystemExit):
        module.main([]) if inspect.signature(module.main).parameters else module.main()
    return built[0]


def _parsers(parser: argparse.ArgumentParser):
    """A parser and its subcommands' parsers (transfer's pack and receive)."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_script_flag_with_a_default_says_it_in_its_help(name, monkeypatch):
    """Read 46: the scripts' --help printed no defaults (`tree_tokens --tree-nodes`, `push_latency --phones` and the
    rest), unlike `python -m specviz` and the distill command, which use DefaultsHelpFormatter; each script's parser
    now does too, and every flag with a default has a help text for it to follow."""
    parsers = list(_parsers(_script_parser(name, monkeypatch)))
    assert all(p.formatter_class is DefaultsHelpFormatter for p in parsers), name
    unsaid = []
    for parser in parsers:
        text = "".join(parser.format_help().split())
        for action in parser._actions:
            if not action.option_strings or action.default in (None, argparse.SUPPRESS) or \
                    isinstance(action.default, bool):
                continue
            said = parser._get_formatter()._expand_help(action) if action.help else ""
            if not SAID.search(said) or "".join(said.split()) not in text:
                unsaid.append(action.option_strings[-1])
    assert unsaid == [], name
    root = str(Path(__file__).resolve().parents[2])  # a default said as a path of the checkout it ran in: not here
    assert all(root not in p.format_help() for p in parsers), name


def test_serving_screenshots_out_help_counts_the_files_it_writes(capsys):
    """Read 47: `--out` was the "folder for the PNG file", but the script writes two, serving.png and
    serving-sweep.png."""
    module = importlib.import_module("specviz.scripts.serving_screenshot")
    with pytest.raises(SystemExit):
        module.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "folder for the two PNG files" in text and "serving-sweep.png" in module.__doc__


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_script_flag_has_a_help_that_says_what_leaving_it_out_does(name, monkeypatch):
    """Read 47: `shape_table --threads`, `targets_bench --threads`, `tree_sweep --device` and `tree_tokens --device`
    printed no help at all, and `gpu_check --prompts` / `--max-new-tokens` did not say the profile sets them; the
    check above skipped every flag whose default is None. A flag that names what to write (--out, --json, --shots)
    writes nothing when left out, and `shape_table --merge` is a mode of its own; every other one says its default."""
    files = {"--out", "--json", "--shots", "--merge"}
    unsaid = []
    for parser in _parsers(_script_parser(name, monkeypatch)):
        for action in parser._actions:
            if not action.option_strings or action.nargs == 0 or action.required or action.default is not None:
                continue
            said = parser._get_formatter()._expand_help(action) if action.help else ""
            if not said or (action.option_strings[-1] not in files and not SAID.search(said)
                            and "override the profile's" not in said):
                unsaid.append(action.option_strings[-1])
    assert unsaid == [], name


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_default_the_help_writes_as_a_value_reads_back_as_that_default(name, monkeypatch, tmp_path):
    """Read 47: `gpu_bench --temperatures` takes "comma-separated" values, but its help printed "(default: 0.0
    0.7)", which typed back is refused ("unrecognized arguments: 0.7"); it now says "(default: 0,0.7)". Every default
    a help writes as a plain value (numbers, lists) is one the flag accepts, and it parses to the default itself."""
    import re

    parsers = list(_parsers(_script_parser(name, monkeypatch)))
    monkeypatch.undo()  # parse for real now
    checked = 0
    for parser in parsers:
        required = [arg for action in parser._actions if action.required and action.option_strings
                    for arg in (action.option_strings[-1], str(tmp_path / "out.json"))]
        for action in parser._actions:
            if not action.option_strings or action.default in (None, argparse.SUPPRESS) or \
                    isinstance(action.default, bool) or action.required:
                continue
            said = re.search(r"\(default: ([-0-9.,: ]+)\)", parser._get_formatter()._expand_help(action) or "")
            if not said:
                continue
            parsed = parser.parse_args([*required, action.option_strings[-1], *said.group(1).split()])
            assert getattr(parsed, action.dest) == action.default, (name, action.option_strings[-1])
            checked += 1
    assert checked or name != "gpu_bench"
