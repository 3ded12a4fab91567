"""What the draft costs besides time, for the Theory explorer's serving section: its extra memory (weights and its
own KV caches), the compute spent per emitted token, the verified positions thrown away, and how many devices the
whole thing needs. The numbers come from `specviz.roofline.draft_costs`.
"""

from __future__ import annotations

import math

import streamlit as st

from specviz import roofline, theory
from specviz.roofline import Hardware, ModelPair

# Every sentence of this part that a user reads, in one place (for the translation layer).
TEXT = {
    "heading": "**What the draft costs besides time.**",
    "memory_help": "The draft's own weights plus its KV caches for {batch} sequences of {context:,} tokens, in "
                   "{dtype}. A proposer without a model (n-gram lookup) needs none; an EAGLE drafter reuses the "
                   "target's LM head.",
    "compute_help": "FLOPs per emitted token with speculation over plain decoding's 2 per parameter: the target "
                    "scores K + 1 = {n} positions and the draft K for {tokens:.2f} tokens on average.",
    "wasted_help": "The share of the verified positions whose work is discarded: 1 − E[tokens] / (K + 1). While the "
                   "pass is memory-bound this compute was idle anyway; once it is compute-bound it is paid for.",
    "memory": "Target, draft and caches need {total:.1f} GB; one {hw} has {capacity:.0f} GB, so this takes "
              "{devices}. Splitting a model over several devices multiplies bandwidth and FLOP/s alike, so v, c "
              "and the speedup stay as shown (communication aside).",
    "one_device": "one of them",
    "devices": "{n} of them",
}


def render(alpha: float, k: int, pair: ModelPair, hw: Hardware, batch: int, context: int) -> None:
    """Three metrics and the memory sentence for this α, K, pair, hardware, batch and context."""
    costs = roofline.draft_costs(alpha, k, pair, hw.dtype, batch, context)
    tokens = theory.expected_tokens_per_step(alpha, k)
    st.markdown(TEXT["heading"])
    m1, m2, m3 = st.columns(3)
    share = costs.extra_bytes / costs.target_bytes if costs.target_bytes else 0.0
    m1.metric("Draft's extra memory", _gb(costs.extra_bytes), delta=f"{share:.0%} of the target's", delta_color="off", delta_arrow="off",
              help=TEXT["memory_help"].format(batch=batch, context=context, dtype=hw.dtype))
    m2.metric("Compute per emitted token, vs plain", f"{costs.flops_per_token_ratio:.2f}×",
              help=TEXT["compute_help"].format(n=k + 1, tokens=tokens))
    m3.metric("Verified positions thrown away", f"{costs.wasted_share:.0%}", help=TEXT["wasted_help"])
    total = costs.target_bytes + costs.extra_bytes
    if math.isfinite(hw.memory) and hw.memory > 0:
        n = max(1, math.ceil(total / hw.memory))
        devices = TEXT["one_device"] if n == 1 else TEXT["devices"].format(n=n)
        st.caption(TEXT["memory"].format(total=total / 1e9, hw=hw.name, capacity=hw.memory / 1e9, devices=devices))


def _gb(nbytes: float) -> str:
    """Bytes for a reader: GB with three significant figures, MB below 1 GB.

    >>> _gb(15.24e9), _gb(16.8e6), _gb(0)
    ('15.2 GB', '16.8 MB', '0 MB')
    """
    if nbytes >= 1e9:
        return f"{nbytes / 1e9:.3g} GB"
    return f"{nbytes / 1e6:.3g} MB"
