"""What a GPU machine with another transformers would trip over, checked on the CPU: the EAGLE drafter's cache keyword,
rotary frequencies kept in float32 by every loader, the separate draft assembled from un-cast weights, weights loaded
straight onto a GPU, test fixtures that do not follow whatever device is there, and the offline target found where
the transfer puts it."""

from __future__ import annotations

import copy
import os

import pytest
import torch
from tiny_folders import save_llama
from transformers import LlamaForCausalLM
from transformers.models.llama.modeling_llama import LlamaDecoderLayer

from specviz.engine.kvcache import cache_keyword
import specviz.engine.proposers.eagle as eagle
from specviz.engine.sampling import SamplingConfig
from specviz.models.drafts import draft_from_target, draft_model, save_draft
import specviz.models.loading as loading
from specviz.models.machine import Placement
from specviz.models.pairs import toy_pair, toy_tokenizer
import specviz.models.pairs as models


class OldStyleLayer(LlamaDecoderLayer):
    """A decoder layer with transformers < 5.24's signature: the cache comes as `past_key_values`, and a `cache=`
    keyword would vanish into **kwargs unnoticed (which is what 5.17 did to specviz)."""

    def forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_values=None, use_cache=False,
                position_embeddings=None, **kwargs):
        new = cache_keyword(LlamaDecoderLayer)
        return super().forward(hidden_states, attention_mask=attention_mask, position_ids=position_ids,
                               use_cache=use_cache, position_embeddings=position_embeddings,
                               **{new: past_key_values})


def eagle_proposals(pair, steps: int = 3):
    proposer = eagle.EagleProposer(pair.target, pair.eagle[0])
    ids = pair.tokenizer("the sky is blue because")["input_ids"]
    with torch.inference_mode():
        features = pair.target(torch.tensor([ids]), output_hidden_states=True).hidden_states[-1][0]
    proposer.observe_target(0, features)
    tokens = proposer.propose(ids, steps, SamplingConfig(), torch.Generator().manual_seed(0)).tokens
    return tokens, proposer.cache.get_seq_length()


def test_the_eagle_drafter_passes_its_cache_under_its_layers_own_keyword(monkeypatch):
    expected, _ = eagle_proposals(toy_pair())
    monkeypatch.setattr(eagle, "LlamaDecoderLayer", OldStyleLayer)
    pair = toy_pair()  # its drafter now has an old-style layer
    assert pair.eagle[0].cache_keyword == "past_key_values"
    tokens, cached = eagle_proposals(pair)
    assert cached > 0  # the cache really filled (with `cache=` it stayed empty and the next crop crashed)
    assert tokens == expected


def test_the_eagle_drafter_keeps_its_rotary_frequencies_in_float32():
    drafter = toy_pair().eagle[0]
    before = drafter.rotary.inv_freq.clone()
    drafter.cast("cpu", torch.bfloat16)
    assert drafter.fc.weight.dtype == drafter.layer.mlp.up_proj.weight.dtype == torch.bfloat16
    assert drafter.rotary.inv_freq.dtype == torch.float32 and torch.equal(drafter.rotary.inv_freq, before)


def test_the_default_target_is_cast_by_from_pretrained_so_rope_stays_exact(monkeypatch, tmp_path):
    folder = save_llama(tmp_path / "target", toy_tokenizer())
    monkeypatch.setattr(models, "default_target_folder", lambda progress=None: folder)
    exact, _ = models.load_default_target()
    model, _ = models.load_default_target(device="cpu", dtype=torch.bfloat16)
    assert model.dtype == torch.bfloat16
    assert torch.equal(model.model.rotary_emb.inv_freq, exact.model.rotary_emb.inv_freq)
    rounded = copy.deepcopy(exact).to(torch.bfloat16)  # what the old `.to(dev, dt)` did
    assert not torch.equal(rounded.model.rotary_emb.inv_freq.float(), exact.model.rotary_emb.inv_freq)


