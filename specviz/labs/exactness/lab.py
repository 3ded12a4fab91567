"""The Exactness lab's experiments, as plain functions on a loaded pair and a `RunSpec`.

    dists = step_distributions(pair, spec)                  # p and q for the first new token after the prompt
    result = one_step_lab(dists, "accept_all", n=2000, seed=0)  # n simulated steps with a rule, n draws from p
    result = engine_lab(pair, spec, "exact", n=400, length=2)  # n whole continuations through the engine

The app caches and draws them (`specviz.ui.exactness.view`); token texts here are raw (`texts`), and whoever shows
them escapes them. The spec's prompt, chat setting, sampling settings, K and seed are the experiment's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

import torch

from specviz.engine import theory
from specviz.labs.exactness.engine import (continuation_samples, exact_first_token_distribution,
                                      exact_two_token_distribution, proposal_distribution)
from specviz.core.i18n import (_, as_written, clause, fewest_digits, ngettext, number, outward, percent_of,
                               small_digits)
from specviz.engine.generation import one_torch_thread
from specviz.engine.sampling import SamplingConfig
from specviz.engine.shown import column_numbers, fmt
from specviz.labs.exactness.experiments import Support, one_step_samples, restrict_support, target_samples
from specviz.labs.exactness.registry import RULES, one_step_distribution
from specviz.labs.exactness.stats import tv_distance
from specviz.models.pairs import Pair
from specviz.runs.running import prompt_ids, proposer_for
from specviz.runs.runspec import RunSpec

SPARSE_ABOVE = 512  # vocabularies larger than this get texts only for the tokens that matter
BARS = 20  # categories worth a bar in a chart


@dataclass
class StepDistributions:
    """p and q for the first new token after the prompt, restricted to the tokens that carry their mass
    (`restrict_support`; the whole vocabulary for the toy pair), with each kept token's id and text."""

    prompt_ids: list[int]
    support: Support
    texts: list[str]  # one per kept token
    proposer: str
    # the tokens left out of the vocabulary, where p and q both give exactly 0 (top-k, top-p): none, or no note
    zero_outside: int = 0

    @property
    def token_ids(self) -> list[int]:
        return self.support.token_ids.tolist()

    @property
    def target_probs(self) -> torch.Tensor:
        return self.support.target_probs

    @property
    def draft_probs(self) -> torch.Tensor:
        return self.support.draft_probs

    @property
    def note(self) -> str:
        s = self.support
        if self.zero_outside:  # read 51 (second): "The 8 outcomes p gives probability 0" at top-k 20 on SmolLM, where
            # 49,132 tokens have p = 0; the test's outcomes are the 28 tokens p or q can give, which nothing said
            return ngettext("Over the {n} token p or q gives a positive probability (the other {rest} tokens of the "
                            "vocabulary have probability 0 under both).",
                            "Over the {n} tokens p or q gives a positive probability (the other {rest} tokens of the "
                            "vocabulary have probability 0 under both).", len(s.token_ids),
                            rest=number(self.zero_outside, 0))
        if s.target_coverage >= 1 - 1e-9 and s.draft_coverage >= 1 - 1e-9:
            return ""
        # a cool temperature can leave one token carrying it all (read 44: "Over the 1 tokens that carry")
        return ngettext("Over the {n} token that carries almost all the mass ({p_share} of p, {q_share} of q), "
                        "renormalised.",
                        "Over the {n} tokens that carry almost all the mass ({p_share} of p, {q_share} of q), "
                        "renormalised.", len(s.token_ids), p_share=percent_of(s.target_coverage, 1, 4),
                        q_share=percent_of(s.draft_coverage, 1, 4))  # read 53: 0.99999952 of q read "100.0000%"


