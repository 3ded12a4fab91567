"""The Speedup lab's live sweep: the bench on the instant toy pair, small enough to run in the page with a progress
bar, so a learner sees the harness work end to end (its timings say nothing about real models)."""

from __future__ import annotations

import streamlit as st

from specviz.core.i18n import _, ngettext
from specviz.engine.limits import PAIR_DRAFTERS
from specviz.engine.proposers import registry
from specviz.labs import bench
from specviz.labs.bench import BenchConfig, BenchResult
from specviz.ui.common.runs import with_turn
from specviz.ui.speedup.results import case_count, measured_cases
from specviz.ui.speedup.view import POLICY_TEXT, policy_text, temperature_text

LIVE_KEY = "speedup_lab_live_result"  # the sweep's result, kept for this session


def live_proposers() -> tuple[str, ...]:
    """The proposers the live sweep offers: the toy pair's (`specviz.engine.proposers.registry.offered`)."""
    return registry.offered(PAIR_DRAFTERS["toy"])


def live_result() -> BenchResult | None:
    return st.session_state.get(LIVE_KEY)


def live_sweep_form() -> BenchConfig | None:
    """The toy-pair sweep's settings; returns a config when the button is pressed."""
    c1, c2, c3 = st.columns(3)
    props = c1.multiselect(_("Proposers"), live_proposers(), default=["draft", "ngram"],
                           key="speedup_lab_live_proposers")
    ks = c2.multiselect(_("K values"), [1, 2, 3, 4, 6, 8], default=[1, 2, 4], key="speedup_lab_live_ks")
    temps = c3.multiselect(_("Temperatures"), [0.0, 0.7, 1.0], default=[0.0], key="speedup_lab_live_temps",
                           format_func=temperature_text)
    c4, c5, c6 = st.columns(3)
    suites = {s.name: _(s.title) for s in bench.load_suites()}
    chosen_suites = c4.multiselect(_("Categories"), list(suites), default=["qa", "rewrite"],
                                   key="speedup_lab_live_suites", format_func=lambda name: suites[name])
    tokens = c5.slider(_("New tokens"), 8, 64, 24, 8, key="speedup_lab_live_tokens")
    policies = c6.multiselect(_("Policies"), list(POLICY_TEXT), default=["constant", "heuristic"],
                              key="speedup_lab_live_policies", format_func=policy_text)
    if not st.button(_("Run the toy sweep"), key="speedup_lab_live_run", type="primary"):
        return None
    suites = chosen_suites
    if not (props and ks and temps and suites and policies):
        st.error(_("Pick at least one proposer, K, temperature, category and policy."))
        return None
    if "constant" not in policies:
        policies = ["constant", *policies]
    return BenchConfig(pair="toy", proposers=list(props), ks=sorted(ks), temperatures=sorted(temps),
                       suites=list(suites), prompts_per_suite=1, max_new_tokens=tokens, repeats=1, warmup=1,
                       threads=1, policies=list(policies), policy_k=policy_k(ks), policy_temperatures=None,
                       hf="greedy", cost_repeats=5)


def policy_k(ks: list[int]) -> int:
    """The K the sweep's adaptive policies start at (the bench's --policy-k): the largest K picked up to 4, else the
    smallest picked, so it is always one of the sweep's K and the Policies tab has constant K at it to compare with.
    Read 49: it was min(4, largest K), which for K values 2 and 6 is 4, a K the sweep never ran at constant: the
    table then had no constant column, named the heuristic alone its winner, and the text above it said the policies
    start at the same K as constant.

    >>> policy_k([1, 2, 4]), policy_k([2, 6]), policy_k([6, 8]), policy_k([3])
    (4, 2, 6, 3)
    """
    return max((k for k in ks if k <= 4), default=min(ks))


def run_live(config: BenchConfig, pair) -> BenchResult | None:
    """Run the sweep with a progress bar and keep the result for the session; a bad setting is one sentence."""
    bar = st.progress(0.0, text=_("Starting the sweep..."))

    def progress(done: int, total: int, what: str) -> None:
        bar.progress(min(1.0, done / total), text=_("runs: {done}/{total} · {what}", done=done, total=total, what=what))

    try:  # the sweep holds the pair's turn like a live run, so the model is shared fairly
        result = with_turn(config.pair, lambda pair: bench.run_bench(config, command=bench.command_line(config),
                                                                      progress=progress, pair=pair))
    except ValueError as exc:
        bar.empty()
        st.error(str(exc))
        return None
    # counted as the run's machine line counts them (read 46: this bar counted rows as cases, the line prompt x
    # temperature cases); read 44: "Done: 1 cases measured."
    ran = measured_cases(result)
    bar.progress(1.0, text=ngettext("Done: {cases} measured.", "Done: {cases} measured.", ran, cases=case_count(ran)))
    st.session_state[LIVE_KEY] = result
    return result
