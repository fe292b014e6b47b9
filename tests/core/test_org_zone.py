"""An organization's time zone from the config's `[notify]` section: one definition (`core.timefmt.org_zone`),
which the bot's `NotifyConfig.zone_for`, `/sam who-can` and the dashboard's Who-can section all read."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from core.config import parse_notify
from core.timefmt import org_zone, zone

BERLIN, ISTANBUL, UTC = ZoneInfo("Europe/Berlin"), ZoneInfo("Europe/Istanbul"), ZoneInfo("UTC")


def test_org_zone_reads_the_notify_section() -> None:
    notify = {"timezone": "Europe/Istanbul", "timezones": {"1001": "Europe/Berlin", "1002": "Mars/Base"}}
    assert org_zone(notify, 1001) == BERLIN
    assert org_zone(notify, 1002) == ISTANBUL  # an unknown zone falls back
    assert org_zone(notify, 1003) == ISTANBUL
    assert org_zone(notify, None) == ISTANBUL
    assert org_zone({"timezones": {1001: "Europe/Berlin"}}, 1001) == BERLIN  # int keys, as parsed configs
    assert org_zone({}, 1001) == UTC
    assert org_zone({"timezone": 5, "timezones": ["x"]}, 1001) == UTC  # a hand-edited file of wrong types
    assert org_zone({"timezone": "../../etc/passwd"}, None) == UTC  # not a path into the zone files


@pytest.mark.parametrize("org", [1001, 1002, 1003, None])
def test_the_notifier_and_the_dashboard_read_the_same_zone(org: int | None) -> None:
    raw = {"timezone": "Europe/Istanbul", "timezones": {"1001": "Europe/Berlin", "1002": "America/New_York"}}
    assert parse_notify(raw).zone_for(org) == org_zone(raw, org)


def test_only_a_places_zone_is_a_zone() -> None:
    # tzdata also lists the machine's own zone and a placeholder; a URL's ?tz= must not pick either.
    assert zone("Europe/Berlin") is not None and zone("UTC") is not None
    assert zone("localtime") is None and zone("Factory") is None and zone("../../etc/passwd") is None


def test_the_cached_users_zone_comes_after_the_config() -> None:
    """The dashboard passes its users' zone as the fallback: the config's zone still wins, as on the cards."""
    kolkata = "Asia/Kolkata"
    assert org_zone({}, 1001, fallback=kolkata) == ZoneInfo(kolkata)
    assert org_zone({"timezones": {"1001": "Europe/Berlin"}}, 1001, fallback=kolkata) == BERLIN
    assert org_zone({"timezone": "Europe/Istanbul"}, 1001, fallback=kolkata) == ISTANBUL
    assert org_zone({}, 1001, fallback="Mars/Base") == UTC


def test_no_organization_reads_the_one_the_config_names() -> None:
    """A first-start summary, a reply or the dashboard with no organization of its own: the one organization
    `[notify.timezones]` names, before `timezone` and the
    users' zone (they read the simulator users' zone)."""
    one = {"timezone": "UTC", "timezones": {"1001": "Europe/Berlin"}}
    assert org_zone(one, None, fallback="Asia/Kolkata") == BERLIN
    assert parse_notify(one).zone_for(None) == BERLIN
    two = {"timezone": "UTC", "timezones": {"1001": "Europe/Berlin", "1002": "Europe/Istanbul"}}
    assert org_zone(two, None) == UTC  # which one is not known: the default zone
    assert org_zone({"timezones": {"1001": "Europe/Berlin", "1002": "Europe/Istanbul"}}, None) == UTC
    users = parse_notify({"timezones": {"1001": "Europe/Berlin"}}).reading_users_zones(
        lambda _org: "Asia/Kolkata"
    )
    assert users.zone_for(None) == BERLIN and users.zone_for(1002) == ZoneInfo("Asia/Kolkata")
