"""How every place that shows a draft's numbers writes them: `fmt` (one probability or ratio) and `shown_numbers`
(p/q, the chance to keep the draft and u with one number of decimals, p and q with it or the more their quotient
needs, `Shown`).

Plain Python, no Streamlit: the app's step panels (`specviz.ui.common.tokens` re-exports these), the CLI's step lines
and the live quiz all write them here, so a p/q a reader sees follows from the p and q beside it (read 51: the CLI
wrote p = 0.005 beside p/q = 0.085, which the app had since written p = 0.0054; read 52: 0.0054 / 0.0640 is
0.0844, so p and q now take the decimals their quotient needs).

    >>> shown_numbers(0.00544, 0.064, 0.085, 0.026).p
    '0.00544'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from specviz.core.i18n import as_written, fewest_digits, localized, number
from specviz.engine.trace import p_over_q as ratio_of


def fmt(x: float | None, digits: int = 3, figures: int = 2, exponent_under: int | None = None) -> str:
    """A probability or ratio for people: 3 decimals (a decimal comma in Portuguese), ∞ for infinity, – for missing,
    and an exact 0 as "0". The one writer of the step panels' numbers: Read 48 found an exact zero as "0.000" in the
    chips and tables but "0" in the distribution table, which writes the zeros a short top list implies that way.
    "0" says the value is 0, not a rounded one (a nonzero value below the last decimal is written 1.0e-06, with
    `figures` significant figures; with `exponent_under`, one below 10^−exponent_under is, whatever `digits`: p and
    q as `shown_numbers` writes them, read 53).

    >>> fmt(0.123456), fmt(math.inf), fmt(None), fmt(1e-6), fmt(0.0), fmt(0), fmt(1.7712e-6, figures=3)
    ('0.123', '∞', '–', '1.0e-06', '0', '0', '1.77e-06')
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    if abs(x) < 10 ** -(digits if exponent_under is None else exponent_under):
        return localized(f"{x:.{figures - 1}e}")
    return number(x, digits)  # the one locale-aware formatter (read 47)


@dataclass(frozen=True)
class Shown:
    """One draft's numbers as every place that shows them writes them (`shown_numbers`)."""

    p: str
    q: str
    ratio: str  # p/q
    chance: str  # min(1, p/q), or in a tree step's main line min(1, p′/q′)
    u: str


def shown_numbers(target_prob: float | None, draft_prob: float | None, chance: float | None, u: float | None,
                  p_over_q: float | None = math.nan, digits: int = 3) -> Shown:
    """p, q, p/q, the chance to keep the draft and u, written by `fmt` with one number of decimals: `digits`, or
    more (up to 9) where fewer would write two numbers a sentence compares alike though they differ (p and q, the
    chance and u; p/q or the chance as 1 though it is below 1: reads 44 and 46). Read 47: each was written with
    decimals of its own (three helpers, since removed), so one step panel read p = 0.400, q = 0.800, p/q = 0.500
    and min(1, p/q) = 0.50000. Read 51: three decimals give a p or p/q below 0.01 one significant figure, so
    "p = 0.005 < q = 0.064 ... p/q = 0.085" (0.005 / 0.064 is 0.078) and "p/q = 0.001" for 0.0015 did not follow from
    the numbers beside them; p, q, p/q and the chance now get more decimals until each shows two figures at least.
    Read 52: p/q is computed from the unrounded p and q, so "p = 0.0054, q = 0.0640, p/q = 0.0850" (0.0054 / 0.0640
    is 0.0844) still did not follow; p and q now take as many decimals more (up to `MORE_PQ_DIGITS`; significant
    figures where one is written with an exponent) as it takes for the written p ÷ the written q, rounded to p/q's
    decimals, to give the p/q written (`quotient_follows`), as `specviz.labs.timeline.speed_decimals` does for
    speeds. Read 53: six more were not always enough (0.184036126 / 0.000109017 is 1,688.143, not the 1,688.139
    shown), and a p or q with an exponent at p/q's decimals lost figures at more decimals (1.042e-06 became
    0.000001042, 8.0e-05 became 0.00008): such a p or q keeps its exponent with one figure more per digit
    (`_pq_text`), and p and q take up to 17 significant figures, which give p/q itself.
    `draft_prob` is the q the rule used (1 for a point mass); `p_over_q`, where given, the p/q to show (by default
    `specviz.engine.trace.p_over_q(target_prob, draft_prob)`).

    >>> shown_numbers(0.4, 0.8, 0.5, 0.50001)
    Shown(p='0.40000', q='0.80000', ratio='0.50000', chance='0.50000', u='0.50001')
    >>> shown_numbers(0.9997, 1.0, 0.9997, 0.2)
    Shown(p='0.9997', q='1.0000', ratio='0.9997', chance='0.9997', u='0.2000')
    >>> shown_numbers(0.3, 0.1, 1.0, None)
    Shown(p='0.300', q='0.100', ratio='3.000', chance='1.000', u='–')
    >>> shown_numbers(0.00544, 0.064, 0.085, 0.026)
    Shown(p='0.00544', q='0.06400', ratio='0.0850', chance='0.0850', u='0.0260')
    >>> shown_numbers(0.1616, 1.0, 0.1616, 0.99978).u  # a u below 1 is never written 1.000
    '0.9998'
    >>> shown_numbers(0.184036125519404, 0.00010901715560250499, 1.0, 0.5)  # 0.184036126 / 1.0901716e-04 = 1,688.139
    Shown(p='0.184036126', q='1.0901716e-04', ratio='1,688.139', chance='1.000', u='0.500')
    """
    r = ratio_of(target_prob, draft_prob) if isinstance(p_over_q, float) and math.isnan(p_over_q) else p_over_q
    # read 53: u = 0.99978 read "u = 1.000 fell outside", a draw a uniform on [0, 1) never makes: u below 1 too
    pairs = [(target_prob, draft_prob), (chance, u),
             *((x, 1.0) for x in (r, chance, u) if x is not None and 0 < x < 1)]
    places = fewest_digits(lambda n: all(_told_apart(a, b, n) for a, b in pairs)
                           and all(_two_figures(x, n) for x in (target_prob, draft_prob, r, chance)), digits, 9)
    more = fewest_digits(lambda n: _told_apart(target_prob, draft_prob, n, places)
                         and quotient_follows(target_prob, draft_prob, r, n, places), places, places + MORE_PQ_DIGITS)
    return Shown(*(_pq_text(x, more, places) for x in (target_prob, draft_prob)),
                 *(fmt(x, places) for x in (r, chance, u)))


