"""Maintenance scripts, run with `python -m specviz.scripts.<name>`: some write the committed files under assets/
(example traces, screenshots, benchmark results, the Portuguese catalog), others measure or check and print what they
found (page costs, push latency, the accessibility audit) or write where they are told (the GPU check's --out).
`make traces` and `make i18n` run two of them."""
