"""An EAGLE-style feature drafter (Li et al., 2024): draft in the target's feature space, read tokens off its head.

The target's last hidden state f_i (the input of its LM head, after reading x_0..x_i) carries most of what the
target knows about the next token. The drafter is one small decoder layer that takes f_i together with the
embedding of the token that actually came next, x_{i+1}, and predicts f_{i+1}:

    f^_{i+1} = layer( fc( [embed(x_{i+1}) ; f_i] ) )        q(x_{i+2}) = softmax( lm_head(f^_{i+1}) / T )

Feeding the shifted token removes the sampling uncertainty that a feature alone cannot know. To draft K tokens it
runs K times, feeding its own prediction f^ where the target's f is not known yet. The token embeddings and the LM
head are the target's own (frozen, not stored); an optional frequency-ranked draft vocabulary (FR-Spec) restricts
the head to the tokens most frequent in the drafter's training sequences (`specviz.distill.cli.draft_vocabulary`:
the prompts and the target's answers), which cuts the drafter's cost. q is zero outside that vocabulary, and the
verifier stays exact: the drafter only proposes.

The engine hands the drafter the target's features after every verify pass (`observe_target`), for the prompt and
every accepted token; that is the one extra thing a feature drafter needs from the loop.
"""

from __future__ import annotations

import copy

import torch
from torch import nn
from transformers import DynamicCache, PreTrainedModel
from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRotaryEmbedding

from specviz.core.i18n import _
from specviz.engine.kinds import DrafterKind
from specviz.engine.kvcache import cache_keyword
from specviz.engine.proposers.base import Proposal, Proposer
from specviz.engine.sampling import SamplingConfig, first_max_index, sample
from specviz.engine.tree import ROOT, DraftTree, grow_tree


def drafter_config(target_config):
    """The target's config cut to the one decoder layer the drafter has (same widths, heads and rope)."""
    config = copy.deepcopy(target_config)
    config.num_hidden_layers = 1
    if getattr(config, "layer_types", None):
        config.layer_types = config.layer_types[:1]
    config._attn_implementation = "sdpa"
    return config


class EagleDrafter(nn.Module):
    """fc + one Llama decoder layer; predicts the target's next feature from (feature, next token's embedding)."""

    kind = DrafterKind.EAGLE
    feature_layers = (-1,)  # the target's last hidden state (the final norm's output)

    def __init__(self, target_config):
        super().__init__()
        self.config = drafter_config(target_config)
        hidden = self.config.hidden_size
        self.fc = nn.Linear(2 * hidden, hidden, bias=True)
        self.layer = LlamaDecoderLayer(self.config, layer_idx=0)
        self.rotary = LlamaRotaryEmbedding(self.config)
        self.cache_keyword = cache_keyword(self.layer)  # `cache` from transformers 5.24, `past_key_values` before

    def forward(self, features: torch.Tensor, next_embeddings: torch.Tensor, positions: torch.Tensor,
                mask: torch.Tensor | None = None, cache: DynamicCache | None = None) -> torch.Tensor:
        """features, next_embeddings: (B, T, H); positions: (B, T); mask: bool (B, 1, T, T_total), True = attend.
        Returns the predicted next features (B, T, H)."""
        x = self.fc(torch.cat([next_embeddings, features], dim=-1))
        return self.layer(x, attention_mask=mask, position_ids=positions, use_cache=cache is not None,
                          position_embeddings=self.rotary(x, positions), **{self.cache_keyword: cache})

    def read_target(self, states: torch.Tensor) -> torch.Tensor:
        """The state the layer reads for a position the target has read: its feature itself."""
        return states

    def head(self, target: PreTrainedModel, vocab: torch.Tensor | None) -> DraftHead:
        """Tokens are read off the target's own head (restricted to the draft vocabulary)."""
        return DraftHead(target, vocab)

    def cast(self, device: torch.device | str, dtype: torch.dtype) -> EagleDrafter:
        """Move to `device` with weights in `dtype`; the rotary frequencies stay float32 (`.to(bfloat16)` would round
        them, and positions far into a context would rotate by the wrong angles)."""
        self.fc.to(device=device, dtype=dtype)
        self.layer.to(device=device, dtype=dtype)
        self.rotary.to(device=device)
        return self

    def init_from_target(self, target: PreTrainedModel) -> None:
        """Start from the target's last decoder layer with its output projections zeroed, and an fc that passes the
        feature through: the untrained drafter predicts "the next feature equals this one" and learns the change."""
        self.layer.load_state_dict(target.model.layers[-1].state_dict())
        hidden = self.config.hidden_size
        with torch.no_grad():
            self.layer.self_attn.o_proj.weight.zero_()
            self.layer.mlp.down_proj.weight.zero_()
            self.fc.weight.zero_()
            self.fc.weight[:, hidden:] = torch.eye(hidden)
            self.fc.weight[:, :hidden].normal_(0.0, 0.02)
            self.fc.bias.zero_()


