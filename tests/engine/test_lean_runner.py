"""The engine's lean target runner (`LeanCachedModel`, issue 30's leaner step) computes what the transformers
forward computes: the same logits and hidden states for plain tokens, trees, compaction and rewinds."""

import pytest
import torch
from transformers import GPT2Config, GPT2LMHeadModel

from specviz.engine.kvcache import CachedModel, LeanCachedModel, runner_for
from specviz.engine.tree import ROOT, DraftTree
from specviz.models.pairs import toy_pair


def both(model, layers=(-1,)):
    return CachedModel(model, feature_layers=layers), LeanCachedModel(model, feature_layers=layers)


def test_plain_tokens_trees_compaction_and_rewinds_match_the_transformers_forward():
    target = toy_pair().target
    hf, lean = both(target, layers=(1, -1))
    sequence = [3, 4, 5, 6, 7, 8, 9]
    for runner in (hf, lean):
        runner.prefill(sequence)
    a, b = hf.feed(sequence, [10, 11], keep=3, features=True), lean.feed(sequence, [10, 11], keep=3, features=True)
    torch.testing.assert_close(b, a, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(lean.last_hidden, hf.last_hidden, atol=1e-5, rtol=1e-5)
    assert lean.last_hidden.shape == (3, 2 * target.config.hidden_size)  # the prompt's last token, 10 and 11
    for runner in (hf, lean):
        runner.rewind(5)  # a rejection: forget the last tokens
    assert hf.tokens == lean.tokens == sequence[:5]
    tree = DraftTree([12, 13, 14, 15], [ROOT, ROOT, 0, 2], torch.zeros(4, 34))
    a, b = hf.feed_tree(sequence[:6], tree, features=True), lean.feed_tree(sequence[:6], tree, features=True)
    torch.testing.assert_close(b, a, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(lean.last_hidden, hf.last_hidden, atol=1e-5, rtol=1e-5)
    for runner in (hf, lean):
        runner.keep_path([0, 2, 3])  # the accepted path: the cache keeps the context plus those nodes
    assert hf.tokens == lean.tokens == sequence[:6] + [12, 14, 15]
    a, b = hf.feed(hf.tokens + [16, 17], keep=2), lean.feed(lean.tokens + [16, 17], keep=2)
    torch.testing.assert_close(b, a, atol=1e-5, rtol=1e-5)
    with torch.no_grad():  # and both equal one forward over the accepted sequence, without any cache
        fresh = target(torch.tensor([sequence[:6] + [12, 14, 15, 16, 17]])).logits[0, -2:]
    torch.testing.assert_close(b, fresh, atol=1e-5, rtol=1e-5)


def test_its_cache_grows_past_its_first_size():
    target = toy_pair().target
    hf, lean = both(target)
    sequence = [3 + i % 30 for i in range(300)]  # over 256: the first reservation holds exactly these 300
    a, b = hf.feed(sequence, keep=4), lean.feed(sequence, keep=4)
    torch.testing.assert_close(b, a, atol=1e-4, rtol=1e-4)
    assert lean._keys.shape[2] == 300
    a, b = hf.feed(sequence + [5], keep=1), lean.feed(sequence + [5], keep=1)  # one more: the cache grows (600)
    assert lean._keys.shape[2] == 600
    torch.testing.assert_close(b, a, atol=1e-4, rtol=1e-4)


def test_the_engine_takes_it_for_llama_only_and_the_switch_turns_it_off(monkeypatch):
    assert isinstance(runner_for(toy_pair().target), LeanCachedModel)
    gpt2 = GPT2LMHeadModel(GPT2Config(vocab_size=40, n_positions=32, n_embd=16, n_layer=1, n_head=2)).eval()
    assert type(runner_for(gpt2)) is CachedModel
    monkeypatch.setenv("SPECVIZ_TRANSFORMERS_FORWARD", "1")
    assert type(runner_for(toy_pair().target)) is CachedModel


@pytest.mark.parametrize("nodes", [0, 6])
def test_greedy_speculative_output_is_the_same_on_both_runners(nodes, monkeypatch):
    from specviz.engine.decoding import speculative_generate
    from specviz.engine.proposers import make_proposer

    toy = toy_pair()
    ids = toy.tokenizer("abcab the cat")["input_ids"]
    outputs = []
    for switch in ("0", "1"):
        monkeypatch.setenv("SPECVIZ_TRANSFORMERS_FORWARD", switch)
        trace = speculative_generate(toy.target, make_proposer(toy, "eagle"), ids, k=3, max_new_tokens=30,
                                     eos_token_id=[], tree_nodes=nodes, tree_width=2)
        outputs.append(trace.output_ids)
    assert outputs[0] == outputs[1] and len(outputs[0]) == 30


def test_the_lean_runner_quotes_no_figure_its_source_does_not_hold():
    """Issue 43, fourteenth read: LeanCachedModel's docstring said a transformers forward spent "about a third of a
    one-token step outside its matrix products" and cited docs/benchmarks.md, which quotes no such figure: it came
    from commit ac09907's one-off /tmp script on an unnamed machine, which docs/benchmarks.md declines to quote."""
    from pathlib import Path

    from specviz.engine.kvcache import LeanCachedModel

    doc = LeanCachedModel.__doc__
    assert "a third" not in doc and "no figure is quoted here" in doc
    assert "a third" not in (Path(__file__).parents[2] / "docs" / "benchmarks.md").read_text(encoding="utf-8")


def test_the_tree_mask_docstring_names_the_value_the_runner_writes():
    """Issue 43, 21st read: `CachedModel._run` said its tree mask goes in as "0 / -inf"; it writes the dtype's lowest
    finite value (`torch.finfo(dtype).min`), which is what the docstring says now."""
    import inspect

    doc = " ".join((CachedModel._run.__doc__ or "").split())
    assert "0 / -inf" not in doc and "`torch.finfo(dtype).min`, not -inf" in doc
    assert "masked_fill(~mask, torch.finfo(dtype).min)" in inspect.getsource(CachedModel._run)


def test_the_lean_docstring_says_which_grouped_query_copies_transformers_makes():
    """transformers 5.24's SDPA path copies each kv head for its query heads (`repeat_kv`) only when a mask is passed,
    as over several cached tokens; a one-token step gets no mask and `enable_gqa` (its decision, on a CPU)."""
    import inspect

    from transformers.integrations import sdpa_attention

    keys = torch.zeros(1, 3, 5, 64)
    assert sdpa_attention.use_gqa_in_sdpa(None, keys, keys)  # one token: no mask, no copy
    assert not sdpa_attention.use_gqa_in_sdpa(torch.ones(1, 1, 2, 5, dtype=torch.bool), keys, keys)  # masked: copies
    assert "repeat_kv(key" in inspect.getsource(sdpa_attention.sdpa_attention_forward)
    doc = LeanCachedModel.__doc__
    assert "over several tokens under a mask" in doc and "One token costs no\n    copy in either" in doc
