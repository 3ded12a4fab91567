"""A bounded load generator for an OpenAI-compatible server: the same prompts at 1, 2, 4, 8, 16 concurrent streams.

Every level sends `requests` chat completions (at least `concurrency` of them and at most `MAX_REQUESTS`:
`LoadPlan.requests_at`; greedy, at most `max_tokens` tokens each) with `concurrency` of them in flight at once,
and reads the server's `/metrics` before and after, so each level carries the acceptance numbers of its own
traffic (the counters are the server's: another client's requests in the same window count too).
Throughput is completion tokens / the level's wall time; latency is per request.

The bounds are not advice, they are checked (`LoadPlan.check`): concurrency only from `LEVELS`, each level once,
at most `MAX_PROMPTS` prompts, `MAX_REQUESTS` requests a level, `MAX_TOKENS` tokens a request, `MAX_SECONDS` for
the whole sweep (no request is started after that, and each request times out with it, or 1 s after it starts when
less than that is left: a request the cap ends is the cap's, not a server's failure, and `cap_note` says which
levels it cut short or never started), and only a loopback server
unless the operator allows another host (`client.allowed`). Across visitors, one sweep runs at a time in the
process and at most `MAX_STREAMS` requests are in flight, so a browser visitor of a public app (or five of them)
cannot turn it into a flood.
"""

from __future__ import annotations

import contextvars
import math
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field

from specviz.core.i18n import N_, _, list_separator, ngettext, number
from specviz.engine.limits import is_whole
from specviz.serving import client
from specviz.serving.metrics import Delta, Scrape, SpecDecodeCounts, parse_scrape

__all__ = ["LEVELS", "MAX_REQUESTS", "MAX_SECONDS", "MAX_TOKENS", "LevelResult", "LoadPlan", "Prompt",
           "RequestRecord", "cap_note", "run_load"]

LEVELS = (1, 2, 4, 8, 16)
MAX_REQUESTS = 64  # a level
MAX_TOKENS = 512  # a request
MAX_SECONDS = 600.0  # the whole sweep
MAX_PROMPT_CHARS = 8000
MAX_PROMPT_NAME_CHARS = 64  # a row label of the results table
MAX_PROMPTS = 8  # a sweep
MAX_STREAMS = max(LEVELS)  # requests in flight at once in this process, every sweep together

_SWEEP = threading.Lock()  # one sweep at a time in the process: two would also spoil each other's numbers
_STREAMS = threading.BoundedSemaphore(MAX_STREAMS)


# A sweep prompt's word, as in "{prompt} prompt": one name per prompt on the Serving page and the Theory explorer
# (read 55: the Theory chart said "open question" where the Serving page said "open prompt", and Portuguese legends
# read "prompt copy", "prompt open", the JSON keys untranslated). Keys not listed are shown as they are.
# i18n: the copy prompt's word, used as "{prompt} prompt" (pt "prompt {prompt}": "prompt de cópia")
PROMPT_WORDS = {"copy": N_("copy"),
                # i18n: the open prompt's word (an open-ended question), used as "{prompt} prompt" ("prompt aberto")
                "open": N_("open")}


def prompt_word(prompt: str) -> str:
    """A sweep prompt's word in the reader's language, for "{prompt} prompt" messages.

    >>> prompt_word("open"), prompt_word("mine")
    ('open', 'mine')
    """
    return _(PROMPT_WORDS[prompt]) if prompt in PROMPT_WORDS else prompt


def prompt_name(prompt: str) -> str:
    """A sweep prompt's name: "copy prompt", "open prompt" (pt "prompt de cópia", "prompt aberto").

    >>> prompt_name("copy")
    'copy prompt'
    """
    return _("{prompt} prompt", prompt=prompt_word(prompt))


@dataclass(frozen=True)
class Prompt:
    name: str  # "copy", "open", ...
    text: str


def levels_ok(levels: object) -> bool:
    """A sweep's concurrency levels: at least one, each among LEVELS, none twice (LoadPlan's rule and the CLI's)."""
    return (isinstance(levels, tuple | list) and bool(levels) and all(is_whole(c) and c in LEVELS for c in levels)
            and len(set(levels)) == len(levels))


