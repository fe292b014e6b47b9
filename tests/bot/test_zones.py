"""Every time a person sees about an alarm, a panel or an authorization is in that organization's zone (the
config's `[notify]` zone, `NotifyConfig.zone_for`), and the zone is named: cards' replies, `/sam alarms`,
`/sam panel`, `/sam privileges`, `/sam audit` rows. One formatter writes them: `core.timefmt.local`."""

from __future__ import annotations

import json
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.actions.lifecycle import unchanged_text
from bot.commands.audit import audit_line
from bot.render.common import blocks_to_dicts
from bot.render.lists import alarms_blocks, privileges_blocks, window_words
from bot.render.panels import PanelStatus, panel_blocks
from core.access_windows import time_of_day
from core.cache.audit import AuditEntry
from core.cache.db import open_cache
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from core.config import parse_config
from core.lifecycle import AlarmState, State
from core.models import Activity, UserPrivileges
from core.read import AlarmFilter, recent_alarms
from core.timefmt import local
from tests.support.bot import local_context

T = 1_795_000_000_000  # 2026-11-18 11:06:40 UTC: 16:36:40 in Kolkata, 12:06:40 in Berlin
KOLKATA, BERLIN, UTC = ZoneInfo("Asia/Kolkata"), ZoneInfo("Europe/Berlin"), ZoneInfo("UTC")
NOTIFY = {"timezone": "UTC", "timezones": {"1001": "Asia/Kolkata"}}


def zone_for(org: int | None) -> ZoneInfo:
    return KOLKATA if org == 1001 else UTC


def test_the_one_formatter_names_the_zone() -> None:
    assert local(T, KOLKATA, seconds=True) == "2026-11-18 16:36:40 Asia/Kolkata"
    assert local(T, BERLIN) == "2026-11-18 12:06 Europe/Berlin"
    assert local(T, ZoneInfo("Europe/Istanbul")) == "2026-11-18 14:06 Europe/Istanbul"  # "+03" names nothing
    assert local(T) == "2026-11-18 11:06 UTC"


def test_already_acknowledged_is_told_in_the_alarms_organization_zone(tmp_path: Path) -> None:
    ctx = local_context(tmp_path, {}, NOTIFY)
    db = open_cache(ctx.db_path)
    with write_transaction(db):
        upsert_dicts(db, "panels", [{"resource_id": 777, "org_id": 1001, "name": "Depot"}], "resource_id")
        upsert_activities(db, "activities", [("EV-1", 777, 1001, T, "Burglary alarm on Depot - Door",
                                             "violation", "Burglary alarm", "alarm", 2, 1, 1)])  # fmt: skip
    state = AlarmState("EV-1", State.ACKNOWLEDGED, None, T, T, "U1", None, None, None, T)
    assert unchanged_text(state, "already acknowledged", ctx, "U1") == (
        "Already acknowledged by <@U1> at 2026-11-18 16:36:40 Asia/Kolkata."
    )
    resolved = AlarmState("EV-1", State.RESOLVED, None, T, None, None, T, "U2", None, T)
    assert "at 2026-11-18 16:36:40 Asia/Kolkata." in unchanged_text(resolved, "already resolved", ctx, "U1")
    # /sam alarms: each alarm in its organization's zone; the freshness in that of the one asked about.
    rows = recent_alarms(ctx.db(), AlarmFilter())
    blocks = alarms_blocks(rows, "since 1 h ago", len(rows), None, T, ctx.config.notify.zone_for, 1001).blocks
    assert "2026-11-18 16:36 Asia/Kolkata" in json.dumps(blocks_to_dicts(blocks))


def test_a_panels_activities_are_in_its_organizations_zone() -> None:
    alarm = Activity.model_validate({"eventId": "E1", "eventType": "violation", "violationType": "alarm",
                                     "activityTime": T})  # fmt: skip
    status = PanelStatus(1, "P", "M", "B", True, 1001, {}, [], [], [alarm], 1, T)
    shown = json.dumps(blocks_to_dicts(panel_blocks(status, zone_for(1001)).blocks))
    assert (
        "2026-11-18 16:36 Asia/Kolkata" in shown
        and "Live from the service at 2026-11-18 16:36 Asia/Kolkata" in shown
    )


