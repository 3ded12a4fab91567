import streamlit as st

st.title("playground")
st.info("This page is being built.")
