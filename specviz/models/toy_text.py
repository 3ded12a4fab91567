"""The toy pair's vocabulary and how its text is shown, apart from `pairs` (which imports torch): the Overview,
the step view and the CLI read them without loading a model."""

from __future__ import annotations

from specviz.engine.trace import Trace

TOY_ALPHABET = " abcdefghijklmnopqrstuvwxyz.,!?'"
TOY_UNK_ID = 0  # what the toy tokenizer reads any other character as (a capital, a digit, a colon)
TOY_UNK_TEXT = "<unk>"  # how a step line and a token chip write it (the tokenizer's own decoding of TOY_UNK_ID)


def shown_output(trace: Trace) -> str:
    """What the model wrote, as a reader is shown it (the CLI's text, the Playground's plain answer): the trace's
    output text, except that a toy-pair run's `<unk>` tokens are written where the model wrote them. The output text
    is decoded without special tokens (`TokenTexts.text`) and the toy tokenizer's <unk> is one, so "Copy: the cat"
    at seed 2 printed 38 characters for 40 tokens while its step lines and chips showed '<unk>' (read 51). The toy
    tokenizer writes one character per token, so its text is the tokens' characters in order; the end-of-text token
    writes nothing.

    >>> trace = Trace("speculative", {}, [], [9, 0, 2, 1], [], output_text="g ", meta={"pair": "toy"})
    >>> shown_output(trace)
    'g<unk> '
    """
    if trace.meta.get("pair") != "toy" or TOY_UNK_ID not in trace.output_ids:
        return trace.output_text
    return "".join(TOY_UNK_TEXT if i == TOY_UNK_ID else TOY_ALPHABET[i - 2] if i >= 2 else "" for i in trace.output_ids)
