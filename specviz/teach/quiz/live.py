"""Live questions from a real trace: accept or reject a tested draft, min(1, p/q) for it, which token kind comes
next, and which drafts reach the output, all with the step's own numbers.

`live_questions` asks about one step, `live_quiz` about a few steps picked by a seed; the questions are ordinary
`Question`s (source "live") that `grade` marks like bank questions. The numbers are the step panel's
(`specviz.engine.shown.shown_numbers`), so a learner who computes from them reaches the verifier's verdict and the
p/q the Playground shows beside them.
"""

from __future__ import annotations

import random
import re

from specviz.core.i18n import N_, _, localized, ngettext, using
from specviz.engine.kinds import TokenKind
from specviz.engine.shown import shown_numbers
from specviz.engine.trace import Decision, Step, Trace
from specviz.teach.quiz.schema import Question, QuestionKind, _accept_prob

LIVE_LINK = "pages/playground.py"


def live_questions(trace: Trace, step_index: int, rng_seed: int) -> list[Question]:
    """Questions about step `step_index` (a position in `trace.steps`) of a recorded trace: accept or reject one
    tested draft, min(1, p/q) for it, which token kind the verifier emits after the accepted drafts, and which
    drafts reach the output. `rng_seed` picks the draft asked about. A step with no drafts gives no questions, and
    neither does a tree step: these questions and their explanations are a chain's (K drafts, kept up to the first
    rejection, min(1, p/q) from the draft's own q), while a tree step drafted every node of its tree, its `decisions`
    hold only the main line, and its rule is the recursive one (p′ and q′ change after each rejected sibling)."""
    if not 0 <= step_index < len(trace.steps):
        raise ValueError(ngettext("Step {step} is not in this trace, which has {n} step.",
                                  "Step {step} is not in this trace, which has {n} steps.", len(trace.steps),
                                  step=step_index + 1))
    step = trace.steps[step_index]
    tested = [d for d in step.decisions if d.reached]
    if not tested or step.tree is not None:
        return []
    decision = random.Random(rng_seed).choice(tested)
    questions = [_live_verdict(step, decision), _live_ratio(step, decision)]
    if text_ended(step) is None:  # a step whose text ended among its kept drafts emits no token of the target's own
        questions.append(_live_next_kind(step, tested))
    if step.n_accepted:
        questions.append(_live_kept(step))
    return questions


def drafts_in_text(step: Step) -> int:
    """How many of the step's drafts reach the text: its accepted drafts, up to where the text ended (a kept
    end-of-text token or the token limit cuts `emitted`, and the drafts the verifier accepted after it are not in
    the text a learner reads)."""
    return sum(1 for t in step.emitted[: step.n_accepted] if t.kind == TokenKind.ACCEPTED)


def text_ended(step: Step) -> int | None:
    """The number (from 1) of the last draft in the text when the text ended among the step's kept drafts (so the
    step emits no recovered or bonus token); None when the step emits its own token."""
    if any(t.kind in (TokenKind.RECOVERED, TokenKind.BONUS) for t in step.emitted):
        return None
    return drafts_in_text(step)


def live_quiz(trace: Trace, seed: int, n_steps: int = 3) -> list[Question]:
    """Live questions for up to `n_steps` chain steps that tested at least one draft, the steps picked by `seed`
    (a tree step gets none: see `live_questions`)."""
    steps = [i for i, s in enumerate(trace.steps) if s.tree is None and any(d.reached for d in s.decisions)]
    chosen = sorted(random.Random(seed).sample(steps, min(n_steps, len(steps))))
    return [q for i in chosen for q in live_questions(trace, i, seed + i)]


def _live_id(step: Step, what: str) -> str:
    return f"live-s{step.index}-{what}"


# The choices of the verdict and next-kind questions (English messages, shown in the reader's language).
KINDS = {TokenKind.ACCEPTED: N_("accepted"), TokenKind.REJECTED: N_("rejected"), TokenKind.RECOVERED: N_("recovered"),
         TokenKind.BONUS: N_("bonus")}


