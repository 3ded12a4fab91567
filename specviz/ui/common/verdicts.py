"""A chi-square verdict in its coloured box, one rule for every page that tests samples against p (the Exactness
lab and the p/q sandbox): red where p is refuted (a sample p gives 0, or a p-value below 0.001), blue where no test
ran (every outcome pooled into one group: "Nothing to test", "Too few samples to test") or only an exact binomial
test of the most likely outcome found nothing against p, amber for a borderline p-value (below 0.01, whichever test
gave it), green only for a chi-square test that found nothing against p; under it, where a test ran, how the
outcomes were grouped, with the statistic and degrees of freedom behind the p-value (`verdict_with_grouping`)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from specviz.labs.exactness.stats import VERDICT_LEVELS, ChiSquareResult


def verdict_kind(result: ChiSquareResult) -> str:
    """"error", "info", "warning" or "success": the box a verdict's sentence goes in. A p-value gets the same box
    whichever test gave it (read 54: an exact binomial test's 0.0033 went in the blue "Too few samples" box, a
    chi-square test's 0.0041 in the amber "Borderline" one); a binomial test that found nothing against p stays blue,
    not green, as it tested the most likely outcome alone.

    >>> from specviz.labs.exactness.stats import chi_square_test
    >>> [verdict_kind(chi_square_test(c, [0.5, 0.5])) for c in ([52, 48], [90, 10], [3, 0])]
    ['success', 'error', 'info']
    >>> [verdict_kind(chi_square_test([c, 2000 - c, 0], [0.9988, 0.0012, 0.0])) for c in (1991, 1992, 1995)]
    ['error', 'warning', 'info']
    """
    if result.impossible or result.p_value < VERDICT_LEVELS[0]:
        return "error"
    if result.dof == 0 and result.top_count is None:  # no test ran
        return "info"
    if result.p_value < VERDICT_LEVELS[1]:
        return "warning"
    return "info" if result.dof == 0 else "success"


ICONS = {"error": ":material/cancel:", "info": ":material/info:", "warning": ":material/warning:",
         "success": ":material/check_circle:"}


def verdict_alert(result: ChiSquareResult, text: str, where: Any = None) -> None:
    """`text` (the verdict's sentence, or one with it) in the box `verdict_kind` picks, in `where` (default: the
    page)."""
    kind = verdict_kind(result)
    getattr(where if where is not None else st, kind)(text, icon=ICONS[kind])


def verdict_with_grouping(result: ChiSquareResult, text: str, where: Any = None) -> None:
    """`verdict_alert`, and under it, where a test ran, `result.grouping`: the statistic, the degrees of freedom and
    how the outcomes were grouped, enough to recompute the p-value the verdict gives (read 51: the Exactness lab's
    "p-value 0.99" where 1,123 outcomes had become 2 groups, and the sandbox's verdicts, said none of it)."""
    verdict_alert(result, text, where)
    if result.grouping:
        (where if where is not None else st).caption(result.grouping)
