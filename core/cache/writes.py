"""Fast batched writes into the cache, and the mapping from the service's records to rows.

Records come in as pydantic models (from `core.client`) or plain dicts with the spec's JSON names. Secrets
(`securityCode`, `ncCode`, `pinCode`, `mqPassword`, tokens, passwords) are dropped before anything is stored.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from core.alarms import is_supervision
from core.cache.alarm_sql import service_event_sql
from core.cache.schema import rebuild_activity_hours

# write_transaction is re-exported: callers group several writes into one transaction with it.
from core.cache.seen import stamp_first_seen
from core.cache.transactions import joined
from core.cache.transactions import write_transaction as write_transaction
from core.models import INT64_MAX, INT64_MIN
from core.redact import is_secret_key
from core.sqlite_lib import sqlite_utils

ACTIVITY_FIELDS = (
    "event_id",
    "resource_id",
    "org_id",
    "activity_time",
    "description",
    "event_type",
    "violation_name",
    "violation_type",
    "msg_type",
    "vio_type",
    "grp",
)


def upsert_rows(
    db: sqlite_utils.Database, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], pk: str
) -> int:
    """`INSERT ... ON CONFLICT(pk) DO UPDATE` every row (tuples in `columns` order); returns the row count.

    Joins the caller's transaction (use `write_transaction` so that a whole refresh commits at once), or
    runs in a transaction of its own.
    """
    names = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" for _ in columns)
    updates = ", ".join(f'"{c}" = excluded."{c}"' for c in columns if c != pk)
    sql = f'INSERT INTO "{table}" ({names}) VALUES ({marks}) ON CONFLICT("{pk}") DO UPDATE SET {updates}'
    with joined(db):
        return db.conn.executemany(sql, rows).rowcount


def upsert_dicts(db: sqlite_utils.Database, table: str, rows: Sequence[Mapping[str, Any]], pk: str) -> int:
    if not rows:
        return 0
    columns = list(dict.fromkeys(k for row in rows for k in row))  # every key of every row, in order
    return upsert_rows(db, table, columns, ([row.get(c) for c in columns] for row in rows), pk)


def delete_missing(
    db: sqlite_utils.Database,
    table: str,
    pk: str,
    keep: Iterable[Any],
    spare_resource_ids: Iterable[int] = (),
    spare_column: str = "resource_id",
) -> int:
    """Delete rows whose key is not in `keep`, except rows whose `spare_column` (the panel, or the
    organization) is in `spare_resource_ids`: those whose fetch failed, so we do not know what the service
    has. Joins the caller's transaction if any."""
    with joined(db):
        return _delete_missing(db, table, pk, keep, set(spare_resource_ids), spare_column)


def _delete_missing(
    db: sqlite_utils.Database, table: str, pk: str, keep: Iterable[Any], spare: set[int], spare_column: str
) -> int:
    db.conn.execute("CREATE TEMP TABLE IF NOT EXISTS _keep (k PRIMARY KEY) WITHOUT ROWID")
    db.conn.execute("DELETE FROM _keep")
    db.conn.executemany("INSERT OR IGNORE INTO _keep (k) VALUES (?)", ((k,) for k in keep))
    values = sorted(spare)
    sql = f'DELETE FROM "{table}" WHERE "{pk}" NOT IN (SELECT k FROM _keep)'
    if table == "activities":
        sql += " AND " + service_event_sql()  # samops' own alarms are no service record to prune
    if values:
        marks = ", ".join("?" for _ in values)
        sql += f' AND ("{spare_column}" IS NULL OR "{spare_column}" NOT IN ({marks}))'
    deleted = db.conn.execute(sql, values).rowcount
    db.conn.execute("DELETE FROM _keep")
    if table == "activities" and deleted:
        rebuild_activity_hours(db)
    return deleted


# --- records to rows ---------------------------------------------------------------------------------------


def as_dict(record: Any) -> dict[str, Any]:
    """A model or a dict, as a dict with the spec's JSON names."""
    if hasattr(record, "model_dump"):
        return record.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dict(record)


