"""The shared data step: the target answers prompts in batches, and we keep what the drafts learn from.

`specviz.distill.batched.BatchedDecoder` answers a batch of prompts at once, each with its own temperature and
seed, and records the target's states at every position. A record holds

    tokens    (L,)          prompt + response, cut after the first end-of-sequence token
    states    (L-1, S, H)   bfloat16; states[i] is what the target holds after reading tokens[:i+1]: the residual
                            stream entering its low, middle and high layer (EAGLE-3's features), then the final norm's
                            output (the LM head's input: lm_head(states[i, -1]) gives its distribution over tokens[i+1])

`features` (the final norm's output) is what the EAGLE-1 drafter and the separate draft learn from; `aux` (the three
layers) what the EAGLE-3 drafter reads. The target's probabilities are recomputed from `features` when needed.

Records are written in chunks, each a folder written whole or not at all, with memory-mapped arrays that training
streams from disk (the shipped EAGLE-3 drafter's 6,462,251 positions, prompts included, x 4 states x 576 x 2 bytes
are about 30 GB, too much to hold in memory):

    chunk-NNNN/records.jsonl   one line per record: id, offsets, lengths, temperature, the prompt's text
    chunk-NNNN/tokens.npy      int32, every record's tokens one after another
    chunk-NNNN/states.npy      uint16 (the bits of bfloat16), (positions, S, H)
    chunk-NNNN/info.json       the chunk's stage, answers (`jobs`; the seed stage answers each prompt twice),
                               sampled answers and their temperatures, new tokens, their limit, seconds, dtype
                               and slot names

A chunk that is there is skipped, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from specviz.core.paths import writing_folder
from specviz.distill.batched import BatchedDecoder, Row
from specviz.distill.prompts import Prompt
from specviz.models.pairs import encode_prompt


@dataclass
class Record:
    id: str
    tokens: torch.Tensor  # (L,) int64
    states: torch.Tensor  # (L-1, S, H) bfloat16
    prompt_length: int
    temperature: float = 0.0
    text: str = ""  # the prompt's (last) user turn

    @property
    def features(self) -> torch.Tensor:
        """(L-1, H): the final norm's output, the LM head's input."""
        return self.states[:, -1]

    @property
    def aux(self) -> torch.Tensor:
        """(L-1, S-1, H): the residual stream entering the low, middle and high layers."""
        return self.states[:, :-1]


@dataclass
class GenerationPlan:
    max_new_tokens: int = 192
    batch_size: int = 128
    temperature: float = 0.7  # for the sampled answers
    seed: int = 0


@dataclass(frozen=True)
class Job:
    """One answer to write: the prompt, which answer of that prompt it is, and its temperature (0: greedy)."""

    prompt: Prompt
    answer: int
    temperature: float

    @property
    def id(self) -> str:
        return f"{self.prompt.id}#{self.answer}"


def row_seed(seed: int, job_id: str) -> int:
    """A job's own seed, from the run's seed and the job's id: the same answer whatever batch it lands in."""
    return int.from_bytes(hashlib.sha256(f"{seed}/{job_id}".encode()).digest()[:7], "big")


def prompt_tokens(tokenizer, prompt: Prompt) -> list[int]:
    """The chat-template tokens of a prompt; a prompt with earlier `turns` becomes a conversation
    (user, assistant, ..., user)."""
    if not prompt.turns:
        return encode_prompt(tokenizer, prompt.text, chat=True)
    roles = ["user", "assistant"]
    messages = [{"role": roles[i % 2], "content": text} for i, text in enumerate((*prompt.turns, prompt.text))]
    encoded = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True, return_dict=True)
    return list(encoded["input_ids"])


def answer_jobs(jobs: Sequence[Job], model, tokenizer, plan: GenerationPlan, eos: set[int],
                decoder: BatchedDecoder | None = None) -> list[Record]:
    """Answer `jobs` in batches of `plan.batch_size` (prompts of similar length together: less padding)."""
    decoder = decoder or BatchedDecoder(model)
    encoded = [prompt_tokens(tokenizer, job.prompt) for job in jobs]
    order = sorted(range(len(jobs)), key=lambda i: len(encoded[i]))
    records: dict[int, Record] = {}
    for start in range(0, len(order), plan.batch_size):
        part = order[start:start + plan.batch_size]
        rows = [Row(encoded[i], jobs[i].temperature, row_seed(plan.seed, jobs[i].id)) for i in part]
        for i, out in zip(part, decoder.generate(rows, plan.max_new_tokens, eos)):
            records[i] = Record(jobs[i].id, out.tokens, out.features, out.prompt_length, jobs[i].temperature,
                                jobs[i].prompt.text)
    return [records[i] for i in range(len(jobs))]


def generate_batch(model, tokenizer, prompts: list[Prompt], plan: GenerationPlan, sampled: bool, seed: int,
                   eos: set[int]) -> list[Record]:
    """One batch of prompts, all greedy or all sampled at `plan.temperature` (the throughput checks time this)."""
    temperature = plan.temperature if sampled else 0.0
    jobs = [Job(p, seed, temperature) for p in prompts]
    return answer_jobs(jobs, model, tokenizer, GenerationPlan(plan.max_new_tokens, len(prompts) or 1,
                                                              plan.temperature, plan.seed), eos)


