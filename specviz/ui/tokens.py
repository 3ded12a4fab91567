"""Token renderers: escaped chips with visible whitespace, exact numbers on hover, and the growing output.

Every function returns an HTML string (plain Python, no streamlit) for `st.html`. Text that came from a model
or a user always goes through `escape_text`, which HTML-escapes it, makes whitespace visible (␣ space, ↵ newline,
⇥ tab) and turns the characters markdown and Streamlit would interpret (* _ # ` [ ] : $ ~ | \\) into entities, so
the result is inert in `st.html` and in `st.markdown(..., unsafe_allow_html=True)` alike.

    >>> escape_text("<b> hi\\n")
    '&lt;b&gt;␣hi↵'
    >>> "line-through" in chip("x", "rejected")
    True

Public API (other pages import it; keep it stable): `visible`, `escape_text`, `escape_label`, `plot_text`, `fmt`,
`chip`, `decision_kind`, `decision_tooltip`, `emitted_tooltip`, `emitted_chips`, `decision_chips`, `output_html`,
`text_html`.
"""

from __future__ import annotations

import html
import math
import unicodedata

from specviz.trace import Decision, EmittedToken, Step, Trace
from specviz.ui.palette import style

WHITESPACE = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍", "\u00a0": "⍽"}
# characters that markdown, LaTeX ($), emoji shortcodes (:) or Streamlit's colour syntax would act on
_MARKDOWN = {c: f"&#{ord(c)};" for c in "*_#`[]:$~|\\!"}


def visible(text: str) -> str:
    """The token text with whitespace shown as glyphs (␣ ↵ ⇥) and other control characters as \\xNN.

    >>> visible(" a\\tb\\n")
    '␣a⇥b↵'
    >>> visible("")
    '∅'
    """
    if text == "":
        return "∅"
    out = []
    for ch in text:
        if ch in WHITESPACE:
            out.append(WHITESPACE[ch])
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") or ch == "\ufffd":
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 256 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def escape_text(text: str, *, whitespace: bool = True) -> str:
    """Text from a model or a user, made safe for HTML and markdown (see the module docstring). Each character is
    escaped once: HTML's specials become entities, markdown's become numeric entities.

    >>> escape_text("**bold** # <img src=x onerror=alert(1)>")
    '&#42;&#42;bold&#42;&#42;␣&#35;␣&lt;img␣src=x␣onerror=alert(1)&gt;'
    >>> escape_text("it's")
    'it&#x27;s'
    """
    shown = visible(text) if whitespace else text
    return "".join(_MARKDOWN.get(c) or html.escape(c, quote=True) for c in shown)


def escape_label(text: str) -> str:
    r"""Token text for a widget label or option (which Streamlit renders as markdown, never as HTML): whitespace
    made visible and every markdown character backslash-escaped.

    >>> print(escape_label("**hi** x"))
    \*\*hi\*\*␣x
    """
    return "".join("\\" + c if c in _MARKDOWN or c in "<>&" else c for c in visible(text))


def plot_text(text: str, limit: int = 14) -> str:
    """Token text for a Plotly label (Plotly reads a few HTML tags, so tags are escaped), cut to `limit` characters.

    >>> plot_text("<b>x</b>")
    '&lt;b&gt;x&lt;/b&gt;'
    """
    shown = visible(text)
    shown = shown if len(shown) <= limit else shown[: limit - 1] + "…"
    return html.escape(shown, quote=False)


def _attr(text: str) -> str:
    """A value for an HTML attribute (a tooltip); newlines become &#10;, which browsers show as line breaks."""
    return html.escape(text, quote=True).replace("\n", "&#10;")


