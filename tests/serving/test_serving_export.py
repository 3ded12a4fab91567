"""The EAGLE drafter's export to vLLM's EAGLE-1 layout computes the same function as specviz's drafter.

vLLM 0.32's `EagleLlamaForCausalLM` (vllm/model_executor/models/llama_eagle.py) has no fc bias and no input
RMSNorm on its first layer; the export folds the bias into the drafter's own embeddings and puts specviz's layer
second, behind a pass-through first layer. The reference below is that forward written with transformers' Llama
layer (vLLM's fused residual adds give the same sums), in float64 on a tiny random config."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRotaryEmbedding

from specviz.engine.proposers.eagle import EagleDrafter, causal_mask
from specviz.serving.export import eagle_tensors


def _tiny() -> LlamaConfig:
    return LlamaConfig(vocab_size=50, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                       num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)


def _vllm_eagle1(tensors: dict, config: LlamaConfig, tokens, features, positions, mask) -> torch.Tensor:
    """vLLM's EAGLE-1 Llama drafter: fc without bias over [embed; feature], layer 0 without input norm, layer 1."""
    layer_config = LlamaConfig(**{**config.to_dict(), "num_hidden_layers": 1})
    layer_config._attn_implementation = "sdpa"
    x = torch.cat([tensors["embed_tokens.weight"][tokens], features], dim=-1) @ tensors["fc.weight"].T
    rotary = LlamaRotaryEmbedding(layer_config).double()
    for i in (0, 1):
        layer = LlamaDecoderLayer(layer_config, layer_idx=0).double()
        if i == 0:
            layer.input_layernorm = nn.Identity()
        layer.load_state_dict({k.removeprefix(f"layers.{i}."): v for k, v in tensors.items()
                               if k.startswith(f"layers.{i}.")})  # strict: the export has exactly vLLM's tensors
        x = layer(x, attention_mask=mask, position_ids=positions, position_embeddings=rotary(x, positions))
        x = x[0] if isinstance(x, tuple) else x
    return x


def test_the_vllm_layout_computes_specviz_drafter():
    torch.manual_seed(0)
    config = _tiny()
    drafter = EagleDrafter(config).double()
    with torch.no_grad():
        for p in drafter.parameters():
            p.normal_(0, 0.3)  # every weight, the bias and the norms included, far from their initial values
    embed = torch.randn(config.vocab_size, config.hidden_size, dtype=torch.float64)
    state = {k: v for k, v in drafter.state_dict().items() if not k.startswith("rotary.")}
    tensors = eagle_tensors(state, embed, dtype=torch.float64)
    assert "fc.bias" not in tensors and tensors["fc.weight"].shape == (32, 64)
    assert not tensors["layers.0.self_attn.o_proj.weight"].any() and not tensors["layers.0.mlp.down_proj.weight"].any()

    tokens = torch.randint(0, config.vocab_size, (1, 6))
    features = torch.randn(1, 6, config.hidden_size, dtype=torch.float64)
    positions = torch.arange(6)[None]
    mask = causal_mask(6, 0)
    with torch.no_grad():
        ours = drafter(features, embed[tokens], positions, mask)
        ours = ours[0] if isinstance(ours, tuple) else ours
        theirs = _vllm_eagle1(tensors, config, tokens, features, positions, mask)
    torch.testing.assert_close(theirs, ours, rtol=1e-9, atol=1e-9)