POINT_MASS_Q = "1"  # a q the rule takes as a point mass is exactly 1, written so (as the CLI does; read 52)
# The most digits p and q take beyond p/q's so that their quotient gives it (read 52). 16 more give each 17
# significant figures, which write a float exactly, so p ÷ q always gives the p/q shown (read 53: six more
# missed for p/q over 100 or a tiny p or q; 0.000001042 / 0.077190453 is 1.3499e-05, not the 1.4e-05 shown).
MORE_PQ_DIGITS = 16


def with_point_masses(shown: Shown, p_point_mass: bool, q_point_mass: bool) -> Shown:
    """`shown` with a p or q that is a point mass on the token written "1" (`POINT_MASS_Q`), its exact value, as the
    tree's table writes one (read 53: a lookup chain step's q and a greedy p read "1.000"; which are point masses:
    `specviz.engine.trace.point_mass_pq`).

    >>> with_point_masses(shown_numbers(1.0, 1.0, 1.0, 0.5), True, True)
    Shown(p='1', q='1', ratio='1.000', chance='1.000', u='0.500')
    """
    return replace(shown, p=POINT_MASS_Q if p_point_mass else shown.p, q=POINT_MASS_Q if q_point_mass else shown.q)


def _pq_text(x: float | None, digits: int, places: int) -> str:
    """p or q beside a p/q written with `places` decimals: `digits` decimals, or, for one `places` decimals write
    with an exponent, that exponent with 2 + digits − places significant figures, so each digit more adds precision
    (read 53: at 6 decimals 8.04e-05 was written 0.00008, one figure, and 1.042e-06 0.000001).

    >>> _pq_text(8.04e-05, 3, 3), _pq_text(8.04e-05, 6, 3), _pq_text(0.0054, 6, 4), _pq_text(1.0, 5, 3)
    ('8.0e-05', '8.0400e-05', '0.005400', '1.00000')
    """
    return fmt(x, digits, 2 + digits - places, places)


def written(x: float, digits: int, figures: int = 2, exponent_under: int | None = None) -> float:
    """`x` as `fmt(x, digits, figures, exponent_under)` writes it, read back as a number: 0.0054 for 0.00544 at 4
    decimals, 1e-06 for 1.04e-06 (written 1.0e-06).

    >>> written(0.00544, 4), written(1.04e-06, 3), written(0.0, 3), written(0.12449, 3), written(1.7712e-6, 4, 3)
    (0.0054, 1e-06, 0.0, 0.124, 1.77e-06)
    """
    if x == 0 or not math.isfinite(x):
        return x
    under = digits if exponent_under is None else exponent_under
    return float(f"{x:.{figures - 1}e}") if abs(x) < 10 ** -under else as_written(x, digits)