def requests_ok(requests: object) -> bool:
    """Requests per level: a whole number from 1 to MAX_REQUESTS."""
    return is_whole(requests) and 1 <= requests <= MAX_REQUESTS


def max_tokens_ok(max_tokens: object) -> bool:
    """Tokens per request: a whole number from 1 to MAX_TOKENS."""
    return is_whole(max_tokens) and 1 <= max_tokens <= MAX_TOKENS


@dataclass(frozen=True)
class LoadPlan:
    prompts: tuple[Prompt, ...]
    levels: tuple[int, ...] = (1, 16)
    requests: int = 16  # a level; a level of concurrency c sends max(requests, c) capped at MAX_REQUESTS
    max_tokens: int = 128
    max_seconds: float = 300.0

    def check(self) -> None:
        """One sentence for the first bound broken (whole numbers must be ints, not 1.5 or True).

        >>> LoadPlan(prompts=(Prompt("p", "x"),), levels=(16, 16, 16)).check()
        Traceback (most recent call last):
        ValueError: Concurrency levels must be one or more of 1, 2, 4, 8, 16, each at most once.
        """
        if not isinstance(self.prompts, tuple | list) or not 1 <= len(self.prompts) <= MAX_PROMPTS:
            raise ValueError(_("Give the load generator 1 to {most} prompts.", most=MAX_PROMPTS))
        if any(not isinstance(p, Prompt) or not isinstance(p.text, str) or not p.text.strip()
               or len(p.text) > MAX_PROMPT_CHARS for p in self.prompts):
            raise ValueError(_("Each prompt needs some text besides spaces, at most {most} characters.",
                               most=number(MAX_PROMPT_CHARS, 0)))
        names = [p.name for p in self.prompts]  # each level's rows are found by it, as the CLI's choices are
        if (any(not isinstance(n, str) or not n.strip() or len(n) > MAX_PROMPT_NAME_CHARS for n in names)
                or len(set(names)) != len(names)):
            raise ValueError(_("Each prompt needs a name of some text besides spaces, at most {most} characters, "
                               "and no two the same.", most=MAX_PROMPT_NAME_CHARS))
        if not levels_ok(self.levels):
            raise ValueError(_("Concurrency levels must be one or more of {levels}, each at most once.",
                               levels=list_separator().join(number(c, 0) for c in LEVELS)))
        if not requests_ok(self.requests):
            raise ValueError(_("Requests per level must be a whole number from 1 to {most}.", most=MAX_REQUESTS))
        if not max_tokens_ok(self.max_tokens):
            raise ValueError(_("Tokens per request must be a whole number from 1 to {most}.", most=MAX_TOKENS))
        if (isinstance(self.max_seconds, bool) or not isinstance(self.max_seconds, int | float)
                or not math.isfinite(self.max_seconds) or not 0 < self.max_seconds <= MAX_SECONDS):
            raise ValueError(_("A sweep may run for at most {seconds} s.", seconds=format(MAX_SECONDS, "g")))

    def requests_at(self, concurrency: int) -> int:
        return min(max(self.requests, concurrency), MAX_REQUESTS)


@dataclass(frozen=True)
class RequestRecord:
    latency_s: float
    completion_tokens: int
    error: str = ""


