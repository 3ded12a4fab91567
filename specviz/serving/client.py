"""Talking to a vLLM server over HTTP: address checks, short timeouts, every failure as one sentence.

Only the standard library (urllib), so the Serving page and the tests need nothing beyond specviz's own pins.
A server is named by its base URL (`http://127.0.0.1:8000`); specviz reads `/health`, `/metrics` and
`/v1/models` from it, and the load generator posts to `/v1/chat/completions`. No credentials are ever sent or
stored: a URL that carries a user name or password is refused.

    >>> base_url(" http://127.0.0.1:8000/metrics ")
    'http://127.0.0.1:8000'
    >>> base_url("ftp://example.org")
    Traceback (most recent call last):
    ValueError: A server address starts with http:// or https://, like http://127.0.0.1:8000.
    >>> is_loopback("http://localhost:8000"), is_loopback("http://10.0.0.5:8000")
    (True, False)
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from specviz.i18n import _

__all__ = ["LOAD_HOSTS_ENV", "LOCAL_URL", "ServerError", "base_url", "get_json", "get_text", "is_loopback",
           "load_allowed", "post_json"]

LOCAL_URL = "http://127.0.0.1:8000"
# The operator (not a browser visitor) may let the load generator reach other hosts: a comma-separated list of host
# names or addresses, e.g. SPECVIZ_SERVING_LOAD_HOSTS=gpu-node-1,10.0.0.5. Read at call time.
LOAD_HOSTS_ENV = "SPECVIZ_SERVING_LOAD_HOSTS"
READ_TIMEOUT_S = 3.0


class ServerError(ValueError):
    """A server that cannot be reached or answers wrongly; the message is one sentence for the reader."""


def base_url(text: str) -> str:
    """The server's base URL from what a person typed: http(s) only, a host, no credentials, no query; a path
    ending in /metrics, /health or /v1 is cut back to the server itself. A bad address is a ValueError."""
    text = (text or "").strip()
    if not text:
        raise ValueError(_("Type the server's address, like http://127.0.0.1:8000."))
    if len(text) > 500:
        raise ValueError(_("That address is too long to be a server's address."))
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise ValueError(_("That address has a bad port: use a number from 1 to 65535, like http://127.0.0.1:8000.")) from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(_("A server address starts with http:// or https://, like http://127.0.0.1:8000."))
    if parts.username is not None or parts.password is not None:
        raise ValueError(_("Leave user names and passwords out of the address: specviz stores no credentials."))
    if not parts.hostname or any(c.isspace() for c in text):
        raise ValueError(_("That address has no host name, like 127.0.0.1 or my-server.example.org."))
    if parts.query or parts.fragment:
        raise ValueError(_("Give the server's address without ?… or #…, like http://127.0.0.1:8000."))
    path = parts.path.rstrip("/")
    for tail in ("/metrics", "/health", "/v1/models", "/v1"):
        if path.endswith(tail):
            path = path[: -len(tail)]
            break
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}{'' if port is None else f':{port}'}{path}"


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def is_loopback(url: str) -> bool:
    """Whether the URL's host is this machine (localhost or a loopback address), judged from the text alone."""
    host = host_of(url)
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def load_allowed(url: str) -> bool:
    """Whether the load generator may send requests to this server: loopback always; any other host only when the
    operator listed it in $SPECVIZ_SERVING_LOAD_HOSTS, so a visitor of a public app cannot aim it elsewhere."""
    if is_loopback(url):
        return True
    allowed = {h.strip().lower() for h in os.environ.get(LOAD_HOSTS_ENV, "").split(",") if h.strip()}
    return host_of(url) in allowed


def _open(request: urllib.request.Request, timeout: float) -> bytes:
    url = request.full_url
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.read(8_000_000)
    except urllib.error.HTTPError as exc:
        detail = ""
        try:
            detail = json.loads(exc.read(20_000) or b"{}").get("message", "")  # vLLM's error body
        except (ValueError, AttributeError, OSError):
            pass
        if detail:
            raise ServerError(_("{url} answered HTTP {code}: {detail}.", url=url, code=exc.code, detail=str(detail)[:200])) from None
        raise ServerError(_("{url} answered HTTP {code}.", url=url, code=exc.code)) from None
    except (TimeoutError, socket.timeout):
        raise ServerError(_("{url} did not answer within {seconds} s.", url=url, seconds=format(timeout, "g"))) from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, (TimeoutError, socket.timeout)):
            raise ServerError(_("{url} did not answer within {seconds} s.", url=url, seconds=format(timeout, "g"))) from None
        if isinstance(reason, ConnectionRefusedError):
            raise ServerError(_("Nothing is listening at {url}: is the server running (start one with make serve)?",
                                url=url)) from None  # plain text: the page escapes it, so no backticks
        if isinstance(reason, socket.gaierror):
            raise ServerError(_("The host in {url} is unknown: check the address.", url=url)) from None
        raise ServerError(_("Cannot reach {url}: {reason}.", url=url, reason=reason)) from None
    except (ConnectionError, OSError) as exc:
        raise ServerError(_("Cannot reach {url}: {reason}.", url=url, reason=exc.__class__.__name__)) from None


def get_text(url: str, timeout: float = READ_TIMEOUT_S) -> str:
    """The body of a GET, as text; any failure is a ServerError with one sentence."""
    request = urllib.request.Request(url, headers={"Accept": "text/plain, application/json"})
    return _open(request, timeout).decode("utf-8", errors="replace")


def get_json(url: str, timeout: float = READ_TIMEOUT_S):
    try:
        return json.loads(get_text(url, timeout))
    except json.JSONDecodeError:
        raise ServerError(_("{url} did not answer with JSON: is it an OpenAI-compatible server?", url=url)) from None


def post_json(url: str, payload: dict, timeout: float):
    body = json.dumps(payload).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
    try:
        return json.loads(_open(request, timeout))
    except json.JSONDecodeError:
        raise ServerError(_("{url} did not answer with JSON: is it an OpenAI-compatible server?", url=url)) from None


def served_model(base: str, timeout: float = READ_TIMEOUT_S) -> str:
    """The first model id the server lists at /v1/models."""
    data = get_json(f"{base}/v1/models", timeout)
    try:
        return str(data["data"][0]["id"])
    except (KeyError, IndexError, TypeError):
        raise ServerError(_("{url} lists no model.", url=base + "/v1/models")) from None
