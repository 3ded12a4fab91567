"""Target-only autoregressive decoding: the baseline of every speedup "vs target-only" (the bench and the shape
choice also measure against transformers' `model.generate`).

It is the speculative loop with nothing drafted (`TargetOnly` proposes no tokens): the same sampler, KV-cache
runner, stop rules, timing and trace format, and one random draw per token from the run's seeded generator. The
speculative loop draws more from its generator (the drafts' own draws and a u per tested draft besides each token's
draw), so at T > 0 the two runs of one seed do not share their draws and need not write the same text. Each step is
one target forward that emits one token of kind "target".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from transformers import PreTrainedModel

from specviz.engine.decoding import decode, settings_from
from specviz.engine.kinds import Mode
from specviz.engine.proposers import Proposal, Proposer
from specviz.engine.sampling import SamplingConfig
from specviz.engine.trace import Trace


class TargetOnly(Proposer):
    """The proposer of plain decoding: it never drafts, so every step verifies nothing and samples one token."""

    name = "none"

    def propose(self, sequence: list[int], k: int, sampling: SamplingConfig, generator: torch.Generator) -> Proposal:
        return Proposal([], None)


def autoregressive_generate(target: PreTrainedModel, input_ids: Sequence[int] | torch.Tensor, **keywords: Any) -> Trace:
    """Generate one token per target forward; return a trace in the same format as `speculative_generate`.

    `keywords` are those of `speculative_generate` that are not about drafting: the settings (max_new_tokens=64,
    temperature=0.0, top_k=0, top_p=1.0, seed=0) and the options (tokenizer=None, eos_token_id=None, record=True,
    clock=default_clock, on_step=None, deadline=None)."""
    settings, options = settings_from("autoregressive_generate", keywords, None)
    return decode(target, TargetOnly(), input_ids, settings, options, mode=Mode.AUTOREGRESSIVE)
