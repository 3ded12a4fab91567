"""This machine's costs for a loaded pair, measured and cached when quiet: what a speculative step costs here.

    cal = calibrate(pair)              # cached; the first time it measures (`took_seconds` says how long)
    cal.ratio(17)                      # one target forward over 17 new tokens, in one-token forwards
    cal.c                              # one drafter pass, in one-token target forwards
    cal.generate_ratio                 # a token of model.generate, in one-token target forwards

It times the loaded target's forward over n = 1, 2, 3, 5, 9, 17, 25 and 33 new tokens after a cached context (the
engine's own runner, so the same kernels as a run), one pass of the pair's drafter, and a token of `model.generate`
on the same loaded model (the baseline of the speedups `specviz.labs.shape_choice` predicts). Then short real runs
(a chain, and a tree when the proposer can draft one, each greedy and at T = 0.7: four for the default pair's EAGLE
drafter, two for n-gram lookup; 24 tokens of an everyday question each) give what a step costs besides its verify
forward: the drafter's pass as the loop really pays it (sampling, top-k and tree bookkeeping included) and the step's
own overhead (the rule, cache rewinds).

Each round times every forward once, so a burst of load hits them all alike; each figure is the median of its rounds,
after a warm-up. `model.generate`, greedy and sampling at T = 0.7 (the baseline of a sampled run pays for its
warpers and its draw), is timed in the first three rounds only (its 8 timed tokens cost as much as a round), as a ratio
to that round's one-token forward. `spread` compares, for the one-token and the longest forward, the medians of the
first and the second half of the rounds, and each kind's three generate ratios with each other: above 15% the machine
was not quiet, everything is measured once more, and a calibration still that noisy says so (`quiet`) and is not
cached.

The result is cached under `$SPECVIZ_CACHE/calibration/`, one file per CPU (model and the instruction sets that
matter), device (on a GPU, its model too), dtype, kernels, torch version, threads, pair and proposer, so another
machine, GPU, dtype, PyTorch or proposer measures again;
`calibrate(pair, force=True)` (`python -m specviz calibrate --force`) re-measures.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import torch

from specviz.core.i18n import _, as_written, fewest_digits, ngettext, number, percent, small_digits
from specviz.core.paths import cache_dir, write_text_atomically
from specviz.engine.draft_shape import DraftShape
from specviz.engine.generation import Clock, default_clock, synchronize
from specviz.engine.limits import is_number, is_whole
from specviz.labs.bench.summary import count_text, curve_ratio
from specviz.labs.bench.timing import ISA_LIMITS, feature_draft_timer, forward_timer, utc_now
from specviz.models.machine import cpu_has_bf16, cpu_model, cpu_speed_flags, dtype_name

SIZES = (1, 2, 3, 5, 9, 17, 25, 33)  # tokens fed: one, chains of K = 1, 2, 4, trees of 8, 16, 24 (+ lookup), 32
ROUNDS = 6
GENERATE_ROUNDS = 3  # model.generate's token is timed in the first rounds only: it costs as much as a round
QUIET_SPREAD = 0.15  # halves of the rounds disagreeing by more than this: the machine was busy
CONTEXT = ("Speculative decoding lets a small draft model propose several tokens, and the large target model checks "
           "all of them in one forward pass, keeping exactly the distribution it would have sampled alone.")
PROBE_PROMPT = "How do vaccines work?"  # an everyday question (assets/prompts/everyday.yaml), not a held-out one
VERSION = 3
PROBES = {"chain": DraftShape(2), "tree": DraftShape(3, 8, 4)}  # the short real runs, per kind of shape
PROBE_TOKENS = 24
PROBE_TEMPERATURES = {"greedy": 0.0, "sampled": 0.7}


class TooBusy(ValueError):
    """No round of model.generate could be timed: every one took no longer for 10 tokens than for 2."""


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
    # one drafting pass (a feature drafter's layer and head, a draft model's forward); 0: not timed, a proposer that
    # runs no model (n-gram lookup), whose lookups the short real runs in `steps` time
    drafter_seconds: float
    generate_seconds: float  # one token of model.generate, greedy, prefill excluded
    spread: float  # the largest disagreement between the two halves of the rounds, as a fraction
    # ("chain-greedy" | "chain-sampled" | "tree-greedy" | "tree-sampled", seconds of one drafter pass, seconds of a
    # step's overhead), from the short real runs
    steps: tuple[tuple[str, float, float], ...] = ()
    sampled_generate_seconds: float = 0.0  # one token of model.generate(do_sample=True, T = 0.7); 0: not measured
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

    def step_costs(self, tree: bool, temperature: float) -> tuple[float, float]:
        """(seconds of one drafter pass, seconds of a step's overhead) as a real run of that kind paid them; a tree
        falls back to the chain's, and without real runs the timed drafter pass and no overhead.

        >>> cal = Calibration("p", "eagle", "float32", "cpu", "stock", "cpu", (), False, "2", 2, ((1, 0.05),),
        ...                   0.004, 0.06, 0.0, steps=(("chain-greedy", 0.0045, 0.002),))
        >>> cal.step_costs(True, 0.0), cal.step_costs(False, 0.7)
        ((0.0045, 0.002), (0.004, 0.0))
        """
        found = {key: (draft, overhead) for key, draft, overhead in self.steps}
        mode = "greedy" if temperature <= 0 else "sampled"
        for kind in (("tree", "chain") if tree else ("chain",)):
            if f"{kind}-{mode}" in found:
                return found[f"{kind}-{mode}"]
        return self.drafter_seconds, 0.0

    @property
    def generate_ratio(self) -> float:
        """One token of `model.generate` in one-token target forwards (above 1: its per-call machinery)."""
        return self.generate_seconds / self.one

    def baseline_ratio(self, temperature: float) -> float:
        """One token of the baseline a run at `temperature` is measured against, `model.generate` greedy or with
        do_sample=True, in one-token target forwards (sampling adds its warpers and its draw)."""
        if temperature > 0 and self.sampled_generate_seconds > 0:
            return self.sampled_generate_seconds / self.one
        return self.generate_ratio

    @property
    def quiet(self) -> bool:
        return self.spread <= QUIET_SPREAD

    def disagreement(self, digits: int = 0) -> str:
        """Why a busy measurement is not kept, in the reader's language: how far its rounds disagreed, or that they
        could not be compared (a round of model.generate whose 10 tokens took no longer than its 2; `spread` is then
        infinite)."""
        if math.isfinite(self.spread):
            return _("the rounds disagreed by {spread}", spread=percent(self.spread, digits))
        return _("a timing of model.generate came out zero or negative, so the rounds could not be compared")

    @property
    def timed_on(self) -> str:
        """What the costs were timed on, as a sentence names it: the CPU's model on a CPU, else the device
        ("cuda:0"), whose times they are (read 48: a GPU's costs were said to be the host CPU's).

        >>> cal = Calibration("p", "eagle", "bfloat16", "cuda:0", "stock", "AMD EPYC", (), True, "2", 16, ((1, 0.02),),
        ...                   0.002, 0.03, 0.0)
        >>> import dataclasses
        >>> cal.timed_on, dataclasses.replace(cal, device="cpu").timed_on
        ('cuda:0', 'AMD EPYC')
        """
        return self.cpu if self.device == "cpu" else self.device

    @property
    def machine(self) -> str:
        """"AMD EPYC, 2 threads, avx2 avx512f avx512_bf16": the machine in one plain line (English, as the files
        targets_bench writes print it; `machine_words` is the reader's language)."""
        flags = " ".join(self.cpu_flags) or "no listed instruction sets"
        return f"{self.cpu}, {count_text(self.threads, 'thread')}, {flags}"

    def machine_words(self) -> str:
        """`machine` in the reader's language, for the calibrate command and the This machine panel: a CPU with none
        of the listed instruction sets (an ARM laptop's) says so in Portuguese too."""
        flags = " ".join(self.cpu_flags) or _("no listed instruction sets")
        threads = ngettext("{n} thread", "{n} threads", self.threads)
        return _("{cpu}, {threads}, {flags}", cpu=self.cpu, threads=threads, flags=flags)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str) -> Calibration:
        raw = json.loads(text)
        if not isinstance(raw, dict) or raw.get("version") != VERSION:
            raise ValueError("calibration of another version")
        raw["verify"] = tuple((int(n), float(s)) for n, s in raw["verify"])
        if not all(1e-9 <= s <= 1e6 for _n, s in raw["verify"]) or 1 not in dict(raw["verify"]):
            raise ValueError("a damaged verify curve")  # every ratio divides by the one-token forward
        raw["cpu_flags"], raw["notes"] = tuple(raw["cpu_flags"]), tuple(raw.get("notes", ()))
        raw["steps"] = tuple((str(k), float(d), float(o)) for k, d, o in raw.get("steps", ()))
        if not _readable(raw):  # "drafter_seconds": null loaded, then the Race page divided by it (30th read)
            raise ValueError("a damaged calibration")
        return cls(**raw)


def ms_decimals(cal) -> int:
    """The decimals a calibration's milliseconds are written with (`calibrate` and the "This machine" panel): 1, or
    as many more (up to 4) as it takes for each cost as written ÷ the one-token forward as written to give the ratio
    written beside it. Read 53: a toy pair's cached costs read "n=1: 1.1 ms (1.00)   n=2: 1.1 ms (1.05)" and
    "model.generate: 1.6 ms = 1.48", where 1.6 ÷ 1.1 is 1.45; the panel's table read "1.1 | 1.05" and "1.2 | 1.11".

    >>> from types import SimpleNamespace
    >>> ms_decimals(SimpleNamespace(one=0.01, verify=((1, 0.01), (3, 0.012)), drafter_seconds=0.0,
    ...                             generate_seconds=0.012, sampled_generate_seconds=0.0))
    1
    >>> ms_decimals(SimpleNamespace(one=0.0010739, verify=((1, 0.0010739), (3, 0.0011322)), drafter_seconds=0.0,
    ...                             generate_seconds=0.00159, sampled_generate_seconds=0.0))
    3
    >>> ms_decimals(SimpleNamespace(one=1e-4, verify=((1, 1e-4), (2, 9.5e-5)), drafter_seconds=0.0,
    ...                             generate_seconds=1e-4, sampled_generate_seconds=0.0))  # 0.1 ms (0.95): 3
    3
    """
    costs = [s for _n, s in cal.verify] + [cal.generate_seconds, cal.sampled_generate_seconds]

    def follows(decimals: int) -> bool:
        one = as_written(cal.one * 1e3, decimals)
        # each cost as it is written: the forwards and model.generate by `number` at `decimals` (read 54: written by
        # `small_number` here, a 0.095 ms forward passed as 0.095 where calibrate wrote "0.1 ms (0.95)"), the drafter
        # pass by `small_number`, as its c
        ratios = [(as_written(s * 1e3, decimals), s / cal.one, 2) for s in costs if s > 0]
        if cal.drafter_seconds > 0:
            ms = cal.drafter_seconds * 1e3
            ratios.append((as_written(ms, small_digits(ms, decimals)), cal.drafter_seconds / cal.one,
                           small_digits(cal.c, 2)))
        return one > 0 and all(number(ms / one, digits) == number(ratio, digits) for ms, ratio, digits in ratios)

    return fewest_digits(follows, 1, 4)


def _readable(raw: dict) -> bool:
    """Whether a calibration read from the cache has the types `measure` writes: texts, a whole thread count, and
    seconds from 0 to a million (from a nanosecond where a ratio divides by them, so no ratio is infinite). An
    untimed drafter pass is 0 (read 52: `calibrate --proposer ngram` wrote it so, then refused its own file as
    damaged and measured again on every run, each time saying "Cached in")."""
    def seconds(value: object, positive: bool = False) -> bool:
        return is_number(value) and (1e-9 if positive else 0.0) <= value <= 1e6
    return (all(isinstance(raw.get(k), str) for k in ("pair", "proposer", "dtype", "device", "kernels", "cpu", "torch"))
            and all(isinstance(v, str) for v in (*raw["cpu_flags"], *raw["notes"], raw.get("measured_at", "")))
            and isinstance(raw.get("cpu_bf16"), bool) and is_whole(raw.get("threads")) and raw["threads"] >= 1
            and is_whole(raw.get("context_tokens", 0)) and raw.get("context_tokens", 0) >= 0
            and seconds(raw.get("drafter_seconds")) and seconds(raw.get("generate_seconds"), True)
            and all(seconds(raw.get(k, 0.0)) for k in ("spread", "sampled_generate_seconds", "took_seconds"))
            and all(seconds(d) and seconds(o) for _k, d, o in raw["steps"]))


# ---- the cache ------------------------------------------------------------------------------------------------------


def cache_key(pair_name: str, dtype: str, kernels: str, device: str = "cpu", proposer: str | None = None) -> str:
    """The file name of a calibration: readable parts and a hash of everything that changes the costs (the
    environment variables that cap the instruction sets the kernels use included: a machine told to act as an AVX2
    one is another machine; on a GPU, its model name, since the device string "cuda:0" names any GPU).

    `proposer` is given only for one other than the pair's default (`proposer_key`), so a calibration of
    `--proposer ngram` is kept beside the default proposer's instead of replacing it (read 44: each replaced the
    other, and alternating runs measured again every time), and the default's files keep their names."""
    limits = [f"{name}={os.environ[name]}" for name in ISA_LIMITS if os.environ.get(name)]
    parts = [pair_name, dtype, kernels, device, cpu_model(), " ".join(cpu_speed_flags()), torch.__version__,
             str(torch.get_num_threads()), str(VERSION), *limits]
    if device.startswith("cuda") and torch.cuda.is_available():  # the GPU's model: "cuda:0" is any GPU (43rd read)
        parts.append(torch.cuda.get_device_name(torch.device(device)))
    if proposer:
        parts.append(f"proposer={proposer}")
    digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    safe = "".join(ch if ch.isalnum() else "-" for ch in pair_name)[:40]
    which = "-" + "".join(ch if ch.isalnum() else "-" for ch in proposer)[:20] if proposer else ""
    return f"{safe}{which}-{dtype}-{kernels}-{digest}.json"


def proposer_key(pair, proposer: str | None) -> str | None:
    """The proposer part of a pair's cache key: None for its default proposer (or none named), else the name."""
    return proposer if proposer and proposer != pair.default_proposer else None


def cache_path(pair_name: str, dtype: str, kernels: str, device: str = "cpu", proposer: str | None = None):
    return cache_dir() / "calibration" / cache_key(pair_name, dtype, kernels, device, proposer)


def cached(pair_name: str, dtype: str, kernels: str, device: str = "cpu",
           proposer: str | None = None) -> Calibration | None:
    """The cached calibration of this machine for the pair, dtype and kernels (and a proposer other than the pair's
    default, when named); None if there is none (or it cannot be read: it is then measured again)."""
    path = cache_path(pair_name, dtype, kernels, device, proposer)
    try:
        return Calibration.from_json(path.read_text(encoding="utf-8"))
    # RecursionError: JSON nested too deep; OverflowError: a verify curve's size Infinity or a time of 400 digits
    except (OSError, ValueError, KeyError, TypeError, RecursionError, OverflowError):
        return None


def cached_for(pair, proposer: str | None = None) -> Calibration | None:
    """The cached calibration of a loaded pair (its name, dtype, kernels and device) with `proposer` (its default
    proposer when None)."""
    return cached(pair.name, dtype_name(pair.dtype), pair.kernels, str(pair.device), proposer_key(pair, proposer))


def calibrate(pair, proposer: str | None = None, force: bool = False, progress: Callable[[str], None] | None = None,
              clock: Clock = default_clock) -> Calibration:
    """This machine's costs for a loaded pair: the cached calibration, else a new measurement (cached when quiet)."""
    if not force:
        found = cached_for(pair, proposer)
        if found is not None and found.proposer == (proposer or pair.default_proposer):
            return found
    cal = measure(pair, proposer, progress=progress, clock=clock)
    if cal.quiet:
        try:
            write_text_atomically(cache_path(pair.name, cal.dtype, cal.kernels, cal.device,
                                             proposer_key(pair, cal.proposer)), cal.to_json())
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
    timers["sampled"] = _generate_timer(pair.target, context, clock, sample=True)
    times: dict[object, list[float]] = defaultdict(list)
    notes = [f"kernels capped by {name}={os.environ[name]}" for name in ISA_LIMITS if os.environ.get(name)]
    ratios: dict[str, list[float]] = defaultdict(list)  # model.generate's token over the round's one-token forward
    for attempt in range(2):
        for index in range(rounds):
            for key, timer in timers.items():
                if key not in ("generate", "sampled"):
                    times[key].append(timer())
                elif index < GENERATE_ROUNDS:
                    ratios[key].append(timer() / times[1][-1])
        spread = max(max(_spread(times[key]) for key in (1, max(sizes))),
                     *(_range(values[-GENERATE_ROUNDS:]) for values in ratios.values()))
        if spread <= QUIET_SPREAD:
            break
        notes.append(f"round {attempt + 1}: halves disagreed by {spread:.0%}" if math.isfinite(spread) else
                     f"round {attempt + 1}: a timing of model.generate came out zero or negative")
    median = {key: statistics.median(values) for key, values in times.items()}
    for key, values in ratios.items():
        usable = [v for v in values[-GENERATE_ROUNDS:] if v > 0] or [v for v in values if v > 0]
        if not usable:
            raise TooBusy(_("Every timing of model.generate came out zero or negative: the machine is too busy to "
                            "measure. Try again when nothing else runs."))
        median[key] = statistics.median(usable) * median[1]
    steps = _probe_steps(pair, proposer)
    return Calibration(
        pair=pair.name, proposer=proposer, dtype=dtype_name(pair.dtype), device=str(pair.device),
        kernels=pair.kernels, cpu=cpu_model(), cpu_flags=tuple(cpu_speed_flags()), cpu_bf16=cpu_has_bf16(),
        torch=torch.__version__, threads=torch.get_num_threads(),
        verify=tuple((n, median[n]) for n in sorted(sizes)), drafter_seconds=median["drafter"],
        generate_seconds=median["generate"], spread=round(spread, 4), steps=steps,
        sampled_generate_seconds=median["sampled"], measured_at=utc_now(),
        took_seconds=round(time.perf_counter() - started, 2), context_tokens=len(context), notes=tuple(notes))


def _probe_steps(pair, proposer: str) -> tuple[tuple[str, float, float], ...]:
    """Short real runs, a chain and (when the proposer can branch) a tree, greedy and sampled: per run, the drafter's
    seconds per pass (a chain pays K passes a step, a tree one per level) and a step's overhead seconds."""
    from specviz.engine.proposers import registry
    from specviz.runs.running import run
    from specviz.runs.runspec import RunSpec

    prompt = "the quick brown fox" if pair.name == "toy" else PROBE_PROMPT
    out = []
    for kind, shape in PROBES.items():
        if kind == "tree" and not registry.can_branch(proposer):
            continue
        for mode, temperature in PROBE_TEMPERATURES.items():
            spec = RunSpec(pair=pair.name, proposer=proposer, prompt=prompt, max_new_tokens=PROBE_TOKENS,
                           temperature=temperature, seed=0, **shape.settings())
            trace = run(spec, pair=pair, record=False)
            # a chain step drafts its K; a tree step is charged its shape's K levels, as the prediction charges any
            # tree (a level's cost grows with its width, which the probe has). The first step also reads the
            # prompt's features, so the medians leave it out.
            steps = [step for step in trace.steps[1:] if step.decisions]
            if not steps:
                continue
            passes = [shape.k if kind == "tree" else step.k for step in steps]
            out.append((f"{kind}-{mode}", statistics.median(s.draft_seconds / n for s, n in zip(steps, passes)),
                        statistics.median(step.overhead_seconds for step in steps)))
    return tuple(out)


def _range(values: list[float]) -> float:
    """How far the largest of `values` is above the smallest, over the smallest; infinite when one of them is not a
    positive time (a round of model.generate that failed): the rounds cannot be compared."""
    if not all(value > 0 for value in values):  # NaN > 0 is False too
        return math.inf
    return (max(values) - min(values)) / max(min(values), 1e-12)


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


GENERATE_SHORT, GENERATE_LONG = 2, 10


def _generate_timer(model, context: list[int], clock: Clock, sample: bool = False) -> Callable[[], float]:
    """Seconds per token of `model.generate` after the prefill, greedy or sampling at T = 0.7 (`sample`): (time of
    10 new tokens − time of 2) / 8."""
    device = next(model.parameters()).device
    ids = torch.tensor([context], device=device)
    mask = torch.ones_like(ids)

    def timed(n: int) -> float:
        synchronize(device)
        t0 = clock()
        with torch.inference_mode():
            model.generate(ids, attention_mask=mask, max_new_tokens=n, min_new_tokens=n, pad_token_id=0,
                           **({"do_sample": True, "temperature": 0.7, "top_k": 0, "top_p": 1.0} if sample else
                              {"do_sample": False}))
        synchronize(device)
        return clock() - t0

    def once() -> float:
        """One round's seconds per token; NaN when the long call took no longer than the short one (a busy machine):
        an unusable round, not a nanosecond (read 46: clamped to 1e-9 s, its spread read 10,543,728,911.8%)."""
        difference = timed(GENERATE_LONG) - timed(GENERATE_SHORT)
        return difference / (GENERATE_LONG - GENERATE_SHORT) if difference > 0 else math.nan

    once()
    return once
