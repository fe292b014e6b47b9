"""Writing silences and maintenance windows (`quiet_windows`, created by the schema's migrations), and
recording which window held back which alarm (`quiet_held`). Reading them is `core.read.quiet`, but for
the window record itself (QuietWindow, and `window`, which the writes here return): core/read builds on
core/cache, never the other way round.

Functions run in the caller's transaction (`core.cache.writes.write_transaction`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import tzinfo
from typing import Any

from core.alarms import Alarm, alarm_from
from core.cache.alarm_sql import ALARM_COLUMNS
from core.cache.sql import execute, query
from core.quiet_reason import DURING, HELD, QuietReason, words
from core.sqlite_lib import sqlite_utils

SILENCE, MAINTENANCE = "silence", "maintenance"

# The window's own columns, in QuietWindow's order; its panel's name and organization follow.
_OWN_COLUMNS = (
    "id", "kind", "resource_id", "org_id", "starts_at", "ends_at", "reason", "created_by", "created_at",
    "config_key", "lifted_at", "lifted_by", "summarized_at", "hold_life_safety", "reference",
)  # fmt: skip


def window_columns(prefix: str = "", panel: str = "p") -> str:
    """The columns of a window `w` and its panel `panel`, each named `<prefix><field of QuietWindow>` (a
    prefix keeps them apart from an alarm's columns in the same row); read back with `window_from`."""
    own = [f"w.{c} AS {prefix}{c}" for c in _OWN_COLUMNS]
    return ", ".join([*own, f"{panel}.name AS {prefix}panel_name", f"{panel}.org_id AS {prefix}panel_org_id"])


WINDOW_COLUMNS = window_columns()
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
    # A maintenance window planned to hold life-safety alarms too (a fire-system test: core/life_safety.py);
    # otherwise they are posted, marked as during it. A silence never holds them.
    hold_life_safety: bool = False
    reference: str | None = None  # the R-… of the audit row it was made under, when it was made in Slack

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

    def covers(self, at: int, resource_id: int | None, org_id: int | None) -> bool:
        """Whether this window is in force at `at` over this panel (or its organization)."""
        if not self.in_force(at):
            return False
        if self.resource_id is not None:
            return self.resource_id == resource_id
        return self.org_id is not None and self.org_id == org_id

    def holds(self, at: int, resource_id: int | None, org_id: int | None, life_safety: bool = False) -> bool:
        """Whether an alarm of this panel (and organization) at `at` is held back by this window: a
        life-safety alarm only by a maintenance window planned to hold them."""
        if life_safety and not (self.kind == MAINTENANCE and self.hold_life_safety):
            return False
        return self.covers(at, resource_id, org_id)

    def marks(self, at: int, resource_id: int | None, org_id: int | None, life_safety: bool) -> bool:
        """Whether a life-safety alarm at `at` is posted marked as during this maintenance window."""
        return life_safety and self.kind == MAINTENANCE and self.covers(at, resource_id, org_id)

    def quiet_reason(self, effect: str = HELD) -> QuietReason:
        """What this window did to an alarm (HELD, or DURING for a life-safety alarm posted marked), as a
        record each reader renders on their own clock (`core.quiet_reason.words`)."""
        return QuietReason(
            effect=effect,
            kind=SILENCE if self.kind == SILENCE else MAINTENANCE,
            who=self.created_by,
            until=self.end,
            reference=self.reference,
            note=self.reason if not self.created_by else None,
            scope=self.scope(),
            life_safety_held=self.hold_life_safety,
        )

    def held_reason(self, zone: tzinfo, named: bool = True) -> str:
        """Why an alarm this window held is not posted, the one wording of every surface (console, the
        Alarms page, Handling, `/sam alarms`): "held: maintenance by @U0TECH until 2026-12-08 14:00 …",
        "held: silence R-4K7Q2M by @U0TECH until …" (Slack makes the person a mention:
        bot/render/quiet.py `slack_words`), on `zone`'s clock, the zone named unless `named` is False."""
        return words(self.quiet_reason(HELD), zone, named)

    def during(self, zone: tzinfo, named: bool = True) -> str:
        """What a life-safety alarm posted during this maintenance window says of it."""
        return words(self.quiet_reason(DURING), zone, named)

    def scope(self) -> str:
        """What it covers, in words: `Depot (777)`, `panel 777` or `organization 1001`."""
        if self.resource_id is not None:
            return (
                f"{self.panel_name} ({self.resource_id})" if self.panel_name else f"panel {self.resource_id}"
            )
        return f"organization {self.org_id}"


def window_from(row: Mapping[str, Any], prefix: str = "") -> QuietWindow:
    """The window in a row selected with `window_columns(prefix)`."""
    values = {f.name: row[prefix + f.name] for f in fields(QuietWindow)}
    values["hold_life_safety"] = bool(values["hold_life_safety"])
    return QuietWindow(**values)


def window(db: sqlite_utils.Database, window_id: int) -> QuietWindow | None:
    """One window by id (None: no such window); read here, where the writes that return it are."""
    rows = _query(db, f"SELECT {WINDOW_COLUMNS} {WINDOW_FROM} WHERE w.id = ?", [window_id])
    return window_from(rows[0]) if rows else None


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
    hold_life_safety: bool = False,
    reference: str | None = None,
) -> int:
    """Record a window; returns its id. A `config_key` already recorded is that row (one per occurrence)."""
    if (resource_id is None) == (org_id is None):
        raise ValueError("a window covers one panel or one organization")
    if hold_life_safety and kind != MAINTENANCE:
        raise ValueError("only a maintenance window may hold life-safety alarms")
    cursor = execute(
        db,
        "INSERT INTO quiet_windows (kind, resource_id, org_id, starts_at, ends_at, reason, created_by,"
        " created_at, config_key, hold_life_safety, reference) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT(config_key) DO NOTHING",
        [
            *(kind, resource_id, org_id, starts_at, ends_at, reason, created_by, created_at, config_key),
            int(hold_life_safety),
            reference,
        ],
    )
    if cursor.rowcount == 1:
        return int(cursor.lastrowid or 0)
    row = execute(db, "SELECT id FROM quiet_windows WHERE config_key = ?", [config_key]).fetchone()
    return int(row[0])


