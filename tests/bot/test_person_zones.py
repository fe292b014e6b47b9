"""A person's own zone from Slack (bot/person_zones.py): users.info asked once per person per TTL, a failure
or a missing `tz` read as the organization's zone and never an error, a role lookup's answer reused, and the
zone followed into the person's paging preferences (their pages are on the same clock)."""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from pydantic import SecretStr
from slack_sdk import WebClient

from bot.context import build_context
from bot.person_zones import PersonZones
from core import cache
from core.config import parse_config
from core.paging import PagePrefs
from core.settings import Settings
from tests.support.slack_standin import SlackStandIn

TOKYO, ISTANBUL = ZoneInfo("Asia/Tokyo"), ZoneInfo("Europe/Istanbul")


def org_zone(_org: int | None) -> ZoneInfo:
    return ISTANBUL


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_one_users_info_per_person_per_ttl_and_the_organizations_zone_where_slack_gives_none(
    caplog: pytest.LogCaptureFixture,
) -> None:
    users = {"U_ANA": None, "U_NOTZ": None}
    zones = {"U_ANA": "Asia/Tokyo", "U_NOTZ": None}
    with SlackStandIn(users=users, zones=zones) as slack:
        clock = Clock()
        zones_of = PersonZones(WebClient(token="xoxb-x", base_url=slack.api_url), ttl=60, clock=clock)
        ana = zones_of.reader("U_ANA", org_zone)
        assert slack.calls_to("users.info") == []  # asked at first use, not before
        assert ana(1001) == TOKYO and ana(None) == TOKYO and zones_of.reader("U_ANA", org_zone)(7) == TOKYO
        assert zones_of.reader("U_NOTZ", org_zone)(1001) == ISTANBUL  # no tz: the organization's
        assert zones_of.reader("U_GONE", org_zone)(1001) == ISTANBUL  # user_not_found: no error to anyone
        assert len(slack.calls_to("users.info")) == 3
        clock.now += 59
        assert zones_of.slack_zone("U_ANA") == "Asia/Tokyo" and len(slack.calls_to("users.info")) == 3
        clock.now += 2  # past the TTL: asked again; a 429 keeps what was known
        slack.throttle("users.info")
        assert zones_of.slack_zone("U_ANA") == "Asia/Tokyo"
        assert "users.info of U_ANA failed: ratelimited" in caplog.text  # asked, and said; no zone named
        clock.now += 61
        slack.zones["U_ANA"] = "Europe/Istanbul"  # she moved
        assert zones_of.slack_zone("U_ANA") == "Europe/Istanbul"


def test_no_slack_to_ask_is_the_organizations_zone() -> None:
    assert PersonZones(None).reader("U_ANA", org_zone)(1001) == ISTANBUL


def test_a_role_lookups_answer_is_reused_and_the_zone_follows_into_paging_preferences(tmp_path: Path) -> None:
    users = {"U_ANA": "ana@example.com", "U_BEN": None}  # U_BEN has no e-mail: the service is not asked
    with SlackStandIn(users=users, zones={"U_ANA": "Asia/Tokyo", "U_BEN": "Asia/Tokyo"}) as slack:
        settings = Settings(
            data_dir=tmp_path, slack_bot_token=SecretStr("xoxb-samops-test"), slack_api_url=slack.api_url
        )
        roles = {"from_service": {"Installer": "technician"}}  # roles looked up by users.info's e-mail
        config = parse_config({"roles": roles, "notify": {"timezone": "Europe/Istanbul"}})
        ctx = build_context(settings, config)
        db = ctx.db()
        cache.set_page_prefs(db, PagePrefs("U_ANA", zone="America/Los_Angeles"), 1)  # from an old notify-me
        assert ctx.roles.service is not None
        ctx.roles.service.lookup("U_BEN")  # a role lookup: users.info once ...
        assert ctx.reader_zones("U_BEN")(None) == TOKYO  # ... and its `tz` read from that answer
        assert [c.params["user"] for c in slack.calls_to("users.info")] == ["U_BEN"]
        assert ctx.reader_zones("U_ANA")(None) == TOKYO
        prefs = cache.prefs_of(db, "U_ANA")
        assert prefs is not None and prefs.zone == "Asia/Tokyo"  # her pages are on the clock she reads
        assert cache.prefs_of(db, "U_BEN") is None  # no preferences made for anyone who set none
