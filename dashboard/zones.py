"""The viewer's time zone: picked in the sidebar, kept in the URL (`?tz=Europe/Istanbul`), and by default the
organization's, read as the bot reads it (`core.timefmt.org_zone`: the config's `[notify]` zone, else the
zone most of its cached users have, else UTC). Every time on a page, in a chart and in an export is shown in
it, formatted by `core.timefmt`.

The picker is drawn once, by the frame (`dashboard/app.py`), before the page runs: a widget of the frame
keeps its value from page to page, where one drawn by each page was a new widget on every page (a click in
the page list, which drops the URL's query, lost the choice).
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, tzinfo

import streamlit as st

from core import timefmt
from core.settings import current_settings
from dashboard import data, filters

KEY = "view_tz"
PARAM = "tz"


def organization_zone(path: str) -> str:
    """The configured organization's zone (`SAM_ORGANIZATION_ID`), as its Slack cards show it."""
    settings = current_settings()
    return _organization_zone(path, str(settings.config_path), settings.organization_id)


@st.cache_data(ttl=data.TTL_SECONDS, show_spinner=False)
def _organization_zone(path: str, config_path: str, org_id: int | None) -> str:
    try:
        cached = data.users_zone(path, org_id)
    except (sqlite3.DatabaseError, RuntimeError):  # no cache yet, or not one: the page says so itself
        cached = None
    return data.config(config_path)[0].notify.zone_for(org_id, fallback=cached).key


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
    return tz_named(current())


def tz_named(name: str) -> tzinfo:
    """The zone of an IANA name the picker holds (UTC for one it does not know)."""
    return timefmt.zone(name) or UTC


def off_the_hour(at_ms: int) -> bool:
    """Whether the viewer's zone is off UTC by part of an hour at `at_ms` (India's +05:30, Nepal's +05:45):
    charts counted per UTC hour then place an hour in the local hour it starts in."""
    offset = datetime.fromtimestamp(at_ms / 1000, tz()).utcoffset()
    return bool(offset and offset.total_seconds() % 3600)


def day_start(at_ms: int) -> int:
    """Epoch-ms of the viewer's midnight that begins the day holding `at_ms`."""
    local = datetime.fromtimestamp(at_ms / 1000, tz())
    return int(local.replace(hour=0, minute=0, second=0, microsecond=0).timestamp() * 1000)


def label() -> str:
    """How charts and captions name the zone: its IANA name."""
    return current()
