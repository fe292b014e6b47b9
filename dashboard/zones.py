"""The viewer's time zone: picked in the sidebar, kept in the URL (`?tz=Europe/Istanbul`), and by default the
organization's (`core.read.organization_time_zone`; UTC when the cache cannot tell). Every time on a page, in
a chart and in an export is shown in it, formatted by `core.timefmt`.
"""

from __future__ import annotations

import functools
from datetime import UTC, tzinfo

import streamlit as st

from core import timefmt
from core.settings import load_settings
from dashboard import data, filters

KEY = "view_tz"
PARAM = "tz"


@functools.cache
def _configured_organization() -> int | None:
    return load_settings().organization_id  # read once: settings change only with a restart


def organization_zone(path: str) -> str:
    """The configured organization's zone, else the zone most cached users have, else UTC."""
    org_id = _configured_organization()
    return data.organization_time_zone(path, org_id) or data.organization_time_zone(path) or timefmt.UTC_ZONE


def pick(path: str) -> None:
    """The sidebar's zone selector; the URL keeps a choice other than the default."""
    default = organization_zone(path)
    filters.seed(KEY, PARAM, filters.zone_name, default=default)
    st.sidebar.selectbox(
        "Time zone",
        timefmt.zone_names(),
        key=KEY,
        help=f"Times on every page and in exports are shown in this zone. The organization's is {default}.",
    )
    filters.share(PARAM, None if current() == default else current())


def current() -> str:
    return str(st.session_state.get(KEY) or timefmt.UTC_ZONE)


def tz() -> tzinfo:
    return timefmt.zone(current()) or UTC


def label() -> str:
    """How charts and captions name the zone: its IANA name."""
    return current()
