"""Where the quiz's questions come from: the bundled bank (plus SPECVIZ_QUIZ_PATHS), a teacher's uploaded file,
live questions from an uploaded trace, and the settings that pick from them. Shared by the Quiz and Classroom pages;
`specviz.ui.quiz_view` asks the questions."""

from __future__ import annotations

import os
from dataclasses import dataclass

import streamlit as st

from specviz.quiz import (BANK_DIR, PATHS_ENV, Bank, Question, QuizBankError, live_quiz, load_bank, merge_banks,
                          parse_bank)
from specviz.quiz.run import ORDERS
from specviz.trace import Trace


@dataclass(frozen=True)
class QuizSettings:
    mode: str  # "one" or "sheet"
    seed: int
    concepts: tuple[str, ...]
    count: int
    order: str = "basics"  # "basics" (each concept's basic question first) or "shuffled" (by the seed)


@st.cache_resource(show_spinner=False)
def _cached_bank(extra_paths: str) -> Bank:
    """The bundled bank plus SPECVIZ_QUIZ_PATHS (its value is the cache key, so a change reloads)."""
    return load_bank()


@st.cache_resource(show_spinner=False)
def _bundled_bank() -> Bank:
    return load_bank([BANK_DIR])


def default_bank() -> Bank:
    """The bundled bank plus SPECVIZ_QUIZ_PATHS; if an extra file is broken, one st.error sentence and the
    bundled questions alone."""
    try:
        return _cached_bank(os.environ.get(PATHS_ENV, ""))
    except QuizBankError as exc:
        st.error(f"{exc} Using the built-in questions only.")
        return _bundled_bank()


def with_upload(bank: Bank, key: str) -> Bank:
    """`bank` plus the questions of a teacher's uploaded YAML file; a broken file gets one st.error sentence."""
    upload = st.file_uploader("Add your own questions (a YAML quiz file; the format is in assets/quiz/README.md)",
                              type=["yaml", "yml"], key=key)
    if upload is None:
        return bank
    try:
        return merge_banks([bank, parse_bank(upload.getvalue(), upload.name)])
    except QuizBankError as exc:
        st.error(str(exc))
        return bank


def trace_questions(key: str, seed: int) -> list[Question]:
    """Live questions from a trace file the learner uploads (a JSON trace saved from the Playground)."""
    upload = st.file_uploader("Add live questions from a trace (a JSON trace saved from the Playground)",
                              type=["json"], key=key)
    if upload is None:
        return []
    try:
        questions = live_quiz(Trace.from_json(upload.getvalue()), seed)
    except ValueError as exc:
        st.error(str(exc))
        return []
    if not questions:
        st.warning("This trace has no drafted tokens to ask about.")
    return questions


def settings_panel(bank: Bank) -> QuizSettings:
    """Mode, seed, concepts and length, gathered in one row."""
    mode_col, order_col, seed_col, count_col = st.columns([2, 2, 1, 2])
    mode = mode_col.radio("How to take it", ["One question at a time", "As a sheet"], horizontal=True,
                          key="quiz_mode")
    order = order_col.radio("Order", list(ORDERS), format_func=ORDERS.get, horizontal=True, key="quiz_order",
                            help="Basics first: the basic question of each concept before any harder one. "
                                 "Shuffled: a random order, fixed by the seed.")
    seed = int(seed_col.number_input("Shuffle seed", min_value=0, max_value=10**6, value=0, step=1, key="quiz_seed",
                                     help="Shuffles the choices (and, with Shuffled, the questions)."))
    concepts = st.multiselect("Concepts (none picked = all)", bank.used_concepts(), format_func=bank.label,
                              key="quiz_concepts")
    available = len(bank.select(concepts))
    count = int(count_col.slider("Questions", 1, max(available, 2), min(10, available), key="quiz_count"))
    return QuizSettings("sheet" if mode == "As a sheet" else "one", seed, tuple(concepts), min(count, available),
                        order)
