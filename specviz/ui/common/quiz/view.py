"""Streamlit pieces of the quiz: answer widgets, feedback, a run one question at a time or as a sheet, the mastery
chart and the downloads. The quiz logic itself (grading, order, scores) is in specviz.teach.quiz; where the questions come
from (the bank, a teacher's upload, a trace) is `specviz.ui.common.quiz.setup`. The Quiz, Classroom and Learn pages
share both."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from streamlit.errors import StreamlitAPIException

from specviz.core.i18n import N_, _, get_language, ngettext, percent_of
from specviz.teach.pagemap import PAGES
from specviz.teach.quiz import Bank, ConceptMastery, Grade, Question, QuizRun, csv_text, results_json
from specviz.teach.quiz.run import is_blank  # noqa: F401 - the classroom and Learn views ask it here
from specviz.teach.quiz.schema import QuestionKind
from specviz.ui.common.charts import localize, show
from specviz.ui.common.palette import BLUE

PAGE_TITLES = {path: (title, icon) for pages in PAGES.values() for path, title, icon in pages}
# How an option looks once the question is graded (a badge before the option's own text; the badges are fixed
# markdown, the option text is the bank's, which is markdown by design).
MARKS = {"right": N_(":green-background[**✓ right answer**]"), "wrong_pick": N_(":red-background[**✗ your pick**]"),
         "missed": N_(":green-background[**✓ right answer, not picked**]")}
TEXT = {  # English messages, translated with `_()` where they are shown
    "answer_label": N_("Your answer"),
    "tick_all": N_("Tick every right choice."),
    "order_label": N_("Pick the items in order, first to last"),
    "order_right": N_("The right order: {items}"),
    "number_label": N_("Your answer"),
    "number_label_unit": N_("Your answer ({unit})"),
    "number_hint": N_("a number, e.g. 0.25"),
    "give_answer": N_("Give an answer first."),
    "chart_title": N_("Mastery per concept"),
    "chart_axis": N_("% right"),
    "chart_hover": N_("%{y}: %{customdata} right"),
    "see_it": N_("See it on the {title} page"),
    "see_it_caption": N_("See it on the {title} page."),
    "question": N_("**Question {number} of {total}** · {concept}"),
    "check": N_("Check"),
    "results": N_("See my results"),
    "next": N_("Next question"),
    "grade": N_("Grade my answers"),
    "score": N_("Score"),
    "csv": N_("Download results (CSV)"),
    "json": N_("Download results (JSON)"),
}


# ---- one question ----------------------------------------------------------------------------------------------
def page_link(path: str) -> None:
    """A link to the app page that shows this idea (a caption when the page is run on its own, outside the app)."""
    title, icon = PAGE_TITLES.get(path, (path, None))
    title = _(title) if path in PAGE_TITLES else title
    try:
        st.page_link(path, label=_(TEXT["see_it"], title=title), icon=icon)
    except StreamlitAPIException:
        st.caption(_(TEXT["see_it_caption"], title=title))


def answer_widget(question: Question, seed: int, key: str, disabled: bool = False, graded: Any = None) -> Any:
    """The input for one question; returns the learner's current answer (None or empty when nothing is given).
    With `graded` (the learner's graded answer), the right options are marked, and so is a wrong pick."""
    marked = graded is not None
    if question.kind == QuestionKind.SINGLE:
        return st.radio(_(TEXT["answer_label"]), question.options(seed), index=None, key=key, disabled=disabled,
                        format_func=lambda c: mark_option(question, c, graded) if marked else c)
    if question.kind == QuestionKind.MULTIPLE:
        st.caption(_(TEXT["tick_all"]))
        return [c for i, c in enumerate(question.options(seed))
                if st.checkbox(mark_option(question, c, graded) if marked else c, key=f"{key}_{i}",
                               disabled=disabled)]
    if question.kind == QuestionKind.ORDERING:
        picked = st.multiselect(_(TEXT["order_label"]), question.options(seed), key=key, disabled=disabled)
        if marked:
            st.caption(_(TEXT["order_right"], items=" → ".join(question.answer)))
        return picked
    label = _(TEXT["number_label_unit"], unit=question.unit) if question.unit else _(TEXT["number_label"])
    return st.text_input(label, key=key, placeholder=_(TEXT["number_hint"]), max_chars=64, disabled=disabled)


def answer_in_state(question: Question, seed: int, key: str) -> Any:
    """What `answer_widget(question, seed, key)` returns, read from the session's widget values: for a button's
    callback, which runs before the widgets are drawn again."""
    state = st.session_state
    if question.kind == QuestionKind.MULTIPLE:
        return [c for i, c in enumerate(question.options(seed)) if state.get(f"{key}_{i}")]
    if question.kind == QuestionKind.ORDERING:
        return list(state.get(key) or [])
    return state.get(key)


def mark_option(question: Question, option: str, given: Any) -> str:
    """An option's label after grading: a "right answer" badge on each right choice, "your pick" on a wrong one
    the learner chose (so the right ones stand out in place, not only in the feedback sentence).

    >>> from specviz.teach.quiz import Question
    >>> q = Question("d", "accept_rule", "single", "?", "yes", "", "pages/quiz.py", ("yes", "no"))
    >>> mark_option(q, "yes", "no"), mark_option(q, "no", "no")
    (':green-background[**✓ right answer**] yes', ':red-background[**✗ your pick**] no')
    """
    right = {question.answer} if question.kind == QuestionKind.SINGLE else set(question.answer)
    picked = {given} if isinstance(given, str) else set(given or ())
    if option in right:
        mark = MARKS["missed"] if question.kind == QuestionKind.MULTIPLE and option not in picked else MARKS["right"]
        badge = _(mark)
    elif option in picked:
        badge = _(MARKS["wrong_pick"])
    else:
        return option
    return f"{badge} {option}"


def feedback(question: Question, result: Grade) -> None:
    """Right or wrong, the explanation, and the page that shows the idea."""
    (st.success if result.correct else st.error)(result.feedback)
    st.info(question.explanation)
    page_link(question.link)


def question_header(question: Question, bank: Bank, number: int, total: int) -> None:
    st.markdown(_(TEXT["question"], number=number, total=total, concept=bank.label(question.concept)))
    st.markdown(question.prompt)


# ---- a whole run -------------------------------------------------------------------------------------------------
def one_at_a_time(run: QuizRun, bank: Bank, key: str) -> None:
    """The current question; Check grades it and shows feedback, Next moves on."""
    question = run.current()
    if question is None:
        return
    st.progress(run.position / len(run.questions))
    result = run.grades.get(question.id)
    with st.container(key=f"{key}_question"):  # where "Quiz me on all concepts" lands (accessibility.LANDINGS)
        question_header(question, bank, run.position + 1, len(run.questions))
        answer = answer_widget(question, run.seed, f"{key}_{question.id}", disabled=result is not None,
                               graded=run.answers.get(question.id) if result is not None else None)
    if result is None:
        if st.button(_(TEXT["check"]), key=f"{key}_check", type="primary"):
            if is_blank(answer):
                st.warning(_(TEXT["give_answer"]))
            else:
                run.submit(question, answer, get_language())
                st.rerun()
        return
    feedback(question, result)
    last = run.position + 1 == len(run.questions)
    if st.button(_(TEXT["results"] if last else TEXT["next"]), key=f"{key}_next", type="primary"):
        run.advance()
        st.rerun()


def sheet(run: QuizRun, bank: Bank, key: str) -> None:
    """Every question on one form; one button grades them all. Enter in a number's field does not press it (read 48:
    Enter after the first number graded the whole sheet, the questions below it unanswered and marked wrong)."""
    answers: dict[str, Any] = {}
    with st.form(f"{key}_sheet", enter_to_submit=False):
        for number, question in enumerate(run.questions, start=1):
            with st.container(border=True):
                question_header(question, bank, number, len(run.questions))
                graded = run.answers.get(question.id) if question.id in run.grades else None
                answers[question.id] = answer_widget(question, run.seed, f"{key}_{question.id}", graded=graded)
                if question.id in run.grades:
                    feedback(question, run.grades[question.id])
        submitted = st.form_submit_button(_(TEXT["grade"]), type="primary")
    if submitted:
        for question in run.questions:
            run.submit(question, answers[question.id], get_language())
        run.position = len(run.questions)
        st.rerun()


def mastery_chart(rows: list[ConceptMastery]) -> go.Figure:
    """Share of right answers per concept, with 'right/answered' on each bar, all bars one colour (no unnamed tiers
    told apart by colour alone). Every answered concept gets a row with a grey track to 100 %, so a concept at 0 %
    still shows its 0/N (beside an empty track) instead of nothing."""
    shown = [r for r in rows if r.answered]
    labels = [r.label for r in shown]
    fig = go.Figure()
    fig.add_bar(x=[100] * len(shown), y=labels, orientation="h", marker_color="#EEEEEE", hoverinfo="skip",
                showlegend=False, name="track")
    fig.add_bar(
        x=[100 * r.share for r in shown], y=labels, orientation="h", name="right",
        text=[f"{r.correct}/{r.answered}" for r in shown],
        textposition=["inside" if r.share >= 0.25 else "outside" for r in shown], cliponaxis=False,
        # one colour: read 54 found green, amber and red bars for >= 80 %, >= 50 % and less, tiers that nothing on
        # the page or in the table named, told apart by red against green alone; length and "right/graded" remain
        marker_color=BLUE,
        customdata=[percent_of(r.correct, r.answered) for r in shown],  # as the table writes it: 99.7%, not 100%
        hovertemplate=_(TEXT["chart_hover"]) + "<extra></extra>", showlegend=False)
    fig.update_layout(barmode="overlay", xaxis={"range": [0, 100], "title": _(TEXT["chart_axis"])},
                      yaxis={"autorange": "reversed"}, height=80 + 32 * len(shown),
                      margin={"l": 10, "r": 10, "t": 30, "b": 10}, title=_(TEXT["chart_title"]))
    return localize(fig)


def mastery_table(rows: list[ConceptMastery]) -> pd.DataFrame:
    """The mastery chart's numbers: per graded concept, right answers of graded ones and the share. "Graded", not
    "answered": a sheet grades a question left blank as wrong (read 50: "Right / answered 1/3" of two answers)."""
    shown = [r for r in rows if r.answered]
    return pd.DataFrame({_("Concept"): [r.label for r in shown],
                         _("Right / graded"): [f"{r.correct}/{r.answered}" for r in shown],
                         _("Share right"): [percent_of(r.correct, r.answered) for r in shown]})


def results(run: QuizRun, bank: Bank, key: str, pool: list[Question] | None = None) -> bool:
    """Score, mastery chart, downloads; returns True when the learner asks to try again on the missed questions
    (a retry draws fresh questions on the same concepts from `pool`: `QuizRun.retry_plan`)."""
    answered = run.n_answered  # a sheet's blank answers are graded (wrong) but not answered
    st.metric(_(TEXT["score"]), f"{run.n_correct} / {len(run.questions)}",
              help=ngettext("{n} answered", "{n} answered", answered) if answered < len(run.questions) else None)
    mastery = run.mastery(bank)
    show(mastery_chart(mastery), f"{key}_mastery", table=mastery_table(mastery))
    csv_col, json_col, retry_col = st.columns(3)
    csv_col.download_button(_(TEXT["csv"]), csv_text(run.results()), "specviz-quiz-results.csv",
                            "text/csv", key=f"{key}_csv", on_click="ignore")
    json_col.download_button(_(TEXT["json"]), results_json(run), "specviz-quiz-results.json",
                             "application/json", key=f"{key}_json", on_click="ignore")
    missed = run.missed()
    if not missed:
        return False
    clicked = retry_col.button(ngettext("Try again: {n} question on what I missed",
                                        "Try again: {n} questions on what I missed", len(missed)), key=f"{key}_retry")
    st.caption(retry_note(run, pool or []))
    return clicked


def retry_note(run: QuizRun, pool: list[Question]) -> str:
    """What a retry will ask, said before the learner clicks: new questions, or some missed ones again. A missed one
    comes back when `pool` has no other question on its concept that this quiz has not asked: every one asked, or
    none there at all (a live question's concept outside the concepts picked): tests/ui/test_quiz_page.py."""
    plan = run.retry_plan(pool)
    back = sum(new.id == old.id for new, old in zip(plan, run.missed(), strict=True))
    if not back:
        return ngettext("A miss shows its answer, so the retry asks a new question on the same concept.",
                        "A miss shows its answer, so the retry asks new questions on the same concepts.",
                        len(plan))
    if back == len(plan):
        return ngettext("{n} question comes back: this quiz has no other question on its concept left to ask.",
                        "{n} questions come back: this quiz has no other questions on their concepts left to ask.",
                        back)
    return ngettext("{n} of the {total} comes back: this quiz has no other question on its concept left to ask.",
                    "{n} of the {total} come back: this quiz has no other questions on their concepts left to ask.",
                    back,
                    total=len(plan))