def scrub(value: Any) -> Any:
    """The value with every secret key removed, at any depth."""
    if isinstance(value, Mapping):
        mapping = cast("Mapping[object, Any]", value)
        return {k: scrub(v) for k, v in mapping.items() if not is_secret_key(k)}
    if isinstance(value, list):
        return [scrub(v) for v in cast("list[Any]", value)]
    return value


def to_json(value: Any) -> str:
    return json.dumps(scrub(value), separators=(",", ":"), ensure_ascii=False, default=str)


def as_list(value: Any) -> list[Any]:
    """A JSON array as a list; anything else (null, a missing field) as an empty one."""
    return cast("list[Any]", value) if isinstance(value, list) else []


def as_int(value: Any) -> int | None:
    """An int SQLite can hold (64 bits), else None: records come validated from the client, but dicts and
    digit strings (organization ids) may hold anything."""
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: int(float("inf"))
        return None
    return number if INT64_MIN <= number <= INT64_MAX else None


def _bool(value: Any) -> int | None:
    return None if value is None else int(bool(value))


def _partitions(value: Any) -> str:
    parts = [cast("Mapping[str, Any]", p) for p in as_list(value) if isinstance(p, Mapping)]
    return to_json([{"name": p.get("name"), "no": p.get("no")} for p in parts])


def organization_row(org: Any) -> dict[str, Any]:
    d = as_dict(org)
    return {"id": as_int(d.get("id")), "name": d.get("name")}


def user_row(user: Any, org_id: int | None) -> dict[str, Any]:
    d = as_dict(user)
    return {
        "user_id": as_int(d.get("userId")),
        "org_id": org_id,
        "screen_name": d.get("screenName"),
        "email": d.get("emailAddress"),
        "first_name": d.get("firstName"),
        "last_name": d.get("lastName"),
        "status": as_int(d.get("status")),
        "raw": to_json(d),
    }


def panel_row(resource: Any) -> dict[str, Any]:
    d = as_dict(resource)
    # Sensors and controllers have their own tables; keep the raw record small.
    raw = {k: v for k, v in d.items() if k not in ("resourceSensors", "resourceControllers")}
    return {
        "resource_id": as_int(d.get("resourceId")),
        "org_id": as_int(d.get("orgId") if d.get("orgId") is not None else d.get("organizationId")),
        "name": d.get("resourceName"),
        "network_id": d.get("networkId"),
        "model": d.get("modelName"),
        "brand": d.get("brandName"),
        "enabled": _bool(d.get("enabled")),
        "resource_type": d.get("resourceType"),
        "tree_path": d.get("treePath"),
        "raw": to_json(raw),
    }


def sensor_rows(group: Any, resource_id: int) -> list[dict[str, Any]]:
    """Rows of one sensor list answer ({type, sensors}); sensors of other panels are not expected."""
    g = as_dict(group)
    rows: list[dict[str, Any]] = []
    for s in as_list(g.get("sensors")):
        rows.append(
            {
                "id": as_int(s.get("id")),
                "resource_id": as_int(s.get("resourceId")) or resource_id,
                "sensor_id": as_int(s.get("sensorId")),
                "order_no": as_int(s.get("orderNo")),
                "type": g.get("type"),
                "name": s.get("sensorName"),
                **_io_point(s),
            }
        )
    return [r for r in rows if r["id"] is not None]


def controller_row(controller: Any, resource_id: int) -> dict[str, Any]:
    c = as_dict(controller)
    return {
        "id": as_int(c.get("id")),
        "resource_id": as_int(c.get("resourceId")) or resource_id,
        "controller_id": as_int(c.get("controllerId")),
        "order_no": as_int(c.get("orderNo")),
        "name": c.get("controllerName"),
        **_io_point(c),
    }


def _io_point(point: dict[str, Any]) -> dict[str, Any]:
    """The columns a sensor and a controller share (the spec gives both the same I/O point fields)."""
    return {
        "description": point.get("description"),
        "io_type": point.get("ioType"),
        "io_direction": point.get("ioDirection"),
        "partitions": _partitions(point.get("partitions")),
        "raw": to_json(point),
    }


