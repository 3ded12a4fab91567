"""What the docs say the tests prove (the 38th read of issue 43): every test file and test function a doc names
exists, and the checks the docs describe are the ones the named tests make, with their tolerances and settings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
# named by a doc as a past measurement's file, with the commit that removed it said beside it
GONE = {"tests/browser/test_keyboard_browser.py": "since 1962c6d4"}
PLACEHOLDERS = {"tests/engine/test_x.py"}  # "run one alone: python -m pytest tests/engine/test_x.py"


def _flat(path: Path) -> str:
    return " ".join(path.read_text(encoding="utf-8").split())


def _test_names() -> set[str]:
    """Every function and class defined under tests/, and every test module's stem."""
    names = set()
    for path in (ROOT / "tests").rglob("*.py"):
        names.add(path.stem)
        names |= set(re.findall(r"^\s*(?:def|class) (\w+)", path.read_text(encoding="utf-8"), flags=re.MULTILINE))
    return names


def _function(path: str, name: str) -> str:
    """The source of a top-level function of a test file, read as text (no import: no torch for a doc check)."""
    text = (ROOT / path).read_text(encoding="utf-8")
    start = text.index(f"\ndef {name}(")
    end = re.compile(r"^\S", re.MULTILINE).search(text, text.index("\n", start + 1) + 1)
    return text[start:end.start() if end else len(text)]


def test_every_test_file_and_test_a_doc_names_exists():
    """The 38th read found testing.md quoting `tests/browser/test_keyboard_browser.py` in a command, a module
    1962c6d4 had merged into the accessibility audit, without saying so."""
    names, paths, missing = _test_names(), [], []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for path in re.findall(r"tests/[\w/.-]*\w", text):
            paths.append(path)
            if not (ROOT / path).exists() and path not in GONE and path not in PLACEHOLDERS:
                missing.append((page.name, path))
        for name in re.findall(r"(?<![\w/.])(test_\w+)(?![\w/])", text):
            paths.append(name)
            if name.removesuffix(".py") not in names and not name.endswith("_") and f"tests/{name}" not in text:
                missing.append((page.name, name))
    assert len(paths) > 60
    assert missing == []
    for path, note in GONE.items():
        assert not (ROOT / path).exists()
        assert f"that module is gone: {note}" in _flat(DOCS / "testing.md")


def test_accessibility_md_names_the_files_that_make_its_keyboard_checks():
    """accessibility.md credited its whole keyboard list to test_accessibility_browser.py; Next lesson's focus is
    checked in test_new_pages_browser.py and the phone's step in test_phone.py, and it did not name the keyboard
    pass the accessibility audit runs on every page."""
    from specviz.scripts import a11y_audit

    text = _flat(DOCS / "accessibility.md")
    held = {"tests/browser/test_new_pages_browser.py": "def test_root_to_the_guided_path_and_the_next_lesson",
            "tests/browser/test_phone.py": "def test_next_step_on_a_phone_brings_the_step_into_view",
            "tests/browser/test_accessibility_browser.py": 'keyboard=language == "en"'}
    assert all(f"`{path}`" in text and code in (ROOT / path).read_text(encoding="utf-8")
               for path, code in held.items())
    assert "`make test` checks it in Chromium (`tests/browser/test_accessibility_browser.py`)" not in text
    assert (f"a keyboard-only pass over every page at its default in English ({a11y_audit.KEYBOARD_PRESSES} presses "
            "of Tab") in text


def test_accessibility_md_says_where_the_focus_goes_after_check():
    """Read 46: accessibility.md said "focus stays on the question after Check"; the browser test holds the focus to
    the "Next question" button that replaces Check, and the doc now says that."""
    test = _function("tests/browser/test_accessibility_browser.py", "test_focus_stays_on_the_question_after_check")
    assert 'assert focused == ["BUTTON", "Next question"]' in test
    text = _flat(DOCS / "accessibility.md")
    assert 'after "Check" the focus moves to the "Next question" button that replaces it' in text
    assert 'focus stays on the question after "Check"' not in text


def test_testing_md_gives_the_tree_closed_forms_tolerance_and_the_chains_sampling_settings():
    """testing.md said the one-level closed form "equals p exactly"; the test asks a total variation under 1e-9 in
    float64, over 20 random pairs a width. Its chain chi-square gave no temperature or top-k."""
    text = _flat(DOCS / "testing.md")
    source = _function("tests/engine/test_tree_exactness.py",
                       "test_one_level_closed_forms_exact_rules_give_p_the_broken_rule_does_not")
    assert "tv_distance(dist, p) < 1e-9" in source and "dtype=torch.float64" in source and "range(20)" in source
    assert "equals p exactly" not in text
    assert ("the one-level closed form of the tree rule equals p to 1e-9 in total variation (float64, 20 random p, q "
            "for each width 1–3)") in text
    chain = (ROOT / "tests/engine/test_exact_sampling.py").read_text(encoding="utf-8")
    assert "\nSETTINGS = dict(temperature=1.0, top_k=6)\n" in chain and "\nN = 1000\n" in chain
    assert "on the toy pair (T = 1, top-k 6, 1,000 runs) follow the exact target distribution" in text


