"""Reading the committed preset measurement (specviz.runs.presets)."""

from __future__ import annotations

import json

from specviz.runs.presets import PRESET_RESULTS, preset_results


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