def fmt(x: float | None, digits: int = 3) -> str:
    """A probability or ratio for people: 3 decimals, ∞ for infinity, – for missing.

    >>> fmt(0.123456), fmt(math.inf), fmt(None), fmt(1e-6)
    ('0.123', '∞', '–', '1.0e-06')
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x != 0 and abs(x) < 10 ** -digits:
        return f"{x:.1e}"
    return f"{x:.{digits}f}"


# ---- tooltips -------------------------------------------------------------------------------------------------


def decision_tooltip(d: Decision) -> str:
    """Plain text for hovering a drafted token: p, q, p/q, min(1, p/q), u and the verdict."""
    lines = [f"draft #{d.position + 1}: {visible(d.text)!s}  (id {d.token_id})",
             f"p (target) = {fmt(d.target_prob)}", f"q (draft) = {fmt(d.draft_prob)}",
             f"p/q = {fmt(d.ratio)}", f"min(1, p/q) = {fmt(d.accept_prob)}"]
    if not d.reached:
        lines.append("u: never drawn. An earlier draft was rejected, so this one was not tested.")
    else:
        sign = "<" if d.accepted else "≥"
        verdict = "accepted ✓" if d.accepted else "rejected ✗"
        lines.append(f"u = {fmt(d.uniform)} {sign} {fmt(d.accept_prob)} → {verdict}")
    return "\n".join(lines)


def emitted_tooltip(t: EmittedToken, step_index: int | None = None) -> str:
    """Plain text for hovering an output token: where it came from and its numbers."""
    s = style(t.kind)
    head = f"{s.glyph} {s.label}: {visible(t.text)}  (id {t.token_id})"
    if step_index is not None:
        head += f", step {step_index + 1}"
    lines = [head]
    if t.kind == "accepted":
        ratio = (t.target_prob / t.draft_prob) if t.draft_prob else math.inf
        lines += [f"p (target) = {fmt(t.target_prob)}", f"q (draft) = {fmt(t.draft_prob)}", f"p/q = {fmt(ratio)}",
                  f"min(1, p/q) = {fmt(min(1.0, ratio))}", f"u = {fmt(t.uniform)} < {fmt(min(1.0, ratio))} → kept"]
    elif t.kind == "recovered":
        lines += ["sampled from norm(max(0, p − q)) after the rejection", f"p (target) = {fmt(t.target_prob)}"]
    elif t.kind == "bonus":
        lines += ["sampled from p after all drafts were accepted", f"p (target) = {fmt(t.target_prob)}"]
    else:
        lines += ["sampled from p by one target forward", f"p (target) = {fmt(t.target_prob)}"]
    return "\n".join(lines)


# ---- chips ----------------------------------------------------------------------------------------------------


def chip(text: str, kind: str, tooltip: str = "", *, current: bool = False, size: str = "normal",
         glyph: bool = True) -> str:
    """One token as a coloured chip: glyph + escaped text, struck through when the kind says so.

    `size` is "normal" (drafts of the current step), "large" (projector panels) or "inline" (running text).
    """
    s = style(kind)
    pad, font = {"large": ("4px 10px", "1.35rem"), "inline": ("0 3px", "1rem")}.get(size, ("2px 8px", "1.1rem"))
    deco = "text-decoration:line-through;text-decoration-thickness:2px;" if s.strike else ""
    outline = "outline:3px solid #000;outline-offset:1px;" if current else ""
    border = "1.5px" if size == "inline" else "2px"
    lead = f'<span style="font-size:0.8em;opacity:0.85">{s.glyph}</span>&#8202;' if glyph else ""
    title = f' title="{_attr(tooltip)}"' if tooltip else ""
    return (f'<span{title} data-kind="{s.kind}" style="display:inline-block;padding:{pad};margin:2px 1px;'
            f'border:{border} solid {s.color};border-radius:6px;background:{s.background};color:{s.text_color};'
            f'font-family:ui-monospace,Menlo,Consolas,monospace;font-size:{font};line-height:1.35;'
            f'white-space:pre;{deco}{outline}cursor:help">{lead}{escape_text(text)}</span>')


def decision_kind(d: Decision, revealed: bool = True) -> str:
    """accepted / rejected / not_reached for a decision (drafted while the verdict is hidden)."""
    if not revealed:
        return "drafted"
    if not d.reached:
        return "not_reached"
    return "accepted" if d.accepted else "rejected"


def decision_chips(step: Step, *, revealed: bool = True, size: str = "large") -> str:
    """The drafted tokens of one step as chips, in order, with hover tooltips (verdicts hidden if not revealed)."""
    chips = []
    for d in step.decisions:
        tip = decision_tooltip(d) if revealed else f"draft #{d.position + 1}: {visible(d.text)} (verdict hidden)"
        chips.append(chip(d.text, decision_kind(d, revealed), tip, size=size))
    if not chips:
        return '<span style="color:#6B6B6B">(nothing drafted: the proposer found no guess, so the target ' \
               'emitted one token on its own)</span>'
    return "".join(chips)


def emitted_chips(step: Step, *, size: str = "large") -> str:
    """What one step added to the output, as chips."""
    return "".join(chip(t.text, t.kind, emitted_tooltip(t, step.index), size=size) for t in step.emitted) or \
        '<span style="color:#6B6B6B">(nothing: the generation had already stopped)</span>'


# ---- running text ---------------------------------------------------------------------------------------------


def output_html(trace: Trace, upto: int | None = None, *, current: int | None = None, show_rejected: bool = True,
                show_unreached: bool = False, prompt: bool = False) -> str:
    """The output as it grows: steps 0..upto-1 (all when None); every token is a chip of its kind.

    The first rejected draft of each step is shown struck through at the place it was tried, just before the
    recovered token that replaced it (`show_rejected`); drafts after it (never tested) only with `show_unreached`.
    Step `current` is outlined. Newlines show as ↵ and also break the line. With `prompt`, the prompt text comes
    first, in muted grey.
    """
    steps = trace.steps if upto is None else trace.steps[: max(0, upto)]
    parts = []
    if prompt and trace.prompt_text:
        prompt_text = escape_text(trace.prompt_text, whitespace=False).replace("\n", "&#10;")
        parts.append(f'<span style="color:#6B6B6B;white-space:pre-wrap">{prompt_text}</span><br>')
    for step in steps:
        group = []
        n_acc = step.n_accepted
        for t in step.emitted[:n_acc] if step.decisions else []:
            group.append(_inline(t, step))
        if show_rejected:
            for d in step.decisions[n_acc:]:
                if d.reached or show_unreached:
                    group.append(chip(d.text, decision_kind(d), decision_tooltip(d), size="inline"))
        for t in step.emitted[n_acc:] if step.decisions else step.emitted:
            group.append(_inline(t, step))
        edge = "outline:2px dashed #000;outline-offset:1px;border-radius:4px;" if step.index == current else ""
        parts.append(f'<span title="step {step.index + 1}" style="{edge}margin-right:5px">{"".join(group)}</span>')
    if not steps:
        parts.append('<span style="color:#6B6B6B">(no tokens yet: press Next step)</span>')
    return f'<div style="line-height:2.1;font-size:1rem">{"".join(parts)}</div>'


def _inline(t: EmittedToken, step: Step) -> str:
    html_chip = chip(t.text, t.kind, emitted_tooltip(t, step.index), size="inline", glyph=t.kind != "accepted")
    return html_chip + ("<br>" if "\n" in t.text else "")


def text_html(text: str) -> str:
    """A user's or model's text as an escaped, pre-wrapped block (whitespace kept as is, not as glyphs)."""
    return (f'<div style="white-space:pre-wrap;font-family:ui-monospace,Menlo,Consolas,monospace;'
            f'padding:6px 10px;background:#F6F6F6;border-radius:6px">'
            f'{escape_text(text, whitespace=False).replace(chr(10), "&#10;")}</div>')
