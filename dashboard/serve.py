"""The dashboard's Streamlit server, started with what the pages import already imported.

A page's first run imports pandas, pyarrow, numpy, sqlite-utils and the read API: seconds on a busy machine.
Left to the first visitor's session, that is the wait of a cold tab. Imported here, in the main thread before
the server listens, the first visitor waits for none of it, and no two threads import them at once (issue 17).
`samops dashboard` runs `python -m dashboard.serve run app.py …`, the arguments of `streamlit run`.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import Iterator

# The pages' own modules bring in the rest (core.read, core.cache.db, pandas through core.sqlite_lib). The
# last three are what a page's first run still imported (found by diffing sys.modules around it): pandas'
# Arrow conversion, the Material icon names a page's icons are checked against, and `st.write` magic.
PRELOAD = (
    "pyarrow",
    "core.cache.db",
    "dashboard.ui",
    "dashboard.charts",
    "dashboard.data",
    "dashboard.export",
    "dashboard.filters",
    "pyarrow.pandas_compat",
    "streamlit.material_icon_names",
    "streamlit.runtime.scriptrunner.magic_funcs",
)


# st.cache_data warns, once per decorated function, when it is applied before Streamlit's runtime exists (as
# here, before the server starts, or in a script such as bench/dashboard.py): the in-memory cache it then
# picks is the one the runtime would pick too.
CACHE_LOGGER = "streamlit.runtime.caching.cache_data_api"


@contextlib.contextmanager
def no_runtime_warnings() -> Iterator[None]:
    """Import the pages' modules here without Streamlit's warning for each st.cache_data (see above)."""
    cache_log = logging.getLogger(importlib.import_module(CACHE_LOGGER).__name__)  # Streamlit sets its level
    level = cache_log.level
    cache_log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        cache_log.setLevel(level)


def preload() -> None:
    with no_runtime_warnings():
        for name in PRELOAD:
            importlib.import_module(name)
    from core import timefmt

    timefmt.zone_names()  # the zone picker's list: a walk over the tz database, once per process
    # A table's first trip from pandas to Arrow sets up dtype and conversion machinery on both sides: done
    # here on an empty alarms table, the first visitor's table is converted as fast as any later one's.
    import pyarrow as pa

    from dashboard import ui

    pa.Table.from_pandas(ui.alarms_frame([]))


def log_to_stderr() -> None:
    """The dashboard's own log lines (the error boundary's, say) on stderr, through the secret filter, as
    the other programs write theirs; Streamlit's loggers keep their own handlers."""
    from core.redact import install
    from core.timefmt import HostLogFormatter

    handler = logging.StreamHandler()
    handler.setFormatter(HostLogFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    install(handler)
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)


def main() -> None:
    log_to_stderr()
    preload()
    from streamlit.web import cli

    cli.main(prog_name="streamlit")  # the same command line as `python -m streamlit`


if __name__ == "__main__":
    main()
