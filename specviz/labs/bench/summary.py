"""Pooling: the per-prompt cases of a bench run pooled per suite and over all suites, the predicted speedups, and
`DEFINITIONS`, what each pooled metric means.

    summary = summarise(result.cases, result.baselines, result.costs)
    [row for row in summary if row["suite"] == "all"]   # one row per proposer x policy x K x temperature x tree

Speedups pool as ratios of total tokens over total seconds (not as a mean of ratios), so a long prompt weighs
what its time weighs. `DEFINITIONS` reconciles the metrics people quote (the mean accepted length, Spec-Bench's
#MAT, with or without the bonus token, acceptance rate vs α, ...); its keys name the columns of a summary row (and
of results.csv, which has no labels), and its labels head the JSON's definitions, the markdown and the app.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from specviz.core.i18n import N_, as_written, fewest_digits, fixed, small_digits
from specviz.engine.proposers import registry
from specviz.engine.theory import draft_cost, expected_speedup, speedup_with_verify_cost

# The metrics people quote, reconciled: keys for the JSON and the CSV, labels for the JSON's definitions, the markdown
# and the app.
DEFINITIONS: dict[str, tuple[str, str]] = {  # marked with N_(): the files stay English, the app shows _(label)
    "acceptance_rate": (
        N_("acceptance rate (accepted / (drafted + copied))"),
        N_("Tokens the target kept, over all tokens put to it: the drafted ones and the ones a tree's lookup branch "
           "copied from the context, counted apart as copied (a chain copies none: its rate is accepted / drafted). "
           "Drafts after a step's first rejection count as drafted and not accepted although they were never tested "
           "(vLLM's 'draft acceptance rate'). A tree counts every node it drafted and every token it copied, of which "
           "a step keeps one path at most, so a tree's rate is no estimate of α and α bounds it neither way. A "
           "case's drafted count in results.json and results.csv is drafted + copied.")),
    "alpha": (
        N_("α estimate (mean min(1, p/q) over tested drafts)"),
        N_("Leviathan et al.'s α: the expected chance a draft is accepted, estimated from the drafts that were "
           "tested. A row over several prompts shows the mean of the prompts' estimates, each prompt weighing the "
           "same however many drafts it tested. The theory curves use it, from chain rows only: a tree row shows the "
           "mean of min(1, p′/q′) along each step's main line, where a child tried after a rejected sibling meets the "
           "residual p′, so it is not α.")),
    "mat_with_bonus": (
        N_("mean accepted length (recovered or bonus token included)"),
        N_("Tokens per target forward: the tokens emitted over the verification steps, each step's accepted drafts "
           "+ its recovered or bonus token; 1.0 means no gain. Spec-Bench calls the same number #MAT. vLLM's 'mean "
           "acceptance length', 1 + accepted / steps that drafted, leaves out the steps that drafted nothing, so where "
           "some steps draft nothing (n-gram lookup without a match) it reads higher.")),
    "mat_without_bonus": (
        N_("accepted drafts per step (recovered or bonus token excluded)"),
        N_("gpt-fast's 'mean accepted' counts only accepted drafts: accepted drafts over the verification steps "
           "(0.0 means no gain). It is the mean accepted length minus one, except where a run ends at a kept "
           "end-of-text draft: no recovered or bonus token follows that one, and in runs before commit c11cd08 "
           "(2026-11-30 18:57 UTC) the drafts kept after it counted as accepted too, though never emitted.")),
    "per_position": (
        N_("acceptance by position"),
        N_("Entry i (the first is i = 1): of the steps that drafted at least i tokens, the share whose first i "
           "drafts were all kept. For a tree: of the steps whose tree reached depth i, the share whose accepted path "
           "reached it.")),
    "c": (
        N_("c = draft forward / target forward"),
        N_("Measured: median time of one drafting step for one new token with a warm cache, over one target forward "
           "for one new token (its logits, no token pick). The step is the draft model's forward (LayerSkip: its "
           "early layers; its logits, no token pick), one pass of the EAGLE drafter's layer and head on the target's "
           "features, one Medusa head (its block and the product with the LM head's rows for the heads' draft "
           "vocabulary: 8,192 of the 49,152 tokens for the shipped heads, not the whole LM head), or the n-gram "
           "lookup (near 0). EAGLE's and Medusa's step is the proposer drafting one token greedily, so it includes "
           "the token pick (an argmax; a greedy draft computes no softmax).")),
    "verify_cost": (
        N_("verify cost of n tokens"),
        N_("Time of one target forward over n new tokens (warm cache) over the time for one token. The paper's "
           "formula assumes 1 for every n up to K+1; where it grows (how fast depends on the machine, the dtype and the "
           "kernels), speculation pays less.")),
    "tokens_per_second": (
        N_("tokens/s"),
        N_("New tokens over the time from the call to the last token, prefill included, median over repeats (wall "
           "time, or the process's CPU time with --clock cpu).")),
    "speedup_vs_ar": (
        N_("speedup vs specviz target-only"),
        N_("tokens/s of speculative decoding over tokens/s of specviz's own target-only decoding (same sampler, same "
           "cache code), measured in the same run. Below 1 is a slowdown.")),
    "speedup_vs_hf_generate": (
        N_("speedup vs model.generate"),
        N_("tokens/s of speculative decoding over tokens/s of transformers' model.generate on the target alone, same "
           "run (greedy: do_sample=False).")),
    "hf_assisted_speedup": (
        N_("transformers assisted: speedup vs model.generate"),
        N_("What transformers itself gets from the same draft and fixed K (assistant_model=, constant schedule, no "
           "confidence stop) or from prompt lookup (prompt_lookup_num_tokens=K), over its own model.generate.")),
    "speedup_vs_hf_assisted": (
        N_("speedup vs transformers assisted"),
        N_("tokens/s of specviz's speculative decoding over transformers' assisted generation / prompt lookup with "
           "the same K. For n-gram lookup the two copy after different matches (transformers' prompt lookup after the "
           "earliest, specviz after the latest), so the ratio holds a different match rule too, not only the speed of "
           "two implementations.")),
    "predicted_speedup": (
        N_("predicted (paper)"),
        N_("(1 − α^(K+1)) / ((1 − α)(K·c + 1)) from the α estimate and the measured c: Leviathan et al.'s "
           "speedup, which assumes every step drafts K tokens and verifying K+1 tokens costs one target forward; "
           "where steps draft fewer (n-gram lookup without a long enough match, steps near the token limit), it "
           "counts drafts that were never made. For n-gram lookup, whose one search of the context drafts every "
           "token of a step, and the Medusa heads, which draft from the hidden state the target's last pass gave "
           "with no drafter pass, c + 1 in place of K·c + 1 (for the heads a model: heads 1 to K each run a block "
           "and c times one head, so it leaves out what heads 2 to K add): the Speedup lab calls that predicted "
           "(paper's formula, c per step).")),
    "predicted_speedup_measured_verify": (
        N_("predicted (measured verify cost)"),
        N_("The same expected mean accepted length, (1 − α^(K+1)) / (1 − α), every step drafting K, over (K·c + "
           "verify cost of K+1 tokens): the formula with the measured verify curve instead of the free-verification "
           "assumption. A tree row has no α to put in it: it shows its measured mean accepted length over (K·c + "
           "verify cost of the tokens fed, nodes + lookup branch + 1). For n-gram lookup (one search drafts the step) "
           "and the Medusa heads (there c per step is a model: it leaves out what heads 2 to K add), c in place of "
           "K·c.")),
    "record_overhead": (
        N_("trace recording overhead"),
        N_("Per prompt: the time of one run that records the full trace (the top-10 lists of p and q at each drafted "
           "position and of the distribution each step's last token came from, and every token's text) over the "
           "median time of the --repeats runs that leave them out, minus 1; both timed from the call to the last "
           "token, prefill included, on the run's clock. Measured for one configuration per proposer and "
           "temperature, the chain of constant K at --policy-k (the first K given when --policy-k is not among "
           "them); the row shows the mean over its prompts.")),
    "tree_nodes": (
        N_("draft tree nodes"),
        N_("The node budget of an EAGLE-2 style draft tree (depth K; its width W does two jobs: at most W nodes "
           "expanded per level, at most W children per node), scored in one target forward with a tree attention "
           "mask; 0 is a chain of K drafts.")),
    "tree_lookup": (
        N_("lookup branch"),
        N_("Tokens a draft tree also copies from the context as one more branch (prompt lookup: what followed the "
           "latest earlier occurrence of the last 3 tokens, failing that of the last 2, then of the last 1, reading on "
           "into the copy itself where the text ends first); deterministic, so the tree rule treats each copied token "
           "as a point mass. 0 is no lookup branch.")),
    "physical_limit": (
        N_("physical limit"),
        N_("The speedup of a perfect, free draft of the same shape: K + 1 tokens per target forward (the lookup "
           "branch's length + 1 if that is longer), each forward costing the measured verify cost of the tokens fed "
           "(K + 1 for a chain, nodes + lookup branch + 1 for a tree).")),
    "fraction_of_limit": (
        N_("share of the physical limit"),
        N_("The measured speedup vs specviz target-only over the physical limit: the share the draft reaches of what "
           "this shape could ever give on the machine that ran the benchmark.")),
    "identical": (
        N_("greedy output identical"),
        N_("At temperature 0, whether the method's tokens equal specviz target-only decoding's, token for token.")),
    "draft_ms": (
        N_("draft ms / step"),
        N_("Time spent proposing per step: K drafter passes, or, for proposers with no drafter pass, one n-gram "
           "lookup or, for Medusa, the blocks of heads 1 to K, all on the hidden state the target's last pass gave, "
           "then the LM head once over all K of them.")),
    "verify_ms": (
        N_("verify ms / step"),
        N_("Time of the target forward that scores the drafts, per step.")),
    "overhead_ms": (
        N_("overhead ms / step"),
        N_("The rest of a step: verification rule, cache rewind, bookkeeping.")),
}


def summarise(cases: list[dict], baselines: list[dict], costs: dict) -> list[dict]:
    """Pool cases per (suite, proposer, policy, K, temperature, tree nodes, width, lookup branch), and over all
    suites (suite "all"): a tree row never pools with the chain of its K.

    Speedups are pooled as ratios of total tokens / total seconds; acceptance as total accepted / total (drafted +
    copied), a case's `drafted` holding both (`Trace.num_drafted`);
    α as the mean over cases (each prompt's estimate weighing the same, not pooled over their drafts: what
    DEFINITIONS["alpha"] says); acceptance by position from the pooled counts.
    """
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row in cases:
        key = (row["proposer"], row["policy"], row["k"], row["temperature"], row.get("tree_nodes") or 0,
               row.get("tree_width"), row.get("tree_lookup") or 0)
        groups[(row["suite"], *key)].append(row)
        groups[("all", *key)].append(row)
    out = []
    for (suite, proposer, policy, k, temperature, tree_nodes, tree_width, tree_lookup), rows in groups.items():
        def total(col):
            return sum(r[col] for r in rows)

        n_pos = max((len(r["position_drafted"]) for r in rows), default=0)
        drafted_pos = [sum(r["position_drafted"][i] for r in rows if i < len(r["position_drafted"])) for i in range(n_pos)]
        survived_pos = [sum(r["position_survived"][i] for r in rows if i < len(r["position_survived"]))
                        for i in range(n_pos)]
        alphas = [r["alpha"] for r in rows if r["alpha"] is not None and math.isfinite(r["alpha"])]
        alpha = sum(alphas) / len(alphas) if alphas else None
        c = rows[0]["c"]
        steps = total("steps")
        identical = [r["identical"] for r in rows if r["identical"] is not None]
        hf_ident = [r["hf_assisted_identical"] for r in rows if r["hf_assisted_identical"] is not None]
        hf_gen = [r for r in rows if r.get("hf_generate_seconds") and r.get("hf_assisted_seconds")]
        row = {
            "suite": suite, "proposer": proposer, "policy": policy, "k": k, "temperature": temperature,
            "tree_nodes": tree_nodes, "tree_width": tree_width, "tree_lookup": tree_lookup, "prompts": len(rows),
            "tokens": total("tokens"), "steps": steps,
            "mean_k": total("drafted") / steps if steps else None,
            "acceptance_rate": total("accepted") / total("drafted") if total("drafted") else None,
            "alpha": alpha, "c": c,
            "mat_with_bonus": total("tokens") / steps if steps else None,
            "mat_without_bonus": total("accepted") / steps if steps else None,
            "per_position": [s / d if d else None for s, d in zip(survived_pos, drafted_pos)],
            "draft_ms": _weighted(rows, "draft_ms"), "verify_ms": _weighted(rows, "verify_ms"),
            "overhead_ms": _weighted(rows, "overhead_ms"),
            "tokens_per_second": total("tokens") / total("seconds"),
            "speedup_vs_ar": _pooled(rows, "ar_seconds", "ar_tokens"),
            "speedup_vs_hf_generate": _pooled(rows, "hf_generate_seconds", "hf_generate_tokens"),
            "hf_assisted_speedup": (_rate(hf_gen, "hf_assisted_tokens", "hf_assisted_seconds")
                                    / _rate(hf_gen, "hf_generate_tokens", "hf_generate_seconds")) if hf_gen else None,
            "speedup_vs_hf_assisted": _pooled(rows, "hf_assisted_seconds", "hf_assisted_tokens"),
            "predicted_speedup": None, "predicted_speedup_measured_verify": None,
            "record_overhead": _mean([r["record_overhead"] for r in rows]),
            "identical": all(identical) if identical else None,
            "identical_count": f"{sum(identical)}/{len(identical)}" if identical else None,
            "hf_assisted_identical": all(hf_ident) if hf_ident else None,
            "physical_limit": None, "fraction_of_limit": None,
        }
        if policy == "constant" and not tree_nodes and alpha is not None:
            row.update(predicted_speedups(alpha, k, c, costs, registry.one_pass(proposer)))
        row.update(limits(row, costs))
        out.append(row)
    return out


def _pooled(rows: list[dict], baseline_seconds: str, baseline_tokens: str) -> float | None:
    """Pooled tokens/s of the method over pooled tokens/s of a baseline, over the rows that ran the baseline."""
    have = [r for r in rows if r.get(baseline_seconds)]
    if not have:
        return None
    return _rate(have, "tokens", "seconds") / _rate(have, baseline_tokens, baseline_seconds)


def _rate(rows: list[dict], tokens: str, seconds: str) -> float:
    return sum(r[tokens] for r in rows) / sum(r[seconds] for r in rows)


def _weighted(rows: list[dict], col: str) -> float:
    steps = sum(r["steps"] for r in rows)
    return sum(r[col] * r["steps"] for r in rows) / steps if steps else 0.0


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def predicted_speedups(alpha: float, k: int, c: float, costs: dict, one_pass: bool = False) -> dict[str, float]:
    """The paper's speedup for α (capped at 1), K and c, and the same with the measured verify cost of K+1 tokens
    (`costs["verify"]`, clamped to the longest measured) in place of the paper's free verification. A proposer that
    drafts a step in one pass (`registry.one_pass`: the Medusa heads, n-gram lookup) is charged c per step, not K·c.

    >>> free = {"verify": [{"n_tokens": n, "ratio": 1.0} for n in range(1, 6)]}
    >>> {name: round(v, 4) for name, v in predicted_speedups(0.8, 4, 0.05, free).items()}
    {'predicted_speedup': 2.8013, 'predicted_speedup_measured_verify': 2.8013}
    >>> round(predicted_speedups(0.8, 4, 0.05, free, one_pass=True)["predicted_speedup"], 4)
    3.2015
    """
    alpha = min(1.0, alpha)
    return {"predicted_speedup": expected_speedup(alpha, k, c, one_pass),
            "predicted_speedup_measured_verify": speedup_with_verify_cost(alpha, k, c, verify_ratio(costs, k),
                                                                          one_pass)}


# The α estimate's decimals wherever a reader sees it beside a prediction: the Speedup lab (its table and the Speedup
# vs K legend), results.md and the model cards' bench tables
ALPHA_DIGITS = 3


def written_alpha(alpha: float) -> float:
    """An α estimate as the pages and results.md write it (`ALPHA_DIGITS` decimals), capped at 1 as the formula takes
    it: the α a written prediction follows from.

    >>> written_alpha(0.26849), written_alpha(1.0004)
    (0.268, 1.0)
    """
    return as_written(min(1.0, alpha), ALPHA_DIGITS)


def written_c(c: float) -> float:
    """A measured c as the pages and results.md write it: 3 decimals, or two significant digits where 3 would write
    it 0 (`small_digits`).

    >>> written_c(0.04551), written_c(0.000217)
    (0.046, 0.00022)
    """
    return as_written(c, small_digits(c))


# The verify cost's decimals wherever a reader sees it beside a prediction: results.md's costs table ("time /
# one-token forward"), the Speedup lab's verdict and verify sentence
VERIFY_DIGITS = 2


def written_verify(costs: dict) -> dict:
    """`costs` with its verify curve's ratios as results.md writes them (`VERIFY_DIGITS` decimals): the verify cost
    a written prediction follows from.

    >>> written_verify({"verify": [{"n_tokens": 2, "ratio": 1.0449}], "c": {}})
    {'verify': [{'n_tokens': 2, 'ratio': 1.04}], 'c': {}}
    """
    return {**costs, "verify": [{**v, "ratio": as_written(v["ratio"], VERIFY_DIGITS)} for v in costs["verify"]]}


def predicted_as_written(row: dict, costs: dict) -> dict[str, float | None]:
    """A summary row's two predicted speedups as a reader can recompute them: `predicted_speedups` from its α estimate,
    c and verify cost as written (`written_alpha`, `written_c`, `written_verify`), not every digit the JSON keeps.
    Read 54: the Speedup lab's table read 1.280 beside α 0.268 and c 0.046 (default-cpu-f32-medusa, T = 0, K = 2, one
    pass), which give 1.281: it computed from α = 0.26763 and c = 0.046102; and the measured-verify column divided by
    the verify cost's every digit where results.md writes it to 2 decimals. A row with no predicted
    speedup (an adaptive policy), or whose prediction is no formula of α (a tree's measured verify one), keeps the
    figures it has; the Speedup lab's table and results.md both show these.

    >>> free = {"verify": [{"n_tokens": n, "ratio": 1.0} for n in range(1, 6)]}
    >>> row = {"proposer": "medusa", "k": 2, "alpha": 0.2676273, "c": 0.0461020, "predicted_speedup": 1.2802306,
    ...        "predicted_speedup_measured_verify": 1.3474600}
    >>> {name: round(v, 5) for name, v in predicted_as_written(row, free).items()}  # (1 + 0.268 + 0.268²) / 1.046
    {'predicted_speedup': 1.2809, 'predicted_speedup_measured_verify': 1.2809}
    """
    kept = {key: row.get(key) for key in ("predicted_speedup", "predicted_speedup_measured_verify")}
    if row.get("predicted_speedup") is None or row.get("tree_nodes") or row.get("alpha") is None \
            or row.get("c") is None:
        return kept
    return predicted_speedups(written_alpha(row["alpha"]), row["k"], written_c(row["c"]), written_verify(costs),
                              registry.one_pass(row["proposer"]))


def curve_ratio(curve: list[dict[str, float]], n_tokens: int) -> float:
    """The verify cost of `n_tokens` read off a measured curve: linear between measured sizes, the last slope
    beyond the longest.

    >>> curve = [{"n_tokens": 1, "ratio": 1.0}, {"n_tokens": 5, "ratio": 1.4}, {"n_tokens": 9, "ratio": 2.2}]
    >>> curve_ratio(curve, 3), curve_ratio(curve, 9), round(curve_ratio(curve, 13), 6)
    (1.2, 2.2, 3.0)
    """
    points = sorted((p["n_tokens"], p["ratio"]) for p in curve)
    for (n0, r0), (n1, r1) in zip(points, points[1:]):
        if n_tokens <= n1 or (n1, r1) == points[-1]:
            return r0 + (r1 - r0) * (n_tokens - n0) / (n1 - n0)
    return points[0][1]


def run_curve(costs: dict) -> list[dict]:
    """The verify curve of the dtype the run used (`costs["verify_curves"]`), else the run's own 1..K+1 curve."""
    curves = costs.get("verify_curves") or {}
    return curves.get(costs.get("dtype")) or costs.get("verify") or []


def limits(row: dict, costs: dict) -> dict:
    """A constant configuration's physical limit (a perfect, free draft of the same shape, `physical_limit`), the
    fraction of it reached (its speedup vs target-only), and for a tree the speedup its tokens per forward predict."""
    curve = run_curve(costs)
    if row["policy"] != "constant" or not curve or row.get("speedup_vs_ar") is None:
        return {}
    tree_nodes, tree_lookup = row.get("tree_nodes") or 0, row.get("tree_lookup") or 0
    limit = physical_limit(row["k"], tree_nodes, curve, tree_lookup)
    out = {"physical_limit": limit, "fraction_of_limit": row["speedup_vs_ar"] / limit}
    if tree_nodes and row.get("mat_with_bonus"):
        out["predicted_speedup_measured_verify"] = estimated_speedup(row["mat_with_bonus"], row["k"], tree_nodes,
                                                                     row["c"], curve, tree_lookup,
                                                                     registry.one_pass(row["proposer"]))
    return out


def tokens_fed(k: int, tree_nodes: int = 0, tree_lookup: int = 0) -> int:
    """Tokens one verification forward reads at most: the last token and the K drafts of a chain, or the root, the
    nodes of a tree and its lookup branch (the copied branch may be shorter, or share drafted nodes)."""
    return (tree_nodes or k) + (tree_lookup if tree_nodes else 0) + 1


def physical_limit(k: int, tree_nodes: int, curve: list[dict], tree_lookup: int = 0) -> float:
    """The speedup of a perfect, free draft with the same shape: every step keeps a whole path of depth K (or the
    lookup branch's length, if longer) and its bonus token, and pays only the verify cost of the tokens fed, read off
    `curve`.

    >>> curve = [{"n_tokens": 1, "ratio": 1.0}, {"n_tokens": 5, "ratio": 1.09}, {"n_tokens": 17, "ratio": 1.19}]
    >>> round(physical_limit(4, 0, curve), 2), round(physical_limit(4, 16, curve), 2)
    (4.59, 4.2)
    """
    depth = max(k, tree_lookup if tree_nodes else 0)
    return (depth + 1) / curve_ratio(curve, tokens_fed(k, tree_nodes, tree_lookup))


@dataclass(frozen=True)
class OverLimit:
    """A shape whose physical limit is above the `tokens` one target forward can emit (depth + 1): the run's verify
    curve measured a forward over its `fed` tokens at `ratio` of a one-token forward, under 1 (timing noise or a
    kernel choice, not less work), and the limit divides by that. Read 54: default-cpu-f32-packed's chain of K = 4
    read a limit of 5.495 (results.md: 5.49×) for 5 tokens a forward, its 5 tokens measured at 0.910 of one token."""

    tokens: int
    fed: int
    ratio: float
    limit: float

    def ratio_digits(self, limit_digits: int) -> int:
        """The decimals at which the cost, as written, gives the limit as written to `limit_digits` decimals when the
        tokens are divided by it.

        >>> OverLimit(5, 5, 0.909942435950001, 5.4948530835138865).ratio_digits(3)
        2
        >>> OverLimit(3, 3, 0.9774348038280094, 3.0692584183117377).ratio_digits(2)
        3
        """
        def agrees(digits: int) -> bool:
            cost = as_written(self.ratio, digits)
            return cost > 0 and fixed(self.tokens / cost, limit_digits) == fixed(self.limit, limit_digits)
        return fewest_digits(agrees, 2, 6)


def written_curve(curve: list[dict], digits: int = VERIFY_DIGITS) -> list[dict]:
    """A verify curve with its ratios as a table writes them (`digits` decimals).

    >>> written_curve([{"n_tokens": 3, "ratio": 0.9774348}])
    [{'n_tokens': 3, 'ratio': 0.98}]
    """
    return [{**p, "ratio": as_written(p["ratio"], digits)} for p in curve]


def written_limit(row: dict, costs: dict, digits: int = VERIFY_DIGITS) -> float | None:
    """A row's physical limit as a reader recomputes it from the run's verify curve as written to `digits` decimals
    (results.md's Verify cost by dtype table: 2, `VERIFY_DIGITS`; the Speedup lab's dtype curves: 3), not from every
    digit the JSON keeps; None where the row has no limit. Read 55: default-cpu-f32-packed's results.md wrote a chain
    of K = 2's limit 3.07× beside its table's cost of 3 tokens, 0.98, which gives 3 / 0.98 = 3.06×: the limit came
    from 0.977.

    >>> costs = {"verify": [{"n_tokens": n, "ratio": r} for n, r in ((1, 1.0), (2, 1.1), (3, 0.9774348))]}
    >>> row = {"k": 2, "physical_limit": 3.0692584}
    >>> round(written_limit(row, costs), 4), round(written_limit(row, costs, 3), 4)
    (3.0612, 3.0706)
    """
    curve = written_curve(run_curve(costs), digits)
    if row.get("physical_limit") is None or not curve:
        return row.get("physical_limit")
    return physical_limit(row["k"], row.get("tree_nodes") or 0, curve, row.get("tree_lookup") or 0)


def written_fraction(row: dict, costs: dict, digits: int = VERIFY_DIGITS) -> float | None:
    """The share of the physical limit a row reached: its speedup over its limit (`written_limit`), both as the table
    beside it writes them (`digits` decimals), so the share is the quotient of the two cells.

    >>> costs = {"verify": [{"n_tokens": 1, "ratio": 1.0}, {"n_tokens": 5, "ratio": 1.099}]}
    >>> round(written_fraction({"k": 4, "physical_limit": 4.55, "speedup_vs_ar": 1.3449}, costs), 4)  # 1.34 / 4.55
    0.2945
    """
    limit = written_limit(row, costs, digits)
    if limit is None or row.get("speedup_vs_ar") is None or as_written(limit, digits) <= 0:
        return None
    return as_written(row["speedup_vs_ar"], digits) / as_written(limit, digits)


def over_limit(row: dict, costs: dict, digits: int = VERIFY_DIGITS) -> OverLimit | None:
    """The shape of `row` if its physical limit (`written_limit`: from the verify curve as written to `digits`
    decimals) is above the tokens one target forward can emit, else None: what the Speedup lab's Chain vs tree note
    and results.md's Physical limit note say (read 54: nothing said so)."""
    limit, curve = written_limit(row, costs, digits), written_curve(run_curve(costs), digits)
    nodes, lookup = row.get("tree_nodes") or 0, row.get("tree_lookup") or 0
    tokens = max(row["k"], lookup if nodes else 0) + 1
    if limit is None or not curve or limit <= tokens:
        return None
    fed = tokens_fed(row["k"], nodes, lookup)
    return OverLimit(tokens, fed, curve_ratio(curve, fed), limit)


def estimated_speedup(tokens_per_forward: float, k: int, tree_nodes: int, c: float, curve: list[dict],
                      tree_lookup: int = 0, one_pass: bool = False) -> float:
    """Tokens per target forward over what a step costs in one-token target forwards: the verify cost of the tokens
    fed (a lookup branch counted whole) plus K drafter passes of cost c (a tree drafts one pass per level, as a chain
    does per token; a lookup branch costs no forward), or one pass (`one_pass`: the Medusa heads draft every level at
    once).

    >>> round(estimated_speedup(2.6, 4, 16, 0.05, [{"n_tokens": 1, "ratio": 1.0}, {"n_tokens": 17, "ratio": 1.2}]), 3)
    1.857
    """
    verify = curve_ratio(curve, tokens_fed(k, tree_nodes, tree_lookup))
    return tokens_per_forward / (verify + draft_cost(k, c, one_pass))


def verify_ratio(costs: dict, k: int) -> float:
    """The measured cost of one target forward over K + 1 new tokens, in one-token forwards (`costs["verify"]`
    holds n = 1, 2, ... tokens; a K beyond the longest measured gets the longest).

    >>> verify_ratio({"verify": [{"n_tokens": 1, "ratio": 1.0}, {"n_tokens": 2, "ratio": 1.3}]}, 4)
    1.3
    """
    verify = costs["verify"]
    return verify[min(k, len(verify) - 1)]["ratio"]


def signed_percent(change: float, digits: int = 0) -> str:
    """A relative change in percent with its sign and `digits` decimals, rounded before it is written, so a change
    that rounds to none reads "0%" and never "-0%" or "+0%" (Python's format keeps the sign of -0.001 as "-0%", which
    read as a change where the two figures print the same), as targets.txt and results.md print it (English).

    >>> signed_percent(0.14), signed_percent(-0.08), signed_percent(-0.001), signed_percent(0.004)
    ('+14%', '-8%', '0%', '0%')
    >>> signed_percent(-0.0004, 1), signed_percent(0.0123, 1), signed_percent(-0.02)
    ('0.0%', '+1.2%', '-2%')

    A tie rounds half away from zero, as every number on the pages does (read 51: Python's round works on the binary
    double, half to even, and wrote 14.5% "+14%", 0.5% "0%" and -0.15% to one decimal "-0.1%"):

    >>> signed_percent(0.145), signed_percent(-0.0015, 1), signed_percent(0.005)
    ('+15%', '-0.2%', '+1%')
    """
    if not math.isfinite(change):
        return f"{change * 100:+.{digits}f}%"
    shown = Decimal(fixed(change, digits + 2)).scaleb(2)  # the percentage as `percent` rounds it: a tie half up
    if shown == 0:  # -0 included: no sign
        return f"{0:.{digits}f}%"
    return f"{shown:+.{digits}f}%"


def count_text(n: object, noun: str, plural: str | None = None) -> str:
    """A count with its noun agreeing, as results.md, targets_bench's lines and a calibration's machine line print it
    (English: the report writes no sentence through the catalog); an unknown count (None) reads "?" with the plural.

    >>> count_text(1, "thread"), count_text(2, "core"), count_text(None, "core"), count_text(1, "repeat")
    ('1 thread', '2 cores', '? cores', '1 repeat')
    """
    return f"{'?' if n is None else n} {noun if n == 1 else plural or noun + 's'}"
