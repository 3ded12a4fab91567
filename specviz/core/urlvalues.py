"""The one checked reader of the numbers, lists and settings that come in a URL (`?lesson=4&done=1,2,3`, `?step=12`,
`?k=4&temperature=0.7`): every page that reads one goes through here, so a shared link can only ever give a page a
value it expects, or nothing. The parameters that are a word or a key (the language, the quiz's scope, the
Playground's and the race's source, the Playground's example, a run's pair, proposer and policy, the classroom's
role, session and student token) are read as text where they are used and compared with what they may be; the race's
example name is read by `text` (bounded) and compared when shown; a run's prompt is free text that `RunSpec` bounds;
the classroom's join code is only put into the join form's box, checked when the form is sent.

A URL value is text anyone can write. Python's own readers accept more than a person means and fail in ways a page
does not expect: `str.isdigit()` is true for "²" (and `int("²")` then raises), `int()` reads "٣" and "５" as 3 and
5, refuses more than 4,300 digits, and `float()` reads "nan", "inf", "1e308" and "1_000". Here a whole number is
ASCII digits (an optional minus sign), a decimal is ASCII digits with one point and an optional exponent, every
value has a bounded length and a range, and anything else is None: the caller falls back to its default and says
so in one sentence (echoing the value only through `specviz.ui.common.escaping`).

    >>> whole("12", 0, 100), whole("²", 0, 100), whole("٣", 0, 100), whole("9" * 5000, 0, 100), whole("-1", 0, 9)
    (12, None, None, None, None)
    >>> decimal("0.7", 0, 2), decimal("nan", 0, 2), decimal("1e308", 0, 2), decimal("1_0", 0, 20), decimal(".5", 0, 1)
    (0.7, None, None, None, 0.5)
    >>> whole_list("1, 2,3", 1, 10), whole_list("1,²", 1, 10), whole_list("", 1, 10)
    ([1, 2, 3], None, [])

A decimal written with a non-zero digit that a float reads as 0 ("1e-400", read 53: a temperature of 1e-400 ran
greedy without a word) is None too; `reads_as_zero` tells the caller's sentence why.
"""

from __future__ import annotations

import math
import re
from typing import Any

from specviz.core.text import control_shown

__all__ = ["MAX_LENGTH", "decimal", "echoed", "reads_as_zero", "text", "whole", "whole_list"]

MAX_LENGTH = 200  # characters in one value that is not free text
_WHOLE = re.compile(r"-?[0-9]{1,15}")
# up to 24 digits after the point: every float's repr (0.30000000000000004, 0.00012345678901234568) reads back
_DECIMAL = re.compile(r"-?(?:[0-9]{1,15}(?:\.[0-9]{0,24})?|\.[0-9]{1,24})(?:[eE][+-]?[0-9]{1,3})?")


def _raw(value: Any, limit: int = MAX_LENGTH) -> str | None:
    """The value as stripped text, or None when it is not text or longer than `limit` characters."""
    if not isinstance(value, str) or len(value) > limit:
        return None
    return value.strip()


def whole(value: Any, lo: int, hi: int) -> int | None:
    """A whole number from lo to hi written in ASCII digits (at most 15 of them, an optional minus), else None."""
    raw = _raw(value, 32)
    if raw is None or not _WHOLE.fullmatch(raw):
        return None
    number = int(raw)
    return number if lo <= number <= hi else None


def decimal(value: Any, lo: float, hi: float) -> float | None:
    """A finite number from lo to hi written like 0.7, -2, .5 or 1e-3 in ASCII, else None (no nan, inf, 1_000)."""
    raw = _raw(value, 40)
    if raw is None or not _DECIMAL.fullmatch(raw):
        return None
    number = float(raw)
    if reads_as_zero(raw):  # "1e-400" is not 0, yet a float reads it as 0: no value rather than another one
        return None
    return number if math.isfinite(number) and lo <= number <= hi else None


def reads_as_zero(value: Any) -> bool:
    """Whether `value` is a decimal written with a non-zero digit that a float reads as 0 (it underflows).

    >>> reads_as_zero("1e-400"), reads_as_zero("-0.5e-330"), reads_as_zero("0e-400"), reads_as_zero("1e-320")
    (True, True, False, False)
    """
    raw = _raw(value, 40)
    if raw is None or not _DECIMAL.fullmatch(raw):
        return False
    digits = re.split("[eE]", raw)[0]
    return float(raw) == 0 and any(c in "123456789" for c in digits)


def whole_list(value: Any, lo: int, hi: int, most: int = 64) -> list[int] | None:
    """Comma-separated whole numbers from lo to hi, at most `most` of them ("" is the empty list), else None."""
    raw = _raw(value)
    if raw is None:
        return None
    parts = [p.strip() for p in raw.split(",") if p.strip()]
    if len(parts) > most:
        return None
    numbers = [whole(p, lo, hi) for p in parts]
    return None if any(n is None for n in numbers) else numbers  # type: ignore[return-value]


def text(value: Any, limit: int) -> str | None:
    """Free text of at most `limit` characters (not stripped: a prompt keeps its spaces), else None."""
    return value if isinstance(value, str) and len(value) <= limit else None


def echoed(value: str, limit: int) -> str:
    """The start of a refused value as a sentence quotes it: at most `limit` characters of it, a cut one ending in
    "…", so the quote never claims a link asked for less than it did (read 45: a lesson of 5,000 nines was quoted
    as 20), each character `specviz.core.text.has_control` refuses written as its escape (read 49: a NUL vanished
    from the quote, a line break split the sentence into paragraphs and a right-to-left override reversed it).

    >>> echoed("twelve", 20), echoed("9" * 5000, 6), echoed("a\\u202eb\\x00", 20)
    ('twelve', '99999…', 'a\\\\u202eb\\\\x00')
    """
    return control_shown(value if len(value) <= limit else value[: limit - 1] + "…")
