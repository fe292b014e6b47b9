"""Cameras from the cache, and what is wrong with each."""

from __future__ import annotations

from typing import Any

from core.cameras import CAMERA_OK_STATUS, DISABLED, OFFLINE, SD_CARD_OK, camera_down, camera_problems
from core.read.rows import CameraRow, clean_text, like, query, record, where
from core.sqlite_lib import sqlite_utils


def camera_summary(
    db: sqlite_utils.Database, org_id: int | None = None, text: str | None = None, problems_only: bool = False
) -> list[CameraRow]:
    """Cameras with problems first, then by name."""
    clauses: list[str] = []
    params: list[Any] = []
    if org_id is not None:
        clauses.append("org_id = ?")
        params.append(org_id)
    if text := clean_text(text):
        clauses.append("(lower(name) LIKE ? ESCAPE '\\' OR CAST(resource_id AS TEXT) = ?)")
        params += [like(text), text]
    sql = (
        "SELECT resource_id, org_id, name, brand, model, status, bind_status, sd_card_status, version,"
        f" ability, json_extract(raw, '$.enabled') AS enabled FROM cameras{where(clauses)}"
    )
    cameras: list[CameraRow] = []
    for row in query(db, sql, params):
        enabled = None if row["enabled"] is None else bool(row["enabled"])
        problems = camera_problems(row["status"], row["bind_status"], row["sd_card_status"], enabled)
        if problems_only and not problems:
            continue
        abilities = tuple(a.strip() for a in (row["ability"] or "").split(",") if a.strip())
        cameras.append(record(CameraRow, row, capabilities=abilities, problems=problems, enabled=enabled))
    cameras.sort(key=lambda c: (not c.problems, (c.name or "").lower(), c.resource_id))
    return cameras


__all__ = [
    "CAMERA_OK_STATUS",
    "DISABLED",
    "OFFLINE",
    "SD_CARD_OK",
    "camera_down",
    "camera_problems",
    "camera_summary",
]
