"""The supervisors' dashboard: `streamlit run dashboard/app.py` (through `samops dashboard`)."""

from __future__ import annotations

import streamlit as st

from dashboard import auth, boundary, ui, zones
from dashboard.paths import db_path

st.set_page_config(page_title="samops", page_icon=":material/shield:", layout="wide")
ui.readable_captions()

OVERVIEW = "views/overview.py"
pages = [
    # The default page is served at "/" and never at its own pathname (Streamlit answers "Page not found"
    # there), so the Overview is listed twice: the sidebar's, at "/", and a hidden one at "/overview", so
    # that every page opens by its name. The default's pathname is reserved by Streamlit and used nowhere.
    st.Page(OVERVIEW, title="Overview", icon=":material/dashboard:", url_path="start", default=True),
    st.Page(OVERVIEW, title="Overview", url_path="overview", visibility="hidden"),
    st.Page("views/alarms.py", title="Alarms", icon=":material/notifications_active:", url_path="alarms"),
    st.Page("views/cameras.py", title="Cameras", icon=":material/videocam:", url_path="cameras"),
    st.Page("views/panels.py", title="Panels & sensors", icon=":material/sensors:", url_path="panels"),
    st.Page("views/handling.py", title="Handling", icon=":material/timer:", url_path="handling"),
    st.Page("views/at_risk.py", title="At risk", icon=":material/warning:", url_path="at-risk"),
    st.Page("views/false_alarms.py", title="False alarms", icon=":material/report:", url_path="false-alarms"),
    st.Page("views/audit.py", title="Audit", icon=":material/fact_check:", url_path="audit"),
]
with boundary.guard("this page"):
    auth.gate()
    navigation = st.navigation(pages)
    zones.pick(str(db_path()))  # here, not in each page: the frame's widget keeps its value across pages
    navigation.run()
