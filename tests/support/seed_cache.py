"""Build a realistic cache file for dashboard tests, through the cache's own write functions.

Two organizations, a handful of panels with sensors, controllers and cameras (some in trouble), and a week of
activities whose times are relative to `now`, so "last 24 h" views have something to show.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.cache import schema, writes
from core.cache.db import open_cache
from core.sqlite_lib import sqlite_utils

HOUR_MS = 3_600_000
ORGS = [(1001, "Acme Security"), (1002, "Harbor Logistics")]
SENSOR_TYPES = ("zone", "door", "smoke")
VIOLATIONS = [
    ("alarm", "Intrusion"),
    ("alarm", "Fire"),
    ("warning", "Tamper"),
    ("error", "Low battery"),
    ("gray", "Arm"),
    ("yellow", "Door ajar"),
]


@dataclass
class Seeded:
    path: Path
    now: int
    panels: dict[int, str] = field(default_factory=dict)  # resource_id -> name
    cameras: dict[int, str] = field(default_factory=dict)
    sensors: dict[int, list[str]] = field(default_factory=dict)  # resource_id -> sensor names
    controllers: dict[int, list[str]] = field(default_factory=dict)
    activities: list[tuple] = field(default_factory=list)  # writes.ACTIVITY_FIELDS order


def seed_cache(
    path: Path,
    now: int,
    *,
    panels: int = 6,
    activities: int = 400,
    last_success: int | None = None,
    last_error: str | None = None,
    last_error_at: int | None = None,
    seed: int = 7,
) -> Seeded:
    rng = random.Random(seed)
    out = Seeded(path=path, now=now)
    db = open_cache(path)
    with writes.write_transaction(db):
        writes.upsert_dicts(
            db, "organizations", [writes.organization_row({"id": i, "name": n}) for i, n in ORGS], "id"
        )
        for n in range(panels):
            rid = 5001 + n
            org_id = ORGS[n % 2][0]
            name = f"{['North', 'South', 'East', 'West', 'Dock', 'Lab'][n % 6]} gate panel {n + 1}"
            out.panels[rid] = name
            record = {
                "resourceId": rid,
                "orgId": org_id,
                "resourceName": name,
                "modelName": "SAM-X4",
                "brandName": "Paradox",
                "enabled": True,
                "resourceType": "panel",
            }
            writes.upsert_dicts(db, "panels", [writes.panel_row(record)], "resource_id")
            _sensors(db, out, rid)
            _controllers(db, out, rid, now)
            _camera(db, out, rid + 900, org_id, n)
        for i in range(activities):
            rid = 5001 + rng.randrange(panels)
            vtype, vname = rng.choice(VIOLATIONS)
            event_type = "error" if vtype == "error" else "event" if vtype == "gray" else "violation"
            when = now - rng.randrange(7 * 24 * HOUR_MS)
            row = (
                f"ev-{seed}-{i}",
                rid,
                ORGS[(rid - 5001) % 2][0],
                when,
                f"{vname} on {out.panels[rid]}",
                event_type,
                vname,
                vtype,
                1,
                1,
                0,
            )
            out.activities.append(row)
        writes.upsert_activities(db, "activities", out.activities)
        succeeded = now - 60_000 if last_success is None else last_success
        state = [
            {
                "table_name": t,
                "last_success": succeeded,
                "last_error": last_error,
                "last_error_at": last_error_at,
                "cursor": None,
                "rows": 10,
            }
            for t in ("organizations", "panels", "sensors", "controllers", "cameras", "activities")
        ]
        writes.upsert_dicts(db, "sync_state", state, "table_name")
    db.conn.close()
    return out


def _sensors(db, out: Seeded, rid: int) -> None:
    rows = []
    for t, sensor_type in enumerate(SENSOR_TYPES):
        sensors = [
            {
                "id": rid * 100 + t * 10 + k,
                "sensorId": t * 10 + k + 1,
                "orderNo": k,
                "sensorName": f"{sensor_type.title()} {rid}-{k + 1}",
                "description": f"{sensor_type} sensor",
                "ioType": "digital",
                "ioDirection": "input",
                "partitions": [{"name": "Ground floor", "no": 1}],
            }
            for k in range(2)
        ]
        rows += writes.sensor_rows({"type": sensor_type, "sensors": sensors}, rid)
    out.sensors[rid] = [r["name"] for r in rows]
    writes.upsert_dicts(db, "sensors", rows, "id")


def _controllers(db, out: Seeded, rid: int, now: int) -> None:
    controllers = [
        {
            "id": rid * 10 + k,
            "controllerId": k + 1,
            "orderNo": k,
            "controllerName": f"Siren {rid}-{k + 1}",
            "description": "output relay",
            "ioType": "digital",
            "ioDirection": "output",
        }
        for k in range(2)
    ]
    writes.upsert_dicts(db, "controllers", [writes.controller_row(c, rid) for c in controllers], "id")
    values = [
        writes.controller_value_row(
            {"resourceControllerId": rid * 10 + k, "orderNo": k, "value": k, "lastUpdate": now - 5 * 60_000},
            rid,
        )
        for k in range(2)
    ]
    writes.upsert_dicts(db, "controller_values", values, "resource_controller_id")
    out.controllers[rid] = [c["controllerName"] for c in controllers]


def _camera(db, out: Seeded, rid: int, org_id: int, n: int) -> None:
    name = f"Camera {['Lobby', 'Loading bay', 'Parking', 'Roof', 'Hall', 'Server room'][n % 6]} {n + 1}"
    record = {
        "resourceId": rid,
        "orgId": org_id,
        "name": name,
        "brand": "Hikvision",
        "deviceType": "IPC",
        "deviceModelName": "DS-2CD",
        "status": "offline" if n % 3 == 0 else "online",
        "bindStatus": "bound",
        "sdCardStatus": "error" if n % 4 == 1 else "normal",
        "version": f"V5.{n}.0",
        "ability": "motion,ptz" if n % 2 else "motion",
        "securityCode": "SECRET-SC",
        "ncCode": "SECRET-NC",
    }
    writes.upsert_dicts(db, "cameras", [writes.camera_row(record, org_id)], "resource_id")
    out.cameras[rid] = name


def insert_posted_alarms(db: Any, rows: list[tuple[str, int, int, int, str, str]]) -> None:
    """Alarm activities `(event_id, resource_id, org_id, activity_time, event_type, violation_type)`, each
    already posted (in the notifier's outbox), inserted in the caller's transaction."""
    db.conn.executemany(
        "INSERT INTO activities (event_id, resource_id, org_id, activity_time, event_type,"
        " violation_type) VALUES (?, ?, ?, ?, ?, ?)",
        rows,
    )
    db.conn.executemany(
        "INSERT INTO notify_outbox (event_id, channel, state, attempts) VALUES (?, 'C', 'posted', 0)",
        [(r[0],) for r in rows],
    )


def old_cache(path: Path, version: int) -> sqlite_utils.Database:
    """A new cache file at schema `version` (its first migrations only), as an older samops left it; open,
    for the caller to add that version's rows."""
    old = sqlite_utils.Database(path)
    for migration in schema.MIGRATIONS[:version]:
        migration(old)
    old.table("meta").insert({"key": "schema_version", "value": str(version)}, pk="key")
    return old


def version_1_cache(path: Path) -> Path:
    """A cache file at schema version 1 (the first migration only), as an old samops left it."""
    old_cache(path, 1).close()
    return path


def version_999_cache(path: Path) -> Path:
    """A cache file that claims schema version 999, as a newer samops would leave it."""
    db = open_cache(path)
    db.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    db.conn.commit()
    db.close()
    return path
