"""What a classroom accepts from a person: names (NFKC, invisible characters dropped, look-alike letters folded),
titles, join codes, and the one-sentence ClassroomError every refusal raises."""

from __future__ import annotations

import functools
import hashlib
import json
import math
import random
import secrets
import unicodedata
from typing import Any

from specviz.core.i18n import LANGUAGES, N_, _, ngettext, using
from specviz.core.paths import CONFUSABLES_PATH
from specviz.core.text import has_control
from specviz.teach.quiz import CONCEPTS


CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: easy to read off a projector
CODE_LENGTH = 6
NAME_MAX, TITLE_MAX, ANSWER_MAX = 40, 80, 2000


# Characters that show nothing but are not format (Cf) characters: a combining grapheme joiner, Hangul fillers,
# Khmer inherent vowels, the braille blank; variation selectors are tested by range in _invisible.
_BLANK = set("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")


class ClassroomError(ValueError):
    """Something a user did that cannot be done (bad name, unknown code, closed session); one sentence."""


# The titles of a session opened without one (self-paced, teacher-paced), stored in the teacher's language and
# shown in the reader's (`shown_title`); English messages.
DEFAULT_TITLES = (N_("Speculative decoding quiz"), N_("Peer instruction"))
# a ?student= token this store does not hold: made up, mistyped, or a student since removed (read 48: "not valid any
# more" said a made-up token had once been valid; read 53: "not a valid link for this session" named a session the
# link does not name: a token alone names none)
NOT_A_STUDENT_LINK = N_("No student here holds the token in this student link; please join again with the join "
                        "code.")
# a numeric question's answer that is no number ("forty", "2/5") or one too large: refused in both modes, never stored
# (read 50: a self-paced session stored "forty" as typed and graded it wrong, where a teacher-paced one refused it)
NOT_A_NUMBER = N_("Please answer with a number from −{most} to {most}, like 0.4.")


def shown_title(title: str) -> str:
    """A session's title for the reader: a default title (in whichever language it was stored) in the reader's
    language, any other title as the teacher typed it.

    >>> from specviz.core.i18n import using
    >>> with using("pt"):
    ...     shown_title("Peer instruction"), shown_title("Period 3")
    ('Instrução por pares', 'Period 3')
    """
    for default in DEFAULT_TITLES:
        for code in LANGUAGES:
            with using(code):
                stored = _(default)
            if stored == title:
                return _(default)
    return title


def clean_text(text: Any, what: str, max_length: int) -> str:
    """NFKC-normalised, whitespace-collapsed text without invisible characters (dropped) or control and
    direction-override characters (refused), or ClassroomError. `what` is an English noun marked with N_() (the
    sentences name it in the reader's language).

    >>> clean_text("  Ada \u200b  Lovelace ", "name", 40)
    'Ada Lovelace'
    """
    if not isinstance(text, str) or not text.strip():
        raise ClassroomError(_("Please enter a {what}.", what=_(what)))
    if len(text) > 10 * max_length:  # before normalising: a megabyte sent past the form's max_chars costs nothing
        raise ClassroomError(_too_long(what, max_length))
    text = " ".join(unicodedata.normalize("NFKC", text).split())
    if has_control(text):  # the one check (specviz.core.text): also a model folder's and a quiz file's
        raise ClassroomError(_("The {what} contains control characters; please use plain text.", what=_(what)))
    text = _visible(text)
    if not text:
        raise ClassroomError(_("Please enter a {what}.", what=_(what)))
    if len(text) > max_length:
        raise ClassroomError(_too_long(what, max_length))
    return text


def _too_long(what: str, max_length: int) -> str:
    return _("The {what} is too long: at most {limit} characters, please.", what=_(what), limit=max_length)


def clean_name(text: Any) -> str:
    return clean_text(text, N_("display name"), NAME_MAX)


