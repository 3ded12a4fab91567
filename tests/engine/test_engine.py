"""The speculative loop on the toy pair: greedy equality, caches, stop rules, determinism, trace JSON."""

import inspect
import math
import re

import pytest
import torch

from specviz.engine.baseline import autoregressive_generate
from specviz.engine.decoding import speculative_generate
from specviz.engine.kvcache import CachedModel
from specviz.engine.proposers import PROPOSERS, Proposal, Proposer, make_proposer
from specviz.engine.trace import Trace

PROMPTS = ["hello there", "the sky is blue because", "abcabcabcab"]


def proposer(pair, name):
    return make_proposer(pair, name, layers=1)


@pytest.fixture(scope="module")
def greedy_references(toy):
    """Per prompt: its ids, and the target-only output, checked once against `model.generate` (the same for every
    proposer and K below, so computed once, not once per proposer and K)."""
    references = []
    for text in PROMPTS:
        ids = toy.tokenizer(text)["input_ids"]
        plain = autoregressive_generate(toy.target, ids, max_new_tokens=30, tokenizer=toy.tokenizer)
        hf = toy.target.generate(torch.tensor([ids]), do_sample=False, max_new_tokens=30)[0, len(ids):].tolist()
        assert plain.output_ids == hf
        references.append((ids, hf))
    return references


@pytest.mark.parametrize("name", PROPOSERS)
@pytest.mark.parametrize("k", [pytest.param(1, marks=pytest.mark.slow), 3, pytest.param(5, marks=pytest.mark.slow)])
def test_greedy_speculative_equals_target_only_and_generate(toy, greedy_references, name, k):
    assert len(greedy_references) == len(PROMPTS)
    for ids, reference in greedy_references:
        spec = speculative_generate(toy.target, proposer(toy, name), ids, k=k, max_new_tokens=30, tokenizer=toy.tokenizer)
        assert spec.output_ids == reference


def test_draft_model_proposer_accepts_some_and_rejects_some(toy):
    """The toy draft agrees with the target often but not always, so every token kind appears."""
    ids = toy.tokenizer("hello there")["input_ids"]
    trace = speculative_generate(toy.target, toy.draft, ids, k=4, max_new_tokens=64, temperature=1.0, seed=3,
                                 tokenizer=toy.tokenizer, eos_token_id=[])
    kinds = {t.kind for s in trace.steps for t in s.emitted} | {d.kind for s in trace.steps for d in s.decisions}
    assert {"accepted", "rejected", "recovered", "bonus"} <= kinds
    assert 0.2 < trace.acceptance_rate < 0.95
    assert trace.mean_accepted_length > 1.5


def test_trace_numbers_are_consistent(toy):
    ids = toy.tokenizer("hello there")["input_ids"]
    trace = speculative_generate(toy.target, toy.draft, ids, k=3, max_new_tokens=40, temperature=1.0, seed=1,
                                 tokenizer=toy.tokenizer, eos_token_id=[])
    assert sum(len(s.emitted) for s in trace.steps) == trace.num_tokens == 40
    assert [t.token_id for s in trace.steps for t in s.emitted] == trace.output_ids
    for step in trace.steps:
        reached = [d for d in step.decisions if d.reached]
        # every tested draft before the last was accepted; decisions after the first rejection were not reached
        assert all(d.accepted for d in reached[:-1])
        assert all(d.uniform is None and not d.accepted for d in step.decisions if not d.reached)
        for d in reached:
            assert d.accepted == (d.uniform < d.accept_prob)
            assert d.accept_prob == pytest.approx(min(1.0, d.target_prob / d.draft_prob), rel=1e-5)
            assert len(d.target_top) == 10 and len(d.draft_top) == 10
        last = step.emitted[-1]
        if len(step.emitted) == step.n_accepted + 1:
            assert last.kind == ("bonus" if step.n_accepted == step.k else "recovered")
        assert step.draft_cache_after <= step.target_cache_after  # the draft never runs ahead of the target
        assert step.draft_seconds >= 0 and step.verify_seconds > 0 and step.overhead_seconds >= 0
    # caches: between steps the target holds the whole context but its newest token, which the next step feeds
    assert trace.steps[0].target_cache_before == len(ids) - 1
    for step, following in zip(trace.steps, trace.steps[1:]):
        assert step.target_cache_after == following.target_cache_before == following.context_length - 1
    # the p the cached target scored equals a fresh, uncached forward over the same tokens: a stale or misplaced
    # cache entry after a rewind would change it (temperature 1, no top-k/top-p: p is the plain softmax)
    sequence = list(ids) + trace.output_ids
    with torch.inference_mode():
        for step in trace.steps:
            context, drafts = sequence[: step.context_length], [d.token_id for d in step.decisions]
            fresh = torch.softmax(toy.target(torch.tensor([context + drafts])).logits[0, len(context) - 1:], -1)
            for i, d in enumerate(step.decisions):  # fresh: (K+1, V)
                assert d.target_prob == pytest.approx(fresh[i, d.token_id].item(), rel=1e-4, abs=1e-7)
            for i, t in enumerate(step.emitted):  # accepted drafts, then the recovered or bonus token
                assert t.target_prob == pytest.approx(fresh[i, t.token_id].item(), rel=1e-4, abs=1e-7)
    assert trace.per_position_acceptance[0] >= trace.per_position_acceptance[-1]
    assert trace.output_text == toy.tokenizer.decode(trace.output_ids, skip_special_tokens=True)


