import streamlit as st

st.title("overview")
st.info("This page is being built.")
