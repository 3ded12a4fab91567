"""Recording: turning what each step decided into the `Trace` people read.

The engine's step (`specviz.engine.decoding.SpeculativeDecoder.step`) only decides and returns a `StepOutcome`
(defined here, the observer's input); a `TraceRecorder` observes each outcome and adds what a person needs to read
it: the drafts' and tree nodes' texts, the top-10 of p and q at every drafted position, min(1, p/q), u and the
verdict of every draft, and the top of the distribution the recovered or bonus token came from. Emitted tokens are
never rewritten: the step gives each its text as it makes it, with the recorder's `text`. With `record=False` the
texts and top-10 lists are left out (to measure what recording costs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import torch

from specviz.engine.generation import TokenTexts, top_tokens
from specviz.engine.kinds import StopReason
from specviz.engine.trace import Decision, EmittedToken, Step, TokenKind, Trace, TreeNode, TreeRecord
from specviz.engine.tree import DraftTree
from specviz.engine.tree_verifier import TreeVerifyResult
from specviz.engine.verifier import VerifyResult, accept_probability


@dataclass
class StepOutcome:
    """What one step decided, before anything is recorded: the drafts and their q, the target's p at K+1
    positions, the verifier's verdict, the kind of the token after the accepted drafts (decided once, by
    `specviz.engine.decoding.StepResult.next_kind`), what was emitted (already cut at EOS / max_new_tokens), the
    cache lengths around the step and its timings."""

    drafts: list[int]
    draft_probs: torch.Tensor  # (K, V)
    target_probs: torch.Tensor  # (K+1, V)
    verdict: VerifyResult
    next_kind: TokenKind  # the token after the accepted drafts: recovered, bonus, or target when nothing was drafted
    emitted: list[EmittedToken]
    stop: StopReason | Literal[""]  # "" while the generation goes on
    context_length: int
    proposer: str
    target_cache: tuple[int, int]  # (before, after)
    draft_cache: tuple[int | None, int | None]
    draft_seconds: float
    verify_seconds: float
    overhead_seconds: float
    tree: DraftTree | None = None  # a tree step's whole tree (drafts above are its main line, see decoding.main_line)
    tree_verdict: TreeVerifyResult | None = None
    tree_target_probs: torch.Tensor | None = None  # (N+1, V): p at the root and at every node


class TraceRecorder:
    """Collects the steps of one generation and builds its `Trace`."""

    def __init__(self, tokenizer=None, record: bool = True):
        self.texts = TokenTexts(tokenizer)
        self.record = record
        self.steps: list[Step] = []

    def observe(self, outcome: StepOutcome) -> Step:
        """Record one step; returns it."""
        verdict = outcome.verdict
        step = Step(
            index=len(self.steps), context_length=outcome.context_length, k=len(outcome.drafts),
            proposer=outcome.proposer, decisions=self.decisions(outcome), emitted=outcome.emitted,
            correction_kind=outcome.next_kind,
            correction_top=top_tokens(verdict.next_dist, self.texts) if self.record else [],
            target_cache_before=outcome.target_cache[0], target_cache_after=outcome.target_cache[1],
            draft_cache_before=outcome.draft_cache[0], draft_cache_after=outcome.draft_cache[1],
            draft_seconds=outcome.draft_seconds, verify_seconds=outcome.verify_seconds,
            overhead_seconds=outcome.overhead_seconds, tree=self.tree(outcome),
        )
        self.steps.append(step)
        return step

    def tree(self, outcome: StepOutcome) -> TreeRecord | None:
        """A tree step's nodes with q, p at the parent, u, min(1, p'/q') and the verdict; None for a chain step."""
        tree, verdict, target_probs = outcome.tree, outcome.tree_verdict, outcome.tree_target_probs
        if tree is None:
            return None
        order = {node: i for i, node in enumerate(verdict.tested)}
        used = verdict.used_probs  # (p'(x), q'(x)) per tested node
        nodes = []
        for j, (x, parent, depth) in enumerate(zip(tree.tokens, tree.parents, tree.depths)):
            tested = j in order
            nodes.append(TreeNode(
                token_id=x, text=self.text(x), parent=parent, depth=depth, draft_prob=float(tree.draft_probs[j, x]),
                target_prob=float(target_probs[parent + 1, x]), status=verdict.status(j),
                uniform=verdict.uniforms[order[j]] if tested else None,
                accept_prob=verdict.accept_probs[order[j]] if tested else None, copied=tree.is_copied(j),
                point_mass=bool(verdict.point_masses) and verdict.point_masses[j],
                target_prob_used=used[order[j]][0] if tested and used else None,
                draft_prob_used=used[order[j]][1] if tested and used else None))
        return TreeRecord(nodes, list(verdict.path))

    def decisions(self, outcome: StepOutcome) -> list[Decision]:
        """The verdict on every drafted token; drafts after the first rejection are marked as never reached."""
        verdict, target_probs, draft_probs = outcome.verdict, outcome.target_probs, outcome.draft_probs
        decisions = []
        for i, x in enumerate(outcome.drafts):
            p, q = float(target_probs[i, x]), float(draft_probs[i, x])
            reached = i < len(verdict.uniforms)
            decisions.append(Decision(
                position=i, token_id=x, text=self.text(x), draft_prob=q, target_prob=p,
                ratio=p / q if q > 0 else math.inf,
                accept_prob=verdict.accept_probs[i] if reached else accept_probability(p, q),
                uniform=verdict.uniforms[i] if reached else None, accepted=i < verdict.n_accepted, reached=reached,
                target_top=self._top(target_probs[i]), draft_top=self._top(draft_probs[i]),
            ))
        return decisions

    def trace(self, mode: str, settings: dict, prompt: list[int], output: list[int], stop: StopReason | Literal[""],
              prefill_seconds: float, wall_seconds: float) -> Trace:
        return Trace(mode=mode, settings=settings, prompt_ids=prompt, output_ids=output, steps=self.steps,
                     prompt_text=self.texts.text(prompt), output_text=self.texts.text(output), stop_reason=stop,
                     prefill_seconds=prefill_seconds, wall_seconds=wall_seconds)

    def _top(self, probs: torch.Tensor) -> list:
        return top_tokens(probs, self.texts) if self.record else []

    def text(self, token_id: int) -> str:
        """One token's text as the trace records it ("" when not recording); the step names its emitted tokens with
        it as it makes them."""
        return self.texts(token_id) if self.record else ""
