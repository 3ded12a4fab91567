"""Running a `RunSpec`: the one process-wide pair cache, and `run(spec) -> Trace`.

    trace = run(spec)                   # speculative decoding, the pair loaded once per process
    baseline = run_target_only(spec)    # the same settings, target only

The CLI, every page, the bench, `make_traces`, `gpu_bench` and the Exactness lab's greedy comparison run generations
through here; the Exactness lab's sampling experiments call the engine directly with a broken rule as the verifier
(`specviz.labs.exactness.engine.continuation_samples`).
Loaded pairs live in `PAIRS`, with one lock per pair so that generations on a shared model run one at a time.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from typing import Any

import torch

from specviz.core.i18n import _, ngettext
from specviz.engine.baseline import TargetOnly
from specviz.engine.decoding import DecodeOptions, StepObserver, TreeVerification, decode
from specviz.engine.kernels import kernels_of
from specviz.engine.generation import K_RANGE, Clock, GenerationSettings, default_clock
from specviz.engine.policies import confident, make_policy
from specviz.engine.proposers import Proposer, make_proposer, registry
from specviz.engine.trace import Trace
from specviz.engine.tree_verifier import TreeVerifier, verify_tree
from specviz.engine.verifier import Verifier, verify
from specviz.models.machine import cpu_model
from specviz.models.pairs import Pair, encode_prompt, load_pair
from specviz.runs.runspec import RunSpec


# ---- the one model cache ---------------------------------------------------------------------------------------------


class Busy(ValueError):
    """A run that waited its longest for the model without getting a turn."""


class Turns:
    """First come, first served use of one model: one holder at a time, the others queue in order and can see how
    many are ahead of them; a waiter that runs out of patience leaves the queue with a `Busy` sentence. An `owner`
    (a browser session, say) holds or waits for at most one turn at a time: a second request while its first is
    queued or running is refused at once, so one visitor cannot fill the queue."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._queue: deque[object] = deque()
        self._busy = False
        self._owners: set[object] = set()  # owners now waiting or holding

    def ahead(self) -> int:
        """Runs that would go before a run asking now (the one running, and the ones waiting)."""
        with self._cond:
            return len(self._queue) + self._busy

    @contextlib.contextmanager
    def take(self, timeout: float | None = None, on_wait: Callable[[int], None] | None = None,
             owner: object | None = None) -> Iterator[None]:
        """Hold the model inside the block. `on_wait(ahead)` is told the queue position while waiting, once when
        the wait starts and again each time it changes (not on every wake-up: a page that draws it would redraw the
        same sentence every second for each visitor in the queue); past `timeout` seconds of waiting, Busy is
        raised and nothing ran. An `owner` that already waits or holds a
        turn is refused at once (Busy)."""
        me = object()
        give_up = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            if owner is not None:
                if owner in self._owners:
                    raise Busy(_("You already have a run waiting for or using the model; start another when it has "
                                 "finished."))
                self._owners.add(owner)
            self._queue.append(me)
            told = None  # the position on_wait was last told
            try:
                while self._busy or self._queue[0] is not me:
                    position = self._queue.index(me) + self._busy
                    if on_wait is not None and position != told:
                        on_wait(position)
                        told = position
                    left = None if give_up is None else give_up - time.monotonic()
                    if left is not None and left <= 0:
                        ahead = self._queue.index(me) + self._busy
                        waited = f"{timeout:g}"
                        raise Busy(ngettext("The model is busy: {n} run was still ahead of yours after {seconds} s "
                                            "of waiting; try again in a moment.",
                                            "The model is busy: {n} runs were still ahead of yours after {seconds} s "
                                            "of waiting; try again in a moment.", ahead, seconds=waited))
                    self._cond.wait(timeout=1.0 if left is None else min(left, 1.0))
            except BaseException:  # gave up, or the page stopped while waiting: leave the queue, or it would stall
                self._queue.remove(me)
                self._owners.discard(owner)
                self._cond.notify_all()
                raise
            self._queue.popleft()
            self._busy = True
        try:
            yield
        finally:
            with self._cond:
                self._busy = False
                self._owners.discard(owner)
                self._cond.notify_all()


