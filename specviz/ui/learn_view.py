"""The guided path's page: where the learner stands (read from the URL once per session, written back on every
run), one lesson (objective, text, its interaction from `specviz.ui.learn_widgets`, its check questions), the
previous / next buttons, and after lesson 10 the exit ticket. The lessons themselves are data in `specviz.learn`;
questions are asked and graded with the Quiz's own pieces (`specviz.ui.quiz_view`, `specviz.quiz`).

Widget keys start with `learn_`. The progress lives in `specviz.ui.state` (the Quiz reads it) and in the URL,
`?lesson=4&done=1,2,3`, so a reload or a shared link comes back to the same place.
"""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitAPIException

from specviz.learn import BY_NUMBER, LAST, LESSONS, TICKET, Lesson, Progress, check_questions, exit_ticket, \
    lessons_to_revisit, parse_progress
from specviz.pagemap import PAGES
from specviz.quiz import Bank, QuizRun
from specviz.ui import learn_runs, learn_widgets, quiz_view, state

INTERACTIONS = {**learn_widgets.WIDGETS, **learn_runs.WIDGETS}  # a lesson's interaction name -> what draws it
PAGE_TITLES = {path: title for pages in PAGES.values() for path, title, _ in pages}
TEXT = {
    "title": "Guided path",
    "intro": "Ten short lessons, from why decoding is slow to when speculation stops paying. Each has one thing to "
             "try and two or three questions; every term is explained before it is used. Your place is kept in "
             "the address bar, so a reload or a bookmark brings you back here.",
    "progress": "{done} of {total} lessons done",
    "jump": "Lessons",
    "heading": "Lesson {number} of {total}: {title}",
    "objective": "**Objective.** {objective}",
    "try": "Try it",
    "check": "Check yourself",
    "check_header": "**Question {number} of {total}**",
    "check_button": "Check",
    "deeper": "Go deeper: the {title} page",
    "deeper_section": "Go deeper: the {title} page, its section “{section}”",
    "prev": "← Previous lesson",
    "next": "Next lesson →",
    "to_ticket": "Take the exit ticket →",
    "ticket_title": "Exit ticket",
    "ticket_intro": "Six questions, one for each of the questions people ask most about speculative decoding. "
                    "Answer them all, then grade them together.",
    "score": "Your score",
    "all_right": "All six right: you have the whole idea. The Quiz has more questions on every concept.",
    "revisit": "Worth another look: the lessons that teach what you missed.",
    "revisit_button": "Lesson {number}: {title}",
    "again": "Take the exit ticket again",
    "quiz_link": "Quiz yourself on the concepts you have met",
    "ticket_label": "Exit ticket",
    "start_title": "New to speculative decoding?",
    "start_text": "Take the guided path: ten short lessons, each with one thing to try and two or three questions.",
    "start_link": "Start the guided path",
}


# ---- where the learner stands ----------------------------------------------------------------------------------
def current_progress() -> Progress:
    """The session's progress; on a session's first run, the URL's (a bad URL gets one sentence, then lesson 1)."""
    progress = state.learn_progress()
    if progress is None:
        progress, problem = parse_progress({key: st.query_params[key] for key in st.query_params})
        st.session_state["learn_problem"] = problem
        state.set_learn_progress(progress)
    return progress


# After a move the browser would stay where the button was (at the bottom of the last lesson); this brings the new
# lesson's title into view. The counter makes each move's script new, so the browser runs it again.
SCROLL_UP = ("<script>/* move {n} */ document.querySelector('[data-testid=\"stMainBlockContainer\"] h1')"
             "?.scrollIntoView({{block: 'start'}});</script>")


def _go(lesson: int | str, finished: int | None = None) -> None:
    """Callback of the navigation buttons: move, marking the lesson left behind done."""
    state.set_learn_progress(current_progress().go(lesson, finished))
    st.session_state.pop("learn_problem", None)
    st.session_state["learn_moves"] = st.session_state.get("learn_moves", 0) + 1
    st.session_state["learn_scroll"] = True


def _jump() -> None:
    choice = st.session_state.get("learn_jump")
    if choice is not None:
        _go(TICKET if choice == TICKET else int(choice))


def _link(page: str, label: str, icon: str | None = None, query: dict[str, str] | None = None) -> None:
    try:
        st.page_link(page, label=label, icon=icon, query_params=query)
    except StreamlitAPIException:  # the page runs on its own, outside the app's router
        st.caption(label)


def progress_bar(progress: Progress) -> None:
    """How far along, and a row of lesson numbers (✓ for done) to jump with."""
    st.progress(len(progress.done) / LAST, text=TEXT["progress"].format(done=len(progress.done), total=LAST))
    options = [str(lesson.number) for lesson in LESSONS] + [TICKET]
    st.session_state["learn_jump"] = str(progress.lesson)
    st.segmented_control(
        TEXT["jump"], options, key="learn_jump", on_change=_jump, label_visibility="collapsed",
        format_func=lambda o: TEXT["ticket_label"] if o == TICKET else f"{o} ✓" if int(o) in progress.done else o)


