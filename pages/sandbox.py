"""p/q sandbox: write p and q by hand on six tokens and watch the exact rule (or a broken one) at work."""

import streamlit as st

from specviz.core.i18n import N_, _
from specviz.ui.common.frame import page_start
from specviz.ui.sandbox import view

page_start(N_("p/q sandbox"))
st.markdown(_("Six tokens, two distributions you write yourself: **p** (the target's) and **q** (the draft's). One "
            "step drafts x ~ q, keeps it with probability min(1, p(x)/q(x)), and otherwise samples from "
            "norm(max(0, p − q)). Change the numbers and the temperature and watch α (with one p and q, "
            "α = β = Σ min(p, q)) and the two parts that add up to p. Then simulate many steps, and switch to a broken "
            "rule."))

left, right = st.columns([2, 3])
with left:
    p, q, temperature = view.edit_distributions()
step = view.compute(p, q, temperature)
if step is not None:
    with right:
        view.render_numbers(step)
        view.show_chart(view.pq_figure(step), "sandbox_pq_chart")
    view.show_chart(view.split_figure(step), "sandbox_split_chart")
    st.subheader(_("Many steps: is the output p?"))
    view.render_simulation(p, q, temperature, step)
