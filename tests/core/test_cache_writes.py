"""Cache and state files are written whole or not at all (issue 28): a converted model, an assembled draft, the
vLLM export and the local server's state are built under a fresh temporary name and published with one rename
(`specviz.core.paths.writing_folder`, `writing_file`). A writer killed part-way leaves nothing at the final path, two
writers at once never show a reader half a folder, and a failure leaves no temporary folder behind."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from specviz.core.cache import CacheError
from specviz.core.paths import write_text_atomically, writing_file, writing_folder
from specviz.models import pairs as models

FILES, SIZE = 12, 20_000  # one writer's folder: FILES files of SIZE bytes, written slowly

# A writer in its own process: waits for GO, then fills a folder (or rewrites a file) slowly, saying "ready" first.
WRITER = """
import sys, time
from pathlib import Path
from specviz.core.cache import CacheError
from specviz.core.paths import write_text_atomically, writing_folder
final, tag, kind, go = Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])
print("ready", flush=True)
while not go.exists():
    time.sleep(0.005)
if kind == "folder":
    with writing_folder(final) as folder:
        for i in range({files}):
            (folder / f"{{i}}.txt").write_text(tag * {size})
            time.sleep(0.01)
            if i == 3:
                print("half", flush=True)
elif kind == "file":
    for n in range(60):
        write_text_atomically(final, '{{"pid": %d, "fill": "%s"}}' % (n, tag * {size}))
