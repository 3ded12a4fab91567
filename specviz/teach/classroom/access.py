"""Who may teach and how often anyone may try: the teacher's PIN (from the environment or Streamlit secrets, compared
in constant time, weak ones refused), a device's identity behind an optional proxy, the PinGuard that paces wrong
PINs and the RateLimit on joins."""

from __future__ import annotations

import hmac
import ipaddress
import math
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from specviz.core.i18n import N_, _
from specviz.teach.classroom.inputs import ClassroomError, _digest, _duration


PIN_ENV = "SPECVIZ_TEACHER_PIN"
TRUST_PROXY_ENV = "SPECVIZ_TRUST_PROXY_HEADERS"
MIN_PIN_LENGTH = 8
JOINS_PER_MINUTE = 10  # per client


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
# passwords and PINs, a classroom's obvious words, and xkcd 936's famous passphrase (read 51: the teaching plans gave
# "correct horse battery" and its Portuguese "cavalo correto bateria grampo" as the PIN to export, and both passed).
COMMON_PINS = frozenset({
    "password", "password1", "password123", "passw0rd", "iloveyou", "sunshine", "princess", "football", "baseball",
    "welcome1", "welcome123", "letmein1", "trustno1", "superman", "whatever", "qwertyui", "qwerty123", "qwertyuiop",
    "1q2w3e4r", "1q2w3e4r5t", "q1w2e3r4", "1qaz2wsx", "zaq12wsx", "asdfghjk", "asdfasdf", "abcd1234", "abc12345",
    "12341234", "11223344", "12344321", "12121212", "69696969", "20202020", "19841984", "12345678", "123456789",
    "1234567890", "0123456789", "87654321", "98765432", "teacher1", "teacher123", "classroom", "classroom1",
    "student1", "students", "specviz1", "specviz123", "changeme", "administrator", "admin123", "secret123",
    "correct horse battery staple", "correcthorsebatterystaple", "correct horse battery", "correcthorsebattery",
    "cavalo correto bateria grampo", "cavalocorretobateriagrampo",
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
    seconds (issue 44 item 1: 78 fresh-session guesses found 12345678 in 12.9 s), so a guesser gets 1,800 tries an
    hour against a PIN `weak_pin` did not refuse. The teacher then waits that long for a free slot when the guessing
    has stopped; a script that keeps trying from fresh browsers takes each slot the moment it opens, and the teacher
    stays out for as long as it runs (the pace is checked before the PIN, so that a paced try learns nothing about
    it). The right PIN clears its
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
            if browser.locked_until > now:  # the browser's own record, or the device's when it has no session
                wait = _duration(browser.locked_until - now)
                if session is None or session == client:
                    raise ClassroomError(_("Too many wrong PINs from this device; please wait {wait}.", wait=wait))
                raise ClassroomError(_("Too many wrong PINs from this browser; please wait {wait}.", wait=wait))
            if shared > now and browser.failures:
                if shared > self._overall.locked_until:  # the device's lock, not the server's (43rd read)
                    raise ClassroomError(_("Many wrong PINs have been tried from this device; this browser may try "
                                           "again in {wait}.", wait=_duration(shared - now)))
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
    """At most `limit` events per client in any `per` seconds (a sliding window), for join attempts (a refused one
    counts too: the page records it before it tries): `hit` records one or refuses with one sentence. Thread-safe;
    memory is bounded by `max_clients` (least recently seen dropped first).
    """

    def __init__(self, limit: int = JOINS_PER_MINUTE, per: float = 60.0, what: str = N_("join attempts"),
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
