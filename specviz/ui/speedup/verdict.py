"""What the Speedup lab's numbers say: the headline numbers at the top and the verdict in sentences, slowdowns
included, with the cause the numbers point to (the draft's cost c, the acceptance probability α, or the cost of verifying K + 1
tokens). Plain Python over a `specviz.labs.bench.BenchResult`.
"""

from __future__ import annotations

import math

from specviz.core.i18n import _, as_written, ngettext, small_number
from specviz.engine import theory
from specviz.engine.proposers import registry
from specviz.labs.bench import BenchResult
from specviz.labs.bench.summary import VERIFY_DIGITS, written_c
from specviz.labs.timeline import short_step_reasons, speedup_band
from specviz.ui.speedup.view import number, policy_text, suite_titles, temperature_text, times


def best_alpha(result: BenchResult, proposer: str, temperature: float, best: dict) -> float | None:
    """The α estimate at the best K, the row the headline and the verdict quote with "at K = ..." (issue 43, twelfth
    read: the mean over every constant K was shown there, e.g. 0.34 beside the n-gram run's K = 4, whose own row says
    0.36); the mean over the K values only when that row has none."""
    alpha = best.get("alpha")
    return float(alpha) if alpha is not None else result.mean_alpha(proposer, temperature)


def headline(result: BenchResult, proposer: str, temperature: float) -> dict[str, str]:
    """The four numbers at the top: best measured speedup, its K, and the α estimate and c measured at that K."""
    best = result.best_constant(proposer, temperature)
    if best is None:
        return {}
    return {
        "best": times(best["speedup_vs_ar"]), "best_k": str(best["k"]),
        "alpha": number(best_alpha(result, proposer, temperature, best), 3), "c": small_number(best["c"]),
        "identical": best["identical_count"] or "–",
    }


