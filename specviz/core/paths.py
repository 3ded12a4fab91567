"""Where specviz finds its files: the bundled assets and the user cache. The one module that knows.

The assets (example traces, quiz banks, prompt suites, trained drafts, benchmark results, the catalog) live in the
repository's top-level `assets/` folder. They are found from this file, never from the current directory:

- a source checkout or an editable install (`pip install -e .`): `<checkout>/assets/`, next to the package;
- a regular install (`pip install .`): the wheel carries the same folder inside the package, `specviz/assets/`
  (pyproject.toml maps `assets/` to the package `specviz.assets`).

    >>> CATALOG_PATH.name, CATALOG_PATH.is_file()
    ('catalog.yaml', True)
    >>> TRACES_DIR.relative_to(ASSETS).as_posix()
    'traces'

Converted models and other per-user files go to `cache_dir()`: `$SPECVIZ_CACHE`, else `~/.cache/specviz`.

The files and folders specviz's cache and runs write to read again later (a converted model, an assembled draft,
the EAGLE drafter exported for vLLM, the local server's state, a calibration, the bench's and the serving sweep's
results) are written with `writing_folder` or `writing_file`: built under a fresh temporary name beside it and
published with one rename, so a reader (another process, a later run) finds either nothing or the whole thing, never
half of it, also when the writer is killed part-way or two write at once. The commands that regenerate committed
files under assets/ (`specviz.distill`'s trained drafts and prompt suites, `specviz.scripts.make_traces`,
`shape_table`, `greedy_identity`) write in place: a maintainer runs them and commits what they wrote.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as parent:
    ...     with writing_folder(Path(parent) / "model") as folder:
    ...         _ = (folder / "config.json").write_text("{}")
    ...     sorted(p.name for p in Path(parent).iterdir()), (Path(parent) / "model" / "config.json").read_text()
    (['model'], '{}')
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any
from typing import IO

__all__ = ["ASSETS", "BENCHMARKS_DIR", "CATALOG_PATH", "DRAFT_NAME", "EAGLE_NAME", "MEDUSA_NAME", "MODELS_DIR",
           "PROMPTS_DIR", "QUIZ_DIR", "SCREENSHOTS_DIR", "SOURCE_ROOT", "TRACES_DIR", "cache_dir", "write_text_atomically", "writing_file", "writing_folder"]

CACHE_ENV = "SPECVIZ_CACHE"

_PACKAGE = Path(__file__).resolve().parent.parent  # specviz/, above core/


@contextmanager
def folders_made_for(folder: str | Path, keep: bool = True) -> Iterator[Path]:
    """Create `folder` and its missing parents for a write check, and remove the ones this made (empty, deepest
    first) when the check fails inside: a refused output path leaves no stray folder behind (read 46: `serve sweep
    --out /new/<300 characters>/x.json` was refused with /new left on the disk). With `keep` off they are removed
    when the check passes too: the command that checked may still be refused before it writes (read 52: `bench
    --pair no-such-pair --out new/a/b` left new/a/b on the disk), and its writer makes the folders it needs.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> try:
    ...     with folders_made_for(root / "a" / "b"):
    ...         raise OSError("refused")
    ... except OSError:
    ...     pass
    >>> list(root.iterdir())
    []
    >>> with folders_made_for(root / "a" / "b", keep=False):
    ...     pass
    >>> list(root.iterdir())
    []
    """
    path = Path(folder)
    missing = []
    for above in (path, *path.parents):
        if os.path.lexists(above):  # False for any path the system refuses to look at, too long ones included
            break
        missing.append(above)
    try:
        path.mkdir(parents=True, exist_ok=True)
        yield path
    except BaseException:
        _remove_empty(missing)
        raise
    if not keep:
        _remove_empty(missing)


def _remove_empty(folders: list[Path]) -> None:
    """Remove each folder, deepest first; one that holds something now is kept."""
    for made in folders:
        try:
            made.rmdir()
        except OSError:
            pass


def _find_assets() -> Path:
    """The assets folder: inside the package when installed from a wheel, else next to the package."""
    installed = _PACKAGE / "assets"
    return installed if (installed / "catalog.yaml").is_file() else _PACKAGE.parent / "assets"


ASSETS = _find_assets()
CATALOG_PATH = ASSETS / "catalog.yaml"
TRACES_DIR = ASSETS / "traces"  # example traces: <name>.json and <name>.baseline.json
QUIZ_DIR = ASSETS / "quiz"  # the bundled quiz bank, *.yaml
PROMPTS_DIR = ASSETS / "prompts"  # bench prompt suites, *.yaml
MODELS_DIR = ASSETS / "models"  # the trained drafts, one folder each
# their folders' names, here and not in specviz.models.drafts (which loads torch) so a page can find them without it
EAGLE_NAME, MEDUSA_NAME, DRAFT_NAME = "smollm2-eagle", "smollm2-medusa", "smollm2-draft"
BENCHMARKS_DIR = ASSETS / "benchmarks"  # committed bench results, <run>/results.json
SCREENSHOTS_DIR = ASSETS / "screenshots"
LOCALE_DIR = ASSETS / "locale"  # gettext catalogs: <locale>/LC_MESSAGES/specviz.po and .mo
CONFUSABLES_PATH = ASSETS / "unicode" / "confusables.json"  # Unicode's look-alike prototypes (UTS #39), for names

# The checkout that holds app.py and pages/ (for scripts that start the app), or None in a wheel install.
SOURCE_ROOT: Path | None = _PACKAGE.parent if (_PACKAGE.parent / "app.py").is_file() else None


def cache_dir() -> Path:
    """Where converted models and other per-user files live: $SPECVIZ_CACHE, else ~/.cache/specviz."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "specviz").expanduser()


