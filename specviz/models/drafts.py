"""The trained drafts that ship with specviz under assets/models/, saved and loaded offline.

- `smollm2-eagle/`: the EAGLE drafter with its FR-Spec draft vocabulary: `"kind": "eagle3"` in specviz.json for the
  EAGLE-3 drafter (fc over three of the target's layers + one decoder layer + its own head), `"eagle"` for the
  EAGLE-1 one (fc + one decoder layer; its LM head is the target's). The token embeddings are the target's, so they
  are not stored.
- `smollm2-medusa/`: Medusa heads (`"kind": "medusa"`): one residual block per head over the target's last hidden
  state, with the same FR-Spec draft vocabulary; the LM head is the target's, so it is not stored.
- `smollm2-draft/`: the separate draft model, a standalone `LlamaForCausalLM` whose first layers and embeddings
  are the target's own. Only its trained part (the adapter layer and final norm) ships; `draft_model` writes the
  complete model into the cache folder once and loads it with `from_pretrained`.

The separate draft's architecture is defined here too (`draft_from_target`, `trainable`): loading it needs to know
which tensors are the target's, and `specviz.distill` trains what this module builds, never the other way round.

Each folder has `specviz.json` (what it is, how it was trained, what it measured) and a model card, README.md.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file
from transformers import AutoConfig, AutoModelForCausalLM, LlamaForCausalLM, PreTrainedModel

from specviz.core.i18n import _, number
from specviz.core.paths import MODELS_DIR as ASSETS
from specviz.core.cache import build_once, damage, file_digest
from specviz.core.paths import DRAFT_NAME, EAGLE_NAME, MEDUSA_NAME, cache_dir, read_json, write_text_atomically
from specviz.engine.kinds import DrafterKind
from specviz.engine.proposers.eagle import EagleDrafter
from specviz.engine.proposers.eagle3 import Eagle3Drafter
from specviz.engine.proposers.medusa import MedusaHeads
from specviz.models.loading import device_map_for

DRAFT_MEGABYTES = 200  # an assembled float32 draft: the target's embeddings and first layers + the trained part


def has_eagle(assets: Path = ASSETS) -> bool:
    return (Path(assets) / EAGLE_NAME / "specviz.json").exists()


def has_medusa(assets: Path = ASSETS) -> bool:
    return (Path(assets) / MEDUSA_NAME / "specviz.json").exists()


def has_draft(assets: Path = ASSETS) -> bool:
    return (Path(assets) / DRAFT_NAME / "specviz.json").exists()


def read_meta(folder: Path, step: str = "all") -> dict:
    """The folder's specviz.json; a missing one is a ValueError naming the `python -m specviz.distill` step that
    trains it (`all` trains the EAGLE-3 drafter and the draft model, not the Medusa heads)."""
    path = Path(folder) / "specviz.json"
    if not path.exists():
        raise ValueError(_("{folder} holds no trained draft (no specviz.json): run `python -m specviz.distill {step}`.",
                           folder=Path(folder).name, step=step))
    try:  # a damaged file (cut short, not JSON, not an object) is one sentence, not a parser's traceback
        meta = read_json(path)
    except (OSError, ValueError):
        meta = None
    if not isinstance(meta, dict):
        raise ValueError(_("The specviz.json in {folder} is damaged (not a JSON object): run `python -m "
                           "specviz.distill {step}` again, or restore the file with git.", folder=Path(folder).name,
                           step=step))
    return meta


def write_meta(folder: Path, meta: dict) -> None:
    """specviz.json, whole or not at all: a write cut short left a file every later load of the draft choked on."""
    write_text_atomically(Path(folder) / "specviz.json", json.dumps(meta, indent=2) + "\n")


def check_target(meta: dict, target: PreTrainedModel, folder: Path) -> None:
    config = target.config
    if meta["hidden_size"] != config.hidden_size or meta["vocab_size"] != config.vocab_size:
        raise ValueError(_("The draft in {folder} was trained for a target with hidden size {hidden} and {vocab} "
                           "tokens; this target has {target_hidden} and {target_vocab}.", folder=Path(folder).name,
                           hidden=number(meta["hidden_size"], 0), vocab=number(meta["vocab_size"], 0),
                           target_hidden=number(config.hidden_size, 0), target_vocab=number(config.vocab_size, 0)))


# ---- the EAGLE-style drafter ----------------------------------------------------------------------------------------


def save_eagle(drafter: EagleDrafter | Eagle3Drafter, vocab: torch.Tensor, assets: Path, training: dict,
               name: str = EAGLE_NAME) -> Path:
    """Write the drafter's tensors (float16) with its draft vocabulary and specviz.json into assets/`name`."""
    folder = Path(assets) / name
    folder.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.detach().to(torch.float16).contiguous() for k, v in drafter.state_dict().items()
               if not k.startswith("rotary.")}
    tensors["draft_vocab"] = vocab.to(torch.int32).contiguous()
    save_file(tensors, str(folder / "model.safetensors"))
    config = drafter.config
    layout = {"aux_layers": list(drafter.aux_layers)} if drafter.kind == DrafterKind.EAGLE3 else {}
    write_meta(folder, {"kind": drafter.kind, "target": "SmolLM2-135M-Instruct", "hidden_size": config.hidden_size,
                        "vocab_size": config.vocab_size, "draft_vocab_size": len(vocab), **layout, **training})
    return folder


