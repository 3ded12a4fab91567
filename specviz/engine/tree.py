"""Draft trees (SpecInfer, EAGLE-2): many guesses per position, scored by the target in one forward.

A `DraftTree` hangs below the *root*, the sequence's last token (the one the next step feeds). Node j holds a drafted
token, its parent (-1 = the root) and q, the draft distribution of its parent's position that it was drafted from.
Nodes are numbered parents first; siblings keep the order they were drafted in, which is the order the verifier
tries them (`specviz.engine.tree_verifier`).

The target reads the whole tree in one forward: every node sees the context, the root and its own ancestors, never
its siblings or cousins (`tree_attention_mask`), and sits at the position its depth gives it (`tree_positions`):

    root  x        depth 0     position r
     |-- a         depth 1     r + 1        a sees: context, x, a
     |   `-- c     depth 2     r + 2        c sees: context, x, a, c
     `-- b         depth 1     r + 1        b sees: context, x, b

`grow_tree` drafts a tree EAGLE-2 style: level by level, it expands the nodes whose cumulative draft probability is
highest. Sampled trees (temperature > 0): how many children a node gets is fixed *before* they are drawn (from the
node budget and the width), and drawn children are never pruned: the children of a node are then an honest sample of
q without replacement, which is what the exact tree rule needs (see `specviz.engine.tree_verifier`). Greedy trees
rerank, as EAGLE-2 does: each level expands the `width` best new nodes with `width` children each, and the tree keeps
the `max_nodes` candidates of highest cumulative draft probability, wherever they are; the budget goes deep where
the drafter is sure and wide where it is not. A greedy check needs nothing of how the children were chosen.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch

from specviz.engine.sampling import point_masses, top_tokens

ROOT = -1  # the parent of the first level: the sequence's last token


@dataclass
class DraftTree:
    """N drafted nodes below the root. `draft_probs[j]` is q at node j's parent (V,): what node j was drafted from.

    `sampled` says how children were chosen: True = drawn from q without replacement (the exact rule compares them
    with q); False = the draft's top tokens, deterministic (the exact rule treats each as a point mass).

    >>> tree = DraftTree([7, 8, 9], [ROOT, ROOT, 0], torch.zeros(3, 10))
    >>> tree.depths, tree.children(ROOT), tree.path_to(2)
    ([1, 1, 2], [0, 1], [0, 2])
    """

    tokens: list[int]
    parents: list[int]
    draft_probs: torch.Tensor  # (N, V)
    sampled: bool = True
    scores: list[float] = field(default_factory=list)  # cumulative draft log-probability of each node; nan: copied
    # after reranking (`rerank_tree`, every greedy tree, even one that dropped no candidate): the number each kept
    # node had among the candidates the drafter read (a proposer whose cache holds every candidate renumbers it);
    # empty for a sampled tree (`grow_tree` keeps every node it draws)
    candidate_ids: list[int] = field(default_factory=list)
    # per node, True = copied from the context by prompt lookup (`graft_copy`): deterministic, its q a point mass,
    # whatever `sampled` says of the drafted nodes; empty = no node was copied
    copied: list[bool] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.parents) != len(self.tokens) or self.draft_probs.shape[0] != len(self.tokens):
            raise ValueError("A draft tree needs one parent and one q row per node.")
        if any(not ROOT <= parent < j for j, parent in enumerate(self.parents)):
            raise ValueError("A draft tree lists every parent before its children.")
        if self.copied and len(self.copied) != len(self.tokens):
            raise ValueError("A draft tree marks every node as copied or not, or none.")

    def is_copied(self, node: int) -> bool:
        """True when `node` was copied from the context (prompt lookup), not drafted."""
        return bool(self.copied) and self.copied[node]

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def depths(self) -> list[int]:
        """Depth of each node: 1 for the root's children."""
        depths: list[int] = []
        for parent in self.parents:
            depths.append(1 if parent == ROOT else depths[parent] + 1)
        return depths

    @property
    def depth(self) -> int:
        return max(self.depths, default=0)

    def children(self, node: int) -> list[int]:
        """The children of `node` (ROOT for the first level), in the order they were drafted."""
        return [j for j, parent in enumerate(self.parents) if parent == node]

    def path_to(self, node: int) -> list[int]:
        """The nodes from the first level down to `node`, inclusive."""
        path = []
        while node != ROOT:
            path.append(node)
            node = self.parents[node]
        return path[::-1]

    def ancestors(self) -> torch.Tensor:
        """Bool (N, N): [j, i] is True when node i is node j or one of its ancestors."""
        n = len(self)
        seen = torch.eye(n, dtype=torch.bool)
        for j, parent in enumerate(self.parents):
            if parent != ROOT:
                seen[j] |= seen[parent]
        return seen


