"""The dashboard's pages: their scripts, titles, icons and URL paths, for the frame (app.py) and the server
(asgi.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageSpec:
    script: str  # relative to dashboard/
    title: str
    url_path: str
    icon: str | None = None
    default: bool = False
    hidden: bool = False


OVERVIEW = "views/overview.py"
PAGES = (
    # The default page is served at "/" and never at its own pathname (Streamlit answers "Page not found"
    # there), so the Overview is listed twice: the sidebar's, at "/", and a hidden one at "/overview", so
    # that every page opens by its name. The default's pathname is reserved by Streamlit and used nowhere.
    PageSpec(OVERVIEW, "Overview", "start", ":material/dashboard:", default=True),
    PageSpec(OVERVIEW, "Overview", "overview", hidden=True),
    PageSpec("views/alarms.py", "Alarms", "alarms", ":material/notifications_active:"),
    PageSpec("views/cameras.py", "Cameras", "cameras", ":material/videocam:"),
    PageSpec("views/panels.py", "Panels & sensors", "panels", ":material/sensors:"),
    PageSpec("views/handling.py", "Handling", "handling", ":material/timer:"),
    PageSpec("views/at_risk.py", "At risk", "at-risk", ":material/warning:"),
    PageSpec("views/false_alarms.py", "False alarms", "false-alarms", ":material/report:"),
    PageSpec("views/audit.py", "Audit", "audit", ":material/fact_check:"),
)
# What a page's URL ends with (the default page's is "/").
URL_PATHS = tuple(p.url_path for p in PAGES if not p.default)
