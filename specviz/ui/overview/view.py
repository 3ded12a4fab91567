"""The Overview page's pieces: the loop diagram, the rule, the page links and the example that plays.

The example plays token by token: `play_frames` turns a trace into the growing output, one chip at a time (an
accepted draft, the rejected draft struck through, the recovered or bonus token that ends the step), and
`play` draws those frames into one placeholder with a short pause between them.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitAPIException

from specviz.core.i18n import N_, _
from specviz.engine.trace import Step, TokenKind, Trace
from specviz.labs.bench.machine import machine_text
from specviz.labs.examples import get_example, list_examples, load_example
from specviz.teach.pagemap import PAGES
from specviz.ui.common.escaping import escape_text
from specviz.ui.common.palette import legend_html, style
from specviz.engine.proposers import registry
from specviz.ui.common.tokens import chip, decision_kind, decision_tooltip, emitted_tooltip, step_tooltip, text_html

PLAY_SECONDS = 4.0  # the whole animation, however long the example
CONTROL_TOKEN = re.compile(r"<\|[^|<>]{1,40}\|>")  # a chat template's marker, such as <|im_start|>
# page file stem -> what a student finds there (English messages); titles, icons and paths come from the app's page map
NEXT_PAGES = {
    # read 52: said "one decision at a time", but its Next step reveals a whole step, every draft's verdict at once
    "playground": N_("step through real generations one step at a time: what was drafted and what the target kept"),
    "race": N_("race speculative against plain decoding, every step timed on one axis"),
    "exactness": N_("sample speculative and target-only output many times and compare both with the "
                    "probabilities the target computes"),
    "theory": N_("how the acceptance probability α, K and the draft cost c set the expected speedup"),
    "quiz": N_("test yourself"),
}


def next_pages() -> list[tuple[str, str, str, str]]:
    """(path, title, icon, what) for each page the Overview links to, in NEXT_PAGES order (English messages)."""
    known = {Path(path).stem: (path, title, icon) for pages in PAGES.values() for path, title, icon in pages}
    return [(*known[stem], what) for stem, what in NEXT_PAGES.items() if stem in known]


# The diagram's words (English messages; `loop_dot()` fills them in the reader's language, each line break written
# as Graphviz's \n).
LOOP_LABELS = {
    "ctx": N_("text so far"),
    "propose": N_("1. propose\nthe cheap draft\nguesses K tokens\n(probabilities q)"),
    "verify": N_("2. verify\nthe target scores\nK+1 positions (the K\nguesses + the slot\nafter them, where the\n"
                 "bonus comes from)\nin ONE forward pass (p)"),
    "decide": N_("3. accept / reject\nkeep each guess x\nwith probability\nmin(1, p(x) / q(x))"),
    "correct": N_("4. correct\nfirst rejection:\nresample from\nnorm(max(0, p − q))\n(recovered);\nall kept: one "
                  "extra\nfrom p (bonus)"),
    "guesses": N_(" K guesses"),
    "pq": N_(" p and q"),
    "prefix": N_(" the kept prefix"),
    "repeat": N_("append 1 to K+1\ntokens, repeat"),
}
LOOP_TEMPLATE = r"""
digraph loop {
  rankdir=TB; bgcolor="transparent"; pad=0.05; nodesep=0.4; ranksep=0.3;
  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=14, penwidth=1.6, margin="0.12,0.07"];
  edge [fontname="Helvetica", fontsize=12, penwidth=1.4, color="#444444"];
  ctx     [label="{ctx}", fillcolor="#FFFFFF", color="#6B6B6B"];
  propose [label="{propose}", fillcolor="#FFF4DC", color="#E69F00"];
  verify  [label="{verify}", fillcolor="#DDEBF7", color="#0072B2"];
  decide  [label="{decide}", fillcolor="#D3EFE6", color="#009E73"];
  correct [label="{correct}", fillcolor="#F4E1EC", color="#CC79A7"];
  ctx -> propose; propose -> verify [label="{guesses}"]; verify -> decide [label="{pq}"];
  decide -> correct [label="{prefix}"];
  correct -> ctx [label="{repeat}", constraint=false];
}
"""


def loop_dot(labels: dict[str, str] | None = None) -> str:
    """The loop diagram's Graphviz source, in the reader's language: its words `LOOP_LABELS`, or `labels` (English
    messages under the same names, such as the Learn page's lesson 2 words, which name no rule it has not taught)."""
    return _fill(LOOP_TEMPLATE, {name: _(label) for name, label in (labels or LOOP_LABELS).items()})


def _fill(template: str, words: dict[str, str]) -> str:
    """The template with each {name} replaced by its words, written as a Graphviz label (a line break as \\n)."""
    for name, text in words.items():
        template = template.replace("{" + name + "}", text.replace('"', "'").replace("\n", "\\n"))
    return template


LOOP_DOT = _fill(LOOP_TEMPLATE, dict(LOOP_LABELS))  # the English diagram (tests read it)


@dataclass(frozen=True)
class Frame:
    """One moment of the animation: the output HTML so far and a caption about the current step."""

    html: str
    caption: str


def loop_diagram(labels: dict[str, str] | None = None) -> None:
    """The propose → verify → accept/reject → correct loop (rendered by the browser; no external assets). One box
    wide, with short lines, so a phone shows it at its natural size instead of shrinking the text to a few pixels.
    `labels`: other words for its boxes (`loop_dot`)."""
    st.graphviz_chart(loop_dot(labels), width="content")


def page_links() -> None:
    """Links to the pages a student should visit next, wrapping instead of cut off on a narrow screen (every page
    link does: `accessibility.CSS`; a caption when this page runs outside the app)."""
    for path, title, icon, what in next_pages():
        label = _("{page}: {what}", page=_(title), what=_(what))
        try:
            st.page_link(path, label=label, icon=icon)
        except StreamlitAPIException:
            st.caption(label)


def example_name() -> str | None:
    """The example the Overview plays: the shipped one with the most accepted drafts (None if none is shipped).

    That is the example where speculation visibly works: long runs of kept drafts, with a few rejections. Real
    text beats the toy pair's random characters when it has at least 10 accepted drafts, and a trace whose drafts
    are all text beats one recorded when n-gram lookup still drafted the chat template's <|im_start|> (a beginner's
    first struck-through chip should be a word).
    """
    best, best_rank = None, (False, False, -1)
    for example in list_examples():
        spec = load_example(example.name)[0]
        words = not any(CONTROL_TOKEN.fullmatch(d.text.strip()) for s in spec.steps for d in s.decisions)
        rank = (spec.meta.get("pair") != "toy" and spec.num_accepted >= 10, words, spec.num_accepted)
        if rank > best_rank:
            best, best_rank = example.name, rank
    return best


def play_frames(trace: Trace, meanings: dict[TokenKind, str] | None = None) -> list[Frame]:
    """The output growing one chip at a time; the first frame is empty, the last holds the whole output. Each chip's
    hover text gives its numbers (p, q, min(1, p/q), u), or with `meanings` (English messages by kind) only what its
    kind means, for a reader who has not met those yet."""
    done: list[str] = []
    # Read 45: named the button as it reads ("▶ Play the example"); the pt said "▶ Reproduzir", half of its label
    frames = [Frame(_wrap(done), _("Press ▶ Play the example: the output starts empty."))]
    emitted = 0
    for step in trace.steps:
        group: list[str] = []
        for piece, caption in _step_pieces(step, meanings, trace.greedy):
            group.append(piece)
            frames.append(Frame(_wrap(done + [_group(group)]), _("Step {n}: {what}", n=step.index + 1, what=caption)))
        done.append(_group(group))
        emitted += len(step.emitted)
    done_text = _("Done: {tokens} tokens in {steps} steps, that is {steps} target forward passes instead of "
                  "{tokens}, not counting the pass over the prompt both make first.",
                  tokens=emitted, steps=trace.num_steps)
    recorded = recorded_counts(trace, plain=bool(meanings))  # lesson 2's beginner words when it gives `meanings`
    frames.append(Frame(_wrap(done), " ".join(text for text in (done_text, recorded) if text)))
    return frames


def recorded_counts(trace: Trace, plain: bool = False) -> str:
    """Which dtype and machine recorded the counts the Done caption gives, as the trace records them (read 55: "48
    tokens in 25 steps" came from a float32 CPU trace and did not say so, while a bfloat16 run can keep other drafts):
    the machine as `quoted.machine_text` words it, or for an older recording only that it ran on a CPU (`make traces`
    loads every pair on the CPU, as the race's `recorded_note` says). `plain`: the dtype in lesson 1's words ("32-bit
    numbers", as it says "fp16 (16-bit numbers)"), for lesson 2, which comes before the lesson that names float32 and
    bfloat16. "" when the trace records no dtype."""
    dtype = trace.meta.get("dtype")
    if not dtype:
        return ""
    if plain:
        dtype = {"float32": _("32-bit numbers"), "bfloat16": _("16-bit numbers"),
                 "float16": _("fp16 (16-bit numbers)")}.get(str(dtype), dtype)
    machine = machine_text(trace.meta.get("machine") or {})
    if machine:
        return _("Recorded in {dtype} on {machine}; another number format or machine can compute slightly different "
                 "numbers and give other counts.", dtype=dtype, machine=machine)
    return _("Recorded in {dtype} on a CPU this recording does not name; another number format or machine can "
             "compute slightly different numbers and give other counts.", dtype=dtype)


def _step_pieces(step: Step, meanings: dict[TokenKind, str] | None = None, greedy: bool = False
                 ) -> list[tuple[str, str]]:
    """Each chip of one step with a caption, in the order the verifier met them; with `meanings`, each chip's hover
    text is its kind's meaning instead of its numbers; `greedy`: the run's temperature was 0 (`emitted_tooltip`)."""
    def hover(kind: TokenKind, numbers: str) -> str:
        return _(meanings[kind]) if meanings and kind in meanings else numbers

    pieces = []
    n_acc = step.n_accepted
    drafts = step.emitted[:n_acc] if step.decisions else []
    for i, token in enumerate(drafts):
        # as the step panels write it: its decision's point masses "1" (read 53), a tree's chance min(1, p′/q′)
        tooltip = hover(TokenKind.ACCEPTED, step_tooltip(token, step, i, greedy=greedy))
        pieces.append((chip(token.text, TokenKind.ACCEPTED, tooltip, size="inline", glyph=False),
                       _("draft {n} of {k} accepted ✓", n=i + 1, k=step.k)))
    copied = registry.copies(step.proposer)
    for d in step.decisions[n_acc:]:
        if d.reached:
            # read 50: the step's last draft read "draft 4 of 4 rejected ✗ (and every draft after it)", where none is
            rejected = (_("draft {n} of {k} rejected ✗", n=d.position + 1, k=step.k) if d.position + 1 >= step.k else
                        _("draft {n} of {k} rejected ✗ (and every draft after it)", n=d.position + 1, k=step.k))
            pieces.append((chip(d.text, decision_kind(d), hover(decision_kind(d), decision_tooltip(d, copied=copied)),
                                 size="inline"),
                           rejected))
    for token in step.emitted[n_acc:] if step.decisions else step.emitted:
        kind = style(token.kind)
        why = {TokenKind.RECOVERED: _("a recovered token replaces the rejected draft"),
               TokenKind.BONUS: _("all drafts kept, so the target's pass gives a free bonus token"),
               }.get(token.kind) or _("no drafts this step: one plain target token")
        tooltip = hover(token.kind, emitted_tooltip(token, step.index, greedy=greedy))
        pieces.append((chip(token.text, token.kind, tooltip, size="inline"), f"{kind.glyph} {why}"))
    return pieces


def _group(chips: list[str]) -> str:
    return f'<span style="margin-right:5px">{"".join(chips)}</span>'


def _wrap(groups: list[str]) -> str:
    empty = escape_text(_("(no tokens yet)"), whitespace=False)
    body = "".join(groups) or f'<span style="color:#6B6B6B">{empty}</span>'
    return f'<div class="sv-play" style="line-height:2.1;font-size:1rem;min-height:4.2em">{body}</div>'


def example_player(key: str = "overview", name: str | None = None, title: str | None = None,
                   meanings: dict[TokenKind, str] | None = None) -> None:
    """The one-click example: a Play button that animates a shipped trace; the last frame stays on screen. `name`:
    the example (else `example_name()`'s), `title` (an English message) the words it goes by instead of its own
    title, and `meanings` the kinds' hover texts for the legend and the chips (`play_frames`)."""
    name = name or example_name()
    if name is None:
        st.info(_("No example traces are installed; run `make traces` to record them."))
        return
    spec = load_example(name)[0]
    frames = play_frames(spec, meanings)
    prompt = spec.meta.get("prompt") or spec.prompt_text
    shown = _(title) if title else get_example(name).shown_title  # a shipped example's title: no HTML allowed
    st.markdown(_("**{title}**. The prompt:", title=shown))
    st.html(text_html(str(prompt)))
    st.html(legend_html(tuple(TokenKind), distributions=False, meanings=meanings, kept_mark=False))
    clicked = st.button(_("▶ Play the example"), key=f"{key}_play", type="primary")
    caption, box = st.empty(), st.empty()
    if clicked:
        st.session_state[f"{key}_played"] = True
        pause = PLAY_SECONDS / max(len(frames), 1)
        for frame in frames:
            box.html(frame.html)
            caption.caption(frame.caption)
            time.sleep(pause)
    else:
        frame = frames[-1] if st.session_state.get(f"{key}_played") else frames[0]
        box.html(frame.html)
        caption.caption(frame.caption)
