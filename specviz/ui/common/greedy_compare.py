"""Two greedy outputs side by side, explained: identical, or where they part and why ("lossless up to numerics").

The race, the Playground and the Exactness lab all compare a greedy speculative output with target-only decoding of
the same prompt. At temperature 0 the exact rule keeps the target's argmax, so in float32 the texts almost always
match token for token (the target forward over several tokens rounds differently there too, only far more finely); in
bfloat16 a target forward over up to K + 1 tokens (a tree's: its nodes, lookup branch and one more) rounds differently
from a one-token forward often enough that a near-tie in the target's two best logits can flip, and from there the
two texts part ways: every later token is written after a different text.
`explain` says which, with the first split and the target's top-2 logit gap there (`specviz.engine.numerics`), measured
with the pair on this server when it is loaded in the trace's dtype. Every sentence is in `TEXT`.
"""

from __future__ import annotations

import streamlit as st

from specviz.core.i18n import N_, _, ngettext, number
from specviz.engine.kinds import Mode, StopReason
from specviz.engine.numerics import NUMERICS_GAP, GreedySplit, first_difference, greedy_split
from specviz.engine.trace import Trace
from specviz.labs.bench import quoted
from specviz.runs.running import PAIRS, dtype_of
from specviz.ui.common.escaping import escape_markdown, shortened
from specviz.ui.common.runs import with_turn

TEXT = {  # English messages, translated with `_()` where they are shown
    "same": N_("Identical to the target-only output, token for token ({dtype}): at temperature 0 the exact rule "
               "keeps the target's argmax at every step, so only rounding could have parted them."),
    "parts_tie": N_("Parts from the target-only output at new token {index} (“{spec}” instead of “{base}”). There "
                    "the target's two best logits were only {gap} apart ({dtype}): a near-tie. The target forward over "
                    "several tokens (up to K + 1 for a chain; a tree's nodes, lookup branch and one more) adds its "
                    "numbers in another order than a one-token forward, so it rounded the tie the "
                    "other way, and from there the two texts part ways: every later token is written after a "
                    "different text. The rule is "
                    "exact; {dtype} is lossless only up to numerics (in the committed checks, run on the default "
                    "pair, SmolLM2-135M with its EAGLE drafter, greedy output matched on {fp32} held-out prompts in "
                    "float32, drafting {fp32_shape}, on {fp32_cpu}, and on {bf16} in "
                    "bfloat16, drafting {bf16_shape}, on {bf16_cpu})."),
    "parts_real": N_("Parts from the target-only output at new token {index} (“{spec}” instead of “{base}”), where "
                     "the target's two best logits were {gap} apart ({dtype}): too far apart for rounding to flip. "
                     "That is not numerics; please report it with this trace."),
    "parts_unmeasured": N_("Parts from the target-only output at new token {index} (“{spec}” instead of “{base}”). "
                           "At temperature 0 the exact rule keeps the target's argmax, so the likely cause is numerics: "
                           "in {dtype} a target forward over several tokens (up to K + 1 for a chain; a tree's "
                           "nodes, lookup branch and one more) rounds differently from a one-token forward, a "
                           "near-tie between the target's two best tokens can flip, and from there the two texts "
                           "part ways: every later token is written after a different text. The target's top-2 "
                           "logit gap at the split would tell; it is measured when the models are loaded on this "
                           "server in {dtype}."),
    "unknown_dtype": N_("a dtype this trace does not record"),
    "compare_title": N_("Same text as target-only decoding?"),
    "compare_intro": N_("At temperature 0 speculative decoding writes the target's own greedy text, up to "
                        "numerics (a near-tie that rounds the other way). Run target-only decoding with the same "
                        "settings to check, token for token."),
    "compare_button": N_("Run target-only decoding and compare"),
    # Read 48: an example's comparison is with the target-only run recorded with it, and there is no button to run
    "compare_recorded": N_("At temperature 0 speculative decoding writes the target's own greedy text, up to "
                           "numerics (a near-tie that rounds the other way). This example was recorded together "
                           "with a target-only run of the same prompt and settings (its .baseline.json file in "
                           "assets/traces), compared here token for token."),
}


def token_texts(trace: Trace) -> list[str]:
    """The text of each new token, in order (what `output_ids` holds, as the tokenizer wrote each one)."""
    return [e.text for step in trace.steps for e in step.emitted]