def test_a_trees_per_position_acceptance_is_the_share_of_steps_whose_path_reached_each_depth(toy):
    """A tree step's decisions stop at its first rejection, so "drafted at least i tokens" is the tree's depth, and
    entry i is the share of steps whose accepted path reached depth i + 1: it falls with i, as a chain's does."""
    ids = toy.tokenizer("hello world")["input_ids"]
    trace = speculative_generate(toy.target, toy.draft, ids, k=3, max_new_tokens=40, temperature=1.0, seed=2,
                                 tokenizer=toy.tokenizer, tree_nodes=8, tree_width=2)
    steps = [s for s in trace.steps if s.tree is not None]
    assert steps and all(s.draft_depth == max(n.depth for n in s.tree.nodes) for s in steps)
    rates = trace.per_position_acceptance
    assert rates == sorted(rates, reverse=True)
    deep = [s for s in trace.steps if s.draft_depth >= 1]
    assert rates[0] == pytest.approx(sum(s.n_accepted >= 1 for s in deep) / len(deep))


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_stops_exactly_at_eos_and_max_new_tokens(toy):
    ids = toy.tokenizer("hello")["input_ids"]
    free = speculative_generate(toy.target, toy.draft, ids, k=4, max_new_tokens=200, temperature=1.0, seed=0,
                                eos_token_id=[])
    eos = free.output_ids[10]  # pretend the 11th token is the end-of-sequence token
    first = free.output_ids.index(eos)
    cut = speculative_generate(toy.target, toy.draft, ids, k=4, max_new_tokens=200, temperature=1.0, seed=0,
                               eos_token_id=eos)
    assert cut.output_ids == free.output_ids[: first + 1] and cut.stop_reason == "eos"
    for n in (1, 2, 7, 13):
        short = speculative_generate(toy.target, toy.draft, ids, k=4, max_new_tokens=n, temperature=1.0, seed=0,
                                     eos_token_id=[])
        assert len(short.output_ids) == n and short.stop_reason == "max_new_tokens"
        assert all(s.k <= n - 1 for s in short.steps)  # never drafts what cannot be emitted


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_same_seed_same_trace_and_other_seed_differs(toy):
    ids = toy.tokenizer("hello there")["input_ids"]

    def run(seed):
        trace = speculative_generate(toy.target, toy.draft, ids, k=3, max_new_tokens=30, temperature=1.0, seed=seed,
                                     tokenizer=toy.tokenizer, eos_token_id=[])
        data = trace.to_dict()
        for step in data["steps"]:
            for key in ("draft_seconds", "verify_seconds", "overhead_seconds"):
                step.pop(key)
        return data["output_ids"], data["steps"]

    assert run(11) == run(11)
    assert run(11)[0] != run(12)[0]


def test_trace_json_round_trip(toy):
    ids = toy.tokenizer("hello there")["input_ids"]
    trace = speculative_generate(toy.target, make_proposer(toy, "ngram"), ids, k=3, max_new_tokens=20,
                                 temperature=0.8, seed=2, tokenizer=toy.tokenizer)
    again = Trace.from_json(trace.to_json())
    assert again == trace
    assert again.to_dict()["summary"]["tokens"] == trace.num_tokens
    assert again.schema_version == 1
    # p/q is infinite for a token the draft could not propose (q = 0): it survives the round trip (read 50: a ratio
    # other than p/q is refused, so the token's q is 0 here too; read 52: so is a chain's accept_prob other than
    # min(1, p/q), which is 1 where q = 0 < p: a draft after the step's rejection, which no uniform contradicts)
    first = next(d for s in trace.steps for d in s.decisions if not d.reached)
    first.draft_prob, first.ratio, first.accept_prob = 0.0, math.inf, 1.0
    assert Trace.from_json(trace.to_json()) == trace


@pytest.mark.parametrize("bad", ["{", '{"steps": []}', '{"schema_version": 99, "steps": []}', "[1, 2]",
                                 '{"schema_version": 1, "steps": [{"index": 0}]}'])
def test_damaged_trace_json_is_one_clear_error(bad):
    with pytest.raises(ValueError) as info:
        Trace.from_json(bad)
    assert "\n" not in str(info.value)


