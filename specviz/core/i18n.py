"""The languages specviz speaks: one `_()` for every sentence a person reads, and numbers written for the reader.

    >>> from specviz.core.i18n import percent, times, using
    >>> with using("pt"):
    ...     times(1.5789), percent(0.457, 1)
    ('1,58×', '45,7%')
    >>> times(1.5789), percent(0.457, 1)
    ('1.58×', '45.7%')

English is the source language: a message is its own English text (gettext's convention), so code reads as the
app does. Portuguese (Brazil) comes from `assets/locale/pt_BR/LC_MESSAGES/specviz.po`, compiled to the `.mo`
next to it (both committed, so a fresh clone works offline; `make i18n` re-extracts and recompiles, and
tests/core/test_i18n.py fails on a message without a translation or with other placeholders).

The language is per context (a `ContextVar`): each Streamlit session runs its script in its own thread, so one
visitor choosing Portuguese never changes another's page. Values go into messages by name, never by
concatenation, so a translation may put them in another order: `_("{kept} of {drafted} kept", kept=3, drafted=4)`.
Token text and model output are never passed through here.
"""

from __future__ import annotations

import errno
import gettext
import math
import os
import re
from collections.abc import Callable, Iterator
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal, localcontext
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache

from babel.lists import format_list
from babel.numbers import format_decimal, format_percent

from specviz.core.paths import LOCALE_DIR
DOMAIN = "specviz"
LANGUAGES = {"en": "English", "pt": "Português"}  # code -> the language's own name (what the switch shows)
DEFAULT_LANGUAGE = "en"
_BABEL_LOCALES = {"en": "en_US", "pt": "pt_BR"}  # code -> the catalog and number-format locale
_current: ContextVar[str] = ContextVar("specviz_language", default=DEFAULT_LANGUAGE)


def language_code(value: object) -> str | None:
    """The supported language a URL value, a browser locale or LANG names, else None.

    >>> [language_code(v) for v in ("pt", "pt-BR", "pt_PT.UTF-8", "EN-us", "fr", "", None)]
    ['pt', 'pt', 'pt', 'en', None, None, None]
    """
    if not isinstance(value, str):
        return None
    head = value.strip().lower().replace("_", "-").split(".")[0].split("-")[0]
    return head if head in LANGUAGES else None


def set_language(code: str) -> None:
    """Speak `code` ("en" or "pt") in this context from now on."""
    checked = language_code(code)
    if checked is None:
        raise ValueError(f"Unknown language '{str(code)[:20]}': use one of {', '.join(LANGUAGES)}.")
    _current.set(checked)


def get_language() -> str:
    return _current.get()


@contextmanager
def using(code: str) -> Iterator[None]:
    """Speak `code` inside the block, then whatever was spoken before."""
    checked = language_code(code)
    if checked is None:
        raise ValueError(f"Unknown language '{str(code)[:20]}': use one of {', '.join(LANGUAGES)}.")
    token = _current.set(checked)
    try:
        yield
    finally:
        _current.reset(token)


@cache
def _catalog(code: str) -> gettext.NullTranslations:
    if code == DEFAULT_LANGUAGE:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[_BABEL_LOCALES[code]], fallback=True)


def _(message: str, **values: object) -> str:
    """`message` in the current language, with its named placeholders filled when values are given. The empty
    message stays empty (gettext would answer it with the catalog's header)."""
    text = _catalog(_current.get()).gettext(message) if message else message
    return text.format(**values) if values else text


def ngettext(singular: str, plural: str, n: int, **values: object) -> str:
    """The singular or plural form for `n` in the current language; `{n}` and the other placeholders filled, `{n}`
    written as a count in the reader's convention (1,024 or 1.024, not 1024).

    >>> ngettext("{n} sequence", "{n} sequences", 1024), ngettext("{n} sequence", "{n} sequences", 1)
    ('1,024 sequences', '1 sequence')
    """
    text = _catalog(_current.get()).ngettext(singular, plural, n)
    return text.format(n=number(n, 0), **values)


