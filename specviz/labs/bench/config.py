"""What a bench run measures: the prompt suites it reads (assets/prompts/*.yaml) and the `BenchConfig` it runs.

    config = BenchConfig(pair="toy", proposers=["draft", "ngram"], ks=[1, 2, 4])
    config.check()  # a bad value is a ValueError with one sentence
    suites = load_suites(config.suites or None)

The folders the bench reads from and writes to live here too, so every other module of the package names them
the same way.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

from specviz.core.i18n import with_minus
from specviz.core.paths import BENCHMARKS_DIR, PROMPTS_DIR
from specviz.core.text import shortened, typed
from specviz.core.urlvalues import reads_as_zero
from specviz.core.yamlfiles import read_yaml
from specviz.engine.draft_shape import DraftShape, tree_holds
from specviz.engine.limits import (CLOCKS, K_RANGE, MAX_NEW_TOKENS_RANGE, POLICIES, REPEATS_RANGE, SEED_RANGE,
                                   TEMPERATURE_RANGE, TREE_LOOKUP_RANGE, TREE_NODES_RANGE, TREE_WIDTH_RANGE,
                                   as_typed, check_threads, is_whole, whole_arg)
from specviz.engine.proposers import registry
from specviz.runs.runspec import float_text

HF_MODES = ("all", "greedy", "none")
DTYPES = ("float32", "float16", "bfloat16")
CPU_CLOCK_ON_GPU = ("--clock cpu counts this process's CPU time, which leaves out the GPU's work; on cuda use "
                    "--clock wall.")


# ---- prompt suites ----------------------------------------------------------------------------------------------


@dataclass
class BenchPrompt:
    """One prompt: a single user turn (`text`) or a conversation (`messages`, the last one the user's)."""

    id: str
    suite: str
    text: str = ""
    messages: list[dict[str, str]] = field(default_factory=list)

    def turns(self) -> list[dict[str, str]]:
        return self.messages or [{"role": "user", "content": self.text}]


@dataclass
class Suite:
    name: str
    title: str
    description: str
    prompts: list[BenchPrompt]


def load_suites(names: Sequence[str] | None = None, folder: Path = PROMPTS_DIR) -> list[Suite]:
    """The prompt suites in `folder` (all of them, or those named, in that order)."""
    found: dict[str, Suite] = {}
    for path in sorted(Path(folder).glob("*.yaml")):
        data = read_yaml(path)
        name = data["name"]
        prompts = [BenchPrompt(id=p["id"], suite=name, text=p.get("text", ""), messages=p.get("messages", []))
                   for p in data["prompts"]]
        found[name] = Suite(name, data.get("title", name), data.get("description", ""), prompts)
    if not names:
        return list(found.values())
    unknown = [n for n in names if n not in found]
    if unknown:
        raise ValueError(f"Unknown prompt suite '{shortened(unknown[0])}': choose from {', '.join(found)}.")
    return [found[n] for n in names]


def held_out_texts(folder: Path = PROMPTS_DIR) -> list[str]:
    """The held-out suite's prompt texts, in order: what the scripts' `--prompts N` takes the first N of."""
    return [p.text for p in load_suites(["held-out"], folder)[0].prompts if p.text]


def held_out_arg(text: str) -> int:
    """argparse's type for a script's `--prompts N` (the first N held-out prompts): a whole number from 1 to the
    suite's size, else argparse's one-line error naming that size, before any model loads. A larger N used to run
    the whole suite and record the N asked for, as if it had run that many.

    >>> held_out_arg("8")
    8
    """
    import argparse

    from specviz.core.text import typed

    size = len(held_out_texts())
    try:
        return whole_arg(1, size)(text)
    except argparse.ArgumentTypeError:  # the same bound, saying where it comes from
        raise argparse.ArgumentTypeError(f"a whole number from 1 to {size}, the prompts in the held-out suite "
                                         f"(got {typed(text, marks=False)})") from None


def prompts_run_note(suites: Sequence[str] | None, per_suite: int, folder: Path = PROMPTS_DIR) -> str | None:
    """One line for a bench whose --prompts-per-suite is more than a suite holds (each suite gives what it has, so
    the run is smaller than the flag says), with how many prompts run in all; None when every suite has enough.

    >>> prompts_run_note(["chat", "held-out"], 2) is None
    True
    >>> prompts_run_note(["chat", "held-out"], 10)
    '--prompts-per-suite 10: chat holds 8, so 18 prompts run in all, not 20.'
    """
    loaded = load_suites(suites or None, folder)
    short = [s for s in loaded if len(s.prompts) < per_suite]
    if not short:
        return None
    ran = sum(min(len(s.prompts), per_suite) for s in loaded)
    held = ", ".join(f"{s.name} holds {len(s.prompts)}" for s in short)
    return f"--prompts-per-suite {per_suite}: {held}, so {ran} prompts run in all, not {per_suite * len(loaded)}."


def encode_bench_prompt(tokenizer, prompt: BenchPrompt, chat: bool) -> list[int]:
    """Token ids for a prompt: through the chat template when the pair has one, else the turns joined by newlines."""
    turns = prompt.turns()
    if chat and getattr(tokenizer, "chat_template", None):
        encoded = tokenizer.apply_chat_template(turns, add_generation_prompt=True, tokenize=True, return_dict=True)
        return list(encoded["input_ids"])
    return list(tokenizer("\n".join(t["content"] for t in turns), add_special_tokens=True)["input_ids"])


# ---- configuration ------------------------------------------------------------------------------------------------


@dataclass
class BenchConfig:
    """What to measure. `check()` turns any bad value into a ValueError with one sentence."""

    pair: str = "toy"
    proposers: list[str] = field(default_factory=lambda: ["draft"])
    ks: list[int] = field(default_factory=lambda: [1, 2, 4])
    temperatures: list[float] = field(default_factory=lambda: [0.0])
    suites: list[str] = field(default_factory=list)  # empty: all
    prompts_per_suite: int = 2
    max_new_tokens: int = 64
    repeats: int = 3
    warmup: int = 1
    threads: int | None = None
    policies: list[str] = field(default_factory=lambda: ["constant"])
    policy_k: int = 4
    policy_temperatures: list[float] | None = None  # None: the same as `temperatures`
    threshold: float = 0.4
    hf: str = "all"  # transformers comparisons: "all" temperatures, "greedy" only, or "none"
    record_overhead: bool = True
    cost_repeats: int = 15
    clock: str = "wall"  # "cpu": process CPU time, for a shared machine (waiting for a core is not counted)
    proposer_settings: dict[str, int] = field(default_factory=dict)  # the proposers' own (registry), e.g. layers
    seed: int = 0
    device: str | None = None  # cpu, cuda, cuda:N, mps; None: the fastest this machine has
    # float32, float16, bfloat16; None: pick_dtype's choice (bfloat16 on a GPU that has it or a CPU with bf16
    # instructions, float16 on an older GPU or Apple MPS, else float32)
    dtype: str | None = None
    tree_nodes: list[int] = field(default_factory=lambda: [0])  # node budgets per K; 0 = the chain of K
    tree_widths: list[int] = field(default_factory=lambda: [4])  # W: nodes expanded per level, children per node
    tree_lookup: int = 0  # tokens every tree copies from the context as one more branch (prompt lookup); 0 = none
    verify_dtypes: list[str] = field(default_factory=lambda: ["float32", "bfloat16"])  # verify curves measured
    # an explicit list of draft shapes (k, tree_nodes, tree_width, tree_lookup), each with its own lookup branch,
    # run in place of the K x node budget x width cross product above; empty: the cross product
    draft_shapes: list[DraftShape] = field(default_factory=list)

    def check(self, proposer_later: bool = False) -> None:
        """Every setting, each refused in one sentence. `proposer_later`: no proposer is given yet because the pair's
        own is known only once it loads, so an empty `proposers` is not refused (the CLI checks before loading)."""
        # before `_plain_numbers`, which makes a number a flag read as typed (`limits.TypedFloat`) a plain float
        typed_numbers = {"--temperatures": self.temperatures, "--policy-temperatures": self.policy_temperatures or [],
                         "--threshold": [self.threshold]}
        for flag, values in typed_numbers.items():
            for value in values:
                _not_read_as_zero(flag, value)
        self._plain_numbers()
        for name in self.proposers:
            if name not in registry.names():
                raise ValueError(f"Unknown proposer '{shortened(name)}': choose one of "
                                 f"{', '.join(registry.names())}.")
        for name, value in self.proposer_settings.items():
            own = registry.setting(name)  # an unknown name: one sentence
            if not _whole(value, own.lo, own.hi):
                raise ValueError(f"{own.flag} must be a whole number from {own.lo} to {own.hi} "
                                 f"(got {with_minus(repr(value))}).")
            # for no proposer that runs, it was dropped and still written into the recorded command (44th read)
            owners = [info.name for info in registry.proposers() if name in info.setting_names]
            if self.proposers and value != own.unset and not set(owners) & set(self.proposers):
                raise ValueError(f"{own.flag} {value} sets {' or '.join(owners)}, which this bench does not run "
                                 f"({', '.join(self.proposers)}): add it to --proposers, or drop {own.flag}.")
        for k in self.ks:  # each refusal names its flag (read 45: "K must be", "Temperatures must be" did not)
            if not _whole(k, *K_RANGE):
                raise ValueError(f"--k must be whole numbers from {K_RANGE[0]} to {K_RANGE[1]} (got {_typed(k)}).")
        k = self.policy_k
        if not _whole(k, *K_RANGE):
            raise ValueError(f"--policy-k must be a whole number from {K_RANGE[0]} to {K_RANGE[1]} (got {_typed(k)}).")
        lo, hi = TEMPERATURE_RANGE
        for flag, temperatures in (("--temperatures", self.temperatures),
                                   ("--policy-temperatures", self.policy_temperatures or [])):
            for t in temperatures:
                if isinstance(t, bool) or not (isinstance(t, (int, float)) and lo <= t <= hi):  # RunSpec's range
                    raise ValueError(f"{flag} must be numbers from {lo:g} to {hi:g} (got {_typed(t)}).")
        for name in self.policies:
            if name not in POLICIES:
                raise ValueError(f"Unknown draft-length policy '{shortened(name)}': choose one of "
                                 f"{', '.join(POLICIES)}.")
        alone = [t for t in self.policy_temperatures or [] if t not in self.temperatures]
        if alone and set(self.policies) <= {"constant"}:  # the plan runs constant K only at --temperatures
            shown = " ".join(f"{t:g}" for t in alone)
            raise ValueError(f"--policy-temperatures runs only the policies other than constant, and --policies has "
                             f"only constant, so at T = {shown} it would time target-only decoding alone: add a policy "
                             "(e.g. heuristic) or give that temperature in --temperatures instead.")
        lo, hi = MAX_NEW_TOKENS_RANGE
        if not _whole(self.max_new_tokens, lo, hi):
            raise ValueError(f"--max-new-tokens must be a whole number from {lo} to {hi:,} (got "
                             f"{_typed(self.max_new_tokens)}).")
        for n in self.tree_nodes:
            if not _whole(n, *TREE_NODES_RANGE):
                raise ValueError(f"--tree-nodes must be whole numbers from {TREE_NODES_RANGE[0]} to "
                                 f"{TREE_NODES_RANGE[1]} (got {_typed(n)}).")
        for w in self.tree_widths:
            if not _whole(w, *TREE_WIDTH_RANGE):
                raise ValueError(f"--tree-width must be whole numbers from {TREE_WIDTH_RANGE[0]} to "
                                 f"{TREE_WIDTH_RANGE[1]} (got {_typed(w)}).")
        if not _whole(self.tree_lookup, *TREE_LOOKUP_RANGE):
            raise ValueError(f"--tree-lookup must be a whole number from {TREE_LOOKUP_RANGE[0]} to "
                             f"{TREE_LOOKUP_RANGE[1]} (got {_typed(self.tree_lookup)}).")
        if self.tree_lookup and not any(self.tree_nodes) and not self.draft_shapes:  # issue 44 item 9
            raise ValueError("--tree-lookup needs a tree: give --tree-nodes above 0 too, or drop --tree-lookup (a "
                             "chain has no lookup branch).")
        for name in self.verify_dtypes:
            if name not in DTYPES:
                raise ValueError(f"--verify-dtypes must be among {', '.join(DTYPES)} (got '{shortened(name)}').")
        if not ((self.proposers or proposer_later) and self.ks and self.temperatures):
            raise ValueError("Give at least one proposer, one K and one temperature.")
        if not (self.tree_nodes and self.tree_widths):
            raise ValueError("Give at least one --tree-nodes budget (0 for the chain of K) and one --tree-width.")
        lo, hi = REPEATS_RANGE
        for flag, value, low in (("--prompts-per-suite", self.prompts_per_suite, 1), ("--repeats", self.repeats, lo),
                                 ("--warmup", self.warmup, 0), ("cost_repeats", self.cost_repeats, lo)):
            if not _whole(value, low, hi):
                raise ValueError(f"{flag} must be a whole number from {low} to {hi} (got {_typed(value)}).")
        if self.threads is not None:
            check_threads(self.threads)
        if not _whole(self.seed, *SEED_RANGE):
            # grouped as `generate` groups its bounds (read 46: "from 0 to 4294967295" beside its "4,294,967,295")
            raise ValueError(f"--seed must be a whole number from {SEED_RANGE[0]} to {SEED_RANGE[1]:,} (got "
                             f"{_typed(self.seed)}).")
        if self.clock not in CLOCKS:
            raise ValueError(f"--clock must be one of {', '.join(CLOCKS)} (got {self.clock}).")
        if self.dtype not in (None, *DTYPES):
            raise ValueError(f"--dtype must be one of {', '.join(DTYPES)} (got {self.dtype}).")
        if self.clock == "cpu" and str(self.device or "").startswith("cuda"):
            raise ValueError(CPU_CLOCK_ON_GPU)
        if self.hf not in HF_MODES:
            raise ValueError(f"--hf must be one of {', '.join(HF_MODES)} (got {self.hf}).")
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, (int, float)) \
                or not 0 <= self.threshold <= 1:
            raise ValueError(f"--threshold must be between 0 and 1 (got {_typed(self.threshold)}).")
        self._no_repeats()
        self._trees_fit()
        load_suites(self.suites or None)

    def _no_repeats(self) -> None:
        """A list flag that gives one value twice is refused, as `serve sweep --specs none none` is (read 53:
        `--suites chat chat --k 1 1` ran each case four times and wrote four rows for one prompt, listed chat twice
        under "Best configuration per category" and counted one prompt's greedy check as 4/4). Shapes are compared
        as they run: `--shapes 2 2:0:8` is the chain of K = 2 twice (a chain has no width)."""
        for flag, values in (("--proposers", self.proposers), ("--k", self.ks), ("--temperatures", self.temperatures),
                             ("--policy-temperatures", self.policy_temperatures or []), ("--policies", self.policies),
                             ("--suites", self.suites), ("--tree-nodes", self.tree_nodes),
                             ("--tree-width", self.tree_widths), ("--verify-dtypes", self.verify_dtypes)):
            twice = next((v for i, v in enumerate(values) if v in values[:i]), None)
            if twice is not None:
                # read 55: `--temperatures 0 -0` was told it "gives −0 twice"; an exact 0 has no sign (+ 0.0)
                said = (f"names '{shortened(twice)}'" if isinstance(twice, str)
                        else f"gives {_typed(twice + 0.0 if isinstance(twice, float) else twice)}")
                raise ValueError(f"{flag} {said} twice: give each once.")  # serve sweep's words
        if self.draft_shapes:
            plan = self.shape_plan()
            twice = next((i for i, shape in enumerate(plan) if shape in plan[:i]), None)
            if twice is not None:
                shape = _shape(self.draft_shapes[twice])
                k = shape.k
                chain = "" if shape.is_tree else f" (a chain has no WIDTH or LOOKUP: {k} and {k}:0:8 are one shape)"
                raise ValueError(f"--shapes gives {shape.shown()} twice{chain}: give each shape once.")

    def _trees_fit(self) -> None:
        """Refuse a node budget above what its tree's depth and width hold (`draft_shape.tree_holds`): read 55,
        `--shapes 1:64:8:16` timed trees of 8 nodes under the label "tree 64x8 depth 1", without a word."""
        for k, nodes, width, _lookup in self.shape_plan():
            if nodes and nodes > tree_holds(k, width):
                most = tree_holds(k, width)
                given = (f"--shapes {k}:{nodes}:{width}" if self.draft_shapes
                         else f"--tree-nodes {nodes} with --k {k} and --tree-width {width}")
                raise ValueError(f"{given}: a tree {k} deep and {width} wide can hold at most {most} nodes: give at "
                                 f"most {most} nodes for it, or a larger K or width.")

    def _plain_numbers(self) -> None:
        """NumPy's numbers (np.int64(3), np.float32(0.7)) as Python's int and float, before the checks: a whole
        NumPy number is a whole number (it was refused as "K must be a whole number from 1 to 16 (got 3)"), and the
        config is written into results.json, whose JSON holds no NumPy number. Anything else is left for the checks."""
        def plain(value):
            if isinstance(value, bool) or type(value) in (int, float):
                return value
            if isinstance(value, numbers.Integral):
                return int(value)
            return float(value) if isinstance(value, numbers.Real) else value
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, list):
                setattr(self, f.name, [plain(v) for v in value])
            elif isinstance(value, dict):
                setattr(self, f.name, {k: plain(v) for k, v in value.items()})
            else:
                setattr(self, f.name, plain(value))

    @property
    def k_max(self) -> int:
        return max([*self.ks, *(k for k, *_rest in self.shape_plan()), self.policy_k])

    def shapes(self) -> list[tuple[int, int, int]]:
        """(K, tree nodes, tree width) of every constant configuration: the chain of each K (nodes 0) when asked,
        and a tree of every node budget and width (width 0 for a chain); or those of `draft_shapes` when given.

        >>> BenchConfig(ks=[4], tree_nodes=[0, 16], tree_widths=[2, 4]).shapes()
        [(4, 0, 0), (4, 16, 2), (4, 16, 4)]
        """
        return [(k, n, w) for k, n, w, _lookup in self.shape_plan()]

    def shape_plan(self) -> list[tuple[int, int, int, int]]:
        """(K, tree nodes, tree width, lookup branch) of every constant configuration.

        >>> BenchConfig(draft_shapes=[DraftShape(2), DraftShape(3, 6, 4, 8)]).shape_plan()
        [(2, 0, 0, 0), (3, 6, 4, 8)]
        """
        if self.draft_shapes:
            return [(s.k, s.tree_nodes, s.tree_width if s.tree_nodes else 0, s.tree_lookup if s.tree_nodes else 0)
                    for s in map(_shape, self.draft_shapes)]
        return [(k, n, w if n else 0, self.tree_lookup if n else 0) for k in self.ks for n in self.tree_nodes
                for w in (self.tree_widths if n else [0])]