def load_eagle(target: PreTrainedModel, folder: Path | None = None
               ) -> tuple[EagleDrafter | Eagle3Drafter, torch.Tensor]:
    """The drafter (on the target's device, in its dtype) and its draft vocabulary; specviz.json's `kind` says
    which of the two layouts the folder holds."""
    folder = Path(folder or ASSETS / EAGLE_NAME)
    meta = read_meta(folder)
    check_target(meta, target, folder)
    tensors = load_file(str(folder / "model.safetensors"))
    vocab = tensors.pop("draft_vocab").long()
    if meta.get("kind") == DrafterKind.EAGLE3:
        drafter = Eagle3Drafter(target.config, tuple(meta["aux_layers"]), len(vocab))
    else:
        drafter = EagleDrafter(target.config)
    missing, unexpected = drafter.load_state_dict({k: v.float() for k, v in tensors.items()}, strict=False)
    if unexpected or [k for k in missing if not k.startswith("rotary.")]:
        raise ValueError(_("{folder}/model.safetensors does not match the EAGLE drafter's layout.",
                           folder=Path(folder).name))
    device = next(target.parameters()).device
    return drafter.cast(device, next(target.parameters()).dtype).eval(), vocab.to(device)


# ---- Medusa heads ---------------------------------------------------------------------------------------------------


def save_medusa(heads: MedusaHeads, vocab: torch.Tensor, assets: Path, training: dict, hidden_size: int,
                vocab_size: int, name: str = MEDUSA_NAME) -> Path:
    """Write the heads' tensors (float16) with their draft vocabulary and specviz.json into assets/`name`."""
    folder = Path(assets) / name
    folder.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.detach().to(torch.float16).contiguous() for k, v in heads.state_dict().items()}
    tensors["draft_vocab"] = vocab.to(torch.int32).contiguous()
    save_file(tensors, str(folder / "model.safetensors"))
    write_meta(folder, {"kind": heads.kind, "target": "SmolLM2-135M-Instruct", "hidden_size": hidden_size,
                        "vocab_size": vocab_size, "draft_vocab_size": len(vocab), "heads": heads.count,
                        "layers": heads.layers, **training})
    return folder


def load_medusa(target: PreTrainedModel, folder: Path | None = None) -> tuple[MedusaHeads, torch.Tensor]:
    """The heads (on the target's device, in its dtype) and their draft vocabulary."""
    folder = Path(folder or ASSETS / MEDUSA_NAME)
    meta = read_meta(folder, "medusa")
    check_target(meta, target, folder)
    tensors = load_file(str(folder / "model.safetensors"))
    vocab = tensors.pop("draft_vocab").long()
    heads = MedusaHeads(meta["hidden_size"], int(meta["heads"]), int(meta.get("layers", 1)))
    missing, unexpected = heads.load_state_dict({k: v.float() for k, v in tensors.items()}, strict=False)
    if missing or unexpected:
        raise ValueError(_("{folder}/model.safetensors does not match the Medusa heads' layout.",
                           folder=Path(folder).name))
    parameter = next(target.parameters())
    return heads.to(parameter.device, parameter.dtype).eval(), vocab.to(parameter.device)


