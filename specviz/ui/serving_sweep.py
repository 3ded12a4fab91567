"""The Serving page's load sweeps: a bounded live sweep against the connected server, and the committed sweep with
and without speculation (assets/benchmarks/serving/), vLLM next to specviz's own engine and the roofline's
predicted break-even next to the measured one."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from specviz import roofline, theory
from specviz.serving import client
from specviz.serving.cli import PROMPTS
from specviz.serving.load import LEVELS, MAX_REQUESTS, LevelResult, LoadPlan, Prompt, run_load
from specviz.serving.results import ServingResult, find_serving_results
from specviz.ui import charts as plot
from specviz.ui import serving_charts as charts
from specviz.ui.escaping import escape_markdown

LIVE_SWEEP = "serving_live_sweep"


def live_sweep(base: str, speculating: bool) -> None:
    """The load generator's form; runs only against a server the operator allows (loopback by default)."""
    if not client.load_allowed(base):
        st.info(f"The load generator only sends requests to this machine (localhost). To aim it at "
                f"{client.host_of(base)}, whoever runs this app sets ${client.LOAD_HOSTS_ENV}.")
        return
    with st.form("serving_load_form"):
        a, b, c, d = st.columns(4)
        prompt = a.selectbox("Prompt", list(PROMPTS), key="serving_load_prompt",
                             help="copy: the answer repeats the prompt; open: a question with a fresh answer.")
        levels = b.multiselect("Concurrent streams", LEVELS, default=[1, 4], key="serving_load_levels")
        requests = c.number_input("Requests per level", 1, MAX_REQUESTS, 4, key="serving_load_requests")
        tokens = d.number_input("Tokens per request", 8, 256, 64, key="serving_load_tokens")
        go = st.form_submit_button("Run the sweep")
    with st.expander("The prompt"):
        st.markdown(escape_markdown(PROMPTS[prompt]))
    if go:
        plan = LoadPlan(prompts=(Prompt(prompt, PROMPTS[prompt]),), levels=tuple(sorted(levels)),
                        requests=int(requests), max_tokens=int(tokens), max_seconds=180.0)
        label = "speculating" if speculating else "none"
        try:
            with st.status("Sending requests...") as box:
                results = run_load(base, plan, speculative=label, progress=box.write)
                box.update(label="Done", state="complete")
        except ValueError as exc:
            st.error(escape_markdown(str(exc)))
            return
        st.session_state[LIVE_SWEEP] = [lv.to_dict() for lv in results]
    done = [LevelResult.from_dict(d) for d in st.session_state.get(LIVE_SWEEP, [])]
    if done:
        plot.show(charts.sweep_figure(done, done[0].prompt), key="serving_live_sweep_chart")
        st.dataframe(level_table(done), hide_index=True, width="stretch")
        errors = sorted({r.error for lv in done for r in lv.records if r.error})
        if errors:
            st.warning(escape_markdown(f"Some requests failed: {errors[0]}"))
        st.download_button("Download as JSON", json.dumps([lv.to_dict() for lv in done], indent=1),
                           file_name="serving-sweep.json", key="serving_live_download")


def level_table(levels: list[LevelResult]) -> pd.DataFrame:
    def fmt(v, digits=2):
        return None if v is None else round(v, digits)
    return pd.DataFrame([{"speculation": lv.speculative, "prompt": lv.prompt, "streams": lv.concurrency,
                          "requests": len(lv.ok), "tokens/s": fmt(lv.throughput, 1),
                          "median latency (s)": fmt(lv.latency_s), "acceptance rate": fmt(lv.acceptance_rate),
                          "mean accepted length": fmt(lv.mean_accepted_length)} for lv in levels])


