"""The guided path's interactions on recorded runs, drawn with the app's own views: the Overview's player (lesson
2), the Playground's step panel with predict-then-reveal (lesson 4, on a separate draft model's sampled trace, so q
is a real probability and a rejection comes first), the p/q sandbox's simulation (lesson 5), the Proposers page's
examples (lesson 8) and the committed vLLM sweep's counters (lesson 11). This module only picks the inputs.

`WIDGETS` maps a lesson's `interaction` name (specviz.teach.learn) to the function that draws it; widget keys start with
`learn_`; every sentence is in `TEXT` with named placeholders.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from specviz.core.i18n import N_, _, number, times
from specviz.engine.trace import TokenKind
from specviz.labs.exactness import RULES
from specviz.labs.exactness.sandbox import SandboxSamples, sandbox_step, simulate
from specviz.labs.examples import get_example, load_example
from specviz.serving.results import ServingResult, find_serving_results
from specviz.teach.learn import Lesson
from specviz.ui.common.predict import Predictor
from specviz.ui.common.step_view import render_step
from specviz.ui.common.tokens import decision_chips
from specviz.ui.overview import view as overview_view
from specviz.ui.proposers import view as proposers_view
from specviz.ui.sandbox import view as sandbox_view

TEXT = {  # English messages, translated with `_()` where they are shown
    "loop_caption": N_("A recorded generation, replayed: the draft's guesses the target kept, the first one it "
                       "rejected (struck through), and the recovered or bonus token that ends each step."),
    "loop_example": N_("SmolLM2, the target, with a separate, smaller draft model"),
    "step_pick": N_("A step of the recording"),
    "step_label": N_("Step {n}"),
    "reveal": N_("Reveal the verdicts"),
    "hide": N_("Hide them again"),
    "hidden": N_("The draft guessed these {k} tokens. How many will the target keep?"),
    "rule_pick": N_("Rule"),
    "proposer": N_("Proposer"),
    "samples": N_("{n} simulated steps with the p/q sandbox's six tokens: each drafts one token from q and emits "
                  "one. Grey is what came out, blue is p, and the diamonds are what the rule gives in theory: under an "
                  "exact rule the diamonds sit on p, and grey differs from them only by chance."),
    "match": N_("What came out matches p: the differences are no larger than chance alone produces."),
    "off": N_("What came out does not match p: the differences are far larger than chance would produce."),
    "no_sweep": N_("No committed serving sweep: `python -m specviz serve sweep` records one (the Serving lab runs it)."),
    "col_prompt": N_("prompt"),
    "col_spec": N_("speculation"),
    "col_streams": N_("streams"),
    "col_rate": N_("acceptance rate (accepted / drafted)"),
    "col_mal": N_("mean accepted length (drafted steps)"),
    "col_speedup": N_("speedup (tokens/s vs no speculation)"),  # the Serving lab's name for it (read 47)
    "sweep_caption": N_("What vLLM's own counters gave (the acceptance rate, and the mean accepted length worked "
                        "out from them) and what a load "
                        "generator timed (throughput) while it raised the number of concurrent streams: {build}, "
                        "{model} in {dtype}, K = {k}, on {cpu} with {cores} cores, {date}. Each row is one run "
                        "of {requests} requests (one per stream where there are more streams than that) of at most "
                        "{max_tokens} tokens: one observation of this model on that machine, not what a kind of "
                        "prompt gains in general. vLLM's n-gram lookup drafts only at a step whose last few tokens "
                        "occurred earlier in the text: a step without a match adds to neither count of the acceptance "
                        "rate, and the mean accepted length read off vLLM's counters (1 + accepted / steps that "
                        "drafted) leaves it out too, so on n-gram rows it is higher than the tokens per target pass. The lookup copies an answer's "
                        "repeats of itself as readily as the prompt: a small model's greedy answer often loops, so an "
                        "open question can gain as much as a copying one. The same counters are live on the Serving "
                        "lab page while a server runs. Measured with:"),
}

# Lesson 2's loop diagram and player, in the words lessons 1 and 2 have taught: the Overview's diagram names p, q, the
# rule min(1, p/q) and the residual (lessons 3 and 4), its example's title "EAGLE-3" and "T = 0" (lessons 9 and 5),
# and its legend's and chips' hover texts p, q, u, the residual and trees (lessons 3, 4 and 9).
FIRST_LOOP_LABELS = {
    "ctx": N_("text so far"),
    "propose": N_("1. propose\nthe cheap draft\nguesses K tokens"),
    "verify": N_("2. verify\nthe target scores\nK+1 positions (the K\nguesses + the slot\nafter them)\nin ONE "
                 "forward pass"),
    "decide": N_("3. accept / reject\nleft to right, keep\nguesses until the\ntarget rejects one\n(the rule: "
                 "lesson 3)"),
    "correct": N_("4. correct\na recovered token\nreplaces the rejected\nguess; all kept: one\nextra token "
                  "(bonus)"),
    "guesses": N_(" K guesses"),
    "pq": N_(" its scores"),
    "prefix": N_(" the kept prefix"),
    "repeat": N_("append 1 to K+1\ntokens, repeat"),
}
FIRST_MEANINGS = {
    TokenKind.ACCEPTED: N_("a draft the target kept"),
    TokenKind.REJECTED: N_("the first draft the target rejected: it and every draft after it are dropped"),
    TokenKind.RECOVERED: N_("the target's own token, written in place of the rejected draft"),
    TokenKind.BONUS: N_("every draft was kept, so the slot after the last one gives one more token for free"),
    TokenKind.TARGET: N_("one target forward pass, one token (no draft)"),
}

# lesson 8: the three proposers it teaches (the toy pair's draft model: the SmolLM2 one's notes name EAGLE, lesson 9)
EXAMPLES = ("smollm-ngram-greedy", "toy-draft", "smollm-layerskip-t07")
STEPS = 6  # lesson 4 offers this many steps of its recording, from the first one with a rejection
RULE_CHOICES = ("exact", "resample_from_target", "accept_all")
PREDICTOR = Predictor("learn", reveal=TEXT["reveal"])  # its guess box names the Reveal button, not Next step


def loop(lesson: Lesson) -> None:
    """Lesson 2: the loop diagram and the Overview's player, in the words lessons 1 and 2 have taught."""
    overview_view.loop_diagram(FIRST_LOOP_LABELS)
    st.caption(_(TEXT["loop_caption"]))
    overview_view.example_player("learn_loop", lesson.example, TEXT["loop_example"], FIRST_MEANINGS)


