"""Guided path: ten short lessons in order, each with an objective, one thing to try and two or three questions,
then a six-question exit ticket. The learner's place is in the URL (?lesson=4&done=1,2,3)."""

import streamlit as st

from specviz.i18n import _
from specviz.ui import learn_view, quiz_setup
from specviz.ui.frame import route_through_app

route_through_app()

st.title(_(learn_view.TEXT["title"]))
learn_view.render(quiz_setup.default_bank())
