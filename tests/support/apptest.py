"""A dashboard page in Streamlit's AppTest, opened as a browser opens it: the frame (dashboard/app.py) runs
first, on the Overview, then switches to the page, with the URL's query parameters set."""

from __future__ import annotations

from collections.abc import Mapping

from streamlit.testing.v1 import AppTest

from tests.support.processes import ROOT

APP = ROOT / "dashboard" / "app.py"
OVERVIEW = "views/overview.py"


def run_page(page: str, query: Mapping[str, str]) -> AppTest:
    """The page after one run; whatever it raised is left in `at.exception` for the caller to judge."""
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update(query)
    at.run()
    if page != OVERVIEW:
        at.switch_page(page).run()
    return at


def open_page(page: str, /, **query: str) -> AppTest:
    """The page after one run, which must have raised nothing."""
    at = run_page(page, query)
    assert not at.exception, [e.message for e in at.exception]
    return at
