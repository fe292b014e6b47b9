"""Priorities through the running bot (signed requests, the Slack stand-in): the App Home lists a person's
open alarms by priority then oldest first, the TOML's [[priorities]] rules winning over the violationType's
defaults, and marks those open past their SLA overdue."""

from __future__ import annotations

import re
import time
from pathlib import Path

from core import lifecycle
from core.cache.db import open_cache
from core.cache.writes import upsert_activities, upsert_dicts, write_transaction
from core.clock import MINUTE_MS
from tests.support.bot import blocks_text, run_bot
from tests.support.slack_standin import SlackStandIn

CONFIG = """
[roles]
technicians = ["U_TECH"]

[[priorities]]
priority = "P4"
violation_name = "*TEST*"

[[priorities]]
priority = "P1"
violation_name = ["*fire*", "*smoke*"]
violation_types = ["warning"]

[sla]
P3 = "10m"
"""


def add_alarms(db_path: Path, alarms: list[tuple[str, str, str, int]]) -> None:
    """(event id, violationName, violationType, minutes ago): posted to C_ALARMS, open."""
    now = int(time.time() * 1000)
    db = open_cache(db_path)
    with write_transaction(db):
        upsert_dicts(db, "panels", [{"resource_id": 777, "org_id": 1001, "name": "Depot"}], "resource_id")
        upsert_dicts(db, "sync_state", [{"table_name": "activities", "last_success": now}], "table_name")
        for number, (event_id, name, kind, ago) in enumerate(alarms, 1):
            at = now - ago * MINUTE_MS
            row = (event_id, 777, 1001, at, f"{name} on Depot - Door", "violation", name, kind, 2, 1, 1)
            upsert_activities(db, "activities", [row])
            db.execute(
                "INSERT INTO notify_outbox (event_id, channel, state, ts, posted_at, attempts)"
                " VALUES (?, 'C_ALARMS', 'posted', ?, ?, 0)",
                [event_id, f"{at // 1000}.{number:06d}", at],
            )
            lifecycle.open_alarms(db, [(event_id, at)], at)
    db.close()


def test_the_home_lists_open_alarms_by_priority_then_age(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    add_alarms(
        db_path,
        [
            ("EV-GRAY", "Low battery", "gray", 50),  # default P4
            ("EV-YELLOW-OLD", "Door held", "yellow", 20),  # default P3, past its 10 min
            ("EV-TEST", "Line test", "alarm", 40),  # rule: P4 (a default P1)
            ("EV-FIRE", "Fire in kitchen", "warning", 1),  # rule: P1 (a default P3), within 2 min
            ("EV-BURGLARY", "Burglary", "alarm", 5),  # default P1, past 2 min
            ("EV-YELLOW-NEW", "Door held", "yellow", 3),  # default P3, within
            ("EV-RED", "Zone fault", "red", 1),  # default P2
        ],
    )
    members = {"U_TECH": ["C_ALARMS"]}
    with (
        SlackStandIn(users=dict.fromkeys(members), memberships=members) as slack,
        run_bot(tmp_path, slack, db_path=db_path, config=CONFIG) as bot,
    ):
        event = {"type": "app_home_opened", "user": "U_TECH", "channel": "D1", "tab": "home"}
        assert bot.send_event(event).status_code == 200
        [view] = slack.wait_for(lambda: [v for v in slack.home_views("U_TECH") if "EV-RED" in str(v)])
    text = blocks_text(view["blocks"])
    listed = re.findall(r"\*(P\d)\* · \*open\*( · :alarm_clock: \*overdue\*)? · `(EV-[A-Z-]+)`", text)
    assert [(event_id, priority, bool(overdue)) for priority, overdue, event_id in listed] == [
        ("EV-BURGLARY", "P1", True),
        ("EV-FIRE", "P1", False),
        ("EV-RED", "P2", False),
        ("EV-YELLOW-OLD", "P3", True),
        ("EV-YELLOW-NEW", "P3", False),
        ("EV-GRAY", "P4", False),
        ("EV-TEST", "P4", False),
    ]
