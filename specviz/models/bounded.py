"""Code that a model brings with it, run under a deadline and a memory limit: a hand-loaded model's chat template
(Jinja, run in a sandbox that still allows `{% for i in range(100000) %}` nested twice, or `{{ 'x' * 10**9 }}`) and
its tokenizer (a backtracking pre-tokenizer pattern can panic, or take very long).

On Linux, `run_bounded(work, seconds, megabytes)` forks: the child runs `work()` with its address space capped at
what it inherited plus `megabytes` MB (10^6 bytes each, as its refusals say), and sends the result back through a
pipe; the parent waits at most `seconds`, then kills it. The child is a copy of the process at that instant (the
same tokenizer object, the same template cache), so what it computes is what `work()` would compute here: the bound
changes when the work stops, never what it returns. Each call pays for one fork (no figure measured here). Where
there is no fork (Windows, and macOS, whose system libraries do not survive one), `work()` runs here unbounded, and
only a panic is caught.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["BoundedError", "Overrun", "can_bound", "is_panic", "run_bounded"]

T = TypeVar("T")
MAX_RESULT_BYTES = 64 << 20  # what a child may send back (a prompt's token ids are kilobytes)


class BoundedError(Exception):
    """`work()` raised in the child (or panicked): the exception's type name and the first line of its message."""

    def __init__(self, error: str, message: str):
        super().__init__(f"{error}: {message}" if message else error)
        self.error, self.message = error, message


class Overrun(BoundedError):
    """`work()` did not finish within its seconds (`limit` "deadline") or outgrew its memory (`limit` "memory")."""

    def __init__(self, limit: str, message: str = ""):
        super().__init__(f"past its {limit}", message)
        self.limit = limit


def is_panic(exc: BaseException) -> bool:
    """True for a Rust library's panic surfacing in Python: pyo3's PanicException, a BaseException that an
    `except Exception` lets through (the tokenizers library raises one on some patterns and inputs)."""
    return type(exc).__name__ == "PanicException"


def can_bound() -> bool:
    """True where `run_bounded` can enforce its limits (Linux)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def run_bounded(work: Callable[[], T], seconds: float, megabytes: int) -> T:
    """`work()`'s result, computed in a forked child that may run `seconds` and grow by `megabytes`. Overrun when
    it runs out of either; BoundedError with the exception's name when it raises (a BaseException such as a Rust
    panic included). The result must pickle."""
    if not can_bound():
        try:
            return work()
        except BaseException as exc:  # a Rust panic (pyo3's PanicException) passes `except Exception`
            if not is_panic(exc):
                raise
            raise BoundedError(type(exc).__name__, _first_line(exc)) from None
    with _FORKING:  # no other thread's child inherits this pipe's write end (its read would wait for that child)
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError as exc:  # the process limit, or no memory to copy the page tables
            os.close(read)
            os.close(write)
            raise BoundedError("fork", exc.strerror or type(exc).__name__) from None
        if pid == 0:  # the child: never returns
            _child(work, read, write, megabytes, seconds)
        os.close(write)
    try:
        payload = _collect(read, time.monotonic() + seconds)
    except BaseException:  # past the deadline, or the parent interrupted: the child goes too
        _kill(pid)
        raise
    finally:
        os.close(read)
    _, status = os.waitpid(pid, 0)
    if not payload:
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGABRT:  # Rust aborts when memory runs out
            raise Overrun("memory", f"more than {megabytes} MB")
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU:  # the CPU-time backstop
            raise Overrun("deadline", "")
        raise BoundedError("crash", f"the child ended with status {status}")
    outcome = pickle.loads(payload)
    if outcome[0] == "ok":
        return outcome[1]
    if outcome[1] == "MemoryError":
        raise Overrun("memory", f"more than {megabytes} MB")
    raise BoundedError(outcome[1], outcome[2])


_FORKING = threading.Lock()


def _child(work: Callable[[], object], read: int, write: int, megabytes: int, seconds: float) -> None:
    try:
        os.close(read)
        os.closerange(3, write)  # nothing inherited but the pipe to the parent: another call's pipe, sockets, files
        os.closerange(write + 1, _MAX_FD)
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the child with its parent, no traceback twice
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 2)  # a Rust panic prints its backtrace: the parent words the failure instead
        os.close(quiet)
        # one thread: a thread pool of one thread per CPU cannot start under the memory cap on a large machine
        os.environ["TOKENIZERS_PARALLELISM"] = "false"
        os.environ["RAYON_NUM_THREADS"] = "1"
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = _address_space() + megabytes * 10**6  # MB, as the refusals say (not MiB)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)  # never above a limit the operator set (`ulimit -v`): setrlimit would refuse
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # an abort leaves no core the size of the server
        cpu = int(seconds) + 2  # a backstop if the parent cannot kill it: CPU seconds, then SIGXCPU
        cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        used = int(sum(os.times()[:2]))
        if cpu_hard == resource.RLIM_INFINITY or used + cpu < cpu_hard:
            resource.setrlimit(resource.RLIMIT_CPU, (used + cpu, cpu_hard))
        try:
            outcome = ("ok", work())
        except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent as words
            outcome = ("error", type(exc).__name__, _first_line(exc))
        try:
            payload = pickle.dumps(outcome)
        except Exception as exc:  # noqa: BLE001 - a result that does not pickle
            payload = pickle.dumps(("error", type(exc).__name__, _first_line(exc)))
        if len(payload) > MAX_RESULT_BYTES:
            payload = pickle.dumps(("error", "MemoryError", "the result is too large"))
        view = memoryview(payload)
        while view:
            view = view[os.write(write, view):]
    except BaseException:  # noqa: BLE001 - the limits could not be set: the parent reads no payload ("crash")
        pass
    finally:
        os._exit(0)


_MAX_FD = 1 << 20


def _collect(read: int, deadline: float) -> bytes:
    chunks, size = [], 0
    poller = select.poll()  # not select.select: a descriptor above 1023 is fine
    poller.register(read, select.POLLIN | select.POLLHUP | select.POLLERR)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise Overrun("deadline", "")
        if not poller.poll(max(1, int(left * 1000))):
            continue
        chunk = os.read(read, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_RESULT_BYTES:
            raise Overrun("memory", "the result is too large")


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)


def _address_space() -> int:
    """This process's virtual memory size in bytes (VmSize), which RLIMIT_AS caps."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else ""
