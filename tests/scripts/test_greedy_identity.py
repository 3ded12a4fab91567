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


def test_the_docstring_counts_the_near_tie_gap_in_bfloat16_steps_as_numerics_sets_it():
    """The docstring once called a near-tie "a bfloat16 step or two" apart while NUMERICS_GAP (0.5) is four steps at
    logits from 16 to 32 (26th read): the step and the count it quotes are worked out here from bfloat16 itself."""
    import torch

    from specviz.engine.numerics import NUMERICS_GAP
    from specviz.scripts import greedy_identity

    step = 16 * torch.finfo(torch.bfloat16).eps  # the spacing of bfloat16 numbers in [16, 32)
    assert float(torch.tensor(16 + step, dtype=torch.bfloat16)) == 16 + step  # one step above 16 is representable
    assert float(torch.tensor(16 + step / 2, dtype=torch.bfloat16)) in (16.0, 16 + step)  # half a step is not
    words = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 8: "eight"}
    doc = " ".join(greedy_identity.__doc__.split())
    assert f"`checks.NUMERICS_GAP` ({NUMERICS_GAP:g})" in doc
    steps = words[round(NUMERICS_GAP / step)]
    assert f"{steps} bfloat16 steps for logits from 16 to 32, where a step is {step:g}" in doc
    assert "step or two" not in doc


def test_the_committed_splits_sit_as_many_bfloat16_steps_apart_as_the_docstring_says():
    """"the committed splits sat 0 to 2 steps apart": every top-2 logit gap recorded at a split in the committed
    benchmark files, in steps of 0.125 (bfloat16's spacing from 16 to 32, where their logits lie)."""
    import json

    from specviz.core.paths import BENCHMARKS_DIR
    from specviz.scripts import greedy_identity

    def splits(node):
        if isinstance(node, dict):
            if "top2_logits" in node:
                yield node["top2_logits"]
            for value in node.values():
                yield from splits(value)
        elif isinstance(node, list):
            for value in node:
                yield from splits(value)

    found = [logits for path in sorted(BENCHMARKS_DIR.rglob("*.json"))
             for logits in splits(json.loads(path.read_text(encoding="utf-8")))]
    assert found and all(16 <= logits[0] < 32 for logits in found)
    most = max(round((first - second) / 0.125) for first, second in found)
    assert f"(the committed splits sat 0 to {most} steps apart)" in " ".join(greedy_identity.__doc__.split())



def test_the_heading_shows_a_tree_with_a_times_sign_not_its_json_identifier():
    """Read 55: the script's first line printed the shape's JSON identifier ("tree 16x4 depth 4 + lookup 8", ASCII
    x) where every other printed shape reads 16×4; the record it writes keeps the identifier."""
    from specviz.engine.draft_shape import DraftShape
    from specviz.scripts.greedy_identity import heading

    line = heading("default", "eagle", DraftShape(4, 16, 4, 8), "bfloat16", 1, 64)
    assert "eagle tree 16×4 depth 4 + lookup 8, bfloat16" in line and "16x4" not in line
    assert line.endswith("1 held-out prompt, up to 64 new tokens each")
