"""Training the separate draft model: the target's first layers, one trained adapter layer, the target's head.

The draft (`specviz.models.drafts.draft_from_target`, where loading finds the same architecture) is a standalone
`LlamaForCausalLM` with `shallow + 1` layers: its embeddings and first `shallow` layers are copies of the target's
and stay frozen; the adapter layer and the final norm are trained so that its next-token distribution matches the
target's. Losses: the cross-entropy to the target's distribution softmax(head(f_t)) over the draft vocabulary
(KL plus a constant), on a random subset of positions, and smooth L1 between the draft's normed output and the
target's feature f_t on every position.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from transformers import LlamaForCausalLM

from specviz.distill.trainer import Batch, padded_causal_mask, soft_cross_entropy


@dataclass
class DraftLoss:
    regression: float = 1.0
    distillation: float = 1.0
    kd_positions: int = 512


class DraftObjective:
    def __init__(self, draft: LlamaForCausalLM, shallow: int, head: torch.Tensor, vocab: torch.Tensor,
                 weights: DraftLoss):
        self.draft, self.shallow, self.head, self.vocab, self.w = draft, shallow, head, vocab, weights

    def outputs(self, batch: Batch):
        """The draft's normed last hidden state at positions 0..L-2 (what its head reads), with the valid mask."""
        tokens = batch.tokens[:, :-1]
        width = tokens.shape[1]
        valid = batch.valid(width, shrink=1)
        mask = padded_causal_mask(valid)
        positions = torch.arange(width, device=valid.device)[None].expand(len(valid), -1)
        model = self.draft.model
        with torch.no_grad():  # the frozen shallow layers
            x = model.embed_tokens(tokens)
            rope = model.rotary_emb(x, positions)
            for layer in model.layers[: self.shallow]:
                x = layer(x, attention_mask=mask, position_ids=positions, position_embeddings=rope)
        x = model.layers[self.shallow](x, attention_mask=mask, position_ids=positions, position_embeddings=rope)
        return model.norm(x), valid

    def loss(self, batch: Batch) -> dict:
        out, valid = self.outputs(batch)
        target = batch.features
        rows = valid.flatten().nonzero().squeeze(1)
        rows = rows[torch.randperm(len(rows))[: self.w.kd_positions].to(rows.device)]
        with torch.no_grad():
            teacher = target.flatten(0, 1)[rows] @ self.head.T
        reg = (F.smooth_l1_loss(out, target, reduction="none").mean(-1) * valid).sum() / valid.sum()
        kd = soft_cross_entropy(out.flatten(0, 1)[rows] @ self.head.T, teacher, torch.ones(len(rows), device=rows.device))
        return {"loss": self.w.regression * reg + self.w.distillation * kd, "reg": reg.detach(), "kd": kd.detach()}

    @torch.no_grad()
    def accuracy(self, batches: list[Batch], full_head: torch.Tensor) -> dict:
        """Greedy agreement with the target on response positions, over the full vocabulary (as the draft runs)."""
        hits = count = 0
        for batch in batches:
            batch = batch.to(full_head.device)
            out, valid = self.outputs(batch)
            response = valid & (torch.arange(valid.shape[1], device=valid.device)[None] + 1
                                >= batch.prompt_lengths[:, None])
            guess = (out @ full_head.T).argmax(-1)
            hits += ((guess == batch.tokens[:, 1:]) & response).sum().item()
            count += response.sum().item()
        return {"agreement": round(hits / max(count, 1), 4)}
