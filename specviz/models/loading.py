"""Bringing your own models: local folders or Hugging Face Hub ids, checked before a single weight is loaded.

    target, tokenizer, draft, info = load_models("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-0.5B-Instruct")

The order matters for users with big models and small machines:
  1. parse   each reference is an existing local folder or a valid Hub id;
  2. fetch   config and tokenizer files only (no weights), from the local cache when offline;
  3. check   both are causal LMs and share a vocabulary;
  4. size    parameters × bytes per dtype + KV cache for a context, against free GPU memory / available RAM,
             refused with one sentence that names the numbers instead of crashing half-way through a download;
  5. place   one device, or the target sharded over several GPUs with accelerate's device_map="auto" and the
             draft on the chosen GPU (the fastest unless the device names one); on a GPU the weights load tensor by
             tensor into its memory (device_map), never the whole model in RAM first;
  6. load    weights downloaded with progress reported through a callback, then loaded; before a Hub download
             starts, the Hub's list of the files it would fetch is summed and checked (`check_download`).
Every failure a user can cause is a `ModelLoadError` (a ValueError) with one sentence that says what to do.
Steps 4 and 5 (devices, dtypes, memory, placement) live in `specviz.models.machine`; their names are re-exported here.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import socket
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import torch
from huggingface_hub import HfApi, constants, snapshot_download
from huggingface_hub.errors import (GatedRepoError, HfHubHTTPError, HFValidationError, LocalEntryNotFoundError,
                                    OfflineModeIsEnabled, RepositoryNotFoundError, RevisionNotFoundError)
from huggingface_hub.file_download import repo_folder_name
from huggingface_hub.utils import filter_repo_objects, validate_repo_id
from safetensors import SafetensorError
from tqdm.auto import tqdm
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer
from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

from specviz.core.i18n import N_, _, ngettext, number, percent
from specviz.core.paths import read_json
from specviz.core.text import control_refusal, shortened
from specviz.engine.limits import is_whole
from specviz.models.machine import (DEFAULT_CONTEXT, DTYPES, GpuInfo, Machine, MemoryEstimate, ModelLoadError,
                                    Placement, approx_parameters, check_fits, count_parameters, detect_machine,
                                    dtype_name, estimate_entry, estimate_memory, gb, kv_cache_bytes, pick_device,
                                    pick_dtype, plan_placement)
from specviz.models.bounded import is_panic
from specviz.models.prompts import encode_prompt

__all__ = ["DEFAULT_CONTEXT", "DTYPES", "GpuInfo", "GpuMemoryError", "LoadInfo", "Machine", "MemoryEstimate",
           "ModelLoadError", "ModelRef", "NOT_A_FOLDER", "NotCachedError", "Placement", "RemoteCodeError",
           "check_causal_lm", "check_download", "check_embeddings", "check_fits", "check_same_vocabulary",
           "count_parameters",
           "detect_machine", "device_map_for", "dtype_name", "estimate_entry", "estimate_memory", "explain_hub_error",
           "fetch", "gb", "hub_cache_dir", "hub_load_error", "is_panic", "kv_cache_bytes", "load_models",
           "offline_reason", "parse_ref", "pick_device", "pick_dtype", "plan_placement", "plausible_bytes",
           "progress_bar_class", "read_config"]

Progress = Callable[[str], None]
EXTRA_TAIL = 256  # at most this many extra special tokens at the end of one vocabulary
SMALL_FILES = ["*.json", "*.model", "*.tiktoken", "*.txt", "*.jinja"]
CODE_FILES = ["*.py"]
SKIPPED_FILES = ["original/*", "consolidated*", "onnx/*", "*.gguf"]  # other formats of the same weights
CAUSAL_SUFFIXES = ("ForCausalLM", "LMHeadModel", "ForConditionalGeneration")
MAX_FILES = 200  # files one Hub download may fetch: a bound on the listing, the cache and the requests
SMALL_BYTES = 256 * 2**20  # 256 MiB: configs and tokenizers, fetched before the parameter count is known
WEIGHT_SLACK = 64 * 2**20  # the configs, tokenizer and index files fetched beside the weights
NOT_A_FOLDER = N_("'{name}' is a file, not a model folder: give the folder that holds the model's config.json.")

# ---- references: a local folder or a Hub id ---------------------------------------------------------------------


@dataclass(frozen=True)
class ModelRef:
    """What the user typed, resolved: a local folder (`folder`) or a Hub id (`folder` None until fetched)."""

    text: str
    folder: Path | None = None

    @property
    def is_local(self) -> bool:
        return self.folder is not None

    @property
    def name(self) -> str:
        return Path(self.text.rstrip("/\\")).name or self.text


def parse_ref(text: str, relative_folders: bool = True) -> ModelRef:
    """An existing local model folder, or a syntactically valid Hub id; anything else is one sentence.

    With `relative_folders` off (the web UI, whose working folder is the server's), only an absolute path is read as
    a folder: any other text is a Hub id, whether or not a folder of that name exists here, so nothing about the
    working folder is read or told.

    >>> parse_ref("specviz", relative_folders=False).is_local
    False
    """
    text = str(text).strip()
    if refusal := control_refusal(text):  # a NUL would vanish from "The folder '' does not exist."
        raise ModelLoadError(refusal)
    if not text:
        raise ModelLoadError(_("A model is missing: give a local folder or a Hugging Face id for it."))
    try:  # "~nosuchuser/x" cannot be expanded (RuntimeError); a name past the system's limit cannot be looked up
        path = Path(text).expanduser() if relative_folders else Path(text)
        found = (relative_folders or path.is_absolute()) and path.exists()
        has_config = found and (path / "config.json").is_file()
        is_file = found and not path.is_dir()
    except (OSError, RuntimeError):
        raise ModelLoadError(_("The folder '{name}' does not exist.", name=shortened(text, 200))) from None
    if found:
        if is_file:  # read 55: "--pair ./README.md" was "not a Hugging Face model folder (no config.json there)"
            raise ModelLoadError(_(NOT_A_FOLDER, name=shortened(text, 200)))
        if not has_config:
            raise ModelLoadError(_("'{name}' is not a Hugging Face model folder (no config.json there).",
                                   name=shortened(text, 200)))
        return ModelRef(text, path)
    if text.startswith(("/", ".", "~", "\\")) or ":" in text or text.count("/") > 1:
        raise ModelLoadError(_("The folder '{name}' does not exist.", name=shortened(text, 200)))
    try:
        validate_repo_id(text)
    except HFValidationError:
        raise ModelLoadError(_("'{name}' is neither a local folder nor a Hugging Face model id "
                               "(like Qwen/Qwen2.5-0.5B-Instruct).", name=shortened(text, 200))) from None
    return ModelRef(text)


# ---- the Hub: cache, offline mode, downloads with progress, errors as sentences -----------------------------------


def hub_cache_dir() -> Path:
    """The Hugging Face cache, read from the environment now (HF_HUB_CACHE, else HUGGINGFACE_HUB_CACHE, else HF_HOME's
    or XDG_CACHE_HOME's hub folder), not at import time, with `~` and `$VARIABLES` expanded as huggingface_hub's
    constants expand them (an unexpanded "$SCRATCH/hf" in HF_HOME downloaded into a folder of that literal name)."""
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(var):
            return Path(os.path.expandvars(os.path.expanduser(os.environ[var])))
    home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache",
                                                     "huggingface")
    return Path(os.path.expandvars(os.path.expanduser(home))) / "hub"


def offline_reason() -> str | None:
    """Why the Hub cannot be used now (a phrase), or None when it can."""
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        if os.environ.get(var, "").strip().lower() in ("1", "true", "yes", "on"):
            return _("{variable} is set", variable=var)
    if not hub_reachable():
        return _("the Hugging Face Hub cannot be reached from this machine")
    return None


def hub_reachable(timeout: float = 3.0) -> bool:
    """A quick TCP check, so an unreachable Hub costs seconds, not the Hub client's retries: each address its name
    resolves to gets `timeout` seconds to connect (`socket.create_connection` tries them in turn), and the name
    lookup itself has no deadline."""
    url = urlparse(os.environ.get("HF_ENDPOINT") or constants.ENDPOINT)
    try:
        with socket.create_connection((url.hostname, url.port or 443), timeout=timeout):
            return True
    except OSError:
        return False


def progress_bar_class(progress: Progress, every_seconds: float = 1.0):
    """A tqdm class that reports downloads to `progress` as sentences: a bar's first update, then at most one
    every `every_seconds` (a second), and always the update that completes it, however soon after the last."""
    class ReportingBar(tqdm):
        def __init__(self, *args, **kwargs):
            kwargs["file"] = io.StringIO()
            kwargs.pop("name", None)
            super().__init__(*args, **kwargs)
            self._last_report = float("-inf")  # the first update is reported, whatever the clock reads

        def update(self, n=1):
            result = super().update(n)
            now = time.monotonic()
            if now - self._last_report >= every_seconds or (self.total and self.n >= self.total):
                self._last_report = now
                self._report()
            return result

        def _report(self):
            desc = (self.desc or "").rstrip(": ")
            files = re.fullmatch(r"Fetching (\d+) files?", desc)  # huggingface_hub's own label, in English
            desc = (ngettext("Fetching {n} file", "Fetching {n} files", int(files.group(1))) if files else
                    desc or _("Downloading"))
            if self.unit == "B":
                done = _("{done} of {total}", done=gb(self.n), total=gb(self.total)) if self.total else gb(self.n)
            else:
                count, total = format(self.n, "g"), format(self.total or 0, "g")
                done = _("{done} of {total}", done=count, total=total) if self.total else count
            if self.total:
                progress(_("{what}: {done} ({share})", what=desc, done=done, share=percent(self.n / self.total)))
            else:
                progress(_("{what}: {done}", what=desc, done=done))

    return ReportingBar


def plausible_bytes(params: int) -> int:
    """The most a checkpoint of `params` parameters may download: 1.25 × params × 4 bytes + 64 MiB.

    float32 is the widest dtype a checkpoint stores, 4 bytes a parameter (bfloat16 and float16 take 2), so one copy
    of the weights is at most params x 4 bytes; the 25% covers what the count on the meta device can miss (buffers,
    an untied copy of the embeddings, a vision tower) and 64 MiB the tokenizer, configs and index files fetched with
    them. A float32 copy beside a bfloat16 one (1.5 x params x 4) or a repo three times its config's size does not
    fit; two bfloat16 copies (params x 4) still do: the bound stops a download that would fill a disk, not every
    duplicate.

    >>> plausible_bytes(10**9) // 2**20
    4832
    """
    return int(1.25 * params * 4) + WEIGHT_SLACK


def check_download(repo_id: str, patterns: list[str], max_bytes: int) -> str:
    """The commit that `fetch` will download, after the Hub's list of its files (with sizes) has been filtered with
    the download's own patterns and checked: at most `MAX_FILES` files, at most `max_bytes` bytes, and what is not
    cached yet fits the free space of the cache's disk. Refused in one sentence before a byte of them is fetched."""
    info = HfApi().model_info(repo_id, revision=constants.DEFAULT_REVISION, files_metadata=True)
    files = list(filter_repo_objects(info.siblings or [], allow_patterns=patterns, ignore_patterns=SKIPPED_FILES,
                                     key=lambda sibling: sibling.rfilename))
    if len(files) > MAX_FILES:
        raise ModelLoadError(_("'{name}' would download {count} files, more than the {limit} specviz fetches for "
                               "one model; give a local folder instead.", name=repo_id, count=len(files),
                               limit=MAX_FILES))
    if not info.sha or any(f.size is None for f in files):
        raise ModelLoadError(_("The Hugging Face Hub did not give the sizes of the files of '{name}', so their "
                               "download cannot be checked; try again later.", name=repo_id))
    total = sum(f.size for f in files)
    if total > max_bytes:
        raise ModelLoadError(_("'{name}' would download {size}, more than the {limit} its parameter count makes "
                               "plausible (several copies of the weights?); give a local folder with one copy "
                               "instead.", name=repo_id, size=gb(total), limit=gb(max_bytes)))
    snapshot = hub_cache_dir() / repo_folder_name(repo_id=repo_id, repo_type="model") / "snapshots" / info.sha
    missing = sum(f.size for f in files if not (snapshot / f.rfilename).is_file())
    disk = hub_cache_dir()
    while not disk.exists() and disk != disk.parent:
        disk = disk.parent
    free = shutil.disk_usage(disk).free
    if missing > free:
        raise ModelLoadError(_("'{name}' would download {size}, more than the {free} free on the disk of the "
                               "Hugging Face cache ({cache}); free some space or set HF_HOME.", name=repo_id,
                               size=gb(missing), free=gb(free), cache=hub_cache_dir()))
    return info.sha


def fetch(ref: ModelRef, patterns: list[str], progress: Progress | None = None, max_bytes: int = SMALL_BYTES) -> Path:
    """The local folder holding `patterns` of the model: the folder itself, or a Hub snapshot (downloaded now
    unless offline, else read from the cache). A download is checked first (`check_download`, at most `max_bytes`)
    and then fetches the very commit it checked. When the Hub cannot list the files (no network, an error status),
    the cache is read and nothing downloads, as `snapshot_download` itself does when its own listing fails; if the
    model is not cached, the Hub's answer (gated, unknown, an error status) is the sentence."""
    if ref.is_local:
        return ref.folder
    reason = offline_reason()
    commit, listing_error = None, None
    if reason is None:
        try:
            commit = check_download(ref.text, patterns, max_bytes)
        except ModelLoadError:
            raise
        except Exception as exc:  # the Hub client raises many types; the cache is tried before one is the sentence
            listing_error = exc
    cache_only = reason is not None or listing_error is not None
    kwargs = {"tqdm_class": progress_bar_class(progress)} if progress and not cache_only else {}
    try:
        folder = Path(snapshot_download(ref.text, revision=commit, allow_patterns=patterns,
                                        ignore_patterns=SKIPPED_FILES, cache_dir=hub_cache_dir(),
                                        local_files_only=cache_only, **kwargs))
    except Exception as exc:
        if isinstance(listing_error, HfHubHTTPError):  # the Hub answered: its status says more than "not cached"
            raise ModelLoadError(explain_hub_error(listing_error, ref.text)) from listing_error
        raise hub_load_error(exc, ref.text, reason) from exc
    if commit is not None:
        _remember_main(ref.text, commit)
    return folder


def _remember_main(repo_id: str, commit: str) -> None:
    """Point the cache's refs/main at `commit`, as `snapshot_download` does when it resolves "main" itself, so the
    snapshot is found offline later (a download by commit hash writes no ref)."""
    refs = hub_cache_dir() / repo_folder_name(repo_id=repo_id, repo_type="model") / "refs"
    try:
        refs.mkdir(parents=True, exist_ok=True)
        if not (refs / "main").is_file() or (refs / "main").read_text().strip() != commit:
            (refs / "main.tmp").write_text(commit)
            (refs / "main.tmp").replace(refs / "main")
    except OSError:
        pass  # best effort: the snapshot is there, only the offline lookup by branch would miss it


class RemoteCodeError(ModelLoadError):
    """A model whose config runs its repository's own code while trust-remote-code is off: its `name`, so a caller
    that never turns it on (the Models page) can say so without the command line's flag (read 49)."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


class GpuMemoryError(ModelLoadError):
    """A model that ran out of GPU memory while loading: its `name` and `dtype` (by name), so a caller with a dtype
    menu instead of --dtype (the Models page) can name that (read 49)."""

    def __init__(self, message: str, name: str, dtype: str) -> None:
        super().__init__(message)
        self.name, self.dtype = name, dtype


class NotCachedError(ModelLoadError):
    """A Hub model that is not in the local cache while the Hub cannot be used: its id (`name`) and `why` the Hub
    cannot be used, so a caller that takes no folders (the Models page without SPECVIZ_WEB_MODEL_ROOT) can say it
    without "or give a local folder instead" (read 46)."""

    def __init__(self, message: str, name: str, why: str) -> None:
        super().__init__(message)
        self.name, self.why = name, why


def hub_load_error(exc: BaseException, repo_id: str, offline: str | None = None) -> ModelLoadError:
    """`explain_hub_error`'s sentence as the error to raise: a `NotCachedError` when the model is not cached while
    the Hub cannot be used."""
    message, why = _explain_hub_error(exc, repo_id, offline)
    return ModelLoadError(message) if why is None else NotCachedError(message, repo_id, why)


def explain_hub_error(exc: BaseException, repo_id: str, offline: str | None = None) -> str:
    """One sentence for an exception from huggingface_hub or from transformers' wrapping of it (an OSError
    whose cause is the Hub's exception): gated, unknown, not cached while offline, no network, no permission."""
    return _explain_hub_error(exc, repo_id, offline)[0]


def _explain_hub_error(exc: BaseException, repo_id: str, offline: str | None = None) -> tuple[str, str | None]:
    """`explain_hub_error`'s sentence, and why the Hub cannot be used when the model is not cached (else None)."""
    chain, seen = [], exc
    while seen is not None and len(chain) < 10:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    page = f"https://huggingface.co/{repo_id}"
    for err in chain:
        if isinstance(err, GatedRepoError):
            return _("'{name}' is gated: accept its licence at {page}, then log in with `hf auth login` "
                     "(or set HF_TOKEN) and try again.", name=repo_id, page=page), None
        if isinstance(err, RepositoryNotFoundError):
            return _("There is no model '{name}' on the Hugging Face Hub (or it is private and you are not "
                     "logged in); check the id, e.g. Qwen/Qwen2.5-0.5B-Instruct.", name=repo_id), None
        if isinstance(err, RevisionNotFoundError):
            return _("The requested revision of '{name}' does not exist; see {page} for its branches and tags.",
                     name=repo_id, page=page), None
        if isinstance(err, HFValidationError):
            return _("'{name}' is neither a local folder nor a Hugging Face model id "
                     "(like Qwen/Qwen2.5-0.5B-Instruct).", name=repo_id), None
        if isinstance(err, (LocalEntryNotFoundError, OfflineModeIsEnabled)) or offline:
            why = offline or _("the Hugging Face Hub could not be reached")
            return _("'{name}' is not in the local Hugging Face cache ({cache}) and {why}; download it once with "
                     "network access (`hf download {name}`) or give a local folder instead.", name=repo_id,
                     cache=hub_cache_dir(), why=why), why
        if isinstance(err, HfHubHTTPError):
            status = getattr(getattr(err, "response", None), "status_code", None)
            if status is None:
                return _("The Hugging Face Hub answered an error for '{name}'; try again later.", name=repo_id), None
            return _("The Hugging Face Hub answered {status} for '{name}'; try again later.", status=status,
                     name=repo_id), None
        if isinstance(err, PermissionError):
            return _("Cannot write to the Hugging Face cache at {cache}: check its permissions or set HF_HOME.",
                     cache=hub_cache_dir()), None
    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return _("Loading '{name}' failed: {reason}.", name=repo_id, reason=first_line.rstrip('.')), None


# ---- configs: causal LM or not, parameter count, memory ----------------------------------------------------------


def read_config(folder: Path, name: str, trust_remote_code: bool = False):
    """The model's config, read without weights; a config that cannot be read, a model that is not a causal LM and
    sizes out of bounds are one sentence each (without the server's path to the folder). The sizes are checked in
    config.json's own values first: transformers validates some of them itself (a hidden size of -1 that no head
    count divides) and would answer "Class validation error" instead of naming the size."""
    try:
        raw = read_json(Path(folder) / "config.json")
    except (json.JSONDecodeError, UnicodeDecodeError):  # transformers' own English sentence for it, after
        # "Loading 'x' failed:", read half in English in Portuguese (43rd read)
        raise ModelLoadError(_("'{name}' has a config.json that is not valid JSON text.", name=name)) from None
    except (OSError, ValueError):  # ValueError: nested thousands of levels deep
        raw = _UNREAD  # AutoConfig says what is wrong with it
    if isinstance(raw, dict):
        _check_size_values(raw, name, depth=0)
    try:
        config = AutoConfig.from_pretrained(folder, trust_remote_code=trust_remote_code)
    except OSError as exc:  # a missing or unreadable config.json, or one that is not JSON: named without its path
        raise ModelLoadError(explain_hub_error(exc, name).replace(str(folder), name)) from None
    except Exception as exc:  # noqa: BLE001 - a config.json of the wrong shape makes transformers raise anything
        if isinstance(exc, ValueError) and "trust_remote_code" in str(exc):
            raise RemoteCodeError(_("'{name}' runs its own code from its repository; turn on trust-remote-code for "
                                    "it (--trust-remote-code) only if you trust its authors.", name=name),
                                  name) from None
        raise ModelLoadError(_config_refusal(raw, exc, folder, name)) from None
    check_causal_lm(config, name)
    check_sizes(config, name)
    return config


_UNREAD = object()  # config.json could not be parsed (read_config): AutoConfig's own error explains it


def _config_refusal(raw, exc: BaseException, folder: Path, name: str) -> str:
    """Why AutoConfig refused a config.json, as one sentence. Read 50: every refusal said "a config this version of
    transformers cannot read", true of an unknown model type alone; a config.json that is a number, a list or null,
    or that names no model type, is one that no version reads."""
    if raw is not _UNREAD and not isinstance(raw, dict):
        return _("'{name}' has a config.json that is not a JSON object of settings.", name=name)
    if isinstance(raw, dict) and not raw.get("model_type"):
        return _("'{name}' has a config.json that names no model_type, so transformers cannot tell which model it "
                 "is.", name=name)
    if isinstance(raw, dict) and "does not recognize this architecture" in str(exc):
        return _("'{name}' is a model of type '{kind}', which this version of transformers does not know.",
                 name=name, kind=shortened(str(raw["model_type"])))
    return _("'{name}' has a config this version of transformers cannot read ({reason}).", name=name,
             reason=_reason(exc, folder, name))


def _reason(exc: BaseException, folder: Path, name: str) -> str:
    """The first line of an exception's message, shortened, with the folder's path replaced by the model's name."""
    text = str(exc).strip().splitlines()[0].rstrip(".") if str(exc).strip() else type(exc).__name__
    text = text.replace(str(folder), name)
    return text if len(text) <= 160 else text[:157] + "..."


# The largest sizes a config may name (issue 44 item 3): far beyond any published model (Llama 3.1 405B has 126 layers,
# 128 heads, hidden size 16,384, 128,256 tokens; the largest mixtures have a few hundred experts), yet small enough that
# counting the parameters on the meta device stays well under a second. A size beyond them is refused before anything
# is built.
MAX_LAYERS = 512
SIZE_LIMITS = {"num_hidden_layers": MAX_LAYERS, "num_layers": MAX_LAYERS, "n_layer": MAX_LAYERS,
               "n_layers": MAX_LAYERS, "num_attention_heads": 1024, "num_key_value_heads": 1024, "n_head": 1024,
               "n_heads": 1024, "hidden_size": 65_536, "n_embd": 65_536, "d_model": 65_536, "head_dim": 8_192,
               "intermediate_size": 1_048_576, "moe_intermediate_size": 1_048_576, "n_inner": 1_048_576,
               "ffn_hidden_size": 1_048_576, "vocab_size": 4_194_304, "num_local_experts": 1_024,
               "num_experts": 1_024, "n_routed_experts": 1_024, "n_positions": 1 << 24}
OTHER_SIZE_LIMIT = 1 << 24  # any other size or count: max_position_embeddings, sliding_window, ...
MAX_PARAMETERS = 10**13  # 10 trillion: refused before a meta model of that size is built
MAX_LAYER_MODULES = 65_536  # layers x experts: the modules a meta build would create


def check_sizes(config, name: str) -> None:
    """Raise unless every size in the config (hidden_size, num_hidden_layers, vocab_size, ..., in nested text and
    vision configs too) is a positive whole number no larger than its bound (`SIZE_LIMITS`), and the model they
    describe is small enough to count: a negative size would surface as a tensor error deep inside the model's
    constructor, and `num_hidden_layers: 100000` would keep the meta build busy for minutes.

    >>> from transformers import LlamaConfig
    >>> check_sizes(LlamaConfig(hidden_size=-32), "m")
    Traceback (most recent call last):
    ...
    specviz.models.machine.ModelLoadError: 'm' has a config with hidden_size = -32; sizes must be positive whole numbers.
    """
    _check_size_values(config.to_dict(), name, depth=0)
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    layers = _whole(getattr(text, "num_hidden_layers", 1))  # whatever key the config names it by (attribute_map)
    if layers > MAX_LAYERS:
        raise ModelLoadError(_("'{name}' has a config with {key} = {value}; specviz loads models with {key} up "
                               "to {limit}.", name=name, key="num_hidden_layers", value=layers,
                               limit=number(MAX_LAYERS, 0)))
    experts = max(_whole(getattr(text, key, 1)) for key in ("num_local_experts", "num_experts", "n_routed_experts"))
    if layers * max(experts, 1) > MAX_LAYER_MODULES:
        raise ModelLoadError(_("'{name}' has a config with {layers} layers of {experts} experts each; specviz loads "
                               "models of at most {limit} expert layers.", name=name, layers=number(layers, 0),
                               experts=number(experts, 0), limit=number(MAX_LAYER_MODULES, 0)))
    try:
        estimate = approx_parameters(config)
    except (AttributeError, TypeError, ZeroDivisionError):
        return  # an architecture the formula does not know: its sizes are bounded above
    if estimate > MAX_PARAMETERS:
        raise ModelLoadError(_("'{name}' has a config that describes about {count} trillion parameters; specviz "
                               "loads models of at most {limit} trillion.", name=name,
                               count=number(estimate / 1e12, 1), limit=number(MAX_PARAMETERS / 1e12, 0)))


def _whole(value) -> int:
    return value if is_whole(value) else 1


def _check_size_values(values: dict, name: str, depth: int) -> None:
    for key, value in values.items():
        if not isinstance(key, str):
            continue  # id2label and other maps keyed by number
        if isinstance(value, dict) and depth < 4:  # text_config, vision_config, ...
            _check_size_values(value, name, depth + 1)
            continue
        sized = key.endswith(("_size", "_layers", "_heads", "_embeddings", "_experts")) or key.startswith("num_") or \
            key in SIZE_LIMITS
        if not sized or value is None or isinstance(value, bool) or key in ("num_nextn_predict_layers",):
            continue  # tie_word_embeddings and other switches named like sizes
        if isinstance(value, (list, tuple)) and value and all(isinstance(v, (int, float)) and
                                                              not isinstance(v, bool) for v in value):
            for item in value[:4096]:  # a size per layer (Gemma-3n's intermediate_size): each one bounded
                _check_one_size(name, key, item)
            continue
        if not isinstance(value, (int, float)):
            if key in SIZE_LIMITS:
                raise ModelLoadError(_("'{name}' has a config with {key} = {value}; sizes must be positive whole "
                                       "numbers.", name=name, key=key, value=shortened(str(value))))
            continue  # a list of words, a mapping or a word under a size-like name (layer_types, ...)
        _check_one_size(name, key, value)


def _check_one_size(name: str, key: str, value: int | float) -> None:
    if value <= 0 or (isinstance(value, float) and not value.is_integer()):
        raise ModelLoadError(_("'{name}' has a config with {key} = {value}; sizes must be positive whole "
                               "numbers.", name=name, key=key, value=shortened(str(value))))
    limit = SIZE_LIMITS.get(key, OTHER_SIZE_LIMIT)
    if value > limit:
        raise ModelLoadError(_("'{name}' has a config with {key} = {value}; specviz loads models with {key} up "
                               "to {limit}.", name=name, key=key, value=value, limit=number(limit, 0)))


def damaged(name: str, exc: Exception) -> str:
    """The sentence for weights that fail to load: damaged files, or shapes the config does not describe."""
    return _("'{name}' could not be loaded: its weight files are damaged or do not match its config ({error}).",
             name=name, error=type(exc).__name__)


def check_causal_lm(config, name: str) -> None:
    """Raise unless the config describes a text generator (a causal language model)."""
    archs = getattr(config, "architectures", None) or []
    if isinstance(archs, str):  # a config.json that gives one name instead of a list of names
        archs = [archs]
    archs = [a for a in archs if isinstance(a, str)] if isinstance(archs, (list, tuple)) else []
    remote = "AutoModelForCausalLM" in (getattr(config, "auto_map", None) or {})
    known = config.model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    causal_arch = not archs or any(a.endswith(CAUSAL_SUFFIXES) for a in archs)
    if not (remote or (known and causal_arch)):
        what = archs[0] if archs else _("a {kind} model", kind=config.model_type)
        raise ModelLoadError(_("'{name}' is {what}, not a causal language model, so it can be neither a target nor "
                               "a draft.", name=name, what=what))


# ---- vocabularies ------------------------------------------------------------------------------------------------


def check_same_vocabulary(target_tokenizer, draft_tokenizer) -> None:
    """Raise unless both tokenizers give every shared token the same id and differ at most in a few special (added)
    tokens: a tail one of them has and the other lacks, or reserved slots named differently at the same id."""
    t_vocab, d_vocab = target_tokenizer.get_vocab(), draft_tokenizer.get_vocab()
    if t_vocab == d_vocab:
        return
    advice = _("speculative decoding needs both models to use the same token ids; pick a draft from the target's "
               "family")
    differ = sorted((tok for tok in t_vocab.keys() & d_vocab.keys() if t_vocab[tok] != d_vocab[tok]),
                    key=lambda tok: t_vocab[tok])
    if differ:
        tok = differ[0]
        # one token can differ alone (read 44: "give 1 tokens different ids", "a 1 tokens" in Portuguese)
        raise ModelLoadError(ngettext("The draft and target tokenizers give {n} token different ids ({token} is id "
                                      "{target_id} in the target, {draft_id} in the draft); {advice}.",
                                      "The draft and target tokenizers give {n} tokens different ids (e.g. {token} "
                                      "is id {target_id} in the target, {draft_id} in the draft); {advice}.",
                                      len(differ), token=repr(tok), target_id=t_vocab[tok], draft_id=d_vocab[tok],
                                      advice=advice))
    sides = ((True, t_vocab, d_vocab, _specials(target_tokenizer)),
             (False, d_vocab, t_vocab, _specials(draft_tokenizer)))
    for is_target, vocab, other_vocab, specials in sides:
        extra = sorted(vocab.keys() - other_vocab.keys(), key=vocab.get)
        ordinary = [tok for tok in extra if tok not in specials]
        if ordinary or len(extra) > EXTRA_TAIL:
            tok = (ordinary or extra)[0]
            # one extra token is refused only for being ordinary, and two are not "more than a few" special ones
            values = {"token": repr(tok), "id": vocab[tok], "advice": advice}
            if is_target:
                raise ModelLoadError(ngettext("The target tokenizer has {n} token the draft lacks ({token}, id {id}), "
                                              "and it is not a special token; {advice}.",
                                              "The target tokenizer has {n} tokens the draft lacks (e.g. {token}, id "
                                              "{id}), not just a few special tokens; {advice}.", len(extra), **values))
            raise ModelLoadError(ngettext("The draft tokenizer has {n} token the target lacks ({token}, id {id}), and "
                                          "it is not a special token; {advice}.",
                                          "The draft tokenizer has {n} tokens the target lacks (e.g. {token}, id "
                                          "{id}), not just a few special tokens; {advice}.", len(extra), **values))


def check_embeddings(configs: list, tokenizer, names: list[str]) -> None:
    """Raise unless every id a run can hand a model has a row in its token embeddings (its config's vocab_size):
    each ordinary (not special or added) token of the shared, target's tokenizer in each model, since any text may
    hold one; and, in the draft, every id the target can give it (below both the target's rows and the tokenizer's
    size). A target whose tokenizer has a tail of special tokens that the draft's embeddings lack passes
    `check_same_vocabulary`, and the draft would crash on the first such id. More rows than tokens (padding, as in
    Qwen2.5) are fine, and so is a special token past a model's rows that nothing but its own literal text gives
    (Gemma 3's `<image_soft_token>`)."""
    rows = []
    for config in configs:
        text = config.get_text_config() if hasattr(config, "get_text_config") else config
        value = getattr(text, "vocab_size", None)
        rows.append(value if is_whole(value) else None)
    vocab, specials = tokenizer.get_vocab(), _specials(tokenizer)
    for name, limit in zip(names, rows):
        past = sorted(i for tok, i in vocab.items() if limit is not None and i >= limit and tok not in specials)
        if past:
            raise ModelLoadError(ngettext("'{name}' has {rows} token embeddings (its config's vocab_size), but the "
                                          "tokenizer gives {n} ordinary token the id {first}, so text with it would "
                                          "crash it.",
                                          "'{name}' has {rows} token embeddings (its config's vocab_size), but the "
                                          "tokenizer gives {n} ordinary tokens ids from {first} on, so text with one "
                                          "of them would crash it.", len(past), name=name, rows=number(limit, 0),
                                          first=past[0]))
    if len(rows) == 2 and None not in rows:
        size = max(len(tokenizer), max(vocab.values(), default=-1) + 1)
        given = min(rows[0], size)  # ids the target can emit or the prompt can hold
        if given > rows[1]:
            raise ModelLoadError(_("The draft '{name}' has {rows} token embeddings (its config's vocab_size), but the "
                                   "target can give it ids up to {last}, so the draft would crash on the first "
                                   "one past its rows.", name=names[1], rows=number(rows[1], 0), last=given - 1))


def _specials(tokenizer) -> set[str]:
    """Special tokens and added tokens (chat markers, reserved slots): the ones two family members may differ in."""
    added = getattr(tokenizer, "added_tokens_decoder", {}) or {}
    return set(tokenizer.all_special_tokens) | {str(token) for token in added.values()}


# ---- loading ---------------------------------------------------------------------------------------------------


def _trusted(ref: ModelRef, trust_remote_code: bool | Collection[str]) -> bool:
    if isinstance(trust_remote_code, bool):
        return trust_remote_code
    return ref.text in trust_remote_code


@dataclass
class LoadInfo:
    """What was decided while loading, for the CLI and the app to show. Where the models went is kept once, as
    `plan`: the device and the placement's words are read from it (Read 46: a `placement` text stored beside the
    plan could say another place)."""

    dtype: str
    estimate: MemoryEstimate
    plan: Placement
    folders: list[str] = field(default_factory=list)

    @property
    def device(self) -> str:
        """The target's device, as torch writes it ("cpu", "cuda:0")."""
        return str(self.plan.target_device)

    @property
    def placement(self) -> str:
        """Where the models went, in the current language (the pair cache serves a pair loaded by one visitor, in
        their language, to every later one): "both on cpu", "target sharded over cuda:0, cuda:1; draft on cuda:0"."""
        return self.plan.describe(len(self.estimate.names))


def load_models(
    target: str,
    draft: str | None = None,
    *,
    device: str | torch.device | None = None,
    dtype: str | torch.dtype | None = None,
    progress: Progress | None = None,
    trust_remote_code: bool | Collection[str] = False,
    machine: Machine | None = None,
    context: int = DEFAULT_CONTEXT,
    relative_folders: bool = True,
    pickled_weights: bool = True,
):
    """(target_model, tokenizer, draft_model or None, LoadInfo) from local folders or Hub ids, checked first
    (`relative_folders`: see `parse_ref`). With `pickled_weights` off (the web UI) only *.safetensors weights are
    fetched and loaded, never a pickled *.bin file."""
    say = progress or (lambda _msg: None)
    # 1. parse
    refs = [parse_ref(ref, relative_folders) for ref in (target, draft) if ref is not None]
    # 2. fetch and read each config and tokenizer, right after the line that names it (read 53: both were fetched
    # first, so the line before a refusal of the target named the draft)
    configs, tokenizers = [], []
    for ref in refs:
        say(_("Reading the config and tokenizer of {name}...", name=ref.name))
        trusted = _trusted(ref, trust_remote_code)
        small = fetch(ref, SMALL_FILES + (CODE_FILES if trusted else []), progress)
        configs.append(read_config(small, ref.name, trusted))
        tokenizers.append(_tokenizer(small, ref, trusted))
    # 3. check: causal LMs with one vocabulary
    if len(refs) == 2:
        check_same_vocabulary(tokenizers[0], tokenizers[1])
    check_embeddings(configs, tokenizers[0], [ref.name for ref in refs])  # every id a run hands a model has a row
    # 4. size against the machine
    machine = machine or detect_machine()
    dev = pick_device(device, machine)
    dt = pick_dtype(dev, dtype, machine)
    params = [count_parameters(c, _trusted(r, trust_remote_code)) for c, r in zip(configs, refs)]
    estimate = estimate_memory([r.name for r in refs], params, dt, configs, context)
    # 5. place
    placement = plan_placement(estimate, machine, dev)
    # 6. download weights, then load (the draft first, so the sharded target plans around it)
    folders = [_fetch_weights(ref, progress, trust_remote_code, pickled_weights, plausible_bytes(n))
               for ref, n in zip(refs, params)]
    models = [None, None]
    for i in reversed(range(len(refs))):
        say(_("Loading {name} ({size} in {dtype})...", name=refs[i].name, size=gb(estimate.weights_bytes[i]),
              dtype=dtype_name(dt)))
        models[i] = _load_weights(folders[i], refs[i].name, dt, placement, i == 0,
                                  _trusted(refs[i], trust_remote_code), pickled_weights)
    info = LoadInfo(dtype_name(dt), estimate, placement, [str(f) for f in folders])
    return models[0], tokenizers[0], models[1], info


def _tokenizer(folder: Path, ref: ModelRef, trust: bool):
    """The model's tokenizer, tried once on a short prompt (with its chat template, if it has one) under the deadline
    and memory limit every prompt gets (`specviz.models.prompts`): a template or pattern that cannot work fails
    here, at load, in one sentence."""
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, trust_remote_code=trust)
    except BaseException as exc:  # noqa: BLE001 - a damaged tokenizer.json makes the Rust library raise or panic
        if not (isinstance(exc, Exception) or is_panic(exc)):
            raise
        if not any(any(folder.glob(pattern)) for pattern in VOCABULARY_FILES):
            # no vocabulary at all: one sentence of our own, not transformers' English reason inside a Portuguese
            # one (read 44: "... não pode ser carregado (Couldn't instantiate the backend tokenizer from one of:).")
            raise ModelLoadError(_("'{name}' has no tokenizer: expected a vocabulary file beside its config "
                                   "({files}).", name=ref.name, files=", ".join(VOCABULARY_FILES))) from None
        raise ModelLoadError(_("The tokenizer of '{name}' cannot be loaded ({reason}).", name=ref.name,
                               reason=_reason(exc, folder, ref.name))) from None
    for chat in ([True, False] if getattr(tokenizer, "chat_template", None) else [False]):
        try:
            encode_prompt(tokenizer, PROBE_PROMPT, chat=chat)
        except ValueError as exc:
            raise ModelLoadError(_("'{name}' cannot be used: {reason}", name=ref.name, reason=str(exc))) from None
    return tokenizer


PROBE_PROMPT = "Hello! How are you?"  # what a hand-loaded tokenizer is tried on when it loads
# the files a tokenizer's vocabulary lives in (fast, SentencePiece, BPE, WordPiece, tiktoken): a folder with none of
# them has no tokenizer to load
VOCABULARY_FILES = ("tokenizer.json", "*.model", "vocab.json", "vocab.txt", "*.tiktoken")


def _fetch_weights(ref: ModelRef, progress: Progress | None, trust_remote_code, pickled: bool = True,
                   max_bytes: int = SMALL_BYTES) -> Path:
    code = CODE_FILES if _trusted(ref, trust_remote_code) else []
    folder = fetch(ref, ["*.safetensors", "*.safetensors.index.json"] + SMALL_FILES + code, progress, max_bytes)
    if not pickled and not any(folder.glob("*.safetensors")):
        raise ModelLoadError(_("'{name}' has no *.safetensors weights, and this server loads no pickled *.bin "
                               "weights from the browser.", name=ref.name))
    if not any(folder.glob("*.safetensors")):
        folder = fetch(ref, ["*.bin", "*.bin.index.json"] + SMALL_FILES + code, progress, max_bytes)
    if not any(folder.glob("*.safetensors")) and not any(folder.glob("*.bin")):
        if ref.is_local:
            raise ModelLoadError(_("'{name}' has no weights: expected *.safetensors or *.bin files in its folder.",
                                   name=ref.name))
        raise ModelLoadError(_("'{name}' has no weights in the local Hugging Face cache: expected *.safetensors or "
                               "*.bin files.", name=ref.name))
    return folder


def device_map_for(device: torch.device) -> dict[str, int] | None:
    """`from_pretrained`'s device_map that puts a whole model on one GPU as it loads (None off the GPU).

    >>> device_map_for(torch.device("cuda", 1)), device_map_for(torch.device("cpu"))
    ({'': 1}, None)
    """
    if device.type != "cuda":
        return None
    return {"": device.index if device.index is not None else torch.cuda.current_device()}


def _load_weights(folder: Path, name: str, dtype: torch.dtype, placement: Placement, is_target: bool, trust: bool,
                  pickled: bool = True):
    kwargs: dict = {"dtype": dtype, "trust_remote_code": trust}
    if not pickled:
        kwargs["use_safetensors"] = True  # never a *.bin file beside the safetensors ones
    device = placement.target_device if is_target else placement.draft_device
    if is_target and placement.sharded:
        kwargs.update(device_map="auto", max_memory=placement.max_memory)
    elif device.type == "cuda":  # straight onto the GPU, tensor by tensor: a 7B model never passes through RAM
        kwargs.update(device_map=device_map_for(device))
    try:
        model = AutoModelForCausalLM.from_pretrained(folder, **kwargs)
    except ValueError as exc:
        if "Unrecognized configuration class" in str(exc):
            raise ModelLoadError(_("'{name}' holds a model that is not a causal language model.", name=name)) from None
        raise
    except OSError as exc:
        raise ModelLoadError(explain_hub_error(exc, name)) from None
    except torch.OutOfMemoryError:  # bfloat16 halves a float32 pair; float16 and bfloat16 are the same size
        raise GpuMemoryError(_("'{name}' ran out of GPU memory while loading in float32; try --dtype bfloat16 or a "
                               "smaller pair.", name=name) if dtype == torch.float32 else
                             _("'{name}' ran out of GPU memory while loading in {dtype}; try a smaller pair.",
                               name=name, dtype=dtype_name(dtype)), name, dtype_name(dtype)) from None
    except (RuntimeError, SafetensorError) as exc:  # a truncated weight file, shapes that do not match the config
        raise ModelLoadError(damaged(name, exc)) from None
    if "device_map" not in kwargs:
        model = model.to(device)
    return model.eval()
