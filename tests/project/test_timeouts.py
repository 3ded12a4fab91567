"""No test can hang (issue 47): a deliberately hung fixture fails quickly, naming the test and where it waited."""

import subprocess
import sys
import time

import pytest

from conftest import TIMEOUTS, time_limit


@pytest.mark.slow  # over 1.5 s: make test runs it, make check stays under a minute
def test_a_hung_fixture_fails_within_its_limit_with_a_readable_message(tmp_path):
    (tmp_path / "test_hang.py").write_text(
        "import threading\n"
        "import pytest\n\n"
        "@pytest.fixture\n"
        "def server_that_never_answers():\n"
        "    threading.Event().wait()  # waits for ever\n\n"
        "@pytest.mark.timeout(3)\n"
        "def test_waits(server_that_never_answers):\n"
        "    pass\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_hang.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    took = time.monotonic() - start
    assert out.returncode == 1, out.stdout[-2000:]
    assert took < 60
    text = out.stdout + out.stderr
    assert "Timeout (0:00:03)" in text or "Timeout" in text
    assert "test_waits" in text and "server_that_never_answers" in text  # which test, and where it waited


def test_every_tier_has_a_limit_and_the_slow_tiers_longer_ones():
    assert time_limit(set()) < time_limit({"slow"}) <= time_limit({"model"}) <= time_limit({"serving"})
    assert set(TIMEOUTS) == {"serving", "browser", "model", "statistical", "slow"}
