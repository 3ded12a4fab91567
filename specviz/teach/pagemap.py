"""The app's page map, without Streamlit: routed by app.py, and the link targets quiz questions may use."""

from __future__ import annotations

from specviz.core.i18n import N_

# section -> (page file, title, icon). Page files are relative to the repository root. Sections and titles are
# marked with N_ (English here, so links and tests can name them); app.py shows them through _().
PAGES: dict[str, list[tuple[str, str, str]]] = {
    N_("Learn"): [
        ("pages/overview.py", N_("Overview"), ":material/home:"),
        ("pages/learn.py", N_("Guided path"), ":material/school:"),
        ("pages/playground.py", N_("Playground"), ":material/play_circle:"),
        ("pages/race.py", N_("Timeline & race"), ":material/timer:"),
    ],
    N_("Understand"): [
        ("pages/proposers.py", N_("Proposers"), ":material/alt_route:"),
        ("pages/exactness.py", N_("Exactness lab"), ":material/balance:"),
        ("pages/sandbox.py", N_("p/q sandbox"), ":material/tune:"),
        ("pages/theory.py", N_("Theory explorer"), ":material/functions:"),
        ("pages/speedup_lab.py", N_("Speedup lab"), ":material/speed:"),
    ],
    N_("Practice"): [
        ("pages/quiz.py", N_("Quiz"), ":material/quiz:"),
        ("pages/classroom.py", N_("Classroom"), ":material/groups:"),
    ],
    N_("Engineer"): [
        ("pages/models.py", N_("Models"), ":material/memory:"),
        ("pages/serving.py", N_("Serving lab"), ":material/dns:"),
    ],
}

PAGE_FILES = [path for pages in PAGES.values() for path, _, _ in pages]
DEFAULT_PAGE = "pages/overview.py"  # what the root URL shows (app.py); its own stem is Streamlit's "Page not found"


def url_path(file: str) -> str:
    """The URL path a page file is served at: "/" for the default page, "/<stem>" for the others.

    >>> url_path("pages/overview.py"), url_path("pages/speedup_lab.py")
    ('/', '/speedup_lab')
    """
    return "/" if file == DEFAULT_PAGE else "/" + file.rsplit("/", 1)[-1].removesuffix(".py")
