"""The measured vLLM sweep on the Theory explorer's roofline chart: for the SmolLM2 pairs whose proposer the committed
sweep served (n-gram lookup, the EAGLE drafter), vLLM's throughput with speculation over without at each concurrency
becomes points next to the predicted speedup against batch, so the predicted break-even and the measured one sit on
one chart. A concurrency (concurrent streams, requests in flight) stands for the batch: vLLM decodes the running
requests together.

Plain figures and sentences, tested without a browser from the committed JSON (assets/benchmarks/serving/).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from specviz.core.i18n import N_, _, list_separator, ngettext, number
from specviz.engine import theory
from specviz.labs import roofline
from specviz.labs.bench.quoted import kernels_words
from specviz.serving.load import LevelResult
from specviz.serving.results import SERVING_DIR, ServingResult, prompt_name
from specviz.ui.common.charts import figure_table
from specviz.ui.common.palette import BLUE, REDDISH_PURPLE, SKY_BLUE

COMMITTED = SERVING_DIR / "cpu-smollm2.json"
PAIR_SPECS = {"smollm2-ngram": "ngram", "smollm2-eagle": "eagle"}  # the explorer's pair -> the sweep's speculation
SYMBOLS = {"copy": "circle", "open": "square"}
COLORS = {"copy": REDDISH_PURPLE, "open": SKY_BLUE}
BREAK_EVEN_COLOR = BLUE
# the table's column of the α a prompt's hover gives at each level (read 52: only the hover had them)
ALPHA_COLUMN = N_("{prompt}: α ≈ from the mean accepted length over drafted steps")
NO_POINTS = N_("Measured vLLM points are drawn for the SmolLM2 pairs with n-gram lookup or the EAGLE drafter (the "
               "committed serving sweep); pick one of them under Models to see them.")


def on_chart(fig: go.Figure, pair_key: str, hw: roofline.Hardware,
             result: ServingResult | None) -> tuple[go.Figure, str]:
    """The predicted speedup with `result`'s points for this pair (`committed()` on the page), and the caption that
    says what they measured, or why there are none."""
    spec = spec_for(pair_key, result)
    if spec is None:
        return fig, _(NO_POINTS)
    return add_measured(fig, result, spec), caption(result, spec, hw)


def committed(path: Path | str | None = None) -> ServingResult | None:
    """The committed sweep, or None when it is missing or unreadable (the chart then shows the prediction alone)."""
    try:
        return ServingResult.load(path or COMMITTED)
    except ValueError:
        return None


def spec_for(pair_key: str, result: ServingResult | None) -> str | None:
    """The sweep's speculation measured for this pair, if the sweep has it."""
    spec = PAIR_SPECS.get(pair_key)
    return spec if result is not None and spec in result.specs() else None


def measured_alpha(level: LevelResult | None, k: int) -> float | None:
    """α implied by vLLM's mean accepted length at one level (E[tokens per step] = (1 − α^(K+1)) / (1 − α)),
    capped just below K + 1 where every draft was kept."""
    if level is None or level.mean_accepted_length is None:
        return None
    return theory.alpha_from_tokens_per_step(min(level.mean_accepted_length, k + 0.999), k)


def _prompt_name(prompt: str) -> str:
    """The Serving page's name for a sweep prompt (read 55: "open question" here, "open prompt" there)."""
    return prompt_name(prompt)


def _levels(result: ServingResult, spec: str, prompt: str) -> list[tuple[int, float, float | None]]:
    """A prompt's measured points: (concurrency, speedup, the α its mean accepted length implies) at each level
    with a speedup."""
    k = int(result.server.get("k", 4))
    levels = [(c, result.speedup(spec, prompt, c), result.level(spec, prompt, c))
              for c in result.concurrencies(prompt)]
    return [(c, s, measured_alpha(lv, k)) for c, s, lv in levels if s is not None]


