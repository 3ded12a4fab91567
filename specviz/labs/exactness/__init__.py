"""Is the output really the target's? The exact rule next to rules that break it, and the experiments that tell
them apart.

Every rule has the signature of `specviz.engine.verifier.verify` (target_probs (K+1, V), draft_probs (K, V),
draft_tokens, *, generator, uniforms) and returns its `VerifyResult`, so the engine can run any of them. The
exact rule *is* `specviz.engine.verifier.verify`; `exact_match_rule` (what transformers does for proposers without
logits) is exact too; the others are deliberate mistakes (or, for Medusa's typical acceptance, a deliberate trade of
exactness for speed), each with the closed form of what it outputs instead. Of the tree rules, two are exact and one
is the tempting mistake.

This package only gathers the public names of six of its parts; the lab's own modules, `lab` (the Exactness page's
experiments), `tree_lab` (its tree experiment) and `sandbox` (the p/q sandbox), are imported by their paths. The six:
  rules          the rule functions (accept_all, resample_from_target, ..., exact_match_rule)
  registry       RULES, get_rule, one_step_distribution: each rule's label, explanation and closed form;
                 TREE_RULES: the rules for draft trees (exact and the tempting broken one), with one_level closed forms
  experiments    one_step_samples (n single steps with K = 1 on given p, q), target_samples, restrict_support
                 (p, q cut to the tokens that carry their mass: a 49k vocabulary makes sampling slow)
  engine         continuation_samples (N short continuations through the real engine, speculative and
                 target-only); exact_first_token_distribution / exact_two_token_distribution (the ground truth,
                 by enumeration)
  stats          chi_square_test, tv_distance, tv_curve: how far samples are from the truth
  decomposition  decompose_step (p = min(p, q) + (1 - alpha) norm(max(0, p - q)), for the stacked bars);
                 recorded_step (p, q as far as a trace's top-10 lists tell, with bounds on alpha)
p = target, q = draft throughout, both after temperature / top-k / top-p.
"""

from __future__ import annotations

from specviz.labs.exactness.decomposition import RecordedStep, StepDecomposition, decompose_step, recorded_step
from specviz.labs.exactness.engine import (ContinuationSamples, SequenceDistribution, continuation_samples,
                                      exact_first_token_distribution, exact_two_token_distribution,
                                      next_token_distributions, proposal_distribution)
from specviz.labs.exactness.experiments import OneStepSamples, Support, one_step_samples, restrict_support, target_samples
from specviz.labs.exactness.registry import RULES, TREE_RULES, Rule, TreeRule, get_rule, one_step_distribution
from specviz.labs.exactness.rules import (TOP_N_ONLY, TYPICAL_DELTA, TYPICAL_EPSILON, VerifierFn, accept_all,
                                     accept_if_p_ge_q, entropy, exact_match_rule, resample_from_target,
                                     target_top20_only, tree_top_children, tree_top_k_against_q, typical_acceptance,
                                     typical_threshold)
from specviz.labs.exactness.stats import (ArrayLike, ChiSquareResult, TVCurve, chi_square_test, expected_tv_exact,
                                     tv_curve, tv_distance)
from specviz.engine.verifier import VerifyResult, verify

__all__ = [
    # rules
    "TOP_N_ONLY", "TYPICAL_DELTA", "TYPICAL_EPSILON", "VerifierFn", "VerifyResult", "verify", "accept_all",
    "accept_if_p_ge_q", "entropy", "exact_match_rule", "resample_from_target", "target_top20_only",
    "typical_acceptance", "typical_threshold", "tree_top_children", "tree_top_k_against_q",
    # registry
    "RULES", "Rule", "TREE_RULES", "TreeRule", "get_rule", "one_step_distribution",
    # experiments
    "OneStepSamples", "Support", "one_step_samples", "restrict_support", "target_samples",
    # engine
    "ContinuationSamples", "SequenceDistribution", "continuation_samples", "exact_first_token_distribution",
    "exact_two_token_distribution", "next_token_distributions", "proposal_distribution",
    # stats
    "ArrayLike", "ChiSquareResult", "TVCurve", "chi_square_test", "expected_tv_exact", "tv_curve", "tv_distance",
    # decomposition
    "RecordedStep", "StepDecomposition", "decompose_step", "recorded_step",
]

# `doctest.testmod(specviz.labs.exactness)` looks only at objects defined in this file; point it at the parts' examples.
__test__ = {"entropy": entropy, "typical_threshold": typical_threshold, "one_step_distribution": one_step_distribution,
            "restrict_support": restrict_support, "tv_distance": tv_distance, "chi_square_test": chi_square_test,
            "decompose_step": decompose_step}
