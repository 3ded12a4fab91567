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
    that has not missed still works, so no student can lock the teacher out. PINs shorter than MIN_PIN_LENGTH are
    refused, so the guesses it lets through get nowhere;
  - a device is known by its connection's address; X-Real-Ip / X-Forwarded-For are believed only when the
    operator says a proxy sets them (SPECVIZ_TRUST_PROXY_HEADERS=1), since anyone can send them;
  - names are NFKC-normalised with invisible characters dropped, and two names that then differ only by case or
    by look-alike letters (a Cyrillic "А" for a Latin "A": Unicode's confusable skeletons) are the same name;
    a session takes at most MAX_STUDENTS, and a `RateLimit` lets a client join
    JOINS_PER_MINUTE times a minute;
  - a busy, read-only or broken database file is a sentence, not an sqlite3 traceback.

  SPECVIZ_CLASSROOM_DB   the database file (default: $SPECVIZ_CACHE/classroom.sqlite, or
                         ~/.cache/specviz/classroom.sqlite)
  SPECVIZ_TEACHER_PIN    the teacher's PIN, at least MIN_PIN_LENGTH characters; without one (or with a shorter
                         one) the teacher view stays locked
  SPECVIZ_TRUST_PROXY_HEADERS  1 when the app sits behind a reverse proxy on this machine that sets X-Real-Ip or
                         X-Forwarded-For (it then tells devices apart); unset, those headers are ignored
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import ipaddress
import json
import math
import os
import random
import secrets
import sqlite3
import threading
import time
import unicodedata
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specviz.core.i18n import LANGUAGES, N_, _, get_language, language_code, ngettext, using
from specviz.core.paths import CONFUSABLES_PATH
from specviz.teach.quiz.schema import QuestionKind
from specviz.teach.quiz import (BANK_DIR, CONCEPTS, Grade, Question, QuizBankError, answer_text, csv_text, grade, load_bank,
                         question_from_dict)

DB_ENV, CACHE_ENV, PIN_ENV = "SPECVIZ_CLASSROOM_DB", "SPECVIZ_CACHE", "SPECVIZ_TEACHER_PIN"
TRUST_PROXY_ENV = "SPECVIZ_TRUST_PROXY_HEADERS"
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: easy to read off a projector
CODE_LENGTH = 6
NAME_MAX, TITLE_MAX, ANSWER_MAX = 40, 80, 2000
MIN_PIN_LENGTH = 8
MAX_STUDENTS = 200  # per session
JOINS_PER_MINUTE = 10  # per client
BUSY_TIMEOUT = 5.0  # seconds a call waits for another writer before the database counts as busy
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
# Characters that show nothing but are not format (Cf) characters: a combining grapheme joiner, Hangul fillers,
# Khmer inherent vowels, the braille blank; variation selectors are tested by range in _invisible.
_BLANK = set("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    code TEXT PRIMARY KEY, title TEXT NOT NULL, questions TEXT NOT NULL,
    created_at REAL NOT NULL, closed INTEGER NOT NULL DEFAULT 0, ended_at REAL);
CREATE TABLE IF NOT EXISTS students (
    token TEXT PRIMARY KEY, code TEXT NOT NULL REFERENCES sessions(code), name TEXT NOT NULL COLLATE NOCASE,
    joined_at REAL NOT NULL, UNIQUE (code, name));
CREATE TABLE IF NOT EXISTS answers (
    token TEXT NOT NULL REFERENCES students(token), question_id TEXT NOT NULL, answer TEXT NOT NULL,
    correct INTEGER NOT NULL, answered_at REAL NOT NULL, PRIMARY KEY (token, question_id));
"""


class ClassroomError(ValueError):
    """Something a user did that cannot be done (bad name, unknown code, closed session); one sentence."""


@dataclass(frozen=True)
class Session:
    code: str
    title: str
    questions: tuple[Question, ...]
    created_at: float
    closed: bool
    ended_at: float | None = None  # when the teacher ended it (None: still open, or ended before this was recorded)


@dataclass(frozen=True)
class SessionSummary:
    """One line of the teacher's list: open sessions and ended ones, which keep their answers."""

    code: str
    title: str
    created_at: float
    closed: bool
    ended_at: float | None = None

    def label(self) -> str:
        """'ABC234 · Period 3' or 'ABC234 · Period 3 · ended 14:05' (local time)."""
        title = shown_title(self.title)
        if not self.closed:
            return f"{self.code} · {title}"
        if not self.ended_at:
            return _("{code} · {title} · ended", code=self.code, title=title)
        return _("{code} · {title} · ended {time}", code=self.code, title=title,
                 time=time.strftime("%H:%M", time.localtime(self.ended_at)))


@dataclass(frozen=True)
class Student:
    token: str
    code: str
    name: str
    joined_at: float


@dataclass(frozen=True)
class QuestionStat:
    """How the class did on one question; `failure_rate` is None until someone answers it."""

    question: Question
    answered: int
    correct: int

    @property
    def failure_rate(self) -> float | None:
        return 1 - self.correct / self.answered if self.answered else None


@dataclass(frozen=True)
class Progress:
    name: str
    answered: int
    correct: int
    total: int
    last_answer_at: float | None


# The titles of a session opened without one (self-paced, teacher-paced), stored in the teacher's language and
# shown in the reader's (`shown_title`); English messages.
DEFAULT_TITLES = (N_("Speculative decoding quiz"), N_("Peer instruction"))