def test_privilege_windows_are_on_the_organizations_clock_as_who_can_reads_them() -> None:
    midnight_utc = T - T % 86_400_000
    priv = UserPrivileges.model_validate(
        {
            "userId": 9,
            "userPrivilegeValidity": {
                "accessibleDays": [{"dayOfWeek": 2, "start": 8 * 3_600_000, "end": 18 * 3_600_000}],
                "expiration": midnight_utc,
            },
            "userPrivilegeGroups": [],
        }
    )
    message = privileges_blocks(9, priv, BERLIN)
    text, blocks = message.text, message.blocks
    assert "Tue 08:00–18:00 (Europe/Berlin)" in text  # ms after the organization's midnight
    assert "expires 2026-11-18 01:00 Europe/Berlin" in text
    assert "*Access windows* (Europe/Berlin)" in json.dumps(blocks_to_dicts(blocks))
    # An epoch-ms bound: its time of day in the organization's zone, the same reading as who-can's.
    bound = midnight_utc + 9 * 3_600_000  # 09:00 UTC, 10:00 in Berlin
    assert time_of_day(bound, BERLIN) == 10 * 3_600_000
    assert window_words(3, bound, None, BERLIN) == "Wed 10:00–?"


def test_an_audit_row_is_in_its_organizations_zone() -> None:
    entry = AuditEntry(1, T, "U1", "alarm ack EV-1", 1001, "ok", "acknowledged", "ref-1")
    assert "`2026-11-18 16:36 Asia/Kolkata`" in audit_line(entry, zone_for(entry.org_id))


def test_the_grant_form_reads_and_says_its_dates_on_the_organizations_clock() -> None:
    """Who-can reads a window's hours and a validity date on the organization's clock: the form that
    writes them says that clock, and reads its dates there (it said UTC)."""
    from bot.forms.access import grant_from_values
    from bot.payloads import AccessMeta, PayloadError, read_json
    from bot.render.access import PrivilegeGroup, grant_modal

    values = {"panels": ["1001"], "validity_start": "2026-12-01", "expiry": "2026-12-31", "days": ["1"],
              "window_start": "08:00", "window_end": "18:00"}  # fmt: skip
    grant, errors = grant_from_values(values, [1], BERLIN)
    assert errors == {} and grant is not None
    assert grant.validity_start == 1_796_079_600_000  # 2026-12-01 00:00 in Berlin (23:00 UTC the day before)
    assert grant.period[0]["start"] == 8 * 3_600_000  # hours after the organization's midnight
    assert grant.period_words() == "from 2026-12-01, until 2026-12-31, days 1 08:00-18:00 (Europe/Berlin)"
    view = json.dumps(grant_modal(9, "Ana", [PrivilegeGroup(1, "Doors", False)], [], {}, BERLIN).to_dict())
    assert "Dates and times are the organization's: Europe/Berlin." in view and "UTC" not in view
    meta = '{"user": 9, "org": 1001, "groups": [1], "tz": "Europe/Berlin"}'
    assert read_json(AccessMeta, meta, "This form").tz == "Europe/Berlin"
    with pytest.raises(PayloadError):
        read_json(AccessMeta, meta.replace("Europe/Berlin", "../../etc/passwd"), "This form")


def test_a_handover_digest_is_in_its_organizations_zone() -> None:
    from bot.render.quiet import handover_digest
    from core.read.handover import Handover

    digest = Handover(since=T, until=T + 3_600_000, org_id=1001, alarms_received=1, noisiest=(),
                      cameras_offline=(), quiet=())  # fmt: skip
    shown = json.dumps(handover_digest(digest, zone_for(1001), T + 3_600_000).blocks)
    assert "2026-11-18 16:36:40 Asia/Kolkata" in shown and "2026-11-18 17:36:40 Asia/Kolkata" in shown


