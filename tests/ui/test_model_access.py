"""What a browser visitor may load by hand: nothing by default; Hub ids, and folders inside one root, when allowed."""

from __future__ import annotations

import doctest
import re

import pytest

from specviz.core.i18n import using
from specviz.ui.models import access as model_access
from specviz.ui.models.access import ENABLE_ENV, ROOT_ENV, WebModelPolicy


def test_off_unless_the_operator_turns_it_on():
    assert not WebModelPolicy.from_env({}).enabled
    assert not WebModelPolicy.from_env({ENABLE_ENV: "0"}).enabled
    with pytest.raises(ValueError, match=f"turned off on this server.*{ENABLE_ENV}=1"):
        WebModelPolicy.from_env({}).check("HuggingFaceTB/SmolLM2-135M-Instruct")


@pytest.mark.parametrize("ref", ["gpt2", "Qwen/Qwen2.5-0.5B-Instruct", "meta-llama/Llama-3.2-1B"])
def test_hub_ids_pass_when_enabled(ref):
    assert WebModelPolicy(True).check(ref) == ref


@pytest.mark.parametrize("ref", ["", "   ", "a" * 400, "org/na\tme", "org/../../etc", "a/b/c", "C:\\models\\x",
                                 "org/name;rm -rf", "-rf/x"])
def test_what_is_neither_a_hub_id_nor_a_local_folder_is_refused(ref):
    with pytest.raises(ValueError) as err:
        WebModelPolicy(True).check(ref)
    assert str(err.value).endswith(".") and "\n" not in str(err.value)


def test_local_folders_need_a_root_and_must_be_inside_it(tmp_path):
    root = tmp_path / "models"
    (root / "m").mkdir(parents=True)
    (root / "m" / "config.json").write_text("{}")
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "config.json").write_text("{}")
    (root / "escape").symlink_to(tmp_path / "secret")
    with pytest.raises(ValueError, match="Local folders cannot be loaded"):
        WebModelPolicy(True).check(str(root / "m"))
    policy = WebModelPolicy.from_env({ENABLE_ENV: "1", ROOT_ENV: str(root)})
    assert policy.check(str(root / "m")) == str((root / "m").resolve())
    assert policy.check("./m") == str((root / "m").resolve())
    (root / "linked").mkdir()  # a folder inside the root whose weights are a symlink to a file outside it
    (root / "linked" / "config.json").write_text("{}")
    (root / "linked" / "model.safetensors").symlink_to(tmp_path / "secret" / "config.json")
    refusals = set()
    for ref in (str(tmp_path / "secret"), str(root / "escape"), "../secret", str(root / "missing"), "/etc",
                "./linked", str(root / "linked")):
        with pytest.raises(ValueError) as err:
            policy.check(ref)
        refusals.add(re.sub(r"^'[^']*'", "'REF'", str(err.value)))  # the visitor's own words, maybe shortened
    assert len(refusals) == 1  # the same sentence whether the path exists or not: nothing about the server leaks


def _pattern(sentence: str) -> str:
    """A refusal with the visitor's own words (quoted first, maybe shortened) taken out."""
    return re.sub(r"^'[^']*'", "'REF'", sentence)


def test_a_symlink_loop_or_a_name_too_long_is_the_one_sentence(tmp_path):
    """Issue 28: a symlink loop in a model folder raised RuntimeError and a ~290-character name OSError (file name
    too long), past `except ValueError` into an exception box."""
    root = tmp_path / "models"
    (root / "looped").mkdir(parents=True)
    (root / "looped" / "config.json").write_text("{}")
    (root / "looped" / "a").symlink_to("b")  # a loop inside a model folder
    (root / "looped" / "b").symlink_to("a")
    (root / "self").symlink_to("self")  # a loop as the folder itself
    policy = WebModelPolicy.from_env({ENABLE_ENV: "1", ROOT_ENV: str(root)})
    refusals = set()
    for ref in ("./looped", str(root / "looped"), "./self", "./self/m", str(root / "self"), "./" + "a" * 290,
                "./looped/" + "b" * 260, "./missing"):
        with pytest.raises(ValueError) as err:
            policy.check(ref)
        refusals.add(_pattern(str(err.value)))
    assert refusals == {_pattern(model_access.not_loadable("x"))}