def drafts_kept(kept: int, drafted: int) -> str:
    """'3 of 4 drafts kept', '1 of 1 draft kept': the count every page and the CLI use, its noun agreeing with
    `drafted` (issue 42 item 8: '1 drafts'); 'no drafts' for none, which reads better than '0 of 0 drafts kept'
    (and the catalog's old plural rule wrote '0 de 0 palpite mantido')."""
    if not drafted:
        return _("no drafts")
    return ngettext("{kept} of {n} draft kept", "{kept} of {n} drafts kept", drafted, kept=kept)


def N_(message: str) -> str:  # noqa: N802 (gettext's name for "mark for extraction, translate later")
    """Mark a message kept in a constant for extraction; translate it with `_()` where it is shown."""
    return message


# ---- sentences that embed other text ------------------------------------------------------------------------

SENTENCE_ENDS = (".", "!", "?", "…")


def end_sentence(sentence: str, last: str | None = None) -> str:
    """`sentence` with a full stop, unless the text embedded at its end (`last`, else the sentence itself) already
    ends one, so a quoted answer or a note that ends with its own full stop never reads "p..".

    >>> end_sentence("Your answer is in: **the total is p.**", "the total is p.")
    'Your answer is in: **the total is p.**'
    >>> end_sentence("Your answer is in: **4**", "4")
    'Your answer is in: **4**.'
    """
    tail = sentence if last is None else last
    return sentence if tail.rstrip().endswith(SENTENCE_ENDS) else sentence + "."


def clause(text: str) -> str:
    """A note or a sentence without its final full stop, to be embedded before a ". " the message supplies.

    >>> clause("Over 12 tokens, renormalised.")
    'Over 12 tokens, renormalised'
    """
    text = text.rstrip()
    return text[:-1] if text.endswith(".") and not text.endswith("..") else text


# ---- what the operating system said --------------------------------------------------------------------------

# the reasons a file or folder is refused most often, in the reader's language (os.strerror is always English, so a
# Portuguese sentence read "Não é possível gravar o traço em 'x': No such file or directory", 43rd read)
_OS_REASONS = {errno.ENOENT: N_("No such file or directory"), errno.EACCES: N_("Permission denied"),
               errno.EISDIR: N_("Is a directory"), errno.ENOTDIR: N_("Not a directory"),
               errno.ENOSPC: N_("No space left on device"), errno.EROFS: N_("Read-only file system"),
               errno.EPERM: N_("Operation not permitted"), errno.EEXIST: N_("File exists"),
               errno.ENAMETOOLONG: N_("File name too long")}


def os_reason(error: OSError | int) -> str:
    """Why the operating system refused a file (an OSError or its errno), in the current language: the common
    reasons translated, any other in the OS's own words.

    >>> with using("pt"):
    ...     os_reason(errno.ENOENT), os_reason(FileNotFoundError(errno.ENOENT, "No such file or directory"))
    ('Arquivo ou pasta inexistente', 'Arquivo ou pasta inexistente')
    >>> os_reason(errno.EISDIR), os_reason(OSError("odd"))
    ('Is a directory', 'OSError')
    """
    code = error.errno if isinstance(error, OSError) else error
    if code in _OS_REASONS:
        return _(_OS_REASONS[code])
    if isinstance(error, OSError):
        return error.strerror or type(error).__name__
    return os.strerror(code)


# ---- numbers for the reader ---------------------------------------------------------------------------------


MINUS = "\u2212"  # the minus sign every negative number is written with, in both languages (not the hyphen)


def half_up():
    """The decimal context every number is rounded in: a tie rounds away from zero, as a reader rounds by hand
    (babel reads a float as its shortest repr, so 21 / 8 = 2.625 is a tie; the default context's half-even rounding
    wrote it "2.62" and 157 / 200 = 0.785 "0.78": read 50).

    >>> with half_up():
    ...     Decimal("2.625").quantize(Decimal("0.01")), Decimal("-0.785").quantize(Decimal("0.01"))
    (Decimal('2.63'), Decimal('-0.79'))
    """
    return localcontext(rounding=ROUND_HALF_UP)


