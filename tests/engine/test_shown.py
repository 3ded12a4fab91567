"""The numbers a step panel, hover, CLI line and live quiz show for one draft (`specviz.engine.shown`): the shown p
divided by the shown q, rounded as p/q is written, is the p/q shown."""

from __future__ import annotations

import random
import re

import pytest

from specviz.core.i18n import number, using
from specviz.engine.shown import shown_numbers


def _figures(text: str, trailing_zeros: bool = True) -> int:
    """Significant figures of a number as `fmt` writes it in English ("0.00008" has 1, "8.0400e-05" 5, or 3 without
    its trailing zeros)."""
    mantissa = text.partition("e")[0].replace(",", "").replace(".", "").lstrip("0")
    return len(mantissa if trailing_zeros else mantissa.rstrip("0"))


def _quotient_as_shown(p: str, q: str, ratio: str) -> str:
    """What a reader who divides the shown p by the shown q and rounds as the shown p/q is written gets."""
    value = float(p) / float(q)
    if "e" in ratio:
        return f"{value:.{len(ratio.partition('e')[0].partition('.')[2])}e}"
    return number(value, len(ratio.partition(".")[2]))


@pytest.mark.slow  # about 4 s: make test runs it
def test_the_shown_p_over_q_is_the_shown_p_divided_by_the_shown_q_for_any_p_and_q():
    """Read 53: with at most six decimals more than p/q, p and q missed p/q for 558 of 20,297 random pairs with
    p/q over 100 ("p = 0.184036126, q = 0.000109017, p/q = 1,688.139", where the division gives 1,688.143), and a p
    or q under 10^−decimals lost its exponent at more decimals ("p = 0.000001042, q = 0.077190453, p/q = 1.4e-05",
    1.3499e-05; 8.04e-05 written 0.00008, one figure). Each now keeps its exponent and takes up to 17 significant
    figures, so the division always gives the p/q shown, each shows two figures at least, and none more than the 17
    a float holds (zeros after them aside: p and q share one number of decimals)."""
    rng = random.Random(53)
    pairs = [(10 ** rng.uniform(-9, 0), 10 ** rng.uniform(-9, 0)) for _ in range(1500)]
    pairs += [(rng.uniform(0.01, 1.0), 10 ** rng.uniform(-12, -2)) for _ in range(1000)]  # p/q >= 100, tiny q
    pairs += [(rng.random(), rng.random()) for _ in range(300)]
    pairs += [(0.184036125519404, 0.00010901715560250499), (1.0424929700870077e-06, 0.07719045339198899)]
    assert sum(p / q >= 100 for p, q in pairs) > 1000 and min(q for _, q in pairs) < 1e-11
    missed, few, many = [], [], []
    with using("en"):
        for p, q in pairs:
            if not 0 < q and 0 < p:
                continue
            shown = shown_numbers(p, q, min(1.0, p / q), 0.5)
            if _quotient_as_shown(shown.p, shown.q, shown.ratio) != shown.ratio:
                missed.append((p, q, shown))
            few += [(p, q, shown) for text in (shown.p, shown.q) if _figures(text) < 2]
            many += [(p, q, shown) for text in (shown.p, shown.q) if _figures(text, trailing_zeros=False) > 17]
    assert not missed, (len(missed), missed[:3])
    assert not few and not many, (few[:3], many[:3])


def test_a_p_over_q_over_100_is_followed_by_its_p_and_q_as_the_step_panel_writes_them():
    """Read 53's two examples, as a reader sees them."""
    with using("en"):
        big = shown_numbers(0.184036125519404, 0.00010901715560250499, 1.0, 0.5)
        small = shown_numbers(1.0424929700870077e-06, 0.07719045339198899, 1.3505465044919664e-05, 0.5)
    assert (big.p, big.q, big.ratio) == ("0.184036126", "1.0901716e-04", "1,688.139")
    assert (small.p, small.q, small.ratio) == ("1.0425e-06", "0.077190", "1.4e-05")
    assert re.fullmatch(r"\d\.\d+e-\d\d", small.p)