# ---- one lesson ---------------------------------------------------------------------------------------------------
def _checks(bank: Bank, lesson: Lesson) -> None:
    """The lesson's questions, each with its own Check button; all answered marks the lesson done."""
    runs = st.session_state.setdefault("learn_checks", {})
    run: QuizRun = runs.setdefault(lesson.number, QuizRun(check_questions(bank, lesson), seed=0))
    for number, question in enumerate(run.questions, start=1):
        with st.container(border=True):
            st.markdown(TEXT["check_header"].format(number=number, total=len(run.questions)))
            st.markdown(question.prompt)
            result = run.grades.get(question.id)
            key = f"learn_q{lesson.number}_{question.id}"
            answer = quiz_view.answer_widget(question, run.seed, key, disabled=result is not None,
                                             graded=run.answers.get(question.id) if result is not None else None)
            if result is not None:
                quiz_view.feedback(question, result)
            elif st.button(TEXT["check_button"], key=f"{key}_check"):
                if quiz_view.is_blank(answer):
                    st.warning(quiz_view.TEXT["give_answer"])
                else:
                    run.submit(question, answer)
                    if len(run.grades) == len(run.questions):
                        state.set_learn_progress(current_progress().go(lesson.number, lesson.number))
                    st.rerun()


def render_lesson(bank: Bank, lesson: Lesson) -> None:
    st.subheader(TEXT["heading"].format(number=lesson.number, total=LAST, title=lesson.title), anchor=lesson.slug)
    st.info(TEXT["objective"].format(objective=lesson.objective))
    st.markdown(lesson.text)
    st.markdown(f"##### {TEXT['try']}")
    INTERACTIONS[lesson.interaction](lesson)
    st.markdown(f"##### {TEXT['check']}")
    _checks(bank, lesson)
    title = PAGE_TITLES.get(lesson.page, lesson.page)
    # a page link cannot jump to a section (and a #anchor does not survive the page's own URL rewrite): name it
    _link(lesson.page, TEXT["deeper_section"].format(title=title, section=lesson.section) if lesson.section
          else TEXT["deeper"].format(title=title), ":material/arrow_forward:")


def navigation(progress: Progress) -> None:
    lesson = int(progress.lesson)
    left, _, right = st.columns([2, 1, 2])
    if lesson > 1:
        left.button(TEXT["prev"], key="learn_prev", on_click=_go, args=(lesson - 1,), width="stretch")
    label = TEXT["to_ticket"] if lesson == LAST else TEXT["next"]
    right.button(label, key="learn_next", type="primary", on_click=_go, width="stretch",
                 args=(TICKET if lesson == LAST else lesson + 1, lesson))


# ---- the exit ticket ----------------------------------------------------------------------------------------------
def render_ticket(bank: Bank, progress: Progress) -> None:
    st.subheader(TEXT["ticket_title"], anchor="exit-ticket")
    st.markdown(TEXT["ticket_intro"])
    if "learn_ticket" not in st.session_state:
        st.session_state["learn_ticket"] = QuizRun(exit_ticket(bank), seed=0)
        st.session_state["learn_ticket_round"] = st.session_state.get("learn_ticket_round", 0) + 1
    run: QuizRun = st.session_state["learn_ticket"]
    quiz_view.sheet(run, bank, f"learn_ticket{st.session_state['learn_ticket_round']}")
    if not run.grades:
        return
    st.metric(TEXT["score"], f"{run.n_correct} / {len(run.questions)}")
    missed = [q for q in run.questions if not run.grades[q.id].correct]
    if not missed:
        st.success(TEXT["all_right"])
    else:
        st.markdown(TEXT["revisit"])
        for lesson in lessons_to_revisit(missed):
            st.button(TEXT["revisit_button"].format(number=lesson.number, title=lesson.title),
                      key=f"learn_revisit_{lesson.number}", on_click=_go, args=(lesson.number,))
    if st.button(TEXT["again"], key="learn_ticket_again"):
        del st.session_state["learn_ticket"]
        st.rerun()
    _link("pages/quiz.py", TEXT["quiz_link"], ":material/quiz:", progress.to_params())


# ---- the page -----------------------------------------------------------------------------------------------------
def _write_url(progress: Progress) -> None:
    """Put the progress in the address bar, touching only its own parameters (others, such as a language, stay)."""
    wanted = progress.to_params()
    for key in ("lesson", "done"):
        if key in wanted and st.query_params.get(key) != wanted[key]:
            st.query_params[key] = wanted[key]
        elif key not in wanted and key in st.query_params:
            del st.query_params[key]


def render(bank: Bank) -> None:
    """The whole page below its title: the URL's progress, the indicator, the lesson or the ticket."""
    progress = current_progress()
    problem = st.session_state.get("learn_problem")
    if problem:
        st.warning(problem)
    if st.session_state.pop("learn_scroll", False):
        st.html(SCROLL_UP.format(n=st.session_state.get("learn_moves", 0)), unsafe_allow_javascript=True)
    st.caption(TEXT["intro"])
    progress_bar(progress)
    if progress.lesson == TICKET:
        render_ticket(bank, progress)
    else:
        render_lesson(bank, BY_NUMBER[int(progress.lesson)])
        navigation(progress)
    progress = current_progress()  # a check answered on this run may have marked the lesson done
    _write_url(progress)
    if progress.lesson != TICKET:
        _link("pages/quiz.py", TEXT["quiz_link"], ":material/quiz:", progress.to_params())


def start_link() -> None:
    """The Overview's pointer for a first-time learner: one sentence and the link to lesson 1."""
    with st.container(border=True):
        st.markdown(f"**{TEXT['start_title']}** {TEXT['start_text']}")
        _link("pages/learn.py", TEXT["start_link"], ":material/school:", {"lesson": "1"})
