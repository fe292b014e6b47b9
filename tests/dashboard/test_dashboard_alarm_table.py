"""Issue 16 item 5: the Alarms page's table is one HTML table (dashboard/alarm_table.py), sorted by a
"Sort by" select box kept in the URL, with the interactive grid one toggle away (`?grid=1`).

The table is built from the cache's text, so it is checked against hostile text both as HTML (escaped, read
back unchanged) and in a real headless Chromium (nothing injected runs or appears as markup)."""

from __future__ import annotations

import html
import re
from datetime import UTC
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import WebSocket, expect, sync_playwright

from core import alarms, lifecycle, read
from core.cache.db import open_cache
from core.clock import now_ms
from core.contrast import ink_on
from core.lifecycle import Change
from dashboard import alarm_table, ui
from tests.dashboard.test_dashboard_browser import dashboard
from tests.support.apptest import open_page
from tests.support.browser import WAIT_MS, launch, shows
from tests.support.html_table import alarms_table, read_alarms
from tests.support.seed_cache import Seeded, seed_cache

HOSTILE = (
    '<img id="pwned" src=x onerror="document.title=1"> <script>window.pwned=1</script> & "quotes" J*** D**'
)

pytestmark = pytest.mark.usefixtures("fresh_streamlit_cache")


def alarm(n: int, violation_type: str | None, panel: str, when: int, description: str = "") -> read.AlarmRow:
    return read.AlarmRow(
        event_id=f"EV-{n}",
        resource_id=5000 + len(panel),
        org_id=1001,
        activity_time=when,
        description=description,
        event_type="violation",
        violation_name="Intrusion",
        violation_type=violation_type,
        panel_name=panel,
    )


# --- the HTML ---------------------------------------------------------------------------------------------


def test_every_cell_is_escaped_and_reads_back_unchanged() -> None:
    rows = [alarm(1, "alarm", "<b>Gate</b> & yard", 1_790_000_000_000, HOSTILE)]
    body = alarm_table.alarms_html(rows, UTC, "UTC")
    assert "<img" not in body and "<script>" not in body and "<b>" not in body
    [shown] = read_alarms(body).to_dict("records")  # type: ignore[union-attr]
    assert shown["Description"] == HOSTILE  # masked names stay as the cache holds them: "J*** D**"
    assert shown["Panel"] == "<b>Gate</b> & yard"
    assert shown["Panel id"] == 5000 + len(shown["Panel"])
    assert shown["Org"] == 1001 and shown["Type"] == "alarm"


def test_times_are_in_the_viewers_zone_and_severity_keeps_its_colour() -> None:
    kolkata = ZoneInfo("Asia/Kolkata")
    rows = [alarm(1, "alarm", "A", 1_790_000_000_000), alarm(2, "warning", "B", 1_789_999_000_000)]
    body = alarm_table.alarms_html(rows, kolkata, "Asia/Kolkata")
    shown = read_alarms(body)
    assert shown is not None and shown.attrs["time_header"] == "Time (Asia/Kolkata)"
    # 14:13:20 UTC, +05:30; the zone named once, in the header, not in every cell
    assert shown.attrs["shown_times"][0] == "2026-09-21 19:43:20"
    assert [int(t.timestamp() * 1000) for t in shown["Time"]] == [1_790_000_000_000, 1_789_999_000_000]
    for kind in ("alarm", "warning"):
        colour = ui.colour_of(kind)  # the severity's colour, in the ink that reads on it (core/contrast.py)
        assert f'background:{colour};color:{ink_on(colour)}">{kind}</span>' in body


def test_sort_orders_keep_the_newest_first_within_a_group() -> None:
    rows = [
        alarm(1, "gray", "b panel", 5),
        alarm(2, "alarm", "A panel", 3),
        alarm(3, "warning", "b panel", 4),
        alarm(4, "alarm", "b panel", 6),
        alarm(5, None, "A panel", 7),
        alarm(6, "alarm", "A panels", 8),  # after "A panel", for all its newer alarm
    ]
    ids = lambda order: [r.event_id for r in alarm_table.sort_rows(rows, order)]  # noqa: E731
    assert ids("newest") == ["EV-6", "EV-5", "EV-4", "EV-1", "EV-3", "EV-2"]
    ranks = [alarms.severity_rank(r.violation_type) for r in alarm_table.sort_rows(rows, "severity")]
    assert ranks == sorted(ranks) and ids("severity")[:3] == ["EV-6", "EV-4", "EV-2"]
    assert ids("panel") == ["EV-5", "EV-2", "EV-6", "EV-4", "EV-1", "EV-3"]  # by name, case-insensitively


