"""The engine's limits and names, defined once: what K and a generation's length may be, how many bars a trace
keeps, what the built-in pairs draft with, and the names of the draft-length policies. Plain constants, so the
command line can check its flags without loading torch. The proposers' names are the registry's
(`specviz.engine.proposers.registry`); `PROPOSERS` and `TOY_PROPOSERS` read it when asked.

Everything above reads them from here: the settings checks (`specviz.engine.generation`), the trace file checks
(`specviz.engine.trace_schema`), the run spec and its URL form (`specviz.runs.runspec`), the CLI and the pages.
"""

import math
import numbers
import re

from specviz.core.digits import plain_float, plain_int  # noqa: F401 (re-exported: the CLI's types)

# the linear kernels a run's machine record names (`specviz.engine.kernels` packs them), torch-free here so that a
# page that only words a recorded run's machine (`labs.bench.machine`: the Overview's replay) loads no torch
PACKED = "onednn-packed"
STOCK = "stock"

K_RANGE = (1, 16)  # drafted tokens per step
MAX_NEW_TOKENS_RANGE = (1, 2048)
TEMPERATURE_RANGE = (0.0, 2.0)  # 0 = greedy; every run (RunSpec) and the bench's --temperatures
TREE_NODES_RANGE = (0, 64)  # nodes of a draft tree per step; 0 = a chain of K (specviz.engine.tree)
TREE_WIDTH_RANGE = (1, 8)  # a draft tree's width W: nodes expanded per level, children per node
TREE_LOOKUP_RANGE = (0, 16)  # tokens a draft tree copies from the context as one more branch; 0 = none
TOP_N = 10  # bars per distribution in a trace
THREADS_RANGE = (1, 256)  # torch threads a command may ask for (100000 crashed libgomp: issue 44 item 5)
REPEATS_RANGE = (1, 100)  # timed repeats of a benchmark case; warm-ups may be 0 to the same maximum
SEED_RANGE = (0, 2**32 - 1)  # what torch and numpy both accept; every command's --seed and RunSpec.seed
MAX_SEED = 2**63 - 1  # a generation's seed (GenerationSettings, a trace's settings): the labs add run numbers
# What each built-in pair drafts with besides its target, best first (a proposer that `needs` one is offered for it,
# `specviz.engine.proposers.registry.offered`). The toy pair's EAGLE drafter and Medusa heads are untrained stand-ins
# (the tests run both; `specviz.scripts.gpu_check --rehearse` runs its EAGLE drafter too), so it offers its draft model
# alone.
PAIR_DRAFTERS = {"default": ("eagle", "draft", "medusa"), "toy": ("draft",)}
# pick_dtype's and pick_device's choice when none is asked for, in words (every --dtype and --device help); the toy
# pair is the exception: it loads on the CPU in float32 unless a flag names another (`models.pairs.load_pair`)
DEFAULT_DTYPE_RULE = ("bfloat16 on a GPU that supports it (float16 on an older one and on Apple MPS); on a CPU, "
                      "bfloat16 on a CPU with bf16 instructions, float32 on one without; the toy pair: float32")
# read 52: generate, compare and calibrate take "auto" too (`pick_dtype`: the default's choice, named), which the help
# left out; the bench's --dtype lists its choices, which leave auto out (BENCH_DTYPE_HELP)
DTYPE_HELP = f"float32, float16, bfloat16 or auto (default: auto, which picks {DEFAULT_DTYPE_RULE})"
BENCH_DTYPE_HELP = f"float32, float16, bfloat16 (default: {DEFAULT_DTYPE_RULE})"
# read 52: every --device takes "auto" too (`machine.pick_device`: the default's choice), which the help left out
DEVICE_HELP = ("cpu, cuda, cuda:N, mps or auto (default: auto, which picks the fastest CUDA GPU, else Apple MPS, else "
               "cpu; the toy pair: cpu)")
