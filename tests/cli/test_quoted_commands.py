"""Every `python -m specviz generate|compare ...` a page, doc or card tells a person to type parses with today's
command line (issue 43, 27th read: four model cards and two page hints quoted `generate` without `--prompt`, which
it requires, so typed as written it stopped at "the following arguments are required: --prompt")."""

import re
import shlex
from pathlib import Path

import pytest

from specviz.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
COMMAND = re.compile(r"`(?:[A-Z_]+=\S+ )*python -m specviz ((?:generate|compare) [^`]*)`")
FENCED = re.compile(r"^(?:[A-Z_]+=\S+ )*python -m specviz ((?:generate|compare) [^#\n]*)", re.MULTILINE)


def texts() -> dict[str, str]:
    """The readable texts: the Markdown a person reads and the catalog's messages (English and Portuguese), each
    message joined from its quoted lines."""
    found = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
             for p in [*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md"), *(ROOT / "assets").rglob("*.md")]}
    po = (ROOT / "assets/locale/pt_BR/LC_MESSAGES/specviz.po").read_text(encoding="utf-8")
    found["specviz.po"] = re.sub(r'"\n"', "", po).replace('\\"', '"')
    return found


def quoted() -> list[tuple[str, str]]:
    """Commands in backticks (wrapped lines joined) and the lines of fenced code blocks, comments cut."""
    return [(name, found.group(1).strip()) for name, text in texts().items()
            for found in [*COMMAND.finditer(" ".join(text.split())), *FENCED.finditer(text)]]


def test_the_texts_quote_generate_and_compare_commands():
    assert len(quoted()) >= 14


@pytest.mark.parametrize("where, command", quoted())
def test_a_quoted_generate_or_compare_command_parses(where, command, capsys):
    try:
        build_parser().parse_args(shlex.split(command))
    except SystemExit:
        pytest.fail(f"{where}: `python -m specviz {command}` does not parse: {capsys.readouterr().err.strip()}")
