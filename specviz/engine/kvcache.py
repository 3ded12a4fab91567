"""A causal LM together with its KV cache, fed incrementally and rewound after rejections.

Both the target scorer and the draft proposer keep one. `feed(sequence)` runs the model on the tokens of
`sequence` the cache has not seen yet and returns their logits; `rewind(length)` forgets everything after the
first `length` tokens. transformers 5.x's `DynamicCache.crop` takes the number of tokens to *remove* as a
negative integer (not the length to keep, as in 4.x), which `rewind` hides. The keyword that passes the cache
changed too (`past_key_values` until transformers 5.24 made it `cache`; an older version silently ignores a keyword
it does not know, leaving the cache empty): `cache_keyword` reads it off the model's own `forward` signature.

Draft trees (`specviz.engine.tree`) add two operations: `feed_tree` runs the sequence's new tokens and a whole tree in one
forward, with a tree attention mask (a custom 4D mask, which transformers passes through untouched) and explicit
position ids; `feed_nodes` appends one level of nodes (a draft model growing its tree). `keep_path` then compacts
the cache to the context plus the accepted path: it selects those entries along the sequence axis, so the cache
holds what a plain forward over the accepted sequence would have built, in exact arithmetic (in floating point the
tree's one wide forward rounds differently: `specviz.engine.numerics`).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from transformers import DynamicCache, PreTrainedModel
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

from specviz.engine.tree import DraftTree, tree_attention_mask, tree_positions

CACHE_KEYWORDS = ("cache", "past_key_values", "past_key_value")  # newest first


def cache_keyword(module: torch.nn.Module) -> str:
    """The name under which `module.forward` takes its KV cache, from its signature.

    >>> class Old(torch.nn.Module):
    ...     def forward(self, input_ids=None, past_key_values=None, use_cache=None): ...
    >>> class New(torch.nn.Module):
    ...     def forward(self, input_ids=None, cache=None, use_cache=None, **kwargs): ...
    >>> cache_keyword(Old()), cache_keyword(New())
    ('past_key_values', 'cache')
    """
    parameters = inspect.signature(module.forward).parameters
    for name in CACHE_KEYWORDS:
        if name in parameters:
            return name
    raise ValueError(f"{type(module).__name__}.forward takes no KV cache argument ({', '.join(CACHE_KEYWORDS)}), "
                     "so specviz cannot decode with it incrementally.")


def feature_states(hidden_states: tuple[torch.Tensor, ...], feature_layers: Sequence[int] = (-1,)) -> torch.Tensor:
    """What a feature drafter observes from a forward's `output_hidden_states`: the hidden states `feature_layers`
    (-1: the last, after the final norm) of the batch's first row, side by side, (T, F*H). An EAGLE-3 drafter reads
    three layers (3*H features per token), EAGLE-1 and Medusa the last one.

    >>> states = tuple(torch.full((1, 2, 3), float(i)) for i in range(4))
    >>> feature_states(states).shape, feature_states(states, (1, 2, -1)).shape
    (torch.Size([2, 3]), torch.Size([2, 9]))
    """
    layers = tuple(feature_layers)
    if layers == (-1,):
        return hidden_states[-1][0]
    return torch.cat([hidden_states[i][0] for i in layers], dim=-1)


class CachedModel:
    """A model plus the tokens its cache holds (`self.tokens`), batch size 1."""

    def __init__(self, model: PreTrainedModel, vocab_size: int | None = None, feature_layers: tuple[int, ...] = (-1,)):
        self.model = model
        self.vocab_size = vocab_size
        self.feature_layers = tuple(feature_layers)  # which hidden states `features=True` keeps (-1: the final norm's)
        self.cache = DynamicCache(config=model.config)
        self.cache_keyword = cache_keyword(model)
        self.tokens: list[int] = []
        self.last_hidden: torch.Tensor | None = None  # (new tokens, F*H) from the last feed(..., features=True)
        self.last_start = 0  # the position of last_hidden's first row
        self.tree_start: int | None = None  # cache index of the first tree entry while a tree is cached
        self.slots: dict[int, int] = {}  # tree node -> its cache index

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def __len__(self) -> int:
        return len(self.tokens)

    def reset(self) -> None:
        self.cache = DynamicCache(config=self.model.config)
        self.tokens = []
        self.tree_start, self.slots = None, {}

    @torch.inference_mode()
    def feed(self, sequence: list[int], extra: list[int] = (), keep: int = 1, features: bool = False) -> torch.Tensor:
        """Run the tokens of `sequence + extra` that the cache lacks; return the logits of the last `keep` of
        them (keep, V). Only those rows go through the LM head, which matters for a long prompt and a big vocabulary.
        With `features`, the hidden states `feature_layers` of every new token (by default the last, the LM head's
        input; EAGLE-3 reads three inner layers) are kept in `last_hidden`, side by side, for feature drafters.

        If the cache holds tokens that are no longer a prefix of the sequence, it is rewound first.
        """
        self.drop_tree()
        full = list(sequence) + list(extra)
        common = _common_prefix(self.tokens, full)
        if common < len(self.tokens):
            self.rewind(common)
        new = full[len(self.tokens):]
        if not new:
            raise ValueError("CachedModel.feed needs at least one token the cache has not seen.")
        keep = min(keep, len(new))
        logits = self._run(new, None, None, keep, features)  # (keep, V)
        self.tokens.extend(new)
        return logits

    def _states(self, hidden_states: tuple[torch.Tensor, ...]) -> torch.Tensor:
        """The `feature_layers` of the batch's one row, concatenated: (T, F*H)."""
        return feature_states(hidden_states, self.feature_layers)

    def prefill(self, prompt: list[int], features: bool = False) -> None:
        """Cache the prompt except its last token: the first step feeds that token, and its logits are the
        first ones anybody needs."""
        self.last_hidden = None
        if len(prompt) > 1:
            self.feed(prompt[:-1], features=features)

    def rewind(self, length: int) -> None:
        """Keep the first `length` cached tokens."""
        self.drop_tree()
        self._crop(length)

    def _crop(self, length: int) -> None:
        remove = len(self.tokens) - length
        if remove > 0:
            self._drop(remove)
            del self.tokens[length:]

    # ---- draft trees ----------------------------------------------------------------------------------------------
    @torch.inference_mode()
    def feed_tree(self, sequence: list[int], tree: DraftTree, features: bool = False) -> torch.Tensor:
        """One forward over the tokens of `sequence` the cache lacks (the last one is the tree's root) and all of
        `tree`'s nodes; returns the logits at the root and at every node (N+1, V). The tree stays cached until
        `keep_path` (or any other feed or rewind drops it)."""
        self.drop_tree()
        common = _common_prefix(self.tokens, list(sequence[:-1]))
        self._crop(common)
        new = list(sequence[common:])
        lead, past = len(new) - 1, len(self.tokens)  # new tokens before the root; cached tokens
        mask = torch.zeros(lead + len(tree) + 1, past + lead + len(tree) + 1, dtype=torch.bool)
        mask[:lead, : past + lead] = torch.ones(lead, past + lead).tril(past).bool()  # plain causal rows
        mask[lead:] = tree_attention_mask(tree, past + lead)
        positions = torch.cat([torch.arange(past, past + lead), tree_positions(tree, past + lead)])
        logits = self._run(new + list(tree.tokens), positions, mask, keep=len(tree) + 1, features=features)
        self.tree_start = past + len(new)
        self.slots = {j: self.tree_start + j for j in range(len(tree))}
        self.tokens.extend(new + list(tree.tokens))
        return logits

    @torch.inference_mode()
    def feed_nodes(self, tree: DraftTree, nodes: list[int]) -> torch.Tensor:
        """Append tree `nodes` (their ancestors already fed, the whole sequence cached) in one forward; returns their
        logits (F, V). The first call starts the tree right after the cached sequence."""
        if self.tree_start is None:
            self.tree_start = len(self.tokens)
        start, root_position = len(self.tokens), self.tree_start - 1
        ancestors, depths = tree.ancestors(), tree.depths
        mask = torch.zeros(len(nodes), start + len(nodes), dtype=torch.bool)
        mask[:, : self.tree_start] = True
        for row, node in enumerate(nodes):
            for other, slot in self.slots.items():
                mask[row, slot] = bool(ancestors[node, other])
            mask[row, start + row] = True
        positions = torch.tensor([root_position + depths[node] for node in nodes])
        logits = self._run([tree.tokens[node] for node in nodes], positions, mask, keep=len(nodes))
        self.slots.update({node: start + row for row, node in enumerate(nodes)})
        self.tokens.extend(tree.tokens[node] for node in nodes)
        return logits

    def renumber(self, kept: list[int]) -> None:
        """After a reranked tree kept candidates `kept` (old numbers, in order), node i is candidate kept[i]; the
        dropped candidates' entries stay until `keep_path` compacts the cache."""
        self.slots = {new: self.slots[old] for new, old in enumerate(kept) if old in self.slots}

    def keep_path(self, path: list[int]) -> None:
        """Compact the cache to the entries before the tree plus the cached nodes of the accepted `path`, in order
        (for a target that read the features, `last_hidden` is compacted alike)."""
        if self.tree_start is None:
            return
        kept_nodes = [node for node in path if node in self.slots]
        index = list(range(self.tree_start)) + [self.slots[node] for node in kept_nodes]
        if len(index) < len(self.tokens):
            select = torch.tensor(index, device=self.device)
            self._select(select)
            if self.last_hidden is not None and self.last_start + len(self.last_hidden) == len(self.tokens):
                self.last_hidden = self.last_hidden[select[self.last_start:] - self.last_start]
            self.tokens = [self.tokens[i] for i in index]
        self.tree_start, self.slots = None, {}

    def drop_tree(self) -> None:
        """Forget a cached tree: crop the cache to the entries before it."""
        if self.tree_start is not None:
            start, self.tree_start, self.slots = self.tree_start, None, {}
            self._crop(start)

    # ---- what differs between caches: one forward, dropping the last entries, keeping selected ones ---------------
    def _run(self, ids: list[int], positions: torch.Tensor | None, mask: torch.Tensor | None, keep: int,
             features: bool = False) -> torch.Tensor:
        """One forward of `ids` after the cached tokens; returns the last `keep` rows of logits. `positions` (T,) and
        a bool `mask` (T, cached + T), True = may attend, for a tree; None for plain causal tokens. The mask goes in as
        0 / the dtype's lowest finite value (`torch.finfo(dtype).min`, not -inf) in the model's dtype, which
        transformers' SDPA attention (what specviz's models load with) and eager attention read the same way
        (tests/engine/test_tree.py runs both); other kernels are not tried."""
        ids_t = torch.tensor([ids], device=self.device)
        if mask is None:
            out = self.model(input_ids=ids_t, use_cache=True, logits_to_keep=keep, output_hidden_states=features,
                             **{self.cache_keyword: self.cache})
        else:
            dtype = next(self.model.parameters()).dtype
            additive = torch.zeros(mask.shape, dtype=dtype).masked_fill(~mask, torch.finfo(dtype).min)
            out = self.model(input_ids=ids_t, attention_mask=additive[None, None].to(self.device),
                             position_ids=positions[None].to(self.device), use_cache=True, logits_to_keep=keep,
                             output_hidden_states=features, **{self.cache_keyword: self.cache})
        if features:
            self.last_start, self.last_hidden = len(self.tokens), self._states(out.hidden_states)
        logits = out.logits[0, -keep:]
        return align_vocab(logits, self.vocab_size) if self.vocab_size is not None else logits

    def _drop(self, remove: int) -> None:
        self.cache.crop(-remove)

    def _select(self, index: torch.Tensor) -> None:
        for layer in self.cache.layers:
            if getattr(layer, "keys", None) is not None and layer.keys.numel():
                layer.keys = layer.keys.index_select(-2, index)
                layer.values = layer.values.index_select(-2, index)