def controller_value_row(entry: Any, resource_id: int | None) -> dict[str, Any]:
    e = as_dict(entry)
    return {
        "resource_controller_id": as_int(e.get("resourceControllerId")),
        "resource_id": as_int(e.get("resourceId")) or resource_id,
        "order_no": as_int(e.get("orderNo")),
        "value": None if e.get("value") is None else str(e.get("value")),
        "last_update": as_int(e.get("lastUpdate")),
    }


def camera_row(camera: Any, org_id: int | None) -> dict[str, Any]:
    c = as_dict(camera)
    org = c.get("orgId") if c.get("orgId") is not None else c.get("organizationId")
    return {
        "resource_id": as_int(c.get("resourceId")),
        "org_id": as_int(org) if org is not None else org_id,
        "name": c.get("name") or c.get("resourceName"),
        "brand": c.get("brand") or c.get("brandName"),
        "device_type": c.get("deviceType"),
        "model": c.get("deviceModelName") or c.get("deviceModel") or c.get("modelName"),
        "status": _str(c.get("status")),
        "bind_status": _str(c.get("bindStatus")),
        "sd_card_status": _str(c.get("sdCardStatus")),
        "version": _str(c.get("version")),
        "ability": _str(c.get("ability")),
        "raw": to_json(c),
    }


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def activity_row(activity: Any, resource_id: int | None, org_id: int | None) -> tuple[Any, ...]:
    """A tuple in ACTIVITY_FIELDS order; `resourceId` when the service sends it, else the panel asked."""
    a = cast("dict[str, Any]", activity) if isinstance(activity, dict) else as_dict(activity)
    rid = as_int(a.get("resourceId"))
    return (
        a.get("eventId"),
        resource_id if rid is None else rid,
        org_id,
        as_int(a.get("activityTime")),
        a.get("description"),
        a.get("eventType"),
        a.get("violationName"),
        a.get("violationType"),
        as_int(a.get("msgType")),
        as_int(a.get("vioType")),
        as_int(a.get("group")),
    )


def upsert_activities(
    db: sqlite_utils.Database, table: str, rows: Iterable[Sequence[Any]], seen_at: int | None = None
) -> int:
    """Upsert activity tuples (ACTIVITY_FIELDS order) by event_id into `activities` or `push_history`;
    for `activities` the hourly alarm counts of the hours touched are recounted in the same transaction.
    `seen_at`: when the writing path saw these (every path gives it: the poller, reconciliation, the backfill,
    the sync), stamped by one rule whichever path writes first: on the activities new to the cache that are
    watched (core/cache/seen.py, docs/history.md)."""
    if table != "activities":
        return upsert_rows(db, table, ACTIVITY_FIELDS, rows, "event_id")
    # samops' own supervision alarms are written by core/cache/supervision.py; a service record under their
    # reserved id would take one's place, so it is not stored (core.alarms.SUPERVISION_PREFIX).
    rows = [row for row in rows if not is_supervision(row[0])]
    with joined(db):
        # An upsert may move an event to another hour or make it no alarm: its old hour is recounted too.
        times = [row[3] for row in rows if row[3] is not None]
        stored = _stored(db, [row[0] for row in rows])
        times += [t for t in stored.values() if t is not None]
        count = upsert_rows(db, table, ACTIVITY_FIELDS, rows, "event_id")
        if seen_at is not None:
            new = [row for row in rows if row[0] not in stored]
            stamp_first_seen(
                db, new, seen_at, ACTIVITY_FIELDS.index("org_id"), ACTIVITY_FIELDS.index("activity_time")
            )
        if times:
            rebuild_activity_hours(db, min(times), max(times))
    return count


def _stored(db: sqlite_utils.Database, event_ids: Sequence[Any]) -> dict[Any, int | None]:
    """The activity time stored now for each of these event ids the cache holds (in chunks: SQLite bounds
    the number of ? in one statement)."""
    found: dict[Any, int | None] = {}
    for start in range(0, len(event_ids), 500):
        chunk = event_ids[start : start + 500]
        sql = (
            f"SELECT event_id, activity_time FROM activities WHERE event_id IN ({','.join('?' * len(chunk))})"
        )
        found.update(db.conn.execute(sql, chunk).fetchall())
    return found
