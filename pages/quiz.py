"""Quiz: questions from the bank (and a teacher's own file), one at a time or as a sheet, with feedback."""

import streamlit as st

from specviz.core.i18n import N_, _
from specviz.teach.quiz import QuizRun
from specviz.ui.common.frame import page_start
from specviz.ui.common.quiz import setup as quiz_setup, view as quiz_view

page_start(N_("Quiz"), N_("Check your understanding of speculative decoding. Every answer comes with an explanation "
                         "and a link to the page that shows the idea."))

bank = quiz_setup.default_bank()
met = quiz_setup.met_concepts()
with st.expander(_("Quiz settings"), expanded=False):
    bank = quiz_setup.with_upload(bank, "quiz_upload")
    scope = quiz_setup.scope_picker(met)
    settings = quiz_setup.settings_panel(bank, met if scope == "met" else None)
    live = quiz_setup.trace_questions("quiz_trace", settings.seed)
    restart = st.button(_("Start over"), key="quiz_restart")
if quiz_setup.scope_note(scope, met):  # nothing met yet: the note offers all concepts and the guided path
    st.stop()

signature = (scope, settings.seed, settings.order, settings.concepts, settings.count, len(bank),
             tuple(q.id for q in live))
if restart or st.session_state.get("quiz_signature") != signature:
    st.session_state["quiz_signature"] = signature
    st.session_state["quiz_run"] = QuizRun.start(bank.select(settings.concepts), settings.seed, settings.count,
                                                 order=settings.order)
    st.session_state["quiz_run"].questions += live
    st.session_state["quiz_round"] = st.session_state.get("quiz_round", 0) + 1

run: QuizRun = st.session_state["quiz_run"]
twins = {**bank.by_id(), **{q.id: q for q in live}}  # the same questions in the language of this run
if any(twins.get(q.id, q) != q for q in run.questions):  # the learner switched language mid-quiz
    run = st.session_state["quiz_run"] = run.relabeled(twins)
key = f"quiz_r{st.session_state['quiz_round']}"
if settings.mode == "sheet":
    quiz_view.sheet(run, bank, key)
else:
    quiz_view.one_at_a_time(run, bank, key)

done = settings.mode == "sheet" or run.current() is None
pool = bank.select(settings.concepts)  # where a retry finds fresh questions on the concepts missed
if run.grades and done and quiz_view.results(run, bank, key, pool):  # True when "Try again" is clicked
    st.session_state["quiz_run"] = run.retry_missed(pool)
    st.session_state["quiz_round"] += 1
    st.rerun()