# ---- the separate draft model ---------------------------------------------------------------------------------------
#
# A standalone `LlamaForCausalLM` with `shallow + 1` layers (as Kangaroo does with a shallow sub-network plus an
# adapter): its embeddings and first `shallow` layers are copies of the target's and stay frozen; the adapter layer
# and the final norm are trained (specviz.distill.draft) so that its next-token distribution matches the target's.


def draft_config(target_config, shallow: int):
    """The target's config cut to `shallow + 1` decoder layers."""
    config = copy.deepcopy(target_config)
    config.num_hidden_layers = shallow + 1
    if getattr(config, "layer_types", None):
        config.layer_types = config.layer_types[: shallow + 1]
    return config


def draft_from_target(target: PreTrainedModel, shallow: int) -> LlamaForCausalLM:
    """The untrained draft: the target's embeddings and first `shallow` layers (frozen), and an adapter layer
    (the target's last layer with its output projections zeroed) and final norm, both trainable."""
    draft = LlamaForCausalLM(draft_config(target.config, shallow))
    state = target.state_dict()
    own = {k: v.clone() for k, v in state.items() if not k.startswith("model.layers.") or in_shallow_layers(k, shallow)}
    last = target.config.num_hidden_layers - 1
    own.update({k.replace(f"model.layers.{last}.", f"model.layers.{shallow}."): v.clone()
                for k, v in state.items() if k.startswith(f"model.layers.{last}.")})
    draft.load_state_dict(own, strict=False)
    draft.tie_weights()
    with torch.no_grad():  # the adapter starts as the identity: the untrained draft is a plain early exit
        draft.model.layers[shallow].self_attn.o_proj.weight.zero_()
        draft.model.layers[shallow].mlp.down_proj.weight.zero_()
    for name, p in draft.named_parameters():
        p.requires_grad = trainable(name, shallow)
    return draft


def trainable(name: str, shallow: int) -> bool:
    """Whether the tensor `name` is the draft's own (trained and shipped): the adapter layer or the final norm."""
    return name.startswith(f"model.layers.{shallow}.") or name == "model.norm.weight"


def in_shallow_layers(name: str, shallow: int) -> bool:
    """Whether the tensor `name` belongs to one of the first `shallow` decoder layers (the target's, frozen)."""
    return name.startswith("model.layers.") and int(name.split(".")[2]) < shallow


def save_draft(draft: PreTrainedModel, shallow: int, assets: Path, training: dict) -> Path:
    """config.json (the complete standalone model's), trained.safetensors (adapter layer and final norm) and
    specviz.json (which tensors come from the target)."""
    folder = Path(assets) / DRAFT_NAME
    folder.mkdir(parents=True, exist_ok=True)
    draft.config.save_pretrained(folder)
    tensors = {k: v.detach().to(torch.float16).contiguous() for k, v in draft.state_dict().items() if trainable(k, shallow)}
    save_file(tensors, str(folder / "trained.safetensors"))
    write_meta(folder, {"kind": "draft", "target": "SmolLM2-135M-Instruct", "hidden_size": draft.config.hidden_size,
                        "vocab_size": draft.config.vocab_size, "shallow_layers": shallow,
                        "from_target": ["model.embed_tokens.weight"] + [f"model.layers.{i}.*" for i in range(shallow)]
                        + ([] if draft.config.tie_word_embeddings else ["lm_head.weight"]),
                        **training})
    return folder


