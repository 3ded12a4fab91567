"""Medusa heads as a proposer: head k reads the target's newest state and guesses the k-th token after the sequence;
a tree's depth-d nodes get head d + 1's children; greedy decoding gives the target's own tokens, and the heads
see the states the target computed (a plain forward's, to float32 rounding)."""

import inspect

import pytest
import torch

from specviz.engine.baseline import autoregressive_generate
from specviz.engine.decoding import speculative_generate
from specviz.engine.proposers import make_proposer
from specviz.engine.proposers.medusa import MedusaHeads, MedusaProposer
from specviz.engine.sampling import SamplingConfig
from specviz.engine.tree import ROOT


@pytest.fixture
def medusa(toy):
    return make_proposer(toy, "medusa")


def head_rows(toy, heads, state):
    """Each head's logits over the toy vocabulary, computed here by hand: lm_head(f + SiLU(W f + b))."""
    rows = []
    for block in heads.blocks:
        linear = block[0].linear
        rows.append(toy.target.lm_head(state + torch.nn.functional.silu(linear(state))))
    return torch.stack(rows)


def test_head_k_reads_the_newest_state_and_guesses_the_kth_token_ahead(toy, medusa):
    hidden = toy.target.config.hidden_size
    states = torch.randn(5, hidden, generator=torch.Generator().manual_seed(0))
    medusa.observe_target(0, states)  # the target has read positions 0..4
    with torch.no_grad():
        expected = head_rows(toy, medusa.heads, states[4])
        assert medusa.heads.count == 3
        assert torch.allclose(medusa.head_logits(list(range(6))), expected, atol=1e-5)  # 6 tokens: the last unread
        # a sequence one token longer than the states: head 1 would guess a token already there, so it is skipped
        assert torch.allclose(medusa.head_logits(list(range(7))), expected[1:], atol=1e-5)
        assert len(medusa.head_logits(list(range(9)))) == 0  # every head's guess is behind the sequence
        assert torch.allclose(medusa.head_logits(list(range(6)), 2), expected[:2], atol=1e-5)  # only what is asked
    medusa.rollback(3)  # tokens 0..2 stay; the target has read 0..1
    assert len(medusa.features) == 2


def test_a_greedy_chain_is_each_heads_top_token_and_no_deeper_than_the_heads(toy, medusa):
    medusa.observe_target(0, torch.randn(4, toy.target.config.hidden_size, generator=torch.Generator().manual_seed(1)))
    sequence = list(range(5))
    proposal = medusa.propose(sequence, 8, SamplingConfig(temperature=0.0), torch.Generator())
    logits = medusa.head_logits(sequence)
    assert proposal.tokens == logits.argmax(-1).tolist() and len(proposal.tokens) == medusa.heads.count == 3
    assert medusa.propose(sequence, 2, SamplingConfig(temperature=0.0), torch.Generator()).tokens == proposal.tokens[:2]
    empty = MedusaProposer(toy.target, medusa.heads)
    assert empty.propose(sequence, 3, SamplingConfig(temperature=1.0), torch.Generator()).tokens == []  # no state yet


@pytest.mark.parametrize("sampled", [False, True])
def test_a_trees_depth_d_nodes_come_from_head_d(toy, medusa, sampled):
    medusa.observe_target(0, torch.randn(4, toy.target.config.hidden_size, generator=torch.Generator().manual_seed(2)))
    sequence = list(range(5))
    sampling = SamplingConfig(temperature=1.0 if sampled else 0.0)
    tree = medusa.propose_tree(sequence, max_nodes=12, max_depth=6, width=2, sampling=sampling,
                               generator=torch.Generator().manual_seed(0), sampled=sampled)
    logits = medusa.head_logits(sequence)
    q = torch.stack([sampling.probs(row) for row in logits])
    assert len(tree.tokens) > 3 and tree.depth == 3  # as deep as the heads, never deeper
    for node, depth in enumerate(tree.depths):
        assert torch.allclose(tree.draft_probs[node], q[depth - 1]), (node, depth)
        if not sampled:  # Medusa's product tree: every parent's children are head d's best tokens
            assert tree.tokens[node] in logits[depth - 1].topk(2).indices.tolist()
    if sampled:  # drawn from head 1's q without replacement
        children = [tree.tokens[n] for n in tree.children(ROOT)]
        assert len(set(children)) == len(children) and set(children) <= set(q[0].nonzero().flatten().tolist())


@pytest.mark.parametrize("tree_nodes", [0, 6])
def test_greedy_medusa_gives_the_target_only_tokens(toy, medusa, tree_nodes):
    ids = toy.tokenizer("abcab the cat")["input_ids"]
    expected = autoregressive_generate(toy.target, ids, temperature=0.0, max_new_tokens=24, eos_token_id=[]).output_ids
    trace = speculative_generate(toy.target, medusa, ids, k=3, max_new_tokens=24, temperature=0.0, eos_token_id=[],
                                 tree_nodes=tree_nodes, tree_width=2)
    assert trace.output_ids == expected
    assert sum(s.n_drafted for s in trace.steps) >= len(trace.steps)  # it proposed every step
    assert {s.proposer for s in trace.steps} == {"medusa"}