def name_keys(name: str) -> frozenset[str]:
    """How names are compared within a session: normalised, invisible characters dropped, case ignored, and reduced
    to confusable skeletons (Unicode UTS #39), so a Cyrillic "Аlice", a Greek "Νina" or a "Bob0" is the same name as
    "Alice", "Nina" or "BobO" on the projector. Two names clash when their key sets meet. The skeleton is taken of
    the name as written, lower-cased and upper-cased, because Unicode's prototypes depend on case (Cyrillic "в" looks
    like a small capital B, "В" like B; a lower-case "l" looks like an upper-case "I").

    >>> name_keys("ÉVA") & name_keys("e\u0301va") & name_keys("\u00c9v\u200ba") != set()
    True
    >>> [bool(name_keys(a) & name_keys(b)) for a, b in [("Alice", "\u0410lice"), ("Bob", "\u0412ob"),
    ...     ("Nina", "\u039dina"), ("alice", "ALICE"), ("Ivan", "\u0406van"), ("Ana", "Anna"), ("Li", "Lu")]]
    [True, True, True, True, True, False, False]
    """
    folded = unicodedata.normalize("NFKC", _visible(name))
    return frozenset(unicodedata.normalize("NFKC", skeleton(variant).casefold())
                     for variant in (folded, folded.casefold(), folded.upper()))


def name_key(name: str) -> str:
    """One key of `name_keys` (the lower-cased name's skeleton), for sorting and grouping.

    >>> name_key("ÉVA") == name_key("e\u0301va") == name_key("\u00c9v\u200ba")
    True
    """
    folded = unicodedata.normalize("NFKC", _visible(name).casefold())
    return unicodedata.normalize("NFKC", skeleton(folded).casefold())


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, every character replaced by its prototype from Unicode's confusables data, NFD
    again. Two strings with the same skeleton look alike (it is a key, never text to show).

    >>> skeleton("p\u0430yp\u0430l") == skeleton("paypal"), skeleton("m")
    (True, 'rn')
    """
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in decomposed))


@functools.cache
def _prototypes() -> dict[str, str]:
    """character -> its prototype, from assets/unicode/confusables.json (Unicode's confusables.txt, UTS #39)."""
    return json.loads(CONFUSABLES_PATH.read_text(encoding="utf-8"))["prototypes"]


def concept_name(concept: str) -> str:
    """A concept as a reader knows it: its label in the quiz's concept list (in the reader's language), else the id
    in words.

    >>> concept_name("kv_rollback"), concept_name("my_topic")
    ('KV-cache rollback', 'my topic')
    """
    if CONCEPTS.get(concept):
        return _(CONCEPTS[concept])
    return concept.replace("_", " ").replace("-", " ").strip() or _("(no concept)")


def normalize_code(text: Any) -> str:
    """A join code as typed (any case, spaces or dashes, full-width letters and digits as a phone's Japanese or
    Chinese keyboard types them: NFKC-normalised, read 52) in canonical form, or ClassroomError.

    >>> normalize_code(" abc-234 "), normalize_code("ＡＢＣ－２３４")
    ('ABC234', 'ABC234')
    """
    raw = "".join(unicodedata.normalize("NFKC", str(text or "")).split()).replace("-", "").upper()
    if len(raw) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in raw):
        raise ClassroomError(_("A join code is {length} letters and digits, like {example}; please check it.",
                               length=CODE_LENGTH, example=new_code(random.Random(0))))
    return raw


def new_code(rng: random.Random | None = None) -> str:
    """A random join code from CODE_ALPHABET (cryptographically random unless an `rng` is given)."""
    pick = rng.choice if rng is not None else secrets.choice
    return "".join(pick(CODE_ALPHABET) for _position in range(CODE_LENGTH))


def _invisible(ch: str) -> bool:
    """Format (Cf) and unassigned (Cn) characters, variation selectors and blank-looking letters."""
    return (unicodedata.category(ch) in ("Cf", "Cn") or ch in _BLANK or "\ufe00" <= ch <= "\ufe0f"
            or "\U000e0100" <= ch <= "\U000e01ef")


def _visible(text: str) -> str:
    """NFKC, invisible characters dropped, whitespace (line and paragraph separators too) collapsed."""
    text = "".join(ch for ch in unicodedata.normalize("NFKC", text) if not _invisible(ch))
    return " ".join(text.split())


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _duration(seconds: float) -> str:
    """A wait as a reader wants it: '1 second', '45 seconds', '15 minutes' (rounded up)."""
    whole = max(1, math.ceil(seconds - 1e-9))
    if whole < 120:
        return ngettext("{n} second", "{n} seconds", whole)
    return ngettext("{n} minute", "{n} minutes", math.ceil(whole / 60))
