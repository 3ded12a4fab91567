"""specviz: the Streamlit entry point. It only routes and draws the shared frame; pages live in pages/."""

from pathlib import Path

import streamlit as st

from specviz.core.i18n import _
from specviz.teach.pagemap import DEFAULT_PAGE, PAGES
from specviz.ui.common.frame import apply_language, page_file, shared_sidebar

HERE = Path(__file__).parent

apply_language()  # first, so the tab's title is in the visitor's language too (it draws nothing)
st.set_page_config(page_title=_("specviz: see speculative decoding"), page_icon="⚡", layout="wide")
navigation = st.navigation(
    {
        _(section): [st.Page(str(HERE / path), title=_(title), icon=icon, default=(path == DEFAULT_PAGE))
                     for path, title, icon in pages]
        for section, pages in PAGES.items()
    },
    expanded=True,  # every page listed: no "View 3 more" (Streamlit's own words, in English only)
)
shared_sidebar(page_file(navigation.url_path))
navigation.run()
