"""The one place where text from a model or a user is made safe for the screen. Plain Python, no streamlit.

Model output and user input can hold anything: `<img onerror=...>`, `**bold**`, `$x$`, `:smile:`. Where the text
goes decides the escape, so each destination has one function and no page calls `html.escape` itself:

    destination                                   function          whitespace   <  >  &       markdown signs
    st.html, st.markdown(unsafe_allow_html=True)  `escape_text`     ␣ ↵ ⇥        entities      entities
    st.markdown and st.error/warning/... bodies   `escape_markdown` kept         entities      backslashed
    widget labels and options (markdown, no HTML) `escape_label`    ␣ ↵ ⇥        backslashed   backslashed
    a Plotly label (it reads a few HTML tags)      `plot_text`       ␣ ↵ ⇥        entities      kept
    an HTML attribute value (a tooltip)           `escape_attr`     kept, ↵ = &#10;  entities (quotes too)
    a cell of `st.table` (markdown, no HTML)      `escape_cell`     as given     as given      those that act

`visible` (from specviz.core.text) is the plain-text step they share: whitespace and control characters drawn.

    >>> escape_text("<b> hi\\n")
    '&lt;b&gt;␣hi↵'
    >>> print(escape_markdown("**Bob** <i>"), escape_label("**hi** x"), plot_text("<b>x</b>"), sep="  |  ")
    \\*\\*Bob\\*\\* &lt;i&gt;  |  \\*\\*hi\\*\\*␣x  |  &lt;b&gt;x&lt;/b&gt;
"""

from __future__ import annotations

import html
import re

from specviz.core.text import hidden_shown, visible

__all__ = ["escape_attr", "escape_cell", "escape_label", "escape_markdown", "escape_text", "plot_text", "table_text",
           "visible"]

# Signs that act anywhere inside a line: emphasis, code, links, LaTeX ($), emoji shortcodes (:), Streamlit's colour
# syntax (:red[...]), tables (|), strike-through (~), images (!). In HTML-bound text they become numeric entities.
INLINE_MARKDOWN = "*_#`[]:$~|\\!"
_INLINE_ENTITIES = {c: f"&#{ord(c)};" for c in INLINE_MARKDOWN}
# Every sign markdown may act on, line starts included (1. - + # >; = at a line's start, `_SETEXT`): backslash-escaped
# where the text is markdown (> as &gt;, which markdown does not read as a quote).
MARKDOWN_SIGNS = set("\\`*_{}[]()#+-.!|~$:")


def escape_text(text: str, *, whitespace: bool = True) -> str:
    """Text for `st.html` or `st.markdown(..., unsafe_allow_html=True)`: HTML's specials and the inline markdown
    signs become entities, each character escaped once, so the result is inert in both. With `whitespace`, spaces,
    newlines and tabs are drawn (␣ ↵ ⇥); without it they are kept, and the characters that would hide or reorder
    the text (a NUL, a direction override, a zero-width space) are written as escapes (`hidden_shown`).

    >>> escape_text("**bold** # <img src=x onerror=alert(1)>")
    '&#42;&#42;bold&#42;&#42;␣&#35;␣&lt;img␣src=x␣onerror=alert(1)&gt;'
    >>> escape_text("it's $5", whitespace=False)
    'it&#x27;s &#36;5'
    >>> escape_text("a\\n- b\\n2. c", whitespace=False)  # no list: a line's block sign is an entity too
    'a\\n&#45; b\\n2&#46; c'
    >>> escape_text("abc\\u202edef", whitespace=False)  # shown as is, it reads "abcfed"
    'abc&#92;u202edef'
    """
    shown = visible(text) if whitespace else hidden_shown(text)
    inline = "".join(_INLINE_ENTITIES.get(c) or html.escape(c, quote=True) for c in shown)
    return _LINE_START.sub(_line_start_entities, inline)


# What markdown reads at a line's start once newlines are kept (`whitespace=False`): a list's sign or number (- x,
# + x, 1. x, 1) x), a setext heading's or a rule's line (--- ===), an indent of 4 spaces or a tab (a code block).
_LINE_START = re.compile(r"(?m)^(?:[ \t]*(?:[-+]|[0-9]{1,9}[.)])(?=[ \t]|$)|[ \t]*[-=](?=[-= \t]*$)| {4}| {0,3}\t)")


def _line_start_entities(match: re.Match[str]) -> str:
    """A line's block sign (and the indent before it) as numeric entities: shown the same, read as plain text."""
    return "".join(c if c.isdigit() else f"&#{ord(c)};" for c in match[0])


def escape_markdown(text: object) -> str:
    r"""Text (a name, a path, an error sentence) shown literally by `st.markdown`, `st.caption`, `st.error` and the
    other markdown bodies: every markdown sign backslash-escaped, and & < > as entities, so the string stays inert
    even if it is later placed in HTML. Whitespace is kept as it is. Streamlit also turns bare web addresses and
    e-mail addresses into links after the markdown is read (escapes do not stop it), so `unlinked` breaks them
    with an invisible word joiner: a visitor's "https://evil.example" is shown, never clickable.

    >>> print(escape_markdown("**Bob** <script>"))
    \*\*Bob\*\* &lt;script&gt;
    >>> print(escape_markdown("a_b*c $x$ 1. item"))
    a\_b\*c \$x\$ 1\. item
    """
    marked = "".join("\\" + c if c in MARKDOWN_SIGNS else c for c in unlinked(str(text)))
    marked = _SETEXT.sub(r"\1\\=", marked)  # "Title\n===" made a heading: "=" acts only at a line's start
    return html.escape(marked, quote=False)