# ---- chunks on disk ------------------------------------------------------------------------------------------------

def write_chunk(folder: Path, records: Sequence[Record], info: dict) -> Path:
    """Write `records` as one chunk folder (whole or not at all)."""
    folder = Path(folder)
    with writing_folder(folder, complete=lambda f: (f / "info.json").is_file()) as tmp:
        tokens = np.concatenate([r.tokens.numpy().astype(np.int32) for r in records]) if records else \
            np.zeros(0, np.int32)
        np.save(tmp / "tokens.npy", tokens)
        positions = sum(len(r.tokens) - 1 for r in records)
        shape = (positions, *records[0].states.shape[1:]) if records else (0, 0, 0)
        states = np.lib.format.open_memmap(tmp / "states.npy", mode="w+", dtype=np.uint16, shape=shape)
        token_offset = state_offset = 0
        lines = []
        for r in records:
            n = len(r.tokens) - 1
            states[state_offset:state_offset + n] = r.states.to(torch.bfloat16).contiguous().view(torch.uint16).numpy()
            lines.append(json.dumps({"id": r.id, "tokens": token_offset, "states": state_offset, "length": len(r.tokens),
                                     "prompt_length": r.prompt_length, "temperature": r.temperature, "text": r.text}))
            token_offset += len(r.tokens)
            state_offset += n
        states.flush()
        del states
        (tmp / "records.jsonl").write_text("".join(line + "\n" for line in lines))
        (tmp / "info.json").write_text(json.dumps(info, indent=1) + "\n")
    return folder


def chunk_folders(*folders: Path) -> list[Path]:
    """Every finished chunk under `folders` (searched recursively), in path order."""
    found = []
    for folder in folders:
        found += [info.parent for info in Path(folder).rglob("info.json") if info.parent.name.startswith("chunk-")]
    return sorted(found)


def read_chunk(chunk: Path) -> Iterator[Record]:
    """The records of one chunk; their states are views into the memory-mapped file (nothing is read yet)."""
    tokens = np.load(chunk / "tokens.npy", mmap_mode="r")
    states = np.load(chunk / "states.npy", mmap_mode="r")
    for line in (chunk / "records.jsonl").read_text().splitlines():
        r = json.loads(line)
        n = r["length"]
        ids = torch.from_numpy(np.array(tokens[r["tokens"]:r["tokens"] + n], dtype=np.int64))
        view = torch.from_numpy(states[r["states"]:r["states"] + n - 1]).view(torch.bfloat16)
        yield Record(r["id"], ids, view, r["prompt_length"], r["temperature"], r["text"])


def load_records(*folders: Path) -> list[Record]:
    """Every record in the chunks under `folders`, chunk by chunk (states memory-mapped)."""
    import warnings

    with warnings.catch_warnings():  # numpy memmaps are read-only; torch warns about that, and nothing writes them
        warnings.simplefilter("ignore", UserWarning)
        return [r for chunk in chunk_folders(*folders) for r in read_chunk(chunk)]


def chunk_infos(*folders: Path) -> list[dict]:
    """The info.json of every chunk under `folders`, with its path."""
    return [{**json.loads((c / "info.json").read_text()), "chunk": str(c)} for c in chunk_folders(*folders)]


def answer_in_chunks(jobs: Sequence[Job], folder: Path, model, tokenizer, plan: GenerationPlan, eos: set[int],
                     chunk_jobs: int, desc: str, decoder: BatchedDecoder | None = None, bar=None) -> Path:
    """Answer `jobs` into chunk-NNNN folders of `chunk_jobs` jobs each under `folder`, skipping chunks already there;
    a progress bar counts jobs and shows tokens per second."""
    from tqdm import tqdm

    folder = Path(folder)
    decoder = decoder or BatchedDecoder(model)
    own_bar = bar is None
    bar = bar or tqdm(total=len(jobs), desc=desc, unit="answer", smoothing=0.05)
    for index, start in enumerate(range(0, len(jobs), chunk_jobs)):
        part = jobs[start:start + chunk_jobs]
        chunk = folder / f"chunk-{index:04d}"
        if (chunk / "info.json").exists():
            bar.update(len(part))
            continue
        t0 = time.perf_counter()
        records = answer_jobs(part, model, tokenizer, plan, eos, decoder)
        seconds = time.perf_counter() - t0
        new_tokens = sum(len(r.tokens) - r.prompt_length for r in records)
        write_chunk(chunk, records, {
            "stage": folder.name, "jobs": len(part), "new_tokens": new_tokens, "seconds": round(seconds, 2),
            "sampled": sum(j.temperature > 0 for j in part), "max_new_tokens": plan.max_new_tokens,
            "temperatures": sorted({j.temperature for j in part if j.temperature > 0}),  # the sampled answers
            "dtype": str(next(model.parameters()).dtype).removeprefix("torch."),
            "slots": [f"layer {i}" for i in decoder.aux_layers] + ["final norm"]})
        bar.update(len(part))
        bar.set_postfix(tok_s=f"{new_tokens / seconds:.0f}")
    if own_bar:
        bar.close()
    return folder
