"""Overview: what speculative decoding is, the loop as a diagram, the rule, and an example that plays."""

import streamlit as st

from specviz.core.i18n import N_, _, number
from specviz.labs.bench import quoted
from specviz.labs.roofline import SMOLLM2
from specviz.ui.common.frame import route_through_app
from specviz.ui.common.this_machine import expected, one_line
from specviz.ui.learn.view import start_link
from specviz.ui.overview.view import example_player, loop_diagram, page_links

route_through_app()

BF16_RUN, FP32_RUN = "default-cpu-bf16-tree", "default-cpu-f32-packed"  # the committed verify curves it quotes
# Read 47: the intro said "That holds best on a GPU", but this project's two H200 runs measured a dearer verify pass
# for SmolLM2 (1.09-1.16x over 2 to 5 tokens) than two of the three CPU runs it quotes; both runs' range is quoted
H200_RUNS = ("default-h200-bf16", "default-h200-bf16-run2")
AVX2_RUN = "default-cpu-f32-avx2cap"  # the FP32_RUN's chip with its kernels held to AVX2: a curve that climbs

# Every sentence of this page, in one place (English messages: `_()` translates them where they are shown). Each
# term is explained where it first appears: forward pass, memory-bound, p and q, norm(max(0, p − q)).
TEXT = {
    "intro": N_(
        "A language model writes one token (a word or a piece of one) at a time, and every token costs one "
        "**forward pass**: one run of the whole network, which reads **all of its weights** from memory. On most "
        "hardware that pass is *memory-bound*: the time goes into moving the weights from memory to the chip, not "
        "into the arithmetic done with them. SmolLM2-135M reads about {bf16_mb} MB of weights in bfloat16 ({fp32_mb} "
        "MB in float32) for every single token.\n\n"
        "The trick: reading the weights once and scoring **K+1 positions** costs about as much as scoring one. So let "
        "a small, cheap **draft** guess the next K tokens, and let the big **target** score K+1 positions in one "
        "pass: each of the K guesses, plus the slot after the last one, where a bonus token comes from when every "
        "guess is kept. Every guess it keeps is a token that did not need its own pass. (On a GPU that holds for a "
        "large model; for SmolLM2-135M, scoring 2 to 5 tokens cost {h200}× one on the {h200_gpu} of two committed "
        "runs, in bfloat16. On a CPU it depends on the chip and the kernels: on the {bf16_cpu} of a committed "
        "benchmark, in bfloat16, scoring 2 to 5 tokens cost {bf16}× one; on the {fp32_cpu} of another, in float32, "
        "{fp32}×; on "
        "that same chip with its kernels held to AVX2, as on most laptops, {avx2}×. "
        "The line below says what this machine should reach; the Speedup lab shows the runs, and the Timeline & race "
        "page measures your own.)"
    ),
    "rule": N_(
        "With **p = target** and **q = draft** probabilities: keep each drafted token x with probability "
        "**min(1, p(x) / q(x))**; at the first rejection, throw away the rest of the drafts and sample a "
        "replacement from **norm(max(0, p − q))**: the target's probabilities minus the draft's, with negative "
        "values set to 0 and the rest rescaled to add up to 1, so the replacement is a token the target wanted more "
        "than the draft did. If all K are kept, sample one **bonus** token from p. The output then follows "
        "*exactly* the target's distribution p, however bad the draft is: a bad draft only makes it slower. That "
        "holds in exact arithmetic; a computer rounds, so where the target's two best tokens nearly tie, a run can "
        "pick the other one (the Exactness lab shows how often)."
    ),
}

st.title(_("Speculative decoding, step by step"))
start_link()
h200 = [quoted.verify_range(folder) for folder in H200_RUNS]
st.markdown(_(TEXT["intro"], h200=number(min(q.low for q in h200), 2) + "–" + number(max(q.high for q in h200), 2),
              h200_gpu=quoted.machine(H200_RUNS[0]), bf16_mb=number(round(2 * SMOLLM2.params / 1e6, -1), 0),
              fp32_mb=number(round(4 * SMOLLM2.params / 1e6, -1), 0),
              bf16=quoted.verify_range(BF16_RUN).text(2), fp32=quoted.verify_range(FP32_RUN).text(2),
              avx2=quoted.verify_range(AVX2_RUN).text(2),
              bf16_cpu=quoted.machine(BF16_RUN), fp32_cpu=quoted.machine(FP32_RUN)))

st.info(one_line(expected()))

st.subheader(_("The loop"))
loop_diagram()

st.subheader(_("The rule, in one sentence"))
st.markdown(_(TEXT["rule"]))

st.subheader(_("Watch it run"))
# read 52: it promised p, q and u on every chip, where a recovered, bonus or target chip shows p alone
st.caption(_("A recorded generation, replayed token by token. Each chip is one token; hover a chip for its "
             "numbers: a drafted token's p, q and the uniform draw u, or p alone for a token the target sampled "
             "(recovered, bonus or target)."))
example_player("overview")

st.subheader(_("Where next"))
page_links()
