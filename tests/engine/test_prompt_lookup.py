"""specviz's n-gram lookup against transformers' prompt lookup, the bench's twin of "ngram": the two copy after
different matches, as `specviz.engine.proposers.ngram`'s docstring says (read 48: it cited transformers beside a
rule transformers does not follow, and the bench called the twin "the same method")."""

from __future__ import annotations

import torch
from transformers.generation.candidate_generator import PromptLookupCandidateGenerator

from specviz.engine.proposers import ngram
from specviz.engine.proposers.ngram import prompt_lookup
from specviz.labs.bench.cases import CaseRunner

SEQUENCE = [7, 1, 7, 2, 7]  # the last token, 7, occurs twice before: followed by 1, then by 2


def transformers_lookup(sequence: list[int], k: int) -> list[int]:
    """What transformers' prompt lookup proposes, as the bench runs it (`max_matching_ngram_size=3`)."""
    generator = PromptLookupCandidateGenerator(num_output_tokens=k, max_matching_ngram_size=3, max_length=100)
    candidates, _ = generator.get_candidates(torch.tensor([sequence]))
    return candidates[0, len(sequence):].tolist()


def test_specviz_copies_after_the_latest_match_and_transformers_after_the_earliest():
    assert prompt_lookup(SEQUENCE, 1) == [2]
    assert transformers_lookup(SEQUENCE, 1) == [1]


def test_the_docstrings_say_so_and_no_longer_call_the_twin_the_same_method():
    assert "earliest" in ngram.__doc__ and "most recent" in ngram.__doc__
    twin = CaseRunner.has_transformers_twin.__doc__
    assert "same method" not in twin and "earliest" in twin


def test_a_match_near_the_end_proposes_fewer_than_k():
    """The docstring's "up to K": without the overlapping copy, a match that the sequence ends after leaves less."""
    assert prompt_lookup([4, 1, 2, 1, 2], k=5) == [1, 2]
    assert "up to K" in ngram.__doc__