def verdict(result: BenchResult, proposer: str, temperature: float) -> str:
    """Plain sentences on what the numbers say (slowdowns included), and where it pays if it pays anywhere."""
    best = result.best_constant(proposer, temperature)
    if best is None:
        return _("No constant-K runs for this proposer and temperature.")
    alpha, s, k = best_alpha(result, proposer, temperature, best), best["speedup_vs_ar"] or 0, best["k"]
    verify = result.verify_ratio(k)
    # the proposer's phrase has no article and may hold brackets: it is named between dashes, not as a subject
    where = dict(proposer=registry.phrase_text(proposer), t=temperature_text(temperature), speedup=times(s), k=k,
                 alpha=number(alpha))
    # a run that measured one K has no best K and no "every K" (read 47: "at its best K = 4" where K = 4 was all)
    one_k = len({r["k"] for r in result.rows(proposer=proposer, temperature=temperature, policy="constant")}) == 1
    band = speedup_band(s)  # the Race's band: the same measured speedup gets the same word on both pages
    if band == "won" and one_k:
        text = _("Over all categories — {proposer}, T = {t} — speculative decoding is {speedup} faster than "
                 "target-only decoding at K = {k}, the only K of this run's chains (α ≈ {alpha}, c = {c}), "
                 "measured in the same run.", c=small_number(best["c"]), **where)
    elif band == "won":
        text = _("Over all categories — {proposer}, T = {t} — speculative decoding is {speedup} faster than "
                 "target-only decoding at its best K = {k} (α ≈ {alpha}, c = {c}), measured in the same run.",
                 c=small_number(best["c"]), **where)
    if band == "won":  # read 52: a win its own costs say is a loss (default-h200-bf16-run2's draft, greedy)
        text += beyond_costs_win(result, best, temperature, one_pass=registry.one_pass(proposer))
    elif band == "tie" and one_k:
        text = _("Over all categories — {proposer}, T = {t} — speculative decoding roughly breaks even with "
                 "target-only decoding ({speedup} at K = {k}, the only K of this run's chains, α ≈ {alpha}).",
                 **where)
    elif band == "tie":
        text = _("Over all categories — {proposer}, T = {t} — speculative decoding roughly breaks even with "
                 "target-only decoding (best {speedup} at K = {k}, α ≈ {alpha}).", **where)
    else:
        why = slowdown_reason(alpha, best["c"], k, verify, best["mat_with_bonus"], drafted=best.get("mean_k"),
                              speedup=s, one_pass=registry.one_pass(proposer), proposer=proposer)
        if one_k:
            text = _("Over all categories — {proposer}, T = {t} — speculative decoding is slower than target-only "
                     "decoding at K = {k}, the only K of this run's chains ({speedup}): {why}.", why=why, **where)
        else:
            text = _("Over all categories — {proposer}, T = {t} — speculative decoding is slower than target-only "
                     "decoding at every K (best {speedup} at K = {k}): {why}.", why=why, **where)
    trees = [r for r in result.shape_rows(proposer, temperature) if r.get("tree_nodes")]
    if trees:  # the headline is over chains; a tree in the same run is named too, so its figure is not missed
        tree = max(trees, key=lambda r: r["speedup_vs_ar"] or 0)
        # a bench's --shapes may hold 1 node, 1 child or 1 copied token: each count agrees with its noun (read 44)
        shape = dict(nodes=ngettext("{n} node", "{n} nodes", tree["tree_nodes"]),
                     width=tree["tree_width"],  # both its jobs in grow_tree (read 46), as the width input's label
                     expanded=ngettext("{n} node expanded", "{n} nodes expanded", tree["tree_width"]),
                     children=ngettext("{n} child", "{n} children", tree["tree_width"]), k=tree["k"],
                     speedup=times(tree["speedup_vs_ar"]), tokens=number(tree["mat_with_bonus"]))
        if tree.get("tree_lookup"):
            text += " " + _("A draft tree of up to {nodes} (width {width}: at most {expanded} per level and "
                            "{children} per node, depth up to {k}) plus a lookup branch of up to {lookup} reached "
                            "{speedup} against target-only decoding, with {tokens} tokens per target forward: the "
                            "Chain vs tree tab compares the shapes.",
                            lookup=ngettext("{n} token copied from the context", "{n} tokens copied from the context",
                                            tree["tree_lookup"]), **shape)
            text += repetition_note(result, tree, temperature)
        else:
            text += " " + _("A draft tree of up to {nodes} (width {width}: at most {expanded} per level and "
                            "{children} per node, depth up to {k}) reached {speedup} against target-only "
                            "decoding, with {tokens} tokens per target forward: the Chain vs tree tab compares the "
                            "shapes.", **shape)
    titles = suite_titles(result)
    top = result.best_in_one_suite(proposer, temperature)
    if top is not None and len(titles) > 1 and speedup_band(top["speedup_vs_ar"] or 0) == "won":
        how = f"K = {top['k']}" if top["policy"] == "constant" else policy_text(top["policy"])
        # the best category is named, not assumed to be a copying one (held-out answers copy little)
        text += " " + _("Of the categories taken one at a time, **{suite}** pays most: {speedup} against "
                        "target-only decoding ({how}, mean accepted length {tokens}).", suite=titles[top["suite"]],
                        speedup=times(top["speedup_vs_ar"]), how=how, tokens=number(top["mat_with_bonus"]))
    return text


# Read 52: how far a measured win may sit above what its own costs predict before the verdict says where the rest
# came from. Over the committed runs the other won rows sit at 0.76 to 1.13 times their prediction, but
# default-h200-bf16-run2's EAGLE-1 drafter, greedy, at 1.36 (1.62× measured, 1.19× by its costs, 1.13× in the
# predicted column, which takes α instead of the mean accepted length): its target-only start was slow (docs/gpu.md).
WIN_BEYOND_COSTS = 1.25


