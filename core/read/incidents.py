"""Site incidents from the cache (core/incidents.py is the rule; the notifier records them): the open or
acknowledged ones, and the incident an alarm belongs to. The App Home and the dashboard read these."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from core.cache.alarm_sql import alarm_sql
from core.cache.incidents import timeline
from core.incidents import Evidence, kinds_of
from core.lifecycle import State, incident_state
from core.read.handling import state_counts
from core.read.rows import first, query, tuples
from core.sqlite_lib import sqlite_utils

_SELECT = (
    "SELECT i.id, i.resource_id, p.name, i.org_id, i.first_time, i.last_time, i.evidence, i.channel,"
    " i.card_ts,"
    " (SELECT json_group_array(e.kind) FROM incident_evidence e WHERE e.incident_id = i.id),"
    " (SELECT json_group_array(e.event_id) FROM incident_evidence e"
    "  WHERE e.incident_id = i.id AND e.event_id IS NOT NULL)"
    " FROM incidents i LEFT JOIN panels p ON p.resource_id = i.resource_id WHERE i.kinds >= 2"
)


# core.lifecycle.incident_state in SQL, so resolved incidents are skipped by the query rather than read one
# by one (they pile up over months; the App Home asks on every change): an incident is resolved when it has
# alarms and every one of them is resolved (an alarm with no state yet counts as open).
_NOT_RESOLVED = (
    "(NOT EXISTS (SELECT 1 FROM incident_evidence e WHERE e.incident_id = i.id AND e.event_id IS NOT NULL)"
    " OR EXISTS (SELECT 1 FROM incident_evidence e LEFT JOIN alarm_state s ON s.event_id = e.event_id"
    f"  WHERE e.incident_id = i.id AND e.event_id IS NOT NULL AND COALESCE(s.state, '{State.OPEN.value}')"
    f"  != '{State.RESOLVED.value}'))"
)


@dataclass(frozen=True)
class IncidentSummary:
    id: int
    resource_id: int
    panel_name: str | None
    org_id: int | None
    first_time: int  # epoch-ms: the earliest evidence's own time
    last_time: int
    evidence: int  # pieces of evidence
    kinds: tuple[str, ...]  # "alarm", "tamper", "camera offline", ... (core.incidents.KINDS order)
    state: str  # open, acknowledged or resolved (core.lifecycle.incident_state)
    alarms: tuple[str, ...]  # event ids of its alarms
    channel: str | None  # where its card is (None: no card yet)
    card_ts: str | None


def _summary(db: sqlite_utils.Database, row: Any) -> IncidentSummary:
    kinds = kinds_of(json.loads(row[9] or "[]"))
    alarms = tuple(json.loads(row[10] or "[]"))
    state = incident_state(state_counts(db, alarms))
    return IncidentSummary(row[0], row[1], row[2], row[3], row[4], row[5], row[6], kinds, state.value, alarms,
                           row[7], row[8])  # fmt: skip


def open_incidents(
    db: sqlite_utils.Database,
    org_ids: Iterable[int] | None = None,
    limit: int = 50,
    resource_id: int | None = None,
) -> list[IncidentSummary]:
    """Open or acknowledged incidents, the latest first; of `org_ids` (and of one panel) only when given."""
    sql = _SELECT
    params: list[object] = []
    if resource_id is not None:
        sql += " AND i.resource_id = ?"
        params.append(resource_id)
    if org_ids is not None:
        orgs = list(org_ids)
        if not orgs:
            return []
        sql += f" AND i.org_id IN ({','.join('?' * len(orgs))})"
        params += orgs
    sql += f" AND {_NOT_RESOLVED} ORDER BY i.last_time DESC, i.id DESC LIMIT ?"
    return [_summary(db, row) for row in tuples(db, sql, [*params, limit])]


def incident_of(db: sqlite_utils.Database, event_id: str) -> IncidentSummary | None:
    """The incident an alarm (or any activity that is evidence) belongs to, None when it is in none."""
    row = first(
        db, _SELECT + " AND i.id = (SELECT incident_id FROM incident_evidence WHERE ref = ?)", [event_id]
    )
    return _summary(db, row) if row else None


def incidents_of_events(db: sqlite_utils.Database, event_ids: Iterable[str]) -> dict[str, int]:
    """event id -> incident id, for the events that belong to an incident (the dashboard's grouping)."""
    ids = list(event_ids)
    out: dict[str, int] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = tuples(
            db,
            "SELECT e.ref, e.incident_id FROM incident_evidence e JOIN incidents i ON i.id = e.incident_id"
            f" WHERE i.kinds >= 2 AND e.ref IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        out.update({str(r[0]): int(r[1]) for r in rows})
    return out


def incident_timeline(db: sqlite_utils.Database, incident_id: int) -> list[Evidence]:
    """The incident's evidence in time order (kind, time, text): what its card's timeline shows."""
    return timeline(db, incident_id)


def unrecorded_errors(db: sqlite_utils.Database, since: int) -> list[tuple[Any, ...]]:
    """(event_id, resource_id, org_id, activity_time, description, event_type, violation_name,
    violation_type) of the error activities that are no alarm (eventType `error` without a violationType)
    from `since`, on a panel, not yet evidence of any incident; oldest first."""
    rows = query(
        db,
        f"SELECT {_ERROR_COLUMNS} FROM activities a WHERE a.activity_time >= ?"
        f" AND a.event_type = 'error' AND NOT {alarm_sql('a')} AND a.resource_id IS NOT NULL"
        " AND NOT EXISTS (SELECT 1 FROM incident_evidence e WHERE e.ref = a.event_id)"
        " ORDER BY a.activity_time",
        [since],
    )
    return [tuple(r.values()) for r in rows]


_ERROR_COLUMNS = (
    "a.event_id AS event_id, a.resource_id AS resource_id, a.org_id AS org_id,"
    " a.activity_time AS activity_time, a.description AS description, a.event_type AS event_type,"
    " a.violation_name AS violation_name, a.violation_type AS violation_type"
)
