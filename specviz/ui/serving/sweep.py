"""The Serving page's load sweeps: a bounded live sweep against the connected server, and the committed sweep with
and without speculation (assets/benchmarks/serving/), vLLM next to specviz's own engine and the roofline's
predicted break-even next to the measured one."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from specviz.core.i18n import N_, _, and_list, list_separator, ngettext, number, times
from specviz.labs import roofline
from specviz.labs.bench.quoted import kernels_words
from specviz.labs.bench.report import ran_stock_kernels
from specviz.serving import client
from specviz.serving.cli import PROMPTS
from specviz.serving.load import LEVELS, MAX_REQUESTS, LevelResult, LoadPlan, Prompt, cap_note, run_load
from specviz.serving.results import (PayKind, PayShape, ServingResult, find_serving_results, live_sweep_json,
                                     prompt_word)
from specviz.ui.common import charts as plot
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.serving import charts
from specviz.ui.common.roofline import paying_ranges
from specviz.ui.common import roofline as serving_roofline

LIVE_SWEEP = "serving_live_sweep"
LIVE_SECONDS = 180.0  # a live sweep's time cap (`LoadPlan.max_seconds`)
# What the tables' and charts' "median latency" is (`LevelResult.latency_s`). Read 52: the page said "median" alone,
# and for the 8 requests of a committed level the higher middle value can be far from the mean of the two (2.97 s
# shown for n-gram lookup, copy prompt, 4 streams, where that mean is 2.74 s)
LATENCY_NOTE = N_("Median latency: the time of each request's whole answer, not of its first token; with an even "
                  "number of requests, the higher of the two middle values (a time one request took), not their "
                  "mean.")
SHARED_COUNTERS_NOTE = N_("The acceptance columns are the server's own counters read before and after each level, "
                          "so another client's requests to it in that time count too.")


def live_sweep(base: str, speculating: bool) -> None:
    """The load generator's form; runs only against a server the operator allows (loopback by default)."""
    if not client.allowed(base):
        st.info(escape_markdown(str(client.not_allowed())))
        return
    with st.form("serving_load_form", enter_to_submit=False):  # read 48: Enter in a number field ran the sweep
        a, b, c, d = st.columns(4)
        prompt = a.selectbox(_("Prompt"), list(PROMPTS), key="serving_load_prompt",
                             help=_("copy: the answer repeats the prompt; open: a question with a fresh answer."))
        levels = b.multiselect(_("Concurrent streams"), LEVELS, default=[1, 4], key="serving_load_levels")
        # Read 45: `LoadPlan.requests_at` sends at least one request per stream, which the field did not say
        requests = c.number_input(_("Requests per level"), 1, MAX_REQUESTS, 4, key="serving_load_requests",
                                  help=_("Requests sent at each level, at least one per stream: 4 requests at 16 "
                                         "concurrent streams send 16. At most {most} a level.",
                                         most=number(MAX_REQUESTS, 0)))
        tokens = d.number_input(_("Tokens per request"), 8, 256, 64, key="serving_load_tokens",
                                help=_("At most this many tokens a request (its max_tokens): an answer that ends "
                                       "sooner has fewer, and tokens/s counts the tokens each answer had."))
        go = st.form_submit_button(_("Run the sweep"))
    with st.expander(_("The prompt")):
        st.code(PROMPTS[prompt], language=None, wrap_lines=True)  # sent to the model as is, never translated
    if go:
        plan = LoadPlan(prompts=(Prompt(prompt, PROMPTS[prompt]),), levels=tuple(sorted(levels)),
                        requests=int(requests), max_tokens=int(tokens), max_seconds=LIVE_SECONDS)
        label = "speculating" if speculating else "none"
        try:
            with st.status(_("Sending requests...")) as box:
                model = client.served_model(base)
                results = run_load(base, plan, speculative=label, model=model, progress=box.write)
                box.update(label=_("Done"), state="complete")
        except ValueError as exc:
            st.error(escape_markdown(str(exc)))
            return
        st.session_state[LIVE_SWEEP] = [lv.to_dict() for lv in results]
        st.session_state[LIVE_SWEEP + "_plan"] = dict(prompts=[prompt], levels=list(plan.levels))  # for `cap_note`
        # what the download says the figures were measured against (a kept file names its server and model)
        now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        st.session_state[LIVE_SWEEP + "_about"] = dict(server=base, model=model, speculating=speculating,
                                                        requests=int(requests), max_tokens=int(tokens), measured_at=now)
    done = [LevelResult.from_dict(d) for d in st.session_state.get(LIVE_SWEEP, [])]
    if done:
        plot.show(charts.sweep_figure(done, done[0].prompt), key="serving_live_sweep_chart")
        st.dataframe(level_table(done), hide_index=True, width="stretch")
        # read 52: load.py says so; the page showed these columns as the sweep's own
        st.caption(" ".join((_(LATENCY_NOTE), _(SHARED_COUNTERS_NOTE))))
        planned = st.session_state.get(LIVE_SWEEP + "_plan")
        if planned and (note := cap_note(done, planned["prompts"], planned["levels"], LIVE_SECONDS)):
            st.warning(escape_markdown(note))  # read 50: levels past the cap were left out without a word
        errors = sorted({r.error for lv in done for r in lv.records if r.error})
        if errors:
            st.warning(escape_markdown(_("Some requests failed: {error}", error=errors[0])))
        about = st.session_state.get(LIVE_SWEEP + "_about")
        if about is not None:
            st.download_button(_("Download as JSON"), live_sweep_json(done, **about), file_name="serving-sweep.json",
                               key="serving_live_download")