def beyond_costs_win(result: BenchResult, best: dict, temperature: float, one_pass: bool = False) -> str:
    """Read 52: the verdict explained a loss its costs said should pay (`slowdown_reason`'s last sentence) but said
    nothing of a win its costs say should lose: default-h200-bf16-run2's separate draft, greedy, measured 1.26× where
    a step of K = 3 costs 1.77 one-token forwards for 1.58 tokens; nor of a win well above what its costs predict:
    the same run's EAGLE-1 drafter, greedy, measured 1.62× where its costs give 1.19×. The measured speedup over the
    one the costs give (mean accepted length over the step's forwards) is how far target-only decoding fell behind
    its cost (one target forward a token) over how far the speculative steps fell behind theirs; the sentence gives
    both factors, so a reader sees the win came from a baseline slower than its forward (there, the first prompt's
    slow start, docs/gpu.md). Empty when the costs measured alone predict the win to within `WIN_BEYOND_COSTS`, or
    a figure is missing."""
    from specviz.labs.bench.report import TARGET_ONLY

    k, c, tokens = best["k"], best["c"], best.get("mat_with_bonus")
    step = written_step(k, c, result.verify_ratio(k), one_pass)  # the step's forwards, in one-token forwards
    forward = result.costs.get("target_forward_seconds")
    rate, own = result.baseline_tokens_per_second(TARGET_ONLY, temperature), best.get("tokens_per_second")
    if not (tokens and forward and rate and own):
        return ""
    measured = best["speedup_vs_ar"] or 0
    # read 55: every ratio the sentences write follows from the figures they write (a mean accepted length of 1.9355
    # over a 1.62-forward step gave "1.19× faster" beside the written 1.94 tokens, which give 1.20×)
    step, tokens, measured = as_written(step), as_written(tokens), as_written(measured)
    predicted = as_written(tokens / step)
    if step <= tokens and measured <= WIN_BEYOND_COSTS * predicted:
        return ""
    baseline_ms, spec_ms = 1e3 / rate, 1e3 / own  # ms a token, prefill included (tokens/s is from call to last token)
    baseline_ms, spec_ms, forward_ms = as_written(baseline_ms, 1), as_written(spec_ms, 1), as_written(forward * 1e3, 1)
    numbers = dict(k=k, step=number(step), drafting="c" if one_pass else "K·c", c=small_number(c), n=k + 1,
                   verify=times(result.verify_ratio(k)), tokens=number(tokens), baseline_ms=number(baseline_ms, 1),
                   forward_ms=number(forward_ms, 1), baseline_x=times(baseline_ms / forward_ms),
                   spec_ms=number(spec_ms, 1), spec_x=times(spec_ms / (step * forward_ms / tokens)))
    if step > tokens:
        return " " + _("Its costs measured alone say it should lose: a step of K = {k} costs {step} one-token "
                       "forwards ({drafting} of drafting, c = {c}, plus one target forward over {n} tokens, which "
                       "costs {verify} a one-token forward) for the {tokens} tokens it buys on average (its mean "
                       "accepted length). It won because target-only decoding fell further behind its cost than "
                       "speculative decoding did behind its own: target-only decoding took {baseline_ms} ms a token "
                       "in this run (prefill included), {baseline_x} the {forward_ms} ms of one target forward timed "
                       "alone, and speculative decoding {spec_ms} ms, {spec_x} what its costs add up to. Read that "
                       "win as this run's timing, not as what drafting buys.", **numbers)
    return " " + _("That is {over} what its costs measured alone predict: a step of K = {k} costs {step} one-token "
                   "forwards ({drafting} of drafting, c = {c}, plus one target forward over {n} tokens, which costs "
                   "{verify} a one-token forward) for the {tokens} tokens it buys on average (its mean accepted "
                   "length), {predicted} faster. The rest came from target-only decoding falling further behind its "
                   "cost than speculative decoding did behind its own: target-only decoding took {baseline_ms} ms a "
                   "token in this run (prefill included), {baseline_x} the {forward_ms} ms of one target forward "
                   "timed alone, and speculative decoding {spec_ms} ms, {spec_x} what its costs add up to. Read the "
                   "win beyond {predicted} as this run's timing, not as what drafting buys.",
                   over=times(measured / predicted), predicted=times(predicted), **numbers)