# every --max-new-tokens help: the flag is a cap, since a run stops at the end-of-text token (read 50: the scripts'
# and the bench's helps read "new tokens per prompt", where greedy-identity-float32.json holds answers of 10 tokens)
MAX_NEW_TOKENS_CAP = "a cap: an answer that ends sooner stops sooner"
POLICIES = ("constant", "heuristic", "threshold", "optimal")  # how K is chosen each step (specviz.engine.policies)
# what timed a run's steps: the wall clock, or one process's CPU time (the bench's --clock, make_traces' meta["clock"])
CLOCKS = ("wall", "cpu")


PAYS_TOLERANCE = 1e-9  # relative: a speedup within this of 1 is a tie, and a tie is no loss


def pays(speedup: float) -> bool:
    """Whether a speedup means speculation pays: 1 or more, where a speedup within `PAYS_TOLERANCE` (one part in
    10^9) below 1 counts as 1. A tie is not a loss: with α = 1 and a free draft (n-gram lookup always right, c = 0)
    a compute-bound step verifies K + 1 tokens for the price of K + 1 one-token passes, a speedup of exactly 1,
    which v = t(B, K + 1) / t(B, 1) in floats can put one unit in the last place below 1 (0.9999999999999998; Read
    48: such a draft "stopped paying" at batch 305 on an H100 with no context). One part in 10^9 is far above that
    rounding and far below the third decimal the page shows: α = 0.999 still loses where the pass is compute-bound.
    The roofline's predicted curves (`specviz.labs.roofline`) and a vLLM sweep's measured levels
    (`specviz.serving.results`: read 49, a measured speedup of exactly 1 "did not pay" there) count by this one rule.

    >>> pays(1.0), pays(1.0 - 1e-15), pays(0.999999)
    (True, True, False)
    """
    return speedup >= 1.0 - PAYS_TOLERANCE


def is_whole(value: object) -> bool:
    """An int that is not a bool: True is no count, though Python's int says it is one.

    >>> is_whole(3), is_whole(True), is_whole(3.0)
    (True, False, False)
    """
    return isinstance(value, int) and not isinstance(value, bool)


def is_integral(value: object) -> bool:
    """`is_whole` with NumPy's integers too (np.int64 is no int), for a setting a caller may pass from an array; a
    bool, numpy's or Python's, is still no count.

    >>> is_integral(3), is_integral(True), is_integral(3.0)
    (True, False, False)
    """
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_real(value: object) -> bool:
    """A real number (numpy's included), not a bool, finite or not: what a setting's comparison can read, before a
    check of its own refuses nan or inf in its own words.

    >>> is_real(0.5), is_real(True), is_real(float("nan")), is_real("0.5")
    (True, False, True, False)
    """
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    """A finite int or float that is not a bool: what a file's figure must be before a table or a chart draws it.

    >>> is_number(0.5), is_number(3), is_number(True), is_number(float("nan")), is_number("1")
    (True, True, False, False, False)
    """
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int past float's range (10**400): no chart can draw it
        return False


def check_threads(threads: object, flag: str = "--threads") -> int:
    """`threads` when it is a thread count a command may ask torch for, else a ValueError with one sentence.

    >>> check_threads(2)
    2
    >>> check_threads(100000)
    Traceback (most recent call last):
    ...
    ValueError: --threads must be a whole number from 1 to 256 (got 100000).
    """
    lo, hi = THREADS_RANGE
    if not is_whole(threads) or not lo <= threads <= hi:
        from specviz.core.i18n import with_minus

        raise ValueError(f"{flag} must be a whole number from {lo} to {hi} (got {with_minus(repr(threads))}).")
    return threads