@dataclass
class LevelResult(SpecDecodeCounts):
    """One prompt at one concurrency: throughput, latencies and the server's own counters over the level."""

    prompt: str
    concurrency: int
    speculative: str  # what the server was started with, as the caller names it ("none", "ngram", ...)
    seconds: float
    records: list[RequestRecord] = field(default_factory=list)
    drafts: float = 0.0
    draft_tokens: float = 0.0
    accepted: float = 0.0
    accepted_per_position: tuple[float, ...] = ()
    stopped_early: bool = False  # the sweep's time cap ended this level

    @property
    def ok(self) -> list[RequestRecord]:
        return [r for r in self.records if not r.error]

    @property
    def tokens(self) -> int:
        return sum(r.completion_tokens for r in self.ok)

    @property
    def throughput(self) -> float | None:
        """Completion tokens per second of the level's wall time, all streams together."""
        return self.tokens / self.seconds if self.seconds > 0 and self.ok else None

    @property
    def latency_s(self) -> float | None:
        """Median per-request latency (the whole completion, not the first token); for an even count of requests
        the higher of the two middle ones, a latency some request had, not their mean."""
        values = sorted(r.latency_s for r in self.ok)
        return values[len(values) // 2] if values else None

    def to_dict(self) -> dict:
        data = asdict(self)
        data["records"] = [asdict(r) for r in self.records]
        data["accepted_per_position"] = list(self.accepted_per_position)
        data.update(tokens=self.tokens, throughput=self.throughput, latency_s=self.latency_s,
                    acceptance_rate=self.acceptance_rate, mean_accepted_length=self.mean_accepted_length)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> LevelResult:
        return cls(prompt=data["prompt"], concurrency=int(data["concurrency"]), speculative=data["speculative"],
                   seconds=float(data["seconds"]), records=[RequestRecord(**r) for r in data.get("records", [])],
                   drafts=data.get("drafts", 0.0), draft_tokens=data.get("draft_tokens", 0.0),
                   accepted=data.get("accepted", 0.0),
                   accepted_per_position=tuple(data.get("accepted_per_position", ())),
                   stopped_early=bool(data.get("stopped_early", False)))


NOT_SENT = "not sent: the sweep's time cap was reached"
# sent, then ended by the cap (its timeout was what the sweep had left): recorded as the neutral "No vLLM server
# answered" sentence until read 50, which the page showed for a server that was answering
CUT = "cut off: the sweep's time cap was reached"


def _one_request(url: str, model: str, prompt: Prompt, max_tokens: int, deadline: float,
                 clock: Callable[[], float]) -> RequestRecord:
    if deadline - clock() <= 0 or not _STREAMS.acquire(timeout=max(deadline - clock(), 0.0)):
        return RequestRecord(0.0, 0, NOT_SENT)
    try:
        start = clock()
        timeout = deadline - start
        if timeout <= 0:
            return RequestRecord(0.0, 0, NOT_SENT)
        payload = {"model": model, "messages": [{"role": "user", "content": prompt.text}], "max_tokens": max_tokens,
                   "temperature": 0.0, "stream": False}
        neutral = _(client.NO_ANSWER, url=client.base_of(url))
        try:
            data = client.post_json(url, payload, timeout=max(timeout, 1.0))
        except ValueError as exc:  # ServerError included: the neutral sentence already
            if clock() >= deadline:  # the sweep's cap ended it, not the server
                return RequestRecord(clock() - start, 0, CUT)
            return RequestRecord(clock() - start, 0, str(exc) or neutral)
        # the answer's shape, checked like any input: a JSON list, or a usage that is not an object, is the neutral
        # sentence too (it recorded Python's "'list' object has no attribute 'get'", which the page showed)
        usage = data.get("usage") if isinstance(data, dict) else None
        tokens = (usage or {}).get("completion_tokens", 0) if isinstance(usage, dict | None) else None
        if not isinstance(data, dict) or not is_whole(tokens) or not 0 <= tokens <= max_tokens:
            return RequestRecord(clock() - start, 0, neutral)
        return RequestRecord(clock() - start, tokens)
    finally:
        _STREAMS.release()


def _scrape(base: str, clock: Callable[[], float]) -> Scrape | None:
    try:
        return parse_scrape(client.get_text(f"{base}/metrics"), at=clock())
    except ValueError:  # ServerError included: a server without /metrics still gets throughput and latency
        return None


def run_load(url: str, plan: LoadPlan, *, speculative: str = "", model: str | None = None,
             clock: Callable[[], float] = time.monotonic,
             progress: Callable[[str], None] | None = None) -> list[LevelResult]:
    """Every prompt at every level of the plan, against the server at `url`; results in the order run."""
    base = client.base_url(url)
    if not client.allowed(base):
        raise client.not_allowed()
    plan.check()
    if not _SWEEP.acquire(blocking=False):
        raise ValueError(_("Another load sweep is running in this app (one at a time, whatever the server); try "
                           "again when it has finished."))
    try:
        return _sweep(base, plan, speculative, model, clock, progress)
    finally:
        _SWEEP.release()


def _sweep(base: str, plan: LoadPlan, speculative: str, model: str | None, clock: Callable[[], float],
           progress: Callable[[str], None] | None) -> list[LevelResult]:
    model = model or client.served_model(base)
    deadline = clock() + plan.max_seconds
    results: list[LevelResult] = []
    for prompt in plan.prompts:
        for concurrency in plan.levels:
            if clock() >= deadline:
                return results
            n = plan.requests_at(concurrency)
            if progress:
                progress(ngettext("{prompt}: {n} request, {streams} at a time", "{prompt}: {n} requests, {streams} at a time",
                                   n, prompt=prompt_name(prompt.name), streams=concurrency))
            before = _scrape(base, clock)
            start = clock()
            # at most `concurrency` in flight; each request in a copy of this context, so its failure sentence is
            # in the caller's language (a pool thread starts in a fresh context: English on a Portuguese page, read 47)
            with ThreadPoolExecutor(max_workers=concurrency) as pool:
                futures = [pool.submit(contextvars.copy_context().run, _one_request, f"{base}/v1/chat/completions",
                                       model, prompt, plan.max_tokens, deadline, clock) for _ in range(n)]
                records = [f.result() for f in futures]
            stopped = any(r.error in (NOT_SENT, CUT) for r in records)
            records = [r for r in records if r.error not in (NOT_SENT, CUT)]
            seconds = clock() - start
            after = _scrape(base, clock)
            level = LevelResult(prompt=prompt.name, concurrency=concurrency, speculative=speculative,
                                seconds=seconds, records=records, stopped_early=stopped)
            if before is not None and after is not None:
                delta = Delta.between(before, after)
                level.drafts, level.draft_tokens, level.accepted = delta.drafts, delta.draft_tokens, delta.accepted
                level.accepted_per_position = delta.accepted_per_position
            results.append(level)
    return results


def cap_note(results: list[LevelResult], prompts: Sequence[str], levels: Sequence[int], seconds: float) -> str:
    """What the sweep's time cap (`seconds`) cut, in the reader's language: the levels it ended early (their figures
    count only the requests that finished) and the planned levels (each prompt at each of `levels`) it never
    started; "" when every planned level ran in full. Read 50: a live sweep past its cap showed fewer levels with
    no word, and a request the cap ended as "No vLLM server answered". Read 55: it named a level by its JSON key
    ("copy at 1 stream"; pt "copy com 1 fluxo"), where the page says "copy prompt" ("prompt de cópia").

    >>> level = LevelResult(prompt="copy", concurrency=1, speculative="ngram", seconds=180.0, stopped_early=True)
    >>> print(cap_note([level], ["copy"], [1, 4, 16], 180.0))
    The sweep reached its time limit of 180 s. One level was cut short, and its figures count only the requests \
that finished: copy prompt at 1 stream. 2 levels were never started: copy prompt at 4 streams, copy prompt at 16 \
streams.
    """
    done = {(lv.prompt, lv.concurrency) for lv in results}
    cut = [(lv.prompt, lv.concurrency) for lv in results if lv.stopped_early]
    never = [(p, c) for p in prompts for c in levels if (p, c) not in done]
    if not cut and not never:
        return ""

    def named(pairs: list[tuple[str, int]]) -> str:
        return list_separator().join(ngettext("{prompt} at {n} stream", "{prompt} at {n} streams", c,
                                              prompt=prompt_name(p)) for p, c in pairs)

    parts = [_("The sweep reached its time limit of {seconds} s.", seconds=number(seconds, 0))]
    if cut:
        parts.append(ngettext("One level was cut short, and its figures count only the requests that finished: "
                              "{levels}.", "{n} levels were cut short, and their figures count only the requests "
                              "that finished: {levels}.", len(cut), levels=named(cut)))
    if never:
        parts.append(ngettext("One level was never started: {levels}.", "{n} levels were never started: {levels}.",
                              len(never), levels=named(never)))
    return " ".join(parts)
