"""The quiz's Streamlit code, shared by the Quiz, Classroom and Learn pages: its inputs, renderers and state."""
