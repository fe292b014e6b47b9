"""The supervisors' dashboard: the frame every page runs in (served by dashboard/asgi.py, through `samops
dashboard`)."""

from __future__ import annotations

import streamlit as st

from dashboard import auth, boundary, ui, zones
from dashboard.pages import PAGES
from dashboard.paths import db_path

# An emoji, not a Material icon: Streamlit draws an emoji favicon in the page, and fetches a Material one
# from fonts.gstatic.com, a request to Google from every supervisor's browser on every page.
st.set_page_config(page_title="samops", page_icon="🛡️", layout="wide")
ui.readable_captions()

pages = [
    st.Page(
        p.script,
        title=p.title,
        icon=p.icon,
        url_path=p.url_path,
        default=p.default,
        visibility="hidden" if p.hidden else "visible",
    )
    for p in PAGES
]
with boundary.guard("this page"):
    auth.gate()
    navigation = st.navigation(pages)
    zones.pick(str(db_path()))  # here, not in each page: the frame's widget keeps its value across pages
    navigation.run()
