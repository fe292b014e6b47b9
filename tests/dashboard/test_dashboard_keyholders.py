"""The Alarms page's Keyholders column (dashboard/alarm_table.py, core/keyholders.py), through Streamlit's
AppTest over a real cache: each alarm's line as its card says it, judged at the alarm's own time in the
organization's zone, as plain text in the table (escaped like every other cell)."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core.access_windows import DayWindow, Validity
from core.cache.db import open_cache
from core.cache.panel_access import record_reads, replace_panel_access
from core.cache.transactions import write_transaction
from core.cache.writes import upsert_activities
from core.clock import HOUR_MS
from core.panel_access import validity_to_json
from tests.dashboard.test_dashboard import PAGES, open_page
from tests.support.html_table import alarms_table
from tests.support.seed_cache import seed_cache

ISTANBUL = ZoneInfo("Europe/Istanbul")
INSIDE, FAILED, UNREAD = 5004, 5005, 5006
NAME = '<b>Ana</b> "Yılmaz"'  # the service's text: shown as text, never markup

pytestmark = pytest.mark.usefixtures("fresh_streamlit_cache")


def yesterday_at(hour: int) -> int:
    day = (datetime.now(ISTANBUL) - timedelta(days=1)).replace(hour=hour, minute=0, second=0, microsecond=0)
    return int(day.timestamp() * 1000)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    now = int(time.time() * 1000)
    seed = seed_cache(tmp_path / "cache.db", now)
    config = tmp_path / "samops.toml"
    config.write_text('[notify]\ntimezone = "Europe/Istanbul"\n', encoding="utf-8")
    monkeypatch.setenv("SAMOPS_DB", str(seed.path))
    monkeypatch.setenv("SAMOPS_CONFIG", str(config))
    office = Validity(windows=tuple(DayWindow(d, 8 * HOUR_MS, 18 * HOUR_MS) for d in range(1, 8)))
    row = {"resource_id": INSIDE, "user_id": 7001, "org_id": 1001, "name": NAME, "groups": '["Arm"]',
           "validity": json.dumps(validity_to_json(office)), "fetched_at": now}  # fmt: skip
    activities = [
        (f"EV-KH-{hour}", INSIDE, 1001, yesterday_at(hour), f"keyholder test {hour}", "violation",
         "Burglary", "alarm", 2, 1, 1)
        for hour in (10, 20)
    ]  # fmt: skip
    db = open_cache(seed.path)
    try:
        with write_transaction(db):
            upsert_activities(db, "activities", activities)
            replace_panel_access(db, 1001, [INSIDE], [row])
            record_reads(db, 1001, [INSIDE], now)
            record_reads(db, 1001, [FAILED], now, error="the service refused (HTTP 403)")
    finally:
        db.close()
    return seed.path


def test_the_alarms_page_shows_each_alarms_keyholder_line(cache: Path) -> None:
    shown = alarms_table(open_page(PAGES[1], panel=str(INSIDE)))
    assert shown is not None and "Keyholders" in shown.columns
    by_text = {row["Description"]: row["Keyholders"] for row in shown.to_dict("records")}
    assert by_text["keyholder test 10"] == (
        f"During the access window of {NAME} (Mon–Sun 08:00–18:00): possibly a user error"
    )
    assert by_text["keyholder test 20"] == "Outside every authorized user's window"


def test_unreadable_and_unread_panels_say_so(cache: Path) -> None:
    for panel, line in (
        (FAILED, "Authorizations could not be read: the service refused (HTTP 403)"),
        (UNREAD, "Authorizations not read yet"),
    ):
        shown = alarms_table(open_page(PAGES[1], panel=str(panel)))
        assert shown is not None and len(shown) > 0
        assert set(shown["Keyholders"]) == {line}


def test_the_grid_has_the_keyholders_column_too(cache: Path) -> None:
    at = open_page(PAGES[1], panel=str(INSIDE), grid="1")
    shown = next(df.value for df in at.dataframe if "Keyholders" in df.value.columns)
    by_text = dict(zip(shown["Description"], shown["Keyholders"], strict=True))
    assert by_text["keyholder test 20"] == "Outside every authorized user's window"
