"""The registry of rules: each rule's name, label and explanation, and the closed form of what it emits.

`RULES` maps a name to a `Rule`; `get_rule` finds an entry by name, entry or function. `one_step(p, q)` is the
closed form of the first emitted token's distribution for K = 1 with the draft x ~ q, so the app can draw what a
rule outputs next to p without sampling, and the tests can check the samples against it.
p = target, q = draft throughout.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from specviz.labs.exactness.rules import (TOP_N_ONLY, VerifierFn, _top_n_mask, accept_all, accept_if_p_ge_q,
                                          exact_match_rule, resample_from_target, target_top20_only, tree_top_children,
                                          tree_top_k_against_q, typical_acceptance, typical_threshold)
from specviz.core.i18n import N_, _
from specviz.engine.tree_verifier import TreeVerifier, verify_tree, without
from specviz.engine.verifier import accept_probability, residual_distribution, verify

if TYPE_CHECKING:
    from specviz.engine.decoding import TreeVerification

# ---- closed forms: what each rule emits in one step with K = 1, the draft x ~ q ----------------------------------


def _check_vectors(p: torch.Tensor, q: torch.Tensor) -> None:
    if p.dim() != 1 or p.shape != q.shape:
        raise ValueError(_("p and q must be probability vectors (V,) of the same length."))


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


OneStep = Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, float]]


@dataclass(frozen=True)
class Rule:
    """A verification rule and what the app says about it. `one_step(p, q)` is the closed form of the first
    emitted token's distribution for K = 1 with x ~ q, plus the chance that the draft is kept."""

    name: str
    label: str
    function: VerifierFn
    exact: bool
    explanation: str
    one_step: OneStep
    breaks_from: int = 2  # a rule that is not exact: the fewest vocabulary tokens on which its output can differ from p

    def can_break(self, tokens: int) -> bool:
        """Whether this rule, if not exact, can emit something other than p over a vocabulary of `tokens` tokens
        (the top-20 rule cannot on 20 or fewer: there it is the exact rule)."""
        return not self.exact and tokens >= self.breaks_from

    def exact_with_top_k(self, top_k: int, temperature: float = 1.0) -> bool:
        """Whether this rule emits p at every position when sampling keeps the `top_k` most likely tokens (0 = off)
        at `temperature`: an exact rule always, and the top-20 rule when top-k is 1 to 20, since p then has no mass
        outside its top 20 (barring ties at the k-th logit) and the rule is `verify`. Read 48: whole continuations
        at top-k 20 said this rule was "not exact" beside its own explanation saying it is exact there.

        At temperature 0 p is a point mass on the target's top token, and every rule but accepting every draft
        emits it (the page's temperature help says so; tests/labs/test_exactness.py checks each rule's closed form
        on point masses): read 48 review, whole continuations at 0 called the broken rules "not exact" there.

        Top-p changes neither answer, so it is no argument. It only drops tokens from those top-k kept, so a top-k
        of 20 or fewer stays exact under any top-p; and alone it bounds the share of p kept, not the number of
        tokens (p spread evenly over 1,000 tokens keeps 50 of them at top-p 0.05, the lab's least), so with top-k
        off the top-20 rule can still drift whatever the top-p (read 48 review: "ignores top-p").

        >>> RULES["target_top20_only"].exact_with_top_k(20), RULES["target_top20_only"].exact_with_top_k(0)
        (True, False)
        >>> RULES["accept_all"].exact_with_top_k(1), RULES["exact"].exact_with_top_k(0)
        (False, True)
        >>> RULES["accept_if_p_ge_q"].exact_with_top_k(0, 0.0), RULES["accept_all"].exact_with_top_k(0, 0.0)
        (True, False)
        """
        if temperature == 0:
            return self.name != "accept_all"
        return self.exact or (self.name == "target_top20_only" and 0 < top_k <= TOP_N_ONLY)


