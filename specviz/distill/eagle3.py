"""Training the EAGLE-3 drafter (`specviz.engine.proposers.eagle3.Eagle3Drafter`) on the data step's records.

For a record with tokens x_0..x_{L-1} and states s_0..s_{L-2}, row t of depth 1 reads (g_t = fc(s_t's three layers),
x_{t+1}) and its output o_t is scored against the target's distribution over x_{t+2}: the cross-entropy to
softmax(head(f_{t+1})) over the draft vocabulary (f: the final norm's output; KL plus a constant). There is no
feature regression: the drafter's state need not look like any of the target's.

Training-time test (EAGLE-3, HASS): depth p row t reads depth p-1's output at row t-1 in place of g_t, with the true
x_{t+1}, and attends exactly as draft step p does (true rows up to where the draft began, then one row of each earlier
depth along its own chain: `specviz.distill.eagle.unrolled_mask`); it is scored against the same target. Depth p's
loss weighs `decay`^(p-1). Only rows whose prediction is a response token are scored.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from transformers import DynamicCache

from specviz.distill.eagle import response_positions, top_k_shares, unrolled_mask
from specviz.distill.trainer import Batch
from specviz.engine.proposers.eagle3 import Eagle3Drafter


@dataclass
class Eagle3Loss:
    unroll: int = 4  # drafting depths trained (1: teacher forcing only)
    decay: float = 0.8  # depth p weighs decay ** (p - 1)
    autocast: bool = True  # matrix products in bfloat16 on any device (emulated on a CPU without bf16); weights float32


class Eagle3Objective:
    """Inputs, targets and losses for one batch; `teacher_head` is the target's head rows of the draft vocabulary
    (N, H), `vocab` the target id of each draft id."""

    def __init__(self, drafter: Eagle3Drafter, embed: torch.nn.Embedding, teacher_head: torch.Tensor,
                 vocab: torch.Tensor, weights: Eagle3Loss):
        self.drafter, self.embed, self.teacher_head, self.vocab, self.w = drafter, embed, teacher_head, vocab, weights

    def _autocast(self, device: torch.device):
        return torch.autocast(device.type, dtype=torch.bfloat16, enabled=self.w.autocast)

    def passes(self, batch: Batch, depths: int) -> tuple[list[torch.Tensor], torch.Tensor]:
        """The drafter's outputs o (B, T, H) for `depths` drafting depths, each attending exactly as it does when
        drafting, and the valid rows (B, T); T = L - 2 (row t reads x_{t+1}, predicts x_{t+2})."""
        if batch.aux is None:
            raise ValueError("EAGLE-3 training needs the batches' inner layers (make_batches(..., aux=True)).")
        state = self.drafter.read_target(batch.aux[:, :-1])  # g_t, t = 0..L-3
        with torch.no_grad():
            embeds = self.embed(batch.tokens[:, 1:-1]).to(state.dtype)  # x_{t+1}
        width = state.shape[1]
        valid = batch.valid(width, shrink=2)
        positions = torch.arange(width, device=valid.device)[None].expand(len(valid), -1)
        cache = DynamicCache(config=self.drafter.config)
        outputs: list[torch.Tensor] = []
        for depth in range(1, depths + 1):
            fed = state if depth == 1 else torch.cat([state[:, :1], outputs[-1][:, :-1]], dim=1)
            outputs.append(self.drafter(fed, embeds, positions, unrolled_mask(valid, depth), cache))
        return outputs, valid

    def loss(self, batch: Batch) -> dict:
        with self._autocast(batch.tokens.device):
            outputs, valid = self.passes(batch, max(1, self.w.unroll))
            scored = response_positions(batch, valid)
            with torch.no_grad():  # p over x_{t+2}, once for every depth: (R, N) float32
                teacher = torch.softmax((batch.features[:, 1:][scored] @ self.teacher_head.T).float(), dim=-1)
            starts = scored.nonzero()[:, 1]  # each scored row's column
            parts, total = {}, 0.0
            for depth, out in enumerate(outputs, start=1):
                keep = starts >= depth - 1  # a chain of `depth` drafts needs depth - 1 rows before it
                student = self.drafter.logits(out[scored][keep]).float()
                ce = F.cross_entropy(student, teacher[keep])  # H(p, q): KL to the target plus a constant
                total = total + self.w.decay ** (depth - 1) * ce
                parts[f"ce{depth}"] = ce.detach()
        return {"loss": total, **parts}

    @torch.no_grad()
    def first_guess_ranks(self, batches, ks: tuple[int, ...] = (1, 2, 3, 4)) -> dict:
        """`top{k}`: the share of held-out response positions where the target's token is among the drafter's k most
        likely first guesses (depth 1, from the target's states)."""
        device = self.teacher_head.device

        def rows():
            for pending in batches:
                batch = pending.to(device)
                with self._autocast(device):
                    outputs, valid = self.passes(batch, 1)
                    guesses = self.vocab[self.drafter.logits(outputs[0]).topk(max(ks), dim=-1).indices]
                yield guesses, batch.tokens[:, 2:], response_positions(batch, valid)

        return top_k_shares(rows(), ks)

    @torch.no_grad()
    def accuracy(self, batches) -> dict:
        """Greedy agreement with the recorded next tokens on response positions: `acc1` the first guess, `acc12`
        (`acc123`, `acc1234`) the first two (three, four) guesses of one draft all right, each depth reading the
        earlier depths' own outputs as drafting does."""
        depths = max(1, self.w.unroll)
        hits, count = [0] * depths, 0
        device = self.teacher_head.device
        for pending in batches:
            batch = pending.to(device)
            with self._autocast(device):
                outputs, valid = self.passes(batch, depths)
                guesses = [self.vocab[self.drafter.logits(out).argmax(-1)] for out in outputs]
            response = response_positions(batch, valid)
            truth = batch.tokens[:, 2:]
            count += response.sum().item()
            chain = response
            for depth, guess in enumerate(guesses):  # depth d row s+d continues the draft started at row s
                ok = guess == truth
                chain = chain[:, : chain.shape[1] - (1 if depth else 0)] & ok[:, depth:]
                hits[depth] += chain.sum().item()
        names = ["acc1", "acc12", "acc123", "acc1234", "acc12345", "acc123456"]
        return {names[i]: round(h / max(count, 1), 4) for i, h in enumerate(hits)}
