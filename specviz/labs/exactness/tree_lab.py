"""The Exactness lab's tree experiment: one level of a draft tree, many times, under a tree rule.

    result = tree_lab(dists, "tree_top_k_against_q", width=2, n=2000, seed=0)   # a `LabResult`, as the chain's

Each simulated step drafts `width` children below the root (fewer when q has fewer tokens) the way the rule drafts
them (sampled from q without replacement, or the draft's top tokens), lets the rule judge them, and counts the first emitted token: the kept
child, or the recovered token when every child was rejected. The samples go against p, as the chain's one-step
experiment does (`specviz.labs.exactness.lab.one_step_lab`), and `TreeRule.one_level` is their closed form. Deeper
levels only decide the later tokens, which tests/engine/test_tree_exactness.py checks with the engine itself.
p = target, q = draft throughout.
"""

from __future__ import annotations

import torch

from specviz.core.i18n import _, given, ngettext
from specviz.engine.generation import one_torch_thread
from specviz.engine.tree import ROOT, DraftTree, sample_without_replacement
from specviz.labs.exactness.experiments import OneStepSamples, target_samples
from specviz.labs.exactness.lab import LabResult, StepDistributions
from specviz.labs.exactness.registry import TREE_RULES, TreeRule
from specviz.labs.exactness.stats import tv_distance

CLOSED_FORM_LIMIT = 50_000  # orderings of sampled children worth enumerating for the closed form (V ** width)


def tree_rule(rule: str | TreeRule) -> TreeRule:
    """A tree rule by name (or the entry itself); an unknown name is a ValueError with one sentence."""
    if isinstance(rule, TreeRule):
        return rule
    if rule not in TREE_RULES:
        raise ValueError(_("Unknown tree rule '{rule}': choose one of {choices}.", rule=rule,
                           choices=", ".join(TREE_RULES)))
    return TREE_RULES[rule]


def one_level_samples(target_probs: torch.Tensor, draft_probs: torch.Tensor, rule: str | TreeRule, width: int,
                      n: int, generator: torch.Generator | None = None) -> OneStepSamples:
    """n simulated tree steps of one level with `width` children (fewer when q has fewer tokens): the first emitted
    token of each (n,), and whether it was a kept child.

    >>> p, q = torch.tensor([0.5, 0.5, 0.0]), torch.tensor([0.8, 0.1, 0.1])
    >>> s = one_level_samples(p, q, "tree_top_children", 2, 400, torch.Generator().manual_seed(0))
    >>> [round(x, 1) for x in (s.counts.double() / s.n).tolist()]
    [0.5, 0.5, 0.0]
    """
    entry = tree_rule(rule)
    if isinstance(width, bool) or int(width) != width or width < 1:
        raise ValueError(_("A tree level needs at least one child (got {width}).", width=given(width)))
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(_("The number of samples must be a positive whole number (got {n}).", n=given(n)))
    p, q = (torch.as_tensor(x, dtype=torch.float32) for x in (target_probs, draft_probs))
    sampled = entry.children == "sampled"
    m = min(int(width), int((q > 0).sum()))
    rows = p.expand(m + 1, -1)  # p at the root and below each child (a leaf's bonus never decides the first token)
    top = torch.topk(q, m).indices.tolist()
    tokens = torch.empty(int(n), dtype=torch.int64)
    kept = torch.empty(int(n), dtype=torch.bool)
    for j in range(int(n)):
        children = sample_without_replacement(q, m, generator) if sampled else top
        verdict = entry.function(rows, DraftTree(children, [ROOT] * m, q.expand(m, -1), sampled), generator=generator)
        kept[j] = bool(verdict.path)
        tokens[j] = children[verdict.path[0]] if verdict.path else verdict.next_token
    return OneStepSamples(tokens, kept, p.shape[0])


def one_level_drift(rule: str | TreeRule, target_probs: torch.Tensor, draft_probs: torch.Tensor,
                    width: int) -> float | None:
    """TV(what one level emits under the rule, p), from the closed form; None where enumerating every order of
    sampled children would take too long (a large vocabulary)."""
    entry = tree_rule(rule)
    if entry.children == "sampled" and int((draft_probs > 0).sum()) ** width > CLOSED_FORM_LIMIT:
        return None
    return tv_distance(entry.one_level(target_probs, draft_probs, width), target_probs)


def tree_lab(dists: StepDistributions, rule: str | TreeRule, width: int, n: int, seed: int) -> LabResult:
    """n simulated one-level tree steps with the rule on the real p and q at the prompt, next to n draws from p."""
    p, q = dists.target_probs, dists.draft_probs
    with one_torch_thread():
        samples = one_level_samples(p, q, rule, width, n, torch.Generator().manual_seed(seed))
        plain = target_samples(p, n, torch.Generator().manual_seed(seed + 1))
    # the children it drafted: no more than q has tokens (read 44: at temperature 0, or with top-k below the width,
    # the note said "with 4 children" of a level that had one)
    children = min(int(width), int((q > 0).sum()))
    note = ngettext("One level of a draft tree with {n} child, drafted as the rule drafts it; the rule decides and "
                    "the first emitted token is counted",
                    "One level of a draft tree with {n} children, drafted as the rule drafts them; the rule decides "
                    "and the first emitted token is counted", children)
    if dists.note:
        note = _("{note}. {coverage}", note=note, coverage=dists.note)
    return LabResult(p.double(), dists.texts, dists.token_ids, samples.tokens, plain, samples.acceptance_rate, note)
