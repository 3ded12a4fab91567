"""What every draft's training shares (eagle3, eagle, draft, medusa): padded batches of records, the soft-target
loss, and a resumable loop.

The loop is seeded, logs every evaluation as one JSON line, saves a checkpoint (model, optimiser, step, minutes
trained) every `eval_every` steps and at the end, and continues from the checkpoint when it is run again: its step,
and its clock from the minutes the checkpoint kept.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
from tqdm import tqdm

from specviz.distill.data import Record


# training steps when --steps / --ttt-steps are not given: the EAGLE-3 drafter, EAGLE-1's stage 1 and stage 2
# (training-time test), the separate draft, the Medusa heads; the CLI trains with them and the model cards leave out
# the flags a run did not need
DEFAULT_STEPS = {"eagle3": 3000, "eagle": 1500, "eagle-ttt": 400, "draft": 1000, "medusa": 800}
DEFAULT_BATCH_POSITIONS = 2048  # --batch-positions: padded positions per training batch
DEFAULT_LR = 1e-3  # --lr: the peak learning rate


@dataclass
class Batch:
    tokens: torch.Tensor  # (B, L) int64, padded with 0
    features: torch.Tensor  # (B, L-1, H) float32, padded with 0: the final norm's output
    lengths: torch.Tensor  # (B,) tokens per row
    prompt_lengths: torch.Tensor  # (B,)
    aux: torch.Tensor | None = None  # (B, L-1, S*H) float32: the low, middle and high layers side by side (EAGLE-3)

    def valid(self, width: int, shrink: int) -> torch.Tensor:
        """(B, width) bool: column t is real when t < length - shrink (each trainer knows how many positions at
        the end of a row lack an input or a target)."""
        return torch.arange(width, device=self.lengths.device)[None] < (self.lengths[:, None] - shrink)

    def to(self, device) -> Batch:
        return Batch(self.tokens.to(device), self.features.to(device), self.lengths.to(device),
                     self.prompt_lengths.to(device), None if self.aux is None else self.aux.to(device))


@dataclass
class PendingBatch:
    """A batch's records, collated only when the batch is used (`to`): the data stays memory-mapped on disk until
    then, so a training set larger than memory streams one batch at a time."""

    records: list[Record]
    aux: bool = False

    def to(self, device) -> Batch:
        return collate(self.records, self.aux).to(device)

    @property
    def positions(self) -> int:
        return sum(len(r.tokens) - 1 for r in self.records)


def make_batches(records: list[Record], max_positions: int, seed: int, aux: bool = False) -> list[PendingBatch]:
    """Records of similar length share a batch of at most `max_positions` padded positions (a record longer than
    that gets a batch of its own, as long as the record); batch order is shuffled with `seed`. `aux`: the batches
    carry the three inner layers too (EAGLE-3)."""
    order = sorted(records, key=lambda r: len(r.tokens))
    groups, current = [], []
    for r in order:
        width = max([len(x.tokens) for x in current] + [len(r.tokens)])
        if current and width * (len(current) + 1) > max_positions:
            groups.append(current)
            current = []
        current.append(r)
    if current:
        groups.append(current)
    random.Random(seed).shuffle(groups)
    return [PendingBatch(g, aux) for g in groups]


def collate(records: list[Record], aux: bool = False) -> Batch:
    width = max(len(r.tokens) for r in records)
    slots, hidden = records[0].states.shape[1:]
    tokens = torch.zeros(len(records), width, dtype=torch.long)
    features = torch.zeros(len(records), width - 1, hidden)
    inner = torch.zeros(len(records), width - 1, (slots - 1) * hidden) if aux else None
    for i, r in enumerate(records):
        n = len(r.tokens)
        tokens[i, :n] = r.tokens
        states = r.states.float()  # one read of the record's states (memory-mapped)
        features[i, :n - 1] = states[:, -1]
        if aux:
            inner[i, :n - 1] = states[:, :-1].flatten(1)
    return Batch(tokens, features, torch.tensor([len(r.tokens) for r in records]),
                 torch.tensor([r.prompt_length for r in records]), inner)


def padded_causal_mask(valid: torch.Tensor) -> torch.Tensor:
    """(B, 1, T, T) bool: causal, and no attention to padding (a padded query still sees itself, so no row is empty)."""
    t = valid.shape[1]
    causal = torch.ones(t, t, dtype=torch.bool, device=valid.device).tril()
    mask = causal[None] & valid[:, None, :]
    mask |= torch.eye(t, dtype=torch.bool, device=valid.device)[None]
    return mask[:, None]


def soft_cross_entropy(student_logits: torch.Tensor, teacher_logits: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """Mean over valid positions of H(softmax(teacher), softmax(student)): KL to the target plus a constant."""
    teacher = torch.softmax(teacher_logits.float(), dim=-1)
    loss = -(teacher * torch.log_softmax(student_logits.float(), dim=-1)).sum(-1)
    return (loss * valid).sum() / valid.sum().clamp(min=1)


@dataclass
class LoopSettings:
    steps: int
    lr: float = 5e-4
    warmup: int = 50
    eval_every: int = 100
    clip: float = 1.0
    seed: int = 0


def learning_rate(step: int, s: LoopSettings) -> float:
    """Linear warm-up, then cosine decay to a tenth."""
    if step < s.warmup:
        return s.lr * (step + 1) / s.warmup
    progress = min(1.0, (step - s.warmup) / max(1, s.steps - s.warmup))
    return s.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def train_loop(model: torch.nn.Module, batches: list[Batch], loss_fn: Callable[[Batch], dict],
               evaluate: Callable[[], dict], settings: LoopSettings, folder: Path, desc: str) -> dict:
    """Optimise `model`'s trainable parameters on `batches` (cycled, reshuffled per epoch) for `settings.steps`."""
    folder.mkdir(parents=True, exist_ok=True)
    params = [p for p in model.parameters() if p.requires_grad]
    device = params[0].device  # batches live on the CPU and travel to the model's device one at a time
    optimiser = torch.optim.AdamW(params, lr=settings.lr, weight_decay=0.0)
    checkpoint, log = folder / "checkpoint.pt", folder / "log.jsonl"
    step, earlier_minutes = 0, 0.0
    if checkpoint.exists():
        state = torch.load(checkpoint)
        model.load_state_dict(state["model"], strict=False)
        optimiser.load_state_dict(state["optimiser"])
        step, earlier_minutes = state["step"], state.get("minutes", 0.0)
    torch.manual_seed(settings.seed + step)
    started, last = time.perf_counter(), {}
    bar = tqdm(total=settings.steps, initial=step, desc=desc, unit="step")
    running = None
    while step < settings.steps:
        epoch, index = divmod(step, len(batches))
        if index == 0:
            random.Random(settings.seed + epoch).shuffle(batches)
        for group in optimiser.param_groups:
            group["lr"] = learning_rate(step, settings)
        model.train()
        losses = loss_fn(batches[index].to(device))
        optimiser.zero_grad(set_to_none=True)
        losses["loss"].backward()
        torch.nn.utils.clip_grad_norm_(params, settings.clip)
        optimiser.step()
        step += 1
        values = {k: float(v.detach()) for k, v in losses.items()}
        running = values if running is None else {k: 0.98 * running[k] + 0.02 * v for k, v in values.items()}
        bar.update(1)
        bar.set_postfix({k: f"{v:.3f}" for k, v in running.items()})
        if step % settings.eval_every == 0 or step == settings.steps:
            model.eval()
            last = {"step": step, "epoch": round(step / len(batches), 2),
                    "minutes": round(earlier_minutes + (time.perf_counter() - started) / 60, 2),
                    **{f"train_{k}": round(v, 4) for k, v in running.items()}, **evaluate()}
            with log.open("a") as f:
                f.write(json.dumps(last) + "\n")
            tqdm.write(json.dumps(last))
            torch.save({"model": {k: v for k, v in model.state_dict().items()}, "optimiser": optimiser.state_dict(),
                        "step": step, "minutes": last["minutes"]}, checkpoint)
    bar.close()
    return last