def test_rewound_cache_gives_the_logits_of_a_fresh_forward(toy):
    runner = CachedModel(toy.target)
    seq = toy.tokenizer("hello there general")["input_ids"]
    runner.feed(seq[:-1])
    runner.feed(seq, [5, 6, 7, 8], keep=5)  # four drafts scored...
    runner.rewind(len(seq) + 1)  # ...one accepted
    continued = runner.feed(seq + [5, 9], keep=1)[-1]  # a recovered token after the accepted one
    with torch.no_grad():
        fresh = toy.target(torch.tensor([seq + [5, 9]])).logits[0, -1]
    assert torch.allclose(continued, fresh, atol=1e-5)
    assert len(runner) == len(seq) + 2


def test_all_accepted_case_feeds_the_drafts_last_token(toy):
    """When every draft is accepted the draft never saw its own K-th token; the next step must feed it."""
    ids = toy.tokenizer("abcabc")["input_ids"]
    prop = make_proposer(toy, "draft")
    trace = speculative_generate(toy.target, prop, ids, k=2, max_new_tokens=40, temperature=0.0,
                                 tokenizer=toy.tokenizer, eos_token_id=[])
    full = [s for s in trace.steps if s.n_accepted == s.k > 0]
    assert full, "expected at least one fully accepted step"
    seq = ids + trace.output_ids
    # the draft cache holds a prefix of the final sequence: nothing stale survived the rollbacks
    assert prop.runner.tokens == seq[: len(prop.runner.tokens)]


@pytest.mark.parametrize("kwargs, message", [
    ({"k": 0}, "K must be"), ({"k": 17}, "K must be"), ({"max_new_tokens": 0}, "max_new_tokens"),
    ({"max_new_tokens": 2049}, "max_new_tokens"), ({"temperature": -0.1}, "Temperature"),
    ({"top_p": 0.0}, "top-p"), ({"top_p": 1.5}, "top-p"), ({"top_k": -1}, "top-k"),
    # GenerationSettings says every bad value is refused on construction in one sentence; these passed (True as K,
    # 2.5 as top-k, an infinite temperature, a fractional seed) or failed later (a seed torch cannot take, a string)
    ({"k": True}, "K must be"), ({"max_new_tokens": True}, "max_new_tokens"), ({"top_k": 2.5}, "top-k"),
    ({"temperature": float("inf")}, "Temperature"), ({"temperature": "0.5"}, "Temperature"),
    ({"seed": 1.5}, "seed"), ({"seed": 2**70}, "seed"), ({"seed": -1}, "seed"),
])
def test_bad_settings_are_value_errors_with_one_sentence(toy, kwargs, message):
    with pytest.raises(ValueError, match=message):
        speculative_generate(toy.target, toy.draft, [3, 4], **kwargs)


def test_empty_and_too_long_prompts(toy):
    with pytest.raises(ValueError, match="empty"):
        speculative_generate(toy.target, toy.draft, [])
    with pytest.raises(ValueError, match="context"):
        speculative_generate(toy.target, toy.draft, [3] * 500, max_new_tokens=64)
    with pytest.raises(ValueError, match="empty"):
        autoregressive_generate(toy.target, torch.tensor([], dtype=torch.long))


@pytest.mark.parametrize("ids, message", [
    ([3, -1], "Token id -1 of the prompt is not in the model's vocabulary"),
    ([3, 34], "Token id 34 of the prompt is not in the model's vocabulary \\(ids 0 to 33\\)"),
    ([3, 4.5], "whole numbers \\(got 4.5\\)"), ([True, 4], "whole numbers \\(got True\\)"),
    (torch.tensor([3.0, 4.0]), "whole numbers"), ("hello", "encode a text with the tokenizer first"),
])
def test_a_prompt_of_ids_outside_the_vocabulary_is_one_sentence(toy, ids, message):
    """A prompt id the embedding cannot look up was torch's "index out of range in self" from inside the model, and
    4.5 was silently read as 4: a prompt is checked like every other setting (the target's vocabulary holds 34)."""
    assert toy.target.config.vocab_size == 34
    with pytest.raises(ValueError, match=message):
        speculative_generate(toy.target, toy.draft, ids, max_new_tokens=2)
    with pytest.raises(ValueError, match=message):
        autoregressive_generate(toy.target, ids, max_new_tokens=2)


def test_a_numpy_prompt_still_runs(toy):
    import numpy as np

    ids = np.array([3, 4, 5])
    assert (speculative_generate(toy.target, toy.draft, ids, max_new_tokens=3).output_ids
            == autoregressive_generate(toy.target, [3, 4, 5], max_new_tokens=3).output_ids)


