"""Token text for people, in plain text: whitespace and control characters made visible.

A token is often a lone space, a newline or a byte that is not a character. Shown as it is, it vanishes or breaks
the line; `visible` draws it instead (␣ space, ↵ newline, ⇥ tab, \\xNN for other control bytes). The command line
prints it as is; the app escapes it further for HTML, markdown and charts (specviz.ui.common.escaping).

    >>> visible(" the\\n")
    '␣the↵'
"""

from __future__ import annotations

import unicodedata

from specviz.core.i18n import _

WHITESPACE = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍", "\u00a0": "⍽"}
EMPTY = "∅"  # an empty token (some tokenizers decode a partial character to "")


def visible(text: str) -> str:
    """The token text with whitespace shown as glyphs (␣ ↵ ⇥) and other control characters and other spaces (an em
    space, an ideographic space: they would look like ␣'s absence) as \\xNN, \\uNNNN or, past U+FFFF, \\UNNNNNNNN
    (a tag character written \\ue0001 would read as U+E000 then "1").

    >>> visible(" a\\tb\\n")
    '␣a⇥b↵'
    >>> visible("a\\x00b\\ufffd")
    'a\\\\x00b\\\\ufffd'
    >>> visible("")
    '∅'
    >>> visible("a\\u2003b\\U000e0001")
    'a\\\\u2003b\\\\U000e0001'
    """
    if text == "":
        return EMPTY
    out = []
    for ch in text:
        if ch in WHITESPACE:
            out.append(WHITESPACE[ch])
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Zs") or ch == "\ufffd":
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(ch)
    return "".join(out)


def shortened(text: str, limit: int = 40) -> str:
    """A value a refusal quotes back: at most `limit` characters, a cut one ending in "…" (cut silently, the quote
    would claim the value typed or read was only its start).

    >>> shortened("abc"), shortened("9" * 50)
    ('abc', '999999999999999999999999999999999999999…')
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def width(text: str) -> int:
    """The columns `text` takes in a terminal: a combining mark (an accent written as its own code point) takes
    none, a wide East Asian character two, anything else one; what `ljust` gets wrong for decomposed accents.

    >>> width("aceitação"), width("aceitac\u0327a\u0303o"), width("α"), width("推测")
    (9, 9, 1, 4)
    """
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def pad(text: str, columns: int) -> str:
    """`text` followed by spaces up to `columns` terminal columns (see `width`).

    >>> pad("aceitação", 11) + "|", pad("aceitac\u0327a\u0303o", 11).count(" ")
    ('aceitação  |', 2)
    """
    return text + " " * max(0, columns - width(text))


def template_tokens(tokenizer) -> set[int]:
    """The special tokens a tokenizer's chat template writes (for SmolLM2: <|im_start|> and <|im_end|>); none
    without a tokenizer or a template. The loop cuts a deterministic draft before one; n-gram lookup passes them
    over (specviz.engine.proposers)."""
    template = getattr(tokenizer, "chat_template", None)
    if not isinstance(template, str):
        return set()
    names = getattr(tokenizer, "all_special_tokens", [])
    return {int(i) for name, i in zip(names, getattr(tokenizer, "all_special_ids", [])) if name in template}


def has_control(text: str) -> bool:
    """Whether `text` holds a control character (a NUL, a line break, a tab, DEL or a C1 control): a name that
    holds one is refused, never read as the name without it (a NUL vanishes when shown, so "\\x00" read as empty).

    >>> has_control("Ada"), has_control("a\\x00b"), has_control("a\\nb"), has_control("Zoë")
    (False, True, True, False)
    """
    return any(unicodedata.category(ch) == "Cc" for ch in text)


def control_shown(text: str) -> str:
    """`text` with its control characters written as escapes (\\x00, \\n as \\x0a), the rest as it is: how a refusal
    quotes a name that holds one.

    >>> control_shown("a\\x00b é")
    'a\\\\x00b é'
    """
    return "".join(f"\\x{ord(ch):02x}" if unicodedata.category(ch) == "Cc" else ch for ch in text)


def control_refusal(name: str) -> str | None:
    """The one sentence that refuses a name (a model folder, a Hub id, a quiz file) holding a control character,
    or None when it holds none.

    >>> control_refusal("a\\x00b")
    "The name 'a\\\\x00b' contains a control character (such as a NUL or a line break); please type it as plain text."
    """
    if not has_control(name):
        return None
    shown = control_shown(name)  # a long path keeps its end, the part a reader recognises
    return _("The name '{name}' contains a control character (such as a NUL or a line break); please type it as "
             "plain text.", name=shown if len(shown) <= 60 else "…" + shown[-59:])
