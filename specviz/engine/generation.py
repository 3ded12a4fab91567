"""What the speculative loop and the target-only baseline share: checked settings, stop rules, token text,
top-k summaries and honest timing."""

from __future__ import annotations

import contextlib
import numbers
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

import torch

from specviz.core.i18n import _, ngettext, number, with_minus
from specviz.engine.kinds import StopReason
# MAX_SEED, a generation's seed: RunSpec's SEED_RANGE is narrower
from specviz.engine.limits import K_RANGE, MAX_NEW_TOKENS_RANGE, MAX_SEED, TOP_N, is_integral
from specviz.engine.sampling import SamplingConfig
from specviz.engine.trace import EmittedToken, TokenProb

__all__ = ["K_RANGE", "MAX_NEW_TOKENS_RANGE", "TOP_N", "Clock", "GenerationSettings", "TokenTexts",
           "append_until_stop", "check_context", "default_clock", "eos_ids", "one_torch_thread", "prompt_ids",
           "synchronize", "top_tokens", "torch_threads"]

Clock = Callable[[], float]


@dataclass(frozen=True)
class GenerationSettings:
    """The knobs of one generation, checked on construction (a bad value is a ValueError with one sentence)."""

    max_new_tokens: int = 64
    temperature: float = 0.0
    top_k: int = 0
    top_p: float = 1.0
    seed: int = 0
    k: int | None = None  # drafted tokens per step; None for target-only decoding

    def __post_init__(self) -> None:
        if self.k is not None and not (is_integral(self.k) and K_RANGE[0] <= self.k <= K_RANGE[1]):
            raise ValueError(f"K must be a whole number from {K_RANGE[0]} to {K_RANGE[1]} "
                             f"(got {with_minus(repr(self.k))}).")
        lo, hi = MAX_NEW_TOKENS_RANGE
        if not (is_integral(self.max_new_tokens) and lo <= self.max_new_tokens <= hi):
            raise ValueError(f"max_new_tokens must be a whole number from {lo} to {hi} "
                             f"(got {with_minus(repr(self.max_new_tokens))}).")
        if not (is_integral(self.seed) and 0 <= self.seed <= MAX_SEED):  # within manual_seed's -2**63 to 2**64 - 1
            raise ValueError(f"The seed must be a whole number from 0 to {MAX_SEED} "
                             f"(got {with_minus(repr(self.seed))}).")
        self.sampling  # validates temperature, top_k, top_p
        if self.top_k > MAX_SEED:  # any top-k past the vocabulary is off; this bound is the one a trace file keeps
            raise ValueError(f"top-k must be a whole number from 0 (off) to {MAX_SEED} (got {self.top_k!r}).")
        # NumPy's numbers pass the checks above; kept as Python's, so the trace's JSON can hold them (np.int64 is no
        # int to the json module) and a K handed on to DraftShape is accepted there too
        for name in ("max_new_tokens", "seed", "top_k", "k"):
            value = getattr(self, name)
            if value is not None and type(value) is not int:
                object.__setattr__(self, name, int(value))
        for name in ("temperature", "top_p"):
            value = getattr(self, name)
            if type(value) not in (int, float):
                object.__setattr__(self, name, float(value))

    @property
    def sampling(self) -> SamplingConfig:
        return SamplingConfig(self.temperature, self.top_k, self.top_p)

    def generator(self) -> torch.Generator:
        """The only source of randomness in a generation: same seed, same tokens and verdicts (on the same models in
        the same dtype; the timings are measured anew)."""
        return torch.Generator().manual_seed(int(self.seed))

    def to_dict(self) -> dict:
        return asdict(self)


def prompt_ids(input_ids: Sequence[int] | torch.Tensor, model) -> list[int]:
    """The prompt as a list of ids, checked: one sequence, not empty, every id a whole number the model's vocabulary
    holds (0 to vocab_size - 1: a ValueError with one sentence, not an index error from inside the model;
    `check_context` checks its length).

    >>> class Model: config = type("Config", (), {"vocab_size": 10})
    >>> prompt_ids(torch.tensor([[3, 4]]), Model())
    [3, 4]
    >>> prompt_ids([3, 10], Model())
    Traceback (most recent call last):
    ...
    ValueError: Token id 10 of the prompt is not in the model's vocabulary (ids 0 to 9).
    """
    if isinstance(input_ids, torch.Tensor):
        if input_ids.dim() == 2 and input_ids.shape[0] == 1:
            input_ids = input_ids[0]
        if input_ids.dim() != 1:
            raise ValueError("input_ids must be one sequence (a 1-D list or tensor of token ids).")
        input_ids = input_ids.tolist()
    elif hasattr(input_ids, "tolist") and getattr(input_ids, "ndim", None) == 1:  # a numpy array
        input_ids = input_ids.tolist()
    if isinstance(input_ids, (str, bytes)) or not isinstance(input_ids, Sequence):
        raise ValueError(f"input_ids must be a list or tensor of token ids, not {type(input_ids).__name__} (encode "
                         "a text with the tokenizer first).")
    if not input_ids:
        raise ValueError("The prompt is empty: give at least one token.")
    vocab = getattr(getattr(model, "config", None), "vocab_size", None)
    for i in input_ids:
        if not is_integral(i):
            raise ValueError(f"The prompt's token ids must be whole numbers (got {i!r}).")
        if i < 0 or (vocab is not None and i >= vocab):
            shown = f"ids 0 to {vocab - 1}" if vocab is not None else "ids of 0 or more"
            raise ValueError(f"Token id {i} of the prompt is not in the model's vocabulary ({shown}).")
    return [int(i) for i in input_ids]


