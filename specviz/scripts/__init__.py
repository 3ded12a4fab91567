"""Maintenance scripts, run with `python -m specviz.scripts.<name>`: some write the committed files under assets/
(example traces, screenshots, benchmark results, the Portuguese catalog), others measure or check and print what they
found (page costs, push latency, the accessibility audit) or write where they are told (the GPU check's --out).
`make traces` and `make i18n` run two of them."""

from collections.abc import Mapping, Sequence


def recorded_command(prog: str, argv: Sequence[str], resolved: Mapping[str, object]) -> str:
    """The command a results file records: the flags as typed, then each flag of `resolved` (flag -> the value the run
    took, a list for a flag of several values) that was not typed. A default such as the dtype (bfloat16 on a CPU
    with bf16 instructions, else float32) or the draft shape calibrated for a machine differs between machines, so a
    command without it, typed on another one, measures another run. A typed prefix of a flag (argparse reads
    `--max-new 8` as `--max-new-tokens 8`) counts as the flag.

    >>> recorded_command("python -m specviz.scripts.x", ["--k", "3"], {"--k": 4, "--dtype": "bfloat16",
    ...                                                                "--widths": [2, 4]})
    'python -m specviz.scripts.x --k 3 --dtype bfloat16 --widths 2 4'
    >>> recorded_command("python -m specviz.scripts.x", ["--dtype=float32", "--max-new", "8"],
    ...                  {"--dtype": "bfloat16", "--max-new-tokens": 128})
    'python -m specviz.scripts.x --dtype=float32 --max-new 8'
    """
    typed = {word.split("=", 1)[0] for word in argv if word.startswith("--")}
    added = [" ".join([flag, *map(str, value if isinstance(value, (list, tuple)) else [value])])
             for flag, value in resolved.items() if not any(flag.startswith(word) for word in typed)]
    return " ".join([prog, *argv, *added])
