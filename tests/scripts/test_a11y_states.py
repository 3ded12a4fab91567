"""The accessibility audit's page states are what their comments say they are."""

import inspect
from urllib.parse import parse_qsl

import pytest

from specviz.engine.kinds import NodeStatus
from specviz.runs.running import run
from specviz.runs.runspec import RunSpec
from specviz.scripts.a11y_audit import LOOKUP_TREE_LINK, states


def test_the_lookup_tree_state_shows_four_copied_nodes_three_kept_then_one_rejected():
    """The audited step (`step=6`: six steps revealed, so the sixth is on screen) holds a lookup branch of 4 copied
    nodes: the first three accepted, the fourth rejected. Its comment once said the copied path was kept. The step is
    read from the audit's own state, so moving it there is checked here too."""
    audited = [s.path for s in states("en") if LOOKUP_TREE_LINK in s.path]
    assert len(audited) == 1
    step = int(dict(parse_qsl(audited[0].split("?", 1)[1]))["step"])
    assert step == 6
    values = dict(parse_qsl(LOOKUP_TREE_LINK))
    assert values.pop("source") == "live"
    whole = {"k", "max_new_tokens", "seed", "tree_nodes", "tree_width", "tree_lookup"}
    spec = RunSpec(chat=False, **{key: int(v) if key in whole else float(v) if key == "temperature" else v
                                  for key, v in values.items()})
    trace = run(spec)
    copied = [node.status for node in trace.steps[step - 1].tree.nodes if node.copied]
    assert copied == [NodeStatus.ACCEPTED] * 3 + [NodeStatus.REJECTED]
    comment = " ".join(line.strip().lstrip("# ") for line in inspect.getsource(states).splitlines()
                       if line.strip().startswith("#"))
    assert "4 nodes copied from the context" in comment and "the first three kept and the fourth rejected" in comment


@pytest.mark.parametrize("argv, said", [(["--pages", "nosuch"], "no state is named 'nosuch': name a page (overview,"),
                                        (["--languages"], "--languages names none")])
def test_an_audit_that_would_check_no_state_is_refused_not_passed(argv, said, capsys):
    """30th read: `a11y_audit --pages nosuch` (or `--languages` with none) audited no state, printed "0 serious or
    critical finding(s)" and exited 0; it now says so in one sentence, exit code 2, before any server starts."""
    from specviz.scripts import a11y_audit

    assert a11y_audit.main(argv) == 2
    assert said in capsys.readouterr().err
    assert a11y_audit.unknown_pages(["race", "playground, 4 steps in"]) == []