@pytest.mark.parametrize("kwargs, message", [
    ({"deadline": float("nan")}, "deadline must be a clock\\(\\) value"),  # nan never passed: the run never stopped
    ({"deadline": True}, "deadline must be"),
    ({"eos_token_id": True}, "eos_token_id must be a token id"),  # True stopped on token 1
    ({"eos_token_id": [2, "x"]}, "eos_token_id must be a token id"),
])
def test_a_deadline_or_stop_token_that_is_no_number_is_one_sentence(toy, kwargs, message):
    with pytest.raises(ValueError, match=message):
        speculative_generate(toy.target, toy.draft, [3, 4], max_new_tokens=2, **kwargs)


def test_a_numpy_stop_token_still_stops(toy):
    import numpy as np

    plain = autoregressive_generate(toy.target, [3, 4], max_new_tokens=6, eos_token_id=[])
    end = plain.output_ids[2]
    trace = speculative_generate(toy.target, toy.draft, [3, 4], max_new_tokens=6, eos_token_id=np.int64(end))
    assert trace.output_ids[-1] == end and trace.stop_reason == "eos" and len(trace.output_ids) <= 3


def test_numpy_settings_run_and_their_trace_saves_and_loads(toy):
    """GenerationSettings accepts NumPy's numbers (`limits.is_integral`), but its trace then held np.int64 and
    np.float32, and `to_json` raised "Object of type int64 is not JSON serializable" after the run; a NumPy K passed
    GenerationSettings and was refused by DraftShape. Read 33: both are kept as Python's numbers."""
    import numpy as np

    trace = speculative_generate(toy.target, toy.draft, [3, 4], k=np.int64(2), max_new_tokens=np.int64(3),
                                 temperature=np.float32(0.5), top_k=np.int64(5), top_p=np.float32(0.9),
                                 seed=np.uint32(7))
    again = Trace.from_json(trace.to_json())
    assert again.settings == trace.settings and trace.settings["k"] == 2 and trace.settings["top_k"] == 5
    assert [type(trace.settings[name]) for name in ("max_new_tokens", "temperature", "top_k", "top_p", "seed", "k")
            ] == [int, float, int, float, int, int]


def test_a_top_k_no_trace_file_may_hold_is_refused_before_the_run(toy):
    """top_k = 2**64 ran (any top-k past the vocabulary is off), and its own trace was then refused on loading
    ("settings['top_k'] must be a whole number from 0 to 9223372036854775807"): refused before the run instead."""
    with pytest.raises(ValueError, match=r"^top-k must be a whole number from 0 \(off\) to 9223372036854775807"):
        speculative_generate(toy.target, toy.draft, [3, 4], max_new_tokens=2, top_k=2**64, temperature=1.0)
    trace = speculative_generate(toy.target, toy.draft, [3, 4], max_new_tokens=2, top_k=2**63 - 1, temperature=1.0)
    assert Trace.from_json(trace.to_json()).settings["top_k"] == 2**63 - 1


@pytest.mark.parametrize("shape", ["chain K=4", True, {"k": 4}])
def test_a_shape_that_is_no_draft_shape_is_one_sentence(toy, shape):
    """A label, a bool or a mapping given as `shape` was an AttributeError ('str' object has no attribute 'k')."""
    with pytest.raises(ValueError, match="shape must be a DraftShape"):
        speculative_generate(toy.target, toy.draft, [3, 4], shape=shape, max_new_tokens=2)


class Counting(Proposer):
    """Copies the previous token, and counts the engine's calls."""

    name = "counting"

    def __init__(self):
        self.calls = {"propose": 0, "rollback": 0}

    def propose(self, sequence, k, sampling, generator) -> Proposal:
        self.calls["propose"] += 1
        return Proposal([sequence[-1]] * k, None)

    def rollback(self, valid_length: int) -> None:
        self.calls["rollback"] += 1


def test_propose_is_called_once_per_step_that_may_draft_and_rollback_every_step(toy):
    """Read 33: Proposer's docstring said the engine calls `propose` once per step; the last step of a run (room
    for one token) and a step whose K is 0 draft nothing and do not call it. `rollback` follows every step."""
    for limit, drafting_steps in ((1, 0), (6, None)):
        proposer = Counting()
        trace = speculative_generate(toy.target, proposer, [3, 4], k=2, max_new_tokens=limit, eos_token_id=[])
        assert proposer.calls["propose"] == sum(step.k > 0 for step in trace.steps)
        assert proposer.calls["rollback"] == trace.num_steps >= 1
        if drafting_steps is not None:  # room for the last token only: the one step drafts nothing
            assert proposer.calls["propose"] == drafting_steps and trace.steps[0].emitted[0].kind == "target"
    from specviz.engine.policies import Constant

    proposer = Counting()  # a policy that sets K = 0 at every step: no step drafts, none calls propose
    trace = speculative_generate(toy.target, proposer, [3, 4], k=2, max_new_tokens=4, eos_token_id=[],
                                 draft_length=Constant(0))
    assert [step.k for step in trace.steps] == [0] * 4 and proposer.calls == {"propose": 0, "rollback": 4}
    text = " ".join(inspect.getmodule(Proposer).__doc__.split())
    assert "once per chain step that may draft" in text and "calls `propose` once per step" not in text


