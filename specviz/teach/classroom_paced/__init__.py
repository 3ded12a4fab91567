"""Teacher-paced classroom sessions: peer instruction (Mazur) on top of the classroom store.

The teacher pushes one question to the whole class; everyone answers it at once and sees no feedback; the teacher
sees how the answers spread (without the right one), lets neighbours discuss, opens a second round of the same
question, and then reveals the answer with its explanation. A pushed question is stored whole with the push, so a
question made from a live Playground step (`ask_the_class`) is pushed like a bank question.

The tables sit next to the self-paced ones in the same SQLite file (created with CREATE TABLE IF NOT EXISTS, so an
older database gains them when it is opened), and the store is the same `ClassroomStore`, extended:

    paced_sessions   which sessions are teacher-paced
    pushes           one row per pushed question: its round (1 or 2), whether answers are open, whether revealed
    round_answers    one answer per (push, round, student), held by a UNIQUE constraint, so a double submit
                     (two tabs, two threads) is counted once: the first one

Who may push, open round 2 or reveal is the page's business (the teacher's PIN); what may be answered is checked
here, and every refusal is one ClassroomError sentence. No Streamlit here.

The package's modules, bottom to top: `text` (its sentences), `spread` (how answers spread over the choices),
`store` (PacedStore), `questions` (the teacher's search, questions from a Playground step) and `join` (the join
address and its QR code). Everything public is importable from `specviz.teach.classroom_paced` itself.
"""

from __future__ import annotations

from specviz.teach.classroom_paced.text import TEXT
from specviz.teach.classroom_paced.spread import Distribution, NUMERIC_BINS, checked_answer, distribution, relabel
from specviz.teach.classroom_paced.store import (ConceptScore, POLL_SECONDS, PacedStore, Push, ROUNDS, display_order,
                                                 twin_of)
from specviz.teach.classroom_paced.questions import ask_the_class, how_many_question, search_questions
from specviz.teach.classroom_paced.join import join_url, qr_data_uri, qr_svg

__all__ = ["ConceptScore", "Distribution", "NUMERIC_BINS", "POLL_SECONDS", "PacedStore", "Push", "ROUNDS", "TEXT",
           "ask_the_class", "checked_answer", "display_order", "distribution", "how_many_question", "join_url",
           "qr_data_uri", "qr_svg", "relabel", "search_questions", "twin_of"]
