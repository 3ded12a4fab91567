"""An EAGLE-3 drafter (Li et al., 2025): fuse the target's low, middle and high layers, predict tokens directly.

EAGLE-1 (`specviz.engine.proposers.eagle.EagleDrafter`) predicts the target's next top-layer feature and reads tokens
off the target's head, so it is trained to regress that feature. EAGLE-3 drops the constraint:

    g_i  = fc( [a_i ; b_i ; c_i] )                          the target's residual stream entering three layers
                                                            (low, middle, high: `aux_layers`), after reading x_0..x_i
    o_i  = g_i + attn( [norm(embed(x_{i+1})) ; norm(g_i)] ) + mlp(...)    one decoder layer whose attention reads
                                                            the token and the state side by side (2H wide)
    q(x_{i+2}) = softmax( lm_head( norm(o_i) ) / T )         its own head over the draft vocabulary (FR-Spec)

To draft further it feeds its own o_i where the target's g is not known yet, and it is trained that way
("training-time test": `specviz.distill.eagle3`). The layout is vLLM's EAGLE-3 Llama drafter's
(`vllm/model_executor/models/llama_eagle3.py`: `fc`, `midlayer` with `hidden_norm`, `norm`, `lm_head`, `d2t`), so the
weights export to vLLM without conversion (`specviz.serving.export`). It only proposes: the verifier keeps the output's
distribution exactly the target's, in exact arithmetic (`specviz.engine.numerics` for floating point).
"""

from __future__ import annotations

import torch
from torch import nn
from transformers import DynamicCache
from transformers.models.llama.modeling_llama import LlamaAttention, LlamaMLP, LlamaRMSNorm, LlamaRotaryEmbedding

from specviz.engine.kinds import DrafterKind
from specviz.engine.kvcache import cache_keyword
from specviz.engine.proposers.eagle import drafter_config


class Eagle3Layer(nn.Module):
    """vLLM's EAGLE-3 first layer: token embedding and state normalised apart, concatenated, then a Llama layer
    whose q, k and v read both (2H wide); the residual is the state."""

    def __init__(self, config):
        super().__init__()
        hidden = config.hidden_size
        self.input_layernorm = LlamaRMSNorm(hidden, eps=config.rms_norm_eps)
        self.hidden_norm = LlamaRMSNorm(hidden, eps=config.rms_norm_eps)
        self.self_attn = LlamaAttention(config, layer_idx=0)
        heads, kv_heads = config.num_attention_heads, config.num_key_value_heads
        head_dim = self.self_attn.head_dim
        bias = getattr(config, "attention_bias", False)
        self.self_attn.q_proj = nn.Linear(2 * hidden, heads * head_dim, bias=bias)
        self.self_attn.k_proj = nn.Linear(2 * hidden, kv_heads * head_dim, bias=bias)
        self.self_attn.v_proj = nn.Linear(2 * hidden, kv_heads * head_dim, bias=bias)
        self.post_attention_layernorm = LlamaRMSNorm(hidden, eps=config.rms_norm_eps)
        self.mlp = LlamaMLP(config)
        self.cache_keyword = cache_keyword(self.self_attn)

    def forward(self, embeds: torch.Tensor, state: torch.Tensor, position_embeddings, mask, cache) -> torch.Tensor:
        x = torch.cat([self.input_layernorm(embeds), self.hidden_norm(state)], dim=-1)
        attn, _ = self.self_attn(x, position_embeddings=position_embeddings, attention_mask=mask,
                                 **{self.cache_keyword: cache})
        residual = state + attn
        return residual + self.mlp(self.post_attention_layernorm(residual))


