"""The only Streamlit-aware part of specviz: caching, widgets and renderers used by the pages."""
