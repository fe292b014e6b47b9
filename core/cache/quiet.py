"""Writing silences and maintenance windows (`quiet_windows`, created by the schema's migrations), and
recording which window held back which alarm (`quiet_held`). Reading them is `core.read.quiet`, but for
the window record itself (QuietWindow, and `window`, which the writes here return): core/read builds on
core/cache, never the other way round.

Functions run in the caller's transaction (`core.cache.writes.write_transaction`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from core.cache.sql import execute, query
from core.sqlite_lib import sqlite_utils

SILENCE, MAINTENANCE = "silence", "maintenance"

WINDOW_COLUMNS = (
    "w.id, w.kind, w.resource_id, w.org_id, w.starts_at, w.ends_at, w.reason, w.created_by, w.created_at,"
    " w.config_key, w.lifted_at, w.lifted_by, w.summarized_at, p.name AS panel_name,"
    " p.org_id AS panel_org_id"
)
WINDOW_FROM = "FROM quiet_windows w LEFT JOIN panels p ON p.resource_id = w.resource_id"


@dataclass(frozen=True)
class QuietWindow:
    """A silence (one panel) or a maintenance window (one panel, or every panel of `org_id`)."""

    id: int
    kind: str  # SILENCE or MAINTENANCE
    resource_id: int | None
    org_id: int | None
    starts_at: int
    ends_at: int
    reason: str | None
    created_by: str | None  # a Slack user id, or None for a window from the TOML
    created_at: int
    config_key: str | None  # set for an occurrence of a [[notify.maintenance]] entry
    lifted_at: int | None
    lifted_by: str | None
    summarized_at: int | None
    panel_name: str | None = None
    panel_org_id: int | None = None

    @property
    def organization(self) -> int | None:
        """The organization it is about (its panel's, for a panel's window)."""
        return self.org_id if self.org_id is not None else self.panel_org_id

    @property
    def end(self) -> int:
        """When it ends (or ended): its end, or earlier if someone lifted it."""
        return self.ends_at if self.lifted_at is None else min(self.ends_at, self.lifted_at)

    def in_force(self, at: int) -> bool:
        return self.starts_at <= at < self.end

    def holds(self, at: int, resource_id: int | None, org_id: int | None) -> bool:
        """Whether an alarm of this panel (and organization) at `at` is held back by this window."""
        if not self.in_force(at):
            return False
        if self.resource_id is not None:
            return self.resource_id == resource_id
        return self.org_id is not None and self.org_id == org_id

    def scope(self) -> str:
        """What it covers, in words: `Depot (777)`, `panel 777` or `organization 1001`."""
        if self.resource_id is not None:
            return (
                f"{self.panel_name} ({self.resource_id})" if self.panel_name else f"panel {self.resource_id}"
            )
        return f"organization {self.org_id}"


def window(db: sqlite_utils.Database, window_id: int) -> QuietWindow | None:
    """One window by id (None: no such window); read here, where the writes that return it are."""
    rows = _query(db, f"SELECT {WINDOW_COLUMNS} {WINDOW_FROM} WHERE w.id = ?", [window_id])
    return QuietWindow(**rows[0]) if rows else None


def _query(db: sqlite_utils.Database, sql: str, params: list[object]) -> list[dict[str, Any]]:
    return list(query(db, sql, params))


def add_window(
    db: sqlite_utils.Database,
    *,
    kind: str,
    starts_at: int,
    ends_at: int,
    created_at: int,
    resource_id: int | None = None,
    org_id: int | None = None,
    reason: str | None = None,
    created_by: str | None = None,
    config_key: str | None = None,
) -> int:
    """Record a window; returns its id. A `config_key` already recorded is that row (one per occurrence)."""
    if (resource_id is None) == (org_id is None):
        raise ValueError("a window covers one panel or one organization")
    cursor = execute(
        db,
        "INSERT INTO quiet_windows (kind, resource_id, org_id, starts_at, ends_at, reason, created_by,"
        " created_at, config_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(config_key) DO NOTHING",
        [kind, resource_id, org_id, starts_at, ends_at, reason, created_by, created_at, config_key],
    )
    if cursor.rowcount == 1:
        return int(cursor.lastrowid or 0)
    row = execute(db, "SELECT id FROM quiet_windows WHERE config_key = ?", [config_key]).fetchone()
    return int(row[0])


def silence_panel(db: sqlite_utils.Database, resource_id: int, until: int, slack_user: str, at: int) -> int:
    """Silence a panel until `until`: the silence in force is moved to the new end (30 min after 24 h
    shortens it, as the buttons say), else a new one starts now. Returns the silence's id."""
    row = execute(
        db,
        "SELECT id FROM quiet_windows WHERE kind = ? AND resource_id = ? AND lifted_at IS NULL"
        " AND starts_at <= ? AND ends_at > ? ORDER BY id DESC LIMIT 1",
        [SILENCE, resource_id, at, at],
    ).fetchone()
    if row is None:
        return add_window(db, kind=SILENCE, resource_id=resource_id, starts_at=at, ends_at=until,
                          created_by=slack_user, created_at=at)  # fmt: skip
    execute(
        db, "UPDATE quiet_windows SET ends_at = ?, created_by = ? WHERE id = ?", [until, slack_user, row[0]]
    )
    return int(row[0])


