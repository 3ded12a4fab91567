"""The verification rules: the exact one next to the rules that break it, all with one signature.

Every rule here has the signature of `specviz.engine.verifier.verify` (target_probs (K+1, V), draft_probs (K, V),
draft_tokens, *, generator, uniforms) and returns its `VerifyResult`, so the engine can run any of them. The
exact rule *is* `specviz.engine.verifier.verify`; the others are deliberate mistakes (or, for Medusa's typical
acceptance, a deliberate trade of exactness for speed). `exact_match_rule` is exact too: what transformers does
for proposers without logits. A chain rule is written as its test at one position, accept(p, q, x), and made
into that signature by `chain_rule(recover)`. What each rule emits instead of p, and what the app says about it, is
in `specviz.labs.exactness.registry`. p = target, q = draft throughout, both after temperature / top-k / top-p.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from specviz.core.i18n import _
from specviz.engine.tree import DraftTree
from specviz.engine.tree_verifier import TreeVerifyResult, verify_tree
from specviz.engine.verifier import (Verifier, VerifyResult, accept_probability, check_shapes, residual_distribution,
                              verify_chain)

VerifierFn = Verifier  # the name the lab's modules use

TYPICAL_EPSILON = 0.09  # Medusa's hard threshold epsilon ("posterior_threshold")
TYPICAL_DELTA = 0.3  # Medusa's entropy-scaled threshold delta ("posterior_alpha")
TOP_N_ONLY = 20


PerPosition = Callable[[torch.Tensor, torch.Tensor, int], float]  # (p_i, q_i, x_i) -> chance of keeping x_i
Recover = Callable[[torch.Tensor, torch.Tensor, int], torch.Tensor]  # (p_i, q_i, x_i) -> distribution (V,)


def chain_rule(recover: Recover) -> Callable[[PerPosition], VerifierFn]:
    """Make a rule with `verify`'s signature from its test at one position: the decorated `accept(p, q, x)` gives
    the chance of keeping draft x where the target's row is p and the draft's q (both (V,)); `recover(p, q, x)` is
    the distribution the recovered token is sampled from when x is rejected; the bonus token comes from p_{K+1}.
    The loop itself is `specviz.engine.verifier.verify_chain`, the one every rule shares."""

    def make(accept: PerPosition) -> VerifierFn:
        def rule(target_probs: torch.Tensor, draft_probs: torch.Tensor, draft_tokens: list[int], *,
                 generator: torch.Generator | None = None, uniforms: list[float] | None = None) -> VerifyResult:
            check_shapes(target_probs, draft_probs, draft_tokens)
            return verify_chain(target_probs, draft_tokens, lambda i, x: accept(target_probs[i], draft_probs[i], x),
                                lambda i: recover(target_probs[i], draft_probs[i], draft_tokens[i]),
                                generator=generator, uniforms=uniforms)

        rule.__name__ = rule.__qualname__ = accept.__name__
        rule.__doc__ = accept.__doc__
        return rule

    return make


def _from_p(p: torch.Tensor, q: torch.Tensor, x: int) -> torch.Tensor:
    return p


def _from_residual(p: torch.Tensor, q: torch.Tensor, x: int) -> torch.Tensor:
    return residual_distribution(p, q)


def _from_p_without_x(p: torch.Tensor, q: torch.Tensor, x: int) -> torch.Tensor:
    return residual_distribution(p, _point_mass(x, p.shape[-1]))  # max(0, p − δ_x): p with x removed


@chain_rule(recover=_from_p)
def accept_all(p: torch.Tensor, q: torch.Tensor, x: int) -> float:
    """Keep every drafted token, then a bonus token from p. The output follows the draft, not the target."""
    return 1.0


@chain_rule(recover=_from_p)
def resample_from_target(p: torch.Tensor, q: torch.Tensor, x: int) -> float:
    """The standard accept test, but after a rejection sample from p instead of norm(max(0, p - q))."""
    return accept_probability(float(p[x]), float(q[x]))


@chain_rule(recover=_from_residual)
def accept_if_p_ge_q(p: torch.Tensor, q: torch.Tensor, x: int) -> float:
    """Accept x iff p(x) >= q(x) (it keeps x with chance 1 or 0: no coin flip decides); after a rejection sample
    from the residual norm(max(0, p - q)) as usual."""
    return 1.0 if float(p[x]) >= float(q[x]) else 0.0


def _top_n_mask(probs: torch.Tensor, n: int = TOP_N_ONLY) -> torch.Tensor:
    """(V,) bool: the n most likely tokens (ties broken by torch.topk), or every token when V <= n."""
    mask = torch.zeros_like(probs, dtype=torch.bool)
    mask[torch.topk(probs, min(n, probs.shape[-1])).indices] = True
    return mask


@chain_rule(recover=_from_residual)
def target_top20_only(p: torch.Tensor, q: torch.Tensor, x: int) -> float:
    """Reject any draft outside the target's 20 most likely tokens; inside them, the standard test
    min(1, p(x)/q(x)) with the full p; after a rejection, the standard residual norm(max(0, p - q)) with the full p.
    "Top 20" is torch.topk of p (ties broken by its order); with 20 or fewer tokens in the vocabulary it is all of
    them, and the rule is `verify`."""
    if not bool(_top_n_mask(p)[x]):
        return 0.0
    return accept_probability(float(p[x]), float(q[x]))


def entropy(probs: torch.Tensor) -> torch.Tensor:
    """Shannon entropy in nats over the last dimension (0 log 0 = 0).

    >>> import torch
    >>> round(float(entropy(torch.tensor([0.5, 0.5, 0.0]))), 4)
    0.6931
    """
    logs = torch.where(probs > 0, probs.log(), torch.zeros_like(probs))
    return -(probs * logs).sum(-1)


def typical_threshold(target_probs: torch.Tensor, epsilon: float = TYPICAL_EPSILON,
                      delta: float = TYPICAL_DELTA) -> float:
    """Medusa's acceptance threshold for one position: min(epsilon, delta * exp(-H(p))).

    >>> import torch
    >>> typical_threshold(torch.tensor([1.0, 0.0]))  # a confident target: the hard threshold epsilon applies
    0.09
    """
    return min(epsilon, delta * math.exp(-float(entropy(target_probs.double()))))


def typical_acceptance(
    target_probs: torch.Tensor,
    draft_probs: torch.Tensor,
    draft_tokens: list[int],
    *,
    generator: torch.Generator | None = None,
    uniforms: list[float] | None = None,
    epsilon: float = TYPICAL_EPSILON,
    delta: float = TYPICAL_DELTA,
    fallback: str = "argmax",
) -> VerifyResult:
    """Medusa's typical acceptance (Cai et al. 2024, section 2.3.1): keep x iff p(x) > min(epsilon, delta exp(-H(p)))
    (H in nats; it keeps x with chance 1 or 0, no coin flip decides). The token after the accepted run (after a
    rejection, or after all K) is the target's argmax, as in the paper ("we apply greedy decoding for the first
    token and unconditionally accept it", section 2.3.1) and Medusa's reference code (`generate_candidates` takes
    the argmax of the base model's logits under `medusa_generate`'s default `fast=True`).
    `fallback="sample"` samples it from p instead. Either way the output is not p: lossy by design, traded for
    longer accepted runs, which it does not always get (read 47: where q leans on tokens below the threshold it keeps
    fewer drafts than the exact rule, e.g. p = 0.9, 0.05, 0.05 and q = 0.5, 0.25, 0.25 keep 0.5 against α = 0.6)."""
    check_shapes(target_probs, draft_probs, draft_tokens)
    if fallback not in ("argmax", "sample"):
        raise ValueError(_("fallback must be 'argmax' or 'sample' (got {fallback}).", fallback=repr(fallback)))

    def after(i: int) -> torch.Tensor:
        if fallback == "sample":
            return target_probs[i]
        return torch.nn.functional.one_hot(target_probs[i].argmax(), target_probs.shape[-1]).to(target_probs.dtype)

    def accept(i: int, x: int) -> float:
        return 1.0 if float(target_probs[i, x]) > typical_threshold(target_probs[i], epsilon, delta) else 0.0

    return verify_chain(target_probs, draft_tokens, accept, after, after, generator=generator, uniforms=uniforms)


@chain_rule(recover=_from_p_without_x)
def exact_match_rule(p: torch.Tensor, q: torch.Tensor, x: int) -> float:
    """What transformers does for proposers without logits (prompt lookup): sample t ~ p and keep the draft x iff
    t = x, else emit t. A sample from p matches x with probability p(x), and a mismatched t is distributed as p
    without x, so this is the chain with accept(x) = p(x) and recover = norm(p with x removed): exactly `verify`
    with q a point mass on x (max(0, p − δ_x) is p with x removed). Exact, whatever the proposer's real q; it
    ignores q, so a proposer with a real q gets its drafts kept no more often than under the exact rule, and less
    often where q(x) < 1 and 0 < p(x) < 1 (p(x) < min(1, p(x)/q(x)) there; Σ p·q ≤ Σ min(p, q)). Read 45: "less
    often" alone was wrong for a point-mass q; read 50: "wherever q(x) < 1" was wrong for a point-mass p, as at
    temperature 0, where both rules keep x exactly when it is the target's argmax.

    >>> p = torch.tensor([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]]); q = torch.tensor([[0.2, 0.7, 0.1]])
    >>> exact_match_rule(p, q, [1], uniforms=[0.29]).n_accepted  # u < p(x) = 0.3
    1
    >>> [round(x, 4) for x in exact_match_rule(p, q, [1], uniforms=[0.31]).next_dist.tolist()]
    [0.8571, 0.0, 0.1429]
    """
    return float(p[x])


def _point_mass(token: int, vocab_size: int) -> torch.Tensor:
    return torch.nn.functional.one_hot(torch.tensor(token), vocab_size).float()


# ---- draft trees (`specviz.engine.tree_verifier`) ------------------------------------------------------------------------
# A tree rule has the signature of `verify_tree` (target_probs (N+1, V), tree, *, generator, uniforms). How its
# children are drafted is declared with it in the registry (`TreeRule.children`); `TreeRule.verification` tells the
# engine (`TreeVerification.top_children`).


def tree_top_children(target_probs: torch.Tensor, tree: DraftTree, *, generator: torch.Generator | None = None,
                      uniforms: list[float] | None = None) -> TreeVerifyResult:
    """Exact: the draft's top-k tokens as children, each treated as a point mass δ_x (accept x with p'(x), then
    p' <- p' without x). Any fixed set of guesses is exact this way; q plays no part in the test."""
    return verify_tree(target_probs, tree, generator=generator, uniforms=uniforms, compare_with_q=False)


def tree_top_k_against_q(target_probs: torch.Tensor, tree: DraftTree, *, generator: torch.Generator | None = None,
                         uniforms: list[float] | None = None) -> TreeVerifyResult:
    """Broken: the draft's top-k tokens as children, verified as if they had been drawn from q (accept with
    min(1, p'(x)/q'(x)), residual norm(max(0, p' - q')), q' <- q without x). The top tokens are not a sample of q,
    so the acceptance test corrects a distribution the children do not have."""
    return verify_tree(target_probs, tree, generator=generator, uniforms=uniforms, compare_with_q=True)
