"""Cameras from the cache, and what is wrong with each."""

from __future__ import annotations

from typing import Any

from core.read.rows import CameraRow, clean_text, like, query, record, where
from core.sqlite_lib import sqlite_utils

# Camera values that mean all is well; the spec does not enumerate them, so anything else is a problem.
CAMERA_OK_STATUS = frozenset({"online", "on", "1", "normal", "ok", "connected", "true"})
SD_CARD_OK = frozenset({"normal", "ok", "1", "healthy", "good", "none", "no_card", "nocard", "not_present"})


def camera_problems(
    status: str | None, bind_status: str | None, sd_card: str | None, enabled: bool | None = None
) -> tuple[str, ...]:
    """What is wrong with a camera, from what the service sent: operation 17 promises only a Resource
    summary (`enabled`), so a missing status is "not reported", never "offline"."""
    problems = []
    if enabled is False:
        problems.append("disabled")
    state = (status or "").strip().lower()
    if state in ("offline", "off", "0", "false", "disconnected"):
        problems.append("offline")
    elif state and state not in CAMERA_OK_STATUS:
        problems.append(f"status: {status}")
    if sd_card is not None and sd_card.strip().lower() not in SD_CARD_OK:
        problems.append(f"sd card: {sd_card}")
    if (bind_status or "").strip().lower() in ("unbound", "unbind", "0", "false"):
        problems.append("not bound")
    return tuple(problems)


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
    cameras = []
    for row in query(db, sql, params):
        enabled = None if row["enabled"] is None else bool(row["enabled"])
        problems = camera_problems(row["status"], row["bind_status"], row["sd_card_status"], enabled)
        if problems_only and not problems:
            continue
        abilities = tuple(a.strip() for a in (row["ability"] or "").split(",") if a.strip())
        cameras.append(record(CameraRow, row, capabilities=abilities, problems=problems, enabled=enabled))
    cameras.sort(key=lambda c: (not c.problems, (c.name or "").lower(), c.resource_id))
    return cameras