def committed_sweep() -> None:
    """The committed sweep: speedup against streams, throughput and latency per prompt, the table, the command."""
    files = find_serving_results()
    if not files:
        st.info("No committed serving sweep yet: run `python -m specviz serve sweep`.")
        return
    path = st.selectbox("Result", files, format_func=lambda p: p.stem, key="serving_result")
    try:
        result = ServingResult.load(path)
    except ValueError as exc:
        st.error(escape_markdown(str(exc)))
        return
    server, machine = result.server, result.machine
    st.caption(escape_markdown(f"{server.get('build', '?')} ({server.get('version', '?')}), "
                               f"{server.get('model', '?')} in {server.get('dtype', '?')}, K = {server.get('k', '?')}, "
                               f"{server.get('requests', '?')} requests a level, at most "
                               f"{server.get('max_tokens', '?')} tokens each; {machine.get('cpu', '?')}, "
                               f"{machine.get('cores', '?')} cores, {machine.get('date', '?')}."))
    plot.show(charts.speedup_figure(result), key="serving_speedup_chart")
    for prompt in result.prompt_names():
        marks = {s: result.break_even(s, prompt) for s in result.specs() if s != "none"}
        plot.show(charts.sweep_figure(result.levels, prompt, marks), key=f"serving_sweep_{prompt}_chart")
        for spec, c in marks.items():
            st.markdown(escape_markdown(verdict(spec, prompt, c, result.concurrencies(prompt))))
    st.dataframe(level_table(result.levels), hide_index=True, width="stretch")
    st.markdown("Reproduce it with:")
    st.code(result.command, language="bash")
    if result.specviz:
        compare_specviz(result)
    predicted(result)


def verdict(spec: str, prompt: str, break_even: int | None, levels: list[int]) -> str:
    """One sentence: where `spec` stopped beating the target alone on `prompt`.

    >>> verdict("ngram", "open", 16, [1, 4, 16])
    'ngram, open prompt: speculation stops paying at 16 concurrent streams.'
    >>> verdict("eagle", "copy", 1, [1, 4, 16])
    'eagle, copy prompt: speculation did not pay even at one stream.'
    """
    if break_even is None:
        return f"{spec}, {prompt} prompt: speculation paid at every level measured, up to {max(levels)} streams."
    if break_even == min(levels) == 1:
        return f"{spec}, {prompt} prompt: speculation did not pay even at one stream."
    return f"{spec}, {prompt} prompt: speculation stops paying at {break_even} concurrent streams."


def compare_specviz(result: ServingResult) -> None:
    """vLLM at one stream next to specviz's engine at batch 1, same prompts and K (n-gram, greedy)."""
    st.markdown("**vLLM and specviz's own engine, one stream, same prompts** (n-gram drafts, greedy)")
    rows = []
    for row in result.specviz:
        lv = result.level("ngram", row["prompt"], 1)
        rows.append({"prompt": row["prompt"], "vLLM acceptance rate": _r(lv and lv.acceptance_rate),
                     "specviz acceptance rate": _r(row.get("acceptance_rate")),
                     "vLLM mean accepted length (drafted steps)": _r(lv and lv.mean_accepted_length),
                     "specviz tokens per target forward": _r(row.get("mean_accepted_length")),
                     "vLLM speedup": _r(result.speedup("ngram", row["prompt"], 1)),
                     "specviz speedup": _r(row.get("speedup"))})
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption("Speedups against each engine's own target-only run, in the same sweep. vLLM runs bfloat16 with "
               "compiled kernels, specviz float32 eager PyTorch: the answers may differ after a few tokens (greedy "
               "decoding is lossless only up to numerics), so the drafts differ too. vLLM's n-gram lookup matches 4 "
               "down to 2 tokens, specviz's 3 down to 1 (more drafts after weaker matches, fewer kept).")


def _r(v, digits: int = 2):
    return None if v is None else round(float(v), digits)


def predicted(result: ServingResult) -> None:
    """The roofline's break-even batch for n-gram drafts, from the α the measured mean accepted length implies."""
    hw = roofline.hardware_presets().get("measured")
    lv = result.level("ngram", result.prompt_names()[0], 1) if result.prompt_names() else None
    k = int(result.server.get("k", 4))
    if hw is None or lv is None or lv.mean_accepted_length is None:
        return
    alpha = theory.alpha_from_tokens_per_step(min(lv.mean_accepted_length, k + 0.999), k)
    pair = roofline.PAIRS["smollm2-ngram"]
    b = roofline.break_even_batch(alpha, k, pair, hw, pair.context, max_batch=256)
    measured = result.break_even("ngram", lv.prompt)
    st.markdown(escape_markdown(
        f"Predicted (the Theory explorer's roofline for this machine, α = {alpha:.2f} from the {lv.prompt} prompt's "
        f"mean accepted length at one stream): n-gram speculation pays up to a batch of "
        f"{'every size' if b is None else b}. Measured: "
        f"{'it paid at every level' if measured is None else f'it stopped paying at {measured} streams'}."))
    st.caption("The roofline is fitted to specviz's float32 single-thread verify curve; vLLM on a CPU core in "
               "bfloat16 is not that machine, so read the prediction as the shape, not the number.")
