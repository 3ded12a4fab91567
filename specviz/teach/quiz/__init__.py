"""Quiz questions as data: the bank loader and validator, the graders, live questions from a trace, and scoring.

Questions live in YAML files (`assets/quiz/*.yaml`, schema in `assets/quiz/README.md`); `load_bank` reads and
validates them, so a teacher can add a file without touching code. Four question types share one `Question`
dataclass and one `grade(question, answer)`:

  single    pick one choice          answer: the choice's text
  multiple  pick every right choice  answer: a list of choice texts
  numeric   type a number            answer: a number (or a string like "0.4" or "40%"), right within `tolerance`
  ordering  put items in order       answer: the items as a list, in the learner's order

`live_questions` builds questions of the same type from one step of a real `Trace`, and `score_predictions` scores
predict-then-reveal guesses of how many drafts a step accepts. A broken bank file is a `QuizBankError` whose message
is one sentence naming the file and, when one question is at fault, the question. Nothing here imports Streamlit:
a question's `link` is checked against the app's page map, `specviz.teach.pagemap`, which is plain data.

This package only gathers the public names; the parts:
  schema       question types, concepts, FORMULAS and the bounds of their parameters (FORMULA_PARAMS), the
               Question and Bank dataclasses
  bank         load_bank, parse_bank, merge_banks, question_from_dict: reading and validating the YAML files, with
               the limits that make an upload from anyone safe to read (MAX_BYTES, MAX_QUESTIONS, ...)
  grading      grade, Grade, parse_number, read_answer
  run          QuizRun, ConceptMastery, and the CSV / JSON downloads
  live         live_questions, live_quiz: questions from one step of a trace
  predictions  score_predictions: predict-then-reveal
  translation  a translated bank (assets/quiz/<lang>/) checked against the English one; `bank` uses it, and its
               names are not gathered here
"""

from __future__ import annotations

from specviz.teach.quiz.bank import BANK_DIR, PATHS_ENV, bank_paths, load_bank, merge_banks, parse_bank, question_from_dict
from specviz.teach.quiz.grading import Grade, grade, parse_number, read_answer
from specviz.teach.quiz.live import LIVE_LINK, live_questions, live_quiz
from specviz.teach.quiz.predictions import PredictionScore, StepPrediction, score_predictions
from specviz.teach.quiz.run import ConceptMastery, QuizRun, answer_text, csv_text, results_json, shown_answer
from specviz.teach.quiz.schema import CONCEPTS, FAQ_TOPICS, FORMULA_PARAMS, FORMULAS, TYPES, Bank, Question, QuizBankError

__all__ = [
    # schema
    "CONCEPTS", "FAQ_TOPICS", "FORMULA_PARAMS", "FORMULAS", "TYPES", "Bank", "Question", "QuizBankError",
    # bank
    "BANK_DIR", "PATHS_ENV", "bank_paths", "load_bank", "merge_banks", "parse_bank", "question_from_dict",
    # grading
    "Grade", "grade", "parse_number", "read_answer",
    # run
    "ConceptMastery", "QuizRun", "answer_text", "csv_text", "results_json", "shown_answer",
    # live
    "LIVE_LINK", "live_questions", "live_quiz",
    # predictions
    "PredictionScore", "StepPrediction", "score_predictions",
]

# `doctest.testmod(specviz.teach.quiz)` looks only at objects defined in this file; point it at the parts' examples.
__test__ = {"load_bank": load_bank, "grade": grade, "parse_number": parse_number,
            "score_predictions": score_predictions}
