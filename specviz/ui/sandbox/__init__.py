"""The Sandbox page's Streamlit code: its inputs, renderers and state."""
