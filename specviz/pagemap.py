"""The app's page map, without Streamlit: routed by app.py, and the link targets quiz questions may use."""

from __future__ import annotations

# section -> (page file, title, icon). Page files are relative to the repository root.
PAGES: dict[str, list[tuple[str, str, str]]] = {
    "Learn": [
        ("pages/overview.py", "Overview", ":material/home:"),
        ("pages/learn.py", "Guided path", ":material/school:"),
        ("pages/playground.py", "Playground", ":material/play_circle:"),
        ("pages/race.py", "Timeline & race", ":material/timer:"),
    ],
    "Understand": [
        ("pages/proposers.py", "Proposers", ":material/alt_route:"),
        ("pages/exactness.py", "Exactness lab", ":material/balance:"),
        ("pages/sandbox.py", "p/q sandbox", ":material/tune:"),
        ("pages/theory.py", "Theory explorer", ":material/functions:"),
        ("pages/speedup_lab.py", "Speedup lab", ":material/speed:"),
    ],
    "Practice": [
        ("pages/quiz.py", "Quiz", ":material/quiz:"),
        ("pages/classroom.py", "Classroom", ":material/groups:"),
    ],
    "Engineer": [
        ("pages/models.py", "Models", ":material/memory:"),
        ("pages/serving.py", "Serving lab", ":material/dns:"),
    ],
}

PAGE_FILES = [path for pages in PAGES.values() for path, _, _ in pages]
