"""The dashboard's Streamlit server, started with what the pages import already imported.

A page's first run imports pandas, pyarrow, numpy, sqlite-utils and the read API: seconds on a busy machine.
Left to the first visitor's session, that is the wait of a cold tab. Imported here, in the main thread before
the server listens, the first visitor waits for none of it, and no two threads import them at once (issue 17).
`samops dashboard` runs `python -m dashboard.serve run app.py …`, the arguments of `streamlit run`.
"""

from __future__ import annotations

import importlib

# The pages' own modules bring in the rest (core.read, core.cache.db, pandas through core.sqlite_lib).
PRELOAD = (
    "pyarrow",
    "core.cache.db",
    "dashboard.ui",
    "dashboard.charts",
    "dashboard.data",
    "dashboard.export",
    "dashboard.filters",
)


def preload() -> None:
    for name in PRELOAD:
        importlib.import_module(name)
    from core import timefmt

    timefmt.zone_names()  # the zone picker's list: a walk over the tz database, once per process


def main() -> None:
    preload()
    from streamlit.web import cli

    cli.main(prog_name="streamlit")  # the same command line as `python -m streamlit`


if __name__ == "__main__":
    main()
