"""The viewer's time zone and the full CSV export, in a real headless Chromium over a real cache file.

The organization's zone comes from its users' `timeZoneId` (written through the cache's own writes, as a
sync writes them); the export is clicked like a user would and its file read back from the browser.
"""

from __future__ import annotations

import csv
import io
import time
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qs, urlparse
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Page, sync_playwright

from core import read
from core.cache import writes
from core.cache.db import open_cache, open_reader
from tests.dashboard.test_dashboard_browser import dashboard
from tests.support.browser import WAIT_MS, launch, screenshot, shows
from tests.support.seed_cache import ORGS, seed_cache

ORG_ZONE = "Asia/Kolkata"  # +05:30: a half-hour offset, so a zone mix-up cannot hide behind whole hours
PICKED = "America/New_York"


def seeded_cache(path: Path) -> int:
    """A cache of 1,400 activities (well over the 500 a table shows), whose users live in ORG_ZONE; returns
    the newest alarm's time."""
    seed_cache(path, int(time.time() * 1000), activities=1400)
    db = open_cache(path)
    users = [
        writes.user_row({"userId": 70 + n, "screenName": f"u{n}", "timeZoneId": zone}, org_id)
        for n, (zone, org_id) in enumerate(
            [(ORG_ZONE, ORGS[0][0]), (ORG_ZONE, ORGS[1][0]), ("Europe/Istanbul", ORGS[0][0])]
        )
    ]
    with writes.write_transaction(db):
        writes.upsert_dicts(db, "users", users, "user_id")
    db.conn.close()
    reader = open_reader(path)
    newest = read.recent_alarms(reader, read.AlarmFilter(), 1)[0].activity_time
    reader.conn.close()
    return newest


def shown_as(epoch_ms: int, zone: str) -> str:
    """How the alarms table writes a time in `zone` (before the zone's abbreviation)."""
    return datetime.fromtimestamp(epoch_ms / 1000, ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M:%S")


def zone_param(page: Page) -> list[str]:
    return parse_qs(urlparse(page.url).query).get("tz", [])


def pick_zone(page: Page, zone: str) -> None:
    box = page.get_by_role("combobox", name="Time zone")
    box.click()
    page.keyboard.type(zone)
    page.get_by_role("option", name=zone, exact=True).click()


@pytest.mark.browser
def test_time_zone_choice_is_kept_in_the_url_and_changes_every_time(tmp_path: Path) -> None:
    db = tmp_path / "cache.db"
    newest = seeded_cache(db)
    assert shown_as(newest, ORG_ZONE) != shown_as(newest, PICKED) != shown_as(newest, "UTC")
    with dashboard(db) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1440, "height": 1100})

        # No choice yet: the organization's zone, and a clean URL.
        page.goto(f"{base}/alarms")
        shows(page, shown_as(newest, ORG_ZONE))
        shows(page, f"Time ({ORG_ZONE})")
        assert zone_param(page) == []

        # Picking a zone changes the times and puts it in the URL, beside the page's own filters.
        pick_zone(page, PICKED)
        shows(page, shown_as(newest, PICKED))
        encoded = PICKED.replace("/", "%2F")
        page.wait_for_function(f"location.search.includes('tz={encoded}')", timeout=WAIT_MS)
        screenshot(page, "dashboard-zone-picked")

        # The URL reproduces the choice in a new tab, and another page keeps it.
        other = browser.new_page(viewport={"width": 1440, "height": 1100})
        other.goto(page.url)
        shows(other, shown_as(newest, PICKED))
        assert zone_param(other) == [PICKED]
        other.goto(f"{base}/alarms?tz={PICKED}&type=alarm")
        shows(other, shown_as(newest, PICKED))
        other.wait_for_function("location.search.includes('type=alarm')", timeout=WAIT_MS)
        assert zone_param(other) == [PICKED]

        # A zone nobody has falls back to the organization's, with a note and no error.
        other.goto(f"{base}/alarms?tz=Mars%2FOlympus_Mons")
        shows(other, "value is not a known time zone, so it was ignored")
        shows(other, shown_as(newest, ORG_ZONE))
        assert "Traceback" not in other.content() and "Mars" not in other.locator("main").inner_text()
        browser.close()


@pytest.mark.browser
def test_csv_export_holds_every_matching_alarm_in_the_chosen_zone(tmp_path: Path) -> None:
    db = tmp_path / "cache.db"
    seeded_cache(db)
    reader = open_reader(db)
    everything = [row for rows in read.iter_alarms(reader, read.AlarmFilter()) for row in rows]
    reader.conn.close()
    assert len(everything) > 500
    with dashboard(db) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1440, "height": 1100}, accept_downloads=True)
        page.goto(f"{base}/alarms?range=all&tz={PICKED}")
        shows(page, "500 alarms (the newest; the CSV holds them all)")
        with page.expect_download(timeout=WAIT_MS) as download:
            page.get_by_role("button", name="Download CSV").click()
        saved = tmp_path / "export.csv"
        download.value.save_as(saved)
        browser.close()
    lines = saved.read_text().splitlines()
    assert lines[0].startswith("# samops alarms; filters: range: All")
    table = list(csv.DictReader(io.StringIO("\n".join(lines[2:]))))
    assert len(table) == len(everything)
    assert [r["Description"] for r in table] == [a.description or "" for a in everything]
    offsets = {r["Time"][-6:] for r in table}
    assert offsets <= {"-05:00", "-04:00"}, offsets  # New York's, standard and summer time
    first = datetime.fromisoformat(table[0]["Time"])
    assert int(first.timestamp() * 1000) // 1000 == everything[0].activity_time // 1000