# ---- writing: whole or not at all ----------------------------------------------------------------------------------

STALE_SECONDS = 24 * 3600  # a temporary folder this old was left by a writer that was killed: removed


@contextmanager
def writing_folder(final: str | Path, complete: Callable[[Path], bool] | None = None) -> Iterator[Path]:
    """A fresh, empty folder to fill (a unique name beside `final`), published at `final` with one rename when the
    block ends without an error; removed, with everything in it, when it raises or is interrupted.

    `final` is never missing once published and never half-written: the files are flushed to disk first, and the
    rename is atomic. When another writer published `final` first, theirs is kept and this one is discarded, so
    callers name `final` by its content (a version, a stamp of its source). Only a folder at `final` that
    `complete(final)` says is not whole (left by something other than this function) is replaced. A writer killed
    with SIGKILL leaves only its temporary folder, which the next writer beside it removes: at once when the folder's
    name says it was made by a process of this machine that is gone, otherwise once it is a day old.
    """
    final = Path(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    _sweep_stale(final)
    temporary = Path(tempfile.mkdtemp(prefix=f".{final.name}.{_writer()}-", suffix=".partial", dir=final.parent))
    try:
        os.chmod(temporary, 0o755)  # mkdtemp makes it private; a published folder reads like any other
        yield temporary
        _sync_tree(temporary)
        _publish(temporary, final, complete)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def _publish(temporary: Path, final: Path, complete: Callable[[Path], bool] | None) -> None:
    for _attempt in range(5):
        try:
            os.rename(temporary, final)  # onto nothing (or an empty folder): atomic
        except OSError:
            if not final.is_dir():
                raise
            if complete is None or complete(final):
                shutil.rmtree(temporary, ignore_errors=True)  # another writer's whole folder is there: keep theirs
                return
            aside = Path(tempfile.mkdtemp(prefix=f".{final.name}.", suffix=".broken", dir=final.parent))
            try:
                os.rename(final, aside)  # not whole: moved out of the way (onto an empty folder: atomic) and removed
            except OSError:
                pass  # another writer moved or replaced it first: look again
            shutil.rmtree(aside, ignore_errors=True)
        else:
            _sync_folder(final.parent)
            return
    raise OSError(f"{final} keeps being replaced by other writers")


@contextmanager
def writing_file(final: str | Path, binary: bool = False, encoding: str = "utf-8") -> Iterator[IO]:
    """An open temporary file beside `final` (text, or bytes when `binary`), which replaces `final` in one rename
    when the block ends without an error, after a flush and fsync; removed when it raises. A reader sees the old
    file or the new one whole, never a torn one; with two writers, the last to finish wins."""
    final = Path(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".tmp", dir=final.parent)
    temporary = Path(name)
    try:
        with open(handle, "wb" if binary else "w", encoding=None if binary else encoding) as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, _mode_of(final, 0o644))  # mkstemp makes it private; keep the mode of what it replaces
        os.replace(temporary, final)
        _sync_folder(final.parent)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_text_atomically(final: str | Path, text: str, encoding: str = "utf-8") -> Path:
    """`final.write_text(text)`, but whole or not at all (`writing_file`)."""
    with writing_file(final, encoding=encoding) as file:
        file.write(text)
    return Path(final)


