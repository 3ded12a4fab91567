"""The rule on handcrafted distributions: every branch, with forced uniforms."""

import pytest
import torch

from specviz.engine.verifier import accept_probability, residual_distribution, verify

V = 4


def dist(*values):
    return torch.tensor(values, dtype=torch.float32)


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def test_accept_when_u_below_ratio():
    p = torch.stack([dist(0.1, 0.6, 0.2, 0.1), dist(0.25, 0.25, 0.25, 0.25)])
    q = torch.stack([dist(0.1, 0.8, 0.05, 0.05)])
    result = verify(p, q, [1], uniforms=[0.74], generator=gen())  # p/q = 0.75
    assert result.n_accepted == 1
    assert result.next_kind == "bonus"
    assert result.accept_probs == [pytest.approx(0.75)]
    assert torch.allclose(result.next_dist, p[1])


def test_reject_when_u_at_or_above_ratio_and_recover_from_residual():
    p = torch.stack([dist(0.1, 0.6, 0.2, 0.1), dist(0.25, 0.25, 0.25, 0.25)])
    q = torch.stack([dist(0.1, 0.8, 0.05, 0.05)])
    result = verify(p, q, [1], uniforms=[0.76], generator=gen())  # p/q = 0.75 < u
    assert result.n_accepted == 0 and result.next_kind == "recovered"
    # residual max(0, p - q) = (0, 0, 0.15, 0.05) -> (0, 0, 0.75, 0.25): the rejected token can never come back
    assert torch.allclose(result.next_dist, dist(0, 0, 0.75, 0.25))
    assert result.next_token in (2, 3)


def test_all_accepted_gives_bonus_from_last_target_row():
    p = torch.stack([dist(0.7, 0.1, 0.1, 0.1), dist(0.1, 0.7, 0.1, 0.1), dist(0, 0, 0, 1.0)])
    q = torch.stack([dist(0.5, 0.2, 0.2, 0.1), dist(0.2, 0.5, 0.2, 0.1)])
    result = verify(p, q, [0, 1], uniforms=[0.99, 0.99], generator=gen())  # p >= q: always accepted
    assert result.n_accepted == 2 and result.next_kind == "bonus" and result.next_token == 3


def test_first_rejection_stops_the_step():
    p = torch.stack([dist(0.1, 0.1, 0.7, 0.1)] * 3)
    q = torch.stack([dist(0.1, 0.7, 0.1, 0.1)] * 2)
    result = verify(p, q, [1, 1], uniforms=[0.9, 0.0], generator=gen())
    assert result.n_accepted == 0
    assert len(result.uniforms) == 1  # the second draft is never tested
    assert result.next_token == 2  # residual is a point mass on token 2


def test_q_zero_means_accept_if_target_allows_it():
    assert accept_probability(0.3, 0.0) == 1.0
    assert accept_probability(0.0, 0.0) == 0.0
    p = torch.stack([dist(0.5, 0.5, 0, 0), dist(1.0, 0, 0, 0)])
    q = torch.stack([dist(1.0, 0, 0, 0)])
    result = verify(p, q, [1], uniforms=[0.999], generator=gen())
    assert result.n_accepted == 1


def test_p_equals_q_always_accepts_and_residual_falls_back_to_p():
    p = dist(0.4, 0.3, 0.2, 0.1)
    for u in (0.0, 0.5, 0.999999):
        result = verify(torch.stack([p, p]), p[None], [3], uniforms=[u], generator=gen())
        assert result.n_accepted == 1
    assert torch.allclose(residual_distribution(p, p), p)


def test_point_mass_draft_accepts_with_probability_p():
    """A deterministic proposer (q = point mass) is accepted with probability p(x)."""
    p = torch.stack([dist(0.3, 0.7, 0, 0), dist(1.0, 0, 0, 0)])
    q = torch.stack([dist(0, 1.0, 0, 0)])
    assert verify(p, q, [1], uniforms=[0.69], generator=gen()).n_accepted == 1
    rejected = verify(p, q, [1], uniforms=[0.70], generator=gen())
    assert rejected.n_accepted == 0 and rejected.next_token == 0


