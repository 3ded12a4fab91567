"""The library examples of docs/library.md (the README's Library section until the README became a front door) run
as written (on the instant toy pair instead of SmolLM2), from a directory other than the checkout: the installed
package, not the working directory, provides specviz and its assets."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


README, README_PT = ROOT / "README.md", ROOT / "README.pt-BR.md"


def library_blocks() -> list[str]:
    text = (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_the_library_section_has_both_examples():
    blocks = library_blocks()
    assert len(blocks) == 2 and "RunSpec" in blocks[0] and "speculative_generate" in blocks[1]


@pytest.mark.slow  # a fresh interpreter that imports torch and transformers: ~10 s
def test_the_readme_library_examples_run_from_another_directory(tmp_path):
    code = "\n".join(block.replace('"default"', '"toy"') for block in library_blocks())
    code += "\nprint('OK', trace.num_tokens, baseline.num_tokens)\n"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1].startswith("OK ")


def test_the_counts_the_readmes_quote_are_the_bank_and_the_path():
    """The quiz's questions and concepts and the guided path's lessons, as the README and its twin say them."""
    from specviz.learn import LESSONS
    from specviz.quiz import load_bank

    bank = load_bank()
    questions, concepts = len(bank), len({q.concept for q in bank})
    words = {10: ("ten", "Dez"), 11: ("eleven", "Onze"), 12: ("twelve", "Doze")}[len(LESSONS)]
    english, portuguese = README.read_text(encoding="utf-8"), README_PT.read_text(encoding="utf-8")
    tour = (ROOT / "docs" / "app.md").read_text(encoding="utf-8")
    tour_pt = (ROOT / "docs" / "app.pt-BR.md").read_text(encoding="utf-8")
    assert f"| Quiz | {questions} questions over {concepts} concepts" in english
    assert f"| Quiz | {questions} perguntas sobre {concepts} conceitos" in portuguese
    assert f"| Guided path | {words[0]} short lessons" in english
    assert f"| Trilha guiada | {words[1].lower()} lições" in portuguese
    assert f"## Quiz\n\n{questions} questions over {concepts} concepts" in tour
    assert f"## Quiz\n\n{questions} perguntas sobre {concepts} conceitos" in tour_pt
    assert f"## Guided path\n\n{words[0].capitalize()} short lessons" in tour
    assert f"## Trilha guiada\n\n{words[1]} lições" in tour_pt
