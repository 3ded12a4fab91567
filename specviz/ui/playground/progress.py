"""A live run drawn while it runs (`specviz.ui.common.runs.Progress`): the bar, the counts and the chips, step by step."""

from __future__ import annotations

import time

import streamlit as st

from specviz.core.i18n import _, drafts_kept, ngettext, number
from specviz.engine.generation import TokenTexts
from specviz.engine.recording import StepOutcome
from specviz.engine.trace import TokenKind
from specviz.models.pairs import Pair
from specviz.runs.runspec import RunSpec
from specviz.ui.common.tokens import stream_html
from specviz.ui.playground.settings import TEXT

LIVE_REDRAW_SECONDS = 0.2  # the live view redraws at most this often (a toy run takes milliseconds per step)


class LiveProgress:
    """A live run drawn while it runs (`specviz.ui.common.runs.Progress`): a bar over the token budget with the step count,
    the drafts kept and the seconds, and the output growing as chips, each step as soon as the target decided it.
    Everything is drawn into one placeholder, cleared when the run ends (the player takes over)."""

    def __init__(self, spec: RunSpec):
        self.spec = spec
        self.holder = st.empty()
        self.texts: TokenTexts | None = None
        self.groups: list[list[tuple[str, TokenKind]]] = []
        self.tokens = self.drafted = self.kept = 0
        self.start = self.drawn = 0.0
        self.line = self.bar = self.text = None

    def waiting(self, ahead: int) -> None:
        self.holder.info(ngettext("Waiting for the model: {n} run is ahead of yours.",
                                  "Waiting for the model: {n} runs are ahead of yours.", ahead))

    def started(self, pair: Pair) -> None:
        self.texts = TokenTexts(pair.tokenizer)
        self.start = time.monotonic()
        box = self.holder.container(border=True)
        self.line, self.bar, self.text = box.empty(), box.empty(), box.empty()
        self.line.markdown(_(TEXT["started"]))

    def step(self, outcome: StepOutcome) -> None:
        n_accepted = outcome.verdict.n_accepted
        group = [(t.text, t.kind) for t in outcome.emitted[:n_accepted] if outcome.drafts]
        if n_accepted < len(outcome.drafts) and len(outcome.emitted) > n_accepted:  # the rejected draft, struck
            group.append((self.texts(outcome.drafts[n_accepted]) if self.texts else "", TokenKind.REJECTED))
        group += [(t.text, t.kind) for t in (outcome.emitted[n_accepted:] if outcome.drafts else outcome.emitted)]
        self.groups.append(group)
        self.tokens += len(outcome.emitted)
        # drafts only, as the trace's headline counts them: a tree's lookup branch copies tokens, no model drafts
        # them (`Step.n_copied`); read 45: the bar counted them as drafts kept while the headline did not
        tree = outcome.tree
        copied = {j for j in range(len(tree.tokens)) if tree.is_copied(j)} if tree is not None else set()
        self.drafted += len(tree.tokens) - len(copied) if tree is not None else len(outcome.drafts)
        path = outcome.tree_verdict.path if outcome.tree_verdict is not None else []
        self.kept += n_accepted - sum(j in copied for j in path)
        now = time.monotonic()
        if now - self.drawn >= LIVE_REDRAW_SECONDS or outcome.stop:
            self.drawn = now
            self.draw(now - self.start)

    def draw(self, seconds: float) -> None:
        if self.bar is None:
            return
        self.line.markdown(_(TEXT["running"]))
        limit = self.spec.max_new_tokens
        self.bar.progress(min(1.0, self.tokens / limit), text=_(  # a limit of 1 read "at most 1 tokens" (read 44)
            TEXT["progress"], steps=len(self.groups), tokens=self.tokens,
            limit=ngettext("{n} token", "{n} tokens", limit),
            kept_of_drafted=drafts_kept(self.kept, self.drafted), seconds=number(seconds, 0)))
        self.text.html(stream_html(self.groups))

    def clear(self) -> None:
        self.holder.empty()
