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
    refusals = set()
    for ref in (str(tmp_path / "secret"), str(root / "escape"), "../secret", str(root / "missing"), "/etc"):
        with pytest.raises(ValueError) as err:
            policy.check(ref)
        refusals.add(re.sub(r"^'[^']*'", "'REF'", str(err.value)))  # the visitor's own words, maybe shortened
    assert len(refusals) == 1  # the same sentence whether the path exists or not: nothing about the server leaks


def test_a_hub_id_that_is_also_a_local_path_is_refused(tmp_path, monkeypatch):
    """from_pretrained("org/name") would read a local folder of that name: the web never gets there."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "org" / "name").mkdir(parents=True)
    with pytest.raises(ValueError, match="not a Hugging Face Hub id"):
        WebModelPolicy(True).check("org/name")


def test_the_modules_examples_hold():
    result = doctest.testmod(model_access)
    assert result.attempted and not result.failed
