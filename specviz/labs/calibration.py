"""This machine's costs for a loaded pair, measured once and cached: what a speculative step costs here.

    cal = calibrate(pair)              # cached; about 5-10 s the first time on a 2-core CPU
    cal.ratio(17)                      # one target forward over 17 new tokens, in one-token forwards
    cal.c                              # one drafter pass, in one-token target forwards
    cal.generate_ratio                 # a token of model.generate, in one-token target forwards

It times the loaded target's forward over n = 1, 2, 3, 5, 9, 17, 25 and 33 new tokens after a cached context (the
engine's own runner, so the same kernels as a run), one pass of the pair's drafter, and a token of `model.generate`
on the same loaded model (the baseline every speedup is measured against). Each round times every forward once, so a
burst of load hits them all alike; each figure is the median of its rounds, after a warm-up. `spread` compares the
medians of the first and the second half of the rounds: above 15 % the machine was not quiet, the rounds are
measured once more, and a calibration still that noisy says so (`quiet`) and is not cached.

The result is cached under `$SPECVIZ_CACHE/calibration/`, one file per CPU (model and the instruction sets that
matter), dtype, kernels, torch version, threads and pair, so another machine, dtype or PyTorch measures again;
`calibrate(pair, force=True)` (`python -m specviz calibrate --force`) re-measures.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import torch

from specviz.core.paths import cache_dir, write_text_atomically
from specviz.engine.generation import Clock, default_clock, synchronize
from specviz.labs.bench.summary import curve_ratio
from specviz.labs.bench.timing import ISA_LIMITS, feature_draft_timer, forward_timer, utc_now
from specviz.models.machine import cpu_has_bf16, cpu_model, cpu_speed_flags, dtype_name

SIZES = (1, 2, 3, 5, 9, 17, 25, 33)  # tokens fed: one, chains of K = 1, 2, 4, trees of 8, 16, 24 (+ lookup), 32
ROUNDS = 7
QUIET_SPREAD = 0.15  # halves of the rounds disagreeing by more than this: the machine was busy
CONTEXT = ("Speculative decoding lets a small draft model propose several tokens, and the large target model checks "
           "all of them in one forward pass, keeping exactly the distribution it would have sampled alone.")
VERSION = 1


@dataclass(frozen=True)
class Calibration:
    """One machine's measured costs for one pair, dtype and set of kernels (seconds are medians)."""

    pair: str
    proposer: str
    dtype: str
    device: str
    kernels: str
    cpu: str
    cpu_flags: tuple[str, ...]
    cpu_bf16: bool
    torch: str
    threads: int
    verify: tuple[tuple[int, float], ...]  # (tokens fed, seconds of one target forward)
    drafter_seconds: float  # one drafting pass (a feature drafter's layer and head, a draft model's forward)
    generate_seconds: float  # one token of model.generate, greedy, prefill excluded
    spread: float  # the largest disagreement between the two halves of the rounds, as a fraction
    measured_at: str = ""
    took_seconds: float = 0.0
    context_tokens: int = 0
    version: int = VERSION
    notes: tuple[str, ...] = field(default=())

    @property
    def one(self) -> float:
        """Seconds of a one-token target forward."""
        return dict(self.verify)[1]

    def ratio(self, n_tokens: float) -> float:
        """The cost of a target forward over `n_tokens` new tokens, in one-token forwards (linear between the
        measured sizes, the last slope beyond them).

        >>> cal = Calibration("p", "eagle", "float32", "cpu", "stock", "cpu", (), False, "2", 2,
        ...                   ((1, 0.05), (5, 0.055), (9, 0.065)), 0.004, 0.06, 0.0)
        >>> round(cal.ratio(5), 3), round(cal.ratio(7), 3), round(cal.c, 3), round(cal.generate_ratio, 3)
        (1.1, 1.2, 0.08, 1.2)
        """
        return curve_ratio(self.curve(), n_tokens)

    def curve(self) -> list[dict[str, float]]:
        """The verify curve in the bench's form: [{"n_tokens", "seconds", "ratio"}]."""
        return [{"n_tokens": n, "seconds": s, "ratio": s / self.one} for n, s in self.verify]

    @property
    def c(self) -> float:
        """One drafter pass in one-token target forwards."""
        return self.drafter_seconds / self.one

    @property
    def generate_ratio(self) -> float:
        """One token of `model.generate` in one-token target forwards (above 1: its per-call machinery)."""
        return self.generate_seconds / self.one

    @property
    def quiet(self) -> bool:
        return self.spread <= QUIET_SPREAD

    @property
    def machine(self) -> str:
        """"AMD EPYC, 2 threads, avx2 avx512f avx512_bf16": the machine in one plain line."""
        return f"{self.cpu}, {self.threads} threads, " + (" ".join(self.cpu_flags) or "no listed instruction sets")

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str) -> Calibration:
        raw = json.loads(text)
        if raw.get("version") != VERSION:
            raise ValueError("calibration of another version")
        raw["verify"] = tuple((int(n), float(s)) for n, s in raw["verify"])
        raw["cpu_flags"], raw["notes"] = tuple(raw["cpu_flags"]), tuple(raw.get("notes", ()))
        return cls(**raw)


# ---- the cache ------------------------------------------------------------------------------------------------------


def cache_key(pair_name: str, dtype: str, kernels: str, device: str = "cpu") -> str:
    """The file name of a calibration: readable parts and a hash of everything that changes the costs (the
    environment variables that cap the instruction sets the kernels use included: a machine told to act as an AVX2
    one is another machine)."""
    limits = [f"{name}={os.environ[name]}" for name in ISA_LIMITS if os.environ.get(name)]
    parts = [pair_name, dtype, kernels, device, cpu_model(), " ".join(cpu_speed_flags()), torch.__version__,
             str(torch.get_num_threads()), str(VERSION), *limits]
    digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    safe = "".join(ch if ch.isalnum() else "-" for ch in pair_name)[:40]
    return f"{safe}-{dtype}-{kernels}-{digest}.json"


