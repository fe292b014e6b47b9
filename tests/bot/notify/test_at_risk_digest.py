"""The at-risk digest: posted at its time in the organization's zone, once per period even across a restart
(a fake clock moves the notifier; the cache is real, Slack is the stand-in), with what the cache holds; a
bad `at_risk` entry is refused naming its field."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import dispositions, tiers
from core.bills import bill_row
from core.cache.bills import replace_bills
from core.cache.panel_access import replace_panel_access
from core.cache.writes import upsert_dicts, write_transaction
from core.clock import DAY_MS, HOUR_MS
from core.config import AtRiskDigest, NotifyConfigError, parse_notify
from core.models import Bill
from tests.bot.notify.support import FakeClock, add_alarms, cache, notifier, posts, settle
from tests.support.slack_standin import SlackStandIn

BERLIN = ZoneInfo("Europe/Berlin")
CONFIG = {
    "timezones": {"1001": "Europe/Berlin"},
    "channels": {"C_RISK": {"at_risk": {}, "org": 1001}},  # weekly by default: Mondays 08:00
}


def berlin(text: str) -> int:
    return int(datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=BERLIN).timestamp() * 1000)


def seed(db: object, now: int) -> None:
    bills = [
        Bill.model_validate(b)
        for b in (
            {"id": "1", "billNo": "INV-LATE", "paymentDueDate": "2026-11-01T00:00:00Z", "state": "paid"},
            {"id": "2", "billNo": "INV-PAID", "paymentDueDate": "2026-11-01T00:00:00Z",
             "paymentDate": "2026-11-02T00:00:00Z", "state": "paid"},
            {"id": "3", "billNo": "INV-NOT-YET", "paymentDueDate": "2026-12-31T00:00:00Z", "state": "paid"},
        )
    ]  # fmt: skip
    soon, later = now + 2 * DAY_MS, now + 9 * DAY_MS
    access = [
        {"resource_id": 101, "user_id": u, "org_id": 1001, "name": name, "groups": "[]", "fetched_at": now,
         "validity": json.dumps({"start": 0, "expiration": exp, "windows": [], "unusable": 0})}
        for u, name, exp in ((1, "Ana Soon", soon), (2, "Ben Later", later), (3, "Cem Never", 0))
    ]  # fmt: skip
    with write_transaction(db):  # type: ignore[arg-type]
        replace_bills(db, 501, [bill_row(b, 501, 1001, now) for b in bills])  # type: ignore[arg-type]
        replace_panel_access(db, 1001, None, access)  # type: ignore[arg-type]
        # The panel's subscription, as the login lists it, read by core/bills.py at `now`.
        panel = {"resource_id": 101, "raw": json.dumps({"resourceSubscriptionId": 501})}
        upsert_dicts(db, "panels", [panel], "resource_id")  # type: ignore[arg-type]
        tiers.mark_refreshed(db, "bills", [501], now)  # type: ignore[arg-type]
    add_alarms(db, 101, now - DAY_MS, 3)
    add_alarms(db, 102, now - DAY_MS, 1)


def test_posted_weekly_at_its_time_once_even_across_a_restart(tmp_path: Path) -> None:
    db = cache(tmp_path)
    seed(db, berlin("2026-11-23 07:00"))  # 2026-11-23 is a Monday
    clock = FakeClock(berlin("2026-11-23 07:58"))
    with SlackStandIn() as slack:
        n = notifier(db, slack, clock, **CONFIG)
        settle(n, lambda: True)
        assert posts(slack, "C_RISK") == []  # last Monday's passed before the notifier watched: not caught up
        clock.now = berlin("2026-11-23 08:00")
        settle(n, lambda: posts(slack, "C_RISK"))
        [digest] = posts(slack, "C_RISK")
        assert "At risk" in digest and "Organization 1001" in digest
        assert (
            "Authorizations expiring within 7 days: 1" in digest and "Ana Soon on Warehouse (101)" in digest
        )
        assert "Ben Later" not in digest and "Cem Never" not in digest
        assert "Overdue bills: 1" in digest and "INV-LATE" in digest and "INV-PAID" not in digest
        assert "due 2026-11-01" in digest  # a date, with no time of day: it read 01:00 Europe/Berlin
        assert "due 2026-11-01 01:00" not in digest
        assert "Warehouse (101): 3 alarms" in digest and "bills read 1 h ago" in digest

        clock.now = berlin("2026-11-24 09:00")  # a day later, restarted: nothing again this week
        restarted = notifier(db, slack, clock, **CONFIG)
        settle(restarted, lambda: True)
        assert len(posts(slack, "C_RISK")) == 1
        keys = [r[0] for r in db.execute("SELECT key FROM bot_dedupe WHERE key LIKE 'at-risk:%'")]
        assert keys == ["at-risk:C_RISK:2026-11-23T08:00"]

        clock.now = berlin("2026-11-30 08:00") + HOUR_MS  # next Monday, an hour late: once
        settle(restarted, lambda: len(posts(slack, "C_RISK")) == 2)
        settle(restarted, lambda: True)
        assert len(posts(slack, "C_RISK")) == 2


def test_a_daily_digest_at_its_own_time(tmp_path: Path) -> None:
    db = cache(tmp_path)
    clock = FakeClock(berlin("2026-11-25 07:00"))
    config = {**CONFIG, "channels": {"C_RISK": {"at_risk": {"every": "daily", "at": "07:30"}, "org": 1001}}}
    with SlackStandIn() as slack:
        n = notifier(db, slack, clock, **config)
        settle(n, lambda: True)
        clock.now = berlin("2026-11-25 07:30")
        settle(n, lambda: posts(slack, "C_RISK"))
        clock.now = berlin("2026-11-26 07:29")
        settle(n, lambda: True)
        assert len(posts(slack, "C_RISK")) == 1
        clock.now = berlin("2026-11-26 07:30")
        settle(n, lambda: len(posts(slack, "C_RISK")) == 2)


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({"every": "monthly"}, "notify.channels.C_RISK.at_risk.every"),
        ({"day": "someday"}, "notify.channels.C_RISK.at_risk.day"),
        ({"at": "25:00"}, "notify.channels.C_RISK.at_risk.at"),
        ({"when": "08:00"}, "notify.channels.C_RISK.at_risk.when"),
    ],
)
def test_a_bad_entry_is_refused_naming_its_field(entry: dict[str, str], field: str) -> None:
    with pytest.raises(NotifyConfigError) as refused:
        parse_notify({"channels": {"C_RISK": {"at_risk": entry}}})
    assert field in str(refused.value)


@given(
    now=st.integers(min_value=1_700_000_000_000, max_value=2_000_000_000_000),
    day=st.sampled_from(["mon", "tue", "wed", "thu", "fri", "sat", "sun"]),
    at=st.sampled_from(["00:00", "02:30", "08:00", "23:59"]),
    zone=st.sampled_from(["Europe/Berlin", "America/New_York", "Asia/Kolkata", "UTC"]),
)
def test_the_latest_digest_time_is_the_one_just_before_now(now: int, day: str, at: str, zone: str) -> None:
    tz = ZoneInfo(zone)
    weekly = AtRiskDigest(day=day, at=at).latest_due(now, tz)
    assert now - 7 * DAY_MS - HOUR_MS < weekly <= now  # an hour's leeway: a DST change in the week
    assert datetime.fromtimestamp(weekly / 1000, tz).strftime("%a").lower() == day
    daily = AtRiskDigest(every="daily", at=at).latest_due(now, tz)
    assert now - DAY_MS - HOUR_MS < daily <= now


def test_once_dispositions_say_false_the_digest_ranks_panels_by_false_alarms(tmp_path: Path) -> None:
    db = cache(tmp_path)
    now = berlin("2026-11-23 07:00")
    noisy = add_alarms(db, 101, now - DAY_MS, 4)  # the most alarms, none false
    false = add_alarms(db, 102, now - DAY_MS, 2)  # fewer alarms, both resolved as false
    for event_id in false:
        with write_transaction(db):
            dispositions.resolve(
                db, event_id, dispositions.DEFAULTS[0], "U_TECH", now - HOUR_MS, opened_at=now
            )
    assert noisy
    clock = FakeClock(berlin("2026-11-23 07:58"))
    with SlackStandIn() as slack:
        n = notifier(db, slack, clock, **CONFIG)
        settle(n, lambda: True)
        clock.now = berlin("2026-11-23 08:00")
        settle(n, lambda: posts(slack, "C_RISK"))
        [digest] = posts(slack, "C_RISK")
    assert "Most false alarms this week" in digest and "Office (102): 2 false alarms" in digest
    assert "Warehouse (101)" not in digest.split("Most false alarms this week", 1)[1].split("Cameras down")[0]