def shown_title(title: str) -> str:
    """A session's title for the reader: a default title (in whichever language it was stored) in the reader's
    language, any other title as the teacher typed it.

    >>> from specviz.core.i18n import using
    >>> with using("pt"):
    ...     shown_title("Peer instruction"), shown_title("Period 3")
    ('Instrução por pares', 'Period 3')
    """
    for default in DEFAULT_TITLES:
        for code in LANGUAGES:
            with using(code):
                stored = _(default)
            if stored == title:
                return _(default)
    return title


# ---- input checks ----------------------------------------------------------------------------------------------
def clean_text(text: Any, what: str, max_length: int) -> str:
    """NFKC-normalised, whitespace-collapsed text without invisible characters (dropped) or control and
    direction-override characters (refused), or ClassroomError. `what` is an English noun marked with N_() (the
    sentences name it in the reader's language).

    >>> clean_text("  Ada \u200b  Lovelace ", "name", 40)
    'Ada Lovelace'
    """
    if not isinstance(text, str) or not text.strip():
        raise ClassroomError(_("Please enter a {what}.", what=_(what)))
    if len(text) > 10 * max_length:  # before normalising: a megabyte sent past the form's max_chars costs nothing
        raise ClassroomError(_too_long(what, max_length))
    text = " ".join(unicodedata.normalize("NFKC", text).split())
    if _has_control(text):
        raise ClassroomError(_("The {what} contains control characters; please use plain text.", what=_(what)))
    text = _visible(text)
    if not text:
        raise ClassroomError(_("Please enter a {what}.", what=_(what)))
    if len(text) > max_length:
        raise ClassroomError(_too_long(what, max_length))
    return text


def _too_long(what: str, max_length: int) -> str:
    return _("The {what} is too long: at most {limit} characters, please.", what=_(what), limit=max_length)


def clean_name(text: Any) -> str:
    return clean_text(text, N_("display name"), NAME_MAX)


def name_keys(name: str) -> frozenset[str]:
    """How names are compared within a session: normalised, invisible characters dropped, case ignored, and reduced
    to confusable skeletons (Unicode UTS #39), so a Cyrillic "Аlice", a Greek "Νina" or a "Bob0" is the same name as
    "Alice", "Nina" or "BobO" on the projector. Two names clash when their key sets meet. The skeleton is taken of
    the name as written, lower-cased and upper-cased, because Unicode's prototypes depend on case (Cyrillic "в" looks
    like a small capital B, "В" like B; a lower-case "l" looks like an upper-case "I").

    >>> name_keys("ÉVA") & name_keys("e\u0301va") & name_keys("\u00c9v\u200ba") != set()
    True
    >>> [bool(name_keys(a) & name_keys(b)) for a, b in [("Alice", "\u0410lice"), ("Bob", "\u0412ob"),
    ...     ("Nina", "\u039dina"), ("alice", "ALICE"), ("Ivan", "\u0406van"), ("Ana", "Anna"), ("Li", "Lu")]]
    [True, True, True, True, True, False, False]
    """
    folded = unicodedata.normalize("NFKC", _visible(name))
    return frozenset(unicodedata.normalize("NFKC", skeleton(variant).casefold())
                     for variant in (folded, folded.casefold(), folded.upper()))


def name_key(name: str) -> str:
    """One key of `name_keys` (the lower-cased name's skeleton), for sorting and grouping.

    >>> name_key("ÉVA") == name_key("e\u0301va") == name_key("\u00c9v\u200ba")
    True
    """
    folded = unicodedata.normalize("NFKC", _visible(name).casefold())
    return unicodedata.normalize("NFKC", skeleton(folded).casefold())


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, every character replaced by its prototype from Unicode's confusables data, NFD
    again. Two strings with the same skeleton look alike (it is a key, never text to show).

    >>> skeleton("p\u0430yp\u0430l") == skeleton("paypal"), skeleton("m")
    (True, 'rn')
    """
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in decomposed))


@functools.cache
def _prototypes() -> dict[str, str]:
    """character -> its prototype, from assets/unicode/confusables.json (Unicode's confusables.txt, UTS #39)."""
    return json.loads(CONFUSABLES_PATH.read_text(encoding="utf-8"))["prototypes"]


def concept_name(concept: str) -> str:
    """A concept as a reader knows it: its label in the quiz's concept list (in the reader's language), else the id
    in words.

    >>> concept_name("kv_rollback"), concept_name("my_topic")
    ('KV-cache rollback', 'my topic')
    """
    if CONCEPTS.get(concept):
        return _(CONCEPTS[concept])
    return concept.replace("_", " ").replace("-", " ").strip() or _("(no concept)")


def normalize_code(text: Any) -> str:
    """A join code as typed (any case, spaces or dashes) in canonical form, or ClassroomError.

    >>> normalize_code(" abc-234 ")
    'ABC234'
    """
    raw = "".join(str(text or "").split()).replace("-", "").upper()
    if len(raw) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in raw):
        raise ClassroomError(_("A join code is {length} letters and digits, like {example}; please check it.",
                               length=CODE_LENGTH, example=new_code(random.Random(0))))
    return raw


def new_code(rng: random.Random | None = None) -> str:
    """A random join code from CODE_ALPHABET (cryptographically random unless an `rng` is given)."""
    pick = rng.choice if rng is not None else secrets.choice
    return "".join(pick(CODE_ALPHABET) for _position in range(CODE_LENGTH))


