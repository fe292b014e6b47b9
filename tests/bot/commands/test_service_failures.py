"""Every command when the service fails or is slow, over signed HTTP to the running bot (conftest.py)."""

from __future__ import annotations

import re

import httpx

from tests.support.bot import BotProcess
from tests.support.processes import Simulator


def test_service_errors_and_timeouts_are_said_plainly(bot: BotProcess, sim: Simulator) -> None:
    faults = f"{sim.root_url}/_sim/faults"
    try:
        httpx.post(faults, json={"errorRate": 1.0})
        failed = bot.send_command("cameras")
        match = re.search(r"The service answered 5\d\d: .* \(reference `(R-[0-9A-F]{6})`\)", failed.text)
        assert match, failed.text
        assert match.group(1) in bot.output()
        httpx.post(faults, json={"errorRate": 0.0, "latencyMs": 4000})
        slow = bot.send_command("role 10011", timeout=20)
        assert "did not answer in time" in slow.text
        assert re.search(r"reference `R-[0-9A-F]{6}`", slow.text)
    finally:
        httpx.post(faults, json={"errorRate": 0.0, "latencyMs": 0, "throttleRate": 0.0})
    assert "Traceback" not in str(failed.responses) + str(slow.responses)
