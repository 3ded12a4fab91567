"""What .ci/run's comments quote is in the file they cite."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def test_ci_run_cites_the_doc_that_holds_its_serving_time():
    """.ci/run quoted the serving tier's fresh-clone time (8 min 36 s) from "(README, Tests)": the README has had no
    such section or figure since the times moved to docs/testing.md, which holds it."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "8 min 36 s" in ci and "(docs/testing.md)" in ci and "README, Tests" not in ci
    assert "8 min 36 s" in (DOCS / "testing.md").read_text(encoding="utf-8")
    assert "8 min 36 s" not in (ROOT / "README.md").read_text(encoding="utf-8")
