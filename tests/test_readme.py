"""The README's library examples run as written (on the instant toy pair instead of SmolLM2), from a directory
other than the checkout: the installed package, not the working directory, provides specviz and its assets."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def library_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Library"):text.index("\n## ", text.index("## Library") + 5)]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


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
    english = (ROOT / "README.md").read_text(encoding="utf-8")
    portuguese = (ROOT / "README.pt-BR.md").read_text(encoding="utf-8")
    assert f"| Quiz | {questions} questions over {concepts} concepts" in english
    assert f"**Quiz.** {questions} perguntas sobre {concepts} conceitos" in portuguese
    assert f"| Guided path | {words[0]} short lessons" in english and f"**Trilha guiada.** {words[1]} lições" in portuguese
