"""CSV exports, headed by the filters and the as-of time they were made with.

The Alarms export holds every matching row, not only the table's: it is made when the button is clicked
(`st.download_button` with a callable, run on its own thread), from the read API a chunk of rows at a time,
written straight to CSV without a table in between. Times are ISO 8601 with the viewer's zone offset.

Every text cell passes through `cell`: text from the service or the URL that a spreadsheet could read as a
formula (= + - @ |, their fullwidth forms, after any blank or invisible characters; or a leading tab, carriage
return or line feed: `reads_as_formula`) is prefixed with a single quote, so a spreadsheet opening the file
shows it as text instead of evaluating it (CSV injection). Numbers and times are written as they are.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import tzinfo

import pandas as pd

from core import read, timefmt

# What makes Excel, LibreOffice or Google Sheets read a cell as a formula (OWASP's "CSV Injection": = + - @,
# tab, carriage return, line feed), `|` (LibreOffice's DDE links), and their fullwidth and small forms, which
# NFKC folds into these and an East Asian spreadsheet reads alike. The minus sign U+2212 folds into nothing
# but is a minus to a spreadsheet all the same.
FORMULA_STARTS = frozenset("=+-@|\u2212")
CONTROL_STARTS = ("\t", "\r", "\n")


def _blank(char: str) -> bool:
    """What a spreadsheet skips before it looks for a formula: spaces of any width (NBSP, U+3000, ...),
    layout and control characters, and the invisible format characters (a zero-width space, a BOM)."""
    return char.isspace() or unicodedata.category(char) in ("Cc", "Cf", "Zs", "Zl", "Zp")


def reads_as_formula(text: str) -> bool:
    """Whether a spreadsheet could take this text cell for a formula: its first character that is not blank
    (`_blank`), folded by NFKC (`＝` is `=`), is one a formula starts with; or it starts with a control
    character OWASP names."""
    if text.startswith(CONTROL_STARTS):
        return True
    first = next((c for c in text if not _blank(c)), "")
    return bool(first) and (
        first in FORMULA_STARTS or unicodedata.normalize("NFKC", first)[:1] in FORMULA_STARTS
    )


def cell(value: object) -> object:
    """A text cell a spreadsheet shows as the text it is: one that reads as a formula gets a leading quote."""
    if isinstance(value, str) and reads_as_formula(value):
        return "'" + value
    return value


# RFC 4180's line end. With a bare "\n" the csv module (and pandas) would leave a carriage return inside a
# cell unquoted, and a spreadsheet would split the row there.
LINE_END = "\r\n"

ALARM_COLUMNS = ("Time", "Type", "Violation", "Panel", "Panel id", "Event", "Description", "Org")
# After them, when the export is given the alarms' dispositions (core/dispositions.py): code and label.
DISPOSITION_COLUMNS = ("Disposition", "Disposition label")
Closed = Callable[[Sequence[str]], Mapping[str, read.AlarmDisposition]]  # event ids -> their dispositions


def heading(title: str, filters: str, as_of: int | None, now: int, tz: tzinfo) -> str:
    """Two comment lines, each one CSV cell: the filters hold the URL's search text, whose commas or quotes
    would otherwise start a new cell, one that could start like a formula."""
    lines = [
        f"# {title}; filters: {filters or 'none'}",
        f"# data as of {timefmt.local(as_of, tz, missing='—')}; exported {timefmt.local(now, tz)}",
    ]
    out = io.StringIO()
    csv.writer(out, lineterminator=LINE_END).writerows([line] for line in lines)
    return out.getvalue()


def alarm_record(row: read.AlarmRow, tz: tzinfo) -> tuple[object, ...]:
    return (
        timefmt.iso(row.activity_time, tz),
        cell(row.violation_type or ""),
        cell(row.violation_name or ""),
        cell(row.panel_name or ""),
        "" if row.resource_id is None else row.resource_id,
        cell(row.event_type or ""),
        cell(row.description or ""),
        "" if row.org_id is None else row.org_id,
    )


def alarms_csv(
    chunks: Iterable[list[read.AlarmRow]], head: str, tz: tzinfo, closed: Closed | None = None
) -> bytes:
    """The CSV of every row in `chunks`, under `head` (from `heading`); with `closed`, each alarm's
    disposition (code and label, empty while it is not resolved with one)."""
    out = io.StringIO()
    out.write(head)
    writer = csv.writer(out, lineterminator=LINE_END)
    writer.writerow(ALARM_COLUMNS + (DISPOSITION_COLUMNS if closed is not None else ()))
    for rows in chunks:
        if closed is None:
            writer.writerows(alarm_record(row, tz) for row in rows)
            continue
        found = closed([row.event_id for row in rows])
        writer.writerows(alarm_record(row, tz) + disposition_cells(found.get(row.event_id)) for row in rows)
    return out.getvalue().encode()


def disposition_cells(closed: read.AlarmDisposition | None) -> tuple[object, ...]:
    """The code and label (labels are the TOML's words: passed through `cell` all the same)."""
    return (cell(closed.code), cell(closed.label)) if closed is not None else ("", "")


def table_csv(frame: pd.DataFrame, head: str, tz: tzinfo) -> bytes:
    """The CSV of a table a page shows whole (the Audit page's), under `head`; times ISO 8601 in `tz`."""
    out = io.StringIO()
    out.write(head)
    shown = frame.copy()
    for name, column in shown.items():
        if isinstance(column.dtype, pd.DatetimeTZDtype):
            shown[name] = [timefmt.iso(None if pd.isna(t) else t.value // 1_000_000, tz) for t in column]
        elif column.dtype == object or pd.api.types.is_string_dtype(column.dtype):
            shown[name] = [cell(value) for value in column]
    shown.to_csv(out, index=False, lineterminator=LINE_END)
    return out.getvalue().encode()
