"""Organizations and alarm panels from the cache: lookup by id or name, and one panel in detail."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, cast

from core.models import INT64_MAX
from core.read.alarms import AlarmFilter, recent_alarms
from core.read.freshness import oldest_success
from core.read.rows import (
    ControllerRow,
    PanelDetail,
    PanelRow,
    SensorRow,
    clean_text,
    column,
    like,
    marks,
    query,
    record,
    where,
)
from core.sqlite_lib import sqlite_utils

PANEL_COLUMNS = "resource_id, org_id, name, model, brand, enabled"
# The synced tables a panel's detail is built from.
_DETAIL_TABLES = ("panels", "sensors", "controllers", "controller_values", "activities")


def organizations(db: sqlite_utils.Database) -> list[tuple[int, str]]:
    rows = query(db, "SELECT id, coalesce(name, '') AS name FROM organizations ORDER BY name, id")
    return [(int(row["id"]), str(row["name"])) for row in rows]


def panel_org_ids(db: sqlite_utils.Database) -> list[int]:
    """The organizations that have a panel in the cache."""
    return [int(o) for o in column(db, "SELECT DISTINCT org_id FROM panels WHERE org_id IS NOT NULL")]


def panels_of_orgs(db: sqlite_utils.Database, orgs: Iterable[int]) -> set[int]:
    """The panels of these organizations."""
    ids = list(orgs)
    return {int(r) for r in column(db, f"SELECT resource_id FROM panels WHERE org_id IN ({marks(ids)})", ids)}


def panel_org(db: sqlite_utils.Database, resource_id: int) -> int | None:
    """The organization of a panel (None: unknown panel, or none recorded)."""
    found = column(db, "SELECT org_id FROM panels WHERE resource_id = ?", [resource_id])
    return found[0] if found else None


def site_panels(db: sqlite_utils.Database, org_id: int | None) -> list[tuple[int, str | None, str | None]]:
    """(resource_id, name, tree_path) of an organization's panels: where a camera's site is looked for."""
    rows = query(db, "SELECT resource_id, name, tree_path FROM panels WHERE org_id = ?", [org_id])
    return [(int(r["resource_id"]), r["name"], r["tree_path"]) for r in rows]


def panel_row(row: Mapping[str, Any]) -> PanelRow:
    """The PanelRow of a row selected with PANEL_COLUMNS."""
    return record(PanelRow, row, enabled=None if row["enabled"] is None else bool(row["enabled"]))


def find_panels(
    db: sqlite_utils.Database, text: str | None = None, org_id: int | None = None, limit: int = 50
) -> list[PanelRow]:
    """By id (exact) or name (case-insensitive substring)."""
    clauses: list[str] = []
    params: list[Any] = []
    if org_id is not None:
        clauses.append("org_id = ?")
        params.append(org_id)
    if t := clean_text(text):
        clauses.append("(resource_id = ? OR lower(name) LIKE ? ESCAPE '\\')")
        params += [_id_or_none(t), like(t)]
    sql = f"SELECT {PANEL_COLUMNS} FROM panels{where(clauses)} ORDER BY name COLLATE NOCASE, resource_id"
    sql += " LIMIT ?"
    return [panel_row(row) for row in query(db, sql, [*params, max(0, int(limit))])]


def _id_or_none(text: str) -> int | None:
    """`text` as a panel id when it is one SQLite can hold (a longer number, or `²`, matches no id)."""
    if not (text.isascii() and text.isdigit()) or len(text) > 19:
        return None
    number = int(text)
    return number if number <= INT64_MAX else None


def _partition_names(raw: str | None) -> tuple[str, ...]:
    try:
        items = json.loads(raw or "[]")
    except ValueError:
        return ()
    partitions = [cast("dict[str, Any]", p) for p in items if isinstance(p, dict)]
    return tuple(f"{p.get('name')} ({p.get('no')})" for p in partitions)


def panel_detail(db: sqlite_utils.Database, resource_id: int, activities: int = 10) -> PanelDetail | None:
    found = query(db, f"SELECT {PANEL_COLUMNS} FROM panels WHERE resource_id = ?", [resource_id])
    if not found:
        return None
    limit = activities
    return PanelDetail(
        panel=panel_row(found[0]),
        sensors_by_type=_sensors_by_type(db, resource_id),
        controllers=_controllers(db, resource_id),
        last_activities=recent_alarms(db, AlarmFilter(resource_id=resource_id, alarms_only=False), limit),
        data_as_of=oldest_success(db, _DETAIL_TABLES),
    )


def _sensors_by_type(db: sqlite_utils.Database, resource_id: int) -> dict[str, list[SensorRow]]:
    sql = (
        "SELECT type, id, sensor_id, name, description, io_type, io_direction, partitions FROM sensors"
        " WHERE resource_id = ? ORDER BY type, order_no, id"
    )
    by_type: dict[str, list[SensorRow]] = {}
    for row in query(db, sql, [resource_id]):
        sensor = record(SensorRow, row, partitions=_partition_names(row["partitions"]))
        by_type.setdefault(row["type"] or "other", []).append(sensor)
    return by_type


def _controllers(db: sqlite_utils.Database, resource_id: int) -> list[ControllerRow]:
    # Latest value by resourceControllerId, else by the controller's order number on the same panel.
    sql = (
        "SELECT c.id, c.controller_id, c.name, c.description, c.io_type, c.io_direction, c.partitions,"
        " coalesce(v.value, w.value) AS value, coalesce(v.last_update, w.last_update) AS last_update"
        " FROM controllers c"
        " LEFT JOIN controller_values v ON v.resource_controller_id = c.id"
        " LEFT JOIN controller_values w ON w.resource_id = c.resource_id AND w.order_no = c.order_no"
        " AND v.resource_controller_id IS NULL"
        " WHERE c.resource_id = ? GROUP BY c.id ORDER BY c.order_no, c.id"
    )
    return [
        record(ControllerRow, row, partitions=_partition_names(row["partitions"]))
        for row in query(db, sql, [resource_id])
    ]
