"""read_yaml: the catalog and the prompt suites parsed once per version of their file."""

from __future__ import annotations

import os

import pytest
import yaml

from specviz.core import yamlfiles
from specviz.core.yamlfiles import read_yaml
from specviz.labs.bench.config import load_suites
from specviz.models.catalog import load_catalog


def test_a_file_read_twice_is_parsed_once_and_again_when_it_changes(tmp_path, monkeypatch):
    parses = []
    real = yaml.safe_load
    monkeypatch.setattr(yamlfiles.yaml, "safe_load", lambda text: parses.append(1) or real(text))
    path = tmp_path / "a.yaml"
    path.write_text("k: 1\n", encoding="utf-8")
    assert read_yaml(path) == {"k": 1} and read_yaml(path) == {"k": 1}
    assert len(parses) == 1
    path.write_text("k: 22\n", encoding="utf-8")  # another size: parsed again even within the same mtime tick
    assert read_yaml(path) == {"k": 22} and len(parses) == 2
    stat = path.stat()
    path.write_text("k: 33\n", encoding="utf-8")  # the same size: the new modification time tells
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert read_yaml(path) == {"k": 33} and len(parses) == 3


def test_what_a_caller_edits_is_its_own_copy(tmp_path):
    path = tmp_path / "b.yaml"
    path.write_text("pairs: [{name: x}]\n", encoding="utf-8")
    first = read_yaml(path)
    first["pairs"][0]["name"] = "changed"
    first["pairs"].append("more")
    assert read_yaml(path) == {"pairs": [{"name": "x"}]}


def test_the_catalog_and_the_suites_read_as_before_and_a_missing_file_is_still_a_sentence(tmp_path):
    catalog = load_catalog()
    assert list(load_catalog()) == list(catalog) and "default" in catalog
    suites = load_suites()
    assert [s.name for s in load_suites()] == [s.name for s in suites] and all(s.prompts for s in suites)
    with pytest.raises(ValueError, match="Cannot read the model catalog"):
        load_catalog(tmp_path / "none.yaml")


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_a_catalog_nested_thousands_deep_is_still_one_sentence(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text("pairs: " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid YAML"):
        load_catalog(path)