def check_lookup_has_tree(tree_nodes: int, tree_lookup: int) -> None:
    """A ValueError with one sentence for a lookup branch without a tree (issue 44 item 9: it was silently ignored);
    the check DraftShape, the one type for a draft's sizes, makes (RunSpec says it translated).

    >>> check_lookup_has_tree(8, 4), check_lookup_has_tree(0, 0)
    (None, None)
    """
    if tree_lookup and not tree_nodes:
        raise ValueError(f"tree_lookup needs a tree: set tree_nodes above 0, or tree_lookup to 0 (got tree_lookup="
                         f"{tree_lookup} with tree_nodes=0).")


def _typed(text: str) -> str:
    """A flag's refused text as its refusal quotes it, `core.text.typed`'s way with English marks: a number bare
    ("(got 0)", "(got −3)"), a word quoted ("(got 'four')"). Where babel is not installed yet (transfer's receive
    brings it), as typed in quotes.

    >>> _typed("0"), _typed("-3"), _typed("four")
    ('0', '−3', "'four'")
    """
    try:
        from specviz.core.text import typed
    except ModuleNotFoundError:
        return repr(text)
    return typed(text, marks=False)


def _(message: str, **values: object) -> str:
    """`message` in the reader's language (`specviz.core.i18n._`), its named placeholders filled; in English where
    babel is not installed yet (transfer's receive brings it)."""
    try:
        from specviz.core.i18n import _ as translated
    except ModuleNotFoundError:
        return message.format(**values) if values else message
    return translated(message, **values)


# plain_int and plain_float (read 55) live in specviz.core.digits, which the proposers' registry reads too: the
# registry is imported from here, so reading them from here would make an import cycle


