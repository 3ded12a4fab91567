"""Portuguese grammar findings of the 48th read (the catalog's msgstr and the pt quiz twins); each test says what the
read found."""

from __future__ import annotations

import pytest

from specviz.core.i18n import using


def test_the_tokens_per_step_refusal_agrees_with_its_plural_subject():
    """Read 48: "Tokens por passo precisa ser uma lista..." put a singular verb after the plural "tokens"."""
    from specviz.engine.theory import tokens_per_step_frequencies

    with using("pt"), pytest.raises(ValueError) as refused:
        tokens_per_step_frequencies([], 2)
    assert str(refused.value) == "Os tokens por passo devem ser uma lista não vazia de contagens de 1 ou mais."


@pytest.mark.slow  # about 0.4 s: it reads the example traces
def test_the_ngram_example_looks_back_in_the_text_not_earlier_in_time():
    """Read 48: "procurando o que veio depois dos últimos tokens mais cedo no texto" calqued "earlier in the text":
    "mais cedo" reads as earlier in time, and the phrase hung on the tokens; the Portuguese now says where it looks."""
    from specviz.labs.examples import get_example

    with using("pt"):
        said = get_example("smollm-ngram-t07").shown_description
    assert ("O proponente de n-gramas rascunha procurando os últimos tokens num trecho anterior do texto e propondo o "
            "que veio depois deles: nenhum modelo de rascunho.") in said
    assert "mais cedo" not in said


@pytest.mark.slow  # the toy pair through the engine: over 0.35 s
@pytest.mark.parametrize(("length", "said"), [(1, "Continuações de 1 token ("), (2, "Continuações de 2 tokens (")])
def test_the_engine_labs_note_counts_a_one_token_continuation_in_the_singular(length, said):
    """Read 48: "Continuações de {length} tokens" read "de 1 tokens" for the 1-token continuations the library's
    engine_lab takes (the page offers 2 and 3); the note now comes from ngettext."""
    from specviz.labs.exactness.lab import engine_lab
    from specviz.models.pairs import load_pair
    from specviz.runs.runspec import RunSpec

    pair = load_pair("toy")
    spec = RunSpec(pair="toy", prompt="hello world", chat=False, k=2, temperature=1.0)
    with using("pt"):
        note = engine_lab(pair, spec, "exact", n=2, length=length).note
    assert note.startswith(said), note
    assert "de 1 tokens" not in note
