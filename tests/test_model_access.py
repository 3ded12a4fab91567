"""What a browser visitor may load by hand: nothing by default; Hub ids, and folders inside one root, when allowed."""

from __future__ import annotations

import doctest
import re

import pytest

from specviz.ui import model_access
from specviz.ui.model_access import ENABLE_ENV, ROOT_ENV, WebModelPolicy


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


def test_a_hub_id_that_is_also_a_local_path_is_refused(tmp_path, monkeypatch):
    """from_pretrained("org/name") would read a local folder of that name: the web never gets there."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "org" / "name").mkdir(parents=True)
    with pytest.raises(ValueError) as exists:
        WebModelPolicy(True).check("org/name")
    with pytest.raises(ValueError) as outside:
        WebModelPolicy(True, root=tmp_path / "nowhere").check("./org/name")
    assert str(exists.value) == str(outside.value).replace("./org/name", "org/name")  # nothing tells them apart
    assert "cannot be loaded on this server" in str(exists.value)


def test_the_modules_examples_hold():
    result = doctest.testmod(model_access)
    assert result.attempted and not result.failed


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
    monkeypatch.setenv(ENABLE_ENV, "1")
    monkeypatch.setenv(ROOT_ENV, str(root))
    page = str(Path(__file__).resolve().parent.parent / "pages" / "models.py")
    shown = {}
    for ref in ("./broken", "../outside", "../nowhere", "org/not-on-this-server", "tests"):
        at = AppTest.from_file(page, default_timeout=120).run()
        at.text_input(key="models_target").input(ref)
        at.form_submit_button[0].click().run()
        assert not at.exception
        texts = [e.value for e in at.error] + [m.value for m in at.markdown]
        assert len(at.error) == 1
        assert not any(str(tmp_path) in t or "/root" in t or ".cache" in t for t in texts), texts
        shown[ref] = at.error[0].value
    assert shown["../outside"] == shown["../nowhere"].replace("nowhere", "outside")  # existence not told
    assert shown["tests"].replace("tests", "x") == shown["../nowhere"].replace("\\.\\./nowhere", "x")
