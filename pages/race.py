import streamlit as st

st.title("race")
st.info("This page is being built.")
