"""A load sweep's result on disk: JSON under assets/benchmarks/serving/, with the command that reproduces it.

One file holds every (speculation, prompt, concurrency) level of one sweep, the machine and server it ran on, and
specviz's own engine at batch 1 on the same prompts, so the Serving page can say where speculation stops paying
and how vLLM's acceptance compares with specviz's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from specviz.core.i18n import N_, _
from specviz.core.paths import BENCHMARKS_DIR, read_json, write_text_atomically
from specviz.engine.limits import K_RANGE, is_number, is_whole, pays
# read 55: the prompt words live in load.py, whose progress lines and cut-short note name prompts too
from specviz.serving.load import MAX_STREAMS, PROMPT_WORDS, LevelResult, prompt_name, prompt_word  # noqa: F401

__all__ = ["EAGLE_SERVED", "LIVE_SCHEMA", "SCHEMA", "SCHEMA_VERSION", "SERVING_DIR", "PayKind", "PayShape",
           "ServingResult", "find_serving_results", "live_sweep_json", "prompt_name", "prompt_word"]

SCHEMA = "specviz-serving"
SCHEMA_VERSION = 1
LIVE_SCHEMA = "specviz-serving-live"  # the Serving page's download of a live sweep (`live_sweep_json`)
SERVING_DIR = BENCHMARKS_DIR / "serving"
# The commit whose EAGLE drafter a committed sweep's "eagle" rows served, by file name (the files do not record it).
# cpu-smollm2.json was measured on 2026-12-01 (its machine's date) and committed in 8bdea81, before the EAGLE-1
# drafter shipped in 35ce4c2 was retrained (86a0e25) and then replaced by the EAGLE-3 drafter (d63459e) that
# assets/models/smollm2-eagle holds and `make serve SPEC=eagle` exports today (docs/serving.md says the same).
EAGLE_SERVED = {"cpu-smollm2": "35ce4c2"}
EAGLE_NOTE = N_("The eagle rows served the EAGLE-1 drafter's first version (commit {commit}), since replaced by the "
                "EAGLE-3 drafter in assets/models/smollm2-eagle: `make serve SPEC=eagle` and this sweep's command "
                "serve that one today, so they measure another drafter than these rows.")

class PayKind(StrEnum):
    """The shape of a serving sweep's speedup curve across its levels (`PayShape.kind`); a str, so it compares
    equal to its value."""

    UNMEASURED = "unmeasured"
    NEVER = "never"
    ALWAYS = "always"
    FROM = "from"
    UNTIL = "until"
    BETWEEN = "between"
    MIXED = "mixed"


@dataclass(frozen=True)
class PayShape:
    """Where a speculative config paid against the target alone (a speedup of 1 or more: a tie is no loss, by
    `limits.pays`, the roofline's rule) across the levels measured with and without it, lowest first, named by the
    curve's shape (Read 45: a curve that lost at 1 stream, paid at 4 and lost from 16 read "stops paying at 16" and
    never said it lost at 1). `kind`:

    - "unmeasured": no level has both rows; "never": it paid at no level; "always": at every level;
    - "from": it lost up to a level and paid from the next one on (`start`);
    - "until": it paid up to a level and lost from the next one on (`stop`);
    - "between": it lost, paid from `start` up to the level before `stop`, and lost again from `stop` on;
    - "mixed": any other alternation, with no one level where it starts or stops paying.

    >>> shape = PayShape.of([(1, 0.9), (4, 1.2), (16, 0.8)])
    >>> shape.kind == PayKind.BETWEEN == "between", shape.start, shape.stop
    (True, 4, 16)
    """

    kind: PayKind
    paid: tuple[int, ...]
    lost: tuple[int, ...]
    start: int | None = None  # the first level of the paying run ("from", "between")
    stop: int | None = None  # the first level it lost after paying ("until", "between")

    @classmethod
    def of(cls, speedups: list[tuple[int, float | None]]) -> PayShape:
        """The shape of (level, speedup) pairs; a level without a speedup (a row missing) is skipped."""
        curve = sorted((c, pays(s)) for c, s in speedups if s is not None)
        paid = tuple(c for c, p in curve if p)
        lost = tuple(c for c, p in curve if not p)
        # each run of paying (or losing) levels: its first level and whether it paid
        runs = [(c, p) for i, (c, p) in enumerate(curve) if i == 0 or p != curve[i - 1][1]]
        firsts = [c for c, _p in runs]
        kind = {(): PayKind.UNMEASURED, (False,): PayKind.NEVER, (True,): PayKind.ALWAYS, (False, True): PayKind.FROM,
                (True, False): PayKind.UNTIL, (False, True, False): PayKind.BETWEEN}.get(tuple(p for _c, p in runs),
                                                                                       PayKind.MIXED)
        start = firsts[1] if kind in (PayKind.FROM, PayKind.BETWEEN) else None
        stop = firsts[1] if kind == PayKind.UNTIL else firsts[2] if kind == PayKind.BETWEEN else None
        return cls(kind=kind, paid=paid, lost=lost, start=start, stop=stop)


@dataclass
class ServingResult:
    command: str
    machine: dict
    server: dict  # vllm build and version, model, dtype, K, max tokens, requests per level
    prompts: dict[str, str]
    levels: list[LevelResult] = field(default_factory=list)
    specviz: list[dict] = field(default_factory=list)  # specviz's engine at batch 1, one row per prompt
    name: str = ""  # the file's name without .json, once loaded from one

    # ---- questions -------------------------------------------------------------------------------------------------

    def eagle_note(self) -> str:
        """One sentence when this sweep's "eagle" rows served a drafter other than the one shipped today
        (`EAGLE_SERVED`), in the reader's language; "" otherwise."""
        commit = EAGLE_SERVED.get(self.name)
        return _(EAGLE_NOTE, commit=commit) if commit and "eagle" in self.specs() else ""

    def specs(self) -> list[str]:
        return list(dict.fromkeys(lv.speculative for lv in self.levels))

    def prompt_names(self) -> list[str]:
        return list(dict.fromkeys(lv.prompt for lv in self.levels))

    def level(self, spec: str, prompt: str, concurrency: int) -> LevelResult | None:
        for lv in self.levels:
            if (lv.speculative, lv.prompt, lv.concurrency) == (spec, prompt, concurrency):
                return lv
        return None

    def concurrencies(self, prompt: str) -> list[int]:
        return sorted({lv.concurrency for lv in self.levels if lv.prompt == prompt})

    def speedup(self, spec: str, prompt: str, concurrency: int, baseline: str = "none") -> float | None:
        """Throughput with `spec` / throughput without speculation, same prompt and concurrency."""
        a, b = self.level(spec, prompt, concurrency), self.level(baseline, prompt, concurrency)
        if a is None or b is None or not a.throughput or not b.throughput:
            return None
        return a.throughput / b.throughput

    def break_even(self, spec: str, prompt: str, baseline: str = "none") -> int | None:
        """The lowest measured concurrency from which on `spec` falls below the baseline's throughput (`limits.pays`:
        a tie is no loss), at that level and every higher one measured (None: it still paid at the highest level
        measured). A dip under 1 that a higher level recovers from is not where it stops paying, so the page's
        "stops paying at" stays true."""
        even = None
        for c in self.concurrencies(prompt):
            s = self.speedup(spec, prompt, c, baseline)
            if s is None:
                continue
            if not pays(s):
                even = c if even is None else even
            else:
                even = None
        return even

    def pay_shape(self, spec: str, prompt: str, baseline: str = "none") -> PayShape:
        """Where `spec` paid against the baseline (1 or more) across the levels measured, named by the curve's shape
        (`PayShape`)."""
        return PayShape.of([(c, self.speedup(spec, prompt, c, baseline)) for c in self.concurrencies(prompt)])

    # ---- files -----------------------------------------------------------------------------------------------------

    def to_dict(self) -> dict:
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "command": self.command, "machine": self.machine,
                "server": self.server, "prompts": self.prompts, "levels": [lv.to_dict() for lv in self.levels],
                "specviz": self.specviz}

    @classmethod
    def from_dict(cls, data: dict) -> ServingResult:
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise ValueError(_("This file is not a specviz serving result (no 'specviz-serving' schema found)."))
        if data.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(_("This serving result has schema version {found}; this specviz reads version {version}.",
                               found=data.get('schema_version'), version=SCHEMA_VERSION))
        if not _readable(data):
            raise ValueError(_("This serving result is damaged: a field it needs is missing or unreadable "
                               "(command, machine, server, prompts, or a level's)."))
        return cls(command=data["command"], machine=data["machine"], server=data["server"], prompts=data["prompts"],
                   levels=[LevelResult.from_dict(lv) for lv in data["levels"]], specviz=data.get("specviz", []))

    def save(self, path: str | Path) -> Path:
        return write_text_atomically(path, json.dumps(self.to_dict(), indent=1) + "\n")  # never read half-written

    @classmethod
    def load(cls, path: str | Path) -> ServingResult:
        try:
            data = read_json(path)
        except (OSError, ValueError):  # ValueError: bad JSON, not UTF-8, nested thousands of levels deep
            raise ValueError(_("Cannot read {name} as JSON.", name=Path(path).name)) from None
        result = cls.from_dict(data)
        result.name = Path(path).stem
        return result