class PairCache:
    """Loaded pairs by name, at most `size` of them (least recently used goes first), each with the `Turns` that
    serialise generations (and its loading) on it. Safe to use from several threads (a Streamlit server runs one per
    session)."""

    def __init__(self, size: int = 3, loader: Callable[..., Pair] = load_pair):
        self.size, self.loader = size, loader
        self._pairs: OrderedDict[str, Pair] = OrderedDict()
        self._turns: dict[str, Turns] = {}
        self._reloads: dict[str, Callable[[], Pair]] = {}  # how a pair put here loads again once it was dropped
        self._guard = threading.Lock()

    def get(self, name: str) -> Pair:
        """The pair called `name`, loaded on first use (one load at a time per name)."""
        with self._guard:
            if name in self._pairs:
                self._pairs.move_to_end(name)
                return self._pairs[name]
        with self.turn(name):
            with self._guard:
                if name in self._pairs:  # loaded by the run that held the turn before this one
                    return self._pairs[name]
            with self._guard:
                reload = self._reloads.get(name)
            pair = reload() if reload is not None else self.loader(name)
            self.put(name, pair)
            return pair

    def put(self, name: str, pair: Pair, reload: Callable[[], Pair] | None = None) -> None:
        """Keep a pair loaded elsewhere (the Models page's pair by hand) under `name`; `reload` loads it the same way
        again if it is dropped to make room and asked for later (else the cache's loader does, by name)."""
        with self._guard:
            if reload is not None:
                self._reloads[name] = reload
            self._pairs[name] = pair
            self._pairs.move_to_end(name)
            while len(self._pairs) > self.size:
                self._pairs.popitem(last=False)

    def loaded(self, name: str) -> Pair | None:
        with self._guard:
            return self._pairs.get(name)

    def turns(self, name: str) -> Turns:
        with self._guard:
            return self._turns.setdefault(name, Turns())

    def turn(self, name: str, timeout: float | None = None, on_wait: Callable[[int], None] | None = None,
             owner: object | None = None):
        """Hold the pair `name` for one run (or its loading): see `Turns.take`."""
        return self.turns(name).take(timeout, on_wait, owner)

    def ahead(self, name: str) -> int:
        """Runs now holding or waiting for the pair `name`."""
        return self.turns(name).ahead()


DTYPE_MARK = "@"  # "default@float32": the pair "default" loaded in float32 (the Exactness lab's float32 greedy demo)


def load_named_pair(name: str) -> Pair:
    """`load_pair` for a cache key: a pair name, optionally with "@dtype" (float32, bfloat16, ...) after it."""
    base, mark, dtype = name.partition(DTYPE_MARK)
    return load_pair(base, dtype=dtype if mark else None)


def with_dtype(name: str, dtype: str | None) -> str:
    """The cache key of pair `name` in `dtype` (None: the machine's default dtype, the plain name).

    >>> with_dtype("default", "float32"), with_dtype("default", None)
    ('default@float32', 'default')
    """
    return f"{name}{DTYPE_MARK}{dtype}" if dtype else name


def dtype_of(pair: Pair) -> str:
    """The dtype the pair's target computes in, as a word: float32, bfloat16, ..."""
    return str(next(pair.target.parameters()).dtype).removeprefix("torch.")


PAIRS = PairCache(loader=load_named_pair)


# ---- running ---------------------------------------------------------------------------------------------------------


def generation_settings(spec: RunSpec, speculative: bool = True) -> GenerationSettings:
    """The engine's settings for a spec (K None for target-only decoding)."""
    return GenerationSettings(spec.max_new_tokens, spec.temperature, spec.top_k, spec.top_p, spec.seed,
                              spec.k if speculative else None)


def prompt_ids(spec: RunSpec, pair: Pair) -> list[int]:
    """The spec's prompt as token ids for the pair: in its chat template when the spec and the tokenizer allow."""
    return encode_prompt(pair.tokenizer, spec.prompt, chat=pair.chat and spec.chat)


def proposer_for(spec: RunSpec, pair: Pair) -> Proposer:
    """The spec's proposer for the pair; with the threshold policy, one that stops at low confidence."""
    proposer = make_proposer(pair, spec.proposer, **dict(spec.proposer_settings))
    return confident(proposer) if spec.policy == "threshold" else proposer


