"""sqlite-utils, imported here and nowhere else: pandas first, when it can be imported.

sqlite-utils imports pandas and numpy whenever it can. Had it begun that while another thread was importing
pandas (a Streamlit session's first `st.dataframe`), both threads would be importing the modules the two share
(dateutil) at once, and CPython then lets one thread see a module the other has only half run: one of them
fails (issue 17; seen as `NameError` deep inside dateutil). Importing pandas first makes the other thread wait
on pandas' own import lock instead, and costs nothing, since sqlite-utils would import it anyway. The `samops`
entry point imports sqlite-utils with pandas hidden before any thread starts (samops/cli.py); this module then
finds sqlite-utils imported and imports nothing more.
"""

from __future__ import annotations

import contextlib
import importlib
import sys

if "sqlite_utils" not in sys.modules:
    with contextlib.suppress(ImportError):
        importlib.import_module("pandas")  # as sqlite-utils itself does

import sqlite_utils  # noqa: TID251  # the one import of it

__all__ = ["sqlite_utils"]