def _toggle_reveal(trace_id: str, index: int) -> None:
    revealed = st.session_state.setdefault("learn_revealed", set())
    if index in revealed:
        revealed.discard(index)
    else:
        PREDICTOR.commit(trace_id, index)
        revealed.add(index)


def offered_steps(trace) -> list[int]:
    """Lesson 4's steps: STEPS of them from the first step with a rejection, so the lesson opens on one (and on the
    first step when nothing was ever rejected)."""
    first = next((s.index for s in trace.steps if any(d.reached and not d.accepted for d in s.decisions)), 0)
    return [i for i in range(first, first + STEPS) if i < trace.num_steps] or [0]


def first_disagreement(lesson: Lesson) -> None:
    trace, _meta = load_example(lesson.example)
    steps = offered_steps(trace)
    index = st.segmented_control(_(TEXT["step_pick"]), steps, default=steps[0], required=True, key="learn_step",
                                 format_func=lambda i: _(TEXT["step_label"], n=i + 1))
    index = steps[0] if index is None else index
    step, revealed = trace.steps[index], index in st.session_state.get("learn_revealed", set())
    if not revealed:
        st.markdown(_(TEXT["hidden"], k=len(step.decisions)))  # the chips below
        st.html(f"<div>{decision_chips(step, revealed=False)}</div>")
        PREDICTOR.ask(trace, lesson.example, index)
    st.button(_(TEXT["hide" if revealed else "reveal"]), key="learn_reveal", on_click=_toggle_reveal,
              args=(lesson.example, index), type="secondary" if revealed else "primary")
    if revealed:
        PREDICTOR.outcome(trace, lesson.example, index)
        render_step(step, key="learn_step_view", greedy=trace.greedy)
        PREDICTOR.score(trace, lesson.example)


