"""The Speedup lab's tables, each a plain function of a `BenchResult` returning a pandas DataFrame: the metrics of
every configuration side by side, the draft-length policies against constant K, and specviz against what a user
would otherwise run (transformers' generate and assisted generation).
"""

from __future__ import annotations

import pandas as pd

from specviz.core.i18n import N_, _, as_written, fewest_digits, list_separator, ngettext, percent, signed_delta
from specviz.engine.proposers import registry
from specviz.labs.bench import BenchResult
from specviz.labs.bench import report
from specviz.labs.bench.report import HF_GENERATE, TARGET_ONLY
from specviz.labs.bench.summary import predicted_as_written
from specviz.ui.speedup.charts import one_pass_reason
from specviz.ui.speedup.view import (POLICY_TEXT, label, method_text, number, paper_label, policy_text,
                                    proposer_text, suite_titles, temperature_text, times, written)


def at_row_alpha(name: str) -> str:
    """A prediction's column in `mat_table`: the formula at the row's own α estimate, where the chart above it uses
    the mean α of every K (`charts.at_mean_alpha`), so the header says which."""
    return _("{label} at this row's α", label=name)


# The K column's help: what its cell is for each policy. Read 51: the optimal row showed the run's --policy-k
# (default-cpu-ngram: K = 4, where it drafted up to 8 a step and 2.805 on average, as constant K = 8 did)
K_HELP = N_("Constant K: the tokens drafted each step. Heuristic: the K it starts at; threshold: the most it drafts "
            "(both the run's --policy-k). Optimal: –, since it picks its own K at every step (up to the run's largest "
            "K), whatever --policy-k says. The mean K drafted is what the steps drafted.")


def mat_k(row: dict) -> str:
    """A `mat_table` row's K as its cell writes it: the optimal policy's row has none (`make_policy` ignores K: the
    row's k is only the --policy-k the bench filed it under), so "–" (`K_HELP`)."""
    return "–" if row["policy"] == "optimal" else str(row["k"])


def recomputed_text(result: BenchResult) -> str | None:
    """Under each table or chart that sets the optimal policy beside constant K: where a run's optimal rows are its
    constant K cases, recomputed (`BenchResult.recomputed_optimal_k`), a sentence that says so; None for a run that
    measured its optimal policy. Read 51: default-cpu-ngram's K = 8 and optimal columns read 1.94× and 1.94× as two
    runs, and its optimal policy "won" the policy table by 25%."""
    k = result.recomputed_optimal_k()
    if k is None:
        return None
    return _("In this run the optimal policy's figures are its constant K = {k} cases, recomputed, not a run of their "
             "own (the run's notes say why), so the two show the same numbers.", k=k)


def mat_help(table: pd.DataFrame) -> dict[str, str]:
    """`mat_table`'s column helps: what its K column holds for each policy, when the table has a policy row."""
    return {"K": _(K_HELP)} if "K" in table.columns else {}


def mat_table(result: BenchResult, proposer: str, temperature: float) -> pd.DataFrame:
    """The mean accepted length with and without the bonus token, next to the acceptance numbers, so the quoted
    metrics can be compared; the predicted columns from α and c as the page writes them (`predicted_as_written`)."""
    data = []
    for r in result.rows(proposer=proposer, temperature=temperature):
        predicted = predicted_as_written(r, result.costs)
        data.append({
            _("policy"): policy_text(r["policy"]), "K": mat_k(r), _("mean K drafted"): r["mean_k"],
            label("alpha"): r["alpha"], label("acceptance_rate"): r["acceptance_rate"],
            label("mat_with_bonus"): r["mat_with_bonus"], label("mat_without_bonus"): r["mat_without_bonus"],
            label("tokens_per_second"): r["tokens_per_second"], label("speedup_vs_ar"): r["speedup_vs_ar"],
            at_row_alpha(paper_label(proposer)): predicted["predicted_speedup"],
            at_row_alpha(label("predicted_speedup_measured_verify")): predicted["predicted_speedup_measured_verify"],
            label("record_overhead"): overhead_text(r["record_overhead"]), label("identical"): r["identical_count"],
        })
    df = pd.DataFrame(data)
    return written(df) if not df.empty else df  # 3 decimals, the reader's way; the JSON keeps every digit


