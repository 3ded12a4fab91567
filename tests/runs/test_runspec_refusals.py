"""RunSpec's refusals of values passed to the library, not typed in a form or a link."""

import pytest

from specviz.core.i18n import using
from specviz.runs.runspec import RunSpec


@pytest.mark.parametrize("lang, said", [("en", "K must be a whole number from 1 to 16 (got 1e+5000)."),
                                        ("pt", "K deve ser um número inteiro de 1 a 16 (recebido: 1e+5000).")])
def test_a_whole_number_too_long_to_write_is_refused_in_a_sentence(lang, said):
    """Read 50: RunSpec(k=10**5000) (or a seed, or layers=10**5000) was refused with Python's own "Exceeds the limit
    (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() ...", in English in both languages:
    the sentence that quotes the value could not write it."""
    with using(lang), pytest.raises(ValueError) as refused:
        RunSpec(k=10**5000)
    assert str(refused.value) == said
    with using(lang), pytest.raises(ValueError, match="layers") as refused:
        RunSpec(proposer_settings={"layers": 10**5000})
    assert "1e+5000" in str(refused.value)


def test_an_unknown_proposer_setting_is_quoted_with_its_control_characters_escaped():
    """Read 50: the name was quoted raw, so "\\x1b[2J" cleared the terminal of whoever printed the refusal."""
    with pytest.raises(ValueError) as refused:
        RunSpec(proposer_settings={"x\x1b[2J\u202e": 3})
    assert "'x\\x1b[2J\\u202e'" in str(refused.value) and "\x1b" not in str(refused.value)


@pytest.mark.parametrize("lang, said", [("en", "prompt must be text of 1 to 4,000 characters (got 3)."),
                                        ("pt", "prompt deve ser um texto de 1 a 4.000 caracteres (recebido: 3).")])
def test_a_prompt_that_is_not_text_is_not_called_empty(lang, said):
    """Read 52: RunSpec(prompt=3) was refused "The prompt is empty: type something for the model to continue.";
    3 is not empty, it is not text. An empty or blank prompt keeps its own sentence."""
    with using(lang), pytest.raises(ValueError) as refused:
        RunSpec(prompt=3)
    assert str(refused.value) == said
    with pytest.raises(ValueError, match="The prompt is empty"):
        RunSpec(prompt="  ")
