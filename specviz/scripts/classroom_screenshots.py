"""The classroom screenshots of docs/classroom.md, in a real browser: `python -m specviz.scripts.classroom_screenshots`.

Fills a throw-away classroom database with a demo lecture (24 students, one question, round 1 then round 2), starts
`streamlit run app.py` on it and writes

    assets/screenshots/classroom-presenter.png   the presenter view on a 1920×1080 projector, round 2 under way
    assets/screenshots/classroom-phone.png       a student's phone (390 px wide) asked to vote again in round 2
    assets/screenshots/classroom-chart.png       the teacher's distribution chart after the reveal

The browser test (tests/browser/test_classroom_browser.py) drives the same pages with `unlock_teacher` and `join`.
Needs `chromium` on PATH (`make browser`).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from specviz.teach.classroom import Session, Student
from specviz.teach.classroom_paced import PacedStore, Push
from specviz.teach.quiz import load_bank
from specviz.teach.quiz.schema import QuestionKind
from specviz.scripts.screenshots import (CHROMIUM_ARGS, ROOT, chromium_path, serve, shoot, shot_args,
                                         wait_for_app)

PIN = "screenshot-pin-2468"
PROJECTOR = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}
DESK = {"width": 1400, "height": 900}
# The teacher's dashboard refreshes itself every 2 s: wait at most this long for it to look idle after an action
SETTLE = 5.0
DEMO_QUESTION = "rs-why"  # "Why is the recovered token sampled from norm(max(0, p − q)) rather than from p?"


_TOP = """el => { let box = el.parentElement;
  while (box && !['auto', 'scroll'].includes(getComputedStyle(box).overflowY)) box = box.parentElement;
  (box || document.scrollingElement).scrollTop = 0; }"""


def unlock_teacher(page, base: str, pin: str, timeout: float = 90) -> None:
    """Open the Classroom page as the teacher and give the PIN; the newest session's dashboard is then shown."""
    page.goto(f"{base}/classroom?as=teacher")
    wait_for_app(page, timeout)
    page.get_by_label("Teacher PIN").fill(pin)
    page.get_by_role("button", name="Unlock").click()
    page.get_by_text("Session", exact=True).first.wait_for(timeout=timeout * 1000)
    wait_for_app(page, timeout, settle=SETTLE)


def join(page, base: str, code: str, name: str, timeout: float = 90) -> None:
    """Open the join link the QR code holds (?code=...), type a name, join."""
    page.goto(f"{base}/classroom?code={code}")
    wait_for_app(page, timeout)
    page.get_by_label("Your display name").fill(name)
    page.get_by_role("button", name="Join").click()
    page.get_by_text("you are").first.wait_for(timeout=timeout * 1000)


def demo_session(store: PacedStore, students: int = 24) -> tuple[Session, Push, list[Student]]:
    """A lecture with one pushed question: round 1 split (a third right), round 2 open with most now right, the
    first student still to vote again."""
    bank = load_bank()
    question = bank.by_id().get(DEMO_QUESTION) or next(q for q in bank.questions if q.kind == QuestionKind.SINGLE)
    session = store.create_paced_session(bank.questions, "Lecture 4: speculative decoding")
    names = ["Ana", "Ben", "Chloé", "Dev", "Eli", "Fatima", "Gus", "Hana", "Ivo", "Jun", "Kofi", "Lea", "Mo",
             "Nia", "Omar", "Pia", "Quinn", "Rui", "Sara", "Tom", "Uma", "Vik", "Wen", "Yara"]
    people = [store.join(session.code, names[i % len(names)] + ("" if i < len(names) else f" {i}"))
              for i in range(students)]
    wrong = [c for c in question.choices if c != question.answer]
    push = store.push(session.code, question)
    for i, s in enumerate(people):
        store.answer(s.token, push.id, 1, question.answer if i % 3 == 0 else wrong[i % len(wrong)])
    store.start_round_2(session.code)
    for i, s in enumerate(people[1:], start=1):
        store.answer(s.token, push.id, 2, question.answer if i % 5 else wrong[0])
    return session, store.current(session.code), people


def take(out: Path, port: int | None = None) -> list[Path]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="specviz-classroom-") as tmp:
        saved = {k: os.environ.get(k) for k in ("SPECVIZ_CLASSROOM_DB", "SPECVIZ_TEACHER_PIN")}
        os.environ.update(SPECVIZ_CLASSROOM_DB=str(Path(tmp) / "classroom.sqlite"), SPECVIZ_TEACHER_PIN=PIN)
        try:
            store = PacedStore()
            session, _, people = demo_session(store)
            with serve(port) as base, sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
                return [_presenter(browser, base, out), _phone(browser, base, out, people[0]),
                        _chart(browser, base, out, store, session)]
        finally:
            for key, value in saved.items():
                os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


def _presenter(browser, base: str, out: Path) -> Path:
    page = browser.new_context(viewport=PROJECTOR).new_page()
    page.goto(base)  # the landing page first: a fresh server routes deep links only after st.navigation ran once
    wait_for_app(page, 90)
    unlock_teacher(page, base, PIN)
    page.get_by_role("button", name="Presenter view (for the projector)").click()
    page.locator(".sv-qr img").first.wait_for(timeout=60_000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    page.wait_for_timeout(1500)  # no title to wait for here: the presenter view hides it
    page.locator(".sv-status").first.evaluate(_TOP)  # the dashboard's scroll position is kept: back to the top
    page.wait_for_timeout(300)
    path = shoot(page, out / "classroom-presenter.png")
    page.context.close()
    return path


def _phone(browser, base: str, out: Path, student: Student) -> Path:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{base}/classroom?student={student.token}")
    page.get_by_text("Round 2: talk it over").wait_for(timeout=90_000)
    wait_for_app(page, 60)
    path = shoot(page, out / "classroom-phone.png")
    context.close()
    return path


def _chart(browser, base: str, out: Path, store: PacedStore, session: Session) -> Path:
    store.reveal(session.code)
    page = browser.new_context(viewport=DESK).new_page()
    unlock_teacher(page, base, PIN)
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    chart.wait_for(timeout=60_000)
    page.get_by_text("✓", exact=False).first.wait_for(timeout=60_000)
    chart.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    path = out / "classroom-chart.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    chart.screenshot(path=str(path))
    page.context.close()
    return path


def main(argv: list[str] | None = None) -> int:
    args = shot_args("python -m specviz.scripts.classroom_screenshots", __doc__, argv)
    if args is None:
        return 2
    for path in take(args.out, args.port):
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {path.stat().st_size // 1000} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
