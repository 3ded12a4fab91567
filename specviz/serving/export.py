"""The drafts trained here, written in the layouts vLLM loads: the separate draft model and the EAGLE drafter.

    python -m specviz.distill export --format vllm-draft    # a complete LlamaForCausalLM folder
    python -m specviz.distill export --format vllm-eagle    # the EAGLE drafter, in vLLM's EAGLE-3 (or EAGLE-1) layout

Both go to the specviz cache (`$SPECVIZ_CACHE/models/`), built from the shipped tensors in assets/models/ and the
default target's float32 weights; the server points `--speculative-config` at the folder.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["draft_folder", "eagle_folder", "eagle_tensors", "eagle3_tensors", "eagle3_config", "vllm_method"]

EXPORT_VERSION = 3  # in the exported folder's name: a change of layout writes a new folder

Progress = Callable[[str], None]


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def draft_folder(progress: Progress = _say) -> Path:
    """The separate draft model as a complete folder (config, float32 safetensors, tokenizer), assembled once by
    `specviz.models.drafts.draft_model` from the target's first layers and the shipped adapter."""
    from specviz.core.i18n import _
    from specviz.models.drafts import draft_model
    from specviz.models.pairs import default_target_folder, load_default_target

    target, tokenizer = load_default_target(progress)
    model = draft_model(target, tokenizer, target_weights=default_target_folder(progress))
    folder = Path(model.name_or_path)
    if not (folder / "config.json").exists():
        raise ValueError(_("The assembled draft model is not where it should be ({folder}).", folder=folder))
    progress(_("The separate draft model for vLLM: {folder}", folder=folder))
    return folder


# ---- the EAGLE drafter in vLLM's EAGLE-1 layout ----------------------------------------------------------------------
#
# specviz's drafter (specviz.engine.proposers.eagle.EagleDrafter):   x = fc([embed(t); f]) with a bias,
#                                                               out = LlamaDecoderLayer(x)  (input RMSNorm included)
# vLLM 0.32's EAGLE-1 Llama drafter (vllm/model_executor/models/llama_eagle.py):
#   - fc has no bias (line 113: `bias=False`);
#   - layer 0's input_layernorm is replaced by nn.Identity (lines 55-57, after EAGLE's original cnets.py);
#   - it runs num_hidden_layers layers, passing (hidden, residual) between them, and returns hidden + residual;
#   - its embed_tokens are its own when the checkpoint has them (and differ from the target's), else shared;
#   - it has no draft-vocabulary mapping (that is EAGLE-3's d2t/t2d): without an lm_head it reads the target's.
# The same function in that layout, exactly (up to rounding):
#   - the bias goes into the drafter's own embeddings: fc_e · (embed + u) = fc_e · embed + b with u = fc_e⁻¹ b;
#   - layer 0 is a pass-through (o_proj and down_proj zero: it returns (0, x)), so layer 1 (specviz's layer) gets
#     residual = x and applies its own input RMSNorm, as in specviz;
#   - the head is the target's full head (the FR-Spec draft vocabulary is dropped: q may now put mass on tokens the
#     reduced head never proposes, which can only change which token is drafted, not the verifier's exactness).


def eagle_tensors(drafter: dict, target_embed, dtype=None) -> dict:
    """The vLLM checkpoint's tensors from specviz's (`fc.*`, `layer.*`) and the target's embeddings (V, H)."""
    import torch

    weight, bias = drafter["fc.weight"].double(), drafter["fc.bias"].double()
    hidden = weight.shape[0]
    shift = torch.linalg.solve(weight[:, :hidden], bias)  # (H,): fc_e · shift = b
    out = {"fc.weight": weight, "embed_tokens.weight": target_embed.double() + shift}
    for name, tensor in drafter.items():
        if name.startswith("layer."):
            out["layers.1." + name.removeprefix("layer.")] = tensor.double()
            zero = name.endswith(("o_proj.weight", "down_proj.weight"))
            if "input_layernorm" not in name:  # vLLM's first layer has none (an nn.Identity, no weight)
                out["layers.0." + name.removeprefix("layer.")] = torch.zeros_like(tensor.double()) if zero else \
                    tensor.double()
    dtype = dtype or torch.float32
    return {k: v.to(dtype).contiguous() for k, v in out.items()}


# ---- the EAGLE-3 drafter in vLLM's EAGLE-3 layout --------------------------------------------------------------------
#
# specviz.engine.proposers.eagle3.Eagle3Drafter is written in vLLM 0.32's layout (vllm/model_executor/models/
# llama_eagle3.py): `fc` (no bias) over the three layers side by side, `midlayer` (loaded as layers.0: hidden_norm,
# input_layernorm, self_attn with q/k/v 2H wide, post_attention_layernorm, mlp), `norm`, `lm_head` over the draft
# vocabulary. The draft vocabulary becomes vLLM's `d2t` (target id = draft id + d2t[draft id]) and `t2d` (which target
# ids the head covers; vLLM skips it, other readers use it). The embeddings are the target's (shared when absent).

