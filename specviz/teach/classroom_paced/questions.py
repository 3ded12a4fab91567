"""Questions for the class: the teacher's search of the bank, and the questions made from a live Playground step
(`ask_the_class`)."""

from __future__ import annotations

from collections.abc import Sequence

from specviz.core.i18n import _, ngettext
from specviz.engine.kinds import TokenKind
from specviz.engine.trace import Trace
from specviz.teach.classroom import ClassroomError, concept_name
from specviz.teach.classroom_paced.text import TEXT
from specviz.teach.quiz import Question
from specviz.teach.quiz.live import LIVE_LINK, _md_token, drafts_in_text, live_questions, text_ended
from specviz.teach.quiz.schema import QuestionKind


def search_questions(questions: Sequence[Question], text: str) -> list[Question]:
    """The questions whose prompt, id or concept contains every word of `text` (case-insensitive); all of them for
    empty text.

    >>> from specviz.teach.quiz import load_bank
    >>> [q.concept for q in search_questions(load_bank().questions, "bonus token")][:1]
    ['bonus_token']
    """
    words = str(text or "").casefold().split()
    return [q for q in questions
            if all(w in f"{q.prompt} {q.id} {q.concept} {concept_name(q.concept)}".casefold() for w in words)]


def ask_the_class(trace: Trace, step_index: int, seed: int = 0) -> list[Question]:
    """Questions about step `step_index` of a trace for the teacher to push: first "how many of these K drafts will
    the target keep?" (asked before the step is revealed), then the live quiz's questions about the same step
    (`specviz.teach.quiz.live_questions`: accept or reject one draft, min(1, p/q), the next token's kind, which drafts
    stay). A step with no drafts gives none, and so does a tree step: these questions and their explanations are a
    chain's (K drafts, kept up to the first rejection, then one token from norm(max(0, p − q))), while a tree step
    drafted every node of its tree, its `decisions` hold only the main line, and its rule is the recursive one."""
    if not 0 <= step_index < len(trace.steps):
        raise ClassroomError(ngettext("Step {step} is not in this trace, which has {n} step.",
                                      "Step {step} is not in this trace, which has {n} steps.",
                                      len(trace.steps), step=step_index + 1))
    step = trace.steps[step_index]
    if not step.decisions or step.tree is not None:
        return []
    return [how_many_question(trace, step_index), *live_questions(trace, step_index, seed)]


def how_many_question(trace: Trace, step_index: int) -> Question:
    """"How many of these K drafts will the target keep?", choices 0 to K, with the verdicts as the explanation. The
    answer counts the drafts that reach the text, as the learner sees it: when the text ended at a kept draft (the
    end-of-text token, or the token limit), drafts the verifier accepted after it are not counted."""
    step = trace.steps[step_index]
    k = len(step.decisions)
    drafts = ", ".join(f"#{d.position + 1} {_md_token(d.text)}" for d in step.decisions)
    verdicts = "; ".join(
        _(TEXT[("accepted" if d.accepted else "rejected") if d.reached else "untested"],
          n=d.position + 1, token=_md_token(d.text))
        for d in step.decisions)
    # what the learner sees: the drafts that reach the text. When the text ended among the kept drafts (a kept
    # end-of-text token or the token limit), the drafts the verifier accepted after that point are not in it, and
    # the step emits no token of the target's own.
    kept = drafts_in_text(step)
    last = text_ended(step)
    own = [t.kind for t in step.emitted if t.kind in (TokenKind.RECOVERED, TokenKind.BONUS)]
    why = (TEXT["how_many_why_cut"] if last is not None and kept < step.n_accepted else
           TEXT["how_many_why_ended"] if last is not None else
           TEXT["how_many_why_bonus"] if own[0] == TokenKind.BONUS else TEXT["how_many_why_recovered"])
    return Question(
        id=f"live-s{step.index}-how-many", concept="first_disagreement", kind=QuestionKind.SINGLE, shuffle=False,
        # a step may draft one token (the token limit near the end, an adaptive K): "K = 1 tokens" read wrong
        prompt=ngettext("Step {step} drafted K = {n} token: {drafts}. How many will the target keep (accept) and add "
                        "to the text?",
                        "Step {step} drafted K = {n} tokens: {drafts}. How many of them will the target keep (accept) "
                        "and add to the text?", k, step=step.index + 1, drafts=drafts),
        choices=tuple(str(n) for n in range(k + 1)), answer=str(kept),
        explanation=_(why, verdicts=verdicts, kept=kept, k=k, accepted=step.n_accepted, n=last or 0),
        link=LIVE_LINK, source="live")
