"""The viewer's time zone across pages, and the organization's zone as the default, through AppTest over a
real cache file (the browser side of the picker is tests/dashboard/test_dashboard_zone_export.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.cache import writes
from core.cache.db import open_cache
from core.clock import now_ms
from tests.support.apptest import open_page
from tests.support.seed_cache import ORGS, seed_cache

pytestmark = pytest.mark.usefixtures("fresh_streamlit_cache")

PICKED = "America/New_York"
USERS_ZONE = "Asia/Kolkata"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A seeded cache whose users live in USERS_ZONE, and no config file."""
    path = seed_cache(tmp_path / "cache.db", now_ms()).path
    db = open_cache(path)
    rows = [writes.user_row({"userId": 70, "timeZoneId": USERS_ZONE}, ORGS[0][0])]
    with writes.write_transaction(db):
        writes.upsert_dicts(db, "users", rows, "user_id")
    db.conn.close()
    monkeypatch.setenv("SAMOPS_DB", str(path))
    monkeypatch.setenv("SAMOPS_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.delenv("SAM_ORGANIZATION_ID", raising=False)
    return path


def zone_box(at: AppTest) -> str:
    return str(next(box for box in at.selectbox if box.label == "Time zone").value)


def navigate(at: AppTest, page: str) -> AppTest:
    """A click in the sidebar's page list: the browser drops the query string and opens the page."""
    at.query_params.clear()
    return at.switch_page(page).run()


@pytest.mark.parametrize(
    "to", ["views/overview.py", "views/cameras.py", "views/audit.py", "views/handling.py"]
)
def test_the_chosen_zone_survives_moving_between_pages(cache: Path, to: str) -> None:
    at = open_page("views/alarms.py", tz=PICKED)
    assert zone_box(at) == PICKED
    navigate(at, to)
    assert not at.exception, [e.message for e in at.exception]
    assert zone_box(at) == PICKED
    assert at.query_params.get("tz") == PICKED  # and the URL says it again
    navigate(at, "views/alarms.py")
    assert zone_box(at) == PICKED and at.query_params.get("tz") == PICKED


def test_a_zone_picked_in_the_sidebar_survives_moving_between_pages(cache: Path) -> None:
    at = open_page("views/alarms.py")
    assert zone_box(at) == USERS_ZONE  # no config: the zone most of its users have
    next(box for box in at.selectbox if box.label == "Time zone").set_value(PICKED).run()
    assert at.query_params.get("tz") == PICKED
    navigate(at, "views/overview.py")
    assert zone_box(at) == PICKED and at.query_params.get("tz") == PICKED


def test_the_default_is_the_organization_zone_the_bot_uses(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The config's zone for the organization (as on its Slack cards) wins over its users' zones."""
    org = ORGS[0][0]
    config = tmp_path / "samops.toml"
    config.write_text(f'[notify]\ntimezone = "UTC"\n[notify.timezones]\n"{org}" = "Europe/Berlin"\n')
    monkeypatch.setenv("SAMOPS_CONFIG", str(config))
    monkeypatch.setenv("SAM_ORGANIZATION_ID", str(org))
    at = open_page("views/alarms.py")
    assert zone_box(at) == "Europe/Berlin"
    monkeypatch.delenv("SAM_ORGANIZATION_ID")  # no organization configured: the one the config names
    other = open_page("views/alarms.py")
    assert zone_box(other) == "Europe/Berlin"  # it was the users' zone, or `timezone`, not [notify.timezones]


def captions(at: AppTest) -> str:
    return " ".join(str(c.value) for c in at.caption)


def test_the_heat_map_and_the_handling_days_follow_the_chosen_zone(cache: Path) -> None:
    """The heat map ("… hour of day (UTC)") and the Handling days ("Days are UTC days.") stayed UTC whatever
    zone was picked; they are in the viewer's zone now, and a zone off UTC by half an hour is said to be."""
    alarms = open_page("views/alarms.py", tz="Asia/Tokyo")
    assert "Alarms by weekday and hour of day (Asia/Tokyo)" in captions(alarms)
    assert "(UTC)" not in captions(alarms) and "part of an hour" not in captions(alarms)
    heat = " ".join(str(h.proto.body) for h in alarms.get("html"))
    assert "Asia/Tokyo:" in heat and ":00 UTC:" not in heat
    assert "off UTC by part of an hour" in captions(open_page("views/alarms.py", tz="Asia/Kolkata"))
    handling = open_page("views/handling.py", tz="Asia/Tokyo")
    assert "Days are Asia/Tokyo days." in captions(handling) and "UTC days" not in captions(handling)
