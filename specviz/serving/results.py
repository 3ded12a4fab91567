"""A load sweep's result on disk: JSON under assets/benchmarks/serving/, with the command that reproduces it.

One file holds every (speculation, prompt, concurrency) level of one sweep, the machine and server it ran on, and
specviz's own engine at batch 1 on the same prompts, so the Serving page can say where speculation stops paying
and how vLLM's acceptance compares with specviz's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from specviz.core.i18n import _
from specviz.core.paths import BENCHMARKS_DIR, write_text_atomically
from specviz.serving.load import LevelResult

__all__ = ["SCHEMA", "SCHEMA_VERSION", "SERVING_DIR", "ServingResult", "find_serving_results"]

SCHEMA = "specviz-serving"
SCHEMA_VERSION = 1
SERVING_DIR = BENCHMARKS_DIR / "serving"


@dataclass
class ServingResult:
    command: str
    machine: dict
    server: dict  # vllm build and version, model, dtype, K, max tokens, requests per level
    prompts: dict[str, str]
    levels: list[LevelResult] = field(default_factory=list)
    specviz: list[dict] = field(default_factory=list)  # specviz's engine at batch 1, one row per prompt

    # ---- questions -------------------------------------------------------------------------------------------------

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
        """The lowest measured concurrency at which `spec` no longer beats the baseline's throughput (None: it
        paid at every level measured)."""
        for c in self.concurrencies(prompt):
            s = self.speedup(spec, prompt, c, baseline)
            if s is not None and s <= 1.0:
                return c
        return None

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
        try:
            return cls(command=data["command"], machine=data["machine"], server=data["server"],
                       prompts=data["prompts"], levels=[LevelResult.from_dict(lv) for lv in data["levels"]],
                       specviz=data.get("specviz", []))
        except (KeyError, TypeError, ValueError):
            raise ValueError(_("This serving result is damaged: a level lacks a field.")) from None

    def save(self, path: str | Path) -> Path:
        return write_text_atomically(path, json.dumps(self.to_dict(), indent=1) + "\n")  # never read half-written

    @classmethod
    def load(cls, path: str | Path) -> ServingResult:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError):
            raise ValueError(_("Cannot read {name} as JSON.", name=Path(path).name)) from None
        return cls.from_dict(data)


def find_serving_results(folder: Path = SERVING_DIR) -> list[Path]:
    return sorted(Path(folder).glob("*.json"))