def _cell(v, digits: int = 2) -> str:
    """A table cell written by `number` (0,45 in Portuguese), never a float st.dataframe draws as 0.45."""
    return "–" if v is None else number(v, digits)


def level_table(levels: list[LevelResult]) -> pd.DataFrame:
    """One row a level. Its requests column counts the answered ones, whose tokens and times the other columns
    hold (read 52: headed "requests", it read 3 for a level that sent 4 and saw one fail)."""
    return pd.DataFrame([{_("speculation"): charts.spec_name(lv.speculative), _("prompt"): prompt_word(lv.prompt),
                          _("streams"): lv.concurrency,
                          _("requests answered"): len(lv.ok), _("tokens/s"): _cell(lv.throughput, 1),
                          _("median latency (s)"): _cell(lv.latency_s), _("acceptance rate"): _cell(lv.acceptance_rate),
                          _("mean accepted length (drafted steps)"): _cell(lv.mean_accepted_length)}
                         for lv in levels])


def rising_gain(result: ServingResult, spec: str, prompt: str) -> str | None:
    """A few sentences when `spec`'s gain rises from the sweep's second-highest level to its highest, against the
    page's premise that batching eats speculation's gain: what the sweep can and cannot say about it (a level of
    fewer than two requests per stream is one wave or less than two; one of more is several). None when it does not
    rise. Read 53: it said the gain "rises again", which a sweep of two levels (`serve sweep`'s default, 1 and 16)
    or one whose gain never fell does not show; it names the two levels instead. The requests counted are every one
    the level sent, answered or failed (read 52: it counted the answered ones only, so a level whose requests partly
    failed read as fewer waves than it sent); the gain is the answered ones'."""
    levels = result.concurrencies(prompt)
    if len(levels) < 2:
        return None
    before, after = (result.speedup(spec, prompt, c) for c in levels[-2:])
    if before is None or after is None or after <= before * 1.05:
        return None
    top = result.level(spec, prompt, levels[-1])
    sent = len(top.records) if top is not None else 0  # the cap's unsent and cut-off requests are not recorded
    model = str(result.server.get("model") or _("this model"))  # escaped with the sentence
    if sent >= 2 * levels[-1]:  # several waves (a sweep with --requests above the streams): not "one per stream"
        return _("{spec}, {prompt} prompt: the gain rises from {lower} to {streams} streams ({before} → {after}), "
                 "against this page's premise. This sweep cannot settle it: each level was measured once ({sent} "
                 "requests at {streams} streams), and the premise holds for a server busy enough to be "
                 "compute-bound, which this sweep does not show for {model} at {streams} streams. Repeat the sweep a "
                 "few times before reading a trend.", spec=charts.spec_name(spec), prompt=prompt_word(prompt),
                 streams=levels[-1],
                 lower=levels[-2], before=times(before), after=times(after), sent=sent, model=model)
    waves = (_("about one per stream, so that level is a single wave") if sent <= levels[-1] else
             _("fewer than two per stream, so that level is less than two waves"))  # `--requests 24` at 16 streams
    return _("{spec}, {prompt} prompt: the gain rises from {lower} to {streams} streams ({before} → {after}), "
             "against this page's premise. This sweep cannot settle it: at {streams} streams it sent {sent} requests, "
             "{waves}, ramp-up and ramp-down included, measured once; and the premise holds for a server busy enough "
             "to be compute-bound, which this sweep does not show for {model} at {streams} streams. "
             "Measure again with many more requests per level (say 4 per stream) and a few repeats before reading a "
             "trend.", spec=charts.spec_name(spec), prompt=prompt_word(prompt), streams=levels[-1], lower=levels[-2],
             before=times(before), after=times(after), sent=sent, waves=waves, model=model)


