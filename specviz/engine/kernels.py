"""Cheaper linear layers on a CPU: the weights packed once for oneDNN, so feeding 2 to 5 tokens costs about one.

On a CPU the stock `nn.Linear` calls MKL. For one token row that is a matrix-vector product and memory-bound, as it
should be; for 2 to 25 rows it is neither memory- nor compute-bound, just slow (from 5 rows on, a `perf` profile of
the LM head, the one layer profiled, finds 47-78% of MKL's time copying a matrix into MKL's panel layout on every
call, the weight going by how that share falls as the rows grow; 2 rows take another MKL path:
`python -m specviz.scripts.gemm_profile`, assets/benchmarks/stock-gemm-profile).
On the project's 2-core AMD EPYC,
in float32, a SmolLM2 forward over 2 new tokens cost 1.73x one and over 5 tokens 1.38x. oneDNN's linear with a
weight reordered once into its blocked layout (`torch.ops.mkldnn._reorder_linear_weight`, what PyTorch's own
compiler packs a frozen CPU model's bfloat16 weights
with, and its float32 ones when the batch size is dynamic; for a fixed one it packs float32 with MKL's
`_mkl_reorder_linear_weight` instead) streams the weight once however many rows there are: the same forwards then
cost 1.08x and 1.03x one, and the one-token forward itself went from 70 to 50 ms. Figures and machine:
docs/benchmarks.md, "Issue 41" (the table of one forward over n tokens): commit ce0deb7's body gives them, from a
scratch script whose command no file holds;
`python -m specviz calibrate --dtype float32 --force` measures the same curve on your machine.

    swapped = pack_linears(model)        # every nn.Linear of `model` -> PackedLinear (CPU, float32 or bfloat16)
    kernels_of(model)                    # "onednn-packed" or "stock", recorded with every benchmark

`PackedLinear` keeps the original `weight` (and `bias`) as its parameters, so state dicts, tied embeddings,
`.parameters()` and `.to()` see the same module as before; the packed copy is a cache, rebuilt lazily when the
weight changes (another tensor, dtype or device, or an in-place write). Whatever cannot take the packed path (a GPU,
autograd, another dtype, a PyTorch without oneDNN, bfloat16 on a CPU whose oneDNN cannot pack it, as on an AVX2-only
one) runs the stock `F.linear`. Every caller of the model, the
speculative loop, target-only decoding and `model.generate`, runs the same modules, so every speedup stays a
like-for-like ratio. SPECVIZ_KERNELS=stock turns packing off, to compare.
"""

from __future__ import annotations

import os

import torch
import torch.nn.functional as F
from torch import nn

from specviz.engine.limits import PACKED, STOCK  # noqa: E402,F401 - the ids, torch-free in limits
PACKABLE_DTYPES = (torch.float32, torch.bfloat16)


def packing_available() -> bool:
    """Whether this PyTorch has oneDNN's packed linear and it computes what `F.linear` computes (checked once on a
    small random layer); False when SPECVIZ_KERNELS=stock."""
    global _AVAILABLE
    if os.environ.get("SPECVIZ_KERNELS", "").strip().lower() == STOCK:
        return False
    if _AVAILABLE is None:
        _AVAILABLE = _probe()
    return _AVAILABLE


_AVAILABLE: bool | None = None
_DTYPES: dict[torch.dtype, bool] = {}  # dtype -> whether this CPU's oneDNN packs it (bfloat16: see `packs`)


def packs(dtype: torch.dtype) -> bool:
    """Whether oneDNN can pack and run a weight of `dtype` on this CPU (checked once per dtype: on a CPU without
    AVX-512 or AVX-NE-CONVERT, oneDNN refuses to reorder a bfloat16 weight, and such layers stay stock)."""
    if dtype not in _DTYPES:
        _DTYPES[dtype] = packing_available() and _probe(dtype)
    return _DTYPES[dtype]


def _probe(dtype: torch.dtype = torch.float32) -> bool:
    try:
        if not torch.backends.mkldnn.is_available():
            return False
        generator = torch.Generator().manual_seed(0)
        weight, x = torch.randn(24, 16, generator=generator), torch.randn(3, 16, generator=generator)
        weight, x = weight.to(dtype), x.to(dtype)
        with torch.inference_mode():
            packed = torch.ops.mkldnn._reorder_linear_weight(weight)
            out = torch.ops.mkldnn._linear_pointwise(x, packed, None, "none", [], "")
        tolerance = 1e-4 if dtype == torch.float32 else 5e-2
        return bool(torch.allclose(out.float(), F.linear(x, weight).float(), atol=tolerance, rtol=tolerance))
    except (RuntimeError, AttributeError, NotImplementedError):
        return False


class PackedLinear(nn.Module):
    """An `nn.Linear` whose weight is reordered once for oneDNN; same parameters, same function up to rounding
    (oneDNN adds in its own order: the example below compares to 1e-5, not bit for bit).

    >>> layer = nn.Linear(16, 8)
    >>> packed = PackedLinear(layer)
    >>> x = torch.randn(5, 16)
    >>> bool(torch.allclose(packed(x), layer(x), atol=1e-5))
    True
    >>> packed.weight is layer.weight
    True
    """

    def __init__(self, linear: nn.Linear):
        super().__init__()
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.weight = linear.weight
        self.bias = linear.bias
        self._packed: torch.Tensor | None = None
        self._key: tuple | None = None

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"

    def _weight_key(self) -> tuple:
        w, b = self.weight, self.bias
        return (w.data_ptr(), w._version, w.dtype, w.device,
                None if b is None else (b.data_ptr(), b._version, b.dtype))

    def _can_pack(self, x: torch.Tensor) -> bool:
        w = self.weight
        return (w.device.type == "cpu" and x.device.type == "cpu" and w.dtype in PACKABLE_DTYPES
                and x.dtype == w.dtype and (self.bias is None or self.bias.dtype == w.dtype) and x.dim() >= 1
                and not (torch.is_grad_enabled() and (x.requires_grad or w.requires_grad))
                and packs(w.dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self._can_pack(x):
            return F.linear(x, self.weight, self.bias)
        key = self._weight_key()
        if self._packed is None or key != self._key:
            with torch.inference_mode():
                self._packed = torch.ops.mkldnn._reorder_linear_weight(self.weight.detach())
            self._key = key
        rows = x.reshape(-1, self.in_features)
        bias = None if self.bias is None else self.bias.detach()
        out = torch.ops.mkldnn._linear_pointwise(rows, self._packed, bias, "none", [], "")
        return out.reshape(*x.shape[:-1], self.out_features)

    def __getstate__(self):  # deepcopy and pickle: the packed cache is rebuilt on the copy's first forward
        state = self.__dict__.copy()
        state["_packed"], state["_key"] = None, None
        return state


def pack_linears(model: nn.Module) -> int:
    """Replace every `nn.Linear` inside `model` by a `PackedLinear` over the same parameters; returns how many were
    replaced (0 where packing is unavailable). Idempotent: a `PackedLinear` is left as it is."""
    if not packing_available():
        return 0
    count = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if type(child) is nn.Linear:
                setattr(parent, name, PackedLinear(child))
                count += 1
    return count


def kernels_of(model: nn.Module) -> str:
    """"onednn-packed" when `model`'s linears run packed on its device and dtype, else "stock"."""
    weight = next(model.parameters(), None)
    packed = any(isinstance(m, PackedLinear) for m in model.modules())
    ok = (packed and weight is not None and weight.device.type == "cpu" and weight.dtype in PACKABLE_DTYPES
          and packs(weight.dtype))
    return PACKED if ok else STOCK
