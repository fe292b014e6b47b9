"""The card's priority through the running bot with signed requests: a click that redraws the card (the one
`bot/cards.py` refresh) draws the priority the TOML's [[priorities]] rule gives, with its SLA; acknowledged,
the card says nothing of being overdue."""

from __future__ import annotations

from pathlib import Path

from tests.bot.actions.test_lifecycle import CARD_TS, click, seed, send, updates
from tests.support.bot import run_bot
from tests.support.slack_standin import SlackStandIn

CONFIG = """
[roles]
technicians = ["U_TECH"]

[[priorities]]
priority = "P2"
violation_name = "burglary*"
panels = [777]

[sla]
P2 = "90s"
"""


def test_a_redrawn_card_shows_the_priority_of_the_rule(tmp_path: Path) -> None:
    db_path = tmp_path / "cache.db"
    seed(db_path, ["EV-PRIO-1"])  # "Burglary alarm", violationType alarm: P1 by default, P2 by the rule
    with SlackStandIn() as slack, run_bot(tmp_path, slack, db_path=db_path, config=CONFIG) as bot:
        send(bot, click(slack, "alarm_ack", "EV-PRIO-1", "U_TECH", "ack"))
        [text] = slack.wait_for(lambda: updates(slack, CARD_TS))
    assert "Priority" in text and "P2 · ack within 90 s" in text
    assert "Overdue" not in text and "Acknowledged" in text