def test_where_the_config_names_no_zone_the_bot_reads_the_users_zone_as_the_dashboard(tmp_path: Path) -> None:
    """One zone in one alarm's flow without a `[notify] timezone` too: the bot (and the notifier) fall back to
    the zone most of the organization's cached users have, as the dashboard's default does."""
    from bot.context import build_context
    from core.cache import writes
    from core.read import users_zone
    from core.settings import Settings

    settings = Settings(data_dir=tmp_path, config_path=tmp_path / "absent.toml")
    ctx = build_context(settings, parse_config({"notify": {"timezones": {"1002": "Europe/Berlin"}}}))
    assert ctx.config.notify.zone_for(1001) == UTC  # nothing cached yet
    db = open_cache(ctx.db_path)
    with write_transaction(db):
        writes.upsert_dicts(db, "users", [writes.user_row({"userId": 7, "timeZoneId": "Asia/Kolkata"}, 1001)],
                            "user_id")  # fmt: skip
    fresh = build_context(settings, parse_config({"notify": {"timezones": {"1002": "Europe/Berlin"}}}))
    assert fresh.config.notify.zone_for(1001) == KOLKATA == ZoneInfo(users_zone(fresh.db(), 1001) or "")
    assert fresh.config.notify.zone_for(1002) == BERLIN  # the config's own entry first
    named = build_context(settings, parse_config({"notify": {"timezone": "UTC"}}))
    assert named.config.notify.zone_for(1001) == UTC  # a zone the file sets wins over the users'


NEW_YORK, ISTANBUL = ZoneInfo("America/New_York"), ZoneInfo("Europe/Istanbul")


def trial_zone_for(org: int | None) -> ZoneInfo:
    """The new-user trial: 1001 in the config's New York, every other (and the default) Istanbul's users."""
    return NEW_YORK if org == 1001 else ISTANBUL


def test_one_name_for_one_zone_everywhere() -> None:
    """Cards said `EST`, who-can and the privilege windows `America/New_York`: one rule, the IANA name."""
    assert local(T, NEW_YORK, seconds=True) == "2026-11-18 06:06:40 America/New_York"
    assert local(T, ISTANBUL) == "2026-11-18 14:06 Europe/Istanbul"
    assert local(T, ZoneInfo("UTC")) == local(T) == "2026-11-18 11:06 UTC"


def test_privileges_without_org_are_on_the_clock_of_the_groups_organization() -> None:
    """`/sam privileges 7101` (no org:) read the windows in the default zone though its groups are scoped to
    1001: now on 1001's clock, as `/sam privileges 7101 org:1001` and who-can read them."""
    from bot.commands.privileges import windows_org

    priv = UserPrivileges.model_validate(
        {
            "userId": 7101,
            "userPrivilegeValidity": {"accessibleDays": [{"dayOfWeek": 1, "start": 0, "end": 3_600_000}]},
            "userPrivilegeGroups": [
                {"id": 1, "privilegeGroupId": 5, "authority": True, "scopePk": 1001},
                {"id": 2, "privilegeGroupId": 6, "authority": False, "scopePk": 1001},
            ],
        }
    )
    assert windows_org(None, priv) == 1001
    assert windows_org(1002, priv) == 1002  # the one asked about
    assert windows_org(None, UserPrivileges.model_validate({"userId": 1})) is None
    text = privileges_blocks(7101, priv, trial_zone_for(windows_org(None, priv))).text
    assert "(America/New_York)" in text and "Istanbul" not in text


def test_an_all_organizations_handover_shows_each_alarm_in_its_organizations_zone() -> None:
    """`/sam handover` over every organization listed 1001's alarm in Istanbul's time while its card said New
    York's; the shift's span stays in the default zone, named, and says each alarm is in its own."""
    from bot.render.quiet import handover_digest
    from core.read.handover import Handover, HeldAlarm, Lifecycle

    held = (HeldAlarm("EV-1", "open", None, None, T, 777, "Depot", "Burglary alarm", org_id=1001),
            HeldAlarm("EV-2", "open", None, None, T, 778, "Shop", "Fire alarm", org_id=1002))  # fmt: skip
    digest = Handover(since=T - 3_600_000, until=T + 3_600_000, org_id=None, alarms_received=2, noisiest=(),
                      cameras_offline=(), quiet=(), lifecycle=Lifecycle(held=held, held_count=2))  # fmt: skip
    message = handover_digest(digest, trial_zone_for(None), T + 3_600_000, trial_zone_for)
    shown = json.dumps(message.blocks)
    assert "2026-11-18 06:06:40 America/New_York Burglary alarm on Depot" in shown
    assert "2026-11-18 14:06:40 Europe/Istanbul Fire alarm on Shop" in shown
    assert "2026-11-18 13:06:40 Europe/Istanbul – 2026-11-18 15:06:40 Europe/Istanbul" in message.text
    assert "each alarm in its organization's zone" in shown
