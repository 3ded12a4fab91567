"""Target-only autoregressive decoding: the baseline every speedup is measured against.

It is the speculative loop with nothing drafted (`TargetOnly` proposes no tokens): the same sampler, KV-cache
runner, stop rules, timing and trace format, and the same random draws (one per token). Each step is one target
forward that emits one token of kind "target".
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from transformers import PreTrainedModel

from specviz.engine.decoding import decode
from specviz.engine.generation import Clock, GenerationSettings, default_clock
from specviz.engine.kinds import Mode
from specviz.engine.proposers import Proposal, Proposer
from specviz.engine.sampling import SamplingConfig
from specviz.engine.trace import Trace


class TargetOnly(Proposer):
    """The proposer of plain decoding: it never drafts, so every step verifies nothing and samples one token."""

    name = "none"

    def propose(self, sequence: list[int], k: int, sampling: SamplingConfig, generator: torch.Generator) -> Proposal:
        return Proposal([], None)


def autoregressive_generate(
    target: PreTrainedModel,
    input_ids: Sequence[int] | torch.Tensor,
    *,
    max_new_tokens: int = 64,
    temperature: float = 0.0,
    top_k: int = 0,
    top_p: float = 1.0,
    seed: int = 0,
    tokenizer=None,
    eos_token_id: int | Sequence[int] | None = None,
    record: bool = True,
    clock: Clock = default_clock,
    on_step=None,
    deadline: float | None = None,
) -> Trace:
    """Generate one token per target forward; return a trace in the same format as `speculative_generate`."""
    settings = GenerationSettings(max_new_tokens, temperature, top_k, top_p, seed, None)
    return decode(target, TargetOnly(), input_ids, settings, mode=Mode.AUTOREGRESSIVE, tokenizer=tokenizer,
                  eos_token_id=eos_token_id, record=record, clock=clock, on_step=on_step, deadline=deadline)