def check_context(model, n_prompt: int, settings: GenerationSettings) -> None:
    """A ValueError with one sentence when the target would read more positions than its context holds. It reads
    the prompt and every new token but the last, which is emitted and never fed; drafts never reach past that
    either (a step drafts at most up to the token limit), so K adds nothing: n_prompt + max_new_tokens - 1."""
    limit = getattr(model.config, "max_position_embeddings", None)
    need = n_prompt + settings.max_new_tokens - 1
    if limit and need > limit:
        raise ValueError(_(  # either count can be 1 (a one-character toy prompt): each agrees with its noun
            "The prompt has {prompt}; with {new} the target reads {need} positions (every new token but the last), "
            "more than the model's context of {limit}.", prompt=ngettext("{n} token", "{n} tokens", n_prompt),
            new=ngettext("{n} new token", "{n} new tokens", settings.max_new_tokens), need=number(need, 0),
            limit=number(limit, 0)))


def eos_ids(model, tokenizer=None, eos_token_id: int | Sequence[int] | None = None) -> set[int]:
    """The ids that end a generation: the ones given, else the model's generation config, else the tokenizer's."""
    for source in (eos_token_id, getattr(model.generation_config, "eos_token_id", None),
                   getattr(tokenizer, "eos_token_id", None)):
        if source is not None:
            return {int(source)} if isinstance(source, numbers.Integral) else {int(i) for i in source}
    return set()


class TokenTexts:
    """Decoded text of single tokens, memoised (a tokenizer call per token would dominate a fast step)."""

    def __init__(self, tokenizer=None):
        self.tokenizer = tokenizer
        self._cache: dict[int, str] = {}

    def __call__(self, token_id: int) -> str:
        if token_id not in self._cache:
            if self.tokenizer is None:
                self._cache[token_id] = f"<{token_id}>"
            else:
                self._cache[token_id] = self.tokenizer.decode([token_id], skip_special_tokens=False)
        return self._cache[token_id]

    def text(self, ids: list[int]) -> str:
        if self.tokenizer is None:
            return "".join(self(i) for i in ids)
        return self.tokenizer.decode(ids, skip_special_tokens=True)


def top_tokens(probs: torch.Tensor, texts: TokenTexts, n: int = TOP_N) -> list[TokenProb]:
    """The n most likely tokens of a distribution (V,), zero-probability tokens left out."""
    values, ids = torch.topk(probs, min(n, probs.shape[-1]))
    return [TokenProb(int(i), texts(int(i)), float(v)) for v, i in zip(values.tolist(), ids.tolist()) if v > 0]


def append_until_stop(output: list[int], new: list[EmittedToken], eos: set[int], max_new_tokens: int
                      ) -> tuple[list[EmittedToken], StopReason | Literal[""]]:
    """Append tokens to `output` until EOS (kept) or max_new_tokens; return what was kept and the stop reason
    ("" while the generation goes on)."""
    kept = []
    for token in new:
        if len(output) >= max_new_tokens:
            return kept, StopReason.MAX_NEW_TOKENS
        output.append(token.token_id)
        kept.append(token)
        if token.token_id in eos:
            return kept, StopReason.EOS
    return kept, StopReason.MAX_NEW_TOKENS if len(output) >= max_new_tokens else ""


def synchronize(device: torch.device) -> None:
    """Wait for queued GPU work, so a timer around it measures the work and not the launch. On CUDA every GPU is
    synchronised: a model sharded with device_map="auto" runs its last layers on another GPU than its first."""
    if device.type == "cuda":
        for index in range(torch.cuda.device_count()):
            torch.cuda.synchronize(index)
    elif device.type == "mps":
        torch.mps.synchronize()


def default_clock() -> float:
    return time.perf_counter()


_THREADS_LOCK = threading.Lock()
_THREADS_USERS = 0
_THREADS_BEFORE = 0


@contextlib.contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """Run torch on `n` threads inside the block (None: leave it as it is). Blocks overlap (two browser sessions,
    the lab and the bench, each in its own thread), and torch's count is per thread in some builds and shared in
    others, so a plain save-and-restore can put back another block's setting. Here the first block in saves the
    process's own count, and every block puts that count back in its thread when it leaves.

    >>> before = torch.get_num_threads()
    >>> with torch_threads(1):
    ...     with torch_threads(1):
    ...         inside = torch.get_num_threads()
    >>> inside, torch.get_num_threads() == before
    (1, True)
    """
    global _THREADS_USERS, _THREADS_BEFORE
    if n is None:
        yield
        return
    with _THREADS_LOCK:
        if _THREADS_USERS == 0:
            _THREADS_BEFORE = torch.get_num_threads()
        _THREADS_USERS += 1
        torch.set_num_threads(n)
    try:
        yield
    finally:
        with _THREADS_LOCK:
            _THREADS_USERS -= 1
            torch.set_num_threads(_THREADS_BEFORE)  # the process's own count, never another block's


def one_torch_thread(active: bool = True) -> contextlib.AbstractContextManager:
    """One torch thread inside the block when `active` (tiny models spend more time handing work between threads
    than computing): `torch_threads(1)`."""
    return torch_threads(1 if active else None)
