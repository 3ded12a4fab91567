"""A Hub download is summed and checked before a byte of it is fetched (`specviz.models.loading.check_download`).

No test here reaches the network: the Hub's file listing (`HfApi.model_info`) and `snapshot_download` are fakes
shaped like huggingface_hub's answers, `hub_reachable` says yes without a socket, and any name lookup that is not
loopback fails the test.
"""

from __future__ import annotations

import re
import shutil
import socket
from pathlib import Path

import pytest
from huggingface_hub import HfApi, snapshot_download
from huggingface_hub.hf_api import RepoSibling
from huggingface_hub.utils import filter_repo_objects
from tiny_folders import cache_as_hub, save_toy_pair
from transformers import AutoConfig

from specviz.models import loading
from specviz.models.loading import (MAX_FILES, Machine, ModelLoadError, ModelRef, count_parameters, fetch,
                                    plausible_bytes)

CPU_ONLY = Machine(ram_available_bytes=24 * 10**9)
SHA = "89abcdef0123456789abcdef0123456789abcdef"
REPO = "someone/toy-model"


class FakeHub:
    """One repo: `files` maps each path to its size; `source` holds the bytes of the paths that exist locally."""

    def __init__(self, files: dict[str, int], source: Path | None = None):
        self.files, self.source = files, source
        self.listed, self.downloads = [], []

    def model_info(self, repo_id, *, revision=None, files_metadata=False, **kwargs):
        assert files_metadata, "the sizes are asked for"
        self.listed.append((repo_id, revision))
        siblings = [RepoSibling(rfilename=path, size=size) for path, size in self.files.items()]
        return type("ModelInfo", (), {"id": repo_id, "sha": SHA, "siblings": siblings})()

    def snapshot_download(self, repo_id, *, revision=None, allow_patterns=None, ignore_patterns=None, cache_dir=None,
                          local_files_only=False, **kwargs):
        assert not local_files_only and revision == SHA, "the download fetches the very commit that was checked"
        paths = list(filter_repo_objects(self.files, allow_patterns=allow_patterns, ignore_patterns=ignore_patterns))
        self.downloads.append(paths)
        folder = Path(cache_dir) / f"models--{repo_id.replace('/', '--')}" / "snapshots" / revision
        for path in paths:
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            if self.source is not None and (self.source / path).is_file():
                shutil.copyfile(self.source / path, folder / path)
            else:
                (folder / path).write_bytes(b"")
        return str(folder)


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """Online, with a fresh cache under tmp_path; install a FakeHub with `hub(files, source)`."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setattr(loading, "hub_reachable", lambda timeout=3.0: True)
    real_lookup = socket.getaddrinfo

    def loopback_only(host, *args, **kwargs):
        assert host in ("localhost", "127.0.0.1", "::1", None), f"a test looked up {host}"
        return real_lookup(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", loopback_only)

    def install(files: dict[str, int], source: Path | None = None) -> FakeHub:
        fake = FakeHub(files, source)
        monkeypatch.setattr(HfApi, "model_info", fake.model_info)
        monkeypatch.setattr(loading, "snapshot_download", fake.snapshot_download)
        return fake

    return install


def listing(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_size for p in folder.rglob("*") if p.is_file()}


def toy_params(folder: Path) -> int:
    return count_parameters(AutoConfig.from_pretrained(folder))


def test_a_plausible_repo_loads_and_downloads_only_what_was_summed(tmp_path, hub):
    target, _ = save_toy_pair(tmp_path)
    files = listing(target)
    assert "model.safetensors" in files
    extra = {"consolidated.safetensors": 10**12, "onnx/model.onnx": 10**12, "original/model.pth": 10**12}
    fake = hub({**files, **extra}, target)
    _, _, _, info = loading.load_models(REPO, machine=CPU_ONLY, device="cpu")
    assert fake.listed == [(REPO, "main"), (REPO, "main")]  # the config fetch, then the weights, each checked
    downloaded = set(fake.downloads[0]) | set(fake.downloads[1])
    assert downloaded == set(files) and "model.safetensors" in fake.downloads[1]  # never the other copies
    assert (tmp_path / "hf" / "hub" / "models--someone--toy-model" / "refs" / "main").read_text() == SHA
    assert info.folders[0].endswith(SHA)


def test_a_repo_three_times_the_plausible_size_is_refused_before_the_weights_download(tmp_path, hub):
    target, _ = save_toy_pair(tmp_path)
    files = listing(target)
    bound = plausible_bytes(toy_params(target))
    files["model.safetensors"] = 3 * bound - sum(size for path, size in files.items() if path != "model.safetensors")
    fake = hub(files, target)
    with pytest.raises(ModelLoadError) as err:
        loading.load_models(REPO, machine=CPU_ONLY, device="cpu")
    message = str(err.value)
    assert message.startswith(f"'{REPO}' would download ") and "its parameter count makes plausible" in message
    assert "\n" not in message and message.endswith(".")
    assert len(fake.downloads) == 1 and "model.safetensors" not in fake.downloads[0]  # only the config fetch ran


def test_the_bound_allows_one_float32_copy_and_refuses_a_float32_beside_a_bfloat16_copy(hub):
    params = 10**9
    one_copy = {"config.json": 700, "model-00001-of-00002.safetensors": 2 * params, "model-00002-of-00002.safetensors":
                2 * params, "model.safetensors.index.json": 30_000}
    fake = hub(one_copy)
    fetch(ModelRef(REPO), ["*.safetensors", "*.safetensors.index.json", "*.json"], max_bytes=plausible_bytes(params))
    assert sorted(fake.downloads[0]) == sorted(one_copy)
    fake = hub({**one_copy, "bf16/model.safetensors": 2 * params})  # 6 bytes a parameter in all
    with pytest.raises(ModelLoadError, match="its parameter count makes plausible"):
        fetch(ModelRef(REPO), ["*.safetensors", "*.json"], max_bytes=plausible_bytes(params))
    assert fake.downloads == []


def test_too_many_files_are_refused_before_any_download(hub):
    fake = hub({f"model-{i:05d}-of-{MAX_FILES + 1:05d}.safetensors": 1 for i in range(MAX_FILES + 1)})
    with pytest.raises(ModelLoadError, match=rf"would download {MAX_FILES + 1} files, more than the {MAX_FILES}"):
        fetch(ModelRef(REPO), ["*.safetensors"], max_bytes=plausible_bytes(10**9))
    assert fake.downloads == []


def test_a_download_larger_than_the_free_disk_is_refused_but_a_cached_one_is_not(tmp_path, hub, monkeypatch):
    fake = hub({"config.json": 700, "model.safetensors": 10**9})
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(loading.shutil, "disk_usage", lambda path: usage._replace(free=10**8))
    with pytest.raises(ModelLoadError, match=r"free on the disk of the Hugging Face cache"):
        fetch(ModelRef(REPO), ["*.safetensors", "*.json"], max_bytes=plausible_bytes(10**9))
    assert fake.downloads == []
    snapshot = tmp_path / "hf" / "hub" / "models--someone--toy-model" / "snapshots" / SHA
    snapshot.mkdir(parents=True)
    (snapshot / "model.safetensors").write_bytes(b"cached")  # already there: snapshot_download will not fetch it
    fetch(ModelRef(REPO), ["*.safetensors", "*.json"], max_bytes=plausible_bytes(10**9))
    assert len(fake.downloads) == 1


def test_local_folders_and_offline_mode_never_ask_the_hub(tmp_path, hub, monkeypatch):
    target, _ = save_toy_pair(tmp_path)
    hub({})

    def no_listing(*args, **kwargs):
        raise AssertionError("the Hub was asked for a file listing")

    monkeypatch.setattr(HfApi, "model_info", no_listing)
    assert loading.load_models(str(target), machine=CPU_ONLY, device="cpu")[0] is not None
    cache_as_hub(target, tmp_path / "hf", REPO)
    monkeypatch.setattr(loading, "snapshot_download", snapshot_download)  # the real one, reading the cache only
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _, _, _, info = loading.load_models(REPO, machine=CPU_ONLY, device="cpu")
    assert Path(info.folders[0]).parent.parent.name == "models--someone--toy-model"


def test_docs_state_the_bounds_the_code_applies():
    """docs/models.md names the bounds of a Hub download; they must be the ones `check_download` is given."""
    text = " ".join((Path(__file__).parents[2] / "docs" / "models.md").read_text(encoding="utf-8").split())
    assert f"at most {MAX_FILES} files" in text and "1.25 × parameters × 4 bytes + 64 MiB" in text
    assert "parameters × bytes per dtype + a 2,048-token KV cache" in text  # the app's ×, never an ASCII x
    assert not re.search(r"\w x \w", text), "a product written with an ASCII x"
    assert plausible_bytes(0) == loading.WEIGHT_SLACK == 64 * 2**20 and plausible_bytes(4) == 20 + 64 * 2**20
    assert f"{loading.SMALL_BYTES // 2**20} MiB for the configs and tokenizer" in text


def test_when_the_hub_cannot_list_the_files_the_cache_is_read_and_nothing_downloads(tmp_path, hub, monkeypatch):
    """As snapshot_download itself does when its listing fails: a cached model still loads; an uncached one is the
    Hub's answer in one sentence."""
    import httpx2 as httpx  # the HTTP client huggingface_hub 2.x builds its errors on
    from huggingface_hub.errors import HfHubHTTPError

    request = httpx.Request("GET", "https://huggingface.co/api/models/someone/toy-model")
    errors = [HfHubHTTPError("500", response=httpx.Response(500, request=request)),
              httpx.ConnectError("no route to host", request=request)]

    def failing_listing(*args, **kwargs):
        raise errors[0]

    hub({})
    monkeypatch.setattr(HfApi, "model_info", failing_listing)
    calls = []
    monkeypatch.setattr(loading, "snapshot_download", lambda *a, **k: calls.append(k) or snapshot_download(*a, **k))
    with pytest.raises(ModelLoadError, match=r"^The Hugging Face Hub answered 500 for 'someone/toy-model'; try again"):
        fetch(ModelRef(REPO), ["*.json"])
    errors.pop(0)
    with pytest.raises(ModelLoadError, match=r"is not in the local Hugging Face cache .* could not be reached"):
        fetch(ModelRef(REPO), ["*.json"])
    target, _ = save_toy_pair(tmp_path)
    cache_as_hub(target, tmp_path / "hf", REPO)
    assert (fetch(ModelRef(REPO), ["*.json"]) / "config.json").is_file()
    assert len(calls) == 3 and all(call["local_files_only"] for call in calls)