def _live_verdict(step: Step, d: Decision) -> Question:
    p, q, u, a = (_local(x) for x in _shown_numbers(d))
    verdict = _(KINDS[TokenKind.ACCEPTED if d.accepted else TokenKind.REJECTED])
    sign = "<" if d.accepted else "≥"
    return Question(
        id=_live_id(step, f"verdict{d.position}"), concept="accept_rule", kind=QuestionKind.SINGLE, shuffle=False,
        prompt=_("In step {step}, the draft proposed {token} (draft #{n}) with q = {q}, the target gives p = {p}, and "
                 "the verifier drew u = {u}. Accepted or rejected?", step=step.index + 1, token=_md_token(d.text),
                 n=d.position + 1, q=q, p=p, u=u),
        choices=(_(KINDS[TokenKind.ACCEPTED]), _(KINDS[TokenKind.REJECTED])), answer=verdict,
        explanation=_("min(1, p/q) = min(1, {p}/{q}) = {a}; u = {u} {sign} {a}, so the draft is {verdict}. A draft "
                      "is kept when u < min(1, p/q).", p=p, q=q, a=a, u=u, sign=sign, verdict=verdict),
        link=LIVE_LINK, source="live")


def _live_ratio(step: Step, d: Decision) -> Question:
    p, q, _u, a = _shown_numbers(d)
    value = _accept_prob(float(p), float(q))  # the shown p ÷ the shown q, written as the shown chance `a`
    values = {"p": _local(p), "q": _local(q), "value": _local(a)}
    return Question(
        id=_live_id(step, f"ratio{d.position}"), concept="accept_rule", kind=QuestionKind.NUMERIC,
        prompt=_("In step {step}, the draft proposed {token} with q = {q}; the target gives p = {p}. What is "
                 "min(1, p/q) here?", step=step.index + 1, token=_md_token(d.text), q=values["q"], p=values["p"]),
        answer=value, tolerance=_probability_tolerance(value), params={"p": float(p), "q": float(q)},
        formula="accept_prob",
        explanation=(_("min(1, {p}/{q}) = {value}: the chance this draft is kept (p ≥ q, so it is always kept).",
                       **values) if value >= 1 else
                     _("min(1, {p}/{q}) = {value}: the chance this draft is kept.", **values)),
        link=LIVE_LINK, source="live")


def _probability_tolerance(value: float) -> float:
    """How far from the chance `value` an answer may be and count as right: 0.005 or 1%, whichever is larger, but
    never so far that a negative chance would count (read 47: min(1, p/q) = 0.0000667 took "anything from −0.00493
    to 0.00507"); a chance of exactly 0 (p = 0) takes 0 alone.

    >>> _probability_tolerance(0.5), _probability_tolerance(0.002), _probability_tolerance(0.0)
    (0.005, 0.002, 0.0)
    """
    return min(max(0.005, 0.01 * value), max(value, 0.0))


def _live_next_kind(step: Step, tested: list[Decision]) -> Question:
    rejected = any(not d.accepted for d in tested)
    kind = step.correction_kind or (TokenKind.RECOVERED if rejected else TokenKind.BONUS)
    rows = "; ".join(_("#{n} {token}: q = {q}, p = {p}, u = {u}", n=d.position + 1, token=_md_token(d.text),
                       q=_local(s[1]), p=_local(s[0]), u=_local(s[2]))
                     for d in tested for s in [_shown_numbers(d)])
    # the rows list only the drafts the verifier reached: "tested them in order" claimed all K (read 32)
    tested_sentence = (_("The verifier tested them in order: {rows}.", rows=rows) if len(tested) == step.k else
                       ngettext("The verifier tested {n} of them, the first one: {rows}.",
                                "The verifier tested {n} of them, in order from the first: {rows}.", len(tested),
                                rows=rows))
    explanation = (_("It is a recovered token: a draft was rejected, so the target's replacement is sampled from the "
                     "residual norm(max(0, p − q)).") if kind == TokenKind.RECOVERED else
                   _("It is a bonus token: every draft was accepted, so one more token is sampled from p at position "
                     "K+1 for free."))
    return Question(
        id=_live_id(step, "next-kind"), concept="first_disagreement" if rejected else "bonus_token",
        kind=QuestionKind.SINGLE, shuffle=False,
        # one noun per count: a step may draft K = 1 (an adaptive K, or the token limit near the end: "K = 1 tokens")
        prompt=ngettext("Step {step} drafted K = {n} token. {tested} Which kind of token does the target emit right "
                        "after the accepted drafts?",
                        "Step {step} drafted K = {n} tokens. {tested} Which kind of token does the target emit right "
                        "after the accepted drafts?", step.k, step=step.index + 1, tested=tested_sentence),
        choices=tuple(_(label) for label in KINDS.values()), answer=_(KINDS[kind]),
        explanation=explanation, link=LIVE_LINK, source="live")


