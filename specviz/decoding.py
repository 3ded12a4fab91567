"""The speculative loop: propose, score, verify, emit, rewind; every step recorded.

    trace = speculative_generate(target, draft, input_ids, k=4, temperature=0.7, seed=1)

`draft` is a causal LM (wrapped in a `DraftModelProposer`) or any `Proposer`. Randomness comes only from a
`torch.Generator` seeded with `seed`, so the same call gives the same trace. `verifier` defaults to the exact
rule; the Exactness lab passes deliberately broken rules through the same loop.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
from transformers import PreTrainedModel

from specviz.generation import (Clock, GenerationSettings, TokenTexts, append_until_stop, check_context,
                                default_clock, eos_ids, prompt_ids, synchronize, top_tokens)
from specviz.kvcache import CachedModel
from specviz.proposers import DraftModelProposer, Proposal, Proposer
from specviz.trace import Decision, EmittedToken, Step, Trace
from specviz.verifier import VerifyResult, accept_probability, verify

Verifier = Callable[..., VerifyResult]


def speculative_generate(
    target: PreTrainedModel,
    draft: PreTrainedModel | Proposer,
    input_ids: Sequence[int] | torch.Tensor,
    *,
    k: int = 4,
    max_new_tokens: int = 64,
    temperature: float = 0.0,
    top_k: int = 0,
    top_p: float = 1.0,
    seed: int = 0,
    tokenizer=None,
    eos_token_id: int | Sequence[int] | None = None,
    verifier: Verifier = verify,
    record: bool = True,
    clock: Clock = default_clock,
    draft_length=None,
) -> Trace:
    """Generate up to `max_new_tokens` tokens after `input_ids` by speculative decoding; return the trace.

    `draft_length` (a `specviz.policies.DraftLength`) picks each step's K in place of the constant `k`.

    With `record=False` the per-token details (top-10 lists, token text) are left out of the steps, so the
    cost of recording can itself be measured; the decisions, kinds and timings stay.
    """
    settings = GenerationSettings(max_new_tokens, temperature, top_k, top_p, seed, k)
    prompt = prompt_ids(input_ids, target)
    check_context(target, len(prompt), settings)
    proposer = draft if isinstance(draft, Proposer) else DraftModelProposer(draft, target.config.vocab_size)
    decoder = SpeculativeDecoder(target, proposer, settings, tokenizer, eos_ids(target, tokenizer, eos_token_id),
                                 verifier, record, clock)
    decoder.draft_length = draft_length
    return decoder.run(prompt)


class SpeculativeDecoder:
    """One generation's state: the target's cached runner, the proposer, the generator and the growing trace."""

    def __init__(self, target, proposer: Proposer, settings: GenerationSettings, tokenizer, eos: set[int],
                 verifier: Verifier = verify, record: bool = True, clock: Clock = default_clock):
        self.target = CachedModel(target)
        self.proposer = proposer
        self.settings = settings
        self.sampling = settings.sampling
        self.generator = settings.generator()
        self.texts = TokenTexts(tokenizer)
        self.eos = eos
        self.verifier = verifier
        self.record = record
        self.clock = clock
        self.vocab_size = target.config.vocab_size
        self.draft_length = None  # a specviz.policies.DraftLength, or None for the constant settings.k

    def run(self, prompt: list[int]) -> Trace:
        start = self.clock()
        self.prefill(prompt)
        prefill_seconds = self.clock() - start
        sequence, output, steps, stop = list(prompt), [], [], ""
        while not stop:
            step, stop = self.step(sequence, output, len(steps))
            steps.append(step)
        trace = Trace(
            mode="speculative", settings={**self.settings.to_dict(), "proposer": self.proposer.name},
            prompt_ids=prompt, output_ids=output, steps=steps, prompt_text=self.texts.text(prompt),
            output_text=self.texts.text(output), stop_reason=stop, prefill_seconds=prefill_seconds,
        )
        trace.wall_seconds = self.clock() - start
        return trace

    def prefill(self, prompt: list[int]) -> None:
        """Fill both caches with the prompt except its last token, which the first step feeds."""
        self.proposer.reset()
        self.target.reset()
        if self.draft_length is not None:
            self.draft_length.reset()
        self.target.prefill(prompt, features=self.proposer.needs_target_features)
        if self.target.last_hidden is not None:
            self.proposer.observe_target(0, self.target.last_hidden)
        self.proposer.prefill(prompt)
        synchronize(self.target.device)

    def step(self, sequence: list[int], output: list[int], index: int) -> tuple[Step, str]:
        """One round; extends `sequence` and `output` in place and returns the step and the stop reason."""
        t0 = self.clock()
        target_before, draft_before = len(self.target), self.proposer.cache_length()
        # 1. propose: never draft more than can still be emitted
        wanted = self.settings.k if self.draft_length is None else self.draft_length.next_k()
        k = min(wanted, self.settings.max_new_tokens - len(output) - 1)
        proposal = self.proposer.propose(sequence, k, self.sampling, self.generator) if k > 0 else Proposal([], None)
        drafts = proposal.tokens[:k]
        synchronize(self.target.device)
        t1 = self.clock()
        # 2. score: one target forward over the last token and all drafts -> p at K+1 positions
        logits = self.target.feed(sequence, drafts, keep=len(drafts) + 1, features=self.proposer.needs_target_features)
        target_probs = self.sampling.probs(logits).cpu()  # (K+1, V)
        synchronize(self.target.device)
        t2 = self.clock()
        # 3. verify: the rule picks how many drafts survive and the recovered / bonus token
        draft_probs = _draft_probs(proposal, drafts, self.vocab_size)  # (K, V)
        result = self.verifier(target_probs, draft_probs, drafts, generator=self.generator)
        n = result.n_accepted
        if self.draft_length is not None:
            self.draft_length.observe(len(drafts), n)
        # 4. rewind both caches to the accepted prefix
        self.target.rewind(len(sequence) + n)
        self.proposer.rollback(len(sequence) + n)
        if self.proposer.needs_target_features:  # the features of the tokens that survived
            start = self.target.last_start
            self.proposer.observe_target(start, self.target.last_hidden[: len(sequence) + n - start])
        # 5. emit, stopping at EOS and max_new_tokens
        new = self._emitted(drafts, draft_probs, target_probs, result)
        kept, stop = append_until_stop(output, new, self.eos, self.settings.max_new_tokens)
        sequence.extend(t.token_id for t in kept)
        step = Step(
            index=index, context_length=len(sequence) - len(kept), k=len(drafts), proposer=self.proposer.name,
            decisions=self._decisions(drafts, draft_probs, target_probs, result), emitted=kept,
            correction_kind=new[-1].kind,
            correction_top=top_tokens(result.next_dist, self.texts) if self.record else [],
            target_cache_before=target_before, target_cache_after=len(self.target),
            draft_cache_before=draft_before, draft_cache_after=self.proposer.cache_length(),
            draft_seconds=t1 - t0, verify_seconds=t2 - t1,
        )
        step.overhead_seconds = self.clock() - t2
        return step, stop

    def _emitted(self, drafts, draft_probs, target_probs, result: VerifyResult) -> list[EmittedToken]:
        n = result.n_accepted
        tokens = [
            EmittedToken(x, self._text(x), "accepted", float(target_probs[i, x]), float(draft_probs[i, x]),
                         result.uniforms[i])
            for i, x in enumerate(drafts[:n])
        ]
        kind = result.next_kind if drafts else "target"
        last = result.next_token
        tokens.append(EmittedToken(last, self._text(last), kind, float(target_probs[n, last])))
        return tokens

    def _decisions(self, drafts, draft_probs, target_probs, result: VerifyResult) -> list[Decision]:
        decisions = []
        for i, x in enumerate(drafts):
            p, q = float(target_probs[i, x]), float(draft_probs[i, x])
            reached = i < len(result.uniforms)
            decisions.append(Decision(
                position=i, token_id=x, text=self._text(x), draft_prob=q, target_prob=p,
                ratio=p / q if q > 0 else math.inf,
                accept_prob=result.accept_probs[i] if reached else accept_probability(p, q),
                uniform=result.uniforms[i] if reached else None, accepted=i < result.n_accepted, reached=reached,
                target_top=top_tokens(target_probs[i], self.texts) if self.record else [],
                draft_top=top_tokens(draft_probs[i], self.texts) if self.record else [],
            ))
        return decisions

    def _text(self, token_id: int) -> str:
        return self.texts(token_id) if self.record else ""


def _draft_probs(proposal: Proposal, drafts: list[int], vocab_size: int) -> torch.Tensor:
    """q for each drafted position (K, V); a deterministic proposer's q is a point mass on its guess."""
    if proposal.draft_probs is not None:
        return proposal.draft_probs[: len(drafts)]
    q = torch.zeros(len(drafts), vocab_size)
    q[torch.arange(len(drafts)), torch.tensor(drafts, dtype=torch.long)] = 1.0
    return q