def test_a_hub_id_is_only_ever_a_hub_id(tmp_path, monkeypatch):
    """A Hub-style id that is also a folder in the app's working folder ("tests", "org/name") is neither read nor
    refused differently from one that is not: the web loads it from the Hub only, so both get the same sentence."""
    from specviz.models.loading import parse_ref
    from specviz.models.pairs import load_pair

    monkeypatch.chdir(tmp_path)
    (tmp_path / "org" / "name").mkdir(parents=True)
    (tmp_path / "org" / "name" / "config.json").write_text("{}")
    (tmp_path / "tests").mkdir()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # an empty cache
    policy = WebModelPolicy(True)
    said = {}
    for ref in ("org/name", "org/other", "tests", "nothere"):
        assert policy.check(ref) == ref
        assert not parse_ref(ref, relative_folders=False).is_local
        with pytest.raises(ValueError) as err:
            load_pair(ref, relative_folders=False)
        said[ref] = str(err.value).replace(ref, "REF")
    # read 51: a bare name (no owner/) is refused as a mistyped catalog name before the Hub; the same for a folder
    # of that name here as for none, and for a name that is no folder anywhere
    bare = {ref: said.pop(ref) for ref in ("tests", "nothere")}
    assert len(set(said.values())) == 1 and "is not in the local Hugging Face cache" in said["org/name"], said
    (tmp_path / "tests").rmdir()
    with pytest.raises(ValueError) as err:
        load_pair("tests", relative_folders=False)
    assert str(err.value).replace("tests", "REF") == bare["tests"] and "closest first: " in bare["nothere"]
    assert parse_ref("org/name").is_local  # the command line still reads a folder where it is run


def test_the_modules_examples_hold():
    result = doctest.testmod(model_access)
    assert result.attempted and not result.failed


@pytest.mark.slow  # over 0.7 s in make check (00:40 UTC: 3,026 tests in 61-66 s)
def test_the_page_shows_no_server_path_and_nothing_about_which_exist(tmp_path, monkeypatch):
    """Issue 28: the Models page's errors showed absolute server paths (the Hub cache's folder, a resolved model
    folder) and told an existing folder outside the allowed one from a missing one."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    root = tmp_path / "models"
    (root / "broken").mkdir(parents=True)
    (root / "broken" / "config.json").write_text("{not json")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "config.json").write_text("{}")
    (root / "looped").mkdir()
    (root / "looped" / "config.json").write_text("{}")
    (root / "looped" / "a").symlink_to("a")
    monkeypatch.setenv(ENABLE_ENV, "1")
    monkeypatch.setenv(ROOT_ENV, str(root))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a Hub id is looked up in an empty cache, not on the network
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    page = str(Path(__file__).resolve().parents[2] / "pages" / "models.py")
    shown = {}
    long = "./" + "a" * 290
    for ref in ("./broken", "../outside", "../nowhere", "org/not-on-this-server", "tests", "nothere", "./looped",
                long):
        at = AppTest.from_file(page, default_timeout=120).run()
        at.text_input(key="models_target").input(ref)
        at.form_submit_button[0].click().run()
        assert not at.exception
        texts = [e.value for e in at.error] + [m.value for m in at.markdown]
        assert len(at.error) == 1
        assert not any(str(tmp_path) in t or "/root" in t or ".cache" in t for t in texts), texts
        shown[ref] = at.error[0].value
    assert shown["../outside"] == shown["../nowhere"].replace("nowhere", "outside")  # existence not told
    # "tests" exists here; a bare name in the form is a Hub id (read 51), looked up in the cache like "nothere"
    assert shown["tests"].replace("tests", "x") == shown["nothere"].replace("nothere", "x")
    assert "Hugging Face cache" in shown["tests"] and "closest first" not in shown["tests"]
    nowhere = _pattern(shown["../nowhere"])
    assert _pattern(shown["./looped"]) == _pattern(shown[long]) == nowhere  # a loop, a name too long: the same


def test_a_pair_loaded_by_hand_loads_again_the_way_the_page_loaded_it():
    """Dropped from the pair cache to make room, a pair by hand is loaded again by the page's own loader (Hub ids
    stay Hub ids), not by the cache's loader, which would read a relative folder of that name."""
    from specviz.runs.running import PairCache

    def by_name(name):
        raise AssertionError(f"{name} was loaded by name")

    cache, again = PairCache(size=1, loader=by_name), object()
    cache.put("tests", object(), reload=lambda: again)
    cache.put("toy", object())  # "tests" is dropped
    assert cache.loaded("tests") is None and cache.get("tests") is again