class OutOfVocabulary(Proposer):
    """A proposer that drafts an id the target's vocabulary does not hold (a bug in someone's proposer)."""

    name = "outside"

    def propose(self, sequence, k, sampling, generator) -> Proposal:
        return Proposal([40] * k, None)


def test_a_proposer_that_drafts_outside_the_vocabulary_is_one_sentence(toy):
    """It was an IndexError from building q's point masses; the sentence names the proposer and the token."""
    with pytest.raises(ValueError, match="The outside proposer drafted 40, which is no token id of the target's "
                                         "vocabulary \\(0 to 33\\)"):
        speculative_generate(toy.target, OutOfVocabulary(), [3, 4], max_new_tokens=4)


def test_unknown_proposer_and_missing_draft(toy):
    with pytest.raises(ValueError, match="Unknown proposer"):
        make_proposer(toy, "hydra")
    from dataclasses import replace

    with pytest.raises(ValueError, match="no separate draft"):
        make_proposer(replace(toy, draft=None), "draft")
    with pytest.raises(ValueError, match="no trained EAGLE drafter"):
        make_proposer(replace(toy, eagle=None), "eagle")
    with pytest.raises(ValueError, match="no trained Medusa heads"):
        make_proposer(replace(toy, medusa=None), "medusa")
    with pytest.raises(ValueError, match="1 layer of the target.s 2"):
        make_proposer(toy, "layerskip", layers=2)


@pytest.mark.parametrize("layers", [True, 1.5, "1"])
def test_a_layer_count_that_is_no_whole_number_is_one_sentence(toy, layers):
    """True and 1.5 reached transformers' config, whose StrictDataclassFieldValidationError quoted a field of its
    own; "1" was a TypeError from the range check, then (read 47) a refusal that read "(got 1)", as if the number 1
    were refused: the text is quoted as '1'."""
    quoted = re.escape(repr(layers))
    says = f"A layer-skip draft keeps 1 layer of the target's 2, or 0 for the default: .* \\(got {quoted}\\)"
    with pytest.raises(ValueError, match=says):
        make_proposer(toy, "layerskip", layers=layers)


@pytest.mark.parametrize("keyword, shown", [("k", "K"), ("max_new_tokens", "max_new_tokens")])
def test_a_count_given_as_text_is_quoted_as_text_in_its_refusal(keyword, shown):
    """speculative_generate(k="3") was refused with "K must be a whole number from 1 to 16 (got 3)", which reads as
    if 3 were out of range (read 47): the text is quoted as '3', as the seed's and top-k's refusals quote theirs."""
    from specviz.engine.generation import GenerationSettings

    with pytest.raises(ValueError, match=rf"^{shown} must be a whole number from 1 to \d+ \(got '3'\)\.$"):
        GenerationSettings(**{keyword: "3"})


def test_the_layer_range_is_true_for_every_target_size(toy):
    """The refusal read "1 to 1 layers" for the two-layer toy and "1 to 0 layers" for a one-layer target, and left
    out 0 (the default, a quarter of the layers), which --layers accepts."""
    from specviz.core.i18n import using
    from specviz.engine.proposers.layerskip import layers_refusal

    with pytest.raises(ValueError) as refused:
        make_proposer(toy, "layerskip", layers=5)
    assert "1 to 1" not in str(refused.value) and "1 layer of the target's 2" in str(refused.value)
    assert "or 0 for the default" in str(refused.value)
    assert make_proposer(toy, "layerskip", layers=0).layers == 1  # 0: a quarter, at least 1
    assert "1 to 29 layers of the target's 30, or 0 for the default" in layers_refusal(30, 31)
    assert layers_refusal(1, 0).startswith("A layer-skip draft needs a target of at least 2 layers; this one has 1")
    with using("pt_BR"):
        assert "1 a 29 camadas" in layers_refusal(30, 31) and "1 camada das 2" in layers_refusal(2, 5)


def test_layerskip_draft_shares_weights_and_leaves_target_config_alone(toy):
    prop = make_proposer(toy, "layerskip", layers=1)
    assert toy.target.config.num_hidden_layers == 2
    draft = prop.runner.model
    assert draft.lm_head.weight.data_ptr() == toy.target.lm_head.weight.data_ptr()
    assert draft.model.layers[0] is toy.target.model.layers[0] and len(draft.model.layers) == 1


