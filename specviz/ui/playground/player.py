"""The Playground's player: step / previous / play / run-to-end / reset over a trace, predict-then-reveal
(specviz.ui.common.predict), and the view of the steps revealed so far. At the end it shows the finished text plainly
next to the annotated one, with an invitation to step through from the start (a new live run opens there).

State (page-prefixed): `playground_pos` = number of revealed steps (0..n) and `playground_playing`; the guesses are
the `PREDICTOR`'s. The trace on screen is also `specviz.ui.common.state.current_trace()`, for other pages. The view runs
inside a live fragment (`specviz.ui.common.frame.live_fragment`) that reruns itself every PLAY_SECONDS while playing, so
playing never reruns the whole page, and a failure inside it is one sentence.
"""

from __future__ import annotations

import re

import streamlit as st

from specviz.core.i18n import N_, _, ngettext, number
from specviz.engine.kinds import Mode, StopReason
from specviz.engine.trace import Trace
from specviz.ui.classroom import ask as classroom_ask
from specviz.ui.common import state
from specviz.ui.common.accessibility import scroll_to_result
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.common.frame import live_fragment
from specviz.ui.common.palette import legend_html
from specviz.ui.common.predict import Predictor
from specviz.ui.common.step_view import render_step, tree_nodes_text
from specviz.ui.common.tokens import TraceView, answer_html, decision_chips

PLAY_SECONDS = 1.6
# the reason a trace stopped -> the sentence that ends the "Done" line (English messages: `_()` translates them when
# shown). Whole sentences, not a noun put into "It stopped at {stop}": Portuguese joins "em" and the noun's article
# ("no token", "no limite"), which a placeholder after "em" cannot do (the 37th read found "Parou em o token").
STOPS = {StopReason.EOS: N_("It stopped at the end-of-text token."),
         StopReason.MAX_NEW_TOKENS: N_("It stopped at the token limit."),
         StopReason.DEADLINE: N_("It stopped at the time limit of a live run on this shared server.")}
# the reasons a trace ends early (before its end-of-text token or token limit) -> the caption under the step counter,
# at every step: "Step 2 of 8" must not read as the whole run until the last step says otherwise (read 47)
CUT_SHORT = {StopReason.DEADLINE: N_("Cut short: this run stopped at its time limit, before its end-of-text token or "
                                     "its token limit, so a whole run with the same settings has more steps.")}
SPECIAL = re.compile(r"<\|[^|<>]{1,40}\|>|</?s>")  # a tokenizer's control token, such as <|im_start|>

