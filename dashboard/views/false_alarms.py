"""False alarms: how many alarms were resolved as false per panel, organization and alarm kind over 7, 30 and
90 days, and the panels at or over the `[false_alarms]` threshold. The figures are `core.read.false_alarms`'s
(docs/dispositions.md says how they are counted); every name from the service is shown as text, in tables."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core import read
from core.dispositions import PERIODS
from core.settings import current_settings
from core.text import counted
from dashboard import boundary, data, filters, ui

TITLES = {"panel": "Panel", "organization": "Organization", "kind": "Alarm kind"}

path = ui.start_page("False alarms")
orgs = dict(data.organizations(path))
filters.seed("false_alarms_org", "org", filters.identifier)
if st.session_state["false_alarms_org"] not in (None, *orgs):
    filters.note(
        f"Organization {st.session_state['false_alarms_org']} is not in the cache: showing all of them."
    )
    st.session_state["false_alarms_org"] = None
org_col, _ = st.columns([2, 5])
org_id = ui.all_or_one(org_col, "Organization", orgs, "false_alarms_org", "All organizations")
filters.publish({"org": org_id})

config_path = str(current_settings().config_path)
limits, problem = data.false_alarm_limits(config_path)
if problem:
    st.warning(f"The config cannot be used ({problem}); the default [false_alarms] limits are used.")
st.caption(
    "Counted over the alarms resolved with a disposition, by the alarm's own time: the rate is the false "
    "alarms over those resolved with any disposition (alarms still open are in neither). A panel is flagged "
    f"at {counted(limits.threshold, 'false alarm')} or more within {limits.days} days."
)


def percent(period: read.FalseAlarmPeriod) -> float | None:
    return None if period.rate is None else round(100 * period.rate, 1)


def rates_frame(rows: list[read.GroupRates], title: str, flags: bool) -> pd.DataFrame:
    columns: dict[str, object] = {title: [r.name or r.key for r in rows]}
    if title != TITLES["kind"]:
        columns["Id"] = [r.key for r in rows]
    for days in PERIODS:
        periods = [r.period(days) for r in rows]
        columns[f"False ({days} d)"] = [p.false_alarms for p in periods]
        columns[f"Resolved ({days} d)"] = [p.resolved for p in periods]
        columns[f"Rate ({days} d), %"] = pd.Series([percent(p) for p in periods], dtype="Float64")
    if flags:
        columns["Over the threshold"] = ["yes" if r.flagged else "" for r in rows]
    return pd.DataFrame(columns)


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def false_alarms(org_id: int | None) -> None:
    now = data.floor_to(data.now_ms(), 60_000)
    panels = data.false_alarm_rates(path, "panel", now, org_id, limits.threshold, limits.days)
    flagged = [p for p in panels if p.flagged]
    st.header(f"Panels over the threshold: {len(flagged)}")
    if flagged:
        st.dataframe(
            pd.DataFrame(
                {
                    "Panel": [p.name or p.key for p in flagged],
                    "Id": [p.key for p in flagged],
                    f"False alarms ({limits.days} d)": [p.recent_false for p in flagged],
                }
            ),
            hide_index=True,
            placeholder=ui.EMPTY,
            width="stretch",
        )
    else:
        st.info("No panel is at or over the threshold.")
    if not panels:
        st.info("No alarm was resolved with a disposition in the last 90 days.")
        return
    for by in ("panel", "organization", "kind"):
        rows = panels if by == "panel" else data.false_alarm_rates(path, by, now, org_id)
        st.header(f"Per {TITLES[by].lower()}, most false alarms first")
        frame = rates_frame(rows, TITLES[by], by == "panel")
        st.dataframe(frame, hide_index=True, placeholder=ui.EMPTY, width="stretch")


false_alarms(org_id)
