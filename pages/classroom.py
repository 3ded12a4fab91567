import streamlit as st

st.title("classroom")
st.info("This page is being built.")
