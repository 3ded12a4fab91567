"""Timeline & race: the outputs side by side, every lane's tokens as chips (escaped by `output_html`)."""

from __future__ import annotations

import streamlit as st

from specviz.i18n import _, ngettext
from specviz.trace import TokenKind, Trace
from specviz.ui.palette import legend_html
from specviz.ui.tokens import output_html


def render_outputs(spec: Trace, base: Trace) -> None:
    """A folded box with both outputs and the token kinds' legend."""
    with st.expander(_("The two outputs")):
        st.html(legend_html(tuple(TokenKind), distributions=False))
        st.markdown(ngettext("**Speculative** ({n} token)", "**Speculative** ({n} tokens)", spec.num_tokens))
        st.html(output_html(spec))
        st.markdown(ngettext("**Target only** ({n} token)", "**Target only** ({n} tokens)", base.num_tokens))
        st.html(output_html(base))
        st.caption(_("Both follow the target's distribution exactly. With temperature > 0 they still differ, "
                     "because the two methods use the random numbers differently; at temperature 0 they normally "
                     "match."))
