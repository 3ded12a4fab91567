"""The measurements behind `python -m specviz.scripts.gpu_check`, one function each, device-agnostic and small enough
to run on the toy pair in a test.

    incremental_vs_full(model, ids)            # cached logits (one by one, K+1 at a time, after a rewind) vs one forward
    compare_outputs(model, prompt, outputs, reference)  # greedy outputs against one of them: where they part, why
    exactness_check(target, proposer, candidates, n=...)  # chi-square at T = 1: exact passes, a broken rule fails
    data_throughput(model, tokenizer, ...)     # the distill data step's tokens per second

Greedy identity across methods is checked as the algorithm's in float32 and as numerics in bfloat16: the verifier
scores K+1 tokens in one pass, plain decoding one at a time, and the two use different kernels whose roundings
differ. When the target's two best logits are closer than that rounding, the argmax can flip: in bfloat16 it does,
in float32 the rounding is so much finer that outputs have matched on every prompt checked so far (an observation,
not a guarantee: `specviz.engine.numerics`). `compare_outputs` reports the first position
where two outputs part and the target's top-2 logit gap there, which tells a near-tie (numerics: "lossless up to
numerics") from a real disagreement.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch

from specviz.engine.kvcache import CachedModel
from specviz.engine.numerics import NUMERICS_GAP, first_difference, top2_logits

LOGITS_TOLERANCE = 2e-3  # float32: cached and full forwards agree to rounding (TF32 off), far below NUMERICS_GAP
# a greedy split where the target's top-2 logits are closer than NUMERICS_GAP is a near-tie (specviz.engine.numerics, which
# the app's race, Playground and Exactness lab use too)


def _device(model) -> torch.device:
    return next(model.parameters()).device


# ---- the KV cache against a full forward ------------------------------------------------------------------------------


@torch.inference_mode()
def incremental_vs_full(model, ids: Sequence[int], chunk: int = 5) -> dict[str, Any]:
    """Logits for every position of `ids`, three ways through `CachedModel`, against one full forward without a
    cache: fed one token at a time (plain decoding), `chunk` tokens at a time (as the verifier feeds K+1), and after
    rewinding to the middle and feeding the rest again. Returns the largest absolute difference and the share of
    positions whose argmax agrees, for each way."""
    ids = [int(i) for i in ids]
    n = len(ids)
    full = model(input_ids=torch.tensor([ids], device=_device(model))).logits[0].float()  # (n, V)

    one = CachedModel(model)
    by_one = torch.cat([one.feed(ids[: i + 1]) for i in range(n)]).float()  # (n, V)

    chunked = CachedModel(model)
    rows = []
    for start in range(0, n, chunk):
        part = ids[: start + chunk]
        rows.append(chunked.feed(part, keep=len(part) - start))
    by_chunk = torch.cat(rows).float()

    half = n // 2
    chunked.rewind(half)
    after_rewind = chunked.feed(ids, keep=n - half).float()  # (n - half, V)

    ways = {"one_by_one": (by_one, full), f"chunks_of_{chunk}": (by_chunk, full),
            "after_rewind": (after_rewind, full[half:])}
    diffs = {name: float((a - b).abs().max()) for name, (a, b) in ways.items()}
    agree = {name: float((a.argmax(-1) == b.argmax(-1)).float().mean()) for name, (a, b) in ways.items()}
    return {"tokens": n, "max_abs_diff": diffs, "argmax_agreement": agree,
            "largest_logit": float(full.abs().max()), "tolerance": LOGITS_TOLERANCE,
            "ok": all(d <= LOGITS_TOLERANCE for d in diffs.values())}


# ---- greedy outputs: identical, or where and why they part ------------------------------------------------------------


def top2_gap(model, ids: Sequence[int]) -> dict[str, Any]:
    """The model's two most likely next tokens after `ids` and the gap between their logits (one full forward)."""
    tokens, values = top2_logits(model, ids)
    return {"top2_tokens": tokens, "top2_logits": values, "gap": values[0] - values[1]}


