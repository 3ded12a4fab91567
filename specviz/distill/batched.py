"""Batched generation for the data step: many prompts through the target at once, its inner states recorded.

`model.generate` is a poor fit for many prompts at once: every step concatenates the whole KV cache and builds a
full attention mask. `BatchedDecoder` runs the target's own
modules over a KV cache allocated once, left-pads the prompts, drops finished rows from the cache (a copy, made once
a quarter of the rows it holds have ended: `compact_share`), and, one new token at a time, reads each kv head's cache
once for all the query heads that share it (GQA). What it computes is the model's forward,
layer by layer: the tests check its tokens against `model.generate` and its states against a plain forward.

Each row has its own temperature (0: greedy) and its own seed, so the draws a prompt gets do not depend on which
other prompts share its batch: the same rule (softmax of logits / T over the whole vocabulary, then one uniform draw
per token) and the same draws as if it had been alone. The logits themselves can round differently in another batch
(the tests match a row's states alone and batched within 1e-5 in float32), so a near-tie can still go another way.

Recorded for every position a record keeps (row t = after reading tokens[:t+1]), in `slots`:

    the residual stream entering each layer of `aux_layers` (EAGLE-3's low, middle and high features; vLLM's
    `eagle_aux_hidden_state_layer_ids`), then the final norm's output, the LM head's input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

from specviz.engine.sampling import first_max_index


def aux_layer_ids(num_layers: int) -> tuple[int, ...]:
    """EAGLE-3's low, middle and high layers: vLLM's default for Llama targets, (2, n // 2, n - 3), as indices of the
    residual stream entering that layer (transformers' `hidden_states[i]`), kept inside 1..n-1 for tiny models.

    >>> aux_layer_ids(30), aux_layer_ids(2)
    ((2, 15, 27), (1, 1, 1))
    """
    return tuple(min(max(i, 1), num_layers - 1) for i in (2, num_layers // 2, num_layers - 3))


@dataclass(frozen=True)
class Row:
    """One prompt to continue with its own sampling rule: temperature 0 is greedy, else softmax(logits / T)."""

    prompt: Sequence[int]
    temperature: float
    seed: int


@dataclass
class Generated:
    tokens: torch.Tensor  # (L,) int64: prompt + response, cut after the first end-of-sequence token
    prompt_length: int
    features: torch.Tensor  # (L-1, S, H) in the model's dtype; row t after reading tokens[:t+1], slots as above


class BatchedDecoder:
    """The target's forward over a preallocated KV cache, for a batch of left-padded rows (see the module doc)."""

    def __init__(self, model, aux_layers: Sequence[int] | None = None):
        self.model = model
        inner = model.model
        self.layers, self.norm, self.rotary, self.embed = inner.layers, inner.norm, inner.rotary_emb, inner.embed_tokens
        config = model.config
        self.aux_layers = tuple(aux_layers if aux_layers is not None else aux_layer_ids(config.num_hidden_layers))
        self.heads, self.kv_heads = config.num_attention_heads, config.num_key_value_heads
        self.head_dim = getattr(config, "head_dim", None) or config.hidden_size // self.heads
        self.hidden = config.hidden_size
        # q, k and v (and gate and up) as one matrix each: one matrix product instead of three (two) per layer
        self.qkv = [torch.cat([l.self_attn.q_proj.weight, l.self_attn.k_proj.weight, l.self_attn.v_proj.weight])
                    for l in self.layers]
        self.gate_up = [torch.cat([l.mlp.gate_proj.weight, l.mlp.up_proj.weight]) for l in self.layers]
        self.fusable = not any(getattr(l.self_attn.q_proj, "bias", None) is not None for l in self.layers) and all(
            getattr(l.mlp, "act_fn", None) is not None for l in self.layers)

    @property
    def slots(self) -> int:
        return len(self.aux_layers) + 1

    @torch.no_grad()  # not inference_mode: what it returns may meet autograd later (a test's head, training)
    def generate(self, rows: Sequence[Row], max_new_tokens: int, eos: set[int], compact_share: float = 0.25
                 ) -> list[Generated]:
        """Continue every row by up to `max_new_tokens` tokens (each stops after its first token in `eos`)."""
        if not rows:
            return []
        device, dtype = self.embed.weight.device, self.embed.weight.dtype
        lengths = [len(r.prompt) for r in rows]
        if min(lengths) == 0:
            raise ValueError("Every row needs at least one prompt token.")
        count, width = len(rows), max(lengths)
        span = width + max_new_tokens
        ids = torch.zeros(count, width, dtype=torch.long)
        keys_valid = torch.zeros(count, span, dtype=torch.bool)
        for i, r in enumerate(rows):
            ids[i, width - lengths[i]:] = torch.as_tensor(list(r.prompt))
            keys_valid[i, width - lengths[i]:] = True
        lengths_t = torch.tensor(lengths)
        positions = (torch.arange(width)[None] - (width - lengths_t)[:, None]).clamp(min=0)
        cache_shape = (len(self.layers), count, self.kv_heads, span, self.head_dim)
        self.k_cache = torch.empty(cache_shape, dtype=dtype, device=device)  # read only where written
        self.v_cache = torch.empty(cache_shape, dtype=dtype, device=device)
        features = torch.empty(count, span, self.slots, self.hidden, dtype=dtype)  # by original row, on the CPU
        generators = [torch.Generator().manual_seed(int(r.seed)) for r in rows]
        temperatures = [float(r.temperature) for r in rows]
        responses: list[list[int]] = [[] for _ in rows]

        active = torch.arange(count)  # the original row of each cache row
        done = torch.zeros(count, dtype=torch.bool)  # by original row
        causal = torch.ones(width, width, dtype=torch.bool).tril()
        mask = (causal[None] & keys_valid[:, None, :width]) | torch.eye(width, dtype=torch.bool)[None]  # pads see themselves
        logits = self._forward(ids.to(device), positions.to(device), mask[:, None].to(device), 0, features, active)
        for step in range(max_new_tokens):
            tokens = self._choose(logits, active, temperatures, generators)
            for row, token in zip(active.tolist(), tokens):
                if not done[row]:
                    responses[row].append(token)
                    if token in eos:
                        done[row] = True
            if bool(done.all()) or step + 1 == max_new_tokens:
                break
            finished = done[active]
            if finished.float().mean() >= compact_share:  # drop finished rows from the cache (a copy; not every step)
                keep = (~finished).nonzero().squeeze(1)
                active = active[keep]
                self.k_cache = self.k_cache[:, keep.to(device)]
                self.v_cache = self.v_cache[:, keep.to(device)]
                tokens = [tokens[i] for i in keep.tolist()]
            where = width + step
            step_ids = torch.tensor(tokens, device=device)[:, None]
            step_positions = (lengths_t[active] + step)[:, None].to(device)
            keys_valid[active, where] = True
            step_mask = keys_valid[active, None, None, : where + 1].to(device)
            logits = self._forward(step_ids, step_positions, step_mask, where, features, active)
        self.k_cache = self.v_cache = None

        out = []
        for i, r in enumerate(rows):
            tokens = torch.tensor(list(r.prompt) + responses[i], dtype=torch.long)
            start = width - lengths[i]
            out.append(Generated(tokens, lengths[i], features[i, start:start + len(tokens) - 1].clone()))
        return out

    def _forward(self, ids: torch.Tensor, positions: torch.Tensor, mask: torch.Tensor, start: int,
                 features: torch.Tensor, active: torch.Tensor) -> torch.Tensor:
        """ids, positions (b, T); mask bool (b, 1, T, start + T). Writes the cache at start..start+T-1 and the
        recorded states into `features[active, start:start+T]`; returns the last position's logits (b, V)."""
        b, t = ids.shape
        x = self.embed(ids)
        cos, sin = self.rotary(x, positions)
        entering = {}  # layer index -> the residual stream entering it, for the recorded layers
        for index, layer in enumerate(self.layers):
            if index in self.aux_layers:
                entering[index] = x
            attn = layer.self_attn
            h = layer.input_layernorm(x)
            if self.fusable:
                q, k, v = F.linear(h, self.qkv[index]).split(
                    [self.heads * self.head_dim, self.kv_heads * self.head_dim, self.kv_heads * self.head_dim], -1)
            else:
                q, k, v = attn.q_proj(h), attn.k_proj(h), attn.v_proj(h)
            q = q.reshape(b, t, self.heads, self.head_dim).transpose(1, 2)
            k = k.reshape(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
            v = v.reshape(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
            q, k = apply_rotary_pos_emb(q, k, cos, sin)
            self.k_cache[index, :, :, start:start + t] = k
            self.v_cache[index, :, :, start:start + t] = v
            keys, values = self.k_cache[index, :, :, :start + t], self.v_cache[index, :, :, :start + t]
            if t == 1:  # the query heads of one kv head as one block of queries: each kv head is read once
                group = self.heads // self.kv_heads
                out = F.scaled_dot_product_attention(q.reshape(b, self.kv_heads, group, self.head_dim), keys, values,
                                                     attn_mask=mask, scale=attn.scaling)
                out = out.reshape(b, self.heads, 1, self.head_dim)
            else:
                out = F.scaled_dot_product_attention(q, keys, values, attn_mask=mask, scale=attn.scaling,
                                                     enable_gqa=self.heads != self.kv_heads)
            x = x + attn.o_proj(out.transpose(1, 2).reshape(b, t, -1))
            h = layer.post_attention_layernorm(x)
            if self.fusable:
                gate, up = F.linear(h, self.gate_up[index]).chunk(2, dim=-1)
                x = x + layer.mlp.down_proj(layer.mlp.act_fn(gate) * up)
            else:
                x = x + layer.mlp(h)
        final = self.norm(x)
        recorded = [entering[i] for i in self.aux_layers] + [final]
        features[active, start:start + t] = torch.stack(recorded, dim=2).to(features.dtype).cpu()
        return self.model.lm_head(final[:, -1])

    @staticmethod
    def _choose(logits: torch.Tensor, active: torch.Tensor, temperatures: list[float],
                generators: list[torch.Generator]) -> list[int]:
        """One token per cache row: the argmax for greedy rows; for the others one uniform draw u from the row's own
        generator, and the first token whose cumulative probability under softmax(logits / T) exceeds u (inverse
        transform sampling: exactly that distribution, with one random number per token instead of one per
        vocabulary entry)."""
        logits = logits.cpu()
        chosen = first_max_index(logits)
        rows = active.tolist()
        sampled = [i for i, row in enumerate(rows) if temperatures[row] != 0]
        if sampled:
            index = torch.tensor(sampled)
            scale = torch.tensor([temperatures[rows[i]] for i in sampled])[:, None]
            cumulative = torch.softmax(logits[index].float() / scale, dim=-1).cumsum(-1)  # (S, V) in float32
            u = torch.cat([torch.rand(1, generator=generators[rows[i]]) for i in sampled])[:, None]
            picked = torch.searchsorted(cumulative, u * cumulative[:, -1:], right=True).squeeze(1)
            chosen[index] = picked.clamp(max=logits.shape[-1] - 1)
        return chosen.tolist()
