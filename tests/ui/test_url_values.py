"""Shared links that crashed pages or injected links (issue 28, Medium 5): `str.isdigit()` accepted "²" and `int()`
refused 5,000 digits, so `/learn?lesson=²`, `/quiz?lesson=²` or `/playground?step=²` showed an exception box, and
`/learn?...&done=[Log in](https://evil.example/x)` drew a real link inside the app's warning. Every number, list and
setting in a URL now goes through `specviz.core.urlvalues` (ASCII digits, bounded length and range), the few words and
keys are compared with what they may be, and every echoed value is escaped."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from streamlit.testing.v1 import AppTest

from specviz.core import urlvalues
from specviz.runs.runspec import RunSpec
from specviz.teach.learn import parse_progress
from specviz.ui.playground.settings import parse_query_params
from specviz.ui.race.settings import parse_url

ROOT = Path(__file__).resolve().parents[2]
HOSTILE_WHOLE = ["²", "٣", "５", "1²", "9" * 5000, "9" * 16, "1e3", "1.0", "+1", "0x1", "1_0", " ", "", "-",
                 "1 2", "١٢", "2\x00", "nan", "inf", "[Log in](https://evil.example/x)", "<b>2</b>"]
HOSTILE_DECIMAL = ["nan", "NaN", "inf", "-inf", "Infinity", "1e308", "-1e308", "1e999", "9" * 5000, "1_0", "٣",
                   "0.５", "²", "0x1p3", "1e", ".", "1..2", "", "[x](y)",
                   "1e-400", "-5e-999"]  # read 53: the last two read as 0
LINKS = ["[Log in](https://evil.example/x)", "![pixel](https://evil.example/p.png)", "<img src=x onerror=alert(1)>",
         "<a href='https://evil.example'>go</a>", "**loud** _x_ `code` $x$ :red[alarm]"]


@pytest.mark.parametrize("raw", HOSTILE_WHOLE)
def test_a_whole_number_is_ascii_digits_in_range(raw):
    assert urlvalues.whole(raw, -10**15, 10**15) is None
    assert urlvalues.whole_list(f"1,{raw}", 0, 10) is None or raw.strip() == ""


@pytest.mark.parametrize("raw", HOSTILE_DECIMAL)
def test_a_decimal_is_finite_ascii_in_range(raw):
    assert urlvalues.decimal(raw, -1e15, 1e15) is None


def test_ordinary_values_still_read():
    assert urlvalues.whole(" 42 ", 0, 100) == 42 and urlvalues.whole("-3", -5, 5) == -3
    assert urlvalues.decimal("0.7", 0, 2) == 0.7 and urlvalues.decimal("1e-3", 0, 1) == 0.001
    assert urlvalues.decimal("0e-400", 0, 1) == 0 and urlvalues.decimal("1e-320", 0, 1) == 1e-320  # 0, and subnormal
    assert urlvalues.whole_list("3,1, 2", 1, 9) == [3, 1, 2] and urlvalues.whole_list("1," * 100, 1, 9) is None


@pytest.mark.parametrize("raw", HOSTILE_WHOLE + LINKS)
def test_learn_progress_refuses_in_one_sentence(raw):
    for params in ({"lesson": raw}, {"lesson": "2", "done": f"1,{raw}"}, {"lesson": "2", "done": raw}):
        progress, problem = parse_progress(params)
        if problem is None:  # only an empty list of finished lessons is fine
            assert params.get("done", "x").strip() in ("", "1,") or params["done"].strip(" ,") == "1"
            continue
        assert progress.lesson == 1 and not progress.done and "\n" not in problem and problem.endswith(".")


@pytest.mark.parametrize("raw", HOSTILE_WHOLE)
def test_the_playground_step_and_run_settings_refuse_hostile_numbers(raw):
    values, bad = parse_query_params({"step": raw, "k": raw, "seed": raw, "temperature": raw}, ["toy-draft"])
    assert "step" not in values and "k" not in values and "seed" not in values and "step" in bad
    spec, problems = RunSpec.parse_query({"k": raw, "max_new_tokens": raw, "top_k": raw})
    assert spec == RunSpec() and len(problems) == 3 and all(len(p) < 200 for p in problems)


@pytest.mark.parametrize("lang, said", [
    ("en", "tree_lookup must be 0 while tree_nodes is 0, as a chain has no lookup branch (got 3)"),
    ("pt", "tree_lookup deve ser 0 enquanto tree_nodes for 0, pois uma cadeia não tem ramo de busca (recebido: 3)")])
def test_a_lookup_branch_without_a_tree_is_refused_with_its_name_rule_and_value(lang, said):
    """Read 54: the link warning's list read "...; A lookup branch needs a draft tree: set tree nodes above 0, or the
    lookup branch to 0 (...); proposer must be ...": the one item that named neither the parameter nor the value."""
    from specviz.core.i18n import using

    with using(lang):
        assert parse_query_params({"tree_lookup": "3"}, [])[1] == {"tree_lookup": said}
        assert parse_query_params({"tree_lookup": "3", "tree_nodes": "8"}, [])[1] == {}