def test_no_draft_is_proposed_past_end_of_text_and_greedy_output_is_unchanged(toy):
    """A draft after an end-of-text draft could never be emitted: the proposal ends at the end-of-text token, and
    the greedy output stays exactly the target's."""
    ids = toy.tokenizer("hello there")["input_ids"]
    free = speculative_generate(toy.target, toy.draft, ids, k=4, max_new_tokens=60, tokenizer=toy.tokenizer,
                                eos_token_id=[])
    # a token the draft proposes in the middle of a step: call it end-of-text
    eos = next(d.token_id for s in free.steps for d in s.decisions[:-1])
    cut = speculative_generate(toy.target, toy.draft, ids, k=4, max_new_tokens=60, tokenizer=toy.tokenizer,
                               eos_token_id=eos)
    plain = autoregressive_generate(toy.target, ids, max_new_tokens=60, tokenizer=toy.tokenizer, eos_token_id=eos)
    assert cut.output_ids == plain.output_ids
    drafted_eos = [(s.index, d.position, s.n_drafted) for s in cut.steps for d in s.decisions if d.token_id == eos]
    assert drafted_eos, "expected the draft to propose the end-of-text token at least once"
    assert all(position == n - 1 for _, position, n in drafted_eos)  # always the last draft of its step


@pytest.mark.parametrize("main_leaves_first", [True, False])
def test_overlapping_thread_settings_leave_the_process_as_it_was(main_leaves_first):
    """Two sessions (or the lab and the bench) set torch's thread count in overlapping blocks, each in its own
    thread: whatever the order they leave in, every thread is back on the process's own count, not on one block's."""
    import threading

    from specviz.engine.generation import torch_threads

    torch.set_num_threads(3)  # a count no block sets (the autouse fixture restores the suite's own afterwards)
    inside, release, seen = threading.Event(), threading.Event(), []

    def other_session():
        with torch_threads(1):
            inside.set()
            release.wait(10)
        seen.append(torch.get_num_threads())

    thread = threading.Thread(target=other_session)
    thread.start()
    inside.wait(10)
    with torch_threads(1):
        if not main_leaves_first:
            release.set()
            thread.join()
    release.set()
    thread.join()
    assert torch.get_num_threads() == 3 and seen == [3]


class FixedProposer(Proposer):
    """Proposes the same tokens every step (a deterministic proposer, like n-gram lookup)."""

    name = "fixed"

    def __init__(self, tokens: list[int]):
        self.tokens = tokens

    def propose(self, sequence, k, sampling, generator) -> Proposal:
        return Proposal(self.tokens[:k], None)


def test_a_proposal_stops_before_a_chat_template_marker(toy, monkeypatch):
    """n-gram lookup copies <|im_start|> from the chat template in the prompt; a model never writes it inside an
    answer, so the proposal ends just before it (and the greedy output is still the target's)."""
    marker = toy.tokenizer.convert_tokens_to_ids("<unk>")
    monkeypatch.setattr(toy.tokenizer, "chat_template", "{{ '<unk>' + messages[0]['content'] }}", raising=False)
    ids = toy.tokenizer("hello there")["input_ids"]
    trace = speculative_generate(toy.target, FixedProposer([5, marker, 6]), ids, k=3, max_new_tokens=12,
                                 tokenizer=toy.tokenizer, eos_token_id=[])
    drafted = [[d.token_id for d in s.decisions] for s in trace.steps]
    assert drafted[0] == [5] and all(d in ([5], []) for d in drafted)  # [] once only the last token is left
    plain = autoregressive_generate(toy.target, ids, max_new_tokens=12, tokenizer=toy.tokenizer, eos_token_id=[])
    assert trace.output_ids == plain.output_ids


class SampledMarkerProposer(Proposer):
    """A model-like proposer whose q puts mass on a chat-template marker, and which drafts that marker."""

    name = "sampled"

    def __init__(self, marker: int, vocab_size: int):
        self.marker, self.vocab_size = marker, vocab_size

    def propose(self, sequence, k, sampling, generator) -> Proposal:
        q = torch.full((k, self.vocab_size), 0.5 / (self.vocab_size - 1))
        q[:, self.marker] = 0.5
        return Proposal([self.marker] * k, q)


def test_a_sampled_draft_is_never_cut_for_what_it_is(toy, monkeypatch):
    """Cutting x after drawing it from q would change the output distribution (p − D·r + q(marker)·p instead of p):
    only a deterministic proposal ends before a marker; a drafted marker with a real q is verified like any token."""
    marker = toy.tokenizer.convert_tokens_to_ids("<unk>")
    monkeypatch.setattr(toy.tokenizer, "chat_template", "{{ '<unk>' + messages[0]['content'] }}", raising=False)
    ids = toy.tokenizer("hello there")["input_ids"]
    trace = speculative_generate(toy.target, SampledMarkerProposer(marker, toy.target.config.vocab_size), ids, k=3,
                                 max_new_tokens=8, temperature=1.0, tokenizer=toy.tokenizer, eos_token_id=[])
    assert trace.steps[0].n_drafted == 3 and trace.steps[0].decisions[0].token_id == marker


