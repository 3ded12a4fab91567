"""A benchmark run's machine in words, torch-free: the GPU it ran on (`gpu_used`), its linear kernels (`run_kernels`,
`ran_stock_kernels`, `kernels_words`) and the one sentence every page writes for it (`machine_text`). Split from
`report` and `quoted` (read 55), which re-export these names, because those import `specviz.engine.theory` and with
it torch, and the Overview's replay names the machine its trace was recorded on without loading torch.
"""
from __future__ import annotations

from typing import Any

from specviz.core.i18n import _, ngettext, number
from specviz.engine.limits import PACKED, STOCK


def gpu_used(machine: dict[str, Any]) -> str | None:
    """The GPU a result's `machine` record says the models ran on, or None when they ran on the CPU (a GPU merely
    present is not it).

    >>> gpu_used({"gpu": "NVIDIA H200", "device": "cuda:0"}), gpu_used({"gpu": "NVIDIA H200", "device": "cpu"})
    ('NVIDIA H200', None)
    """
    return machine.get("gpu") if str(machine.get("device", "")).startswith("cuda") else None


# specviz packed a CPU's linear layers for oneDNN from commit ce0deb7 (2026-12-03 11:58 UTC); the machine record names
# its `kernels` from 11301c3 (12:30 UTC) on. A run from before the packing ran PyTorch's stock kernels and records no
# `kernels`; a record without them from after it (the half hour between the two commits) ran what its CPU packed.
PACKING_SHIPPED = "2026-12-03T11:58"


def run_kernels(machine: dict[str, Any]) -> str:
    """The linear kernels a run's models ran (`specviz.engine.kernels`): its record's, else "stock" for a run from
    before specviz packed them (`PACKING_SHIPPED`, by its record's date), else "?" (no record says).

    >>> run_kernels({"kernels": "onednn-packed"}), run_kernels({"date": "2026-11-30T04:11:36Z"}), run_kernels({})
    ('onednn-packed', 'stock', '?')
    >>> run_kernels({"device": "cpu", "date": "2026-12-03T12:10:00Z"})  # packed, before the record named kernels
    '?'
    """
    date = str(machine.get("date") or "")
    return str(machine.get("kernels") or ("stock" if date and date < PACKING_SHIPPED else "?"))


def ran_stock_kernels(machine: dict[str, Any]) -> bool:
    """Whether a run's linear layers ran PyTorch's stock kernels because it predates specviz's packed ones
    (`run_kernels` says "stock" with no `kernels` recorded) on a CPU, where a run today packs them: typed today, its
    command runs the packed ones.

    >>> ran_stock_kernels({"device": "cpu", "date": "2026-12-01T00:23:26Z"}), ran_stock_kernels({"device": "cpu"})
    (True, False)
    >>> packed_unrecorded = {"device": "cpu", "date": "2026-12-03T12:10:00Z"}  # after ce0deb7, before 11301c3
    >>> ran_stock_kernels({"kernels": "onednn-packed"}), ran_stock_kernels(packed_unrecorded)
    (False, False)
    >>> ran_stock_kernels({"gpu": "NVIDIA H200", "device": "cuda:0", "date": "2026-12-01T00:23:26Z"})
    False
    """
    return gpu_used(machine) is None and not machine.get("kernels") and run_kernels(machine) == "stock"


def machine_text(record: dict) -> str:
    """Where a run ran, from its recorded `machine` (`specviz.labs.bench.timing.machine_info` plus the pair's device
    and kernels), in the reader's language: the GPU when the models ran on one (a GPU merely present is not it), else
    the CPU with its cores and its linear kernels (recorded, or "stock" for a CPU run from before specviz packed them:
    `report.ran_stock_kernels`) and the instruction-set caps set in its
    environment (`isa_limits`: without them a capped run reads as the same machine as an uncapped one); "" when the
    record names neither. The one place every page turns a run's machine into words.

    >>> machine_text({"cpu": "AMD EPYC", "cores": 2, "kernels": "onednn-packed", "gpu": None})
    'AMD EPYC (2 cores, oneDNN packed-weight kernels)'
    >>> machine_text({"cpu": "Intel(R) Xeon(R) Processor", "cores": 2}), machine_text({})
    ('Intel(R) Xeon(R) Processor (2 cores)', '')
    >>> machine_text({"cpu": "AMD EPYC", "cores": 2, "device": "cpu", "date": "2026-11-30T07:29:03Z"})
    'AMD EPYC (2 cores, stock kernels)'
    >>> machine_text({"cpu": "X", "cores": 16, "gpu": "NVIDIA H200", "device": "cuda:0"})
    'NVIDIA H200'
    >>> machine_text({"cpu": "AMD EPYC", "cores": 2, "isa_limits": {"ONEDNN_MAX_CPU_ISA": "AVX2"}})
    'AMD EPYC (2 cores), instruction sets capped by ONEDNN_MAX_CPU_ISA=AVX2'
    """
    if gpu := gpu_used(record):
        return str(gpu)
    if not record.get("cpu"):
        return ""
    limits = record.get("isa_limits")
    if isinstance(limits, dict) and limits:
        return _("{machine}, instruction sets capped by {limits}", machine=machine_text(
            {key: value for key, value in record.items() if key != "isa_limits"}),
            limits=", ".join(f"{name}={value}" for name, value in limits.items()))
    # a CPU run from before specviz packed the linear layers ran PyTorch's stock kernels: say so, as a packed run
    # names its own (read 42: the Overview quoted a stock-kernel curve beside a packed one with no word of it)
    cpu, cores = str(record["cpu"]), record.get("cores")
    kernels = record.get("kernels") or (STOCK if ran_stock_kernels(record) else None)
    kernels = kernels_words(kernels) if kernels else None
    if cores and kernels:
        return ngettext("{cpu} ({cores} core, {kernels} kernels)", "{cpu} ({cores} cores, {kernels} kernels)",
                        int(cores), cpu=cpu, cores=number(int(cores), 0), kernels=kernels)
    if cores:
        return ngettext("{cpu} ({cores} core)", "{cpu} ({cores} cores)", int(cores), cpu=cpu,
                        cores=number(int(cores), 0))
    if kernels:
        return _("{cpu} ({kernels} kernels)", cpu=cpu, kernels=kernels)
    return cpu


def kernels_words(kernels: str) -> str:
    """A run's recorded linear kernels (`specviz.engine.kernels`: "onednn-packed", "stock") as the words that go
    before "kernels" in the reader's language; the code id is for the `SPECVIZ_KERNELS` setting and the files, not
    for a sentence (read 44: the Speedup lab's verify-cost sentence said "onednn-packed kernels"). Another id is
    kept as recorded.

    >>> kernels_words("onednn-packed"), kernels_words("stock"), kernels_words("mkl")
    ('oneDNN packed-weight', 'stock', 'mkl')
    """
    if kernels == PACKED:
        return _("oneDNN packed-weight")
    if kernels == STOCK:  # PyTorch's own kernels: a word in the reader's language ("kernels padrão"), not a name
        return _("stock")
    return kernels