def test_a_folder_whose_path_holds_a_comma_is_the_one_sentence(tmp_path):
    """The page joins target and draft as "TARGET,DRAFT" for load_pair, which splits at commas: a folder a,/etc/x
    inside the root would load /etc/x, outside it. Such a path is refused like a folder outside the root."""
    root = tmp_path / "models"
    (root / "a," / "etc" / "x").mkdir(parents=True)
    (root / "a," / "etc" / "x" / "config.json").write_text("{}")
    (root / "m").mkdir()
    (root / "m" / "config.json").write_text("{}")
    policy = WebModelPolicy(True, root.resolve())
    missing = _pattern(str(pytest.raises(ValueError, policy.check, "./missing").value))
    for ref in ("./a,/etc/x", str(root / "a," / "etc" / "x")):
        with pytest.raises(ValueError) as err:
            policy.check(ref)
        assert _pattern(str(err.value)) == missing
    assert policy.check("./m") == str((root / "m").resolve())


def test_the_page_loads_by_hand_without_remote_code_or_pickled_weights(monkeypatch):
    """The module's promise, "safetensors, no remote code": the page's loader asks load_pair for exactly that."""
    from specviz.ui.models import view

    asked = {}

    def fake_load_pair(spec, **kwargs):
        asked.update(kwargs)
        raise ValueError("stop here")

    monkeypatch.setattr(view, "load_pair", fake_load_pair)
    with pytest.raises(ValueError, match="stop here"):
        view._load("Org/Not-Loaded-R30e", "auto", "auto", None)
    assert asked["trust_remote_code"] is False and asked["pickled_weights"] is False
    assert asked["relative_folders"] is False


def test_the_policy_does_not_claim_every_failed_load_is_its_one_sentence():
    """Read 30: the module said the Models page shows NOT_LOADABLE "for any load that fails", but a load past the
    policy shows its own sentence (test_the_page_shows_no_server_path_and_nothing_about_which_exist: ./broken)."""
    doc = " ".join((model_access.__doc__ or "").split())
    assert "also shows for any load that fails" not in doc
    assert "gets its own sentence" in doc