def overhead_text(overhead: float | None) -> str | None:
    """The trace recording overhead (a relative change: the traced run's time over the untraced ones', minus 1) as
    results.md writes it, a signed percent with one decimal, in the reader's way; None when not measured. Read 55:
    the table wrote the fraction bare ("0.003" beside results.md's "+0.3%", default-cpu-ngram's n-gram lookup at
    K = 4, T = 0), a number with no unit that read as milliseconds as easily as a share.

    >>> overhead_text(0.0031), overhead_text(-0.0079), overhead_text(0.00004), overhead_text(None)
    ('+0.3%', '−0.8%', '0.0%', None)
    """
    return None if overhead is None else signed_delta(percent(overhead, 1))[0]


def policy_column(policy: str, k0: int) -> str:
    """A policy's column in the policy table: its bench name (`--policies constant heuristic threshold optimal`),
    which the text above the table defines in bold in both languages, with constant's K. Headers with the longer
    names (`POLICY_TEXT`) made the table wider than the page at 1400 px, and its last header ("vencedora vs
    constante") was cut off; the longer names show on hovering a header (`policy_help`).

    >>> policy_column("constant", 4), policy_column("heuristic", 4)
    ('constant K=4', 'heuristic')
    """
    return f"{policy} K={k0}" if policy == "constant" else policy


def policy_help(table: pd.DataFrame) -> dict[str, str]:
    """The policy table's policy columns -> the policy's longer name in the reader's language, for the header's help."""
    return {column: policy_text(column.split(" ")[0]) for column in table.columns
            if column.split(" ")[0] in POLICY_TEXT}


def policy_table(result: BenchResult, temperature: float) -> pd.DataFrame:
    """Per category and proposer: each policy's speedup, the winner and its margin over constant K."""
    titles = suite_titles(result)
    data = []
    comparisons = result.policy_comparisons(temperature)
    decimals = policy_decimals(comparisons)
    for comparison in comparisons:
        entry = {_("category"): titles.get(comparison.suite, _("all categories")),
                 _("proposer"): proposer_text(comparison.proposer)}
        names = {policy: policy_column(policy, comparison.k0) for policy in comparison.speedups}
        entry.update({names[policy]: times(v, decimals) for policy, v in comparison.speedups.items()})
        entry[_("winner")] = names[comparison.winner]
        entry[_("winner vs constant")] = margin_text(comparison.margin)
        data.append(entry)
    # a policy one proposer did not run (the threshold policy for n-gram lookup, `no_threshold_text`) is "–", as any
    # unknown figure: pandas left NaN in its cell (read 50: a live toy sweep of the draft model and n-gram lookup with
    # the threshold policy showed "NaN" in the n-gram rows)
    return pd.DataFrame(data).fillna("–")


def policy_decimals(comparisons: list) -> int:
    """The decimals the policy table writes its speedups with: results.md's rule (`report.policy_decimals`, 2 or up to
    4, so that each winner is the fastest as written and its margin follows from the written speedups), with the
    margin as this page writes it (`margin_text`).

    >>> from specviz.labs.bench.report import PolicyComparison
    >>> policy_decimals([PolicyComparison("qa", "ngram", 4, {"constant": 0.8251, "heuristic": 0.8316})])
    3
    """
    return report.policy_decimals(comparisons, margin_text)


def no_threshold_text(result: BenchResult, temperature: float) -> str | None:
    """Under the policy table: the proposers whose rows have no threshold policy where another proposer's have one
    (the bench runs it only for a proposer with draft probabilities: `cases.CaseRunner` skips it for a lookup), so
    their "–" is explained; None when there are none."""
    comparisons = result.policy_comparisons(temperature)
    if not any("threshold" in c.speedups for c in comparisons):
        return None
    missing = list(dict.fromkeys(c.proposer for c in comparisons if "threshold" not in c.speedups
                                 and c.proposer in registry.names() and registry.get(c.proposer).timed_as == "lookup"))
    if not missing:
        return None
    return _("The bench runs no threshold policy for {proposers}, hence the – in its rows: that policy stops a draft "
             "once the drafter's top probability falls below the threshold, and a lookup has no probability to read.",
             proposers=", ".join(registry.phrase_text(p) for p in missing))


