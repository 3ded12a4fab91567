"""How far samples are from the truth: total variation distance, its curve against N, and a chi-square test.

`tv_distance` compares two distributions (or counts); `tv_curve` follows it as samples accumulate, next to the
TV an exact sampler is expected to show (`expected_tv_exact`: it shrinks like 1/√N, at a level set by the
distribution: 0.04 for two even outcomes at N = 100, 0.17 for twenty); `chi_square_test` asks whether counts could
be draws from a distribution and answers in one plain sentence (`ChiSquareResult.verdict`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.stats
import torch

from specviz.core.i18n import _, as_written, localized, ngettext, number

ArrayLike = torch.Tensor | np.ndarray | Sequence[float]


def significant(value: float, digits: int = 2) -> str:
    """`value` with `digits` significant figures, written the reader's way (a p-value: 0.0012, 3.4e-07; 0,0012 in
    Portuguese).

    A p-value too small for a float (scipy's chi-square tail underflows to 0.0 near 1e-308) is "< 1e-300": no
    p-value is 0. One just below 1 gets the digits it needs not to read as 1 (a chi-square p-value is 1 only for
    counts that match p exactly; the sandbox said "p-value 1" for 0.998), up to 6, then "> 0.999999".

    >>> significant(0.001234), significant(3.4e-7), significant(0.0), significant(0.9981), significant(1.0)
    ('0.0012', '3.4e-07', '< 1e-300', '0.998', '1')
    """
    if value == 0:
        return "< 1e-300"
    text = f"{value:.{digits}g}"
    while value < 1 and float(text) >= 1:
        if digits >= 6:
            return localized("> 0.999999")
        digits += 1
        text = f"{value:.{digits}g}"
    return localized(text)


VERDICT_LEVELS = (1e-3, 1e-2)  # a p-value below the first: "Not the target distribution"; below the second: borderline


def shown_p_value(value: float) -> str:
    """A chi-square p-value as the verdicts write it: `significant`'s two digits, or more where two would round it
    across a verdict's level (read 46: 0.000996 read "less than once in a thousand runs (chi-square p-value 0.001)",
    and 0.00996 "Borderline (chi-square p-value 0.01)" where 0.01 itself is consistent).

    >>> shown_p_value(0.000996), shown_p_value(0.00996), shown_p_value(0.0012), shown_p_value(0.33)
    ('0.000996', '0.00996', '0.0012', '0.33')
    """
    for digits in range(2, 6):
        shown = float(f"{value:.{digits}g}")  # the figure `significant` writes, before the reader's decimal mark
        if all((shown < level) == (value < level) for level in VERDICT_LEVELS):
            return significant(value, digits)
    return significant(value, 6)


def tv_distance(a: ArrayLike, b: ArrayLike) -> float:
    """Total variation distance ½ Σ |a - b| between two distributions (counts are normalised first).

    >>> tv_distance([0.5, 0.5, 0.0], [0.25, 0.25, 0.5])
    0.5
    >>> tv_distance([30, 10], [0.75, 0.25])
    0.0
    """
    a, b = (torch.as_tensor(x, dtype=torch.float64) for x in (a, b))
    if a.shape != b.shape:
        raise ValueError(_("Both distributions need the same length ({a} vs {b}).", a=a.shape[-1], b=b.shape[-1]))
    return round(0.5 * float((a / a.sum() - b / b.sum()).abs().sum()), 12)


def expected_tv_exact(probs: torch.Tensor | Sequence[float], n: int) -> float:
    """How far n exact samples of `probs` land from it on average: E[TV] = ½ Σ E|X − n p| / n over the outcomes,
    each count X ~ Binomial(n, p), by de Moivre's mean absolute deviation E|X − n p| = 2 m (1 − p) P(X = m),
    m = ⌊n p⌋ + 1. It falls like 1/√N once every likely outcome comes up many times, and is never above 1: the
    normal approximation Σ sqrt(p(1 − p) / (2π n)) it replaced (read 49) drew 3.32 at N = 10 over the toy pair's
    1,123 two-token continuations, a TV no two distributions can have (the exact figure is 0.95).

    >>> round(expected_tv_exact([0.5, 0.5], 1), 3), expected_tv_exact([1.0, 0.0], 10)
    (0.5, 0.0)
    >>> expected_tv_exact([1 / 1000] * 1000, 10) <= 1
    True
    """
    p = np.asarray(torch.as_tensor(probs, dtype=torch.float64), dtype=np.float64)
    p = p / p.sum()
    m = np.floor(n * p) + 1
    mean_abs = 2 * m * (1 - p) * scipy.stats.binom.pmf(m, n, p)  # E|X − n p| per outcome (0 where p is 0 or 1)
    return float(0.5 * mean_abs.sum() / n)


@dataclass
class TVCurve:
    """TV between the empirical distribution of the first n samples and the truth, for growing n."""

    ns: list[int]
    tv: list[float]
    exact_reference: list[float]  # expected TV of an exact sampler at the same n


def tv_curve(samples: torch.Tensor, probs: torch.Tensor, points: int = 12, n_min: int = 10) -> TVCurve:
    """`samples` are category ids (n,) in 0..len(probs)-1; n is spaced logarithmically from n_min to all of them.
    For an exact sampler the TV shrinks like 1/√N; for a lossy one it levels off at the rule's drift."""
    samples = torch.as_tensor(samples, dtype=torch.int64)
    total = int(samples.shape[0])
    if total < 1:
        raise ValueError(_("A TV curve needs at least one sample."))
    probs = torch.as_tensor(probs, dtype=torch.float64)
    ns = sorted({int(round(x)) for x in np.geomspace(min(n_min, total), total, points)})
    tv = [tv_distance(torch.bincount(samples[:m], minlength=probs.shape[0]), probs) for m in ns]
    return TVCurve(ns, tv, [expected_tv_exact(probs, m) for m in ns])


