"""The registry of rules: each rule's name, label and explanation, and the closed form of what it emits.

`RULES` maps a name to a `Rule`; `get_rule` finds an entry by name, entry or function. `one_step(p, q)` is the
closed form of the first emitted token's distribution for K = 1 with the draft x ~ q, so the app can draw what a
rule outputs next to p without sampling, and the tests can check the samples against it.
p = target, q = draft throughout.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from specviz.exactness.rules import (VerifierFn, _top_n_mask, accept_all, accept_if_p_ge_q, exact_match_rule,
                                     resample_from_target, target_top20_only, typical_acceptance, typical_threshold)
from specviz.verifier import residual_distribution, verify

# ---- closed forms: what each rule emits in one step with K = 1, the draft x ~ q ----------------------------------


def _check_vectors(p: torch.Tensor, q: torch.Tensor) -> None:
    if p.dim() != 1 or p.shape != q.shape:
        raise ValueError("p and q must be probability vectors (V,) of the same length.")


def _pq(target_probs: torch.Tensor, draft_probs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    p, q = torch.as_tensor(target_probs).double(), torch.as_tensor(draft_probs).double()
    _check_vectors(p, q)
    return p / p.sum(), q / q.sum()


def _exact_one_step(p, q):
    return p, float(torch.minimum(p, q).sum())


def _accept_all_one_step(p, q):
    return q, 1.0


def _resample_one_step(p, q):
    accepted = torch.minimum(p, q)
    alpha = float(accepted.sum())
    return accepted + (1 - alpha) * p, alpha


def _p_ge_q_one_step(p, q):
    keep = (p >= q).double() * q
    alpha = float(keep.sum())
    return keep + (1 - alpha) * residual_distribution(p, q), alpha


def _top20_one_step(p, q):
    accepted = torch.minimum(p, q) * _top_n_mask(p).double()
    alpha = float(accepted.sum())
    return accepted + (1 - alpha) * residual_distribution(p, q), alpha


def _typical_one_step(p, q):
    keep = (p > typical_threshold(p)).double() * q
    alpha = float(keep.sum())
    greedy = torch.nn.functional.one_hot(p.argmax(), p.shape[0]).double()
    return keep + (1 - alpha) * greedy, alpha


def _exact_match_one_step(p, q):
    return p, float((p * q).sum())


@dataclass(frozen=True)
class Rule:
    """A verification rule and what the app says about it. `one_step(p, q)` is the closed form of the first
    emitted token's distribution for K = 1 with x ~ q, plus the chance that the draft is kept."""

    name: str
    label: str
    function: VerifierFn
    exact: bool
    explanation: str
    one_step: Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, float]]


RULES: dict[str, Rule] = {
    rule.name: rule
    for rule in [
        Rule("exact", "Exact rule (Leviathan / Chen)", verify, True,
             "Accept the draft x with probability min(1, p(x)/q(x)); at the first rejection sample from "
             "norm(max(0, p − q)). The accepted part contributes min(p, q) and the recovered part tops it up with "
             "exactly the missing max(0, p − q), so every emitted token is distributed as p.",
             _exact_one_step),
        Rule("accept_all", "Broken: accept every draft", accept_all, False,
             "Keep every drafted token without looking at p. The emitted tokens are then the draft's samples: "
             "the output follows q, and only the bonus token comes from p. Fast (α = 1) and wrong by exactly "
             "TV(p, q).",
             _accept_all_one_step),
        Rule("resample_from_target", "Broken: resample from p on rejection", resample_from_target, False,
             "The accept test is right, but after a rejection it samples from p instead of the residual. Tokens "
             "the draft over-proposes were already partly emitted through acceptance and can come out again, so "
             "they get min(p, q) + (1 − α)·p > p whenever q > p: the output leans towards the draft.",
             _resample_one_step),
        Rule("accept_if_p_ge_q", "Broken: accept iff p(x) ≥ q(x)", accept_if_p_ge_q, False,
             "A deterministic shortcut: keep x when p(x) ≥ q(x), reject otherwise, with no coin flip. A token with "
             "p(x) < q(x) is then never emitted at all: acceptance always turns it down, and the residual "
             "norm(max(0, p − q)) gives it no mass either. The p(x) it should get goes to the tokens with p ≥ q.",
             _p_ge_q_one_step),
        Rule("target_top20_only", "Broken: reject outside the target's top 20", target_top20_only, False,
             "Reject every draft outside the target's 20 most likely tokens; inside them use the standard test, "
             "and recover from the standard residual. Tokens outside the top 20 then come out only through the "
             "residual, which was sized for the other rejections: they get too little mass and the top tokens too "
             "much. It is exact only when p puts no mass outside its top 20 (e.g. top-k ≤ 20).",
             _top20_one_step),
        Rule("typical_acceptance", "Lossy: Medusa's typical acceptance", typical_acceptance, False,
             "Medusa (Cai et al. 2024) keeps x when p(x) > min(ε, δ·exp(−H(p))) (ε = 0.09, δ = 0.3) and emits "
             "the target's argmax after the accepted run. Plausible tokens are always kept and the rest replaced "
             "by the most likely one: longer accepted runs, but the output is not p. Lossy by design, not a bug.",
             _typical_one_step),
        Rule("exact_match", "Exact: sample from p, keep the draft if it matches", exact_match_rule, True,
             "Sample t from p at each position; keep the draft iff it equals t, otherwise emit t. What transformers "
             "does for prompt lookup, which has no q. Every emitted token is a sample from p, so it is exact, for "
             "any proposer. It keeps a draft with chance Σ p(x)q(x): for a deterministic proposer such as prompt "
             "lookup (q all on its guess x) that is p(x), the same as Σ min(p, q); for a spread-out q it is less.",
             _exact_match_one_step),
    ]
}


def get_rule(rule: str | Rule | VerifierFn) -> Rule:
    """A registry entry from its name, the entry itself, or one of the rule functions."""
    if isinstance(rule, Rule):
        return rule
    if isinstance(rule, str):
        if rule not in RULES:
            raise ValueError(f"Unknown rule '{rule}': choose one of {', '.join(RULES)}.")
        return RULES[rule]
    for entry in RULES.values():
        if entry.function is rule:
            return entry
    raise ValueError("This verifier is not one of specviz's registered rules.")

def _verifier_of(rule: str | Rule | VerifierFn) -> VerifierFn:
    """The function to run for a rule given by name or entry; any other callable is taken as the verifier."""
    return get_rule(rule).function if isinstance(rule, (str, Rule)) else rule


def one_step_distribution(rule: str | Rule | VerifierFn, target_probs: torch.Tensor,
                          draft_probs: torch.Tensor) -> tuple[torch.Tensor, float]:
    """The closed form of the first token one step emits (K = 1, x ~ q) under `rule`, float64 (V,), and the
    rule's acceptance rate (the chance that the draft is kept).

    >>> import torch
    >>> p, q = torch.tensor([0.5, 0.3, 0.2]), torch.tensor([0.2, 0.6, 0.2])
    >>> dist, alpha = one_step_distribution("resample_from_target", p, q)
    >>> [round(x, 2) for x in dist.tolist()], round(alpha, 2)
    ([0.35, 0.39, 0.26], 0.7)
    """
    return get_rule(rule).one_step(*_pq(target_probs, draft_probs))