# Every sentence of the player that a user reads, in one place (English messages with named placeholders: `_()`
# translates them where they are shown).
TEXT = {
    "so_far": N_("**The output so far** · every token shows where it came from (hover for the numbers)"),
    "so_far_note": N_("Drafts the target kept have no mark; a struck-through ✗ chip is a draft the target rejected, "
                      "shown where it was tried, followed by the token that replaced it."),
    "done": N_("Done: {tokens} from {passes}, where plain decoding needs one pass per token ({n}), not counting "
               "the pass over the prompt both make first. {stop}"),
    "answer": N_("**What the model wrote**"),
    "annotated": N_("**How each token was made**"),
    "annotated_note": N_("No mark: a draft the target kept. ✗ struck through: a draft it rejected, followed by ↻ "
                         "its replacement. ★: a free extra token after all drafts were kept (in a tree step: after "
                         "the kept path reached a leaf)."),
    # the two notes above, for a trace whose trees copied tokens from the context: a kept copy is unmarked too, and
    # no model drafted it (read 49: "No mark: a draft the target kept")
    "so_far_note_copied": N_("Drafted or copied tokens the target kept have no mark; a struck-through ✗ chip is a "
                             "drafted or copied token the target rejected, shown where it was tried, followed by the "
                             "token that replaced it."),
    "annotated_note_copied": N_("No mark: a drafted or copied token the target kept. ✗ struck through: a drafted "
                                "or copied token it rejected, followed by ↻ its replacement. ★: a free extra token "
                                "after all drafts were kept (in a tree step: after the kept path reached a leaf)."),
    "from_start": N_("Step through it from the start"),
    "from_start_note": N_("Watch each step: what the draft guessed, which guesses the target kept, and why."),
    # read 51: "not reached: drafts after a rejection" under a tree step whose unkept siblings met no rejection
    "legend": N_("↻ recovered: the target's own replacement for a rejected draft · ★ bonus: one extra token when "
                 "every draft was kept (in a tree step: when the kept path reached a leaf) · • target: a token "
                 "the target wrote alone, in a step where nothing was drafted · not reached: drafts after a "
                 "rejection (in a tree step: also below a rejected node, a sibling after the kept one, or below "
                 "those), never checked."),
    "coming_up": N_("**Coming up: step {step}.** The proposer drafted:"),
    # read 51: a step with no drafts read "The proposer drafted:" over "(nothing drafted: …)"
    "coming_up_nothing": N_("**Coming up: step {step}.** The proposer drafted nothing (it found no guess, the draft "
                            "length was 0, or only one token was left to write), so the target writes one token on "
                            "its own."),
    # read 52: an uploaded target-only trace (the examples' baselines) read "The proposer drafted nothing (it found no
    # guess, the draft length was 0, or only one token was left to write)": it has no proposer, and none of those held
    "coming_up_target_only": N_("**Coming up: step {step}.** This trace is target-only decoding, with no proposer: "
                                "the target writes one token on its own, one pass per token."),
    "nothing_yet_target_only": N_("Nothing decoded yet. Press **Next step** to watch the target write its first "
                                  "token, or **Play**."),
    "coming_up_tree": N_("**Coming up: step {step}.** The proposer drafted a tree of {nodes}, and the target checks "
                         "them all in one forward pass: the step shows the tree and the path it kept."),
    "nothing_yet": N_("Nothing verified yet. Press **Next step** to watch the target check the first drafts, or "
                      "**Play**."),
}
POS, PLAYING = "playground_pos", "playground_playing"
PREDICTOR = Predictor("playground")
_CLICKED, _TOGGLED, _TRACE_ID = "playground_clicked", "playground_play_toggled", "playground_trace_id"


def select_trace(trace: Trace, trace_id: str, start_step: int = 0) -> None:
    """Make `trace` the one on screen (and `state.current_trace()` for other pages); a new trace starts at
    `start_step` (clipped to the trace, and said so when a link asked for a step past its end), paused."""
    state.set_current_trace(trace)
    session = st.session_state
    if session.get(_TRACE_ID) != trace_id:
        session[_TRACE_ID] = trace_id
        session[POS] = max(0, min(int(start_step), trace.num_steps))
        session[PLAYING] = False
        if int(start_step) > trace.num_steps:
            st.info(ngettext("The link asks for step {step}, but this trace has {n} step: it opens at its end.",
                             "The link asks for step {step}, but this trace has {n} steps: it opens at its end.",
                             trace.num_steps, step=number(int(start_step), 0)))


def position() -> int:
    return int(st.session_state.get(POS, 0))


# ---- callbacks (they run before the rerun they cause) ---------------------------------------------------------


def _go(n_steps: int, to: int) -> None:
    st.session_state[POS] = max(0, min(to, n_steps))
    st.session_state[_CLICKED] = True


def _next(trace: Trace, trace_id: str) -> None:
    pos = position()
    if pos < trace.num_steps:
        PREDICTOR.commit(trace_id, pos)
    _go(trace.num_steps, pos + 1)


def _toggle_play(n_steps: int) -> None:
    session = st.session_state
    session[PLAYING] = not session.get(PLAYING, False)
    if session[PLAYING] and position() >= n_steps:  # play from the start when at the end
        session[POS] = 0
    session[_CLICKED] = True
    session[_TOGGLED] = True


def _slide(n_steps: int) -> None:
    _go(n_steps, int(st.session_state["playground_slider"]))


# ---- the player -----------------------------------------------------------------------------------------------


