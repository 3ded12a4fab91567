"""A causal LM together with its KV cache, fed incrementally and rewound after rejections.

Both the target scorer and the draft proposer keep one. `feed(sequence)` runs the model on the tokens of
`sequence` the cache has not seen yet and returns their logits; `rewind(length)` forgets everything after the
first `length` tokens. transformers 5.x's `DynamicCache.crop` takes the number of tokens to *remove* as a
negative integer (not the length to keep, as in 4.x), which `rewind` hides. The keyword that passes the cache
changed too (`past_key_values` until transformers 5.24 made it `cache`; an older version silently ignores a keyword
it does not know, leaving the cache empty): `cache_keyword` reads it off the model's own `forward` signature.
"""

from __future__ import annotations

import inspect

import torch
from transformers import DynamicCache, PreTrainedModel

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

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def __len__(self) -> int:
        return len(self.tokens)

    def reset(self) -> None:
        self.cache = DynamicCache(config=self.model.config)
        self.tokens = []

    @torch.inference_mode()
    def feed(self, sequence: list[int], extra: list[int] = (), keep: int = 1, features: bool = False) -> torch.Tensor:
        """Run the tokens of `sequence + extra` that the cache lacks; return the logits of the last `keep` of
        them (keep, V). Only those rows go through the LM head, which matters for a long prompt and a big vocabulary.
        With `features`, the last hidden state of every new token (the LM head's input) is kept in `last_hidden`,
        for feature drafters such as EAGLE.

        If the cache holds tokens that are no longer a prefix of the sequence, it is rewound first.
        """
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
        remove = len(self.tokens) - length
        if remove > 0:
            self.cache.crop(-remove)
            del self.tokens[length:]


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