def run(spec: RunSpec, *, pair: Pair | None = None, input_ids: list[int] | None = None,
        proposer: Proposer | None = None, c: float | None = None, k_max: int = K_RANGE[1], record: bool = True,
        clock: Clock = default_clock, on_step: StepObserver | None = None, deadline: float | None = None,
        verifier: Verifier = verify, tree_verifier: TreeVerifier = verify_tree) -> Trace:
    """Speculative decoding as the spec says. `pair`, `input_ids` and `proposer` default to what the spec names
    (the pair from `PAIRS`); `c` (draft forward / target forward) is needed by the "optimal" policy, `k_max` bounds the
    adaptive ones. `record`, `clock`, `on_step` and `deadline` are the loop's `DecodeOptions` (documented there);
    `verifier` and `tree_verifier` judge the drafts (the exact rules by default; no caller of `run` passes another:
    the Exactness lab's broken rules go to `speculative_generate` itself)."""
    pair = pair or PAIRS.get(spec.pair)
    ids = input_ids if input_ids is not None else prompt_ids(spec, pair)
    proposer = proposer or proposer_for(spec, pair)
    draft_length = None if spec.policy == "constant" else make_policy(spec.policy, spec.k, k_max=k_max, c=c,
                                                                      one_pass=registry.one_pass(spec.proposer))
    options = DecodeOptions(pair.tokenizer, record=record, clock=clock, on_step=on_step, deadline=deadline)
    trace = decode(pair.target, proposer, ids, generation_settings(spec), options, verifier=verifier,
                   draft_length=draft_length, shape=spec.shape, tree=TreeVerification(tree_verifier))
    # chat: whether the template wrapped the prompt, not the spec's wish (read 45: a toy run, which has no template,
    # recorded True and its prompt was labelled as read "without the chat template's control tokens")
    trace.meta.update(pair=spec.pair, proposer=proposer.name, chat=spec.chat and pair.chat, prompt=spec.prompt,
                      **_numerics(pair))
    return trace


def run_target_only(spec: RunSpec, *, pair: Pair | None = None, input_ids: list[int] | None = None,
                    record: bool = True, clock: Clock = default_clock, on_step: StepObserver | None = None,
                    deadline: float | None = None) -> Trace:
    """The same spec decoded by the target alone: the baseline of every speedup "vs target-only" (the bench's "vs
    model.generate" times transformers' own `generate` instead); the options as for `run`."""
    pair = pair or PAIRS.get(spec.pair)
    ids = input_ids if input_ids is not None else prompt_ids(spec, pair)
    options = DecodeOptions(pair.tokenizer, record=record, clock=clock, on_step=on_step, deadline=deadline)
    trace = decode(pair.target, TargetOnly(), ids, generation_settings(spec, speculative=False), options,
                   mode="autoregressive")
    trace.meta.update(pair=spec.pair, proposer="none", chat=spec.chat and pair.chat, prompt=spec.prompt,
                      **_numerics(pair))
    return trace


def _numerics(pair: Pair) -> dict[str, Any]:
    """The dtype and device a run computed in, for its trace's meta: every figure shows them (float32 rounds
    far more finely than bfloat16; both are lossless only up to numerics, bfloat16 visibly so); and the machine its
    times were taken on (`machine`: CPU, cores, threads, GPU, linear kernels, as `quoted.machine_text` words it), so
    a trace kept from `generate --json` or the Playground's download says where its tokens/s were measured."""
    try:
        dtype, device = str(pair.dtype).removeprefix("torch."), pair.device
        kernels = kernels_of(pair.target)
    except (StopIteration, AttributeError):  # a stand-in pair without parameters (tests)
        return {}
    gpu = torch.cuda.get_device_name(device) if device.type == "cuda" else None
    machine = {"cpu": cpu_model(), "cores": os.cpu_count(), "torch_threads": torch.get_num_threads(), "gpu": gpu,
               "device": str(device), "kernels": kernels}
    return {"dtype": dtype, "device": str(device), "machine": machine}