def _host() -> str:
    """This machine's name, reduced to letters, digits and hyphens (it goes into a file name)."""
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:40] or "host"


def _pid_space() -> str:
    """Which pid namespace this process sees (two containers with one host name have different ones): the inode of
    /proc/self/ns/pid, or "0" where there is no such file."""
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        return "0"


def _writer() -> str:
    """Who writes a temporary folder: this machine, its pid namespace and this process."""
    return f"{_host()}-{_pid_space()}-{os.getpid()}"


def _gone(name: str) -> bool:
    """True when a temporary folder's `name` says it was made by a process of this machine and pid namespace that no
    longer runs."""
    found = re.search(r"\.(?P<host>[A-Za-z0-9-]+)-(?P<space>\d+)-(?P<pid>\d+)-[a-z0-9_]*\.partial$", name)
    if found is None or found["host"] != _host() or found["space"] != _pid_space():
        return False  # another machine's or container's writer: its pids are not ours to look up
    try:
        os.kill(int(found["pid"]), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError, ValueError):
        return False  # a running process of another user (or a number that is no pid): not ours to judge
    return False


def _sweep_stale(final: Path) -> None:
    """Remove the temporary folders of killed writers of `final`: those whose process is gone, and any a day old."""
    now = time.time()
    for left in [*final.parent.glob(f".{final.name}.*.partial"), *final.parent.glob(f".{final.name}.*.broken")]:
        try:
            if _gone(left.name) or now - left.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(left, ignore_errors=True)
        except OSError:
            pass


def _sync_tree(folder: Path) -> None:
    """fsync every file under `folder`, then the folders, so a rename publishes contents that are on disk."""
    for root, _dirs, files in os.walk(folder):
        for name in files:
            with open(os.path.join(root, name), "rb") as file:
                os.fsync(file.fileno())
        _sync_folder(Path(root))


def _sync_folder(folder: Path) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass  # some file systems cannot sync a folder; the rename is still atomic
    finally:
        os.close(descriptor)


def _mode_of(path: Path, default: int) -> int:
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        return default


def read_json_once(path: Path | str) -> Any:
    """A committed JSON file, parsed once per version of it (its size and modification time): a page or a card asks
    the same file many questions. OSError or ValueError when it cannot be read. The object is shared between callers:
    read it, never change it.

    >>> import tempfile; folder = Path(tempfile.mkdtemp()); _ = (folder / "r.json").write_text('{"a": 1}')
    >>> read_json_once(folder / "r.json") is read_json_once(folder / "r.json")
    True
    """
    status = Path(path).stat()
    return _parse_json(str(path), status.st_size, status.st_mtime_ns)


@lru_cache(maxsize=16)
def _parse_json(path: str, size: int, mtime_ns: int) -> Any:
    return read_json(path)


def read_json(path: Path | str) -> Any:
    """A JSON file's content, read as UTF-8; OSError or ValueError when it cannot be read, also for JSON nested
    thousands of levels deep (Python's parser raises RecursionError there), so a reader catches those two alone.

    >>> import tempfile; folder = Path(tempfile.mkdtemp()); _ = (folder / "deep.json").write_text("[" * 100_000)
    >>> read_json(folder / "deep.json")
    Traceback (most recent call last):
    ...
    ValueError: ... nests too deeply to be read
    """
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except RecursionError:  # JSON nested thousands of levels deep: a ValueError, as promised
        raise ValueError(f"{path} nests too deeply to be read") from None
