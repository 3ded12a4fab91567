"""The Serving lab in front of a public class (issue 28): it connects to nothing but this machine unless the operator
lists a host, refuses before any name is resolved or any connection is made, follows no redirect, gives every read
one total deadline and a size cap, tells no visitor which addresses answer, bounds what a /metrics answer can make
it hold, and caps the load every visitor together can send.

Every server here is a stand-in on 127.0.0.1; `no_outside` records every resolution and connection the process
attempts and fails the test on any that is not loopback, so a regression cannot send traffic anywhere else.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pandas as pd
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from serving_fake import FakeServer, recorded
from specviz.core.i18n import _, using
from specviz.serving import client, load
from specviz.serving.load import LEVELS, MAX_STREAMS, LoadPlan, Prompt, run_load
from specviz.serving.metrics import MAX_POSITIONS, Delta, parse_scrape
from specviz.ui.common.charts import figure_table
from specviz.ui.common.escaping import escape_markdown

from test_serving import PAGE, _sentence

COPY = Prompt("copy", "Copy this: a b c")


# ---- stand-ins and the guard ------------------------------------------------------------------------------------------


class Attempts:
    """Every host resolved and every address connected to while the guard is on."""

    def __init__(self) -> None:
        self.resolved: list[str] = []
        self.connected: list[str] = []


def _loopback(host: object) -> bool:
    text = str(host).strip("[]").split("%")[0]
    if text == "localhost":
        return True
    try:
        return ipaddress.ip_address(text).is_loopback
    except ValueError:
        return False


@pytest.fixture
def no_outside(monkeypatch):
    """Record (and refuse) every resolution or connection to anything but loopback."""
    seen = Attempts()
    real_getaddrinfo, real_connect = socket.getaddrinfo, socket.socket.connect
    real_create = socket.create_connection

    def getaddrinfo(host, *args, **kwargs):
        seen.resolved.append(str(host))
        if not _loopback(host):
            raise AssertionError(f"resolved a name that is not loopback: {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    def connect(self, address):
        seen.connected.append(str(address[0]))
        if not _loopback(address[0]):
            raise AssertionError(f"connected to an address that is not loopback: {address!r}")
        return real_connect(self, address)

    def create_connection(address, *args, **kwargs):
        seen.connected.append(str(address[0]))
        if not _loopback(address[0]):
            raise AssertionError(f"connected to an address that is not loopback: {address!r}")
        return real_create(address, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "create_connection", create_connection)
    monkeypatch.delenv(client.HOSTS_ENV, raising=False)
    monkeypatch.delenv(client.LOAD_HOSTS_ENV, raising=False)
    return seen


class StandIn:
    """A loopback HTTP server whose every answer is `reply(handler)`; it counts the requests it was sent."""

    def __init__(self, reply) -> None:
        self.hits = 0
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _any(self):
                stand_in.hits += 1
                try:
                    reply(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = _any

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def stand_in():
    servers: list[StandIn] = []

    def make(reply) -> StandIn:
        servers.append(StandIn(reply))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


def _answer(code: int, body: bytes = b"", headers: dict[str, str] | None = None):
    def reply(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(code)
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
    return reply


# ---- nothing leaves this machine unless the operator says so ------------------------------------------------------

OUTSIDE = ["http://example.org:8000", "http://10.0.0.5:8000", "http://169.254.169.254", "http://192.168.1.1",
           "http://[fd00::1]:8000", "http://0.0.0.0:8000", "http://10.1:8000", "http://0xa000001:8000",
           "http://localhost.:8000", "http://127.1.example:8000",
           "http://127.0.0.1.nip.io:8000", "http://ｌｏｃａｌｈｏｓｔ:8000", "https://metadata.google.internal",
           # read 49: a zone id belongs to an IPv6 literal only; this one was cut at "%" and taken as 127.0.0.1
           "http://127.0.0.1%evil.example:8000",
           # read 52: an IPv4-mapped address is the IPv4 address it carries (::ffff:127.0.0.1 is loopback, below);
           # an IPv4-compatible one (::127.0.0.1, deprecated) is not mapped and is not loopback
           "http://[::ffff:10.0.0.5]:8000", "http://[::ffff:a9fe:a9fe]", "http://[::127.0.0.1]:8000"]


@pytest.mark.parametrize("url", OUTSIDE)
def test_every_other_host_is_refused_before_any_lookup_or_connection(url, no_outside):
    try:
        base = client.base_url(url)
    except ValueError as exc:  # refused as an address already
        assert _sentence(str(exc))
        return
    calls = [lambda: client.get_text(f"{base}/metrics"), lambda: client.get_json(f"{base}/v1/models"),
             lambda: client.post_json(f"{base}/v1/chat/completions", {}, timeout=1.0),
             lambda: client.served_model(base), lambda: run_load(base, LoadPlan(prompts=(COPY,)))]
    for call in calls:
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value) == str(client.not_allowed()) and _sentence(str(info.value))
        assert client.HOSTS_ENV in str(info.value) and client.host_of(base) not in str(info.value)
    assert no_outside.resolved == [] and no_outside.connected == []


@pytest.mark.parametrize(("url", "host"), [("http://0.0.0.0:8000", "0.0.0.0"), ("http://[::]:8000", "::"),
                                           ("http://0:8000", "0"), ("http://[::ffff:0.0.0.0]", "::ffff:0.0.0.0")])
def test_the_unspecified_address_is_refused_as_such_before_any_connection(url, host, no_outside):
    """Read 55: http://0.0.0.0 and http://[::] were refused with "The Serving lab only connects to this machine
    (localhost)", a wrong reason (on Linux a connect to them reaches this machine): they are refused for being the
    address a server listens on, in both languages, from the text alone."""
    for language, words in (("en", "is the unspecified address (0.0.0.0 or ::)"),
                            ("pt", "é o endereço não especificado (0.0.0.0 ou ::)")):
        with using(language), pytest.raises(ValueError) as info:
            client.base_url(url)
        said = str(info.value)
        assert words in said and f"({host})" in said and "127.0.0.1" in said and _sentence(said)
        assert "localhost)" not in said and "esta máquina (localhost)" not in said
    at = _page(url)
    assert not at.exception and len(at.error) == 1 and "unspecified address" in at.error[0].value
    assert all(_loopback(h) for h in no_outside.resolved + no_outside.connected)  # only the page's default read


@pytest.mark.parametrize("host", ["127.1", "2130706433", "0x7f000001", "127.0.1", "[::ffff:127.0.0.1]",
                                  "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:127.0.0.1]"])
def test_a_short_form_of_a_loopback_address_is_this_machine(host, no_outside, stand_in):
    """Read 48: "127.1" (127.0.0.1 to inet_aton and every resolver) was refused as "only connects to this machine".
    It is judged from the address it stands for, read from the text alone, and connected to written out: the one
    lookup is of the numeric 127.0.0.1, never of the text typed (10.1 and 0xa000001 stay refused in OUTSIDE).
    Read 52: so is the IPv4-mapped IPv6 address ::ffff:127.0.0.1 (::ffff:10.0.0.5 stays refused in OUTSIDE)."""
    server = stand_in(_answer(200, recorded("ngram-idle.prom").encode()))
    port = int(server.url.rsplit(":", 1)[1])
    base = client.base_url(f"http://{host}:{port}")
    assert client.allowed(base) and client.is_loopback(base)
    assert parse_scrape(client.get_text(f"{base}/metrics"), at=0.0).speculating
    assert server.hits == 1 and set(no_outside.resolved) == {"127.0.0.1"}


def test_localhost_must_resolve_to_loopback(no_outside, monkeypatch, stand_in):
    """A name allowed only as this machine is connected to only if it resolves to a loopback address."""
    server = stand_in(_answer(200, recorded("ngram-idle.prom").encode()))
    port = int(server.url.rsplit(":", 1)[1])
    real = socket.getaddrinfo

    def poisoned(host, *args, **kwargs):  # a hosts file that sends localhost elsewhere
        if host == "localhost":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.1.2.3", port))]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", poisoned)
    with pytest.raises(client.ServerError):
        client.get_text(f"http://localhost:{port}/metrics")
    assert server.hits == 0 and no_outside.connected == []


def test_a_name_under_localhost_resolves_localhost_itself_not_the_visitors_name(no_outside, stand_in):
    """Issue 44 item 6: http://anything.localhost is loopback by its text, but resolving it sent a DNS query for a
    name the visitor chose. Only `localhost` itself is resolved; the request still reaches this machine."""
    server = stand_in(_answer(200, recorded("ngram-idle.prom").encode()))
    port = int(server.url.rsplit(":", 1)[1])
    assert parse_scrape(client.get_text(f"http://evil-tracker-1234.localhost:{port}/metrics"), at=0.0).speculating
    assert server.hits == 1
    assert no_outside.resolved and set(no_outside.resolved) == {"localhost"}


def test_a_host_the_operator_lists_is_reached(no_outside, monkeypatch, stand_in):
    """$SPECVIZ_SERVING_HOSTS opens a named host (here a name the test resolves to the loopback stand-in)."""
    server = stand_in(_answer(200, recorded("ngram-idle.prom").encode()))
    port = int(server.url.rsplit(":", 1)[1])
    real = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: real("127.0.0.1" if host == "gpu-node.test"
                                                                            else host, *a, **k))
    with pytest.raises(client.ServerError):
        client.get_text(f"http://gpu-node.test:{port}/metrics")
    assert server.hits == 0
    monkeypatch.setenv(client.HOSTS_ENV, "other-node, GPU-node.test")
    assert parse_scrape(client.get_text(f"http://gpu-node.test:{port}/metrics"), at=0.0).speculating
    assert server.hits == 1


def test_redirects_are_not_followed(no_outside, stand_in):
    elsewhere = stand_in(_answer(200, recorded("ngram-idle.prom").encode()))
    for code in (301, 302, 303, 307, 308):
        mover = stand_in(_answer(code, b"", {"Location": f"{elsewhere.url}/metrics"}))
        with pytest.raises(client.ServerError) as info:
            client.get_text(f"{mover.url}/metrics")
        assert str(info.value) == _neutral(mover.url)
        with pytest.raises(client.ServerError):
            client.post_json(f"{mover.url}/v1/chat/completions", {"model": "m"}, timeout=2.0)
        assert mover.hits == 2
    assert elsewhere.hits == 0


def _neutral(url: str) -> str:
    return str(client.ServerError(client.NO_ANSWER.format(url=url)))


def test_every_failure_is_the_same_neutral_sentence(no_outside, stand_in):
    """403, 404, 500, a page that is not vLLM's, garbage and silence all read alike: a visitor learns nothing about
    which addresses answer."""
    servers = [stand_in(_answer(code, b'{"message": "secret internal detail"}')) for code in (403, 404, 500)]
    servers.append(stand_in(_answer(200, b"<html>admin console</html>")))
    servers.append(stand_in(_answer(200, b"\x00\xff" * 100)))
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    urls = [s.url for s in servers] + [f"http://127.0.0.1:{port}"]
    assert len(urls) == 6  # the six answers the docstring lists
    from specviz.ui.serving.view import scrape

    for url in urls:
        # the sentence names the server as typed, up to the endpoint specviz asks for (read 52: a server at
        # http://127.0.0.1:9/vllm was named "http://127.0.0.1:9"), so "/x", no endpoint of specviz's, stays
        for call, named in ((lambda: scrape(url), url), (lambda: client.served_model(url), url),
                            (lambda: client.get_json(f"{url}/x"), f"{url}/x")):
            with pytest.raises(client.ServerError) as info:
                call()
            assert str(info.value) == _neutral(named), str(info.value)



def test_json_with_a_huge_number_is_the_neutral_sentence_too(no_outside, stand_in):
    """json.loads of a 5,000-digit number raises a plain ValueError (Python's int limit), not a JSONDecodeError:
    get_json and post_json let Python's message through instead of the neutral sentence (29th read)."""
    server = stand_in(_answer(200, b'{"data": [{"id": ' + b"7" * 5000 + b"}]}"))
    for call in (lambda: client.served_model(server.url), lambda: client.get_json(f"{server.url}/v1/models"),
                 lambda: client.post_json(f"{server.url}/v1/chat/completions", {}, timeout=3.0)):
        with pytest.raises(client.ServerError) as info:
            call()
        assert str(info.value) == _neutral(server.url), str(info.value)

# ---- deadlines and sizes ----------------------------------------------------------------------------------------------


def _drip(handler: BaseHTTPRequestHandler) -> None:
    """Headers and body one byte at a time, a byte every 0.2 s, for ever (until the client hangs up)."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n"
    for byte in head + b"vllm:generation_tokens_total 1\n" * 10_000:
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(0.2)


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_a_server_that_drips_is_cut_off_at_the_total_deadline(no_outside, stand_in):
    server = stand_in(_drip)
    start = time.monotonic()
    with pytest.raises(client.ServerError) as info:
        client.get_text(f"{server.url}/metrics", timeout=1.0)
    assert time.monotonic() - start < 5.0  # 1 s deadline (slack for a busy machine); a per-read timeout: for ever
    assert str(info.value) == _neutral(server.url)


def test_an_answer_past_the_size_cap_is_refused(no_outside, stand_in):
    def huge(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(client.MAX_BODY * 4))
        handler.end_headers()
        chunk = b"#" * 65536
        for _ in range(client.MAX_BODY * 4 // len(chunk)):
            handler.wfile.write(chunk)

    server = stand_in(huge)
    with pytest.raises(client.ServerError) as info:
        client.get_text(f"{server.url}/metrics", timeout=10.0)
    assert str(info.value) == _neutral(server.url)


# ---- what a /metrics answer can make the page hold --------------------------------------------------------------------


@pytest.mark.parametrize("position", ["100000", "1000000000000", "9" * 5000, "-1", "²", "٣", "５", "1e3", " 1",
                                      "0x1", "16", "+1"])
def test_draft_positions_are_bounded_and_ascii(position):
    text = f'vllm:spec_decode_num_drafts_total 10\nvllm:spec_decode_num_accepted_tokens_per_pos_total{{position="{position}"}} 1\n'
    scrape = parse_scrape(text, at=0.0)
    assert len(scrape.accepted_per_position) <= MAX_POSITIONS
    assert scrape.accepted_per_position == ()  # none of these is a position below MAX_POSITIONS in ASCII digits


@pytest.mark.slow  # over 0.22 s a test: make check stays under a minute, make test runs it
def test_many_positions_and_bad_values_keep_the_scrape_small_and_finite():
    lines = ["vllm:spec_decode_num_drafts_total 10"]
    lines += [f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{position="{i}"}} 1' for i in range(0, 100_000, 5)]
    lines += ['vllm:spec_decode_num_accepted_tokens_per_pos_total{position="1"} NaN',
              'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="2"} +Inf',
              'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="3"} 1e308',
              'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="3"} 1e308',
              'vllm:spec_decode_num_accepted_tokens_total -1e308', "vllm:generation_tokens_total nan",
              "vllm:" + "x" * 100_000 + " 1"]
    scrape = parse_scrape("\n".join(lines), at=0.0)
    assert len(scrape.accepted_per_position) == MAX_POSITIONS == 16
    assert scrape.accepted_per_position[:6] == (1, 0, 0, 0, 0, 1)  # NaN, inf and 1e308 left out
    assert scrape.accepted == 0 and scrape.generation_tokens == 0  # negative and NaN values are not counted
    assert all(0 <= v < 1e18 for v in scrape.per_position)  # no NaN or inf reaches a chart
    later = parse_scrape("\n".join(lines[:2]), at=1.0)
    assert len(Delta.between(scrape, later).accepted_per_position) == MAX_POSITIONS


@pytest.mark.slow  # over 1.5 s: make test runs it, make check stays under a minute
def test_the_chart_table_is_linear_in_the_points():
    """A figure of 300,000 distinct x values gives its 200-row table, and a last row counting the rest, at once (the
    old list lookup was quadratic)."""
    n = 300_000
    fig = go.Figure([go.Bar(x=[f"p{i}" for i in range(n)], y=list(range(n)), name="bars"),
                     go.Scatter(x=[f"p{i}" for i in range(0, n, 2)], y=[1.0] * (n // 2), name="line")])
    table = figure_table(fig)
    assert isinstance(table, pd.DataFrame) and len(table) == 201 and list(table[table.columns[0]][:2]) == ["p0", "p1"]
    assert table[table.columns[0]].iloc[-1] == "… and 299,800 more not listed here"
    assert list(table["line"][:2]) == ["1", "–"]


# ---- the load generator's bounds across visitors ------------------------------------------------------------------


@pytest.mark.parametrize("plan", [
    LoadPlan(prompts=(COPY,), levels=(16,) * 20, requests=64), LoadPlan(prompts=(COPY,), levels=(1, 1)),
    LoadPlan(prompts=(COPY,), requests=1.5), LoadPlan(prompts=(COPY,), requests=True),
    LoadPlan(prompts=(COPY,), levels=(1.0,)), LoadPlan(prompts=(COPY,), levels=("1",)),
    LoadPlan(prompts=(COPY,), levels=(True,)), LoadPlan(prompts=(COPY,), max_tokens=8.5),
    LoadPlan(prompts=(COPY,), max_seconds=float("nan")), LoadPlan(prompts=(COPY,), max_seconds=float("inf")),
    LoadPlan(prompts=(COPY,), max_seconds=-1e308), LoadPlan(prompts=(COPY,) * 9), LoadPlan(prompts=("x",)),
    LoadPlan(prompts=(COPY,), requests=2 ** 80)])
def test_repeated_levels_and_non_whole_counts_are_refused(plan):
    with pytest.raises(ValueError) as info:
        plan.check()
    assert _sentence(str(info.value))


@pytest.mark.slow  # over 0.7 s: make test runs it, make check stays under a minute
def test_one_sweep_at_a_time_and_a_process_wide_stream_cap(no_outside):
    fake = FakeServer(recorded("ngram-after-copy.prom"), delay=1.0)  # the sweep lasts at least 2 s
    try:
        plan = LoadPlan(prompts=(COPY,), levels=(16,), requests=32, max_tokens=5, max_seconds=30)
        done: list = []
        first = threading.Thread(target=lambda: done.append(run_load(fake.url, plan)))
        first.start()
        deadline = time.monotonic() + 10
        while fake.requests == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        refused = []
        for _ in range(4):  # four more visitors press Run while it runs
            with pytest.raises(ValueError) as info:
                run_load(fake.url, LoadPlan(prompts=(COPY,), levels=(16,), requests=16, max_tokens=5))
            refused.append(str(info.value))
        first.join(timeout=30)
        assert len(set(refused)) == 1 and _sentence(refused[0]) and "Another load sweep" in refused[0]
        assert done and done[0][0].concurrency == 16
        assert fake.requests == 32 and fake.max_in_flight <= MAX_STREAMS == max(LEVELS), \
            (fake.requests, fake.max_in_flight, done[0])
    finally:
        fake.close()


def test_a_second_sweep_is_refused_as_one_in_this_app_not_on_this_server(no_outside):
    """Read 55: the refusal said "Another load sweep is running on this server", but the lock is the app process's:
    a sweep against another server is refused too. It says so, in both languages, before anything is sent."""
    assert load._SWEEP.acquire(blocking=False)  # a sweep somewhere else in the app (any server)
    try:
        for language, words in (("en", "Another load sweep is running in this app (one at a time, whatever the "
                                       "server)"),
                                ("pt", "Outra varredura de carga está rodando neste app (uma de cada vez, qualquer "
                                       "que seja o servidor)")):
            with using(language), pytest.raises(ValueError) as info:
                run_load("http://127.0.0.1:9", LoadPlan(prompts=(COPY,), levels=(1,), requests=1, max_tokens=4))
            assert str(info.value).startswith(words) and "server;" not in str(info.value)
            assert "servidor;" not in str(info.value) and _sentence(str(info.value))
    finally:
        load._SWEEP.release()
    assert no_outside.resolved == [] and no_outside.connected == []


@pytest.mark.slow  # over 0.35 s in the fast tier: make check stays under a minute (read 44)
def test_the_stream_cap_holds_outside_a_sweep(no_outside):
    """Requests started by anything else in the process wait for the same MAX_STREAMS slots."""
    fake = FakeServer(recorded("ngram-after-copy.prom"), delay=0.2)
    try:
        threads = [threading.Thread(target=load._one_request,
                                    args=(f"{fake.url}/v1/chat/completions", "m", COPY, 4, time.monotonic() + 20,
                                          time.monotonic)) for _ in range(3 * MAX_STREAMS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        assert fake.requests == 3 * MAX_STREAMS and fake.max_in_flight <= MAX_STREAMS
    finally:
        fake.close()


def test_a_request_times_out_with_the_sweep_or_one_second_after_it_starts(monkeypatch):
    """load's docstring: each request times out with the sweep's deadline, or 1 s after it starts when less is left
    (the 26th read found the floor unmentioned)."""
    asked = []

    def post(url, payload, timeout):
        asked.append(timeout)
        return {"usage": {"completion_tokens": 1}}

    monkeypatch.setattr(load.client, "post_json", post)
    now = [100.0]
    for left in (30.0, 0.25):
        record = load._one_request("http://127.0.0.1:9/v1/chat/completions", "m", COPY, 4, now[0] + left,
                                   lambda: now[0])
        assert record.error == "" and record.completion_tokens == 1
    assert asked == [30.0, 1.0]
    assert "or 1 s after it starts" in " ".join(load.__doc__.split())


@pytest.mark.parametrize("body", [b"[]", b'{"usage": [1]}', b'{"usage": "8"}', b'"text"',
                                  b'{"usage": {"completion_tokens": true}}'])
def test_a_chat_answer_of_the_wrong_shape_is_the_neutral_sentence(no_outside, stand_in, body):
    """31st read: a server that answered a chat request with a JSON list (or a usage that is not an object) was
    recorded with Python's "'list' object has no attribute 'get'", which the Load generator showed as "Some
    requests failed: ..." (English on a Portuguese page, and not the one neutral sentence every failure gets)."""
    server = stand_in(_answer(200, body))
    record = load._one_request(f"{server.url}/v1/chat/completions", "m", COPY, 4, time.monotonic() + 5,
                               time.monotonic)
    assert server.hits == 1
    assert (record.completion_tokens, record.error) == (0, _neutral(server.url))


def test_a_sweeps_failed_request_is_said_in_the_pages_language(no_outside, stand_in):
    """Read 47: run_load sends each request from a pool thread, which started in a fresh context and so wrote its
    failure sentence in English; the Load generator showed "Algumas requisições falharam: No vLLM server answered
    at ..." on a Portuguese page."""
    server = stand_in(_answer(200, b"[]"))
    with using("pt"):
        levels = run_load(server.url, LoadPlan(prompts=(COPY,), levels=(1,), requests=1, max_tokens=4), model="m")
        said = _(client.NO_ANSWER, url=server.url)  # the neutral sentence every failure gets, in Portuguese
    assert [r.error for r in levels[0].records] == [said] and said.startswith("Nenhum servidor vLLM respondeu")


def test_a_levels_median_latency_of_an_even_count_is_the_higher_middle_one():
    """LevelResult.latency_s, as its docstring says: 4 requests of 1, 2, 3 and 4 s give 3 s (not 2.5 s)."""
    level = load.LevelResult(prompt="copy", concurrency=4, speculative="none", seconds=4.0,
                             records=[load.RequestRecord(s, 1) for s in (4.0, 1.0, 3.0, 2.0)])
    assert level.latency_s == 3.0
    assert "the higher of the two middle ones" in " ".join(load.LevelResult.latency_s.__doc__.split())


# ---- the page ----------------------------------------------------------------------------------------------------------


def _page(url: str, tab: str | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    if tab is not None:
        at.session_state["serving_tab"] = tab
    at.run()
    at.text_input(key="serving_url").set_value(url).run()
    return at


@pytest.mark.parametrize("url", ["http://10.0.0.5:8000", "http://169.254.169.254", "http://example.org"])
def test_the_page_refuses_other_hosts_in_one_sentence_before_connecting(url, no_outside):
    for tab in (None, "Load generator"):
        at = _page(url, tab)
        assert not at.exception
        assert [e.value for e in at.error] == [escape_markdown(str(client.not_allowed()))]
    # the page's first run reads its default address, this machine; nothing else was looked up or connected to
    assert all(_loopback(host) for host in no_outside.resolved + no_outside.connected)


def test_the_page_reads_a_server_at_an_ipv4_mapped_loopback_address(no_outside, stand_in):
    """Read 52: http://[::ffff:127.0.0.1] was refused with "The Serving lab only connects to this machine
    (localhost)", though that address is this machine; the page now reads the server there (over 127.0.0.1)."""
    server = stand_in(_answer(200, recorded("ngram-idle.prom").encode()))
    port = int(server.url.rsplit(":", 1)[1])
    at = _page(f"http://[::ffff:127.0.0.1]:{port}")
    assert not at.exception and [e.value for e in at.error] == []
    assert server.hits >= 1 and no_outside.connected and set(no_outside.connected) <= {"127.0.0.1"}


def test_the_page_backs_off_after_a_failure(no_outside, stand_in):
    server = stand_in(_answer(500, b"down"))
    at = _page(server.url)
    assert not at.exception and server.hits == 1
    assert [w.value for w in at.warning] == [escape_markdown(_neutral(server.url))]
    at.run()
    at.run()  # reruns inside the back-off window read nothing
    assert server.hits == 1 and len(at.warning) == 1


def test_the_page_survives_a_metrics_answer_built_to_exhaust_it(no_outside, stand_in):
    lines = ["vllm:spec_decode_num_drafts_total 10", "vllm:spec_decode_num_draft_tokens_total 40",
             'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="1000000000000"} 1',
             'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="100000"} 1',
             'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="2"} 5']
    server = stand_in(_answer(200, "\n".join(lines).encode()))
    at = _page(server.url)
    assert not at.exception
    chart = [c for c in at.get("plotly_chart") if c.key == "serving_position_chart"]
    assert chart and len(at.session_state["serving_history"]["scrapes"][-1].accepted_per_position) == 3


def test_the_address_help_does_not_call_the_page_read_only():
    """Issue 43, fourteenth read: the address field's help said "Read-only: specviz reads /metrics and /v1/models",
    but the Load generator tab posts chat requests to the same address (specviz/serving/load.py)."""
    import inspect

    from specviz.ui.serving import view

    source = inspect.getsource(view.server_url)
    assert "Read-only" not in source and "/v1/chat/completions" in source


def test_serving_md_names_the_busy_sentence_and_its_count():
    """Read 30: serving.md said the page "answers every failure with the same sentence"; a second one, BUSY, comes
    when MAX_CONNECTIONS requests are open (the same for every address, so it tells nothing about one)."""
    from pathlib import Path

    text = " ".join((Path(__file__).resolve().parents[2] / "docs" / "serving.md").read_text(encoding="utf-8").split())
    assert "answers every failure with the same sentence" not in text
    assert f"says the app is busy while {client.MAX_CONNECTIONS} requests are already open" in text