def cache_path(pair_name: str, dtype: str, kernels: str, device: str = "cpu"):
    return cache_dir() / "calibration" / cache_key(pair_name, dtype, kernels, device)


def cached(pair_name: str, dtype: str, kernels: str, device: str = "cpu") -> Calibration | None:
    """The cached calibration of this machine for the pair, dtype and kernels; None if there is none (or it cannot be
    read: it is then measured again)."""
    path = cache_path(pair_name, dtype, kernels, device)
    try:
        return Calibration.from_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def cached_for(pair) -> Calibration | None:
    """The cached calibration of a loaded pair (its name, dtype, kernels and device)."""
    return cached(pair.name, dtype_name(pair.dtype), pair.kernels, str(pair.device))


def calibrate(pair, proposer: str | None = None, force: bool = False, progress: Callable[[str], None] | None = None,
              clock: Clock = default_clock) -> Calibration:
    """This machine's costs for a loaded pair: the cached calibration, else a new measurement (cached when quiet)."""
    if not force:
        found = cached_for(pair)
        if found is not None and found.proposer == (proposer or pair.default_proposer):
            return found
    cal = measure(pair, proposer, progress=progress, clock=clock)
    if cal.quiet:
        try:
            write_text_atomically(cache_path(pair.name, cal.dtype, cal.kernels, cal.device), cal.to_json())
        except OSError:
            pass  # a read-only cache: measured again next time
    return cal


# ---- the measurement ------------------------------------------------------------------------------------------------


def measure(pair, proposer: str | None = None, sizes=SIZES, rounds: int = ROUNDS,
            progress: Callable[[str], None] | None = None, clock: Clock = default_clock) -> Calibration:
    """Time the target's forward over each of `sizes`, one drafter pass and a token of `model.generate`, in
    interleaved rounds; once more if the two halves of the rounds disagree by more than `QUIET_SPREAD`."""
    from specviz.engine.proposers import make_proposer

    started = time.perf_counter()
    proposer = proposer or pair.default_proposer
    context = list(pair.tokenizer(CONTEXT)["input_ids"])[:48] if pair.name != "toy" else list(range(3, 27))
    (progress or (lambda _: None))(f"Measuring this machine: {pair.name}, {dtype_name(pair.dtype)}")
    timers: dict[object, Callable[[], float]] = {n: forward_timer(pair.target, context, n, clock) for n in sizes}
    timers["drafter"] = _drafter_timer(pair, make_proposer(pair, proposer), context, clock)
    timers["generate"] = _generate_timer(pair.target, context, clock)
    times: dict[object, list[float]] = defaultdict(list)
    notes = [f"kernels capped by {name}={os.environ[name]}" for name in ISA_LIMITS if os.environ.get(name)]
    for attempt in range(2):
        for _ in range(rounds):
            for key, timer in timers.items():
                times[key].append(timer())
        spread = max(_spread(times[key]) for key in (1, max(sizes)))
        if spread <= QUIET_SPREAD:
            break
        notes.append(f"round {attempt + 1}: halves disagreed by {spread:.0%}")
    median = {key: statistics.median(values) for key, values in times.items()}
    return Calibration(
        pair=pair.name, proposer=proposer, dtype=dtype_name(pair.dtype), device=str(pair.device),
        kernels=pair.kernels, cpu=cpu_model(), cpu_flags=tuple(cpu_speed_flags()), cpu_bf16=cpu_has_bf16(),
        torch=torch.__version__, threads=torch.get_num_threads(),
        verify=tuple((n, median[n]) for n in sorted(sizes)), drafter_seconds=median["drafter"],
        generate_seconds=median["generate"], spread=round(spread, 4), measured_at=utc_now(),
        took_seconds=round(time.perf_counter() - started, 2), context_tokens=len(context), notes=tuple(notes))


def _spread(values: list[float]) -> float:
    """How far the medians of the first and second half of `values` are apart, over the smaller one."""
    half = len(values) // 2
    a, b = statistics.median(values[:half]), statistics.median(values[half:])
    return abs(a - b) / max(min(a, b), 1e-12)


def _drafter_timer(pair, proposer, context: list[int], clock: Clock) -> Callable[[], float]:
    """One drafting pass: a feature drafter's layer and head, a draft model's one-token forward, else nothing."""
    if proposer.needs_target_features:
        return feature_draft_timer(pair.target, proposer, context, clock)
    runner = getattr(proposer, "runner", None)
    if runner is not None:
        return forward_timer(runner.model, context, 1, clock)
    return lambda: 0.0


GENERATE_SHORT, GENERATE_LONG = 2, 8


def _generate_timer(model, context: list[int], clock: Clock) -> Callable[[], float]:
    """Seconds per token of greedy `model.generate` after the prefill: (time of 8 new tokens − time of 2) / 6."""
    device = next(model.parameters()).device
    ids = torch.tensor([context], device=device)
    mask = torch.ones_like(ids)

    def timed(n: int) -> float:
        synchronize(device)
        t0 = clock()
        with torch.inference_mode():
            model.generate(ids, attention_mask=mask, max_new_tokens=n, min_new_tokens=n, do_sample=False,
                           pad_token_id=0)
        synchronize(device)
        return clock() - t0

    def once() -> float:
        return max(timed(GENERATE_LONG) - timed(GENERATE_SHORT), 1e-9) / (GENERATE_LONG - GENERATE_SHORT)

    once()
    return once