_SETEXT = re.compile(r"(?m)^([ \t]*)=")


_LINKABLE = re.compile(r"(?i)(?=://|@)|(?<=\bwww)(?=\.)")
WORD_JOINER = "\u2060"


def unlinked(text: str) -> str:
    """Text with an invisible word joiner (U+2060) before every "://" and "@" and after a "www", so the autolinker of
    GitHub-flavoured markdown, the one Streamlit runs (it links "www.", "http://", "https://" and e-mail addresses,
    not a bare "x.example"), finds no web or e-mail address in it; what a reader sees is unchanged. A renderer that
    links bare domain names would still find some.

    >>> unlinked("see https://x.example or www.x.example, a@x.example").count(WORD_JOINER)
    3
    """
    return _LINKABLE.sub(WORD_JOINER, text)


# What markdown acts on inside one table cell: a block marker at its start (a list's "-", "+", "*" or "1.", a
# heading's "# ", a quote's ">", a rule's "="), emphasis, code, math, links, strikethrough and emoji shortcodes.
_CELL_START = re.compile(r"^(\s*)([-+*>=]|#{1,6}(?=\s|$)|\d{1,9}(?=[.)](?:\s|$)))")
_CELL_SIGNS = re.compile(r"([\\`*_\[\]$~&])")  # & too: a token "&lt;" would show as "<" (read 45)
_SHORTCODE = re.compile(r":(?=[\w+-]+:)")  # Streamlit reads ":smile:" after the markdown, so "\:" does not stop it


def escape_cell(text: str) -> str:
    r"""A cell of `st.table`, which reads every cell as GitHub-flavoured markdown (never as HTML, and an entity as
    its character): the signs that would act backslash-escaped (an emoji shortcode's colon as the entity &#58;),
    nothing else, so a number or a verdict stays as it is. A token "-" was drawn as an empty bullet, "$x$" as math
    and ":smile:" as an emoji (read 45).

    >>> print(escape_cell("-"), escape_cell("1."), escape_cell("$x$ :smile: *a*"), escape_cell("#1 ␣the"),
    ...       escape_cell("0.652"), escape_cell("-0.5"), escape_cell("&lt;"), sep="  |  ")
    \-  |  1\.  |  \$x\$ &#58;smile: \*a\*  |  #1 ␣the  |  0.652  |  -0.5  |  \&lt;
    """
    marked = _SHORTCODE.sub("&#58;", _CELL_SIGNS.sub(r"\\\1", text))
    start = _CELL_START.match(marked)
    if start is None or (start[2] in "-+*" and marked[start.end():][:1] not in ("", " ", "\t")):
        return marked
    if start[2][0].isdigit():  # an ordered list's "1." or "1)": the sign after the digits
        cut = start.end()
        return marked[:cut] + "\\" + marked[cut:]
    return marked[:start.end(1)] + "\\" + marked[start.end(1):]


def escape_label(text: str) -> str:
    r"""Token text for a widget label or option, which Streamlit renders as markdown and never as HTML: whitespace
    drawn, every markdown sign and < > & backslash-escaped.

    >>> print(escape_label("**hi** <x>"))
    \*\*hi\*\*␣\<x\>
    """
    return "".join("\\" + c if c in MARKDOWN_SIGNS or c in "<>&" else c for c in unlinked(visible(text)))


def plot_text(text: str, limit: int | None = 14) -> str:
    """Token text for a Plotly label or axis tick (Plotly reads a few HTML tags, so tags are escaped): whitespace
    drawn, cut to `limit` characters with … (None: never cut).

    >>> plot_text("<b>x</b>"), plot_text("a" * 20), plot_text("a" * 20, limit=None) == "a" * 20
    ('&lt;b&gt;x&lt;/b&gt;', 'aaaaaaaaaaaaa…', True)
    """
    return html.escape(shortened(text, limit), quote=False)


def table_text(labels: list[str]) -> list[str]:
    """A chart's token labels (`plot_text`: < > & as entities, for Plotly) as a number table writes them: plain text,
    which `specviz.ui.common.charts.table_cells` escapes for `st.table`. Read 46: the default example's last draft read
    "&lt;|im_end|&gt;" in its tables, entities escaped twice.

    >>> table_text(["#3 &lt;|im_end|&gt;", "a&amp;b"])
    ['#3 <|im_end|>', 'a&b']
    """
    return [html.unescape(label) for label in labels]


def shortened(text: str, limit: int | None = 14) -> str:
    """Token text with its whitespace drawn, cut to `limit` characters with … (None: never cut); not escaped.

    >>> shortened("a b"), shortened("abcdef", limit=4)
    ('a␣b', 'abc…')
    """
    shown = visible(text)
    return shown[: limit - 1] + "…" if limit is not None and len(shown) > limit else shown


def escape_attr(text: str) -> str:
    """A value for an HTML attribute, such as a tooltip's title="...": quotes escaped too; newlines become &#10;,
    which browsers show as line breaks.

    >>> escape_attr('p = "0.5"\\n<u>')
    'p = &quot;0.5&quot;&#10;&lt;u&gt;'
    """
    return html.escape(text, quote=True).replace("\n", "&#10;")
