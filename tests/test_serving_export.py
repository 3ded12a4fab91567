"""The EAGLE drafter's export to vLLM's EAGLE-1 layout computes the same function as specviz's drafter.

vLLM 0.32's `EagleLlamaForCausalLM` (vllm/model_executor/models/llama_eagle.py) has no fc bias and no input
RMSNorm on its first layer; the export folds the bias into the drafter's own embeddings and puts specviz's layer
second, behind a pass-through first layer. The reference below is that forward written with transformers' Llama
layer (vLLM's fused residual adds give the same sums), in float64 on a tiny random config."""

from __future__ import annotations

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
