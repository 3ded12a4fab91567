"""Training the EAGLE-style feature drafter on the target's recorded features.

For a record with tokens x_0..x_{L-1} and features f_0..f_{L-2}, row t of the drafter reads (f_t, x_{t+1}) and
is trained to output f_{t+1}: a feature-regression loss (smooth L1, as in EAGLE) plus a distillation loss, the
cross-entropy between the target's next-token distribution softmax(head(f_{t+1})) and the drafter's
softmax(head(f^_{t+1})), both over the draft vocabulary. Two tricks from the EAGLE papers:

- noise: the input features get uniform noise, since at drafting time they are the drafter's own predictions;
- unrolling ("training-time test", EAGLE-3): pass p reads pass p-1's predictions in place of the true features
  and attends exactly as draft step p does (true rows up to where the draft began, then its own chain), and is
  trained with the same losses.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from transformers import DynamicCache

from specviz.distill.trainer import Batch, soft_cross_entropy
from specviz.engine.proposers.eagle import EagleDrafter


@dataclass
class EagleLoss:
    regression: float = 1.0
    distillation: float = 0.5
    noise: float = 0.1
    unroll: int = 2  # drafting depths trained (1: teacher forcing only)
    faithful: bool = True  # False: pass p attends only to its own rows (every context feature predicted)
    kd_positions: int = 512  # the distillation loss (the LM head's cost) on this many random positions per pass


class EagleObjective:
    """Inputs, targets and losses for one batch; `head` is the draft-vocabulary head weight (N, H)."""

    def __init__(self, drafter: EagleDrafter, embed: torch.nn.Embedding, head: torch.Tensor, vocab: torch.Tensor,
                 weights: EagleLoss):
        self.drafter, self.embed, self.head, self.vocab, self.w = drafter, embed, head, vocab, weights

    def passes(self, batch: Batch, noise: float):
        """The drafter's outputs for `unroll` drafting depths, each attending exactly as it does when drafting.

        Pass 1 row t reads the true (f_t, x_{t+1}). Pass p row t reads pass p-1's prediction of f_t with x_{t+1}
        and sees what draft step p sees: the true rows up to t-p+1, then one row of each earlier pass along its
        own chain (pass q row t-p+q). The passes share one KV cache, so every row's keys are computed once.
        """
        feats = batch.features[:, :-1]  # f_t, t = 0..L-3
        target = batch.features[:, 1:]  # f_{t+1}
        with torch.no_grad():
            embeds = self.embed(batch.tokens[:, 1:-1])  # x_{t+1}
        width = feats.shape[1]
        valid = batch.valid(width, shrink=2)
        positions = torch.arange(width, device=valid.device)[None].expand(len(valid), -1)
        noisy = feats + (torch.rand_like(feats) * 2 - 1) * noise if noise else feats
        cache = DynamicCache(config=self.drafter.config)
        outputs = []
        for depth in range(1, max(1, self.w.unroll) + 1):
            if depth == 1:
                fed = noisy
            else:  # row t reads the previous pass's prediction of f_t (made at its row t-1); row 0 keeps f_0
                fed = torch.cat([feats[:, :1], outputs[-1][:, :-1].detach()], dim=1)
            mask = unrolled_mask(valid, depth, self.w.faithful)
            outputs.append(self.drafter(fed, embeds, positions, mask, cache))
        return outputs, target, valid

    def loss(self, batch: Batch) -> dict:
        outputs, target, valid = self.passes(batch, self.w.noise)
        rows = valid.flatten().nonzero().squeeze(1)
        rows = rows[torch.randperm(len(rows))[: self.w.kd_positions].to(rows.device)]
        with torch.no_grad():
            teacher = target.flatten(0, 1)[rows] @ self.head.T
        ones = torch.ones(len(rows), device=rows.device)
        parts = {}
        total = 0.0
        for i, out in enumerate(outputs, start=1):
            reg = (F.smooth_l1_loss(out, target, reduction="none").mean(-1) * valid).sum() / valid.sum()
            kd = soft_cross_entropy(out.flatten(0, 1)[rows] @ self.head.T, teacher, ones)
            total = total + self.w.regression * reg + self.w.distillation * kd
            parts[f"reg{i}"], parts[f"kd{i}"] = reg.detach(), kd.detach()
        return {"loss": total, **parts}

    @torch.no_grad()
    def first_guess_ranks(self, batches: list[Batch], ks: tuple[int, ...] = (1, 2, 3, 4)) -> dict:
        """`top{k}`: the share of held-out response positions where the target's token is among the drafter's k
        most likely first guesses (from true features). top1 is `acc1`; top4 is what a tree's first level of width 4
        can reach."""
        def rows():
            for pending in batches:
                batch = pending.to(self.head.device)
                outputs, _target, valid = self.passes(batch, 0.0)
                guesses = self.vocab[(outputs[0] @ self.head.T).topk(max(ks), dim=-1).indices]
                yield guesses, batch.tokens[:, 2:], response_positions(batch, valid)

        return top_k_shares(rows(), ks)

    @torch.no_grad()
    def accuracy(self, batches: list[Batch]) -> dict:
        """Greedy agreement with the target on response positions: `acc1`, the drafter's first guess from true
        features; `acc12` (and `acc123` with three passes), the first two (three) guesses of one draft all right.
        The truth is the recorded next token, which for greedy held-out records is the target's own choice."""
        hits, count = [0] * max(1, self.w.unroll), 0
        for batch in batches:
            batch = batch.to(self.head.device)
            outputs, target, valid = self.passes(batch, 0.0)
            response = response_positions(batch, valid)
            truth = batch.tokens[:, 2:]
            count += response.sum().item()
            chain = response
            for depth, out in enumerate(outputs):  # pass depth+1 row s+depth continues the draft started at s
                ok = self.vocab[(out @ self.head.T).argmax(-1)] == truth
                chain = chain[:, : chain.shape[1] - (1 if depth else 0)] & ok[:, depth:]
                hits[depth] += chain.sum().item()
        names = ["acc1", "acc12", "acc123", "acc1234"]
        return {names[i]: round(h / max(count, 1), 4) for i, h in enumerate(hits)}


