"""Reading the committed preset measurement (specviz.runs.presets)."""

from __future__ import annotations

import json

import pytest

from specviz.runs.presets import PRESET_RESULTS, preset_measurement, preset_results


def test_the_preset_file_is_read_once_per_version(tmp_path):
    """Final review: preset_results parsed its file on every call (a page quotes it several times per render). It
    reads a file once until the file changes, so a test that writes its own file still sees what it wrote."""
    assert preset_results() is preset_results(PRESET_RESULTS)
    path = tmp_path / "presets.json"
    path.write_text(json.dumps({"runs": {"float32": {"dtype": "float32"}}}))
    first = preset_results(path)
    assert preset_results(path) is first
    path.write_text(json.dumps({"runs": {"bfloat16": {"dtype": "bfloat16", "note": "written again"}}}))
    assert preset_results(path)["runs"] == {"bfloat16": {"dtype": "bfloat16", "note": "written again"}}


@pytest.mark.parametrize("damage", ["list", "runs", "presets", "seed row", "spec"])
def test_a_damaged_presets_file_is_refused_in_one_sentence(tmp_path, damage):
    """preset_results promises a ValueError with one sentence for a file it cannot use; a file of the wrong shape
    ended in an AttributeError or KeyError."""
    data = json.loads(PRESET_RESULTS.read_text(encoding="utf-8"))
    preset = data["runs"]["float32"]["presets"]["copy"]
    if damage == "list":
        data = []
    elif damage == "runs":
        data["runs"] = []
    elif damage == "presets":
        data["runs"]["float32"]["presets"] = "x"
    elif damage == "seed row":
        preset["seeds"] = [{}]
    else:
        preset["spec"] = {}
    path = tmp_path / "presets.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=r"^The committed preset runs .* (hold|time)[^\n]*\.$"):
        preset_measurement("copy", "float32", path)