def number(value: float, digits: int = 2) -> str:
    """A decimal with `digits` places in the reader's convention: 1.58 or 1,58; 12,345.6 or 12.345,6; a negative
    one with the minus sign U+2212 (−0.159, −0,159), not babel's hyphen, and a value that rounds to zero with no
    sign at all (0.00, not −0.00). A value no fixed-point pattern can hold (infinite, not a number, or over 27
    digits with its decimals, which babel's quantize refuses) is written as `_unwritable` writes it, never raised:
    these strings often say what a user typed wrong.

    >>> number(-0.159, 3), number(-0.001), number(float("inf")), number(float("nan")), number(-1e300)
    ('−0.159', '0.00', '∞', 'NaN', '−1e+300')
    """
    if not _fixed_point_holds(value, digits):
        return _unwritable(value)
    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
    with half_up():
        written = format_decimal(value, format=pattern, locale=_BABEL_LOCALES[_current.get()])
    return with_minus(written, keep_negative_zero=False)


def small_digits(value: float, digits: int = 3) -> int:
    """The decimals to write `value` with: `digits`, or, for a value that is not 0 but under 10^−digits (which
    `digits` decimals would write as 0), as many as show its first two significant digits. Read 50: the n-gram runs'
    measured draft cost c = 0.000217 read "c = 0.000", as if the lookup cost nothing.

    >>> small_digits(0.0713), small_digits(0.000217), small_digits(0.0), small_digits(-0.00004), small_digits(0.02, 1)
    (3, 5, 3, 6, 3)
    """
    if not math.isfinite(value) or value == 0 or abs(value) >= 10.0 ** -digits:
        return digits
    return max(digits, 1 - math.floor(math.log10(abs(value))))


def fewest_digits(holds: Callable[[int], bool], start: int, most: int) -> int:
    """The fewest digits from `start` at which `holds(digits)` is true, or `most` where none below it is: the one
    "add digits until the written figures agree" search (read 53: six places wrote it out, and a seventh came).
    `shown.shown_numbers` and `shown.column_numbers` (p, q and table columns), `timeline.speed_decimals` and the
    Speedup table's speeds, the bench report's Costs line, the race chart's seconds, a calibration's
    milliseconds (`calibration.ms_decimals`) and the Exactness tree trap's sentence ask it.

    >>> third = lambda digits: number(1 / 3, digits) != number(0.3334, digits)  # 0.333 vs 0.333, 0.3333 vs 0.3334
    >>> fewest_digits(third, 1, 9), fewest_digits(third, 5, 9), fewest_digits(lambda digits: False, 1, 4)
    (4, 5, 4)
    """
    return next((digits for digits in range(start, most) if holds(digits)), most)


def small_number(value: float, digits: int = 3) -> str:
    """`number(value, digits)`, with two significant digits for a value `digits` decimals would write as 0
    (`small_digits`): a measured c as the Theory and Speedup pages write it.

    >>> small_number(0.0713), small_number(0.000217), small_number(0.0)
    ('0.071', '0.00022', '0.000')
    """
    return number(value, small_digits(value, digits))


def outward(value: float, exponent: int, up: bool) -> float:
    """`value` rounded to a multiple of 10^`exponent`, up (toward +∞) or down (toward −∞), never across it: the end
    of a range written so that the written range still holds the true one (a lower bound rounded down, an upper one
    up). The one directed rounding: the classroom spread's ends (`spread._outward`, six significant figures) and the
    Exactness lab's bounds on β (`lab.bounds_text`, decimal places) use it. 0 and a value that is not finite (or
    would round to one) are returned as they are.

    >>> outward(0.2346, -3, False), outward(0.5001, -3, True), outward(-12.52, -1, False), outward(0.25, -3, True)
    (0.234, 0.501, -12.6, 0.25)
    >>> outward(1.797e308, -3, True), outward(1e-300, -2, False)
    (1.797e+308, 0.0)
    """
    if not value or not math.isfinite(value):
        return value
    with localcontext() as context:
        context.prec = 400  # every float's digits at any exponent a float has: quantize never runs out of them
        rounded = float(Decimal(repr(value)).quantize(Decimal(1).scaleb(exponent),
                                                      rounding=ROUND_CEILING if up else ROUND_FLOOR))
    return rounded + 0.0 if math.isfinite(rounded) else value