def committed_sweep() -> None:
    """The committed sweep: speedup against streams, throughput and latency per prompt, the table, the command."""
    files = find_serving_results()
    if not files:
        st.info(_("No committed serving sweep yet: run `python -m specviz serve sweep`."))
        return
    path = st.selectbox(_("Result"), files, format_func=lambda p: p.stem, key="serving_result")
    try:
        result = ServingResult.load(path)
    except ValueError as exc:
        st.error(escape_markdown(str(exc)))
        return
    server, machine = result.server, result.machine
    st.caption(escape_markdown(_("{build} ({version}), {model} in {dtype}, K = {k}, {requests} requests a level (at "
                                 "least one per stream, so as many as there are streams above {requests}), each "
                                 "level measured once, at most {max_tokens} tokens each; {cpu}, {cores} cores, "
                                 "{date}.",
                                 build=server.get('build', '?'), version=server.get('version', '?'),
                                 model=server.get('model', '?'), dtype=server.get('dtype', '?'),
                                 k=server.get('k', '?'), requests=server.get('requests', '?'),
                                 max_tokens=server.get('max_tokens', '?'), cpu=machine.get('cpu', '?'),
                                 cores=machine.get('cores', '?'), date=machine.get('date', '?'))))
    plot.show(charts.speedup_figure(result), key="serving_speedup_chart")
    for prompt in result.prompt_names():
        shapes = {s: result.pay_shape(s, prompt) for s in result.specs() if s != "none"}
        plot.show(charts.sweep_figure(result.levels, prompt, shapes), key=f"serving_sweep_{prompt}_chart")
        for spec, shape in shapes.items():
            st.markdown(escape_markdown(verdict(spec, prompt, shape)))
            rise = rising_gain(result, spec, prompt)
            if rise:
                st.markdown(escape_markdown(rise))
    st.dataframe(level_table(result.levels), hide_index=True, width="stretch")
    st.caption(" ".join(filter(None, (_(LATENCY_NOTE), other_answers_note(result)))))
    if note := result.eagle_note():  # the eagle rows' drafter is not today's: the command below serves today's
        st.caption(note)
    st.markdown(_("Reproduce it with:"))
    st.code(result.command, language="bash")
    note = stock_kernels_note(result)
    if note:  # the command typed today times specviz's own engine with other kernels than these rows
        st.caption(note)
    if result.specviz:
        compare_specviz(result)
    predicted(result)