def chain_tree(tokens: list[int], draft_probs: torch.Tensor, sampled: bool = True) -> DraftTree:
    """K chained drafts as a tree of width 1: the chain is the special case.

    >>> chain_tree([4, 5, 6], torch.zeros(3, 8)).parents
    [-1, 0, 1]
    """
    return DraftTree(list(tokens), list(range(-1, len(tokens) - 1)), draft_probs, sampled)


def tree_positions(tree: DraftTree, root_position: int) -> torch.Tensor:
    """Position ids of the root and every node (N+1,): the root's, plus each node's depth.

    >>> tree_positions(DraftTree([7, 8, 9], [ROOT, ROOT, 0], torch.zeros(3, 10)), 5).tolist()
    [5, 6, 6, 7]
    """
    return torch.tensor([root_position] + [root_position + d for d in tree.depths], dtype=torch.long)


def tree_attention_mask(tree: DraftTree, past: int) -> torch.Tensor:
    """Bool (N+1, past + N+1), True = may attend. Row 0 is the root: it sees the `past` cached positions and itself.
    Row j+1 is node j: it sees the past, the root, its ancestors and itself, never a sibling or a cousin.

    >>> tree_attention_mask(DraftTree([7, 8, 9], [ROOT, ROOT, 0], torch.zeros(3, 10)), past=1).int().tolist()
    [[1, 1, 0, 0, 0], [1, 1, 1, 0, 0], [1, 1, 0, 1, 0], [1, 1, 1, 0, 1]]
    """
    n = len(tree)
    mask = torch.zeros(n + 1, past + n + 1, dtype=torch.bool)
    mask[:, : past + 1] = True  # everyone sees the context and the root
    mask[1:, past + 1:] = tree.ancestors()
    return mask


def mask_rows(parents: Sequence[int]) -> list[list[int]]:
    """The tree attention mask over the root and nodes with these `parents` (ROOT for the root's children), with no
    cached context, as 0/1 rows (N+1, N+1): what a page draws, from the same `tree_attention_mask` the engine runs.

    >>> mask_rows([ROOT, ROOT, 0])
    [[1, 0, 0, 0], [1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 0, 1]]
    """
    tree = DraftTree([0] * len(parents), list(parents), torch.zeros(len(parents), 1))
    return tree_attention_mask(tree, past=0).int().tolist()


def sample_without_replacement(probs: torch.Tensor, m: int, generator: torch.Generator | None) -> list[int]:
    """m distinct tokens drawn one after another from probs (V,), each from what is left, renormalised: the order
    is the draw order. m must not exceed the number of tokens with positive probability."""
    return torch.multinomial(probs, m, replacement=False, generator=generator).tolist()


Expand = Callable[[DraftTree, list[int]], torch.Tensor]  # (tree so far, nodes to expand) -> draft logits (F, V)