def cut_text(cut_run: str, rest: int, **values: object) -> str:
    """The verdict when one run stopped at its time limit (`cut_run`: "spec" or "base") and is a prefix of the other:
    identical over the tokens it wrote (`tokens`), and `rest` tokens of the other left uncompared. Read 51: such a
    run was compared past its end, as if it had written "–" there, and the missing tokens were blamed on numerics
    (or, with the gap measured, called "not numerics; please report it")."""
    if cut_run == "spec":
        return ngettext("Identical to the target-only output, token for token, as far as this run got: {tokens} "
                        "({dtype}). This run stopped at its time limit there, so {n} token of the target-only output "
                        "is left uncompared.",
                        "Identical to the target-only output, token for token, as far as this run got: {tokens} "
                        "({dtype}). This run stopped at its time limit there, so {n} tokens of the target-only "
                        "output are left uncompared.", rest, **values)
    return ngettext("Identical to the target-only output, token for token, as far as the target-only run got: "
                    "{tokens} ({dtype}). The target-only run stopped at its time limit there, so {n} token of this "
                    "run is left uncompared.",
                    "Identical to the target-only output, token for token, as far as the target-only run got: "
                    "{tokens} ({dtype}). The target-only run stopped at its time limit there, so {n} tokens of this "
                    "run are left uncompared.", rest, **values)


@st.cache_data(show_spinner=False, max_entries=32)
def _split(pair_name: str, prompt: tuple[int, ...], reference: tuple[int, ...],
           other: tuple[int, ...]) -> GreedySplit | None:
    return with_turn(pair_name, lambda pair: greedy_split(pair.target, prompt, reference, other))


def measured_split(trace: Trace, base: Trace) -> GreedySplit | None:
    """The split with the target's top-2 logits, when the trace's pair is loaded here in the trace's dtype."""
    name, dtype = trace.meta.get("pair"), trace.meta.get("dtype")
    pair = PAIRS.loaded(name) if isinstance(name, str) else None
    if pair is None or dtype is None or dtype_of(pair) != dtype:
        return None
    try:
        return _split(name, tuple(trace.prompt_ids), tuple(base.output_ids), tuple(trace.output_ids))
    except ValueError:  # the model is busy: say what can be said without the gap
        return None


def explain(trace: Trace, base: Trace) -> str:
    """The verdict (Markdown-safe) for a greedy speculative `trace` against target-only `base`: one sentence when
    they are identical, a short paragraph (where they part, the logit gap there, why) when they are not. When one run
    stopped at its time limit (a live run's deadline) before the other, it is compared over the tokens it wrote and
    says so: past its end there is no token to split on."""
    dtype = trace.meta.get("dtype") or _(TEXT["unknown_dtype"])
    at = first_difference(base.output_ids, trace.output_ids)
    if at is None:
        return _(TEXT["same"], dtype=dtype)
    shorter = trace if trace.num_tokens < base.num_tokens else base
    if at == shorter.num_tokens and shorter.stop_reason == StopReason.DEADLINE:  # one run is a prefix of the other
        return cut_text("spec" if shorter is trace else "base", abs(trace.num_tokens - base.num_tokens),
                        dtype=dtype, tokens=ngettext("{n} new token", "{n} new tokens", at))
    spec_texts, base_texts = token_texts(trace), token_texts(base)
    words = dict(index=at + 1, dtype=dtype,
                 spec=escape_markdown(shortened(spec_texts[at])) if at < len(spec_texts) else "–",
                 base=escape_markdown(shortened(base_texts[at])) if at < len(base_texts) else "–")
    split = measured_split(trace, base)
    if split is None:
        return _(TEXT["parts_unmeasured"], **words)
    gap = number(split.gap, 3)
    return _(TEXT["parts_tie"] if split.gap < NUMERICS_GAP else TEXT["parts_real"], gap=gap, **words,
             **quoted.greedy_identity_counts(), **quoted.greedy_identity_machines(),
             **quoted.greedy_identity_shapes())


def render_compare(trace: Trace, baseline: Trace | None = None, spec=None, key: str = "greedy_compare") -> None:
    """For a greedy speculative trace: an expander with `explain` against target-only decoding. A recorded
    `baseline` is used at once, and the caption says it was recorded (Read 48: it asked the reader to run target-only
    decoding, with no button to do it); with a live run's `spec`, a button runs target-only decoding first (cached)."""
    if trace.mode != Mode.SPECULATIVE or trace.settings.get("temperature") != 0 or (baseline is None and spec is None):
        return
    from specviz.ui.common.runs import run_autoregressive

    with st.expander(_(TEXT["compare_title"])):
        st.caption(_(TEXT["compare_intro"] if baseline is None else TEXT["compare_recorded"]))
        if baseline is None:
            asked = st.session_state.setdefault(key, set())
            if spec not in asked and st.button(_(TEXT["compare_button"]), key=f"{key}_run"):
                asked.add(spec)
            if spec not in asked:
                return
            try:
                baseline = run_autoregressive(spec)
            except ValueError as exc:
                st.error(escape_markdown(str(exc)))
                return
        st.markdown(explain(trace, baseline))
