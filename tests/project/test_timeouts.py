"""No test can hang (issue 47): a deliberately hung fixture fails quickly, naming the test and where it waited."""

import os
import subprocess
import sys
import time
from pathlib import Path

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


@pytest.mark.slow  # a pytest in a subprocess: over 1.5 s
def test_a_failed_test_report_ends_with_the_app_servers_last_log_lines(tmp_path):
    """Issue 47 item 3: a browser test that gives up says what the app server was doing then."""
    (tmp_path / "test_server_fails.py").write_text(
        "import tempfile\n"
        "from specviz.scripts import screenshots\n\n"
        "def test_gives_up():\n"
        "    log = tempfile.TemporaryFile()\n"
        "    log.write(b''.join(b'line %d\\n' % i for i in range(100)) + b'Traceback: the page broke\\n')\n"
        "    log.flush()  # the server writes straight to the file; this test writes through a buffer\n"
        "    screenshots.LIVE_SERVERS['http://127.0.0.1:1'] = log\n"
        "    assert False, 'the page never drew its chart'\n\n"
        "def test_passes():\n"
        "    screenshots.LIVE_SERVERS.clear()\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    tests = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest",
                          "test_server_fails.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": f"{tests}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})
    assert out.returncode == 1, out.stdout[-2000:]
    report = out.stdout
    assert "app server log, last lines (http://127.0.0.1:1)" in report
    assert "Traceback: the page broke" in report and "line 99" in report and "line 59\n" not in report  # 40 lines
    assert report.count("app server log") == 1  # only the failed test carries it


def test_every_tier_has_a_limit_and_the_slow_tiers_longer_ones():
    assert time_limit(set()) < time_limit({"slow"}) <= time_limit({"model"}) <= time_limit({"serving"})
    assert set(TIMEOUTS) == {"serving", "browser", "model", "statistical", "slow"}