def _live_kept(step: Step) -> Question:
    labels = [f"#{d.position + 1} {_md_token(d.text)}" for d in step.decisions]
    kept = tuple(labels[: drafts_in_text(step)])  # accepted drafts form a prefix; the text may end inside it
    ended = len(kept) < step.n_accepted
    return Question(
        id=_live_id(step, "kept"), concept="first_disagreement", kind=QuestionKind.MULTIPLE, shuffle=False,
        prompt=_("Step {step} drafted: {drafts}. Which drafted tokens end up in the output? (The verifier accepted "
                 "{kept} of {drafted}.)", step=step.index + 1, drafts=", ".join(labels), kept=step.n_accepted,
                 drafted=len(labels)),
        choices=tuple(labels), answer=kept,
        explanation=(_("Accepted drafts form a prefix: everything before the first rejection is kept, the rejected "
                       "draft and every draft after it are dropped. Here the text ended at draft #{n} (the "
                       "end-of-text token or the token limit), so the accepted drafts after it never reach the "
                       "output.", n=len(kept)) if ended else
                     _("Accepted drafts form a prefix: everything before the first rejection is kept, the rejected "
                       "draft and every draft after it are dropped.")),
        link=LIVE_LINK, source="live")


def _local(number: str) -> str:
    """A number as `_shown_numbers` writes it (0.42), as the reader writes it (0,42 in Portuguese)."""
    return localized(number)


def _shown_numbers(d: Decision) -> tuple[str, str, str, str]:
    """p, q, u and min(1, p/q) as the step panel writes them (`shown_numbers`, in English: `_local` gives the reader's
    marks), a number it writes with an exponent written out in full (read 47: never 6.667e-05). Its digits give the
    verdict from the shown numbers: u against the shown min(1, p/q), and against min(1, p/q) computed from the shown
    p and q, which rounds to it (read 29: "u = 0.44 < 0.44" is no reason). Read 52: the quiz wrote its own digits,
    "min(1, p/q) = 0.086" where the step panel wrote 0.0852 for the same draft (and 0.0055 / 0.064 is 0.0859).

    >>> _shown_numbers(Decision(0, 0, "x", 0.06438015, 0.00548484, 0.08519456, 0.08519456, 0.0265, False, True))
    ('0.005485', '0.064380', '0.0265', '0.0852')
    >>> _shown_numbers(Decision(0, 0, "x", 0.72, 1.77e-06, 2.458e-06, 2.458e-06, 0.5, False, True))
    ('0.0000018', '0.720', '0.500', '0.0000025')
    """
    with using("en"):
        shown = shown_numbers(d.target_prob, d.draft_prob, d.accept_prob, d.uniform)
    return _in_full(shown.p), _in_full(shown.q), _in_full(shown.u), _in_full(shown.chance)


def _in_full(shown: str) -> str:
    """A number as `shown_numbers` writes it, with an exponent written out to as many figures ("6.7e-05" is
    0.000067); a missing one ("–") as nan.

    >>> _in_full("6.7e-05"), _in_full("1.00e-06"), _in_full("0.0850"), _in_full("–")
    ('0.000067', '0.00000100', '0.0850', 'nan')
    """
    if shown == "–":
        return "nan"
    if "e" not in shown:
        return shown
    mantissa, _e, exponent = shown.partition("e")
    return f"{float(shown):.{len(mantissa.split('.')[-1]) - int(exponent)}f}"


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$])")


def _md_token(text: str) -> str:
    """A token's text quoted for Markdown (its repr, with Markdown's special characters escaped)."""
    return _MD_SPECIAL.sub(r"\\\1", repr(text))
