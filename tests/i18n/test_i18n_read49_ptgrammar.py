"""Portuguese findings of the 49th read (the catalog's msgstr against its English msgid, and the Portuguese docs);
each test says what the read found."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from specviz.core.i18n import _, using

ROOT = Path(__file__).resolve().parents[2]


def test_a_full_disk_says_there_is_not_enough_space_not_none(tmp_path):
    """Read 49: "There is not enough free disk space to prepare {what} (about N MB are needed)" read "Não há espaço
    livre em disco para preparar...": no free space at all, where the English (and the cause, a disk that filled up
    mid-write) says too little of it."""
    from specviz.core.cache import CacheError, build_once

    def fills_the_disk(folder: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(folder / "model.safetensors"))

    with using("pt"), pytest.raises(CacheError) as refused:
        build_once(tmp_path / "thing", fills_the_disk, {"made_from": "x"}, "o modelo", 520)
    assert str(refused.value).startswith("Não há espaço livre suficiente em disco para preparar o modelo (são "
                                         "necessários cerca de 520 MB)"), str(refused.value)


@pytest.mark.slow  # the toy pair, three runs: about 0.5 s
def test_the_race_rounds_table_names_its_speed_columns_as_the_tree_race_does():
    """Read 49: without a tree lane the rounds table's columns read "tokens/s especulativa" (a feminine singular
    adjective on "tokens/s") and "tokens/s só o alvo", where the same table with a tree lane reads
    "tokens/s (especulativa, cadeia)" and "tokens/s (só o alvo)"."""
    from specviz.labs.timeline import RaceRounds
    from specviz.runs.running import run, run_target_only
    from specviz.runs.runspec import RunSpec
    from specviz.ui.race.view import rounds_table

    spec = RunSpec(pair="toy", proposer="draft", prompt="hello", k=3, max_new_tokens=8, temperature=0.0)
    rounds = RaceRounds(((run(spec), run_target_only(spec)),))
    with using("pt"):
        columns = list(rounds_table(rounds)[0])
    assert "tokens/s (especulativa)" in columns and "tokens/s (só o alvo)" in columns, columns
    assert "tokens/s especulativa" not in columns


def test_the_gpt_fast_definition_says_kept_drafts_counted_as_accepted():
    """Read 49: "the drafts kept after it counted as accepted too" read "os palpites aceitos depois dele também
    contavam como aceitos", which says nothing (accepted drafts counted as accepted); the point is that drafts the
    target kept after a kept end-of-text draft, never emitted, were counted as accepted."""
    from specviz.labs.bench.summary import DEFINITIONS

    with using("pt"):
        said = _(DEFINITIONS["mat_without_bonus"][1])
    assert "os palpites mantidos depois dele também contavam como aceitos" in said
    assert "aceitos depois dele também contavam como aceitos" not in said


def test_the_portuguese_tour_calls_a_token_chip_what_the_app_calls_it():
    """Read 49: the Portuguese tour said "chips" for the token chips that every Portuguese page calls "fichas"
    ("passe o mouse sobre uma ficha"), two names for one thing on screen."""
    tour = (ROOT / "docs" / "app.pt-BR.md").read_text(encoding="utf-8")
    assert "chips" not in tour
    assert "as fichas do próprio passo marcam com ✓" in tour and "❐ nas suas fichas" in tour
    with using("pt"):
        assert "ficha" in _("Drafted (hover a chip for p, q, p/q, min(1, p/q) and u)")
