"""Hand-built traces the tests share: one tree step whose root draft was kept, for the checks of when a tree
trace's mean estimates α (the CLI's summary, library.md)."""

from __future__ import annotations

from specviz.engine.trace import Decision, EmittedToken, Step, Trace, TreeNode, TreeRecord


def kept_root() -> TreeNode:
    """A root node "a" (q = 0.5, p = 0.9) the verifier kept (u = 0.1 against min(1, p/q) = 1)."""
    return TreeNode(7, "a", -1, 1, 0.5, 0.9, "accepted", 0.1, 1.0)


def one_tree_step(nodes: list[TreeNode]) -> Trace:
    """A one-step EAGLE trace whose tree is `nodes` (its main line the first), kept "a" and a bonus "c"."""
    decisions = [Decision(0, 7, "a", 0.5, 0.9, 1.8, 1.0, 0.1, True, True)]
    step = Step(0, 3, 1, "eagle", decisions, [EmittedToken(7, "a", "accepted"), EmittedToken(9, "c", "bonus")],
                tree=TreeRecord(nodes, [0]))
    return Trace("speculative", {}, [1, 2], [7, 9], [step])
