"""House rules that keep the project usable: the library never imports Streamlit."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_library_modules_import_without_streamlit():
    modules = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for p in (ROOT / "specviz").rglob("*.py")
        if "ui" not in p.relative_to(ROOT / "specviz").parts and p.name != "__main__.py"
    )
    assert "specviz.decoding" in modules and "specviz.verifier" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = [m for m in sys.modules if m == 'streamlit' or m.startswith('streamlit.')]\n"
        "print('STREAMLIT' if bad else 'CLEAN')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("CLEAN"), "a module outside specviz/ui imports streamlit"


def test_pages_and_router_agree():
    from specviz.pagemap import PAGE_FILES

    assert all((ROOT / page).is_file() for page in PAGE_FILES)
    assert {p.as_posix() for p in (ROOT / "pages").glob("*.py")} >= {str(ROOT / p) for p in PAGE_FILES}