def silence_panel(
    db: sqlite_utils.Database,
    resource_id: int,
    until: int,
    slack_user: str,
    at: int,
    reference: str | None = None,
) -> int:
    """Silence a panel until `until`: the silence in force is moved to the new end (30 min after 24 h
    shortens it, as the buttons say), else a new one starts now. Returns the silence's id. `reference`: the
    R-… of the audit row of this click (the silence's reason reads it)."""
    row = execute(
        db,
        "SELECT id FROM quiet_windows WHERE kind = ? AND resource_id = ? AND lifted_at IS NULL"
        " AND starts_at <= ? AND ends_at > ? ORDER BY id DESC LIMIT 1",
        [SILENCE, resource_id, at, at],
    ).fetchone()
    if row is None:
        return add_window(
            db,
            kind=SILENCE,
            resource_id=resource_id,
            starts_at=at,
            ends_at=until,
            created_by=slack_user,
            created_at=at,
            reference=reference,
        )
    execute(
        db,
        "UPDATE quiet_windows SET ends_at = ?, created_by = ?, reference = COALESCE(?, reference)"
        " WHERE id = ?",
        [until, slack_user, reference, row[0]],
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
    return [window_from(r) for r in rows]


def record_held(db: sqlite_utils.Database, held: Iterable[tuple[str, int]]) -> None:
    """(event_id, window_id) of alarms recorded but not posted."""
    db.conn.executemany(
        "INSERT INTO quiet_held (event_id, window_id) VALUES (?, ?) ON CONFLICT(event_id) DO NOTHING", held
    )


def record_marked(db: sqlite_utils.Database, marked: Iterable[tuple[str, int]]) -> None:
    """(event_id, window_id) of life-safety alarms posted during a maintenance window, marked so."""
    db.conn.executemany(
        "INSERT INTO quiet_marked (event_id, window_id) VALUES (?, ?) ON CONFLICT(event_id) DO NOTHING",
        marked,
    )


def pass_on_held(
    db: sqlite_utils.Database,
    ended: QuietWindow,
    now: int,
    life_safety: Callable[[Alarm], bool] = lambda _alarm: False,
) -> int:
    """Hand the alarms `ended` held back that another window, still in force at `now`, holds too (a panel's
    silence outlasting its organization's maintenance, lifted early) to the one of those that ends last, so
    that they are summed up when no window holds them any more; returns how many were handed on. A
    life-safety alarm (`life_safety`, core/life_safety.py) goes only to a window that holds such alarms."""
    held = [
        alarm_from(r)
        for r in _query(
            db,
            f"SELECT {ALARM_COLUMNS} FROM quiet_held h JOIN activities a ON a.event_id = h.event_id"
            " LEFT JOIN panels p ON p.resource_id = a.resource_id WHERE h.window_id = ?",
            [ended.id],
        )
    ]
    if not held:
        return 0
    times = [a.activity_time for a in held]
    others = [w for w in overlapping(db, min(times), max(times)) if w.id != ended.id and w.end > now]
    moves: list[tuple[int, str]] = []
    for alarm in held:
        at, vital = alarm.activity_time, life_safety(alarm)
        if covering := [w for w in others if w.holds(at, alarm.resource_id, alarm.org_id, vital)]:
            moves.append((max(covering, key=lambda w: (w.end, w.id)).id, alarm.event_id))
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
    return [window_from(r) for r in rows]


def mark_summarized(db: sqlite_utils.Database, window_id: int, at: int) -> None:
    execute(db, "UPDATE quiet_windows SET summarized_at = ? WHERE id = ?", [at, window_id])