def silence_until(db: sqlite_utils.Database, resource_id: int, at: int) -> int | None:
    """The end of the panel's silence in force at `at`, if any."""
    row = execute(
        db,
        "SELECT max(ends_at) FROM quiet_windows WHERE kind = ? AND resource_id = ? AND lifted_at IS NULL"
        " AND starts_at <= ? AND ends_at > ?",
        [SILENCE, resource_id, at, at],
    ).fetchone()
    return int(row[0]) if row and row[0] is not None else None


def lift(
    db: sqlite_utils.Database, window_id: int, slack_user: str, at: int
) -> tuple[QuietWindow, bool] | None:
    """End a window now; returns (the window, whether this call lifted it) — a second click finds it lifted
    (or over) and changes nothing — or None for an unknown id."""
    cursor = execute(
        db,
        "UPDATE quiet_windows SET lifted_at = ?, lifted_by = ?"
        " WHERE id = ? AND lifted_at IS NULL AND ends_at > ?",
        [at, slack_user, window_id, at],
    )
    found = window(db, window_id)
    return (found, cursor.rowcount == 1) if found is not None else None


def overlapping(db: sqlite_utils.Database, since: int, until: int) -> list[QuietWindow]:
    """Windows in force at some time in [since, until] whose summary is not out yet: the ones that may hold
    back an alarm of that span (an alarm discovered after its window's summary is posted as usual)."""
    rows = _query(
        db,
        f"SELECT {WINDOW_COLUMNS} FROM quiet_windows w LEFT JOIN panels p ON p.resource_id = w.resource_id"
        " WHERE w.summarized_at IS NULL AND w.starts_at <= ? AND w.ends_at > ?"
        " AND (w.lifted_at IS NULL OR w.lifted_at > ?)",
        [until, since, since],
    )
    return [QuietWindow(**r) for r in rows]


def record_held(db: sqlite_utils.Database, held: Iterable[tuple[str, int]]) -> None:
    """(event_id, window_id) of alarms recorded but not posted."""
    db.conn.executemany(
        "INSERT INTO quiet_held (event_id, window_id) VALUES (?, ?) ON CONFLICT(event_id) DO NOTHING", held
    )


def pass_on_held(db: sqlite_utils.Database, ended: QuietWindow, now: int) -> int:
    """Hand the alarms `ended` held back that another window, still in force at `now`, holds too (a panel's
    silence outlasting its organization's maintenance, lifted early) to the one of those that ends last, so
    that they are summed up when no window holds them any more; returns how many were handed on."""
    held = execute(
        db,
        "SELECT h.event_id, a.activity_time, a.resource_id, a.org_id FROM quiet_held h"
        " JOIN activities a ON a.event_id = h.event_id WHERE h.window_id = ?",
        [ended.id],
    ).fetchall()
    if not held:
        return 0
    times = [row[1] for row in held]
    others = [w for w in overlapping(db, min(times), max(times)) if w.id != ended.id and w.end > now]
    moves: list[tuple[int, str]] = []
    for event_id, at, resource_id, org_id in held:
        if covering := [w for w in others if w.holds(at, resource_id, org_id)]:
            moves.append((max(covering, key=lambda w: (w.end, w.id)).id, event_id))
    db.conn.executemany("UPDATE quiet_held SET window_id = ? WHERE event_id = ?", moves)
    return len(moves)


def ended_unsummarized(db: sqlite_utils.Database, at: int) -> list[QuietWindow]:
    """Windows over (or lifted) by `at` whose held-back summary is not out yet, in the order they ended."""
    rows = _query(
        db,
        f"SELECT {WINDOW_COLUMNS} FROM quiet_windows w LEFT JOIN panels p ON p.resource_id = w.resource_id"
        " WHERE w.summarized_at IS NULL AND (w.ends_at <= ? OR w.lifted_at IS NOT NULL)"
        " ORDER BY min(w.ends_at, COALESCE(w.lifted_at, w.ends_at)), w.id",
        [at],
    )
    return [QuietWindow(**r) for r in rows]


def mark_summarized(db: sqlite_utils.Database, window_id: int, at: int) -> None:
    execute(db, "UPDATE quiet_windows SET summarized_at = ? WHERE id = ?", [at, window_id])