def eagle3_tensors(drafter: dict, vocab, dtype=None) -> dict:
    """vLLM's EAGLE-3 checkpoint tensors from specviz's (`fc.*`, `midlayer.*`, `norm.*`, `lm_head.*`) and the draft
    vocabulary (N,) of target ids."""
    import torch

    vocab = vocab.to(torch.long)
    dtype = dtype or torch.float32
    out = {k: v.to(dtype).contiguous() for k, v in drafter.items()
           if k.split(".")[0] in ("fc", "midlayer", "norm", "lm_head")}
    out["d2t"] = (vocab - torch.arange(len(vocab))).contiguous()
    t2d = torch.zeros(int(vocab.max()) + 1, dtype=torch.bool)
    t2d[vocab] = True
    out["t2d"] = t2d
    return out


def eagle3_config(target_config: dict, meta: dict) -> dict:
    """The drafter's config.json: the target's widths and rope, one layer, the draft vocabulary, the three layers."""
    config = dict(target_config)
    config.update(num_hidden_layers=1, architectures=["LlamaForCausalLMEagle3"], torch_dtype="float32",
                  draft_vocab_size=meta["draft_vocab_size"], target_hidden_size=config["hidden_size"],
                  tie_word_embeddings=False,
                  eagle_config={"eagle_aux_hidden_state_layer_ids": list(meta["aux_layers"]),
                                "use_aux_hidden_state": True})
    if config.get("layer_types"):
        config["layer_types"] = config["layer_types"][:1]
    return config


def vllm_method() -> str:
    """vLLM's speculative method for the shipped drafter: "eagle3" or "eagle" (EAGLE-1)."""
    from specviz.core.paths import MODELS_DIR
    from specviz.models.drafts import EAGLE_NAME, read_meta

    from specviz.engine.kinds import DrafterKind

    return "eagle3" if read_meta(MODELS_DIR / EAGLE_NAME).get("kind") == DrafterKind.EAGLE3 else "eagle"


# The space an export of the shipped SmolLM2-135M drafters needs, in MB (10^6 bytes): the EAGLE-3 layout wrote
# 42.9 MB, the target's tokenizer and configs (3.5 MB) included (its draft vocabulary's head is small); the EAGLE-1
# layout copies the target's embeddings (49,152 x 576) and two layers in float32, 36,054,720 parameters x 4 bytes =
# 144.2 MB, 147.7 MB with the tokenizer. tests/serving/test_serving_export.py computes both layouts' bytes and
# checks each figure here is at least that and at most 1.5 times it.
EXPORT_MEGABYTES = {"eagle3": 60, "eagle": 150}


def eagle_folder(progress: Progress = _say) -> Path:
    """The shipped EAGLE drafter as a vLLM checkpoint folder (config.json, model.safetensors, tokenizer): vLLM's
    EAGLE-3 layout for an EAGLE-3 drafter, its EAGLE-1 layout for the EAGLE-1 one."""
    import hashlib
    import shutil

    from safetensors.torch import load_file, save_file

    from specviz.core.cache import build_once, file_digest
    from specviz.core.i18n import _
    from specviz.core.paths import MODELS_DIR, cache_dir
    from specviz.engine.kinds import DrafterKind
    from specviz.models.drafts import EAGLE_NAME, read_meta
    from specviz.models.pairs import default_target_folder

    source = MODELS_DIR / EAGLE_NAME
    meta = read_meta(source)
    weights = source / "model.safetensors"
    target = default_target_folder(progress)
    stamp = {"eagle_sha256": file_digest(weights), "target": target.name, "export": EXPORT_VERSION}
    named = hashlib.sha256(json.dumps(stamp, sort_keys=True).encode()).hexdigest()[:16]  # everything it is built from
    folder = cache_dir() / "models" / f"{EAGLE_NAME}-vllm{EXPORT_VERSION}-{named}"

    def export(tmp: Path) -> None:
        progress(_("Exporting the EAGLE drafter for vLLM to {folder} ...", folder=folder))
        shipped = load_file(str(weights))
        vocab = shipped.pop("draft_vocab")
        target_config = json.loads((target / "config.json").read_text())
        if meta.get("kind") == DrafterKind.EAGLE3:
            tensors = eagle3_tensors(shipped, vocab)
            config = eagle3_config(target_config, meta)
        else:
            target_state = load_file(str(target / "model.safetensors"))
            tensors = eagle_tensors(shipped, target_state["model.embed_tokens.weight"])
            config = {**target_config, "num_hidden_layers": 2, "architectures": ["LlamaForCausalLM"],
                      "torch_dtype": "float32"}
            if config.get("layer_types"):
                config["layer_types"] = config["layer_types"][:2]
        save_file(tensors, str(tmp / "model.safetensors"))
        (tmp / "config.json").write_text(json.dumps(config, indent=2) + "\n")
        for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "generation_config.json"):
            if (target / name).exists():
                shutil.copy(target / name, tmp / name)

    megabytes = EXPORT_MEGABYTES["eagle3" if meta.get("kind") == DrafterKind.EAGLE3 else "eagle"]
    build_once(folder, export, stamp, what=_("the EAGLE drafter for vLLM"), megabytes=megabytes)
    return folder
