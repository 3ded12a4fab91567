"""Portuguese grammar findings of the 48th read (the catalog's msgstr and the pt quiz twins); each test says what the
read found."""

from __future__ import annotations

import pytest

from specviz.core.i18n import using


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