class Eagle3Drafter(nn.Module):
    """fc (3H -> H) + one `Eagle3Layer` + norm + its own head over `draft_vocab_size` tokens."""

    kind = DrafterKind.EAGLE3

    def __init__(self, target_config, aux_layers: tuple[int, ...], draft_vocab_size: int):
        super().__init__()
        self.config = drafter_config(target_config)
        self.aux_layers = tuple(int(i) for i in aux_layers)
        hidden = self.config.hidden_size
        self.fc = nn.Linear(len(self.aux_layers) * hidden, hidden, bias=False)
        self.midlayer = Eagle3Layer(self.config)
        self.norm = LlamaRMSNorm(hidden, eps=self.config.rms_norm_eps)
        self.lm_head = nn.Linear(hidden, draft_vocab_size, bias=False)
        self.rotary = LlamaRotaryEmbedding(self.config)

    @property
    def feature_layers(self) -> tuple[int, ...]:
        """The target's hidden states the drafter reads (transformers' `hidden_states` indices), concatenated."""
        return self.aux_layers

    def read_target(self, states: torch.Tensor) -> torch.Tensor:
        """(..., len(aux_layers) * H) -> g (..., H)."""
        return self.fc(states.to(self.fc.weight.dtype))

    def forward(self, state: torch.Tensor, next_embeddings: torch.Tensor, positions: torch.Tensor,
                mask: torch.Tensor | None = None, cache: DynamicCache | None = None) -> torch.Tensor:
        """state: g from the target (`read_target`) or an earlier output o; next_embeddings: (B, T, H);
        positions (B, T); mask bool (B, 1, T, T_total), True = attend. Returns o (B, T, H), the state to feed on."""
        return self.midlayer(next_embeddings, state, self.rotary(state, positions), mask, cache)

    def logits(self, out: torch.Tensor) -> torch.Tensor:
        """Logits over the draft vocabulary (..., N) from outputs o."""
        return self.lm_head(self.norm(out))

    def head(self, target, vocab: torch.Tensor | None) -> Eagle3Head:
        """Its own head, mapped onto the target's vocabulary (`vocab`: the target id of each draft id)."""
        vocab = torch.arange(self.lm_head.out_features) if vocab is None else vocab
        return Eagle3Head(self, vocab, target.config.vocab_size)

    def cast(self, device: torch.device | str, dtype: torch.dtype) -> Eagle3Drafter:
        """Move to `device` with weights in `dtype`; the rotary frequencies stay float32."""
        for module in (self.fc, self.midlayer, self.norm, self.lm_head):
            module.to(device=device, dtype=dtype)
        self.rotary.to(device=device)
        return self

    def init_from_target(self, target, vocab: torch.Tensor) -> None:
        """A start that already reads tokens: the target's last layer (its q, k, v reading the state half, the token
        half small), its final norm, its head rows of the draft vocabulary, and an fc that passes the high layer."""
        layer, hidden = target.model.layers[-1], self.config.hidden_size
        with torch.no_grad():
            for name in ("q_proj", "k_proj", "v_proj"):
                weight = getattr(layer.self_attn, name).weight
                mine = getattr(self.midlayer.self_attn, name).weight
                mine[:, :hidden].normal_(0.0, 0.02)
                mine[:, hidden:] = weight
            self.midlayer.self_attn.o_proj.weight.copy_(layer.self_attn.o_proj.weight)
            self.midlayer.mlp.load_state_dict(layer.mlp.state_dict())
            self.midlayer.input_layernorm.weight.copy_(layer.input_layernorm.weight)
            self.midlayer.hidden_norm.weight.copy_(layer.input_layernorm.weight)
            self.midlayer.post_attention_layernorm.weight.copy_(layer.post_attention_layernorm.weight)
            self.norm.weight.copy_(target.model.norm.weight)
            self.lm_head.weight.copy_(target.get_output_embeddings().weight[vocab.to(torch.long)])
            self.fc.weight.zero_()
            self.fc.weight[:, -hidden:] = torch.eye(hidden)


class Eagle3Head:
    """The drafter's own head as the proposer reads it: logits over the full vocabulary, -inf outside the draft
    vocabulary (`vocab`: draft id -> target id)."""

    def __init__(self, drafter: Eagle3Drafter, vocab: torch.Tensor, vocab_size: int):
        self.drafter, self.vocab, self.vocab_size = drafter, vocab.to(torch.long), vocab_size

    def logits(self, out: torch.Tensor) -> torch.Tensor:
        small = self.drafter.logits(out)
        full = small.new_full((*small.shape[:-1], self.vocab_size), float("-inf"))
        full[..., self.vocab.to(small.device)] = small
        return full
