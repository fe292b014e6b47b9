"""The Who-can section of the panel page: who may operate the panel now, from the authorizations samops last
read from the service (`/sam who-can` or its button reads them; `core.read.who_can` judges them), on the
organization's clock (`[notify] timezones` of the config, as in Slack)."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pandas as pd
import streamlit as st

from core import read
from core.access_windows import local_words
from core.clock import MINUTE_MS, now_ms
from core.settings import current_settings
from core.timefmt import wall
from dashboard import data, ui


@st.cache_data(ttl=data.TTL_SECONDS, show_spinner=False)
def _who_can(path: str, resource_id: int, org_id: int | None, minute: int) -> tuple[read.WhoCan, ZoneInfo]:
    with data._reader(path) as db:  # the pages' one way into the cache
        # The organization's zone as the bot reads it: the config's, else its cached users'.
        notify = data.config(str(current_settings().config_path))[0].notify
        zone = notify.zone_for(org_id, fallback=read.users_zone(db, org_id))
        return read.who_can(db, resource_id, minute, zone), zone


def section(path: str, panel: read.PanelRow) -> None:
    now = now_ms()
    answer, zone = _who_can(path, panel.resource_id, panel.org_id, data.floor_to(now, MINUTE_MS))
    st.markdown(f"### Who can operate it now · {len(answer.can)}")
    if answer.fetched_at is None:
        st.info(f"Not read from the service yet: ask `/sam who-can {panel.resource_id}` in Slack.")
        return
    rows = [*answer.can, *answer.cannot]
    frame = pd.DataFrame(
        {
            "Name": [e.user.name for e in rows],
            "User id": pd.Series([e.user.user_id for e in rows], dtype="Int64"),
            "Now": ["yes" if e.access.allowed else "no" for e in rows],
            "Groups": [", ".join(e.user.groups) for e in rows],
            "Until / why not": [_when(e, zone, answer.at) for e in rows],
        }
    )
    st.dataframe(frame, hide_index=True, placeholder=ui.EMPTY, width="stretch")
    read_at = wall(answer.fetched_at, zone, missing="—")
    st.caption(f"Authorizations as read from the service at {read_at}; times in {zone.key}.")


def _when(entry: read.WhoCanEntry, zone: ZoneInfo, moment: int) -> str:
    access = entry.access
    if access.allowed:
        return (
            f"until {local_words(access.until, zone, moment)}" if access.until is not None else "no end set"
        )
    nxt = f"; next from {local_words(access.next_from, zone, moment)}" if access.next_from is not None else ""
    return f"{access.reason}{nxt}"