def grow_tree(expand: Expand, *, max_nodes: int, max_depth: int, width: int, probs: Callable, sampled: bool,
              generator: torch.Generator | None, stop_tokens: frozenset[int] = frozenset()) -> DraftTree:
    """Draft a tree EAGLE-2 style: level by level, expand the (at most `width`) newest nodes with the highest
    cumulative draft probability, each with up to `width` children, within `max_nodes` nodes and `max_depth` levels.
    A greedy tree (`sampled` False) is reranked (`rerank_tree`); what follows is the sampled tree.

    `expand(tree, nodes)` runs the drafter once over `nodes` (ROOT for the first level) and returns their draft
    logits (F, V); `probs` turns logits into q (the sampling settings). Children are drawn from q without
    replacement. Each level gets an even share of the nodes left, so the tree can reach `max_depth`; a node's number
    of children is fixed before any is drawn. Nodes in `stop_tokens` (end-of-text) are never expanded: nothing after
    them is emitted. The cumulative probability ranks with the
    draft's own confidence (temperature 1), as EAGLE-2 does, so it means the same under greedy decoding.
    """
    if not sampled:
        return rerank_tree(expand, max_nodes=max_nodes, max_depth=max_depth, width=width, probs=probs,
                           stop_tokens=stop_tokens)
    tokens, parents, rows, scores = [], [], [], []
    frontier, score_of = [ROOT], {ROOT: 0.0}
    for level in range(max_depth):
        share = math.ceil((max_nodes - len(tokens)) / (max_depth - level))
        counts = _children_counts(len(frontier), width, share)
        frontier = frontier[: len(counts)]
        if not frontier:
            break
        logits = _level_logits(expand, DraftTree(tokens, parents, torch.empty(len(tokens), 0), True, scores), frontier)
        log_norm = torch.logsumexp(logits, dim=-1)  # log-softmax(row)[x] = row[x] - log_norm: no (F, V) copy
        newest = []
        for node, row, m, norm in zip(frontier, logits, counts, log_norm.tolist()):
            q = probs(row)
            for x in sample_without_replacement(q, min(m, int((q > 0).sum())), generator):
                score_of[len(tokens)] = score_of[node] + float(row[x]) - norm
                newest.append(len(tokens))
                tokens.append(int(x))
                parents.append(node)
                rows.append(q)
                scores.append(score_of[len(tokens) - 1])
        open_nodes = [j for j in newest if tokens[j] not in stop_tokens]
        frontier = sorted(open_nodes, key=lambda j: -score_of[j])[:width]
    draft_probs = torch.stack(rows) if rows else torch.zeros(0, 0)
    return DraftTree(tokens, parents, draft_probs, True, scores)


def _level_logits(expand: Expand, tree: DraftTree, frontier: list[int]) -> torch.Tensor:
    """One drafter pass over `frontier` (the tree so far, q rows not yet made): their draft logits (F, V), float32,
    on the CPU, whether `expand` returned a tensor or one row per node."""
    rows_out = expand(tree, frontier)
    return (rows_out if isinstance(rows_out, torch.Tensor) else torch.stack(list(rows_out))).float().cpu()


def rerank_tree(expand: Expand, *, max_nodes: int, max_depth: int, width: int, probs: Callable,
                stop_tokens: frozenset[int] = frozenset()) -> DraftTree:
    """EAGLE-2's greedy tree. Expand: each of `max_depth` levels gives the (at most `width`) best new nodes their
    `width` top tokens as candidates (largest logit first, equal logits in token order, `top_tokens`: the first is
    the token the greedy q is a point mass on), one drafter pass per level. Rerank: keep the `max_nodes` candidates
    with the highest cumulative draft log-probability (ties: the earlier candidate). A child never scores above its
    parent and comes after it, so every kept node's ancestors are kept too, and a node that already scores no better
    than `max_nodes` other candidates is not expanded (none of its children could be kept): the same tree, fewer rows
    through the drafter.

    >>> rows = {ROOT: [0.0, 5.0, 4.9, -9.0], 0: [9.0, 0.0, 0.0, 0.0], 1: [3.0, 2.9, 0.0, 0.0]}
    >>> expand = lambda tree, nodes: torch.tensor([rows[min(n, 1)] for n in nodes])
    >>> tree = rerank_tree(expand, max_nodes=3, max_depth=2, width=2, probs=lambda row: row.softmax(-1))
    >>> tree.tokens, tree.parents, tree.candidate_ids
    ([1, 2, 0], [-1, -1, 0], [0, 1, 2])
    """
    tokens, parents, scores, row_of = [], [], [], {}
    frontier = [ROOT]
    for _ in range(max_depth):
        if not frontier:
            break
        logits = _level_logits(expand, DraftTree(tokens, parents, torch.empty(len(tokens), 0), False, scores), frontier)
        # ties in index order, so a node's first child is the token its greedy q is a point mass on
        top_values, top_index = top_tokens(logits, min(width, logits.shape[-1]))
        log_q = (top_values - torch.logsumexp(logits, dim=-1, keepdim=True)).tolist()  # draft confidence, T = 1
        newest = []
        for node, row, kids, kid_logq in zip(frontier, logits, top_index.tolist(), log_q):
            row_of[node] = row  # q for its children, made only if one of them is kept
            base = scores[node] if node != ROOT else 0.0
            for x, lq in zip(kids, kid_logq):
                newest.append(len(tokens))
                tokens.append(int(x))
                parents.append(node)
                scores.append(base + lq)
        # a node scoring no better than the max_nodes-th candidate so far cannot have a kept child: not expanded
        bar = sorted(scores, reverse=True)[max_nodes - 1] if len(scores) >= max_nodes else -math.inf
        open_nodes = [j for j in newest if tokens[j] not in stop_tokens and scores[j] > bar]
        frontier = sorted(open_nodes, key=lambda j: -scores[j])[:width]
    kept = sorted(sorted(range(len(tokens)), key=lambda j: (-scores[j], j))[:max_nodes])
    number = {old: new for new, old in enumerate(kept)} | {ROOT: ROOT}
    q_of = {node: probs(row_of[node]) for node in dict.fromkeys(parents[j] for j in kept)}
    draft_probs = torch.stack([q_of[parents[j]] for j in kept]) if kept else torch.zeros(0, 0)
    return DraftTree([tokens[j] for j in kept], [number[parents[j]] for j in kept], draft_probs, False,
                     [scores[j] for j in kept], kept)


