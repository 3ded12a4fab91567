"""Where the quiz's questions come from: the bundled bank (plus SPECVIZ_QUIZ_PATHS), a teacher's uploaded file,
live questions from an uploaded trace, and the settings that pick from them. Shared by the Quiz, Classroom and Learn
pages (the guided path takes its bank from `default_bank`);
`specviz.ui.common.quiz.view` asks the questions.

The Quiz draws by default from the concepts the learner has met on the guided path (`met_concepts`, from this
session or from the `?lesson=..&done=..` a link from the path carries); `scope_picker` widens it to all concepts."""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

from specviz.core import urlvalues
from specviz.core.i18n import N_, _, get_language, ngettext, using
from specviz.ui.common.escaping import escape_markdown
from specviz.teach.learn import parse_progress
from specviz.teach.quiz import (BANK_DIR, PATHS_ENV, Bank, Question, QuizBankError, live_quiz, load_bank, merge_banks,
                          parse_bank)
from specviz.engine.trace import Trace
from specviz.teach.quiz.run import ORDERS
from specviz.ui.common import state
from specviz.ui.common.escaping import escape_markdown

# English messages, translated with `_()` where they are shown
SCOPES = {"met": N_("Concepts I have met on the guided path ({n})"), "all": N_("All concepts")}
MODES = {"One question at a time": N_("One question at a time"), "As a sheet": N_("As a sheet")}  # value -> label
TEXT = {
    "scope": N_("Draw questions from"),
    "bad_scope": N_("This link asks for questions from {scope}, which the Quiz does not know: it draws from the "
                    "concepts you have met on the guided path (the setting below widens it)."),
    "scope_help": N_("The guided path introduces the concepts one lesson at a time; the Quiz asks about those you "
                     "have met, unless you widen it to all."),
    "scoped": N_("Questions on the {n} concepts you have met on the guided path. To widen it, pick All concepts in "
                 "the Quiz settings."),
    "scoped_one": N_("Questions on the one concept you have met on the guided path. To widen it, pick All concepts "
                     "in the Quiz settings."),
    "nothing_met": N_("You have not met any concepts on the guided path yet, so there is nothing to quiz you on "
                      "there."),
    "bad_link": N_("The link's progress on the guided path could not be read, so no concept counts as met."),
    "all_button": N_("Quiz me on all concepts"),
    "start_path": N_("Start the guided path"),
    "bank_broken": N_("{problem} Using the built-in questions only."),
    "upload": N_("Add your own questions (a YAML quiz file)"),
    "upload_help": N_("A file with a `questions:` list; each question has an id, a concept, a type (single, "
                      "multiple, numeric or ordering), a page link, a prompt, its choices where it has them, the "
                      "answer and an explanation. The example file below holds one question of each type to copy "
                      "and edit; a file that breaks a rule is refused with a sentence that names the question."),
    "example": N_("Download an example quiz file"),
    # read 52: both load; the label named one
    "trace_upload": N_("Add live questions from a trace (a JSON trace saved from the Playground or written by "
                       "`python -m specviz generate --prompt 'the cat' --json trace.json`)"),
    "no_drafts": N_("This trace has no chain step with a tested draft to ask about (the live questions follow a "
                    "chain of drafts; a draft tree's steps follow the recursive rule)."),
    "mode": N_("How to take it"),
    "order": N_("Order"),
    "order_help": N_("Basics first: the basic question of each concept before any harder one. Shuffled: a random "
                     "order, fixed by the seed."),
    "seed": N_("Shuffle seed"),
    "seed_help": N_("Shuffles the choices (and, with Shuffled, the questions)."),
    "concepts": N_("Concepts (none picked = all)"),
    "count": N_("Questions"),
}


@dataclass(frozen=True)
class QuizSettings:
    mode: str  # "one" or "sheet"
    seed: int
    concepts: tuple[str, ...]
    count: int
    order: str = "basics"  # "basics" (each concept's basic question first) or "shuffled" (by the seed)


@st.cache_resource(show_spinner=False)
def _cached_bank(extra_paths: str, lang: str) -> Bank:
    """The bundled bank in `lang` plus SPECVIZ_QUIZ_PATHS (its value is in the cache key, so a change reloads)."""
    return load_bank(lang=lang)


@st.cache_resource(show_spinner=False)
def _bundled_bank(lang: str) -> Bank:
    return load_bank([BANK_DIR], lang=lang)