@dataclass
class ChiSquareResult:
    """Pearson's goodness-of-fit test of counts against probabilities, after pooling bins with small expectations.

    `impossible` counts samples on tokens with probability 0: a single one refutes the distribution (p-value 0).
    `pairs`: the outcomes are two-token pairs, or an end-of-sequence first token alone (the Exactness lab compared
    on two tokens), which the verdict names.
    `support` is the number of outcomes with positive probability; `top_expected` the count n p the most likely one
    expects, which tells a test left with one group because every outcome is rare from one left with one group
    because only the most likely is not (the others together expect fewer than `min_expected`). `pooled` is the
    number of outcomes pooled into the last group (0: every outcome is a group of its own), which `grouping` says
    with the statistic and the degrees of freedom, so a reader can recompute the p-value; `left_out` the number of
    outcomes p gives probability 0, which are in no group (`grouping` says so).
    """

    statistic: float
    dof: int
    p_value: float
    n: int
    bins: int
    impossible: int = 0
    support: int = 0
    top_expected: float = 0.0
    min_expected: float = 5.0
    pairs: bool = False
    pooled: int = 0
    left_out: int = 0  # outcomes p gives probability 0: no sample there (one would be `impossible`), not in the test
    tied: int = 0  # outcomes equally likely at the cut between groups of their own and the pool (0: no tie there)
    tied_kept: int = 0  # how many of them are groups of their own: the first in the order p lists them
    tied_expected: float = 0.0  # the count n p each of them expects
    # where pooling leaves one group though the most likely outcome alone is expected `min_expected` times or more:
    # how many samples it got, and `p_value` is then an exact two-sided binomial test of that count against n p, an
    # outcome fixed before sampling (read 54: accept-every-draft at T = 0.05 put all 2,000 samples on a token p gives
    # 0.0012 and was told "Too few samples to test ... draw more samples"); None where no such test ran
    top_count: int | None = None

    @property
    def grouping(self) -> str:
        """How the test grouped the outcomes, with its statistic and degrees of freedom: the p-value is the chance a
        chi-square variable with `dof` degrees of freedom exceeds `statistic` (read 51: compared on two tokens at
        N = 200 the toy pair's 1,123 outcomes became 2 groups, 1 degree of freedom, and nothing said so). Empty where
        no test ran (the verdict says why).

        >>> chi_square_test([52, 48], [0.5, 0.5]).grouping.split(": ")
        ['Chi-square statistic 0.16 over 2 outcomes, each expected at least 5 times in 100 samples', \
'1 degree of freedom (outcomes − 1).']
        >>> pooled = chi_square_test([38, 3, 4, 5], [0.8, 0.06, 0.06, 0.08]).grouping
        >>> pooled[:58], pooled[pooled.index("its own"):]
        ('Chi-square statistic 0.50 with 1 degree of freedom (groups', \
'its own, and the other 3 outcomes are pooled into one group, as the test needs every group expected at least 5 times.')
        """
        if self.impossible or self.dof == 0:
            return ""
        return self._groups(self.shown_statistic) + self._tie() + self._left_out()

    @property
    def shown_statistic(self) -> str:
        """The statistic as `grouping` writes it: two decimals (two significant figures below 0.1), or more where the
        p-value of the statistic as written would not be the one the verdict gives (read 52: the statistic of 15
        and 12 samples of p = ½, ½ read 0.33 beside the verdict's p-value 0.56, where a chi-square variable with 1
        degree of freedom exceeds 0.33 with chance 0.57).

        >>> test = chi_square_test([15, 12], [0.5, 0.5])
        >>> test.shown_statistic, shown_p_value(test.p_value), chi_square_test([52, 48], [0.5, 0.5]).shown_statistic
        ('0.333', '0.56', '0.16')
        """
        if self.statistic == 0:  # counts that match n p exactly (`chi_square_test` clears the float noise)
            return "0"
        wanted = shown_p_value(self.p_value)
        for digits in range(2, 10):
            if self.statistic >= 0.1:
                text, written = number(self.statistic, digits), as_written(self.statistic, digits)
            else:
                text, written = significant(self.statistic, digits), float(f"{self.statistic:.{digits}g}")
            if shown_p_value(float(scipy.stats.chi2.sf(written, self.dof))) == wanted:
                return text
        return text

    def _left_out(self) -> str:
        """The outcomes p gives probability 0, which no group holds (read 51: p ∝ 1, 1, 1, 0, 0, 0 in the sandbox read
        "over 3 outcomes" under a table of 6 tokens, and nothing said where the other 3 went). Compared on two tokens
        (`pairs`) the only such category is "(other)", every pair the enumeration left out: it said "The 1 outcome p
        gives probability 0" of it, a bucket that at top-k 5 holds nearly every pair (second read 51)."""
        if not self.left_out:
            return ""
        if self.pairs:  # read 51: the one category p gives 0 there is "(other)", every continuation not enumerated
            return " " + ngettext("The {count} outcome tested is the only one p gives a positive probability; every "
                                  "other continuation is counted as “(other)”, which has probability 0 and is in no "
                                  "group: a single sample there would refute p on its own.",
                                  "The {count} outcomes tested are all the ones p gives a positive probability; every "
                                  "other continuation is counted as “(other)”, which has probability 0 and is in no "
                                  "group: a single sample there would refute p on its own.", self.support,
                                  count=number(self.support, 0))
        return " " + ngettext("The {count} outcome p gives probability 0 is in no group: a single sample of it would "
                              "refute p on its own.",
                              "The {count} outcomes p gives probability 0 are in no group: a single sample of one "
                              "would refute p on its own.", self.left_out, count=number(self.left_out, 0))

    def _tie(self) -> str:
        """Which of the outcomes tied at the cut are groups of their own (read 54: p = 0.4, 0.4, 0.1, 0.1 at N = 20
        read "the most likely outcome … is a group of its own" where two were equally likely, and which one was kept
        followed NumPy's sort, which is not stable: no rule a reader could be told, nor recompute the statistic by).

        >>> chi_square_test([8, 9, 1, 2], [0.4, 0.4, 0.1, 0.1]).grouping.split(". ")[1]
        '2 outcomes tie at the cut, each expected 8 times: the first of them in the order p lists them is a group of \
its own and the others are pooled (a choice made before sampling, so the test stays valid).'
        """
        if not self.tied:
            return ""
        return " " + ngettext("{tied} outcomes tie at the cut, each expected {expected} times: the first of them in "
                              "the order p lists them is a group of its own and the others are pooled (a choice made "
                              "before sampling, so the test stays valid).",
                              "{tied} outcomes tie at the cut, each expected {expected} times: the first {kept} of "
                              "them in the order p lists them are a group each and the others are pooled (a choice "
                              "made before sampling, so the test stays valid).", self.tied_kept,
                              tied=number(self.tied, 0), kept=number(self.tied_kept, 0),
                              expected=significant(self.tied_expected, 3))

    def _groups(self, stat: str) -> str:
        least, samples = number(self.min_expected, 0), number(self.n, 0)
        if not self.pooled:
            return ngettext("Chi-square statistic {stat} over {bins} outcomes, each expected at least {least} times in "
                            "{samples} samples: {dof} degree of freedom (outcomes − 1).",
                            "Chi-square statistic {stat} over {bins} outcomes, each expected at least {least} times in "
                            "{samples} samples: {dof} degrees of freedom (outcomes − 1).", self.dof, stat=stat,
                            bins=number(self.bins, 0), least=least, samples=samples, dof=number(self.dof, 0))
        return ngettext("Chi-square statistic {stat} with {dof} degree of freedom (groups − 1): the most likely "
                        "outcome, expected at least {least} times in {samples} samples, is a group of its own, and "
                        "the other {pooled} outcomes are pooled into one group, as the test needs every group expected "
                        "at least {least} times.",
                        "Chi-square statistic {stat} with {dof} degrees of freedom (groups − 1): the {dof} most "
                        "likely outcomes, each expected at least {least} times in {samples} samples, are a group "
                        "each, and the other {pooled} outcomes are pooled into one group, as the test needs every "
                        "group expected at least {least} times.", self.dof, stat=stat, dof=number(self.dof, 0),
                        least=least, samples=samples, pooled=number(self.pooled, 0))

    def _binomial_verdict(self) -> str:
        """The verdict where the chi-square test is left with one group but the most likely outcome alone is expected
        often enough: an exact binomial test of its count (`top_count`), which refutes p below the 0.001 level, is
        borderline below 0.01 as a chi-square p-value there is (read 54: 1,992 of 2,000, p-value 0.0033, was told "Too
        few samples"), and else says what it found and that the other outcomes went untested (read 54).

        >>> broken = chi_square_test([0, 2000, 0], [0.9988, 0.0012, 0.0])
        >>> broken.consistent, broken.verdict.split(" (")[0]
        (False, 'Not the target distribution: 0 of 2,000 samples are the most likely outcome, which p expects \
1,997.6 times')
        >>> chi_square_test([1992, 8, 0], [0.9988, 0.0012, 0.0]).verdict.split(":")[0]
        'Borderline (exact binomial test p-value 0.0033)'
        >>> chi_square_test([1995, 5, 0], [0.9988, 0.0012, 0.0]).verdict.split("; ")[1]
        'an exact binomial test of that outcome alone: 1,995 of 2,000 samples, where p expects 1,997.6 (p-value 0.096)'
        """
        count, total = number(self.top_count, 0), number(self.n, 0)
        expected, p_value = number(self.top_expected, 1), shown_p_value(self.p_value)
        if self.p_value < VERDICT_LEVELS[0]:
            # read 54: "1 of 2,000 samples are"; the count decides the verb (pt too)
            return ngettext("Not the target distribution: {count} of {total} samples is the most likely outcome, "
                            "which p expects {expected} times (exact binomial test: a gap this large would happen by "
                            "chance less than once in a thousand runs, p-value {p_value}).",
                            "Not the target distribution: {count} of {total} samples are the most likely outcome, "
                            "which p expects {expected} times (exact binomial test: a gap this large would happen by "
                            "chance less than once in a thousand runs, p-value {p_value}).", self.top_count,
                            count=count, total=total, expected=expected, p_value=p_value)
        if self.p_value < VERDICT_LEVELS[1]:  # read 54: as the chi-square test's borderline, not "Too few samples"
            return ngettext("Borderline (exact binomial test p-value {p_value}): {count} of {total} samples is the "
                            "most likely outcome, which p expects {expected} times; suspicious but not conclusive. "
                            "With {total} samples all the other outcomes together are expected fewer than {least} "
                            "times, too few for the chi-square test; draw more samples.",
                            "Borderline (exact binomial test p-value {p_value}): {count} of {total} samples are the "
                            "most likely outcome, which p expects {expected} times; suspicious but not conclusive. "
                            "With {total} samples all the other outcomes together are expected fewer than {least} "
                            "times, too few for the chi-square test; draw more samples.", self.top_count,
                            count=count, total=total, expected=expected, p_value=p_value,
                            least=number(self.min_expected, 0))
        return _("Too few samples for the chi-square test: with {n} samples only the most likely outcome comes up "
                 "often enough to count, and all the others together are expected fewer than {least} times; an exact "
                 "binomial test of that outcome alone: {count} of {n} samples, where p expects {expected} (p-value "
                 "{p_value}); draw more samples to test the others.", n=total, least=number(self.min_expected, 0),
                 count=count, expected=expected, p_value=p_value)

    @property
    def test(self) -> str | None:
        """Which test gave `p_value`: "chi-square", "exact binomial" (`top_count`: the chi-square test was left with
        one group), "impossible outcome" (a sample p gives probability 0: p-value 0, no statistic computed), or None
        where none ran (one group and no binomial: nothing to test, or too few samples). Read 54: a record wrote the
        binomial's p-value beside "statistic": 0.0, "dof": 0, a chi-square test that never ran, and named no test.

        >>> [chi_square_test(c, p).test for c, p in (([52, 48], [0.5, 0.5]), ([1995, 5, 0], [0.9988, 0.0012, 0.0]),
        ...                                             ([1, 1], [1.0, 0.0]), ([3, 1], [0.5, 0.5]))]
        ['chi-square', 'exact binomial', 'impossible outcome', None]
        """
        if self.impossible:
            return "impossible outcome"
        if self.dof == 0:
            return "exact binomial" if self.top_count is not None else None
        return "chi-square"

    @property
    def consistent(self) -> bool:
        """True when the test finds no evidence against the distribution at the 0.001 level."""
        return self.p_value >= 1e-3

    @property
    def verdict(self) -> str:
        """One plain-language sentence."""
        if self.impossible and self.pairs:  # read 49: an outcome there is a pair (or end-of-sequence alone)
            return ngettext("Not the target distribution: {count} of {total} samples is an outcome the target gives "
                            "probability 0 (an outcome: the first two tokens, or an end-of-sequence first token "
                            "alone).",
                            "Not the target distribution: {count} of {total} samples are outcomes the target gives "
                            "probability 0 (an outcome: the first two tokens, or an end-of-sequence first token "
                            "alone).", self.impossible, count=number(self.impossible, 0),
                            total=number(self.n, 0))
        if self.impossible:
            return ngettext("Not the target distribution: {count} of {total} samples is a token the target gives "
                            "probability 0.",
                            "Not the target distribution: {count} of {total} samples are tokens the target gives "
                            "probability 0.", self.impossible, count=number(self.impossible, 0),
                            total=number(self.n, 0))  # 2,000 (2.000 in Portuguese), not 2000
        if self.dof == 0 and self.support <= 1:
            # "outcome", as the verdicts below: a category is a token or, compared on two tokens, a pair (read 46:
            # two-token continuations at temperature 0 read "all its mass on one token")
            return _("Nothing to test: the target puts all its mass on one outcome, and every sample is that "
                     "outcome.")
        if self.dof == 0 and self.top_count is not None:  # the near-point mass of a low temperature
            return self._binomial_verdict()
        if self.dof == 0 and self.top_expected >= self.min_expected:
            return _("Too few samples to test: with {n} samples only the most likely outcome comes up often enough "
                     "to count; all the others together are expected fewer than {least} times, so everything pools "
                     "into one group; draw more samples.", n=number(self.n, 0), least=number(self.min_expected, 0))
        if self.dof == 0:
            return _("Too few samples to test: with {n} samples every outcome is rare, so they all pool into one "
                     "group; draw more samples.", n=number(self.n, 0))
        p_value = shown_p_value(self.p_value)
        if self.p_value < VERDICT_LEVELS[0]:
            return _("Not the target distribution: a gap this large would happen by chance less than once in a "
                     "thousand runs (chi-square p-value {p_value}).", p_value=p_value)
        if self.p_value < VERDICT_LEVELS[1]:
            return _("Borderline (chi-square p-value {p_value}): suspicious but not conclusive; draw more samples.", p_value=p_value)
        return _("Consistent with the target distribution: the differences are the size chance produces "
                 "(chi-square p-value {p_value}).", p_value=p_value)