# One row a rule: the function that runs it, whether it is exact (its output is distributed as p), the closed form
# of its first emitted token (K = 1, x ~ q), and its label. Then what each rule does, and why it is or is not exact.
_RULE_PARTS: dict[str, tuple[VerifierFn, bool, OneStep, str]] = {
    "exact": (verify, True, _exact_one_step, N_("Exact rule (Leviathan / Chen)")),
    "accept_all": (accept_all, False, _accept_all_one_step, N_("Broken: accept every draft")),
    "resample_from_target": (resample_from_target, False, _resample_one_step, N_("Broken: resample from p on rejection")),
    "accept_if_p_ge_q": (accept_if_p_ge_q, False, _p_ge_q_one_step, N_("Broken: accept iff p(x) ≥ q(x)")),
    "target_top20_only": (target_top20_only, False, _top20_one_step, N_("Broken: reject outside the target's top 20")),
    "typical_acceptance": (typical_acceptance, False, _typical_one_step, N_("Lossy: Medusa's typical acceptance")),
    "exact_match": (exact_match_rule, True, _exact_match_one_step, N_("Exact: sample from p, keep the draft if it matches")),
}
_RULE_EXPLANATIONS: dict[str, str] = {
    "exact": N_("Accept the draft x with probability min(1, p(x)/q(x)); at the first rejection sample from "
                "norm(max(0, p − q)). The accepted part contributes min(p, q) and the recovered part tops it up with "
                "exactly the missing max(0, p − q), so every emitted token is distributed as p."),
    "accept_all": N_("Keep every drafted token without looking at p. The emitted tokens are then the draft's "
                     "samples: the output follows q, and only the bonus token comes from p. Fast (every draft "
                     "kept) and wrong: the first emitted token's distribution is exactly TV(p, q) away from p (the "
                     "one-step drift). A whole continuation drifts at least that far, and usually further once a "
                     "step keeps two or more drafts, since each of them follows q."),
    "resample_from_target": N_("The accept test is right, but after a rejection it samples from p instead of the "
                               "residual. Tokens the draft over-proposes already get all of their p through "
                               "acceptance (min(p, q) = p where q > p) and can come out again, so they get "
                               "min(p, q) + (1 − Σ min(p, q))·p > p whenever q > p > 0: the output leans towards "
                               "the draft."),
    "accept_if_p_ge_q": N_("A deterministic shortcut: keep x when p(x) ≥ q(x), reject otherwise, with no coin flip. "
                           "A token with p(x) < q(x) is then never emitted at all: acceptance always turns it down, "
                           "and the residual norm(max(0, p − q)) gives it no mass either. The p(x) it should get "
                           "goes, through that residual, to the tokens with p > q."),
    "target_top20_only": N_("Reject every draft outside the target's 20 most likely tokens; inside them use the "
                            "standard test, and recover from the standard residual. Tokens outside the top 20 then "
                            "lose the min(p, q) acceptance would have given them and come out only through the "
                            "residual, which was sized for the other rejections: as a group they get at most the "
                            "mass p gives them, usually less, and the top tokens with p > q, which share that "
                            "residual, too much (top tokens with p ≤ q stay exact). It is exact when no token "
                            "outside the top 20 has both p > 0 and q > 0 (e.g. when top-k ≤ 20 leaves p no mass "
                            "there), and otherwise only in special cases, such as when the one token outside the top "
                            "20 with p > 0 holds all of p's excess over q."),
    "typical_acceptance": N_("Medusa (Cai et al. 2024) keeps x when p(x) > min(ε, δ·exp(−H(p))) (ε = 0.09, δ = 0.3) "
                             "and emits the target's argmax after the accepted run. Plausible tokens are always kept "
                             "and the rest replaced by the most likely one: meant for longer accepted runs, though at "
                             "some prompts it keeps fewer drafts than the exact rule, and the output is not p. Lossy "
                             "by design, not a bug."),
    "exact_match": N_("Sample t from p at each position; keep the draft iff it equals t, otherwise emit t. What "
                      "transformers does for prompt lookup, which has no q. Every emitted token is a sample from p, "
                      "so it is exact, for any proposer. It keeps a draft with chance Σ p(x)q(x): for a "
                      "deterministic proposer such as prompt lookup (q all on its guess x) that is p(x), the same as "
                      "Σ min(p, q); for a spread-out q it is less, unless p puts all its mass on "
                      "one token or p and q have no token in common."),
}
_BREAKS_FROM = {"target_top20_only": TOP_N_ONLY + 1}  # the others break on two tokens
RULES: dict[str, Rule] = {name: Rule(name, label, function, exact, _RULE_EXPLANATIONS[name], one_step,
                                     _BREAKS_FROM.get(name, 2))
                          for name, (function, exact, one_step, label) in _RULE_PARTS.items()}


# ---- draft trees: rules over a tree's children, with the closed form of one level ---------------------------------


@dataclass(frozen=True)
class TreeRule:
    """A rule for draft trees (the signature of `specviz.engine.tree_verifier.verify_tree`). `children` says how the
    children are drafted: "sampled" (from q without replacement) or "top" (the draft's top tokens);
    `compare_with_q` says whether the test divides by q' (True) or treats every child as a point mass (False)."""

    name: str
    label: str
    function: TreeVerifier
    exact: bool
    explanation: str
    children: str
    compare_with_q: bool

    def one_level(self, target_probs: torch.Tensor, draft_probs: torch.Tensor, width: int) -> torch.Tensor:
        """The closed form of the first emitted token (V,), float64, for a tree of one level with `width` children
        drafted from q, under this rule (by enumeration of the children: keep V small)."""
        p, q = _pq(target_probs, draft_probs)
        return _level(p, q, width, self.children == "sampled", self.compare_with_q)

    def verification(self) -> TreeVerification:
        """How the engine judges a tree by this rule, and drafts its children as the rule expects (the draft's top
        tokens at every temperature for a "top" rule); the tree's sizes are the run's `DraftShape`."""
        # the engine pulls in transformers (seconds): imported here, so the registry stays light
        from specviz.engine.decoding import TreeVerification

        return TreeVerification(self.function, top_children=self.children == "top")