def graft_copy(tree: DraftTree, copy: Sequence[int], vocab_size: int,
               stop_tokens: frozenset[int] = frozenset()) -> DraftTree:
    """Hang a continuation copied from the context (prompt lookup, `specviz.engine.proposers.ngram.prompt_lookup`)
    on the tree as one more branch: walk down from the root while a drafted child already holds the next copied
    token, then add the rest as a chain of *copied* nodes, numbered after every drafted node. A copied node is
    deterministic, so its q is a point mass and the tree rule tries it after its drafted siblings
    (`specviz.engine.tree_verifier`); the copy ends at its first stop token (end of text), as drafts do.
    Fusing a retrieved branch into the drafter's tree is RASD's idea (Quan et al. 2025); SAM-Decoding (Hu et al.
    2024) instead chooses one source per step: retrieval when the suffix match is long enough, else the drafter.

    >>> tree = DraftTree([7, 8], [ROOT, 0], torch.zeros(2, 10), sampled=False)
    >>> grown = graft_copy(tree, [7, 9, 3], vocab_size=10)
    >>> grown.tokens, grown.parents, grown.copied, grown.draft_probs[3].tolist()[3]
    ([7, 8, 9, 3], [-1, 0, 0, 2], [False, False, True, True], 1.0)
    """
    cut = next((i + 1 for i, token in enumerate(copy) if token in stop_tokens), len(copy))
    copy = [int(token) for token in copy[:cut]]
    tokens, parents = list(tree.tokens), list(tree.parents)
    copied = list(tree.copied) or [False] * len(tokens)
    node, i = ROOT, 0
    while i < len(copy):
        shared = next((c for c in tree.children(node) if tokens[c] == copy[i]), None)
        if shared is None:
            break
        node, i = shared, i + 1
    added = copy[i:]  # nothing hangs below a stop token: the copy ends at its first one
    if not added:
        return tree
    rows = point_masses(added, tree.draft_probs.shape[-1] if len(tree) else vocab_size,
                        tree.draft_probs.dtype if len(tree) else torch.float32)
    for token in added:
        tokens.append(token)
        parents.append(node)
        copied.append(True)
        node = len(tokens) - 1
    scores = list(tree.scores) + [math.nan] * len(added) if tree.scores else []
    draft_probs = torch.cat([tree.draft_probs, rows]) if len(tree) else rows
    return DraftTree(tokens, parents, draft_probs, tree.sampled, scores, list(tree.candidate_ids), copied)


def _children_counts(n_frontier: int, width: int, share: int) -> list[int]:
    """How many children each frontier node gets, best first: `width` each until the level's share runs out.

    >>> _children_counts(4, 3, 7)
    [3, 3, 1]
    """
    counts = []
    for _ in range(n_frontier):
        m = min(width, share - sum(counts))
        if m <= 0:
            break
        counts.append(m)
    return counts
