"""Read 44: a regression audit of issue 43 found every item still fixed, but items 2, 4, 6 and 7 had no test naming
the wrong wording, so new text could bring it back unnoticed. Each pattern below is a sentence issue 43 removed; none
may appear again in any text a reader meets, in English or in Portuguese (the pages' and lessons' source, the quiz
banks and their twins, the docs and their twins, the READMEs, the catalog)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.project.test_lookup_branch_credit import joined_texts

ROOT = Path(__file__).resolve().parents[2]
PLACES = ("specviz", "pages", "app.py", "docs", "assets/quiz", "assets/locale", "README.md", "README.pt-BR.md")

WRONG = {
    # item 2: a rollout still checks equivalence on its served stack (greedy identity, a distribution test)
    "no quality check": re.compile(r"no quality check|never quality|quality is never|nunca (?:a )?qualidade|"
                                   r"qualidade nunca|sem (?:checagem|verificação) de qualidade", re.IGNORECASE),
    # item 4: the committed run says 1.00-1.04 one-token passes for a bfloat16 verify of 2-5 tokens
    "stale verify cost": re.compile(r"1[.,]1[–-]1[.,]3 (?:one-token|passagens)"),
    # item 6: a tree step also ends at an accepted leaf, with a bonus token
    "ends only when every child": re.compile(r"ends only when every child|only when every child is rejected|"
                                             r"(?:só|apenas) termina quando todos|termina (?:só|apenas) quando todos",
                                             re.IGNORECASE),
    # item 7: a 7B draft for a 70B target has c ≈ 0.1
    "c of a few hundredths": re.compile(r"few hundredths|(?:poucos|alguns) centésimos", re.IGNORECASE),
}


def _texts() -> dict[str, str]:
    """Each text file a reader meets, its wrapped strings joined so a sentence split over lines reads as one."""
    return joined_texts(PLACES)


@pytest.mark.slow  # over 0.4 s on 2 cores (read 51's --durations): make check stays under a minute
def test_no_text_brings_back_a_wording_issue_43_removed():
    texts = _texts()
    assert {"specviz/teach/learn.py", "docs/teaching.md", "docs/teaching.pt-BR.md", "assets/quiz/03_speedup.yaml",
            "assets/quiz/pt/03_speedup.yaml", "assets/locale/pt_BR/LC_MESSAGES/specviz.po"} <= set(texts)
    found = [(name, label, m.group(0)) for name, text in texts.items() for label, wrong in WRONG.items()
             for m in wrong.finditer(text)]
    assert found == []


def test_each_pattern_catches_the_wording_issue_43_quoted():
    old = {"no quality check": ["there is no quality check to run", "a bad draft costs speed, never quality",
                                "um rascunho ruim custa velocidade, nunca qualidade"],
           "stale verify cost": ["cost 1.1–1.3 one-token passes", "custou 1,1–1,3 passagens de um token"],
           "ends only when every child": ["the step ends only when every child is rejected",
                                          "o passo só termina quando todos os filhos são rejeitados"],
           "c of a few hundredths": ["a draft with c of a few hundredths", "um rascunho com c de poucos centésimos"]}
    assert set(old) == set(WRONG)
    assert [(label, s) for label, sentences in old.items() for s in sentences if not WRONG[label].search(s)] == []
