"""Pooling: the per-prompt cases of a bench run pooled per suite and over all suites, and the predicted speedups.

    summary = summarise(result.cases, result.baselines, result.costs)
    [row for row in summary if row["suite"] == "all"]   # one row per proposer x policy x K x temperature

Speedups pool as ratios of total tokens over total seconds (not as a mean of ratios), so a long prompt weighs
what its time weighs.
"""

from __future__ import annotations

import math
from collections import defaultdict

from specviz.theory import expected_speedup, expected_tokens_per_step


def summarise(cases: list[dict], baselines: list[dict], costs: dict) -> list[dict]:
    """Pool cases per (suite, proposer, policy, K, temperature), and over all suites (suite "all").

    Speedups are pooled as ratios of total tokens / total seconds; acceptance as total accepted / total drafted;
    α as the mean over cases; acceptance by position from the pooled counts.
    """
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row in cases:
        key = (row["proposer"], row["policy"], row["k"], row["temperature"])
        groups[(row["suite"], *key)].append(row)
        groups[("all", *key)].append(row)
    out = []
    for (suite, proposer, policy, k, temperature), rows in groups.items():
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
            "prompts": len(rows), "tokens": total("tokens"), "steps": steps,
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
        }
        if policy == "constant" and alpha is not None:
            row.update(predicted_speedups(alpha, k, c, costs))
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


def predicted_speedups(alpha: float, k: int, c: float, costs: dict) -> dict[str, float]:
    """The paper's speedup for α (capped at 1), K and c, and the same with the measured verify cost of K+1 tokens
    (`costs["verify"]`, clamped to the longest measured) in place of the paper's free verification.

    >>> free = {"verify": [{"n_tokens": n, "ratio": 1.0} for n in range(1, 6)]}
    >>> {name: round(v, 4) for name, v in predicted_speedups(0.8, 4, 0.05, free).items()}
    {'predicted_speedup': 2.8013, 'predicted_speedup_measured_verify': 2.8013}
    """
    alpha = min(1.0, alpha)
    verify = costs["verify"][min(k, len(costs["verify"]) - 1)]["ratio"]
    return {"predicted_speedup": expected_speedup(alpha, k, c),
            "predicted_speedup_measured_verify": expected_tokens_per_step(alpha, k) / (k * c + verify)}
