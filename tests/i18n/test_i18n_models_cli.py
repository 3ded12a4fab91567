"""The Models page, the page map, the library's model sentences and the CLI in Portuguese (issue 15): the catalog,
the memory check (a pair that fits with its speed, one that does not), the pair-by-hand form (off, a bad id, a
toy pair loaded from folders) with no English sentence on the page; the navigation's sections and titles through
app.py; the loader's and the machine's sentences under `using("pt")`; `--lang pt` and LANG=pt_BR for the CLI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import streamlit
import yaml
from i18n_check import english_sentences, unformatted_numbers
from streamlit.testing.v1 import AppTest
from tiny_folders import save_toy_pair

from specviz import cli
from specviz.core.i18n import _, using
from specviz.core.paths import CATALOG_PATH
from specviz.models.catalog import SHIPPED_TEXTS, load_catalog
from specviz.models.loading import Machine, ModelLoadError, estimate_memory, parse_ref, pick_device, plan_placement
from specviz.models.machine import speed_from_bandwidth
from specviz.teach.pagemap import PAGES
from specviz.ui.models import view as models_view
from specviz.ui.models.access import ENABLE_ENV, ROOT_ENV, WebModelPolicy

ROOT = Path(__file__).resolve().parents[2]
LAPTOP = Machine(ram_available_bytes=16 * 10**9)  # no GPU, 16 GB free, whatever runs the tests


@pytest.fixture
def models(monkeypatch, tmp_path_factory):
    """The Models page opened in Portuguese, as an operator who allows pairs by hand from the tests' folders runs
    it; the test speaks Portuguese too (AppTest calls format_func in the test's thread)."""
    monkeypatch.setattr(models_view, "current_machine", lambda: LAPTOP)
    monkeypatch.setattr(models_view, "measure_bandwidth", lambda device: 10e9)
    monkeypatch.setenv(ENABLE_ENV, "1")
    monkeypatch.setenv(ROOT_ENV, str(tmp_path_factory.getbasetemp()))
    monkeypatch.chdir(ROOT)
    models_view._bandwidth.clear()

    def open_page() -> AppTest:
        at = AppTest.from_file(str(ROOT / "pages" / "models.py"), default_timeout=60)
        at.query_params["lang"] = "pt"
        at.run()
        _portuguese(at)
        return at

    with using("pt"):
        yield open_page
    models_view._bandwidth.clear()


def _portuguese(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert english_sentences(at) == []
    assert unformatted_numbers(at) == []  # numbers drawn with a decimal point


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_catalog_and_the_memory_check_in_portuguese(models):
    at = models()
    ids, sizes, where, licence = (t.value for t in at.table)
    assert ids.index.name == "nome" and "alvo" in ids.columns and "licença" in licence.columns
    assert licence.loc["llama3.2-1b-3.1-8b", "acesso restrito"] == "sim"
    assert where.loc["default", "hardware"].startswith("qualquer CPU de notebook")
    assert licence.loc["toy", "licença"] == "parte do specviz" and licence.loc["default", "licença"] == "Apache-2.0"
    assert sizes.loc["smollm2-135m-1.7b", "bfloat16 GB"] == "3,69"  # the decimal comma
    assert "16 GB de RAM disponíveis, nenhuma GPU" in " ".join(c.value for c in at.caption)
    assert "Os tamanhos da linha default contam só o alvo" in " ".join(c.value for c in at.caption)  # Read 46
    assert "precisam de cerca de" in at.warning[0].value  # the 7B pair in float32 does not fit in 16 GB
    at.selectbox(key="models_check_pair").set_value("smollm2-135m-1.7b").run()
    _portuguese(at)
    assert "cabe (ambos em cpu)" in at.success[0].value.replace("\\", "")
    at.selectbox(key="models_check_pair").set_value("default").run()  # one model, not "ambos" (Read 46)
    assert "cabe (em cpu)" in at.success[0].value.replace("\\", "")
    at.selectbox(key="models_check_pair").set_value("smollm2-135m-1.7b").run()
    assert at.info[0].value.replace("\\", "").startswith("Velocidade aqui: a decodificação comum levaria cerca de")
    at.selectbox(key="models_check_device").set_value("cuda").run()  # no GPU here: one sentence
    _portuguese(at)
    assert len(at.warning) == 1 and at.warning[0].value.startswith("Esta máquina não tem GPU CUDA: escolha cpu ou auto")
    titles = [e.label for e in at.expander]
    assert titles and all("MiB" in t for t in titles) and any("Rascunhador EAGLE" in t for t in titles)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_bad_model_id_by_hand_is_one_portuguese_sentence(models):
    at = models()
    at.text_input(key="models_target").set_value("not a model id!")
    at.button[0].click().run()
    _portuguese(at)
    assert [e.value.replace("\\", "") for e in at.error] == [
        "'not a model id!' não é um id do Hugging Face Hub (Org/Model-Name) que possa ser carregado aqui."]
    at.text_input(key="models_target").set_value("")
    at.button[0].click().run()
    _portuguese(at)
    assert [e.value.replace("\\", "") for e in at.error] == [
        "Informe o alvo: um id do Hugging Face Hub como Org/Model-Name, ou ./PASTA para uma pasta dentro da pasta de "
        "modelos permitida."]  # read 48: a models folder is allowed here, so the sentence offers one, as the label does
    labels = [t.label for t in at.text_input if t.key in ("models_target", "models_draft")]  # read 44: ./PASTA
    assert len(labels) == 2 and all("./PASTA para uma pasta dentro da pasta de modelos permitida" in x for x in labels)


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_a_toy_pair_by_hand_loads_in_portuguese(models, tmp_path_factory):
    target, draft = save_toy_pair(tmp_path_factory.mktemp("g6_pair"))
    at = models()
    at.text_input(key="models_target").set_value(str(target))
    at.text_input(key="models_draft").set_value(str(draft))
    at.button[0].click().run()
    _portuguese(at)
    assert not at.error and "um modelo de rascunho separado" in at.success[-1].value
    steps = at.status[0].markdown[0].value.replace("\\", "")
    assert steps.startswith("Lendo a configuração e o tokenizador de target...")


@pytest.mark.slow  # over 0.4 s on 2 cores (read 51's --durations): make check stays under a minute
def test_loading_by_hand_turned_off_reads_portuguese(models, monkeypatch):
    monkeypatch.delenv(ENABLE_ENV)
    at = models()
    assert "Carregar modelos à mão está desligado" in at.info[0].value


def test_the_navigation_names_sections_and_pages_in_portuguese(monkeypatch):
    """app.py gives st.navigation the page map through _(): every section and title in Portuguese."""
    seen: dict = {}
    real = streamlit.navigation

    def recording(pages, *args, **kwargs):
        seen.update({section: [p.title for p in items] for section, items in pages.items()})
        return real(pages, *args, **kwargs)

    monkeypatch.setattr(streamlit, "navigation", recording)
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["lang"] = "pt"
    with using("pt"):
        at.run()
        assert not at.exception
        expected = {_(section): [_(title) for _path, title, _icon in pages] for section, pages in PAGES.items()}
    assert seen == expected
    assert list(seen) == ["Aprender", "Entender", "Praticar", "Engenharia"]
    assert seen["Aprender"][:2] == ["Visão geral", "Trilha guiada"]
    assert "Explorador de teoria" in seen["Entender"] and "Proponentes" in seen["Entender"]
    assert seen["Engenharia"][0] == "Modelos"
    titles = [title for _path, title, _icon in sum(PAGES.values(), [])]
    with using("pt"):
        assert all(_(t) != t for t in titles if t not in ("Playground", "Quiz"))  # kept names, per the glossary


def test_the_model_sentences_of_the_library_in_portuguese():
    with using("pt"):
        with pytest.raises(ValueError, match="^Pastas locais não podem ser carregadas pelo navegador"):
            WebModelPolicy(True).check("/etc")
        with pytest.raises(ModelLoadError, match="^A pasta '/no/such/folder' não existe"):
            parse_ref("/no/such/folder")
        with pytest.raises(ModelLoadError, match="^Dispositivo desconhecido 'tpu'"):
            pick_device("tpu", LAPTOP)
        estimate = estimate_memory(["a", "b"], [1_700_000_000, 135_000_000], "float32")
        assert estimate.sentence() == "a + b precisam de cerca de 7,3 GB em float32"
        with pytest.raises(ModelLoadError) as refused:
            plan_placement(estimate_memory(["big"], [8_000_000_000], "float32"), LAPTOP, pick_device("cpu", LAPTOP))
        assert str(refused.value) == "big precisa de cerca de 32 GB em float32; esta máquina tem 16 GB de RAM " \
                                     "disponíveis e nenhuma GPU."
        assert speed_from_bandwidth(16 * 10**9, 8 * 10**9).sentence().startswith(
            "Velocidade aqui: a decodificação comum levaria cerca de 2,0 s ou mais por token (0,5 tokens/s)")
        assert models_view.machine_summary(LAPTOP) == "Esta máquina: 16 GB de RAM disponíveis, nenhuma GPU."
    assert estimate.sentence() == "a + b need about 7.3 GB in float32"  # and English outside


def test_the_catalogs_hardware_notes_and_licence_phrases_are_all_marked_for_translation():
    data = yaml.safe_load(CATALOG_PATH.read_text(encoding="utf-8"))
    licences = {m["licence"] for p in data["pairs"] for m in (p["target"], p["draft"]) if m}
    phrases = {text for text in licences if " " in text and "Community License" not in text}  # not a name
    assert {p["hardware"] for p in data["pairs"]} | phrases == set(SHIPPED_TEXTS)
    with using("pt"):
        assert all(_(text) != text for text in SHIPPED_TEXTS)
    assert load_catalog()["toy"].hardware in SHIPPED_TEXTS


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_cli_speaks_portuguese_with_lang_or_LANG(capsys, monkeypatch):
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    flags = ["generate", "--pair", "toy", "--prompt", "abc", "--max-new-tokens", "6", "--k", "2"]
    assert cli.main(flags + ["--lang", "pt"]) == 0
    out = capsys.readouterr().out
    assert "resumo: " in out and "taxa de aceitação" in out and "passo   1  contexto" in out
    assert "summary:" not in out and "acceptance rate" not in out
    monkeypatch.setenv("LANG", "pt_BR.UTF-8")
    assert cli.main(flags + ["--quiet"]) == 0
    out = capsys.readouterr().out
    assert "resumo: " in out and "velocidade" in out
    assert cli.main(flags + ["--quiet", "--lang", "en"]) == 0  # the flag wins over LANG
    assert "summary: " in capsys.readouterr().out
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert cli.main(flags + ["--quiet"]) == 0  # anything else is English
    assert "summary: " in capsys.readouterr().out



@pytest.mark.parametrize("lang, form", [("en", "NFC"), ("pt", "NFC"), ("pt", "NFD")])
def test_the_cli_summarys_values_start_in_one_column_in_each_language(lang, form, monkeypatch):
    """The summary's values line up under each other in the terminal in English and Portuguese, also when the
    accents arrive decomposed (a letter plus a combining mark: two code points, one column); and the mean accepted
    length says the recovered or bonus token is counted, as the glossary defines it."""
    import unicodedata

    from specviz.core.text import width
    from specviz.engine.kinds import StopReason
    from specviz.engine.trace import Decision, EmittedToken, Step, Trace

    translate = cli._
    monkeypatch.setattr(cli, "_", lambda *a, **kw: unicodedata.normalize(form, translate(*a, **kw)))
    decisions = [Decision(0, 5, "a", 0.9, 0.9, 1.0, 1.0, 0.5, True, True)]
    step = Step(0, 3, 1, "draft", decisions, [EmittedToken(5, "a", "accepted"), EmittedToken(6, "b", "bonus")])
    trace = Trace("speculative", {}, [1, 2], [5, 6], [step], stop_reason=StopReason.MAX_NEW_TOKENS)
    with using(lang):
        lines = cli.format_summary(trace).splitlines()[1:6]
    starts = {width(m.group(1)) for m in (re.match(r"^(  \S.*?\S {2,})\S", line) for line in lines)}
    assert len(starts) == 1, lines
    length = unicodedata.normalize("NFC", lines[2])
    assert ("the recovered or bonus token included" if lang == "en" else "incluído o token recuperado ou bônus") in length

@pytest.mark.parametrize("lang", ["en", "pt"])
def test_every_stop_reason_has_a_cli_text_in_each_language(lang):
    """The summary's first line names why the run stopped with the CLI's own text for every StopReason (a run cut
    by its deadline said the raw value "deadline", untranslated), and in Portuguese each text is translated."""
    from specviz.engine.kinds import StopReason
    from specviz.engine.trace import Trace

    assert set(cli.STOP_REASONS) == set(StopReason)
    for reason in StopReason:
        trace = Trace("speculative", {}, [1, 2], [5], [], stop_reason=reason)
        with using(lang):
            text = _(cli.STOP_REASONS[reason])
            first = cli.format_summary(trace).splitlines()[0]
        assert first.endswith(text), (reason, first)
        if lang == "pt":
            assert text != reason.value, reason


def test_a_bad_lang_is_one_sentence(capsys, monkeypatch):
    monkeypatch.setenv("LANG", "pt_BR.UTF-8")
    assert cli.main(["generate", "--pair", "toy", "--prompt", "abc", "--lang", "fr"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "specviz: Idioma desconhecido 'fr': use en ou pt.\n"
    with using("pt"):
        assert cli.main(["generate", "--pair", "nope,nope,nope", "--prompt", "abc", "--lang", "pt"]) == 2
    assert capsys.readouterr().err.startswith("specviz: Par desconhecido 'nope,nope,nope'")


PT_TOUR = ROOT / "docs" / "app.pt-BR.md"  # the page tour, moved out of README.pt-BR.md when it became a front door


def test_the_portuguese_readme_has_the_commands_the_tour_and_links_both_ways():
    pt = (ROOT / "README.pt-BR.md").read_text(encoding="utf-8")
    tour = PT_TOUR.read_text(encoding="utf-8")
    assert "make run" in pt and "make test" in pt and "(README.md)" in pt and "(docs/app.pt-BR.md" in pt
    assert "[README.pt-BR.md](README.pt-BR.md)" in (ROOT / "README.md").read_text(encoding="utf-8")[:300]
    images = re.findall(r"\]\(\.\./(assets/screenshots/[^)]+)\)", tour)
    assert len(images) >= 3 and all((ROOT / image).is_file() for image in images)
    with using("pt"):  # the table and the tour name each page as the app's navigation does
        titles = [_(title) for _path, title, _icon in sum(PAGES.values(), [])]
    assert all(f"\n| {title} |" in pt for title in titles), [t for t in titles if f"\n| {t} |" not in pt]
    assert all(f"\n## {title}\n" in tour for title in titles), [t for t in titles if f"\n## {t}\n" not in tour]


def test_the_portuguese_readme_shows_portuguese_screenshots_where_they_exist():
    """Issue 26: README.pt-BR.md showed English screenshots although Portuguese ones exist; an English one left (no
    Portuguese shot yet) says so in its alt text."""
    pt = (ROOT / "README.pt-BR.md").read_text(encoding="utf-8") + PT_TOUR.read_text(encoding="utf-8")
    shots = re.findall(r"!\[([^\]]*)\]\((?:\.\./)?(assets/screenshots/([^)]+))\)", pt)
    assert len(shots) >= 4  # the README's one picture and the tour's
    for alt, path, name in shots:
        translated = ROOT / "assets" / "screenshots" / f"pt-{name}"
        assert name.startswith("pt-") or (not translated.exists() and "captura em inglês" in alt), (name, alt)
