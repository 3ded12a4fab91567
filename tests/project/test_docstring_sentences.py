"""A docstring that says how many sentences a function returns says the truth (the 23rd read found "one sentence"
feedback that was two; the 28th found five more: the bf16 note, the speed estimate, the stock-kernels note, the
rising-gain note and the quiz's scope caption, each two or more)."""

from __future__ import annotations

import re
from pathlib import Path

from specviz.core.i18n import _
from specviz.models.machine import GB, Machine, emulated_bf16_note, speed_from_bandwidth
from specviz.serving.results import ServingResult
from specviz.ui.common.quiz import setup
from specviz.ui.serving import sweep

ROOT = Path(__file__).resolve().parents[2]
WORDS = {1: "one", 2: "two"}


def sentences(text: str) -> int:
    """Sentences in a message: ends of sentence followed by a capital, plus the last."""
    return len(re.findall(r"[.!?] (?=[A-Z`])", text)) + 1


def claimed(doc: str) -> str:
    return " ".join(doc.split()).lower()


def test_docstrings_count_the_sentences_their_functions_return():
    committed = ServingResult.load(ROOT / "assets" / "benchmarks" / "serving" / "cpu-smollm2.json")
    cases = [
        (emulated_bf16_note, emulated_bf16_note("cpu", "bfloat16", Machine())),
        (speed_from_bandwidth(16 * GB, 8 * GB).sentence, speed_from_bandwidth(16 * GB, 8 * GB).sentence()),
        (sweep.stock_kernels_note, sweep.stock_kernels_note(committed)),
        (sweep.rising_gain, sweep.rising_gain(committed, "ngram", "copy")),
        (setup.scope_note, _(setup.TEXT["scoped"], n=3)),
    ]
    assert len(cases) == 5
    for function, text in cases:
        assert text, function.__qualname__  # each case produces its text
        count, doc = sentences(text), claimed(function.__doc__)
        assert not doc.startswith(("one sentence", "a sentence")) or count == 1, (function.__qualname__, count)
        if count in WORDS and doc.startswith(tuple(WORDS.values())):
            assert doc.startswith(WORDS[count] + " sentence"), (function.__qualname__, count)
