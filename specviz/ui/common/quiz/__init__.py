"""The Quiz page's Streamlit code: its inputs, renderers and state."""