def top_k_shares(rows, ks: tuple[int, ...]) -> dict:
    """{"top1": ..., "top4": ...}: over `rows` of (guesses (B, T, max k) as target ids, best first; truth (B, T);
    counted (B, T) bool), the share of counted positions whose truth is among the first k guesses."""
    hits, count = dict.fromkeys(ks, 0), 0
    for guesses, truth, counted in rows:
        found = guesses == truth[..., None]
        for k in ks:
            hits[k] += (found[..., :k].any(-1) & counted).sum().item()
        count += counted.sum().item()
    return {f"top{k}": round(h / max(count, 1), 4) for k, h in hits.items()}


def response_positions(batch: Batch, valid: torch.Tensor) -> torch.Tensor:
    """Bool (B, T): the rows of `passes` whose next token belongs to the response (the prompt's are not scored)."""
    return valid & (torch.arange(valid.shape[1], device=valid.device)[None] + 1 >= batch.prompt_lengths[:, None] - 1)


def unrolled_mask(valid: torch.Tensor, depth: int, faithful: bool = True) -> torch.Tensor:
    """Bool (B, 1, T, depth*T) for pass `depth`'s rows over the keys of passes 1..depth (in that order).
    Not `faithful`: causal over its own pass only, as if every earlier feature had been predicted too."""
    width = valid.shape[1]
    t = torch.arange(width, device=valid.device)[:, None]
    j = torch.arange(width, device=valid.device)[None, :]
    blocks = [j <= t - depth + 1]  # true rows up to where this draft began
    blocks += [j == t - depth + q for q in range(2, depth + 1)]  # one row of each later pass along the chain
    if depth == 1 or not faithful:
        blocks = [torch.zeros(width, width, dtype=torch.bool, device=valid.device)] * (depth - 1) + [j <= t]
    mask = torch.cat(blocks, dim=1)[None] & valid.repeat(1, depth)[:, None, :]
    mask |= torch.cat([torch.zeros(width, width * (depth - 1), dtype=torch.bool, device=valid.device),
                       torch.eye(width, dtype=torch.bool, device=valid.device)], dim=1)[None]  # every row sees itself, so no row of padding is empty
    return mask[:, None]
