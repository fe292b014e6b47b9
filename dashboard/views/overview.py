"""Overview: what needs a person now (open alarms by priority, the oldest not acknowledged, acknowledged
within SLA today, silent panels, cameras down, open incidents), the last day's counts, the alarm trend over 7
days, the noisiest panels, silences and maintenance. Every figure links to the filtered page behind it."""

from __future__ import annotations

import html

import pandas as pd
import streamlit as st

from core import read
from core.settings import current_settings
from core.text import counted
from dashboard import boundary, charts, data, glance, ui, zones
from dashboard.glance import Tile, link

path = ui.start_page("Overview", period=True)


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def needs_a_person() -> None:
    now = data.floor_to(data.now_ms(), 60_000)
    config_path = str(current_settings().config_path)
    found = data.glance(path, now, zones.day_start(now), config_path)
    k = data.kpis(path, now)
    st.header("Needs a person now")
    if problem := data.config_problem(config_path):
        st.warning(f"The config cannot be used ({problem}); the default priorities are counted.")
    st.html(glance.priorities_html(found, zones.tz(), now))
    st.html(
        glance.tiles_html(
            [
                Tile(
                    "Acknowledged within SLA today",
                    found.within_sla_today,
                    link("handling"),
                    f"of {found.acknowledged_today} acknowledged since midnight ({zones.label()})",
                ),
                Tile("Silent panels", found.silent_panels, link("at-risk"), "not heard from in time"),
                Tile(
                    "Cameras down",
                    found.cameras_down,
                    link("cameras", problems=1),
                    # The spec's camera list gives `enabled` only; a status, when a service sends one,
                    # counts too (core.cameras.camera_down).
                    f"offline or disabled; {k.cameras_disabled} disabled",
                ),
                Tile("Incidents open", found.incidents_open, link("alarms", incidents=1, range="all")),
                Tile("Alarms, last 24 h", k.alarms_24h, link("alarms", range="24h")),
                Tile(
                    "Panels with alarms, 24 h",
                    k.panels_with_alarms_24h,
                    link("alarms", range="24h", sort="panel"),
                ),
                Tile(
                    "Sensor errors, 24 h",
                    k.sensors_with_errors_24h,
                    link("alarms", type="error", range="24h"),
                    "panel and sensor pairs that sent an error; the link lists each error",
                ),
            ]
        )
    )


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def trend_and_noisiest() -> None:
    now = data.now_ms()
    until = data.floor_to(now, data.HOUR_MS) + data.HOUR_MS
    since = until - 7 * data.DAY_MS
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.header("Alarms per hour, last 7 days")
        counts = data.hourly_counts(path, since, until)
        if counts:
            st.vega_lite_chart(*charts.hourly_trend(counts, zones.tz(), zones.label()), width="stretch")
        else:
            st.info("No alarms in the last 7 days.")
    with right:
        st.header("Noisiest panels, last 7 days")
        noisy = data.noisiest_panels(path, since, 10)
        if not noisy:
            st.info("No alarms in the last 7 days.")
            return
        st.html(noisiest_html(noisy))


def noisiest_html(noisy: list[tuple[read.PanelRow, int]]) -> str:
    """The noisiest panels as an HTML table: each panel links to its page, each count to its alarms. Not a
    grid: its cells were cut ("De… / op…") in the narrow column beside the chart."""
    rows = "".join(
        f'<tr><td><a href="{html.escape(link("panels", panel=p.resource_id))}">'
        f"{html.escape(p.name or 'panel')} ({p.resource_id})</a></td>"
        f'<td><a href="{html.escape(link("alarms", panel=p.resource_id))}"'
        f' aria-label="{counted(n, "alarm")} of panel {p.resource_id}">{n}</a></td></tr>'
        for p, n in noisy
    )
    return (
        f'{glance.CSS}<div class="samops-glance"><table aria-label="Noisiest panels">'
        '<thead><tr><th scope="col">Panel</th><th scope="col">Alarms</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></div>"
    )


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def quiet_in_force() -> None:
    """Silences and maintenance windows: whose alarms samops records but does not post right now."""
    now = data.floor_to(data.now_ms(), 60_000)
    windows = data.quiet_windows(path, now)
    st.header("Silences and maintenance")
    if not windows:
        st.caption("No silence or maintenance window is in force or planned: every alarm is posted.")
        return
    frame = pd.DataFrame(
        {
            "Kind": [w.kind for w in windows],
            "Covers": [w.scope() for w in windows],
            "In force": [w.in_force(data.now_ms()) for w in windows],
            "From": ui.timestamps([w.starts_at for w in windows]),
            "Until": ui.timestamps([w.end for w in windows]),
            "Reason": [w.reason or "" for w in windows],
            "By": [w.created_by or "config" for w in windows],
        }
    )
    st.dataframe(
        frame,
        hide_index=True,
        placeholder=ui.EMPTY,
        width="stretch",
        column_config={"From": ui.time_column("From"), "Until": ui.time_column("Until")},
    )
    st.caption("Their alarms are recorded, not posted; one message sums them up when each ends.")


needs_a_person()
trend_and_noisiest()
quiet_in_force()
