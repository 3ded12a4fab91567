"""Token text for people, in plain text: whitespace and control characters made visible.

A token is often a lone space, a newline or a byte that is not a character. Shown as it is, it vanishes or breaks
the line; `visible` draws it instead (␣ space, ↵ newline, ⇥ tab, \\xNN for other control bytes). The command line
prints it as is; the app escapes it further for HTML, markdown and charts (specviz.ui.common.escaping).

    >>> visible(" the\\n")
    '␣the↵'
"""

from __future__ import annotations

import math
import unicodedata

from specviz.core.i18n import _, localized, with_minus

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
            out.append(_escape(ch))
        else:
            out.append(ch)
    return "".join(out)


def _escape(ch: str) -> str:
    """One character as \\xNN, \\uNNNN or, past U+FFFF, \\UNNNNNNNN."""
    code = ord(ch)
    return f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


# What running text keeps as it is among the characters `hidden_shown` would write as escapes: its line breaks
# and tabs, and the zero-width joiner and non-joiner that emoji sequences and some scripts (Persian, Hindi) need.
KEPT_IN_TEXT = frozenset("\n\r\t\u200c\u200d")


def hidden_shown(text: str, kept: frozenset[str] = KEPT_IN_TEXT) -> str:
    """Running text (a prompt, what a model wrote) as written, line breaks, tabs and spaces kept, with every character
    that would hide or reorder what is shown written as an escape, as `visible` writes it in a token chip: a control
    character (a NUL, an escape, a form feed), a format character (a direction override such as U+202E, a
    zero-width space, a tag character), a line or paragraph separator, a lone surrogate or a private-use
    character. Shown as it is, "abc\\u202edef" reads "abcfed" and a NUL vanishes (read 50). A name (a Hub id, a
    folder) keeps none of them (`kept=frozenset()`): a zero-width joiner in one is a character the reader cannot see.

    >>> hidden_shown("a\\nb\\tc d\\u202eef\\x00\\u200b")
    'a\\nb\\tc d\\\\u202eef\\\\x00\\\\u200b'
    >>> hidden_shown("Zoë 👩\\u200d💻") == "Zoë 👩\\u200d💻", hidden_shown("a\\u200db\\n", kept=frozenset())
    (True, 'a\\\\u200db\\\\x0a')
    """
    hidden = ("Cc", "Cf", "Cs", "Co", "Zl", "Zp")
    return "".join(_escape(ch) if ch not in kept and unicodedata.category(ch) in hidden else ch
                   for ch in text)