def draft_model(target: PreTrainedModel, tokenizer, folder: Path | None = None,
                target_weights: Path | None = None) -> PreTrainedModel:
    """The separate draft model, loaded with `from_pretrained` (in the target's dtype, on its device) from a complete
    folder in the cache that is written the first time: the target's embeddings and first layers + the shipped
    trained tensors.

    The folder is assembled from un-cast weights: the target's own when it is float32, else the float32 tensors in
    `target_weights` (a safetensors folder of the same target, as the default target is converted). Without either,
    it is assembled from the cast weights and its name says so (`...-bfloat16`), so a later float32 run never
    reuses layers rounded to bfloat16. The rotary frequencies are computed by `from_pretrained`, never rounded.
    """
    folder = Path(folder or ASSETS / DRAFT_NAME)
    meta = read_meta(folder)
    check_target(meta, target, folder)
    trained = file_digest(folder / "trained.safetensors")  # the name follows the trained tensors' bytes
    dtype = next(target.parameters()).dtype
    source = _source_weights(target, target_weights)

    def whole(precision: torch.dtype) -> tuple[Path, dict]:
        name = _dtype_name(precision)
        return (cache_dir() / "models" / f"{DRAFT_NAME}-{trained[:16]}-{name}",
                {"trained_sha256": trained, "assembled_from": name})

    complete, stamp = whole(source.dtype)
    if dtype != torch.float32:  # an assembly from float32 weights (by an earlier run) is the better source
        precise, precise_stamp = whole(torch.float32)
        if damage(precise, precise_stamp) is None:
            complete, stamp = precise, precise_stamp
    build_once(complete, lambda temporary: _materialise(source.state, tokenizer, folder, meta, temporary), stamp,
               what=_("the draft model"), megabytes=DRAFT_MEGABYTES)
    device = next(target.parameters()).device
    model = AutoModelForCausalLM.from_pretrained(complete, dtype=dtype, device_map=device_map_for(device))
    return model.to(device).eval()


@dataclass
class _Weights:
    state: dict[str, torch.Tensor]
    dtype: torch.dtype  # the precision the tensors had before any cast back to float32


def _source_weights(target: PreTrainedModel, target_weights: Path | None) -> _Weights:
    """The target's tensors at the best precision available: its own if float32, else `target_weights`' files."""
    dtype = next(target.parameters()).dtype
    if dtype == torch.float32 or target_weights is None or not any(Path(target_weights).glob("*.safetensors")):
        return _Weights(target.state_dict(), dtype)
    state: dict[str, torch.Tensor] = {}
    for path in sorted(Path(target_weights).glob("*.safetensors")):
        state.update(load_file(str(path)))
    return _Weights(state, min((t.dtype for t in state.values() if t.is_floating_point()),
                               key=lambda d: torch.finfo(d).bits, default=torch.float32))


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _materialise(source: dict[str, torch.Tensor], tokenizer, folder: Path, meta: dict, complete: Path) -> None:
    shallow = meta["shallow_layers"]
    config = AutoConfig.from_pretrained(folder)
    shared = {"model.embed_tokens.weight"} | (set() if config.tie_word_embeddings else {"lm_head.weight"})
    state = {k: v.detach().float().cpu() for k, v in source.items() if k in shared or in_shallow_layers(k, shallow)}
    state.update({k: v.float() for k, v in load_file(str(folder / "trained.safetensors")).items()})
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(state, strict=False, assign=True)
    model.tie_weights()
    leftovers = [n for n, t in [*model.named_parameters(), *model.named_buffers()] if t.is_meta]
    for name in leftovers:  # rotary inverse frequencies are buffers computed from the config
        if "rotary_emb" not in name:
            raise ValueError(_("{folder} lacks the tensor {name}; the draft cannot be assembled.",
                               folder=Path(folder).name,
                               name=name))
    if leftovers:
        model.model.rotary_emb = type(model.model.rotary_emb)(config)
    model.save_pretrained(complete)
    if tokenizer is not None:
        tokenizer.save_pretrained(complete)


# ---- what the app shows ----------------------------------------------------------------------------------------------


def shipped_drafts(assets: Path = ASSETS) -> list[dict]:
    """One entry per trained draft folder: its name, specviz.json, model card text and the size of its trained
    weights on disk (MiB): its .safetensors files, the "Trained weights" figure its model card gives (the card and
    specviz.json beside them are not the model)."""
    found = []
    for name in (EAGLE_NAME, MEDUSA_NAME, DRAFT_NAME):
        folder = Path(assets) / name
        if not (folder / "specviz.json").exists():
            continue
        card = folder / "README.md"
        found.append({"name": name, "meta": read_meta(folder), "card": card.read_text() if card.exists() else "",
                      "megabytes": sum(f.stat().st_size for f in folder.glob("*.safetensors")) / 2**20})
    return found