@st.cache_data(max_entries=8, show_spinner=False)
def _samples(rule_name: str, n: int) -> SandboxSamples:
    return simulate(sandbox_step(sandbox_view.DEFAULT_P, sandbox_view.DEFAULT_Q, 1.0), rule_name, n, seed=1)


def exactness(lesson: Lesson) -> None:
    name = st.segmented_control(_(TEXT["rule_pick"]), list(RULE_CHOICES), default="exact", required=True,
                                key="learn_rule", format_func=lambda r: _(RULES[r].label)) or "exact"
    n = 2000
    step = sandbox_step(sandbox_view.DEFAULT_P, sandbox_view.DEFAULT_Q, 1.0)
    samples = _samples(name, n)
    st.caption(_(TEXT["samples"], n=number(n, 0)))
    sandbox_view.show_chart(sandbox_view.samples_figure(step, samples, name, n), "learn_samples")
    # in words, not the test's p-value: this lesson's p is the target's probabilities
    (st.success if samples.verdict.consistent else st.error)(_(TEXT["match" if samples.verdict.consistent else "off"]))


def _example_title(name: str) -> str:
    """An example's title in the reader's language (a shipped example's; any other as it is)."""
    return get_example(name).shown_title


def proposers(lesson: Lesson) -> None:
    name = st.segmented_control(_(TEXT["proposer"]), list(EXAMPLES), default=EXAMPLES[0], required=True,
                                key="learn_example", format_func=_example_title) or EXAMPLES[0]
    proposers_view.render_example(name, "learn_example_view")


def production(lesson: Lesson) -> None:
    """What a real server's counters said as the load grew: the committed vLLM sweep, one row per configuration."""
    files = find_serving_results()
    if not files:
        st.info(_(TEXT["no_sweep"]))
        return
    try:  # `serve sweep --out` writes into that folder by default: a damaged file is one sentence (30th read)
        result = ServingResult.load(files[0])
    except ValueError as exc:
        st.error(str(exc))
        return
    rows = []
    for prompt in result.prompt_names():
        for spec in [s for s in result.specs() if s != "none"]:
            for streams in result.concurrencies(prompt):
                level, speedup = result.level(spec, prompt, streams), result.speedup(spec, prompt, streams)
                if level is None:
                    continue
                rows.append({_(TEXT["col_prompt"]): prompt, _(TEXT["col_spec"]): spec, _(TEXT["col_streams"]): streams,
                             _(TEXT["col_rate"]): _fmt(level.acceptance_rate),
                             _(TEXT["col_mal"]): _fmt(level.mean_accepted_length),
                             _(TEXT["col_speedup"]): "–" if speedup is None else times(speedup)})
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="learn_production_table")
    server = result.server
    st.caption(_(TEXT["sweep_caption"], build=server.get("build", "?"), model=server.get("model", "?"),
                 dtype=server.get("dtype", "?"), k=server.get("k", "?"), requests=server.get("requests", "?"),
                 max_tokens=server.get("max_tokens", "?"), cpu=result.machine.get("cpu", "?"),
                 cores=result.machine.get("cores", "?"), date=str(result.machine.get("date", "?"))[:10]))
    if note := result.eagle_note():  # the eagle rows served a drafter since replaced (ServingResult.eagle_note)
        st.caption(note)
    st.code(result.command, language="bash")


def _fmt(value: float | None) -> str:
    return "–" if value is None else number(value)


WIDGETS: dict[str, Callable[[Lesson], None]] = {
    "loop": loop, "first_disagreement": first_disagreement, "exactness": exactness, "proposers": proposers,
    "production": production,
}