class DraftHead:
    """The target's LM head, optionally restricted to a draft vocabulary (token ids, most frequent first)."""

    def __init__(self, target: PreTrainedModel, vocab: torch.Tensor | None = None):
        weight = target.get_output_embeddings().weight.detach()
        self.vocab_size = target.config.vocab_size
        self.vocab = None if vocab is None else vocab.to(weight.device, torch.long)
        self.weight = weight if self.vocab is None else weight[self.vocab].clone()

    def logits(self, features: torch.Tensor) -> torch.Tensor:
        """Full-vocabulary logits (..., V), -inf outside the draft vocabulary."""
        small = features @ self.weight.T
        if self.vocab is None:
            return small
        full = small.new_full((*small.shape[:-1], self.vocab_size), float("-inf"))
        full[..., self.vocab] = small
        return full


def causal_mask(query: int, past: int, device=None) -> torch.Tensor:
    """Bool (1, 1, query, past + query): query i sees every cached position and the new ones up to itself."""
    rows = torch.arange(query, device=device)[:, None] + past
    cols = torch.arange(past + query, device=device)[None, :]
    return (cols <= rows)[None, None]


class EagleProposer(Proposer):
    """Drafts with an `EagleDrafter` (or an EAGLE-3 `Eagle3Drafter`) from the target's features; keeps the drafter's
    own one-layer KV cache. Both drafters read a state per position (`read_target`: EAGLE-1 the target's feature,
    EAGLE-3 its three layers fused), predict the next state, and give logits through their `head`.

    The cache position i holds the drafter's reading of (f_i, x_{i+1}). Positions built from the target's true
    features are kept across steps; positions built from the drafter's own predictions are dropped before the
    next proposal, when the true features for the accepted tokens have arrived.
    """

    needs_target_features = True
    has_draft_probs = True  # honours stop_below: EAGLE-2 lets the drafter's confidence decide what to draft

    def __init__(self, target: PreTrainedModel, drafter: EagleDrafter, vocab: torch.Tensor | None = None,
                 name: str = "eagle"):
        self.name = name
        self.drafter = drafter.eval()
        self.embed = target.get_input_embeddings()
        self.head = drafter.head(target, vocab)
        self.feature_layers = drafter.feature_layers
        self.reset()

    def reset(self) -> None:
        self.features: list[torch.Tensor] = []  # true target features, one (H,) per position
        self.cache = DynamicCache(config=self.drafter.config)
        self.cached = 0  # cache positions built from true features
        self.cache_size = 0  # all cache positions

    @torch.inference_mode()
    def observe_target(self, start: int, features: torch.Tensor) -> None:
        """The target's features for positions start, start+1, ... (rows of `features`), kept as the states the
        drafter reads."""
        del self.features[start:]
        self.features.extend(self.drafter.read_target(features).unbind(0))

    def rollback(self, valid_length: int) -> None:
        # keep the features of the first valid_length - 1 tokens at most: in a step, observe_target comes next and
        # adds those of every kept token its last pass read, the last valid one's included
        del self.features[max(valid_length - 1, 0):]

    def cache_length(self) -> int:
        return self.cache_size

    @torch.inference_mode()
    def propose(self, sequence: list[int], k: int, sampling: SamplingConfig,
                generator: torch.Generator) -> Proposal:
        known = min(len(self.features), len(sequence) - 1)  # true features for positions 0..known-1
        if k <= 0 or known == 0:
            return Proposal([], None)
        predicted = self._catch_up(sequence, known)
        device = predicted.device
        drafted, rows = [], []
        for i in range(k):
            logits = self.head.logits(predicted[0, -1])
            if self.stops_here(logits):
                break
            probs = sampling.probs(logits).cpu()
            token = int(first_max_index(probs)) if sampling.greedy else sample(probs, generator)  # q is a point mass
            drafted.append(token)
            rows.append(probs)
            if i + 1 < k:
                predicted = self._step(predicted[:, -1:], torch.tensor([[token]], device=device), self.cache_size)
        return Proposal(drafted, torch.stack(rows) if rows else None)

    def _catch_up(self, sequence: list[int], known: int) -> torch.Tensor:
        """Read the true features the cache lacks (position i reads (f_i, x_{i+1})); returns the predicted features
        (1, T, H) whose last row is f^ after the sequence."""
        self._crop(min(self.cached, known - 1))  # re-read at least one true position
        start = self.cache_size
        feats = torch.stack(self.features[start:known])[None]
        tokens = torch.tensor([sequence[start + 1:known + 1]], device=feats.device)
        predicted = self._step(feats, tokens, start)
        self.cached = self.cache_size
        return predicted

    @torch.inference_mode()
    def propose_tree(self, sequence: list[int], *, max_nodes: int, max_depth: int, width: int,
                     sampling: SamplingConfig, generator: torch.Generator, sampled: bool,
                     stop_tokens: frozenset[int] = frozenset()) -> DraftTree:
        """EAGLE-2's tree: a node at depth d reads (f^ of its parent, its own token) at position known - 1 + d and
        attends to the true positions and its own ancestors; its predicted feature gives q for its children."""
        known = min(len(self.features), len(sequence) - 1)
        if known == 0:
            return DraftTree([], [], torch.zeros(0, 0))
        predicted = {ROOT: self._catch_up(sequence, known)[0, -1]}  # node -> f^ after it (H,)
        slots: dict[int, int] = {}  # node -> cache position

        def expand(tree: DraftTree, nodes: list[int]) -> torch.Tensor:
            if nodes != [ROOT]:
                self._read_nodes(tree, nodes, predicted, slots, known)
            return self.head.logits(torch.stack([predicted[node] for node in nodes]))  # (F, V)

        return grow_tree(expand, max_nodes=max_nodes, max_depth=max_depth, width=width, probs=sampling.probs,
                         sampled=sampled, generator=generator, stop_tokens=stop_tokens)

    def _read_nodes(self, tree: DraftTree, nodes: list[int], predicted: dict, slots: dict, known: int) -> None:
        """One drafter forward over one level of `nodes`; fills `predicted` and `slots` for them."""
        device = self.drafter.fc.weight.device
        ancestors, depths, start = tree.ancestors(), tree.depths, self.cache_size
        mask = torch.zeros(1, 1, len(nodes), start + len(nodes), dtype=torch.bool, device=device)
        mask[..., : self.cached] = True
        for row, node in enumerate(nodes):
            for other, slot in slots.items():
                mask[0, 0, row, slot] = bool(ancestors[node, other])
            mask[0, 0, row, start + row] = True
        feats = torch.stack([predicted[tree.parents[node]] for node in nodes])[None].to(self.drafter.fc.weight.dtype)
        tokens = torch.tensor([[tree.tokens[node] for node in nodes]], device=device)
        positions = torch.tensor([[known - 1 + depths[node] for node in nodes]], device=device)
        out = self.drafter(feats, self.embed(tokens).to(feats.dtype), positions, mask, self.cache)
        self.cache_size += len(nodes)
        for row, node in enumerate(nodes):
            predicted[node], slots[node] = out[0, row], start + row

    def keep_tree_path(self, valid_length: int, path: list[int]) -> None:
        """Drop every drafted position: the accepted ones are re-read from the target's true features next step,
        exactly as after a chain."""
        self._crop(self.cached)
        self.rollback(valid_length)

    def _step(self, features: torch.Tensor, tokens: torch.Tensor, past: int) -> torch.Tensor:
        n = features.shape[1]
        positions = torch.arange(past, past + n, device=features.device)[None]
        mask = causal_mask(n, past, features.device) if n > 1 else None
        features = features.to(self.drafter.fc.weight.dtype)
        out = self.drafter(features, self.embed(tokens).to(features.dtype), positions, mask, self.cache)
        self.cache_size += n
        return out

    def _crop(self, length: int) -> None:
        remove = self.cache_size - length
        if remove > 0:
            self.cache.crop(-remove)
            self.cache_size = length


def from_pair(pair) -> EagleProposer:
    """The pair's trained EAGLE drafter as the proposer (`specviz.engine.proposers.registry`: "eagle")."""
    if pair.eagle is None:
        raise ValueError(_("The pair '{pair}' has no trained EAGLE drafter; use --proposer layerskip or ngram.",
                           pair=pair.name))
    drafter, draft_vocab = pair.eagle
    return EagleProposer(pair.target, drafter, draft_vocab)