def other_answers_note(result: ServingResult) -> str:
    """A sentence naming the levels where vLLM's answers with speculation had other token counts than its answers
    without it (same prompt and level, greedy), so their speedups compare different answers; "" where none did.
    Read 54: the page said so of specviz's rows (`differed_note`) only, while the committed sweep's open prompt
    answered 124 tokens a request with eagle at one stream against 128 without speculation. Equal counts do not show
    equal answers, so the sentence says "at least".

    >>> from specviz.serving.load import LevelResult, RequestRecord
    >>> def lv(spec, tokens):
    ...     return LevelResult("open", 1, spec, 1.0, [RequestRecord(1.0, n) for n in tokens])
    >>> print(other_answers_note(ServingResult(command="", machine={}, server={}, prompts={},
    ...     levels=[lv("none", [128, 128]), lv("ngram", [128, 128]), lv("eagle", [124, 124])])))
    At temperature 0, vLLM's answers with speculation had other token counts than its answers without it at least \
for eagle on the open prompt at 1 stream, so those speedups compare the throughput of different answers.
    """
    cases = []
    for spec in [s for s in result.specs() if s != "none"]:
        for prompt in result.prompt_names():
            levels = []
            for c in result.concurrencies(prompt):
                a, b = result.level(spec, prompt, c), result.level("none", prompt, c)
                if a is not None and b is not None and a.ok and b.ok and (
                        sorted(r.completion_tokens for r in a.ok) != sorted(r.completion_tokens for r in b.ok)):
                    levels.append(c)
            if levels:
                cases.append(ngettext("for {spec} on the {prompt} prompt at {levels} stream",
                                      "for {spec} on the {prompt} prompt at {levels} streams", max(levels),
                                      spec=charts.spec_name(spec), prompt=prompt_word(prompt), levels=_streams(levels)))
    if not cases:
        return ""
    return _("At temperature 0, vLLM's answers with speculation had other token counts than its answers without it "
             "at least {cases}, so those speedups compare the throughput of different answers.",
             cases=and_list(cases))


def stock_kernels_note(result: ServingResult) -> str:
    """Two sentences when the sweep's specviz rows ran PyTorch's stock kernels (a CPU sweep from before specviz packed
    the linear layers for oneDNN, ce0deb7: `report.ran_stock_kernels`, the bench's rule): its command, typed today,
    times specviz's own engine with the packed ones; "" otherwise (no specviz rows, a sweep whose machine or rows
    record their kernels, or a GPU's)."""
    if not result.specviz or not ran_stock_kernels(result.machine or {}) or _row_kernels(result):
        return ""
    return _("This sweep's specviz rows ran PyTorch's stock kernels, as CPU runs did until 2026-12-03 (ce0deb7); "
             "typed today on a CPU, the command's specviz comparison packs its linear layers for oneDNN, so put "
             "`SPECVIZ_KERNELS=stock` before the command to time the kernels these rows timed. The vLLM rows do not "
             "depend on it.")


def _row_kernels(result: ServingResult) -> str | None:
    """The linear kernels the sweep's specviz rows record ("onednn-packed", "stock"; several joined), or None where
    they record none (sweeps from before read 32)."""
    kernels = sorted({row["kernels"] for row in result.specviz if row.get("kernels")})
    return ", ".join(kernels_words(k) for k in kernels) or None  # words, translated (43rd read, read 44)


def _streams(levels) -> str:
    """Levels as the reader reads them: "1", "4, 16" ("4; 16" in Portuguese, whose number lists take semicolons:
    `list_separator`), each through the locale's number formatter."""
    return list_separator().join(number(c, 0) for c in levels)