def _whole(value, lo: int, hi: int) -> bool:
    """A whole number (`is_whole`) from lo to hi."""
    return is_whole(value) and lo <= value <= hi


def _shape(value) -> DraftShape:
    """A DraftShape from itself or from its dict (a config read back from results.json)."""
    return value if isinstance(value, DraftShape) else DraftShape.of(value)


def _not_read_as_zero(flag: str, value: object) -> None:
    """Refuse a number typed non-zero that a float reads as 0 (`limits.finite_float` keeps what was typed), in
    the words a link's refusal uses (read 53: `--temperatures 1e-400` timed greedy decoding without a word).

    >>> from specviz.engine.limits import finite_float
    >>> _not_read_as_zero("--temperatures", finite_float("0e-400"))
    >>> _not_read_as_zero("--temperatures", finite_float("1e-400"))
    Traceback (most recent call last):
    ...
    ValueError: --temperatures must not be so close to 0 that it reads as 0 (got 1e-400).
    """
    written = as_typed(value)
    if written is not None and reads_as_zero(written):
        raise ValueError(f"{flag} must not be so close to 0 that it reads as 0 (got {typed(written)}).")


def _typed(value: object) -> str:
    """A refused number as it was typed: `--temperatures 3` reads "(got 3)", not float()'s "3.0" (read 47); 0.1234567
    keeps every digit (runspec.float_text); a negative one with the minus sign U+2212, as every number is written
    (read 49: "(got -1)" here beside generate's "(got −1)"). Anything else as Python writes it.

    >>> _typed(3.0), _typed(2.5), _typed(0.1234567), _typed("hot"), _typed(-1), _typed(-0.5)
    ('3', '2.5', '0.1234567', 'hot', '−1', '−0.5')
    """
    return with_minus(float_text(value) if isinstance(value, float) else str(value))
