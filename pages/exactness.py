import streamlit as st

st.title("exactness")
st.info("This page is being built.")
