"""What this machine has and what a pair needs: devices, dtypes, memory estimates and where the models go.

    machine = detect_machine()                  # or Machine(gpus=(GpuInfo(0, "RTX 4090", ...),)) in a test
    device = pick_device(None, machine)         # CUDA (the fastest GPU), then Apple MPS, then CPU
    dtype = pick_dtype(device, None, machine)   # bfloat16 on modern GPUs and bf16 CPUs, float16 on old GPUs and MPS,
                                                # float32 on a CPU without bf16 instructions
    placement = plan_placement(estimate_memory(names, params, dtype, configs), machine, device)

Detection is a plain `Machine` value, so every decision here can be tested without the hardware. A pair that does
not fit is a `ModelLoadError` whose one sentence names the numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM

from specviz.core.i18n import _, half_up, localized, ngettext, number, percent
from specviz.core.text import shortened

HEADROOM = 0.9  # use at most 90% of free memory: activations, allocator slack and the CUDA context need the rest
DEFAULT_CONTEXT = 2048  # tokens of KV cache budgeted per model
GB = 1e9


class ModelLoadError(ValueError):
    """A model that cannot be used, explained in one sentence."""


# ---- the machine -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GpuInfo:
    index: int
    name: str
    free_bytes: int
    total_bytes: int
    bf16: bool = True
    multiprocessors: int = 0


@dataclass(frozen=True)
class Machine:
    """What specviz can run on: CUDA GPUs (with free memory), Apple MPS, available RAM, and whether the CPU has
    bfloat16 instructions (`cpu_bf16`: avx512_bf16 or AMX; False in a machine built by hand,
    the default a test starts from)."""

    gpus: tuple[GpuInfo, ...] = ()
    mps: bool = False
    ram_available_bytes: int = 0
    cpu_bf16: bool = False

    def fastest_gpu(self) -> GpuInfo:
        """The GPU with the most multiprocessors, then the most free memory, then the lowest index."""
        return max(self.gpus, key=lambda g: (g.multiprocessors, g.free_bytes, -g.index))

    def ram_text(self) -> str:
        """The available RAM as a phrase; 0 is RAM that could not be read (`available_ram_bytes`), never "0 MB".

        >>> Machine(ram_available_bytes=24 * 10**9).ram_text(), Machine().ram_text()
        ('24 GB of RAM available', 'an unknown amount of RAM available (it could not be read)')
        """
        if not self.ram_available_bytes:  # read 55: "0 MB of RAM available" when /proc/meminfo could not be read
            return _("an unknown amount of RAM available (it could not be read)")
        return _("{amount} of RAM available", amount=gb(self.ram_available_bytes))

    def describe(self, device: torch.device | None = None) -> str:
        """A phrase such as "this machine has 24 GB of RAM available and no GPU", in the reader's language.

        >>> Machine(ram_available_bytes=24 * 10**9).describe()
        'this machine has 24 GB of RAM available and no GPU'
        """
        ram = self.ram_text()
        if device is not None and device.type == "cuda" and self.gpus:
            if len(self.gpus) == 1:
                g = self.gpus[0]
                return _("this machine's GPU ({name}) has {free} free of {total}", name=g.name, free=gb(g.free_bytes),
                         total=gb(g.total_bytes))
            free = sum(g.free_bytes for g in self.gpus)
            return _("this machine's {n} GPUs have {free} free together", n=len(self.gpus), free=gb(free))
        if self.gpus:
            return ngettext("this machine has {ram} (and {n} CUDA GPU, not chosen)",
                            "this machine has {ram} (and {n} CUDA GPUs, not chosen)", len(self.gpus), ram=ram)
        if self.mps:
            return _("this Mac has {ram}, shared with its GPU", ram=ram)
        return _("this machine has {ram} and no GPU", ram=ram)


def detect_machine() -> Machine:
    """The real machine: CUDA GPUs with their free memory, MPS, available RAM."""
    gpus = []
    if torch.cuda.is_available():
        for index in range(torch.cuda.device_count()):
            free, total = torch.cuda.mem_get_info(index)
            props = torch.cuda.get_device_properties(index)
            gpus.append(GpuInfo(index, props.name, int(free), int(total), bool(props.major >= 8),
                                int(props.multi_processor_count)))
    mps = bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available())
    return Machine(tuple(gpus), mps, available_ram_bytes(), cpu_has_bf16())


BF16_CPU_FLAGS = ("avx512_bf16", "amx_bf16", "amx_tile")  # /proc/cpuinfo names of the instructions that do bf16 math


def cpu_has_bf16() -> bool:
    """Whether this CPU computes in bfloat16 natively (avx512_bf16 or AMX): torch's own check, else /proc/cpuinfo.
    Without them bfloat16 is emulated: a forward over many tokens (a verify pass) runs slower than in float32,
    though a one-token forward, which mostly reads weights, can still run faster (`emulated_bf16_note` has the
    measured figures), so the default dtype stays float32."""
    cpu = getattr(torch, "cpu", None)
    checks = [getattr(cpu, name, None) for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")]
    if all(callable(check) for check in checks):
        try:
            return any(bool(check()) for check in checks)
        except RuntimeError:
            pass
    return cpuinfo_has_bf16(_cpuinfo_flags())


def _cpuinfo_flags() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return line.split(":", 1)[1]
    except OSError:
        pass
    return ""


# The instruction sets that decide how fast a model runs on a CPU: recorded with every benchmark and calibration
SPEED_CPU_FLAGS = ("avx", "avx2", "fma", "f16c", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_tile",
                   "amx_bf16", "asimd", "sve")


def emulated_bf16_note(device_type: str, dtype: str, machine: Machine) -> str | None:
    """Two sentences when bfloat16 would run on a CPU without bf16 instructions (emulated: a forward over many tokens
    runs slower than in float32, and more so the more tokens; the AVX2-capped run measured 215 ms against 103 ms over
    17 tokens, 380 against 129 over 33, but 30 against 54 over one token: costs.verify_curves in
    assets/benchmarks/default-cpu-f32-avx2cap/results.json, a 2-core AMD EPYC); None otherwise. `device_type` "cpu",
    "cuda" or "mps"; `dtype` by name.

    >>> emulated_bf16_note("cpu", "bfloat16", Machine(cpu_bf16=True)) is None
    True
    >>> emulated_bf16_note("cpu", "bfloat16", Machine())[:40]
    'This CPU has no bfloat16 instructions: b'
    """
    if device_type != "cpu" or dtype != "bfloat16" or machine.cpu_bf16:
        return None
    return _("This CPU has no bfloat16 instructions: bfloat16 is emulated here, and a forward over many tokens, "
             "which is what speculation feeds the target, runs slower in it than in float32, the more tokens the "
             "slower (with its kernels capped at AVX2, the project's AMD EPYC took about 2× float32's time over 17 "
             "tokens and 3× over 33: assets/benchmarks/default-cpu-f32-avx2cap). Choose float32 (or auto, which "
             "picks it here).")


def cpu_model() -> str:
    """The CPU's model name ("AMD EPYC", "Intel(R) Xeon(R) ..."): /proc/cpuinfo, else the platform's word."""
    import platform

    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_speed_flags(flags: str | None = None) -> list[str]:
    """Which of `SPEED_CPU_FLAGS` this CPU has (or a /proc/cpuinfo flags line names), in that order.

    >>> cpu_speed_flags("fpu sse avx avx2 fma avx512f avx512_bf16 vaes")
    ['avx', 'avx2', 'fma', 'avx512f', 'avx512_bf16']
    """
    have = set((_cpuinfo_flags() if flags is None else flags).split())
    return [flag for flag in SPEED_CPU_FLAGS if flag in have]


def cpuinfo_has_bf16(flags: str) -> bool:
    """Whether a /proc/cpuinfo flags line names a bfloat16 instruction set.

    >>> cpuinfo_has_bf16("fpu avx2 avx512f avx512_bf16"), cpuinfo_has_bf16("fpu avx2 avx512f")
    (True, False)
    """
    return bool(set(flags.split()) & set(BF16_CPU_FLAGS))


def available_ram_bytes() -> int:
    """Memory the OS can give a new process without swapping: psutil if installed, else /proc/meminfo; 0 when
    neither can be read (`Machine.ram_text` says so, and `plan_placement` marks the fit as unchecked)."""
    try:
        import psutil  # optional: not a dependency of specviz, used when it is installed

        return int(psutil.virtual_memory().available)
    except ImportError:
        pass
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def pick_device(device: str | torch.device | None = None, machine: Machine | None = None) -> torch.device:
    """The device to run on: the one asked for (if it exists), else CUDA, then Apple MPS, then CPU."""
    if device not in (None, "", "auto"):
        try:
            dev = torch.device(device)
        except (RuntimeError, TypeError):
            raise ModelLoadError(_("Unknown device '{device}': use cpu, cuda, cuda:N, mps or auto.",
                                   device=shortened(str(device)))) from None
        if dev.type not in ("cpu", "cuda", "mps"):  # meta, xla, ...: torch knows them, specviz cannot run on them
            raise ModelLoadError(_("Models run on cpu, cuda or mps, not on '{device}'.", device=shortened(str(device))))
        if dev.type in ("cuda", "mps"):
            machine = machine or detect_machine()
            if dev.type == "cuda" and not machine.gpus:
                raise ModelLoadError(_("CUDA was asked for but this machine has no CUDA GPU; use --device cpu."))
            if dev.type == "cuda" and dev.index is not None and dev.index >= len(machine.gpus):
                raise ModelLoadError(_("There is no GPU {index}: this machine has {count}.", index=dev.index,
                                       count=len(machine.gpus)))
            if dev.type == "mps" and not machine.mps:
                raise ModelLoadError(_("Apple MPS was asked for but is not available here; use --device cpu."))
        return dev
    machine = machine or detect_machine()
    if machine.gpus:
        return torch.device("cuda", machine.fastest_gpu().index)
    if machine.mps:
        return torch.device("mps")
    return torch.device("cpu")


DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def pick_dtype(device: torch.device, dtype: str | torch.dtype | None = None,
               machine: Machine | None = None) -> torch.dtype:
    """The dtype asked for, else bfloat16 on GPUs that support it (float16 on older ones and on MPS), and on a CPU
    bfloat16 where it has bf16 instructions (`Machine.cpu_bf16`), float32 where it has none.

    >>> pick_dtype(torch.device("cpu"), None, Machine(cpu_bf16=True)), pick_dtype(torch.device("cpu"), None, Machine())
    (torch.bfloat16, torch.float32)
    """
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype not in (None, "", "auto"):
        try:
            return DTYPES[str(dtype)]
        except KeyError:
            raise ModelLoadError(_("Unknown dtype '{dtype}': use float32, float16, bfloat16 or auto.",
                                   dtype=shortened(str(dtype)))) from None
    device = torch.device(device)
    if device.type == "cuda":
        machine = machine or detect_machine()
        gpus = {g.index: g for g in machine.gpus}
        gpu = gpus.get(device.index if device.index is not None else 0)
        return torch.bfloat16 if gpu is None or gpu.bf16 else torch.float16
    if device.type == "mps":
        return torch.float16
    machine = machine or detect_machine()
    return torch.bfloat16 if machine.cpu_bf16 else torch.float32


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def gb(n_bytes: float) -> str:
    """Bytes as GB for a sentence: 160 GB, 3.4 GB, 0.27 GB, 1,234 GB (3,4 GB and 1.234 GB in Portuguese).

    A size under 10 MB (the toy pair's 83 KB) is written in MB, not as "8.3e-05 GB". Under 1 GB it keeps two
    significant figures, a trailing zero included: the EAGLE drafter's 0.039 GB in float32 is 0.020 GB in
    bfloat16, not "0.02 GB" beside it.

    >>> gb(1234e9), gb(15.4e9), gb(83e3), gb(39.2e6), gb(19.6e6), gb(0.3e9), gb(0)
    ('1,234 GB', '15 GB', '0.083 MB', '0.039 GB', '0.020 GB', '0.30 GB', '0 MB')
    """
    if n_bytes < 0.01 * GB:
        return _decimal(_rounded_text(n_bytes / 1e6)) + " MB"
    return _grouped(n_bytes / GB) + " GB"


def shown_gb(n_bytes: float) -> Decimal:
    """A size as `gb` writes it, in GB: what a reader who compares two written sizes works with.

    >>> shown_gb(16.23e9), shown_gb(83e3)
    (Decimal('16'), Decimal('0.000083'))
    """
    if n_bytes < 0.01 * GB:
        return Decimal(_rounded_text(n_bytes / 1e6)).scaleb(-3)
    x = n_bytes / GB
    return Decimal(_fixed(x, 0) if x >= 999.5 else _rounded_text(x))


def gb_above(larger: float, smaller: float) -> tuple[str, str]:
    """Two sizes in bytes, `larger` > `smaller`, as `gb` writes them, unless those would not read larger and smaller:
    then both in one unit with the fewest decimals at which they do (a pair's 16.23 GB against the 16.16 GB specviz
    may use, not "16 GB" against "16 GB").

    >>> gb_above(161e9, 14.4e9), gb_above(16.23e9, 16.164e9), gb_above(16.23e9, 14.4e9)
    (('161 GB', '14 GB'), ('16.23 GB', '16.16 GB'), ('16 GB', '14 GB'))
    """
    if shown_gb(larger) > shown_gb(smaller):
        return gb(larger), gb(smaller)
    unit, scale = ("GB", GB) if smaller >= 0.01 * GB else ("MB", 1e6)
    for places in range(1, 10):
        a, b = _fixed(larger / scale, places, grouped=True), _fixed(smaller / scale, places, grouped=True)
        if Decimal(a.replace(",", "")) > Decimal(b.replace(",", "")):
            break
    return _decimal(a) + " " + unit, _decimal(b) + " " + unit


def _grouped(x: float) -> str:
    """`_rounded_text` with the reader's marks, thousands grouped as every other count (a disk's 1,234 GB free, an
    H100's 3,350 GB/s), the value unchanged."""
    return _decimal(_fixed(x, 0, grouped=True) if x >= 999.5 else _rounded_text(x))


def _rounded_text(x: float) -> str:
    """A positive figure rounded as a sentence shows it: 160, 3.4, 0.27 (no decimal mark applied yet); a tie rounds
    away from zero (`_fixed`).

    >>> _rounded_text(12.5), _rounded_text(3.25), _rounded_text(0.125), _rounded_text(0.0996), _rounded_text(0.996)
    ('13', '3.3', '0.13', '0.10', '1.0')
    """
    # an exact 0 stays "0" (a download's first "0 MB of 3.4 GB"), and 0.020 keeps its zero
    if x >= 10 or x == 0:
        return _fixed(x, 0)
    if x >= 1:
        return _fixed(x, 1)
    value = Decimal(repr(x))
    two = _fixed(value, 1 - value.adjusted())  # two significant digits: 0.020, 0.30
    return two if len(Decimal(two).as_tuple().digits) <= 2 else _fixed(value, -value.adjusted())  # 0.0996: 0.10


def _fixed(x: float | Decimal, places: int, grouped: bool = False) -> str:
    """`x` with `places` decimals, from its shortest repr, a tie rounded away from zero as a reader rounds by hand
    (`specviz.core.i18n.half_up`, as every other number: read 51, the f-string rounding it replaces wrote a speed of
    1 / 16 ms = 62.5 tokens/s "62 tokens/s"); thousands grouped with "," if `grouped` (no decimal mark applied yet).

    >>> _fixed(62.5, 0), _fixed(2.25, 1), _fixed(1234.5, 0, grouped=True)
    ('63', '2.3', '1,235')
    """
    if not isinstance(x, Decimal) and not math.isfinite(x):
        return format(x, f",.{places}f" if grouped else f".{places}f")
    with half_up():
        value = (x if isinstance(x, Decimal) else Decimal(repr(x))).quantize(Decimal(1).scaleb(-places))
    return format(value, ",f" if grouped else "f")


def shown(x: float) -> float:
    """`x` rounded as `gb` and the speed sentences show it, so a result computed from shown figures is the one a
    reader gets by working them out.

    >>> shown(15.4), shown(7.64), shown(0.2712)
    (15.0, 7.6, 0.27)
    """
    return float(_rounded_text(x))


def _decimal(text: str) -> str:
    """A number already rounded for a sentence, with the reader's decimal mark: 3.4 or 3,4."""
    return localized(text)


# ---- what a pair needs, and where it goes -------------------------------------------------------------------------


def count_parameters(config, trust_remote_code: bool = False) -> int:
    """Parameters of the model the config describes, counted on the meta device (no memory, no weights)."""
    try:
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(config, trust_remote_code=trust_remote_code)
        return sum(p.numel() for p in model.parameters())
    except Exception:  # an exotic architecture: fall back on the decoder-only formula
        return approx_parameters(config)


def approx_parameters(config) -> int:
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    h, layers, vocab = text.hidden_size, text.num_hidden_layers, text.vocab_size
    inter = getattr(text, "intermediate_size", 4 * h)
    heads = text.num_attention_heads
    kv = getattr(text, "num_key_value_heads", None) or heads
    head_dim = getattr(text, "head_dim", None) or h // heads
    attention = h * heads * head_dim * 2 + h * kv * head_dim * 2
    embeddings = vocab * h * (1 if getattr(text, "tie_word_embeddings", True) else 2)
    return embeddings + layers * (attention + 3 * h * inter + 2 * h) + h


def kv_cache_bytes(config, context: int, bytes_per_value: int) -> int:
    """Keys and values for `context` tokens: 2 x layers x KV heads x head dim x context x bytes."""
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    try:
        heads = text.num_attention_heads
        kv = getattr(text, "num_key_value_heads", None) or heads
        head_dim = getattr(text, "head_dim", None) or text.hidden_size // heads
        return 2 * text.num_hidden_layers * kv * head_dim * context * bytes_per_value
    except (AttributeError, TypeError):
        return 0


@dataclass(frozen=True)
class MemoryEstimate:
    """What a pair needs in one dtype: weights plus a KV cache of `context` tokens, per model."""

    names: tuple[str, ...]  # target first
    dtype: str
    params: tuple[int, ...]
    weights_bytes: tuple[int, ...]
    kv_bytes: tuple[int, ...]
    context: int = DEFAULT_CONTEXT

    def model_bytes(self, i: int) -> int:
        return self.weights_bytes[i] + self.kv_bytes[i]

    @property
    def total_bytes(self) -> int:
        return sum(self.weights_bytes) + sum(self.kv_bytes)

    def sentence(self) -> str:
        """A phrase: "a + b need about 3.4 GB in bfloat16", in the reader's language."""
        names, size = " + ".join(self.names), gb(self.total_bytes)
        if len(self.names) == 1:
            return _("{names} needs about {size} in {dtype}", names=names, size=size, dtype=self.dtype)
        return _("{names} need about {size} in {dtype}", names=names, size=size, dtype=self.dtype)


def estimate_memory(names: list[str], params: list[int], dtype: torch.dtype | str, configs: list | None = None,
                    context: int = DEFAULT_CONTEXT) -> MemoryEstimate:
    """Parameters x bytes per parameter, plus each model's KV cache for `context` tokens when its config is known."""
    dtype = dtype if isinstance(dtype, str) else dtype_name(dtype)
    size = torch.empty((), dtype=DTYPES[dtype]).element_size()
    configs = configs or [None] * len(names)
    kv = tuple(kv_cache_bytes(c, context, size) if c is not None else 0 for c in configs)
    return MemoryEstimate(tuple(names), dtype, tuple(params), tuple(p * size for p in params), kv, context)


@dataclass(frozen=True)
class Placement:
    """Where the models go: one device each, or the target over several GPUs (device_map + max_memory)."""

    target_device: torch.device
    draft_device: torch.device
    max_memory: dict | None = None  # set when the target is sharded with device_map="auto"
    ram_unchecked: bool = False  # on the CPU or MPS with RAM that could not be read: nothing was compared

    @property
    def sharded(self) -> bool:
        return self.max_memory is not None

    def describe(self, models: int = 2) -> str:
        """Where the models go, in the reader's language; `models` = 1 for a target loaded alone (no separate draft,
        or the default pair's fit check, which counts its target only), which is not "both" anywhere (Read 46)."""
        if self.sharded:
            gpus = ", ".join(f"cuda:{i}" for i in self.max_memory)
            if models == 1:
                return _("target sharded over {gpus}", gpus=gpus)
            return _("target sharded over {gpus}; draft on {device}", gpus=gpus, device=self.draft_device)
        if models == 1:
            return _("on {device}", device=self.target_device)
        return _("both on {device}", device=self.target_device)


def plan_placement(estimate: MemoryEstimate, machine: Machine, device: torch.device) -> Placement:
    """Fit the pair on `device`, else (CUDA) over all GPUs with the draft on `device`'s GPU (the fastest when
    `device` names no index); else refuse with the numbers."""
    need = estimate.total_bytes
    available = (sum(g.free_bytes for g in machine.gpus) if device.type == "cuda" and len(machine.gpus) > 1 else
                 machine.gpus[0].free_bytes if device.type == "cuda" and machine.gpus else machine.ram_available_bytes)
    # the refusal as a reader checks it from the figures it shows: where those would say the pair fits (16.2 GB needs
    # "about 16 GB", a machine with 16.0 GB "has 16 GB"; or 90% of a shown 18 GB is 16.2), it names what specviz may
    # use, written with the decimals that tell the two apart (read 52)
    shown_need, shown_available = shown_gb(need), shown_gb(available)
    if need > HEADROOM * available and (shown_need <= Decimal(repr(HEADROOM)) * shown_available if need <= available
                                        else shown_need <= shown_available):
        needed, usable = gb_above(need, HEADROOM * available)
        refuse = _("{estimate}; {machine}, and specviz keeps {share} of it free for activations: it may use {usable}, "
                   "less than the {needed} needed.", estimate=estimate.sentence(), machine=machine.describe(device),
                   share=percent(1 - HEADROOM), usable=usable, needed=needed)
    elif need <= available:
        refuse = _("{estimate}; {machine}, and specviz keeps {share} of it free for activations.",
                   estimate=estimate.sentence(), machine=machine.describe(device), share=percent(1 - HEADROOM))
    else:
        refuse = _("{estimate}; {machine}.", estimate=estimate.sentence(), machine=machine.describe(device))
    if device.type != "cuda":
        if machine.ram_available_bytes and need > HEADROOM * machine.ram_available_bytes:
            raise ModelLoadError(refuse)
        return Placement(device, device, ram_unchecked=not machine.ram_available_bytes)
    gpus = {g.index: g for g in machine.gpus}
    home = gpus.get(device.index) if device.index is not None else machine.fastest_gpu()
    if home is None:
        raise ModelLoadError(_("There is no GPU {index}: this machine has {count}.", index=device.index,
                               count=len(machine.gpus)))
    home_device = torch.device("cuda", home.index)
    if need <= HEADROOM * home.free_bytes:
        return Placement(home_device, home_device)
    if len(gpus) > 1 and need <= HEADROOM * sum(g.free_bytes for g in gpus.values()):
        draft_need = sum(estimate.model_bytes(i) for i in range(1, len(estimate.names)))
        max_memory = {home.index: int(HEADROOM * home.free_bytes) - draft_need}
        max_memory.update({g.index: int(HEADROOM * g.free_bytes) for g in gpus.values() if g.index != home.index})
        max_memory = {i: m for i, m in max_memory.items() if m > 0}
        if sum(max_memory.values()) >= estimate.model_bytes(0):
            return Placement(home_device, home_device, max_memory)
    raise ModelLoadError(refuse)


def estimate_entry(entry, dtype: torch.dtype | str) -> MemoryEstimate:
    """A catalog entry's weights from its stated parameter counts (no config, no download; KV cache left out)."""
    return estimate_memory([m.short_name for m in entry.models], [round(m.params_billion * 1e9) for m in entry.models],
                           dtype)


def check_fits(entry, device: str | torch.device | None = None, dtype: str | torch.dtype | None = None,
               machine: Machine | None = None) -> Placement:
    """Where a catalog entry would go on this machine, or a ModelLoadError naming the numbers."""
    machine = machine or detect_machine()
    dev = pick_device(device, machine)
    return plan_placement(estimate_entry(entry, pick_dtype(dev, dtype, machine)), machine, dev)


# ---- how fast a pair that fits would run ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SpeedEstimate:
    """How long plain (target-only) decoding would take per token here, and how that was worked out.

    At batch size 1 every new token reads all of the target's weights once, so a token cannot take less than
    weights ÷ memory bandwidth; on a CPU the arithmetic often makes it slower still, so a bandwidth estimate is a
    floor. Scaling a small model's measured forward by weight bytes includes that arithmetic, and is the closer one.
    """

    seconds_per_token: float
    basis: str  # "bandwidth" or "scaled"
    detail: str  # the numbers it came from, as a phrase

    @property
    def tokens_per_second(self) -> float:
        return 1.0 / self.seconds_per_token if self.seconds_per_token > 0 else float("inf")

    def sentence(self) -> str:
        """Two sentences for the fit check: the speed, saying which estimate it is, then what speculation can do.

        >>> speed_from_bandwidth(16 * GB, 8 * GB).sentence()[:96]
        'Speed here: plain decoding would take about 2.0 s or more per token (0.5 tokens/s), because each'
        >>> speed_from_reference(int(15.2 * GB), int(0.27 * GB), 0.0404, "SmolLM2-135M", "bfloat16").sentence()[38:73]
        'about 2.2 s per token (0.5 tokens/s'
        """
        shown = _shown_seconds(self.seconds_per_token)  # the rate is 1 / the time as shown, so the two agree
        values = {"time": duration(self.seconds_per_token), "rate": rate(1.0 / shown if shown > 0 else float("inf")),
                  "detail": self.detail}
        if self.basis == "bandwidth":
            return _("Speed here: plain decoding would take about {time} or more per token ({rate}), {detail}. "
                     "Speculative decoding divides that by at most the tokens each step emits (its kept drafts plus "
                     "the recovered or bonus token).", **values)
        return _("Speed here: plain decoding would take about {time} per token ({rate}), {detail}. "
                 "Speculative decoding divides that by at most the tokens each step emits (its kept drafts plus the "
                 "recovered or bonus token).", **values)


def duration(seconds: float) -> str:
    """'2.0 s', '350 ms', '4.2 ms'; under 0.1 ms in µs (the toy pair's '4.9 µs', not '0.0 ms').

    >>> duration(2.04), duration(0.35), duration(0.0042), duration(4.9e-6)
    ('2.0 s', '350 ms', '4.2 ms', '4.9 µs')
    """
    if seconds >= 1:
        return _decimal(_fixed(seconds, 1)) + " s"
    ms = Decimal(repr(seconds)).scaleb(3)  # not 1000 * seconds, whose binary product can move a tie
    if ms < Decimal("0.1"):
        return _decimal(_rounded_text(float(ms.scaleb(3)))) + " µs"
    return _decimal(_fixed(ms, 0 if ms >= 10 else 1)) + " ms"


def rate(tokens_per_second: float) -> str:
    """'0.5 tokens/s', '31 tokens/s', '204,082 tokens/s' (grouped as every count)."""
    if tokens_per_second >= 0.1:
        shown = _fixed(tokens_per_second, 0, grouped=True) if tokens_per_second >= 10 else _fixed(tokens_per_second, 1)
        return _("{rate} tokens/s", rate=_decimal(shown))
    return _("one token every {time}", time=duration(1 / tokens_per_second))


def measure_bandwidth(device: str | torch.device = "cpu", megabytes: int = 128, repeats: int = 3) -> float:
    """Memory bandwidth in bytes/s on `device`: the quickest of `repeats` copies of a `megabytes` tensor (each copy
    reads and writes it once), after one untimed copy. A busy machine measures lower, which only makes the speed
    estimate more cautious."""
    import time

    device = torch.device(device)
    n = megabytes * 1_000_000 // 4
    src = torch.ones(n, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)

    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        elif device.type == "mps":
            torch.mps.synchronize()

    dst.copy_(src)
    sync()
    best = float("inf")
    for _repeat in range(repeats):
        start = time.perf_counter()
        dst.copy_(src)
        sync()
        best = min(best, time.perf_counter() - start)
    return 2 * n * 4 / best


def speed_from_bandwidth(weight_bytes: int, bandwidth: float, device_type: str = "cpu",
                         embedding_bytes: int = 0, gpus: int = 1) -> SpeedEstimate:
    """The floor: one read of the weights a one-token forward reads, at the measured bandwidth (bytes/s).

    A forward reads every weight of the target but its input embedding table, of which it reads one row (the token's);
    where the output layer shares that table (tied embeddings: SmolLM2, the small Qwen2.5 models) the output layer
    reads it whole, so every weight counts. `embedding_bytes` is the size of an input embedding table kept apart from
    the output layer (untied: Qwen2.5-7B's 0.545 billion of its 7.62), which the floor leaves out (read 51: it was
    counted, so the floor of an untied model read about 7% high under "or more"); 0 for a tied one. The sentence says
    which it counted. Worked out from the two figures as the sentence shows them (`shown`), so the time it gives is
    the shown size ÷ the shown bandwidth, not a division of unrounded values that a reader cannot repeat. On a GPU
    (`device_type` "cuda" or "mps") the sentence names what keeps a small model far above that floor there, its
    kernel launches (read 47: it named only a CPU's arithmetic, and the project's H200 runs, docs/gpu.md, took
    milliseconds per forward of the default target, whose floor there is tens of microseconds). On a CPU it names the
    arithmetic and each layer's fixed cost of running its operations (read 49: the toy pair's floor is microseconds,
    its measured forward milliseconds, and arithmetic alone does not explain that).

    >>> speed_from_bandwidth(int(15.4 * GB), 7.64 * GB).sentence()[:57]
    'Speed here: plain decoding would take about 2.0 s or more'
    >>> estimate = speed_from_bandwidth(int(15.4 * GB), 8.04 * GB)
    >>> estimate.detail[:70]
    "because each token reads all 15 GB of the target's weights (its output"
    >>> estimate.detail.split("moves ")[1][:8], estimate.sentence()[44:49]
    ('8.0 GB/s', '1.9 s')
    >>> estimate.seconds_per_token  # 15 GB ÷ 8.0 GB/s, not 15.4 ÷ 8.04
    1.875
    >>> untied = speed_from_bandwidth(int(15.24 * GB), 10 * GB, embedding_bytes=int(1.09 * GB))  # Qwen2.5-7B, bf16
    >>> untied.seconds_per_token, untied.detail[:68]
    (1.4, "because each token reads 14 GB of the target's 15 GB of weights: all")

    A target split over `gpus` GPUs (device_map="auto") is read one shard after another, each at its own GPU's
    bandwidth; the one measured is one GPU's, so the sentence says it takes the others to be alike (read 55: it said
    "this GPU's memory moves" as if one GPU held it all):

    >>> split = speed_from_bandwidth(int(144 * GB), 3000 * GB, "cuda", gpus=2)
    >>> split.seconds_per_token, split.detail.split("reads whole), ")[1][:96]
    (0.048, 'split over 2 GPUs that each token reads one after another, and the one measured moves 3,000 GB/s')
    """
    read = weight_bytes - embedding_bytes
    # in decimal, as a reader divides: 0.079 MB ÷ 20 GB/s is 3.95 µs, which rounds to 4.0 (read 54: the binary quotient
    # 3.9499999… µs was written 3.9 µs)
    size, moved = Decimal(_rounded_text(read / GB)), Decimal(_rounded_text(bandwidth / GB))
    if embedding_bytes:
        weights = _("{read} of the target's {size} of weights: all but its input embedding table ({table}), of "
                    "which it reads one row, as its output layer is a table of its own", read=gb(read),
                    size=gb(weight_bytes), table=gb(embedding_bytes))
    else:
        weights = _("all {size} of the target's weights (its output layer is its input embedding table, which it "
                    "reads whole)", size=gb(weight_bytes))
    if device_type != "cpu" and gpus > 1:
        return SpeedEstimate(float(size / moved), "bandwidth", _(  # gpus >= 2: always the plural
            "because each token reads {weights}, split over {n} GPUs that each token reads one after another, and the "
            "one measured moves {bandwidth} GB/s (measured once by this server; this takes the other GPUs to move "
            "their memory as fast, and launching each layer's kernels can make each token slower still)",
            weights=weights, n=number(gpus, 0), bandwidth=_grouped(bandwidth / GB)))
    if device_type != "cpu":
        return SpeedEstimate(float(size / moved), "bandwidth", _(
            "because each token reads {weights}, and this GPU's memory moves {bandwidth} GB/s (measured once by this "
            "server; launching each layer's kernels can make each token slower still, far slower for a small model)",
            weights=weights, bandwidth=_grouped(bandwidth / GB)))
    return SpeedEstimate(float(size / moved), "bandwidth", _(
        "because each token reads {weights}, and this machine's memory moves {bandwidth} GB/s (measured once by this "
        "server; a CPU's arithmetic and the fixed cost of running each layer's operations can make each token slower "
        "still, far slower for a small model)", weights=weights, bandwidth=_grouped(bandwidth / GB)))


def speed_from_reference(weight_bytes: int, reference_bytes: int, reference_seconds: float,
                         reference_name: str, reference_dtype: str, gpus: int = 1) -> SpeedEstimate:
    """A measured forward of a smaller model here, scaled by how many more weight bytes the target reads.

    Worked out from the time and the ratio as the sentence shows them, so a reader who multiplies them gets the
    result it states:

    >>> speed_from_reference(2 * GB, GB // 2, 0.05, "SmolLM2-135M", "float32").seconds_per_token
    0.2
    >>> round(speed_from_reference(int(15.2 * GB), int(0.27 * GB), 0.0404, "SmolLM2-135M", "bfloat16")
    ...       .seconds_per_token, 3)
    2.24

    The sentence names the dtype the reference was timed in (read 55: "SmolLM2-135M's measured 40 ms ... by the
    105× more weight bytes" left a reader who divides the float32 sizes of the catalog, 30 GB by 0.54 GB, at 52×;
    the forward had been timed in bfloat16, 0.27 GB):

    >>> speed_from_reference(int(28.3 * GB), int(0.27 * GB), 0.04, "SmolLM2-135M", "bfloat16").detail[:67]
    "scaled from SmolLM2-135M's measured 40 ms per forward in bfloat16 o"

    The reference itself, in the dtype it was timed in, is its measured forward, not "1.0× larger" (read 50):

    >>> speed_from_reference(GB // 2, GB // 2, 0.05, "SmolLM2-135M", "float32").detail
    "as measured for SmolLM2-135M itself on this machine, in float32 (this pair's target)"

    A target split over `gpus` GPUs is read one shard after another, and the reference was timed on one GPU, so the
    sentence says it takes the others to be as fast, as `speed_from_bandwidth` does (read 55: it said nothing):

    >>> split = speed_from_reference(int(144 * GB), int(0.27 * GB), 0.004, "SmolLM2-135M", "bfloat16", gpus=2)
    >>> split.detail.split("reads, ")[1]
    'split over 2 GPUs that each token reads one after another (this takes the other GPUs to move their memory as fast \
as the one that ran that forward)'
    """
    seconds = _shown_seconds(reference_seconds)
    if weight_bytes == reference_bytes:
        return SpeedEstimate(seconds, "scaled", _(
            "as measured for {model} itself on this machine, in {dtype} (this pair's target)",
            model=reference_name, dtype=reference_dtype))
    scale = _rounded_text(weight_bytes / reference_bytes)
    seconds_per_token = float(Decimal(repr(seconds)) * Decimal(scale))  # in decimal, as for the floor
    values = dict(model=reference_name, time=duration(reference_seconds), dtype=reference_dtype, scale=_decimal(scale))
    if gpus > 1:  # always the plural
        return SpeedEstimate(seconds_per_token, "scaled", _(
            "scaled from {model}'s measured {time} per forward in {dtype} on this machine by the {scale}× more weight "
            "bytes a token reads, split over {n} GPUs that each token reads one after another (this takes the other "
            "GPUs to move their memory as fast as the one that ran that forward)", n=number(gpus, 0), **values))
    return SpeedEstimate(seconds_per_token, "scaled", _(
        "scaled from {model}'s measured {time} per forward in {dtype} on this machine by the {scale}× more weight "
        "bytes a token reads", **values))


def _shown_seconds(seconds: float) -> float:
    """`seconds` rounded as `duration` shows it: 2.0 s, 350 ms, 4.2 ms, 4.9 µs."""
    if seconds >= 1:
        return float(_fixed(seconds, 1))
    ms = Decimal(repr(seconds)).scaleb(3)
    if ms < Decimal("0.1"):
        return float(_rounded_text(float(ms.scaleb(3)))) / 1e6
    return float(_fixed(ms, 0 if ms >= 10 else 1)) / 1000
