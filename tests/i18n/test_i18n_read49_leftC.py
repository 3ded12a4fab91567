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


@pytest.mark.parametrize("flags", [
    ["generate", "--pair", "toy", "--prompt", "hi", "--k", "-1"],
    ["generate", "--pair", "toy", "--prompt", "hi", "--temperature", "-1"],
    ["generate", "--pair", "toy", "--prompt", "hi", "--seed", "-1"],
    ["calibrate", "--pair", "toy", "--top", "-1"],
    ["bench", "--repeats", "-1", "--out", "unused"],
    ["bench", "--threshold", "-1", "--out", "unused"],
    ["bench", "--k", "-1", "--out", "unused"],
    ["serve", "sweep", "--requests", "-1"],
])
def test_a_refusal_quotes_a_typed_negative_number_with_the_minus_sign(flags, capsys):
    """Read 49: `generate --temperature -1` was refused "(got −1)" (U+2212, `given`'s way, as every number is
    written), while `generate --k -1`, `calibrate --top -1`, `bench --repeats -1`, `bench --threshold -1` and the
    serving flags said "(got -1)" with a hyphen. Every refusal writes the typed number the one way: "(got −1)"."""
    from specviz import cli

    assert cli.main(flags) == 2
    err = capsys.readouterr().err
    assert err.endswith(" (got \u22121).\n") and "-1)" not in err, err


def test_the_library_and_file_refusals_write_a_negative_number_the_same_way():
    """The same sentence from the library and from a file: theory's K, the policies' bounds, the sampler's
    temperature and DraftShape said "(got -2)", "(got -1)", "(got -0.5)"."""
    from specviz.engine import policies, theory
    from specviz.engine.draft_shape import DraftShape
    from specviz.engine.sampling import SamplingConfig

    refusals = []
    for make in (lambda: theory.expected_speedup(0.5, -2, 0.1), lambda: theory.expected_speedup(-0.5, 4, 0.1),
                 lambda: policies.Heuristic(start=4, k_max=-1), lambda: SamplingConfig(temperature=-0.5),
                 lambda: DraftShape(-1)):
        with pytest.raises(ValueError) as refused:
            make()
        refusals.append(str(refused.value))
    assert all("\u2212" in text and not re.search(r"-\d", text) for text in refusals), refusals
    with using("pt"), pytest.raises(ValueError) as refused:
        theory.expected_speedup(-0.5, 4, 0.1)
    assert str(refused.value).endswith("(recebido: \u22120,5).")


def test_every_description_of_the_lookup_branch_says_the_copy_reads_on_into_itself():
    """Read 49: the README's "the lookup branch copies up to 8 tokens that followed the last earlier occurrence of the
    text's last 3 tokens", and the same words on the Playground, the Proposers page, a tree step's legend and the
    bench's definitions, held only where 8 tokens follow the match: the branch copies with `overlap=True`, so near
    the text's end it reads on into what it has copied (after "4 1 2 1 2" it proposes 1 2 1 2 1, where only
    "1 2" followed the match). Each now says so, in both languages."""
    from pathlib import Path

    from specviz.core.i18n import _
    from specviz.engine.decoding import prompt_lookup
    from specviz.labs.bench.summary import DEFINITIONS
    from specviz.ui.common.tree_view import TEXT as TREE_TEXT
    from specviz.ui.proposers.view import TREE_TEXT as PROPOSERS_TEXT

    assert prompt_lookup([4, 1, 2, 1, 2], 5, overlap=True) == [1, 2, 1, 2, 1]
    root = Path(__file__).resolve().parents[2]
    flat = {name: " ".join((root / name).read_text(encoding="utf-8").split())
            for name in ("README.md", "README.pt-BR.md", "docs/benchmarks.md")}
    assert ("(failing a match, its last 2, then its last 1; where fewer than 8 follow it, the copy reads on into what "
            "it has copied, so a repeating loop is carried on past the text's end)") in flat["README.md"]
    assert ("onde menos de 8 vêm depois dela, a cópia continua lendo o que ela mesma já copiou, e assim um laço que se "
            "repete segue além do fim do texto") in flat["README.pt-BR.md"]
    assert "reads on into what it has copied, so a repeating loop is carried on" in flat["docs/benchmarks.md"]
    sentence = ("Where fewer tokens follow that place than the branch holds, the copy reads on into what it has copied "
                "so far, so a repeating loop is carried on past the text's end.")
    frase = ("Onde menos tokens vêm depois desse lugar do que o ramo comporta, a cópia continua lendo o que ela mesma "
             "já copiou, e assim um laço que se repete segue além do fim do texto.")
    for message in (TREE_TEXT["copied"], PROPOSERS_TEXT["lookup"]):
        assert sentence in _(message)
        with using("pt"):
            assert frase in _(message)
    definition = DEFINITIONS["tree_lookup"][1]
    assert "reading on into the copy itself where the text ends first" in _(definition)
    with using("pt"):
        assert "continuando a ler a própria cópia onde o texto acaba antes" in _(definition)
    from specviz.scripts.i18n import PO, read_catalog

    help_ = [m for m in read_catalog(PO) if isinstance(m.id, str)
             and m.id.startswith("The tree also gets one branch copied from the text so far")]
    assert len(help_) == 1 and [where for where, _line in help_[0].locations] == ["specviz/ui/playground/live.py"]
    assert sentence in help_[0].id and frase in help_[0].string
