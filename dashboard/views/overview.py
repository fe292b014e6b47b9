"""Overview: KPI tiles, the alarm trend over 7 days, the noisiest panels, silences and maintenance."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from dashboard import boundary, charts, data, ui, zones

TILE_HEIGHT = 190
# Why a camera tile shows "—": the camera list (operation 17) promises no status, so none is counted.
NOT_REPORTED = "{} is not reported by the service, so there is nothing to count."
# Why a camera tile has no bars: the cache keeps each camera's latest state, not a history of it.
NO_HISTORY = "Cameras now; the cache keeps no history of camera states to draw hour by hour."
# core.cameras' other state of a camera that is down, named as the Cameras page and incident cards name it.
DISABLED = " Disabled cameras (out of service, never counted as offline): {}; the Cameras page lists them."

path = ui.start_page("Overview", period=True)


@boundary.fragment(run_every=data.REFRESH_SECONDS)
def kpi_tiles() -> None:
    now = data.floor_to(data.now_ms(), 60_000)
    k = data.kpis(path, now)
    hours = data.kpi_hours(path, now)
    tiles = st.columns(5)
    _tile(tiles[0], "Alarms, last 24 h", k.alarms_24h, k.alarms_per_hour_24h or None,
          "Violations in the last 24 hours; the bars are alarms per hour.")  # fmt: skip
    _tile(tiles[1], "Panels with alarms, 24 h", k.panels_with_alarms_24h, hours.panels_with_alarms,
          "Panels that raised an alarm in the last 24 hours; the bars are panels per hour.")  # fmt: skip
    _tile(tiles[2], "Cameras offline", k.cameras_offline, None,
          (NOT_REPORTED.format("Camera status") if k.cameras_offline is None else NO_HISTORY)
          + DISABLED.format(k.cameras_disabled))  # fmt: skip
    _tile(tiles[3], "SD-card problems", k.sd_card_problems, None,
          NOT_REPORTED.format("SD-card status") if k.sd_card_problems is None else NO_HISTORY)  # fmt: skip
    _tile(tiles[4], "Sensor errors, 24 h", k.sensors_with_errors_24h, hours.sensors_with_errors,
          "Distinct panel and sensor pairs that sent an error event in the last 24 hours; the bars are "
          "pairs per hour.")  # fmt: skip


def _tile(column: Any, label: str, value: int | None, bars: Any, explains: str) -> None:
    """One KPI tile: a number, its bars per hour when it has a history (`bars`), and what it counts."""
    column.metric(
        label, value, chart_data=bars, chart_type="bar", border=True, height=TILE_HEIGHT, help=explains
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
        frame = pd.DataFrame(
            {
                "Panel": [f"{p.name or 'panel'} ({p.resource_id})" for p, _ in noisy],
                "Alarms": [n for _, n in noisy],
                "Open": [f"/panels?panel={p.resource_id}" for p, _ in noisy],
            }
        )
        st.dataframe(
            frame,
            hide_index=True,
            placeholder=ui.EMPTY,
            width="stretch",
            column_config={
                "Alarms": st.column_config.ProgressColumn(
                    "Alarms", format="%d", min_value=0, max_value=max(1, *(n for _, n in noisy))
                ),
                "Open": st.column_config.LinkColumn("Detail", display_text="open"),
            },
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


kpi_tiles()
trend_and_noisiest()
quiet_in_force()