def test_the_docs_say_the_web_form_is_off_and_bounded():
    """Read 30: docs/app.md promised "a form to pair any two folders or hub ids" (and the READMEs and the pt tour
    "any two models"), but the form is off by default (ENABLE_ENV), folders load only inside ROOT_ENV, and the page
    loads neither remote code nor pickled weights."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    texts = {name: " ".join((root / name).read_text(encoding="utf-8").split())
             for name in ("docs/app.md", "docs/app.pt-BR.md", "README.md", "README.pt-BR.md")}
    for name, text in texts.items():
        assert "any two folders" not in text and "pair any two models" not in text, name
        assert "quaisquer dois modelos" not in text, name
    assert "off unless the app's operator turns it on" in texts["docs/app.md"]
    assert "desligado a menos que quem opera o app o ligue" in texts["docs/app.pt-BR.md"]
    assert "nor pickled `*.bin` weights" in (root / "docs" / "classroom.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("ref", "shown"), [("\x00", "'\\x00'"), ("org/na\x00me", "'org/na\\x00me'"),
                                            ("/srv/models/m\x00", "'/srv/models/m\\x00'"),
                                            ("/srv/models/m\u202eflog", "'/srv/models/m\\u202eflog'")])
def test_a_name_with_a_nul_is_refused_as_holding_a_control_character_not_as_empty(ref, shown):
    """Read 48: a NUL read as an empty name ("Give the target: ..."); it is refused, the name quoted with the NUL
    written \\x00, and a name over MAX_REF characters is said to be too long, not missing. A folder name with a
    right-to-left override (U+202E), which the classroom refused but this check let through, is refused in the same
    sentence, in English and in Portuguese, the override written \\u202e (as itself it turns the sentence round)."""
    from specviz.core.i18n import using

    with pytest.raises(ValueError) as err:
        WebModelPolicy(True).check(ref, "target")
    assert str(err.value) == (f"The name {shown} contains a control character (such as a NUL, a line break or a "
                              "text-direction override); please type it as plain text.")
    with using("pt"), pytest.raises(ValueError) as err:
        WebModelPolicy(True).check(ref, "target")
    assert str(err.value) == (f"O nome {shown} contém um caractere de controle (como um NUL, uma quebra de linha ou "
                              "um caractere que inverte a direção do texto); digite-o como texto simples.")
    with pytest.raises(ValueError, match="too long for a model's name: at most 300 characters"):
        WebModelPolicy(True).check("a" * 400, "target")


def test_an_empty_name_offers_a_folder_only_where_folders_are_allowed(tmp_path):
    """Read 48: with a models folder allowed, an empty target asked only for "a Hugging Face Hub id", though the field's
    label (and the server) take ./FOLDER too; without one, it still offers only a Hub id."""
    with pytest.raises(ValueError) as err:
        WebModelPolicy(True, tmp_path).check("  ", "target")
    assert str(err.value) == ("Give the target: a Hugging Face Hub id such as Org/Model-Name, or ./FOLDER for a folder "
                              "inside the allowed models folder.")
    with pytest.raises(ValueError) as err:
        WebModelPolicy(True).check("", "target")
    assert str(err.value) == "Give the target: a Hugging Face Hub id such as Org/Model-Name."
    with using("pt"), pytest.raises(ValueError) as err:
        WebModelPolicy(True, tmp_path).check("", "target")
    assert "ou ./PASTA para uma pasta dentro da pasta de modelos permitida" in str(err.value)


@pytest.mark.parametrize(("ref", "shown"), [("org/m\u200b", "'org/m\\u200b'"), ("org/m\u00ad", "'org/m\\xad'"),
                                            ("org/m\u200d", "'org/m\\u200d'")])
def test_an_invisible_character_in_a_refused_name_is_written_as_its_escape(ref, shown):
    """Read 52: 'org/m' + a zero-width space was refused as "'org/m​' is not a Hugging Face Hub id": the quote
    looked like a good id. The character the reader cannot see is now written as its escape."""
    with pytest.raises(ValueError) as err:
        WebModelPolicy(True).check(ref)
    assert str(err.value) == f"{shown} is not a Hugging Face Hub id (Org/Model-Name) that can be loaded here."


def test_a_hub_page_address_is_not_called_a_local_folder():
    """Read 52: a pasted https://huggingface.co/Org/Model was refused with "Local folders cannot be loaded from the
    browser on this server": it is no folder; it is said not to be a Hub id (Org/Model-Name)."""
    for root in (None, "tmp"):
        with pytest.raises(ValueError) as err:
            WebModelPolicy(True, None if root is None else __import__("pathlib").Path("/tmp")).check(
                "https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct")
        assert str(err.value) == ("'https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct' is not a Hugging "
                                  "Face Hub id (Org/Model-Name) that can be loaded here.")


@pytest.mark.parametrize("address", ["huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct",
                                     "hf.co/HuggingFaceTB/SmolLM2-135M-Instruct"])
def test_a_hub_page_address_without_its_scheme_is_not_called_a_local_folder(address):
    """Read 55: the Hub page's address as an address bar shows it, without "https://", was still refused with "Local
    folders cannot be loaded from the browser on this server" (or, with a models folder, as a folder that cannot be
    loaded); the visitor typed no folder. It gets the sentence a pasted https:// address gets."""
    for root in (None, __import__("pathlib").Path("/tmp")):
        with pytest.raises(ValueError) as err:
            WebModelPolicy(True, root).check(address)
        assert str(err.value) == f"'{address}' is not a Hugging Face Hub id (Org/Model-Name) that can be loaded here."
