"""The alarm card's buttons: the lifecycle's, the panel's, and "Who can?" with the panel id as its value."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.render.alarms import alarm_card
from bot.render.who_can import WHO_CAN_ACTION
from core.alarms import Alarm


def card_actions(resource_id: int | None) -> dict[str, str | None]:
    alarm = Alarm("EV1", resource_id, 1001, 0, "Door forced", "ALARM", "Burglary", "BURGLARY", "Warehouse")
    card = alarm_card(alarm, ZoneInfo("UTC"), None, "http://127.0.0.1:8501")
    [actions] = [b for b in card.attachments[0]["blocks"] if b["type"] == "actions"]
    return {e["action_id"]: e.get("value") for e in actions["elements"]}


def test_a_card_asks_who_can_operate_its_panel() -> None:
    assert card_actions(100101)[WHO_CAN_ACTION] == "100101"


def test_a_card_without_a_panel_has_no_who_can_button() -> None:
    assert WHO_CAN_ACTION not in card_actions(None)
