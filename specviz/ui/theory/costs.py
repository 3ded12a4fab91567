"""What the draft costs besides time, for the Theory explorer's serving section: its extra memory (weights and its
own KV caches), the compute spent per emitted token, the verified positions thrown away, and how many devices the
whole thing needs. The numbers come from `specviz.labs.roofline.draft_costs`; every size is in GiB (2**30 bytes, the
unit a device's "80 GB" means), written by `gib`.
"""

from __future__ import annotations

import math

import streamlit as st

from specviz.core.i18n import N_, _, ngettext, number, percent, times
from specviz.engine import theory
from specviz.labs import roofline
from specviz.labs.roofline import GIB, Hardware, ModelPair

# Every sentence of this part that a user reads, in one place, translated with _() where shown (the memory help,
# whose noun follows the batch, in `memory_help`).
TEXT = {
    "heading": N_("**What the draft costs besides time**, computed from the pair's sizes and this α and K "
                  "(predicted, not measured)."),
    "compute_help": N_("FLOPs per emitted token with speculation over plain decoding's 2 per parameter: the target "
                       "scores K + 1 = {n} positions and the draft K for {tokens} tokens on average."),
    "compute_help_lookup": N_("FLOPs per emitted token with speculation over plain decoding's 2 per parameter: the "
                              "target scores K + 1 = {n} positions for {tokens} tokens on average; the lookup runs no "
                              "model, so it adds none."),
    # v and c are one device's (`roofline.forward_seconds`): a forward split in shares over n devices takes 1/n of
    # the time, so c = draft / target stays only where the draft is split as well
    "split": N_("Split over {n} devices in shares of every layer (tensor parallelism), a forward reads and computes "
                "1/{n} of its bytes and FLOPs on each, so it takes 1/{n} of the time: with the draft split the same "
                "way, v, c and the speedup stay as shown (communication aside); with the draft whole on one device, "
                "c is {n} times the c shown."),
    "split_lookup": N_("Split over {n} devices in shares of every layer (tensor parallelism), a forward reads and "
                       "computes 1/{n} of its bytes and FLOPs on each, so it takes 1/{n} of the time: v and the "
                       "speedup stay as shown (communication aside)."),
    "wasted_help": N_("The share of the verified positions whose work is discarded: 1 − E[tokens] / (K + 1). While "
                      "the pass is memory-bound this compute was idle anyway; once it is compute-bound it is paid "
                      "for."),
}


def memory_help(batch: int, context: str, dtype: str) -> str:
    """The draft's extra memory, explained; "1 sequence", "8 sequences" (`context` already written for the reader)."""
    return ngettext("The draft's own weights plus its KV cache for {n} sequence of {context} tokens, in {dtype}. A "
                    "proposer without a model (n-gram lookup) needs none; an EAGLE-1 drafter reuses the target's LM "
                    "head, while EAGLE-3, specviz's own, has its own head over an 8,192-token draft vocabulary.",
                    "The draft's own weights plus its KV caches for {n} sequences of {context} tokens, in {dtype}. A "
                    "proposer without a model (n-gram lookup) needs none; an EAGLE-1 drafter reuses the target's LM "
                    "head, while EAGLE-3, specviz's own, has its own head over an 8,192-token draft vocabulary.",
                    batch, context=context, dtype=dtype)


def render(alpha: float, k: int, pair: ModelPair, hw: Hardware, batch: int, context: int) -> None:
    """Three metrics and the memory sentence for this α, K, pair, hardware, batch and context."""
    costs = roofline.draft_costs(alpha, k, pair, hw.dtype, batch, context)
    tokens = theory.expected_tokens_per_step(alpha, k)
    st.markdown(_(TEXT["heading"]))
    m1, m2, m3 = st.columns(3)
    share = costs.extra_bytes / costs.target_bytes if costs.target_bytes else 0.0
    m1.metric(_("Draft's extra memory"), gib(costs.extra_bytes), delta=_("{share} of the target's",
                                                                           share=percent(share)),
              delta_color="off", delta_arrow="off",
              help=memory_help(batch, number(context, 0), hw.dtype))
    m2.metric(_("Compute per emitted token, vs plain"), times(costs.flops_per_token_ratio),
              help=_(TEXT["compute_help" if pair.draft is not None else "compute_help_lookup"], n=k + 1,
                     tokens=number(tokens)))
    m3.metric(_("Verified positions thrown away"), percent(costs.wasted_share), help=_(TEXT["wasted_help"]))
    total = costs.target_bytes + costs.extra_bytes
    if math.isfinite(hw.memory) and hw.memory > 0:
        n = max(1, math.ceil(total / hw.memory))
        sentences = [ngettext("Target, draft and caches need {total}; {hw} has {capacity}, so this takes one of them.",
                              "Target, draft and caches need {total}; {hw} has {capacity}, so this takes {n} of them.",
                              n, total=gib(total), hw=_(hw.name), capacity=gib(hw.memory, 0))]
        if n > 1:  # read 51: "v, c and the speedup stay as shown" held only for a draft split as the target is
            sentences.append(_(TEXT["split" if pair.draft is not None else "split_lookup"], n=n))
        st.caption(" ".join(sentences))

def gib(nbytes: float, digits: int = 1) -> str:
    """Bytes for a reader in GiB (2**30 bytes), the one unit of this section (read 46: the metric said GB, 10**9,
    beside a caption in GiB): `digits` decimals, more for a size below 1 GiB so that it keeps two significant figures.

    >>> gib(15.24e9), gib(80 * 2**30, 0), gib(16.8e6), gib(0)
    ('14.2 GiB', '80 GiB', '0.016 GiB', '0 GiB')
    """
    value = nbytes / GIB
    if value == 0:
        digits = 0
    elif 0 < value < 1:
        digits = max(digits, 1 - math.floor(math.log10(value)))
    return f"{number(value, digits)} GiB"
