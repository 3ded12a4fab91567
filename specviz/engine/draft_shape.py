"""What one speculative step drafts: a chain of K tokens, or a tree with a node budget, a width and a lookup branch.

    shape = DraftShape(k=4, tree_nodes=16, tree_width=4, tree_lookup=8)
    shape.label()              # 'tree 16x4 depth 4 + lookup 8': the identifier JSON files and --shapes read back
    shape.shown()              # 'tree 16×4 depth 4 + lookup 8': the same name as a person reads it (×, not x)
    shape.short()              # '16×4 + 8': a table's narrow "tree" column, beside its K column
    shape.describe()           # 'a tree of 16 nodes, depth 4, width 4, plus ...': in the reader's language
    shape.rows                 # 25: tokens the verification forward reads at most
    shape.holds                # 52: the most nodes a tree of depth 4 and width 4 can hold (4 + 3 · 4²)
    speculative_generate(target, draft, ids, shape=shape)  # or **shape.settings(), the four keywords

The fields have the names `speculative_generate`, `RunSpec` and the CLI flags use, so a shape passes straight to each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from specviz.core.i18n import _, ngettext, with_minus
from specviz.engine.limits import (K_RANGE, TREE_LOOKUP_RANGE, TREE_NODES_RANGE, TREE_WIDTH_RANGE,
                                   check_lookup_has_tree, is_whole)



def tree_holds(k: int, width: int) -> int:
    """The most drafted nodes a tree of depth `k` and width `width` can hold: `grow_tree` gives the root `width`
    children and then, at each of the other k − 1 levels, expands at most `width` nodes with at most `width`
    children each (EAGLE-2's tree), so width + (k − 1) · width². A larger node budget builds no larger tree.

    >>> tree_holds(1, 8), tree_holds(4, 2), tree_holds(4, 4)
    (8, 14, 52)
    """
    return width + (k - 1) * width * width


def over_holds(nodes: int, k: int, width: int, flag: str = "--tree-nodes", k_flag: str = "--k",
               width_flag: str = "--tree-width") -> str | None:
    """The sentence that refuses a node budget `nodes` above what a tree of depth `k` and width `width` holds
    (`tree_holds`), naming the flags (or link parameters) as the reader typed them; None when it fits. Read 55:
    `generate --k 1 --tree-nodes 64 --tree-width 8` built trees of 8 nodes a step without a word.

    >>> over_holds(64, 1, 8)
    '--tree-nodes 64 is more than a tree 1 deep and 8 wide can hold (8): give at most 8, or a larger --k or \
--tree-width.'
    >>> over_holds(8, 1, 8) is None
    True
    """
    most = tree_holds(k, width)
    if nodes <= most:
        return None
    return _("{flag} {nodes} is more than a tree {k} deep and {width} wide can hold ({most}): give at most {most}, "
             "or a larger {k_flag} or {width_flag}.", flag=flag, nodes=nodes, k=k, width=width, most=most,
             k_flag=k_flag, width_flag=width_flag)


def too_deep_or_wide(nodes: int, k: int, width: int) -> str | None:
    """`over_holds` in the app's words, for its number inputs (the Playground's tree, the race's tree lane), which
    name no flag: one sentence, or None when the tree holds `nodes`. Read 55: K 1, 16 nodes, width 4 ran trees of 4
    nodes a step, described as "a draft tree of up to 16 nodes".

    >>> too_deep_or_wide(16, 1, 4)
    'A tree 1 deep (K) and 4 wide holds at most 4 nodes, not 16: set its nodes to at most 4, or raise K or the width.'
    >>> too_deep_or_wide(4, 1, 4) is None, too_deep_or_wide(0, 1, 1) is None
    (True, True)
    """
    most = tree_holds(k, width)
    if nodes <= most:
        return None
    return _("A tree {k} deep (K) and {width} wide holds at most {held}, not {nodes}: set its nodes to at most {most}, "
             "or raise K or the width.", k=k, width=width, held=ngettext("{n} node", "{n} nodes", most),
             nodes=nodes, most=most)


# what `label()` writes, and `shown()` with "×"
_LABEL = re.compile(r"chain K=([0-9]+)|tree ([0-9]+)[x×]([0-9]+) depth ([0-9]+)(?: \+ lookup ([0-9]+))?"
                    r"(?: \([0-9]+ fit\))?")


@dataclass(frozen=True)
class DraftShape:
    """K (a chain's length, or the depth of a tree's drafted nodes) and a tree's node budget (0 = a chain of K),
    width (nodes expanded per level and children per node) and lookup branch (up to that many tokens copied from
    the context as one more branch, which may reach deeper than K; 0 = none; trees only)."""

    k: int = 4
    tree_nodes: int = 0
    tree_width: int = 4
    tree_lookup: int = 0

    def __post_init__(self) -> None:
        for name, (lo, hi) in (("k", K_RANGE), ("tree_nodes", TREE_NODES_RANGE), ("tree_width", TREE_WIDTH_RANGE),
                               ("tree_lookup", TREE_LOOKUP_RANGE)):
            value = getattr(self, name)
            if not is_whole(value) or not lo <= value <= hi:
                raise ValueError(f"{name} must be a whole number from {lo} to {hi} (got {with_minus(repr(value))}).")
        check_lookup_has_tree(self.tree_nodes, self.tree_lookup)

    @property
    def is_tree(self) -> bool:
        return self.tree_nodes > 0

    @property
    def rows(self) -> int:
        """Tokens one verification forward reads at most: the last token and the K drafts of a chain, or the root,
        the nodes of a tree and its lookup branch.

        >>> DraftShape(4).rows, DraftShape(4, 16, 4, 8).rows
        (5, 25)
        """
        return (self.tree_nodes or self.k) + (self.tree_lookup if self.tree_nodes else 0) + 1

    @property
    def holds(self) -> int:
        """The most nodes this tree can hold (`tree_holds`); a chain holds its K.

        >>> DraftShape(1, 64, 8).holds, DraftShape(3).holds
        (8, 3)
        """
        return tree_holds(self.k, self.tree_width) if self.tree_nodes else self.k

    def fitted(self) -> DraftShape:
        """The same shape with a node budget no larger than its tree holds (`holds`): the tree it drafts, as a shape
        the app's inputs and links accept (read 55: the committed shape table's "tree 16x2 depth 4" drafts trees of
        at most 14 nodes, and a page that set its 16 refused it).

        >>> DraftShape(4, 16, 2).fitted(), DraftShape(4, 16, 4, 8).fitted() == DraftShape(4, 16, 4, 8)
        (DraftShape(k=4, tree_nodes=14, tree_width=2, tree_lookup=0), True)
        """
        if not self.tree_nodes or self.tree_nodes <= self.holds:
            return self
        return DraftShape(self.k, self.holds, self.tree_width, self.tree_lookup)

    def settings(self) -> dict[str, int]:
        """The four fields by name, for `speculative_generate(**...)`, `RunSpec(**...)` and URLs."""
        return {"k": self.k, "tree_nodes": self.tree_nodes, "tree_width": self.tree_width,
                "tree_lookup": self.tree_lookup}

    def tree_settings(self) -> dict[str, int]:
        """What a trace's settings record of the shape beside K: nothing for a chain, so chain traces stay as they
        were; the lookup branch only when there is one, so earlier tree traces stay as they were too.

        >>> DraftShape(4).tree_settings(), DraftShape(4, 16, 4, 8).tree_settings()
        ({}, {'tree_nodes': 16, 'tree_width': 4, 'tree_lookup': 8})
        """
        if not self.tree_nodes:
            return {}
        lookup = {"tree_lookup": self.tree_lookup} if self.tree_lookup else {}
        return {"tree_nodes": self.tree_nodes, "tree_width": self.tree_width, **lookup}

    def label(self) -> str:
        """The shape's one plain name as an identifier: the "label" of committed JSON rows, what `from_label` reads
        back. A person reads it as `shown()` writes it, with "×" (the house rule: × never ASCII x).

        >>> DraftShape(4).label(), DraftShape(4, 16, 4).label(), DraftShape(4, 16, 4, 8).label()
        ('chain K=4', 'tree 16x4 depth 4', 'tree 16x4 depth 4 + lookup 8')
        """
        if not self.tree_nodes:
            return f"chain K={self.k}"
        return f"tree {self.tree_nodes}x{self.tree_width} depth {self.k}" + (
            f" + lookup {self.tree_lookup}" if self.tree_lookup else "")

    def shown(self) -> str:
        """`label()` as scripts, the CLI, model cards and tables print it to a person: nodes × width with "×", and
        the nodes that fit when the budget is more than the tree holds (read 55: the committed shape table's
        "tree 16x2 depth 4" drafts at most 14 nodes, and was shown as 16).

        >>> DraftShape(4).shown(), DraftShape(4, 16, 4, 8).shown(), DraftShape(4, 16, 2).shown()
        ('chain K=4', 'tree 16×4 depth 4 + lookup 8', 'tree 16×2 depth 4 (14 fit)')
        """
        return self.label().replace(f"{self.tree_nodes}x{self.tree_width}", f"{self.tree_nodes}×{self.tree_width}",
                                    1) + self._fit()

    def _fit(self) -> str:
        """' (14 fit)' after a budget above what the tree holds (`holds`), else nothing."""
        return f" ({self.holds} fit)" if self.tree_nodes > self.holds else ""

    def short(self) -> str:
        """The shape in a table's narrow "tree" column, where K has its own column: "chain", or nodes × width and
        the lookup branch's length. Not read back: `label()` is the name to parse.

        >>> DraftShape(4).short(), DraftShape(4, 16, 4).short(), DraftShape(4, 16, 4, 8).short()
        ('chain', '16×4', '16×4 + 8')
        >>> DraftShape(4, 16, 2).short()  # a tree 4 deep and 2 wide holds 14 nodes
        '16×2 (14 fit)'
        """
        if not self.tree_nodes:
            return "chain"
        return f"{self.tree_nodes}×{self.tree_width}" + (f" + {self.tree_lookup}" if self.tree_lookup else "") + (
            self._fit())

    @classmethod
    def from_label(cls, label: str) -> DraftShape:
        """The shape a `label()` or a `shown()` names (a chain's label names no width: it reads as the default 4;
        spaces around it are dropped); a ValueError with one sentence for any other text, such as "tree 0x4 depth 4"
        (a chain's shape, which `label()` writes as "chain K=4"), "chain K=04" or digits of another script.

        >>> DraftShape.from_label("tree 16x4 depth 4 + lookup 8")
        DraftShape(k=4, tree_nodes=16, tree_width=4, tree_lookup=8)
        >>> DraftShape.from_label("chain K=3") == DraftShape(3), DraftShape.from_label("tree 8×2 depth 3").tree_width
        (True, 2)
        >>> DraftShape.from_label("tree 16×2 depth 4 (14 fit)") == DraftShape.from_label("tree 16x2 depth 4")
        True
        """
        match = _LABEL.fullmatch(str(label).strip())
        if match is None:
            raise ValueError(f"'{label}' names no draft shape (expected e.g. 'chain K=4' or 'tree 16x4 depth 4 + "
                             "lookup 8').")
        chain, nodes, width, depth, lookup = match.groups()
        shape = cls(int(chain)) if chain else cls(int(depth), int(nodes), int(width), int(lookup or 0))
        if match.group(0) not in (shape.label(), shape.shown()):
            raise ValueError(f"'{label}' is not how specviz names a draft shape: it writes '{shape.label()}'.")
        return shape

    def describe(self) -> str:
        """The shape in a sentence, in the reader's language: "a tree of 16 nodes, depth 4, width 4" (and its lookup
        branch) or "a chain of K = 3". A budget above what the tree holds is described by the tree it drafts (read
        55: "tree 16x2 depth 4" was "a tree of 16 nodes, depth 4, width 2", which holds 14).

        >>> DraftShape(4, 16, 2).describe()
        'a tree of 14 nodes, depth 4, width 2'
        """
        # a shape may hold 1 node or copy 1 token (TREE_NODES_RANGE, TREE_LOOKUP_RANGE): each count agrees
        nodes = ngettext("{n} node", "{n} nodes", min(self.tree_nodes, self.holds))
        if self.tree_nodes and self.tree_lookup:
            return _("a tree of {nodes}, depth {k}, width {width}, plus up to {lookup}", nodes=nodes, k=self.k,
                     width=self.tree_width, lookup=ngettext("{n} token copied from the context",
                                                            "{n} tokens copied from the context", self.tree_lookup))
        if self.tree_nodes:
            return _("a tree of {nodes}, depth {k}, width {width}", nodes=nodes, k=self.k, width=self.tree_width)
        return _("a chain of K = {k}", k=self.k)

    @classmethod
    def of(cls, row: dict) -> DraftShape:
        """The shape a benchmark row or a settings mapping names (missing tree fields: a chain).

        >>> DraftShape.of({"k": 3, "tree_nodes": None, "tree_width": None})
        DraftShape(k=3, tree_nodes=0, tree_width=4, tree_lookup=0)
        """
        nodes = int(row.get("tree_nodes") or 0)
        return cls(int(row["k"]), nodes, int(row.get("tree_width") or 4), int(row.get("tree_lookup") or 0) if nodes
                   else 0)
