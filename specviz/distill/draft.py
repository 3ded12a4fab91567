"""Training the separate draft model: the target's first layers, one trained adapter layer, the target's head.

The draft is a standalone `LlamaForCausalLM` with `shallow + 1` layers (as Kangaroo does with a shallow
sub-network plus an adapter): its embeddings and first `shallow` layers are copies of the target's and stay
frozen; the adapter layer and the final norm are trained so that its next-token distribution matches the
target's. Losses: the cross-entropy to the target's distribution softmax(head(f_t)) over the draft vocabulary
(KL plus a constant), on a random subset of positions, and smooth L1 between the draft's normed output and the
target's feature f_t on every position.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from transformers import LlamaForCausalLM, PreTrainedModel

from specviz.distill.trainer import Batch, padded_causal_mask, soft_cross_entropy


@dataclass
class DraftLoss:
    regression: float = 1.0
    distillation: float = 1.0
    kd_positions: int = 512


def draft_config(target_config, shallow: int):
    config = copy.deepcopy(target_config)
    config.num_hidden_layers = shallow + 1
    if getattr(config, "layer_types", None):
        config.layer_types = config.layer_types[: shallow + 1]
    return config


def draft_from_target(target: PreTrainedModel, shallow: int) -> LlamaForCausalLM:
    """The untrained draft: the target's embeddings and first `shallow` layers (frozen), and an adapter layer
    (the target's last layer with its output projections zeroed) and final norm, both trainable."""
    draft = LlamaForCausalLM(draft_config(target.config, shallow))
    state = target.state_dict()
    own = {k: v.clone() for k, v in state.items() if not k.startswith("model.layers.") or
           int(k.split(".")[2]) < shallow}
    last = target.config.num_hidden_layers - 1
    own.update({k.replace(f"model.layers.{last}.", f"model.layers.{shallow}."): v.clone()
                for k, v in state.items() if k.startswith(f"model.layers.{last}.")})
    draft.load_state_dict(own, strict=False)
    draft.tie_weights()
    with torch.no_grad():  # the adapter starts as the identity: the untrained draft is a plain early exit
        draft.model.layers[shallow].self_attn.o_proj.weight.zero_()
        draft.model.layers[shallow].mlp.down_proj.weight.zero_()
    for name, p in draft.named_parameters():
        p.requires_grad = trainable(name, shallow)
    return draft


def trainable(name: str, shallow: int) -> bool:
    return name.startswith(f"model.layers.{shallow}.") or name == "model.norm.weight"


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
