"""How long a teacher's push takes to reach the students' phones, measured in real browsers.

    python -m specviz.scripts.push_latency [--phones 2] [--pushes 3]

Starts `streamlit run app.py` on a scratch classroom database, opens the teacher's dashboard (1400 × 900) and
`--phones` student pages (390 × 844) in headless Chromium, then pushes `--pushes` questions one after another. For each
push it prints the seconds from the teacher's click until each phone shows the question (polled every 50 ms, no
reload: the phones' question area reruns itself every `classroom_paced.POLL_SECONDS`). Run it on a quiet machine: the
server, the teacher's browser and every phone's browser share its cores, where in a class the phones draw their pages
on their own processors and only their polls reach the laptop's server (docs/classroom.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from specviz.core.cli_help import DefaultsHelpFormatter
from specviz.core.i18n import number
from specviz.engine.limits import number_arg
from specviz.scripts.classroom_screenshots import DESK, PHONE, join, unlock_teacher
from specviz.scripts.screenshots import CHROMIUM_ARGS, chromium_path, serve, wait_for_app
from specviz.teach.classroom_paced import POLL_SECONDS, PacedStore, search_questions
from specviz.teach.quiz import load_bank
from specviz.teach.quiz.schema import QuestionKind

PIN = "push latency check"  # the app refuses a teacher PIN under 8 characters
POLL_MS = 50


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m specviz.scripts.push_latency", description=__doc__.split("\n")[0],
                                     formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--phones", type=int, default=2, choices=range(1, 9), metavar="1..8",
                        help="student pages, each in a browser context of its own (its own cookies and session) "
                             "in the one headless Chromium the teacher's page uses")
    parser.add_argument("--pushes", type=int, default=3, choices=range(1, 11), metavar="1..10",
                        help="questions the teacher pushes, one after another")
    parser.add_argument("--timeout", type=number_arg(1, 3600), default=60.0,
                        help="seconds to wait for one phone (default 60)")
    return parser.parse_args(argv)


def _arrivals(phones: list, text: str, start: float, timeout: float) -> list[float | None]:
    """Seconds after `start` at which each phone first showed `text` (None: not within `timeout`)."""
    seen: list[float | None] = [None] * len(phones)
    while None in seen and time.monotonic() - start < timeout:
        for i, page in enumerate(phones):
            if seen[i] is None and page.get_by_text(text, exact=True).count():
                seen[i] = time.monotonic() - start
        phones[0].wait_for_timeout(POLL_MS)
    return seen


def measure(phones_n: int, pushes: int, timeout: float) -> list[list[float | None]]:
    from playwright.sync_api import sync_playwright

    bank = load_bank().questions
    questions = [q for q in bank if q.kind == QuestionKind.SINGLE and search_questions(bank, q.id) == [q]
                 and not set(q.prompt) & set("*_`$[]<>#\\")][:pushes]  # found by id alone; shown as typed
    with tempfile.TemporaryDirectory(prefix="specviz-push-") as scratch:
        db = Path(scratch) / "classroom.sqlite"
        store = PacedStore(db)
        session = store.create_paced_session(bank, "Push latency")
        env = {"SPECVIZ_CLASSROOM_DB": str(db), "SPECVIZ_TEACHER_PIN": PIN, "SPECVIZ_PRELOAD": "0"}
        with serve(env=env) as base, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
            teacher = browser.new_context(viewport=DESK).new_page()
            teacher.context.set_default_timeout(120_000)
            teacher.goto(base)
            wait_for_app(teacher, 120)
            unlock_teacher(teacher, base, PIN)
            phones = []
            for i in range(phones_n):
                page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
                page.context.set_default_timeout(120_000)
                join(page, base, session.code, f"Phone {i + 1}")
                page.get_by_text("Waiting for your teacher's first question").wait_for()
                phones.append(page)
            rows = []
            for question in questions:
                box = teacher.get_by_label("Find a question")
                box.fill(question.id)
                box.press("Enter")
                teacher.get_by_text("(1 found)").wait_for()
                start = time.monotonic()
                teacher.get_by_role("button", name="Push to the class").click()
                rows.append(_arrivals(phones, question.prompt, start, timeout))
                wait_for_app(teacher)
            browser.close()
    return rows


def report(rows: list[list[float | None]]) -> str:
    lines = [f"poll interval of the phones: {POLL_SECONDS} s; seconds from the teacher's click to each phone:"]
    for n, row in enumerate(rows, 1):
        cells = ", ".join("not within the timeout" if s is None else number(s, 1) for s in row)
        lines.append(f"  push {n}: {cells}")
    got = [s for row in rows for s in row if s is not None]
    if got:
        lines.append(f"median {number(statistics.median(got), 1)} s, slowest {number(max(got), 1)} s "
                     f"over {len(got)} arrivals; {os.cpu_count()} CPU cores")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        rows = measure(args.phones, args.pushes, args.timeout)
    except RuntimeError as exc:  # no chromium, or the server did not start: one sentence
        print(exc, file=sys.stderr)
        return 2
    print(report(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
