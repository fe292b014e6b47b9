"""Alarms resolved with dispositions, for the false-alarm counts' tests: written through the cache's own
writes and `core.dispositions.resolve` (the Resolve form's path), and listed for counting by hand."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from core import dispositions
from core.cache import writes
from core.cache.db import open_cache
from core.clock import DAY_MS, HOUR_MS

KINDS = [("alarm", "Intrusion"), ("alarm", "Fire"), ("warning", "Tamper")]


@dataclass(frozen=True)
class Closed:
    event_id: str
    resource_id: int
    org_id: int
    at: int  # the alarm's own time
    kind: str
    resolved_at: int
    klass: str | None  # None: still open
    code: str | None
    label: str | None


def _away_from_edges(rng: random.Random, now: int) -> int:
    """A time within 100 days before `now`, at least 2 h from every period's edge (7, 30, 90 days), so a
    count a few seconds later is the same."""
    while True:
        when = now - rng.randrange(100 * DAY_MS)
        if all(abs(when - (now - d * DAY_MS)) > 2 * HOUR_MS for d in (0, 7, 30, 90)):
            return when


def seed_dispositions(
    path: Path, now: int, panels: dict[int, int], *, count: int = 300, seed: int = 3
) -> list[Closed]:
    """`count` alarms on `panels` (resource_id -> org_id), over the last 100 days; four in five resolved
    with a default disposition chosen at random, by U_SEED, an hour after the alarm (or now)."""
    rng = random.Random(seed)
    db = open_cache(path)
    out: list[Closed] = []
    rows = []
    for i in range(count):
        rid = rng.choice(sorted(panels))
        vtype, vname = rng.choice(KINDS)
        when = _away_from_edges(rng, now)
        rows.append((f"fa-{seed}-{i}", rid, panels[rid], when, f"{vname} on {rid}", "violation", vname, vtype,
                     1, 1, 0))  # fmt: skip
    with writes.write_transaction(db):
        writes.upsert_activities(db, "activities", rows)
    for row in rows:
        event_id, rid, org, when, kind = row[0], row[1], row[2], row[3], row[6]
        resolved_at = min(when + HOUR_MS, now - 1)
        if rng.random() < 0.2:
            out.append(Closed(event_id, rid, org, when, kind, resolved_at, None, None, None))
            continue
        chosen = rng.choice(dispositions.DEFAULTS)
        with writes.write_transaction(db):
            dispositions.resolve(db, event_id, chosen, "U_SEED", resolved_at, opened_at=when)
        out.append(Closed(event_id, rid, org, when, kind, resolved_at, chosen.klass.value, chosen.code,
                          chosen.label))  # fmt: skip
    db.conn.close()
    return out