# ---- teacher PIN -----------------------------------------------------------------------------------------------
def teacher_pin(environ: Mapping[str, str] | None = None, secrets_map: Mapping[str, Any] | None = None) -> str | None:
    """The configured PIN: SPECVIZ_TEACHER_PIN from the environment, else from `secrets_map` (Streamlit secrets);
    None when neither sets a non-empty one, ClassroomError when it is shorter than MIN_PIN_LENGTH."""
    environ = os.environ if environ is None else environ
    for source in (environ, secrets_map or {}):
        value = source.get(PIN_ENV)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
            pin = str(value).strip()
            if len(pin) < MIN_PIN_LENGTH:
                raise ClassroomError(_("The teacher PIN is too short: set {variable} to at least {length} "
                                       "characters (a few words will do), then restart the app.",
                                       variable=PIN_ENV, length=MIN_PIN_LENGTH))
            if weak_pin(pin):
                raise ClassroomError(_("The teacher PIN is one of the first a guesser tries: set {variable} to a few "
                                       "unrelated words or a random string of at least {length} characters, then "
                                       "restart the app.", variable=PIN_ENV, length=MIN_PIN_LENGTH))
            return pin
    return None


# PINs a guesser tries first (lower case), beyond the patterns `weak_pin` finds by itself: the most common 8+ character
# passwords and PINs, and a classroom's obvious words.
COMMON_PINS = frozenset({
    "password", "password1", "password123", "passw0rd", "iloveyou", "sunshine", "princess", "football", "baseball",
    "welcome1", "welcome123", "letmein1", "trustno1", "superman", "whatever", "qwertyui", "qwerty123", "qwertyuiop",
    "1q2w3e4r", "1q2w3e4r5t", "q1w2e3r4", "1qaz2wsx", "zaq12wsx", "asdfghjk", "asdfasdf", "abcd1234", "abc12345",
    "12341234", "11223344", "12344321", "12121212", "69696969", "20202020", "19841984", "12345678", "123456789",
    "1234567890", "0123456789", "87654321", "98765432", "teacher1", "teacher123", "classroom", "classroom1",
    "student1", "students", "specviz1", "specviz123", "changeme", "administrator", "admin123", "secret123",
})


def weak_pin(pin: str) -> bool:
    """Whether a PIN is among the first a guesser tries: a common one, one character repeated, a run (12345678,
    abcdefgh, 98765432) or a short block repeated (12121212, abcabcab).

    >>> [weak_pin(p) for p in ("12345678", "PASSWORD", "aaaaaaaa", "hgfedcba", "abcabcab", "2468-1357-97")]
    [True, True, True, True, True, False]
    """
    text = pin.strip().lower()
    if text in COMMON_PINS or len(set(text)) == 1:
        return True
    steps = {ord(b) - ord(a) for a, b in zip(text, text[1:])}
    if steps in ({1}, {-1}):
        return True
    return any(text == (text[:n] * len(text))[: len(text)] for n in range(1, 4))


def pin_matches(given: Any, expected: str | None) -> bool:
    """Constant-time comparison (of digests, so not even the length leaks); no PIN configured matches nothing."""
    if not expected or not isinstance(given, str):
        return False
    return hmac.compare_digest(_digest(given.strip()), _digest(expected))


