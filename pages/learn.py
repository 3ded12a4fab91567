"""Guided path: eleven short lessons in order, each with an objective, one thing to try and two to four questions,
then a six-question exit ticket. The learner's place is in the URL (?lesson=4&done=1,2&tried=3)."""

from specviz.ui.common.frame import page_start
from specviz.ui.learn import view as learn_view
from specviz.ui.common.quiz import setup as quiz_setup

page_start(learn_view.TEXT["title"])
learn_view.render(quiz_setup.default_bank())
