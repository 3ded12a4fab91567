"""Portuguese findings of the 54th read (the catalog's msgstr against its English msgid); each test says what the read
found."""

from __future__ import annotations

from pathlib import Path

from specviz.core.i18n import _, using

ROOT = Path(__file__).resolve().parents[2]

def _msgid_with(fragment: str) -> str:
    """The one catalog message holding `fragment` (the catalog keeps only messages the code still has)."""
    from babel.messages.pofile import read_po

    with (ROOT / "assets" / "locale" / "pt_BR" / "LC_MESSAGES" / "specviz.po").open("rb") as f:
        found = [m.id for m in read_po(f) if isinstance(m.id, str) and fragment in m.id]
    assert len(found) == 1, found
    return found[0]


NOISY = ("In this run ({dtype}, on {machine}) forwards over {sizes} tokens timed {each} a one-token forward: a "
         "forward over more tokens does more work and cannot truly take well under the time of one over a single "
         "token, so these timings are noise (a busy machine, or a forward too short to time well: one token took "
         "{ms} ms) and say nothing about how verification costs here; measure again on a quiet machine.")


def test_a_quiet_machine_is_an_idle_one_as_everywhere_else_in_portuguese():
    """Read 54: two Speedup-lab notes read "numa máquina quieta", a calque of "a quiet machine" (a machine is not
    "quieta" in Portuguese); every other message says "a máquina ociosa"."""
    from specviz.ui.speedup.results import NOTES

    busy = [pt for _pattern, pt in NOTES if pt.startswith("The load average") and "quiet machine" in pt]
    assert busy, "the busy-start note's msgid moved"
    assert _msgid_with("measure again on a quiet machine.") == NOISY  # the catalog holds only the code's messages
    with using("pt"):
        said = [_(NOISY, dtype="float32", machine="AMD EPYC", sizes="2; 3", each="0,5×; 0,6×", ms="9,1")]
        said += [_(msgid, start="3,1", end="2,9", cores="2 núcleos") for msgid in busy]
    for text in said:
        assert "numa máquina ociosa" in text and "quieta" not in text, text


def test_the_threshold_policy_has_one_name_in_portuguese():
    """Read 54: the policy menu, the step panels and the short-step reasons call it "threshold" ("a política
    threshold"), but two refusals named it "a política de limiar", a second name for the same policy."""
    from specviz.runs.runspec import THRESHOLD_NEEDS_CHAIN

    needs = "The threshold policy needs a draft model's probabilities; '{name}' has none."
    assert needs in (ROOT / "specviz" / "engine" / "policies.py").read_text(encoding="utf-8")
    with using("pt"):
        said = [_(THRESHOLD_NEEDS_CHAIN), _(needs, name="ngram"), _("threshold")]
    assert said[0].startswith("A política threshold encerra uma cadeia de palpites"), said[0]
    assert said[1] == "A política threshold precisa das probabilidades de um modelo de rascunho; 'ngram' não tem."
    assert said[2] == "threshold"
    assert not any("de limiar" in text for text in said)


def test_the_medusa_notes_c_in_milliseconds_agrees_with_its_singular_subject():
    """Read 54: the Medusa note read "O c desta execução, … , são 0,8 ms": the subject is one c, so
    "é de 0,8 ms"."""
    msgid = _msgid_with("Its c, {c} of a target forward, is {c_ms} ms.")
    with using("pt"):
        text = _(msgid, each="0,8 ms", c="0,046", c_ms="0,8")
    assert "O c desta execução, 0,046 de uma passagem do alvo, é de 0,8 ms." in text, text
    assert "são 0,8 ms" not in text
