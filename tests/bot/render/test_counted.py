"""Counts in Slack answers and notices read right: "1 alarm", "2 alarms" (`core.text.counted`), and a span of
times that read the same is shown once."""

from __future__ import annotations

import json
from zoneinfo import ZoneInfo

import pytest

from bot.render.common import blocks_to_dicts
from bot.render.lists import alarms_blocks, bills_blocks, cameras_blocks, customers_blocks
from bot.render.panels import PanelStatus, panel_blocks
from bot.render.quiet import handover_digest, held_summary
from core.models import Activity, Bill, CameraSummary, Customer, Sensor
from core.read.handover import Handover
from core.read.quiet import MAINTENANCE, HeldGroup, QuietWindow
from core.text import counted

UTC = ZoneInfo("UTC")
T = 1_795_000_000_000  # 2026-11-18 11:06:40 UTC


@pytest.mark.parametrize(
    ("n", "noun", "plural", "reads"),
    [
        (0, "alarm", None, "0 alarms"),
        (1, "alarm", None, "1 alarm"),
        (2, "alarm", None, "2 alarms"),
        (1, "activity", "activities", "1 activity"),
        (3, "activity", "activities", "3 activities"),
    ],
)
def test_counted(n: int, noun: str, plural: str | None, reads: str) -> None:
    assert counted(n, noun, plural) == reads


def window() -> QuietWindow:
    return QuietWindow(7, MAINTENANCE, 777, None, T, T + 3_600_000, None, "U_TECH", T, None, None, None,
                       None, "Depot")  # fmt: skip


def test_a_window_that_held_one_alarm_says_alarm() -> None:
    group = HeldGroup("C_ALARMS", 777, "Depot", "Burglary", 1, T + 1000, T + 1000)
    message = held_summary(window(), [group], UTC)
    assert "It held back 1 alarm:" in message.text and "1 alarms" not in message.text


def test_times_within_one_second_are_one_time_not_a_span() -> None:
    same_second = HeldGroup("C_ALARMS", 777, "Depot", "Burglary", 2, T + 1000, T + 1400)
    text = json.dumps(held_summary(window(), [same_second], UTC).blocks, ensure_ascii=False)
    assert "(2026-11-18 11:06:41 UTC)" in text and "–" not in text.split("Depot (777):")[1]
    apart = HeldGroup("C_ALARMS", 777, "Depot", "Burglary", 2, T + 1000, T + 61_000)
    text = json.dumps(held_summary(window(), [apart], UTC).blocks, ensure_ascii=False)
    assert "(2026-11-18 11:06:41 UTC – 2026-11-18 11:07:41 UTC)" in text


def test_a_digest_with_one_alarm() -> None:
    digest = Handover(since=T, until=T + 3_600_000, org_id=1001, alarms_received=1, noisiest=(),
                      cameras_offline=(), quiet=())  # fmt: skip
    assert ": 1 alarm received" in handover_digest(digest, UTC, T + 3_600_000).text


def test_lists_of_one() -> None:
    assert alarms_blocks([], "on Depot", 1, None, T, lambda _org: UTC).text.startswith("1 alarm on Depot")
    camera = CameraSummary.model_validate({"resourceId": 5, "name": "Gate", "status": "online"})
    assert cameras_blocks([(camera, ())], "Gate").text.startswith("1 camera matching")
    assert customers_blocks("555", [Customer.model_validate({})]).text.startswith("1 customer with phone")
    assert bills_blocks(5001, None, [Bill.model_validate({})]).text.startswith("1 bill of subscription")


def test_a_panel_of_one_sensor_and_one_alarm() -> None:
    alarm = Activity.model_validate({"eventId": "E1", "eventType": "violation", "violationType": "alarm",
                                     "activityTime": T})  # fmt: skip
    sensors = {"zones": [Sensor(id=1, sensor_name="Door", partitions=[])]}
    message = panel_blocks(PanelStatus(1, "P", "M", "B", True, 1, sensors, [], [], [alarm], 1, T), UTC)
    text, blocks = message.text, message.blocks
    assert "1 sensor, 0 controllers, 1 alarm in the last 1 activity." in text
    assert "*Last 1 activity* — 1 alarm" in json.dumps(blocks_to_dicts(blocks), ensure_ascii=False)