def compare_outputs(model, prompt: Sequence[int], outputs: dict[str, list[int]], reference: str,
                    gap_models: dict[str, Any] | None = None) -> dict[str, Any]:
    """Each method's greedy output against `outputs[reference]`: identical, or the first differing position (in
    new tokens), the two tokens there, and each of `gap_models`' top-2 logit gap after the common prefix (default:
    `model`'s). A split at a gap under NUMERICS_GAP is a near-tie that rounding can flip."""
    ref = outputs[reference]
    gap_models = gap_models or {"target": model}
    found = {}
    for name, out in outputs.items():
        if name == reference:
            continue
        at = first_difference(ref, out)
        entry: dict[str, Any] = {"identical": at is None, "tokens": len(out)}
        if at is not None:
            prefix = list(prompt) + ref[:at]
            gaps = {label: top2_gap(m, prefix) for label, m in gap_models.items()}
            entry.update(first_difference=at, reference_token=ref[at] if at < len(ref) else None,
                         other_token=out[at] if at < len(out) else None, gaps=gaps,
                         near_tie=all(g["gap"] < NUMERICS_GAP for g in gaps.values()))
        found[name] = entry
    return found


# ---- exactness: chi-square at T = 1 --------------------------------------------------------------------------------


@torch.inference_mode()
def exactness_check(target, proposer, candidates: Sequence[Sequence[int]], *, n: int, broken: str = "accept_all",
                    seed: int = 0, deadline: float | None = None, batch: int = 50,
                    progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """The first token of n two-token continuations at temperature 1, through the real engine with the exact rule
    and with `broken`, tested by chi-square against the target's exact next-token distribution p.

    Of the `candidates` (prompts as token ids), the one where `broken` would move the output furthest from p
    (largest TV between p and what the broken rule outputs) is used, so the control has a chance to fail. Samples
    come in batches of at most `batch`; each rule has half the time left until `deadline` (time.monotonic()), and a
    batch is cut to what fits in that time at the pace so far, so a rule stops in time and is tested on what it
    drew. `progress` sees the result as it grows (after each rule). The check passes when the exact rule is
    consistent with p (p-value >= 0.001) and the broken rule is not."""
    from specviz.labs.exactness import (chi_square_test, continuation_samples, exact_first_token_distribution,
                                   one_step_distribution, proposal_distribution, tv_distance)
    from specviz.engine.sampling import SamplingConfig

    sampling = SamplingConfig(temperature=1.0)
    scored = []
    for ids in candidates:
        p = exact_first_token_distribution(target, ids, sampling)
        q = proposal_distribution(proposer, ids, sampling, target.config.vocab_size, target=target)
        scored.append((tv_distance(one_step_distribution(broken, p, q)[0], p), list(ids), p))
    tv, ids, p = max(scored, key=lambda s: s[0])
    result: dict[str, Any] = {"prompt_tokens": len(ids), "candidates": len(scored), "broken_rule": broken,
                              "tv_broken_vs_p": tv, "samples_asked": n}
    for i, rule in enumerate(("exact", broken)):
        until = None if deadline is None else time.monotonic() + (deadline - time.monotonic()) / (2 - i)
        firsts, drafted, accepted, pace = [], 0, 0, 0.0  # pace: seconds per sample so far
        while len(firsts) < n:
            left = None if until is None else until - time.monotonic()
            fits = max(1, batch // 5) if not pace else n if left is None else int(left / pace)  # probe first
            m = min(batch, n - len(firsts), fits)
            if m < 1 or (left is not None and left <= 0):
                break
            t0 = time.monotonic()
            samples = continuation_samples(target, proposer, ids, n=m, length=2, rule=rule, k=4, sampling=sampling,
                                           seed=seed + len(firsts), autoregressive=False)
            pace = (time.monotonic() - t0) / m
            firsts += [s[0] for s in samples.speculative]
            drafted += samples.drafted
            accepted += samples.accepted
        if not firsts:
            result[rule] = {"samples": 0}
            continue
        test = chi_square_test(torch.bincount(torch.tensor(firsts), minlength=p.shape[0]), p)
        result[rule] = {"samples": len(firsts), **verdict_record(test),
                        "acceptance_rate": accepted / drafted if drafted else None,
                        "seconds_per_sample": pace}
        if progress is not None:
            progress(result)
    exact, control = result["exact"], result[broken]
    result["ok"] = bool(exact.get("consistent")) and control.get("consistent") is False
    return result


def verdict_record(test: Any) -> dict[str, Any]:
    """What a record keeps of a `specviz.labs.exactness.stats.ChiSquareResult`: which test gave the p-value (its
    `test`), and a chi-square statistic and degrees of freedom only where that test ran, None elsewhere (read 54: the
    exact binomial's p-value sat beside "statistic": 0.0, "dof": 0, a chi-square test never computed, and nothing
    named the test).

    >>> from specviz.labs.exactness.stats import chi_square_test
    >>> record = verdict_record(chi_square_test([1995, 5, 0], [0.9988, 0.0012, 0.0]))
    >>> record["test"], record["statistic"], record["dof"], round(record["p_value"], 3)
    ('exact binomial', None, None, 0.096)
    """
    chi = test.test == "chi-square"
    return {"test": test.test, "p_value": test.p_value, "statistic": test.statistic if chi else None,
            "dof": test.dof if chi else None, "bins": test.bins, "consistent": test.consistent,
            "verdict": test.verdict}


# ---- the distill data step ---------------------------------------------------------------------------------------------


def data_throughput(model, tokenizer, *, prompts: int, batch_size: int, max_new_tokens: int,
                    deadline: float | None = None, full_prompts: int = 3064,
                    progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """The distill data step's core on the first `prompts` training prompts, timed batch by batch: batched generation
    (`specviz.distill.data.generate_batch`, the step's `BatchedDecoder`) recording at every position the residual
    stream entering three of the target's layers and the final norm's output, then the batch written as a chunk
    folder (`write_chunk`, as the step writes its chunks). Also the time `full_prompts` answers (3,064: the 3,000
    template x topic prompts once and the 64 held-out ones) would take at that rate. That is not the whole data
    step: its stages (`specviz.distill.stages.DataScale`) answer the seed prompts twice, extra topics, questions,
    follow-ups, rewrites and drills too: up to about twelve times as many jobs at the default scale (so
    `estimated_full_step_minutes` is those 3,064 answers' time, not the step's). A batch starts only if one more at
    the pace so far ends before `deadline`; `progress` sees the result after each batch."""
    from specviz.distill.data import GenerationPlan, generate_batch, write_chunk
    from specviz.distill.prompts import prompt_sets
    from specviz.engine.generation import eos_ids

    train, _ = prompt_sets(max(prompts, 1500), 64, seed=0)
    chosen = train[:prompts]
    plan = GenerationPlan(max_new_tokens=max_new_tokens, batch_size=batch_size)
    eos = eos_ids(model, tokenizer)
    batches, tokens, seconds = [], 0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(0, len(chosen), batch_size):
            longest = max((b["seconds"] for b in batches), default=0.0)
            if deadline is not None and time.monotonic() + longest > deadline:
                break
            part = chosen[index:index + batch_size]
            # half the batches sampled at T = 0.7, as most of the step's stages answer half their jobs sampled (the
            # step mixes greedy and sampled rows in one batch, each row with its own temperature; here whole batches
            # alternate)
            sampled = (index // batch_size) % 2 == 1
            t0 = time.perf_counter()
            records = generate_batch(model, tokenizer, part, plan, sampled, index, eos)
            write_chunk(Path(tmp) / f"chunk-{index // batch_size:04d}", records, {"jobs": len(records)})
            took = time.perf_counter() - t0
            new = sum(len(r.tokens) - r.prompt_length for r in records)
            batches.append({"prompts": len(part), "sampled": sampled, "new_tokens": new, "seconds": took})
            tokens += new
            seconds += took
            if progress is not None:
                progress(_throughput(batches, tokens, seconds, batch_size, max_new_tokens, full_prompts))
    return _throughput(batches, tokens, seconds, batch_size, max_new_tokens, full_prompts)


def _throughput(batches: list[dict], tokens: int, seconds: float, batch_size: int, max_new_tokens: int,
                full_prompts: int) -> dict[str, Any]:
    done = sum(b["prompts"] for b in batches)
    per_prompt = seconds / done if done else None
    return {"prompts": done, "batch_size": batch_size, "max_new_tokens": max_new_tokens, "batches": list(batches),
            "new_tokens": tokens, "seconds": seconds, "tokens_per_second": tokens / seconds if seconds else None,
            "estimated_full_step_minutes": per_prompt * full_prompts / 60 if per_prompt else None}
