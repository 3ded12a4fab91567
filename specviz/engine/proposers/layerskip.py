"""Layer-skip self-drafting: the target's own first L layers, its final norm and its LM head act as the draft.

No extra weights: the draft model is a second model object of the same class whose modules *are* the target's
(shared, not copied), built from a copy of the config with `num_hidden_layers = L`. The target's config is
never touched. Untrained, an early exit agrees with the full model only now and then (LayerSkip and Kangaroo
train for it), which makes it a good lesson in when speculation does not pay.
"""

from __future__ import annotations

import copy

import torch
from transformers import PreTrainedModel

from specviz.core.i18n import _, ngettext, with_minus
from specviz.engine.limits import is_whole
from specviz.engine.proposers.draft_model import DraftModelProposer


def early_exit_model(target: PreTrainedModel, layers: int) -> PreTrainedModel:
    """A model that runs the target's first `layers` decoder layers, sharing every weight with the target."""
    total = target.config.num_hidden_layers
    if not is_whole(layers) or not 1 <= layers < total:  # True, 1.5, "1" too
        raise ValueError(layers_refusal(total, layers, zero=False))
    config = copy.deepcopy(target.config)
    config.num_hidden_layers = layers
    if getattr(config, "layer_types", None):
        config.layer_types = config.layer_types[:layers]
    with torch.device("meta"):
        draft = type(target)(config)
    draft.model.embed_tokens = target.model.embed_tokens
    draft.model.layers = torch.nn.ModuleList(target.model.layers[:layers])
    draft.model.norm = target.model.norm
    draft.model.rotary_emb = target.model.rotary_emb
    draft.lm_head = target.lm_head
    draft.generation_config = target.generation_config
    leftovers = [name for name, t in [*draft.named_parameters(), *draft.named_buffers()] if t.is_meta]
    if leftovers:
        raise ValueError(_("This model class cannot be split for layer-skip drafting ({name} is not shared).",
                           name=leftovers[0]))
    return draft.eval()


def layers_refusal(total: int, layers: object, zero: bool = True) -> str:
    """The one sentence that refuses `layers` for a target of `total` decoder layers: the range it allows, true for
    every size (one layer is "1 layer", a target of fewer than 2 layers allows none), and, with `zero`, what 0
    means where the user's value reaches `from_pair` (the proposer's default, a quarter of the layers).

    >>> layers_refusal(2, 5)  # doctest: +NORMALIZE_WHITESPACE
    "A layer-skip draft keeps 1 layer of the target's 2, or 0 for the default: a quarter of them, rounded down,
    at least 1 (got 5)."
    >>> layers_refusal(1, 0)
    'A layer-skip draft needs a target of at least 2 layers; this one has 1 (got 0).'
    """
    layers = with_minus(repr(layers))  # "1" (a string) is quoted as '1': "(got 1)" read as if the number 1 were refused
    if total < 2:
        return _("A layer-skip draft needs a target of at least 2 layers; this one has {total} (got {layers}).",
                 total=total, layers=layers)
    if zero:
        return ngettext("A layer-skip draft keeps {n} layer of the target's {total}, or 0 for the default: a quarter "
                        "of them, rounded down, at least 1 (got {layers}).",
                        "A layer-skip draft keeps 1 to {n} layers of the target's {total}, or 0 for the default: "
                        "a quarter of them, rounded down, at least 1 (got {layers}).", total - 1, total=total,
                        layers=layers)
    return ngettext("A layer-skip draft keeps {n} layer of the target's {total} (got {layers}).",
                    "A layer-skip draft keeps 1 to {n} layers of the target's {total} (got {layers}).",
                    total - 1, total=total, layers=layers)


class LayerSkipProposer(DraftModelProposer):
    def __init__(self, target: PreTrainedModel, layers: int, vocab_size: int):
        super().__init__(early_exit_model(target, layers), vocab_size, name=f"layerskip-{layers}")
        self.layers = layers

    def own_settings(self) -> dict[str, int]:
        return {"layers": self.layers}


def default_layers(target: PreTrainedModel) -> int:
    """A quarter of the target's layers (at least 1): a cheap draft that agrees only now and then. Untrained, it
    does not pay on the default pair: assets/benchmarks/default-cpu-layerskip (7 of 30 layers, one qa prompt, a
    2-core AMD EPYC, --clock cpu, float32, PyTorch's stock kernels: the run predates packing) measured, at constant
    K (1, 2, 4, 8), a mean accepted length of 1.02 greedy and 1.03 at T = 0.7 and 0.23x to 0.56x the speed of
    specviz's target-only decoding; the greedy policies that draft less (threshold, optimal) kept nothing (1.00) and
    reached at most 0.80x."""
    return max(1, target.config.num_hidden_layers // 4)


BUILT_IN_LAYERS = {"default": 30, "toy": 2}  # decoder layers of each built-in pair's target (SmolLM2-135M, the toy)


def most_layers(pair: str) -> int | None:
    """The most layers a layer-skip draft can keep for a built-in pair by name (all but one), without loading it;
    None for another pair. The registry's `most` for the "layers" setting: the Playground's upper bound."""
    total = BUILT_IN_LAYERS.get(pair)
    return total - 1 if total else None


def from_pair(pair, layers: int | None = None) -> LayerSkipProposer:
    """The pair's target drafting with its first `layers` layers (None or 0: `default_layers`); registry:
    "layerskip". A value it cannot keep is refused with `layers_refusal`, which names 0 too."""
    total = pair.target.config.num_hidden_layers
    if total < 2 or layers is not None and not (is_whole(layers) and 0 <= layers < total):  # True, 1.5, "1" are none
        raise ValueError(layers_refusal(total, layers))
    return LayerSkipProposer(pair.target, layers or default_layers(pair.target), pair.target.config.vocab_size)


def transformers_twin(pair, proposer: LayerSkipProposer) -> dict:
    """transformers' assisted generation with the same early exit (the bench's twin of "layerskip")."""
    return {"assistant": early_exit_model(pair.target, proposer.layers)}