def test_without_the_fold_the_layouts_differ():
    """The check has teeth: dropping the bias (what loading specviz's tensors as they are would do) changes it."""
    torch.manual_seed(1)
    config = _tiny()
    drafter = EagleDrafter(config).double()
    with torch.no_grad():
        for p in drafter.parameters():
            p.normal_(0, 0.3)
    embed = torch.randn(config.vocab_size, config.hidden_size, dtype=torch.float64)
    state = {k: v for k, v in drafter.state_dict().items() if not k.startswith("rotary.")}
    tensors = eagle_tensors(state, embed, dtype=torch.float64)
    tensors["embed_tokens.weight"] = embed  # no fold
    tokens, features = torch.randint(0, 50, (1, 4)), torch.randn(1, 4, 32, dtype=torch.float64)
    positions, mask = torch.arange(4)[None], causal_mask(4, 0)
    with torch.no_grad():
        ours = drafter(features, embed[tokens], positions, mask)
        ours = ours[0] if isinstance(ours, tuple) else ours
        theirs = _vllm_eagle1(tensors, config, tokens, features, positions, mask)
    assert (theirs - ours).abs().max() > 1e-3


# ---- EAGLE-3: specviz's drafter is written in vLLM's layout; the export only adds d2t / t2d and the config --------

def _vllm_eagle3(tensors: dict, config: LlamaConfig, tokens, embed, aux, positions, mask, vocab_size: int):
    """vLLM 0.32's `Eagle3LlamaForCausalLM` (llama_eagle3.py), written out: g = fc(aux); residual = g;
    x = [input_layernorm(embed); hidden_norm(g)]; attention over x (q, k, v 2H wide); fused add + norm; MLP;
    the final norm's fused add; logits = lm_head(norm) scattered to the target's ids by d2t."""
    from transformers.models.llama.modeling_llama import LlamaAttention, LlamaMLP, LlamaRMSNorm

    hidden = config.hidden_size
    cfg = LlamaConfig(**{**config.to_dict(), "num_hidden_layers": 1})
    cfg._attn_implementation = "sdpa"

    def norm(name):
        n = LlamaRMSNorm(hidden, eps=cfg.rms_norm_eps).double()
        n.weight.data = tensors[name]
        return n

    attn = LlamaAttention(cfg, layer_idx=0).double()
    for proj in ("q_proj", "k_proj", "v_proj", "o_proj"):
        getattr(attn, proj).weight = nn.Parameter(tensors[f"midlayer.self_attn.{proj}.weight"])
    mlp = LlamaMLP(cfg).double()
    for proj in ("gate_proj", "up_proj", "down_proj"):
        getattr(mlp, proj).weight = nn.Parameter(tensors[f"midlayer.mlp.{proj}.weight"])
    rotary = LlamaRotaryEmbedding(cfg).double()
    g = aux @ tensors["fc.weight"].T
    residual = g
    x = torch.cat([norm("midlayer.input_layernorm.weight")(embed[tokens]), norm("midlayer.hidden_norm.weight")(g)], -1)
    a, _ = attn(x, position_embeddings=rotary(x, positions), attention_mask=mask)
    residual = a + residual
    h = mlp(norm("midlayer.post_attention_layernorm.weight")(residual))
    prenorm = h + residual
    small = norm("norm.weight")(prenorm) @ tensors["lm_head.weight"].T
    draft_ids = torch.arange(small.shape[-1])
    full = small.new_full((*small.shape[:-1], vocab_size), float("-inf"))
    full[..., draft_ids + tensors["d2t"]] = small
    return prenorm, full


