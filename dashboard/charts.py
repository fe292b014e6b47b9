"""Vega-Lite charts over the read API's counts, written as plain specs for `st.vega_lite_chart`.

Plain dicts, not altair: importing altair (jsonschema, narwhals) cost more than a second of every server
start, and a spec this size is as clear written out. Times are drawn on a UTC scale from wall-clock
milliseconds (`core.timefmt.wall_ms`), so the axis reads the viewer's zone whatever the browser's.
"""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from core import alarms, read, timefmt
from dashboard import ui

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
Chart = tuple[list[dict[str, Any]], dict[str, Any]]  # (rows, spec): st.vega_lite_chart(rows, spec)


def _type_scale(types: list[str]) -> dict[str, list[str]]:
    ordered = sorted(set(types), key=lambda t: (alarms.severity_rank(t), t))
    return {"domain": ordered, "range": [ui.colour_of(t) for t in ordered]}


def hourly_trend(counts: list[read.HourCount], tz: tzinfo | None, zone_label: str) -> Chart:
    """Alarms per hour, stacked by violation type, the most severe at the bottom."""
    rows = [
        {
            "Hour": timefmt.wall_ms(c.hour, tz),
            "Type": c.violation_type or "other",
            "Alarms": c.count,
            "Rank": alarms.severity_rank(c.violation_type),
        }
        for c in counts
    ]
    spec = {
        "height": 280,
        "mark": {"type": "bar"},
        "encoding": {
            "x": {
                "field": "Hour",
                "type": "temporal",
                "title": None,
                "scale": {"type": "utc"},
                "axis": {"format": "%a %H:%M"},
            },
            "y": {"aggregate": "sum", "field": "Alarms", "type": "quantitative", "title": "Alarms per hour"},
            "color": {
                "field": "Type",
                "type": "nominal",
                "scale": _type_scale([r["Type"] for r in rows]),
                "legend": {"orient": "top"},
            },
            "order": {"field": "Rank", "type": "quantitative", "sort": "ascending"},
            "tooltip": [
                {
                    "field": "Hour",
                    "type": "temporal",
                    "format": f"%Y-%m-%d %H:00 {zone_label}",
                    "formatType": "utc",
                },
                {"field": "Type", "type": "nominal"},
                {"field": "Alarms", "type": "quantitative"},
            ],
        },
    }
    return rows, spec


def weekday_hour_heatmap(counts: list[read.WeekdayHourCount]) -> Chart:
    # Every cell of the week, so quiet hours show as pale squares instead of holes.
    seen = {(c.weekday, c.hour): c.count for c in counts}
    rows = [
        {"Weekday": WEEKDAYS[day], "Hour": hour, "Alarms": seen.get((day, hour), 0)}
        for day in range(7)
        for hour in range(24)
    ]
    spec = {
        "height": 230,
        "mark": {"type": "rect", "stroke": "white", "strokeWidth": 1},
        "encoding": {
            "x": {
                "field": "Hour",
                "type": "ordinal",
                "title": "Hour of day (UTC)",
                "scale": {"domain": list(range(24))},
            },
            "y": {"field": "Weekday", "type": "ordinal", "title": None, "scale": {"domain": list(WEEKDAYS)}},
            "color": {
                "condition": {
                    "test": "datum.Alarms > 0",
                    "field": "Alarms",
                    "type": "quantitative",
                    "scale": {"scheme": "orangered"},
                    "legend": {"orient": "right"},
                },
                "value": "#f1f3f5",  # quiet hours: grey, not the palest orange
            },
            "tooltip": [
                {"field": "Weekday", "type": "ordinal"},
                {"field": "Hour", "type": "ordinal"},
                {"field": "Alarms", "type": "quantitative"},
            ],
        },
    }
    return rows, spec
