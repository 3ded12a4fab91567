"""The page-cost tool's /proc reading: CPU seconds summed over the processes it is asked about, and nothing else;
and which Chromium build the browser tests drive."""

from __future__ import annotations

import os

import pytest

from specviz.scripts.page_cost import cpu_seconds, is_chromium, is_server, page_paths


def fake_process(root, pid: int, cmd: list[str], utime: int, stime: int) -> None:
    folder = root / str(pid)
    folder.mkdir()
    (folder / "cmdline").write_bytes(b"\0".join(part.encode() for part in cmd) + b"\0")
    # /proc/PID/stat: pid (comm) state ppid ... utime is field 14, stime 15; a comm may hold spaces and parentheses
    rest = ["S"] + ["0"] * 10 + [str(utime), str(stime)] + ["0"] * 5
    (folder / "stat").write_text(f"{pid} (a (tricky) name) " + " ".join(rest))


def test_cpu_seconds_sums_user_and_system_time_of_the_matching_processes_only(tmp_path):
    tick = os.sysconf("SC_CLK_TCK")
    fake_process(tmp_path, 10, ["/usr/lib/chromium/chromium", "--type=renderer"], 3 * tick, 1 * tick)
    fake_process(tmp_path, 11, ["/usr/lib/chromium/chromium"], 2 * tick, 0)
    fake_process(tmp_path, 12, [".venv/bin/python", "-m", "streamlit", "run", "/w/app.py"], 5 * tick, 2 * tick)
    fake_process(tmp_path, 13, ["node", "cli.js", "run-driver", "--browser=chromium"], 7 * tick, 0)
    (tmp_path / "self").mkdir()  # not a process number: skipped
    (tmp_path / "14").mkdir()  # a process that ended while being read: skipped
    assert cpu_seconds(is_chromium, tmp_path) == 6.0  # the driver only names chromium in an argument
    assert cpu_seconds(is_server, tmp_path) == 7.0
    assert cpu_seconds(lambda cmd: False, tmp_path) == 0.0


def test_every_page_is_measured_and_the_overview_at_the_root():
    paths = page_paths()
    assert paths[0] == "/" and "/playground" in paths and "/overview" not in paths
    assert len(paths) == len(set(paths)) == 13


def test_the_browser_tests_drive_the_headless_shell_where_it_is_installed(monkeypatch):
    from specviz.scripts import screenshots

    installed = {"chromium-headless-shell": "/usr/bin/chromium-headless-shell", "chromium": "/usr/bin/chromium"}
    monkeypatch.setattr(screenshots.shutil, "which", installed.get)
    assert screenshots.chromium_path() == "/usr/bin/chromium-headless-shell"
    del installed["chromium-headless-shell"]  # an older machine: the full browser, headless
    assert screenshots.chromium_path() == "/usr/bin/chromium"
    installed.clear()
    with pytest.raises(RuntimeError, match="make browser"):
        screenshots.chromium_path()


def test_by_link_refuses_a_page_with_a_query_no_sidebar_link_has(capsys):
    """35th read: --pages' help offers 'playground?source=example' and --by-link clicks the sidebar link to each
    page, but no sidebar link ends in a query: the click waited out Playwright's timeout and raised. The pair is
    now argparse's error before a server or a browser starts."""
    import pytest

    from specviz.scripts import page_cost

    with pytest.raises(SystemExit) as exit_:
        page_cost.main(["--pages", "playground?source=example", "--by-link"])
    assert exit_.value.code == 2
    assert "--by-link opens the sidebar's links, which carry no query" in capsys.readouterr().err
