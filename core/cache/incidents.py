"""Site incidents in the cache: each incident of a panel (its span, its card), the evidence joined into it,
and the camera changes that are evidence too. The rule that joins them is core/incidents.py.

An incident row exists from its first piece of evidence on; it is shown as an incident once it holds two
kinds of evidence (core.incidents.Incident.is_incident).
`version` counts the changes of its evidence and `edited` the version its card last showed: a card whose
edit was lost to a restart is edited on the next start. Functions run in the caller's transaction.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from core.cache.sql import execute
from core.cameras import camera_down as down
from core.cameras import camera_problems
from core.incidents import CAMERA_KINDS, CAMERA_OFFLINE, CAMERA_REF, Evidence, Span, place
from core.sqlite_lib import sqlite_utils

_COLUMNS = (
    "id, resource_id, org_id, first_time, last_time, evidence, kinds, channel, card_ts, version, edited"
)


@dataclass(frozen=True)
class IncidentRow:
    id: int
    resource_id: int
    org_id: int | None
    first_time: int
    last_time: int
    evidence: int  # how many pieces
    kinds: int  # how many different kinds of evidence
    channel: str | None
    card_ts: str | None
    version: int
    edited: int

    @property
    def is_incident(self) -> bool:
        return self.kinds >= 2  # core.incidents.Incident.is_incident


def _row(row: Sequence[Any]) -> IncidentRow:
    return IncidentRow(*row)


def record(
    db: sqlite_utils.Database,
    evidence: Iterable[Evidence],
    window_ms: int,
    now: int,
    alarms: Iterable[str] = (),
) -> set[int]:
    """Join each new piece of evidence (in the order given: arrival) into its panel's incident, or start
    one; `alarms` are the refs that are alarms with a lifecycle. Returns the ids of the incidents changed."""
    alarm_refs = set(alarms)
    touched: set[int] = set()
    for piece in evidence:
        if execute(db, "SELECT 1 FROM incident_evidence WHERE ref = ?", [piece.ref]).fetchone():
            continue
        candidates = [
            _row(r)
            for r in execute(
                db,
                f"SELECT {_COLUMNS} FROM incidents WHERE resource_id = ? AND first_time <= ?"
                " AND last_time >= ? ORDER BY first_time, id",
                [piece.panel, piece.time + window_ms, piece.time - window_ms],
            ).fetchall()
        ]
        index = place([Span(c.resource_id, c.first_time, c.last_time) for c in candidates], piece, window_ms)
        if index is None:
            cursor = execute(
                db,
                "INSERT INTO incidents (resource_id, org_id, first_time, last_time, evidence, version,"
                " edited, created_at) VALUES (?, ?, ?, ?, 1, 1, 0, ?)",
                [piece.panel, piece.org, piece.time, piece.time, now],
            )
            incident_id = int(cursor.lastrowid or 0)
        else:
            incident_id = candidates[index].id
            execute(
                db,
                "UPDATE incidents SET first_time = min(first_time, ?), last_time = max(last_time, ?),"
                " evidence = evidence + 1, version = version + 1 WHERE id = ?",
                [piece.time, piece.time, incident_id],
            )
        execute(
            db,
            "INSERT INTO incident_evidence (ref, incident_id, kind, time, text, event_id, arrived_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                piece.ref,
                incident_id,
                piece.kind,
                piece.time,
                piece.text[:500],
                piece.ref if piece.ref in alarm_refs else None,
                now,
            ],
        )
        execute(
            db,
            "UPDATE incidents SET kinds = (SELECT count(DISTINCT kind) FROM incident_evidence"
            " WHERE incident_id = ?) WHERE id = ?",
            [incident_id, incident_id],
        )
        touched.add(incident_id)
    return touched


def get(db: sqlite_utils.Database, incident_id: int) -> IncidentRow | None:
    row = execute(db, f"SELECT {_COLUMNS} FROM incidents WHERE id = ?", [incident_id]).fetchone()
    return _row(row) if row else None


def of_event(db: sqlite_utils.Database, event_id: str) -> IncidentRow | None:
    """The incident (or lone piece of evidence) an alarm belongs to."""
    row = execute(
        db,
        f"SELECT {', '.join('i.' + c.strip() for c in _COLUMNS.split(','))} FROM incident_evidence e"
        " JOIN incidents i ON i.id = e.incident_id WHERE e.ref = ?",
        [event_id],
    ).fetchone()
    return _row(row) if row else None


def by_card(db: sqlite_utils.Database, channel: str, ts: str) -> IncidentRow | None:
    row = execute(
        db,
        f"SELECT {_COLUMNS} FROM incidents WHERE card_ts = ? AND channel = ? AND kinds >= 2",
        [ts, channel],
    ).fetchone()
    return _row(row) if row else None


def set_card(db: sqlite_utils.Database, incident_id: int, channel: str, ts: str) -> bool:
    """Make (channel, ts) the incident's card unless it has one; True when it became so."""
    cursor = execute(
        db,
        "UPDATE incidents SET channel = ?, card_ts = ? WHERE id = ? AND card_ts IS NULL",
        [channel, ts, incident_id],
    )
    return cursor.rowcount == 1


