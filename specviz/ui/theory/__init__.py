"""The Theory page's Streamlit code: its inputs, renderers and state."""
