import streamlit as st

st.title("theory")
st.info("This page is being built.")