def test_shapes_are_checked():
    with pytest.raises(ValueError):
        verify(torch.ones(2, V) / V, torch.ones(2, V) / V, [0, 1])


def test_one_step_output_distribution_equals_target():
    """min(p, q) + (1 - alpha) * norm(max(0, p - q)) == p for random p, q (the heart of exactness)."""
    g = gen(7)
    for _ in range(200):
        vocab = int(torch.randint(2, 50, (), generator=g))
        p = torch.rand(vocab, generator=g, dtype=torch.float64) ** 3
        q = torch.rand(vocab, generator=g, dtype=torch.float64) ** 3
        p, q = p / p.sum(), q / q.sum()
        alpha = torch.minimum(p, q).sum()
        out = torch.minimum(p, q) + (1 - alpha) * residual_distribution(p, q)
        assert torch.allclose(out, p, atol=1e-6)


def test_generator_draws_are_reproducible():
    p = torch.softmax(torch.randn(4, 10, generator=gen(1)), -1)
    q = torch.softmax(torch.randn(3, 10, generator=gen(2)), -1)
    a = verify(p, q, [1, 2, 3], generator=gen(5))
    b = verify(p, q, [1, 2, 3], generator=gen(5))
    assert (a.n_accepted, a.uniforms, a.next_token) == (b.n_accepted, b.uniforms, b.next_token)


def test_cutting_a_sampled_marker_emits_what_the_decoding_docstring_says_not_p():
    """Issue 43, 21st read: `ChainStep.propose` explained why a sampled draft is never cut before a chat marker with
    a distribution that did not sum to 1 ("p minus a part of the residual plus q(marker)·p"). Cutting replaces the
    rule's outcome for the marker's draw (m with a = min(1, p(m)/q(m)), else a recovered token) by a bonus from p;
    enumerated exactly here, the result is the docstring's formula, a distribution, and not p."""
    from specviz.engine import decoding

    p, q, m = dist(0.5, 0.2, 0.3), dist(0.2, 0.3, 0.5), 2
    residual = residual_distribution(p, q)
    cut = q[m] * p  # the marker drawn: the chain ends before it and the bonus comes from p
    for x in range(3):
        if x != m:
            a = accept_probability(float(p[x]), float(q[x]))
            cut = cut + q[x] * (a * torch.eye(3)[x] + (1 - a) * residual)
    a = accept_probability(float(p[m]), float(q[m]))
    formula = p - q[m] * (a * torch.eye(3)[m] + (1 - a) * residual) + q[m] * p
    assert torch.allclose(cut, formula, atol=1e-6) and abs(float(cut.sum()) - 1) < 1e-6
    assert not torch.allclose(cut, p, atol=1e-3)
    doc = " ".join((decoding.ChainStep.propose.__doc__ or "").split())
    assert "p − q(m)·(a·δ_m + (1 − a)·norm(max(0, p − q))) + q(m)·p: not p" in doc
    assert "p minus a part of the residual plus q(marker)·p" not in doc
    # 22nd read: it said a sampled draft "is never cut for what it is", yet a model's draft ends after an end-of-text
    # token too (test_engine's test_no_draft_is_proposed_past_end_of_text...): the cut it never makes is before one
    assert "never cut for what it is" not in doc
    assert "never cut before a token for what that token is (only after an end-of-text one" in doc


def test_a_replay_with_too_few_uniforms_is_one_sentence():
    """Two accepted drafts need two uniforms; one was an IndexError from inside the loop (chain and tree alike)."""
    from specviz.engine.tree import ROOT, DraftTree
    from specviz.engine.tree_verifier import verify_tree

    p = torch.tensor([[0.0, 1.0], [0.0, 1.0], [0.5, 0.5]])
    q = torch.tensor([[0.0, 1.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="tests position 2 but only 1 uniform"):
        verify(p, q, [1, 1], uniforms=[0.1])
    with pytest.raises(ValueError, match="tests position 2 but only 1 uniform"):
        verify_tree(p, DraftTree([1, 1], [ROOT, 0], q), uniforms=[0.1])
    assert verify(p, q, [1, 1], uniforms=[0.1, 0.1]).n_accepted == 2