def add_measured(fig: go.Figure, result: ServingResult, spec: str) -> go.Figure:
    """One marker trace per prompt (speedup = tokens/s with `spec` over tokens/s without, same concurrency) and,
    where the sweep saw speculation stop paying, an open marker at that concurrency on 1×. Turns the legend on."""
    for prompt in result.prompt_names():
        levels = _levels(result, spec, prompt)
        if not levels:
            continue
        name = _("measured: vLLM, {prompt}", prompt=_prompt_name(prompt))
        fig.add_trace(go.Scatter(
            x=[c for c, _s, _a in levels], y=[s for _c, s, _a in levels], mode="markers+lines", name=name,
            line=dict(color=COLORS.get(prompt, BLUE), dash="dot", width=1),
            marker=dict(size=11, symbol=SYMBOLS.get(prompt, "diamond"), color=COLORS.get(prompt, BLUE),
                        line=dict(width=1, color="black")),
            # each level's count written here, so 1 agrees ("1 concurrent requests" did not); α beside it; named
            # as the Serving page names a level (read 55: "concurrent requests" here, "concurrent streams" there)
            customdata=[[ngettext("{n} concurrent stream", "{n} concurrent streams", c),
                         a if a is not None else float("nan")] for c, _s, a in levels],
            hovertemplate=f"<b>{name}</b><br>" + _("%{customdata[0]}: %{y:.2f}× the tokens/s without "
                                                   "speculation; α ≈ %{customdata[1]:.2f} from the mean accepted "
                                                   "length over drafted steps") + "<extra></extra>"))
        even = result.break_even(spec, prompt)
        if even is not None:
            label = break_even_label(prompt)
            fig.add_trace(go.Scatter(
                x=[even], y=[1.0], mode="markers", showlegend=False, name=label,
                marker=dict(size=18, symbol="circle-open", color=BREAK_EVEN_COLOR, line=dict(width=2)),
                hovertemplate=f"<b>{label}</b><br>" + break_even_text(result, prompt, even) + "<extra></extra>"))
    fig.update_layout(showlegend=True, legend=dict(orientation="h", yanchor="top", y=-0.22, x=0),
                      yaxis_title=_("speedup ×"))  # the line's is expected, the points' measured
    fig.update_layout(height=max(fig.layout.height or 0, 440), margin=dict(b=10))
    return fig


def break_even_label(prompt: str) -> str:
    """The name of a prompt's measured break-even marker (its hover's title, its table column)."""
    return _("measured break-even, {prompt}", prompt=_prompt_name(prompt))


def break_even_text(result: ServingResult, prompt: str, even: int) -> str:
    """What a prompt's measured break-even marker at concurrency `even` means: speculation stopped paying there, or,
    at the lowest level measured, it did not pay even there (the first level need not be 1, `--levels 4 16`: "even
    at 4 request at a time" did not agree)."""
    if even > min(result.concurrencies(prompt)):
        return ngettext("speculation stopped paying at {n} concurrent stream",
                        "speculation stopped paying at {n} concurrent streams", even)
    return ngettext("speculation did not pay even at {n} stream",
                    "speculation did not pay even at {n} concurrent streams", even)


def chart_table(fig: go.Figure, pair_key: str, result: ServingResult | None) -> pd.DataFrame | None:
    """The numbers of `on_chart`'s figure: its lines and points (`charts.figure_table`) and, for each prompt measured
    for this pair, the α its points' hovers give at each concurrency (written as they write it, 2 decimals; "–" where
    the level recorded no mean accepted length). Read 52: those α were on hover only, out of a keyboard's reach.
    A break-even marker's cell says what its hover says (read 52: it read "1", its place on the 1× line, so where
    EAGLE never paid the table gave "1" at one request and only the hover said it did not pay even there)."""
    table = figure_table(fig)
    spec = spec_for(pair_key, result)
    if table is None or spec is None:
        return table
    rows = list(table[table.columns[0]])
    for prompt in result.prompt_names():
        even = result.break_even(spec, prompt)
        if even is not None and break_even_label(prompt) in table.columns:
            words = break_even_text(result, prompt, even)
            table[break_even_label(prompt)] = [words if row == number(even, 0) else "–" for row in rows]
        found = {number(c, 0): "–" if a is None else number(a, 2) for c, _s, a in _levels(result, spec, prompt)}
        if found:
            table[_(ALPHA_COLUMN, prompt=_prompt_name(prompt))] = [found.get(row, "–") for row in rows]
    return table


