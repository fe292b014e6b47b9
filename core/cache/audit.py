"""The audit log of the bot's writes and refused write commands, in the `audit_log` table (schema v1).

Summaries are stored as given: callers pass text that holds no secret (see `bot/writes.py`), and `record`
masks `name=value` pairs of the known secret names again as a last guard.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.clock import now_ms
from core.redact import mask_secret_words
from core.sqlite_lib import sqlite_utils


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: int
    slack_user: str
    command: str
    org_id: int | None
    # "ok", "failed", "unknown" (a write whose effect is not known), or a refusal before any write:
    # "denied", "usage", "not found", "error".
    outcome: str
    summary: str
    reference: str


def record(
    db: sqlite_utils.Database,
    *,
    slack_user: str,
    command: str,
    outcome: str,
    summary: str,
    reference: str,
    org_id: int | None = None,
    at: int | None = None,
) -> int:
    """Append one audit row; returns its id."""
    row = {
        "at": at if at is not None else now_ms(),
        "slack_user": slack_user,
        "command": mask_secret_words(command),
        "org_id": org_id,
        "outcome": outcome,
        "summary": mask_secret_words(summary),
        "reference": reference,
    }
    with db.conn:
        cursor = db.conn.execute(
            "INSERT INTO audit_log (at, slack_user, command, org_id, outcome, summary, reference) "
            "VALUES (:at, :slack_user, :command, :org_id, :outcome, :summary, :reference)",
            row,
        )
    return int(cursor.lastrowid or 0)


def recent(
    db: sqlite_utils.Database, limit: int = 50, slack_user: str | None = None, command: str | None = None
) -> list[AuditEntry]:
    """The latest audit rows, newest first, optionally for one Slack user or one command word."""
    clauses, params = [], []
    if slack_user is not None:
        clauses.append("slack_user = ?")
        params.append(slack_user)
    if command is not None:
        clauses.append("command LIKE ?")
        params.append(f"{command}%")
    sql = "SELECT id, at, slack_user, command, org_id, outcome, summary, reference FROM audit_log"
    if clauses:
        sql += " WHERE " + " AND ".join(clauses)
    sql += " ORDER BY at DESC, id DESC LIMIT ?"
    return [AuditEntry(**row) for row in db.query(sql, [*params, limit])]
