"""Target-only autoregressive decoding: the baseline every speedup is measured against.

Same sampler, same KV-cache runner, same stop rules and the same trace format as the speculative loop; each
step is one target forward that emits one token of kind "target".
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from transformers import PreTrainedModel

from specviz.generation import (Clock, GenerationSettings, TokenTexts, append_until_stop, check_context,
                                default_clock, eos_ids, prompt_ids, synchronize, top_tokens)
from specviz.kvcache import CachedModel
from specviz.sampling import sample
from specviz.trace import EmittedToken, Step, Trace


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
) -> Trace:
    """Generate one token per target forward; return a trace in the same format as `speculative_generate`."""
    settings = GenerationSettings(max_new_tokens, temperature, top_k, top_p, seed, None)
    prompt = prompt_ids(input_ids, target)
    check_context(target, len(prompt), settings)
    runner, texts, generator = CachedModel(target), TokenTexts(tokenizer), settings.generator()
    eos = eos_ids(target, tokenizer, eos_token_id)
    sampling = settings.sampling
    start = clock()
    runner.prefill(prompt)
    synchronize(runner.device)
    prefill_seconds = clock() - start
    sequence, output, steps, stop = list(prompt), [], [], ""
    while not stop:
        t0, cache_before = clock(), len(runner)
        probs = sampling.probs(runner.feed(sequence)[-1]).cpu()  # (V,)
        synchronize(runner.device)
        t1 = clock()
        token = sample(probs, generator)
        emitted = EmittedToken(token, texts(token) if record else "", "target", float(probs[token]))
        kept, stop = append_until_stop(output, [emitted], eos, settings.max_new_tokens)
        sequence.extend(t.token_id for t in kept)
        step = Step(index=len(steps), context_length=len(sequence) - 1, k=0, proposer="none", decisions=[],
                    emitted=kept, correction_kind="target",
                    correction_top=top_tokens(probs, texts) if record else [],
                    target_cache_before=cache_before, target_cache_after=len(runner),
                    draft_seconds=0.0, verify_seconds=t1 - t0)
        step.overhead_seconds = clock() - t1
        steps.append(step)
    trace = Trace(mode="autoregressive", settings={**settings.to_dict(), "proposer": "none"}, prompt_ids=prompt,
                  output_ids=output, steps=steps, prompt_text=texts.text(prompt), output_text=texts.text(output),
                  stop_reason=stop, prefill_seconds=prefill_seconds)
    trace.wall_seconds = clock() - start
    return trace
