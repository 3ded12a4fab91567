"""The shared data step: the target answers every prompt, and we keep what the drafts learn from.

For each prompt the target generates a response (batched, left-padded; even batches greedy, odd batches sampled
at temperature 0.7). More passes over the same prompts give more data: the second pass swaps the parity (every
prompt then has one greedy and one sampled answer), later passes sample every batch, each with its own seeds. A forward hook on the target's final norm records its last hidden state at every position,
the prompt's included. A record holds

    tokens    (L,)       prompt + response, cut after the first end-of-sequence token
    features  (L-1, H)   float16; features[i] is the target's last hidden state after reading tokens[:i+1],
                         so lm_head(features[i]) gives the target's distribution over tokens[i+1]

The target's next-token probabilities are lm_head(features) (softmax), recomputed when they are needed rather than
stored. Shards are written one batch at a time and skipped when present, so an interrupted run resumes.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

import torch
from tqdm import tqdm

from specviz.core.paths import writing_file
from specviz.distill.prompts import Prompt
from specviz.models.pairs import encode_prompt


@dataclass
class Record:
    id: str
    tokens: torch.Tensor  # (L,) int64
    features: torch.Tensor  # (L-1, H) float16
    prompt_length: int


@dataclass
class GenerationPlan:
    max_new_tokens: int = 128
    batch_size: int = 64
    temperature: float = 0.7  # for the sampled half
    seed: int = 0


class FinalNormRecorder:
    """Collects the output of the model's final norm (the LM head's input) over one `generate` call."""

    def __init__(self, model):
        self.chunks: list[torch.Tensor] = []
        self.handle = final_norm(model).register_forward_hook(self._hook)

    def _hook(self, module, args, output):
        self.chunks.append(output.detach().to(torch.float16).cpu())

    def features(self) -> torch.Tensor:
        return torch.cat(self.chunks, dim=1)  # (B, T, H)

    def close(self) -> None:
        self.handle.remove()


def final_norm(model) -> torch.nn.Module:
    return model.model.norm


@torch.inference_mode()
def generate_batch(model, tokenizer, prompts: list[Prompt], plan: GenerationPlan, sampled: bool, seed: int,
                   eos: set[int]) -> list[Record]:
    """One left-padded batch through `model.generate`, with the final-norm features of every position."""
    encoded = [encode_prompt(tokenizer, p.text, chat=True) for p in prompts]
    width = max(len(e) for e in encoded)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else next(iter(eos))
    device = next(model.parameters()).device
    ids = torch.tensor([[pad] * (width - len(e)) + e for e in encoded], device=device)
    mask = torch.tensor([[0] * (width - len(e)) + [1] * len(e) for e in encoded], device=device)
    torch.manual_seed(seed)
    recorder = FinalNormRecorder(model)
    try:
        out = model.generate(
            input_ids=ids, attention_mask=mask, max_new_tokens=plan.max_new_tokens, do_sample=sampled,
            temperature=plan.temperature if sampled else None, top_k=0 if sampled else None, top_p=1.0 if sampled else None,
            pad_token_id=pad, eos_token_id=sorted(eos),
        )
        feats = recorder.features()
    finally:
        recorder.close()
    records = []
    for row, (prompt, enc) in enumerate(zip(prompts, encoded)):
        response = out[row, width:].tolist()
        cut = next((i + 1 for i, t in enumerate(response) if t in eos), len(response))
        tokens = enc + response[:cut]
        start = width - len(enc)
        records.append(Record(prompt.id, torch.tensor(tokens), feats[row, start:start + len(tokens) - 1].clone(),
                              len(enc)))
    return records


def batch_is_sampled(index: int, pass_index: int) -> bool:
    """Pass 0 samples the odd batches, pass 1 the even ones (the prompts pass 0 answered greedily), later passes all."""
    return pass_index >= 2 or (index + pass_index) % 2 == 1


def batch_seed(plan: GenerationPlan, index: int, pass_index: int) -> int:
    return plan.seed * 100_003 + pass_index * 1_009 + index


def pass_folder(work: Path, pass_index: int) -> Path:
    return Path(work) / ("train" if pass_index == 0 else f"train-pass{pass_index + 1}")


def training_folders(work: Path) -> list[Path]:
    """The data step's training folders in pass order: `train`, then `train-pass2`, `train-pass3`, ..."""
    numbers = sorted(int(m.group(1)) for f in Path(work).glob("train-pass*")
                     if (m := re.fullmatch(r"train-pass(\d+)", f.name)) and int(m.group(1)) >= 2)
    return [pass_folder(work, 0), *(pass_folder(work, n - 1) for n in numbers)]


def generate_records(model, tokenizer, prompts: list[Prompt], folder: Path, plan: GenerationPlan, eos: set[int],
                     sampled_share: bool = True, desc: str = "target responses", pass_index: int = 0) -> Path:
    """Write shard-NNNN.pt files into `folder` (skipping those already there) and a log of tokens per second.
    `pass_index` > 0 answers the same prompts again with other seeds (see `batch_is_sampled`)."""
    folder.mkdir(parents=True, exist_ok=True)
    lengths = {p.id: len(encode_prompt(tokenizer, p.text, chat=True)) for p in prompts}
    ordered = sorted(prompts, key=lambda p: lengths[p.id])  # similar lengths share a batch: less padding
    batches = [ordered[i:i + plan.batch_size] for i in range(0, len(ordered), plan.batch_size)]
    log = folder / "log.jsonl"
    bar = tqdm(batches, desc=desc, unit="batch")
    for index, batch in enumerate(bar):
        shard = folder / f"shard-{index:04d}.pt"
        if shard.exists():
            continue
        sampled = sampled_share and batch_is_sampled(index, pass_index)
        t0 = time.perf_counter()
        records = generate_batch(model, tokenizer, batch, plan, sampled, batch_seed(plan, index, pass_index), eos)
        seconds = time.perf_counter() - t0
        new_tokens = sum(len(r.tokens) - r.prompt_length for r in records)
        with writing_file(shard, binary=True) as file:  # a shard is there whole or not at all (specviz.core.paths)
            torch.save({"records": [r.__dict__ for r in records], "sampled": sampled}, file)
        bar.set_postfix(tok_s=f"{new_tokens / seconds:.0f}")
        with log.open("a") as f:
            f.write(json.dumps({"shard": index, "sampled": sampled, "prompts": len(batch), "new_tokens": new_tokens,
                                "seconds": round(seconds, 2)}) + "\n")
    return folder


def load_records(*folders: Path) -> list[Record]:
    """Every record in the data folders' shards, folder by folder in shard order."""
    records = []
    for shard in (s for folder in folders for s in sorted(Path(folder).glob("shard-*.pt"))):
        for r in torch.load(shard)["records"]:
            records.append(Record(**r))
    return records
