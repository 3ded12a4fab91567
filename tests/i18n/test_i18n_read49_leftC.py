"""Findings of the 49th read's list of small known-left items, in English and in Portuguese; each test says what
the read found."""

from __future__ import annotations

import re

import pytest

from specviz.core.i18n import using


def test_every_portuguese_refusal_says_deve_where_the_english_says_must(capsys):
    """Read 49: `specviz calibrate --top 0 --lang pt` refused with "--top precisa ser um número inteiro de 1 a 50",
    where --port, --k, --timeout and the other refusals say "deve ser"; the theory, policy, roofline, race and
    catalog refusals said "precisa ser / precisa estar" too. Every refusal ("must ... (got ...)") now says
    "deve(m)"."""
    from specviz import cli
    from specviz.engine import theory
    from specviz.scripts.i18n import PO, read_catalog

    assert cli.main(["calibrate", "--pair", "toy", "--top", "0", "--lang", "pt"]) == 2
    assert capsys.readouterr().err == "specviz: --top deve ser um número inteiro de 1 a 50 (recebido: 0).\n"
    with using("pt"), pytest.raises(ValueError) as refused:
        theory.expected_speedup(0.5, 4, -1)
    assert str(refused.value).startswith("O custo do rascunho c deve ser um número finito, 0 ou mais (recebido: ")
    refusals = [m for m in read_catalog(PO) if m.id and isinstance(m.id, str) and re.search(r"\bmust\b", m.id)
                and ("(got " in m.id or m.id.startswith("--"))]
    assert len(refusals) >= 30
    assert [m.id for m in refusals if re.search(r"\bprecisam? (?!de\b)", m.string)] == []
    assert [m.id for m in refusals if not re.search(r"\bdevem?\b", m.string)] == []
