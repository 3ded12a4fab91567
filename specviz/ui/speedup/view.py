"""The Speedup lab's words: the names of policies, suites and methods for people, numbers and temperatures as
written, and what each metric means.

The results and where they were measured are in `specviz.ui.speedup.results`, what the numbers say (headline and
verdict) in `specviz.ui.speedup.verdict`; the questions asked of a result (its rows, the best K, α, the verify cost)
are methods of `specviz.labs.bench.BenchResult`; the figures are in `specviz.ui.speedup.charts`, the comparison tables in
`specviz.ui.speedup.tables`, the live toy sweep in `specviz.ui.speedup.live`. Everything but the `render_*`
functions is plain Python.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from specviz.core import i18n
from specviz.core.i18n import N_, _
from specviz.engine.proposers import registry
from specviz.labs.bench import DEFINITIONS, BenchResult
from specviz.ui.common.bench_results import temperature_text  # shared with the Theory explorer


POLICY_TEXT = {  # the policies' names for people, translated with _() where shown
    "constant": N_("constant K"),
    "heuristic": N_("+2 / −1 heuristic"),
    # read 52: "stop below draft confidence" here, "threshold" in the text above the policy table, the CLI's
    # --policies and results.md: one policy, two names; its bench name, which the text defines, is its one name
    "threshold": N_("threshold"),
    "optimal": N_("optimal K from α and c"),
}
# The bundled prompt suites' titles (assets/prompts/*.yaml, every one: tests/ui/test_speedup_lab.py checks), as a
# result file records them: marked here so the lab can show them translated; a title not listed (a suite of your
# own) is shown as written.
SUITE_TITLES = (N_("Multi-turn chat"), N_("Code"), N_("Everyday questions"), N_("Math reasoning"),
                N_("Question answering"), N_("Summarise / rewrite"), N_("Translation"), N_("Held-out (drafts)"))
# The baseline and comparison methods of a result (specviz/labs/bench/cases.py and `specviz.ui.speedup.tables`), for
# people.
METHODS = {"specviz target-only": N_("specviz target-only"), "transformers generate": N_("transformers generate"),
           "specviz speculative": N_("specviz speculative"),
           "transformers prompt lookup": N_("transformers prompt lookup"),
           "transformers assisted generation": N_("transformers assisted generation")}


def label(key: str) -> str:
    """The shared label of a metric (the same words as the bench's JSON definitions and markdown), in the reader's
    language."""
    return _(DEFINITIONS[key][0])


def paper_label(proposer: str) -> str:
    """The name of the paper's prediction for `proposer`: "predicted (paper)" (Leviathan et al.'s formula, K·c of
    drafting a step), or, for a proposer whose one pass drafts the whole step (`registry.one_pass`: the Medusa
    heads, n-gram lookup), the name of the variant its curve and table column compute, c per step (read 49: the
    solid line was called Leviathan et al.'s prediction there too)."""
    return _("predicted (paper's formula, c per step)") if registry.one_pass(proposer) else label("predicted_speedup")


def policy_text(policy: str) -> str:
    """A draft-length policy's name for people, in the reader's language."""
    return _(POLICY_TEXT[policy]) if policy in POLICY_TEXT else policy


def suite_titles(result: BenchResult) -> dict[str, str]:
    """The result's suite name -> title, translated where the title is a bundled suite's."""
    return {name: _(title) for name, title in result.suite_titles().items()}


def proposer_text(name: str) -> str:
    """A result's proposer for a menu: the registry's label in the reader's language (`registry.menu_label`); a
    layer-skip variant's own name ("layerskip-7") as its label with its layers, any other name as it is."""
    return registry.menu_label(name)


def method_text(method: str) -> str:
    return _(METHODS[method]) if method in METHODS else method


def times(v: float | None, digits: int = 2) -> str:
    """A speedup for people: '1.58×' ('1,58×' in Portuguese), or '–' when unknown."""
    return "–" if v is None else i18n.times(v, digits)


def number(v: float | None, digits: int = 2) -> str:
    return "–" if v is None or (isinstance(v, float) and not math.isfinite(v)) else i18n.number(v, digits)


def written(frame: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """A table's decimals as `number` writes them (1.981, or 1,981 in Portuguese: st.dataframe drew the float as
    1.981 on the Portuguese page too, where it reads as one thousand nine hundred), a missing value as '–'; integers
    and text as they are.

    >>> frame = pd.DataFrame({"K": [2], "mean K drafted": [1.9814], "limit": [None]})
    >>> written(frame).iloc[0].astype(str).tolist()
    ['2', '1.981', '–']
    >>> with i18n.using("pt"):
    ...     written(frame).iloc[0, 1]
    '1,981'
    """
    return frame.map(lambda v: number(v, digits) if isinstance(v, float) else "–" if v is None else v)


def definitions_table() -> pd.DataFrame:
    return pd.DataFrame([{_("metric"): _(lab), _("what it means"): _(meaning)}
                         for lab, meaning in DEFINITIONS.values()])


# read 47: the intro said a results.json defines the labels "in the same words" as the table, but a committed one
# keeps the words its run wrote (default-cpu-f32-medusa/'s "from the measured α and c"); the table is the code's
DEFINITIONS_INTRO = N_(
    "People quote different numbers for the same run. Here is what each label means, in this version's words: the "
    "bench writes the same words into a run's results.md and results.json, but a committed results.json keeps the "
    "words of the run that wrote it, which can be older (the lab reads only its numbers), while results.csv heads "
    "its columns with short keys (such as mat_with_bonus for the mean accepted length). **p = target, q = draft, "
    "K = drafted tokens per step (a tree's greatest depth; a lookup branch copied into the tree can reach deeper).**")


def render_definitions() -> None:
    st.markdown(_(DEFINITIONS_INTRO))
    st.dataframe(definitions_table(), hide_index=True, width="stretch")
