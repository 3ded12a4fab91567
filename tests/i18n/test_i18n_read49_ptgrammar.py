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