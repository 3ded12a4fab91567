"""Every script's --help opens with a whole sentence: the first paragraph of its docstring, not its first line."""

import importlib
import inspect

import pytest

SCRIPTS = ["a11y_audit", "classroom_screenshots", "first_run_wait", "gpu_bench", "gpu_check", "greedy_identity",
           "make_traces", "page_cost", "preset_runs", "push_latency", "screenshots", "shape_table", "targets_bench",
           "transfer", "tree_sweep", "tree_tokens"]


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_help_description_is_not_cut_mid_sentence(name, capsys):
    module = importlib.import_module(f"specviz.scripts.{name}")
    main = module.main
    with pytest.raises(SystemExit):
        main(["--help"]) if inspect.signature(main).parameters else main()
    out = capsys.readouterr().out
    description = " ".join(out.split("\n\n")[1].split())  # usage, then the description, then the options
    assert description.endswith((".", ")", "`")), description
