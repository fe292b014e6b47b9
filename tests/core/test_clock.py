"""samops runs on one clock: `core.clock.now_ms`, which every part imports (the simulator keeps its own: it
shares no code with samops; tests may pass fake clocks)."""

from __future__ import annotations

import re
import time

from core.clock import now_ms
from tests.support.processes import ROOT


def test_now_ms_is_epoch_milliseconds() -> None:
    before = int(time.time() * 1000)
    assert before <= now_ms() <= int(time.time() * 1000)


def test_now_ms_is_defined_once() -> None:
    own = ROOT / "core" / "clock.py"
    for package in ("bot", "core", "dashboard", "samops"):
        for path in (ROOT / package).rglob("*.py"):
            if path == own:
                continue
            text = path.read_text(encoding="utf-8")
            where = path.relative_to(ROOT)
            assert not re.search(r"def now_ms\b", text), f"{where} defines its own now_ms"
            assert not re.search(r"time\.time(_ns)?\(\)\s*\*\s*1_?000\b", text), (
                f"{where} reads the clock itself"
            )
