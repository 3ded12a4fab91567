"""Choose the draft shape for this machine: the pair's counted tokens per forward over this machine's measured costs.

    shape = choose_shape("default", temperature=0.7)      # a DraftShape; speculative_generate(..., shape=shape)
    ranked = predictions(table, cal, temperature=0.0)     # every shape of the table, best first

A shape's predicted speedup over `model.generate` on the same loaded model is

    tokens per target forward × g / (verify cost of the tokens it feeds + K drafter passes + a step's overhead)

where the tokens per forward and the mean tokens fed to a verify forward (`mean_rows`) are counts from the pair's
committed table (`assets/benchmarks/shapes/<pair>.json`, `python -m specviz.scripts.shape_table`: counts in the
table's dtype, the same on any machine with that dtype and kernels up to rounding), and the verify cost, a drafter
pass, a step's overhead and g (one token of `model.generate`), all in one-token target forwards, are this machine's
calibration (`specviz.labs.calibration`; the pass and the overhead as short real runs of a chain and a tree paid them,
greedy or sampled). A chain of K and a tree of depth K both pay K drafter passes (a tree
drafts a level per pass); a lookup branch costs no pass. The table holds greedy and T = 0.7 rows: a temperature
above 0 reads the sampled rows. A pair without a table (the toy pair, a pair given by hand) keeps its catalog
recommendation.

Where no shape is predicted to beat `model.generate` by `PAYS` (5 %), `slowdown_note` says so in one sentence with
the reason, and the run still goes ahead with the best shape.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from specviz.core.i18n import _, as_written, fewest_digits, number, percent
from specviz.core.paths import BENCHMARKS_DIR
from specviz.engine.draft_shape import DraftShape
from specviz.engine.limits import is_number
from specviz.labs.calibration import Calibration, calibrate
from specviz.models.catalog import recommended_for

PAYS = 1.05  # a predicted speedup below this is no speedup worth the name: say so
SHAPES_DIR = BENCHMARKS_DIR / "shapes"


@dataclass(frozen=True)
class Prediction:
    """What one shape should reach on this machine, and why (costs in one-token target forwards)."""

    shape: DraftShape
    temperature: float  # of the table's rows it read
    tokens_per_forward: float
    rows: float  # mean tokens a verification forward reads
    verify_cost: float  # that forward
    draft_cost: float  # the drafter's K passes
    overhead_cost: float  # the rest of a step: the rule, cache rewinds, bookkeeping
    vs_target_only: float
    vs_generate: float

    @property
    def step_cost(self) -> float:
        return self.verify_cost + self.draft_cost + self.overhead_cost


@lru_cache(maxsize=8)
def shape_table(pair_name: str) -> dict | None:
    """The pair's committed per-shape table, or None if it has none, it cannot be read or a row is damaged (no rows;
    a shape out of range; tokens per forward, a temperature or mean rows that are not finite numbers in range),
    so the pair keeps its catalog recommendation rather than a choice ranked on a NaN or a crash."""
    path = SHAPES_DIR / f"{pair_name}.json"
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(table["rows"], list) or not table["rows"]:
            return None
        for row in table["rows"]:
            DraftShape.of(row)
            rows = row.get("mean_rows")
            if not (_finite(row["tokens_per_forward"], 1) and _finite(row["temperature"], 0)
                    and (rows is None or _finite(rows, 1))):
                return None
        return table
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _finite(value, lo: float) -> bool:
    """A finite number (not a bool) of at least `lo`."""
    return is_number(value) and value >= lo


def lookup_lift(pair_name: str, shape: DraftShape, temperature: float = 0.0) -> tuple[float, float] | None:
    """Tokens per target forward of a tree with a lookup branch, without and with that branch, from the pair's
    committed table (None when the table lacks either): how much of a tree's gain comes from the text repeating
    itself.

    >>> lookup_lift("default", DraftShape(3, 8, 4, 8))
    (2.5137, 2.9773)
    """
    table = shape_table(pair_name)
    if table is None or not (shape.tree_nodes and shape.tree_lookup):
        return None
    at = table_temperature(table, temperature)
    found = {DraftShape.of(r): float(r["tokens_per_forward"]) for r in table["rows"] if float(r["temperature"]) == at}
    without = found.get(DraftShape(shape.k, shape.tree_nodes, shape.tree_width, 0))
    return (without, found[shape]) if without is not None and shape in found else None


def table_temperature(table: dict, temperature: float) -> float:
    """The table's temperature that stands for `temperature`: 0 for greedy, else the nearest sampled one."""
    temps = sorted({float(r["temperature"]) for r in table["rows"]})
    if temperature <= 0:
        return 0.0 if 0.0 in temps else temps[0]
    sampled = [t for t in temps if t > 0] or temps
    return min(sampled, key=lambda t: abs(t - temperature))


def predict(shape: DraftShape, tokens_per_forward: float, rows: float | None, cal: Calibration,
            temperature: float = 0.0) -> Prediction:
    """One shape's predicted speedups on the calibrated machine (rows: the mean tokens fed; None = the most):
    tokens per forward × the baseline's seconds per token / a step's seconds (verify + K drafter passes + overhead).

    >>> cal = Calibration("p", "eagle", "float32", "cpu", "onednn-packed", "cpu", (), False, "2", 2,
    ...                   ((1, 0.05), (5, 0.0525), (25, 0.09)), 0.0045, 0.055, 0.0,
    ...                   steps=(("chain-greedy", 0.004, 0.0025),))
    >>> p = predict(DraftShape(4), 2.1, None, cal)
    >>> round(p.verify_cost, 2), round(p.draft_cost, 2), round(p.overhead_cost, 2), round(p.vs_generate, 2)
    (1.05, 0.32, 0.05, 1.63)
    """
    rows = shape.rows if rows is None else rows
    pass_seconds, overhead_seconds = cal.step_costs(shape.is_tree, temperature)
    verify_cost = cal.ratio(rows)
    draft_cost, overhead_cost = shape.k * pass_seconds / cal.one, overhead_seconds / cal.one
    step = verify_cost + draft_cost + overhead_cost
    return Prediction(shape, temperature, tokens_per_forward, rows, verify_cost, draft_cost, overhead_cost,
                      tokens_per_forward / step, tokens_per_forward * cal.baseline_ratio(temperature) / step)