def chi_square_test(counts: torch.Tensor | Sequence[int], probs: torch.Tensor | Sequence[float],
                    min_expected: float = 5.0, pairs: bool = False) -> ChiSquareResult:
    """Test whether `counts` (V,) could be draws from `probs` (V,); `pairs`: its outcomes are two-token pairs
    (or an end-of-sequence first token alone).

    Bins whose expected count n p is below `min_expected` are pooled into one bin (the chi-square approximation
    needs it); if that pool is still too small, it absorbs the smallest remaining bins until it is not.

    >>> chi_square_test([52, 48], [0.5, 0.5]).consistent, chi_square_test([90, 10], [0.5, 0.5]).consistent
    (True, False)
    """
    obs = torch.as_tensor(counts, dtype=torch.float64)
    p = torch.as_tensor(probs, dtype=torch.float64)
    if obs.shape != p.shape or obs.dim() != 1:
        raise ValueError(_("counts and probs must be vectors of the same length."))
    n = int(obs.sum())
    if n < 1:
        raise ValueError(_("The chi-square test needs at least one sample."))
    p = p / p.sum()
    impossible, support = int(obs[p <= 0].sum()), int((p > 0).sum())
    if impossible:
        return ChiSquareResult(math.inf, max(support - 1, 0), 0.0, n, support, impossible, support, pairs=pairs)
    expected = (p * n)[p > 0].numpy()
    observed = obs[p > 0].numpy()
    # least likely first; among equally likely outcomes the one p lists last first, so that the pool takes those and
    # a tie cut in two keeps the first listed as groups: a fixed choice, never NumPy's unstable sort (read 54)
    order = np.lexsort((-np.arange(expected.shape[0]), expected))
    small = order[expected[order] < min_expected]
    big = order[expected[order] >= min_expected]
    pool_exp, pool_obs = float(expected[small].sum()), float(observed[small].sum())
    big = list(big)
    pooled = len(small)
    last = None  # the expected count of the last outcome the pool took from the groups
    while len(small) and pool_exp < min_expected and big:
        j = big.pop(0)
        pool_exp += float(expected[j])
        pool_obs += float(observed[j])
        pooled += 1
        last = float(expected[j])
    tied = tied_kept = 0
    if last is not None and big and float(expected[big[0]]) == last:  # the cut falls inside a tie
        tied, tied_kept = int((expected == last).sum()), sum(float(expected[j]) == last for j in big)
    exp_bins = [float(expected[j]) for j in big] + ([pool_exp] if pool_exp > 0 else [])
    obs_bins = [float(observed[j]) for j in big] + ([pool_obs] if pool_exp > 0 else [])
    if len(exp_bins) < 2:
        top = int(np.argmax(expected))  # the most likely outcome, the first p lists where tied: fixed before sampling
        if support < 2 or expected[top] < min_expected:
            return ChiSquareResult(0.0, 0, 1.0, n, len(exp_bins), 0, support, float(expected.max()), min_expected,
                                   pairs)
        # the others together expect fewer than `min_expected`: an exact test of the top outcome's count still works
        count = int(observed[top])
        p_value = float(scipy.stats.binomtest(count, n, float(expected[top]) / n).pvalue)
        return ChiSquareResult(0.0, 0, min(1.0, p_value), n, len(exp_bins), 0, support, float(expected[top]),
                               min_expected, pairs, left_out=int(p.shape[0]) - support, top_count=count)
    stat, p_value = scipy.stats.chisquare(obs_bins, exp_bins)
    if stat < 1e-12:  # counts that match n p exactly leave float noise (2.2e-30, p-value 0.9999999999999988): read 51,
        stat, p_value = 0.0, 1.0  # the sandbox's "statistic 0" sat under "p-value > 0.999999", where chi2.sf(0) is 1
    return ChiSquareResult(float(stat), len(exp_bins) - 1, float(p_value), n, len(exp_bins), 0, support, pairs=pairs,
                           pooled=pooled, left_out=int(p.shape[0]) - support, tied=tied, tied_kept=tied_kept,
                           tied_expected=last if tied else 0.0)