def to_edit(db: sqlite_utils.Database, channel: str, since: int) -> list[IncidentRow]:
    """Incident cards of `channel` whose evidence changed since their last edit (of incidents still moving
    after `since`)."""
    rows = execute(
        db,
        f"SELECT {_COLUMNS} FROM incidents WHERE channel = ? AND card_ts IS NOT NULL AND kinds >= 2"
        " AND version > edited AND last_time >= ? ORDER BY id",
        [channel, since],
    ).fetchall()
    return [_row(r) for r in rows]


def channels_to_edit(db: sqlite_utils.Database, since: int) -> list[str]:
    rows = execute(
        db,
        "SELECT DISTINCT channel FROM incidents WHERE card_ts IS NOT NULL AND kinds >= 2"
        " AND version > edited AND last_time >= ?",
        [since],
    ).fetchall()
    return [r[0] for r in rows]


def mark_edited(db: sqlite_utils.Database, incident_id: int, version: int) -> None:
    execute(db, "UPDATE incidents SET edited = max(edited, ?) WHERE id = ?", [version, incident_id])


def touch(db: sqlite_utils.Database, incident_id: int) -> None:
    """Its card must be edited again (an alarm's state changed, say)."""
    execute(db, "UPDATE incidents SET version = version + 1 WHERE id = ?", [incident_id])


def timeline(db: sqlite_utils.Database, incident_id: int) -> list[Evidence]:
    """The incident's evidence in time order (not arrival)."""
    rows = execute(
        db,
        "SELECT e.kind, e.time, i.resource_id, i.org_id, e.ref, e.text FROM incident_evidence e"
        " JOIN incidents i ON i.id = e.incident_id WHERE e.incident_id = ? ORDER BY e.time, e.ref",
        [incident_id],
    ).fetchall()
    return [Evidence(r[0], int(r[1]), int(r[2]), r[3], r[4], r[5] or "") for r in rows]


def alarms(db: sqlite_utils.Database, incident_id: int) -> list[tuple[str, int]]:
    """(event_id, activity time) of the incident's alarms (those with a lifecycle), oldest first."""
    rows = execute(
        db,
        "SELECT event_id, time FROM incident_evidence WHERE incident_id = ? AND event_id IS NOT NULL"
        " ORDER BY time, event_id",
        [incident_id],
    ).fetchall()
    return [(str(r[0]), int(r[1])) for r in rows]


# --- camera changes ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CameraChange:
    id: int
    camera_id: int
    org_id: int | None
    name: str | None
    tree_path: str | None
    problem: str
    first_seen: int

    @property
    def ref(self) -> str:
        return f"{CAMERA_REF}{self.id}"

    def evidence(self, panel: int) -> Evidence:
        text = f"{self.name or 'camera'} ({self.camera_id}) {self.problem}"
        kind = CAMERA_KINDS.get(self.problem, CAMERA_OFFLINE)
        return Evidence(kind, self.first_seen, panel, self.org_id, f"{self.ref}:{panel}", text)


def record_camera_change(
    db: sqlite_utils.Database,
    camera_id: int,
    org_id: int | None,
    name: str | None,
    tree_path: str | None,
    problem: str,
    first_seen: int,
) -> None:
    execute(
        db,
        "INSERT INTO camera_changes (camera_id, org_id, name, tree_path, problem, first_seen)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [camera_id, org_id, name, tree_path, problem, first_seen],
    )


def camera_changes_since(db: sqlite_utils.Database, since: int) -> list[CameraChange]:
    rows = execute(
        db,
        "SELECT id, camera_id, org_id, name, tree_path, problem, first_seen FROM camera_changes"
        " WHERE first_seen >= ? ORDER BY id",
        [since],
    ).fetchall()
    return [CameraChange(*r) for r in rows]


def camera_down(status: str | None, enabled: bool | None) -> str | None:
    """What makes a camera evidence of an incident: core.cameras' one judgement of a camera being down,
    "offline" (the service reports it so) or "disabled" (`enabled` false, all operation 17 promises)."""
    return down(camera_problems(status, None, None, enabled))


def note_camera_changes(db: sqlite_utils.Database, rows: Sequence[dict[str, Any]], now: int) -> int:
    """Before cameras are written: record each camera that goes down (offline or disabled) since the cache
    last saw it, first seen `now`. A camera seen for the first time is no change
    (it may have been down for months). Returns how many changes were recorded."""
    ids = [r["resource_id"] for r in rows if r.get("resource_id") is not None]
    before: dict[int, str | None] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        for rid, status, enabled in execute(
            db,
            "SELECT resource_id, status, json_extract(raw, '$.enabled') FROM cameras"
            f" WHERE resource_id IN ({','.join('?' * len(chunk))})",
            chunk,
        ).fetchall():
            before[int(rid)] = camera_down(status, None if enabled is None else bool(enabled))
    recorded = 0
    for row in rows:
        rid = row.get("resource_id")
        if rid is None or rid not in before:
            continue
        raw = json.loads(row.get("raw") or "{}")
        enabled = raw.get("enabled")
        now_down = camera_down(row.get("status"), None if enabled is None else bool(enabled))
        if now_down is not None and before[rid] is None:
            tree = raw.get("treePath")
            record_camera_change(
                db,
                rid,
                row.get("org_id"),
                row.get("name"),
                tree if isinstance(tree, str) else None,
                now_down,
                now,
            )
            recorded += 1
    return recorded
