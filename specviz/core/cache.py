"""Folders specviz builds once and reads many times: the converted default target, the assembled draft model, the
EAGLE drafter exported for vLLM.

Each folder carries a manifest (`specviz-manifest.json`): what it was built from and the size and SHA-256 digest of
every file in it, written before the folder is published (`writing_folder`: whole or not at all). `build_once` checks
a folder against its manifest before handing it out; one that does not match (a truncated, emptied or overwritten
file, a missing or garbled config, a stray file where the folder should be) is moved aside and built again, and the
console says why. What cannot be repaired (a full disk, a cache path that is a file, a folder that cannot be written)
is a `CacheError`: one sentence that says what to do and names no path (a browser visitor may read it); the path and
the cause go to the console.

A file is hashed once per process for a given size, modification time and inode (`file_digest`), so the default
target's weights (538 MB in float32: 134.5 M parameters x 4 bytes) are read whole once per process, not on every
check.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from specviz.core.i18n import _
from specviz.core.paths import writing_folder

__all__ = ["MANIFEST", "CacheError", "build_once", "damage", "file_digest", "write_manifest"]

log = logging.getLogger(__name__)

MANIFEST = "specviz-manifest.json"
FORMAT = 1
NO_SPACE = {errno.ENOSPC, errno.EDQUOT}
TRANSIENT = {errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EAGAIN, errno.EINTR}  # a moment's shortage

_DIGESTS: dict[tuple, str] = {}  # (path, size, mtime_ns, inode, device) -> SHA-256 hex, for this process
_DIGESTS_LOCK = threading.Lock()


class CacheError(ValueError):
    """A cached folder that can be neither used nor rebuilt, explained in one sentence without a path."""


def file_digest(path: str | Path) -> str:
    """The SHA-256 of a file's bytes (hex), computed once per process while its size, mtime and inode stay the same."""
    path = Path(path)
    status = path.stat()
    key = (str(path.resolve()), status.st_size, status.st_mtime_ns, status.st_ino, status.st_dev)
    with _DIGESTS_LOCK:
        known = _DIGESTS.get(key)
    if known is not None:
        return known
    with open(path, "rb") as file:
        digest = hashlib.file_digest(file, "sha256").hexdigest()
    with _DIGESTS_LOCK:
        _DIGESTS[key] = digest
    return digest


def write_manifest(folder: str | Path, source: dict) -> None:
    """Record `source` (what the folder was built from) and every file's size and digest in `folder`'s manifest."""
    folder = Path(folder)
    files = {str(p.relative_to(folder)): {"size": p.stat().st_size, "sha256": file_digest(p)}
             for p in sorted(folder.rglob("*")) if p.is_file() and p.name != MANIFEST}
    (folder / MANIFEST).write_text(json.dumps({"format": FORMAT, "source": source, "files": files}, indent=1,
                                              sort_keys=True))


def damage(folder: str | Path, source: dict) -> str | None:
    """None when `folder` is whole: its manifest was written for `source` and every file it lists is there with the
    recorded size and digest. Otherwise what is wrong, in a few words (for the console, never for a visitor)."""
    folder = Path(folder)
    if not folder.is_dir() or folder.is_symlink():
        return "not a folder"
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError, RecursionError):  # RecursionError: JSON nested thousands of levels deep
        return "no readable manifest"
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or manifest.get("source") != source:
        return "a manifest for something else"
    files = manifest.get("files")
    if not isinstance(files, dict) or not files:
        return "a manifest that lists no files"
    for name, recorded in files.items():
        path = folder / name
        if not isinstance(recorded, dict) or ".." in Path(name).parts or Path(name).is_absolute():
            return "a manifest entry that is not a file of the folder"
        try:
            if not path.is_file():
                return f"{name} is missing"
            if path.stat().st_size != recorded.get("size"):
                return f"{name} has {path.stat().st_size} bytes, not {recorded.get('size')}"
            if file_digest(path) != recorded.get("sha256"):
                return f"{name} does not have the bytes it was written with"
        except OSError as exc:
            if exc.errno in TRANSIENT:
                raise  # out of descriptors or memory for a moment: not the folder's fault, so never removed
            return f"{name} cannot be read ({exc.strerror or type(exc).__name__})"
    return None


