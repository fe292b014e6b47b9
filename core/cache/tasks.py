"""The last known state of each scheduled task samops updated.

The service has no "get task" operation (only operation 5, update), so the bot keeps what it last sent
successfully for each task, in the `task_state` table (schema v7): it prefills the next edit, and it is all
samops knows for certain of the task, so the next update sends it with the fields the person gives (and no
field it does not hold: bot/forms/task.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

from core.cache.sql import execute
from core.sqlite_lib import sqlite_utils


@dataclass(frozen=True)
class KnownTask:
    task_id: int
    org_id: int | None
    updated_at: int
    updated_by: str
    body: dict[str, Any]  # the operation-5 body last sent, with the spec's JSON names


def save_task(
    db: sqlite_utils.Database, task_id: int, body: dict[str, Any], *, org_id: int | None, at: int, by: str
) -> None:
    with db.conn:
        db.conn.execute(
            "INSERT INTO task_state (task_id, org_id, updated_at, updated_by, body) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(task_id) DO UPDATE SET org_id = excluded.org_id, updated_at = excluded.updated_at, "
            "updated_by = excluded.updated_by, body = excluded.body",
            [task_id, org_id, at, by, json.dumps(body, separators=(",", ":"))],
        )


def load_task(db: sqlite_utils.Database, task_id: int) -> KnownTask | None:
    row = execute(
        db,
        "SELECT task_id, org_id, updated_at, updated_by, body FROM task_state WHERE task_id = ?",
        [task_id],
    ).fetchone()
    if row is None:
        return None
    try:
        body = json.loads(row[4])
    except ValueError:
        body = {}
    fields = cast("dict[str, Any]", body) if isinstance(body, dict) else {}  # JSON: string keys
    return KnownTask(row[0], row[1], row[2], row[3], fields)
