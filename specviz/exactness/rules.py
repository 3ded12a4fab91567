"""The verification rules: the exact one next to the rules that break it, all with one signature.

Every rule here has the signature of `specviz.verifier.verify` (target_probs (K+1, V), draft_probs (K, V),
draft_tokens, *, generator, uniforms) and returns its `VerifyResult`, so the engine can run any of them. The
exact rule *is* `specviz.verifier.verify`; the others are deliberate mistakes (or, for Medusa's typical
acceptance, a deliberate trade of exactness for speed). `exact_match_rule` is exact too: what transformers does
for proposers without logits. What each rule emits instead of p, and what the app says about it, is in
`specviz.exactness.registry`. p = target, q = draft throughout, both after temperature / top-k / top-p.
"""

from __future__ import annotations

import math

import torch

from specviz.i18n import _
from specviz.tree import DraftTree
from specviz.tree_verifier import TreeVerifyResult, verify_tree
from specviz.verifier import (Verifier, VerifyResult, accept_probability, check_shapes, residual_distribution,
                              verify_chain)

VerifierFn = Verifier  # the name the lab's modules use

TYPICAL_EPSILON = 0.09  # Medusa's hard threshold epsilon ("posterior_threshold")
TYPICAL_DELTA = 0.3  # Medusa's entropy-scaled threshold delta ("posterior_alpha")
TOP_N_ONLY = 20


def accept_all(
    target_probs: torch.Tensor,  # (K+1, V)
    draft_probs: torch.Tensor,  # (K, V)
    draft_tokens: list[int],
    *,
    generator: torch.Generator | None = None,
    uniforms: list[float] | None = None,
) -> VerifyResult:
    """Keep every drafted token, then a bonus token from p. The output follows the draft, not the target."""
    check_shapes(target_probs, draft_probs, draft_tokens)
    return verify_chain(target_probs, draft_tokens, lambda i, x: 1.0,
                        lambda i: target_probs[i], generator=generator, uniforms=uniforms)


def resample_from_target(
    target_probs: torch.Tensor,
    draft_probs: torch.Tensor,
    draft_tokens: list[int],
    *,
    generator: torch.Generator | None = None,
    uniforms: list[float] | None = None,
) -> VerifyResult:
    """The standard accept test, but after a rejection sample from p instead of norm(max(0, p - q))."""
    check_shapes(target_probs, draft_probs, draft_tokens)
    return verify_chain(target_probs, draft_tokens,
                        lambda i, x: accept_probability(float(target_probs[i, x]), float(draft_probs[i, x])),
                        lambda i: target_probs[i], generator=generator, uniforms=uniforms)


def accept_if_p_ge_q(
    target_probs: torch.Tensor,
    draft_probs: torch.Tensor,
    draft_tokens: list[int],
    *,
    generator: torch.Generator | None = None,
    uniforms: list[float] | None = None,
) -> VerifyResult:
    """Accept x iff p(x) >= q(x) (acceptance probability 1 or 0: no coin flip decides); after a rejection sample
    from the residual norm(max(0, p - q)) as usual."""
    check_shapes(target_probs, draft_probs, draft_tokens)
    return verify_chain(target_probs, draft_tokens,
                        lambda i, x: 1.0 if float(target_probs[i, x]) >= float(draft_probs[i, x]) else 0.0,
                        lambda i: residual_distribution(target_probs[i], draft_probs[i]),
                        generator=generator, uniforms=uniforms)


def _top_n_mask(probs: torch.Tensor, n: int = TOP_N_ONLY) -> torch.Tensor:
    """(V,) bool: the n most likely tokens (ties broken by torch.topk), or every token when V <= n."""
    mask = torch.zeros_like(probs, dtype=torch.bool)
    mask[torch.topk(probs, min(n, probs.shape[-1])).indices] = True
    return mask


def target_top20_only(
    target_probs: torch.Tensor,
    draft_probs: torch.Tensor,
    draft_tokens: list[int],
    *,
    generator: torch.Generator | None = None,
    uniforms: list[float] | None = None,
) -> VerifyResult:
    """Reject any draft outside the target's 20 most likely tokens; inside them, the standard test
    min(1, p(x)/q(x)) with the full p; after a rejection, the standard residual norm(max(0, p - q)) with the full p.
    "Top 20" is torch.topk of p (ties broken by its order); with 20 or fewer tokens in the vocabulary it is all of
    them, and the rule is `verify`."""
    check_shapes(target_probs, draft_probs, draft_tokens)

    def accept(i: int, x: int) -> float:
        if not bool(_top_n_mask(target_probs[i])[x]):
            return 0.0
        return accept_probability(float(target_probs[i, x]), float(draft_probs[i, x]))

    return verify_chain(target_probs, draft_tokens, accept,
                        lambda i: residual_distribution(target_probs[i], draft_probs[i]),
                        generator=generator, uniforms=uniforms)


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
    (H in nats; acceptance probability 1 or 0, no coin flip decides). The token after the accepted run (after a
    rejection, or after all K) is the target's argmax, as in the paper ("we always greedily decode the first
    token") and Medusa's reference code (`generate_candidates` takes the argmax of the base model's logits).
    `fallback="sample"` samples it from p instead. Either way the output is not p: lossy by design, traded for
    longer accepted runs."""
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


def exact_match_rule(
    target_probs: torch.Tensor,
    draft_probs: torch.Tensor,
    draft_tokens: list[int],
    *,
    generator: torch.Generator | None = None,
    uniforms: list[float] | None = None,
) -> VerifyResult:
    """What transformers does for proposers without logits (prompt lookup): sample t ~ p and keep the draft x iff
    t = x, else emit t. A sample from p matches x with probability p(x), and a mismatched t is distributed as p
    without x, so this is the chain with accept(x) = p(x) and recover = norm(p with x removed): exactly `verify`
    with q a point mass on x (max(0, p − δ_x) is p with x removed). Exact, whatever the proposer's real q; it
    ignores q, so a proposer with a real q gets its drafts kept less often than under the exact rule.

    >>> p = torch.tensor([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]]); q = torch.tensor([[0.2, 0.7, 0.1]])
    >>> exact_match_rule(p, q, [1], uniforms=[0.29]).n_accepted  # u < p(x) = 0.3
    1
    >>> [round(x, 4) for x in exact_match_rule(p, q, [1], uniforms=[0.31]).next_dist.tolist()]
    [0.8571, 0.0, 0.1429]
    """
    check_shapes(target_probs, draft_probs, draft_tokens)

    def without_draft(i: int) -> torch.Tensor:
        return residual_distribution(target_probs[i], _point_mass(draft_tokens[i], target_probs.shape[-1]))

    return verify_chain(target_probs, draft_tokens, lambda i, x: float(target_probs[i, x]), without_draft,
                        generator=generator, uniforms=uniforms)


def _point_mass(token: int, vocab_size: int) -> torch.Tensor:
    return torch.nn.functional.one_hot(torch.tensor(token), vocab_size).float()


# ---- draft trees (`specviz.tree_verifier`) ------------------------------------------------------------------------
# A tree rule has the signature of `verify_tree` (target_probs (N+1, V), tree, *, generator, uniforms). The engine
# asks a tree rule how children are drafted: `takes_top_children` = True means the draft's top tokens, not samples of q.


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


tree_top_children.takes_top_children = True
tree_top_k_against_q.takes_top_children = True