def written_step(k: int, c: float, verify: float, one_pass: bool = False) -> float:
    """A step's forwards in one-token target forwards (drafting, `theory.draft_cost`, plus one target forward over
    K + 1 tokens) from c and the verify cost as the verdict writes them (`written_c`, `VERIFY_DIGITS` decimals), so
    the written parts give the written total. Read 54: default-cpu-drafts' EAGLE-1 drafter, T = 0.7, K = 4, read
    "costs 1.70 one-token forwards" beside c = 0.081 and 1.37×, which give 4 × 0.081 + 1.37 = 1.69.

    >>> round(written_step(4, 0.08103, 1.3660), 6), round(written_step(2, 0.046102, 1.0449, one_pass=True), 6)
    (1.694, 1.086)
    """
    return theory.draft_cost(k, written_c(c), one_pass) + as_written(verify, VERIFY_DIGITS)


def repetition_note(result: BenchResult, tree: dict, temperature: float) -> str:
    """Issue 43 item 9: a greedy tree with a lookup branch gains part of its speed from the text repeating itself;
    say so, with the lift the committed shape table measured (the branch's; the drafter's own share of repetition is
    not measured, 41st read), so the headline is not read as any target's."""
    from specviz.engine.draft_shape import DraftShape
    from specviz.labs.shape_choice import lookup_lift, shape_table

    pair = str(result.config.get("pair") or "")
    lift = lookup_lift(pair, DraftShape.of(tree), temperature) if pair and temperature == 0 else None
    table = shape_table(pair) if lift is not None else None
    if lift is None or table is None:
        return ""
    # Read 45: "takes this tree from 2.51 to 2.98" followed this run's own 2.79 (bfloat16) and read as this run's
    return " " + _("Part of this greedy gain is the text repeating itself: in the committed shape table "
                   "(`assets/benchmarks/shapes/{pair}.json`, {prompts} held-out prompts in {dtype}, not this run), "
                   "the lookup branch, which can only copy text already in the prompt or the answer, takes this "
                   "shape from {without} to {with_lookup} tokens per target forward; how much of the drafter's own "
                   "share comes from repetition is not measured. A target that repeats itself less gains less from "
                   "the branch.",
                   without=number(lift[0]), with_lookup=number(lift[1]),
                   prompts=table["prompts"], dtype=table["dtype"], pair=pair)


