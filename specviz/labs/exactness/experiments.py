"""Sampling experiments on one step: draw many first tokens under a rule, and under p itself, to compare.

`one_step_samples` simulates n steps with K = 1 (draft x ~ q, run the rule, keep the first emitted token): fast
enough for the statistical tests and the live page. `restrict_support` first cuts p and q to the tokens that carry
their mass, since a 49k-token vocabulary makes every sampling call slow. How far the samples land from the truth
is measured in `specviz.labs.exactness.stats`. p = target, q = draft throughout.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import torch

from specviz.core.i18n import _, with_minus
from specviz.engine.limits import is_whole
from specviz.labs.exactness.registry import Rule, _check_vectors, _verifier_of
from specviz.labs.exactness.rules import VerifierFn


class Support(NamedTuple):
    """p and q restricted to the tokens that carry their mass, renormalised; `token_ids` maps back to the vocabulary."""

    token_ids: torch.Tensor  # (n,) int64, into the full vocabulary
    target_probs: torch.Tensor  # (n,)
    draft_probs: torch.Tensor  # (n,)
    target_coverage: float  # the share of the original p kept
    draft_coverage: float


def restrict_support(target_probs: torch.Tensor, draft_probs: torch.Tensor, max_tokens: int = 4096,
                     mass: float = 1 - 1e-6) -> Support:
    """Keep the most likely tokens under max(p, q) until both p and q have `mass` covered (at most `max_tokens`).

    A 49k-token vocabulary makes every sampling call slow; restricted to the few thousand tokens that matter the
    experiments run much faster, on slightly renormalised p and q (the coverages say by how much). A vocabulary of
    at most `max_tokens` is kept whole.

    >>> import torch
    >>> s = restrict_support(torch.tensor([0.7, 0.2, 0.1, 0.0]), torch.tensor([0.5, 0.4, 0.0, 0.1]), max_tokens=2)
    >>> s.token_ids.tolist(), round(s.target_coverage, 2), round(s.draft_coverage, 2)
    ([0, 1], 0.9, 0.9)
    """
    p, q = torch.as_tensor(target_probs).float(), torch.as_tensor(draft_probs).float()
    if p.shape[-1] <= max_tokens:
        ids = torch.arange(p.shape[-1])
    else:
        order = torch.argsort(torch.maximum(p, q), descending=True)
        cover = torch.minimum(p[order].double().cumsum(0), q[order].double().cumsum(0))
        n = min(max_tokens, int((cover < mass).sum()) + 1)
        ids = order[:n].sort().values
    kept_p, kept_q = p[ids], q[ids]
    cov_p, cov_q = float(kept_p.sum()) / float(p.sum()), float(kept_q.sum()) / float(q.sum())
    if kept_p.sum() <= 0 or kept_q.sum() <= 0:
        raise ValueError(_("The kept tokens carry no probability under p or q; this should not happen."))
    return Support(ids, kept_p / kept_p.sum(), kept_q / kept_q.sum(), cov_p, cov_q)


# ---- sampling experiments -----------------------------------------------------------------------------------------


@dataclass
class OneStepSamples:
    """n simulated steps: the first emitted token of each (n,), and whether it was the kept draft (n,)."""

    tokens: torch.Tensor  # (n,) int64
    accepted: torch.Tensor  # (n,) bool
    vocab_size: int

    @property
    def n(self) -> int:
        return int(self.tokens.shape[0])

    @property
    def counts(self) -> torch.Tensor:
        """Token counts (V,)."""
        return torch.bincount(self.tokens, minlength=self.vocab_size)

    @property
    def acceptance_rate(self) -> float:
        return float(self.accepted.double().mean()) if self.n else math.nan


def one_step_samples(
    target_probs: torch.Tensor,  # (V,)
    draft_probs: torch.Tensor,  # (V,)
    rule: str | Rule | VerifierFn,
    n: int,
    generator: torch.Generator | None = None,
    draft_sampler: Callable[[torch.Tensor, torch.Generator | None], int] | None = None,
) -> OneStepSamples:
    """Simulate n steps with K = 1: draft x ~ q, run the rule, record the first emitted token.

    By default the n drafts are drawn from q up front, in one call; pass `draft_sampler(q, generator) -> token`
    to draw them one by one instead, e.g. `lambda q, g: 7` for a deterministic proposer (q should then be the
    point mass on 7). The bonus row is p again: it does not affect the first token.
    """
    whole = is_whole(n) or (isinstance(n, float) and n.is_integer())
    if not whole or n < 1:  # an int is checked as an int: math.isfinite(10**400) raised OverflowError
        shown = with_minus(repr(n))
        raise ValueError(_("The number of samples must be a positive whole number (got {n}).",
                           n=shown if len(shown) <= 40 else shown[:39] + "…"))
    p, q = (torch.as_tensor(x, dtype=torch.float32) for x in (target_probs, draft_probs))
    _check_vectors(p, q)
    fn = _verifier_of(rule)
    target_rows, draft_rows = torch.stack([p, p]), q[None]  # (2, V), (1, V)
    drafts = torch.multinomial(q, int(n), replacement=True, generator=generator).tolist() \
        if draft_sampler is None else None
    tokens = torch.empty(int(n), dtype=torch.int64)
    accepted = torch.empty(int(n), dtype=torch.bool)
    for j in range(int(n)):
        x = drafts[j] if drafts is not None else draft_sampler(q, generator)
        result = fn(target_rows, draft_rows, [x], generator=generator)
        accepted[j] = result.n_accepted >= 1
        tokens[j] = x if result.n_accepted >= 1 else result.next_token
    return OneStepSamples(tokens, accepted, p.shape[0])


def target_samples(target_probs: torch.Tensor, n: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """n tokens sampled straight from p (target-only decoding of one token), (n,) int64."""
    return torch.multinomial(torch.as_tensor(target_probs, dtype=torch.float32), int(n), replacement=True,
                             generator=generator)
