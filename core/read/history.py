"""Reads of the history samops holds: how many activities the cache has in a window (reconciliation), how
far the backfill of the dashboard's week got, from when the data is complete, and which alarms reached
samops late (docs/history.md). `core.cache.cursors` writes the backfill's rows; the poller, the
reconciliation and the backfill write `activities.seen_at`."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from core.cache.alarm_sql import service_event_sql
from core.clock import MINUTE_MS
from core.read.cursors import cursors
from core.read.rows import column, marks, scalar, tuples
from core.sqlite_lib import sqlite_utils

# panel_cursors table names of the backfill: each panel done (cursor: the start it was filled from), and
# the plan (scope 0: from, 1: until, 2: how many panels it covers).
BACKFILL = "backfill"
BACKFILL_PLAN = "backfill_plan"
PLAN_FROM, PLAN_UNTIL, PLAN_PANELS = 0, 1, 2

# An alarm is late when samops first saw it more than this after its own time. A poll takes seconds even
# under load, and the poller re-reads SAMOPS_POLL_OVERLAP (2 min) anyway; an alarm seen later than that
# reached the service late (or samops or the service was down): its card and the handover say so.
LATE_AFTER_MS = 2 * MINUTE_MS

_CHUNK = 500  # SQLite bounds the ? of a statement


@dataclass(frozen=True)
class Backfill:
    """The backfill of the dashboard's week: the window it fills, and how many panels are done."""

    since: int  # the oldest activity time it fills
    until: int  # where the first poll's history began
    panels_done: int
    panels: int

    @property
    def done(self) -> bool:
        return self.panels_done >= self.panels


def backfill(db: sqlite_utils.Database) -> Backfill | None:
    """The backfill's plan and progress; None before it is planned (before the first poll)."""
    plan = cursors(db, BACKFILL_PLAN)
    if PLAN_FROM not in plan or PLAN_UNTIL not in plan:
        return None
    done = len(cursors(db, BACKFILL))
    return Backfill(plan[PLAN_FROM], plan[PLAN_UNTIL], done, max(done, plan.get(PLAN_PANELS, 0)))


def complete_from(db: sqlite_utils.Database) -> int | None:
    """From when the cache's activities are complete while the backfill runs (the first poll's history);
    None when nothing is missing (the backfill is done, or not planned: nothing to say)."""
    state = backfill(db)
    if state is None or state.done:
        return None
    return state.until


def cached_count(db: sqlite_utils.Database, org: int | None, since: int, until: int) -> int:
    """Activities with a panel that the cache holds of organization `org` (None: none) in [since, until)."""
    where = "org_id IS NULL" if org is None else "org_id = ?"
    params = [] if org is None else [org]
    sql = (
        f"SELECT count(*) FROM activities WHERE {where} AND activity_time >= ? AND activity_time < ?"
        " AND resource_id IS NOT NULL AND " + service_event_sql()  # samops' own alarms are not the service's
    )
    return int(scalar(db, sql, [*params, since, until]) or 0)


def seen_times(db: sqlite_utils.Database, event_ids: Collection[str]) -> dict[str, int]:
    """When samops first saw each of these activities arrive (those it watched arrive)."""
    ids, found = list(event_ids), dict[str, int]()
    for at in range(0, len(ids), _CHUNK):
        chunk = ids[at : at + _CHUNK]
        sql = (
            f"SELECT event_id, seen_at FROM activities WHERE event_id IN ({marks(chunk)})"
            " AND seen_at IS NOT NULL"
        )
        found.update((str(e), int(s)) for e, s in tuples(db, sql, chunk))
    return found


def is_late(activity_time: int, seen_at: int | None) -> bool:
    """Whether an activity seen at `seen_at` reached samops late (LATE_AFTER_MS)."""
    return seen_at is not None and seen_at - activity_time > LATE_AFTER_MS


def lateness(activity_time: int, seen_at: int | None) -> int | None:
    """How long after `activity_time` samops first saw an activity, when that makes it late; else None: the
    late mark, and where a late alarm's time to acknowledge starts (`core.priorities.Priorities.due_at`)."""
    return int(seen_at) - activity_time if seen_at is not None and is_late(activity_time, seen_at) else None


def late_by(db: sqlite_utils.Database, event_id: str) -> int | None:
    """How long after its own time samops first saw this activity, when that makes it late; else None."""
    found = tuples(db, "SELECT activity_time, seen_at FROM activities WHERE event_id = ?", [event_id])
    if not found:
        return None
    activity_time, seen_at = found[0]
    return lateness(int(activity_time or 0), seen_at)


def latest_seen(db: sqlite_utils.Database) -> int | None:
    """The latest time samops saw an activity arrive (the index on seen_at answers it at once)."""
    found = column(db, "SELECT max(seen_at) FROM activities")
    return int(found[0]) if found and found[0] is not None else None


__all__ = [
    "BACKFILL",
    "BACKFILL_PLAN",
    "LATE_AFTER_MS",
    "PLAN_FROM",
    "PLAN_PANELS",
    "PLAN_UNTIL",
    "Backfill",
    "backfill",
    "cached_count",
    "complete_from",
    "is_late",
    "late_by",
    "lateness",
    "latest_seen",
    "seen_times",
]
