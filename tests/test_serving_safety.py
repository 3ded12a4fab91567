"""The Serving lab in front of a public class (issue 28): what a /metrics answer can make the page hold is bounded.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import pytest

from specviz.serving.metrics import MAX_POSITIONS, Delta, parse_scrape
from specviz.ui.charts import figure_table


# ---- what a /metrics answer can make the page hold --------------------------------------------------------------------


@pytest.mark.parametrize("position", ["100000", "1000000000000", "9" * 5000, "-1", "²", "٣", "５", "1e3", " 1",
                                      "0x1", "16", "+1"])
def test_draft_positions_are_bounded_and_ascii(position):
    text = f'vllm:spec_decode_num_drafts_total 10\nvllm:spec_decode_num_accepted_tokens_per_pos_total{{position="{position}"}} 1\n'
    scrape = parse_scrape(text, at=0.0)
    assert len(scrape.accepted_per_position) <= MAX_POSITIONS
    assert scrape.accepted_per_position == ()  # none of these is a position below MAX_POSITIONS in ASCII digits


def test_many_positions_and_bad_values_keep_the_scrape_small_and_finite():
    lines = ["vllm:spec_decode_num_drafts_total 10"]
    lines += [f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{position="{i}"}} 1' for i in range(0, 100_000, 5)]
    lines += ['vllm:spec_decode_num_accepted_tokens_per_pos_total{position="1"} NaN',
              'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="2"} +Inf',
              'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="3"} 1e308',
              'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="3"} 1e308',
              'vllm:spec_decode_num_accepted_tokens_total -1e308', "vllm:generation_tokens_total nan",
              "vllm:" + "x" * 100_000 + " 1"]
    scrape = parse_scrape("\n".join(lines), at=0.0)
    assert len(scrape.accepted_per_position) == MAX_POSITIONS == 16
    assert scrape.accepted_per_position[:6] == (1, 0, 0, 0, 0, 1)  # NaN, inf and 1e308 left out
    assert scrape.accepted == 0 and scrape.generation_tokens == 0  # negative and NaN values are not counted
    assert all(0 <= v < 1e18 for v in scrape.per_position)  # no NaN or inf reaches a chart
    later = parse_scrape("\n".join(lines[:2]), at=1.0)
    assert len(Delta.between(scrape, later).accepted_per_position) == MAX_POSITIONS


def test_the_chart_table_is_linear_in_the_points():
    """A figure of 300,000 distinct x values gives its 60-row table at once (the old list lookup was quadratic)."""
    n = 300_000
    fig = go.Figure([go.Bar(x=[f"p{i}" for i in range(n)], y=list(range(n)), name="bars"),
                     go.Scatter(x=[f"p{i}" for i in range(0, n, 2)], y=[1.0] * (n // 2), name="line")])
    table = figure_table(fig)
    assert isinstance(table, pd.DataFrame) and len(table) == 60 and list(table["x"][:2]) == ["p0", "p1"]
    assert list(table["line"][:2]) == ["1", "–"]