def threads_arg(text: str) -> int:
    """argparse's type for a --threads flag: 0 (torch's choice) or a count `check_threads` accepts; anything else
    is argparse's one-line error, never a crash inside the OpenMP runtime."""
    import argparse

    try:
        value = plain_int(text)
        return value if value == 0 else check_threads(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number from 0 (torch's choice) to {THREADS_RANGE[1]} "
                                         f"(got {_typed(text)})") from None


def whole_arg(lo: int, hi: int | None = None):
    """argparse's type for a count flag: a whole number from `lo` (to `hi`), else argparse's one-line error, never
    a traceback or a silent surprise (`--held-out -1` drew 3 prompts, `--chunk 0` ended in "range() arg 3", a
    script's `--prompts 0` divided by zero or passed a check it never made, its `--k 0` ran the default K).

    >>> whole_arg(1, 16)("4"), whole_arg(0)("0")
    (4, 0)
    """
    import argparse

    def parse(text: str) -> int:
        try:
            value = plain_int(text)
        except ValueError:
            value = None
        if value is None or value < lo or (hi is not None and value > hi):
            span = f"from {lo} to {hi}" if hi is not None else f"of at least {lo}"
            # a typed number bare, a word quoted (`core.text.typed`, read 50: "(got '0')" beside "(got 0)")
            raise argparse.ArgumentTypeError(f"a whole number {span} (got {_typed(text)})")
        return value
    return parse


class TypedFloat(float):
    """A float that keeps the text it was typed as (`typed`), so a refusal quotes "--timeout 1e9" as 1e9, not
    Python's 1e+09, and "--top-p 1e1" as 1e1, not 10 (read 52). It is a float in every other way; arithmetic on it
    gives a plain float.

    >>> x = TypedFloat("1e9")
    >>> x == 1e9, x.typed, TypedFloat(0.5).typed
    (True, '1e9', None)
    """

    def __new__(cls, value: str | float, typed: str | None = None):
        made = super().__new__(cls, value)
        made.typed = typed if typed is not None else value if isinstance(value, str) else None
        return made


def as_typed(value: object) -> str | None:
    """The text a number flag was typed as (a `TypedFloat`'s), else None."""
    return getattr(value, "typed", None) if isinstance(value, float) else None


def finite_float(text: str) -> float:
    """argparse's type for a number flag whose range a later check states in the reader's language (`generate
    --temperature`, `bench --threshold`): what float() reads as inf or nan is argparse's one-line error quoting what
    was typed. Read 46: `--temperature 1e400` was refused "(got inf)", a number the user never typed. A number
    too close to 0 for a float reads as 0 and keeps what was typed, so the range check refuses it rather than run
    greedy (`runspec.check_named`, the bench's `BenchConfig.check`; read 53); a 0 written 0e-400 is 0.

    >>> finite_float("0.7"), finite_float("1e9").typed
    (0.7, '1e9')
    >>> finite_float("1e-400"), finite_float("1e-400").typed, finite_float("0e-400").typed
    (0.0, '1e-400', '0e-400')
    >>> for text in ("1e400", "-1e400", "nan", "-inf"):
    ...     try:
    ...         finite_float(text)
    ...     except Exception as exc:
    ...         print(exc)
    '1e400' is too large to be a number
    '-1e400' is too far below 0 to be a number
    'nan' is not a number
    '-inf' is infinite, not a number
    """
    import argparse

    value = plain_float(text)  # a ValueError: argparse's own "invalid float value: 'abc'" (this type's name is float)
    if math.isfinite(value):
        return TypedFloat(value, text)  # a refusal quotes it as typed (`as_typed`)
    # quoted as every refusal quotes a value that is no finite number (`_typed`: "(got '1e400')"), cut at 40
    # characters (read 54: gpu_check's own parser echoed a 400-digit --cap-scale whole)
    word, typed = text.strip().lstrip("+-").lower(), _typed(text)
    # in the reader's language, as argparse's own words around it are (`cli.argparse_speaking`; read 53)
    raise argparse.ArgumentTypeError(
        _("{typed} is not a number", typed=typed) if math.isnan(value)
        else _("{typed} is infinite, not a number", typed=typed) if word in ("inf", "infinity")
        else _("{typed} is too large to be a number", typed=typed) if value > 0
        else _("{typed} is too far below 0 to be a number", typed=typed))


finite_float.__name__ = "float"  # argparse and bench's list flags name a type in a refusal: "invalid float value"


def number_arg(lo: float, hi: float = math.inf, *, above: bool = False):
    """argparse's type for a number flag from `lo` to `hi` (a script's --temperature), or above `lo` with `above`
    (distill's --scale and --lr): nan, inf and the numbers outside are argparse's one-line error.

    >>> number_arg(*TEMPERATURE_RANGE)("0.7"), number_arg(0, above=True)("1e-4")
    (0.7, 0.0001)
    """
    import argparse

    def parse(text: str) -> float:
        try:
            value = plain_float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and (value > lo if above else value >= lo) and value <= hi):
            span = (f"above {lo:g}" if above else f"of at least {lo:g}" if hi == math.inf else f"from {lo:g}") + (
                f" to {hi:g}" if hi != math.inf and not above else f" and at most {hi:g}" if hi != math.inf else "")
            raise argparse.ArgumentTypeError(f"a number {span} (got {_typed(text)})")
        return value
    return parse


def path_arg(text: str) -> str:
    """argparse's type for a file or folder flag (--json, --out): an empty path is argparse's one-line error, not
    a run that writes nowhere (`generate --json ""`) or into the current folder (`bench --out ""`), and so is a name
    holding a character `specviz.core.text.has_control` refuses, as a model folder's is (imported here, when a path
    is read: the module itself imports nothing beyond the standard library).

    >>> path_arg("trace.json")
    'trace.json'
    """
    import argparse

    from specviz.core.text import control_shown, has_control

    if not text.strip():
        raise argparse.ArgumentTypeError(_("a file or folder name, not an empty one (got {typed})", typed=repr(text)))
    if has_control(text):  # read 50: `bench --out $'x\e[2J'` made that folder and echoed it raw to the terminal
        raise argparse.ArgumentTypeError(_("a file or folder name without a control character (such as a line break, "
                                           "an escape or a text-direction override) (got '{typed}')",
                                           typed=control_shown(text)))
    return text


