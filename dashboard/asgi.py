"""The dashboard's server: the pages of `app.py`, with the page-base hint (dashboard/page_base.py).

`samops dashboard` runs `streamlit run` on this file, which finds `app` here and serves it (`st.App`:
Streamlit's way to add middleware) with the same command-line options.
"""

from __future__ import annotations

import streamlit as st
from starlette.middleware import Middleware

from dashboard.page_base import PageBaseHint
from dashboard.pages import URL_PATHS

app = st.App("app.py", middleware=[Middleware(PageBaseHint, pages=URL_PATHS)])