def default_bank() -> Bank:
    """The bundled bank in the reader's language (the same question ids in every language) plus
    SPECVIZ_QUIZ_PATHS; if an extra file is broken, one st.error sentence and the bundled questions alone."""
    lang = get_language()
    try:
        return _cached_bank(os.environ.get(PATHS_ENV, ""), lang)
    except QuizBankError as exc:  # a cache_resource does not keep an exception: the sentence is in this run's language
        st.error(_(TEXT["bank_broken"], problem=exc))
        return _bundled_bank(lang)


# The example file's first lines, in the reader's language: they name the upload box and the Classroom's form as
# the page shows them (read 46: a Portuguese reader was told to look for "Add your own questions", an English label
# the page never shows them). The box's label is TEXT["upload"] up to its " (".
EXAMPLE_HEADER = N_("A quiz file for specviz. Edit the texts, keep the keys. Upload it with \"{upload}\": on the Quiz "
                    "page for yourself, or in the Classroom's \"{start}\" for a class (a file uploaded on the Quiz "
                    "page stays on the Quiz page).")
EXAMPLE_QUIZ_BODY = """\
questions:
  - id: my-rule-1
    concept: accept_rule
    type: single
    link: pages/playground.py
    prompt: "p = 0.2 and q = 0.5 for a drafted token. With which probability is it kept?"
    choices: ["0.4", "0.2", "1", "0.5"]
    answer: "0.4"
    explanation: "min(1, p/q) = min(1, 0.2/0.5) = 0.4."
  - id: my-rule-2
    concept: accept_rule
    type: numeric
    link: pages/playground.py
    prompt: "p = 0.3 and q = 0.6: what is min(1, p/q)?"
    answer: 0.5
    tolerance: 0.01
    explanation: "0.3 / 0.6 = 0.5, below 1."
  - id: my-loop-1
    concept: core_idea
    type: multiple
    link: pages/playground.py
    prompt: "Which of these happen in one speculative step?"
    choices: ["The draft proposes K tokens", "The target scores K + 1 positions in one pass", "The draft is retrained"]
    answer: ["The draft proposes K tokens", "The target scores K + 1 positions in one pass"]
    explanation: "Drafting and one verification pass; nothing is trained while decoding."
  - id: my-loop-2
    concept: core_idea
    type: ordering
    link: pages/playground.py
    prompt: "Put one step in order."
    answer: ["The draft proposes", "The target verifies", "Accepted drafts are kept", "One more token is added"]
    explanation: "Propose, verify, keep the accepted prefix, then the recovered or bonus token."
"""


def example_quiz() -> str:
    """The downloadable example quiz file: its header in the reader's language, naming the controls as the page
    labels them; the questions in English (a file's own texts are shown as written, in any language)."""
    header = _(EXAMPLE_HEADER, upload=_(TEXT["upload"]).split(" (")[0], start=_("Start a new session"))
    return "".join(f"# {line}\n" for line in textwrap.wrap(header, 116)) + EXAMPLE_QUIZ_BODY


with using("en"):  # whatever language the run that first imports this module speaks
    EXAMPLE_QUIZ = example_quiz()  # in English: what the tests and assets/quiz/README.md quote


def with_upload(bank: Bank, key: str) -> Bank:
    """`bank` plus the questions of a teacher's uploaded YAML file; a broken file gets one st.error sentence. The
    format is told in the help and shown by a downloadable example (a visitor cannot open the repository's
    assets/quiz/README.md: issue 42 item 8)."""
    upload = st.file_uploader(_(TEXT["upload"]), type=["yaml", "yml"], key=key, help=_(TEXT["upload_help"]))
    st.download_button(_(TEXT["example"]), example_quiz(), "my-quiz.yaml", "application/x-yaml",
                       key=f"{key}_example", on_click="ignore")
    if upload is None:
        return bank
    try:
        return merge_banks([bank, parse_bank(upload.getvalue(), upload.name)])
    except QuizBankError as exc:  # it quotes the file's name and values as the visitor wrote them: shown literally
        st.error(escape_markdown(str(exc)))
        return bank


def trace_questions(key: str, seed: int) -> list[Question]:
    """Live questions from a trace file the learner uploads (a JSON trace saved from the Playground)."""
    upload = st.file_uploader(_(TEXT["trace_upload"]), type=["json"], key=key)
    if upload is None:
        return []
    try:
        questions = live_quiz(Trace.from_json(upload.getvalue()), seed)
    except ValueError as exc:
        st.error(escape_markdown(str(exc)))
        return []
    if not questions:
        st.warning(_(TEXT["no_drafts"]))
    return questions