def quotient_follows(target_prob: float | None, draft_prob: float | None, ratio: float | None, pq_digits: int,
                     ratio_digits: int, rel_tol: float = 1e-9) -> bool:
    """Whether p as written ÷ q as written (at `pq_digits`), written at `ratio_digits` as `fmt` writes p/q, is the
    p/q written: what a reader who checks the division gets (read 52: 0.0054 / 0.0640 is 0.0844, not the 0.0850
    shown beside them). A ratio that is not p/q within `rel_tol` (or none, or ∞) is not checked.

    >>> quotient_follows(0.00544, 0.064, 0.085, 4, 4), quotient_follows(0.00544, 0.064, 0.085, 5, 4)
    (False, True)
    >>> near = 0.085 * (1 + 1e-7)  # p/q of p and q renormalised, as the tree trap's chance is
    >>> quotient_follows(0.00544, 0.064, near, 4, 4), quotient_follows(0.00544, 0.064, near, 4, 4, rel_tol=1e-6)
    (True, False)
    """
    if target_prob is None or draft_prob is None or ratio is None or not math.isfinite(ratio) or draft_prob <= 0 \
            or not math.isclose(ratio, target_prob / draft_prob, rel_tol=rel_tol):
        return True
    figures = 2 + pq_digits - ratio_digits  # a p or q below 10^-ratio_digits gets its added digits as figures
    p, q = (written(x, pq_digits, figures, ratio_digits) for x in (target_prob, draft_prob))
    return q > 0 and fmt(p / q, ratio_digits) == fmt(ratio, ratio_digits)


def column_numbers(values: list[float | None], digits: int = 3) -> list[str]:
    """A column of probabilities written by `fmt` with one number of decimals: `digits`, or more (up to 9) until each
    shows two significant figures at least (`_two_figures`, the rule `shown_numbers` applies to p, q and p/q) and none
    below 1 is written as 1 (`_told_apart`, as `shown_numbers` writes u and the chance). Read 52: a correction table
    wrote 0.00148, 0.00141 and 0.00135 all as "0.001". Read 54: smollm-ngram-t07 step 3's residual wrote 0.99991 as
    "1.000" above tokens of 2.9e-05 and 1.0e-05, a column that adds up to more than 1 and reads as a point mass.

    >>> column_numbers([0.969, 0.00148, 0.00141, 0.001347]), column_numbers([0.5, 0.25, 1e-6, 0.0])
    (['0.9690', '0.0015', '0.0014', '0.0013'], ['0.500', '0.250', '1.0e-06', '0'])
    >>> column_numbers([0.99951, 0.00021]), column_numbers([0.99991, 2.9e-05]), column_numbers([1.0])
    (['0.9995', '2.1e-04'], ['0.9999', '2.9e-05'], ['1.000'])
    """
    # a value below 10^-digits keeps its exponent when more decimals are added to tell one near 1 from 1
    # (0.99951 beside 2.1e-04, not 0.99951005 beside 0.00021393)
    places = fewest_digits(lambda n: all(_two_figures(x, n, digits) for x in values)
                           and all(fmt(x, n, exponent_under=digits) != fmt(1.0, n)
                                   for x in values if x is not None and 0 < x < 1), digits, 9)
    return [fmt(x, places, exponent_under=digits) for x in values]


def _two_figures(x: float | None, digits: int, exponent_under: int | None = None) -> bool:
    """Whether `fmt` at `digits` writes `x` with two significant figures at least: 0, ∞, a missing value and one
    written as 5.8e-04 need none; 0.005 at three decimals has one (read 51). `exponent_under`: the `fmt` argument
    the number is written with (`column_numbers` keeps its first decimals' exponents).

    >>> _two_figures(0.0054, 3), _two_figures(0.0054, 4), _two_figures(0.00054, 3), _two_figures(0.012, 3)
    (False, True, True, True)
    """
    under = digits if exponent_under is None else exponent_under  # below 10^-under `fmt` writes an exponent
    return x is None or x == 0 or not math.isfinite(x) or abs(x) < 10 ** -under or abs(x) >= 10 ** (1 - digits)


def _told_apart(a: float | None, b: float | None, digits: int, places: int | None = None) -> bool:
    """Whether `fmt` at `digits` writes two different numbers differently (two equal or missing ones need not); with
    `places`, as `_pq_text` writes p and q beside a p/q of `places` decimals."""
    if a is None or b is None or a == b:
        return True
    if places is None:
        return fmt(a, digits) != fmt(b, digits)
    return _pq_text(a, digits, places) != _pq_text(b, digits, places)
