"""The handover digest counts what the shift resolved per disposition class and lists the panels with most
false alarms (by when they were resolved), posted by the notifier at its time (a fake clock moves it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core import dispositions
from core.cache.writes import write_transaction
from core.read.handover import handover
from tests.bot.notify.support import FakeClock, add_alarms, cache, notifier, posts, settle
from tests.bot.notify.test_handover import CONFIG, berlin
from tests.support.slack_standin import SlackStandIn

LIST = dispositions.Dispositions()


def _resolve(db: Any, events: list[str], code: str, at: int) -> None:
    chosen = LIST.get(code)
    assert chosen is not None
    with write_transaction(db):
        for event in events:
            dispositions.resolve(db, event, chosen, "U_ANA", at, opened_at=at)


def test_the_shifts_dispositions_and_worst_panels_in_the_digest(tmp_path: Path) -> None:
    db = cache(tmp_path)
    in_shift = berlin("2026-11-22 21:00")
    a101 = add_alarms(db, 101, berlin("2026-11-22 20:00"), 6)
    a102 = add_alarms(db, 102, berlin("2026-11-22 20:00"), 3)
    a201 = add_alarms(db, 201, berlin("2026-11-22 20:00"), 4)  # another organization
    _resolve(db, a101[:3], "false_user_error", in_shift)
    _resolve(db, a101[3:4], "confirmed_intrusion", in_shift)
    _resolve(db, a101[4:5], "false_equipment", berlin("2026-11-23 07:30"))  # the next shift's
    _resolve(db, a102[:2], "false_environment", in_shift)
    _resolve(db, a102[2:], "test", in_shift)
    _resolve(db, a201, "false_unknown", in_shift)

    digest = handover(db, berlin("2026-11-22 19:00"), berlin("2026-11-23 07:00"), 1001)
    assert digest.dispositions is not None
    assert digest.dispositions.per_class == {"false": 5, "confirmed": 1, "test": 1}
    assert [(p.resource_id, p.false_alarms) for p in digest.dispositions.worst_panels] == [(101, 3), (102, 2)]

    clock = FakeClock(berlin("2026-11-23 06:59"))
    with SlackStandIn() as slack:
        n = notifier(db, slack, clock, **CONFIG)
        settle(n, lambda: True)
        clock.now = berlin("2026-11-23 07:00")
        settle(n, lambda: posts(slack, "C_SHIFT"))
        [posted] = posts(slack, "C_SHIFT")
    assert "*Resolved this shift, by disposition*\n5 false alarms · 1 confirmed · 1 test" in posted
    assert "*Most false alarms this shift*\n• Warehouse (101): 3\n• Office (102): 2" in posted