def met_concepts() -> list[str]:
    """The concepts the learner has met on the guided path: this session's progress, or the progress in this page's
    URL (a link from the path carries it); none when neither says anything, or when the URL's progress cannot be
    read, which one warning says (it was silent, so a broken link read as "you have met no concept", 43rd read)."""
    progress = state.learn_progress()
    if progress is None and "lesson" in st.query_params:
        parsed, problem = parse_progress({key: st.query_params[key] for key in st.query_params})
        progress = None if problem else parsed
        if problem:
            st.warning(_(TEXT["bad_link"]))
    return progress.met_concepts() if progress is not None else []


def scope_picker(met: list[str]) -> str:
    """"met" (the default) or "all": where the questions come from. The choice is kept in the URL (`?scope=all`),
    so a reload or a shared link does not ask again."""
    if "quiz_scope" not in st.session_state and "scope" in st.query_params:
        asked = st.query_params["scope"]
        if asked in SCOPES:
            st.session_state["quiz_scope"] = asked
        else:  # read 44: an unknown value fell back to "met" without a word
            shown = urlvalues.echoed(asked, 41)  # read 49: a NUL, line break or direction override as its escape
            shown = shown if shown.strip() else f'"{shown}"'  # read 47: `?scope=` read "questions from ****"
            st.info(_(TEXT["bad_scope"], scope="**" + escape_markdown(shown) + "**"))
    scope = st.radio(_(TEXT["scope"]), list(SCOPES), horizontal=True, key="quiz_scope", help=_(TEXT["scope_help"]),
                     format_func=lambda s: _(SCOPES[s], n=len(met)))
    if st.query_params.get("scope") != scope:
        st.query_params["scope"] = scope
    return scope


def _widen() -> None:
    st.session_state["quiz_scope"] = "all"


def scope_note(scope: str, met: list[str]) -> bool:
    """A caption on where the questions come from and how to widen them; True when there is nothing to ask (nothing
    met yet), after offering all concepts and the guided path."""
    if scope != "met":
        return False
    if met:
        st.caption(_(TEXT["scoped_one"]) if len(met) == 1 else _(TEXT["scoped"], n=len(met)))
        return False
    st.info(_(TEXT["nothing_met"]))
    left, right = st.columns(2)
    left.button(_(TEXT["all_button"]), key="quiz_widen", type="primary", on_click=_widen)
    try:
        right.page_link("pages/learn.py", label=_(TEXT["start_path"]), icon=":material/school:")
    except StreamlitAPIException:  # the page runs on its own, outside the app's router
        right.caption(_(TEXT["start_path"]))
    return True


def question_count(where: Any, available: int, key: str) -> int:
    """How many questions to ask, out of `available`: a slider from 1 to `available` (10 at first) drawn in `where`
    (a column, or `st`). With one question there is nothing to pick, and a slider needs two ends: it ran from 1 to 2
    and 2 quietly asked 1 (read 51); a line says "1 question" instead."""
    if available <= 1:
        where.caption(ngettext("{n} question, the only one on these concepts",
                               "{n} questions, all there are on these concepts", available))
        return available
    return int(where.slider(_(TEXT["count"]), 1, available, min(10, available), key=key))


def settings_panel(bank: Bank, allowed: list[str] | None = None) -> QuizSettings:
    """Mode, seed, concepts and length, gathered in one row. With `allowed`, only those concepts are offered and
    picking none means all of them."""
    mode_col, order_col, seed_col, count_col = st.columns([2, 2, 1, 2])
    mode = mode_col.radio(_(TEXT["mode"]), list(MODES), horizontal=True, key="quiz_mode",
                          format_func=lambda m: _(MODES[m]))
    order = order_col.radio(_(TEXT["order"]), list(ORDERS), format_func=lambda o: _(ORDERS[o]), horizontal=True,
                            key="quiz_order", help=_(TEXT["order_help"]))
    seed = int(seed_col.number_input(_(TEXT["seed"]), min_value=0, max_value=10**6, value=0, step=1,
                                     key="quiz_seed", help=_(TEXT["seed_help"])))
    offered = bank.used_concepts() if allowed is None else [c for c in bank.used_concepts() if c in allowed]
    key = "quiz_concepts" if allowed is None else "quiz_concepts_met"
    if allowed is not None and key in st.session_state:  # a concept picked before the learner moved back a lesson
        st.session_state[key] = [c for c in st.session_state[key] if c in offered]
    concepts = st.multiselect(_(TEXT["concepts"]), offered, format_func=bank.label, key=key)
    if allowed is not None and not concepts:
        concepts = offered
    available = len(bank.select(concepts))
    count = question_count(count_col, available, "quiz_count")
    return QuizSettings("sheet" if mode == "As a sheet" else "one", seed, tuple(concepts), min(count, available),
                        order)