# --- the page (AppTest over a real cache file) ------------------------------------------------------------


@pytest.fixture
def seeded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Seeded:
    seed = seed_cache(tmp_path / "cache.db", now_ms())
    monkeypatch.setenv("SAMOPS_DB", str(seed.path))
    return seed


def test_sort_by_is_kept_in_the_url_and_orders_the_rows(seeded: Seeded) -> None:
    at = open_page("views/alarms.py", all_rows="1")  # every row: the first 100 may all be of one severity
    newest = alarms_table(at)
    assert newest is not None and len(newest) > 10 and "sort" not in at.query_params
    assert list(newest["Time"]) == sorted(newest["Time"], reverse=True)

    at.selectbox(key="alarms_sort").select("severity").run()
    assert at.query_params["sort"] == "severity"
    by_severity = alarms_table(at)
    assert by_severity is not None and len(by_severity) == len(newest)
    ranks = [alarms.severity_rank(t or None) for t in by_severity["Type"]]
    assert ranks == sorted(ranks) and ranks[0] < ranks[-1]

    # A link reproduces the order.
    linked = alarms_table(open_page("views/alarms.py", sort="panel", all_rows="1"))
    assert linked is not None and list(linked["Panel"]) == sorted(linked["Panel"], key=str.casefold)

    # A bad value: the default order and a notice naming `sort`.
    at = open_page("views/alarms.py", sort="<b>loudest</b>")
    assert at.selectbox(key="alarms_sort").value == "newest"
    assert any("`sort` value" in c.value and "<b>" not in c.value for c in at.caption)


def test_the_interactive_grid_is_one_toggle_away_and_in_the_url(seeded: Seeded) -> None:
    at = open_page("views/alarms.py", all_rows="1")
    assert not at.dataframe  # the HTML table only: no grid's JavaScript on first paint
    shown = alarms_table(at)
    assert shown is not None

    at.toggle(key="alarms_grid").set_value(True).run()
    assert at.query_params["grid"] == "1" and alarms_table(at) is None
    assert at.toggle(key="alarms_every_row").disabled  # the grid holds every row
    few = open_page("views/alarms.py", panel="5003", type="alarm")  # a table with nothing more to show
    shown_few = alarms_table(few)
    assert shown_few is not None and len(shown_few) <= alarm_table.FIRST_ROWS
    assert (
        few.toggle(key="alarms_every_row").disabled
        and not open_page("views/alarms.py").toggle(key="alarms_every_row").disabled
    )
    grid = at.dataframe[0].value
    assert len(grid) == len(shown) and set(grid["Violation"]) == set(shown["Violation"])

    at = open_page("views/alarms.py", grid="1", sort="severity")
    grid = at.dataframe[0].value
    ranks = [alarms.severity_rank(t[0] if t else None) for t in grid["Type"]]
    assert ranks == sorted(ranks)  # the chosen order holds in the grid too


