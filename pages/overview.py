"""Overview: what speculative decoding is, the loop as a diagram, the rule, and an example that plays."""

import streamlit as st

from specviz.ui.overview_view import example_player, loop_diagram, page_links
from specviz.ui.frame import route_through_app

route_through_app()

st.title("Speculative decoding, step by step")
st.markdown(
    "A language model writes one token at a time, and every token costs **one full pass over all of its "
    "weights**. On most hardware that pass is *memory-bound*: the time goes into reading the weights, not "
    "into arithmetic. SmolLM2-135M reads about 540 MB of float32 weights for every single token.\n\n"
    "The trick: reading the weights once and scoring **K tokens** costs about as much as scoring one. So let a "
    "small, cheap **draft** guess the next K tokens, and let the big **target** check all K guesses in one pass. "
    "Every guess it keeps is a token that did not need its own pass. (That holds best on a GPU; on a laptop CPU "
    "a small model is partly compute-bound, so the saving shrinks: the Timeline & race page measures it.)"
)

st.subheader("The loop")
loop_diagram()

st.subheader("The rule, in one sentence")
st.markdown(
    "With **p = target** and **q = draft** probabilities: keep each drafted token x with probability "
    "**min(1, p(x) / q(x))**; at the first rejection, throw away the rest of the drafts and sample a "
    "replacement from **norm(max(0, p − q))**; if all K are kept, sample one **bonus** token from p. "
    "The output then follows *exactly* the target's distribution p, however bad the draft is: a bad draft "
    "only makes it slower."
)

st.subheader("Watch it run")
st.caption("A recorded generation, replayed token by token. Each chip is one token; hover a chip for its "
           "numbers (p, q, and the uniform draw u).")
example_player("overview")

st.subheader("Where next")
page_links()
