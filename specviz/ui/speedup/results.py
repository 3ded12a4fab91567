"""The Speedup lab's results: which benchmark results there are, how they load, and where and how they were measured
(the machine line, the notes `specviz bench` writes, translated when they are its own).

Everything but `render_machine` is plain Python.
"""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

from specviz.core.i18n import N_, _, ngettext, number
from specviz.labs import bench
from specviz.labs.bench import BenchResult
from specviz.labs.bench.quoted import machine_text
from specviz.labs.bench.report import RECOMPUTED_OPTIMAL, current_note
from specviz.ui.common.bench_results import command_notes, load_result  # noqa: F401 - this page's names too


def result_files() -> list[Path]:
    """Committed results (assets/benchmarks/*/results.json), newest first; read at call time so tests can redirect."""
    return bench.find_results(bench.BENCHMARKS_DIR)


def result_name(path: Path) -> str:
    return path.parent.name if path.name == "results.json" else path.stem


HEADLINE_RUN = "default-cpu-f32-packed"  # the run the README's table quotes: the lab opens on it


def ordered(paths: list[Path]) -> list[Path]:
    """The run the README quotes first (`HEADLINE_RUN`), then the newest measurement (not an older drafter's run),
    then the richest (most rows measured); unreadable files last, so the page still opens."""
    def rank(path: Path) -> tuple[str, int]:
        try:
            result = load_result(path)
        except ValueError:
            return "", -1
        return str(result.machine.get("date") or ""), len(result.cases)
    ranks = {path: rank(path) for path in paths}
    richest = sorted(paths, key=lambda p: (-ranks[p][1], str(p)))
    newest = sorted(richest, key=lambda p: ranks[p][0], reverse=True)  # stable: equal dates stay richest first
    return sorted(newest, key=lambda p: p.parent.name != HEADLINE_RUN)


def case_count(n: int) -> str:
    """The bench's unit of work, one prompt at one temperature (every proposer, K and policy of the run measured on
    it), counted as its time-limit note counts it: "8 prompt × temperature cases". The machine line and that note say
    it alike (read 46: the H200 run's line said "20 measured cases", its rows, beside "3 of 8 prompt x temperature
    cases did not run"). Read 53: with ×, as every product on the pages is written (the bench's English notes in a
    results.json keep their "x", which `NOTES` reads).

    >>> case_count(1), case_count(8)
    ('1 prompt × temperature case', '8 prompt × temperature cases')
    """
    return ngettext("{n} prompt × temperature case", "{n} prompt × temperature cases", n)


def measured_cases(result: BenchResult) -> int:
    """How many prompt × temperature cases the run measured: its rows' distinct (category, prompt, temperature)."""
    return len({(row.get("suite"), row.get("prompt_id"), row.get("temperature")) for row in result.cases})


def machine_line(result: BenchResult, clock: str) -> str:
    """Where the numbers were measured: the GPU first when the models ran on one (the CPU is then only the host). The
    machine is worded by `quoted.machine_text`, the one place a recorded machine becomes words; the threads, the
    clock, the date and a GPU merely present are added here."""
    m = result.machine
    ran = measured_cases(result)
    common = dict(pair=result.config["pair"], threads=m["torch_threads"], clock=clock, date=m["date"][:10],
                  cases=ngettext("{cases} measured", "{cases} measured", ran, cases=case_count(ran)),
                  tokens=ngettext("{n} new token", "{n} new tokens", result.config["max_new_tokens"])
                  if isinstance(result.config["max_new_tokens"], int) else result.config["max_new_tokens"])
    if result.gpu:  # the host's CPU and cores only: the kernels recorded are the models', which ran on the GPU
        host = machine_text({"cpu": m.get("cpu"), "cores": m.get("cores")}) or "?"
        return _("Pair `{pair}` on the GPU {machine}, hosted by {host}, {clock}, {date}: {cases}, "
                 "{tokens} each.", machine=machine_text(m), host=host, **common)
    gpu = _("a GPU present and not used ({gpu})", gpu=m["gpu"]) if m["gpu"] else _("no GPU")
    return ngettext("Pair `{pair}` on {machine}, {gpu}, {n} torch thread, {clock}, {date}: {cases}, "
                    "{tokens} each.",
                    "Pair `{pair}` on {machine}, {gpu}, {n} torch threads, {clock}, {date}: {cases}, "
                    "{tokens} each.", int(m["torch_threads"]), machine=machine_text(m) or "?", gpu=gpu,
                    **common)


