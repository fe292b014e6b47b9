"""The handover counts the alarms acknowledged in the shift within and past their priority's SLA (counted
from the alarm's own time), and the digest shows it; without priorities it says nothing of SLA."""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

from bot.render.quiet import handover_digest
from core.config import parse_config
from core.read.handover import SlaCounts, handover
from tests.bot.notify.support import cache
from tests.bot.notify.test_handover import berlin, seed_shift
from tests.support.bot import blocks_text


def test_acknowledged_within_and_past_their_sla(tmp_path: Path) -> None:
    db = cache(tmp_path)
    seed_shift(db)  # three alarms (P1 by default) acknowledged 2, 4 and 10 minutes after they happened
    since, until = berlin("2026-11-22 19:00"), berlin("2026-11-23 07:00")
    assert handover(db, since, until, 1001).sla is None

    rules = parse_config({"sla": {"P1": "3m"}}).priority_book()
    digest = handover(db, since, until, 1001, rules)
    assert digest.sla == SlaCounts(within=1, past=2)
    text = blocks_text(handover_digest(digest, ZoneInfo("Europe/Berlin"), until).blocks or [])
    assert "Acknowledged within SLA" in text and "1 · 2 past it" in text

    exact = parse_config({"sla": {"P1": "4m"}}).priority_book()  # at the SLA itself is past it
    assert handover(db, since, until, 1001, exact).sla == SlaCounts(within=1, past=2)
    none = parse_config({"sla": {"P1": "none"}}).priority_book()  # no SLA: counted in neither
    assert handover(db, since, until, 1001, none).sla == SlaCounts(0, 0)
    lenient = parse_config({"sla": {"P1": "1h"}}).priority_book()
    assert handover(db, since, until, 1001, lenient).sla == SlaCounts(within=3, past=0)
