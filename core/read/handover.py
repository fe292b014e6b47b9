"""The shift handover digest: what happened in [since, until) and what the next shift inherits.

Built from plain queries over the cache. The alarm lifecycle's figures (open and acknowledged alarms, who
holds each, counts acknowledged and resolved, median time to acknowledge) read the `alarm_state` table of
the alarm lifecycle (issue 15, items 1–2); `_lifecycle` is the one place that reads it.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field, fields, replace
from typing import Any

from core.alarms import Alarm, alarm_from
from core.cache.alarm_sql import ALARM_COLUMNS, alarm_sql
from core.lifecycle import HOLDER_COLUMN, State
from core.priorities import Priorities, Priority
from core.read.alarms import AlarmFilter, count_alarms
from core.read.cameras import DISABLED, OFFLINE, camera_down, camera_summary
from core.read.false_alarms import ShiftDispositions, shift_dispositions
from core.read.history import LATE_AFTER_MS
from core.read.quiet import QuietWindow, held_count, windows_in_force
from core.read.rows import CameraRow, query, scalar, tuples
from core.sqlite_lib import sqlite_utils

NOISIEST = 5
HELD_SHOWN = 20  # open alarms listed one by one; the count says how many in all

ALARM_SQL = alarm_sql("a")


@dataclass(frozen=True)
class PanelCount:
    resource_id: int
    name: str | None
    count: int


@dataclass(frozen=True)
class HeldAlarm:
    """An alarm still open or acknowledged, who holds it and who acknowledged it. Only an assignee holds an
    alarm ("I'm on it", or assigned): acknowledging says someone saw it, not that they are dealing with it."""

    event_id: str
    state: str
    holder: str | None  # core.lifecycle's rule (HOLDER_COLUMN)
    acknowledged_by: str | None
    opened_at: int
    resource_id: int | None
    panel_name: str | None
    kind: str | None
    org_id: int | None = None  # whose zone its time is shown in
    priority: Priority | None = None  # with the priorities (core/priorities.py) the digest was read with
    overdue: bool = False  # still open past its acknowledgement SLA at the handover


@dataclass(frozen=True)
class Lifecycle:
    held: tuple[HeldAlarm, ...] = ()  # the oldest HELD_SHOWN
    held_count: int = 0  # every alarm posted and not resolved at the handover, from this shift or before
    acknowledged: int = 0  # acknowledged in the shift, whenever the alarm came
    resolved: int = 0  # resolved in the shift, whenever the alarm came
    median_tta_ms: int | None = None  # over the alarms acknowledged in the shift
    # Of the alarms received in the shift, those posted to Slack with buttons (they have a lifecycle); the
    # rest came before the notifier's first start, were held back by a silence, or are not delivered yet.
    tracked: int = 0


@dataclass(frozen=True)
class SlaCounts:
    """Of the alarms acknowledged in the shift whose priority has an SLA (core/priorities.py): how many
    were acknowledged within it and how many past it (counted from the alarm's own time)."""

    within: int = 0
    past: int = 0


@dataclass(frozen=True)
class Handover:
    since: int
    until: int
    org_id: int | None
    alarms_received: int
    noisiest: tuple[PanelCount, ...]
    cameras_offline: tuple[CameraRow, ...]
    quiet: tuple[QuietWindow, ...]  # silences and maintenance windows in force at `until`
    lifecycle: Lifecycle = field(default_factory=Lifecycle)
    cameras_disabled: tuple[CameraRow, ...] = ()  # `enabled` false; never counted as offline
    # Alarms that reached samops late in the shift (whatever their own time): counted apart, and their
    # time to acknowledge is counted from their arrival (docs/history.md).
    late_received: int = 0
    sla: SlaCounts | None = None  # when the digest was given the priorities
    # Alarms resolved in the shift per disposition class, and the panels with most closed as false.
    dispositions: ShiftDispositions | None = None
    # Alarms of the shift a silence or maintenance window held back (never posted): counted apart.
    held_back: int = 0


def handover(
    db: sqlite_utils.Database,
    since: int,
    until: int,
    org_id: int | None = None,
    priorities: Priorities | None = None,
) -> Handover:
    """The digest of the shift [since, until), for one organization or (None) all of them; with
    `priorities`, how many alarms were acknowledged within and past their SLA, and each alarm still held with
    its priority and whether it is overdue."""
    received = count_alarms(db, AlarmFilter(org_id=org_id, since=since, until=until))
    down = [(camera_down(c.problems), c) for c in camera_summary(db, org_id, problems_only=True)]
    return Handover(
        since=since,
        until=until,
        org_id=org_id,
        alarms_received=received,
        noisiest=tuple(_noisiest(db, since, until, org_id)),
        cameras_offline=tuple(c for state, c in down if state == OFFLINE),
        quiet=tuple(windows_in_force(db, until, org_id)),
        lifecycle=_lifecycle(db, since, until, org_id, priorities),
        cameras_disabled=tuple(c for state, c in down if state == DISABLED),
        late_received=_late(db, since, until, org_id),
        sla=_sla(db, since, until, org_id, priorities) if priorities is not None else None,
        dispositions=shift_dispositions(db, since, until, org_id),
        held_back=held_count(db, since, until, org_id),
    )


def _held(row: dict[str, Any], priorities: Priorities | None, until: int) -> HeldAlarm:
    """A held alarm; with `priorities`, its priority, and whether it is open past its SLA at `until`."""
    held = HeldAlarm(**{name: row[name] for name in _HELD_COLUMNS})
    if priorities is None:
        return held
    alarm = alarm_from(row)  # the row holds ALARM_COLUMNS
    overdue = held.state == State.OPEN and priorities.overdue(alarm, until)
    return replace(held, priority=priorities.of(alarm), overdue=overdue)


_HELD_COLUMNS = tuple(f.name for f in fields(HeldAlarm) if f.name not in ("priority", "overdue"))


def _sla(
    db: sqlite_utils.Database, since: int, until: int, org_id: int | None, priorities: Priorities
) -> SlaCounts:
    org, params = ("AND a.org_id = ?", [org_id]) if org_id is not None else ("", [])
    rows = query(
        db,
        "SELECT s.event_id AS event_id, s.acknowledged_at AS acknowledged_at, s.opened_at AS opened_at,"
        " a.resource_id AS resource_id, a.org_id AS org_id, a.event_type AS event_type,"
        " a.violation_name AS violation_name, a.violation_type AS violation_type"
        " FROM alarm_state s JOIN activities a ON a.event_id = s.event_id"
        f" WHERE s.acknowledged_at >= ? AND s.acknowledged_at < ? {org}",
        [since, until, *params],
    )
    within = past = 0
    for r in rows:
        alarm = Alarm(
            r["event_id"], r["resource_id"], r["org_id"], r["opened_at"], None,
            r["event_type"], r["violation_name"], r["violation_type"], None,
        )  # fmt: skip
        due = priorities.due_at(alarm)
        if due is None:
            continue
        if r["acknowledged_at"] < due:
            within += 1
        else:
            past += 1
    return SlaCounts(within, past)


def _late(db: sqlite_utils.Database, since: int, until: int, org_id: int | None) -> int:
    org, params = ("AND a.org_id = ?", [org_id]) if org_id is not None else ("", [])
    sql = (
        "SELECT count(*) FROM activities a WHERE a.seen_at >= ? AND a.seen_at < ?"
        f" AND a.seen_at - a.activity_time > ? AND {ALARM_SQL} {org}"
    )
    return int(scalar(db, sql, [since, until, LATE_AFTER_MS, *params]))


def _noisiest(db: sqlite_utils.Database, since: int, until: int, org_id: int | None) -> list[PanelCount]:
    org, params = ("AND a.org_id = ?", [org_id]) if org_id is not None else ("", [])
    rows = query(
        db,
        "SELECT a.resource_id AS resource_id, p.name AS name, count(*) AS count FROM activities a"
        " LEFT JOIN panels p ON p.resource_id = a.resource_id"
        f" WHERE a.activity_time >= ? AND a.activity_time < ? AND {ALARM_SQL} AND a.resource_id IS NOT NULL"
        f" {org} GROUP BY a.resource_id ORDER BY count DESC, a.resource_id LIMIT ?",
        [since, until, *params, NOISIEST],
    )
    return [PanelCount(**r) for r in rows]


def _lifecycle(
    db: sqlite_utils.Database, since: int, until: int, org_id: int | None, priorities: Priorities | None
) -> Lifecycle:
    org, org_params = ("AND a.org_id = ?", [org_id]) if org_id is not None else ("", [])
    base = "FROM alarm_state s JOIN activities a ON a.event_id = s.event_id"
    # Open at the handover: an alarm of the next shift (its own time at or after `until`) is not this one's.
    held_where = f"WHERE s.state IN ('{State.OPEN}', '{State.ACKNOWLEDGED}') AND s.opened_at < ? {org}"
    held = query(
        db,
        f"SELECT {ALARM_COLUMNS}, s.state AS state, s.{HOLDER_COLUMN} AS holder,"
        " s.acknowledged_by AS acknowledged_by, s.opened_at AS opened_at,"
        " COALESCE(a.violation_name, a.violation_type, a.event_type) AS kind"
        f" {base} LEFT JOIN panels p ON p.resource_id = a.resource_id {held_where}"
        " ORDER BY s.opened_at, s.event_id LIMIT ?",
        [until, *org_params, HELD_SHOWN],
    )
    held_count = int(scalar(db, f"SELECT count(*) {base} {held_where}", [until, *org_params]))
    tracked = int(
        scalar(
            db,
            f"SELECT count(*) {base} WHERE s.opened_at >= ? AND s.opened_at < ? AND {ALARM_SQL} {org}",
            [since, until, *org_params],
        )
    )
    resolved = int(
        scalar(
            db,
            f"SELECT count(*) {base} WHERE s.resolved_at >= ? AND s.resolved_at < ? {org}",
            [since, until, *org_params],
        )
    )
    waits = [
        int(r[0])
        for r in tuples(
            db,
            f"SELECT s.acknowledged_at - s.opened_at {base}"
            f" WHERE s.acknowledged_at >= ? AND s.acknowledged_at < ? {org}",
            [since, until, *org_params],
        )
    ]
    return Lifecycle(
        held=tuple(_held(r, priorities, until) for r in held),
        held_count=held_count,
        acknowledged=len(waits),
        resolved=resolved,
        median_tta_ms=int(statistics.median(waits)) if waits else None,
        tracked=tracked,
    )