def render_machine(result: BenchResult, name: str) -> None:
    """One line on where and how the numbers were measured; the notes and the exact command in an expander."""
    m = result.machine
    clock = _("CPU time") if result.config.get("clock") == "cpu" else _("wall time")
    st.caption(machine_line(result, clock))
    with st.expander(_("How this was measured: machine, notes, the command that reproduces it")):
        st.markdown(_("torch {torch}, transformers {transformers}, Python {python}, {platform}; load average {load} at "
                      "the start.", torch=m["torch"], transformers=m["transformers"], python=m.get("python", "?"),
                      platform=m.get("platform", ""), load=load_text(m.get("load_average_start"))))
        for note in result.notes:
            st.markdown("- " + note_text(note, m.get("cores", "?"), m.get("torch_threads")))
        if result.command:
            st.code(result.command, language="bash", wrap_lines=True)
            for note in command_notes(result):
                st.caption(note)


# The notes `specviz bench` writes into a result (bench/runner.py), as patterns: a note read from a file is shown in
# the reader's language when it is one of these, and as written otherwise.
NOTES = (
    # the notes with counts (report.repeats_note, threads_note, stopped_note): note_text says each count in words
    (r"Speedups are ratios of tokens/s measured in the same run, repeat by repeat interleaved, medians over "
     r"(?P<repeats>\d+) repeats? after (?P<warmup>\d+) warm-up rounds?\.",
     N_("Speedups are ratios of tokens/s measured in the same run, repeat by repeat interleaved, medians over "
        "{repeats} after {warmup}.")),
    (r"torch used (?P<threads>\d+) threads? on (?P<cores>\d+) visible cores?\.",
     N_("torch used {threads} on {cores}.")),
    (r"The models ran on (?P<device>\S+) in (?P<dtype>\S+)\.", N_("The models ran on {device} in {dtype}.")),
    (r"Times are this process's CPU time \(time\.process_time\), not wall time: the machine was shared, and CPU time "
     r"leaves out the waits for a free core\. With one torch thread it equals wall time on an idle machine; with more "
     r"threads it adds them up\.",
     N_("Times are this process's CPU time (time.process_time), not wall time: the machine was shared, and CPU time "
        "leaves out the waits for a free core. With one torch thread it equals wall time on an idle machine; with "
        "more threads it adds them up.")),
    # the busy-start note in its two wordings (report.load_note); {cores} is "2 cores" or "1 core", said by note_text
    (r"The load average \(threads running or ready to run, averaged over the minute before it is read\) was "
     r"(?P<start>\S+) at the start and (?P<end>\S+) at the end, on (?P<cores>\d+) cores?: the one at the start says "
     r"that in the minute before the run, more threads than half the number of cores were running or ready to run "
     r"\(other work, or this command's own imports, loading or calibration\), so absolute times may be noisy; ratios "
     r"from the same run are the numbers to trust\.",
     N_("The load average (threads running or ready to run, averaged over the minute before it is read) was {start} "
        "at the start and {end} at the end, on {cores}: the one at the start says that in the minute before the run, "
        "more threads than half the number of cores were running or ready to run (other work, or this command's own "
        "imports, loading or calibration), so absolute times may be noisy; ratios from the same run are the numbers "
        "to trust.")),
    (r"The load average \(threads running or ready to run, averaged over the minute before it is read\) was "
     r"(?P<start>\S+) at the start and (?P<end>\S+) at the end, on (?P<cores>\d+) cores?: the one at the start says "
     r"that in the minute before the run, more threads than twice the number of cores were running or ready to run, "
     r"more than this command's own imports, loading or calibration can account for, so the machine was busy with "
     r"other work; absolute times may read slower and noisier than on a quiet machine, and ratios from the same run "
     r"are the numbers to trust\.",
     N_("The load average (threads running or ready to run, averaged over the minute before it is read) was {start} "
        "at the start and {end} at the end, on {cores}: the one at the start says that in the minute before the run, "
        "more threads than twice the number of cores were running or ready to run, more than this command's own "
        "imports, loading or calibration can account for, so the machine was busy with other work; absolute times "
        "may read slower and noisier than on a quiet machine, and ratios from the same run are the numbers to "
        "trust.")),
    (r"Stopped at its time limit: (?P<skipped>\d+) of (?P<total>\d+) prompt x temperature cases? did not run\.",
     N_("Stopped at its time limit: {skipped} of {total} did not run.")),
    # runs before 7498909 (2026-12-04 14:24 UTC) wrote Spec-Bench's name, #MAT, for the mean accepted length
    (r"Tree rows draft an EAGLE-2 style tree \(node budget x width, depth K\) scored in one target forward; "
     r"(?:#MAT is tokens per target forward, the physical limit a perfect free draft of the same shape|their mean "
     r"accepted length counts tokens per target forward, and their physical limit is that of a perfect free draft "
     r"of the same shape)\.",
     N_("Tree rows draft an EAGLE-2 style tree (node budget × width, depth K) scored in one target forward; their "
        "mean accepted length counts tokens per target forward, and their physical limit is that of a perfect free "
        "draft of the same shape.")),
    (re.escape(RECOMPUTED_OPTIMAL), RECOMPUTED_OPTIMAL),
)


