"""Personal paging (docs/paging.md): direct messages with the card's buttons to escalation targets (users and
user groups' members), to whoever took an alarm of an escalating card, and to those who opted in; quiet hours
in the person's own zone; nothing after an acknowledgement; none twice, across a restart. A notifier on real
SQLite files and the Slack stand-in, with a fake clock."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from core import cache as records
from core import lifecycle
from core.clock import MINUTE_MS
from core.lifecycle import Change
from core.paging import PagePrefs
from core.priorities import Priority
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
        settle(n, lambda: len(alarm_cards(slack)) == 2)
        assert dms(slack) == []

        clock.now = start + 5 * MINUTE_MS + 10
        n.cycle()
        n.cycle()  # a second look sends nothing twice
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
        n.cycle()
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


def test_quiet_hours_across_midnight_in_the_persons_zone(tmp_path: Path) -> None:
    """22:00-07:00 in Tokyo: at 23:30 Tokyo time (14:30 UTC, no quiet hour in UTC) only P1 pages; a P3 waits
    until 07:00 Tokyo time and then goes out, the alarm being still open."""
    db = cache(tmp_path)
    zone = "Asia/Tokyo"
    night = at_local(zone, 23, 30) - 24 * 3_600_000  # yesterday 23:30 Tokyo
    clock = FakeClock(night)
    prefs = PagePrefs(
        "U0NIGHT", True, (Priority.P1, Priority.P3), parse_clock("22:00"), parse_clock("07:00"), zone
    )
    records.set_page_prefs(db, prefs, night)
    with SlackStandIn() as slack:
        n = priority_notifier(db, slack, clock)
        [p1] = add_alarms(db, 101, night - 1000)  # P1 ("alarm")
        [p3] = add_alarms(db, 102, night - 1000, kind="warning")  # P3
        settle(n, lambda: len(alarm_cards(slack)) == 2)
        n.cycle()
        assert [u for u, _ in dms(slack)] == ["U0NIGHT"]
        assert [lvl for _, lvl, _ in records.pages_sent(db, p1)] == [0]
        assert records.pages_sent(db, p3) == []

        clock.now = at_local(zone, 6, 59)  # still quiet (after midnight in Tokyo)
        n.cycle()
        assert records.pages_sent(db, p3) == []
        clock.now = at_local(zone, 7, 0)
        n.cycle()
        assert records.pages_sent(db, p3) == []  # an hour past: no longer a new alarm (see docs/paging.md)
