"""The exact rule for a draft tree: recursive rejection sampling over each node's children.

Start at the root with p' = p(root) and q' = the q the root's children were drafted from. Try the children in the
order they were drafted:

1. child x: draw u; accept x if u < min(1, p'(x) / q'(x)); then move to x, with p' = p(x) and q' = q at x;
2. on rejection: p' <- norm(max(0, p' - q')) (the *residual*), and q' <- q' without x, renormalised;
3. no child left: emit a *recovered* token from p' (or a *bonus* token from p at a leaf nobody rejected).

Where it comes from. SpecInfer (Miao et al. 2024) draws a node's children from q with replacement, so its q' stays
q after a rejection; Recursive Speculative Decoding (Jeon et al. 2024) draws them without replacement and removes
each rejected child from q', which is what step 2 does and what `specviz.engine.tree.grow_tree` drafts at temperature > 0.
EAGLE-2 (Li et al. 2024) takes the draft's top-k tokens as children instead: each is then a point mass (below). The
Proposers page's tree section (`specviz.ui.proposers.view.TREE_TEXT`) states this rule with the same citations.

Why it is exact. With children drawn from q *without replacement*, the i-th child is, given the ones before it, a
sample of q' (q with them removed). Each try is then one step of ordinary speculative sampling of p' with draft q':
accepted x contributes min(p', q'), and a rejection leaves exactly the missing mass, the residual, for the tries
after it. Unrolled, the emitted token follows p at every level, and the accepted child's subtree does the same
for the next token. With deterministic children (the draft's top tokens, and every greedy tree) each child is a
*point mass*: q' = δ_x, so x is accepted with p'(x) and the residual is p' without x; at temperature 0 that accepts
exactly the child equal to the target's argmax, giving the longest path the target itself would write.

A node copied from the context (prompt lookup, `specviz.engine.tree.graft_copy`) is deterministic in every tree:
a point mass, tried after its drafted siblings. Each try is still one step of speculative sampling of p' (the
drafted siblings were drawn from q before the copy was chosen, and the copy depends only on the context and on them),
so the rule stays exact with both kinds of children under one node.

The tempting mistake is to take the top-k children and still compare them with q: they were not drawn from q, so
min(1, p/q) corrects a distribution they do not have (`specviz.labs.exactness.rules.tree_top_k_against_q`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import torch

from specviz.engine.kinds import NodeStatus
from specviz.engine.sampling import sample
from specviz.engine.trace import TokenKind
from specviz.engine.tree import ROOT, DraftTree
from specviz.engine.verifier import accept_probability, replayed, residual_distribution


@dataclass
class TreeVerifyResult:
    """What the tree rule decided: the accepted `path` (nodes, first level first), every tested node in test order
    with its u and min(1, p'/q'), and the recovered or bonus token with the distribution it came from.
    `point_masses` says, per node of the tree, whether the rule tests it against a point mass q' = δ_x (a copied
    node, or a child not drawn from q), so keeps it with p'(x) whatever q(x) the draft gave it."""

    path: list[int]
    tested: list[int]
    uniforms: list[float]
    accept_probs: list[float]
    next_token: int
    next_kind: TokenKind  # RECOVERED or BONUS
    next_dist: torch.Tensor  # (V,)
    point_masses: list[bool] = field(default_factory=list)
    # (p'(x), q'(x)) per tested node in test order: what its min(1, p'/q') compared, the residuals its earlier
    # siblings left; they equal p(x) and the rule's q(x) for the first child tried
    used_probs: list[tuple[float, float]] = field(default_factory=list)

    @property
    def n_accepted(self) -> int:
        return len(self.path)

    def status(self, node: int) -> NodeStatus:
        """One node's verdict: on the accepted path, tested and rejected, or never tested."""
        if node in self.path:
            return NodeStatus.ACCEPTED
        return NodeStatus.REJECTED if node in self.tested else NodeStatus.NOT_REACHED


class TreeVerifier(Protocol):
    """What the engine calls to judge a tree: `verify_tree` below, or the Exactness lab's broken tree rule."""

    def __call__(self, target_probs: torch.Tensor, tree: DraftTree, *, generator: torch.Generator | None = None,
                 uniforms: Sequence[float] | None = None) -> TreeVerifyResult: ...