@dataclass
class LabResult:
    """Samples of one experiment, as category ids against the target's distribution over the same categories.
    A category is a token (`ids` holds its id) or, for two-token comparisons, a pair of tokens (`ids` None)."""

    exact_probs: torch.Tensor  # (C,) float64
    texts: list[str]  # (C,) raw text of each category ("" where a large vocabulary's token did not matter)
    ids: list[int] | None  # (C,) token id of each category, or None
    speculative: torch.Tensor  # (n,) category ids
    target_only: torch.Tensor  # (n,)
    acceptance_rate: float  # share of kept drafts in the speculative runs
    note: str
    # compared on two tokens: each category's token ids, (t₁, t₂) or (t₁,) for an end-of-sequence t₁ alone, and ()
    # for "other"; two pairs can decode to one text ("a" + "bc", "ab" + "c"), and the ids keep their bars apart
    outcomes: list[tuple[int, ...]] | None = None

    def counts(self) -> tuple[torch.Tensor, torch.Tensor]:
        """How often each category came out, (C,) each: with the rule (speculative), and by the target alone."""
        size = self.exact_probs.shape[0]
        return torch.bincount(self.speculative, minlength=size), torch.bincount(self.target_only, minlength=size)

    def frequencies(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The same as shares of the samples, (C,) float64 each."""
        spec, plain = self.counts()
        return spec.double() / len(self.speculative), plain.double() / len(self.target_only)


def step_distributions(pair: Pair, spec: RunSpec) -> StepDistributions:
    """p from the target and q from the spec's proposer, at the prompt (a ValueError on bad input)."""
    ids = prompt_ids(spec, pair)
    proposer = proposer_for(spec, pair)
    sampling = _sampling(spec)
    with one_torch_thread(_tiny(pair)):
        p = exact_first_token_distribution(pair.target, ids, sampling)
        q = proposal_distribution(proposer, ids, sampling, pair.target.config.vocab_size, target=pair.target)
    support = restrict_support(p, q)
    texts = [pair.tokenizer.decode([i]) for i in support.token_ids.tolist()]
    return StepDistributions(ids, support, texts, proposer.name, zero_outside(p, q, support))


def zero_outside(p: torch.Tensor, q: torch.Tensor, support: Support) -> int:
    """How many tokens of the vocabulary `support` leaves out where p and q are both exactly 0 (top-k, top-p), when
    it keeps every token either gives a positive probability; else 0 (it keeps the whole vocabulary, or cuts a tail
    of positive mass, which the coverage note says).

    >>> from specviz.labs.exactness.experiments import restrict_support
    >>> p, q = torch.tensor([0.5, 0.5, 0.0, 0.0, 0.0]), torch.tensor([0.0, 0.5, 0.5, 0.0, 0.0])
    >>> zero_outside(p, q, restrict_support(p, q, max_tokens=4)), zero_outside(p, q, restrict_support(p, q))
    (2, 0)
    """
    kept, positive = len(support.token_ids), int(((p > 0) | (q > 0)).sum())
    return p.shape[-1] - kept if positive == kept < p.shape[-1] else 0


def one_step_lab(dists: StepDistributions, rule: str, n: int, seed: int) -> LabResult:
    """n simulated single steps (K = 1) with the rule on the real p and q, next to n draws from p."""
    p, q = dists.target_probs, dists.draft_probs
    with one_torch_thread():
        samples = one_step_samples(p, q, rule, n, torch.Generator().manual_seed(seed))
        plain = target_samples(p, n, torch.Generator().manual_seed(seed + 1))
    note = _("One step with K = 1: the draft token comes from q, the rule decides, the first emitted token is "
             "counted")
    if dists.note:
        note = _("{note}. {coverage}", note=note, coverage=dists.note)
    return LabResult(p.double(), dists.texts, dists.token_ids, samples.tokens, plain, samples.acceptance_rate, note)


def engine_lab(pair: Pair, spec: RunSpec, rule: str, n: int, length: int, compare: str = "first") -> LabResult:
    """n continuations of `length` tokens through speculative_generate (with the rule) and autoregressive_generate,
    compared with the target's distribution of their first token (`compare="first"`) or first two tokens ("pair")."""
    if compare not in ("first", "pair"):
        raise ValueError(_("compare must be 'first' or 'pair' (got {compare}).", compare=repr(compare)))
    ids, sampling = prompt_ids(spec, pair), _sampling(spec)
    with one_torch_thread(_tiny(pair)):
        runs = continuation_samples(
            pair.target, proposer_for(spec, pair), ids, n=n, length=length, rule=rule, k=spec.k, sampling=sampling,
            seed=spec.seed, tokenizer=pair.tokenizer)
        if compare == "first":
            p = exact_first_token_distribution(pair.target, ids, sampling)
        else:
            truth = exact_two_token_distribution(pair.target, ids, sampling, tokenizer=pair.tokenizer)
    # the engine drafts at most one token fewer than it can still emit, so a short continuation drafts fewer than K
    most = drafts_per_step(spec.k, length)
    what = ngettext("{n}-token continuations (speculative, drafting at most {k} a step with K = {spec_k}, and "
                    "target-only)", "{n}-token continuations (speculative, drafting at most {k} a step with K = "
                    "{spec_k}, and target-only)", length, k=most, spec_k=spec.k)  # pt: "de 1 token" (read 48)
    if compare == "first":
        firsts = [torch.tensor([s[0] for s in seqs], dtype=torch.int64) for seqs in (runs.speculative,
                                                                                       runs.autoregressive)]
        wanted = _wanted(firsts, p) if p.shape[0] > SPARSE_ABOVE else range(p.shape[0])
        texts = [pair.tokenizer.decode([i]) if i in wanted else "" for i in range(p.shape[0])]
        result = LabResult(p.double(), texts, list(range(p.shape[0])), firsts[0], firsts[1], runs.acceptance_rate,
                           _("{what}, compared on their first token with p (target)", what=what))
    else:
        texts = ["".join(pair.tokenizer.decode([t]) for t in seq) for seq in truth.support]
        result = LabResult(truth.probs, texts + [_("(other)")], None,
                           truth.categorize([s[:2] for s in runs.speculative]),
                           truth.categorize([s[:2] for s in runs.autoregressive]), runs.acceptance_rate,
                           _("{what}, compared on their first two tokens; ground truth {note}", what=what,
                             note=truth.note), outcomes=[*truth.support, ()])
    if spec.k > most:  # Read 46: K = 2 and K = 3 gave the same p-values, and the K slider looked broken
        result = replace(result, note=_("{note}. A larger K drafts no more here: with this seed, every K from {most} "
                                        "up draws these same continuations", note=clause(result.note), most=most))
    return result


def drafts_per_step(k: int, length: int) -> int:
    """The most drafts a step of a `length`-token continuation makes at K = `k`: the engine drafts at most one
    token fewer than it can still emit (`specviz.engine.decoding`), so the first step drafts min(K, length − 1).

    >>> drafts_per_step(4, 2), drafts_per_step(4, 3), drafts_per_step(1, 3)
    (1, 2, 1)
    """
    return max(0, min(k, length - 1))


RULES_TABLE_DIGITS = {"drift (TV)": 4, "kept": 4, "tokens/step": 2, "speedup ×": 2}  # `rules_table`'s decimals
SHARES = ("drift (TV)", "kept")  # the columns that hold a number from 0 to 1 (`share_digits`)


def table_digits(column: str, value: float) -> int:
    """The decimals `rules_table` rounds a column's value to: `RULES_TABLE_DIGITS`, more for a drift that would read
    0 or 1 (`share_digits`) and for a chance of keeping a draft under two significant figures (`chance_digits`).

    >>> table_digits("kept", 0.00034), table_digits("drift (TV)", 0.00034), table_digits("speedup ×", 0.001)
    (5, 4, 2)
    """
    digits = RULES_TABLE_DIGITS[column]
    if column == "kept":
        return chance_digits(value, digits)
    return share_digits(value, digits) if column in SHARES else digits


def share_digits(value: float, digits: int) -> int:
    """The decimals a drift (TV) or a chance of keeping a draft is written with: `digits`, or more where `digits`
    would write one that is neither 0 nor 1 as 0 or 1, two significant figures for a small one (read 55: the top-20
    rule's drift of 0.000011 at temperature 0.2 read "not exact here: its closed form drifts TV = 0.0000", and
    accept iff p ≥ q kept a draft with chance 0.0000 where it was 5.1e-07). Within 1e-12 of 0 or 1 is a float sum's
    noise, as the sandbox's `chance_digits` takes it.

    >>> share_digits(0.2526, 4), share_digits(1.06e-05, 4), share_digits(0.99996, 3), share_digits(1 - 1e-13, 4)
    (4, 6, 5, 4)
    """
    if not 1e-12 < value < 1 - 1e-12:
        return digits
    return fewest_digits(lambda d: as_written(value, d) not in (0.0, 1.0), small_digits(value, digits), 12)


def share_text(value: float, digits: int) -> str:
    """A drift or a chance written with `share_digits`' decimals: never 0 or 1 for one that is neither.

    >>> share_text(1.06e-05, 4), share_text(0.0, 4), share_text(0.75, 3)
    ('0.000011', '0.0000', '0.750')
    """
    return number(value, share_digits(value, digits))


def chance_digits(value: float, digits: int) -> int:
    """The decimals a chance of keeping a draft (a rule's, or β = Σ min(p, q)) is written with: `share_digits`', or
    more until it shows two significant figures, as the step panels write a keep chance (`specviz.engine.shown`).
    Read 55 (second read): accept iff p ≥ q at temperature 0.2 kept a draft with chance 0.00117, written "0.001" in
    its metric beside "0.0012" in the rules table under it.

    >>> chance_digits(0.00117, 3), chance_digits(0.00034, 4), chance_digits(0.747, 3), chance_digits(0.0, 3)
    (4, 5, 3, 3)
    """
    shown = share_digits(value, digits)
    if not 1e-12 < value < 1:
        return shown
    return max(shown, 1 - math.floor(math.log10(value)))


def chance_text(value: float, digits: int) -> str:
    """A chance of keeping a draft written with `chance_digits`' decimals: two significant figures at least.

    >>> chance_text(0.00117, 3), chance_text(0.0715, 3), chance_text(1.0, 3)
    ('0.0012', '0.072', '1.000')
    """
    return number(value, chance_digits(value, digits))


def bounds_text(lower: float, upper: float, digits: int = 3) -> tuple[str, str]:
    """A recorded step's bounds on β (`RecordedStep.alpha_bounds`) as the Exactness lab writes them: one number of
    decimals for both, `digits` or more until each shows two significant figures and none below 1 reads 1 (nor one
    above 0 reads 0), the lower bound rounded down and the upper one up (`core.i18n.outward`), so the written range
    holds the true one. Exact β (the bounds agree) is one number, rounded as `shown.column_numbers` writes it. Read 55:
    they were written with 3 decimals whatever they were, so an upper bound of 0.99996 read "1.000"; then rounded to
    nearest, so a lower bound of 0.2346 read 0.235, above what it bounds.

    >>> bounds_text(0.25, 0.5), bounds_text(0.9994, 0.99996), bounds_text(0.9999, 0.9999)
    (('0.250', '0.500'), ('0.99940', '0.99996'), ('0.9999', '0.9999'))
    >>> bounds_text(0.2346, 0.5004), bounds_text(0.41234, 0.41236), bounds_text(1.0, 1.0)
    (('0.234', '0.501'), ('0.412', '0.413'), ('1.000', '1.000'))
    >>> bounds_text(0.00013, 0.0101), bounds_text(0.0, 0.99999)
    (('1.3e-04', '0.011'), ('0', '0.99999'))
    """
    if lower == upper:
        text = column_numbers([lower], digits)[0]
        return text, text

    def written(value: float, places: int, up: bool) -> str:
        if 0 < abs(value) < 10 ** -digits:  # `fmt` writes it with an exponent and two significant figures
            return fmt(outward(value, Decimal(repr(value)).adjusted() - 1, up), places, exponent_under=digits)
        return fmt(outward(value, -places, up), places, exponent_under=digits)

    def holds(places: int) -> bool:
        texts = written(lower, places, False), written(upper, places, True)
        return (all(abs(x) < 10 ** -digits or abs(x) >= 10 ** (1 - places) for x in (lower, upper) if x)
                and all(text != fmt(1.0, places) for x, text in zip((lower, upper), texts) if x < 1)
                and all(text != fmt(0.0, places) for x, text in zip((lower, upper), texts) if x > 0))

    places = fewest_digits(holds, digits, 12)
    return written(lower, places, False), written(upper, places, True)


def rules_table(target_probs: torch.Tensor, draft_probs: torch.Tensor, k: int, c: float) -> list[dict]:
    """Every rule at this p, q: how far its output drifts from p, its chance of keeping a draft ("kept": the acceptance
    probability β = Σ min(p, q) at this position under the exact rule and resample-from-p, whose test is
    min(1, p/q)), and the mean accepted length and speedup that chance would give at K and c in place of α
    (specviz.engine.theory, i.i.d. keeps assumed). Each number is rounded to `RULES_TABLE_DIGITS` places (more for a
    drift or chance that would read 0 or 1: `share_digits`), the ones the Exactness lab writes it with, as `number`
    rounds (`as_written`: a tie away from zero; read 50 review: Python's round wrote a speedup of 1.125 as 1.12
    beside the metric's 1.13×)."""
    rows = []
    for rule in RULES.values():
        dist, kept = one_step_distribution(rule, target_probs, draft_probs)
        values = {"drift (TV)": tv_distance(dist, target_probs), "kept": kept,
                  "tokens/step": theory.expected_tokens_per_step(min(1.0, kept), k),
                  "speedup ×": theory.expected_speedup(min(1.0, kept), k, c)}
        rows.append({"rule": rule.label, "exact": "✓" if rule.exact else "✗",
                     **{name: as_written(float(value), table_digits(name, float(value)))
                        for name, value in values.items()}})
    return rows


def top_for_bars(target_probs: torch.Tensor, draft_probs: torch.Tensor, n: int = BARS) -> list[int]:
    """The indices worth a bar: the most likely under p or q, never one both give 0 (read 54: at top-k 5 the
    decomposition drew 14 tokens of p = q = 0, picked in no order, as bars of height 0).

    >>> top_for_bars(torch.tensor([0.1, 0.6, 0.3]), torch.tensor([0.7, 0.1, 0.2]), n=2)
    [0, 1]
    >>> top_for_bars(torch.tensor([0.0, 0.6, 0.4]), torch.tensor([0.0, 0.5, 0.5]))
    [1, 2]
    """
    most = torch.maximum(target_probs, draft_probs)
    return [i for i in torch.argsort(most, descending=True)[:n].tolist() if most[i] > 0]


def drop_empty_bars(labels: list[str], *series: torch.Tensor) -> tuple[list[str], list[torch.Tensor], int]:
    """The bars with some mass in at least one of `series` (each (len(labels),)), those series cut to them, and how
    many were dropped: a token p and q both give 0 adds nothing to min(p, q) or max(0, p − q), nor does an
    "(all others)" bucket of such tokens.

    >>> names, kept, dropped = drop_empty_bars(["a", "b", "rest"], torch.tensor([0.5, 0.0, 0.0]),
    ...                                        torch.tensor([0.25, 0.0, 0.0]))
    >>> names, [t.tolist() for t in kept], dropped
    (['a'], [[0.5], [0.25]], 2)
    """
    keep = [i for i in range(len(labels)) if any(float(values[i]) > 0 for values in series)]
    return [labels[i] for i in keep], [values[keep] for values in series], len(labels) - len(keep)


def bucket(values: torch.Tensor, ids: list[int]) -> torch.Tensor:
    """values[ids] followed by the sum of all the others, (len(ids) + 1,).

    >>> bucket(torch.tensor([0.125, 0.5, 0.375]), [1]).tolist()
    [0.5, 0.5]
    """
    picked = values[ids]
    return torch.cat([picked, (values.sum() - picked.sum()).clamp_min(0)[None]])


def _wanted(samples: Sequence[torch.Tensor], probs: torch.Tensor) -> set[int]:
    """For a large vocabulary: the tokens that were sampled or are likely (the only ones worth decoding)."""
    return set(torch.cat(list(samples)).unique().tolist()) | set(torch.topk(probs, BARS).indices.tolist())


def _sampling(spec: RunSpec) -> SamplingConfig:
    return SamplingConfig(spec.temperature, spec.top_k, spec.top_p)


def _tiny(pair: Pair) -> bool:
    """A model small enough that one thread is faster than several."""
    return sum(p.numel() for p in pair.target.parameters()) < 10_000_000
