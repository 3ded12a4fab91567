"""logits_to_probs at the edges of the temperatures RunSpec accepts."""

import pytest
import torch

from specviz.engine.sampling import logits_to_probs


@pytest.mark.parametrize("temperature", [1e-300, 1e-45, 1e-38, 1e-12])
def test_a_tiny_temperature_is_the_greedy_limit_not_nan(temperature):
    """RunSpec takes any finite T > 0, but logits / 1e-300 overflowed float32 (1e-300 is 0 there), softmax gave NaN
    and torch.multinomial raised: the Race page showed an exception, the Playground "the live run failed"."""
    logits = torch.tensor([[1.0, 3.0, 2.0, float("-inf")], [0.5, 0.5, -1.0, 0.0]])
    probs = logits_to_probs(logits, temperature)
    assert torch.isfinite(probs).all()
    assert probs.tolist() == [[0.0, 1.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]]  # ties share the limit's mass
    assert logits_to_probs(logits, 0.7).equal((logits / 0.7).softmax(-1))  # an ordinary T is computed as before
