"""Portuguese findings of the 50th read in the texts this session added or changed (each msgstr against its English
msgid as it is now); each test says what the read found."""

from __future__ import annotations

from pathlib import Path

from specviz.core.i18n import _, using

ROOT = Path(__file__).resolve().parents[2]


def test_the_race_timeline_paragraph_says_its_time_divides_the_tokens_not_the_tokens_per_second():
    """Read 50: "so each lane ends at the time its tokens/s above divides by" read "no tempo pelo qual seus tokens/s
    acima são divididos": tokens/s divided by that time, where that time is what the tokens were divided by to give
    tokens/s. And "(o rascunho da busca de n-gramas ou das cabeças de previsão (Medusa), o resto de um passo)" closed a
    parenthesis inside another, so "(Medusa), o resto de um passo)" read as a parenthesis of its own."""
    msgid = ("**Where the time went.** Each speculative step is an orange, striped drafting segment followed by one "
             "solid blue target forward that checks all the drafts; the number on it, where the segment is wide enough "
             "to hold it, is how many tokens the step emitted. A segment far shorter than the run (n-gram lookup's or "
             "Medusa's drafting, the rest of a step) is too thin to see. The bottom lane is plain decoding: one solid "
             "blue forward per token. A hatched grey segment at a lane's end is the run's time that no step's timer "
             "counted (the loop between steps), so each lane ends at the time its tokens/s divides by, on the "
             "clock that timed it. Hover or tap a segment for its numbers; \"The numbers in this chart\" lists every "
             "step's.")
    source = " ".join((ROOT / "specviz" / "ui" / "race" / "view.py").read_text(encoding="utf-8").split())
    assert "the time \" \"its tokens/s divides by" in source  # the page's paragraph, as the test quotes it
    with using("pt"):
        said = _(msgid)
    assert said != msgid
    assert "são divididos" not in said, said
    assert "assim cada raia termina no tempo que os seus tokens/s usam como divisor" in said, said
    assert "(o rascunho da busca de n-gramas ou das cabeças de previsão do Medusa, o resto de um passo)" in said, said


def test_the_serving_note_on_differing_answers_says_a_verify_forward_rounds_differently_in_portuguese():
    """Read 50: "a verify forward over K + 1 tokens rounds otherwise than one-token forwards" read "arredonda de outro
    modo que passagens de um token", a calque; the catalog's other note on the same rounding says "arredonda de um
    jeito diferente do de uma passagem de um token"."""
    from specviz.serving.results import ServingResult
    from specviz.ui.serving.sweep import differed_note

    rows = [{"prompt": "copy", "speedup": 2.33, "same_tokens_as_target_only": False},
            {"prompt": "open", "speedup": 1.07, "same_tokens_as_target_only": False}]
    for shown in (rows[:1], rows):
        result = ServingResult(command="", machine={}, server={}, prompts={}, specviz=shown)
        with using("pt"):
            said = differed_note(result)
        assert "de outro modo que" not in said, said
        assert ("uma passagem de verificação sobre K + 1 tokens arredonda de um jeito diferente do das passagens de um "
                "token") in said, said
