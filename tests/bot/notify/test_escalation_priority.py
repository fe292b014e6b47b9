"""Escalation per priority ([notify.escalation.P1]): an open alarm of that priority escalates in whatever
channel its card is, unless its route sets an escalation of its own (the route's wins, in its channel);
an alarm of a priority without one does not escalate. Through the Slack stand-in, with a fake clock."""

from __future__ import annotations

import time
from pathlib import Path

from core.clock import MINUTE_MS
from core.read import card_of_alarm
from tests.bot.notify.support import FakeClock, add_alarms, alarm_cards, cache, settle
from tests.bot.notify.test_overdue import priority_notifier
from tests.support.slack_standin import SlackStandIn


def escalations(slack: SlackStandIn) -> list[tuple[str, str]]:
    return [
        (str(c.params["thread_ts"]), str(c.params["text"]))
        for c in slack.calls_to("chat.postMessage")
        if "Escalation level" in str(c.params.get("text") or "")
    ]


def test_escalation_by_priority_and_the_route_winning(tmp_path: Path) -> None:
    db = cache(tmp_path)
    clock = FakeClock(int(time.time() * 1000))
    notify = {
        "routes": [{"channel": "C_FIRE", "panels": [101], "escalate_after": 10, "escalate_to": "S0FIRE"}],
        "escalation": {"P1": {"escalate_after": [5], "escalate_to": ["S0LEAD"]}},
    }
    with SlackStandIn() as slack:
        n = priority_notifier(db, slack, clock, notify_extra=notify)
        start = int(time.time() * 1000) + 1
        [routed] = add_alarms(db, 101, start)  # P1, its route escalates at 10 min
        [p1] = add_alarms(db, 102, start)  # P1, the default channel: the priority's escalation
        [p3] = add_alarms(db, 201, start, kind="warning")  # P3: none
        settle(n, lambda: len(alarm_cards(slack)) == 3)

        clock.now = start + 5 * MINUTE_MS - 1
        n.cycle()
        assert escalations(slack) == []
        clock.now = start + 5 * MINUTE_MS
        time.sleep(0.05)
        n.escalate()
        [(thread, text)] = escalations(slack)
        card = card_of_alarm(db, p1)
        assert card is not None and thread == card.ts and "<!subteam^S0LEAD>" in text

        clock.now = start + 10 * MINUTE_MS
        time.sleep(0.05)
        n.escalate()
        time.sleep(0.05)
        n.escalate()
        texts = escalations(slack)
        assert len(texts) == 2 and "<!subteam^S0FIRE>" in texts[1][1]
        card = card_of_alarm(db, routed)
        assert card is not None and texts[1][0] == card.ts
        card = card_of_alarm(db, p3)
        assert card is not None and card.ts not in {t for t, _ in texts}