@pytest.mark.parametrize("raw", HOSTILE_DECIMAL)
def test_run_decimals_refuse_hostile_values(raw):
    spec, problems = RunSpec.parse_query({"temperature": raw, "top_p": raw})
    assert spec == RunSpec() and len(problems) == 2
    values, bad = parse_url({"race_temperature": raw, "race_k": raw, "race_example": "x" * 10_000})
    assert values == {} and {"race_temperature", "race_k", "race_example"} <= set(bad)


@pytest.mark.parametrize("params, quoted", [({"lesson": "9" * 5000}, "'" + "9" * 39 + "…'"),
                                            ({"lesson": "2", "done": "1," * 50}, "('" + "1," * 19 + "1…" + "')"),
                                            ({"lesson": "twelve"}, "'twelve'")])
def test_a_long_refused_value_is_quoted_cut_with_an_ellipsis(params, quoted):
    """Read 45: a lesson of 5,000 nines was quoted as "99999999999999999999", 20 nines with nothing to say that
    the link asked for more; a cut quote now ends in "…"."""
    problem = parse_progress(params)[1]
    assert problem is not None and quoted in problem


# ---- the pages -------------------------------------------------------------------------------------------------------


def _open(page: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


@pytest.mark.parametrize("params", [{"lesson": "²"}, {"lesson": "2", "done": "1,²"}, {"lesson": "9" * 5000},
                                   {"lesson": "٣"}, {"lesson": "2", "done": "1," + "9" * 5000}])
def test_hostile_learn_links_give_one_sentence(params):
    at = _open("learn.py", **params)
    assert not at.exception, at.exception
    (warning,) = at.warning
    assert warning.value.endswith("lesson 1\\.") and len(warning.value) < 400


@pytest.mark.parametrize("link", LINKS)
def test_an_echoed_value_is_inert(link):
    """The warning repeats the value as typed, every markdown and HTML sign escaped: no link, image or tag."""
    at = _open("learn.py", lesson="2", done=link)
    assert not at.exception
    (warning,) = at.warning
    value = warning.value
    assert "](" not in value and "<img" not in value and "<a " not in value and "**" not in value.replace("\\*", "")
    for sign in "[]()!`$*_":
        assert all(value[i - 1] == "\\" for i, c in enumerate(value) if c == sign and i > 0), (sign, value)


@pytest.mark.parametrize("page, params", [("quiz.py", {"lesson": "²"}), ("quiz.py", {"lesson": "2", "done": "٣"}),
                                          ("playground.py", {"step": "²"}), ("playground.py", {"step": "9" * 5000}),
                                          ("race.py", {"race_k": "٣", "race_seed": "²"})])
def test_other_pages_read_hostile_links_without_an_exception(page, params):
    at = _open(page, **params)
    assert not at.exception, at.exception


@pytest.mark.parametrize("lang, said", [("en", "The link's progress on the guided path could not be read"),
                                         ("pt", "Não foi possível ler o progresso na trilha guiada")])
@pytest.mark.parametrize("params", [{"lesson": "²"}, {"lesson": "<script>alert(1)</script>"},
                                    {"lesson": "2", "done": "٣"}])
def test_the_quiz_says_when_a_links_progress_cannot_be_read(params, lang, said):
    """43rd read: the Quiz dropped an unreadable ?lesson= silently and said only that no concept had been met."""
    at = _open("quiz.py", lang=lang, **params)
    assert not at.exception and [w.value for w in at.warning if w.value.startswith(said)]
    assert not _open("quiz.py", lang=lang, lesson="2", done="1").warning


@pytest.mark.browser
def test_in_a_browser_no_echoed_value_becomes_a_link(browser_context, app_url):
    """What a reader's browser draws: Streamlit turns bare web and e-mail addresses into links after reading the
    markdown, so escaping alone let `https://evil.example/x` through as a clickable link."""
    from specviz.scripts.screenshots import wait_for_app

    page = browser_context.new_page()
    page.goto(app_url)
    wait_for_app(page, timeout=120)
    for done in ("[Log in](https://evil.example/x)", "https://evil.example/x", "www.evil.example", "a@evil.example",
                 "<a href='https://evil.example'>go</a>", "![p](https://evil.example/p.png)"):
        page.goto(f"{app_url}/learn?lesson=2&done={quote(done)}")
        wait_for_app(page, timeout=60)
        warning = page.locator('[data-testid="stAlert"]').first
        assert "could not be read" in warning.inner_text()
        assert page.locator('a[href*="evil.example"], img[src*="evil.example"]').count() == 0, done
    for path in ("/learn?lesson=%C2%B2", "/quiz?lesson=%D9%A3", "/playground?step=%C2%B2"):
        page.goto(app_url + path)
        wait_for_app(page, timeout=60)
        assert page.locator('[data-testid="stException"]').count() == 0, path
    page.close()


def test_the_parameters_read_around_urlvalues_are_the_ones_its_docstring_names():
    """urlvalues said every page that reads query parameters goes through it; the language, the quiz's scope, the
    race's source and the classroom's parameters are read directly (and compared with what they may be). Any other
    literal read directly would be a number or a setting the module's checks should see."""
    import re
    from pathlib import Path

    from specviz.core import urlvalues

    root = Path(urlvalues.__file__).resolve().parents[2]
    files = [*(root / "specviz").rglob("*.py"), *(root / "pages").rglob("*.py"), root / "app.py"]
    read = {name for path in files for name in re.findall(r"query_params\.get\(([^,)]+)", path.read_text())}
    direct = {"LANG_PARAM", '"scope"', '"race_source"', "ROLE_PARAM", "SESSION_PARAM", '"student"', '"code"', '"join"'}
    assert read - {"key"} == direct  # "key": the pages that write their own settings back compare before writing
    doc = " ".join(urlvalues.__doc__.split())
    assert "every page that reads query parameters goes through here" not in doc
    for said in ("the language", "the quiz's scope", "the race's source", "role, session and student token",
                 "join code"):
        assert said in doc


@pytest.mark.slow  # an AppTest of the whole app, over 0.22 s: make test runs it
def test_an_unknown_language_in_the_link_is_said_once_in_both_languages_with_those_offered(monkeypatch):
    """Read 48: `?lang=xx` opened in English with one English caption that named no language on offer. The sidebar
    now says, in English and in Portuguese, that 'xx' is not offered and which are (with their ?lang= codes), once:
    the URL then says lang=en, and the next run says nothing more."""
    from specviz.core.i18n import _, using
    from specviz.ui.common.frame import UNKNOWN_LANGUAGE

    monkeypatch.setenv("SPECVIZ_PRELOAD", "0")  # no background model load: only the frame is looked at
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["lang"] = "xx"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    said = [c.value for c in at.sidebar.caption if "'xx'" in c.value]
    offered = "English (?lang=en), Português (?lang=pt)"
    expected = []
    for code in ("en", "pt"):
        with using(code):
            expected.append(_(UNKNOWN_LANGUAGE, asked="xx", offered=offered, language="English"))
    assert said == [" · ".join(expected)] and expected[0] != expected[1]
    assert "does not offer" in expected[0] and "não oferece" in expected[1]
    assert at.query_params["lang"] in ("en", ["en"])  # AppTest keeps a parameter as a list
    at.run()
    assert not [c.value for c in at.sidebar.caption if "'xx'" in c.value]


CONTROLS = [("a\u202eb", "a\\\\u202eb"), ("\x00Z", "\\\\x00Z"), ("x\n\n# Big", "x\\\\x0a\\\\x0a\\# Big")]


@pytest.mark.parametrize("raw, shown", CONTROLS)
@pytest.mark.parametrize("page, params, kind", [("learn.py", {"lesson": "{}"}, "warning"),
                                                ("learn.py", {"lesson": "2", "done": "{}"}, "warning"),
                                                ("quiz.py", {"scope": "{}"}, "info")])
def test_an_echoed_control_character_is_written_as_its_escape(page, params, kind, raw, shown):
    """Read 49: `?lesson=`, `?done=` and the Quiz's `?scope=` were repeated with their control characters as they
    were: a NUL vanished from the quote (the link seemed to ask for "Z"), a line break split the sentence into
    paragraphs, and a right-to-left override reversed the rest of the sentence. Each is now its escape, as the
    language and the model folders are quoted (`specviz.core.text.control_shown`)."""
    at = _open(page, **{key: value.format(raw) for key, value in params.items()})
    assert not at.exception
    (said,) = [element.value for element in getattr(at, kind) if "link" in element.value]
    # the lesson links quote a word as `core.text.typed` does (Python's repr: a line break as \\n; read 52)
    assert shown in said or shown.replace("\\\\x0a", "\\\\n") in said, said
    assert not any(c in said for c in "\u202e\x00\n"), said