# The figures the Serving page writes from each of specviz's own rows (None: not measured)
SPECVIZ_FIGURES = ("acceptance_rate", "mean_accepted_length", "mean_accepted_length_drafted_steps", "speedup",
                   "tokens_per_s", "baseline_tokens_per_s")


def _number(value: object, whole: bool = False) -> bool:
    """A finite number of 0 or more (a whole one where `whole`), not a bool."""
    if whole:
        return is_whole(value) and value >= 0
    return is_number(value) and value >= 0


def _readable(data: dict) -> bool:
    """Whether every field the Serving and Learn pages read has the type `save` writes: a page drew a damaged
    file's `"server": null`, `"drafts": "x"` or `"concurrency": 1e308` as a traceback (30th read)."""
    levels, rows = data.get("levels"), data.get("specviz", [])
    if not (isinstance(data.get("command"), str) and all(isinstance(data.get(k), dict) for k in
                                                          ("machine", "server", "prompts"))
            and isinstance(levels, list) and levels and isinstance(rows, list)):
        return False
    server = data["server"]
    if not (all(is_whole(server.get(k, 1)) and server.get(k, 1) >= 1 for k in ("requests", "max_tokens"))
            and is_whole(server.get("k", K_RANGE[0])) and K_RANGE[0] <= server.get("k", K_RANGE[0]) <= K_RANGE[1]
            and all(isinstance(server.get(k, ""), str) for k in ("build", "version", "model", "dtype"))):
        return False
    if not all(isinstance(row, dict) and isinstance(row.get("prompt"), str) and isinstance(row.get("dtype", ""), str)
               and isinstance(row.get("kernels") or "", str)  # absent from sweeps before read 32: still read
               and all(row.get(k) is None or _number(row[k]) for k in SPECVIZ_FIGURES) for row in rows):
        return False
    for lv in levels:
        if not (isinstance(lv, dict) and isinstance(lv.get("prompt"), str) and isinstance(lv.get("speculative"), str)
                and is_whole(lv.get("concurrency")) and 1 <= lv["concurrency"] <= MAX_STREAMS
                and _number(lv.get("seconds")) and isinstance(lv.get("stopped_early", False), bool)
                and all(_number(lv.get(k, 0.0)) for k in ("drafts", "draft_tokens", "accepted"))
                and isinstance(lv.get("accepted_per_position", []), list)
                and all(_number(v) for v in lv.get("accepted_per_position", []))
                and isinstance(lv.get("records", []), list)):
            return False
        for r in lv.get("records", []):
            if not (isinstance(r, dict) and set(r) <= {"latency_s", "completion_tokens", "error"}
                    and _number(r.get("latency_s")) and _number(r.get("completion_tokens"), whole=True)
                    and isinstance(r.get("error", ""), str)):
                return False
    return True


def find_serving_results(folder: Path = SERVING_DIR) -> list[Path]:
    return sorted(Path(folder).glob("*.json"))


def live_sweep_json(levels: list[LevelResult], *, server: str, model: str, speculating: bool, requests: int,
                    max_tokens: int, measured_at: str) -> str:
    """A live sweep as the Serving page's download writes it: its levels with what they were measured against (the
    server's address and the model it served, whether it speculated, when) and the plan (requests per level, tokens
    per request), so a kept file says what its tokens/s are of. The server's dtype and speculative configuration are
    not exposed by its API, so they are not in it.

    >>> import json; record = json.loads(live_sweep_json([], server="http://127.0.0.1:8000", model="m",
    ...     speculating=False, requests=4, max_tokens=64, measured_at="2026-12-06T02:00:00Z"))
    >>> record["schema"], record["model"], record["plan"]
    ('specviz-serving-live', 'm', {'requests': 4, 'max_tokens': 64})
    """
    return json.dumps({"schema": LIVE_SCHEMA, "server": server, "model": model, "speculating": speculating,
                       "measured_at": measured_at, "plan": {"requests": requests, "max_tokens": max_tokens},
                       "levels": [lv.to_dict() for lv in levels]}, indent=1)
