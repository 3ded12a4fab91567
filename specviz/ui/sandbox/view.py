"""The p/q sandbox's pieces: the editable table of p and q, the figures, and the simulated outputs.

The numbers come from specviz.labs.exactness.sandbox; this module only gathers inputs and draws. Every sentence a
reader sees is in `TEXT` (named placeholders, marked with `N_()` and translated with `_()` where drawn). Widget
keys start with `sandbox_`.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from specviz.core.i18n import N_, _, as_written, number, percent_of, read_number
from specviz.labs.exactness import RULES, tv_distance
from specviz.labs.exactness.sandbox import (MAX_SAMPLES, MAX_TOKENS, SandboxSamples, SandboxStep, sandbox_step,
                                            simulate)
from specviz.ui.common.charts import ACCEPTED_PART, RECOVERED_PART, ROUNDED_NOTE, rounded_note, show
from specviz.ui.common.escaping import escape_markdown, plot_text
from specviz.ui.common.sliders import number_slider
from specviz.ui.common.verdicts import verdict_kind, verdict_with_grouping

TOKENS = ["the", "a", "cat", "dog", "sat", "ran"]
DEFAULT_P = [0.35, 0.25, 0.15, 0.12, 0.08, 0.05]
DEFAULT_Q = [0.20, 0.35, 0.05, 0.20, 0.10, 0.10]
COLOURS = {"p": "#0072B2", "q": "#E69F00", "overlap": "#009E73", "residual": "#CC79A7", "samples": "#6B6B6B"}

TEXT = {
    "editor_help": N_("Type any non-negative numbers, at least one above 0 in each column: each column is "
                      "normalised to sum to 1 before the temperature is applied to both."),
    "temperature": N_("Temperature (applied to p and q)"),
    # read 46: with a tie at the top, T = 0 takes the first of the tied tokens (`tempered`, as the engine's greedy pick)
    "temperature_help": N_("p^(1/T), normalised, for both. T = 0 is greedy: all mass on each one's top token (the "
                           "first in the table, where several tie)."),
    "alpha": N_("α = Σ min(p, q)"),
    "tv": N_("TV(p, q) = 1 − α"),
    "reject": N_("chance of rejection"),
    "pq_title": N_("p (target) and q (draft) after temperature"),
    "split_title": N_("p = min(p, q) + (1 − α)·norm(max(0, p − q))"),
    "overlap": ACCEPTED_PART,
    "residual": RECOVERED_PART,
    "no_residual": N_("p = q: every draft is kept (α = 1), the residual is never used."),
    "rule": N_("Verification rule"),
    "n": N_("Simulated steps N"),
    "seed": N_("Seed"),
    "samples_title": N_("{n} simulated first tokens under: {rule}"),
    "observed": N_("simulated"),
    "rule_form": N_("this rule, closed form"),
    "kept": N_("Drafts kept in the simulation: {kept}, an estimate of α = Σ min(p, q) ({alpha} above): each step "
               "drafts one token, and every draft is tested."),
    # read 49: "not of α" was false where the two meet (exact match at T = 0: both 0)
    "kept_other": N_("Drafts kept in the simulation: {kept}, an estimate of this rule's own chance of keeping a "
                     "draft, {chance} by its closed form; it equals α = Σ min(p, q) ({alpha} above), the chance that "
                     "min(1, p/q) keeps one, only at some p and q."),
    "bad_input": N_("The table needs fixing: {reason}"),
    "probability": N_("probability"),
    "token": N_("token"),
    "p": N_("p (target)"),
    "q": N_("q (draft)"),
    "rule_box": N_("**{label}.** {text}"),
    # read 52: 699 of 2,000 simulated "the" tokens (0.3495) read 0.35, and the column added up to 1.0005 as written
    "rounded": ROUNDED_NOTE,
    # read 55: "Broken: resample from p on rejection" at N = 100 passed in the green box with nothing said, where the
    # Exactness lab says its `UNSEEN_DRIFT`
    "unseen": N_("This rule is not exact at these p and q: by its closed form what it emits is TV = {drift} away from "
                 "p, but {n} samples are too few for the test to see it. Draw more samples."),
}


def edit_distributions() -> tuple[list[float] | None, list[float] | None, float]:
    """The learner's p, q (raw weights from the editable table) and the temperature; p and q are None after one
    sentence on screen when a cell is not a number.

    The cells are text written by the one formatter (`i18n.number`: 0.350, or 0,350 in Portuguese, which a
    NumberColumn's printf format cannot do) and read back by `i18n.read_number`, which takes either decimal sign."""
    frame = pd.DataFrame({"token": TOKENS, "p (target)": [number(x, 3) for x in DEFAULT_P],
                          "q (draft)": [number(x, 3) for x in DEFAULT_Q]})
    texts = {c: st.column_config.TextColumn(_(TEXT[c[0]]), max_chars=24)
             for c in ("p (target)", "q (draft)")}  # the columns keep their English names; the labels translate
    edited = st.data_editor(frame, key="sandbox_table", hide_index=True, disabled=["token"], num_rows="fixed",
                            column_config={"token": st.column_config.TextColumn(_(TEXT["token"])), **texts})
    st.caption(_(TEXT["editor_help"]))
    temperature = number_slider(st, _(TEXT["temperature"]), 0.0, 2.0, 1.0, 0.05, key="sandbox_temperature",
                                help=_(TEXT["temperature_help"]))
    try:
        p, q = weights(edited["p (target)"]), weights(edited["q (draft)"])
    except ValueError as exc:
        st.error(_(TEXT["bad_input"], reason=escape_markdown(str(exc))))
        return None, None, temperature
    return p, q, temperature


def weights(cells) -> list[float]:
    """A column of the table as numbers: an emptied cell is 0, anything else goes through `read_number`.

    >>> weights(["0,35", "0.25", None, ""])
    [0.35, 0.25, 0.0, 0.0]
    """
    return [0.0 if cell is None or (isinstance(cell, float) and pd.isna(cell)) or not str(cell).strip()
            else read_number(cell) for cell in cells]


def compute(p: list[float] | None, q: list[float] | None, temperature: float) -> SandboxStep | None:
    """The exact rule's pieces, or None after one sentence on screen when the table cannot be used (a table whose
    cells could not be read has said so already)."""
    if p is None or q is None:
        return None
    try:
        return sandbox_step(p, q, temperature)
    except ValueError as exc:
        st.error(_(TEXT["bad_input"], reason=escape_markdown(str(exc))))
        return None


def _bars(title: str) -> go.Figure:
    fig = go.Figure()
    fig.update_layout(title=title, height=300, margin=dict(l=10, r=10, t=40, b=10), xaxis_title=_(TEXT["token"]),
                      yaxis_title=_(TEXT["probability"]), legend=dict(orientation="h", y=-0.3))  # below the axis title
    return fig


def show_chart(fig: go.Figure, key: str) -> None:
    """`show`, with a note above the chart's table where its rounded values, as written, do not add up to what the
    values do (`charts.rounding_shows`)."""
    show(fig, key, note=rounded_note(fig))


def pq_figure(step: SandboxStep) -> go.Figure:
    """p and q side by side."""
    fig = _bars(_(TEXT["pq_title"]))
    labels = [plot_text(t) for t in TOKENS]
    fig.add_bar(x=labels, y=step.target_probs.tolist(), name=_(TEXT["p"]), marker_color=COLOURS["p"])
    fig.add_bar(x=labels, y=step.draft_probs.tolist(), name=_(TEXT["q"]), marker_color=COLOURS["q"])
    return fig


def split_figure(step: SandboxStep) -> go.Figure:
    """min(p, q) stacked with (1 − α)·residual: together exactly p (drawn as a marker)."""
    fig = _bars(_(TEXT["split_title"]))
    labels = [plot_text(t) for t in TOKENS]
    fig.add_bar(x=labels, y=step.overlap.tolist(), name=_(TEXT["overlap"]), marker_color=COLOURS["overlap"])
    fig.add_bar(x=labels, y=((1 - step.alpha) * step.residual).tolist(), name=_(TEXT["residual"]),
                marker_color=COLOURS["residual"])
    fig.add_scatter(x=labels, y=step.target_probs.tolist(), mode="markers", name=_(TEXT["p"]),
                    marker=dict(color=COLOURS["p"], symbol="line-ew-open", size=28, line=dict(width=3)))
    fig.update_layout(barmode="stack")
    return fig


CHANCE_CAP = 6  # the most decimals `chance_digits` gives a chance


def chance_digits(chance: float) -> int:
    """The decimals a chance is written with: 3, or as many more (up to 6) as keep one that is neither 0 nor 1 from
    reading 0.000 or 1.000 (read 50: p ∝ 0.5, 0.2, 0.1, 0.1, 0.05, 0.05 and q ∝ 0.6, 0.1, 0.1, 0.1, 0.05, 0.05 at
    T = 0.1 have α = 0.99990, written "α = 1.000" and "chance of rejection 0.000" without the p = q note). Within
    1e-12 of 0 or 1 is the float sum's noise of an exact 0 or 1, as `sandbox_step`'s residual takes it.

    A small chance gets the decimals that give it two significant figures too, as every keep chance has (read 55:
    a keep chance of 0.0012 read "0.001" where the Exactness lab wrote the same chance 0.0012).

    >>> chance_digits(0.75), chance_digits(0.99990), chance_digits(0.0012), chance_digits(1 - 1e-16)
    (3, 4, 4, 3)
    >>> chance_digits(0.0001), chance_digits(0.05)
    (5, 3)
    """
    digits = 3
    while 1e-12 < chance < 1 - 1e-12 and digits < CHANCE_CAP and (
            as_written(chance, digits) in (0.0, 1.0) or chance < 10.0 ** (1 - digits)):
        digits += 1
    return digits


def chance_text(chance: float) -> str:
    """A chance written with `chance_digits`' decimals; one that is neither 0 nor 1 (beyond the float noise
    `chance_digits` allows) but still rounds to 1 or 0 at the cap is "> 0.999999" or "< 0.000001", never 1 or 0
    (read 52: p ∝ 0.5, 0.2, 0.1, 0.1, 0.05, 0.05 and q ∝ 0.6, 0.1, 0.1, 0.1, 0.05, 0.05 at T = 0.05 have
    α = 0.99999999, written "α = 1.000000" and "TV 0.000000"; as `percent_of` never writes a miss as 100%).

    >>> chance_text(0.99990), chance_text(0.99999999), chance_text(3e-9), chance_text(1.0), chance_text(0.0)
    ('0.9999', '> 0.999999', '< 0.000001', '1.000', '0.000')
    """
    digits = chance_digits(chance)
    if 1e-12 < chance < 1 - 1e-12 and as_written(chance, digits) in (0.0, 1.0):
        cap = 10.0 ** -CHANCE_CAP
        return ("> " + number(1 - cap, CHANCE_CAP)) if as_written(chance, digits) == 1.0 else \
            ("< " + number(cap, CHANCE_CAP))
    return number(chance, digits)


def alpha_texts(alpha: float) -> tuple[str, str]:
    """α and 1 − α as the metrics write them, 1 − α from the α written beside it, so the two always add up to 1
    (read 50: α = 0.7305 read "α = 0.731" beside "TV(p, q) = 1 − α" 0.270, since TV = 0.2695 rounds up too); an α
    beyond the cap of 1 or 0 and its 1 − α are bounds (`chance_text`).

    >>> alpha_texts(0.7305), alpha_texts(0.99990), alpha_texts(1.0)
    (('0.731', '0.269'), ('0.9999', '0.0001'), ('1.000', '0.000'))
    >>> alpha_texts(0.99999999), alpha_texts(3e-9)
    (('> 0.999999', '< 0.000001'), ('< 0.000001', '> 0.999999'))
    """
    digits = chance_digits(alpha)
    if 1e-12 < alpha < 1 - 1e-12 and as_written(alpha, digits) in (0.0, 1.0):
        return chance_text(alpha), chance_text(1 - alpha)
    return number(alpha, digits), number(1 - as_written(alpha, digits), digits)


def render_numbers(step: SandboxStep) -> None:
    a, b, c = st.columns(3)
    alpha, rest = alpha_texts(step.alpha)
    a.metric(_(TEXT["alpha"]), alpha)
    b.metric(_(TEXT["tv"]), rest)  # TV = 1 − α: written from the α beside it
    c.metric(_(TEXT["reject"]), rest)
    if step.residual.sum() == 0:
        st.info(_(TEXT["no_residual"]))


def sandbox_rules() -> list[str]:
    """The rules the sandbox offers: the exact ones and every other that can differ from p on a table of at most
    MAX_TOKENS tokens (`Rule.can_break`). "Reject outside the target's top 20" cannot: the top 20 of 8 tokens is all
    of them, so here it is the exact rule, and offering it under "Broken" would show a broken rule passing the test."""
    return [name for name, rule in RULES.items() if rule.exact or rule.can_break(MAX_TOKENS)]


def pick_simulation() -> tuple[str, int, int]:
    """The rule (with the broken ones that can break on a few tokens), N and the seed."""
    names = sandbox_rules()
    left, middle, right = st.columns([3, 2, 1])
    rule = left.selectbox(_(TEXT["rule"]), names, format_func=lambda name: _(RULES[name].label), key="sandbox_rule")
    n = number_slider(middle, _(TEXT["n"]), 100, MAX_SAMPLES, 2000, 100, key="sandbox_n")
    seed = right.number_input(_(TEXT["seed"]), 0, 10_000, 1, key="sandbox_seed")
    return rule, int(n), int(seed)


@st.cache_data(max_entries=64, show_spinner=False)
def _simulate(p: tuple[float, ...], q: tuple[float, ...], temperature: float, rule: str, n: int,
              seed: int) -> SandboxSamples:
    return simulate(sandbox_step(list(p), list(q), temperature), rule, n, seed)


def samples_figure(step: SandboxStep, samples: SandboxSamples, rule: str, n: int) -> go.Figure:
    """Simulated frequencies against p and against the rule's own closed form."""
    fig = _bars(_(TEXT["samples_title"], n=number(n, 0), rule=_(RULES[rule].label)))
    labels = [plot_text(t) for t in TOKENS]
    fig.add_bar(x=labels, y=(samples.counts.double() / n).tolist(), name=_(TEXT["observed"]),
                marker_color=COLOURS["samples"])
    fig.add_bar(x=labels, y=step.target_probs.tolist(), name=_(TEXT["p"]), marker_color=COLOURS["p"])
    fig.add_scatter(x=labels, y=samples.expected.tolist(), mode="markers", name=_(TEXT["rule_form"]),
                    marker=dict(color=COLOURS["residual"], symbol="diamond", size=11))
    return fig


def render_simulation(p: list[float], q: list[float], temperature: float, step: SandboxStep) -> None:
    rule, n, seed = pick_simulation()
    entry = RULES[rule]
    (st.success if entry.exact else st.warning)(_(TEXT["rule_box"], label=_(entry.label), text=_(entry.explanation)))
    samples = _simulate(tuple(p), tuple(q), float(temperature), rule, n, seed)
    show_chart(samples_figure(step, samples, rule, n), "sandbox_samples_chart")
    # the exact rule and resample-from-p share the accept test min(1, p/q), so both keep a draft with chance α (the
    # review of read 43: resample-from-p's rate was called "not α ..., the chance that min(1, p/q) keeps one")
    kept = "kept" if rule in ("exact", "resample_from_target") else "kept_other"
    # counted: a share of a few misses in 20,000 is not written 100.0% (read 50; `percent_of`)
    kept_count = round(samples.accepted_fraction * n)
    st.caption(_(TEXT[kept], kept=percent_of(kept_count, n, 1), alpha=alpha_texts(step.alpha)[0],
                 chance=chance_text(samples.kept_chance)))
    # the Exactness lab's boxes: a borderline p-value is amber and a test that could not run blue, not green (read 49:
    # "Borderline (chi-square p-value 0.0041): suspicious" and "Too few samples to test" sat in the success box), and
    # under it the statistic, degrees of freedom and groups behind its p-value, as there (read 51)
    verdict_with_grouping(samples.verdict, samples.verdict.verdict)
    if note := unseen_drift(step, samples):
        st.caption(note)


def unseen_drift(step: SandboxStep, samples: SandboxSamples) -> str | None:
    """Under a verdict in the green box, for a rule whose closed form is not p at these p and q, that the test did not
    see its drift (read 55: "Broken: resample from p on rejection" at N = 100 read "Consistent with the target
    distribution" with nothing said, where the Exactness lab says so); else None. A broken rule that is exact here
    (p = q, or T = 0 for all but accepting every draft) gets no note."""
    drift = tv_distance(samples.expected, step.target_probs)
    if verdict_kind(samples.verdict) != "success" or drift <= 1e-9:
        return None
    return _(TEXT["unseen"], drift=chance_text(drift), n=number(samples.verdict.n, 0))
