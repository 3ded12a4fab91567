"""The engine's limits, defined once: what K and a generation's length may be, and how many bars a trace keeps.

Everything above reads them from here: the settings checks (`specviz.generation`), the trace file checks
(`specviz.trace_schema`), the run spec and its URL form (`specviz.runspec`), the CLI and the pages.
"""

K_RANGE = (1, 16)  # drafted tokens per step
MAX_NEW_TOKENS_RANGE = (1, 2048)
TOP_N = 10  # bars per distribution in a trace
