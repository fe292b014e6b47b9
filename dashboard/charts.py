"""Altair charts over the read API's counts (altair ships with Streamlit)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from core import alarms, read
from dashboard import ui

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def _type_scale(types: list[str]) -> alt.Scale:
    ordered = sorted(set(types), key=lambda t: (alarms.severity_rank(t), t))
    return alt.Scale(domain=ordered, range=[ui.colour_of(t) for t in ordered])


def hourly_trend(counts: list[read.HourCount]) -> alt.Chart:
    """Alarms per hour, stacked by violation type, the most severe at the bottom."""
    frame = pd.DataFrame(
        {
            "Hour": ui.timestamps([c.hour for c in counts]),
            "Type": [c.violation_type or "other" for c in counts],
            "Alarms": [c.count for c in counts],
            "Rank": [alarms.severity_rank(c.violation_type) for c in counts],
        }
    )
    return (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            x=alt.X("Hour:T", title=None, axis=alt.Axis(format="%a %H:%M")),
            y=alt.Y("sum(Alarms):Q", title="Alarms per hour"),
            color=alt.Color(
                "Type:N", scale=_type_scale(list(frame["Type"])), legend=alt.Legend(orient="top")
            ),
            order=alt.Order("Rank:Q", sort="ascending"),
            tooltip=[alt.Tooltip("Hour:T", format="%Y-%m-%d %H:00 UTC"), "Type:N", "Alarms:Q"],
        )
        .properties(height=280)
    )


def weekday_hour_heatmap(counts: list[read.WeekdayHourCount]) -> alt.Chart:
    # Every cell of the week, so quiet hours show as pale squares instead of holes.
    seen = {(c.weekday, c.hour): c.count for c in counts}
    cells = [(day, hour) for day in range(7) for hour in range(24)]
    frame = pd.DataFrame(
        {
            "Weekday": [WEEKDAYS[day] for day, _ in cells],
            "Hour": [hour for _, hour in cells],
            "Alarms": [seen.get(cell, 0) for cell in cells],
        }
    )
    return (
        alt.Chart(frame)
        .mark_rect(stroke="white", strokeWidth=1)
        .encode(
            x=alt.X("Hour:O", title="Hour of day (UTC)", scale=alt.Scale(domain=list(range(24)))),
            y=alt.Y("Weekday:O", title=None, scale=alt.Scale(domain=list(WEEKDAYS))),
            color=alt.condition(
                alt.datum.Alarms > 0,
                alt.Color("Alarms:Q", scale=alt.Scale(scheme="orangered"), legend=alt.Legend(orient="right")),
                alt.value("#f1f3f5"),  # quiet hours: grey, not the palest orange
            ),
            tooltip=["Weekday:O", "Hour:O", "Alarms:Q"],
        )
        .properties(height=230)
    )