def dtype_arg(text: str) -> str:
    """argparse's type for every --dtype flag: an empty value is argparse's one-line error (read 48: `--dtype ""`
    silently ran the machine's default dtype, as if the flag were left out); a name is checked where it is used.

    >>> dtype_arg("bfloat16")
    'bfloat16'
    """
    import argparse

    if not text.strip():
        # Read 48 review: not "the machine's default": shape_table and tree_tokens default to float32
        raise argparse.ArgumentTypeError(_("an empty value is not a dtype: give float32, float16 or bfloat16, or leave "
                                           "--dtype out for its default, which --help names"))
    return text


def unwritable(path: str) -> str | None:
    """Why a file could not be written at `path`, in the OS's words in the reader's language (`i18n.os_reason`: "Is
    a directory", "No such file or directory", "Permission denied"); None when it could. Asked before a long run, so
    that a bad output path costs nothing: the write after the run still reports what only it can find (a full disk).

    >>> unwritable("/"), unwritable("/no/such/folder/x.json"), unwritable("/dev/null/x.json")
    ('Is a directory', 'No such file or directory', 'Not a directory')
    """
    import errno
    import os
    from pathlib import Path

    from specviz.core.i18n import os_reason

    target = Path(path)
    try:  # a name past the system's limit cannot even be looked at (read 46: "File name too long" left this
        # check as an OSError, exit code 1 without the sentence that names the trace)
        if target.is_dir():
            return os_reason(errno.EISDIR)
        if not target.parent.is_dir():  # a file where a folder should be ("/etc/passwd/x") is not a missing folder
            above = next((folder for folder in target.parents if folder.exists()), None)
            return os_reason(errno.ENOTDIR if above is not None and not above.is_dir() else errno.ENOENT)
        if not os.access(target if target.exists() else target.parent, os.W_OK):
            return os_reason(errno.EACCES)
    except OSError as exc:
        return os_reason(exc)
    return None


def writable_file_arg(text: str) -> str:
    """argparse's type for an output file a script writes after its runs (--out, --json): an empty path, a folder,
    a folder that does not exist or one this user may not write in is argparse's one-line error before any model
    loads, not a traceback after minutes of runs.

    >>> writable_file_arg("result.json")
    'result.json'
    """
    import argparse

    path_arg(text)
    reason = unwritable(text)
    if reason is not None:
        raise argparse.ArgumentTypeError(f"a file path that can be written (got {text!r}: {reason})")
    return text


def toy_stand_in_refusal(pair: str, proposer: str | None) -> str | None:
    """Why a script refuses the toy pair with a drafter it holds only as an untrained stand-in (EAGLE, Medusa), as
    `python -m specviz generate` refuses it; None where the run is fine. Read 55: `tree_tokens --pair toy` (its
    --proposer defaults to eagle) printed "pair toy, proposer eagle" and counts of the stand-in, as if EAGLE's."""
    from specviz.engine.proposers import registry

    offered = registry.offered(PAIR_DRAFTERS["toy"])
    if pair.strip() != "toy" or proposer is None or proposer in offered:
        return None
    return (f"--proposer {proposer}: the toy pair has no trained EAGLE drafter or Medusa heads, only untrained "
            f"stand-ins, whose counts say nothing of that proposer; choose one of these proposers: "
            f"{', '.join(offered)}")


def __getattr__(name: str):
    """`PROPOSERS` (every proposer) and `TOY_PROPOSERS` (what the toy pair offers a user), from the registry now.
    Any other name is refused before the registry (and with it babel) is imported: `from specviz.engine.limits
    import x` asks for `__path__` first, and `specviz.scripts.transfer receive` must run with no package installed."""
    if name not in ("PROPOSERS", "TOY_PROPOSERS"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from specviz.engine.proposers import registry

    if name == "PROPOSERS":
        return registry.names()
    return registry.offered(PAIR_DRAFTERS["toy"])
