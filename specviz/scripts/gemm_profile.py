"""Where PyTorch's stock CPU linear layer spends its time over a few token rows: a `perf` profile of MKL's routines.

    python -m specviz.scripts.gemm_profile                              # the LM head (49,152 x 576), 1 2 5 17 25 rows
    python -m specviz.scripts.gemm_profile --rows 5 --out-features 1536  # one of SmolLM2-135M's MLP layers

docs/benchmarks.md quotes what it found for the LM head (assets/benchmarks/stock-gemm-profile): from 5 rows on, about
half of MKL's samples or more are in a routine that copies a matrix (by how its share falls with the rows, the
weight) into MKL's panel layout on every call, while 2 rows take another MKL path with no copy. For each row
count, a child process calls `F.linear` on a plain
float32 weight (the stock kernels, never packed) in a loop under `perf record`; the table gives the time per call
(under perf, with the machine's other load) and the share of MKL's samples in its routines whose names say "copy"
against its compute kernels. Needs Linux `perf` allowed to profile this user's processes.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.engine.limits import whole_arg

CHILD = """
import sys, time, torch
rows, out_f, in_f, calls, threads = (int(a) for a in sys.argv[1:6])
torch.set_num_threads(threads)
w, x = torch.randn(out_f, in_f), torch.randn(rows, in_f)
with torch.inference_mode():
    for _ in range(5):
        torch.nn.functional.linear(x, w)
    start = time.perf_counter()
    for _ in range(calls):
        torch.nn.functional.linear(x, w)
print((time.perf_counter() - start) / calls * 1e3)
"""

LINE = re.compile(r"^\s*([\d.]+)%\s+\[\.\]\s+(\S+)")


@dataclass(frozen=True)
class Profile:
    """One row count's profile: ms per call and the percent of all samples in each MKL routine."""

    rows: int
    ms_per_call: float
    mkl: dict[str, float]

    @property
    def copy_share(self) -> float:
        """The fraction of MKL's samples in its copy routines (0 when MKL never ran)."""
        total = sum(self.mkl.values())
        return sum(v for k, v in self.mkl.items() if "copy" in k) / total if total else 0.0


def mkl_shares(report: str) -> dict[str, float]:
    """The percent of samples per MKL routine in `perf report --stdio --sort symbol` text (others left out).

    >>> mkl_shares("    55.31%  [.] mkl_blas_def_sgemm_scopy_right16_bdz\\n  3.1%  [.] _PyEval_EvalFrameDefault\\n")
    {'mkl_blas_def_sgemm_scopy_right16_bdz': 55.31}
    """
    shares: dict[str, float] = {}
    for line in report.splitlines():
        match = LINE.match(line)
        if match and match.group(2).startswith("mkl_"):
            shares[match.group(2)] = shares.get(match.group(2), 0.0) + float(match.group(1))
    return shares


def profile(rows: int, out_features: int, in_features: int, calls: int, threads: int, folder: Path) -> Profile:
    data = folder / f"rows{rows}.data"
    args = [str(rows), str(out_features), str(in_features), str(calls), str(threads)]
    run = subprocess.run(["perf", "record", "-q", "-o", str(data), "--", sys.executable, "-c", CHILD, *args],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0 or not data.exists():
        raise RuntimeError(f"perf record failed ({(run.stderr or run.stdout).strip().splitlines()[-1:]}).")
    report = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--sort", "symbol", "--stdio"],
                            capture_output=True, text=True, check=False).stdout
    return Profile(rows, float(run.stdout.split()[-1]), mkl_shares(report))


def table(profiles: Sequence[Profile]) -> str:
    """A Markdown table: rows, ms per call, MKL's top two routines and the copy share of MKL's samples."""
    lines = ["| rows | ms per call | MKL's top routines (share of all samples) | copy share of MKL's samples |",
             "|---:|---:|---|---:|"]
    for p in profiles:
        top = sorted(p.mkl.items(), key=lambda kv: -kv[1])[:2]
        names = ", ".join(f"`{k}` {v:.0f}%" for k, v in top) or "none"
        lines.append(f"| {p.rows} | {p.ms_per_call:.1f} | {names} | {p.copy_share:.0%} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.gemm_profile",
                                     description=__doc__.split("\n\n")[0],
                                     formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--rows", type=whole_arg(1, 256), nargs="+", default=[1, 2, 5, 17, 25],
                        help="token rows per call (default: 1 2 5 17 25)")
    parser.add_argument("--out-features", type=whole_arg(1, 200_000), default=49_152,
                        help="the weight's output features (default 49,152: SmolLM2's vocabulary, the LM head)")
    parser.add_argument("--in-features", type=whole_arg(1, 20_000), default=576,
                        help="the weight's input features (default 576: SmolLM2-135M's hidden size)")
    parser.add_argument("--calls", type=whole_arg(1, 100_000), default=200, help="timed calls per row count")
    parser.add_argument("--threads", type=whole_arg(1, 512), default=None,
                        help="torch threads (default: torch's own choice on this machine)")
    args = parser.parse_args(argv)
    if shutil.which("perf") is None:
        print("This needs Linux perf (the `perf` command), which this machine does not have.", file=sys.stderr)
        return 2
    import torch

    from specviz.models.machine import cpu_model, cpu_speed_flags

    threads = args.threads or torch.get_num_threads()
    start_load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        try:
            profiles = [profile(n, args.out_features, args.in_features, args.calls, threads, Path(folder))
                        for n in args.rows]
        except RuntimeError as error:
            print(f"{error} Is perf allowed to profile this user (/proc/sys/kernel/perf_event_paranoid)?",
                  file=sys.stderr)
            return 2
    plural = "" if threads == 1 else "s"
    print(f"{cpu_model()}, flags {' '.join(cpu_speed_flags())}, torch {torch.__version__}, {threads} thread{plural}, "
          f"float32, weight {args.out_features} x {args.in_features}, stock F.linear, {args.calls} calls per row "
          f"count; load average {start_load:.2f} at the start (the times mean something only on a quiet machine; the "
          f"shares count the profiled process's own samples)")
    print(table(profiles))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