def as_written(value: float, digits: int = 2) -> float:
    """`value` as `number(value, digits)` writes it, read back as a float: the figure a reader sees, for a result
    that must follow from it when they recompute it (read 50: the race's α note gave α(1 − α^K) / ((1 − α)K) = 0.55
    beside an α written 0.78, from which it is 0.56). A value `number` cannot write as a decimal is returned as it is.

    >>> as_written(0.7765), as_written(0.4992), as_written(-12345.678, 1), as_written(float("inf"))
    (0.78, 0.5, -12345.7, inf)
    """
    if not _fixed_point_holds(value, digits):
        return value
    return float(_rounded(Decimal(str(value)), digits)) + 0.0  # + 0.0: a value rounded to zero is 0, not −0


def with_minus(text: str, keep_negative_zero: bool = True) -> str:
    """A number already written (by str, repr, a format spec, `localized` or babel) with the minus sign U+2212 in
    place of its leading hyphen, as `number` writes every negative number: a refusal that quotes a typed -1 reads
    "(got −1)", as one that quotes −0.5 through `given` does. A quoted text ('-1', as argparse's own errors quote
    it) is left as it is. A written number that shows no digit but 0 ("-0,00": a negative value rounded to
    zero) keeps its sign as typed unless `keep_negative_zero` is False, when it loses it: `number` writes no sign
    on a zero.

    >>> with_minus("-1"), with_minus("-0,5"), with_minus("3"), with_minus("'-1'"), with_minus("-0")
    ('−1', '−0,5', '3', "'-1'", '−0')
    >>> with_minus("-0,159", keep_negative_zero=False), with_minus("-0,00", keep_negative_zero=False)
    ('−0,159', '0,00')
    """
    if not text.startswith("-"):
        return text
    return MINUS + text[1:] if keep_negative_zero or _nonzero(text) else text[1:]


def _nonzero(text: str) -> bool:
    """Whether a written number shows a digit other than 0 (so did not round to zero)."""
    return any(ch in "123456789" for ch in text)


def signed_delta(shown: str) -> tuple[str, str]:
    """A change as `number` or `percent` wrote it, with its sign in front (U+2212 for a negative, as every number is
    written; "+" otherwise), and its direction for a metric's `delta_arrow`: Streamlit reads a delta's sign only
    from a leading hyphen, so the direction is passed, not guessed from the text ("off" for a change that rounds to
    zero, written with no sign: read 49, the Theory explorer wrote a 0.99994× slowdown's change "+0%", a win).

    >>> signed_delta("−12%"), signed_delta("5%"), signed_delta("0.00")
    (('−12%', 'down'), ('+5%', 'up'), ('0.00', 'off'))
    """
    if shown.startswith(MINUS):
        return shown, "down"
    return ("+" + shown, "up") if _nonzero(shown) else (shown, "off")


_DIGITS = 27  # babel formats in a 28-digit decimal context


def _fixed_point_holds(value: float, digits: int) -> bool:
    try:
        return math.isfinite(value) and abs(value) < 10.0 ** (_DIGITS - max(digits, 0))
    except OverflowError:  # a whole number too large for a float (10**400): math.isfinite cannot even ask
        return False


def _unwritable(value: float) -> str:
    # "an int, not a bool" by hand here and in read_number: core sits under engine, out of limits.is_whole's reach
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**308:
        written = localized(format(Decimal(value).normalize(), ".3g"))  # no float holds it: 1e+400
        return with_minus(written, keep_negative_zero=False)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "∞" if value > 0 else MINUS + "∞"
    return with_minus(localized(f"{value:.3g}"), keep_negative_zero=False)