def verdict(spec: str, prompt: str, shape: PayShape) -> str:
    """One sentence: where `spec` paid against the target alone on `prompt` (1 or more), true to the curve's shape
    (`PayShape`, Read 45: a curve that lost at 1 stream, paid at 4 and lost from 16 read "stops paying at 16" and hid
    the loss at 1).

    >>> verdict("ngram", "open", PayShape.of([(1, 1.2), (4, 1.1), (16, 0.9)]))
    'ngram, open prompt: speculation stops paying at 16 concurrent streams.'
    >>> verdict("eagle", "copy", PayShape.of([(1, 0.9), (4, 0.8)]))
    'eagle, copy prompt: speculation did not pay even at one stream.'
    >>> verdict("ngram", "copy", PayShape.of([(1, 1.2)]))  # `serve sweep --levels 1` measures one level
    'ngram, copy prompt: speculation paid at the one level measured, 1 stream.'
    >>> verdict("ngram", "copy", PayShape.of([(4, 1.2)]))  # `--levels 4`: one level, not "every level, up to 4"
    'ngram, copy prompt: speculation paid at the one level measured, 4 concurrent streams.'
    >>> verdict("ngram", "open", PayShape.of([(4, 0.9), (16, 0.8)]))  # `serve sweep --levels 4 16`
    'ngram, open prompt: speculation did not pay even at 4 concurrent streams, the lowest level measured.'
    >>> verdict("ngram", "open", PayShape.of([(1, 0.9), (4, 1.2), (16, 0.8)]))
    'ngram, open prompt: speculation did not pay at 1 stream, paid at 4 concurrent streams and stops paying at 16.'
    """
    who = dict(spec=charts.spec_name(spec), prompt=prompt_word(prompt))
    if shape.kind == PayKind.UNMEASURED:
        return _("{spec}, {prompt} prompt: no level was measured both with and without speculation.", **who)
    if shape.kind == PayKind.ALWAYS and len(shape.paid) == 1:  # Read 45: `--levels 4` read "every level ..., up to 4"
        return ngettext("{spec}, {prompt} prompt: speculation paid at the one level measured, {n} stream.",
                        "{spec}, {prompt} prompt: speculation paid at the one level measured, {n} concurrent "
                        "streams.", shape.paid[0], **who)
    if shape.kind == PayKind.ALWAYS:
        return _("{spec}, {prompt} prompt: speculation paid at every level measured, up to {n} streams.",
                 n=number(max(shape.paid), 0), **who)
    if shape.kind == PayKind.NEVER and min(shape.lost) == 1:
        return _("{spec}, {prompt} prompt: speculation did not pay even at one stream.", **who)
    if shape.kind == PayKind.NEVER:  # `--levels 4 16`: no level below it was measured, so it never "stops" paying
        return _("{spec}, {prompt} prompt: speculation did not pay even at {streams} concurrent streams, the lowest "
                 "level measured.", streams=number(min(shape.lost), 0), **who)
    if shape.kind == PayKind.UNTIL:
        return _("{spec}, {prompt} prompt: speculation stops paying at {streams} concurrent streams.",
                 streams=number(shape.stop, 0), **who)
    if shape.kind == PayKind.FROM:
        return ngettext("{spec}, {prompt} prompt: speculation did not pay at {lost} stream and paid from {start} "
                        "concurrent streams on, up to the highest level measured, {top}.",
                        "{spec}, {prompt} prompt: speculation did not pay at {lost} concurrent streams and paid from "
                        "{start} on, up to the highest level measured, {top}.", max(shape.lost),
                        lost=_streams(shape.lost), start=number(shape.start, 0), top=number(max(shape.paid), 0),
                        **who)
    if shape.kind == PayKind.BETWEEN:
        below = [c for c in shape.lost if c < shape.start]
        return ngettext("{spec}, {prompt} prompt: speculation did not pay at {lost} stream, paid at {paid} "
                        "concurrent streams and stops paying at {stop}.",
                        "{spec}, {prompt} prompt: speculation did not pay at {lost} concurrent streams, paid at "
                        "{paid} and stops paying at {stop}.", max(below),
                        lost=_streams(below), paid=_streams(shape.paid), stop=number(shape.stop, 0), **who)
    return ngettext("{spec}, {prompt} prompt: speculation paid at {paid} concurrent streams and did not pay at "
                    "{lost} stream: no one level where it starts or stops paying.",
                    "{spec}, {prompt} prompt: speculation paid at {paid} concurrent streams and did not pay at "
                    "{lost}: no one level where it starts or stops paying.", max(shape.lost),
                    paid=_streams(shape.paid), lost=_streams(shape.lost), **who)


