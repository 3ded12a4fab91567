"""`make run`: Streamlit's own `streamlit run app.py …`, in a process that has already started loading the default
pair in the background. Streamlit runs app.py only when the first browser connects, so a preload started from the
page (`frame.shared_sidebar`) begins only then; started here, it runs while the server comes up and the first
visitor's live run waits for the rest of the load, not all of it (issue 27, item 2).

    python -m specviz.ui.common.launch --server.port 8501 --server.headless true

Everything after the module name goes to `streamlit run app.py` unchanged. SPECVIZ_PRELOAD=0 turns the preload
off, as it does on the page.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from specviz.core.paths import SOURCE_ROOT
from specviz.ui.common import runs


def streamlit_argv(args: Sequence[str]) -> list[str]:
    """The command line Streamlit's CLI sees: `streamlit run <app.py> <args>`.

    >>> streamlit_argv(["--server.port", "8601"])[1:2], streamlit_argv(["--server.port", "8601"])[3:]
    (['run'], ['--server.port', '8601'])
    """
    app = (SOURCE_ROOT / "app.py") if SOURCE_ROOT is not None else "app.py"
    return ["streamlit", "run", str(app), *args]


def main(args: Sequence[str] | None = None, *, run_streamlit: Callable[[], object] | None = None) -> None:
    """Start the preload, then hand this process to Streamlit's CLI (which serves until it is stopped)."""
    runs.preload()
    sys.argv = streamlit_argv(sys.argv[1:] if args is None else args)
    if run_streamlit is None:
        from streamlit.web import cli as streamlit_cli

        run_streamlit = streamlit_cli.main
    run_streamlit()


if __name__ == "__main__":
    main()
