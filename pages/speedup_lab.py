import streamlit as st

st.title("speedup_lab")
st.info("This page is being built.")