def measured(shape: PayShape) -> str:
    """The prediction's "Measured" part: `verdict`'s shape as a clause (no speculation's or prompt's name).

    >>> measured(PayShape.of([(1, 0.9), (4, 1.2), (16, 0.8)]))
    'it did not pay at 1 stream, paid at 4 streams and stopped paying at 16'
    >>> measured(PayShape.of([(1, 1.3)]))  # `serve sweep --levels 1`
    'it paid at the one level measured, 1 stream'
    """
    if shape.kind == PayKind.UNMEASURED:
        return _("no level was measured both with and without speculation")
    if shape.kind == PayKind.ALWAYS and len(shape.paid) == 1:  # as `verdict`: one level is not "every level"
        return ngettext("it paid at the one level measured, {n} stream",
                        "it paid at the one level measured, {n} streams", shape.paid[0])
    if shape.kind == PayKind.ALWAYS:  # read 55: "at every level" beside a prediction up to a batch of 256
        return _("it paid at every level measured, up to {streams} streams", streams=number(max(shape.paid), 0))
    if shape.kind == PayKind.NEVER and min(shape.lost) == 1:
        return _("it did not pay even at one stream")
    if shape.kind == PayKind.NEVER:
        return _("it did not pay even at {streams} streams, the lowest level measured",
                 streams=number(min(shape.lost), 0))
    if shape.kind == PayKind.UNTIL:
        return _("it stopped paying at {streams} streams", streams=number(shape.stop, 0))
    if shape.kind == PayKind.FROM:
        return ngettext("it did not pay at {lost} stream and paid from {start} streams on",
                        "it did not pay at {lost} streams and paid from {start} on", max(shape.lost),
                        lost=_streams(shape.lost), start=number(shape.start, 0))
    if shape.kind == PayKind.BETWEEN:
        below = [c for c in shape.lost if c < shape.start]
        return ngettext("it did not pay at {lost} stream, paid at {paid} streams and stopped paying at {stop}",
                        "it did not pay at {lost} streams, paid at {paid} and stopped paying at {stop}", max(below),
                        lost=_streams(below), paid=_streams(shape.paid), stop=number(shape.stop, 0))
    return ngettext("it paid at {paid} streams and did not pay at {lost} stream",
                    "it paid at {paid} streams and did not pay at {lost}", max(shape.lost),
                    paid=_streams(shape.paid), lost=_streams(shape.lost))


