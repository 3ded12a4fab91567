"""What a number flag reads: a number written in ASCII digits, as the URL's readers take it
(`specviz.core.urlvalues`). Plain Python (only `re`): the command line's limits and the proposers' registry both
read it.

Python's int() and float() also read "４" (full-width), "٣" (Arabic-Indic) and "1_000" (read 55: `--k ４` ran K = 4,
`--seed 1_000` ran seed 1000, where a link with the same values is refused); a sign and spaces around are kept.
"""
from __future__ import annotations

import re

_PLAIN_INT = re.compile(r"\s*[+-]?[0-9]+\s*")
_PLAIN_FLOAT = re.compile(r"\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*"
                          r"|\s*[+-]?(?:inf|infinity|nan)\s*", re.IGNORECASE)


def plain_int(text: str) -> int:
    """int(), for a flag: a whole number written in ASCII digits (an optional sign), else a ValueError, which
    argparse writes as its own "invalid int value: '４'" (this type's name is int).

    >>> plain_int("4"), plain_int("-3"), plain_int(" 12 ")
    (4, -3, 12)
    >>> for text in ("４", "٣", "1_000", "4.0"):
    ...     try:
    ...         plain_int(text)
    ...     except ValueError as exc:
    ...         print(exc)
    invalid literal for int(): '４'
    invalid literal for int(): '٣'
    invalid literal for int(): '1_000'
    invalid literal for int(): '4.0'
    """
    if not isinstance(text, str) or not _PLAIN_INT.fullmatch(text):
        raise ValueError(f"invalid literal for int(): {text!r}")
    return int(text)


plain_int.__name__ = "int"  # argparse and bench's list flags name a type in a refusal: "invalid int value"


def plain_float(text: str) -> float:
    """float(), for a flag: a number written in ASCII (0.7, .5, 1e-3, and the words inf and nan, which the callers
    refuse in their own words), else a ValueError ("０.７" and "1_0" are not read as 0.7 and 10).

    >>> plain_float("0.7"), plain_float("1e-3"), plain_float("-inf")
    (0.7, 0.001, -inf)
    >>> plain_float("０.７")
    Traceback (most recent call last):
    ...
    ValueError: could not convert string to float: '０.７'
    """
    if not isinstance(text, str) or not _PLAIN_FLOAT.fullmatch(text):
        raise ValueError(f"could not convert string to float: {text!r}")
    return float(text)