def predictions(table: dict, cal: Calibration, temperature: float = 0.0) -> list[Prediction]:
    """Every shape of the table at the temperature standing for `temperature`, best predicted first."""
    temp = table_temperature(table, temperature)
    out = [predict(DraftShape.of(r), float(r["tokens_per_forward"]), r.get("mean_rows"), cal, temp)
           for r in table["rows"] if float(r["temperature"]) == temp]
    return sorted(out, key=lambda p: -p.vs_generate)


def written_digits(cal: Calibration, shown: list[Prediction]) -> int:
    """The decimals that the mean accepted length, a step's cost and a token of model.generate (in one-token forwards)
    take beside the predicted speedups `shown` (each written with 2): 2, or as many more (up to 6) as it takes for
    every row's written mean accepted length × written model.generate token ÷ written step cost to give its written
    speedup over model.generate. Read 54: at 2 decimals about 4 rows in 10 missed by 0.01 (2.98 × 1.32 / 1.42 =
    2.77 beside 2.76×).

    >>> cal = Calibration("p", "eagle", "float32", "cpu", "onednn-packed", "cpu", (), False, "2", 2,
    ...                   ((1, 0.05), (5, 0.0525), (25, 0.09)), 0.0045, 0.055, 0.0,
    ...                   steps=(("chain-greedy", 0.004, 0.0025),))
    >>> p = predict(DraftShape(4), 2.1, None, cal)
    >>> number(p.tokens_per_forward), number(cal.generate_ratio), number(p.step_cost), number(p.vs_generate)
    ('2.10', '1.10', '1.42', '1.63')
    >>> written_digits(cal, [p])  # 2.10 × 1.10 / 1.42 = 1.627 reads 1.63
    2
    """
    def holds(digits: int) -> bool:
        return all(number(as_written(p.tokens_per_forward, digits) * as_written(cal.baseline_ratio(p.temperature),
                                                                                 digits)
                          / as_written(p.step_cost, digits)) == number(p.vs_generate)
                   for p in shown if as_written(p.step_cost, digits) > 0)

    return fewest_digits(holds, 2, 6)


def table_for(pair_name: str, proposer: str | None = None) -> dict | None:
    """The pair's shape table if it measured `proposer` (None: any), else None."""
    table = shape_table(pair_name)
    return table if table is not None and proposer in (None, table.get("proposer")) else None


def best_prediction(pair, temperature: float = 0.0, calibration: Calibration | None = None,
                    proposer: str | None = None) -> Prediction | None:
    """The best shape's prediction for a loaded pair and its proposer (default: the pair's own) on this machine,
    calibrating it if needed; None without a table for that proposer."""
    proposer = proposer or pair.default_proposer
    table = table_for(pair.name, proposer)
    if table is None:
        return None
    cal = calibration or calibrate(pair, proposer)
    ranked = predictions(table, cal, temperature)
    return ranked[0] if ranked else None


def choose_shape(pair, temperature: float = 0.0, calibration: Calibration | None = None,
                 proposer: str | None = None) -> DraftShape:
    """The draft shape predicted fastest for `pair` (and its proposer, default the pair's own) on this machine at
    `temperature`.

    `pair` is a loaded `Pair` or a pair's name. The costs come from `calibration`, else this machine's cached
    calibration, else a new one (a name is then loaded, once per process). A pair without a shape table (or a
    proposer its table did not measure) gets its catalog recommendation (`recommended_for`), with no measurement.

    >>> choose_shape("toy")
    DraftShape(k=4, tree_nodes=0, tree_width=4, tree_lookup=0)
    """
    name = pair if isinstance(pair, str) else pair.name
    if shape_table(name) is None:
        return recommended_for(name).shape
    if isinstance(pair, str):
        from specviz.runs.running import PAIRS

        pair = PAIRS.get(name)
    best = best_prediction(pair, temperature, calibration, proposer)
    return best.shape if best is not None else recommended_for(name).shape


def slowdown_note(best: Prediction, cal: Calibration) -> str | None:
    """One sentence when even the best shape is not predicted to beat `model.generate` by 5 % here, with the reason;
    None when it is."""
    if best.vs_generate >= PAYS:
        return None
    return _("On this machine ({machine}, {dtype}) no draft shape is predicted to beat model.generate by {margin}: the "
             "best, "
             "{shape}, emits {tokens} tokens per target forward, but that forward over {rows} tokens costs {verify} "
             "one-token forwards and the drafter and the step's overhead add {draft}, so it should run at {speedup} "
             "of the speed of model.generate. You can still run it.",
             margin=percent(PAYS - 1, 0), machine=cal.timed_on, dtype=cal.dtype, shape=best.shape.describe(),
             tokens=number(best.tokens_per_forward, 2),
             rows=number(best.rows, 1), verify=number(best.verify_cost, 2), draft=number(best.draft_cost + best.overhead_cost, 2),
             speedup=percent(best.vs_generate))
