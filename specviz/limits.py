"""The engine's limits and names, defined once: what K and a generation's length may be, how many bars a trace
keeps, and the names of the proposers and draft-length policies. Plain constants, so the command line can check
its flags without loading torch.

Everything above reads them from here: the settings checks (`specviz.generation`), the trace file checks
(`specviz.trace_schema`), the run spec and its URL form (`specviz.runspec`), the CLI and the pages.
"""

K_RANGE = (1, 16)  # drafted tokens per step
MAX_NEW_TOKENS_RANGE = (1, 2048)
TREE_NODES_RANGE = (0, 64)  # nodes of a draft tree per step; 0 = a chain of K (specviz.tree)
TREE_WIDTH_RANGE = (1, 8)  # children per node of a draft tree
TOP_N = 10  # bars per distribution in a trace
PROPOSERS = ("draft", "ngram", "layerskip", "eagle")  # who can draft (specviz.proposers.make_proposer)
# What the toy pair offers a user: its EAGLE drafter is an untrained stand-in that only the tests use
TOY_PROPOSERS = ("draft", "ngram", "layerskip")
POLICIES = ("constant", "heuristic", "threshold", "optimal")  # how K is chosen each step (specviz.policies)
