"""Medusa heads (Cai et al., 2024): extra heads on the target's last hidden state, each guessing a later token.

Head k (k = 1..K) reads f_i, the target's last hidden state after x_0..x_i (the input of its LM head), and guesses
x_{i+1+k}: the token k places after the one the target's own head predicts from the same state.

    q_k(x_{i+1+k}) = softmax( lm_head( f_i + SiLU(W_k f_i + b_k) ) / T )

Medusa-1 keeps the target frozen and trains only the heads; in the paper and its code each head also has an output
layer of its own (W_2^(k), initialised from the LM head and trained). Here every head shares the target's LM head
instead (its rows of a frequency-ranked draft vocabulary, FR-Spec, as the EAGLE-1 `EagleDrafter` reads tokens; the
EAGLE-3 drafter the default pair ships trains a head of its own), so only each head's residual block is trained
(`specviz.distill.medusa`).
A head reads one state and sees none of the tokens drafted before it: head 2 guesses the second token without
knowing which first token was drafted. EAGLE's drafter feeds its own guesses back, one reason it keeps more at
depth 2 and beyond (the Proposers page quotes both, measured on the same prompts, and names two more: the EAGLE
drafter trained on far more of the target's text, and it is a larger model).

Proposing costs, per head, its residual block (H x H) and one product with the shared head's rows (H x the draft
vocabulary: 8,192 tokens for the shipped heads, assets/models/smollm2-medusa/specviz.json), and no drafter pass: the
state comes with the target's verify pass. In a chain, drafted position k is head k's sample; in a tree, every node at
depth d gets its children from head d + 1 (Medusa's Cartesian product of the heads' top tokens, grown EAGLE-2 style
by `grow_tree` within the node budget).
The verifier keeps the output's distribution exactly the target's, in exact arithmetic (`specviz.engine.numerics`
for floating point): every drafted token is drawn from the q it is checked with.
"""

from __future__ import annotations

import torch
from torch import nn
from transformers import PreTrainedModel

from specviz.core.i18n import _
from specviz.engine.kinds import DrafterKind
from specviz.engine.proposers.base import Proposal, Proposer
from specviz.engine.proposers.eagle import DraftHead
from specviz.engine.sampling import SamplingConfig, first_max_index, sample
from specviz.engine.tree import ROOT, DraftTree, grow_tree


class ResBlock(nn.Module):
    """x + SiLU(W x + b), Medusa's block; W starts at zero, so an untrained head repeats the target's own guess."""

    def __init__(self, hidden: int):
        super().__init__()
        self.linear = nn.Linear(hidden, hidden)
        nn.init.zeros_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + nn.functional.silu(self.linear(x))


class MedusaHeads(nn.Module):
    """K heads, each `layers` residual blocks over the target's last hidden state; the LM head is the target's.

    >>> heads = MedusaHeads(hidden=8, count=3)
    >>> heads(torch.ones(2, 8)).shape  # (..., K, H): head k's state for every position
    torch.Size([2, 3, 8])
    """

    kind = DrafterKind.MEDUSA
    feature_layers = (-1,)  # the target's last hidden state (the final norm's output)

    def __init__(self, hidden: int, count: int, layers: int = 1):
        super().__init__()
        if count < 1 or layers < 1:
            raise ValueError(_("Medusa needs at least one head of at least one block."))
        self.hidden, self.layers = hidden, layers
        self.blocks = nn.ModuleList(nn.Sequential(*(ResBlock(hidden) for _ in range(layers))) for _ in range(count))

    @property
    def count(self) -> int:
        """K, the number of heads: the deepest a draft can go."""
        return len(self.blocks)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """features (..., H) -> each head's state (..., K, H), read by the LM head."""
        return torch.stack([block(features) for block in self.blocks], dim=-2)


