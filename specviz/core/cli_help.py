"""Command-line help that states every flag's default.

A flag whose help does not already say its default gets "(default: …)" after its help, so `--help` answers "what
happens if I leave it out" for every flag (read 46: `bench --repeats`, `distill --lr` and 35 others did not say).
Flags with no default (None), switches (store_true) and help that states its default ("default: …", "default 400")
are left as they are; a help that only uses the word ("a catalog name (default, toy, …)", "0: torch's default") gets
it added (read 46). A flag needs a help text of its own for the default to show (argparse prints nothing for a flag
without one).

    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="demo", formatter_class=DefaultsHelpFormatter)
    >>> _ = parser.add_argument("--repeats", type=int, default=3, help="timed repeats per case")
    >>> _ = parser.add_argument("--temperatures", nargs="+", default=[[0.0, 0.7]], help="0 = greedy")
    >>> _ = parser.add_argument("--seed", type=int, default=0, help="seed")
    >>> _ = parser.add_argument("--lang", default=None, help="en or pt (default: the system's)")
    >>> _ = parser.add_argument("--threads", type=int, default=0, help="CPU threads (0: torch's default)")
    >>> print(" ".join(parser.format_help().split("options:")[1].split()))
    -h, --help show this help message and exit --repeats REPEATS timed repeats per case (default: 3) --temperatures \
TEMPERATURES [TEMPERATURES ...] 0 = greedy (default: 0.0 0.7) --seed SEED seed (default: 0) --lang LANG en or pt \
(default: the system's) --threads THREADS CPU threads (0: torch's default) (default: 0)
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

SAID = re.compile(r"\bdefault(?::| \d)", re.IGNORECASE)  # a help that states its default: "default: …", "default 400"


def shown(default: object) -> str:
    """A default as a person types it: lists flattened and spaced (nargs="+" flags), paths as they are."""
    if isinstance(default, (list, tuple)):
        return " ".join(shown(item) for item in default)
    return str(default) if isinstance(default, Path) else f"{default}"


class DefaultsHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's help, with "(default: …)" added where a flag's help leaves its default unsaid; descriptions keep
    their own line breaks (RawDescriptionHelpFormatter)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        quiet = action.default in (None, argparse.SUPPRESS) or isinstance(action.default, bool)
        if quiet or not action.option_strings or SAID.search(text):
            return text
        said = "(default: " + shown(action.default).replace("%", "%%") + ")"  # argparse %-formats the help
        return f"{text} {said}" if text else said
