"""The one alarm poller: every few seconds, the activities of every organization's panels into the cache.

Each poll asks operation 3 once per organization, over all its panels, from that organization's cursor minus
an overlap (activities can land a little late); what is new is attributed to its panel by group testing
(`core.attribution`). An organization's new activities and its moved cursor are written in one
transaction, so a crash or a failing service at any moment leaves that organization's cursor where it was:
the next poll asks the same window again, and event-id de-duplication keeps what was already written.

The cursor lives in the cache (`panel_cursors`, table name `poller`, keyed by organization id, 0 for "no
organization"), so a restarted poller resumes where the last one stopped. The notifier hosts the poller
(`core/notify/source.py`) and reads what it wrote in the same cycle; the dashboard reads the same table.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from core import tiers
from core.attribution import Attributed, GroupTest
from core.cache import sync_state
from core.cache.cursors import save_cursors
from core.cache.seen import POLLER_CURSORS, mark_watch_from
from core.cache.transactions import write_transaction
from core.cache.writes import activity_row, panel_row, upsert_activities, upsert_dicts
from core.client import SamClient
from core.clock import now_ms
from core.errors import SamError
from core.read import activities
from core.read import cursors as read_cursors
from core.sqlite_lib import sqlite_utils

log = logging.getLogger("samops.poller")

CURSOR_TABLE = POLLER_CURSORS  # panel_cursors.table_name of the poller's per-organization cursors
# How old the panel list may get: panels added or removed since are picked up at most this late.
PANELS_EVERY_MS = 600_000
AHEAD_MS = 60_000  # the window reaches this far past now: a panel's clock may run a little fast


@dataclass
class PollReport:
    started_at: int
    new: int = 0  # activities written that the cache did not have
    rounds: int = 0  # the deepest group-testing level of any organization
    errors: list[str] = field(default_factory=list)


class Poller:
    def __init__(
        self,
        client: SamClient,
        overlap_ms: int = 120_000,
        history_ms: int = 24 * 3_600_000,
        concurrency: int = 8,
        clock: Callable[[], int] | None = None,
    ) -> None:
        self.client = client
        self.clock = clock or now_ms  # epoch-ms; tests pass a fake one
        self.overlap_ms = overlap_ms
        # With no cursor yet (a fresh cache), the first poll reads this much history.
        self.history_ms = history_ms
        self.concurrency = concurrency
        self._panels: dict[int, list[int]] = {}  # org (0: none) -> panel ids
        self._panels_at = 0  # when the login that listed them was
        self.last_success: int | None = None

    def poll(self, db: sqlite_utils.Database, since: int | None = None) -> PollReport:
        """One poll of every organization. Without a cursor, start at `since` minus the history (or now
        minus it). Raises the first SamError after every organization had its turn: what succeeded is
        written, what failed is asked again next poll."""
        report = PollReport(started_at=self.clock())
        self._refresh_panels(db, report.started_at)
        cursors = _cursors(db)
        first: SamError | None = None
        for org, ids in self._panels.items():
            cursor = cursors.get(org)
            if cursor is not None:
                start = cursor - self.overlap_ms
            else:
                start = (since or report.started_at) - self.history_ms
            try:
                end = report.started_at + AHEAD_MS
                found, rounds = self._attribute(db, org, ids, start, end, dense=cursor is None)
            except SamError as err:
                report.errors.append(f"activities of organization {org}: {err}")
                first = first or err
                continue
            # What samops saw arrive is stamped (docs/history.md), by the rule every path goes by
            # (core/cache/seen.py): not the first poll's day, nor what lies before the window it read.
            history_from = (since or report.started_at) - self.history_ms
            with write_transaction(db):
                mark_watch_from(db, history_from)
                rows = [attributed_row(f, org) for f in found]
                upsert_activities(db, "activities", rows, seen_at=report.started_at)
                _set_cursor(db, org, report.started_at)
            report.new += len(found)
            report.rounds = max(report.rounds, rounds)
        with write_transaction(db):
            _record_poll(db, report)
        if first is not None:
            raise first
        self.last_success = report.started_at
        return report

    @property
    def panels(self) -> dict[int, list[int]]:
        """The panels polled now, per organization (0: none): what reconciliation and the backfill cover."""
        return self._panels

    def floor(self, db: sqlite_utils.Database) -> int | None:
        """The oldest activity time the next poll may write: the oldest cursor of the organizations polled,
        minus the overlap; 0 while an organization has none yet (its first poll reads back to before the
        baseline); None before the first poll."""
        cursors = _cursors(db)
        if any(org not in cursors for org in self._panels):
            return 0
        polled = [cursors[org] for org in self._panels]
        return min(polled) - self.overlap_ms if polled else None

    def forget_panels(self) -> None:
        """The next poll lists the panels again (with a login) and writes them: for a fresh cache."""
        self._panels, self._panels_at = {}, 0

    def _refresh_panels(self, db: sqlite_utils.Database, now: int) -> None:
        """Keep the panel list at most PANELS_EVERY_MS old. The session is kept (the spec shows no token
        lifetime; a 401 logs in again): a newer list the sync wrote from its own login is read from the
        cache, and only without one does the poller log in again (the answer is ~18 MB at 10,000 panels)."""
        if self._panels and now - self._panels_at < PANELS_EVERY_MS:
            return
        if self._panels:  # the first list comes with the session's login
            at = tiers.last_listed(db)
            if at is not None and at > self._panels_at:
                listed = tiers.listed_panels(db, at)
                self._panels, self._panels_at = _narrowed(listed, self.client.settings.organization_id), at
                return
            if now - self._panels_at < 2 * PANELS_EVERY_MS:  # the sync's next login may come a little late
                return
        self._login(db, now)

    def _login(self, db: sqlite_utils.Database, now: int) -> None:
        result = self.client.login()
        panels = [p for p in result.panels if p.resource_id is not None]
        wanted = self.client.settings.organization_id
        if any(p.org_id == wanted for p in panels):  # SAM_ORGANIZATION_ID narrows, as in the sync
            panels = [p for p in panels if p.org_id == wanted]
        self._panels, self._panels_at = {}, now
        for panel in panels:
            self._panels.setdefault(panel.org_id or 0, []).append(int(panel.resource_id or 0))
        with write_transaction(db):
            upsert_dicts(db, "panels", [panel_row(p) for p in panels], "resource_id")
            tiers.mark_listed(db, [int(p.resource_id or 0) for p in panels], now)

    def _attribute(
        self, db: sqlite_utils.Database, org: int, ids: list[int], start: int, end: int, dense: bool
    ) -> tuple[list[Attributed], int]:
        def known(event_ids: Collection[str]) -> set[str]:
            return known_events(db, event_ids)

        test = GroupTest(self.client, org or None, max(0, start), end, known, self.concurrency, dense)
        found = test.run(ids)
        return found, test.rounds


def _narrowed(panels: dict[int, list[int]], wanted: int | None) -> dict[int, list[int]]:
    """SAM_ORGANIZATION_ID narrows the panels polled, as in the sync (when it names a listed one)."""
    return {wanted: panels[wanted]} if wanted is not None and wanted in panels else panels


def known_events(db: sqlite_utils.Database, event_ids: Collection[str]) -> set[str]:
    """The event ids the cache already holds with a panel (in chunks: SQLite bounds the ? of a statement)."""
    return activities.known_events(db, event_ids)


def attributed_row(found: Attributed, org: int) -> tuple[object, ...]:
    row = activity_row(found.activity, found.panel, org or None)
    # activity_row prefers a panel id sent on the record; here the group test's answer is the proof.
    return (row[0], found.panel, *row[2:])


def _record_poll(db: sqlite_utils.Database, report: PollReport) -> None:
    """sync_state of activities, which `samops status` and the dashboard read for freshness. Rows are
    counted up by what was new, not recounted: a count(*) would grow with the history on every poll."""
    error = None
    if report.errors:
        more = len(report.errors) - 1
        error = report.errors[0] + (f" (and {more} more)" if more else "")
    sync_state.record_poll_state(db, report.started_at, error, report.new)


def _cursors(db: sqlite_utils.Database) -> dict[int, int]:
    return read_cursors.cursors(db, CURSOR_TABLE)


def _set_cursor(db: sqlite_utils.Database, org: int, cursor: int) -> None:
    save_cursors(db, CURSOR_TABLE, [(org, cursor)])


__all__ = ["CURSOR_TABLE", "PollReport", "Poller", "attributed_row", "known_events"]