def margin_text(margin: float | None) -> str:
    """The policy table's "winner vs constant": the winner's gain over constant K as `percent` writes it, signed by
    `signed_delta` (+12%; a negative with U+2212, as every number is written, though the winner is the fastest,
    constant K included, so the margin is never below 0), a gain under half a percent with one decimal more (+0.3%,
    as results.md writes it), and "no gain" where even that rounds to zero (Read 48: a signed "+0%" read as a win);
    "–" when either speedup is unknown.

    >>> margin_text(0.123), margin_text(0.003), margin_text(0.0), margin_text(-0.12), margin_text(None)
    ('+12%', '+0.3%', 'no gain', '−12%', '–')
    """
    if margin is None:
        return "–"
    signed, direction = signed_delta(percent(margin))
    if direction == "off":  # rounds to 0%
        signed, direction = signed_delta(percent(margin, 1))
    return _("no gain") if direction == "off" else signed


def no_constant_text(result: BenchResult, temperature: float) -> str | None:
    """Under the policy table: the sentence for a run that ran no chain of constant K at the K its policies start at
    (a bench whose --policy-k is not among its --k), else None. Read 49: such a table had no constant column, named
    the fastest adaptive policy (the heuristic alone, say) its winner with "–" against constant, and the text above
    it, which compares each policy with constant K, did not say that this run has none to compare with.

    >>> from specviz.labs.bench import BenchResult
    >>> row = dict(suite="all", proposer="draft", temperature=0.0, tree_nodes=0, speedup_vs_ar=1.2)
    >>> result = BenchResult(command="", created="", machine={}, config={}, costs={}, cases=[], baselines=[],
    ...                      summary=[dict(row, policy="constant", k=2), dict(row, policy="heuristic", k=4)], suites=[])
    >>> no_constant_text(result, 0.0)[:52]
    'This run ran no chain of constant K = 4, where its p'
    """
    missing = sorted({c.k0 for c in result.policy_comparisons(temperature) if "constant" not in c.speedups})
    if not missing:
        return None
    return _("This run ran no chain of constant K = {k}, where its policies start (its --policy-k is not among its "
             "--k): the table has no constant column, and its winner is the fastest of the policies alone.",
             k=list_separator().join(map(str, missing)))


def no_policies_text(result: BenchResult, temperature: float) -> str:
    """What the Policies tab says when `policy_table` is empty at `temperature`. A run that measured its adaptive
    policies at other temperatures (`--policy-temperatures 0`: default-cpu-drafts, -layerskip, -ngram) is sent to
    the temperature menu, not to rerun the bench with flags its command already has (read 46: at T = 0.7 those runs
    said to run the bench with `--policies ...`, their tables one menu pick away)."""
    elsewhere = sorted({r["temperature"] for r in result.summary if r["policy"] != "constant"} - {temperature})
    if elsewhere:
        return ngettext("This result measured its adaptive draft-length policies at T = {temperatures} only (its "
                        "--policy-temperatures): pick that temperature above to compare them.",
                        "This result measured its adaptive draft-length policies at T = {temperatures} only (its "
                        "--policy-temperatures): pick one of those temperatures above to compare them.",
                        len(elsewhere), temperatures=list_separator().join(temperature_text(t) for t in elsewhere))
    return _("This result has no adaptive draft-length policies at this temperature; run the bench with "
             "`--policies constant heuristic threshold optimal`.")