class LeanCachedModel(CachedModel):
    """`CachedModel` for Llama models without transformers' per-call machinery: the model's own modules, called in
    order, over a KV cache allocated once (grown by doubling), that a rewind only shortens.

    The arithmetic is the model's: the same modules (norms, projections, MLP), the same rotary embedding and
    `apply_rotary_pos_emb`, and PyTorch's scaled-dot-product attention over the same keys and values. What goes is
    what is not arithmetic: output records, mask construction, cache objects that concatenate at every step, and,
    over several tokens under a mask (a verify pass, a tree), the copies transformers' `repeat_kv` makes for
    grouped-query attention (SDPA's `enable_gqa` reads each kv head for its query heads instead). One token costs no
    copy in either: transformers 5.24 passes it no mask and sets `enable_gqa`; this path reads a kv head's query heads
    as one block. What that saves was timed only by a one-off script on a machine no committed file names (commit
    ac09907's body), so no figure is quoted here (`docs/benchmarks.md`, "The lean step"). `runner_for` picks it for
    the models it supports.
    """

    def __init__(self, model: PreTrainedModel, vocab_size: int | None = None, feature_layers: tuple[int, ...] = (-1,)):
        super().__init__(model, vocab_size, feature_layers)
        inner = model.model
        self.layers, self.norm, self.rotary, self.embed = inner.layers, inner.norm, inner.rotary_emb, inner.embed_tokens
        self.head = model.get_output_embeddings()
        config = model.config
        self.heads, self.kv_heads = config.num_attention_heads, config.num_key_value_heads
        self.head_dim = getattr(config, "head_dim", None) or config.hidden_size // self.heads
        self.cache = None
        self._keys = self._values = None  # (layers, kv heads, capacity, head dim)
        self._length = 0

    @staticmethod
    def supports(model) -> bool:
        """A Llama whose layers are transformers' own Llama layers (SmolLM2 is one)."""
        from transformers.models.llama.modeling_llama import LlamaDecoderLayer

        inner = getattr(model, "model", None)
        return (getattr(model.config, "model_type", "") == "llama" and inner is not None
                and all(type(layer) is LlamaDecoderLayer for layer in getattr(inner, "layers", [None])))

    def reset(self) -> None:
        super().reset()
        self.cache = None
        self._length = 0

    def _reserve(self, length: int) -> None:
        capacity = 0 if self._keys is None else self._keys.shape[2]
        if length <= capacity:
            return
        size = max(length, 2 * capacity, 256)
        weight = self.embed.weight
        keys = torch.empty(len(self.layers), self.kv_heads, size, self.head_dim, dtype=weight.dtype, device=weight.device)
        values = torch.empty_like(keys)
        if self._length:
            keys[:, :, : self._length] = self._keys[:, :, : self._length]
            values[:, :, : self._length] = self._values[:, :, : self._length]
        self._keys, self._values = keys, values

    @torch.inference_mode()
    def _run(self, ids: list[int], positions: torch.Tensor | None, mask: torch.Tensor | None, keep: int,
             features: bool = False) -> torch.Tensor:
        past, t = self._length, len(ids)
        self._reserve(past + t)
        device = self.embed.weight.device
        positions = torch.arange(past, past + t) if positions is None else positions
        if mask is None and t > 1:
            mask = torch.ones(t, past + t, dtype=torch.bool).tril(past)
        attn_mask = None if mask is None else mask[None, None].to(device)
        x = self.embed(torch.tensor([ids], device=device))  # (1, T, H)
        rope = self.rotary(x, positions[None].to(device))
        wanted = {i for i in self.feature_layers if 0 <= i < len(self.layers)} if features else set()
        entering = {}
        group = self.heads // self.kv_heads
        for index, layer in enumerate(self.layers):
            if index in wanted:
                entering[index] = x
            attn = layer.self_attn
            h = layer.input_layernorm(x)
            q = attn.q_proj(h).view(1, t, self.heads, self.head_dim).transpose(1, 2)
            k = attn.k_proj(h).view(1, t, self.kv_heads, self.head_dim).transpose(1, 2)
            v = attn.v_proj(h).view(1, t, self.kv_heads, self.head_dim).transpose(1, 2)
            q, k = apply_rotary_pos_emb(q, k, *rope)
            self._keys[index, :, past:past + t] = k[0]
            self._values[index, :, past:past + t] = v[0]
            keys = self._keys[index, None, :, : past + t]
            values = self._values[index, None, :, : past + t]
            if attn_mask is None:  # one token: the query heads of each kv head as one block of queries
                out = F.scaled_dot_product_attention(q.reshape(1, self.kv_heads, group, self.head_dim), keys, values,
                                                     scale=attn.scaling).reshape(1, self.heads, 1, self.head_dim)
            else:
                out = F.scaled_dot_product_attention(q, keys, values, attn_mask=attn_mask, scale=attn.scaling,
                                                     enable_gqa=group > 1)
            x = x + attn.o_proj(out.transpose(1, 2).reshape(1, t, -1))
            x = x + layer.mlp(layer.post_attention_layernorm(x))
        final = self.norm(x)
        self._length = past + t
        if features:
            self.last_start = len(self.tokens)
            self.last_hidden = torch.cat([final[0] if i in (-1, len(self.layers)) else entering[i][0]
                                          for i in self.feature_layers], dim=-1)
        logits = self.head(final[0, -keep:])
        return align_vocab(logits, self.vocab_size) if self.vocab_size is not None else logits

    def _drop(self, remove: int) -> None:
        self._length -= remove

    @torch.inference_mode()
    def _select(self, index: torch.Tensor) -> None:
        n = len(index)
        moved = (index != torch.arange(n, device=index.device)).nonzero()
        start = int(moved[0]) if len(moved) else n  # entries before it stay where they are
        if start < n:
            tail = index[start:]
            self._keys[:, :, start:n] = self._keys.index_select(2, tail)
            self._values[:, :, start:n] = self._values.index_select(2, tail)
        self._length = n


def runner_for(model: PreTrainedModel, vocab_size: int | None = None, feature_layers: tuple[int, ...] = (-1,)
               ) -> CachedModel:
    """The cached runner the engine uses for a model: `LeanCachedModel` where it supports the model, else the
    transformers forward (`CachedModel`). SPECVIZ_TRANSFORMERS_FORWARD=1 forces the latter, to compare the two."""
    if os.environ.get("SPECVIZ_TRANSFORMERS_FORWARD") != "1" and LeanCachedModel.supports(model):
        return LeanCachedModel(model, vocab_size, feature_layers)
    return CachedModel(model, vocab_size, feature_layers)


def align_vocab(logits: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """Cut or pad (with -inf) the last dimension to `vocab_size`, for models whose embedding matrices differ in size."""
    size = logits.shape[-1]
    if size > vocab_size:
        return logits[..., :vocab_size]
    if size < vocab_size:
        pad = logits.new_full((*logits.shape[:-1], vocab_size - size), float("-inf"))
        return torch.cat([logits, pad], dim=-1)
    return logits


def _common_prefix(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n
