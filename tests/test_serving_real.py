"""The serving tier (`make test-serving`, marker `serving`): a real vLLM server, installed into .venv-vllm if
missing, started with n-gram speculation on a free loopback port, and always stopped (its whole process group) by
the session fixture, whatever the tests do. On 2 CPU cores: install about 2-8 minutes the first time (the network),
start-up 1.5-3 minutes (torch.compile), the tests about a minute."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz.serving import client
from specviz.serving.cli import PROMPTS
from specviz.serving.load import LoadPlan, Prompt, run_load
from specviz.serving.metrics import parse_scrape
from specviz.serving.server import Server

pytestmark = pytest.mark.serving
ROOT = Path(__file__).resolve().parent.parent
PAGE = str(ROOT / "pages" / "serving.py")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def vllm(tmp_path_factory):
    server = Server(run_dir=tmp_path_factory.mktemp("serving"))
    try:
        server.install()
        state = server.start("ngram", k=4, port=_free_port(), timeout=1200)
    except ValueError as exc:
        server.stop()
        pytest.fail(f"The vLLM server did not start: {exc}", pytrace=False)
    try:
        yield state
    finally:
        server.stop()
        assert server.state() is None


def _scrape(url: str):
    return parse_scrape(client.get_text(f"{url}/metrics", timeout=10), at=time.monotonic())


def test_the_spec_decode_counters_move_on_a_copy_prompt(vllm):
    before = _scrape(vllm.url)
    assert before.speculating, "a server started with n-gram speculation exposes spec_decode counters"
    answer = client.post_json(f"{vllm.url}/v1/chat/completions", {
        "model": client.served_model(vllm.url), "messages": [{"role": "user", "content": PROMPTS["copy"]}],
        "max_tokens": 64, "temperature": 0.0}, timeout=300)
    assert answer["usage"]["completion_tokens"] > 10
    after = _scrape(vllm.url)
    assert after.drafts > before.drafts and after.accepted > before.accepted
    assert after.accepted_per_position and after.accepted_per_position[0] > 0
    assert 1.0 < after.mean_accepted_length <= 5.0  # K = 4, the bonus token included


def test_the_serving_page_renders_the_live_counters(vllm):
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.run()
    at.text_input(key="serving_url").set_value(vllm.url).run()
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Acceptance rate"].endswith("%") and metrics["Mean accepted length"] != "–"
    assert "serving_position_chart" in [c.key for c in at.get("plotly_chart")]


def test_a_two_level_load_sweep(vllm):
    plan = LoadPlan(prompts=(Prompt("copy", PROMPTS["copy"]),), levels=(1, 2), requests=2, max_tokens=32,
                    max_seconds=300)
    levels = run_load(vllm.url, plan, speculative="ngram")
    assert [lv.concurrency for lv in levels] == [1, 2]
    for lv in levels:
        assert len(lv.ok) == 2, [r.error for r in lv.records]
        assert lv.throughput > 0 and lv.drafts > 0 and lv.acceptance_rate is not None