def compare_specviz(result: ServingResult) -> None:
    """vLLM at one stream next to specviz's engine at batch 1, same prompts and K (n-gram, greedy)."""
    st.markdown(_("**vLLM and specviz's own engine, one stream, same prompts** (n-gram drafts, greedy)"))
    rows = []
    for row in result.specviz:
        lv = result.level("ngram", row["prompt"], 1)
        rows.append({_("prompt"): prompt_word(row["prompt"]),
                     _("vLLM acceptance rate"): _cell(lv and lv.acceptance_rate),
                     _("specviz acceptance rate"): _cell(row.get("acceptance_rate")),
                     _("vLLM mean accepted length (drafted steps, from its counters)"):
                         _cell(lv and lv.mean_accepted_length),
                     # like for like beside vLLM's: the steps that drafted (n-gram lookup drafts nothing without a
                     # match); the all-steps mean counts every target forward
                     _("specviz mean accepted length (drafted steps)"):
                         _cell(row.get("mean_accepted_length_drafted_steps")),
                     _("specviz mean accepted length (all steps)"): _cell(row.get("mean_accepted_length")),
                     _("vLLM speedup"): _cell(result.speedup("ngram", row["prompt"], 1)),
                     _("specviz speedup"): _cell(row.get("speedup"))})
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    dtypes, kernels = {row.get("dtype") for row in result.specviz}, _row_kernels(result)
    engine = (_("specviz ran in {dtype} with eager PyTorch kernels, {kernels} for its linear layers",
                dtype=next(iter(dtypes)), kernels=kernels) if len(dtypes) == 1 and None not in dtypes and kernels else
              _("specviz ran in {dtype} with eager PyTorch kernels", dtype=dtypes.pop()) if len(dtypes) == 1
              and None not in dtypes else
              _("specviz ran with eager PyTorch kernels in a dtype this file does not record (the machine's default: "
                "bfloat16 where the CPU has bfloat16 instructions, else float32)"))
    vllm_dtype = result.server.get("dtype")  # a sweep file without it is told so, not given a guess
    vllm = (_("vLLM ran in {dtype} with compiled kernels", dtype=vllm_dtype) if vllm_dtype else
            _("vLLM ran with compiled kernels in a dtype this file does not record"))
    caption = _("Speedups against each engine's own target-only run, in the same sweep. {vllm}; {engine}: the "
                "answers may differ after a few tokens (greedy decoding is lossless only up to numerics), so the "
                "drafts differ too. vLLM's n-gram lookup matches 4 down to 2 tokens, specviz's 3 down to 1 (more "
                "drafts after weaker matches, fewer kept).", vllm=vllm, engine=engine)
    st.caption(" ".join(filter(None, (caption, differed_note(result)))))


def differed_note(result: ServingResult) -> str:
    """A sentence naming the prompts whose specviz row says its speculative answer was not its own target-only
    answer token for token (`same_tokens_as_target_only`, which `specviz_batch1` writes), with their speedups; ""
    where every row matched or none records it. Read 49: the committed sweep's two rows (bfloat16, 8bdea81) both
    differed, and the table showed 2.33× and 1.07× as if each run and its baseline had written one answer.

    >>> print(differed_note(ServingResult(command="", machine={}, server={}, prompts={}, specviz=[
    ...     {"prompt": "copy", "speedup": 2.33, "same_tokens_as_target_only": False},
    ...     {"prompt": "open", "speedup": 1.07, "same_tokens_as_target_only": True}]))[:90])
    specviz's speculative answer was not its own target-only answer on the copy prompt (2.33×)
    """
    rows = [row for row in result.specviz if row.get("same_tokens_as_target_only") is False]
    if not rows:
        return ""
    where = and_list([  # read 51: joined by "; " in Portuguese, which split the sentence after the first prompt
        _("on the {prompt} prompt ({speedup})", prompt=prompt_word(row["prompt"]),
          speedup=times(row["speedup"]) if row.get("speedup") is not None else "–") for row in rows])
    return ngettext("specviz's speculative answer was not its own target-only answer {where}, so that speedup "
                    "compares the throughput of two different answers: greedy speculative decoding gives the "
                    "target's own answer only up to numerics (a verify forward over K + 1 tokens rounds otherwise "
                    "than one-token forwards, and in bfloat16 that flips near-ties more often), and here it did not.",
                    "specviz's speculative answer was not its own target-only answer {where}, so those speedups "
                    "compare the throughput of two different answers: greedy speculative decoding gives the "
                    "target's own answer only up to numerics (a verify forward over K + 1 tokens rounds otherwise "
                    "than one-token forwards, and in bfloat16 that flips near-ties more often), and here it did not.",
                    len(rows), where=where)


PREDICTED_MAX_BATCH = 256  # the largest batch the prediction below looks at
# read 55: it ended "the more steps find no match, the more the prediction overstates", which holds for the gain at
# small batches; a step without drafts also feeds the verify 1 token, not K + 1, so at large batches the roofline
# overstates the loss, and the batches that pay reach further (test_serving: the roofline with such steps)
NO_MATCH_STEPS = N_("The roofline also has every step draft K = {k} tokens at that α. A step where the n-gram lookup "
                    "found no match drafts nothing: it gains nothing, and it feeds the verify one token, not K + 1; α "
                    "leaves such steps out (there is no acceptance to measure in them). So the more steps find no "
                    "match, the more the prediction overstates both the gain at small batches and the loss at large "
                    "ones: speculation can pay at larger batches than predicted.")


