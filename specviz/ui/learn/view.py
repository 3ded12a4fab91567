"""The guided path's page: where the learner stands (`specviz.ui.learn.progress`), a row of lessons to jump with,
one lesson (objective, text, its interaction from `specviz.ui.learn.widgets` or `specviz.ui.learn.runs`, its
checks from `specviz.ui.learn.questions`), the previous / next buttons, and after the last lesson the exit ticket. The
lessons themselves are data in `specviz.teach.learn`. Widget keys start with `learn_`.
"""

from __future__ import annotations

import streamlit as st

from specviz.core.i18n import N_, _, ngettext
from specviz.teach.learn import BY_NUMBER, LAST, LESSONS, TICKET, Lesson, Progress
from specviz.teach.pagemap import PAGES
from specviz.teach.quiz import Bank
from specviz.ui.common.escaping import escape_markdown
from specviz.ui.learn import progress as learn_progress, questions as learn_questions, runs as learn_runs, widgets as learn_widgets

INTERACTIONS = {**learn_widgets.WIDGETS, **learn_runs.WIDGETS}  # a lesson's interaction name -> what draws it
PAGE_TITLES = {path: title for pages in PAGES.values() for path, title, _icon in pages}
TEXT = {  # English messages, translated with `_()` where they are shown
    "title": N_("Guided path"),
    "intro": N_("{total} short lessons, from why decoding is slow to running it for real. Each has one thing to try "
             "and two to four questions; every term in the lessons' texts, the questions and their right answers is "
             "explained before it is used (a wrong choice may name a method the course does not teach, such as beam "
             "search; a retry after many misses may borrow a question that uses a later lesson's word). A lesson is "
             "mastered when all its questions are answered right. Your place is kept in the address bar, so a "
             "reload or a bookmark brings you back here."),
    "mastered_mark": N_("{number} ✓"),
    "tried_mark": N_("{number} ◐"),
    "marks_help": N_("✓ mastered: every check answered right · ◐ attempted: a check answered, not all right yet"),
    "jump": N_("Lessons"),
    "ticket_label": N_("Exit ticket"),
    "heading": N_("Lesson {number} of {total}: {title}"),
    "objective": N_("**Objective.** {objective}"),
    "try": N_("Try it"),
    "check": N_("Check yourself"),
    "deeper": N_("Go deeper: the {title} page"),
    "deeper_section": N_("Go deeper: the {title} page, its section “{section}”"),
    "prev": N_("← Previous lesson"),
    "next": N_("Next lesson →"),
    "to_ticket": N_("Take the exit ticket →"),
    "start_title": N_("New to speculative decoding?"),
    "start_text": N_("Take the guided path: {total} short lessons, each with one thing to try and two to four "
                  "questions."),
    "start_link": N_("Start the guided path"),
}


def progress_bar(progress: Progress) -> None:
    """How far along (mastered and attempted apart), and a row of lesson numbers to jump with (✓ mastered,
    ◐ attempted)."""
    tried = progress.tried - progress.done
    text = _("{done} of {total} lessons mastered", done=len(progress.done), total=LAST)
    if tried:  # no "0 more attempted" clause: Portuguese takes the singular for 0 ("mais 0 tentada")
        text = ngettext(  # n agrees with "attempted" (pt)
            "{done} of {total} lessons mastered, {n} more attempted",
            "{done} of {total} lessons mastered, {n} more attempted", len(tried), done=len(progress.done), total=LAST)
    st.progress(len(progress.done) / LAST, text=text)
    options = [str(lesson.number) for lesson in LESSONS] + [TICKET]
    st.session_state["learn_jump"] = str(progress.lesson)

    def shown(option: str) -> str:
        if option == TICKET:
            return _(TEXT["ticket_label"])
        mark = "mastered_mark" if int(option) in progress.done else "tried_mark" if int(option) in tried else None
        return _(TEXT[mark], number=option) if mark else option

    st.segmented_control(_(TEXT["jump"]), options, key="learn_jump", on_change=learn_progress.jump,
                         label_visibility="collapsed", format_func=shown, help=_(TEXT["marks_help"]))


def render_lesson(bank: Bank, lesson: Lesson) -> None:
    st.subheader(_(TEXT["heading"], number=lesson.number, total=LAST, title=lesson.shown_title()),
                 anchor=lesson.slug)
    st.info(_(TEXT["objective"], objective=lesson.shown_objective()))
    st.markdown(lesson.shown_text())
    st.markdown(f"##### {_(TEXT['try'])}")
    INTERACTIONS[lesson.interaction](lesson)
    st.markdown(f"##### {_(TEXT['check'])}")
    learn_questions.checks(bank, lesson)
    title = _(PAGE_TITLES[lesson.page]) if lesson.page in PAGE_TITLES else lesson.page
    # a page link cannot jump to a section (and a #anchor does not survive the page's own URL rewrite): name it
    learn_progress.link(lesson.page, _(TEXT["deeper_section"], title=title, section=lesson.shown_section())
                        if lesson.section else _(TEXT["deeper"], title=title), ":material/arrow_forward:")


def navigation(progress: Progress) -> None:
    lesson = int(progress.lesson)
    left, _gap, right = st.columns([2, 1, 2])
    if lesson > 1:
        left.button(_(TEXT["prev"]), key="learn_prev", on_click=learn_progress.go, args=(lesson - 1,), width="stretch")
    label = _(TEXT["to_ticket"]) if lesson == LAST else _(TEXT["next"])
    right.button(label, key="learn_next", type="primary", on_click=learn_progress.go, width="stretch",
                 args=(TICKET if lesson == LAST else lesson + 1,))


def render(bank: Bank) -> None:
    """The whole page below its title: the URL's progress, the indicator, the lesson or the ticket."""
    progress = learn_progress.current()
    if learn_progress.problem():
        st.warning(escape_markdown(learn_progress.problem()))  # it repeats the link's value: no links, no markup
    st.caption(_(TEXT["intro"], total=LAST))
    progress_bar(progress)
    if progress.lesson == TICKET:
        learn_questions.ticket(bank, progress)
    else:
        render_lesson(bank, BY_NUMBER[int(progress.lesson)])
        navigation(progress)
    progress = learn_progress.current()  # a check answered on this run may have marked the lesson done
    learn_progress.write_url(progress)
    # after the lesson is drawn, so its heading is there to take the focus
    shown = learn_questions.TICKET_ANCHOR if progress.lesson == TICKET else BY_NUMBER[int(progress.lesson)].slug
    learn_progress.land_after_a_move(shown)
    if progress.lesson != TICKET:
        learn_progress.link("pages/quiz.py", _(learn_questions.TEXT["quiz_link"]), ":material/quiz:",
                            progress.to_params())


def start_link() -> None:
    """The Overview's pointer for a first-time learner: one sentence and the link to lesson 1."""
    with st.container(border=True):
        st.markdown(f"**{_(TEXT['start_title'])}** {_(TEXT['start_text'], total=LAST)}")
        learn_progress.link("pages/learn.py", _(TEXT["start_link"]), ":material/school:", {"lesson": "1"})