def test_the_heads_read_the_states_the_target_computed(toy):
    """Through the engine: at every proposal, the heads' logits are those of the target's own last hidden state after
    the sequence minus its last token (one plain forward, no cache), to float32 rounding: head 1 guesses the first
    token after the sequence."""
    seen = []

    class Watching(MedusaProposer):
        def head_logits(self, sequence, most=None):
            out = super().head_logits(sequence, most)
            seen.append((list(sequence), out.clone()))
            return out

    heads, _ = toy.medusa
    ids = toy.tokenizer("abcab the cat")["input_ids"]
    speculative_generate(toy.target, Watching(toy.target, heads), ids, k=3, max_new_tokens=12, temperature=0.0,
                         eos_token_id=[])
    assert len(seen) >= 3
    with torch.no_grad():
        for sequence, logits in seen:
            out = toy.target(torch.tensor([sequence[:-1]]), output_hidden_states=True)
            expected = head_rows(toy, heads, out.hidden_states[-1][0, -1])
            assert len(logits) >= 1 and torch.allclose(logits, expected[: len(logits)], atol=1e-4)


def test_untrained_heads_repeat_the_targets_guess():
    """W = 0 and b = 0: every head's state is f itself, so each guesses what the LM head guesses (Medusa's start)."""
    heads = MedusaHeads(hidden=8, count=4)
    state = torch.randn(3, 8)
    assert torch.equal(heads(state), state[:, None].expand(3, 4, 8))
    with pytest.raises(ValueError, match="at least one head"):
        MedusaHeads(hidden=8, count=0)


def test_the_docstring_keeps_medusa_1s_own_output_layers_apart_from_the_shared_head():
    """Read 20: the module said "Medusa-1: ... every head shares its LM head; only each head's residual block is
    trained", but Medusa-1 (Cai et al. 2024, and FasterDecoding/Medusa's MedusaModel) gives every head its own output
    layer, initialised from the LM head and trained; sharing the target's head is specviz's own choice."""
    from specviz.engine.proposers import medusa as module

    doc = " ".join(module.__doc__.split())
    assert "Medusa-1: the target stays frozen and every head shares its LM head" not in doc
    assert "each head also has an output layer of its own" in doc
    assert "Here every head shares the target's LM head" in doc
    assert not any(isinstance(m, torch.nn.Linear) and m.out_features != m.in_features
                   for m in MedusaHeads(hidden=8, count=2).modules())  # no head carries a vocabulary-wide layer


def test_the_docstring_says_only_eagle_1_reads_tokens_off_the_targets_head():
    """The module said the heads share the target's LM head rows "as the EAGLE drafter does"; the default pair's EAGLE
    drafter is an EAGLE-3 one (assets/models/smollm2-eagle/specviz.json), whose head is its own, trained."""
    import inspect
    import json

    from specviz.core.paths import MODELS_DIR
    from specviz.engine.proposers import eagle, medusa as module
    from specviz.engine.proposers.eagle3 import Eagle3Drafter

    doc = " ".join(module.__doc__.split())
    assert "as the EAGLE drafter does" not in doc and "EAGLE-1 `EagleDrafter`" in doc
    assert json.loads((MODELS_DIR / "smollm2-eagle" / "specviz.json").read_text())["kind"] == "eagle3"
    assert "self.lm_head = nn.Linear" in inspect.getsource(Eagle3Drafter.__init__)  # a head of its own
    assert "target's own head" in eagle.EagleDrafter.head.__doc__


def test_the_docstring_counts_both_products_each_head_costs():
    """It said proposing costs "K small matrix products"; each head is two: its residual block and its product with
    the shared head's rows over the draft vocabulary, whose size the shipped heads' specviz.json records."""
    import json

    from specviz.core.paths import MODELS_DIR
    from specviz.engine.proposers import medusa as module

    meta = json.loads((MODELS_DIR / "smollm2-medusa" / "specviz.json").read_text())
    doc = " ".join(module.__doc__.split())
    assert "K small matrix products" not in doc
    assert f"draft vocabulary: {meta['draft_vocab_size']:,} tokens for the shipped heads" in doc
    assert meta["layers"] == 1  # one residual block per head: "its residual block (H x H)"


def test_the_module_docstring_counts_the_causes_the_proposers_page_names():
    """medusa.py said the Proposers page "names the other: data" beside feeding guesses back; the page names three
    causes (issue 43, 24th read): more training text, a larger model, and what the drafter sees."""
    from specviz.engine.proposers import medusa
    from specviz.ui.proposers import view

    doc, page = " ".join(medusa.__doc__.split()), " ".join(inspect.getsource(view).split())
    assert "names the other: data" not in doc and "names two more" in doc
    assert "Three causes" in page and "larger model" in page and "more of the target's text" in page
