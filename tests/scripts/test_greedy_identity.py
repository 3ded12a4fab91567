"""Greedy speculative output against target-only decoding, prompt by prompt (specviz.scripts.greedy_identity)."""

from __future__ import annotations

import pytest

from specviz.runs.runspec import RunSpec
from specviz.scripts.greedy_identity import identity_report, summary_lines


@pytest.mark.slow
def test_a_greedy_tree_and_chain_equal_target_only_decoding_in_float32(toy):
    """float32 on the toy pair: every prompt's output is the target's, token for token, chain and tree alike (the rule
    is exact; float32 rounds finely enough that these prompts hit no near-tie, which is what the test pins)."""
    prompts = ["hello world", "the cat sat on", "once upon a time"]
    for nodes in (0, 6):
        spec = RunSpec(pair="toy", proposer="draft", k=3, max_new_tokens=24, tree_nodes=nodes, tree_width=2)
        entries = identity_report(spec, prompts, toy)
        assert [e["identical"] for e in entries] == [True] * 3
        assert summary_lines(entries) == ["identical to target-only: 3 of 3"]


def test_a_split_is_reported_with_its_position_gap_and_verdict():
    entries = [{"identical": True},
               {"identical": False, "first_difference": 9, "near_tie": True, "gaps": {"target": {"gap": 0.125}}},
               {"identical": False, "first_difference": 3, "near_tie": False, "gaps": {"target": {"gap": 2.5}}}]
    assert summary_lines(entries) == [
        "identical to target-only: 1 of 3",
        "  prompt 2: parted at new token 9, target top-2 logit gap 0.125 (a near-tie: numerics)",
        "  prompt 3: parted at new token 3, target top-2 logit gap 2.500 (NOT a near-tie)"]


def test_the_docstrings_example_is_the_committed_bfloat16_checks_own_command():
    """The module docstring quotes the command that wrote default-cpu-bf16-tree/greedy-identity.json, shape flags
    included: without them a run takes the shape calibrated for its machine, not the file's tree."""
    import json

    import specviz.scripts.greedy_identity as script
    from specviz.core.paths import BENCHMARKS_DIR

    record = json.loads((BENCHMARKS_DIR / "default-cpu-bf16-tree" / "greedy-identity.json").read_text())
    example = " ".join(script.__doc__.split("\n\n")[1].replace("\\\n", " ").split())
    assert example == record["command"]
    assert record["shape"] == "tree 16x4 depth 4 + lookup 8"
