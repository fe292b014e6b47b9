"""False-alarm counts (core/read/false_alarms.py) against counting by hand: alarms over 100 days resolved
with random dispositions through the Resolve form's own write, then every grouping and period, the flagged
panels, a panel's 30-day count and a shift's dispositions counted again in plain Python."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from core import read
from core.cache.db import open_cache
from core.clock import DAY_MS
from core.read import Grouping
from tests.support.seed_dispositions import Closed, seed_dispositions

NOW = 1_790_000_000_000
PANELS = {701: 1001, 702: 1001, 703: 1002, 704: 1002, 705: 1002}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Closed]]:
    path = tmp_path_factory.mktemp("fa") / "cache.db"
    db = open_cache(path)
    db.table("panels").insert_all(
        [{"resource_id": r, "org_id": o, "name": f"Panel {r}"} for r, o in PANELS.items()]
    )
    db.table("organizations").insert_all([{"id": 1001, "name": "Acme"}, {"id": 1002, "name": "Harbor"}])
    db.conn.commit()
    db.conn.close()
    return path, seed_dispositions(path, NOW, PANELS)


def _key(c: Closed, by: Grouping) -> str:
    return {Grouping.PANEL: str(c.resource_id), Grouping.ORGANIZATION: str(c.org_id), Grouping.KIND: c.kind}[
        by
    ]


@pytest.mark.parametrize("by", list(Grouping))
def test_rates_per_group_and_period_match_counting_by_hand(
    seeded: tuple[Path, list[Closed]], by: Grouping
) -> None:
    path, closed = seeded
    found = read.false_alarm_rates(open_cache(path), by, NOW)
    assert found, "the seed resolves alarms in every group"
    for group in found:
        for period in group.periods:
            mine = [c for c in closed if _key(c, by) == group.key and c.at >= NOW - period.days * DAY_MS]
            resolved = [c for c in mine if c.klass is not None]
            false = [c for c in resolved if c.klass == "false"]
            assert (period.false_alarms, period.resolved) == (len(false), len(resolved)), (group.key, period)
            assert period.rate == (len(false) / len(resolved) if resolved else None)
    keys = {_key(c, by) for c in closed if c.klass is not None}
    assert {g.key for g in found} == keys  # every group with a disposition in 90 days, and only those
    most = [g.period(90).false_alarms for g in found]
    assert most == sorted(most, reverse=True)  # the worst first
    if by is Grouping.PANEL:
        assert {g.name for g in found} == {f"Panel {r}" for r in map(int, keys)}


def test_one_organization_only(seeded: tuple[Path, list[Closed]]) -> None:
    path, _ = seeded
    found = read.false_alarm_rates(open_cache(path), Grouping.PANEL, NOW, org_id=1002)
    assert {int(g.key) for g in found} == {r for r, o in PANELS.items() if o == 1002}


@pytest.mark.parametrize("threshold", [1, 5, 12, 1000])
def test_flagged_panels_are_those_at_or_over_the_threshold(
    seeded: tuple[Path, list[Closed]], threshold: int
) -> None:
    path, closed = seeded
    db = open_cache(path)
    by_hand = Counter(c.resource_id for c in closed if c.klass == "false" and c.at >= NOW - 30 * DAY_MS)
    found = read.false_alarm_rates(db, Grouping.PANEL, NOW, threshold=threshold, threshold_days=30)
    assert {int(g.key) for g in found if g.flagged} == {r for r, n in by_hand.items() if n >= threshold}
    for rid in PANELS:
        assert read.panel_false_alarms(db, rid, NOW) == by_hand[rid]


def test_a_shifts_dispositions_and_worst_panels(seeded: tuple[Path, list[Closed]]) -> None:
    path, closed = seeded
    since, until = NOW - 20 * DAY_MS, NOW - 5 * DAY_MS
    shift = read.shift_dispositions(open_cache(path), since, until, limit=3)
    closed_then = [c for c in closed if c.klass is not None and since <= c.resolved_at < until]
    assert shift.per_class == dict(Counter(c.klass for c in closed_then))
    false = Counter(c.resource_id for c in closed_then if c.klass == "false")
    assert [(p.resource_id, p.false_alarms) for p in shift.worst_panels] == sorted(
        false.items(), key=lambda kv: (-kv[1], kv[0])
    )[:3]
    one_org = read.shift_dispositions(open_cache(path), since, until, org_id=1001)
    assert sum(one_org.per_class.values()) == sum(1 for c in closed_then if c.org_id == 1001)
