"""The Speedup lab's words: which benchmark results there are, the headline numbers and the verdict in sentences,
where they were measured, and what each metric means.

The questions asked of a result (its rows, the best K, α, the verify cost) are methods of
`specviz.bench.BenchResult`; the figures are in `specviz.ui.speedup_charts`, the comparison tables in
`specviz.ui.speedup_tables`, the live toy sweep in `specviz.ui.speedup_live`. Everything but the `render_*`
functions is plain Python.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd
import streamlit as st

from specviz import bench, theory
from specviz import i18n
from specviz.bench import DEFINITIONS, BenchResult
from specviz.i18n import N_, _

POLICY_TEXT = {  # the policies' names for people, translated with _() where shown
    "constant": N_("constant K"),
    "heuristic": N_("+2 / −1 heuristic"),
    "threshold": N_("stop below draft confidence"),
    "optimal": N_("optimal K from α and c"),
}
# The bundled prompt suites' titles (assets/prompts/*.yaml), as a result file records them: marked here so the lab
# can show them translated; a title not listed (a suite of your own) is shown as written.
SUITE_TITLES = (N_("Multi-turn chat"), N_("Code"), N_("Math reasoning"), N_("Question answering"),
                N_("Summarise / rewrite"), N_("Translation"), N_("Held-out (drafts)"))
# The baseline and comparison methods of a result (bench/cases.py and speedup_tables), for people.
METHODS = {"specviz target-only": N_("specviz target-only"), "transformers generate": N_("transformers generate"),
           "specviz speculative": N_("specviz speculative"),
           "transformers prompt lookup": N_("transformers prompt lookup"),
           "transformers assisted generation": N_("transformers assisted generation")}


def label(key: str) -> str:
    """The shared label of a metric (the same words as the bench's JSON, CSV and markdown), in the reader's language."""
    return _(DEFINITIONS[key][0])


def policy_text(policy: str) -> str:
    """A draft-length policy's name for people, in the reader's language."""
    return _(POLICY_TEXT[policy]) if policy in POLICY_TEXT else policy


def suite_titles(result: BenchResult) -> dict[str, str]:
    """The result's suite name -> title, translated where the title is a bundled suite's."""
    return {name: _(title) for name, title in result.suite_titles().items()}


def method_text(method: str) -> str:
    return _(METHODS[method]) if method in METHODS else method


def times(v: float | None) -> str:
    """A speedup for people: '1.58×' ('1,58×' in Portuguese), or '–' when unknown."""
    return "–" if v is None else i18n.times(v)


def number(v: float | None, digits: int = 2) -> str:
    return "–" if v is None or (isinstance(v, float) and not math.isfinite(v)) else i18n.number(v, digits)


# ---- loading --------------------------------------------------------------------------------------------------------


def result_files() -> list[Path]:
    """Committed results (assets/benchmarks/*/results.json), newest first; read at call time so tests can redirect."""
    return bench.find_results(bench.BENCHMARKS_DIR)


@st.cache_data(show_spinner=False, max_entries=16)
def _load(path: str, mtime: float) -> BenchResult:
    return BenchResult.load(path)


def load_result(path: Path) -> BenchResult:
    """A result file, cached until the file changes; a bad file is a ValueError with one sentence."""
    return _load(str(path), path.stat().st_mtime)


def result_name(path: Path) -> str:
    return path.parent.name if path.name == "results.json" else path.stem


def ordered(paths: list[Path]) -> list[Path]:
    """The richest result first (most measured cases); unreadable files last, so the page still opens."""
    def size(path: Path) -> int:
        try:
            return len(load_result(path).cases)
        except ValueError:
            return -1
    return sorted(paths, key=lambda p: (-size(p), str(p)))


# ---- what the numbers say -------------------------------------------------------------------------------------------


def headline(result: BenchResult, proposer: str, temperature: float) -> dict[str, str]:
    """The four numbers at the top: best measured speedup, its K, α, c."""
    best = result.best_constant(proposer, temperature)
    if best is None:
        return {}
    return {
        "best": times(best["speedup_vs_ar"]), "best_k": str(best["k"]),
        "alpha": number(result.mean_alpha(proposer, temperature), 3), "c": number(best["c"], 3),
        "identical": best["identical_count"] or "–",
    }


def verdict(result: BenchResult, proposer: str, temperature: float) -> str:
    """Plain sentences on what the numbers say (slowdowns included), and where it pays if it pays anywhere."""
    best = result.best_constant(proposer, temperature)
    if best is None:
        return _("No constant-K runs for this proposer and temperature.")
    alpha, s, k = result.mean_alpha(proposer, temperature), best["speedup_vs_ar"] or 0, best["k"]
    verify = result.verify_ratio(k)
    where = dict(proposer=proposer, t=temperature_text(temperature), speedup=times(s), k=k, alpha=number(alpha))
    if s >= 1.05:
        text = _("Over all categories, {proposer} at T = {t} is {speedup} faster than target-only decoding at its "
                 "best K = {k} (α ≈ {alpha}, c = {c}), measured in the same run.", c=number(best["c"], 3), **where)
    elif s >= 0.97:
        text = _("Over all categories, {proposer} at T = {t} roughly breaks even (best {speedup} at K = {k}, "
                 "α ≈ {alpha}).", **where)
    else:
        why = slowdown_reason(alpha, best["c"], k, verify, best["mat_with_bonus"])
        text = _("Over all categories, {proposer} at T = {t} is slower than target-only decoding at every K (best "
                 "{speedup} at K = {k}): {why}.", why=why, **where)
    titles = suite_titles(result)
    top = result.best_in_one_suite(proposer, temperature)
    if top is not None and len(titles) > 1 and (top["speedup_vs_ar"] or 0) >= 1.05:
        how = f"K = {top['k']}" if top["policy"] == "constant" else policy_text(top["policy"])
        text += " " + _("Where the output copies the prompt it pays: **{suite}** reaches {speedup} ({how}, {tokens} "
                        "tokens per step).", suite=titles[top["suite"]], speedup=times(top["speedup_vs_ar"]),
                        how=how, tokens=number(top["mat_with_bonus"]))
    return text


def temperature_text(t: float) -> str:
    """A temperature as written: 0, 0.7 (0,7 in Portuguese)."""
    text = f"{t:g}"
    return text.replace(".", ",") if i18n.get_language() == "pt" else text


def slowdown_reason(alpha: float | None, c: float, k: int, verify: float, tokens_per_step: float) -> str:
    """Why a speculative run lost to target-only decoding, naming the cause the numbers point to.

    A step costs K·c draft forwards plus one target forward over K + 1 tokens (`verify` one-token forwards) and emits
    `tokens_per_step`. With c ≥ 1 the draft is the cause whatever α is; else α is the cause when it is below the
    break-even α for this K and c (Leviathan et al.); else the formula says the step should pay, and the cost of
    verifying K + 1 tokens is what it misses.

    >>> slowdown_reason(0.61, 1.17, 2, 1.1, 1.9)[:58]
    'each drafted token costs c = 1.17 of a target forward: the'
    >>> slowdown_reason(0.2, 0.1, 4, 1.2, 1.2)[:45]
    'at c = 0.10 a step of K = 4 drafts pays only '
    """
    if c >= 1:
        return _("each drafted token costs c = {c} of a target forward: the draft is no cheaper than the target, so "
                 "even if all K = {k} drafts were kept, a step would cost at least the {n} target forwards plain "
                 "decoding pays for the same {n} tokens (the acceptance α ≈ {alpha} is not what holds it back)",
                 c=number(c), k=k, n=k + 1, alpha=number(alpha))
    needed = theory.break_even_alpha(k, c)
    if alpha is not None and math.isfinite(needed) and alpha < needed:
        return _("at c = {c} a step of K = {k} drafts pays only if α is above {needed}, and here α ≈ {alpha}: too "
                 "many drafts are thrown away for their cost", c=number(c), k=k, needed=number(needed),
                 alpha=number(alpha))
    return _("α ≈ {alpha} and c = {c} would pay if checking the drafts were free, but one target forward over {n} "
             "tokens costs {verify} a one-token forward on this machine, more than the {tokens} tokens per step it "
             "buys", alpha=number(alpha), c=number(c, 3), n=k + 1, verify=times(verify),
             tokens=number(tokens_per_step))


# ---- streamlit --------------------------------------------------------------------------------------------------------


def definitions_table() -> pd.DataFrame:
    return pd.DataFrame([{_("metric"): _(lab), _("what it means"): _(meaning)}
                         for lab, meaning in DEFINITIONS.values()])


def render_definitions() -> None:
    st.markdown(_(
        "People quote different numbers for the same run. Here is what each label means; the bench's JSON, CSV and "
        "markdown use the same labels. **p = target, q = draft, K = drafted tokens per step.**"))
    st.dataframe(definitions_table(), hide_index=True, width="stretch")


def render_machine(result: BenchResult, name: str) -> None:
    """One line on where and how the numbers were measured; the notes and the exact command in an expander."""
    m = result.machine
    clock = _("CPU time") if result.config.get("clock") == "cpu" else _("wall time")
    st.caption(_("Pair `{pair}` on {cpu} ({cores} cores, GPU {gpu}), {threads} torch thread(s), {clock}, {date}: "
                 "{cases} measured cases, {tokens} new tokens each.", pair=result.config["pair"], cpu=m["cpu"],
                 cores=m["cores"], gpu=m["gpu"] or _("none"), threads=m["torch_threads"], clock=clock,
                 date=m["date"][:10], cases=len(result.cases), tokens=result.config["max_new_tokens"]))
    with st.expander(_("How this was measured: machine, notes, the command that reproduces it")):
        st.markdown(_("torch {torch}, transformers {transformers}, Python {python}, {platform}; load average {load} at "
                      "the start.", torch=m["torch"], transformers=m["transformers"], python=m.get("python", "?"),
                      platform=m.get("platform", ""), load=m.get("load_average_start")))
        for note in result.notes:
            st.markdown("- " + note_text(note))
        if result.command:
            st.code(result.command, language="bash", wrap_lines=True)


# The notes `specviz bench` writes into a result (bench/runner.py), as patterns: a note read from a file is shown in
# the reader's language when it is one of these, and as written otherwise.
NOTES = (
    (r"Speedups are ratios of tokens/s measured in the same run, repeat by repeat interleaved, medians over "
     r"(?P<repeats>\d+) repeat\(s\) after (?P<warmup>\d+) warm-up round\(s\)\.",
     N_("Speedups are ratios of tokens/s measured in the same run, repeat by repeat interleaved, medians over "
        "{repeats} repeat(s) after {warmup} warm-up round(s).")),
    (r"torch used (?P<threads>\d+) thread\(s\) on (?P<cores>\S+) visible core\(s\)\.",
     N_("torch used {threads} thread(s) on {cores} visible core(s).")),
    (r"The models ran on (?P<device>\S+) in (?P<dtype>\S+)\.", N_("The models ran on {device} in {dtype}.")),
    (r"Times are this process's CPU time \(time\.process_time\), not wall time: the machine was shared, and CPU time "
     r"leaves out the waits for a free core\. With one torch thread it equals wall time on an idle machine; with more "
     r"threads it adds them up\.",
     N_("Times are this process's CPU time (time.process_time), not wall time: the machine was shared, and CPU time "
        "leaves out the waits for a free core. With one torch thread it equals wall time on an idle machine; with "
        "more threads it adds them up.")),
    (r"The machine was shared \(load average (?P<start>\S+) at the start, (?P<end>.+) at the end\): absolute times are "
     r"noisy; ratios from the same run are the numbers to trust\.",
     N_("The machine was shared (load average {start} at the start, {end} at the end): absolute times are noisy; "
        "ratios from the same run are the numbers to trust.")),
    (r"Stopped at its time limit: (?P<skipped>\d+) of (?P<total>\d+) prompt x temperature cases did not run\.",
     N_("Stopped at its time limit: {skipped} of {total} prompt x temperature cases did not run.")),
    (r"Tree rows draft an EAGLE-2 style tree \(node budget x width, depth K\) scored in one target forward; #MAT is "
     r"tokens per target forward, the physical limit a perfect free draft of the same shape\.",
     N_("Tree rows draft an EAGLE-2 style tree (node budget x width, depth K) scored in one target forward; #MAT is "
        "tokens per target forward, the physical limit a perfect free draft of the same shape.")),
)


def note_text(note: str) -> str:
    """A result's note in the reader's language when `specviz bench` wrote it, else as written.

    >>> from specviz.i18n import using
    >>> with using("pt"):
    ...     note_text("torch used 1 thread(s) on 2 visible core(s).") != "torch used 1 thread(s) on 2 visible core(s)."
    True
    >>> note_text("A note of my own.")
    'A note of my own.'
    """
    for pattern, message in NOTES:
        found = re.fullmatch(pattern, note)
        if found:
            return _(message, **found.groupdict())
    return note