def caption(result: ServingResult, spec: str, hw: roofline.Hardware) -> str:
    """What the points measured, on which machine, with which command, and which hardware the line assumes."""
    server, machine = result.server, result.machine
    measured = roofline.hardware_presets().get("measured")
    # read 45: said under every preset's line, though only the measured preset's line is fitted to specviz's engine
    fitted = (_("The preset “{name}” is fitted to specviz's own engine in float32 with {kernels} kernels, not to "
                "vLLM: compare the shapes more than the numbers.", name=measured.name,
                kernels=kernels_words(roofline.measured_kernels())) if measured is not None and hw == measured else "")
    return " ".join(s for s in (_(
        "Points: measured with {build} serving {model} in {dtype} ({spec}, K = {k}, {requests} requests of at "
        "most {max_tokens} tokens per level, at least one per stream) on {cpu} with {cores} cores, {date}: tokens per second with "
        "speculation over without, at each number of concurrent streams. Reproduce: `{command}`. The line: the "
        "roofline's prediction for {hardware} at the α and K chosen above.",
        build=server.get("build", "?"), model=server.get("model", "?"), dtype=server.get("dtype", "?"), spec=spec,
        k=server.get("k", "?"), requests=server.get("requests", "?"), max_tokens=server.get("max_tokens", "?"),
        cpu=machine.get("cpu", "?"), cores=machine.get("cores", "?"), date=str(machine.get("date", "?"))[:10],
        command=result.command, hardware=_(hw.name)), result.eagle_note() if spec == "eagle" else "", fitted,
        _alpha_hint(result, spec)) if s)


def _alpha_hint(result: ServingResult, spec: str) -> str:
    k = int(result.server.get("k", 4))
    lowest = {p: min(result.concurrencies(p)) for p in result.prompt_names()}
    alphas = {p: measured_alpha(result.level(spec, p, lowest[p]), k) for p in result.prompt_names()}
    measured = [p for p, a in alphas.items() if a is not None]
    if not measured:
        return ""
    if all(lowest[p] == 1 for p in measured):
        return _("At one stream the measured mean accepted length over drafted steps (vLLM's 1 + accepted / "
                 "steps that drafted) implies α ≈ {alphas}: set α above to compare.",  # read 50: "0,29 (…); 0,25"
                 alphas=list_separator().join(f"{number(alphas[p], 2)} ({_prompt_name(p)})" for p in measured))
    # read 55: a sweep whose first level is not 1 (`--levels 4 16`) took that level's α and still said "At one stream"
    where = {p: ngettext("{prompt}, {n} stream", "{prompt}, {n} streams", lowest[p], prompt=_prompt_name(p))
             for p in measured}
    return _("At the lowest level measured, the mean accepted length over drafted steps (vLLM's 1 + accepted / "
             "steps that drafted) implies α ≈ {alphas}: set α above to compare.",
             alphas=list_separator().join(f"{number(alphas[p], 2)} ({where[p]})" for p in measured))


def paying_runs(paying: list[int]) -> list[tuple[int, int]]:
    """The batches at which speculation pays (`roofline.paying_batches`), as runs of consecutive batches, each its
    first and last.

    >>> paying_runs([1, 2, 3, 7, 8]), paying_runs([])
    ([(1, 3), (7, 8)], [])
    """
    runs: list[tuple[int, int]] = []
    for b in paying:
        if runs and b == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], b)
        else:
            runs.append((b, b))
    return runs


def paying_ranges(paying: list[int]) -> str:
    """The paying batches in words, run by run (`paying_runs`): "32 to 1,024", "1 to 3, 600". One text for the
    chart's note, the `pays_later` sentence and the Serving lab's prediction, so none reads two runs as one. Runs are
    separated by `list_separator` (read 52: Portuguese "1 a 3, 600" read as 3,6 beside its decimal comma).

    >>> paying_ranges([1, 2, 3, 600])
    '1 to 3, 600'
    >>> from specviz.core.i18n import using
    >>> with using("pt"):
    ...     paying_ranges([1, 2, 3, 600, 1024])
    '1 a 3; 600; 1.024'
    """
    return list_separator().join(_("{first} to {last}", first=number(a, 0), last=number(b, 0)) if a != b
                                 else number(a, 0) for a, b in paying_runs(paying))