def test_the_state_column_says_open_acknowledged_resolved_and_who_holds_it(seeded: Seeded) -> None:
    """Issue 22: the Alarms page had no state column. The states and the holder are core/lifecycle.py's
    (read through core.read.standings); an alarm samops never posted has none, and shows none."""
    db = open_cache(seeded.path)
    newest = "SELECT event_id, activity_time FROM activities ORDER BY activity_time DESC"
    times = {int(r[1]) // 1000: str(r[0]) for r in db.execute(newest)}  # the table shows whole seconds
    acked, resolved, still_open, taken = list(times.values())[:4]
    opened = now_ms() - 10 * 60_000
    lifecycle.open_alarms(db, [(e, opened) for e in (acked, resolved, still_open, taken)], opened)
    lifecycle.apply(db, acked, Change.ACKNOWLEDGED, "U_ACK", opened + 60_000, opened_at=opened)
    lifecycle.apply(db, resolved, Change.RESOLVED, "U_RES", opened + 60_000, opened_at=opened, note="ok")
    lifecycle.apply(db, taken, Change.ASSIGNED, "U_TAKE", opened + 60_000, opened_at=opened)
    expected = read.standings(db, [acked, resolved, still_open, taken])
    db.close()

    at = open_page("views/alarms.py")
    shown = alarms_table(at)
    assert shown is not None
    found = {
        times[int(row["Time"].timestamp())]: (row["State"], row["Held by"])
        for row in shown.to_dict("records")
    }
    for event, state in expected.items():
        assert found[event] == (state.state.value, state.holder or "")
    assert found[still_open] == ("open", "") and found[acked][0] == "acknowledged"
    assert found[resolved][0] == "resolved" and found[taken][1] == "U_TAKE"
    assert {found[e] for e in found if e not in expected} == {("", "")}  # never posted: no state

    at.toggle(key="alarms_grid").set_value(True).run()  # the grid carries the same columns
    grid = at.dataframe[0].value
    assert list(grid.columns[:5]) == ["Priority", "State", "Held by", "Time", "Type"]
    assert "Event" not in grid.columns  # "violation" on every alarm


# --- a real browser ---------------------------------------------------------------------------------------


@pytest.mark.browser
def test_hostile_text_is_shown_as_text_in_the_browser(tmp_path: Path) -> None:
    seeded = seed_cache(tmp_path / "cache.db", now_ms())
    db = open_cache(seeded.path)
    newest = max(seeded.activities, key=lambda a: a[3])
    db.conn.execute("UPDATE activities SET description = ? WHERE event_id = ?", [HOSTILE, newest[0]])
    db.conn.commit()
    db.conn.close()
    with dashboard(seeded.path) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1440, "height": 1100})
        page.goto(f"{base}/alarms?range=all&all_rows=1")
        shows(page, HOSTILE)
        table = page.locator(f'table[aria-label="{alarm_table.LABEL}"]')
        expect(table.locator("tbody tr")).to_have_count(len(seeded.activities), timeout=WAIT_MS)
        assert page.locator("#pwned").count() == 0 and page.evaluate("window.pwned") is None
        assert html.escape(HOSTILE, quote=False) in table.inner_html()
        browser.close()


@pytest.mark.browser
def test_the_table_opens_with_its_first_rows_and_shows_every_row_on_request(tmp_path: Path) -> None:
    """Issue 25: a tab receives and draws the table's first FIRST_ROWS rows only, and says so; *Show every
    row* draws all of them and keeps that in the URL."""
    seeded = seed_cache(tmp_path / "cache.db", now_ms())
    assert len(seeded.activities) > alarm_table.FIRST_ROWS
    label = f'aria-label="{alarm_table.LABEL}"'.encode()
    tables: list[bytes] = []

    def frames(ws: WebSocket) -> None:
        ws.on("framereceived", lambda p: tables.append(p) if isinstance(p, bytes) and label in p else None)

    with dashboard(seeded.path) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1440, "height": 1100})
        page.on("websocket", frames)
        page.goto(f"{base}/alarms?range=all")
        table = page.locator(f'table[aria-label="{alarm_table.LABEL}"]')
        expect(table.locator("tbody tr")).to_have_count(alarm_table.FIRST_ROWS, timeout=WAIT_MS)
        shows(page, f"The first {alarm_table.FIRST_ROWS} of these {len(seeded.activities)} alarms")
        assert [t.count(b"<tr>") - 1 for t in tables] == [alarm_table.FIRST_ROWS]
        # Its label, as a person clicks it: the input itself is hidden, and below the fold since the filters
        # take two rows, where a forced click on it lands nowhere.
        page.locator("label").filter(has_text=alarm_table.EVERY_ROW).click()
        expect(table.locator("tbody tr")).to_have_count(len(seeded.activities), timeout=WAIT_MS)
        expect(page).to_have_url(re.compile(r"[?&]all_rows=1\b"), timeout=WAIT_MS)
        browser.close()
