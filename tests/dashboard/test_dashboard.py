"""The dashboard's pages through Streamlit's AppTest, over a real cache file seeded in tmp_path."""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import UTC
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from core import read
from core.cache.db import open_cache, open_reader
from core.clock import now_ms
from dashboard import data, export
from tests.support.apptest import APP, open_page
from tests.support.html_table import alarms_table, linked_figures
from tests.support.seed_cache import Seeded, seed_cache

PAGES = ["views/overview.py", "views/alarms.py", "views/cameras.py", "views/panels.py"]
HOUR_MS = 3_600_000


pytestmark = pytest.mark.usefixtures("fresh_streamlit_cache")


def use_cache(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setenv("SAMOPS_DB", str(path))


@pytest.fixture
def seeded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Seeded:
    seed = seed_cache(tmp_path / "cache.db", now_ms())
    use_cache(monkeypatch, seed.path)
    return seed


def texts(at: AppTest) -> str:
    parts = [
        e.value
        for kind in ("title", "markdown", "caption", "info", "error", "warning")
        for e in getattr(at, kind)
    ]
    return "\n".join(map(str, parts))


def frame(at: AppTest, index: int = 0) -> pd.DataFrame:
    """A shown table, its pill columns (severity, camera problems) read back as comma-joined text."""
    shown = at.dataframe[index].value
    for pills in ("Type", "Problems"):
        if pills in shown.columns:
            shown[pills] = [", ".join(v) for v in shown[pills]]
    return shown


def alarm_rows(at: AppTest) -> pd.DataFrame:
    """The Alarms page's table (an HTML table, dashboard/alarm_table.py); it must be there."""
    shown = alarms_table(at)
    assert shown is not None, "no alarms table on the page"
    return shown


# --- no data ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_missing_cache_says_no_data_yet_and_creates_nothing(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "nowhere" / "cache.db"
    use_cache(monkeypatch, missing)
    at = open_page(page)
    assert "No data yet" in at.info[0].value and "samops sync" in at.info[0].value
    assert not at.dataframe and not at.metric and alarms_table(at) is None
    assert not missing.exists()  # read-only: opening the page must not create a cache


@pytest.mark.parametrize("page", PAGES)
def test_never_synced_cache_says_no_data_yet(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cache.db"
    open_cache(path).conn.close()
    use_cache(monkeypatch, path)
    at = open_page(page)
    assert "No data yet" in at.info[0].value


def test_unreadable_cache_is_a_clear_message_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cache.db"
    path.write_bytes(b"this is not an SQLite database" * 100)
    use_cache(monkeypatch, path)
    at = open_page(PAGES[1])
    assert "cannot be read" in at.error[0].value and str(path) in at.error[0].value


# --- overview ---------------------------------------------------------------------------------------------


def test_overview_shows_the_kpis_the_read_api_computes(seeded: Seeded) -> None:
    at = open_page(PAGES[0])
    db = open_reader(seeded.path)
    expected = read.kpis(db, data.floor_to(now_ms(), 60_000))
    db.conn.close()
    tiles = linked_figures(at)
    assert tiles[f"Alarms, last 24 h: {expected.alarms_24h}"] == expected.alarms_24h != 0
    assert tiles["Cameras down: 2"] == 2  # seeded: cameras 0 and 3 offline
    noisiest = [(label, n) for label, n in tiles.items() if label.endswith(tuple(map(str, seeded.panels)))]
    assert noisiest and [n for _, n in noisiest] == sorted((n for _, n in noisiest), reverse=True)
    # what is fresh, each named (issue 22): the sync's last success, then the newest activity
    assert "Live — last successful sync 1 min ago" in texts(at) and "· newest activity" in texts(at)
    assert not at.error


def test_the_banner_says_when_the_sync_last_succeeded_not_the_slowest_tier(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22: every page said "Live — data as of 8 min ago" while the sync ran every 30 s, because the
    time shown was the oldest table's (sensors and cameras refresh every ten minutes)."""
    now = now_ms()
    seed = seed_cache(tmp_path / "cache.db", now, activities=0)
    db = open_cache(seed.path)
    with db.conn:
        db.conn.execute(
            "UPDATE sync_state SET last_success = ? WHERE table_name = 'sensors'", [now - 8 * 60_000]
        )
        db.conn.execute(
            "UPDATE sync_state SET last_success = ? WHERE table_name = 'activities'", [now - 20_000]
        )
        db.conn.execute(
            "INSERT INTO activities (event_id, resource_id, org_id, activity_time, event_type)"
            " VALUES ('ev-newest', 5001, 1001, ?, 'violation')",
            [now - 3 * 60_000],
        )
    db.conn.close()
    use_cache(monkeypatch, seed.path)
    caption = next(c.value for c in open_page(PAGES[0]).caption if "Live" in c.value)
    assert caption.startswith(":material/check_circle: Live — last successful sync just now (")
    assert "· newest activity 3 min ago (" in caption and "8 min" not in caption


def test_stale_cache_is_shown_with_a_red_stale_banner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = now_ms()
    seed = seed_cache(tmp_path / "cache.db", now, last_success=now - 3 * HOUR_MS)
    use_cache(monkeypatch, seed.path)
    at = open_page(PAGES[1])
    assert "Stale" in at.error[0].value and "3 h ago" in at.error[0].value
    assert len(alarm_rows(at)) > 0  # the last cache stays visible


def test_failing_sync_is_a_red_banner_over_the_last_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = now_ms()
    seed = seed_cache(
        tmp_path / "cache.db",
        now,
        last_success=now - 5 * 60_000,
        last_error="TransportError: connection refused",
        last_error_at=now - 60_000,
    )
    use_cache(monkeypatch, seed.path)
    at = open_page(PAGES[2])
    banner = at.error[0].value
    assert "Sync failing" in banner and "connection refused" in banner and "5 min ago" in banner
    assert set(frame(at)["Camera"]) == set(seed.cameras.values())


# --- alarms -----------------------------------------------------------------------------------------------


def test_alarms_filters_change_results_and_land_in_the_url(seeded: Seeded) -> None:
    at = open_page(PAGES[1], all_rows="1")
    everything = alarm_rows(at)
    assert len(everything) == sum(1 for a in seeded.activities if a[3] >= seeded.now - 7 * 24 * HOUR_MS)
    assert list(everything["Time"]) == sorted(everything["Time"], reverse=True)

    at.selectbox(key="alarms_type").select("alarm").run()
    alarms = alarm_rows(at)
    assert 0 < len(alarms) < len(everything) and set(alarms["Type"]) == {"alarm"}
    assert at.query_params["type"] == "alarm"

    at.text_input(key="alarms_text").input("fire").run()
    fires = alarm_rows(at)
    assert 0 < len(fires) < len(alarms) and set(fires["Violation"]) == {"Fire"}
    assert at.query_params["q"] == "fire"

    at.selectbox(key="alarms_range").select("1h").run()
    assert at.query_params["range"] == "1h"
    recent = [a for a in seeded.activities if a[3] >= seeded.now - HOUR_MS + 60_000 and a[6] == "Fire"]
    shown = alarm_rows(at) if alarms_table(at) is not None else pd.DataFrame({"Time": []})
    cutoff = pd.Timestamp(seeded.now - HOUR_MS - 60_000, unit="ms", tz="UTC")
    times = shown["Time"]
    assert isinstance(times, pd.Series)
    assert len(shown) >= len(recent) and (times >= cutoff).all()


def test_alarms_link_with_a_panel_reproduces_the_view(seeded: Seeded) -> None:
    panel = 5003
    at = open_page(PAGES[1], panel=str(panel), type="alarm")
    shown = alarm_rows(at)
    expected = [a for a in seeded.activities if a[1] == panel and a[7] == "alarm"]
    assert len(shown) == len(expected) > 0
    assert set(shown["Panel id"]) == {panel} and set(shown["Panel"]) == {seeded.panels[panel]}
    assert at.selectbox(key="alarms_panel").value == panel
    assert at.query_params["panel"] == str(panel)


def test_alarms_bad_query_values_fall_back_to_defaults(seeded: Seeded) -> None:
    at = open_page(PAGES[1], panel="abc", type="nonsense", range="3y")
    assert at.selectbox(key="alarms_panel").value is None
    assert at.selectbox(key="alarms_type").value is None
    assert at.selectbox(key="alarms_range").value == "7d"
    assert len(alarm_rows(at)) > 0


def test_alarms_csv_carries_filters_and_as_of() -> None:
    row = read.AlarmRow(**{**{f.name: None for f in fields(read.AlarmRow)}, "activity_time": 0})
    row = replace(row, violation_type="alarm")
    head = export.heading("samops alarms", "type: alarm", 3_600_000, 7_200_000, UTC)
    lines = export.alarms_csv([[row]], head, UTC).decode().splitlines()
    assert lines[0] == "# samops alarms; filters: type: alarm"
    assert lines[1] == "# data as of 1970-01-01 01:00 UTC; exported 1970-01-01 02:00 UTC"
    assert lines[2:] == [",".join(export.ALARM_COLUMNS), "1970-01-01T00:00:00+00:00,alarm,,,,,,"]


# --- cameras ----------------------------------------------------------------------------------------------


def test_cameras_problems_first_filters_and_no_secrets(seeded: Seeded) -> None:
    at = open_page(PAGES[2])
    cams = frame(at)
    assert set(cams["Camera"]) == set(seeded.cameras.values())
    has_problem = [bool(p) for p in cams["Problems"]]
    assert has_problem == sorted(has_problem, reverse=True) and any(has_problem) and not all(has_problem)
    assert "SECRET" not in cams.to_csv()

    at.toggle(key="cameras_problems").set_value(True).run()
    assert all(frame(at)["Problems"]) and len(frame(at)) == sum(has_problem)
    assert at.query_params["problems"] == "True"

    at.text_input(key="cameras_text").input("Loading").run()
    assert list(frame(at)["Camera"]) == ["Camera Loading bay 2"]


def without_camera_status(seeded: Seeded) -> int:
    """The seeded cameras as the spec-exact service lists them: no status, binding or SD-card field; the
    Resource summary's `enabled`, false for the first. Returns how many are enabled."""
    db = open_cache(seeded.path)
    rids = sorted(seeded.cameras)
    db.conn.execute("UPDATE cameras SET status = NULL, bind_status = NULL, sd_card_status = NULL")
    db.conn.execute("UPDATE cameras SET raw = json_set(raw, '$.enabled', json('true'))")
    db.conn.execute(
        "UPDATE cameras SET raw = json_set(raw, '$.enabled', json('false')) WHERE resource_id = ?", [rids[0]]
    )
    db.conn.commit()
    db.conn.close()
    return len(rids) - 1


def test_cameras_without_status_count_enabled_not_healthy(seeded: Seeded) -> None:
    enabled = without_camera_status(seeded)
    at = open_page(PAGES[2])
    tiles = {m.label: m.value for m in at.metric}
    assert tiles == {
        "Cameras": str(len(seeded.cameras)),
        "Enabled": str(enabled),
        "Disabled": str(len(seeded.cameras) - enabled),
    }
    assert "not reported by the service" in texts(at)
    assert set(frame(at)["Camera"]) == set(seeded.cameras.values())


def test_cameras_with_status_count_problems_and_healthy(seeded: Seeded) -> None:
    at = open_page(PAGES[2])
    tiles = {m.label: m.value for m in at.metric}
    assert set(tiles) == {"Cameras", "With problems", "Healthy"}
    assert int(tiles["With problems"]) + int(tiles["Healthy"]) == len(seeded.cameras)
    assert "not reported by the service" not in texts(at)


def test_overview_counts_cameras_down_from_what_the_spec_gives(seeded: Seeded) -> None:
    """The spec's camera list has no status: a camera is down when it is disabled (core.cameras.camera_down),
    and no tile says "—" for ever (issue 37)."""
    without_camera_status(seeded)
    at = open_page(PAGES[0])
    tiles = linked_figures(at)
    assert tiles["Cameras down: 1"] == 1  # the first, disabled
    assert not any("SD-card" in label for label in tiles)


# --- panels -----------------------------------------------------------------------------------------------


def test_panel_page_shows_sensors_by_type_controllers_and_activities(seeded: Seeded) -> None:
    panel = 5004
    at = open_page(PAGES[3], panel=str(panel))
    assert at.header[0].value == seeded.panels[panel]
    tables = [frame(at, i) for i in range(len(at.dataframe))]
    sensors = pd.concat([df for df in tables if "Sensor" in df.columns])
    assert set(sensors["Sensor"]) == set(seeded.sensors[panel])
    assert "Ground floor (1)" in set(sensors["Partitions"]) or "Ground floor" in " ".join(
        sensors["Partitions"]
    )
    groups = [m.value for m in at.markdown if m.value.startswith("**")]
    assert groups == ["**Door** · 2", "**Smoke** · 2", "**Zone** · 2"]
    controllers = next(df for df in tables if "Controller" in df.columns)
    assert set(controllers["Controller"]) == set(seeded.controllers[panel])
    activities = next(df for df in tables if "Violation" in df.columns)
    assert set(activities["Panel id"]) == {panel} and set(activities["Type"]) <= set(read.SEVERITY)


def test_panel_search_narrows_the_picker(seeded: Seeded) -> None:
    at = open_page(PAGES[3])
    at.text_input(key="panels_q").input("Dock").run()
    picker = at.selectbox(key="panels_panel")
    assert picker.options == ["Dock gate panel 5 (5005)"]
    assert at.header[0].value == "Dock gate panel 5"
    assert at.query_params["panel"] == "5005"


# --- access -----------------------------------------------------------------------------------------------


def test_no_pages_folder_beside_the_app() -> None:
    # A `pages/` folder next to app.py makes Streamlit also serve each file as a page of its own, which a
    # page link then opens *without* running app.py, so without its sign-in gate.
    assert not (APP.parent / "pages").exists()


def test_password_gate(seeded: Seeded, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAMOPS_DASHBOARD_PASSWORD", "s3cret-pass")
    at = AppTest.from_file(str(APP), default_timeout=60).run()
    assert not linked_figures(at) and at.text_input[0].label == "Password"

    at.text_input[0].input("wrong")
    at.button[0].click().run()
    assert at.error[0].value == "Wrong password." and not linked_figures(at)

    at.text_input[0].input("s3cret-pass")
    at.button[0].click().run()
    assert not at.exception
    assert [t.value for t in at.title] == ["Overview"] and linked_figures(at)
    assert "s3cret-pass" not in texts(at)


def test_the_banner_says_when_the_service_refuses_a_parts_login(seeded: Seeded) -> None:
    """Issue 37: while the alarm poller's login was refused, every page read "Live — last successful sync 1
    min ago" (the sync's kept session went on). The refusal each part records for `samops status` is said
    on every page, above the rest."""
    from core.cache import sync_state, write_transaction
    from core.client.login_backoff import Refusal

    now = now_ms()
    refusal = Refusal(401, "invalid screenName or password", 3, now - 5 * 60_000, now + 60_000, 60.0)
    db = open_cache(seeded.path)
    with write_transaction(db):
        sync_state.record_login_refusal(db, "notify", refusal.to_json())
    db.close()
    for page in PAGES[:2]:
        at = open_page(page)
        [banner] = [e.value for e in at.error]
        assert "The service refuses samops' login** (notify)" in banner
        assert "invalid screenName or password" in banner