def slowdown_reason(alpha: float | None, c: float, k: int, verify: float, tokens_per_step: float,
                    drafted: float | None = None, speedup: float | None = None, one_pass: bool = False,
                    proposer: str | None = None) -> str:
    """Why a speculative run lost to target-only decoding, naming the cause the numbers point to.

    A step costs K·c draft forwards plus one target forward over K + 1 tokens (`verify` one-token forwards) and emits
    `tokens_per_step`; a proposer whose one pass drafts the whole step (`one_pass`, `registry.one_pass`: the Medusa
    heads, n-gram lookup) costs c of drafting whatever K (`theory.draft_cost`; read 49: this sentence still charged
    it K·c). With c ≥ 1 (one pass: c ≥ K) the draft is the cause whatever α is; else α is the cause when it is at or
    below the break-even α for this K and c (Leviathan et al.; α = 0 with free drafts ties at best, it never pays);
    else the formula says the step should pay, and the cost of verifying K + 1 tokens is what it misses when the
    drafting + `verify` is at least `tokens_per_step`; when it is less, the costs measured alone say the step pays,
    and the run's steps took longer than they add up to (on the H200 run the draft and verify times in the loop
    exceed c and the verify cost measured alone). When the run's steps drafted
    fewer than K on average (`drafted`: drafting stops at the token limit, so a model drafter's steps near it draft
    fewer too, a lookup drafts only what it finds, and Medusa heads cap it at their count), drafting + `verify` is the
    cost of a full step only, so the sentence names that and compares the tokens with what an average step cost by
    the measured `speedup` (tokens per step over the speedup, in one-token target forwards, from both as the
    sentence writes them: read 55, default-cpu-ngram's n-gram lookup, T = 0, K = 4, read "about 1.26" beside 1.18
    tokens and 0.93×, which give 1.27), with the reasons that can apply to `proposer` (its registry name; None: every
    shipped proposer's, `short_step_reasons`).

    >>> slowdown_reason(0.43, 0.122, 3, 1.09, 1.73)[:40]
    'by α ≈ 0.43, c = 0.122 and the verify co'
    >>> slowdown_reason(0.61, 1.17, 2, 1.1, 1.9)[:58]
    'each drafted token costs c = 1.17 of a target forward: the'
    >>> slowdown_reason(0.2, 0.1, 4, 1.2, 1.2)[:46]
    'at c = 0.10 a step drafting K = 4 pays only if'
    """
    if one_pass and c >= k:
        return _("one pass of the drafter costs c = {c} of a target forward, no less than K = {k}: even if every "
                 "draft were kept, a step would cost at least the {n} target forwards plain decoding pays for the "
                 "same {n} tokens (the acceptance probability α ≈ {alpha} is not what holds it back)",
                 c=number(c), k=k, n=k + 1, alpha=number(alpha))
    if c >= 1 and not one_pass:
        return _("each drafted token costs c = {c} of a target forward: the draft is no cheaper than the target, so "
                 "even if every draft were kept (K = {k}), a step would cost at least the {n} target forwards plain "
                 "decoding pays for the same {n} tokens (the acceptance probability α ≈ {alpha} is not what holds it back)",
                 c=number(c), k=k, n=k + 1, alpha=number(alpha))
    needed = theory.break_even_alpha(k, c, one_pass=one_pass)
    if alpha is not None and math.isfinite(needed) and alpha <= needed + 1e-9:  # at it a step only ties: no pay
        return _("at c = {c} a step drafting K = {k} pays only if α is above {needed}, and here α ≈ {alpha}: too "
                 "many drafts are thrown away for their cost", c=small_number(c, 2), k=k,
                 needed=small_number(needed, 2), alpha=number(alpha))
    step = written_step(k, c, verify, one_pass)  # the step's forwards, in one-token target forwards
    words = dict(alpha=number(alpha), c=small_number(c), n=k + 1, verify=times(verify), k=k, step=number(step),
                 tokens=number(tokens_per_step))
    if step >= tokens_per_step and drafted is not None and drafted < k - 0.005 and speedup:  # 1.60 of K = 4 (read 46)
        return _("α ≈ {alpha} and c = {c} would pay if checking the drafts were free, but a step that drafts all "
                 "K = {k} costs {step} one-token forwards (one target forward over {n} tokens costs {verify} a "
                 "one-token forward on the machine that measured it), and this run's steps drafted {drafted} tokens "
                 "on average ({reasons}): by the measured speedup an average step cost about "
                 "{cost} one-token forwards, more than the {tokens} tokens it bought (its mean accepted length)",
                 drafted=number(drafted), cost=number(as_written(tokens_per_step) / as_written(speedup)),
                 reasons=short_step_reasons(proposer), **words)
    if step >= tokens_per_step and one_pass:
        return _("α ≈ {alpha} and c = {c} would pay if checking the drafts were free, but one target forward over {n} "
                 "tokens costs {verify} a one-token forward on the machine that measured it, so a step's forwards (c, "
                 "for the one pass that drafts all K = {k}, plus that forward) cost {step} one-token forwards, more "
                 "than the {tokens} tokens a step buys on average (its mean accepted length)", **words)
    if step >= tokens_per_step:
        return _("α ≈ {alpha} and c = {c} would pay if checking the drafts were free, but one target forward over {n} "
                 "tokens costs {verify} a one-token forward on the machine that measured it, so a step's forwards (K·c plus that "
                 "forward, K = {k}) cost {step} one-token forwards, more than the {tokens} tokens a step buys on "
                 "average (its mean accepted length)", **words)
    return _("by α ≈ {alpha}, c = {c} and the verify cost measured alone (one target forward over {n} tokens costs "
             "{verify} a one-token forward), a step of K = {k} would cost {step} one-token forwards for the {tokens} "
             "tokens it buys on average (its mean accepted length) and pay; in the run the steps took longer than "
             "those costs add up to, and the Where the time goes tab shows their draft, verify and overhead times",
             **words)
