"""Personal paging (docs/paging.md): direct messages with the card's buttons to escalation targets (users and
user groups' members), to whoever took an alarm of an escalating card, and to those who opted in; quiet hours
in the person's own zone; nothing after an acknowledgement; none twice, across a restart. A notifier on real
SQLite files and the Slack stand-in, with a fake clock."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from core import cache as records
from core import lifecycle, timefmt
from core.clock import MINUTE_MS
from core.lifecycle import Change
from core.paging import PagePrefs
from core.priorities import Priority
from core.read import card_of_alarm
from core.windows import parse_clock
from tests.bot.notify.support import FakeClock, add_alarms, alarm_cards, cache, settle
from tests.bot.notify.test_overdue import priority_notifier
from tests.support.slack_standin import SlackStandIn

ESCALATION = {
    "escalation": {"P1": {"escalate_after": [5, 10], "escalate_to": [["S0FIRE"], ["U0LEAD", "C0OPS"]]}}
}


def dms(slack: SlackStandIn) -> list[tuple[str, str]]:
    """(person, text) of every direct message: a chat.postMessage whose channel is a user id."""
    return [
        (str(c.params["channel"]), str(c.params.get("text") or ""))
        for c in slack.calls_to("chat.postMessage")
        if str(c.params.get("channel") or "")[:1] in {"U", "W"}
    ]


def buttons(call_params: dict[str, Any]) -> set[str]:
    return {
        str(e.get("action_id"))
        for a in call_params.get("attachments") or []
        for b in a.get("blocks") or []
        for e in b.get("elements") or []
        if e.get("type") == "button"
    }


def at_local(zone: str, hour: int, minute: int = 0) -> int:
    """A time today at hour:minute in `zone`, in ms."""
    today = datetime.now(ZoneInfo(zone)).replace(hour=hour, minute=minute, second=0, microsecond=0)
    return int(today.astimezone(UTC).timestamp() * 1000)


def test_escalation_targets_get_a_dm_per_level_once_and_none_after_an_acknowledgement(tmp_path: Path) -> None:
    db = cache(tmp_path)
    clock = FakeClock(int(time.time() * 1000))
    with SlackStandIn(usergroups={"S0FIRE": ["U0ANNA", "U0BEN"]}) as slack:
        n = priority_notifier(db, slack, clock, notify_extra=ESCALATION)
        start = clock.now = int(time.time() * 1000) + 1
        [p1] = add_alarms(db, 101, start + 1)
        [other] = add_alarms(db, 102, start + 2)
        settle(n, lambda: len(set(alarm_cards(slack))) == 2)  # DMs carry the buttons too
        assert dms(slack) == []

        clock.now = start + 5 * MINUTE_MS + 10
        # A person's second page waits its DM's pacing slot (one conversation): a later cycle sends it.
        settle(n, lambda: len(dms(slack)) >= 4)
        time.sleep(0.05)
        n.cycle()  # another look sends nothing twice
        level1 = dms(slack)
        assert sorted(u for u, _ in level1) == [
            "U0ANNA",
            "U0ANNA",
            "U0BEN",
            "U0BEN",
        ]  # two alarms, two people
        assert all("Escalation level 1" in t for _, t in level1)
        first = slack.calls_to("chat.postMessage")[-1].params
        assert {"alarm_ack", "alarm_take"} <= buttons(first)  # the card's buttons

        # `other` is acknowledged: nobody is paged about it any more.
        lifecycle.apply(db, other, Change.ACKNOWLEDGED, "U0ANNA", clock.now, opened_at=start + 2)
        clock.now = start + 10 * MINUTE_MS + 10
        settle(n, lambda: len(dms(slack)) > len(level1))
        time.sleep(0.05)
        n.cycle()
        level2 = dms(slack)[len(level1) :]
        assert [u for u, _ in level2] == ["U0LEAD"]  # a user target; a channel target is no person
        assert "Escalation level 2" in level2[0][1]
        assert [(u, lvl) for u, lvl, _ in records.pages_sent(db, p1)] == [
            ("U0ANNA", 1), ("U0BEN", 1), ("U0LEAD", 2)
        ]  # fmt: skip
        assert records.pages_sent(db, other) and all(lvl == 1 for _, lvl, _ in records.pages_sent(db, other))
        audited = [e for e in records.recent_audit(db, 50) if e.command.startswith("page ")]
        assert len(audited) == 5

        # A restart: a new notifier over the same files sends no page twice.
        before = len(dms(slack))
        n2 = priority_notifier(db, slack, clock, notify_extra=ESCALATION)
        n2.cycle()
        n2.cycle()
        assert len(dms(slack)) == before


def late_evening_zone() -> str:
    """A fixed-offset zone where it is 23:xx now, never UTC itself (Etc/GMT-N is UTC+N)."""
    offset = (23 - datetime.now(UTC).hour) % 24
    offset = offset - 24 if offset > 14 else offset
    offset = offset or -1  # 23:xx UTC: a zone an hour behind is 22:xx, still in quiet hours
    return f"Etc/GMT{-offset:+d}"


def test_quiet_hours_across_midnight_in_the_persons_zone(tmp_path: Path) -> None:
    """Quiet hours 22:00-07:00 in the person's zone, where it is late evening (in UTC it may be any time):
    the P1 pages them (opted in, and its escalation), the P3's escalation waits until 07:00 there the next
    morning and then goes out, the alarm being still open."""
    db = cache(tmp_path)
    zone = late_evening_zone()
    clock = FakeClock(int(time.time() * 1000))
    notify = {
        "escalation": {
            "P1": {"escalate_after": [1], "escalate_to": ["U0NIGHT"]},
            "P3": {"escalate_after": [1], "escalate_to": ["U0NIGHT"]},
        }
    }
    with SlackStandIn() as slack:
        n = priority_notifier(db, slack, clock, notify_extra=notify)
        start = clock.now = int(time.time() * 1000) + 1
        quiet = PagePrefs(
            "U0NIGHT", True, (Priority.P1, Priority.P3), parse_clock("22:00"), parse_clock("07:00"), zone
        )
        records.set_page_prefs(db, quiet, start)
        assert quiet.in_quiet_hours(start)
        in_utc = PagePrefs("U0NIGHT", quiet_from=quiet.quiet_from, quiet_to=quiet.quiet_to, zone="UTC")
        assert in_utc.in_quiet_hours(start) == (not 7 <= datetime.now(UTC).hour < 22)  # the zone decides
        [p1] = add_alarms(db, 101, start)  # P1 ("alarm")
        [p3] = add_alarms(db, 201, start, kind="warning")  # P3
        settle(n, lambda: len(set(alarm_cards(slack))) == 2)  # DMs carry the buttons too
        assert [lvl for _, lvl, _ in records.pages_sent(db, p1)] == [0]  # opted in to P1: paged at night
        # The page is theirs alone: its card on their clock (the organization's is UTC here), named.
        posted = slack.calls_to("chat.postMessage")
        [page] = [c.params for c in posted if c.params.get("channel") == "U0NIGHT"]
        assert timefmt.local(start, ZoneInfo(zone), seconds=True) in json.dumps(page["attachments"])
        assert records.pages_sent(db, p3) == []  # opted in to P3 too, but it is quiet hours

        clock.now = start + 2 * MINUTE_MS
        settle(n, lambda: len(records.pages_sent(db, p1)) == 2)  # pacing may defer a post a cycle
        assert [lvl for _, lvl, _ in records.pages_sent(db, p1)] == [0, 1]
        assert records.pages_sent(db, p3) == []  # its escalation waits

        local = datetime.fromtimestamp(start / 1000, ZoneInfo(zone))
        morning = (local + timedelta(days=1)).replace(hour=7, minute=0, second=0, microsecond=0)
        clock.now = int(morning.timestamp() * 1000) - 60_000  # 06:59 the next morning: still quiet
        n.cycle()
        assert records.pages_sent(db, p3) == []
        clock.now = int(morning.timestamp() * 1000)
        settle(n, lambda: records.pages_sent(db, p3))
        assert [(u, lvl) for u, lvl, _ in records.pages_sent(db, p3)] == [("U0NIGHT", 1)]
        assert all(u == "U0NIGHT" for u, _ in dms(slack)) and len(dms(slack)) == 3


def test_the_taker_gets_the_escalations_and_nothing_once_it_is_acknowledged(tmp_path: Path) -> None:
    """Taking ("I'm on it") assigns the alarm; it stays open and escalates, and its taker is paged at each
    level beside the targets, until someone acknowledges it (issue 24's Done-when)."""
    db = cache(tmp_path)
    clock = FakeClock(int(time.time() * 1000))
    notify = {"escalation": {"P1": {"escalate_after": [5, 10], "escalate_to": [["U0LEAD"], ["U0BOSS"]]}}}
    with SlackStandIn() as slack:
        n = priority_notifier(db, slack, clock, notify_extra=notify)
        start = clock.now = int(time.time() * 1000) + 1
        [alarm] = add_alarms(db, 101, start)
        settle(n, lambda: alarm in alarm_cards(slack))
        lifecycle.apply(db, alarm, Change.ASSIGNED, "U0TAKER", clock.now, opened_at=start)

        clock.now = start + 5 * MINUTE_MS + 10
        settle(n, lambda: len(records.pages_sent(db, alarm)) >= 2)
        time.sleep(0.05)
        n.cycle()
        assert sorted(records.pages_sent(db, alarm)) == [("U0LEAD", 1, "target"), ("U0TAKER", 1, "taken")]
        [taker] = [t for u, t in dms(slack) if u == "U0TAKER"]
        assert "Escalation level 1" in taker and "you took it" in taker and "Acknowledge" in taker

        # The taker acknowledges it: nobody, the taker included, is paged about it any more.
        lifecycle.apply(db, alarm, Change.ACKNOWLEDGED, "U0TAKER", clock.now, opened_at=start)
        clock.now = start + 20 * MINUTE_MS
        before = len(dms(slack))
        for _ in range(3):
            time.sleep(0.05)
            n.cycle()
        assert len(dms(slack)) == before
        assert all(level == 1 for _, level, _ in records.pages_sent(db, alarm))


def test_a_late_taker_is_paged_from_the_next_level_on(tmp_path: Path) -> None:
    """Someone who takes an alarm after its level 1 has escalated is not paged "level 1 … you took it" for a
    level already passed (issue 33): their first page is level 2's."""
    db = cache(tmp_path)
    clock = FakeClock(int(time.time() * 1000))
    notify = {"escalation": {"P1": {"escalate_after": [5, 10], "escalate_to": [["U0LEAD"], ["U0BOSS"]]}}}
    with SlackStandIn() as slack:
        n = priority_notifier(db, slack, clock, notify_extra=notify)
        start = clock.now = int(time.time() * 1000) + 1
        [alarm] = add_alarms(db, 101, start)
        settle(n, lambda: alarm in alarm_cards(slack))
        clock.now = start + 5 * MINUTE_MS + 10
        settle(n, lambda: ("U0LEAD", 1, "target") in records.pages_sent(db, alarm))

        clock.now += 60_000  # a minute after level 1, U0LATE takes it
        lifecycle.apply(db, alarm, Change.ASSIGNED, "U0LATE", clock.now, opened_at=start)
        for _ in range(3):
            time.sleep(0.05)
            n.cycle()
        assert [u for u, _ in dms(slack)] == ["U0LEAD"]  # nothing about the level passed before the take

        clock.now = start + 10 * MINUTE_MS + 10
        settle(n, lambda: len(records.pages_sent(db, alarm)) >= 3)
        time.sleep(0.05)
        n.cycle()
        assert sorted(records.pages_sent(db, alarm)) == [
            ("U0BOSS", 2, "target"), ("U0LATE", 2, "taken"), ("U0LEAD", 1, "target")
        ]  # fmt: skip
        [late] = [t for u, t in dms(slack) if u == "U0LATE"]
        assert "Escalation level 2" in late and "you took it" in late


# Every alarm after a panel's first on a storm card; P1 escalates to U0LEAD after 5 minutes.
STORM_P1_TO_LEAD = {
    "storm": {"posts_per_second": 100, "threshold": 1},
    "escalation": {"P1": {"escalate_after": [5], "escalate_to": ["U0LEAD"]}},
}


def test_the_taker_of_an_alarm_of_an_escalating_storm_card_is_paged(tmp_path: Path) -> None:
    """A storm card's thread escalates for its alarms still open, taken or not, and is paged as one (keyed
    by its oldest open alarm); whoever took one of its alarms is paged with it, once per level."""
    db = cache(tmp_path)
    clock = FakeClock(int(time.time() * 1000))
    with SlackStandIn() as slack:
        n = priority_notifier(db, slack, clock, notify_extra=STORM_P1_TO_LEAD)
        start = clock.now = int(time.time() * 1000) + 1
        single, *grouped = add_alarms(db, 101, start, count=3)
        settle(n, lambda: single in alarm_cards(slack) and card_of_alarm(db, grouped[1]) is not None)
        card = card_of_alarm(db, grouped[0])
        assert card is not None and card_of_alarm(db, grouped[1]) == card  # one storm card for both
        lifecycle.apply(db, grouped[1], Change.ASSIGNED, "U0TAKER", clock.now, opened_at=start)

        clock.now = start + 5 * MINUTE_MS + 10
        # The channel's and each DM's pacing may defer a post to a later cycle.
        settle(n, lambda: len(records.pages_sent(db, grouped[0])) >= 2 and records.pages_sent(db, single))
        time.sleep(0.05)
        n.cycle()
        storm_pages = records.pages_sent(db, grouped[0])  # the thread's oldest open alarm
        assert sorted(storm_pages) == [("U0LEAD", 1, "target"), ("U0TAKER", 1, "taken")]
        assert records.pages_sent(db, grouped[1]) == []  # paged as one thread, not per alarm
        assert [u for u, _, _ in records.pages_sent(db, single)] == ["U0LEAD"]
        taker = [t for u, t in dms(slack) if u == "U0TAKER"]
        assert len(taker) == 1 and "you took an alarm of its card" in taker[0]


def test_a_page_about_a_card_of_several_alarms_carries_its_most_urgent(tmp_path: Path) -> None:
    """A storm card holding an older warning (P3) and a newer alarm (P1): the P1 made its thread escalate, so
    the page carries it and its buttons (an Acknowledge in the DM acknowledges the alarm that escalated)."""
    db = cache(tmp_path)
    clock = FakeClock(int(time.time() * 1000))
    with SlackStandIn() as slack:
        n = priority_notifier(db, slack, clock, notify_extra=STORM_P1_TO_LEAD)
        start = clock.now = int(time.time() * 1000) + 1
        first, warning = add_alarms(db, 101, start, count=2, kind="warning")
        [urgent] = add_alarms(db, 101, start + 10, kind="alarm")
        settle(n, lambda: first in alarm_cards(slack) and card_of_alarm(db, urgent) is not None)
        assert card_of_alarm(db, warning) == card_of_alarm(db, urgent)  # one storm card for both

        clock.now = start + 5 * MINUTE_MS + 20
        settle(n, lambda: records.pages_sent(db, urgent))
        assert records.pages_sent(db, urgent) == [("U0LEAD", 1, "target")]
        assert records.pages_sent(db, warning) == []
        [page] = [c.params for c in slack.calls_to("chat.postMessage") if c.params.get("channel") == "U0LEAD"]
        assert "2 alarms of one card" in page["text"] and "carries the most urgent" in page["text"]
        acks = {
            e["value"]
            for a in page["attachments"]
            for b in a["blocks"]
            for e in b.get("elements", [])
            if e.get("action_id") == "alarm_ack"
        }
        assert acks == {urgent}
