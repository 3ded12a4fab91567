"""Streamlit pieces of the quiz: answer widgets, feedback, a run one question at a time or as a sheet, the mastery
chart and the downloads. The quiz logic itself (grading, order, scores) is in specviz.quiz; where the questions come
from (the bank, a teacher's upload, a trace) is `specviz.ui.quiz_setup`. The Quiz and Classroom pages share both."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
import streamlit as st
from streamlit.errors import StreamlitAPIException

from specviz.pagemap import PAGES
from specviz.quiz import Bank, ConceptMastery, Grade, Question, QuizRun, csv_text, results_json

PAGE_TITLES = {path: (title, icon) for pages in PAGES.values() for path, title, icon in pages}


# ---- one question ----------------------------------------------------------------------------------------------
def page_link(path: str) -> None:
    """A link to the app page that shows this idea (a caption when the page is run on its own, outside the app)."""
    title, icon = PAGE_TITLES.get(path, (path, None))
    try:
        st.page_link(path, label=f"See it on the {title} page", icon=icon)
    except StreamlitAPIException:
        st.caption(f"See it on the {title} page.")


def answer_widget(question: Question, seed: int, key: str, disabled: bool = False) -> Any:
    """The input for one question; returns the learner's current answer (None or empty when nothing is given)."""
    if question.kind == "single":
        return st.radio("Your answer", question.options(seed), index=None, key=key, disabled=disabled)
    if question.kind == "multiple":
        st.caption("Tick every right choice.")
        return [c for i, c in enumerate(question.options(seed))
                if st.checkbox(c, key=f"{key}_{i}", disabled=disabled)]
    if question.kind == "ordering":
        return st.multiselect("Pick the items in order, first to last", question.options(seed), key=key,
                              disabled=disabled)
    unit = f" ({question.unit})" if question.unit else ""
    return st.text_input(f"Your answer{unit}", key=key, placeholder="a number, e.g. 0.25", max_chars=64,
                         disabled=disabled)


def is_blank(answer: Any) -> bool:
    return answer is None or (isinstance(answer, str | list) and not [a for a in answer if str(a).strip()])


def feedback(question: Question, result: Grade) -> None:
    """Right or wrong, the explanation, and the page that shows the idea."""
    (st.success if result.correct else st.error)(result.feedback)
    st.info(question.explanation)
    page_link(question.link)


def question_header(question: Question, bank: Bank, number: int, total: int) -> None:
    st.markdown(f"**Question {number} of {total}** · {bank.label(question.concept)}")
    st.markdown(question.prompt)


# ---- a whole run -------------------------------------------------------------------------------------------------
def one_at_a_time(run: QuizRun, bank: Bank, key: str) -> None:
    """The current question; Check grades it and shows feedback, Next moves on."""
    question = run.current()
    if question is None:
        return
    st.progress(run.position / len(run.questions))
    question_header(question, bank, run.position + 1, len(run.questions))
    result = run.grades.get(question.id)
    answer = answer_widget(question, run.seed, f"{key}_{question.id}", disabled=result is not None)
    if result is None:
        if st.button("Check", key=f"{key}_check", type="primary"):
            if is_blank(answer):
                st.warning("Give an answer first.")
            else:
                run.submit(question, answer)
                st.rerun()
        return
    feedback(question, result)
    last = run.position + 1 == len(run.questions)
    if st.button("See my results" if last else "Next question", key=f"{key}_next", type="primary"):
        run.advance()
        st.rerun()


def sheet(run: QuizRun, bank: Bank, key: str) -> None:
    """Every question on one form; one button grades them all."""
    answers: dict[str, Any] = {}
    with st.form(f"{key}_sheet"):
        for number, question in enumerate(run.questions, start=1):
            with st.container(border=True):
                question_header(question, bank, number, len(run.questions))
                answers[question.id] = answer_widget(question, run.seed, f"{key}_{question.id}")
                if question.id in run.grades:
                    feedback(question, run.grades[question.id])
        submitted = st.form_submit_button("Grade my answers", type="primary")
    if submitted:
        for question in run.questions:
            run.submit(question, answers[question.id])
        run.position = len(run.questions)
        st.rerun()


def mastery_chart(rows: list[ConceptMastery]) -> go.Figure:
    """Share of right answers per concept, with 'right/answered' on each bar."""
    shown = [r for r in rows if r.answered]
    fig = go.Figure(go.Bar(
        x=[100 * r.share for r in shown], y=[r.label for r in shown], orientation="h",
        text=[f"{r.correct}/{r.answered}" for r in shown], textposition="auto",
        marker_color=["#2e7d32" if r.share >= 0.8 else "#f9a825" if r.share >= 0.5 else "#c62828" for r in shown],
        hovertemplate="%{y}: %{x:.0f}% right<extra></extra>"))
    fig.update_layout(xaxis={"range": [0, 100], "title": "% right"}, yaxis={"autorange": "reversed"},
                      height=80 + 32 * len(shown), margin={"l": 10, "r": 10, "t": 30, "b": 10},
                      title="Mastery per concept")
    return fig


def results(run: QuizRun, bank: Bank, key: str) -> bool:
    """Score, mastery chart, downloads; returns True when the learner asks to retry the missed questions."""
    answered = len(run.grades)
    st.metric("Score", f"{run.n_correct} / {len(run.questions)}",
              help=f"{answered} answered" if answered < len(run.questions) else None)
    st.plotly_chart(mastery_chart(run.mastery(bank)), key=f"{key}_mastery")
    csv_col, json_col, retry_col = st.columns(3)
    csv_col.download_button("Download results (CSV)", csv_text(run.results()), "specviz-quiz-results.csv",
                            "text/csv", key=f"{key}_csv", on_click="ignore")
    json_col.download_button("Download results (JSON)", results_json(run), "specviz-quiz-results.json",
                             "application/json", key=f"{key}_json", on_click="ignore")
    missed = run.missed()
    return bool(missed) and retry_col.button(f"Retry the {len(missed)} I missed", key=f"{key}_retry")
