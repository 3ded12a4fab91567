"""Enter in a form's field presses its submit button (Streamlit's default, and the focus script's LANDINGS count on
it for the Classroom's Join). Only a form whose premature submit neither acts nor loses what was typed keeps it;
every other form in the app turns it off (read 48: Enter after a quiz sheet's first number graded the whole sheet,
Enter after a model's id loaded it with no draft, Enter in a sweep's number field ran the sweep)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# form -> why Enter may submit it
ENTER_SUBMITS = {"classroom_pin_form": "one field: Enter after the PIN is the press of Unlock",
                 "classroom_join": "a code alone is refused with one sentence, kept in its field, and costs no try"}


def _forms() -> dict[str, bool]:
    """Every st.form in the app: its name (as written, f-strings by their text) -> whether Enter submits it."""
    found = {}
    for path in [*(ROOT / "specviz").rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "form"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "st"):
                name = ast.unparse(node.args[0]).strip("'\"f")
                enter = next((ast.literal_eval(k.value) for k in node.keywords if k.arg == "enter_to_submit"), True)
                found[name] = enter
    return found


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_only_forms_where_a_premature_enter_is_harmless_submit_on_enter():
    forms = _forms()
    assert {"classroom_join", "{key}_sheet", "models_hand_form", "serving_load_form"} <= set(forms)
    assert {name for name, enter in forms.items() if enter} == set(ENTER_SUBMITS)
