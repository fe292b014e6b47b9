"""Silences and maintenance windows (the `quiet_windows` table): what is in force, what comes, what a
window held back. The notifier writes them through `core.cache.quiet`; the bot and the dashboard read here.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.read.rows import query
from core.sqlite_lib import sqlite_utils

SILENCE, MAINTENANCE = "silence", "maintenance"

WINDOW_COLUMNS = (
    "w.id, w.kind, w.resource_id, w.org_id, w.starts_at, w.ends_at, w.reason, w.created_by, w.created_at,"
    " w.config_key, w.lifted_at, w.lifted_by, w.summarized_at, p.name AS panel_name,"
    " p.org_id AS panel_org_id"
)
_FROM = "FROM quiet_windows w LEFT JOIN panels p ON p.resource_id = w.resource_id"


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


@dataclass(frozen=True)
class HeldGroup:
    """What a window held back in one channel, per panel and kind."""

    channel: str
    resource_id: int | None
    panel_name: str | None
    kind: str
    count: int
    first_time: int
    last_time: int


def _window(row: dict) -> QuietWindow:
    return QuietWindow(**row)


def _has_table(db: sqlite_utils.Database) -> bool:
    return db["quiet_windows"].exists()


def window(db: sqlite_utils.Database, window_id: int) -> QuietWindow | None:
    rows = query(db, f"SELECT {WINDOW_COLUMNS} {_FROM} WHERE w.id = ?", [window_id])
    return _window(rows[0]) if rows else None


def windows_in_force(
    db: sqlite_utils.Database, at: int, org_id: int | None = None, upcoming: bool = False
) -> list[QuietWindow]:
    """Silences and windows in force at `at` (and, with `upcoming`, those that start later), soonest end
    first; with `org_id`, those of that organization's panels or of the organization itself."""
    if not _has_table(db):
        return []
    sql = f"SELECT {WINDOW_COLUMNS} {_FROM} WHERE w.lifted_at IS NULL AND w.ends_at > ?" + (
        "" if upcoming else " AND w.starts_at <= ?"
    )
    params: list[object] = [at] if upcoming else [at, at]
    if org_id is not None:
        sql += " AND (w.org_id = ? OR p.org_id = ?)"
        params += [org_id, org_id]
    rows = query(db, sql + " ORDER BY w.starts_at > ?, w.ends_at, w.id", [*params, at])
    return [_window(r) for r in rows]


def held_back(db: sqlite_utils.Database, window_id: int) -> list[HeldGroup]:
    """The alarms `window_id` held back, counted per channel, panel and kind, oldest first."""
    rows = query(
        db,
        "SELECT o.channel AS channel, a.resource_id AS resource_id, p.name AS panel_name,"
        " COALESCE(a.violation_name, a.violation_type, a.event_type, 'alarm') AS kind, count(*) AS count,"
        " min(a.activity_time) AS first_time, max(a.activity_time) AS last_time"
        " FROM quiet_held h JOIN notify_outbox o ON o.event_id = h.event_id"
        " JOIN activities a ON a.event_id = h.event_id LEFT JOIN panels p ON p.resource_id = a.resource_id"
        " WHERE h.window_id = ? GROUP BY o.channel, a.resource_id, kind"
        " ORDER BY o.channel, first_time, a.resource_id, kind",
        [window_id],
    )
    return [HeldGroup(**r) for r in rows]
