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
equals the one a plain forward over the accepted sequence would have built.
"""

from __future__ import annotations

import inspect

import torch
from transformers import DynamicCache, PreTrainedModel

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


class CachedModel:
    """A model plus the tokens its cache holds (`self.tokens`), batch size 1."""

    def __init__(self, model: PreTrainedModel, vocab_size: int | None = None):
        self.model = model
        self.vocab_size = vocab_size
        self.cache = DynamicCache(config=model.config)
        self.cache_keyword = cache_keyword(model)
        self.tokens: list[int] = []
        self.last_hidden: torch.Tensor | None = None  # (new tokens, H) from the last feed(..., features=True)
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
        With `features`, the last hidden state of every new token (the LM head's input) is kept in `last_hidden`,
        for feature drafters such as EAGLE.

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
        ids = torch.tensor([new], device=self.device)
        keep = min(keep, len(new))
        out = self.model(input_ids=ids, use_cache=True, logits_to_keep=keep, output_hidden_states=features,
                         **{self.cache_keyword: self.cache})
        if features:
            self.last_start, self.last_hidden = len(self.tokens), out.hidden_states[-1][0]
        self.tokens.extend(new)
        logits = out.logits[0, -keep:]  # (keep, V)
        if self.vocab_size is not None:
            logits = align_vocab(logits, self.vocab_size)
        return logits

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
            self.cache.crop(-remove)
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
        logits = self._forward(new + list(tree.tokens), positions, mask, keep=len(tree) + 1, features=features)
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
        logits = self._forward([tree.tokens[node] for node in nodes], positions, mask, keep=len(nodes))
        self.slots.update({node: start + row for row, node in enumerate(nodes)})
        self.tokens.extend(tree.tokens[node] for node in nodes)
        return logits

    def keep_path(self, path: list[int]) -> None:
        """Compact the cache to the entries before the tree plus the cached nodes of the accepted `path`, in order
        (for a target that read the features, `last_hidden` is compacted alike)."""
        if self.tree_start is None:
            return
        kept_nodes = [node for node in path if node in self.slots]
        index = list(range(self.tree_start)) + [self.slots[node] for node in kept_nodes]
        if len(index) < len(self.tokens):
            select = torch.tensor(index, device=self.device)
            for layer in self.cache.layers:
                if getattr(layer, "keys", None) is not None and layer.keys.numel():
                    layer.keys = layer.keys.index_select(-2, select)
                    layer.values = layer.values.index_select(-2, select)
            if self.last_hidden is not None and self.last_start + len(self.last_hidden) == len(self.tokens):
                self.last_hidden = self.last_hidden[select[self.last_start:] - self.last_start]
            self.tokens = [self.tokens[i] for i in index]
        self.tree_start, self.slots = None, {}

    def drop_tree(self) -> None:
        """Forget a cached tree: crop the cache to the entries before it."""
        if self.tree_start is not None:
            start, self.tree_start, self.slots = self.tree_start, None, {}
            self._crop(start)

    def _forward(self, ids: list[int], positions: torch.Tensor, mask: torch.Tensor, keep: int,
                 features: bool = False) -> torch.Tensor:
        """One forward of `ids` at `positions` with a bool mask (len(ids), cached + len(ids)), True = may attend;
        returns the last `keep` rows of logits. The mask goes in as 0 / -inf in the model's dtype, which every
        attention implementation reads the same way."""
        dtype = next(self.model.parameters()).dtype
        additive = torch.zeros(mask.shape, dtype=dtype).masked_fill(~mask, torch.finfo(dtype).min)
        out = self.model(input_ids=torch.tensor([ids], device=self.device),
                         attention_mask=additive[None, None].to(self.device),
                         position_ids=positions[None].to(self.device), use_cache=True, logits_to_keep=keep,
                         output_hidden_states=features, **{self.cache_keyword: self.cache})
        if features:
            self.last_start, self.last_hidden = len(self.tokens), out.hidden_states[-1][0]
        logits = out.logits[0, -keep:]
        return align_vocab(logits, self.vocab_size) if self.vocab_size is not None else logits


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
