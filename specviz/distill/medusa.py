"""Training Medusa heads (`specviz.engine.proposers.medusa.MedusaHeads`) on the data step's records, Medusa-1 style
(the target frozen, only the heads learn). In the paper each head also trains an output layer of its own; specviz's
heads share the target's LM head, so only their residual blocks learn here.

For a record with tokens x_0..x_{L-1} and final-norm states f_0..f_{L-2} (f_t has read x_0..x_t), head k at row t
reads f_t and is scored against the target's own distribution over x_{t+1+k}, recomputed from f_{t+k}: the
cross-entropy to softmax(head(f_{t+k})) over the draft vocabulary (KL plus a constant), on rows whose x_{t+1+k} is a
response token. Head k's loss weighs `decay`^(k-1): Medusa's λ_k = 0.8^k divided by 0.8, the same ratio from
one head to the next, with head 1 at weight 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from specviz.distill.trainer import Batch
from specviz.engine.proposers.medusa import MedusaHeads


@dataclass
class MedusaLoss:
    decay: float = 0.8  # head k weighs decay ** (k - 1)
    autocast: bool = True  # matrix products in bfloat16 on any device (emulated on a CPU without bf16); weights float32


class MedusaObjective:
    """Inputs, targets and losses for one batch; `teacher_head` is the target's head rows of the draft vocabulary
    (N, H), `vocab` the target id of each draft id."""

    def __init__(self, heads: MedusaHeads, teacher_head: torch.Tensor, vocab: torch.Tensor, weights: MedusaLoss):
        self.heads, self.teacher_head, self.vocab, self.w = heads, teacher_head, vocab, weights

    def _autocast(self, device: torch.device):
        return torch.autocast(device.type, dtype=torch.bfloat16, enabled=self.w.autocast)

    @staticmethod
    def scored(batch: Batch, k: int) -> torch.Tensor:
        """Bool (B, T - k) over rows t = 0..T-k-1 (T = L - 1 states): head k's row t is scored when f_{t+k}
        exists and x_{t+1+k} is a response token."""
        width = batch.features.shape[1] - k
        rows = torch.arange(width, device=batch.lengths.device)[None]
        return batch.valid(width, shrink=1 + k) & (rows + 1 + k >= batch.prompt_lengths[:, None])

    def loss(self, batch: Batch) -> dict:
        parts, total = {}, 0.0
        with self._autocast(batch.tokens.device):
            states = self.heads(batch.features)  # (B, T, K, H)
            with torch.no_grad():  # p over x_{s+1} from f_s, once for every head: head k's row t reads s = t + k
                teacher_logits = batch.features @ self.teacher_head.T
            for k in range(1, self.heads.count + 1):
                scored = self.scored(batch, k)
                teacher = torch.softmax(teacher_logits[:, k:][scored].float(), dim=-1)  # (R, N) float32
                student = (states[:, : states.shape[1] - k, k - 1][scored] @ self.teacher_head.T).float()
                ce = F.cross_entropy(student, teacher)  # H(p, q): KL to the target plus a constant
                total = total + self.w.decay ** (k - 1) * ce
                parts[f"ce{k}"] = ce.detach()
        return {"loss": total, **parts}

    @torch.no_grad()
    def accuracy(self, batches, ks: tuple[int, ...] = (1, 2, 3, 4)) -> dict:
        """On held-out records: `head{k}_top{n}`, the share of scored rows where the recorded x_{t+1+k} is among head
        k's n most likely guesses; `acc1`, `acc12`, ...: the share of rows t (x_{t+2} a response token) where the
        first one, two, ... heads' top guesses are all right, the chance a greedy chain keeps that many drafts (the
        EAGLE drafter's card counts the same)."""
        device = self.teacher_head.device
        count = self.heads.count
        hits = {(k, n): 0 for k in range(1, count + 1) for n in ks}
        totals = dict.fromkeys(range(1, count + 1), 0)
        chain_hits, chain_count = [0] * count, 0
        for pending in batches:
            batch = pending.to(device)
            with self._autocast(device):
                states = self.heads(batch.features)
                guesses = self.vocab[(states @ self.teacher_head.T).topk(max(ks), dim=-1).indices]  # (B, T, K, n)
            width = states.shape[1]
            right = []
            for k in range(1, count + 1):
                scored = self.scored(batch, k)
                truth = batch.tokens[:, 1 + k: 1 + k + width - k]  # x_{t+1+k} for rows t = 0..T-k-1
                found = guesses[:, : width - k, k - 1] == truth[..., None]
                for n in ks:
                    hits[k, n] += (found[..., :n].any(-1) & scored).sum().item()
                totals[k] += scored.sum().item()
                right.append(found[..., 0] & scored)
            first = self.scored(batch, 1)
            chain_count += first.sum().item()
            chain = first
            for k in range(1, count + 1):  # row t keeps k drafts when heads 1..k are all right
                chain = chain[:, : width - k] & right[k - 1]
                chain_hits[k - 1] += chain.sum().item()
        shares = {f"head{k}_top{n}": round(h / max(totals[k], 1), 4) for (k, n), h in hits.items()}
        names = ["acc1", "acc12", "acc123", "acc1234", "acc12345", "acc123456"]
        return {**{names[i]: round(h / max(chain_count, 1), 4) for i, h in enumerate(chain_hits[: len(names)])},
                **shares}
