"""`/sam panel`'s Block Kit within Slack's limits."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.render.common import (
    MAX_BLOCKS,
    blocks_to_text,
)
from bot.render.panels import PanelStatus, panel_blocks
from core.models import Sensor
from tests.support.bot import check_limits


def test_a_panel_with_many_sensor_types_is_capped_at_50_blocks() -> None:
    sensors = {
        f"type {t}": [Sensor(id=t * 100 + i, sensor_name=f"S{i}" * 20, partitions=[]) for i in range(30)]
        for t in range(70)
    }
    status = PanelStatus(1, "P", "M", "B", True, 1, sensors, [], [], [], 0, 0)
    message = panel_blocks(status, ZoneInfo("UTC"))
    text, blocks = message.text, message.blocks
    dicts = check_limits(blocks)
    assert len(dicts) == MAX_BLOCKS
    assert "more blocks not shown" in blocks_to_text(dicts)
    assert "2100 sensors" in text