def test_testing_md_says_the_exact_sampling_runs_stop_at_the_two_tokens_read():
    """ab6df26f stopped each exact-sampling run once it holds the two tokens tested; testing.md's account of those
    runs still said they ran K + 1 tokens."""
    source = _function("tests/engine/test_exact_sampling.py", "test_first_two_tokens_follow_the_target")
    assert "clock=stop.clock" in source
    assert "and since ab6df26f each stops once it holds the two tokens the test reads" in _flat(DOCS / "testing.md")


def test_testing_md_dates_the_serving_tiers_first_timings():
    """The serving tier's 8 min 36 s, install times and 4 min 31 s came with no date or commit in testing.md."""
    text = _flat(DOCS / "testing.md")
    assert "quoted by commit 7512990b of 2026-12-01 00:42 UTC, which names no CPU): 8 min 36 s, 4 passed" in text
    assert "4 min 31 s (load average 6–8; the same commit)" in text


def test_the_slow_markers_history_names_every_commit_that_moved_tests_and_the_tree_timed_twice():
    """testing.md's marker list named two of the six commits that moved fast tests to `slow` (the 38th read);
    architecture.md called 09d97531's tree, timed at 00:10 and 00:50, "the same tree" as c2a3dcd5's run."""
    testing, architecture = _flat(DOCS / "testing.md"), _flat(DOCS / "architecture.md")
    marker = testing[testing.index("Markers (`pyproject.toml`): `slow`"):][:400]
    assert all(commit in marker for commit in ("5ec0ca5", "b19344fc", "c2a3dcd5", "733e4ff7", "24a9889c", "aaca8460"))
    assert "the same tree that took 51.8 s" not in architecture
    assert "the tree of 09d97531, 51.8 s of `make check` at 00:10, took 55.8 and 63.9 s at 00:50" in architecture
    assert "(the tree of 09d97531, 51.8 s at 00:10, read 55.8 and 63.9 s at 00:50)" in testing


def test_testing_md_says_the_3139_test_timing_counts_a_failure():
    """Read 55: testing.md gave the 32nd and 33rd reads' make check as "3,139 tests in 70.4 s", a figure whose source,
    the body of 733e4ff7, says "(one failure included)": a run with a failure is not a clean timing."""
    text = _flat(DOCS / "testing.md").replace(" # ", " ")  # the make check comment's lines, joined
    assert "reached 3,139 tests in 70.4 s (one failure included), 2026-12-06 03:17 UTC" in text


def test_the_browser_tiers_page_costs_name_their_commit():
    """The page costs (Chromium 0.6–3.6 s of CPU a page) and the browser tier's 6 min 31 s came with a date but no
    source; commit edbb092d's body holds them and names no CPU."""
    text = _flat(DOCS / "testing.md")
    assert "(quiet, 2026-12-02 night, the figures of commit edbb092d, whose body names no CPU)" in text
    assert "took 6 min 31 s for its 83 tests" in text and "Chromium spends 0.6–3.6 s of CPU" in text


def test_the_readmes_do_not_call_make_test_offline_while_a_test_installs_from_pypi():
    """Both READMEs said `make test` runs every test "(offline, CPU)"; the older-transformers check pip-installs a
    scratch virtualenv the first time and fails, never skips, without it
    (tests/engine/test_transformers_versions.py)."""
    check = (ROOT / "tests/engine/test_transformers_versions.py").read_text(encoding="utf-8")
    assert '"-m", "pip", "install"' in check and "pytest.skip" not in check
    said = "If the environment cannot be built, the test fails and says why: it never skips."
    assert said in " ".join(check.split())
    english, portuguese = _flat(ROOT / "README.md"), _flat(ROOT / "README.pt-BR.md")
    assert "(offline, CPU)" not in english + portuguese
    assert "its older-transformers check builds a scratch virtualenv from PyPI the first time" in english
    assert ("o teste com a versão mais antiga do transformers monta um virtualenv temporário a partir do PyPI"
            in portuguese)


def test_gpu_md_says_which_tests_the_older_transformers_check_runs():
    """gpu.md said the check runs "the engine, GPU-readiness and trained-draft tests": of tests/engine it runs
    test_engine.py alone, and it deselects two of test_drafts.py's."""
    check = (ROOT / "tests/engine/test_transformers_versions.py").read_text(encoding="utf-8")
    runs = re.search(r"^TESTS = \[(.*)\]$", check, flags=re.MULTILINE).group(1)
    assert re.findall(r'"([^"]+)"', runs) == ["tests/engine/test_engine.py", "tests/models/test_gpu_ready.py",
                                              "tests/models/test_drafts.py"]
    skipped = re.search(r"^SKIP_THERE = \[(.*?)\]$", check, flags=re.MULTILINE | re.DOTALL).group(1)
    assert skipped.count("tests/models/test_drafts.py::") == 2
    text = _flat(DOCS / "gpu.md")
    assert "runs the engine, GPU-readiness and trained-draft tests" not in text
    assert ("runs `tests/engine/test_engine.py`, the GPU-readiness tests and the trained drafts' tests but two "
            "(`TESTS` and `SKIP_THERE` there)") in text


