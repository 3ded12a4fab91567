"""The p/q sandbox: its library (closed forms, temperature, simulation) and the page under AppTest."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from streamlit.testing.v1 import AppTest

from specviz.exactness.sandbox import sandbox_step, simulate, tempered
from specviz.pagemap import PAGE_FILES

PAGE = str(Path(__file__).resolve().parent.parent / "pages/sandbox.py")


def test_the_two_parts_add_up_to_p_and_alpha_is_one_minus_tv():
    step = sandbox_step([7, 5, 3, 2, 2, 1], [2, 7, 1, 4, 2, 4], temperature=0.8)
    assert (step.overlap + (1 - step.alpha) * step.residual).tolist() == pytest.approx(step.target_probs.tolist())
    assert step.alpha == pytest.approx(1 - step.tv)
    assert step.target_probs.sum() == pytest.approx(1) and step.draft_probs.sum() == pytest.approx(1)


def test_temperature_sharpens_both_and_moves_acceptance():
    same_top = ([6, 3, 1], [5, 4, 1])
    other_top = ([6, 3, 1], [3, 6, 1])
    assert sandbox_step(*same_top, 0.0).alpha == 1.0  # greedy, same argmax: always kept
    assert sandbox_step(*other_top, 0.0).alpha == 0.0  # greedy, different argmax: never kept
    assert sandbox_step(*same_top, 0.05).alpha > sandbox_step(*same_top, 1.0).alpha > sandbox_step(*other_top, 1.0).alpha
    assert tempered(torch.tensor([0.5, 0.5, 0.0]), 2.0).tolist()[2] == 0.0


@pytest.mark.parametrize("weights", [[1, 2], [0, 0, 0], [1, -1, 2], [float("nan"), 1]])
def test_a_bad_table_is_one_sentence(weights):
    other = [1] * len(weights) if len(weights) > 2 else [1, 1, 1]
    with pytest.raises(ValueError) as info:
        sandbox_step(weights, other)
    assert str(info.value).endswith(".") and "\n" not in str(info.value)


def test_simulated_outputs_follow_p_for_the_exact_rule_and_not_for_accept_all():
    step = sandbox_step([7, 5, 3, 2, 2, 1], [2, 7, 1, 4, 2, 4])
    exact = simulate(step, "exact", 4000, seed=3)
    assert exact.verdict.consistent and exact.accepted_fraction == pytest.approx(step.alpha, abs=0.03)
    assert exact.expected.tolist() == pytest.approx(step.target_probs.tolist())
    broken = simulate(step, "accept_all", 4000, seed=3)
    assert not broken.verdict.consistent and broken.accepted_fraction == 1.0
    assert simulate(step, "exact", 500, seed=9).counts.tolist() == simulate(step, "exact", 500, seed=9).counts.tolist()


def test_the_page_draws_alpha_and_catches_a_broken_rule():
    assert "pages/sandbox.py" in PAGE_FILES
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    assert not at.exception and not at.error
    alpha = float(at.metric[0].value)
    assert alpha == pytest.approx(0.75, abs=1e-3)  # Σ min(p, q) of the default table
    assert any("Consistent with the target" in s.value for s in at.success)
    at.selectbox(key="sandbox_rule").set_value("accept_all").run()
    assert any("Not the target distribution" in e.value for e in at.error)
    at.slider(key="sandbox_temperature").set_value(0.0).run()
    assert not at.exception and float(at.metric[0].value) == 0.0  # the defaults' top tokens differ
