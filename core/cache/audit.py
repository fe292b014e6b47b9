"""The audit log of the bot's writes and refused write commands, in the `audit_log` table (schema v1), and
the one read of it.

Summaries are stored as given: callers pass text that holds no secret (see `bot/writes.py`), and `record`
masks `name=value` pairs of the known secret names again as a last guard.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.cache.sql import execute, query
from core.cache.transactions import joined
from core.clock import now_ms
from core.redact import mask_secret_words
from core.sqlite_lib import sqlite_utils
from core.text import visible

# Every outcome a row may have, in the order filters offer them (see AuditEntry.outcome).
OUTCOMES = ("ok", "failed", "unknown", "denied", "usage", "not found", "error", "busy")


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: int
    slack_user: str
    command: str
    org_id: int | None
    # "ok", "failed", "unknown" (a write whose effect is not known), or a refusal before any write:
    # "denied", "usage", "not found", "error", "busy" (the records were locked past the wait: nothing was
    # done). An alarm action that changed nothing (already acknowledged) is "ok" with "(no change: …)" in its
    # summary. A write to the service is recorded "unknown" before it is sent and settled after (`settle`).
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
        "command": visible(mask_secret_words(command)),
        "org_id": org_id,
        "outcome": outcome,
        "summary": visible(mask_secret_words(summary)),
        "reference": reference,
    }
    with joined(db):  # in the caller's transaction when it has one
        cursor = db.conn.execute(
            "INSERT INTO audit_log (at, slack_user, command, org_id, outcome, summary, reference) "
            "VALUES (:at, :slack_user, :command, :org_id, :outcome, :summary, :reference)",
            row,
        )
    return int(cursor.lastrowid or 0)


def settle(db: sqlite_utils.Database, row_id: int, outcome: str, summary: str) -> None:
    """Complete the row `record` wrote before a call to the service: its outcome, now known, and summary.
    The one change ever made to a row, and only to one recorded "unknown" (docs/security.md)."""
    with joined(db):
        db.conn.execute(
            "UPDATE audit_log SET outcome = ?, summary = ? WHERE id = ? AND outcome = 'unknown'",
            [outcome, visible(mask_secret_words(summary)), row_id],
        )


MAX_ROWS = 10_000  # the most any reader asks for at once


def recent(
    db: sqlite_utils.Database,
    limit: int = 50,
    slack_user: str | None = None,
    command: str | None = None,
    *,
    outcome: str | None = None,
    since: int | None = None,
    until: int | None = None,
) -> list[AuditEntry]:
    """The latest audit rows, newest first: the one read behind `/sam audit`, `samops audit` and the
    dashboard's Audit page. Optionally for one Slack user, commands starting with `command`, one outcome,
    and a time span [since, until) in epoch-ms. Text is masked again on the way out (a row written by an
    older samops, or by hand, must not show a secret either)."""
    clauses: list[str] = []
    params: list[object] = []
    for clause, value in (
        ("slack_user = ?", slack_user),
        ("command LIKE ? ESCAPE '\\'", _prefix(command) if command is not None else None),
        ("outcome = ?", outcome),
        ("at >= ?", since),
        ("at < ?", until),
    ):
        if value is not None:
            clauses.append(clause)
            params.append(value)
    sql = "SELECT id, at, slack_user, command, org_id, outcome, summary, reference FROM audit_log"
    if clauses:
        sql += " WHERE " + " AND ".join(clauses)
    sql += " ORDER BY at DESC, id DESC LIMIT ?"
    rows = query(db, sql, [*params, max(0, min(int(limit), MAX_ROWS))])
    return [_entry(row) for row in rows]


def _entry(row: dict[str, Any]) -> AuditEntry:
    """An entry with the secret words of its command and summary masked."""
    masked = {name: mask_secret_words(row[name] or "") for name in ("command", "summary")}
    named: dict[str, Any] = {**row, **masked}
    return AuditEntry(**named)


def _prefix(text: str) -> str:
    """A LIKE pattern for "starts with `text`", its own % and _ taken literally."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def outcomes(db: sqlite_utils.Database) -> list[str]:
    """The outcomes recorded so far, for filters."""
    return [r[0] for r in execute(db, "SELECT DISTINCT outcome FROM audit_log ORDER BY outcome").fetchall()]
