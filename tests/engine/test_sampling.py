"""logits_to_probs at the edges of the temperatures RunSpec accepts; the whole numbers SamplingConfig takes."""

import numpy as np
import pytest
import torch

from specviz.engine.limits import is_integral, is_whole
from specviz.engine.sampling import SamplingConfig, logits_to_probs


@pytest.mark.parametrize("temperature", [1e-300, 1e-45, 1e-38, 1e-12])
def test_a_tiny_temperature_is_the_greedy_limit_not_nan(temperature):
    """RunSpec takes any finite T > 0, but logits / 1e-300 overflowed float32 (1e-300 is 0 there), softmax gave NaN
    and torch.multinomial raised: the Race page showed an exception, the Playground "the live run failed"."""
    logits = torch.tensor([[1.0, 3.0, 2.0, float("-inf")], [0.5, 0.5, -1.0, 0.0]])
    probs = logits_to_probs(logits, temperature)
    assert torch.isfinite(probs).all()
    assert probs.tolist() == [[0.0, 1.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]]  # ties share the limit's mass
    assert logits_to_probs(logits, 0.7).equal((logits / 0.7).softmax(-1))  # an ordinary T is computed as before


@pytest.mark.parametrize("value, whole, integral", [
    (5, True, True), (np.int64(5), False, True), (np.uint8(5), False, True),
    (True, False, False), (np.bool_(True), False, False), (5.0, False, False), ("5", False, False)])
def test_a_top_k_from_numpy_is_a_count_and_a_bool_is_none(value, whole, integral):
    """`is_integral` is `is_whole` with NumPy's integers: a top-k read from an array counts, True does not."""
    assert (is_whole(value), is_integral(value)) == (whole, integral)
    if integral:
        assert SamplingConfig(temperature=1.0, top_k=value).top_k == 5
    else:
        with pytest.raises(ValueError, match=r"^top-k must be 0 \(off\) or a positive number of tokens"):
            SamplingConfig(temperature=1.0, top_k=value)