def comparison_table(result: BenchResult, temperature: float) -> pd.DataFrame:
    """specviz against what a user would otherwise pick, over all categories, at one temperature: one row per
    method, every speedup a pooled tokens/s ratio from the same run."""
    ar = result.baseline_tokens_per_second(TARGET_ONLY, temperature)
    generate = result.baseline_tokens_per_second(HF_GENERATE, temperature)
    rows: list[tuple[str, str, int | None, float | None, str]] = []

    def add(method: str, proposer: str, k: int | None, tps: float | None, identical: str) -> None:
        rows.append((method, proposer, k, tps, identical))

    for method in result.baseline_methods(temperature):
        identical = result.baseline_identical(method, temperature)
        # read 55: target-only's own cell read "8/8", a check of its tokens against themselves (`cases.
        # baseline_results` files it True): it is what the column compares with
        if method == TARGET_ONLY and identical:
            identical = _("the reference")
        add(method, "–", None, result.baseline_tokens_per_second(method, temperature), identical or "–")
    for r in result.rows(temperature=temperature, policy="constant"):
        add("specviz speculative", proposer_text(r["proposer"]), r["k"], r["tokens_per_second"],
            r["identical_count"] or "–")
        if r["speedup_vs_hf_assisted"]:
            hf = f"transformers {result.assisted_method(r['proposer'])}"
            add(hf, proposer_text(r["proposer"]), r["k"], r["tokens_per_second"] / r["speedup_vs_hf_assisted"],
                assisted_identical(result, r) or "–")
    decimals = _speed_decimals([row[3] for row in rows], [b for b in (ar, generate) if b])
    return pd.DataFrame([{_("method"): method_text(method), _("proposer"): proposer,
                          "K": "–" if k is None else str(k), label("tokens_per_second"): number(tps, decimals),
                          label("speedup_vs_ar"): times(tps / ar if tps and ar else None),
                          label("speedup_vs_hf_generate"): times(tps / generate if tps and generate else None),
                          label("identical"): identical} for method, proposer, k, tps, identical in rows])


def assisted_identical(result: BenchResult, row: dict) -> str | None:
    """On how many prompts transformers' assisted generation (or prompt lookup) gave target-only's greedy tokens, for
    the chain of `row` (a summary row: its proposer, K and temperature), as "same/checked" like every other row of
    the comparison table; None when none was checked. Read 53: its cell said "yes" (or "NO") beside "1/3" and "3/3"
    in the same column (default-h200-bf16-run2, greedy), which did not say on how many prompts.

    >>> from specviz.labs.bench import BenchResult
    >>> case = dict(suite="qa", proposer="draft", policy="constant", k=2, temperature=0.0, tree_nodes=0)
    >>> result = BenchResult(command="", created="", machine={}, config={}, costs={}, baselines=[], summary=[],
    ...                      suites=[], cases=[dict(case, hf_assisted_identical=True),
    ...                                     dict(case, prompt_id="b", hf_assisted_identical=False),
    ...                                     dict(case, k=4, hf_assisted_identical=True)])
    >>> assisted_identical(result, dict(case, suite="all")), assisted_identical(result, dict(case, k=3))
    ('1/2', None)
    """
    checked = [c["hf_assisted_identical"] for c in result.cases
               if c["proposer"] == row["proposer"] and c["policy"] == "constant" and c["k"] == row["k"]
               and c["temperature"] == row["temperature"] and not c.get("tree_nodes")
               and c.get("hf_assisted_identical") is not None]
    return f"{sum(checked)}/{len(checked)}" if checked else None


def _speed_decimals(speeds: list[float | None], bases: list[float]) -> int:
    """The decimals the comparison table's tokens/s take so that each row's tokens/s as written ÷ a baseline's as
    written gives the speedup the row writes (`times`): 1, or as many more (up to 4) as it takes, as the race's
    `timeline.speed_decimals` does. Read 52: default-cpu-f32-packed's 35.4 tokens/s against model.generate's 20.6
    stood beside 1.71× (35.4 / 20.6 = 1.72), from 35.36 / 20.63.

    >>> _speed_decimals([35.3615, 21.0806, 20.6329], [21.0806, 20.6329]), _speed_decimals([20.0, None], [10.0])
    (2, 1)
    """
    def agrees(decimals: int) -> bool:
        return all(number(as_written(tps, decimals) / as_written(base, decimals)) == number(tps / base)
                   for tps in speeds if tps for base in bases if as_written(base, decimals) > 0)

    return fewest_digits(agrees, 1, 4)


