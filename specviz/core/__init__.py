"""The bottom layer: where files are, the checked URL reader, plain-text helpers and the one translation function.
Plain Python: no torch, no model, no Streamlit."""