def render_player(view: TraceView, trace_id: str, on_position=None) -> None:
    """Controls, the growing output, predict-then-reveal and the revealed step, in a self-rerunning fragment.
    `view` is the trace's chips, built once by the page (`specviz.ui.common.tokens.trace_view`); every run of the
    fragment reads it. `on_position(pos)` is called on every run (the page uses it to keep the URL current)."""
    trace = view.trace
    playing = bool(st.session_state.get(PLAYING, False))

    @live_fragment(run_every=PLAY_SECONDS if playing else None)  # in the session's language; a failure is a sentence
    def player() -> None:
        session = st.session_state
        n = trace.num_steps
        if session.pop(_TOGGLED, False):
            st.rerun(scope="app")  # start or stop the timer: run_every is fixed when the fragment is defined
        if session.get(PLAYING) and not session.pop(_CLICKED, False):
            session[POS] = min(position() + 1, n)  # a tick of the timer
        session.pop(_CLICKED, None)
        pos = position()
        if session.get(PLAYING) and pos >= n:
            session[PLAYING] = False
            st.rerun(scope="app")
        if on_position is not None:
            on_position(pos)
        _controls(trace, trace_id, pos)
        done = bool(n) and pos >= n  # the end, where a new run lands: the plain text beside how each token was made
        if done:
            st.success(done_text(trace))
            plain, chips = st.columns(2, gap="medium")
            plain.markdown(_(TEXT["answer"]))
            plain.html(answer_html(view.answer))
        else:  # the output so far beside the next step's drafts
            chips, coming = st.columns([3, 2], gap="medium")
        chips.markdown(_(TEXT["annotated"]) if done else _(TEXT["so_far"]))
        chips.html(view.output_html(pos, current=None if done else pos - 1))  # the chips the view holds, up to pos
        chips.caption(output_note(trace, done))
        if done:
            _from_start(n)
            PREDICTOR.score(trace, trace_id)
        else:
            with coming:
                _coming_up(trace, trace_id, pos)
                PREDICTOR.score(trace, trace_id)
        st.html(legend_html())
        st.caption(_(TEXT["legend"]))
        if pos == 0:
            st.info(_(TEXT["nothing_yet" if trace.mode == Mode.SPECULATIVE else "nothing_yet_target_only"]))
            return
        with st.container(border=True):  # the revealed step
            if not session.get(PLAYING):  # a press brings the result on screen; Play's ticks leave the view
                scroll_to_result(f"playground-step-{pos}", controls="playground_next")
            PREDICTOR.outcome(trace, trace_id, pos - 1)
            render_step(trace.steps[pos - 1], key="playground_step", stop=trace.stop_reason if pos == n else "",
                        greedy=trace.greedy)

    player()


def output_note(trace: Trace, done: bool) -> str:
    """The note under the output's chips (`done`: the finished trace's, else the output so far's). Where a tree's
    lookup branch copied tokens, a kept copy is unmarked too, and no model drafted it: the note said "No mark: a
    draft the target kept" (read 49)."""
    note = ("annotated_note" if done else "so_far_note") + ("_copied" if trace.num_copied else "")
    return _(TEXT[note])


def done_text(trace: Trace) -> str:
    """The line over a finished trace: its tokens and target passes against plain decoding's, and why it stopped.
    A trace that records no stop reason (an uploaded file may say "") is told none: it was said to stop at the token
    limit, which nothing in it showed (read 47)."""
    stop = _(STOPS[trace.stop_reason]) if trace.stop_reason in STOPS else ""
    return _(TEXT["done"], tokens=ngettext("{n} token", "{n} tokens", trace.num_tokens),
             passes=ngettext("{n} target forward pass", "{n} target forward passes", trace.num_steps),
             n=number(trace.num_tokens, 0), stop=stop).rstrip()