def given(value: object) -> str:
    """A value a user gave, as a refusal quotes it: a number through `number` with every decimal it came with (a
    whole one grouped, 0.001 not rounded to 0.00), one that needs an exponent (1e-20) with the reader's marks, and
    anything else (a text, True, None) as Python writes it.

    >>> given(1.5), given(12345), given(0.001), given(2.0), given(-1e-20), given(float("nan")), given("2"), given(True)
    ('1.5', '12,345', '0.001', '2', '−1e-20', 'NaN', "'2'", 'True')
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return repr(value)
    if isinstance(value, int) or not math.isfinite(value):
        return number(value, 0)
    short = f"{value:g}"
    text = short if float(short) == value else repr(value)
    if "e" in text:
        if float(f"{value:.3g}") == value:
            return _unwritable(value)
        return with_minus(localized(text), keep_negative_zero=False)
    return number(value, len(text.partition(".")[2]))


def list_separator() -> str:
    """Between the bare numbers of a list: "; " in Portuguese, whose decimal comma would make "12,5, 9,1" ambiguous
    (docs/glossary.pt-BR.md), ", " in English.

    >>> with using("pt"):
    ...     list_separator().join(["0,50", "0,25"])
    '0,50; 0,25'
    """
    return "; " if get_language() == "pt" else ", "


def and_list(items: list[str]) -> str:
    """Phrases as one list inside a sentence, the reader's way: "a and b", "a, b, and c"; "a e b", "a, b e c" in
    Portuguese (a list of bare numbers takes `list_separator`; a semicolon there split a Portuguese sentence in two,
    read 51).

    >>> with using("pt"):
    ...     and_list(["no prompt copy (2,33×)", "no prompt open (1,07×)"])
    'no prompt copy (2,33×) e no prompt open (1,07×)'
    """
    return format_list(list(items), locale=_BABEL_LOCALES[_current.get()]) if items else ""


def percent(fraction: float, digits: int = 0) -> str:
    """A fraction as a percentage: 0.457 -> 46% (or 45.7% with one digit; 45,7% in Portuguese)."""
    if not _fixed_point_holds(fraction * 100, digits):
        return _unwritable(fraction * 100) + "%"
    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "") + "%"
    with half_up():
        written = format_percent(fraction, format=pattern, locale=_BABEL_LOCALES[_current.get()])
    return with_minus(written, keep_negative_zero=False)


def percent_of(part: float, whole: float, digits: int = 0) -> str:
    """`part` of `whole` counted things (or a share of `whole` = 1) as a percentage: whole percents (or `digits`
    decimals), with one more digit at a time where rounding would write 0% or 100% of a share that is neither (a
    class with 299 right answers of 300 read "Right 100%": read 49; a draft's 0.99999952 of q kept read "100.0000%
    of q" beside "almost all the mass": read 53). A share that 6 decimals still write as 0% or 100% is "< 0.000001%"
    or "> 99.999999%", as the Sandbox writes a chance near 0 or 1 (read 55: the toy pair at T = 0.01 left 1e-15 of
    p(t₁) outside the one enumerated first token, and the note read "100.00% of p(t₁)").

    >>> percent_of(2, 3), percent_of(299, 300), percent_of(1, 300), percent_of(300, 300), percent_of(0, 7)
    ('67%', '99.7%', '0.3%', '100%', '0%')
    >>> with using("pt"):
    ...     percent_of(1999, 2000)
    '99,95%'
    >>> percent_of(1502, 2000, 1), percent_of(1999, 2000, 1), percent_of(2000, 2000, 1)
    ('75.1%', '99.95%', '100.0%')
    >>> percent_of(0.99999952, 1, 4), percent_of(0.9943976, 1, 4)
    ('99.99995%', '99.4398%')
    >>> percent_of(1 - 1e-15, 1, 2), percent_of(1e-15, 1, 2)
    ('> 99.999999%', '< 0.000001%')
    """
    fraction = part / whole
    while 0 < part < whole and digits < 6 and _percent_shown(fraction, digits) in (0, 100):
        digits += 1
    if 0 < part < whole and _percent_shown(fraction, digits) in (0, 100):  # past 6 decimals: a bound, not 0 or 100
        cap = 10.0 ** -(digits + 2)  # the least share `digits` decimals write: 1e-8 (0.000001%) at 6
        return "> " + percent(1 - cap, digits) if fraction > 0.5 else "< " + percent(cap, digits)
    return percent(fraction, digits)


def _percent_shown(fraction: float, digits: int) -> Decimal:
    """The percentage `percent(fraction, digits)` writes, as a number in no language: babel reads a float as its
    shortest repr and rounds it with the decimal context (`half_up`), so this does too.

    >>> _percent_shown(0.9995, 1), _percent_shown(0.9995, 2), _percent_shown(0.004, 0)
    (Decimal('100.0'), Decimal('99.95'), Decimal('0'))
    """
    return _rounded(Decimal(str(fraction)).scaleb(2), digits)


def _rounded(value: Decimal, digits: int) -> Decimal:
    """`value` to `digits` decimals as babel rounds it for `number` and `percent` (in `half_up`): the figure they
    write, as a number in no language."""
    with half_up():
        return value.quantize(Decimal(1).scaleb(-digits))


def fixed(value: float, digits: int = 2) -> str:
    """`value` with `digits` decimals in no language (a point, no grouping, a hyphen for a negative), its tie rounded
    half away from zero as `number` rounds it: the English files a run writes (results.md, targets.txt). Python's
    format rounds the binary double, half to even on an exact tie: f"{0.125:.2f}" is "0.12" and f"{2.675:.2f}" is
    "2.67" where `number` writes 0.13 and 2.68 (read 51). A value no fixed-point pattern holds is written as Python
    writes it.

    >>> fixed(0.125), fixed(2.675), fixed(-0.785), fixed(3, 0), fixed(1234.5, 0), fixed(float("inf"))
    ('0.13', '2.68', '-0.79', '3', '1235', 'inf')
    >>> fixed(-0.001), fixed(-0.4, 0)
    ('0.00', '0')
    """
    if not _fixed_point_holds(value, digits):
        return f"{value:.{max(digits, 0)}f}" if isinstance(value, float) else str(value)
    shown = _rounded(Decimal(repr(float(value))), digits)
    return f"{shown if shown else shown.copy_abs():f}"  # a value that rounds to zero has no sign, as `number` writes it


def localized(text: str) -> str:
    """A number a format spec already wrote the English way (0.7, 3.4e-07, 1,234.5), with the reader's marks: the
    one place outside `number` that knows Portuguese swaps the decimal point and the thousands comma.

    >>> localized("3.4e-07")
    '3.4e-07'
    >>> with using("pt"):
    ...     localized("3.4e-07"), localized("1,234.5")
    ('3,4e-07', '1.234,5')
    """
    return text.translate(_SWAP_MARKS) if get_language() == "pt" else text


_SWAP_MARKS = str.maketrans({".": ",", ",": "."})


def times(ratio: float, digits: int = 2) -> str:
    """A speedup or cost ratio: 1.58× (1,58× in Portuguese)."""
    return number(ratio, digits) + "×"


_PLAIN = re.compile(r"[+-]?(?:[0-9]+(?:[.,][0-9]*)?|[.,][0-9]+)")  # 0.35, 0,35, 12, .5: one sign is the decimal one
_GROUPED_EN = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?")  # 12,345.6
_GROUPED_PT = re.compile(r"[+-]?[0-9]{1,3}(?:\.[0-9]{3})+(?:,[0-9]*)?")  # 12.345,6
# a number grouped in thousands as `number` writes it in each language, and its grouping mark; the first group never
# starts with 0, so "0,400" and "0.400" stay decimals
GROUPED = {"en": (re.compile(r"[+-]?[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]*)?"), ","),
           "pt": (re.compile(r"[+-]?[1-9][0-9]{0,2}(?:\.[0-9]{3})+(?:,[0-9]*)?"), ".")}


def with_decimal_point(text: str) -> str:
    """`text` with a lone decimal comma written as a point, so `float()` reads a number typed in either language:
    one comma and no point is a decimal comma; anything else is left as it is.

    >>> with_decimal_point("3,5"), with_decimal_point("3.5"), with_decimal_point("1,234.5"), with_decimal_point("1,2,3")
    ('3.5', '3.5', '1,234.5', '1,2,3')
    """
    return text.replace(",", ".") if text.count(",") == 1 and "." not in text else text


def decimal_text(text: str, language: str | None) -> str:
    """`text` as `float()` reads it, in the one reading the quiz and the labs share: a number grouped in thousands as
    `number` writes it in `language` ("1,500" and "12,345.6" in English, "1.500" and "12.345,6" in Portuguese) loses
    its grouping marks and takes a decimal point; anything else has a lone decimal comma made a point
    (`with_decimal_point`). Where the two conventions disagree the language wins: "1,500" is 1500 in English and
    1.5 in Portuguese. No language (None) reads no grouping.

    >>> decimal_text("1,500", "en"), decimal_text("1,500", "pt"), decimal_text("1.500", "pt")
    ('1500', '1.500', '1500')
    >>> decimal_text("1,500", None)
    '1.500'
    >>> decimal_text("12.345,6", "pt"), decimal_text("0,400", "en"), decimal_text("1,234,567", "en")
    ('12345.6', '0.400', '1234567')
    """
    grouped = GROUPED.get(language_code(language) or "")
    if grouped is not None and grouped[0].fullmatch(text):
        return with_decimal_point(text.replace(grouped[1], ""))  # what is left has one mark at most, the decimal
    return with_decimal_point(text)


def read_number(text: object) -> float:
    """A number as a person types it, in either convention: "0,35" and "0.35" are both 0.35 (a single "." or ","
    is the decimal sign, whichever the reader's language), "12.345,6" and "12,345.6" are 12345.6; a number grouped
    as `number` writes it in the reader's language reads as the quiz reads it (`decimal_text`): "1,500" is 1500 in
    English and 1.5 in Portuguese (read 52: the Sandbox read an English "1,500" as 1.5 where the quiz read 1500).
    Anything else (a word, "nan", "1e5", two signs) is a ValueError with one sentence, in the reader's language.

    >>> read_number("0,35"), read_number(" 0.35 "), read_number("12.345,6"), read_number("−2"), read_number(3)
    (0.35, 0.35, 12345.6, -2.0, 3.0)
    >>> read_number("1,500"), read_number("1.500")
    (1500.0, 1.5)
    >>> with using("pt"):
    ...     read_number("1,500"), read_number("1.500")
    (1.5, 1500.0)
    >>> read_number("abc")
    Traceback (most recent call last):
    ...
    ValueError: 'abc' cannot be read here; write a number like 0.35.
    """
    if isinstance(text, float) and math.isfinite(text):
        return text
    if isinstance(text, int) and not isinstance(text, bool) and abs(text) < 10**308:  # 10**400 has no float
        return float(text)
    typed = str(text).strip().replace("\u2212", "-").replace("\u00a0", "").replace(" ", "")
    if len(typed) <= 40:
        if _PLAIN.fullmatch(read := decimal_text(typed, get_language())):
            return float(read.replace(",", "."))
        if _GROUPED_EN.fullmatch(typed):
            return float(typed.replace(",", ""))
        if _GROUPED_PT.fullmatch(typed):
            return float(typed.replace(".", "").replace(",", "."))
    shown = " ".join(str(text).split())
    shown = shown if len(shown) <= 20 else shown[:19] + "…"
    # not "is not a number": 1e5, 50% and 10**400 are numbers, only not written as this reads them (31st read)
    # quoted as every refusal quotes a text it could not read as a number ('hot'; `typed`), not “abc” (read 50)
    raise ValueError(_("'{text}' cannot be read here; write a number like {example}.", text=shown,
                       example=number(0.35, 2)))
