"""Scripts run with `python -m specviz.scripts.<name>` (see the Makefile): they write files under assets/."""