def load_text(value: object) -> str:
    """A recorded load average in the reader's way: its 1-minute figure, the one the bench's note quotes at the
    start. A file records the three of `os.getloadavg()` as a list (the note wrote the end's as the list's text), or
    one number; anything else stays as written.

    >>> load_text([1.04, 1.47, 1.72]), load_text("[2.03, 2.01, 1.93]"), load_text("2.4"), load_text(None)
    ('1.04', '2.03', '2.40', '?')
    """
    if isinstance(value, list | tuple) and value:
        value = value[0]
    if isinstance(value, str):
        found = re.match(r"\[?\s*(-?\d+(?:\.\d+)?)", value)
        if not found:
            return value
        value = float(found.group(1))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return number(float(value), 2)
    return "?"


def _count_words(key: str, value: str) -> str:
    """A count read from a bench note (`NOTES`) with its noun, in the reader's language: "1 repeat", "2 threads"."""
    n = int(value) if value.isdigit() else 0
    if key == "repeats":
        return ngettext("{n} repeat", "{n} repeats", n)
    if key == "warmup":
        return ngettext("{n} warm-up round", "{n} warm-up rounds", n)
    if key == "threads":
        return ngettext("{n} thread", "{n} threads", n)
    if key == "cores":
        return ngettext("{n} visible core", "{n} visible cores", n)
    if key == "total":
        return case_count(n)
    return value


def note_text(note: str, cores: int | str = "?", threads: int | None = None) -> str:
    """A result's note in the reader's language when `specviz bench` wrote it, else as written; first in today's
    words (`report.current_note`: an older run's busy-start note, worded by the load at its start on the machine's
    `cores` and torch `threads`; an older "1 repeat(s)" or "thread(s)" with its noun agreeing), its counts in words.

    >>> from specviz.core.i18n import using
    >>> with using("pt"):
    ...     note_text("torch used 1 thread(s) on 2 visible core(s).")
    'O torch usou 1 thread em 2 núcleos visíveis.'
    >>> note_text("A note of my own.")
    'A note of my own.'
    """
    note = current_note(note, cores, threads)
    for pattern, message in NOTES:
        found = re.fullmatch(pattern, note)
        if found:  # a load average (the busy-start note) is written the reader's way, its cores as a count
            fields = {key: load_text(value) if key in ("start", "end") else value
                      for key, value in found.groupdict().items()}
            if message.startswith("The load average "):  # its {cores}: "2 cores", "1 core" (report.load_note)
                fields["cores"] = ngettext("{n} core", "{n} cores", int(fields["cores"]))
            else:
                fields = {key: _count_words(key, value) for key, value in fields.items()}
            return _(message, **fields)
    return note