# the column is named as its header names it, `label("identical")` (read 47: "Greedy identical" beside the header
# "greedy output identical")
COMPARISON_CAPTION = N_("transformers rows: model.generate on the target alone, and assisted generation with the same "
                        "draft and a fixed K (prompt lookup for n-gram). Greedy output identical: the same tokens as "
                        "specviz's target-only decoding, token for token.")


def comparison_caption(result: BenchResult, temperature: float) -> str:
    """What the vs transformers tab's rows are, for this run at `temperature`. Read 47: the one caption described
    model.generate and assisted generation rows under every run, but a run with `--hf greedy` timed transformers at
    T = 0 only (its T = 0.7 table has no transformers row), and transformers has no assisted generation of an EAGLE
    drafter or Medusa heads (`registry` twin: none), so an EAGLE-only run's table has no assisted row at all."""
    if HF_GENERATE not in result.baseline_methods(temperature):
        timed = sorted({b["temperature"] for b in result.baselines if b["method"] == HF_GENERATE})
        if not timed:
            return _("This run did not time transformers: its table has specviz's rows only.")
        return ngettext("This run timed transformers at T = {temperatures} only (its --hf): pick that temperature "
                        "above to compare with transformers.",
                        "This run timed transformers at T = {temperatures} only (its --hf): pick one of those "
                        "temperatures above to compare with transformers.",
                        len(timed), temperatures=list_separator().join(temperature_text(t) for t in timed))
    text = _(COMPARISON_CAPTION)
    proposers = {r["proposer"] for r in result.rows(temperature=temperature, policy="constant")}
    alone = [p for p in result.proposers() if p in proposers and p in registry.names()
             and registry.get(p).twin is None]
    if alone:
        text += " " + _("No transformers row compares with {proposers}: transformers' assisted generation has no "
                        "counterpart.", proposers=", ".join(registry.phrase_text(p) for p in alone))
    return text


def optimal_charge_text(result: BenchResult, temperature: float) -> str:
    """After the Policies tab's text: for a proposer whose one pass drafts the whole step (`registry.one_pass`: the
    Medusa heads, n-gram lookup) whose optimal policy this run measured at `temperature`, what the policy maximises
    for it: the formula with c per step, as the Speedup vs K tab's (`theory.draft_cost`). Read 49: the text said it
    "maximises the formula", where `OptimalK` maximised the K·c one for such a proposer too (default-cpu-ngram:
    c = 0.0002 picked K = 8 at α = 0.37); read 50: it now charges c per step, under which every extra draft gains,
    so it asks for the run's largest K (default-cpu-ngram's optimal rows: K = 8 at every step, recomputed).
    "" when no such proposer ran the optimal policy here."""
    names = sorted({c.proposer for c in result.policy_comparisons(temperature)
                    if "optimal" in c.speedups and registry.one_pass(c.proposer)})
    if not names:
        return ""
    # read 54: "since one pass (for n-gram, one search) drafts the whole step" was said of the Medusa heads too; the
    # reason is each proposer's own, as the Speedup vs K caption gives it (`charts.one_pass_reason`)
    why = (one_pass_reason(names[0]) if len(names) == 1 else "; ".join(  # clauses with commas: "; " in English too
        f"{registry.phrase_text(p)}: {one_pass_reason(p)}" for p in names))
    return " " + _("For {proposers} it charges c per step, as the Speedup vs K tab does ({why}): every extra draft "
                   "then adds expected tokens at no extra drafting cost, so it asks for the run's largest K at every "
                   "step where α + α² + … + α^K (α as estimated so far) exceeds c, and otherwise K = 0 (still "
                   "drafting one token every few steps, as above).",
                   proposers=", ".join(registry.phrase_text(p) for p in names), why=why)