@pytest.mark.slow  # over the fast tier's 0.7 s a test
def test_a_too_long_prompt_is_refused_at_the_positions_the_target_reads(toy):
    """Issue 43, 21st read: the refusal named numbers that did not add up; 24th read: it then said "with K = 4
    drafted ahead it needs prompt + 64 + 4 positions", but the target reads only the prompt and every new token but
    the last (a step never drafts past the token limit), so a prompt that fills the context that way runs, with
    any K, and one token more is refused with the count the target would read."""
    limit = toy.target.config.max_position_embeddings
    fits = [3] * (limit - 64 + 1)  # prompt + 63 fed new tokens = the whole context
    runs = [speculative_generate(toy.target, toy.draft, fits, max_new_tokens=64, k=k) for k in (1, 4, 16)]
    runs.append(speculative_generate(toy.target, toy.draft, fits, max_new_tokens=64, k=4, tree_nodes=8,
                                     tree_lookup=16))
    for trace in runs:  # the deepest position a step feeds: its context's last token plus its deepest draft
        assert trace.num_tokens >= 1 and trace.num_drafted > 0
        assert max(s.context_length - 1 + s.draft_depth for s in trace.steps) <= limit - 1
    assert 1 <= autoregressive_generate(toy.target, fits, max_new_tokens=64).num_tokens <= 64
    for generate in (lambda p: speculative_generate(toy.target, toy.draft, p, max_new_tokens=64, k=4),
                     lambda p: autoregressive_generate(toy.target, p, max_new_tokens=64)):
        with pytest.raises(ValueError) as refused:
            generate(fits + [3])
        assert f"with 64 new tokens the target reads {limit + 1} positions" in str(refused.value)
        assert "drafted ahead" not in str(refused.value)


def test_a_keyword_neither_settings_object_knows_is_pythons_own_type_error(toy):
    """settings_from's docstring: an unknown keyword is the TypeError Python raises for a keyword argument a function
    does not take (it once said "for a missing parameter", which is another TypeError)."""
    from specviz.engine import decoding

    with pytest.raises(TypeError, match=r"autoregressive_generate\(\) got an unexpected keyword argument 'kk'"):
        autoregressive_generate(toy.target, [3, 4, 5], kk=4)
    assert "missing parameter" not in decoding.settings_from.__doc__


def test_the_eagle_docstring_says_what_the_draft_vocabulary_counts():
    """eagle.py said the FR-Spec vocabulary holds "the tokens the target actually writes"; it is the most frequent
    tokens of the training records' whole sequences (prompt and answer: `Record.prompt_length` marks the split)."""
    import inspect

    from specviz.distill import cli
    from specviz.distill.data import Record
    from specviz.engine.proposers import eagle

    assert "bincount(r.tokens" in inspect.getsource(cli.draft_vocabulary)  # every token of each record
    assert "prompt_length" in Record.__dataclass_fields__
    doc = " ".join(eagle.__doc__.split())
    assert "actually writes" not in doc and "the prompts and the target's answers" in doc


def test_eos_token_id_replaces_the_models_stop_tokens_as_decode_options_says(toy):
    """DecodeOptions said `eos_token_id` "adds stop tokens to the model's"; `eos_ids` takes the given ids in place of
    the model's (issue 43, 24th read): with eos_token_id=5 a run stops at 5 and writes the model's end of text (1)."""
    from specviz.engine import decoding
    from specviz.engine.generation import eos_ids

    assert toy.target.generation_config.eos_token_id == 1
    assert eos_ids(toy.target, toy.tokenizer, 5) == {5} and eos_ids(toy.target, toy.tokenizer) == {1}
    doc = " ".join(decoding.DecodeOptions.__doc__.split())
    assert "adds stop tokens" not in doc and "in place of the model's" in doc
    assert "nothing here changes which tokens it samples" not in doc
    assert "short enough" not in decoding.prompt_ids.__doc__  # check_context checks the length, not prompt_ids


def test_a_feature_drafter_holds_the_state_of_every_kept_token_after_a_step(toy):
    """eagle.py and medusa.py said at rollback that "the last valid token has not been read yet"; in a step the
    target has read every kept token, and observe_target hands the drafter the state of each, the last included."""
    from specviz.engine.proposers import eagle, medusa

    proposer = make_proposer(toy, "eagle")
    kept: list[int] = []
    trace = speculative_generate(toy.target, proposer, [3, 4, 5, 3, 4], k=3, max_new_tokens=12,
                                 on_step=lambda o: kept.append(o.context_length + o.verdict.n_accepted))
    assert trace.num_steps >= 2 and len(proposer.features) == kept[-1]
    for module in (eagle, medusa):
        assert "has not been read yet" not in inspect.getsource(module)


