"""Classroom sessions: a teacher opens a session with a join code, students join by name and answer a quiz.

Everything lives in one SQLite file (WAL mode, a fresh connection per call, so any thread may use a store), which
means a refresh or a reconnect loses nothing: a student is identified by a random token (the page keeps it in the
URL) and resumes at their first unanswered question. Answers are graded here, server-side, with
`specviz.teach.quiz.grade`, and stored once: the first answer to a question counts, a repeat returns the stored grade.
The teacher is authenticated by a PIN from the environment (or Streamlit secrets, read by the page), compared in
constant time. No Streamlit here.

Made to face a class that tries to break it, where every refusal is one ClassroomError sentence:
  - a `PinGuard` (one per server process) counts wrong PINs per browser, per device and overall, so a reload does
    not reset them: a browser waits 30 s after 5 misses, doubling up to 15 minutes; while a device or the whole
    server is over its misses, a browser that already missed waits as long, but the right PIN from a browser
    that has not missed still works, so misses alone never lock the teacher out; past the server's misses,
    though, first tries from fresh browsers are paced server-wide, and a script that keeps opening fresh browsers
    takes each slot as it opens and keeps the teacher out while it runs (`PinGuard`). PINs shorter than
    MIN_PIN_LENGTH, and those a guesser tries first (`weak_pin`), are refused, so the guesses it lets through get
    nowhere;
  - a device is known by its connection's address; X-Real-Ip / X-Forwarded-For are believed only when the
    operator says a proxy sets them (SPECVIZ_TRUST_PROXY_HEADERS=1), since anyone can send them;
  - names are NFKC-normalised with invisible characters dropped, and two names that then differ only by case or
    by look-alike letters (a Cyrillic "А" for a Latin "A": Unicode's confusable skeletons) are the same name;
    a session takes at most MAX_STUDENTS, and a `RateLimit` lets a client try to join
    JOINS_PER_MINUTE times a minute (a refused try counts too);
  - a busy, read-only or broken database file is a sentence, not an sqlite3 traceback.

  SPECVIZ_CLASSROOM_DB   the database file (default: $SPECVIZ_CACHE/classroom.sqlite, or
                         ~/.cache/specviz/classroom.sqlite)
  SPECVIZ_TEACHER_PIN    the teacher's PIN, at least MIN_PIN_LENGTH characters; without one (or with a shorter
                         one, or one `weak_pin` finds) the teacher view stays locked
  SPECVIZ_TRUST_PROXY_HEADERS  1 when the app sits behind a reverse proxy on this machine that sets X-Real-Ip or
                         X-Forwarded-For (it then tells devices apart); unset, those headers are ignored

The package's modules, bottom to top: `inputs` (names, titles, codes, ClassroomError), `access` (the PIN, devices,
PinGuard, RateLimit), `answers` (answers across languages, as stored) and `store` (ClassroomStore, the SQLite file).
Everything public is importable from `specviz.teach.classroom` itself.
"""

from __future__ import annotations

from specviz.teach.classroom.inputs import (ANSWER_MAX, CODE_ALPHABET, CODE_LENGTH, ClassroomError, DEFAULT_TITLES,
                                            NAME_MAX, NOT_A_STUDENT_LINK, TITLE_MAX, clean_name, clean_text,
                                            concept_name, name_key, name_keys, new_code, normalize_code, shown_title,
                                            skeleton)
from specviz.teach.classroom.access import (COMMON_PINS, JOINS_PER_MINUTE, MIN_PIN_LENGTH, PIN_ENV, PinGuard, RateLimit,
                                            TRUST_PROXY_ENV, client_id, pin_matches, teacher_pin, trust_proxy_headers,
                                            weak_pin)
from specviz.teach.classroom.answers import UNREADABLE, answer_between, in_language, read_stored, stored_answer
from specviz.teach.classroom.store import (BUSY_TIMEOUT, CACHE_ENV, ClassroomStore, DB_ENV, MAX_STUDENTS, Progress,
                                           QuestionStat, Session, SessionSummary, Student, default_db_path, utc_clock,
                                           utc_stamp)

__all__ = ["ANSWER_MAX", "BUSY_TIMEOUT", "CACHE_ENV", "CODE_ALPHABET", "CODE_LENGTH", "COMMON_PINS", "ClassroomError",
           "ClassroomStore", "DB_ENV", "DEFAULT_TITLES", "JOINS_PER_MINUTE", "MAX_STUDENTS", "MIN_PIN_LENGTH",
           "NAME_MAX", "NOT_A_STUDENT_LINK", "PIN_ENV", "PinGuard", "Progress", "QuestionStat", "RateLimit", "Session",
           "SessionSummary", "Student", "TITLE_MAX", "TRUST_PROXY_ENV", "UNREADABLE", "answer_between", "clean_name",
           "clean_text", "client_id", "concept_name", "default_db_path", "in_language", "name_key", "name_keys",
           "new_code", "normalize_code", "pin_matches", "read_stored", "shown_title", "skeleton", "stored_answer",
           "teacher_pin", "trust_proxy_headers", "utc_clock", "utc_stamp", "weak_pin"]
