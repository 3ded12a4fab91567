"""Token text for people, in plain text: whitespace and control characters made visible.

A token is often a lone space, a newline or a byte that is not a character. Shown as it is, it vanishes or breaks
the line; `visible` draws it instead (␣ space, ↵ newline, ⇥ tab, \\xNN for other control bytes). The command line
prints it as is; the app escapes it further for HTML, markdown and charts (specviz.ui.common.escaping).

    >>> visible(" the\\n")
    '␣the↵'
"""

from __future__ import annotations

import unicodedata

WHITESPACE = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍", "\u00a0": "⍽"}
EMPTY = "∅"  # an empty token (some tokenizers decode a partial character to "")


def visible(text: str) -> str:
    """The token text with whitespace shown as glyphs (␣ ↵ ⇥) and other control characters as \\xNN or \\uNNNN.

    >>> visible(" a\\tb\\n")
    '␣a⇥b↵'
    >>> visible("a\\x00b\\ufffd")
    'a\\\\x00b\\\\ufffd'
    >>> visible("")
    '∅'
    """
    if text == "":
        return EMPTY
    out = []
    for ch in text:
        if ch in WHITESPACE:
            out.append(WHITESPACE[ch])
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") or ch == "\ufffd":
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 256 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def template_tokens(tokenizer) -> set[int]:
    """The special tokens a tokenizer's chat template writes (for SmolLM2: <|im_start|> and <|im_end|>); none
    without a tokenizer or a template. The loop cuts a deterministic draft before one; n-gram lookup passes them
    over (specviz.engine.proposers)."""
    template = getattr(tokenizer, "chat_template", None)
    if not isinstance(template, str):
        return set()
    names = getattr(tokenizer, "all_special_tokens", [])
    return {int(i) for name, i in zip(names, getattr(tokenizer, "all_special_ids", [])) if name in template}