""".format(files=FILES, size=SIZE)


def _writer(final: Path, tag: str, kind: str, go: Path) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", WRITER, str(final), tag, kind, str(go)], stdout=subprocess.PIPE,
                               text=True)
    assert process.stdout.readline().strip() == "ready"
    return process


def _whole(folder: Path) -> str | None:
    """The writer's tag when `folder` holds all of one writer's files, whole; None when it does not."""
    try:
        texts = [(folder / f"{i}.txt").read_text() for i in range(FILES)]
    except OSError:
        return None
    tags = {t[:1] for t in texts}
    return texts[0][:1] if len(tags) == 1 and all(len(t) == SIZE for t in texts) and \
        sorted(os.listdir(folder)) == sorted(f"{i}.txt" for i in range(FILES)) else None


def _temporaries(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def test_a_writer_killed_mid_write_leaves_nothing_at_the_final_path(tmp_path):
    final, go = tmp_path / "model", tmp_path / "go"
    go.touch()
    process = _writer(final, "a", "folder", go)
    assert process.stdout.readline().strip() == "half"  # four files written, eight to go
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    assert not final.exists()
    assert len(_temporaries(tmp_path)) == 1  # its unique temporary folder, which no reader looks at
    with writing_folder(final) as folder:  # the next writer is not disturbed by it
        (folder / "config.json").write_text("{}")
    assert os.listdir(final) == ["config.json"]


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_two_writers_racing_never_show_a_reader_half_a_folder(tmp_path):
    for round_ in range(2):
        final, go = tmp_path / f"model-{round_}", tmp_path / f"go-{round_}"
        writers = [_writer(final, tag, "folder", go) for tag in "ab"]
        go.touch()
        seen, looks = None, 0
        while any(w.poll() is None for w in writers) or looks == 0:
            looks += 1
            if seen is None and not os.path.lexists(final):
                time.sleep(0.001)
                continue
            tag = _whole(final)  # once there, it is there for good, whole, and always the same writer's
            assert tag is not None and tag == (seen or tag), f"look {looks}: {sorted(os.listdir(final))}"
            seen = tag
        assert all(w.wait(timeout=30) == 0 for w in writers)
        assert _whole(final) in ("a", "b") and (seen is None or _whole(final) == seen)
        assert _temporaries(tmp_path) == [], "the losing writer's folder is removed"


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_a_state_file_rewritten_by_two_writers_is_never_read_torn(tmp_path):
    final, go = tmp_path / "server.json", tmp_path / "go"
    write_text_atomically(final, '{"pid": -1, "fill": ""}')
    writers = [_writer(final, tag, "file", go) for tag in "ab"]
    go.touch()
    reads = 0
    while any(w.poll() is None for w in writers):
        data = json.loads(final.read_text())  # a torn file would fail here (and read as "no server")
        assert len(data["fill"]) in (0, SIZE)
        reads += 1
    assert all(w.wait(timeout=30) == 0 for w in writers) and reads > 0
    assert [p.name for p in tmp_path.iterdir() if p.name != "go"] == ["server.json"]


def test_a_failure_inside_the_block_leaves_no_temporary_folder_and_keeps_what_was_there(tmp_path):
    final = tmp_path / "model"
    with pytest.raises(RuntimeError), writing_folder(final) as folder:
        (folder / "config.json").write_text("{}")
        raise RuntimeError("the conversion failed")
    assert list(tmp_path.iterdir()) == []
    with writing_folder(final) as folder:
        (folder / "weights").write_text("mine")
    with writing_folder(final) as folder:  # a second writer finds a whole folder there: theirs is kept
        (folder / "weights").write_text("late")
    assert (final / "weights").read_text() == "mine" and _temporaries(tmp_path) == []
    state = tmp_path / "state.json"
    state.write_text("old")
    with pytest.raises(KeyboardInterrupt), writing_file(state) as file:
        file.write("half")
        raise KeyboardInterrupt
    assert state.read_text() == "old" and _temporaries(tmp_path) == []


def test_a_folder_that_is_not_whole_is_replaced_whole(tmp_path):
    final = tmp_path / "draft"
    final.mkdir()
    (final / "config.json").write_text("{}")  # left half-written by something else: no weights
    with writing_folder(final, complete=lambda f: (f / "model.safetensors").is_file()) as folder:
        (folder / "config.json").write_text('{"new": 1}')
        (folder / "model.safetensors").write_text("weights")
    assert sorted(os.listdir(final)) == ["config.json", "model.safetensors"] and _temporaries(tmp_path) == []


class _Loaded:
    """A stand-in for a model or tokenizer read from GGUF: save_pretrained writes one file, and fails if told to."""

    saves, fails = "model.safetensors", False

    def __init__(self, config=None):
        self.config, self.generation_config = type("Config", (), {})(), None

    def save_pretrained(self, folder):
        (Path(folder) / self.saves).write_text("x" * 1000)
        if self.fails:
            raise OSError(errno.ENOSPC, "No space left on device")

    def state_dict(self):
        return {}

    def load_state_dict(self, state):
        pass


class _Tokenizer(_Loaded):
    saves, fails = "tokenizer.json", True


def test_the_gguf_conversion_publishes_its_folder_whole_or_not_at_all(tmp_path, monkeypatch):
    gguf = tmp_path / "smollm.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(models.GGUF_ENV, str(gguf))
    monkeypatch.setattr(models, "AutoModelForCausalLM", type("Auto", (), {"from_pretrained": lambda *a, **k: _Loaded()}))
    broken = _Tokenizer()
    monkeypatch.setattr(models, "AutoTokenizer", type("Auto", (), {"from_pretrained": lambda *a, **k: broken}))
    with pytest.raises(CacheError, match="not enough free disk space") as refused:
        models.default_target_folder(progress=lambda message: None)
    assert str(tmp_path) not in str(refused.value)  # a visitor may read it: no path
    parent = tmp_path / "cache" / "models"
    assert [p for p in parent.iterdir() if not p.name.endswith(".lock")] == []  # no half folder, no temporary one
    broken.fails = False
    folder = models.default_target_folder(progress=lambda message: None)
    assert folder.parent == parent and folder.name.startswith(f"{models.DEFAULT_TARGET_NAME}-f32-")
    assert sorted(os.listdir(folder)) == ["model.safetensors", "specviz-manifest.json", "tokenizer.json"]
    assert models.default_target_folder(progress=pytest.fail) == folder  # found whole: not converted again
    gguf.write_bytes(b"GGUF, another one")  # another GGUF: a folder of its own, the first one untouched
    other = models.default_target_folder(progress=lambda message: None)
    assert other != folder and folder.is_dir() and sorted(p.name for p in parent.iterdir() if p.is_dir()) == sorted(
        [folder.name, other.name])


def test_the_paths_docstring_names_who_writes_whole_and_who_writes_in_place():
    """specviz.core.paths says which writers publish whole (its own helpers, directly or through `build_once`) and
    which commands write committed files in place; it once said every file specviz reads again is written whole."""
    from specviz.core import paths

    root = Path(paths.__file__).resolve().parents[1]
    whole = ("models/pairs.py", "models/drafts.py", "serving/export.py", "serving/server.py", "labs/calibration.py",
             "labs/bench/report.py", "serving/results.py")
    for rel in whole:
        source = (root / rel).read_text()
        assert any(name in source for name in ("build_once(", "write_text_atomically(", "writing_folder(")), rel
    in_place = {"models/drafts.py": "save_file(", "distill/cli.py": "path.write_text(",
                "scripts/make_traces.py": ".write_text(", "scripts/shape_table.py": ".write_text(",
                "scripts/greedy_identity.py": ".write_text("}
    for rel, call in in_place.items():
        assert call in (root / rel).read_text(), rel
    doc = " ".join(paths.__doc__.split())
    assert "Every file or folder specviz writes" not in doc and "write in place" in doc


@pytest.mark.parametrize("text", ["[" * 50_000, "{oops", "\udcff"])
def test_read_json_once_fails_with_the_errors_it_names(tmp_path, text):
    """read_json_once's docstring: "OSError or ValueError when it cannot be read"; JSON nested 50,000 deep raised a
    RecursionError, which `presets.preset_results` (it catches those two) let through (30th read)."""
    from specviz.core.paths import read_json_once

    path = tmp_path / "r.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(ValueError):
        read_json_once(path)
    with pytest.raises(OSError):
        read_json_once(tmp_path / "missing.json")