def _level(p: torch.Tensor, q: torch.Tensor, width: int, sampled: bool, with_q: bool) -> torch.Tensor:
    """What the tree rule emits at a node with `width` children still to draw: every possible next child x (with
    its chance of being drawn), accepted with min(1, p(x)/q'(x)), or rejected, leaving the residual and q without x
    for the children after it."""
    if width == 0 or q.sum() <= 0:
        return p
    if sampled:
        draws = [(int(x), float(q[x])) for x in torch.nonzero(q).flatten()]
    else:
        draws = [(int(q.argmax()), 1.0)]
    out = torch.zeros_like(p)
    for x, chance in draws:
        tested = q if with_q else torch.nn.functional.one_hot(torch.tensor(x), p.shape[0]).double()
        accept = accept_probability(float(p[x]), float(tested[x]))
        out[x] += chance * accept
        if accept < 1:
            rest = _level(residual_distribution(p, tested), without(q, x), width - 1, sampled, with_q)
            out += chance * (1 - accept) * rest
    return out


# One row a tree rule: its function, exact or not, how the children are drafted, whether the test divides by q',
# and its label. Then what each one does.
_TREE_RULE_PARTS: dict[str, tuple[TreeVerifier, bool, str, bool, str]] = {
    "tree_sampled": (verify_tree, True, "sampled", True, N_("Exact tree rule: children sampled from q, recursive rejection")),
    "tree_top_children": (tree_top_children, True, "top", False, N_("Exact tree rule: top-k children as point masses")),
    "tree_top_k_against_q": (tree_top_k_against_q, False, "top", True, N_("Broken: top-k children verified against q")),
}
_TREE_RULE_EXPLANATIONS: dict[str, str] = {
    "tree_sampled": N_("Draw each node's children from q without replacement and try them in order: accept x with "
                       "min(1, p′(x)/q′(x)); on a rejection p′ becomes norm(max(0, p′ − q′)) and q′ loses x. Given "
                       "the children before it, each child is a sample of q′, so every try is one exact speculative "
                       "step of p′ with draft q′, and the rejections leave exactly the mass the later tries and the "
                       "recovered token need (Recursive Speculative Decoding, Jeon et al. 2024; SpecInfer draws with "
                       "replacement and keeps q′ = q)."),
    "tree_top_children": N_("Take the draft's top-k tokens as children and treat each as a point mass: accept x with "
                            "p′(x), otherwise remove x from p′ and try the next. A fixed guess is kept exactly as "
                            "often as p would have picked it. Exact for any guesses; at temperature 0 it keeps the "
                            "child equal to the target's argmax."),
    "tree_top_k_against_q": N_("Take the draft's top-k tokens as children but test them as if they had been drawn "
                               "from q: accept with min(1, p′(x)/q′(x)), residual norm(max(0, p′ − q′)). The "
                               "children are not distributed as q (the most likely token is always the first child), "
                               "so min(1, p/q) corrects for a distribution they do not follow: the draft's favourite, "
                               "always tried first, comes out at least as often as p gives it, usually more, and the "
                               "rest of p is shared out wrongly (some tokens too rarely, some too often). The "
                               "tempting mistake when a greedy tree is reused at temperature > 0."),
}
TREE_RULES: dict[str, TreeRule] = {
    name: TreeRule(name, label, function, exact, _TREE_RULE_EXPLANATIONS[name], children, compare_with_q)
    for name, (function, exact, children, compare_with_q, label) in _TREE_RULE_PARTS.items()
}


def get_rule(rule: str | Rule | VerifierFn) -> Rule:
    """A registry entry from its name, the entry itself, or one of the rule functions."""
    if isinstance(rule, Rule):
        return rule
    if isinstance(rule, str):
        if rule not in RULES:
            raise ValueError(_("Unknown rule '{rule}': choose one of {choices}.", rule=rule, choices=", ".join(RULES)))
        return RULES[rule]
    for entry in RULES.values():
        if entry.function is rule:
            return entry
    raise ValueError(_("This verifier is not one of specviz's registered rules."))


def _verifier_of(rule: str | Rule | VerifierFn) -> VerifierFn:
    """The function to run for a rule given by name or entry; any other callable is taken as the verifier."""
    return get_rule(rule).function if isinstance(rule, (str, Rule)) else rule


def one_step_distribution(rule: str | Rule | VerifierFn, target_probs: torch.Tensor,
                          draft_probs: torch.Tensor) -> tuple[torch.Tensor, float]:
    """The closed form of the first token one step emits (K = 1, x ~ q) under `rule`, float64 (V,), and the
    rule's chance of keeping the draft: the acceptance probability β = Σ min(p, q) at this p, q under the rules
    whose accept test is min(1, p/q) (the exact rule and resample-from-p), another rule's own chance otherwise.

    >>> import torch
    >>> p, q = torch.tensor([0.5, 0.3, 0.2]), torch.tensor([0.2, 0.6, 0.2])
    >>> dist, alpha = one_step_distribution("resample_from_target", p, q)
    >>> [round(x, 2) for x in dist.tolist()], round(alpha, 2)
    ([0.35, 0.39, 0.26], 0.7)
    """
    return get_rule(rule).one_step(*_pq(target_probs, draft_probs))