def shortened(text: str, limit: int = 40) -> str:
    """A value a refusal quotes back: at most `limit` characters, a cut one ending in "…" (cut silently, the quote
    would claim the value typed or read was only its start).

    >>> shortened("abc"), shortened("9" * 50)
    ('abc', '999999999999999999999999999999999999999…')
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def typed(text: object, marks: bool = True) -> str:
    """What a user typed where a number belongs (a flag, a link's parameter, a form's field), as a refusal quotes
    it, the way `given` quotes a value: a finite number bare, its digits as typed, with the minus sign U+2212 and,
    with `marks`, the reader's decimal mark; anything else (a word, 1e400, nan) in quotes as Python writes it. One
    way for every refusal: "(got 99)", "(got −1)", "(got 'hot')" (read 50: some quoted a typed number '99', some
    “abc”, some bare).

    >>> typed("99"), typed(" -1 "), typed("3.0"), typed("hot"), typed("1e400"), typed("nan"), typed("４")
    ('99', '−1', '3.0', "'hot'", "'1e400'", "'nan'", "'４'")
    >>> from specviz.core.i18n import using
    >>> with using("pt"):
    ...     typed("0.5"), typed("0.5", marks=False)
    ('0,5', '0.5')
    """
    whole = str(text)
    shown = whole.strip()
    try:
        # float() reads "１" and "٣" too, which no number flag or link takes (read 55): quoted as the words they are
        finite = math.isfinite(float(shown)) and "_" not in shown and shown.isascii()
    except (ValueError, OverflowError):
        finite = False
    if finite and len(shown) <= 30:
        return with_minus(localized(shown) if marks else shown)
    return repr(shortened(whole))


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


# Characters that change the direction of the text around them: embeddings, overrides and isolates (U+202A–U+202E,
# U+2066–U+2069) and the left-to-right and right-to-left marks. In a name they make it read in another order than
# it was typed ("txt.exe" shown as "exe.txt"), and quoted in a sentence they reorder the sentence itself.
BIDI_CONTROLS = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _refused(ch: str) -> bool:
    """A control character (Cc), a lone surrogate (Cs: a byte a file name could not decode), a private-use character
    (Co: no meaning anyone can read off it) or a text-direction control (`BIDI_CONTROLS`)."""
    return unicodedata.category(ch) in ("Cc", "Cs", "Co") or ch in BIDI_CONTROLS


def has_control(text: str) -> bool:
    """Whether `text` holds a control character (a NUL, a line break, a tab, DEL or a C1 control), a lone surrogate,
    a private-use character or a text-direction override (`_refused`): a name that holds one is refused, never read
    as the name without it (a NUL vanishes when shown, so "\\x00" read as empty). The one check: the classroom's
    names and answers, the model folders and Hub ids, and the quiz files all ask it (read 48: the classroom refused
    a right-to-left override that a model folder name let through).

    >>> has_control("Ada"), has_control("a\\x00b"), has_control("a\\nb"), has_control("Zoë")
    (False, True, True, False)
    >>> has_control("model\\u202egguf"), has_control("\\ue000"), has_control("a\\udcffb")
    (True, True, True)
    """
    return any(_refused(ch) for ch in text)


def control_shown(text: str) -> str:
    """`text` with the characters `has_control` refuses written as escapes (\\x00, \\n as \\x0a, \\u202e), the
    rest as it is: how a refusal quotes a name that holds one (a direction override quoted as it is would reorder
    the sentence around it).

    >>> control_shown("a\\x00b é\\u202e")
    'a\\\\x00b é\\\\u202e'
    """
    return "".join(_escape(ch) if _refused(ch) else ch for ch in text)


def control_refusal(name: str) -> str | None:
    """The one sentence that refuses a name (a model folder, a Hub id, a quiz file) holding a character `has_control`
    refuses, or None when it holds none.

    >>> print(control_refusal("a\\x00b"))  # doctest: +NORMALIZE_WHITESPACE
    The name 'a\\x00b' contains a control character (such as a NUL, a line break or a text-direction override);
    please type it as plain text.
    """
    if not has_control(name):
        return None
    shown = control_shown(name)  # a long path keeps its end, the part a reader recognises
    return _("The name '{name}' contains a control character (such as a NUL, a line break or a text-direction "
             "override); please type it as plain text.", name=shown if len(shown) <= 60 else "…" + shown[-59:])


def prompt_refusal(text: str) -> str | None:
    """The sentence that refuses a prompt holding a lone surrogate, or None: a prompt may hold control characters
    (a line break, a tab), but a lone surrogate is no text a tokenizer can encode (read 49: `generate --prompt` with
    a byte that is not UTF-8, which Python's command line reads as one, ended in a tokenizer's TypeError).

    >>> prompt_refusal("a\\n\\tb") is None
    True
    >>> print(prompt_refusal("caf\\udce9"))  # doctest: +NORMALIZE_WHITESPACE
    The prompt is not valid text: it holds U+DCE9, a lone surrogate (what a byte that is not UTF-8 becomes on a
    command line); type it as plain text.
    """
    bad = next((ch for ch in text if unicodedata.category(ch) == "Cs"), None)
    if bad is None:
        return None
    code = f"U+{ord(bad):04X}"  # outside _(): the message extractor reads an f-string in the call as a message
    return _("The prompt is not valid text: it holds {char}, a lone surrogate (what a byte that is not UTF-8 becomes "
             "on a command line); type it as plain text.", char=code)
