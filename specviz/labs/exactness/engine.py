"""Ground truth and samples through the real engine: the target's distributions over short continuations, by
enumeration, and N continuations by speculative and by target-only decoding.

`exact_first_token_distribution` and `exact_two_token_distribution` are what target-only decoding samples from
(the second by one batched forward over the likely first tokens); `proposal_distribution` is q for any proposer;
`continuation_samples` runs `speculative_generate` with a rule as its verifier, and `autoregressive_generate`,
with the same seeds. The engine (specviz.engine.decoding, specviz.engine.baseline) pulls in transformers; it is imported where
it is used so the tensor-level tools of `specviz.labs.exactness` stay light.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from specviz.core.i18n import _, ngettext, percent_of, with_minus
from specviz.engine.generation import eos_ids
from specviz.engine.kvcache import feature_states
from specviz.engine.limits import is_whole
from specviz.engine.sampling import SamplingConfig
from specviz.labs.exactness.registry import Rule, _verifier_of
from specviz.labs.exactness.rules import VerifierFn


def _prompt(input_ids: Sequence[int] | torch.Tensor) -> list[int]:
    ids = input_ids.flatten().tolist() if isinstance(input_ids, torch.Tensor) else [int(i) for i in input_ids]
    if not ids:
        raise ValueError(_("The prompt is empty: give at least one token."))
    return ids


def _device(model) -> torch.device:
    return next(model.parameters()).device


@torch.inference_mode()
def next_token_distributions(model, sequences: Sequence[Sequence[int]], sampling: SamplingConfig) -> torch.Tensor:
    """The model's next-token distribution after each of several equally long sequences, (n, V) on CPU, after
    the sampling settings. One batched forward, no cache."""
    lengths = {len(s) for s in sequences}
    if len(lengths) != 1:
        raise ValueError(_("next_token_distributions needs sequences of one length."))
    ids = torch.tensor([list(s) for s in sequences], device=_device(model))
    logits = model(input_ids=ids).logits[:, -1, : model.config.vocab_size]  # (n, V)
    return sampling.probs(logits.float()).cpu()


def exact_first_token_distribution(target, input_ids: Sequence[int] | torch.Tensor,
                                   sampling: SamplingConfig) -> torch.Tensor:
    """p for the first new token after the prompt, (V,): what target-only decoding samples from."""
    return next_token_distributions(target, [_prompt(input_ids)], sampling)[0]


def proposal_distribution(proposer, input_ids: Sequence[int] | torch.Tensor, sampling: SamplingConfig,
                          vocab_size: int, target=None) -> torch.Tensor:
    """q for the first drafted token after the prompt, (V,), from any `specviz.engine.proposers.Proposer`; a
    deterministic proposer (no draft_probs) gives the point mass on its guess. A feature drafter (EAGLE) is handed
    `target`'s features of the prompt but its last token, as the engine's prefill hands them over; without them it
    has nothing to draft from."""
    ids = _prompt(input_ids)
    proposer.reset()
    proposer.prefill(ids)
    if getattr(proposer, "needs_target_features", False) and target is not None and len(ids) > 1:
        with torch.inference_mode():
            out = target(input_ids=torch.tensor([ids[:-1]], device=_device(target)), output_hidden_states=True)
        proposer.observe_target(0, feature_states(out.hidden_states, proposer.feature_layers))
    proposal = proposer.propose(ids, 1, sampling, torch.Generator().manual_seed(0))
    proposer.reset()
    if not proposal.tokens:
        raise ValueError(_("The proposer '{name}' has no guess after this prompt; try another prompt.",
                           name=proposer.name))
    if proposal.draft_probs is not None:
        return proposal.draft_probs[0].float().cpu()
    return torch.nn.functional.one_hot(torch.tensor(proposal.tokens[0]), vocab_size).float()


@dataclass
class SequenceDistribution:
    """A distribution over short continuations: `support` sequences with `probs` (S+1,), the last entry being
    everything else ("other"). `exhaustive` is True when "other" is empty by construction."""

    support: list[tuple[int, ...]]
    probs: torch.Tensor  # (S+1,) float64
    exhaustive: bool
    note: str

    @property
    def other_index(self) -> int:
        return len(self.support)

    def categorize(self, sequences: Sequence[Sequence[int]]) -> torch.Tensor:
        """Map sampled sequences to category ids (n,), anything outside the support to `other_index`."""
        index = {s: i for i, s in enumerate(self.support)}
        return torch.tensor([index.get(tuple(s), self.other_index) for s in sequences], dtype=torch.int64)


def _sequence_distribution(entries: dict[tuple[int, ...], float], max_support: int, exhaustive: bool,
                           note: str) -> SequenceDistribution:
    """The kept entries, most likely first, and "other" last: 1 minus their sum, or exactly 0 where the entries are
    every outcome of positive probability. There 1 minus the sum is float32 rounding (about 1e-8), and it gave a
    continuation the target cannot write a positive probability: the chi-square test pooled it with the rare
    pairs instead of refuting p (read 50: 25 of 100 accept-all samples at top-k 5 on the toy pair, "Consistent
    with the target distribution")."""
    ranked = sorted(((s, p) for s, p in entries.items() if p > 0), key=lambda e: -e[1])
    kept = ranked[:max_support]
    every = exhaustive and len(kept) == len(ranked)
    probs = torch.tensor([p for _, p in kept] + [0.0], dtype=torch.float64)
    probs[-1] = 0.0 if every else max(0.0, 1.0 - float(probs[:-1].sum()))
    return SequenceDistribution([s for s, _ in kept], probs, every, note)


def exact_two_token_distribution(target, input_ids: Sequence[int] | torch.Tensor, sampling: SamplingConfig, *,
                                 eos: set[int] | None = None, tokenizer=None, max_first: int = 64,
                                 coverage: float = 0.9999, max_support: int = 2000) -> SequenceDistribution:
    """P(t1, t2) = p(t1) p(t2 | t1) by enumeration: one batched forward over the most likely first tokens (until
    they cover `coverage` of p, at most `max_first`). A first token in `eos` ends the continuation, so it appears
    as the 1-token sequence (t1,); by default `eos` is what the engine stops at (`specviz.engine.generation.eos_ids`).
    Pairs beyond `max_support`, and first tokens beyond the enumerated ones, go to "other", whose probability is
    still exact (1 minus the rest)."""
    eos = eos_ids(target, tokenizer) if eos is None else set(eos)
    prompt = _prompt(input_ids)
    p1 = exact_first_token_distribution(target, prompt, sampling).double()
    order = torch.argsort(p1, descending=True)
    cum = p1[order].cumsum(0)
    m = min(max_first, int((cum < coverage).sum()) + 1, int((p1 > 0).sum()))
    firsts = [int(t) for t in order[:m]]
    entries: dict[tuple[int, ...], float] = {(t,): float(p1[t]) for t in firsts if t in eos}
    going_on = [t for t in firsts if t not in eos]
    every_pair = True  # False when the top-k below leaves a pair of positive probability out (to "other")
    if going_on:
        p2 = next_token_distributions(target, [prompt + [t] for t in going_on], sampling).double()  # (m, V)
        joint = p1[going_on][:, None] * p2
        flat_values, flat_index = torch.topk(joint.flatten(), min(max_support, joint.numel()))
        every_pair = int((joint > 0).sum()) <= len(flat_values)
        for value, index in zip(flat_values.tolist(), flat_index.tolist()):
            if value > 0:
                entries[(going_on[index // joint.shape[1]], index % joint.shape[1])] = value
    complete = m == int((p1 > 0).sum())
    # read 55: the share the enumerated tokens hold, from what they leave: at T = 0.01 the toy pair's float32 p gives
    # one token 1.0 and the rest 1e-15, and the sum of the kept ones (1.0, or over 1 by float32 rounding) read
    # "100.00% of p(t₁)" beside a non-empty "(other)". Where even float64 cannot hold 1 minus the rest, the share is
    # the largest float below 1, which `percent_of` writes as "> 99.999999%"
    rest = float(p1[order[m:]].sum())
    share = min(1.0 - rest / float(p1.sum()), math.nextafter(1.0, 0.0)) if rest > 0 else 1.0
    # top-k 1, or one token holding nearly all of p, leaves one first token (read 44: "all 1 possible first tokens")
    note = (ngettext("exact: only {n} first token is possible", "exact, by enumerating all {n} possible first tokens",
                     m) if complete else
            # read 54: "of p" beside a page that names p(t₁, t₂), and 'other' where the bucket reads "(other)"
            ngettext("exact for the most likely first token ({share} of p(t₁)); the rest is “(other)”",
                     "exact for the {n} most likely first tokens ({share} of p(t₁)); the rest is “(other)”", m,
                     share=percent_of(share, 1, 2)))
    return _sequence_distribution(entries, max_support, complete and every_pair, note)


@dataclass
class ContinuationSamples:
    """N continuations from one prompt, by speculative decoding with a rule and by target-only decoding."""

    speculative: list[tuple[int, ...]]
    autoregressive: list[tuple[int, ...]]
    drafted: int
    accepted: int

    @property
    def acceptance_rate(self) -> float:
        """Accepted / drafted over all speculative runs."""
        return self.accepted / self.drafted if self.drafted else math.nan


def continuation_samples(
    target,
    draft,
    input_ids: Sequence[int] | torch.Tensor,
    *,
    n: int,
    length: int = 2,
    rule: str | Rule | VerifierFn = "exact",
    k: int = 4,
    sampling: SamplingConfig = SamplingConfig(temperature=1.0),
    seed: int = 0,
    tokenizer=None,
    autoregressive: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> ContinuationSamples:
    """Sample n continuations of `length` new tokens with `speculative_generate` (verifier = the rule) and with
    `autoregressive_generate`, both with `sampling` (T = 1 unless given), run i using seed + i. Continuations may be
    shorter when EOS comes first.

    The engine drafts at most one token fewer than it can still emit, so a 1-token continuation drafts nothing:
    the rule is called with K = 0, judges no draft and only picks the bonus token (from p, or p's argmax under
    Medusa's typical acceptance, lossy even then). Use length >= 2 to test a rule on a draft: the first step
    then drafts min(K, length − 1) tokens (`specviz.labs.exactness.lab.drafts_per_step`), and the first token is
    the rule's verdict on the first draft (kept, or the token that replaces it), as with K = 1.
    """
    # the engine pulls in transformers (seconds): imported here, so the tensor-level tools stay light
    from specviz.engine.baseline import autoregressive_generate
    from specviz.engine.decoding import speculative_generate

    whole = is_whole(n) or (isinstance(n, float) and n.is_integer())
    if not whole or n < 1:  # an int is checked as an int: math.isfinite(10**400) raised OverflowError
        shown = with_minus(repr(n))
        raise ValueError(_("The number of continuations must be a positive whole number (got {n}).",
                           n=shown if len(shown) <= 40 else shown[:39] + "…"))
    if not is_whole(length) or not 1 <= length <= 3:  # not 2.5, True or NaN
        raise ValueError(_("Continuations are 1 to 3 tokens long here (got {length}).",
                           length=with_minus(repr(length))))
    fn = _verifier_of(rule)
    prompt = _prompt(input_ids)
    settings = dict(max_new_tokens=length, temperature=sampling.temperature, top_k=sampling.top_k,
                    top_p=sampling.top_p, tokenizer=tokenizer, record=False)
    spec, plain, drafted, accepted = [], [], 0, 0
    for i in range(int(n)):
        trace = speculative_generate(target, draft, prompt, k=k, seed=seed + i, verifier=fn, **settings)
        spec.append(tuple(trace.output_ids))
        drafted += trace.num_drafted
        accepted += trace.num_accepted
        if autoregressive:
            plain.append(tuple(autoregressive_generate(target, prompt, seed=seed + i, **settings).output_ids))
        if progress is not None:
            progress(i + 1, int(n))
    return ContinuationSamples(spec, plain, drafted, accepted)