def _controls(trace: Trace, trace_id: str, pos: int) -> None:
    n = trace.num_steps
    playing = bool(st.session_state.get(PLAYING, False))
    # one row that wraps (a phone gets two short rows, not five full-width buttons above the output)
    row = st.container(horizontal=True, gap="small")
    row.button(_("Reset"), key="playground_reset", icon=":material/first_page:", on_click=_go, args=(n, 0),
               disabled=pos == 0)
    row.button(_("Previous"), key="playground_prev", icon=":material/chevron_left:", on_click=_go,
               args=(n, pos - 1), disabled=pos == 0, shortcut="Left")
    row.button(_("Next step"), key="playground_next", icon=":material/chevron_right:", type="primary",
               on_click=_next, args=(trace, trace_id), disabled=pos >= n, shortcut="Right")
    row.button(_("Pause") if playing else _("Play"), key="playground_play",
               icon=":material/pause:" if playing else ":material/play_arrow:", on_click=_toggle_play, args=(n,))
    row.button(_("Run to end"), key="playground_end", icon=":material/last_page:", on_click=_go, args=(n, n),
               disabled=pos >= n)
    counter, slider = st.columns([1, 4], vertical_alignment="center")
    where = _("Step {pos} of {n}", pos=number(pos, 0), n=number(n, 0))  # a CLI trace of 2,048 tokens: 1.234 in pt
    counter.markdown(f"<div style='font-size:1.5rem;font-weight:600'>{where}</div>", unsafe_allow_html=True)
    if n > 0:
        st.session_state["playground_slider"] = pos
        slider.slider(_("Steps revealed"), 0, n, key="playground_slider", on_change=_slide, args=(n,),
                      label_visibility="collapsed")
    cut = CUT_SHORT.get(trace.stop_reason)
    if cut is not None:
        st.caption(":material/timer_off: " + _(cut))


def _from_start(n: int) -> None:
    """Under a finished trace: the way back to step 1."""
    button, note = st.columns([2, 3], vertical_alignment="center")
    button.button(_(TEXT["from_start"]), key="playground_from_start", type="primary", icon=":material/replay:",
                  on_click=_go, args=(n, 0), width="stretch")
    note.caption(_(TEXT["from_start_note"]))


def _coming_up(trace: Trace, trace_id: str, pos: int) -> None:
    step = trace.steps[pos]
    # a tree step's `decisions` are the main line the check walked: chips of them would give it away. One with no
    # node to draft (one token left to write) is a chain's step with nothing drafted, as `render_step` draws it
    if step.tree is not None and step.tree.nodes:
        # the lookup branch's copies counted apart, as the step's headline does: no proposer drafted them
        st.markdown(_(TEXT["coming_up_tree"], step=pos + 1, nodes=tree_nodes_text(step)))
        return  # no guess either (`Predictor.ask`), as the live quiz asks a tree step nothing
    if trace.mode != Mode.SPECULATIVE:  # target-only decoding: no proposer, so none of "drafted nothing"'s reasons
        st.markdown(_(TEXT["coming_up_target_only"], step=pos + 1))
    elif step.decisions:
        st.markdown(_(TEXT["coming_up"], step=pos + 1))
        st.html(f"<div>{decision_chips(step, revealed=False, size='normal')}</div>")
    else:  # one sentence, not "The proposer drafted:" over "(nothing drafted: …)"
        st.markdown(_(TEXT["coming_up_nothing"], step=pos + 1))
    # the token the text ended on: a chat model's end of text is a control token too (<|im_end|>), which the target
    # does write, to end its answer (read 44: the default example's last step drafted it under "the target never
    # writes it inside its answer", and the target kept it)
    last = trace.steps[-1].emitted[-1] if trace.stop_reason == StopReason.EOS and trace.steps[-1].emitted else None
    ends = sorted({d.text for d in step.decisions if last is not None and d.token_id == last.token_id})
    if ends:
        token = "**" + escape_markdown(ends[0]) + "**"
        st.caption(_("{token} is not a word but the end-of-text token: the target writes it to end its answer, and "
                     "the text stops where it is kept.", token=token))
    special = sorted({d.text for d in step.decisions if SPECIAL.fullmatch(d.text.strip())} - set(ends))
    if special:  # recorded before the engine stopped drafting them: say what they are
        names = ", ".join(f"**{escape_markdown(t)}**" for t in special)
        st.caption(ngettext("{tokens} is not a word but a control token of the chat template (it marks where a turn "
                            "starts or ends); the target never writes it inside its answer.",
                            "{tokens} are not words but control tokens of the chat template (they mark where a turn "
                            "starts or ends); the target never writes them inside its answer.", len(special),
                            tokens=names))
    if not st.session_state.get(PLAYING):  # no time to guess while it plays
        PREDICTOR.ask(trace, trace_id, pos)
    classroom_ask.ask_buttons(trace, pos, key="playground")  # only for a teacher with a teacher-paced session open
