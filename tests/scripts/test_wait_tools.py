"""The waiting-time tools' reports and refusals (the measurements themselves need Chromium and a quiet machine:
`python -m specviz.scripts.push_latency`, `python -m specviz.scripts.first_run_wait`)."""

from __future__ import annotations

import pytest

from specviz.scripts import first_run_wait, push_latency


def test_the_report_gives_every_arrival_and_the_median():
    text = push_latency.report([[2.34, 3.0], [1.0, None]])
    assert "push 1: 2.3, 3.0" in text and "push 2: 1.0, not within the timeout" in text
    assert "median 2.3 s, slowest 3.0 s over 3 arrivals" in text
    assert f"poll interval of the phones: {push_latency.POLL_SECONDS} s" in text


def test_the_push_tool_says_its_phones_share_the_cores_as_a_class_does_not():
    """Its docstring said the server, the browsers and the phones' polling share the machine's cores, "which is also
    what a classroom laptop does", while docs/classroom.md says its browsers share the cores "which a real class does
    not do (its phones bring their own processors)" (read 43)."""
    doc = " ".join(push_latency.__doc__.split())
    assert "which is also what a classroom laptop does" not in doc
    assert "in a class the phones draw their pages on their own processors" in doc


def test_the_phones_help_says_they_share_one_chromium(capsys):
    """Read 48: --phones said "student pages, each in its own headless Chromium", but `measure` launches one
    Chromium and opens the teacher's page and every phone in a new context of it (with CHROMIUM_ARGS' two shared
    renderer processes), which costs the machine less than one browser per phone."""
    import inspect

    source = inspect.getsource(push_latency.measure)
    assert source.count("pw.chromium.launch(") == 1 and "browser.new_context(viewport=PHONE" in source
    with pytest.raises(SystemExit):
        push_latency.parse_args(["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "each in its own headless Chromium" not in shown
    assert "each in a browser context of its own (its own cookies and session) in the one headless Chromium" in shown


@pytest.mark.parametrize("argv", [["--phones", "0"], ["--pushes", "99"], ["--phones", "two"]])
def test_bad_counts_are_one_sentence(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        push_latency.parse_args(argv)
    assert stop.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_the_first_run_tool_takes_only_its_two_options(capsys):
    args = first_run_wait.parse_args(["--cold"])
    assert args.cold and args.timeout == 300.0
    with pytest.raises(SystemExit) as stop:
        first_run_wait.parse_args(["--timeout", "soon"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "argument --timeout: a number from 1 to 3600 (got 'soon')" in err
    with pytest.raises(SystemExit) as stop:  # push_latency's option is not one of its two
        first_run_wait.parse_args(["--phones", "2"])
    assert stop.value.code == 2 and "unrecognized arguments: --phones 2" in capsys.readouterr().err
