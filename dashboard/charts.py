"""Charts over the read API's counts: Vega-Lite specs for `st.vega_lite_chart`, and the Alarms page's heat map
as a plain HTML table for `st.html`.

Plain dicts, not altair: importing altair (jsonschema, narwhals) cost more than a second of every server
start, and a spec this size is as clear written out. Times are drawn on a UTC scale from wall-clock
milliseconds (`core.timefmt.wall_ms`), so the axis reads the viewer's zone whatever the browser's.

The heat map is HTML, not Vega-Lite: Vega's JavaScript (over a megabyte, loaded when the first chart
appears) was compiled while the alarms table above it was being drawn, and delayed it by about 0.2 s on
the development machine (docs/dashboard-speed.md). A 7 x 24 table of coloured cells needs none of it.
"""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from core import alarms, read, timefmt
from core.contrast import ink_on
from core.text import counted
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


# The "orangered" scheme's ends and middle (ColorBrewer OrRd), from few alarms to the most in any cell.
HEAT_STOPS = ((254, 232, 200), (252, 141, 89), (179, 0, 0))
QUIET = "#f1f3f5"  # an hour without alarms: grey, not the palest orange


def heat_colour(count: int, most: int) -> str:
    """The cell colour of `count` on a scale whose top is `most` (> 0)."""
    if count <= 0:
        return QUIET
    share = count / most
    low, high = (HEAT_STOPS[0], HEAT_STOPS[1]) if share <= 0.5 else (HEAT_STOPS[1], HEAT_STOPS[2])
    t = share * 2 if share <= 0.5 else share * 2 - 1
    return "#" + "".join(f"{round(a + (b - a) * t):02x}" for a, b in zip(low, high, strict=True))


# Text for screen readers only: the weekday column's header names it, the eye sees the weekdays below.
_HIDDEN = (
    '<span style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);'
    'white-space:nowrap">{}</span>'
)


def weekday_hour_table(counts: list[read.WeekdayHourCount], zone_label: str = "UTC") -> str:
    """The weekday x hour heat map as an HTML table: one row per weekday, one cell per hour (of the zone
    `zone_label` names, which the counts are in), each coloured by its count and holding it, so the numbers
    can be read, not only guessed from a colour."""
    seen = {(c.weekday, c.hour): c.count for c in counts}
    most = max(seen.values(), default=0) or 1
    label = "font-weight:normal;padding-right:6px"
    cell = "padding:0;height:26px;text-align:center;font-size:0.7rem;border:1px solid white"
    head = "".join(f'<th scope="col" style="font-weight:normal;font-size:0.7rem">{h}</th>' for h in range(24))
    rows = []
    for day, name in enumerate(WEEKDAYS):
        cells = []
        for hour in range(24):
            n = seen.get((day, hour), 0)
            fill = heat_colour(n, most)
            cells.append(
                f'<td title="{name} {hour:02d}:00 {zone_label}: {counted(n, "alarm")}" '
                f'style="{cell};background:{fill};color:{ink_on(fill)}">{n or ""}</td>'
            )
        rows.append(f'<tr><th scope="row" style="{label}">{name}</th>{"".join(cells)}</tr>')
    return (
        '<table style="width:100%;table-layout:fixed;border-collapse:collapse" '
        f'aria-label="Alarms by weekday and hour of day ({zone_label})">'
        f'<thead><tr><th scope="col" style="width:3em">{_HIDDEN.format("Day")}</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
