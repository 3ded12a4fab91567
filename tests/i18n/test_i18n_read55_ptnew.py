"""Portuguese findings of the 55th read in the messages the 54th session added or changed (the catalog's msgstr
against its English msgid); each test says what the read found."""

from __future__ import annotations

from specviz.core.i18n import _, using


def test_the_theory_stars_k_range_sentences_say_the_formula_does_not_describe_the_trace():
    """Read 55: "the formula's K drafts every step does not describe it" (it: the session's trace) read "a fórmula
    … não a descreve" in Portuguese, a feminine "a" where the trace is "o traço"; on the page it follows "… não a
    sua velocidade medida" (and starts "Sua política"), so it read as the formula not describing the speed or the
    policy."""
    from specviz.ui.theory.view import TEXT

    with using("pt"):
        said = [_(TEXT[key], low="0", high="5", k="4")
                for key in ("heatmap_trace_k_range", "heatmap_trace_k_kept", "heatmap_trace_k_drafted")]
    for text in said:
        assert text.endswith("a fórmula, com K palpites em todo passo, não descreve este traço."), text
        assert "não a descreve" not in text, text
    assert said[2] == ("Seus passos rascunharam de 0 a 5 tokens; a fórmula, com K palpites em todo passo, não "
                       "descreve este traço.")


def test_the_theory_tables_marks_sit_in_their_own_ks_row_in_portuguese():
    """Read 55: "the chart's marks in their K's row" (each mark in the row of its own K: a benchmark run at K = 3 in
    row 3) read "na linha do seu K" in Portuguese, where "seu" reads "your": the row of the reader's K setting, followed
    at once by "a sua escolha"."""
    from specviz.ui.theory import view

    with using("pt"):
        note = view.heatmap_table_note()
    assert "as marcas do gráfico, cada uma na linha do K em que está: a sua escolha (o α dela" in note, note
    assert "na linha do seu K" not in note, note


def test_the_serving_sweeps_other_answers_note_compares_with_diferentes_das_in_portuguese():
    """Read 55: "had other token counts than its answers without it" read "tiveram outras contagens de tokens que as
    suas respostas sem ela pelo menos …", a calque of "other … than" ("outras … que" compares nothing in Portuguese),
    run on into the list of levels with no comma."""
    from specviz.serving.load import LevelResult, RequestRecord
    from specviz.serving.results import ServingResult
    from specviz.ui.serving.sweep import other_answers_note

    def level(spec: str, tokens: int) -> LevelResult:
        return LevelResult("open", 1, spec, 1.0, [RequestRecord(1.0, tokens)])

    result = ServingResult(command="", machine={}, server={}, prompts={},
                           levels=[level("none", 128), level("eagle", 124)])
    with using("pt"):
        note = other_answers_note(result)
    assert note == ("Com temperatura 0, as respostas do vLLM com especulação tiveram contagens de tokens diferentes "
                    "das respostas sem ela, pelo menos para eagle no prompt aberto com 1 fluxo, então essas "
                    "acelerações comparam a vazão de respostas diferentes."), note