class MedusaProposer(Proposer):
    """Drafts with `MedusaHeads` from the target's last hidden state at the sequence's last read position: head k
    proposes the k-th token after the sequence. No cache of its own: it keeps the target's states only."""

    needs_target_features = True
    has_draft_probs = True  # honours stop_below: a head's confidence can end a proposal early

    def __init__(self, target: PreTrainedModel, heads: MedusaHeads, vocab: torch.Tensor | None = None,
                 name: str = "medusa"):
        self.name = name
        self.heads = heads.eval()
        self.head = DraftHead(target, vocab)
        self.feature_layers = heads.feature_layers
        self.reset()

    def reset(self) -> None:
        self.features: list[torch.Tensor] = []  # the target's last hidden state, one (H,) per position it has read

    @torch.inference_mode()
    def observe_target(self, start: int, features: torch.Tensor) -> None:
        del self.features[start:]
        self.features.extend(features.unbind(0))

    def rollback(self, valid_length: int) -> None:
        # keep the states of the first valid_length - 1 tokens at most: in a step, observe_target comes next and
        # adds those of every kept token its last pass read, the last valid one's included
        del self.features[max(valid_length - 1, 0):]

    def head_logits(self, sequence: list[int], most: int | None = None) -> torch.Tensor:
        """(K', V) logits for the 1st, 2nd, ... token after `sequence` (at most `most` of them), from the newest
        state the target gave: head k reads f_i and guesses x_{i+1+k}; when the state is older than the sequence's
        last read token, the first heads guess tokens already there and are skipped. K' = 0 when no state is known
        or it is too old."""
        known = min(len(self.features), len(sequence) - 1)  # states for positions 0..known-1
        skip = len(sequence) - 1 - known  # heads that would guess tokens the sequence already has
        wanted = self.heads.blocks[skip:][:most]
        if known == 0 or not wanted:
            return torch.zeros(0, self.head.vocab_size)
        state = self.features[known - 1].to(self.head.weight.dtype)
        return self.head.logits(torch.stack([block(state) for block in wanted])).float()

    @torch.inference_mode()
    def propose(self, sequence: list[int], k: int, sampling: SamplingConfig,
                generator: torch.Generator) -> Proposal:
        logits = self.head_logits(sequence, max(k, 0))
        drafted, rows = [], []
        for row in logits:
            if self.stops_here(row):
                break
            probs = sampling.probs(row).cpu()
            drafted.append(int(first_max_index(probs)) if sampling.greedy else sample(probs, generator))
            rows.append(probs)
        return Proposal(drafted, torch.stack(rows) if rows else None)

    @torch.inference_mode()
    def propose_tree(self, sequence: list[int], *, max_nodes: int, max_depth: int, width: int,
                     sampling: SamplingConfig, generator: torch.Generator, sampled: bool,
                     stop_tokens: frozenset[int] = frozenset()) -> DraftTree:
        """Every node at depth d (the root: 0) gets its children from head d + 1, the same q for all of them; the
        tree is no deeper than the heads."""
        logits = self.head_logits(sequence, max(max_depth, 0))
        if len(logits) == 0:
            return DraftTree([], [], torch.zeros(0, 0))

        def expand(tree: DraftTree, nodes: list[int]) -> torch.Tensor:
            depths = tree.depths
            return torch.stack([logits[0 if node == ROOT else depths[node]] for node in nodes])

        return grow_tree(expand, max_nodes=max_nodes, max_depth=min(max_depth, len(logits)), width=width,
                         probs=sampling.probs, sampled=sampled, generator=generator, stop_tokens=stop_tokens)


def from_pair(pair) -> MedusaProposer:
    """The pair's trained Medusa heads as the proposer (`specviz.engine.proposers.registry`: "medusa")."""
    if getattr(pair, "medusa", None) is None:
        raise ValueError(_("The pair '{pair}' has no trained Medusa heads; use --proposer layerskip or ngram.",
                           pair=pair.name))
    heads, draft_vocab = pair.medusa
    return MedusaProposer(pair.target, heads, draft_vocab)
