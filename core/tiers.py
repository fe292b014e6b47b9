"""Tiered freshness: the slow tables (sensors, controllers, push history per panel; users, cameras,
controller values per organization) each refreshed on their own schedule, spread over time.

Each scope (a panel, or an organization) of a table has a fixed phase within the table's interval, taken
from its id, so that the scopes of a table fall due evenly over the interval rather than all at once: a
`samops sync --every` tick refreshes only the scopes whose latest due point is after their last refresh.
A scope never refreshed (a new panel) is due at once; one whose refresh failed stays due, and is tried
again next tick. Between due points a scope is at most one interval (plus a tick) old.

When each scope was last refreshed is kept in `panel_cursors` (table name `refreshed:<table>`, keyed by
the scope's id), written in the same transaction as the rows it refreshed. Activities are not tiered:
the alarm poller (core/poller.py) keeps them fresh every few seconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from core.cache.cursors import save_cursors
from core.read import cursors as read_cursors
from core.sqlite_lib import sqlite_utils

# The tiered tables and the setting holding each one's interval (core.settings.Settings, seconds).
TIERED = {
    "sensors": "refresh_sensors",
    "controllers": "refresh_controllers",
    "push_history": "refresh_push_history",
    "users": "refresh_users",
    "cameras": "refresh_cameras",
    "controller_values": "refresh_controller_values",
}
PREFIX = "refreshed:"
LOGIN = "login"  # the sync's login (scope 0): the refresh of every panel's sensors and controllers
LISTED = "listed"  # the panels a login listed, each with that login's time (`listed_panels`)
_SPREAD = 2_654_435_761  # Knuth's multiplicative hash: consecutive ids land far apart in the interval


@dataclass(frozen=True)
class Schedule:
    table: str
    interval_ms: int

    def phase(self, scope: int) -> int:
        return (scope * _SPREAD) % self.interval_ms

    def last_due(self, scope: int, now: int) -> int:
        """The latest point at or before `now` at which `scope` fell due."""
        return now - (now - self.phase(scope)) % self.interval_ms

    def paced(self, scopes: int, rate: float) -> Schedule:
        """This schedule, its interval stretched so that `scopes` refreshes (one request each) over it
        average at most `rate` per second: at fleet size a per-panel table cannot be read every ten
        minutes without loading the service (10,000 panels: 17 requests per second)."""
        floor_ms = int(scopes / rate * 1000) if rate > 0 else 0
        return Schedule(self.table, max(self.interval_ms, floor_ms))

    def due(self, scopes: Iterable[int], refreshed: Mapping[int, int], now: int) -> list[int]:
        """The scopes to refresh now: never refreshed, or last refreshed before their latest due point."""
        return [s for s in scopes if s not in refreshed or refreshed[s] < self.last_due(s, now)]


def schedules(settings: object) -> dict[str, Schedule]:
    """Each tiered table's schedule, from the settings."""
    return {t: Schedule(t, int(float(getattr(settings, name)) * 1000)) for t, name in TIERED.items()}


def refreshed(db: sqlite_utils.Database, table: str) -> dict[int, int]:
    """When each scope of `table` was last refreshed (epoch-ms)."""
    return read_cursors.cursors(db, PREFIX + table)


def mark_refreshed(db: sqlite_utils.Database, table: str, scopes: Iterable[int], at: int) -> None:
    """Record a refresh of these scopes, in the caller's transaction."""
    save_cursors(db, PREFIX + table, ((scope, at) for scope in scopes))


def mark_listed(db: sqlite_utils.Database, panels: Iterable[int], at: int) -> None:
    """Record that a login at `at` listed these panels (in the caller's transaction): the latest such
    list is the fleet as the service last described it (`listed_panels`)."""
    mark_refreshed(db, LISTED, panels, at)


def last_listed(db: sqlite_utils.Database) -> int | None:
    """When the latest login whose panel list was written to the cache was (None: none was)."""
    return read_cursors.latest_cursor(db, PREFIX + LISTED)


def listed_panels(db: sqlite_utils.Database, at: int) -> dict[int, list[int]]:
    """{organization (0: none): panel ids} as the login at `at` listed them. A panel that no later login
    listed (removed from the service) is not in it."""
    panels: dict[int, list[int]] = {}
    for rid, org in read_cursors.panels_at(db, PREFIX + LISTED, at):
        panels.setdefault(int(org or 0), []).append(int(rid))
    return panels


def oldest(db: sqlite_utils.Database, table: str) -> int | None:
    """The oldest refresh of any scope of `table` (for `samops status`)."""
    return read_cursors.oldest_cursor(db, PREFIX + table)


__all__ = [
    "LISTED",
    "LOGIN",
    "PREFIX",
    "TIERED",
    "Schedule",
    "last_listed",
    "listed_panels",
    "mark_listed",
    "mark_refreshed",
    "oldest",
    "refreshed",
    "schedules",
]