def build_once(final: str | Path, build: Callable[[Path], None], source: dict, what: str, megabytes: int) -> Path:
    """`final`, checked against its manifest; built by `build(temporary_folder)` when it is missing, and built again
    when it is damaged (the damaged one is moved aside first). `what` names the folder's contents in the sentences a
    person reads; `megabytes` is about how much space a build needs. Raises CacheError when no whole folder can be
    had."""
    final = Path(final)
    if (final.exists() or final.is_symlink()) and damage(final, source) is None:
        return final  # the common case: whole, no lock taken
    writing: list[Path] = []
    try:
        with exclusive_beside(final):  # one process at a time checks, moves aside and rebuilds; the others wait, then reuse
            if final.exists() or final.is_symlink():
                why = damage(final, source)
                if why is None:
                    return final  # another process rebuilt it while this one waited
                log.warning("specviz: %s, cached at %s, is damaged (%s): moving it aside and building it again",
                            what, final, why)
                _move_aside(final)
            with writing_folder(final, complete=lambda f: damage(f, source) is None) as temporary:
                writing.append(temporary)
                build(temporary)
                write_manifest(temporary, source)
    except Exception as exc:
        if not _write_failure(exc, writing):
            raise  # the build itself failed (an unreadable source): the caller's sentence, not the cache's
        log.error("specviz: could not write %s into the cache at %s: %s", what, final, exc)
        if _errno_of(exc) in NO_SPACE:
            raise CacheError(_("There is not enough free disk space to prepare {what} (about {megabytes} MB are "
                               "needed): free some space, or set SPECVIZ_CACHE to a folder on another disk.",
                               what=what, megabytes=megabytes)) from None
        raise CacheError(_("specviz cannot write {what} into its cache folder: set SPECVIZ_CACHE to a folder you can "
                           "write to.", what=what)) from None
    why = damage(final, source)
    if why is not None:
        log.error("specviz: %s was rebuilt at %s but does not read back whole (%s)", what, final, why)
        raise CacheError(_("specviz rebuilt {what}, but it does not read back whole from the disk: check the disk, or "
                           "set SPECVIZ_CACHE to a folder on another disk.", what=what))
    return final


def _write_failure(exc: BaseException, writing: list[Path]) -> bool:
    """True for an error writing the cache: an OSError about the cache's own files (not a source the build reads),
    or a library's own error that wraps one (safetensors writes from Rust and reports "No space left on device (os
    error 28)" as a SafetensorError)."""
    if isinstance(exc, OSError):
        if exc.errno in NO_SPACE or exc.filename is None or not writing:
            return True  # nothing was being written yet (the cache folder itself cannot be made), or a full disk
        return any(str(exc.filename).startswith(str(folder)) for folder in writing)
    return _errno_of(exc) is not None


def _errno_of(exc: BaseException) -> int | None:
    """The system error number of an OSError, or the one a library quotes as "(os error N)"; None for neither."""
    if isinstance(exc, OSError):
        return exc.errno
    found = re.search(r"\(os error (\d+)\)", str(exc))
    return int(found[1]) if found else None


@contextmanager
def exclusive_beside(final: Path) -> Iterator[None]:
    """Hold an exclusive lock beside `final` (`.NAME.lock`) for as long as the block runs, where the system offers
    one (fcntl): another process (another test worker, another command) waits at the same lock. Elsewhere the block
    runs unlocked; writing_folder still publishes one whole folder."""
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # Windows
        yield
        return
    with open(final.parent / f".{final.name}.lock", "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _move_aside(final: Path) -> None:
    """Rename a damaged `final` out of the way (so no reader picks it up again) and remove it."""
    try:
        aside = Path(tempfile.mkdtemp(prefix=f".{final.name}.", suffix=".broken", dir=final.parent))
        if final.is_dir() and not final.is_symlink():
            os.rename(final, aside)  # onto an empty folder: atomic
        else:
            os.replace(final, aside / final.name)
    except OSError as exc:  # another process moved it first, or the cache cannot be written: the build says which
        log.warning("specviz: could not move %s aside: %s", final, exc)
        if "aside" in locals():
            shutil.rmtree(aside, ignore_errors=True)  # the empty folder made to receive it
        return
    shutil.rmtree(aside, ignore_errors=True)
