"""Packed linear layers (specviz.engine.kernels): the same function as nn.Linear, on the same parameters."""

import copy
from pathlib import Path

import pytest
import torch
from torch import nn

from specviz.engine.kernels import PACKED, STOCK, PackedLinear, kernels_of, pack_linears, packing_available

pytestmark = pytest.mark.skipif(not packing_available(), reason="this PyTorch has no oneDNN packed linear")


def _model(seed: int = 0) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(48, 96), nn.GELU(), nn.Sequential(nn.Linear(96, 32, bias=False)), nn.Linear(32, 7))


@pytest.mark.parametrize("rows", [1, 2, 3, 5, 9, 17, 25])
def test_packed_rows_match_the_stock_linear(rows):
    layer = nn.Linear(576, 192)
    x = torch.randn(1, rows, 576, generator=torch.Generator().manual_seed(rows))
    packed = PackedLinear(layer)
    with torch.inference_mode():
        got, want = packed(x), layer(x)
    assert got.shape == want.shape == (1, rows, 192)
    assert torch.allclose(got, want, atol=2e-5, rtol=1e-4)
    assert packed._packed is not None  # it really took the packed path


def test_pack_linears_swaps_every_linear_and_keeps_the_parameters():
    model = _model()
    before = {name: p for name, p in model.named_parameters()}
    x = torch.randn(4, 48)
    want = model(x).detach()
    assert pack_linears(model) == 3
    assert pack_linears(model) == 0  # idempotent
    assert sum(isinstance(m, PackedLinear) for m in model.modules()) == 3
    assert not any(type(m) is nn.Linear for m in model.modules())
    after = dict(model.named_parameters())
    assert after.keys() == before.keys() and all(after[n] is before[n] for n in before)
    with torch.inference_mode():
        assert torch.allclose(model(x), want, atol=1e-5)
    assert kernels_of(model) == PACKED and kernels_of(_model()) == STOCK


def test_a_changed_weight_is_repacked():
    torch.manual_seed(0)  # read 44: its weights and input came from whatever the tests before it left the RNG at
    layer = PackedLinear(nn.Linear(16, 8))
    x = torch.randn(3, 16)
    with torch.inference_mode():
        first = layer(x)
        layer.weight.mul_(2)  # an in-place write, as loading a state dict does
        second = layer(x)
    assert torch.allclose(second - layer.bias, 2 * (first - layer.bias), atol=1e-5)


def test_copies_casts_and_gradients_fall_back_or_repack():
    model = _model()
    pack_linears(model)
    x = torch.randn(2, 48)
    with torch.inference_mode():
        model(x)  # packed caches built
    twin = copy.deepcopy(model)
    assert all(m._packed is None for m in twin.modules() if isinstance(m, PackedLinear))
    half = copy.deepcopy(model).to(torch.bfloat16)
    with torch.inference_mode():
        assert torch.allclose(half(x.bfloat16()).float(), model(x), atol=0.1)
        assert torch.allclose(twin(x), model(x), atol=1e-6)
    x.requires_grad_(True)
    model(x).sum().backward()  # autograd takes the stock path
    assert x.grad is not None and x.grad.abs().sum() > 0


def test_stock_kernels_by_environment(monkeypatch):
    monkeypatch.setenv("SPECVIZ_KERNELS", "stock")
    model = _model()
    assert not packing_available() and pack_linears(model) == 0 and kernels_of(model) == STOCK


def test_the_toy_pair_loads_packed():
    from specviz.models.pairs import load_pair

    pair = load_pair("toy")
    assert pair.kernels == PACKED
    assert isinstance(pair.target.get_output_embeddings(), PackedLinear)


def test_a_dtype_onednn_cannot_pack_here_stays_stock(monkeypatch):
    """On a CPU without AVX-512 (or AVX-NE-CONVERT) oneDNN refuses to reorder a bfloat16 weight: such layers must run
    the stock path instead of raising (the bench casts the target to bfloat16 for its verify curve)."""
    from specviz.engine import kernels

    def refuse(weight, *args):
        if weight.dtype == torch.bfloat16:
            raise RuntimeError("mkldnn_reorder_linear_weight: bf16 path needs the cpu support avx_ne_convert")
        return real(weight, *args)

    real = torch.ops.mkldnn._reorder_linear_weight
    monkeypatch.setattr(kernels, "_DTYPES", {})
    monkeypatch.setattr(torch.ops.mkldnn, "_reorder_linear_weight", refuse)
    model = _model()
    pack_linears(model)
    half = copy.deepcopy(model).to(torch.bfloat16)
    x = torch.randn(3, 48)
    with torch.inference_mode():
        assert torch.allclose(half(x.bfloat16()).float(), model(x), atol=0.1)  # stock bfloat16, no error
        assert model(x).shape == (3, 7)  # float32 still packs
    assert kernels_of(half) == STOCK and kernels_of(model) == PACKED


def test_the_kernels_docstring_says_when_pytorchs_compiler_packs_with_onednn():
    """The docstring (and docs/benchmarks.md) called oneDNN's reorder "what PyTorch's own compiler uses for frozen CPU
    models"; Inductor's freezing pass uses it for low-precision weights (and dynamic shapes, AOT), and MKL's packed
    linear for float32 at a fixed batch size, the case the docstring's figures are about."""
    import importlib.util

    from specviz.engine import kernels

    # read, not imported: importing Inductor's passes takes seconds and warns about torch.jit
    source = Path(importlib.util.find_spec("torch._inductor.fx_passes.mkldnn_fusion").origin).read_text()
    assert "else torch.ops.mkl._mkl_reorder_linear_weight" in source and "is_lp_weight" in source
    for text in (kernels.__doc__, (Path(kernels.__file__).parents[2] / "docs" / "benchmarks.md").read_text()):
        flat = " ".join(text.split())
        assert "what PyTorch's own compiler uses for frozen CPU models" not in flat
        assert "bfloat16 weights" in flat and "MKL" in flat


def test_packed_linear_is_said_to_match_up_to_rounding_and_does_to_1e_5():
    """Read 36: PackedLinear's docstring said "same parameters, same function". oneDNN adds in its own order; where
    it packs, a SmolLM2-sized layer read about 2e-6 from the stock one when read 36 looked. The docstring now says
    "up to rounding", and the layers agree to the 1e-5 the example uses."""
    torch.manual_seed(0)
    layer = nn.Linear(576, 1536)
    x = torch.randn(5, 576)
    with torch.no_grad():
        assert torch.allclose(PackedLinear(layer)(x), layer(x), atol=1e-5)
    assert "same function up to rounding" in " ".join(PackedLinear.__doc__.split())
