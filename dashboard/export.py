"""CSV exports, headed by the filters and the as-of time they were made with.

The Alarms export holds every matching row, not only the table's: it is made when the button is clicked
(`st.download_button` with a callable, run on its own thread), from the read API a chunk of rows at a time,
written straight to CSV without a table in between. Times are ISO 8601 with the viewer's zone offset.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from datetime import tzinfo

import pandas as pd

from core import read, timefmt

ALARM_COLUMNS = ("Time", "Type", "Violation", "Panel", "Panel id", "Event", "Description", "Org")


def heading(title: str, filters: str, as_of: int | None, now: int, tz: tzinfo) -> str:
    return (
        f"# {title}; filters: {filters or 'none'}\n"
        f"# data as of {timefmt.local(as_of, tz, missing='—')}; exported {timefmt.local(now, tz)}\n"
    )


def alarm_record(row: read.AlarmRow, tz: tzinfo) -> tuple[object, ...]:
    return (
        timefmt.iso(row.activity_time, tz),
        row.violation_type or "",
        row.violation_name or "",
        row.panel_name or "",
        "" if row.resource_id is None else row.resource_id,
        row.event_type or "",
        row.description or "",
        "" if row.org_id is None else row.org_id,
    )


def alarms_csv(chunks: Iterable[list[read.AlarmRow]], head: str, tz: tzinfo) -> bytes:
    """The CSV of every row in `chunks`, under `head` (from `heading`)."""
    out = io.StringIO()
    out.write(head)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(ALARM_COLUMNS)
    for rows in chunks:
        writer.writerows(alarm_record(row, tz) for row in rows)
    return out.getvalue().encode()


def table_csv(frame: pd.DataFrame, head: str, tz: tzinfo) -> bytes:
    """The CSV of a table a page shows whole (the Audit page's), under `head`; times ISO 8601 in `tz`."""
    out = io.StringIO()
    out.write(head)
    shown = frame.copy()
    for name, column in shown.items():
        if isinstance(column.dtype, pd.DatetimeTZDtype):
            shown[name] = [timefmt.iso(None if pd.isna(t) else t.value // 1_000_000, tz) for t in column]
    shown.to_csv(out, index=False)
    return out.getvalue().encode()
