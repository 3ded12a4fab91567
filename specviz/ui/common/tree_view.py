"""A tree step on the page: the draft tree next to its attention mask, each with one line on how to read it, and the
tree's numbers as a table for anyone who cannot hover. The figures are `specviz.ui.common.tree_figures`; the step panel
(`specviz.ui.common.step_view.render_step`) calls `render_tree` for steps that carry a tree and nothing here for chains.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from specviz.core.i18n import N_, _
from specviz.engine.trace import Step
from specviz.ui.common.accessibility import TREE_NARROW as NARROW  # the container keys its CSS hides by width
from specviz.ui.common.accessibility import TREE_WIDE as WIDE
from specviz.ui.common.charts import show
from specviz.ui.common.escaping import escape_text
from specviz.ui.common.palette import legend_html
from specviz.ui.common.tree_figures import (COPIED_MARK, STATUS_KINDS, mask_figure, mask_table, tree_figure, tree_list,
                                            tree_rows, tree_title)

# Every sentence of this module that a user reads (English messages: `_()` translates them where they are shown).
TEXT = {
    "read_tree": N_("**How to read the tree:** left to right, each column is one more token ahead, and a node's "
                    "children are the draft's alternative guesses for the token after it; the target tried them top "
                    "to bottom, the thick green line is the path it kept, and grey · nodes were never tested. Hover a "
                    "node for q, p, p/q and u; a child tried after a rejected sibling is tested against p′, the "
                    "residual the siblings tried before it left, and q′, the draft's q without them (or a point "
                    "mass), and its hover gives q′, p′ and p′/q′ where the trace records them."),
    "read_mask": N_("**How to read the mask:** row = the node being scored, filled column = a node it may read: the "
                    "root, its own ancestors and itself, never a sibling or another branch, so one target forward "
                    "scores every branch as if it were alone."),
    # read 53: with a lookup branch, the mask's rows are copied tokens too (a copied token is no node)
    "read_mask_copied": N_("**How to read the mask:** row = the node or copied token being scored, filled column = "
                           "one it may read: the root, its own ancestors and itself, never a sibling or another "
                           "branch, so one target forward scores every branch as if it were alone."),
    # read 51: a copy whose first token a drafted node already held hung its ❐ nodes below that node, unexplained;
    # read 52: "❐ nodes" called the copies nodes, where a node is a drafted token (the glossary: never a node)
    "copied": N_("**{mark} Copied from the context:** the tree's lookup branch, the tokens that followed the last "
                 "earlier place where the text's last 3 tokens appeared (failing a match, its last 2, then its last 1; "
                 "prompt lookup). Where fewer tokens follow that place than the branch holds, the copy reads on into "
                 "what it has copied so far, so a repeating loop is carried on past the text's end. Where the "
                 "copy starts as a drafted path does, it follows those drafted nodes, and only the rest hangs below "
                 "them, each copied token marked {mark}. No model drafted a copied token, so q is a point mass: the "
                 "target keeps a copied token with probability p′(x), where p′ is p at its parent after the siblings "
                 "tried before it were rejected (the residual they left), and the output still follows the target's "
                 "distribution exactly."),
    "copied_chip": N_("copied from the context (no model drafted it)"),
    # Read 45: a kept path that reaches a leaf (a bonus step) has no node rejected below it
    "main_line": N_("The main line: the accepted path and, if one was rejected, the first node rejected below it "
                    "(hover a chip for p, q, p/q, min(1, p′/q′) and u; for a node tried after a rejected sibling, "
                    "p′, q′ and p′/q′ where the trace records them)"),
}


def copied_legend() -> str:
    """The lookup mark's legend chip: ❐ on a chip like the verdicts' (its border dashed), then its full label."""
    label = escape_text(_(TEXT["copied_chip"]), whitespace=False)
    return (f'<div style="line-height:2;font-size:0.95rem"><span style="display:inline-block;padding:1px 7px;'
            f'border-radius:6px;border:2px dashed #5E5E5E;background:#FFFFFF;color:#222222;font-family:'
            f'\'DejaVu Sans Mono\',monospace">{COPIED_MARK}&nbsp;tok</span>&nbsp;{label}</div>')


def render_tree(step: Step, *, key: str, greedy: bool = False) -> None:
    """The step's draft tree (wide) next to its attention mask (narrow), their captions, and the numbers; `greedy`:
    the run's temperature was 0 (`Trace.greedy`: a p or q of 1 is a point mass)."""
    tree_col, mask_col = st.columns([3, 2], gap="medium")
    drawn = tree_col.container(key=f"{key}_{WIDE}_{step.index}")  # the drawn tree: hidden on a phone (accessibility.CSS)
    drawn.markdown(f"**{tree_title(step)}**")
    show(tree_figure(step, greedy), f"{key}_tree_{step.index}", drawn, name=tree_title(step, plain=True),
         table=pd.DataFrame(tree_rows(step.tree, greedy)))  # every node's and copied token's numbers
    tree_col.container(key=f"{key}_{NARROW}_{step.index}").markdown(tree_list(step))  # a phone reads a list
    drawn.caption(_(TEXT["read_tree"]))  # how to read the drawing: a phone reads the list instead
    tree_col.html(legend_html(tuple(STATUS_KINDS.values()), distributions=False))
    if any(node.copied for node in step.tree.nodes):
        tree_col.html(copied_legend())  # ❐ in a chip with its full label: alone it looked like a missing glyph
        tree_col.caption(_(TEXT["copied"], mark=COPIED_MARK))
    show(mask_figure(step.tree), f"{key}_mask_{step.index}", mask_col, table=mask_table(step.tree))
    copied = any(node.copied for node in step.tree.nodes)
    mask_col.caption(_(TEXT["read_mask_copied" if copied else "read_mask"]))
