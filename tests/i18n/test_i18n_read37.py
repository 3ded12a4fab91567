"""What a Brazilian student reads on the pages, checked against the English (issue 43, the 37th full read).

The read rendered every page in Portuguese next to the English, in its first state and after its main interaction,
and found: the Playground's last line joining "em" and an article ("Parou em o token de fim de texto"); the step
overview's table heading its drafted tokens "rascunho" (the glossary's word for the draft model; a drafted token
is a "token rascunhado" or a "palpite"); and two Portuguese words for the tokens one forward is fed ("fornecidos"
in the Speedup lab's tables, "alimentados" on its cost chart).
"""

from __future__ import annotations

import re

import pytest

from specviz.core.i18n import _, using
from specviz.engine.trace_schema import StopReason
from specviz.labs.examples import load_example
from specviz.scripts import i18n as i18n_script
from specviz.ui.common import step_figures
from specviz.ui.playground.player import STOPS, TEXT

# a preposition followed by a bare definite article: Portuguese contracts them (no, na, do, da, ao, pelo ...)
UNCONTRACTED = re.compile(r"\b(?:em|de|a|por) (?:o|a|os|as)\b")


@pytest.mark.parametrize("reason", list(StopReason))
def test_the_playgrounds_done_line_ends_in_one_portuguese_sentence_per_stop(reason):
    """The "Done" line put a translated noun phrase ("o token de fim de texto") into "Parou em {stop}.", so every
    finished run read "Parou em o token ..."; each stop is now a whole sentence, in both languages."""
    with using("en"):
        english = _(TEXT["done"], tokens="44 tokens", passes="12 passes", n="44", stop=_(STOPS[reason]))
    with using("pt"):
        portuguese = _(TEXT["done"], tokens="44 tokens", passes="12 passagens", n="44", stop=_(STOPS[reason]))
    assert "It stopped at the " in english and english.endswith(".")
    assert "Parou no " in portuguese and portuguese.endswith(".")
    assert UNCONTRACTED.findall(portuguese) == []


def test_the_step_overview_table_calls_its_rows_drafted_tokens():
    """The table under "Every draft: kept if u lands inside its bar" lists a step's drafted tokens (#1 The, #2 water);
    its heading read "rascunho", the draft model's name, beside "Olhe de perto o palpite" for the same tokens."""
    step = next(s for s in load_example("smollm-ngram-t07")[0].steps if len(s.decisions) > 1)
    with using("en"):
        assert step_figures.verdict_overview_table(step).columns[0] == "drafted token"
    with using("pt"):
        table = step_figures.verdict_overview_table(step)
    assert table.columns[0] == "token rascunhado"
    assert table[table.columns[0]].tolist()[0].startswith("#1 ")


def test_the_tokens_a_forward_is_fed_have_one_portuguese_name():
    """"tokens fed" is "tokens fornecidos" everywhere: the cost chart's axis and table said "tokens alimentados" (and
    its caption "Verificar K palpites alimenta K + 1 tokens") while the Speedup lab's tables said "fornecidos"."""
    catalog = [(m.id, m.string) for m in i18n_script.read_catalog() if isinstance(m.id, str) and m.id]
    fed = [(en, pt) for en, pt in catalog if re.search(r"\btokens fed\b|\bfeeds?\b", en)]
    assert len(fed) >= 4  # the axis, the table column, the chart caption, the physical limit's definitions
    assert [en for en, pt in fed if "aliment" in pt] == []
    assert [en for en, pt in fed if "tokens fed" in en and "tokens fornecidos" not in pt] == []


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_a_result_without_a_recorded_dtype_names_the_float32_it_ran_in_both_languages(monkeypatch):
    """The Speedup lab's caption under the headline said only "This result file records no dtype." for the first runs
    (default-cpu-ngram, -layerskip, -drafts), while the same page's command note ("add `--dtype float32` ... as this
    run did") and Verify cost tab ("In this run (float32, ...") name float32: the headline figures now carry it."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    for lang, source, said in [("en", "default-cpu-ngram (committed)", ("Measured in float32", "records no dtype")),
                               ("pt", "default-cpu-ngram (committed)", ("Medido em float32", "não registra o dtype"))]:
        with using(lang):
            at = AppTest.from_file(str(root / "pages" / "speedup_lab.py"), default_timeout=120)
            at.query_params["lang"] = lang
            at.run()
            at.selectbox(key="speedup_lab_source").set_value(source).run()
            assert not at.exception, at.exception
            captions = [c.value for c in at.caption]
        assert any(c.startswith(said[0]) and said[1] in c for c in captions), captions


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_the_theory_explorers_device_count_reads_for_every_hardware_preset(monkeypatch):
    """The memory caption wrote "one {hw} has ...", so the laptop preset (named "a laptop CPU") read "one a laptop
    CPU has 16 GB, so this takes 21 of them" and in Portuguese "um uma CPU de notebook tem 16 GB, então isto ocupa 21
    deles"; a GPU preset read "um NVIDIA L4" beside the glossary's "uma GPU". The preset's name now stands alone."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from specviz.labs import roofline

    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    presets = [key for key, hw in roofline.hardware_presets().items() if hw.memory == hw.memory]  # a finite memory
    assert "laptop" in presets and len(presets) >= 4
    said = {}
    for lang in ("en", "pt"):
        with using(lang):
            at = AppTest.from_file(str(root / "pages" / "theory.py"), default_timeout=120)
            at.query_params["lang"] = lang
            at.run()
            for key in presets:
                at.selectbox(key="theory_hw").set_value(key).run()
                assert not at.exception, at.exception
                said[lang, key] = next(c.value for c in at.caption if c.value.startswith(("Target, draft", "Alvo,")))
    laptop = roofline.hardware_presets()["laptop"]
    with using("pt"):
        laptop_pt = _(laptop.name)
    assert f"; {laptop.name} has 16 GiB, so this takes " in said["en", "laptop"]
    assert f"; {laptop_pt} tem 16 GiB, então isto ocupa " in said["pt", "laptop"]
    assert [t for t in said.values() if re.search(r"\bone an? |\bum uma\b|\bum NVIDIA\b|\bdeles\b", t)] == []


def test_the_students_own_guess_is_a_previsao_not_a_palpite():
    """The predict box ("Predict: how many of these 4 will the target accept?" -> "Preveja: ...") held the placeholder
    "o seu palpite, depois Próximo passo", so the student's guess took the glossary's word for a drafted token
    ("palpite") on the very line that counts drafted tokens; the quiz's tally already calls it a "previsão"."""
    with using("pt"):
        placeholder = _("your guess, then {button}", button=_("Next step"))
        tally = _("No predictions yet.")
    assert placeholder.startswith("a sua previsão, depois ") and "palpite" not in placeholder
    assert "previsão" in tally
