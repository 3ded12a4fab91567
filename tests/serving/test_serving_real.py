"""The serving tier (`make test-serving`, marker `serving`; CI runs it after `make test`): a real vLLM server,
installed into .venv-vllm if missing, started eager (no torch.compile) with n-gram speculation on a free loopback
port, then with the EAGLE drafter trained here, and always stopped (its whole process group) by the session fixture,
whatever the tests do; `make` sends SIGINT at SERVING_LIMIT, which stops it too. On 2 busy CPU cores: the install
about 4-5 minutes the first time (the download), each start 1-2 minutes, the tests about 2 minutes."""

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
ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "serving.py")
START_TIMEOUT = 420  # seconds to /health; eager starts took 1-2 minutes on 2 cores (docs/testing.md)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Servers:
    """One local server at a time: `ensure(spec)` stops the running one if it speculates differently."""

    def __init__(self, server: Server):
        self.server = server

    def ensure(self, spec: str):
        state = self.server.state()
        if state is not None and state.spec == spec:
            return state
        self.server.stop()
        try:  # eager: no torch.compile, so a start takes 1-2 minutes, sooner than compiled (budget: 15 minutes)
            return self.server.start(spec, k=4, port=_free_port(), timeout=START_TIMEOUT, eager=True)
        except ValueError as exc:
            self.server.stop()
            pytest.fail(f"The vLLM server ({spec}) did not start: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def servers(tmp_path_factory):
    server = Server(run_dir=tmp_path_factory.mktemp("serving"))
    try:
        server.install()
    except ValueError as exc:
        pytest.fail(f"vLLM could not be installed into {server.venv}: {exc}", pytrace=False)
    try:
        yield Servers(server)
    finally:  # whatever the tests did: the whole process group goes
        server.stop()
        assert server.state() is None


@pytest.fixture
def vllm(servers):
    return servers.ensure("ngram")


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
    assert metrics["Acceptance rate"].endswith("%") and metrics["Mean accepted length (drafted steps)"] != "–"
    assert "serving_position_chart" in [c.key for c in at.get("plotly_chart")]


def test_a_two_level_load_sweep(vllm):
    plan = LoadPlan(prompts=(Prompt("copy", PROMPTS["copy"]),), levels=(1, 2), requests=2, max_tokens=32,
                    max_seconds=300)
    levels = run_load(vllm.url, plan, speculative="ngram")
    assert [lv.concurrency for lv in levels] == [1, 2]
    for lv in levels:
        assert len(lv.ok) == 2, [r.error for r in lv.records]
        assert lv.throughput > 0 and lv.drafts > 0 and lv.acceptance_rate is not None


# ---- the EAGLE drafter trained here, served by vLLM -------------------------------------------------------------------

EAGLE_PROMPTS = 4
# Pooled accepted / drafted tokens over the prompts, vLLM (bfloat16, the exported drafter) against specviz (its default
# dtype, bfloat16 on a CPU with bf16 instructions; the same drafter and head: an EAGLE-1 drafter reads the target's
# full head on both sides, the shipped EAGLE-3 one its own head and draft vocabulary, serving.compare). Greedy text
# differs after a near-tie flips, so the prompts' drafts differ too. Measured by this test (its printed line, with
# pytest -s) on 4 held-out prompts, 64 tokens, with the EAGLE-1 drafter's first version (35ce4c2) and specviz in
# float32, its default then: vLLM 0.234 compiled (7fdaa45), 0.183 eager (as this tier starts it); specviz 0.245 then,
# 0.208 on 2026-12-01 (4fe253e) (per prompt 0.13-0.31 in both). This test's figures for a later drafter are recorded
# nowhere (docs/serving.md's screenshot shows the EAGLE-3 drafter under vLLM on the copy prompt, another measure).
# Allowed: 0.08 absolute; a drafter exported without the bias fold or with the input norm on the wrong layer is a
# different function, and the test of the layout (tests/serving/test_serving_export.py) catches it exactly, on a tiny
# model.
EAGLE_TOLERANCE = 0.08


def test_vllm_accepts_the_exported_eagle_drafter_as_specviz_does(servers):
    from specviz.labs.bench import load_suites
    from specviz.serving.compare import pooled, specviz_acceptance, vllm_acceptance

    held_out = [s for s in load_suites() if s.name == "held-out"][0]
    prompts = [p.text for p in held_out.prompts[:EAGLE_PROMPTS]]
    state = servers.ensure("eagle")
    theirs = pooled(vllm_acceptance(state.url, prompts, max_tokens=64))
    ours = pooled(specviz_acceptance(prompts, "eagle", k=4, max_tokens=64))
    # read 54: "EAGLE acceptance:" named none of α, the acceptance rate and acceptance by position; `rate` is
    # accepted / drafted, the acceptance rate (docs/serving.md quotes this line)
    print(f"EAGLE acceptance rate: vLLM {theirs.rate:.3f} (MAL {theirs.mean_accepted_length:.2f}), "
          f"specviz {ours.rate:.3f} (MAL {ours.mean_accepted_length:.2f})")
    assert theirs.drafts > 0 and ours.drafts > 0
    assert abs(theirs.rate - ours.rate) <= EAGLE_TOLERANCE, (theirs, ours)


def doc_line_numbers_hold(venv: Path) -> list[str]:
    """What docs/serving.md says of vLLM 0.32's llama_eagle.py, read against the installed file: `bias=False` on line
    113 (the fc) and the first layer's input norm swapped for `nn.Identity()` on lines 55-57; the lines that do not
    hold (none when they all do). Read 47: the doc cited those line numbers with no file or command to check them."""
    doc = " ".join((ROOT / "docs" / "serving.md").read_text(encoding="utf-8").split())
    assert "its `fc` has no bias (line 113)" in doc and "an `nn.Identity` (lines 55–57)" in doc
    found = sorted(venv.glob("lib/python3*/site-packages/vllm/model_executor/models/llama_eagle.py"))
    assert len(found) == 1, found
    lines = found[0].read_text(encoding="utf-8").splitlines()
    expected = {113: "bias=False,", 55: "if disable_input_layernorm:", 56: "del self.input_layernorm",
                57: "self.input_layernorm = nn.Identity()"}
    return [f"line {n}: {lines[n - 1].strip()!r}, not {text!r}" for n, text in expected.items()
            if lines[n - 1].strip() != text]


def test_the_vllm_line_numbers_serving_md_cites_are_the_installed_files(servers):
    assert doc_line_numbers_hold(servers.server.venv) == []  # the vLLM 0.32 wheel `serve` installs (read 47)
