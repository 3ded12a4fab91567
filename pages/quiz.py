import streamlit as st

st.title("quiz")
st.info("This page is being built.")