def point_mass(token: int, like: torch.Tensor) -> torch.Tensor:
    """δ_token, shaped and typed like `like` (V,)."""
    q = torch.zeros_like(like)
    q[token] = 1.0
    return q


def without(draft_probs: torch.Tensor, token: int) -> torch.Tensor:
    """q with `token` removed, renormalised: what the next child drawn without replacement follows.

    >>> without(torch.tensor([0.5, 0.25, 0.25]), 0).tolist()
    [0.0, 0.5, 0.5]
    """
    rest = draft_probs.clone()
    rest[token] = 0.0
    total = rest.sum()
    return rest / total if total > 0 else rest


def verify_tree(
    target_probs: torch.Tensor,  # (N+1, V): row 0 at the root, row j+1 at node j
    tree: DraftTree,
    *,
    generator: torch.Generator | None = None,
    uniforms: Sequence[float] | None = None,
    compare_with_q: bool | None = None,
) -> TreeVerifyResult:
    """Recursive rejection sampling down the tree (see the module docstring). Children drawn from q
    (`tree.sampled`) are compared with q' (q without the children tried before); deterministic children with point
    masses. `compare_with_q` overrides that choice (only the Exactness lab's tree rules do, exact and broken).
    `uniforms` replays fixed draws, one per tested node in test order; otherwise they come from `generator`,
    followed by the one draw that samples the recovered or bonus token.

    >>> p = torch.tensor([[0.1, 0.6, 0.3], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # at the root, node 0, node 1
    >>> q = torch.tensor([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])  # children 0 then 1, drawn from q
    >>> r = verify_tree(p, DraftTree([0, 1], [ROOT, ROOT], q), uniforms=[0.5, 0.1])
    >>> r.path, r.tested, [round(a, 2) for a in r.accept_probs], r.next_kind.value, r.next_token
    ([1], [0, 1], [0.2, 0.25], 'bonus', 2)

    Child 0 is kept with min(1, 0.1/0.5) = 0.2 and u = 0.5 rejects it; then p' = norm(max(0, p - q)) = (0, ¼, ¾) and
    q' = q without 0 = δ_1, so child 1 is kept with ¼ (u = 0.1 accepts it), and node 1's bonus comes from its p.
    """
    if target_probs.dim() != 2 or target_probs.shape[0] != len(tree) + 1:
        raise ValueError(f"A tree verifier needs N+1 target rows for a tree of N={len(tree)} nodes.")
    with_q = tree.sampled if compare_with_q is None else compare_with_q
    path, tested, used, accept_probs, used_probs = [], [], [], [], []
    point_masses = [not with_q or tree.is_copied(j) for j in range(len(tree))]  # the `from_q` below, per node
    node, residual = ROOT, target_probs[0]
    while True:
        children = tree.children(node)
        drawn = [c for c in children if not tree.is_copied(c)]
        draft = tree.draft_probs[drawn[0]] if drawn else None
        for child in children:
            x = tree.tokens[child]
            from_q = with_q and not tree.is_copied(child)  # a copied node is deterministic: a point mass
            q = draft if from_q else point_mass(x, residual)
            used_probs.append((float(residual[x]), float(q[x])))
            accept_probs.append(accept_probability(*used_probs[-1]))
            used.append(float(replayed(uniforms, len(used))) if uniforms is not None
                        else float(torch.rand((), generator=generator)))
            tested.append(child)
            if used[-1] < accept_probs[-1]:
                break
            residual = residual_distribution(residual, q)
            if from_q:
                draft = without(draft, x)
        else:  # no child accepted (or none drafted): the recovered or bonus token, and the step ends
            kind = TokenKind.RECOVERED if children else TokenKind.BONUS
            return TreeVerifyResult(path, tested, used, accept_probs, sample(residual, generator), kind, residual,
                                    point_masses, used_probs)
        path.append(child)
        node, residual = child, target_probs[child + 1]


def greedy_tree_path(target_probs: torch.Tensor, tree: DraftTree) -> tuple[list[int], int]:
    """The plain reference for temperature 0: follow the child equal to the target's argmax while there is one;
    return that path and the target's argmax after it (the token greedy decoding writes next)."""
    path, node, row = [], ROOT, 0
    while True:
        best = int(target_probs[row].argmax())
        match = [c for c in tree.children(node) if tree.tokens[c] == best]
        if not match:
            return path, best
        node = match[0]
        path.append(node)
        row = node + 1
