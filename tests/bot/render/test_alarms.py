"""The alarm card's buttons: the lifecycle's, the panel's, and "Who can?" with the panel id as its value."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.render.alarms import DETAILS_FIT, alarm_card, storm_details
from bot.render.who_can import WHO_CAN_ACTION
from core.alarms import Alarm
from core.views import AlarmView


def card_actions(resource_id: int | None) -> dict[str, str | None]:
    alarm = Alarm("EV1", resource_id, 1001, 0, "Door forced", "ALARM", "Burglary", "BURGLARY", "Warehouse")
    card = alarm_card(AlarmView(alarm, ZoneInfo("UTC"), None, "http://127.0.0.1:8501"))
    [actions] = [b for b in card.attachments[0]["blocks"] if b["type"] == "actions"]
    return {e["action_id"]: e.get("value") for e in actions["elements"]}


def test_a_card_asks_who_can_operate_its_panel() -> None:
    assert card_actions(100101)[WHO_CAN_ACTION] == "100101"


def test_a_card_without_a_panel_has_no_who_can_button() -> None:
    assert WHO_CAN_ACTION not in card_actions(None)


def test_a_full_storm_reply_keeps_every_event_id() -> None:
    """The most lines a reply is given, each as long as a line may be: no line (and no id) is cut off."""
    long = "x" * 700
    alarms = [
        Alarm(f"EV-{i:04d}", 7, 1, 1_700_000_000_000 + i, long, "violation", "Burglary", "alarm", "Depot")
        for i in range(DETAILS_FIT)
    ]
    reply = storm_details(alarms, ZoneInfo("UTC"))
    text = str(reply.blocks)
    assert len(reply.blocks or []) <= 50
    assert all(f"`EV-{i:04d}`" in text for i in range(DETAILS_FIT))
