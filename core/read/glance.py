"""The Overview's first screen: what needs a person now. Open alarms by priority (not acknowledged, overdue,
acknowledged but not resolved), the oldest one not acknowledged, how many were acknowledged within their SLA
today, silent panels, cameras down and open incidents.

Every figure is counted by the rule its own page uses, so the Overview and the page a figure links to agree:
open alarms and overdue by `core.read.handling.open_alarms` (the Handling page), cameras down by
`core.cameras.camera_down` (the Cameras page), silent panels by the supervision episodes (the At-risk page),
incidents by `core.read.incidents.open_incidents`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.alarms import Alarm
from core.cache.supervision import open_episodes
from core.lifecycle import State
from core.priorities import Priorities, Priority
from core.read.cameras import camera_down, camera_summary
from core.read.handling import OpenAlarm, open_alarms
from core.read.incidents import open_incidents
from core.read.rows import query
from core.sqlite_lib import sqlite_utils

# As many alarms as a cache can hold open: the counts must be whole, not the first page's.
ALL = 1_000_000


@dataclass(frozen=True)
class PriorityCounts:
    """The alarms not resolved of one priority."""

    priority: Priority
    open: int = 0  # not acknowledged
    overdue: int = 0  # not acknowledged past the priority's SLA
    acknowledged: int = 0  # acknowledged, not resolved


@dataclass(frozen=True)
class Glance:
    by_priority: tuple[PriorityCounts, ...]  # every priority, P1 first, zeros included
    oldest_open: OpenAlarm | None  # the oldest alarm not acknowledged, of the most urgent priority first
    acknowledged_today: int  # alarms acknowledged in [day_start, now)
    within_sla_today: int  # of them, acknowledged within their priority's SLA (or of one with none)
    silent_panels: int
    cameras_down: int  # offline as the service reports it, or disabled (core.cameras.camera_down)
    incidents_open: int
    totals: PriorityCounts = field(init=False)

    def __post_init__(self) -> None:
        rows = self.by_priority
        total = PriorityCounts(
            Priority.P1,
            sum(r.open for r in rows),
            sum(r.overdue for r in rows),
            sum(r.acknowledged for r in rows),
        )
        object.__setattr__(self, "totals", total)


def glance(db: sqlite_utils.Database, now: int, day_start: int, priorities: Priorities) -> Glance:
    """What the Overview leads with at `now`; "today" is [day_start, now) (the viewer's day)."""
    alarms = open_alarms(db, now, limit=ALL, priorities=priorities)
    counts = {p: [0, 0, 0] for p in Priority}
    for alarm in alarms:
        figures = counts[alarm.priority or Priority.P3]
        if alarm.state is State.OPEN:
            figures[0] += 1
            figures[1] += alarm.overdue
        else:
            figures[2] += 1
    # open_alarms orders by priority, then oldest: the first not acknowledged is the one to name.
    oldest = next((a for a in alarms if a.state is State.OPEN), None)
    acknowledged, within = _acknowledged(db, day_start, now, priorities)
    cameras = sum(1 for c in camera_summary(db) if camera_down(c.problems) is not None)
    return Glance(
        tuple(PriorityCounts(p, *counts[p]) for p in Priority),
        oldest,
        acknowledged,
        within,
        len(open_episodes(db)),
        cameras,
        len(open_incidents(db, None, ALL)),
    )


def _acknowledged(
    db: sqlite_utils.Database, since: int, until: int, priorities: Priorities
) -> tuple[int, int]:
    """(acknowledged in [since, until), of them within their priority's SLA counted from when they opened)."""
    rows = query(
        db,
        "SELECT s.event_id AS event_id, s.opened_at AS opened_at, s.acknowledged_at AS acknowledged_at,"
        " a.resource_id AS resource_id, a.org_id AS org_id, a.event_type AS event_type,"
        " a.violation_name AS violation_name, a.violation_type AS violation_type, p.name AS panel_name"
        " FROM alarm_state s LEFT JOIN activities a ON a.event_id = s.event_id"
        " LEFT JOIN panels p ON p.resource_id = a.resource_id"
        " WHERE s.acknowledged_at >= ? AND s.acknowledged_at < ?",
        [since, until],
    )
    within = 0
    for r in rows:
        alarm = Alarm(
            r["event_id"], r["resource_id"], r["org_id"], r["opened_at"], None,
            r["event_type"], r["violation_name"], r["violation_type"], r["panel_name"],
        )  # fmt: skip
        sla = priorities.sla_ms(priorities.of(alarm))
        within += sla is None or r["acknowledged_at"] - r["opened_at"] < sla  # overdue at opened + sla
    return len(rows), within