def test_the_vllm_eagle3_layout_computes_specviz_drafter():
    from specviz.engine.proposers.eagle3 import Eagle3Drafter, Eagle3Head
    from specviz.serving.export import eagle3_config, eagle3_tensors

    torch.manual_seed(2)
    config = _tiny()
    vocab = torch.tensor([7, 3, 11, 0, 42, 5])  # draft id -> target id
    drafter = Eagle3Drafter(config, (1, 1, 1), len(vocab)).double()
    with torch.no_grad():
        for p in drafter.parameters():
            p.normal_(0, 0.3)
    state = {k: v for k, v in drafter.state_dict().items() if not k.startswith("rotary.")}
    tensors = eagle3_tensors(state, vocab, dtype=torch.float64)
    assert set(tensors) >= {"fc.weight", "midlayer.hidden_norm.weight", "norm.weight", "lm_head.weight", "d2t", "t2d"}
    assert tensors["midlayer.self_attn.q_proj.weight"].shape == (32, 64)  # reads [embedding; state]
    assert tensors["t2d"].nonzero().flatten().tolist() == sorted(vocab.tolist())
    embed = torch.randn(config.vocab_size, config.hidden_size, dtype=torch.float64)
    tokens, aux = torch.randint(0, 50, (1, 5)), torch.randn(1, 5, 3 * 32, dtype=torch.float64)
    positions, mask = torch.arange(5)[None], causal_mask(5, 0)
    with torch.no_grad():
        ours = drafter(drafter.read_target(aux), embed[tokens], positions, mask)
        our_logits = Eagle3Head(drafter, vocab, config.vocab_size).logits(ours)
        theirs, their_logits = _vllm_eagle3(tensors, config, tokens, embed, aux, positions, mask, config.vocab_size)
    torch.testing.assert_close(theirs, ours, rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(their_logits, our_logits, rtol=1e-9, atol=1e-9)
    meta = {"draft_vocab_size": 6, "aux_layers": [2, 15, 27]}
    written = eagle3_config({**config.to_dict(), "layer_types": ["full_attention"] * 2}, meta)
    assert written["architectures"] == ["LlamaForCausalLMEagle3"] and written["num_hidden_layers"] == 1
    assert written["eagle_config"]["eagle_aux_hidden_state_layer_ids"] == [2, 15, 27]
    assert written["draft_vocab_size"] == 6 and written["layer_types"] == ["full_attention"]


@pytest.mark.model
def test_the_space_asked_for_covers_what_each_layout_writes_for_the_shipped_target():
    """The disk-full sentence's "about N MB" for the export (EXPORT_MEGABYTES) against the bytes each layout writes
    at the default target's widths: EAGLE-1 copies the target's embeddings and two layers in float32, far more
    than EAGLE-3's one layer and draft-vocabulary head; the tokenizer and configs are copied beside them."""
    import json

    from specviz.engine.proposers.eagle3 import Eagle3Drafter
    from specviz.models.pairs import default_target_folder
    from specviz.serving import export
    from specviz.serving.export import EXPORT_MEGABYTES, eagle3_tensors

    target = default_target_folder()
    config = LlamaConfig(**json.loads((target / "config.json").read_text()))
    copied = sum((target / name).stat().st_size for name in ("tokenizer.json", "tokenizer_config.json",
                                                               "special_tokens_map.json", "generation_config.json")
                 if (target / name).exists())
    embed = torch.zeros(config.vocab_size, config.hidden_size)
    eagle1 = {k: v for k, v in EagleDrafter(config).state_dict().items() if not k.startswith("rotary.")}
    eagle3 = {k: v for k, v in Eagle3Drafter(config, (2, 15, 27), 8192).state_dict().items()
              if not k.startswith("rotary.")}
    written = {"eagle": eagle_tensors(eagle1, embed), "eagle3": eagle3_tensors(eagle3, torch.arange(8192))}
    for kind, tensors in written.items():
        megabytes = (sum(t.numel() * t.element_size() for t in tensors.values()) + copied) / 1e6
        assert megabytes <= EXPORT_MEGABYTES[kind] <= 1.5 * megabytes, (kind, megabytes)
    assert EXPORT_MEGABYTES["eagle"] > 2 * EXPORT_MEGABYTES["eagle3"]
    # the comment above EXPORT_MEGABYTES counts the EAGLE-1 layout's parameters (it said 36,055,296: read 34)
    eagle1_params = sum(t.numel() for t in written["eagle"].values())
    source = Path(export.__file__).read_text().replace("\n# ", " ")
    assert f"{eagle1_params:,} parameters x 4 bytes = {eagle1_params * 4 / 1e6:.1f} MB" in source