def predicted_pays(paying: list[int]) -> str:
    """Which batches (1..PREDICTED_MAX_BATCH) the roofline predicts n-gram speculation pays at
    (`roofline.paying_batches`), in words. Read 52: a `break_even_batch` of 0 read "does not pay even at a batch of
    1", which says no batch pays, though larger batches can (`paying_batches`); and one past batch 1 can have larger
    batches that pay again.

    >>> predicted_pays([]), predicted_pays([1, 2, 3])
    ('n-gram speculation pays at no batch size up to 256', 'n-gram speculation pays up to a batch of 3')
    >>> predicted_pays([*range(32, 257)])
    'n-gram speculation does not pay at a batch of 1 but pays at larger batches: 32 to 256 (of 1 to 256)'
    """
    most = number(PREDICTED_MAX_BATCH, 0)
    if not paying:
        return _("n-gram speculation pays at no batch size up to {most}", most=most)
    if paying == list(range(1, PREDICTED_MAX_BATCH + 1)):
        return _("n-gram speculation pays at every batch size up to {most}", most=most)
    if paying == list(range(1, paying[-1] + 1)):
        return _("n-gram speculation pays up to a batch of {batch}", batch=number(paying[-1], 0))
    if paying[0] > 1:
        return _("n-gram speculation does not pay at a batch of 1 but pays at larger batches: {ranges} (of 1 to "
                 "{most})", most=most, ranges=paying_ranges(paying))
    return _("n-gram speculation pays at these batch sizes: {ranges} (of 1 to {most})", most=most,
             ranges=paying_ranges(paying))


def predicted(result: ServingResult) -> None:
    """The batches at which the roofline predicts n-gram drafts pay (`predicted_pays`), from the α that vLLM's mean
    accepted length over drafted steps (1 + accepted / num_drafts) implies, at the pair's typical context
    (`ModelPair.context`, said in the sentence: read 52, it assumed 512 tokens unsaid beside prompts of about
    100 to 200)."""
    hw = roofline.hardware_presets().get("measured")
    lv = result.level("ngram", result.prompt_names()[0], 1) if result.prompt_names() else None
    k = int(result.server.get("k", 4))
    alpha = serving_roofline.measured_alpha(lv, k)
    if hw is None or alpha is None:
        return
    pair = roofline.PAIRS["smollm2-ngram"]
    paying = roofline.paying_batches(alpha, k, pair, hw, pair.context, max_batch=PREDICTED_MAX_BATCH)
    seen = measured(result.pay_shape("ngram", lv.prompt))
    st.markdown(escape_markdown(_(
        "Predicted (the Theory explorer's roofline for the project's benchmark CPU, α = {alpha} from the {prompt} "
        "prompt's mean accepted length over the steps that drafted, at one stream, with {context} tokens of context "
        "per sequence, the roofline's typical context for this model, not measured from the sweep's prompts): "
        "{pays}. Measured: {measured}.", alpha=number(alpha, 2), prompt=prompt_word(lv.prompt),
        context=number(pair.context, 0),
        pays=predicted_pays(paying), measured=seen)))
    # read 54: α rightly leaves out the steps that drafted nothing (no acceptance to measure there), but the roofline
    # then charges every step K drafts at that α, and nothing said so (the copy prompt's level 1: 136 drafted steps
    # for 640 tokens, so roughly 100 decode steps found no match)
    st.caption(_("The roofline is fitted to specviz's float32 single-thread verify curve; vLLM in bfloat16 on the "
                 "sweep's CPU, with as many threads as it took, is not that machine, so read the prediction as the "
                 "shape, not the number.") + " " + _(NO_MATCH_STEPS, k=number(k, 0)))