@pytest.mark.parametrize("temperature", [1e-300, 1e-45])
def test_a_tiny_temperature_samples_the_greedy_text_not_nan(toy, temperature):
    """The 29th read: logits / 1e-300 overflowed to inf and the softmax gave nan, so a run at a temperature the
    settings accept (any finite number, 0 or more) died in torch.multinomial; T -> 0 is the greedy argmax."""
    ids = toy.tokenizer.encode("the quick brown")
    tiny = speculative_generate(toy.target, toy.draft, ids, k=3, max_new_tokens=12, temperature=temperature, seed=1)
    greedy = autoregressive_generate(toy.target, ids, max_new_tokens=12, temperature=0.0)
    assert tiny.output_ids == greedy.output_ids


def test_target_only_draws_one_number_per_token_and_does_not_share_the_speculative_runs_draws(toy):
    """Read 36: the baseline's docstring said target-only decoding makes "the same random draws (one per token)" as
    the speculative loop. It makes one draw per token; the loop also draws a u per tested draft, so at T > 0 a seed
    gives the two runs different draws, and here different texts on some seed."""
    import specviz.engine.baseline as baseline

    ids = toy.tokenizer(PROMPTS[0])["input_ids"]
    settings = dict(max_new_tokens=12, temperature=1.0)
    draws = []
    real = torch.multinomial

    def counted(*args, **kwargs):
        draws.append(1)
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(torch, "multinomial", counted)
        plain = autoregressive_generate(toy.target, ids, seed=0, **settings)
    assert len(draws) == len(plain.output_ids) == 12
    parted = [seed for seed in range(5)
              if autoregressive_generate(toy.target, ids, seed=seed, **settings).output_ids
              != speculative_generate(toy.target, toy.draft, ids, k=3, seed=seed, **settings).output_ids]
    assert parted
    assert "the same random draws" not in baseline.__doc__


def test_a_seed_repeats_the_tokens_and_verdicts_not_the_timings(toy):
    """Read 36: the loop's docstring said "the same call gives the same trace" and the generator's "same seed, same
    trace"; a trace also holds timings, measured anew each run, and another dtype can change the tokens (the
    Playground's seed test shows a seed where bfloat16 parts from float32). Same tokens and verdicts, then."""
    import specviz.engine.decoding as decoding
    from specviz.engine.generation import GenerationSettings

    ids = toy.tokenizer(PROMPTS[0])["input_ids"]
    first, second = (speculative_generate(toy.target, toy.draft, ids, k=3, seed=5, temperature=1.0,
                                          max_new_tokens=24) for _ in range(2))
    assert first.output_ids == second.output_ids
    verdicts = [[(d.token_id, d.accepted, d.uniform) for d in step.decisions] for step in first.steps]
    assert verdicts == [[(d.token_id, d.accepted, d.uniform) for d in step.decisions] for step in second.steps]
    timings = [(s.draft_seconds, s.verify_seconds) for s in first.steps]
    assert timings != [(s.draft_seconds, s.verify_seconds) for s in second.steps]
    assert "gives the same trace" not in decoding.__doc__
    assert "same seed, same trace" not in GenerationSettings.generator.__doc__


def test_a_too_long_run_counts_one_prompt_token_or_one_new_token_in_the_singular():
    """Read 44: the context refusal read "The prompt has 1 tokens" for a one-character prompt on the toy pair (whose
    context is 512) and "with 1 new tokens" at a token limit of 1 ("O prompt tem 1 tokens" in Portuguese)."""
    from types import SimpleNamespace

    from specviz.core.i18n import using
    from specviz.engine.generation import GenerationSettings, check_context

    model = SimpleNamespace(config=SimpleNamespace(max_position_embeddings=512))
    with pytest.raises(ValueError) as one_prompt:
        check_context(model, 1, GenerationSettings(max_new_tokens=600))
    assert str(one_prompt.value) == ("The prompt has 1 token; with 600 new tokens the target reads 600 positions "
                                     "(every new token but the last), more than the model's context of 512.")
    with pytest.raises(ValueError) as one_new:
        check_context(model, 600, GenerationSettings(max_new_tokens=1))
    assert str(one_new.value).startswith("The prompt has 600 tokens; with 1 new token the target reads 600 ")
    with using("pt"), pytest.raises(ValueError) as one_pt:
        check_context(model, 1, GenerationSettings(max_new_tokens=600))
    assert str(one_pt.value).startswith("O prompt tem 1 token; com 600 tokens novos, o alvo lê 600 posições")