def test_the_separate_draft_is_never_assembled_from_rounded_weights_for_a_float32_run(monkeypatch, tmp_path):
    monkeypatch.setenv("SPECVIZ_CACHE", str(tmp_path / "cache"))
    pair = toy_pair()
    save_draft(draft_from_target(pair.target, shallow=1), 1, tmp_path / "assets", {"note": "test"})
    folder = tmp_path / "assets" / "smollm2-draft"
    target32 = pair.target
    layer0 = target32.model.layers[0].mlp.up_proj.weight

    draft16 = draft_model(copy.deepcopy(target32).to(torch.bfloat16), pair.tokenizer, folder)  # no float32 source
    assert draft16.dtype == torch.bfloat16
    assert {p.name.rsplit("-", 1)[-1] for p in (tmp_path / "cache" / "models").iterdir() if p.is_dir()} == {"bfloat16"}

    draft32 = draft_model(target32, pair.tokenizer, folder)  # must not reuse the bfloat16 assembly
    assert torch.equal(draft32.model.layers[0].mlp.up_proj.weight, layer0)

    weights = tmp_path / "target-f32"
    target32.save_pretrained(weights)
    draft16 = draft_model(copy.deepcopy(target32).to(torch.bfloat16), pair.tokenizer, folder, target_weights=weights)
    assert torch.equal(draft16.model.layers[0].mlp.up_proj.weight, layer0.to(torch.bfloat16))  # rounded once
    assert draft16.model.rotary_emb.inv_freq.dtype == torch.float32


class Loaded(torch.nn.Module):
    """What a stubbed from_pretrained returns: moving it anywhere is recorded (a real move to cuda fails here)."""

    def __init__(self):
        super().__init__()
        self.moved_to = None

    def to(self, *args, **kwargs):
        self.moved_to = args[0] if args else kwargs.get("device")
        return self


@pytest.mark.parametrize("target,draft,expected", [
    ("cuda:0", "cuda:0", {"": 0}),
    ("cpu", "cpu", None),
])
def test_models_load_straight_onto_a_gpu(monkeypatch, tmp_path, target, draft, expected):
    seen = []

    def from_pretrained(folder, **kwargs):
        seen.append(kwargs)
        return Loaded()

    monkeypatch.setattr(loading.AutoModelForCausalLM, "from_pretrained", from_pretrained)
    placement = Placement(torch.device(target), torch.device(draft))
    for is_target in (True, False):
        model = loading._load_weights(tmp_path, "m", torch.bfloat16, placement, is_target, False)
        assert seen[-1].get("device_map") == expected
        assert model.moved_to == (None if expected else placement.target_device)


def test_a_sharded_target_still_uses_device_map_auto(monkeypatch, tmp_path):
    seen = []
    monkeypatch.setattr(loading.AutoModelForCausalLM, "from_pretrained",
                        lambda folder, **kwargs: seen.append(kwargs) or Loaded())
    placement = Placement(torch.device("cuda", 0), torch.device("cuda", 1), max_memory={0: "10GiB", 1: "10GiB"})
    loading._load_weights(tmp_path, "m", torch.bfloat16, placement, True, False)
    loading._load_weights(tmp_path, "m", torch.bfloat16, placement, False, False)
    assert seen[0]["device_map"] == "auto" and seen[1]["device_map"] == {"": 1}


def test_the_test_suite_runs_on_the_cpu_even_on_a_gpu_host():
    """conftest hides the GPUs unless SPECVIZ_TEST_DEVICE asks for one, so fixtures never follow the host's device."""
    if not os.environ.get("SPECVIZ_TEST_DEVICE", "").startswith("cuda"):
        assert os.environ["CUDA_VISIBLE_DEVICES"] == "" and not torch.cuda.is_available()


def test_the_offline_target_is_found_where_the_transfer_puts_it(monkeypatch, tmp_path):
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setenv("SPECVIZ_GGUF", str(gguf))
    assert models.default_target_gguf() == gguf
    monkeypatch.setenv("SPECVIZ_GGUF", str(tmp_path / "missing.gguf"))
    with pytest.raises(ValueError, match="SPECVIZ_GGUF does not name a file"):
        models.default_target_gguf()


def test_a_model_with_the_old_keyword_feeds_its_cache(monkeypatch):
    """CachedModel reads the keyword off forward's signature: an old-style model's cache fills and rewinds."""
    from specviz.engine.kvcache import CachedModel

    target = toy_pair().target
    new = cache_keyword(LlamaForCausalLM)

    class Old(torch.nn.Module):
        config = target.config

        def parameters(self, recurse=True):
            return target.parameters(recurse)

        def forward(self, input_ids=None, past_key_values=None, use_cache=None, **kwargs):
            return target(input_ids=input_ids, use_cache=use_cache, **{new: past_key_values}, **kwargs)

    runner = CachedModel(Old())
    assert runner.cache_keyword == "past_key_values"
    ids = list(range(2, 12))
    runner.feed(ids[:6])
    assert runner.cache.get_seq_length() == 6
    runner.rewind(3)
    again = runner.feed(ids[:8], keep=5)
    with torch.inference_mode():
        fresh = target(torch.tensor([ids[:8]])).logits[0, 3:]
    assert torch.allclose(again, fresh, atol=1e-5)