def trust_proxy_headers(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the operator said a reverse proxy on this machine sets X-Real-Ip / X-Forwarded-For
    ($SPECVIZ_TRUST_PROXY_HEADERS = 1, true or yes)."""
    environ = os.environ if environ is None else environ
    return str(environ.get(TRUST_PROXY_ENV, "")).strip().lower() in ("1", "true", "yes")


def client_id(ip: Any, headers: Mapping[str, Any], session_id: str, trust_proxy: bool | None = None) -> str:
    """Who is asking, as well as the server can tell: the connection's address; for a connection from this machine
    (no address: a local reverse proxy, a tunnel, or the teacher's own browser) the proxy's X-Real-Ip or the last
    X-Forwarded-For entry (the one the proxy added) only when the operator trusts them (`trust_proxy`, default
    $SPECVIZ_TRUST_PROXY_HEADERS), and only if it is an IP address; else the browser session. At most 100
    characters.

    >>> client_id(None, {"X-Forwarded-For": "6.6.6.6, 10.0.0.2"}, "abc", trust_proxy=True)
    'ip:10.0.0.2'
    >>> client_id(None, {"X-Forwarded-For": "6.6.6.6, 10.0.0.2"}, "abc", trust_proxy=False)
    'session:abc'
    """
    if isinstance(ip, str) and ip.strip():
        return f"ip:{ip.strip()}"[:100]
    if trust_proxy if trust_proxy is not None else trust_proxy_headers():
        lowered = {str(k).lower(): str(v) for k, v in headers.items()}
        for candidate in (lowered.get("x-real-ip", ""), lowered.get("x-forwarded-for", "").split(",")[-1]):
            try:
                return f"ip:{ipaddress.ip_address(candidate.strip()[:64])}"
            except ValueError:
                continue
    return f"session:{session_id}"[:100]


@dataclass
class _Strikes:
    """Wrong PINs from one client (or from everyone): how many, the last one, and the end of the current lock."""

    failures: int = 0
    last: float = -math.inf
    locked_until: float = -math.inf


class _PerClient:
    """A thread-safe table of one record per client, at most `max_clients` of them: when it is full, records that
    `_stale` says are over go first, then the least recently active. `clock` is injectable for tests."""

    def __init__(self, max_clients: int, clock: Callable[[], float]) -> None:
        self.max_clients, self._clock = max_clients, clock
        self._clients: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._clients)

    def _keep(self, client: str, record: Any, now: float) -> None:
        """Store `record` as `client`'s, the most recently active, within the bound (call it holding the lock)."""
        self._clients[client] = record
        self._clients.move_to_end(client)
        if len(self._clients) > self.max_clients:
            for key in [k for k, r in self._clients.items() if self._stale(r, now)]:
                del self._clients[key]
        while len(self._clients) > self.max_clients:
            self._clients.popitem(last=False)

    def _stale(self, record: Any, now: float) -> bool:
        return False


class PinGuard(_PerClient):
    """Wrong teacher PINs, counted on the server per browser, per device and overall, with exponential backoff,
    made so that guessing is slow and the right PIN keeps working.

    A browser (its session) that missed CLIENT_FREE times waits BASE_LOCK seconds, and each further miss doubles the
    wait up to MAX_LOCK; it is refused before its PIN is looked at. A device (an address: a phone, or a school's
    whole network behind one address) and the server as a whole count the same way after CLIENT_FREE and
    OVERALL_FREE misses, so many browsers or addresses cannot share the guessing: while either is over, a browser
    that has already missed waits for it too. A browser that has not missed is still asked its PIN, so the teacher
    opening the page gets in with the right one, whoever guessed before; a guesser needs a new browser session for
    each try, and the 8-character minimum (MIN_PIN_LENGTH) leaves that nowhere. Once the server has counted
    OVERALL_FREE misses, those first tries from fresh browsers are paced too, server-wide: one per FRESH_PACE
    seconds (issue 44 item 1: 78 fresh-session guesses found 12345678 in 12.9 s), so the teacher waits at most that
    long and a guesser gets 1,800 tries an hour against a PIN `weak_pin` did not refuse. The right PIN clears its
    browser's and its device's records (not the overall one); records are forgotten FORGET_AFTER seconds after their
    last miss. Without a `session`, the device is the browser (a reload then does not reset the count). Thread-safe;
    memory is bounded by `max_clients`; `clock` is injectable for tests.
    """

    CLIENT_FREE, OVERALL_FREE = 5, 20
    BASE_LOCK, MAX_LOCK, FORGET_AFTER = 30.0, 900.0, 6 * 3600.0
    FRESH_PACE = 2.0

    def __init__(self, max_clients: int = 10_000, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(max_clients, clock)
        self._overall = _Strikes()
        self._next_fresh = -math.inf  # when the next first try from a fresh browser may run, once paced

    def wait(self, client: str, session: str | None = None) -> float:
        """Seconds until this browser (of `client`) may try again (0: now)."""
        with self._lock:
            now = self._clock()
            browser, shared = self._records(client, session, now)
            paced = not browser.failures and self._overall.failures >= self.OVERALL_FREE
            return max(0.0, browser.locked_until - now, shared - now if browser.failures else 0.0,
                       self._next_fresh - now if paced else 0.0)

    def _records(self, client: str, session: str | None, now: float) -> tuple[_Strikes, float]:
        """(the browser's record, the end of the device's or the server's lock, whichever is later)."""
        self._overall = self._fresh(self._overall, now)
        device = self._fresh(self._clients.get(client), now)
        if session is None or session == client:
            return device, self._overall.locked_until
        browser = self._fresh(self._clients.get(session), now)
        return browser, max(device.locked_until, self._overall.locked_until)

    def attempt(self, client: str, given: Any, expected: str, session: str | None = None) -> bool:
        """Whether `given` is the PIN; ClassroomError (one sentence) while this browser must wait."""
        with self._lock:
            now = self._clock()
            browser, shared = self._records(client, session, now)
            if browser.locked_until > now:
                raise ClassroomError(_("Too many wrong PINs from this device; please wait {wait}.",
                                       wait=_duration(browser.locked_until - now)))
            if shared > now and browser.failures:
                raise ClassroomError(_("Many wrong PINs have been tried on this server; this browser may try again "
                                       "in {wait}.", wait=_duration(shared - now)))
            if not browser.failures and self._overall.failures >= self.OVERALL_FREE:
                if now < self._next_fresh:  # paced before the PIN is looked at
                    raise ClassroomError(_("Many wrong PINs have been tried on this server; please try again in "
                                           "{wait}.", wait=_duration(self._next_fresh - now)))
                self._next_fresh = now + self.FRESH_PACE
            if pin_matches(given, expected):
                self._clients.pop(client, None)
                if session is not None:
                    self._clients.pop(session, None)
                return True
            self._strike(browser, self.CLIENT_FREE, now)
            self._keep(session if session is not None else client, browser, now)
            if session is not None and session != client:
                device = self._fresh(self._clients.get(client), now)
                self._strike(device, self.CLIENT_FREE, now)
                self._keep(client, device, now)
            self._strike(self._overall, self.OVERALL_FREE, now)
            return False

    def _fresh(self, strikes: _Strikes | None, now: float) -> _Strikes:
        if strikes is None or (now - strikes.last >= self.FORGET_AFTER and strikes.locked_until <= now):
            return _Strikes()
        return strikes

    def _strike(self, strikes: _Strikes, free: int, now: float) -> None:
        strikes.failures += 1
        strikes.last = now
        if strikes.failures >= free:
            doublings = min(strikes.failures - free, 32)
            strikes.locked_until = now + min(self.MAX_LOCK, self.BASE_LOCK * 2**doublings)

    def _stale(self, record: _Strikes, now: float) -> bool:
        return self._fresh(record, now) is not record  # forgotten: dropped first (the overall count still holds)


class RateLimit(_PerClient):
    """At most `limit` events per client in any `per` seconds (a sliding window), for joins: `hit` records one or
    refuses with one sentence. Thread-safe; memory is bounded by `max_clients` (least recently seen dropped first).
    """

    def __init__(self, limit: int = JOINS_PER_MINUTE, per: float = 60.0, what: str = N_("joins"),
                 max_clients: int = 10_000, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(max_clients, clock)
        self.limit, self.per, self.what = limit, per, what

    def hit(self, client: str) -> None:
        with self._lock:
            now = self._clock()
            times: deque[float] = self._clients.get(client) or deque()
            while times and now - times[0] >= self.per:
                times.popleft()
            self._keep(client, times, now)
            if len(times) >= self.limit:
                raise ClassroomError(_("Too many {what} from this device; please wait {wait} and try again.",
                                       what=_(self.what), wait=_duration(self.per - (now - times[0]))))
            times.append(now)


# ---- the store -------------------------------------------------------------------------------------------------
def default_db_path(environ: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    if environ.get(DB_ENV):
        return Path(environ[DB_ENV]).expanduser()
    cache = Path(environ[CACHE_ENV]).expanduser() if environ.get(CACHE_ENV) else Path.home() / ".cache" / "specviz"
    return cache / "classroom.sqlite"


class ClassroomStore:
    """Sessions, students and answers in one SQLite file. Safe to share across threads: every call opens its own
    connection (with a busy timeout, BUSY_TIMEOUT unless given), and writes run in `BEGIN IMMEDIATE` transactions.
    Database failures (busy, read-only, full, not a database) leave here as ClassroomError sentences."""

    def __init__(self, path: str | os.PathLike[str] | None = None, timeout: float | None = None) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self.timeout = BUSY_TIMEOUT if timeout is None else timeout
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as conn:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.executescript(_SCHEMA)
                columns = {r["name"] for r in conn.execute("PRAGMA table_info(sessions)")}
                if "ended_at" not in columns:  # a database made before ended sessions were kept with their time
                    conn.execute("ALTER TABLE sessions ADD COLUMN ended_at REAL")
        except (OSError, sqlite3.Error) as exc:
            raise ClassroomError(_("The classroom database at {path} cannot be opened ({error}).",
                                   path=self.path, error=exc)) from None

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection; any sqlite3 error but IntegrityError (which callers handle) becomes a ClassroomError."""
        try:
            conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise _database_error(exc, self.path) from None
        try:
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
            yield conn
        except sqlite3.IntegrityError:
            raise
        except sqlite3.Error as exc:
            raise _database_error(exc, self.path) from None
        finally:
            conn.close()

    def _rows(self, sql: str, params: Sequence[Any]) -> list[sqlite3.Row]:
        """The rows of one read-only query, on a connection of its own."""
        with self._connect() as conn:
            return conn.execute(sql, params).fetchall()

    def _row(self, sql: str, params: Sequence[Any]) -> sqlite3.Row | None:
        """The first row of one read-only query, or None."""
        rows = self._rows(sql, params)
        return rows[0] if rows else None

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:  # SQLite may already have rolled back (busy, full, I/O error)
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    # ---- sessions ---------------------------------------------------------------------------------------------
    def create_session(self, questions: Sequence[Question], title: str = "") -> Session:
        """Open a session over `questions` (stored whole, so uploaded questions survive restarts)."""
        if not questions:
            raise ClassroomError(_("A session needs at least one question."))
        title = clean_text(title, N_("title"), TITLE_MAX) if title and title.strip() else _(DEFAULT_TITLES[0])
        payload = json.dumps([q.to_dict() | {"source": q.source} for q in questions], ensure_ascii=False)
        now = time.time()
        for _attempt in range(20):
            code = new_code()
            try:
                with self._write() as conn:
                    conn.execute("INSERT INTO sessions (code, title, questions, created_at) VALUES (?, ?, ?, ?)",
                                 (code, title, payload, now))
                return Session(code, title, tuple(questions), now, False)
            except sqlite3.IntegrityError:
                continue
        raise ClassroomError(_("Could not find a free join code; please try again."))

    def session(self, code: str) -> Session | None:
        row = self._row("SELECT * FROM sessions WHERE code = ?", (code,))
        if row is None:
            return None
        questions = _questions(row["questions"])
        return Session(row["code"], row["title"], questions, row["created_at"], bool(row["closed"]), row["ended_at"])

    def open_sessions(self) -> list[tuple[str, str, float]]:
        """(code, title, created_at) of sessions not yet closed, newest first."""
        return [(s.code, s.title, s.created_at) for s in self.sessions() if not s.closed]

    def sessions(self, limit: int = 200) -> list[SessionSummary]:
        """The teacher's list: open sessions (newest first), then ended ones (most recently ended first), which stay
        viewable and exportable; at most `limit`."""
        rows = self._rows("SELECT code, title, created_at, closed, ended_at FROM sessions "
                          "ORDER BY closed, COALESCE(ended_at, created_at) DESC, created_at DESC LIMIT ?", (limit,))
        return [SessionSummary(r["code"], r["title"], r["created_at"], bool(r["closed"]), r["ended_at"])
                for r in rows]

    def close_session(self, code: str) -> None:
        """End a session: no more joins or answers; its students and answers stay, and so does it in `sessions`."""
        with self._write() as conn:
            conn.execute("UPDATE sessions SET closed = 1, ended_at = COALESCE(ended_at, ?) WHERE code = ?",
                         (time.time(), code))

    # ---- students ---------------------------------------------------------------------------------------------
    def join(self, code: str, name: str) -> Student:
        """Add a student to an open session that has room (MAX_STUDENTS); the name must be free in that session
        (compared by `name_keys`: case, invisible characters and look-alike letters do not make a new name)."""
        code, name = normalize_code(code), clean_name(name)
        session = self.session(code)
        if session is None:
            raise ClassroomError(_("There is no session with the code {code}; please check it with your teacher.",
                                   code=code))
        if session.closed:
            raise ClassroomError(_("Session {code} has ended.", code=code))
        student = Student(secrets.token_urlsafe(16), code, name, time.time())
        taken = ClassroomError(_("Someone in this session is already called {name}; please add an initial.",
                                 name=name))
        try:
            with self._write() as conn:  # BEGIN IMMEDIATE: the count and the names cannot change under us
                names = [r["name"] for r in conn.execute("SELECT name FROM students WHERE code = ?", (code,))]
                if len(names) >= MAX_STUDENTS:
                    raise ClassroomError(_("Session {code} is full ({limit} students); please ask your teacher to "
                                           "start another one.", code=code, limit=MAX_STUDENTS))
                keys = name_keys(name)
                if any(keys & name_keys(n) for n in names):
                    raise taken
                conn.execute("INSERT INTO students (token, code, name, joined_at) VALUES (?, ?, ?, ?)",
                             (student.token, code, name, student.joined_at))
        except sqlite3.IntegrityError:
            raise taken from None
        return student

    ANSWER_TABLES: tuple[str, ...] = ("answers",)  # where a student's answers are kept (PacedStore adds its rounds')

    def _no_answer(self) -> str:
        """SQL: the `students` row has no answer in any of ANSWER_TABLES."""
        return " AND ".join(f"NOT EXISTS (SELECT 1 FROM {table} WHERE {table}.token = students.token)"
                            for table in self.ANSWER_TABLES)

    def unanswered_students(self, code: str) -> list[Student]:
        """The session's students who have not answered anything: the names a teacher may release."""
        rows = self._rows(f"SELECT * FROM students WHERE code = ? AND {self._no_answer()} ORDER BY joined_at", (code,))
        return [Student(r["token"], r["code"], r["name"], r["joined_at"]) for r in rows]

    def release_name(self, code: str, name: str) -> bool:
        """Free a name for joining again (issue 44 item 4: a join whose reply was lost left a name its student could
        never rejoin under): only a student of this session who has answered nothing is removed, checked and removed
        in one statement, so no answer is ever lost. Whether one was."""
        with self._write() as conn:
            removed = conn.execute(f"DELETE FROM students WHERE code = ? AND name = ? COLLATE BINARY AND "
                                   f"{self._no_answer()}", (normalize_code(code), name)).rowcount
        return removed == 1

    def student(self, token: Any) -> Student | None:
        """The student with this token, or None (for an unknown, expired or malformed token)."""
        if not isinstance(token, str) or not 10 <= len(token) <= 64:
            return None
        row = self._row("SELECT * FROM students WHERE token = ?", (token,))
        return Student(row["token"], row["code"], row["name"], row["joined_at"]) if row else None

    def question_order(self, session: Session, student: Student) -> list[Question]:
        """This student's question order: shuffled per student (so neighbours differ), fixed across reconnects."""
        order = list(session.questions)
        random.Random(f"{session.code}:{student.token}").shuffle(order)
        return order

    def next_question(self, session: Session, student: Student) -> Question | None:
        """The first question this student has not answered yet; None when they are done."""
        done = self.answers(student.token)
        return next((q for q in self.question_order(session, student) if q.id not in done), None)

    # ---- answers ----------------------------------------------------------------------------------------------
    def record_answer(self, token: str, question_id: str, answer: Any) -> tuple[Grade, bool]:
        """Grade and store a student's answer. Returns (grade, stored): stored is False when this question was
        already answered, and then the grade is that of the first answer, which is the one that counts."""
        student = self.student(token)
        if student is None:
            raise ClassroomError(_("This student link is not valid any more; please join again."))
        session = self.session(student.code)
        question = next((q for q in session.questions if q.id == question_id), None) if session else None
        if question is None:
            raise ClassroomError(_("That question is not part of this session."))
        if session.closed:
            raise ClassroomError(_("Session {code} has ended; answers are no longer taken.", code=session.code))
        answer = stored_answer(question, answer)  # a choice picked in another language: the stored question's text
        text = _answer_json(answer)
        result = grade(question, answer)
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO answers (token, question_id, answer, correct, answered_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (token, question_id, text, int(result.correct), time.time()))
            stored = cursor.rowcount == 1
            if not stored:
                first = conn.execute("SELECT answer FROM answers WHERE token = ? AND question_id = ?",
                                     (token, question_id)).fetchone()
                kept = read_stored(first["answer"])
                result = grade(question, kept) if kept is not UNREADABLE else result
        return result, stored

    def answers(self, token: str) -> dict[str, tuple[Any, bool]]:
        """question id -> (answer, correct) for one student."""
        rows = self._rows("SELECT question_id, answer, correct FROM answers WHERE token = ?", (token,))
        return {r["question_id"]: (answer, bool(r["correct"])) for r in rows
                if (answer := read_stored(r["answer"])) is not UNREADABLE}

    # ---- the teacher's view -----------------------------------------------------------------------------------
    def students(self, code: str) -> list[Student]:
        rows = self._rows("SELECT * FROM students WHERE code = ? ORDER BY joined_at", (code,))
        return [Student(r["token"], r["code"], r["name"], r["joined_at"]) for r in rows]

    def question_stats(self, session: Session) -> list[QuestionStat]:
        """Per question: answered and correct counts, the most-failed first (unanswered last)."""
        rows = self._rows(
            "SELECT a.question_id AS qid, COUNT(*) AS n, SUM(a.correct) AS ok FROM answers a "
            "JOIN students s ON s.token = a.token WHERE s.code = ? GROUP BY a.question_id", (session.code,),
        )
        counts = {r["qid"]: (r["n"], r["ok"]) for r in rows}
        stats = [QuestionStat(q, *counts.get(q.id, (0, 0))) for q in session.questions]
        return sorted(stats, key=lambda s: (s.failure_rate is None, -(s.failure_rate or 0), -s.answered))

    def progress(self, session: Session) -> list[Progress]:
        """Per student, in joining order: answered, correct, out of how many, and when they last answered."""
        rows = self._rows(
            "SELECT s.name AS name, COUNT(a.question_id) AS n, COALESCE(SUM(a.correct), 0) AS ok, "
            "MAX(a.answered_at) AS last FROM students s LEFT JOIN answers a ON a.token = s.token "
            "WHERE s.code = ? GROUP BY s.token ORDER BY s.joined_at", (session.code,),
        )
        return [Progress(r["name"], r["n"], r["ok"], len(session.questions), r["last"]) for r in rows]

    def export_rows(self, session: Session) -> list[dict[str, Any]]:
        """Every stored answer: who, which question, what they answered, whether it was right, when."""
        concepts = {q.id: q.concept for q in session.questions}
        rows = self._rows(
            "SELECT s.name AS name, a.question_id AS qid, a.answer AS answer, a.correct AS correct, "
            "a.answered_at AS at FROM answers a JOIN students s ON s.token = a.token WHERE s.code = ? "
            "ORDER BY s.joined_at, a.answered_at", (session.code,),
        )
        return [{"student": r["name"], "question_id": r["qid"], "concept": concepts.get(r["qid"], ""),
                 "answer": answer_text(answer), "correct": bool(r["correct"]),
                 "answered_at": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r["at"]))} for r in rows
                if (answer := read_stored(r["answer"])) is not UNREADABLE]

    def unreadable_answers(self, session: Session) -> int:
        """How many of the session's stored answers `read_stored` cannot read (skipped everywhere else)."""
        rows = self._rows("SELECT a.answer AS answer FROM answers a JOIN students s ON s.token = a.token "
                          "WHERE s.code = ?", (session.code,))
        return sum(read_stored(r["answer"]) is UNREADABLE for r in rows)

    def export_csv(self, session: Session) -> str:
        return csv_text(self.export_rows(session)) or "student,question_id,concept,answer,correct,answered_at\n"


# ---- a class that mixes languages -----------------------------------------------------------------------------
# A session stores its questions in the language of the teacher who opened it. A student (or a teacher) reading
# another language sees a bundled-bank question as its twin in that language (the same id, the same choices at the
# same positions, so the same display order for the same seed: specviz.teach.quiz.translation), and answers are stored in
# the stored question's language, choice by position, so every language's answers are counted together.
@functools.cache
def _bank_twins(lang: str) -> dict[str, Question]:
    """The bundled bank in `lang`, by question id (read once per process; empty if it cannot be read)."""
    try:
        return load_bank([BANK_DIR], lang=lang).by_id()
    except QuizBankError:
        return {}


def in_language(question: Question, lang: str | None = None) -> Question:
    """`question` as a reader of `lang` (default: the current language) sees it: a question of the bundled bank, in
    whichever language it was stored, becomes its twin in `lang`; any other question (a teacher's own file, a
    question from a live run) stays as stored.

    >>> q = load_bank([BANK_DIR]).by_id()["ci-what-is"]
    >>> in_language(q, "pt").prompt, in_language(in_language(q, "pt"), "en") == q
    ('O que é decodificação especulativa?', True)
    """
    twin = _bank_twins(language_code(lang) or get_language()).get(question.id)
    if twin is None or twin == question:
        return question
    stored = question.to_dict()
    for code in LANGUAGES:
        known = _bank_twins(code).get(question.id)
        if known is not None and known.to_dict() == stored:
            return twin if twin.kind == question.kind else question
    return question


def answer_between(answer: Any, source: Question, target: Question) -> Any:
    """An answer given to `source` as the same answer to `target`, its twin in another language: each picked choice
    (or placed item) replaced by the one at the same position; a number, or a text that is not one of `source`'s,
    unchanged.

    >>> en = Question("x", "core_idea", "multiple", "?", ("b",), "", "pages/overview.py", choices=("a", "b"))
    >>> pt = Question("x", "core_idea", "multiple", "?", ("B",), "", "pages/overview.py", choices=("A", "B"))
    >>> answer_between(["b"], en, pt), answer_between("a", en, pt), answer_between(0.5, en, pt)
    (['B'], 'A', 0.5)
    """
    if source is target or source.kind != target.kind or source.kind == QuestionKind.NUMERIC:
        return answer
    pools = (source.answer, target.answer) if source.kind == QuestionKind.ORDERING else (source.choices, target.choices)
    if len(pools[0]) != len(pools[1]):
        return answer

    def one(item: Any) -> Any:
        picked = item.strip() if isinstance(item, str) else item
        return pools[1][pools[0].index(picked)] if isinstance(picked, str) and picked in pools[0] else item

    if isinstance(answer, list | tuple):
        return [one(a) for a in answer]
    return one(answer)


def stored_answer(question: Question, answer: Any, twins: Iterable[Question] = ()) -> Any:
    """An answer to the stored `question` given in any language: when it is not already in the stored question's
    words but fits one of its `twins` or its bank twin in some language, it is mapped back by position (so the
    first choice picked in Portuguese and the first choice picked in English are one answer)."""
    if question.kind == QuestionKind.NUMERIC or _fits(question, answer):
        return answer
    for twin in [*twins, *(in_language(question, code) for code in LANGUAGES)]:
        if twin is not question and _fits(twin, answer):
            return answer_between(answer, twin, question)
    return answer


def _fits(question: Question, answer: Any) -> bool:
    pool = question.answer if question.kind == QuestionKind.ORDERING else question.choices
    items = answer if isinstance(answer, list | tuple) else [answer]
    return all(isinstance(a, str) and a.strip() in pool for a in items)


@functools.lru_cache(maxsize=64)
def _questions(payload: str) -> tuple[Question, ...]:
    """A session's stored questions, parsed once per process (a session's questions never change)."""
    return tuple(question_from_dict(d) for d in json.loads(payload))


UNREADABLE = object()  # what `read_stored` gives for a row that cannot be an answer


def read_stored(text: Any) -> Any:
    """An answer as the database holds it (JSON), or UNREADABLE for a row that cannot be one: damaged text, or a
    legacy NaN or infinity (strict JSON has neither, and no question's answer is one). Such a row is skipped and
    counted, so one bad row cannot hide a session's panel or its exports.

    >>> read_stored('"B"'), read_stored("2.5"), read_stored("NaN") is UNREADABLE, read_stored("{oops") is UNREADABLE
    ('B', 2.5, True, True)
    """
    def refuse(constant: str) -> Any:
        raise ValueError(constant)

    try:
        return json.loads(text, parse_constant=refuse)
    except (ValueError, TypeError):
        return UNREADABLE


def _answer_json(answer: Any) -> str:
    """An answer as JSON for storage: text, a number, or a list of texts; anything else is refused."""
    if isinstance(answer, tuple):
        answer = list(answer)
    ok = answer is None or isinstance(answer, str | int | float) or (
        isinstance(answer, list) and all(isinstance(a, str) for a in answer))
    text = json.dumps(answer, ensure_ascii=False) if ok else ""
    texts = [answer] if isinstance(answer, str) else answer if isinstance(answer, list) else []
    if not ok or len(text) > ANSWER_MAX or any(_has_control(t) for t in texts):
        raise ClassroomError(_("That answer cannot be stored; please answer with the controls shown."))
    return text


def _has_control(text: str) -> bool:
    return any(unicodedata.category(ch) in ("Cc", "Cs", "Co") or ch in _BIDI for ch in text)


def _invisible(ch: str) -> bool:
    """Format (Cf) and unassigned (Cn) characters, variation selectors and blank-looking letters."""
    return (unicodedata.category(ch) in ("Cf", "Cn") or ch in _BLANK or "\ufe00" <= ch <= "\ufe0f"
            or "\U000e0100" <= ch <= "\U000e01ef")


def _visible(text: str) -> str:
    """NFKC, invisible characters dropped, whitespace (line and paragraph separators too) collapsed."""
    text = "".join(ch for ch in unicodedata.normalize("NFKC", text) if not _invisible(ch))
    return " ".join(text.split())


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _duration(seconds: float) -> str:
    """A wait as a reader wants it: '1 second', '45 seconds', '15 minutes' (rounded up)."""
    whole = max(1, math.ceil(seconds - 1e-9))
    if whole < 120:
        return ngettext("{n} second", "{n} seconds", whole)
    return ngettext("{n} minute", "{n} minutes", math.ceil(whole / 60))


_BUSY, _LOCKED, _READONLY, _IOERR, _FULL = 5, 6, 8, 10, 13  # SQLite's primary result codes


def _database_error(exc: sqlite3.Error, path: Path) -> ClassroomError:
    """One sentence for a database failure: busy, read-only, out of space, or (with the file) anything else."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary, text = (code & 0xFF if isinstance(code, int) else None), str(exc).lower()
    if primary in (_BUSY, _LOCKED) or "locked" in text or "busy" in text:
        return ClassroomError(_("The class database is busy; try again in a moment."))
    if primary == _READONLY or "readonly" in text:
        return ClassroomError(_("The class database is read-only, so nothing can be saved; please tell your "
                                "teacher."))
    if primary in (_IOERR, _FULL) or "disk" in text:
        return ClassroomError(_("The class database cannot be written (the disk is full or failing); please tell "
                                "your teacher."))
    return ClassroomError(_("The class database at {path} cannot be used ({error}).", path=path, error=exc))
