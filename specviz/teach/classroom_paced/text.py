"""The teacher-paced classroom's own sentences, in one place: English messages with named placeholders,
translated with `_()` where they are raised or shown. A sentence it shares stays as written where it is raised:
the step that is not in a trace (questions.py, as `specviz.teach.quiz.live` words it; the database's failures are
`specviz.teach.classroom.store`'s own sentences); and the how-many question stays in questions.py, because its
two forms (K = 1 token, K = 4 tokens) must be the literal pair of one `ngettext()` call to be extracted."""

from __future__ import annotations



from specviz.core.i18n import N_
from specviz.teach.classroom.inputs import NOT_A_NUMBER, NOT_A_STUDENT_LINK


# Every sentence a user can read from here, with named placeholders: English messages, translated with `_()` where
# they are raised or shown (specviz.core.i18n).
TEXT = {
    "no_session": N_("There is no session with the code {code}; please check it."),
    "not_paced": N_("Session {code} is self-paced: its students answer in their own order, so nothing can be "
                    "pushed."),
    "ended": N_("Session {code} has ended; answers are no longer taken."),
    "no_push": N_("No question has been pushed in session {code} yet."),
    # Read 48 review: the self-paced store's one sentence for an unknown ?student= token, not a copy of it
    "stale_link": NOT_A_STUDENT_LINK,
    "not_current": N_("That question is no longer the current one; your screen shows the new one in a moment."),
    "round_closed": N_("Round {round} is not open for answers."),
    "revealed": N_("The answer has been revealed, so this question takes no more answers."),
    "round2_twice": N_("Round 2 of this question has already started."),
    "round2_after_reveal": N_("The answer has already been revealed; push the question again for a new vote."),
    "not_a_choice": N_("That answer is not one of the choices; please pick one of them."),
    "no_pick": N_("Please pick at least one choice."),
    "not_an_order": N_("Please place every item exactly once."),
    "not_finite": NOT_A_NUMBER,  # the self-paced classroom's sentence too
    # read 52: "so 1 of 2 were kept" (and "0 of 4 were kept"): the verb disagreed with a kept count of one; the
    # step is the subject now, as in the Portuguese "o passo manteve"
    "how_many_why_recovered": N_("{verdicts}. Drafts are kept up to the first rejection, so the step kept {kept} "
                                 "of {k}, and a recovered token from norm(max(0, p − q)) took the rejected one's "
                                 "place."),
    # "the step kept {k} of {k}": "all {k} were kept" read "all 1 were kept" (Portuguese "todos os 1") at K = 1
    "how_many_why_bonus": N_("{verdicts}. No draft was rejected, so the step kept {k} of {k}, and a bonus token from "
                             "p came free."),
    "how_many_why_ended": N_("{verdicts}. The step kept {kept} of {k}, and the text ended there (the end-of-text "
                             "token or the token limit), so no recovered or bonus token was added."),
    "how_many_why_cut": N_("{verdicts}. The text ended at draft #{n} (the end-of-text token or the token limit), so "
                           "only {kept} of the {accepted} accepted drafts reached it, and no recovered or bonus token "
                           "was added."),
    "accepted": N_("#{n} {token}: accepted"),
    "rejected": N_("#{n} {token}: rejected"),
    "untested": N_("#{n} {token}: never tested"),
    "other_orders": N_("another order"),
    "far_below": N_("far below: under {value}"),
    "far_above": N_("far above: over {value}"),
    # a numeric spread's ranges, each saying which of its ends it holds (read 52: 200 sat in "144.357–200")
    "range": N_("{low} to under {high}"),
    "range_top": N_("from {low} to {high}"),  # its own message: "{low} to {high}" is shared, "a" in Portuguese
    "range_over": N_("over {low} to under {high}"),
    "range_over_top": N_("over {low} to {high}"),
}
