"""One place swaps the decimal mark (issue 29, item 3): numbers reach a reader through `i18n.number`, `percent`,
`times` or, for text a format spec already wrote, `i18n.localized`. A hand-written `.replace(".", ",")` elsewhere is
how a page ends up with 0.2 beside 0,75."""

from __future__ import annotations

import re
from pathlib import Path

from specviz.core.i18n import localized, using

ROOT = Path(__file__).resolve().parents[2]
SCANNED = [*sorted((ROOT / "specviz").rglob("*.py")), *sorted((ROOT / "pages").glob("*.py")), ROOT / "app.py"]
BY_HAND = re.compile(r"""\.replace\(\s*(['"])[.,]\1\s*,\s*(['"])[.,]\2\s*\)"""  # either direction, or both at once
                     r"""|maketrans\(\s*(['"])(?:,\.|\.,)\3\s*,""")


def test_no_module_swaps_the_decimal_mark_by_hand():
    i18n = ROOT / "specviz" / "core" / "i18n.py"
    assert len(SCANNED) > 150 and BY_HAND.search('x.replace(".", ",")') and BY_HAND.search("x.replace(',', '.')")
    assert BY_HAND.search('t.translate(str.maketrans(",.", ".,"))')  # quiz/schema.py's _bound swapped both so
    found = [f"{p.relative_to(ROOT)}:{n}" for p in SCANNED if p != i18n
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if BY_HAND.search(line)]
    assert found == [], ("write numbers with specviz.core.i18n.number/percent/times, or localized() for formatted "
                         "text; read them with read_number or with_decimal_point")


def test_localized_swaps_both_marks_only_in_portuguese():
    assert localized("1,234.5") == "1,234.5"
    with using("pt"):
        assert (localized("1,234.5"), localized("0.7"), localized("3.4e-07"), localized("12")) == \
            ("1.234,5", "0,7", "3,4e-07", "12")


def test_library_docstrings_quote_no_timing_without_a_committed_source():
    """Figures in docstrings come from a committed file (named) or not at all: these three had none."""
    import specviz.core.cache as cache
    import specviz.distill.batched as batched
    from specviz.models.machine import emulated_bf16_note

    assert "about half a second on a 2-core laptop" not in " ".join(cache.__doc__.split())
    assert "400 tokens per second" not in " ".join(batched.__doc__.split())
    assert "default-cpu-f32-avx2cap/results.json" in " ".join(emulated_bf16_note.__doc__.split())
