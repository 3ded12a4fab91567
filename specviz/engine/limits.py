"""The engine's limits and names, defined once: what K and a generation's length may be, how many bars a trace
keeps, what the built-in pairs draft with, and the names of the draft-length policies. Plain constants, so the
command line can check its flags without loading torch. The proposers' names are the registry's
(`specviz.engine.proposers.registry`); `PROPOSERS` and `TOY_PROPOSERS` read it when asked.

Everything above reads them from here: the settings checks (`specviz.engine.generation`), the trace file checks
(`specviz.engine.trace_schema`), the run spec and its URL form (`specviz.runs.runspec`), the CLI and the pages.
"""

K_RANGE = (1, 16)  # drafted tokens per step
MAX_NEW_TOKENS_RANGE = (1, 2048)
TREE_NODES_RANGE = (0, 64)  # nodes of a draft tree per step; 0 = a chain of K (specviz.engine.tree)
TREE_WIDTH_RANGE = (1, 8)  # children per node of a draft tree
TREE_LOOKUP_RANGE = (0, 16)  # tokens a draft tree copies from the context as one more branch; 0 = none
TOP_N = 10  # bars per distribution in a trace
# What each built-in pair drafts with besides its target, best first (a proposer that `needs` one is offered for it,
# `specviz.engine.proposers.registry.offered`). The toy pair's EAGLE drafter is an untrained stand-in that only the tests
# use, so it offers its draft model alone.
PAIR_DRAFTERS = {"default": ("eagle", "draft"), "toy": ("draft",)}
POLICIES = ("constant", "heuristic", "threshold", "optimal")  # how K is chosen each step (specviz.engine.policies)


def __getattr__(name: str):
    """`PROPOSERS` (every proposer) and `TOY_PROPOSERS` (what the toy pair offers a user), from the registry now."""
    from specviz.engine.proposers import registry

    if name == "PROPOSERS":
        return registry.names()
    if name == "TOY_PROPOSERS":
        return registry.offered(PAIR_DRAFTERS["toy"])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