def test_testing_md_counts_the_fixed_pauses_left_in_the_browser_tests():
    """testing.md said a browser test waits for what it tests, "never for a fixed time"; tests/browser calls
    `page.wait_for_timeout` in several places, some before asserting what the pause was for (the phone tests'
    1.5 s "every chart drawn"). The doc now counts them (43rd read): a new pause changes the count here."""
    calls = sum(len(re.findall(r"\bpage\.wait_for_timeout\(", path.read_text(encoding="utf-8")))
                for path in (ROOT / "tests" / "browser").glob("*.py"))
    phone = (ROOT / "tests" / "browser" / "test_phone.py").read_text(encoding="utf-8")
    assert "page.wait_for_timeout(1500)  # every chart drawn" in phone
    text = " ".join((ROOT / "docs" / "testing.md").read_text(encoding="utf-8").split())
    assert "never for a fixed time" not in text
    assert f"`tests/browser` still calls `page.wait_for_timeout` {calls} times" in text
    assert 'the phone tests\' 1.5 s for "every chart drawn"' in text


# what each file under tests/scripts covers, as testing.md's "Where a test lives" names it
SCRIPT_TESTS = {"test_a11y_states.py": "the accessibility audit's page states", "test_gemm_profile.py":
                "stock-kernel profile", "test_gpu_check.py": "GPU check", "test_greedy_identity.py": "greedy identity",
                "test_make_traces_text.py": "the example traces' recipes", "test_page_cost.py": "page cost",
                "test_preset_runs.py": "the Playground's presets", "test_recorded_commands.py": "recorded command",
                "test_script_flags.py": "count and temperature flags", "test_script_help.py": "every script's --help",
                "test_script_token_caps.py": "the token cap each script's first line states",
                "test_targets_bench.py": "targets bench", "test_wait_tools.py": "waiting-time tools",
                "test_tree_sweep_report.py": "the tree sweep's report"}


# what each file under tests/core covers, as testing.md's "Where a test lives" names it
CORE_TESTS = {"test_cache_heal.py": "a damaged cache healed", "test_cache_writes.py": "cache files written whole",
              "test_i18n.py": "the translation layer (i18n)", "test_yamlfiles.py": "YAML files parsed once per version"}


@pytest.mark.parametrize(("folder", "covers", "entry_start", "next_entry"), [
    ("scripts", SCRIPT_TESTS, "tests/scripts/ specviz/scripts: ", " tests/cli/"),
    ("core", CORE_TESTS, "tests/core/ specviz/core: ", " tests/engine/")])
def test_testing_md_says_what_every_file_under_a_tests_folder_covers(folder, covers, entry_start, next_entry):
    """Read 50: testing.md listed tests/scripts as "GPU check, greedy identity, waiting-time tools, page cost", four
    of its twelve files: the rest (the stock-kernel profile, the audit's states, --help, flags...) went unnamed; and
    gave tests/core as "cache files written whole, the translation layer (i18n)": test_yamlfiles.py (read_yaml's
    parse once per file version) and test_cache_heal.py went unnamed."""
    files = {path.name for path in (ROOT / "tests" / folder).glob("test_*.py")}
    assert files == set(covers), f"a file under tests/{folder} was added or removed: name it here and in the doc"
    text = _flat(DOCS / "testing.md")
    entry = text.partition(entry_start)[2].partition(next_entry)[0]
    assert entry, f"testing.md's tests/{folder} entry"
    assert [topic for topic in covers.values() if topic not in entry] == []


def test_testing_md_names_every_check_of_the_serving_tier():
    """Read 52: testing.md listed four checks of the serving tier (counters, page, sweep, EAGLE drafter) where
    tests/serving/test_serving_real.py has five: the fifth checks the vLLM source lines docs/serving.md cites."""
    tests = re.findall(r"^def (test_\w+)", (ROOT / "tests" / "serving" / "test_serving_real.py").read_text(
        encoding="utf-8"), flags=re.M)
    said = {"counters": "spec_decode counters move", "page": "the Serving page renders", "sweep": "2-level load sweep",
            "eagle": "exported EAGLE drafter", "line_numbers": "vLLM source lines `docs/serving.md` cites"}
    assert len(tests) == len(said) and any("line_numbers" in t for t in tests)
    text = " ".join((ROOT / "docs" / "testing.md").read_text(encoding="utf-8").split())
    assert [key for key, words in said.items() if words not in text] == []
